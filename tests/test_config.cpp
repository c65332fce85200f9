// config: names, LayerShape / ModelConfig validation (messages name the field and the found
// values), layer shapes of hybrid models and the what-if conversions.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/error.h"
#include "attention/kv_cache.h"

using namespace attn;
using Catch::Matchers::Contains;

namespace {

ModelConfig grouped_model(int layers, int hq, int hkv, int d) {
  ModelConfig m;
  m.name = "test";
  m.variant = hkv == hq ? Variant::kMha : hkv == 1 ? Variant::kMqa : Variant::kGqa;
  m.num_layers = layers;
  m.q_heads = hq;
  m.kv_heads = hkv;
  m.head_dim = d;
  m.value_dim = d;
  m.hidden_size = hq * d;
  m.layers.assign(static_cast<std::size_t>(layers), LayerKind::kFull);
  m.max_seq = 4096;
  return m;
}

// DeepSeek-V3's attention as published (61 layers, 128 heads, kv_lora_rank 512,
// qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128).
ModelConfig deepseek_v3_like() {
  ModelConfig m;
  m.name = "dsv3";
  m.variant = Variant::kMla;
  m.num_layers = 61;
  m.hidden_size = 7168;
  m.q_heads = 128;
  m.kv_heads = 128;
  m.head_dim = 192;
  m.value_dim = 128;
  m.latent_dim = 512;
  m.rope_dim = 64;
  m.qk_nope_dim = 128;
  m.q_lora_rank = 1536;
  m.layers.assign(61, LayerKind::kFull);
  m.max_seq = 163840;
  m.scale = 1.0 / std::sqrt(192.0);
  return m;
}

}  // namespace

TEST_CASE("variant and layer kind names parse back", "[config]") {
  for (Variant v : {Variant::kMha, Variant::kMqa, Variant::kGqa, Variant::kSwa, Variant::kMla}) {
    REQUIRE(parse_variant(variant_name(v)).has_value());
    CHECK(*parse_variant(variant_name(v)) == v);
    CHECK(is_grouped(v) == (v != Variant::kMla));
  }
  CHECK_FALSE(parse_variant("MHA").has_value());
  CHECK_FALSE(parse_variant("flash").has_value());
  CHECK(layer_kind_name(LayerKind::kFull) == "full");
  CHECK(layer_kind_name(LayerKind::kSliding) == "sliding");
}

TEST_CASE("LayerShape validation names the field and the found values", "[config]") {
  LayerShape s;  // GQA 32 / 8, D 128
  CHECK_NOTHROW(s.validate());
  CHECK(s.group_size() == 4);

  LayerShape bad = s;
  bad.kv_heads = 5;
  CHECK_THROWS_WITH(bad.validate(), "q_heads must be divisible by kv_heads (found Hq 32, Hkv 5)");
  bad = s;
  bad.q_heads = 0;
  CHECK_THROWS_WITH(bad.validate(), Contains("q_heads") && Contains("found 0"));
  bad = s;
  bad.q_heads = Limits::kMaxHeads + 1;
  CHECK_THROWS_WITH(bad.validate(), Contains("q_heads") && Contains("4097"));
  bad = s;
  bad.head_dim = -1;
  CHECK_THROWS_WITH(bad.validate(), Contains("head_dim"));
  bad = s;
  bad.value_dim = Limits::kMaxHeadDim + 1;
  CHECK_THROWS_WITH(bad.validate(), Contains("value_dim"));
  bad = s;
  bad.variant = Variant::kMha;
  CHECK_THROWS_WITH(bad.validate(), Contains("kv_heads must equal q_heads for mha"));
  bad = s;
  bad.variant = Variant::kMqa;
  CHECK_THROWS_WITH(bad.validate(), Contains("kv_heads must be 1 for mqa (found Hkv 8)"));
  bad = s;
  bad.variant = Variant::kSwa;
  CHECK_THROWS_WITH(bad.validate(), Contains("window must be at least 1 for swa"));
  bad.window = 4096;
  CHECK_NOTHROW(bad.validate());
  bad.window = -3;
  CHECK_THROWS_WITH(bad.validate(), Contains("window") && Contains("-3"));
  bad = s;
  bad.scale = std::nan("");
  CHECK_THROWS_WITH(bad.validate(), Contains("scale"));

  LayerShape mla;
  mla.variant = Variant::kMla;
  mla.q_heads = 128;
  mla.kv_heads = 1;
  mla.latent_dim = 512;
  mla.rope_dim = 64;
  mla.head_dim = 576;
  mla.value_dim = 512;
  CHECK_NOTHROW(mla.validate());
  bad = mla;
  bad.head_dim = 512;
  CHECK_THROWS_WITH(bad.validate(), Contains("head_dim must equal latent_dim + rope_dim"));
  bad = mla;
  bad.kv_heads = 2;
  CHECK_THROWS_WITH(bad.validate(), Contains("kv_heads must be 1 for mla"));
  bad = mla;
  bad.latent_dim = 0;
  CHECK_THROWS_WITH(bad.validate(), Contains("latent_dim"));
  bad = mla;
  bad.window = 128;
  CHECK_THROWS_WITH(bad.validate(), Contains("window is not supported for mla"));
}

