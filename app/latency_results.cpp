#include "app/latency_results.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "attention/assets.h"
#include "attention/config.h"
#include "attention/error.h"

namespace app {

void load_recorded_results(LatencyState& st) {
  if (st.recorded_loaded) return;
  st.recorded_loaded = true;
  for (const attn::EmbeddedFile& f : attn::embedded_files()) {
    if (f.path.rfind("results/", 0) != 0) continue;
    try {
      ResultSet s;
      s.origin = ResultSet::Origin::kRecorded;
      s.name = f.path;
      s.report = kern::parse_bench_report(f.text, "assets/" + f.path);
      st.sets.push_back(std::move(s));
    } catch (const std::exception& e) {
      st.recorded_errors.push_back(e.what());
    }
  }
}

kern::BenchReport read_results_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw attn::InputError(path + ": cannot open the results file for reading");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) throw attn::InputError(path + ": cannot read the results file");
  if (size > attn::Limits::kMaxConfigBytes)
    throw attn::InputError(path + ": results file too large (" + std::to_string(size) +
                           " bytes, at most " + std::to_string(attn::Limits::kMaxConfigBytes) +
                           ")");
  in.seekg(0);
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), size);
  if (!in) throw attn::InputError(path + ": read error");
  return kern::parse_bench_report(text, path);
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

std::string results_csv(const kern::BenchReport& r) {
  std::ostringstream o;
  o << "label,variant,batch,seq,q_heads,kv_heads,head_dim,window,latent_dim,rope_dim,dtype,"
       "device,median_us,min_us,max_us,runs,step_us,steps,kv_bytes,gbps,max_abs_err,checked,"
       "probe_gbps,error,device_name,driver,date,commit,suite\n";
  for (const kern::BenchResult& x : r.results) {
    const kern::BenchCase& c = x.c;
    o << csv_field(c.label) << ',' << attn::variant_name(c.variant) << ',' << c.batch << ','
      << c.seq << ',' << c.q_heads << ',' << c.kv_heads << ',' << c.head_dim << ',' << c.window
      << ',' << c.latent_dim << ',' << c.rope_dim << ',' << attn::dtype_name(c.dtype) << ','
      << x.device << ',' << num(x.median_us) << ',' << num(x.min_us) << ',' << num(x.max_us) << ','
      << x.runs << ',' << num(x.step_us) << ',' << x.steps << ',' << x.kv_bytes << ','
      << num(x.gbps) << ',' << num(x.max_abs_err) << ',' << (x.checked ? "true" : "false") << ','
      << num(x.probe_gbps) << ',' << csv_field(x.error) << ',' << csv_field(r.device.name) << ','
      << csv_field(r.device.driver) << ',' << csv_field(r.date) << ',' << csv_field(r.commit) << ','
      << csv_field(r.suite) << '\n';
  }
  return o.str();
}

std::string provenance_line(const kern::BenchReport& r) {
  std::string s = r.device.name.empty() ? r.device.kind : r.device.name;
  if (!r.device.driver.empty()) s += " | driver " + r.device.driver;
  if (!r.device.runtime.empty()) s += " | " + r.device.runtime;
  s += " | " + (r.date.empty() ? std::string("date unknown") : r.date);
  s += " | commit " + (r.commit.empty() ? std::string("unknown") : r.commit);
  if (!r.suite.empty()) s += " | suite " + r.suite;
  return s;
}

}  // namespace app
