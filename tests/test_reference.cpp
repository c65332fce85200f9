// Grouped decode (MHA / MQA / GQA / SWA) and prefill references: each test states a property
// and draws fresh inputs from a fixed, printed seed. Shapes are deliberately awkward.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "attention/error.h"
#include "attention/reference.h"
#include "tests/reference_test_util.h"

using reftest::NaiveShape;

namespace {

struct Problem {
  NaiveShape s;
  std::vector<float> q, k, v;
  std::vector<std::int64_t> lens;  // empty: all S
};

Problem make_problem(std::mt19937_64& rng, NaiveShape s, bool ragged, float mag = 1.f) {
  Problem p;
  p.s = s;
  p.q = reftest::random_floats(rng, std::size_t(s.B) * s.Hq * s.D, -mag, mag);
  p.k = reftest::random_floats(rng, std::size_t(s.B * s.S) * s.Hkv * s.D, -mag, mag);
  p.v = reftest::random_floats(rng, std::size_t(s.B * s.S) * s.Hkv * s.Dv);
  if (ragged) {
    std::uniform_int_distribution<std::int64_t> len(0, s.S);
    p.lens.resize(std::size_t(s.B));
    for (auto& l : p.lens) l = len(rng);
    p.lens[0] = s.S;                                // one full sequence
    if (s.B > 2) p.lens[std::size_t(s.B - 1)] = 0;  // and one empty one
  }
  return p;
}

attn::GroupedDecodeShape shape_of(const NaiveShape& s) {
  attn::GroupedDecodeShape g;
  g.batch = s.B;
  g.seq = s.S;
  g.q_heads = s.Hq;
  g.kv_heads = s.Hkv;
  g.head_dim = s.D;
  g.value_dim = s.Dv;
  g.window = s.W;
  g.scale = s.scale;
  return g;
}

template <class Acc>
std::vector<Acc> decode(const Problem& p, int threads = 1) {
  std::vector<Acc> out(std::size_t(p.s.B) * p.s.Hq * p.s.Dv, Acc(-7));  // poison
  attn::decode_grouped<Acc>(shape_of(p.s), p.q.data(), p.k.data(), p.v.data(),
                            p.lens.empty() ? nullptr : p.lens.data(), out.data(), threads);
  return out;
}

std::string describe(const NaiveShape& s) {
  return "B=" + std::to_string(s.B) + " S=" + std::to_string(s.S) + " Hq=" + std::to_string(s.Hq) +
         " Hkv=" + std::to_string(s.Hkv) + " D=" + std::to_string(s.D) +
         " Dv=" + std::to_string(s.Dv) + " W=" + std::to_string(s.W);
}

const std::int64_t kSeqs[] = {1, 54, 97, 4096};
const int kQHeads[] = {1, 3, 9, 63};
const int kDims[] = {1, 3, 64, 128};

// kv-head counts for Hq: MQA (1), MHA (Hq) and a proper group when one exists.
std::vector<int> kv_options(int hq) {
  std::vector<int> o = {1};
  if (hq % 3 == 0 && hq > 3) o.push_back(3);
  if (hq > 1) o.push_back(hq);
  return o;
}

}  // namespace

TEST_CASE("grouped decode equals the naive definition (MQA: Hkv = 1, MHA: G = 1, GQA)",
          "[reference]") {
  const std::uint64_t seed = 20261202;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  int index = 0;
  for (std::int64_t S : kSeqs) {
    for (int hq : kQHeads) {
      for (int hkv : kv_options(hq)) {
        NaiveShape s;
        s.B = 3;
        s.S = S;
        s.Hq = hq;
        s.Hkv = hkv;
        s.D = kDims[index % 4];
        s.Dv = kDims[(index + 1) % 4];
        ++index;
        if (S == 4096 && s.D * s.Hq > 64 * 9) s.D = 3;  // keep the naive loop quick
        const Problem p = make_problem(rng, s, /*ragged=*/index % 2 == 0);
        INFO(describe(s) << (p.lens.empty() ? " full" : " ragged"));
        const std::vector<double> truth = reftest::naive_grouped(s, p.q, p.k, p.v, p.lens);
        CHECK(reftest::relative_error(decode<double>(p), truth) < 1e-12);
        CHECK(reftest::relative_error(decode<float>(p, 3), truth) < 1e-5);
      }
    }
  }
}

