#include "app/latency_side_by_side.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/bench_cases.h"
#include "app/job_runner.h"
#include "app/latency_tables.h"
#include "attention/roofline.h"
#include "attention/units.h"
#include "visuals/heatmap.h"
#include "visuals/widgets.h"

namespace app {
namespace {

std::string sci(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2e", v);
  return b;
}

std::string us(double v) { return v > 0 ? attn::format_duration_us(v) : "-"; }

std::string legend_label(double v) { return v == 0 ? "0" : sci(v); }

constexpr int kMaxCells = 64;  // cells a side the maps show; larger outputs are block means

// How many of n values one shown cell averages (vis::draw_heatmap's blocks): "2", or "1-2"
// where n does not divide evenly.
std::string block_span(int n) {
  const int cells = vis::heatmap_cells(n, kMaxCells);
  const int lo = n / cells, hi = (n + cells - 1) / cells;
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
}

void heatmap(const char* id, const char* title, const char* value_name,
             const std::vector<double>& v, int rows, int cols, double lo, double hi, float w,
             float h) {
  ImGui::BeginGroup();
  ImGui::TextUnformatted(title);
  vis::HeatmapSpec s;
  s.rows = rows;
  s.cols = cols;
  s.values = v.data();
  s.lo = lo;
  s.hi = hi;
  s.value_name = value_name;
  s.row_name = "head";
  s.col_name = "dim";
  s.max_cells = kMaxCells;
  vis::draw_heatmap(id, s, ImVec2(w, h));
  ImGui::EndGroup();
}

void timings(const SideBySide& r) {
  const SideResult& a = r.cpu;
  const SideResult& g = r.gpu;
  if (!ImGui::BeginTable("##sbs_times", 3,
                         ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit))
    return;
  ImGui::TableSetupColumn("");
  ImGui::TableSetupColumn(("CPU (" + a.dtype + ")").c_str());
  ImGui::TableSetupColumn(("GPU (" + g.dtype + (g.recorded ? ", recorded)" : ")")).c_str());
  ImGui::TableHeadersRow();
  const auto row = [](const char* name, const std::string& x, const std::string& y) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", name);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(x.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(y.c_str());
  };
  row("device", a.device, g.present ? (g.recorded ? g.provenance : g.device) : "none");
  row("median", us(a.median_us), us(g.median_us));
  row("one step in a graph", "-", us(g.step_us));
  row("bytes moved", attn::format_bytes(r.bytes), attn::format_bytes(r.bytes));
  row("GB/s", a.gbps > 0 ? attn::format_bandwidth(a.gbps * 1e9) : "-",
      g.gbps > 0 ? attn::format_bandwidth(g.gbps * 1e9) : "-");
  const auto share = [](const SideResult& s) {
    return s.probe_gbps > 0
               ? std::to_string(static_cast<int>(std::lround(100 * s.gbps / s.probe_gbps))) + "%"
               : std::string("-");
  };
  row("of the read probe", share(a), share(g));
  const attn::LayerShape layer = r.c.layer_shape();
  if (const attn::GpuSpec* s = g.present ? gpu_spec_for_device(g.device) : nullptr) {
    const attn::RooflineProjection p =
        attn::project_decode(layer, r.c.batch, r.c.seq, r.c.dtype, *s);
    row("of the roofline", "-",
        g.median_us > 0
            ? std::to_string(static_cast<int>(std::lround(100 * p.time_s * 1e6 / g.median_us))) +
                  "% of " + s->name + "'s " + us(p.time_s * 1e6)
            : "-");
  }
  if (const attn::GpuSpec* m = attn::find_gpu("MI355X")) {
    const attn::RooflineProjection p =
        attn::project_decode(layer, r.c.batch, r.c.seq, r.c.dtype, *m);
    row("MI355X", "-", us(p.time_s * 1e6) + " (roofline projection, not measured)");
  }
  ImGui::EndTable();
}

}  // namespace

