// The benchmark harness (kernels/bench.h): suite contents, KV bytes worked out by hand, case
// validation naming the flag, the JSON round trip and its strict reader, the CPU runner's check
// and statistics, cancel and progress. No test asserts a time.
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "attention/assets.h"
#include "attention/error.h"
#include "kernels/bench.h"
#include "kernels/gpu.h"

using attn::Variant;
using kern::BenchCase;

namespace {

BenchCase small_case(Variant v) {
  BenchCase c;
  c.variant = v;
  c.batch = 2;
  c.seq = 97;
  c.q_heads = 6;
  c.kv_heads = v == Variant::kMha ? 6 : v == Variant::kMqa ? 1 : 2;
  c.head_dim = 32;
  if (v == Variant::kSwa) c.window = 16;
  if (v == Variant::kMla) {
    c.kv_heads = 1;
    c.latent_dim = 32;
    c.rope_dim = 8;
    c.head_dim = 40;
  }
  c.dtype = attn::DType::kFp32;
  return c;
}

kern::BenchOptions quick() {
  kern::BenchOptions o;
  o.min_runs = 3;
  o.min_seconds = 0.001;
  o.probe_bytes = 32u << 20;  // the probe's size is not under test here
  return o;
}

}  // namespace

TEST_CASE("bench: suites hold the documented cases", "[bench]") {
  CHECK(kern::suite_names() ==
        std::vector<std::string>{"peers", "amd-mixed-mla", "amd-mla", "sweep", "worklog"});
  const auto peers = kern::suite_cases("peers");
  CHECK(peers.size() == 13);
  for (const auto& c : peers) {
    CAPTURE(c.label);
    CHECK(c.peer_us > 0);
    CHECK_FALSE(c.peer_name.empty());
    CHECK(c.dtype == attn::DType::kBf16);
    CHECK_NOTHROW(c.validate());
  }
  // Spot rows of the issue's table.
  auto find = [&](const std::string& label) {
    for (const auto& c : peers)
      if (c.label == label) return c;
    FAIL("no peers row " << label);
    return BenchCase{};
  };
  const BenchCase mqa = find("peers: MQA 32/1x128 B16 S4096");
  CHECK(mqa.variant == Variant::kMqa);
  CHECK(mqa.kv_heads == 1);
  CHECK(mqa.peer_us == Approx(55.7));
  const BenchCase swa = find("peers: SWA 32/8x128 W4096 B16 S32768");
  CHECK(swa.window == 4096);
  CHECK(swa.seq == 32768);

  const auto amd = kern::suite_cases("amd-mixed-mla");
  CHECK(amd.size() == 16);
  std::set<std::tuple<std::int64_t, std::int64_t, int>> seen;
  for (const auto& c : amd) {
    CAPTURE(c.label);
    CHECK(c.variant == Variant::kMla);
    CHECK(c.q_heads == 16);
    CHECK(c.latent_dim == 512);
    CHECK(c.rope_dim == 64);
    CHECK(c.scale == Approx(1.0 / std::sqrt(576.0)));
    seen.insert({c.batch, c.seq, static_cast<int>(c.dtype)});
  }
  CHECK(seen.size() == 16);
  for (std::int64_t bs : {4, 32, 64, 256})
    for (std::int64_t kv : {1024, 8192})
      for (auto dt : {attn::DType::kBf16, attn::DType::kFp8})
        CHECK(seen.count({bs, kv, static_cast<int>(dt)}) == 1);

  const auto sweep = kern::suite_cases("sweep");
  std::int64_t min_s = INT64_MAX, max_s = 0, min_b = INT64_MAX, max_b = 0;
  bool gqa = false, mla = false;
  for (const auto& c : sweep) {
    CHECK_NOTHROW(c.validate());
    min_s = std::min(min_s, c.seq);
    max_s = std::max(max_s, c.seq);
    min_b = std::min(min_b, c.batch);
    max_b = std::max(max_b, c.batch);
    gqa = gqa || (c.variant == Variant::kGqa && c.q_heads == 32 && c.kv_heads == 8);
    mla = mla || (c.variant == Variant::kMla && c.q_heads == 16);
  }
  CHECK(min_s == 256);
  CHECK(max_s == 131072);
  CHECK(min_b == 1);
  CHECK(max_b == 256);
  CHECK(gqa);
  CHECK(mla);
  CHECK(sweep.size() <= 64);
  CHECK_THROWS_AS(kern::suite_cases("nope"), attn::InputError);
}

