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

}  // namespace attn
