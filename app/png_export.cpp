#include "app/png_export.h"

#include <stb_image_write.h>

#include "attention/error.h"
#include "attention/npy.h"

namespace app {
namespace {

void append(void* ctx, void* data, int size) {
  auto* out = static_cast<std::string*>(ctx);
  out->append(static_cast<const char*>(data), static_cast<size_t>(size));
}

}  // namespace

void write_png_bottom_up(const std::string& path, int width, int height,
                         const std::vector<std::uint8_t>& rgba) {
  if (width <= 0 || height <= 0 ||
      rgba.size() != static_cast<size_t>(width) * static_cast<size_t>(height) * 4)
    throw attn::InputError(path + ": no image to write (" + std::to_string(width) + "x" +
                           std::to_string(height) + ", " + std::to_string(rgba.size()) + " bytes)");
  const size_t stride = static_cast<size_t>(width) * 4;
  std::vector<std::uint8_t> flipped(rgba.size());
  for (int y = 0; y < height; ++y)
    std::copy(
        rgba.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(height - 1 - y) * stride),
        rgba.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(height - y) * stride),
        flipped.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(y) * stride));
  std::string png;
  if (!stbi_write_png_to_func(append, &png, width, height, 4, flipped.data(),
                              static_cast<int>(stride)))
    throw attn::InputError(path + ": PNG encoding failed");
  attn::write_file_atomic(path, png);
}

}  // namespace app
