// The attention and latency panels draw frames in a headless ImGui context (no backend, no
// window) for every variant of a model, without an ImGui assert; the
// latency panel keeps drawing while a CPU benchmark runs and takes its results when it ends.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <thread>

#include <imgui.h>

#include "app/app_state.h"
#include "app/job_runner.h"
#include "app/latency_results.h"
#include "app/explorer.h"
#include "app/learn/learn_view.h"
#include "app/panels.h"
#include "attention/presets.h"
#include "headless.h"

namespace {

// The shared headless context (tests/gui/headless.h: no backend, the program's fonts), one
// frame per call around `draw`.
class HeadlessImGui {
 public:
  void frame(const std::function<void()>& draw) {
    ui_.begin_frame();
    draw();
    CHECK(ui_.end_frame());  // every Begin had its End, and something was drawn
  }

 private:
  gui_test::HeadlessImGui ui_;
};

app::App make_app(const std::string& preset) {
  app::App a;
  a.device = kern::DeviceInfo{};  // no GPU: the GPU choice shows greyed with the reason
  a.device.reason = "test: no GPU";
  REQUIRE(app::load_preset(a, preset));
  return a;
}

void draw_mine(app::App& a) {
  app::draw_attention_panel(a);
  app::draw_latency_panel(a);
}

}  // namespace

TEST_CASE(
    "attention and latency panels: every preset and every what-if variant draw without an "
    "assert",
    "[gui][panels]") {
  HeadlessImGui imgui;
  for (const attn::ModelConfig& m : attn::presets()) {
    CAPTURE(m.name);
    app::App a = make_app(m.name);
    for (const char* v : {"", "mha", "mqa", "gqa", "swa", "mla"}) {
      CAPTURE(v);
      app::set_what_if_variant(a, v);
      for (int f = 0; f < 2; ++f) imgui.frame([&] { draw_mine(a); });
      if (a.model_error.empty()) {
        CHECK(a.attention.error.empty());
        CHECK(a.attention.q_heads >= 1);
        // The matrices match the layer shown ([Hq, T, S]) and masked cells are exactly the
        // causal (and window) ones: -inf scores, zero probabilities.
        const auto& r = a.attention.result;
        REQUIRE(r.scores.shape.size() == 3);
        CHECK(r.scores.shape[0] == a.attention.q_heads);
        CHECK(r.scores.shape[1] == a.attention.tokens);
        for (std::size_t i = 0; i < a.attention.masked.size(); ++i)
          if (a.attention.masked[i]) CHECK(r.probs.data[i] == 0.0);
      }
    }
  }
}

TEST_CASE("attention and latency panels: the attention masks are causal and windowed",
          "[gui][panels]") {
  HeadlessImGui imgui;
  app::App a = make_app("mistral-7b-v0.1");  // all layers slide, W 4096 > T: picture window
  a.attention.tokens = 16;
  a.attention.picture_window = 4;
  imgui.frame([&] { app::draw_attention_panel(a); });
  REQUIRE(a.attention.error.empty());
  const int t = a.attention.tokens;
  CHECK(a.attention.window == 4);
  CHECK_FALSE(a.attention.window_from_model);
  for (int i = 0; i < t; ++i)
    for (int j = 0; j < t; ++j) {
      CAPTURE(i, j);
      const bool keep = j <= i && j > i - 4;  // query at position i sees keys i-3 .. i
      CHECK(a.attention.masked[static_cast<std::size_t>(i * t + j)] == (keep ? 0 : 1));
    }
  // Each probability row sums to one.
  for (int i = 0; i < t; ++i) {
    double sum = 0;
    for (int j = 0; j < t; ++j)
      sum += a.attention.result.probs.data[static_cast<std::size_t>(i * t + j)];
    CHECK(sum == Approx(1.0).epsilon(1e-9));
  }
}

