// HF config.json import: one test per rule of docs/DESIGN.md section 4 (inline JSON shaped like the
// published files). Bad input, one class each: test_hf_import_bad.cpp.
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

// ---- head_dim ---------------------------------------------------------------------------------

TEST_CASE("hf: head_dim defaults to hidden_size / num_attention_heads", "[hf]") {
  const ModelConfig m = import(llama());
  CHECK(m.head_dim == 128);
  CHECK(m.value_dim == 128);
  CHECK(import(llama(R"("head_dim": null)")).head_dim == 128);
}

TEST_CASE("hf: an explicit head_dim wins over hidden / heads (Mistral-Nemo, Qwen3)", "[hf]") {
  // Mistral-Nemo: hidden 5120 over 32 heads would be 160, the model uses 128.
  const ModelConfig m = import(R"({"model_type": "mistral", "hidden_size": 5120,
      "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 8,
      "head_dim": 128, "max_position_embeddings": 1024000, "sliding_window": null})");
  CHECK(m.head_dim == 128);
  CHECK(m.num_sliding() == 0);
}

// ---- kv heads -------------------------------------------------------------------------------

TEST_CASE("hf: num_key_value_heads gives GQA; absent or null means MHA", "[hf]") {
  const ModelConfig g = import(llama(R"("num_key_value_heads": 8)"));
  CHECK(g.kv_heads == 8);
  CHECK(g.variant == Variant::kGqa);
  const ModelConfig mha = import(llama());
  CHECK(mha.kv_heads == 32);
  CHECK(mha.variant == Variant::kMha);
  CHECK(import(llama(R"("num_key_value_heads": null)")).kv_heads == 32);
  CHECK(import(llama(R"("num_key_value_heads": 1)")).variant == Variant::kMqa);
}

TEST_CASE("hf: Falcon-7B multi_query means one kv head", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "falcon", "hidden_size": 4544,
      "num_hidden_layers": 32, "num_attention_heads": 71, "multi_query": true,
      "new_decoder_architecture": false, "alibi": false, "parallel_attn": true})");
  CHECK(m.kv_heads == 1);
  CHECK(m.variant == Variant::kMqa);
  CHECK(m.head_dim == 64);   // 4544 / 71
  CHECK(m.max_seq == 2048);  // FalconConfig's default, with a note
  REQUIRE(m.notes.size() == 1);
  CHECK_THAT(m.notes[0], Contains("max_position_embeddings"));
}

TEST_CASE("hf: Falcon-40B new_decoder_architecture uses num_kv_heads despite multi_query", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "falcon", "hidden_size": 8192,
      "num_hidden_layers": 60, "num_attention_heads": 128, "num_kv_heads": 8,
      "multi_query": true, "new_decoder_architecture": true, "parallel_attn": true})");
  CHECK(m.kv_heads == 8);
  CHECK(m.head_dim == 64);
}

TEST_CASE("hf: Falcon without multi_query takes FalconConfig's default (true)", "[hf]") {
  CHECK(import(R"({"model_type": "falcon", "hidden_size": 2048, "num_hidden_layers": 2,
      "num_attention_heads": 32})")
            .kv_heads == 1);
  // falcon-rw style: multi_query false is plain MHA.
  CHECK(import(R"({"model_type": "falcon", "hidden_size": 2048, "num_hidden_layers": 24,
      "num_attention_heads": 32, "multi_query": false, "alibi": true})")
            .kv_heads == 32);
}

TEST_CASE("hf: RefinedWeb spellings n_head, n_layer, n_head_kv", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "RefinedWeb", "hidden_size": 8192,
      "n_layer": 60, "n_head": 128, "n_head_kv": 8, "parallel_attn": true})");
  CHECK(m.num_layers == 60);
  CHECK(m.q_heads == 128);
  CHECK(m.kv_heads == 8);  // RefinedWeb is the new decoder architecture
  const ModelConfig rw7 = import(R"({"model_type": "RefinedWebModel", "hidden_size": 4544,
      "n_layer": 32, "n_head": 71, "multi_query": true, "max_position_embeddings": 2048})");
  CHECK(rw7.kv_heads == 1);
  CHECK(rw7.num_layers == 32);
}

