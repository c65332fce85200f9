// MLA (DeepSeek multi-head latent attention) references: the absorbed decode that kernels
// implement, the naive form that rebuilds per-head keys and values from the latent, the two
// steps that turn one into the other, and rotate_half RoPE.
//
// Shapes (reference.h): q_nope [B, H, Dn]; q_rope [B, H, Dr]; latent [B, S, Dl];
// k_rope [B, S, Dr]; w_uk [H, Dn, Dl]; w_uv [H, Dv, Dl]; q_abs [B, H, Dl + Dr];
// kv [B, S, Dl + Dr]; out_latent [B, H, Dl]; out [B, H, Dv].
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/decode_strided.h"
#include "attention/error.h"
#include "attention/reference.h"

namespace attn {
namespace {

void check_at_least(const char* what, const char* field, std::int64_t value, std::int64_t lowest) {
  if (value < lowest)
    throw InputError(std::string(what) + ": " + field + ": expected >= " + std::to_string(lowest) +
                     ", found " + std::to_string(value));
}

void check_naive(const MlaNaiveShape& s, const char* what) {
  check_at_least(what, "batch", s.batch, 0);
  check_at_least(what, "seq", s.seq, 0);
  check_at_least(what, "heads", s.heads, 1);
  check_at_least(what, "nope_dim", s.nope_dim, 0);
  check_at_least(what, "rope_dim", s.rope_dim, 0);
  check_at_least(what, "latent_dim", s.latent_dim, 1);
  check_at_least(what, "value_dim", s.value_dim, 1);
  if (s.nope_dim + s.rope_dim < 1)
    throw InputError(std::string(what) + ": nope_dim + rope_dim: expected >= 1, found 0");
}

std::int64_t clamped_len(const std::int64_t* lens, std::int64_t b, std::int64_t seq) {
  const std::int64_t len = lens ? lens[b] : seq;
  return std::max<std::int64_t>(0, std::min<std::int64_t>(len, seq));
}

}  // namespace

template <class Acc>
void decode_mla_absorbed(const MlaDecodeShape& s, const float* q, const float* kv,
                         const std::int64_t* lens, Acc* out, int threads) {
  check_at_least("mla decode", "batch", s.batch, 0);
  check_at_least("mla decode", "seq", s.seq, 0);
  check_at_least("mla decode", "heads", s.heads, 1);
  check_at_least("mla decode", "latent_dim", s.latent_dim, 1);
  check_at_least("mla decode", "rope_dim", s.rope_dim, 0);
  const int row = s.latent_dim + s.rope_dim;  // Dl + Dr
  StridedDecode p;
  p.batch = s.batch;
  p.seq = s.seq;
  p.q_heads = s.heads;
  p.kv_heads = 1;
  p.head_dim = row;
  p.value_dim = s.latent_dim;
  p.window = 0;
  p.scale = resolve_scale(s.scale, static_cast<int>(row));
  p.q = q;
  p.k = kv;  // keys: the whole row
  p.k_pos = row;
  p.k_batch = s.seq * row;
  p.v = kv;  // values: the first Dl columns of the same row
  p.v_pos = row;
  p.v_batch = s.seq * row;
  p.lens = lens;
  decode_strided<Acc>(p, out, threads);
}

template void decode_mla_absorbed<float>(const MlaDecodeShape&, const float*, const float*,
                                         const std::int64_t*, float*, int);
template void decode_mla_absorbed<double>(const MlaDecodeShape&, const float*, const float*,
                                          const std::int64_t*, double*, int);

void decode_mla_ragged(const MlaRaggedShape& s, const float* q, const float* kv,
                       const std::vector<MlaSequence>& seqs, double* out) {
  const std::int64_t row = s.latent_dim + s.rope_dim;
  for (std::size_t b = 0; b < seqs.size(); ++b) {
    const MlaSequence& sq = seqs[b];
    if (sq.q_len < 0 || sq.kv_len < sq.q_len)
      throw InputError("mla decode: sequence " + std::to_string(b) + " has " +
                       std::to_string(sq.kv_len) + " cached tokens for " +
                       std::to_string(sq.q_len) +
                       " new ones; the new tokens are the last of the cache, so kv_len >= q_len");
    for (std::int64_t i = 0; i < sq.q_len; ++i) {
      MlaDecodeShape one;
      one.batch = 1;
      one.seq = std::max<std::int64_t>(sq.kv_len, 1);
      one.heads = s.heads;
      one.latent_dim = s.latent_dim;
      one.rope_dim = s.rope_dim;
      one.scale = s.scale;
      const std::int64_t visible = sq.kv_len - sq.q_len + i + 1;  // causal among the new tokens
      const std::int64_t r = sq.q_start + i;
      decode_mla_absorbed<double>(one, q + r * s.heads * row, kv + sq.kv_start * row, &visible,
                                  out + r * s.heads * s.latent_dim, 1);
    }
  }
}

std::vector<MlaSequence> mla_sequences_from_indptr(const std::vector<std::int64_t>& qo_indptr,
                                                   const std::vector<std::int64_t>& kv_indptr,
                                                   std::int64_t total_q, std::int64_t total_kv,
                                                   const std::string& qo_name,
                                                   const std::string& kv_name) {
  const auto check = [](const std::vector<std::int64_t>& p, std::int64_t total,
                        const std::string& name, const std::string& what) {
    if (p.size() < 2)
      throw InputError(name + ": expected B + 1 >= 2 entries, found " + std::to_string(p.size()));
    if (p.front() != 0)
      throw InputError(name + ": entry 0 must be 0, found " + std::to_string(p.front()));
    for (std::size_t i = 1; i < p.size(); ++i)
      if (p[i] < p[i - 1])
        throw InputError(name + ": entries must not decrease, found " + std::to_string(p[i - 1]) +
                         " then " + std::to_string(p[i]) + " at entry " + std::to_string(i));
    if (p.back() != total)
      throw InputError(name + ": the last entry must be " + what + " = " + std::to_string(total) +
                       ", found " + std::to_string(p.back()));
  };
  check(qo_indptr, total_q, qo_name, "the rows of q");
  check(kv_indptr, total_kv, kv_name, "the rows of kv");
  if (qo_indptr.size() != kv_indptr.size())
    throw InputError(qo_name + " and " + kv_name + ": expected the same B + 1 entries, found " +
                     std::to_string(qo_indptr.size()) + " and " + std::to_string(kv_indptr.size()));
  std::vector<MlaSequence> seqs(qo_indptr.size() - 1);
  for (std::size_t b = 0; b < seqs.size(); ++b) {
    seqs[b].q_start = qo_indptr[b];
    seqs[b].q_len = qo_indptr[b + 1] - qo_indptr[b];
    seqs[b].kv_start = kv_indptr[b];
    seqs[b].kv_len = kv_indptr[b + 1] - kv_indptr[b];
    if (seqs[b].kv_len < seqs[b].q_len)
      throw InputError(kv_name + ": sequence " + std::to_string(b) + " has " +
                       std::to_string(seqs[b].kv_len) + " cached tokens for " +
                       std::to_string(seqs[b].q_len) + " new ones in " + qo_name +
                       "; the new tokens are the last of the cache");
  }
  return seqs;
}

// Deliberately direct: every key and value of every head is rebuilt from the latent, in double,
// with a two-pass softmax. It shares no code with the absorbed path it checks.
void decode_mla_naive(const MlaNaiveShape& s, const float* q_nope, const float* q_rope,
                      const float* latent, const float* k_rope, const float* w_uk,
                      const float* w_uv, const std::int64_t* lens, double* out) {
  check_naive(s, "mla naive");
  const int H = s.heads, Dn = s.nope_dim, Dr = s.rope_dim, Dl = s.latent_dim, Dv = s.value_dim;
  const double scale = resolve_scale(s.scale, static_cast<int>(Dn + Dr));
  std::vector<double> k_nope(static_cast<std::size_t>(Dn));
  std::vector<double> value(static_cast<std::size_t>(Dv));
  std::vector<double> scores;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const std::int64_t len = clamped_len(lens, b, s.seq);
    scores.assign(static_cast<std::size_t>(len), 0.0);
    for (int h = 0; h < H; ++h) {
      const float* qn = q_nope + (b * H + h) * Dn;
      const float* qr = q_rope + (b * H + h) * Dr;
      const float* wk = w_uk + static_cast<std::int64_t>(h) * Dn * Dl;
      const float* wv = w_uv + static_cast<std::int64_t>(h) * Dv * Dl;
      double* o = out + (b * H + h) * Dv;
      std::fill(o, o + Dv, 0.0);
      if (len == 0) continue;
      for (std::int64_t t = 0; t < len; ++t) {
        const float* lat = latent + (b * s.seq + t) * Dl;
        const float* kr = k_rope + (b * s.seq + t) * Dr;
        for (int n = 0; n < Dn; ++n) {
          double acc = 0;
          for (int l = 0; l < Dl; ++l) acc += double(wk[n * Dl + l]) * lat[l];
          k_nope[static_cast<std::size_t>(n)] = acc;
        }
        double dot = 0;
        for (int n = 0; n < Dn; ++n) dot += double(qn[n]) * k_nope[static_cast<std::size_t>(n)];
        for (int r = 0; r < Dr; ++r) dot += double(qr[r]) * kr[r];
        scores[static_cast<std::size_t>(t)] = dot * scale;
      }
      const double m = *std::max_element(scores.begin(), scores.end());
      double sum = 0;
      for (double& x : scores) sum += (x = std::exp(x - m));
      for (std::int64_t t = 0; t < len; ++t) {
        const float* lat = latent + (b * s.seq + t) * Dl;
        for (int x = 0; x < Dv; ++x) {
          double acc = 0;
          for (int l = 0; l < Dl; ++l) acc += double(wv[x * Dl + l]) * lat[l];
          value[static_cast<std::size_t>(x)] = acc;
        }
        const double w = scores[static_cast<std::size_t>(t)] / sum;
        for (int x = 0; x < Dv; ++x) o[x] += w * value[static_cast<std::size_t>(x)];
      }
    }
  }
}

