// libFuzzer target: the explorer's settings reader (app::settings_from_json in
// app/settings_file.cpp, compiled in without ImGui). Properties, for any text:
// - the lenient reader (what load_settings uses) gives settings, or attn::InputError only when
//   the text is not a JSON object; what it gives is written by settings_to_json to a text that
//   both readers take back, without a warning, to the same settings;
// - the strict reader gives settings or attn::InputError; when it gives settings, the lenient
//   reader gives the same ones with no warning (and when it refuses, the lenient one warns or
//   refuses too).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/settings_file.h"
#include "attention/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> warnings;
  app::Settings lenient;
  bool lenient_ok = true;
  try {
    lenient = app::settings_from_json(text, "fuzz/settings.json", &warnings);
  } catch (const attn::InputError&) {
    lenient_ok = false;
  }
  bool strict_ok = true;
  app::Settings strict;
  try {
    strict = app::settings_from_json(text, "fuzz/settings.json");
  } catch (const attn::InputError&) {
    strict_ok = false;
  }
  if (strict_ok && (!lenient_ok || !warnings.empty())) __builtin_trap();
  if (!strict_ok && lenient_ok && warnings.empty()) __builtin_trap();
  if (strict_ok && app::settings_to_json(strict) != app::settings_to_json(lenient))
    __builtin_trap();
  if (!lenient_ok) return 0;

  const std::string written = app::settings_to_json(lenient);
  std::vector<std::string> again;
  app::Settings s2;
  try {
    s2 = app::settings_from_json(written, "roundtrip.json");
    (void)app::settings_from_json(written, "roundtrip.json", &again);
  } catch (const attn::InputError&) {
    __builtin_trap();  // a reader refused what the writer wrote
  }
  if (!again.empty()) __builtin_trap();
  if (app::settings_to_json(s2) != written) __builtin_trap();
  return 0;
}
