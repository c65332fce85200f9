// Cost model of one decode step (T = 1) of one layer: bytes read and written and FLOPs, and the
// arithmetic intensity that follows. MLA has two forms: absorbed (W_UK folded into the query,
// attention over the latent cache, W_UV applied after) and naive (per-head K and V rebuilt from
// the latent every step).
#pragma once
#include <cstdint>

#include "attention/config.h"
#include "attention/dtype.h"

namespace attn {

enum class MlaForm { kAbsorbed, kNaive };

struct DecodeCost {
  double kv_bytes = 0;      // cache read (only the window for sliding layers)
  double q_bytes = 0;       // query read
  double o_bytes = 0;       // output written
  double weight_bytes = 0;  // MLA: W_UK / W_UV read by the step (naive and absorbed)
  double flops = 0;         // multiply-adds counted as 2 FLOPs
  double total_bytes() const { return kv_bytes + q_bytes + o_bytes + weight_bytes; }
  double intensity() const { return total_bytes() > 0 ? flops / total_bytes() : 0; }  // FLOP/B
};

// For grouped layers `model_mla` is unused. For MLA, `model_mla` supplies qk_nope_dim and
// value_dim for the naive form and the W_UK/W_UV products; attention proper uses layer.
// Sequence positions read: min(seq, window) when the layer has a window.
DecodeCost decode_cost(const LayerShape& layer, std::int64_t batch, std::int64_t seq, DType kv_dt,
                       MlaForm form = MlaForm::kAbsorbed, const ModelConfig* model_mla = nullptr);

// The sum over all layers of a model (each layer with its own window; MLA layers with the
// model's qk_nope_dim and value_dim, so W_UK / W_UV bytes and the absorption are included).
DecodeCost decode_cost_model(const ModelConfig& model, std::int64_t batch, std::int64_t seq,
                             DType kv_dt, MlaForm form = MlaForm::kAbsorbed);

// FLOPs of one MLA layer taking `tokens` new tokens at once (a prefill, or a step of several
// queries) over `seq` cached earlier tokens, causal among the new ones: new token i attends to
// seq + i + 1 positions, T * seq + T (T + 1) / 2 pairs in all, for each of H heads and B = 1.
//   naive:    K and V rebuilt once for each of the seq + T positions, then products at Dn + Dr
//             (scores) and Dv (P.V)
//   absorbed: the absorption once per new token, then products over the latent at Dl + Dr and Dl
// With tokens = 1 this equals decode_cost's FLOPs at S = seq + 1. Throws InputError for a
// model that is not MLA or counts below 0 (tokens below 1).
double mla_multi_token_flops(const ModelConfig& model, std::int64_t tokens, std::int64_t seq,
                             MlaForm form);

}  // namespace attn
