// MLA absorbed decode v7 on Hopper's warpgroup matrix instructions (wgmma) for fp8 e4m3
// caches: up to 16 heads a CTA, tokens as the rows of both products as in v6, but the cache
// stays e4m3 in shared memory and each A operand is converted to fp16 in registers on its way
// to a register-A ("rs") wgmma. NVIDIA sm_90a only (CMakeLists.txt builds this file for that
// target alone); bf16 q with an e4m3 cache (value = e4m3 * kv_scale).
//
// Shapes: q [B, H, 576] bf16, kv [B, S, 576] e4m3 bytes (keys = all 576 columns, values = the
// first 512), out [B, H, 512] float32 (or the split partials of MlaParams).
//
// Why (kernels/DESIGN.md, section 4): Hopper has no native e4m3 mma.sync, and wgmma takes e4m3 only
// with both operands K-major in shared memory, which P V's values are not. v4 converts in
// registers for mma.sync and is issue-bound (~280 conversions beside 136 mma a warp's 64-token
// step); v6 with a conversion pass through shared memory was slower still (684 us for bs256
// kv8192 against v4's 397). Here the conversion is the only extra work: one cvt.rn.f16x2.e4m3x2
// per two values, read with conflict-free 8-byte loads, and one wgmma covers 64 tokens x 16
// heads x 16. The blocks are half v6's size, so two CTAs fit an SM.
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
// v7, CTA = (16-head tile, KV split, b), 256 threads; blocks of 64 tokens, kNS stages:
//   S^T [64 tokens x 32] = K [Qhi; Qlo]^T   m64n32k32 e4m3 x e4m3, both operands K-major in
//                                         shared memory as the cache stores them (no conversion)
//   O^T [512 x 16]      += V^T P^T          m64n16k16 fp16, A = V^T converted in registers
// Q (bf16) is scaled by 2^e a head into [128, 256) and split into two e4m3 terms, Qhi = e4m3(q)
// and Qlo = e4m3(q - Qhi): |q - Qhi - Qlo| <= 2^-8 |q| (or 2^-10 absolute, below 2^-17 of the
// row's max), about bf16's own rounding of q. The 32 columns of S^T are the 16 heads' hi and lo
// parts, which the same thread holds (columns n and n + 16), so a head's score is one add.
// WG0 computes S^T and the softmax (a head's max crosses its 4 warps through shared memory),
// WG1 issues the KV copies; both then compute O^T over dims 256 wgi .. 256 wgi + 255.
//
// Shared memory, e4m3 operands (the block and Q): wgmma's 64-byte-swizzle K-major layout, 9
// column slices of 64 bytes, a slice's rows 64 bytes apart, 16-byte chunk q of row r at chunk
// q ^ (r / 2 % 4) (fp8_offset). (The no-swizzle layout, core matrices 144 bytes apart, ran
// bs256 kv8192 at 580 us: wgmma reads it slowly.)
// P V's A fragment (V^T: rows are dims, k is tokens): the thread's rows 16 w + g + 8 h of the
//   warpgroup's four 64-row tiles t are dims 256 wgi + 64 w + 8 g + 2 t + h, 8 consecutive
//   bytes of a token row; four 8-byte loads (tokens 2c, 2c+1, 2c+8, 2c+9 of the k-step) and a
//   byte permute a pair of registers give all 16 A registers of a k-step. Lanes with c odd
//   load the odd token first, so that each load's lanes cover both 64-byte bank halves (2
//   wavefronts per 256 bytes, the minimum); the permute's selector undoes the swap. The output
//   rows are un-permuted in the epilogue (8 consecutive dims a head: two float4 stores).
constexpr int kNHeads = 16;
constexpr int kBN = 64;

// Byte of (row, col) in a 64-byte-swizzle operand of kRows rows (slices kRows x 64 bytes).
template <int kRows>
__device__ __forceinline__ int fp8_offset(int row, int col) {
  return (col >> 6) * (kRows * 64) + row * 64 + ((((col >> 4) & 3) ^ ((row >> 1) & 3)) << 4) +
         (col & 15);
}

