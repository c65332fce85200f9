// Grouped decode attention for MHA, MQA, GQA and SWA: one kernel family, G = Hq / Hkv.
//
// Versions
//   v1 generic: one block per (split, q head, b); scalar loads; any D and Dv. The fallback for
//      shapes the tiled kernel is not compiled for, and the baseline it is checked against.
//   v2 tiled:   one block per (split, kv head x head slice, b). Tiles of K and V (16 KB together)
//      are loaded with 16-byte loads (8 per thread, all in flight; the next tile is prefetched
//      into registers while the current one is computed) into shared memory and read there by
//      all GS query heads of the slice, so each KV byte leaves DRAM once per group. Scores in
//      float32 (q pre-multiplied by scale * k_scale * log2 e, exp2), an online softmax per tile
//      through attn::SoftmaxState, P.V in float32. Split-KV (flash-decoding): the keys of a
//      sequence are cut into `splits` chunks chosen from the shape and the multiprocessor
//      count; each block writes an unnormalised partial and its softmax state, and the combine
//      kernel merges them with SoftmaxState::merge.
// The window is a range: keys max(0, len - W) .. len - 1 are split and loaded; nothing outside
// it is read. len = 0 gives an empty state and a zero output.
//
// Shape legend: B batch, S allocated keys, Hq / Hkv heads, G = Hq / Hkv, GS heads per slice
// (power of two <= 32), D = Dv head dim, N keys per tile, C keys per split (chunk), W window.
// Storage: bf16 or fp16 q/k/v; fp8 e4m3 k/v (one float32 scale each) with bf16 q.
// The runtime first: attention/softmax_state.h needs __host__/__device__ defined (HIP).
#include "kernels/hip_compat.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "attention/error.h"
#include "attention/softmax_state.h"
#include "kernels/gpu_check.h"
#include "kernels/grouped_device.h"
#include "kernels/grouped_launch.h"
#include "kernels/overrides.h"

