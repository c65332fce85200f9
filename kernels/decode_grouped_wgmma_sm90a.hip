// Grouped decode v5 (MHA / MQA / GQA / SWA): up to 64 query heads of one kv head a CTA on
// Hopper's warpgroup matrix instructions (wgmma). NVIDIA sm_90a only (CMakeLists.txt builds
// this file for that target alone); bf16 or fp16, D = Dv = 128. The plan asks for it only on a
// compute capability 9.0 device; elsewhere v1-v4 (decode_grouped*.hip) run.
//
// Why (kernels/DESIGN.md, section 3): v4 runs a 16-key cp.async pipeline per warp with 16 (or
// 32) heads on mma.sync, and its rows stop at 69-87 % of the read probe (MQA B64 S8192 87.6 us
// against the peer's 84.4). The MLA v5 kernel showed that one warpgroup's 64-row wgmma with a
// deep, coalesced copy pipeline streams at ~98 % of the probe even with 48 of its 64 rows
// padding; this is that kernel for the grouped layouts.
//
// Shapes: q [B, Hq, 128], k / v [B, S, Hkv, 128], out [B, Hq, 128] float32 (or the split
// partials of gdev::Params). CTA = (split x slice, kv head, b), one warpgroup (128 threads),
// 64 keys a block, NS stages in shared memory, each K and V as two 64 x 64 tiles in the
// 128-byte swizzle of wgmma_ops.h:
//   Q   the slice's <= 64 heads (zero rows past them) as wgmma A fragments in registers (32
//       a thread), loaded once;
//   S = Q K^T   8 x m64n64k16 (K from shared memory, K-major); online softmax in registers
//               (log2 units, 4 lanes a row), masked past the split's last key;
//   O = O * alpha + P V   4 x m64n128k16, P from registers (the S accumulator layout), V read
//               MN-major from its stage; O is 64 fp32 registers a thread.
// NS - 1 blocks are in flight while one is computed; one CTA barrier a block orders both the
// landing of block j and the end of block j - 1's reads before its stage is refilled.
#include "kernels/hip_compat.h"

#include <atomic>
#include <cstdint>
#include <string>

#include "attention/error.h"
#include "kernels/gpu_check.h"
#include "kernels/grouped_device.h"
#include "kernels/matrix_ops.h"
#if defined(ATTNLAB_HIP_ON_CUDA)
#include "kernels/dev/cluster_merge_sm90a.h"
#include "kernels/wgmma_ops.h"
#endif

