// Element types: names, exact storage sizes and the host emulation of device rounding.
//
// All conversions are bit-exact and independent of the FPU rounding mode: the rounding is done
// on the integer representation (round to nearest, ties to even), so the CPU reference can be
// fed exactly what a GPU stores.
#include "attention/dtype.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "attention/error.h"

namespace attn {
namespace {

std::uint32_t float_bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

float bits_float(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// Shifts `value` right by `shift` bits rounding to nearest, ties to even. shift in [1, 31].
std::uint32_t shift_right_rne(std::uint32_t value, unsigned shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t rest = value & ((std::uint32_t(1) << shift) - 1);
  const std::uint32_t half = std::uint32_t(1) << (shift - 1);
  if (rest > half || (rest == half && (kept & 1u))) return kept + 1;
  return kept;
}

// e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa bits. Exponent 15 with mantissa 7 is NaN
// (there is no infinity); the largest finite value is 0x7e = 1.75 * 2^8 = 448.
constexpr std::uint8_t kE4m3MaxCode = 0x7e;
constexpr std::uint8_t kE4m3NaN = 0x7f;

float e4m3_magnitude(std::uint8_t code) {  // code in 0 .. 0x7e
  const int e = (code >> 3) & 0xf;
  const int m = code & 0x7;
  if (e == 0) return std::ldexp(static_cast<float>(m), -9);  // subnormal: m/8 * 2^-6
  return std::ldexp(static_cast<float>(8 + m), e - 10);      // (1 + m/8) * 2^(e-7)
}

}  // namespace

std::string_view dtype_name(DType dt) {
  switch (dt) {
    case DType::kFp32:
      return "fp32";
    case DType::kFp16:
      return "fp16";
    case DType::kBf16:
      return "bf16";
    case DType::kFp8:
      return "fp8";
    case DType::kMxfp4:
      return "mxfp4";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType dt : {DType::kFp32, DType::kFp16, DType::kBf16, DType::kFp8, DType::kMxfp4})
    if (dtype_name(dt) == name) return dt;
  return std::nullopt;
}

std::uint64_t dtype_storage_bytes(DType dt, std::uint64_t n_rows, std::uint64_t row_len) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t per_row = 0;
  if (dt == DType::kMxfp4) {
    // Two 4-bit elements per byte, plus one shared 1-byte scale per block of 32 (a partial
    // block at the end of a row still needs its scale).
    per_row = row_len / 2 + (row_len % 2) + row_len / 32 + (row_len % 32 != 0 ? 1 : 0);
  } else {
    const std::uint64_t width = dt == DType::kFp32 ? 4 : dt == DType::kFp8 ? 1 : 2;
    if (row_len > kMax / width)
      throw InputError("storage size overflows: row of " + std::to_string(row_len) + " elements");
    per_row = row_len * width;
  }
  if (n_rows != 0 && per_row > kMax / n_rows)
    throw InputError("storage size overflows: " + std::to_string(n_rows) + " rows of " +
                     std::to_string(row_len) + " elements");
  return n_rows * per_row;
}

double dtype_bytes_per_element(DType dt) {
  switch (dt) {
    case DType::kFp32:
      return 4.0;
    case DType::kFp16:
    case DType::kBf16:
      return 2.0;
    case DType::kFp8:
      return 1.0;
    case DType::kMxfp4:
      return 0.5 + 1.0 / 32.0;
  }
  return 0.0;
}

std::uint16_t float_to_bf16_bits(float x) {
  const std::uint32_t u = float_bits(x);
  if ((u & 0x7fffffffu) > 0x7f800000u)  // NaN: keep sign and top payload, force quiet
    return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
  // Adding 0x7fff plus the lowest kept bit rounds to nearest, ties to even; a carry into the
  // exponent is the correct result (up to infinity for values past the largest bf16).
  const std::uint32_t lsb = (u >> 16) & 1u;
  return static_cast<std::uint16_t>((u + 0x7fffu + lsb) >> 16);
}

float bf16_bits_to_float(std::uint16_t b) { return bits_float(std::uint32_t(b) << 16); }

std::uint16_t float_to_fp16_bits(float x) {
  const std::uint32_t u = float_bits(x);
  const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u)  // NaN: quiet, top payload bits kept
    return static_cast<std::uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520: inf
  const std::uint32_t exp = a >> 23;
  if (exp >= 113) {  // normal half (>= 2^-14): rebias 127 -> 15 and round 23 -> 10 bits
    const std::uint32_t rebased = a - (std::uint32_t(112) << 23);
    return static_cast<std::uint16_t>(sign | shift_right_rne(rebased, 13));
  }
  if (exp == 0) return sign;  // float subnormals are far below half's smallest subnormal
  // Half subnormal: value = k * 2^-24 with k = mantissa * 2^(exp - 126). A result of 0x400 is
  // the smallest normal, which is also the right encoding.
  const std::uint32_t mant = (a & 0x7fffffu) | 0x800000u;
  const unsigned shift = 126u - exp;  // 14 .. 125
  return static_cast<std::uint16_t>(sign | (shift >= 32 ? 0u : shift_right_rne(mant, shift)));
}