template <int kNS>
struct Fp8Narrow {
  static constexpr int kP0 = 0;                                // P^T fp16, 128-byte swizzle
  static constexpr int kQ0 = kP0 + kNHeads * 128;              // [Qhi; Qlo] e4m3, 32 rows
  static constexpr int kKV0 = kQ0 + 2 * kNHeads * kDk;         // 20480
  static constexpr int kStage = kBN * kDk;                     // 36864
  static constexpr int kRed0 = kKV0 + kNS * kStage;            // float [4 warps][16 heads]
  static constexpr int kAlpha0 = kRed0 + 4 * kNHeads * 4;      // float [16]
  static constexpr int kUnscale0 = kAlpha0 + kNHeads * 4;      // float [16]: 2^-e of each Q row
  static constexpr int kState0 = kUnscale0 + kNHeads * 4;      // float2 [16]
  static constexpr int kBytes = kState0 + kNHeads * 8 + 1024;  // + slack to align to 1024
  static_assert(kQ0 % 1024 == 0 && kKV0 % 1024 == 0 && kStage % 1024 == 0, "v7 layout");
  static_assert(kBytes <= 227 * 1024, "v7 shared memory");
};

__device__ __forceinline__ void bar_sync_wg0() { asm volatile("bar.sync 2, 128;\n" ::: "memory"); }

__device__ __forceinline__ uint2 lds64(const unsigned char* p) {
  return *reinterpret_cast<const uint2*>(p);
}
// Descriptor of a 64-byte-swizzle K-major operand (layout type 2): 8-row groups 512 bytes apart.
__device__ __forceinline__ std::uint64_t desc_sw64(std::uint32_t addr) {
  return std::uint64_t((addr & 0x3ffff) >> 4) | (std::uint64_t(1) << 16) |
         (std::uint64_t(512 >> 4) << 32) | (std::uint64_t(2) << 62);
}
// d (+)= A B, m64n32k32, e4m3 x e4m3 -> f32, both K-major descriptors.
__device__ __forceinline__ void mma_e4m3_m64n32k32(float (&d)[16], std::uint64_t a, std::uint64_t b,
                                                   int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, 1, "
      "1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "l"(a), "l"(b), "r"(scale_d));
}
// Two floats -> two e4m3 (round to nearest, saturating), lo in the low byte.
__device__ __forceinline__ std::uint16_t to_e4m3x2(float lo, float hi) {
  std::uint16_t r;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\n" : "=h"(r) : "f"(hi), "f"(lo));
  return r;
}
__device__ __forceinline__ float2 from_e4m3x2(std::uint16_t x) {
  float a, b;
  asm("{\n .reg .b32 h;\n .reg .b16 u, v;\n cvt.rn.f16x2.e4m3x2 h, %2;\n mov.b32 {u, v}, h;\n"
      " cvt.f32.f16 %0, u;\n cvt.f32.f16 %1, v;\n}\n"
      : "=f"(a), "=f"(b)
      : "h"(x));
  return make_float2(a, b);
}

template <int kNS>
__global__ void __launch_bounds__(kThreads, kNS == 2 ? 2 : 1) mla_wgmma_fp8_kernel(MlaParams p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if (p.pdl) pdl_allow_dependents();  // the split combine may be scheduled now
  using L = Fp8Narrow<kNS>;
  using T = mo::Fp16;
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

  const unsigned char* kv_b = static_cast<const unsigned char*>(p.kv) + b * p.seq * kDk;
  const std::uint16_t* q_b = static_cast<const std::uint16_t*>(p.q) + b * p.heads * kDk;
  // Block j -> stage j % kNS by WG1 (rows past t1 zero-filled): thread t copies chunk t % 4 of
  // every 64-byte slice of rows t / 4 and t / 4 + 32, 18 copies whose source and destination
  // are a per-thread base plus a constant (both rows share the swizzle term). A warp
  // instruction reads 8 rows x 64 bytes; the 9 slices complete each row's 576 bytes.
  const int c_row = (tid - 128) / 4, c_q = (tid - 128) % 4;
  const int c_dst = c_row * 64 + ((c_q ^ ((c_row >> 1) & 3)) << 4), c_src = c_row * kDk + c_q * 16;
  auto issue = [&](int j) {
    const std::int64_t tb = t0 + std::int64_t(j) * kBN;
    const int nvalid = t1 - tb < kBN ? static_cast<int>(t1 - tb) : kBN;
    unsigned char* dst = smem + L::kKV0 + (j % kNS) * L::kStage + c_dst;
    const unsigned char* src = kv_b + tb * kDk;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const bool valid = c_row + 32 * half < nvalid;
      const unsigned char* s0 = valid ? src + c_src + 32 * half * kDk : src;
#pragma unroll
      for (int sl = 0; sl < kDk / 64; ++sl)
        mo::copy16(dst + sl * kBN * 64 + half * 32 * 64, s0 + sl * 64, valid);
    }
  };
  if (wgi == 1) issue(0);
  mo::copy_commit();
