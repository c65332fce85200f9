// What the packed MLA decode's kernels (decode_mla_packed.hip) and its plan and launch
// (mla_packed_plan.hip) share. Include only from .hip files, after kernels/hip_compat.h.
#pragma once
#include <cstdint>

#include "attention/dtype.h"
#include "kernels/hip_compat.h"

namespace kern {

constexpr int kMlaPackedBlockN = 32;   // tokens a block
constexpr int kMlaPackedMaxQLen = 64;  // new tokens a sequence, at most

struct PackedParams {
  const void* q;
  const void* kv;
  const std::uint8_t* kv_scales;
  const std::int32_t* seqs;  // [B, 4]
  float* out;                // [total_q * H, Dl]
  float* part_acc;           // [total_q * H, splits, Dl] (splits > 1)
  float2* part_state;        // [total_q * H, splits] (max, sum)
  int heads;
  int row_tiles;  // ceil(max_q_len * H / 16)
  int splits;
  std::int64_t split_len;  // tokens a split, a multiple of kMlaPackedBlockN
  float score_scale;       // softmax scale (times kv_scale for fp8 keys)
  float out_scale;         // kv_scale for fp8 values, else 1
  int pdl;
};

using MlaPackedKernelFn = void (*)(PackedParams);

// The kernel for this cache dtype (bf16, fp16, fp8 or mxfp4), with its shared memory, threads and
// resident blocks per SM; throws attn::DeviceError for another dtype. Two shared-memory stages
// where they fit the device's limit a block, else one (gfx942); ATTNLAB_MLA_PACKED_STAGES
// (1 or 2) asks for one. per_sm is 0 where the kernel does not fit.
MlaPackedKernelFn mla_packed_kernel_for(attn::DType dt, int* smem_bytes, int* threads, int* per_sm);

}  // namespace kern