TEST_CASE("hf: GPT-2 style n_embd / n_positions and gpt_bigcode multi_query", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "gpt_bigcode", "n_embd": 6144, "n_layer": 40,
      "n_head": 48, "n_positions": 8192, "multi_query": true})");
  CHECK(m.kv_heads == 1);
  CHECK(m.head_dim == 128);
  CHECK(m.max_seq == 8192);
}

// ---- MLA ------------------------------------------------------------------------------------

TEST_CASE("hf: MLA from kv_lora_rank and qk_rope_head_dim, DeepSeek scale 1/sqrt(192)", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "deepseek_v3", "hidden_size": 7168,
      "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
      "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
      "qk_rope_head_dim": 64, "v_head_dim": 128, "max_position_embeddings": 163840})");
  CHECK(m.variant == Variant::kMla);
  CHECK(m.latent_dim == 512);
  CHECK(m.rope_dim == 64);
  CHECK(m.qk_nope_dim == 128);
  CHECK(m.value_dim == 128);
  CHECK(m.q_lora_rank == 1536);
  CHECK(m.head_dim == 192);
  CHECK(m.scale == Approx(1.0 / std::sqrt(192.0)));
  const LayerShape s = m.layer_shape(0);
  CHECK(s.head_dim == 576);
  CHECK(s.kv_heads == 1);
}

TEST_CASE("hf: MLA with q_lora_rank null (DeepSeek-V2-Lite); missing rope dim is an error",
          "[hf]") {
  const std::string base = R"({"model_type": "deepseek_v2", "hidden_size": 2048,
      "num_hidden_layers": 27, "num_attention_heads": 16, "kv_lora_rank": 512,
      "q_lora_rank": null, "qk_nope_head_dim": 128, "v_head_dim": 128,
      "max_position_embeddings": 163840)";
  const ModelConfig m = import(base + R"(, "qk_rope_head_dim": 64})");
  CHECK(m.q_lora_rank == 0);
  CHECK(m.kv_heads == 16);
  CHECK_THROWS_WITH(import(base + "}"), Contains("field 'qk_rope_head_dim': missing"));
}

// ---- windows --------------------------------------------------------------------------------

TEST_CASE("hf: Mistral's sliding_window applies to every layer; null means none", "[hf]") {
  const ModelConfig m = import(llama(R"("model_type": "mistral", "num_key_value_heads": 8,
      "sliding_window": 4096)"));
  CHECK(m.num_sliding() == 32);
  CHECK(m.window == 4096);
  CHECK(m.variant == Variant::kSwa);
  const ModelConfig mix = import(llama(R"("model_type": "mixtral", "sliding_window": null)"));
  CHECK(mix.num_sliding() == 0);
  CHECK(mix.window == 0);
}

TEST_CASE("hf: Phi-3's sliding_window (2047) applies to every layer", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "phi3", "hidden_size": 3072,
      "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
      "max_position_embeddings": 4096, "sliding_window": 2047})");
  CHECK(m.num_sliding() == 32);
  CHECK(m.window == 2047);
}

TEST_CASE("hf: a window at least as long as the context stays (HF applies it), with a note",
          "[hf]") {
  // Phi-3.5-mini: sliding_window 262144 over max_position_embeddings 131072.
  const ModelConfig m = import(R"({"model_type": "phi3", "hidden_size": 3072,
      "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
      "max_position_embeddings": 131072, "sliding_window": 262144})");
  CHECK(m.num_sliding() == 32);
  CHECK(m.window == 262144);
  CHECK_THAT(m.notes.at(0), Contains("binds only for sequences longer"));
}

TEST_CASE("hf: use_sliding_window false turns the window off (Qwen2.5)", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "qwen2", "hidden_size": 3584,
      "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
      "max_position_embeddings": 131072, "sliding_window": 131072, "max_window_layers": 28,
      "use_sliding_window": false})");
  CHECK(m.num_sliding() == 0);
  CHECK(m.window == 0);
  REQUIRE_FALSE(m.notes.empty());
  CHECK_THAT(m.notes[0], Contains("use_sliding_window is false"));
}

