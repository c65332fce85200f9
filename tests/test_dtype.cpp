// dtype: names, exact storage sizes, and the bit-exact rounding of bf16, fp16 and e4m3fn
// (checked exhaustively over every code, and against a brute-force nearest-value search).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "attention/dtype.h"
#include "attention/error.h"

using namespace attn;

namespace {

float from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
std::uint32_t to_bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// The nearest of the non-negative finite values `table` (ascending, indexed by code) to a >= 0,
// ties to the even code; values past the end round to `past_end` (inf or saturation).
template <class Decode>
std::uint32_t nearest_code(double a, std::uint32_t n_codes, Decode decode) {
  std::uint32_t best = 0;
  double best_d = std::fabs(a - decode(0));
  for (std::uint32_t c = 1; c < n_codes; ++c) {
    const double d = std::fabs(a - decode(c));
    if (d < best_d || (d == best_d && (c & 1u) == 0)) {
      best = c;
      best_d = d;
    }
  }
  return best;
}

}  // namespace

TEST_CASE("dtype names parse back and nothing else parses", "[dtype]") {
  for (DType dt : {DType::kFp32, DType::kFp16, DType::kBf16, DType::kFp8, DType::kMxfp4}) {
    const auto back = parse_dtype(dtype_name(dt));
    REQUIRE(back.has_value());
    CHECK(*back == dt);
  }
  CHECK(dtype_name(DType::kMxfp4) == "mxfp4");
  CHECK_FALSE(parse_dtype("BF16").has_value());
  CHECK_FALSE(parse_dtype("float32").has_value());
  CHECK_FALSE(parse_dtype("").has_value());
  CHECK_FALSE(parse_dtype("fp8 ").has_value());
}

TEST_CASE("storage bytes are exact, mxfp4 pays a scale byte per started block of 32", "[dtype]") {
  CHECK(dtype_storage_bytes(DType::kFp32, 3, 5) == 60);
  CHECK(dtype_storage_bytes(DType::kFp16, 3, 5) == 30);
  CHECK(dtype_storage_bytes(DType::kBf16, 7, 128) == 7 * 256);
  CHECK(dtype_storage_bytes(DType::kFp8, 7, 128) == 7 * 128);
  // mxfp4 per row: ceil(n / 2) nibble bytes + ceil(n / 32) scale bytes.
  CHECK(dtype_storage_bytes(DType::kMxfp4, 1, 64) == 32 + 2);
  CHECK(dtype_storage_bytes(DType::kMxfp4, 1, 576) == 288 + 18);  // DeepSeek latent row
  CHECK(dtype_storage_bytes(DType::kMxfp4, 1, 33) == 17 + 2);
  CHECK(dtype_storage_bytes(DType::kMxfp4, 1, 1) == 1 + 1);
  CHECK(dtype_storage_bytes(DType::kMxfp4, 10, 31) == 10 * (16 + 1));
  CHECK(dtype_storage_bytes(DType::kMxfp4, 5, 0) == 0);
  CHECK(dtype_storage_bytes(DType::kFp32, 0, 1000) == 0);
  CHECK_THROWS_AS(dtype_storage_bytes(DType::kFp32, std::uint64_t(1) << 40, std::uint64_t(1) << 30),
                  InputError);
  CHECK_THROWS_AS(dtype_storage_bytes(DType::kFp32, 1, std::numeric_limits<std::uint64_t>::max()),
                  InputError);
  CHECK(dtype_bytes_per_element(DType::kMxfp4) == Approx(0.53125));
  CHECK(dtype_bytes_per_element(DType::kBf16) == 2.0);
}

TEST_CASE("bf16: known values and round-to-nearest-even ties", "[dtype]") {
  CHECK(float_to_bf16_bits(1.0f) == 0x3f80);
  CHECK(float_to_bf16_bits(-2.0f) == 0xc000);
  CHECK(float_to_bf16_bits(-0.0f) == 0x8000);
  CHECK(float_to_bf16_bits(from_bits(0x3f808000u)) == 0x3f80);  // tie, 0x3f80 even: down
  CHECK(float_to_bf16_bits(from_bits(0x3f818000u)) == 0x3f82);  // tie, 0x3f81 odd: up
  CHECK(float_to_bf16_bits(from_bits(0x3f808001u)) == 0x3f81);  // just above the tie
  CHECK(float_to_bf16_bits(from_bits(0x3f807fffu)) == 0x3f80);  // just below
  CHECK(float_to_bf16_bits(from_bits(0x7f7fffffu)) == 0x7f80);  // FLT_MAX rounds to inf
  CHECK(float_to_bf16_bits(std::numeric_limits<float>::infinity()) == 0x7f80);
  CHECK(std::isnan(round_to_bf16(std::numeric_limits<float>::quiet_NaN())));
  CHECK(std::isnan(bf16_bits_to_float(float_to_bf16_bits(from_bits(0x7f800001u)))));  // sNaN
  CHECK(round_to_bf16(3.14159265f) == 3.140625f);
}

