// Model presets: assets/presets/<name>.json, embedded at build time. Each file is
//   {"name": "llama-3-8b", "display_name": "Llama-3-8B", "source": "<HF repo> config.json",
//    "config": { ...the published config.json fields... }}
// and goes through the same HF import as a user's file, so a preset cannot hold anything a
// real config.json could not.
#include "attention/presets.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "attention/assets.h"
#include "attention/error.h"
#include "attention/hf_import.h"

namespace attn {
namespace {

// Stable order: the list below (families in the order a tour meets them: MHA, MQA, GQA, SWA,
// hybrids, MLA), then
// any other preset file by name.
const std::vector<std::string>& preferred_order() {
  static const std::vector<std::string> k = {
      "llama-2-7b", "llama-3-8b",  "llama-3.1-70b", "falcon-7b",        "mistral-7b-v0.1",
      "gemma-2-9b", "gemma-3-12b", "gpt-oss-20b",   "deepseek-v2-lite", "deepseek-v3"};
  return k;
}

std::string required_string(const nlohmann::json& j, const char* key, const std::string& origin) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string() || it->get<std::string>().empty())
    throw InputError(origin + ": field '" + key + "': expected a non-empty string");
  return it->get<std::string>();
}

ModelConfig load_preset(const EmbeddedFile& file) {
  const std::string origin = "assets/" + file.path;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(file.text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(origin + ": malformed JSON: " + e.what());
  }
  if (!j.is_object()) throw InputError(origin + ": expected a JSON object");
  const auto cfg = j.find("config");
  if (cfg == j.end() || !cfg->is_object())
    throw InputError(origin + ": field 'config': expected the model's config.json object");
  ModelConfig m = import_hf_config_text(cfg->dump(), origin);
  m.name = required_string(j, "name", origin);
  m.display_name = required_string(j, "display_name", origin);
  m.source = required_string(j, "source", origin);
  return m;
}

std::vector<ModelConfig> load_all() {
  std::vector<ModelConfig> out;
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.path.rfind("presets/", 0) != 0 || f.path.size() < 5 ||
        f.path.compare(f.path.size() - 5, 5, ".json") != 0)
      continue;
    out.push_back(load_preset(f));
  }
  const auto rank = [](const ModelConfig& m) {
    const auto& order = preferred_order();
    return static_cast<std::size_t>(std::find(order.begin(), order.end(), m.name) - order.begin());
  };
  std::stable_sort(out.begin(), out.end(), [&](const ModelConfig& a, const ModelConfig& b) {
    const auto ra = rank(a), rb = rank(b);
    return ra != rb ? ra < rb : a.name < b.name;
  });
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].name == out[i - 1].name)
      throw InputError("two presets are named '" + out[i].name + "'");
  return out;
}

}  // namespace

const std::vector<ModelConfig>& presets() {
  // Built once; a broken preset file is a build defect, reported on first use.
  static const std::vector<ModelConfig> k = load_all();
  return k;
}

const ModelConfig& find_preset(const std::string& name) {
  const auto& all = presets();
  for (const ModelConfig& m : all)
    if (m.name == name) return m;
  std::string known;
  for (const ModelConfig& m : all) known += (known.empty() ? "" : ", ") + m.name;
  throw InputError("unknown preset '" + name + "' (known: " + known + ")");
}

}  // namespace attn
