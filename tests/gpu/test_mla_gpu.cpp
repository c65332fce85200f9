// [gpu] MLA absorbed decode on the GPU (kern::gpu_decode_mla) against the float64 CPU reference
// attn::decode_mla_absorbed<double>, fed the same rounded inputs the device sees.
//
// Tolerance: bf16 and fp16 within rtol 2e-2, atol 8e-3 (GPU MODE's bound): the kernel rounds the
// probabilities to 16 bits before the P V product (relative 2^-9 for bf16) and accumulates in
// fp32. fp8: the reference is fed the dequantised cache (round_to_e4m3 with the same per-tensor
// scale), so the quantisation error is common to both sides; the kernel converts e4m3 to bf16
// exactly and folds the scale into the score and output scales (one fp32 rounding each), so
// what remains is the bf16 path's error and the same bound applies. v7 (Hopper, fp8) computes
// Q K^T as e4m3 x e4m3 with each q row (scaled by 2^e into [128, 256)) split into two e4m3
// terms, |q - hi - lo| <= 2^-8 |q| (2^-10 absolute below e4m3's normal range): about the bf16
// rounding q already has (2^-9), so the same bound applies there too. NaN never passes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attention/dtype.h"
#include "attention/error.h"
#include "attention/reference.h"
#include "kernels/gpu.h"
#include "kernels/mla_launch.h"

namespace {

constexpr int kDl = 512, kDr = 64, kDk = kDl + kDr;

struct MlaCase {
  std::int64_t batch;
  std::int64_t seq;
  int heads;
  attn::DType dt;
  bool ragged;  // lens = {S, 0, S/2 + 1, ...}; else no lens
};

std::vector<float> rounded(std::vector<float> x, attn::DType dt, float* scale_out) {
  if (dt == attn::DType::kFp8) {
    float amax = 0.f;
    for (float v : x) amax = std::max(amax, std::fabs(v));
    const float scale = attn::e4m3_scale_for(amax);
    for (float& v : x) v = attn::round_to_e4m3(v, scale);
    if (scale_out) *scale_out = scale;
  } else if (dt == attn::DType::kFp16) {
    for (float& v : x) v = attn::round_to_fp16(v);
  } else {
    for (float& v : x) v = attn::round_to_bf16(v);
  }
  return x;
}

void check_case(const MlaCase& c, std::uint32_t seed,
                const kern::MlaKernelChoice* choice = nullptr) {
  INFO("seed " << seed << ", B " << c.batch << ", S " << c.seq << ", H " << c.heads << ", dtype "
               << attn::dtype_name(c.dt) << (c.ragged ? ", ragged lens" : ", no lens"));
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.f, 1.f);
  attn::MlaDecodeShape s;
  s.batch = c.batch;
  s.seq = c.seq;
  s.heads = c.heads;
  s.latent_dim = kDl;
  s.rope_dim = kDr;
  // Queries twice the cache's spread: scores of std ~2, so the softmax is neither flat nor one-hot.
  std::vector<float> q(std::size_t(c.batch * c.heads * kDk)),
      kv(std::size_t(c.batch * c.seq * kDk));
  for (float& v : q) v = 2.f * nd(rng);
  for (float& v : kv) v = nd(rng);
  const attn::DType qdt = c.dt == attn::DType::kFp16 ? attn::DType::kFp16 : attn::DType::kBf16;
  const std::vector<float> qr = rounded(q, qdt, nullptr);
  const std::vector<float> kvr = rounded(kv, c.dt, nullptr);

  std::vector<std::int64_t> lens(std::size_t(c.batch));
  for (std::int64_t b = 0; b < c.batch; ++b) {
    const std::int64_t pattern[3] = {c.seq, 0, c.seq / 2 + 1};
    lens[std::size_t(b)] = b % 3 == 1 ? 0 : std::min(c.seq, pattern[b % 3] + b / 3);
  }
  const std::int64_t* lp = c.ragged ? lens.data() : nullptr;