TEST_CASE("bf16: every code round-trips, random floats go to the nearer neighbour", "[dtype]") {
  for (std::uint32_t c = 0; c < 0x10000u; ++c) {
    const float f = bf16_bits_to_float(static_cast<std::uint16_t>(c));
    if (std::isnan(f)) continue;
    REQUIRE(float_to_bf16_bits(f) == c);
  }
  const unsigned seed = 20240601u;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  for (int i = 0; i < 200000; ++i) {
    const std::uint32_t u = rng() & 0x7f7fffffu;  // finite, non-negative
    if ((u >> 23) == 0xfe) continue;              // the top binade may round to inf: checked above
    const float x = from_bits(u);
    const std::uint32_t lo = u >> 16, hi = lo + 1;
    const double d_lo = double(x) - bf16_bits_to_float(static_cast<std::uint16_t>(lo));
    const double d_hi = double(bf16_bits_to_float(static_cast<std::uint16_t>(hi))) - double(x);
    const std::uint32_t want = (d_lo < d_hi || (d_lo == d_hi && (lo & 1u) == 0)) ? lo : hi;
    CAPTURE(u);
    REQUIRE(float_to_bf16_bits(x) == want);
    REQUIRE(float_to_bf16_bits(-x) == (want | 0x8000u));
  }
}

