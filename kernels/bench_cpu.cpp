// CPU benchmark of the threaded float reference (attention/reference.h), by the method of
// docs/DESIGN.md section 5: check against the float64 truth on the same inputs, warm up, rotate
// input copies past the last-level cache, time many runs, median with min and max, and GB/s
// beside a streaming-read probe measured in the same run.
#include "kernels/bench_cpu.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "attention/error.h"
#include "attention/reference.h"
#include "kernels/cpu_probe.h"
#include "kernels/overrides.h"

namespace kern {
namespace {

// The float path accumulates in float32 over at most 2^26 positions of inputs in [-1, 1]; its
// outputs are convex combinations of value rows, so an absolute error past 1e-3 is a bug, not
// rounding (typical errors are ~1e-6).
constexpr double kCheckTolerance = 1e-3;
constexpr int kMaxCopies = 8;
constexpr double kMaxSecondsPerCase = 5.0;  // a slow case stops after this once it has 3 runs
constexpr int kMaxRunsPerCase = 100000;
constexpr int kWarmupRuns = 2;

std::uint64_t sysconf_u64(int name) {
  const long v = sysconf(name);
  return v > 0 ? static_cast<std::uint64_t>(v) : 0;
}

std::uint64_t physical_memory() { return sysconf_u64(_SC_PHYS_PAGES) * sysconf_u64(_SC_PAGESIZE); }

std::uint64_t last_level_cache_bytes() {
  std::uint64_t llc = sysconf_u64(_SC_LEVEL3_CACHE_SIZE);
  if (llc == 0) {
    std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index3/size");
    std::string s;
    if (f >> s && !s.empty()) {
      const std::uint64_t mult = s.back() == 'K' ? 1024 : s.back() == 'M' ? 1024 * 1024 : 1;
      try {
        llc = std::stoull(s) * mult;
      } catch (...) {
        llc = 0;
      }
    }
  }
  return llc > 0 ? llc : (32ull << 20);
}

// The most the CPU benchmark allocates for one case: a quarter of the machine's memory, at most
// 4 GiB (a benchmark must not push a shared machine into swap; the float64 check of a larger
// case would also take minutes on a few cores).
std::uint64_t cpu_case_budget() {
  const std::uint64_t mem = physical_memory();
  const std::uint64_t quarter = mem > 0 ? mem / 4 : (2ull << 30);
  return std::min<std::uint64_t>(quarter, 4ull << 30);
}

// Deterministic inputs in [-1, 1) (splitmix64), seeded per case and tensor.
void fill_uniform(std::vector<float>& v, std::uint64_t seed) {
  std::uint64_t x = seed;
  for (float& f : v) {
    const std::uint64_t z = splitmix64(x);
    x += 0x9e3779b97f4a7c15ull;
    f = static_cast<float>(static_cast<double>(z >> 40) * (2.0 / 16777216.0) - 1.0);
  }
}

std::string human(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", bytes, units[u]);
  return buf;
}

struct Inputs {
  std::vector<float> q, k, v;  // grouped: k, v; MLA: k holds the latent cache, v is empty
};

}  // namespace

int cpu_bench_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

BenchEnvironment cpu_environment(int threads) {
  BenchEnvironment e;
  e.kind = "cpu";
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        e.name = line.substr(colon + 1);
        e.name.erase(0, e.name.find_first_not_of(" \t"));
      }
      break;
    }
  }
  if (e.name.empty()) e.name = "unknown CPU";
  utsname u{};
  if (uname(&u) == 0) e.driver = std::string(u.sysname) + " " + u.release;
#if defined(__clang__)
  e.runtime = std::string("clang ") + __clang_version__ + ", std::thread";
#elif defined(__GNUC__)
  e.runtime = std::string("gcc ") + __VERSION__ + ", std::thread";
#else
  e.runtime = "C++17 std::thread";
#endif
  e.threads = threads;
  e.multiprocessors = cpu_bench_threads(0);
  e.memory_bytes = physical_memory();
  return e;
}

