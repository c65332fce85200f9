// The row layout of the packed MLA decode (v8, decode_mla_packed.hip) and, on AMD, its Q K^T
// straight from the cache block as stored in shared memory, on the 8-bit matrix instructions:
// gfx950's scaled MFMA for fp8 and mxfp4, gfx942's fp8 MFMA for fp8. Elsewhere (NVIDIA, other AMD
// targets) the kernel converts the block to bf16 and multiplies that; the GPU tests check that
// path. The kernel sees one interface, RawQk<C>, on every target. Included by
// decode_mla_packed.hip only.
#pragma once
#include <cstdint>

#include "kernels/matrix_ops.h"
#include "kernels/mla_combine.h"
#include "kernels/mxfp4_device.h"

namespace kern {
namespace mla_packed {

constexpr int kDl = kMlaLatentDim, kDr = 64, kDk = kDl + kDr;
constexpr int kLd = kDk + 8;         // shared row stride of 16-bit tiles (elements), as in v1
constexpr int kMxBlocks = kDk / 32;  // E8M0 scale bytes a row (18)

enum class Cache { k16, kFp8, kMxfp4 };

template <Cache C>
constexpr int kRowBytes = C == Cache::k16    ? kDk * 2
                          : C == Cache::kFp8 ? kDk
                                             : kDk / 2;

// Whether this target multiplies Q by cache C's block as stored (then only P V's dims are
// converted to bf16).
#if defined(__gfx950__)
constexpr bool raw_qk_on(Cache c) { return c != Cache::k16; }
#elif defined(__gfx942__)
constexpr bool raw_qk_on(Cache c) { return c == Cache::kFp8; }
#else
constexpr bool raw_qk_on(Cache) { return false; }
#endif

// This lane's Q operands, made once from the bf16 Q staged in shared memory (load), and the
// partial scores of 16 tokens from the stored block (product). kTransposed: the accumulator's
// rows are tokens and its columns q rows. Where raw_qk_on(C) is false the kernel never calls
// them.
template <Cache C, bool kOn = raw_qk_on(C)>
struct RawQk {
  static constexpr bool kTransposed = false;
  __device__ __forceinline__ void load(const std::uint16_t*, int, int) {}
  __device__ __forceinline__ void product(mo::FragC&, const unsigned char*, const unsigned char*,
                                          int, int, int) const {}
};

#if defined(__gfx950__)
// gfx950 (MI355X): Q K^T for fp8 and mxfp4 caches on v_mfma_scale_f32_16x16x128_f8f6f4, which
// reads 8-bit or 4-bit operands with one E8M0 scale per lane, i.e. per 32 k values: an mxfp4
// block is exactly one lane's B operand (16 bytes and its scale byte), read as stored. Q is the A
// operand as two MX-FP8 terms, hi + lo (mxfp4_device.h, tested on the CPU), so it keeps about
// bf16's precision. Each wave takes 128 of the 576 dims (wave 0 also dims 512-575, the rest of
// its k range zero); the waves' partial scores are summed in shared memory as before. Lanes: A
// row lane % 16, B column (token) lane % 16, both k values 32 (lane / 16) .. + 31 of the chunk;
// C as every 16x16 MFMA (kernels/matrix_ops.h). UNVERIFIED ON HARDWARE: compile-checked only,
// the lane layout after AMD's matrix instruction calculator; the NVIDIA build keeps the bf16
// conversion path the GPU tests check.
typedef int Int8v __attribute__((ext_vector_type(8)));
typedef float Float4v __attribute__((ext_vector_type(4)));

struct ScaledQ {  // one lane's A operands for one 128-dim chunk
  Int8v hi, lo;
  int s_hi, s_lo;
};

// Chunk c of Q row lane % 16 (bf16 in shared memory, row stride kLd) as MX-FP8 hi + lo.
__device__ __forceinline__ ScaledQ scaled_q(const std::uint16_t* qs, int chunk, int lane) {
  ScaledQ a;
  const int d0 = chunk * 128 + 32 * (lane / 16);
  std::uint32_t hi[8] = {}, lo[8] = {}, s_hi = 127, s_lo = 127;
  if (d0 < kDk) {
    float x[32];
    const std::uint16_t* row = qs + (lane % 16) * kLd + d0;
#pragma unroll
    for (int i = 0; i < 32; ++i) x[i] = mo::bf16_to_float(row[i]);
    mx::split_e4m3_block(x, hi, &s_hi, lo, &s_lo);
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    a.hi[i] = static_cast<int>(hi[i]);
    a.lo[i] = static_cast<int>(lo[i]);
  }
  a.s_hi = static_cast<int>(s_hi);
  a.s_lo = static_cast<int>(s_lo);
  return a;
}

// s += (Q_hi + Q_lo) K^T for 16 tokens of the block (rows tok0 .. of the raw stage) and chunk c.
template <Cache C>
__device__ __forceinline__ void scaled_qk(mo::FragC& s, const ScaledQ& a, const unsigned char* raw,
                                          const unsigned char* scales, int tok0, int chunk,
                                          int lane) {
  const int tok = tok0 + lane % 16, d0 = chunk * 128 + 32 * (lane / 16);
  Int8v b = {0, 0, 0, 0, 0, 0, 0, 0};
  int sb = 127;
  if (d0 < kDk) {
    if constexpr (C == Cache::kMxfp4) {
      const uint4 v = *reinterpret_cast<const uint4*>(raw + tok * kRowBytes<C> + d0 / 2);
      b[0] = static_cast<int>(v.x);
      b[1] = static_cast<int>(v.y);
      b[2] = static_cast<int>(v.z);
      b[3] = static_cast<int>(v.w);
      sb = scales[tok * kMxBlocks + d0 / 32];
    } else {
      const uint4* p = reinterpret_cast<const uint4*>(raw + tok * kRowBytes<C> + d0);
      const uint4 v0 = p[0], v1 = p[1];
      b[0] = static_cast<int>(v0.x);
      b[1] = static_cast<int>(v0.y);
      b[2] = static_cast<int>(v0.z);
      b[3] = static_cast<int>(v0.w);
      b[4] = static_cast<int>(v1.x);
      b[5] = static_cast<int>(v1.y);
      b[6] = static_cast<int>(v1.z);
      b[7] = static_cast<int>(v1.w);
    }
  }
  constexpr int kFmtB = C == Cache::kMxfp4 ? 4 : 0;  // e2m1, or e4m3 (A is always e4m3: 0)
  Float4v acc = {s.v[0], s.v[1], s.v[2], s.v[3]};
  acc = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a.hi, b, acc, 0, kFmtB, 0, a.s_hi, 0, sb);
  acc = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a.lo, b, acc, 0, kFmtB, 0, a.s_lo, 0, sb);
  s.v[0] = acc[0];
  s.v[1] = acc[1];
  s.v[2] = acc[2];
  s.v[3] = acc[3];
}