#pragma unroll
  for (int j = 1; j < kNS - 1; ++j) {
    if (wgi == 1 && j < n_blocks) issue(j);
    mo::copy_commit();
  }

  // Q: 16 threads a head row: scaled by 2^e into [128, 256), then Qhi (row h) and Qlo (row
  // 16 + h) in e4m3; the softmax undoes 2^e with the score scale. Rows past H are zero.
  {
    const int row = tid / 16, sub = tid % 16;
    const bool valid = head0 + row < p.heads;
    const std::uint32_t* qw =
        reinterpret_cast<const std::uint32_t*>(q_b + (valid ? head0 + row : 0) * kDk);
    std::uint32_t w[kDk / 32];
    float amax = 0.f;
#pragma unroll
    for (int k = 0; k < kDk / 32; ++k) {
      w[k] = valid ? qw[sub + 16 * k] : 0u;
      amax = fmaxf(amax, fmaxf(fabsf(mo::bf16_to_float(w[k] & 0xffffu)),
                               fabsf(mo::bf16_to_float(w[k] >> 16))));
    }
#pragma unroll
    for (int off = 8; off > 0; off /= 2) amax = fmaxf(amax, ATTNLAB_SHFL_XOR(amax, off, 32));
    int ex = 0;
    if (amax > 0.f) (void)frexpf(amax, &ex);  // amax = m 2^ex, m in [0.5, 1)
    const int e = amax > 0.f ? max(-120, min(120, 8 - ex)) : 0;
    const float up = ldexpf(1.f, e);
    if (sub == 0) reinterpret_cast<float*>(smem + L::kUnscale0)[row] = ldexpf(1.f, -e);
#pragma unroll
    for (int k = 0; k < kDk / 32; ++k) {
      const int d = 2 * (sub + 16 * k);
      const float x0 = mo::bf16_to_float(w[k] & 0xffffu) * up,
                  x1 = mo::bf16_to_float(w[k] >> 16) * up;
      const std::uint16_t hi = to_e4m3x2(x0, x1);
      const float2 h = from_e4m3x2(hi);
      *reinterpret_cast<std::uint16_t*>(smem + L::kQ0 + fp8_offset<2 * kNHeads>(row, d)) = hi;
      *reinterpret_cast<std::uint16_t*>(smem + L::kQ0 + fp8_offset<2 * kNHeads>(16 + row, d)) =
          to_e4m3x2(x0 - h.x, x1 - h.y);
    }
  }
  wg::fence_async_smem();  // Q is read by wgmma
  __syncthreads();

  float o[4][8];  // O^T tiles t: dims 256 wgi + 64 warp + 8 g + 2 t + row half, heads as above
#pragma unroll
  for (int t = 0; t < 4; ++t)
#pragma unroll
    for (int i = 0; i < 8; ++i) o[t][i] = 0.f;
  float m_run[4], l_run[4], sl2h[4];  // WG0, head slots; m_run is the CTA's (WG0 agrees)
  const float sl2 = p.score_scale * 1.4426950408889634f;
