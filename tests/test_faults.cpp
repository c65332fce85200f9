// Faults other than bad input: a write that fails midway (file size limit), the
// process killed while writing, a benchmark cancelled mid-case, no GPU, a corrupt results file.
// Each states what must hold afterwards: the existing output intact, no stray files, a prompt
// return, one error line.
#include <catch2/catch.hpp>

#include <atomic>
#include <functional>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/error.h"
#include "attention/npy.h"
#include "fault_util.h"
#include "kernels/bench.h"
#include "kernels/gpu.h"

namespace {

namespace fs = std::filesystem;

attn::TensorF random_tensor(std::vector<std::int64_t> shape, std::mt19937& rng) {
  attn::TensorF t(std::move(shape));
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (float& x : t.data) x = u(rng);
  return t;
}

// Inputs of a GQA run whose output is `out_floats` floats big: q [B, Hq, D], k/v [B, 1, 2, D].
void write_big_run_inputs(const fault::TempDir& d, unsigned seed, std::int64_t b, std::int64_t hq,
                          std::int64_t dim) {
  std::mt19937 rng(seed);
  fault::write_bytes(d / "q.npy", attn::npy_bytes(random_tensor({b, hq, dim}, rng)));
  fault::write_bytes(d / "k.npy", attn::npy_bytes(random_tensor({b, 3, 2, dim}, rng)));
  fault::write_bytes(d / "v.npy", attn::npy_bytes(random_tensor({b, 3, 2, dim}, rng)));
}

std::vector<std::string> run_args(const fault::TempDir& d, const std::string& out) {
  return fault::attnlab_argv({"run", "--variant", "gqa", "--q", d / "q.npy", "--k", d / "k.npy",
                              "--v", d / "v.npy", "--out", out});
}

}  // namespace

TEST_CASE("faults: a write that fails midway leaves the existing output and no temporary",
          "[faults][write]") {
  const unsigned seed = 7001;
  INFO("seed " << seed);
  fault::TempDir d;
  write_big_run_inputs(d, seed, 4, 32, 128);  // output 64 KiB
  const std::string original = "EXISTING OUTPUT\n";
  fault::write_bytes(d / "out.npy", original);
  const auto before = fault::dir_entries(d.path);
  // Files may grow to 8 KiB only: the output's write fails with EFBIG part way through.
  const fault::ProcResult r = fault::run_process(run_args(d, d / "out.npy"), 30, [] {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim {
      8192, 8192
    };
    ::setrlimit(RLIMIT_FSIZE, &lim);
  });
  INFO(r.describe());
  CHECK_FALSE(r.signaled);
  CHECK(r.exit_code == 2);
  REQUIRE(r.err_lines().size() == 1);
  CHECK(r.err_lines()[0].rfind("attnlab: error: ", 0) == 0);
  CHECK(r.err_lines()[0].find("out.npy") != std::string::npos);
  CHECK(fault::read_bytes(d / "out.npy") == original);
  CHECK(fault::dir_entries(d.path) == before);
}

TEST_CASE("faults: killed while writing, the output is the old file or the whole new one",
          "[faults][write][kill]") {
  const unsigned seed = 7002;
  INFO("seed " << seed);
  fault::TempDir d;
  // A 16 MiB output and little arithmetic: most of the run is reading and writing files.
  const std::int64_t b = 64, hq = 64, dim = 1024;
  write_big_run_inputs(d, seed, b, hq, dim);
  // The complete answer, and how long a whole run takes.
  const fault::ProcResult full = fault::run_process(run_args(d, d / "want.npy"), 120);
  INFO(full.describe());
  REQUIRE(full.exit_code == 0);
  const std::string want = fault::read_bytes(d / "want.npy");
  const std::string original = "EXISTING OUTPUT\n";
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> when(0.0, full.seconds * 1.2);
  int old_kept = 0, new_whole = 0;
  for (int i = 0; i < 24; ++i) {
    fault::write_bytes(d / "out.npy", original);
    const double delay = i < 4 ? full.seconds * (0.6 + 0.1 * i) : when(rng);
    // Start, then SIGKILL after `delay` seconds (run_process kills on its time-out).
    const fault::ProcResult r = fault::run_process(run_args(d, d / "out.npy"), delay);
    const std::string now = fault::read_bytes(d / "out.npy");
    INFO("kill " << i << " after " << delay << " s: " << r.describe());
    const bool is_old = now == original;
    const bool is_new = now == want;
    CHECK((is_old || is_new));
    old_kept += is_old;
    new_whole += is_new;
    // A killed writer may leave its temporary behind, but never under the output's name.
    for (const std::string& name : fault::dir_entries(d.path))
      if (name.rfind("out.npy.", 0) == 0) fs::remove(d.path / name);
  }
  INFO("old kept " << old_kept << ", new whole " << new_whole);
  CHECK(old_kept + new_whole == 24);
}

