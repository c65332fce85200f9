// [SECTION] Options       --preset / --variant / --panel / --learn / --compare
// [SECTION] Menus         Learn | Workbench | Compare, Panels, Presets, File, View
// [SECTION] Popups        import config.json, export (PNG, CSV, JSON)
// [SECTION] Panels        the flat list, placed by app/layout.h
// [SECTION] Status bar
#include "app/explorer.h"

#include <chrono>
#include <cstdio>
#include <exception>

#include <imgui.h>
#include <imgui_internal.h>

#include "app/compare_view.h"
#include "app/latency_side_by_side.h"
#include "app/kv_table.h"
#include "app/learn/learn_view.h"
#include "app/enum_widgets.h"
#include "app/layout.h"
#include "app/panels.h"
#include "attention/error.h"
#include "attention/npy.h"
#include "attention/presets.h"
#include "attention/units.h"
#include "visuals/widgets.h"

namespace app {
namespace {

// ---- [SECTION] Options ---------------------------------------------------------------------

float status_bar_height() { return ImGui::GetFrameHeight() + 4.0f; }

// ---- [SECTION] Menus -----------------------------------------------------------------------

// The three views, one click each, at the left of the menu bar.
void view_switch(App& app) {
  static const struct {
    View view;
    const char* label;
    const char* tip;
  } kViews[] = {
      {View::kLearn, "Learn", "The lesson: each attention variant built up, one picture at a time"},
      {View::kWorkbench, "Workbench", "The panels: model, KV cache, data flow, attention, latency"},
      {View::kCompare, "Compare", "Variants or models side by side, on one scale"},
  };
  for (const auto& v : kViews) {
    if (ImGui::MenuItem(v.label, nullptr, app.view == v.view)) app.view = v.view;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", v.tip);
  }
  ImGui::TextDisabled("|");
}

void draw_menus(App& app) {
  if (!ImGui::BeginMainMenuBar()) return;
  view_switch(app);
  if (app.view == View::kWorkbench && ImGui::BeginMenu("Panels")) {
    for (const PanelInfo& p : kPanelTable) ImGui::MenuItem(p.menu, nullptr, &app.shown(p.id));
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Presets")) {
    for (const attn::ModelConfig& p : attn::presets()) {
      const std::string label = (p.display_name.empty() ? p.name : p.display_name) + "##" + p.name;
      if (ImGui::MenuItem(label.c_str(), p.name.c_str(), app.preset_name == p.name)) {
        if (load_preset(app, p.name))
          post_message(app, "preset " + p.name);
        else
          post_message(app, app.model_error);
      }
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Import config.json...")) app.ui.open_import_popup = true;
    ImGui::Separator();
    if (ImGui::MenuItem("Export window as PNG...")) {
      app.ui.open_export_popup = true;
      app.ui.export_kind = UiState::ExportKind::kPng;
      std::snprintf(app.ui.export_path, sizeof app.ui.export_path, "attnlab.png");
    }
    if (ImGui::MenuItem("Export KV table as CSV...")) {
      app.ui.open_export_popup = true;
      app.ui.export_kind = UiState::ExportKind::kKvCsv;
      std::snprintf(app.ui.export_path, sizeof app.ui.export_path, "attnlab-kv-%s.csv",
                    app.model.name.c_str());
    }
    if (ImGui::MenuItem("Export KV table as JSON...")) {
      app.ui.open_export_popup = true;
      app.ui.export_kind = UiState::ExportKind::kKvJson;
      std::snprintf(app.ui.export_path, sizeof app.ui.export_path, "attnlab-kv-%s.json",
                    app.model.name.c_str());
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    float s = app.ui_scale;
    // Applied by main.cpp between frames (the font atlas is rebuilt there).
    if (ImGui::SliderFloat("UI scale", &s, 0.75f, 2.0f, "%.2f")) app.ui_scale = s;
    ImGui::SameLine();
    vis::help_marker("Scales fonts and spacing. Applied when the slider is released.");
    ImGui::EndMenu();
  }
  ImGui::EndMainMenuBar();
}

// ---- [SECTION] Popups ----------------------------------------------------------------------

void draw_import_popup(App& app) {
  if (app.ui.open_import_popup) {
    ImGui::OpenPopup("Import config.json");
    app.ui.open_import_popup = false;
  }
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 40, 0), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal("Import config.json", nullptr, ImGuiWindowFlags_NoSavedSettings))
    return;
  ImGui::TextWrapped("A Hugging Face config.json (the file as published with the model).");
  ImGui::SetNextItemWidth(-1);
  const bool enter =
      ImGui::InputText("##path", app.model_view.import_path, sizeof app.model_view.import_path,
                       ImGuiInputTextFlags_EnterReturnsTrue);
  if (!app.model_view.import_error.empty()) vis::error_text(app.model_view.import_error);
  if (ImGui::Button("Import") || enter) {
    app.model_view.import_error.clear();
    if (import_config(app, app.model_view.import_path, &app.model_view.import_error)) {
      post_message(app, std::string("imported ") + app.model_view.import_path);
      ImGui::CloseCurrentPopup();
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

void draw_export_popup(App& app) {
  if (app.ui.open_export_popup) {
    ImGui::OpenPopup("Export");
    app.ui.open_export_popup = false;
    app.ui.export_error.clear();
  }
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 40, 0), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal("Export", nullptr, ImGuiWindowFlags_NoSavedSettings)) return;
  static const char* kKinds[] = {"PNG of the window", "KV table as CSV", "KV table as JSON"};
  enum_combo("what", &app.ui.export_kind, kKinds, 3);
  ImGui::SetNextItemWidth(-1);
  const bool enter = ImGui::InputText("##exportpath", app.ui.export_path, sizeof app.ui.export_path,
                                      ImGuiInputTextFlags_EnterReturnsTrue);
  if (!app.ui.export_error.empty()) vis::error_text(app.ui.export_error);
  if (ImGui::Button("Save") || enter) {
    const std::string path = app.ui.export_path;
    app.ui.export_error.clear();
    if (path.empty()) {
      app.ui.export_error = "give a file name";
    } else if (app.ui.export_kind == UiState::ExportKind::kPng) {
      app.ui.png_request = path;  // written by main.cpp after this frame renders
      ImGui::CloseCurrentPopup();
    } else {
      try {
        attn::write_file_atomic(path, app.ui.export_kind == UiState::ExportKind::kKvCsv
                                          ? kv_table_csv(app)
                                          : kv_table_json(app));
        post_message(app, "wrote " + path);
        ImGui::CloseCurrentPopup();
      } catch (const std::exception& e) {
        app.ui.export_error = e.what();
      }
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

// ---- [SECTION] Panels ----------------------------------------------------------------------

void ignore_log(void*, const char*, ...) {}

// Ends whatever a throwing panel left open, back to `depth` windows.
void recover_window_stack(int depth) {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  while (g.CurrentWindowStack.Size > depth) {
    ImGui::ErrorCheckEndWindowRecover(ignore_log, nullptr);
    if (g.CurrentWindowStack.Size <= depth) break;
    if (g.CurrentWindow->Flags & ImGuiWindowFlags_ChildWindow)
      ImGui::EndChild();
    else
      ImGui::End();
  }
}

// Places panel `index` (default grid, or the whole area when it is the focused one) and says
// whether it is drawn this frame.
bool place(App& app, int index, bool shown) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  // The main menu bar's height (WorkPos only follows it from the next frame on).
  const float top = ImGui::GetFrameHeight();
  const float bottom = status_bar_height();
  const ImVec2 d = vp->Size;
  if (!app.options.panel.empty()) {
    if (panel_index(app.options.panel) != index) return false;
    const PanelRect r = focused_rect(d.x, d.y, top, bottom);
    ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + r.x, vp->Pos.y + r.y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(r.w, r.h), ImGuiCond_Always);
    if (app.frame < 2) ImGui::SetNextWindowFocus();
    return true;
  }
  if (!shown) return false;
  const PanelRect r = default_layout(d.x, d.y, top, bottom)[static_cast<size_t>(index)];
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + r.x, vp->Pos.y + r.y), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(r.w, r.h), ImGuiCond_FirstUseEver);
  return true;
}

// Draws panel `index` (its name in panel_names()), catching what it throws, and times it.
void guarded(App& app, int index, void (*draw)(App&)) {
  const int depth = ImGui::GetCurrentContext()->CurrentWindowStack.Size;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    draw(app);
  } catch (const std::exception& e) {
    recover_window_stack(depth);
    post_message(app, panel_names()[static_cast<size_t>(index)] + " panel: " + e.what());
  }
  app.ui.panel_ms[static_cast<size_t>(index)] =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// ---- [SECTION] Status bar ------------------------------------------------------------------

void draw_status_bar(App& app) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float h = status_bar_height();
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x, vp->Pos.y + vp->Size.y - h));
  ImGui::SetNextWindowSize(ImVec2(vp->Size.x, h));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoNav;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(8, 2));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0);
  if (ImGui::Begin("##status", nullptr, flags)) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(device_summary(app.device).c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("|");
    ImGui::SameLine();
    const std::string model =
        (app.model.display_name.empty() ? app.model.name : app.model.display_name);
    ImGui::Text("%s", model.c_str());
    if (!app.ui.status.empty()) {
      ImGui::SameLine();
      ImGui::TextDisabled("|");
      ImGui::SameLine();
      ImGui::TextUnformatted(app.ui.status.c_str());
      if (ImGui::IsItemHovered() && app.messages.size() > 1) {
        ImGui::BeginTooltip();
        const size_t n = app.messages.size();
        for (size_t i = n > 10 ? n - 10 : 0; i < n; ++i)
          ImGui::TextUnformatted(app.messages[i].c_str());
        ImGui::EndTooltip();
      }
    }
  }
  ImGui::End();
  ImGui::PopStyleVar(2);
}

}  // namespace

