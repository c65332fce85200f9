#include "app/layout.h"

#include <algorithm>

#include "app/cli/cli.h"

namespace app {

std::vector<PanelRect> default_layout(float w, float h, float top, float bottom, float gap) {
  const float area_h = std::max(100.0f, h - top - bottom);
  const float area_w = std::max(200.0f, w);
  // The model column is a quarter of the width, at least 340 px when the display allows it.
  const float col0 =
      std::min(std::max(area_w * 0.25f, std::min(340.0f, area_w * 0.4f)), area_w * 0.4f);
  const float rest = area_w - col0;
  const float col_w = rest * 0.5f;
  const float row_h = area_h * 0.5f;
  auto rect = [&](float x, float y, float rw, float rh) {
    return PanelRect{x + gap * 0.5f, y + gap * 0.5f, std::max(1.0f, rw - gap),
                     std::max(1.0f, rh - gap)};
  };
  std::vector<PanelRect> r(panel_names().size());
  r[0] = rect(0, top, col0, area_h);                                     // model
  r[1] = rect(col0, top, col_w, row_h);                                  // kv-cache
  r[2] = rect(col0 + col_w, top, rest - col_w, row_h);                   // data-flow
  r[3] = rect(col0, top + row_h, col_w, area_h - row_h);                 // attention
  r[4] = rect(col0 + col_w, top + row_h, rest - col_w, area_h - row_h);  // latency
  return r;
}

PanelRect focused_rect(float w, float h, float top, float bottom, float margin) {
  return PanelRect{margin, top + margin, std::max(1.0f, w - 2 * margin),
                   std::max(1.0f, h - top - bottom - 2 * margin)};
}

}  // namespace app
