// Device discovery for kernels/gpu.h: gpu_compiled(), query_device(), and the small checks the
// host code runs before launching (gpu_check.h: require_device, device_multiprocessors,
// check_warp_size).
// The runtime first: attention/softmax_state.h needs __host__/__device__ defined (HIP).
#include "kernels/hip_compat.h"
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>

#include "attention/error.h"
#include "kernels/gpu.h"
#include "kernels/gpu_check.h"

namespace kern {

namespace {

std::string version_string(int v) {  // 13000 -> "13.0", 60443482 (HIP) -> "6.4"
  if (v >= 10000000) return std::to_string(v / 10000000) + "." + std::to_string((v / 100000) % 100);
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// The kernel driver's own version where Linux exposes it ("580.159.04"); empty otherwise.
std::string kernel_driver_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (f && std::getline(f, line)) {
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue ..."
    std::istringstream is(line);
    std::string word;
    while (is >> word) {
      if (!word.empty() && word[0] >= '0' && word[0] <= '9' && word.find('.') != std::string::npos)
        return word;
    }
  }
  std::ifstream a("/sys/module/amdgpu/version");
  if (a && std::getline(a, line) && !line.empty()) return "amdgpu " + line;
  return {};
}

DeviceInfo query_uncached() {
  DeviceInfo d;
  int count = 0;
  hipError_t e = hipGetDeviceCount(&count);
  if (e != hipSuccess || count <= 0) {
    // The runtime answers "driver version is insufficient" on a machine with no GPU driver at
    // all, which misleads a reader: say what it means there.
    if (e == hipErrorInsufficientDriver)
      d.reason = "no GPU found (no GPU driver is loaded, or it is older than this build's runtime)";
    else if (e == hipErrorNoDevice || e == hipSuccess)
      d.reason = "no GPU found";
    else
      d.reason = std::string("no GPU found: ") + hipGetErrorString(e);
    (void)hipGetLastError();
    return d;
  }
  int dev = 0;
  if (hipGetDevice(&dev) != hipSuccess) dev = 0;
  hipDeviceProp_t p{};
  e = hipGetDeviceProperties(&p, dev);
  if (e != hipSuccess) {
    d.reason = std::string("cannot read the GPU's properties: ") + hipGetErrorString(e);
    (void)hipGetLastError();
    return d;
  }
  d.name = p.name;
#if defined(ATTNLAB_HIP_ON_CUDA)
  d.vendor = "nvidia";
  d.arch = "sm_" + std::to_string(p.major) + std::to_string(p.minor);
#else
  d.vendor = "amd";
  d.arch = p.gcnArchName;
  if (const auto colon = d.arch.find(':'); colon != std::string::npos) d.arch.resize(colon);
#endif
  d.multiprocessors = p.multiProcessorCount;
  d.warp_size = p.warpSize;
  d.total_memory = static_cast<std::uint64_t>(p.totalGlobalMem);
  d.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
#if defined(ATTNLAB_HIP_ON_CUDA)
  d.shared_per_block = static_cast<std::uint64_t>(p.sharedMemPerBlockOptin);  // opted in
#else
  d.shared_per_block = static_cast<std::uint64_t>(p.sharedMemPerBlock);  // gfx942 64 KB
#endif
  int rt = 0, drv = 0;
  (void)hipRuntimeGetVersion(&rt);
  (void)hipDriverGetVersion(&drv);
#if defined(ATTNLAB_HIP_ON_CUDA)
  d.runtime = "CUDA " + version_string(rt);
  const std::string api = "CUDA driver API " + version_string(drv);
#else
  d.runtime = "HIP " + version_string(rt);
  const std::string api = "HIP driver " + std::to_string(drv);
#endif
  const std::string kd = kernel_driver_version();
  d.driver = kd.empty() ? api : kd + " (" + api + ")";
  std::size_t free_b = 0, total_b = 0;
  e = hipMemGetInfo(&free_b, &total_b);
  if (e != hipSuccess) {
    d.reason = std::string("the GPU cannot be used: ") + hipGetErrorString(e);
    (void)hipGetLastError();
    return d;
  }
  d.free_memory = free_b;
  d.available = true;
  return d;
}

std::mutex g_mutex;
bool g_have = false;
DeviceInfo g_info;

const DeviceInfo& cached_info() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_have) {
    g_info = query_uncached();
    g_have = true;
  }
  return g_info;
}

}  // namespace

bool gpu_compiled() { return true; }

DeviceInfo query_device() {
  try {
    DeviceInfo d = cached_info();
    if (d.available) {  // free memory changes: ask again
      std::size_t free_b = 0, total_b = 0;
      if (hipMemGetInfo(&free_b, &total_b) == hipSuccess)
        d.free_memory = free_b;
      else
        (void)hipGetLastError();
    }
    return d;
  } catch (const std::exception& ex) {
    DeviceInfo d;
    d.reason = std::string("device query failed: ") + ex.what();
    return d;
  }
}

void require_device() {
  const DeviceInfo& d = cached_info();
  if (!d.available) throw attn::DeviceError("no usable GPU: " + d.reason);
}

int device_multiprocessors() {
  require_device();
  return cached_info().multiprocessors;
}

std::size_t device_shared_per_block() {
  require_device();
  return static_cast<std::size_t>(cached_info().shared_per_block);
}

bool device_is_sm90() {
  const DeviceInfo& d = cached_info();
  return d.available && d.vendor == "nvidia" && d.arch == "sm_90";
}

void check_warp_size() {
  require_device();
  const int w = cached_info().warp_size;
  if (w != ATTNLAB_KWARP)
    throw attn::DeviceError("the device's warp size is " + std::to_string(w) +
                            " but the kernels were compiled for " + std::to_string(ATTNLAB_KWARP) +
                            " (rebuild for this GPU's target)");
}

}  // namespace kern
