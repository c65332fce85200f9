// Host-side helpers shared by the GPU host code (gpu_api.hip, bench_gpu.hip, mla_api.hip):
// conversion of float32 tensors to the device storage types, in parallel, with exactly the
// rounding of attention/dtype.h, so the CPU reference can be fed what the GPU sees.
// Pure C++: no HIP or CUDA type crosses this header.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention/dtype.h"

namespace kern {

// Bytes one element takes on the device: 2 (bf16, fp16), 1 (fp8).
std::size_t storage_elem_bytes(attn::DType dt);
// The dtype queries are stored in for a cache dtype: fp16 with fp16, bf16 otherwise.
attn::DType query_storage(attn::DType cache_dt);
// max |x| over n elements (parallel).
float abs_max(const float* x, std::size_t n);
// The per-tensor fp8 scale of x (attn::e4m3_scale_for(abs_max)); 1 for other dtypes.
float storage_scale(attn::DType dt, const float* x, std::size_t n);
// dst (n elements of storage_elem_bytes(dt)) = x in dt: bf16 / fp16 bits, or e4m3 bits of
// x / scale. Round to nearest even, e4m3 saturating (attention/dtype.h). Parallel.
void encode_storage(attn::DType dt, const float* x, std::size_t n, float scale, void* dst);
// dst = the value the device sees for x (rounded, and for fp8 dequantised: e4m3 * scale).
void round_as_storage(attn::DType dt, const float* x, std::size_t n, float scale, float* dst);
// Runs f(begin, end) over [0, n) in contiguous pieces on up to `threads` threads (0 = all).
template <class F>
void parallel_for(std::size_t n, F&& f, int threads = 0);

}  // namespace kern

#include <algorithm>
#include <thread>

template <class F>
void kern::parallel_for(std::size_t n, F&& f, int threads) {
  std::size_t t = threads > 0 ? static_cast<std::size_t>(threads)
                              : std::max(1u, std::thread::hardware_concurrency());
  t = std::min<std::size_t>(t, std::max<std::size_t>(1, n / (1u << 16)));
  if (t <= 1) {
    f(std::size_t{0}, n);
    return;
  }
  std::vector<std::thread> pool;
  const std::size_t step = (n + t - 1) / t;
  for (std::size_t i = 0; i < t; ++i) {
    const std::size_t b = i * step, e = std::min(n, b + step);
    if (b < e) pool.emplace_back([&f, b, e] { f(b, e); });
  }
  for (auto& th : pool) th.join();
}
