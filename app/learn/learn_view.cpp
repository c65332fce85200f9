// [SECTION] Navigation   beats, chapters, the lesson's controls
// [SECTION] Layout       chapter list | title, canvas, caption, controls, nav, numbers
#include "app/learn/learn_view.h"

#include <algorithm>
#include <cctype>
#include <string>

#include <imgui.h>

#include "app/style.h"
#include "attention/units.h"
#include "visuals/lesson.h"

namespace app::learn {
namespace {

int chapter_count() { return static_cast<int>(chapters().size()); }
const Chapter& current(const App& app) {
  return *chapters()[static_cast<size_t>(std::clamp(app.learn.chapter, 0, chapter_count() - 1))];
}

// Advances the beat clock by the real (or screenshot) time since the last Learn frame.
void tick(App& app) {
  LearnState& s = app.learn;
  if (s.last_clock >= 0 && !s.paused) s.beat_time += std::max(0.0, app.clock_s - s.last_clock);
  s.last_clock = app.clock_s;
  if (s.controls_chapter != s.chapter || s.controls_beat != s.beat) {
    s.controls = controls_from_user(app);
    if (current(app).defaults) current(app).defaults(s.controls);
    s.controls_chapter = s.chapter;
    s.controls_beat = s.beat;
  }
}

void keys(App& app) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || ImGui::IsAnyItemActive()) return;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space), false))
    app.learn.paused = !app.learn.paused;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) next_beat(app);
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) prev_beat(app);
}

// ---- [SECTION] Layout ----------------------------------------------------------------------

void chapter_list(App& app) {
  ImGui::PushFont(fonts().caption);
  ImGui::TextDisabled("Chapters");
  ImGui::PopFont();
  ImGui::Separator();
  for (int i = 0; i < chapter_count(); ++i) {
    const Chapter& c = *chapters()[static_cast<size_t>(i)];
    const std::string label = std::to_string(i + 1) + ". " + c.title;
    if (ImGui::Selectable(label.c_str(), app.learn.chapter == i)) go_to(app, i, 0);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", c.answers);
  }
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextWrapped(
      "Space pauses, the arrow keys step. Every figure comes from the exact model in "
      "attention/; the Workbench holds the full panels.");
}

void beat_strip(App& app, const Chapter& c, const Lesson& l) {
  for (int b = 0; b < c.beats; ++b) {
    Lesson lb = l;
    lb.beat = b;
    const std::string label =
        std::to_string(b + 1) + " " + c.text(lb).title + "##beat" + std::to_string(b);
    if (b > 0) ImGui::SameLine();
    const bool on = b == app.learn.beat;
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::SmallButton(label.c_str())) go_to(app, app.learn.chapter, b);
    if (on) ImGui::PopStyleColor();
  }
}

void nav_row(App& app, const Chapter& c, const Lesson& l) {
  const bool first = app.learn.chapter == 0 && app.learn.beat == 0;
  const bool last = app.learn.chapter == chapter_count() - 1 && app.learn.beat == c.beats - 1;
  ImGui::BeginDisabled(first);
  if (ImGui::Button("< Back")) prev_beat(app);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button(app.learn.paused ? "Play" : "Pause", ImVec2(ImGui::GetFontSize() * 4, 0)))
    app.learn.paused = !app.learn.paused;
  ImGui::SameLine();
  float t = l.t;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  if (ImGui::SliderFloat("##scrub", &t, 0.0f, 1.0f, "replay %.2f")) {
    app.learn.beat_time = static_cast<double>(t) * kBeatSeconds;
    app.learn.paused = true;
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(last);
  if (ImGui::Button("Next >")) next_beat(app);
  ImGui::EndDisabled();
  ImGui::SameLine(0, ImGui::GetFontSize() * 2);
  if (ImGui::Button("Open in workbench")) open_in_workbench(app, c.setup(l));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Sets the panels to this beat's model, variant, S, B, dtype and TP.");
}

// Text wrapped only at spaces (ImGui also breaks after '.', which splits "4.80 TB/s"), and not
// between a number and the word after it.
void wrapped_at_spaces(const std::string& s, float width) {
  size_t start = 0;
  while (start < s.size()) {
    size_t end = start, last_fit = std::string::npos;
    while (end <= s.size()) {
      size_t sp = s.find(' ', end);
      // A number keeps its unit: "8.58 GiB" and "32 query" never break after the digits.
      while (sp != std::string::npos && sp > 0 &&
             std::isdigit(static_cast<unsigned char>(s[sp - 1])))
        sp = s.find(' ', sp + 1);
      const size_t stop = sp == std::string::npos ? s.size() : sp;
      if (ImGui::CalcTextSize(s.c_str() + start, s.c_str() + stop).x > width &&
          last_fit != std::string::npos)
        break;
      last_fit = stop;
      if (stop == s.size()) break;
      end = stop + 1;
    }
    ImGui::TextUnformatted(s.c_str() + start, s.c_str() + last_fit);
    start = last_fit + 1;
  }
}

void numbers_strip(App& app, const BeatText& text) {
  ImGui::SetNextItemOpen(app.learn.numbers_open, ImGuiCond_Always);
  app.learn.numbers_open = ImGui::CollapsingHeader("Numbers (exact, from attention/)");
  if (!app.learn.numbers_open || text.numbers.empty()) return;
  const int cols = 3;
  if (ImGui::BeginTable("##numbers", cols * 2, ImGuiTableFlags_SizingFixedFit)) {
    for (size_t i = 0; i < text.numbers.size(); ++i) {
      if (i % cols == 0) ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", text.numbers[i].label.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%s   ", text.numbers[i].value.c_str());
    }
    ImGui::EndTable();
  }
}

}  // namespace

