// Axis maths of visuals/plot.h: nice steps, linear and log ticks, automatic ranges, the data <->
// unit mapping and the nearest-point search of the hover readout.
#include <algorithm>
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "visuals/plot.h"

using vis::AxisRange;
using vis::AxisScale;

namespace {

// m * 10^k with m in {1, 2, 5}.
bool is_125(double step) {
  const double k = std::floor(std::log10(step) + 1e-12);
  const double m = step / std::pow(10.0, k);
  return std::fabs(m - 1) < 1e-9 || std::fabs(m - 2) < 1e-9 || std::fabs(m - 5) < 1e-9 ||
         std::fabs(m - 10) < 1e-9;
}

}  // namespace

TEST_CASE("linear ticks are 1-2-5 multiples inside the range, at most max_ticks", "[gui][axis]") {
  const unsigned seed = 7001;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> mag(-6, 12), u(0, 1);
  for (int i = 0; i < 2000; ++i) {
    const double scale = std::pow(10.0, mag(rng));
    const double lo = (u(rng) - 0.5) * scale, hi = lo + (0.01 + u(rng)) * scale;
    const int max_ticks = 2 + static_cast<int>(u(rng) * 12);
    CAPTURE(lo, hi, max_ticks);
    const double nice = vis::nice_linear_step(lo, hi, max_ticks);
    CHECK(is_125(nice));
    CHECK((hi - lo) / nice <= max_ticks - 1 + 1e-9);
    const auto t = vis::linear_ticks(lo, hi, max_ticks);
    REQUIRE(t.size() >= 2);
    CHECK(static_cast<int>(t.size()) <= std::max(max_ticks, 6) + 1);
    const double step = t[1] - t[0];
    CHECK(is_125(step));
    for (size_t k = 0; k < t.size(); ++k) {
      CHECK(t[k] >= lo - step * 1e-6);
      CHECK(t[k] <= hi + step * 1e-6);
      CHECK(std::fabs(t[k] / step - std::round(t[k] / step)) < 1e-6);
      if (k > 0) CHECK(t[k] - t[k - 1] == Approx(step).epsilon(1e-6));
    }
  }
  CHECK(vis::linear_ticks(0, 10, 6) == std::vector<double>{0, 2, 4, 6, 8, 10});
  CHECK(vis::linear_ticks(1, 1, 5).empty());  // empty range: no ticks, no crash
}

TEST_CASE("log ticks are powers of the base inside the range", "[gui][axis]") {
  // Base 2 from 256 to 1M (the kv-cache x axis): every exponent fits in 12 ticks? No, 13 do not.
  const auto t = vis::log_ticks(256, 1 << 20, 2, 12);
  REQUIRE(t.size() >= 2);
  CHECK(t.size() <= 12);
  for (double v : t) {
    CHECK(v >= 256);
    CHECK(v <= (1 << 20));
    const double e = std::log2(v);
    CHECK(std::fabs(e - std::round(e)) < 1e-9);
  }
  CHECK(vis::log_ticks(1, 1000, 10, 10) == std::vector<double>{1, 10, 100, 1000});
  const unsigned seed = 7002;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> e(-3, 15), span(0.2, 12);
  for (int i = 0; i < 1000; ++i) {
    const double base = (i % 2) ? 10.0 : 2.0;
    const double lo = std::pow(10.0, e(rng)), hi = lo * std::pow(10.0, span(rng));
    const int max_ticks = 3 + i % 10;
    CAPTURE(lo, hi, base, max_ticks);
    const auto ticks = vis::log_ticks(lo, hi, base, max_ticks);
    CHECK(ticks.size() >= 2);
    for (size_t k = 0; k < ticks.size(); ++k) {
      CHECK(ticks[k] >= lo * (1 - 1e-9));
      CHECK(ticks[k] <= hi * (1 + 1e-9));
      if (k > 0) CHECK(ticks[k] > ticks[k - 1]);
    }
  }
  CHECK(vis::log_ticks(-1, 10, 10, 5).empty());
}

