#include "visuals/lesson.h"

#include <algorithm>
#include <cmath>

#include "visuals/diagram.h"

namespace vis {

ImU32 with_alpha(ImU32 col, float alpha) {
  const float a0 = static_cast<float>((col >> IM_COL32_A_SHIFT) & 0xFF);
  const int a = static_cast<int>(std::lround(std::clamp(alpha, 0.0f, 1.0f) * a0));
  return (col & ~IM_COL32_A_MASK) | (static_cast<ImU32>(a) << IM_COL32_A_SHIFT);
}

ImU32 concept_color(Concept c, float alpha) {
  ImU32 col = IM_COL32(230, 230, 230, 255);
  switch (c) {
    case Concept::kQuery:
      col = IM_COL32(255, 166, 77, 255);
      break;  // orange
    case Concept::kKey:
      col = IM_COL32(86, 156, 255, 255);
      break;  // blue
    case Concept::kValue:
      col = IM_COL32(92, 200, 120, 255);
      break;  // green
    case Concept::kLatent:
      col = IM_COL32(186, 120, 255, 255);
      break;  // violet
    case Concept::kRope:
      col = IM_COL32(240, 210, 70, 255);
      break;  // yellow
    case Concept::kWindow:
      col = IM_COL32(64, 210, 210, 255);
      break;  // teal
    case Concept::kBytes:
      col = IM_COL32(255, 96, 110, 255);
      break;  // red
    case Concept::kCompute:
      col = IM_COL32(240, 120, 200, 255);
      break;  // pink
    case Concept::kInk:
      break;
  }
  return with_alpha(col, alpha);
}

const char* concept_name(Concept c) {
  switch (c) {
    case Concept::kQuery:
      return "query";
    case Concept::kKey:
      return "key";
    case Concept::kValue:
      return "value";
    case Concept::kLatent:
      return "latent";
    case Concept::kRope:
      return "RoPE";
    case Concept::kWindow:
      return "window";
    case Concept::kBytes:
      return "bytes moved";
    case Concept::kCompute:
      return "compute";
    case Concept::kInk:
      return "";
  }
  return "";
}

float ease(float t) {
  t = std::clamp(t, 0.0f, 1.0f);
  return t < 0.5f ? 4 * t * t * t : 1 - std::pow(-2 * t + 2, 3.0f) / 2;
}

float phase(float t, float from, float to) {
  if (to <= from) return t >= to ? 1.0f : 0.0f;
  return ease((t - from) / (to - from));
}

float mix(float a, float b, float t) { return a + (b - a) * t; }
ImVec2 mix(ImVec2 a, ImVec2 b, float t) { return ImVec2(mix(a.x, b.x, t), mix(a.y, b.y, t)); }

ImVec2 text_size(ImFont* font, const std::string& s) {
  ImFont* f = font ? font : ImGui::GetFont();
  return f->CalcTextSizeA(f->FontSize, 1e9f, 0.0f, s.c_str());
}

void text_at(ImDrawList* dl, ImFont* font, ImVec2 p, ImU32 col, const std::string& s, Align align) {
  ImFont* f = font ? font : ImGui::GetFont();
  const ImVec2 sz = text_size(f, s);
  if (align == Align::kCenter) p.x -= sz.x * 0.5f;
  if (align == Align::kRight) p.x -= sz.x;
  dl->AddText(f, f->FontSize, ImVec2(std::floor(p.x), std::floor(p.y)), col, s.c_str());
}

void block(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float alpha) {
  if (alpha <= 0.001f) return;
  dl->AddRectFilled(a, b, with_alpha(col, 0.35f * alpha));
  dl->AddRect(a, b, with_alpha(col, alpha), 0.0f, 0, 1.5f);
}

void arrow(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float grow, float thickness) {
  if (grow <= 0.001f) return;
  const ImVec2 tip = mix(a, b, std::min(grow, 1.0f));
  dl->AddLine(a, tip, col, thickness);
  const float len = std::hypot(tip.x - a.x, tip.y - a.y);
  if (len < 4) return;
  ImVec2 l, r;
  arrow_head(a, tip, 5.0f + thickness * 2, &l, &r);
  dl->AddTriangleFilled(tip, l, r, col);
}

void matrix(ImDrawList* dl, ImFont* font, ImVec2 at, float w, float h, ImU32 col,
            const std::string& name, const std::string& shape, float alpha) {
  if (alpha <= 0.001f) return;
  w = std::max(w, 3.0f);
  h = std::max(h, 3.0f);
  block(dl, at, ImVec2(at.x + w, at.y + h), col, alpha);
  const ImU32 ink = with_alpha(concept_color(Concept::kInk), alpha);
  const ImVec2 ns = text_size(font, name);
  if (ns.x + 6 < w && ns.y + 4 < h)
    text_at(dl, font, ImVec2(at.x + w / 2, at.y + (h - ns.y) / 2), ink, name, Align::kCenter);
  else
    text_at(dl, font, ImVec2(at.x + w / 2, at.y - ns.y - 2), ink, name, Align::kCenter);
  text_at(dl, nullptr, ImVec2(at.x + w / 2, at.y + h + 3),
          with_alpha(IM_COL32(170, 170, 170, 255), alpha), shape, Align::kCenter);
}

void head_stack(ImDrawList* dl, ImFont* font, ImVec2 at, float w, float h, int n, Concept c,
                const std::vector<ImU32>& colours, const std::string& label, float alpha,
                std::vector<ImVec2>* centres) {
  if (centres) centres->clear();
  if (n < 1 || alpha <= 0.001f) return;
  const float pitch = h / static_cast<float>(n);
  const float bar = std::max(1.0f, pitch > 4 ? pitch - 2 : pitch);
  // Many heads (DeepSeek's 128): one rectangle per head is still cheap, but labels are not.
  for (int i = 0; i < n; ++i) {
    const float y = at.y + pitch * static_cast<float>(i);
    const ImU32 col = colours.empty() ? concept_color(c, alpha)
                                      : with_alpha(colours[static_cast<size_t>(i)], alpha);
    dl->AddRectFilled(ImVec2(at.x, y), ImVec2(at.x + w, y + bar), col);
    if (centres) centres->push_back(ImVec2(at.x + w, y + bar / 2));
  }
  if (!label.empty())
    text_at(dl, font, ImVec2(at.x + w / 2, at.y - text_size(font, label).y - 4),
            concept_color(c, alpha), label, Align::kCenter);
}

float tape_width(const std::vector<TapeColumn>& cols, float px_per_element, float gap) {
  float w = 0;
  for (const TapeColumn& c : cols) w += std::max(1.0f, c.elements * px_per_element);
  if (cols.size() > 1) w += gap * static_cast<float>(cols.size() - 1);
  return w;
}

ImVec2 draw_tape(ImDrawList* dl, ImFont* font, ImVec2 at, const std::vector<TapeColumn>& cols,
                 const TapeStyle& st) {
  if (st.alpha <= 0.001f || cols.empty()) return at;
  // Gaps only where columns are wide enough to tell apart.
  float narrowest = 1e9f;
  for (const TapeColumn& c : cols) narrowest = std::min(narrowest, c.elements * st.px_per_element);
  const float gap = narrowest >= 6 ? 2.0f : 0.0f;
  const float w = tape_width(cols, st.px_per_element, gap);
  const float h = st.height;
  const float row_h = h / static_cast<float>(std::max(1, st.rows_drawn));
  // The appended row: the tape grows by one row at the bottom.
  const float grown = h + row_h * std::clamp(st.new_row, 0.0f, 1.0f);
  const float win_y0 = at.y + st.window_from * h, win_y1 = at.y + st.window_to * h;
  const bool label_fits = cols.size() <= 24;
  const bool windowed = st.window_from > 0 || st.window_to < 1;
  // Fills: one rectangle per run of same-concept columns (hundreds of narrow columns would
  // otherwise cost hundreds of blended quads); borders only where a column is wide enough.
  const auto fill = [&](float x0, float x1, Concept c) {
    const ImU32 col = concept_color(c, st.alpha);
    if (windowed) {
      dl->AddRectFilled(ImVec2(x0, at.y), ImVec2(x1, at.y + grown), with_alpha(col, 0.10f));
      dl->AddRectFilled(ImVec2(x0, win_y0), ImVec2(x1, std::min(win_y1, at.y + grown)),
                        with_alpha(col, 0.55f));
    } else {
      dl->AddRectFilled(ImVec2(x0, at.y), ImVec2(x1, at.y + grown), with_alpha(col, 0.40f));
    }
    dl->AddRect(ImVec2(x0, at.y), ImVec2(x1, at.y + grown), col, 0, 0, 1.0f);
  };
  float x = at.x;
  float run_x0 = at.x;
  for (size_t i = 0; i < cols.size(); ++i) {
    const TapeColumn& c = cols[i];
    const float cw = std::max(1.0f, c.elements * st.px_per_element);
    const bool wide = cw >= 16;  // narrower ones share one fill, with separator lines
    if (wide) {
      fill(x, x + cw, c.concept);
    } else if (i + 1 == cols.size() || cols[i + 1].concept != c.concept || gap > 0) {
      fill(run_x0, x + cw, c.concept);  // the run ends here
    } else if (cw >= 3) {
      // A 1-px rectangle, not an anti-aliased line: hundreds of them stay cheap on llvmpipe.
      dl->AddRectFilled(ImVec2(x + cw - 0.5f, at.y), ImVec2(x + cw + 0.5f, at.y + grown),
                        with_alpha(concept_color(c.concept), 0.5f * st.alpha));
    }
    if (c.group_color)
      dl->AddRectFilled(ImVec2(x, at.y - 6), ImVec2(x + cw, at.y - 1),
                        with_alpha(c.group_color, st.alpha));
    if (label_fits && !c.label.empty()) {
      const ImVec2 ls = text_size(font, c.label);
      if (ls.x <= cw + gap + 2)
        text_at(dl, font, ImVec2(x + cw / 2, at.y - ls.y - 8),
                concept_color(c.concept, std::max(st.alpha, 0.5f)), c.label, Align::kCenter);
    }
    x += cw + gap;
    if (wide || i + 1 == cols.size() || cols[i + 1].concept != c.concept || gap > 0) run_x0 = x;
  }
  // Ruled rows across the whole tape (one line each, cheap on a software renderer).
  const ImU32 rule = IM_COL32(20, 22, 26, static_cast<int>(150 * st.alpha));
  for (int r = 1; r < st.rows_drawn; ++r) {
    const float y = at.y + row_h * static_cast<float>(r);
    dl->AddRectFilled(ImVec2(at.x, y - 0.5f), ImVec2(at.x + w, y + 0.5f), rule);
  }
  if (st.new_row > 0) {
    const float y0 = at.y + h;
    dl->AddLine(ImVec2(at.x, y0), ImVec2(at.x + w, y0), rule, 1.0f);
    dl->AddRect(ImVec2(at.x - 2, y0), ImVec2(at.x + w + 2, y0 + row_h * st.new_row),
                concept_color(Concept::kQuery, st.alpha), 0, 0, 2.0f);
  }
  if (st.sweep >= 0) {
    const float y = at.y + grown * std::clamp(st.sweep, 0.0f, 1.0f);
    const ImU32 c = concept_color(Concept::kBytes, st.alpha);
    dl->AddRectFilled(ImVec2(at.x, at.y), ImVec2(at.x + w, y), with_alpha(c, 0.18f));
    dl->AddLine(ImVec2(at.x - 6, y), ImVec2(at.x + w + 6, y), c, 3.0f);
  }
  if (st.window_from > 0 || st.window_to < 1) {
    const ImU32 c = concept_color(Concept::kWindow, st.alpha);
    dl->AddRect(ImVec2(at.x - 3, win_y0), ImVec2(at.x + w + 3, std::min(win_y1, at.y + grown)), c,
                0, 0, 2.5f);
  }
  return ImVec2(at.x + w, at.y + grown);
}

}  // namespace vis