void mla_absorb_query(const MlaNaiveShape& s, const float* q_nope, const float* q_rope,
                      const float* w_uk, float* q_abs) {
  check_naive(s, "mla absorb");
  const int H = s.heads, Dn = s.nope_dim, Dr = s.rope_dim, Dl = s.latent_dim;
  std::vector<double> acc(static_cast<std::size_t>(Dl));
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (int h = 0; h < H; ++h) {
      const float* qn = q_nope + (b * H + h) * Dn;
      const float* wk = w_uk + static_cast<std::int64_t>(h) * Dn * Dl;
      std::fill(acc.begin(), acc.end(), 0.0);
      // q_abs[l] = sum_n q_nope[n] * w_uk[h, n, l]: the query seen through W_UK, so that
      // q_abs . latent = q_nope . (W_UK latent).
      for (int n = 0; n < Dn; ++n)
        for (int l = 0; l < Dl; ++l)
          acc[static_cast<std::size_t>(l)] += double(qn[n]) * wk[n * Dl + l];
      float* qa = q_abs + (b * H + h) * (Dl + Dr);
      for (int l = 0; l < Dl; ++l) qa[l] = static_cast<float>(acc[static_cast<std::size_t>(l)]);
      const float* qr = q_rope + (b * H + h) * Dr;
      std::copy(qr, qr + Dr, qa + Dl);
    }
  }
}

