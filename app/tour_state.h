// View state of the tour panel (app/panel_tour.cpp), kept in App.
#pragma once

namespace app {

int tour_step_count();  // steps of the tour (panel_tour.cpp)

struct TourState {
  int step = 0;                  // current step, 0-based
  int applied_step = -1;         // step whose panel setup was last applied (-1: none yet)
  bool setup_requested = false;  // the learner asked for this step's setup (button)
  int mla_heads = 128;           // "where does MLA stop being memory-bound": H the learner drags
  int gqa_kv_heads = 8;          // "what GQA's group size trades": Hkv the learner drags
};

}  // namespace app
