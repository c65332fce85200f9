#include "app/frame_measure.h"

#include <cstdlib>

namespace app {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

bool measure_options_from_env(MeasureOptions* out, std::string* error) {
  MeasureOptions m;
  m.pace = env("ATTNLAB_FRAME_PACE") == "1";
  m.bench = env("ATTNLAB_FRAME_BENCH");
  const std::string threads = env("ATTNLAB_FRAME_BENCH_THREADS");
  if (!m.bench.empty() && !latency_workload(m.bench)) {
    *error = "ATTNLAB_FRAME_BENCH: expected one of model, sweep, peers, amd-mixed-mla, amd-mla, found '" +
             m.bench + "'";
    return false;
  }
  if (!threads.empty()) {
    char* end = nullptr;
    const long n = std::strtol(threads.c_str(), &end, 10);
    if (end == threads.c_str() || *end != '\0' || n < 1 || n > 1024) {
      *error =
          "ATTNLAB_FRAME_BENCH_THREADS: expected an integer in 1..1024, found '" + threads + "'";
      return false;
    }
    m.threads = static_cast<int>(n);
  }
  *out = m;
  return true;
}

bool start_measured_bench(App& app, MeasureOptions& m) {
  LatencyState& st = app.latency;
  st.workload = latency_workload(m.bench).value_or(Workload::kModelLayer);
  st.device = BenchTarget::kCpu;
  if (m.threads > 0) st.cpu_threads = m.threads;
  m.threads_used = latency_cpu_threads(st);
  return start_latency_job(app);
}

}  // namespace app
