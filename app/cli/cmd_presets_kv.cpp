// `attnlab presets [--json]` and `attnlab kv (--preset NAME | --config config.json) [--seq S]
// [--batch B] [--dtype DT] [--tp N] [--json]` (docs/DESIGN.md sections 3 and 4).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/cli_internal.h"
#include "attention/units.h"
#include "attention/config.h"
#include "attention/error.h"
#include "attention/hf_import.h"
#include "attention/kv_cache.h"
#include "attention/kv_json.h"
#include "attention/presets.h"

namespace app::cli {
namespace {

using Json = nlohmann::ordered_json;

// "GQA 32/8 x 128", "MHA 32 x 128", "MLA H128, Dl 512 + Dr 64".
std::string attention_text(const attn::ModelConfig& m) {
  const std::string v = std::string(attn::variant_name(m.variant));
  std::string upper;
  for (char ch : v) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (m.variant == attn::Variant::kMla)
    return format("MLA H%d, Dl %d + Dr %d", m.q_heads, m.latent_dim, m.rope_dim);
  if (m.kv_heads == m.q_heads) return format("%s %d x %d", upper.c_str(), m.q_heads, m.head_dim);
  return format("%s %d/%d x %d", upper.c_str(), m.q_heads, m.kv_heads, m.head_dim);
}

Json model_json(const attn::ModelConfig& m) {
  Json j;
  j["name"] = m.name;
  j["display_name"] = m.display_name;
  j["variant"] = std::string(attn::variant_name(m.variant));
  j["num_layers"] = m.num_layers;
  j["hidden_size"] = m.hidden_size;
  j["q_heads"] = m.q_heads;
  j["kv_heads"] = m.kv_heads;
  j["head_dim"] = m.head_dim;
  j["value_dim"] = m.value_dim;
  j["latent_dim"] = m.latent_dim;
  j["rope_dim"] = m.rope_dim;
  j["window"] = m.window;
  j["num_sliding"] = m.num_sliding();
  j["pattern"] = m.pattern_description();
  j["max_seq"] = m.max_seq;
  j["scale"] = m.scale;
  j["source"] = m.source;
  return j;
}

void add_json_option(CLI::App* sub, std::string& dst, CLI::Option*& opt) {
  opt = sub->add_option("--json", dst,
                        "Print one JSON document on stdout and nothing else there (or "
                        "--json FILE: write it to FILE)")
            ->expected(0, 1)
            ->type_name("[FILE|-]");
}

std::string json_target(const CLI::Option* opt, const std::string& value) {
  if (!opt->count()) return "";
  return value.empty() ? "-" : value;
}

}  // namespace

// ---- presets -------------------------------------------------------------------------------

void PresetsCommand::add(CLI::App& root) {
  sub = root.add_subcommand("presets", "List the model presets");
  add_json_option(sub, json, json_opt);
}

int PresetsCommand::run() {
  const auto& all = attn::presets();
  const std::string target = json_target(json_opt, json);
  if (!target.empty()) {
    Json arr = Json::array();
    for (const auto& m : all) arr.push_back(model_json(m));
    emit_text(target, arr.dump(2));
    return 0;
  }
  std::string out = format("%-18s %-18s %-24s %6s  %-28s %11s\n", "NAME", "MODEL", "ATTENTION",
                           "LAYERS", "LAYER PATTERN", "MAX CONTEXT");
  for (const auto& m : all) {
    out += format("%-18s %-18s %-24s %6d  %-28s %11lld\n", m.name.c_str(), m.display_name.c_str(),
                  attention_text(m).c_str(), m.num_layers, m.pattern_description().c_str(),
                  static_cast<long long>(m.max_seq));
  }
  out +=
      format("%zu presets; 'attnlab kv --preset NAME' gives a model's KV-cache size.", all.size());
  emit_text("-", out);
  return 0;
}

// ---- kv ------------------------------------------------------------------------------------

void KvCommand::add(CLI::App& root) {
  sub = root.add_subcommand("kv",
                            "KV-cache size of a whole model (every layer, batch and "
                            "sequence), per device under tensor parallelism");
  sub->add_option("--preset", preset, "Model preset (see 'attnlab presets')")->type_name("NAME");
  sub->add_option("--config", config, "A Hugging Face config.json")->type_name("config.json");
  sub->add_option("--seq", seq, "Cached sequence length S (default: the model's max context)")
      ->type_name("S");
  sub->add_option("--batch", batch, "Batch B (default 1)")->type_name("B");
  sub->add_option("--dtype", dtype, "Cache dtype: fp32, fp16, bf16 (default), fp8, mxfp4")
      ->type_name("DT");
  sub->add_option("--tp", tp, "Tensor parallelism over N devices (default: none)")->type_name("N");
  add_json_option(sub, json, json_opt);
}

int KvCommand::run() {
  const bool has_preset = sub->count("--preset") > 0, has_config = sub->count("--config") > 0;
  if (has_preset == has_config)
    throw attn::InputError(has_preset ? "kv: give either --preset or --config, not both"
                                      : "kv: needs --preset NAME or --config config.json");
  // Flags first (cheap, and the same error whichever model), then the model.
  const attn::DType dt =
      sub->count("--dtype") ? parse_dtype_flag("--dtype", dtype, true) : attn::DType::kBf16;
  const std::int64_t b =
      sub->count("--batch") ? parse_int("--batch", batch, 1, attn::Limits::kMaxBatch) : 1;
  const int n_tp =
      sub->count("--tp") ? static_cast<int>(parse_int("--tp", tp, 1, attn::Limits::kMaxHeads)) : 1;
  std::int64_t s = 0;
  if (sub->count("--seq")) s = parse_int("--seq", seq, 1, attn::Limits::kMaxSeq);

  attn::ModelConfig model =
      has_preset ? attn::find_preset(preset) : attn::import_hf_config_file(config);
  if (!sub->count("--seq")) {
    s = model.max_seq;
    if (s < 1)
      throw attn::InputError((has_config ? config + ": " : std::string()) +
                             "the model states no maximum context (max_position_embeddings); "
                             "give --seq S");
  }
  const attn::KvReport r = attn::kv_cache(model, s, b, dt, n_tp);

  const std::string target = json_target(json_opt, json);
  if (!target.empty()) {
    const Json j = attn::kv_report_json(model, r);
    emit_text(target, j.dump(2));
    return 0;
  }

  std::string out =
      format("%s (%s): %d layers, %s, %s\n", model.display_name.c_str(), model.name.c_str(),
             model.num_layers, attention_text(model).c_str(), model.pattern_description().c_str());
  out +=
      format("KV cache at S = %lld, B = %lld, %s: %s (%llu bytes)\n", static_cast<long long>(r.seq),
             static_cast<long long>(r.batch), std::string(attn::dtype_name(r.dtype)).c_str(),
             attn::format_bytes(static_cast<double>(r.total_bytes)).c_str(),
             static_cast<unsigned long long>(r.total_bytes));
  out += format("per token (one sequence, all layers, before any window): %s (%llu bytes)\n",
                attn::format_bytes(static_cast<double>(r.bytes_per_token)).c_str(),
                static_cast<unsigned long long>(r.bytes_per_token));
  if (r.tp > 1) {
    out += format("per device under --tp %d: %s (%llu bytes)\n", r.tp,
                  attn::format_bytes(static_cast<double>(r.per_device_bytes)).c_str(),
                  static_cast<unsigned long long>(r.per_device_bytes));
  }
  // Runs of identical layers ("layers 0-31: full, 32.0 MiB each"); alternating patterns
  // would need a line per layer, so they are summarised by kind.
  struct Run {
    std::size_t first, last;
  };
  std::vector<Run> runs;
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    const auto& l = r.layers[i];
    if (!runs.empty()) {
      const auto& p = r.layers[runs.back().last];
      if (p.kind == l.kind && p.window == l.window && p.bytes == l.bytes) {
        runs.back().last = i;
        continue;
      }
    }
    runs.push_back({i, i});
  }
  out += "layers:";
  if (runs.size() <= 4) {
    for (const auto& run : runs) {
      const auto& l = r.layers[run.first];
      const std::string range = run.last > run.first ? format("layers %zu-%zu", run.first, run.last)
                                                     : format("layer %zu", run.first);
      const std::string kind = std::string(attn::layer_kind_name(l.kind)) +
                               (l.window > 0 ? format(" (W %d)", l.window) : std::string());
      out += format("\n  %s: %s, %s each", range.c_str(), kind.c_str(),
                    attn::format_bytes(static_cast<double>(l.bytes)).c_str());
    }
  } else {
    std::uint64_t full_bytes = 0, slide_bytes = 0;
    int n_full = 0, n_slide = 0, window = 0;
    for (const auto& l : r.layers) {
      if (l.kind == attn::LayerKind::kSliding) {
        ++n_slide;
        slide_bytes += l.bytes;
        window = l.window;
      } else {
        ++n_full;
        full_bytes += l.bytes;
      }
    }
    if (n_full)
      out += format("\n  %d full: %s in all (%s each)", n_full,
                    attn::format_bytes(static_cast<double>(full_bytes)).c_str(),
                    attn::format_bytes(static_cast<double>(full_bytes) / n_full).c_str());
    if (n_slide)
      out += format("\n  %d sliding (W %d): %s in all (%s each)", n_slide, window,
                    attn::format_bytes(static_cast<double>(slide_bytes)).c_str(),
                    attn::format_bytes(static_cast<double>(slide_bytes) / n_slide).c_str());
  }
  emit_text("-", out);
  return 0;
}

}  // namespace app::cli
