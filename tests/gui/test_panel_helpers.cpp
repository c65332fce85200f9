// Pure helpers behind the attention and latency panels: the heat colour map, the roofline
// curve, benchmark-case conversions and results files (CSV, atomic writes, import errors).
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <random>

#include "app/bench_cases.h"
#include "app/latency_results.h"
#include "attention/error.h"
#include "attention/npy.h"
#include "attention/presets.h"
#include "visuals/heatmap.h"
#include "visuals/roofline.h"

TEST_CASE("heatmap colour map: clamped, continuous, dark to bright", "[gui][heatmap]") {
  const unsigned seed = 7u;
  CAPTURE(seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  float lo[3], hi[3], below[3], above[3];
  vis::heat_rgb(0.0, lo);
  vis::heat_rgb(1.0, hi);
  vis::heat_rgb(-3.0, below);
  vis::heat_rgb(7.0, above);
  for (int c = 0; c < 3; ++c) {
    CHECK(below[c] == lo[c]);
    CHECK(above[c] == hi[c]);
  }
  CHECK(lo[0] + lo[1] + lo[2] < hi[0] + hi[1] + hi[2]);
  for (int i = 0; i < 1000; ++i) {
    const double t = u(rng);
    float a[3], b[3];
    vis::heat_rgb(t, a);
    vis::heat_rgb(t + 1e-4, b);
    for (int c = 0; c < 3; ++c) {
      CHECK(a[c] >= 0.0f);
      CHECK(a[c] <= 1.0f);
      CHECK(std::abs(a[c] - b[c]) < 1e-2f);  // no jumps
    }
  }
  CHECK(vis::heat_unit(5, 0, 10) == Approx(0.5));
  CHECK(vis::heat_unit(-1, 0, 10) == 0.0);
  CHECK(vis::heat_unit(std::numeric_limits<double>::infinity(), 0, 1) == 0.0);
  CHECK(vis::heat_unit(3, 3, 3) == 0.5);
}

TEST_CASE("roofline curve: on the roof, ridge included, increasing", "[gui][roofline]") {
  const attn::GpuSpec* g = attn::find_gpu("H200");
  REQUIRE(g != nullptr);
  std::vector<double> xs, ys;
  vis::roofline_curve(*g, attn::DType::kBf16, 0.1, 1e4, 40, &xs, &ys);
  REQUIRE(xs.size() == 41);  // 40 samples and the ridge
  const double ridge = g->ridge_intensity(attn::DType::kBf16);
  bool has_ridge = false;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    CAPTURE(i, xs[i]);
    CHECK(ys[i] == Approx(std::min(xs[i] * 4.8e12, 989e12)));
    if (i > 0) CHECK(xs[i] > xs[i - 1]);
    if (xs[i] == ridge) has_ridge = true;
  }
  CHECK(has_ridge);
  vis::roofline_curve(*g, attn::DType::kBf16, 0, 1, 10, &xs, &ys);  // invalid range: empty
  CHECK(xs.empty());
}

TEST_CASE("bench cases: a model layer becomes a case and back", "[gui][bench]") {
  const attn::ModelConfig& ds = attn::find_preset("deepseek-v3");
  const kern::BenchCase c = kern::BenchCase::from_model(ds, 0, 2, 4096, attn::DType::kBf16);
  CHECK(c.variant == attn::Variant::kMla);
  CHECK(c.q_heads == 128);
  CHECK(c.latent_dim == 512);
  CHECK(c.rope_dim == 64);
  CHECK(c.head_dim == 576);
  const attn::LayerShape l = c.layer_shape();
  CHECK(l.kv_heads == 1);
  CHECK(l.value_dim == 512);
  CHECK_NOTHROW(l.validate());
  const attn::ModelConfig& ll = attn::find_preset("llama-3-8b");
  const kern::BenchCase g = kern::BenchCase::from_model(ll, 0, 1, 1000, attn::DType::kFp8);
  CHECK(g.kv_heads == 8);
  CHECK(g.layer_shape().value_dim == 128);
  CHECK(app::shape_key(g) != app::shape_key(c));
  kern::BenchCase g2 = g;
  g2.dtype = attn::DType::kBf16;  // the same shape in another dtype keys the same
  g2.label = "other";
  CHECK(app::shape_key(g2) == app::shape_key(g));
  // Projection: bytes / 8 TB/s for the memory-bound GQA case on MI355X.
  const attn::GpuSpec* mi = attn::find_gpu("MI355X");
  REQUIRE(mi != nullptr);
  const attn::DecodeCost cost = app::case_cost(g2, attn::DType::kBf16);
  CHECK(app::projected_us(g2, *mi) == Approx(cost.total_bytes() / 8e12 * 1e6));
  CHECK(app::gpu_spec_for_device("NVIDIA H200") == attn::find_gpu("H200"));
  CHECK(app::gpu_spec_for_device("AMD Instinct MI325X") == attn::find_gpu("MI325X"));
  CHECK(app::gpu_spec_for_device("Intel Arc") == nullptr);
}

TEST_CASE("results files: CSV, export and import round trip, import errors", "[gui][results]") {
  kern::BenchReport r;
  r.device.kind = "cpu";
  r.device.name = "Test CPU, 2 cores";  // a comma: the field is quoted
  r.date = "2026-12-02T17:00:00Z";
  r.commit = "abc";
  kern::BenchResult x;
  x.c.label = "gqa \"quoted\"";
  x.device = "cpu";
  x.median_us = 12.5;
  r.results.push_back(x);
  const std::string csv = app::results_csv(r);
  CHECK_THAT(csv, Catch::StartsWith("label,variant,batch,seq"));
  CHECK_THAT(csv, Catch::Contains("\"gqa \"\"quoted\"\"\""));
  CHECK_THAT(csv, Catch::Contains("\"Test CPU, 2 cores\""));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 2);
  CHECK_THAT(app::provenance_line(r), Catch::Contains("Test CPU") && Catch::Contains("abc") &&
                                          Catch::Contains("2026-12-02"));

  const std::string path = "panel_helpers_results_test.json";
  attn::write_file_atomic(path, kern::bench_report_json(r));  // what Export writes
  const kern::BenchReport back = app::read_results_file(path);
  REQUIRE(back.results.size() == 1);
  CHECK(back.results[0].median_us == Approx(12.5));
  CHECK(back.date == r.date);
  std::remove(path.c_str());

  CHECK_THROWS_AS(app::read_results_file("/nonexistent/dir/x.json"), attn::InputError);
  {
    std::ofstream bad(path);
    bad << "{\"results\": 5}";
  }
  CHECK_THROWS_AS(app::read_results_file(path), attn::InputError);
  std::remove(path.c_str());
}

TEST_CASE("recorded results: every shipped file parses and carries its provenance",
          "[gui][results]") {
  app::LatencyState st;
  app::load_recorded_results(st);
  for (const std::string& e : st.recorded_errors) FAIL_CHECK("recorded file skipped: " << e);
  if (st.sets.empty()) WARN("no assets/results/*.json in this build");
  for (const app::ResultSet& s : st.sets) {
    CAPTURE(s.name);
    CHECK(s.origin == app::ResultSet::Origin::kRecorded);
    CHECK_FALSE(s.report.device.name.empty());
    CHECK_FALSE(s.report.date.empty());
    CHECK_FALSE(s.report.commit.empty());
    CHECK_FALSE(s.report.results.empty());
  }
  const std::size_t n = st.sets.size();
  app::load_recorded_results(st);  // once only
  CHECK(st.sets.size() == n);
}
