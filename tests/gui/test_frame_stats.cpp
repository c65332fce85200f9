// The frame statistics of the explorer (app/frame_stats.h): the summary is the order statistics
// of its input, the report splits idle frames from frames while a benchmark ran, and the
// screenshot frame (read back + PNG write) is reported apart. No time is asserted of anything.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "app/frame_stats.h"

TEST_CASE("frame stats: the summary is the median, p99, max and counts of its input", "[frames]") {
  const unsigned seed = 20261202;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::lognormal_distribution<double> ms(2.5, 0.6);  // around 12 ms with a long tail
  for (int trial = 0; trial < 50; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 500);
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) x = ms(rng);
    CAPTURE(trial, n);
    const app::FrameSummary s = app::summarize_frames(v);
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    CHECK(s.count == n);
    CHECK(s.median_ms == sorted[static_cast<size_t>(n / 2)]);
    CHECK(s.max_ms == sorted.back());
    CHECK(s.median_ms <= s.p99_ms);
    CHECK(s.p99_ms <= s.max_ms);
    // Nearest rank: at least 99 % of the frames are at or below p99, and fewer below it.
    const auto at_or_below =
        std::count_if(v.begin(), v.end(), [&](double x) { return x <= s.p99_ms; });
    const auto below = std::count_if(v.begin(), v.end(), [&](double x) { return x < s.p99_ms; });
    CHECK(static_cast<double>(at_or_below) >= 0.99 * n);
    CHECK(static_cast<double>(below) < 0.99 * n);
    CHECK(s.over_50ms == std::count_if(v.begin(), v.end(), [](double x) { return x > 50.0; }));
    CHECK(s.over_33ms == std::count_if(v.begin(), v.end(), [](double x) { return x > 33.0; }));
  }
  const app::FrameSummary empty = app::summarize_frames({});
  CHECK(empty.count == 0);
  CHECK(empty.max_ms == 0);
}

TEST_CASE("frame stats: the report splits idle and benchmark frames and sets the screenshot apart",
          "[frames]") {
  std::vector<app::FrameRecord> records;
  for (int i = 0; i < 20; ++i) {
    app::FrameRecord r;
    r.frame = i + 1;
    r.job_running = i >= 10;
    r.job_case = r.job_running ? 2 : -1;
    r.total_ms = r.job_running ? 20.0 + i : 10.0 + i;
    r.phase_ms[static_cast<size_t>(app::FramePhase::kSwap)] = r.total_ms - 1.0;
    r.phase_ms[static_cast<size_t>(app::FramePhase::kPanels)] = 1.0;
    r.panel_ms[4] = 0.75;
    records.push_back(r);
  }
  app::FrameRecord shot;
  shot.frame = 21;
  shot.screenshot = true;
  shot.total_ms = 150.0;
  shot.phase_ms[static_cast<size_t>(app::FramePhase::kReadback)] = 149.0;
  records.push_back(shot);

  const std::string report = app::frame_report(records, 3);
  INFO(report);
  CHECK(report.find("frames idle: 10 frames, median 15.00 ms") != std::string::npos);
  CHECK(report.find("max 19.00 ms") != std::string::npos);
  CHECK(report.find("frames while a benchmark ran: 10 frames, median 35.00 ms") !=
        std::string::npos);
  CHECK(report.find("max 39.00 ms, 6 over 33 ms, 0 over 50 ms") != std::string::npos);
  // The slowest frames are named with their phases and the case the benchmark was on.
  CHECK(report.find("slow frame 20 (benchmark running, case 3): 39.00 ms: panels 1.00, swap 38.00; "
                    "panels: latency 0.75") != std::string::npos);
  CHECK(report.find("slow frame 17") == std::string::npos);  // only the 3 slowest
  CHECK(report.find("screenshot frame (read back + PNG write, not counted above): 150.00 ms: "
                    "readback 149.00") != std::string::npos);
  CHECK(report.find("150.00 ms, ") == std::string::npos);  // in no summary line

  records.erase(records.begin() + 10, records.end());  // idle frames only
  const std::string idle = app::frame_report(records, 1);
  CHECK(idle.find("benchmark ran") == std::string::npos);
  CHECK(idle.find("screenshot frame") == std::string::npos);
}
