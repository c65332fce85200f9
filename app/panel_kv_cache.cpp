// The KV-cache panel (--panel kv-cache): how many bytes the cache of the chosen model takes, per
// token, per layer and in total against the sequence length, for every variant side by side,
// under a dtype and a tensor-parallel split, against the memory of a chosen GPU.
//
// [SECTION] Inputs: dtype, TP, B, S, GPU
// [SECTION] Cache: rows and curves rebuilt only when an input changes
// [SECTION] Numbers, plot, variants table, per-layer table
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <imgui.h>

#include "app/kv_table.h"
#include "app/panels.h"
#include "attention/error.h"
#include "attention/kv_cache.h"
#include "attention/roofline.h"
#include "visuals/plot.h"
#include "attention/units.h"
#include "visuals/widgets.h"

namespace app {
namespace {

constexpr const char* kThisMachine = "this machine";

// ---- [SECTION] Inputs ----------------------------------------------------------------------

void draw_inputs(App& app) {
  const float w = ImGui::GetFontSize() * 5.5f;
  static const attn::DType kTypes[] = {attn::DType::kFp32, attn::DType::kFp16, attn::DType::kBf16,
                                       attn::DType::kFp8, attn::DType::kMxfp4};
  ImGui::SetNextItemWidth(w);
  if (ImGui::BeginCombo("dtype", std::string(attn::dtype_name(app.kv_dtype)).c_str())) {
    for (attn::DType t : kTypes)
      if (ImGui::Selectable(std::string(attn::dtype_name(t)).c_str(), t == app.kv_dtype))
        app.kv_dtype = t;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  vis::help_marker(
      "Storage type of the cache: fp32 4 B, fp16/bf16 2 B, fp8 (e4m3) 1 B per "
      "element; mxfp4 0.5 B plus one scale byte per 32 elements.");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w);
  static const int kTp[] = {1, 2, 4, 8, 16};
  char tp_label[16];
  std::snprintf(tp_label, sizeof tp_label, "%d", app.tp);
  if (ImGui::BeginCombo("TP", tp_label)) {
    for (int t : kTp) {
      std::snprintf(tp_label, sizeof tp_label, "%d", t);
      if (ImGui::Selectable(tp_label, t == app.tp)) app.tp = t;
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  vis::help_marker(
      "Tensor parallelism over N GPUs: each holds ceil(Hkv / N) kv heads of a GQA "
      "layer (heads are replicated once N > Hkv); MLA's one latent is replicated on "
      "every GPU, so TP does not shrink it.");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w);
  int b = static_cast<int>(std::min<std::int64_t>(app.batch, 1 << 20));
  if (ImGui::InputInt("B", &b, 1, 8))
    app.batch = std::clamp<std::int64_t>(b, 1, attn::Limits::kMaxBatch);
  ImGui::SameLine();
  vis::help_marker("Batch: sequences decoded together; the cache is B times one sequence's.");

  ImGui::SetNextItemWidth(w * 1.3f);
  std::int64_t s = app.seq;
  const std::int64_t step = 1024, fast = 32768;
  if (ImGui::InputScalar("S", ImGuiDataType_S64, &s, &step, &fast))
    app.seq = std::clamp<std::int64_t>(s, 1, attn::Limits::kMaxSeq);
  ImGui::SameLine();
  vis::help_marker("Cached sequence length (tokens) for the numbers and tables.");
  if (app.model.max_seq > 0 && app.seq > app.model.max_seq) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1.0f, 0.7f, 0.3f, 1.0f), "past the model's %s context",
                       attn::format_tokens(static_cast<double>(app.model.max_seq)).c_str());
  }
  for (std::int64_t preset : {4096LL, 32768LL, 131072LL}) {
    ImGui::SameLine();
    const std::string label = attn::format_tokens(static_cast<double>(preset));
    if (ImGui::SmallButton(label.c_str())) app.seq = preset;
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("max"))
    app.seq = std::clamp<std::int64_t>(app.model.max_seq, 1, attn::Limits::kMaxSeq);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w * 1.3f);
  if (ImGui::BeginCombo("GPU", app.gpu_name.c_str())) {
    for (const attn::GpuSpec& g : attn::gpu_specs())
      if (ImGui::Selectable(g.name.c_str(), g.name == app.gpu_name)) app.gpu_name = g.name;
    if (app.device.available && ImGui::Selectable(kThisMachine, app.gpu_name == kThisMachine))
      app.gpu_name = kThisMachine;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  vis::help_marker(
      "Whose memory is drawn as the line: datasheet capacities from "
      "assets/gpus.json, or this machine's GPU.");
}

