// One case through both paths on the same inputs: seeded random q, K, V go through the CPU
// reference in float64 (the truth), the CPU threaded float32 path and the GPU kernel in the
// chosen storage dtype; each output is compared element by element with the truth, and both
// paths are timed by the benchmark harness (kern::run_bench). Where no GPU is present, the GPU
// side is the newest recording of the same shape in assets/results/, labelled so, or nothing
// with the reason. `attnlab compare` and the latency panel's "Run side by side" both call this.
// No ImGui; runs on whatever thread calls it (the explorer's job thread).
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "attention/dtype.h"
#include "kernels/bench.h"

namespace app {

// Tolerance of a storage dtype against the float64 reference: |gpu - ref| <= atol + rtol |ref|
// (AMD's MLA-decode problem's bounds: bf16 and fp16 (2e-2, 8e-3), fp8 (5e-2, 1e-2), mxfp4
// (1e-1, 5e-2); fp32 1e-3 absolute, the CPU benchmark's check).
struct Tolerance {
  double rtol = 0, atol = 0;
};
Tolerance tolerance_of(attn::DType dt);

struct SideResult {
  bool present = false;   // false: nothing to show; `reason` says why
  std::string dtype;      // storage dtype of the path ("fp32" for the CPU)
  double median_us = 0;   // lone launch (GPU) / one call (CPU), median of many
  double step_us = 0;     // GPU: one step of many in one graph; 0 otherwise
  double gbps = 0;        // bytes moved / median
  double probe_gbps = 0;  // streaming-read bandwidth measured in the same run
  // Against the float64 reference on the same inputs (not for a recording: its own check).
  double max_abs_err = 0;
  std::int64_t worst_index = -1;  // flat index into out of the largest error
  bool within_tolerance = false;
  std::vector<float> out;  // the path's output for sequence 0, [H, Dv] (empty when recorded)
  bool recorded = false;   // the GPU side comes from assets/results/
  std::string provenance;  // "recorded on NVIDIA H200, 2026-12-05, commit 5bdde22"
  std::string device;      // "NVIDIA H200", the CPU model
  std::string reason;      // why the side is missing or recorded
};

struct SideBySide {
  kern::BenchCase c;              // the case (its dtype: the GPU storage dtype)
  std::uint64_t seed = 0;         // of the inputs
  Tolerance tol;                  // of c.dtype
  int heads = 0, dims = 0;        // out of sequence 0 is [heads, dims]
  std::vector<double> reference;  // float64 output of sequence 0, [heads, dims]
  double bytes = 0;               // moved by one step (KV + q read, out written)
  SideResult cpu, gpu;
};

struct SideBySideOptions {
  std::uint64_t seed = 0;  // 0: a fresh seed from the clock (printed with the result)
  int cpu_threads = 0;     // 0: all cores
  int min_runs = 10;
  double min_seconds = 0.2;
  bool gpu = true;                            // try the GPU side (false: CPU only)
  const std::atomic<bool>* cancel = nullptr;  // checked between the stages
};

// Throws attn::InputError for a case that is invalid or too large to hold three float copies in
// memory here, and attn::DeviceError only when `require_gpu` is set and the GPU cannot run it
// (no GPU, out of memory); otherwise a missing GPU side is reported in result.gpu.reason.
SideBySide run_side_by_side(const kern::BenchCase& c, const SideBySideOptions& opt,
                            bool require_gpu = false);

// The document `attnlab compare --json` prints.
std::string side_by_side_json(const SideBySide& r);

}  // namespace app
