// MLA decode over packed ragged batches (v8), the layout of AMD's MI355X MLA-decode problem, on
// the matrix units (mma.sync on NVIDIA, MFMA on AMD; kernels/matrix_ops.h).
//
// Shapes (kernels/mla_packed.h; Dl = 512, Dr = 64, Dk = Dl + Dr = 576):
//   q    [total_q, H, Dk]   bf16 (fp16 when dt == kFp16; bf16 with an fp8 or mxfp4 cache)
//   kv   [total_kv, Dk]     bf16 / fp16 / e4m3 (value = e4m3 * kv_scale), or mxfp4: Dk / 2 bytes
//                           of E2M1 pairs a row plus kv_scales [total_kv, Dk / 32] E8M0 bytes
//   seqs [B, 4]             q_start, q_len, kv_start, kv_len of each sequence
//   out  [total_q, H, Dl]   float32
// Sequence b owns q rows q_start .. q_start + q_len - 1 and cache rows kv_start .. kv_start +
// kv_len - 1, whose last q_len are its new tokens: query i attends to the first kv_len - q_len +
// i + 1 (causal among the new tokens, as AMD's reference runs it).
//
// The work is v1's (decode_mla.hip) with the rows of a tile generalised from heads to (query,
// head) pairs: row r of a sequence is query r / H, head r % H, so its q and out rows are
// contiguous from q_start * H and the 16 rows of a tile share every KV block. One CTA per (row
// tile, KV split, sequence), 4 warps; per block of 32 tokens staged in shared memory by a
// 2-stage copy pipeline: Q K^T with each warp on 144 of the 576 dims, the 4 partial score tiles
// summed in shared memory, the online softmax (attn::SoftmaxState) with each row's own causal
// limit, P V with each warp on 128 output dims. fp8 and mxfp4 blocks are staged as stored and
// converted to bf16 in shared memory once per block (mxfp4 through kernels/mxfp4_device.h,
// exact); the cache is never held as bf16 in global memory. Split-KV partials are merged by
// mla_combine.hip over total_q * H rows.
//
// This kernel takes the shapes the padded kernels do not: packed batches, several new tokens a
// sequence and mxfp4 caches. It has not been timed yet; kernels/DESIGN.md says what is measured.
#include "kernels/hip_compat.h"  // first: the runtime defines __forceinline__ for softmax_state.h

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "attention/error.h"
#include "attention/softmax_state.h"
#include "kernels/dependent_launch.h"
#include "kernels/gpu_check.h"
#include "kernels/matrix_ops.h"
#include "kernels/mla_combine.h"
#include "kernels/mla_packed.h"
#include "kernels/mla_packed_params.h"
#include "kernels/mla_packed_qk.h"
#include "kernels/mxfp4_device.h"
#include "kernels/overrides.h"