// ---- [SECTION] Cache -----------------------------------------------------------------------

void rebuild(App& app, const KvCacheKey& key) {
  KvCacheViewState& kv = app.kv_view;
  kv.key = key;
  ++kv.recomputes;
  kv.error.clear();
  try {
    kv.report = attn::kv_cache(app.model, app.seq, app.batch, app.kv_dtype, app.tp);
  } catch (const std::exception& e) {
    kv.error = e.what();
    kv.report = attn::KvReport{};
  }
  kv.rows = kv_variant_rows(app);

  kv.gpu_memory_bytes = 0;
  kv.gpu_memory_source.clear();
  if (const attn::GpuSpec* g = attn::find_gpu(app.gpu_name); g && g->memory_gb > 0) {
    kv.gpu_memory_bytes = g->memory_bytes();
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s memory (%.0f GB)", g->name.c_str(), g->memory_gb);
    kv.gpu_memory_source = buf;
  } else if (app.device.available && app.device.total_memory > 0) {
    kv.gpu_memory_bytes = static_cast<double>(app.device.total_memory);
    kv.gpu_memory_source = app.device.name + " memory (this machine)";
  }

  vis::PlotSpec& p = kv.plot;
  p = vis::PlotSpec{};
  p.x.label = "S (tokens)";
  p.x.scale = vis::AxisScale::kLog;
  p.x.log_base = 2;
  p.x.format = [](double v) { return attn::format_tokens(v); };
  p.y.label = app.tp > 1 ? "KV cache per GPU (TP " + std::to_string(app.tp) + ")" : "KV cache";
  p.y.label +=
      ", B " + std::to_string(app.batch) + ", " + std::string(attn::dtype_name(app.kv_dtype));
  p.y.scale = vis::AxisScale::kLog;
  p.y.log_base = 2;  // ticks at powers of two: 1 MiB, 16 MiB, 256 MiB, 4 GiB ...
  p.y.format = [](double v) { return attn::format_bytes(v); };
  p.legend = vis::LegendPos::kAbove;  // six curves: a legend inside would cover some
  for (const KvVariantRow& r : kv.rows) {
    if (!r.error.empty()) continue;
    vis::Series s;
    s.name = r.label;
    s.x = r.curve_seq;
    s.y = r.curve_bytes;
    s.color = r.is_model ? IM_COL32(255, 255, 255, 255) : vis::variant_color(r.variant);
    s.thickness = r.is_model ? 3.5f : 1.8f;
    s.dashed = !r.is_model;
    p.series.push_back(std::move(s));
  }
  if (kv.gpu_memory_bytes > 0)
    p.hlines.push_back({kv.gpu_memory_bytes,
                        kv.gpu_memory_source + " = " + attn::format_bytes(kv.gpu_memory_bytes),
                        IM_COL32(255, 110, 100, 230), true});
  p.vlines.push_back({static_cast<double>(app.seq),
                      "S " + attn::format_tokens(static_cast<double>(app.seq)),
                      IM_COL32(200, 200, 200, 160), true});
}

// ---- [SECTION] Numbers, plot, tables -------------------------------------------------------