namespace kern {
namespace gdev {

#if defined(ATTNLAB_HIP_ON_CUDA)
namespace {

constexpr int kD = 128;
constexpr int kRows = 64;  // heads a slice: one m64 tile
constexpr int kKeys = 64;  // keys a block
constexpr int kWgThreads = 128;
constexpr int kHalfTiles = kD / 64;                     // 64-column tiles a row: 2
constexpr int kMatBytes = kHalfTiles * wg::kTileBytes;  // one 64 x 128 operand: 16 KB
constexpr int kStageBytes = 2 * kMatBytes;              // K then V
template <int NS, int WGS>
constexpr int wgmma_smem_bytes() {
  return WGS * NS * kStageBytes + 1024;
}  // + slack to align to 1024

// 64 rows of 128 16-bit elements (row r at src + r * stride elements; rows >= nvalid take
// `fallback`, a mapped row, and are zero-filled) into two swizzled tiles at dst. A warp
// instruction copies 4 rows x one 128-byte tile row; warp w takes row groups w, w + 4, ...,
// so a lane's swizzle is fixed (row % 8 does not change between its rows). t: the thread's
// index in its warpgroup.
__device__ __forceinline__ void copy_mat(unsigned char* dst, const std::uint16_t* src,
                                         long long stride, int nvalid,
                                         const std::uint16_t* fallback, int t) {
  const int w = t / 32, l = t % 32, row0 = 4 * w + l / 8, ch = l % 8;
  unsigned char* d = dst + row0 * 128 + ((ch ^ (row0 & 7)) << 4);
#pragma unroll
  for (int m = 0; m < kRows / 16; ++m) {
    const int r = row0 + 16 * m;
    const bool valid = r < nvalid;
    const std::uint16_t* s = (valid ? src + r * stride : fallback) + ch * 8;
#pragma unroll
    for (int k = 0; k < kHalfTiles; ++k)
      mo::copy16(d + 16 * m * 128 + k * wg::kTileBytes, s + k * 64, valid);
  }
}

// One warpgroup's step over a block of 64 keys from key k0 (keys >= end masked): K at k_s and
// V at k_s + kMatBytes in shared memory, Q in qf, the running O, max and sum in registers.
template <class T>
__device__ __forceinline__ void attend_block(T, std::uint32_t k_s,
                                             const std::uint32_t (&qf)[kD / 16][4], float (&o)[64],
                                             float (&m_run)[2], float (&l_run)[2], long long k0,
                                             long long end, float q_mult, int c) {
  const std::uint32_t v_s = k_s + kMatBytes;
  float s[32];
  wg::fence();
#pragma unroll
  for (int kk = 0; kk < kD / 16; ++kk) {
    const std::uint32_t off = (kk >> 2) * wg::kTileBytes + (kk & 3) * 32;
    wg::mma_rs_m64n64k16<0>(T{}, s, qf[kk], wg::desc(k_s + off, 16, 1024), kk > 0);
  }
  wg::commit();
  wg::wait<0>();
  wg::pin(s);

  // Online softmax (log2 units). s[4 jj + e]: row r0 + 8 (e / 2), key 8 jj + 2 c + e % 2.
  const bool full = k0 + kKeys <= end;
  float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
  for (int jj = 0; jj < 8; ++jj)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const bool valid = full || k0 + 8 * jj + 2 * c + (e & 1) < end;
      const float x = valid ? s[4 * jj + e] * q_mult : -INFINITY;
      s[4 * jj + e] = x;
      mx[e >> 1] = fmaxf(mx[e >> 1], x);
    }
  float al[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    mx[r] = fmaxf(mx[r], ATTNLAB_SHFL_XOR(mx[r], 1, 32));
    mx[r] = fmaxf(mx[r], ATTNLAB_SHFL_XOR(mx[r], 2, 32));
    const float mn = fmaxf(m_run[r], mx[r]);  // finite: key k0 is valid
    al[r] = wg::exp2_ftz(m_run[r] - mn);
    m_run[r] = mn;
  }
  std::uint32_t pa[4][4];
  float ls[2] = {0.f, 0.f};
#pragma unroll
  for (int jj = 0; jj < 8; ++jj) {
    const float p0 = wg::exp2_ftz(s[4 * jj + 0] - m_run[0]),
                p1 = wg::exp2_ftz(s[4 * jj + 1] - m_run[0]);
    const float p2 = wg::exp2_ftz(s[4 * jj + 2] - m_run[1]),
                p3 = wg::exp2_ftz(s[4 * jj + 3] - m_run[1]);
    ls[0] += p0 + p1;
    ls[1] += p2 + p3;
    pa[jj >> 1][(jj & 1) * 2 + 0] = mo::pack2<T>(p0, p1);
    pa[jj >> 1][(jj & 1) * 2 + 1] = mo::pack2<T>(p2, p3);
  }
  l_run[0] = l_run[0] * al[0] + ls[0];
  l_run[1] = l_run[1] * al[1] + ls[1];
  if (__any_sync(0xffffffffu, al[0] != 1.f || al[1] != 1.f)) {  // most blocks: no max moved
#pragma unroll
    for (int jj = 0; jj < 16; ++jj) {
      o[4 * jj + 0] *= al[0];
      o[4 * jj + 1] *= al[0];
      o[4 * jj + 2] *= al[1];
      o[4 * jj + 3] *= al[1];
    }
  }
  wg::fence();
#pragma unroll
  for (int kk = 0; kk < kKeys / 16; ++kk)
    wg::mma_rs_m64n128k16<1>(T{}, o, pa[kk], wg::desc(v_s + kk * 16 * 128, wg::kTileBytes, 1024),
                             1);
  wg::commit();
  wg::wait<0>();
  wg::pin(o);
}

// The barrier of one warpgroup's pipeline: the CTA's when it has one warpgroup, else named
// barrier 1 + w over its 128 threads.
template <int WGS>
__device__ __forceinline__ void wg_barrier(int w) {
  if constexpr (WGS == 1) {
    (void)w;
    __syncthreads();
  } else {
    asm volatile("bar.sync %0, %1;\n" ::"r"(1 + w), "n"(kWgThreads) : "memory");
  }
}

// Q as the A operand of k-step kk (dims 16 kk ..): rows r0 / r0 + 8 (zero from row nh), the
// mma.sync m16n8k16 A layout of the warp's 16 rows.
__device__ __forceinline__ void load_q(std::uint32_t (&qf)[kD / 16][4], const std::uint16_t* qg,
                                       int r0, int nh, int c) {
  const std::uint32_t* qa = reinterpret_cast<const std::uint32_t*>(qg + r0 * kD);
  const std::uint32_t* qb = qa + 4 * kD;  // 8 rows further, in 32-bit words
  const bool va = r0 < nh, vb = r0 + 8 < nh;
#pragma unroll
  for (int kk = 0; kk < kD / 16; ++kk) {
    qf[kk][0] = va ? qa[8 * kk + c] : 0u;
    qf[kk][1] = vb ? qb[8 * kk + c] : 0u;
    qf[kk][2] = va ? qa[8 * kk + c + 4] : 0u;
    qf[kk][3] = vb ? qb[8 * kk + c + 4] : 0u;
  }
}

// This thread's state (rows r0 and r0 + 8: O in o[4 jj + 2 r + e], max in log2 units, full
// row sums) merged with another state of the same rows and columns: maxima m1, sums l1 and
// its unnormalised outputs x(i) in o's order. A state with no key (m = -inf) weighs 0.
template <class X>
__device__ __forceinline__ void merge_state(float (&o)[64], float (&m_run)[2], float (&l_run)[2],
                                            const float (&m1)[2], const float (&l1)[2], X&& x) {
  float a0[2], a1[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float mn = fmaxf(m_run[r], m1[r]);
    a0[r] = m_run[r] == -INFINITY ? 0.f : wg::exp2_ftz(m_run[r] - mn);
    a1[r] = m1[r] == -INFINITY ? 0.f : wg::exp2_ftz(m1[r] - mn);
    l_run[r] = l_run[r] * a0[r] + l1[r] * a1[r];
    m_run[r] = mn;
  }
#pragma unroll
  for (int i = 0; i < 64; ++i) {
    const int r = (i >> 1) & 1;  // o[4 jj + 2 r + e]: row r0 + 8 r
    o[i] = o[i] * a0[r] + x(i) * a1[r];
  }
}

// Two warpgroups: warpgroup 1's state into its own stages at x (all its wgmma reads are
// waited for once its four warps pass the barrier), then warpgroup 0 merges it: thread t of
// both holds the same rows and columns. Every thread of the CTA calls it.
__device__ __forceinline__ void hand_over(float* x, int wgi, int tid, float (&o)[64],
                                          float (&m_run)[2], float (&l_run)[2]) {
  if (wgi == 1) {
    wg_barrier<2>(1);
#pragma unroll
    for (int i = 0; i < 64; ++i) x[i * kWgThreads + tid] = o[i];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      x[(64 + r) * kWgThreads + tid] = m_run[r];
      x[(66 + r) * kWgThreads + tid] = l_run[r];
    }
  }
  __syncthreads();
  if (wgi == 1) return;
  const float m1[2] = {x[64 * kWgThreads + tid], x[65 * kWgThreads + tid]};
  const float l1[2] = {x[66 * kWgThreads + tid], x[67 * kWgThreads + tid]};
  merge_state(o, m_run, l_run, m1, l1, [&](int i) { return x[i * kWgThreads + tid]; });
}

// This thread's rows of heads h0 .. h0 + nh - 1 of sequence b: normalised into out (part < 0)
// or as split `part`'s partial (unnormalised, with its max in natural-log units and its sum).
__device__ __forceinline__ void write_rows(const Params& p, const float (&o)[64],
                                           const float (&m_run)[2], const float (&l_run)[2], int b,
                                           int h0, int nh, int r0, int c, int part) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = r0 + 8 * r;
    if (row >= nh) continue;
    const float mx = l_run[r] > 0.f ? m_run[r] * kLn2 : -INFINITY;
    const long long orow = static_cast<long long>(b) * p.hq + h0 + row;
    if (part < 0) {
      const float inv = l_run[r] > 0.f ? p.v_scale / l_run[r] : 0.f;
      float* dst = p.out + orow * p.dv;
#pragma unroll
      for (int jj = 0; jj < 16; ++jj)
        *reinterpret_cast<float2*>(dst + 8 * jj + 2 * c) =
            make_float2(o[4 * jj + 2 * r] * inv, o[4 * jj + 2 * r + 1] * inv);
    } else {
      const long long prow = static_cast<long long>(part) * p.batch * p.hq + orow;
      float* dst = p.part_acc + prow * p.dv;
#pragma unroll
      for (int jj = 0; jj < 16; ++jj)
        *reinterpret_cast<float2*>(dst + 8 * jj + 2 * c) =
            make_float2(o[4 * jj + 2 * r] * p.v_scale, o[4 * jj + 2 * r + 1] * p.v_scale);
      if (c == 0) p.part_state[prow] = make_float2(mx, l_run[r]);
    }
  }
}

