// Results files for the latency panel: the recorded ones embedded from assets/results/, import
// of a user's file, export as JSON or CSV (written atomically with attn::write_file_atomic:
// a temporary name, then rename). No ImGui.
#pragma once
#include <string>
#include <vector>

#include "app/latency_state.h"
#include "kernels/bench.h"

namespace app {

// Adds every embedded "results/*.json" as a recorded set (once); files that do not parse are
// listed in st.recorded_errors with the reason.
void load_recorded_results(LatencyState& st);
// Reads and parses a results file (kern::parse_bench_report). Throws InputError naming the
// path (unreadable, too large, malformed).
kern::BenchReport read_results_file(const std::string& path);
// One line per result, a header first; the columns of `bench --json` plus the provenance.
std::string results_csv(const kern::BenchReport& r);
// "NVIDIA H200 · driver 570.1 · CUDA 13.0 · 2026-12-02T17:00:00Z · commit abc123"
std::string provenance_line(const kern::BenchReport& r);

}  // namespace app
