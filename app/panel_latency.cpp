// The latency panel (--panel latency): run decode benchmarks from the UI in the background job
// (the same kern::run_bench as `attnlab bench`), show the results as a table, CPU against GPU,
// plots against S and B, and a roofline of the chosen GPU with the measured points on it.
// MI355X times are roofline projections and are labelled so everywhere.
//
// [SECTION] Helpers
// [SECTION] Run controls (workload, device, progress, cancel)
// [SECTION] Result sets (choice, provenance, import, export)
// (the tables are in latency_tables.cpp)
// [SECTION] Plots against S and B
// [SECTION] Roofline
// [SECTION] The panel
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <thread>

#include <imgui.h>

#include "app/bench_cases.h"
#include "app/enum_widgets.h"
#include "app/job_runner.h"
#include "app/latency_results.h"
#include "app/latency_side_by_side.h"
#include "app/latency_tables.h"
#include "app/panels.h"
#include "attention/npy.h"
#include "attention/roofline.h"
#include "visuals/plot.h"
#include "visuals/roofline.h"
#include "attention/units.h"
#include "visuals/widgets.h"

namespace app {
namespace latency_detail {

const char* const kWorkloads[] = {"the model's layer", "sweep", "peers", "amd-mixed-mla",
                                  "amd-mla"};
const attn::DType kGpuDtypes[] = {attn::DType::kBf16, attn::DType::kFp16, attn::DType::kFp8};
const char* const kGpuDtypeNames[] = {"bf16", "fp16", "fp8"};
const char* const kProjectedGpu = "MI355X";

std::string us_text(double us) { return us > 0 ? attn::format_duration_us(us) : "-"; }

// The name of a workload as the combo shows it (and, past the first, the suite's name).
const char* workload_name(Workload w) { return kWorkloads[static_cast<int>(w)]; }

// The cases of the chosen workload; `error` explains why there are none.
std::vector<kern::BenchCase> workload_cases(App& app, std::string* error) {
  LatencyState& st = app.latency;
  const attn::DType dt =
      st.device == BenchTarget::kGpu ? gpu_dtype_of(st.gpu_dtype) : attn::DType::kFp32;
  try {
    if (st.workload == Workload::kModelLayer) {
      const int layers = std::max(1, app.model.num_layers);
      st.layer = std::clamp(st.layer, 0, layers - 1);
      return {kern::BenchCase::from_model(app.model, st.layer, app.batch, app.seq, dt)};
    }
    // Suites keep their own dtypes on the GPU (amd-mixed-mla mixes bf16 and fp8). The CPU runs
    // float32 whatever the storage, so a shape is timed there once (as `attnlab bench` does).
    std::vector<kern::BenchCase> cases = kern::suite_cases(workload_name(st.workload));
    if (st.device == BenchTarget::kCpu) {
      std::vector<kern::BenchCase> unique;
      std::set<std::string> seen;
      for (kern::BenchCase c : cases) {
        c.dtype = attn::DType::kFp32;
        if (seen.insert(shape_key(c)).second) unique.push_back(c);
      }
      cases = unique;
    }
    return cases;
  } catch (const std::exception& e) {
    *error = e.what();
    return {};
  }
}

}  // namespace latency_detail

namespace {

using namespace latency_detail;

// ---- [SECTION] Helpers ---------------------------------------------------------------------

JobRunner& runner(LatencyState& st) {
  if (!st.runner) st.runner = std::make_shared<JobRunner>();
  return *st.runner;
}

const char* origin_name(ResultSet::Origin o) {
  switch (o) {
    case ResultSet::Origin::kRun:
      return "run here";
    case ResultSet::Origin::kRecorded:
      return "recorded";
    case ResultSet::Origin::kImported:
      return "imported";
  }
  return "";
}

int selected_index(const LatencyState& st) {
  if (st.sets.empty()) return -1;
  if (st.selected < 0 || st.selected >= static_cast<int>(st.sets.size()))
    return static_cast<int>(st.sets.size()) - 1;
  return st.selected;
}

// ---- [SECTION] Run controls ----------------------------------------------------------------

void start_job(App& app) {
  LatencyState& st = app.latency;
  std::string error;
  std::vector<kern::BenchCase> cases = workload_cases(app, &error);
  if (cases.empty()) {
    st.job_error = error.empty() ? "no cases to run" : error;
    return;
  }
  kern::BenchOptions opt;
  opt.device = st.device == BenchTarget::kGpu ? kern::BenchDevice::kGpu : kern::BenchDevice::kCpu;
  opt.threads = latency_cpu_threads(st);
  opt.suite = st.workload == Workload::kModelLayer ? std::string()
                                                   : std::string(workload_name(st.workload));
  opt.min_runs = std::max(1, st.min_runs);
  opt.min_seconds = std::max(0.0, static_cast<double>(st.min_seconds));
  const std::string title = std::string(workload_name(st.workload)) + " on " +
                            (st.device == BenchTarget::kGpu ? "gpu" : "cpu");
  if (runner(st).start(std::move(cases), opt, title)) {
    st.job_error.clear();
    st.job_note.clear();
  }
}

// Takes a finished job's outcome into the result sets (called every frame; never waits).
void collect_outcome(App& app) {
  LatencyState& st = app.latency;
  if (!st.runner) return;
  std::optional<JobOutcome> o = st.runner->take_outcome();
  if (!o) return;
  st.side_by_side_running = false;
  if (o->state == JobState::kDone && o->side_by_side) {
    st.side_by_side = o->side_by_side;
    st.job_note = "side by side finished in " + attn::format_duration_us(o->elapsed_s * 1e6);
    st.open_tab = LatencyTab::kSideBySide;
    return;
  }
  if (o->state == JobState::kFailed) {
    st.job_error = "The benchmark failed: " + o->error;
    post_message(app, "latency: " + st.job_error);
    return;
  }
  if (o->state == JobState::kCancelled)
    st.job_note = "cancelled after " + std::to_string(o->report.results.size()) + " case(s)";
  else
    st.job_note = "finished in " + attn::format_duration_us(o->elapsed_s * 1e6);
  if (o->report.results.empty()) return;
  ResultSet s;
  s.origin = ResultSet::Origin::kRun;
  s.name = "run " + std::to_string(++st.runs_started) + ": " + o->title;
  s.report = std::move(o->report);
  st.sets.push_back(std::move(s));
  st.selected = static_cast<int>(st.sets.size()) - 1;
}

void draw_run_controls(App& app) {
  LatencyState& st = app.latency;
  const bool busy = st.runner && st.runner->running();
  ImGui::BeginDisabled(busy);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
  enum_combo("workload", &st.workload, kWorkloads, IM_ARRAYSIZE(kWorkloads));
  ImGui::SameLine();
  vis::help_marker(
      "The model's layer: one case with the model panel's shape at the chosen B and S. "
      "sweep / peers / amd-mixed-mla / amd-mla: the suites of `attnlab bench --suite NAME` "
      "(the same cases, the same harness).");
  if (st.workload == Workload::kModelLayer && app.model.num_layers > 1) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    ImGui::SliderInt("layer", &st.layer, 0, app.model.num_layers - 1);
  }
  enum_radio("CPU", &st.device, BenchTarget::kCpu);
  ImGui::SameLine();
  const bool gpu_ok = app.device.available;
  ImGui::BeginDisabled(!gpu_ok);
  enum_radio("GPU", &st.device, BenchTarget::kGpu);
  ImGui::EndDisabled();
  if (!gpu_ok) {
    if (st.device == BenchTarget::kGpu) st.device = BenchTarget::kCpu;
    ImGui::SameLine();
    ImGui::TextDisabled("GPU unavailable: %s",
                        app.device.reason.empty() ? "no GPU found" : app.device.reason.c_str());
  } else {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", app.device.name.c_str());
  }
  if (st.device == BenchTarget::kGpu && st.workload == Workload::kModelLayer) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
    enum_combo("KV dtype", &st.gpu_dtype, kGpuDtypeNames, IM_ARRAYSIZE(kGpuDtypeNames));
    ImGui::SameLine();
    vis::help_marker(
        "Storage of the cache on the GPU (fp8: e4m3 with one float32 scale, queries "
        "in bf16). The suites keep their own dtypes; the CPU always runs float32.");
  }
  if (ImGui::TreeNode("Method")) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    ImGui::InputInt("CPU threads (0 = all but one)", &st.cpu_threads);
    st.cpu_threads = std::clamp(st.cpu_threads, 0, 1024);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    ImGui::InputInt("min runs", &st.min_runs);
    st.min_runs = std::clamp(st.min_runs, 1, 100000);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    ImGui::SliderFloat("min seconds per case", &st.min_seconds, 0.0f, 2.0f, "%.2f");
    ImGui::TextWrapped(
        "Each case is checked against the CPU float64 reference first, warmed up, then timed "
        "many times (device events on the GPU); the median is shown with min and max. On the "
        "GPU each timed run is one decode step launched alone, and a second figure ('in a "
        "graph') times many steps back to back in one graph, as a model's decode graph runs "
        "them: the difference is the fixed cost of a lone launch, most of a small case.");
    ImGui::TextWrapped(
        "CPU runs started here use idle priority (SCHED_IDLE, nice 19) and by default all cores "
        "but one, so the window stays smooth: they lose the CPU time the explorer takes (about "
        "a core while it draws on a software renderer). For clean CPU figures run `attnlab "
        "bench --device cpu` with the explorer closed.");
    ImGui::TreePop();
  }
  ImGui::EndDisabled();

  std::string error;
  const std::vector<kern::BenchCase> preview =
      busy ? std::vector<kern::BenchCase>{} : workload_cases(app, &error);
  if (!busy) {
    if (ImGui::Button("Run")) start_job(app);
    ImGui::SameLine();
    if (!error.empty())
      vis::error_text(error);
    else if (preview.size() == 1)
      ImGui::TextDisabled("1 case: %s", case_label(preview[0]).c_str());
    else
      ImGui::TextDisabled("%zu cases", preview.size());
  } else {
    const JobProgress p = st.runner->progress();
    if (ImGui::Button(p.cancel_requested ? "Cancelling..." : "Cancel")) st.runner->cancel();
    ImGui::SameLine();
    const std::string overlay = "case " + std::to_string(p.index + 1) + " of " +
                                std::to_string(p.total) + " (" +
                                attn::format_duration_us(p.elapsed_s * 1e6) + ")";
    ImGui::ProgressBar(static_cast<float>(p.fraction()), ImVec2(-1, 0), overlay.c_str());
    ImGui::TextDisabled("running: %s", p.case_label.c_str());
  }
  if (!st.job_error.empty()) vis::error_text(st.job_error);
  if (!st.job_note.empty()) ImGui::TextDisabled("last job: %s", st.job_note.c_str());
}

