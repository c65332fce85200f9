// MLA absorbed decode v6 on Hopper's warpgroup matrix instructions (wgmma): up to 16 heads a
// CTA, both products transposed so that 64 tokens fill a wgmma's rows. NVIDIA sm_90a only
// (CMakeLists.txt builds this file for that target alone); bf16 or fp16 q and cache. The plan
// (mla_plan.hip) asks for v6 for 16-bit caches with H <= 16 on a compute capability 9.0
// device; v5 (decode_mla_wgmma_sm90a.hip) takes more heads.
//
// Shapes: q [B, H, 576], kv [B, S, 576] (keys = all 576 columns, values = the first 512), out
// [B, H, 512] float32 (or the split partials of MlaParams).
#include "kernels/hip_compat.h"

#include <cmath>
#include <cstdint>
#include <string>

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

// ------------------------------------------------------------------------------------------
// v6: up to 16 heads a CTA, both products transposed so that the tokens, not the heads, fill
// the 64 rows of a wgmma:
//   S^T [tokens x 16] = K Q^T     m64n16k16, A = the KV block (K-major), B = Q (K-major)
//   O^T [512 x 16]   += V^T P^T   m64n16k16, A = V^T read MN-major from the same block, B = P^T
// v5 runs a 16-head case on 64-row tiles of which 48 are padding, so its tensor work is that
// of 64 heads (H16 B64 S8192: 155.6 us against 167.7 for H64): the loop, not the
// memory, sets its pace. Here the tensor work is a quarter of v5's. Measured (H200):
// bs256 kv8192 at 99 % of the read probe, H16 B64 S8192 152.8 us (v5 154.5).
// Shorter blocks (48, 32 tokens) lose: Q K^T's A operand still reads 64 rows of shared memory.
// CTA = (16-head tile, KV split, b), 256 threads: WG0 computes S^T, the softmax (a head's
// max over the block crosses the 4 warps through shared memory) and O^T for dims 0..255; WG1
// issues every KV copy (kNS stages of kBN tokens) and computes O^T for dims 256..511.
// kBN < 64: a block's column tile is kBN rows, so Q K^T's 64-row A operand reads 64 - kBN rows
// of whatever follows (the next tile, stage, or the slack below); those token rows are masked
// before the softmax and P V's k-steps stop at kBN.
constexpr int kNHeads = 16;  // heads a CTA: N of both products

template <int kBN, int kNS>
struct Narrow {
  static constexpr int kTile = kBN * 128;         // one 64-column slice of a block
  static constexpr int kStage = kKTiles * kTile;  // a block: 73728 bytes for 64 tokens
  static constexpr int kQTile = kNHeads * 128;    // one 64-column slice of Q
  static constexpr int kQ0 = 0;
  static constexpr int kKV0 = kKTiles * kQTile;                       // 18432
  static constexpr int kP0 = kKV0 + kNS * kStage + (64 - kBN) * 128;  // after the over-read slack
  static constexpr int kRed0 = kP0 + kNHeads * 128;                   // float [4 warps][16 heads]
  static constexpr int kAlpha0 = kRed0 + 4 * kNHeads * 4;             // float [16]
  static constexpr int kState0 = kAlpha0 + kNHeads * 4;               // float2 [16]
  static constexpr int kBytes = kState0 + kNHeads * 8 + 1024;         // + slack to align to 1024
  static_assert(kBN % 16 == 0 && kBN <= 64 && kStage % 1024 == 0 && kP0 % 1024 == 0, "v6 layout");
  static_assert(kBytes <= 227 * 1024, "v6 shared memory");
};

__device__ __forceinline__ void bar_sync_wg0() { asm volatile("bar.sync 2, 128;\n" ::: "memory"); }

