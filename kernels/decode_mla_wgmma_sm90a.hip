// MLA absorbed decode v5: 64 heads a CTA on Hopper's warpgroup matrix instructions (wgmma).
// NVIDIA sm_90a only (CMakeLists.txt builds this file for that target alone); bf16 or fp16 q
// and cache. Up to 16 heads take v6 (decode_mla_narrow_sm90a.hip); other targets and dtypes
// keep v1 / v4 (decode_mla.hip, decode_mla_slice.hip); the plan asks for v5 / v6 only on a
// compute capability 9.0 device.
//
// Why (kernels/DESIGN.md, section 4): with 128 heads the absorbed decode does 2 x 1088 FLOPs a head
// and token, ~146 GFLOP for H128 B64 S8192: compute-bound. v1 runs 16 or 32 heads a CTA on
// mma.sync, so each K/V tile crosses from L2 into shared memory 4-8 times and every 16-row
// fragment of it is loaded into registers again for each 16 heads; it measured 870 us (~170
// TFLOP/s). Here one 64-row wgmma reads each K/V tile from shared memory once for 64 heads.
//
// Shapes: q [B, H, 576], kv [B, S, 576] (keys = all 576 columns, values = the first 512), out
// [B, H, 512] float32 (or the split partials of MlaParams). CTA = (64-head tile, KV split, b),
// 256 threads = 2 warpgroups, 64 tokens a block, 2 stages of cp.async:
//   shared  Q 64 x 576 (9 swizzled 64 x 64 tiles, 72 KB, loaded once), 2 KV stages of 64 x 576
//           (72 KB each), P 64 x 64 (8 KB), per-row rescale factors and final states.
//   WG0     S = Q K^T (m64n64k16, 36 k-steps, both operands from shared memory); the online
//           softmax in registers (log2 units, 4 lanes a row); P (16-bit) to shared memory for
//           WG1 and kept in registers as its own A operand; O[:, 0:256] = O * alpha + P V
//           (m64n256k16, A from registers, V read MN-major straight from the KV stage).
//   WG1     waits for P (named barrier 1), O[:, 256:512] = O * alpha + P V (A from shared).
//   Each WG keeps its 64 x 256 fp32 accumulator in registers (128 a thread).
// Per block the CTA barrier at the top orders: block j has landed (cp.async wait, then the
// async-proxy fence wgmma's reads need), both warpgroups are done with block j - 1 and with P,
// so block j + 1 can be issued into the other stage.
#include "kernels/hip_compat.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "attention/error.h"
#include "kernels/dependent_launch.h"
#include "kernels/gpu_check.h"
#include "kernels/matrix_ops.h"
#include "kernels/mla_launch.h"
#include "kernels/mla_params.h"
#if defined(ATTNLAB_HIP_ON_CUDA)
#include "kernels/mla_wgmma.h"
#endif

namespace kern {

#if defined(ATTNLAB_HIP_ON_CUDA)
namespace {

using namespace mla_wg;

constexpr int kRows = 64;    // heads a CTA: one m64 tile
constexpr int kBlockN = 64;  // tokens a block
constexpr int kStages = 2;
constexpr int kBlockBytes = kKTiles * wg::kTileBytes;  // 73728: Q, or one KV stage
constexpr int kQ0 = 0;
constexpr int kKV0 = kQ0 + kBlockBytes;
constexpr int kP0 = kKV0 + kStages * kBlockBytes;
constexpr int kAlpha0 = kP0 + wg::kTileBytes;           // float [64]
constexpr int kState0 = kAlpha0 + kRows * 4;            // float2 [64]
constexpr int kSmemBytes = kState0 + kRows * 8 + 1024;  // + slack to align the base to 1024
static_assert(kSmemBytes <= 227 * 1024, "v5 shared memory");
static_assert(kRows == kBlockN, "one copy layout for Q and KV blocks");

__device__ __forceinline__ void bar_arrive_p() {
  asm volatile("bar.arrive 1, 256;\n" ::: "memory");
}

template <class T>
__global__ void __launch_bounds__(kThreads, 1) mla_wgmma_kernel(MlaParams p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if (p.pdl) pdl_allow_dependents();  // the split combine may be scheduled now
  extern __shared__ __align__(16) unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (wg::smem_addr(smem_raw) & 1023)) & 1023);
  const int tid = threadIdx.x, wgi = tid / 128, warp = (tid / 32) % 4, lane = tid % 32;
  const int g = lane / 4, c = lane % 4;
  const int r0 = 16 * warp + g;  // this thread's rows: r0 and r0 + 8 (in both warpgroups)

