// The per-panel part of the settings file (app/settings_file.h, version 2): every panel choice
// and the edited model survive a save and a load and come back into the App; each bad value
// falls back alone with a warning; a version-1 file (before these fields) still loads; the
// background writer (app/settings_saver.h) leaves the newest text on disk.
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../fault_util.h"
#include "app/settings.h"
#include "app/settings_saver.h"
#include "attention/error.h"
#include "attention/presets.h"

namespace fs = std::filesystem;

namespace {

template <class T>
const T& pick_of(std::mt19937& rng, const std::vector<T>& v) {
  return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
}

int pick(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

// Random values, in range, for every per-panel field.
void randomise_panels(app::Settings& s, std::mt19937& rng) {
  s.model_view.import_path = "/tmp/cfg-" + std::to_string(pick(rng, 0, 9999)) + "/config.json";
  s.model_view.local_per_global = pick(rng, 1, 64);
  s.learn.view = pick_of<std::string>(rng, {"learn", "workbench", "compare"});
  s.learn.chapter = pick(rng, 0, 9);
  s.learn.beat = pick(rng, 0, 1);
  app::LatencySettings& l = s.latency;
  l.workload = pick_of<std::string>(rng, {"model", "sweep", "peers", "amd-mixed-mla"});
  l.device = pick_of<std::string>(rng, {"cpu", "gpu"});
  l.gpu_dtype = pick_of<std::string>(rng, {"bf16", "fp16", "fp8"});
  l.layer = pick(rng, 0, 60);
  l.cpu_threads = pick(rng, 0, 64);
  l.min_runs = pick(rng, 1, 1000);
  l.min_seconds = static_cast<float>(pick(rng, 0, 200)) / 100.0f;
  l.plot_x = pick_of<std::string>(rng, {"S", "B"});
  l.plot_all_sets = pick(rng, 0, 1) == 1;
  l.plot_steps = pick(rng, 0, 1) == 1;
  l.import_path = "results-" + std::to_string(pick(rng, 0, 99)) + ".json";
  l.export_path = "out-" + std::to_string(pick(rng, 0, 99)) + ".csv";
  l.export_format = pick_of<std::string>(rng, {"json", "csv"});
  s.data_flow.animate = pick(rng, 0, 1) == 1;
  s.data_flow.steps_per_second = static_cast<float>(pick(rng, 1, 30));
  s.data_flow.layer = pick(rng, 0, 40);
  s.attention.tokens = pick(rng, 4, 64);
  s.attention.head = pick(rng, 0, 31);
  s.attention.layer = pick(rng, 0, 40);
  s.attention.picture_window = pick(rng, 1, 64);
  s.attention.seed = pick(rng, 0, 1 << 30);
}

// llama-3-8b with its dimensions edited as in the model panel (the edit validates).
attn::ModelConfig edited_llama(std::mt19937& rng) {
  attn::ModelConfig m = attn::find_preset("llama-3-8b");
  m.num_layers = pick(rng, 1, 64);
  m.layers.assign(static_cast<std::size_t>(m.num_layers), attn::LayerKind::kFull);
  const int hkv = pick_of<int>(rng, {1, 2, 4, 8, 16, 32});
  m.kv_heads = hkv;
  m.variant = hkv == m.q_heads ? attn::Variant::kMha
              : hkv == 1       ? attn::Variant::kMqa
                               : attn::Variant::kGqa;
  m.max_seq = pick(rng, 1, 1 << 20);
  m.display_name += " (edited)";
  m.validate();
  return m;
}

}  // namespace

TEST_CASE("settings v2: every per-panel field and the model edit round-trip through the file",
          "[gui][settings]") {
  const unsigned seed = 88021;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  fault::TempDir d;
  for (int trial = 0; trial < 40; ++trial) {
    app::Settings s;
    randomise_panels(s, rng);
    if (trial % 2 == 0) s.edited_model = edited_llama(rng);
    CAPTURE(trial, app::settings_to_json(s));
    app::save_settings(d.path.string(), s);
    const app::LoadedSettings l = app::load_settings(d.path.string());
    INFO(l.warning);
    REQUIRE(l.from_file);
    CHECK(l.warning.empty());
    CHECK(app::settings_to_json(l.settings) == app::settings_to_json(s));
    CHECK(l.settings.edited_model.has_value() == s.edited_model.has_value());
    // The strict reader takes what the writer wrote, too.
    CHECK(app::settings_to_json(app::settings_from_json(app::settings_to_json(s), "t.json")) ==
          app::settings_to_json(s));
  }
}

TEST_CASE("settings v2: the panels' choices come back into the App after a restart",
          "[gui][settings]") {
  const unsigned seed = 5150;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 20; ++trial) {
    app::Settings s;
    s.preset = "llama-3-8b";
    randomise_panels(s, rng);
    s.edited_model = edited_llama(rng);
    CAPTURE(trial, app::settings_to_json(s));
    app::App a;
    app::apply_settings(s, a);
    // Every field is where its panel reads it ...
    CHECK(app::view_name(a.view) == s.learn.view);
    CHECK(a.learn.chapter == s.learn.chapter);
    CHECK(a.learn.beat == s.learn.beat);
    CHECK(a.latency.cpu_threads == s.latency.cpu_threads);
    CHECK(std::string(a.latency.export_path) == s.latency.export_path);
    CHECK(a.attention.seed == static_cast<unsigned>(s.attention.seed));
    CHECK(a.data_flow.steps_per_second == s.data_flow.steps_per_second);
    CHECK(a.base_edited);
    CHECK(a.base.num_layers == s.edited_model->num_layers);
    CHECK(a.base.kv_heads == s.edited_model->kv_heads);
    CHECK(a.model.kv_heads == s.edited_model->kv_heads);  // no what-if: the model is the base
    // ... and what the App saves is what was loaded.
    CHECK(app::settings_to_json(app::settings_from_app(a)) == app::settings_to_json(s));
  }
}