namespace kern {
namespace {

using namespace gdev;

// ---- v2: tiled kernel ---------------------------------------------------------------------
template <class Kv, int D, int GS>
struct Tiled {
  using T = typename Kv::T;
  static constexpr int kVec = Kv::kVec;                             // elements per 16 bytes
  static constexpr int kCh = D / kVec;                              // 16-byte chunks per row
  static constexpr int kN = kTileBytes / (2 * D * int(sizeof(T)));  // keys per tile
  static constexpr int kTpk = kN >= kThreads ? 1 : kThreads / kN;   // phase 1 threads per key
  static constexpr int kKpt = kN >= kThreads ? kN / kThreads : 1;   // phase 1 keys per thread
  static constexpr int kChPerThread = kCh / kTpk;
  static constexpr int kKRow = D * int(sizeof(T)) + 16 * kTpk;  // padded K row (bytes)
  static constexpr int kVRow = D * int(sizeof(T));              // V row (bytes)
  static constexpr int kGsp = GS >= 8 ? GS + 4 : GS;            // score row stride (floats)
  static constexpr int kGt = GS < 64 / kVec ? GS : 64 / kVec;   // phase 2 heads per thread
  static constexpr int kHg = GS / kGt;                          // phase 2 head groups
  static constexpr int kKs = kThreads / (kCh * kHg);            // phase 2 key lanes
  static constexpr int kLoads = kTileBytes / 16 / kThreads;     // 16-byte loads per thread
  static constexpr int kKChunks = kN * kCh;                     // K chunks of a tile
  static constexpr int kStateBytes = GS * 16;
  static constexpr int kQBytes = GS * D * 4;
  static constexpr int kKBytes = kN * kKRow;
  static constexpr int kVBytes = kN * kVRow;
  static constexpr int kSBytes = kN * kGsp * 4;
  static constexpr int kWorkBytes = kQBytes + kKBytes + kVBytes + kSBytes;
  static constexpr int kRedBytes = (kKs - 1) * GS * D * 4;
  static constexpr int kSmem = kStateBytes + (kWorkBytes > kRedBytes ? kWorkBytes : kRedBytes);
  static_assert(kCh % kTpk == 0 && kChPerThread >= 1, "tile layout");
  static_assert(kKs >= 1 && kCh * kHg * kKs == kThreads, "phase 2 layout");
  static_assert(kKChunks * 2 == kLoads * kThreads, "tile loads");
  static_assert(kTpk <= kWarp, "a key's threads share a warp");
};

template <class Kv, int D, int GS>
__global__ void __launch_bounds__(kThreads) grouped_tiled_kernel(const Params p) {
  if (p.pdl) pdl_allow_dependents();  // the separate combine may be scheduled now
  using C = Tiled<Kv, D, GS>;
  using T = typename C::T;
  constexpr int kVec = C::kVec;
  extern __shared__ __align__(16) unsigned char smem[];
  float4* st = reinterpret_cast<float4*>(smem);                 // [GS] {max, sum, alpha, -}
  float* qs = reinterpret_cast<float*>(smem + C::kStateBytes);  // [GS][D]
  unsigned char* ks = smem + C::kStateBytes + C::kQBytes;       // [N][kKRow]
  unsigned char* vs = ks + C::kKBytes;                          // [N][kVRow]
  float* ss = reinterpret_cast<float*>(vs + C::kVBytes);        // [N][kGsp]
  float* red = qs;  // [kKs - 1][GS][D], after the last tile

  const int tid = threadIdx.x;
  const int split = blockIdx.x;
  const int hkv = blockIdx.y / p.slices;
  const int slice = blockIdx.y % p.slices;
  const int b = blockIdx.z;
  const int h0 = hkv * p.g + slice * GS;
  const int nh = min(GS, p.g - slice * GS);
  long long start, end;
  key_range(p, b, split, &start, &end);

  const T* qv = static_cast<const T*>(nullptr);
  (void)qv;
  const std::uint16_t* qp = static_cast<const std::uint16_t*>(p.q);
  for (int i = tid; i < GS * D; i += kThreads) {
    const int g = i / D, dd = i % D;
    float x = 0.0f;
    if (g < nh)
      x = q_elem(Kv{}, qp[(static_cast<long long>(b) * p.hq + h0 + g) * D + dd]) * p.q_mult;
    qs[i] = x;
  }
  if (tid < GS) st[tid] = make_float4(-INFINITY, 0.0f, 1.0f, 0.0f);
  __syncthreads();

  const int c2 = tid % C::kCh;
  const int hg = (tid / C::kCh) % C::kHg;
  const int ks2 = tid / (C::kCh * C::kHg);
  float acc[C::kGt][kVec];
#pragma unroll
  for (int gi = 0; gi < C::kGt; ++gi)
#pragma unroll
    for (int e = 0; e < kVec; ++e) acc[gi][e] = 0.0f;

  if (start < end) {
    const long long row_stride = static_cast<long long>(p.hkv) * D;
    const long long base = (static_cast<long long>(b) * p.seq * p.hkv + hkv) * D;
    const T* kbase = static_cast<const T*>(p.k) + base;
    const T* vbase = static_cast<const T*>(p.v) + base;
    const int ntiles = static_cast<int>((end - start + C::kN - 1) / C::kN);
    uint4 stage[C::kLoads];

    auto load = [&](int t) {
      const long long k0 = start + static_cast<long long>(t) * C::kN;
#pragma unroll
      for (int i = 0; i < C::kLoads; ++i) {
        const bool is_k = i < C::kLoads / 2;
        const int idx = tid + kThreads * i - (is_k ? 0 : C::kKChunks);
        const int r = idx / C::kCh, c = idx % C::kCh;
        const long long key = k0 + r;
        if (key < end)
          stage[i] =
              *reinterpret_cast<const uint4*>((is_k ? kbase : vbase) + key * row_stride + c * kVec);
        else
          stage[i] = make_uint4(0u, 0u, 0u, 0u);
      }
    };
    auto store = [&]() {
#pragma unroll
      for (int i = 0; i < C::kLoads; ++i) {
        const bool is_k = i < C::kLoads / 2;
        const int idx = tid + kThreads * i - (is_k ? 0 : C::kKChunks);
        const int r = idx / C::kCh, c = idx % C::kCh;
        if (is_k)
          *reinterpret_cast<uint4*>(ks + r * C::kKRow + c * 16) = stage[i];
        else
          *reinterpret_cast<uint4*>(vs + r * C::kVRow + c * 16) = stage[i];
      }
    };

    load(0);
    for (int t = 0; t < ntiles; ++t) {
      store();
      __syncthreads();
      if (t + 1 < ntiles) load(t + 1);  // in flight while this tile is computed
      const long long k0 = start + static_cast<long long>(t) * C::kN;

      // Phase 1: scores of the tile's keys for the slice's heads -> ss[key][head].
#pragma unroll
      for (int kk = 0; kk < C::kKpt; ++kk) {
        const int r = C::kKpt > 1 ? tid + kk * kThreads : tid / C::kTpk;
        const int part = C::kKpt > 1 ? 0 : tid % C::kTpk;
        float s[GS];
#pragma unroll
        for (int g = 0; g < GS; ++g) s[g] = 0.0f;
#pragma unroll
        for (int cc = 0; cc < C::kChPerThread; ++cc) {
          const int c = part + C::kTpk * cc;
          const uint4 raw = *reinterpret_cast<const uint4*>(ks + r * C::kKRow + c * 16);
          float kf[kVec];
          unpack(Kv{}, raw, kf);
#pragma unroll
          for (int g = 0; g < GS; ++g) {
            const float4* q4 = reinterpret_cast<const float4*>(qs + g * D + c * kVec);
#pragma unroll
            for (int e4 = 0; e4 < kVec / 4; ++e4) {
              const float4 qq = q4[e4];
              s[g] = fmaf(qq.x, kf[4 * e4], s[g]);
              s[g] = fmaf(qq.y, kf[4 * e4 + 1], s[g]);
              s[g] = fmaf(qq.z, kf[4 * e4 + 2], s[g]);
              s[g] = fmaf(qq.w, kf[4 * e4 + 3], s[g]);
            }
          }
        }
#pragma unroll
        for (int off = C::kTpk / 2; off >= 1; off /= 2)
#pragma unroll
          for (int g = 0; g < GS; ++g) s[g] += ATTNLAB_SHFL_XOR(s[g], off, C::kTpk);
        const bool valid = k0 + r < end;
#pragma unroll
        for (int g = 0; g < GS; ++g)
          if (g % C::kTpk == part) ss[r * C::kGsp + g] = valid ? s[g] : -INFINITY;
      }
      __syncthreads();

      // Softmax of the tile per head, merged into the running state; ss becomes P * scale_b.
      {
        constexpr int kWarps = kThreads / kWarp;
        constexpr int kPer = (C::kN + kWarp - 1) / kWarp;
        const int warp = tid / kWarp, lane = tid % kWarp;
        for (int g = warp; g < GS; g += kWarps) {
          float x[kPer];
          float m = -INFINITY;
#pragma unroll
          for (int i = 0; i < kPer; ++i) {
            const int r = lane + i * kWarp;
            x[i] = r < C::kN ? ss[r * C::kGsp + g] : -INFINITY;
            m = fmaxf(m, x[i]);
          }
          m = warp_max(m);  // finite: the tile's first key is valid
          float sum = 0.0f;
#pragma unroll
          for (int i = 0; i < kPer; ++i) {
            x[i] = exp2f(x[i] - m);
            sum += x[i];
          }
          sum = warp_sum(sum);
          const float4 run = st[g];
          attn::SoftmaxState<float> a, tile;
          a.max = run.x;
          a.sum = run.y;
          tile.max = m * kLn2;
          tile.sum = sum;
          float sa, sb;
          const attn::SoftmaxState<float> merged =
              attn::SoftmaxState<float>::merge(a, tile, &sa, &sb);
#pragma unroll
          for (int i = 0; i < kPer; ++i) {
            const int r = lane + i * kWarp;
            if (r < C::kN) ss[r * C::kGsp + g] = x[i] * sb;
          }
          if (lane == 0) st[g] = make_float4(merged.max, merged.sum, sa, 0.0f);
        }
      }
      __syncthreads();

      // Phase 2: acc[head][dims] = acc * alpha + sum_keys P * V.
#pragma unroll
      for (int gi = 0; gi < C::kGt; ++gi) {
        const float al = st[hg * C::kGt + gi].z;
#pragma unroll
        for (int e = 0; e < kVec; ++e) acc[gi][e] *= al;
      }
#pragma unroll 4
      for (int r = ks2; r < C::kN; r += C::kKs) {
        const uint4 raw = *reinterpret_cast<const uint4*>(vs + r * C::kVRow + c2 * 16);
        float vf[kVec];
        unpack(Kv{}, raw, vf);
        const float* pr = ss + r * C::kGsp + hg * C::kGt;
        float pp[C::kGt];
        if constexpr (C::kGt % 4 == 0) {
#pragma unroll
          for (int gi = 0; gi < C::kGt; gi += 4) {
            const float4 v4 = *reinterpret_cast<const float4*>(pr + gi);
            pp[gi] = v4.x;
            pp[gi + 1] = v4.y;
            pp[gi + 2] = v4.z;
            pp[gi + 3] = v4.w;
          }
        } else {
#pragma unroll
          for (int gi = 0; gi < C::kGt; ++gi) pp[gi] = pr[gi];
        }
#pragma unroll
        for (int gi = 0; gi < C::kGt; ++gi)
#pragma unroll
          for (int e = 0; e < kVec; ++e) acc[gi][e] = fmaf(pp[gi], vf[e], acc[gi][e]);
      }
      __syncthreads();
    }
  }

  // Sum the phase 2 key lanes, then write.
  if constexpr (C::kKs > 1) {
    if (ks2 > 0) {
#pragma unroll
      for (int gi = 0; gi < C::kGt; ++gi) {
        float* dst = red + ((ks2 - 1) * GS + hg * C::kGt + gi) * D + c2 * kVec;
#pragma unroll
        for (int e = 0; e < kVec; e += 4)
          *reinterpret_cast<float4*>(dst + e) =
              make_float4(acc[gi][e], acc[gi][e + 1], acc[gi][e + 2], acc[gi][e + 3]);
      }
    }
    __syncthreads();
    if (ks2 == 0) {
      for (int k = 0; k < C::kKs - 1; ++k) {
#pragma unroll
        for (int gi = 0; gi < C::kGt; ++gi) {
          const float* src = red + (k * GS + hg * C::kGt + gi) * D + c2 * kVec;
#pragma unroll
          for (int e = 0; e < kVec; e += 4) {
            const float4 v4 = *reinterpret_cast<const float4*>(src + e);
            acc[gi][e] += v4.x;
            acc[gi][e + 1] += v4.y;
            acc[gi][e + 2] += v4.z;
            acc[gi][e + 3] += v4.w;
          }
        }
      }
    }
  }
  if (ks2 == 0) {
#pragma unroll
    for (int gi = 0; gi < C::kGt; ++gi) {
      const int g = hg * C::kGt + gi;
      if (g < nh) {
        const float4 run = st[g];
        write_result(p, split, b, h0 + g, c2 * kVec, acc[gi], kVec, run.x, run.y, c2 == 0);
      }
    }
  }
}

// ---- v1: generic kernel ---------------------------------------------------------------------
__device__ float block_reduce(float x, bool is_max, float* scratch) {
  constexpr int kWarps = kThreads / kWarp;
  x = is_max ? warp_max(x) : warp_sum(x);
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  __syncthreads();  // scratch reuse
  if (lane == 0) scratch[warp] = x;
  __syncthreads();
  float r = scratch[0];
  for (int w = 1; w < kWarps; ++w) r = is_max ? fmaxf(r, scratch[w]) : r + scratch[w];
  return r;
}

template <class Kv>
__global__ void __launch_bounds__(kThreads) grouped_generic_kernel(const Params p) {
  if (p.pdl) pdl_allow_dependents();  // the separate combine may be scheduled now
  using T = typename Kv::T;
  extern __shared__ __align__(16) unsigned char smem[];
  float* qs = reinterpret_cast<float*>(smem);  // [D]
  float* ps = qs + p.d;                        // [kGenericKeys]
  float* scratch = ps + kGenericKeys;          // [warps]
  const int tid = threadIdx.x;
  const int split = blockIdx.x, hq = blockIdx.y, b = blockIdx.z;
  const int hkv = hq / p.g;
  long long start, end;
  key_range(p, b, split, &start, &end);
  const std::uint16_t* qp = static_cast<const std::uint16_t*>(p.q);
  for (int i = tid; i < p.d; i += kThreads)
    qs[i] = q_elem(Kv{}, qp[(static_cast<long long>(b) * p.hq + hq) * p.d + i]) * p.q_mult;
  __syncthreads();
  const T* kp = static_cast<const T*>(p.k);
  const T* vp = static_cast<const T*>(p.v);
  attn::SoftmaxState<float> run;
  float acc[kGenericDvPerThread];
  for (int i = 0; i < kGenericDvPerThread; ++i) acc[i] = 0.0f;
  for (long long k0 = start; k0 < end; k0 += kGenericKeys) {
    const long long key = k0 + tid;
    float s = -INFINITY;
    if (key < end) {
      const T* kr = kp + ((static_cast<long long>(b) * p.seq + key) * p.hkv + hkv) * p.d;
      s = 0.0f;
      for (int i = 0; i < p.d; ++i) s = fmaf(qs[i], elem(Kv{}, kr[i]), s);
    }
    const float m = block_reduce(s, true, scratch);
    const float e = key < end ? exp2f(s - m) : 0.0f;
    const float sum = block_reduce(e, false, scratch);
    attn::SoftmaxState<float> tile;
    tile.max = m * kLn2;
    tile.sum = sum;
    float sa, sb;
    run = attn::SoftmaxState<float>::merge(run, tile, &sa, &sb);
    ps[tid] = e * sb;
    __syncthreads();
    const int n = static_cast<int>(end - k0 < kGenericKeys ? end - k0 : kGenericKeys);
    for (int i = 0; i < kGenericDvPerThread; ++i) {
      const int dd = tid + i * kThreads;
      if (dd >= p.dv) break;
      float a = acc[i] * sa;
      for (int j = 0; j < n; ++j) {
        const T* vr = vp + ((static_cast<long long>(b) * p.seq + k0 + j) * p.hkv + hkv) * p.dv;
        a = fmaf(ps[j], elem(Kv{}, vr[dd]), a);
      }
      acc[i] = a;
    }
    __syncthreads();
  }
  for (int i = 0; i < kGenericDvPerThread; ++i) {
    const int dd = tid + i * kThreads;
    if (dd >= p.dv) break;
    write_result(p, split, b, hq, dd, &acc[i], 1, run.max, run.sum, dd == 0);
  }
}

// ---- combine ------------------------------------------------------------------------------
// Merges the splits' states and partial outputs: kVec consecutive dv of one row (b * Hq + hq)
// a thread over the flattened [rows, Dv] output, 256 threads a CTA (so a CTA covers several
// rows: on the H200 one 128-thread CTA a row took 7.4 us for MQA B64 S8192's 2048 rows and
// 4 splits). Eight splits' loads are issued before their merges (independent loads in flight;
// a dependent merge per load made the combine latency-bound). Past the last split the state is
// empty, which merges as the identity.
constexpr int kCombineThreads = 256;
template <int kVec>
__global__ void __launch_bounds__(kCombineThreads) grouped_combine_kernel(const Params p) {
  if (p.pdl) pdl_wait_primary();  // a dependent of the main kernel: its partials first
  const long long rows = static_cast<long long>(p.batch) * p.hq;
  const long long idx = (static_cast<long long>(blockIdx.x) * kCombineThreads + threadIdx.x) * kVec;
  if (idx >= rows * p.dv) return;
  const long long row = idx / p.dv;
  const int dd = static_cast<int>(idx - row * p.dv);
  using V = typename std::conditional<kVec == 4, float4, float>::type;
  attn::SoftmaxState<float> run;
  float acc[kVec] = {};
  constexpr int kAhead = 8;
  for (int s0 = 0; s0 < p.splits; s0 += kAhead) {
    float2 ps[kAhead];
    float pa[kAhead][kVec];
#pragma unroll
    for (int i = 0; i < kAhead; ++i) {
      const long long prow = static_cast<long long>(s0 + i) * rows + row;
      const bool in = s0 + i < p.splits;
      ps[i] = in ? p.part_state[prow] : make_float2(-INFINITY, 0.0f);
      V v{};
      if (in) v = *reinterpret_cast<const V*>(p.part_acc + prow * p.dv + dd);
      __builtin_memcpy(pa[i], &v, sizeof v);
    }
#pragma unroll
    for (int i = 0; i < kAhead; ++i) {
      attn::SoftmaxState<float> part;
      part.max = ps[i].x;
      part.sum = ps[i].y;
      float sa, sb;
      run = attn::SoftmaxState<float>::merge(run, part, &sa, &sb);
#pragma unroll
      for (int e = 0; e < kVec; ++e) acc[e] = acc[e] * sa + (sb != 0.0f ? pa[i][e] * sb : 0.0f);
    }
  }
  const float inv = run.inv_sum();
  float r[kVec];
#pragma unroll
  for (int e = 0; e < kVec; ++e) r[e] = acc[e] * inv;
  V o;
  __builtin_memcpy(static_cast<void*>(&o), r, sizeof o);  // V: HIP vector, trivially laid out
  *reinterpret_cast<V*>(p.out + row * p.dv + dd) = o;
}

// ---- host ---------------------------------------------------------------------------------
// The ticket-first split merge: on by default, ATTNLAB_GROUPED_TICKET=0 gives the
// count-after-write order (comparisons); read once, as pdl_enabled() reads ATTNLAB_PDL.
bool ticket_enabled() {
  static const bool on = read_overrides().grouped_ticket;
  return on;
}

template <class Kv, int D, int GS>
void launch_tiled(const Params& p, dim3 grid, hipStream_t stream) {
  using C = Tiled<Kv, D, GS>;
  auto kernel = grouped_tiled_kernel<Kv, D, GS>;
  if constexpr (C::kSmem > 48 * 1024) {
    static const bool raised = [&] {
      HIP_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                    hipFuncAttributeMaxDynamicSharedMemorySize, C::kSmem));
      return true;
    }();
    (void)raised;
  }
  kernel<<<grid, dim3(kThreads), C::kSmem, stream>>>(p);
}