  const std::size_t nout = std::size_t(c.batch * c.heads * kDl);
  std::vector<double> ref(nout);
  attn::decode_mla_absorbed<double>(s, qr.data(), kvr.data(), lp, ref.data(), 0);
  std::vector<float> out(nout, std::numeric_limits<float>::quiet_NaN());  // poisoned
  // The GPU API rounds the unrounded inputs itself; rounding is idempotent, so it sees qr, kvr.
  std::string variant = "the launcher's choice";
  if (choice)
    variant = "head_groups " + std::to_string(choice->head_groups) + ", block_n " +
              std::to_string(choice->block_n) + ", stages " + std::to_string(choice->stages) +
              ", splits " + std::to_string(choice->splits) + ", combine " +
              std::to_string(choice->combine) + (choice->fp8_fp16 ? ", fp8 via fp16" : "") +
              ", version " + std::to_string(choice->version);
  INFO("variant: " << variant);
  if (choice) {
    kern::gpu_decode_mla_with(s, q.data(), kv.data(), lp, out.data(), c.dt, choice);
  } else {
    kern::gpu_decode_mla(s, q.data(), kv.data(), lp, out.data(), c.dt);
  }

  const double rtol = 2e-2, atol = 8e-3;
  std::size_t bad = 0, first_bad = nout;
  double max_err = 0;
  for (std::size_t i = 0; i < nout; ++i) {
    const double err = std::fabs(double(out[i]) - ref[i]);
    if (!(err <= atol + rtol * std::fabs(ref[i]))) {  // NaN fails here
      if (bad++ == 0) first_bad = i;
    }
    if (std::isnan(err))
      max_err = std::numeric_limits<double>::infinity();
    else
      max_err = std::max(max_err, err);
  }
  INFO("max abs error " << max_err << ", elements out of tolerance " << bad << " of " << nout);
  if (first_bad < nout)
    INFO("first bad element " << first_bad << ": gpu " << out[first_bad] << ", ref "
                              << ref[first_bad]);
  CHECK(bad == 0);
  if (c.ragged) {  // a zero-length sequence (b % 3 == 1) gives exact zeros
    for (std::int64_t b = 1; b < c.batch; b += 3)
      for (std::size_t i = std::size_t(b * c.heads * kDl); i < std::size_t((b + 1) * c.heads * kDl);
           ++i)
        REQUIRE(out[i] == 0.f);
  }
}

bool have_gpu() { return kern::query_device().available; }

// A kernel choice of `version` with this tile (splits and combine left to for_each_split).
kern::MlaKernelChoice choice(int version, int head_groups, int block_n, int stages) {
  kern::MlaKernelChoice c;
  c.version = version;
  c.head_groups = head_groups;
  c.block_n = block_n;
  c.stages = stages;
  return c;
}

// f(c) with c's splits auto / 1 / 7, each with both combines (only one when nothing splits).
template <class F>
void for_each_split(kern::MlaKernelChoice c, F f) {
  for (int splits : {0, 1, 7}) {
    for (int combine : {1, 2}) {
      if (splits == 1 && combine == 2) continue;
      c.splits = splits;
      c.combine = combine;
      f(c);
    }
  }
}

// Whether a B 1, S 16 decode with `heads` heads and this kernel choice is refused with a
// DeviceError (a choice or dtype the kernel does not have).
bool rejects(const kern::MlaKernelChoice& choice, int heads, attn::DType dt) {
  std::vector<float> q(std::size_t(heads) * kDk), kv(16 * kDk), out(std::size_t(heads) * kDl);
  attn::MlaDecodeShape s;
  s.batch = 1;
  s.seq = 16;
  s.heads = heads;
  s.latent_dim = kDl;
  s.rope_dim = kDr;
  try {
    kern::gpu_decode_mla_with(s, q.data(), kv.data(), nullptr, out.data(), dt, &choice);
  } catch (const attn::DeviceError&) {
    return true;
  }
  return false;
}

}  // namespace

