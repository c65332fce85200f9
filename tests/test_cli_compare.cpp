// `attnlab compare` and the side-by-side run behind it: the documented JSON members, the CPU
// float32 path within its tolerance of the float64 truth on seeded inputs, the same seed giving
// the same result, the GPU side recorded (labelled) or missing with a reason where no GPU is,
// and one error line with exit 2 or 3 for what cannot run.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "app/cli/side_by_side.h"
#include "attention/reference.h"
#include "cli_spawn.h"
#include "kernels/gpu.h"

using cli_test::one_error_line;
using cli_test::Ran;
using cli_test::run_attnlab;
using cli_test::TempDir;
using Json = nlohmann::json;

TEST_CASE("cli: compare --json has a cpu and a gpu member with the documented fields",
          "[cli][compare]") {
  TempDir dir;
  const Ran r = run_attnlab({"compare", "--variant", "gqa", "--seq", "4096", "--seed", "11",
                             "--min-runs", "2", "--min-seconds", "0.01", "--json"},
                            dir);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);  // nothing else on stdout
  CHECK(j.at("seed") == 11);
  CHECK(j.at("case").at("variant") == "gqa");
  CHECK(j.at("tolerance").at("rtol") == Approx(2e-2));
  for (const char* side : {"cpu", "gpu"}) {
    CAPTURE(side);
    for (const char* f : {"median_us", "dtype", "max_abs_err", "recorded", "reason"})
      CHECK(j.at(side).contains(f));
  }
  const Json& cpu = j.at("cpu");
  CHECK(cpu.at("dtype") == "fp32");
  CHECK(cpu.at("present") == true);
  CHECK(cpu.at("median_us").get<double>() > 0);
  CHECK(cpu.at("max_abs_err").get<double>() < 1e-3);
  CHECK(cpu.at("within_tolerance") == true);
  const Json& gpu = j.at("gpu");
  CHECK(gpu.at("dtype") == "bf16");
  if (!kern::query_device().available) {
    // GQA 32/8x128 B1 S4096 bf16 is in the recorded peers suite.
    CHECK(gpu.at("recorded") == true);
    CHECK_THAT(gpu.at("provenance").get<std::string>(), Catch::StartsWith("recorded on "));
    CHECK_FALSE(gpu.at("reason").get<std::string>().empty());
  } else {
    CHECK(gpu.at("recorded") == false);
    CHECK(gpu.at("within_tolerance") == true);
  }
}

TEST_CASE(
    "cli: compare without a GPU or a recording says so; the same seed gives the same "
    "result",
    "[cli][compare]") {
  TempDir dir;
  const std::vector<std::string> args = {
      "compare", "--variant",  "mla", "--batch",       "3",    "--seq", "1000", "--seed",
      "5",       "--min-runs", "1",   "--min-seconds", "0.01", "--json"};
  const Ran a = run_attnlab(args, dir);
  const Ran b = run_attnlab(args, dir);
  REQUIRE(a.code == 0);
  REQUIRE(b.code == 0);
  const Json ja = Json::parse(a.out), jb = Json::parse(b.out);
  CHECK(ja.at("cpu").at("max_abs_err") == jb.at("cpu").at("max_abs_err"));
  CHECK(ja.at("cpu").at("worst_element") == jb.at("cpu").at("worst_element"));
  if (!kern::query_device().available) {
    CHECK(ja.at("gpu").at("present") == false);
    CHECK(ja.at("gpu").at("median_us").is_null());
    CHECK_THAT(ja.at("gpu").at("reason").get<std::string>(),
               Catch::Contains("no GPU recording of this shape"));
  }
  // The text form names both sides and the MI355X projection as a projection.
  const Ran t = run_attnlab({"compare", "--variant", "mla", "--batch", "3", "--seq", "1000",
                             "--seed", "5", "--min-runs", "1", "--min-seconds", "0.01"},
                            dir);
  REQUIRE(t.code == 0);
  CHECK_THAT(t.out, Catch::Contains("CPU (threaded, fp32)"));
  CHECK_THAT(t.out, Catch::Contains("MI355X"));
  CHECK_THAT(t.out, Catch::Contains("projection"));
}

TEST_CASE("cli: compare refuses what cannot run with one error line", "[cli][compare]") {
  TempDir dir;
  const std::vector<std::vector<std::string>> bad = {
      {"compare"},
      {"compare", "--variant", "gqa", "--q-heads", "30"},
      {"compare", "--variant", "gqa", "--dtype", "fp32"},
      {"compare", "--variant", "gqa", "--dtype", "mxfp4"},
      {"compare", "--variant", "gqa", "--batch", "4096", "--seq", "65536"},
      {"compare", "--variant", "gqa", "--seed", "0"},
      {"compare", "--variant", "gqa", "--device", "tpu"},
      {"compare", "--variant", "gqa", "--json", "/nonexistent/dir/x.json"},
  };
  for (const auto& args : bad) {
    CAPTURE(args);
    const Ran r = run_attnlab(args, dir);
    CHECK(r.code == 2);
    CHECK(one_error_line(r.err));
    CHECK(r.out.empty());
  }
  if (!kern::query_device().available) {
    const Ran r = run_attnlab({"compare", "--variant", "gqa", "--device", "gpu"}, dir);
    CHECK(r.code == 3);
    CHECK(one_error_line(r.err));
  }
}

TEST_CASE(
    "side by side: the CPU path's error is measured against an independent float64 "
    "reference",
    "[compare]") {
  kern::BenchCase c;
  c.variant = attn::Variant::kSwa;
  c.batch = 2;
  c.seq = 700;
  c.q_heads = 8;
  c.kv_heads = 2;
  c.head_dim = 64;
  c.window = 100;
  app::SideBySideOptions opt;
  opt.seed = 1234;
  opt.min_runs = 1;
  opt.min_seconds = 0.01;
  opt.gpu = false;
  const app::SideBySide r = app::run_side_by_side(c, opt);
  REQUIRE(r.reference.size() == 8u * 64u);
  REQUIRE(r.cpu.out.size() == r.reference.size());
  CHECK(r.cpu.present);
  CHECK(r.cpu.within_tolerance);
  CHECK(r.cpu.max_abs_err < 1e-5);
  CHECK(r.gpu.reason == "the GPU side was not asked for");
  // The reported worst element is where |cpu - reference| is largest.
  double worst = 0;
  for (size_t i = 0; i < r.reference.size(); ++i)
    worst = std::max(worst, std::fabs(static_cast<double>(r.cpu.out[i]) - r.reference[i]));
  CHECK(worst == r.cpu.max_abs_err);
  // The reference is the window's softmax-weighted mean of V: every output lies in [-1, 1].
  for (double x : r.reference) CHECK(std::fabs(x) <= 1.0);
  CHECK(app::tolerance_of(attn::DType::kFp8).rtol == 5e-2);
  CHECK(app::tolerance_of(attn::DType::kMxfp4).atol == 5e-2);
}
