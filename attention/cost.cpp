// Cost model of one decode step (T = 1) of one layer, batch B, over P cached positions
// (P = min(S, W) for a sliding layer, else S).
//
// What is counted (FLOPs: 2 per multiply-add; softmax exponentials, max and sums are left out,
// as they are O(H * P) against O(H * P * D) for the products):
//   grouped (MHA/MQA/GQA/SWA):
//     bytes  KV: B * P * Hkv * (D + Dv) elements of the cache dtype (exact, per-row storage)
//            Q:  B * Hq * D, O: B * Hq * Dv elements of the activation dtype
//     FLOPs  scores B * Hq * P * D * 2, P.V B * Hq * P * Dv * 2
//   MLA absorbed (W_UK folded into the query, attention over the latent, W_UV after):
//     bytes  KV: B * P * (Dl + Dr) elements (one latent row per token, shared by all heads)
//            with the model: Q = q_nope [B, H, Dn] + q_rope [B, H, Dr], O = [B, H, Dv],
//              weights W_UK [H, Dn, Dl] and W_UV [H, Dv, Dl] read once per step;
//            without it (the attention kernel alone): Q [B, H, Dl + Dr], O [B, H, Dl]
//     FLOPs  scores B * H * P * (Dl + Dr) * 2, P.V B * H * P * Dl * 2, and with the model the
//            absorption q_nope.W_UK B * H * Dn * Dl * 2 and W_UV.o B * H * Dl * Dv * 2
//   MLA naive (per-head K and V rebuilt from the latent every step):
//     bytes  KV as absorbed (the same latent cache is read), Q [B, H, Dn + Dr], O [B, H, Dv],
//            weights W_UK and W_UV; the rebuilt K and V are taken to stay on chip (a fused
//            kernel), so they add FLOPs, not bytes
//     FLOPs  rebuild B * P * H * (Dn + Dv) * Dl * 2, scores B * H * P * (Dn + Dr) * 2,
//            P.V B * H * P * Dv * 2
// Activation dtype (Q, O, MLA weights): the cache dtype when it is fp32, fp16 or bf16; bf16
// when the cache is fp8 or mxfp4 (those are storage formats of the cache, not of activations).
#include "attention/cost.h"

#include <algorithm>
#include <string>

#include "attention/error.h"
#include "attention/kv_cache.h"

namespace attn {
namespace {

DType activation_dtype(DType kv_dt) {
  return (kv_dt == DType::kFp8 || kv_dt == DType::kMxfp4) ? DType::kBf16 : kv_dt;
}

}  // namespace

DecodeCost decode_cost(const LayerShape& layer, std::int64_t batch, std::int64_t seq, DType kv_dt,
                       MlaForm form, const ModelConfig* model_mla) {
  if (batch < 1 || batch > Limits::kMaxBatch)
    throw InputError("batch must be between 1 and " + std::to_string(Limits::kMaxBatch) +
                     " (found " + std::to_string(batch) + ")");
  if (seq < 1 || seq > Limits::kMaxSeq)
    throw InputError("seq must be between 1 and " + std::to_string(Limits::kMaxSeq) + " (found " +
                     std::to_string(seq) + ")");
  layer.validate();
  const double b = static_cast<double>(batch);
  const double p =
      static_cast<double>(layer.window > 0 ? std::min<std::int64_t>(seq, layer.window) : seq);
  const double act = dtype_bytes_per_element(activation_dtype(kv_dt));
  const double h = layer.q_heads;
  DecodeCost c;
  c.kv_bytes = b * p * static_cast<double>(kv_bytes_per_token(layer, kv_dt, 1));

  if (layer.variant != Variant::kMla) {
    const double d = layer.head_dim, dv = layer.value_dim;
    c.q_bytes = b * h * d * act;
    c.o_bytes = b * h * dv * act;
    c.flops = 2.0 * b * h * p * (d + dv);
    return c;
  }

  const double dl = layer.latent_dim, dr = layer.rope_dim;
  if (model_mla == nullptr) {
    if (form == MlaForm::kNaive)
      throw InputError("the naive MLA cost needs the model (qk_nope_dim and value_dim)");
    c.q_bytes = b * h * (dl + dr) * act;
    c.o_bytes = b * h * dl * act;
    c.flops = 2.0 * b * h * p * (dl + dr + dl);
    return c;
  }
  const double dn = model_mla->qk_nope_dim;
  const double dv = model_mla->value_dim;
  if (!(dn > 0) || !(dv > 0))
    throw InputError("MLA cost: the model needs qk_nope_dim and value_dim (found Dn " +
                     std::to_string(model_mla->qk_nope_dim) + ", Dv " +
                     std::to_string(model_mla->value_dim) + ")");
  c.q_bytes = b * h * (dn + dr) * act;
  c.o_bytes = b * h * dv * act;
  c.weight_bytes = h * (dn + dv) * dl * act;  // W_UK [H, Dn, Dl] + W_UV [H, Dv, Dl]
  if (form == MlaForm::kAbsorbed) {
    const double absorb = 2.0 * b * h * dn * dl + 2.0 * b * h * dl * dv;
    c.flops = absorb + 2.0 * b * h * p * (dl + dr) + 2.0 * b * h * p * dl;
  } else {
    const double rebuild = 2.0 * b * p * h * (dn + dv) * dl;
    c.flops = rebuild + 2.0 * b * h * p * (dn + dr) + 2.0 * b * h * p * dv;
  }
  return c;
}

DecodeCost decode_cost_model(const ModelConfig& model, std::int64_t batch, std::int64_t seq,
                             DType kv_dt, MlaForm form) {
  model.validate();
  DecodeCost sum;
  const ModelConfig* mla = model.variant == Variant::kMla ? &model : nullptr;
  for (int i = 0; i < model.num_layers; ++i) {
    const DecodeCost c = decode_cost(model.layer_shape(i), batch, seq, kv_dt, form, mla);
    sum.kv_bytes += c.kv_bytes;
    sum.q_bytes += c.q_bytes;
    sum.o_bytes += c.o_bytes;
    sum.weight_bytes += c.weight_bytes;
    sum.flops += c.flops;
  }
  return sum;
}

double mla_multi_token_flops(const ModelConfig& model, std::int64_t tokens, std::int64_t seq,
                             MlaForm form) {
  if (model.variant != Variant::kMla)
    throw InputError("mla_multi_token_flops: the model is not MLA");
  if (tokens < 1 || seq < 0)
    throw InputError("mla_multi_token_flops: expected tokens >= 1 and seq >= 0, found " +
                     std::to_string(tokens) + " and " + std::to_string(seq));
  const double t = static_cast<double>(tokens), s = static_cast<double>(seq);
  const double h = model.q_heads, dl = model.latent_dim, dr = model.rope_dim;
  const double dn = model.qk_nope_dim, dv = model.value_dim;
  const double pairs = t * s + t * (t + 1) / 2;
  if (form == MlaForm::kAbsorbed)
    return t * (2.0 * h * dn * dl + 2.0 * h * dl * dv) + 2.0 * h * pairs * (dl + dr) +
           2.0 * h * pairs * dl;
  return 2.0 * (s + t) * h * (dn + dv) * dl + 2.0 * h * pairs * (dn + dr) + 2.0 * h * pairs * dv;
}

}  // namespace attn
