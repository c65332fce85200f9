// Grouped decode v6: both products on the matrix units through kernels/matrix_ops.h, so one
// source runs on AMD's MFMA (v_mfma_f32_16x16x16{bf16_1k,f16}; gfx950 pairs the k-steps of
// Q K^T into v_mfma_f32_16x16x32) and on NVIDIA's mma.sync. bf16 or fp16 q/k/v, D = Dv in
// {64, 128}. The plan takes it on AMD, where v3-v5 (NVIDIA-only) are not built; on NVIDIA it is
// selectable (ATTNLAB_GROUPED_VERSION=6) so that the GPU tests check the same lines the AMD build
// compiles. UNVERIFIED ON AMD HARDWARE: compile-checked for gfx90a, gfx940, gfx942 and gfx950 by
// tools/hip_check.sh; the MFMA lane layouts are matrix_ops.h's.
//
// One CTA per (head slice of 16 x split, kv head, b), 4 warps (wavefronts on AMD). Warp w walks
// the 16-key blocks w, w + 4, ... of the split on its own (no CTA barrier in the loop):
//   fetch   the block's K and V (16 keys x D, 16 bytes a load) into registers, issued while the
//           previous block is computed, then stored to the warp's own shared-memory tiles;
//   S       [16 heads, 16 keys] = Q K^T, D / 16 k-steps, Q fragments held in registers;
//   softmax S through shared memory, kWarp / 16 lanes a head row, attn::SoftmaxState online;
//           P stored as 16-bit, the rows' rescale factors beside it;
//   O       [16 heads, Dv] = O * alpha + P V, Dv / 16 tiles.
// At the end the 4 warps' (max, sum, O) are merged through shared memory with
// SoftmaxState::merge and written like v3 (final, or a split partial and its state; the fused
// combine where the plan chose it). Registers carry the prefetch (16-byte loads: 4 D / kWarp a
// lane) and the O tiles; shared memory is 4 x (K, V, S, P) tiles: 27 KB for D 64, 43 KB for
// D 128, so a gfx942 CU (64 KB) holds one CTA and a gfx950 CU (160 KB) three.
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
#include "kernels/grouped_device.h"
#include "kernels/matrix_ops.h"

