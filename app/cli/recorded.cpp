#include "app/cli/recorded.h"

#include <exception>

#include "attention/assets.h"

namespace app {

std::string RecordedResult::provenance() const {
  return "recorded on " + gpu + ", " + date.substr(0, 10) + ", commit " + commit.substr(0, 7);
}

const std::vector<RecordedResult>& recorded_gpu_results() {
  static const std::vector<RecordedResult> k = [] {
    std::vector<RecordedResult> v;
    for (const attn::EmbeddedFile& f : attn::embedded_files()) {
      if (f.path.rfind("results/", 0) != 0) continue;
      try {
        const kern::BenchReport r = kern::parse_bench_report(f.text, "assets/" + f.path);
        for (const kern::BenchResult& x : r.results) {
          if (x.device != "gpu" || !x.error.empty() || !x.checked || !(x.median_us > 0)) continue;
          v.push_back({x, r.device.name, r.date, r.commit, f.path});
        }
      } catch (const std::exception&) {
      }
    }
    return v;
  }();
  return k;
}

std::optional<RecordedResult> find_recorded_gpu(const attn::LayerShape& layer, std::int64_t batch,
                                                std::int64_t seq, attn::DType dt) {
  std::optional<RecordedResult> best;
  const bool mla = layer.variant == attn::Variant::kMla;
  for (const RecordedResult& r : recorded_gpu_results()) {
    const kern::BenchCase& c = r.result.c;
    const attn::LayerShape s = c.layer_shape();
    if ((s.variant == attn::Variant::kMla) != mla || c.batch != batch || c.seq != seq ||
        c.dtype != dt || s.q_heads != layer.q_heads || s.kv_heads != layer.kv_heads ||
        s.head_dim != layer.head_dim || s.window != layer.window ||
        s.latent_dim != layer.latent_dim || s.rope_dim != layer.rope_dim)
      continue;
    if (!best || r.date > best->date) best = r;
  }
  return best;
}

}  // namespace app
