// Grouped decode v3: both products on the matrix units (NVIDIA mma.sync m16n8k16, sm_80+),
// bf16 or fp16 q/k/v, D = Dv in {64, 128}. Other targets (AMD, fp8, other D) use v2/v1 in
// decode_grouped.hip: the plan there asks mma_supported() first.
//
// Versions (continuing decode_grouped.hip)
//   v3 block = 4 warps per (head slice x split, kv head, b); each warp walks its own 16-key
//      blocks of the split (w, w + 4, ...) with no block barrier in the loop:
//        S[16 heads, 16 keys] = Q K^T    2 x (D / 16) mma, K straight from global in fragment
//                                        layout (16-byte loads, the D axis permuted so that a
//                                        thread's 8 contiguous elements are its fragment)
//        online softmax per head row     fp32, exp2, quad shuffles
//        O[16 heads, Dv] += P V          Dv / 8 mma, P re-used from S's registers (bf16/fp16),
//                                        V from global, the Dv axis permuted the same way
//      K of the next block is loaded while P V runs, V of the next block while S runs, so each
//      warp keeps 8 KB in flight. The 4 warps' states are merged at the end through shared
//      memory with attn::SoftmaxState::merge, then written like v2 (final or split partial).
// Shape legend: B batch, S keys, G = Hq / Hkv, 16 heads per slice (rows of the mma; G < 16
// pads with zero queries), D = Dv head dim, 16 keys per warp step.
//
// Fragment layout of mma.m16n8k16 (g = lane / 4, t = lane % 4):
//   A 16x16 row: a0 = A[g][2t..2t+1], a1 = A[g+8][2t..], a2 = A[g][2t+8..], a3 = A[g+8][2t+8..]
//   B 16x8 col:  b0 = B[2t..2t+1][g], b1 = B[2t+8..2t+9][g]
//   C 16x8:      c0, c1 = C[g][2t, 2t+1], c2, c3 = C[g+8][2t, 2t+1]
// Permutations (any permutation of a summed axis leaves the product unchanged):
//   QK k-step kb, logical k -> d = 32 (kb / 2) + 8t + 4 (kb % 2) + {2t: 0, 2t+1: 1, 2t+8: 2, 2t+9:
//   3} so a0/a2 (b0/b1) are words 2 (kb % 2) and 2 (kb % 2) + 1 of the 16-byte chunk at 32 (kb/2) +
//   8t. PV n-block nb, logical n -> dv = 64 (nb / 8) + 8n + nb % 8, so b0/b1 take element nb % 8 of
//   the chunk at 64 (nb / 8) + 8g of keys 2t, 2t+1 (b0) and 2t+8, 2t+9 (b1).
// The runtime first: attention/softmax_state.h needs __host__/__device__ defined (HIP).
#include "kernels/hip_compat.h"
#include <cstdint>

#include "attention/error.h"
#include "attention/softmax_state.h"
#include "kernels/gpu_check.h"
#include "kernels/grouped_device.h"

