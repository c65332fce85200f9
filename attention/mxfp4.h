// mxfp4 (OCP Microscaling, MX FP4): E2M1 elements in blocks of 32 that share one E8M0 scale.
// The layout AMD's MI355X MLA-decode problem uses for its KV cache:
//   values  two E2M1 codes a byte, the even index in the low nibble: [rows, n / 2] bytes
//   scales  one E8M0 byte a block of 32 along the row:                [rows, n / 32] bytes
//   element = e2m1(code) * 2^(scale_byte - 127)
// E2M1 codes: bit 3 the sign, bits 0-2 the magnitude index into {0, 0.5, 1, 1.5, 2, 3, 4, 6}.
// Quantizing follows the OCP MX rule: a block's scale is 2^(floor(log2(amax)) - 2) (2 is
// E2M1's largest exponent), each element is rounded to the nearest E2M1 value (ties to even)
// after dividing by the scale, and saturates at +-6. An all-zero block gets scale byte 0.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace attn {

inline constexpr int kMxBlock = 32;  // elements that share a scale

// The value of an E2M1 code (its low 4 bits).
float e2m1_value(std::uint8_t code);
// The E2M1 code nearest to x (ties to the even code; |x| > 6 saturates to +-6; NaN is 0).
std::uint8_t e2m1_code(float x);
// The E8M0 scale byte of a block whose largest magnitude is `amax` (0 for amax == 0; clamped
// to 0..254 so that the byte is never E8M0's NaN).
std::uint8_t mx_scale_byte(float amax);
// 2^(byte - 127); byte 255 is E8M0's NaN.
float mx_scale_value(std::uint8_t byte);

// A rows x n matrix (n a multiple of 2) in mxfp4: `values` rows x n / 2 bytes, `scales`
// rows x ceil(n / 32) bytes.
struct Mxfp4Matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<std::uint8_t> values;
  std::vector<std::uint8_t> scales;
  std::size_t scale_cols() const { return (cols + kMxBlock - 1) / kMxBlock; }
};

// Quantizes row-major `x` [rows, cols] (cols even, >= 2). Throws InputError for an odd width.
Mxfp4Matrix quantize_mxfp4(const float* x, std::size_t rows, std::size_t cols);
// The values `m` stands for, row-major [rows, cols].
std::vector<float> dequantize_mxfp4(const Mxfp4Matrix& m);
// In place: x becomes what mxfp4 storage of it holds (quantize, then dequantize).
void round_to_mxfp4(float* x, std::size_t rows, std::size_t cols);

}  // namespace attn