std::size_t cpu_probe_bytes(std::size_t requested) {
  if (requested > 0) return requested;
  // The variable counts up to the CPU benchmark's memory budget (a quarter of memory, at most
  // 4 GiB); past it, or below 1, it is not set.
  const int mib = read_overrides().cpu_probe_mib;
  if (mib >= 1 && (static_cast<std::uint64_t>(mib) << 20) <= cpu_case_budget())
    return static_cast<std::size_t>(mib) << 20;
  const std::uint64_t want = std::max<std::uint64_t>(256ull << 20, 2 * last_level_cache_bytes());
  return static_cast<std::size_t>(std::min<std::uint64_t>(want, 1ull << 30));
}

double cpu_probe_for_bench(int threads, std::size_t bytes) {
  return cpu_read_probe_gbps(threads, cpu_probe_bytes(bytes));
}

std::optional<BenchResult> cpu_bench_case(const BenchCase& c0, const BenchOptions& opt,
                                          int threads) {
  BenchResult r;
  r.c = c0;
  r.c.dtype = attn::DType::kFp32;  // the CPU path runs float32 whatever the GPU would store
  r.device = "cpu";
  const BenchCase& c = r.c;
  try {
    c.validate();
  } catch (const attn::InputError& e) {
    r.error = e.what();
    return r;
  }
  r.kv_bytes = c.kv_bytes();
  auto is_cancelled = [&] { return opt.cancel && opt.cancel->load(std::memory_order_relaxed); };

  const bool mla = c.variant == attn::Variant::kMla;
  const double B = static_cast<double>(c.batch), S = static_cast<double>(c.seq);
  const double q_n = B * c.q_heads * c.head_dim;
  const double cache_n = mla ? B * S * c.head_dim : 2.0 * B * S * c.kv_heads * c.head_dim;
  const double out_n = B * c.q_heads * (mla ? c.latent_dim : c.head_dim);
  const double per_copy = 4.0 * (q_n + cache_n);
  const double fixed = out_n * (4.0 + 8.0);  // float output + float64 truth
  const double budget = static_cast<double>(cpu_case_budget());
  if (per_copy + fixed > budget) {
    r.error = "too large for the CPU benchmark: one copy of the inputs needs " +
              human(per_copy + fixed) + ", more than this machine allows per case (" +
              human(budget) + "); run it with --device gpu";
    return r;
  }
  // Enough copies that consecutive runs do not find their inputs in the last-level cache.
  const double rotate = static_cast<double>(std::min<std::uint64_t>(
      std::max<std::uint64_t>(4 * last_level_cache_bytes(), 64ull << 20), 1ull << 30));
  int copies = static_cast<int>(std::ceil(rotate / per_copy));
  copies =
      std::max(1, std::min({copies, kMaxCopies, static_cast<int>((budget - fixed) / per_copy)}));

  try {
    // ---- inputs: copy 0 drawn from a fixed seed, the others the same bytes elsewhere ------
    std::vector<Inputs> in(static_cast<std::size_t>(copies));
    const std::uint64_t seed = 0x5eedull ^ (static_cast<std::uint64_t>(c.batch) << 40) ^
                               (static_cast<std::uint64_t>(c.seq) << 8) ^
                               static_cast<std::uint64_t>(c.q_heads * 131 + c.kv_heads);
    in[0].q.resize(static_cast<std::size_t>(q_n));
    fill_uniform(in[0].q, seed);
    if (mla) {
      in[0].k.resize(static_cast<std::size_t>(cache_n));
      fill_uniform(in[0].k, seed + 1);
    } else {
      in[0].k.resize(static_cast<std::size_t>(cache_n / 2));
      in[0].v.resize(static_cast<std::size_t>(cache_n / 2));
      fill_uniform(in[0].k, seed + 1);
      fill_uniform(in[0].v, seed + 2);
    }
    for (int i = 1; i < copies; ++i) in[static_cast<std::size_t>(i)] = in[0];
    std::vector<float> out(static_cast<std::size_t>(out_n));

    attn::GroupedDecodeShape gs;
    attn::MlaDecodeShape ms;
    if (mla) {
      ms.batch = c.batch;
      ms.seq = c.seq;
      ms.heads = c.q_heads;
      ms.latent_dim = c.latent_dim;
      ms.rope_dim = c.rope_dim;
      ms.scale = c.scale;
    } else {
      gs.batch = c.batch;
      gs.seq = c.seq;
      gs.q_heads = c.q_heads;
      gs.kv_heads = c.kv_heads;
      gs.head_dim = c.head_dim;
      gs.value_dim = c.head_dim;
      gs.window = c.window;
      gs.scale = c.scale;
    }
    auto run_float = [&](const Inputs& x) {
      if (mla)
        attn::decode_mla_absorbed<float>(ms, x.q.data(), x.k.data(), nullptr, out.data(), threads);
      else
        attn::decode_grouped<float>(gs, x.q.data(), x.k.data(), x.v.data(), nullptr, out.data(),
                                    threads);
    };

    // ---- check against the float64 truth before timing --------------------------------
    {
      std::vector<double> truth(static_cast<std::size_t>(out_n));
      if (mla)
        attn::decode_mla_absorbed<double>(ms, in[0].q.data(), in[0].k.data(), nullptr, truth.data(),
                                          threads);
      else
        attn::decode_grouped<double>(gs, in[0].q.data(), in[0].k.data(), in[0].v.data(), nullptr,
                                     truth.data(), threads);
      std::fill(out.begin(), out.end(), std::nanf(""));  // poisoned: unwritten output fails
      run_float(in[0]);
      double err = 0;
      bool finite = true;
      for (std::size_t i = 0; i < out.size(); ++i) {
        if (!std::isfinite(out[i])) finite = false;
        err = std::max(err, std::fabs(static_cast<double>(out[i]) - truth[i]));
      }
      r.checked = true;
      r.max_abs_err = finite ? err : std::nan("");
      if (!finite || err > kCheckTolerance) {
        r.error = finite ? "check failed: max abs error " + std::to_string(err) +
                               " vs the float64 reference (tolerance " +
                               std::to_string(kCheckTolerance) + ")"
                         : std::string("check failed: the output has NaN or infinite values");
        return r;
      }
    }

    // ---- warm up, then time rotated copies ---------------------------------------------
    for (int i = 0; i < kWarmupRuns; ++i) {
      if (is_cancelled()) return std::nullopt;
      run_float(in[static_cast<std::size_t>(i % copies)]);
    }
    std::vector<double> us;
    double elapsed = 0;
    const int min_runs = std::max(1, opt.min_runs);
    for (int i = 0; i < kMaxRunsPerCase; ++i) {
      if ((static_cast<int>(us.size()) >= min_runs && elapsed >= opt.min_seconds) ||
          (us.size() >= 3 && elapsed >= kMaxSecondsPerCase))
        break;
      if (is_cancelled()) return std::nullopt;
      const Inputs& x = in[static_cast<std::size_t>(i % copies)];
      const auto t0 = std::chrono::steady_clock::now();
      run_float(x);
      const auto t1 = std::chrono::steady_clock::now();
      const double dt = std::chrono::duration<double>(t1 - t0).count();
      us.push_back(dt * 1e6);
      elapsed += dt;
    }
    std::vector<double> sorted = us;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    r.runs = static_cast<int>(n);
    r.min_us = sorted.front();
    r.max_us = sorted.back();
    r.median_us = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    const double bytes = static_cast<double>(r.kv_bytes) + 4.0 * q_n + 4.0 * out_n;
    r.gbps = r.median_us > 0 ? bytes / (r.median_us * 1e-6) / 1e9 : 0;
  } catch (const std::bad_alloc&) {
    r.error = "out of host memory for this case (" + human(per_copy * copies + fixed) + ")";
  }
  return r;
}

}  // namespace kern
