// Frame timings of the explorer, for measuring how smooth it is (ATTNLAB_FRAME_STATS=1 in
// screenshot mode, tools/frame_check.sh). Pure data and arithmetic: no ImGui, no SDL, so it is
// unit-tested headless. A measurement tool, not a test: nothing here asserts a time.
//
// Each frame records its total time (start of one frame to the start of the next, what a person
// sees) and the time of each phase of the main loop, so the slowest frames can be explained.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "app/panel_table.h"

namespace app {

// Phases of one frame of app/main.cpp's loop, in order. The panels are timed inside
// draw_frame (explorer.cpp) and reported beside them.
enum class FramePhase : int {
  kEvents,           // SDL_PollEvent + ImGui_ImplSDL2_ProcessEvent
  kFonts,            // font atlas rebuild after a UI-scale change (normally 0)
  kBackendNewFrame,  // ImGui_ImplOpenGL3_NewFrame + ImGui_ImplSDL2_NewFrame
  kImGuiNewFrame,    // ImGui::NewFrame
  kPanels,           // app::draw_frame (menus, the view or the panels, popups, status bar)
  kRender,           // ImGui::Render (builds the draw lists)
  kGlDraw,           // glClear + ImGui_ImplOpenGL3_RenderDrawData (llvmpipe queues the work)
  kReadback,         // glReadPixels for a PNG (screenshot or export; normally 0)
  kSwap,             // SDL_GL_SwapWindow (llvmpipe rasterises and copies to the X server here)
  kPace,             // sleep to the 60 Hz pace (interactive, or ATTNLAB_FRAME_PACE=1)
  kSettings,         // settings save check (interactive only)
  kCount
};
constexpr int kFramePhaseCount = static_cast<int>(FramePhase::kCount);
const char* frame_phase_name(FramePhase p);  // "events", "fonts", ... "settings"

constexpr int kPanelTimerCount = static_cast<int>(kPanelCount);  // indexed by PanelId

struct FrameRecord {
  std::int64_t frame = 0;  // App::frame when the frame started
  double total_ms = 0;     // start of this frame to the start of the next
  std::array<double, kFramePhaseCount> phase_ms{};
  std::array<double, kPanelTimerCount> panel_ms{};  // inside kPanels
  bool job_running = false;  // a benchmark job ran while this frame was drawn
  int job_case = -1;         // its case being run (0-based) at the frame's end
  // The frame that reads the window back and writes the PNG (screenshot mode's last frame):
  // reported on its own line, left out of the summaries (no interactive frame does that work,
  // bar File > Export > PNG).
  bool screenshot = false;
};

struct FrameSummary {
  int count = 0;
  double median_ms = 0, p99_ms = 0, max_ms = 0;
  int over_50ms = 0;  // frames longer than 50 ms
  int over_33ms = 0;  // frames longer than 33 ms (two frames missed at 60 Hz)
};
// Summary of `ms` (any order). p99 is the nearest-rank 99th percentile. Empty: all zero.
FrameSummary summarize_frames(std::vector<double> ms);

// The lines ATTNLAB_FRAME_STATS prints: idle frames and frames while a job ran (each with
// median / p99 / max / over 50 ms), the median of each phase and panel, and the phases of the
// `worst` slowest frames. `records` excludes the first frame (start-up, reported separately).
std::string frame_report(const std::vector<FrameRecord>& records, int worst = 5);

}  // namespace app
