// The guided tour (--panel tour): a walk through the attention variants. Each step sets the
// panels up (preset, what-if variant, dtype, S, TP, the panel to look at), explains what to
// look at, shows live numbers computed by attention/ (kv_cache, decode_cost, roofline), and
// offers one control the learner changes to watch the numbers move.
//
// [SECTION] Helpers (setup, numbers)
// [SECTION] The steps
// [SECTION] The panel
#include <algorithm>
#include <cmath>
#include <string>

#include <imgui.h>

#include "app/bench_cases.h"
#include "app/job_runner.h"
#include "app/panels.h"
#include "attention/cost.h"
#include "attention/kv_cache.h"
#include "attention/presets.h"
#include "attention/roofline.h"
#include "attention/units.h"
#include "visuals/widgets.h"

namespace app {
namespace {

// ---- [SECTION] Helpers ---------------------------------------------------------------------

const char* window_title(const char* panel) {
  const int i = panel_index(panel);
  return kPanelTable[i >= 0 ? static_cast<size_t>(i) : index_of(PanelId::kTour)].title;
}

void show_panel(App& app, const char* panel) {
  const std::string p = panel;
  const int i = panel_index(p);
  if (i >= 0) app.show[static_cast<size_t>(i)] = true;
  ImGui::SetWindowFocus(window_title(panel));
}

// Loads a preset with the what-if off (or on for `variant`), at the given dtype, S and TP.
void setup(App& app, const char* preset, const char* variant, attn::DType dt, std::int64_t seq,
           int tp) {
  load_preset(app, preset);
  app.kv_dtype = dt;
  app.seq = seq;
  app.tp = tp;
  set_what_if_variant(app, variant);
}

// A model's KV report, or nullopt-like empty report when it cannot be computed.
bool kv_of(const attn::ModelConfig& m, std::int64_t seq, attn::DType dt, int tp,
           attn::KvReport* out) {
  try {
    *out = attn::kv_cache(m, seq, 1, dt, tp);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

bool preset_with(const char* name, const char* variant, attn::ModelConfig* out,
                 const attn::WhatIf* w = nullptr) {
  try {
    const attn::ModelConfig& base = attn::find_preset(name);
    if (!variant) {
      *out = base;
      return true;
    }
    attn::WhatIf wi = w ? *w : attn::WhatIf{};
    wi.variant = *attn::parse_variant(variant);
    *out = attn::apply_what_if(base, wi);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

void value(const char* label, const std::string& v, const char* help) {
  ImGui::Bullet();
  vis::labelled_value(label, v, help);
}

// Horizontal bars of two sizes on one scale (the larger fills the width), each labelled.
void compare_bars(const std::string& label_a, double a, const std::string& label_b, double b) {
  const double top = std::max(a, b);
  if (!(top > 0)) return;
  const float w = std::min(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 30);
  for (int i = 0; i < 2; ++i) {
    const double v = i == 0 ? a : b;
    const std::string text = (i == 0 ? label_a : label_b) + ": " + attn::format_bytes(v);
    ImGui::ProgressBar(static_cast<float>(v / top), ImVec2(w, 0), text.c_str());
  }
}

void dtype_control(App& app) {
  const attn::DType options[] = {attn::DType::kBf16, attn::DType::kFp8, attn::DType::kMxfp4};
  ImGui::TextUnformatted("Try: the cache dtype");
  for (attn::DType d : options) {
    ImGui::SameLine();
    if (ImGui::RadioButton(std::string(attn::dtype_name(d)).c_str(), app.kv_dtype == d))
      app.kv_dtype = d;
  }
}

void seq_control(App& app) {
  int log2s = static_cast<int>(
      std::lround(std::log2(static_cast<double>(std::max<std::int64_t>(1, app.seq)))));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  if (ImGui::SliderInt("Try: S = 2^k", &log2s, 8, 20)) app.seq = std::int64_t(1) << log2s;
  ImGui::SameLine();
  ImGui::TextDisabled("S = %s", attn::format_tokens(static_cast<double>(app.seq)).c_str());
}

const attn::GpuSpec* chosen_gpu(const App& app) {
  const attn::GpuSpec* g = attn::find_gpu(app.gpu_name);
  if (!g && !attn::gpu_specs().empty()) g = &attn::gpu_specs().front();
  return g;
}

// ---- [SECTION] The steps -------------------------------------------------------------------

void body_mla_cache(App& app) {
  ImGui::TextWrapped(
      "DeepSeek-V3 caches one latent vector per token and layer: Dl = 512 compressed dims plus "
      "Dr = 64 RoPE dims, shared by all 128 heads. The same model with MHA would cache a key and "
      "a value of 128 dims for each of the 128 heads. Look at bytes per token in the KV-cache "
      "panel, then flip the dtype.");
  attn::ModelConfig mla, mha;
  attn::KvReport a, b;
  if (preset_with("deepseek-v3", nullptr, &mla) && preset_with("deepseek-v3", "mha", &mha) &&
      kv_of(mla, app.seq, app.kv_dtype, 1, &a) && kv_of(mha, app.seq, attn::DType::kBf16, 1, &b)) {
    value("MLA, per token and layer:",
          attn::format_bytes(static_cast<double>(a.bytes_per_token_full_layer)),
          "(Dl + Dr) * bytes(DT) = 576 elements");
    value("MHA bf16, per token and layer:",
          attn::format_bytes(static_cast<double>(b.bytes_per_token_full_layer)),
          "2 * Hkv * D * 2 B = 2 * 128 * 128 * 2");
    value(
        "MHA bf16 / MLA at this dtype:",
        attn::format_ratio(static_cast<double>(b.total_bytes) / static_cast<double>(a.total_bytes)),
        "bf16: 65536 / 1152 = 56.9x. fp8 halves the latent again (one byte per element): 114x.");
    value("whole cache at S, MLA:", attn::format_bytes(static_cast<double>(a.total_bytes)),
          "all 61 layers, batch 1");
    value("whole cache at S, MHA bf16:", attn::format_bytes(static_cast<double>(b.total_bytes)),
          nullptr);
    compare_bars("MLA at " + std::string(attn::dtype_name(app.kv_dtype)),
                 static_cast<double>(a.total_bytes), "MHA bf16",
                 static_cast<double>(b.total_bytes));
  }
  dtype_control(app);
}

void body_gqa(App& app) {
  TourState& t = app.tour;
  ImGui::TextWrapped(
      "GQA lets G query heads share one key/value head. MHA is G = 1 (every head its own K, V), "
      "MQA is one K, V for all. The cache and the bytes each decode step reads shrink by G; what "
      "is given up is the number of distinct keys and values the heads can look at. Drag Hkv and "
      "watch the KV-cache panel and the projected step time.");
  const attn::ModelConfig& base = app.base;
  const int hq = std::max(1, base.q_heads);
  t.gqa_kv_heads = std::clamp(t.gqa_kv_heads, 1, hq);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  if (ImGui::SliderInt("Try: Hkv", &t.gqa_kv_heads, 1, hq)) {
    while (hq % t.gqa_kv_heads != 0) --t.gqa_kv_heads;  // keep G an integer
    app.what_if_params.kv_heads = t.gqa_kv_heads;
    set_what_if_variant(app, t.gqa_kv_heads == hq ? "mha" : (t.gqa_kv_heads == 1 ? "mqa" : "gqa"));
  }
  attn::KvReport r;
  if (kv_of(app.model, app.seq, app.kv_dtype, 1, &r)) {
    value("G = Hq / Hkv:", std::to_string(hq / t.gqa_kv_heads), "query heads per kv head");
    value(
        "cache per token (all layers):", attn::format_bytes(static_cast<double>(r.bytes_per_token)),
        "2 * Hkv * D * bytes(DT) per layer");
    value("whole cache at S:", attn::format_bytes(static_cast<double>(r.total_bytes)), nullptr);
  }
  if (const attn::GpuSpec* g = chosen_gpu(app)) {
    try {
      const attn::RooflineProjection p =
          attn::project_decode(app.model.layer_shape(0), app.batch, app.seq, app.kv_dtype, *g);
      value(("projected step, one layer, " + g->name + ":").c_str(),
            attn::format_duration_us(p.time_s * 1e6) + " (roofline)",
            "max(bytes / bandwidth, FLOPs / matrix rate) from the datasheet: a projection");
    } catch (const std::exception&) {
    }
  }
}

void body_absorb(App& app) {
  ImGui::TextWrapped(
      "A head's score is q_nope . k_nope with k_nope = W_UK c (c the cached latent). By "
      "associativity q_nope . (W_UK c) = (W_UK^T q_nope) . c: fold W_UK into the query once per "
      "step and attend over the 512-dim latent directly; W_UV is applied to the output the same "
      "way. RoPE breaks this: it rotates keys by a matrix that depends on the position, R(pos) "
      "W_UK c, and a position-dependent factor cannot be folded into one fixed W_UK. So RoPE "
      "gets its own Dr = 64 dims (q_rope, and one k_rope per token shared by all heads), cached "
      "next to the latent. The data-flow panel shows both paths with their shapes.");
  value("cache row per token:",
        std::to_string(app.model.latent_dim) + " + " + std::to_string(app.model.rope_dim) + " dims",
        "Dl latent + Dr decoupled RoPE key");
  value("absorbed query per head:",
        std::to_string(app.model.latent_dim + app.model.rope_dim) + " dims",
        "W_UK^T q_nope (Dl) joined with q_rope (Dr)");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  int dr = app.what_if_params.rope_dim;
  if (ImGui::SliderInt("Try: Dr (what-if MLA)", &dr, 16, 128)) {
    app.what_if_params.rope_dim = dr;
    set_what_if_variant(app, "mla");
  }
}

void body_naive(App& app) {
  ImGui::TextWrapped(
      "Naive MLA rebuilds every head's K and V from the latent each step: B * S * H * (Dn + Dv) "
      "* Dl multiply-adds, growing with S. Absorbed MLA pays a fixed query/output absorption "
      "per step and then reads the same latent. Both read the same cache bytes, so in decode the "
      "FLOPs decide and absorbed wins. In prefill T queries share one rebuild, and per "
      "query-key pair naive does H * (Dn + Dr + Dv) multiply-adds against absorbed's "
      "H * (2 Dl + Dr): there naive is the faster form.");
  const attn::ModelConfig& m = app.model;
  if (m.variant == attn::Variant::kMla) {
    try {
      const attn::LayerShape l = m.layer_shape(0);
      const attn::DecodeCost a =
          attn::decode_cost(l, app.batch, app.seq, app.kv_dtype, attn::MlaForm::kAbsorbed, &m);
      const attn::DecodeCost n =
          attn::decode_cost(l, app.batch, app.seq, app.kv_dtype, attn::MlaForm::kNaive, &m);
      value("absorbed, one layer:",
            attn::format_flops(a.flops) + ", " + attn::format_bytes(a.total_bytes()),
            "FLOPs and bytes of one decode step (attn::decode_cost)");
      value("naive, one layer:",
            attn::format_flops(n.flops) + ", " + attn::format_bytes(n.total_bytes()), nullptr);
      value("naive / absorbed FLOPs:", attn::format_ratio(n.flops / a.flops), nullptr);
      {  // prefill of T = S queries: rebuild or absorption once per key or query, then pairs
        const double h = l.q_heads, dl = m.latent_dim, dr = m.rope_dim;
        const double dn = m.qk_nope_dim, dv = m.value_dim, t = static_cast<double>(app.seq);
        const double absorbed = t * h * dl * (dn + dv) + t * t * h * (2 * dl + dr);
        const double naive = t * h * dl * (dn + dv) + t * t * h * (dn + dr + dv);
        value("prefill of S tokens, naive / absorbed FLOPs:", attn::format_ratio(naive / absorbed),
              "T = S queries: absorbed T*H*Dl*(Dn+Dv) + T*S*H*(2Dl+Dr); naive "
              "S*H*Dl*(Dn+Dv) + T*S*H*(Dn+Dr+Dv) multiply-adds, counting every query-key pair (a "
              "causal mask halves both pair terms)");
      }
      if (const attn::GpuSpec* g = chosen_gpu(app)) {
        const auto pa = attn::project(a, *g, app.kv_dtype);
        const auto pn = attn::project(n, *g, app.kv_dtype);
        value(("projected on " + g->name + ":").c_str(),
              "absorbed " + attn::format_duration_us(pa.time_s * 1e6) + ", naive " +
                  attn::format_duration_us(pn.time_s * 1e6) + " (roofline)",
              "a projection from the datasheet, not a measurement");
      }
    } catch (const std::exception& e) {
      vis::error_text(e.what());
    }
  } else {
    ImGui::TextDisabled("(pick an MLA model: Next/Back re-applies DeepSeek-V3)");
  }
  seq_control(app);
}

void body_window(App& app) {
  ImGui::TextWrapped(
      "A sliding layer keeps only the last W tokens. Mistral-7B slides every layer with "
      "W = 4096, so past 4096 tokens its cache stops growing. Gemma 3 keeps 5 local layers "
      "(W = 1024) per global one: only every sixth layer holds the whole context.");
  attn::ModelConfig mis, mis_full, gem, gem_full;
  attn::WhatIf keep;
  keep.kv_heads = 0;
  attn::KvReport a, b, c, d;
  if (preset_with("mistral-7b-v0.1", nullptr, &mis) &&
      preset_with("mistral-7b-v0.1", "gqa", &mis_full, &keep) &&
      kv_of(mis, app.seq, app.kv_dtype, 1, &a) && kv_of(mis_full, app.seq, app.kv_dtype, 1, &b)) {
    value("Mistral at S, window 4096:", attn::format_bytes(static_cast<double>(a.total_bytes)),
          "32 layers * 2 * 8 * 128 * bytes * min(S, 4096)");
    value("Mistral at S, no window:", attn::format_bytes(static_cast<double>(b.total_bytes)),
          nullptr);
    value(
        "saved by the window:",
        attn::format_ratio(static_cast<double>(b.total_bytes) / static_cast<double>(a.total_bytes)),
        "S / 4096 once S > 4096: 8x at 32k");
    compare_bars("Mistral, W 4096", static_cast<double>(a.total_bytes), "Mistral, no window",
                 static_cast<double>(b.total_bytes));
  }
  if (preset_with("gemma-3-12b", nullptr, &gem) &&
      preset_with("gemma-3-12b", "gqa", &gem_full, &keep) &&
      kv_of(gem, app.seq, app.kv_dtype, 1, &c) && kv_of(gem_full, app.seq, app.kv_dtype, 1, &d)) {
    value("Gemma 3 12B at S (5 local : 1 global):",
          attn::format_bytes(static_cast<double>(c.total_bytes)),
          gem.pattern_description().c_str());
    value("Gemma 3 12B at S, every layer global:",
          attn::format_bytes(static_cast<double>(d.total_bytes)), nullptr);
    value("kept of the all-global cache:",
          std::to_string(static_cast<int>(std::lround(100.0 * static_cast<double>(c.total_bytes) /
                                                      static_cast<double>(d.total_bytes)))) +
              "%",
          "tends to 1/6 (the global layers) as S grows");
  }
  seq_control(app);
}

void body_memory_bound(App& app) {
  TourState& t = app.tour;
  ImGui::TextWrapped(
      "A decode step does 2 FLOPs per multiply-add for each cached element it reads, times the "
      "heads that share it: about G FLOPs per byte for bf16 GQA. GPUs need hundreds of FLOPs "
      "per byte (the ridge) before compute matters, so decode is memory-bound: its floor is "
      "bytes / bandwidth. MLA's one latent row is read by all H heads, so its intensity grows "
      "with H. Drag H and watch where it crosses the ridge; the latency panel's roofline tab "
      "draws it.");
  const attn::GpuSpec* g = chosen_gpu(app);
  if (!g) return;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  ImGui::SliderInt("Try: MLA heads H", &t.mla_heads, 1, 256);
  const double ridge = g->ridge_intensity(app.kv_dtype);
  const double bpe = attn::dtype_bytes_per_element(app.kv_dtype);
  const double mla_i = 2.0 * t.mla_heads * (576 + 512) / (576 * bpe);
  value(("ridge of " + g->name + ":").c_str(), std::to_string(static_cast<int>(ridge)) + " FLOP/B",
        "matrix rate / bandwidth from the datasheet");
  value("GQA G = 4 (Llama-3-8B):",
        std::to_string(static_cast<int>(std::lround(4.0 * 2.0 / bpe))) + " FLOP/B",
        "2 * G * (D + Dv) FLOPs over (D + Dv) * bytes per token and kv head");
  value("MLA with H heads:",
        std::to_string(static_cast<int>(std::lround(mla_i))) + " FLOP/B -> " +
            (mla_i > ridge ? "compute-bound" : "memory-bound"),
        "2 * H * (576 + 512) FLOPs over 576 * bytes per token");
  value("MLA turns compute-bound at H >",
        std::to_string(
            static_cast<int>(attn::compute_bound_group_size(*g, app.kv_dtype, 576, 512, true))),
        "at this dtype; fp8 halves the bytes, so half the heads suffice");
  dtype_control(app);
}

void body_measured(App& app) {
  ImGui::TextWrapped(
      "The latency panel runs the kernels: each case is checked against the CPU reference, then "
      "timed. Compare its GB/s with the read bandwidth measured in the same run (the practical "
      "roof here) and with the datasheet roof; the MI355X column is the roofline projection of "
      "the same case on an MI355X, not a measurement. Press Run there (GPU when available), or "
      "pick a recorded result.");
  {
    const bool busy = latency_job_running(app);
    ImGui::BeginDisabled(busy);
    if (ImGui::Button(app.device.available ? "Try: time the model's layer on the GPU"
                                           : "Try: time the model's layer on the CPU")) {
      app.latency.workload = Workload::kModelLayer;
      app.latency.device = app.device.available ? BenchTarget::kGpu : BenchTarget::kCpu;
      start_latency_job(app);
      show_panel(app, "latency");
    }
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::TextDisabled(busy ? "running: see the latency panel" : "B and S of the model panel");
    if (!app.latency.job_error.empty()) vis::error_text(app.latency.job_error);
  }
  const LatencyState& st = app.latency;
  const ResultSet* last = nullptr;
  for (const ResultSet& s : st.sets)
    if (!s.report.results.empty()) last = &s;
  try {  // what the roofline says for the model's layer, before and beside any measurement
    const kern::BenchCase c =
        kern::BenchCase::from_model(app.model, 0, app.batch, app.seq, attn::DType::kBf16);
    const attn::GpuSpec* chosen = attn::find_gpu(app.gpu_name);
    const attn::GpuSpec* mi = attn::find_gpu("MI355X");
    for (const attn::GpuSpec* g : {chosen, mi == chosen ? nullptr : mi}) {
      if (!g) continue;
      value(("the model's layer 0, bf16, projected on " + g->name + ":").c_str(),
            attn::format_duration_us(projected_us(c, *g)) + " (roofline)",
            "max(bytes / bandwidth, FLOPs / matrix rate) from the datasheet: the floor a "
            "perfect kernel would reach, not a measurement");
    }
  } catch (const std::exception&) {
  }
  if (!last) {
    ImGui::TextDisabled("(no results yet)");
    return;
  }
  const attn::GpuSpec* mi = attn::find_gpu("MI355X");
  const attn::GpuSpec* here = gpu_spec_for_device(last->report.device.name);
  ImGui::Text("%s", last->name.c_str());
  for (const kern::BenchResult& r : last->report.results) {
    if (!r.error.empty() || r.median_us <= 0) continue;
    std::string line = case_label(r.c) + ": " + attn::format_duration_us(r.median_us) + ", " +
                       std::to_string(static_cast<int>(r.gbps)) + " GB/s";
    if (r.probe_gbps > 0)
      line += " (" + std::to_string(static_cast<int>(100 * r.gbps / r.probe_gbps)) +
              "% of the measured read BW)";
    try {
      if (here && r.device != "cpu")
        line += ", roofline here " + attn::format_duration_us(projected_us(r.c, *here));
      if (mi) line += ", MI355X projected " + attn::format_duration_us(projected_us(r.c, *mi));
    } catch (const std::exception&) {
    }
    ImGui::BulletText("%s", line.c_str());
  }
}

void body_tp(App& app) {
  ImGui::TextWrapped(
      "Tensor parallelism splits the heads over N GPUs. A GQA layer's kv heads split too, each "
      "GPU holding ceil(Hkv / N) of them, so past N = Hkv they are replicated. MQA's single kv "
      "head and MLA's single latent cannot be split: every GPU holds the whole cache. Drag N.");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  ImGui::SliderInt("Try: TP N", &app.tp, 1, 16);
  const char* variants[] = {"mha", "gqa", "mqa", "mla"};
  if (ImGui::BeginTable("##tp", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("variant");
    ImGui::TableSetupColumn("per GPU");
    ImGui::TableSetupColumn("whole cache");
    ImGui::TableHeadersRow();
    for (const char* v : variants) {
      attn::ModelConfig m;
      attn::WhatIf keep;
      keep.kv_heads = 0;
      attn::KvReport r;
      try {  // the base model (a preset or an imported config.json) under each variant
        keep.variant = *attn::parse_variant(v);
        m = attn::apply_what_if(app.base, keep);
      } catch (const std::exception&) {
        continue;
      }
      if (!kv_of(m, app.seq, app.kv_dtype, app.tp, &r)) continue;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (m.variant == attn::Variant::kMla)
        ImGui::Text("%s (one latent, Dl %d + Dr %d)", v, m.latent_dim, m.rope_dim);
      else
        ImGui::Text("%s (Hkv %d)", v, m.kv_heads);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(attn::format_bytes(static_cast<double>(r.per_device_bytes)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(attn::format_bytes(static_cast<double>(r.total_bytes)).c_str());
    }
    ImGui::EndTable();
  }
}

struct Step {
  const char* title;
  const char* panel;    // the panel to look at
  const char* preset;   // the model the step sets up (bf16, no what-if variant)
  std::int64_t seq;     // ... at this S
  int tp;               // ... and this tensor parallelism
  void (*extra)(App&);  // anything else the step sets, or nullptr
  void (*body)(App&);
};

const Step kSteps[] = {
    {"Why DeepSeek-V3's cache is ~57x smaller than MHA's", "kv-cache", "deepseek-v3", 32768, 1,
     nullptr, body_mla_cache},
    {"What GQA's group size trades between MHA and MQA", "kv-cache", "llama-3-8b", 32768, 1,
     [](App& a) { a.tour.gqa_kv_heads = a.base.kv_heads; }, body_gqa},
    {"Why W_UK folds into the query, and why RoPE needs its own 64 dims", "data-flow",
     "deepseek-v3", 32768, 1, nullptr, body_absorb},
    {"Absorbed vs naive MLA: FLOPs, bytes, and which is faster", "data-flow", "deepseek-v3", 4096,
     1, nullptr, body_naive},
    {"What a 4096 window buys Mistral at 32k, what Gemma 3's 5:1 keeps", "kv-cache",
     "mistral-7b-v0.1", 32768, 1, nullptr, body_window},
    {"Why decode is memory-bound, and where MLA with 128 heads stops being so", "latency",
     "deepseek-v3", 32768, 1, nullptr, body_memory_bound},
    {"How close the measured kernel gets to the roofline (here and on MI355X)", "latency",
     "llama-3-8b", 4096, 1, nullptr, body_measured},
    {"What tensor parallelism does to each variant's per-GPU cache", "kv-cache", "llama-3.1-70b",
     32768, 8, nullptr, body_tp},
};
constexpr int kStepCount = static_cast<int>(sizeof(kSteps) / sizeof(kSteps[0]));

}  // namespace

// ---- [SECTION] The panel -------------------------------------------------------------------

int tour_step_count() { return kStepCount; }

void draw_tour_panel(App& app) {
  TourState& t = app.tour;
  t.step = std::clamp(t.step, 0, kStepCount - 1);
  if (!ImGui::Begin(panel_info(PanelId::kTour).title, &app.shown(PanelId::kTour))) {
    ImGui::End();
    return;
  }
  ImGui::BeginDisabled(t.step == 0);
  if (ImGui::Button("< Back")) --t.step;
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(t.step == kStepCount - 1);
  if (ImGui::Button("Next >")) ++t.step;
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::Text("step %d of %d", t.step + 1, kStepCount);
  ImGui::SameLine();
  if (ImGui::SmallButton("set the panels up for this step")) {
    t.applied_step = -1;
    t.setup_requested = true;
  }
  t.step = std::clamp(t.step, 0, kStepCount - 1);
  const Step& cur = kSteps[t.step];
  // The tour's first frame leaves the model as it is (from the command line or the last
  // session); moving to a step, or the button above, sets the panels up for it.
  if (t.applied_step == -1 && !t.setup_requested) t.applied_step = t.step;
  t.setup_requested = false;
  if (t.applied_step != t.step) {
    setup(app, cur.preset, "", attn::DType::kBf16, cur.seq, cur.tp);
    if (cur.extra) cur.extra(app);
    show_panel(app, cur.panel);
    t.applied_step = t.step;
  }
  ImGui::Separator();
  ImGui::PushTextWrapPos(0.0f);
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 214, 120, 255));
  ImGui::TextUnformatted(cur.title);
  ImGui::PopStyleColor();
  ImGui::PopTextWrapPos();
  ImGui::TextDisabled("look at: the %s panel (model %s, %s, S %s, TP %d)", cur.panel,
                      app.model.name.c_str(), std::string(attn::dtype_name(app.kv_dtype)).c_str(),
                      attn::format_tokens(static_cast<double>(app.seq)).c_str(), app.tp);
  // The first frame keeps the user's model (see above), so the panels may show another model
  // than the step is about: say so, and which button sets them up. (S and TP are left out:
  // some steps ask the learner to move them.)
  if (app.preset_name != cur.preset) {
    ImGui::TextColored(ImVec4(1.0f, 0.6f, 0.3f, 1.0f),
                       "the panels show %s; this step is about %s: press 'set the panels up for "
                       "this step'",
                       app.model.name.c_str(), cur.preset);
  }
  ImGui::Spacing();
  cur.body(app);
  ImGui::Spacing();
  ImGui::SetNextItemOpen(true, ImGuiCond_FirstUseEver);
  if (ImGui::CollapsingHeader("All steps")) {
    for (int i = 0; i < kStepCount; ++i) {
      const std::string label = std::to_string(i + 1) + ". " + kSteps[i].title;
      if (ImGui::Selectable(label.c_str(), i == t.step)) t.step = i;
    }
  }
  ImGui::End();
}

}  // namespace app
