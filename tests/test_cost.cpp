// Decode cost model: bytes and FLOPs of one decode step, worked out by hand for each variant.
#include <catch2/catch.hpp>
#include <cmath>

#include "attention/config.h"
#include "attention/cost.h"
#include "attention/error.h"
#include "attention/presets.h"

using namespace attn;

namespace {

LayerShape gqa(int hq, int hkv, int d, int window = 0) {
  LayerShape s;
  s.variant = window > 0 ? Variant::kSwa : Variant::kGqa;
  s.q_heads = hq;
  s.kv_heads = hkv;
  s.head_dim = d;
  s.value_dim = d;
  s.window = window;
  return s;
}

ModelConfig deepseek_v3_attention() {
  ModelConfig m;
  m.variant = Variant::kMla;
  m.num_layers = 61;
  m.q_heads = m.kv_heads = 128;
  m.head_dim = 192;
  m.value_dim = 128;
  m.latent_dim = 512;
  m.rope_dim = 64;
  m.qk_nope_dim = 128;
  m.layers.assign(61, LayerKind::kFull);
  m.max_seq = 163840;
  return m;
}

}  // namespace

TEST_CASE("cost: GQA decode step, bf16, by hand", "[cost]") {
  // B 16, S 4096, Hq 32, Hkv 8, D 128, bf16.
  const DecodeCost c = decode_cost(gqa(32, 8, 128), 16, 4096, DType::kBf16);
  // KV: 16 * 4096 positions * 8 heads * (128 + 128) * 2 B = 268435456
  CHECK(c.kv_bytes == 268435456.0);
  // Q: 16 * 32 * 128 * 2 B = 131072; O the same.
  CHECK(c.q_bytes == 131072.0);
  CHECK(c.o_bytes == 131072.0);
  CHECK(c.weight_bytes == 0.0);
  // FLOPs: 2 * 16 * 32 * 4096 * (128 + 128) = 1073741824
  CHECK(c.flops == 1073741824.0);
  CHECK(c.intensity() == Approx(1073741824.0 / (268435456.0 + 262144.0)));
  // Intensity of long-sequence GQA tends to G * 2 * (D + Dv) / ((D + Dv) * 2 B) = G = 4.
  CHECK(c.intensity() == Approx(4.0).epsilon(0.01));
}

TEST_CASE("cost: a sliding layer reads only its window; fp8 cache with bf16 activations",
          "[cost]") {
  const DecodeCost c = decode_cost(gqa(8, 4, 64, 128), 2, 1000, DType::kFp8);
  // KV: 2 * min(1000, 128) * 4 * (64 + 64) * 1 B = 131072
  CHECK(c.kv_bytes == 131072.0);
  // Q: 2 * 8 * 64 * 2 B (bf16 activations) = 2048
  CHECK(c.q_bytes == 2048.0);
  // FLOPs: 2 * 2 * 8 * 128 * 128 = 524288
  CHECK(c.flops == 524288.0);
  const DecodeCost shorter = decode_cost(gqa(8, 4, 64, 128), 2, 100, DType::kFp8);
  CHECK(shorter.kv_bytes == 2.0 * 100 * 4 * 128);
}

TEST_CASE("cost: MLA absorbed and naive, DeepSeek-V3 shapes, by hand", "[cost]") {
  const ModelConfig m = deepseek_v3_attention();
  const LayerShape s = m.layer_shape(0);
  const double B = 4, S = 2048, H = 128, Dl = 512, Dr = 64, Dn = 128, Dv = 128;

  // The attention kernel alone (no model): q [B, H, 576], out [B, H, 512].
  const DecodeCost k = decode_cost(s, 4, 2048, DType::kBf16);
  CHECK(k.kv_bytes == B * S * (Dl + Dr) * 2);
  CHECK(k.q_bytes == B * H * (Dl + Dr) * 2);
  CHECK(k.o_bytes == B * H * Dl * 2);
  CHECK(k.flops == 2 * B * H * S * (Dl + Dr) + 2 * B * H * S * Dl);

  const DecodeCost a = decode_cost(s, 4, 2048, DType::kBf16, MlaForm::kAbsorbed, &m);
  const DecodeCost n = decode_cost(s, 4, 2048, DType::kBf16, MlaForm::kNaive, &m);
  const double weights = H * (Dn + Dv) * Dl * 2;  // W_UK + W_UV, bf16
  CHECK(a.weight_bytes == weights);
  CHECK(n.weight_bytes == weights);
  CHECK(a.kv_bytes == n.kv_bytes);  // both read the same latent cache
  CHECK(a.flops ==
        2 * B * H * Dn * Dl + 2 * B * H * Dl * Dv + 2 * B * H * S * (Dl + Dr) + 2 * B * H * S * Dl);
  CHECK(n.flops == 2 * B * S * H * (Dn + Dv) * Dl + 2 * B * H * S * (Dn + Dr) + 2 * B * H * S * Dv);
  // Rebuilding K and V every step costs more FLOPs than attending over the latent.
  CHECK(n.flops > a.flops);
  CHECK(n.intensity() > a.intensity());
  // The absorbed attention kernel with 128 heads is far more compute-dense than GQA: about
  // 2 * H * (Dl + Dr + Dl) / ((Dl + Dr) * 2 B) = 128 * 1088 / 576 = 241.8 FLOP/B for long S.
  CHECK(k.intensity() == Approx(k.flops / (k.kv_bytes + k.q_bytes + k.o_bytes)));
  const DecodeCost long_s = decode_cost(s, 4, 65536, DType::kBf16);
  CHECK(long_s.intensity() == Approx(128.0 * 1088.0 / 576.0).epsilon(0.01));
  // With W_UK / W_UV read once per step (33.5 MB in bf16), small batches weigh less.
  CHECK(a.intensity() < k.intensity());

  CHECK_THROWS_AS(decode_cost(s, 4, 2048, DType::kBf16, MlaForm::kNaive, nullptr), InputError);
}

