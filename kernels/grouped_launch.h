// Internal interface between the GPU host code (gpu_api, bench) and the grouped decode kernels
// (decode_grouped.hip). Device pointers travel as void* so no HIP/CUDA type crosses this header.
#pragma once
#include <cstddef>
#include <cstdint>

#include "attention/dtype.h"

namespace kern {

struct GroupedDeviceArgs {
  const void* q = nullptr;             // [B, Hq, D] bf16 (fp16 when dt == kFp16, bf16 when kFp8)
  const void* k = nullptr;             // [B, S, Hkv, D] bf16 / fp16 / fp8 e4m3 (dt)
  const void* v = nullptr;             // [B, S, Hkv, Dv] same storage as k
  float k_scale = 1.0f;                // fp8: dequantised key = e4m3 * k_scale (1 otherwise)
  float v_scale = 1.0f;                // fp8: dequantised value = e4m3 * v_scale (1 otherwise)
  const std::int32_t* lens = nullptr;  // [B] valid positions in 0..S, nullptr = all S
  float* out = nullptr;                // [B, Hq, Dv] float32
  void* workspace = nullptr;           // split-KV partials, at least grouped_workspace_bytes(...);
                                       // zero-filled before its first launch (the fused combine's
                                       // counters live there; every launch leaves them zero again)
  std::int64_t batch = 0, seq = 0;     // B, S
  int q_heads = 0, kv_heads = 0;       // Hq, Hkv (Hkv divides Hq)
  int head_dim = 0, value_dim = 0;     // D, Dv
  int window = 0;                      // W, 0 = full; keys max(0, len - W) .. len - 1
  float scale = 0;                     // softmax scale, already resolved (never 0)
  attn::DType dt = attn::DType::kBf16;
  void* stream = nullptr;    // hipStream_t / cudaStream_t, nullptr = default
  int force_splits = 0;      // > 0: use this many KV splits (tuning); 0 = chosen from shape
                             // (or ATTNLAB_GROUPED_SPLITS from the environment)
  int combine = 0;           // split combine: 0 = chosen (fused where v3/v4 run with <= 8 heads
                             // a slice, measured faster there, and where the v5 plan takes two
                             // warpgroups with splits; separate otherwise), 1 = separate
                             // kernel, 2 = fused into the main kernel where supported,
                             // 3 = v5's cluster merge where it can run (one warpgroup, one
                             // head slice, 2-16 splits; never chosen by 0: slower where
                             // measured), else as 0
                             // (or ATTNLAB_GROUPED_COMBINE from the environment)
  void* timeline = nullptr;  // diagnostics (tools/grouped_timeline.hip), v5 only: per CTA of
                             // the main kernel 8 u64: %globaltimer ns at its start, when its
                             // first block landed, after its last block, at its exit, then its
                             // multiprocessor id; nullptr = off
};

// How a launch is laid out (for the bench's notes and the tests).
struct GroupedPlan {
  int version = 1;         // 5: wgmma, 64 heads a CTA (NVIDIA sm_90a, bf16/fp16, D = Dv = 128);
                           // 4: mma + cp.async pipeline, 3: mma with register prefetch (both
                           // NVIDIA, bf16/fp16, D = Dv in {64, 128}); 2: tiled (D = Dv in
                           // {64, 128, 256}); 1: generic; 6: matrix units through matrix_ops.h
                           // (AMD's MFMA, the plan's choice there; NVIDIA when asked for;
                           // bf16/fp16, D = Dv in {64, 128}). ATTNLAB_GROUPED_VERSION (environment,
                           // 1-6) caps it, for comparisons (and forces 4-6 where built).
  int stages = 0;          // v4: shared-memory stages of `keys` keys per pipeline (2-4;
                           // v5: blocks of 64 keys, 3, 4 or 6;
                           // ATTNLAB_GROUPED_STAGES)
  int warpgroups = 1;      // v5: warpgroups a CTA, 1 or 2 (two pipelines over alternate blocks,
                           // 3 stages each, one CTA an SM; ATTNLAB_GROUPED_WGS)
  int keys = 16;           // v4: keys a warp step (16, or 32 for D 128 with mtiles 1;
                           // ATTNLAB_GROUPED_KEYS)
  int mtiles = 1;          // v4: 16-head m-tiles per warp
  int tile_warps = 1;      // v4: warps sharing one pipeline, 16 heads each (2 only with mtiles 1;
                           // slice_heads = 16 x mtiles x tile_warps; ATTNLAB_GROUPED_LAYOUT)
  bool fast = false;       // version >= 2
  int slices = 1;          // head slices per kv head (G > 32 is cut into slices of <= 32)
  int slice_heads = 1;     // GS, heads per slice the kernel is compiled for
  int splits = 1;          // KV splits per (b, kv head, slice)
  std::int64_t chunk = 0;  // keys per split
  std::int64_t blocks = 0;     // blocks of the main kernel
  bool fused_combine = false;  // splits > 1 merged by the main kernel's last block per group
  int cluster = 0;             // v5: > 1 = the splits of a group run as one thread-block cluster of
                               // this many CTAs and merge through distributed shared memory (no
                               // workspace, no combine kernel); 0 = not a cluster
  // Whether the splits are merged by a second kernel after the main one.
  bool separate_combine() const { return splits > 1 && !fused_combine && cluster == 0; }
};

GroupedPlan grouped_plan(const GroupedDeviceArgs& a);
// Workspace the launch needs for this shape on the current device (0 when no split).
std::size_t grouped_workspace_bytes(const GroupedDeviceArgs& a);
// Launches asynchronously on a.stream; throws attn::DeviceError on a launch error or a shape
// the kernels do not support (the message says which).
void launch_grouped_decode(const GroupedDeviceArgs& a);

}  // namespace kern
