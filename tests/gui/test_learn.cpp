// The Learn and Compare views in a headless ImGui context: every beat of every chapter draws for
// several models; Back / Next walk the whole lesson and back; a lesson never changes the user's
// settings and its own controls start from them again on every beat; the figures its captions
// show are attention/'s; --learn and --compare open what they name.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "app/app_state.h"
#include "app/compare_view.h"
#include "app/explorer.h"
#include "app/learn/chapter.h"
#include "app/learn/learn_view.h"
#include "attention/cost.h"
#include "attention/kv_cache.h"
#include "attention/presets.h"
#include "attention/roofline.h"
#include "attention/units.h"
#include "headless.h"

namespace {

app::App make_app(const std::string& preset) {
  app::App a;
  a.device = kern::DeviceInfo{};
  a.device.reason = "test: no GPU";
  REQUIRE(app::load_preset(a, preset));
  return a;
}

// Frames of the whole window; the animation clock advances 1/60 s a frame.
void frames(gui_test::HeadlessImGui& ui, app::App& a, int n) {
  for (int f = 0; f < n; ++f) {
    a.clock_s += 1.0 / 60.0;
    ui.begin_frame();
    app::draw_frame(a);
    REQUIRE(ui.end_frame());
  }
}

bool has_view_error(const app::App& a) {
  for (const std::string& m : a.messages)
    if (m.find(" view: ") != std::string::npos) return true;
  return false;
}

int total_beats() {
  int n = 0;
  for (const app::learn::Chapter* c : app::learn::chapters()) n += c->beats;
  return n;
}

// The caption of chapter c (0-based), beat b, for the app's model and the user's settings.
std::string caption(app::App& a, int c, int b) {
  app::learn::go_to(a, c, b);
  a.learn.controls = app::learn::controls_from_user(a);
  const app::learn::Chapter& ch = *app::learn::chapters()[static_cast<size_t>(c)];
  if (ch.defaults) ch.defaults(a.learn.controls);
  return ch.text(app::learn::make_lesson(a)).caption;
}

int sentences(const std::string& s) {
  int n = 0;
  for (size_t i = 0; i + 1 < s.size(); ++i)
    if ((s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i + 1] == ' ') ++n;
  return n + (!s.empty() && s.back() == '.' ? 1 : 0);
}

}  // namespace

TEST_CASE(
    "learn: every beat of every chapter draws for several models, in at most three "
    "sentences",
    "[gui][learn]") {
  REQUIRE(app::learn::chapters().size() == 10);
  gui_test::HeadlessImGui ui;
  // A grouped model, an MLA one and a hybrid: every chapter picks its own model from these.
  for (const char* preset : {"llama-3-8b", "deepseek-v3", "gemma-3-12b"}) {
    app::App a = make_app(preset);
    a.view = app::View::kLearn;
    for (size_t c = 0; c < app::learn::chapters().size(); ++c) {
      const app::learn::Chapter& ch = *app::learn::chapters()[c];
      for (int b = 0; b < ch.beats; ++b) {
        CAPTURE(preset, c + 1, b + 1);
        app::learn::go_to(a, static_cast<int>(c), b);
        frames(ui, a, 2);
        CHECK_FALSE(has_view_error(a));
        CHECK(ui.window_active("Learn"));
        const app::learn::BeatText t = ch.text(app::learn::make_lesson(a));
        CHECK_FALSE(t.title.empty());
        CHECK_FALSE(t.caption.empty());
        CHECK(sentences(t.caption) <= 3);
        CHECK(t.caption.find("nan") == std::string::npos);
        CHECK(t.caption.find("inf ") == std::string::npos);
      }
    }
  }
}