template <class Kv, int D>
void launch_tiled_gs(int gs, const Params& p, dim3 grid, hipStream_t stream) {
  switch (gs) {
    case 1:
      return launch_tiled<Kv, D, 1>(p, grid, stream);
    case 2:
      return launch_tiled<Kv, D, 2>(p, grid, stream);
    case 4:
      return launch_tiled<Kv, D, 4>(p, grid, stream);
    case 8:
      return launch_tiled<Kv, D, 8>(p, grid, stream);
    case 16:
      return launch_tiled<Kv, D, 16>(p, grid, stream);
    default:
      return launch_tiled<Kv, D, 32>(p, grid, stream);
  }
}

template <class Kv>
void launch_kernels(const GroupedPlan& plan, const Params& p, hipStream_t stream) {
  if (plan.version == 5) {
#if defined(ATTNLAB_HAVE_SM90A)
    launch_grouped_wgmma(p, std::is_same<Kv, Fp16Kv>::value, plan.splits, plan.stages,
                         plan.warpgroups, stream);
#else
    throw attn::DeviceError("grouped decode v5 (wgmma) is not built for this target");
#endif
  } else if (plan.version == 6) {
    launch_grouped_tile(p, std::is_same<Kv, Fp16Kv>::value, plan.splits, stream);
  } else if (plan.version == 4) {
    launch_grouped_pipe(p, std::is_same<Kv, Fp16Kv>::value, plan.splits, plan.stages, plan.mtiles,
                        plan.tile_warps, plan.keys, stream);
  } else if (plan.version == 3) {
    launch_grouped_mma(p, std::is_same<Kv, Fp16Kv>::value, plan.splits, stream);
  } else if (plan.fast) {
    const dim3 grid(static_cast<unsigned>(plan.splits), static_cast<unsigned>(p.hkv * plan.slices),
                    static_cast<unsigned>(p.batch));
    switch (p.d) {
      case 64:
        launch_tiled_gs<Kv, 64>(plan.slice_heads, p, grid, stream);
        break;
      case 128:
        launch_tiled_gs<Kv, 128>(plan.slice_heads, p, grid, stream);
        break;
      default:
        launch_tiled_gs<Kv, 256>(plan.slice_heads, p, grid, stream);
        break;
    }
  } else {
    const dim3 grid(static_cast<unsigned>(plan.splits), static_cast<unsigned>(p.hq),
                    static_cast<unsigned>(p.batch));
    const std::size_t smem = (static_cast<std::size_t>(p.d) + kGenericKeys + 32) * sizeof(float);
    grouped_generic_kernel<Kv><<<grid, dim3(kThreads), smem, stream>>>(p);
  }
  HIP_CHECK_LAUNCH();
  if (plan.separate_combine()) {
    const long long elems = static_cast<long long>(p.batch) * p.hq * p.dv;
    const int vec = p.dv % 4 == 0 ? 4 : 1;
    const long long per_cta = static_cast<long long>(kCombineThreads) * vec;
    const dim3 grid(static_cast<unsigned>((elems + per_cta - 1) / per_cta));
    // Scheduled while the main kernel runs where p.pdl (kernels/dependent_launch.h), so that
    // its launch latency hides behind the main kernel's tail; else a plain launch.
    const dim3 block(kCombineThreads);
    if (vec == 4)
      launch_dependent(p.pdl, grouped_combine_kernel<4>, grid, block, 0, stream, p);
    else
      launch_dependent(p.pdl, grouped_combine_kernel<1>, grid, block, 0, stream, p);
    HIP_CHECK_LAUNCH();
  }
}

}  // namespace

