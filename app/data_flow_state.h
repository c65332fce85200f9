// View state of the data-flow panel (app/panel_data_flow.cpp), kept in App.
#pragma once

namespace app {

struct DataFlowViewState {
  bool mla_naive = false;      // show MLA's naive form (K, V rebuilt per step) in the diagram
  bool animate = true;         // decode-step animation running
  float steps_per_second = 4;  // animation speed
  int layer = 0;               // which layer's shape is drawn (hybrids differ per layer)
};

}  // namespace app
