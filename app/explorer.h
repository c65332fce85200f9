// The frame around the panels: main menu bar (Panels, Presets, Import, Export, View), the
// panels in their default layout (or one focused panel, --panel), popups and the status bar.
// No OpenGL here: main.cpp owns the window and serves App::ui.png_request after rendering.
#pragma once
#include <string>

#include "app/app_state.h"

namespace app {

// Applies --preset / --variant / --panel on top of what the settings loaded. Returns false with
// `error` set when a value is unknown (the CLI validated the names; a preset can still fail to
// load, e.g. when the build has no presets).
bool apply_explorer_options(App& app, const ExplorerOptions& opt, std::string* error);

// One frame of UI (between ImGui::NewFrame and ImGui::Render). Never throws: an exception from a
// panel is caught, posted as a message, and the frame goes on.
void draw_frame(App& app);

// Starts the job --start names ("side-by-side", "cpu:W", "gpu:W") as the latency panel's
// buttons do. False, with `error` set, when it could not start (a job already runs, no cases).
bool start_option_job(App& app, const std::string& start, std::string* error);

// The status-bar text for the device: "GPU: NVIDIA H200, 139.8 GiB" or "no GPU: CPU only (...)".
std::string device_summary(const kern::DeviceInfo& d);

}  // namespace app
