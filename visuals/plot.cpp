#include "visuals/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace vis {

// ---- [SECTION] Axis maths ------------------------------------------------------------------

double nice_linear_step(double lo, double hi, int max_ticks) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return 1.0;
  const int intervals = std::max(1, max_ticks - 1);
  const double raw = (hi - lo) / intervals;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    const double step = m * mag;
    if (step >= raw * (1 - 1e-12)) return step;
  }
  return 10.0 * mag;
}

std::vector<double> linear_ticks(double lo, double hi, int max_ticks) {
  std::vector<double> ticks;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  double step = nice_linear_step(lo, hi, max_ticks);
  // A step that leaves fewer than two multiples inside is refined (6 ticks always give two).
  if (std::floor(hi / step + 1e-9) - std::ceil(lo / step - 1e-9) < 1)
    step = nice_linear_step(lo, hi, std::max(max_ticks, 6));
  const double eps = step * 1e-9;
  const double first = std::ceil((lo - eps) / step);
  for (double k = first;; k += 1.0) {
    double v = k * step;
    if (v > hi + eps) break;
    if (std::fabs(v) < eps) v = 0.0;  // no "-0"
    ticks.push_back(v);
    if (ticks.size() > 1000) break;  // cannot happen with a valid step; a guard all the same
  }
  return ticks;
}

std::vector<double> log_ticks(double lo, double hi, double base, int max_ticks) {
  std::vector<double> ticks;
  if (!(lo > 0) || !(hi > lo) || !(base > 1) || !std::isfinite(hi)) return ticks;
  const double lb = std::log(base);
  const double e_lo = std::ceil(std::log(lo) / lb - 1e-9);
  const double e_hi = std::floor(std::log(hi) / lb + 1e-9);
  const double n = e_hi - e_lo + 1;
  if (n < 2) {
    if (base == 10.0) {
      // Under a decade: 1-2-5 multiples of each power of ten inside.
      const double d_lo = std::floor(std::log10(lo));
      for (double d = d_lo; d <= std::ceil(std::log10(hi)); d += 1.0)
        for (double m : {1.0, 2.0, 5.0}) {
          const double v = m * std::pow(10.0, d);
          if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push_back(v);
        }
      if (ticks.size() >= 2) return ticks;
      ticks.clear();
    }
    return linear_ticks(lo, hi, max_ticks);  // at least two ticks, linearly spaced
  }
  const double every = std::max(1.0, std::ceil(n / std::max(1, max_ticks)));
  // Align the kept exponents to multiples of `every`, so ticks do not shift while panning.
  const double start = std::ceil(e_lo / every) * every;
  for (double e = start; e <= e_hi; e += every) ticks.push_back(std::pow(base, e));
  if (ticks.size() < 2 && every > 1)  // alignment dropped too many: fall back to the ends
    ticks = {std::pow(base, e_lo), std::pow(base, e_hi)};
  return ticks;
}

AxisRange auto_range(double data_lo, double data_hi, AxisScale scale, double base,
                     bool include_zero) {
  if (!(base > 1)) base = 10;
  if (scale == AxisScale::kLog) {
    if (!(data_lo > 0) || !(data_hi >= data_lo) || !std::isfinite(data_hi)) return {1, base};
    const double lb = std::log(base);
    double e_lo = std::floor(std::log(data_lo) / lb + 1e-9);
    double e_hi = std::ceil(std::log(data_hi) / lb - 1e-9);
    if (e_hi <= e_lo) e_hi = e_lo + 1;
    return {std::pow(base, e_lo), std::pow(base, e_hi)};
  }
  if (!std::isfinite(data_lo) || !std::isfinite(data_hi) || data_hi < data_lo) return {0, 1};
  if (include_zero) {
    data_lo = std::min(data_lo, 0.0);
    data_hi = std::max(data_hi, 0.0);
  }
  if (data_hi == data_lo) {
    const double pad = data_lo == 0 ? 1.0 : std::fabs(data_lo) * 0.1;
    data_lo -= pad;
    data_hi += pad;
  }
  const double step = nice_linear_step(data_lo, data_hi, 6);
  return {std::floor(data_lo / step + 1e-9) * step, std::ceil(data_hi / step - 1e-9) * step};
}