TEST_CASE("settings v2: a model edit survives apply_model_edit, save and a fresh App",
          "[gui][settings]") {
  fault::TempDir d;
  app::App a;
  app::apply_settings(app::Settings{}, a);
  attn::ModelConfig e = a.base;
  e.kv_heads = 2;
  std::string err;
  REQUIRE(app::apply_model_edit(a, e, &err));
  app::save_settings(d.path.string(), app::settings_from_app(a));
  app::App b;
  const app::LoadedSettings l = app::load_settings(d.path.string());
  REQUIRE(l.warning.empty());
  app::apply_settings(l.settings, b);
  CHECK(b.base.kv_heads == 2);
  CHECK(b.base.display_name == a.base.display_name);
  CHECK(b.preset_name == "llama-3-8b");
  // Choosing a preset again forgets the edit.
  REQUIRE(app::load_preset(b, "llama-3-8b"));
  CHECK_FALSE(app::settings_from_app(b).edited_model.has_value());
}

TEST_CASE("settings v2: each bad per-panel value falls back alone, with a warning naming it",
          "[gui][settings]") {
  // (JSON fragment, the field the warning must name). Each goes into an otherwise good file.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"("learn": {"chapter": -1})", "learn.chapter"},
      {R"("learn": {"beat": "three"})", "learn.beat"},
      {R"("learn": {"view": "everything"})", "learn.view"},
      {R"("learn": 3)", "learn"},
      {R"("latency": {"workload": "everything"})", "latency.workload"},
      {R"("latency": {"device": "tpu"})", "latency.device"},
      {R"("latency": {"gpu_dtype": "fp4"})", "latency.gpu_dtype"},
      {R"("latency": {"layer": 99999})", "latency.layer"},
      {R"("latency": {"cpu_threads": -2})", "latency.cpu_threads"},
      {R"("latency": {"min_runs": 0})", "latency.min_runs"},
      {R"("latency": {"min_seconds": 7.5})", "latency.min_seconds"},
      {R"("latency": {"plot_x": "T"})", "latency.plot_x"},
      {R"("latency": {"plot_all_sets": "yes"})", "latency.plot_all_sets"},
      {R"("latency": {"plot_steps": 1})", "latency.plot_steps"},
      {R"("latency": {"import_path": 5})", "latency.import_path"},
      {R"("latency": {"export_path": ")" + std::string(2000, 'x') + R"("})", "latency.export_path"},
      {R"("latency": {"export_format": "xml"})", "latency.export_format"},
      {R"("data_flow": {"animate": 1})", "data_flow.animate"},
      {R"("data_flow": {"steps_per_second": 0})", "data_flow.steps_per_second"},
      {R"("data_flow": {"layer": -1})", "data_flow.layer"},
      {R"("attention": {"tokens": 65})", "attention.tokens"},
      {R"("attention": {"head": 1.5})", "attention.head"},
      {R"("attention": {"layer": null})", "attention.layer"},
      {R"("attention": {"picture_window": 0})", "attention.picture_window"},
      {R"("attention": {"seed": 4294967296})", "attention.seed"},
      {R"("model_view": {"local_per_global": 0})", "model_view.local_per_global"},
      {R"("model_view": {"import_path": []})", "model_view.import_path"},
      {R"("model_edit": 3)", "model_edit"},
      {R"("model_edit": {"name": "x"})", "model_edit.display_name"},
      {R"("version": "two")", "version"},
  };
  for (const auto& [fragment, field] : bad) {
    const std::string text = "{" + fragment + R"(, "tp": 4, "batch": 3})";
    CAPTURE(text);
    fault::TempDir d;
    fault::write_bytes(d / "settings.json", text);
    const app::LoadedSettings l = app::load_settings(d.path.string());
    INFO(l.warning);
    CHECK(l.from_file);
    CHECK(l.warning.find("field '" + field + "'") != std::string::npos);
    CHECK(l.settings.tp == 4);  // the good fields are kept
    CHECK(l.settings.batch == 3);
    // The bad one is its default: the whole result equals defaults plus the two good fields.
    app::Settings expect;
    expect.tp = 4;
    expect.batch = 3;
    CHECK(app::settings_to_json(l.settings) == app::settings_to_json(expect));
  }
}