#pragma unroll
  for (int h = 0; h < 4; ++h) {
    m_run[h] = -INFINITY;
    l_run[h] = 0.f;  // over this thread's tokens only; summed in the epilogue
    sl2h[h] = sl2 * reinterpret_cast<const float*>(smem + L::kUnscale0)[hd(h)];
  }
  float* red_sh = reinterpret_cast<float*>(smem + L::kRed0);
  float* alpha_sh = reinterpret_cast<float*>(smem + L::kAlpha0);
  float2* state_sh = reinterpret_cast<float2*>(smem + L::kState0);
  const std::uint32_t q_s = wg::smem_addr(smem + L::kQ0), p_s = wg::smem_addr(smem + L::kP0);
  const int d0 = 256 * wgi + 64 * warp + 8 * g;  // this thread's first V^T dim
  // V^T loads: token 2c + c % 2 of k-step 0 at v_off; its pair partner v_pair bytes away; the
  // swizzle term ((token / 2) % 4 = c) is the same for all four tokens of every k-step.
  const int v_off = fp8_offset<kBN>(2 * c + (c & 1), d0), v_pair = c & 1 ? -64 : 64;
  const unsigned sel_even = c & 1 ? 0x1504u : 0x5140u, sel_odd = c & 1 ? 0x3726u : 0x7362u;

  for (int j = 0; j < n_blocks; ++j) {
    mo::copy_wait<kNS - 2>();
    wg::fence_async_smem();
    __syncthreads();  // block j landed; block j - 1's stage, P^T and red_sh are free
    if (wgi == 1 && j + kNS - 1 < n_blocks && !(kDiag && (p.probe & 4))) issue(j + kNS - 1);
    mo::copy_commit();
    const unsigned char* blk = smem + L::kKV0 + (j % kNS) * L::kStage;

    float al[4];
    if (wgi == 0) {
      float s[8];
      if (kDiag && (p.probe & 1)) {
#pragma unroll
        for (int i = 0; i < 8; ++i) s[i] = 0.f;
      } else {
        // Two accumulator chains (even and odd k-steps), so that the tensor core need not wait
        // for one product before the next. Columns 0..15: Qhi, 16..31: Qlo.
        float s2[16], s3[16];
        const std::uint32_t kv_s = wg::smem_addr(blk);
        wg::fence();
#pragma unroll
        for (int kk = 0; kk < kDk / 32; kk += 2) {
          mma_e4m3_m64n32k32(s2, desc_sw64(kv_s + (kk >> 1) * kBN * 64),
                             desc_sw64(q_s + (kk >> 1) * 2 * kNHeads * 64), kk > 0);
          mma_e4m3_m64n32k32(s3, desc_sw64(kv_s + (kk >> 1) * kBN * 64 + 32),
                             desc_sw64(q_s + (kk >> 1) * 2 * kNHeads * 64 + 32), kk > 0);
        }
        wg::commit();
        wg::wait<0>();
        wg::pin(s2);
        wg::pin(s3);
#pragma unroll
        for (int i = 0; i < 8; ++i) s[i] = (s2[i] + s3[i]) + (s2[i + 8] + s3[i + 8]);
      }
      // Online softmax over the block's tokens, log2 units, per head (column).
      const std::int64_t tb = t0 + std::int64_t(j) * kBN;
      float mx[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int r = 16 * warp + g + 8 * ((i & 3) >> 1);
        const int h = 2 * (i >> 2) + (i & 1);
        const float x = tb + r < t1 ? s[i] * sl2h[h] : -INFINITY;
        s[i] = x;
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
          unsigned char* prow = smem + L::kP0 + head * 128 + (r & 7) * 2;
          *reinterpret_cast<std::uint16_t*>(prow + (((r >> 3) ^ (head & 7)) << 4)) =
              static_cast<std::uint16_t>(pk);
          *reinterpret_cast<std::uint16_t*>(prow + ((((r >> 3) + 1) ^ (head & 7)) << 4)) =
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
    // O^T += V^T P^T, a k-step of 16 tokens at a time.
    if (!(kDiag && (p.probe & 2))) {
#pragma unroll
      for (int kk = 0; kk < kBN / 16; ++kk) {
        // tokens 2c + odd, 2c + !odd, and the same + 8 (odd = c % 2: the swapped pair)
        const unsigned char* vr = blk + v_off + kk * 16 * 64;
        const uint2 x0 = lds64(vr), x1 = lds64(vr + v_pair), x2 = lds64(vr + 8 * 64),
                    x3 = lds64(vr + 8 * 64 + v_pair);
        std::uint32_t a[4][4];
#pragma unroll
        for (int t = 0; t < 4; ++t) {
          // dims d0 + 2t (row half 0) and d0 + 2t + 1 (half 1): bytes 2 (t % 2), + 1 of word t / 2
          const unsigned sel = (t & 1) ? sel_odd : sel_even;
          const std::uint32_t p01 = __byte_perm(t < 2 ? x0.x : x0.y, t < 2 ? x1.x : x1.y, sel);
          const std::uint32_t p89 = __byte_perm(t < 2 ? x2.x : x2.y, t < 2 ? x3.x : x3.y, sel);
          mo::e4m3x4_to_f16x4(p01, a[t][0], a[t][1]);  // tokens 2c, 2c+1 of dims 2t, 2t+1
          mo::e4m3x4_to_f16x4(p89, a[t][2], a[t][3]);  // tokens 2c+8, 2c+9
        }
        wg::fence();
#pragma unroll
        for (int t = 0; t < 4; ++t)
          wg::mma_rs_m64n16k16(T{}, o[t], a[t], wg::desc(p_s + kk * 32, 16, 1024), 1);
        wg::commit();
        wg::wait<1>();
      }
      wg::wait<0>();
#pragma unroll
      for (int t = 0; t < 4; ++t) wg::pin(o[t]);
    }
  }

  // Epilogue: the heads' (max, sum) to shared memory (WG0), then each thread its 8 dims a head.
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
    float v[8];  // dims d0 + 2 t + e2
#pragma unroll
    for (int t = 0; t < 4; ++t)
#pragma unroll
      for (int e2 = 0; e2 < 2; ++e2) v[2 * t + e2] = o[t][4 * (h >> 1) + 2 * e2 + (h & 1)] * mul;
    reinterpret_cast<float4*>(dst + d0)[0] = make_float4(v[0], v[1], v[2], v[3]);
    reinterpret_cast<float4*>(dst + d0)[1] = make_float4(v[4], v[5], v[6], v[7]);
  }
#else
  __trap();  // built only for sm_90a; the host never launches it elsewhere
#endif
}

