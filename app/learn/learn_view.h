// The Learn view: the explorer's front door. A chapter list on the left in reading order, one
// large canvas that draws one idea at a time, a caption of at most three sentences, at most
// three controls, Back / Next through the beats with a scrubber and a pause (Space; the arrow
// keys step), "Open in workbench", and a collapsed strip of the exact figures.
#pragma once
#include "app/app_state.h"
#include "app/learn/chapter.h"

namespace app::learn {

inline constexpr double kBeatSeconds = 1.2;  // one beat's animation

// Draws the view over the whole work area (between the menu bar and the status bar).
void draw_learn_view(App& app);

// Moves to chapter c, beat b (clamped; b < 0 means the chapter's last beat) and restarts the
// beat's animation. The lesson's controls are reset to the user's settings on the next frame.
void go_to(App& app, int chapter, int beat);
void next_beat(App& app);  // past a chapter's last beat: the next chapter's first
void prev_beat(App& app);  // before a chapter's first beat: the previous chapter's last
// The controls a beat starts from: the user's S, dtype, GPU, TP and the model's kv heads.
LessonControls controls_from_user(const App& app);
// Applies a beat's setup to the panels and switches to the workbench.
void open_in_workbench(App& app, const WorkbenchSetup& s);

}  // namespace app::learn
