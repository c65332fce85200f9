#include "app/settings.h"

#include <string>

#include "attention/config.h"
#include "attention/dtype.h"

namespace app {

Settings settings_from_app(const App& app) {
  Settings s;
  s.preset = app.preset_name;
  s.import_path = app.import_path;
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
  s.show = {app.show_model, app.show_kv_cache, app.show_data_flow,
            app.show_attention, app.show_latency, app.show_tour};
  s.ui_scale = app.ui_scale;
  s.mla_naive = app.data_flow.mla_naive;
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
  app.show_model = s.show[0];
  app.show_kv_cache = s.show[1];
  app.show_data_flow = s.show[2];
  app.show_attention = s.show[3];
  app.show_latency = s.show[4];
  app.show_tour = s.show[5];
  app.ui_scale = s.ui_scale;
  app.data_flow.mla_naive = s.mla_naive;
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
}

}  // namespace app