TEST_CASE("effective scale: explicit, else 1/sqrt(D), MLA 1/sqrt(Dl + Dr)", "[config]") {
  LayerShape s;
  s.head_dim = 64;
  CHECK(s.effective_scale() == Approx(0.125));
  s.scale = 0.5;
  CHECK(s.effective_scale() == 0.5);
  LayerShape mla;
  mla.variant = Variant::kMla;
  mla.latent_dim = 512;
  mla.rope_dim = 64;
  mla.head_dim = 576;
  CHECK(mla.effective_scale() == Approx(1.0 / std::sqrt(576.0)));
}

TEST_CASE("ModelConfig: layer shapes, counts and pattern of a 5:1 hybrid", "[config]") {
  ModelConfig m = grouped_model(48, 16, 8, 256);
  m.window = 1024;
  for (int i = 0; i < 48; ++i)
    m.layers[static_cast<std::size_t>(i)] =
        (i + 1) % 6 == 0 ? LayerKind::kFull : LayerKind::kSliding;
  CHECK_NOTHROW(m.validate());
  CHECK(m.num_sliding() == 40);
  CHECK(m.is_hybrid());
  CHECK(m.pattern_description() == "5 sliding : 1 full (W 1024)");
  const LayerShape s0 = m.layer_shape(0), s5 = m.layer_shape(5);
  CHECK(s0.variant == Variant::kSwa);
  CHECK(s0.window == 1024);
  CHECK(s5.variant == Variant::kGqa);
  CHECK(s5.window == 0);
  CHECK(s5.kv_heads == 8);
  CHECK_THROWS_AS(m.layer_shape(48), InputError);
  CHECK_THROWS_AS(m.layer_shape(-1), InputError);

  ModelConfig full = grouped_model(32, 32, 32, 128);
  CHECK(full.pattern_description() == "all full");
  CHECK_FALSE(full.is_hybrid());
  ModelConfig swa = grouped_model(32, 32, 8, 128);
  swa.variant = Variant::kSwa;
  swa.window = 4096;
  swa.layers.assign(32, LayerKind::kSliding);
  CHECK(swa.pattern_description() == "all sliding (W 4096)");
  CHECK_NOTHROW(swa.validate());
}