// Two warpgroups with split KV and p.fused: warpgroup 0 of each CTA leaves its split's state
// (unnormalised O, max in log2 units, full row sums) as partial `split`, and the CTA of the
// group that counts itself in last merges the other splits into its registers and writes the
// output: one L2 round trip a split at the end of the launch, and no second kernel. Warpgroup
// 0's threads only (named barrier 1); empty splits weigh 0 (m = -inf).
// With p.ticket the CTA took its arrival ticket (thread 0, take_ticket in grouped_device.h)
// before the two warpgroups' hand-over: the last one to arrive writes no partial and waits
// only until the others have published theirs.
__device__ __forceinline__ void merge_splits(const Params& p, float (&o)[64], float (&m_run)[2],
                                             float (&l_run)[2], int group, int split, int b, int h0,
                                             int nh, int r0, int c, int tid, unsigned ticket) {
  __shared__ int last;
  const long long rows = static_cast<long long>(p.batch) * p.hq;
  const long long row0 = static_cast<long long>(b) * p.hq + h0;
  if (p.ticket) {
    if (tid == 0) last = ticket_is_last(p, ticket);
    wg_barrier<2>(0);
  }
  if (!p.ticket || !last) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = r0 + 8 * r;
      if (row >= nh) continue;
      const long long prow = split * rows + row0 + row;
#pragma unroll
      for (int jj = 0; jj < 16; ++jj)
        *reinterpret_cast<float2*>(p.part_acc + prow * p.dv + 8 * jj + 2 * c) =
            make_float2(o[4 * jj + 2 * r], o[4 * jj + 2 * r + 1]);
      if (c == 0) p.part_state[prow] = make_float2(m_run[r], l_run[r]);
    }
  }
  if (p.ticket) {
    if (!last) {
      publish_partial(p, group, tid == 0, [] { wg_barrier<2>(0); });
      return;
    }
    if (tid == 0) wait_published(p, group);
    wg_barrier<2>(0);
  } else {
    __threadfence();
    wg_barrier<2>(0);
    if (tid == 0) {
      last = atomicAdd(p.counters + group, 1u) + 1 == static_cast<unsigned>(p.splits);
      if (last) p.counters[group] = 0u;  // for the next launch
    }
    wg_barrier<2>(0);
    if (!last) return;
  }
  __threadfence();  // the others' partials, never read here before, through the L2
  for (int other = 0; other < p.splits; ++other) {
    if (other == split) continue;
    float m1[2], l1[2];
    float2 y[2][16];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const long long prow = other * rows + row0 + min(r0 + 8 * r, nh - 1);
      const float2 st = __ldcg(p.part_state + prow);
      m1[r] = st.x;
      l1[r] = st.y;
#pragma unroll
      for (int jj = 0; jj < 16; ++jj)
        y[r][jj] =
            __ldcg(reinterpret_cast<const float2*>(p.part_acc + prow * p.dv + 8 * jj + 2 * c));
    }
    merge_state(o, m_run, l_run, m1, l1, [&](int i) {
      const float2 v = y[(i >> 1) & 1][i >> 2];
      return (i & 1) ? v.y : v.x;
    });
  }
  write_rows(p, o, m_run, l_run, b, h0, nh, r0, c, -1);
}

