// [gpu] MLA decode over packed ragged batches (kern::gpu_decode_mla_ragged, decode_mla_packed.hip)
// against the float64 CPU reference attn::decode_mla_ragged, fed the values the device sees:
// q rounded to bf16 (fp16 with an fp16 cache), the cache rounded to its storage (bf16, fp16, e4m3
// with the same per-tensor scale, or mxfp4 blocks dequantised). Quantisation is then common to
// both sides and what remains is the bf16 path's error (16-bit probabilities, fp32 sums), so
// every dtype is held to rtol 2e-2, atol 8e-3. NaN never passes; rows no sequence owns are 0.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attention/dtype.h"
#include "attention/error.h"
#include "attention/mxfp4.h"
#include "attention/reference.h"
#include "kernels/gpu.h"

#include "../scoped_env.h"

namespace {

constexpr int kDl = 512, kDr = 64, kDk = kDl + kDr;

bool have_gpu() { return kern::query_device().available; }

std::vector<float> rounded(std::vector<float> x, std::size_t rows, attn::DType dt) {
  if (dt == attn::DType::kMxfp4) {
    attn::round_to_mxfp4(x.data(), rows, kDk);
  } else if (dt == attn::DType::kFp8) {
    float amax = 0.f;
    for (float v : x) amax = std::max(amax, std::fabs(v));
    const float scale = attn::e4m3_scale_for(amax);
    for (float& v : x) v = attn::round_to_e4m3(v, scale);
  } else if (dt == attn::DType::kFp16) {
    for (float& v : x) v = attn::round_to_fp16(v);
  } else {
    for (float& v : x) v = attn::round_to_bf16(v);
  }
  return x;
}

struct Batch {
  std::vector<attn::MlaSequence> seqs;
  std::int64_t total_q = 0, total_kv = 0;
};

// A packed batch as AMD's problem builds one: sequences back to back, q_len each from q_lens
// (cycled), kv_len drawn in [q_len, max_kv].
Batch packed(std::mt19937& rng, int batch, std::vector<int> q_lens, std::int64_t max_kv) {
  Batch p;
  for (int b = 0; b < batch; ++b) {
    attn::MlaSequence s;
    s.q_len = q_lens[std::size_t(b) % q_lens.size()];
    s.kv_len = s.q_len + std::int64_t(rng() % std::uint32_t(max_kv - s.q_len + 1));
    s.q_start = p.total_q;
    s.kv_start = p.total_kv;
    p.total_q += s.q_len;
    p.total_kv += s.kv_len;
    p.seqs.push_back(s);
  }
  return p;
}

void check_batch(const Batch& p, int heads, attn::DType dt, std::uint32_t seed, int splits = 0) {
  INFO("seed " << seed << ", B " << p.seqs.size() << ", total_q " << p.total_q << ", total_kv "
               << p.total_kv << ", H " << heads << ", dtype " << attn::dtype_name(dt) << ", splits "
               << splits);
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.f, 1.f);
  std::vector<float> q(std::size_t(p.total_q * heads * kDk)), kv(std::size_t(p.total_kv * kDk));
  for (float& v : q) v = 2.f * nd(rng);  // scores of std ~2: neither flat nor one-hot
  for (float& v : kv) v = nd(rng);
  const std::vector<float> qr =
      rounded(q, 0, dt == attn::DType::kFp16 ? attn::DType::kFp16 : attn::DType::kBf16);
  const std::vector<float> kvr = rounded(kv, std::size_t(p.total_kv), dt);
  attn::MlaRaggedShape s;
  s.heads = heads;
  const std::size_t nout = std::size_t(p.total_q * heads * kDl);
  std::vector<double> ref(nout, 0.0);
  attn::decode_mla_ragged(s, qr.data(), kvr.data(), p.seqs, ref.data());
  std::vector<float> out(nout, std::numeric_limits<float>::quiet_NaN());  // poisoned
  kern::gpu_decode_mla_ragged(s, q.data(), p.total_q, kv.data(), p.total_kv, p.seqs, out.data(), dt,
                              splits);
  std::vector<bool> owned(std::size_t(p.total_q), false);
  for (const attn::MlaSequence& sq : p.seqs)
    for (std::int64_t i = 0; i < sq.q_len; ++i) owned[std::size_t(sq.q_start + i)] = true;
  std::size_t bad = 0, first_bad = nout;
  double max_err = 0;
  for (std::size_t i = 0; i < nout; ++i) {
    const bool own = owned[i / std::size_t(heads * kDl)];
    const double want = own ? ref[i] : 0.0;
    const double err = std::fabs(double(out[i]) - want);
    if (!(err <= 8e-3 + 2e-2 * std::fabs(want)) || (!own && out[i] != 0.f)) {  // NaN fails
      if (bad++ == 0) first_bad = i;
    }
    max_err = std::isnan(err) ? std::numeric_limits<double>::infinity() : std::max(max_err, err);
  }
  INFO("max abs error " << max_err << ", elements out of tolerance " << bad << " of " << nout);
  if (first_bad < nout)
    INFO("first bad element " << first_bad << " (row " << first_bad / kDl << "): gpu "
                              << out[first_bad] << ", ref " << ref[first_bad]);
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("gpu packed MLA decode matches the float64 reference for every cache dtype",
          "[gpu][mla][packed]") {
  if (!have_gpu()) return;
  std::uint32_t seed = 20261207;
  for (attn::DType dt :
       {attn::DType::kBf16, attn::DType::kFp16, attn::DType::kFp8, attn::DType::kMxfp4}) {
    for (int heads : {1, 16, 63, 128}) {
      std::mt19937 rng(seed);
      check_batch(packed(rng, 5, {1, 2, 3, 4}, 300), heads, dt, seed++);
    }
    std::mt19937 rng(seed);
    check_batch(packed(rng, 3, {1}, 9000), 16, dt, seed++);  // long: the plan splits
  }
}

TEST_CASE(
    "gpu packed MLA decode with one shared-memory stage (the LDS-limited tile) matches the "
    "reference for every cache dtype",
    "[gpu][mla][packed]") {
  if (!have_gpu()) return;
  const test_env::ScopedEnv one_stage("ATTNLAB_MLA_PACKED_STAGES", "1");
  std::uint32_t seed = 7101;
  for (attn::DType dt :
       {attn::DType::kBf16, attn::DType::kFp16, attn::DType::kFp8, attn::DType::kMxfp4}) {
    for (int splits : {0, 3}) {
      std::mt19937 rng(seed);
      check_batch(packed(rng, 5, {1, 2, 3, 4}, 700), 16, dt, seed++, splits);
      std::mt19937 rng2(seed);
      check_batch(packed(rng2, 2, {4}, 300), 63, dt, seed++, splits);
    }
  }
}

TEST_CASE("gpu packed MLA decode: split counts, causal rows and AMD's q_len 1..4 shapes",
          "[gpu][mla][packed]") {
  if (!have_gpu()) return;
  std::uint32_t seed = 4001;
  for (int splits : {1, 2, 7, 40}) {
    for (attn::DType dt : {attn::DType::kBf16, attn::DType::kMxfp4}) {
      std::mt19937 rng(seed);
      check_batch(packed(rng, 4, {4, 3, 2, 1}, 1100), 16, dt, seed++, splits);
    }
  }
  // kv_len == q_len: the first query sees one token; every new token is its own cache row.
  Batch tight;
  for (int b = 0; b < 3; ++b) {
    attn::MlaSequence s;
    s.q_len = 4;
    s.kv_len = 4;
    s.q_start = tight.total_q;
    s.kv_start = tight.total_kv;
    tight.total_q += 4;
    tight.total_kv += 4;
    tight.seqs.push_back(s);
  }
  for (attn::DType dt : {attn::DType::kBf16, attn::DType::kFp8}) check_batch(tight, 16, dt, seed++);
}

TEST_CASE("gpu packed MLA decode: padded sequences, gaps and sequences with no new token",
          "[gpu][mla][packed]") {
  if (!have_gpu()) return;
  // The padded layout with --q-len: sequence b at kv rows b * S, only its first kv_len used; a
  // q row owned by no sequence stays 0; a sequence with q_len 0 owns nothing.
  Batch p;
  p.total_q = 9;
  p.total_kv = 3 * 700;
  p.seqs = {{0, 2, 0, 650}, {3, 4, 700, 4}, {7, 0, 1400, 0}, {7, 2, 1400, 699}};
  for (attn::DType dt : {attn::DType::kBf16, attn::DType::kMxfp4})
    for (int splits : {0, 1, 3}) check_batch(p, 16, dt, 5001, splits);
}

TEST_CASE("gpu packed MLA decode reports sequences that break the rules", "[gpu][mla][packed]") {
  if (!have_gpu()) return;
  attn::MlaRaggedShape s;
  s.heads = 16;
  std::vector<float> q(std::size_t(4 * 16 * kDk)), kv(std::size_t(8 * kDk)),
      out(std::size_t(4 * 16 * kDl));
  const auto run = [&](std::vector<attn::MlaSequence> seqs, attn::DType dt) {
    kern::gpu_decode_mla_ragged(s, q.data(), 4, kv.data(), 8, seqs, out.data(), dt);
  };
  CHECK_THROWS_AS(run({{0, 4, 0, 3}}, attn::DType::kBf16), attn::InputError);  // kv_len < q_len
  CHECK_THROWS_AS(run({{2, 4, 0, 8}}, attn::DType::kBf16), attn::InputError);  // q rows past 4
  CHECK_THROWS_AS(run({{0, 1, 4, 5}}, attn::DType::kBf16), attn::InputError);  // kv rows past 8
  CHECK_THROWS_AS(run({{0, 1, 0, 8}}, attn::DType::kFp32), attn::DeviceError);
  CHECK_NOTHROW(run({{0, 4, 0, 8}}, attn::DType::kMxfp4));
}

TEST_CASE("gpu MLA decode with an mxfp4 cache runs the packed kernel, lens of 0 giving zeros",
          "[gpu][mla][packed]") {
  if (!have_gpu()) return;
  const std::uint32_t seed = 6001;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.f, 1.f);
  attn::MlaDecodeShape s;
  s.batch = 4;
  s.seq = 700;
  s.heads = 16;
  std::vector<float> q(std::size_t(s.batch * s.heads * kDk)),
      kv(std::size_t(s.batch * s.seq * kDk));
  for (float& v : q) v = 2.f * nd(rng);
  for (float& v : kv) v = nd(rng);
  const std::vector<std::int64_t> lens = {700, 0, 351, 1};
  const std::vector<float> qr = rounded(q, 0, attn::DType::kBf16);
  const std::vector<float> kvr = rounded(kv, std::size_t(s.batch * s.seq), attn::DType::kMxfp4);
  std::vector<double> ref(std::size_t(s.batch * s.heads * kDl));
  attn::decode_mla_absorbed<double>(s, qr.data(), kvr.data(), lens.data(), ref.data(), 0);
  std::vector<float> out(ref.size(), std::numeric_limits<float>::quiet_NaN());
  kern::gpu_decode_mla(s, q.data(), kv.data(), lens.data(), out.data(), attn::DType::kMxfp4);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!(std::fabs(double(out[i]) - ref[i]) <= 8e-3 + 2e-2 * std::fabs(ref[i]))) ++bad;
  CHECK(bad == 0);
  for (std::size_t i = std::size_t(s.heads * kDl); i < std::size_t(2 * s.heads * kDl); ++i)
    REQUIRE(out[i] == 0.f);  // lens[1] = 0
}