TEST_CASE("hf: Qwen2 with use_sliding_window true slides layers >= max_window_layers", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "qwen2", "hidden_size": 1024,
      "num_hidden_layers": 8, "num_attention_heads": 8, "num_key_value_heads": 2,
      "max_position_embeddings": 32768, "sliding_window": 4096, "max_window_layers": 5,
      "use_sliding_window": true})");
  for (int i = 0; i < 8; ++i)
    CHECK(m.layers[static_cast<std::size_t>(i)] ==
          (i >= 5 ? LayerKind::kSliding : LayerKind::kFull));
  CHECK(m.window == 4096);
  CHECK(m.is_hybrid());
}

TEST_CASE("hf: layer_types says which layers slide (gpt-oss alternation)", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "gpt_oss", "hidden_size": 2880,
      "num_hidden_layers": 24, "num_attention_heads": 64, "num_key_value_heads": 8,
      "head_dim": 64, "max_position_embeddings": 131072, "sliding_window": 128,
      "layer_types": )" + repeat_types("sliding_attention", "full_attention", 12) +
                               "}");
  CHECK(m.head_dim == 64);
  CHECK(m.num_sliding() == 12);
  CHECK(m.layers[0] == LayerKind::kSliding);
  CHECK(m.layers[1] == LayerKind::kFull);
  CHECK(m.window == 128);
  CHECK(m.pattern_description() == "1 sliding : 1 full (W 128)");
  // All-full layer_types: the window is not used.
  const ModelConfig f = import(llama(R"("num_hidden_layers": 2, "sliding_window": 4096,
      "layer_types": ["full_attention", "full_attention"])"));
  CHECK(f.num_sliding() == 0);
}

TEST_CASE("hf: sliding_window_pattern N makes every N-th layer global (Gemma 3)", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "gemma3_text", "hidden_size": 2560,
      "num_hidden_layers": 34, "num_attention_heads": 8, "num_key_value_heads": 4,
      "head_dim": 256, "max_position_embeddings": 131072, "sliding_window": 1024,
      "sliding_window_pattern": 6, "query_pre_attn_scalar": 256})");
  for (int i = 0; i < 34; ++i)
    CHECK(m.layers[static_cast<std::size_t>(i)] ==
          ((i + 1) % 6 == 0 ? LayerKind::kFull : LayerKind::kSliding));
  CHECK(m.num_sliding() == 34 - 5);  // globals at 5, 11, 17, 23, 29
  CHECK(m.scale == Approx(1.0 / 16.0));
}

TEST_CASE("hf: Gemma 2 alternates local/global by architecture, layer 0 sliding", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "gemma2", "hidden_size": 3584,
      "num_hidden_layers": 42, "num_attention_heads": 16, "num_key_value_heads": 8,
      "head_dim": 256, "max_position_embeddings": 8192, "query_pre_attn_scalar": 256,
      "sliding_window": 4096, "sliding_window_size": 4096})");
  CHECK(m.layers[0] == LayerKind::kSliding);
  CHECK(m.layers[1] == LayerKind::kFull);
  CHECK(m.layers[41] == LayerKind::kFull);
  CHECK(m.num_sliding() == 21);
  CHECK(m.scale == Approx(1.0 / 16.0));  // query_pre_attn_scalar 256
  CHECK(m.pattern_description() == "1 sliding : 1 full (W 4096)");
}

TEST_CASE(
    "hf: sliding_window_size is Gemma 2's legacy spelling, used only without "
    "sliding_window",
    "[hf]") {
  const std::string base = R"({"model_type": "gemma2", "hidden_size": 2304,
      "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 4,
      "head_dim": 256, "max_position_embeddings": 8192, "query_pre_attn_scalar": 144)";
  const ModelConfig legacy = import(base + R"(, "sliding_window_size": 2048})");
  CHECK(legacy.window == 2048);
  CHECK(legacy.num_sliding() == 2);
  CHECK(legacy.scale == Approx(1.0 / 12.0));
  const ModelConfig none =
      import(base + R"(, "sliding_window": null, "sliding_window_size": 2048})");
  CHECK(none.num_sliding() == 0);
}

