// The CPU side of the benchmark harness (internal to kernels/; bench.h is the public API).
#pragma once
#include <optional>

#include "kernels/bench.h"

namespace kern {

// Threads used: `requested` when > 0, else every hardware thread.
int cpu_bench_threads(int requested);
// The "device" object for a CPU run (model name, kernel, compiler, memory).
BenchEnvironment cpu_environment(int threads);
// The read probe's buffer: `requested` when > 0, else ATTNLAB_CPU_PROBE_MIB (1 MiB up to a
// quarter of memory, at most 4 GiB), else automatic: twice the last-level cache, 256 MiB to 1 GiB.
std::size_t cpu_probe_bytes(std::size_t requested);
// Streaming-read bandwidth of this machine now, over cpu_probe_bytes(bytes).
double cpu_probe_for_bench(int threads, std::size_t bytes);
// One case of the threaded float reference: checked against the float64 truth on the same
// inputs, warmed up, timed over rotated input copies. Case errors go into BenchResult::error
// (a case too large for this machine's memory is refused before allocating). nullopt: the
// cancel flag was raised; the case is dropped.
std::optional<BenchResult> cpu_bench_case(const BenchCase& c, const BenchOptions& opt, int threads);

}  // namespace kern
