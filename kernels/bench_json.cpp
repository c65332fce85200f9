// Benchmark reports as JSON (docs/DESIGN.md section 3) and back. The writer emits exactly the
// documented fields of each result plus the extras (scale, probe_gbps, label, peer_us,
// peer_name, error) and the provenance (date, commit, suite). The reader is strict: every
// documented field must be present with its type, values in range; extras are optional and
// unknown fields are ignored (results files may carry more provenance).
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "attention/config.h"
#include "attention/error.h"
#include "kernels/bench.h"

namespace kern {
namespace {

using Json = nlohmann::ordered_json;
using attn::InputError;

constexpr std::size_t kMaxReportBytes = 64u << 20;

Json number_or_null(double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); }

std::string type_of(const Json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number_integer() || j.is_number_unsigned()) return "an integer (" + j.dump() + ")";
  if (j.is_number_float()) return "a number (" + j.dump() + ")";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "an array";
  return "an object";
}

// Field access that names the field on every error.
struct Reader {
  const Json& obj;
  std::string where;  // "origin: results[3]"

  [[noreturn]] void bad(const std::string& key, const std::string& expected) const {
    const auto it = obj.find(key);
    throw InputError(
        where + "." + key + ": expected " + expected + ", found " +
        (it == obj.end() ? std::string("nothing (the field is missing)") : type_of(*it)));
  }
  const Json* get(const std::string& key, bool required) const {
    const auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) bad(key, "a value");
      return nullptr;
    }
    return &*it;
  }
  std::string str(const std::string& key, bool required, std::string dflt = "") const {
    const Json* j = get(key, required);
    if (!j) return dflt;
    if (!j->is_string()) bad(key, "a string");
    return j->get<std::string>();
  }
  std::int64_t integer(const std::string& key, bool required, std::int64_t lo, std::int64_t hi,
                       std::int64_t dflt = 0) const {
    const Json* j = get(key, required);
    if (!j) return dflt;
    const std::string range = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    if (j->is_number_unsigned()) {
      const auto u = j->get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(hi) || static_cast<std::int64_t>(u) < lo) bad(key, range);
      return static_cast<std::int64_t>(u);
    }
    if (!j->is_number_integer()) bad(key, range);
    const auto v = j->get<std::int64_t>();
    if (v < lo || v > hi) bad(key, range);
    return v;
  }
  std::uint64_t uinteger(const std::string& key, bool required) const {
    const Json* j = get(key, required);
    if (!j) return 0;
    if (j->is_number_unsigned()) return j->get<std::uint64_t>();
    if (j->is_number_integer() && j->get<std::int64_t>() >= 0)
      return static_cast<std::uint64_t>(j->get<std::int64_t>());
    bad(key, "an integer >= 0");
  }
  // Measurements: a number >= 0, or null (written for a non-finite value).
  double measure(const std::string& key, bool required) const {
    const Json* j = get(key, required);
    if (!j || j->is_null()) return j ? std::numeric_limits<double>::quiet_NaN() : 0.0;
    if (!j->is_number()) bad(key, "a number >= 0 or null");
    const double v = j->get<double>();
    if (!(v >= 0)) bad(key, "a number >= 0 or null");
    return v;
  }
  bool boolean(const std::string& key, bool required) const {
    const Json* j = get(key, required);
    if (!j) return false;
    if (!j->is_boolean()) bad(key, "true or false");
    return j->get<bool>();
  }
};

Json result_json(const BenchResult& r) {
  const BenchCase& c = r.c;
  Json j;
  j["variant"] = std::string(attn::variant_name(c.variant));
  j["batch"] = c.batch;
  j["seq"] = c.seq;
  j["q_heads"] = c.q_heads;
  j["kv_heads"] = c.kv_heads;
  j["head_dim"] = c.head_dim;
  j["window"] = c.window;
  j["latent_dim"] = c.latent_dim;
  j["rope_dim"] = c.rope_dim;
  j["dtype"] = std::string(attn::dtype_name(c.dtype));
  j["device"] = r.device;
  j["median_us"] = number_or_null(r.median_us);
  j["min_us"] = number_or_null(r.min_us);
  j["max_us"] = number_or_null(r.max_us);
  j["runs"] = r.runs;
  j["kv_bytes"] = r.kv_bytes;
  j["gbps"] = number_or_null(r.gbps);
  j["max_abs_err"] = number_or_null(r.max_abs_err);
  j["checked"] = r.checked;
  // Extras.
  j["scale"] = c.effective_scale();
  j["probe_gbps"] = number_or_null(r.probe_gbps);
  if (r.steps > 0) {
    j["step_us"] = number_or_null(r.step_us);
    j["steps"] = r.steps;
  }
  j["label"] = c.label;
  j["peer_us"] = number_or_null(c.peer_us);
  j["peer_name"] = c.peer_name;
  j["error"] = r.error;
  return j;
}