TEST_CASE("GQA equals MHA over keys and values repeated per query head (repeat_kv)",
          "[reference]") {
  const std::uint64_t seed = 7;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int hkv : {1, 3, 7}) {
    NaiveShape s;
    s.B = 2, s.S = 97, s.Hq = 21, s.Hkv = hkv, s.D = 64, s.Dv = 3;
    INFO(describe(s));
    const Problem gqa = make_problem(rng, s, true);
    Problem mha = gqa;
    mha.s.Hkv = s.Hq;
    const int G = s.Hq / hkv;
    mha.k.assign(std::size_t(s.B * s.S) * s.Hq * s.D, 0.f);
    mha.v.assign(std::size_t(s.B * s.S) * s.Hq * s.Dv, 0.f);
    for (std::int64_t bt = 0; bt < s.B * s.S; ++bt)
      for (int h = 0; h < s.Hq; ++h) {
        for (int d = 0; d < s.D; ++d)
          mha.k[std::size_t((bt * s.Hq + h) * s.D + d)] =
              gqa.k[std::size_t((bt * hkv + h / G) * s.D + d)];
        for (int d = 0; d < s.Dv; ++d)
          mha.v[std::size_t((bt * s.Hq + h) * s.Dv + d)] =
              gqa.v[std::size_t((bt * hkv + h / G) * s.Dv + d)];
      }
    CHECK(reftest::max_abs_diff(decode<double>(gqa), decode<double>(mha)) < 1e-14);
    CHECK(reftest::max_abs_diff(decode<float>(gqa), decode<float>(mha)) < 1e-6);
  }
}

TEST_CASE("a window at least as long as the sequence equals full attention", "[reference]") {
  const std::uint64_t seed = 11;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (std::int64_t S : kSeqs) {
    NaiveShape s;
    s.B = 3, s.S = S, s.Hq = 9, s.Hkv = 3, s.D = 3, s.Dv = 64;
    const Problem full = make_problem(rng, s, true);
    for (std::int64_t w : {S, S + 1, std::int64_t(1) << 30}) {
      Problem windowed = full;
      windowed.s.W = int(w);
      INFO(describe(windowed.s));
      CHECK(decode<double>(windowed) == decode<double>(full));
      CHECK(decode<float>(windowed) == decode<float>(full));
    }
  }
}

TEST_CASE("a window W equals full attention over the last W valid positions (sliced)",
          "[reference]") {
  const std::uint64_t seed = 13;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (std::int64_t S : {54, 97, 4096}) {
    for (int w : {1, 5, 53, 1000}) {
      NaiveShape s;
      s.B = 4, s.S = S, s.Hq = 3, s.Hkv = 1, s.D = 64, s.Dv = 3, s.W = w;
      INFO(describe(s));
      const Problem p = make_problem(rng, s, true);
      const std::vector<double> got = decode<double>(p);
      const std::vector<float> got_f = decode<float>(p, 2);
      for (std::int64_t b = 0; b < s.B; ++b) {
        const std::int64_t len = p.lens[std::size_t(b)];
        const std::int64_t lo = std::max<std::int64_t>(0, len - w);
        INFO("b=" << b << " len=" << len);
        // The slice as its own batch of one, full attention (no window, no lens).
        Problem slice;
        slice.s = s;
        slice.s.B = 1;
        slice.s.S = len - lo;
        slice.s.W = 0;
        slice.q.assign(p.q.begin() + b * s.Hq * s.D, p.q.begin() + (b + 1) * s.Hq * s.D);
        const std::size_t row_k = std::size_t(s.Hkv) * s.D, row_v = std::size_t(s.Hkv) * s.Dv;
        slice.k.assign(p.k.begin() + (b * S + lo) * row_k, p.k.begin() + (b * S + len) * row_k);
        slice.v.assign(p.v.begin() + (b * S + lo) * row_v, p.v.begin() + (b * S + len) * row_v);
        const std::size_t n = std::size_t(s.Hq) * s.Dv;
        std::vector<double> want(n, 0.0);
        if (len > 0) want = decode<double>(slice);
        const std::vector<double> row(got.begin() + b * n, got.begin() + (b + 1) * n);
        const std::vector<float> row_f(got_f.begin() + b * n, got_f.begin() + (b + 1) * n);
        CHECK(reftest::max_abs_diff(row, want) < 1e-14);
        CHECK(reftest::max_abs_diff(row_f, want) < 1e-5);
      }
    }
  }
}

