// Every panel of this file's list renders frames in a headless ImGui context for every preset
// and every variant (and for random what-if parameters) without an ImGui assert (libimgui.a is
// built with asserts on: a Begin/End mismatch aborts the test), without an exception, with
// ImGui's window stack balanced at the end of each frame.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "app/app_state.h"
#include "app/explorer.h"
#include "app/layout.h"
#include "app/panels.h"
#include "app/settings.h"
#include "app/style.h"
#include "attention/presets.h"
#include "headless.h"

namespace {

struct PanelUnderTest {
  const char* name;   // --panel name
  const char* title;  // its window title
  void (*draw)(app::App&);
};

const std::vector<PanelUnderTest>& my_panels() {
  static const std::vector<PanelUnderTest> k = {
      {"model", "Model and variant", app::draw_model_panel},
      {"kv-cache", "KV cache", app::draw_kv_cache_panel},
      {"data-flow", "Data flow", app::draw_data_flow_panel},
  };
  return k;
}

// The what-if choices: "" is the model as published.
const std::vector<std::string>& variant_choices() {
  static const std::vector<std::string> k = {"", "mha", "mqa", "gqa", "swa", "mla"};
  return k;
}

app::App make_app(const std::string& preset) {
  app::App a;
  app::apply_settings(app::Settings{}, a);
  REQUIRE(app::load_preset(a, preset));
  return a;
}

// Draws `draw` alone for `frames` frames; exceptions propagate to the test.
void frames_of(gui_test::HeadlessImGui& ui, app::App& a, void (*draw)(app::App&), int frames) {
  for (int f = 0; f < frames; ++f) {
    a.clock_s = f / 60.0;
    ui.begin_frame();
    draw(a);
    REQUIRE(ui.end_frame());
  }
  if (frames > 1) CHECK(ui.vertices() > 0);
}

bool has_panel_error(const app::App& a) {
  for (const std::string& m : a.messages)
    if (m.find(" panel: ") != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("each panel renders for every preset and variant", "[gui][panels]") {
  gui_test::HeadlessImGui ui;
  REQUIRE(!attn::presets().empty());
  for (const attn::ModelConfig& preset : attn::presets()) {
    for (const std::string& variant : variant_choices()) {
      for (const PanelUnderTest& p : my_panels()) {
        CAPTURE(preset.name, variant, p.name);
        app::App a = make_app(preset.name);
        REQUIRE(app::set_what_if_variant(a, variant));
        CHECK(a.model_error.empty());
        REQUIRE_NOTHROW(frames_of(ui, a, p.draw, 3));
        CHECK(ui.window_active(p.title));
      }
    }
  }
}

TEST_CASE("the whole frame renders for several presets, variants, dtypes and TP", "[gui][frame]") {
  gui_test::HeadlessImGui ui;
  const std::vector<std::string> presets = {"llama-3-8b", "deepseek-v3", "gemma-3-12b",
                                            "mistral-7b-v0.1", "falcon-7b"};
  for (const std::string& preset : presets) {
    for (const std::string& variant : variant_choices()) {
      CAPTURE(preset, variant);
      app::App a = make_app(preset);
      REQUIRE(app::set_what_if_variant(a, variant));
      a.view = app::View::kWorkbench;
      a.kv_dtype = variant == "mla" ? attn::DType::kFp8 : attn::DType::kMxfp4;
      a.tp = variant == "gqa" ? 8 : 1;
      REQUIRE_NOTHROW(frames_of(ui, a, app::draw_frame, 3));
      CHECK_FALSE(has_panel_error(a));
      for (const PanelUnderTest& p : my_panels()) CHECK(ui.window_active(p.title));
    }
  }
}

TEST_CASE("panels survive random what-if parameters and view settings", "[gui][panels][random]") {
  const unsigned seed = 20261202;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  gui_test::HeadlessImGui ui;
  const auto& presets = attn::presets();
  for (int trial = 0; trial < 60; ++trial) {
    app::App a =
        make_app(presets[static_cast<size_t>(pick(0, static_cast<int>(presets.size()) - 1))].name);
    a.what_if_params.kv_heads = pick(0, 200);  // often not a divisor of Hq: rejected in place
    a.what_if_params.latent_dim = pick(1, 4096);
    a.what_if_params.rope_dim = pick(0, 512);
    a.what_if_params.window = pick(1, 1 << 22);
    a.what_if_local_per_global = pick(0, 9);
    a.seq = std::int64_t(1) << pick(0, 26);
    a.batch = pick(1, 256);
    a.tp = 1 << pick(0, 4);
    a.kv_dtype = static_cast<attn::DType>(pick(0, 4));
    a.data_flow.layer = pick(-5, 2000);  // clamped by the panel
    a.data_flow.mla_naive = pick(0, 1) == 1;
    REQUIRE(app::set_what_if_variant(a, variant_choices()[static_cast<size_t>(pick(0, 5))]));
    CAPTURE(trial, a.base.name, a.what_if, attn::variant_name(a.what_if_params.variant),
            a.what_if_params.kv_heads, a.what_if_params.latent_dim, a.what_if_params.window, a.seq,
            a.batch, a.tp, a.model_error);
    for (const PanelUnderTest& p : my_panels()) REQUIRE_NOTHROW(frames_of(ui, a, p.draw, 2));
  }
}

TEST_CASE("a rejected what-if keeps the base model and says why", "[gui][model]") {
  app::App a = make_app("llama-3-8b");
  a.what_if_params.kv_heads = 7;  // 32 query heads: 7 does not divide them
  REQUIRE(app::set_what_if_variant(a, "gqa"));
  CHECK(a.model_error.find("kv_heads") != std::string::npos);
  CHECK(a.model.kv_heads == a.base.kv_heads);
  CHECK(a.model.name == a.base.name);
}

TEST_CASE("a focused panel (the --panel flag) is shown alone over the work area", "[gui][frame]") {
  gui_test::HeadlessImGui ui;
  for (const std::string& name : app::panel_names()) {
    CAPTURE(name);
    app::App a = make_app("llama-3-8b");
    app::ExplorerOptions opt;
    opt.panel = name;
    std::string err;
    REQUIRE(app::apply_explorer_options(a, opt, &err));
    REQUIRE_NOTHROW(frames_of(ui, a, app::draw_frame, 3));
    CHECK_FALSE(has_panel_error(a));
    for (const PanelUnderTest& p : my_panels()) {
      const bool focused = name == p.name;
      CHECK(ui.window_active(p.title) == focused);
      if (focused) {
        const ImGuiWindow* w = ImGui::FindWindowByName(p.title);
        const app::PanelRect r =
            app::focused_rect(1600, 1000, ImGui::GetFrameHeight(), ImGui::GetFrameHeight() + 4);
        CHECK(w->Size.x == Approx(r.w));
        CHECK(w->Size.y == Approx(r.h));
      }
    }
  }
}

TEST_CASE("the kv-cache panel computes its curves only when an input changes", "[gui][kv]") {
  gui_test::HeadlessImGui ui;
  app::App a = make_app("llama-3-8b");
  frames_of(ui, a, app::draw_kv_cache_panel, 10);
  CHECK(a.kv_view.recomputes == 1);
  a.seq = 4096;
  frames_of(ui, a, app::draw_kv_cache_panel, 5);
  CHECK(a.kv_view.recomputes == 2);
  REQUIRE(app::set_what_if_variant(a, "mla"));
  frames_of(ui, a, app::draw_kv_cache_panel, 5);
  CHECK(a.kv_view.recomputes == 3);
  // The plot has the model and the five variants, and the GPU memory line.
  CHECK(a.kv_view.plot.series.size() == 6);
  CHECK(a.kv_view.plot.hlines.size() == 1);
}

TEST_CASE("the frame renders at every UI scale the View menu offers", "[gui][frame]") {
  for (float scale : {0.75f, 1.0f, 1.5f, 2.0f}) {
    CAPTURE(scale);
    gui_test::HeadlessImGui ui;
    app::setup_fonts_and_style(scale);
    unsigned char* px = nullptr;
    int w = 0, h = 0;
    ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&px, &w, &h);
    CHECK(ImGui::GetIO().Fonts->Fonts[0]->FontSize == Approx(15.0f * scale).epsilon(0.2));
    app::App a = make_app("deepseek-v3");
    a.ui_scale = scale;
    REQUIRE_NOTHROW(frames_of(ui, a, app::draw_frame, 3));
    CHECK_FALSE(has_panel_error(a));
  }
}

TEST_CASE("a config.json that cannot be imported leaves the model and says why", "[gui][model]") {
  app::App a = make_app("llama-3-8b");
  std::string err;
  CHECK_FALSE(app::import_config(a, "/no/such/config.json", &err));
  CHECK(err.find("/no/such/config.json") != std::string::npos);
  CHECK(a.base.name == "llama-3-8b");
  const std::string bad = "/tmp/attnlab-gui-test-bad-config.json";
  {
    std::FILE* f = std::fopen(bad.c_str(), "w");
    std::fputs("{\"num_attention_heads\": \"many\"}", f);
    std::fclose(f);
  }
  err.clear();
  CHECK_FALSE(app::import_config(a, bad, &err));
  CHECK_FALSE(err.empty());
  std::remove(bad.c_str());
  // The panel shows the message under the path field without failing.
  a.model_view.import_error = err;
  gui_test::HeadlessImGui ui;
  REQUIRE_NOTHROW(frames_of(ui, a, app::draw_model_panel, 2));
}

TEST_CASE("model edits validate first and keep the variant in step with the heads",
          "[gui][model]") {
  app::App a = make_app("llama-3-8b");  // GQA: Hq 32, Hkv 8
  attn::ModelConfig d = a.base;
  d.kv_heads = 32;
  std::string err;
  REQUIRE(app::apply_model_edit(a, d, &err));
  CHECK(a.base.variant == attn::Variant::kMha);
  CHECK(a.model.kv_heads == 32);
  d = a.base;
  d.kv_heads = 1;
  REQUIRE(app::apply_model_edit(a, d, &err));
  CHECK(a.model.variant == attn::Variant::kMqa);
  const std::uint64_t rev = a.model_revision;
  d = a.base;
  d.kv_heads = 7;  // does not divide 32
  CHECK_FALSE(app::apply_model_edit(a, d, &err));
  CHECK(err.find("kv_heads") != std::string::npos);
  CHECK(a.model_revision == rev);  // nothing changed
  CHECK(a.base.kv_heads == 1);
  d = a.base;
  d.window = 0;
  d.layers.assign(d.layers.size(), attn::LayerKind::kSliding);  // sliding without a window
  CHECK_FALSE(app::apply_model_edit(a, d, &err));
  CHECK(err.find("window") != std::string::npos);
  d.window = 4096;
  REQUIRE(app::apply_model_edit(a, d, &err));
  CHECK(a.model.variant == attn::Variant::kSwa);
  CHECK(a.base.display_name.find("(edited)") != std::string::npos);
}