// WGS warpgroups a CTA (1 or 2): with 2, warpgroup w takes the blocks j = 2 i + w of the
// CTA's key range through its own NS stages, and warpgroup 1 hands its softmax state to
// warpgroup 0 through shared memory at the end: two math chains an SM without a second CTA's
// split to merge (one CTA an SM, where a chain alone cannot keep up with the copies).
template <class T, int NS, int WGS>
__global__ void __launch_bounds__(kWgThreads* WGS, 1) grouped_wgmma_kernel(const Params p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__(16) unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (wg::smem_addr(smem_raw) & 1023)) & 1023);
  const int wgi = WGS == 1 ? 0 : static_cast<int>(threadIdx.x) / kWgThreads;
  const int tid = static_cast<int>(threadIdx.x) % kWgThreads, warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, c = lane % 4;
  const int r0 = 16 * warp + g;  // this thread's rows: r0 and r0 + 8
  const int slice = blockIdx.x % p.slices;
  const int split = blockIdx.x / p.slices;
  const int hkv = blockIdx.y;
  const int b = blockIdx.z;
  const int h0 = hkv * p.g + slice * kRows;
  const int nh = min(kRows, p.g - slice * kRows);
  long long start, end;
  key_range(p, b, split, &start, &end);
  // Diagnostics (probe bit 2): the splits of a group interleave their 64-key blocks (split s
  // takes blocks s, s + splits, ...), so the CTAs of a group read neighbouring blocks at the
  // same time in place of `splits` separate ranges. Any order merges to the same softmax.
  long long bstep = kKeys;  // keys from one of this CTA's blocks to its next
  int nblk_all = start < end ? static_cast<int>((end - start + kKeys - 1) / kKeys) : 0;
  if (kDiag && (p.probe & 2) && p.splits > 1) {
    long long lo, hi, unused;
    key_range(p, b, 0, &lo, &unused);
    key_range(p, b, p.splits - 1, &unused, &hi);
    hi = hi > lo ? hi : lo;
    const int nb = static_cast<int>((hi - lo + kKeys - 1) / kKeys);
    start = lo + static_cast<long long>(kKeys) * split;
    end = hi;
    bstep = static_cast<long long>(kKeys) * p.splits;
    nblk_all = split < nb ? (nb - split + p.splits - 1) / p.splits : 0;
    if (nblk_all == 0) start = end = lo;
  }
  const int nblk = (nblk_all - wgi + WGS - 1) / WGS;  // this warpgroup's blocks
  unsigned long long* tl =
      kDiag && p.timeline && threadIdx.x == 0
          ? p.timeline +
                8 * ((static_cast<long long>(b) * gridDim.y + hkv) * gridDim.x + blockIdx.x)
          : nullptr;
  if (tl) {
    tl[0] = wg::global_ns();
    tl[4] = wg::sm_id();
  }
  if (p.pdl) pdl_allow_dependents();  // the separate combine may be scheduled now

  const long long row_stride = static_cast<long long>(p.hkv) * kD;
  const long long base = (static_cast<long long>(b) * p.seq * p.hkv + hkv) * kD;
  const std::uint16_t* kg = static_cast<const std::uint16_t*>(p.k) + base;
  const std::uint16_t* vg = static_cast<const std::uint16_t*>(p.v) + base;
  const std::uint16_t* qg =
      static_cast<const std::uint16_t*>(p.q) + (static_cast<long long>(b) * p.hq + h0) * kD;
  unsigned char* st0 = smem + wgi * NS * kStageBytes;  // this warpgroup's stages
  auto issue = [&](int j) {  // its block j -> stage j % NS; keys past `end` zero-filled
    const long long k0 = start + bstep * (WGS * j + wgi);
    const int nvalid = end - k0 < kKeys ? static_cast<int>(end - k0) : kKeys;
    unsigned char* dst = st0 + (j % NS) * kStageBytes;
    copy_mat(dst, kg + k0 * row_stride, row_stride, nvalid, kg + start * row_stride, tid);
    copy_mat(dst + kMatBytes, vg + k0 * row_stride, row_stride, nvalid, vg + start * row_stride,
             tid);
  };
