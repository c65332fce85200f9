// PNG files of the window (screenshot mode and File > Export), through stb_image_write, written
// atomically (temporary name, then rename: attn::write_file_atomic).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace app {

// rgba: width * height * 4 bytes, rows bottom-up as glReadPixels returns them; flipped here.
// Throws attn::InputError naming the path when the file cannot be written.
void write_png_bottom_up(const std::string& path, int width, int height,
                         const std::vector<std::uint8_t>& rgba);

}  // namespace app
