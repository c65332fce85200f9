// Grouped decode v4: v3's per-warp mma loop fed by a cp.async pipeline in shared memory
// instead of one step of register prefetch. NVIDIA only (sm_80+), bf16 or fp16 q/k/v,
// D = Dv in {64, 128}; other targets and dtypes take v2/v1 (decode_grouped.hip), and v3
// (decode_grouped_mma.hip) stays for comparisons (ATTNLAB_GROUPED_VERSION=3).
//
// Why (kernels/DESIGN.md, section 3): v3 holds the next 16-key block in 64 registers, so each
// warp has one block (8 KB) in flight and every step of a short split waits a full memory
// latency; its 206 registers leave 2 blocks (8 warps) per SM. Here
//   - each warp owns NS stages of 16 keys (K and V rows, 16 x (D + 8) halves each) in shared
//     memory and keeps NS - 1 blocks in flight while it computes one: a split of <= 4 blocks a
//     warp is issued at once with NS = 4;
//   - the prefetch registers are gone (~130 registers for MT = 1), so 3 blocks (12 warps) fit
//     an SM at NS = 2;
//   - MT m-tiles of 16 query heads share each K/V fragment: MT = 2 runs MQA's 32 heads of one
//     kv head in one warp, reading the tile once (v3 used two slices, the second from L2).
// Rows are padded to D + 8 halves (272 bytes for D = 128): the 8 rows one ldmatrix reads start
// 4 banks apart, so both the K (ldmatrix) and V (ldmatrix.trans) reads are conflict-free.
// Operands come through matrix_ops.h (ldmatrix, mma.sync m16n8k16, cp.async); S's accumulator
// layout is the A layout of P V, so P never leaves registers.
// Shape legend: B batch, S keys, G = Hq / Hkv, 16 MT heads a slice (G < 16 MT pads with zero
// queries, never written), D = Dv head dim, KB = 16 or 32 keys per warp step
// (32: two 16-key groups sharing a step's wait, barriers and softmax reductions; the plan takes
// it for the wt2 MQA layout), 4 warps a block.
#include "kernels/hip_compat.h"
#include <cstdint>
#include <string>
#include <type_traits>

#include "attention/error.h"
#include "attention/softmax_state.h"
#include "kernels/gpu_check.h"
#include "kernels/grouped_device.h"
#include "kernels/matrix_ops.h"