TEST_CASE("gpu MLA decode matches the float64 reference on awkward shapes (bf16)", "[gpu][mla]") {
  if (!have_gpu()) return;
  std::uint32_t seed = 20261202;
  for (int h : {1, 3, 16, 63, 128})
    for (std::int64_t sq : {1, 54, 97, 4096}) {
      const std::int64_t b = sq >= 4096 && h >= 63 ? 2 : 3;
      check_case({b, sq, h, attn::DType::kBf16, true}, seed++);
    }
  check_case({2, 97, 16, attn::DType::kBf16, false}, seed++);
}

TEST_CASE("gpu MLA decode with a long sequence and small batch splits the KV (bf16)",
          "[gpu][mla]") {
  if (!have_gpu()) return;
  check_case({1, 70000, 16, attn::DType::kBf16, false}, 7001);
  check_case({4, 70000, 9, attn::DType::kBf16, true}, 7002);
}

TEST_CASE("gpu MLA decode matches the reference with fp16 inputs", "[gpu][mla]") {
  if (!have_gpu()) return;
  std::uint32_t seed = 16001;
  for (int h : {3, 16, 128})
    for (std::int64_t sq : {54, 4096}) check_case({3, sq, h, attn::DType::kFp16, true}, seed++);
}

TEST_CASE("gpu MLA decode matches the reference with an fp8 e4m3 cache", "[gpu][mla]") {
  if (!have_gpu()) return;
  std::uint32_t seed = 8001;
  for (int h : {1, 16, 63, 128})
    for (std::int64_t sq : {1, 97, 4096}) check_case({3, sq, h, attn::DType::kFp8, true}, seed++);
  check_case({2, 70000, 16, attn::DType::kFp8, true}, seed++);
}

TEST_CASE("every MLA kernel variant, split count and combine matches the reference", "[gpu][mla]") {
  if (!have_gpu()) return;
  const kern::MlaKernelChoice tiles[] = {{1, 32, 1, 0}, {1, 32, 2, 0}, {1, 32, 3, 0}, {1, 64, 2, 0},
                                         {2, 32, 1, 0}, {2, 32, 2, 0}, {2, 64, 2, 0}};
  std::uint32_t seed = 31001;
  for (const kern::MlaKernelChoice& t : tiles) {
    for (int splits : {1, 7}) {
      for (int combine : {1, 2}) {
        if (splits == 1 && combine == 2) continue;  // no combine runs
        kern::MlaKernelChoice c = t;
        c.splits = splits;
        c.combine = combine;
        check_case({3, 1000, 63, attn::DType::kBf16, true}, seed++, &c);
        check_case({2, 300, 9, attn::DType::kFp16, true}, seed++, &c);
        for (bool f16 : {false, true}) {
          c.fp8_fp16 = f16;
          check_case({3, 777, 16, attn::DType::kFp8, true}, seed++, &c);
        }
      }
    }
  }
}

TEST_CASE("gpu MLA decode reports unsupported inputs as errors", "[gpu][mla]") {
  if (!have_gpu()) return;
  attn::MlaDecodeShape s;
  s.batch = 1;
  s.seq = 4;
  s.heads = 2;
  std::vector<float> q(2 * kDk, 0.5f), kv(4 * kDk, 0.25f), out(2 * kDl);
  CHECK_THROWS_AS(
      kern::gpu_decode_mla(s, q.data(), kv.data(), nullptr, out.data(), attn::DType::kFp32),
      attn::DeviceError);
  s.latent_dim = 256;  // the kernel is built for Dl = 512, Dr = 64
  CHECK_THROWS_AS(
      kern::gpu_decode_mla(s, q.data(), kv.data(), nullptr, out.data(), attn::DType::kBf16),
      attn::DeviceError);
  s.latent_dim = 512;
  const std::int64_t too_long[1] = {5};
  CHECK_THROWS_AS(
      kern::gpu_decode_mla(s, q.data(), kv.data(), too_long, out.data(), attn::DType::kBf16),
      attn::InputError);
}

