// Hugging Face config.json import (docs/DESIGN.md section 4).
//
// Rules, each one because real files differ (and public calculators get them wrong):
//   layers / heads / width  num_hidden_layers, num_attention_heads, hidden_size; the GPT-2 /
//                           Falcon-RW spellings n_layer, n_head, n_embd, n_positions and
//                           ChatGLM's num_layers, kv_channels, seq_length are accepted too.
//   head_dim                the explicit head_dim when present (Gemma, Mistral-Nemo, Qwen3 and
//                           gpt-oss differ from hidden/heads), else hidden_size / heads.
//   kv heads                num_key_value_heads (or num_kv_heads / n_head_kv); Falcon: when
//                           new_decoder_architecture is set the kv-head field counts, else
//                           multi_query (FalconConfig's default: true) means one kv head, as in
//                           HF FalconAttention; ChatGLM's multi_query_attention with
//                           multi_query_group_num; absent means MHA.
//   MLA                     kv_lora_rank with qk_rope_head_dim, qk_nope_head_dim, v_head_dim
//                           (q_lora_rank optional); softmax scale 1/sqrt(qk_nope + qk_rope).
//   windows                 sliding_window (or Gemma 2's sliding_window_size) applies only when
//                           the model uses it: use_sliding_window false turns it off; layer_types
//                           names each layer; Qwen2's max_window_layers (layers >= it slide,
//                           with use_sliding_window true); sliding_window_pattern N (layer i is
//                           global when (i + 1) % N == 0, Gemma 3); model_type gemma2 alternates
//                           with layer 0 sliding (HF: not bool(layer_idx % 2)); otherwise the
//                           window applies to every layer (Mistral, Mixtral, Phi-3). null = none.
//                           layer_types may also hold chunked_attention (Llama 4: a window of
//                           attention_chunk_size) and layers with no KV cache at all
//                           (linear_attention, conv, mamba), which are left out with a note.
//   shared KV               Gemma 3n's num_kv_shared_layers: those last layers store nothing.
//   nested text_config      multimodal checkpoints (Gemma 3) keep the language model there
//                           (InternVL's llm_config and language_config likewise).
//   class defaults          a field missing from a published file takes its HF config class
//                           default for the model types whose files rely on that (gemma3_text:
//                           the gemma-3 text_config omits head_dim, the pattern and the scalar;
//                           falcon: no max_position_embeddings), with a note; otherwise a
//                           missing required field is an error naming it.
//   scale                   query_pre_attn_scalar s gives 1/sqrt(s) (Gemma); Granite's
//                           attention_multiplier is the scale itself.
// Errors: "origin: field 'text_config.num_attention_heads': expected a positive integer, found
// -3". Integers may be written 32.0 but not 32.5; booleans must be true/false.
#include "attention/hf_import.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "attention/error.h"
#include "attention/hf_fields.h"

