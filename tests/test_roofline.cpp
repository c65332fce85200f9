// Roofline maths (attention/roofline.h) and the GPU spec sheet (assets/gpus.json).
#include <catch2/catch.hpp>

#include <random>

#include "attention/error.h"
#include "attention/roofline.h"

using Catch::Detail::Approx;

TEST_CASE("gpus.json: the datasheet GPUs are there with their published figures", "[roofline]") {
  const auto& gpus = attn::gpu_specs();
  REQUIRE(gpus.size() >= 4);
  for (const char* name : {"H200", "H100", "MI300X", "MI355X"}) {
    INFO(name);
    const attn::GpuSpec* g = attn::find_gpu(name);
    REQUIRE(g != nullptr);
    CHECK(g->hbm_tbps > 0);
    CHECK(g->bf16_tflops > 0);
    CHECK(g->memory_gb > 0);
    CHECK_FALSE(g->source.empty());
    CHECK((g->vendor == "amd" || g->vendor == "nvidia"));
  }
  const attn::GpuSpec* mi = attn::find_gpu("mi355x");  // case-insensitive
  REQUIRE(mi != nullptr);
  CHECK(mi->memory_gb == 288);
  CHECK(mi->hbm_tbps == 8.0);
  CHECK(mi->bf16_tflops == 2500);
  CHECK(mi->fp8_tflops == 5000);
  CHECK(attn::find_gpu("no-such-gpu") == nullptr);
}

TEST_CASE("roofline: hand-worked ridge and attainable rate", "[roofline]") {
  const attn::GpuSpec* mi = attn::find_gpu("MI355X");
  const attn::GpuSpec* h200 = attn::find_gpu("H200");
  REQUIRE(mi != nullptr);
  REQUIRE(h200 != nullptr);
  // MI355X bf16: 2.5e15 FLOP/s over 8e12 B/s = 312.5 FLOP/B.
  CHECK(mi->ridge_intensity(attn::DType::kBf16) == Approx(312.5));
  // fp8 KV keeps bf16 queries: the same matrix rate, so the same ridge.
  CHECK(mi->ridge_intensity(attn::DType::kFp8) == Approx(312.5));
  // fp32 runs at the FP32 rate: 157.3e12 / 8e12.
  CHECK(mi->ridge_intensity(attn::DType::kFp32) == Approx(19.6625));
  // Below the ridge the slope: 100 FLOP/B * 8e12 B/s = 8e14 FLOP/s; above it the roof.
  CHECK(attn::attainable_flops(*mi, attn::DType::kBf16, 100) == Approx(8e14));
  CHECK(attn::attainable_flops(*mi, attn::DType::kBf16, 1000) == Approx(2.5e15));
  // H200: 989 / 4.8 = 206.04 FLOP/B.
  CHECK(h200->ridge_intensity(attn::DType::kBf16) == Approx(989.0 / 4.8));
}

TEST_CASE("roofline: projected time of a hand-built decode step", "[roofline]") {
  const attn::GpuSpec* h200 = attn::find_gpu("H200");
  REQUIRE(h200 != nullptr);
  // Llama-3-8B layer (Hq 32, Hkv 8, D 128), B 1, S 32768, bf16: the cache read is
  // 2 * 8 * 128 * 2 B * 32768 = 134,217,728 B; FLOPs 2 * 32 * (128 + 128) * 32768 = 536,870,912.
  attn::DecodeCost c;
  c.kv_bytes = 134217728.0;
  c.flops = 536870912.0;
  const attn::RooflineProjection p = attn::project(c, *h200, attn::DType::kBf16);
  CHECK(p.memory_s == Approx(134217728.0 / 4.8e12));   // 27.96 us
  CHECK(p.compute_s == Approx(536870912.0 / 989e12));  // 0.54 us
  CHECK(p.time_s == Approx(p.memory_s));
  CHECK_FALSE(p.compute_bound);
  CHECK(p.intensity == Approx(4.0));
  // The same FLOPs over a tiny cache: compute-bound.
  c.kv_bytes = 1000;
  const attn::RooflineProjection q = attn::project(c, *h200, attn::DType::kBf16);
  CHECK(q.compute_bound);
  CHECK(q.time_s == Approx(536870912.0 / 989e12));
}

TEST_CASE("roofline: where decode stops being memory-bound", "[roofline]") {
  const attn::GpuSpec* h200 = attn::find_gpu("H200");
  const attn::GpuSpec* mi = attn::find_gpu("MI355X");
  REQUIRE(h200 != nullptr);
  REQUIRE(mi != nullptr);
  // Grouped bf16, D = Dv = 128: intensity = 2G / 2 B = G FLOP/B, so G* = the ridge.
  CHECK(attn::compute_bound_group_size(*h200, attn::DType::kBf16, 128, 128, false) ==
        Approx(989.0 / 4.8));
  // MLA bf16 (Dl 512, Dr 64, one shared row of 576): H* = ridge * 2 * 576 / (2 * 1088).
  const double h_star = 312.5 * 2 * 576 / (2.0 * 1088);
  CHECK(attn::compute_bound_group_size(*mi, attn::DType::kBf16, 576, 512, true) ==
        Approx(h_star));  // 165.4: 128 heads stay (just) memory-bound on MI355X
  // fp8 halves the bytes and keeps the rate: half the heads suffice.
  CHECK(attn::compute_bound_group_size(*mi, attn::DType::kFp8, 576, 512, true) ==
        Approx(h_star / 2));
}

