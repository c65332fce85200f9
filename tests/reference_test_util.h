// Helpers of the reference tests: seeded random tensors, error measures, and a naive
// grouped-attention definition written independently of attention/ (double loops, two-pass
// softmax, no blocking, no SoftmaxState).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace reftest {

inline std::vector<float> random_floats(std::mt19937_64& rng, std::size_t n, float lo = -1.f,
                                        float hi = 1.f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// max |a - b| / max(max |b|, floor): the error relative to the size of the truth.
template <class A, class B>
double relative_error(const std::vector<A>& a, const std::vector<B>& b, double floor = 1e-30) {
  double num = 0, den = floor;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    num = std::max(num, std::fabs(double(a[i]) - double(b[i])));
    den = std::max(den, std::fabs(double(b[i])));
  }
  return num / den;
}

template <class A, class B>
double max_abs_diff(const std::vector<A>& a, const std::vector<B>& b) {
  double m = a.size() == b.size() ? 0 : INFINITY;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    m = std::max(m, std::fabs(double(a[i]) - double(b[i])));
  return m;
}

struct NaiveShape {
  std::int64_t B = 1, S = 1;
  int Hq = 1, Hkv = 1, D = 1, Dv = 1, W = 0;
  double scale = 0;  // 0 = 1/sqrt(D)
};

// q [B, Hq, D]; k [B, S, Hkv, D]; v [B, S, Hkv, Dv]; lens [B] or empty; out [B, Hq, Dv].
// Query head h reads kv head h / (Hq / Hkv); window W keeps positions max(0, len-W)..len-1.
inline std::vector<double> naive_grouped(const NaiveShape& s, const std::vector<float>& q,
                                         const std::vector<float>& k, const std::vector<float>& v,
                                         const std::vector<std::int64_t>& lens) {
  const int G = s.Hq / s.Hkv;
  const double scale = s.scale != 0 ? s.scale : 1.0 / std::sqrt(double(s.D));
  std::vector<double> out(std::size_t(s.B) * s.Hq * s.Dv, 0.0);
  for (std::int64_t b = 0; b < s.B; ++b) {
    const std::int64_t len = lens.empty() ? s.S : lens[std::size_t(b)];
    const std::int64_t lo = s.W > 0 ? std::max<std::int64_t>(0, len - s.W) : 0;
    if (len <= lo) continue;
    for (int h = 0; h < s.Hq; ++h) {
      const int kvh = h / G;
      std::vector<double> sc(std::size_t(len - lo));
      for (std::int64_t t = lo; t < len; ++t) {
        double dot = 0;
        for (int d = 0; d < s.D; ++d)
          dot += double(q[std::size_t((b * s.Hq + h) * s.D + d)]) *
                 double(k[std::size_t(((b * s.S + t) * s.Hkv + kvh) * s.D + d)]);
        sc[std::size_t(t - lo)] = dot * scale;
      }
      const double m = *std::max_element(sc.begin(), sc.end());
      double sum = 0;
      for (double& x : sc) sum += (x = std::exp(x - m));
      for (std::int64_t t = lo; t < len; ++t)
        for (int x = 0; x < s.Dv; ++x)
          out[std::size_t((b * s.Hq + h) * s.Dv + x)] +=
              sc[std::size_t(t - lo)] / sum *
              double(v[std::size_t(((b * s.S + t) * s.Hkv + kvh) * s.Dv + x)]);
    }
  }
  return out;
}

}  // namespace reftest