template <class T, int kBN, int kNS>
__global__ void __launch_bounds__(kThreads, 1) mla_wgmma_narrow_kernel(MlaParams p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if (p.pdl) pdl_allow_dependents();  // the split combine may be scheduled now
  using L = Narrow<kBN, kNS>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (wg::smem_addr(smem_raw) & 1023)) & 1023);
  const int tid = threadIdx.x, wgi = tid / 128, warp = (tid / 32) % 4, lane = tid % 32;
  const int g = lane / 4, c = lane % 4;
  // Accumulator slots of m64n16 (both products): d[4 i + e] is row 16 warp + g + 8 (e / 2),
  // column (head) 8 i + 2 c + e % 2. Head slot h = 2 i + e % 2 of this thread: head hd(h).
  auto hd = [&](int h) { return 8 * (h >> 1) + 2 * c + (h & 1); };

  const int tile = blockIdx.x % p.head_tiles;
  const int rest = blockIdx.x / p.head_tiles;
  const int split = rest % p.splits;
  const std::int64_t b = rest / p.splits;
  const int head0 = tile * kNHeads;
  const std::int64_t len = p.lens ? std::min<std::int64_t>(p.lens[b], p.seq) : p.seq;
  const std::int64_t t0 = split * p.split_len;
  const std::int64_t t1 = std::min<std::int64_t>(len, t0 + p.split_len);
  const int n_blocks = t1 > t0 ? static_cast<int>((t1 - t0 + kBN - 1) / kBN) : 0;

  if (n_blocks == 0) {
    mla_write_empty_split(p, b, head0, kNHeads, split, tid, kThreads);
    return;
  }

  const std::uint16_t* kv_b = static_cast<const std::uint16_t*>(p.kv) + b * p.seq * kDk;
  const std::uint16_t* q_b = static_cast<const std::uint16_t*>(p.q) + b * p.heads * kDk;
  auto issue = [&](int j) {  // block j -> stage j % kNS, by WG1 (rows past t1 zero-filled)
    const std::int64_t tb = t0 + std::int64_t(j) * kBN;
    copy_rows<128, kBN, L::kTile>(smem + L::kKV0 + (j % kNS) * L::kStage, kv_b + tb * kDk,
                                  t1 - tb < kBN ? static_cast<int>(t1 - tb) : kBN, tid - 128);
  };
  // Q (zero rows past H) by all threads with block 0; blocks 1 .. kNS - 2: a group each.
  for (int i = tid; i < kNHeads * kKTiles * 8; i += kThreads) {
    const int row = i / (kKTiles * 8), cc = i % (kKTiles * 8);
    const bool valid = head0 + row < p.heads;
    mo::copy16(smem + L::kQ0 + (cc >> 3) * L::kQTile + wg::tile_offset(row, cc & 7),
               valid ? q_b + (head0 + row) * kDk + cc * 8 : q_b, valid);
  }
  if (wgi == 1) issue(0);
  mo::copy_commit();
#pragma unroll
  for (int j = 1; j < kNS - 1; ++j) {
    if (wgi == 1 && j < n_blocks) issue(j);
    mo::copy_commit();
  }

  float o[4][8];  // O^T tiles: dims 256 wgi + 64 t + row, heads as above
#pragma unroll
  for (int t = 0; t < 4; ++t)
#pragma unroll
    for (int i = 0; i < 8; ++i) o[t][i] = 0.f;
  float m_run[4], l_run[4];  // WG0, head slots; m_run is the CTA's (every WG0 thread agrees)
