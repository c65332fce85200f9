#include "attention/roofline.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "attention/assets.h"
#include "attention/error.h"

namespace attn {

double GpuSpec::matrix_flops_per_s(DType kv_dt) const {
  switch (kv_dt) {
    case DType::kFp32:
      return fp32_tflops * 1e12;
    case DType::kFp16:
      return fp16_tflops * 1e12;
    case DType::kBf16:
    case DType::kFp8:
    case DType::kMxfp4:
      return bf16_tflops * 1e12;
  }
  return 0;
}

double GpuSpec::ridge_intensity(DType kv_dt) const {
  const double bw = bandwidth_bytes_per_s();
  return bw > 0 ? matrix_flops_per_s(kv_dt) / bw : 0;
}

namespace {

using nlohmann::json;

std::string where(const std::string& origin, std::size_t i, const std::string& name) {
  std::string s = origin + ": gpus[" + std::to_string(i) + "]";
  if (!name.empty()) s += " (" + name + ")";
  return s;
}

// Optional non-negative number; `required` makes absence an error.
double number_field(const json& e, const char* field, const std::string& at, bool required) {
  if (!e.contains(field)) {
    if (required) throw InputError(at + ": missing field '" + field + "' (a number)");
    return 0;
  }
  const json& v = e.at(field);
  if (!v.is_number())
    throw InputError(at + ": field '" + field + "' must be a number, found " + v.type_name());
  const double x = v.get<double>();
  if (!(x >= 0) || x > 1e9)
    throw InputError(at + ": field '" + field + "' must be between 0 and 1e9, found " + v.dump());
  return x;
}

std::string string_field(const json& e, const char* field, const std::string& at, bool required) {
  if (!e.contains(field)) {
    if (required) throw InputError(at + ": missing field '" + field + "' (a string)");
    return {};
  }
  const json& v = e.at(field);
  if (!v.is_string())
    throw InputError(at + ": field '" + field + "' must be a string, found " + v.type_name());
  return v.get<std::string>();
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::vector<GpuSpec> parse_gpu_specs(const std::string& text, const std::string& origin) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(origin + ": not valid JSON (" + e.what() + ")");
  }
  if (!doc.is_object() || !doc.contains("gpus") || !doc.at("gpus").is_array())
    throw InputError(origin + ": expected an object with a 'gpus' array");
  std::vector<GpuSpec> out;
  const json& arr = doc.at("gpus");
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const json& e = arr[i];
    if (!e.is_object())
      throw InputError(where(origin, i, "") + ": expected an object, found " + e.type_name());
    GpuSpec g;
    g.name = string_field(e, "name", where(origin, i, ""), true);
    if (g.name.empty()) throw InputError(where(origin, i, "") + ": field 'name' is empty");
    const std::string at = where(origin, i, g.name);
    g.full_name = string_field(e, "full_name", at, false);
    if (g.full_name.empty()) g.full_name = g.name;
    g.vendor = string_field(e, "vendor", at, false);
    g.memory_type = string_field(e, "memory_type", at, false);
    g.source = string_field(e, "source", at, true);
    g.memory_gb = number_field(e, "memory_gb", at, true);
    g.hbm_tbps = number_field(e, "hbm_tbps", at, true);
    if (g.hbm_tbps <= 0) throw InputError(at + ": field 'hbm_tbps' must be > 0");
    g.bf16_tflops = number_field(e, "bf16_tflops", at, true);
    g.fp16_tflops = number_field(e, "fp16_tflops", at, false);
    g.fp8_tflops = number_field(e, "fp8_tflops", at, false);
    g.fp32_tflops = number_field(e, "fp32_tflops", at, false);
    g.l2_mb = number_field(e, "l2_mb", at, false);
    g.llc_mb = number_field(e, "llc_mb", at, false);
    g.compute_units = static_cast<int>(number_field(e, "compute_units", at, false));
    for (const GpuSpec& prev : out)
      if (lower(prev.name) == lower(g.name))
        throw InputError(at + ": duplicate name '" + g.name + "'");
    out.push_back(std::move(g));
  }
  return out;
}

const std::vector<GpuSpec>& gpu_specs() {
  static const std::vector<GpuSpec> k = [] {
    const std::string* text = embedded_asset("gpus.json");
    return text ? parse_gpu_specs(*text, "assets/gpus.json") : std::vector<GpuSpec>{};
  }();
  return k;
}

const GpuSpec* find_gpu(const std::string& name) {
  const std::string want = lower(name);
  for (const GpuSpec& g : gpu_specs())
    if (lower(g.name) == want) return &g;
  return nullptr;
}

double attainable_flops(const GpuSpec& gpu, DType kv_dt, double intensity) {
  const double roof = gpu.matrix_flops_per_s(kv_dt);
  const double slope = std::max(0.0, intensity) * gpu.bandwidth_bytes_per_s();
  return roof > 0 ? std::min(roof, slope) : slope;
}

RooflineProjection project(const DecodeCost& cost, const GpuSpec& gpu, DType kv_dt) {
  RooflineProjection p;
  p.bytes = cost.total_bytes();
  p.flops = cost.flops;
  p.intensity = cost.intensity();
  const double bw = gpu.bandwidth_bytes_per_s();
  const double rate = gpu.matrix_flops_per_s(kv_dt);
  p.memory_s = bw > 0 ? p.bytes / bw : 0;
  p.compute_s = rate > 0 ? p.flops / rate : 0;
  p.compute_bound = p.compute_s > p.memory_s;
  p.time_s = std::max(p.memory_s, p.compute_s);
  return p;
}

RooflineProjection project_decode(const LayerShape& layer, std::int64_t batch, std::int64_t seq,
                                  DType kv_dt, const GpuSpec& gpu, MlaForm form,
                                  const ModelConfig* model_mla) {
  return project(decode_cost(layer, batch, seq, kv_dt, form, model_mla), gpu, kv_dt);
}

double compute_bound_group_size(const GpuSpec& gpu, DType kv_dt, int head_dim, int value_dim,
                                bool shared_kv_row) {
  const double ridge = gpu.ridge_intensity(kv_dt);
  const double flops_per_head = 2.0 * (head_dim + value_dim);
  const double bytes =
      dtype_bytes_per_element(kv_dt) * (shared_kv_row ? head_dim : head_dim + value_dim);
  if (ridge <= 0 || flops_per_head <= 0) return 0;
  return ridge * bytes / flops_per_head;
}

}  // namespace attn