TEST_CASE("ModelConfig validation: limits and consistency, field named", "[config]") {
  ModelConfig m = grouped_model(32, 32, 8, 128);
  CHECK_NOTHROW(m.validate());
  ModelConfig bad = m;
  bad.num_layers = Limits::kMaxLayers + 1;
  CHECK_THROWS_WITH(bad.validate(), Contains("num_layers"));
  bad = m;
  bad.layers.pop_back();
  CHECK_THROWS_WITH(bad.validate(), Contains("layers must list one kind per layer"));
  bad = m;
  bad.max_seq = Limits::kMaxSeq + 1;
  CHECK_THROWS_WITH(bad.validate(), Contains("max_seq"));
  bad = m;
  bad.kv_heads = 6;
  CHECK_THROWS_WITH(bad.validate(),
                    Contains("q_heads must be divisible by kv_heads (found Hq 32, Hkv 6)"));
  bad = m;
  bad.layers[3] = LayerKind::kSliding;  // sliding layer, no window
  CHECK_THROWS_WITH(bad.validate(), Contains("window"));
  bad = m;
  bad.variant = Variant::kSwa;
  bad.window = 128;
  CHECK_THROWS_WITH(bad.validate(), Contains("variant swa needs every layer sliding"));
  ModelConfig mla = deepseek_v3_like();
  CHECK_NOTHROW(mla.validate());
  mla.layers[0] = LayerKind::kSliding;
  CHECK_THROWS_WITH(mla.validate(), Contains("mla layers cannot slide"));
}

TEST_CASE("what-if: DeepSeek-V3 as MHA needs ~56.9x the cache of its MLA", "[config]") {
  const ModelConfig mla = deepseek_v3_like();
  const LayerShape ls = mla.layer_shape(0);
  CHECK(ls.variant == Variant::kMla);
  CHECK(ls.head_dim == 576);
  CHECK(ls.value_dim == 512);
  CHECK(ls.kv_heads == 1);
  WhatIf w;
  w.variant = Variant::kMha;
  const ModelConfig mha = apply_what_if(mla, w);
  CHECK(mha.variant == Variant::kMha);
  CHECK(mha.kv_heads == 128);
  CHECK(mha.head_dim == 128);  // D = Dv
  CHECK(mha.latent_dim == 0);
  const LayerShape hs = mha.layer_shape(0);
  // Elements per layer and token: MHA 2 * 128 heads * 128 = 32768, MLA 512 + 64 = 576.
  const double ratio = 2.0 * hs.kv_heads * hs.head_dim / (ls.latent_dim + ls.rope_dim);
  CHECK(ratio == Approx(32768.0 / 576.0));
  CHECK(ratio == Approx(56.9).epsilon(0.001));
  CHECK(mha.layer_shape(0).effective_scale() == Approx(1.0 / std::sqrt(128.0)));
}

TEST_CASE("what-if: GQA takes kv_heads that divide Hq; MQA; SWA slides every layer", "[config]") {
  const ModelConfig base = grouped_model(32, 32, 32, 128);
  WhatIf w;
  w.variant = Variant::kGqa;
  w.kv_heads = 8;
  ModelConfig g = apply_what_if(base, w);
  CHECK(g.kv_heads == 8);
  CHECK(g.layer_shape(0).group_size() == 4);
  w.kv_heads = 5;
  CHECK_THROWS_WITH(apply_what_if(base, w), "kv_heads must divide q_heads (found Hq 32, Hkv 5)");
  w.kv_heads = 0;  // keep the model's
  CHECK(apply_what_if(base, w).kv_heads == 32);

  w.variant = Variant::kMqa;
  CHECK(apply_what_if(base, w).kv_heads == 1);

  w.variant = Variant::kSwa;
  w.window = 512;
  const ModelConfig s = apply_what_if(base, w);
  CHECK(s.num_sliding() == 32);
  CHECK(s.window == 512);
  CHECK(s.layer_shape(7).variant == Variant::kSwa);
  w.window = 0;
  CHECK_THROWS_WITH(apply_what_if(base, w), Contains("window"));

  // A hybrid model as MHA: every layer full.
  ModelConfig hybrid = grouped_model(4, 8, 4, 64);
  hybrid.window = 128;
  hybrid.layers = {LayerKind::kSliding, LayerKind::kFull, LayerKind::kSliding, LayerKind::kFull};
  w = WhatIf{};
  w.variant = Variant::kMha;
  const ModelConfig h = apply_what_if(hybrid, w);
  CHECK(h.num_sliding() == 0);
  CHECK(h.window == 0);
  // keep_windows: the same hybrid pattern with other heads.
  w.variant = Variant::kMqa;
  w.keep_windows = true;
  const ModelConfig k = apply_what_if(hybrid, w);
  CHECK(k.kv_heads == 1);
  CHECK(k.layers == hybrid.layers);
  CHECK(k.window == 128);
  CHECK(k.layer_shape(0).variant == Variant::kSwa);
  CHECK(k.layer_shape(1).variant == Variant::kMqa);
}

