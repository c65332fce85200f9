// Chapter 10, split across GPUs: tensor parallelism deals the heads out to N GPUs; a GQA
// model's kv heads are split with them, MLA's latent is replicated on every GPU.
#include <algorithm>
#include <cmath>
#include <map>

#include "app/learn/lesson_util.h"
#include "app/style.h"
#include "attention/kv_cache.h"
#include "attention/units.h"
#include "visuals/widgets.h"

namespace app::learn {
namespace {

const attn::ModelConfig* model_named(const char* name) {
  static std::map<std::string, std::optional<attn::ModelConfig>> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, preset(name)).first;
  return it->second ? &*it->second : nullptr;
}

const attn::ModelConfig* gqa_model() { return model_named("llama-3.1-70b"); }
const attn::ModelConfig* mla_of() { return model_named("deepseek-v3"); }

// Bytes one GPU holds at S = 128k for B = 1 under TP n.
double per_gpu(const attn::ModelConfig* m, int n, attn::DType dt) {
  if (!m) return 0;
  try {
    return static_cast<double>(attn::kv_cache(*m, 131072, 1, dt, n).per_device_bytes);
  } catch (const std::exception&) {
    return 0;
  }
}

BeatText text(const Lesson& l) {
  const int n = std::max(1, l.ctl->tp);
  const attn::ModelConfig* g = gqa_model();
  const attn::ModelConfig* m = mla_of();
  const attn::DType dt = l.ctl->dtype;
  BeatText t;
  if (!g || !m) {
    t.title = "no presets";
    t.caption = "This build lacks the Llama-3.1-70B or DeepSeek-V3 preset.";
    return t;
  }
  t.numbers = {{"TP", std::to_string(n)},
               {name_of(*g) + " per GPU at 128k", attn::format_bytes(per_gpu(g, n, dt))},
               {name_of(*g) + " at TP 1", attn::format_bytes(per_gpu(g, 1, dt))},
               {name_of(*m) + " per GPU at 128k", attn::format_bytes(per_gpu(m, n, dt))},
               {name_of(*m) + " at TP 1", attn::format_bytes(per_gpu(m, 1, dt))}};
  const int kv_per = (g->kv_heads + n - 1) / n;
  switch (l.beat) {
    case 0:
      t.title = "deal out the heads";
      t.caption = "Tensor parallelism over " + std::to_string(n) + " GPUs gives each GPU " +
                  std::to_string(g->q_heads / n) + " of " + name_of(*g) + "'s " +
                  std::to_string(g->q_heads) + " query heads and the kv heads they read (" +
                  std::to_string(kv_per) + " of " + std::to_string(g->kv_heads) +
                  "), so each holds " + attn::format_bytes(per_gpu(g, n, dt)) +
                  " of the cache at 128k.";
      break;
    case 1:
      t.title = "MLA's latent is replicated";
      t.caption = name_of(*m) +
                  "'s heads are dealt out too, but every head reads the same latent "
                  "row, so every GPU keeps the whole latent cache: " +
                  attn::format_bytes(per_gpu(m, n, dt)) + " per GPU at 128k, whatever the TP.";
      break;
    default:
      t.title = "per GPU at 128k";
      t.caption = "At TP 1, " + name_of(*m) + " needs " + attn::format_bytes(per_gpu(m, 1, dt)) +
                  " against " + name_of(*g) + "'s " + attn::format_bytes(per_gpu(g, 1, dt)) +
                  ". Past TP " + std::to_string(g->kv_heads) +
                  " a GQA model replicates its kv heads too, so the bars stop shrinking.";
      break;
  }
  return t;
}

WorkbenchSetup setup(const Lesson& l) {
  WorkbenchSetup s;
  s.preset = l.beat == 1 ? "deepseek-v3" : "llama-3.1-70b";
  s.seq = 131072;
  s.tp = l.ctl->tp;
  s.dtype = l.ctl->dtype;
  s.focus = PanelId::kKvCache;
  return s;
}

void controls(LessonControls& c, const Lesson&) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  int k = 0;
  while ((1 << (k + 1)) <= c.tp && k < 3) ++k;
  const std::string shown = "TP = " + std::to_string(1 << k);
  if (ImGui::SliderInt("##tp", &k, 0, 3, shown.c_str())) c.tp = 1 << k;
}

