// libFuzzer target: the explorer's settings reader (app::settings_from_json in
// app/settings_file.cpp, compiled in without ImGui). Properties: any text gives settings or
// attn::InputError (load_settings then moves the file aside and uses defaults); settings that
// were read are written by settings_to_json to a text that reads back to the same settings.
#include <cstddef>
#include <cstdint>
#include <string>

#include "app/settings_file.h"
#include "attention/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  app::Settings s;
  try {
    s = app::settings_from_json(text, "fuzz/settings.json");
  } catch (const attn::InputError&) {
    return 0;
  }
  const std::string written = app::settings_to_json(s);
  app::Settings s2;
  try {
    s2 = app::settings_from_json(written, "roundtrip.json");
  } catch (const attn::InputError&) {
    __builtin_trap();  // the reader refused what the writer wrote
  }
  if (app::settings_to_json(s2) != written) __builtin_trap();
  return 0;
}