bool apply_explorer_options(App& app, const ExplorerOptions& opt, std::string* error) {
  app.options = opt;
  if (!opt.preset.empty() && !load_preset(app, opt.preset)) {
    if (error) *error = app.model_error;
    return false;
  }
  if (!opt.variant.empty() && !set_what_if_variant(app, opt.variant)) {
    if (error) *error = "unknown variant '" + opt.variant + "' (known: mha, mqa, gqa, swa, mla)";
    return false;
  }
  if (!opt.panel.empty() && panel_index(opt.panel) < 0) {
    if (error) *error = "unknown panel '" + opt.panel + "'";
    return false;
  }
  if (opt.view == "workbench" || !opt.panel.empty()) app.view = View::kWorkbench;
  if (!opt.start.empty()) app.shown(PanelId::kLatency) = true;
  if (opt.view == "learn") {
    app.view = View::kLearn;
    const auto& chapters = learn::chapters();
    if (opt.learn_chapter > static_cast<int>(chapters.size())) {
      if (error)
        *error = "--learn: chapter " + std::to_string(opt.learn_chapter) + " does not exist (" +
                 std::to_string(chapters.size()) + " chapters)";
      return false;
    }
    const learn::Chapter& c = *chapters[static_cast<size_t>(opt.learn_chapter - 1)];
    if (opt.learn_beat > c.beats) {
      if (error)
        *error = "--learn: chapter " + std::to_string(opt.learn_chapter) + " has " +
                 std::to_string(c.beats) + " beats, found beat " + std::to_string(opt.learn_beat);
      return false;
    }
    learn::go_to(app, opt.learn_chapter - 1, opt.learn_beat - 1);
  }
  if (opt.view == "compare") {
    app.view = View::kCompare;
    app.compare.columns.clear();
    for (const std::string& item : opt.compare) {
      if (attn::parse_variant(item))
        app.compare.columns.push_back({"", item});
      else
        app.compare.columns.push_back({item, ""});
    }
  }
  return true;
}