// Each wave takes its 128-dim chunk; wave 0 also chunk 4 (dims 512-575).
template <Cache C>
struct RawQk<C, true> {
  static constexpr bool kTransposed = false;
  ScaledQ sq[2];
  __device__ __forceinline__ void load(const std::uint16_t* qs, int wq, int lane) {
    sq[0] = scaled_q(qs, wq, lane);
    if (wq == 0) sq[1] = scaled_q(qs, 4, lane);
  }
  __device__ __forceinline__ void product(mo::FragC& s, const unsigned char* raw,
                                          const unsigned char* scales, int tok0, int wq,
                                          int lane) const {
    scaled_qk<C>(s, sq[0], raw, scales, tok0, wq, lane);
    if (wq == 0) scaled_qk<C>(s, sq[1], raw, scales, tok0, 4, lane);
  }
};
#elif defined(__gfx942__)
// gfx942 (MI300X): Q K^T for fp8 caches on v_mfma_f32_16x16x32_fp8_fp8, whose e4m3 is FNUZ
// (mxfp4_device.h: OCP bytes stand for half their value there; -0 and NaN are rewritten, four
// bytes at a time, as the cache block is read). The product is transposed, S^T = K Q^T, so that a
// lane's accumulators all belong to one q row (its column, lane % 16) and a Q block's scale is
// one multiplier a lane. Q is the B operand as two e4m3 terms, each with its own scale a 32-dim
// block, so every k32 step is one block and a fresh product, scaled into the running scores.
// The 18 blocks of the 576 dims go 5, 5, 4, 4 to the waves. Lanes: A row (token) lane % 16 and
// B column (q row) lane % 16, both holding 8 k values of group lane / 16 (any one assignment of
// the 32 dims to groups gives the same sum, as A and B share it); C as every 16x16 MFMA. P V
// still reads the bf16 conversion (its k runs over tokens). UNVERIFIED ON HARDWARE: compile-
// checked only; the operand bytes and multipliers are checked on the CPU against float64
// (tests/test_fnuz.cpp, with the MFMA's sum written out), and the NVIDIA build keeps the bf16
// conversion path that the GPU tests check.
typedef float Float4v __attribute__((ext_vector_type(4)));
constexpr int kFnuzBlocks = 5;  // most 32-dim blocks a wave
__device__ __forceinline__ int fnuz_first(int w) { return 4 * w + (w < 2 ? w : 2); }
__device__ __forceinline__ int fnuz_count(int w) { return w < 2 ? 5 : 4; }

