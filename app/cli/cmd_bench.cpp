// `attnlab bench`: one case from flags or a suite, on the CPU (the threaded float reference)
// or the GPU (the kernels), by the method of docs/DESIGN.md section 5; --json prints the report.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/cli_internal.h"
#include "attention/config.h"
#include "attention/error.h"
#include "attention/roofline.h"
#include "kernels/bench.h"

namespace app::cli {
namespace {

using attn::InputError;

std::string case_text(const kern::BenchCase& c) {
  if (c.variant == attn::Variant::kMla)
    return format("mla B%lld S%lld H%d Dl%d Dr%d", static_cast<long long>(c.batch),
                  static_cast<long long>(c.seq), c.q_heads, c.latent_dim, c.rope_dim);
  std::string s =
      format("%s B%lld S%lld Hq%d Hkv%d D%d", std::string(attn::variant_name(c.variant)).c_str(),
             static_cast<long long>(c.batch), static_cast<long long>(c.seq), c.q_heads, c.kv_heads,
             c.head_dim);
  if (c.window > 0) s += format(" W%d", c.window);
  return s;
}

bool same_shape(const kern::BenchCase& a, const kern::BenchCase& b) {
  return a.variant == b.variant && a.batch == b.batch && a.seq == b.seq && a.q_heads == b.q_heads &&
         a.kv_heads == b.kv_heads && a.head_dim == b.head_dim && a.window == b.window &&
         a.latent_dim == b.latent_dim && a.rope_dim == b.rope_dim && a.scale == b.scale &&
         a.dtype == b.dtype;
}

std::string report_table(const kern::BenchReport& rep) {
  const auto& d = rep.device;
  std::string out = format(
      "%s: %s (%s%s), streaming read %.1f GB/s measured in this run\n", d.kind.c_str(),
      d.name.c_str(), d.kind == "cpu" ? format("%d threads", d.threads).c_str() : d.runtime.c_str(),
      d.kind == "cpu" ? "" : format(", %d multiprocessors", d.multiprocessors).c_str(),
      d.probe_gbps);
  // AMD's suite: the MI355X roofline projection of each case beside it, the geometric mean last.
  const bool amd = rep.suite == "amd-mla";
  const attn::GpuSpec* mi = amd ? attn::find_gpu("MI355X") : nullptr;
  const auto mi_us = [&](const kern::BenchCase& c) {
    return mi ? attn::project_decode(c.layer_shape(), c.batch, c.seq, c.dtype, *mi).time_s * 1e6
              : 0.0;
  };
  out += format("%-38s %-5s %10s %10s %10s %6s %10s %8s %6s %9s %9s%s\n", "case", "dtype",
                "median us", "min us", "max us", "runs", "in graph", "GB/s", "probe", "max err",
                "peer us", mi ? "  MI355X proj us" : "");
  double log_sum = 0, mi_log_sum = 0;
  int timed = 0;
  for (const auto& r : rep.results) {
    const std::string name = case_text(r.c);
    const std::string dt(attn::dtype_name(r.c.dtype));
    if (!r.error.empty()) {
      out += format("%-38s %-5s failed: %s\n", name.c_str(), dt.c_str(), r.error.c_str());
      continue;
    }
    const double frac = r.probe_gbps > 0 ? 100.0 * r.gbps / r.probe_gbps : 0;
    out += format("%-38s %-5s %10.1f %10.1f %10.1f %6d %10s %8.1f %5.0f%% %9.2e %9s%s\n",
                  name.c_str(), dt.c_str(), r.median_us, r.min_us, r.max_us, r.runs,
                  r.has_step() ? format("%.1f", r.step_us).c_str() : "-", r.gbps, frac,
                  r.max_abs_err, r.c.peer_us > 0 ? format("%.1f", r.c.peer_us).c_str() : "-",
                  mi ? format("  %13.1f", mi_us(r.c)).c_str() : "");
    if (r.median_us > 0) {
      log_sum += std::log(r.median_us);
      mi_log_sum += mi ? std::log(mi_us(r.c)) : 0.0;
      ++timed;
    }
  }
  if (amd && timed > 0) {
    out += format(
        "geometric mean of the %d timed cases: %.1f us (AMD ranks by the geometric mean of all "
        "%d); MI355X roofline projection of the same cases: %.1f us (a projection from the "
        "datasheet, not a measurement). No published AITER times are recorded in attnlab, so "
        "none are shown.\n",
        timed, std::exp(log_sum / timed), 36, mi ? std::exp(mi_log_sum / timed) : 0.0);
  }
  out += format(
      "date %s, commit %s, suite %s; every result was checked against the float64 "
      "reference before timing; \"in graph\" is one step of many run back to back in one "
      "graph (GPU)",
      rep.date.c_str(), rep.commit.c_str(), rep.suite.c_str());
  // Where the published peers were timed.
  std::string peer_gpus;
  for (const auto& r : rep.results) {
    const std::string gpu = r.c.peer_gpu();
    if (gpu.empty()) continue;
    if (("/" + peer_gpus + "/").find("/" + gpu + "/") == std::string::npos)
      peer_gpus += (peer_gpus.empty() ? "" : "/") + gpu;
  }
  if (!peer_gpus.empty()) out += "; \"peer us\": published times of other kernels, on " + peer_gpus;
  return out;
}

}  // namespace

std::string bench_case_text(const kern::BenchCase& c) { return case_text(c); }

void CaseFlags::add(CLI::App* sub, const char* variant_help) {
  sub->add_option("--variant", variant, variant_help)->type_name("V");
  sub->add_option("--batch", batch, "B (default 1)")->type_name("B");
  sub->add_option("--seq", seq, "S (default 4096)")->type_name("S");
  sub->add_option("--q-heads", q_heads, "Hq (default 32, mla 16)")->type_name("Hq");
  sub->add_option("--kv-heads", kv_heads, "Hkv (default 8; mha Hq, mqa and mla 1)")
      ->type_name("Hkv");
  sub->add_option("--head-dim", head_dim, "D (default 128; mla Dl + Dr)")->type_name("D");
  sub->add_option("--window", window, "W (swa)")->type_name("W");
  sub->add_option("--latent-dim", latent_dim, "Dl (mla, default 512)")->type_name("Dl");
  sub->add_option("--rope-dim", rope_dim, "Dr (mla, default 64)")->type_name("Dr");
  sub->add_option("--scale", scale, "Softmax scale (default 1/sqrt(D), mla 1/sqrt(Dl+Dr))")
      ->type_name("X");
}

attn::Variant CaseFlags::variant_of() const {
  const auto v = attn::parse_variant(variant);
  if (!v)
    throw InputError("--variant: expected one of mha, mqa, gqa, swa, mla, found '" + variant + "'");
  return *v;
}

kern::BenchCase CaseFlags::parse(CLI::App* sub) const {
  auto given = [&](const char* flag) { return sub->count(flag) > 0; };
  using L = attn::Limits;
  kern::BenchCase c;
  c.variant = variant_of();
  const bool mla = c.variant == attn::Variant::kMla;
  if (given("--batch")) c.batch = parse_int("--batch", batch, 1, L::kMaxBatch);
  if (given("--seq")) c.seq = parse_int("--seq", seq, 1, L::kMaxSeq);
  c.q_heads = mla ? 16 : 32;
  if (given("--q-heads"))
    c.q_heads = static_cast<int>(parse_int("--q-heads", q_heads, 1, L::kMaxHeads));
  c.kv_heads = c.variant == attn::Variant::kMha            ? c.q_heads
               : (c.variant == attn::Variant::kMqa || mla) ? 1
                                                           : 8;
  if (given("--kv-heads"))
    c.kv_heads = static_cast<int>(parse_int("--kv-heads", kv_heads, 1, L::kMaxHeads));
  if (given("--window")) c.window = static_cast<int>(parse_int("--window", window, 1, L::kMaxSeq));
  if (mla) {
    c.latent_dim = 512;
    c.rope_dim = 64;
    if (given("--latent-dim"))
      c.latent_dim = static_cast<int>(parse_int("--latent-dim", latent_dim, 1, L::kMaxHeadDim));
    if (given("--rope-dim"))
      c.rope_dim = static_cast<int>(parse_int("--rope-dim", rope_dim, 0, L::kMaxHeadDim));
    c.head_dim = c.latent_dim + c.rope_dim;
  } else {
    if (given("--latent-dim") || given("--rope-dim"))
      throw InputError("--latent-dim/--rope-dim: only used by --variant mla");
  }
  if (given("--head-dim"))
    c.head_dim = static_cast<int>(parse_int("--head-dim", head_dim, 1, 2 * L::kMaxHeadDim));
  if (given("--scale")) c.scale = parse_positive("--scale", scale);
  return c;
}

void BenchCommand::add(CLI::App& root) {
  sub = root.add_subcommand(
      "bench",
      "Benchmark decode attention: one case from flags, or --suite NAME (peers, amd-mixed-mla,\n"
      "amd-mla, sweep, worklog).\n"
      "Checks against the CPU reference, warms up, rotates inputs past the caches, reports the\n"
      "median (min, max) of many runs and GB/s beside a streaming-read probe of the same run.");
  shape.add(sub, "mha, mqa, gqa, swa or mla (a filter with --suite)");
  sub->add_option("--device", device, "cpu (default) or gpu")->type_name("cpu|gpu");
  sub->add_option("--dtype", dtype, "gpu: bf16 (default), fp16, fp8, mxfp4 (mla); cpu: fp32")
      ->type_name("DT");
  sub->add_option("--suite", suite, "peers, amd-mixed-mla, amd-mla, sweep or worklog")
      ->type_name("NAME");
  json_opt = sub->add_option("--json", json,
                             "Print the report as JSON on stdout and nothing else there, or "
                             "write it to FILE")
                 ->expected(0, 1)
                 ->type_name("[FILE|-]");
  sub->add_option("--threads", threads, "cpu: threads (default all)")->type_name("N");
  sub->add_option("--min-runs", min_runs, "Timed runs per case, at least (default 10)")
      ->type_name("N");
  sub->add_option("--min-seconds", min_seconds, "Timed seconds per case, at least (default 0.2)")
      ->type_name("X");
}

int BenchCommand::run() {
  auto given = [&](const char* flag) { return sub->count(flag) > 0; };
  if (given("--device") && device != "cpu" && device != "gpu")
    throw InputError("--device: expected cpu or gpu, found '" + device + "'");
  const bool gpu = given("--device") && device == "gpu";
  attn::DType dt = gpu ? attn::DType::kBf16 : attn::DType::kFp32;
  if (given("--dtype")) {
    dt = parse_dtype_flag("--dtype", dtype, true);
    if (gpu && dt == attn::DType::kFp32)
      throw InputError(
          "--dtype fp32: the GPU kernels take bf16, fp16, fp8 or mxfp4 (mla) (--device gpu)");
    if (!gpu && dt != attn::DType::kFp32)
      throw InputError("--dtype " + dtype +
                       ": the CPU benchmark runs the float32 reference; "
                       "bf16, fp16, fp8 and mxfp4 need --device gpu");
  }
  std::optional<attn::Variant> var;
  if (given("--variant")) var = shape.variant_of();

  kern::BenchOptions opt;
  opt.device = gpu ? kern::BenchDevice::kGpu : kern::BenchDevice::kCpu;
  if (given("--threads")) opt.threads = static_cast<int>(parse_int("--threads", threads, 1, 4096));
  if (given("--min-runs"))
    opt.min_runs = static_cast<int>(parse_int("--min-runs", min_runs, 1, 100000));
  if (given("--min-seconds")) {
    opt.min_seconds = parse_positive("--min-seconds", min_seconds);
    if (opt.min_seconds > 3600)
      throw InputError("--min-seconds: at most 3600, found " + min_seconds);
  }

  std::vector<kern::BenchCase> cases;
  const char* shape_flags[] = {"--batch",  "--seq",        "--q-heads",  "--kv-heads", "--head-dim",
                               "--window", "--latent-dim", "--rope-dim", "--scale"};
  if (given("--suite")) {
    for (const char* f : shape_flags)
      if (given(f))
        throw InputError(std::string(f) + ": not used with --suite (the suite sets the shapes)");
    for (kern::BenchCase c : kern::suite_cases(suite)) {  // throws for an unknown suite
      if (var && c.variant != *var) continue;
      if (!gpu)
        c.dtype = attn::DType::kFp32;
      else if (given("--dtype"))
        c.dtype = dt;
      // The same shape twice (a suite's bf16 and fp8 rows on the CPU) is run once.
      const bool dup = std::any_of(cases.begin(), cases.end(),
                                   [&](const kern::BenchCase& o) { return same_shape(o, c); });
      if (!dup) cases.push_back(c);
    }
    if (cases.empty())
      throw InputError("--variant " + shape.variant + ": suite " + suite + " has no such case");
    opt.suite = suite;
  } else {
    if (!var) throw InputError("bench: needs --variant V or --suite NAME");
    kern::BenchCase c = shape.parse(sub);
    c.dtype = dt;
    c.label = "single: " + case_text(c);
    c.validate();
    cases.push_back(c);
    opt.suite = "single";
  }

  const std::string target = json_opt->count() ? (json.empty() ? "-" : json) : "";
  check_output_target("--json", target);  // before a benchmark that may run for minutes
  g_using_gpu = gpu;
  if (isatty(STDERR_FILENO)) {
    opt.progress = [](int i, int n, const kern::BenchCase& c) {
      std::fprintf(stderr, "[%d/%d] %s\n", i + 1, n, c.label.c_str());
    };
  }
  const kern::BenchReport rep = kern::run_bench(cases, opt);

  int failed = 0;
  const kern::BenchResult* first_failure = nullptr;
  for (const auto& r : rep.results) {
    if (!r.error.empty()) {
      ++failed;
      if (!first_failure) first_failure = &r;
    }
  }
  if (failed > 0 && failed == static_cast<int>(rep.results.size())) {
    const std::string msg =
        (rep.results.size() == 1 ? case_text(first_failure->c)
                                 : format("all %d cases failed; first %s", failed,
                                          case_text(first_failure->c).c_str())) +
        ": " + first_failure->error;
    if (gpu) throw attn::DeviceError(msg);
    throw InputError(msg);
  }

  if (!target.empty()) emit_text(target, kern::bench_report_json(rep));
  if (target.empty() || target != "-") emit_text("-", report_table(rep));
  if (failed > 0) {
    std::fprintf(stderr, "attnlab: warning: %d of %zu cases failed (first: %s: %s)\n", failed,
                 rep.results.size(), case_text(first_failure->c).c_str(),
                 first_failure->error.c_str());
  }
  return 0;
}

}  // namespace app::cli
