#include "app/style.h"

#include <algorithm>
#include <filesystem>

#include <imgui.h>

namespace app {
namespace {
Fonts g_fonts;
}  // namespace

const Fonts& fonts() { return g_fonts; }

std::string setup_fonts_and_style(float ui_scale) {
  ui_scale = std::clamp(ui_scale, 0.5f, 3.0f);
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  std::string used = "built-in";
  g_fonts = Fonts{};
  static const char* kCandidates[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"};
  for (const char* path : kCandidates) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;
    // Glyphs rasterised at 1x and snapped to pixels, so the atlas can be sampled with nearest
    // filtering (main.cpp): identical text, far cheaper on a software renderer. Each size is
    // rasterised as drawn, never scaled.
    ImFontConfig cfg;
    cfg.OversampleH = 1;
    cfg.OversampleV = 1;
    cfg.PixelSnapH = true;
    if ((g_fonts.body = io.Fonts->AddFontFromFileTTF(path, 15.0f * ui_scale, &cfg))) {
      g_fonts.caption = io.Fonts->AddFontFromFileTTF(path, 19.0f * ui_scale, &cfg);
      g_fonts.title = io.Fonts->AddFontFromFileTTF(path, 28.0f * ui_scale, &cfg);
      used = path;
      break;
    }
  }
  if (used == "built-in") {
    ImFontConfig cfg;
    cfg.SizePixels = 13.0f * ui_scale;
    g_fonts.body = io.Fonts->AddFontDefault(&cfg);
    cfg.SizePixels = 18.0f * ui_scale;
    g_fonts.caption = io.Fonts->AddFontDefault(&cfg);
    cfg.SizePixels = 26.0f * ui_scale;
    g_fonts.title = io.Fonts->AddFontDefault(&cfg);
  }
  if (!g_fonts.caption) g_fonts.caption = g_fonts.body;
  if (!g_fonts.title) g_fonts.title = g_fonts.caption;
  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();
  ImGui::StyleColorsDark(&style);
  style.WindowRounding = 4.0f;
  style.FrameRounding = 3.0f;
  style.ScaleAllSizes(ui_scale);
  style.AntiAliasedLinesUseTex = false;

  return used;
}

}  // namespace app