void draw_numbers(const App& app) {
  const KvCacheViewState& kv = app.kv_view;
  const attn::KvReport& r = kv.report;
  if (!ImGui::BeginTable("kv_numbers", 4, ImGuiTableFlags_SizingStretchProp)) return;
  // Two label/value pairs per row.
  auto pair = [](const char* label, const std::string& value, const char* help) {
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", label);
    ImGui::SameLine();
    vis::help_marker(help);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(value.c_str());
  };
  ImGui::TableNextRow();
  pair(
      "per token, one full layer",
      attn::format_bytes(static_cast<double>(r.bytes_per_token_full_layer)),
      "GQA family: 2 (K and V) x Hkv x D x bytes(dtype). MLA: (Dl + Dr) x bytes(dtype), one latent "
      "row shared by all heads.");
  pair("per token, all layers", attn::format_bytes(static_cast<double>(r.bytes_per_token)),
       "One token of one sequence in every layer (sliding layers included, as if S <= W).");
  ImGui::TableNextRow();
  pair("total at S", attn::format_bytes(static_cast<double>(r.total_bytes)),
       "Whole cache: every layer (a sliding one holds min(S, W) tokens) x S x B.");
  pair("per GPU", attn::format_bytes(static_cast<double>(r.per_device_bytes)),
       "What one GPU holds under tensor parallelism (equal to the total without TP).");
  ImGui::TableNextRow();
  std::string fits = "unknown";
  if (kv.gpu_memory_bytes > 0) {
    const double share = static_cast<double>(r.per_device_bytes) / kv.gpu_memory_bytes;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f%% of %s", share * 100.0, app.gpu_name.c_str());
    fits = buf;
  }
  pair("share of GPU memory", fits,
       "Per-GPU cache against the chosen GPU's capacity (weights and activations need room too).");
  std::string max_tokens = "n/a";
  if (kv.gpu_memory_bytes > 0 && r.per_device_bytes > 0 && app.seq > 0) {
    // Tokens of cache (all layers, this batch) that the whole memory could hold at this S.
    const double per_token =
        static_cast<double>(r.per_device_bytes) / static_cast<double>(app.seq * app.batch);
    max_tokens = attn::format_si(std::floor(kv.gpu_memory_bytes / per_token));
  }
  pair(
      "tokens in GPU memory", max_tokens,
      "How many cached tokens (over all sequences) the whole GPU memory would hold at this S, with "
      "nothing else on it. Sliding layers make this grow with S.");
  ImGui::EndTable();
}

