// Element types of tensors and caches, their names and storage sizes, and the rounding the GPU
// applies to float32 inputs (so the CPU reference can be fed exactly what the GPU sees).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attn {

// fp8 is e4m3 with one float32 scale per tensor; mxfp4 (KV accounting only) is 4 bits per
// element plus one 1-byte shared scale per 32 elements.
enum class DType { kFp32, kFp16, kBf16, kFp8, kMxfp4 };

std::string_view dtype_name(DType dt);                    // "fp32", "fp16", "bf16", "fp8", "mxfp4"
std::optional<DType> parse_dtype(std::string_view name);  // accepts the names above only

// Bytes to store n elements laid out as rows of row_len elements (mxfp4 scales are per block
// of 32 along a row, a partial block still needs its scale byte). Exact integers.
std::uint64_t dtype_storage_bytes(DType dt, std::uint64_t n_rows, std::uint64_t row_len);

// Average bytes per element (0.5 + 1/32 for mxfp4), for display and cost models.
double dtype_bytes_per_element(DType dt);

// Round-to-nearest-even conversions used to emulate device storage on the host.
float round_to_bf16(float x);
float round_to_fp16(float x);
// e4m3fn (max 448, no inf, NaN kept); x is divided by scale before rounding and the returned
// value is the dequantised one (rounded * scale).
float round_to_e4m3(float x, float scale);
// The per-tensor scale used for fp8 storage of values with the given absolute max:
// amax / 448 (1 when amax is 0).
float e4m3_scale_for(float amax);

std::uint16_t float_to_bf16_bits(float x);
float bf16_bits_to_float(std::uint16_t b);
std::uint16_t float_to_fp16_bits(float x);
float fp16_bits_to_float(std::uint16_t h);
std::uint8_t float_to_e4m3_bits(float x);  // x already divided by the scale
float e4m3_bits_to_float(std::uint8_t b);

}  // namespace attn