TEST_CASE("what-if: grouped model to MLA uses the requested Dl and Dr", "[config]") {
  const ModelConfig base = grouped_model(32, 32, 8, 128);
  WhatIf w;
  w.variant = Variant::kMla;
  w.latent_dim = 256;
  w.rope_dim = 32;
  const ModelConfig m = apply_what_if(base, w);
  CHECK(m.variant == Variant::kMla);
  const LayerShape s = m.layer_shape(0);
  CHECK(s.latent_dim == 256);
  CHECK(s.rope_dim == 32);
  CHECK(s.head_dim == 288);
  CHECK(s.kv_heads == 1);
  CHECK(m.qk_nope_dim == 128);
  CHECK(m.value_dim == 128);
  w.latent_dim = 0;
  CHECK_THROWS_WITH(apply_what_if(base, w), Contains("latent_dim"));
}

TEST_CASE("what-if: on random models, the cache scales with the kv heads asked for", "[config]") {
  // Property (all layers full after a grouped what-if): KV(gqa with k heads) * Hkv' =
  // KV(mqa) * k, and MHA = MQA * Hq; SWA with W >= S equals full.
  const unsigned seed = 1234u;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  const auto pick = [&rng](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 100; ++trial) {
    const int hq = pick(1, 96);
    std::vector<int> divisors;
    for (int d = 1; d <= hq; ++d)
      if (hq % d == 0) divisors.push_back(d);
    const int hkv =
        divisors[static_cast<std::size_t>(pick(0, static_cast<int>(divisors.size()) - 1))];
    ModelConfig m = grouped_model(pick(1, 40), hq, hkv, pick(1, 256));
    const std::int64_t seq = pick(1, 3000);
    CAPTURE(trial, hq, hkv, m.head_dim, m.num_layers, seq);
    WhatIf w;
    w.variant = Variant::kMqa;
    const std::uint64_t mqa = kv_cache(apply_what_if(m, w), seq, 1, DType::kBf16).total_bytes;
    w.variant = Variant::kMha;
    const std::uint64_t mha = kv_cache(apply_what_if(m, w), seq, 1, DType::kBf16).total_bytes;
    REQUIRE(mha == mqa * static_cast<std::uint64_t>(hq));
    w.variant = Variant::kGqa;
    w.kv_heads = divisors[static_cast<std::size_t>(pick(0, static_cast<int>(divisors.size()) - 1))];
    const std::uint64_t gqa = kv_cache(apply_what_if(m, w), seq, 1, DType::kBf16).total_bytes;
    REQUIRE(gqa == mqa * static_cast<std::uint64_t>(w.kv_heads));
    w.variant = Variant::kSwa;
    w.kv_heads = 0;
    w.window = static_cast<int>(seq) + pick(0, 100);
    const std::uint64_t swa = kv_cache(apply_what_if(m, w), seq, 1, DType::kBf16).total_bytes;
    REQUIRE(swa == mqa * static_cast<std::uint64_t>(hkv));
  }
}