void draw_variants_table(const App& app) {
  const KvCacheViewState& kv = app.kv_view;
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("kv_variants", 5, flags)) return;
  ImGui::TableSetupColumn("variant");
  ImGui::TableSetupColumn("per token");
  ImGui::TableSetupColumn("total at S");
  ImGui::TableSetupColumn("per GPU");
  ImGui::TableSetupColumn("vs MHA");
  ImGui::TableHeadersRow();
  double mha_total = 0;
  for (const KvVariantRow& r : kv.rows)
    if (!r.is_model && r.variant == static_cast<int>(attn::Variant::kMha) && r.error.empty())
      mha_total = static_cast<double>(r.total_bytes);
  for (const KvVariantRow& r : kv.rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushStyleColor(
        ImGuiCol_Text, r.is_model ? IM_COL32(255, 255, 255, 255) : vis::variant_color(r.variant));
    ImGui::TextUnformatted(r.label.c_str());
    ImGui::PopStyleColor();
    if (!r.error.empty()) {
      ImGui::TableNextColumn();
      ImGui::TextDisabled("does not fit");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.error.c_str());
      continue;
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(attn::format_bytes(static_cast<double>(r.bytes_per_token)).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(attn::format_bytes(static_cast<double>(r.total_bytes)).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(attn::format_bytes(static_cast<double>(r.per_device_bytes)).c_str());
    ImGui::TableNextColumn();
    if (mha_total > 0 && r.total_bytes > 0)
      ImGui::TextUnformatted(
          ("1/" + attn::format_ratio(mha_total / static_cast<double>(r.total_bytes))).c_str());
  }
  ImGui::EndTable();
}

void draw_layers_table(const App& app) {
  const attn::KvReport& r = app.kv_view.report;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  const float h = ImGui::GetTextLineHeightWithSpacing() *
                  std::min<float>(10.0f, static_cast<float>(r.layers.size()) + 1.5f);
  if (!ImGui::BeginTable("kv_layers", 4, flags, ImVec2(0, h))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("layer");
  ImGui::TableSetupColumn("kind");
  ImGui::TableSetupColumn("bytes at S");
  ImGui::TableSetupColumn("per GPU");
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(r.layers.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const attn::KvLayerBytes& l = r.layers[static_cast<size_t>(i)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", i);
      ImGui::TableNextColumn();
      if (l.kind == attn::LayerKind::kSliding)
        ImGui::Text("sliding (W %s)", attn::format_tokens(l.window).c_str());
      else
        ImGui::TextUnformatted("full");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(attn::format_bytes(static_cast<double>(l.bytes)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(attn::format_bytes(static_cast<double>(l.per_device_bytes)).c_str());
    }
  }
  ImGui::EndTable();
  // Totals by kind: where the bytes of a hybrid stack are.
  double full = 0, sliding = 0;
  int n_full = 0, n_sliding = 0;
  for (const attn::KvLayerBytes& l : r.layers) {
    const bool s = l.kind == attn::LayerKind::kSliding;
    (s ? sliding : full) += static_cast<double>(l.bytes);
    ++(s ? n_sliding : n_full);
  }
  ImGui::Text("%d full layers: %s", n_full, attn::format_bytes(full).c_str());
  if (n_sliding > 0) {
    ImGui::SameLine(0, ImGui::GetFontSize() * 2);
    ImGui::Text("%d sliding layers: %s", n_sliding, attn::format_bytes(sliding).c_str());
  }
}

}  // namespace

void draw_kv_cache_panel(App& app) {
  if (!ImGui::Begin(panel_info(PanelId::kKvCache).title, &app.shown(PanelId::kKvCache))) {
    ImGui::End();
    return;
  }
  draw_inputs(app);
  const KvCacheKey key{app.model_revision, app.kv_dtype, app.tp, app.batch, app.seq,
                       app.gpu_name,       app.ui_scale};
  if (!(key == app.kv_view.key)) rebuild(app, key);
  const KvCacheViewState& kv = app.kv_view;
  if (!kv.error.empty()) {
    vis::error_text(kv.error);
    ImGui::End();
    return;
  }
  draw_numbers(app);
  // The plot takes what is left after the tables' share (at least 220 px).
  const float avail = ImGui::GetContentRegionAvail().y;
  const float table_h = ImGui::GetTextLineHeightWithSpacing() * 10.5f;
  const float plot_h = std::max(ImGui::GetFontSize() * 17.0f,
                                avail - table_h - ImGui::GetFrameHeightWithSpacing() * 3);
  ImGui::TextUnformatted("KV cache against sequence length");
  ImGui::SameLine();
  vis::help_marker(
      "Per-GPU cache against S on log axes; the chosen model in white, the same model "
      "as every variant dashed. Sliding layers flatten at S = W. The red line is the GPU's "
      "memory: where a curve crosses it the cache alone no longer fits.");
  vis::draw_plot("##kv_plot", kv.plot, ImVec2(-1, plot_h));
  if (ImGui::CollapsingHeader("All variants of this model", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::TextDisabled("the base model as each variant, at S, B, dtype and TP above");
    ImGui::SameLine();
    vis::help_marker(
        "Each row is the same model converted by 'what if' (same layers and query heads): "
        "per token = all layers, one token; total at S = the whole cache; per GPU = one "
        "device's share under TP; vs MHA = this cache as a fraction of the MHA one. "
        "Hover 'does not fit' for why a variant cannot be applied.");
    draw_variants_table(app);
  }
  if (ImGui::CollapsingHeader("Per layer")) {
    ImGui::TextDisabled("bytes of each layer at S (a sliding layer holds min(S, W) tokens)");
    ImGui::SameLine();
    vis::help_marker(
        "Full layers grow with S; sliding layers stop at W. Hybrids (Gemma, gpt-oss) "
        "mix both; per GPU is the share under TP.");
    draw_layers_table(app);
  }
  ImGui::End();
}

}  // namespace app