TEST_CASE(
    "hf: nested text_config is read for the language model, with Gemma3TextConfig "
    "defaults for what the published file omits",
    "[hf]") {
  // google/gemma-3-12b-it: text_config lists only some fields.
  const ModelConfig m = import(R"({"architectures": ["Gemma3ForConditionalGeneration"],
      "model_type": "gemma3", "text_config": {"hidden_size": 3840, "intermediate_size": 15360,
      "model_type": "gemma3_text", "num_attention_heads": 16, "num_hidden_layers": 48,
      "num_key_value_heads": 8, "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
      "sliding_window": 1024}, "vision_config": {"hidden_size": 1152,
      "num_attention_heads": 16, "num_hidden_layers": 27}})");
  CHECK(m.model_type == "gemma3_text");
  CHECK(m.num_layers == 48);  // not the vision tower's 27
  CHECK(m.q_heads == 16);
  CHECK(m.kv_heads == 8);
  CHECK(m.head_dim == 256);    // default
  CHECK(m.max_seq == 131072);  // default
  CHECK(m.window == 1024);
  CHECK(m.num_sliding() == 40);          // pattern 6 (default): 8 globals of 48
  CHECK(m.scale == Approx(1.0 / 16.0));  // query_pre_attn_scalar 256 (default)
  CHECK(m.notes.size() == 4);
  CHECK(m.display_name == "Gemma3ForConditionalGeneration");
  // Errors name the nested field.
  CHECK_THROWS_WITH(
      import(R"({"model_type": "llava", "text_config": {"model_type": "llama",
      "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": -3,
      "max_position_embeddings": 4096}})"),
      "cfg.json: field 'text_config.num_attention_heads': expected a positive integer, found -3");
}

TEST_CASE(
    "hf: max_position_embeddings is the default context; where no file or class default states "
    "one it is unknown (0) with a note",
    "[hf]") {
  CHECK(import(llama()).max_seq == 8192);
  const ModelConfig m = import(R"({"model_type": "llama", "hidden_size": 4096,
      "num_hidden_layers": 32, "num_attention_heads": 32})");
  CHECK(m.max_seq == 0);
  bool noted = false;
  for (const auto& n : m.notes) noted = noted || n.find("max_position_embeddings absent") == 0;
  CHECK(noted);
  CHECK_NOTHROW(m.validate());
}

TEST_CASE("hf: Granite's attention_multiplier is the softmax scale", "[hf]") {
  CHECK(import(llama(R"("model_type": "granite", "attention_multiplier": 0.0078125)")).scale ==
        0.0078125);
}

TEST_CASE("hf: layers without KV cache (linear attention) are left out, with a note", "[hf]") {
  // Qwen3-Next / Qwen3.5 style: three linear-attention layers per full one.
  const ModelConfig m = import(R"({"model_type": "qwen3_next", "hidden_size": 2048,
      "num_hidden_layers": 8, "num_attention_heads": 16, "num_key_value_heads": 2,
      "head_dim": 256, "max_position_embeddings": 262144, "use_sliding_window": false,
      "layer_types": ["linear_attention", "linear_attention", "linear_attention",
      "full_attention", "linear_attention", "linear_attention", "linear_attention",
      "full_attention"]})");
  CHECK(m.num_layers == 2);
  CHECK(m.num_sliding() == 0);
  REQUIRE_FALSE(m.notes.empty());
  CHECK_THAT(m.notes[0], Contains("6 layers keep a fixed-size state"));
}

