// MLA absorbed decode on the matrix units (mma.sync on NVIDIA, MFMA on AMD; kernels/matrix_ops.h).
//
// Shapes (docs/DESIGN.md section 2; Dl = 512 latent, Dr = 64 RoPE, Dk = Dl + Dr = 576):
//   q   [B, H, Dk]   bf16 (fp16 when dt == kFp16; bf16 with an fp8 cache)
//   kv  [B, S, Dk]   bf16 / fp16 / fp8 e4m3 (value = e4m3 * kv_scale); keys = all Dk columns,
//                    values = the first Dl columns
//   out [B, H, Dl]   float32;  out[b, h] = softmax(scale * q[b, h] . kv[b, t]) over t < len[b]
//                    applied to kv[b, t, :Dl]; len 0 gives zeros.
//
// Versions
//   v1 (this file): one CTA per (head tile of 16 * HG heads, KV split, batch), 4 warps per group
//      of 16 heads. Per block of N tokens staged in shared memory (cp.async, 2+ stages):
//        Q K^T   warp w of a group takes dims [144 w, 144 w + 144) of all N tokens, Q fragments
//                held in registers; the 4 partial score tiles are summed in shared memory;
//        softmax each row by kWarp / 4 threads through attn::SoftmaxState (online, per block);
//                P stored as 16-bit in shared memory;
//        P V     warp w owns output dims [128 w, 128 w + 128) of its 16 heads.
//      fp8 caches are staged raw and converted to bf16 in shared memory once per block.
//      Split-KV: the launcher picks the number of splits from B, the head tiles, S and the
//      multiprocessor count; partial (max, sum, unnormalised output) go to the workspace and a
//      combine kernel merges them with SoftmaxState::merge.
//   v2: v1's two options (MlaKernelChoice), both measured faster and now the defaults:
//      combine = 2: the split states merged in parallel, then independent weighted loads;
//      fp8_fp16: e4m3 -> fp16 (one conversion per pair) and fp16 MMA, Q rows scaled by 2^e.
//   v3 / v4 (decode_mla_slice.hip): a cp.async pipeline per warp over its own column slice,
//      fp8 converted in registers; v4 splits the softmax rows over the warps.
//   v5 (decode_mla_wgmma_sm90a.hip): 64 heads a CTA on Hopper's wgmma, 16-bit caches.
//   v6 (decode_mla_narrow_sm90a.hip): <= 16 heads a CTA on wgmma with the tokens as the 64 rows
//   (S^T = K Q^T,
//      O^T = V^T P^T), 16-bit caches.
//   v7 (decode_mla_fp8_sm90a.hip): v6's products for fp8 caches: Q K^T as e4m3 x e4m3 wgmma
//      (Q split into two e4m3 terms), P V on fp16 wgmma with V converted in registers.
//   The plan takes v6 (H <= 16) or v5 for 16-bit caches and v7 for fp8 caches on a compute
//   capability 9.0 GPU; elsewhere v4 for fp8 caches of >= 64 Ki tokens, v1 for the rest.
//   The plan (version, choice, splits) and the launch: kernels/mla_plan.hip.
//   Floors, the plan's reasons and the measured figures: kernels/DESIGN.md, section 4.
#include "kernels/hip_compat.h"  // first: the runtime defines __forceinline__ for softmax_state.h

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include "attention/error.h"
#include "attention/softmax_state.h"
#include "kernels/dependent_launch.h"
#include "kernels/gpu_check.h"
#include "kernels/matrix_ops.h"
#include "kernels/mla_combine.h"  // kMlaLatentDim
#include "kernels/mla_params.h"