void mla_pack_cache(const MlaNaiveShape& s, const float* latent, const float* k_rope, float* kv) {
  check_naive(s, "mla pack");
  const int Dr = s.rope_dim, Dl = s.latent_dim;
  for (std::int64_t r = 0; r < s.batch * s.seq; ++r) {
    std::copy(latent + r * Dl, latent + (r + 1) * Dl, kv + r * (Dl + Dr));
    std::copy(k_rope + r * Dr, k_rope + (r + 1) * Dr, kv + r * (Dl + Dr) + Dl);
  }
}

void mla_apply_wuv(const MlaNaiveShape& s, const double* out_latent, const float* w_uv,
                   double* out) {
  check_naive(s, "mla apply W_UV");
  const int H = s.heads, Dl = s.latent_dim, Dv = s.value_dim;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (int h = 0; h < H; ++h) {
      const double* ol = out_latent + (b * H + h) * Dl;
      const float* wv = w_uv + static_cast<std::int64_t>(h) * Dv * Dl;
      double* o = out + (b * H + h) * Dv;
      for (int x = 0; x < Dv; ++x) {
        double acc = 0;
        for (int l = 0; l < Dl; ++l) acc += double(wv[x * Dl + l]) * ol[l];
        o[x] = acc;
      }
    }
  }
}

void apply_rope(float* x, std::int64_t n, int rope_dim, const std::int64_t* pos, double theta) {
  if (rope_dim < 0 || rope_dim % 2 != 0)
    throw InputError("rope: rope_dim: expected an even number >= 0, found " +
                     std::to_string(rope_dim));
  if (!(theta > 0)) throw InputError("rope: theta: expected > 0, found " + std::to_string(theta));
  const int half = rope_dim / 2;
  std::vector<double> inv_freq(static_cast<std::size_t>(half));
  for (int i = 0; i < half; ++i)  // HF: 1 / theta^(2i / Dr)
    inv_freq[static_cast<std::size_t>(i)] = 1.0 / std::pow(theta, 2.0 * i / rope_dim);
  for (std::int64_t r = 0; r < n; ++r) {
    float* row = x + r * rope_dim;
    const double p = static_cast<double>(pos[r]);
    for (int i = 0; i < half; ++i) {
      const double angle = p * inv_freq[static_cast<std::size_t>(i)];
      const double c = std::cos(angle), sn = std::sin(angle);
      const double x1 = row[i], x2 = row[i + half];
      // x * cos + rotate_half(x) * sin, rotate_half(x) = [-x2, x1]
      row[i] = static_cast<float>(x1 * c - x2 * sn);
      row[i + half] = static_cast<float>(x2 * c + x1 * sn);
    }
  }
}

}  // namespace attn
