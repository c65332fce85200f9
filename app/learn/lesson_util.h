// Helpers the chapters share: the models a lesson draws (the user's, a preset, a what-if of
// either), the tape columns of a layer, and the formatting of lesson figures. No ImGui state.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/learn/chapter.h"
#include "attention/config.h"
#include "attention/kv_cache.h"
#include "visuals/lesson.h"

namespace app::learn {

// The preset `name`, or nullopt when the build has no such preset.
std::optional<attn::ModelConfig> preset(const std::string& name);
// `m` with another variant (what-if); nullopt when it does not fit the model.
std::optional<attn::ModelConfig> as_variant(const attn::ModelConfig& m, attn::Variant v,
                                            int kv_heads = 0);
// The user's model when it is MLA, else DeepSeek-V3 (the MLA chapters' model); may be null.
const attn::ModelConfig* mla_model(const Lesson& l);
// The first full-attention layer's shape (the layer a decode step pays most for).
attn::LayerShape full_layer(const attn::ModelConfig& m);

// KV bytes of one token, all layers (sliding layers counted as one token too).
std::uint64_t bytes_per_token(const attn::ModelConfig& m, attn::DType dt);
// The whole cache at S for one sequence.
std::uint64_t cache_bytes(const attn::ModelConfig& m, std::int64_t seq, attn::DType dt);
// Seconds to read `bytes` at the GPU's bandwidth (0 without a GPU).
double read_seconds(double bytes, const attn::GpuSpec* gpu);

// The tape of a layer: K and V per kv head (query-group colours on top), or latent + RoPE.
std::vector<vis::TapeColumn> tape_columns(const attn::LayerShape& layer);
// The MHA tape of an MLA model (H heads of K = qk_nope + rope wide and V = Dv wide), or of
// K and V both Dv wide when `dv_keys` (the usual "same model with MHA" count).
std::vector<vis::TapeColumn> mha_columns_of_mla(const attn::ModelConfig& m, bool dv_keys);

std::string name_of(const attn::ModelConfig& m);  // display name, else name
std::string gpu_name(const Lesson& l);            // "H200", or "no GPU spec"
std::string seconds_text(double s);               // "12.3 us" / "1.50 ms"

}  // namespace app::learn
