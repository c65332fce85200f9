// State of the frame around the panels (app/explorer.cpp): menus, popups, the status line.
#pragma once
#include <array>
#include <string>

#include "app/panel_table.h"

namespace app {

struct UiState {
  bool open_import_popup = false;  // set by the menu, consumed when the popup opens
  bool open_export_popup = false;
  enum class ExportKind : int { kPng, kKvCsv, kKvJson };  // the window, or the KV table
  ExportKind export_kind = ExportKind::kPng;
  char export_path[1024] = "";
  std::string export_error;  // shown in the export popup
  // A PNG export asked for by the menu; main.cpp reads the framebuffer after the next render,
  // writes the file and clears this (the frame code never touches OpenGL).
  std::string png_request;
  std::string focus_panel;  // a panel window to bring to the front next frame (its title)
  std::string status;  // last message, shown in the status bar
  // Time each panel took to build in the last frame (ms, panel_names() order; 0 when not
  // drawn), measured by draw_frame for the frame statistics (app/frame_stats.h).
  std::array<double, kPanelCount> panel_ms{};
};

}  // namespace app
