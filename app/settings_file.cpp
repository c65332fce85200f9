#include "app/settings_file.h"

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "attention/config.h"
#include "attention/dtype.h"
#include "attention/error.h"
#include "attention/npy.h"

namespace app {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const char* kFileName = "settings.json";

[[noreturn]] void bad(const std::string& origin, const std::string& field, const std::string& want,
                      const json& found) {
  std::string text = found.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 80) text = text.substr(0, 77) + "...";  // a message, not the file
  throw attn::InputError(origin + ": field '" + field + "': expected " + want + ", found " + text);
}

void read_bool(const json& j, const char* f, bool& out, const std::string& origin) {
  if (!j.contains(f)) return;
  if (!j[f].is_boolean()) bad(origin, f, "true or false", j[f]);
  out = j[f].get<bool>();
}

void read_string(const json& j, const char* f, std::string& out, const std::string& origin) {
  if (!j.contains(f)) return;
  if (!j[f].is_string()) bad(origin, f, "a string", j[f]);
  out = j[f].get<std::string>();
}

template <class Int>
void read_int(const json& j, const char* f, Int& out, std::int64_t lo, std::int64_t hi,
              const std::string& origin) {
  if (!j.contains(f)) return;
  if (!j[f].is_number_integer()) bad(origin, f, "an integer", j[f]);
  const std::int64_t v = j[f].get<std::int64_t>();
  if (v < lo || v > hi)
    bad(origin, f, "an integer in " + std::to_string(lo) + ".." + std::to_string(hi), j[f]);
  out = static_cast<Int>(v);
}

}  // namespace

std::string settings_to_json(const Settings& s) {
  json j;
  j["preset"] = s.preset;
  j["import_path"] = s.import_path;
  j["what_if"] = s.what_if;
  j["what_if_variant"] = s.what_if_variant;
  j["what_if_kv_heads"] = s.what_if_kv_heads;
  j["what_if_latent_dim"] = s.what_if_latent_dim;
  j["what_if_rope_dim"] = s.what_if_rope_dim;
  j["what_if_window"] = s.what_if_window;
  j["what_if_local_per_global"] = s.what_if_local_per_global;
  j["kv_dtype"] = s.kv_dtype;
  j["tp"] = s.tp;
  j["seq"] = s.seq;
  j["batch"] = s.batch;
  j["gpu"] = s.gpu;
  json show = json::object();
  for (size_t i = 0; i < s.show.size(); ++i) show[panel_names()[i]] = s.show[i];
  j["show"] = show;
  j["ui_scale"] = s.ui_scale;
  j["mla_naive"] = s.mla_naive;
  // A path that is not UTF-8 (a Latin-1 file name) is written with U+FFFD, never an exception.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Settings settings_from_json(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw attn::InputError(origin + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object()) throw attn::InputError(origin + ": expected a JSON object, found " + std::string(j.type_name()));
  Settings s;
  read_string(j, "preset", s.preset, origin);
  read_string(j, "import_path", s.import_path, origin);
  read_bool(j, "what_if", s.what_if, origin);
  read_string(j, "what_if_variant", s.what_if_variant, origin);
  if (!attn::parse_variant(s.what_if_variant))
    bad(origin, "what_if_variant", "one of mha, mqa, gqa, swa, mla", j["what_if_variant"]);
  read_int(j, "what_if_kv_heads", s.what_if_kv_heads, 0, attn::Limits::kMaxHeads, origin);
  read_int(j, "what_if_latent_dim", s.what_if_latent_dim, 1, attn::Limits::kMaxHeadDim, origin);
  read_int(j, "what_if_rope_dim", s.what_if_rope_dim, 0, attn::Limits::kMaxHeadDim, origin);
  read_int(j, "what_if_window", s.what_if_window, 1, attn::Limits::kMaxSeq, origin);
  read_int(j, "what_if_local_per_global", s.what_if_local_per_global, 0, attn::Limits::kMaxLayers, origin);
  read_string(j, "kv_dtype", s.kv_dtype, origin);
  if (!attn::parse_dtype(s.kv_dtype))
    bad(origin, "kv_dtype", "one of fp32, fp16, bf16, fp8, mxfp4", j["kv_dtype"]);
  read_int(j, "tp", s.tp, 1, 1024, origin);
  read_int(j, "seq", s.seq, 1, attn::Limits::kMaxSeq, origin);
  read_int(j, "batch", s.batch, 1, attn::Limits::kMaxBatch, origin);
  read_string(j, "gpu", s.gpu, origin);
  if (j.contains("show")) {
    if (!j["show"].is_object()) bad(origin, "show", "an object of panel name -> bool", j["show"]);
    for (size_t i = 0; i < s.show.size(); ++i) {
      const std::string& n = panel_names()[i];
      if (!j["show"].contains(n)) continue;
      if (!j["show"][n].is_boolean()) bad(origin, "show." + n, "true or false", j["show"][n]);
      s.show[i] = j["show"][n].get<bool>();
    }
  }
  if (j.contains("ui_scale")) {
    if (!j["ui_scale"].is_number()) bad(origin, "ui_scale", "a number", j["ui_scale"]);
    const double v = j["ui_scale"].get<double>();
    if (!(v >= 0.5 && v <= 3.0)) bad(origin, "ui_scale", "a number in 0.5..3", j["ui_scale"]);
    s.ui_scale = static_cast<float>(v);
  }
  read_bool(j, "mla_naive", s.mla_naive, origin);
  return s;
}


std::string settings_dir() {
  if (const char* d = std::getenv("ATTNLAB_CONFIG_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/attnlab";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/attnlab";
  return ".attnlab";
}

LoadedSettings load_settings(const std::string& dir) {
  LoadedSettings out;
  const std::string path = dir + "/" + kFileName;
  std::error_code ec;
  if (!fs::exists(path, ec)) return out;
  try {
    const auto size = fs::file_size(path, ec);
    if (ec) throw attn::InputError(path + ": cannot read (" + ec.message() + ")");
    if (size > static_cast<std::uintmax_t>(attn::Limits::kMaxConfigBytes))
      throw attn::InputError(path + ": " + std::to_string(size) + " bytes is too large for a settings file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw attn::InputError(path + ": cannot open for reading");
    std::ostringstream ss;
    ss << in.rdbuf();
    out.settings = settings_from_json(ss.str(), path);
    out.from_file = true;
  } catch (const std::exception& e) {
    out.settings = Settings{};
    // Never over an earlier bad file kept aside (two bad starts in one second).
    std::string aside = path + ".bad-" + std::to_string(static_cast<long long>(std::time(nullptr)));
    const std::string base = aside;
    for (int n = 1; fs::exists(aside, ec) && n < 1000; ++n) aside = base + "-" + std::to_string(n);
    fs::rename(path, aside, ec);
    out.warning = std::string("settings file was unusable (") + e.what() + "); " +
                  (ec ? "could not move it aside (" + ec.message() + ")"
                      : "moved to " + aside) +
                  "; using defaults";
  }
  return out;
}

void save_settings(const std::string& dir, const Settings& s) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw attn::InputError(dir + ": cannot create the settings folder (" + ec.message() + ")");
  attn::write_file_atomic(dir + "/" + kFileName, settings_to_json(s));
}

}  // namespace app
