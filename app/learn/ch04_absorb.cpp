// Chapter 4, absorb: q_nope . (W_UK c) = (W_UK^T q_nope) . c moves W_UK from the cache side to
// the query side; why RoPE's R(pos) between them does not fold; when the naive form wins.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/learn/lesson_util.h"
#include "app/learn/lesson_widgets.h"
#include "app/style.h"
#include "attention/cost.h"
#include "attention/units.h"

namespace app::learn {
namespace {

struct Figures {
  const attn::ModelConfig* m = nullptr;
  double naive = 0, absorbed = 0;     // one decode step, one layer, at S
  double rebuild = 0;                 // the naive step's K, V rebuild part
  double pre_naive = 0, pre_abs = 0;  // a prefill of S tokens, one layer
};

Figures figures(const Lesson& l) {
  Figures f;
  f.m = mla_model(l);
  if (!f.m) return f;
  const attn::ModelConfig& m = *f.m;
  const attn::LayerShape layer = full_layer(m);
  const std::int64_t s = l.ctl->seq;
  f.naive = attn::decode_cost(layer, 1, s, l.ctl->dtype, attn::MlaForm::kNaive, &m).flops;
  f.absorbed = attn::decode_cost(layer, 1, s, l.ctl->dtype, attn::MlaForm::kAbsorbed, &m).flops;
  f.rebuild =
      2.0 * static_cast<double>(s) * m.q_heads * (m.qk_nope_dim + m.value_dim) * m.latent_dim;
  f.pre_naive = attn::mla_multi_token_flops(m, s, 0, attn::MlaForm::kNaive);
  f.pre_abs = attn::mla_multi_token_flops(m, s, 0, attn::MlaForm::kAbsorbed);
  return f;
}

std::string percent(double fraction) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", 100.0 * fraction);
  return b;
}

BeatText text(const Lesson& l) {
  const Figures f = figures(l);
  BeatText t;
  if (!f.m) {
    t.title = "no MLA model";
    t.caption = "This build has no DeepSeek-V3 preset; import an MLA config.json to see it.";
    return t;
  }
  const attn::ModelConfig& m = *f.m;
  const std::string S = attn::format_tokens(static_cast<double>(l.ctl->seq));
  t.numbers = {{"model", name_of(m)},
               {"H / Dn / Dr / Dv / Dl",
                std::to_string(m.q_heads) + " / " + std::to_string(m.qk_nope_dim) + " / " +
                    std::to_string(m.rope_dim) + " / " + std::to_string(m.value_dim) + " / " +
                    std::to_string(m.latent_dim)},
               {"decode step, naive (1 layer)", attn::format_flops(f.naive)},
               {"of which K, V rebuild", attn::format_flops(f.rebuild)},
               {"decode step, absorbed", attn::format_flops(f.absorbed)},
               {"prefill of " + S + ", naive", attn::format_flops(f.pre_naive)},
               {"prefill of " + S + ", absorbed", attn::format_flops(f.pre_abs)}};
  switch (l.beat) {
    case 0:
      t.title = "naive";
      t.caption =
          "Read literally, attention needs every head's keys: K = W_UK c, rebuilt from the "
          "cache for all S cached tokens at every step. At S = " +
          S +
          " one layer's step "
          "costs " +
          attn::format_flops(f.naive) + ", " + percent(f.rebuild / f.naive) +
          " of it rebuilding K and V.";
      break;
    case 1:
      t.title = "regroup";
      t.caption =
          "Matrix products regroup: q_nope \u00b7 (W_UK c) = (W_UK^T q_nope) \u00b7 c. Fold W_UK "
          "into the query once per step (a " +
          std::to_string(m.latent_dim) +
          "-wide query per head) and every head reads the latent rows as they are: " +
          attn::format_flops(f.absorbed) + " instead of " + attn::format_flops(f.naive) + ".";
      break;
    case 2:
      t.title = "RoPE does not fold";
      t.caption =
          "RoPE rotates q and k by their positions, R(i) and R(j). That rotation sits "
          "between W_UK and c and changes with every token, so no fixed matrix can absorb "
          "it: MLA keeps a separate " +
          std::to_string(m.rope_dim) +
          "-wide RoPE key shared by all heads, and the absorbed query is " +
          std::to_string(m.latent_dim) + " + " + std::to_string(m.rope_dim) + " wide.";
      break;
    default:
      t.title = "when naive wins";
      t.caption = "Decode takes one token, so the absorbed form wins " +
                  attn::format_ratio(f.naive / f.absorbed) + ". A prefill of " + S +
                  " tokens rebuilds each K, V row once and reuses it for every later query "
                  "(causal): naive " +
                  attn::format_flops(f.pre_naive) + " against absorbed " +
                  attn::format_flops(f.pre_abs) + ", so prefill runs naive.";
      break;
  }
  return t;
}

WorkbenchSetup setup(const Lesson& l) {
  WorkbenchSetup s;
  const Figures f = figures(l);
  if (f.m && f.m != l.model) s.preset = f.m->name;
  s.seq = l.ctl->seq;
  s.dtype = l.ctl->dtype;
  s.focus = PanelId::kDataFlow;
  return s;
}

void controls(LessonControls& c, const Lesson&) {
  seq_slider(c, 10, 17);
  ImGui::NewLine();
}

// A labelled operand box: name inside, shape under it.
void operand(ImDrawList* dl, ImVec2 at, float w, float h, vis::Concept c, const std::string& name,
             const std::string& shape, float alpha) {
  vis::matrix(dl, fonts().caption, at, w, h, vis::concept_color(c), name, shape, alpha);
}

void draw(const Lesson& l, const Canvas& cv) {
  const Figures f = figures(l);
  if (!f.m) return;
  const attn::ModelConfig& m = *f.m;
  ImDrawList* dl = cv.dl;
  ImFont* cap = fonts().caption;
  const ImU32 ink = vis::concept_color(vis::Concept::kInk);
  const float beat = static_cast<float>(l.beat) + l.t;
  if (l.beat <= 2) {
    // Three rows, read top to bottom: the naive product, the regrouped one, the RoPE part.
    ImFont* big = fonts().title;
    const float h = cv.size.y;
    const float bh = h * 0.15f;
    const float ys[] = {cv.p0.y + h * 0.1f, cv.p0.y + h * 0.42f, cv.p0.y + h * 0.74f};
    const float xa = cv.p0.x + cv.size.x * 0.04f;
    const auto op = [&](float x, float y, const char* t, float a) {
      vis::text_at(dl, big, ImVec2(x, y + bh / 2 - 18), vis::with_alpha(ink, a), t,
                   vis::Align::kCenter);
    };
    const auto flops_note = [&](float y, const std::string& t, float a) {
      vis::text_at(dl, cap, ImVec2(cv.p0.x + cv.size.x * 0.70f, y + bh / 2 - 12),
                   vis::concept_color(vis::Concept::kCompute, a), t);
    };
    const std::string hs = std::to_string(m.q_heads), dn = std::to_string(m.qk_nope_dim),
                      dls = std::to_string(m.latent_dim);
    // Row 1, naive: q_nope . (W_UK c) = K per head, rebuilt every step.
    const float move = l.beat == 0 ? 0.0f : (l.beat == 1 ? vis::phase(beat, 1.0f, 1.9f) : 1.0f);
    const float r1 = l.beat == 0 ? vis::phase(beat, 0.0f, 0.5f) : vis::mix(1.0f, 0.35f, move);
    operand(dl, ImVec2(xa, ys[0]), 60, bh, vis::Concept::kQuery, "q_nope", hs + " x " + dn, r1);
    op(xa + 84, ys[0], "\u00b7", r1);
    op(xa + 104, ys[0], "(", r1);
    const ImVec2 uk1(xa + 120, ys[0]), uk2(xa + 16, ys[1]);
    operand(dl, ImVec2(xa + 210, ys[0]), 140, bh, vis::Concept::kLatent, "c", "S x " + dls, r1);
    op(xa + 370, ys[0], ")", r1);
    // The rebuilt K: one sheet per head, S rows each.
    const float k_alpha = r1 * (l.beat == 0 ? vis::phase(beat, 0.3f, 0.9f) : 1.0f - move);
    op(xa + 392, ys[0], "=", k_alpha);
    for (int k = 0; k < 12; ++k)
      vis::block(
          dl, ImVec2(xa + 420 + static_cast<float>(k) * 8, ys[0] + static_cast<float>(k) * 3),
          ImVec2(xa + 520 + static_cast<float>(k) * 8, ys[0] + static_cast<float>(k) * 3 + bh),
          vis::concept_color(vis::Concept::kKey), k_alpha * 0.5f);
    vis::text_at(dl, nullptr, ImVec2(xa + 470, ys[0] + bh + 40),
                 vis::concept_color(vis::Concept::kBytes, k_alpha),
                 "K for all " + hs + " heads, rebuilt every step", vis::Align::kCenter);
    flops_note(ys[0], "naive: " + attn::format_flops(f.naive) + " a step", r1);
    // W_UK travels from the cache side (row 1) to the query side (row 2).
    operand(dl, vis::mix(uk1, uk2, move), 70, bh, vis::Concept::kKey,
            move > 0.5f ? "W_UK^T" : "W_UK", dls + " x " + dn, std::max(r1, move));
    if (l.beat >= 1) {
      // Row 2, absorbed: (W_UK^T q_nope) . c.
      const float a = vis::phase(beat, 1.5f, 2.0f) + (l.beat == 2 ? 1.0f : 0.0f);
      operand(dl, ImVec2(xa + 100, ys[1]), 60, bh, vis::Concept::kQuery, "q_nope", hs + " x " + dn,
              std::min(a, 1.0f));
      op(xa + 184, ys[1], "=", std::min(a, 1.0f));
      operand(dl, ImVec2(xa + 204, ys[1]), 90, bh, vis::Concept::kQuery, "q_lat", hs + " x " + dls,
              std::min(a, 1.0f));
      op(xa + 318, ys[1], "\u00b7", std::min(a, 1.0f));
      operand(dl, ImVec2(xa + 340, ys[1]), 140, bh, vis::Concept::kLatent, "c", "S x " + dls,
              std::min(a, 1.0f));
      flops_note(ys[1], "absorbed: " + attn::format_flops(f.absorbed) + " a step",
                 std::min(a, 1.0f));
      vis::text_at(dl, nullptr, ImVec2(xa + 250, ys[1] + bh + 22),
                   vis::with_alpha(ink, std::min(a, 1.0f)),
                   "W_UK applied once per step, to the query", vis::Align::kCenter);
    }
    if (l.beat >= 2) {
      // Row 3, the RoPE part: q_rope . R(j - i) . k_rope; R changes with every cached token j.
      const float a = vis::phase(beat, 2.0f, 2.6f);
      const std::string dr = std::to_string(m.rope_dim);
      operand(dl, ImVec2(xa + 100, ys[2]), 40, bh, vis::Concept::kRope, "q_rope", hs + " x " + dr,
              a);
      op(xa + 162, ys[2], "\u00b7", a);
      operand(dl, ImVec2(xa + 182, ys[2]), 70, bh, vis::Concept::kRope, "R(j-i)", "per token j", a);
      op(xa + 274, ys[2], "\u00b7", a);
      operand(dl, ImVec2(xa + 294, ys[2]), 40, bh, vis::Concept::kRope, "k_rope", "S x " + dr, a);
      const ImU32 red = vis::concept_color(vis::Concept::kBytes, a);
      const ImVec2 from(xa + 217, ys[2] - 4), to(xa + 40, ys[1] + bh + 26);
      vis::arrow(dl, from, to, red, a, 1.5f);
      const ImVec2 mid = vis::mix(from, to, 0.5f);
      dl->AddLine(ImVec2(mid.x - 9, mid.y - 9), ImVec2(mid.x + 9, mid.y + 9), red, 3);
      dl->AddLine(ImVec2(mid.x - 9, mid.y + 9), ImVec2(mid.x + 9, mid.y - 9), red, 3);
      vis::text_at(dl, nullptr, ImVec2(mid.x + 14, mid.y - 8), red,
                   "no fixed matrix: cannot fold into W_UK^T");
      flops_note(ys[2], "kept apart: " + dr + " wide, one key for all heads", a);
    }
    return;
  }
  // Beat 4: FLOPs of decode and prefill, naive against absorbed, on log-free bars per pair.
  const float a = vis::phase(beat, 3.0f, 3.6f);
  struct Pair {
    const char* name;
    double naive, absorbed;
  } pairs[] = {{"decode, 1 new token", f.naive, f.absorbed},
               {"prefill of S tokens", f.pre_naive, f.pre_abs}};
  const float x0 = cv.p0.x + cv.size.x * 0.08f, w = cv.size.x * 0.6f;
  for (int i = 0; i < 2; ++i) {
    const float py = cv.p0.y + cv.size.y * (0.16f + 0.4f * static_cast<float>(i));
    const double top = std::max(pairs[i].naive, pairs[i].absorbed);
    vis::text_at(dl, cap, ImVec2(x0, py), ink, pairs[i].name);
    const double v[] = {pairs[i].naive, pairs[i].absorbed};
    const char* n[] = {"naive", "absorbed"};
    for (int k = 0; k < 2; ++k) {
      const float by = py + 34 + static_cast<float>(k) * 40;
      const float bw = w * static_cast<float>(v[k] / top) * a;
      dl->AddRectFilled(ImVec2(x0 + 90, by), ImVec2(x0 + 90 + std::max(2.0f, bw), by + 26),
                        vis::concept_color(vis::Concept::kCompute, k == 0 ? 0.55f : 1.0f));
      vis::text_at(dl, nullptr, ImVec2(x0, by + 5), ink, n[k]);
      vis::text_at(dl, nullptr, ImVec2(x0 + 100 + std::max(2.0f, bw), by + 5), ink,
                   attn::format_flops(v[k]));
    }
  }
}

}  // namespace

const Chapter& chapter_absorb() {
  static const Chapter c{
      "Absorb", "How does MLA attend without rebuilding keys?", 4, text, setup, controls, draw};
  return c;
}

}  // namespace app::learn
