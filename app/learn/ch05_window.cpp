// Chapter 5, look nearby: a sliding window moves down the tape as tokens arrive and rows outside
// it are never read; Gemma 3's 5:1 and gpt-oss's 1:1 layer stacks drawn to scale.
#include <algorithm>
#include <cmath>

#include "app/learn/lesson_util.h"
#include "app/learn/lesson_widgets.h"
#include "app/style.h"
#include "attention/units.h"

namespace app::learn {
namespace {

// The user's model when it has sliding layers, else Gemma 3 12B.
const attn::ModelConfig* window_model(const Lesson& l) {
  if (l.model->num_sliding() > 0) return l.model;
  static const std::optional<attn::ModelConfig> k = preset("gemma-3-12b");
  return k ? &*k : nullptr;
}

struct Stack {
  const attn::ModelConfig* m = nullptr;
  double cache = 0, all_full = 0;
};

Stack stack_of(const attn::ModelConfig* m, const Lesson& l) {
  Stack s;
  s.m = m;
  if (!m) return s;
  s.cache = static_cast<double>(cache_bytes(*m, l.ctl->seq, l.ctl->dtype));
  if (const auto full = as_variant(*m, m->kv_heads == m->q_heads ? attn::Variant::kMha
                                       : m->kv_heads == 1        ? attn::Variant::kMqa
                                                                 : attn::Variant::kGqa))
    s.all_full = static_cast<double>(cache_bytes(*full, l.ctl->seq, l.ctl->dtype));
  return s;
}

struct Figures {
  const attn::ModelConfig* m = nullptr;
  int window = 0;
  double read_rows = 0;  // rows a sliding layer reads at S
  double row = 0;        // bytes of one row of one layer
  Stack gemma, oss;
};

Figures figures(const Lesson& l) {
  Figures f;
  f.m = window_model(l);
  if (!f.m) return f;
  f.window = f.m->window;
  f.read_rows = static_cast<double>(std::min<std::int64_t>(l.ctl->seq, f.window));
  f.row = static_cast<double>(attn::kv_bytes_per_token(f.m->layer_shape(0), l.ctl->dtype));
  static const std::optional<attn::ModelConfig> g = preset("gemma-3-12b");
  static const std::optional<attn::ModelConfig> o = preset("gpt-oss-20b");
  f.gemma = stack_of(g ? &*g : nullptr, l);
  f.oss = stack_of(o ? &*o : nullptr, l);
  return f;
}

BeatText text(const Lesson& l) {
  const Figures f = figures(l);
  BeatText t;
  if (!f.m) {
    t.title = "no windowed model";
    t.caption = "This build has no Gemma 3 preset; pick a model with sliding layers.";
    return t;
  }
  const std::string S = attn::format_tokens(static_cast<double>(l.ctl->seq));
  const double seq = static_cast<double>(l.ctl->seq);
  t.numbers = {{"model", name_of(*f.m)},
               {"window W", attn::format_tokens(f.window)},
               {"pattern", f.m->pattern_description()},
               {"one row, one layer", attn::format_bytes(f.row)},
               {"sliding layer reads", attn::format_bytes(f.row * f.read_rows)},
               {"full layer reads", attn::format_bytes(f.row * seq)}};
  if (f.gemma.m)
    t.numbers.push_back({name_of(*f.gemma.m) + " cache",
                         attn::format_bytes(f.gemma.cache) +
                             " (all full: " + attn::format_bytes(f.gemma.all_full) + ")"});
  if (f.oss.m)
    t.numbers.push_back({name_of(*f.oss.m) + " cache",
                         attn::format_bytes(f.oss.cache) +
                             " (all full: " + attn::format_bytes(f.oss.all_full) + ")"});
  switch (l.beat) {
    case 0:
      t.title = "the window slides";
      t.caption =
          "A sliding-window layer attends only to the last W = " + attn::format_tokens(f.window) +
          " tokens. As tokens arrive the window moves down the tape; rows above it are "
          "never read again, so the layer only needs to keep W rows.";
      break;
    case 1:
      t.title = "bytes skipped";
      t.caption = "At S = " + S + " a sliding layer of " + name_of(*f.m) + " reads " +
                  attn::format_bytes(f.row * f.read_rows) + " per step where a full layer reads " +
                  attn::format_bytes(f.row * seq) + ": " +
                  attn::format_bytes(f.row * (seq - f.read_rows)) + " skipped.";
      break;
    default:
      t.title = "layer stacks";
      t.caption =
          "Models mix the two: " + (f.gemma.m ? name_of(*f.gemma.m) : std::string("Gemma 3")) +
          " has " + (f.gemma.m ? f.gemma.m->pattern_description() : std::string("-")) +
          " layers, " + (f.oss.m ? name_of(*f.oss.m) : std::string("gpt-oss")) + " " +
          (f.oss.m ? f.oss.m->pattern_description() : std::string("-")) +
          ". Each bar is one layer, its length the tokens it keeps at S = " + S +
          "; the full layers dominate the cache.";
      break;
  }
  return t;
}

WorkbenchSetup setup(const Lesson& l) {
  WorkbenchSetup s;
  const Figures f = figures(l);
  if (f.m && f.m != l.model) s.preset = f.m->name;
  if (l.beat == 2 && f.gemma.m) s.preset = f.gemma.m->name;
  s.seq = l.ctl->seq;
  s.dtype = l.ctl->dtype;
  s.focus = l.beat == 2 ? PanelId::kModel : PanelId::kAttention;
  return s;
}

void controls(LessonControls& c, const Lesson&) {
  seq_slider(c, 10, 17);
  dtype_radio(c);
  ImGui::NewLine();
}

// One model's layers as bars: length = tokens kept at S (window or S), to one scale.
void draw_stack(ImDrawList* dl, const attn::ModelConfig& m, const Lesson& l, ImVec2 at, float w,
                float h, float grow) {
  const double seq = static_cast<double>(l.ctl->seq);
  const float pitch = h / static_cast<float>(std::max(1, m.num_layers));
  vis::text_at(dl, fonts().caption, ImVec2(at.x, at.y - 30), vis::concept_color(vis::Concept::kInk),
               name_of(m) + ": " + m.pattern_description());
  for (int i = 0; i < m.num_layers; ++i) {
    const bool sliding =
        !m.layers.empty() && m.layers[static_cast<size_t>(i)] == attn::LayerKind::kSliding;
    const double kept = sliding ? std::min<double>(seq, m.window) : seq;
    const float bw = std::max(2.0f, w * static_cast<float>(kept / seq) * grow);
    const float y = at.y + pitch * static_cast<float>(i);
    dl->AddRectFilled(ImVec2(at.x, y), ImVec2(at.x + bw, y + std::max(1.0f, pitch - 1)),
                      sliding ? vis::concept_color(vis::Concept::kWindow)
                              : vis::concept_color(vis::Concept::kKey, 0.8f));
  }
}

void draw(const Lesson& l, const Canvas& cv) {
  const Figures f = figures(l);
  if (!f.m) return;
  ImDrawList* dl = cv.dl;
  ImFont* cap = fonts().caption;
  const float beat = static_cast<float>(l.beat) + l.t;
  const double seq = static_cast<double>(l.ctl->seq);
  if (l.beat <= 1) {
    const attn::LayerShape layer = f.m->layer_shape(0);
    vis::TapeStyle st;
    std::vector<vis::TapeColumn> cols = tape_columns(layer);
    float elements = 0;
    for (const auto& c : cols) elements += c.elements;
    st.px_per_element = std::min(0.5f, cv.size.x * 0.4f / elements);
    st.height = cv.size.y * 0.72f;
    st.rows_drawn = 16;
    // Tokens arrive: the end of the sequence moves down, the window with it (looping in beat 1
    // it rests at S).
    const float span = static_cast<float>(std::min(1.0, f.read_rows / seq));
    const float end = l.beat == 0 ? vis::mix(std::min(1.0f, span + 0.1f), 1.0f,
                                             static_cast<float>(std::fmod(l.time / 4.0, 1.0)))
                                  : 1.0f;
    // The tape holds the tokens so far (it grows downward); the window is its last W rows.
    const float full_h = st.height;
    st.height = full_h * end;
    st.rows_drawn = std::max(2, static_cast<int>(16 * end));
    st.window_to = 1;
    st.window_from = std::max(0.0f, 1 - span / end);
    const ImVec2 at = cv.at(0.08f, 0.12f);
    vis::text_at(dl, cap, ImVec2(at.x, at.y - 56), vis::concept_color(vis::Concept::kInk),
                 name_of(*f.m) + ", one sliding layer: W = " + attn::format_tokens(f.window));
    const ImVec2 br = vis::draw_tape(dl, nullptr, at, cols, st);
    const ImU32 teal = vis::concept_color(vis::Concept::kWindow);
    vis::text_at(dl, cap, ImVec2(br.x + 16, at.y + st.height * st.window_from), teal,
                 "window: last " + attn::format_tokens(f.window) + " tokens");
    vis::text_at(dl, cap, ImVec2(br.x + 16, at.y), IM_COL32(150, 150, 150, 255),
                 "older rows: never read again");
    if (l.beat == 1) {
      const float a = vis::phase(beat, 1.0f, 1.6f);
      const float x = cv.p0.x + cv.size.x * 0.62f, y = cv.p0.y + cv.size.y * 0.3f;
      const ImU32 red = vis::concept_color(vis::Concept::kBytes, a);
      vis::text_at(dl, cap, ImVec2(x, y), red, "read per step, one sliding layer:");
      vis::text_at(dl, fonts().title, ImVec2(x, y + 28), red,
                   attn::format_bytes(f.row * f.read_rows));
      vis::text_at(dl, cap, ImVec2(x, y + 90), vis::concept_color(vis::Concept::kInk, a),
                   "skipped: " + attn::format_bytes(f.row * (seq - f.read_rows)));
    }
    return;
  }
  const float grow = vis::phase(beat, 2.0f, 2.9f);
  const float w = cv.size.x * 0.4f;
  if (f.gemma.m) draw_stack(dl, *f.gemma.m, l, cv.at(0.05f, 0.12f), w, cv.size.y * 0.6f, grow);
  if (f.oss.m)
    draw_stack(dl, *f.oss.m, l, cv.at(0.53f, 0.12f), w, cv.size.y * 0.6f * 24.0f / 48.0f, grow);
  const ImU32 ink = vis::concept_color(vis::Concept::kInk);
  const float ty = cv.p0.y + cv.size.y * 0.78f;
  if (f.gemma.m)
    vis::text_at(dl, cap, ImVec2(cv.p0.x + cv.size.x * 0.05f, ty), ink,
                 "cache " + attn::format_bytes(f.gemma.cache) + ", " +
                     attn::format_ratio(f.gemma.all_full / std::max(1.0, f.gemma.cache)) +
                     " less than all full");
  if (f.oss.m)
    vis::text_at(dl, cap, ImVec2(cv.p0.x + cv.size.x * 0.53f, ty), ink,
                 "cache " + attn::format_bytes(f.oss.cache) + ", " +
                     attn::format_ratio(f.oss.all_full / std::max(1.0, f.oss.cache)) +
                     " less than all full");
  vis::text_at(dl, nullptr, ImVec2(cv.p0.x + cv.size.x * 0.05f, ty + 30),
               vis::concept_color(vis::Concept::kWindow), "sliding layer (keeps W tokens)");
  vis::text_at(dl, nullptr, ImVec2(cv.p0.x + cv.size.x * 0.30f, ty + 30),
               vis::concept_color(vis::Concept::kKey), "full layer (keeps all S)");
}

}  // namespace

const Chapter& chapter_window() {
  static const Chapter c{
      "Look nearby", "What does a sliding window save?", 3, text, setup, controls, draw};
  return c;
}

}  // namespace app::learn
