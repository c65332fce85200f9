#include "app/style.h"

#include <algorithm>
#include <filesystem>

#include <imgui.h>

namespace app {

std::string setup_fonts_and_style(float ui_scale) {
  ui_scale = std::clamp(ui_scale, 0.5f, 3.0f);
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  std::string used = "built-in";
  static const char* kCandidates[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"};
  for (const char* path : kCandidates) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;
    // Glyphs rasterised at 1x and snapped to pixels, so the atlas can be sampled with nearest
    // filtering (main.cpp): identical text, far cheaper on a software renderer.
    ImFontConfig cfg;
    cfg.OversampleH = 1;
    cfg.OversampleV = 1;
    cfg.PixelSnapH = true;
    if (io.Fonts->AddFontFromFileTTF(path, 15.0f * ui_scale, &cfg)) {
      used = path;
      break;
    }
  }
  if (used == "built-in") {
    ImFontConfig cfg;
    cfg.SizePixels = 13.0f * ui_scale;
    io.Fonts->AddFontDefault(&cfg);
  }
  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();
  ImGui::StyleColorsDark(&style);
  style.WindowRounding = 4.0f;
  style.FrameRounding = 3.0f;
  style.ScaleAllSizes(ui_scale);

  return used;
}

}  // namespace app
