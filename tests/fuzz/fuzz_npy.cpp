// libFuzzer target: the NPY reader (attn::parse_npy and the conversions the CLI applies).
// Properties: any bytes either parse or are rejected with attn::InputError, and nothing is
// allocated before the header and the file size agree (a header claiming 10^15 elements in a
// small input must be refused, not allocated: -malloc_limit_mb turns that into a crash).
// A float array that parses survives the round trip through the project's writer bit for bit.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "attention/config.h"
#include "attention/error.h"
#include "attention/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  attn::NpyArray a;
  try {
    a = attn::parse_npy(data, size, "fuzz.npy", attn::Limits::kMaxTensorBytes);
  } catch (const attn::InputError&) {
    return 0;
  }
  // What was kept is no more than what was in the input.
  if (a.bytes.size() > size) __builtin_trap();
  std::size_t numel = 1;
  for (std::int64_t d : a.shape) {
    if (d < 0) __builtin_trap();
    numel *= static_cast<std::size_t>(d);
  }
  try {
    const attn::TensorF t = attn::npy_to_float(a, "fuzz.npy");
    if (t.shape != a.shape || t.data.size() != numel) __builtin_trap();
    const std::vector<unsigned char> out = attn::npy_bytes(t);
    const attn::NpyArray back =
        attn::parse_npy(out.data(), out.size(), "roundtrip.npy", attn::Limits::kMaxTensorBytes);
    const attn::TensorF t2 = attn::npy_to_float(back, "roundtrip.npy");
    if (t2.shape != t.shape || t2.data.size() != t.data.size()) __builtin_trap();
    if (!t.data.empty() &&
        std::memcmp(t2.data.data(), t.data.data(), t.data.size() * sizeof(float)) != 0)
      __builtin_trap();
  } catch (const attn::InputError&) {
  }
  try {
    const std::vector<std::int64_t> v = attn::npy_to_int64(a, "fuzz.npy");
    if (v.size() != numel) __builtin_trap();
  } catch (const attn::InputError&) {
  }
  return 0;
}
