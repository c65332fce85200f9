// Parts of the latency panel (app/panel_latency.cpp) shared with its tables
// (app/latency_tables.cpp): the workloads, and the three tables.
#pragma once
#include <string>
#include <vector>

#include "app/app_state.h"
#include "kernels/bench.h"

namespace app {
namespace latency_detail {

extern const char* const kWorkloads[5];  // the model's layer, sweep, peers, amd-mixed-mla, amd-mla
extern const attn::DType kGpuDtypes[3];  // bf16, fp16, fp8: GpuDtype's order
inline attn::DType gpu_dtype_of(GpuDtype d) { return kGpuDtypes[static_cast<int>(d)]; }
extern const char* const kGpuDtypeNames[3];
extern const char* const kProjectedGpu;  // "MI355X"

std::string us_text(double us);  // "12.3 us", "-" for 0
// The cases Run would start (GPU dtype applied to the model's layer only); empty with `error`.
std::vector<kern::BenchCase> workload_cases(App& app, std::string* error);

void draw_results_table(const ResultSet& set);  // one set, every column
void draw_projection_table(App& app);           // nothing measured yet: the roofline's view
void draw_cpu_vs_gpu(const LatencyState& st);   // newest CPU and GPU result of each shape
void draw_plots(LatencyState& st, const ResultSet& set);  // latency_plots.cpp

}  // namespace latency_detail
}  // namespace app
