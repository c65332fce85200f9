// Benchmark harness: case validation, KV bytes, and run_bench's dispatch to the CPU
// (bench_cpu.cpp) or the GPU (bench_gpu.h). Suites are in suites.cpp, JSON in bench_json.cpp.
#include "kernels/bench.h"

#include <chrono>
#include <cstdlib>
#include <cmath>
#include <ctime>
#include <new>
#include <optional>
#include <string>

#include "attention/error.h"
#include "attention/kv_cache.h"
#include "kernels/bench_cpu.h"
#include "kernels/bench_gpu.h"
#include "kernels/gpu.h"

#ifndef ATTNLAB_GIT_COMMIT
#define ATTNLAB_GIT_COMMIT "unknown"
#endif

namespace kern {
namespace {

using attn::InputError;
using attn::Limits;

void check_range(const char* flag, std::int64_t value, std::int64_t lo, std::int64_t hi,
                 const char* what) {
  if (value < lo || value > hi) {
    throw InputError(std::string(flag) + ": expected " + what + " from " + std::to_string(lo) +
                     " to " + std::to_string(hi) + ", found " + std::to_string(value));
  }
}

std::string iso_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool cancelled(const BenchOptions& opt) {
  return opt.cancel != nullptr && opt.cancel->load(std::memory_order_relaxed);
}

}  // namespace

std::string build_commit() { return ATTNLAB_GIT_COMMIT; }

void BenchCase::validate() const {
  check_range("--batch", batch, 1, Limits::kMaxBatch, "B");
  check_range("--seq", seq, 1, Limits::kMaxSeq, "S");
  check_range("--q-heads", q_heads, 1, Limits::kMaxHeads, "Hq");
  check_range("--window", window, 0, Limits::kMaxSeq, "W (0 = full)");
  if (!std::isfinite(scale) || scale < 0)
    throw InputError("--scale: expected a finite number > 0 (0 = default), found " +
                     std::to_string(scale));
  // mxfp4 is a storage of MLA's latent cache (AMD's MI355X problem): the CPU runs such a case in
  // float32; no GPU kernel reads it yet (run_bench says so for each such case).
  if (dtype == attn::DType::kMxfp4 && variant != attn::Variant::kMla)
    throw InputError(
        "--dtype: mxfp4 is a storage of MLA's latent cache only; grouped caches take fp32, "
        "fp16, bf16 or fp8");
  if (variant == attn::Variant::kMla) {
    check_range("--latent-dim", latent_dim, 1, Limits::kMaxHeadDim, "Dl");
    check_range("--rope-dim", rope_dim, 0, Limits::kMaxHeadDim, "Dr");
    if (kv_heads != 1)
      throw InputError("--kv-heads: mla has one latent cache (Hkv = 1), found " +
                       std::to_string(kv_heads));
    if (head_dim != latent_dim + rope_dim)
      throw InputError("--head-dim: mla's is Dl + Dr = " + std::to_string(latent_dim + rope_dim) +
                       ", found " + std::to_string(head_dim));
    if (window != 0) throw InputError("--window: not used by mla, found " + std::to_string(window));
    return;
  }
  check_range("--kv-heads", kv_heads, 1, Limits::kMaxHeads, "Hkv");
  check_range("--head-dim", head_dim, 1, Limits::kMaxHeadDim, "D");
  if (latent_dim != 0 || rope_dim != 0)
    throw InputError("--latent-dim/--rope-dim: only used by mla");
  const std::string v(attn::variant_name(variant));
  if (q_heads % kv_heads != 0)
    throw InputError("--kv-heads: Hkv = " + std::to_string(kv_heads) +
                     " does not divide Hq = " + std::to_string(q_heads));
  if (variant == attn::Variant::kMha && kv_heads != q_heads)
    throw InputError("--kv-heads: mha needs Hkv = Hq = " + std::to_string(q_heads) + ", found " +
                     std::to_string(kv_heads));
  if (variant == attn::Variant::kMqa && kv_heads != 1)
    throw InputError("--kv-heads: mqa needs Hkv = 1, found " + std::to_string(kv_heads));
  if (variant == attn::Variant::kSwa && window < 1)
    throw InputError("--window: swa needs a window W >= 1");
}

attn::LayerShape BenchCase::layer_shape() const {
  attn::LayerShape l;
  l.variant = variant;
  l.q_heads = q_heads;
  l.window = window;
  l.scale = scale;
  if (variant == attn::Variant::kMla) {
    l.kv_heads = 1;
    l.latent_dim = latent_dim;
    l.rope_dim = rope_dim;
    l.head_dim = latent_dim + rope_dim;
    l.value_dim = latent_dim;
  } else {
    l.kv_heads = kv_heads;
    l.head_dim = head_dim;
    l.value_dim = head_dim;
  }
  return l;
}

BenchCase BenchCase::from_model(const attn::ModelConfig& model, int layer, std::int64_t batch,
                                std::int64_t seq, attn::DType dt) {
  const attn::LayerShape l = model.layer_shape(layer);
  l.validate();
  BenchCase c;
  c.variant = l.variant;
  c.batch = batch;
  c.seq = seq;
  c.q_heads = l.q_heads;
  c.kv_heads = l.kv_heads;
  c.head_dim = l.head_dim;
  c.window = l.window;
  c.latent_dim = l.latent_dim;
  c.rope_dim = l.rope_dim;
  c.scale = l.scale;
  c.dtype = dt;
  c.label = model.name + " layer " + std::to_string(layer);
  return c;
}

double BenchCase::effective_scale() const { return layer_shape().effective_scale(); }

std::uint64_t BenchCase::kv_bytes() const {
  // Saturating: validate() bounds each factor, not their product.
  const attn::LayerShape l = layer_shape();
  if (batch <= 0 || seq <= 0 || l.head_dim <= 0 || l.kv_heads <= 0) return 0;
  const double positions =
      static_cast<double>(window > 0 && window < seq ? window : seq) * static_cast<double>(batch);
  const double row_elems = static_cast<double>(l.kv_heads) * (l.head_dim + l.value_dim);
  if (positions * row_elems * 4.0 > 1.8e19) return UINT64_MAX;
  return static_cast<std::uint64_t>(positions) * attn::kv_bytes_per_token(l, dtype, 1);
}

std::string BenchCase::peer_gpu() const {
  const std::size_t comma = peer_name.rfind(", ");
  if (peer_us <= 0 || comma == std::string::npos) return "";
  return peer_name.substr(comma + 2);
}

namespace {

// A worklog case's kernel version, set in the plans' environment variable for the case only
// (the plans read it when they plan; the previous value comes back after).
class ScopedVersion {
 public:
  explicit ScopedVersion(const BenchCase& c) {
    if (c.kernel_version <= 0) return;
    name_ = c.variant == attn::Variant::kMla ? "ATTNLAB_MLA_VERSION" : "ATTNLAB_GROUPED_VERSION";
    if (const char* old = std::getenv(name_)) old_ = old;
    had_ = std::getenv(name_) != nullptr;
    setenv(name_, std::to_string(c.kernel_version).c_str(), 1);
  }
  ~ScopedVersion() {
    if (!name_) return;
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedVersion(const ScopedVersion&) = delete;
  ScopedVersion& operator=(const ScopedVersion&) = delete;

 private:
  const char* name_ = nullptr;
  std::string old_;
  bool had_ = false;
};

}  // namespace

BenchReport run_bench(const std::vector<BenchCase>& cases, const BenchOptions& opt) {
  BenchReport rep;
  rep.date = iso_now();
  rep.commit = build_commit();
  rep.suite = opt.suite.empty() ? "single" : opt.suite;
  const int total = static_cast<int>(cases.size());

  if (opt.device == BenchDevice::kGpu) {
    const DeviceInfo info = query_device();
    if (!info.available)
      throw attn::DeviceError("no GPU: " +
                              (info.reason.empty() ? std::string("none found") : info.reason));
    rep.device.kind = "gpu";
    rep.device.name = info.name;
    rep.device.driver = info.driver;
    rep.device.runtime = info.runtime;
    rep.device.multiprocessors = info.multiprocessors;
    rep.device.memory_bytes = info.total_memory;
    rep.device.probe_gbps = gpu_read_probe_gbps();
    for (int i = 0; i < total; ++i) {
      if (cancelled(opt)) break;
      const BenchCase& c = cases[static_cast<std::size_t>(i)];
      if (opt.progress) opt.progress(i, total, c);
      BenchResult r;
      try {
        c.validate();
        const ScopedVersion version(c);
        r = gpu_bench_case(c, opt);
      } catch (const InputError& e) {
        r = BenchResult{};
        r.c = c;
        r.device = "gpu";
        r.error = e.what();
      } catch (const std::bad_alloc&) {
        r = BenchResult{};
        r.c = c;
        r.device = "gpu";
        r.error = "out of host memory for this case";
      }
      if (cancelled(opt)) break;  // a cancelled case is dropped
      if (r.probe_gbps <= 0) r.probe_gbps = rep.device.probe_gbps;
      rep.results.push_back(std::move(r));
    }
    return rep;
  }

  const int threads = cpu_bench_threads(opt.threads);
  rep.device = cpu_environment(threads);
  // The probe runs once, after the first case that ran: a request whose every case is refused
  // (invalid, or too large for this machine) fails at once, without a 1 GiB probe first.
  bool probed = false;
  for (int i = 0; i < total; ++i) {
    if (cancelled(opt)) break;
    const BenchCase& c = cases[static_cast<std::size_t>(i)];
    if (opt.progress) opt.progress(i, total, c);
    std::optional<BenchResult> r = cpu_bench_case(c, opt, threads);
    if (!r) break;  // cancelled: dropped
    if (!probed && r->error.empty()) {
      rep.device.probe_gbps = cpu_probe_for_bench(threads, opt.probe_bytes);
      probed = true;
    }
    rep.results.push_back(std::move(*r));
  }
  for (BenchResult& r : rep.results) r.probe_gbps = rep.device.probe_gbps;
  return rep;
}

}  // namespace kern