TEST_CASE("ragged lens: len 0 gives zeros, len L equals a cache of L positions", "[reference]") {
  const std::uint64_t seed = 17;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  NaiveShape s;
  s.B = 5, s.S = 97, s.Hq = 63, s.Hkv = 9, s.D = 3, s.Dv = 128;
  Problem p = make_problem(rng, s, false);
  p.lens = {0, 97, 1, 0, 54};
  const std::vector<double> out = decode<double>(p);
  const std::vector<float> out_f = decode<float>(p, 4);
  const std::size_t n = std::size_t(s.Hq) * s.Dv;
  for (std::int64_t b = 0; b < s.B; ++b) {
    const std::int64_t len = p.lens[std::size_t(b)];
    INFO("b=" << b << " len=" << len);
    const std::vector<double> row(out.begin() + b * n, out.begin() + (b + 1) * n);
    const std::vector<float> row_f(out_f.begin() + b * n, out_f.begin() + (b + 1) * n);
    if (len == 0) {
      CHECK(std::all_of(row.begin(), row.end(), [](double x) { return x == 0.0; }));
      CHECK(std::all_of(row_f.begin(), row_f.end(), [](float x) { return x == 0.f; }));
      continue;
    }
    // The same sequence stored in a cache of exactly len positions.
    NaiveShape one = s;
    one.B = 1;
    one.S = len;
    const std::vector<float> q(p.q.begin() + b * s.Hq * s.D, p.q.begin() + (b + 1) * s.Hq * s.D);
    const std::size_t row_k = std::size_t(s.Hkv) * s.D, row_v = std::size_t(s.Hkv) * s.Dv;
    const std::vector<float> k(p.k.begin() + b * s.S * row_k,
                               p.k.begin() + (b * s.S + len) * row_k);
    const std::vector<float> v(p.v.begin() + b * s.S * row_v,
                               p.v.begin() + (b * s.S + len) * row_v);
    const std::vector<double> want = reftest::naive_grouped(one, q, k, v, {});
    CHECK(reftest::relative_error(row, want) < 1e-12);
    CHECK(reftest::relative_error(row_f, want) < 1e-5);
  }
}

TEST_CASE("lens outside 0..S are clamped, never read out of bounds", "[reference]") {
  const std::uint64_t seed = 19;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  NaiveShape s;
  s.B = 2, s.S = 54, s.Hq = 3, s.Hkv = 3, s.D = 3, s.Dv = 3;
  Problem p = make_problem(rng, s, false);
  Problem clamped = p;
  p.lens = {-5, 1000};
  clamped.lens = {0, 54};
  CHECK(decode<double>(p) == decode<double>(clamped));
}

TEST_CASE("float path stays within 1e-5 of the float64 path at S = 4096", "[reference]") {
  const std::uint64_t seed = 23;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  NaiveShape s;
  s.B = 2, s.S = 4096, s.Hq = 32, s.Hkv = 8, s.D = 128, s.Dv = 128;
  for (int w : {0, 1000}) {
    s.W = w;
    INFO(describe(s));
    const Problem p = make_problem(rng, s, true);
    CHECK(reftest::relative_error(decode<float>(p, 0), decode<double>(p, 0)) < 1e-5);
  }
}

TEST_CASE("large-magnitude scores (|score| ~ 1e4) never give NaN or inf", "[reference]") {
  const std::uint64_t seed = 29;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int D : {1, 3, 128}) {
    NaiveShape s;
    s.B = 3, s.S = 97, s.Hq = 9, s.Hkv = 3, s.D = D, s.Dv = 3;
    // |q . k| / sqrt(D) reaches ~1e4 (and ~3e4 at D = 128).
    const float mag = float(std::sqrt(1e4 * std::sqrt(double(D)) / D) * 2);
    const Problem p = make_problem(rng, s, true, mag);
    INFO(describe(s) << " |q|, |k| <= " << mag);
    const std::vector<double> d = decode<double>(p);
    const std::vector<float> f = decode<float>(p, 2);
    CHECK(std::all_of(d.begin(), d.end(), [](double x) { return std::isfinite(x); }));
    CHECK(std::all_of(f.begin(), f.end(), [](float x) { return std::isfinite(x); }));
    CHECK(reftest::relative_error(d, reftest::naive_grouped(s, p.q, p.k, p.v, p.lens)) < 1e-9);
    // Outputs are convex combinations of values in [-1, 1].
    CHECK(std::all_of(f.begin(), f.end(), [](float x) { return std::fabs(x) <= 1.0001f; }));
  }
}

TEST_CASE("one thread and many threads give bit-identical results", "[reference]") {
  const std::uint64_t seed = 31;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Shapes with and without the split of positions into chunks (few (b, kv head) pairs).
  const NaiveShape shapes[] = {{1, 4096, 9, 1, 64, 64, 0, 0},
                               {2, 4096, 63, 9, 3, 128, 3000, 0},
                               {16, 97, 32, 8, 128, 128, 0, 0}};
  for (const NaiveShape& s : shapes) {
    INFO(describe(s));
    const Problem p = make_problem(rng, s, true);
    const std::vector<float> one = decode<float>(p, 1);
    const std::vector<double> one_d = decode<double>(p, 1);
    for (int threads : {2, 3, 8, 0}) {
      INFO("threads " << threads);
      CHECK(decode<float>(p, threads) == one);
      CHECK(decode<double>(p, threads) == one_d);
    }
  }
}

