// Attention configs: names, validation (every message names the field and what was found), the
// per-layer shapes of a model and the "what if" conversions between variants.
#include "attention/config.h"

#include <cmath>
#include <numeric>
#include <string>

#include "attention/error.h"

namespace attn {
namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

void check_range(const char* field, std::int64_t value, std::int64_t lo, std::int64_t hi) {
  if (value < lo || value > hi)
    throw InputError(std::string(field) + " must be between " + str(lo) + " and " + str(hi) +
                     " (found " + str(value) + ")");
}

// The grouped variant that head counts imply: Hkv = Hq is MHA, Hkv = 1 is MQA, else GQA.
Variant grouped_variant_for(int q_heads, int kv_heads) {
  if (kv_heads == q_heads) return Variant::kMha;
  if (kv_heads == 1) return Variant::kMqa;
  return Variant::kGqa;
}

}  // namespace

std::string_view variant_name(Variant v) {
  switch (v) {
    case Variant::kMha:
      return "mha";
    case Variant::kMqa:
      return "mqa";
    case Variant::kGqa:
      return "gqa";
    case Variant::kSwa:
      return "swa";
    case Variant::kMla:
      return "mla";
  }
  return "?";
}

std::optional<Variant> parse_variant(std::string_view name) {
  for (Variant v : {Variant::kMha, Variant::kMqa, Variant::kGqa, Variant::kSwa, Variant::kMla})
    if (variant_name(v) == name) return v;
  return std::nullopt;
}

bool is_grouped(Variant v) { return v != Variant::kMla; }

std::string_view layer_kind_name(LayerKind k) {
  return k == LayerKind::kSliding ? "sliding" : "full";
}

double default_scale(int qk_width) {
  return qk_width > 0 ? 1.0 / std::sqrt(static_cast<double>(qk_width)) : 0.0;
}

double LayerShape::effective_scale() const {
  if (scale > 0.0) return scale;
  return default_scale(variant == Variant::kMla ? latent_dim + rope_dim : head_dim);
}

void LayerShape::validate() const {
  check_range("q_heads", q_heads, 1, Limits::kMaxHeads);
  check_range("kv_heads", kv_heads, 1, Limits::kMaxHeads);
  check_range("head_dim", head_dim, 1, Limits::kMaxHeadDim);
  check_range("value_dim", value_dim, 1, Limits::kMaxHeadDim);
  if (window < 0 || window > Limits::kMaxSeq)
    throw InputError("window must be between 0 (full attention) and " + str(Limits::kMaxSeq) +
                     " (found " + str(window) + ")");
  if (!(scale >= 0.0) || !std::isfinite(scale))
    throw InputError("scale must be a positive finite number or 0 for the default (found " +
                     std::to_string(scale) + ")");
  if (variant == Variant::kMla) {
    check_range("latent_dim", latent_dim, 1, Limits::kMaxHeadDim);
    check_range("rope_dim", rope_dim, 0, Limits::kMaxHeadDim);
    if (kv_heads != 1)
      throw InputError(
          "kv_heads must be 1 for mla: the latent cache is shared by all heads "
          "(found Hkv " +
          str(kv_heads) + ")");
    if (head_dim != latent_dim + rope_dim)
      throw InputError("head_dim must equal latent_dim + rope_dim for mla (found D " +
                       str(head_dim) + ", Dl " + str(latent_dim) + ", Dr " + str(rope_dim) + ")");
    if (value_dim != latent_dim)
      throw InputError("value_dim must equal latent_dim for mla (found Dv " + str(value_dim) +
                       ", Dl " + str(latent_dim) + ")");
    if (window != 0)
      throw InputError("window is not supported for mla (found W " + str(window) + ")");
    return;
  }
  if (q_heads % kv_heads != 0)
    throw InputError("q_heads must be divisible by kv_heads (found Hq " + str(q_heads) + ", Hkv " +
                     str(kv_heads) + ")");
  if (variant == Variant::kMha && kv_heads != q_heads)
    throw InputError("kv_heads must equal q_heads for mha (found Hq " + str(q_heads) + ", Hkv " +
                     str(kv_heads) + ")");
  if (variant == Variant::kMqa && kv_heads != 1)
    throw InputError("kv_heads must be 1 for mqa (found Hkv " + str(kv_heads) + ")");
  if (variant == Variant::kSwa && window < 1)
    throw InputError("window must be at least 1 for swa (found W " + str(window) + ")");
}

