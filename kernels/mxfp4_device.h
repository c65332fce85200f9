// mxfp4 -> bf16 in registers, for the kernels and for the CPU test that checks these bits against
// attention/mxfp4.h on every code and scale byte. Plain C++ (host and device): no HIP or CUDA
// header is needed to include it.
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

}  // namespace mx
}  // namespace kern
