// MLA references: naive MLA (keys and values rebuilt per head through W_UK and W_UV, decoupled
// RoPE) equals absorbed MLA (query absorbed through W_UK, latent cache, W_UV applied after),
// absorbed MLA is MQA over the latent row, and RoPE follows HF's rotate_half.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "attention/error.h"
#include "attention/reference.h"
#include "tests/reference_test_util.h"

namespace {

struct MlaInputs {
  attn::MlaNaiveShape s;
  std::vector<float> q_nope, q_rope, latent, k_rope, w_uk, w_uv;
  std::vector<std::int64_t> lens;
};

MlaInputs make_inputs(std::mt19937_64& rng, const attn::MlaNaiveShape& s) {
  MlaInputs in;
  in.s = s;
  const std::size_t B = std::size_t(s.batch), S = std::size_t(s.seq), H = std::size_t(s.heads);
  in.q_nope = reftest::random_floats(rng, B * H * s.nope_dim);
  in.q_rope = reftest::random_floats(rng, B * H * s.rope_dim);
  in.latent = reftest::random_floats(rng, B * S * s.latent_dim);
  in.k_rope = reftest::random_floats(rng, B * S * s.rope_dim);
  const float w = 1.f / std::sqrt(float(s.latent_dim));  // keeps k_nope and v near unit size
  in.w_uk = reftest::random_floats(rng, H * s.nope_dim * s.latent_dim, -w, w);
  in.w_uv = reftest::random_floats(rng, H * s.value_dim * s.latent_dim, -w, w);
  std::uniform_int_distribution<std::int64_t> len(0, s.seq);
  in.lens.resize(B);
  for (auto& l : in.lens) l = len(rng);
  in.lens[0] = s.seq;
  if (B > 2) in.lens[B - 1] = 0;
  // RoPE: each cached key at its position, each query at the position of the newest token.
  std::vector<std::int64_t> kpos(B * S), qpos(B * H);
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t t = 0; t < S; ++t) kpos[b * S + t] = std::int64_t(t);
    for (std::size_t h = 0; h < H; ++h) qpos[b * H + h] = std::max<std::int64_t>(0, in.lens[b] - 1);
  }
  attn::apply_rope(in.k_rope.data(), std::int64_t(B * S), s.rope_dim, kpos.data());
  attn::apply_rope(in.q_rope.data(), std::int64_t(B * H), s.rope_dim, qpos.data());
  return in;
}

attn::MlaDecodeShape absorbed_shape(const attn::MlaNaiveShape& s) {
  attn::MlaDecodeShape a;
  a.batch = s.batch;
  a.seq = s.seq;
  a.heads = s.heads;
  a.latent_dim = s.latent_dim;
  a.rope_dim = s.rope_dim;
  a.scale = 1.0 / std::sqrt(double(s.nope_dim + s.rope_dim));  // the naive form's default
  return a;
}

std::string describe(const attn::MlaNaiveShape& s) {
  return "B=" + std::to_string(s.batch) + " S=" + std::to_string(s.seq) +
         " H=" + std::to_string(s.heads) + " Dn=" + std::to_string(s.nope_dim) +
         " Dr=" + std::to_string(s.rope_dim) + " Dl=" + std::to_string(s.latent_dim) +
         " Dv=" + std::to_string(s.value_dim);
}

}  // namespace

TEST_CASE("naive MLA equals absorbed MLA (W_UK absorbed into q, W_UV applied after)", "[mla]") {
  const std::uint64_t seed = 202;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::int64_t seqs[] = {1, 54, 97};
  const int heads[] = {1, 3, 9};
  const int ropes[] = {0, 2, 8, 64};
  const int latents[] = {3, 32, 64};
  int index = 0;
  for (std::int64_t S : seqs)
    for (int H : heads)
      for (int Dr : ropes) {
        attn::MlaNaiveShape s;
        s.batch = 3;
        s.seq = S;
        s.heads = H;
        s.rope_dim = Dr;
        s.latent_dim = latents[index % 3];
        s.nope_dim = index % 2 ? 3 : 16;
        s.value_dim = index % 3 ? 16 : 3;
        ++index;
        INFO(describe(s));
        const MlaInputs in = make_inputs(rng, s);
        const std::size_t B = 3, Hs = std::size_t(H), Dl = std::size_t(s.latent_dim);
        std::vector<double> naive(B * Hs * s.value_dim, -7.0);
        attn::decode_mla_naive(s, in.q_nope.data(), in.q_rope.data(), in.latent.data(),
                               in.k_rope.data(), in.w_uk.data(), in.w_uv.data(), in.lens.data(),
                               naive.data());
        std::vector<float> q_abs(B * Hs * (Dl + Dr));
        std::vector<float> kv(B * std::size_t(S) * (Dl + Dr));
        attn::mla_absorb_query(s, in.q_nope.data(), in.q_rope.data(), in.w_uk.data(), q_abs.data());
        attn::mla_pack_cache(s, in.latent.data(), in.k_rope.data(), kv.data());
        std::vector<double> out_latent(B * Hs * Dl, -7.0);
        attn::decode_mla_absorbed<double>(absorbed_shape(s), q_abs.data(), kv.data(),
                                          in.lens.data(), out_latent.data(), 2);
        std::vector<double> absorbed(B * Hs * s.value_dim, -7.0);
        attn::mla_apply_wuv(s, out_latent.data(), in.w_uv.data(), absorbed.data());
        // q_abs is stored in float32, so the scores differ from the naive ones by ~1e-7.
        CHECK(reftest::relative_error(absorbed, naive) < 1e-5);
        // Sequence B-1 has no valid position: zeros in both forms.
        for (std::size_t i = (B - 1) * Hs * s.value_dim; i < naive.size(); ++i) {
          CHECK(naive[i] == 0.0);
          CHECK(absorbed[i] == 0.0);
        }
        std::vector<float> out_latent_f(out_latent.size());
        attn::decode_mla_absorbed<float>(absorbed_shape(s), q_abs.data(), kv.data(), in.lens.data(),
                                         out_latent_f.data(), 3);
        CHECK(reftest::relative_error(out_latent_f, out_latent) < 1e-5);
      }
}