TEST_CASE("MLA v3 and v4 (a pipeline per warp): every tile, dtype, split count and shape matches",
          "[gpu][mla]") {
  if (!have_gpu()) return;
  struct Tile {
    int version, block_n, stages;
    bool fp8;
  };
  const Tile tiles[] = {{3, 16, 2, false}, {3, 16, 3, false}, {3, 32, 2, false}, {3, 32, 2, true},
                        {3, 32, 3, true},  {3, 64, 2, true},  {4, 32, 2, false}, {4, 64, 2, false},
                        {4, 32, 2, true},  {4, 64, 2, true}};
  std::uint32_t seed = 33001;
  for (const Tile& t : tiles) {
    kern::MlaKernelChoice c = choice(t.version, 1, t.block_n, t.stages);
    for_each_split(c, [&](const kern::MlaKernelChoice& v) {
      if (t.fp8) {
        check_case({3, 777, 16, attn::DType::kFp8, true}, seed++, &v);
        check_case({2, 97, 63, attn::DType::kFp8, true}, seed++, &v);
        check_case({2, 1, 3, attn::DType::kFp8, true}, seed++, &v);
      } else {
        check_case({3, 1000, 63, attn::DType::kBf16, true}, seed++, &v);
        check_case({2, 300, 9, attn::DType::kFp16, true}, seed++, &v);
        check_case({4, 54, 1, attn::DType::kBf16, true}, seed++, &v);
      }
    });
    c.splits = 0;
    c.combine = 2;
    const attn::DType dt = t.fp8 ? attn::DType::kFp8 : attn::DType::kBf16;
    check_case({2, 4096, 128, dt, true}, seed++, &c);
    check_case({1, 70000, 16, dt, false}, seed++, &c);
  }
  kern::MlaKernelChoice bad;
  bad.version = 3;
  bad.head_groups = 2;
  CHECK(rejects(bad, 16, attn::DType::kBf16));
}

TEST_CASE("MLA v5 (64 heads a CTA on wgmma): dtypes, split counts, head counts and shapes match",
          "[gpu][mla]") {
  if (!have_gpu()) return;
  if (!kern::mla_version_available(5)) {
    WARN("MLA v5 skipped: it needs an sm_90a build and a compute capability 9.0 GPU");
    return;
  }
  kern::MlaKernelChoice c = choice(5, 4, 64, 2);
  std::uint32_t seed = 35001;
  for_each_split(c, [&](const kern::MlaKernelChoice& v) {
    check_case({3, 1000, 63, attn::DType::kBf16, true}, seed++, &v);  // a padding row
    check_case({2, 300, 64, attn::DType::kFp16, true}, seed++, &v);
    check_case({2, 97, 128, attn::DType::kBf16, true}, seed++, &v);  // two head tiles
    check_case({4, 54, 9, attn::DType::kBf16, true}, seed++, &v);    // 55 padding rows
    check_case({2, 1, 65, attn::DType::kFp16, false}, seed++, &v);   // S = 1, a 1-head tile
  });
  c.splits = 0;
  c.combine = 2;
  check_case({2, 4096, 128, attn::DType::kBf16, true}, seed++, &c);
  check_case({1, 70000, 64, attn::DType::kBf16, false}, seed++, &c);
  kern::MlaKernelChoice bad = c;
  bad.block_n = 32;  // v5 has one tile
  CHECK(rejects(bad, 64, attn::DType::kBf16));
  CHECK(rejects(c, 64, attn::DType::kFp8));  // 16-bit caches only
}

