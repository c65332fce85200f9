#include "app/job_runner.h"

#include <exception>
#include <utility>

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "attention/config.h"

namespace app {

const char* job_state_name(JobState s) {
  switch (s) {
    case JobState::kIdle:
      return "idle";
    case JobState::kRunning:
      return "running";
    case JobState::kDone:
      return "done";
    case JobState::kFailed:
      return "failed";
    case JobState::kCancelled:
      return "cancelled";
  }
  return "?";
}

double JobProgress::fraction() const {
  if (total <= 0) return state == JobState::kIdle ? 0.0 : 1.0;
  if (state != JobState::kRunning) return 1.0;
  const double f = (index + 0.5) / total;
  return f < 0 ? 0 : (f > 1 ? 1 : f);
}

std::string case_label(const kern::BenchCase& c) {
  if (!c.label.empty()) return c.label;
  std::string s = std::string(attn::variant_name(c.variant)) + " B" + std::to_string(c.batch) +
                  " S" + std::to_string(c.seq) + " Hq" + std::to_string(c.q_heads);
  if (c.variant == attn::Variant::kMla) {
    s += " Dl" + std::to_string(c.latent_dim) + " Dr" + std::to_string(c.rope_dim);
  } else {
    s += " Hkv" + std::to_string(c.kv_heads) + " D" + std::to_string(c.head_dim);
    if (c.window > 0) s += " W" + std::to_string(c.window);
  }
  return s;
}

JobRunner::~JobRunner() {
  cancel_ = true;
  if (worker_.joinable()) worker_.join();
}

void JobRunner::join_if_finished() {
  // Joining a thread that has already returned does not wait.
  if (finished_ && worker_.joinable()) worker_.join();
}

bool JobRunner::start(std::vector<kern::BenchCase> cases, kern::BenchOptions opt,
                      std::string title) {
  const int total = static_cast<int>(cases.size());
  const std::string first = cases.empty() ? std::string() : case_label(cases.front());
  const kern::BenchDevice device = opt.device;
  Work work = [this, cases = std::move(cases), opt = std::move(opt)](JobOutcome& out) mutable {
    // An invalid case fails the whole job before anything runs, with the case named.
    for (std::size_t i = 0; i < cases.size(); ++i) {
      try {
        cases[i].validate();
      } catch (const std::exception& e) {
        throw std::runtime_error("case " + std::to_string(i + 1) + " (" + case_label(cases[i]) +
                                 "): " + e.what());
      }
    }
    opt.cancel = &cancel_;
    opt.progress = [this](int i, int n, const kern::BenchCase& c) {
      const std::string label = case_label(c);
      std::lock_guard<std::mutex> lock(mu_);
      progress_.index = i;
      progress_.total = n;
      progress_.case_label = label;
    };
    out.report = kern::run_bench(cases, opt);
  };
  return start_work(std::move(work), device, std::move(title), total, first);
}

bool JobRunner::start_side_by_side(kern::BenchCase c, SideBySideOptions opt, std::string title) {
  const std::string label = case_label(c);
  Work work = [this, c, opt](JobOutcome& out) mutable {
    opt.cancel = &cancel_;
    out.side_by_side = std::make_shared<SideBySide>(run_side_by_side(c, opt));
  };
  return start_work(std::move(work), kern::BenchDevice::kGpu, std::move(title), 1, label);
}

bool JobRunner::start_work(Work work, kern::BenchDevice device, std::string title, int total,
                           std::string first_label) {
  if (!finished_) return false;
  join_if_finished();
  cancel_ = false;
  finished_ = false;
  started_ = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    progress_ = JobProgress{};
    progress_.state = JobState::kRunning;
    progress_.title = std::move(title);
    progress_.total = total;
    progress_.case_label = std::move(first_label);
    outcome_.reset();
  }
  worker_ = std::thread(&JobRunner::run, this, std::move(work), device);
  return true;
}

namespace {

// The benchmark yields to the UI. On Linux the worker (and the threads it starts, which inherit
// its policy and nice value) runs below every normal thread:
// - CPU jobs: SCHED_IDLE and nice 19 (the nice value alone where the policy is refused). The UI
// thread and Mesa's
//   llvmpipe rasteriser threads then always run first, so a benchmark that keeps every core
//   busy cannot stretch a frame; the CPU timings lose what the UI uses (about one core while
//   frames are drawn back to back on a software renderer), which the panel says.
// - GPU jobs: nice 10 only. The host thread times device events around its launches: an idle
//   policy could leave it off the CPU between a launch and its event, and the GPU would be
//   timed idle.
void lower_this_thread_priority(kern::BenchDevice device) {
#ifdef __linux__
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  if (device == kern::BenchDevice::kCpu) {
    sched_param p{};
    p.sched_priority = 0;
    (void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &p);
    (void)setpriority(PRIO_PROCESS, tid, 19);
  } else {
    (void)setpriority(PRIO_PROCESS, tid, 10);
  }
#else
  (void)device;
#endif
}

}  // namespace

void JobRunner::run(Work work, kern::BenchDevice device) {
  lower_this_thread_priority(device);
  JobOutcome out;
  out.state = JobState::kDone;
  try {
    work(out);
    if (cancel_) out.state = JobState::kCancelled;
  } catch (const std::exception& e) {
    out.state = JobState::kFailed;
    out.error = e.what();
  } catch (...) {
    out.state = JobState::kFailed;
    out.error = "unknown error in the benchmark thread";
  }
  out.elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  {
    std::lock_guard<std::mutex> lock(mu_);
    out.title = progress_.title;
    progress_.state = out.state;
    progress_.elapsed_s = out.elapsed_s;
    outcome_ = std::move(out);
  }
  finished_ = true;
}

void JobRunner::cancel() {
  if (finished_) return;
  cancel_ = true;
  std::lock_guard<std::mutex> lock(mu_);
  progress_.cancel_requested = true;
}

bool JobRunner::running() const { return !finished_; }

JobProgress JobRunner::progress() const {
  std::lock_guard<std::mutex> lock(mu_);
  JobProgress p = progress_;
  if (p.state == JobState::kRunning)
    p.elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  return p;
}

std::optional<JobOutcome> JobRunner::take_outcome() {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<JobOutcome> o = std::move(outcome_);
  outcome_.reset();
  return o;
}

}  // namespace app