namespace kern {
namespace {

using namespace mla_packed;  // the row layout and AMD's Q K^T on the stored bytes
constexpr int kWarps = 4;    // one group of 16 rows
constexpr int kThreads = kWarps * mo::kWarp;
constexpr int kBlockN = kMlaPackedBlockN;
constexpr int kNTiles = kBlockN / 16;
constexpr int kQkSteps = kDk / 16 / kWarps;  // 9 k-steps of 16 dims a warp
constexpr int kPvTiles = kDl / 16 / kWarps;  // 8 output tiles of 16 dims a warp
constexpr int kRowThreads = mo::kWarp / 4;   // softmax threads a row (8 NVIDIA, 16 AMD)
constexpr int kTpt = kBlockN / kRowThreads;  // tokens a softmax thread
static_assert(kQkSteps * 16 * kWarps == kDk && kPvTiles * 16 * kWarps == kDl, "dims");
static_assert(kBlockN % kRowThreads == 0 && kTpt % 2 == 0, "softmax threads");

// kStages 2: a CTA-wide pipeline; 1: where a device's shared memory a block is too small for
// two (gfx942's 64 KB LDS), the block's copy no longer overlapping the math inside the CTA.
template <Cache C, int kStages>
struct Smem {
  static constexpr bool kConv = C != Cache::k16;  // converted to bf16 before the products
  static constexpr int kStageRow = C == Cache::k16 ? kLd * 2 : kRowBytes<C>;
  static constexpr int kStageBytes = kBlockN * kStageRow;
  static constexpr int kConvBytes = kConv ? kBlockN * kLd * 2 : 0;
  static constexpr int kQBytes = 16 * kLd * 2;
  static constexpr int kSLd = kBlockN + 4;  // partial scores row stride (floats)
  static constexpr int kPLd = kBlockN + 8;  // probabilities row stride (16-bit)
  static constexpr int kConv0 = kStages * kStageBytes;
  static constexpr int kSBytes = kWarps * 16 * kSLd * 4;
  // One stage of an 8- or 4-bit cache: the partial scores reuse the raw stage once the block's
  // products have read it (a barrier in the kernel), which keeps the tile under 64 KB.
  static constexpr bool kSInStage = kStages == 1 && kConv;
  static constexpr int kS0 = kSInStage ? 0 : kConv0 + kConvBytes;
  static constexpr int kP0 = kSInStage ? kConv0 + kConvBytes : kS0 + kSBytes;
  static constexpr int kAlpha0 = kP0 + 16 * kPLd * 2;
  static constexpr int kState0 = kAlpha0 + 16 * 4;
  // mxfp4: the block's E8M0 bytes, [kBlockN][Dk / 32], for the gfx950 scaled Q K^T.
  static constexpr int kScale0 = kState0 + 16 * 4;
  static constexpr int kScaleBytes = C == Cache::kMxfp4 ? (kBlockN * kDk / 32 + 15) / 16 * 16 : 0;
  static constexpr int kBytes = kScale0 + kScaleBytes;
  // Q is staged once, before the loop, where the conversion tile (or the last stage) lives.
  static constexpr int kQ0 = kConv ? kConv0 : (kStages - 1) * kStageBytes;
  static_assert((kConv ? kConvBytes : kStageBytes) >= kQBytes, "Q staging does not fit");
  static_assert(!kSInStage || kStageBytes >= kSBytes, "the scores must fit in the raw stage");
  static_assert(kStageRow % 16 == 0, "16-byte copies");
  static_assert(kStages == 1 || kStages == 2, "one or two stages");
};

// 16 bytes of mxfp4 (32 elements, one scale block) -> 32 bf16 at dst (64 bytes).
__device__ __forceinline__ void mx16_to_bf16(const uint4& v, float scale, std::uint16_t* dst) {
  std::uint32_t w[16];
  mx::word_to_bf16x8(v.x, scale, w);
  mx::word_to_bf16x8(v.y, scale, w + 4);
  mx::word_to_bf16x8(v.z, scale, w + 8);
  mx::word_to_bf16x8(v.w, scale, w + 12);
  uint4* d = reinterpret_cast<uint4*>(dst);
#pragma unroll
  for (int i = 0; i < 4; ++i) d[i] = make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]);
}

