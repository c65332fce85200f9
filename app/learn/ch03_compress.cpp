// Chapter 3, compress: MLA's cache keeps one latent row (Dl) and one decoupled RoPE key (Dr) per
// token instead of every head's keys and values; the ratio to MHA, and the matrices around it.
#include <algorithm>
#include <cmath>

#include "app/learn/lesson_util.h"
#include "app/learn/lesson_widgets.h"
#include "app/style.h"
#include "attention/units.h"

namespace app::learn {
namespace {

struct Figures {
  const attn::ModelConfig* m = nullptr;
  double mla_row = 0;     // bytes, one token, one layer
  double mha_row = 0;     // H heads of K and V, Dv wide each (the usual count)
  double mha192_row = 0;  // K as wide as the model's real keys (qk_nope + rope)
  double cache = 0, mha_cache = 0;
};

Figures figures(const Lesson& l) {
  Figures f;
  f.m = mla_model(l);
  if (!f.m) return f;
  const double b = attn::dtype_bytes_per_element(l.ctl->dtype);
  const attn::ModelConfig& m = *f.m;
  f.mla_row = static_cast<double>(attn::kv_bytes_per_token(full_layer(m), l.ctl->dtype));
  f.mha_row = b * 2.0 * m.q_heads * m.value_dim;
  f.mha192_row = b * m.q_heads * (m.qk_nope_dim + m.rope_dim + m.value_dim);
  f.cache = static_cast<double>(cache_bytes(m, l.ctl->seq, l.ctl->dtype));
  if (const auto mha = as_variant(m, attn::Variant::kMha))
    f.mha_cache = static_cast<double>(cache_bytes(*mha, l.ctl->seq, l.ctl->dtype));
  return f;
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
  const std::string r57 = attn::format_ratio(f.mha_row / f.mla_row);
  const std::string r71 = attn::format_ratio(f.mha192_row / f.mla_row);
  t.numbers = {
      {"model", name_of(m)},
      {"heads H", std::to_string(m.q_heads)},
      {"Dl / Dr", std::to_string(m.latent_dim) + " / " + std::to_string(m.rope_dim)},
      {"MLA row, one layer", attn::format_bytes(f.mla_row)},
      {"MHA row (K, V " + std::to_string(m.value_dim) + " wide)", attn::format_bytes(f.mha_row)},
      {"MHA row (K " + std::to_string(m.qk_nope_dim + m.rope_dim) + " wide)",
       attn::format_bytes(f.mha192_row)},
      {"ratios", r57 + ", " + r71},
      {"MLA cache at S = " + S, attn::format_bytes(f.cache)},
      {"MHA cache at S = " + S, attn::format_bytes(f.mha_cache)}};
  switch (l.beat) {
    case 0:
      t.title = "the MHA way";
      t.caption = name_of(m) + " has " + std::to_string(m.q_heads) +
                  " heads. Stored the MHA way, every token would leave " +
                  std::to_string(m.q_heads) + " keys and values of " + std::to_string(m.value_dim) +
                  " numbers: " + attn::format_bytes(f.mha_row) + " a row in every layer.";
      break;
    case 1:
      t.title = "one latent row";
      t.caption = "MLA keeps one latent vector c of Dl = " + std::to_string(m.latent_dim) +
                  " numbers per token, plus a RoPE key of Dr = " + std::to_string(m.rope_dim) +
                  " shared by all heads: " + attn::format_bytes(f.mla_row) + " a row, " + r57 +
                  " less than MHA with " + std::to_string(m.value_dim) + "-wide heads.";
      break;
    case 2:
      t.title = "against its real keys";
      t.caption = "Its real keys are " + std::to_string(m.qk_nope_dim) + " + " +
                  std::to_string(m.rope_dim) + " = " + std::to_string(m.qk_nope_dim + m.rope_dim) +
                  " wide, so against the MHA this model would need the cache is " + r71 +
                  " smaller. At S = " + S + ": " + attn::format_bytes(f.cache) + " instead of " +
                  attn::format_bytes(f.mha_cache) + ".";
      break;
    default:
      t.title = "the matrices";
      t.caption = "W_DKV (" + std::to_string(m.hidden_size) + " x " + std::to_string(m.latent_dim) +
                  ") compresses each token into c; W_UK and W_UV (" + std::to_string(m.latent_dim) +
                  " x " + std::to_string(m.q_heads) + " heads of " + std::to_string(m.qk_nope_dim) +
                  " and " + std::to_string(m.value_dim) +
                  ") expand c back into every head's key and value. Only c is cached; chapter 4 "
                  "shows how the expansion folds away.";
      break;
  }
  return t;
}

WorkbenchSetup setup(const Lesson& l) {
  WorkbenchSetup s;
  const Figures f = figures(l);
  if (f.m && f.m != l.model) s.preset = f.m->name;
  s.variant = l.beat == 0 ? "mha" : "";
  s.seq = l.ctl->seq;
  s.dtype = l.ctl->dtype;
  s.focus = l.beat == 3 ? PanelId::kDataFlow : PanelId::kKvCache;
  return s;
}

void controls(LessonControls& c, const Lesson&) {
  seq_slider(c);
  dtype_radio(c);
  ImGui::NewLine();
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
    // One scale for both tapes: the MHA tape (K as wide as the beat says) fills 80 %.
    const bool real_keys = l.beat == 2;
    const float k_w = static_cast<float>(real_keys ? m.qk_nope_dim + m.rope_dim : m.value_dim);
    const float mha_elements =
        static_cast<float>(m.q_heads) * (k_w + static_cast<float>(m.value_dim));
    vis::TapeStyle st;
    st.px_per_element = cv.size.x * 0.8f / mha_elements;
    st.height = cv.size.y * 0.30f;
    st.rows_drawn = 8;
    // MHA on top: fades to a ghost once the latent arrives.
    st.alpha = l.beat == 1 ? vis::mix(1.0f, 0.35f, vis::phase(beat, 1.0f, 1.6f))
                           : (l.beat == 2 ? 0.35f : vis::phase(beat, 0.0f, 0.6f));
    const ImVec2 mha_at = cv.at(0.08f, 0.14f);
    vis::draw_tape(dl, nullptr, mha_at, mha_columns_of_mla(m, !real_keys), st);
    vis::text_at(dl, cap, ImVec2(mha_at.x, mha_at.y - 40),
                 vis::with_alpha(ink, std::max(st.alpha, 0.6f)),
                 "MHA: " + std::to_string(m.q_heads) + " x (K " +
                     std::to_string(static_cast<int>(k_w)) + " + V " + std::to_string(m.value_dim) +
                     ") = " + attn::format_bytes(real_keys ? f.mha192_row : f.mha_row) + " a row");
    if (l.beat >= 1) {
      // The latent tape, on the same scale, growing in below it.
      vis::TapeStyle s2 = st;
      s2.alpha = vis::phase(beat, 1.3f, 1.9f);
      if (l.beat == 2) s2.alpha = 1;
      const ImVec2 at = cv.at(0.08f, 0.62f);
      vis::draw_tape(dl, nullptr, at, tape_columns(full_layer(m)), s2);
      vis::text_at(dl, cap, ImVec2(at.x, at.y - 40), vis::with_alpha(ink, s2.alpha),
                   "MLA: latent " + std::to_string(m.latent_dim) + " + RoPE " +
                       std::to_string(m.rope_dim) + " = " + attn::format_bytes(f.mla_row) +
                       " a row");
      const float w = static_cast<float>(m.latent_dim + m.rope_dim) * st.px_per_element;
      vis::text_at(
          dl, fonts().title, ImVec2(at.x + w + 30, at.y + 20),
          vis::concept_color(vis::Concept::kLatent, s2.alpha),
          attn::format_ratio((real_keys ? f.mha192_row : f.mha_row) / f.mla_row) + " smaller");
    }
    return;
  }
  // The matrices, to one scale: x -> W_DKV -> c (cached) -> W_UK / W_UV -> per-head K and V.
  // One scale: x's height fits the canvas, and so does the widest expansion matrix.
  const float wide =
      static_cast<float>(std::max(m.q_heads * m.qk_nope_dim, m.q_heads * m.value_dim));
  const float px =
      std::min(cv.size.y * 0.62f / static_cast<float>(m.hidden_size), cv.size.x * 0.6f / wide);
  const float a = vis::phase(beat, 3.0f, 3.6f);
  const float y0 = cv.p0.y + cv.size.y * 0.14f;
  const float x0 = cv.p0.x + cv.size.x * 0.06f;
  // x (a row of hidden_size) drawn as a column.
  vis::matrix(dl, cap, ImVec2(x0, y0), 14, static_cast<float>(m.hidden_size) * px, ink, "x",
              std::to_string(m.hidden_size), a);
  const float wx = x0 + 80;
  vis::matrix(dl, cap, ImVec2(wx, y0), static_cast<float>(m.latent_dim) * px,
              static_cast<float>(m.hidden_size) * px, vis::concept_color(vis::Concept::kLatent),
              "W_DKV", std::to_string(m.hidden_size) + " x " + std::to_string(m.latent_dim), a);
  const float cx = wx + static_cast<float>(m.latent_dim) * px + 90;
  const float a2 = vis::phase(beat, 3.3f, 3.9f);
  vis::matrix(dl, cap, ImVec2(cx, y0), 14, static_cast<float>(m.latent_dim) * px,
              vis::concept_color(vis::Concept::kLatent), "c",
              std::to_string(m.latent_dim) + " (cached)", a2);
  vis::arrow(dl, ImVec2(x0 + 16, y0 + 20), ImVec2(wx - 4, y0 + 20), ink, a);
  vis::arrow(dl, ImVec2(wx + static_cast<float>(m.latent_dim) * px + 4, y0 + 20),
             ImVec2(cx - 4, y0 + 20), vis::concept_color(vis::Concept::kLatent), a2);
  const float ux = cx + 110;
  const float a3 = vis::phase(beat, 3.5f, 4.0f);
  const float uk_w = static_cast<float>(m.q_heads * m.qk_nope_dim) * px;
  vis::matrix(dl, cap, ImVec2(ux, y0), uk_w, static_cast<float>(m.latent_dim) * px,
              vis::concept_color(vis::Concept::kKey), "W_UK",
              std::to_string(m.latent_dim) + " x " + std::to_string(m.q_heads) + "*" +
                  std::to_string(m.qk_nope_dim),
              a3);
  const float vy = y0 + static_cast<float>(m.latent_dim) * px + 70;
  vis::matrix(dl, cap, ImVec2(ux, vy), static_cast<float>(m.q_heads * m.value_dim) * px,
              static_cast<float>(m.latent_dim) * px, vis::concept_color(vis::Concept::kValue),
              "W_UV",
              std::to_string(m.latent_dim) + " x " + std::to_string(m.q_heads) + "*" +
                  std::to_string(m.value_dim),
              a3);
  vis::arrow(dl, ImVec2(cx + 16, y0 + 10), ImVec2(ux - 4, y0 + 10),
             vis::concept_color(vis::Concept::kKey), a3);
  vis::arrow(dl, ImVec2(cx + 16, y0 + 30), ImVec2(ux - 4, vy + 10),
             vis::concept_color(vis::Concept::kValue), a3);
  vis::text_at(dl, cap, ImVec2(ux + uk_w / 2, y0 + static_cast<float>(m.latent_dim) * px + 24),
               vis::concept_color(vis::Concept::kKey, a3), "-> K for every head, rebuilt from c",
               vis::Align::kCenter);
}

}  // namespace

const Chapter& chapter_compress() {
  static const Chapter c{"Compress", "Why is MLA's cache so small?", 4, text, setup, controls,
                         draw};
  return c;
}

}  // namespace app::learn
