// The explorer's one state struct (Tracy's view state: plain data, no drawing). Panels read and
// change it; nothing here runs work (benchmarks run on the job runner's thread).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "app/attention_view_state.h"
#include "app/cli/cli.h"
#include "app/data_flow_state.h"
#include "app/kv_view_state.h"
#include "app/latency_state.h"
#include "app/model_view_state.h"
#include "app/panel_table.h"
#include "app/learn_state.h"
#include "app/ui_state.h"
#include "attention/config.h"
#include "attention/dtype.h"
#include "kernels/gpu.h"

namespace app {

struct App {
  ExplorerOptions options;  // from the command line (screenshot, preset, variant, panel, size)

  // The model: `base` is the preset or imported config.json; `model` is base with the what-if
  // variant applied, and is what every panel shows. Call refresh_model() after changing either.
  std::string preset_name;  // empty when imported from a file
  attn::ModelConfig base;
  attn::ModelConfig model;
  bool what_if = false;  // apply what_if_params to base
  attn::WhatIf what_if_params;
  std::string model_error;   // why the last edit / what-if was rejected (shown in place)
  std::string import_path;   // config.json the base came from (empty for a preset)
  bool base_edited = false;  // base was changed in the model panel (saved in full)
  // SWA what-if only: 0 = every layer slides; N > 0 = N sliding layers, then one full
  // (Gemma 3's 5:1 is 5). Applied after attn::apply_what_if by refresh_model().
  int what_if_local_per_global = 0;
  std::uint64_t model_revision = 0;  // bumped by refresh_model(): panels cache on it

  // Shared view settings.
  attn::DType kv_dtype = attn::DType::kBf16;
  int tp = 1;                     // tensor-parallel devices
  std::int64_t seq = 32768;       // S used by the kv-cache, data-flow and latency panels
  std::int64_t batch = 1;         // B
  std::string gpu_name = "H200";  // chosen GPU of assets/gpus.json (memory line, roofline)

  // Windows (the frame is a flat list: if (show_x) draw_x_panel(app)).
  PanelFlags show = first_start_panels();  // indexed by PanelId (app/panel_table.h)
  bool& shown(PanelId id) { return show[index_of(id)]; }
  float ui_scale = 1.0f;

  kern::DeviceInfo device;            // queried once at start
  std::vector<std::string> messages;  // warnings for the user (bad settings file, failed job)

  double clock_s = 0;      // animation clock: real time, fixed 1/60 s steps in screenshot mode
  std::int64_t frame = 0;  // frames drawn so far

  UiState ui;                    // explorer.cpp: menus, popups, status line
  ModelViewState model_view;     // panel_model.cpp
  KvCacheViewState kv_view;      // panel_kv_cache.cpp
  DataFlowViewState data_flow;   // panel_data_flow.cpp
  AttentionViewState attention;  // panel_attention.cpp
  LatencyState latency;          // panel_latency.cpp
  View view = View::kLearn;      // the lesson, the panels, or the comparison
  LearnState learn;              // app/learn/
  CompareState compare;          // compare_view.cpp
};

// Sets `model` from `base` (applying the what-if when enabled), records a rejected what-if in
// model_error (then model = base), and bumps model_revision. Never throws.
void refresh_model(App& app);
// Loads a preset as the base (what-if settings are kept). False, with model_error set, when the
// name is unknown.
bool load_preset(App& app, const std::string& name);
// Imports a HF config.json as the base. False, with `error` set, when it cannot be read.
bool import_config(App& app, const std::string& path, std::string* error);
// Turns the what-if on for variant `name` ("mha", "mqa", "gqa", "swa", "mla") with the current
// what-if parameters, or off for "" / "model". False for an unknown name.
bool set_what_if_variant(App& app, const std::string& name);
// An edit of the base model's fields: the variant follows the head counts and the layer
// pattern (Hkv = Hq MHA, Hkv = 1 MQA, else GQA; every layer sliding SWA), then the result must
// validate to become the base (the preset name is kept, display name marked "(edited)").
// False, with `error` set and nothing changed, when it does not.
bool apply_model_edit(App& app, attn::ModelConfig edited, std::string* error);
// A message for the user: shown in the status bar and kept in `messages`.
void post_message(App& app, const std::string& text);

}  // namespace app
