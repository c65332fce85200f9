// `attnlab compare`: one case through the CPU float64 reference, the CPU float32 path and the
// GPU kernel on the same seeded inputs (app/cli/side_by_side.h): the errors against the truth,
// both timings, bytes, GB/s, the shares of the read probe and of the roofline, and the MI355X
// projection. Without a GPU the GPU column is the recording of the same shape, labelled.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <string>

#include "app/cli/cli_internal.h"
#include "app/cli/side_by_side.h"
#include "attention/error.h"
#include "attention/roofline.h"
#include "attention/units.h"

namespace app::cli {
namespace {

using attn::InputError;

// The datasheet of the GPU a side ran on ("NVIDIA H200" -> H200), or nullptr.
const attn::GpuSpec* spec_of(const std::string& device) {
  const attn::GpuSpec* best = nullptr;
  for (const attn::GpuSpec& g : attn::gpu_specs())
    if (device.find(g.name) != std::string::npos && (!best || g.name.size() > best->name.size()))
      best = &g;
  return best;
}

std::string us(double v) { return v > 0 ? format("%.1f", v) : "-"; }

std::string element(const SideBySide& r, std::int64_t i) {
  if (i < 0 || r.dims <= 0) return "-";
  return format("head %lld, dim %lld", static_cast<long long>(i / r.dims),
                static_cast<long long>(i % r.dims));
}

std::string side_error(const SideBySide& r, const SideResult& s, const Tolerance& t) {
  if (!s.present) return "-";
  if (s.recorded) return format("%.2e (its own check)", s.max_abs_err);
  return format("%.2e at %s; %s (rtol %g, atol %g)", s.max_abs_err,
                element(r, s.worst_index).c_str(), s.within_tolerance ? "within" : "OUT OF", t.rtol,
                t.atol);
}

std::string table(const SideBySide& r) {
  const kern::BenchCase& c = r.c;
  std::string out =
      format("compare: %s, GPU storage %s, seed %llu (inputs uniform in [-1, 1))\n",
             bench_case_text(c).c_str(), std::string(attn::dtype_name(c.dtype)).c_str(),
             static_cast<unsigned long long>(r.seed));
  const SideResult& a = r.cpu;
  const SideResult& g = r.gpu;
  const auto row = [&](const char* name, const std::string& x, const std::string& y) {
    out += format("  %-16s %-44s %s\n", name, x.c_str(), y.c_str());
  };
  row("", "CPU (threaded, fp32)", "GPU (" + g.dtype + ")");
  row("device", a.device, g.present ? (g.recorded ? g.provenance : g.device) : "none: " + g.reason);
  row("median us", us(a.median_us), us(g.median_us) + (g.recorded ? " (recorded)" : ""));
  row("in graph us", "-", us(g.step_us));
  row("GB/s", format("%.1f", a.gbps), g.present ? format("%.1f", g.gbps) : "-");
  const auto share = [](const SideResult& s) {
    return s.probe_gbps > 0 ? format("%.0f%%", 100.0 * s.gbps / s.probe_gbps) : std::string("-");
  };
  row("of read probe", share(a), share(g));
  row("max abs error", side_error(r, a, tolerance_of(attn::DType::kFp32)), side_error(r, g, r.tol));
  out += format("  bytes moved by one step: %s (KV %s)\n", attn::format_bytes(r.bytes).c_str(),
                attn::format_bytes(static_cast<double>(c.kv_bytes())).c_str());
  // Roofline projections: the measured GPU's (with the share of it reached) and the MI355X's.
  const attn::LayerShape layer = c.layer_shape();
  if (const attn::GpuSpec* s = g.present ? spec_of(g.device) : nullptr) {
    const attn::RooflineProjection p = attn::project_decode(layer, c.batch, c.seq, c.dtype, *s);
    out += format("  roofline of the %s: %s projected; measured reaches %.0f%% of it\n",
                  s->name.c_str(), attn::format_duration_us(p.time_s * 1e6).c_str(),
                  g.median_us > 0 ? 100.0 * p.time_s * 1e6 / g.median_us : 0.0);
  }
  if (const attn::GpuSpec* m = attn::find_gpu("MI355X")) {
    const attn::RooflineProjection p = attn::project_decode(layer, c.batch, c.seq, c.dtype, *m);
    out += format("  MI355X: %s, a roofline projection from its datasheet (not measured)\n",
                  attn::format_duration_us(p.time_s * 1e6).c_str());
  }
  if (!g.reason.empty() && g.present) out += "  GPU side: " + g.reason + "\n";
  return out;
}

}  // namespace

void CompareCommand::add(CLI::App& root) {
  sub = root.add_subcommand(
      "compare",
      "One case through the CPU float64 reference, the CPU float32 path and the GPU kernel on\n"
      "the same seeded inputs: each output against the truth (max error and where), both\n"
      "timings, GB/s, the share of the read probe and of the roofline, the MI355X projection.\n"
      "Without a GPU the GPU side is the recording of the same shape in assets/results/.");
  shape.add(sub, "mha, mqa, gqa, swa or mla");
  sub->add_option("--dtype", dtype, "GPU storage: bf16 (default), fp16, fp8 or mxfp4 (mla only)")
      ->type_name("DT");
  sub->add_option("--device", device,
                  "auto (default: the GPU when there is one, else its recording), gpu (fail "
                  "without one) or cpu")
      ->type_name("auto|gpu|cpu");
  sub->add_option("--seed", seed, "Seed of the inputs (default: from the clock, printed)")
      ->type_name("N");
  json_opt = sub->add_option("--json", json,
                             "Print the result as JSON on stdout and nothing else there, or "
                             "write it to FILE")
                 ->expected(0, 1)
                 ->type_name("[FILE|-]");
  sub->add_option("--threads", threads, "CPU threads (default all)")->type_name("N");
  sub->add_option("--min-runs", min_runs, "Timed runs per side, at least (default 10)")
      ->type_name("N");
  sub->add_option("--min-seconds", min_seconds, "Timed seconds per side, at least (default 0.2)")
      ->type_name("X");
}

int CompareCommand::run() {
  auto given = [&](const char* flag) { return sub->count(flag) > 0; };
  if (!given("--variant")) throw InputError("compare: needs --variant V (and the case's shape)");
  kern::BenchCase c = shape.parse(sub);
  c.dtype = given("--dtype") ? parse_dtype_flag("--dtype", dtype, true) : attn::DType::kBf16;
  if (c.dtype == attn::DType::kFp32)
    throw InputError("--dtype fp32: the GPU side stores bf16, fp16, fp8 or mxfp4 (mla)");
  c.label = "compare: " + bench_case_text(c);
  c.validate();
  SideBySideOptions opt;
  if (given("--device") && device != "auto" && device != "gpu" && device != "cpu")
    throw InputError("--device: expected auto, gpu or cpu, found '" + device + "'");
  const bool require_gpu = given("--device") && device == "gpu";
  opt.gpu = !(given("--device") && device == "cpu");
  if (given("--seed"))
    opt.seed = static_cast<std::uint64_t>(parse_int("--seed", seed, 1, 0xffffffffLL));
  if (given("--threads"))
    opt.cpu_threads = static_cast<int>(parse_int("--threads", threads, 1, 4096));
  if (given("--min-runs"))
    opt.min_runs = static_cast<int>(parse_int("--min-runs", min_runs, 1, 100000));
  if (given("--min-seconds")) {
    opt.min_seconds = parse_positive("--min-seconds", min_seconds);
    if (opt.min_seconds > 3600)
      throw InputError("--min-seconds: at most 3600, found " + min_seconds);
  }
  const std::string target = json_opt->count() ? (json.empty() ? "-" : json) : "";
  check_output_target("--json", target);
  g_using_gpu = opt.gpu;
  const SideBySide r = run_side_by_side(c, opt, require_gpu);
  if (!target.empty()) emit_text(target, side_by_side_json(r));
  if (target.empty() || target != "-") emit_text("-", table(r));
  // A GPU output out of tolerance (or NaN) is a failed comparison: exit 3 after the report.
  if (r.gpu.present && !r.gpu.recorded && !r.gpu.within_tolerance)
    throw attn::DeviceError("compare: the GPU output is out of tolerance (max abs error " +
                            format("%.3g", r.gpu.max_abs_err) + ")");
  return 0;
}

}  // namespace app::cli
