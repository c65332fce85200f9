#include "visuals/heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vis {

void heat_rgb(double t, float rgb[3]) {
  // Control points sampled from matplotlib's viridis at 0, 0.25, 0.5, 0.75, 1.
  static const float k[5][3] = {{0.267f, 0.005f, 0.329f},
                                {0.229f, 0.322f, 0.546f},
                                {0.128f, 0.567f, 0.551f},
                                {0.369f, 0.789f, 0.383f},
                                {0.993f, 0.906f, 0.144f}};
  if (!(t >= 0)) t = 0;  // NaN too
  if (t > 1) t = 1;
  const double x = t * 4.0;
  const int i = std::min(3, static_cast<int>(x));
  const float f = static_cast<float>(x - i);
  for (int c = 0; c < 3; ++c) rgb[c] = k[i][c] + (k[i + 1][c] - k[i][c]) * f;
}

ImU32 heat_color(double t) {
  float rgb[3];
  heat_rgb(t, rgb);
  return IM_COL32(static_cast<int>(rgb[0] * 255.0f + 0.5f),
                  static_cast<int>(rgb[1] * 255.0f + 0.5f),
                  static_cast<int>(rgb[2] * 255.0f + 0.5f), 255);
}

double heat_unit(double v, double lo, double hi) {
  if (!std::isfinite(v)) return 0;
  if (!(hi > lo)) return 0.5;
  return std::clamp((v - lo) / (hi - lo), 0.0, 1.0);
}

namespace {

const ImU32 kMaskedFill = IM_COL32(48, 48, 52, 255);
const ImU32 kMaskedHatch = IM_COL32(90, 90, 98, 255);

void hatch(ImDrawList* dl, ImVec2 a, ImVec2 b) {
  dl->AddRectFilled(a, b, kMaskedFill);
  const float w = b.x - a.x, h = b.y - a.y;
  if (w >= 6 && h >= 6)
    dl->AddLine(ImVec2(a.x + 1, b.y - 1), ImVec2(b.x - 1, a.y + 1), kMaskedHatch);
}

}  // namespace

int heatmap_cells(int n, int max_cells) { return std::min(n, std::max(1, max_cells)); }