double axis_to_unit(double v, AxisRange r, AxisScale scale) {
  if (scale == AxisScale::kLog) {
    if (!(v > 0) || !(r.lo > 0) || !(r.hi > r.lo)) return -std::numeric_limits<double>::infinity();
    return (std::log(v) - std::log(r.lo)) / (std::log(r.hi) - std::log(r.lo));
  }
  if (!(r.hi > r.lo)) return 0.0;
  return (v - r.lo) / (r.hi - r.lo);
}

double unit_to_axis(double t, AxisRange r, AxisScale scale) {
  if (scale == AxisScale::kLog) {
    if (!(r.lo > 0) || !(r.hi > r.lo)) return r.lo;
    return std::exp(std::log(r.lo) + t * (std::log(r.hi) - std::log(r.lo)));
  }
  return r.lo + t * (r.hi - r.lo);
}

int nearest_point(const std::vector<double>& sx, const std::vector<double>& sy, double px,
                  double py, double max_dist) {
  int best = -1;
  double best_d2 = max_dist * max_dist;
  const size_t n = std::min(sx.size(), sy.size());
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(sx[i]) || !std::isfinite(sy[i])) continue;
    const double dx = sx[i] - px, dy = sy[i] - py, d2 = dx * dx + dy * dy;
    if (d2 <= best_d2) {
      best_d2 = d2;
      best = static_cast<int>(i);
    }
  }
  return best;
}

ImU32 palette_color(int index) {
  static const ImU32 kColors[] = {IM_COL32(86, 180, 233, 255),  IM_COL32(230, 159, 0, 255),
                                  IM_COL32(0, 200, 140, 255),   IM_COL32(240, 228, 66, 255),
                                  IM_COL32(204, 121, 167, 255), IM_COL32(213, 94, 0, 255),
                                  IM_COL32(160, 160, 255, 255), IM_COL32(200, 200, 200, 255)};
  const int n = static_cast<int>(sizeof kColors / sizeof kColors[0]);
  return kColors[((index % n) + n) % n];
}

// ---- [SECTION] Drawing ----------------------------------------------------------------------

