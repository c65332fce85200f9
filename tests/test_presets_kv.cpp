// Presets and KV-cache accounting: every preset's cache worked out by hand, tensor parallelism,
// dtypes (mxfp4 scale bytes included), windows, and a randomised property against a per-token
// count.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <set>
#include <string>

#include "attention/config.h"
#include "attention/error.h"
#include "attention/kv_cache.h"
#include "attention/presets.h"

using namespace attn;
using Catch::Matchers::Contains;

namespace {

std::uint64_t total(const std::string& preset, std::int64_t seq, std::int64_t batch = 1,
                    DType dt = DType::kBf16, int tp = 1) {
  const KvReport r = kv_cache(find_preset(preset), seq, batch, dt, tp);
  return tp == 1 ? r.total_bytes : r.per_device_bytes;
}

}  // namespace

TEST_CASE("presets: the required ones exist, in a stable order, with published shapes",
          "[presets]") {
  const auto& all = presets();
  std::vector<std::string> names;
  for (const auto& m : all) names.push_back(m.name);
  const std::vector<std::string> first = {
      "llama-2-7b", "llama-3-8b",  "llama-3.1-70b", "falcon-7b",        "mistral-7b-v0.1",
      "gemma-2-9b", "gemma-3-12b", "gpt-oss-20b",   "deepseek-v2-lite", "deepseek-v3"};
  REQUIRE(names.size() >= first.size());
  CHECK(std::vector<std::string>(names.begin(), names.begin() + 10) == first);
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  for (const auto& m : all) {
    CAPTURE(m.name);
    CHECK_FALSE(m.display_name.empty());
    CHECK_FALSE(m.source.empty());
    CHECK_NOTHROW(m.validate());
  }
  CHECK(find_preset("llama-2-7b").variant == Variant::kMha);
  CHECK(find_preset("llama-3-8b").variant == Variant::kGqa);
  CHECK(find_preset("falcon-7b").variant == Variant::kMqa);
  CHECK(find_preset("mistral-7b-v0.1").variant == Variant::kSwa);
  CHECK(find_preset("deepseek-v3").variant == Variant::kMla);
  CHECK(find_preset("gemma-2-9b").is_hybrid());
  CHECK(find_preset("gemma-3-12b").pattern_description() == "5 sliding : 1 full (W 1024)");
  CHECK(find_preset("gpt-oss-20b").pattern_description() == "1 sliding : 1 full (W 128)");
  CHECK(find_preset("gpt-oss-20b").head_dim == 64);
  CHECK(find_preset("deepseek-v2-lite").latent_dim == 512);
  CHECK(find_preset("deepseek-v3").rope_dim == 64);
  CHECK(find_preset("llama-3-8b").display_name == "Llama-3-8B");
}

TEST_CASE("presets: an unknown name lists the known ones", "[presets]") {
  CHECK_THROWS_AS(find_preset("llama-9"), InputError);
  CHECK_THROWS_WITH(find_preset("llama-9"),
                    Contains("unknown preset 'llama-9' (known: llama-2-7b, llama-3-8b,"));
}

