#include "app/kv_table.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attention/error.h"
#include "attention/kv_cache.h"
#include "attention/kv_json.h"

namespace app {
namespace {

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

KvVariantRow make_row(const attn::ModelConfig& m, const App& app, const std::string& label,
                      bool is_model, const std::vector<double>& seqs) {
  KvVariantRow row;
  row.label = label;
  row.is_model = is_model;
  row.variant = static_cast<int>(m.variant);
  const attn::KvReport r = attn::kv_cache(m, app.seq, app.batch, app.kv_dtype, app.tp);
  row.bytes_per_token = r.bytes_per_token;
  row.total_bytes = r.total_bytes;
  row.per_device_bytes = r.per_device_bytes;
  row.curve_seq.reserve(seqs.size());
  row.curve_bytes.reserve(seqs.size());
  for (double s : seqs) {
    const auto rs =
        attn::kv_cache(m, static_cast<std::int64_t>(s), app.batch, app.kv_dtype, app.tp);
    row.curve_seq.push_back(s);
    row.curve_bytes.push_back(static_cast<double>(rs.per_device_bytes));
  }
  return row;
}

}  // namespace

int side_by_side_gqa_kv_heads(const App& app) {
  if (app.what_if_params.kv_heads > 0) return app.what_if_params.kv_heads;
  const attn::ModelConfig& b = app.base;
  if (b.variant != attn::Variant::kMla && b.kv_heads > 1 && b.kv_heads < b.q_heads)
    return b.kv_heads;
  for (int h = std::min(8, b.q_heads - 1); h >= 1; --h)
    if (b.q_heads % h == 0) return h;
  return 1;
}

std::vector<double> curve_seq_points(const attn::ModelConfig& model, int extra_window) {
  std::int64_t top = 1 << 20;
  while (top < model.max_seq && top < attn::Limits::kMaxSeq) top *= 2;
  std::vector<double> s;
  for (std::int64_t p = 256; p <= top; p *= 2) {
    s.push_back(static_cast<double>(p));
    if (p < top) s.push_back(std::round(static_cast<double>(p) * std::sqrt(2.0)));
  }
  for (int w : {model.window, extra_window})
    if (w >= 256 && w <= top) s.push_back(static_cast<double>(w));
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

std::vector<KvVariantRow> kv_variant_rows(const App& app) {
  const std::vector<double> seqs = curve_seq_points(app.base, app.what_if_params.window);
  std::vector<KvVariantRow> rows;
  const std::string model_label =
      "model: " + (app.model.display_name.empty() ? app.model.name : app.model.display_name);
  try {
    rows.push_back(make_row(app.model, app, model_label, true, seqs));
  } catch (const std::exception& e) {
    KvVariantRow r;
    r.label = model_label;
    r.is_model = true;
    r.error = e.what();
    rows.push_back(r);
  }
  for (attn::Variant v : {attn::Variant::kMha, attn::Variant::kMqa, attn::Variant::kGqa,
                          attn::Variant::kMla, attn::Variant::kSwa}) {
    attn::WhatIf w = app.what_if_params;
    w.variant = v;
    std::string label = upper(attn::variant_name(v));
    if (v == attn::Variant::kGqa) {
      w.kv_heads = side_by_side_gqa_kv_heads(app);
      label += " (Hkv " + std::to_string(w.kv_heads) + ")";
    } else if (v == attn::Variant::kMla) {
      label += " (Dl " + std::to_string(w.latent_dim) + ", Dr " + std::to_string(w.rope_dim) + ")";
    } else if (v == attn::Variant::kSwa) {
      w.kv_heads = 0;  // the model's own heads, only the window changes
      label += " (W " + std::to_string(w.window) + ")";
    }
    try {
      const attn::ModelConfig m = attn::apply_what_if(app.base, w);
      KvVariantRow r = make_row(m, app, label, false, seqs);
      r.variant = static_cast<int>(v);
      rows.push_back(std::move(r));
    } catch (const std::exception& e) {
      KvVariantRow r;
      r.label = label;
      r.variant = static_cast<int>(v);
      r.error = e.what();
      rows.push_back(r);
    }
  }
  return rows;
}

std::string kv_table_csv(const App& app) {
  const attn::KvReport r = attn::kv_cache(app.model, app.seq, app.batch, app.kv_dtype, app.tp);
  std::ostringstream out;
  out << "layer,kind,window,bytes,per_device_bytes\n";
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const auto& l = r.layers[i];
    out << i << ',' << attn::layer_kind_name(l.kind) << ',' << l.window << ',' << l.bytes << ','
        << l.per_device_bytes << '\n';
  }
  return out.str();
}

std::string kv_table_json(const App& app) {
  const attn::KvReport r = attn::kv_cache(app.model, app.seq, app.batch, app.kv_dtype, app.tp);
  nlohmann::ordered_json j = attn::kv_report_json(app.model, r);
  nlohmann::ordered_json variants = nlohmann::ordered_json::array();
  for (const KvVariantRow& row : kv_variant_rows(app)) {
    nlohmann::ordered_json v = {
        {"label", row.label},
        {"variant", std::string(attn::variant_name(static_cast<attn::Variant>(row.variant)))}};
    if (row.error.empty()) {
      v["bytes_per_token"] = row.bytes_per_token;
      v["total_bytes"] = row.total_bytes;
      v["per_device_bytes"] = row.per_device_bytes;
    } else {
      v["error"] = row.error;
    }
    variants.push_back(v);
  }
  j["variants"] = variants;
  return j.dump(2) + "\n";
}

}  // namespace app
