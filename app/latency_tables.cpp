// The tables of the latency panel: one result set, CPU against GPU, and the roofline's
// projection of the workload before anything is measured. MI355X figures are projections.
#include "app/latency_tables.h"

#include <algorithm>
#include <map>

#include <imgui.h>

#include "app/bench_cases.h"
#include "app/job_runner.h"
#include "attention/roofline.h"
#include "attention/units.h"
#include "visuals/widgets.h"

namespace app {
namespace latency_detail {

void draw_results_table(const ResultSet& set) {
  ImGui::TextDisabled("%zu result(s)", set.report.results.size());
  ImGui::SameLine();
  vis::help_marker(
      "median, min .. max: time of one decode step over the timed runs, each run one graph "
      "launch between two device events. in a graph: one step of many run back to back in one "
      "graph, as a model's decode graph runs them (GPU): it leaves out the fixed cost of a lone "
      "launch (~3 us on an H200) and keeps the gap between kernels (~1 us). GB/s: all bytes read "
      "(KV and Q) and written, over the median. of read BW: that against a streaming read "
      "measured on the same device in the same run (the practical ceiling). max error: largest "
      "|difference| to the float64 CPU reference, checked before timing. KV read: cache bytes "
      "of the case. of roofline: the datasheet floor of the measuring GPU (when it is in "
      "assets/gpus.json) over the median. MI355X projected (roofline): max(bytes / 8 TB/s, FLOPs / "
      "2.5 PFLOP/s), "
      "a projection from the datasheet, not a measurement. peer: a published time for the "
      "same shape (hover for whose), dimmed where it was timed on another GPU than this set.");
  const attn::GpuSpec* mi = attn::find_gpu(kProjectedGpu);
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
  const float rows_h = ImGui::GetTextLineHeightWithSpacing() *
                       (static_cast<float>(set.report.results.size()) + 2.0f);
  const float h =
      std::max(ImGui::GetFontSize() * 8, std::min(rows_h, ImGui::GetContentRegionAvail().y - 4));
  const attn::GpuSpec* here =
      set.report.device.kind == "cpu" ? nullptr : gpu_spec_for_device(set.report.device.name);
  if (!ImGui::BeginTable("##results", 13, flags, ImVec2(0, h))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("case");
  ImGui::TableSetupColumn("device");
  ImGui::TableSetupColumn("dtype");
  // What a reader looks for first (time, how close to the floor, the MI355X) comes first.
  ImGui::TableSetupColumn("median");
  ImGui::TableSetupColumn(here ? ("of the " + here->name + " roofline").c_str() : "of roofline");
  ImGui::TableSetupColumn("MI355X projected (roofline)");
  ImGui::TableSetupColumn("peer (published)");
  ImGui::TableSetupColumn("min .. max");
  ImGui::TableSetupColumn("in a graph");
  ImGui::TableSetupColumn("GB/s");
  ImGui::TableSetupColumn("of read BW");
  ImGui::TableSetupColumn("max error");
  ImGui::TableSetupColumn("KV read");
  ImGui::TableHeadersRow();
  for (const kern::BenchResult& r : set.report.results) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(case_label(r.c).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.device.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(std::string(attn::dtype_name(storage_dtype(r))).c_str());
    if (!r.error.empty()) {
      ImGui::TableNextColumn();
      ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "failed: %s", r.error.c_str());
      continue;
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(us_text(r.median_us).c_str());
    ImGui::TableNextColumn();
    if (here && r.device != "cpu") {  // the datasheet floor of this device over the measurement
      try {
        ImGui::Text("%.0f%%", 100.0 * projected_us(r.c, *here) / r.median_us);
      } catch (const std::exception&) {
        ImGui::TextDisabled("-");
      }
    } else {
      ImGui::TextDisabled("-");
    }
    ImGui::TableNextColumn();
    if (mi) {
      try {
        // A CPU row (float32) is projected as the GPU kernel would run it: bf16.
        kern::BenchCase pc = r.c;
        if (r.device == "cpu") pc.dtype = attn::DType::kBf16;
        ImGui::TextColored(ImVec4(0.75f, 0.75f, 1.0f, 1.0f), "%s %s (proj.)",
                           us_text(projected_us(pc, *mi)).c_str(),
                           std::string(attn::dtype_name(pc.dtype)).c_str());
      } catch (const std::exception&) {
        ImGui::TextDisabled("-");
      }
    }
    ImGui::TableNextColumn();
    if (r.c.peer_us > 0) {
      // The published peers were timed on one GPU ("H200"). Set beside a run on another
      // device they are dimmed and name that GPU: no like-for-like.
      const std::string peer_gpu = r.c.peer_gpu();
      if (here && here->name == peer_gpu) {
        ImGui::Text("%s", us_text(r.c.peer_us).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.c.peer_name.c_str());
      } else {
        ImGui::TextDisabled("%s%s", us_text(r.c.peer_us).c_str(),
                            peer_gpu.empty() ? "" : (" on " + peer_gpu).c_str());
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("%s\nnot the device of this set: not a like-for-like comparison",
                            r.c.peer_name.c_str());
      }
    } else {
      ImGui::TextDisabled("-");
    }
    ImGui::TableNextColumn();
    ImGui::Text("%s .. %s", us_text(r.min_us).c_str(), us_text(r.max_us).c_str());
    ImGui::TableNextColumn();
    if (r.has_step())
      ImGui::TextUnformatted(us_text(r.step_us).c_str());
    else
      ImGui::TextDisabled("-");
    ImGui::TableNextColumn();
    ImGui::Text("%.1f", r.gbps);
    ImGui::TableNextColumn();
    if (r.probe_gbps > 0)
      ImGui::Text("%.0f%%", 100.0 * r.gbps / r.probe_gbps);
    else
      ImGui::TextDisabled("-");
    ImGui::TableNextColumn();
    if (r.checked)
      ImGui::Text("%.2e", r.max_abs_err);
    else
      ImGui::TextDisabled("not checked");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(attn::format_bytes(static_cast<double>(r.kv_bytes)).c_str());
  }
  ImGui::EndTable();
}

// Before anything is measured: what the roofline says the workload's cases should take.
void draw_projection_table(App& app) {
  std::string error;
  std::vector<kern::BenchCase> cases = workload_cases(app, &error);
  if (cases.empty()) return;
  const attn::GpuSpec* chosen = attn::find_gpu(app.gpu_name);
  const attn::GpuSpec* mi = attn::find_gpu(kProjectedGpu);
  ImGui::TextWrapped(
      "Projected (roofline), not measured: max(bytes / bandwidth, FLOPs / matrix "
      "rate) from the datasheets in assets/gpus.json, for the cases Run would "
      "start on the GPU.");
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("##proj", 6, flags, ImVec2(0, ImGui::GetFontSize() * 14))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("case");
  ImGui::TableSetupColumn("bytes read");
  ImGui::TableSetupColumn("FLOPs");
  ImGui::TableSetupColumn("FLOP/byte (kernel)");
  ImGui::TableSetupColumn(chosen ? (chosen->name + " projected (roofline)").c_str() : "-");
  ImGui::TableSetupColumn("MI355X projected (roofline)");
  ImGui::TableHeadersRow();
  for (kern::BenchCase& c : cases) {
    if (app.latency.workload == Workload::kModelLayer)
      c.dtype = gpu_dtype_of(app.latency.gpu_dtype);
    try {
      const attn::DecodeCost cost = case_cost(c, c.dtype);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(case_label(c).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(attn::format_bytes(cost.total_bytes()).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(attn::format_flops(cost.flops).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.1f", cost.intensity());
      for (const attn::GpuSpec* g : {chosen, mi}) {
        ImGui::TableNextColumn();
        if (!g) continue;
        const attn::RooflineProjection p = attn::project(cost, *g, c.dtype);
        ImGui::TextColored(ImVec4(0.75f, 0.75f, 1.0f, 1.0f), "%s (%s-bound)",
                           us_text(p.time_s * 1e6).c_str(), p.compute_bound ? "compute" : "memory");
      }
    } catch (const std::exception& e) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      vis::error_text(e.what());
    }
  }
  ImGui::EndTable();
}

// The newest CPU and the newest GPU result of each shape, side by side.
void draw_cpu_vs_gpu(const LatencyState& st) {
  struct Pair {
    const kern::BenchResult* cpu = nullptr;
    const kern::BenchResult* gpu = nullptr;
    std::string gpu_device;
  };
  std::map<std::string, Pair> rows;
  std::vector<std::string> order;
  for (const ResultSet& s : st.sets)
    for (const kern::BenchResult& r : s.report.results) {
      if (!r.error.empty()) continue;
      const std::string key = shape_key(r.c);
      if (!rows.count(key)) order.push_back(key);
      Pair& p = rows[key];
      if (r.device == "cpu") {
        p.cpu = &r;
      } else {
        p.gpu = &r;
        p.gpu_device = s.report.device.name;
      }
    }
  const attn::GpuSpec* mi = attn::find_gpu(kProjectedGpu);
  ImGui::TextWrapped(
      "Each shape's newest CPU and GPU measurement, with the max error of each check against the "
      "float64 reference. The last column is a projection from the MI355X datasheet "
      "(max(bytes / 8 TB/s, FLOPs / 2.5 PFLOP/s)), not a measurement.");
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  const float h = std::max(
      ImGui::GetFontSize() * 8,
      std::min(ImGui::GetTextLineHeightWithSpacing() * (static_cast<float>(order.size()) + 2.0f),
               ImGui::GetContentRegionAvail().y - 4));
  if (!ImGui::BeginTable("##cpu_gpu", 7, flags, ImVec2(0, h))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("case");
  ImGui::TableSetupColumn("CPU median");
  ImGui::TableSetupColumn("CPU max err");
  ImGui::TableSetupColumn("GPU median");
  ImGui::TableSetupColumn("GPU max err");
  ImGui::TableSetupColumn("GPU speed-up");
  ImGui::TableSetupColumn("MI355X projected (roofline)");
  ImGui::TableHeadersRow();
  for (const std::string& key : order) {
    const Pair& p = rows[key];
    const kern::BenchResult* any = p.gpu ? p.gpu : p.cpu;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(case_label(any->c).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(p.cpu ? us_text(p.cpu->median_us).c_str() : "-");
    ImGui::TableNextColumn();
    if (p.cpu && p.cpu->checked)
      ImGui::Text("%.2e", p.cpu->max_abs_err);
    else
      ImGui::TextDisabled("-");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(p.gpu ? us_text(p.gpu->median_us).c_str() : "-");
    if (p.gpu && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.gpu_device.c_str());
    ImGui::TableNextColumn();
    if (p.gpu && p.gpu->checked)
      ImGui::Text("%.2e", p.gpu->max_abs_err);
    else
      ImGui::TextDisabled("-");
    ImGui::TableNextColumn();
    if (p.cpu && p.gpu && p.gpu->median_us > 0)
      ImGui::Text("%.1fx", p.cpu->median_us / p.gpu->median_us);
    else
      ImGui::TextDisabled("-");
    ImGui::TableNextColumn();
    if (mi) {
      kern::BenchCase c = any->c;
      if (!p.gpu) c.dtype = attn::DType::kBf16;  // a CPU-only row: project the bf16 kernel
      try {
        ImGui::TextColored(ImVec4(0.75f, 0.75f, 1.0f, 1.0f), "%s %s (proj.)",
                           us_text(projected_us(c, *mi)).c_str(),
                           std::string(attn::dtype_name(c.dtype)).c_str());
      } catch (const std::exception&) {
        ImGui::TextDisabled("-");
      }
    }
  }
  ImGui::EndTable();
}

}  // namespace latency_detail
}  // namespace app