TEST_CASE("learn: Next walks every beat to the end and Back walks it back", "[gui][learn]") {
  app::App a = make_app("llama-3-8b");
  app::learn::go_to(a, 0, 0);
  const int n = total_beats();
  for (int i = 1; i < n; ++i) {
    a.learn.beat_time = 0.7;
    app::learn::next_beat(a);
    CHECK(a.learn.beat_time == 0);  // every beat starts its animation again
  }
  CHECK(a.learn.chapter == 9);
  CHECK(a.learn.beat == app::learn::chapters().back()->beats - 1);
  app::learn::next_beat(a);  // past the end: stays
  CHECK(a.learn.chapter == 9);
  for (int i = 1; i < n; ++i) app::learn::prev_beat(a);
  CHECK(a.learn.chapter == 0);
  CHECK(a.learn.beat == 0);
  app::learn::prev_beat(a);
  CHECK(a.learn.chapter == 0);
  app::learn::go_to(a, 3, -1);  // -1: the chapter's last beat
  CHECK(a.learn.beat == app::learn::chapters()[3]->beats - 1);
  app::learn::go_to(a, 99, 99);  // clamped
  CHECK(a.learn.chapter == 9);
}

TEST_CASE(
    "learn: a lesson never changes the user's settings, and its controls start from them "
    "on every beat",
    "[gui][learn]") {
  gui_test::HeadlessImGui ui;
  app::App a = make_app("qwen2.5-7b");
  a.seq = 8192;
  a.kv_dtype = attn::DType::kFp8;
  a.tp = 2;
  a.gpu_name = "MI355X";
  a.batch = 3;
  REQUIRE(app::set_what_if_variant(a, "mqa"));
  const std::string before = a.model.name + "/" + std::to_string(a.model.kv_heads);
  a.view = app::View::kLearn;
  app::learn::go_to(a, 0, 0);
  for (int i = 1; i < total_beats(); ++i) {
    frames(ui, a, 2);
    // What a learner might try inside the beat.
    a.learn.controls.seq = 1024;
    a.learn.controls.dtype = attn::DType::kMxfp4;
    a.learn.controls.kv_heads = 1;
    a.learn.controls.tp = 4;
    a.learn.controls.gpu = "H100";
    frames(ui, a, 1);
    app::learn::next_beat(a);
    frames(ui, a, 1);
    CAPTURE(a.learn.chapter, a.learn.beat);
    // Entering a beat resets the lesson's controls to the user's values.
    CHECK(a.learn.controls.seq == 8192);
    CHECK(a.learn.controls.dtype == attn::DType::kFp8);
    CHECK(a.learn.controls.gpu == "MI355X");
    CHECK(a.learn.controls.tp == 2);  // (chapter 10 starts at 8 only from TP 1)
    // And the user's own settings never moved.
    CHECK(a.seq == 8192);
    CHECK(a.kv_dtype == attn::DType::kFp8);
    CHECK(a.tp == 2);
    CHECK(a.batch == 3);
    CHECK(a.gpu_name == "MI355X");
    CHECK(a.what_if);
    CHECK(a.model.name + "/" + std::to_string(a.model.kv_heads) == before);
    CHECK(a.view == app::View::kLearn);
  }
}