// ---- [SECTION] Result sets -----------------------------------------------------------------

void draw_sets(LatencyState& st) {
  const int sel = selected_index(st);
  std::string preview = sel < 0 ? std::string("(no results yet)")
                                : st.sets[sel].name + " [" + origin_name(st.sets[sel].origin) + "]";
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 28);
  if (ImGui::BeginCombo("results", preview.c_str())) {
    for (int i = 0; i < static_cast<int>(st.sets.size()); ++i) {
      const std::string label = "#" + std::to_string(i + 1) + " " + st.sets[i].name + " [" +
                                origin_name(st.sets[i].origin) + "]##" + std::to_string(i);
      if (ImGui::Selectable(label.c_str(), i == sel)) st.selected = i;
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  vis::help_marker(
      "Runs made here, results recorded on other machines (assets/results/, shipped with "
      "attnlab) and files you import. Each shows where it was measured: device, driver, date "
      "and the commit of the build.");
  if (sel >= 0) ImGui::TextDisabled("%s", provenance_line(st.sets[sel].report).c_str());
  for (const std::string& e : st.recorded_errors) vis::error_text("recorded file skipped: " + e);

  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16);
  ImGui::InputText("##import", st.import_path, sizeof st.import_path);
  ImGui::SameLine();
  if (ImGui::Button("Import")) {
    try {
      ResultSet s;
      s.origin = ResultSet::Origin::kImported;
      s.name = st.import_path;
      s.report = read_results_file(st.import_path);
      st.io_message =
          "imported " + std::to_string(s.report.results.size()) + " result(s) from " + s.name;
      st.io_error = false;
      st.sets.push_back(std::move(s));
      st.selected = static_cast<int>(st.sets.size()) - 1;
    } catch (const std::exception& e) {
      st.io_message = e.what();
      st.io_error = true;
    }
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  ImGui::InputText("##export", st.export_path, sizeof st.export_path);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4);
  const char* formats[] = {"JSON", "CSV"};
  enum_combo("##format", &st.export_format, formats, 2);
  ImGui::SameLine();
  ImGui::BeginDisabled(sel < 0);
  if (ImGui::Button("Export")) {
    try {
      const kern::BenchReport& r = st.sets[sel].report;
      attn::write_file_atomic(st.export_path, st.export_format == ExportFormat::kJson
                                                  ? kern::bench_report_json(r)
                                                  : results_csv(r));
      st.io_message = "wrote " + std::string(st.export_path);
      st.io_error = false;
    } catch (const std::exception& e) {
      st.io_message = e.what();
      st.io_error = true;
    }
  }
  ImGui::EndDisabled();
  if (!st.io_message.empty()) {
    if (st.io_error)
      vis::error_text(st.io_message);
    else
      ImGui::TextDisabled("%s", st.io_message.c_str());
  }
}

