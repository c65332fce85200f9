// Helpers shared by the HF import tests (test_hf_import.cpp, test_hf_import_bad.cpp).
#pragma once
#include <string>

#include "attention/config.h"
#include "attention/hf_import.h"

namespace hf_test {

inline attn::ModelConfig import(const std::string& text) {
  return attn::import_hf_config_text(text, "cfg.json");
}

// A Llama-style base; `extra` is spliced in as more fields (later keys win in nlohmann).
inline std::string llama(const std::string& extra = "") {
  return R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
             "num_attention_heads": 32, "max_position_embeddings": 8192)" +
         (extra.empty() ? std::string() : ", " + extra) + "}";
}

inline std::string repeat_types(const std::string& a, const std::string& b, int pairs) {
  std::string s = "[";
  for (int i = 0; i < pairs; ++i) s += (i ? ", " : "") + ("\"" + a + "\", \"" + b + "\"");
  return s + "]";
}

}  // namespace hf_test