#pragma unroll
  for (int s = 0; s < NS - 1; ++s) {  // one group each (empty past the end): uniform waits
    if (s < nblk) issue(s);
    mo::copy_commit();
  }

  // Q: loaded while the first copies are in flight.
  std::uint32_t qf[kD / 16][4];
  load_q(qf, qg, r0, nh, c);
  float o[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) o[i] = 0.f;
  float m_run[2] = {-INFINITY, -INFINITY}, l_run[2] = {0.f, 0.f};

  for (int j = 0; j < nblk; ++j) {
    mo::copy_wait<NS - 2>();
    wg::fence_async_smem();
    wg_barrier<WGS>(wgi);  // block j landed; block j - 1's stage is no longer read
    if (tl && j == 0) tl[1] = wg::global_ns();
    if (j + NS - 1 < nblk) issue(j + NS - 1);
    mo::copy_commit();
    if (kDiag && (p.probe & 1)) continue;  // diagnostics: the copy pipeline alone
    attend_block(T{}, wg::smem_addr(st0 + (j % NS) * kStageBytes), qf, o, m_run, l_run,
                 start + bstep * (WGS * j + wgi), end, p.q_mult, c);
  }
  mo::copy_wait<0>();
  if (tl) tl[2] = wg::global_ns();

#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l_run[r] += ATTNLAB_SHFL_XOR(l_run[r], 1, 32);
    l_run[r] += ATTNLAB_SHFL_XOR(l_run[r], 2, 32);
  }
  const int group = (b * p.hkv + hkv) * p.slices + slice;
  const unsigned ticket = WGS == 2 ? take_ticket(p, group) : 0u;
  if constexpr (WGS == 2) {
    hand_over(reinterpret_cast<float*>(smem + NS * kStageBytes), wgi, tid, o, m_run, l_run);
    if (wgi == 1) return;
    if (p.fused && p.splits > 1) {
      merge_splits(p, o, m_run, l_run, group, split, b, h0, nh, r0, c, tid, ticket);
      if (tl) tl[3] = wg::global_ns();
      return;
    }
  }
  if constexpr (WGS == 1) {
    if (kDiag && p.cluster > 1) {
      cluster_merge<kRows, kD, kWgThreads>(p, o, m_run, l_run, smem, b, h0, nh, r0, c, tid, split);
      if (tl) tl[3] = wg::global_ns();
      return;
    }
  }
  write_rows(p, o, m_run, l_run, b, h0, nh, r0, c, p.splits == 1 ? -1 : split);
  if (p.fused && p.splits > 1) {
    __syncthreads();  // the stages are free: they hold the combine's weights
    combine_if_last(p, b, group, h0, nh, reinterpret_cast<float*>(st0));
  }
  if (tl) tl[3] = wg::global_ns();
