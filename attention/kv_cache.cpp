// KV-cache accounting (docs/DESIGN.md section 4).
//
// Per layer and token: a grouped layer stores K and V rows for each kv head, Hkv * (D + Dv)
// elements (= 2 * Hkv * D, as D = Dv in the grouped family); an MLA layer stores one latent row
// of Dl + Dr elements. Sizes go through dtype_storage_bytes per row, so mxfp4 pays its scale
// byte per started block of 32 of each row. A sliding layer stores min(S, W) tokens. Under
// tensor parallelism N a device holds ceil(Hkv / N) kv heads of a grouped layer (heads are
// replicated once N > Hkv); the MLA latent is replicated on every device.
#include "attention/kv_cache.h"

#include <algorithm>
#include <limits>
#include <string>

#include "attention/error.h"

namespace attn {
namespace {

std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a)
    throw InputError("KV cache size overflows 64 bits: lower --seq or --batch");
  return a * b;
}

std::uint64_t checked_add(std::uint64_t a, std::uint64_t b) {
  if (b > std::numeric_limits<std::uint64_t>::max() - a)
    throw InputError("KV cache size overflows 64 bits: lower --seq or --batch");
  return a + b;
}

}  // namespace

std::uint64_t kv_bytes_per_token(const LayerShape& layer, DType dt, int tp) {
  if (tp < 1 || tp > Limits::kMaxHeads)
    throw InputError("tp must be between 1 and " + std::to_string(Limits::kMaxHeads) + " (found " +
                     std::to_string(tp) + ")");
  if (layer.variant == Variant::kMla)  // one shared latent row, replicated under TP
    return dtype_storage_bytes(dt, 1,
                               static_cast<std::uint64_t>(layer.latent_dim + layer.rope_dim));
  const auto heads = static_cast<std::uint64_t>((layer.kv_heads + tp - 1) / tp);
  return dtype_storage_bytes(dt, heads, static_cast<std::uint64_t>(layer.head_dim)) +
         dtype_storage_bytes(dt, heads, static_cast<std::uint64_t>(layer.value_dim));
}

KvReport kv_cache(const ModelConfig& model, std::int64_t seq, std::int64_t batch, DType dt,
                  int tp) {
  if (seq < 1 || seq > Limits::kMaxSeq)
    throw InputError("seq must be between 1 and " + std::to_string(Limits::kMaxSeq) + " (found " +
                     std::to_string(seq) + ")");
  if (batch < 1 || batch > Limits::kMaxBatch)
    throw InputError("batch must be between 1 and " + std::to_string(Limits::kMaxBatch) +
                     " (found " + std::to_string(batch) + ")");
  if (tp < 1 || tp > Limits::kMaxHeads)
    throw InputError("tp must be between 1 and " + std::to_string(Limits::kMaxHeads) + " (found " +
                     std::to_string(tp) + ")");
  model.validate();

  KvReport r;
  r.model = model.name;
  r.dtype = dt;
  r.seq = seq;
  r.batch = batch;
  r.tp = tp;
  r.layers.reserve(static_cast<std::size_t>(model.num_layers));
  for (int i = 0; i < model.num_layers; ++i) {
    const LayerShape s = model.layer_shape(i);
    const bool sliding = model.layers[static_cast<std::size_t>(i)] == LayerKind::kSliding;
    const std::int64_t tokens = sliding ? std::min<std::int64_t>(seq, s.window) : seq;
    const std::uint64_t per_token = kv_bytes_per_token(s, dt, 1);
    const std::uint64_t per_token_dev = kv_bytes_per_token(s, dt, tp);
    const auto rows =
        checked_mul(static_cast<std::uint64_t>(tokens), static_cast<std::uint64_t>(batch));
    KvLayerBytes l;
    l.kind = sliding ? LayerKind::kSliding : LayerKind::kFull;
    l.window = sliding ? s.window : 0;
    l.bytes = checked_mul(per_token, rows);
    l.per_device_bytes = checked_mul(per_token_dev, rows);
    if (i == 0) r.bytes_per_token_full_layer = per_token;  // the same for every layer
    r.bytes_per_token = checked_add(r.bytes_per_token, per_token);
    r.total_bytes = checked_add(r.total_bytes, l.bytes);
    r.per_device_bytes = checked_add(r.per_device_bytes, l.per_device_bytes);
    r.layers.push_back(l);
  }
  return r;
}

}  // namespace attn