TEST_CASE("settings v2: a model edit that does not validate is dropped, the rest is kept",
          "[gui][settings]") {
  std::mt19937 rng(3);
  app::Settings s;
  s.edited_model = edited_llama(rng);
  s.tp = 8;
  std::string text = app::settings_to_json(s);
  // Hq 32 over Hkv 5 is no grouping: validate() refuses it.
  const std::string from = "\"kv_heads\": " + std::to_string(s.edited_model->kv_heads);
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), "\"kv_heads\": 5");
  std::vector<std::string> warnings;
  const app::Settings l = app::settings_from_json(text, "t.json", &warnings);
  REQUIRE(warnings.size() == 1);
  INFO(warnings[0]);
  CHECK(warnings[0].find("model edit is dropped") != std::string::npos);
  CHECK_FALSE(l.edited_model.has_value());
  CHECK(l.tp == 8);
  CHECK_THROWS_AS(app::settings_from_json(text, "t.json"), attn::InputError);
}

TEST_CASE("settings v2: a version-1 file (no per-panel fields) loads without a warning",
          "[gui][settings]") {
  // The file as the previous release wrote it.
  const std::string v1 = R"({
  "batch": 4, "gpu": "MI355X", "import_path": "", "kv_dtype": "fp8", "mla_naive": true,
  "preset": "deepseek-v3", "seq": 131072,
  "show": {"attention": false, "data-flow": true, "kv-cache": true, "latency": true, "model": true, "tour": true},
  "tp": 8, "ui_scale": 1.25, "what_if": true, "what_if_kv_heads": 0, "what_if_latent_dim": 512,
  "what_if_local_per_global": 0, "what_if_rope_dim": 64, "what_if_variant": "mha", "what_if_window": 4096
})";
  fault::TempDir d;
  fault::write_bytes(d / "settings.json", v1);
  const app::LoadedSettings l = app::load_settings(d.path.string());
  INFO(l.warning);
  REQUIRE(l.from_file);
  CHECK(l.warning.empty());
  CHECK(l.settings.preset == "deepseek-v3");
  CHECK(l.settings.tp == 8);
  CHECK(l.settings.mla_naive);
  CHECK_FALSE(l.settings.edited_model.has_value());
  const app::Settings defaults;
  CHECK(l.settings.learn.view == defaults.learn.view);
  CHECK(l.settings.latency.workload == defaults.latency.workload);
  CHECK(l.settings.attention.tokens == defaults.attention.tokens);
  app::App a;
  app::apply_settings(l.settings, a);
  CHECK(a.base.name == "deepseek-v3");
  CHECK(a.model.variant == attn::Variant::kMha);
  CHECK(a.latency.workload == app::Workload::kModelLayer);
  CHECK(a.attention.tokens == 24);
  CHECK(a.data_flow.animate);
}

TEST_CASE("settings saver: the newest text is on disk after flush; failures are reported",
          "[gui][settings]") {
  fault::TempDir d;
  std::string last;
  {
    app::SettingsSaver saver(d.path.string());
    for (int i = 0; i < 50; ++i) {
      app::Settings s;
      s.tp = 1 + i % 16;
      s.learn.chapter = i % 8;
      last = app::settings_to_json(s);
      saver.save(last);
    }
    saver.flush();
    CHECK(fault::read_bytes(d / "settings.json") == last);
    CHECK(saver.writes_done() >= 1);
    CHECK(saver.writes_done() <= 50);  // later texts replace ones not yet written
    CHECK_FALSE(saver.take_error().has_value());
    app::Settings s;
    s.tp = 16;
    last = app::settings_to_json(s);
    saver.save(last);
  }  // the destructor writes what is pending
  CHECK(fault::read_bytes(d / "settings.json") == last);
  CHECK(fault::dir_entries(d.path) == std::set<std::string>{"settings.json"});

  fault::write_bytes(d / "cfg", "a file, not a folder");
  app::SettingsSaver bad((d / "cfg"));
  bad.save(last);
  bad.flush();
  const auto err = bad.take_error();
  REQUIRE(err.has_value());
  CHECK(err->find("cfg") != std::string::npos);
  CHECK_FALSE(bad.take_error().has_value());  // once
}
