// The data-flow panel (--panel data-flow): one decode step (T = 1) of the chosen model's
// attention as boxes and arrows with live shapes, the query heads coloured by the kv head they
// read, the bytes and FLOPs of the step, MLA's naive and absorbed forms side by side, and an
// animation of decode steps in which the cache grows and a window slides.
//
// [SECTION] Shapes: "[B, S, Hkv, D]" and the numbers
// [SECTION] Diagrams: grouped family (MHA/MQA/GQA/SWA), MLA absorbed, MLA naive
// [SECTION] Heads: query heads -> kv heads
// [SECTION] Animation: cache positions over decode steps
// [SECTION] Cost: bytes and FLOPs per decode step
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/panels.h"
#include "attention/cost.h"
#include "attention/kv_cache.h"
#include "visuals/diagram.h"
#include "attention/roofline.h"
#include "attention/units.h"
#include "visuals/widgets.h"

namespace app {
namespace {

// ---- [SECTION] Shapes ----------------------------------------------------------------------

std::string dims(std::initializer_list<std::int64_t> v) {
  std::string s = "[";
  bool first = true;
  for (std::int64_t x : v) {
    if (!first) s += ", ";
    s += std::to_string(x);
    first = false;
  }
  return s + "]";
}

std::string bytes_note(double elements, attn::DType dt) {
  return std::string(attn::dtype_name(dt)) + ", " +
         attn::format_bytes(elements * attn::dtype_bytes_per_element(dt));
}

// ---- [SECTION] Diagrams --------------------------------------------------------------------

constexpr float kColW = 182, kGap = 14, kBoxH = 58, kRowGap = 26;
const ImVec2 kDesign(3 * kColW + 2 * kGap + 8, 5 * kBoxH + 4 * kRowGap + 8);

vis::Rect cell(int col, int row, int span = 1) {
  const float c = static_cast<float>(col), r = static_cast<float>(row),
              s = static_cast<float>(span);
  return {4 + c * (kColW + kGap), 4 + r * (kBoxH + kRowGap), s * kColW + (s - 1) * kGap, kBoxH};
}

void draw_grouped(const vis::Canvas& c, const attn::ModelConfig& m, const attn::LayerShape& l,
                  const App& app, std::int64_t cached) {
  const std::int64_t B = app.batch, S = app.seq;
  const attn::DType dt = app.kv_dtype;
  const vis::Rect rx = cell(1, 0), rq = cell(0, 1), rk = cell(1, 1), rv = cell(2, 1);
  const vis::Rect kc = cell(1, 2), vc = cell(2, 2), att = cell(0, 3, 3), ro = cell(1, 4);
  c.box({rx, "x (the new token)", "[B, 1, hidden]", dims({B, 1, m.hidden_size}),
         vis::BoxStyle::kTensor});
  c.box({rq, "q = x W_q", "[B, Hq, D]", dims({B, l.q_heads, l.head_dim}), vis::BoxStyle::kTensor});
  c.box({rk, "k = x W_k", "[B, 1, Hkv, D]", dims({B, 1, l.kv_heads, l.head_dim}),
         vis::BoxStyle::kTensor});
  c.box({rv, "v = x W_v", "[B, 1, Hkv, Dv]", dims({B, 1, l.kv_heads, l.value_dim}),
         vis::BoxStyle::kTensor});
  const double kv_el = static_cast<double>(B) * static_cast<double>(cached) * l.kv_heads;
  c.box({kc, "K cache, " + bytes_note(kv_el * l.head_dim, dt),
         l.window > 0 ? "[B, min(S, W), Hkv, D]" : "[B, S, Hkv, D]",
         dims({B, cached, l.kv_heads, l.head_dim}), vis::BoxStyle::kCache});
  c.box({vc, "V cache, " + bytes_note(kv_el * l.value_dim, dt),
         l.window > 0 ? "[B, min(S, W), Hkv, Dv]" : "[B, S, Hkv, Dv]",
         dims({B, cached, l.kv_heads, l.value_dim}), vis::BoxStyle::kCache});
  char att_title[160];
  std::snprintf(att_title, sizeof att_title,
                "attention: softmax(q K^T / sqrt(%d)) V   (head h reads kv head h / G, G = %d)",
                l.head_dim, l.group_size());
  c.box({att, att_title, "scores [B, Hq, S'] -> o [B, Hq, Dv]",
         "S' = " + std::to_string(cached) +
             (l.window > 0
                  ? " (window " + std::to_string(l.window) + " of S " + std::to_string(S) + ")"
                  : ""),
         vis::BoxStyle::kOp});
  c.box({ro, "out = o W_o", "[B, 1, hidden]", dims({B, 1, m.hidden_size}), vis::BoxStyle::kTensor});
  c.arrow(rx, rq);
  c.arrow(rx, rk);
  c.arrow(rx, rv);
  c.arrow(rk, kc, "append");
  c.arrow(rv, vc, "append");
  c.arrow_points(ImVec2(rq.center().x, rq.y + rq.h), ImVec2(rq.center().x, att.y), "");
  c.arrow_points(ImVec2(kc.center().x, kc.y + kc.h), ImVec2(kc.center().x, att.y), "read K");
  c.arrow_points(ImVec2(vc.center().x, vc.y + vc.h), ImVec2(vc.center().x, att.y), "read V");
  c.arrow_points(ImVec2(ro.center().x, att.y + att.h), ImVec2(ro.center().x, ro.y), "o");
}

void draw_mla(const vis::Canvas& c, const attn::ModelConfig& m, const App& app, std::int64_t cached,
              bool naive) {
  const std::int64_t B = app.batch;
  const int H = m.q_heads, Dl = m.latent_dim, Dr = m.rope_dim, Dn = m.qk_nope_dim;
  const int Dv = m.value_dim > 0 ? m.value_dim : Dl;
  const attn::DType dt = app.kv_dtype;
  const vis::Rect rx = cell(1, 0), rq = cell(0, 1), rc = cell(1, 1), rr = cell(2, 1);
  const vis::Rect q2 = cell(0, 2), cache = cell(1, 2, 2), att = cell(0, 3, 3), ro = cell(1, 4);
  c.box({rx, "x (the new token)", "[B, 1, hidden]", dims({B, 1, m.hidden_size}),
         vis::BoxStyle::kTensor});
  c.box({rq, m.q_lora_rank > 0 ? "q = x W_DQ W_UQ" : "q = x W_Q", "[B, H, Dn + Dr]",
         dims({B, H, Dn + Dr}), vis::BoxStyle::kTensor});
  c.box({rc, "c_kv = x W_DKV", "[B, 1, Dl]", dims({B, 1, Dl}), vis::BoxStyle::kTensor});
  c.box({rr, "k_rope = RoPE(x W_KR)", "[B, 1, Dr]", dims({B, 1, Dr}), vis::BoxStyle::kTensor});
  c.box({cache,
         "latent cache, " +
             bytes_note(static_cast<double>(B) * static_cast<double>(cached) * (Dl + Dr), dt),
         "[B, S, Dl + Dr]   one row per token, shared by all heads", dims({B, cached, Dl + Dr}),
         vis::BoxStyle::kCache});
  if (!naive) {
    vis::Box q{q2, "q_lat = [q_nope W_UK, q_rope]", "[B, H, Dl + Dr]", dims({B, H, Dl + Dr}),
               vis::BoxStyle::kTensor};
    q.highlight = true;
    c.box(q);
    c.box({att, "attention over the latent: keys = all Dl + Dr columns, values = first Dl",
           "scores [B, H, S] -> o_lat [B, H, Dl]",
           "then o = o_lat W_UV: [B, H, Dv] = " + dims({B, H, Dv}), vis::BoxStyle::kOp});
  } else {
    vis::Box k{q2, "K, V rebuilt every step", "K = c W_UK [B, S, H, Dn]",
               "V = c W_UV [B, S, H, Dv]", vis::BoxStyle::kWeight};
    k.highlight = true;
    c.box(k);
    c.box({att, "attention per head: q [Dn + Dr] against K [Dn] + k_rope [Dr]",
           "scores [B, H, S] -> o [B, H, Dv]",
           "K, V: " + dims({B, cached, H, Dn}) + " + " + dims({B, cached, H, Dv}) + " never stored",
           vis::BoxStyle::kOp});
  }
  c.box({ro, "out = o W_O", "[B, 1, hidden]", dims({B, 1, m.hidden_size}), vis::BoxStyle::kTensor});
  c.arrow(rx, rq);
  c.arrow(rx, rc);
  c.arrow(rx, rr);
  c.arrow_points(ImVec2(rc.center().x, rc.y + rc.h), ImVec2(rc.center().x, cache.y), "append");
  c.arrow_points(ImVec2(rr.center().x, rr.y + rr.h), ImVec2(rr.center().x, cache.y), "append");
  c.arrow_points(ImVec2(rq.center().x, rq.y + rq.h), ImVec2(rq.center().x, q2.y),
                 naive ? "" : "x W_UK");
  // The gap between the cache and the rebuilt K, V is too short for a label; the box names
  // W_UK and W_UV itself.
  if (naive)
    c.arrow_points(ImVec2(cache.x, cache.center().y), ImVec2(q2.x + q2.w, q2.center().y), "");
  c.arrow_points(ImVec2(q2.center().x, q2.y + q2.h), ImVec2(q2.center().x, att.y),
                 naive ? "K, V" : "q_lat");
  c.arrow_points(ImVec2(cache.center().x, cache.y + cache.h), ImVec2(cache.center().x, att.y),
                 "read");
  c.arrow_points(ImVec2(ro.center().x, att.y + att.h), ImVec2(ro.center().x, ro.y), "o");
}

// ---- [SECTION] Heads -----------------------------------------------------------------------

void draw_heads(const attn::LayerShape& l) {
  const bool mla = l.variant == attn::Variant::kMla;
  const int hq = l.q_heads, hkv = mla ? 1 : l.kv_heads, g = std::max(1, l.group_size());
  ImGui::Text("Query heads (Hq %d) and the %s they read (Hkv %d, G %d)", hq,
              mla ? "latent" : "kv heads", hkv, mla ? hq : g);
  ImGui::SameLine();
  vis::help_marker(
      "Each query head is coloured by the kv head it shares (head h reads kv head h / G, "
      "as HF's repeat_kv). MHA: one colour per head; MQA and MLA: one colour for all.");
  const float avail = std::max(100.0f, ImGui::GetContentRegionAvail().x);
  const float cell_q = std::clamp(avail / static_cast<float>(hq) - 1.0f, 2.0f, 22.0f);
  const float width_q = static_cast<float>(hq) * (cell_q + 1.0f);
  const float row_h = ImGui::GetFontSize() * 0.9f;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(std::min(avail, width_q), row_h * 2 + 18));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float kv_w = width_q / static_cast<float>(hkv);
  for (int h = 0; h < hq; ++h) {
    const int k = mla ? 0 : h / g;
    const ImVec2 a(p0.x + static_cast<float>(h) * (cell_q + 1.0f), p0.y);
    dl->AddRectFilled(a, ImVec2(a.x + cell_q, a.y + row_h), vis::kv_head_color(k, hkv));
  }
  for (int k = 0; k < hkv; ++k) {
    const ImVec2 a(p0.x + static_cast<float>(k) * kv_w, p0.y + row_h + 18);
    const ImVec2 b(a.x + std::max(2.0f, kv_w - 2.0f), a.y + row_h);
    dl->AddRectFilled(a, b, vis::kv_head_color(k, hkv));
    // A fan from the group's query heads to its kv head.
    const float qx0 = p0.x + static_cast<float>(k * (mla ? hq : g)) * (cell_q + 1.0f);
    const float qx1 = p0.x + static_cast<float>((k + 1) * (mla ? hq : g)) * (cell_q + 1.0f) - 1.0f;
    dl->AddQuadFilled(ImVec2(qx0, p0.y + row_h), ImVec2(qx1, p0.y + row_h), ImVec2(b.x, a.y), a,
                      vis::kv_head_color(k, hkv, 0.25f));
  }
}

// ---- [SECTION] Animation -------------------------------------------------------------------

// One decode step appends a token; a sliding window reads only the newest W. Cells are chunks of
// S / 64 tokens; the sequence runs from 0 to S and starts over.
void draw_animation(App& app, const attn::LayerShape& l) {
  DataFlowViewState& st = app.data_flow;
  ImGui::Checkbox("animate decode steps", &st.animate);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  ImGui::SliderFloat("steps/s", &st.steps_per_second, 1.0f, 30.0f, "%.0f");
  ImGui::SameLine();
  vis::help_marker(
      "Each decode step appends one token to the cache (one cell = S/64 tokens here). "
      "A full layer reads the whole cache every step; a sliding layer reads the W newest "
      "(highlighted) and the window slides forward.");
  constexpr int kCells = 64;
  const std::int64_t S = std::max<std::int64_t>(1, app.seq);
  const double chunk = static_cast<double>(S) / kCells;
  // 64 steps per pass; the picture starts 60% along (deterministic: driven by App::clock_s).
  const double steps = st.animate ? app.clock_s * st.steps_per_second : 0.0;
  const int step =
      static_cast<int>(std::fmod(std::floor(steps) + 0.6 * kCells, static_cast<double>(kCells)));
  const std::int64_t len =
      std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround((step + 1) * chunk)));
  const std::int64_t read_from = l.window > 0 ? std::max<std::int64_t>(0, len - l.window) : 0;
  const float avail = std::max(100.0f, ImGui::GetContentRegionAvail().x);
  const float cw = std::clamp(avail / kCells - 1.0f, 2.0f, 16.0f);
  const float h = ImGui::GetFontSize() * 1.1f;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(kCells * (cw + 1.0f), h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int i = 0; i < kCells; ++i) {
    const double c0 = i * chunk, c1 = (i + 1) * chunk;
    const ImVec2 a(p0.x + static_cast<float>(i) * (cw + 1.0f), p0.y), b(a.x + cw, a.y + h);
    ImU32 col = IM_COL32(60, 60, 66, 255);  // not yet written
    if (c0 < static_cast<double>(len)) {
      const bool read = c1 > static_cast<double>(read_from);
      col = read ? (l.window > 0 ? vis::sliding_layer_color() : vis::full_layer_color())
                 : IM_COL32(110, 100, 80, 255);  // cached, outside the window
    }
    if (i == step) col = IM_COL32(255, 255, 255, 255);  // the token appended now
    dl->AddRectFilled(a, b, col, 1.0f);
  }
  const std::int64_t read = len - read_from;
  const double bytes = static_cast<double>(read) * static_cast<double>(app.batch) *
                       static_cast<double>(attn::kv_bytes_per_token(l, app.kv_dtype, 1));
  ImGui::Text("cached %s tokens, this step reads %s of them = %s per layer",
              attn::format_si(static_cast<double>(len)).c_str(),
              attn::format_si(static_cast<double>(read)).c_str(),
              attn::format_bytes(bytes).c_str());
}

