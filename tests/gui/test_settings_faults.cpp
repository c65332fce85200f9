// Faults of the explorer's settings file: a corrupt, huge or misplaced settings file
// gives a warning and defaults, and is kept aside, never overwritten, also when it happens twice
// in one second; saving to a place that cannot be written is an InputError that leaves the old
// file as it was and no temporary beside it; names that are not UTF-8 never throw.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>

#include "../fault_util.h"
#include "app/settings_file.h"
#include "attention/error.h"

namespace fs = std::filesystem;

namespace {

std::vector<std::string> kept_aside(const fault::TempDir& d) {
  std::vector<std::string> names;
  for (const std::string& n : fault::dir_entries(d.path))
    if (n.rfind("settings.json.bad-", 0) == 0) names.push_back(n);
  return names;
}

}  // namespace

TEST_CASE("settings faults: bad files twice in a second are both kept aside, unchanged",
          "[gui][settings][faults]") {
  fault::TempDir d;
  const std::string first = "{\"tp\": \"two\"}";
  const std::string second = "{ not json";
  fault::write_bytes(d / "settings.json", first);
  const app::LoadedSettings a = app::load_settings(d.path.string());
  fault::write_bytes(d / "settings.json", second);
  const app::LoadedSettings b = app::load_settings(d.path.string());
  INFO(a.warning << "\n" << b.warning);
  CHECK(a.from_file);  // an object with one bad field: read, that field falls back, a copy kept
  CHECK_FALSE(b.from_file);
  CHECK(a.warning.find("tp") != std::string::npos);
  CHECK_FALSE(b.warning.empty());
  const std::vector<std::string> aside = kept_aside(d);
  REQUIRE(aside.size() == 2);
  std::vector<std::string> contents;
  for (const std::string& n : aside) contents.push_back(fault::read_bytes(d / n));
  CHECK(std::count(contents.begin(), contents.end(), first) == 1);
  CHECK(std::count(contents.begin(), contents.end(), second) == 1);
  CHECK(app::settings_to_json(a.settings) == app::settings_to_json(app::Settings{}));
}

TEST_CASE("settings faults: a 2 GiB settings file is refused by its size, quickly",
          "[gui][settings][faults][limits]") {
  fault::TempDir d;
  const int fd = ::open((d / "settings.json").c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, off_t(2) << 30) == 0);  // sparse: no disk used
  ::close(fd);
  const auto t0 = std::chrono::steady_clock::now();
  const app::LoadedSettings l = app::load_settings(d.path.string());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(l.warning << " (" << secs << " s)");
  CHECK(secs < 1.0);  // reading 2 GiB would take longer and need 2 GiB
  CHECK_FALSE(l.from_file);
  CHECK(l.warning.find("too large") != std::string::npos);
  CHECK(kept_aside(d).size() == 1);
}

TEST_CASE("settings faults: a folder named settings.json gives defaults and a warning",
          "[gui][settings][faults]") {
  fault::TempDir d;
  fs::create_directories(d.path / "settings.json");
  const app::LoadedSettings l = app::load_settings(d.path.string());
  CHECK_FALSE(l.from_file);
  CHECK_FALSE(l.warning.empty());
}

TEST_CASE("settings faults: saving where it cannot be written fails cleanly",
          "[gui][settings][faults]") {
  fault::TempDir d;
  // The settings folder's path is taken by a file: the folder cannot be created.
  fault::write_bytes(d / "cfg", "a file, not a folder");
  CHECK_THROWS_AS(app::save_settings(d / "cfg", app::Settings{}), attn::InputError);
  CHECK(fault::read_bytes(d / "cfg") == "a file, not a folder");
  // A folder in the file's place: the old one stays, no temporary is left.
  fs::create_directories(d.path / "dir" / "settings.json");
  CHECK_THROWS_AS(app::save_settings(d / "dir", app::Settings{}), attn::InputError);
  CHECK(fault::dir_entries(d.path / "dir") == std::set<std::string>{"settings.json"});
}

TEST_CASE("settings faults: a path that is not UTF-8 is saved without an exception",
          "[gui][settings][faults]") {
  fault::TempDir d;
  app::Settings s;
  s.import_path = "/home/user/mod\xe8le/config.json";  // Latin-1 e-grave
  REQUIRE_NOTHROW(app::save_settings(d.path.string(), s));
  const app::LoadedSettings l = app::load_settings(d.path.string());
  INFO(l.warning);
  CHECK(l.from_file);
  CHECK(l.settings.import_path.find("config.json") != std::string::npos);
}

TEST_CASE("settings faults: random damage to a saved file never throws from load",
          "[gui][settings][faults]") {
  const unsigned seed = 4242;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  fault::TempDir d;
  const std::string good = app::settings_to_json(app::Settings{});
  for (int trial = 0; trial < 200; ++trial) {
    std::string t = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % t.size();
      switch (rng() % 3) {
        case 0:
          t[at] = static_cast<char>(rng() % 256);
          break;
        case 1:
          t.erase(at, 1 + rng() % 8);
          break;
        default:
          t.insert(at, std::string(1 + rng() % 3, "{}[]\",:9e-"[rng() % 10]));
          break;
      }
      if (t.empty()) t = "{";
    }
    fault::write_bytes(d / "settings.json", t);
    CAPTURE(trial, t);
    app::LoadedSettings l;
    REQUIRE_NOTHROW(l = app::load_settings(d.path.string()));
    // Read as it was (no warning, nothing aside); read with fields fallen back (a warning, the
    // file in place and a copy aside); or unusable (a warning, the file moved aside).
    const std::vector<std::string> aside = kept_aside(d);
    const bool in_place = fs::exists(d.path / "settings.json");
    CHECK(l.from_file == in_place);
    CHECK(l.warning.empty() == aside.empty());
    CHECK(aside.size() <= 1);
    if (!l.from_file) CHECK_FALSE(l.warning.empty());
    for (const std::string& n : aside) {
      CHECK(fault::read_bytes(d / n) == t);
      fs::remove(d.path / n);
    }
  }
}