TEST_CASE("faults: a benchmark cancelled mid-case returns promptly and drops that case",
          "[faults][bench][cancel]") {
  kern::BenchCase c;
  c.variant = attn::Variant::kGqa;
  c.batch = 2;
  c.seq = 2048;
  c.q_heads = 8;
  c.kv_heads = 2;
  c.head_dim = 64;
  kern::BenchCase small = c;
  small.seq = 64;
  std::atomic<bool> cancel{false};
  kern::BenchOptions opt;
  opt.device = kern::BenchDevice::kCpu;
  opt.threads = 1;
  opt.min_runs = 1000000;  // would run for a long time
  opt.min_seconds = 120;
  opt.cancel = &cancel;
  std::vector<int> started;
  std::thread canceller;
  std::atomic<double> cancelled_at{0};
  const auto t0 = std::chrono::steady_clock::now();
  auto since = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  // Cancel 300 ms into the first case.
  opt.progress = [&](int i, int, const kern::BenchCase&) {
    started.push_back(i);
    if (i == 0)
      canceller = std::thread([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        cancelled_at = since();
        cancel = true;
      });
  };
  kern::BenchReport rep;
  REQUIRE_NOTHROW(rep = kern::run_bench({c, small, small}, opt));
  const double returned_at = since();
  if (canceller.joinable()) canceller.join();
  INFO("cancelled at " << cancelled_at << " s, returned at " << returned_at
                       << " s, cases started: " << started.size());
  REQUIRE(started.size() >= 1);
  CHECK(cancelled_at > 0);
  CHECK(returned_at - cancelled_at < 3);
  CHECK(rep.results.empty());  // the cancelled case is dropped, the later ones never start
  CHECK(started.size() == 1);
}

TEST_CASE("faults: cancelling between cases keeps the finished ones", "[faults][bench][cancel]") {
  kern::BenchCase c;
  c.variant = attn::Variant::kGqa;
  c.batch = 1;
  c.seq = 64;
  c.q_heads = 4;
  c.kv_heads = 2;
  c.head_dim = 16;
  std::atomic<bool> cancel{false};
  kern::BenchOptions opt;
  opt.threads = 1;
  opt.min_runs = 3;
  opt.min_seconds = 0.01;
  opt.cancel = &cancel;
  opt.progress = [&](int i, int, const kern::BenchCase&) {
    if (i == 2) cancel = true;  // case 2 starts cancelled
  };
  const kern::BenchReport rep = kern::run_bench({c, c, c, c}, opt);
  REQUIRE(rep.results.size() == 2);
  for (const kern::BenchResult& r : rep.results) {
    CHECK(r.error.empty());
    CHECK(r.checked);
    CHECK(r.runs >= 3);
  }
}

TEST_CASE("faults: the GPU path without a GPU throws DeviceError with a reason",
          "[faults][gpu-absent]") {
  const kern::DeviceInfo info = kern::query_device();
  if (info.available) {
    WARN("skipped: this machine has a GPU (" << info.name << ")");
    return;
  }
  CHECK_FALSE(info.reason.empty());
  kern::BenchCase c;
  c.batch = 1;
  c.seq = 16;
  c.q_heads = 2;
  c.kv_heads = 1;
  c.head_dim = 8;
  kern::BenchOptions opt;
  opt.device = kern::BenchDevice::kGpu;
  CHECK_THROWS_AS(kern::run_bench({c}, opt), attn::DeviceError);
}