template <int kNS>
MlaKernelFn prepared_fp8(int* smem_bytes, int* threads, int* per_sm) {
  constexpr int kBytes = Fp8Narrow<kNS>::kBytes;
  MlaKernelFn fn = mla_wgmma_fp8_kernel<kNS>;
  static const int occupancy = resident_blocks(fn, kThreads, kBytes);  // once an instantiation
  *smem_bytes = kBytes;
  *threads = kThreads;
  *per_sm = occupancy;
  return fn;
}

}  // namespace

MlaKernelFn mla_wgmma_fp8_kernel_for(attn::DType dt, const MlaKernelChoice& c, int* smem_bytes,
                                     int* threads, int* per_sm) {
  if (dt != attn::DType::kFp8)
    throw attn::DeviceError("MLA decode v7: dtype " + std::string(attn::dtype_name(dt)) +
                            " is not supported (fp8 e4m3 caches)");
  if (!device_is_sm90())
    throw attn::DeviceError("MLA decode v7 needs a compute capability 9.0 GPU (H100 / H200)");
  if (c.head_groups == 1 && c.block_n == 64 && c.stages == 2)
    return prepared_fp8<2>(smem_bytes, threads, per_sm);
  if (c.head_groups == 1 && c.block_n == 64 && c.stages == 3)
    return prepared_fp8<3>(smem_bytes, threads, per_sm);
  throw attn::DeviceError("MLA decode v7: no kernel for head_groups " +
                          std::to_string(c.head_groups) + ", block_n " + std::to_string(c.block_n) +
                          ", stages " + std::to_string(c.stages) +
                          " (v7 has head_groups 1 with block_n 64 and stages 2 or 3)");
}

#endif  // ATTNLAB_HIP_ON_CUDA

}  // namespace kern
