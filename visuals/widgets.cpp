#include "visuals/widgets.h"

#include <algorithm>
#include <cmath>

namespace vis {

void help_marker(const char* text) {
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 35.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void labelled_value(const char* label, const std::string& value, const char* help) {
  ImGui::TextDisabled("%s", label);
  ImGui::SameLine();
  ImGui::TextUnformatted(value.c_str());
  if (help) {
    ImGui::SameLine();
    help_marker(help);
  }
}

void error_text(const std::string& message) {
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 110, 100, 255));
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(message.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

float kv_head_hue(int kv_head, int kv_heads) {
  if (kv_heads <= 1) return 0.58f;
  // Few heads: spread evenly; many heads: golden-ratio steps keep neighbours apart.
  double h = kv_heads <= 8 ? 0.58 + static_cast<double>(kv_head) / kv_heads
                           : 0.58 + kv_head * 0.6180339887498949;
  h -= std::floor(h);
  return static_cast<float>(h);
}

ImU32 kv_head_color(int kv_head, int kv_heads, float alpha) {
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(kv_head_hue(kv_head, kv_heads), 0.55f, 0.95f, r, g, b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, alpha));
}

ImU32 full_layer_color() { return IM_COL32(86, 150, 220, 255); }
ImU32 sliding_layer_color() { return IM_COL32(240, 190, 60, 255); }

int layer_strip(const char* id, const std::vector<bool>& sliding, int window, float row_height) {
  const int n = static_cast<int>(sliding.size());
  if (n == 0) return -1;
  const float avail = std::max(40.0f, ImGui::GetContentRegionAvail().x);
  const float gap = 1.0f;
  // Cells between 5 and 18 px wide; as many rows as needed.
  float cell = std::clamp(avail / static_cast<float>(n) - gap, 5.0f, 18.0f);
  const int per_row = std::max(1, static_cast<int>(avail / (cell + gap)));
  const int rows = (n + per_row - 1) / per_row;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 size(std::min(avail, static_cast<float>(per_row) * (cell + gap)),
                    static_cast<float>(rows) * (row_height + 2.0f));
  ImGui::InvisibleButton(id, size);
  const bool hovered = ImGui::IsItemHovered();
  const bool clicked = ImGui::IsItemClicked();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  int under = -1;
  for (int i = 0; i < n; ++i) {
    const int r = i / per_row, c = i % per_row;
    const ImVec2 a(p0.x + static_cast<float>(c) * (cell + gap),
                   p0.y + static_cast<float>(r) * (row_height + 2.0f));
    const ImVec2 b(a.x + cell, a.y + row_height);
    const ImU32 col = sliding[static_cast<size_t>(i)] ? sliding_layer_color() : full_layer_color();
    dl->AddRectFilled(a, b, col, 1.0f);
    if (hovered && mouse.x >= a.x && mouse.x < b.x + gap && mouse.y >= a.y &&
        mouse.y < b.y + 2.0f) {
      under = i;
      dl->AddRect(a, b, IM_COL32(255, 255, 255, 255), 1.0f, 0, 2.0f);
    }
  }
  if (under >= 0) {
    ImGui::BeginTooltip();
    if (sliding[static_cast<size_t>(under)])
      ImGui::Text("layer %d: sliding (W %d)", under, window);
    else
      ImGui::Text("layer %d: full", under);
    ImGui::EndTooltip();
  }
  return clicked ? under : -1;
}

ImU32 variant_color(int variant_index) {
  // mha, mqa, gqa, swa, mla (attn::Variant order).
  static const ImU32 kColors[] = {IM_COL32(230, 120, 90, 255), IM_COL32(180, 140, 230, 255),
                                  IM_COL32(86, 180, 233, 255), IM_COL32(240, 200, 70, 255),
                                  IM_COL32(0, 200, 140, 255)};
  if (variant_index < 0 || variant_index >= 5) return IM_COL32(200, 200, 200, 255);
  return kColors[variant_index];
}

}  // namespace vis