TEST_CASE("cost: bad batch, sequence or shape is an input error", "[cost]") {
  CHECK_THROWS_AS(decode_cost(gqa(32, 8, 128), 0, 10, DType::kBf16), InputError);
  CHECK_THROWS_AS(decode_cost(gqa(32, 8, 128), 1, 0, DType::kBf16), InputError);
  CHECK_THROWS_AS(decode_cost(gqa(32, 8, 128), 1, Limits::kMaxSeq + 1, DType::kBf16), InputError);
  CHECK_THROWS_AS(decode_cost(gqa(32, 5, 128), 1, 10, DType::kBf16), InputError);
}

TEST_CASE("cost: a whole model sums its layers, each with its own window", "[cost]") {
  ModelConfig m;
  m.variant = Variant::kGqa;
  m.num_layers = 4;
  m.q_heads = 8;
  m.kv_heads = 2;
  m.head_dim = m.value_dim = 64;
  m.window = 100;
  m.max_seq = 4096;
  m.layers = {LayerKind::kSliding, LayerKind::kFull, LayerKind::kSliding, LayerKind::kFull};
  const DecodeCost c = decode_cost_model(m, 3, 1000, DType::kBf16);
  // KV: 3 * (100 + 1000 + 100 + 1000) positions * 2 heads * 128 * 2 B.
  CHECK(c.kv_bytes == 3.0 * 2200 * 2 * 128 * 2);
  // FLOPs: 2 * 3 * 8 * positions * 128 summed over layers.
  CHECK(c.flops == 2.0 * 3 * 8 * 2200 * 128);
  CHECK(c.q_bytes == 4 * 3.0 * 8 * 64 * 2);
  const ModelConfig ds = deepseek_v3_attention();
  const DecodeCost a = decode_cost_model(ds, 1, 4096, DType::kBf16, MlaForm::kAbsorbed);
  const DecodeCost one =
      decode_cost(ds.layer_shape(0), 1, 4096, DType::kBf16, MlaForm::kAbsorbed, &ds);
  CHECK(a.flops == Approx(61 * one.flops));
  CHECK(a.weight_bytes == Approx(61 * one.weight_bytes));
}

TEST_CASE("cost: MLA multi-token FLOPs reduce to the decode step at one token, and grow "
          "causally",
          "[cost][mla]") {
  const attn::ModelConfig& ds = attn::find_preset("deepseek-v3");
  for (std::int64_t s : {0, 1, 100, 32767}) {
    CAPTURE(s);
    for (attn::MlaForm form : {attn::MlaForm::kAbsorbed, attn::MlaForm::kNaive}) {
      const double one = attn::mla_multi_token_flops(ds, 1, s, form);
      const double step =
          attn::decode_cost(ds.layer_shape(0), 1, s + 1, attn::DType::kBf16, form, &ds).flops;
      CHECK(one == Approx(step).epsilon(1e-12));
    }
  }
  // A prefill of T tokens: T (T + 1) / 2 causal pairs per head.
  const double h = ds.q_heads, dl = ds.latent_dim, dr = ds.rope_dim;
  const double t = 4096;
  const double pairs = t * (t + 1) / 2;
  const double absorbed = attn::mla_multi_token_flops(ds, 4096, 0, attn::MlaForm::kAbsorbed);
  CHECK(absorbed == Approx(t * (2 * h * ds.qk_nope_dim * dl + 2 * h * dl * ds.value_dim) +
                           2 * h * pairs * (2 * dl + dr)));
  // Long prefills favour the naive form (K and V rebuilt once, products at 192 + 128).
  CHECK(attn::mla_multi_token_flops(ds, 32768, 0, attn::MlaForm::kNaive) <
        attn::mla_multi_token_flops(ds, 32768, 0, attn::MlaForm::kAbsorbed));
  CHECK_THROWS_AS(attn::mla_multi_token_flops(attn::find_preset("llama-3-8b"), 1, 0,
                                              attn::MlaForm::kAbsorbed),
                  attn::InputError);
  CHECK_THROWS_AS(attn::mla_multi_token_flops(ds, 0, 0, attn::MlaForm::kAbsorbed),
                  attn::InputError);
}
