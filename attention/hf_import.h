// Hugging Face config.json import (docs/DESIGN.md section 4). Every rule there is implemented and
// tested: explicit head_dim, Falcon-style fields, MLA fields, when sliding_window applies
// (use_sliding_window, layer_types, sliding_window_pattern, implied Gemma 2 alternation) and
// nested text_config.
#pragma once
#include <string>

#include "attention/config.h"

namespace attn {

// Parses JSON text; `origin` names the input in error messages (a file path). Throws
// InputError "origin: field 'x': expected ..., found ..." on malformed JSON or bad fields.
ModelConfig import_hf_config_text(const std::string& text, const std::string& origin);
// Reads the file (size checked against Limits::kMaxConfigBytes first).
ModelConfig import_hf_config_file(const std::string& path);

}  // namespace attn