namespace kern {
namespace gdev {

#if defined(ATTNLAB_HIP_ON_CUDA)
namespace {

template <bool kFp16>
__device__ __forceinline__ void mma16816(float* c, unsigned a0, unsigned a1, unsigned a2,
                                         unsigned a3, unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (kFp16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
#else
  (void)c;
  (void)a0;
  (void)a1;
  (void)a2;
  (void)a3;
  (void)b0;
  (void)b1;
  __trap();
#endif
}

// {lo, hi} packed as two bf16 / fp16 (round to nearest even), lo in the low half.
template <bool kFp16>
__device__ __forceinline__ unsigned pack2(float lo, float hi) {
  unsigned r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (kFp16)
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
#else
  (void)lo;
  (void)hi;
#endif
  return r;
}

__device__ __forceinline__ unsigned word(const uint4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// 2 blocks per SM (206 registers for D = 128, no spills). A build for 3 (168 registers, ~100
// bytes of spills) was measured slower on every row and removed.
template <bool kFp16, int D>
__global__ void __launch_bounds__(128, 2) grouped_mma_kernel(const Params p) {
  if (p.pdl) pdl_allow_dependents();  // the separate combine may be scheduled now
  constexpr int kJ = D / 32;          // 16-byte chunks of a q/k row per thread
  constexpr int kKSteps = D / 16;     // QK k-steps
  constexpr int kNB = D / 8;          // PV n-blocks (Dv = D)
  constexpr int kVH = D / 64;         // 16-byte V chunks per key per thread
  constexpr int kWarps = 4;
  __shared__ float o_sh[kWarps][kMmaSliceHeads][D];
  __shared__ float2 st_sh[kWarps][kMmaSliceHeads];

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int slice = blockIdx.x % p.slices;
  const int split = blockIdx.x / p.slices;
  const int hkv = blockIdx.y;
  const int b = blockIdx.z;
  const int h0 = hkv * p.g + slice * kMmaSliceHeads;
  const int nh = min(kMmaSliceHeads, p.g - slice * kMmaSliceHeads);
  long long start, end;
  key_range(p, b, split, &start, &end);

  // Q fragments: rows g and g + 8 of the slice, chunk 32 j + 8 t.
  const std::uint16_t* qp = static_cast<const std::uint16_t*>(p.q);
  uint4 qa[kJ], qb[kJ];
#pragma unroll
  for (int j = 0; j < kJ; ++j) {
    const long long ra = (static_cast<long long>(b) * p.hq + h0 + g) * D + 32 * j + 8 * t;
    const long long rb = ra + 8LL * D;
    qa[j] = g < nh ? *reinterpret_cast<const uint4*>(qp + ra) : make_uint4(0u, 0u, 0u, 0u);
    qb[j] = g + 8 < nh ? *reinterpret_cast<const uint4*>(qp + rb) : make_uint4(0u, 0u, 0u, 0u);
  }

  float o[kNB][4];
#pragma unroll
  for (int nb = 0; nb < kNB; ++nb) o[nb][0] = o[nb][1] = o[nb][2] = o[nb][3] = 0.0f;
  float m_a = -INFINITY, m_b = -INFINITY;  // running max (log2 units), rows g and g + 8
  float l_a = 0.0f, l_b = 0.0f;            // this thread's part of the running sums

  const long long row_stride = static_cast<long long>(p.hkv) * D;
  const long long base = (static_cast<long long>(b) * p.seq * p.hkv + hkv) * D;
  const std::uint16_t* kbase = static_cast<const std::uint16_t*>(p.k) + base;
  const std::uint16_t* vbase = static_cast<const std::uint16_t*>(p.v) + base;
  const int nblk = start < end ? static_cast<int>((end - start + 15) / 16) : 0;

  uint4 kr[2][kJ];   // keys 8 nb + g, chunk 32 j + 8 t
  uint4 vr[4][kVH];  // keys 2t, 2t+1, 2t+8, 2t+9; chunk 64 h + 8 g
  // Loads of one 16-key block. Every block but the last of a split is full: it takes the
  // branch without per-key checks, so no zero fill (a register move per word) is issued.
  auto load_k = [&](int blk) {
    const long long k0 = start + 16LL * blk;
    if (k0 + 16 <= end) {
#pragma unroll
      for (int nb = 0; nb < 2; ++nb)
#pragma unroll
        for (int j = 0; j < kJ; ++j)
          kr[nb][j] = *reinterpret_cast<const uint4*>(kbase + (k0 + 8 * nb + g) * row_stride +
                                                      32 * j + 8 * t);
      return;
    }
#pragma unroll
    for (int nb = 0; nb < 2; ++nb) {
      const long long key = k0 + 8 * nb + g;
#pragma unroll
      for (int j = 0; j < kJ; ++j)
        kr[nb][j] = key < end
                        ? *reinterpret_cast<const uint4*>(kbase + key * row_stride + 32 * j + 8 * t)
                        : make_uint4(0u, 0u, 0u, 0u);
    }
  };
  auto load_v = [&](int blk) {
    const long long k0 = start + 16LL * blk;
    if (k0 + 16 <= end) {
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int h = 0; h < kVH; ++h)
          vr[i][h] = *reinterpret_cast<const uint4*>(
              vbase + (k0 + 8 * (i / 2) + 2 * t + (i % 2)) * row_stride + 64 * h + 8 * g);
      return;
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const long long key = k0 + 8 * (i / 2) + 2 * t + (i % 2);
#pragma unroll
      for (int h = 0; h < kVH; ++h)
        vr[i][h] = key < end
                       ? *reinterpret_cast<const uint4*>(vbase + key * row_stride + 64 * h + 8 * g)
                       : make_uint4(0u, 0u, 0u, 0u);
    }
  };

  if (warp < nblk) {
    load_k(warp);
    load_v(warp);
  }
  for (int blk = warp; blk < nblk; blk += kWarps) {
    // S = Q K^T for 16 keys: s[nb] covers keys 8 nb .. 8 nb + 7. Even and odd k-steps go to
    // separate accumulators (4 independent mma chains of D / 32 instead of 2 of D / 16).
    float s[2][4], s2[2][4];
#pragma unroll
    for (int nb = 0; nb < 2; ++nb) {
#pragma unroll
      for (int e = 0; e < 4; ++e) s[nb][e] = s2[nb][e] = 0.0f;
#pragma unroll
      for (int kb = 0; kb < kKSteps; ++kb) {
        const int j = kb / 2, w = 2 * (kb % 2);
        mma16816<kFp16>(kb % 2 ? s2[nb] : s[nb], word(qa[j], w), word(qb[j], w), word(qa[j], w + 1),
                        word(qb[j], w + 1), word(kr[nb][j], w), word(kr[nb][j], w + 1));
      }
#pragma unroll
      for (int e = 0; e < 4; ++e) s[nb][e] += s2[nb][e];
    }
    // Online softmax (log2 units), rows g (s[.][0..1]) and g + 8 (s[.][2..3]).
    const long long k0 = start + 16LL * blk;
    float mx_a = -INFINITY, mx_b = -INFINITY;
#pragma unroll
    for (int nb = 0; nb < 2; ++nb)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const bool valid = k0 + 8 * nb + 2 * t + e < end;
        s[nb][e] = valid ? s[nb][e] * p.q_mult : -INFINITY;
        s[nb][2 + e] = valid ? s[nb][2 + e] * p.q_mult : -INFINITY;
        mx_a = fmaxf(mx_a, s[nb][e]);
        mx_b = fmaxf(mx_b, s[nb][2 + e]);
      }
    mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, 1, 32));
    mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, 2, 32));
    mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, 1, 32));
    mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, 2, 32));
    const float mn_a = fmaxf(m_a, mx_a), mn_b = fmaxf(m_b, mx_b);  // finite: key k0 is valid
    const float al_a = exp2f(m_a - mn_a), al_b = exp2f(m_b - mn_b);
    m_a = mn_a;
    m_b = mn_b;
    float pr[2][4];
