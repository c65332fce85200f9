// Screenshot-mode measurement of how smooth the explorer is (tools/frame_check.sh runs it):
//   ATTNLAB_FRAME_STATS=1          print frame statistics (app/frame_stats.h) to stderr at exit
//   ATTNLAB_FRAME_PACE=1           pace frames to 60 Hz as the interactive explorer does (default:
//                                  back to back, the worst case for the CPU)
//   ATTNLAB_FRAME_BENCH=NAME       after the first frame, start a CPU benchmark from the latency
//                                  panel, as its Run button does: sweep, peers, amd-mixed-mla, or
//                                  model (the model's layer); frames go on while it runs
//   ATTNLAB_FRAME_BENCH_THREADS=N  its CPU threads (default: the panel's default)
// Read only in screenshot mode; the interactive explorer ignores them.
#pragma once
#include <string>

#include "app/app_state.h"

namespace app {

struct MeasureOptions {
  bool pace = false;
  std::string bench;     // empty: no benchmark
  int threads = 0;       // 0: the latency panel's default
  int threads_used = 0;  // set by start_measured_bench
};

// Reads the variables above. Returns false with `error` set for a value it cannot use.
bool measure_options_from_env(MeasureOptions* out, std::string* error);
// Starts `m.bench` on the CPU through the latency panel's job. False (the reason in
// app.latency.job_error) when it could not start.
bool start_measured_bench(App& app, MeasureOptions& m);

}  // namespace app
