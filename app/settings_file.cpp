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
constexpr std::size_t kMaxPathField = 1023;  // the panels' path fields are char[1024]

std::string shown(const json& found) {
  std::string text = found.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 80) text = text.substr(0, 77) + "...";  // a message, not the file
  return text;
}

// Reads the fields of one JSON object. A bad field either throws attn::InputError (strict:
// no warnings list) or adds its message to the list and leaves the output as it was (the
// default). Every read_* returns whether the field was present and taken.
class Reader {
 public:
  Reader(const json& j, std::string origin, std::string prefix, std::vector<std::string>* warnings)
      : j_(j), origin_(std::move(origin)), prefix_(std::move(prefix)), warnings_(warnings) {}

  void bad(const std::string& field, const std::string& want, const json& found) const {
    const std::string msg =
        origin_ + ": field '" + prefix_ + field + "': expected " + want + ", found " + shown(found);
    if (!warnings_) throw attn::InputError(msg);
    warnings_->push_back(msg + " (default used)");
  }
  const json* get(const char* f) const {
    const auto it = j_.find(f);
    return it == j_.end() ? nullptr : &*it;
  }

  bool read_bool(const char* f, bool& out) const {
    const json* v = get(f);
    if (!v) return false;
    if (!v->is_boolean()) return bad(f, "true or false", *v), false;
    out = v->get<bool>();
    return true;
  }
  bool read_string(const char* f, std::string& out,
                   std::size_t max_bytes = std::string::npos) const {
    const json* v = get(f);
    if (!v) return false;
    if (!v->is_string()) return bad(f, "a string", *v), false;
    const std::string& t = v->get_ref<const std::string&>();
    if (t.size() > max_bytes)
      return bad(f, "a string of at most " + std::to_string(max_bytes) + " bytes", *v), false;
    out = t;
    return true;
  }
  // A string that must be one of `allowed` (listed in the message).
  bool read_choice(const char* f, std::string& out, const std::vector<std::string>& allowed) const {
    const json* v = get(f);
    if (!v) return false;
    if (v->is_string())
      for (const std::string& a : allowed)
        if (v->get_ref<const std::string&>() == a) return out = a, true;
    std::string list;
    for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
    return bad(f, "one of " + list, *v), false;
  }
  template <class Int>
  bool read_int(const char* f, Int& out, std::int64_t lo, std::int64_t hi) const {
    const json* v = get(f);
    if (!v) return false;
    const bool in_range =
        v->is_number_integer() &&
        (v->is_number_unsigned() ? v->get<std::uint64_t>() <= static_cast<std::uint64_t>(hi)
                                 : true);
    if (!in_range || v->get<std::int64_t>() < lo || v->get<std::int64_t>() > hi)
      return bad(f, "an integer in " + std::to_string(lo) + ".." + std::to_string(hi), *v), false;
    out = static_cast<Int>(v->get<std::int64_t>());
    return true;
  }
  bool read_number(const char* f, float& out, double lo, double hi) const {
    const json* v = get(f);
    if (!v) return false;
    const double d = v->is_number() ? v->get<double>() : 0.0;
    if (!v->is_number() || !(d >= lo && d <= hi)) {
      char want[64];
      std::snprintf(want, sizeof want, "a number in %g..%g", lo, hi);
      return bad(f, want, *v), false;
    }
    out = static_cast<float>(d);
    return true;
  }
  bool read_double(const char* f, double& out, double lo, double hi) const {
    float unused = 0;
    const json* v = get(f);
    if (!v) return false;
    if (!read_number(f, unused, lo, hi)) return false;
    out = v->get<double>();
    return true;
  }
  // A nested object: a Reader over it, or nothing (with a message) when it is not an object.
  std::optional<Reader> section(const char* f) const {
    const json* v = get(f);
    if (!v) return std::nullopt;
    if (!v->is_object()) return bad(f, "an object", *v), std::nullopt;
    return Reader(*v, origin_, prefix_ + f + ".", warnings_);
  }
  Reader strict() const { return Reader(j_, origin_, prefix_, nullptr); }

 private:
  const json& j_;
  std::string origin_, prefix_;
  std::vector<std::string>* warnings_;
};

// ---- the edited model ------------------------------------------------------------------------