// ---- [SECTION] Cost ------------------------------------------------------------------------

struct StepCost {
  attn::DecodeCost layer;  // the drawn layer
  attn::DecodeCost model;  // summed over all layers
};

StepCost step_cost(const App& app, int layer, attn::MlaForm form) {
  StepCost c;
  const attn::ModelConfig& m = app.model;
  const attn::ModelConfig* mla = m.variant == attn::Variant::kMla ? &m : nullptr;
  for (int i = 0; i < m.num_layers; ++i) {
    const attn::DecodeCost d =
        attn::decode_cost(m.layer_shape(i), app.batch, app.seq, app.kv_dtype, form, mla);
    if (i == layer) c.layer = d;
    c.model.kv_bytes += d.kv_bytes;
    c.model.q_bytes += d.q_bytes;
    c.model.o_bytes += d.o_bytes;
    c.model.weight_bytes += d.weight_bytes;
    c.model.flops += d.flops;
  }
  return c;
}

void cost_rows(const App& app, const attn::DecodeCost& a, const attn::DecodeCost* b) {
  auto row = [&](const char* label, double va, double vb, bool is_bytes, const char* help) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", label);
    ImGui::SameLine();
    vis::help_marker(help);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted((is_bytes ? attn::format_bytes(va) : attn::format_flops(va)).c_str());
    if (b) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted((is_bytes ? attn::format_bytes(vb) : attn::format_flops(vb)).c_str());
    }
  };
  row("cache read", a.kv_bytes, b ? b->kv_bytes : 0, true,
      "K and V (or the latent) read by the step; a sliding layer reads min(S, W) tokens.");
  row("q + out", a.q_bytes + a.o_bytes, b ? b->q_bytes + b->o_bytes : 0, true,
      "The query read and the output written (small at decode).");
  if (a.weight_bytes > 0 || (b && b->weight_bytes > 0))
    row("W_UK, W_UV", a.weight_bytes, b ? b->weight_bytes : 0, true,
        "MLA: the up-projections the step reads to absorb the query / rebuild K and V.");
  row("total bytes", a.total_bytes(), b ? b->total_bytes() : 0, true,
      "Everything the step moves through memory.");
  row("FLOPs", a.flops, b ? b->flops : 0, false,
      "Multiply-adds counted as 2 FLOPs: q K^T and P V (MLA adds the absorb or rebuild products).");
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextDisabled("FLOP / byte (layer step)");
  ImGui::SameLine();
  vis::help_marker(
      "Arithmetic intensity of the whole layer step counted here: for MLA it includes the "
      "W_UK / W_UV products and their weight bytes. The latency panel's roofline counts the "
      "attention kernel alone (q against the latent cache, no weights), so its figure for the "
      "same step differs. Decode is memory-bound while this is below the GPU's ridge (about "
      "200-300 FLOP/B for bf16 on H200 / MI355X): time ~ bytes / bandwidth.");
  ImGui::TableNextColumn();
  ImGui::Text("%.1f", a.intensity());
  if (b) {
    ImGui::TableNextColumn();
    ImGui::Text("%.1f", b->intensity());
  }
  // The roofline time of each column on the chosen GPU: per layer beside the whole model.
  if (const attn::GpuSpec* g = attn::find_gpu(app.gpu_name)) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("time on %s (projected)", g->name.c_str());
    ImGui::SameLine();
    vis::help_marker(
        "max(bytes / bandwidth, FLOPs / matrix rate) from the datasheet: a floor, "
        "not a measurement.");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(
        attn::format_duration_us(attn::project(a, *g, app.kv_dtype).time_s * 1e6).c_str());
    if (b) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(
          attn::format_duration_us(attn::project(*b, *g, app.kv_dtype).time_s * 1e6).c_str());
    }
  }
}