namespace kern {
namespace gdev {

#if defined(ATTNLAB_HIP_ON_CUDA)
namespace {

constexpr int kPipeWarps = 4;

// WT warps share one pipeline (and split its copies): kPipeWarps / WT pipelines a block.
template <int D, int NS, int WT, int KB>
constexpr int pipe_smem_bytes() {
  return kPipeWarps / WT * NS * 2 * KB * (D + 8) * 2;  // pipelines x stages x (K, V) x keys x row
}
// Blocks per SM the launch bounds aim at: what the shared memory allows, 3 at most (the
// register budget of 168 a thread for MT = 1; MT = 2 needs ~230, so 2).
template <int D, int NS, int MT, int WT, int KB>
constexpr int pipe_min_blocks() {
  constexpr int by_smem = (227 * 1024) / (pipe_smem_bytes<D, NS, WT, KB>() + 1024);
  constexpr int by_regs = MT == 1 ? 3 : 2;
  return by_smem < by_regs ? (by_smem < 1 ? 1 : by_smem) : by_regs;
}

// A pipeline's WT warps meet at named barrier 1 + pipeline (0 is __syncthreads'); WT = 1 needs
// only the warp's own order.
template <int WT>
__device__ __forceinline__ void pipe_sync(int pipe) {
  if constexpr (WT == 1) {
    __syncwarp();
  } else {
    asm volatile("bar.sync %0, %1;\n" ::"r"(1 + pipe), "r"(32 * WT) : "memory");
  }
}

// KB keys a step (16, or 32 with MT = 1: two 16-key groups share each step's barriers, waits
// and softmax reductions).
template <bool kFp16, int D, int NS, int MT, int WT, int KB>
__global__ void __launch_bounds__(128, (pipe_min_blocks<D, NS, MT, WT, KB>()))
    grouped_pipe_kernel(const Params p) {
  if (p.pdl) pdl_allow_dependents();  // the separate combine may be scheduled now
  using Tag = typename std::conditional<kFp16, mo::Fp16, mo::Bf16>::type;
  constexpr int kLd = D + 8;               // row stride in halves
  constexpr int kKS = D / 16;              // QK k-steps = PV n-tiles
  constexpr int kPipes = kPipeWarps / WT;  // pipelines a block, each walking its own blocks
  constexpr int kWRows = 16 * MT;          // heads a warp
  constexpr int kRows = kWRows * WT;       // heads a slice
  constexpr int kNG = KB / 16;             // 16-key groups a step
  static_assert(KB % 16 == 0 && (KB == 16 || MT == 1), "KB 16, or 32 with one m-tile");
  constexpr int kStage = 2 * KB * kLd;  // halves a stage: K rows then V rows
  constexpr int kChunks = D / 8;        // 16-byte chunks a row
  extern __shared__ __align__(16) unsigned char pipe_smem[];
  __shared__ float2 st_sh[kPipes][kRows];

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int pipe = warp / WT, sub = warp % WT;  // this warp's pipeline, its part of the heads
  const int g = lane / 4, t = lane % 4;
  const int slice = blockIdx.x % p.slices;
  const int split = blockIdx.x / p.slices;
  const int hkv = blockIdx.y;
  const int b = blockIdx.z;
  const int h0 = hkv * p.g + slice * kRows;
  const int nh = min(kRows, p.g - slice * kRows);
  long long start, end;
  key_range(p, b, split, &start, &end);
  const int nblk = start < end ? static_cast<int>((end - start + KB - 1) / KB) : 0;

  std::uint16_t* stages = reinterpret_cast<std::uint16_t*>(pipe_smem) + pipe * NS * kStage;
  const long long row_stride = static_cast<long long>(p.hkv) * D;
  const long long base = (static_cast<long long>(b) * p.seq * p.hkv + hkv) * D;
  const std::uint16_t* kg = static_cast<const std::uint16_t*>(p.k) + base;
  const std::uint16_t* vg = static_cast<const std::uint16_t*>(p.v) + base;

  // Block blk (KB keys from start + KB blk) -> stage s. Keys past the end are zero-filled (a
  // zero V row times a zero probability stays 0 even where the memory holds NaN); their
  // source address is clamped to `start`, which is mapped. The WT warps of a pipeline copy
  // alternate 32-chunk parts. A lane's chunk column and first row are fixed for the whole walk
  // (row r0 + kRowsI i, chunk c0), so a full block's copy is one pointer plus a multiple of a
  // per-kernel stride, with no division or clamp per chunk (MLA v3/v4 gained 5 % from the same
  // change).
  constexpr int kRowsI = 32 * WT / kChunks;  // rows apart of a lane's successive copies
  static_assert(32 % kChunks == 0 && KB % kRowsI == 0, "copy layout");
  const int r0 = 32 * sub / kChunks + lane / kChunks, c0 = lane % kChunks;
  const int dst0 = r0 * kLd + 8 * c0;
  const long long step_i = kRowsI * row_stride;  // elements between a lane's copies
  auto issue = [&](int blk, int s) {
    std::uint16_t* ks = stages + s * kStage + dst0;
    std::uint16_t* vs = ks + KB * kLd;
    const long long k0 = start + static_cast<long long>(KB) * blk;
    if (k0 + KB <= end) {  // a full block: every row valid
      const long long off = (k0 + r0) * row_stride + 8 * c0;
      const std::uint16_t* kp = kg + off;
      const std::uint16_t* vp = vg + off;
#pragma unroll
      for (int i = 0; i < KB / kRowsI; ++i) {
        mo::copy16(ks + kRowsI * i * kLd, kp + i * step_i, true);
        mo::copy16(vs + kRowsI * i * kLd, vp + i * step_i, true);
      }
    } else {
#pragma unroll
      for (int i = 0; i < KB / kRowsI; ++i) {
        const int r = r0 + kRowsI * i;
        const bool ok = k0 + r < end;
        const long long off = (ok ? k0 + r : start) * row_stride + 8 * c0;
        mo::copy16(ks + kRowsI * i * kLd, kg + off, ok);
        mo::copy16(vs + kRowsI * i * kLd, vg + off, ok);
      }
    }
  };
  // Prologue: NS - 1 blocks of this pipeline in flight (one commit group each, empty past the
  // end, so that wait_group counts stay uniform).
#pragma unroll
  for (int s = 0; s < NS - 1; ++s) {
    if (pipe + s * kPipes < nblk) issue(pipe + s * kPipes, s);
    mo::copy_commit();
  }

  // Q fragments (A layout: r0 = Q[g][16 kb + 2t..], r1 = row g + 8, r2/r3 the same at + 8),
  // zero for padding rows. Loaded while the first copies are in flight.
  const std::uint16_t* qp = static_cast<const std::uint16_t*>(p.q);
  mo::FragA qf[MT][kKS];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
    const int ra = kWRows * sub + 16 * mt + g, rb = ra + 8;
    const std::uint32_t* qa = reinterpret_cast<const std::uint32_t*>(
        qp + (static_cast<long long>(b) * p.hq + h0 + ra) * D);
    const std::uint32_t* qb = qa + 4 * D;  // 8 rows further, in 32-bit words
#pragma unroll
    for (int kb = 0; kb < kKS; ++kb) {
      qf[mt][kb].r[0] = ra < nh ? qa[8 * kb + t] : 0u;
      qf[mt][kb].r[2] = ra < nh ? qa[8 * kb + t + 4] : 0u;
      qf[mt][kb].r[1] = rb < nh ? qb[8 * kb + t] : 0u;
      qf[mt][kb].r[3] = rb < nh ? qb[8 * kb + t + 4] : 0u;
    }
  }