json model_to_json(const attn::ModelConfig& m) {
  json j;
  j["name"] = m.name;
  j["display_name"] = m.display_name;
  j["source"] = m.source;
  j["model_type"] = m.model_type;
  j["variant"] = std::string(attn::variant_name(m.variant));
  j["num_layers"] = m.num_layers;
  j["hidden_size"] = m.hidden_size;
  j["q_heads"] = m.q_heads;
  j["kv_heads"] = m.kv_heads;
  j["head_dim"] = m.head_dim;
  j["value_dim"] = m.value_dim;
  j["latent_dim"] = m.latent_dim;
  j["rope_dim"] = m.rope_dim;
  j["qk_nope_dim"] = m.qk_nope_dim;
  j["q_lora_rank"] = m.q_lora_rank;
  j["window"] = m.window;
  json layers = json::array();
  for (attn::LayerKind k : m.layers) layers.push_back(std::string(attn::layer_kind_name(k)));
  j["layers"] = layers;
  j["max_seq"] = m.max_seq;
  j["scale"] = m.scale;
  j["notes"] = m.notes;
  return j;
}

// All or nothing: any bad field, or a model that does not validate, throws attn::InputError.
attn::ModelConfig model_from_json(const Reader& r0, const json& j) {
  const Reader r = r0.strict();
  attn::ModelConfig m;
  for (const char* f : {"name", "display_name", "source", "model_type", "variant", "num_layers",
                        "hidden_size", "q_heads", "kv_heads", "head_dim", "value_dim", "layers"})
    if (!r.get(f)) r.bad(f, "a value (the field is required)", json());
  r.read_string("name", m.name, 256);
  r.read_string("display_name", m.display_name, 256);
  r.read_string("source", m.source, kMaxPathField);
  r.read_string("model_type", m.model_type, 256);
  std::string variant;
  r.read_choice("variant", variant, {"mha", "mqa", "gqa", "swa", "mla"});
  m.variant = *attn::parse_variant(variant);
  r.read_int("num_layers", m.num_layers, 1, attn::Limits::kMaxLayers);
  r.read_int("hidden_size", m.hidden_size, 0, 1 << 20);
  r.read_int("q_heads", m.q_heads, 1, attn::Limits::kMaxHeads);
  r.read_int("kv_heads", m.kv_heads, 1, attn::Limits::kMaxHeads);
  r.read_int("head_dim", m.head_dim, 1, attn::Limits::kMaxHeadDim);
  r.read_int("value_dim", m.value_dim, 0, attn::Limits::kMaxHeadDim);
  r.read_int("latent_dim", m.latent_dim, 0, attn::Limits::kMaxHeadDim);
  r.read_int("rope_dim", m.rope_dim, 0, attn::Limits::kMaxHeadDim);
  r.read_int("qk_nope_dim", m.qk_nope_dim, 0, attn::Limits::kMaxHeadDim);
  r.read_int("q_lora_rank", m.q_lora_rank, 0, 1 << 20);
  r.read_int("window", m.window, 0, attn::Limits::kMaxSeq);
  r.read_int("max_seq", m.max_seq, 0, attn::Limits::kMaxSeq);
  r.read_double("scale", m.scale, 0.0, 1e6);
  const json& layers = j.at("layers");
  if (!layers.is_array() || layers.size() != static_cast<std::size_t>(m.num_layers))
    r.bad("layers",
          "an array of num_layers (" + std::to_string(m.num_layers) + ") \"full\" / \"sliding\"",
          layers);
  for (const json& k : layers) {
    if (k == "full")
      m.layers.push_back(attn::LayerKind::kFull);
    else if (k == "sliding")
      m.layers.push_back(attn::LayerKind::kSliding);
    else
      r.bad("layers", "\"full\" or \"sliding\" per layer", k);
  }
  if (const json* notes = r.get("notes")) {
    if (!notes->is_array() || notes->size() > 64)
      r.bad("notes", "an array of at most 64 strings", *notes);
    for (const json& n : *notes) {
      if (!n.is_string()) r.bad("notes", "an array of strings", n);
      m.notes.push_back(n.get<std::string>());
    }
  }
  m.validate();  // InputError naming the field
  return m;
}