TEST_CASE("hf: Gemma 3n's num_kv_shared_layers store no cache of their own", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "gemma3n", "text_config": {
      "model_type": "gemma3n_text", "hidden_size": 2048, "num_hidden_layers": 10,
      "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 256,
      "max_position_embeddings": 32768, "sliding_window": 512, "num_kv_shared_layers": 4,
      "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention",
      "sliding_attention", "full_attention", "sliding_attention", "sliding_attention",
      "sliding_attention", "sliding_attention", "full_attention"]}})");
  CHECK(m.num_layers == 6);
  CHECK(m.num_sliding() == 5);
  CHECK(m.window == 512);
  CHECK_THAT(m.notes.back(), Contains("last 4 layers reuse"));
}

TEST_CASE("hf: chunked attention (Llama 4) keeps attention_chunk_size tokens", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "llama4_text", "hidden_size": 5120,
      "num_hidden_layers": 4, "num_attention_heads": 40, "num_key_value_heads": 8,
      "head_dim": 128, "max_position_embeddings": 10485760, "attention_chunk_size": 8192,
      "layer_types": ["chunked_attention", "chunked_attention", "chunked_attention",
      "full_attention"]})");
  CHECK(m.num_sliding() == 3);
  CHECK(m.window == 8192);
  CHECK(m.layers[3] == LayerKind::kFull);
  CHECK_THROWS_WITH(import(R"({"model_type": "llama4_text", "hidden_size": 5120,
      "num_hidden_layers": 2, "num_attention_heads": 40, "max_position_embeddings": 8192,
      "layer_types": ["chunked_attention", "full_attention"]})"),
                    Contains("field 'attention_chunk_size': missing"));
}

TEST_CASE("hf: use_sliding_window false also overrides sliding layer_types", "[hf]") {
  const ModelConfig m = import(llama(R"("num_hidden_layers": 2, "sliding_window": 64,
      "use_sliding_window": false, "layer_types": ["sliding_attention", "full_attention"])"));
  CHECK(m.num_sliding() == 0);
}

// ---- more spellings and real files ------------------------------------------------------------

TEST_CASE("hf: llm_config / language_config hold the language model when the top has none",
          "[hf]") {
  const ModelConfig m = import(R"({"model_type": "internvl_chat", "llm_config": {
      "model_type": "qwen2", "hidden_size": 896, "num_hidden_layers": 24,
      "num_attention_heads": 14, "num_key_value_heads": 2, "max_position_embeddings": 32768,
      "use_sliding_window": false, "sliding_window": 32768}, "vision_config": {
      "num_hidden_layers": 24, "hidden_size": 1024, "num_attention_heads": 16}})");
  CHECK(m.kv_heads == 2);
  CHECK(m.head_dim == 64);
  CHECK_THROWS_WITH(import(R"({"model_type": "x", "llm_config": {"num_hidden_layers": 2,
      "num_attention_heads": 0, "hidden_size": 8, "max_position_embeddings": 8}})"),
                    Contains("field 'llm_config.num_attention_heads'"));
}

TEST_CASE("hf: ChatGLM's num_layers, kv_channels, multi_query_group_num, seq_length", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "chatglm", "hidden_size": 4096,
      "num_layers": 40, "num_attention_heads": 32, "kv_channels": 128,
      "multi_query_attention": true, "multi_query_group_num": 2, "seq_length": 131072})");
  CHECK(m.num_layers == 40);
  CHECK(m.kv_heads == 2);
  CHECK(m.head_dim == 128);
  CHECK(m.max_seq == 131072);
}

