// [gpu] grouped decode (MHA / MQA / GQA / SWA) against the CPU float64 reference on the same
// rounded inputs, for every dtype and awkward shapes: S in {1, 54, 97, 4096, 70000}, Hq in
// {1, 3, 9, 63, 128}, windows 1, 16 and > S, ragged lens with zeros, head dims served by the
// tiled kernel (64, 128, 256) and by the generic one (40, D != Dv).
//
// Tolerance: |gpu - ref| <= 8e-3 + 2e-2 |ref| (GPU MODE's bf16 bound) for bf16, fp16 and fp8
// alike. The reference is fed exactly the values the device stores (bf16/fp16 rounding; fp8:
// e4m3 of x / scale, times scale), so the only differences left are float32 accumulation and
// exp2f over at most 70000 keys (~1e-5), and in v3-v6 (matrix units) the probabilities rounded to
// bf16 or fp16 before P V (relative 2^-9 per weight, well inside 2e-2). A separate check bounds fp8
// against the unrounded inputs: e4m3 keeps 3 mantissa bits (relative step 2^-3, rounding error <=
// 2^-4 relative), so scores move by about D * |q| * |k| * 2^-4 * scale / sqrt(D) ~ 0.25 in the
// worst case and outputs, convex combinations of values with error <= 2^-4 * max|v|, stay within
// 0.15 of the float64 truth on these unit-scale inputs. Device outputs are poisoned with NaN before
// every launch (gpu_decode_grouped), and NaN never passes the comparison.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "attention/dtype.h"
#include "attention/error.h"
#include "attention/reference.h"
#include "kernels/bench.h"
#include "kernels/bench_gpu.h"
#include "kernels/gpu.h"
#include "kernels/grouped_launch.h"

namespace {

struct Case {
  std::int64_t b, s;
  int hq, hkv, d, dv, w;
  bool ragged;  // lens drawn in 0..S with at least one zero
};

std::vector<float> uniform(std::mt19937_64& rng, std::size_t n, float amp) {
  std::uniform_real_distribution<float> dist(-amp, amp);
  std::vector<float> x(n);
  for (auto& e : x) e = dist(rng);
  return x;
}

std::vector<float> rounded(attn::DType dt, const std::vector<float>& x, bool is_query) {
  std::vector<float> r(x.size());
  if (dt == attn::DType::kFp8 && !is_query) {
    float amax = 0;
    for (float e : x) amax = std::max(amax, std::fabs(e));
    const float sc = attn::e4m3_scale_for(amax);
    for (std::size_t i = 0; i < x.size(); ++i) r[i] = attn::round_to_e4m3(x[i], sc);
  } else if (dt == attn::DType::kFp16) {
    for (std::size_t i = 0; i < x.size(); ++i) r[i] = attn::round_to_fp16(x[i]);
  } else {
    for (std::size_t i = 0; i < x.size(); ++i) r[i] = attn::round_to_bf16(x[i]);
  }
  return r;
}

// Runs one case on the GPU and the reference; returns the max abs error, failing the test on
// the first element outside atol + rtol |ref| (NaN included).
double run_case(const Case& c, attn::DType dt, std::uint64_t seed, double atol, double rtol,
                bool against_unrounded = false, int launches = 1) {
  std::mt19937_64 rng(seed);
  attn::GroupedDecodeShape s;
  s.batch = c.b;
  s.seq = c.s;
  s.q_heads = c.hq;
  s.kv_heads = c.hkv;
  s.head_dim = c.d;
  s.value_dim = c.dv;
  s.window = c.w;
  const std::size_t nq = std::size_t(c.b) * c.hq * c.d;
  const std::size_t nk = std::size_t(c.b) * c.s * c.hkv * c.d;
  const std::size_t nv = std::size_t(c.b) * c.s * c.hkv * c.dv;
  const std::size_t no = std::size_t(c.b) * c.hq * c.dv;
  const auto q = uniform(rng, nq, 1.7f), k = uniform(rng, nk, 1.7f), v = uniform(rng, nv, 1.0f);
  std::vector<std::int64_t> lens;
  if (c.ragged) {
    std::uniform_int_distribution<std::int64_t> len(0, c.s);
    for (std::int64_t b = 0; b < c.b; ++b) lens.push_back(b == 0 ? 0 : len(rng));
  }
  const std::int64_t* lp = lens.empty() ? nullptr : lens.data();
  std::vector<float> out(no, std::numeric_limits<float>::quiet_NaN());
  kern::gpu_decode_grouped(s, q.data(), k.data(), v.data(), lp, out.data(), dt, launches);
  std::vector<double> ref(no);
  if (against_unrounded) {
    attn::decode_grouped<double>(s, q.data(), k.data(), v.data(), lp, ref.data(), 0);
  } else {
    const auto qr = rounded(dt, q, true), kr = rounded(dt, k, false), vr = rounded(dt, v, false);
    attn::decode_grouped<double>(s, qr.data(), kr.data(), vr.data(), lp, ref.data(), 0);
  }
  double worst = 0;
  for (std::size_t i = 0; i < no; ++i) {
    const double d = std::fabs(double(out[i]) - ref[i]);
    if (!(d <= atol + rtol * std::fabs(ref[i]))) {
      INFO("element " << i << ": gpu " << out[i] << ", reference " << ref[i]);
      REQUIRE(d <= atol + rtol * std::fabs(ref[i]));
    }
    worst = std::max(worst, d);
  }
  return worst;
}

const char* dt_name(attn::DType dt) { return attn::dtype_name(dt).data(); }

}  // namespace