TEST_CASE("learn: the figures in the captions are attention/'s for the model", "[gui][learn]") {
  app::App a = make_app("llama-3-8b");
  a.seq = 32768;
  a.kv_dtype = attn::DType::kBf16;
  a.gpu_name = "H200";
  const attn::ModelConfig& m = a.model;
  const attn::GpuSpec* h200 = attn::find_gpu("H200");
  REQUIRE(h200);

  // One decode step: the whole cache, and the time to read it at the H200's bandwidth.
  const attn::KvReport kv = attn::kv_cache(m, 32768, 1, attn::DType::kBf16, 1);
  const double total = static_cast<double>(kv.total_bytes);
  std::string c = caption(a, 0, 3);
  CHECK_THAT(c, Catch::Contains(attn::format_bytes(total)));
  CHECK_THAT(
      c, Catch::Contains(attn::format_duration_us(total / h200->bandwidth_bytes_per_s() * 1e6)));
  CHECK_THAT(
      caption(a, 0, 1),
      Catch::Contains(attn::format_bytes(static_cast<double>(kv.bytes_per_token_full_layer))));

  // Share keys and values: MHA's and GQA's caches (Llama-3-8B's own 8 kv heads).
  attn::WhatIf w;
  w.variant = attn::Variant::kMha;
  const double mha = static_cast<double>(
      attn::kv_cache(attn::apply_what_if(m, w), 32768, 1, attn::DType::kBf16).total_bytes);
  CHECK_THAT(caption(a, 1, 0), Catch::Contains(attn::format_bytes(mha)));
  c = caption(a, 1, 1);
  CHECK_THAT(c, Catch::Contains(attn::format_bytes(total)));
  CHECK_THAT(c, Catch::Contains("G = 4"));

  // Compress: DeepSeek-V3's row against MHA with 128-wide heads (56.9x) and its real 192-wide
  // keys (71.1x).
  const attn::ModelConfig& ds = attn::find_preset("deepseek-v3");
  const double row =
      static_cast<double>(attn::kv_bytes_per_token(ds.layer_shape(0), attn::DType::kBf16));
  CHECK_THAT(caption(a, 2, 1), Catch::Contains(attn::format_ratio(2.0 * 128 * 128 * 2 / row)));
  CHECK_THAT(caption(a, 2, 1), Catch::Contains("56.9x"));
  CHECK_THAT(caption(a, 2, 2), Catch::Contains("71.1x"));
  // The row in mxfp4: 288 bytes of 4-bit codes and 18 scale bytes, against bf16.
  const double mx =
      static_cast<double>(attn::kv_bytes_per_token(ds.layer_shape(0), attn::DType::kMxfp4));
  CHECK(mx == 306);
  c = caption(a, 2, 3);
  CHECK_THAT(c, Catch::Contains("288 B + 18 B = 306 B"));
  CHECK_THAT(c, Catch::Contains(attn::format_ratio(row / mx)));

  // Absorb: the decode step's FLOPs in both forms.
  const double naive =
      attn::decode_cost(ds.layer_shape(0), 1, 32768, attn::DType::kBf16, attn::MlaForm::kNaive, &ds)
          .flops;
  const double absorbed = attn::decode_cost(ds.layer_shape(0), 1, 32768, attn::DType::kBf16,
                                            attn::MlaForm::kAbsorbed, &ds)
                              .flops;
  c = caption(a, 3, 1);
  CHECK_THAT(c, Catch::Contains(attn::format_flops(naive)));
  CHECK_THAT(c, Catch::Contains(attn::format_flops(absorbed)));

  // Roofline: the ridge, and the H where MLA crosses it.
  CHECK_THAT(caption(a, 5, 0),
             Catch::Contains(attn::format_si(h200->ridge_intensity(attn::DType::kBf16))));
  const double cross = attn::compute_bound_group_size(*h200, attn::DType::kBf16, 576, 512, true);
  CHECK_THAT(caption(a, 5, 4), Catch::Contains("H = " + attn::format_si(cross)));

  // Split across GPUs: the lesson starts at TP 8; Llama-3.1-70B's cache per GPU at 128k.
  const attn::ModelConfig& l70 = attn::find_preset("llama-3.1-70b");
  const double per8 =
      static_cast<double>(attn::kv_cache(l70, 131072, 1, attn::DType::kBf16, 8).per_device_bytes);
  CHECK_THAT(caption(a, 9, 0), Catch::Contains(attn::format_bytes(per8)));
  const double ds1 =
      static_cast<double>(attn::kv_cache(ds, 131072, 1, attn::DType::kBf16, 8).per_device_bytes);
  CHECK_THAT(caption(a, 9, 1), Catch::Contains(attn::format_bytes(ds1)));
}