TEST_CASE("hf: published files as they are (Qwen3-8B, Llama-3.2-3B, Falcon-40B)", "[hf]") {
  // Qwen/Qwen3-8B config.json: explicit head_dim, sliding_window null, use_sliding_window false.
  const ModelConfig q = import(R"({"architectures": ["Qwen3ForCausalLM"],
      "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 151643,
      "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096,
      "initializer_range": 0.02, "intermediate_size": 12288, "max_position_embeddings": 40960,
      "max_window_layers": 36, "model_type": "qwen3", "num_attention_heads": 32,
      "num_hidden_layers": 36, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
      "rope_scaling": null, "rope_theta": 1000000, "sliding_window": null,
      "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.51.0",
      "use_cache": true, "use_sliding_window": false, "vocab_size": 151936})");
  CHECK(q.num_layers == 36);
  CHECK(q.kv_heads == 8);
  CHECK(q.head_dim == 128);
  CHECK(q.num_sliding() == 0);
  CHECK(q.max_seq == 40960);
  // meta-llama/Llama-3.2-3B: head_dim 128 written out (3072 / 24 = 128 as well).
  const ModelConfig l = import(R"({"architectures": ["LlamaForCausalLM"],
      "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 128000,
      "eos_token_id": 128001, "head_dim": 128, "hidden_act": "silu", "hidden_size": 3072,
      "initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 131072,
      "mlp_bias": false, "model_type": "llama", "num_attention_heads": 24,
      "num_hidden_layers": 28, "num_key_value_heads": 8, "pretraining_tp": 1,
      "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0,
      "low_freq_factor": 1.0, "original_max_position_embeddings": 8192,
      "rope_type": "llama3"}, "rope_theta": 500000.0, "tie_word_embeddings": true,
      "torch_dtype": "bfloat16", "transformers_version": "4.45.0.dev0", "use_cache": true,
      "vocab_size": 128256})");
  CHECK(l.q_heads == 24);
  CHECK(l.kv_heads == 8);
  CHECK(l.variant == Variant::kGqa);
  // tiiuae/falcon-40b: multi_query true but new_decoder_architecture, 8 kv heads, no
  // max_position_embeddings.
  const ModelConfig f = import(R"({"alibi": false,
      "apply_residual_connection_post_layernorm": false, "architectures": ["FalconForCausalLM"],
      "attention_dropout": 0.0, "bias": false, "bos_token_id": 11, "eos_token_id": 11,
      "hidden_dropout": 0.0, "hidden_size": 8192, "initializer_range": 0.02,
      "layer_norm_epsilon": 1e-05, "model_type": "falcon", "multi_query": true,
      "new_decoder_architecture": true, "num_attention_heads": 128, "num_hidden_layers": 60,
      "num_kv_heads": 8, "parallel_attn": true, "torch_dtype": "bfloat16",
      "transformers_version": "4.28.1", "use_cache": true, "vocab_size": 65024})");
  CHECK(f.kv_heads == 8);
  CHECK(f.num_layers == 60);
  CHECK(f.max_seq == 2048);
}

TEST_CASE("hf: Qwen2's class defaults: use_sliding_window false, max_window_layers 28", "[hf]") {
  const std::string base = R"({"model_type": "qwen2", "hidden_size": 1024,
      "num_hidden_layers": 32, "num_attention_heads": 8, "num_key_value_heads": 2,
      "max_position_embeddings": 32768, "sliding_window": 4096)";
  const ModelConfig off = import(base + "}");
  CHECK(off.num_sliding() == 0);
  CHECK_THAT(off.notes.at(0), Contains("use_sliding_window absent"));
  const ModelConfig on = import(base + R"(, "use_sliding_window": true})");
  CHECK(on.num_sliding() == 32 - 28);  // layers 28..31
  CHECK(on.layers[27] == LayerKind::kFull);
  CHECK(on.layers[28] == LayerKind::kSliding);
}

TEST_CASE("hf: DeepSeek's YaRN mscale is noted, the scale stays 1/sqrt(192)", "[hf]") {
  const ModelConfig m = import(R"({"model_type": "deepseek_v3", "hidden_size": 7168,
      "num_hidden_layers": 61, "num_attention_heads": 128, "kv_lora_rank": 512,
      "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
      "max_position_embeddings": 163840, "rope_scaling": {"beta_fast": 32, "beta_slow": 1,
      "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
      "original_max_position_embeddings": 4096, "type": "yarn"}})");
  CHECK(m.scale == Approx(1.0 / std::sqrt(192.0)));
  REQUIRE(m.notes.size() == 1);
  CHECK_THAT(m.notes[0], Contains("mscale^2 = 1.874"));
}
