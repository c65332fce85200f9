// The KV report as JSON (docs/DESIGN.md section 3, `kv --json`): one writer for the CLI and the
// explorer's KV export, so their fields cannot drift apart.
#pragma once
#include <nlohmann/json.hpp>

#include "attention/config.h"
#include "attention/kv_cache.h"

namespace attn {

// {model, display_name, variant, dtype, seq, batch, tp, num_layers, bytes_per_token,
//  bytes_per_token_full_layer, total_bytes, per_device_bytes,
//  layers: [{layer, kind, window, bytes, per_device_bytes}]} for `report` of `model`.
nlohmann::ordered_json kv_report_json(const ModelConfig& model, const KvReport& report);

}  // namespace attn
