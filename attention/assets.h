// Assets embedded at build time (assets/presets/*.json, assets/gpus.json, assets/results/*.json)
// so the program never depends on where it is started from.
#pragma once
#include <string>
#include <vector>

namespace attn {

struct EmbeddedFile {
  std::string path;  // relative to assets/, e.g. "presets/llama-3-8b.json"
  std::string text;
};

const std::vector<EmbeddedFile>& embedded_files();
// Text of one embedded asset, or nullptr.
const std::string* embedded_asset(const std::string& path);

}  // namespace attn