namespace kern {
namespace gdev {
namespace {

constexpr int kTileWarps = 4;
constexpr int kTileKeys = 16;  // keys a warp step
constexpr int kTileThreads = kTileWarps * mo::kWarp;
static_assert(kTileWarps * kTileKeys == kMmaBlockKeys, "the plan's tile is 4 warps x 16 keys");

template <int D>
struct TileSmem {
  static constexpr int kLd = D + 8;           // K / V / Q row stride (16-bit elements)
  static constexpr int kSLd = kTileKeys + 4;  // scores row stride (floats)
  static constexpr int kPLd = kTileKeys + 8;  // probabilities row stride (16-bit)
  static constexpr int kK0 = 0;
  static constexpr int kV0 = kK0 + kTileKeys * kLd * 2;
  static constexpr int kS0 = kV0 + kTileKeys * kLd * 2;
  static constexpr int kP0 = kS0 + kMmaSliceHeads * kSLd * 4;
  static constexpr int kAlpha0 = kP0 + kMmaSliceHeads * kPLd * 2;
  static constexpr int kWarpBytes = kAlpha0 + kMmaSliceHeads * 4;
  // After the walk: every warp's O [16][D] floats over the warp tiles, the states after them.
  static constexpr int kOBytes = kTileWarps * kMmaSliceHeads * D * 4;
  static constexpr int kState0 = kTileWarps * kWarpBytes;
  static constexpr int kBytes = kState0 + kTileWarps * kMmaSliceHeads * 8;
  static_assert(kOBytes <= kState0, "the merge's O tiles must fit over the warp tiles");
  static_assert(kMmaSliceHeads * kLd * 2 <= kWarpBytes, "Q staging must fit in one warp's tiles");
  static_assert(kWarpBytes % 16 == 0 && kV0 % 16 == 0 && kP0 % 16 == 0, "16-byte rows");
};

template <class T, int D>
__global__ void __launch_bounds__(kTileThreads) grouped_tile_kernel(const Params p) {
  if (p.pdl) pdl_allow_dependents();  // the separate combine may be scheduled now
  using L = TileSmem<D>;
  constexpr int kKSteps = D / 16;                        // Q K^T k-steps
  constexpr int kOTiles = D / 16;                        // P V output tiles (Dv = D)
  constexpr int kRowLanes = mo::kWarp / kMmaSliceHeads;  // softmax lanes a head row (2 / 4)
  constexpr int kTpl = kTileKeys / kRowLanes;            // keys a softmax lane (8 / 4)
  constexpr int kRowChunks = D / 8;                      // 16-byte chunks a K or V row
  constexpr int kLoads = 2 * kTileKeys * kRowChunks / mo::kWarp;  // K then V, a lane
  static_assert(kLoads * mo::kWarp == 2 * kTileKeys * kRowChunks, "loads split over the lanes");
  static_assert(kKSteps % 2 == 0 && kTpl % 2 == 0, "k-steps in pairs, P in 16-bit pairs");
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();

  extern __shared__ __align__(16) unsigned char smem[];
  const int warp = static_cast<int>(threadIdx.x) / mo::kWarp;
  const int lane = static_cast<int>(threadIdx.x) % mo::kWarp;
  const int slice = static_cast<int>(blockIdx.x) % p.slices;
  const int split = static_cast<int>(blockIdx.x) / p.slices;
  const int hkv = static_cast<int>(blockIdx.y);
  const int b = static_cast<int>(blockIdx.z);
  const int h0 = hkv * p.g + slice * kMmaSliceHeads;
  const int nh = min(kMmaSliceHeads, p.g - slice * kMmaSliceHeads);
  long long start, end;
  key_range(p, b, split, &start, &end);

  // Q rows h0 .. h0 + 15 (zero past nh) staged in warp 0's tiles, then held as A fragments.
  mo::FragA qf[kKSteps];
  {
    std::uint16_t* qs = reinterpret_cast<std::uint16_t*>(smem);
    const std::uint16_t* q = static_cast<const std::uint16_t*>(p.q);
    for (int c = static_cast<int>(threadIdx.x); c < kMmaSliceHeads * kRowChunks;
         c += kTileThreads) {
      const int r = c / kRowChunks, k = c % kRowChunks;
      uint4 v = make_uint4(0u, 0u, 0u, 0u);
      if (r < nh)
        v = *reinterpret_cast<const uint4*>(q + (static_cast<long long>(b) * p.hq + h0 + r) * D +
                                            8 * k);
      *reinterpret_cast<uint4*>(qs + r * L::kLd + 8 * k) = v;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kKSteps; ++i) mo::load_a(qf[i], qs + 16 * i, L::kLd, lane);
    __syncthreads();  // the warp tiles are reused from here on
  }

  unsigned char* ws = smem + warp * L::kWarpBytes;
  std::uint16_t* ks = reinterpret_cast<std::uint16_t*>(ws + L::kK0);
  std::uint16_t* vs = reinterpret_cast<std::uint16_t*>(ws + L::kV0);
  float* ss = reinterpret_cast<float*>(ws + L::kS0);
  std::uint16_t* ps = reinterpret_cast<std::uint16_t*>(ws + L::kP0);
  float* alpha = reinterpret_cast<float*>(ws + L::kAlpha0);

  const long long row_stride = static_cast<long long>(p.hkv) * D;
  const long long base = (static_cast<long long>(b) * p.seq * p.hkv + hkv) * D;
  const std::uint16_t* kg = static_cast<const std::uint16_t*>(p.k) + base;
  const std::uint16_t* vg = static_cast<const std::uint16_t*>(p.v) + base;
  const int nblk = start < end ? static_cast<int>((end - start + kTileKeys - 1) / kTileKeys) : 0;
  const int mine = nblk > warp ? (nblk - warp + kTileWarps - 1) / kTileWarps : 0;

  // Chunk c = lane + kWarp i of a block: K for c < 2 D (16 rows x D / 8), V after; keys past
  // the split's end are zero (a zero V row keeps P V finite; their scores are masked).
  uint4 pre[kLoads];
  auto fetch = [&](int blk) {
    const long long k0 = start + static_cast<long long>(kTileKeys) * blk;
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      const int c = lane + mo::kWarp * i;
      const int cc = c % (kTileKeys * kRowChunks);
      const long long key = k0 + cc / kRowChunks;
      const std::uint16_t* src =
          (c < kTileKeys * kRowChunks ? kg : vg) + key * row_stride + 8 * (cc % kRowChunks);
      pre[i] = key < end ? *reinterpret_cast<const uint4*>(src) : make_uint4(0u, 0u, 0u, 0u);
    }
  };
  auto stash = [&]() {
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      const int c = lane + mo::kWarp * i;
      const int cc = c % (kTileKeys * kRowChunks);
      std::uint16_t* dst = (c < kTileKeys * kRowChunks ? ks : vs) + (cc / kRowChunks) * L::kLd +
                           8 * (cc % kRowChunks);
      *reinterpret_cast<uint4*>(dst) = pre[i];
    }
  };