namespace attn {
namespace {

using nlohmann::json;
using namespace hf_detail;

void read_windows(const Fields& f, const std::string& model_type, ModelConfig& m) {
  const std::size_t n = static_cast<std::size_t>(m.num_layers);
  m.layers.assign(n, LayerKind::kFull);
  m.window = 0;
  // Gemma 2's legacy sliding_window_size counts only where sliding_window is not written at
  // all; an explicit "sliding_window": null means no window.
  const std::string w_key = !f.has("sliding_window") && f.has("sliding_window_size")
                                ? "sliding_window_size"
                                : "sliding_window";
  const bool w_null = f.has(w_key) && f.find(w_key) == nullptr;
  const bool w_written = f.find(w_key) != nullptr;
  const std::optional<bool> use_sw =
      w_written ? f.boolean_or_default("use_sliding_window") : f.boolean("use_sliding_window");
  const json* types = f.find("layer_types");
  // The window, when the model has one (an HF class default where the file relies on it).
  const auto window = [&]() -> std::optional<std::int64_t> {
    if (w_null) return std::nullopt;
    return f.integer_or_default(w_key, 1, Limits::kMaxSeq);
  };

  const bool sw_off = use_sw.has_value() && !*use_sw;
  if (types) {
    // One entry per layer. Layers without a KV cache (linear attention, convolution, Mamba:
    // a fixed-size state) are left out of the model; chunked attention (Llama 4) keeps at most
    // attention_chunk_size tokens, counted as a window of that size.
    if (!types->is_array())
      f.fail("layer_types",
             "expected an array of \"full_attention\" / \"sliding_attention\", found " +
                 describe(*types));
    if (types->size() != n)
      f.fail("layer_types", "expected " + std::to_string(n) +
                                " entries (num_hidden_layers), found " +
                                std::to_string(types->size()));
    std::vector<LayerKind> kinds;
    int stateful = 0, chunked = 0, sliding = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const json& t = (*types)[i];
      const std::string s = t.is_string() ? t.get<std::string>() : std::string();
      if (s == "full_attention") {
        kinds.push_back(LayerKind::kFull);
      } else if (s == "sliding_attention") {
        kinds.push_back(LayerKind::kSliding);
        ++sliding;
      } else if (s == "chunked_attention") {
        kinds.push_back(LayerKind::kSliding);
        ++chunked;
      } else if (s == "linear_attention" || s == "conv" || s == "mamba") {
        ++stateful;
      } else {
        f.fail("layer_types[" + std::to_string(i) + "]",
               "expected \"full_attention\", \"sliding_attention\", \"chunked_attention\" or a "
               "layer without KV cache (\"linear_attention\", \"conv\", \"mamba\"), found " +
                   describe(t));
      }
    }
    if (kinds.empty())
      f.fail("layer_types",
             "no attention layer (every layer keeps a fixed-size state, no KV cache)");
    if (stateful > 0) {
      m.notes.push_back(f.prefix() + "layer_types: " + std::to_string(stateful) +
                        " layers keep a fixed-size state instead of a KV cache and are not "
                        "counted; the model here has its " +
                        std::to_string(kinds.size()) + " attention layers");
      m.num_layers = static_cast<int>(kinds.size());
    }
    m.layers = kinds;
    const auto all_full = [&m](const std::string& why) {
      m.notes.push_back(why);
      m.layers.assign(m.layers.size(), LayerKind::kFull);
    };
    if (sliding + chunked == 0) return;
    if (m.variant == Variant::kMla)
      return all_full(f.prefix() + "layer_types: MLA layers attend in full");
    std::optional<std::int64_t> w;
    if (sliding > 0) {
      if (sw_off)
        return all_full(f.prefix() +
                        "layer_types' sliding layers attend in full: use_sliding_window is false");
      w = window();
      if (!w) {
        if (!w_null) f.fail("sliding_window", "missing, but layer_types marks sliding layers");
        return all_full(f.prefix() +
                        "layer_types marks sliding layers but sliding_window is null: "
                        "every layer attends in full");
      }
    }
    if (chunked > 0) {
      const auto c = f.integer("attention_chunk_size", 1, Limits::kMaxSeq);
      if (!c) f.fail("attention_chunk_size", "missing, but layer_types marks chunked layers");
      if (w && *w != *c)
        f.fail("attention_chunk_size", "differs from sliding_window (found " + std::to_string(*c) +
                                           " and " + std::to_string(*w) +
                                           "): one window per model");
      m.notes.push_back(f.prefix() +
                        "layer_types: chunked_attention layers counted as a window of "
                        "attention_chunk_size " +
                        std::to_string(*c) + " tokens (their cache bound)");
      w = c;
    }
    m.window = to_int(*w);
    return;
  }
  if (m.variant == Variant::kMla) {
    if (w_written) m.notes.push_back(f.prefix() + w_key + " ignored: MLA layers attend in full");
    return;
  }
  if (sw_off) {
    if (w_written) m.notes.push_back(f.prefix() + w_key + " ignored: use_sliding_window is false");
    return;
  }
  const auto w = window();
  if (!w) return;  // no window: every layer full