  mo::FragC o[MT][kKS];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nt = 0; nt < kKS; ++nt) mo::zero(o[mt][nt]);
  float m_run[MT][2], l_run[MT][2];  // running max (log2 units) of rows g, g + 8; this lane's sums
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
    m_run[mt][0] = m_run[mt][1] = -INFINITY;
    l_run[mt][0] = l_run[mt][1] = 0.0f;
  }

  int stage = 0;
  for (int blk = pipe; blk < nblk; blk += kPipes) {
    // Refill the stage read one step ago (the pipeline barrier at the end of that step ordered
    // it).
    {
      const int ahead = blk + (NS - 1) * kPipes;
      const int s = stage + NS - 1 < NS ? stage + NS - 1 : stage - 1;
      if (ahead < nblk) issue(ahead, s);
      mo::copy_commit();
    }
    mo::copy_wait<NS - 1>();
    pipe_sync<WT>(pipe);  // every warp's copies of this stage have landed
    const std::uint16_t* ks = stages + stage * kStage;
    const std::uint16_t* vs = ks + KB * kLd;

    // S = Q K^T for KB keys (kNG groups of 16); even and odd k-steps in separate accumulators
    // (more independent mma chains, as v3).
    mo::FragC s[MT][kNG], s2[MT][kNG];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int n = 0; n < kNG; ++n) {
        mo::zero(s[mt][n]);
        mo::zero(s2[mt][n]);
      }
#pragma unroll
    for (int kb = 0; kb < kKS; ++kb) {
#pragma unroll
      for (int n = 0; n < kNG; ++n) {
        mo::FragB kf;
        mo::load_b_nk(kf, ks + 16 * n * kLd + 16 * kb, kLd, lane);
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
          mo::mma<Tag>(MT == 1 && kb % 2 ? s2[mt][n] : s[mt][n], qf[mt][kb], kf);
      }
    }

    // Online softmax (log2 units). Element i of a C fragment of group n: row g + 8
    // ((i & 3) >> 1), key 16 n + 8 (i >> 2) + 2t + (i & 1).
    const long long k0 = start + static_cast<long long>(KB) * blk;
    const bool full = k0 + KB <= end;
    mo::FragA pa[MT][kNG];
    bool moved = false;
    float al[MT][2];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
      for (int n = 0; n < kNG; ++n)
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          const bool valid = full || k0 + 16 * n + 8 * (i >> 2) + 2 * t + (i & 1) < end;
          const float x = valid ? (s[mt][n].v[i] + s2[mt][n].v[i]) * p.q_mult : -INFINITY;
          s[mt][n].v[i] = x;
          mx[(i & 3) >> 1] = fmaxf(mx[(i & 3) >> 1], x);
        }
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1, 32));
        mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2, 32));
        const float mn = fmaxf(m_run[mt][r], mx[r]);  // finite: key k0 is valid
        al[mt][r] = exp2f(m_run[mt][r] - mn);
        moved = moved || al[mt][r] != 1.0f;
        m_run[mt][r] = mn;
      }
      float l0 = 0.0f, l1 = 0.0f;