TEST_CASE("bench: every published peer names the GPU it was timed on", "[bench]") {
  int with_peer = 0;
  for (const std::string& name : kern::suite_names())
    for (const BenchCase& c : kern::suite_cases(name)) {
      CAPTURE(name, c.label);
      if (c.peer_us <= 0) {
        CHECK(c.peer_gpu().empty());
        continue;
      }
      ++with_peer;
      CHECK(c.peer_gpu() == "H200");  // the peers table: every peer was timed on an H200
    }
  CHECK(with_peer >= 13);
  BenchCase c;
  c.peer_us = 1.0;
  c.peer_name = "someone's kernel";  // no GPU named
  CHECK(c.peer_gpu().empty());
  c.peer_name = "a, b, MI355X";
  CHECK(c.peer_gpu() == "MI355X");
  c.peer_us = 0;  // a name without a time is no peer
  CHECK(c.peer_gpu().empty());
}

TEST_CASE("bench: kv_bytes by hand", "[bench]") {
  BenchCase g;  // GQA 32/8x128 B1 S4096 bf16
  CHECK(g.kv_bytes() == 1ull * 4096 * 2 * 8 * 128 * 2);
  g.batch = 16;
  g.dtype = attn::DType::kFp8;
  CHECK(g.kv_bytes() == 16ull * 4096 * 2 * 8 * 128);
  BenchCase s = kern::suite_cases("peers")[8];  // SWA W4096 over S32768 reads 4096 positions
  REQUIRE(s.variant == Variant::kSwa);
  CHECK(s.kv_bytes() == 16ull * 4096 * 2 * 8 * 128 * 2);
  BenchCase m = kern::suite_cases("amd-mixed-mla")[7];  // bf16 bs256 kv8192
  REQUIRE(m.batch == 256);
  REQUIRE(m.seq == 8192);
  CHECK(m.kv_bytes() == 256ull * 8192 * 576 * 2);
}