#pragma unroll
  for (int h = 0; h < 4; ++h) {
    m_run[h] = -INFINITY;
    l_run[h] = 0.f;  // over this thread's tokens only; summed in the epilogue
  }
  const float sl2 = p.score_scale * 1.4426950408889634f;
  float* red_sh = reinterpret_cast<float*>(smem + L::kRed0);
  float* alpha_sh = reinterpret_cast<float*>(smem + L::kAlpha0);
  float2* state_sh = reinterpret_cast<float2*>(smem + L::kState0);
  const std::uint32_t q_s = wg::smem_addr(smem + L::kQ0), p_s = wg::smem_addr(smem + L::kP0);

  for (int j = 0; j < n_blocks; ++j) {
    mo::copy_wait<kNS - 2>();
    wg::fence_async_smem();
    __syncthreads();  // block j landed; block j - 1's stage, P^T and red_sh are free
    if (wgi == 1 && j + kNS - 1 < n_blocks && !(kDiag && (p.probe & 4))) issue(j + kNS - 1);
    mo::copy_commit();
    const std::uint32_t kv_s = wg::smem_addr(smem + L::kKV0 + (j % kNS) * L::kStage);

    float al[4];
    if (wgi == 0) {
      float s[8];
      if (kDiag && (p.probe & 1)) {
#pragma unroll
        for (int i = 0; i < 8; ++i) s[i] = 0.f;
      } else {
        wg::fence();
#pragma unroll
        for (int kk = 0; kk < kDk / 16; ++kk)
          wg::mma_ss_m64n16k16<0, 0>(
              T{}, s, wg::desc(kv_s + (kk >> 2) * L::kTile + (kk & 3) * 32, 16, 1024),
              wg::desc(q_s + (kk >> 2) * L::kQTile + (kk & 3) * 32, 16, 1024), kk > 0);
        wg::commit();
        wg::wait<0>();
        wg::pin(s);
      }
      // Online softmax over the block's tokens, log2 units, per head (column).
      const std::int64_t tb = t0 + std::int64_t(j) * kBN;
      float mx[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int r = 16 * warp + g + 8 * ((i & 3) >> 1);
        const bool valid = r < kBN && tb + r < t1;
        const float x = valid ? s[i] * sl2 : -INFINITY;  // also drops the over-read rows
        s[i] = x;
        const int h = 2 * (i >> 2) + (i & 1);
        mx[h] = fmaxf(mx[h], x);
      }
#pragma unroll
      for (int h = 0; h < 4; ++h) {
        mx[h] = fmaxf(mx[h], ATTNLAB_SHFL_XOR(mx[h], 4, 32));
        mx[h] = fmaxf(mx[h], ATTNLAB_SHFL_XOR(mx[h], 8, 32));
        mx[h] = fmaxf(mx[h], ATTNLAB_SHFL_XOR(mx[h], 16, 32));
        if (g == 0) red_sh[warp * kNHeads + hd(h)] = mx[h];
      }
      bar_sync_wg0();
#pragma unroll
      for (int h = 0; h < 4; ++h) {
        const float bm = fmaxf(fmaxf(red_sh[hd(h)], red_sh[kNHeads + hd(h)]),
                               fmaxf(red_sh[2 * kNHeads + hd(h)], red_sh[3 * kNHeads + hd(h)]));
        const float mn = fmaxf(m_run[h], bm);  // finite: token tb is valid
        al[h] = wg::exp2_ftz(m_run[h] - mn);
        m_run[h] = mn;
        l_run[h] *= al[h];
      }
      // P^T [16 heads][64 tokens], K-major, 128-byte swizzle; this thread's tokens r, r + 8.
#pragma unroll
      for (int i = 0; i < 8; i += 4) {  // s[i + e] and s[i + e + 2]: one head's two tokens
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int h = 2 * (i >> 2) + e, head = hd(h), r = 16 * warp + g;
          const float p0 = wg::exp2_ftz(s[i + e] - m_run[h]),
                      p1 = wg::exp2_ftz(s[i + e + 2] - m_run[h]);
          l_run[h] += p0 + p1;
          const std::uint32_t pk = mo::pack2<T>(p0, p1);
          unsigned char* row = smem + L::kP0 + head * 128 + (r & 7) * 2;
          *reinterpret_cast<std::uint16_t*>(row + (((r >> 3) ^ (head & 7)) << 4)) =
              static_cast<std::uint16_t>(pk);
          *reinterpret_cast<std::uint16_t*>(row + ((((r >> 3) + 1) ^ (head & 7)) << 4)) =
              static_cast<std::uint16_t>(pk >> 16);
        }
      }
      if (warp == 0 && g == 0)
#pragma unroll
        for (int h = 0; h < 4; ++h) alpha_sh[hd(h)] = al[h];
      wg::fence_async_smem();  // P^T is read by both warpgroups' wgmma
    }
    bar_sync_p();  // P^T and alpha of block j are in shared memory
    if (wgi == 1)
#pragma unroll
      for (int h = 0; h < 4; ++h) al[h] = alpha_sh[hd(h)];
    if (__any_sync(0xffffffffu, al[0] != 1.f || al[1] != 1.f || al[2] != 1.f || al[3] != 1.f)) {
#pragma unroll
      for (int t = 0; t < 4; ++t)
#pragma unroll
        for (int i = 0; i < 8; ++i) o[t][i] *= al[2 * (i >> 2) + (i & 1)];
    }
    if (!(kDiag && (p.probe & 2))) {
      wg::fence();
#pragma unroll
      for (int kk = 0; kk < kBN / 16; ++kk)
#pragma unroll
        for (int t = 0; t < 4; ++t)
          wg::mma_ss_m64n16k16<1, 0>(
              T{}, o[t], wg::desc(kv_s + (4 * wgi + t) * L::kTile + kk * 16 * 128, L::kTile, 1024),
              wg::desc(p_s + kk * 32, 16, 1024), 1);
      wg::commit();
      wg::wait<0>();
#pragma unroll
      for (int t = 0; t < 4; ++t) wg::pin(o[t]);
    }
  }

  // Epilogue: the heads' (max, sum) to shared memory (WG0), then each warpgroup its dims.
  if (wgi == 0) {
#pragma unroll
    for (int h = 0; h < 4; ++h) {
      l_run[h] += ATTNLAB_SHFL_XOR(l_run[h], 4, 32);
      l_run[h] += ATTNLAB_SHFL_XOR(l_run[h], 8, 32);
      l_run[h] += ATTNLAB_SHFL_XOR(l_run[h], 16, 32);
      if (g == 0) red_sh[warp * kNHeads + hd(h)] = l_run[h];  // the loop's reads are done
    }
    bar_sync_wg0();
    if (warp == 0 && g == 0)
#pragma unroll
      for (int h = 0; h < 4; ++h)
        state_sh[hd(h)] =
            make_float2(m_run[h] * 0.6931471805599453f, red_sh[hd(h)] + red_sh[kNHeads + hd(h)] +
                                                            red_sh[2 * kNHeads + hd(h)] +
                                                            red_sh[3 * kNHeads + hd(h)]);
  }
  __syncthreads();
  if (p.splits > 1 && tid < kNHeads && head0 + tid < p.heads)
    p.part_state[(b * p.heads + head0 + tid) * p.splits + split] = state_sh[tid];
