#include "app/frame_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/cli/cli.h"

namespace app {
namespace {

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

std::string summary_line(const char* what, const FrameSummary& s) {
  if (s.count == 0) return std::string(what) + ": no frames\n";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s: %d frames, median %.2f ms, p99 %.2f ms, max %.2f ms, %d over 33 ms, "
                "%d over 50 ms\n",
                what, s.count, s.median_ms, s.p99_ms, s.max_ms, s.over_33ms, s.over_50ms);
  return buf;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// "events 0.01, ..., swap 9.80; panels: model 0.05 ..." with the phases above `floor_ms`.
std::string breakdown(const FrameRecord& r, double floor_ms) {
  std::string s;
  for (int p = 0; p < kFramePhaseCount; ++p) {
    if (r.phase_ms[static_cast<size_t>(p)] < floor_ms) continue;
    if (!s.empty()) s += ", ";
    s += std::string(frame_phase_name(static_cast<FramePhase>(p))) + " " +
         format("%.2f", r.phase_ms[static_cast<size_t>(p)]);
  }
  double sum = 0;
  for (double v : r.phase_ms) sum += v;
  if (r.total_ms - sum >= floor_ms && floor_ms > 0)
    s += (s.empty() ? "" : ", ") + std::string("unaccounted ") + format("%.2f", r.total_ms - sum);
  std::string panels;
  for (int i = 0; i < kPanelTimerCount; ++i) {
    if (r.panel_ms[static_cast<size_t>(i)] < floor_ms) continue;
    if (!panels.empty()) panels += ", ";
    panels += panel_names()[static_cast<size_t>(i)] + " " +
              format("%.2f", r.panel_ms[static_cast<size_t>(i)]);
  }
  if (!panels.empty()) s += "; panels: " + panels;
  return s;
}

}  // namespace

const char* frame_phase_name(FramePhase p) {
  switch (p) {
    case FramePhase::kEvents:
      return "events";
    case FramePhase::kFonts:
      return "fonts";
    case FramePhase::kBackendNewFrame:
      return "backend-new-frame";
    case FramePhase::kImGuiNewFrame:
      return "imgui-new-frame";
    case FramePhase::kPanels:
      return "panels";
    case FramePhase::kRender:
      return "render";
    case FramePhase::kGlDraw:
      return "gl-draw";
    case FramePhase::kReadback:
      return "readback";
    case FramePhase::kSwap:
      return "swap";
    case FramePhase::kPace:
      return "pace";
    case FramePhase::kSettings:
      return "settings";
    case FramePhase::kCount:
      break;
  }
  return "?";
}

FrameSummary summarize_frames(std::vector<double> ms) {
  FrameSummary s;
  s.count = static_cast<int>(ms.size());
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  s.median_ms = ms[ms.size() / 2];
  // Nearest rank: the smallest value with at least 99 % of the frames at or below it.
  const auto rank = static_cast<size_t>(std::ceil(0.99 * static_cast<double>(ms.size())));
  s.p99_ms = ms[std::min(ms.size() - 1, rank > 0 ? rank - 1 : 0)];
  s.max_ms = ms.back();
  for (double v : ms) {
    if (v > 50.0) ++s.over_50ms;
    if (v > 33.0) ++s.over_33ms;
  }
  return s;
}

std::string frame_report(const std::vector<FrameRecord>& records, int worst) {
  std::vector<double> idle, busy;
  std::string shot;
  for (const FrameRecord& r : records) {
    if (r.screenshot) {
      shot = format("screenshot frame (read back + PNG write, not counted above): %.2f ms: ",
                    r.total_ms) +
             breakdown(r, 0.5) + "\n";
      continue;
    }
    (r.job_running ? busy : idle).push_back(r.total_ms);
  }
  std::string out;
  out += summary_line("frames idle", summarize_frames(idle));
  if (!busy.empty()) out += summary_line("frames while a benchmark ran", summarize_frames(busy));
  if (records.empty()) return out;

  FrameRecord med;  // median of each phase over the counted frames (not a frame that happened)
  for (int p = 0; p < kFramePhaseCount; ++p) {
    std::vector<double> v;
    for (const FrameRecord& r : records)
      if (!r.screenshot) v.push_back(r.phase_ms[static_cast<size_t>(p)]);
    med.phase_ms[static_cast<size_t>(p)] = median_of(v);
  }
  for (int i = 0; i < kPanelTimerCount; ++i) {
    std::vector<double> v;
    for (const FrameRecord& r : records)
      if (!r.screenshot) v.push_back(r.panel_ms[static_cast<size_t>(i)]);
    med.panel_ms[static_cast<size_t>(i)] = median_of(v);
  }
  out += "median per phase (ms): " + breakdown(med, 0.0) + "\n";

  std::vector<const FrameRecord*> order;
  for (const FrameRecord& r : records)
    if (!r.screenshot) order.push_back(&r);
  std::sort(order.begin(), order.end(),
            [](const FrameRecord* a, const FrameRecord* b) { return a->total_ms > b->total_ms; });
  const size_t n = std::min(order.size(), static_cast<size_t>(std::max(0, worst)));
  for (size_t i = 0; i < n; ++i) {
    const FrameRecord& r = *order[i];
    char head[160];
    if (r.job_running)
      std::snprintf(head, sizeof head, "slow frame %lld (benchmark running, case %d): %.2f ms: ",
                    static_cast<long long>(r.frame), r.job_case + 1, r.total_ms);
    else
      std::snprintf(head, sizeof head,
                    "slow frame %lld: %.2f ms: ", static_cast<long long>(r.frame), r.total_ms);
    out += head + breakdown(r, 0.5) + "\n";
  }
  return out + shot;
}

}  // namespace app