TEST_CASE(
    "attention and latency panels: the latency panel draws while a CPU job runs and collects "
    "it",
    "[gui][latency]") {
  HeadlessImGui imgui;
  app::App a = make_app("llama-3-8b");
  a.latency.runner = std::make_shared<app::JobRunner>();
  kern::BenchCase c;
  c.batch = 1;
  c.seq = 64;
  c.q_heads = 4;
  c.kv_heads = 2;
  c.head_dim = 32;
  kern::BenchOptions opt;
  opt.threads = 1;
  opt.min_runs = 3;
  opt.min_seconds = 0.0;
  REQUIRE(a.latency.runner->start({c, c}, opt, "test"));
  app::load_recorded_results(a.latency);  // what the first draw does; then count the sets
  const std::size_t before = a.latency.sets.size();
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::seconds(400);  // the job runs at idle priority
  int frames = 0;
  while (std::chrono::steady_clock::now() < until) {
    imgui.frame([&] { app::draw_latency_panel(a); });
    ++frames;
    if (!a.latency.runner->running() && a.latency.sets.size() > before) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  CAPTURE(frames);
  REQUIRE(a.latency.sets.size() == before + 1);
  const app::ResultSet& s = a.latency.sets.back();
  CHECK(s.origin == app::ResultSet::Origin::kRun);
  CHECK(s.report.results.size() == 2);
  CHECK(a.latency.job_error.empty());
  // Every tab's content draws with results present: the run, and the recorded GPU sets (whose
  // results carry the in-graph step time) with and without its plot lines.
  for (app::LatencyTab tab : {app::LatencyTab::kTable, app::LatencyTab::kSideBySide,
                              app::LatencyTab::kPlots, app::LatencyTab::kRoofline}) {
    CAPTURE(static_cast<int>(tab));
    for (int sel = 0; sel < static_cast<int>(a.latency.sets.size()); ++sel) {
      CAPTURE(sel);
      a.latency.selected = sel;
      for (bool steps : {true, false}) {
        a.latency.plot_steps = steps;
        a.latency.open_tab = tab;
        for (int f = 0; f < 2; ++f) imgui.frame([&] { app::draw_latency_panel(a); });
        CHECK(a.latency.open_tab == app::LatencyTab::kNone);
      }
    }
  }
}

TEST_CASE(
    "attention and latency panels: Run side by side runs off the UI thread and its result "
    "draws in the latency panel and in the Learn view",
    "[gui][panels][compare]") {
  HeadlessImGui imgui;
  app::App a = make_app("qwen2.5-7b");
  a.seq = 512;
  a.latency.min_runs = 1;
  a.latency.min_seconds = 0.0f;
  REQUIRE(app::start_side_by_side(a));
  CHECK(a.latency.side_by_side_running);
  CHECK_FALSE(app::start_side_by_side(a));  // one job at a time
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::seconds(400);  // the job runs at idle priority
  while (std::chrono::steady_clock::now() < until && !a.latency.side_by_side) {
    imgui.frame([&] { app::draw_latency_panel(a); });
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  REQUIRE(a.latency.side_by_side);
  const app::SideBySide& r = *a.latency.side_by_side;
  CHECK(r.c.seq == 512);
  CHECK(r.heads == a.model.q_heads);
  CHECK(r.cpu.present);
  CHECK(r.cpu.within_tolerance);
  CHECK(r.reference.size() == static_cast<size_t>(r.heads) * static_cast<size_t>(r.dims));
  for (int f = 0; f < 3; ++f) imgui.frame([&] { app::draw_latency_panel(a); });
  // The Learn view's "Measure it" draws the same result.
  a.view = app::View::kLearn;
  app::learn::go_to(a, 8, 1);
  for (int f = 0; f < 3; ++f) imgui.frame([&] { app::draw_frame(a); });
  for (const std::string& m : a.messages) CHECK(m.find(" view: ") == std::string::npos);
}

TEST_CASE(
    "attention and latency panels: the attention matrices are recomputed only when an input "
    "changes",
    "[gui][panels]") {
  HeadlessImGui imgui;
  app::App a = make_app("llama-3-8b");
  imgui.frame([&] { app::draw_attention_panel(a); });
  const double* first = a.attention.result.scores.data.data();
  const std::string key = a.attention.key;
  for (int f = 0; f < 5; ++f) imgui.frame([&] { app::draw_attention_panel(a); });
  CHECK(a.attention.result.scores.data.data() == first);  // same buffer: not recomputed
  CHECK(a.attention.key == key);
  a.attention.seed = 99;  // another draw of q, k, v
  imgui.frame([&] { app::draw_attention_panel(a); });
  CHECK(a.attention.key != key);
  const std::string key2 = a.attention.key;
  REQUIRE(app::set_what_if_variant(a, "mqa"));  // the variant changes the shape
  imgui.frame([&] { app::draw_attention_panel(a); });
  CHECK(a.attention.key != key2);
  CHECK(a.attention.kv_heads == 1);
}
