// attention/mxfp4.h: E2M1 codes and rounding, the OCP MX block scale, the packed layout of
// AMD's MI355X problem (low nibble = even index, one E8M0 byte per 32), and the error bound
// that follows from them, on fresh random rows with a printed seed.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/dtype.h"
#include "attention/error.h"
#include "attention/mxfp4.h"
#include "kernels/mxfp4_device.h"

TEST_CASE("mxfp4: every E2M1 code round-trips, and ties round to the even code", "[mxfp4]") {
  const float mags[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (std::uint8_t c = 0; c < 16; ++c) {
    CAPTURE(int(c));
    const float v = attn::e2m1_value(c);
    CHECK(std::fabs(v) == mags[c & 7u]);
    CHECK(std::signbit(v) == ((c & 8u) != 0));
    CHECK(attn::e2m1_code(v) == c);
  }
  // Midpoints: the even code (last bit 0) wins.
  CHECK(attn::e2m1_value(attn::e2m1_code(0.25f)) == 0.0f);
  CHECK(attn::e2m1_value(attn::e2m1_code(0.75f)) == 1.0f);
  CHECK(attn::e2m1_value(attn::e2m1_code(1.25f)) == 1.0f);
  CHECK(attn::e2m1_value(attn::e2m1_code(1.75f)) == 2.0f);
  CHECK(attn::e2m1_value(attn::e2m1_code(2.5f)) == 2.0f);
  CHECK(attn::e2m1_value(attn::e2m1_code(3.5f)) == 4.0f);
  CHECK(attn::e2m1_value(attn::e2m1_code(5.0f)) == 4.0f);
  CHECK(attn::e2m1_value(attn::e2m1_code(-5.1f)) == -6.0f);
  // Saturation and NaN.
  CHECK(attn::e2m1_value(attn::e2m1_code(100.0f)) == 6.0f);
  CHECK(attn::e2m1_value(attn::e2m1_code(-1e30f)) == -6.0f);
  CHECK(attn::e2m1_code(std::nanf("")) == 0);
}

TEST_CASE("mxfp4: the block scale is 2^(floor(log2 amax) - 2)", "[mxfp4]") {
  CHECK(attn::mx_scale_byte(6.0f) == 127);  // 6 = 1.5 x 2^2: scale 1
  CHECK(attn::mx_scale_byte(4.0f) == 127);
  CHECK(attn::mx_scale_byte(7.99f) == 127);
  CHECK(attn::mx_scale_byte(8.0f) == 128);
  CHECK(attn::mx_scale_byte(1.0f) == 125);  // scale 1/4: the max becomes 4
  CHECK(attn::mx_scale_byte(0.02f) == 127 + static_cast<int>(std::floor(std::log2(0.02))) - 2);
  CHECK(attn::mx_scale_byte(0.0f) == 0);
  CHECK(attn::mx_scale_byte(3e38f) == 127 + 127 - 2);
  CHECK(attn::mx_scale_byte(1e-45f) == 0);  // clamped, never below 2^-127
  CHECK(attn::mx_scale_value(127) == 1.0f);
  CHECK(attn::mx_scale_value(125) == 0.25f);
}

TEST_CASE("mxfp4: the packed layout of a 576-wide row, low nibble first", "[mxfp4]") {
  std::vector<float> row(576, 0.0f);
  row[0] = 1.0f;    // block 0, amax 4 -> scale 1: code 2
  row[1] = -4.0f;   // code 8 | 6 = 14
  row[33] = 0.5f;   // block 1, amax 0.5 -> scale 2^-3: 0.5 / 0.125 = 4, code 6 (high nibble)
  row[575] = 3.0f;  // the last block: amax 3 -> scale 2^-1: 6, code 7 (high nibble)
  const attn::Mxfp4Matrix m = attn::quantize_mxfp4(row.data(), 1, 576);
  REQUIRE(m.values.size() == 288);
  REQUIRE(m.scales.size() == 18);
  CHECK(m.values[0] == ((14u << 4) | 2u));
  CHECK(m.scales[0] == 127);
  CHECK(m.values[16] == (6u << 4));
  CHECK(m.scales[1] == 124);
  CHECK(m.values[287] == (7u << 4));
  CHECK(m.scales[17] == 126);
  CHECK(m.scales[5] == 0);  // an all-zero block
  const std::vector<float> back = attn::dequantize_mxfp4(m);
  CHECK(back == row);  // every value above is exactly representable
  CHECK_THROWS_AS(attn::quantize_mxfp4(row.data(), 1, 575), attn::InputError);
}

TEST_CASE("mxfp4: random rows stay within two scale steps and rounding is idempotent", "[mxfp4]") {
  const unsigned seed = std::random_device{}();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  std::normal_distribution<float> randn(0.0f, 1.0f);
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t rows = 1 + rng() % 9, cols = 2 * (1 + rng() % 300);  // partial blocks too
    const float amp = std::ldexp(0.02f, static_cast<int>(rng() % 40) - 20);
    std::vector<float> x(rows * cols);
    for (float& v : x) v = randn(rng) * amp;
    CAPTURE(trial, rows, cols, amp);
    const attn::Mxfp4Matrix m = attn::quantize_mxfp4(x.data(), rows, cols);
    const std::vector<float> y = attn::dequantize_mxfp4(m);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t i = 0; i < cols; ++i) {
        const float s = attn::mx_scale_value(m.scales[r * m.scale_cols() + i / attn::kMxBlock]);
        const float a = x[r * cols + i], b = y[r * cols + i];
        REQUIRE(std::isfinite(b));
        // Steps of E2M1 are at most 2 scale units (4 -> 6), and amax < 8 scale units saturates
        // by less than 2: the error is at most 2 units, and the sign is kept.
        REQUIRE(std::fabs(a - b) <= 2.0f * s);
        REQUIRE((b == 0.0f || std::signbit(a) == std::signbit(b)));
      }
    std::vector<float> z = y;
    attn::round_to_mxfp4(z.data(), rows, cols);
    CHECK(z == y);
  }
}