  const int tile = blockIdx.x % p.head_tiles;
  const int rest = blockIdx.x / p.head_tiles;
  const int split = rest % p.splits;
  const std::int64_t b = rest / p.splits;
  const int head0 = tile * kRows;
  const std::int64_t len = p.lens ? std::min<std::int64_t>(p.lens[b], p.seq) : p.seq;
  const std::int64_t t0 = split * p.split_len;
  const std::int64_t t1 = std::min<std::int64_t>(len, t0 + p.split_len);
  const int n_blocks = t1 > t0 ? static_cast<int>((t1 - t0 + kBlockN - 1) / kBlockN) : 0;

  if (n_blocks == 0) {  // empty split: an empty state (or zeros when there is no split)
    mla_write_empty_split(p, b, head0, kRows, split, tid, kThreads);
    return;
  }

  const std::uint16_t* kv_b = static_cast<const std::uint16_t*>(p.kv) + b * p.seq * kDk;
  const std::uint16_t* q_b = static_cast<const std::uint16_t*>(p.q) + b * p.heads * kDk;
  // Block j of this split -> stage j % 2 (rows past t1 zero-filled), by the kCopiers threads
  // whose index from the first copier is t.
  auto issue = [&](auto copiers, int j, int t) {
    const std::int64_t tb = t0 + std::int64_t(j) * kBlockN;
    copy_rows<decltype(copiers)::value>(smem + kKV0 + (j % kStages) * kBlockBytes, kv_b + tb * kDk,
                                        t1 - tb < kBlockN ? static_cast<int>(t1 - tb) : kBlockN, t);
  };
  {  // Q rows of this tile (zero rows past H) and block 0: one group
    copy_rows<kThreads>(smem + kQ0, q_b + head0 * kDk, p.heads - head0, tid);
    issue(std::integral_constant<int, kThreads>{}, 0, tid);
    mo::copy_commit();
  }
  // Later blocks are copied by WG1, which waits for P while WG0 computes Q K^T and the softmax
  // (probe 8: by all threads, as the first version).
  const bool all_copy = kDiag && (p.probe & 8);

  float o[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) o[i] = 0.f;
  float m_run[2] = {-INFINITY, -INFINITY}, l_run[2] = {0.f, 0.f};  // WG0: rows r0, r0 + 8
  const float sl2 = p.score_scale * 1.4426950408889634f;
  float* alpha_sh = reinterpret_cast<float*>(smem + kAlpha0);
  float2* state_sh = reinterpret_cast<float2*>(smem + kState0);
  const std::uint32_t q_s = wg::smem_addr(smem + kQ0), p_s = wg::smem_addr(smem + kP0);