TEST_CASE("automatic ranges enclose the data; log ranges end on powers of the base",
          "[gui][axis]") {
  const unsigned seed = 7003;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> e(-2, 14), u(0, 1);
  for (int i = 0; i < 1000; ++i) {
    const double a = std::pow(10.0, e(rng)), b = a * (1 + 100 * u(rng));
    CAPTURE(a, b);
    const AxisRange lin = vis::auto_range(a, b, AxisScale::kLinear, 10, false);
    CHECK(lin.lo <= a);
    CHECK(lin.hi >= b);
    CHECK(lin.hi > lin.lo);
    const AxisRange lg = vis::auto_range(a, b, AxisScale::kLog, 2, false);
    CHECK(lg.lo <= a * (1 + 1e-12));
    CHECK(lg.hi >= b * (1 - 1e-12));
    CHECK(std::fabs(std::log2(lg.lo) - std::round(std::log2(lg.lo))) < 1e-9);
    CHECK(std::fabs(std::log2(lg.hi) - std::round(std::log2(lg.hi))) < 1e-9);
  }
  const AxisRange z = vis::auto_range(3, 7, AxisScale::kLinear, 10, true);
  CHECK(z.lo == 0);
  const AxisRange one = vis::auto_range(5, 5, AxisScale::kLinear, 10, false);
  CHECK(one.lo < 5);
  CHECK(one.hi > 5);
  const AxisRange bad = vis::auto_range(-1, 5, AxisScale::kLog, 10, false);
  CHECK(bad.lo > 0);
}

TEST_CASE("axis mapping is monotonic and unit_to_axis inverts it", "[gui][axis]") {
  const unsigned seed = 7004;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const AxisRange lin{-5, 20}, lg{256, 1 << 20};
  double prev_l = -1e9, prev_g = -1e9;
  for (int i = 0; i <= 100; ++i) {
    const double t = i / 100.0;
    const double vl = vis::unit_to_axis(t, lin, AxisScale::kLinear);
    const double vg = vis::unit_to_axis(t, lg, AxisScale::kLog);
    CHECK(vis::axis_to_unit(vl, lin, AxisScale::kLinear) == Approx(t).margin(1e-12));
    CHECK(vis::axis_to_unit(vg, lg, AxisScale::kLog) == Approx(t).margin(1e-12));
    CHECK(vl > prev_l);
    CHECK(vg > prev_g);
    prev_l = vl;
    prev_g = vg;
  }
  CHECK(vis::axis_to_unit(256, lg, AxisScale::kLog) == Approx(0));
  CHECK(vis::axis_to_unit(1 << 20, lg, AxisScale::kLog) == Approx(1));
  CHECK(vis::axis_to_unit(4096, lg, AxisScale::kLog) == Approx(4.0 / 12.0));  // 2^8 .. 2^20
  CHECK(std::isinf(vis::axis_to_unit(0, lg, AxisScale::kLog)));
  (void)u;
}

TEST_CASE("the hover readout picks the nearest point within the distance", "[gui][axis]") {
  const unsigned seed = 7005;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 500);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> xs(50), ys(50);
    for (size_t i = 0; i < xs.size(); ++i) {
      xs[i] = u(rng);
      ys[i] = u(rng);
    }
    xs[3] = std::nan("");  // skipped
    const double px = u(rng), py = u(rng);
    int best = -1;
    double best_d = 1e300;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (std::isnan(xs[i])) continue;
      const double d = std::hypot(xs[i] - px, ys[i] - py);
      if (d < best_d) {
        best_d = d;
        best = static_cast<int>(i);
      }
    }
    const int got = vis::nearest_point(xs, ys, px, py, 40);
    CAPTURE(trial, px, py, best_d);
    if (best_d <= 40)
      CHECK(got == best);
    else
      CHECK(got == -1);
  }
}
