// Streaming-read bandwidth probe: the ceiling every decode result is stated against.
//
// Versions
//   v1 grid-stride read of a buffer 16x the L2 (at least 1 GiB), 16-byte loads, 8 in flight per
//      thread, folded into one word per block so nothing is eliminated; timed with events over
//      many passes, median reported. Bytes counted: the buffer once per pass (reads only).
//   v2 the last round's loads predicated instead of a one-load-at-a-time tail loop, so that
//      gpu_read_probe_us (bench_gpu.hip) on a small case's bytes keeps 8 loads in flight a
//      thread; a buffer of >= 1 GiB reads as before.
// Shape legend: n16 = number of 16-byte words in the buffer.
// The runtime first: attention/softmax_state.h needs __host__/__device__ defined (HIP).
#include "kernels/hip_compat.h"
#include <algorithm>
#include <cstdint>
#include <vector>

#include "attention/error.h"
#include "kernels/bench_gpu.h"
#include "kernels/gpu.h"
#include "kernels/gpu_check.h"
#include "kernels/read_probe.h"

namespace kern {
namespace {

constexpr int kProbeThreads = 512;
constexpr int kProbeUnroll = 8;

__global__ void __launch_bounds__(kProbeThreads)
    read_probe_kernel(const uint4* __restrict__ buf, long long n16, unsigned* __restrict__ sink) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  // kProbeUnroll loads in flight a thread, the last round's past the end predicated off, so a
  // buffer of only a few words a thread (a small case's bytes) is read in one round trip.
  for (; i < n16; i += kProbeUnroll * stride) {
    uint4 v[kProbeUnroll];
#pragma unroll
    for (int u = 0; u < kProbeUnroll; ++u)
      v[u] = i + u * stride < n16 ? buf[i + u * stride] : make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
    for (int u = 0; u < kProbeUnroll; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (acc == 0x5eed5eedu) sink[blockIdx.x] = acc;  // almost never taken; keeps the loads
}

__global__ void fill_kernel(uint4* buf, long long n16) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16;
       i += stride) {
    const unsigned x = static_cast<unsigned>(i) * 2654435761u;
    buf[i] = make_uint4(x, x ^ 0x9e3779b9u, x + 7u, ~x);
  }
}

}  // namespace

void launch_read_probe(const void* buf, std::size_t bytes, unsigned* sink, int blocks,
                       hipStream_t st) {
  read_probe_kernel<<<dim3(static_cast<unsigned>(blocks)), dim3(kProbeThreads), 0, st>>>(
      static_cast<const uint4*>(buf), static_cast<long long>(bytes / 16), sink);
}

int read_probe_blocks() { return query_device().multiprocessors * 4; }

double gpu_read_probe_gbps() {
  require_device();
  const DeviceInfo d = query_device();
  std::size_t bytes = std::max<std::size_t>(std::size_t{1} << 30, 16 * d.l2_bytes);
  bytes = std::min<std::size_t>(bytes, d.free_memory / 4);
  bytes = bytes / 16 * 16;
  if (bytes < (std::size_t{64} << 20))
    throw attn::DeviceError("read probe: too little free device memory (" +
                            std::to_string(d.free_memory) + " bytes)");
  const long long n16 = static_cast<long long>(bytes / 16);
  const int blocks = read_probe_blocks();
  DeviceBuffer buf(bytes), sink(static_cast<std::size_t>(blocks) * sizeof(unsigned));
  fill_kernel<<<dim3(static_cast<unsigned>(blocks)), dim3(256)>>>(buf.as<uint4>(), n16);
  HIP_CHECK_LAUNCH();
  constexpr int kWarm = 3, kRuns = 30;
  std::vector<hipEvent_t> ev(2 * kRuns, nullptr);
  for (auto& e : ev) HIP_CHECK(hipEventCreate(&e));
  std::vector<float> ms(kRuns);
  try {
    for (int i = 0; i < kWarm; ++i)
      launch_read_probe(buf.get(), bytes, sink.as<unsigned>(), blocks, nullptr);
    HIP_CHECK_LAUNCH();
    for (int i = 0; i < kRuns; ++i) {
      HIP_CHECK(hipEventRecord(ev[2 * i], nullptr));
      launch_read_probe(buf.get(), bytes, sink.as<unsigned>(), blocks, nullptr);
      HIP_CHECK(hipEventRecord(ev[2 * i + 1], nullptr));
    }
    HIP_CHECK_LAUNCH();
    HIP_CHECK(hipDeviceSynchronize());
    for (int i = 0; i < kRuns; ++i)
      HIP_CHECK(hipEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]));
  } catch (...) {
    for (auto& e : ev) (void)hipEventDestroy(e);
    throw;
  }
  for (auto& e : ev) (void)hipEventDestroy(e);
  std::sort(ms.begin(), ms.end());
  const double med_s = 0.5 * (ms[kRuns / 2 - 1] + ms[kRuns / 2]) * 1e-3;
  return static_cast<double>(bytes) / med_s * 1e-9;
}

}  // namespace kern