  for (int j = 0; j < n_blocks; ++j) {
    mo::copy_wait<0>();
    wg::fence_async_smem();
    __syncthreads();  // block j landed; block j - 1's stage and P are no longer read
    if (j + 1 < n_blocks && !(kDiag && (p.probe & 4))) {
      if (all_copy)
        issue(std::integral_constant<int, kThreads>{}, j + 1, tid);
      else if (wgi == 1)
        issue(std::integral_constant<int, 128>{}, j + 1, tid - 128);
    }
    mo::copy_commit();
    const std::uint32_t kv_s = wg::smem_addr(smem + kKV0 + (j % kStages) * kBlockBytes);

    if (wgi == 0) {
      float s[32];
      if (kDiag && (p.probe & 1)) {
#pragma unroll
        for (int i = 0; i < 32; ++i) s[i] = 0.f;
      } else {
        wg::fence();
#pragma unroll
        for (int kk = 0; kk < kDk / 16; ++kk) {
          const std::uint32_t off = (kk >> 2) * wg::kTileBytes + (kk & 3) * 32;
          wg::mma_ss_m64n64k16<0>(T{}, s, wg::desc(q_s + off, 16, 1024),
                                  wg::desc(kv_s + off, 16, 1024), kk > 0);
        }
        wg::commit();
        wg::wait<0>();
        wg::pin(s);
      }

      // Online softmax, log2 units (m_run is scaled by sl2 > 0, the scores are not: the max
      // of the raw scores times sl2 is the max of the scaled ones, and p = 2^(s sl2 - m) is one
      // FFMA and one MUFU.EX2). s[4 jj + e]: row r0 + 8 (e / 2), token 8 jj + 2 c + e % 2.
      const std::int64_t tb = t0 + std::int64_t(j) * kBlockN;
      const bool full = tb + kBlockN <= t1;
      float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
      for (int jj = 0; jj < 8; ++jj)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const bool valid = full || tb + 8 * jj + 2 * c + (e & 1) < t1;
          const float x = valid ? s[4 * jj + e] : -INFINITY;
          s[4 * jj + e] = x;
          mx[e >> 1] = fmaxf(mx[e >> 1], x);
        }
      float al[2];
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        mx[r] = fmaxf(mx[r], ATTNLAB_SHFL_XOR(mx[r], 1, 32));
        mx[r] = fmaxf(mx[r], ATTNLAB_SHFL_XOR(mx[r], 2, 32));
        const float mn = fmaxf(m_run[r], mx[r] * sl2);  // finite: token tb is valid
        al[r] = wg::exp2_ftz(m_run[r] - mn);
        m_run[r] = mn;
      }
      std::uint32_t pa[4][4];  // A operand of k-step kk (tokens 16 kk ..): rows r0 / r0 + 8
      float ls[2] = {0.f, 0.f};
      // P for WG1: stmatrix.x4 a k-step, matrices (rows 16 warp + 0..7 | 8..15) x (chunks
      // 2 kk | 2 kk + 1); this lane addresses row prow of chunk 2 kk + pch.
      const int prow = 16 * warp + (lane & 7) + ((lane >> 3) & 1) * 8, pch = lane >> 4;
#pragma unroll
      for (int jj = 0; jj < 8; ++jj) {
        const float p0 = wg::exp2_ftz(fmaf(s[4 * jj + 0], sl2, -m_run[0]));
        const float p1 = wg::exp2_ftz(fmaf(s[4 * jj + 1], sl2, -m_run[0]));
        const float p2 = wg::exp2_ftz(fmaf(s[4 * jj + 2], sl2, -m_run[1]));
        const float p3 = wg::exp2_ftz(fmaf(s[4 * jj + 3], sl2, -m_run[1]));
        ls[0] += p0 + p1;
        ls[1] += p2 + p3;
        const std::uint32_t lo = mo::pack2<T>(p0, p1), hi = mo::pack2<T>(p2, p3);
        pa[jj >> 1][(jj & 1) * 2 + 0] = lo;
        pa[jj >> 1][(jj & 1) * 2 + 1] = hi;
        if (jj & 1) {
          const int kk = jj >> 1;
          wg::stmatrix_x4(p_s + wg::tile_offset(prow, 2 * kk + pch), pa[kk][0], pa[kk][1],
                          pa[kk][2], pa[kk][3]);
        }
      }
      l_run[0] = l_run[0] * al[0] + ls[0];
      l_run[1] = l_run[1] * al[1] + ls[1];
      if (c == 0) {
        alpha_sh[r0] = al[0];
        alpha_sh[r0 + 8] = al[1];
      }
      wg::fence_async_smem();  // P is read by WG1's wgmma
      bar_arrive_p();

