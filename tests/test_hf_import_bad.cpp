// HF config.json import, bad input: one test per class (malformed JSON, wrong types, missing
// fields, absurd values, unreadable files) and random corruptions of real configs.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "attention/config.h"
#include "attention/error.h"
#include "attention/hf_import.h"
#include "attention/kv_cache.h"
#include "tests/hf_test_util.h"

using namespace attn;
using namespace hf_test;
using Catch::Matchers::Contains;

// ---- bad input, one class each ----------------------------------------------------------------

TEST_CASE("hf bad input: malformed JSON", "[hf][bad]") {
  CHECK_THROWS_WITH(import("{\"hidden_size\": 4096,"), Contains("cfg.json: malformed JSON"));
  CHECK_THROWS_WITH(import(""), Contains("malformed JSON"));
  CHECK_THROWS_WITH(import(llama() + " trailing"), Contains("malformed JSON"));
  CHECK_THROWS_WITH(import(llama(R"("rope_theta": NaN)")), Contains("malformed JSON"));
  CHECK_THROWS_WITH(import(llama(R"("rope_theta": 1e400)")), Contains("malformed JSON"));
  CHECK_THROWS_WITH(import(std::string("{\"a\": \"\xff\xfe\"}")), Contains("malformed JSON"));
}

TEST_CASE("hf bad input: the top level is not an object", "[hf][bad]") {
  CHECK_THROWS_WITH(import("[1, 2]"),
                    "cfg.json: expected a JSON object at the top level, found an array");
  CHECK_THROWS_WITH(import("42"), Contains("found 42"));
  CHECK_THROWS_WITH(import("\"config\""), Contains("found \"config\""));
  CHECK_THROWS_WITH(import("null"), Contains("found null"));
  CHECK_THROWS_WITH(import(R"({"text_config": [1]})"),
                    Contains("field 'text_config': expected an object"));
}

TEST_CASE("hf bad input: a required field is missing", "[hf][bad]") {
  CHECK_THROWS_WITH(import(R"({"model_type": "llama", "hidden_size": 4096,
      "num_hidden_layers": 32, "max_position_embeddings": 8192})"),
                    "cfg.json: field 'num_attention_heads': missing (the number of query heads)");
  CHECK_THROWS_WITH(import(R"({"num_attention_heads": 32, "hidden_size": 4096,
      "max_position_embeddings": 8192})"),
                    Contains("field 'num_hidden_layers': missing"));
  CHECK_THROWS_WITH(import(R"({"num_attention_heads": 32, "num_hidden_layers": 2,
      "max_position_embeddings": 8192})"),
                    Contains("field 'hidden_size': missing"));
}

TEST_CASE("hf bad input: wrong types", "[hf][bad]") {
  CHECK_THROWS_WITH(
      import(llama(R"("num_attention_heads": "32")")),
      "cfg.json: field 'num_attention_heads': expected a positive integer, found \"32\"");
  CHECK_THROWS_WITH(import(llama(R"("num_hidden_layers": true)")),
                    Contains("field 'num_hidden_layers': expected a positive integer, found true"));
  CHECK_THROWS_WITH(import(llama(R"("num_key_value_heads": [8])")), Contains("found an array"));
  // A string with a line break is shown escaped: the error stays one line.
  CHECK_THROWS_WITH(import(llama(R"("num_attention_heads": "3\n2")")), Contains(R"(found "3\n2")"));
  CHECK_THROWS_WITH(import(llama(R"("head_dim": {"v": 1})")), Contains("found an object"));
  CHECK_THROWS_WITH(import(llama(R"("use_sliding_window": "yes", "sliding_window": 4)")),
                    Contains("field 'use_sliding_window': expected true or false"));
  CHECK_THROWS_WITH(
      import(llama(R"("num_hidden_layers": 2, "sliding_window": 8, "layer_types": "sliding")")),
      Contains("field 'layer_types': expected an array"));
  CHECK_THROWS_WITH(import(llama(R"("query_pre_attn_scalar": "256")")),
                    Contains("field 'query_pre_attn_scalar': expected a positive number"));
}