#pragma unroll
    for (int nb = 0; nb < 2; ++nb)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        pr[nb][e] = exp2f(s[nb][e] - mn_a);
        pr[nb][2 + e] = exp2f(s[nb][2 + e] - mn_b);
      }
    l_a = l_a * al_a + pr[0][0] + pr[0][1] + pr[1][0] + pr[1][1];
    l_b = l_b * al_b + pr[0][2] + pr[0][3] + pr[1][2] + pr[1][3];
    const unsigned pa0 = pack2<kFp16>(pr[0][0], pr[0][1]);
    const unsigned pa1 = pack2<kFp16>(pr[0][2], pr[0][3]);
    const unsigned pa2 = pack2<kFp16>(pr[1][0], pr[1][1]);
    const unsigned pa3 = pack2<kFp16>(pr[1][2], pr[1][3]);

    if (blk + kWarps < nblk) load_k(blk + kWarps);  // K registers are free now

    // O = O * alpha + P V. Once the running max settles, alpha is 1 for every row of the warp
    // most of the time: the rescale (Dv / 2 multiplies a thread) is skipped then.
    if (__any_sync(0xffffffffu, al_a != 1.0f || al_b != 1.0f)) {
#pragma unroll
      for (int nb = 0; nb < kNB; ++nb) {
        o[nb][0] *= al_a;
        o[nb][1] *= al_a;
        o[nb][2] *= al_b;
        o[nb][3] *= al_b;
      }
    }