BenchResult parse_result(const Json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where + ": expected an object, found " + type_of(j));
  const Reader rd{j, where};
  using L = attn::Limits;
  BenchResult r;
  BenchCase& c = r.c;
  const std::string variant = rd.str("variant", true);
  const auto v = attn::parse_variant(variant);
  if (!v) rd.bad("variant", "one of mha, mqa, gqa, swa, mla");
  c.variant = *v;
  c.batch = rd.integer("batch", true, 1, L::kMaxBatch);
  c.seq = rd.integer("seq", true, 1, L::kMaxSeq);
  c.q_heads = static_cast<int>(rd.integer("q_heads", true, 1, L::kMaxHeads));
  c.kv_heads = static_cast<int>(rd.integer("kv_heads", true, 1, L::kMaxHeads));
  c.head_dim = static_cast<int>(rd.integer("head_dim", true, 1, 2 * L::kMaxHeadDim));
  c.window = static_cast<int>(rd.integer("window", true, 0, L::kMaxSeq));
  c.latent_dim = static_cast<int>(rd.integer("latent_dim", true, 0, L::kMaxHeadDim));
  c.rope_dim = static_cast<int>(rd.integer("rope_dim", true, 0, L::kMaxHeadDim));
  const auto dt = attn::parse_dtype(rd.str("dtype", true));
  if (!dt) rd.bad("dtype", "one of fp32, fp16, bf16, fp8, mxfp4");
  c.dtype = *dt;
  r.device = rd.str("device", true);
  if (r.device != "cpu" && r.device != "gpu") rd.bad("device", "\"cpu\" or \"gpu\"");
  r.median_us = rd.measure("median_us", true);
  r.min_us = rd.measure("min_us", true);
  r.max_us = rd.measure("max_us", true);
  r.runs = static_cast<int>(rd.integer("runs", true, 0, std::numeric_limits<int>::max()));
  r.kv_bytes = rd.uinteger("kv_bytes", true);
  r.gbps = rd.measure("gbps", true);
  r.max_abs_err = rd.measure("max_abs_err", true);
  r.checked = rd.boolean("checked", true);
  if (const Json* s = rd.get("scale", false); s && !s->is_null()) {
    if (!s->is_number() || !std::isfinite(s->get<double>()) || s->get<double>() < 0)
      rd.bad("scale", "a finite number >= 0");
    c.scale = s->get<double>();
  }
  r.probe_gbps = rd.measure("probe_gbps", false);
  r.step_us = rd.measure("step_us", false);
  if (std::isnan(r.step_us)) r.step_us = 0;
  r.steps = static_cast<int>(rd.integer("steps", false, 0, 1 << 20));
  c.label = rd.str("label", false);
  c.peer_us = rd.measure("peer_us", false);
  if (std::isnan(c.peer_us)) c.peer_us = 0;
  c.peer_name = rd.str("peer_name", false);
  r.error = rd.str("error", false);
  try {
    c.validate();
  } catch (const InputError& e) {
    throw InputError(where + ": " + e.what());
  }
  return r;
}

}  // namespace

std::string bench_report_json(const BenchReport& r, int indent) {
  Json dev;
  dev["kind"] = r.device.kind;
  dev["name"] = r.device.name;
  dev["driver"] = r.device.driver;
  dev["runtime"] = r.device.runtime;
  dev["threads"] = r.device.threads;
  dev["multiprocessors"] = r.device.multiprocessors;
  dev["memory_bytes"] = r.device.memory_bytes;
  dev["probe_gbps"] = number_or_null(r.device.probe_gbps);
  Json j;
  j["device"] = dev;
  j["date"] = r.date;
  j["commit"] = r.commit;
  j["suite"] = r.suite;
  Json results = Json::array();
  for (const auto& res : r.results) results.push_back(result_json(res));
  j["results"] = results;
  return j.dump(indent < 0 ? -1 : indent, ' ', false, Json::error_handler_t::replace);
}

BenchReport parse_bench_report(const std::string& text, const std::string& origin) {
  if (text.size() > kMaxReportBytes)
    throw InputError(origin + ": results file is " + std::to_string(text.size()) +
                     " bytes, more than the limit of " + std::to_string(kMaxReportBytes));
  Json j;
  try {
    j = Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(origin + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object())
    throw InputError(origin + ": expected a JSON object with \"device\" and \"results\", found " +
                     type_of(j));
  BenchReport rep;
  const Reader top{j, origin};
  const Json* dev = top.get("device", true);
  if (!dev->is_object()) top.bad("device", "an object");
  const Reader d{*dev, origin + ": device"};
  rep.device.kind = d.str("kind", true);
  if (rep.device.kind != "cpu" && rep.device.kind != "gpu") d.bad("kind", "\"cpu\" or \"gpu\"");
  rep.device.name = d.str("name", true);
  rep.device.driver = d.str("driver", false);
  rep.device.runtime = d.str("runtime", false);
  rep.device.threads = static_cast<int>(d.integer("threads", false, 0, 1 << 20));
  rep.device.multiprocessors = static_cast<int>(d.integer("multiprocessors", false, 0, 1 << 20));
  rep.device.memory_bytes = d.uinteger("memory_bytes", false);
  rep.device.probe_gbps = d.measure("probe_gbps", false);
  rep.date = top.str("date", false);
  rep.commit = top.str("commit", false, "unknown");
  rep.suite = top.str("suite", false);
  const Json* res = top.get("results", true);
  if (!res->is_array()) top.bad("results", "an array");
  for (std::size_t i = 0; i < res->size(); ++i)
    rep.results.push_back(parse_result((*res)[i], origin + ": results[" + std::to_string(i) + "]"));
  return rep;
}

}  // namespace kern
