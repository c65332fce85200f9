// View state of the Learn view (app/learn/) and the Compare view (app/compare_view.cpp), kept in
// App. A lesson never changes the user's settings: its controls live here and are reset to the
// user's values whenever a beat or chapter is entered, so nothing a lesson tries leaks out.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "attention/dtype.h"

namespace app {

// What fills the window below the menu bar: the lesson, the five panels, or the side-by-side
// comparison. A first start opens the lesson; the choice is remembered.
enum class View : int { kLearn, kWorkbench, kCompare };
const char* view_name(View v);  // "learn", "workbench", "compare"

// The at most three things a beat lets the learner change (which ones a chapter shows is its
// choice). Defaults come from the user's settings when a beat is entered.
struct LessonControls {
  std::int64_t seq = 32768;  // S
  attn::DType dtype = attn::DType::kBf16;
  std::string gpu = "H200";
  int kv_heads = 8;     // Hkv of the grouped chapters
  int tp = 1;
  int worklog_family = 0;  // the worklog chapter's case (index into its recorded shapes)
};

struct LearnState {
  int chapter = 0;       // 0-based index into the chapter table
  int beat = 0;          // 0-based within the chapter
  double beat_time = 0;  // seconds since the beat was entered (scrubbed when paused)
  bool paused = false;
  bool numbers_open = false;
  LessonControls controls;
  int controls_chapter = -1, controls_beat = -1;  // the beat the controls were reset for
  double last_clock = -1;                         // App::clock_s of the previous Learn frame
};

struct CompareColumn {
  std::string preset;   // a preset name; empty = the user's current model
  std::string variant;  // what-if variant, empty = as the model is
};

struct CompareState {
  std::vector<CompareColumn> columns = {{"", "mha"}, {"", "gqa"}, {"", "mla"}};
  std::string error;  // a column that cannot be built (shown in place)
};

}  // namespace app
