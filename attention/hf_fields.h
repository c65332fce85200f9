// Internals of the Hugging Face config.json import (attention/hf_import.cpp): the HF class
// defaults that published files rely on, and Fields, the reader that names every field in its
// errors. Not part of attention/'s API.
#pragma once
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "attention/error.h"

namespace attn::hf_detail {

using nlohmann::json;

// The defaults of HF config classes that published files rely on (only the attention fields).
struct ClassDefaults {
  std::map<std::string, std::int64_t> ints;
  std::map<std::string, bool> bools;
};

inline const ClassDefaults* class_defaults(const std::string& model_type) {
  // transformers Gemma3TextConfig.__init__ defaults.
  static const ClassDefaults kGemma3Text{{{"num_hidden_layers", 26},
                                          {"hidden_size", 2304},
                                          {"num_attention_heads", 8},
                                          {"num_key_value_heads", 4},
                                          {"head_dim", 256},
                                          {"max_position_embeddings", 131072},
                                          {"sliding_window", 4096},
                                          {"sliding_window_pattern", 6},
                                          {"query_pre_attn_scalar", 256}},
                                         {}};
  // transformers FalconConfig: max_position_embeddings=2048 (falcon-7b/40b files lack it).
  static const ClassDefaults kFalcon{{{"max_position_embeddings", 2048}}, {}};
  // transformers Qwen2Config / Qwen3Config (and their MoE kin): use_sliding_window=False,
  // max_window_layers=28.
  static const ClassDefaults kQwen{{{"max_window_layers", 28}}, {{"use_sliding_window", false}}};
  if (model_type == "gemma3_text" || model_type == "gemma3") return &kGemma3Text;
  if (model_type == "qwen2" || model_type == "qwen2_moe" || model_type == "qwen3" ||
      model_type == "qwen3_moe")
    return &kQwen;
  if (model_type == "falcon" || model_type == "RefinedWeb" || model_type == "RefinedWebModel")
    return &kFalcon;
  return nullptr;
}

inline std::string describe(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string: {  // quoted and escaped, so an error stays on one line
      std::string s = v.dump(-1, ' ', true, json::error_handler_t::replace);
      if (s.size() > 48) s = s.substr(0, 44) + "...\"";
      return s;
    }
    case json::value_t::number_float: {  // the shortest text that reads back the same
      const double d = v.get<double>();
      for (int precision : {6, 15, 17}) {
        std::ostringstream o;
        o.precision(precision);
        o << d;
        if (precision == 17 || std::stod(o.str()) == d) return o.str();
      }
      return "?";
    }
    default:
      return v.dump();  // integers
  }
}

// Reads the fields of one JSON object (the top level, or text_config) for the language model.
class Fields {
 public:
  Fields(const json& obj, std::string prefix, std::string origin, std::string model_type,
         std::vector<std::string>* notes)
      : obj_(obj),
        prefix_(std::move(prefix)),
        origin_(std::move(origin)),
        model_type_(std::move(model_type)),
        notes_(notes) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(origin_ + ": field '" + prefix_ + key + "': " + what);
  }

  bool has(const std::string& key) const { return obj_.contains(key); }
  // The value of key, nullptr when absent or null.
  const json* find(const std::string& key) const {
    const auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) return nullptr;
    return &*it;
  }
  // The first of the spellings that is present.
  std::optional<std::string> first_present(std::initializer_list<const char*> keys) const {
    for (const char* k : keys)
      if (find(k)) return std::string(k);
    return std::nullopt;
  }

  // An integer in [lo, hi]; absent -> nullopt.
  std::optional<std::int64_t> integer(const std::string& key, std::int64_t lo,
                                      std::int64_t hi) const {
    const json* v = find(key);
    if (!v) return std::nullopt;
    const std::string want = lo == 1   ? "expected a positive integer"
                             : lo == 0 ? "expected a non-negative integer"
                                       : "expected an integer of at least " + std::to_string(lo);
    std::int64_t x = 0;
    if (v->is_number_integer() && !v->is_number_unsigned()) {
      x = v->get<std::int64_t>();
    } else if (v->is_number_unsigned()) {
      const std::uint64_t u = v->get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(hi))
        fail(key, want + " up to " + std::to_string(hi) + ", found " + describe(*v));
      x = static_cast<std::int64_t>(u);
    } else if (v->is_number_float()) {
      const double d = v->get<double>();
      if (!std::isfinite(d) || d != std::floor(d)) fail(key, want + ", found " + describe(*v));
      if (d < static_cast<double>(lo) || d > static_cast<double>(hi))
        fail(key, want + (d > static_cast<double>(hi) ? " up to " + std::to_string(hi) : "") +
                      ", found " + describe(*v));
      x = static_cast<std::int64_t>(d);
    } else {
      fail(key, want + ", found " + describe(*v));
    }
    if (x < lo) fail(key, want + ", found " + describe(*v));
    if (x > hi) fail(key, want + " up to " + std::to_string(hi) + ", found " + describe(*v));
    return x;
  }

  // An integer, taking the HF class default (with a note) when absent.
  std::optional<std::int64_t> integer_or_default(const std::string& key, std::int64_t lo,
                                                 std::int64_t hi) const {
    if (auto v = integer(key, lo, hi)) return v;
    if (const ClassDefaults* d = class_defaults(model_type_)) {
      const auto it = d->ints.find(key);
      if (it != d->ints.end()) {
        if (notes_)
          notes_->push_back(prefix_ + key + " absent: " + model_type_ + "'s default " +
                            std::to_string(it->second) + " used");
        return it->second;
      }
    }
    return std::nullopt;
  }

  std::int64_t required(const std::string& key, std::int64_t lo, std::int64_t hi,
                        const std::string& meaning) const {
    if (auto v = integer_or_default(key, lo, hi)) return *v;
    fail(key, "missing (" + meaning + ")");
  }

  std::optional<bool> boolean(const std::string& key) const {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) fail(key, "expected true or false, found " + describe(*v));
    return v->get<bool>();
  }
  std::optional<bool> boolean_or_default(const std::string& key) const {
    if (auto v = boolean(key)) return v;
    if (const ClassDefaults* d = class_defaults(model_type_)) {
      const auto it = d->bools.find(key);
      if (it != d->bools.end()) {
        if (notes_)
          notes_->push_back(prefix_ + key + " absent: " + model_type_ + "'s default " +
                            (it->second ? "true" : "false") + " used");
        return it->second;
      }
    }
    return std::nullopt;
  }

  std::optional<double> positive_number(const std::string& key) const {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_number() || !(v->get<double>() > 0.0) || !std::isfinite(v->get<double>()))
      fail(key, "expected a positive number, found " + describe(*v));
    return v->get<double>();
  }

  const std::string& prefix() const { return prefix_; }

 private:
  const json& obj_;
  std::string prefix_;
  std::string origin_;
  std::string model_type_;
  std::vector<std::string>* notes_;
};

inline std::string string_field(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return (it != obj.end() && it->is_string()) ? it->get<std::string>() : std::string();
}

inline int to_int(std::int64_t v) { return static_cast<int>(v); }

}  // namespace attn::hf_detail
