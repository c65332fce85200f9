// Kernel parameters shared by the MLA decode kernels (decode_mla.hip: v1, a CTA-wide pipeline;
// decode_mla_slice.hip: v3, one pipeline per warp). Include only from .hip files, after
// kernels/hip_compat.h.
#pragma once
#include <cstdint>
#include <limits>

#include "kernels/hip_compat.h"
#include "kernels/diag.h"
#include "kernels/mla_launch.h"

namespace kern {

struct MlaParams {
  const void* q;             // [B, H, Dk] 16-bit
  const void* kv;            // [B, S, Dk] 16-bit or e4m3 bytes
  const std::int32_t* lens;  // [B] valid positions, nullptr = all S
  float* out;                // [B, H, Dl]
  float* part_acc;           // [B, H, splits, Dl] unnormalised partial outputs (splits > 1)
  float2* part_state;        // [B, H, splits] (max, sum) of the split (splits > 1)
  std::int64_t seq;          // S
  int heads;                 // H
  int head_tiles;            // ceil(H / (16 * HG))
  int splits;                // KV splits per sequence
  std::int64_t split_len;    // tokens per split (a multiple of the block length)
  float score_scale;         // softmax scale (times kv_scale for fp8 keys)
  float out_scale;           // kv_scale for fp8 values, else 1
  int pdl = 0;               // 1: the split combine is launched as a programmatic dependent of
                             // this kernel (kernels/dependent_launch.h; ATTNLAB_PDL=0: never)
  int probe = 0;  // v5, v6 and v7 only, diagnostics (ATTNLAB_MLA_PROBE): 1 skip Q K^T, 2 skip
                  // P V, 4 no KV copies after block 0, 8 all threads copy
};

using MlaKernelFn = void (*)(MlaParams);

// A CTA whose split holds no position (every kernel): rows [head0, head0 + rows) of sequence b
// get zeros when there is no split, else the empty softmax state the combine skips. All
// `nthreads` threads of the CTA call it (thread index tid).
__device__ __forceinline__ void mla_write_empty_split(const MlaParams& p, std::int64_t b, int head0,
                                                      int rows, int split, int tid, int nthreads) {
  constexpr int kDl = 512;
  if (p.splits == 1) {
    for (int i = tid; i < rows * kDl; i += nthreads) {
      const int h = head0 + i / kDl;
      if (h < p.heads) p.out[(b * p.heads + h) * kDl + i % kDl] = 0.f;
    }
  } else {
    for (int i = tid; i < rows; i += nthreads) {
      const int h = head0 + i;
      if (h < p.heads)
        p.part_state[(b * p.heads + h) * p.splits + split] =
            make_float2(-std::numeric_limits<float>::infinity(), 0.f);
    }
  }
}

// v1 (decode_mla.hip): the kernel for this dtype and choice (head_groups 1 or 2, block_n 32 or
// 64, stages 1-3, fp8_fp16), with its shared memory, threads and resident blocks per SM (0 where
// its shared memory exceeds the device's limit a block); throws attn::DeviceError when the
// choice or dtype has no kernel.
MlaKernelFn mla_tile_kernel_for(attn::DType dt, const MlaKernelChoice& c, int* smem_bytes,
                                int* threads, int* per_sm);

// v3 (decode_mla_slice.hip): the kernel for this dtype and choice (version 3, head_groups 1),
// with its shared memory, threads and resident blocks per SM; throws attn::DeviceError when the
// choice has no kernel.
MlaKernelFn mla_slice_kernel(attn::DType dt, const MlaKernelChoice& c, int* smem_bytes,
                             int* threads, int* per_sm);

// v5 (decode_mla_wgmma_sm90a.hip, built where ATTNLAB_HAVE_SM90A is defined): 64 heads a CTA
// on wgmma, 16-bit caches; head_groups 4, block_n 64, stages 2. Throws attn::DeviceError for
// another choice or dtype, or when the device is not compute capability 9.0 (device_is_sm90).
MlaKernelFn mla_wgmma_kernel_for(attn::DType dt, const MlaKernelChoice& c, int* smem_bytes,
                                 int* threads, int* per_sm);
// v6 (decode_mla_narrow_sm90a.hip): up to 16 heads a CTA on wgmma with the tokens as the 64 rows
// (S^T = K Q^T, O^T = V^T P^T), 16-bit caches; head_groups 1 with (block_n, stages) (64, 2), (48,
// 3), (32, 2), (32, 4). Throws as v5 does.
MlaKernelFn mla_wgmma_narrow_kernel_for(attn::DType dt, const MlaKernelChoice& c, int* smem_bytes,
                                        int* threads, int* per_sm);
// v7 (decode_mla_fp8_sm90a.hip): v6's transposed products for fp8 e4m3 caches, the cache kept
// e4m3 in shared memory and converted to fp16 in registers for register-A wgmma; head_groups 1,
// block_n 64, stages 2 or 3. Throws as v5 does.
MlaKernelFn mla_wgmma_fp8_kernel_for(attn::DType dt, const MlaKernelChoice& c, int* smem_bytes,
                                     int* threads, int* per_sm);

}  // namespace kern