TEST_CASE("kv: every preset at its maximum context, bf16, by hand", "[kv]") {
  // Llama-2-7B: 32 layers * 2 (K, V) * 32 kv heads * 128 * 2 B = 524288 B per token; S 4096.
  CHECK(kv_cache(find_preset("llama-2-7b"), 4096, 1, DType::kBf16).bytes_per_token == 524288);
  CHECK(total("llama-2-7b", 4096) == 524288ull * 4096);  // 2 GiB
  // Llama-3-8B: 32 * 2 * 8 * 128 * 2 B = 131072 B per token; S 8192.
  CHECK(total("llama-3-8b", 8192) == 131072ull * 8192);  // 1 GiB
  // Llama-3.1-70B: 80 * 2 * 8 * 128 * 2 B = 327680 B per token; S 131072.
  CHECK(total("llama-3.1-70b", 131072) == 327680ull * 131072);  // 40 GiB
  // Falcon-7B (MQA): 32 * 2 * 1 * 64 * 2 B = 8192 B per token; S 2048 (FalconConfig default).
  CHECK(find_preset("falcon-7b").max_seq == 2048);
  CHECK(total("falcon-7b", 2048) == 8192ull * 2048);
  // Mistral-7B-v0.1: 131072 B per token, every layer keeps min(S, 4096) tokens; S 32768.
  CHECK(total("mistral-7b-v0.1", 32768) == 131072ull * 4096);
  // Gemma-2-9B: per layer-token 2 * 8 * 256 * 2 B = 8192; 21 full layers hold 8192 tokens,
  // 21 sliding layers min(8192, 4096).
  CHECK(total("gemma-2-9b", 8192) == 21ull * 8192 * 8192 + 21ull * 8192 * 4096);
  // Gemma-3-12B: 8192 B per layer-token; 8 global layers hold 131072 tokens, 40 local 1024.
  CHECK(total("gemma-3-12b", 131072) == 8ull * 8192 * 131072 + 40ull * 8192 * 1024);
  // gpt-oss-20b: 2 * 8 * 64 * 2 B = 2048 per layer-token; 12 full * 131072 + 12 sliding * 128.
  CHECK(total("gpt-oss-20b", 131072) == 12ull * 2048 * 131072 + 12ull * 2048 * 128);
  // DeepSeek-V2-Lite (MLA): 27 layers * (512 + 64) * 2 B = 31104 B per token; S 163840.
  CHECK(total("deepseek-v2-lite", 163840) == 31104ull * 163840);
  // DeepSeek-V3 (MLA): 61 * 576 * 2 B = 70272 B per token; S 163840.
  CHECK(total("deepseek-v3", 163840) == 70272ull * 163840);
  // Qwen2.5-7B (use_sliding_window false): 28 * 2 * 4 * 128 * 2 B = 57344 B per token.
  CHECK(total("qwen2.5-7b", 131072) == 57344ull * 131072);
  // Mixtral-8x7B (sliding_window null): 131072 B per token, S 32768, no window.
  CHECK(total("mixtral-8x7b", 32768) == 131072ull * 32768);
  // Every preset: the report's default-context figures add up per layer.
  for (const auto& m : presets()) {
    CAPTURE(m.name);
    const KvReport r = kv_cache(m, m.max_seq, 1, DType::kBf16);
    std::uint64_t sum = 0;
    for (const auto& l : r.layers) sum += l.bytes;
    CHECK(sum == r.total_bytes);
    CHECK(r.per_device_bytes == r.total_bytes);
    CHECK(r.layers.size() == static_cast<std::size_t>(m.num_layers));
  }
}

TEST_CASE("kv: batch multiplies, short sequences fit inside windows", "[kv]") {
  // Llama-3-8B, B 16, S 4096: 131072 * 4096 * 16 = 8 GiB.
  CHECK(total("llama-3-8b", 4096, 16) == 131072ull * 4096 * 16);
  // Mistral at S 1000 < W: every layer holds all 1000 tokens.
  CHECK(total("mistral-7b-v0.1", 1000) == 131072ull * 1000);
  // Gemma-2 at S 4097: sliding layers hold 4096, full layers 4097.
  CHECK(total("gemma-2-9b", 4097) == 21ull * 8192 * 4097 + 21ull * 8192 * 4096);
  const KvReport r = kv_cache(find_preset("gemma-2-9b"), 4097, 1, DType::kBf16);
  CHECK(r.layers[0].kind == LayerKind::kSliding);
  CHECK(r.layers[0].window == 4096);
  CHECK(r.layers[0].bytes == 8192ull * 4096);
  CHECK(r.layers[1].kind == LayerKind::kFull);
  CHECK(r.layers[1].window == 0);
  CHECK(r.layers[1].bytes == 8192ull * 4097);
  CHECK(r.bytes_per_token_full_layer == 8192);
  CHECK(r.bytes_per_token == 42ull * 8192);
}

