#include <algorithm>

#include "app/learn/chapter.h"
#include "app/learn/learn_view.h"
#include "attention/roofline.h"

namespace app::learn {

const std::vector<const Chapter*>& chapters() {
  static const std::vector<const Chapter*> k = {
      &chapter_decode_step(), &chapter_share_kv(), &chapter_compress(), &chapter_absorb(),
      &chapter_window(),      &chapter_roofline(), &chapter_kernel(),   &chapter_worklog(),
      &chapter_measure(),     &chapter_tp()};
  return k;
}

Lesson make_lesson(const App& app) {
  Lesson l;
  l.app = &app;
  l.model = &app.model;
  l.ctl = &app.learn.controls;
  l.gpu = attn::find_gpu(app.learn.controls.gpu);
  if (!l.gpu && !attn::gpu_specs().empty()) l.gpu = &attn::gpu_specs().front();
  l.beat = app.learn.beat;
  l.time = app.learn.beat_time;
  l.t = static_cast<float>(std::clamp(app.learn.beat_time / kBeatSeconds, 0.0, 1.0));
  return l;
}

}  // namespace app::learn
