// The few state changes that several panels (and the tour) make: keep `model` in step with
// `base` and the what-if settings.
#include "app/app_state.h"

#include "attention/error.h"
#include "attention/hf_import.h"
#include "attention/presets.h"

namespace app {
namespace {

// SWA what-if as a hybrid: N sliding layers, then one full, repeated (the last layer of each
// group of N + 1 is full, as in Gemma 3).
void apply_local_global_pattern(attn::ModelConfig& m, int local_per_global) {
  if (local_per_global <= 0 || m.variant != attn::Variant::kSwa) return;
  for (int i = 0; i < m.num_layers; ++i)
    m.layers[static_cast<std::size_t>(i)] =
        (i + 1) % (local_per_global + 1) == 0 ? attn::LayerKind::kFull : attn::LayerKind::kSliding;
  if (m.num_sliding() == m.num_layers) return;  // fewer layers than one group: all slide
  m.variant = m.kv_heads == m.q_heads ? attn::Variant::kMha
              : m.kv_heads == 1       ? attn::Variant::kMqa
                                      : attn::Variant::kGqa;
  m.display_name += " " + std::to_string(local_per_global) + ":1";
}

}  // namespace

void refresh_model(App& app) {
  app.model_error.clear();
  if (app.what_if) {
    try {
      attn::ModelConfig m = attn::apply_what_if(app.base, app.what_if_params);
      apply_local_global_pattern(m, app.what_if_local_per_global);
      m.validate();
      app.model = std::move(m);
    } catch (const std::exception& e) {
      app.model_error = std::string("what-if ") +
                        std::string(attn::variant_name(app.what_if_params.variant)) + ": " +
                        e.what();
      app.model = app.base;
    }
  } else {
    app.model = app.base;
  }
  ++app.model_revision;
}

bool load_preset(App& app, const std::string& name) {
  try {
    app.base = attn::find_preset(name);
    app.preset_name = name;
    app.import_path.clear();
    app.base_edited = false;
    refresh_model(app);
    return true;
  } catch (const std::exception& e) {
    app.model_error = e.what();
    return false;
  }
}

bool import_config(App& app, const std::string& path, std::string* error) {
  try {
    attn::ModelConfig m = attn::import_hf_config_file(path);
    m.validate();
    app.base = std::move(m);
    app.preset_name.clear();
    app.import_path = path;
    app.base_edited = false;
    refresh_model(app);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
}

bool set_what_if_variant(App& app, const std::string& name) {
  if (name.empty() || name == "model") {
    app.what_if = false;
    refresh_model(app);
    return true;
  }
  const auto v = attn::parse_variant(name);
  if (!v) return false;
  app.what_if = true;
  app.what_if_params.variant = *v;
  refresh_model(app);
  return true;
}

bool apply_model_edit(App& app, attn::ModelConfig d, std::string* error) {
  if (d.variant != attn::Variant::kMla) {
    if (!d.layers.empty() && d.num_sliding() == static_cast<int>(d.layers.size()))
      d.variant = attn::Variant::kSwa;
    else
      d.variant = d.kv_heads == d.q_heads ? attn::Variant::kMha
                  : d.kv_heads == 1       ? attn::Variant::kMqa
                                          : attn::Variant::kGqa;
  }
  try {
    d.validate();
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
  const std::string suffix = " (edited)";
  std::string& name = d.display_name.empty() ? d.name : d.display_name;
  if (name.size() < suffix.size() ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    name += suffix;
  app.base = std::move(d);
  app.base_edited = true;
  refresh_model(app);
  return true;
}

void post_message(App& app, const std::string& text) {
  app.ui.status = text;
  app.messages.push_back(text);
  if (app.messages.size() > 200) app.messages.erase(app.messages.begin());
}

}  // namespace app

namespace app {

const char* view_name(View v) {
  switch (v) {
    case View::kLearn: return "learn";
    case View::kWorkbench: return "workbench";
    case View::kCompare: return "compare";
  }
  return "learn";
}

}  // namespace app