namespace {

std::string default_format(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string fmt(const Axis& a, double v) { return a.format ? a.format(v) : default_format(v); }

bool usable(double v, AxisScale s) { return std::isfinite(v) && (s != AxisScale::kLog || v > 0); }

AxisRange range_for(const Axis& axis, const std::vector<Series>& series, bool is_x,
                    const std::vector<RefLine>& refs) {
  if (axis.max > axis.min) return {axis.min, axis.max};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Series& s : series)
    for (double v : is_x ? s.x : s.y)
      if (usable(v, axis.scale)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
  for (const RefLine& r : refs)
    if (usable(r.value, axis.scale)) {
      lo = std::min(lo, r.value);
      hi = std::max(hi, r.value);
    }
  if (!(hi >= lo))
    return axis.scale == AxisScale::kLog ? AxisRange{1, axis.log_base} : AxisRange{0, 1};
  return auto_range(lo, hi, axis.scale, axis.log_base, axis.include_zero);
}

std::vector<double> ticks_for(const Axis& a, AxisRange r, int max_ticks) {
  return a.scale == AxisScale::kLog ? log_ticks(r.lo, r.hi, a.log_base, max_ticks)
                                    : linear_ticks(r.lo, r.hi, max_ticks);
}

void dashed_line(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float thickness) {
  const float dx = b.x - a.x, dy = b.y - a.y, len = std::sqrt(dx * dx + dy * dy);
  if (len < 1e-3f) return;
  const float dash = 6.0f, gap = 4.0f;
  for (float t = 0; t < len; t += dash + gap) {
    const float t1 = std::min(len, t + dash);
    dl->AddLine(ImVec2(a.x + dx * t / len, a.y + dy * t / len),
                ImVec2(a.x + dx * t1 / len, a.y + dy * t1 / len), col, thickness);
  }
}

// The geometry of one plot: its item rectangle, the plot area [a0, a1] and the axis ranges.
struct Frame {
  ImVec2 p0, size;  // the whole item
  ImVec2 a0, a1;    // the plot area
  AxisRange xr, yr;
  const PlotSpec* spec = nullptr;
  float aw() const { return a1.x - a0.x; }
  float ah() const { return a1.y - a0.y; }
  float sx(double v) const {
    return a0.x + static_cast<float>(axis_to_unit(v, xr, spec->x.scale)) * aw();
  }
  float sy(double v) const {
    return a1.y - static_cast<float>(axis_to_unit(v, yr, spec->y.scale)) * ah();
  }
};

// Legend entries: a swatch `kSwatch` wide, then the name.
constexpr float kSwatch = 18, kPad = 5;
float legend_row_h() { return ImGui::GetTextLineHeight() + 2; }
ImU32 series_color(const Series& s, size_t index) {
  return s.color ? s.color : palette_color(static_cast<int>(index));
}

// One legend entry with its top-left at `e`: the series' line (dashed as drawn) and/or marker,
// then its name.
void legend_entry(ImDrawList* dl, ImVec2 e, const Series& s, ImU32 c, ImU32 text_col) {
  const float my = e.y + legend_row_h() * 0.5f;
  if (s.line) {
    if (s.dashed)
      dashed_line(dl, ImVec2(e.x, my), ImVec2(e.x + kSwatch, my), c, s.thickness);
    else
      dl->AddLine(ImVec2(e.x, my), ImVec2(e.x + kSwatch, my), c, s.thickness);
  }
  if (s.markers || !s.line) dl->AddCircleFilled(ImVec2(e.x + kSwatch * 0.5f, my), 3.5f, c, 12);
  dl->AddText(ImVec2(e.x + kSwatch + kPad, e.y + 1), text_col, s.name.c_str());
}

// The legend above the plot: entries flow left to right and wrap at `width`. Returns each
// series' offset from the legend's top-left ((-1, -1) for unnamed series) and the rows' height.
std::vector<ImVec2> legend_above_layout(const PlotSpec& spec, float width, float* height) {
  std::vector<ImVec2> pos(spec.series.size(), ImVec2(-1, -1));
  float x = 0, y = 0;
  bool any = false;
  for (size_t si = 0; si < spec.series.size(); ++si) {
    if (spec.series[si].name.empty()) continue;
    const float w = kSwatch + kPad + ImGui::CalcTextSize(spec.series[si].name.c_str()).x + 3 * kPad;
    if (x > 0 && x + w > width) {
      x = 0;
      y += legend_row_h();
    }
    pos[si] = ImVec2(x, y);
    x += w;
    any = true;
  }
  *height = any ? y + legend_row_h() : 0;
  return pos;
}

// Margins: title, legend above and y label on top, x ticks and label below, y tick labels on
// the left. Returns false when the plot area would be too small to draw anything useful.
bool layout_frame(const PlotSpec& spec, float legend_h, Frame* f, std::vector<double>* y_ticks) {
  const float line_h = ImGui::GetTextLineHeight();
  float top = ImGui::GetStyle().ItemInnerSpacing.y;
  if (!spec.title.empty()) top += line_h + 2;
  if (legend_h > 0) top += legend_h + 2;
  if (!spec.y.label.empty()) top += line_h * 1.5f + 2;  // the top tick label reaches half a line up
  const float bottom = line_h + 6 + (spec.x.label.empty() ? 0 : line_h + 2);
  const int y_max_ticks =
      std::max(2, static_cast<int>((f->size.y - top - bottom) / (line_h * 2.2f)));
  *y_ticks = ticks_for(spec.y, f->yr, y_max_ticks);
  float y_label_w = 0;
  for (double v : *y_ticks)
    y_label_w = std::max(y_label_w, ImGui::CalcTextSize(fmt(spec.y, v).c_str()).x);
  const float left = y_label_w + 8, right = 12;
  f->a0 = ImVec2(f->p0.x + left, f->p0.y + top);
  f->a1 = ImVec2(f->p0.x + f->size.x - right, f->p0.y + f->size.y - bottom);
  return f->aw() >= 20 && f->ah() >= 20;
}

// Title, the legend above (when asked), the y label and the frame of the plot area.
void draw_header(ImDrawList* dl, const Frame& f, const std::vector<ImVec2>& above_pos) {
  const PlotSpec& spec = *f.spec;
  const float line_h = ImGui::GetTextLineHeight();
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  float ty = f.p0.y + ImGui::GetStyle().ItemInnerSpacing.y;
  if (!spec.title.empty()) {
    dl->AddText(ImVec2(f.p0.x, ty), text_col, spec.title.c_str());
    ty += line_h + 2;
  }
  if (spec.legend == LegendPos::kAbove) {
    float rows_h = 0;
    for (size_t si = 0; si < spec.series.size(); ++si) {
      if (above_pos[si].x < 0) continue;
      const Series& s = spec.series[si];
      legend_entry(dl, ImVec2(f.p0.x + above_pos[si].x, ty + above_pos[si].y), s,
                   series_color(s, si), text_col);
      rows_h = std::max(rows_h, above_pos[si].y + legend_row_h());
    }
    ty += rows_h + 2;
  }
  if (!spec.y.label.empty())
    dl->AddText(ImVec2(f.p0.x, ty), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                spec.y.label.c_str());
  // No fill under the plot area: the window background shows through (a full-area quad costs
  // milliseconds a frame on a software renderer).
  dl->AddRect(f.a0, f.a1, ImGui::GetColorU32(ImGuiCol_Border));
}

// Grid lines and tick labels; x labels that would collide with the previous one are skipped.
void draw_grid(ImDrawList* dl, const Frame& f, const std::vector<double>& y_ticks) {
  const PlotSpec& spec = *f.spec;
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 grid_col = IM_COL32(255, 255, 255, 28);
  for (double v : y_ticks) {
    const float y = f.sy(v);
    if (y < f.a0.y - 0.5f || y > f.a1.y + 0.5f) continue;
    dl->AddLine(ImVec2(f.a0.x, y), ImVec2(f.a1.x, y), grid_col);
    const std::string s = fmt(spec.y, v);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    dl->AddText(ImVec2(f.a0.x - 4 - ts.x, y - ts.y * 0.5f), text_col, s.c_str());
  }
  const int x_max_ticks = std::max(2, static_cast<int>(f.aw() / 70.0f));
  float last_x_end = -1e30f;
  for (double v : ticks_for(spec.x, f.xr, x_max_ticks)) {
    const float x = f.sx(v);
    if (x < f.a0.x - 0.5f || x > f.a1.x + 0.5f) continue;
    dl->AddLine(ImVec2(x, f.a0.y), ImVec2(x, f.a1.y), grid_col);
    const std::string s = fmt(spec.x, v);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    float tx = std::min(std::max(x - ts.x * 0.5f, f.p0.x), f.p0.x + f.size.x - ts.x);
    if (tx < last_x_end + 6) continue;
    dl->AddText(ImVec2(tx, f.a1.y + 3), text_col, s.c_str());
    last_x_end = tx + ts.x;
  }
  if (!spec.x.label.empty()) {
    const ImVec2 ts = ImGui::CalcTextSize(spec.x.label.c_str());
    dl->AddText(ImVec2(f.a0.x + (f.aw() - ts.x) * 0.5f, f.a1.y + ImGui::GetTextLineHeight() + 5),
                ImGui::GetColorU32(ImGuiCol_TextDisabled), spec.x.label.c_str());
  }
}

// Horizontal and vertical reference lines with their labels (inside the plot area's clip).
void draw_ref_lines(ImDrawList* dl, const Frame& f) {
  const PlotSpec& spec = *f.spec;
  for (const RefLine& r : spec.hlines) {
    if (!usable(r.value, spec.y.scale)) continue;
    const float y = f.sy(r.value);
    const ImU32 c = r.color ? r.color : IM_COL32(220, 220, 220, 200);
    if (r.dashed)
      dashed_line(dl, ImVec2(f.a0.x, y), ImVec2(f.a1.x, y), c, 1.5f);
    else
      dl->AddLine(ImVec2(f.a0.x, y), ImVec2(f.a1.x, y), c, 1.5f);
    const ImVec2 ts = ImGui::CalcTextSize(r.label.c_str());
    const float ly = (y - ts.y - 1 < f.a0.y) ? y + 2 : y - ts.y - 1;
    // A dark plate under the label keeps it readable where curves cross it.
    dl->AddRectFilled(ImVec2(f.a1.x - ts.x - 6, ly), ImVec2(f.a1.x - 2, ly + ts.y),
                      IM_COL32(15, 15, 18, 200), 2.0f);
    dl->AddText(ImVec2(f.a1.x - ts.x - 4, ly), c, r.label.c_str());
  }
  for (const RefLine& r : spec.vlines) {
    if (!usable(r.value, spec.x.scale)) continue;
    const float x = f.sx(r.value);
    const ImU32 c = r.color ? r.color : IM_COL32(220, 220, 220, 200);
    if (r.dashed)
      dashed_line(dl, ImVec2(x, f.a0.y), ImVec2(x, f.a1.y), c, 1.5f);
    else
      dl->AddLine(ImVec2(x, f.a0.y), ImVec2(x, f.a1.y), c, 1.5f);
    const ImVec2 ts = ImGui::CalcTextSize(r.label.c_str());
    const float lx = (x + 3 + ts.x > f.a1.x) ? x - ts.x - 3 : x + 3;
    dl->AddText(ImVec2(lx, f.a1.y - ts.y - 2), c, r.label.c_str());
  }
}

// The series (lines and markers); with `hovered`, the point nearest the mouse goes to `hover`
// and its screen position to `best_pos`.
void draw_series(ImDrawList* dl, const Frame& f, bool hovered, PlotHover* hover, ImVec2* best_pos) {
  const PlotSpec& spec = *f.spec;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  double best_dist = 18.0;
  for (size_t si = 0; si < spec.series.size(); ++si) {
    const Series& s = spec.series[si];
    const ImU32 c = series_color(s, si);
    const size_t n = std::min(s.x.size(), s.y.size());
    bool have_prev = false;
    ImVec2 prev;
    std::vector<double> px(n, std::nan("")), py(n, std::nan(""));
    for (size_t i = 0; i < n; ++i) {
      if (!usable(s.x[i], spec.x.scale) || !usable(s.y[i], spec.y.scale)) {
        have_prev = false;
        continue;
      }
      const ImVec2 p(f.sx(s.x[i]), f.sy(s.y[i]));
      if (s.line && have_prev) {
        if (s.dashed)
          dashed_line(dl, prev, p, c, s.thickness);
        else
          dl->AddLine(prev, p, c, s.thickness);
      }
      if (s.markers) dl->AddCircleFilled(p, s.thickness + 1.5f, c, 12);
      px[i] = p.x;
      py[i] = p.y;
      prev = p;
      have_prev = true;
    }
    if (hovered) {
      const int k = nearest_point(px, py, mouse.x, mouse.y, best_dist);
      if (k >= 0) {
        best_dist = std::hypot(px[k] - mouse.x, py[k] - mouse.y);
        hover->series = static_cast<int>(si);
        hover->point = k;
        *best_pos = ImVec2(static_cast<float>(px[k]), static_cast<float>(py[k]));
      }
    }
  }
}

// The legend as a box in a corner of the plot area (every position but kNone and kAbove).
void draw_legend_box(ImDrawList* dl, const Frame& f) {
  const PlotSpec& spec = *f.spec;
  if (spec.legend == LegendPos::kNone || spec.legend == LegendPos::kAbove) return;
  float lw = 0;
  int rows = 0;
  for (const Series& s : spec.series)
    if (!s.name.empty()) {
      lw = std::max(lw, ImGui::CalcTextSize(s.name.c_str()).x);
      ++rows;
    }
  if (rows == 0) return;
  const float rh = legend_row_h();
  const ImVec2 ls(lw + kSwatch + 3 * kPad, static_cast<float>(rows) * rh + 2 * kPad);
  const bool right_side =
      spec.legend == LegendPos::kTopRight || spec.legend == LegendPos::kBottomRight;
  const bool bottom_side =
      spec.legend == LegendPos::kBottomLeft || spec.legend == LegendPos::kBottomRight;
  const ImVec2 l0(right_side ? f.a1.x - ls.x - 6 : f.a0.x + 6,
                  bottom_side ? f.a1.y - ls.y - 6 : f.a0.y + 6);
  dl->AddRectFilled(l0, ImVec2(l0.x + ls.x, l0.y + ls.y), IM_COL32(20, 20, 24, 210), 3.0f);
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  float y = l0.y + kPad;
  for (size_t si = 0; si < spec.series.size(); ++si) {
    const Series& s = spec.series[si];
    if (s.name.empty()) continue;
    legend_entry(dl, ImVec2(l0.x + kPad, y), s, series_color(s, si), text_col);
    y += rh;
  }
}

// The hover readout: the nearest point, else the data coordinates under the mouse.
void draw_hover(ImDrawList* dl, const Frame& f, const PlotHover& hover, ImVec2 best_pos) {
  const PlotSpec& spec = *f.spec;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (hover.series >= 0) {
    const Series& s = spec.series[static_cast<size_t>(hover.series)];
    dl->AddCircle(best_pos, 6.0f, IM_COL32(255, 255, 255, 230), 16, 2.0f);
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(s.name.c_str());
    ImGui::Text("%s: %s", spec.x.label.empty() ? "x" : spec.x.label.c_str(),
                fmt(spec.x, s.x[static_cast<size_t>(hover.point)]).c_str());
    ImGui::Text("%s: %s", spec.y.label.empty() ? "y" : spec.y.label.c_str(),
                fmt(spec.y, s.y[static_cast<size_t>(hover.point)]).c_str());
    ImGui::EndTooltip();
  } else if (mouse.x >= f.a0.x && mouse.x <= f.a1.x && mouse.y >= f.a0.y && mouse.y <= f.a1.y) {
    const double vx = unit_to_axis((mouse.x - f.a0.x) / f.aw(), f.xr, spec.x.scale);
    const double vy = unit_to_axis((f.a1.y - mouse.y) / f.ah(), f.yr, spec.y.scale);
    ImGui::BeginTooltip();
    ImGui::Text("x %s   y %s", fmt(spec.x, vx).c_str(), fmt(spec.y, vy).c_str());
    ImGui::EndTooltip();
  }
}

}  // namespace

PlotHover draw_plot(const char* id, const PlotSpec& spec, ImVec2 size) {
  PlotHover hover;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (size.x <= 0) size.x = std::max(120.0f, avail.x + size.x);
  if (size.y <= 0) size.y = 250.0f;
  Frame f;
  f.spec = &spec;
  f.size = ImVec2(std::max(size.x, 120.0f), std::max(size.y, 100.0f));
  f.p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, f.size);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  f.xr = range_for(spec.x, spec.series, true, spec.vlines);
  f.yr = range_for(spec.y, spec.series, false, spec.hlines);

  float legend_h = 0;
  std::vector<ImVec2> above_pos(spec.series.size(), ImVec2(-1, -1));
  if (spec.legend == LegendPos::kAbove) above_pos = legend_above_layout(spec, f.size.x, &legend_h);
  std::vector<double> y_ticks;
  if (!layout_frame(spec, legend_h, &f, &y_ticks)) return hover;

  draw_header(dl, f, above_pos);
  draw_grid(dl, f, y_ticks);
  dl->PushClipRect(f.a0, f.a1, true);
  draw_ref_lines(dl, f);
  ImVec2 best_pos;
  draw_series(dl, f, hovered, &hover, &best_pos);
  dl->PopClipRect();
  draw_legend_box(dl, f);
  if (hovered) draw_hover(dl, f, hover, best_pos);
  return hover;
}

}  // namespace vis