  mo::FragC o[kOTiles];
#pragma unroll
  for (int t = 0; t < kOTiles; ++t) mo::zero(o[t]);
  const int srow = lane / kRowLanes, scol = (lane % kRowLanes) * kTpl;
  const float score_scale = p.q_mult * kLn2;  // q_mult = scale * log2(e); the softmax is in e
  attn::SoftmaxState<float> run;

  if (mine > 0) fetch(warp);
  for (int i = 0; i < mine; ++i) {
    const int blk = warp + kTileWarps * i;
    mo::warp_sync();  // the lanes are done with the previous block's tiles
    stash();
    mo::warp_sync();
    if (i + 1 < mine) fetch(blk + kTileWarps);  // in flight while this block is computed

    // ---- S = Q K^T (k-steps in pairs: one k32 product on gfx950)
    mo::FragC s;
    mo::zero(s);
#pragma unroll
    for (int k = 0; k < kKSteps; k += 2) {
      mo::FragB kb0, kb1;
      mo::load_b_nk(kb0, ks + 16 * k, L::kLd, lane);
      mo::load_b_nk(kb1, ks + 16 * k + 16, L::kLd, lane);
      mo::mma_k32<T>(s, qf[k], kb0, qf[k + 1], kb1);
    }
#pragma unroll
    for (int e = 0; e < mo::kFragCElems; ++e)
      ss[mo::frag_c_row(e, lane) * L::kSLd + mo::frag_c_col(e, lane)] = s.v[e];
    mo::warp_sync();

    // ---- online softmax, kRowLanes lanes a head row
    {
      const long long k0 = start + static_cast<long long>(kTileKeys) * blk + scol;
      float x[kTpl];
      float bmax = kNegInf;
#pragma unroll
      for (int u = 0; u < kTpl; ++u) {
        x[u] = k0 + u < end ? ss[srow * L::kSLd + scol + u] * score_scale : kNegInf;
        bmax = fmaxf(bmax, x[u]);
      }
#pragma unroll
      for (int off = kRowLanes / 2; off > 0; off /= 2)
        bmax = fmaxf(bmax, ATTNLAB_SHFL_XOR(bmax, off, mo::kWarp));
      float bsum = 0.f;
#pragma unroll
      for (int u = 0; u < kTpl; ++u) {
        x[u] = bmax == kNegInf ? 0.f : __expf(x[u] - bmax);
        bsum += x[u];
      }
#pragma unroll
      for (int off = kRowLanes / 2; off > 0; off /= 2)
        bsum += ATTNLAB_SHFL_XOR(bsum, off, mo::kWarp);
      attn::SoftmaxState<float> blk_state;
      blk_state.max = bmax;
      blk_state.sum = bsum;
      float sa, sb;
      run = attn::SoftmaxState<float>::merge(run, blk_state, &sa, &sb);
#pragma unroll
      for (int u = 0; u < kTpl; u += 2)
        *reinterpret_cast<std::uint32_t*>(ps + srow * L::kPLd + scol + u) =
            mo::pack2<T>(x[u] * sb, x[u + 1] * sb);
      if (lane % kRowLanes == 0) alpha[srow] = sa;
    }
    mo::warp_sync();

    // ---- O = O * alpha + P V
    mo::FragA pa;
    mo::load_a(pa, ps, L::kPLd, lane);
#pragma unroll
    for (int t = 0; t < kOTiles; ++t) {
#pragma unroll
      for (int e = 0; e < mo::kFragCElems; ++e) o[t].v[e] *= alpha[mo::frag_c_row(e, lane)];
      mo::FragB vb;
      mo::load_b_kn(vb, vs + 16 * t, L::kLd, lane);
      mo::mma<T>(o[t], pa, vb);
    }
  }

