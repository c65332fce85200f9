// The attention panel (--panel attention): score and probability heatmaps of one layer of the
// chosen model over a short sequence (T = S <= 64 query and key positions, causal), computed by
// the CPU reference attn::prefill_grouped from seeded random q, k, v. Query heads are grouped
// by the kv head they read, each group framed in its kv head's colour; masked keys are hatched.
//
// [SECTION] Computing the matrices (cached on the shape)
// [SECTION] Drawing
#include <algorithm>
#include <cmath>
#include <random>

#include <imgui.h>

#include "app/panels.h"
#include "attention/reference.h"
#include "visuals/heatmap.h"
#include "visuals/widgets.h"

namespace app {
namespace {

// ---- [SECTION] Computing the matrices ------------------------------------------------------

constexpr int kMaxHeads = 64;

struct ViewShape {
  attn::LayerShape layer;
  int window = 0;  // the window applied in the picture (0 = none)
  bool window_from_model = false;
};

ViewShape view_shape(const App& app, AttentionViewState& st) {
  ViewShape v;
  const int layers = std::max(1, app.model.num_layers);
  st.layer = std::clamp(st.layer, 0, layers - 1);
  v.layer = app.model.layer_shape(st.layer);
  if (v.layer.window > 0) {
    if (v.layer.window < st.tokens) {
      v.window = v.layer.window;
      v.window_from_model = true;
    } else {
      st.picture_window = std::clamp(st.picture_window, 1, st.tokens);
      v.window = st.picture_window;
    }
  }
  return v;
}

void recompute(App& app) {
  AttentionViewState& st = app.attention;
  st.tokens = std::clamp(st.tokens, 2, 64);
  ViewShape v;
  try {
    v = view_shape(app, st);
    v.layer.validate();
  } catch (const std::exception& e) {
    st.error = e.what();
    st.key.clear();
    st.result = attn::PrefillResult{};
    return;
  }
  const attn::LayerShape& l = v.layer;
  const std::string key = std::to_string(static_cast<int>(l.variant)) + "/" +
                          std::to_string(l.q_heads) + "/" + std::to_string(l.kv_heads) + "/" +
                          std::to_string(l.head_dim) + "/" + std::to_string(l.value_dim) + "/" +
                          std::to_string(v.window) + "/" + std::to_string(l.effective_scale()) +
                          "/" + std::to_string(st.tokens) + "/" + std::to_string(st.seed);
  if (key == st.key) return;
  st.key = key;
  st.error.clear();
  // MLA in its absorbed form is one "kv head" (the latent, keys Dl + Dr wide, values its first
  // Dl columns) read by every head: grouped attention with Hkv = 1.
  attn::GroupedDecodeShape s;
  s.batch = 1;
  s.seq = st.tokens;
  // At most kMaxHeads query heads are computed (whole groups), so a 128-head MLA layer stays
  // a fraction of a frame; the panel says so.
  const int g = std::max(1, l.q_heads / std::max(1, l.kv_heads));
  s.kv_heads = std::max(1, std::min(l.kv_heads, kMaxHeads / g));
  s.q_heads = std::min({l.q_heads, s.kv_heads * g, std::max(kMaxHeads, g <= kMaxHeads ? g : 0)});
  s.head_dim = l.head_dim;
  s.value_dim = l.value_dim;
  s.window = v.window;
  s.scale = l.effective_scale();
  const std::int64_t t = st.tokens;
  std::mt19937 rng(st.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> q(static_cast<std::size_t>(t * s.q_heads * s.head_dim));
  std::vector<float> k(static_cast<std::size_t>(t * s.kv_heads * s.head_dim));
  std::vector<float> val(static_cast<std::size_t>(t * s.kv_heads * s.value_dim));
  for (float& x : q) x = normal(rng);
  for (float& x : k) x = normal(rng);
  for (float& x : val) x = normal(rng);
  try {
    st.result = attn::prefill_grouped(s, t, q.data(), k.data(), val.data(), true);
  } catch (const std::exception& e) {
    st.error = e.what();
    st.result = attn::PrefillResult{};
    return;
  }
  st.q_heads = s.q_heads;
  st.kv_heads = s.kv_heads;
  st.window = v.window;
  st.window_from_model = v.window_from_model;
  st.masked.assign(st.result.scores.data.size(), 0);
  for (std::size_t i = 0; i < st.masked.size(); ++i)
    st.masked[i] = std::isfinite(st.result.scores.data[i]) ? 0 : 1;
  st.head = std::clamp(st.head, 0, s.q_heads - 1);
}

// ---- [SECTION] Drawing ---------------------------------------------------------------------

std::string fmt3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

void head_range(const AttentionViewState& st, const std::vector<double>& m, int head,
                bool finite_only, double* lo, double* hi) {
  const std::size_t n = static_cast<std::size_t>(st.tokens) * static_cast<std::size_t>(st.tokens);
  *lo = 1e300;
  *hi = -1e300;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = m[static_cast<std::size_t>(head) * n + i];
    if (finite_only && !std::isfinite(x)) continue;
    *lo = std::min(*lo, x);
    *hi = std::max(*hi, x);
  }
  if (*lo > *hi) *lo = *hi = 0;
}

void draw_head_pair(App& app, float side) {
  AttentionViewState& st = app.attention;
  const std::size_t n = static_cast<std::size_t>(st.tokens) * static_cast<std::size_t>(st.tokens);
  const int g = std::max(1, st.q_heads / std::max(1, st.kv_heads));
  const int kvh = st.head / g;
  const ImU32 frame = vis::kv_head_color(kvh, st.kv_heads);
  vis::HeatmapSpec sc;
  sc.rows = sc.cols = st.tokens;
  sc.values = st.result.scores.data.data() + static_cast<std::size_t>(st.head) * n;
  sc.masked = st.masked.data() + static_cast<std::size_t>(st.head) * n;
  head_range(st, st.result.scores.data, st.head, true, &sc.lo, &sc.hi);
  sc.frame = frame;
  sc.value_name = "score";
  vis::HeatmapSpec pr = sc;
  pr.values = st.result.probs.data.data() + static_cast<std::size_t>(st.head) * n;
  pr.lo = 0;
  head_range(st, st.result.probs.data, st.head, true, &pr.lo, &pr.hi);
  pr.lo = 0;
  pr.value_name = "p";

  const float legend_w = ImGui::GetFontSize() * 5;
  ImGui::BeginGroup();
  ImGui::Text("scores, head %d", st.head);
  ImGui::SameLine();
  vis::help_marker(
      "score = q . k * scale for every query (row) and key (column) position; -inf where masked.");
  vis::draw_heatmap("##scores", sc, ImVec2(side, side));
  ImGui::EndGroup();
  ImGui::SameLine();
  vis::draw_heat_legend("##leg_s", sc.lo, sc.hi, "score", &fmt3, ImVec2(legend_w, side));
  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::Text("probabilities, head %d", st.head);
  ImGui::SameLine();
  vis::help_marker("p = softmax over the row of scores: each row sums to 1; 0 where masked.");
  vis::draw_heatmap("##probs", pr, ImVec2(side, side));
  ImGui::EndGroup();
  ImGui::SameLine();
  vis::draw_heat_legend("##leg_p", pr.lo, pr.hi, "p", &fmt3, ImVec2(legend_w, side));
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped(
      "rows: query positions 0..%d (top to bottom); columns: key positions "
      "0..%d; hatched: removed by the causal%s mask",
      st.tokens - 1, st.tokens - 1, st.window > 0 ? " and window" : "");
  ImGui::PopStyleColor();
}

// Small probability maps of every query head, grouped by the kv head they share.
void draw_grouping(App& app) {
  AttentionViewState& st = app.attention;
  const std::size_t n = static_cast<std::size_t>(st.tokens) * static_cast<std::size_t>(st.tokens);
  const int g = std::max(1, st.q_heads / std::max(1, st.kv_heads));  // of the heads drawn
  const float thumb = ImGui::GetFontSize() * 2.6f;
  const attn::LayerShape full = app.model.layer_shape(st.layer);
  const int g_full = std::max(1, full.group_size());  // of the model (not of the first heads)
  ImGui::Text("Head grouping: %d query heads read %d kv head%s (G = %d)", full.q_heads,
              full.kv_heads, full.kv_heads == 1 ? "" : "s", g_full);
  if (full.q_heads > st.q_heads) {
    ImGui::SameLine();
    ImGui::TextDisabled("(showing the first %d query heads)", st.q_heads);
  }
  ImGui::SameLine();
  vis::help_marker(
      "Each frame colour is one kv head; the query heads inside it read the same K and V "
      "(HF repeat_kv: head h reads kv head h / G). MHA: one query head per colour; MQA: one "
      "colour for all; MLA: every head reads the one shared latent. Click a map to show it "
      "large.");
  // Whole groups per line when they fit (a group wider than the line wraps inside itself).
  const float avail = ImGui::GetContentRegionAvail().x;
  const float gap = 6.0f, group_gap = 16.0f;
  const float group_w = static_cast<float>(g) * (thumb + gap);
  float x = 0;
  for (int h = 0; h < st.q_heads; ++h) {
    const int kvh = h / g;
    vis::HeatmapSpec s;
    s.rows = s.cols = st.tokens;
    s.values = st.result.probs.data.data() + static_cast<std::size_t>(h) * n;
    s.masked = st.masked.data() + static_cast<std::size_t>(h) * n;
    head_range(st, st.result.probs.data, h, true, &s.lo, &s.hi);
    s.lo = 0;
    s.frame = vis::kv_head_color(kvh, st.kv_heads);
    s.value_name = "p";
    s.max_cells = 12;  // a thumbnail: 12 x 12 blocks keep 64 maps within one draw list
    if (h > 0) {
      const bool group_start = h % g == 0;
      const float need = group_start ? group_gap + std::min(group_w, avail) : thumb + gap;
      if (x + need <= avail) {
        ImGui::SameLine(0, group_start ? group_gap : gap);
        x += group_start ? group_gap : gap;
      } else {
        x = 0;
      }
    }
    ImGui::PushID(h);
    if (vis::draw_heatmap("##t", s, ImVec2(thumb, thumb), false)) {
      ImGui::SetTooltip("query head %d reads kv head %d", h, kvh);
      if (ImGui::IsMouseClicked(0)) st.head = h;
    }
    ImGui::PopID();
    x += thumb;
  }
}

}  // namespace

void draw_attention_panel(App& app) {
  AttentionViewState& st = app.attention;
  if (!ImGui::Begin(panel_info(PanelId::kAttention).title, &app.shown(PanelId::kAttention))) {
    ImGui::End();
    return;
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  ImGui::SliderInt("T = S tokens", &st.tokens, 4, 64);
  ImGui::SameLine();
  vis::help_marker(
      "A short prefill: T query tokens attend causally to the same S = T keys. The matrices come "
      "from the CPU reference (attn::prefill_grouped) with q, k, v drawn from N(0, 1) with the "
      "seed; they change only when the model, variant, window or these settings change.");
  ImGui::SameLine();
  int seed = static_cast<int>(st.seed);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
  if (ImGui::InputInt("seed", &seed)) st.seed = static_cast<unsigned>(std::max(0, seed));
  if (app.model.num_layers > 1) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    ImGui::SliderInt("layer", &st.layer, 0, app.model.num_layers - 1);
  }
  recompute(app);
  if (!st.error.empty()) {
    vis::error_text("cannot compute the pattern: " + st.error);
    ImGui::End();
    return;
  }
  if (st.result.scores.data.empty()) {
    ImGui::End();
    return;
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  ImGui::SliderInt("query head", &st.head, 0, st.q_heads - 1);
  st.head = std::clamp(st.head, 0, st.q_heads - 1);
  ImGui::SameLine();
  const attn::LayerShape l = app.model.layer_shape(st.layer);
  ImGui::TextDisabled("layer %d: %s, Hq %d, Hkv %d, D %d", st.layer,
                      std::string(attn::variant_name(l.variant)).c_str(), l.q_heads, l.kv_heads,
                      l.head_dim);
  if (l.window > 0) {
    if (st.window_from_model) {
      ImGui::TextDisabled("sliding layer, window W = %d (the model's)", st.window);
    } else {
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
      ImGui::SliderInt("W for the picture", &st.picture_window, 1, st.tokens);
      ImGui::SameLine();
      ImGui::TextDisabled(
          "the model's W = %d exceeds these %d tokens; the picture uses W = %d "
          "to show the shape of the mask",
          l.window, st.tokens, st.window);
    }
  } else {
    ImGui::TextDisabled("full attention layer: causal mask only");
  }
  // Two maps and two legends across; leave room below for the head grouping.
  const float legend_w = ImGui::GetFontSize() * 5;
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float across = (ImGui::GetContentRegionAvail().x - 2 * legend_w - 4 * spacing) / 2;
  const float down = ImGui::GetContentRegionAvail().y * 0.55f;
  const float side = std::clamp(std::min(across, down), 100.0f, 420.0f);
  draw_head_pair(app, side);
  ImGui::Separator();
  draw_grouping(app);
  ImGui::End();
}

}  // namespace app
