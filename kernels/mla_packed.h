// Internal interface of the MLA decode over packed ragged batches (decode_mla_packed.hip, v8):
// AMD's MI355X problem layout, several new tokens a sequence (causal among them), and bf16,
// fp16, fp8 e4m3 or mxfp4 caches. Device pointers travel as void* so no HIP/CUDA type crosses
// this header.
#pragma once
#include <cstddef>
#include <cstdint>

#include "attention/dtype.h"

namespace kern {

struct MlaPackedArgs {
  const void* q = nullptr;  // [total_q, H, Dl + Dr] bf16 (fp16 when dt == kFp16)
  // The cache, one row a token of [total_kv rows]: Dl + Dr 16-bit or e4m3 values, or for mxfp4
  // (Dl + Dr) / 2 bytes of E2M1 pairs (the even element in the low nibble).
  const void* kv = nullptr;
  const std::uint8_t* kv_scales = nullptr;  // mxfp4: [total_kv, (Dl + Dr) / 32] E8M0 bytes
  float kv_scale = 1.0f;                    // fp8: dequantised value = e4m3 * kv_scale
  // [batch, 4] int32: q_start, q_len, kv_start, kv_len of each sequence (rows of q and kv). Query
  // i of a sequence attends to its first kv_len - q_len + i + 1 cached tokens.
  const std::int32_t* seqs = nullptr;
  float* out = nullptr;  // [total_q, H, Dl] float32
  // Split-KV partials, at least mla_packed_workspace_bytes(...); zeroed by the caller when q has
  // rows no sequence owns (the combine reads every row's states; zero is an empty one).
  void* workspace = nullptr;
  std::int64_t batch = 0;       // sequences
  std::int64_t total_q = 0;     // rows of q
  int max_q_len = 1;            // the largest q_len (1..4 in AMD's problem; <= 64 here)
  std::int64_t max_kv_len = 0;  // the largest kv_len
  int heads = 0, latent_dim = 512, rope_dim = 64;  // H, Dl, Dr
  float scale = 0;                                 // softmax scale (resolved, never 0)
  attn::DType dt = attn::DType::kBf16;
  int splits = 0;          // KV splits per sequence, 0 = chosen from the shape
  void* stream = nullptr;  // hipStream_t / cudaStream_t, nullptr = default
};

// The split count launch_mla_packed takes for `a` (a.splits when given).
int mla_packed_splits(const MlaPackedArgs& a);
std::size_t mla_packed_workspace_bytes(const MlaPackedArgs& a);
// Launches asynchronously on a.stream (the decode, then the split combine); throws
// attn::DeviceError for a shape or dtype the kernel does not take, or a launch error.
void launch_mla_packed(const MlaPackedArgs& a);

}  // namespace kern
