#include "visuals/roofline.h"

#include <algorithm>
#include <cmath>

#include "attention/units.h"

namespace vis {

void roofline_curve(const attn::GpuSpec& gpu, attn::DType kv_dt, double lo, double hi, int n,
                    std::vector<double>* xs, std::vector<double>* ys) {
  xs->clear();
  ys->clear();
  if (!(lo > 0) || !(hi > lo) || n < 2) return;
  const double ridge = gpu.ridge_intensity(kv_dt);
  bool ridge_done = !(ridge > lo && ridge < hi);
  for (int i = 0; i < n; ++i) {
    const double x = lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1));
    if (!ridge_done && x > ridge) {
      xs->push_back(ridge);
      ys->push_back(attn::attainable_flops(gpu, kv_dt, ridge));
      ridge_done = true;
    }
    xs->push_back(x);
    ys->push_back(attn::attainable_flops(gpu, kv_dt, x));
  }
}

PlotSpec roofline_plot(const attn::GpuSpec& gpu, attn::DType kv_dt,
                       const std::vector<RooflinePoint>& points, double measured_bytes_per_s) {
  PlotSpec p;
  p.title = "Roofline: " + gpu.full_name + " (" + std::string(attn::dtype_name(kv_dt)) +
            " KV, datasheet peaks)";
  p.x.label = "arithmetic intensity (FLOP/byte)";
  p.x.scale = AxisScale::kLog;
  p.x.min = 0.1;
  p.x.max = 10000;
  p.x.format = [](double v) { return attn::format_si(v); };
  p.y.label = "FLOP/s";
  p.y.scale = AxisScale::kLog;
  p.y.format = [](double v) { return attn::format_flops(v) + "/s"; };
  p.legend = LegendPos::kAbove;  // off the data: measured points can sit anywhere

  Series roof;
  roof.name = "roof: " + attn::format_bandwidth(gpu.bandwidth_bytes_per_s()) + ", " +
              attn::format_flops(gpu.matrix_flops_per_s(kv_dt)) + "/s";
  roofline_curve(gpu, kv_dt, p.x.min, p.x.max, 48, &roof.x, &roof.y);
  roof.color = IM_COL32(230, 230, 230, 255);
  roof.thickness = 2.5f;
  p.series.push_back(roof);

  double y_lo = roof.y.empty() ? 1e9 : roof.y.front();
  const double y_hi = gpu.matrix_flops_per_s(kv_dt) * 2;
  if (measured_bytes_per_s > 0) {
    Series m;
    m.name = "read BW measured in the run: " + attn::format_bandwidth(measured_bytes_per_s);
    for (int i = 0; i < 24; ++i) {
      const double x = p.x.min * std::pow(p.x.max / p.x.min, i / 23.0);
      const double roof_y = gpu.matrix_flops_per_s(kv_dt);
      m.x.push_back(x);
      m.y.push_back(roof_y > 0 ? std::min(roof_y, x * measured_bytes_per_s)
                               : x * measured_bytes_per_s);
    }
    m.dashed = true;
    m.color = IM_COL32(160, 160, 160, 255);
    m.thickness = 1.5f;
    p.series.push_back(m);
    y_lo = std::min(y_lo, m.y.front());
  }
  // Points, one series per name, in first-seen order.
  int color_index = 1;
  for (const RooflinePoint& pt : points) {
    if (!(pt.intensity > 0) || !(pt.flops_per_s > 0)) continue;
    auto it = std::find_if(p.series.begin(), p.series.end(),
                           [&](const Series& s) { return s.name == pt.series; });
    if (it == p.series.end()) {
      Series s;
      s.name = pt.series;
      s.line = false;
      s.markers = true;
      s.dashed = pt.projected;
      s.color = palette_color(color_index++);
      p.series.push_back(s);
      it = p.series.end() - 1;
    }
    it->x.push_back(pt.intensity);
    it->y.push_back(pt.flops_per_s);
    y_lo = std::min(y_lo, pt.flops_per_s / 2);
  }
  p.y.min = std::max(1e6, y_lo);
  p.y.max = y_hi > p.y.min ? y_hi : p.y.min * 1e6;
  const double ridge = gpu.ridge_intensity(kv_dt);
  if (ridge > 0) {
    RefLine r;
    r.value = ridge;
    r.label = "ridge " + attn::format_si(ridge) + " FLOP/B";
    p.vlines.push_back(r);
  }
  return p;
}

}  // namespace vis