bool draw_heatmap(const char* id, const HeatmapSpec& s, ImVec2 size, bool tooltip) {
  if (size.x <= 0) size.x = std::max(50.0f, ImGui::GetContentRegionAvail().x);
  if (size.y <= 0) size.y = size.x;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, size);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (s.rows <= 0 || s.cols <= 0 || !s.values) {
    dl->AddRect(p0, ImVec2(p0.x + size.x, p0.y + size.y), IM_COL32(120, 120, 120, 255));
    return hovered;
  }
  const float cw = size.x / static_cast<float>(s.cols);
  const float ch = size.y / static_cast<float>(s.rows);
  // Shown grid: at most max_cells a side (blocks averaged over their unmasked cells, masked
  // when all are), and runs of equal colour along a row drawn as one rectangle, so a 64 x 64
  // map stays a few thousand vertices.
  const int dr = heatmap_cells(s.rows, s.max_cells);
  const int dc = heatmap_cells(s.cols, s.max_cells);
  const float bw = size.x / static_cast<float>(dc);
  const float bh = size.y / static_cast<float>(dr);
  auto index = [&](int r, int c) {
    return static_cast<std::size_t>(r) * static_cast<std::size_t>(s.cols) +
           static_cast<std::size_t>(c);
  };
  for (int br = 0; br < dr; ++br) {
    const int r0 = br * s.rows / dr, r1 = (br + 1) * s.rows / dr;
    const float y0 = p0.y + static_cast<float>(br) * bh, y1 = y0 + bh;
    int run_start = 0;
    ImU32 run_color = 0;
    bool run_masked = false;
    for (int bc = 0; bc <= dc; ++bc) {
      ImU32 color = 0;
      bool masked = false;
      if (bc < dc) {
        const int c0 = bc * s.cols / dc, c1 = (bc + 1) * s.cols / dc;
        double sum = 0;
        int n = 0;
        for (int r = r0; r < r1; ++r)
          for (int c = c0; c < c1; ++c) {
            if (s.masked && s.masked[index(r, c)]) continue;
            sum += s.values[index(r, c)];
            ++n;
          }
        masked = n == 0;
        color = masked ? kMaskedFill : heat_color(heat_unit(sum / n, s.lo, s.hi));
      }
      if (bc > 0 && (bc == dc || color != run_color || masked != run_masked)) {
        const ImVec2 a(p0.x + static_cast<float>(run_start) * bw, y0);
        const ImVec2 b(p0.x + static_cast<float>(bc) * bw, y1);
        if (run_masked) {
          dl->AddRectFilled(a, b, kMaskedFill);
          if (bw >= 6 && bh >= 6)
            for (int k = run_start; k < bc; ++k)
              hatch(dl, ImVec2(p0.x + static_cast<float>(k) * bw, y0),
                    ImVec2(p0.x + static_cast<float>(k + 1) * bw, y1));
        } else {
          dl->AddRectFilled(a, b, run_color);
        }
        run_start = bc;
      }
      if (bc == 0 || color != run_color || masked != run_masked) {
        run_color = color;
        run_masked = masked;
      }
    }
  }
  if (s.frame)
    dl->AddRect(ImVec2(p0.x - 2, p0.y - 2), ImVec2(p0.x + size.x + 2, p0.y + size.y + 2), s.frame,
                0.0f, 0, 3.0f);
  if (hovered && tooltip) {
    const ImVec2 m = ImGui::GetMousePos();
    const int c = std::clamp(static_cast<int>((m.x - p0.x) / cw), 0, s.cols - 1);
    const int r = std::clamp(static_cast<int>((m.y - p0.y) / ch), 0, s.rows - 1);
    const std::size_t i = static_cast<std::size_t>(r) * static_cast<std::size_t>(s.cols) +
                          static_cast<std::size_t>(c);
    const float x0 = p0.x + static_cast<float>(c) * cw, y0 = p0.y + static_cast<float>(r) * ch;
    dl->AddRect(ImVec2(x0, y0), ImVec2(x0 + cw, y0 + ch), IM_COL32(255, 255, 255, 255));
    ImGui::BeginTooltip();
    if (s.masked && s.masked[i])
      ImGui::Text("%s %d, %s %d: masked", s.row_name, s.row_offset + r, s.col_name, c);
    else
      ImGui::Text("%s %d, %s %d: %s = %.4g", s.row_name, s.row_offset + r, s.col_name, c,
                  s.value_name, s.values[i]);
    ImGui::EndTooltip();
  }
  return hovered;
}

void draw_heat_legend(const char* id, double lo, double hi, const char* title,
                      std::string (*format)(double), ImVec2 size, bool masked) {
  ImGui::PushID(id);
  ImGui::BeginGroup();
  ImGui::TextUnformatted(title);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float bar_w = std::min(18.0f, size.x * 0.3f);
  const float bar_h = std::max(40.0f, size.y - 2 * ImGui::GetTextLineHeightWithSpacing());
  ImGui::Dummy(ImVec2(size.x, bar_h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int steps = 32;
  for (int i = 0; i < steps; ++i) {
    const float y0 = p0.y + bar_h * (1.0f - static_cast<float>(i + 1) / steps);
    const float y1 = p0.y + bar_h * (1.0f - static_cast<float>(i) / steps);
    dl->AddRectFilled(ImVec2(p0.x, y0), ImVec2(p0.x + bar_w, y1 + 0.5f),
                      heat_color((i + 0.5) / steps));
  }
  dl->AddRect(p0, ImVec2(p0.x + bar_w, p0.y + bar_h), IM_COL32(150, 150, 150, 255));
  const double vals[3] = {hi, (lo + hi) / 2, lo};
  const float ys[3] = {p0.y, p0.y + bar_h / 2 - ImGui::GetFontSize() / 2,
                       p0.y + bar_h - ImGui::GetFontSize()};
  for (int i = 0; i < 3; ++i) {
    const std::string label = format ? format(vals[i]) : std::to_string(vals[i]);
    dl->AddText(ImVec2(p0.x + bar_w + 4, ys[i]), ImGui::GetColorU32(ImGuiCol_Text), label.c_str());
  }
  if (masked) {
    const ImVec2 q = ImGui::GetCursorScreenPos();
    const float sw = ImGui::GetFontSize();
    ImGui::Dummy(ImVec2(sw, sw));
    hatch(dl, q, ImVec2(q.x + sw, q.y + sw));
    ImGui::SameLine();
    ImGui::TextUnformatted("masked");
  }
  ImGui::EndGroup();
  ImGui::PopID();
}

}  // namespace vis