TEST_CASE("gpu grouped decode matches the float64 reference on awkward shapes", "[gpu]") {
  // {B, S, Hq, Hkv, D, Dv, W, ragged}
  const std::vector<Case> cases = {
      {1, 1, 1, 1, 128, 128, 0, false},         // MHA, one key
      {3, 54, 3, 3, 128, 128, 0, true},         // MHA, ragged with a zero
      {2, 97, 9, 3, 64, 64, 0, true},           // GQA G=3
      {2, 97, 63, 1, 128, 128, 16, false},      // MQA G=63 (two head slices), window 16
      {1, 4096, 128, 8, 128, 128, 0, false},    // GQA G=16, split-KV
      {2, 4096, 32, 8, 128, 128, 1, true},      // SWA window 1
      {1, 70000, 9, 9, 128, 128, 0, false},     // MHA long, many splits
      {2, 70000, 32, 8, 128, 128, 4096, true},  // SWA range inside a long cache
      {2, 54, 3, 1, 256, 256, 100, true},       // window > S, D 256
      {4, 97, 128, 128, 64, 64, 0, true},       // MHA 128 heads
      {2, 97, 9, 3, 40, 40, 0, true},           // generic kernel: D 40
      {2, 54, 4, 2, 128, 64, 16, true},         // generic kernel: D != Dv
  };
  const std::uint64_t seed = 0x5eed0003;
  // Every kernel version on every case: 6 (the matrix_ops.h kernel AMD runs), 4 (mma + cp.async
  // pipeline) and 3 (mma), where built; 2 (tiled), 1 (generic). The version is capped through
  // the environment variable the plan reads.
  for (const char* version : {"6", "4", "3", "2", "1"}) {
    setenv("ATTNLAB_GROUPED_VERSION", version, 1);
    for (attn::DType dt : {attn::DType::kBf16, attn::DType::kFp16, attn::DType::kFp8}) {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        INFO("version cap " << version << " seed " << seed + i << " dtype " << dt_name(dt) << " B "
                            << c.b << " S " << c.s << " Hq " << c.hq << " Hkv " << c.hkv << " D "
                            << c.d << " Dv " << c.dv << " W " << c.w << " ragged " << c.ragged);
        const double err = run_case(c, dt, seed + i, 8e-3, 2e-2);
        CHECK(err < 8e-3);
      }
    }
  }
  unsetenv("ATTNLAB_GROUPED_VERSION");
}

