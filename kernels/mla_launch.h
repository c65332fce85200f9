// Internal interface between the GPU host code (gpu_api, bench) and the MLA decode (its plan
// and launch in mla_plan.hip, its kernels in decode_mla*.hip). Device pointers travel as
// void* so no HIP/CUDA type crosses this header.
#pragma once
#include <cstddef>
#include <cstdint>

#include "attention/dtype.h"
#include "attention/reference.h"

namespace kern {

struct MlaDeviceArgs {
  const void* q = nullptr;             // [B, H, Dl + Dr] bf16 (fp16 when dt == kFp16)
  const void* kv = nullptr;            // [B, S, Dl + Dr] bf16 / fp16 / fp8 e4m3 (dt)
  float kv_scale = 1.0f;               // fp8: dequantised value = e4m3 * kv_scale
  const std::int32_t* lens = nullptr;  // [B] valid positions, nullptr = all S
  float* out = nullptr;                // [B, H, Dl] float32
  void* workspace = nullptr;           // split-KV partials, at least mla_workspace_bytes(...)
  std::int64_t batch = 0, seq = 0;     // B, S
  int heads = 0, latent_dim = 512, rope_dim = 64;  // H, Dl, Dr
  float scale = 0;                                 // softmax scale (already resolved, never 0)
  attn::DType dt = attn::DType::kBf16;
  void* stream = nullptr;  // hipStream_t / cudaStream_t, nullptr = default
};

// Kernel variant and split count (internal tuning; the launcher picks one from the shape and
// the device when none is given). version 1 (decode_mla.hip): head_groups 1 with (block_n,
// stages) (32, 1), (32, 2), (32, 3), (64, 2); head_groups 2 with (32, 1), (32, 2), (64, 2).
// versions 3 and 4
// (decode_mla_slice.hip, a pipeline per warp): head_groups 1; v3 16-bit (16, 2), (16, 3),
// (32, 2), fp8 (32, 2), (32, 3), (64, 2); v4 (32, 2), (64, 2); fp8 always through fp16 MMA.
// splits 0 = chosen from the shape.
struct MlaKernelChoice {
  int head_groups = 1;  // groups of 16 heads per CTA (sharing each KV tile)
  int block_n = 32;     // KV positions per shared-memory tile
  int stages = 2;       // tiles in flight (cp.async pipeline depth); v1 takes 1 (no overlap
                        // inside a CTA) where a device's shared memory a block is too small
  int splits = 0;       // KV splits per sequence (flash-decoding), 0 = auto
  int combine = 2;      // split merge: 2 = v2 parallel weights, 1 = v1 serial walk; the
                    // launcher's own choice takes 2 from 8 splits up (measured, kernels/DESIGN.md)
  bool fp8_fp16 = true;  // fp8 cache: convert to fp16 and use fp16 MMA (q scaled per row by
                         // a power of two; default, measured 2 % faster) instead of bf16
  int version = 1;       // 1: CTA-wide pipeline, 3 barriers a block; 3: a pipeline per warp,
                         // one barrier a block (every warp runs the whole softmax); 4: as 3,
                         // softmax rows split over the warps, P through shared memory (2);
                         // 5: 64 heads a CTA on wgmma (sm_90a, 16-bit; head_groups 4,
                         // block_n 64, stages 2); 6: <= 16 heads a CTA on wgmma, tokens
                         // as the rows (sm_90a, 16-bit; head_groups 1, block_n / stages
                         // 64 / 2, 48 / 3, 32 / 2, 32 / 4); 7: v6's products for fp8
                         // caches (sm_90a; head_groups 1, block_n 64, stages 2 or 3)
};
// Whether kernel `version` (1, 3-7) runs on the current device: v5 / v6 / v7 (wgmma) need a build
// with sm_90a code and a compute capability 9.0 GPU; the others run wherever a GPU build does.
bool mla_version_available(int version);
// The choice launch_mla_decode(a) makes for this shape on the current device (splits resolved).
MlaKernelChoice mla_plan(const MlaDeviceArgs& a);
MlaKernelChoice mla_plan(const MlaDeviceArgs& a,
                         const MlaKernelChoice& c);  // c with splits resolved
std::size_t mla_workspace_bytes(const MlaDeviceArgs& a, const MlaKernelChoice& c);
void launch_mla_decode(const MlaDeviceArgs& a, const MlaKernelChoice& c);

// gpu_decode_mla (kernels/gpu.h) with a given kernel variant (nullptr = the launcher's choice);
// host float32 in and out. For tests that check every variant against the reference.
void gpu_decode_mla_with(const attn::MlaDecodeShape& s, const float* q, const float* kv,
                         const std::int64_t* lens, float* out, attn::DType dt,
                         const MlaKernelChoice* choice);

// Workspace the launch needs for this shape on the current device (0 when no split).
std::size_t mla_workspace_bytes(const MlaDeviceArgs& a);
// Launches asynchronously on a.stream; throws attn::DeviceError on a launch error or a shape
// the kernel does not support (the message says which).
void launch_mla_decode(const MlaDeviceArgs& a);

}  // namespace kern