// This wave's Q blocks as B operands: row lane % 16, values 8 (lane / 16) .. + 7 of each block.
__device__ __forceinline__ void fnuz_q(const std::uint16_t* qs, int wq, int lane,
                                       mx::FnuzQ (&q)[kFnuzBlocks]) {
#pragma unroll
  for (int j = 0; j < kFnuzBlocks; ++j) q[j] = mx::FnuzQ{{0u, 0u}, {0u, 0u}, 0.f, 0.f};
  // The split is too large for the compiler to unroll this loop; the results go to q by
  // constant indices, so q stays in registers rather than scratch.
  for (int i = 0; i < fnuz_count(wq); ++i) {
    float x[32];
    const std::uint16_t* row = qs + (lane % 16) * kLd + fnuz_first(wq) * 32 + i * 32;
#pragma unroll
    for (int k = 0; k < 32; ++k) x[k] = mo::bf16_to_float(row[k]);
    const mx::FnuzQ t = mx::fnuz_q_part(x, lane / 16);
#pragma unroll
    for (int j = 0; j < kFnuzBlocks; ++j)
      if (j == i) q[j] = t;
  }
}

// Two words of four fp8 bytes as one operand, the first word's bytes first.
__device__ __forceinline__ long fnuz8(std::uint32_t lo, std::uint32_t hi) {
  return static_cast<long>(lo) | static_cast<long>(hi) << 32;
}

// s^T += K Q^T over this wave's blocks for 16 tokens (rows tok0 .. of the raw fp8 stage).
__device__ __forceinline__ void fnuz_kq(mo::FragC& s, const mx::FnuzQ (&q)[kFnuzBlocks],
                                        const unsigned char* raw, int tok0, int wq, int lane) {
  const unsigned char* krow =
      raw + (tok0 + lane % 16) * kDk + fnuz_first(wq) * 32 + 8 * (lane / 16);
  const Float4v zero = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
  for (int i = 0; i < kFnuzBlocks; ++i) {
    if (i >= fnuz_count(wq)) break;
    const uint2 k = *reinterpret_cast<const uint2*>(krow + i * 32);
    const long a = fnuz8(mx::ocp_to_fnuz_x4(k.x), mx::ocp_to_fnuz_x4(k.y));
    const long bh = fnuz8(q[i].hi[0], q[i].hi[1]), bl = fnuz8(q[i].lo[0], q[i].lo[1]);
    const Float4v ph = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a, bh, zero, 0, 0, 0);
    const Float4v pl = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a, bl, zero, 0, 0, 0);
#pragma unroll
    for (int e = 0; e < 4; ++e) s.v[e] += ph[e] * q[i].mul_hi + pl[e] * q[i].mul_lo;
  }
}

template <Cache C>
struct RawQk<C, true> {
  static constexpr bool kTransposed = true;
  mx::FnuzQ q[kFnuzBlocks];
  __device__ __forceinline__ void load(const std::uint16_t* qs, int wq, int lane) {
    fnuz_q(qs, wq, lane, q);
  }
  __device__ __forceinline__ void product(mo::FragC& s, const unsigned char* raw,
                                          const unsigned char*, int tok0, int wq, int lane) const {
    fnuz_kq(s, q, raw, tok0, wq, lane);
  }
};
#endif

}  // namespace mla_packed
}  // namespace kern
