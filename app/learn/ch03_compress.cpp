// Chapter 3, compress: MLA's cache keeps one latent row (Dl) and one decoupled RoPE key (Dr) per
// token instead of every head's keys and values; the ratio to MHA, the matrices around it, and
// the row stored in 4 bits as AMD's MI355X problem stores it (mxfp4).
#include <algorithm>
#include <cmath>
#include <cstdio>

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

// One token's latent row in each storage (one layer): bytes from attention/'s KV accounting.
struct StorageRow {
  int elements = 0;                     // Dl + Dr
  double bf16 = 0, fp8 = 0, mxfp4 = 0;  // bytes a row
  double values = 0, scales = 0;        // mxfp4's E2M1 bytes and E8M0 scale bytes
};

StorageRow storage_row(const attn::ModelConfig& m) {
  StorageRow r;
  const attn::LayerShape layer = full_layer(m);
  r.elements = m.latent_dim + m.rope_dim;
  r.bf16 = static_cast<double>(attn::kv_bytes_per_token(layer, attn::DType::kBf16));
  r.fp8 = static_cast<double>(attn::kv_bytes_per_token(layer, attn::DType::kFp8));
  r.mxfp4 = static_cast<double>(attn::kv_bytes_per_token(layer, attn::DType::kMxfp4));
  r.values = r.elements / 2.0;
  r.scales = r.mxfp4 - r.values;
  return r;
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
    case 3: {
      t.title = "four bits a number";
      const StorageRow r = storage_row(m);
      t.numbers.push_back({"row in bf16 / fp8 / mxfp4", attn::format_bytes(r.bf16) + " / " +
                                                            attn::format_bytes(r.fp8) + " / " +
                                                            attn::format_bytes(r.mxfp4)});
      t.caption =
          "AMD's MI355X problem stores this row as mxfp4: 4-bit numbers, two a byte, and "
          "one power-of-two scale byte for each block of 32. The " +
          std::to_string(r.elements) + " numbers take " + attn::format_bytes(r.values) + " + " +
          attn::format_bytes(r.scales) + " = " + attn::format_bytes(r.mxfp4) + ", " +
          attn::format_ratio(r.bf16 / r.mxfp4) + " less than bf16's " + attn::format_bytes(r.bf16) +
          ". A number is its 4-bit value times 2^(s - 127), which the GPU kernel turns "
          "back into bf16 exactly.";
      break;
    }
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
  s.focus = l.beat == 4 ? PanelId::kDataFlow : PanelId::kKvCache;
  if (l.beat == 3) s.dtype = attn::DType::kMxfp4;
  return s;
}

void controls(LessonControls& c, const Lesson& l) {
  seq_slider(c);
  if (l.beat != 3) dtype_radio(c);  // beat 3 shows every storage at once
  ImGui::NewLine();
}