#else
  __trap();  // built only for sm_90a; the host never launches it elsewhere
#endif
}

template <class T, int NS, int WGS>
struct WgmmaLaunch {
  static constexpr int kSmem = wgmma_smem_bytes<NS, WGS>();
  static constexpr int kThreads = kWgThreads * WGS;
  static void prepare() {
    static const bool done = [] {
      HIP_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(grouped_wgmma_kernel<T, NS, WGS>),
                                    hipFuncAttributeMaxDynamicSharedMemorySize, kSmem));
      return true;
    }();
    (void)done;
  }
  static int blocks_per_sm() {  // 0 where the tile exceeds the device's shared memory a block
    static const int n = resident_blocks(grouped_wgmma_kernel<T, NS, WGS>, kThreads, kSmem);
    return n;
  }
  static void allow_big_clusters() {
    static const bool done = [] {
      HIP_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(grouped_wgmma_kernel<T, NS, WGS>),
                                    hipFuncAttributeNonPortableClusterSizeAllowed, 1));
      return true;
    }();
    (void)done;
  }
  static hipLaunchConfig_t config(dim3 grid, hipStream_t stream, hipLaunchAttribute* attr,
                                  int cluster) {
    hipLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = kSmem;
    cfg.stream = stream;
    attr->id = hipLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = static_cast<unsigned>(cluster);
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
  }
  static int max_clusters(int size) {
    prepare();
    if (size > 8) allow_big_clusters();
    hipLaunchAttribute attr;
    const hipLaunchConfig_t cfg = config(dim3(static_cast<unsigned>(size)), nullptr, &attr, size);
    int n = 0;
    if (hipOccupancyMaxActiveClusters(&n, grouped_wgmma_kernel<T, NS, WGS>, &cfg) != hipSuccess) {
      (void)hipGetLastError();  // a size the device cannot schedule: none fit
      return 0;
    }
    return n;
  }
  static void launch(const Params& p, dim3 grid, hipStream_t stream) {
    prepare();
    if (kDiag && p.cluster > 1) {
      if (p.cluster > 8) allow_big_clusters();
      hipLaunchAttribute attr;
      const hipLaunchConfig_t cfg = config(grid, stream, &attr, p.cluster);
      HIP_CHECK(hipLaunchKernelEx(&cfg, grouped_wgmma_kernel<T, NS, WGS>, p));
      return;
    }
    grouped_wgmma_kernel<T, NS, WGS><<<grid, dim3(kThreads), kSmem, stream>>>(p);
  }
};

