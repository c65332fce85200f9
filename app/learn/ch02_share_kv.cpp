// Chapter 2, share keys and values: MHA's kv head per query head merges into GQA's groups and
// MQA's single head; the tape and the bytes read per step shrink by the group size.
#include <algorithm>
#include <cmath>

#include "app/learn/lesson_util.h"
#include "app/learn/lesson_widgets.h"
#include "app/style.h"
#include "attention/cost.h"
#include "attention/units.h"
#include "visuals/widgets.h"

namespace app::learn {
namespace {

// The grouped model this chapter reshapes: the user's, or Llama-3-8B when the user's is MLA.
const attn::ModelConfig* grouped_model(const Lesson& l) {
  if (l.model->variant != attn::Variant::kMla) return l.model;
  static const std::optional<attn::ModelConfig> k = preset("llama-3-8b");
  return k ? &*k : l.model;
}

struct Figures {
  const attn::ModelConfig* model = nullptr;
  int hq = 0, hkv = 1, d = 0;
  double mha = 0, gqa = 0, mqa = 0;  // cache bytes at S, all layers
  double flops = 0;                  // per step, all layers (the same for all three)
};

Figures figures(const Lesson& l) {
  Figures f;
  f.model = grouped_model(l);
  const attn::LayerShape layer = full_layer(*f.model);
  f.hq = layer.q_heads;
  f.d = layer.head_dim;
  f.hkv = std::clamp(l.ctl->kv_heads, 1, f.hq);
  while (f.hq % f.hkv != 0) --f.hkv;
  const auto cache = [&](attn::Variant v, int kv) {
    const auto m = as_variant(*f.model, v, kv);
    return m ? static_cast<double>(cache_bytes(*m, l.ctl->seq, l.ctl->dtype)) : 0.0;
  };
  f.mha = cache(attn::Variant::kMha, 0);
  f.gqa = f.hkv == f.hq ? f.mha : cache(attn::Variant::kGqa, f.hkv);
  f.mqa = cache(attn::Variant::kMqa, 0);
  if (const auto m = as_variant(*f.model, attn::Variant::kMha, 0))
    f.flops = attn::decode_cost_model(*m, 1, l.ctl->seq, l.ctl->dtype).flops;
  return f;
}

BeatText text(const Lesson& l) {
  const Figures f = figures(l);
  const int g = f.hq / f.hkv;
  const std::string S = attn::format_tokens(static_cast<double>(l.ctl->seq));
  BeatText t;
  t.numbers = {{"model", name_of(*f.model)},
               {"query heads Hq", std::to_string(f.hq)},
               {"GQA kv heads Hkv", std::to_string(f.hkv) + " (G = " + std::to_string(g) + ")"},
               {"MHA cache at S = " + S, attn::format_bytes(f.mha)},
               {"GQA cache", attn::format_bytes(f.gqa)},
               {"MQA cache", attn::format_bytes(f.mqa)},
               {"FLOPs per step, all layers", attn::format_flops(f.flops)}};
  switch (l.beat) {
    case 0:
      t.title = "MHA";
      t.caption = "In multi-head attention (MHA) each of the " + std::to_string(f.hq) +
                  " query heads has a key and a value head of its own. At S = " + S + " the " +
                  name_of(*f.model) + " cache would hold " + attn::format_bytes(f.mha) +
                  ", and every step reads all of it.";
      break;
    case 1:
      t.title = "GQA";
      t.caption = "Grouped-query attention (GQA) lets G = " + std::to_string(g) +
                  " query heads share one kv head: " + std::to_string(f.hkv) +
                  " K and V columns instead of " + std::to_string(f.hq) +
                  ". The tape and the bytes read per step shrink " + std::to_string(g) +
                  "-fold, to " + attn::format_bytes(f.gqa) + ".";
      break;
    case 2:
      t.title = "MQA";
      t.caption = "Multi-query attention (MQA) goes all the way: one kv head for all " +
                  std::to_string(f.hq) + " query heads, a cache of " + attn::format_bytes(f.mqa) +
                  ", " + std::to_string(f.hq) + "x less than MHA.";
      break;
    default:
      t.title = "the trade";
      t.caption = "Each row read now serves G query heads: bytes per step fall G-fold (" +
                  attn::format_bytes(f.mha) + ", " + attn::format_bytes(f.gqa) + ", " +
                  attn::format_bytes(f.mqa) + ") while the FLOPs stay " +
                  attn::format_flops(f.flops) +
                  ". The price is fewer distinct keys and values to attend with, which costs "
                  "quality: GQA's group size is the middle ground most models pick.";
      break;
  }
  return t;
}

WorkbenchSetup setup(const Lesson& l) {
  const Figures f = figures(l);
  WorkbenchSetup s;
  if (f.model != l.model) s.preset = f.model->name;
  s.variant = l.beat == 0 ? "mha" : l.beat == 2 ? "mqa" : "gqa";
  s.kv_heads = f.hkv;
  s.seq = l.ctl->seq;
  s.dtype = l.ctl->dtype;
  s.focus = PanelId::kKvCache;
  return s;
}

void controls(LessonControls& c, const Lesson& l) {
  kv_heads_slider(c, full_layer(*grouped_model(l)).q_heads);
  seq_slider(c);
  dtype_radio(c);
  ImGui::NewLine();
}

// Hq columns of K then Hq of V, each of width D / G_now (G_now easing from 1 to G): merged
// query heads' columns squeeze into their group's one column.
std::vector<vis::TapeColumn> morph_columns(int hq, int d, float g_now, int hkv) {
  std::vector<vis::TapeColumn> cols;
  const int g = hq / hkv;
  for (int kind = 0; kind < 2; ++kind)
    for (int h = 0; h < hq; ++h)
      cols.push_back({static_cast<float>(d) / g_now,
                      kind == 0 ? vis::Concept::kKey : vis::Concept::kValue,
                      vis::kv_head_color(h / g, hkv), ""});
  return cols;
}

void draw(const Lesson& l, const Canvas& cv) {
  const Figures f = figures(l);
  ImDrawList* dl = cv.dl;
  ImFont* cap = fonts().caption;
  const float beat = static_cast<float>(l.beat) + l.t;
  // Which merge is on screen: none (MHA), to Hkv (GQA), to 1 (MQA).
  int target = f.hq;
  float g_now = 1;
  if (l.beat == 1 || l.beat == 3) {
    target = f.hkv;
    g_now = vis::mix(1.0f, static_cast<float>(f.hq / f.hkv),
                     l.beat == 1 ? vis::phase(beat, 1.0f, 1.8f) : 1.0f);
  } else if (l.beat == 2) {
    target = 1;
    g_now = vis::mix(static_cast<float>(f.hq / f.hkv), static_cast<float>(f.hq),
                     vis::phase(beat, 2.0f, 2.8f));
  }
  // Query heads on the left, coloured by the kv head they read.
  const int g = f.hq / target;
  std::vector<ImU32> qcol;
  for (int h = 0; h < f.hq; ++h) qcol.push_back(vis::kv_head_color(h / g, target));
  std::vector<ImVec2> qc;
  const ImVec2 q_at = cv.at(0.05f, 0.14f);
  vis::head_stack(dl, cap, q_at, 18, cv.size.y * 0.66f, f.hq, vis::Concept::kQuery, qcol, "q heads",
                  1.0f, &qc);
  // The tape, at the MHA width's scale for every beat (so it visibly shrinks).
  const float mha_elements = 2.0f * static_cast<float>(f.hq * f.d);
  vis::TapeStyle st;
  st.px_per_element = cv.size.x * 0.44f / mha_elements;  // MHA's tape ends before the bars
  st.height = cv.size.y * 0.66f;
  st.rows_drawn = 12;
  const ImVec2 tape_at = cv.at(0.20f, 0.14f);
  // While merging: every query head's column squeezes; once merged: the real tape of Hkv heads.
  const bool merged = g_now >= static_cast<float>(g) - 1e-3f;
  std::vector<vis::TapeColumn> cols;
  if (merged) {
    attn::LayerShape x = full_layer(*f.model);
    x.kv_heads = target;
    cols = tape_columns(x);
    for (vis::TapeColumn& c : cols) c.label.clear();
  } else {
    cols = morph_columns(f.hq, f.d, g_now, target);
  }
  const ImVec2 end = vis::draw_tape(dl, nullptr, tape_at, cols, st);
  // Each query head points at the column of its kv head's K.
  const float k_w = static_cast<float>(f.hq) * static_cast<float>(f.d) / g_now * st.px_per_element;
  for (int h = 0; h < f.hq; h += std::max(1, f.hq / 16)) {
    const int kv = h / g;
    const float x = tape_at.x + k_w * (static_cast<float>(kv) + 0.5f) / static_cast<float>(target);
    vis::arrow(dl, qc[static_cast<size_t>(h)], ImVec2(x, tape_at.y - 10),
               qcol[static_cast<size_t>(h)], 1.0f, 1.0f);
  }
  const std::string label = target == f.hq ? "MHA: " + std::to_string(f.hq) + " kv heads"
                            : target == 1  ? "MQA: 1 kv head"
                                           : "GQA: " + std::to_string(target) + " kv heads";
  vis::text_at(dl, cap, ImVec2(tape_at.x, tape_at.y - 56), vis::concept_color(vis::Concept::kInk),
               label);
  // The bytes counter: one bar per variant seen so far, on one scale.
  const float bx = std::max(end.x + 40, cv.p0.x + cv.size.x * 0.70f);
  const float bw = cv.p0.x + cv.size.x - 30 - bx;
  const double sizes[] = {f.mha, f.gqa, f.mqa};
  const char* names[] = {"MHA", "GQA", "MQA"};
  const int shown = l.beat >= 3 ? 3 : l.beat + 1;
  for (int i = 0; i < shown; ++i) {
    const float y = tape_at.y + static_cast<float>(i) * 70;
    const float frac = static_cast<float>(sizes[i] / std::max(1.0, f.mha));
    const ImU32 red = vis::concept_color(vis::Concept::kBytes);
    vis::text_at(dl, cap, ImVec2(bx, y), red,
                 std::string(names[i]) + ": " + attn::format_bytes(sizes[i]) + " a step");
    dl->AddRectFilled(ImVec2(bx, y + 28), ImVec2(bx + std::max(2.0f, bw * frac), y + 44), red);
  }
  if (l.beat >= 3) {
    const float y = tape_at.y + 230;
    const ImU32 pink = vis::concept_color(vis::Concept::kCompute);
    vis::text_at(dl, cap, ImVec2(bx, y), pink, "FLOPs: " + attn::format_flops(f.flops));
    dl->AddRectFilled(ImVec2(bx, y + 28), ImVec2(bx + bw, y + 44), pink);
    vis::text_at(dl, nullptr, ImVec2(bx, y + 50), IM_COL32(170, 170, 170, 255),
                 "the same for all three");
  }
}

}  // namespace

const Chapter& chapter_share_kv() {
  static const Chapter c{
      "Share keys and values", "What does GQA's group size trade?", 4, text, setup, controls, draw};
  return c;
}

}  // namespace app::learn