TEST_CASE("mxfp4: the kernels' register dequantisation equals attention/'s on every code and scale",
          "[mxfp4]") {
  // kernels/mxfp4_device.h turns a byte of two E2M1 codes and a block's E8M0 scale into two bf16
  // without a table; the bf16 must be exactly the float attn::dequantize_mxfp4 gives.
  for (std::uint32_t s = 0; s < 256; ++s) {
    const float scale = kern::mx::scale_value(s);
    const float want_scale = attn::mx_scale_value(static_cast<std::uint8_t>(s));
    CAPTURE(s);
    if (s == 255) {
      REQUIRE(std::isnan(scale));
      REQUIRE(std::isnan(want_scale));
    } else {
      REQUIRE(scale == want_scale);
    }
    for (std::uint32_t byte = 0; byte < 256; ++byte) {
      const std::uint32_t w = kern::mx::byte_to_bf16x2(byte, scale);
      for (int half = 0; half < 2; ++half) {
        const std::uint8_t code = static_cast<std::uint8_t>(half == 0 ? byte & 15u : byte >> 4);
        const float want = attn::e2m1_value(code) * want_scale;
        const std::uint32_t bits = half == 0 ? (w & 0xffffu) << 16 : w & 0xffff0000u;
        const float got = kern::mx::bits_to_float(bits);
        CAPTURE(byte, half);
        if (std::isnan(want))
          REQUIRE(std::isnan(got));
        else
          REQUIRE(got == want);  // exact: E2M1 times a power of two fits bf16
      }
    }
  }
  std::uint32_t out[4];
  kern::mx::word_to_bf16x8(0x7f10a9c2u, 1.0f, out);  // bytes c2 a9 10 7f: element order kept
  CHECK(out[0] == kern::mx::byte_to_bf16x2(0xc2u, 1.0f));
  CHECK(out[1] == kern::mx::byte_to_bf16x2(0xa9u, 1.0f));
  CHECK(out[2] == kern::mx::byte_to_bf16x2(0x10u, 1.0f));
  CHECK(out[3] == kern::mx::byte_to_bf16x2(0x7fu, 1.0f));
}

TEST_CASE("MX-FP8: the kernels' e4m3 conversions equal attention/'s bit for bit", "[mxfp4]") {
  for (std::uint32_t c = 0; c < 256; ++c) {
    const float want = attn::e4m3_bits_to_float(static_cast<std::uint8_t>(c));
    const float got = kern::mx::e4m3_to_float(c);
    CAPTURE(c);
    if (std::isnan(want))
      REQUIRE(std::isnan(got));
    else
      REQUIRE(kern::mx::float_to_bits(got) == kern::mx::float_to_bits(want));
  }
  // Every bf16 (the values Q holds), then random floats of every magnitude.
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const float x = kern::mx::bits_to_float(h << 16);
    CAPTURE(h);
    REQUIRE(kern::mx::float_to_e4m3(x) == attn::float_to_e4m3_bits(x));
  }
  std::mt19937 rng(20261207);
  for (int i = 0; i < 200000; ++i) {
    const float x = kern::mx::bits_to_float(static_cast<std::uint32_t>(rng()));
    CAPTURE(x);
    REQUIRE(kern::mx::float_to_e4m3(x) == attn::float_to_e4m3_bits(x));
  }
}

TEST_CASE("MX-FP8: Q split into two e4m3 blocks stays within 2^-8 of each block's largest value",
          "[mxfp4]") {
  const unsigned seed = std::random_device{}();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  std::normal_distribution<float> randn(0.0f, 1.0f);
  for (int trial = 0; trial < 2000; ++trial) {
    const float amp = std::ldexp(1.0f, static_cast<int>(rng() % 60) - 30);
    float x[32];
    for (float& v : x) v = attn::round_to_bf16(randn(rng) * amp);  // Q is bf16
    if (trial % 7 == 0) x[rng() % 32] = 0.0f;
    if (trial % 11 == 0)
      for (float& v : x) v = 0.0f;  // an all-zero block
    std::uint32_t hi[8], lo[8], s_hi = 0, s_lo = 0;
    kern::mx::split_e4m3_block(x, hi, &s_hi, lo, &s_lo);
    REQUIRE(s_hi <= 254);
    REQUIRE(s_lo <= 254);
    float amax = 0.0f;
    for (float v : x) amax = std::max(amax, std::fabs(v));
    CAPTURE(trial, amp, amax, s_hi, s_lo);
    for (int i = 0; i < 32; ++i) {
      const auto code = [](const std::uint32_t* w, int k) { return (w[k / 4] >> (8 * (k % 4))) & 0xffu; };
      const float h = kern::mx::e4m3_to_float(code(hi, i)) * kern::mx::scale_value(s_hi);
      const float l = kern::mx::e4m3_to_float(code(lo, i)) * kern::mx::scale_value(s_lo);
      CAPTURE(i, x[i], h, l);
      REQUIRE(std::isfinite(h));
      REQUIRE(std::isfinite(l));
      REQUIRE(std::fabs(static_cast<double>(x[i]) - h - l) <= std::ldexp(amax, -8));
    }
  }
}
