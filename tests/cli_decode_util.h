// Inputs and an independent float64 decode for the tests that run the attnlab executable on
// NPY files (tests/test_cli.cpp, tests/test_cli_mla.cpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "attention/npy.h"
#include "attention/tensor.h"
#include "cli_spawn.h"

namespace cli_test {

inline attn::TensorF random_tensor(std::vector<std::int64_t> shape, std::mt19937& rng) {
  attn::TensorF t(std::move(shape));
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  for (float& x : t.data) x = u(rng);
  return t;
}

inline void write_lens(const std::string& path, const std::vector<std::int64_t>& lens) {
  const auto bytes = attn::npy_bytes_i64({static_cast<std::int64_t>(lens.size())}, lens);
  cli_test::spit(path, std::string(bytes.begin(), bytes.end()));
}

// Independent float64 decode (the definition in docs/DESIGN.md section 2, written out naively):
// q [B, Hq, D], k/v [B, S, Hkv, D] (MLA: kv [B, S, Dk] with values its first Dv columns).
inline std::vector<double> naive_decode(const attn::TensorF& q, const attn::TensorF& k,
                                        const attn::TensorF* v, int dv, int window,
                                        const std::vector<std::int64_t>& lens, double scale) {
  const std::int64_t B = q.dim(0), Hq = q.dim(1), D = q.dim(2), S = k.dim(1);
  const bool mla = v == nullptr;
  const std::int64_t Hkv = mla ? 1 : k.dim(2);
  const std::int64_t G = Hq / Hkv;
  std::vector<double> out(static_cast<std::size_t>(B * Hq * dv), 0.0);
  for (std::int64_t b = 0; b < B; ++b) {
    const std::int64_t len = lens.empty() ? S : lens[static_cast<std::size_t>(b)];
    const std::int64_t lo = window > 0 ? std::max<std::int64_t>(0, len - window) : 0;
    for (std::int64_t h = 0; h < Hq; ++h) {
      const std::int64_t g = h / G;
      std::vector<double> s;
      for (std::int64_t j = lo; j < len; ++j) {
        double dot = 0;
        for (std::int64_t d = 0; d < D; ++d) {
          const double kk = mla ? k.data[static_cast<std::size_t>((b * S + j) * D + d)]
                                : k.data[static_cast<std::size_t>(((b * S + j) * Hkv + g) * D + d)];
          dot += static_cast<double>(q.data[static_cast<std::size_t>((b * Hq + h) * D + d)]) * kk;
        }
        s.push_back(dot * scale);
      }
      if (s.empty()) continue;
      const double m = *std::max_element(s.begin(), s.end());
      double sum = 0;
      for (double& x : s) sum += (x = std::exp(x - m));
      for (std::int64_t j = lo; j < len; ++j) {
        const double p = s[static_cast<std::size_t>(j - lo)] / sum;
        for (int d = 0; d < dv; ++d) {
          const double vv =
              mla ? k.data[static_cast<std::size_t>((b * S + j) * D + d)]
                  : v->data[static_cast<std::size_t>(((b * S + j) * Hkv + g) * D + d)];
          out[static_cast<std::size_t>((b * Hq + h) * dv + d)] += p * vv;
        }
      }
    }
  }
  return out;
}

inline double max_diff(const attn::TensorF& a, const std::vector<double>& b) {
  double m = 0;
  if (a.data.size() != b.size()) return INFINITY;
  for (std::size_t i = 0; i < b.size(); ++i)
    m = std::max(m, std::fabs(static_cast<double>(a.data[i]) - b[i]));
  return m;
}

}  // namespace cli_test
