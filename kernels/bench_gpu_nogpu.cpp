// kernels/bench_gpu.h for builds without GPU support.
#include "attention/error.h"
#include "kernels/bench_gpu.h"

namespace kern {

double gpu_read_probe_gbps() {
  throw attn::DeviceError("this build has no GPU support; use --device cpu");
}

GpuTiming gpu_launch_floor() {
  throw attn::DeviceError("this build has no GPU support; use --device cpu");
}

GpuTiming gpu_read_probe_time(std::size_t) {
  throw attn::DeviceError("this build has no GPU support; use --device cpu");
}

BenchResult gpu_bench_case(const BenchCase&, const BenchOptions&) {
  throw attn::DeviceError("this build has no GPU support; use --device cpu");
}

}  // namespace kern
