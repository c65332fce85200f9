// Fonts and style: DejaVu Sans (fonts-dejavu-core) when installed, else ImGui's built-in font;
// the dark style scaled by the UI scale. Used by main.cpp and by the headless tests alike.
#pragma once
#include <string>

namespace app {

// Clears and refills the font atlas (the caller uploads it again) and resets the style.
// Returns the font file used, or "built-in".
std::string setup_fonts_and_style(float ui_scale);

}  // namespace app
