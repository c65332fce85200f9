// Thread-block cluster helpers (sm_90) and the cluster merge of grouped decode v5
// (ATTNLAB_GROUPED_COMBINE=3): the split-KV partials of a group merged through distributed
// shared memory. NVIDIA only; include from a file compiled for sm_90a, after
// kernels/hip_compat.h, kernels/grouped_device.h and kernels/wgmma_ops.h.
#pragma once
#include <cstdint>

#include "kernels/grouped_device.h"
#include "kernels/hip_compat.h"
#include "kernels/wgmma_ops.h"

namespace kern {
namespace gdev {

// Thread-block clusters (sm_90): the barrier of all CTAs of the cluster (release / acquire:
// shared-memory writes before it are visible to every CTA of the cluster after it), and loads
// from another CTA's shared memory (distributed shared memory) at a mapa-mapped address.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;\n" ::: "memory");
}
__device__ __forceinline__ std::uint32_t cluster_map(std::uint32_t addr, int rank) {
  std::uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
__device__ __forceinline__ float2 cluster_ld2(std::uint32_t addr) {
  float2 v;
  asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];\n"
               : "=f"(v.x), "=f"(v.y)
               : "r"(addr)
               : "memory");
  return v;
}
__device__ __forceinline__ float4 cluster_ld4(std::uint32_t addr) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}

constexpr int kMaxCluster = 16;

// One warpgroup of Threads threads holding Rows rows of D fp32 outputs in the m64 accumulator
// layout (wgmma_ops.h: this thread's rows r0 and r0 + 8, o[4 jj + 2 r + e] at column
// 8 jj + 2 c + e), p.cluster > 1: the p.splits CTAs of a (b, kv head) group are one cluster, CTA
// rank = split. Each leaves its rows' (max, sum) in its shared memory; after a cluster barrier
// every thread reads its rows' states from all ranks, weights its O by exp2(m - M) / L (the
// group's max M and sum L; a split with no key weighs 0) and stores it in its own shared
// memory; after a second barrier rank r sums rows [r R, r R + R) (R = ceil(nh / splits)) over
// all ranks, float4 at a time, and writes them to out; a third barrier keeps every CTA's
// shared memory alive until all reads are done. No workspace, no atomics, no second kernel.
template <int Rows, int D, int Threads>
__device__ __forceinline__ void cluster_merge(const Params& p, const float (&o)[Rows * D / Threads],
                                              const float (&m_run)[2], const float (&l_run)[2],
                                              unsigned char* smem, int b, int h0, int nh, int r0,
                                              int c, int tid, int rank) {
  const int n = p.splits;
  float* ml = reinterpret_cast<float*>(smem);  // [Rows] {max (log2 units), sum}
  float* ox = ml + 2 * Rows;                   // [Rows][D] weighted O
  const std::uint32_t ml_s = wg::smem_addr(ml), ox_s = wg::smem_addr(ox);
  __syncthreads();  // every warp's last wgmma has read its stage: the stages are free
  if (c == 0)
#pragma unroll
    for (int r = 0; r < 2; ++r)
      *reinterpret_cast<float2*>(ml + 2 * (r0 + 8 * r)) = make_float2(m_run[r], l_run[r]);
  cluster_sync();
  float w[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const std::uint32_t at = ml_s + 8 * (r0 + 8 * r);
    float2 st[kMaxCluster];
#pragma unroll
    for (int s = 0; s < kMaxCluster; ++s)
      if (s < n) st[s] = cluster_ld2(cluster_map(at, s));
    float mx = -INFINITY;
#pragma unroll
    for (int s = 0; s < kMaxCluster; ++s)
      if (s < n) mx = fmaxf(mx, st[s].x);
    float sum = 0.f;
#pragma unroll
    for (int s = 0; s < kMaxCluster; ++s)
      if (s < n && st[s].x != -INFINITY) sum += st[s].y * wg::exp2_ftz(st[s].x - mx);
    w[r] = sum > 0.f && m_run[r] != -INFINITY ? wg::exp2_ftz(m_run[r] - mx) * p.v_scale / sum : 0.f;
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = r0 + 8 * r;
    if (row >= nh) continue;
#pragma unroll
    for (int jj = 0; jj < D / 8; ++jj)
      *reinterpret_cast<float2*>(ox + row * D + 8 * jj + 2 * c) =
          make_float2(o[4 * jj + 2 * r] * w[r], o[4 * jj + 2 * r + 1] * w[r]);
  }
  cluster_sync();
  const int per = (nh + n - 1) / n;
  const int lo = rank * per, hi = min(nh, lo + per);
  for (int task = tid; task < (hi - lo) * (D / 4); task += Threads) {
    const int row = lo + task / (D / 4), col = 4 * (task % (D / 4));
    const std::uint32_t at = ox_s + 4 * (row * D + col);
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int s = 0; s < kMaxCluster; ++s)
      if (s < n) {
        const float4 x = cluster_ld4(cluster_map(at, s));
        acc.x += x.x;
        acc.y += x.y;
        acc.z += x.z;
        acc.w += x.w;
      }
    *reinterpret_cast<float4*>(p.out + (static_cast<long long>(b) * p.hq + h0 + row) * p.dv + col) =
        acc;
  }
  cluster_sync();
}

}  // namespace gdev
}  // namespace kern