// ---- [SECTION] Roofline --------------------------------------------------------------------

void draw_roofline(App& app, const ResultSet* set) {
  const auto& gpus = attn::gpu_specs();
  if (gpus.empty()) {
    vis::error_text("this build has no assets/gpus.json: no roofline");
    return;
  }
  const attn::GpuSpec* gpu = attn::find_gpu(app.gpu_name);
  if (!gpu) gpu = &gpus.front();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  if (ImGui::BeginCombo("GPU", gpu->full_name.c_str())) {
    for (const attn::GpuSpec& g : gpus)
      if (ImGui::Selectable(g.full_name.c_str(), &g == gpu)) app.gpu_name = g.name;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  vis::help_marker(gpu->source.c_str());
  const attn::DType dt = app.kv_dtype;
  ImGui::TextDisabled(
      "roof for %s KV: %s, %s/s, ridge %.0f FLOP/B", std::string(attn::dtype_name(dt)).c_str(),
      attn::format_bandwidth(gpu->bandwidth_bytes_per_s()).c_str(),
      attn::format_flops(gpu->matrix_flops_per_s(dt)).c_str(), gpu->ridge_intensity(dt));
  ImGui::SameLine();
  vis::help_marker(
      "A decode step reads the whole cache once and does 2 FLOPs per multiply-add: about G "
      "FLOPs per byte for bf16 GQA, far left of the ridge, so its floor is bytes / bandwidth. "
      "MLA's latent is shared by all H heads: with 128 heads it reaches the ridge. Measured "
      "points sit below the roof; the gap is how far the kernel is from the datasheet.");

  std::vector<vis::RooflinePoint> pts;
  double probe = 0;
  if (set) {  // say where the points were measured, and offer the matching roof
    const kern::BenchEnvironment& d = set->report.device;
    const attn::GpuSpec* measured_on = gpu_spec_for_device(d.name);
    if (d.kind == "cpu") {
      ImGui::TextDisabled(
          "points: measured on the CPU (%s); the dashed slope is its read "
          "bandwidth measured in the run",
          d.name.c_str());
    } else if (measured_on && measured_on != gpu) {
      ImGui::TextDisabled("points: measured on %s;", d.name.c_str());
      ImGui::SameLine();
      if (ImGui::SmallButton(("use the " + measured_on->name + " roof").c_str()))
        app.gpu_name = measured_on->name;
    }
  }
  if (set) {
    probe = set->report.device.probe_gbps * 1e9;
    const std::string series =
        "measured: " +
        (set->report.device.name.empty() ? set->report.device.kind : set->report.device.name);
    for (const kern::BenchResult& r : set->report.results) {
      if (!r.error.empty() || r.median_us <= 0) continue;
      try {
        const attn::DecodeCost c = case_cost(r.c, storage_dtype(r));
        pts.push_back({series, c.intensity(), c.flops / (r.median_us * 1e-6), false});
      } catch (const std::exception&) {
      }
    }
  }
  try {  // where the model's own layer sits (a projection: on the roof by construction)
    const kern::BenchCase mc = kern::BenchCase::from_model(app.model, 0, app.batch, app.seq, dt);
    const attn::RooflineProjection p = attn::project(case_cost(mc, dt), *gpu, dt);
    pts.push_back({"projected: " + app.model.name + " layer 0 (B " + std::to_string(app.batch) +
                       ", S " + attn::format_tokens(static_cast<double>(app.seq)) + ")",
                   p.intensity, p.flops / p.time_s, true});
  } catch (const std::exception&) {
  }
  // DeepSeek-V3's MLA layer (128 heads over one latent) for comparison: where it crosses.
  if (app.model.variant != attn::Variant::kMla) {
    try {
      kern::BenchCase ds;
      ds.variant = attn::Variant::kMla;
      ds.batch = app.batch;
      ds.seq = app.seq;
      ds.q_heads = 128;
      ds.kv_heads = 1;
      ds.latent_dim = 512;
      ds.rope_dim = 64;
      ds.head_dim = 576;
      const attn::RooflineProjection p = attn::project(case_cost(ds, dt), *gpu, dt);
      pts.push_back(
          {"projected: MLA H 128 (DeepSeek-V3 shape)", p.intensity, p.flops / p.time_s, true});
    } catch (const std::exception&) {
    }
  }
  vis::PlotSpec spec = vis::roofline_plot(*gpu, dt, pts, probe);
  // MI355X's roof beside the chosen one (dashed): where the same points would be bounded there.
  const attn::GpuSpec* mi = attn::find_gpu(kProjectedGpu);
  if (mi && mi != gpu) {
    vis::Series r;
    r.name = "MI355X roof (datasheet): " + attn::format_bandwidth(mi->bandwidth_bytes_per_s()) +
             ", " + attn::format_flops(mi->matrix_flops_per_s(dt)) + "/s";
    vis::roofline_curve(*mi, dt, spec.x.min, spec.x.max, 48, &r.x, &r.y);
    r.dashed = true;
    r.color = IM_COL32(237, 28, 36, 200);
    r.thickness = 1.5f;
    spec.series.insert(spec.series.begin() + 1, r);
    spec.y.max = std::max(spec.y.max, mi->matrix_flops_per_s(dt) * 2);
  }
  const float h = std::max(220.0f, ImGui::GetContentRegionAvail().y - 8);
  vis::draw_plot("##roofline", spec, ImVec2(-1, h));
}

}  // namespace

