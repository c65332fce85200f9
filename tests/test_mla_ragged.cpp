// MLA decode over ragged sequences (attention/reference.h decode_mla_ragged), the layout of
// AMD's MI355X problem: packed q and kv with index pointers, several new tokens a sequence,
// causal among them. Properties: one new token a sequence equals the padded decode with lens;
// every query row equals a direct float64 softmax over its visible prefix; bad index pointers
// are errors naming the entry. Fresh random inputs with a printed seed.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/error.h"
#include "attention/reference.h"

namespace {

std::vector<float> randn(std::size_t n, std::mt19937& rng, float amp = 1.0f) {
  std::normal_distribution<float> d(0.0f, amp);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// out[h, :Dl] for one query row q [H, Dk] over kv rows [n, Dk], written out directly.
std::vector<double> direct(const float* q, const float* kv, std::int64_t n, int H, int Dl, int Dk,
                           double scale) {
  std::vector<double> out(static_cast<std::size_t>(H * Dl), 0.0);
  for (int h = 0; h < H; ++h) {
    std::vector<double> s(static_cast<std::size_t>(n));
    double m = -INFINITY;
    for (std::int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int d = 0; d < Dk; ++d) dot += double(q[h * Dk + d]) * double(kv[j * Dk + d]);
      s[static_cast<std::size_t>(j)] = dot * scale;
      m = std::max(m, s[static_cast<std::size_t>(j)]);
    }
    double z = 0;
    for (double& x : s) z += (x = std::exp(x - m));
    for (std::int64_t j = 0; j < n; ++j)
      for (int d = 0; d < Dl; ++d)
        out[static_cast<std::size_t>(h * Dl + d)] +=
            s[static_cast<std::size_t>(j)] / z * double(kv[j * Dk + d]);
  }
  return out;
}

}  // namespace

TEST_CASE("mla ragged: one new token a sequence equals the padded decode with lens",
          "[mla][ragged]") {
  const unsigned seed = std::random_device{}();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  const int H = 3, Dl = 24, Dr = 8, Dk = Dl + Dr;
  const std::int64_t B = 4, S = 37;
  const std::vector<std::int64_t> lens = {37, 1, 20, 9};
  const std::vector<float> q = randn(B * H * Dk, rng), kv = randn(B * S * Dk, rng);
  attn::MlaDecodeShape pad;
  pad.batch = B;
  pad.seq = S;
  pad.heads = H;
  pad.latent_dim = Dl;
  pad.rope_dim = Dr;
  std::vector<double> want(static_cast<std::size_t>(B * H * Dl));
  attn::decode_mla_absorbed<double>(pad, q.data(), kv.data(), lens.data(), want.data());
  std::vector<attn::MlaSequence> seqs;
  for (std::int64_t b = 0; b < B; ++b) seqs.push_back({b, 1, b * S, lens[b]});
  attn::MlaRaggedShape s;
  s.heads = H;
  s.latent_dim = Dl;
  s.rope_dim = Dr;
  std::vector<double> got(want.size(), -1.0);
  attn::decode_mla_ragged(s, q.data(), kv.data(), seqs, got.data());
  for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == Approx(want[i]).margin(1e-12));
}

TEST_CASE("mla ragged: packed sequences of 1-4 new tokens are causal among them", "[mla][ragged]") {
  const unsigned seed = std::random_device{}();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  const int H = 5, Dl = 16, Dr = 6, Dk = Dl + Dr;
  // {q_len, kv_len}: a sequence whose whole cache is new, awkward lengths, an empty one.
  const std::vector<std::pair<std::int64_t, std::int64_t>> lens = {{1, 54}, {4, 4}, {3, 97},
                                                                   {2, 5},  {0, 0}, {4, 31}};
  std::vector<std::int64_t> qo = {0}, kvp = {0};
  for (const auto& [ql, kl] : lens) {
    qo.push_back(qo.back() + ql);
    kvp.push_back(kvp.back() + kl);
  }
  const std::vector<float> q = randn(qo.back() * H * Dk, rng, 0.02f * 20),
                           kv = randn(kvp.back() * Dk, rng, 0.02f * 20);
  const std::vector<attn::MlaSequence> seqs =
      attn::mla_sequences_from_indptr(qo, kvp, qo.back(), kvp.back(), "qo", "kv");
  attn::MlaRaggedShape s;
  s.heads = H;
  s.latent_dim = Dl;
  s.rope_dim = Dr;
  std::vector<double> got(static_cast<std::size_t>(qo.back() * H * Dl), NAN);
  attn::decode_mla_ragged(s, q.data(), kv.data(), seqs, got.data());
  const double scale = 1.0 / std::sqrt(double(Dk));
  for (std::size_t b = 0; b < lens.size(); ++b)
    for (std::int64_t i = 0; i < lens[b].first; ++i) {
      const std::int64_t row = qo[b] + i, visible = lens[b].second - lens[b].first + i + 1;
      CAPTURE(b, i, visible);
      const std::vector<double> want =
          direct(q.data() + row * H * Dk, kv.data() + kvp[b] * Dk, visible, H, Dl, Dk, scale);
      for (int k = 0; k < H * Dl; ++k) {
        const double g = got[static_cast<std::size_t>(row * H * Dl + k)];
        REQUIRE(std::isfinite(g));
        REQUIRE(g == Approx(want[static_cast<std::size_t>(k)]).margin(1e-12));
      }
    }
}

TEST_CASE("mla ragged: index pointers that break a rule are errors naming it", "[mla][ragged]") {
  using V = std::vector<std::int64_t>;
  const auto err = [](const V& qo, const V& kv, std::int64_t tq, std::int64_t tk) {
    try {
      attn::mla_sequences_from_indptr(qo, kv, tq, tk, "qo.npy", "kv.npy");
    } catch (const attn::InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(err({0, 1, 2}, {0, 5, 9}, 2, 9).empty());
  CHECK_THAT(err({0}, {0}, 0, 0), Catch::Contains("qo.npy") && Catch::Contains("B + 1"));
  CHECK_THAT(err({1, 2}, {0, 5}, 2, 5), Catch::Contains("qo.npy") && Catch::Contains("entry 0"));
  CHECK_THAT(err({0, 2, 1}, {0, 5, 9}, 1, 9), Catch::Contains("decrease"));
  CHECK_THAT(err({0, 1, 2}, {0, 5, 9}, 3, 9), Catch::Contains("qo.npy") && Catch::Contains("3"));
  CHECK_THAT(err({0, 1, 2}, {0, 5, 9}, 2, 10), Catch::Contains("kv.npy") && Catch::Contains("10"));
  CHECK_THAT(err({0, 1, 2}, {0, 5}, 2, 5), Catch::Contains("same B + 1"));
  CHECK_THAT(err({0, 3, 4}, {0, 2, 9}, 4, 9),
             Catch::Contains("sequence 0") && Catch::Contains("2 cached tokens for 3"));
}
