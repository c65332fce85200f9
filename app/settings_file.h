// attnlab's own settings file (ImGui keeps window positions in its imgui.ini beside it):
// $ATTNLAB_CONFIG_DIR, else $XDG_CONFIG_HOME/attnlab, else ~/.config/attnlab; settings.json.
// Written atomically (attn::write_file_atomic). A file that cannot be parsed, or whose fields
// have the wrong type or are out of range, is moved aside to settings.json.bad-<unix time> and
// replaced by defaults, with a warning for the status bar. Unknown fields are ignored.
// Pure data and file I/O (no ImGui, no App): the settings fuzz target compiles this file alone;
// app/settings.h adds the App-facing part.
#pragma once
#include <array>
#include <cstdint>
#include <string>


namespace app {

struct Settings {
  std::string preset = "llama-3-8b";   // empty when the model came from a config.json
  std::string import_path;             // that config.json
  bool what_if = false;
  std::string what_if_variant = "gqa";
  int what_if_kv_heads = 0;
  int what_if_latent_dim = 512;
  int what_if_rope_dim = 64;
  int what_if_window = 4096;
  int what_if_local_per_global = 0;
  std::string kv_dtype = "bf16";
  int tp = 1;
  std::int64_t seq = 32768;
  std::int64_t batch = 1;
  std::string gpu = "H200";
  std::array<bool, 6> show = {true, true, true, true, true, false};  // panel_names() order
  float ui_scale = 1.0f;
  bool mla_naive = false;
};

std::string settings_to_json(const Settings& s);
// Throws attn::InputError "origin: field 'x': expected ..., found ..." for bad content.
Settings settings_from_json(const std::string& text, const std::string& origin);

// The folder (not created here).
std::string settings_dir();

struct LoadedSettings {
  Settings settings;
  bool from_file = false;  // false: defaults (no file, or a bad one moved aside)
  std::string warning;     // non-empty when a bad file was moved aside
};
// Never throws: a missing file gives defaults silently, a bad one as described above.
LoadedSettings load_settings(const std::string& dir);
// Creates the folder when needed. Throws attn::InputError naming the path.
void save_settings(const std::string& dir, const Settings& s);

}  // namespace app