// One CTA: sequence b, KV split `split`, rows [16 * tile, +16) of the sequence.
template <class T, Cache C, int kStages>
__global__ void __launch_bounds__(kThreads) mla_packed_kernel(PackedParams p) {
  if (p.pdl) pdl_allow_dependents();  // the split combine may be scheduled now
  using L = Smem<C, kStages>;
  constexpr int kRowChunks = kRowBytes<C> / 16;  // 16-byte chunks a cache row

  extern __shared__ __align__(16) unsigned char smem[];
  const int tid = threadIdx.x, lane = tid % mo::kWarp, wq = tid / mo::kWarp;
  const int tile = static_cast<int>(blockIdx.x % unsigned(p.row_tiles));
  const int rest = static_cast<int>(blockIdx.x / unsigned(p.row_tiles));
  const int split = rest % p.splits;
  const int b = rest / p.splits;
  const int q_start = p.seqs[4 * b], q_len = p.seqs[4 * b + 1];
  const std::int64_t kv_start = p.seqs[4 * b + 2], kv_len = p.seqs[4 * b + 3];
  const int rows = q_len * p.heads;  // (query i, head h) is row i * H + h
  const int row0 = tile * 16;
  if (row0 >= rows) return;  // no row of this sequence in this tile
  const std::int64_t g0 = std::int64_t(q_start) * p.heads + row0;  // global row of row0
  // The tile's last query sees the most tokens; a row's own limit masks the rest.
  const int last_query = (std::min(rows, row0 + 16) - 1) / p.heads;
  const std::int64_t tile_lim = kv_len - q_len + last_query + 1;
  const std::int64_t t0 = split * p.split_len;
  const std::int64_t t1 = std::min<std::int64_t>(tile_lim, t0 + p.split_len);
  const int n_blocks = t1 > t0 ? static_cast<int>((t1 - t0 + kBlockN - 1) / kBlockN) : 0;

  if (n_blocks == 0) {  // no token here: an empty state for the combine, or zeros
    for (int i = tid; i < 16 * (p.splits == 1 ? kDl : 1); i += kThreads) {
      const int r = p.splits == 1 ? i / kDl : i;
      if (row0 + r >= rows) continue;
      if (p.splits == 1)
        p.out[(g0 + r) * kDl + i % kDl] = 0.f;
      else
        p.part_state[(g0 + r) * p.splits + split] =
            make_float2(-std::numeric_limits<float>::infinity(), 0.f);
    }
    return;
  }

  const unsigned char* kv_b =
      static_cast<const unsigned char*>(p.kv) + kv_start * std::int64_t(kRowBytes<C>);
  auto issue_block = [&](int j) {  // block j of this split -> stage j % kStages
    unsigned char* dst = smem + (j % kStages) * L::kStageBytes;
    const std::int64_t tb = t0 + std::int64_t(j) * kBlockN;
    for (int c = tid; c < kBlockN * kRowChunks; c += kThreads) {
      const int r = c / kRowChunks, k = c % kRowChunks;
      const bool valid = tb + r < t1;
      const unsigned char* src = kv_b + (valid ? (tb + r) * kRowBytes<C> + k * 16 : 0);
      mo::copy16(dst + r * L::kStageRow + k * 16, src, valid);
    }
  };

  // Softmax bookkeeping: thread tid handles row srow, tokens [scol, +kTpt) of a block, and
  // that row's causal limit (0 for a row past the sequence's: it is never written).
  const int srow = tid / kRowThreads, scol = (tid % kRowThreads) * kTpt;
  const std::int64_t row_lim =
      row0 + srow < rows ? std::min<std::int64_t>(t1, kv_len - q_len + (row0 + srow) / p.heads + 1)
                         : 0;
  attn::SoftmaxState<float> run;

  if constexpr (kStages > 1) issue_block(0);  // one stage: block 0 would land on Q's staging
  {
    const std::uint16_t* q_rows = static_cast<const std::uint16_t*>(p.q) + g0 * kDk;
    std::uint16_t* qs = reinterpret_cast<std::uint16_t*>(smem + L::kQ0);
    for (int c = tid; c < 16 * (kDk / 8); c += kThreads) {
      const int r = c / (kDk / 8), k = c % (kDk / 8);
      const bool valid = row0 + r < rows;
      mo::copy16(qs + r * kLd + k * 8, q_rows + (valid ? r * kDk + k * 8 : 0), valid);
    }
    mo::copy_commit();
  }
  mo::copy_wait<0>();
  __syncthreads();
  // AMD's 8-bit matrix paths (mla_packed_qk.h) multiply Q by the cache block as stored.
  constexpr bool kRaw = raw_qk_on(C);
  using Raw = RawQk<C>;
  [[maybe_unused]] Raw rq;
  mo::FragA qf[kQkSteps];
  {
    const std::uint16_t* qs = reinterpret_cast<const std::uint16_t*>(smem + L::kQ0);
    if constexpr (kRaw) {
      rq.load(qs, wq, lane);
    } else {
#pragma unroll
      for (int i = 0; i < kQkSteps; ++i)
        mo::load_a(qf[i], qs + wq * (kQkSteps * 16) + i * 16, kLd, lane);
    }
  }
  __syncthreads();  // the Q staging area is reused from here on
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
    if constexpr (kStages == 1) {
      __syncthreads();  // everyone is done with block j - 1
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
    const std::int64_t tb = t0 + std::int64_t(j) * kBlockN;

    const std::uint16_t* kvt;
    const unsigned char* raw = smem + (j % kStages) * L::kStageBytes;
    if constexpr (C == Cache::k16) {
      kvt = reinterpret_cast<const std::uint16_t*>(raw);
    } else {
      std::uint16_t* conv = reinterpret_cast<std::uint16_t*>(smem + L::kConv0);
      if constexpr (C == Cache::kFp8) {
        // Where Q K^T reads the stored bytes, only P V's dims (< Dl) are converted.
        constexpr int kChunks = (kRaw ? kDl : kDk) / 16;
        for (int c = tid; c < kBlockN * kChunks; c += kThreads) {
          const int r = c / kChunks, k = c % kChunks;
          const uint4 v = *reinterpret_cast<const uint4*>(raw + r * kDk + k * 16);
          uint4 lo, hi;
          mo::e4m3x4_to_bf16x4(v.x, lo.x, lo.y);
          mo::e4m3x4_to_bf16x4(v.y, lo.z, lo.w);
          mo::e4m3x4_to_bf16x4(v.z, hi.x, hi.y);
          mo::e4m3x4_to_bf16x4(v.w, hi.z, hi.w);
          uint4* d = reinterpret_cast<uint4*>(conv + r * kLd + k * 16);
          d[0] = lo;
          d[1] = hi;
        }
      } else {  // mxfp4: 16 bytes are one scale block of 32 elements
        const std::uint8_t* sc = p.kv_scales + (kv_start + tb) * kMxBlocks;
        for (int c = tid; c < kBlockN * kMxBlocks; c += kThreads) {
          const int r = c / kMxBlocks, k = c % kMxBlocks;
          const uint4 v = *reinterpret_cast<const uint4*>(raw + r * kRowBytes<C> + k * 16);
          const std::uint32_t s = tb + r < t1 ? sc[r * kMxBlocks + k] : 0u;
          // Where Q K^T reads the stored bytes (gfx950), P V's dims (< Dl) are all it converts.
          if (!kRaw || k < kDl / 32) mx16_to_bf16(v, mx::scale_value(s), conv + r * kLd + k * 32);
          smem[L::kScale0 + r * kMxBlocks + k] = static_cast<unsigned char>(s);
        }
      }
      __syncthreads();
      kvt = conv;
    }

    // ---- Q K^T: partial scores of this warp's dims (144 of them; 128 on the scaled path)
    {
      mo::FragC s[kNTiles];
#pragma unroll
      for (int n = 0; n < kNTiles; ++n) mo::zero(s[n]);
      if constexpr (kRaw) {  // this wave's dims of the block, as stored
#pragma unroll
        for (int n = 0; n < kNTiles; ++n)
          rq.product(s[n], raw, smem + L::kScale0, n * 16, wq, lane);
      } else {
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
      }
      // The 8-bit paths read the raw stage in their products: with the scores over that stage,
      // every wave must be done reading before any writes.
      if constexpr (L::kSInStage) __syncthreads();
      float* dst = s_part + wq * 16 * L::kSLd;
#pragma unroll
      for (int n = 0; n < kNTiles; ++n)
#pragma unroll
        for (int e = 0; e < mo::kFragCElems; ++e) {
          const int r =
              Raw::kTransposed ? mo::frag_c_col(e, lane) : mo::frag_c_row(e, lane);  // q row
          const int c =
              Raw::kTransposed ? mo::frag_c_row(e, lane) : mo::frag_c_col(e, lane);  // token
          dst[r * L::kSLd + n * 16 + c] = s[n].v[e];
        }
    }
    __syncthreads();

    // ---- online softmax of the block, one row per kRowThreads threads, each row's own limit
    {
      const float* src = s_part + srow * L::kSLd + scol;
      float x[kTpt];
      float bmax = -std::numeric_limits<float>::infinity();
#pragma unroll
      for (int u = 0; u < kTpt; ++u) {
        float acc = 0.f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) acc += src[w * 16 * L::kSLd + u];
        x[u] =
            tb + scol + u < row_lim ? acc * p.score_scale : -std::numeric_limits<float>::infinity();
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
      std::uint16_t* prow = s_p + srow * L::kPLd + scol;
#pragma unroll
      for (int u = 0; u < kTpt; u += 2)
        *reinterpret_cast<std::uint32_t*>(prow + u) = mo::pack2<T>(x[u] * sb, x[u + 1] * sb);
      if (tid % kRowThreads == 0) s_alpha[srow] = sa;
    }
    __syncthreads();

    // ---- O = O * alpha + P V over this warp's 128 output dims
#pragma unroll
    for (int t = 0; t < kPvTiles; ++t)
#pragma unroll
      for (int e = 0; e < mo::kFragCElems; ++e) o[t].v[e] *= s_alpha[mo::frag_c_row(e, lane)];
    static_assert(kNTiles % 2 == 0, "token k-steps go in pairs");
#pragma unroll
    for (int ks = 0; ks < kNTiles; ks += 2) {
      mo::FragA pa0, pa1;
      mo::load_a(pa0, s_p + ks * 16, L::kPLd, lane);
      mo::load_a(pa1, s_p + ks * 16 + 16, L::kPLd, lane);
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

  // ---- epilogue: the row states, then the outputs (normalised, or partial for the combine)
  float* s_state = reinterpret_cast<float*>(smem + L::kState0);
  if (tid % kRowThreads == 0) {
    s_state[srow] = run.inv_sum() * p.out_scale;
    if (p.splits > 1 && row0 + srow < rows)
      p.part_state[(g0 + srow) * p.splits + split] = make_float2(run.max, run.sum);
  }
  __syncthreads();
#pragma unroll
  for (int t = 0; t < kPvTiles; ++t) {
#pragma unroll
    for (int e = 0; e < mo::kFragCElems; ++e) {
      const int r = mo::frag_c_row(e, lane);
      if (row0 + r >= rows) continue;
      const int d = wq * (kPvTiles * 16) + t * 16 + mo::frag_c_col(e, lane);
      if (p.splits == 1)
        p.out[(g0 + r) * kDl + d] = o[t].v[e] * s_state[r];
      else
        p.part_acc[((g0 + r) * p.splits + split) * kDl + d] = o[t].v[e] * p.out_scale;
    }
  }
}

// ------------------------------------------------------------------------- the kernels

template <class T, Cache C, int kStages>
MlaPackedKernelFn prepared_kernel(int* smem_bytes, int* per_sm) {
  constexpr int kBytes = Smem<C, kStages>::kBytes;
  MlaPackedKernelFn fn = mla_packed_kernel<T, C, kStages>;
  static const int occupancy = resident_blocks(fn, kThreads, kBytes);  // once an instantiation
  *smem_bytes = kBytes;
  *per_sm = occupancy;
  return fn;
}

// Two stages where they fit the device's shared memory a block, else one (or `stages` when
// 1 or 2: ATTNLAB_MLA_PACKED_STAGES, for comparisons and the tests).
template <class T, Cache C>
MlaPackedKernelFn staged_kernel(int stages, int* smem_bytes, int* per_sm) {
  if (stages != 1) {
    MlaPackedKernelFn fn = prepared_kernel<T, C, 2>(smem_bytes, per_sm);
    if (stages == 2 || *per_sm > 0) return fn;
  }
  return prepared_kernel<T, C, 1>(smem_bytes, per_sm);
}

}  // namespace

MlaPackedKernelFn mla_packed_kernel_for(attn::DType dt, int* smem_bytes, int* threads,
                                        int* per_sm) {
  *threads = kThreads;
  const int stages = read_overrides().mla_packed_stages;
  switch (dt) {
    case attn::DType::kBf16:
      return staged_kernel<mo::Bf16, Cache::k16>(stages, smem_bytes, per_sm);
    case attn::DType::kFp16:
      return staged_kernel<mo::Fp16, Cache::k16>(stages, smem_bytes, per_sm);
    case attn::DType::kFp8:
      return staged_kernel<mo::Bf16, Cache::kFp8>(stages, smem_bytes, per_sm);
    case attn::DType::kMxfp4:
      return staged_kernel<mo::Bf16, Cache::kMxfp4>(stages, smem_bytes, per_sm);
    default:
      throw attn::DeviceError("MLA decode (packed): dtype " + std::string(attn::dtype_name(dt)) +
                              " is not supported (expected bf16, fp16, fp8 or mxfp4)");
  }
}

}  // namespace kern