Settings read_settings(const std::string& text, const std::string& origin,
                       std::vector<std::string>* warnings) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw attn::InputError(origin + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object())
    throw attn::InputError(origin + ": expected a JSON object, found " +
                           std::string(j.type_name()));
  const Reader r(j, origin, "", warnings);
  Settings s;
  int version = kSettingsVersion;
  r.read_int("version", version, 1, 1 << 20);  // a newer file: what this build knows is read
  r.read_string("preset", s.preset, 256);
  r.read_string("import_path", s.import_path, kMaxPathField);
  if (const json* m = r.get("model_edit"); m && !m->is_null()) {
    if (!m->is_object()) {
      r.bad("model_edit", "null or an object", *m);
    } else {
      try {
        s.edited_model = model_from_json(*r.section("model_edit"), *m);
      } catch (const attn::InputError& e) {
        if (!warnings) throw;
        warnings->push_back(std::string(e.what()) + " (the model edit is dropped)");
      }
    }
  }
  r.read_bool("what_if", s.what_if);
  r.read_choice("what_if_variant", s.what_if_variant, {"mha", "mqa", "gqa", "swa", "mla"});
  r.read_int("what_if_kv_heads", s.what_if_kv_heads, 0, attn::Limits::kMaxHeads);
  r.read_int("what_if_latent_dim", s.what_if_latent_dim, 1, attn::Limits::kMaxHeadDim);
  r.read_int("what_if_rope_dim", s.what_if_rope_dim, 0, attn::Limits::kMaxHeadDim);
  r.read_int("what_if_window", s.what_if_window, 1, attn::Limits::kMaxSeq);
  r.read_int("what_if_local_per_global", s.what_if_local_per_global, 0, attn::Limits::kMaxLayers);
  r.read_choice("kv_dtype", s.kv_dtype, {"fp32", "fp16", "bf16", "fp8", "mxfp4"});
  r.read_int("tp", s.tp, 1, 1024);
  r.read_int("seq", s.seq, 1, attn::Limits::kMaxSeq);
  r.read_int("batch", s.batch, 1, attn::Limits::kMaxBatch);
  r.read_string("gpu", s.gpu, 256);
  if (const auto show = r.section("show"))
    for (size_t i = 0; i < s.show.size(); ++i) show->read_bool(panel_names()[i].c_str(), s.show[i]);
  r.read_number("ui_scale", s.ui_scale, 0.5, 3.0);
  r.read_bool("mla_naive", s.mla_naive);

  if (const auto m = r.section("model_view")) {
    m->read_string("import_path", s.model_view.import_path, kMaxPathField);
    m->read_int("local_per_global", s.model_view.local_per_global, 1, 64);
  }
  if (const auto t = r.section("learn")) {
    t->read_choice("view", s.learn.view, {"learn", "workbench", "compare"});
    t->read_int("chapter", s.learn.chapter, 0, 63);
    t->read_int("beat", s.learn.beat, 0, 63);
  }
  if (const auto l = r.section("latency")) {
    LatencySettings& x = s.latency;
    l->read_choice("workload", x.workload, {"model", "sweep", "peers", "amd-mixed-mla", "amd-mla"});
    l->read_choice("device", x.device, {"cpu", "gpu"});
    l->read_choice("gpu_dtype", x.gpu_dtype, {"bf16", "fp16", "fp8"});
    l->read_int("layer", x.layer, 0, attn::Limits::kMaxLayers - 1);
    l->read_int("cpu_threads", x.cpu_threads, 0, 1024);
    l->read_int("min_runs", x.min_runs, 1, 100000);
    l->read_number("min_seconds", x.min_seconds, 0.0, 2.0);
    l->read_choice("plot_x", x.plot_x, {"S", "B"});
    l->read_bool("plot_all_sets", x.plot_all_sets);
    l->read_bool("plot_steps", x.plot_steps);
    l->read_string("import_path", x.import_path, kMaxPathField);
    l->read_string("export_path", x.export_path, kMaxPathField);
    l->read_choice("export_format", x.export_format, {"json", "csv"});
  }
  if (const auto d = r.section("data_flow")) {
    d->read_bool("animate", s.data_flow.animate);
    d->read_number("steps_per_second", s.data_flow.steps_per_second, 1.0, 30.0);
    d->read_int("layer", s.data_flow.layer, 0, attn::Limits::kMaxLayers - 1);
  }
  if (const auto a = r.section("attention")) {
    AttentionSettings& x = s.attention;
    a->read_int("tokens", x.tokens, 4, 64);
    a->read_int("head", x.head, 0, attn::Limits::kMaxHeads - 1);
    a->read_int("layer", x.layer, 0, attn::Limits::kMaxLayers - 1);
    a->read_int("picture_window", x.picture_window, 1, 64);
    a->read_int("seed", x.seed, 0, 4294967295LL);
  }
  return s;
}

}  // namespace

