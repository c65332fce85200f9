// [SECTION] Columns   the models compared (preset or the user's, and a variant)
// [SECTION] Figures   per column, from attention/ and assets/results/
// [SECTION] Drawing   editor row, tapes on one scale, figures under each
#include "app/compare_view.h"

#include <algorithm>
#include <exception>
#include <vector>

#include <imgui.h>

#include "app/cli/recorded.h"
#include "app/learn/lesson_util.h"
#include "app/style.h"
#include "attention/cost.h"
#include "attention/kv_cache.h"
#include "attention/presets.h"
#include "attention/roofline.h"
#include "attention/units.h"
#include "visuals/lesson.h"
#include "visuals/widgets.h"

namespace app {
namespace {

// ---- [SECTION] Figures ---------------------------------------------------------------------

struct ColumnFigures {
  std::string title;
  attn::LayerShape layer;
  attn::KvReport kv;
  attn::DecodeCost cost;
  attn::RooflineProjection roof;
  std::optional<RecordedResult> measured;
  std::vector<vis::TapeColumn> tape;  // one full layer's cache columns
  float elements = 0;                 // per token of that layer
  bool windowed = false;              // the context is longer than the layer's window
};

ColumnFigures figures_of(const App& app, const attn::ModelConfig& m, const CompareColumn& c) {
  ColumnFigures f;
  f.title = learn::name_of(m);  // a what-if's display name says "as <variant>" itself
  (void)c;
  f.layer = learn::full_layer(m);
  f.kv = attn::kv_cache(m, app.seq, app.batch, app.kv_dtype, 1);
  f.cost = attn::decode_cost_model(m, app.batch, app.seq, app.kv_dtype);
  if (const attn::GpuSpec* g = attn::find_gpu(app.gpu_name))
    f.roof = attn::project(f.cost, *g, app.kv_dtype);
  f.measured = find_recorded_gpu(f.layer, app.batch, app.seq, app.kv_dtype);
  f.tape = learn::tape_columns(f.layer);
  for (const vis::TapeColumn& t : f.tape) f.elements += t.elements;
  f.windowed = f.layer.window > 0 && app.seq > f.layer.window;
  return f;
}

// ---- [SECTION] Drawing ---------------------------------------------------------------------

const char* kVariants[] = {"as is", "mha", "mqa", "gqa", "swa", "mla"};

void column_editor(App& app, size_t i) {
  CompareColumn& c = app.compare.columns[i];
  ImGui::PushID(static_cast<int>(i));
  const std::string model = c.preset.empty() ? "the current model" : c.preset;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  if (ImGui::BeginCombo("##model", model.c_str())) {
    if (ImGui::Selectable("the current model", c.preset.empty())) c.preset.clear();
    for (const attn::ModelConfig& p : attn::presets())
      if (ImGui::Selectable(p.name.c_str(), c.preset == p.name)) c.preset = p.name;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
  const char* shown = c.variant.empty() ? kVariants[0] : c.variant.c_str();
  if (ImGui::BeginCombo("##variant", shown)) {
    for (const char* v : kVariants) {
      const std::string name = std::string(v) == "as is" ? "" : v;
      if (ImGui::Selectable(v, c.variant == name)) c.variant = name;
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(app.compare.columns.size() <= 2);
  if (ImGui::SmallButton("x"))
    app.compare.columns.erase(app.compare.columns.begin() + static_cast<long>(i));
  ImGui::EndDisabled();
  ImGui::PopID();
}

void shared_controls(App& app) {
  int k = 0;
  while (k < 26 && (std::int64_t(1) << (k + 1)) <= app.seq) ++k;
  const std::string s = "S = " + attn::format_tokens(static_cast<double>(app.seq));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  if (ImGui::SliderInt("##cmpseq", &k, 10, 20, s.c_str())) app.seq = std::int64_t(1) << k;
  ImGui::SameLine();
  int b = static_cast<int>(app.batch);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  if (ImGui::SliderInt("B", &b, 1, 256)) app.batch = b;
  ImGui::SameLine();
  for (attn::DType d : {attn::DType::kBf16, attn::DType::kFp8, attn::DType::kMxfp4}) {
    if (ImGui::RadioButton(std::string(attn::dtype_name(d)).c_str(), app.kv_dtype == d))
      app.kv_dtype = d;
    ImGui::SameLine();
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  if (ImGui::BeginCombo("GPU", app.gpu_name.c_str())) {
    for (const attn::GpuSpec& g : attn::gpu_specs())
      if (ImGui::Selectable(g.name.c_str(), g.name == app.gpu_name)) app.gpu_name = g.name;
    ImGui::EndCombo();
  }
  ImGui::SameLine(0, ImGui::GetFontSize() * 2);
  ImGui::BeginDisabled(app.compare.columns.size() >= 4);
  if (ImGui::Button("+ column")) app.compare.columns.push_back({"", ""});
  ImGui::EndDisabled();
}

// What the pictures below are made of, each with its colour, in the order the eye meets them:
// the tape's columns, the band over them, and the bytes bar under it.
void picture_legend(const std::vector<vis::Concept>& shown, bool windowed) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight();
  const float sw = ImGui::GetFontSize() * 0.8f;
  const auto swatch = [&](ImU32 col, const char* text, float h) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float y = p.y + (line - h) / 2;
    dl->AddRectFilled(ImVec2(p.x, y), ImVec2(p.x + sw, y + h), col);
    ImGui::Dummy(ImVec2(sw, line));
    ImGui::SameLine(0, 4);
    ImGui::TextUnformatted(text);
    ImGui::SameLine(0, ImGui::GetFontSize());
  };
  ImGui::TextDisabled(
      "Each tape is one layer's cache: a column per head's key or value (MLA: its latent and "
      "RoPE parts), as wide as the numbers it stores, one scale for all; rows are tokens.");
  for (vis::Concept c : shown) swatch(vis::concept_color(c), vis::concept_name(c), sw);
  if (std::find(shown.begin(), shown.end(), vis::Concept::kKey) != shown.end()) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    for (int h = 0; h < 4; ++h)  // a band in four kv heads' colours
      dl->AddRectFilled(ImVec2(p.x + static_cast<float>(h) * sw / 4, p.y + line / 2 - 2),
                        ImVec2(p.x + static_cast<float>(h + 1) * sw / 4, p.y + line / 2 + 2),
                        vis::kv_head_color(h, 4));
    ImGui::Dummy(ImVec2(sw, line));
    ImGui::SameLine(0, 4);
    ImGui::TextUnformatted("band: which query heads read that kv head");
    ImGui::SameLine(0, ImGui::GetFontSize());
  }
  if (windowed)
    swatch(vis::with_alpha(vis::concept_color(vis::Concept::kKey), 0.25f),
           "faint rows: older than the window, neither kept nor read", sw);
  swatch(vis::concept_color(vis::Concept::kBytes), "bar: bytes one step reads, all layers", 6);
  ImGui::NewLine();
}

void figure_line(const char* label, const std::string& value, ImU32 col = 0) {
  ImGui::TextDisabled("%s", label);
  ImGui::SameLine(ImGui::GetFontSize() * 9);
  if (col)
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(col), "%s", value.c_str());
  else
    ImGui::TextUnformatted(value.c_str());
}

}  // namespace

std::optional<attn::ModelConfig> compare_column_model(const App& app, const CompareColumn& c,
                                                      std::string* error) {
  try {
    attn::ModelConfig base = c.preset.empty() ? app.base : attn::find_preset(c.preset);
    if (c.variant.empty()) return base;
    attn::WhatIf w;  // MLA 512 + 64, SWA 4096: the usual what-if numbers
    w.variant = *attn::parse_variant(c.variant);
    // GQA of a model with a kv head per query head: 4 query heads a group.
    if (w.variant == attn::Variant::kGqa && base.kv_heads >= base.q_heads)
      w.kv_heads = std::max(1, base.q_heads / 4);
    return attn::apply_what_if(base, w);
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
}

void draw_compare_view(App& app) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float top = ImGui::GetFrameHeight();
  const float bottom = ImGui::GetFrameHeight() + 4.0f;
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x, vp->Pos.y + top));
  ImGui::SetNextWindowSize(ImVec2(vp->Size.x, vp->Size.y - top - bottom));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus |
                                 ImGuiWindowFlags_NoBackground;  // the clear colour shows
  if (!ImGui::Begin("Compare", nullptr, flags)) {
    ImGui::End();
    return;
  }
  ImGui::PushFont(fonts().title);
  ImGui::TextUnformatted("Compare");
  ImGui::PopFont();
  ImGui::SameLine();
  ImGui::TextDisabled("one decode step of the whole model, B %lld, S %s, %s cache",
                      static_cast<long long>(app.batch),
                      attn::format_tokens(static_cast<double>(app.seq)).c_str(),
                      std::string(attn::dtype_name(app.kv_dtype)).c_str());
  shared_controls(app);
  std::vector<std::optional<ColumnFigures>> figs;
  std::vector<std::string> errors;
  for (size_t i = 0; i < app.compare.columns.size(); ++i) {
    std::string err;
    const auto m = compare_column_model(app, app.compare.columns[i], &err);
    figs.emplace_back();
    errors.push_back(err);
    if (!m) continue;
    try {
      figs.back() = figures_of(app, *m, app.compare.columns[i]);
    } catch (const std::exception& e) {
      errors.back() = e.what();
    }
  }
  // The legend names only the colours the tapes use (MLA's latent and RoPE; the others' K, V).
  std::vector<vis::Concept> shown;
  bool windowed = false;
  for (const auto& f : figs)
    if (f) {
      for (const vis::TapeColumn& t : f->tape)
        if (std::find(shown.begin(), shown.end(), t.concept) == shown.end())
          shown.push_back(t.concept);
      windowed = windowed || f->windowed;
    }
  std::sort(shown.begin(), shown.end());
  picture_legend(shown, windowed);
  const size_t n = figs.size();
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float col_w = avail_w / static_cast<float>(std::max<size_t>(n, 1));
  // One scale for every tape: the widest fits its column.
  float widest = 1;
  double most_bytes = 1;
  for (const auto& f : figs)
    if (f) {
      widest = std::max(widest, f->elements);
      most_bytes = std::max(most_bytes, f->cost.total_bytes());
    }
  const float ppe = std::min(0.5f, col_w * 0.8f / widest);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float tape_h = std::max(120.0f, ImGui::GetContentRegionAvail().y * 0.42f);
  for (size_t i = 0; i < n; ++i) {
    const float x = origin.x + col_w * static_cast<float>(i);
    ImGui::SetCursorScreenPos(ImVec2(x + 4, origin.y + 4));
    // Each column in its own child: what does not fit is clipped, never drawn over the next.
    ImGui::PushID(static_cast<int>(i));
    ImGui::BeginChild("##column", ImVec2(col_w - 8, 0), false,
                      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoBackground);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    column_editor(app, i);
    if (i >= app.compare.columns.size() || !figs[i]) {  // removed this frame, or no model
      if (i < errors.size() && !errors[i].empty()) vis::error_text(errors[i]);
      ImGui::EndChild();
      ImGui::PopID();
      if (i >= app.compare.columns.size()) break;
      continue;
    }
    const ColumnFigures& f = *figs[i];
    ImGui::PushFont(fonts().caption);
    ImGui::TextUnformatted(f.title.c_str());
    ImGui::PopFont();
    const ImVec2 tape_at(x + 10, ImGui::GetCursorScreenPos().y + 30);
    vis::TapeStyle st;
    st.px_per_element = ppe;
    st.height = tape_h;
    st.rows_drawn = 12;
    if (f.windowed)  // only the last W of S tokens are read
      st.window_from = 1.0f - static_cast<float>(f.layer.window) / static_cast<float>(app.seq);
    vis::draw_tape(dl, nullptr, tape_at, f.tape, st);
    ImGui::SetCursorScreenPos(ImVec2(x + 4, tape_at.y + tape_h + 10));
    // Bytes of one step, all layers, on one scale across the columns.
    const float bar_w = (col_w - 24) * static_cast<float>(f.cost.total_bytes() / most_bytes);
    const ImVec2 b0 = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(b0, ImVec2(b0.x + std::max(2.0f, bar_w), b0.y + 10),
                      vis::concept_color(vis::Concept::kBytes));
    ImGui::Dummy(ImVec2(col_w - 24, 14));
    figure_line("KV / token, all layers",
                attn::format_bytes(static_cast<double>(f.kv.bytes_per_token)));
    figure_line("cache at S, batch", attn::format_bytes(static_cast<double>(f.kv.total_bytes)));
    figure_line("bytes / step", attn::format_bytes(f.cost.total_bytes()),
                vis::concept_color(vis::Concept::kBytes));
    figure_line("FLOPs / step", attn::format_flops(f.cost.flops),
                vis::concept_color(vis::Concept::kCompute));
    figure_line("intensity", attn::format_si(f.cost.intensity()) + " FLOP/B");
    figure_line("roofline time", f.roof.time_s > 0 ? learn::seconds_text(f.roof.time_s) + " on " +
                                                         app.gpu_name + " (projected)"
                                                   : std::string("no GPU spec"));
    if (f.measured) {
      figure_line("measured, 1 layer", attn::format_duration_us(f.measured->result.median_us));
      ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + col_w - 24);
      ImGui::TextDisabled("%s", f.measured->provenance().c_str());
      ImGui::PopTextWrapPos();
    } else {
      figure_line("measured, 1 layer", "not recorded for this shape");
    }
    ImGui::EndChild();
    ImGui::PopID();
  }
  ImGui::End();
}

}  // namespace app
