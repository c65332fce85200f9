// Chapter 7, inside the kernel: the GPU's SMs as a grid; blocks over (batch, kv head) light a
// few of them at batch 1, split-KV lights them all; the partial softmax states merge in the
// combine; one tile streams HBM -> shared memory -> matrix units.
#include <algorithm>
#include <cmath>

#include "app/learn/lesson_util.h"
#include "app/learn/lesson_widgets.h"
#include "app/style.h"
#include "attention/units.h"
#include "visuals/widgets.h"

namespace app::learn {
namespace {

struct Figures {
  int sms = 0;       // SMs (NVIDIA) or CUs (AMD) of the lesson's GPU
  int kv_heads = 1;  // of the model's full layer (MLA: 1)
  int blocks = 1;    // B x Hkv at B = 1
  int splits = 1;    // split-KV: enough splits per (b, h) to fill every SM
  std::int64_t rows_per_split = 0;
};

Figures figures(const Lesson& l) {
  Figures f;
  f.sms = l.gpu ? l.gpu->compute_units : 0;
  if (f.sms <= 0) f.sms = 132;
  f.kv_heads = std::max(1, full_layer(*l.model).kv_heads);
  f.blocks = f.kv_heads;
  f.splits = std::max(1, f.sms / f.blocks);
  f.rows_per_split = (l.ctl->seq + f.splits - 1) / f.splits;
  return f;
}

BeatText text(const Lesson& l) {
  const Figures f = figures(l);
  const std::string gpu = gpu_name(l);
  const std::string S = attn::format_tokens(static_cast<double>(l.ctl->seq));
  const bool published = l.gpu && l.gpu->compute_units > 0;
  BeatText t;
  t.numbers = {
      {"GPU", gpu},
      {"SMs / CUs", std::to_string(f.sms) + (published ? "" : " (not published; 132 drawn)")},
      {"kv heads of " + name_of(*l.model), std::to_string(f.kv_heads)},
      {"blocks at B = 1, no split", std::to_string(f.blocks)},
      {"splits per kv head", std::to_string(f.splits)},
      {"rows per split at S = " + S, std::to_string(f.rows_per_split)}};
  switch (l.beat) {
    case 0:
      t.title = "the SMs";
      t.caption = "The " + gpu + " has " + std::to_string(f.sms) +
                  " SMs (streaming multiprocessors; CUs on AMD). A kernel is a grid of thread "
                  "blocks, and the SMs take them in turn; only blocks that run read memory.";
      break;
    case 1:
      t.title = "one block per kv head";
      t.caption = "The plain mapping gives each (sequence, kv head) one block: at B = 1 that is " +
                  std::to_string(f.blocks) + " blocks, so " + std::to_string(f.blocks) + " of " +
                  std::to_string(f.sms) + " SMs work, each streaming all " + S +
                  " rows alone, while the rest and the bandwidth they could pull sit idle.";
      break;
    case 2:
      t.title = "split-KV";
      t.caption = "Split-KV cuts each head's tape into " + std::to_string(f.splits) +
                  " pieces of " + std::to_string(f.rows_per_split) +
                  " rows: " + std::to_string(f.blocks * f.splits) +
                  " blocks now fill the SMs and read the cache in parallel.";
      break;
    case 3:
      t.title = "the combine";
      t.caption =
          "Each split returns a partial softmax state: its running max m, its sum l and "
          "its weighted values o. A small combine kernel rescales them to the common max "
          "and adds them up, giving exactly the result one block would have.";
      break;
    default:
      t.title = "one tile";
      t.caption =
          "Inside a block, tiles of rows stream from HBM into shared memory while the "
          "previous tile feeds the matrix units, so the loads never wait on the math: "
          "the kernel runs at the speed of its reads.";
      break;
  }
  return t;
}

WorkbenchSetup setup(const Lesson& l) {
  WorkbenchSetup s;
  s.seq = l.ctl->seq;
  s.gpu = l.ctl->gpu;
  s.dtype = l.ctl->dtype;
  s.focus = PanelId::kLatency;
  return s;
}

void controls(LessonControls& c, const Lesson&) {
  gpu_combo(c);
  seq_slider(c, 12, 20);
  ImGui::NewLine();
}

// The SM grid: `lit` cells coloured by the kv head whose block runs there (-1: idle).
void sm_grid(ImDrawList* dl, const Canvas& cv, const Figures& f, const std::vector<int>& owner,
             float alpha) {
  const int cols = std::max(1, static_cast<int>(std::ceil(std::sqrt(f.sms * 2.0))));
  const int rows = (f.sms + cols - 1) / cols;
  const float cell = std::min(cv.size.x * 0.55f / static_cast<float>(cols),
                              cv.size.y * 0.6f / static_cast<float>(rows));
  const ImVec2 at = cv.at(0.05f, 0.16f);
  for (int i = 0; i < f.sms; ++i) {
    const float x = at.x + cell * static_cast<float>(i % cols);
    const float y = at.y + cell * static_cast<float>(i / cols);
    const int o = i < static_cast<int>(owner.size()) ? owner[static_cast<size_t>(i)] : -1;
    const ImU32 col = o < 0 ? IM_COL32(60, 62, 68, static_cast<int>(255 * alpha))
                            : vis::kv_head_color(o, f.kv_heads, alpha);
    dl->AddRectFilled(ImVec2(x + 1, y + 1), ImVec2(x + cell - 2, y + cell - 2), col, 2.0f);
  }
  vis::text_at(dl, fonts().caption, ImVec2(at.x, at.y - 32),
               vis::concept_color(vis::Concept::kInk, alpha), std::to_string(f.sms) + " SMs");
}

void draw(const Lesson& l, const Canvas& cv) {
  const Figures f = figures(l);
  ImDrawList* dl = cv.dl;
  ImFont* cap = fonts().caption;
  const ImU32 ink = vis::concept_color(vis::Concept::kInk);
  const float beat = static_cast<float>(l.beat) + l.t;
  if (l.beat <= 2) {
    std::vector<int> owner(static_cast<size_t>(f.sms), -1);
    if (l.beat == 1) {
      const int lit =
          static_cast<int>(std::ceil(static_cast<float>(f.blocks) * vis::phase(beat, 1.0f, 1.5f)));
      for (int i = 0; i < std::min(lit, f.sms); ++i) owner[static_cast<size_t>(i)] = i;
    } else if (l.beat == 2) {
      const int total = f.blocks * f.splits;
      const int lit =
          static_cast<int>(std::ceil(static_cast<float>(total) * vis::phase(beat, 2.0f, 2.8f)));
      for (int i = 0; i < std::min(lit, f.sms); ++i) owner[static_cast<size_t>(i)] = i / f.splits;
    }
    sm_grid(dl, cv, f, owner, 1.0f);
    if (l.beat >= 1) {
      // The tapes of the kv heads, cut into splits in beat 3.
      const int heads = std::min(f.kv_heads, 16);
      const float x0 = cv.p0.x + cv.size.x * 0.66f,
                  w = cv.size.x * 0.28f / static_cast<float>(heads);
      const float y0 = cv.p0.y + cv.size.y * 0.16f, h = cv.size.y * 0.6f;
      for (int k = 0; k < heads; ++k) {
        const float x = x0 + w * static_cast<float>(k);
        dl->AddRectFilled(ImVec2(x + 1, y0), ImVec2(x + w - 2, y0 + h),
                          vis::kv_head_color(k, f.kv_heads, 0.45f));
        const int cuts = l.beat == 2 ? f.splits : 1;
        const float a = l.beat == 2 ? vis::phase(beat, 2.0f, 2.6f) : 1.0f;
        for (int c = 1; c < cuts; ++c) {
          const float y = y0 + h * static_cast<float>(c) / static_cast<float>(cuts);
          dl->AddLine(ImVec2(x + 1, y), ImVec2(x + w - 2, y),
                      IM_COL32(16, 17, 20, static_cast<int>(255 * a)), 2.0f);
        }
      }
      vis::text_at(dl, cap, ImVec2(x0, y0 - 32), ink,
                   f.kv_heads > heads ? "kv heads' tapes (first 16)" : "each kv head's tape");
      const int busy = l.beat == 1 ? f.blocks : std::min(f.sms, f.blocks * f.splits);
      vis::text_at(dl, fonts().title,
                   ImVec2(cv.p0.x + cv.size.x * 0.05f, cv.p0.y + cv.size.y * 0.82f),
                   vis::concept_color(vis::Concept::kBytes),
                   std::to_string(busy) + " of " + std::to_string(f.sms) + " SMs reading");
    }
    return;
  }
  if (l.beat == 3) {
    // Splits -> (m, l, o) -> combine -> o.
    const int n = std::min(f.splits, 6);
    const float a = vis::phase(beat, 3.0f, 3.7f);
    const float x0 = cv.p0.x + cv.size.x * 0.06f, x1 = cv.p0.x + cv.size.x * 0.5f;
    const float y0 = cv.p0.y + cv.size.y * 0.12f, pitch = cv.size.y * 0.7f / static_cast<float>(n);
    const ImVec2 comb(cv.p0.x + cv.size.x * 0.72f, cv.p0.y + cv.size.y * 0.42f);
    for (int i = 0; i < n; ++i) {
      const float y = y0 + pitch * static_cast<float>(i);
      vis::block(dl, ImVec2(x0, y), ImVec2(x0 + 160, y + pitch * 0.7f), vis::kv_head_color(0, 1),
                 1.0f);
      // With many splits: the first few, a gap, and the last.
      const std::string k = std::to_string(i == n - 1 && f.splits > n ? f.splits : i + 1);
      if (i == n - 1 && f.splits > n)
        vis::text_at(dl, fonts().title, ImVec2(x0 + 80, y - pitch * 0.45f), ink, "...",
                     vis::Align::kCenter);
      vis::text_at(dl, nullptr, ImVec2(x0 + 8, y + 6), ink, "split " + k);
      vis::text_at(dl, cap, ImVec2(x1, y + pitch * 0.2f),
                   vis::concept_color(vis::Concept::kCompute, a),
                   "(m" + k + ", l" + k + ", o" + k + ")");
      vis::arrow(dl, ImVec2(x0 + 164, y + pitch * 0.35f), ImVec2(x1 - 8, y + pitch * 0.35f), ink, a,
                 1.5f);
      vis::arrow(dl, ImVec2(x1 + 150, y + pitch * 0.35f), ImVec2(comb.x - 6, comb.y + 20),
                 vis::concept_color(vis::Concept::kCompute, a), vis::phase(beat, 3.4f, 3.9f), 1.5f);
    }
    const float a2 = vis::phase(beat, 3.5f, 4.0f);
    vis::block(dl, comb, ImVec2(comb.x + 220, comb.y + 110),
               vis::concept_color(vis::Concept::kCompute), a2);
    vis::text_at(dl, cap, ImVec2(comb.x + 10, comb.y + 8), vis::with_alpha(ink, a2), "combine");
    vis::text_at(dl, nullptr, ImVec2(comb.x + 10, comb.y + 38), vis::with_alpha(ink, a2),
                 "m = max m_i");
    vis::text_at(dl, nullptr, ImVec2(comb.x + 10, comb.y + 58), vis::with_alpha(ink, a2),
                 "l = sum exp(m_i - m) l_i");
    vis::text_at(dl, nullptr, ImVec2(comb.x + 10, comb.y + 78), vis::with_alpha(ink, a2),
                 "o = sum exp(m_i - m) o_i / l");
    return;
  }
  // HBM -> shared memory -> matrix units, tiles moving along (looping).
  const char* names[] = {"HBM (the KV cache)", "shared memory", "matrix units"};
  const vis::Concept colours[] = {vis::Concept::kBytes, vis::Concept::kWindow,
                                  vis::Concept::kCompute};
  float xs[3];
  const float y = cv.p0.y + cv.size.y * 0.35f, bw = cv.size.x * 0.2f, bh = cv.size.y * 0.3f;
  for (int i = 0; i < 3; ++i) {
    xs[i] = cv.p0.x + cv.size.x * (0.06f + 0.32f * static_cast<float>(i));
    vis::block(dl, ImVec2(xs[i], y), ImVec2(xs[i] + bw, y + bh), vis::concept_color(colours[i]),
               1.0f);
    vis::text_at(dl, cap, ImVec2(xs[i] + bw / 2, y - 30), vis::concept_color(colours[i]), names[i],
                 vis::Align::kCenter);
    if (i > 0)
      vis::arrow(dl, ImVec2(xs[i - 1] + bw + 4, y + bh / 2), ImVec2(xs[i] - 4, y + bh / 2), ink);
  }
  // Two tiles in flight: one loading, one being multiplied.
  for (int k = 0; k < 2; ++k) {
    const float u = static_cast<float>(std::fmod(l.time / 1.5 + 0.5 * k, 1.0));
    const float stage = u * 2.0f;  // 0..1 HBM->smem, 1..2 smem->units
    const int from = stage < 1 ? 0 : 1;
    const float s = vis::ease(stage - static_cast<float>(from));
    const float x = vis::mix(xs[from] + bw / 2, xs[from + 1] + bw / 2, s) - 22;
    const float ty = y + bh / 2 - 16;
    dl->AddRectFilled(ImVec2(x, ty), ImVec2(x + 44, ty + 32),
                      vis::concept_color(vis::Concept::kKey), 3);
    vis::text_at(dl, nullptr, ImVec2(x + 22, ty + 8), IM_COL32(10, 10, 10, 255), "tile",
                 vis::Align::kCenter);
  }
}

}  // namespace

const Chapter& chapter_kernel() {
  static const Chapter c{
      "Inside the kernel", "Why does split-KV matter at batch 1?", 5, text, setup, controls, draw};
  return c;
}

}  // namespace app::learn