std::string settings_to_json(const Settings& s) {
  json j;
  j["version"] = kSettingsVersion;
  j["preset"] = s.preset;
  j["import_path"] = s.import_path;
  j["model_edit"] = s.edited_model ? model_to_json(*s.edited_model) : json(nullptr);
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
  j["model_view"] = {{"import_path", s.model_view.import_path},
                     {"local_per_global", s.model_view.local_per_global}};
  j["learn"] = {{"view", s.learn.view}, {"chapter", s.learn.chapter}, {"beat", s.learn.beat}};
  const LatencySettings& l = s.latency;
  j["latency"] = {{"workload", l.workload},           {"device", l.device},
                  {"gpu_dtype", l.gpu_dtype},         {"layer", l.layer},
                  {"cpu_threads", l.cpu_threads},     {"min_runs", l.min_runs},
                  {"min_seconds", l.min_seconds},     {"plot_x", l.plot_x},
                  {"plot_all_sets", l.plot_all_sets}, {"plot_steps", l.plot_steps},
                  {"import_path", l.import_path},     {"export_path", l.export_path},
                  {"export_format", l.export_format}};
  j["data_flow"] = {{"animate", s.data_flow.animate},
                    {"steps_per_second", s.data_flow.steps_per_second},
                    {"layer", s.data_flow.layer}};
  const AttentionSettings& a = s.attention;
  j["attention"] = {{"tokens", a.tokens},
                    {"head", a.head},
                    {"layer", a.layer},
                    {"picture_window", a.picture_window},
                    {"seed", a.seed}};
  // A path that is not UTF-8 (a Latin-1 file name) is written with U+FFFD, never an exception.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Settings settings_from_json(const std::string& text, const std::string& origin) {
  return read_settings(text, origin, nullptr);
}

Settings settings_from_json(const std::string& text, const std::string& origin,
                            std::vector<std::string>* warnings) {
  std::vector<std::string> local;
  return read_settings(text, origin, warnings ? warnings : &local);
}

std::string settings_dir() {
  if (const char* d = std::getenv("ATTNLAB_CONFIG_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/attnlab";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/attnlab";
  return ".attnlab";
}

namespace {

// A free name beside `path` for a bad file (never over an earlier one: two bad starts in one
// second).
std::string aside_name(const std::string& path) {
  std::error_code ec;
  std::string aside = path + ".bad-" + std::to_string(static_cast<long long>(std::time(nullptr)));
  const std::string base = aside;
  for (int n = 1; fs::exists(aside, ec) && n < 1000; ++n) aside = base + "-" + std::to_string(n);
  return aside;
}

}  // namespace

LoadedSettings load_settings(const std::string& dir) {
  LoadedSettings out;
  const std::string path = dir + "/" + kFileName;
  std::error_code ec;
  if (!fs::exists(path, ec)) return out;
  std::vector<std::string> warnings;
  try {
    const auto size = fs::file_size(path, ec);
    if (ec) throw attn::InputError(path + ": cannot read (" + ec.message() + ")");
    if (size > static_cast<std::uintmax_t>(attn::Limits::kMaxConfigBytes))
      throw attn::InputError(path + ": " + std::to_string(size) +
                             " bytes is too large for a settings file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw attn::InputError(path + ": cannot open for reading");
    std::ostringstream ss;
    ss << in.rdbuf();
    out.settings = settings_from_json(ss.str(), path, &warnings);
    out.from_file = true;
  } catch (const std::exception& e) {
    out.settings = Settings{};
    const std::string aside = aside_name(path);
    fs::rename(path, aside, ec);
    out.warning = std::string("settings file was unusable (") + e.what() + "); " +
                  (ec ? "could not move it aside (" + ec.message() + ")" : "moved to " + aside) +
                  "; using defaults";
    return out;
  }
  if (warnings.empty()) return out;
  // Some fields fell back: keep the file as it was for the user (it is rewritten later).
  const std::string aside = aside_name(path);
  fs::copy_file(path, aside, fs::copy_options::none, ec);
  std::string list;
  const std::size_t shown_max = 3;
  for (std::size_t i = 0; i < warnings.size() && i < shown_max; ++i)
    list += (i ? "; " : "") + warnings[i];
  if (warnings.size() > shown_max)
    list += "; and " + std::to_string(warnings.size() - shown_max) + " more";
  out.warning = "settings: " + std::to_string(warnings.size()) +
                " field(s) unusable, the rest kept: " + list + "; " +
                (ec ? "could not keep a copy (" + ec.message() + ")"
                    : "the file as it was is kept as " + aside);
  return out;
}

void save_settings(const std::string& dir, const Settings& s) {
  save_settings_text(dir, settings_to_json(s));
}

void save_settings_text(const std::string& dir, const std::string& json_text) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw attn::InputError(dir + ": cannot create the settings folder (" + ec.message() + ")");
  attn::write_file_atomic(dir + "/" + kFileName, json_text);
}

}  // namespace app
