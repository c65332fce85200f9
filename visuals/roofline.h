// The roofline plot of one GPU (log-log: FLOP/byte against FLOP/s) with points placed on it,
// built as a vis::PlotSpec (visuals/plot.h). The roof is the datasheet's; measured points are
// achieved FLOP/s at the case's intensity; nothing here invents a measurement.
#pragma once
#include <string>
#include <vector>

#include "attention/dtype.h"
#include "attention/roofline.h"
#include "visuals/plot.h"

namespace vis {

struct RooflinePoint {
  std::string series;      // legend entry the point belongs to ("measured: NVIDIA H200")
  double intensity = 0;    // FLOP/byte
  double flops_per_s = 0;  // achieved (measured) or projected
  bool projected = false;  // drawn as a dashed series
};

// (intensity, attainable FLOP/s) of the roof at n log-spaced intensities in [lo, hi], with the
// ridge point inserted exactly (pure, tested).
void roofline_curve(const attn::GpuSpec& gpu, attn::DType kv_dt, double lo, double hi, int n,
                    std::vector<double>* xs, std::vector<double>* ys);

// The plot: the roof of `gpu` for kv_dt (solid), a second bandwidth slope when
// measured_bytes_per_s > 0 (read bandwidth measured in the run, dashed), the ridge as a
// vertical line, and the points grouped by series (markers only).
PlotSpec roofline_plot(const attn::GpuSpec& gpu, attn::DType kv_dt,
                       const std::vector<RooflinePoint>& points, double measured_bytes_per_s);

}  // namespace vis