#pragma unroll
      for (int n = 0; n < kNG; ++n) {
        float pr[8];
#pragma unroll
        for (int i = 0; i < 8; ++i) pr[i] = exp2f(s[mt][n].v[i] - m_run[mt][(i & 3) >> 1]);
        l0 += pr[0] + pr[1] + pr[4] + pr[5];
        l1 += pr[2] + pr[3] + pr[6] + pr[7];
        pa[mt][n].r[0] = mo::pack2<Tag>(pr[0], pr[1]);
        pa[mt][n].r[1] = mo::pack2<Tag>(pr[2], pr[3]);
        pa[mt][n].r[2] = mo::pack2<Tag>(pr[4], pr[5]);
        pa[mt][n].r[3] = mo::pack2<Tag>(pr[6], pr[7]);
      }
      l_run[mt][0] = l_run[mt][0] * al[mt][0] + l0;
      l_run[mt][1] = l_run[mt][1] * al[mt][1] + l1;
    }
    // O = O * alpha + P V; the rescale is skipped while no row's max moved (most steps).
    if (__any_sync(0xffffffffu, moved)) {
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int nt = 0; nt < kKS; ++nt)
#pragma unroll
          for (int i = 0; i < 8; ++i) o[mt][nt].v[i] *= al[mt][(i & 3) >> 1];
    }
#pragma unroll
    for (int n = 0; n < kNG; ++n)
#pragma unroll
      for (int nt = 0; nt < kKS; ++nt) {
        mo::FragB vf;
        mo::load_b_kn(vf, vs + 16 * n * kLd + 16 * nt, kLd, lane);
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) mo::mma<Tag>(o[mt][nt], pa[mt][n], vf);
      }
    pipe_sync<WT>(pipe);  // every lane's reads of this stage are done before it is refilled
    stage = stage + 1 < NS ? stage + 1 : 0;
  }
  mo::copy_wait<0>();
  __syncthreads();  // the stages are free: they hold the per-warp outputs now

  // Per-pipeline states (O un-permuted) to shared memory, then the pipelines merged.
  float* o_sh = reinterpret_cast<float*>(pipe_smem);  // [pipe][kRows][D]
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float l = l_run[mt][r];
      l += __shfl_xor_sync(0xffffffffu, l, 1, 32);
      l += __shfl_xor_sync(0xffffffffu, l, 2, 32);
      l_run[mt][r] = l;
    }
#pragma unroll
    for (int nt = 0; nt < kKS; ++nt)
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int row = kWRows * sub + 16 * mt + g + 8 * ((i & 3) >> 1);
        const int col = 16 * nt + 8 * (i >> 2) + 2 * t + (i & 1);
        o_sh[(pipe * kRows + row) * D + col] = o[mt][nt].v[i];
      }
    if (t == 0) {
#pragma unroll
      for (int r = 0; r < 2; ++r)
        st_sh[pipe][kWRows * sub + 16 * mt + g + 8 * r] =
            make_float2(l_run[mt][r] > 0.0f ? m_run[mt][r] * kLn2 : -INFINITY, l_run[mt][r]);
    }
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < nh * D; idx += 128) {
    const int row = idx / D, dd = idx % D;
    attn::SoftmaxState<float> run;
    float acc = 0.0f;
#pragma unroll
    for (int w = 0; w < kPipes; ++w) {
      attn::SoftmaxState<float> part;
      part.max = st_sh[w][row].x;
      part.sum = st_sh[w][row].y;
      float sa, sb;
      run = attn::SoftmaxState<float>::merge(run, part, &sa, &sb);
      acc = acc * sa + (sb != 0.0f ? o_sh[(w * kRows + row) * D + dd] * sb : 0.0f);
    }
    write_result(p, split, b, h0 + row, dd, &acc, 1, run.max, run.sum, dd == 0);
  }
  if (p.fused && p.splits > 1) {
    __syncthreads();  // o_sh is free again: it holds the combine's weights
    combine_if_last(p, b, (b * p.hkv + hkv) * p.slices + slice, h0, nh, o_sh);
  }
}

template <bool kFp16, int D, int NS, int MT, int WT, int KB>
struct PipeLaunch {
  static constexpr int kSmem = pipe_smem_bytes<D, NS, WT, KB>();
  static void prepare() {  // once per instantiation: the opt-in above 48 KB
    static const bool done = [] {
      HIP_CHECK(hipFuncSetAttribute(
          reinterpret_cast<const void*>(grouped_pipe_kernel<kFp16, D, NS, MT, WT, KB>),
          hipFuncAttributeMaxDynamicSharedMemorySize, kSmem));
      return true;
    }();
    (void)done;
  }
  static int blocks_per_sm() {  // 0 where the tile exceeds the device's shared memory a block
    static const int n = resident_blocks(grouped_pipe_kernel<kFp16, D, NS, MT, WT, KB>, 128, kSmem);
    return n;
  }
  static void launch(const Params& p, dim3 grid, hipStream_t stream) {
    prepare();
    grouped_pipe_kernel<kFp16, D, NS, MT, WT, KB><<<grid, dim3(128), kSmem, stream>>>(p);
  }
};