void draw_cost(App& app, int layer) {
  const bool mla = app.model.variant == attn::Variant::kMla;
  ImGui::Text("One decode step at S %s, B %lld, %s",
              attn::format_tokens(static_cast<double>(app.seq)).c_str(),
              static_cast<long long>(app.batch),
              std::string(attn::dtype_name(app.kv_dtype)).c_str());
  ImGui::SameLine();
  vis::help_marker(
      "T = 1: one new token per sequence attends to everything cached (attn::decode_cost).");
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!mla) {
    const StepCost c = step_cost(app, layer, attn::MlaForm::kAbsorbed);
    if (ImGui::BeginTable("cost", 3, flags)) {
      ImGui::TableSetupColumn("");
      ImGui::TableSetupColumn(("layer " + std::to_string(layer)).c_str());
      ImGui::TableSetupColumn(("all " + std::to_string(app.model.num_layers) + " layers").c_str());
      ImGui::TableHeadersRow();
      cost_rows(app, c.layer, &c.model);
      ImGui::EndTable();
    }
    return;
  }
  const StepCost abs = step_cost(app, layer, attn::MlaForm::kAbsorbed);
  const StepCost nai = step_cost(app, layer, attn::MlaForm::kNaive);
  ImGui::TextUnformatted("MLA: absorbed vs naive (all layers)");
  ImGui::SameLine();
  vis::help_marker(
      "Absorbed: W_UK is folded into the query once per step and attention runs on the "
      "latent directly: FLOPs grow with S x H x (2 Dl + Dr). Naive: K and V of every head "
      "are rebuilt from the latent each step: FLOPs grow with S x H x (Dn + Dv) x Dl. Both read "
      "the same latent bytes; absorbed does far fewer FLOPs at long S, naive avoids the "
      "absorb products and can win for very short S.");
  if (ImGui::BeginTable("cost_mla", 3, flags)) {
    ImGui::TableSetupColumn("");
    ImGui::TableSetupColumn("absorbed");
    ImGui::TableSetupColumn("naive");
    ImGui::TableHeadersRow();
    cost_rows(app, abs.model, &nai.model);
    ImGui::EndTable();
  }
  if (abs.model.flops > 0)
    ImGui::Text("naive / absorbed: %s the FLOPs, %s the bytes",
                attn::format_ratio(nai.model.flops / abs.model.flops).c_str(),
                attn::format_ratio(nai.model.total_bytes() / std::max(1.0, abs.model.total_bytes()))
                    .c_str());
}

}  // namespace