TEST_CASE("kv: dtypes, mxfp4 with one scale byte per started block of 32", "[kv]") {
  // Llama-3-8B per token: fp32 4 B, fp16 2 B, fp8 1 B per element (2 * 8 * 128 * 32 elements).
  CHECK(total("llama-3-8b", 1, 1, DType::kFp32) == 262144);
  CHECK(total("llama-3-8b", 1, 1, DType::kFp16) == 131072);
  CHECK(total("llama-3-8b", 1, 1, DType::kFp8) == 65536);
  // mxfp4: each K or V row of 128 elements is 64 B of nibbles + 4 scale bytes = 68 B;
  // 2 * 8 rows * 32 layers = 512 rows -> 34816 B per token.
  CHECK(total("llama-3-8b", 1, 1, DType::kMxfp4) == 512ull * 68);
  // DeepSeek-V3 mxfp4: one latent row of 576 = 288 + 18 B, 61 layers.
  CHECK(total("deepseek-v3", 1, 1, DType::kMxfp4) == 61ull * 306);
  // gpt-oss rows of 64: 32 + 2 B.
  const LayerShape s = find_preset("gpt-oss-20b").layer_shape(1);
  CHECK(kv_bytes_per_token(s, DType::kMxfp4) == 2ull * 8 * 34);
}

TEST_CASE("kv: tensor parallelism splits kv heads, ceil(Hkv/N) per device; MLA replicated",
          "[kv]") {
  const std::uint64_t llama8 = total("llama-3-8b", 8192);
  CHECK(total("llama-3-8b", 8192, 1, DType::kBf16, 2) == llama8 / 2);   // 4 of 8 heads
  CHECK(total("llama-3-8b", 8192, 1, DType::kBf16, 8) == llama8 / 8);   // 1 head each
  CHECK(total("llama-3-8b", 8192, 1, DType::kBf16, 16) == llama8 / 8);  // replicated past 8
  CHECK(total("llama-3.1-70b", 1024, 1, DType::kBf16, 3) == 327680ull * 1024 * 3 / 8);  // ceil(8/3)
  CHECK(total("falcon-7b", 2048, 1, DType::kBf16, 4) == total("falcon-7b", 2048));  // MQA: 1 head
  CHECK(total("deepseek-v3", 4096, 1, DType::kBf16, 8) == total("deepseek-v3", 4096));
  const KvReport r = kv_cache(find_preset("llama-3-8b"), 8192, 1, DType::kBf16, 16);
  CHECK(r.total_bytes == llama8);  // the whole cache is unchanged, only per device differs
  CHECK(r.tp == 16);
  CHECK(r.layers[0].per_device_bytes == r.layers[0].bytes / 8);
}

TEST_CASE("kv: bad sequence, batch or tp is an input error", "[kv]") {
  const ModelConfig& m = find_preset("llama-3-8b");
  CHECK_THROWS_WITH(kv_cache(m, 0, 1, DType::kBf16), Contains("seq"));
  CHECK_THROWS_WITH(kv_cache(m, Limits::kMaxSeq + 1, 1, DType::kBf16), Contains("seq"));
  CHECK_THROWS_WITH(kv_cache(m, 16, 0, DType::kBf16), Contains("batch"));
  CHECK_THROWS_WITH(kv_cache(m, 16, Limits::kMaxBatch + 1, DType::kBf16), Contains("batch"));
  CHECK_THROWS_WITH(kv_cache(m, 16, 1, DType::kBf16, 0), Contains("tp"));
  ModelConfig broken = m;
  broken.kv_heads = 5;
  CHECK_THROWS_AS(kv_cache(broken, 16, 1, DType::kBf16), InputError);
  // A large real request fits in 64 bits; an absurd one within the limits says it overflows.
  CHECK_NOTHROW(kv_cache(find_preset("llama-3.1-70b"), Limits::kMaxSeq, 1024, DType::kFp32));
  ModelConfig huge;
  huge.name = "huge";
  huge.variant = Variant::kMha;
  huge.num_layers = Limits::kMaxLayers;
  huge.q_heads = huge.kv_heads = Limits::kMaxHeads;
  huge.head_dim = huge.value_dim = Limits::kMaxHeadDim;
  huge.layers.assign(static_cast<std::size_t>(Limits::kMaxLayers), LayerKind::kFull);
  huge.max_seq = Limits::kMaxSeq;
  CHECK_THROWS_WITH(kv_cache(huge, Limits::kMaxSeq, Limits::kMaxBatch, DType::kFp32),
                    Contains("overflows 64 bits"));
}