#pragma unroll
  for (int h = 0; h < 4; ++h) {
    const int head = head0 + hd(h);
    if (head >= p.heads) continue;
    const float2 st = state_sh[hd(h)];
    const std::int64_t bh = b * p.heads + head;
    const float mul = p.splits == 1 ? (st.y > 0.f ? p.out_scale / st.y : 0.f) : p.out_scale;
    float* dst = p.splits == 1 ? p.out + bh * kDl : p.part_acc + (bh * p.splits + split) * kDl;
#pragma unroll
    for (int t = 0; t < 4; ++t)
#pragma unroll
      for (int e2 = 0; e2 < 2; ++e2) {
        const int i = 4 * (h >> 1) + 2 * e2 + (h & 1);
        dst[256 * wgi + 64 * t + 16 * warp + g + 8 * e2] = o[t][i] * mul;
      }
  }
#else
  __trap();  // built only for sm_90a; the host never launches it elsewhere
#endif
}

template <class T, int kBN, int kNS>
MlaKernelFn prepared_narrow(int* smem_bytes, int* threads, int* per_sm) {
  constexpr int kBytes = Narrow<kBN, kNS>::kBytes;
  MlaKernelFn fn = mla_wgmma_narrow_kernel<T, kBN, kNS>;
  static const int occupancy = resident_blocks(fn, kThreads, kBytes);  // once an instantiation
  *smem_bytes = kBytes;
  *threads = kThreads;
  *per_sm = occupancy;
  return fn;
}

template <class T>
MlaKernelFn select_narrow(const MlaKernelChoice& c, int* smem_bytes, int* threads, int* per_sm) {
  if (c.block_n == 64 && c.stages == 2)
    return prepared_narrow<T, 64, 2>(smem_bytes, threads, per_sm);
  if (c.block_n == 48 && c.stages == 3)
    return prepared_narrow<T, 48, 3>(smem_bytes, threads, per_sm);
  if (c.block_n == 32 && c.stages == 2)
    return prepared_narrow<T, 32, 2>(smem_bytes, threads, per_sm);
  if (c.block_n == 32 && c.stages == 4)
    return prepared_narrow<T, 32, 4>(smem_bytes, threads, per_sm);
  return nullptr;
}

}  // namespace

MlaKernelFn mla_wgmma_narrow_kernel_for(attn::DType dt, const MlaKernelChoice& c, int* smem_bytes,
                                        int* threads, int* per_sm) {
  if (dt != attn::DType::kBf16 && dt != attn::DType::kFp16)
    throw attn::DeviceError("MLA decode v6: dtype " + std::string(attn::dtype_name(dt)) +
                            " is not supported (bf16 or fp16 caches)");
  if (!device_is_sm90())
    throw attn::DeviceError("MLA decode v6 needs a compute capability 9.0 GPU (H100 / H200)");
  MlaKernelFn fn = c.head_groups != 1 ? nullptr
                   : dt == attn::DType::kFp16
                       ? select_narrow<mo::Fp16>(c, smem_bytes, threads, per_sm)
                       : select_narrow<mo::Bf16>(c, smem_bytes, threads, per_sm);
  if (!fn)
    throw attn::DeviceError(
        "MLA decode v6: no kernel for head_groups " + std::to_string(c.head_groups) + ", block_n " +
        std::to_string(c.block_n) + ", stages " + std::to_string(c.stages) +
        " (v6 has head_groups 1 with block_n / stages 64 / 2, 48 / 3, 32 / 2, 32 / 4)");
  return fn;
}

#endif  // ATTNLAB_HIP_ON_CUDA

}  // namespace kern
