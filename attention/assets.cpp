#include "attention/assets.h"

namespace attn {

const std::string* embedded_asset(const std::string& path) {
  for (const auto& f : embedded_files())
    if (f.path == path) return &f.text;
  return nullptr;
}

}  // namespace attn
