#include "app/settings.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "app/learn/learn_view.h"
#include "attention/config.h"
#include "attention/dtype.h"

namespace app {
namespace {

// Index of `name` in `names` (the panels' combo orders), or `fallback`.
int index_of(const std::string& name, std::initializer_list<const char*> names, int fallback) {
  int i = 0;
  for (const char* n : names) {
    if (name == n) return i;
    ++i;
  }
  return fallback;
}

template <class E>
const char* name_at(E e, std::initializer_list<const char*> names) {
  const int n = static_cast<int>(names.size());
  return names.begin()[std::clamp(static_cast<int>(e), 0, n - 1)];
}

template <class E>
E choice_of(const std::string& name, std::initializer_list<const char*> names) {
  return static_cast<E>(index_of(name, names, 0));
}

const std::initializer_list<const char*> kWorkloads = {"model", "sweep", "peers", "amd-mixed-mla",
                                                       "amd-mla"};
const std::initializer_list<const char*> kDevices = {"cpu", "gpu"};
const std::initializer_list<const char*> kGpuDtypes = {"bf16", "fp16", "fp8"};
const std::initializer_list<const char*> kPlotX = {"S", "B"};
const std::initializer_list<const char*> kFormats = {"json", "csv"};

template <std::size_t N>
void copy_path(char (&dst)[N], const std::string& src) {
  std::snprintf(dst, N, "%s", src.c_str());
}

}  // namespace

Settings settings_from_app(const App& app) {
  Settings s;
  s.preset = app.preset_name;
  s.import_path = app.import_path;
  if (app.base_edited) s.edited_model = app.base;
  s.what_if = app.what_if;
  s.what_if_variant = std::string(attn::variant_name(app.what_if_params.variant));
  s.what_if_kv_heads = app.what_if_params.kv_heads;
  s.what_if_latent_dim = app.what_if_params.latent_dim;
  s.what_if_rope_dim = app.what_if_params.rope_dim;
  s.what_if_window = app.what_if_params.window;
  s.what_if_local_per_global = app.what_if_local_per_global;
  s.kv_dtype = std::string(attn::dtype_name(app.kv_dtype));
  s.tp = app.tp;
  s.seq = app.seq;
  s.batch = app.batch;
  s.gpu = app.gpu_name;
  s.show = app.show;
  s.ui_scale = app.ui_scale;
  s.mla_naive = app.data_flow.mla_naive;

  s.model_view.import_path = app.model_view.import_path;
  s.model_view.local_per_global = app.model_view.local_per_global;
  s.learn.view = view_name(app.view);
  s.learn.chapter = app.learn.chapter;
  s.learn.beat = app.learn.beat;
  const LatencyState& l = app.latency;
  s.latency.workload = name_at(l.workload, kWorkloads);
  s.latency.device = name_at(l.device, kDevices);
  s.latency.gpu_dtype = name_at(l.gpu_dtype, kGpuDtypes);
  s.latency.layer = l.layer;
  s.latency.cpu_threads = l.cpu_threads;
  s.latency.min_runs = l.min_runs;
  s.latency.min_seconds = l.min_seconds;
  s.latency.plot_x = name_at(l.plot_x, kPlotX);
  s.latency.plot_all_sets = l.plot_all_sets;
  s.latency.plot_steps = l.plot_steps;
  s.latency.import_path = l.import_path;
  s.latency.export_path = l.export_path;
  s.latency.export_format = name_at(l.export_format, kFormats);
  s.data_flow.animate = app.data_flow.animate;
  s.data_flow.steps_per_second = app.data_flow.steps_per_second;
  s.data_flow.layer = app.data_flow.layer;
  s.attention.tokens = app.attention.tokens;
  s.attention.head = app.attention.head;
  s.attention.layer = app.attention.layer;
  s.attention.picture_window = app.attention.picture_window;
  s.attention.seed = app.attention.seed;
  return s;
}

void apply_settings(const Settings& s, App& app) {
  app.what_if = s.what_if;
  app.what_if_params.variant = attn::parse_variant(s.what_if_variant).value_or(attn::Variant::kGqa);
  app.what_if_params.kv_heads = s.what_if_kv_heads;
  app.what_if_params.latent_dim = s.what_if_latent_dim;
  app.what_if_params.rope_dim = s.what_if_rope_dim;
  app.what_if_params.window = s.what_if_window;
  app.what_if_local_per_global = s.what_if_local_per_global;
  app.kv_dtype = attn::parse_dtype(s.kv_dtype).value_or(attn::DType::kBf16);
  app.tp = s.tp;
  app.seq = s.seq;
  app.batch = s.batch;
  app.gpu_name = s.gpu;
  app.show = s.show;
  app.ui_scale = s.ui_scale;
  app.data_flow.mla_naive = s.mla_naive;

  copy_path(app.model_view.import_path, s.model_view.import_path);
  app.model_view.local_per_global = s.model_view.local_per_global;
  app.view = s.learn.view == "workbench" ? View::kWorkbench
             : s.learn.view == "compare"   ? View::kCompare
                                           : View::kLearn;
  learn::go_to(app, s.learn.chapter, s.learn.beat);
  LatencyState& l = app.latency;
  l.workload = choice_of<Workload>(s.latency.workload, kWorkloads);
  l.device = choice_of<BenchTarget>(s.latency.device, kDevices);
  l.gpu_dtype = choice_of<GpuDtype>(s.latency.gpu_dtype, kGpuDtypes);
  l.layer = s.latency.layer;
  l.cpu_threads = s.latency.cpu_threads;
  l.min_runs = s.latency.min_runs;
  l.min_seconds = s.latency.min_seconds;
  l.plot_x = choice_of<PlotAxis>(s.latency.plot_x, kPlotX);
  l.plot_all_sets = s.latency.plot_all_sets;
  l.plot_steps = s.latency.plot_steps;
  copy_path(l.import_path, s.latency.import_path);
  copy_path(l.export_path, s.latency.export_path);
  l.export_format = choice_of<ExportFormat>(s.latency.export_format, kFormats);
  app.data_flow.animate = s.data_flow.animate;
  app.data_flow.steps_per_second = s.data_flow.steps_per_second;
  app.data_flow.layer = s.data_flow.layer;
  app.attention.tokens = s.attention.tokens;
  app.attention.head = s.attention.head;
  app.attention.layer = s.attention.layer;
  app.attention.picture_window = s.attention.picture_window;
  app.attention.seed = static_cast<unsigned>(s.attention.seed);

  bool loaded = false;
  if (!s.import_path.empty()) {
    std::string err;
    loaded = import_config(app, s.import_path, &err);
    if (!loaded) post_message(app, "could not re-import " + s.import_path + ": " + err);
  }
  if (!loaded && !s.preset.empty()) {
    loaded = load_preset(app, s.preset);
    if (!loaded) post_message(app, "settings: " + app.model_error);
  }
  if (!loaded && !load_preset(app, "llama-3-8b")) {
    // No presets at all (a broken build): keep the default-constructed config.
    post_message(app, "no presets available: " + app.model_error);
    refresh_model(app);
  }
  if (s.edited_model) {
    // Validated when read; checked again, since a Settings can come from anywhere.
    try {
      s.edited_model->validate();
      app.base = *s.edited_model;
      app.base_edited = true;
      refresh_model(app);
    } catch (const std::exception& e) {
      post_message(app, std::string("settings: the edited model is dropped: ") + e.what());
    }
  }
}

}  // namespace app