TEST_CASE("bench: validate names the flag", "[bench]") {
  auto message = [](const BenchCase& c) {
    try {
      c.validate();
    } catch (const attn::InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  BenchCase c;
  c.batch = 0;
  CHECK(message(c).find("--batch") == 0);
  c = BenchCase{};
  c.seq = -4;
  CHECK(message(c).find("--seq") == 0);
  c = BenchCase{};
  c.kv_heads = 3;
  CHECK(message(c).find("--kv-heads") == 0);
  c = BenchCase{};
  c.variant = Variant::kMha;
  CHECK(message(c).find("--kv-heads") == 0);
  c = BenchCase{};
  c.variant = Variant::kSwa;
  CHECK(message(c).find("--window") == 0);
  c = small_case(Variant::kMla);
  c.head_dim = 41;
  CHECK(message(c).find("--head-dim") == 0);
  c = small_case(Variant::kGqa);
  c.scale = std::nan("");
  CHECK(message(c).find("--scale") == 0);
  CHECK(message(small_case(Variant::kGqa)).empty());
}

TEST_CASE("bench: JSON round trip and the strict reader", "[bench]") {
  const unsigned seed = 31337;
  CAPTURE(seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 5000.0);
  kern::BenchReport rep;
  rep.device.kind = "gpu";
  rep.device.name = "Test \"GPU\" \xce\xbc";
  rep.device.driver = "1.2";
  rep.device.multiprocessors = 132;
  rep.device.memory_bytes = 150000000000ull;
  rep.device.probe_gbps = u(rng);
  rep.date = "2026-12-02T17:00:00Z";
  rep.commit = "abc123";
  rep.suite = "peers";
  for (const auto& c : kern::suite_cases("peers")) {
    kern::BenchResult r;
    r.c = c;
    r.device = "gpu";
    r.median_us = u(rng);
    r.min_us = r.median_us * 0.9;
    r.max_us = r.median_us * 1.3;
    r.runs = 100;
    r.kv_bytes = c.kv_bytes();
    r.gbps = u(rng);
    r.max_abs_err = u(rng) * 1e-6;
    r.checked = true;
    r.probe_gbps = rep.device.probe_gbps;
    r.step_us = r.median_us * 0.8;
    r.steps = 8 + static_cast<int>(rep.results.size());
    rep.results.push_back(r);
  }
  rep.results[3].error = "out of memory";
  rep.results[5].steps = 0;  // not measured (CPU, older files): no step fields written
  const std::string text = kern::bench_report_json(rep);
  const kern::BenchReport back = kern::parse_bench_report(text, "r.json");
  CHECK(back.device.name == rep.device.name);
  CHECK(back.device.memory_bytes == rep.device.memory_bytes);
  CHECK(back.device.probe_gbps == rep.device.probe_gbps);
  CHECK(back.commit == "abc123");
  CHECK(back.suite == "peers");
  REQUIRE(back.results.size() == rep.results.size());
  for (std::size_t i = 0; i < rep.results.size(); ++i) {
    const auto &a = rep.results[i], &b = back.results[i];
    CAPTURE(i);
    CHECK(b.c.variant == a.c.variant);
    CHECK(b.c.batch == a.c.batch);
    CHECK(b.c.seq == a.c.seq);
    CHECK(b.c.q_heads == a.c.q_heads);
    CHECK(b.c.kv_heads == a.c.kv_heads);
    CHECK(b.c.window == a.c.window);
    CHECK(b.c.label == a.c.label);
    CHECK(b.c.peer_us == a.c.peer_us);
    CHECK(b.median_us == a.median_us);  // doubles are written to round-trip exactly
    CHECK(b.steps == a.steps);
    CHECK(b.step_us == (a.steps > 0 ? a.step_us : 0.0));
    CHECK(b.max_abs_err == a.max_abs_err);
    CHECK(b.kv_bytes == a.kv_bytes);
    CHECK(b.checked == a.checked);
    CHECK(b.error == a.error);
  }
  // Same text again: the writer is a function of the report.
  CHECK(kern::bench_report_json(back) == text);

  auto error_of = [](const std::string& t) {
    try {
      kern::parse_bench_report(t, "r.json");
    } catch (const attn::InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of("not json").find("r.json") == 0);
  CHECK(error_of("[]").find("r.json") == 0);
  CHECK(error_of(R"({"results": []})").find("device") != std::string::npos);
  CHECK(error_of(R"({"device": {"kind": "gpu", "name": "x"}, "results": {}})").find("results") !=
        std::string::npos);
  // Remove one documented field, or give it the wrong type: the message names it.
  for (const char* field : {"median_us", "kv_heads", "checked", "dtype"}) {
    CAPTURE(field);
    nlohmann::json j = nlohmann::json::parse(text);
    j["results"][0].erase(field);
    CHECK(error_of(j.dump()).find(std::string("results[0].") + field) != std::string::npos);
    j = nlohmann::json::parse(text);
    j["results"][0][field] = "seven";
    CHECK(error_of(j.dump()).find(std::string("results[0].") + field) != std::string::npos);
  }
  nlohmann::json j = nlohmann::json::parse(text);
  j["results"][1]["batch"] = 0;
  CHECK(error_of(j.dump()).find("results[1].batch") != std::string::npos);
  j = nlohmann::json::parse(text);
  j["results"][1]["seq"] = 4096.5;
  CHECK(error_of(j.dump()).find("results[1].seq") != std::string::npos);
  CHECK(text.find("\"step_us\"") != std::string::npos);
  for (const char* field : {"step_us", "steps"}) {  // optional, but checked when present
    CAPTURE(field);
    j = nlohmann::json::parse(text);
    j["results"][0][field] = -1;
    CHECK(error_of(j.dump()).find(std::string("results[0].") + field) != std::string::npos);
  }
}

TEST_CASE("bench: the CPU runner checks before timing, for every variant", "[bench]") {
  std::vector<BenchCase> cases;
  for (Variant v : {Variant::kMha, Variant::kMqa, Variant::kGqa, Variant::kSwa, Variant::kMla})
    cases.push_back(small_case(v));
  const kern::BenchReport rep = kern::run_bench(cases, quick());
  CHECK(rep.device.kind == "cpu");
  CHECK(rep.device.probe_gbps > 0);
  CHECK(rep.suite == "single");
  REQUIRE(rep.results.size() == cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const BenchCase& c = cases[i];
    const kern::BenchResult& r = rep.results[i];
    CAPTURE(std::string(attn::variant_name(c.variant)));
    INFO(r.error);
    CHECK(r.error.empty());
    CHECK(r.checked);
    CHECK(r.max_abs_err < 1e-4);
    CHECK(r.runs >= 3);
    CHECK(r.min_us <= r.median_us);
    CHECK(r.median_us <= r.max_us);
    CHECK(r.gbps > 0);
    CHECK(r.probe_gbps == rep.device.probe_gbps);
    CHECK(r.kv_bytes == c.kv_bytes());
    CHECK(r.device == "cpu");
  }
}

TEST_CASE("bench: a case too large for the CPU is refused, the others still run", "[bench]") {
  BenchCase huge;  // GQA 32/8x128 B256 S1M: 2 TiB of fp32 cache
  huge.batch = 256;
  huge.seq = 1 << 20;
  const kern::BenchReport rep = kern::run_bench({huge, small_case(Variant::kGqa)}, quick());
  REQUIRE(rep.results.size() == 2);
  CHECK(rep.results[0].error.find("too large") != std::string::npos);
  CHECK_FALSE(rep.results[0].checked);
  CHECK(rep.results[1].error.empty());
  // An invalid case is recorded, not thrown.
  BenchCase bad = small_case(Variant::kGqa);
  bad.kv_heads = 5;
  const kern::BenchReport rb = kern::run_bench({bad}, quick());
  REQUIRE(rb.results.size() == 1);
  CHECK(rb.results[0].error.find("--kv-heads") != std::string::npos);
}

TEST_CASE("bench: progress is reported and cancel drops the rest", "[bench]") {
  const std::vector<BenchCase> cases = {small_case(Variant::kGqa), small_case(Variant::kMqa),
                                        small_case(Variant::kMla)};
  std::atomic<bool> cancel{false};
  std::vector<int> seen;
  kern::BenchOptions opt = quick();
  opt.cancel = &cancel;
  opt.progress = [&](int i, int n, const BenchCase&) {
    CHECK(n == 3);
    seen.push_back(i);
    if (i == 1) cancel = true;  // cancelled while case 1 runs: it is dropped
  };
  const kern::BenchReport rep = kern::run_bench(cases, opt);
  CHECK(seen == std::vector<int>{0, 1});
  CHECK(rep.results.size() == 1);

  std::atomic<bool> already{true};
  opt.cancel = &already;
  opt.progress = nullptr;
  CHECK(kern::run_bench(cases, opt).results.empty());
}

TEST_CASE("bench: --device gpu without a GPU throws DeviceError", "[bench]") {
  if (kern::query_device().available) {
    WARN("a GPU is present: the no-GPU path is not testable here");
    return;
  }
  kern::BenchOptions opt = quick();
  opt.device = kern::BenchDevice::kGpu;
  CHECK_THROWS_AS(kern::run_bench({small_case(Variant::kGqa)}, opt), attn::DeviceError);
}

TEST_CASE("bench: every recorded results file in assets/results parses strictly", "[bench]") {
  int files = 0;
  for (const auto& f : attn::embedded_files()) {
    if (f.path.rfind("results/", 0) != 0) continue;
    ++files;
    CAPTURE(f.path);
    kern::BenchReport rep;
    REQUIRE_NOTHROW(rep = kern::parse_bench_report(f.text, f.path));
    CHECK_FALSE(rep.device.name.empty());
    CHECK_FALSE(rep.date.empty());
    CHECK_FALSE(rep.results.empty());
    for (const auto& r : rep.results) {
      CAPTURE(r.c.label);
      // (checked may be false in a recorded file, with the file saying how it was checked.)
      if (!r.error.empty()) continue;
      CHECK(r.median_us > 0);
      CHECK(r.min_us <= r.median_us);
      CHECK(r.median_us <= r.max_us);
    }
  }
  if (files == 0) WARN("no results files embedded in this build");
}

TEST_CASE("bench: the amd-mla suite is AMD's 36 cases, mxfp4 allowed for MLA only", "[bench]") {
  const auto cases = kern::suite_cases("amd-mla");
  REQUIRE(cases.size() == 36);
  std::set<std::tuple<std::int64_t, std::int64_t, int>> seen;
  for (const kern::BenchCase& c : cases) {
    CAPTURE(c.label);
    CHECK(c.variant == attn::Variant::kMla);
    CHECK(c.q_heads == 16);
    CHECK(c.latent_dim == 512);
    CHECK(c.rope_dim == 64);
    CHECK_NOTHROW(c.validate());
    seen.insert({c.batch, c.seq, static_cast<int>(c.dtype)});
  }
  CHECK(seen.size() == 36);
  for (std::int64_t bs : {4, 8, 16, 32, 64, 128})
    for (std::int64_t kv : {1024, 8192})
      for (attn::DType dt : {attn::DType::kBf16, attn::DType::kFp8, attn::DType::kMxfp4})
        CHECK(seen.count({bs, kv, static_cast<int>(dt)}) == 1);
  // mxfp4 reads 306 bytes a token (288 packed + 18 scales): bs128 kv8192 is 321 MB.
  const kern::BenchCase& big = cases.back();
  REQUIRE(big.dtype == attn::DType::kMxfp4);
  CHECK(big.kv_bytes() == 128ull * 8192ull * 306ull);
  kern::BenchCase g;
  g.dtype = attn::DType::kMxfp4;
  CHECK_THROWS_AS(g.validate(), attn::InputError);  // grouped caches have no mxfp4 storage
}

TEST_CASE(
    "bench: the worklog suite names every selectable version of both families on their "
    "shapes",
    "[bench]") {
  const auto cases = kern::suite_cases("worklog");
  REQUIRE(cases.size() == 6 * 3 + 5 + 4 + 4);
  int grouped = 0, mla = 0;
  for (const kern::BenchCase& c : cases) {
    CAPTURE(c.label);
    CHECK_NOTHROW(c.validate());
    CHECK(c.kernel_version >= 1);
    CHECK(c.kernel_version <= (c.variant == attn::Variant::kMla ? 7 : 6));
    const bool is_mla = c.variant == attn::Variant::kMla;
    if (is_mla) CHECK(c.kernel_version != 2);  // MLA v2 is v1 with its options as defaults
    // "worklog: <shape> | v<N> | <what vN changed>"
    CHECK_THAT(c.label, Catch::StartsWith("worklog: "));
    CHECK_THAT(c.label, Catch::Contains(" | v" + std::to_string(c.kernel_version) + " | "));
    (is_mla ? mla : grouped)++;
  }
  CHECK(grouped == 18);
  CHECK(mla == 13);
  // fp8 MLA gets v7, the 16-bit MLA rows never do.
  for (const kern::BenchCase& c : cases)
    if (c.kernel_version == 7) CHECK(c.dtype == attn::DType::kFp8);
}