TEST_CASE(
    "gpu split-KV: the fused and the separate combine match the reference at every split count",
    "[gpu]") {
  // {B, S, Hq, Hkv, D, Dv, W, ragged}: ragged lens with a zero (empty splits), a window, G = 32
  // (two head slices), G = 1, D 64, more splits than keys.
  const std::vector<Case> cases = {
      {3, 4096, 32, 8, 128, 128, 0, true},   {2, 3000, 32, 1, 128, 128, 0, true},
      {2, 5000, 16, 16, 64, 64, 1000, true}, {1, 97, 8, 2, 128, 128, 0, false},
      {3, 777, 9, 3, 64, 64, 0, true},  // 27 rows, G = 3
      {2, 500, 4, 2, 18, 18, 0, true},  // Dv % 4 != 0: the combine's one-value-a-thread path
  };
  const std::uint64_t seed = 0x5eed0203;
  for (const char* combine : {"1", "2"}) {
    setenv("ATTNLAB_GROUPED_COMBINE", combine, 1);
    for (const char* splits : {"2", "3", "7", "16", "33", "64", "200"}) {
      setenv("ATTNLAB_GROUPED_SPLITS", splits, 1);
      for (attn::DType dt : {attn::DType::kBf16, attn::DType::kFp16}) {
        for (std::size_t i = 0; i < cases.size(); ++i) {
          const Case& c = cases[i];
          INFO("combine " << combine << " splits " << splits << " seed " << seed + i << " dtype "
                          << dt_name(dt) << " B " << c.b << " S " << c.s << " Hq " << c.hq
                          << " Hkv " << c.hkv << " D " << c.d << " W " << c.w);
          CHECK(run_case(c, dt, seed + i, 8e-3, 2e-2) < 8e-3);
        }
      }
    }
  }
  unsetenv("ATTNLAB_GROUPED_SPLITS");
  unsetenv("ATTNLAB_GROUPED_COMBINE");
}

TEST_CASE(
    "gpu v4 pipeline: every stage count, step length and 32-head layout matches the reference",
    "[gpu]") {
  // {B, S, Hq, Hkv, D, Dv, W, ragged}: keys that leave partial 16-key blocks and warps with
  // nothing to do (S 1, 54), pipelines deeper than a warp's walk and much shallower (70000),
  // one m-tile (G <= 16) and two (G 17..32: 24 with 8 padding rows, 32), D 64 and 128.
  const std::vector<Case> cases = {
      {3, 1, 32, 8, 128, 128, 0, true},    {2, 54, 24, 1, 128, 128, 0, true},
      {2, 4096, 32, 1, 128, 128, 0, true}, {1, 70000, 32, 1, 64, 64, 0, false},
      {2, 97, 48, 2, 64, 64, 16, true},    {1, 70000, 16, 2, 128, 128, 3000, false},
  };
  // G > 16 runs both 32-head layouts: two m-tiles in one warp (mt2) and two warps sharing a
  // pipeline (wt2); G <= 16 takes neither, so it runs once. Steps of 32 keys (D 128 with one
  // m-tile a warp, 2-3 stages; other shapes fall back to 16) run wt2 and G <= 16.
  const std::uint64_t seed = 0x5eed0403;
  setenv("ATTNLAB_GROUPED_VERSION", "4", 1);
  const std::pair<const char*, const char*> runs[] = {{"16", "mt2"}, {"16", "wt2"}, {"32", "wt2"}};
  for (const auto& [keys, layout] : runs) {
    setenv("ATTNLAB_GROUPED_KEYS", keys, 1);
    setenv("ATTNLAB_GROUPED_LAYOUT", layout, 1);
    for (const char* stages : {"2", "3", "4"}) {
      if (std::string(keys) == "32" && std::string(stages) == "4") continue;
      setenv("ATTNLAB_GROUPED_STAGES", stages, 1);
      for (attn::DType dt : {attn::DType::kBf16, attn::DType::kFp16}) {
        for (std::size_t i = 0; i < cases.size(); ++i) {
          const Case& c = cases[i];
          // G <= 16 ignores the layout: run it once per step length (with mt2 for 16 keys)
          if (std::string(layout) == "wt2" && c.hq / c.hkv <= 16 && std::string(keys) == "16")
            continue;
          INFO("keys " << keys << " layout " << layout << " stages " << stages << " seed "
                       << seed + i << " dtype " << dt_name(dt) << " B " << c.b << " S " << c.s
                       << " Hq " << c.hq << " Hkv " << c.hkv << " D " << c.d << " W " << c.w);
          CHECK(run_case(c, dt, seed + i, 8e-3, 2e-2) < 8e-3);
        }
      }
    }
  }
  unsetenv("ATTNLAB_GROUPED_KEYS");
  unsetenv("ATTNLAB_GROUPED_LAYOUT");
  unsetenv("ATTNLAB_GROUPED_STAGES");
  unsetenv("ATTNLAB_GROUPED_VERSION");
}