      if (__any_sync(0xffffffffu, al[0] != 1.f || al[1] != 1.f)) {  // most blocks: no max moved
#pragma unroll
        for (int jj = 0; jj < 32; ++jj) {
          o[4 * jj + 0] *= al[0];
          o[4 * jj + 1] *= al[0];
          o[4 * jj + 2] *= al[1];
          o[4 * jj + 3] *= al[1];
        }
      }
      if (!(kDiag && (p.probe & 2))) {
        wg::fence();
#pragma unroll
        for (int kk = 0; kk < kBlockN / 16; ++kk)
          wg::mma_rs_m64n256k16<1>(T{}, o, pa[kk],
                                   wg::desc(kv_s + kk * 16 * 128, wg::kTileBytes, 1024), 1);
        wg::commit();
        wg::wait<0>();
        wg::pin(o);
      }
    } else {
      bar_sync_p();  // P and alpha of block j are in shared memory
      const float a0 = alpha_sh[r0], a1 = alpha_sh[r0 + 8];
      if (__any_sync(0xffffffffu, a0 != 1.f || a1 != 1.f)) {
#pragma unroll
        for (int jj = 0; jj < 32; ++jj) {
          o[4 * jj + 0] *= a0;
          o[4 * jj + 1] *= a0;
          o[4 * jj + 2] *= a1;
          o[4 * jj + 3] *= a1;
        }
      }
      if (!(kDiag && (p.probe & 2))) {
        wg::fence();
#pragma unroll
        for (int kk = 0; kk < kBlockN / 16; ++kk)
          wg::mma_ss_m64n256k16<1>(
              T{}, o, wg::desc(p_s + kk * 32, 16, 1024),
              wg::desc(kv_s + 4 * wg::kTileBytes + kk * 16 * 128, wg::kTileBytes, 1024), 1);
        wg::commit();
        wg::wait<0>();
        wg::pin(o);
      }
    }
  }

  // Epilogue: WG0's row states to shared memory, then each warpgroup writes its 256 columns.
  if (wgi == 0) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      l_run[r] += ATTNLAB_SHFL_XOR(l_run[r], 1, 32);
      l_run[r] += ATTNLAB_SHFL_XOR(l_run[r], 2, 32);
    }
    if (c == 0) {
      state_sh[r0] = make_float2(m_run[0] * 0.6931471805599453f, l_run[0]);
      state_sh[r0 + 8] = make_float2(m_run[1] * 0.6931471805599453f, l_run[1]);
    }
  }
  __syncthreads();
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = r0 + 8 * r, h = head0 + row;
    if (h >= p.heads) continue;
    const float2 st = state_sh[row];
    const std::int64_t bh = b * p.heads + h;
    if (p.splits > 1 && wgi == 0 && c == 0) p.part_state[bh * p.splits + split] = st;
    const float mul = p.splits == 1 ? (st.y > 0.f ? p.out_scale / st.y : 0.f) : p.out_scale;
    float* dst = p.splits == 1 ? p.out + bh * kDl : p.part_acc + (bh * p.splits + split) * kDl;
#pragma unroll
    for (int jj = 0; jj < 32; ++jj) {
      const int col = 256 * wgi + 8 * jj + 2 * c;
      *reinterpret_cast<float2*>(dst + col) =
          make_float2(o[4 * jj + 2 * r] * mul, o[4 * jj + 2 * r + 1] * mul);
    }
  }
#else
  __trap();  // built only for sm_90a; the host never launches it elsewhere
#endif
}

template <class T>
MlaKernelFn prepared(int* smem_bytes, int* threads, int* per_sm) {
  MlaKernelFn fn = mla_wgmma_kernel<T>;
  static const int occupancy = resident_blocks(fn, kThreads, kSmemBytes);  // once an instantiation
  *smem_bytes = kSmemBytes;
  *threads = kThreads;
  *per_sm = occupancy;
  return fn;
}

}  // namespace

MlaKernelFn mla_wgmma_kernel_for(attn::DType dt, const MlaKernelChoice& c, int* smem_bytes,
                                 int* threads, int* per_sm) {
  if (c.head_groups != 4 || c.block_n != 64 || c.stages != 2)
    throw attn::DeviceError("MLA decode v5: no kernel for head_groups " +
                            std::to_string(c.head_groups) + ", block_n " +
                            std::to_string(c.block_n) + ", stages " + std::to_string(c.stages) +
                            " (v5 has head_groups 4, block_n 64, stages 2)");
  if (dt != attn::DType::kBf16 && dt != attn::DType::kFp16)
    throw attn::DeviceError("MLA decode v5: dtype " + std::string(attn::dtype_name(dt)) +
                            " is not supported (bf16 or fp16 caches)");
  if (!device_is_sm90())
    throw attn::DeviceError("MLA decode v5 needs a compute capability 9.0 GPU (H100 / H200)");
  return dt == attn::DType::kFp16 ? prepared<mo::Fp16>(smem_bytes, threads, per_sm)
                                  : prepared<mo::Bf16>(smem_bytes, threads, per_sm);
}

#endif  // ATTNLAB_HIP_ON_CUDA

}  // namespace kern
