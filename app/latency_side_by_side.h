// The latency panel's "Side by side" tab: one case (the model's layer at B and S, in the
// panel's GPU dtype) through the CPU float64 reference and the GPU kernel on the same inputs,
// drawn as heatmaps of both outputs and their difference, with both timings; the Learn view's
// "Measure it" chapter draws the same result.
#pragma once
#include "app/app_state.h"
#include "app/cli/side_by_side.h"

namespace app {

void draw_side_by_side_tab(App& app);

// The result: three heatmaps (the float64 reference, the GPU or CPU output, |difference|), the
// largest error against the tolerance, and the timings table. `width` is the space to use.
void draw_side_by_side_result(const SideBySide& r, float width);

}  // namespace app