TEST_CASE("absorbed MLA is MQA over the latent row (keys: all Dl + Dr, values: first Dl)",
          "[mla]") {
  const std::uint64_t seed = 203;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  attn::MlaDecodeShape s;
  s.batch = 2;
  s.seq = 97;
  s.heads = 9;
  s.latent_dim = 64;
  s.rope_dim = 8;
  const int row = s.latent_dim + s.rope_dim;
  const std::vector<float> q = reftest::random_floats(rng, std::size_t(s.batch * s.heads * row));
  const std::vector<float> kv = reftest::random_floats(rng, std::size_t(s.batch * s.seq * row));
  std::vector<float> v(std::size_t(s.batch * s.seq * s.latent_dim));
  for (std::int64_t r = 0; r < s.batch * s.seq; ++r)
    for (int x = 0; x < s.latent_dim; ++x)
      v[std::size_t(r * s.latent_dim + x)] = kv[std::size_t(r * row + x)];
  const std::vector<std::int64_t> lens = {97, 40};
  std::vector<double> mla(std::size_t(s.batch * s.heads * s.latent_dim));
  attn::decode_mla_absorbed<double>(s, q.data(), kv.data(), lens.data(), mla.data());
  reftest::NaiveShape g;
  g.B = s.batch, g.S = s.seq, g.Hq = s.heads, g.Hkv = 1, g.D = row, g.Dv = s.latent_dim;
  const std::vector<double> mqa = reftest::naive_grouped(g, q, kv, v, lens);
  CHECK(reftest::relative_error(mla, mqa) < 1e-12);
}

TEST_CASE("RoPE follows rotate_half: pairs (i, i + Dr/2) rotated by pos * theta^(-2i/Dr)",
          "[mla][rope]") {
  std::vector<float> x = {1, 0, 0, 0, 0, 1, 0, 0};
  const std::int64_t pos[] = {3, 200};
  attn::apply_rope(x.data(), 2, 4, pos);
  CHECK(x[0] == Approx(std::cos(3.0)).margin(1e-6));
  CHECK(x[1] == 0.f);
  CHECK(x[2] == Approx(std::sin(3.0)).margin(1e-6));
  CHECK(x[3] == 0.f);
  const double f1 = 200.0 / std::pow(10000.0, 0.5);  // i = 1 of Dr = 4: theta^(-2/4)
  CHECK(x[4] == 0.f);
  CHECK(x[5] == Approx(std::cos(f1)).margin(1e-6));
  CHECK(x[6] == 0.f);
  CHECK(x[7] == Approx(std::sin(f1)).margin(1e-6));
  std::vector<float> odd(3, 1.f);
  const std::int64_t p0[] = {0};
  CHECK_THROWS_AS(attn::apply_rope(odd.data(), 1, 3, p0), attn::InputError);
}

TEST_CASE("RoPE keeps norms, and q . k depends only on the distance of positions", "[mla][rope]") {
  const std::uint64_t seed = 204;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int Dr : {2, 8, 64}) {
    INFO("Dr=" << Dr);
    const std::vector<float> q = reftest::random_floats(rng, std::size_t(Dr));
    const std::vector<float> k = reftest::random_floats(rng, std::size_t(Dr));
    auto rotated = [&](std::vector<float> x, std::int64_t p) {
      attn::apply_rope(x.data(), 1, Dr, &p);
      return x;
    };
    auto dot = [](const std::vector<float>& a, const std::vector<float>& b) {
      double s = 0;
      for (std::size_t i = 0; i < a.size(); ++i) s += double(a[i]) * b[i];
      return s;
    };
    CHECK(dot(rotated(q, 777), rotated(q, 777)) == Approx(dot(q, q)).epsilon(1e-5));
    CHECK(dot(rotated(q, 50), rotated(k, 20)) ==
          Approx(dot(rotated(q, 1030), rotated(k, 1000))).margin(1e-4));
  }
}

TEST_CASE("absorbed MLA at DeepSeek dims (Dl 512, Dr 64, H 128): float within 1e-5 of float64",
          "[mla]") {
  const std::uint64_t seed = 205;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  attn::MlaDecodeShape s;
  s.batch = 3;
  s.seq = 1000;
  s.heads = 128;
  s.latent_dim = 512;
  s.rope_dim = 64;
  s.scale = 1.0 / std::sqrt(192.0);
  const int row = s.latent_dim + s.rope_dim;
  const std::vector<float> q = reftest::random_floats(rng, std::size_t(s.batch * s.heads * row));
  const std::vector<float> kv = reftest::random_floats(rng, std::size_t(s.batch * s.seq * row));
  const std::vector<std::int64_t> lens = {1000, 0, 613};
  std::vector<double> d(std::size_t(s.batch * s.heads * s.latent_dim));
  std::vector<float> f(d.size());
  attn::decode_mla_absorbed<double>(s, q.data(), kv.data(), lens.data(), d.data(), 0);
  attn::decode_mla_absorbed<float>(s, q.data(), kv.data(), lens.data(), f.data(), 0);
  CHECK(reftest::relative_error(f, d) < 1e-5);
  const std::size_t per_b = std::size_t(s.heads) * s.latent_dim;
  CHECK(std::all_of(d.begin() + per_b, d.begin() + 2 * per_b, [](double x) { return x == 0.0; }));
}
