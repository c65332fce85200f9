#include "attention/kv_json.h"

#include <string>

#include "attention/dtype.h"

namespace attn {

nlohmann::ordered_json kv_report_json(const ModelConfig& model, const KvReport& r) {
  nlohmann::ordered_json j;
  j["model"] = r.model.empty() ? model.name : r.model;
  j["display_name"] = model.display_name;
  j["variant"] = std::string(variant_name(model.variant));
  j["dtype"] = std::string(dtype_name(r.dtype));
  j["seq"] = r.seq;
  j["batch"] = r.batch;
  j["tp"] = r.tp;
  j["num_layers"] = model.num_layers;
  j["bytes_per_token"] = r.bytes_per_token;
  j["bytes_per_token_full_layer"] = r.bytes_per_token_full_layer;
  j["total_bytes"] = r.total_bytes;
  j["per_device_bytes"] = r.per_device_bytes;
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    const KvLayerBytes& l = r.layers[i];
    layers.push_back({{"layer", i},
                      {"kind", std::string(layer_kind_name(l.kind))},
                      {"window", l.window},
                      {"bytes", l.bytes},
                      {"per_device_bytes", l.per_device_bytes}});
  }
  j["layers"] = layers;
  return j;
}

}  // namespace attn
