// View state of the kv-cache panel (app/panel_kv_cache.cpp), kept in App. The curves and the
// per-variant table are computed only when their inputs change (the key below).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "attention/dtype.h"
#include "attention/kv_cache.h"
#include "visuals/plot.h"

namespace app {

// One row of the variants-side-by-side table: the chosen model converted to one variant.
struct KvVariantRow {
  std::string label;                   // "MHA", "GQA (G 4)", "MLA (Dl 512, Dr 64)", "model: ..."
  int variant = 0;                     // attn::Variant as int (colour)
  bool is_model = false;               // the model as shown (not a what-if of it)
  std::string error;                   // why this variant does not fit the model (empty: ok)
  std::uint64_t bytes_per_token = 0;   // all layers, one token, one sequence
  std::uint64_t total_bytes = 0;       // at App::seq and App::batch
  std::uint64_t per_device_bytes = 0;  // under App::tp
  std::vector<double> curve_seq, curve_bytes;  // per-device bytes vs S (log-spaced S)
};

struct KvCacheKey {
  std::uint64_t revision = ~std::uint64_t(0);
  attn::DType dtype = attn::DType::kBf16;
  int tp = 1;
  std::int64_t batch = 1, seq = 1;
  std::string gpu;
  float ui_scale = 1;
  bool operator==(const KvCacheKey& o) const {
    return revision == o.revision && dtype == o.dtype && tp == o.tp && batch == o.batch &&
           seq == o.seq && gpu == o.gpu && ui_scale == o.ui_scale;
  }
};

struct KvCacheViewState {
  KvCacheKey key;                  // inputs of the cached data below
  std::string error;               // kv_cache() failed for the model itself
  attn::KvReport report;           // the model at App::seq / batch / dtype / tp
  std::vector<KvVariantRow> rows;  // the model first, then MHA, MQA, GQA, MLA, SWA
  vis::PlotSpec plot;              // per-device bytes vs S, the GPU memory as a line
  double gpu_memory_bytes = 0;     // 0: unknown
  std::string gpu_memory_source;   // "H200 (assets/gpus.json)" / "this machine's GPU"
  int recomputes = 0;              // how often the cache was rebuilt (tests check it is rare)
};

}  // namespace app
