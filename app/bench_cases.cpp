#include "app/bench_cases.h"

#include <algorithm>
#include <cctype>

namespace app {

attn::DType storage_dtype(const kern::BenchResult& r) {
  return r.device == "cpu" ? attn::DType::kFp32 : r.c.dtype;
}

attn::DecodeCost case_cost(const kern::BenchCase& c, attn::DType dt) {
  return attn::decode_cost(c.layer_shape(), c.batch, c.seq, dt);
}

double projected_us(const kern::BenchCase& c, const attn::GpuSpec& gpu) {
  return attn::project(case_cost(c, c.dtype), gpu, c.dtype).time_s * 1e6;
}

const attn::GpuSpec* gpu_spec_for_device(const std::string& device_name) {
  auto lower = [](std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  const std::string dev = lower(device_name);
  const attn::GpuSpec* best = nullptr;
  for (const attn::GpuSpec& g : attn::gpu_specs()) {
    const std::string n = lower(g.name);
    // The longest matching name wins ("MI325X" over a hypothetical "MI3").
    if (dev.find(n) != std::string::npos && (!best || n.size() > best->name.size())) best = &g;
  }
  return best;
}

std::string shape_key(const kern::BenchCase& c) {
  const attn::LayerShape l = c.layer_shape();
  return std::string(attn::variant_name(c.variant)) + "/" + std::to_string(c.batch) + "/" +
         std::to_string(c.seq) + "/" + std::to_string(l.q_heads) + "/" +
         std::to_string(l.kv_heads) + "/" + std::to_string(l.head_dim) + "/" +
         std::to_string(l.window) + "/" + std::to_string(l.latent_dim) + "/" +
         std::to_string(l.rope_dim);
}

}  // namespace app