void draw_side_by_side_result(const SideBySide& r, float width) {
  ImGui::Text("%s, seed %llu; outputs of sequence 0, %d heads x %d dims", case_label(r.c).c_str(),
              static_cast<unsigned long long>(r.seed), r.heads, r.dims);
  // The compared output: the GPU's when it ran here, else the CPU's float32.
  const bool gpu_here = r.gpu.present && !r.gpu.recorded && !r.gpu.out.empty();
  const SideResult& side = gpu_here ? r.gpu : r.cpu;
  const Tolerance tol = gpu_here ? r.tol : tolerance_of(attn::DType::kFp32);
  std::vector<double> out(side.out.begin(), side.out.end()), diff(r.reference.size());
  double lo = 0, hi = 0, dmax = 0;
  for (size_t i = 0; i < r.reference.size(); ++i) {
    lo = std::min(lo, r.reference[i]);
    hi = std::max(hi, r.reference[i]);
    diff[i] = i < out.size() ? std::fabs(out[i] - r.reference[i]) : 0.0;
    dmax = std::max(dmax, diff[i]);
  }
  // Both outputs on one colour scale (its bar after the second), the difference on its own.
  const float legend_w = ImGui::CalcTextSize("-0.00e+00").x + 30;
  const float w = std::max(120.0f, (width - 60 - 2 * legend_w) / 3);
  const float h = std::min(w * 0.6f, ImGui::GetFontSize() * 14);
  const float legend_h = h + ImGui::GetTextLineHeightWithSpacing();
  heatmap("##ref", "CPU reference, float64", "out", r.reference, r.heads, r.dims, lo, hi, w, h);
  ImGui::SameLine();
  const std::string t2 = gpu_here ? "GPU kernel, " + r.gpu.dtype : "CPU, float32 (no GPU run here)";
  heatmap("##out", t2.c_str(), "out", out, r.heads, r.dims, lo, hi, w, h);
  ImGui::SameLine();
  vis::draw_heat_legend("##leg_out", lo, hi, "out", &legend_label, ImVec2(legend_w, legend_h),
                        false);
  ImGui::SameLine();
  heatmap("##diff", "|difference|", "|diff|", diff, r.heads, r.dims, 0, std::max(dmax, 1e-30), w,
          h);
  ImGui::SameLine();
  vis::draw_heat_legend("##leg_diff", 0, std::max(dmax, 1e-30), "|diff|", &legend_label,
                        ImVec2(legend_w, legend_h), false);
  if (r.heads > kMaxCells || r.dims > kMaxCells)
    ImGui::TextDisabled("Each cell is the mean of %s heads x %s dims; hover a map for one value.",
                        block_span(r.heads).c_str(), block_span(r.dims).c_str());
  if (side.worst_index >= 0) {
    const long long i = side.worst_index;
    const std::string verdict = side.within_tolerance ? "within" : "OUT OF";
    const std::string line = "max |error| " + sci(side.max_abs_err) + " at head " +
                             std::to_string(i / std::max(1, r.dims)) + ", dim " +
                             std::to_string(i % std::max(1, r.dims)) + ": " + verdict +
                             " tolerance (" + sci(tol.atol) + " + " + sci(tol.rtol) + " |ref|)";
    if (side.within_tolerance)
      ImGui::TextUnformatted(line.c_str());
    else
      vis::error_text(line);
  }
  if (!r.gpu.reason.empty()) ImGui::TextDisabled("GPU: %s", r.gpu.reason.c_str());
  timings(r);
}

void draw_side_by_side_tab(App& app) {
  LatencyState& st = app.latency;
  const bool busy = st.runner && st.runner->running();
  ImGui::BeginDisabled(busy);
  if (ImGui::Button("Run side by side")) start_side_by_side(app);
  ImGui::EndDisabled();
  ImGui::SameLine();
  vis::help_marker(
      "The model's layer at the model panel's B and S: seeded random q, K, V through the CPU "
      "float64 reference, the CPU float32 path and the GPU kernel in the GPU dtype chosen above; "
      "each output compared element by element, both timed. Without a GPU the GPU side is the "
      "recording of the same shape in assets/results/, labelled. `attnlab compare` does the "
      "same from the command line.");
  ImGui::SameLine();
  if (busy && st.side_by_side_running) {
    const JobProgress p = st.runner->progress();
    ImGui::TextDisabled("running %s, %.1f s", p.case_label.c_str(), p.elapsed_s);
  } else if (!st.job_error.empty()) {
    vis::error_text(st.job_error);
  }
  if (st.side_by_side) {
    draw_side_by_side_result(*st.side_by_side, ImGui::GetContentRegionAvail().x);
  } else {
    ImGui::TextWrapped("No side-by-side run yet.");
  }
  ImGui::Spacing();
  if (ImGui::CollapsingHeader("Newest CPU and GPU results of each shape (all result sets)"))
    latency_detail::draw_cpu_vs_gpu(st);
}

bool start_side_by_side(App& app) {
  LatencyState& st = app.latency;
  if (!st.runner) st.runner = std::make_shared<JobRunner>();
  if (st.runner->running()) {
    st.job_error = "a job is running; wait for it or cancel it";
    return false;
  }
  try {
    const int layers = std::max(1, app.model.num_layers);
    st.layer = std::clamp(st.layer, 0, layers - 1);
    kern::BenchCase c = kern::BenchCase::from_model(app.model, st.layer, app.batch, app.seq,
                                                    latency_detail::gpu_dtype_of(st.gpu_dtype));
    c.validate();
    SideBySideOptions opt;
    opt.cpu_threads = latency_cpu_threads(st);
    opt.min_runs = std::max(1, st.min_runs);
    opt.min_seconds = std::max(0.0, static_cast<double>(st.min_seconds));
    if (!st.runner->start_side_by_side(c, opt, "side by side: " + case_label(c))) return false;
  } catch (const std::exception& e) {
    st.job_error = std::string("side by side: ") + e.what();
    post_message(app, "latency: " + st.job_error);
    return false;
  }
  st.side_by_side_running = true;
  st.job_error.clear();
  st.job_note.clear();
  return true;
}

}  // namespace app
