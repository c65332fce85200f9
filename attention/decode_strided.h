// Internal to attention/: the one decode loop behind decode_grouped and decode_mla_absorbed.
//
// Both are "G query heads share one key/value row per position": the grouped family with
// G = Hq / Hkv, and absorbed MLA with one latent row per position (G = H, keys are the whole
// row, values its first Dl columns). Strides let the same loop read either layout.
#pragma once
#include <cstdint>

namespace attn {

struct StridedDecode {
  std::int64_t batch = 0;    // B
  std::int64_t seq = 0;      // S
  int q_heads = 0;           // Hq
  int kv_heads = 0;          // Hkv, divides Hq
  int head_dim = 0;          // D: width of q rows and k rows
  int value_dim = 0;         // Dv: width of v rows
  int window = 0;            // W, 0 = full
  double scale = 0;          // resolved (never 0 here)
  const float* q = nullptr;  // [B, Hq, D], contiguous
  const float* k = nullptr;  // k[b, t, h, :] at k + b*k_batch + t*k_pos + h*k_head
  std::int64_t k_batch = 0, k_pos = 0, k_head = 0;
  const float* v = nullptr;  // v[b, t, h, :] likewise
  std::int64_t v_batch = 0, v_pos = 0, v_head = 0;
  const std::int64_t* lens = nullptr;  // [B] or nullptr; clamped to 0..S when read
};

// out [B, Hq, Dv]. threads <= 0: std::thread::hardware_concurrency(). The result does not
// depend on the number of threads (the work split is a function of the shape only).
template <class Acc>
void decode_strided(const StridedDecode& p, Acc* out, int threads);

}  // namespace attn
