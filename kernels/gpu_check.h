// Runtime-call checking and an owning device buffer for the .hip host code.
//
//   HIP_CHECK(hipMalloc(&p, n));      // throws attn::DeviceError
//     "kernels/x.hip:42: hipMalloc(&p, n) failed: out of memory (hipErrorOutOfMemory)"
//   HIP_CHECK_LAUNCH();               // after a <<<>>> launch: the launch's own error
//   kern::DeviceBuffer buf(bytes);    // hipMalloc'ed, freed by the destructor
//
// Only include from .hip files (it pulls in the runtime through hip_compat.h).
#pragma once
#include <cstddef>
#include <string>
#include <utility>

#include "attention/error.h"
#include "kernels/hip_compat.h"

namespace kern {

[[noreturn]] inline void throw_hip_error(hipError_t e, const char* what, const char* file,
                                         int line) {
  std::string msg = std::string(file) + ":" + std::to_string(line) + ": " + what +
                    " failed: " + hipGetErrorString(e) + " (" + hipGetErrorName(e) + ")";
  if (e == hipErrorOutOfMemory) msg += "; the case needs more device memory than is free";
  (void)hipGetLastError();  // clear a sticky-free error so the next call starts clean
  throw attn::DeviceError(msg);
}

}  // namespace kern

#define HIP_CHECK(call)                                                 \
  do {                                                                  \
    hipError_t attnlab_err_ = (call);                                   \
    if (attnlab_err_ != hipSuccess)                                     \
      ::kern::throw_hip_error(attnlab_err_, #call, __FILE__, __LINE__); \
  } while (0)

#define HIP_CHECK_LAUNCH()                                                        \
  do {                                                                            \
    hipError_t attnlab_err_ = hipGetLastError();                                  \
    if (attnlab_err_ != hipSuccess)                                               \
      ::kern::throw_hip_error(attnlab_err_, "kernel launch", __FILE__, __LINE__); \
  } while (0)

namespace kern {

// Owning device allocation (hipMalloc / hipFree). Movable, not copyable. A zero-byte buffer
// holds nullptr. The allocation error names the size asked for.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) { allocate(bytes); }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }

  void allocate(std::size_t bytes) {
    reset();
    if (bytes == 0) return;
    void* p = nullptr;
    hipError_t e = hipMalloc(&p, bytes);
    if (e != hipSuccess) {
      const std::string what = "hipMalloc of " + std::to_string(bytes) + " bytes";
      throw_hip_error(e, what.c_str(), __FILE__, __LINE__);
    }
    ptr_ = p;
    bytes_ = bytes;
  }
  void reset() noexcept {
    if (ptr_) (void)hipFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }

  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Throws DeviceError when there is no usable device (the message says why). Cheap after the
// first call. Defined in gpu_device.hip.
void require_device();
// Multiprocessor count of the current device (cached). Throws DeviceError.
int device_multiprocessors();
// The most dynamic shared memory (LDS) one block may use on the current device (NVIDIA: the
// opt-in limit, 227 KB on an H100; AMD: 64 KB on gfx942, 160 KB on gfx950). Throws DeviceError.
std::size_t device_shared_per_block();
// Whether the current device is an NVIDIA compute capability 9.0 one (H100 / H200), where the
// sm_90a kernels (*_sm90a.hip, wgmma) run; false without a usable device. Cached.
bool device_is_sm90();
// Resident blocks a multiprocessor of kernel `fn` launched with `threads` threads and
// `smem_bytes` of dynamic shared memory, after allowing it that much; 0 (and nothing set) where
// smem_bytes exceeds the device's limit a block. Kernels call it once an instantiation.
template <class Fn>
int resident_blocks(Fn fn, int threads, int smem_bytes) {
  if (static_cast<std::size_t>(smem_bytes) > device_shared_per_block()) return 0;
  HIP_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(fn),
                                hipFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
  int n = 0;
  HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, threads, smem_bytes));
  return n;
}

// Throws DeviceError unless the device's warp size equals the compile-time ATTNLAB_KWARP the
// kernels' register layouts assume.
void check_warp_size();

}  // namespace kern
