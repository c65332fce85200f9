// CPU reference implementations (the truth the kernels are checked against).
//
// Layouts (docs/DESIGN.md section 2), row-major:
//   grouped decode: q [B, Hq, D]; k [B, S, Hkv, D]; v [B, S, Hkv, Dv]; out [B, Hq, Dv]
//   MLA absorbed:   q [B, H, Dl + Dr]; kv [B, S, Dl + Dr]; out [B, H, Dl]
//                   (keys are all Dl + Dr columns of kv, values its first Dl)
//   lens [B] or nullptr: valid cached positions per sequence (nullptr = all S)
// Query head h reads kv head h / G. A window W > 0 keeps positions max(0, len - W) .. len - 1.
// A sequence with len 0 yields zeros. Softmax is max-subtracted, in Acc precision.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "attention/tensor.h"

namespace attn {

struct GroupedDecodeShape {
  std::int64_t batch = 1;  // B
  std::int64_t seq = 1;    // S (allocated positions per sequence)
  int q_heads = 1;         // Hq
  int kv_heads = 1;        // Hkv, divides Hq
  int head_dim = 1;        // D
  int value_dim = 1;       // Dv
  int window = 0;          // W, 0 = full
  double scale = 0;        // 0 = 1/sqrt(D)
};

struct MlaDecodeShape {
  std::int64_t batch = 1;  // B
  std::int64_t seq = 1;    // S
  int heads = 1;           // H
  int latent_dim = 512;    // Dl
  int rope_dim = 64;       // Dr
  double scale = 0;        // 0 = 1/sqrt(Dl + Dr)
};

// Acc is float (the fast threaded path) or double (the float64 truth). threads <= 0: all cores.
template <class Acc>
void decode_grouped(const GroupedDecodeShape& s, const float* q, const float* k, const float* v,
                    const std::int64_t* lens, Acc* out, int threads = 1);

template <class Acc>
void decode_mla_absorbed(const MlaDecodeShape& s, const float* q, const float* kv,
                         const std::int64_t* lens, Acc* out, int threads = 1);

// MLA decode over ragged sequences, as AMD's MI355X problem packs them: each sequence b has
// q_len new query tokens (rows q_start .. q_start + q_len - 1 of q [total_q, H, Dl + Dr]) and
// kv_len cached tokens (rows kv_start .. of kv [*, Dl + Dr]) whose last q_len are those new
// tokens. Causal among the new tokens: query i of a sequence (0-based) attends to its first
// kv_len - q_len + i + 1 cached tokens. out [total_q, H, Dl] in float64.
struct MlaSequence {
  std::int64_t q_start = 0, q_len = 1;
  std::int64_t kv_start = 0, kv_len = 0;
};
struct MlaRaggedShape {
  int heads = 1;         // H
  int latent_dim = 512;  // Dl
  int rope_dim = 64;     // Dr
  double scale = 0;      // 0 = 1/sqrt(Dl + Dr)
};
// Throws InputError when a sequence has fewer cached tokens than new ones.
void decode_mla_ragged(const MlaRaggedShape& s, const float* q, const float* kv,
                       const std::vector<MlaSequence>& seqs, double* out);
// The sequences of a packed batch from its index pointers (qo_indptr and kv_indptr, B + 1
// entries each, starting at 0, non-decreasing, ending at total_q and total_kv). Throws
// InputError naming `qo_name` or `kv_name` and the entry that breaks a rule.
std::vector<MlaSequence> mla_sequences_from_indptr(const std::vector<std::int64_t>& qo_indptr,
                                                   const std::vector<std::int64_t>& kv_indptr,
                                                   std::int64_t total_q, std::int64_t total_kv,
                                                   const std::string& qo_name,
                                                   const std::string& kv_name);

// Naive MLA: per-head keys and values rebuilt from the latent through the up-projections, with
// the decoupled RoPE part shared by all heads.
//   q_nope [B, H, Dn]; q_rope [B, H, Dr] (already rotated at the query position)
//   latent [B, S, Dl]; k_rope [B, S, Dr] (already rotated at each position)
//   w_uk [H, Dn, Dl] (k_nope[h] = w_uk[h] * latent); w_uv [H, Dv, Dl] (v[h] = w_uv[h] * latent)
//   out [B, H, Dv]
// Equals: absorbed decode with q = [q_nope[h] * w_uk[h], q_rope[h]], kv = [latent, k_rope],
// followed by out = w_uv[h] * out_latent. mla_absorb_query / mla_apply_wuv do those two steps.
struct MlaNaiveShape {
  std::int64_t batch = 1;
  std::int64_t seq = 1;
  int heads = 1;         // H
  int nope_dim = 128;    // Dn = qk_nope_head_dim
  int rope_dim = 64;     // Dr
  int latent_dim = 512;  // Dl
  int value_dim = 128;   // Dv
  double scale = 0;      // 0 = 1/sqrt(Dn + Dr)
};
void decode_mla_naive(const MlaNaiveShape& s, const float* q_nope, const float* q_rope,
                      const float* latent, const float* k_rope, const float* w_uk,
                      const float* w_uv, const std::int64_t* lens, double* out);
// q_abs [B, H, Dl + Dr] from q_nope, q_rope and w_uk.
void mla_absorb_query(const MlaNaiveShape& s, const float* q_nope, const float* q_rope,
                      const float* w_uk, float* q_abs);
// kv [B, S, Dl + Dr] from latent and k_rope.
void mla_pack_cache(const MlaNaiveShape& s, const float* latent, const float* k_rope, float* kv);
// out [B, H, Dv] = w_uv[h] * out_latent[b, h] (out_latent [B, H, Dl]).
void mla_apply_wuv(const MlaNaiveShape& s, const double* out_latent, const float* w_uv,
                   double* out);
// Rotates x [n, Dr] in place, pairs (i, i + Dr/2) as in HF's rotate_half, at positions pos[n].
void apply_rope(float* x, std::int64_t n, int rope_dim, const std::int64_t* pos,
                double theta = 10000.0);

// Prefill (T query tokens at positions S - T .. S - 1 of the same sequence, causal, optionally
// windowed), grouped family: q [T, Hq, D]; k [S, Hkv, D]; v [S, Hkv, Dv]; out [T, Hq, Dv].
// When keep_matrices is set (small T and S only), scores and probs are [Hq, T, S] with masked
// entries -inf (scores) and 0 (probs).
struct PrefillResult {
  TensorD out;
  TensorD scores;
  TensorD probs;
};
PrefillResult prefill_grouped(const GroupedDecodeShape& s, std::int64_t t_queries, const float* q,
                              const float* k, const float* v, bool keep_matrices);

}  // namespace attn