void draw_data_flow_panel(App& app) {
  if (!ImGui::Begin(panel_info(PanelId::kDataFlow).title, &app.shown(PanelId::kDataFlow))) {
    ImGui::End();
    return;
  }
  const attn::ModelConfig& m = app.model;
  if (m.num_layers < 1 || m.layers.empty()) {
    ImGui::TextDisabled("no model");
    ImGui::End();
    return;
  }
  DataFlowViewState& st = app.data_flow;
  st.layer = std::clamp(st.layer, 0, m.num_layers - 1);
  const attn::LayerShape l = m.layer_shape(st.layer);
  // Controls: which layer (hybrids differ), MLA form.
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  ImGui::SliderInt("layer", &st.layer, 0, m.num_layers - 1);
  ImGui::SameLine();
  ImGui::TextDisabled(
      "%s", l.window > 0 ? ("sliding, W " + std::to_string(l.window)).c_str() : "full attention");
  if (m.variant == attn::Variant::kMla) {
    ImGui::SameLine();
    int form = st.mla_naive ? 1 : 0;
    ImGui::RadioButton("absorbed", &form, 0);
    ImGui::SameLine();
    ImGui::RadioButton("naive", &form, 1);
    st.mla_naive = form == 1;
  }
  ImGui::SameLine();
  vis::help_marker(
      "B batch, S cached tokens, Hq query heads, Hkv kv heads, G = Hq / Hkv, D head dim, "
      "Dv value dim, W window, Dl latent, Dr RoPE dims, Dn = qk_nope. Shapes are live: "
      "change the model, S or B and they follow.");
  const std::int64_t cached = l.window > 0 ? std::min<std::int64_t>(app.seq, l.window) : app.seq;
  // Wide windows (--panel data-flow, a maximised window): the diagram on the left at its
  // largest, the rest beside it; otherwise one column.
  const float diagram_w = kDesign.x * 1.5f * ImGui::GetFontSize() / 15.0f;
  const bool wide = ImGui::GetContentRegionAvail().x > diagram_w + ImGui::GetFontSize() * 28;
  vis::Canvas canvas;
  canvas.begin("##flow", kDesign, wide ? diagram_w : 0.0f);
  if (m.variant == attn::Variant::kMla)
    draw_mla(canvas, m, app, cached, st.mla_naive);
  else
    draw_grouped(canvas, m, l, app, cached);
  if (wide) {
    ImGui::SameLine(0, ImGui::GetFontSize());
    ImGui::BeginGroup();
  } else {
    ImGui::Separator();
  }
  draw_heads(l);
  ImGui::Separator();
  draw_animation(app, l);
  ImGui::Separator();
  draw_cost(app, st.layer);
  if (wide) ImGui::EndGroup();
  ImGui::End();
}

}  // namespace app