TEST_CASE(
    "gpu v6 (the AMD matrix-unit kernel, here on mma.sync): splits, combines and head counts "
    "match",
    "[gpu]") {
  // {B, S, Hq, Hkv, D, Dv, W, ragged}: G 1, 3, 16, 24 (two slices, 8 padding rows) and 63;
  // keys that leave partial 16-key blocks and warps with nothing to walk (S 1, 54, 97), a
  // window inside a long cache, D 64 and 128, ragged lens with a zero.
  const std::vector<Case> cases = {
      {3, 1, 8, 8, 128, 128, 0, true},      {2, 54, 24, 1, 128, 128, 0, true},
      {2, 97, 9, 3, 64, 64, 16, true},      {1, 4096, 128, 8, 128, 128, 0, false},
      {2, 5000, 63, 1, 64, 64, 1000, true}, {1, 70000, 32, 8, 128, 128, 0, false},
  };
  setenv("ATTNLAB_GROUPED_VERSION", "6", 1);
  kern::GroupedDeviceArgs probe;
  probe.batch = 1;
  probe.seq = 64;
  probe.q_heads = probe.kv_heads = 1;
  probe.head_dim = probe.value_dim = 128;
  probe.scale = 1.0f;
  REQUIRE(kern::grouped_plan(probe).version == 6);
  const std::uint64_t seed = 0x5eed0606;
  for (const char* splits : {"0", "1", "3", "33"}) {
    setenv("ATTNLAB_GROUPED_SPLITS", splits, 1);
    for (const char* combine : {"1", "2"}) {
      setenv("ATTNLAB_GROUPED_COMBINE", combine, 1);
      for (attn::DType dt : {attn::DType::kBf16, attn::DType::kFp16}) {
        for (std::size_t i = 0; i < cases.size(); ++i) {
          const Case& c = cases[i];
          INFO("splits " << splits << " combine " << combine << " seed " << seed + i << " dtype "
                         << dt_name(dt) << " B " << c.b << " S " << c.s << " Hq " << c.hq << " Hkv "
                         << c.hkv << " D " << c.d << " W " << c.w);
          CHECK(run_case(c, dt, seed + i, 8e-3, 2e-2, false, 2) < 8e-3);
        }
      }
    }
  }
  unsetenv("ATTNLAB_GROUPED_COMBINE");
  unsetenv("ATTNLAB_GROUPED_SPLITS");
  unsetenv("ATTNLAB_GROUPED_VERSION");
}