LayerShape ModelConfig::layer_shape(int layer) const {
  if (layer < 0 || layer >= static_cast<int>(layers.size()))
    throw InputError("layer " + str(layer) + " is out of range (the model has " +
                     str(static_cast<std::int64_t>(layers.size())) + " layers)");
  LayerShape s;
  s.q_heads = q_heads;
  s.scale = scale;
  if (variant == Variant::kMla) {
    s.variant = Variant::kMla;
    s.kv_heads = 1;
    s.head_dim = latent_dim + rope_dim;
    s.value_dim = latent_dim;
    s.latent_dim = latent_dim;
    s.rope_dim = rope_dim;
    s.window = 0;
    return s;
  }
  s.kv_heads = kv_heads;
  s.head_dim = head_dim;
  s.value_dim = value_dim > 0 ? value_dim : head_dim;
  if (layers[static_cast<std::size_t>(layer)] == LayerKind::kSliding) {
    s.variant = Variant::kSwa;
    s.window = window;
  } else {
    // A full layer of a hybrid model (whose variant names its heads) or, for a model whose
    // variant is swa, the family its head counts imply.
    s.variant = variant == Variant::kSwa ? grouped_variant_for(q_heads, kv_heads) : variant;
    s.window = 0;
  }
  return s;
}

int ModelConfig::num_sliding() const {
  int n = 0;
  for (LayerKind k : layers) n += k == LayerKind::kSliding ? 1 : 0;
  return n;
}

bool ModelConfig::is_hybrid() const {
  const int n = num_sliding();
  return n > 0 && n < static_cast<int>(layers.size());
}

std::string ModelConfig::pattern_description() const {
  const int sliding = num_sliding();
  const int full = static_cast<int>(layers.size()) - sliding;
  if (sliding == 0) return "all full";
  const std::string w = "(W " + str(window) + ")";
  if (full == 0) return "all sliding " + w;
  const int g = std::gcd(sliding, full);
  return str(sliding / g) + " sliding : " + str(full / g) + " full " + w;
}

void ModelConfig::validate() const {
  check_range("num_layers", num_layers, 1, Limits::kMaxLayers);
  if (static_cast<std::int64_t>(layers.size()) != num_layers)
    throw InputError("layers must list one kind per layer (found " +
                     str(static_cast<std::int64_t>(layers.size())) + " entries for " +
                     str(num_layers) + " layers)");
  check_range("hidden_size", hidden_size, 0, std::int64_t(Limits::kMaxHeads) * Limits::kMaxHeadDim);
  check_range("q_heads", q_heads, 1, Limits::kMaxHeads);
  check_range("kv_heads", kv_heads, 1, Limits::kMaxHeads);
  check_range("head_dim", head_dim, 1, Limits::kMaxHeadDim);
  check_range("value_dim", value_dim, 0, Limits::kMaxHeadDim);
  check_range("max_seq", max_seq, 0, Limits::kMaxSeq);  // 0 = not stated by the config
  if (variant == Variant::kMla) {
    check_range("latent_dim", latent_dim, 1, Limits::kMaxHeadDim);
    check_range("rope_dim", rope_dim, 0, Limits::kMaxHeadDim);
    check_range("qk_nope_dim", qk_nope_dim, 0, Limits::kMaxHeadDim);
    check_range("q_lora_rank", q_lora_rank, 0,
                std::int64_t(Limits::kMaxHeads) * Limits::kMaxHeadDim);
    if (num_sliding() != 0)
      throw InputError("layers: mla layers cannot slide (found " + str(num_sliding()) +
                       " sliding layers)");
  } else {
    if (num_sliding() > 0 && window < 1)
      throw InputError("window must be at least 1 when layers slide (found W " + str(window) + ")");
    if (variant == Variant::kSwa && num_sliding() != num_layers)
      throw InputError("variant swa needs every layer sliding (found " + str(num_sliding()) +
                       " of " + str(num_layers) + ")");
  }
  // Each distinct layer kind once (the shapes of layers of one kind are identical).
  bool seen_full = false, seen_sliding = false;
  for (int i = 0; i < num_layers; ++i) {
    bool& seen =
        layers[static_cast<std::size_t>(i)] == LayerKind::kSliding ? seen_sliding : seen_full;
    if (seen) continue;
    seen = true;
    try {
      layer_shape(i).validate();
    } catch (const InputError& e) {
      throw InputError("layer " + str(i) + ": " + e.what());
    }
  }
}