TEST_CASE("faults: the ragged MLA GPU call checks its sequences before it needs a GPU",
          "[faults][gpu-absent]") {
  if (!kern::gpu_compiled()) {
    WARN("skipped: this build has no GPU support (every call reports that)");
    return;
  }
  attn::MlaRaggedShape s;
  s.heads = 16;
  std::vector<float> q(4 * 16 * 576), kv(8 * 576), out(4 * 16 * 512);
  const auto run = [&](std::vector<attn::MlaSequence> seqs, int latent = 512) {
    s.latent_dim = latent;
    kern::gpu_decode_mla_ragged(s, q.data(), 4, kv.data(), 8, seqs, out.data(),
                                attn::DType::kMxfp4);
  };
  // {q_start, q_len, kv_start, kv_len}: each breaks one rule, named in the message.
  CHECK_THROWS_WITH(run({{0, 4, 0, 3}}), Catch::Contains("sequence 0") && Catch::Contains("kv"));
  CHECK_THROWS_WITH(run({{0, 1, 0, 8}, {2, 3, 0, 8}}), Catch::Contains("sequence 1"));
  CHECK_THROWS_WITH(run({{0, 65, 0, 70}}), Catch::Contains("q_len 0..64"));
  CHECK_THROWS_AS(run({{0, 1, 4, 5}}), attn::InputError);
  CHECK_THROWS_AS(run({{0, 1, 0, 8}}, 128), attn::DeviceError);  // Dl 512 only
  if (!kern::query_device().available) CHECK_THROWS_AS(run({{0, 4, 0, 8}}), attn::DeviceError);
  // The padded call routes mxfp4 there too, with its lens checked first.
  attn::MlaDecodeShape p;
  p.batch = 2;
  p.seq = 4;
  p.heads = 16;
  const std::int64_t lens[2] = {4, 5};
  CHECK_THROWS_WITH(
      kern::gpu_decode_mla(p, q.data(), kv.data(), lens, out.data(), attn::DType::kMxfp4),
      Catch::Contains("lens[1] = 5"));
}

TEST_CASE("faults: a corrupt results file is refused with its name and the field",
          "[faults][results]") {
  kern::BenchReport rep;
  rep.device.kind = "cpu";
  rep.device.name = "test";
  rep.date = "2026-12-02T00:00:00Z";
  rep.commit = "unknown";
  rep.suite = "single";
  kern::BenchResult r;
  r.c.batch = 2;
  r.c.seq = 54;
  r.device = "cpu";
  r.median_us = 3;
  r.min_us = 2;
  r.max_us = 4;
  r.runs = 10;
  r.checked = true;
  rep.results.push_back(r);
  const std::string good = kern::bench_report_json(rep);
  REQUIRE(kern::parse_bench_report(good, "good.json").results.size() == 1);
  struct Bad {
    std::string text, mention;
  };
  const nlohmann::json j = nlohmann::json::parse(good);
  auto edit = [&](const std::function<void(nlohmann::json&)>& f) {
    nlohmann::json k = j;
    f(k);
    return k.dump(1);
  };
  const std::vector<Bad> bad = {
      {good.substr(0, good.size() / 2), "bad.json"},
      {"", "bad.json"},
      {"[]", "bad.json"},
      {edit([](nlohmann::json& k) { k.erase("results"); }), "results"},
      {edit([](nlohmann::json& k) { k["results"] = 7; }), "results"},
      {edit([](nlohmann::json& k) { k["results"][0] = 7; }), "results"},
      {edit([](nlohmann::json& k) { k["results"][0]["batch"] = "2"; }), "batch"},
      {edit([](nlohmann::json& k) { k["results"][0]["seq"] = -54; }), "seq"},
      {edit([](nlohmann::json& k) { k["results"][0]["median_us"] = "fast"; }), "median_us"},
      {edit([](nlohmann::json& k) { k["results"][0]["variant"] = "xqa"; }), "variant"},
      {edit([](nlohmann::json& k) { k["device"] = nullptr; }), "device"},
  };
  for (const Bad& b : bad) {
    INFO("text: " << b.text.substr(0, 200));
    try {
      (void)kern::parse_bench_report(b.text, "bad.json");
      FAIL("accepted a corrupt results file");
    } catch (const attn::InputError& e) {
      const std::string what = e.what();
      INFO("message: " << what);
      CHECK(what.find("bad.json") != std::string::npos);
      CHECK(what.find(b.mention) != std::string::npos);
    }
  }
}
