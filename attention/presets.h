// Model presets: published hyperparameters stored as data in assets/presets/*.json (each the
// model's Hugging Face config.json fields plus a name), embedded into the binary at build time
// and read through the same HF import as a user's file.
#pragma once
#include <string>
#include <vector>

#include "attention/config.h"

namespace attn {

const std::vector<ModelConfig>& presets();  // all presets, in a stable order
// Throws InputError "unknown preset 'x' (known: a, b, ...)".
const ModelConfig& find_preset(const std::string& name);

}  // namespace attn
