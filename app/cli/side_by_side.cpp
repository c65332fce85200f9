#include "app/cli/side_by_side.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>

#include <nlohmann/json.hpp>

#include "app/cli/recorded.h"
#include "attention/config.h"
#include "attention/error.h"
#include "attention/reference.h"
#include "attention/units.h"
#include "kernels/bench.h"
#include "kernels/gpu.h"

namespace app {
namespace {

using Json = nlohmann::ordered_json;

// Three float copies of the inputs (the inputs, the harness's own, the GPU upload) must fit.
constexpr double kMaxInputBytes = 6.0 * (1ull << 30);

// x[i] uniform in [-1, 1), a function of (seed, stream, i) only.
void fill(std::vector<float>& x, std::uint64_t seed, std::uint64_t stream) {
  const std::uint64_t base = kern::splitmix64(seed ^ (stream * 0x632be59bd9b4e019ull));
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] =
        static_cast<float>(static_cast<double>(kern::splitmix64(base + i) >> 11) * 0x1.0p-52 - 1.0);
}

struct Inputs {
  std::vector<float> q, k, v;  // MLA: k is the latent cache, v unused
  std::size_t out_n = 0;       // B * H * Dv
};

bool cancelled(const SideBySideOptions& o) { return o.cancel && o.cancel->load(); }

// Compares `out` (sequence 0 first) with the float64 truth of sequence 0 and fills the side.
void compare_with(const std::vector<double>& truth, const std::vector<float>& out,
                  const Tolerance& tol, SideResult* side) {
  side->max_abs_err = 0;
  side->worst_index = -1;
  side->within_tolerance = true;
  for (std::size_t i = 0; i < truth.size(); ++i) {
    const double d = std::fabs(static_cast<double>(out[i]) - truth[i]);
    if (!(d <= tol.atol + tol.rtol * std::fabs(truth[i]))) side->within_tolerance = false;
    if (!(d <= side->max_abs_err)) {  // NaN is the worst of all
      side->max_abs_err = std::isnan(d) ? std::nan("") : d;
      side->worst_index = static_cast<std::int64_t>(i);
      if (std::isnan(d)) break;
    }
  }
  side->out.assign(out.begin(), out.begin() + static_cast<long>(truth.size()));
}

void timing_from(const kern::BenchReport& rep, SideResult* side) {
  if (rep.results.empty()) return;
  const kern::BenchResult& r = rep.results.front();
  if (!r.error.empty()) throw attn::DeviceError(r.error);
  side->median_us = r.median_us;
  side->step_us = r.step_us;
  side->gbps = r.gbps;
  side->probe_gbps = r.probe_gbps;
  side->device = rep.device.name;
}

Json side_json(const SideResult& s) {
  Json j;
  j["present"] = s.present;
  j["dtype"] = s.dtype;
  j["median_us"] = s.present ? Json(s.median_us) : Json(nullptr);
  j["step_us"] = s.step_us > 0 ? Json(s.step_us) : Json(nullptr);
  j["gbps"] = s.gbps > 0 ? Json(s.gbps) : Json(nullptr);
  j["probe_gbps"] = s.probe_gbps > 0 ? Json(s.probe_gbps) : Json(nullptr);
  j["max_abs_err"] =
      s.present && std::isfinite(s.max_abs_err) ? Json(s.max_abs_err) : Json(nullptr);
  j["worst_element"] = s.worst_index >= 0 ? Json(s.worst_index) : Json(nullptr);
  j["within_tolerance"] = s.present ? Json(s.within_tolerance) : Json(nullptr);
  j["device"] = s.device;
  j["recorded"] = s.recorded;
  j["provenance"] = s.provenance;
  j["reason"] = s.reason;
  return j;
}

}  // namespace

Tolerance tolerance_of(attn::DType dt) {
  switch (dt) {
    case attn::DType::kFp32:
      return {0.0, 1e-3};
    case attn::DType::kFp16:
    case attn::DType::kBf16:
      return {2e-2, 8e-3};
    case attn::DType::kFp8:
      return {5e-2, 1e-2};
    case attn::DType::kMxfp4:
      return {1e-1, 5e-2};
  }
  return {2e-2, 8e-3};
}

