// View state of the latency panel (app/panel_latency.cpp), kept in App.
#pragma once

namespace app {

struct LatencyState {
};

}  // namespace app
