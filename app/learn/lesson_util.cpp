#include "app/learn/lesson_util.h"

#include "visuals/widgets.h"

#include <exception>

#include "attention/presets.h"
#include "attention/units.h"

namespace app::learn {

std::optional<attn::ModelConfig> preset(const std::string& name) {
  for (const attn::ModelConfig& p : attn::presets())
    if (p.name == name) return p;
  return std::nullopt;
}

std::optional<attn::ModelConfig> as_variant(const attn::ModelConfig& m, attn::Variant v,
                                            int kv_heads) {
  try {
    attn::WhatIf w;
    w.variant = v;
    w.kv_heads = kv_heads;
    return attn::apply_what_if(m, w);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

const attn::ModelConfig* mla_model(const Lesson& l) {
  if (l.model && l.model->variant == attn::Variant::kMla) return l.model;
  static const std::optional<attn::ModelConfig> ds = preset("deepseek-v3");
  return ds ? &*ds : nullptr;
}

attn::LayerShape full_layer(const attn::ModelConfig& m) {
  for (int i = 0; i < m.num_layers; ++i)
    if (m.layers.empty() || m.layers[static_cast<size_t>(i)] == attn::LayerKind::kFull)
      return m.layer_shape(i);
  return m.layer_shape(0);
}

std::uint64_t bytes_per_token(const attn::ModelConfig& m, attn::DType dt) {
  try {
    return attn::kv_cache(m, 1, 1, dt, 1).bytes_per_token;
  } catch (const std::exception&) {
    return 0;
  }
}

std::uint64_t cache_bytes(const attn::ModelConfig& m, std::int64_t seq, attn::DType dt) {
  try {
    return attn::kv_cache(m, seq, 1, dt, 1).total_bytes;
  } catch (const std::exception&) {
    return 0;
  }
}

double read_seconds(double bytes, const attn::GpuSpec* gpu) {
  return gpu && gpu->hbm_tbps > 0 ? bytes / gpu->bandwidth_bytes_per_s() : 0.0;
}

std::vector<vis::TapeColumn> tape_columns(const attn::LayerShape& layer) {
  std::vector<vis::TapeColumn> cols;
  if (layer.variant == attn::Variant::kMla) {
    cols.push_back({static_cast<float>(layer.latent_dim), vis::Concept::kLatent, 0,
                    "latent " + std::to_string(layer.latent_dim)});
    cols.push_back({static_cast<float>(layer.rope_dim), vis::Concept::kRope, 0,
                    "RoPE " + std::to_string(layer.rope_dim)});
    return cols;
  }
  for (int h = 0; h < layer.kv_heads; ++h) {
    const ImU32 group = vis::kv_head_color(h, layer.kv_heads);
    cols.push_back(
        {static_cast<float>(layer.head_dim), vis::Concept::kKey, group, "K" + std::to_string(h)});
  }
  for (int h = 0; h < layer.kv_heads; ++h) {
    const ImU32 group = vis::kv_head_color(h, layer.kv_heads);
    cols.push_back({static_cast<float>(layer.value_dim), vis::Concept::kValue, group,
                    "V" + std::to_string(h)});
  }
  return cols;
}

std::vector<vis::TapeColumn> mha_columns_of_mla(const attn::ModelConfig& m, bool dv_keys) {
  const int k = dv_keys ? m.value_dim : m.qk_nope_dim + m.rope_dim;
  std::vector<vis::TapeColumn> cols;
  for (int h = 0; h < m.q_heads; ++h)
    cols.push_back({static_cast<float>(k), vis::Concept::kKey, 0, ""});
  for (int h = 0; h < m.q_heads; ++h)
    cols.push_back({static_cast<float>(m.value_dim), vis::Concept::kValue, 0, ""});
  return cols;
}

std::string name_of(const attn::ModelConfig& m) {
  return m.display_name.empty() ? m.name : m.display_name;
}

std::string gpu_name(const Lesson& l) { return l.gpu ? l.gpu->name : std::string("no GPU spec"); }

std::string seconds_text(double s) { return attn::format_duration_us(s * 1e6); }

}  // namespace app::learn
