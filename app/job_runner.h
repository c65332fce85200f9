// The explorer's background job: one std::thread that runs kern::run_bench (the same code as
// `attnlab bench`) or a side-by-side run (the same code as `attnlab compare`), so nothing slow
// ever runs on the UI thread.
//
// Contract: the UI thread calls start(), cancel(), progress() and take_outcome(), none of which
// block on the benchmark (they take a mutex that the worker holds only to copy a few fields).
// A finished worker thread is joined by the next start() or by the destructor; the destructor
// (program exit) is the only place that waits for a running job, after asking it to cancel.
#pragma once
#include <atomic>
#include <chrono>
#include <mutex>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/side_by_side.h"
#include "kernels/bench.h"

namespace app {

enum class JobState { kIdle, kRunning, kDone, kFailed, kCancelled };
const char* job_state_name(JobState s);  // "idle", "running", "done", "failed", "cancelled"

struct JobProgress {
  JobState state = JobState::kIdle;
  std::string title;       // what was started ("sweep on cpu")
  int index = 0;           // case being run, 0-based
  int total = 0;           // cases in the job
  std::string case_label;  // label (or shape) of the case being run
  double elapsed_s = 0;    // since start
  bool cancel_requested = false;
  // 0..1 for a progress bar: finished cases plus half of the running one.
  double fraction() const;
};

struct JobOutcome {
  JobState state = JobState::kDone;  // kDone, kFailed or kCancelled
  std::string title;
  std::string error;         // kFailed: why (device unusable, invalid case, ...)
  kern::BenchReport report;  // kDone; kCancelled: the cases finished before the cancel
  std::shared_ptr<SideBySide> side_by_side;  // a side-by-side job's result (kDone)
  double elapsed_s = 0;
};

// A short label for a case without one: "gqa B1 S4096 Hq32 Hkv8 D128".
std::string case_label(const kern::BenchCase& c);

class JobRunner {
 public:
  JobRunner() = default;
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;
  ~JobRunner();  // cancels a running job and joins its thread (program exit only)

  // Starts the cases on the worker thread. Returns false (and does nothing) while a job runs.
  // opt.cancel and opt.progress are set by the runner; the caller's values are ignored.
  bool start(std::vector<kern::BenchCase> cases, kern::BenchOptions opt, std::string title);
  // Runs one case side by side (app/cli/side_by_side.h); the outcome's side_by_side holds it.
  bool start_side_by_side(kern::BenchCase c, SideBySideOptions opt, std::string title);
  // Asks the running job to stop after the current repetition; no effect when idle.
  void cancel();
  bool running() const;
  JobProgress progress() const;
  // The outcome of the last finished job, once: later calls return nothing until the next job
  // finishes.
  std::optional<JobOutcome> take_outcome();

 private:
  using Work = std::function<void(JobOutcome&)>;
  bool start_work(Work work, kern::BenchDevice device, std::string title, int total,
                  std::string first_label);
  void run(Work work, kern::BenchDevice device);
  void join_if_finished();

  mutable std::mutex mu_;
  std::thread worker_;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> finished_{true};   // the worker has returned (or none was started)
  JobProgress progress_;               // guarded by mu_
  std::optional<JobOutcome> outcome_;  // guarded by mu_
  std::chrono::steady_clock::time_point started_;
};

}  // namespace app