// ---- [SECTION] The panel -------------------------------------------------------------------

bool start_latency_job(App& app) {
  if (app.latency.runner && app.latency.runner->running()) return false;
  start_job(app);
  return app.latency.runner && app.latency.runner->running();
}

bool latency_job_running(const App& app) {
  return app.latency.runner && app.latency.runner->running();
}

std::optional<Workload> latency_workload(const std::string& name) {
  if (name == "model") return Workload::kModelLayer;
  for (int i = 1; i < IM_ARRAYSIZE(kWorkloads); ++i)
    if (name == kWorkloads[i]) return static_cast<Workload>(i);
  return std::nullopt;
}

int latency_cpu_threads(const LatencyState& st) {
  // 0 = all cores but one, which the UI keeps (frames stay smooth while the CPU is timed).
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return st.cpu_threads > 0 ? st.cpu_threads : std::max(1, cores - 1);
}

void draw_latency_panel(App& app) {
  LatencyState& st = app.latency;
  load_recorded_results(st);
  collect_outcome(app);
  if (!ImGui::Begin(panel_info(PanelId::kLatency).title, &app.shown(PanelId::kLatency))) {
    ImGui::End();
    return;
  }
  draw_run_controls(app);
  ImGui::Separator();
  draw_sets(st);
  const int sel = selected_index(st);
  const ResultSet* set = sel >= 0 ? &st.sets[sel] : nullptr;
  if (ImGui::BeginTabBar("##latency_tabs")) {
    const auto asked = [&](LatencyTab tab) {
      return st.open_tab == tab ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None;
    };
    if (ImGui::BeginTabItem("Table", nullptr, asked(LatencyTab::kTable))) {
      if (set) {
        draw_results_table(*set);
      } else {
        ImGui::TextWrapped(
            "No results yet: press Run, or import a results file "
            "(`attnlab bench --json FILE` writes one).");
        draw_projection_table(app);
      }
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Side by side", nullptr, asked(LatencyTab::kSideBySide))) {
      draw_side_by_side_tab(app);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Plots", nullptr, asked(LatencyTab::kPlots))) {
      if (set)
        draw_plots(st, *set);
      else
        ImGui::TextDisabled("no results to plot");
      ImGui::EndTabItem();
    }
    // With nothing measured yet the roofline (with the model's projected point) opens first.
    const ImGuiTabItemFlags roof_flags = (!set && !st.tabs_initialised)
                                             ? ImGuiTabItemFlags_SetSelected
                                             : asked(LatencyTab::kRoofline);
    st.tabs_initialised = true;
    st.open_tab = LatencyTab::kNone;
    if (ImGui::BeginTabItem("Roofline", nullptr, roof_flags)) {
      draw_roofline(app, set);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
}

}  // namespace app
