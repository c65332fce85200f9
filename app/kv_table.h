// The KV-cache numbers the kv-cache panel shows and the Export menu writes: the model's own
// report, the same model as every variant (what-if), and the curves of per-device bytes against
// sequence length. No ImGui here: the panel draws these, tests check them.
#pragma once
#include <string>
#include <vector>

#include "app/app_state.h"

namespace app {

// The GQA what-if used for the side-by-side rows: the what-if kv heads when set, else the
// model's own when it is GQA, else the largest divisor of Hq that is <= 8 and < Hq (1 if none).
int side_by_side_gqa_kv_heads(const App& app);

// The sequence lengths of the curves: powers of two and their sqrt(2) midpoints from 256 to
// max(1M, the model's context rounded up to a power of two), plus the window W when it lies
// inside (so the sliding knee is drawn sharp). Sorted, unique.
std::vector<double> curve_seq_points(const attn::ModelConfig& model, int extra_window);

// Rows: the model as shown first, then MHA, MQA, GQA, MLA and SWA of the base model. A variant
// that does not fit (apply_what_if throws) has its error set and no numbers.
std::vector<KvVariantRow> kv_variant_rows(const App& app);

// Exports of the model's KV table at App::seq, batch, dtype and tp.
// CSV: header "layer,kind,window,bytes,per_device_bytes" and one row per layer.
// JSON: {model, dtype, seq, batch, tp, bytes_per_token, total_bytes, per_device_bytes,
//        layers: [{layer, kind, window, bytes, per_device_bytes}],
//        variants: [{label, variant, bytes_per_token, total_bytes, per_device_bytes, error}]}
// Throw attn::InputError when the model's cache cannot be computed.
std::string kv_table_csv(const App& app);
std::string kv_table_json(const App& app);

}  // namespace app
