// Internal interface between the GPU host code (gpu_api, bench) and the MLA decode kernel
// (decode_mla.hip). Device pointers travel as void* so no HIP/CUDA type crosses this header.
#pragma once
#include <cstddef>
#include <cstdint>

#include "attention/dtype.h"

namespace kern {

struct MlaDeviceArgs {
  const void* q = nullptr;     // [B, H, Dl + Dr] bf16 (fp16 when dt == kFp16)
  const void* kv = nullptr;    // [B, S, Dl + Dr] bf16 / fp16 / fp8 e4m3 (dt)
  float kv_scale = 1.0f;       // fp8: dequantised value = e4m3 * kv_scale
  const std::int32_t* lens = nullptr;  // [B] valid positions, nullptr = all S
  float* out = nullptr;        // [B, H, Dl] float32
  void* workspace = nullptr;   // split-KV partials, at least mla_workspace_bytes(...)
  std::int64_t batch = 0, seq = 0;  // B, S
  int heads = 0, latent_dim = 512, rope_dim = 64;  // H, Dl, Dr
  float scale = 0;             // softmax scale (already resolved, never 0)
  attn::DType dt = attn::DType::kBf16;
  void* stream = nullptr;      // hipStream_t / cudaStream_t, nullptr = default
};

// Workspace the launch needs for this shape on the current device (0 when no split).
std::size_t mla_workspace_bytes(const MlaDeviceArgs& a);
// Launches asynchronously on a.stream; throws attn::DeviceError on a launch error or a shape
// the kernel does not support (the message says which).
void launch_mla_decode(const MlaDeviceArgs& a);

}  // namespace kern
