// Chapter 8, the worklog: how the kernels reached the bandwidth limit, version by version, from
// the worklog results file (assets/results/<gpu>-<date>-worklog.json) when one is recorded;
// then where they stand against the peers timed beside them. Every bar is a recorded
// measurement, labelled with its GPU, date and commit; nothing is drawn without one. With no
// worklog recorded, the first beat lists the versions the worklog suite times and what each
// changed (from the suite itself), with no figures.
#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <map>

#include "app/cli/recorded.h"
#include "app/learn/lesson_util.h"
#include "app/style.h"
#include "attention/units.h"
#include "kernels/bench.h"

namespace app::learn {
namespace {

// A peer's time counts only when it was timed on the same GPU as ours.
bool peer_on_same_gpu(const RecordedResult& r) {
  const std::string g = r.result.c.peer_gpu();
  return r.result.c.peer_us > 0 && !g.empty() && r.gpu.find(g) != std::string::npos;
}

// The rows of the newest recorded file whose name contains `suite` ("worklog", "peers"); for
// the peers, the newest file whose peers were timed on its own GPU.
std::vector<RecordedResult> newest(const std::string& suite) {
  std::string file;
  std::string date;
  for (const RecordedResult& r : recorded_gpu_results())
    if (r.file.find("-" + suite + ".json") != std::string::npos && r.date > date &&
        (suite != "peers" || peer_on_same_gpu(r))) {
      date = r.date;
      file = r.file;
    }
  std::vector<RecordedResult> v;
  for (const RecordedResult& r : recorded_gpu_results())
    if (r.file == file) v.push_back(r);
  return v;
}

// A worklog label: "worklog: <shape> | v<N> | <what vN changed>".
struct WorklogRow {
  std::string shape, version, changed;
  const RecordedResult* r = nullptr;
};

// The label's three parts; false for a label not in that form.
bool parse_label(const std::string& l, WorklogRow* w) {
  const auto a = l.find(" | "), b = a == std::string::npos ? a : l.find(" | ", a + 3);
  if (b == std::string::npos) return false;
  const std::string shape = l.substr(0, a);
  w->shape = shape.rfind("worklog: ", 0) == 0 ? shape.substr(9) : shape;
  w->version = l.substr(a + 3, b - a - 3);
  w->changed = l.substr(b + 3);
  return true;
}

std::vector<WorklogRow> worklog_rows(const std::vector<RecordedResult>& rows) {
  std::vector<WorklogRow> out;
  for (const RecordedResult& r : rows) {
    WorklogRow w;
    w.r = &r;
    if (parse_label(r.result.c.label, &w)) out.push_back(w);
  }
  return out;
}

// The versions the worklog suite times, once each, family by family (grouped first), from the
// suite's own labels: what a recorded worklog will show, before one is. The suite is fixed, so
// this is read once.
const std::vector<WorklogRow>& suite_versions(bool mla) {
  static const std::array<std::vector<WorklogRow>, 2> families = [] {
    std::array<std::vector<WorklogRow>, 2> f;
    for (const kern::BenchCase& c : kern::suite_cases("worklog")) {
      std::vector<WorklogRow>& out = f[c.variant == attn::Variant::kMla ? 1 : 0];
      WorklogRow w;
      if (parse_label(c.label, &w) &&
          std::none_of(out.begin(), out.end(),
                       [&](const WorklogRow& o) { return o.version == w.version; }))
        out.push_back(w);
    }
    return f;
  }();
  return families[mla ? 1 : 0];
}

// The shapes of the worklog in their order.
std::vector<std::string> worklog_shapes(const std::vector<WorklogRow>& rows) {
  std::vector<std::string> v;
  for (const WorklogRow& w : rows)
    if (std::find(v.begin(), v.end(), w.shape) == v.end()) v.push_back(w.shape);
  return v;
}

double share_of_probe(const kern::BenchResult& r) {
  return r.probe_gbps > 0 ? r.gbps / r.probe_gbps : 0.0;
}

BeatText text(const Lesson& l) {
  const std::vector<RecordedResult> work = newest("worklog");
  const std::vector<RecordedResult> peers = newest("peers");
  BeatText t;
  if (!work.empty()) t.numbers.push_back({"worklog", work.front().provenance()});
  if (!peers.empty()) t.numbers.push_back({"peers", peers.front().provenance()});
  if (l.beat == 0) {
    t.title = "version by version";
    t.caption =
        work.empty()
            ? "No worklog is recorded in this build yet: `attnlab bench --suite worklog` on a "
              "GPU times every version on the same cases, and this chapter then draws each "
              "one's time. Until then: the versions, and what each changed, with no figures."
            : "Each bar is one kernel version on the same case: its measured time and its "
              "share of the read bandwidth measured in the same run, " +
                  work.front().provenance() + ".";
  } else {
    t.title = "against the peers";
    int wins = 0;
    for (const RecordedResult& r : peers)
      if (peer_on_same_gpu(r) && r.result.median_us < r.result.c.peer_us) ++wins;
    t.caption = peers.empty()
                    ? "No peers results are recorded in this build."
                    : "Where the kernels stand: " + std::to_string(peers.size()) +
                          " suite rows timed beside their peers (PyTorch SDPA, SGLang's Triton "
                          "kernel) on one GPU, " +
                          peers.front().provenance() + "; ours is faster on " +
                          std::to_string(wins) +
                          " of them. Bars are median times, shorter is faster.";
  }
  return t;
}

WorkbenchSetup setup(const Lesson& l) {
  WorkbenchSetup s;
  s.seq = l.ctl->seq;
  s.focus = PanelId::kLatency;
  return s;
}

// One shape's versions, top to bottom in the order they were written: the version, what it
// changed, its measured time and its share of the read bandwidth measured in the same run.
void draw_worklog(const Lesson& l, const Canvas& cv, const std::vector<RecordedResult>& rows) {
  ImDrawList* dl = cv.dl;
  ImFont* cap = fonts().caption;
  const ImU32 ink = vis::concept_color(vis::Concept::kInk);
  const std::vector<WorklogRow> all = worklog_rows(rows);
  const std::vector<std::string> shapes = worklog_shapes(all);
  if (shapes.empty()) return;
  const std::string& shape = shapes[static_cast<size_t>(
      std::clamp(l.ctl->worklog_family, 0, static_cast<int>(shapes.size()) - 1))];
  std::vector<const WorklogRow*> mine;
  double top = 0;
  for (const WorklogRow& w : all)
    if (w.shape == shape && w.r->result.median_us > 0) {
      mine.push_back(&w);
      top = std::max(top, w.r->result.median_us);
    }
  vis::text_at(dl, cap, ImVec2(cv.p0.x + 16, cv.p0.y + 12), ink, shape);
  const float grow = vis::phase(static_cast<float>(l.beat) + l.t, 0.0f, 0.9f);
  const float pitch =
      std::min(80.0f, (cv.size.y - 90) / static_cast<float>(std::max<size_t>(1, mine.size())));
  const float x0 = cv.p0.x + 90, w = cv.size.x * 0.55f;
  for (size_t i = 0; i < mine.size(); ++i) {
    const kern::BenchResult& r = mine[i]->r->result;
    const float y = cv.p0.y + 50 + pitch * static_cast<float>(i);
    vis::text_at(dl, fonts().title, ImVec2(cv.p0.x + 16, y), ink, mine[i]->version);
    const float bw = w * static_cast<float>(r.median_us / top) * grow;
    dl->AddRectFilled(ImVec2(x0, y + 4), ImVec2(x0 + std::max(2.0f, bw), y + 24),
                      vis::concept_color(vis::Concept::kValue));
    std::string fig = attn::format_duration_us(r.median_us);
    if (share_of_probe(r) > 0)
      fig += ", " + std::to_string(static_cast<int>(std::lround(100 * share_of_probe(r)))) +
             "% of the read probe";
    vis::text_at(dl, nullptr, ImVec2(x0 + bw + 8, y + 6), ink, fig);
    vis::text_at(dl, nullptr, ImVec2(x0, y + 28), IM_COL32(170, 170, 170, 255), mine[i]->changed);
  }
  vis::text_at(dl, cap, ImVec2(cv.p0.x + cv.size.x - 16, cv.p0.y + cv.size.y - 30),
               IM_COL32(170, 170, 170, 255), rows.front().provenance(), vis::Align::kRight);
}

// No worklog recorded: two columns, grouped and MLA, each version and what it changed, appearing
// one after another. No bars: nothing is measured here.
void draw_versions(const Lesson& l, const Canvas& cv) {
  ImDrawList* dl = cv.dl;
  const ImU32 ink = vis::concept_color(vis::Concept::kInk);
  const ImU32 dim = IM_COL32(170, 170, 170, 255);
  vis::text_at(dl, fonts().caption, ImVec2(cv.p0.x + 16, cv.p0.y + 12), dim,
               "no worklog recorded yet: the versions it times, and what each changed");
  const float col_w = (cv.size.x - 48) / 2;
  ImFont* body = ImGui::GetFont();
  const float fs = ImGui::GetFontSize();
  for (int f = 0; f < 2; ++f) {
    const std::vector<WorklogRow>& rows = suite_versions(f == 1);
    const float x = cv.p0.x + 16 + (col_w + 16) * static_cast<float>(f);
    float y = cv.p0.y + 48;
    vis::text_at(dl, fonts().caption, ImVec2(x, y),
                 vis::concept_color(f == 1 ? vis::Concept::kLatent : vis::Concept::kKey),
                 f == 1 ? "MLA decode" : "grouped decode (MHA, MQA, GQA, SWA)");
    y += 34;
    const float text_x = x + fs * 2.6f, wrap = col_w - fs * 2.6f;
    for (size_t i = 0; i < rows.size(); ++i) {
      const float a =
          vis::phase(l.t, 0.08f * static_cast<float>(i), 0.08f * static_cast<float>(i) + 0.3f);
      if (a <= 0) break;
      vis::text_at(dl, fonts().title, ImVec2(x, y - 4), vis::with_alpha(ink, a), rows[i].version);
      dl->AddText(body, fs, ImVec2(text_x, y), vis::with_alpha(ink, a), rows[i].changed.c_str(),
                  nullptr, wrap);
      y += body->CalcTextSizeA(fs, FLT_MAX, wrap, rows[i].changed.c_str()).y + fs * 0.9f;
    }
  }
}

void controls(LessonControls& c, const Lesson& l) {
  if (l.beat != 0) return;
  const std::vector<WorklogRow> all = worklog_rows(newest("worklog"));
  const std::vector<std::string> shapes = worklog_shapes(all);
  if (shapes.empty()) return;
  c.worklog_family = std::clamp(c.worklog_family, 0, static_cast<int>(shapes.size()) - 1);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18);
  if (ImGui::BeginCombo("case", shapes[static_cast<size_t>(c.worklog_family)].c_str())) {
    for (size_t i = 0; i < shapes.size(); ++i)
      if (ImGui::Selectable(shapes[i].c_str(), static_cast<int>(i) == c.worklog_family))
        c.worklog_family = static_cast<int>(i);
    ImGui::EndCombo();
  }
}

void draw(const Lesson& l, const Canvas& cv) {
  ImDrawList* dl = cv.dl;
  ImFont* cap = fonts().caption;
  const ImU32 ink = vis::concept_color(vis::Concept::kInk);
  const float beat = static_cast<float>(l.beat) + l.t;
  const std::vector<RecordedResult> rows = newest(l.beat == 0 ? "worklog" : "peers");
  if (l.beat == 0) {
    if (rows.empty())
      draw_versions(l, cv);
    else
      draw_worklog(l, cv, rows);
    return;
  }
  if (rows.empty()) {
    vis::text_at(dl, fonts().title, cv.at(0.5f, 0.42f), IM_COL32(150, 150, 150, 255),
                 "no peers results recorded", vis::Align::kCenter);
    return;
  }
  const float grow =
      vis::phase(beat, static_cast<float>(l.beat), static_cast<float>(l.beat) + 0.9f);
  double top = 0;
  for (const RecordedResult& r : rows)
    top = std::max({top, r.result.median_us, r.result.c.peer_us});
  const size_t n = std::min<size_t>(rows.size(), 16);
  const float pitch = (cv.size.y - 40) / static_cast<float>(n);
  const float label_w = cv.size.x * 0.36f, x0 = cv.p0.x + 16 + label_w;
  const float w = cv.size.x - label_w - 200;
  for (size_t i = 0; i < n; ++i) {
    const kern::BenchResult& r = rows[i].result;
    const float y = cv.p0.y + 20 + pitch * static_cast<float>(i);
    std::string label = r.c.label;
    if (label.size() > 48) label = label.substr(0, 47) + "...";
    vis::text_at(dl, nullptr, ImVec2(cv.p0.x + 16, y + 2), ink, label);
    const float bh = std::max(4.0f, pitch * 0.38f);
    const float ours = w * static_cast<float>(r.median_us / top) * grow;
    dl->AddRectFilled(ImVec2(x0, y), ImVec2(x0 + std::max(2.0f, ours), y + bh),
                      vis::concept_color(vis::Concept::kValue));
    vis::text_at(
        dl, nullptr, ImVec2(x0 + ours + 6, y - 1), ink,
        attn::format_duration_us(r.median_us) +
            (share_of_probe(r) > 0
                 ? "  " + std::to_string(static_cast<int>(std::lround(100 * share_of_probe(r)))) +
                       "% of read probe"
                 : std::string()));
    if (peer_on_same_gpu(rows[i])) {
      const float peer = w * static_cast<float>(r.c.peer_us / top) * grow;
      dl->AddRectFilled(ImVec2(x0, y + bh + 1), ImVec2(x0 + std::max(2.0f, peer), y + 2 * bh + 1),
                        IM_COL32(150, 150, 150, 200));
      vis::text_at(dl, nullptr, ImVec2(x0 + peer + 6, y + bh - 2), IM_COL32(170, 170, 170, 255),
                   attn::format_duration_us(r.c.peer_us));
    }
  }
  vis::text_at(dl, cap, ImVec2(cv.p0.x + cv.size.x - 16, cv.p0.y + cv.size.y - 30),
               IM_COL32(170, 170, 170, 255),
               l.beat == 0 ? rows.front().provenance()
                           : "green: attnlab   grey: " + rows.front().result.c.peer_name,
               vis::Align::kRight);
}

}  // namespace

const Chapter& chapter_worklog() {
  static const Chapter c{
      "The worklog", "How did the kernels reach the bandwidth limit?", 2, text, setup, controls,
      draw};
  return c;
}

}  // namespace app::learn
