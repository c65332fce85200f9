// View state of the attention panel (app/panel_attention.cpp), kept in App.
#pragma once

namespace app {

struct AttentionViewState {
};

}  // namespace app
