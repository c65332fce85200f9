// attnlab's own settings file (ImGui keeps window positions in its imgui.ini beside it):
// $ATTNLAB_CONFIG_DIR, else $XDG_CONFIG_HOME/attnlab, else ~/.config/attnlab; settings.json.
// Written atomically (attn::write_file_atomic). A file that cannot be parsed is moved aside to
// settings.json.bad-<unix time> and replaced by defaults; a field with the wrong type or out of
// range falls back to its default alone (a copy of the file is kept aside); either way with a
// warning for the status bar. Unknown fields are ignored.
// Pure data and file I/O (no ImGui, no App): the settings fuzz target compiles this file alone;
// app/settings.h adds the App-facing part.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/panel_table.h"
#include "attention/config.h"

namespace app {

// Per-panel choices (one struct per panel, the defaults of its view state). Enumerations are
// stored by name so a person can read and edit the file.
struct ModelViewSettings {
  std::string import_path;   // the model panel's config.json path field (< 1024 bytes)
  int local_per_global = 5;  // hybrid pattern editor: N sliding layers per full one
};
struct LearnSettings {
  std::string view = "learn";  // learn, workbench, compare: what the window shows
  int chapter = 0;             // 0-based; clamped to the chapters there are
  int beat = 0;                // 0-based; clamped to the chapter's beats
};
struct LatencySettings {
  std::string workload = "model";  // model (the model's layer), sweep, peers, amd-mixed-mla, amd-mla
  std::string device = "cpu";      // cpu, gpu (a build or machine without a GPU runs cpu)
  std::string gpu_dtype = "bf16";  // bf16, fp16, fp8: GPU storage of a single case
  int layer = 0;                   // layer of the model for a single case
  int cpu_threads = 0;             // 0 = the default (all cores but one)
  int min_runs = 10;
  float min_seconds = 0.2f;  // 0..2
  std::string plot_x = "S";  // plots against S or B
  bool plot_all_sets = false;
  bool plot_steps = true;   // GPU lines of the in-graph step time too
  std::string import_path;  // results file path fields (< 1024 bytes)
  std::string export_path = "attnlab-results.json";
  std::string export_format = "json";  // json, csv
};
struct DataFlowSettings {
  bool animate = true;
  float steps_per_second = 4;  // 1..30
  int layer = 0;
};
struct AttentionSettings {
  int tokens = 24;  // T = S of the short sequence, 4..64
  int head = 0;     // query head shown large
  int layer = 0;
  int picture_window = 8;  // 1..64
  std::int64_t seed = 1;   // 0..2^32-1
};

struct Settings {
  std::string preset = "llama-3-8b";  // empty when the model came from a config.json
  std::string import_path;            // that config.json
  // The base model as edited in the model panel (every dimension), when it was edited; it
  // replaces the preset's / config's numbers on restart. Must validate, else it is dropped.
  std::optional<attn::ModelConfig> edited_model;
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
  PanelFlags show = first_start_panels();  // indexed by PanelId (app/panel_table.h)
  float ui_scale = 1.0f;
  bool mla_naive = false;
  ModelViewSettings model_view;
  LearnSettings learn;
  LatencySettings latency;
  DataFlowSettings data_flow;
  AttentionSettings attention;
};

constexpr int kSettingsVersion = 2;  // 1: no per-panel sections, no model edit (still read)

std::string settings_to_json(const Settings& s);
// Strict: throws attn::InputError "origin: field 'x': expected ..., found ..." at the first bad
// field.
Settings settings_from_json(const std::string& text, const std::string& origin);
// Lenient (what load_settings uses): throws attn::InputError only when the text is not a JSON
// object; a field of the wrong type or out of range keeps its default and adds one message
// (as above) to *warnings. Unknown fields are ignored.
Settings settings_from_json(const std::string& text, const std::string& origin,
                            std::vector<std::string>* warnings);

// The folder (not created here).
std::string settings_dir();

struct LoadedSettings {
  Settings settings;
  bool from_file = false;  // false: defaults (no file, or an unreadable one moved aside)
  std::string warning;     // non-empty when a file was moved aside or fields fell back
};
// Never throws. A missing file gives defaults silently. A file that is not a JSON object (or
// cannot be read, or is too large) is moved aside and gives defaults. A JSON object with bad
// fields is read field by field: each bad field falls back to its default, and a copy of the
// file as it was is kept aside (settings.json.bad-<unix time>) before it is next rewritten.
LoadedSettings load_settings(const std::string& dir);
// Creates the folder when needed. Throws attn::InputError naming the path.
void save_settings(const std::string& dir, const Settings& s);
// The same for a text settings_to_json made (app/settings_saver.h writes these off the UI thread).
void save_settings_text(const std::string& dir, const std::string& json_text);

}  // namespace app
