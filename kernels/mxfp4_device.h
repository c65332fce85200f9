// Microscaling (OCP MX) helpers for the kernels, plain C++ for host and device (no HIP or CUDA
// header needed), so CPU tests check them bit for bit against attention/: mxfp4 -> bf16 in
// registers, float -> MX-FP8 blocks (the gfx950 scaled MFMA's Q operand), and OCP e4m3 -> the
// FNUZ e4m3 of gfx942's fp8 MFMA.
//
// An mxfp4 byte holds two E2M1 codes (the even element in the low nibble); a block of 32
// elements shares one E8M0 scale byte s, the element's value being e2m1(code) * 2^(s - 127)
// (s = 255 is E8M0's NaN). Every such product is exact in float32 (E2M1 has one mantissa bit),
// and so is its bf16: the top 16 bits of the float32, no rounding.
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define ATTNLAB_MX_HD __host__ __device__ __forceinline__
#else
#define ATTNLAB_MX_HD inline
#endif

namespace kern {
namespace mx {

ATTNLAB_MX_HD float bits_to_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
ATTNLAB_MX_HD std::uint32_t float_to_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// 2^(s - 127) as a float32: s = 0 is 2^-127 (a float32 subnormal), 255 NaN.
ATTNLAB_MX_HD float scale_value(std::uint32_t s) {
  return bits_to_float(s == 0u ? 0x00400000u : s == 255u ? 0x7fc00000u : s << 23);
}

// The float32 bits of an E2M1 code (low 4 bits: sign, 2 exponent bits, 1 mantissa bit), built
// without a table: exponent field e > 0 is 2^(e - 1) * (1 + m / 2); e = 0 is 0 or 0.5.
ATTNLAB_MX_HD std::uint32_t e2m1_bits(std::uint32_t code) {
  const std::uint32_t e = (code >> 1) & 3u, m = code & 1u;
  const std::uint32_t mag = e != 0u ? ((e + 126u) << 23) | (m << 22) : (m != 0u ? 126u << 23 : 0u);
  return mag | ((code & 8u) << 28);
}

// One byte of two codes -> two bf16 in one word (the even element in the low half), times the
// block's scale (scale_value of its byte).
ATTNLAB_MX_HD std::uint32_t byte_to_bf16x2(std::uint32_t byte, float scale) {
  const float lo = bits_to_float(e2m1_bits(byte & 15u)) * scale;
  const float hi = bits_to_float(e2m1_bits((byte >> 4) & 15u)) * scale;
  return (float_to_bits(lo) >> 16) | (float_to_bits(hi) & 0xffff0000u);
}

// Four bytes (eight elements, the first in the low nibble of the low byte) -> four words of
// bf16 pairs, element order kept.
ATTNLAB_MX_HD void word_to_bf16x8(std::uint32_t w, float scale, std::uint32_t out[4]) {
  out[0] = byte_to_bf16x2(w & 0xffu, scale);
  out[1] = byte_to_bf16x2((w >> 8) & 0xffu, scale);
  out[2] = byte_to_bf16x2((w >> 16) & 0xffu, scale);
  out[3] = byte_to_bf16x2(w >> 24, scale);
}

// ---- MX-FP8 (OCP e4m3fn, 32 values and one E8M0 scale a block): the 8-bit operand the gfx950
// scaled MFMA takes for Q where the cache is mxfp4 or fp8 (decode_mla_packed.hip).

// float32 -> e4m3fn bits, round to nearest even, saturating at 448 (NaN -> 0x7f): bit for bit
// attn::float_to_e4m3_bits (a CPU test checks it).
ATTNLAB_MX_HD std::uint32_t shift_right_rne(std::uint32_t v, unsigned n) {
  const std::uint32_t half = 1u << (n - 1), rest = v & ((1u << n) - 1u), q = v >> n;
  return q + ((rest > half || (rest == half && (q & 1u) != 0u)) ? 1u : 0u);
}
ATTNLAB_MX_HD std::uint32_t float_to_e4m3(float x) {
  const std::uint32_t u = float_to_bits(x);
  const std::uint32_t sign = (u >> 31) << 7, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7fu;
  if (a >= 0x43e00000u) return sign | 0x7eu;  // >= 448
  const int exp = static_cast<int>(a >> 23) - 127;
  if (exp >= -6) {
    const std::uint32_t code = shift_right_rne(a - (120u << 23), 20);
    return sign | (code > 0x7eu ? 0x7eu : code);
  }
  if ((a >> 23) == 0u) return sign;
  const unsigned shift = static_cast<unsigned>(14 - exp);
  return sign | (shift >= 32u ? 0u : shift_right_rne((a & 0x7fffffu) | 0x800000u, shift));
}
// e4m3fn bits -> float32 (0x7f / 0xff: NaN).
ATTNLAB_MX_HD float e4m3_to_float(std::uint32_t b) {
  const std::uint32_t e = (b >> 3) & 15u, m = b & 7u;
  float v;
  if ((b & 0x7fu) == 0x7fu)
    v = bits_to_float(0x7fc00000u);
  else if (e == 0u)
    v = static_cast<float>(m) * 0.001953125f;  // m * 2^-9
  else
    v = bits_to_float(((e + 120u) << 23) | (m << 20));
  return (b & 0x80u) != 0u ? -v : v;
}

// The E8M0 byte for a block whose largest magnitude is amax: 2^(floor(log2 amax) - 7), so every
// value / scale is below 256 (no e4m3 saturation); 127 (1.0) for an all-zero block.
ATTNLAB_MX_HD std::uint32_t e4m3_block_scale(float amax) {
  if (!(amax > 0.0f)) return 127u;
  const std::uint32_t a = float_to_bits(amax) & 0x7fffffffu;
  if (a >= 0x7f800000u) return 254u;
  int e = static_cast<int>(a >> 23) - 127;  // floor(log2 amax) for a normal amax
  if ((a >> 23) == 0u) e = -127;            // a subnormal amax: the smallest scale
  const int s = e - 7 + 127;
  return static_cast<std::uint32_t>(s < 0 ? 0 : s > 254 ? 254 : s);
}

// x[0..32) as one MX-FP8 block: codes (four a word, the first in the low byte) and scale byte.
// Returns the values the block stands for in `back` (may be nullptr).
ATTNLAB_MX_HD void quantize_e4m3_block(const float* x, std::uint32_t words[8], std::uint32_t* scale,
                                       float* back) {
  float amax = 0.0f;
  for (int i = 0; i < 32; ++i) {
    const float ax = x[i] < 0.0f ? -x[i] : x[i];
    amax = ax > amax ? ax : amax;
  }
  *scale = e4m3_block_scale(amax);
  const float up = scale_value(*scale), down = scale_value(254u - *scale);  // 2^(127 - s)
  for (int w = 0; w < 8; ++w) {
    std::uint32_t word = 0;
    for (int i = 0; i < 4; ++i) {
      const std::uint32_t c = float_to_e4m3(x[4 * w + i] * down);
      word |= c << (8 * i);
      if (back) back[4 * w + i] = e4m3_to_float(c) * up;
    }
    words[w] = word;
  }
}

// x ~ hi + lo as two MX-FP8 blocks (lo quantises what hi leaves): relative error about 2^-8 of
// the block's largest value, close to the bf16 that x comes from (2^-9).
ATTNLAB_MX_HD void split_e4m3_block(const float* x, std::uint32_t hi[8], std::uint32_t* hi_scale,
                                    std::uint32_t lo[8], std::uint32_t* lo_scale) {
  float back[32], rest[32];
  quantize_e4m3_block(x, hi, hi_scale, back);
  for (int i = 0; i < 32; ++i) rest[i] = x[i] - back[i];
  quantize_e4m3_block(rest, lo, lo_scale, nullptr);
}

// ---- e4m3 FNUZ, the fp8 of gfx942's MFMA (v_mfma_f32_16x16x32_fp8_fp8): exponent bias 8 where
// OCP's e4m3fn has 7, no -0 and no infinities, 0x80 its only NaN. The same bits stand for half
// the OCP value, except 0x80 (OCP's -0, FNUZ's NaN) and 0x7f / 0xff (OCP's NaNs, FNUZ's +-240).

// Four OCP e4m3fn bytes -> four FNUZ bytes of half their value: -0 becomes +0 and a NaN stays
// NaN (0x80); every other byte is kept. Bytewise without carries: a magnitude m <= 0x7f plus
// 0x01 reaches 0x80 only for 0x7f, plus 0x7f reaches 0x80 for every m but 0.
ATTNLAB_MX_HD std::uint32_t ocp_to_fnuz_x4(std::uint32_t w) {
  const std::uint32_t mag = w & 0x7f7f7f7fu;
  const std::uint32_t nan = (mag + 0x01010101u) & 0x80808080u;    // bit 7 where |code| = 0x7f
  const std::uint32_t zero = ~(mag + 0x7f7f7f7fu) & 0x80808080u;  // bit 7 where |code| = 0
  w &= ~(zero & w);                                               // -0 -> +0
  return (w & ~((nan >> 7) * 0xffu)) | nan;                       // NaN -> 0x80
}

// One lane's part of a Q block for gfx942's fp8 MFMA: the 32 values x as MX-FP8 hi + lo
// (split_e4m3_block), of which this lane holds values 8 part .. 8 part + 7 as FNUZ bytes, two
// words a term. A product of these with a cache's FNUZ bytes (ocp_to_fnuz_x4) counts each
// factor at half its value, so the multipliers are 4 x 2^(s - 127): the true Q K^T of the block
// is mul_hi x sum(hi K) + mul_lo x sum(lo K) (times the cache's per-tensor scale).
struct FnuzQ {
  std::uint32_t hi[2], lo[2];
  float mul_hi, mul_lo;
};
ATTNLAB_MX_HD FnuzQ fnuz_q_part(const float* x, int part) {
  std::uint32_t hi[8], lo[8], s_hi, s_lo;
  split_e4m3_block(x, hi, &s_hi, lo, &s_lo);
  FnuzQ q;
  for (int i = 0; i < 2; ++i) {
    q.hi[i] = ocp_to_fnuz_x4(hi[2 * part + i]);
    q.lo[i] = ocp_to_fnuz_x4(lo[2 * part + i]);
  }
  q.mul_hi = 4.0f * scale_value(s_hi);
  q.mul_lo = 4.0f * scale_value(s_lo);
  return q;
}

}  // namespace mx
}  // namespace kern
