// Chapter 1, one decode step: the new token becomes q, k, v; the cache is a tape of rows; the
// step appends a row; every query head sweeps the whole tape, and the bytes that takes.
#include <algorithm>
#include <cmath>

#include "app/learn/lesson_util.h"
#include "app/learn/lesson_widgets.h"
#include "app/style.h"
#include "attention/units.h"

namespace app::learn {
namespace {

struct Figures {
  attn::LayerShape layer;
  double row_layer = 0;  // bytes of one token, one (full) layer
  double row_all = 0;    // one token, all layers
  double cache = 0;      // all layers at S
  double read_s = 0;
};

Figures figures(const Lesson& l) {
  Figures f;
  f.layer = full_layer(*l.model);
  f.row_layer = static_cast<double>(attn::kv_bytes_per_token(f.layer, l.ctl->dtype));
  f.row_all = static_cast<double>(bytes_per_token(*l.model, l.ctl->dtype));
  f.cache = static_cast<double>(cache_bytes(*l.model, l.ctl->seq, l.ctl->dtype));
  f.read_s = read_seconds(f.cache, l.gpu);
  return f;
}

BeatText text(const Lesson& l) {
  const attn::ModelConfig& m = *l.model;
  const Figures f = figures(l);
  const bool mla = f.layer.variant == attn::Variant::kMla;
  const std::string S = attn::format_tokens(static_cast<double>(l.ctl->seq));
  const std::string dt(attn::dtype_name(l.ctl->dtype));
  BeatText t;
  t.numbers = {
      {"model", name_of(m)},
      {"layers", std::to_string(m.num_layers)},
      {"hidden size", std::to_string(m.hidden_size)},
      {"Hq / Hkv / D", std::to_string(f.layer.q_heads) + " / " + std::to_string(f.layer.kv_heads) +
                           " / " + std::to_string(f.layer.head_dim)},
      {"row, one layer (" + dt + ")", attn::format_bytes(f.row_layer)},
      {"row, all layers", attn::format_bytes(f.row_all)},
      {"cache at S = " + S, attn::format_bytes(f.cache)},
      {gpu_name(l) + " bandwidth",
       l.gpu ? attn::format_bandwidth(l.gpu->bandwidth_bytes_per_s()) : "-"},
      {"time to read it", seconds_text(f.read_s)}};
  switch (l.beat) {
    case 0:
      t.title = "the new token";
      t.caption =
          mla ? "A decode step starts from one new token x (" + std::to_string(m.hidden_size) +
                    " numbers). It becomes a query for each of the " + std::to_string(m.q_heads) +
                    " heads, and one compressed row for the cache (chapter 3)."
              : "A decode step starts from one new token x (" + std::to_string(m.hidden_size) +
                    " numbers). Its projections give a query for each of the " +
                    std::to_string(f.layer.q_heads) +
                    " query heads, and a key and a value for each of the " +
                    std::to_string(f.layer.kv_heads) + " kv heads, " +
                    std::to_string(f.layer.head_dim) + " numbers each.";
      break;
    case 1:
      t.title = "the cache is a tape";
      t.caption =
          "Every earlier token left its keys and values behind: the KV cache, drawn as a "
          "tape with one row per token, columns to scale. One row of one layer is " +
          attn::format_bytes(f.row_layer) + " in " + dt + "; at S = " + S + " the " +
          std::to_string(m.num_layers) + " layers hold " + attn::format_bytes(f.cache) +
          " for this one sequence.";
      break;
    case 2:
      t.title = "append a row";
      t.caption =
          "The step appends one row, this token's k and v, so later steps can read it. "
          "Across all layers the cache grows by " +
          attn::format_bytes(f.row_all) + " per token.";
      break;
    default:
      t.title = "every head reads every row";
      t.caption =
          "Then every query head reads the whole tape, every row. For the whole model that "
          "is " +
          attn::format_bytes(f.cache) + " read per step: " + seconds_text(f.read_s) + " at the " +
          gpu_name(l) + "'s " +
          (l.gpu ? attn::format_bandwidth(l.gpu->bandwidth_bytes_per_s()) : "-") +
          ", the floor of one decode step.";
      break;
  }
  return t;
}

WorkbenchSetup setup(const Lesson& l) {
  WorkbenchSetup s;
  s.variant = l.app->what_if ? std::string(attn::variant_name(l.app->what_if_params.variant)) : "";
  s.seq = l.ctl->seq;
  s.dtype = l.ctl->dtype;
  s.gpu = l.ctl->gpu;
  s.focus =
      l.beat >= 3 ? PanelId::kLatency : (l.beat == 0 ? PanelId::kDataFlow : PanelId::kKvCache);
  return s;
}

void controls(LessonControls& c, const Lesson&) {
  seq_slider(c);
  gpu_combo(c);
  dtype_radio(c);
  ImGui::NewLine();
}

void draw(const Lesson& l, const Canvas& cv) {
  const Figures f = figures(l);
  ImFont* cap = fonts().caption;
  ImDrawList* dl = cv.dl;
  const float beat = static_cast<float>(l.beat) + l.t;  // 0..4: everything before is whole
  const float h = cv.size.y;
  // x on the left.
  const ImVec2 x0 = cv.at(0.04f, 0.42f);
  const float xh = h * 0.16f;
  vis::block(dl, x0, ImVec2(x0.x + 18, x0.y + xh), vis::concept_color(vis::Concept::kInk));
  vis::text_at(dl, cap, ImVec2(x0.x + 9, x0.y - 30), vis::concept_color(vis::Concept::kInk), "x",
               vis::Align::kCenter);
  // q, k, v per head.
  const float appear = vis::phase(beat, 0.0f, 0.8f);
  const bool mla = f.layer.variant == attn::Variant::kMla;
  const float sx = cv.size.x * 0.16f, sw = 16;
  const float top = h * 0.14f, stack_h = h * 0.7f;
  std::vector<ImVec2> qc;
  vis::head_stack(dl, cap, ImVec2(cv.p0.x + sx, cv.p0.y + top), sw, stack_h * 0.45f,
                  f.layer.q_heads, vis::Concept::kQuery, {}, "q", appear, &qc);
  const int kv = mla ? 1 : f.layer.kv_heads;
  const float ky = cv.p0.y + top + stack_h * 0.55f;
  vis::head_stack(dl, cap, ImVec2(cv.p0.x + sx - 14, ky), sw, stack_h * 0.45f, kv,
                  mla ? vis::Concept::kLatent : vis::Concept::kKey, {}, mla ? "c" : "k", appear);
  if (!mla)
    vis::head_stack(dl, cap, ImVec2(cv.p0.x + sx + 14, ky), sw, stack_h * 0.45f, kv,
                    vis::Concept::kValue, {}, "v", appear);
  const ImVec2 xr(x0.x + 18, x0.y + xh / 2);
  vis::arrow(dl, xr, ImVec2(cv.p0.x + sx - 4, cv.p0.y + top + stack_h * 0.22f),
             vis::concept_color(vis::Concept::kQuery), appear);
  vis::arrow(dl, xr, ImVec2(cv.p0.x + sx - 18, ky + stack_h * 0.22f),
             vis::concept_color(mla ? vis::Concept::kLatent : vis::Concept::kKey), appear);
  if (l.beat < 1) return;
  // The tape, to scale, fitted into the right part of the canvas.
  const std::vector<vis::TapeColumn> cols = tape_columns(f.layer);
  float elements = 0;
  for (const auto& c : cols) elements += c.elements;
  vis::TapeStyle st;
  st.px_per_element = std::min(0.5f, cv.size.x * 0.42f / std::max(1.0f, elements));
  st.height = h * 0.66f;
  st.rows_drawn = 14;
  st.alpha = vis::phase(beat, 1.0f, 1.6f);
  st.new_row = l.beat >= 2 ? vis::phase(beat, 2.0f, 2.8f) : 0.0f;
  if (l.beat >= 3) st.sweep = static_cast<float>(std::fmod(l.time / 2.0, 1.0));
  const ImVec2 tape_at = cv.at(0.34f, 0.16f);
  const ImVec2 end = vis::draw_tape(dl, nullptr, tape_at, cols, st);
  const ImU32 dim = IM_COL32(170, 170, 170, 255);
  vis::text_at(dl, nullptr, ImVec2(tape_at.x - 8, tape_at.y), dim, "token 1", vis::Align::kRight);
  vis::text_at(dl, nullptr, ImVec2(tape_at.x - 8, tape_at.y + st.height - 14), dim,
               "token " + attn::format_tokens(static_cast<double>(l.ctl->seq)), vis::Align::kRight);
  vis::text_at(
      dl, cap, ImVec2(tape_at.x, tape_at.y - 58),
      vis::with_alpha(vis::concept_color(vis::Concept::kInk), st.alpha),
      "KV cache of one layer: one row per token, " + attn::format_bytes(f.row_layer) + " a row");
  if (l.beat >= 2) {  // k and v travel into the new row
    const float a = vis::phase(beat, 2.0f, 2.8f);
    vis::arrow(dl, ImVec2(cv.p0.x + sx + 32, ky + stack_h * 0.3f), ImVec2(tape_at.x - 6, end.y - 6),
               vis::concept_color(vis::Concept::kKey), a);
    vis::text_at(dl, nullptr, ImVec2(tape_at.x - 10, end.y + 4),
                 vis::concept_color(vis::Concept::kQuery, a), "new row", vis::Align::kRight);
  }
  if (l.beat >= 3) {  // the queries read it all; the counter of bytes and time
    const float a = vis::phase(beat, 3.0f, 3.5f);
    const ImU32 red = vis::concept_color(vis::Concept::kBytes, a);
    for (size_t i = 0; i < qc.size(); i += std::max<size_t>(1, qc.size() / 8))
      vis::arrow(dl, qc[i], ImVec2(tape_at.x - 4, tape_at.y + st.height * 0.5f),
                 vis::concept_color(vis::Concept::kQuery, 0.5f * a), a, 1.0f);
    const ImVec2 c0(end.x + 30, tape_at.y + 10);
    vis::text_at(dl, cap, c0, red, "read per step,");
    vis::text_at(dl, cap, ImVec2(c0.x, c0.y + 24), red, "all layers:");
    vis::text_at(dl, fonts().title, ImVec2(c0.x, c0.y + 54), red, attn::format_bytes(f.cache));
    vis::text_at(dl, cap, ImVec2(c0.x, c0.y + 96), red, "= " + seconds_text(f.read_s));
    vis::text_at(dl, cap, ImVec2(c0.x, c0.y + 120), red, "at " + gpu_name(l));
  }
}

}  // namespace

const Chapter& chapter_decode_step() {
  static const Chapter c{
      "One decode step", "What does one decode step read?", 4, text, setup, controls, draw};
  return c;
}

}  // namespace app::learn
