#include "attention/mxfp4.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attention/error.h"

namespace attn {
namespace {

constexpr float kE2m1[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
constexpr int kE2m1MaxExp = 2;  // 6 = 1.5 x 2^2

}  // namespace

float e2m1_value(std::uint8_t code) {
  const float m = kE2m1[code & 7u];
  return (code & 8u) ? -m : m;
}

std::uint8_t e2m1_code(float x) {
  if (std::isnan(x)) return 0;
  const std::uint8_t sign = std::signbit(x) ? 8u : 0u;
  const float a = std::fabs(x);
  if (a >= 6.0f) return static_cast<std::uint8_t>(sign | 7u);
  // The nearest of the 8 magnitudes; at a midpoint the even code (its last bit 0) wins.
  std::uint8_t best = 0;
  for (std::uint8_t i = 1; i < 8; ++i) {
    const float d = std::fabs(a - kE2m1[i]), db = std::fabs(a - kE2m1[best]);
    if (d < db || (d == db && (i & 1u) == 0)) best = i;
  }
  return static_cast<std::uint8_t>(sign | best);
}

std::uint8_t mx_scale_byte(float amax) {
  if (!(amax > 0.0f) || !std::isfinite(amax)) return 0;
  const int e = static_cast<int>(std::floor(std::log2(amax))) - kE2m1MaxExp;
  return static_cast<std::uint8_t>(std::clamp(e + 127, 0, 254));
}

float mx_scale_value(std::uint8_t byte) {
  if (byte == 255) return std::numeric_limits<float>::quiet_NaN();  // E8M0's NaN
  return std::ldexp(1.0f, static_cast<int>(byte) - 127);
}

Mxfp4Matrix quantize_mxfp4(const float* x, std::size_t rows, std::size_t cols) {
  if (cols < 2 || cols % 2 != 0)
    throw InputError("mxfp4: a row needs an even number of elements (two a byte), found " +
                     std::to_string(cols));
  Mxfp4Matrix m;
  m.rows = rows;
  m.cols = cols;
  const std::size_t sc = m.scale_cols();
  m.values.assign(rows * cols / 2, 0);
  m.scales.assign(rows * sc, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    for (std::size_t b = 0; b < sc; ++b) {
      const std::size_t lo = b * kMxBlock, hi = std::min(cols, lo + kMxBlock);
      float amax = 0;
      for (std::size_t i = lo; i < hi; ++i) amax = std::max(amax, std::fabs(row[i]));
      const std::uint8_t sb = mx_scale_byte(amax);
      m.scales[r * sc + b] = sb;
      const float inv = 1.0f / mx_scale_value(sb);
      for (std::size_t i = lo; i < hi; ++i) {
        const std::uint8_t code = e2m1_code(row[i] * inv);
        std::uint8_t& byte = m.values[(r * cols + i) / 2];
        byte = static_cast<std::uint8_t>(i % 2 == 0 ? (byte & 0xF0u) | code
                                                    : (byte & 0x0Fu) | (code << 4));
      }
    }
  }
  return m;
}

std::vector<float> dequantize_mxfp4(const Mxfp4Matrix& m) {
  std::vector<float> out(m.rows * m.cols);
  const std::size_t sc = m.scale_cols();
  for (std::size_t r = 0; r < m.rows; ++r)
    for (std::size_t i = 0; i < m.cols; ++i) {
      const std::uint8_t byte = m.values[(r * m.cols + i) / 2];
      const std::uint8_t code = i % 2 == 0 ? (byte & 0x0Fu) : (byte >> 4);
      out[r * m.cols + i] = e2m1_value(code) * mx_scale_value(m.scales[r * sc + i / kMxBlock]);
    }
  return out;
}

void round_to_mxfp4(float* x, std::size_t rows, std::size_t cols) {
  const std::vector<float> d = dequantize_mxfp4(quantize_mxfp4(x, rows, cols));
  std::copy(d.begin(), d.end(), x);
}

}  // namespace attn