// Beat 3: the row in three storages to one scale of bytes, then one mxfp4 block enlarged: 16
// bytes of two 4-bit codes and the scale byte they share.
void draw_storage(const Lesson& l, const Canvas& cv, const attn::ModelConfig& m) {
  ImDrawList* dl = cv.dl;
  ImFont* cap = fonts().caption;
  const ImU32 ink = vis::concept_color(vis::Concept::kInk);
  const float beat = static_cast<float>(l.beat) + l.t;
  const StorageRow r = storage_row(m);
  const float x0 = cv.p0.x + cv.size.x * 0.18f;
  const float px = cv.size.x * 0.6f / static_cast<float>(r.bf16);  // px a byte
  const float h = cv.size.y * 0.07f;
  const ImU32 scale_col = vis::concept_color(vis::Concept::kBytes);
  struct Bar {
    const char* name;
    double bytes;
  };
  const Bar bars[] = {{"bf16", r.bf16}, {"fp8 e4m3", r.fp8}, {"mxfp4", r.mxfp4}};
  float mx_y = 0;
  for (int i = 0; i < 3; ++i) {
    const float a = vis::phase(beat, 3.0f + 0.15f * static_cast<float>(i),
                               3.35f + 0.15f * static_cast<float>(i));
    const float y = cv.p0.y + cv.size.y * (0.06f + 0.12f * static_cast<float>(i));
    vis::text_at(dl, cap, ImVec2(x0 - 14, y + h / 2 - 11), vis::with_alpha(ink, a), bars[i].name,
                 vis::Align::kRight);
    const float w = static_cast<float>(bars[i].bytes) * px;
    if (i < 2) {
      vis::block(dl, ImVec2(x0, y), ImVec2(x0 + w, y + h),
                 vis::concept_color(vis::Concept::kLatent), a);
      vis::text_at(dl, cap, ImVec2(x0 + w + 12, y + h / 2 - 11), vis::with_alpha(ink, a),
                   attn::format_bytes(bars[i].bytes));
    } else {
      mx_y = y;
      const float wv = static_cast<float>(r.values) * px;
      vis::block(dl, ImVec2(x0, y), ImVec2(x0 + wv, y + h),
                 vis::concept_color(vis::Concept::kLatent), a);
      vis::block(dl, ImVec2(x0 + wv + 2, y), ImVec2(x0 + w + 2, y + h), scale_col, a);
      vis::text_at(dl, cap, ImVec2(x0 + w + 14, y + h / 2 - 11), vis::with_alpha(ink, a),
                   attn::format_bytes(r.values) + " + " + attn::format_bytes(r.scales) +
                       " of scales = " + attn::format_bytes(bars[i].bytes));
    }
  }
  // The first block of the mxfp4 row, enlarged: 16 value bytes and its scale byte.
  const float a = vis::phase(beat, 3.45f, 3.9f);
  if (a <= 0) return;
  const float cw = cv.size.x * 0.6f / 17.5f;  // one byte cell
  const float zy = cv.p0.y + cv.size.y * 0.56f, zh = cv.size.y * 0.13f;
  const ImU32 edge = vis::with_alpha(ink, 0.5f * a);
  dl->AddRect(ImVec2(x0 - 1, mx_y - 3), ImVec2(x0 + 16 * px + 1, mx_y + h + 3), edge);
  dl->AddLine(ImVec2(x0, mx_y + h + 3), ImVec2(x0, zy - 48), edge);
  dl->AddLine(ImVec2(x0 + 16 * px, mx_y + h + 3), ImVec2(x0 + 16 * cw, zy - 48), edge);
  vis::text_at(dl, cap, ImVec2(x0, zy - 40), vis::with_alpha(ink, a),
               "one block: 32 numbers in 16 bytes, two 4-bit codes a byte (the even one in the low "
               "4 bits), and the block's scale byte s");
  for (int b = 0; b < 16; ++b) {
    const float bx = x0 + static_cast<float>(b) * cw;
    vis::block(dl, ImVec2(bx + 1, zy), ImVec2(bx + cw - 1, zy + zh),
               vis::concept_color(vis::Concept::kLatent), a);
    dl->AddLine(ImVec2(bx + cw / 2, zy + 4), ImVec2(bx + cw / 2, zy + zh - 4),
                vis::with_alpha(ink, 0.6f * a));
    for (int half = 0; half < 2; ++half)
      vis::text_at(dl, cap,
                   ImVec2(bx + cw * (0.25f + 0.5f * static_cast<float>(half)), zy + zh / 2 - 11),
                   vis::with_alpha(ink, a), std::to_string(2 * b + half), vis::Align::kCenter);
  }
  const float sx = x0 + 16.5f * cw;
  vis::block(dl, ImVec2(sx, zy), ImVec2(sx + cw, zy + zh), scale_col, a);
  vis::text_at(dl, cap, ImVec2(sx + cw / 2, zy + zh / 2 - 11), vis::with_alpha(ink, a), "s",
               vis::Align::kCenter);
  vis::text_at(dl, cap, ImVec2(sx + cw / 2, zy + zh + 6), vis::with_alpha(scale_col, a), "scale",
               vis::Align::kCenter);
  // The code's values on a number line, and the rule.
  const float a2 = vis::phase(beat, 3.7f, 4.0f);
  const float ly = zy + zh + cv.size.y * 0.12f;
  const float lw = 16 * cw;
  dl->AddLine(ImVec2(x0, ly), ImVec2(x0 + lw, ly), vis::with_alpha(ink, a2), 1.5f);
  for (float v : {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f}) {
    const float tx = x0 + lw * v / 6.0f;
    dl->AddLine(ImVec2(tx, ly - 8), ImVec2(tx, ly + 8), vis::with_alpha(ink, a2), 2.0f);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
    vis::text_at(dl, cap, ImVec2(tx, ly + 12), vis::with_alpha(ink, a2), buf, vis::Align::kCenter);
  }
  vis::text_at(dl, cap, ImVec2(x0, ly - 40), vis::with_alpha(ink, a2),
               "a 4-bit code: a sign and one of these 8 values");
  vis::text_at(
      dl, cap, ImVec2(x0, ly + 50), vis::with_alpha(ink, a2),
      "number = value(code) x 2^(s - 127), with s = floor(log2 of the block's largest) - 2");
}

void draw(const Lesson& l, const Canvas& cv) {
  const Figures f = figures(l);
  if (!f.m) return;
  const attn::ModelConfig& m = *f.m;
  ImDrawList* dl = cv.dl;
  ImFont* cap = fonts().caption;
  const ImU32 ink = vis::concept_color(vis::Concept::kInk);
  const float beat = static_cast<float>(l.beat) + l.t;
  if (l.beat == 3) {
    draw_storage(l, cv, m);
    return;
  }
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
  const float a = vis::phase(beat, 4.0f, 4.6f);
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
  const float a2 = vis::phase(beat, 4.3f, 4.9f);
  vis::matrix(dl, cap, ImVec2(cx, y0), 14, static_cast<float>(m.latent_dim) * px,
              vis::concept_color(vis::Concept::kLatent), "c",
              std::to_string(m.latent_dim) + " (cached)", a2);
  vis::arrow(dl, ImVec2(x0 + 16, y0 + 20), ImVec2(wx - 4, y0 + 20), ink, a);
  vis::arrow(dl, ImVec2(wx + static_cast<float>(m.latent_dim) * px + 4, y0 + 20),
             ImVec2(cx - 4, y0 + 20), vis::concept_color(vis::Concept::kLatent), a2);
  const float ux = cx + 110;
  const float a3 = vis::phase(beat, 4.5f, 5.0f);
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
  static const Chapter c{"Compress", "Why is MLA's cache so small?", 5, text, setup, controls,
                         draw};
  return c;
}

}  // namespace app::learn