TEST_CASE("roofline: properties on random inputs", "[roofline]") {
  const unsigned seed = 20240611u;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> log_u(-2.0, 4.0);
  for (const attn::GpuSpec& g : attn::gpu_specs()) {
    CAPTURE(g.name);
    double prev_i = 0, prev_f = 0;
    std::vector<double> xs;
    for (int i = 0; i < 200; ++i) xs.push_back(std::pow(10.0, log_u(rng)));
    std::sort(xs.begin(), xs.end());
    for (double x : xs) {
      CAPTURE(x);
      const double f = attn::attainable_flops(g, attn::DType::kBf16, x);
      CHECK(f <= g.matrix_flops_per_s(attn::DType::kBf16) * (1 + 1e-12));
      CHECK(f <= x * g.bandwidth_bytes_per_s() * (1 + 1e-12));
      if (prev_i > 0) CHECK(f >= prev_f);  // non-decreasing in intensity
      prev_i = x;
      prev_f = f;
      attn::DecodeCost c;
      c.kv_bytes = std::pow(10.0, 3 + 6 * (log_u(rng) + 2) / 6);
      c.flops = c.kv_bytes * x;
      const attn::RooflineProjection p = attn::project(c, g, attn::DType::kBf16);
      CHECK(p.time_s >= p.memory_s);
      CHECK(p.time_s >= p.compute_s);
      CHECK((p.time_s == p.memory_s || p.time_s == p.compute_s));
      // The projected rate never beats the roof.
      CHECK(p.flops / p.time_s <= f * (1 + 1e-9));
    }
  }
}

TEST_CASE("gpus.json parser: errors name the entry and the field", "[roofline]") {
  const std::string ok = R"({"gpus":[{"name":"X1","hbm_tbps":2,"bf16_tflops":100,
      "memory_gb":10,"source":"test"}]})";
  const auto g = attn::parse_gpu_specs(ok, "t.json");
  REQUIRE(g.size() == 1);
  CHECK(g[0].full_name == "X1");
  CHECK(g[0].ridge_intensity(attn::DType::kBf16) == Approx(50));
  CHECK(g[0].matrix_flops_per_s(attn::DType::kFp32) == 0);  // not given: unknown

  auto msg = [](const std::string& text) {
    try {
      attn::parse_gpu_specs(text, "t.json");
    } catch (const attn::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(msg(R"({"gpus":[{"name":"X1","bf16_tflops":1,"memory_gb":1,"source":"s"}]})"),
             Catch::Contains("t.json") && Catch::Contains("X1") && Catch::Contains("hbm_tbps"));
  CHECK_THAT(msg(R"({"gpus":[{"name":"X1","hbm_tbps":"fast","bf16_tflops":1,"memory_gb":1,
                  "source":"s"}]})"),
             Catch::Contains("hbm_tbps") && Catch::Contains("string"));
  CHECK_THAT(msg(R"({"gpus":[{"name":"X1","hbm_tbps":-1,"bf16_tflops":1,"memory_gb":1,
                  "source":"s"}]})"),
             Catch::Contains("hbm_tbps"));
  CHECK_THAT(msg(R"({"gpus":[{"hbm_tbps":1}]})"),
             Catch::Contains("gpus[0]") && Catch::Contains("name"));
  CHECK_THAT(msg("{not json"), Catch::Contains("t.json") && Catch::Contains("JSON"));
  CHECK_THAT(msg(R"({"gpus":{}})"), Catch::Contains("'gpus' array"));
}

TEST_CASE("roofline: project_decode of a GQA layer and of DeepSeek-style MLA", "[roofline]") {
  const attn::GpuSpec* mi = attn::find_gpu("MI355X");
  REQUIRE(mi != nullptr);
  attn::LayerShape gqa;  // Hq 32, Hkv 8, D 128 (the defaults: Llama-3-8B)
  // B 1, S 32768, bf16: cache 134,217,728 B + q 32*128*2 + o 32*128*2 = 16,384 B.
  const attn::RooflineProjection p = attn::project_decode(gqa, 1, 32768, attn::DType::kBf16, *mi);
  CHECK(p.bytes == Approx(134217728.0 + 16384.0));
  CHECK(p.time_s == Approx((134217728.0 + 16384.0) / 8e12));  // 16.8 us
  CHECK_FALSE(p.compute_bound);

  attn::LayerShape mla;
  mla.variant = attn::Variant::kMla;
  mla.q_heads = 128;
  mla.kv_heads = 1;
  mla.latent_dim = 512;
  mla.rope_dim = 64;
  mla.head_dim = 576;
  mla.value_dim = 512;
  // B 64, S 4096, fp8 cache: bytes ~ 64 * 4096 * 576 = 151 MB; FLOPs 2*64*128*4096*1088 = 73 G.
  const attn::RooflineProjection m = attn::project_decode(mla, 64, 4096, attn::DType::kFp8, *mi);
  CHECK(m.flops == Approx(2.0 * 64 * 128 * 4096 * 1088));
  CHECK(m.compute_bound);  // 128 heads over an fp8 latent pass MI355X's ridge
  CHECK(m.time_s == Approx(m.flops / 2.5e15));
}