  // ---- merge the 4 warps: (max, sum) and unnormalised O of each through shared memory
  __syncthreads();  // every warp is done with its tiles: they hold the O tiles now
  float* o_sh = reinterpret_cast<float*>(smem);                  // [warp][16][D]
  float2* st_sh = reinterpret_cast<float2*>(smem + L::kState0);  // [warp][16]
#pragma unroll
  for (int t = 0; t < kOTiles; ++t)
#pragma unroll
    for (int e = 0; e < mo::kFragCElems; ++e)
      o_sh[(warp * kMmaSliceHeads + mo::frag_c_row(e, lane)) * D + 16 * t +
           mo::frag_c_col(e, lane)] = o[t].v[e];
  if (lane % kRowLanes == 0) st_sh[warp * kMmaSliceHeads + srow] = make_float2(run.max, run.sum);
  __syncthreads();
  for (int idx = static_cast<int>(threadIdx.x); idx < nh * D; idx += kTileThreads) {
    const int row = idx / D, dd = idx % D;
    attn::SoftmaxState<float> m;
    float acc = 0.0f;
#pragma unroll
    for (int w = 0; w < kTileWarps; ++w) {
      attn::SoftmaxState<float> part;
      part.max = st_sh[w * kMmaSliceHeads + row].x;
      part.sum = st_sh[w * kMmaSliceHeads + row].y;
      float sa, sb;
      m = attn::SoftmaxState<float>::merge(m, part, &sa, &sb);
      acc = acc * sa + (sb != 0.0f ? o_sh[(w * kMmaSliceHeads + row) * D + dd] * sb : 0.0f);
    }
    write_result(p, split, b, h0 + row, dd, &acc, 1, m.max, m.sum, dd == 0);
  }
  if (p.fused && p.splits > 1) {
    __syncthreads();  // the O tiles are free now: they hold the combine's weights
    combine_if_last(p, b, (b * p.hkv + hkv) * p.slices + slice, h0, nh, o_sh);
  }
}

struct TileKernel {
  void (*fn)(Params);
  int per_sm;  // resident CTAs a multiprocessor; 0 where the tile does not fit the device
};

// The kernel of (T, D), its dynamic shared memory allowed and its occupancy asked once an
// instantiation.
template <class T, int D>
const TileKernel& prepared() {
  static const TileKernel k{
      grouped_tile_kernel<T, D>,
      resident_blocks(grouped_tile_kernel<T, D>, kTileThreads, TileSmem<D>::kBytes)};
  return k;
}

const TileKernel& kernel_for(bool fp16, int d) {
  if (fp16) return d == 64 ? prepared<mo::Fp16, 64>() : prepared<mo::Fp16, 128>();
  return d == 64 ? prepared<mo::Bf16, 64>() : prepared<mo::Bf16, 128>();
}

}  // namespace

bool tile_supported(int d, int dv, bool fp16_or_bf16) {
  return fp16_or_bf16 && d == dv && (d == 64 || d == 128);
}

int tile_smem_bytes(int d) { return d == 64 ? TileSmem<64>::kBytes : TileSmem<128>::kBytes; }

int tile_blocks_per_sm(bool fp16, int d) { return std::max(1, kernel_for(fp16, d).per_sm); }

void launch_grouped_tile(const Params& p, bool fp16, int splits, hipStream_t stream) {
  if (!tile_supported(p.d, p.dv, true))
    throw attn::DeviceError("grouped decode v6 (tile): D = Dv must be 64 or 128");
  const TileKernel& k = kernel_for(fp16, p.d);
  if (k.per_sm < 1)
    throw attn::DeviceError("grouped decode v6 (tile): " + std::to_string(tile_smem_bytes(p.d)) +
                            " bytes of shared memory a block do not fit this device");
  const dim3 grid(static_cast<unsigned>(splits * p.slices), static_cast<unsigned>(p.hkv),
                  static_cast<unsigned>(p.batch));
  k.fn<<<grid, dim3(kTileThreads), tile_smem_bytes(p.d), stream>>>(p);
  HIP_CHECK_LAUNCH();
}

}  // namespace gdev
}  // namespace kern
