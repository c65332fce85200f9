// Chapter 9, measure it: the same seeded inputs go through the CPU float64 reference and the
// GPU kernel; the outputs are compared element by element and both are timed. Where no GPU is
// present, the GPU runs recorded in assets/results/ for this layer are shown, labelled.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/cli/recorded.h"
#include "app/latency_side_by_side.h"
#include "app/learn/lesson_util.h"
#include "app/style.h"
#include "attention/units.h"

namespace app::learn {
namespace {

// Recorded GPU runs of the model's full layer (any B and S), newest first.
std::vector<RecordedResult> recorded_for(const attn::LayerShape& layer) {
  std::vector<RecordedResult> v;
  const bool mla = layer.variant == attn::Variant::kMla;
  for (const RecordedResult& r : recorded_gpu_results()) {
    const attn::LayerShape s = r.result.c.layer_shape();
    if ((s.variant == attn::Variant::kMla) == mla && s.q_heads == layer.q_heads &&
        s.kv_heads == layer.kv_heads && s.head_dim == layer.head_dim &&
        s.latent_dim == layer.latent_dim && s.rope_dim == layer.rope_dim &&
        s.window == layer.window)
      v.push_back(r);
  }
  // The newest file's rows only: one GPU, one run.
  std::string newest;
  for (const RecordedResult& r : v) newest = std::max(newest, r.date);
  v.erase(
      std::remove_if(v.begin(), v.end(), [&](const RecordedResult& r) { return r.date != newest; }),
      v.end());
  return v;
}

BeatText text(const Lesson& l) {
  const attn::LayerShape layer = full_layer(*l.model);
  const std::vector<RecordedResult> rec = recorded_for(layer);
  const bool gpu = l.app->device.available;
  BeatText t;
  t.numbers = {{"model layer", name_of(*l.model)},
               {"GPU here", gpu ? l.app->device.name : std::string("none")},
               {"recorded GPU runs of this layer", std::to_string(rec.size())}};
  if (!rec.empty()) t.numbers.push_back({"newest", rec.front().provenance()});
  if (l.beat == 0) {
    t.title = "two paths, one input";
    t.caption =
        "The same seeded random q, K and V go through two paths: the CPU reference in "
        "float64, and the GPU kernel in its storage dtype. The outputs are compared "
        "element by element against the dtype's tolerance, then both are timed.";
  } else {
    t.title = "what was measured";
    const auto& run = l.app->latency.side_by_side;
    t.caption = run ? "Your last side-by-side run: the float64 reference, the " +
                          std::string(run->gpu.present && !run->gpu.recorded ? "GPU kernel's"
                                                                             : "CPU float32") +
                          " output and their difference, then both timings; Workbench > Decode "
                          "latency > Side by side runs it again."
                : gpu ? "This machine has a " + l.app->device.name +
                            ": Workbench > Decode latency > Side by side runs both paths on this "
                            "layer and draws the outputs and their difference."
                : rec.empty()
                    ? "No GPU here, and no recording of this layer's shape: pick a preset the "
                      "suites time (Llama-3-8B, DeepSeek-V3) or run it on a GPU machine."
                    : "No GPU here: these are the GPU runs of this layer's shape in the "
                      "newest recording in assets/results/ (" +
                          rec.front().provenance() +
                          "), each checked against the CPU float64 reference before it "
                          "was timed.";
  }
  return t;
}

WorkbenchSetup setup(const Lesson& l) {
  WorkbenchSetup s;
  s.seq = l.ctl->seq;
  s.dtype = l.ctl->dtype;
  s.focus = PanelId::kLatency;
  s.latency_tab = LatencyTab::kSideBySide;
  return s;
}

void draw_flow(const Lesson& l, const Canvas& cv, float beat) {
  ImDrawList* dl = cv.dl;
  ImFont* cap = fonts().caption;
  const ImU32 ink = vis::concept_color(vis::Concept::kInk);
  const float y = cv.p0.y + cv.size.y * 0.18f, h = cv.size.y * 0.2f;
  const float x_in = cv.p0.x + cv.size.x * 0.05f;
  const vis::Concept in_c[] = {vis::Concept::kQuery, vis::Concept::kKey, vis::Concept::kValue};
  const char* in_n[] = {"q", "K", "V"};
  for (int i = 0; i < 3; ++i)
    vis::matrix(dl, cap, ImVec2(x_in + static_cast<float>(i) * 44, y + h * 0.6f), 34, h,
                vis::concept_color(in_c[i]), in_n[i], i == 0 ? "seed" : "",
                vis::phase(beat, 0.0f, 0.3f));
  const float xp = cv.p0.x + cv.size.x * 0.32f, xo = cv.p0.x + cv.size.x * 0.6f;
  const char* path_n[] = {"CPU reference, float64", "GPU kernel, bf16 / fp8"};
  for (int p = 0; p < 2; ++p) {
    const float a =
        vis::phase(beat, 0.2f + 0.2f * static_cast<float>(p), 0.6f + 0.2f * static_cast<float>(p));
    const float py = y + static_cast<float>(p) * h * 1.5f;
    vis::block(dl, ImVec2(xp, py), ImVec2(xp + 220, py + h * 0.8f), IM_COL32(150, 150, 170, 255),
               a);
    vis::text_at(dl, cap, ImVec2(xp + 110, py + h * 0.25f), vis::with_alpha(ink, a), path_n[p],
                 vis::Align::kCenter);
    vis::arrow(dl, ImVec2(x_in + 130, y + h), ImVec2(xp - 6, py + h * 0.4f), ink, a);
    vis::arrow(dl, ImVec2(xp + 224, py + h * 0.4f), ImVec2(xo - 6, py + h * 0.4f), ink, a);
    vis::block(dl, ImVec2(xo, py), ImVec2(xo + 120, py + h * 0.8f),
               vis::concept_color(vis::Concept::kValue), a);
    vis::text_at(dl, nullptr, ImVec2(xo + 60, py + h * 0.3f), vis::with_alpha(ink, a),
                 "out [H x Dv]", vis::Align::kCenter);
  }
  const float a = vis::phase(beat, 0.7f, 1.0f);
  const float xd = cv.p0.x + cv.size.x * 0.8f;
  vis::arrow(dl, ImVec2(xo + 124, y + h * 0.4f), ImVec2(xd - 6, y + h * 0.9f), ink, a);
  vis::arrow(dl, ImVec2(xo + 124, y + h * 1.9f), ImVec2(xd - 6, y + h * 1.1f), ink, a);
  vis::block(dl, ImVec2(xd, y + h * 0.6f), ImVec2(xd + 150, y + h * 1.4f),
             vis::concept_color(vis::Concept::kBytes), a);
  vis::text_at(dl, nullptr, ImVec2(xd + 75, y + h * 0.75f), vis::with_alpha(ink, a), "|difference|",
               vis::Align::kCenter);
  vis::text_at(dl, nullptr, ImVec2(xd + 75, y + h * 0.75f + 20), vis::with_alpha(ink, a),
               "max vs tolerance", vis::Align::kCenter);
  (void)l;
}

void draw_recorded(const Lesson& l, const Canvas& cv, float beat) {
  ImDrawList* dl = cv.dl;
  const std::vector<RecordedResult> rec = recorded_for(full_layer(*l.model));
  const ImU32 ink = vis::concept_color(vis::Concept::kInk);
  if (rec.empty()) {
    vis::text_at(dl, fonts().title, cv.at(0.5f, 0.42f), IM_COL32(150, 150, 150, 255),
                 "no GPU and no recording of this shape", vis::Align::kCenter);
    return;
  }
  const float grow = vis::phase(beat, 1.0f, 1.8f);
  double top = 0;
  const size_t n = std::min<size_t>(rec.size(), 14);
  for (size_t i = 0; i < n; ++i) top = std::max(top, rec[i].result.median_us);
  const float pitch = (cv.size.y - 60) / static_cast<float>(n);
  const float x0 = cv.p0.x + cv.size.x * 0.3f, w = cv.size.x * 0.35f;
  for (size_t i = 0; i < n; ++i) {
    const kern::BenchResult& r = rec[i].result;
    const float y = cv.p0.y + 16 + pitch * static_cast<float>(i);
    vis::text_at(dl, nullptr, ImVec2(cv.p0.x + 16, y), ink,
                 "B " + std::to_string(r.c.batch) + ", S " +
                     attn::format_tokens(static_cast<double>(r.c.seq)) + ", " +
                     std::string(attn::dtype_name(r.c.dtype)));
    const float bw = w * static_cast<float>(r.median_us / top) * grow;
    dl->AddRectFilled(ImVec2(x0, y),
                      ImVec2(x0 + std::max(2.0f, bw), y + std::max(4.0f, pitch * 0.6f)),
                      vis::concept_color(vis::Concept::kValue));
    char err[32];
    std::snprintf(err, sizeof err, "%.1e", r.max_abs_err);
    vis::text_at(dl, nullptr, ImVec2(x0 + bw + 8, y), ink,
                 attn::format_duration_us(r.median_us) + ", " +
                     attn::format_bandwidth(r.gbps * 1e9) + ", max error " + err);
  }
  vis::text_at(dl, fonts().caption, ImVec2(cv.p0.x + cv.size.x - 16, cv.p0.y + cv.size.y - 30),
               IM_COL32(170, 170, 170, 255), rec.front().provenance(), vis::Align::kRight);
}

void draw(const Lesson& l, const Canvas& cv) {
  const float beat = static_cast<float>(l.beat) + l.t;
  if (l.beat == 0) {
    draw_flow(l, cv, beat);
  } else if (l.app->latency.side_by_side) {
    // The learner's own run, as the latency panel draws it.
    ImGui::SetCursorScreenPos(ImVec2(cv.p0.x + 8, cv.p0.y + 8));
    ImGui::BeginChild("##measured", ImVec2(cv.size.x - 16, cv.size.y - 16), false);
    draw_side_by_side_result(*l.app->latency.side_by_side, cv.size.x - 32);
    ImGui::EndChild();
  } else {
    draw_recorded(l, cv, beat);
  }
}

}  // namespace

const Chapter& chapter_measure() {
  static const Chapter c{
      "Measure it", "Do the kernels compute what the reference does?", 2, text, setup, nullptr,
      draw};
  return c;
}

}  // namespace app::learn