TEST_CASE("hf bad input: floats where integers are expected", "[hf][bad]") {
  CHECK(import(llama(R"("num_attention_heads": 32.0)")).q_heads == 32);
  CHECK_THROWS_WITH(
      import(llama(R"("num_attention_heads": 32.5)")),
      "cfg.json: field 'num_attention_heads': expected a positive integer, found 32.5");
  CHECK_THROWS_WITH(
      import(llama(R"("num_hidden_layers": 1e30)")),
      Contains("field 'num_hidden_layers': expected a positive integer up to 1024, found 1e+30"));
  CHECK_THROWS_WITH(import(llama(R"("num_hidden_layers": 0.1)")), Contains("found 0.1"));
}

TEST_CASE("hf bad input: out of range, negative, zero and absurd values", "[hf][bad]") {
  CHECK_THROWS_WITH(import(llama(R"("num_attention_heads": -3)")),
                    "cfg.json: field 'num_attention_heads': expected a positive integer, found -3");
  CHECK_THROWS_WITH(import(llama(R"("num_hidden_layers": 0)")), Contains("found 0"));
  CHECK_THROWS_WITH(
      import(llama(R"("num_hidden_layers": 2000)")),
      Contains("field 'num_hidden_layers': expected a positive integer up to 1024, found 2000"));
  CHECK_THROWS_WITH(import(llama(R"("num_attention_heads": 99999999999999999999)")),
                    Contains("field 'num_attention_heads'"));
  CHECK_THROWS_WITH(import(llama(R"("num_attention_heads": 18446744073709551615)")),
                    Contains("field 'num_attention_heads'"));
  CHECK_THROWS_WITH(import(llama(R"("max_position_embeddings": 1099511627776)")),
                    Contains("field 'max_position_embeddings'"));
  CHECK_THROWS_WITH(import(llama(R"("sliding_window": 0, "model_type": "mistral")")),
                    Contains("field 'sliding_window': expected a positive integer, found 0"));
  CHECK_THROWS_WITH(import(llama(R"("head_dim": 100000)")), Contains("field 'head_dim'"));
  CHECK_THROWS_WITH(import(R"({"kv_lora_rank": 512, "qk_rope_head_dim": -64,
      "qk_nope_head_dim": 128, "v_head_dim": 128, "hidden_size": 2048,
      "num_hidden_layers": 2, "num_attention_heads": 16, "max_position_embeddings": 4096})"),
                    Contains("field 'qk_rope_head_dim'"));
}