TEST_CASE("gpu v5 (wgmma, 64 heads a CTA): stages, splits, combines and head counts match",
          "[gpu]") {
  // {B, S, Hq, Hkv, D, Dv, W, ragged}: G 4, 24, 32, 63 (one padding row), 64 and 128 (two
  // slices); keys that leave partial 64-key blocks, a window, and S longer than every pipeline.
  const std::vector<Case> cases = {
      {3, 1, 32, 8, 128, 128, 0, true},       {2, 54, 24, 1, 128, 128, 0, true},
      {2, 4096, 32, 1, 128, 128, 0, true},    {2, 97, 126, 2, 128, 128, 16, true},
      {1, 3000, 64, 1, 128, 128, 0, false},   {1, 70000, 128, 1, 128, 128, 0, false},
      {2, 5000, 32, 8, 128, 128, 1000, true},
  };
  setenv("ATTNLAB_GROUPED_VERSION", "5", 1);
  kern::GroupedDeviceArgs probe;
  probe.batch = 1;
  probe.seq = 64;
  probe.q_heads = probe.kv_heads = 1;
  probe.head_dim = probe.value_dim = 128;
  probe.scale = 1.0f;
  if (kern::grouped_plan(probe).version != 5) {
    unsetenv("ATTNLAB_GROUPED_VERSION");
    WARN("grouped v5 skipped: it needs an sm_90a build and a compute capability 9.0 GPU");
    return;
  }
  const std::uint64_t seed = 0x5eed0805;
  // Every split count x combine (combine 2 needs a split) x dtype x case, under the
  // environment the caller set; `launches` runs on one workspace each.
  auto sweep = [&](const std::string& label, const std::vector<const char*>& split_counts,
                   std::uint64_t seed0, int launches) {
    for (const char* splits : split_counts) {
      setenv("ATTNLAB_GROUPED_SPLITS", splits, 1);
      for (const char* combine : {"1", "2"}) {
        if (std::string(splits) == "1" && std::string(combine) == "2") continue;
        setenv("ATTNLAB_GROUPED_COMBINE", combine, 1);
        for (attn::DType dt : {attn::DType::kBf16, attn::DType::kFp16}) {
          for (std::size_t i = 0; i < cases.size(); ++i) {
            const Case& c = cases[i];
            INFO(label << ", splits " << splits << " combine " << combine << " seed " << seed0 + i
                       << " dtype " << dt_name(dt) << " B " << c.b << " S " << c.s << " Hq " << c.hq
                       << " Hkv " << c.hkv << " W " << c.w);
            CHECK(run_case(c, dt, seed0 + i, 8e-3, 2e-2, false, launches) < 8e-3);
          }
        }
      }
    }
    unsetenv("ATTNLAB_GROUPED_COMBINE");
    unsetenv("ATTNLAB_GROUPED_SPLITS");
  };
  for (const char* stages : {"3", "4", "6"}) {
    setenv("ATTNLAB_GROUPED_STAGES", stages, 1);
    sweep(std::string("stages ") + stages, {"0", "1", "7"}, seed, 1);
  }
  // The cluster merge (combine 3, diagnostic builds; elsewhere the plan's combines run): the
  // splits of a group as one thread-block cluster, merged through distributed shared memory; 2-8
  // splits are portable clusters, 16 needs the non-portable size, 5 leaves ranks with unequal row
  // counts. Cases it cannot take (two head slices, more than 16 splits) fall back to the plan's
  // other combines and must match too.
  setenv("ATTNLAB_GROUPED_COMBINE", "3", 1);
  for (const char* stages : {"3", "4"}) {
    setenv("ATTNLAB_GROUPED_STAGES", stages, 1);
    for (const char* splits : {"0", "2", "5", "8", "16"}) {
      setenv("ATTNLAB_GROUPED_SPLITS", splits, 1);
      for (attn::DType dt : {attn::DType::kBf16, attn::DType::kFp16}) {
        for (std::size_t i = 0; i < cases.size(); ++i) {
          const Case& c = cases[i];
          INFO("cluster merge, stages " << stages << " splits " << splits << " seed "
                                        << seed + 200 + i << " dtype " << dt_name(dt) << " B "
                                        << c.b << " S " << c.s << " Hq " << c.hq << " Hkv " << c.hkv
                                        << " W " << c.w);
          CHECK(run_case(c, dt, seed + 200 + i, 8e-3, 2e-2, false, 2) < 8e-3);
        }
      }
    }
  }
#if defined(ATTNLAB_KERNEL_DIAG)  // the cluster merge exists only in diagnostic builds
  {
    kern::GroupedDeviceArgs m = probe;  // MQA-like: one slice of 32 heads, 8 splits
    m.batch = 2;
    m.seq = 4096;
    m.q_heads = 32;
    m.kv_heads = 1;
    setenv("ATTNLAB_GROUPED_STAGES", "3", 1);
    setenv("ATTNLAB_GROUPED_SPLITS", "8", 1);
    const kern::GroupedPlan pl = kern::grouped_plan(m);
    CHECK(pl.cluster == 8);
    CHECK(!pl.fused_combine);
    m.q_heads = 128;  // two slices: no cluster
    CHECK(kern::grouped_plan(m).cluster == 0);
  }
#endif
  unsetenv("ATTNLAB_GROUPED_SPLITS");
  unsetenv("ATTNLAB_GROUPED_COMBINE");
  unsetenv("ATTNLAB_GROUPED_STAGES");
  // Two warpgroups a CTA (alternate blocks, merged in the CTA): S 1 leaves the second
  // warpgroup without a block, odd block counts give it one fewer. With splits, the separate
  // combine or (combine 2) the last CTA of a group merging the others' partials in its
  // registers; three launches on one workspace each: its counters must be zero again for the
  // next launch.
  setenv("ATTNLAB_GROUPED_WGS", "2", 1);
  sweep("two warpgroups", {"0", "1", "2", "7"}, seed + 100, 3);
  unsetenv("ATTNLAB_GROUPED_WGS");
  // The plan's own choice for MQA B64 S8192 on a 124-132 SM part: two warpgroups, 2 splits
  // merged in registers; checked at a smaller S with the same plan rule (keys >= 2048).
  probe.batch = 64;
  probe.seq = 8192;
  probe.q_heads = 32;
  probe.kv_heads = 1;
  const kern::GroupedPlan mqa = kern::grouped_plan(probe);
  const kern::DeviceInfo dev = kern::query_device();
  if (dev.multiprocessors >= 124 && dev.multiprocessors <= 132) {
    CHECK(mqa.warpgroups == 2);
    CHECK(mqa.splits == 2);
    CHECK(mqa.fused_combine);
  }
  for (attn::DType dt : {attn::DType::kBf16, attn::DType::kFp16}) {
    const Case c{64, 2100, 32, 1, 128, 128, 0, true};
    INFO("MQA B64 S2100 as planned, seed " << seed + 300 << " dtype " << dt_name(dt));
    CHECK(run_case(c, dt, seed + 300, 8e-3, 2e-2, false, 3) < 8e-3);
  }
  unsetenv("ATTNLAB_GROUPED_VERSION");
}

