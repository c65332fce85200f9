// attnlab's settings file (app/settings.h) and the KV-table exports (app/kv_table.h).
#include <algorithm>
#include <cstdlib>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "app/kv_table.h"
#include "app/settings.h"
#include "attention/error.h"
#include "attention/kv_cache.h"
#include "attention/presets.h"

namespace fs = std::filesystem;

namespace {

// A fresh folder under the system temp dir, removed at the end of the test.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) {
    path =
        fs::temp_directory_path() / ("attnlab-gui-test-" + tag + "-" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("settings round-trip through the file", "[gui][settings]") {
  TempDir dir("roundtrip");
  const unsigned seed = 7301;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 50; ++trial) {
    app::Settings s;
    s.preset =
        attn::presets()[static_cast<size_t>(pick(0, static_cast<int>(attn::presets().size()) - 1))]
            .name;
    s.what_if = pick(0, 1) == 1;
    s.what_if_variant = std::vector<std::string>{"mha", "mqa", "gqa", "swa",
                                                 "mla"}[static_cast<size_t>(pick(0, 4))];
    s.what_if_kv_heads = pick(0, 64);
    s.what_if_latent_dim = pick(1, 2048);
    s.what_if_window = pick(1, 1 << 20);
    s.kv_dtype = std::vector<std::string>{"fp32", "fp16", "bf16", "fp8",
                                          "mxfp4"}[static_cast<size_t>(pick(0, 4))];
    s.tp = pick(1, 16);
    s.seq = pick(1, 1 << 24);
    s.batch = pick(1, 512);
    for (bool& b : s.show) b = pick(0, 1) == 1;
    s.ui_scale = 0.75f + 0.25f * static_cast<float>(pick(0, 4));
    app::save_settings(dir.path.string(), s);
    const app::LoadedSettings l = app::load_settings(dir.path.string());
    CAPTURE(trial, app::settings_to_json(s));
    REQUIRE(l.from_file);
    CHECK(l.warning.empty());
    CHECK(app::settings_to_json(l.settings) == app::settings_to_json(s));
  }
  // Atomic writes leave only the file itself.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir.path)) {
    CHECK(e.path().filename() == "settings.json");
    ++files;
  }
  CHECK(files == 1);
}

TEST_CASE(
    "a settings file that is no JSON object is moved aside and replaced by defaults with a warning",
    "[gui][settings]") {
  const std::vector<std::string> bad = {"{not json", "[1, 2]", "\"text\"", "", "{\"tp\": 1,"};
  for (const std::string& text : bad) {
    CAPTURE(text);
    TempDir dir("bad");
    { std::ofstream(dir.path / "settings.json") << text; }
    const app::LoadedSettings l = app::load_settings(dir.path.string());
    CHECK_FALSE(l.from_file);
    CHECK_FALSE(l.warning.empty());
    CHECK(app::settings_to_json(l.settings) == app::settings_to_json(app::Settings{}));
    CHECK_FALSE(fs::exists(dir.path / "settings.json"));
    int aside = 0;
    for (const auto& e : fs::directory_iterator(dir.path))
      if (e.path().filename().string().rfind("settings.json.bad-", 0) == 0) {
        ++aside;
        CHECK(read(e.path()) == text);  // kept as it was, for the user to look at
      }
    CHECK(aside == 1);
  }
  TempDir none("none");
  const app::LoadedSettings l = app::load_settings(none.path.string());
  CHECK_FALSE(l.from_file);
  CHECK(l.warning.empty());  // no file is not an error
}

TEST_CASE("a bad field falls back to its default alone, with a warning naming it",
          "[gui][settings]") {
  // Each bad field beside a good one ("batch": 7): the good one is kept, the bad one is the
  // default, the warning names the field, and a copy of the file stays aside.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"("tp": "four")", "tp"},
      {R"("seq": -5)", "seq"},
      {R"("kv_dtype": "int3")", "kv_dtype"},
      {R"("show": {"model": 3})", "show.model"},
      {R"("ui_scale": 40)", "ui_scale"},
      {R"("what_if_variant": "xyz")", "what_if_variant"},
      {R"("show": [1])", "show"}};
  for (const auto& [field_text, field] : bad) {
    const std::string text = "{" + field_text + R"(, "batch": 7})";
    CAPTURE(text);
    TempDir dir("badfield");
    { std::ofstream(dir.path / "settings.json") << text; }
    const app::LoadedSettings l = app::load_settings(dir.path.string());
    INFO(l.warning);
    CHECK(l.from_file);
    CHECK(l.settings.batch == 7);
    app::Settings expect;
    expect.batch = 7;
    CHECK(app::settings_to_json(l.settings) == app::settings_to_json(expect));
    CHECK(l.warning.find("field '" + field + "'") != std::string::npos);
    CHECK(read(dir.path / "settings.json") == text);  // untouched until the next save
    int aside = 0;
    for (const auto& e : fs::directory_iterator(dir.path))
      if (e.path().filename().string().rfind("settings.json.bad-", 0) == 0) {
        ++aside;
        CHECK(read(e.path()) == text);
      }
    CHECK(aside == 1);
    // The strict reader refuses the same text, naming the same field.
    try {
      (void)app::settings_from_json(text, "t.json");
      FAIL("the strict reader took a bad field");
    } catch (const attn::InputError& e) {
      CHECK(std::string(e.what()).find("field '" + field + "'") != std::string::npos);
    }
  }
}