TEST_CASE("hf bad input: inconsistent shapes", "[hf][bad]") {
  CHECK_THROWS_WITH(import(llama(R"("num_key_value_heads": 5)")),
                    "cfg.json: field 'num_key_value_heads': must divide num_attention_heads (found "
                    "Hq 32, Hkv 5)");
  CHECK_THROWS_WITH(
      import(llama(R"("hidden_size": 4097)")),
      Contains("field 'hidden_size': 4097 is not divisible by num_attention_heads 32"));
  CHECK_THROWS_WITH(import(llama(R"("num_hidden_layers": 3, "sliding_window": 8,
      "layer_types": ["full_attention", "sliding_attention"])")),
                    Contains("field 'layer_types': expected 3 entries"));
  CHECK_THROWS_WITH(
      import(llama(R"("num_hidden_layers": 2, "sliding_window": 8,
      "layer_types": ["full_attention", "cross_attention"])")),
      Contains("field 'layer_types[1]': expected \"full_attention\", \"sliding_attention\""));
  CHECK_THROWS_WITH(import(llama(R"("num_hidden_layers": 2,
      "layer_types": ["linear_attention", "mamba"])")),
                    Contains("field 'layer_types': no attention layer"));
  CHECK_THROWS_WITH(import(llama(R"("num_hidden_layers": 2,
      "layer_types": ["full_attention", "sliding_attention"])")),
                    Contains("field 'sliding_window': missing"));
}

TEST_CASE("hf bad input: files that are missing, not files, or too large", "[hf][bad]") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("attnlab_hf_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  CHECK_THROWS_WITH(import_hf_config_file((dir / "absent.json").string()),
                    Contains("no such file"));
  CHECK_THROWS_WITH(import_hf_config_file(dir.string()), Contains("not a regular file"));
  const fs::path big = dir / "big.json";
  { std::ofstream(big) << "{}"; }
  fs::resize_file(big, static_cast<std::uintmax_t>(Limits::kMaxConfigBytes) + 1);
  CHECK_THROWS_WITH(import_hf_config_file(big.string()), Contains("more than the limit"));
  const fs::path ok = dir / "config.json";
  { std::ofstream(ok) << llama(R"("num_key_value_heads": 8)"); }
  const ModelConfig m = import_hf_config_file(ok.string());
  CHECK(m.kv_heads == 8);
  CHECK(m.source == ok.string());
  CHECK_THROWS_WITH(import(std::string(static_cast<std::size_t>(Limits::kMaxConfigBytes) + 1, ' ')),
                    Contains("more than the limit"));
  fs::remove_all(dir);
}

TEST_CASE("hf bad input: random corruptions of real configs give a config or an InputError",
          "[hf][bad]") {
  // Property: whatever a field is replaced with, import either yields a config that validates
  // (and can be costed) or throws InputError; nothing else escapes and nothing crashes.
  const std::vector<std::string> bases = {
      llama(R"("num_key_value_heads": 8)"),
      R"({"model_type": "gemma2", "hidden_size": 3584, "num_hidden_layers": 42,
          "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 256,
          "max_position_embeddings": 8192, "query_pre_attn_scalar": 256,
          "sliding_window": 4096})",
      R"({"model_type": "deepseek_v3", "hidden_size": 7168, "num_hidden_layers": 61,
          "num_attention_heads": 128, "kv_lora_rank": 512, "q_lora_rank": 1536,
          "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
          "max_position_embeddings": 163840})",
      R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
          "hidden_size": 3840, "num_hidden_layers": 48, "num_attention_heads": 16,
          "num_key_value_heads": 8, "sliding_window": 1024}})",
      R"({"model_type": "falcon", "hidden_size": 4544, "num_hidden_layers": 32,
          "num_attention_heads": 71, "multi_query": true, "new_decoder_architecture": false})"};
  const std::vector<std::string> fields = {"hidden_size",
                                           "num_hidden_layers",
                                           "num_attention_heads",
                                           "num_key_value_heads",
                                           "head_dim",
                                           "max_position_embeddings",
                                           "sliding_window",
                                           "use_sliding_window",
                                           "layer_types",
                                           "sliding_window_pattern",
                                           "kv_lora_rank",
                                           "qk_rope_head_dim",
                                           "qk_nope_head_dim",
                                           "v_head_dim",
                                           "q_lora_rank",
                                           "query_pre_attn_scalar",
                                           "multi_query",
                                           "new_decoder_architecture",
                                           "num_kv_heads",
                                           "max_window_layers",
                                           "text_config"};
  const std::vector<nlohmann::json> values = {
      nullptr,
      true,
      false,
      0,
      -1,
      1,
      2,
      3,
      7,
      64,
      4096,
      4097,
      1 << 30,
      std::int64_t(1) << 40,
      18446744073709551615ull,
      0.5,
      32.0,
      -0.0,
      1e300,
      "32",
      "",
      nlohmann::json::array(),
      nlohmann::json::array({"sliding_attention", "full_attention"}),
      nlohmann::json::object(),
      nlohmann::json::object({{"num_hidden_layers", 2}})};
  const unsigned seed = 2718u;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  int ok = 0, rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    nlohmann::json j = nlohmann::json::parse(bases[rng() % bases.size()]);
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      nlohmann::json& target =
          (j.contains("text_config") && j["text_config"].is_object() && rng() % 2)
              ? j["text_config"]
              : j;
      const std::string& field = fields[rng() % fields.size()];
      if (rng() % 8 == 0)
        target.erase(field);
      else
        target[field] = values[rng() % values.size()];
    }
    const std::string text = j.dump();
    CAPTURE(text);
    try {
      const ModelConfig m = import(text);
      REQUIRE_NOTHROW(m.validate());
      REQUIRE_NOTHROW(kv_cache(m, 4096, 1, DType::kBf16));
      ++ok;
    } catch (const InputError& err) {
      REQUIRE(std::string(err.what()).rfind("cfg.json: ", 0) == 0);
      ++rejected;
    }
  }
  CHECK(ok > 0);
  CHECK(rejected > 0);
}
