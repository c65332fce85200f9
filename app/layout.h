// Where the panels open on first start (ImGuiCond_FirstUseEver; later the user's ImGui ini
// wins). Pure maths, tested in tests/gui/test_layout.cpp: inside the work area, and the panels
// shown at first start never overlap.
//
//   +---------+------------------+------------------+
//   | model   | kv-cache         | data-flow        |
//   |         +------------------+------------------+
//   |         | attention        | latency          |
//   +---------+------------------+------------------+
#pragma once
#include <string>
#include <vector>

#include "app/panel_table.h"

namespace app {

struct PanelRect {
  float x = 0, y = 0, w = 0, h = 0;
  bool overlaps(const PanelRect& o) const {
    return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h;
  }
};

// One rect per panel_names() entry, for a display of w x h with `top` pixels taken by the menu
// bar and `bottom` by the status bar. `gap` pixels are left between neighbours.
std::vector<PanelRect> default_layout(float w, float h, float top, float bottom, float gap = 4);
// The whole work area less a margin: the rect of a single focused panel (--panel).
PanelRect focused_rect(float w, float h, float top, float bottom, float margin = 8);

}  // namespace app
