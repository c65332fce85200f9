// Writes the seed corpora of the fuzz targets: attnlab_fuzz_seeds OUT_DIR
//   OUT_DIR/hf_config/     the "config" objects of every embedded preset, plus hand-written
//                          configs for each import rule (Falcon fields, text_config, windows)
//   OUT_DIR/npy/           small .npy files from the project's writer and hand-built headers
//                          (versions 1-3, every dtype, Fortran order, big-endian, truncated)
//   OUT_DIR/bench_report/  embedded results files and a report from bench_report_json
//   OUT_DIR/settings/      settings documents
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/assets.h"
#include "attention/npy.h"
#include "kernels/bench.h"

namespace {

namespace fs = std::filesystem;

void put(const fs::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) {
    std::fprintf(stderr, "attnlab_fuzz_seeds: cannot write %s\n", p.c_str());
    std::exit(1);
  }
}

std::string as_string(const std::vector<unsigned char>& v) {
  return std::string(v.begin(), v.end());
}

// A hand-built NPY file: header dict `dict`, version major.minor, then `payload`.
std::string npy_raw(int major, const std::string& dict, const std::string& payload) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string h = dict;
  while ((prefix + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const std::uint32_t n = static_cast<std::uint32_t>(h.size());
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  if (major != 1) {
    out += static_cast<char>((n >> 16) & 0xff);
    out += static_cast<char>((n >> 24) & 0xff);
  }
  return out + h + payload;
}

std::string zeros(std::size_t n) { return std::string(n, '\0'); }

void npy_seeds(const fs::path& dir) {
  attn::TensorF t({2, 3, 4});
  for (std::size_t i = 0; i < t.data.size(); ++i) t.data[i] = 0.25f * static_cast<float>(i) - 1.0f;
  put(dir / "f32_2x3x4.npy", as_string(attn::npy_bytes(t)));
  attn::TensorF q({1, 2, 8});
  put(dir / "f32_q_1x2x8.npy", as_string(attn::npy_bytes(q)));
  attn::TensorF empty({0, 4});
  put(dir / "f32_empty.npy", as_string(attn::npy_bytes(empty)));
  attn::TensorF scalar(std::vector<std::int64_t>{});
  put(dir / "f32_scalar.npy", as_string(attn::npy_bytes(scalar)));
  put(dir / "i64_lens.npy", as_string(attn::npy_bytes_i64({3}, {0, 1, 5})));
  put(dir / "f64_v1.npy",
      npy_raw(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", zeros(32)));
  put(dir / "f16_v1.npy",
      npy_raw(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", zeros(6)));
  put(dir / "i32_v1.npy",
      npy_raw(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", zeros(16)));
  put(dir / "f32_v2.npy",
      npy_raw(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }", zeros(8)));
  put(dir / "f32_v3.npy",
      npy_raw(3, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", zeros(8)));
  put(dir / "fortran.npy",
      npy_raw(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", zeros(16)));
  put(dir / "big_endian.npy",
      npy_raw(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", zeros(8)));
  put(dir / "huge_claim.npy",
      npy_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000000,), }",
              zeros(8)));
  put(dir / "truncated.npy",
      npy_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (8,), }", zeros(12)));
  put(dir / "trailing.npy",
      npy_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", zeros(12)));
  put(dir / "object.npy",
      npy_raw(1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", zeros(8)));
  put(dir / "keys_reordered.npy",
      npy_raw(1, "{'shape': (2, 1), 'fortran_order': False, 'descr': '<f4'}", zeros(8)));
  put(dir / "header_only.npy",
      npy_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", ""));
}

void config_seeds(const fs::path& dir) {
  for (const attn::EmbeddedFile& f : attn::embedded_files()) {
    if (f.path.rfind("presets/", 0) != 0) continue;
    const fs::path name = fs::path(f.path).filename();
    const nlohmann::json j = nlohmann::json::parse(f.text, nullptr, false);
    if (j.is_object() && j.contains("config")) {
      put(dir / name, j["config"].dump(1));
    } else {
      put(dir / name, f.text);
    }
  }
  put(dir / "llama.json", R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
  "num_key_value_heads": 8, "num_hidden_layers": 32, "max_position_embeddings": 8192})");
  put(dir / "falcon.json", R"({"model_type": "falcon", "hidden_size": 4544, "n_head": 71,
  "n_layer": 32, "multi_query": true, "max_position_embeddings": 2048})");
  put(dir / "falcon_kv.json",
      R"({"model_type": "falcon", "hidden_size": 8192, "num_attention_heads": 128,
  "num_kv_heads": 8, "num_hidden_layers": 80, "new_decoder_architecture": true})");
  put(dir / "mistral.json",
      R"({"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32,
  "num_key_value_heads": 8, "num_hidden_layers": 32, "sliding_window": 4096, "max_position_embeddings": 32768})");
  put(dir / "qwen_no_swa.json",
      R"({"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28,
  "num_key_value_heads": 4, "num_hidden_layers": 28, "sliding_window": 131072, "use_sliding_window": false,
  "max_position_embeddings": 32768})");
  put(dir / "gemma2.json",
      R"({"model_type": "gemma2", "hidden_size": 3584, "num_attention_heads": 16,
  "num_key_value_heads": 8, "head_dim": 256, "num_hidden_layers": 42, "sliding_window": 4096,
  "max_position_embeddings": 8192, "query_pre_attn_scalar": 256})");
  put(dir / "gemma3_text_config.json",
      R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
  "hidden_size": 3840, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 256,
  "num_hidden_layers": 48, "sliding_window": 1024, "sliding_window_pattern": 6,
  "max_position_embeddings": 131072}})");
  put(dir / "layer_types.json",
      R"({"model_type": "gpt_oss", "hidden_size": 2880, "num_attention_heads": 64,
  "num_key_value_heads": 8, "head_dim": 64, "num_hidden_layers": 4, "sliding_window": 128,
  "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"]})");
  put(dir / "deepseek_mla.json",
      R"({"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128,
  "num_key_value_heads": 128, "num_hidden_layers": 61, "kv_lora_rank": 512, "q_lora_rank": 1536,
  "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, "max_position_embeddings": 163840})");
  put(dir / "wrong_type.json",
      R"({"hidden_size": "4096", "num_attention_heads": 32, "num_hidden_layers": 2})");
  put(dir / "negative.json",
      R"({"hidden_size": 4096, "num_attention_heads": -32, "num_hidden_layers": 2})");
  put(dir / "huge.json",
      R"({"hidden_size": 1e300, "num_attention_heads": 4294967297, "num_hidden_layers": 99999999999})");
  put(dir / "not_object.json", "[1, 2, 3]");
}

void report_seeds(const fs::path& dir) {
  for (const attn::EmbeddedFile& f : attn::embedded_files()) {
    if (f.path.rfind("results/", 0) != 0) continue;
    put(dir / fs::path(f.path).filename(), f.text);
  }
  kern::BenchReport r;
  r.device.kind = "cpu";
  r.device.name = "seed cpu";
  r.device.threads = 2;
  r.date = "2026-12-02T00:00:00Z";
  r.commit = "unknown";
  r.suite = "single";
  kern::BenchResult a;
  a.c.variant = attn::Variant::kGqa;
  a.c.batch = 2;
  a.c.seq = 54;
  a.device = "cpu";
  a.median_us = 10;
  a.min_us = 9;
  a.max_us = 12;
  a.runs = 10;
  a.kv_bytes = a.c.kv_bytes();
  a.gbps = 1.5;
  a.checked = true;
  r.results.push_back(a);
  kern::BenchResult m = a;
  m.c.variant = attn::Variant::kMla;
  m.c.q_heads = 16;
  m.c.kv_heads = 1;
  m.c.head_dim = 576;
  m.c.latent_dim = 512;
  m.c.rope_dim = 64;
  m.c.dtype = attn::DType::kFp8;
  m.error = "seed: a failed case";
  m.checked = false;
  r.results.push_back(m);
  kern::BenchResult s = a;
  s.c.variant = attn::Variant::kSwa;
  s.c.window = 16;
  r.results.push_back(s);
  put(dir / "generated.json", kern::bench_report_json(r));
}

void settings_seeds(const fs::path& dir) {
  // Version 1 (no per-panel sections), as the previous release wrote it.
  put(dir / "typical_v1.json", R"({"preset": "llama-3-8b", "import_path": "", "what_if": true,
  "what_if_variant": "mla", "what_if_kv_heads": 8, "what_if_latent_dim": 512, "what_if_rope_dim": 64,
  "what_if_window": 4096, "what_if_local_per_global": 5, "kv_dtype": "bf16", "tp": 2, "seq": 32768,
  "batch": 1, "gpu": "H200", "show": {"model": true, "kv-cache": true, "data-flow": true,
  "attention": true, "latency": false, "tour": true}, "ui_scale": 1.25,
  "mla_naive": false})");
  // Version 2: every per-panel section and an edited model, as settings_to_json writes them.
  put(dir / "typical_v2.json", R"J({"version": 2, "preset": "llama-3-8b", "import_path": "",
  "model_edit": {"name": "llama-3-8b", "display_name": "Llama-3-8B (edited)", "source": "meta-llama/Meta-Llama-3-8B",
    "model_type": "llama", "variant": "gqa", "num_layers": 2, "hidden_size": 4096, "q_heads": 32,
    "kv_heads": 4, "head_dim": 128, "value_dim": 128, "latent_dim": 0, "rope_dim": 0, "qk_nope_dim": 0,
    "q_lora_rank": 0, "window": 0, "layers": ["full", "full"], "max_seq": 8192, "scale": 0.0,
    "notes": ["edited in the model panel"]},
  "what_if": false, "what_if_variant": "gqa", "what_if_kv_heads": 0, "what_if_latent_dim": 512,
  "what_if_rope_dim": 64, "what_if_window": 4096, "what_if_local_per_global": 0, "kv_dtype": "fp8",
  "tp": 8, "seq": 131072, "batch": 4, "gpu": "MI355X",
  "show": {"model": true, "kv-cache": true, "data-flow": false, "attention": true, "latency": true, "tour": true},
  "ui_scale": 1.5, "mla_naive": true,
  "model_view": {"import_path": "/tmp/config.json", "local_per_global": 5},
  "learn": {"view": "workbench", "chapter": 3, "beat": 1},
  "latency": {"workload": "sweep", "device": "cpu", "gpu_dtype": "fp8", "layer": 1, "cpu_threads": 2,
    "min_runs": 20, "min_seconds": 0.5, "plot_x": "B", "plot_all_sets": true, "import_path": "r.json",
    "export_path": "attnlab-results.csv", "export_format": "csv"},
  "data_flow": {"animate": false, "steps_per_second": 8.0, "layer": 1},
  "attention": {"tokens": 48, "head": 5, "layer": 1, "picture_window": 12, "seed": 77}})J");
  put(dir / "empty_object.json", "{}");
  put(dir / "bad_values.json",
      R"({"tp": -1, "seq": 1e30, "ui_scale": "big", "kv_dtype": "fp3", "preset": 7,
  "show": [1, 2]})");
  put(dir / "bad_panel_values.json",
      R"({"version": 2, "learn": {"chapter": -1}, "latency": {"workload": 3,
  "device": "tpu", "min_seconds": 9}, "attention": {"tokens": 1000}, "data_flow": [],
  "model_edit": {"name": "x", "num_layers": 2, "layers": ["full"]}})");
  put(dir / "truncated.json", R"({"preset": "llama-3-8b", "tp": )");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: attnlab_fuzz_seeds OUT_DIR\n");
    return 2;
  }
  const fs::path out = argv[1];
  for (const char* sub : {"hf_config", "npy", "bench_report", "settings"})
    fs::create_directories(out / sub);
  config_seeds(out / "hf_config");
  npy_seeds(out / "npy");
  report_seeds(out / "bench_report");
  settings_seeds(out / "settings");
  std::printf("attnlab_fuzz_seeds: seeds written to %s\n", out.c_str());
  return 0;
}
