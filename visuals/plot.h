// Line and scatter plots drawn with ImDrawList (ImPlot is not packaged in Debian).
//
// [SECTION] Axis maths (pure, no ImGui: tested in tests/gui/test_plot_axis.cpp)
// [SECTION] Plot description (plain data: axes, series, reference lines)
// [SECTION] Drawing (one ImGui item: reserves its size, draws, shows a hover readout)
//
// Usage:
//   vis::PlotSpec p;
//   p.title = "KV cache vs sequence length";
//   p.x = {"S (tokens)", vis::AxisScale::kLog, 2};  p.x.format = attn::format_tokens;
//   p.y = {"bytes", vis::AxisScale::kLog, 10};      p.y.format = attn::format_bytes;
//   p.series.push_back({"GQA", xs, ys});
//   p.hlines.push_back({141e9, "H200 memory"});
//   vis::draw_plot("##kv", p, ImVec2(-1, 300));
// Build the PlotSpec only when its inputs change (keep it in the panel's view state): drawing a
// cached spec costs a few hundred vertices a frame.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <imgui.h>

namespace vis {

// ---- [SECTION] Axis maths ------------------------------------------------------------------

enum class AxisScale { kLinear, kLog };

struct AxisRange {
  double lo = 0;
  double hi = 1;
};

// "Nice" step for a linear axis: 1, 2 or 5 times a power of ten, so that (hi - lo) / step is
// at most max_ticks - 1 intervals (max_ticks >= 2). lo < hi required (else returns 1).
double nice_linear_step(double lo, double hi, int max_ticks);
// Multiples of nice_linear_step within [lo, hi] (inclusive, with a tolerance of 1e-9 step); at
// least two for lo < hi (when max_ticks allows fewer, the step of max_ticks = 6 is used).
std::vector<double> linear_ticks(double lo, double hi, int max_ticks);
// Powers of `base` (> 1) within [lo, hi] (0 < lo < hi), every k-th exponent so that at most
// max_ticks remain. When fewer than two powers fall inside (a range under one decade on a
// base-10 axis), 1-2-5 subdivisions (base 10) or the linear ticks are returned instead.
std::vector<double> log_ticks(double lo, double hi, double base, int max_ticks);

// The range an axis shows for data in [data_lo, data_hi]: linear expands to the enclosing nice
// ticks (and to 0 when include_zero); log expands to the enclosing powers of base and needs
// data_lo > 0 (non-positive values are dropped by the caller; an empty or invalid range gives
// [1, base]). A single value becomes a small range around it.
AxisRange auto_range(double data_lo, double data_hi, AxisScale scale, double base,
                     bool include_zero);

// Data value -> [0, 1] along the axis (0 at lo), and back. Log axes map log(v); values <= 0
// on a log axis map to -inf (callers clip them).
double axis_to_unit(double v, AxisRange r, AxisScale scale);
double unit_to_axis(double t, AxisRange r, AxisScale scale);

// Index of the point of (xs, ys) nearest to (px, py) in screen space, where the mapping is
// given as a function; -1 when none within max_dist pixels. Pure for testing the hover readout.
int nearest_point(const std::vector<double>& sx, const std::vector<double>& sy, double px,
                  double py, double max_dist);

// ---- [SECTION] Plot description -------------------------------------------------------------

struct Axis {
  std::string label;
  AxisScale scale = AxisScale::kLinear;
  double log_base = 10;       // tick placement on a log axis (2 suits sequence lengths)
  double min = 0, max = 0;    // min < max: fixed range; else automatic from the data
  bool include_zero = false;  // linear automatic range starts at 0
  std::function<std::string(double)> format;  // tick and readout labels (default "%g")
};

struct Series {
  std::string name;
  std::vector<double> x, y;  // same length; points with non-finite (or, on log axes,
                             // non-positive) coordinates are skipped
  ImU32 color = 0;           // 0: palette colour by index
  float thickness = 2.0f;
  bool line = true;      // connect the points
  bool markers = false;  // draw a dot at every point
  bool dashed = false;   // e.g. projected rather than measured
};

// A horizontal (y) or vertical (x) reference line across the whole plot, labelled at its end.
struct RefLine {
  double value = 0;
  std::string label;
  ImU32 color = 0;  // 0: light grey
  bool dashed = true;
};

// Inside the plot area at a corner, or kAbove: one or more rows between the title and the plot
// (never over the data).
enum class LegendPos { kTopLeft, kTopRight, kBottomLeft, kBottomRight, kNone, kAbove };

struct PlotSpec {
  std::string title;  // drawn above the frame; empty for none
  Axis x, y;
  std::vector<Series> series;
  std::vector<RefLine> hlines;  // y = value
  std::vector<RefLine> vlines;  // x = value
  LegendPos legend = LegendPos::kAbove;  // off the data by default
};

// Palette used for series without a colour (distinct on the dark style, 8 entries, cycles).
ImU32 palette_color(int index);

// ---- [SECTION] Drawing ----------------------------------------------------------------------

// What the mouse is over after draw_plot (series < 0: nothing).
struct PlotHover {
  int series = -1;
  int point = -1;
};

// Draws the plot as one item of the given size (a negative or zero component fills the
// available width / uses 250 px height) and shows a tooltip with the series name and the x, y
// of the nearest point under the mouse. Safe with empty series and degenerate ranges.
PlotHover draw_plot(const char* id, const PlotSpec& spec, ImVec2 size);

}  // namespace vis