  const auto mwl = use_sw.value_or(false)
                       ? f.integer_or_default("max_window_layers", 0, Limits::kMaxLayers)
                       : std::nullopt;
  const auto pattern_key = f.first_present({"sliding_window_pattern", "_sliding_window_pattern"});
  if (use_sw.value_or(false) && mwl) {
    // Qwen2 family: layers from max_window_layers on slide.
    for (std::size_t i = 0; i < n; ++i)
      if (static_cast<std::int64_t>(i) >= *mwl) m.layers[i] = LayerKind::kSliding;
  } else if (pattern_key || model_type == "gemma3_text" || model_type == "gemma3") {
    const std::int64_t every =
        pattern_key ? *f.integer(*pattern_key, 1, Limits::kMaxLayers)
                    : *f.integer_or_default("sliding_window_pattern", 1, Limits::kMaxLayers);
    for (std::size_t i = 0; i < n; ++i)
      if ((static_cast<std::int64_t>(i) + 1) % every != 0) m.layers[i] = LayerKind::kSliding;
  } else if (model_type == "gemma2") {
    for (std::size_t i = 0; i < n; i += 2) m.layers[i] = LayerKind::kSliding;
  } else {
    m.layers.assign(n, LayerKind::kSliding);  // Mistral, Mixtral, Phi-3: every layer
  }
  if (m.num_sliding() > 0) m.window = to_int(*w);
}

// Widest hidden size the limits allow (heads x head dim).
constexpr std::int64_t kMaxHidden = std::int64_t(Limits::kMaxHeads) * Limits::kMaxHeadDim;

// The object that describes the language model: the top level, or a multimodal checkpoint's
// text_config (Gemma 3, LLaVA, Mistral 3), or, where the top level has no layers of its own,
// llm_config (InternVL) / language_config. `prefix` names it in messages ("text_config.").
const json& language_model(const json& top, const std::string& origin, std::string* prefix) {
  const bool top_has_layers =
      top.contains("num_hidden_layers") || top.contains("n_layer") || top.contains("num_layers");
  for (const char* key : {"text_config", "llm_config", "language_config"}) {
    const auto it = top.find(key);
    if (it == top.end() || it->is_null()) continue;
    if (std::string(key) != "text_config" && top_has_layers) continue;
    if (!it->is_object())
      throw InputError(origin + ": field '" + key + "': expected an object, found " +
                       describe(*it));
    *prefix = std::string(key) + ".";
    return *it;
  }
  return top;
}

// MLA (DeepSeek V2 / V3 and kin): one latent of kv_lora_rank + qk_rope_head_dim per token.
void read_mla(const Fields& f, const std::string& prefix, ModelConfig& m) {
  m.variant = Variant::kMla;
  m.latent_dim = to_int(*f.integer("kv_lora_rank", 1, Limits::kMaxHeadDim));
  m.rope_dim =
      to_int(f.required("qk_rope_head_dim", 0, Limits::kMaxHeadDim, "MLA's decoupled RoPE width"));
  m.qk_nope_dim = to_int(f.required("qk_nope_head_dim", 0, Limits::kMaxHeadDim,
                                    "MLA's per-head key width without RoPE"));
  m.value_dim =
      to_int(f.required("v_head_dim", 1, Limits::kMaxHeadDim, "MLA's per-head value width"));
  m.q_lora_rank = to_int(f.integer("q_lora_rank", 0, kMaxHidden).value_or(0));
  if (m.qk_nope_dim + m.rope_dim < 1 || m.qk_nope_dim + m.rope_dim > Limits::kMaxHeadDim)
    f.fail("qk_nope_head_dim", "qk_nope_head_dim + qk_rope_head_dim must be between 1 and " +
                                   std::to_string(Limits::kMaxHeadDim));
  m.head_dim = m.qk_nope_dim + m.rope_dim;
  m.kv_heads = m.q_heads;  // the latent is expanded to every head
  m.scale = default_scale(m.head_dim);
  const json* rs = f.find("rope_scaling");
  if (!rs) rs = f.find("rope_parameters");  // transformers 5 spelling
  if (rs && rs->is_object()) {
    // DeepSeek's YaRN also multiplies the softmax scale by mscale^2 (HF DeepseekV3Attention);
    // docs/DESIGN.md fixes the scale at 1/sqrt(qk_nope + qk_rope), so say what is left out.
    const auto fa = rs->find("factor"), ms = rs->find("mscale_all_dim");
    if (fa != rs->end() && ms != rs->end() && fa->is_number() && ms->is_number() &&
        fa->get<double>() > 1.0 && ms->get<double>() > 0.0) {
      const double mscale = 0.1 * ms->get<double>() * std::log(fa->get<double>()) + 1.0;
      std::ostringstream o;
      o.precision(4);
      o << prefix
        << "rope scaling: YaRN would multiply the softmax scale by mscale^2 = " << mscale * mscale
        << "; the scale used is 1/sqrt(qk_nope_head_dim + qk_rope_head_dim)";
      m.notes.push_back(o.str());
    }
  }
}

// The grouped family (MHA / MQA / GQA): kv heads, head_dim and the softmax scale.
void read_grouped(const Fields& f, const std::string& model_type, const std::string& prefix,
                  const std::string& heads_key, const std::string& hidden_key,
                  std::optional<std::int64_t> hidden, ModelConfig& m) {
  // kv heads: Falcon's rule first (new_decoder_architecture / multi_query), then the field.
  const bool new_arch = f.boolean("new_decoder_architecture").value_or(model_type == "RefinedWeb");
  const bool multi_query = f.boolean("multi_query").value_or(model_type == "falcon");
  std::optional<std::string> kv_key =
      f.first_present({"num_key_value_heads", "num_kv_heads", "n_head_kv"});
  std::optional<std::int64_t> kv;
  if (kv_key)
    kv = f.integer(*kv_key, 1, Limits::kMaxHeads);
  else
    kv = f.integer_or_default("num_key_value_heads", 1, Limits::kMaxHeads);
  if (f.boolean("multi_query_attention").value_or(false)) {
    // ChatGLM: multi_query_attention with multi_query_group_num kv heads.
    if (const auto g = f.integer("multi_query_group_num", 1, Limits::kMaxHeads)) {
      kv = g;
      kv_key = "multi_query_group_num";
    }
  }
  if (!new_arch && multi_query) {
    if (kv && *kv != 1 && kv_key)
      m.notes.push_back(prefix + *kv_key + " ignored: multi_query means one kv head");
    kv = 1;
  }
  m.kv_heads = to_int(kv.value_or(m.q_heads));  // absent: MHA
  if (m.q_heads % m.kv_heads != 0)
    f.fail(kv_key.value_or("num_key_value_heads"), "must divide " + heads_key + " (found Hq " +
                                                       std::to_string(m.q_heads) + ", Hkv " +
                                                       std::to_string(m.kv_heads) + ")");

  const std::string hd_key =
      !f.find("head_dim") && f.find("kv_channels") ? "kv_channels" : "head_dim";
  if (const auto hd = f.integer_or_default(hd_key, 1, Limits::kMaxHeadDim)) {
    m.head_dim = to_int(*hd);
  } else {
    if (!hidden) f.fail(hidden_key, "missing (needed for head_dim = hidden_size / heads)");
    if (*hidden % m.q_heads != 0)
      f.fail(hidden_key, std::to_string(*hidden) + " is not divisible by " + heads_key + " " +
                             std::to_string(m.q_heads) + " and head_dim is absent");
    const std::int64_t d = *hidden / m.q_heads;
    if (d > Limits::kMaxHeadDim)
      f.fail(hidden_key, "gives head_dim " + std::to_string(d) + ", more than " +
                             std::to_string(Limits::kMaxHeadDim));
    m.head_dim = to_int(d);
  }
  m.value_dim = m.head_dim;
  m.variant = m.kv_heads == m.q_heads ? Variant::kMha
              : m.kv_heads == 1       ? Variant::kMqa
                                      : Variant::kGqa;
  if (const auto s = f.positive_number("query_pre_attn_scalar")) {
    m.scale = 1.0 / std::sqrt(*s);
  } else if (model_type == "gemma3_text" || model_type == "gemma3") {
    m.scale = 1.0 / std::sqrt(static_cast<double>(
                        *f.integer_or_default("query_pre_attn_scalar", 1, kMaxHidden)));
  } else if (const auto a = f.positive_number("attention_multiplier")) {
    m.scale = *a;  // Granite: the softmax scale itself
  }
}

// Gemma 3n: the last num_kv_shared_layers layers reuse the caches of earlier layers and store
// nothing of their own.
void read_shared_layers(const Fields& f, const std::string& prefix, ModelConfig& m) {
  if (const auto shared = f.integer("num_kv_shared_layers", 0, Limits::kMaxLayers);
      shared && *shared > 0) {
    if (*shared >= m.num_layers)
      f.fail("num_kv_shared_layers", "must be less than the number of attention layers (found " +
                                         std::to_string(*shared) + " of " +
                                         std::to_string(m.num_layers) + ")");
    m.num_layers -= to_int(*shared);
    m.layers.resize(static_cast<std::size_t>(m.num_layers));
    if (m.num_sliding() == 0) m.window = 0;
    m.notes.push_back(prefix + "num_kv_shared_layers: the last " + std::to_string(*shared) +
                      " layers reuse earlier layers' KV caches and are not counted");
  }
}

}  // namespace

