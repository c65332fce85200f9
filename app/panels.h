// One function per panel, one file each (app/panel_<name>.cpp). Each draws its own window
// (ImGui::Begin/End) and returns; none blocks or runs work.
#pragma once
#include <array>

#include "app/app_state.h"
#include "app/panel_table.h"

namespace app {

void draw_model_panel(App& app);      // panel_model.cpp      --panel model
void draw_kv_cache_panel(App& app);   // panel_kv_cache.cpp   --panel kv-cache
void draw_data_flow_panel(App& app);  // panel_data_flow.cpp  --panel data-flow
void draw_attention_panel(App& app);  // panel_attention.cpp  --panel attention
void draw_latency_panel(App& app);    // panel_latency.cpp    --panel latency

// The draw functions in the order of kPanelTable (app/panel_table.h), indexed by PanelId.
inline constexpr std::array<void (*)(App&), kPanelCount> kPanelDraw = {
    draw_model_panel,     draw_kv_cache_panel, draw_data_flow_panel,
    draw_attention_panel, draw_latency_panel};

}  // namespace app
