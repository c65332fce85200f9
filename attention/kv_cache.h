// KV-cache accounting (docs/DESIGN.md section 4): per layer and token, GQA family 2 * Hkv * D *
// bytes(DT), MLA (Dl + Dr) * bytes(DT); a sliding layer stores min(S, W) tokens. Under tensor
// parallelism N each device holds ceil(Hkv / N) kv heads of a GQA layer; MLA's latent is
// replicated on every device.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/dtype.h"

namespace attn {

struct KvLayerBytes {
  LayerKind kind = LayerKind::kFull;
  int window = 0;                      // 0 for a full layer
  std::uint64_t bytes = 0;             // this layer, whole batch and sequence
  std::uint64_t per_device_bytes = 0;  // what one device holds of it under TP
};

struct KvReport {
  std::string model;
  DType dtype = DType::kBf16;
  std::int64_t seq = 0;
  std::int64_t batch = 1;
  int tp = 1;
  std::uint64_t bytes_per_token_full_layer = 0;  // one full layer, one token, one sequence
  std::uint64_t bytes_per_token = 0;             // all layers, one token (as if S <= every W)
  std::uint64_t total_bytes = 0;                 // all layers, batch and sequence
  std::uint64_t per_device_bytes = 0;            // one device under TP (= total without TP)
  std::vector<KvLayerBytes> layers;              // one per layer
};

// Bytes of one token of one layer of one sequence, on one device under tensor parallelism tp.
std::uint64_t kv_bytes_per_token(const LayerShape& layer, DType dt, int tp = 1);
// Throws InputError for seq < 1, batch < 1, tp < 1 or values past Limits.
KvReport kv_cache(const ModelConfig& model, std::int64_t seq, std::int64_t batch, DType dt,
                  int tp = 1);

}  // namespace attn
