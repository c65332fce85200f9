// The GPU side of the benchmark harness (bench.h dispatches here for BenchDevice::kGpu).
// Implemented in bench_gpu_gpu.cpp (GPU builds) and bench_gpu_nogpu.cpp (builds without GPU).
#pragma once
#include "kernels/bench.h"

namespace kern {

// Streaming-read bandwidth of the device in GB/s (a read-only kernel over a buffer several
// times the L2), measured now. Throws DeviceError.
double gpu_read_probe_gbps();

// A device time in the bench's two timings (median us): one step as one graph launch between
// two events (BenchResult::median_us), and one step of many back to back in one graph
// (BenchResult::step_us).
struct GpuTiming {
  double single_us = 0;
  double step_us = 0;
};

// An empty kernel timed as every case is: the fixed part of each small decode figure.
// Throws DeviceError.
GpuTiming gpu_launch_floor();

// The read probe over `bytes` (rounded down to 16), timed as every case is (rotated copies
// together > 4x the L2): the best a kernel reading that many bytes can do under each timing.
// Throws DeviceError.
GpuTiming gpu_read_probe_time(std::size_t bytes);

// One case: upload rotated inputs, check against the CPU float64 reference, warm up, time with
// device events. Errors of the case go into BenchResult::error; throws DeviceError only when
// the device cannot be used at all.
BenchResult gpu_bench_case(const BenchCase& c, const BenchOptions& opt);

}  // namespace kern