namespace kern {
namespace {

constexpr int kDl = kMlaLatentDim, kDr = 64, kDk = kDl + kDr;
constexpr int kLd = kDk + 8;  // shared row stride (elements): 1168 B, ldmatrix conflict-free
constexpr int kWarpsPerGroup = 4;
constexpr int kQkSteps = kDk / 16 / kWarpsPerGroup;  // 9 k-steps of 16 dims per warp
constexpr int kPvTiles = kDl / 16 / kWarpsPerGroup;  // 8 output tiles of 16 dims per warp
constexpr int kRowThreads = mo::kWarp / 4;           // softmax threads per head row (8 / 16)
static_assert(kQkSteps * 16 * kWarpsPerGroup == kDk, "Dk must split over the group's warps");

template <int kHG, int kBlockN, int kStages, bool kFp8>
struct Smem {
  static constexpr int kStageBytes = kFp8 ? kBlockN * kDk : kBlockN * kLd * 2;
  static constexpr int kConvBytes = kFp8 ? kBlockN * kLd * 2 : 0;
  static constexpr int kQBytes = kHG * 16 * kLd * 2;
  static constexpr int kSLd = kBlockN + 4;  // partial scores row stride (floats)
  static constexpr int kPLd = kBlockN + 8;  // probabilities row stride (16-bit)
  static constexpr int kStages0 = 0;
  static constexpr int kConv0 = kStages * kStageBytes;
  static constexpr int kSBytes = kHG * kWarpsPerGroup * 16 * kSLd * 4;
  // One fp8 stage: the partial scores reuse the raw stage, which the conversion has consumed
  // by then (this keeps 32-token blocks under a 64 KB LDS).
  static constexpr bool kSInStage = kStages == 1 && kFp8;
  static constexpr int kS0 = kSInStage ? kStages0 : kConv0 + kConvBytes;
  static constexpr int kP0 = kSInStage ? kConv0 + kConvBytes : kS0 + kSBytes;
  static constexpr int kAlpha0 = kP0 + kHG * 16 * kPLd * 2;
  static constexpr int kState0 = kAlpha0 + kHG * 16 * 4;
  static constexpr int kBytes = kState0 + kHG * 16 * 4;
  // Q is staged once, before the loop, where the last stage (or the fp8 conversion tile) lives.
  static constexpr int kQ0 = kFp8 ? kConv0 : (kStages - 1) * kStageBytes;
  static_assert((kFp8 ? kConvBytes : kStageBytes) >= kQBytes, "Q staging does not fit");
  static_assert(!kSInStage || kStageBytes >= kSBytes, "the scores must fit in the raw stage");
  static_assert(kStages >= 1, "at least one stage");
};

// One CTA: batch b, KV split `split`, heads [16 * HG * tile, +16 * HG).
template <class T, int kHG, int kBlockN, int kStages, bool kFp8>
__global__ void __launch_bounds__(kHG* kWarpsPerGroup* mo::kWarp) mla_decode_kernel(MlaParams p) {
  if (p.pdl) pdl_allow_dependents();  // the split combine may be scheduled now
  using L = Smem<kHG, kBlockN, kStages, kFp8>;
  constexpr int kThreads = kHG * kWarpsPerGroup * mo::kWarp;
  constexpr int kNTiles = kBlockN / 16;
  constexpr int kElemBytes = kFp8 ? 1 : 2;
  constexpr int kRowChunks = kDk * kElemBytes / 16;  // 16-byte chunks per KV row
  static_assert(kBlockN % 16 == 0 && kBlockN % kRowThreads == 0, "block length");
  constexpr int kTpt = kBlockN / kRowThreads;  // tokens per softmax thread
  constexpr bool kQScaled = kFp8 && std::is_same<T, mo::Fp16>::value;

  extern __shared__ __align__(16) unsigned char smem[];
  const int tid = threadIdx.x, lane = tid % mo::kWarp, warp = tid / mo::kWarp;
  const int group = warp / kWarpsPerGroup, wq = warp % kWarpsPerGroup;

  const int tile = blockIdx.x % p.head_tiles;
  const int rest = blockIdx.x / p.head_tiles;
  const int split = rest % p.splits;
  const std::int64_t b = rest / p.splits;
  const int head0 = tile * 16 * kHG;
  const std::int64_t len = p.lens ? std::min<std::int64_t>(p.lens[b], p.seq) : p.seq;
  const std::int64_t t0 = split * p.split_len;
  const std::int64_t t1 = std::min<std::int64_t>(len, t0 + p.split_len);
  const int n_blocks = t1 > t0 ? static_cast<int>((t1 - t0 + kBlockN - 1) / kBlockN) : 0;

  const unsigned char* kv_b =
      static_cast<const unsigned char*>(p.kv) + b * p.seq * kDk * kElemBytes;
  auto issue_block = [&](int j) {  // block j of this split -> stage j % kStages
    unsigned char* dst = smem + L::kStages0 + (j % kStages) * L::kStageBytes;
    const std::int64_t tb = t0 + std::int64_t(j) * kBlockN;
    for (int c = tid; c < kBlockN * kRowChunks; c += kThreads) {
      const int r = c / kRowChunks, k = c % kRowChunks;
      const bool valid = tb + r < t1;
      const unsigned char* src = kv_b + (valid ? (tb + r) * kDk * kElemBytes + k * 16 : 0);
      const int row_bytes = kFp8 ? kDk : kLd * 2;
      mo::copy16(dst + r * row_bytes + k * 16, src, valid);
    }
  };

  // Softmax bookkeeping: thread tid of group g handles head row srow, tokens [scol, +kTpt).
  const int gtid = tid % (kWarpsPerGroup * mo::kWarp);
  const int srow = gtid / kRowThreads, scol = (gtid % kRowThreads) * kTpt;
  attn::SoftmaxState<float> run;

  if (n_blocks > 0) {
    // One stage: block 0 would land where Q is staged; the loop loads it.
    if constexpr (kStages > 1) issue_block(0);
    // Q rows of this tile (zero rows past H) into the Q staging area.
    const std::uint16_t* q_b = static_cast<const std::uint16_t*>(p.q) + b * p.heads * kDk;
    std::uint16_t* qs = reinterpret_cast<std::uint16_t*>(smem + L::kQ0);
    for (int c = tid; c < kHG * 16 * (kDk / 8); c += kThreads) {
      const int r = c / (kDk / 8), k = c % (kDk / 8);
      const bool valid = head0 + r < p.heads;
      mo::copy16(qs + r * kLd + k * 8, q_b + (valid ? (head0 + r) * kDk + k * 8 : 0), valid);
    }
    mo::copy_commit();
  }
  if (n_blocks == 0) {  // empty split: an empty state (or zeros when there is no split)
    mla_write_empty_split(p, b, head0, kHG * 16, split, tid, kThreads);
    return;
  }

  mo::copy_wait<0>();
  __syncthreads();
  // fp8 through fp16 MMA: each Q row (bf16) is scaled by 2^e into [2^14, 2^15) and stored as
  // fp16, exactly for every element above 2^-29 of the row's max; the softmax thread of that
  // row (the same thread: row = tid / kRowThreads) undoes 2^e on the scores.
  float row_unscale = 1.f;
  if constexpr (kQScaled) {
    std::uint32_t* qw =
        reinterpret_cast<std::uint32_t*>(smem + L::kQ0) + (tid / kRowThreads) * (kLd / 2);
    const int sub = tid % kRowThreads;
    float amax = 0.f;
    for (int c = sub; c < kDk / 2; c += kRowThreads) {
      const std::uint32_t w = qw[c];
      amax = fmaxf(amax,
                   fmaxf(fabsf(mo::bf16_to_float(w & 0xffffu)), fabsf(mo::bf16_to_float(w >> 16))));
    }
#pragma unroll
    for (int off = kRowThreads / 2; off > 0; off /= 2)
      amax = fmaxf(amax, ATTNLAB_SHFL_XOR(amax, off, mo::kWarp));
    int ex = 0;
    if (amax > 0.f) (void)frexpf(amax, &ex);  // amax = m 2^ex, m in [0.5, 1)
    const int e = amax > 0.f ? max(-100, min(100, 15 - ex)) : 0;
    const float up = ldexpf(1.f, e);
    row_unscale = ldexpf(1.f, -e);
    for (int c = sub; c < kDk / 2; c += kRowThreads) {
      const std::uint32_t w = qw[c];
      qw[c] = mo::pack2<T>(mo::bf16_to_float(w & 0xffffu) * up, mo::bf16_to_float(w >> 16) * up);
    }
    __syncthreads();
  }
  mo::FragA qf[kQkSteps];
  {
    const std::uint16_t* qs = reinterpret_cast<const std::uint16_t*>(smem + L::kQ0);
#pragma unroll
    for (int i = 0; i < kQkSteps; ++i)
      mo::load_a(qf[i], qs + group * 16 * kLd + wq * (kQkSteps * 16) + i * 16, kLd, lane);
  }
  __syncthreads();  // Q staging area is reused by the pipeline from here on
#pragma unroll
  for (int j = 1; j < kStages - 1; ++j) {
    if (j < n_blocks) issue_block(j);
    mo::copy_commit();
  }

  mo::FragC o[kPvTiles];
#pragma unroll
  for (int t = 0; t < kPvTiles; ++t) mo::zero(o[t]);

  float* s_part = reinterpret_cast<float*>(smem + L::kS0);
  std::uint16_t* s_p = reinterpret_cast<std::uint16_t*>(smem + L::kP0);
  float* s_alpha = reinterpret_cast<float*>(smem + L::kAlpha0);

  for (int j = 0; j < n_blocks; ++j) {
    if constexpr (kStages == 1) {  // no overlap inside the CTA (LDS-limited devices)
      __syncthreads();             // everyone is done with block j - 1
      issue_block(j);
      mo::copy_commit();
      mo::copy_wait<0>();
      __syncthreads();  // block j is in shared memory
    } else {
      mo::copy_wait<kStages - 2>();
      __syncthreads();  // block j is in shared memory; everyone is done with block j - 1
      if (j + kStages - 1 < n_blocks) issue_block(j + kStages - 1);
      mo::copy_commit();
    }

    const std::uint16_t* kvt;
    if constexpr (kFp8) {
      const unsigned char* raw = smem + L::kStages0 + (j % kStages) * L::kStageBytes;
      std::uint16_t* conv = reinterpret_cast<std::uint16_t*>(smem + L::kConv0);
      for (int c = tid; c < kBlockN * (kDk / 16); c += kThreads) {
        const int r = c / (kDk / 16), k = c % (kDk / 16);
        const uint4 v = *reinterpret_cast<const uint4*>(raw + r * kDk + k * 16);
        uint4 lo, hi;
        if constexpr (kQScaled) {
          mo::e4m3x4_to_f16x4(v.x, lo.x, lo.y);
          mo::e4m3x4_to_f16x4(v.y, lo.z, lo.w);
          mo::e4m3x4_to_f16x4(v.z, hi.x, hi.y);
          mo::e4m3x4_to_f16x4(v.w, hi.z, hi.w);
        } else {
          mo::e4m3x4_to_bf16x4(v.x, lo.x, lo.y);
          mo::e4m3x4_to_bf16x4(v.y, lo.z, lo.w);
          mo::e4m3x4_to_bf16x4(v.z, hi.x, hi.y);
          mo::e4m3x4_to_bf16x4(v.w, hi.z, hi.w);
        }
        uint4* d = reinterpret_cast<uint4*>(conv + r * kLd + k * 16);
        d[0] = lo;
        d[1] = hi;
      }
      __syncthreads();
      kvt = conv;
    } else {
      kvt = reinterpret_cast<const std::uint16_t*>(smem + L::kStages0 +
                                                   (j % kStages) * L::kStageBytes);
    }

    // ---- Q K^T: partial scores of this warp's 144 dims for all kBlockN tokens
    {
      mo::FragC s[kNTiles];
#pragma unroll
      for (int n = 0; n < kNTiles; ++n) mo::zero(s[n]);
        // k-steps in pairs (one k32 product on gfx950; kernels/matrix_ops.h), the odd one last
#pragma unroll
      for (int i = 0; i + 1 < kQkSteps; i += 2) {
#pragma unroll
        for (int n = 0; n < kNTiles; ++n) {
          const std::uint16_t* kn = kvt + n * 16 * kLd + wq * (kQkSteps * 16) + i * 16;
          mo::FragB kb0, kb1;
          mo::load_b_nk(kb0, kn, kLd, lane);
          mo::load_b_nk(kb1, kn + 16, kLd, lane);
          mo::mma_k32<T>(s[n], qf[i], kb0, qf[i + 1], kb1);
        }
      }
      if constexpr (kQkSteps % 2 == 1) {
#pragma unroll
        for (int n = 0; n < kNTiles; ++n) {
          mo::FragB kb;
          mo::load_b_nk(kb, kvt + n * 16 * kLd + wq * (kQkSteps * 16) + (kQkSteps - 1) * 16, kLd,
                        lane);
          mo::mma<T>(s[n], qf[kQkSteps - 1], kb);
        }
      }
      float* dst = s_part + (group * kWarpsPerGroup + wq) * 16 * L::kSLd;
#pragma unroll
      for (int n = 0; n < kNTiles; ++n)
#pragma unroll
        for (int e = 0; e < mo::kFragCElems; ++e)
          dst[mo::frag_c_row(e, lane) * L::kSLd + n * 16 + mo::frag_c_col(e, lane)] = s[n].v[e];
    }
    __syncthreads();

    // ---- online softmax of the block, one head row per kRowThreads threads
    {
      const std::int64_t tb = t0 + std::int64_t(j) * kBlockN;
      const float* src = s_part + group * kWarpsPerGroup * 16 * L::kSLd + srow * L::kSLd + scol;
      float x[kTpt];
      float bmax = -std::numeric_limits<float>::infinity();
#pragma unroll
      for (int u = 0; u < kTpt; ++u) {
        float acc = 0.f;
#pragma unroll
        for (int w = 0; w < kWarpsPerGroup; ++w) acc += src[w * 16 * L::kSLd + u];
        x[u] = tb + scol + u < t1 ? acc * (p.score_scale * row_unscale)
                                  : -std::numeric_limits<float>::infinity();
        bmax = fmaxf(bmax, x[u]);
      }
#pragma unroll
      for (int off = kRowThreads / 2; off > 0; off /= 2)
        bmax = fmaxf(bmax, ATTNLAB_SHFL_XOR(bmax, off, mo::kWarp));
      float bsum = 0.f;
#pragma unroll
      for (int u = 0; u < kTpt; ++u) {
        x[u] = bmax == -std::numeric_limits<float>::infinity() ? 0.f : __expf(x[u] - bmax);
        bsum += x[u];
      }
#pragma unroll
      for (int off = kRowThreads / 2; off > 0; off /= 2)
        bsum += ATTNLAB_SHFL_XOR(bsum, off, mo::kWarp);
      attn::SoftmaxState<float> blk;
      blk.max = bmax;
      blk.sum = bsum;
      float sa, sb;
      run = attn::SoftmaxState<float>::merge(run, blk, &sa, &sb);
      std::uint16_t* prow = s_p + group * 16 * L::kPLd + srow * L::kPLd + scol;
#pragma unroll
      for (int u = 0; u < kTpt; u += 2) {
        *reinterpret_cast<std::uint32_t*>(prow + u) = mo::pack2<T>(x[u] * sb, x[u + 1] * sb);
      }
      if (gtid % kRowThreads == 0) s_alpha[group * 16 + srow] = sa;
    }
    __syncthreads();

    // ---- O = O * alpha + P V over this warp's 128 output dims
    {
      const float* al = s_alpha + group * 16;
#pragma unroll
      for (int t = 0; t < kPvTiles; ++t)
#pragma unroll
        for (int e = 0; e < mo::kFragCElems; ++e) o[t].v[e] *= al[mo::frag_c_row(e, lane)];
      const std::uint16_t* pg = s_p + group * 16 * L::kPLd;
      static_assert(kNTiles % 2 == 0, "token k-steps go in pairs");
#pragma unroll
      for (int ks = 0; ks < kNTiles; ks += 2) {
        mo::FragA pa0, pa1;
        mo::load_a(pa0, pg + ks * 16, L::kPLd, lane);
        mo::load_a(pa1, pg + ks * 16 + 16, L::kPLd, lane);
#pragma unroll
        for (int t = 0; t < kPvTiles; ++t) {
          const std::uint16_t* vk = kvt + ks * 16 * kLd + wq * (kPvTiles * 16) + t * 16;
          mo::FragB vb0, vb1;
          mo::load_b_kn(vb0, vk, kLd, lane);
          mo::load_b_kn(vb1, vk + 16 * kLd, kLd, lane);
          mo::mma_k32<T>(o[t], pa0, vb0, pa1, vb1);
        }
      }
    }
  }

  // ---- epilogue: the row states, then the outputs (normalised, or partial for the combine)
  float* s_state = reinterpret_cast<float*>(smem + L::kState0);
  if (gtid % kRowThreads == 0) {
    const int h = head0 + group * 16 + srow;
    s_state[group * 16 + srow] = run.inv_sum() * p.out_scale;
    if (p.splits > 1 && h < p.heads)
      p.part_state[(b * p.heads + h) * p.splits + split] = make_float2(run.max, run.sum);
  }
  __syncthreads();
#pragma unroll
  for (int t = 0; t < kPvTiles; ++t) {
#pragma unroll
    for (int e = 0; e < mo::kFragCElems; ++e) {
      const int r = mo::frag_c_row(e, lane);
      const int h = head0 + group * 16 + r;
      if (h >= p.heads) continue;
      const int d = wq * (kPvTiles * 16) + t * 16 + mo::frag_c_col(e, lane);
      const std::int64_t bh = b * p.heads + h;
      if (p.splits == 1)
        p.out[bh * kDl + d] = o[t].v[e] * s_state[group * 16 + r];
      else
        p.part_acc[(bh * p.splits + split) * kDl + d] = o[t].v[e] * p.out_scale;
    }
  }
}

// ---------------------------------------------------------------------------- kernel choice
using KernelFn = MlaKernelFn;

template <class T, int kHG, int kBlockN, int kStages, bool kFp8>
KernelFn prepared_kernel(int* smem_bytes, int* threads, int* per_sm) {
  constexpr int kBytes = Smem<kHG, kBlockN, kStages, kFp8>::kBytes;
  constexpr int kThreads = kHG * kWarpsPerGroup * mo::kWarp;
  KernelFn fn = mla_decode_kernel<T, kHG, kBlockN, kStages, kFp8>;
  static const int occupancy = resident_blocks(fn, kThreads, kBytes);  // once an instantiation
  *smem_bytes = kBytes;
  *threads = kThreads;
  *per_sm = occupancy;
  return fn;
}

template <class T, bool kFp8>
KernelFn select_kernel(const MlaKernelChoice& c, int* smem, int* threads, int* per_sm) {
  if (c.head_groups == 1 && c.block_n == 32 && c.stages == 1)
    return prepared_kernel<T, 1, 32, 1, kFp8>(smem, threads, per_sm);
  if (c.head_groups == 1 && c.block_n == 32 && c.stages == 2)
    return prepared_kernel<T, 1, 32, 2, kFp8>(smem, threads, per_sm);
  if (c.head_groups == 1 && c.block_n == 32 && c.stages == 3)
    return prepared_kernel<T, 1, 32, 3, kFp8>(smem, threads, per_sm);
  if (c.head_groups == 1 && c.block_n == 64 && c.stages == 2)
    return prepared_kernel<T, 1, 64, 2, kFp8>(smem, threads, per_sm);
  if (c.head_groups == 2 && c.block_n == 32 && c.stages == 1)
    return prepared_kernel<T, 2, 32, 1, kFp8>(smem, threads, per_sm);
  if (c.head_groups == 2 && c.block_n == 32 && c.stages == 2)
    return prepared_kernel<T, 2, 32, 2, kFp8>(smem, threads, per_sm);
  if (c.head_groups == 2 && c.block_n == 64 && c.stages == 2)
    return prepared_kernel<T, 2, 64, 2, kFp8>(smem, threads, per_sm);
  throw attn::DeviceError("MLA decode: no kernel for head_groups " + std::to_string(c.head_groups) +
                          ", block_n " + std::to_string(c.block_n) + ", stages " +
                          std::to_string(c.stages));
}

}  // namespace

MlaKernelFn mla_tile_kernel_for(attn::DType dt, const MlaKernelChoice& c, int* smem_bytes,
                                int* threads, int* per_sm) {
  switch (dt) {
    case attn::DType::kBf16:
      return select_kernel<mo::Bf16, false>(c, smem_bytes, threads, per_sm);
    case attn::DType::kFp16:
      return select_kernel<mo::Fp16, false>(c, smem_bytes, threads, per_sm);
    case attn::DType::kFp8:
      return c.fp8_fp16 ? select_kernel<mo::Fp16, true>(c, smem_bytes, threads, per_sm)
                        : select_kernel<mo::Bf16, true>(c, smem_bytes, threads, per_sm);
    default:
      throw attn::DeviceError("MLA decode: dtype " + std::string(attn::dtype_name(dt)) +
                              " is not supported on the GPU (expected bf16, fp16 or fp8)");
  }
}

}  // namespace kern