// The configurations built: D in {64, 128} x stages {2, 3, 4} x layouts {16 heads a warp,
// 32 heads a warp (MT 2), 32 heads a warp pair (WT 2)}, bf16 / fp16, 16 keys a step; and 32
// keys a step for D = 128 with MT 1 at 2 or 3 stages (ATTNLAB_GROUPED_KEYS; 4 stages of 32
// keys do not fit).
template <bool kFp16, int D, int MT, int WT, class F>
void with_stages(int s, int keys, F&& f) {
  if constexpr (D == 128 && MT == 1) {
    if (keys == 32) {
      if (s == 2)
        f(PipeLaunch<kFp16, D, 2, MT, WT, 32>{});
      else
        f(PipeLaunch<kFp16, D, 3, MT, WT, 32>{});
      return;
    }
  }
  if (s == 2)
    f(PipeLaunch<kFp16, D, 2, MT, WT, 16>{});
  else if (s == 3)
    f(PipeLaunch<kFp16, D, 3, MT, WT, 16>{});
  else
    f(PipeLaunch<kFp16, D, 4, MT, WT, 16>{});
}
template <bool kFp16, int D, class F>
void with_config(int stages, int mtiles, int tile_warps, int keys, F&& f) {
  const int s = stages < 2 ? 2 : (stages > 4 ? 4 : stages);
  if (tile_warps == 2)
    with_stages<kFp16, D, 1, 2>(s, keys, f);
  else if (mtiles == 2)
    with_stages<kFp16, D, 2, 1>(s, keys, f);
  else
    with_stages<kFp16, D, 1, 1>(s, keys, f);
}
template <class F>
void with_config(bool fp16, int d, int stages, int mtiles, int tile_warps, int keys, F&& f) {
  if (fp16) {
    if (d == 64)
      with_config<true, 64>(stages, mtiles, tile_warps, keys, f);
    else
      with_config<true, 128>(stages, mtiles, tile_warps, keys, f);
  } else {
    if (d == 64)
      with_config<false, 64>(stages, mtiles, tile_warps, keys, f);
    else
      with_config<false, 128>(stages, mtiles, tile_warps, keys, f);
  }
}

}  // namespace

bool pipe_supported(int d, int dv, bool fp16_or_bf16) {
  return fp16_or_bf16 && d == dv && (d == 64 || d == 128);
}

bool pipe_keys_supported(int d, int stages, int mtiles, int keys) {
  return keys == 16 || (keys == 32 && d == 128 && mtiles == 1 && stages <= pipe_max_stages(32));
}

int pipe_blocks_per_sm(bool fp16, int d, int stages, int mtiles, int tile_warps, int keys) {
  int n = 0;
  with_config(fp16, d, stages, mtiles, tile_warps, keys,
              [&](auto cfg) { n = decltype(cfg)::blocks_per_sm(); });
  return n < 1 ? 1 : n;
}

void launch_grouped_pipe(const Params& p, bool fp16, int splits, int stages, int mtiles,
                         int tile_warps, int keys, hipStream_t stream) {
  if (!pipe_keys_supported(p.d, stages, mtiles, keys))
    throw attn::DeviceError("grouped decode v4: no kernel with " + std::to_string(keys) +
                            " keys a step for D " + std::to_string(p.d) + ", " +
                            std::to_string(stages) + " stages, " + std::to_string(mtiles) +
                            " m-tiles (32 keys: D 128, one m-tile, 2 or 3 stages)");
  const dim3 grid(static_cast<unsigned>(splits * p.slices), static_cast<unsigned>(p.hkv),
                  static_cast<unsigned>(p.batch));
  with_config(fp16, p.d, stages, mtiles, tile_warps, keys,
              [&](auto cfg) { decltype(cfg)::launch(p, grid, stream); });
  HIP_CHECK_LAUNCH();
}

#else  // AMD: not built (no MFMA port of this loop); the plan never asks for it.

bool pipe_supported(int, int, bool) { return false; }
bool pipe_keys_supported(int, int, int, int) { return false; }
int pipe_blocks_per_sm(bool, int, int, int, int, int) { return 1; }
void launch_grouped_pipe(const Params&, bool, int, int, int, int, int, hipStream_t) {
  throw attn::DeviceError("grouped decode v4 (cp.async pipeline) is not built for this target");
}

#endif

}  // namespace gdev
}  // namespace kern
