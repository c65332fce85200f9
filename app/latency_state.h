// View state of the latency panel (app/panel_latency.cpp), kept in App.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/side_by_side.h"
#include "kernels/bench.h"

namespace app {

class JobRunner;

// One set of results shown by the panel: a run made here, a recorded file shipped in
// assets/results/, or an imported file.
struct ResultSet {
  enum class Origin { kRun, kRecorded, kImported };
  Origin origin = Origin::kRun;
  std::string name;  // "run 3: sweep on gpu", "results/h200-peers.json", a path
  kern::BenchReport report;
};

// The latency panel's choices (settings.json stores them by name; see settings.cpp).
enum class Workload : int { kModelLayer, kSweep, kPeers, kAmdMixedMla, kAmdMla };
enum class BenchTarget : int { kCpu, kGpu };
enum class GpuDtype : int { kBf16, kFp16, kFp8 };  // GPU storage; the CPU runs fp32
enum class PlotAxis : int { kSeq, kBatch };
enum class ExportFormat : int { kJson, kCsv };
enum class LatencyTab : int { kNone = -1, kTable, kSideBySide, kPlots, kRoofline };

struct App;
// Starts the latency panel's chosen workload in the background (as its Run button does); false
// while a job runs or when the workload has no case (the reason is in job_error). Used by the
// tour. panel_latency.cpp.
bool start_latency_job(App& app);
bool latency_job_running(const App& app);
// Starts the side-by-side run of the model's layer (the latency panel's layer, B and S, and its
// GPU dtype) in the background; false while a job runs (the reason in job_error).
bool start_side_by_side(App& app);
// The workload called `name` ("model", "sweep", "peers", "amd-mixed-mla", "amd-mla"), if any.
std::optional<Workload> latency_workload(const std::string& name);
struct LatencyState;
// The CPU threads a job started now would use (cpu_threads, or the default when it is 0).
int latency_cpu_threads(const LatencyState& st);

struct LatencyState {
  std::shared_ptr<JobRunner> runner;  // created on first use (shared: App stays copyable)
  Workload workload = Workload::kModelLayer;
  BenchTarget device = BenchTarget::kCpu;
  GpuDtype gpu_dtype = GpuDtype::kBf16;
  int layer = 0;        // which layer of the model a single case uses
  int cpu_threads = 0;  // 0 = all cores
  int min_runs = 10;
  float min_seconds = 0.2f;

  std::vector<ResultSet> sets;               // runs, recorded and imported results
  bool recorded_loaded = false;              // assets/results/*.json read into `sets`
  std::vector<std::string> recorded_errors;  // recorded files that did not parse
  int selected = -1;                         // set shown in the table and plots (-1: the newest)
  int runs_started = 0;
  std::string job_error;  // the last job's error, shown until the next start
  std::string job_note;   // "cancelled after 3 of 12 cases"

  bool tabs_initialised = false;  // the first frame picks the tab (roofline when no results)
  LatencyTab open_tab = LatencyTab::kNone;  // a tab to bring forward on the next frame, then
                                            // kNone again (kNone: the user's choice)
  bool plot_all_sets = false;               // plots: every set, not only the selected one
  PlotAxis plot_x = PlotAxis::kSeq;         // plots against S or B
  bool plot_steps = true;  // plots: GPU lines of the in-graph step time beside the lone launch
  char import_path[1024] = "";
  char export_path[1024] = "attnlab-results.json";
  ExportFormat export_format = ExportFormat::kJson;
  // The last side-by-side run (the "Side by side" tab, the Learn view's "Measure it").
  std::shared_ptr<SideBySide> side_by_side;
  bool side_by_side_running = false;  // the runner's job is a side-by-side one
  std::string io_message;  // result of the last import / export
  bool io_error = false;
};

}  // namespace app