TEST_CASE("gpu fp8 KV stays within the e4m3 bound of the unrounded truth", "[gpu]") {
  const std::uint64_t seed = 0x5eed0103;
  INFO("seed " << seed);
  const Case c{2, 4096, 32, 8, 128, 128, 0, true};
  run_case(c, attn::DType::kFp8, seed, 0.15, 0.0, true);
}

TEST_CASE("gpu zero-length sequences give zeros and a window of 1 gives the last value", "[gpu]") {
  const std::uint64_t seed = 0x5eed0203;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  attn::GroupedDecodeShape s;
  s.batch = 3;
  s.seq = 97;
  s.q_heads = 8;
  s.kv_heads = 2;
  s.head_dim = s.value_dim = 128;
  s.window = 1;
  const auto q = uniform(rng, 3 * 8 * 128, 1.7f);
  const auto k = uniform(rng, 3 * 97 * 2 * 128, 1.7f);
  const auto v = rounded(attn::DType::kBf16, uniform(rng, 3 * 97 * 2 * 128, 1.0f), false);
  const std::vector<std::int64_t> lens = {0, 97, 5};
  std::vector<float> out(3 * 8 * 128, std::numeric_limits<float>::quiet_NaN());
  kern::gpu_decode_grouped(s, q.data(), k.data(), v.data(), lens.data(), out.data(),
                           attn::DType::kBf16);
  for (int h = 0; h < 8; ++h)
    for (int d = 0; d < 128; ++d) {
      REQUIRE(out[(0 * 8 + h) * 128 + d] == 0.0f);
      // window 1: the softmax over one key is 1, so the output is that key's value row
      const std::int64_t last = lens[2] - 1;
      REQUIRE(out[(2 * 8 + h) * 128 + d] == v[((2 * 97 + last) * 2 + h / 4) * 128 + d]);
    }
}

