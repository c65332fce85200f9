// Fonts and style: DejaVu Sans (fonts-dejavu-core) when installed, else ImGui's built-in font;
// the dark style scaled by the UI scale. Used by main.cpp and by the headless tests alike.
#pragma once
#include <string>

struct ImFont;

namespace app {

// The fonts of the atlas, each rasterised at the size it is drawn: body text (panels), the Learn
// view's captions and canvas labels, and its titles. Valid after setup_fonts_and_style.
struct Fonts {
  ImFont* body = nullptr;
  ImFont* caption = nullptr;
  ImFont* title = nullptr;
};
const Fonts& fonts();

// Clears and refills the font atlas (the caller uploads it again) and resets the style.
// Returns the font file used, or "built-in".
std::string setup_fonts_and_style(float ui_scale);

}  // namespace app
