// Prefill reference for the grouped family: T query tokens at positions S - T .. S - 1 of one
// sequence, causal, optionally windowed, in double. The explorer's heatmaps read the kept
// score and probability matrices.
//
// Shapes: q [T, Hq, D]; k [S, Hkv, D]; v [S, Hkv, Dv]; out [T, Hq, Dv];
// scores, probs [Hq, T, S] (masked: -inf and 0).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/error.h"
#include "attention/reference.h"

namespace attn {
namespace {
constexpr std::int64_t kMaxMatrixEntries = std::int64_t(1) << 24;  // per kept matrix (128 MiB)

void check_field(const char* field, std::int64_t value, std::int64_t lowest) {
  if (value < lowest)
    throw InputError(std::string("prefill: ") + field + ": expected >= " + std::to_string(lowest) +
                     ", found " + std::to_string(value));
}
}  // namespace

PrefillResult prefill_grouped(const GroupedDecodeShape& s, std::int64_t t_queries, const float* q,
                              const float* k, const float* v, bool keep_matrices) {
  check_field("seq", s.seq, 0);
  check_field("q_heads", s.q_heads, 1);
  check_field("kv_heads", s.kv_heads, 1);
  check_field("head_dim", s.head_dim, 1);
  check_field("value_dim", s.value_dim, 1);
  check_field("window", s.window, 0);
  check_field("queries", t_queries, 0);
  if (s.q_heads % s.kv_heads != 0)
    throw InputError("prefill: q_heads: expected a multiple of kv_heads (" +
                     std::to_string(s.kv_heads) + "), found " + std::to_string(s.q_heads));
  if (t_queries > s.seq)
    throw InputError("prefill: queries: expected at most seq (" + std::to_string(s.seq) +
                     "), found " + std::to_string(t_queries));
  const std::int64_t T = t_queries, S = s.seq;
  const int Hq = s.q_heads, Hkv = s.kv_heads, D = s.head_dim, Dv = s.value_dim;
  const int G = Hq / Hkv;
  if (keep_matrices && T > 0 && S > kMaxMatrixEntries / T / Hq)
    throw InputError(
        "prefill: kept matrices: expected Hq * T * S <= " + std::to_string(kMaxMatrixEntries) +
        ", found " + std::to_string(Hq) + " * " + std::to_string(T) + " * " + std::to_string(S));
  const double scale = resolve_scale(s.scale, static_cast<int>(D));

  PrefillResult res;
  res.out = TensorD({T, Hq, Dv});
  if (keep_matrices) {
    res.scores = TensorD({Hq, T, S});
    std::fill(res.scores.data.begin(), res.scores.data.end(),
              -std::numeric_limits<double>::infinity());
    res.probs = TensorD({Hq, T, S});
  }
  std::vector<double> row(static_cast<std::size_t>(S));
  for (std::int64_t i = 0; i < T; ++i) {
    const std::int64_t pos = S - T + i;  // the query's own position, attended to
    const std::int64_t lo = s.window > 0 ? std::max<std::int64_t>(0, pos + 1 - s.window) : 0;
    const std::int64_t hi = pos + 1;
    for (int h = 0; h < Hq; ++h) {
      const int kvh = h / G;
      const float* qr = q + (i * Hq + h) * D;
      double m = -std::numeric_limits<double>::infinity();
      for (std::int64_t t = lo; t < hi; ++t) {
        const float* kr = k + (t * Hkv + kvh) * D;
        double dot = 0;
        for (int d = 0; d < D; ++d) dot += double(qr[d]) * kr[d];
        row[static_cast<std::size_t>(t)] = dot * scale;
        m = std::max(m, row[static_cast<std::size_t>(t)]);
      }
      double sum = 0;
      for (std::int64_t t = lo; t < hi; ++t) sum += std::exp(row[static_cast<std::size_t>(t)] - m);
      double* o = res.out.ptr() + (i * Hq + h) * Dv;
      for (std::int64_t t = lo; t < hi; ++t) {
        const double p = std::exp(row[static_cast<std::size_t>(t)] - m) / sum;
        const float* vr = v + (t * Hkv + kvh) * Dv;
        for (int x = 0; x < Dv; ++x) o[x] += p * vr[x];
        if (keep_matrices) {
          const std::int64_t at = (h * T + i) * S + t;
          res.scores.data[static_cast<std::size_t>(at)] = row[static_cast<std::size_t>(t)];
          res.probs.data[static_cast<std::size_t>(at)] = p;
        }
      }
    }
  }
  return res;
}

}  // namespace attn