ModelConfig import_hf_config_text(const std::string& text, const std::string& origin) {
  if (static_cast<std::int64_t>(text.size()) > Limits::kMaxConfigBytes)
    throw InputError(origin + ": config is " + std::to_string(text.size()) +
                     " bytes, more than the limit of " + std::to_string(Limits::kMaxConfigBytes));
  json top;
  try {
    top = json::parse(text);
  } catch (const json::exception& e) {
    throw InputError(origin + ": malformed JSON: " + e.what());
  }
  if (!top.is_object())
    throw InputError(origin + ": expected a JSON object at the top level, found " + describe(top));

  ModelConfig m;
  m.name = origin;
  m.source = origin;
  std::string prefix;
  const json* cfg = &language_model(top, origin, &prefix);
  std::string model_type = string_field(*cfg, "model_type");
  if (model_type.empty()) model_type = string_field(top, "model_type");
  m.model_type = model_type;
  m.display_name = string_field(top, "_name_or_path");
  if (m.display_name.empty() && top.contains("architectures") && top["architectures"].is_array() &&
      !top["architectures"].empty() && top["architectures"][0].is_string())
    m.display_name = top["architectures"][0].get<std::string>();
  if (m.display_name.empty()) m.display_name = model_type.empty() ? origin : model_type;

  const Fields f(*cfg, prefix, origin, model_type, &m.notes);

  const std::string layers_key =
      f.first_present({"num_hidden_layers", "n_layer", "num_layers"}).value_or("num_hidden_layers");
  m.num_layers = to_int(f.required(layers_key, 1, Limits::kMaxLayers, "the number of layers"));
  const std::string heads_key =
      f.first_present({"num_attention_heads", "n_head"}).value_or("num_attention_heads");
  m.q_heads = to_int(f.required(heads_key, 1, Limits::kMaxHeads, "the number of query heads"));
  const std::string hidden_key = f.first_present({"hidden_size", "n_embd"}).value_or("hidden_size");
  const auto hidden = f.integer_or_default(hidden_key, 1, kMaxHidden);
  m.hidden_size = hidden ? to_int(*hidden) : 0;

  const std::string seq_key =
      f.first_present({"max_position_embeddings", "n_positions", "seq_length"})
          .value_or("max_position_embeddings");
  // Some published files state no context at all; the model is still usable with an explicit
  // S (max_seq 0 = unknown; `kv` then asks for --seq). A present but bad value is an error.
  const auto max_seq = f.integer_or_default(seq_key, 1, Limits::kMaxSeq);
  m.max_seq = max_seq ? *max_seq : 0;
  if (!max_seq) m.notes.push_back(seq_key + " absent: the maximum context is unknown");

  if (f.find("kv_lora_rank"))
    read_mla(f, prefix, m);
  else
    read_grouped(f, model_type, prefix, heads_key, hidden_key, hidden, m);

  read_windows(f, model_type, m);
  if (m.num_sliding() > 0 && m.window >= m.max_seq) {
    // Phi-3.5-mini: sliding_window 262144 over a 131072 context. HF applies it, so the layers
    // stay sliding; say that it only binds past the model's context.
    m.notes.push_back(prefix + "sliding_window " + std::to_string(m.window) +
                      " is not below max_position_embeddings " + std::to_string(m.max_seq) +
                      ": it binds only for sequences longer than the model's context");
  }
  read_shared_layers(f, prefix, m);
  if (m.variant != Variant::kMla && m.num_layers > 0 && m.num_sliding() == m.num_layers)
    m.variant = Variant::kSwa;

  try {
    m.validate();
  } catch (const InputError& e) {
    throw InputError(origin + ": " + e.what());
  }
  return m;
}

ModelConfig import_hf_config_file(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p(path);
  const auto status = std::filesystem::status(p, ec);
  if (!std::filesystem::exists(status))
    throw InputError(path + ": cannot read the config: " +
                     (ec && ec != std::errc::no_such_file_or_directory
                          ? ec.message()
                          : std::string("no such file")));
  if (!std::filesystem::is_regular_file(status))
    throw InputError(path + ": cannot read the config: not a regular file");
  const auto size = std::filesystem::file_size(p, ec);
  if (ec) throw InputError(path + ": cannot read the config: " + ec.message());
  if (size > static_cast<std::uintmax_t>(Limits::kMaxConfigBytes))
    throw InputError(path + ": config is " + std::to_string(size) +
                     " bytes, more than the limit of " + std::to_string(Limits::kMaxConfigBytes));
  std::ifstream in(p, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the config for reading");
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (in.gcount() != static_cast<std::streamsize>(size))
    throw InputError(path + ": cannot read the config: short read");
  return import_hf_config_text(text, path);
}

}  // namespace attn
