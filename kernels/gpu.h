// Host API of the GPU decode kernels. Pure C++ header: no HIP or CUDA types cross it, so the
// CLI, the explorer and the tests include it in every build. In a build without GPU support
// every call throws DeviceError("this build has no GPU support") and query_device() reports
// available = false.
//
// All tensors here are host float32 in the layouts of docs/DESIGN.md section 2; the API
// uploads them converted to the requested storage dtype (bf16, fp16, or fp8 e4m3 KV with one
// float32 scale per tensor and bf16 queries), runs, and downloads float32 results. Benchmarks use
// GpuWorkspace to keep data resident.
#pragma once
#include <cstdint>
#include <string>

#include "attention/dtype.h"
#include "attention/reference.h"

namespace kern {

struct DeviceInfo {
  bool available = false;
  std::string reason;       // why not available ("no GPU found", "built without GPU support")
  std::string name;         // "NVIDIA H200"
  std::string vendor;       // "nvidia" / "amd"
  std::string arch;         // "sm_90", "gfx942"
  std::string driver;       // driver version string
  std::string runtime;      // "CUDA 13.0" / "HIP 6.x"
  int multiprocessors = 0;  // SMs / CUs
  int warp_size = 0;        // asked of the device, never assumed
  std::uint64_t total_memory = 0;
  std::uint64_t free_memory = 0;
  std::uint64_t l2_bytes = 0;
};

bool gpu_compiled();        // built with CUDA or HIP
DeviceInfo query_device();  // never throws

// Grouped decode (MHA/MQA/GQA/SWA): q [B, Hq, D], k/v [B, S, Hkv, D|Dv], lens [B] or nullptr,
// out [B, Hq, Dv]. dt: kBf16, kFp16 or kFp8 (KV in e4m3, q in bf16). Throws DeviceError.
// launches > 1 runs the decode that many times on the same workspace, the output poisoned
// before each, and returns the last (tests: what a launch leaves behind for the next).
void gpu_decode_grouped(const attn::GroupedDecodeShape& s, const float* q, const float* k,
                        const float* v, const std::int64_t* lens, float* out, attn::DType dt,
                        int launches = 1);
// MLA absorbed decode: q [B, H, Dl + Dr], kv [B, S, Dl + Dr], out [B, H, Dl].
void gpu_decode_mla(const attn::MlaDecodeShape& s, const float* q, const float* kv,
                    const std::int64_t* lens, float* out, attn::DType dt);

}  // namespace kern
