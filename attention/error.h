// Errors that cross module boundaries. The CLI maps InputError to exit 2 and DeviceError to
// exit 3; the explorer shows either in place and goes on.
#pragma once
#include <stdexcept>
#include <string>

namespace attn {

// Bad input or usage: a file, a field, a flag or a shape that does not fit. The message names
// the input, the field, what was expected and what was found.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The device failed: no GPU, out of memory, a kernel or runtime error.
struct DeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace attn