SideBySide run_side_by_side(const kern::BenchCase& c_in, const SideBySideOptions& opt,
                            bool require_gpu) {
  kern::BenchCase c = c_in;
  c.validate();
  SideBySide r;
  r.c = c;
  r.tol = tolerance_of(c.dtype);
  r.seed = opt.seed ? opt.seed
                    : static_cast<std::uint64_t>(
                          std::chrono::system_clock::now().time_since_epoch().count()) &
                          0xffffffffu;
  const attn::LayerShape layer = c.layer_shape();
  const bool mla = layer.variant == attn::Variant::kMla;
  const std::uint64_t b = static_cast<std::uint64_t>(c.batch),
                      s = static_cast<std::uint64_t>(c.seq);
  const std::uint64_t hq = static_cast<std::uint64_t>(layer.q_heads);
  const std::uint64_t d = static_cast<std::uint64_t>(layer.head_dim);
  const std::uint64_t dv = static_cast<std::uint64_t>(layer.value_dim);
  const std::uint64_t kv_rows = b * s * static_cast<std::uint64_t>(mla ? 1 : layer.kv_heads);
  const double floats = static_cast<double>(b * hq * d) +
                        static_cast<double>(kv_rows) * static_cast<double>(mla ? d : d + dv) +
                        static_cast<double>(b * hq * dv);
  if (floats * 4 > kMaxInputBytes)
    throw attn::InputError("compare: the case needs " + attn::format_bytes(floats * 4) +
                           " of float32 inputs here, more than the " +
                           attn::format_bytes(kMaxInputBytes) +
                           " a side-by-side run holds; use a smaller --batch or --seq");
  r.heads = layer.q_heads;
  r.dims = layer.value_dim;
  r.bytes =
      static_cast<double>(c.kv_bytes()) +
      static_cast<double>(b * hq * (d + dv)) * attn::dtype_bytes_per_element(attn::DType::kBf16);

  // The inputs, and the float64 truth of sequence 0 (the heatmaps show sequence 0; the paths
  // still run the whole batch).
  Inputs in;
  in.q.resize(b * hq * d);
  in.k.resize(kv_rows * d);
  if (!mla) in.v.resize(kv_rows * dv);
  fill(in.q, r.seed, 1);
  fill(in.k, r.seed, 2);
  fill(in.v, r.seed, 3);
  in.out_n = b * hq * dv;
  const int threads = opt.cpu_threads;
  attn::GroupedDecodeShape gs;
  attn::MlaDecodeShape ms;
  if (mla) {
    ms.batch = 1;
    ms.seq = c.seq;
    ms.heads = layer.q_heads;
    ms.latent_dim = layer.latent_dim;
    ms.rope_dim = layer.rope_dim;
    ms.scale = layer.scale;
  } else {
    gs.batch = 1;
    gs.seq = c.seq;
    gs.q_heads = layer.q_heads;
    gs.kv_heads = layer.kv_heads;
    gs.head_dim = layer.head_dim;
    gs.value_dim = layer.value_dim;
    gs.window = layer.window;
    gs.scale = layer.scale;
  }
  r.reference.resize(hq * dv);
  if (mla)
    attn::decode_mla_absorbed<double>(ms, in.q.data(), in.k.data(), nullptr, r.reference.data(),
                                      threads);
  else
    attn::decode_grouped<double>(gs, in.q.data(), in.k.data(), in.v.data(), nullptr,
                                 r.reference.data(), threads);
  if (cancelled(opt)) return r;

  // CPU: the threaded float32 path on the same inputs, then timed by the harness.
  {
    SideResult& cpu = r.cpu;
    cpu.dtype = "fp32";
    std::vector<float> out(hq * dv);
    if (mla)
      attn::decode_mla_absorbed<float>(ms, in.q.data(), in.k.data(), nullptr, out.data(), threads);
    else
      attn::decode_grouped<float>(gs, in.q.data(), in.k.data(), in.v.data(), nullptr, out.data(),
                                  threads);
    compare_with(r.reference, out, tolerance_of(attn::DType::kFp32), &cpu);
    kern::BenchCase cc = c;
    cc.dtype = attn::DType::kFp32;
    kern::BenchOptions bo;
    bo.device = kern::BenchDevice::kCpu;
    bo.threads = threads;
    bo.min_runs = opt.min_runs;
    bo.min_seconds = opt.min_seconds;
    bo.cancel = opt.cancel;
    bo.suite = "compare";
    timing_from(kern::run_bench({cc}, bo), &cpu);
    cpu.present = true;
  }
  if (cancelled(opt)) return r;

  // GPU: the kernel in the storage dtype on the same inputs (all sequences; sequence 0 is
  // compared), then timed by the harness; else the recording of this shape.
  SideResult& gpu = r.gpu;
  gpu.dtype = std::string(attn::dtype_name(c.dtype));
  const kern::DeviceInfo dev = kern::query_device();
  std::string why;
  if (!opt.gpu)
    why = "the GPU side was not asked for";
  else if (!dev.available)
    why = dev.reason.empty() ? "no GPU" : dev.reason;
  if (why.empty()) {
    try {
      std::vector<float> out(in.out_n);
      if (mla) {
        attn::MlaDecodeShape all = ms;
        all.batch = c.batch;
        kern::gpu_decode_mla(all, in.q.data(), in.k.data(), nullptr, out.data(), c.dtype);
      } else {
        attn::GroupedDecodeShape all = gs;
        all.batch = c.batch;
        kern::gpu_decode_grouped(all, in.q.data(), in.k.data(), in.v.data(), nullptr, out.data(),
                                 c.dtype);
      }
      compare_with(r.reference, out, r.tol, &gpu);
      if (cancelled(opt)) return r;
      kern::BenchOptions bo;
      bo.device = kern::BenchDevice::kGpu;
      bo.min_runs = opt.min_runs;
      bo.min_seconds = opt.min_seconds;
      bo.cancel = opt.cancel;
      bo.suite = "compare";
      timing_from(kern::run_bench({c}, bo), &gpu);
      gpu.present = true;
      return r;
    } catch (const attn::DeviceError& e) {
      if (require_gpu) throw;
      why = e.what();
      gpu.out.clear();
    } catch (const std::bad_alloc&) {
      if (require_gpu) throw attn::DeviceError("out of memory for this case on the GPU");
      why = "out of memory for this case on the GPU";
      gpu.out.clear();
    }
  } else if (require_gpu) {
    throw attn::DeviceError("compare --device gpu: " + why);
  }
  gpu.reason = why;
  if (!opt.gpu) return r;
  if (const auto rec = find_recorded_gpu(layer, c.batch, c.seq, c.dtype)) {
    gpu.present = true;
    gpu.recorded = true;
    gpu.median_us = rec->result.median_us;
    gpu.step_us = rec->result.step_us;
    gpu.gbps = rec->result.gbps;
    gpu.probe_gbps = rec->result.probe_gbps;
    gpu.max_abs_err = rec->result.max_abs_err;  // its own check, on its own inputs
    gpu.within_tolerance = rec->result.checked;
    gpu.device = rec->gpu;
    gpu.provenance = rec->provenance();
  } else {
    gpu.reason += "; no GPU recording of this shape in assets/results/";
  }
  return r;
}

std::string side_by_side_json(const SideBySide& r) {
  Json j;
  const attn::LayerShape l = r.c.layer_shape();
  j["case"] = {{"variant", std::string(attn::variant_name(r.c.variant))},
               {"batch", r.c.batch},
               {"seq", r.c.seq},
               {"q_heads", l.q_heads},
               {"kv_heads", l.kv_heads},
               {"head_dim", l.head_dim},
               {"value_dim", l.value_dim},
               {"window", l.window},
               {"latent_dim", l.latent_dim},
               {"rope_dim", l.rope_dim},
               {"dtype", std::string(attn::dtype_name(r.c.dtype))}};
  j["seed"] = r.seed;
  j["tolerance"] = {{"rtol", r.tol.rtol}, {"atol", r.tol.atol}};
  j["bytes"] = r.bytes;
  j["cpu"] = side_json(r.cpu);
  j["gpu"] = side_json(r.gpu);
  return j.dump(2);
}

}  // namespace app