ModelConfig apply_what_if(const ModelConfig& model, const WhatIf& w) {
  ModelConfig m = model;
  const std::string label(variant_name(w.variant));
  m.display_name = (model.display_name.empty() ? model.name : model.display_name) + " as " + label;
  m.variant = w.variant;
  const auto all = [&m](LayerKind k) {
    m.layers.assign(static_cast<std::size_t>(m.num_layers), k);
  };
  if (w.variant == Variant::kMla) {
    check_range("latent_dim", w.latent_dim, 1, Limits::kMaxHeadDim);
    check_range("rope_dim", w.rope_dim, 0, Limits::kMaxHeadDim);
    if (model.variant != Variant::kMla) {
      // Every head keeps its query/key width D as the no-RoPE part and D as the value width.
      m.qk_nope_dim = model.head_dim;
      m.value_dim = model.value_dim > 0 ? model.value_dim : model.head_dim;
      m.head_dim = model.head_dim + w.rope_dim;
      m.q_lora_rank = 0;
      m.scale = 0.0;
    } else {
      m.head_dim = model.qk_nope_dim + w.rope_dim;
    }
    m.kv_heads = m.q_heads;
    m.latent_dim = w.latent_dim;
    m.rope_dim = w.rope_dim;
    m.window = 0;
    all(LayerKind::kFull);
    m.validate();
    return m;
  }
  if (model.variant == Variant::kMla) {
    // DeepSeek as "the same model with MHA": per-head K and V of width Dv (128), the form in
    // which such models are usually compared with MLA.
    m.head_dim = model.value_dim > 0 ? model.value_dim : model.head_dim;
    m.value_dim = m.head_dim;
    m.kv_heads = model.q_heads;
    m.latent_dim = m.rope_dim = m.qk_nope_dim = m.q_lora_rank = 0;
    m.scale = 0.0;
  }
  switch (w.variant) {
    case Variant::kMha:
      m.kv_heads = m.q_heads;
      break;
    case Variant::kMqa:
      m.kv_heads = 1;
      break;
    case Variant::kGqa:
    case Variant::kSwa:
      if (w.kv_heads != 0) {
        check_range("kv_heads", w.kv_heads, 1, Limits::kMaxHeads);
        if (m.q_heads % w.kv_heads != 0)
          throw InputError("kv_heads must divide q_heads (found Hq " + str(m.q_heads) + ", Hkv " +
                           str(w.kv_heads) + ")");
        m.kv_heads = w.kv_heads;
      }
      break;
    case Variant::kMla:
      break;
  }
  if (w.variant == Variant::kSwa) {
    check_range("window", w.window, 1, Limits::kMaxSeq);
    m.window = w.window;
    all(LayerKind::kSliding);
  } else if (!(w.keep_windows && model.variant != Variant::kMla && model.num_sliding() > 0)) {
    // mha / mqa / gqa: plain full attention in every layer.
    m.window = 0;
    all(LayerKind::kFull);
  } else if (m.num_sliding() == m.num_layers) {
    m.variant = Variant::kSwa;  // every layer still slides: the family's name for that
  }
  m.validate();
  return m;
}

}  // namespace attn