// N GPU boxes; each shows the query heads it got (dots) and its share of the cache (a bar).
void gpus(ImDrawList* dl, const Canvas& cv, const attn::ModelConfig& m, int n, float y,
          double per_gpu_bytes, double top, float grow, bool mla) {
  const float gap = 14,
              w = (cv.size.x * 0.9f - gap * static_cast<float>(n - 1)) / static_cast<float>(n);
  const float h = cv.size.y * 0.34f;
  const int heads = m.q_heads / n;
  for (int i = 0; i < n; ++i) {
    const float x = cv.p0.x + cv.size.x * 0.05f + (w + gap) * static_cast<float>(i);
    vis::block(dl, ImVec2(x, y), ImVec2(x + w, y + h), IM_COL32(140, 140, 150, 255), 0.6f);
    vis::text_at(dl, nullptr, ImVec2(x + 6, y + 4), vis::concept_color(vis::Concept::kInk),
                 "GPU " + std::to_string(i));
    // Query heads as a grid of dots, coloured by the kv head they read.
    const int per_row = std::max(1, static_cast<int>((w - 12) / 7));
    const int g = std::max(1, m.q_heads / std::max(1, mla ? 1 : m.kv_heads));
    for (int k = 0; k < static_cast<int>(static_cast<float>(heads) * grow); ++k) {
      const int head = i * heads + k;
      const float dx = x + 6 + 7 * static_cast<float>(k % per_row),
                  dy = y + 24 + 7 * static_cast<float>(k / per_row);
      dl->AddRectFilled(ImVec2(dx, dy), ImVec2(dx + 5, dy + 5),
                        mla ? vis::concept_color(vis::Concept::kQuery)
                            : vis::kv_head_color(head / g, m.kv_heads));
    }
    const float bw = (w - 12) * static_cast<float>(per_gpu_bytes / top) * grow;
    const float by = y + h - 24;
    dl->AddRectFilled(ImVec2(x + 6, by), ImVec2(x + 6 + std::max(2.0f, bw), by + 14),
                      vis::concept_color(mla ? vis::Concept::kLatent : vis::Concept::kKey));
  }
  vis::text_at(dl, fonts().caption, ImVec2(cv.p0.x + cv.size.x * 0.05f, y - 30),
               vis::concept_color(vis::Concept::kInk),
               name_of(m) + ": " + attn::format_bytes(per_gpu_bytes) + " of cache per GPU");
}

void draw(const Lesson& l, const Canvas& cv) {
  const attn::ModelConfig* g = gqa_model();
  const attn::ModelConfig* m = mla_of();
  if (!g || !m) return;
  ImDrawList* dl = cv.dl;
  const int n = std::max(1, std::min(l.ctl->tp, 8));
  const attn::DType dt = l.ctl->dtype;
  const float beat = static_cast<float>(l.beat) + l.t;
  const double top = std::max(per_gpu(g, 1, dt), per_gpu(m, 1, dt));
  if (l.beat <= 1) {
    gpus(dl, cv, *g, n, cv.p0.y + cv.size.y * 0.1f, per_gpu(g, n, dt), top,
         l.beat == 0 ? vis::phase(beat, 0.0f, 0.9f) : 1.0f, false);
    if (l.beat == 1)
      gpus(dl, cv, *m, n, cv.p0.y + cv.size.y * 0.58f, per_gpu(m, n, dt), top,
           vis::phase(beat, 1.0f, 1.9f), true);
    return;
  }
  // Per GPU at 128k for TP 1, 2, 4, 8: two bars each.
  const float grow = vis::phase(beat, 2.0f, 2.9f);
  const float x0 = cv.p0.x + cv.size.x * 0.14f, w = cv.size.x * 0.6f;
  ImFont* cap = fonts().caption;
  for (int k = 0; k < 4; ++k) {
    const int tp = 1 << k;
    const float y = cv.p0.y + cv.size.y * (0.08f + 0.22f * static_cast<float>(k));
    vis::text_at(dl, cap, ImVec2(cv.p0.x + cv.size.x * 0.04f, y + 10),
                 vis::concept_color(vis::Concept::kInk), "TP " + std::to_string(tp));
    const double vals[] = {per_gpu(m, tp, dt), per_gpu(g, tp, dt)};
    const vis::Concept cs[] = {vis::Concept::kLatent, vis::Concept::kKey};
    const attn::ModelConfig* ms[] = {m, g};
    for (int j = 0; j < 2; ++j) {
      const float by = y + static_cast<float>(j) * 26;
      const float bw = w * static_cast<float>(vals[j] / top) * grow;
      dl->AddRectFilled(ImVec2(x0, by), ImVec2(x0 + std::max(2.0f, bw), by + 20),
                        vis::concept_color(cs[j]));
      vis::text_at(dl, nullptr, ImVec2(x0 + bw + 8, by + 2), vis::concept_color(vis::Concept::kInk),
                   name_of(*ms[j]) + ": " + attn::format_bytes(vals[j]));
    }
  }
}

// A single GPU shows nothing to split: the lesson starts at 8 unless the user runs TP already.
void defaults(LessonControls& c) {
  if (c.tp <= 1) c.tp = 8;
}

}  // namespace

const Chapter& chapter_tp() {
  static const Chapter c{"Split across GPUs",
                         "What does tensor parallelism do to the cache?",
                         3,
                         text,
                         setup,
                         controls,
                         draw,
                         defaults};
  return c;
}

}  // namespace app::learn