// ---- [SECTION] Navigation ------------------------------------------------------------------

LessonControls controls_from_user(const App& app) {
  LessonControls c;
  c.seq = app.seq;
  c.dtype = app.kv_dtype;
  c.gpu = app.gpu_name;
  c.tp = app.tp;
  c.kv_heads = app.model.variant == attn::Variant::kMla ? 1 : std::max(1, app.model.kv_heads);
  return c;
}

void go_to(App& app, int chapter, int beat) {
  LearnState& s = app.learn;
  s.chapter = std::clamp(chapter, 0, chapter_count() - 1);
  const int beats = chapters()[static_cast<size_t>(s.chapter)]->beats;
  s.beat = beat < 0 ? beats - 1 : std::clamp(beat, 0, beats - 1);
  s.beat_time = 0;
  s.paused = false;
}

void next_beat(App& app) {
  const LearnState& s = app.learn;
  if (s.beat + 1 < current(app).beats)
    go_to(app, s.chapter, s.beat + 1);
  else if (s.chapter + 1 < chapter_count())
    go_to(app, s.chapter + 1, 0);
}

void prev_beat(App& app) {
  const LearnState& s = app.learn;
  if (s.beat > 0)
    go_to(app, s.chapter, s.beat - 1);
  else if (s.chapter > 0)
    go_to(app, s.chapter - 1, -1);
}

void open_in_workbench(App& app, const WorkbenchSetup& s) {
  if (!s.preset.empty()) load_preset(app, s.preset);
  if (s.kv_heads > 0) app.what_if_params.kv_heads = s.kv_heads;
  set_what_if_variant(app, s.variant);
  app.seq = s.seq;
  app.batch = s.batch;
  app.kv_dtype = s.dtype;
  app.tp = s.tp;
  if (!s.gpu.empty()) app.gpu_name = s.gpu;
  app.shown(s.focus) = true;
  if (s.latency_tab != LatencyTab::kNone) app.latency.open_tab = s.latency_tab;
  app.view = View::kWorkbench;
  app.ui.focus_panel = panel_info(s.focus).title;
  post_message(app, "workbench: " +
                        (app.model.display_name.empty() ? app.model.name : app.model.display_name) +
                        ", S " + attn::format_tokens(static_cast<double>(s.seq)) + ", B " +
                        std::to_string(s.batch) + ", " + std::string(attn::dtype_name(s.dtype)) +
                        ", TP " + std::to_string(s.tp));
}

void draw_learn_view(App& app) {
  tick(app);
  keys(app);
  const Chapter& c = current(app);
  const Lesson l = make_lesson(app);
  const BeatText text = c.text(l);

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float top = ImGui::GetFrameHeight();
  const float bottom = ImGui::GetFrameHeight() + 4.0f;
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x, vp->Pos.y + top));
  ImGui::SetNextWindowSize(ImVec2(vp->Size.x, vp->Size.y - top - bottom));
  // No window background: the clear colour behind it is the same dark, and a full-window
  // blended quad is the costliest thing llvmpipe draws.
  const ImGuiWindowFlags flags =
      ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
      ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoBackground;
  if (!ImGui::Begin("Learn", nullptr, flags)) {
    ImGui::End();
    return;
  }
  const float em = ImGui::GetFontSize();
  ImGui::BeginChild("##chapters", ImVec2(em * 16, 0), true);
  chapter_list(app);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("##lesson", ImVec2(0, 0), false);
  {
    ImGui::PushFont(fonts().title);
    ImGui::Text("%d. %s", app.learn.chapter + 1, c.title);
    ImGui::PopFont();
    ImGui::TextDisabled("%s", c.answers);
    beat_strip(app, c, l);
    // The canvas takes what the caption, controls, navigation and numbers leave.
    const float caption_h = fonts().caption->FontSize * 3.6f;
    const float rows_h = ImGui::GetFrameHeightWithSpacing() * 3.2f;
    const float numbers_h = app.learn.numbers_open ? ImGui::GetTextLineHeightWithSpacing() * 4 : 0;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float canvas_h = std::max(em * 10, avail.y - caption_h - rows_h - numbers_h);
    Canvas cv;
    cv.p0 = ImGui::GetCursorScreenPos();
    cv.size = ImVec2(avail.x, canvas_h);
    cv.dl = ImGui::GetWindowDrawList();
    // A frame, not a fill: on a software rasteriser every filled pixel costs.
    cv.dl->AddRect(cv.p0, ImVec2(cv.p0.x + cv.size.x, cv.p0.y + cv.size.y),
                   IM_COL32(60, 62, 70, 255), 6.0f);
    cv.dl->PushClipRect(cv.p0, ImVec2(cv.p0.x + cv.size.x, cv.p0.y + cv.size.y), true);
    c.draw(l, cv);  // may place ImGui items (a plot) on the canvas
    cv.dl->PopClipRect();
    ImGui::SetCursorScreenPos(cv.p0);
    ImGui::Dummy(cv.size);
    // The caption, at most three sentences, in the caption font, wrapped at a reading width.
    ImGui::PushFont(fonts().caption);
    wrapped_at_spaces(text.caption, std::min(avail.x, em * 72));
    ImGui::PopFont();
    if (c.controls) {
      ImGui::PushID("controls");
      c.controls(app.learn.controls, l);
      ImGui::PopID();
    }
    nav_row(app, c, l);
    numbers_strip(app, text);
  }
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace app::learn
