// kernels/bench_gpu.h for builds without GPU support.
#include "attention/error.h"
#include "kernels/bench_gpu.h"

namespace kern {

double gpu_read_probe_gbps() {
  throw attn::DeviceError("this build has no GPU support; use --device cpu");
}

double gpu_launch_floor_us() {
  throw attn::DeviceError("this build has no GPU support; use --device cpu");
}

double gpu_read_probe_us(std::size_t) {
  throw attn::DeviceError("this build has no GPU support; use --device cpu");
}

BenchResult gpu_bench_case(const BenchCase&, const BenchOptions&) {
  throw attn::DeviceError("this build has no GPU support; use --device cpu");
}

}  // namespace kern
