// MLA absorbed decode, v3 and v4: one cp.async pipeline per warp over the warp's own column
// slice (v4 = kRows: the softmax rows split over the warps).
//
// Shapes and semantics: decode_mla.hip (q [B, H, 576], kv [B, S, 576] with values = the first
// 512 columns, out [B, H, 512] float32, lens, zero-length rows give zeros). This kernel takes
// 16 heads a CTA (head_groups 1) and 4 warps; warp w owns the cache columns
//   latent [128 w, 128 w + 128)  and  RoPE [512 + 16 w, 512 + 16 w + 16)
// (144 columns) and stages only those, for every block of N tokens, in its own ring of shared
// memory: no warp waits for another's copies. Per block:
//   Q K^T   the warp's 144-column partial scores (9 k-steps; its Q fragments stay in registers);
//   one CTA barrier: the 4 partial tiles are exchanged through shared memory (double-buffered by
//           block parity, so the next block's stores never meet this block's reads);
//   softmax every warp sums the 4 partials in the same order, so every warp holds bit-identical
//           scores, in the A-operand layout of P V, and runs the online softmax itself;
//   P V     P from registers; V = the warp's 128 latent columns, already in its ring: the warp's
//           output columns are the ones it staged.
// v4 (kRows) replaces the softmax step: warp w sums the partials of rows [4 w, 4 w + 4) only,
//           keeps their running states and writes P (16-bit) and the rows' rescale factors to
//           shared memory; a second barrier, then every warp loads P as A fragments for its
//           P V. 4x less softmax work a warp, partials single-buffered (the plan's fp8 kernel).
// v1 needs 3 CTA barriers a block (scores, probabilities, stage reuse) and a CTA-wide pipeline.
// fp8 caches are staged raw (144-byte rows, conflict-free for ldmatrix) and converted to fp16
// in registers as the fragments are loaded (matrix_ops.h: load_b_*_e4m3_x2); each warp scales
// its Q slice per row by a power of two into fp16's range and unscales its partial scores.
// Figures: kernels/DESIGN.md, section 4.
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
#include "kernels/mla_params.h"

