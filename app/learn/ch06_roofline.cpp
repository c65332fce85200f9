// Chapter 6, why decode waits on memory: the roofline of the chosen GPU; a decode step's point
// moves right as G, H and the dtype change, and MLA with many heads crosses the ridge.
#include <algorithm>
#include <cmath>

#include "app/learn/lesson_util.h"
#include "app/learn/lesson_widgets.h"
#include "app/style.h"
#include "attention/cost.h"
#include "attention/units.h"
#include "visuals/roofline.h"

namespace app::learn {
namespace {

struct Point {
  std::string series;
  std::string label;
  attn::RooflineProjection p;
};

// The points each beat adds (every point is attn::project_decode of a real shape at B = 1).
std::vector<Point> points(const Lesson& l, int beat) {
  std::vector<Point> v;
  if (!l.gpu) return v;
  const attn::GpuSpec& g = *l.gpu;
  const std::int64_t s = l.ctl->seq;
  const attn::DType dt = l.ctl->dtype;
  const attn::LayerShape user = full_layer(*l.model);
  const attn::ModelConfig* um = l.model->variant == attn::Variant::kMla ? l.model : nullptr;
  if (beat >= 1)
    v.push_back({"this model", name_of(*l.model),
                 attn::project_decode(user, 1, s, dt, g, attn::MlaForm::kAbsorbed, um)});
  if (beat == 2) {
    for (int group : {1, 4, 8, 32}) {
      attn::LayerShape x;
      x.variant = group == 1    ? attn::Variant::kMha
                  : group == 32 ? attn::Variant::kMqa
                                : attn::Variant::kGqa;
      x.q_heads = 32;
      x.kv_heads = 32 / group;
      x.head_dim = x.value_dim = 128;
      v.push_back({"GQA, 32 heads of 128", "G = " + std::to_string(group),
                   attn::project_decode(x, 1, s, dt, g)});
    }
  }
  if (beat == 3) {
    for (attn::DType d : {attn::DType::kBf16, attn::DType::kFp8, attn::DType::kMxfp4})
      v.push_back({"this model by dtype", std::string(attn::dtype_name(d)),
                   attn::project_decode(user, 1, s, d, g, attn::MlaForm::kAbsorbed, um)});
  }
  if (beat >= 4) {
    const attn::ModelConfig* m = mla_model(l);
    if (m) {
      for (int h : {16, 32, 64, 128}) {
        attn::LayerShape x = full_layer(*m);
        x.q_heads = h;
        v.push_back(
            {"MLA by heads H", "H = " + std::to_string(h), attn::project_decode(x, 1, s, dt, g)});
      }
    }
  }
  return v;
}

BeatText text(const Lesson& l) {
  BeatText t;
  if (!l.gpu) {
    t.title = "no GPU specs";
    t.caption = "This build has no GPU datasheets (assets/gpus.json).";
    return t;
  }
  const attn::GpuSpec& g = *l.gpu;
  const attn::DType dt = l.ctl->dtype;
  const double ridge = g.ridge_intensity(dt);
  const std::vector<Point> pts = points(l, 4);
  const Point& here = pts.front();
  const attn::ModelConfig* m = mla_model(l);
  const double cross =
      m ? attn::compute_bound_group_size(g, dt, m->latent_dim + m->rope_dim, m->latent_dim, true)
        : 0;
  t.numbers = {
      {"GPU", g.full_name},
      {"bandwidth", attn::format_bandwidth(g.bandwidth_bytes_per_s())},
      {"matrix rate (" + std::string(attn::dtype_name(dt)) + " cache)",
       attn::format_flops(g.matrix_flops_per_s(dt)) + "/s"},
      {"ridge", attn::format_si(ridge) + " FLOP/B"},
      {name_of(*l.model) + " step intensity", attn::format_si(here.p.intensity) + " FLOP/B"},
      {"MLA crosses the ridge at H", attn::format_si(cross)}};
  switch (l.beat) {
    case 0:
      t.title = "two roofs";
      t.caption = "A GPU step is limited by bytes (slope: " +
                  attn::format_bandwidth(g.bandwidth_bytes_per_s()) +
                  ") or by math (flat: " + attn::format_flops(g.matrix_flops_per_s(dt)) +
                  "/s). They meet at the ridge, " + attn::format_si(ridge) +
                  " FLOPs per byte: below it, memory decides.";
      break;
    case 1:
      t.title = "a decode step";
      t.caption = "One decode step of " + name_of(*l.model) + " does " +
                  attn::format_si(here.p.intensity) +
                  " FLOPs per byte it reads: every cached number is used once per head that "
                  "reads it. It sits far left of the ridge, so its time is the bytes over the "
                  "bandwidth.";
      break;
    case 2:
      t.title = "G moves it right";
      t.caption =
          "Sharing kv heads lets each byte serve G query heads, so intensity grows with "
          "G. Even MQA's G = 32 stays below the ridge of " +
          attn::format_si(ridge) + ": grouped decode is memory-bound.";
      break;
    case 3:
      t.title = "smaller dtypes";
      t.caption =
          "fp8 halves the bytes and mxfp4 cuts them about 3.5-fold while the math stays, "
          "so the point moves right and the step gets faster in proportion.";
      break;
    default:
      t.title = "MLA crosses";
      t.caption =
          "MLA's one latent row serves all H heads, so its intensity grows with H. On the " +
          g.name + " it reaches the ridge at H = " + attn::format_si(cross) +
          ": with 128 heads (DeepSeek-V3) decode turns compute-bound.";
      break;
  }
  return t;
}

WorkbenchSetup setup(const Lesson& l) {
  WorkbenchSetup s;
  if (l.beat >= 4) s.preset = "deepseek-v3";
  s.seq = l.ctl->seq;
  s.dtype = l.ctl->dtype;
  s.gpu = l.ctl->gpu;
  s.focus = PanelId::kLatency;
  s.latency_tab = LatencyTab::kRoofline;
  return s;
}

void controls(LessonControls& c, const Lesson&) {
  gpu_combo(c);
  dtype_radio(c);
  seq_slider(c);
  ImGui::NewLine();
}

void draw(const Lesson& l, const Canvas& cv) {
  if (!l.gpu) return;
  const float beat = static_cast<float>(l.beat) + l.t;
  std::vector<Point> pts = points(l, l.beat);
  std::vector<vis::RooflinePoint> rp;
  // Points appear one after another over the beat.
  const size_t show =
      l.beat == 0
          ? 0
          : std::max<size_t>(
                1, static_cast<size_t>(std::ceil(static_cast<float>(pts.size()) *
                                                 vis::phase(beat, static_cast<float>(l.beat),
                                                            static_cast<float>(l.beat) + 0.9f))));
  for (size_t i = 0; i < std::min(show, pts.size()); ++i)
    rp.push_back({pts[i].series + ": " + pts[i].label, pts[i].p.intensity,
                  pts[i].p.flops / std::max(1e-30, pts[i].p.time_s), true});
  vis::PlotSpec spec = vis::roofline_plot(*l.gpu, l.ctl->dtype, rp, 0);
  spec.legend = vis::LegendPos::kAbove;
  spec.title = l.gpu->name + " roofline (datasheet peaks; points are projections)";
  ImGui::SetCursorScreenPos(ImVec2(cv.p0.x + 12, cv.p0.y + 8));
  vis::draw_plot("##learn_roofline", spec, ImVec2(cv.size.x - 24, cv.size.y - 16));
}

}  // namespace

const Chapter& chapter_roofline() {
  static const Chapter c{
      "Why decode waits on memory", "Why is decode memory-bound?", 5, text, setup, controls, draw};
  return c;
}

}  // namespace app::learn
