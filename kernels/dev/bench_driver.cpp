// Tuning driver for the GPU kernels (a dev tool, not part of the product): times the grouped
// decode on the peers shapes with gpu_bench_case, beside the read probe of the same run, and
// prints a table. Built as attnlab_bench_driver by a GPU build with -DATTNLAB_KERNEL_DIAG=ON.
// Usage: attnlab_bench_driver [filter-substring] [out.json commit] (every ATTNLAB_* override of
// kernels/README.md applies; ATTNLAB_DRV_READ=0 skips the cache-sized read before each row).
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/bench.h"
#include "kernels/bench_gpu.h"
#include "kernels/gpu.h"
#include "kernels/grouped_launch.h"

int main(int argc, char** argv) {
  using attn::Variant;
  struct Row {
    const char* label;
    Variant v;
    long long b, s;
    int hq, hkv, w;
    attn::DType dt;
    double peer;
  };
  const attn::DType bf = attn::DType::kBf16;
  const std::vector<Row> rows = {
      {"GQA B1 S4096", Variant::kGqa, 1, 4096, 32, 8, 0, bf, 16.9},
      {"GQA B16 S4096", Variant::kGqa, 16, 4096, 32, 8, 0, bf, 76.5},
      {"GQA B64 S8192", Variant::kGqa, 64, 8192, 32, 8, 0, bf, 493},
      {"GQA B1 S131072", Variant::kGqa, 1, 131072, 32, 8, 0, bf, 139},
      {"GQA B4 S4096", Variant::kGqa, 4, 4096, 32, 8, 0, bf, 0},
      {"GQA B8 S4096", Variant::kGqa, 8, 4096, 32, 8, 0, bf, 0},
      {"MQA B16 S4096", Variant::kMqa, 16, 4096, 32, 1, 0, bf, 55.7},
      {"MQA B64 S8192", Variant::kMqa, 64, 8192, 32, 1, 0, bf, 84.4},
      {"MQA B128 S4096", Variant::kMqa, 128, 4096, 32, 1, 0, bf,
       0},  // MQA B64 S8192's bytes, no split
      {"MHA B16 S4096", Variant::kMha, 16, 4096, 32, 32, 0, bf, 255},
      {"MHA B1 S131072", Variant::kMha, 1, 131072, 32, 32, 0, bf, 490},
      {"SWA W4096 B16 S32768", Variant::kSwa, 16, 32768, 32, 8, 4096, bf, 83.3},
      {"GQA B16 S4096 fp16", Variant::kGqa, 16, 4096, 32, 8, 0, attn::DType::kFp16, 0},
      {"GQA B16 S4096 fp8", Variant::kGqa, 16, 4096, 32, 8, 0, attn::DType::kFp8, 0},
      {"GQA B64 S8192 fp8", Variant::kGqa, 64, 8192, 32, 8, 0, attn::DType::kFp8, 0},
  };
  const char* filter = argc > 1 ? argv[1] : "";
  const char* json_path = argc > 2 ? argv[2] : nullptr;  // results in the bench JSON fields
  const char* commit = argc > 3 ? argv[3] : "unknown";
  std::ostringstream js;
  const kern::DeviceInfo d = kern::query_device();
  if (!d.available) {
    std::printf("no GPU: %s\n", d.reason.c_str());
    return 3;
  }
  const double probe = kern::gpu_read_probe_gbps();
  const kern::GpuTiming empty = kern::gpu_launch_floor();
  std::printf(
      "device %s, driver %s, %s; read probe %.0f GB/s; empty kernel %.2f us alone, %.2f us a step "
      "in a graph\n",
      d.name.c_str(), d.driver.c_str(), d.runtime.c_str(), probe, empty.single_us, empty.step_us);
  std::printf("%-22s %9s %9s %9s %6s %8s %8s %6s %8s %6s %9s\n", "case", "median", "min", "max",
              "runs", "step", "GB/s", "%probe", "peer", "x", "maxerr");
  kern::BenchOptions opt;
  opt.device = kern::BenchDevice::kGpu;
  opt.min_runs = 50;
  opt.min_seconds = 0.1;
  for (const Row& r : rows) {
    if (*filter && !std::strstr(r.label, filter)) continue;
    kern::BenchCase c;
    c.variant = r.v;
    c.batch = r.b;
    c.seq = r.s;
    c.q_heads = r.hq;
    c.kv_heads = r.hkv;
    c.head_dim = 128;
    c.window = r.w;
    c.dtype = r.dt;
    const kern::BenchResult res = kern::gpu_bench_case(c, opt);
    {
      static const char* vn[] = {"mha", "mqa", "gqa", "swa", "mla"};
      if (js.tellp() > 0) js << ",\n";
      js << "    {\"label\": \"peers: " << r.label << "\", \"variant\": \"" << vn[int(r.v)]
         << "\", \"batch\": " << r.b << ", \"seq\": " << r.s << ", \"q_heads\": " << r.hq
         << ", \"kv_heads\": " << r.hkv << ", \"head_dim\": 128, \"window\": " << r.w
         << ", \"latent_dim\": 0, \"rope_dim\": 0, \"dtype\": \"" << attn::dtype_name(r.dt)
         << "\", \"device\": \"gpu\", \"median_us\": " << res.median_us
         << ", \"min_us\": " << res.min_us << ", \"max_us\": " << res.max_us
         << ", \"runs\": " << res.runs << ", \"step_us\": " << res.step_us
         << ", \"steps\": " << res.steps << ", \"kv_bytes\": " << res.kv_bytes
         << ", \"gbps\": " << res.gbps << ", \"max_abs_err\": " << res.max_abs_err
         << ", \"checked\": " << (res.checked ? "true" : "false") << ", \"probe_gbps\": " << probe
         << ", \"peer_us\": " << r.peer << ", \"peer_name\": \"peers suite\""
         << ", \"error\": \"" << res.error << "\"}";
    }
    if (!res.error.empty()) {
      std::printf("%-22s ERROR %s\n", r.label, res.error.c_str());
      continue;
    }
    kern::GroupedDeviceArgs ga;
    ga.batch = r.b;
    ga.seq = r.s;
    ga.q_heads = r.hq;
    ga.kv_heads = r.hkv;
    ga.head_dim = ga.value_dim = 128;
    ga.window = r.w;
    ga.scale = 0.088f;
    ga.dt = r.dt;
    const kern::GroupedPlan pl = kern::grouped_plan(ga);
    // The read probe over the same bytes under the same timing: what a kernel that only read
    // the cache would take here (ATTNLAB_DRV_READ=0 skips it).
    const char* rd = std::getenv("ATTNLAB_DRV_READ");
    const kern::GpuTiming rt =
        rd && *rd == '0' ? kern::GpuTiming{} : kern::gpu_read_probe_time(res.kv_bytes);
    const double read_us = rt.single_us;
    std::printf(
        "%-22s %9.2f %9.2f %9.2f %6d %8.2f %8.0f %6.1f %8.1f %6.2f %9.2e  v%d ns%d wg%d kb%d mt%d "
        "wt%d sp%d%s%s  read %.2f us, step %.2f (kernel %.1f %% over)\n",
        r.label, res.median_us, res.min_us, res.max_us, res.runs, res.step_us, res.gbps,
        100.0 * res.gbps / probe, r.peer, r.peer > 0 ? r.peer / res.median_us : 0.0,
        res.max_abs_err, pl.version, pl.stages, pl.warpgroups, pl.keys, pl.mtiles, pl.tile_warps,
        pl.splits, pl.fused_combine ? " fused" : "", pl.cluster > 1 ? " cluster" : "", read_us,
        rt.step_us, read_us > 0 ? 100.0 * (res.median_us / read_us - 1.0) : 0.0);
  }
  if (json_path) {
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::ofstream f(json_path);
    f << "{\n  \"device\": {\"kind\": \"gpu\", \"name\": \"" << d.name << "\", \"driver\": \""
      << d.driver << "\", \"runtime\": \"" << d.runtime
      << "\", \"multiprocessors\": " << d.multiprocessors
      << ", \"memory_bytes\": " << d.total_memory << ", \"probe_gbps\": " << probe
      << "},\n  \"date\": \"" << date << "\",\n  \"commit\": \"" << commit
      << "\",\n  \"suite\": \"peers\",\n"
      << "  \"timing\": \"per run one CUDA graph launch (main kernel + split-KV combine) between "
         "two events; inputs rotated over copies > 4x L2; median of many runs\",\n"
      << "  \"results\": [\n"
      << js.str() << "\n  ]\n}\n";
  }
  return 0;
}
