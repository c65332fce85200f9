// The explorer's background job runner (app/job_runner.h): runs the CPU benchmark on its own
// thread to completion, stops when cancelled, and reports an invalid case as an error.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "app/job_runner.h"
#include "kernels/gpu.h"

namespace {

kern::BenchCase tiny_case(int seq) {
  kern::BenchCase c;
  c.variant = attn::Variant::kGqa;
  c.batch = 1;
  c.seq = seq;
  c.q_heads = 4;
  c.kv_heads = 2;
  c.head_dim = 32;
  return c;
}

kern::BenchOptions quick_options() {
  kern::BenchOptions o;
  o.device = kern::BenchDevice::kCpu;
  o.threads = 1;
  o.min_runs = 2;
  o.min_seconds = 0.0;
  return o;
}

// Polls like the UI does (never joins); gives up after `limit`. CPU jobs run at idle priority
// (app/job_runner.cpp), so while other tests keep both cores busy (the screenshot test's
// software rasteriser) a job may wait minutes for a core: the limits are generous.
app::JobOutcome wait_for(app::JobRunner& r, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (auto o = r.take_outcome()) return *o;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  FAIL("the job did not finish within the limit");
  return {};
}

}  // namespace

TEST_CASE("job runner: a tiny CPU benchmark runs to completion", "[job]") {
  app::JobRunner r;
  CHECK_FALSE(r.running());
  CHECK_FALSE(r.take_outcome().has_value());
  std::vector<kern::BenchCase> cases = {tiny_case(54), tiny_case(97)};
  REQUIRE(r.start(cases, quick_options(), "tiny"));
  // A second job is refused while one runs (or the first may already be done).
  const bool second = r.start(cases, quick_options(), "again");
  const app::JobOutcome o = wait_for(r, std::chrono::seconds(400));
  CHECK(o.state == app::JobState::kDone);
  CHECK(o.error.empty());
  REQUIRE(o.report.results.size() == 2);
  for (const auto& res : o.report.results) {
    CAPTURE(res.c.seq, res.error);
    CHECK(res.error.empty());
    CHECK(res.checked);
    CHECK(res.median_us > 0);
    CHECK(res.max_abs_err < 1e-3);
  }
  CHECK(o.report.results[0].c.seq == 54);
  CHECK(o.report.results[1].c.seq == 97);
  CHECK_FALSE(r.take_outcome().has_value());  // handed over once
  if (second) {                               // the second job ran after the first
    const app::JobOutcome o2 = wait_for(r, std::chrono::seconds(400));
    CHECK(o2.state == app::JobState::kDone);
  }
  CHECK(r.progress().fraction() == 1.0);
}

TEST_CASE("job runner: cancel stops a long job and the runner is usable again", "[job]") {
  app::JobRunner r;
  std::vector<kern::BenchCase> cases;
  for (int i = 0; i < 200; ++i) cases.push_back(tiny_case(4096));
  kern::BenchOptions opt = quick_options();
  opt.min_seconds = 0.05;  // 200 cases take well over 10 s unless cancelled
  REQUIRE(r.start(cases, opt, "long"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const app::JobProgress p = r.progress();
  CHECK(p.state == app::JobState::kRunning);
  CHECK(p.total == 200);
  const auto t0 = std::chrono::steady_clock::now();
  r.cancel();
  const app::JobOutcome o = wait_for(r, std::chrono::seconds(400));
  const double stop_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CAPTURE(stop_s);
  CHECK(o.state == app::JobState::kCancelled);
  CHECK(o.report.results.size() < cases.size());  // stopped early, not after all 200
  CHECK_FALSE(r.running());
  REQUIRE(r.start({tiny_case(8)}, quick_options(), "after cancel"));
  CHECK(wait_for(r, std::chrono::seconds(400)).state == app::JobState::kDone);
}

TEST_CASE("job runner: an invalid case fails the job with an error naming it", "[job]") {
  app::JobRunner r;
  kern::BenchCase bad = tiny_case(16);
  bad.kv_heads = 3;  // 4 query heads cannot be split into 3 groups
  bad.label = "bad groups";
  REQUIRE(r.start({tiny_case(16), bad}, quick_options(), "invalid"));
  const app::JobOutcome o = wait_for(r, std::chrono::seconds(400));
  CHECK(o.state == app::JobState::kFailed);
  CHECK_THAT(o.error, Catch::Contains("bad groups"));
  CHECK_FALSE(r.running());
  CHECK(r.progress().state == app::JobState::kFailed);
}

TEST_CASE("job runner: a GPU job where no GPU can be used fails with the reason", "[job]") {
  const kern::DeviceInfo d = kern::query_device();
  if (d.available) {
    WARN("a GPU is available here: the failure path is not exercised");
    return;
  }
  app::JobRunner r;
  kern::BenchOptions opt = quick_options();
  opt.device = kern::BenchDevice::kGpu;
  REQUIRE(r.start({tiny_case(16)}, opt, "gpu"));
  const app::JobOutcome o = wait_for(r, std::chrono::seconds(400));
  CAPTURE(o.error, d.reason);
  CHECK(o.state == app::JobState::kFailed);
  CHECK_FALSE(o.error.empty());
  // The runner goes on: a CPU job after the failure completes.
  REQUIRE(r.start({tiny_case(8)}, quick_options(), "cpu after gpu"));
  CHECK(wait_for(r, std::chrono::seconds(400)).state == app::JobState::kDone);
}
