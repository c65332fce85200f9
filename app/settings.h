// The App-facing part of the settings: what is saved from the App, and applying settings to it.
// The file format, reading and writing are in app/settings_file.h.
#pragma once
#include "app/app_state.h"
#include "app/settings_file.h"

namespace app {

Settings settings_from_app(const App& app);
// Applies everything and loads the model (preset, or the config.json when it still reads; a
// failure falls back to llama-3-8b with a message posted).
void apply_settings(const Settings& s, App& app);

}  // namespace app
