// The Learn view's chapters. Each chapter is one picture that grows beat by beat; a beat has a
// short caption (at most three sentences), the exact figures behind it (from attention/), at
// most three controls, and the workbench setup "Open in workbench" applies. One file a chapter
// (app/learn/ch*.cpp), listed in reading order by chapters().
//
// text() is pure (no ImGui): the tests compare every figure a caption shows with attention/.
// draw() paints the canvas for progress t of the current beat; earlier beats are drawn whole.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/app_state.h"
#include "app/learn_state.h"
#include "attention/config.h"
#include "attention/roofline.h"

namespace app::learn {

// One exact figure of the numbers strip: "KV bytes per token, all layers" = "128 KiB".
struct Fact {
  std::string label;
  std::string value;
};

struct BeatText {
  std::string title;    // the beat's name (beat list, scrubber)
  std::string caption;  // at most three sentences; every number in it comes from attention/
  std::vector<Fact> numbers;
};

// What "Open in workbench" sets on the panels (the user's own settings change only then).
struct WorkbenchSetup {
  std::string preset;   // empty: keep the user's model
  std::string variant;  // what-if variant; empty: the model as it is
  int kv_heads = 0;     // the what-if's Hkv (gqa), 0 = keep
  std::int64_t seq = 32768;
  std::int64_t batch = 1;
  attn::DType dtype = attn::DType::kBf16;
  int tp = 1;
  std::string gpu;  // empty: keep
  PanelId focus = PanelId::kKvCache;
  LatencyTab latency_tab = LatencyTab::kNone;  // the latency panel's tab to bring forward
};

// The inputs of a chapter for one frame.
struct Lesson {
  const App* app = nullptr;                  // the user's state, read only
  const attn::ModelConfig* model = nullptr;  // the user's model (app->model)
  const LessonControls* ctl = nullptr;
  const attn::GpuSpec* gpu = nullptr;  // the lesson's GPU (never null when specs exist)
  int beat = 0;                        // 0-based
  float t = 1;                         // 0..1: progress of the beat's animation
  double time = 0;                     // seconds since the beat was entered (loops)
};

// The canvas a chapter draws in: screen rectangle and draw list.
struct Canvas {
  ImDrawList* dl = nullptr;
  ImVec2 p0;
  ImVec2 size;
  ImVec2 at(float fx, float fy) const { return ImVec2(p0.x + fx * size.x, p0.y + fy * size.y); }
};

struct Chapter {
  const char* title;    // "One decode step"
  const char* answers;  // the question it answers, shown under the title
  int beats;
  BeatText (*text)(const Lesson&);
  WorkbenchSetup (*setup)(const Lesson&);
  // ImGui widgets (at most three) editing the lesson's own controls; may be null.
  void (*controls)(LessonControls&, const Lesson&);
  void (*draw)(const Lesson&, const Canvas&);
  // The chapter's own starting values after the reset to the user's settings (may be null).
  void (*defaults)(LessonControls&) = nullptr;
};

// The chapters in reading order.
const std::vector<const Chapter*>& chapters();

// Each chapter, one file each.
const Chapter& chapter_decode_step();  // ch01_decode_step.cpp
const Chapter& chapter_share_kv();     // ch02_share_kv.cpp
const Chapter& chapter_compress();     // ch03_compress.cpp
const Chapter& chapter_absorb();       // ch04_absorb.cpp
const Chapter& chapter_window();       // ch05_window.cpp
const Chapter& chapter_roofline();     // ch06_roofline.cpp
const Chapter& chapter_kernel();       // ch07_kernel.cpp
const Chapter& chapter_worklog();      // ch08_worklog.cpp
const Chapter& chapter_measure();      // ch09_measure.cpp
const Chapter& chapter_tp();           // ch10_tp.cpp

// The Lesson for the current chapter and beat of `app` (t and time from app.learn).
Lesson make_lesson(const App& app);

}  // namespace app::learn