TEST_CASE("fp16: known values, subnormals, overflow to infinity", "[dtype]") {
  CHECK(float_to_fp16_bits(1.0f) == 0x3c00);
  CHECK(float_to_fp16_bits(-2.0f) == 0xc000);
  CHECK(float_to_fp16_bits(0.1f) == 0x2e66);
  CHECK(float_to_fp16_bits(65504.0f) == 0x7bff);
  CHECK(float_to_fp16_bits(65519.99f) == 0x7bff);
  CHECK(float_to_fp16_bits(65520.0f) == 0x7c00);  // the tie above the largest rounds to inf
  CHECK(float_to_fp16_bits(1e10f) == 0x7c00);
  CHECK(float_to_fp16_bits(-std::numeric_limits<float>::infinity()) == 0xfc00);
  CHECK(float_to_fp16_bits(std::ldexp(1.0f, -14)) == 0x0400);     // smallest normal
  CHECK(float_to_fp16_bits(std::ldexp(1.0f, -24)) == 0x0001);     // smallest subnormal
  CHECK(float_to_fp16_bits(std::ldexp(1.0f, -25)) == 0x0000);     // tie with 0: even
  CHECK(float_to_fp16_bits(std::ldexp(3.0f, -26)) == 0x0001);     // 0.75 of a step: up
  CHECK(float_to_fp16_bits(std::ldexp(3.0f, -25)) == 0x0002);     // tie 1|2: even (2)
  CHECK(float_to_fp16_bits(std::ldexp(5.0f, -25)) == 0x0002);     // tie 2|3: even (2)
  CHECK(float_to_fp16_bits(std::ldexp(1023.5f, -24)) == 0x0400);  // tie 0x3ff|0x400: even
  CHECK(float_to_fp16_bits(std::numeric_limits<float>::denorm_min()) == 0x0000);
  CHECK(float_to_fp16_bits(-std::numeric_limits<float>::denorm_min()) == 0x8000);
  CHECK(fp16_bits_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(fp16_bits_to_float(0x03ff) == std::ldexp(1023.0f, -24));
  CHECK(std::isnan(round_to_fp16(std::numeric_limits<float>::quiet_NaN())));
}

TEST_CASE("fp16: every code round-trips, random floats match a brute-force nearest", "[dtype]") {
  for (std::uint32_t c = 0; c < 0x10000u; ++c) {
    const float f = fp16_bits_to_float(static_cast<std::uint16_t>(c));
    if (std::isnan(f)) continue;
    REQUIRE(float_to_fp16_bits(f) == c);
  }
  const unsigned seed = 777u;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  // Magnitudes spread over the whole half range, subnormals included.
  std::uniform_real_distribution<double> log2mag(-27.0, 16.0);
  for (int i = 0; i < 3000; ++i) {
    const float x = static_cast<float>(std::exp2(log2mag(rng)));
    if (!(double(x) < 65520.0)) continue;
    const std::uint32_t want = nearest_code(double(x), 0x7c00u, [](std::uint32_t c) {
      return double(fp16_bits_to_float(static_cast<std::uint16_t>(c)));
    });
    CAPTURE(to_bits(x));
    REQUIRE(float_to_fp16_bits(x) == want);
  }
}

TEST_CASE("e4m3fn: known codes, saturation at 448, no infinity", "[dtype]") {
  CHECK(e4m3_bits_to_float(0x38) == 1.0f);
  CHECK(e4m3_bits_to_float(0x3c) == 1.5f);
  CHECK(e4m3_bits_to_float(0x40) == 2.0f);
  CHECK(e4m3_bits_to_float(0x7e) == 448.0f);
  CHECK(e4m3_bits_to_float(0xfe) == -448.0f);
  CHECK(e4m3_bits_to_float(0x08) == 0.015625f);             // 2^-6, smallest normal
  CHECK(e4m3_bits_to_float(0x01) == std::ldexp(1.0f, -9));  // smallest subnormal
  CHECK(e4m3_bits_to_float(0x07) == std::ldexp(7.0f, -9));
  CHECK(std::isnan(e4m3_bits_to_float(0x7f)));
  CHECK(std::isnan(e4m3_bits_to_float(0xff)));
  CHECK(float_to_e4m3_bits(500.0f) == 0x7e);
  CHECK(float_to_e4m3_bits(464.0f) == 0x7e);  // past the largest: saturates, never NaN
  CHECK(float_to_e4m3_bits(std::numeric_limits<float>::infinity()) == 0x7e);
  CHECK(float_to_e4m3_bits(-1e30f) == 0xfe);
  CHECK((float_to_e4m3_bits(std::numeric_limits<float>::quiet_NaN()) & 0x7f) == 0x7f);
  CHECK(float_to_e4m3_bits(1.0625f) == 0x38);                // tie 1.0 | 1.125: even mantissa (1.0)
  CHECK(float_to_e4m3_bits(1.1875f) == 0x3a);                // tie 1.125 | 1.25: even (1.25)
  CHECK(float_to_e4m3_bits(std::ldexp(1.0f, -10)) == 0x00);  // tie 0 | 2^-9: even (0)
  CHECK(float_to_e4m3_bits(std::ldexp(3.0f, -10)) == 0x02);  // tie 2^-9 | 2^-8: even
  CHECK(float_to_e4m3_bits(std::ldexp(15.0f, -10)) == 0x08);  // tie 7*2^-9 | 2^-6: even
  CHECK(float_to_e4m3_bits(-0.0f) == 0x80);
  CHECK(float_to_e4m3_bits(1e-20f) == 0x00);
}

TEST_CASE("e4m3fn: all 256 codes round-trip, random values match a brute-force nearest",
          "[dtype]") {
  for (std::uint32_t c = 0; c < 256; ++c) {
    const float f = e4m3_bits_to_float(static_cast<std::uint8_t>(c));
    CAPTURE(c);
    if ((c & 0x7f) == 0x7f) {
      REQUIRE(std::isnan(f));
      REQUIRE(float_to_e4m3_bits(f) == (c & 0x80) + 0x7f);
      continue;
    }
    REQUIRE(float_to_e4m3_bits(f) == c);
  }
  // Values ascend with the code over the positive finite codes.
  for (std::uint32_t c = 1; c <= 0x7e; ++c)
    REQUIRE(e4m3_bits_to_float(static_cast<std::uint8_t>(c)) >
            e4m3_bits_to_float(static_cast<std::uint8_t>(c - 1)));
  const unsigned seed = 4242u;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> log2mag(-12.0, 9.0);
  for (int i = 0; i < 20000; ++i) {
    const float x = static_cast<float>(std::exp2(log2mag(rng)));
    const std::uint32_t want =
        x >= 448.0f ? 0x7eu : nearest_code(double(x), 0x7fu, [](std::uint32_t c) {
          return double(e4m3_bits_to_float(static_cast<std::uint8_t>(c)));
        });
    CAPTURE(x);
    REQUIRE(float_to_e4m3_bits(x) == want);
    REQUIRE(float_to_e4m3_bits(-x) == (want | 0x80u));
  }
}

TEST_CASE(
    "e4m3fn, fp16, bf16: every midpoint between neighbours ties to even, one ulp off "
    "goes to the nearer",
    "[dtype]") {
  // e4m3: all 126 gaps between positive finite codes.
  for (std::uint32_t c = 0; c < 0x7e; ++c) {
    const float lo = e4m3_bits_to_float(static_cast<std::uint8_t>(c));
    const float hi = e4m3_bits_to_float(static_cast<std::uint8_t>(c + 1));
    const float mid = (lo + hi) / 2;  // exact: both have few mantissa bits
    CAPTURE(c);
    REQUIRE(float_to_e4m3_bits(mid) == ((c & 1u) ? c + 1 : c));
    REQUIRE(float_to_e4m3_bits(std::nextafter(mid, 0.0f)) == c);
    REQUIRE(float_to_e4m3_bits(std::nextafter(mid, 1000.0f)) == c + 1);
    REQUIRE(float_to_e4m3_bits(-mid) == (((c & 1u) ? c + 1 : c) | 0x80u));
  }
  // fp16: every gap between positive finite codes (0x0000 .. 0x7bff).
  for (std::uint32_t c = 0; c < 0x7bff; ++c) {
    const double lo = fp16_bits_to_float(static_cast<std::uint16_t>(c));
    const double hi = fp16_bits_to_float(static_cast<std::uint16_t>(c + 1));
    const float mid = static_cast<float>((lo + hi) / 2);  // exact in float
    CAPTURE(c);
    REQUIRE(float_to_fp16_bits(mid) == ((c & 1u) ? c + 1 : c));
    REQUIRE(float_to_fp16_bits(std::nextafter(mid, 0.0f)) == c);
    REQUIRE(float_to_fp16_bits(std::nextafter(mid, 1e9f)) == c + 1);
  }
  // bf16: every gap below the largest finite code.
  for (std::uint32_t c = 0; c < 0x7f7f; ++c) {
    const float lo = bf16_bits_to_float(static_cast<std::uint16_t>(c));
    const float mid = from_bits(to_bits(lo) + 0x8000u);  // halfway: the next 16 bits = 0x8000
    CAPTURE(c);
    REQUIRE(float_to_bf16_bits(mid) == ((c & 1u) ? c + 1 : c));
    REQUIRE(float_to_bf16_bits(from_bits(to_bits(mid) - 1)) == c);
    REQUIRE(float_to_bf16_bits(from_bits(to_bits(mid) + 1)) == c + 1);
  }
}

TEST_CASE("e4m3 with a per-tensor scale: amax maps to 448, error within half a step", "[dtype]") {
  CHECK(e4m3_scale_for(0.0f) == 1.0f);
  CHECK(e4m3_scale_for(448.0f) == 1.0f);
  CHECK(e4m3_scale_for(896.0f) == 2.0f);
  CHECK(e4m3_scale_for(std::numeric_limits<float>::infinity()) == 1.0f);
  CHECK(e4m3_scale_for(1e-44f) > 0.0f);
  const unsigned seed = 99u;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 3.0f);
  std::vector<float> x(4097);
  float amax = 0;
  for (float& v : x) {
    v = nd(rng);
    amax = std::max(amax, std::fabs(v));
  }
  const float s = e4m3_scale_for(amax);
  CHECK(std::fabs(round_to_e4m3(amax, s) - amax) <= amax * 1e-6f);
  for (float v : x) {
    const float r = round_to_e4m3(v, s);
    // Relative step of e4m3 is 2^-3 for normals: half a step is 1/16 of the value (plus the
    // subnormal floor of half of 2^-9 * s).
    REQUIRE(std::fabs(r - v) <= std::fabs(v) / 16.0f + std::ldexp(s, -10) * 1.0001f);
  }
  CHECK_THROWS_AS(round_to_e4m3(1.0f, 0.0f), InputError);
  CHECK_THROWS_AS(round_to_e4m3(1.0f, -1.0f), InputError);
}
