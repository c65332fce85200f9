// Split-KV combine of the MLA decode (launched by mla_plan.hip): merges the splits' partial outputs
// [B * H, splits, Dl] and softmax states [B * H, splits] {max, sum} into out [B * H, Dl].
// The runtime first: attention/softmax_state.h needs __host__/__device__ defined (HIP).
#include "kernels/hip_compat.h"
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "attention/error.h"
#include "attention/softmax_state.h"
#include "kernels/dependent_launch.h"
#include "kernels/gpu_check.h"
#include "kernels/matrix_ops.h"
#include "kernels/mla_combine.h"

namespace kern {
namespace {

constexpr int kDl = kMlaLatentDim;

// v1 combine: out[b, h] = merge over splits (SoftmaxState::merge) in split order, 4 output dims
// a thread, kSerialRows rows (b, h) a CTA. The states and partials of 8 splits are loaded
// before they are merged, so a thread waits one L2 round trip per 8 splits, not two per split
// (H200: 1024 CTAs of one row with a dependent walk took 4.4 us for 2 splits of
// H16 B64).
constexpr int kSerialRows = 2;
__global__ void __launch_bounds__(kSerialRows* kDl / 4)
    mla_combine_serial_kernel(const float* part_acc, const float2* part_state, float* out,
                              std::int64_t rows, int splits, int pdl) {
  if (pdl) pdl_wait_primary();  // a dependent of the decode kernel: its partials first
  const std::int64_t bh = std::int64_t(blockIdx.x) * kSerialRows + threadIdx.x / (kDl / 4);
  if (bh >= rows) return;
  const int d = threadIdx.x % (kDl / 4) * 4;
  attn::SoftmaxState<float> run;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  constexpr int kAhead = 8;
  for (int s0 = 0; s0 < splits; s0 += kAhead) {
    float2 st[kAhead];
    float4 v[kAhead];
#pragma unroll
    for (int i = 0; i < kAhead; ++i) {
      const bool in = s0 + i < splits;
      st[i] = in ? part_state[bh * splits + s0 + i] : make_float2(-INFINITY, 0.f);
      v[i] = in ? *reinterpret_cast<const float4*>(part_acc + (bh * splits + s0 + i) * kDl + d)
                : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (int i = 0; i < kAhead; ++i) {
      attn::SoftmaxState<float> cur;
      cur.max = st[i].x;
      cur.sum = st[i].y;
      if (cur.empty()) continue;  // its partial output was never written: never read its value
      float sa, sb;
      run = attn::SoftmaxState<float>::merge(run, cur, &sa, &sb);
      acc.x = acc.x * sa + v[i].x * sb;
      acc.y = acc.y * sa + v[i].y * sb;
      acc.z = acc.z * sa + v[i].z * sb;
      acc.w = acc.w * sa + v[i].w * sb;
    }
  }
  const float inv = run.inv_sum();
  *reinterpret_cast<float4*>(out + bh * kDl + d) =
      make_float4(acc.x * inv, acc.y * inv, acc.z * inv, acc.w * inv);
}

// v2 combine: one CTA of 128 * G threads per (b, h). (1) All split states are merged with
// SoftmaxState::merge, in parallel and then across lanes and warps (merge is associative), into
// the total (M, L). (2) Each split's weight exp(m_s - M) / L is what the merges scaled its
// partial by, normalised; 0 for an empty split. (3) Thread group g (128 threads, 4 dims each)
// sums w_s * partial_s over the splits s = g mod G with independent loads, and the G group sums
// are added through shared memory.
constexpr int kCombineMaxGroups = 4;

__device__ __forceinline__ attn::SoftmaxState<float> merge_states(attn::SoftmaxState<float> a,
                                                                  attn::SoftmaxState<float> b) {
  float sa, sb;
  return attn::SoftmaxState<float>::merge(a, b, &sa, &sb);
}

__global__ void __launch_bounds__(128 * kCombineMaxGroups)
    mla_combine_kernel(const float* part_acc, const float2* part_state, float* out, int splits,
                       int pdl) {
  if (pdl) pdl_wait_primary();  // a dependent of the decode kernel: its partials first
  __shared__ float s_w[kMlaCombineMaxSplits];
  __shared__ float s_max[128 * kCombineMaxGroups / 32], s_sum[128 * kCombineMaxGroups / 32];
  __shared__ float4 s_part[(kCombineMaxGroups - 1) * 128];
  const std::int64_t bh = blockIdx.x;
  const int tid = threadIdx.x, nthreads = blockDim.x;
  const int lane = tid % mo::kWarp, warp = tid / mo::kWarp, nwarps = nthreads / mo::kWarp;
  const float2* st = part_state + bh * splits;

  attn::SoftmaxState<float> tot;
  for (int s = tid; s < splits; s += nthreads) {
    attn::SoftmaxState<float> c;
    c.max = st[s].x;
    c.sum = st[s].y;
    tot = merge_states(tot, c);
  }
#pragma unroll
  for (int off = mo::kWarp / 2; off > 0; off /= 2) {
    attn::SoftmaxState<float> o;
    o.max = ATTNLAB_SHFL_XOR(tot.max, off, mo::kWarp);
    o.sum = ATTNLAB_SHFL_XOR(tot.sum, off, mo::kWarp);
    tot = merge_states(tot, o);
  }
  if (lane == 0) {
    s_max[warp] = tot.max;
    s_sum[warp] = tot.sum;
  }
  __syncthreads();
  tot = attn::SoftmaxState<float>();
  for (int w = 0; w < nwarps; ++w) {  // every thread, the same order: identical totals
    attn::SoftmaxState<float> o;
    o.max = s_max[w];
    o.sum = s_sum[w];
    tot = merge_states(tot, o);
  }
  const float inv = tot.inv_sum();
  for (int s = tid; s < splits; s += nthreads)
    s_w[s] = st[s].y > 0.f ? ::expf(st[s].x - tot.max) * inv : 0.f;
  __syncthreads();

  const int groups = nthreads / 128, g = tid / 128, d = (tid % 128) * 4;
  const float* part = part_acc + bh * splits * kDl + d;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 4
  for (int s = g; s < splits; s += groups) {
    const float4 v = *reinterpret_cast<const float4*>(part + std::int64_t(s) * kDl);
    const float w = s_w[s];
    if (w != 0.f) {  // an empty split's partial was never written: never touch its value
      acc.x += w * v.x;
      acc.y += w * v.y;
      acc.z += w * v.z;
      acc.w += w * v.w;
    }
  }
  if (g > 0) s_part[(g - 1) * 128 + tid % 128] = acc;
  __syncthreads();
  if (g == 0) {
    for (int j = 1; j < groups; ++j) {
      const float4 o = s_part[(j - 1) * 128 + tid];
      acc.x += o.x;
      acc.y += o.y;
      acc.z += o.z;
      acc.w += o.w;
    }
    *reinterpret_cast<float4*>(out + bh * kDl + d) = acc;
  }
}

}  // namespace

int mla_split_count(std::int64_t ctas, std::int64_t blocks, int per_sm) {
  const std::int64_t slots = std::int64_t(device_multiprocessors()) * std::max(per_sm, 1);
  double best = 1e300;
  int splits = 1;
  const std::int64_t max_splits = std::min<std::int64_t>(blocks, kMlaCombineMaxSplits);
  for (std::int64_t s = 1; s <= max_splits; ++s) {
    const std::int64_t waves = (ctas * s + slots - 1) / slots;
    const std::int64_t per_cta = (blocks + s - 1) / s;
    const double cost = double(waves) * double(per_cta + 2) + (s > 1 ? 1.0 : 0.0);
    if (cost < best - 1e-9) {
      best = cost;
      splits = static_cast<int>(s);
    }
  }
  return splits;
}

void launch_mla_combine(int version, const float* part_acc, const float2* part_state, float* out,
                        int splits, std::int64_t rows, bool dependent, hipStream_t stream) {
  if (rows < 1 || rows > std::numeric_limits<int>::max() || splits < 2 ||
      splits > kMlaCombineMaxSplits)
    throw attn::DeviceError("MLA combine: " + std::to_string(rows) + " rows, " +
                            std::to_string(splits) + " splits out of range");
  // Where `dependent`, scheduled while the decode kernel runs (kernels/dependent_launch.h).
  const dim3 grid(static_cast<unsigned>(rows));
  if (version == 1) {
    launch_dependent(dependent, mla_combine_serial_kernel,
                     dim3(static_cast<unsigned>((rows + kSerialRows - 1) / kSerialRows)),
                     dim3(kSerialRows * kDl / 4), 0, stream, part_acc, part_state, out, rows,
                     splits, dependent ? 1 : 0);
  } else {
    const int groups = std::min(kCombineMaxGroups, splits);
    launch_dependent(dependent, mla_combine_kernel, grid, dim3(128 * groups), 0, stream, part_acc,
                     part_state, out, splits, dependent ? 1 : 0);
  }
  HIP_CHECK_LAUNCH();
}

}  // namespace kern