// Built: one warpgroup with 3 stages (2 blocks in flight, 97 KB: two CTAs an SM), 4 (3 in
// flight, 129 KB) or 6 (5 in flight, 193 KB), one CTA an SM for the last two; two warpgroups
// with 3 stages each (193 KB, one CTA an SM).
template <class T, class F>
void with_stages(int stages, int wgs, F&& f) {
  if (wgs == 2)
    f(WgmmaLaunch<T, 3, 2>{});
  else if (stages <= 3)
    f(WgmmaLaunch<T, 3, 1>{});
  else if (stages == 4)
    f(WgmmaLaunch<T, 4, 1>{});
  else
    f(WgmmaLaunch<T, 6, 1>{});
}
template <class F>
void with_config(bool fp16, int stages, int wgs, F&& f) {
  if (fp16)
    with_stages<mo::Fp16>(stages, wgs, f);
  else
    with_stages<mo::Bf16>(stages, wgs, f);
}

}  // namespace

int grouped_wgmma_blocks_per_sm(bool fp16, int stages, int warpgroups) {
  int n = 0;
  with_config(fp16, stages, warpgroups, [&](auto cfg) { n = decltype(cfg)::blocks_per_sm(); });
  return n < 1 ? 1 : n;
}

int grouped_wgmma_max_clusters(bool fp16, int stages, int size) {
  if (size < 2 || size > kMaxCluster) return 0;
  // The plan asks on every launch: one query per configuration, cached as n + 1 (0: not asked).
  static std::atomic<int> cache[2][3][kMaxCluster + 1];
  std::atomic<int>& slot = cache[fp16 ? 1 : 0][stages <= 3 ? 0 : stages == 4 ? 1 : 2][size];
  int n = slot.load() - 1;
  if (n < 0) {
    with_config(fp16, stages, 1, [&](auto cfg) { n = decltype(cfg)::max_clusters(size); });
    slot.store(n + 1);
  }
  return n;
}

void launch_grouped_wgmma(const Params& p, bool fp16, int splits, int stages, int warpgroups,
                          hipStream_t stream) {
  if (p.d != kD || p.dv != kD)
    throw attn::DeviceError("grouped decode v5: D = Dv = 128 only, found D " + std::to_string(p.d) +
                            ", Dv " + std::to_string(p.dv));
  if (!device_is_sm90())
    throw attn::DeviceError("grouped decode v5 needs a compute capability 9.0 GPU (H100 / H200)");
  if (warpgroups != 1 && warpgroups != 2)
    throw attn::DeviceError("grouped decode v5: 1 or 2 warpgroups a CTA, found " +
                            std::to_string(warpgroups));
  if (warpgroups == 2 && stages != 3)
    throw attn::DeviceError("grouped decode v5: two warpgroups a CTA run 3 stages only");
  if (p.cluster > 1 &&
      (warpgroups != 1 || p.slices != 1 || p.cluster != splits || p.cluster > kMaxCluster))
    throw attn::DeviceError(
        "grouped decode v5: a cluster combine needs one warpgroup, one head "
        "slice and 2-16 splits, found " +
        std::to_string(splits) + " splits");
  const dim3 grid(static_cast<unsigned>(splits * p.slices), static_cast<unsigned>(p.hkv),
                  static_cast<unsigned>(p.batch));
  with_config(fp16, stages, warpgroups, [&](auto cfg) { decltype(cfg)::launch(p, grid, stream); });
  HIP_CHECK_LAUNCH();
}

#endif  // ATTNLAB_HIP_ON_CUDA

}  // namespace gdev
}  // namespace kern
