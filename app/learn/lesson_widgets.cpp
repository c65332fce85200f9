#include "app/learn/lesson_widgets.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <imgui.h>

#include "attention/roofline.h"
#include "attention/units.h"

namespace app::learn {

void seq_slider(LessonControls& c, int log2_lo, int log2_hi) {
  int k = static_cast<int>(
      std::lround(std::log2(static_cast<double>(std::max<std::int64_t>(1, c.seq)))));
  k = std::clamp(k, log2_lo, log2_hi);
  const std::string shown = "S = " + attn::format_tokens(std::ldexp(1.0, k));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
  if (ImGui::SliderInt("##seq", &k, log2_lo, log2_hi, shown.c_str())) c.seq = std::int64_t(1) << k;
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
}

void gpu_combo(LessonControls& c) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  if (ImGui::BeginCombo("GPU", c.gpu.c_str())) {
    for (const attn::GpuSpec& g : attn::gpu_specs())
      if (ImGui::Selectable(g.name.c_str(), g.name == c.gpu)) c.gpu = g.name;
    ImGui::EndCombo();
  }
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
}

void dtype_radio(LessonControls& c) {
  const attn::DType options[] = {attn::DType::kBf16, attn::DType::kFp8, attn::DType::kMxfp4};
  for (attn::DType d : options) {
    if (ImGui::RadioButton(std::string(attn::dtype_name(d)).c_str(), c.dtype == d)) c.dtype = d;
    ImGui::SameLine();
  }
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
}

void kv_heads_slider(LessonControls& c, int hq) {
  std::vector<int> divisors;
  for (int d = 1; d <= hq; ++d)
    if (hq % d == 0) divisors.push_back(d);
  if (divisors.empty()) return;
  int i = 0;
  for (size_t k = 0; k < divisors.size(); ++k)
    if (divisors[k] <= c.kv_heads) i = static_cast<int>(k);
  const int g = hq / divisors[static_cast<size_t>(i)];
  const std::string shown = "Hkv = " + std::to_string(divisors[static_cast<size_t>(i)]) +
                            "  (G = " + std::to_string(g) + ")";
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  if (ImGui::SliderInt("##hkv", &i, 0, static_cast<int>(divisors.size()) - 1, shown.c_str()))
    c.kv_heads = divisors[static_cast<size_t>(i)];
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
}

}  // namespace app::learn