TEST_CASE("learn: Open in workbench sets the panels to the beat and switches views",
          "[gui][learn]") {
  app::App a = make_app("llama-3-8b");
  app::learn::go_to(a, 1, 2);  // Share keys and values, MQA
  a.learn.controls = app::learn::controls_from_user(a);
  const app::learn::Chapter& ch = *app::learn::chapters()[1];
  app::learn::open_in_workbench(a, ch.setup(app::learn::make_lesson(a)));
  CHECK(a.view == app::View::kWorkbench);
  CHECK(a.model.kv_heads == 1);
  CHECK(a.shown(app::PanelId::kKvCache));

  app::learn::go_to(a, 9, 1);  // MLA under TP: DeepSeek-V3 at 128k, TP 8
  a.learn.controls = app::learn::controls_from_user(a);
  app::learn::chapters()[9]->defaults(a.learn.controls);
  app::learn::open_in_workbench(a, app::learn::chapters()[9]->setup(app::learn::make_lesson(a)));
  CHECK(a.preset_name == "deepseek-v3");
  CHECK(a.model.variant == attn::Variant::kMla);
  CHECK(a.seq == 131072);
  CHECK(a.tp == 8);

  app::learn::go_to(a, 8, 1);  // Measure it: the latency panel's Side by side tab
  a.learn.controls = app::learn::controls_from_user(a);
  app::learn::open_in_workbench(a, app::learn::chapters()[8]->setup(app::learn::make_lesson(a)));
  CHECK(a.shown(app::PanelId::kLatency));
  CHECK(a.latency.open_tab == app::LatencyTab::kSideBySide);
}

TEST_CASE("learn: --learn N.M opens that beat and refuses ones that do not exist", "[gui][learn]") {
  app::App a = make_app("llama-3-8b");
  app::ExplorerOptions opt;
  opt.view = "learn";
  opt.learn_chapter = 4;
  opt.learn_beat = 2;
  std::string err;
  REQUIRE(app::apply_explorer_options(a, opt, &err));
  CHECK(a.view == app::View::kLearn);
  CHECK(a.learn.chapter == 3);
  CHECK(a.learn.beat == 1);
  opt.learn_chapter = 11;
  CHECK_FALSE(app::apply_explorer_options(a, opt, &err));
  CHECK_THAT(err, Catch::Contains("chapter 11 does not exist"));
  opt.learn_chapter = 8;
  opt.learn_beat = 9;
  CHECK_FALSE(app::apply_explorer_options(a, opt, &err));
  CHECK_THAT(err, Catch::Contains("has 2 beats"));
}

TEST_CASE("compare: columns of variants and presets draw, and each column is its model",
          "[gui][compare]") {
  gui_test::HeadlessImGui ui;
  app::App a = make_app("llama-3-8b");
  app::ExplorerOptions opt;
  opt.view = "compare";
  opt.compare = {"mha", "gqa", "mla", "deepseek-v3"};
  std::string err;
  REQUIRE(app::apply_explorer_options(a, opt, &err));
  REQUIRE(a.compare.columns.size() == 4);
  frames(ui, a, 3);
  CHECK(ui.window_active("Compare"));
  CHECK_FALSE(has_view_error(a));
  const auto mha = app::compare_column_model(a, a.compare.columns[0], &err);
  const auto mla = app::compare_column_model(a, a.compare.columns[2], &err);
  const auto ds = app::compare_column_model(a, a.compare.columns[3], &err);
  REQUIRE(mha);
  REQUIRE(mla);
  REQUIRE(ds);
  CHECK(mha->kv_heads == 32);
  CHECK(mla->variant == attn::Variant::kMla);
  CHECK(mla->latent_dim == 512);
  CHECK(ds->name == "deepseek-v3");
  // Every preset with every variant draws (a what-if that does not fit shows its reason).
  for (const attn::ModelConfig& p : attn::presets()) {
    CAPTURE(p.name);
    a.compare.columns = {{p.name, ""}, {p.name, "mqa"}, {p.name, "swa"}, {p.name, "mla"}};
    frames(ui, a, 2);
    CHECK_FALSE(has_view_error(a));
  }
}
