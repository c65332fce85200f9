#include "visuals/diagram.h"

#include <algorithm>
#include <cmath>

namespace vis {

// ---- Pure geometry --------------------------------------------------------------------------

ImVec2 rect_exit_point(const Rect& r, ImVec2 toward) {
  const ImVec2 c = r.center();
  const float dx = toward.x - c.x, dy = toward.y - c.y;
  if (std::fabs(dx) < 1e-6f && std::fabs(dy) < 1e-6f) return c;
  const float hw = r.w * 0.5f, hh = r.h * 0.5f;
  // Scale the direction so that it touches the nearer of the vertical or horizontal sides.
  const float tx = std::fabs(dx) > 1e-6f ? hw / std::fabs(dx) : 1e30f;
  const float ty = std::fabs(dy) > 1e-6f ? hh / std::fabs(dy) : 1e30f;
  const float t = std::min(tx, ty);
  return ImVec2(c.x + dx * t, c.y + dy * t);
}

void arrow_head(ImVec2 from, ImVec2 tip, float size, ImVec2* left, ImVec2* right) {
  float dx = tip.x - from.x, dy = tip.y - from.y;
  const float len = std::sqrt(dx * dx + dy * dy);
  if (len < 1e-6f) {
    dx = 1;
    dy = 0;
  } else {
    dx /= len;
    dy /= len;
  }
  const ImVec2 back(tip.x - dx * size, tip.y - dy * size);
  const float half = size * 0.5f;
  *left = ImVec2(back.x - dy * half, back.y + dx * half);
  *right = ImVec2(back.x + dy * half, back.y - dx * half);
}

float fit_scale(ImVec2 content, ImVec2 avail, float max_scale) {
  if (!(content.x > 0) || !(content.y > 0)) return max_scale;
  float s = max_scale;
  if (avail.x > 0) s = std::min(s, avail.x / content.x);
  if (avail.y > 0) s = std::min(s, avail.y / content.y);
  return std::max(s, 0.0f);
}

// ---- Drawing --------------------------------------------------------------------------------

void Canvas::begin(const char* id, ImVec2 design, float max_width) {
  const float font_rel = ImGui::GetFontSize() / 15.0f;  // design sizes assume a 15 px font
  ImVec2 avail = ImGui::GetContentRegionAvail();
  if (max_width > 0) avail.x = std::min(avail.x, max_width);
  float s = fit_scale(design, ImVec2(avail.x, 0), 1.5f * font_rel);
  s = std::max(s, 0.5f * font_rel);
  scale_ = s;
  origin_ = ImGui::GetCursorScreenPos();
  dl_ = ImGui::GetWindowDrawList();
  ImGui::InvisibleButton(id, ImVec2(std::max(1.0f, design.x * s), std::max(1.0f, design.y * s)));
  hovered_ = ImGui::IsItemHovered();
}

ImVec2 Canvas::to_screen(ImVec2 local) const {
  return ImVec2(origin_.x + local.x * scale_, origin_.y + local.y * scale_);
}

void Canvas::text(ImVec2 local, const std::string& s, ImU32 color) const {
  const float fs = ImGui::GetFontSize();  // text at the atlas' own size: never resampled
  dl_->AddText(ImGui::GetFont(), fs, to_screen(local),
               color ? color : ImGui::GetColorU32(ImGuiCol_Text), s.c_str());
}

void Canvas::box(const Box& b) const {
  ImU32 accent = b.accent;
  ImU32 fill = IM_COL32(40, 44, 52, 255);
  if (!accent) {
    switch (b.style) {
      case BoxStyle::kTensor:
        accent = IM_COL32(120, 170, 230, 255);
        break;
      case BoxStyle::kWeight:
        accent = IM_COL32(170, 170, 170, 255);
        break;
      case BoxStyle::kCache:
        accent = IM_COL32(240, 180, 60, 255);
        break;
      case BoxStyle::kOp:
        accent = IM_COL32(0, 200, 140, 255);
        break;
    }
  }
  if (b.style == BoxStyle::kCache) fill = IM_COL32(60, 50, 30, 255);
  if (b.style == BoxStyle::kOp) fill = IM_COL32(25, 55, 45, 255);
  const ImVec2 p0 = to_screen(ImVec2(b.rect.x, b.rect.y));
  const ImVec2 p1 = to_screen(ImVec2(b.rect.x + b.rect.w, b.rect.y + b.rect.h));
  const float rounding = b.style == BoxStyle::kOp ? 10.0f * scale_ : 3.0f * scale_;
  dl_->AddRectFilled(p0, p1, fill, rounding);
  dl_->AddRect(p0, p1, accent, rounding, 0, b.highlight ? 3.0f : 1.5f);
  // Text lines, clipped to the box so that a long shape never spills into a neighbour.
  dl_->PushClipRect(p0, p1, true);
  const float fs = ImGui::GetFontSize();  // text at the atlas' own size: never resampled
  const float pad = 5.0f * scale_;
  float y = p0.y + pad;
  dl_->AddText(ImGui::GetFont(), fs, ImVec2(p0.x + pad, y), accent, b.title.c_str());
  y += fs + 1;
  if (!b.shape.empty()) {
    dl_->AddText(ImGui::GetFont(), fs, ImVec2(p0.x + pad, y), ImGui::GetColorU32(ImGuiCol_Text),
                 b.shape.c_str());
    y += fs + 1;
  }
  if (!b.note.empty())
    dl_->AddText(ImGui::GetFont(), fs, ImVec2(p0.x + pad, y),
                 ImGui::GetColorU32(ImGuiCol_TextDisabled), b.note.c_str());
  dl_->PopClipRect();
}

void Canvas::arrow_points(ImVec2 from, ImVec2 to, const std::string& label, ImU32 color) const {
  const ImU32 c = color ? color : IM_COL32(200, 200, 200, 220);
  const ImVec2 a = to_screen(from), b = to_screen(to);
  ImVec2 l, r;
  arrow_head(a, b, 9.0f * scale_, &l, &r);
  dl_->AddLine(a, ImVec2((l.x + r.x) * 0.5f, (l.y + r.y) * 0.5f), c, 1.6f * scale_);
  dl_->AddTriangleFilled(b, l, r, c);
  if (!label.empty()) {
    const float fs = ImGui::GetFontSize();  // text at the atlas' own size: never resampled
    const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(fs, 1e9f, 0.0f, label.c_str());
    const ImVec2 m((a.x + b.x - ts.x) * 0.5f + 4 * scale_, (a.y + b.y - ts.y) * 0.5f);
    dl_->AddRectFilled(ImVec2(m.x - 2, m.y), ImVec2(m.x + ts.x + 2, m.y + ts.y),
                       IM_COL32(20, 20, 24, 200));
    dl_->AddText(ImGui::GetFont(), fs, m, IM_COL32(220, 220, 220, 255), label.c_str());
  }
}

void Canvas::arrow(const Rect& a, const Rect& b, const std::string& label, ImU32 color) const {
  const ImVec2 from = rect_exit_point(a, b.center());
  const ImVec2 to = rect_exit_point(b, a.center());
  arrow_points(from, to, label, color);
}

}  // namespace vis
