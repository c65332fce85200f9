// The explorer's one state struct (Tracy's view state: plain data, no drawing). Panels read and
// change it; nothing here runs work (benchmarks run on the job runner's thread).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "app/attention_view_state.h"
#include "app/cli/cli.h"
#include "app/latency_state.h"
#include "app/tour_state.h"
#include "attention/config.h"
#include "attention/dtype.h"
#include "kernels/gpu.h"

namespace app {

struct App {
  ExplorerOptions options;  // from the command line (screenshot, preset, variant, panel, size)

  // The model: `base` is the preset or imported config.json; `model` is base with the what-if
  // variant applied, and is what every panel shows. Call refresh_model() after changing either.
  std::string preset_name;       // empty when imported from a file
  attn::ModelConfig base;
  attn::ModelConfig model;
  bool what_if = false;          // apply what_if_params to base
  attn::WhatIf what_if_params;
  std::string model_error;       // why the last edit / what-if was rejected (shown in place)

  // Shared view settings.
  attn::DType kv_dtype = attn::DType::kBf16;
  int tp = 1;                    // tensor-parallel devices
  std::int64_t seq = 32768;      // S used by the kv-cache, data-flow and latency panels
  std::int64_t batch = 1;        // B
  std::string gpu_name = "H200"; // chosen GPU of assets/gpus.json (memory line, roofline)

  // Windows (the frame is a flat list: if (show_x) draw_x_panel(app)).
  bool show_model = true;
  bool show_kv_cache = true;
  bool show_data_flow = true;
  bool show_attention = true;
  bool show_latency = true;
  bool show_tour = false;
  float ui_scale = 1.0f;

  kern::DeviceInfo device;            // queried once at start
  std::vector<std::string> messages;  // warnings for the user (bad settings file, failed job)

  AttentionViewState attention;  // panel_attention.cpp
  LatencyState latency;          // panel_latency.cpp
  TourState tour;                // panel_tour.cpp
};

}  // namespace app