float fp16_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    const float mag = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -mag : mag;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

std::uint8_t float_to_e4m3_bits(float x) {
  const std::uint32_t u = float_bits(x);
  const std::uint32_t sign = (u >> 31) << 7;
  const std::uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<std::uint8_t>(sign | kE4m3NaN);
  if (a >= 0x43e00000u) return static_cast<std::uint8_t>(sign | kE4m3MaxCode);  // >= 448, inf
  const int exp = static_cast<int>(a >> 23) - 127;  // unbiased float exponent
  if (exp >= -6) {
    // e4m3 normal: rebias 127 -> 7 and round 23 -> 3 mantissa bits; a carry into the exponent
    // is the right result, and anything rounding past 448 (only 0x7f, NaN) saturates.
    const std::uint32_t rebased = a - (std::uint32_t(120) << 23);
    const std::uint32_t code = shift_right_rne(rebased, 20);
    return static_cast<std::uint8_t>(sign | (code > kE4m3MaxCode ? kE4m3MaxCode : code));
  }
  if ((a >> 23) == 0) return static_cast<std::uint8_t>(sign);  // far below 2^-10
  // e4m3 subnormal: k * 2^-9 with k = mantissa * 2^(exp - 23 + 9); k = 8 is 2^-6, code 0x08.
  const std::uint32_t mant = (a & 0x7fffffu) | 0x800000u;
  const unsigned shift = static_cast<unsigned>(14 - exp);  // 21 .. 140
  return static_cast<std::uint8_t>(sign | (shift >= 32 ? 0u : shift_right_rne(mant, shift)));
}

float e4m3_bits_to_float(std::uint8_t b) {
  static const auto kTable = [] {
    std::array<float, 256> t{};
    for (int c = 0; c < 256; ++c) {
      const auto mag = static_cast<std::uint8_t>(c & 0x7f);
      const float v =
          mag == kE4m3NaN ? std::numeric_limits<float>::quiet_NaN() : e4m3_magnitude(mag);
      t[static_cast<std::size_t>(c)] = std::copysign(v, (c & 0x80) ? -1.0f : 1.0f);
    }
    return t;
  }();
  return kTable[b];
}

float round_to_bf16(float x) { return bf16_bits_to_float(float_to_bf16_bits(x)); }
float round_to_fp16(float x) { return fp16_bits_to_float(float_to_fp16_bits(x)); }

float round_to_e4m3(float x, float scale) {
  if (!(scale > 0.0f) || !std::isfinite(scale))
    throw InputError("fp8 scale must be a positive finite number (found " + std::to_string(scale) +
                     ")");
  return e4m3_bits_to_float(float_to_e4m3_bits(x / scale)) * scale;
}

float e4m3_scale_for(float amax) {
  if (!(amax > 0.0f) || !std::isfinite(amax)) return 1.0f;
  const float s = amax / 448.0f;
  // A tiny amax would give a subnormal or zero scale; the smallest normal keeps x / scale
  // finite and inside the e4m3 range.
  return s < std::numeric_limits<float>::min() ? std::numeric_limits<float>::min() : s;
}

}  // namespace attn
