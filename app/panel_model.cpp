// The model and variant picker (--panel model).
//
// [SECTION] Model: preset list, config.json import
// [SECTION] Variant: what-if toggles (MHA / MQA / GQA with G / MLA with Dl, Dr / SWA with W,
//           hybrid local:global patterns) and the layer strip of the model shown
// [SECTION] Dimensions: every field of the base model, edited through a draft that becomes the
//           base only when it validates (the message is shown under the field otherwise)
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/panels.h"
#include "attention/error.h"
#include "attention/presets.h"
#include "attention/units.h"
#include "visuals/widgets.h"

namespace app {
namespace {

std::string title_of(const attn::ModelConfig& m) {
  return m.display_name.empty() ? m.name : m.display_name;
}

std::vector<bool> sliding_flags(const attn::ModelConfig& m) {
  std::vector<bool> s;
  s.reserve(m.layers.size());
  for (attn::LayerKind k : m.layers) s.push_back(k == attn::LayerKind::kSliding);
  return s;
}

// ---- [SECTION] Model -----------------------------------------------------------------------

void draw_model_source(App& app) {
  const std::string current =
      app.preset_name.empty() ? title_of(app.base) + " (imported)" : title_of(app.base);
  ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 5.5f);
  if (ImGui::BeginCombo("preset", current.c_str())) {
    for (const attn::ModelConfig& p : attn::presets()) {
      const bool selected = p.name == app.preset_name;
      const std::string label = title_of(p) + "##" + p.name;
      if (ImGui::Selectable(label.c_str(), selected)) load_preset(app, p.name);
      if (selected) ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  vis::help_marker(
      "Published hyperparameters of real models (assets/presets, read through the "
      "same Hugging Face config.json import as your own files).");
  if (!app.base.source.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("source: %s", app.base.source.c_str());
    ImGui::PopStyleColor();
  }

  ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 5.5f);
  const bool enter = ImGui::InputTextWithHint(
      "##import", "path/to/config.json", app.model_view.import_path,
      sizeof app.model_view.import_path, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if (ImGui::Button("Import") || enter) {
    app.model_view.import_error.clear();
    if (import_config(app, app.model_view.import_path, &app.model_view.import_error))
      post_message(app, std::string("imported ") + app.model_view.import_path);
  }
  if (!app.model_view.import_error.empty()) vis::error_text(app.model_view.import_error);
}

// ---- [SECTION] Variant ---------------------------------------------------------------------

std::vector<int> divisors(int n) {
  std::vector<int> d;
  for (int i = 1; i <= n && i <= 4096; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

void draw_variant(App& app) {
  ImGui::TextUnformatted("Attention variant");
  ImGui::SameLine();
  vis::help_marker(
      "'as published' shows the model as it is. The others are 'what if' versions of "
      "the same model: same layers and query heads, another attention (attn::apply_what_if). "
      "Every other panel shows the model chosen here.");
  int choice = app.what_if ? 1 + static_cast<int>(app.what_if_params.variant) : 0;
  const int before = choice;
  ImGui::RadioButton("as published", &choice, 0);
  ImGui::SameLine();
  ImGui::TextDisabled("or what if:");
  static const char* kNames[] = {"MHA", "MQA", "GQA", "SWA", "MLA"};
  for (int v = 0; v < 5; ++v) {
    if (v > 0) ImGui::SameLine();
    ImGui::RadioButton(kNames[v], &choice, v + 1);
  }
  if (choice != before) {
    app.what_if = choice > 0;
    if (choice > 0) app.what_if_params.variant = static_cast<attn::Variant>(choice - 1);
    refresh_model(app);
  }
  if (!app.what_if) return;

  attn::WhatIf& w = app.what_if_params;
  bool changed = false;
  const float field_w = ImGui::GetFontSize() * 7;
  const attn::ModelConfig& b = app.base;
  switch (w.variant) {
    case attn::Variant::kMha:
      ImGui::TextWrapped("Every query head has its own K and V: Hkv = Hq = %d.", b.q_heads);
      break;
    case attn::Variant::kMqa:
      ImGui::TextWrapped("All %d query heads share one K and one V head: Hkv = 1.", b.q_heads);
      break;
    case attn::Variant::kGqa: {
      // The group size G = Hq / Hkv, chosen among the divisors of Hq.
      const std::vector<int> ds = divisors(std::max(1, b.q_heads));
      const int hkv =
          w.kv_heads > 0 ? w.kv_heads : (b.variant == attn::Variant::kMla ? b.q_heads : b.kv_heads);
      int idx = 0;
      for (size_t i = 0; i < ds.size(); ++i)
        if (ds[i] == std::max(1, b.q_heads / std::max(1, hkv))) idx = static_cast<int>(i);
      char label[64];
      std::snprintf(label, sizeof label, "G %d (Hkv %d)", ds[static_cast<size_t>(idx)],
                    std::max(1, b.q_heads / ds[static_cast<size_t>(idx)]));
      ImGui::SetNextItemWidth(field_w * 1.6f);
      if (ImGui::SliderInt("group size", &idx, 0, static_cast<int>(ds.size()) - 1, label)) {
        w.kv_heads = std::max(1, b.q_heads / ds[static_cast<size_t>(idx)]);
        changed = true;
      }
      ImGui::SameLine();
      vis::help_marker(
          "G query heads share one K/V head (G = Hq / Hkv). G = 1 is MHA, G = Hq is "
          "MQA; the cache shrinks by G against MHA.");
      break;
    }
    case attn::Variant::kMla: {
      ImGui::SetNextItemWidth(field_w);
      changed |= ImGui::InputInt("Dl latent (kv_lora_rank)", &w.latent_dim, 64, 128);
      ImGui::SameLine();
      vis::help_marker(
          "The compressed KV latent each token stores (DeepSeek: 512). Keys and values "
          "of every head are rebuilt from it by W_UK and W_UV.");
      ImGui::SetNextItemWidth(field_w);
      changed |= ImGui::InputInt("Dr RoPE dims", &w.rope_dim, 16, 64);
      ImGui::SameLine();
      vis::help_marker(
          "Decoupled RoPE dims stored beside the latent (DeepSeek: 64). RoPE depends "
          "on the position, so it cannot be folded into W_UK; these carry it.");
      w.latent_dim = std::clamp(w.latent_dim, 1, attn::Limits::kMaxHeadDim);
      w.rope_dim = std::clamp(w.rope_dim, 0, attn::Limits::kMaxHeadDim);
      break;
    }
    case attn::Variant::kSwa: {
      ImGui::SetNextItemWidth(field_w);
      changed |= ImGui::InputInt("W window", &w.window, 512, 4096);
      w.window = std::clamp(
          w.window, 1, static_cast<int>(std::min<std::int64_t>(attn::Limits::kMaxSeq, 1 << 30)));
      ImGui::SameLine();
      vis::help_marker(
          "A sliding layer keeps only the W most recent tokens: its cache stops "
          "growing at S = W.");
      int lpg = app.what_if_local_per_global;
      ImGui::SetNextItemWidth(field_w);
      if (ImGui::InputInt("sliding per full layer", &lpg, 1, 1)) {
        app.what_if_local_per_global = std::clamp(lpg, 0, attn::Limits::kMaxLayers);
        changed = true;
      }
      ImGui::SameLine();
      vis::help_marker(
          "0: every layer slides (Mistral). N: N sliding layers then one full, "
          "repeated (Gemma 2 is 1, Gemma 3 is 5).");
      break;
    }
  }
  if (changed) refresh_model(app);
}

void draw_model_summary(App& app) {
  const attn::ModelConfig& m = app.model;
  ImGui::Text("%s", title_of(m).c_str());
  ImGui::TextDisabled("%s, L %d, Hq %d, Hkv %d, D %d",
                      std::string(attn::variant_name(m.variant)).c_str(), m.num_layers, m.q_heads,
                      m.variant == attn::Variant::kMla ? 1 : m.kv_heads,
                      m.variant == attn::Variant::kMla ? m.latent_dim + m.rope_dim : m.head_dim);
  if (m.variant == attn::Variant::kMla)
    ImGui::TextDisabled("latent Dl %d + RoPE Dr %d per token, per layer", m.latent_dim, m.rope_dim);
  ImGui::TextDisabled("layers: %s", m.pattern_description().c_str());
  ImGui::SameLine();
  vis::help_marker("One cell per layer: blue full attention, amber sliding window.");
  vis::layer_strip("##layers_model", sliding_flags(m), m.window, ImGui::GetFontSize() * 0.9f);
  if (!app.model_error.empty()) vis::error_text(app.model_error);
}

// ---- [SECTION] Dimensions ------------------------------------------------------------------

// Applies the draft when it validates; else keeps it (the field shows what was typed) with the
// message under that field.
void commit_draft(App& app, const char* field) {
  ModelViewState& mv = app.model_view;
  std::string error;
  if (apply_model_edit(app, mv.draft, &error)) {
    mv.draft = app.base;
    mv.draft_of_revision = app.model_revision;
    mv.field_error.clear();
    mv.field_with_error.clear();
  } else {
    mv.field_error = error;
    mv.field_with_error = field;
  }
}

void field_error_under(const App& app, const char* field) {
  if (app.model_view.field_with_error == field) vis::error_text(app.model_view.field_error);
}

// An int field of the draft; values are clamped to [lo, hi] before they reach the model.
void int_field(App& app, const char* label, int* value, int lo, int hi, const char* help) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  int v = *value;
  if (ImGui::InputInt(label, &v, 1, 8)) {
    *value = std::clamp(v, lo, hi);
    if (value == &app.model_view.draft.num_layers) {
      // Resize the layer pattern: new layers take the kind of the last one.
      auto& layers = app.model_view.draft.layers;
      const attn::LayerKind fill = layers.empty() ? attn::LayerKind::kFull : layers.back();
      layers.resize(static_cast<size_t>(std::max(0, *value)), fill);
    }
    commit_draft(app, label);
  }
  ImGui::SameLine();
  vis::help_marker(help);
  field_error_under(app, label);
}

void draw_dimensions(App& app) {
  ModelViewState& mv = app.model_view;
  if (mv.draft_of_revision != app.model_revision) {
    // The base changed elsewhere (preset, import, what-if): edit that one now.
    mv.draft = app.base;
    mv.draft_of_revision = app.model_revision;
    mv.field_error.clear();
    mv.field_with_error.clear();
  }
  attn::ModelConfig& d = mv.draft;
  ImGui::TextWrapped("Edits change the base model (what-if is applied on top).");
  const int kH = attn::Limits::kMaxHeads, kD = attn::Limits::kMaxHeadDim;
  int_field(app, "L layers", &d.num_layers, 1, attn::Limits::kMaxLayers,
            "Number of transformer layers; each has its own KV cache.");
  int_field(app, "hidden size", &d.hidden_size, 0, kH * 64,
            "Model width (the residual stream). The projections map it to the heads.");
  int_field(app, "Hq query heads", &d.q_heads, 1, kH, "Query heads per layer.");
  if (d.variant != attn::Variant::kMla)
    int_field(app, "Hkv kv heads", &d.kv_heads, 1, kH,
              "Key/value heads per layer; must divide Hq. Hkv = Hq is MHA, 1 is MQA.");
  int_field(app, "D head dim", &d.head_dim, 1, kD,
            "Width of each query/key head (MLA: qk_nope + qk_rope).");
  int_field(app, "Dv value dim", &d.value_dim, 0, kD, "Width of each value head (0: same as D).");
  if (d.variant == attn::Variant::kMla) {
    int_field(app, "Dl latent", &d.latent_dim, 1, kD,
              "kv_lora_rank: the latent each token caches per layer.");
    int_field(app, "Dr RoPE dim", &d.rope_dim, 0, kD,
              "qk_rope_head_dim: decoupled RoPE dims, cached beside the latent.");
    int_field(app, "qk nope dim", &d.qk_nope_dim, 0, kD,
              "qk_nope_head_dim: per-head query/key dims without RoPE (absorbed into the latent).");
    int_field(app, "q lora rank", &d.q_lora_rank, 0, kH * 64, "Query compression rank (0: none).");
  }
  if (d.variant != attn::Variant::kMla)
    int_field(app, "W window", &d.window, 0, 1 << 30,
              "Window of the sliding layers (0: none). A sliding layer caches min(S, W) tokens.");
  {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    std::int64_t v = d.max_seq;
    const std::int64_t step = 1024, fast = 32768;
    if (ImGui::InputScalar("max context", ImGuiDataType_S64, &v, &step, &fast)) {
      d.max_seq = std::clamp<std::int64_t>(v, 1, attn::Limits::kMaxSeq);
      commit_draft(app, "max context");
    }
    ImGui::SameLine();
    vis::help_marker("max_position_embeddings: the longest sequence the model was trained for.");
    field_error_under(app, "max context");
  }
  if (d.variant != attn::Variant::kMla) {
    ImGui::TextUnformatted("layer pattern (click a cell to toggle)");
    const int clicked =
        vis::layer_strip("##layers_draft", sliding_flags(d), d.window, ImGui::GetFontSize() * 0.9f);
    if (clicked >= 0 && clicked < static_cast<int>(d.layers.size())) {
      auto& k = d.layers[static_cast<size_t>(clicked)];
      k = k == attn::LayerKind::kSliding ? attn::LayerKind::kFull : attn::LayerKind::kSliding;
      if (d.window < 1) d.window = 4096;
      commit_draft(app, "pattern");
    }
    if (ImGui::SmallButton("all full")) {
      std::fill(d.layers.begin(), d.layers.end(), attn::LayerKind::kFull);
      commit_draft(app, "pattern");
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
    ImGui::InputInt("##lpg", &mv.local_per_global, 1, 1);
    mv.local_per_global = std::clamp(mv.local_per_global, 1, attn::Limits::kMaxLayers);
    ImGui::SameLine();
    if (ImGui::SmallButton("sliding : 1 full")) {
      for (int i = 0; i < d.num_layers; ++i)
        d.layers[static_cast<size_t>(i)] = (i + 1) % (mv.local_per_global + 1) == 0
                                               ? attn::LayerKind::kFull
                                               : attn::LayerKind::kSliding;
      if (d.window < 1) d.window = 4096;
      commit_draft(app, "pattern");
    }
    ImGui::SameLine();
    vis::help_marker(
        "Hybrid models mix sliding-window and full layers (Gemma 2: 1:1, Gemma 3: 5:1).");
    field_error_under(app, "pattern");
  }
  if (!mv.field_error.empty()) {
    if (ImGui::SmallButton("revert to the last valid model")) {
      mv.draft = app.base;
      mv.field_error.clear();
      mv.field_with_error.clear();
    }
  }
}

}  // namespace

void draw_model_panel(App& app) {
  if (!ImGui::Begin(panel_info(PanelId::kModel).title, &app.shown(PanelId::kModel))) {
    ImGui::End();
    return;
  }
  draw_model_source(app);
  ImGui::Separator();
  draw_variant(app);
  ImGui::Separator();
  draw_model_summary(app);
  ImGui::Separator();
  if (ImGui::CollapsingHeader("Dimensions (every field editable)", ImGuiTreeNodeFlags_DefaultOpen))
    draw_dimensions(app);
  ImGui::End();
}

}  // namespace app