TEST_CASE("gpu errors are reported, not crashes", "[gpu]") {
  SECTION("a bench case bigger than the card is an out-of-memory error of that case") {
    kern::BenchCase c;
    c.variant = attn::Variant::kMha;
    c.batch = 4096;
    c.seq = 131072;
    c.q_heads = c.kv_heads = 64;
    c.head_dim = 128;
    kern::BenchOptions opt;
    opt.device = kern::BenchDevice::kGpu;
    const kern::BenchResult r = kern::gpu_bench_case(c, opt);
    INFO(r.error);
    CHECK(r.error.find("out of memory") != std::string::npos);
    CHECK_FALSE(r.checked);
  }
  SECTION("lens outside 0..S are an input error") {
    attn::GroupedDecodeShape s;
    s.seq = 4;
    s.head_dim = s.value_dim = 128;
    std::vector<float> q(128, 0.5f), k(4 * 128, 0.5f), v(4 * 128, 0.5f), out(128);
    const std::int64_t lens[1] = {5};
    CHECK_THROWS_AS(kern::gpu_decode_grouped(s, q.data(), k.data(), v.data(), lens, out.data(),
                                             attn::DType::kBf16),
                    attn::InputError);
  }
}

TEST_CASE("gpu read probe measures a positive bandwidth", "[gpu]") {
  const double gbps = kern::gpu_read_probe_gbps();
  std::printf("read probe: %.0f GB/s\n", gbps);
  CHECK(gbps > 10.0);
}

TEST_CASE("gpu bench times a step alone and back to back in a graph", "[gpu]") {
  // An empty kernel: inside a graph of many steps each costs the gap between two kernels
  // (~1 us on an H200), alone the whole graph launch between two events (~3 us).
  const kern::GpuTiming empty = kern::gpu_launch_floor();
  std::printf("empty kernel: %.2f us alone, %.2f us a step in a graph\n", empty.single_us,
              empty.step_us);
  CHECK(empty.step_us > 0.0);
  CHECK(empty.step_us < empty.single_us);
  kern::BenchCase c;
  c.variant = attn::Variant::kGqa;
  c.batch = 3;
  c.seq = 777;
  c.q_heads = 12;
  c.kv_heads = 4;
  c.head_dim = 128;
  kern::BenchOptions opt;
  opt.device = kern::BenchDevice::kGpu;
  opt.min_seconds = 0.02;
  const kern::BenchResult r = kern::gpu_bench_case(c, opt);
  INFO(r.error);
  REQUIRE(r.error.empty());
  CHECK(r.checked);
  CHECK(r.steps >= 8);
  CHECK(std::isfinite(r.step_us));
  CHECK(r.step_us > 0.0);
  CHECK(r.step_us <= r.max_us);
}
