// The roofline model of a GPU from its datasheet (assets/gpus.json) and the projected time of one
// decode step on it. Everything here is a PROJECTION: time = max(bytes / HBM bandwidth,
// FLOPs / matrix rate), with peak datasheet figures, no launch overhead, no cache effects.
// The explorer labels it "projected (roofline)" wherever it is shown, and never mixes it with
// a measurement.
//
// Units: bandwidth in bytes/s, rates in FLOP/s, intensity in FLOP/byte, times in seconds
// (the JSON holds TB/s and TFLOP/s as datasheets print them).
#pragma once
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/cost.h"
#include "attention/dtype.h"

namespace attn {

struct GpuSpec {
  std::string name;         // short key, e.g. "MI355X" (App::gpu_name, --gpu)
  std::string full_name;    // "AMD Instinct MI355X"
  std::string vendor;       // "nvidia" / "amd"
  std::string memory_type;  // "HBM3e", empty if not given
  double memory_gb = 0;     // capacity as the vendor prints it (GB = 1e9 bytes)
  double hbm_tbps = 0;      // peak memory bandwidth, TB/s
  double bf16_tflops = 0;   // dense matrix (tensor / matrix core) rates, no sparsity
  double fp16_tflops = 0;
  double fp8_tflops = 0;
  double fp32_tflops = 0;  // FP32 (vector) rate
  double l2_mb = 0;        // 0 = not published / unverified
  double llc_mb = 0;       // last-level cache past L2 (AMD Infinity Cache), 0 = none
  int compute_units = 0;   // SMs (NVIDIA) or CUs (AMD), 0 = not published
  std::string source;      // the datasheet(s) the numbers come from

  double bandwidth_bytes_per_s() const { return hbm_tbps * 1e12; }
  double memory_bytes() const { return memory_gb * 1e9; }
  // Matrix rate (FLOP/s) a decode kernel with this KV storage dtype runs its products at:
  // fp32 -> the FP32 rate, fp16 -> FP16; bf16, fp8 and mxfp4 -> BF16, because the kernels keep
  // queries in bf16 and widen the cache to bf16 before the matrix instruction. 0 if unknown.
  double matrix_flops_per_s(DType kv_dt) const;
  // Intensity where the two roofs meet: matrix rate / bandwidth (FLOP/byte).
  double ridge_intensity(DType kv_dt) const;
};

// Parses a gpus.json text ({"gpus": [{name, vendor, hbm_tbps, ...}]}). Throws InputError naming
// the origin, the entry and the field (missing name or bandwidth, wrong type, negative value).
std::vector<GpuSpec> parse_gpu_specs(const std::string& text, const std::string& origin);
// The embedded assets/gpus.json, parsed once (empty when the build has none).
const std::vector<GpuSpec>& gpu_specs();
// By short name (case-insensitive), or nullptr.
const GpuSpec* find_gpu(const std::string& name);

// The roof: min(peak matrix rate, intensity * bandwidth), in FLOP/s.
double attainable_flops(const GpuSpec& gpu, DType kv_dt, double intensity);

struct RooflineProjection {
  double bytes = 0;  // moved by the step (cost.total_bytes())
  double flops = 0;
  double intensity = 0;  // FLOP/byte
  double memory_s = 0;   // bytes / bandwidth
  double compute_s = 0;  // flops / matrix rate (0 when the rate is unknown)
  double time_s = 0;     // max of the two: the projected floor of the step
  bool compute_bound = false;
};

// Projection of one decode step whose cost is `cost`.
RooflineProjection project(const DecodeCost& cost, const GpuSpec& gpu, DType kv_dt);
// Projection of one decode step of one layer (attn::decode_cost for the shapes).
RooflineProjection project_decode(const LayerShape& layer, std::int64_t batch, std::int64_t seq,
                                  DType kv_dt, const GpuSpec& gpu,
                                  MlaForm form = MlaForm::kAbsorbed,
                                  const ModelConfig* model_mla = nullptr);

// Heads per kv head (MLA: H, the query heads sharing the one latent) at which a decode step
// stops being memory-bound on `gpu`: the group size G where FLOPs / bytes reaches the ridge.
// Uses the per-token cost of a long sequence (query and output bytes vanish): 2 * G * (D + Dv)
// FLOPs (QK^T and PV, 2 FLOPs per multiply-add) against the cache bytes of one token of one kv
// head, (D + Dv) * bytes(DT), or D * bytes(DT) when K and V share one row (MLA: pass
// head_dim = Dl + Dr, value_dim = Dl, shared_kv_row = true). 0 when the rate is unknown.
double compute_bound_group_size(const GpuSpec& gpu, DType kv_dt, int head_dim, int value_dim,
                                bool shared_kv_row);

}  // namespace attn