TEST_CASE(
    "MLA v6 (16 heads a CTA on wgmma, tokens as rows): tiles, dtypes, splits and shapes match",
    "[gpu][mla]") {
  if (!have_gpu()) return;
  if (!kern::mla_version_available(6)) {
    WARN("MLA v6 skipped: it needs an sm_90a build and a compute capability 9.0 GPU");
    return;
  }
  struct Tile {
    int block_n, stages;
  };
  const Tile tiles[] = {{64, 2}, {48, 3}, {32, 2}, {32, 4}};
  std::uint32_t seed = 36001;
  for (const Tile& t : tiles) {
    kern::MlaKernelChoice c = choice(6, 1, t.block_n, t.stages);
    for_each_split(c, [&](const kern::MlaKernelChoice& v) {
      check_case({3, 1000, 16, attn::DType::kBf16, true}, seed++, &v);  // ragged, a zero len
      check_case({2, 97, 9, attn::DType::kFp16, true}, seed++, &v);     // 7 padding heads
      check_case({4, 54, 1, attn::DType::kBf16, true}, seed++, &v);
      check_case({2, 49, 17, attn::DType::kBf16, false}, seed++, &v);  // two head tiles
      check_case({2, 1, 3, attn::DType::kFp16, false}, seed++, &v);    // S = 1
    });
    c.splits = 0;
    c.combine = 2;
    check_case({2, 4096, 16, attn::DType::kBf16, true}, seed++, &c);
    check_case({1, 70000, 16, attn::DType::kBf16, false}, seed++, &c);
  }
  kern::MlaKernelChoice bad = choice(6, 1, 16, 2);  // no such tile
  CHECK(rejects(bad, 16, attn::DType::kBf16));
  bad.block_n = 64;
  bad.stages = 2;
  CHECK(rejects(bad, 16, attn::DType::kFp8));  // 16-bit caches only
  bad.head_groups = 2;
  CHECK(rejects(bad, 16, attn::DType::kBf16));
}

TEST_CASE(
    "MLA v7 (fp8 cache on wgmma, e4m3 converted in registers): stages, splits and shapes match",
    "[gpu][mla]") {
  if (!have_gpu()) return;
  if (!kern::mla_version_available(7)) {
    WARN("MLA v7 skipped: it needs an sm_90a build and a compute capability 9.0 GPU");
    return;
  }
  std::uint32_t seed = 37001;
  for (int stages : {2, 3}) {
    kern::MlaKernelChoice c = choice(7, 1, 64, stages);
    for_each_split(c, [&](const kern::MlaKernelChoice& v) {
      check_case({3, 1000, 16, attn::DType::kFp8, true}, seed++, &v);  // ragged, a zero len
      check_case({2, 97, 9, attn::DType::kFp8, true}, seed++, &v);     // 7 padding heads
      check_case({4, 54, 1, attn::DType::kFp8, true}, seed++, &v);
      check_case({2, 49, 17, attn::DType::kFp8, false}, seed++, &v);  // two head tiles
      check_case({2, 1, 3, attn::DType::kFp8, false}, seed++, &v);    // S = 1
      check_case({1, 130, 63, attn::DType::kFp8, true}, seed++, &v);  // 4 head tiles, 1 short
    });
    c.splits = 0;
    c.combine = 2;
    check_case({2, 4096, 16, attn::DType::kFp8, true}, seed++, &c);
    check_case({1, 70000, 16, attn::DType::kFp8, false}, seed++, &c);
    check_case({1, 300, 128, attn::DType::kFp8, true}, seed++, &c);
  }
  kern::MlaKernelChoice bad = choice(7, 1, 32, 2);  // no such tile
  CHECK(rejects(bad, 16, attn::DType::kFp8));
  bad.block_n = 64;
  CHECK(rejects(bad, 16, attn::DType::kBf16));  // fp8 caches only
  bad.head_groups = 2;
  CHECK(rejects(bad, 16, attn::DType::kFp8));
}
