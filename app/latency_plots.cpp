// The latency panel's Plots tab: decode time and GB/s against S or B, one line per shape,
// from the selected result set (or every set), GPU lines of the in-graph step time beside the
// lone launch.
#include <algorithm>
#include <cmath>
#include <map>

#include <imgui.h>

#include "app/bench_cases.h"
#include "app/enum_widgets.h"
#include "app/job_runner.h"
#include "app/latency_tables.h"
#include "attention/units.h"
#include "visuals/plot.h"
#include "visuals/widgets.h"

namespace app::latency_detail {

void draw_plots(LatencyState& st, const ResultSet& set) {
  enum_radio("against S", &st.plot_x, PlotAxis::kSeq);
  ImGui::SameLine();
  enum_radio("against B", &st.plot_x, PlotAxis::kBatch);
  ImGui::SameLine();
  ImGui::Checkbox("every result set", &st.plot_all_sets);
  ImGui::SameLine();
  ImGui::Checkbox("in a graph too", &st.plot_steps);
  ImGui::SameLine();
  vis::help_marker(
      "One line per shape: the other dimensions fixed, S (or B) varying; dashed lines are CPU "
      "runs. Decode time should grow linearly with the bytes read; GB/s shows how close each "
      "point gets to the memory. 'every result set' draws all runs, recorded and imported sets "
      "together (CPU and GPU side by side), each line named by its set. 'in a graph too' adds, "
      "for GPU results, the time of one step of many run back to back in one graph (lines "
      "without markers): the gap to the lone launch is the launch's fixed cost, which is most "
      "of a small case and nothing of a large one.");
  vis::PlotSpec lat, bw;
  for (vis::PlotSpec* p : {&lat, &bw}) {
    p->x.label = st.plot_x == PlotAxis::kSeq ? "S (cached tokens)" : "B (batch)";
    p->x.scale = vis::AxisScale::kLog;
    p->x.log_base = 2;
    p->x.format = [](double v) { return attn::format_tokens(v); };
    p->y.scale = vis::AxisScale::kLog;
    p->legend = vis::LegendPos::kAbove;  // never over the lines
  }
  lat.title = "median latency";
  lat.y.label = "time";
  lat.y.format = [](double v) { return attn::format_duration_us(v); };
  bw.title = "achieved bandwidth";
  bw.y.label = "GB/s";
  bw.y.format = [](double v) { return attn::format_si(v); };
  std::map<std::string, int> index;
  std::vector<std::pair<int, const kern::BenchResult*>> results;  // (set number, result)
  for (int i = 0; i < static_cast<int>(st.sets.size()); ++i)
    if (st.plot_all_sets || &st.sets[i] == &set)
      for (const kern::BenchResult& r : st.sets[i].report.results) results.emplace_back(i, &r);
  for (const auto& [set_no, rp] : results) {
    const kern::BenchResult& r = *rp;
    if (!r.error.empty() || r.median_us <= 0) continue;
    kern::BenchCase k = r.c;
    if (st.plot_x == PlotAxis::kSeq)
      k.seq = 1;
    else
      k.batch = 1;
    k.label.clear();
    std::string name = (st.plot_all_sets ? "#" + std::to_string(set_no + 1) + " " : "") + r.device +
                       " " + std::string(attn::dtype_name(storage_dtype(r))) + " " + case_label(k);
    const std::string drop = st.plot_x == PlotAxis::kSeq ? " S1" : " B1";
    const std::size_t at = name.find(drop);
    if (at != std::string::npos) name.erase(at, drop.size());
    const double x = static_cast<double>(st.plot_x == PlotAxis::kSeq ? r.c.seq : r.c.batch);
    // The lone launch (median, markers), and where measured the step in a graph (no markers;
    // its GB/s: the same bytes over the step time).
    const bool steps = st.plot_steps && r.has_step();
    for (int line = 0; line < (steps ? 2 : 1); ++line) {
      const std::string key = line == 0 ? name : name + " in a graph";
      auto it = index.find(key);
      if (it == index.end()) {
        it = index.emplace(key, static_cast<int>(lat.series.size())).first;
        vis::Series s;
        s.name = key;
        s.markers = line == 0;
        s.dashed = r.device == "cpu";
        lat.series.push_back(s);
        bw.series.push_back(s);
      }
      const double us = line == 0 ? r.median_us : r.step_us;
      lat.series[it->second].x.push_back(x);
      lat.series[it->second].y.push_back(us);
      bw.series[it->second].x.push_back(x);
      bw.series[it->second].y.push_back(r.gbps * r.median_us / us);
    }
  }
  // A shape measured at one S (or B) only is no line against it: leave it out; then keep the
  // legend readable (16 lines at most, in the order the results come).
  for (vis::PlotSpec* p : {&lat, &bw}) {
    p->series.erase(std::remove_if(p->series.begin(), p->series.end(),
                                   [](const vis::Series& s) { return s.x.size() < 2; }),
                    p->series.end());
    if (p->series.size() > 16) p->series.resize(16);
  }
  for (vis::PlotSpec* p : {&lat, &bw})
    for (vis::Series& s : p->series) {  // sort each line by x
      std::vector<std::size_t> o(s.x.size());
      for (std::size_t i = 0; i < o.size(); ++i) o[i] = i;
      std::sort(o.begin(), o.end(), [&](std::size_t a, std::size_t b) { return s.x[a] < s.x[b]; });
      std::vector<double> xs, ys;
      for (std::size_t i : o) {
        xs.push_back(s.x[i]);
        ys.push_back(s.y[i]);
      }
      s.x = xs;
      s.y = ys;
    }
  if (set.report.device.probe_gbps > 0) {
    vis::RefLine l;
    l.value = set.report.device.probe_gbps;
    l.label = "read BW measured in this run";
    bw.hlines.push_back(l);
  }
  const float w = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) / 2;
  const float h = std::max(200.0f, std::min(620.0f, ImGui::GetContentRegionAvail().y - 10));
  vis::draw_plot("##lat", lat, ImVec2(w, h));
  ImGui::SameLine();
  vis::draw_plot("##bw", bw, ImVec2(w, h));
}

}  // namespace app::latency_detail