TEST_CASE("ATTNLAB_CONFIG_DIR chooses the settings folder", "[gui][settings]") {
  TempDir dir("env");
  ::setenv("ATTNLAB_CONFIG_DIR", dir.path.c_str(), 1);
  CHECK(app::settings_dir() == dir.path.string());
  ::unsetenv("ATTNLAB_CONFIG_DIR");
  ::setenv("XDG_CONFIG_HOME", "/tmp/xdg-test", 1);
  CHECK(app::settings_dir() == "/tmp/xdg-test/attnlab");
  ::unsetenv("XDG_CONFIG_HOME");
}

TEST_CASE("applying settings restores the app state", "[gui][settings]") {
  app::Settings s;
  s.preset = "deepseek-v3";
  s.what_if = true;
  s.what_if_variant = "mha";
  s.kv_dtype = "fp8";
  s.tp = 8;
  s.seq = 131072;
  app::App a;
  app::apply_settings(s, a);
  CHECK(a.base.name == "deepseek-v3");
  CHECK(a.model.variant == attn::Variant::kMha);
  CHECK(a.kv_dtype == attn::DType::kFp8);
  CHECK(app::settings_to_json(app::settings_from_app(a)) == app::settings_to_json(s));
  // An unknown preset falls back to llama-3-8b and says so.
  s.preset = "no-such-model";
  app::App b;
  app::apply_settings(s, b);
  CHECK(b.base.name == "llama-3-8b");
  CHECK_FALSE(b.messages.empty());
}

TEST_CASE("KV exports list every layer and every variant, matching kv_cache", "[gui][kv]") {
  for (const std::string& preset : {"llama-3-8b", "gemma-3-12b", "deepseek-v3"}) {
    CAPTURE(preset);
    app::App a;
    app::apply_settings(app::Settings{}, a);
    REQUIRE(app::load_preset(a, preset));
    a.seq = 65536;
    a.tp = 4;
    const attn::KvReport r = attn::kv_cache(a.model, a.seq, a.batch, a.kv_dtype, a.tp);
    const std::string csv = app::kv_table_csv(a);
    CHECK(std::count(csv.begin(), csv.end(), '\n') == a.model.num_layers + 1);
    CHECK(csv.rfind("layer,kind,window,bytes,per_device_bytes\n", 0) == 0);
    const auto j = nlohmann::json::parse(app::kv_table_json(a));
    CHECK(j["total_bytes"].get<std::uint64_t>() == r.total_bytes);
    CHECK(j["per_device_bytes"].get<std::uint64_t>() == r.per_device_bytes);
    CHECK(j["layers"].size() == static_cast<size_t>(a.model.num_layers));
    CHECK(j["variants"].size() == 6);
    // MQA never stores more than any other grouped variant of the same model.
    const auto rows = app::kv_variant_rows(a);
    REQUIRE(rows.size() == 6);
    std::uint64_t mqa = 0, mha = 0;
    for (const auto& row : rows) {
      if (row.label.rfind("MQA", 0) == 0) mqa = row.bytes_per_token;
      if (row.label.rfind("MHA", 0) == 0) mha = row.bytes_per_token;
      CHECK(row.curve_seq.size() == row.curve_bytes.size());
      for (size_t i = 1; i < row.curve_bytes.size(); ++i)
        CHECK(row.curve_bytes[i] >= row.curve_bytes[i - 1]);
    }
    CHECK(mqa > 0);
    CHECK(mha == mqa * static_cast<std::uint64_t>(a.base.q_heads));
  }
  const auto pts = app::curve_seq_points(attn::find_preset("llama-3-8b"), 4096);
  CHECK(pts.front() == 256);
  CHECK(pts.back() >= 1 << 20);
  CHECK(std::find(pts.begin(), pts.end(), 131072.0) != pts.end());
  CHECK(std::find(pts.begin(), pts.end(), 4096.0) != pts.end());
  CHECK(std::is_sorted(pts.begin(), pts.end()));
}