bool start_option_job(App& app, const std::string& start, std::string* error) {
  LatencyState& st = app.latency;
  bool ok = false;
  if (start == "side-by-side") {
    ok = start_side_by_side(app);
  } else {
    const auto colon = start.find(':');
    const auto w =
        colon == std::string::npos ? std::nullopt : latency_workload(start.substr(colon + 1));
    if (!w) {
      if (error) *error = "--start: unknown job '" + start + "'";
      return false;
    }
    st.device = start.compare(0, colon, "gpu") == 0 ? BenchTarget::kGpu : BenchTarget::kCpu;
    st.workload = *w;
    ok = start_latency_job(app);
  }
  if (!ok && error) *error = "--start " + start + ": " + st.job_error;
  return ok;
}

std::string device_summary(const kern::DeviceInfo& d) {
  if (!d.available)
    return "no GPU: CPU only" + (d.reason.empty() ? std::string() : " (" + d.reason + ")");
  std::string s = "GPU: " + (d.name.empty() ? std::string("unnamed device") : d.name);
  if (d.total_memory > 0) s += ", " + attn::format_bytes(static_cast<double>(d.total_memory));
  return s;
}

// Runs a view's draw function, catching what it throws (as guarded() does for a panel).
void guarded_view(App& app, const char* name, void (*draw)(App&)) {
  const int depth = ImGui::GetCurrentContext()->CurrentWindowStack.Size;
  try {
    draw(app);
  } catch (const std::exception& e) {
    recover_window_stack(depth);
    post_message(app, std::string(name) + " view: " + e.what());
  }
}

void draw_workbench(App& app) {
  for (const PanelInfo& p : kPanelTable) {
    const int i = static_cast<int>(index_of(p.id));
    if (place(app, i, app.shown(p.id))) guarded(app, i, kPanelDraw[index_of(p.id)]);
  }
  if (!app.ui.focus_panel.empty()) {
    ImGui::SetWindowFocus(app.ui.focus_panel.c_str());
    app.ui.focus_panel.clear();
  }
}

void draw_frame(App& app) {
  draw_menus(app);
  app.ui.panel_ms.fill(0.0);
  switch (app.view) {
    case View::kLearn:
      guarded_view(app, "learn", learn::draw_learn_view);
      break;
    case View::kCompare:
      guarded_view(app, "compare", draw_compare_view);
      break;
    case View::kWorkbench:
      draw_workbench(app);
      break;
  }
  draw_import_popup(app);
  draw_export_popup(app);
  draw_status_bar(app);
  ++app.frame;
}

}  // namespace app