void launch_grouped_decode(const GroupedDeviceArgs& a) {
  check_warp_size();
  const GroupedPlan plan = grouped_plan(a);
  Params p{};
  p.q = a.q;
  p.k = a.k;
  p.v = a.v;
  p.lens = a.lens;
  p.out = a.out;
  if (kDiag) p.timeline = static_cast<unsigned long long*>(a.timeline);
  if (plan.splits > 1) {
    if (!a.workspace) throw attn::DeviceError("grouped decode: split-KV needs a workspace");
    const WorkLayout w = work_layout(a, plan);
    unsigned char* base = static_cast<unsigned char*>(a.workspace);
    p.part_acc = reinterpret_cast<float*>(base + w.acc);
    p.part_state = reinterpret_cast<float2*>(base + w.state);
    p.counters = reinterpret_cast<unsigned*>(base + w.counters);
    p.fused = plan.fused_combine ? 1 : 0;
  }
  p.seq = a.seq;
  p.chunk = plan.chunk;
  p.batch = static_cast<int>(a.batch);
  p.hq = a.q_heads;
  p.hkv = a.kv_heads;
  p.g = a.q_heads / a.kv_heads;
  p.d = a.head_dim;
  p.dv = a.value_dim;
  p.window = a.window;
  p.splits = plan.splits;
  p.slices = plan.slices;
  p.cluster = plan.cluster;
  const bool fp8 = a.dt == attn::DType::kFp8;
  p.q_mult = a.scale * (fp8 ? a.k_scale : 1.0f) * kLog2e;
  p.v_scale = fp8 ? a.v_scale : 1.0f;
  if (kDiag && plan.version == 5) p.probe = read_overrides().grouped_probe;
  // v5's two-warpgroup merge takes tickets first (take_ticket, grouped_device.h); 16 bits of
  // arrivals a word. Set only where that merge runs (p.fused: split, fused).
  p.ticket = plan.version == 5 && plan.warpgroups == 2 && p.fused && plan.splits < 0xffff &&
             ticket_enabled();
  p.pdl = plan.separate_combine() && pdl_enabled();
  hipStream_t stream = static_cast<hipStream_t>(a.stream);
  switch (a.dt) {
    case attn::DType::kFp16:
      launch_kernels<Fp16Kv>(plan, p, stream);
      break;
    case attn::DType::kFp8:
      launch_kernels<Fp8Kv>(plan, p, stream);
      break;
    default:
      launch_kernels<Bf16Kv>(plan, p, stream);
      break;
  }
}

}  // namespace kern
