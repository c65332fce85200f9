// View state of the tour panel (app/panel_tour.cpp), kept in App.
#pragma once

namespace app {

struct TourState {
};

}  // namespace app
