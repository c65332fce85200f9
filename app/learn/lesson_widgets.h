// The controls chapters offer (each edits the lesson's own LessonControls, never the user's
// settings): S on a power-of-two slider, the GPU, the cache dtype, the kv heads of a model.
#pragma once
#include "app/learn_state.h"

namespace app::learn {

void seq_slider(LessonControls& c, int log2_lo = 10, int log2_hi = 20);
void gpu_combo(LessonControls& c);
void dtype_radio(LessonControls& c);
// Hkv among the divisors of hq (MHA at hq, MQA at 1).
void kv_heads_slider(LessonControls& c, int hq);

}  // namespace app::learn