namespace kern {
namespace {

constexpr int kDl = kMlaLatentDim, kDr = 64, kDk = kDl + kDr;
constexpr int kWarps = 4;              // warps (column slices) a CTA
constexpr int kLat = kDl / kWarps;     // 128 latent columns a warp
constexpr int kRope = kDr / kWarps;    // 16 RoPE columns a warp
constexpr int kSlice = kLat + kRope;   // 144
constexpr int kQkSteps = kSlice / 16;  // 9
constexpr int kPvTiles = kLat / 16;    // 8
constexpr int kQLd = kSlice + 8;       // Q staging row stride (16-bit elements): 304 bytes
static_assert(kLat % 16 == 0 && kRope == 16, "the column slices must be whole 16-column steps");

template <int kN, int kStages, bool kFp8, bool kRows>
struct SliceSmem {
  // 16-bit rows padded to 304 bytes (19 x 16: ldmatrix rows on distinct banks); fp8 rows are
  // 144 bytes (9 x 16) and need no pad.
  static constexpr int kRowB = kFp8 ? kSlice : kQLd * 2;
  static constexpr int kStageB = kN * kRowB;  // one warp, one block
  static constexpr int kPipeB = kWarps * kStages * kStageB;
  static constexpr int kSLd = kN + 8;  // partial scores row (floats)
  // partial scores: warps x 16 rows, two parities (one barrier a block) or one (kRows)
  static constexpr int kPartB = (kRows ? 1 : 2) * kWarps * 16 * kSLd * 4;
  static constexpr int kQWarpB = 16 * kQLd * 2;
  // Q is staged once, before the loop: in the warp's last stage when it fits, else in the
  // partial-score area (fp8 with 32-token blocks).
  static constexpr bool kQInStage = kStageB >= kQWarpB;
  static constexpr int kPart0 = kPipeB;
  static constexpr int kAreaB = kQInStage || kPartB >= kWarps * kQWarpB ? kPartB : kWarps * kQWarpB;
  // kRows: the block's probabilities (16 x kN, 16-bit), the rows' rescale factors and, after
  // the loop, their 1 / sum.
  static constexpr int kPLd = kN + 8;  // 16-bit elements
  static constexpr int kP0 = kPart0 + kAreaB;
  static constexpr int kAlpha0 = kP0 + (kRows ? 16 * kPLd * 2 : 0);
  static constexpr int kInv0 = kAlpha0 + (kRows ? 16 * 4 : 0);
  static constexpr int kBytes = kInv0 + (kRows ? 16 * 4 : 0);
  static_assert(kStages >= 2, "the pipeline needs two stages");
};

template <int kN, int kStages, bool kFp8, bool kRows>
constexpr int slice_min_blocks() {
  constexpr int by_smem = (227 * 1024) / (SliceSmem<kN, kStages, kFp8, kRows>::kBytes + 1024);
  return by_smem < 1 ? 1 : (by_smem > 3 ? 3 : by_smem);
}

template <class T, int kN, int kStages, bool kFp8, bool kRows>
__global__ void __launch_bounds__(kWarps* mo::kWarp, (slice_min_blocks<kN, kStages, kFp8, kRows>()))
    mla_slice_decode_kernel(MlaParams p) {
  if (p.pdl) pdl_allow_dependents();  // the split combine may be scheduled now
  using L = SliceSmem<kN, kStages, kFp8, kRows>;
  constexpr int kThreads = kWarps * mo::kWarp;
  constexpr int kNTiles = kN / 16;
  constexpr int kEB = kFp8 ? 1 : 2;           // bytes an element
  constexpr int kChunks = kSlice * kEB / 16;  // 16-byte copies a staged row
  constexpr int kLatChunks = kLat * kEB / 16;
  static_assert(!kFp8 || (kN % 32 == 0 && std::is_same<T, mo::Fp16>::value),
                "fp8 runs through fp16 MMA on 32-token steps");
  static_assert(kN % 16 == 0, "block length");
  constexpr int kRowLanes = mo::kWarp / 4;  // kRows: lanes a softmax row (4 rows a warp)
  constexpr int kTpl = kN / kRowLanes;      // kRows: tokens a lane
  static_assert(!kRows || (kN % kRowLanes == 0 && kTpl % 2 == 0), "kRows needs kN >= kWarp / 2");

  extern __shared__ __align__(16) unsigned char smem[];
  const int lane = threadIdx.x % mo::kWarp, w = threadIdx.x / mo::kWarp;
  const int tile = blockIdx.x % p.head_tiles;
  const int rest = blockIdx.x / p.head_tiles;
  const int split = rest % p.splits;
  const std::int64_t b = rest / p.splits;
  const int head0 = tile * 16;
  const std::int64_t len = p.lens ? std::min<std::int64_t>(p.lens[b], p.seq) : p.seq;
  const std::int64_t t0 = split * p.split_len;
  const std::int64_t t1 = std::min<std::int64_t>(len, t0 + p.split_len);
  const int n_blocks = t1 > t0 ? static_cast<int>((t1 - t0 + kN - 1) / kN) : 0;

  if (n_blocks == 0) {  // empty split: an empty state (or zeros when there is no split)
    mla_write_empty_split(p, b, head0, 16, split, threadIdx.x, kThreads);
    return;
  }

  unsigned char* ring = smem + w * kStages * L::kStageB;
  const unsigned char* kv_b = static_cast<const unsigned char*>(p.kv) + b * p.seq * kDk * kEB;
  // Copies: a lane's chunk columns are fixed for the whole walk (latent chunk lane % kLatChunks
  // of rows lane / kLatChunks + kLatRows i; RoPE chunk lane % kRopeChunks of rows
  // lane / kRopeChunks + kRopeRows i), so a copy is a pointer plus a compile-time offset, with
  // no division per chunk (the earlier c / kChunks form cost ~25 instructions a copy).
  constexpr int kRopeChunks = kChunks - kLatChunks;  // fp8 1, 16-bit 2
  constexpr int kLatRows = mo::kWarp / kLatChunks;   // rows a step
  constexpr int kRopeRows = mo::kWarp / kRopeChunks;
  constexpr int kRowG = kDk * kEB;  // global row bytes
  static_assert(mo::kWarp % kLatChunks == 0 && mo::kWarp % kRopeChunks == 0, "copy layout");
  const int lat_r = lane / kLatChunks, lat_k = lane % kLatChunks;
  const int rope_r = lane / kRopeChunks, rope_k = lane % kRopeChunks;
  const unsigned char* lat_src = kv_b + w * kLat * kEB + 16 * lat_k;
  const unsigned char* rope_src = kv_b + (kDl + w * kRope) * kEB + 16 * rope_k;
  const int lat_dst = lat_r * L::kRowB + 16 * lat_k;
  const int rope_dst = rope_r * L::kRowB + 16 * (kLatChunks + rope_k);
  auto issue_block = [&](int j) {  // block j of this split, this warp's columns -> its ring
    unsigned char* dst = ring + (j % kStages) * L::kStageB;
    const std::int64_t tb = t0 + std::int64_t(j) * kN;
    const int rows = static_cast<int>(std::min<std::int64_t>(kN, t1 - tb));  // valid rows
    const unsigned char* lat = lat_src + (tb + lat_r) * kRowG;
    const unsigned char* rope = rope_src + (tb + rope_r) * kRowG;
#pragma unroll
    for (int i = 0; i < (kN + kLatRows - 1) / kLatRows; ++i) {
      const int r = lat_r + kLatRows * i;
      if (kN % kLatRows != 0 && r >= kN) break;
      const bool valid = r < rows;  // zero-fill past the end (source: the batch's first row)
      mo::copy16(dst + lat_dst + kLatRows * i * L::kRowB,
                 valid ? lat + std::int64_t(kLatRows) * i * kRowG : lat_src, valid);
    }
#pragma unroll
    for (int i = 0; i < (kN + kRopeRows - 1) / kRopeRows; ++i) {
      const int r = rope_r + kRopeRows * i;
      if (kN % kRopeRows != 0 && r >= kN) break;
      const bool valid = r < rows;
      mo::copy16(dst + rope_dst + kRopeRows * i * L::kRowB,
                 valid ? rope + std::int64_t(kRopeRows) * i * kRowG : rope_src, valid);
    }
  };
#pragma unroll
  for (int j = 0; j < kStages - 1; ++j) {
    if (j < n_blocks) issue_block(j);
    mo::copy_commit();
  }

  // ---- this warp's Q slice: 16 rows (zero past H) x 144 columns, to fragments
  std::uint16_t* qs = reinterpret_cast<std::uint16_t*>(
      L::kQInStage ? ring + (kStages - 1) * L::kStageB : smem + L::kPart0 + w * L::kQWarpB);
  {
    const std::uint16_t* q_b = static_cast<const std::uint16_t*>(p.q) + b * p.heads * kDk;
    for (int c = lane; c < 16 * (kSlice / 8); c += mo::kWarp) {
      const int r = c / (kSlice / 8), k = c % (kSlice / 8);
      const int col = k < kLat / 8 ? w * kLat + 8 * k : kDl + w * kRope + 8 * (k - kLat / 8);
      uint4 v = make_uint4(0, 0, 0, 0);
      if (head0 + r < p.heads) v = *reinterpret_cast<const uint4*>(q_b + (head0 + r) * kDk + col);
      *reinterpret_cast<uint4*>(qs + r * kQLd + 8 * k) = v;
    }
  }
  mo::warp_sync();
  // fp8 through fp16 MMA: each row of the slice (bf16) is scaled by 2^e into [2^14, 2^15)
  // (exact for every element above 2^-29 of the slice row's max), stored as fp16 with the
  // columns of each 16-column step in the order load_b_nk_e4m3_x2 reads the keys; the partial
  // scores are multiplied by 2^-e (exact) before they are exchanged.
  float c_unscale[mo::kFragCElems];
#pragma unroll
  for (int i = 0; i < mo::kFragCElems; ++i) c_unscale[i] = 1.f;
  if constexpr (kFp8) {
    constexpr int kLpr = mo::kWarp / 16;  // lanes a row
    const int r = lane / kLpr, sub = lane % kLpr;
    std::uint16_t* row = qs + r * kQLd;
    float amax = 0.f;
    for (int g = sub; g < kQkSteps; g += kLpr)
#pragma unroll
      for (int c = 0; c < 16; ++c) amax = fmaxf(amax, fabsf(mo::bf16_to_float(row[16 * g + c])));
#pragma unroll
    for (int off = kLpr / 2; off > 0; off /= 2)
      amax = fmaxf(amax, ATTNLAB_SHFL_XOR(amax, off, mo::kWarp));
    int ex = 0;
    if (amax > 0.f) (void)frexpf(amax, &ex);  // amax = m 2^ex, m in [0.5, 1)
    const int e = amax > 0.f ? max(-100, min(100, 15 - ex)) : 0;
    const float up = ldexpf(1.f, e), down = ldexpf(1.f, -e);
    for (int g = sub; g < kQkSteps; g += kLpr) {
      float v[16], lg[16];
#pragma unroll
      for (int c = 0; c < 16; ++c) v[c] = mo::bf16_to_float(row[16 * g + c]) * up;
#pragma unroll
      for (int c = 0; c < 16; ++c) lg[mo::e4m3_nk_col(c)] = v[c];
      std::uint32_t* dst = reinterpret_cast<std::uint32_t*>(row + 16 * g);
#pragma unroll
      for (int c = 0; c < 8; ++c) dst[c] = mo::pack2<mo::Fp16>(lg[2 * c], lg[2 * c + 1]);
    }
#pragma unroll
    for (int i = 0; i < mo::kFragCElems; ++i)
      c_unscale[i] = ATTNLAB_SHFL(down, mo::frag_c_row(i, lane) * kLpr, mo::kWarp);
    mo::warp_sync();
  }
  mo::FragA qf[kQkSteps];
#pragma unroll
  for (int i = 0; i < kQkSteps; ++i) mo::load_a(qf[i], qs + 16 * i, kQLd, lane);
  __syncthreads();  // every warp holds its Q: the staging areas are free from here on

  mo::FragC o[kPvTiles];
#pragma unroll
  for (int t = 0; t < kPvTiles; ++t) mo::zero(o[t]);
  attn::SoftmaxState<float> run[mo::kARowSlots];
  attn::SoftmaxState<float> row_run;  // kRows: the state of softmax row 4 w + lane / kRowLanes
  float* part = reinterpret_cast<float*>(smem + L::kPart0);
  std::uint16_t* s_p = reinterpret_cast<std::uint16_t*>(smem + L::kP0);
  float* s_alpha = reinterpret_cast<float*>(smem + L::kAlpha0);

  // O += P V for k-step ks (16 tokens) of the stage st: V = this warp's 128 latent columns.
  auto pv_step = [&](const mo::FragA& pa, const unsigned char* st, int ks) {
    if constexpr (kFp8) {
#pragma unroll
      for (int t = 0; t < kPvTiles; t += 2) {
        mo::FragB b0, b1;
        mo::load_b_kn_e4m3_x2(b0, b1, st + 16 * ks * L::kRowB + 16 * t, L::kRowB, lane);
        mo::mma<T>(o[t], pa, b0);
        mo::mma<T>(o[t + 1], pa, b1);
      }
    } else {
#pragma unroll
      for (int t = 0; t < kPvTiles; ++t) {
        mo::FragB vb;
        mo::load_b_kn(vb, reinterpret_cast<const std::uint16_t*>(st) + 16 * ks * kQLd + 16 * t,
                      kQLd, lane);
        mo::mma<T>(o[t], pa, vb);
      }
    }
  };

  for (int j = 0; j < n_blocks; ++j) {
    mo::copy_wait<kStages - 2>();
    mo::warp_sync();  // block j is in this warp's ring; its lanes are done with block j - 1
    if (j + kStages - 1 < n_blocks) issue_block(j + kStages - 1);
    mo::copy_commit();
    const unsigned char* st = ring + (j % kStages) * L::kStageB;

    // ---- Q K^T over this warp's 144 columns
    mo::FragC s[kNTiles];
#pragma unroll
    for (int n = 0; n < kNTiles; ++n) mo::zero(s[n]);
#pragma unroll
    for (int i = 0; i < kQkSteps; ++i) {
      if constexpr (kFp8) {
#pragma unroll
        for (int n = 0; n < kNTiles; n += 2) {
          mo::FragB b0, b1;
          mo::load_b_nk_e4m3_x2(b0, b1, st + 16 * n * L::kRowB + 16 * i, L::kRowB, lane);
          mo::mma<T>(s[n], qf[i], b0);
          mo::mma<T>(s[n + 1], qf[i], b1);
        }
      } else {
#pragma unroll
        for (int n = 0; n < kNTiles; ++n) {
          mo::FragB kb;
          mo::load_b_nk(kb, reinterpret_cast<const std::uint16_t*>(st) + 16 * n * kQLd + 16 * i,
                        kQLd, lane);
          mo::mma<T>(s[n], qf[i], kb);
        }
      }
    }
    float* mine = part + ((kRows ? 0 : (j & 1)) * kWarps + w) * 16 * L::kSLd;
#pragma unroll
    for (int n = 0; n < kNTiles; ++n) {
#pragma unroll
      for (int i = 0; i < mo::kFragCElems; ++i) {
        float* d = mine + mo::frag_c_row(i, lane) * L::kSLd + 16 * n + mo::frag_c_col(i, lane);
        if constexpr (mo::kCPairsAdjacent) {
          if (i % 2 == 0)
            *reinterpret_cast<float2*>(d) =
                make_float2(s[n].v[i] * c_unscale[i], s[n].v[i + 1] * c_unscale[i + 1]);
        } else {
          *d = s[n].v[i] * c_unscale[i];
        }
      }
    }
    __syncthreads();  // the block's 4 partial tiles are in shared memory

    const std::int64_t tb = t0 + std::int64_t(j) * kN;
    if constexpr (kRows) {
      // ---- softmax rows split over the warps: warp w sums the 4 partials of rows
      // [4 w, 4 w + 4) (kRowLanes lanes a row, kTpl tokens a lane), keeps their running
      // states, and stores P (16-bit) and the rows' rescale factors for every warp.
      const int r = 4 * w + lane / kRowLanes, c0 = (lane % kRowLanes) * kTpl;
      const float* src = part + r * L::kSLd + c0;
      float x[kTpl];
      float bmax = -std::numeric_limits<float>::infinity();
#pragma unroll
      for (int u = 0; u < kTpl; u += 2) {
        float2 acc = *reinterpret_cast<const float2*>(src + u);
#pragma unroll
        for (int v = 1; v < kWarps; ++v) {
          const float2 q2 = *reinterpret_cast<const float2*>(src + v * 16 * L::kSLd + u);
          acc.x += q2.x;
          acc.y += q2.y;
        }
        const float ninf = -std::numeric_limits<float>::infinity();
        x[u] = tb + c0 + u < t1 ? acc.x * p.score_scale : ninf;
        x[u + 1] = tb + c0 + u + 1 < t1 ? acc.y * p.score_scale : ninf;
        bmax = fmaxf(bmax, fmaxf(x[u], x[u + 1]));
      }
#pragma unroll
      for (int off = kRowLanes / 2; off > 0; off /= 2)
        bmax = fmaxf(bmax, ATTNLAB_SHFL_XOR(bmax, off, mo::kWarp));
      float bsum = 0.f;
#pragma unroll
      for (int u = 0; u < kTpl; ++u) {
        x[u] = bmax == -std::numeric_limits<float>::infinity() ? 0.f : __expf(x[u] - bmax);
        bsum += x[u];
      }
#pragma unroll
      for (int off = kRowLanes / 2; off > 0; off /= 2)
        bsum += ATTNLAB_SHFL_XOR(bsum, off, mo::kWarp);
      attn::SoftmaxState<float> blk;
      blk.max = bmax;
      blk.sum = bsum;
      float sa, sb;
      row_run = attn::SoftmaxState<float>::merge(row_run, blk, &sa, &sb);
      std::uint16_t* prow = s_p + r * L::kPLd + c0;
#pragma unroll
      for (int u = 0; u < kTpl; u += 2)
        *reinterpret_cast<std::uint32_t*>(prow + u) = mo::pack2<T>(x[u] * sb, x[u + 1] * sb);
      if (lane % kRowLanes == 0) s_alpha[r] = sa;
      __syncthreads();  // P and the rescale factors of this block are in shared memory

      // ---- O = O * alpha + P V over this warp's 128 latent columns, P from shared memory
#pragma unroll
      for (int i = 0; i < mo::kFragCElems; ++i) {
        const float al = s_alpha[mo::frag_c_row(i, lane)];
#pragma unroll
        for (int t = 0; t < kPvTiles; ++t) o[t].v[i] *= al;
      }
#pragma unroll
      for (int ks = 0; ks < kNTiles; ++ks) {
        mo::FragA pa;
        mo::load_a(pa, s_p + 16 * ks, L::kPLd, lane);
        pv_step(pa, st, ks);
      }
    } else {
      // ---- scores in the A layout (the same sums, in the same order, in every warp); softmax
      const float* both = part + (j & 1) * kWarps * 16 * L::kSLd;
      float x[kNTiles][mo::kFragAElems];
      float bmax[mo::kARowSlots];
#pragma unroll
      for (int sl = 0; sl < mo::kARowSlots; ++sl)
        bmax[sl] = -std::numeric_limits<float>::infinity();
#pragma unroll
      for (int n = 0; n < kNTiles; ++n) {
#pragma unroll
        for (int e = 0; e < mo::kFragAElems; e += 2) {
          const int col = 16 * n + mo::frag_a_col(e, lane);
          const float* src = both + mo::frag_a_row(e, lane) * L::kSLd + col;
          float2 acc = *reinterpret_cast<const float2*>(src);
#pragma unroll
          for (int v = 1; v < kWarps; ++v) {
            const float2 u = *reinterpret_cast<const float2*>(src + v * 16 * L::kSLd);
            acc.x += u.x;
            acc.y += u.y;
          }
          const float ninf = -std::numeric_limits<float>::infinity();
          x[n][e] = tb + col < t1 ? acc.x * p.score_scale : ninf;
          x[n][e + 1] = tb + col + 1 < t1 ? acc.y * p.score_scale : ninf;
          const int sl = mo::frag_a_slot(e);
          bmax[sl] = fmaxf(bmax[sl], fmaxf(x[n][e], x[n][e + 1]));
        }
      }
      float bsum[mo::kARowSlots], sa[mo::kARowSlots], sb[mo::kARowSlots];
#pragma unroll
      for (int sl = 0; sl < mo::kARowSlots; ++sl) {
        bmax[sl] = mo::a_row_max(bmax[sl]);
        bsum[sl] = 0.f;
      }
#pragma unroll
      for (int n = 0; n < kNTiles; ++n)
#pragma unroll
        for (int e = 0; e < mo::kFragAElems; ++e) {
          const float m = bmax[mo::frag_a_slot(e)];
          x[n][e] = m == -std::numeric_limits<float>::infinity() ? 0.f : __expf(x[n][e] - m);
          bsum[mo::frag_a_slot(e)] += x[n][e];
        }
#pragma unroll
      for (int sl = 0; sl < mo::kARowSlots; ++sl) {
        attn::SoftmaxState<float> blk;
        blk.max = bmax[sl];
        blk.sum = mo::a_row_sum(bsum[sl]);
        run[sl] = attn::SoftmaxState<float>::merge(run[sl], blk, &sa[sl], &sb[sl]);
      }

      // ---- O = O * alpha + P V over this warp's 128 latent columns
      {
        float alpha[mo::kFragCElems];
#pragma unroll
        for (int i = 0; i < mo::kFragCElems; ++i) alpha[i] = mo::slot_to_c_row(sa, i, lane);
#pragma unroll
        for (int t = 0; t < kPvTiles; ++t)
#pragma unroll
          for (int i = 0; i < mo::kFragCElems; ++i) o[t].v[i] *= alpha[i];
      }
#pragma unroll
      for (int ks = 0; ks < kNTiles; ++ks) {
        float pv[mo::kFragAElems];
#pragma unroll
        for (int e = 0; e < mo::kFragAElems; ++e) pv[e] = x[ks][e] * sb[mo::frag_a_slot(e)];
        mo::FragA pa;
        mo::make_a<T>(pa, pv);
        pv_step(pa, st, ks);
      }
    }  // kRows
  }

  // ---- epilogue: normalised outputs, or the split's partial output and state
  float inv_c[mo::kFragCElems];
  if constexpr (kRows) {  // each row's owner lanes hold its state; every warp needs all 16
    float* s_inv = reinterpret_cast<float*>(smem + L::kInv0);
    if (lane % kRowLanes == 0) {
      const int r = 4 * w + lane / kRowLanes, h = head0 + r;
      s_inv[r] = row_run.inv_sum() * p.out_scale;
      if (p.splits > 1 && h < p.heads)
        p.part_state[(b * p.heads + h) * p.splits + split] = make_float2(row_run.max, row_run.sum);
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < mo::kFragCElems; ++i) inv_c[i] = s_inv[mo::frag_c_row(i, lane)];
  } else {
    float inv[mo::kARowSlots];
#pragma unroll
    for (int sl = 0; sl < mo::kARowSlots; ++sl) inv[sl] = run[sl].inv_sum() * p.out_scale;
    if (p.splits > 1 && w == 0 && mo::frag_a_col(0, lane) == 0) {
#pragma unroll
      for (int sl = 0; sl < mo::kARowSlots; ++sl) {
        const int h = head0 + mo::frag_a_row(2 * sl, lane);
        if (h < p.heads)
          p.part_state[(b * p.heads + h) * p.splits + split] =
              make_float2(run[sl].max, run[sl].sum);
      }
    }
#pragma unroll
    for (int i = 0; i < mo::kFragCElems; ++i) inv_c[i] = mo::slot_to_c_row(inv, i, lane);
  }
#pragma unroll
  for (int t = 0; t < kPvTiles; ++t) {
#pragma unroll
    for (int i = 0; i < mo::kFragCElems; ++i) {
      const int h = head0 + mo::frag_c_row(i, lane);
      if (h >= p.heads) continue;
      const int c = mo::frag_c_col(i, lane);
      const int d = w * kLat + 16 * t + (kFp8 ? mo::e4m3_kn_dim(c) : c);
      const std::int64_t bh = b * p.heads + h;
      if (p.splits == 1)
        p.out[bh * kDl + d] = o[t].v[i] * inv_c[i];
      else
        p.part_acc[(bh * p.splits + split) * kDl + d] = o[t].v[i] * p.out_scale;
    }
  }
}

template <class T, int kN, int kStages, bool kFp8, bool kRows>
MlaKernelFn prepared(int* smem_bytes, int* threads, int* per_sm) {
  constexpr int kBytes = SliceSmem<kN, kStages, kFp8, kRows>::kBytes;
  constexpr int kThreads = kWarps * mo::kWarp;
  MlaKernelFn fn = mla_slice_decode_kernel<T, kN, kStages, kFp8, kRows>;
  static const int occupancy = resident_blocks(fn, kThreads, kBytes);  // once an instantiation
  *smem_bytes = kBytes;
  *threads = kThreads;
  *per_sm = occupancy;
  return fn;
}

// version 3: every warp runs the whole softmax (one barrier a block); version 4: the softmax
// rows split over the warps, P through shared memory (two barriers a block).
template <class T>
MlaKernelFn select16(const MlaKernelChoice& c, int* smem, int* threads, int* per_sm) {
  if (c.version == 4) {
    if (c.block_n == 32 && c.stages == 2)
      return prepared<T, 32, 2, false, true>(smem, threads, per_sm);
    if (c.block_n == 64 && c.stages == 2)
      return prepared<T, 64, 2, false, true>(smem, threads, per_sm);
    return nullptr;
  }
  if (c.block_n == 16 && c.stages == 2)
    return prepared<T, 16, 2, false, false>(smem, threads, per_sm);
  if (c.block_n == 16 && c.stages == 3)
    return prepared<T, 16, 3, false, false>(smem, threads, per_sm);
  if (c.block_n == 32 && c.stages == 2)
    return prepared<T, 32, 2, false, false>(smem, threads, per_sm);
  return nullptr;
}

MlaKernelFn select_fp8(const MlaKernelChoice& c, int* smem, int* threads, int* per_sm) {
  using F = mo::Fp16;
  if (c.version == 4) {
    if (c.block_n == 32 && c.stages == 2)
      return prepared<F, 32, 2, true, true>(smem, threads, per_sm);
    if (c.block_n == 64 && c.stages == 2)
      return prepared<F, 64, 2, true, true>(smem, threads, per_sm);
    return nullptr;
  }
  if (c.block_n == 32 && c.stages == 2)
    return prepared<F, 32, 2, true, false>(smem, threads, per_sm);
  if (c.block_n == 32 && c.stages == 3)
    return prepared<F, 32, 3, true, false>(smem, threads, per_sm);
  if (c.block_n == 64 && c.stages == 2)
    return prepared<F, 64, 2, true, false>(smem, threads, per_sm);
  return nullptr;
}

}  // namespace

MlaKernelFn mla_slice_kernel(attn::DType dt, const MlaKernelChoice& c, int* smem_bytes,
                             int* threads, int* per_sm) {
  MlaKernelFn fn = nullptr;
  if (c.head_groups == 1) {
    switch (dt) {
      case attn::DType::kBf16:
        fn = select16<mo::Bf16>(c, smem_bytes, threads, per_sm);
        break;
      case attn::DType::kFp16:
        fn = select16<mo::Fp16>(c, smem_bytes, threads, per_sm);
        break;
      case attn::DType::kFp8:
        fn = select_fp8(c, smem_bytes, threads, per_sm);
        break;
      default:
        throw attn::DeviceError("MLA decode: dtype " + std::string(attn::dtype_name(dt)) +
                                " is not supported on the GPU (expected bf16, fp16 or fp8)");
    }
  }
  if (!fn)
    throw attn::DeviceError(
        "MLA decode v" + std::to_string(c.version) + ": no kernel for head_groups " +
        std::to_string(c.head_groups) + ", block_n " + std::to_string(c.block_n) + ", stages " +
        std::to_string(c.stages) + " and dtype " + std::string(attn::dtype_name(dt)) +
        (c.version == 4 ? " (block_n 32 or 64 with 2 stages)"
                        : " (16-bit: block_n 16 with 2 or 3 stages, 32 with 2; fp8: 32 with 2 or "
                          "3, 64 with 2)"));
  return fn;
}

}  // namespace kern