#pragma unroll
    for (int nb = 0; nb < kNB; ++nb) {
      const int h = nb / 8, e = nb % 8;
      const unsigned sel = (e % 2) ? 0x7632u : 0x5410u;
      const unsigned b0 = __byte_perm(word(vr[0][h], e / 2), word(vr[1][h], e / 2), sel);
      const unsigned b1 = __byte_perm(word(vr[2][h], e / 2), word(vr[3][h], e / 2), sel);
      mma16816<kFp16>(o[nb], pa0, pa1, pa2, pa3, b0, b1);
    }
    if (blk + kWarps < nblk) load_v(blk + kWarps);
  }

  // Per-warp states to shared memory (O un-permuted), then merge the 4 warps.
  l_a += __shfl_xor_sync(0xffffffffu, l_a, 1, 32);
  l_a += __shfl_xor_sync(0xffffffffu, l_a, 2, 32);
  l_b += __shfl_xor_sync(0xffffffffu, l_b, 1, 32);
  l_b += __shfl_xor_sync(0xffffffffu, l_b, 2, 32);
#pragma unroll
  for (int nb = 0; nb < kNB; ++nb) {
    const int dv0 = 64 * (nb / 8) + 8 * (2 * t) + nb % 8;
    o_sh[warp][g][dv0] = o[nb][0];
    o_sh[warp][g][dv0 + 8] = o[nb][1];
    o_sh[warp][g + 8][dv0] = o[nb][2];
    o_sh[warp][g + 8][dv0 + 8] = o[nb][3];
  }
  if (t == 0) {
    st_sh[warp][g] = make_float2(l_a > 0.0f ? m_a * kLn2 : -INFINITY, l_a);
    st_sh[warp][g + 8] = make_float2(l_b > 0.0f ? m_b * kLn2 : -INFINITY, l_b);
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < nh * D; idx += 128) {
    const int row = idx / D, dd = idx % D;
    attn::SoftmaxState<float> run;
    float acc = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      attn::SoftmaxState<float> part;
      part.max = st_sh[w][row].x;
      part.sum = st_sh[w][row].y;
      float sa, sb;
      run = attn::SoftmaxState<float>::merge(run, part, &sa, &sb);
      acc = acc * sa + (sb != 0.0f ? o_sh[w][row][dd] * sb : 0.0f);
    }
    write_result(p, split, b, h0 + row, dd, &acc, 1, run.max, run.sum, dd == 0);
  }
  if (p.fused && p.splits > 1) {
    __syncthreads();  // o_sh is free now: it holds the combine's weights
    combine_if_last(p, b, (b * p.hkv + hkv) * p.slices + slice, h0, nh, &o_sh[0][0][0]);
  }
}

}  // namespace

bool mma_supported(int d, int dv, bool fp16_or_bf16) {
  return fp16_or_bf16 && d == dv && (d == 64 || d == 128);
}

void launch_grouped_mma(const Params& p, bool fp16, int splits, hipStream_t stream) {
  const dim3 grid(static_cast<unsigned>(splits * p.slices), static_cast<unsigned>(p.hkv),
                  static_cast<unsigned>(p.batch));
  if (fp16) {
    if (p.d == 64)
      grouped_mma_kernel<true, 64><<<grid, dim3(128), 0, stream>>>(p);
    else
      grouped_mma_kernel<true, 128><<<grid, dim3(128), 0, stream>>>(p);
  } else {
    if (p.d == 64)
      grouped_mma_kernel<false, 64><<<grid, dim3(128), 0, stream>>>(p);
    else
      grouped_mma_kernel<false, 128><<<grid, dim3(128), 0, stream>>>(p);
  }
  HIP_CHECK_LAUNCH();
}

#else  // AMD: no v3 (MFMA port not written); the plan never asks for it.

bool mma_supported(int, int, bool) { return false; }
void launch_grouped_mma(const Params&, bool, int, hipStream_t) {
  throw attn::DeviceError("grouped decode v3 (mma) is not built for this target");
}

#endif

}  // namespace gdev
}  // namespace kern
