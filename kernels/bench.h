// Benchmark harness shared by `attnlab bench` and the explorer's latency panel. Method
// (docs/DESIGN.md section 5): check against the CPU reference first, warm up, rotate inputs past
// the L2 (GPU) or caches (CPU), time many runs (device events on the GPU), report the median with
// min and max, and a streaming-read bandwidth measured in the same run.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/dtype.h"

namespace kern {

enum class BenchDevice { kCpu, kGpu };

struct BenchCase {
  attn::Variant variant = attn::Variant::kGqa;
  std::int64_t batch = 1;                  // B
  std::int64_t seq = 4096;                 // S
  int q_heads = 32;                        // Hq (MLA: H)
  int kv_heads = 8;                        // Hkv (MLA: 1)
  int head_dim = 128;                      // D (MLA: Dl + Dr)
  int window = 0;                          // W, 0 = full
  int latent_dim = 0;                      // Dl (MLA)
  int rope_dim = 0;                        // Dr (MLA)
  double scale = 0;                        // 0 = default
  attn::DType dtype = attn::DType::kBf16;  // GPU storage dtype; CPU always runs fp32
  std::string label;                       // suite row name, e.g. "peers: GQA B16 S4096"
  // The worklog suite: the kernel version the GPU run forces (0 = the plan's choice), through
  // ATTNLAB_GROUPED_VERSION (grouped: the highest version the plan may take; 4-6 forced)
  // or ATTNLAB_MLA_VERSION (MLA: that version) for this case only. The CPU ignores it.
  int kernel_version = 0;
  double peer_us = 0;     // a peer's published/measured time for this row, 0 if none
  std::string peer_name;  // whose, ending in the GPU it was timed on: "..., H200"

  // The GPU named last in peer_name ("H200"), or "" when there is no peer or none is named.
  std::string peer_gpu() const;

  // Throws InputError naming the flag (--batch, --seq, ...) when the case is invalid.
  void validate() const;
  // The layer shape the case runs (MLA: the absorbed form, one latent row of Dl + Dr, Dv = Dl;
  // the grouped family: Dv = D). The one conversion between cases and layers.
  attn::LayerShape layer_shape() const;
  // The case for one layer of `model` at B = batch, S = seq, stored as `dt` on the GPU,
  // labelled "<model> layer <n>". Throws InputError when the model's layer is not valid.
  static BenchCase from_model(const attn::ModelConfig& model, int layer, std::int64_t batch,
                              std::int64_t seq, attn::DType dt);
  // The softmax scale the case runs with: `scale`, else the default of its layer shape.
  double effective_scale() const;
  // Bytes of KV cache the case reads (only the window of a sliding case), from
  // attn::kv_bytes_per_token; saturates at UINT64_MAX.
  std::uint64_t kv_bytes() const;
};

struct BenchResult {
  BenchCase c;
  std::string device;  // "cpu" or "gpu"
  double median_us = 0, min_us = 0, max_us = 0;
  int runs = 0;
  // GPU, steady state: median device time of one step when `steps` steps run back to back in
  // one graph (as inside a model's decode graph), i.e. without the fixed cost of a lone graph
  // launch between two events; 0 where not measured (CPU, older results files).
  double step_us = 0;
  int steps = 0;
  bool has_step() const { return steps > 0 && step_us > 0; }
  std::uint64_t kv_bytes = 0;  // as BenchCase::kv_bytes() for the storage dtype used
  double gbps = 0;             // all bytes read (KV + Q) and written / median time
  double max_abs_err = 0;      // vs the CPU float64 reference
  bool checked = false;        // compared with the CPU reference before timing
  double probe_gbps = 0;       // streaming-read bandwidth measured in the same run
  std::string error;           // non-empty: the case failed (the others still ran)
};

struct BenchEnvironment {  // the "device" object of the JSON
  std::string kind;        // "cpu" / "gpu"
  std::string name;        // CPU model or GPU name
  std::string driver;
  std::string runtime;
  int threads = 0;  // CPU threads used
  int multiprocessors = 0;
  std::uint64_t memory_bytes = 0;
  double probe_gbps = 0;  // streaming read measured in this run
};

struct BenchReport {
  BenchEnvironment device;
  std::string date;    // ISO 8601 UTC
  std::string commit;  // git commit of the build (ATTNLAB_GIT_COMMIT) or "unknown"
  std::string suite;   // suite name or "single"
  std::vector<BenchResult> results;
};

struct BenchOptions {
  BenchDevice device = BenchDevice::kCpu;
  int threads = 0;  // CPU: 0 = all cores
  int min_runs = 10;
  double min_seconds = 0.2;                   // per case, after warm-up
  const std::atomic<bool>* cancel = nullptr;  // checked between runs; a cancelled case is dropped
  // Called before each case: (index, total, case). Runs on the benchmark's thread.
  std::function<void(int, int, const BenchCase&)> progress;
  std::string suite;            // recorded in BenchReport::suite ("single" when empty)
  std::size_t probe_bytes = 0;  // CPU read probe buffer; 0 = automatic (well past the LLC)
};

// Suites: "peers", "amd-mixed-mla", "amd-mla", "sweep", "worklog" (GPU shapes; on the CPU the
// harness may cap them). The worklog's labels read "worklog: <shape> | v<N> | <what vN changed>".
std::vector<std::string> suite_names();
std::vector<BenchCase> suite_cases(const std::string& name);  // throws InputError

// Runs the cases in order. Never throws for a failing case (its error is recorded); throws
// DeviceError only when the device itself cannot be used (no GPU).
BenchReport run_bench(const std::vector<BenchCase>& cases, const BenchOptions& opt);

// The git commit this build was made from (ATTNLAB_GIT_COMMIT), or "unknown".
std::string build_commit();

// SplitMix64's output function of x + golden ratio: the deterministic inputs of the CPU and GPU
// runners and of `attnlab compare` are splitmix64 of (seed, index) mixes.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// JSON of docs/DESIGN.md section 3 (results files in assets/results/ are this plus provenance).
std::string bench_report_json(const BenchReport& r, int indent = 2);
// Reads a results file's text; throws InputError naming the field. Used by the explorer.
BenchReport parse_bench_report(const std::string& text, const std::string& origin);

}  // namespace kern