TEST_CASE("decode rejects shapes that do not fit", "[reference]") {
  std::vector<float> buf(64, 0.f);
  std::vector<double> out(64);
  attn::GroupedDecodeShape s;
  s.q_heads = 3;
  s.kv_heads = 2;
  CHECK_THROWS_AS(
      attn::decode_grouped<double>(s, buf.data(), buf.data(), buf.data(), nullptr, out.data()),
      attn::InputError);
  s.kv_heads = 1;
  s.head_dim = 0;
  CHECK_THROWS_AS(
      attn::decode_grouped<double>(s, buf.data(), buf.data(), buf.data(), nullptr, out.data()),
      attn::InputError);
}

TEST_CASE("prefill: row i equals decode with len S - T + i + 1; the last row equals decode",
          "[reference][prefill]") {
  const std::uint64_t seed = 37;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int w : {0, 1, 7, 200}) {
    for (std::int64_t S : {1, 54, 97}) {
      const std::int64_t T = std::min<std::int64_t>(S, 9);
      NaiveShape s;
      s.B = 1, s.S = S, s.Hq = 9, s.Hkv = 3, s.D = 64, s.Dv = 3, s.W = w;
      INFO(describe(s) << " T=" << T);
      const std::vector<float> q = reftest::random_floats(rng, std::size_t(T) * s.Hq * s.D);
      const std::vector<float> k = reftest::random_floats(rng, std::size_t(S) * s.Hkv * s.D);
      const std::vector<float> v = reftest::random_floats(rng, std::size_t(S) * s.Hkv * s.Dv);
      const attn::PrefillResult r =
          attn::prefill_grouped(shape_of(s), T, q.data(), k.data(), v.data(), true);
      REQUIRE(r.out.shape == std::vector<std::int64_t>{T, s.Hq, s.Dv});
      REQUIRE(r.scores.shape == std::vector<std::int64_t>{s.Hq, T, S});
      REQUIRE(r.probs.shape == std::vector<std::int64_t>{s.Hq, T, S});
      const std::size_t n = std::size_t(s.Hq) * s.Dv;
      for (std::int64_t i = 0; i < T; ++i) {
        Problem p;
        p.s = s;
        p.q.assign(q.begin() + i * s.Hq * s.D, q.begin() + (i + 1) * s.Hq * s.D);
        p.k = k;
        p.v = v;
        p.lens = {S - T + i + 1};
        const std::vector<double> want = decode<double>(p);
        const std::vector<double> row(r.out.data.begin() + i * n, r.out.data.begin() + (i + 1) * n);
        INFO("row " << i);
        CHECK(reftest::max_abs_diff(row, want) < 1e-12);
      }
      // Masks: causal and windowed entries are -inf / 0, kept rows of probs sum to 1.
      for (int h = 0; h < s.Hq; ++h)
        for (std::int64_t i = 0; i < T; ++i) {
          const std::int64_t pos = S - T + i;
          double sum = 0;
          for (std::int64_t t = 0; t < S; ++t) {
            const std::size_t at = std::size_t((h * T + i) * S + t);
            const bool visible = t <= pos && (w == 0 || t > pos - w);
            if (visible) {
              CHECK(std::isfinite(r.scores.data[at]));
            } else {
              CHECK(r.scores.data[at] == -INFINITY);
              CHECK(r.probs.data[at] == 0.0);
            }
            sum += r.probs.data[at];
          }
          CHECK(sum == Approx(1.0).epsilon(1e-12));
        }
    }
  }
}

TEST_CASE("prefill without kept matrices gives the same output", "[reference][prefill]") {
  const std::uint64_t seed = 41;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  NaiveShape s;
  s.S = 54, s.Hq = 3, s.Hkv = 1, s.D = 3, s.Dv = 64, s.W = 10;
  const std::int64_t T = 54;
  const std::vector<float> q = reftest::random_floats(rng, std::size_t(T) * s.Hq * s.D);
  const std::vector<float> k = reftest::random_floats(rng, std::size_t(s.S) * s.Hkv * s.D);
  const std::vector<float> v = reftest::random_floats(rng, std::size_t(s.S) * s.Hkv * s.Dv);
  const auto a = attn::prefill_grouped(shape_of(s), T, q.data(), k.data(), v.data(), true);
  const auto b = attn::prefill_grouped(shape_of(s), T, q.data(), k.data(), v.data(), false);
  CHECK(a.out.data == b.out.data);
  CHECK(b.scores.data.empty());
  CHECK_THROWS_AS(attn::prefill_grouped(shape_of(s), T + 1, q.data(), k.data(), v.data(), false),
                  attn::InputError);
}
