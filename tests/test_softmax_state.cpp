// SoftmaxState (attention/softmax_state.h), the online softmax shared by the CPU references and
// the GPU kernels: one pass over a row equals the max-subtracted softmax, and merging the
// states of two parts equals one pass over the whole row, empty parts included.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "attention/softmax_state.h"

namespace {

// The online pass over scores x with value rows v [n, dv]: state and unnormalised acc.
template <class T>
attn::SoftmaxState<T> run(const std::vector<double>& x, const std::vector<double>& v, int dv,
                          std::size_t begin, std::size_t end, std::vector<T>* acc) {
  attn::SoftmaxState<T> s;
  acc->assign(std::size_t(dv), T(0));
  for (std::size_t i = begin; i < end; ++i) {
    T r, w;
    s.update(T(x[i]), &r, &w);
    for (int d = 0; d < dv; ++d)
      (*acc)[std::size_t(d)] = (*acc)[std::size_t(d)] * r + w * T(v[i * dv + d]);
  }
  return s;
}

// Two-pass truth: softmax(x) . v.
std::vector<double> truth(const std::vector<double>& x, const std::vector<double>& v, int dv) {
  double m = -INFINITY;
  for (double e : x) m = std::max(m, e);
  double sum = 0;
  for (double e : x) sum += std::exp(e - m);
  std::vector<double> out(std::size_t(dv), 0.0);
  for (std::size_t i = 0; i < x.size(); ++i)
    for (int d = 0; d < dv; ++d) out[std::size_t(d)] += std::exp(x[i] - m) / sum * v[i * dv + d];
  return out;
}

}  // namespace

TEST_CASE("softmax state: one pass equals the max-subtracted softmax", "[softmax]") {
  const std::uint64_t seed = 101;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (double mag : {1.0, 30.0, 1e4}) {
    for (std::size_t n : {1, 2, 54, 97, 4096}) {
      const int dv = 3;
      std::uniform_real_distribution<double> dist(-mag, mag);
      std::vector<double> x(n), v(n * dv);
      for (auto& e : x) e = dist(rng);
      for (auto& e : v) e = dist(rng) / mag;
      INFO("n=" << n << " |x| <= " << mag);
      std::vector<double> acc;
      const auto s = run<double>(x, v, dv, 0, n, &acc);
      const std::vector<double> want = truth(x, v, dv);
      for (int d = 0; d < dv; ++d)
        CHECK(acc[std::size_t(d)] * s.inv_sum() == Approx(want[std::size_t(d)]).margin(1e-12));
      double m = -INFINITY;
      for (double e : x) m = std::max(m, e);
      double sum = 0;
      for (double e : x) sum += std::exp(e - m);
      CHECK(s.max == m);
      CHECK(s.lse() == Approx(m + std::log(sum)).epsilon(1e-12));
      std::vector<float> acc_f;
      const auto sf = run<float>(x, v, dv, 0, n, &acc_f);
      for (int d = 0; d < dv; ++d) {
        CHECK(std::isfinite(acc_f[std::size_t(d)] * sf.inv_sum()));
        CHECK(acc_f[std::size_t(d)] * sf.inv_sum() ==
              Approx(want[std::size_t(d)]).margin(mag > 100 ? 2e-2 : 1e-5));
      }
    }
  }
}

TEST_CASE("softmax state: merging the states of two parts equals one pass (empty parts too)",
          "[softmax]") {
  const std::uint64_t seed = 103;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int dv = 4;
  for (std::size_t n : {0, 1, 54, 97}) {
    std::normal_distribution<double> dist(0.0, 5.0);
    std::vector<double> x(n), v(n * dv);
    for (auto& e : x) e = dist(rng);
    for (auto& e : v) e = dist(rng);
    std::vector<double> whole;
    const auto one = run<double>(x, v, dv, 0, n, &whole);
    std::vector<std::size_t> cuts = {0, n};
    if (n > 1) cuts.push_back(std::uniform_int_distribution<std::size_t>(1, n - 1)(rng));
    for (std::size_t cut : cuts) {
      INFO("n=" << n << " cut=" << cut);
      std::vector<double> a, b;
      const auto sa = run<double>(x, v, dv, 0, cut, &a);
      const auto sb = run<double>(x, v, dv, cut, n, &b);
      CHECK(sa.empty() == (cut == 0));
      CHECK(sb.empty() == (cut == n));
      double fa, fb;
      const auto m = attn::SoftmaxState<double>::merge(sa, sb, &fa, &fb);
      CHECK(m.empty() == one.empty());
      CHECK(m.max == one.max);
      CHECK(m.sum == Approx(one.sum).epsilon(1e-13));
      for (int d = 0; d < dv; ++d) {
        const double merged = (a[std::size_t(d)] * fa + b[std::size_t(d)] * fb) * m.inv_sum();
        CHECK(merged == Approx(whole[std::size_t(d)] * one.inv_sum()).margin(1e-12));
      }
      // The merge is symmetric.
      double ga, gb;
      const auto m2 = attn::SoftmaxState<double>::merge(sb, sa, &gb, &ga);
      CHECK(m2.max == m.max);
      CHECK(m2.sum == Approx(m.sum).epsilon(1e-14));
    }
  }
}

TEST_CASE("softmax state: empty state is the identity of merge and yields zeros", "[softmax]") {
  attn::SoftmaxState<float> empty;
  CHECK(empty.empty());
  CHECK(empty.inv_sum() == 0.f);
  CHECK(empty.lse() == -std::numeric_limits<float>::infinity());
  float a, b;
  const auto both = attn::SoftmaxState<float>::merge(empty, empty, &a, &b);
  CHECK(both.empty());
  CHECK(a == 0.f);
  CHECK(b == 0.f);
  attn::SoftmaxState<float> one;
  float r, w;
  one.update(-1e4f, &r, &w);  // a very negative first score: weight 1, never exp(-inf - -inf)
  CHECK(w == 1.f);
  CHECK(std::isfinite(r));
  const auto left = attn::SoftmaxState<float>::merge(empty, one, &a, &b);
  CHECK(left.max == one.max);
  CHECK(left.sum == one.sum);
  CHECK(a == 0.f);
  CHECK(b == 1.f);
}