TEST_CASE("kv: random models match a token-by-token count", "[kv]") {
  const unsigned seed = 31337u;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  const auto pick = [&rng](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 200; ++trial) {
    ModelConfig m;
    m.name = "random";
    m.num_layers = pick(1, 40);
    m.hidden_size = 0;
    m.max_seq = 1 << 20;
    const bool mla = pick(0, 4) == 0;
    m.q_heads = pick(1, 64);
    std::vector<int> divisors;
    for (int d = 1; d <= m.q_heads; ++d)
      if (m.q_heads % d == 0) divisors.push_back(d);
    const int seq = pick(1, 5000), batch = pick(1, 5), tp = pick(1, 20);
    const DType dt = static_cast<DType>(pick(0, 4));
    CAPTURE(trial, m.num_layers, m.q_heads, seq, batch, tp, dtype_name(dt));
    std::uint64_t want = 0, want_dev = 0;
    if (mla) {
      m.variant = Variant::kMla;
      m.kv_heads = m.q_heads;
      m.latent_dim = pick(1, 600);
      m.rope_dim = pick(0, 80);
      m.qk_nope_dim = pick(1, 128);
      m.head_dim = m.qk_nope_dim + m.rope_dim;
      m.value_dim = pick(1, 128);
      m.layers.assign(static_cast<std::size_t>(m.num_layers), LayerKind::kFull);
      const std::uint64_t row =
          dtype_storage_bytes(dt, 1, static_cast<std::uint64_t>(m.latent_dim + m.rope_dim));
      for (int l = 0; l < m.num_layers; ++l)
        for (int t = 0; t < seq; ++t) want += row * static_cast<std::uint64_t>(batch);
      want_dev = want;
    } else {
      m.kv_heads =
          divisors[static_cast<std::size_t>(pick(0, static_cast<int>(divisors.size()) - 1))];
      m.head_dim = pick(1, 300);
      m.value_dim = m.head_dim;
      m.window = pick(1, 6000);
      m.layers.resize(static_cast<std::size_t>(m.num_layers));
      for (auto& k : m.layers) k = pick(0, 1) ? LayerKind::kSliding : LayerKind::kFull;
      m.variant = m.num_sliding() == m.num_layers ? Variant::kSwa : Variant::kGqa;
      if (m.num_sliding() == 0) m.window = 0;
      const std::uint64_t head_row =
          dtype_storage_bytes(dt, 1, static_cast<std::uint64_t>(m.head_dim));
      const int heads_dev = (m.kv_heads + tp - 1) / tp;
      for (int l = 0; l < m.num_layers; ++l) {
        const bool sliding = m.layers[static_cast<std::size_t>(l)] == LayerKind::kSliding;
        for (int t = 0; t < seq; ++t) {
          // Token t (0-based) is still cached by a sliding layer when it is among the W newest.
          if (sliding && t < seq - m.window) continue;
          want += 2ull * static_cast<std::uint64_t>(m.kv_heads) * head_row *
                  static_cast<std::uint64_t>(batch);
          want_dev += 2ull * static_cast<std::uint64_t>(heads_dev) * head_row *
                      static_cast<std::uint64_t>(batch);
        }
      }
    }
    const KvReport r = kv_cache(m, seq, batch, dt, tp);
    REQUIRE(r.total_bytes == want);
    REQUIRE(r.per_device_bytes == want_dev);
  }
}
