// The GPU side of the benchmark harness (bench.h dispatches here for BenchDevice::kGpu).
// Implemented in bench_gpu_gpu.cpp (GPU builds) and bench_gpu_nogpu.cpp (builds without GPU).
#pragma once
#include "kernels/bench.h"

namespace kern {

// Streaming-read bandwidth of the device in GB/s (a read-only kernel over a buffer several
// times the L2), measured now. Throws DeviceError.
double gpu_read_probe_gbps();

// Device time of one graph launch of an empty kernel between two events, timed as every case
// is (median us): the fixed part of each small decode figure. Throws DeviceError.
double gpu_launch_floor_us();

// Device time (median us) of the read probe over `bytes` (rounded down to 16), timed as every
// case is: one graph launch a run between two events, rotated copies together > 4x the L2.
// The best a kernel reading that many bytes can do under this timing. Throws DeviceError.
double gpu_read_probe_us(std::size_t bytes);

// One case: upload rotated inputs, check against the CPU float64 reference, warm up, time with
// device events. Errors of the case go into BenchResult::error; throws DeviceError only when
// the device cannot be used at all.
BenchResult gpu_bench_case(const BenchCase& c, const BenchOptions& opt);

}  // namespace kern
