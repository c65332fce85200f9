// NPY reader and writer. Format versions 1, 2 and 3; little-endian float16/float32/float64 and
// int32/int64; C order only. Every header field and the file size are checked before anything
// is allocated; errors are InputError "path: what was wrong".
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "attention/tensor.h"

namespace attn {

enum class NpyKind { kF16, kF32, kF64, kI32, kI64 };

struct NpyArray {
  NpyKind kind = NpyKind::kF32;
  std::vector<std::int64_t> shape;
  std::vector<unsigned char> bytes;  // raw little-endian element data, C order
};

// Parses a whole file already in memory; `origin` names it in errors.
NpyArray parse_npy(const unsigned char* data, std::size_t size, const std::string& origin,
                   std::int64_t max_bytes);
NpyArray read_npy(const std::string& path);  // file size checked against Limits first

// Floating arrays converted to float32 (int arrays rejected, naming the dtype found).
TensorF read_npy_float(const std::string& path);
TensorF npy_to_float(const NpyArray& a, const std::string& origin);
// Integer arrays (int32/int64) for lens; float arrays rejected.
std::vector<std::int64_t> npy_to_int64(const NpyArray& a, const std::string& origin);

// Serialises to NPY version 1.0 ('<f4' / '<i8').
std::vector<unsigned char> npy_bytes(const TensorF& t);
std::vector<unsigned char> npy_bytes_i64(const std::vector<std::int64_t>& shape,
                                         const std::vector<std::int64_t>& data);
// Writes atomically: to "path.tmp-<pid>-<n>" in the same folder, then rename; on failure the
// existing file is untouched and the temporary removed. Throws InputError naming the path.
void write_npy(const std::string& path, const TensorF& t);
void write_file_atomic(const std::string& path, const std::string& contents);

}  // namespace attn
