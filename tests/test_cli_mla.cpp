// `attnlab run --variant mla` as the real executable: the absorbed decode against the float64
// definition, storage dtypes (bf16, mxfp4) rounded before it, AMD's packed batches and several
// new tokens a sequence, and their bad inputs. Inputs are drawn from fixed, printed seeds.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "attention/dtype.h"
#include "attention/mxfp4.h"
#include "attention/npy.h"
#include "cli_decode_util.h"
#include "cli_spawn.h"

using cli_test::max_diff;
using cli_test::naive_decode;
using cli_test::Ran;
using cli_test::random_tensor;
using cli_test::run_attnlab;
using cli_test::TempDir;
using cli_test::write_lens;

TEST_CASE("cli: run mla equals the float64 definition, --dtype rounds the inputs", "[cli]") {
  const unsigned seed = 5761;
  CAPTURE(seed);
  std::mt19937 rng(seed);
  TempDir dir;
  const std::int64_t B = 3, S = 54;
  const int H = 9, Dl = 24, Dr = 8;
  attn::TensorF q = random_tensor({B, H, Dl + Dr}, rng);
  attn::TensorF kv = random_tensor({B, S, Dl + Dr}, rng);
  attn::write_npy(dir / "q.npy", q);
  attn::write_npy(dir / "kv.npy", kv);
  const std::vector<std::int64_t> lens = {54, 0, 17};
  write_lens(dir / "lens.npy", lens);
  const Ran r = run_attnlab(
      {"run", "--variant", "mla", "--q", dir / "q.npy", "--kv", dir / "kv.npy", "--latent-dim",
       std::to_string(Dl), "--lens", dir / "lens.npy", "--out", dir / "o.npy"},
      dir);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const attn::TensorF out = attn::read_npy_float(dir / "o.npy");
  CHECK(out.shape == std::vector<std::int64_t>{B, H, Dl});
  CHECK(max_diff(out, naive_decode(q, kv, nullptr, Dl, 0, lens, 1.0 / std::sqrt(Dl + Dr))) < 1e-5);

  // --dtype bf16 on the CPU: the reference runs on bf16-rounded inputs.
  attn::TensorF qb = q, kvb = kv;
  for (float& x : qb.data) x = attn::round_to_bf16(x);
  for (float& x : kvb.data) x = attn::round_to_bf16(x);
  const Ran rb =
      run_attnlab({"run", "--variant", "mla", "--q", dir / "q.npy", "--kv", dir / "kv.npy",
                   "--latent-dim", std::to_string(Dl), "--dtype", "bf16", "--out", dir / "ob.npy"},
                  dir);
  REQUIRE(rb.code == 0);
  const attn::TensorF ob = attn::read_npy_float(dir / "ob.npy");
  CHECK(max_diff(ob, naive_decode(qb, kvb, nullptr, Dl, 0, {}, 1.0 / std::sqrt(Dl + Dr))) < 1e-5);
  CHECK(max_diff(ob, naive_decode(q, kv, nullptr, Dl, 0, {}, 1.0 / std::sqrt(Dl + Dr))) > 1e-6);

  // --dtype mxfp4 on the CPU: the cache in E2M1 blocks of 32 along each token's row (Dl + Dr =
  // 32: one block), q in bf16, then the float64 reference.
  attn::TensorF kvm = kv;
  attn::round_to_mxfp4(kvm.data.data(), static_cast<std::size_t>(B * S), Dl + Dr);
  const Ran rm =
      run_attnlab({"run", "--variant", "mla", "--q", dir / "q.npy", "--kv", dir / "kv.npy",
                   "--latent-dim", std::to_string(Dl), "--dtype", "mxfp4", "--out", dir / "om.npy"},
                  dir);
  INFO(rm.err);
  REQUIRE(rm.code == 0);
  CHECK(rm.out.find("mxfp4") != std::string::npos);
  const attn::TensorF om = attn::read_npy_float(dir / "om.npy");
  CHECK(max_diff(om, naive_decode(qb, kvm, nullptr, Dl, 0, {}, 1.0 / std::sqrt(Dl + Dr))) < 1e-5);
  CHECK(max_diff(om, naive_decode(q, kv, nullptr, Dl, 0, {}, 1.0 / std::sqrt(Dl + Dr))) > 1e-4);
}

TEST_CASE("cli: run mla on packed batches and with several new tokens a sequence", "[cli]") {
  const unsigned seed = 9127;
  CAPTURE(seed);
  std::mt19937 rng(seed);
  TempDir dir;
  const std::int64_t B = 3, S = 54;
  const int H = 4, Dl = 24, Dr = 8, Dk = Dl + Dr;
  const std::vector<std::int64_t> lens = {54, 7, 20};
  attn::TensorF q = random_tensor({B, H, Dk}, rng);
  attn::TensorF kv = random_tensor({B, S, Dk}, rng);
  const double scale = 1.0 / std::sqrt(Dk);
  // AMD's layout: kv [total_kv, 1, Dk] holding each sequence's valid rows back to back.
  attn::TensorF packed({lens[0] + lens[1] + lens[2], 1, Dk});
  std::vector<std::int64_t> kv_indptr = {0}, qo_indptr = {0, 1, 2, 3};
  for (std::int64_t b = 0; b < B; ++b) {
    std::copy_n(kv.data.begin() + b * S * Dk, lens[b] * Dk,
                packed.data.begin() + kv_indptr.back() * Dk);
    kv_indptr.push_back(kv_indptr.back() + lens[b]);
  }
  attn::write_npy(dir / "q.npy", q);
  attn::write_npy(dir / "kv.npy", kv);
  attn::write_npy(dir / "packed.npy", packed);
  write_lens(dir / "qo.npy", qo_indptr);
  write_lens(dir / "kvp.npy", kv_indptr);
  write_lens(dir / "lens.npy", lens);
  const Ran r =
      run_attnlab({"run", "--variant", "mla", "--q", dir / "q.npy", "--kv", dir / "packed.npy",
                   "--qo-indptr", dir / "qo.npy", "--kv-indptr", dir / "kvp.npy", "--latent-dim",
                   std::to_string(Dl), "--out", dir / "o.npy"},
                  dir);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const attn::TensorF o = attn::read_npy_float(dir / "o.npy");
  CHECK(o.shape == std::vector<std::int64_t>{B, H, Dl});
  CHECK(max_diff(o, naive_decode(q, kv, nullptr, Dl, 0, lens, scale)) < 1e-5);

  // --q-len 2: q [B, 2, H, Dk]; new token t of sequence b sees its first lens[b] - 2 + t + 1.
  const std::int64_t T = 2;
  attn::TensorF q2 = random_tensor({B, T, H, Dk}, rng);
  attn::write_npy(dir / "q2.npy", q2);
  const Ran r2 = run_attnlab({"run", "--variant", "mla", "--q", dir / "q2.npy", "--kv",
                              dir / "kv.npy", "--lens", dir / "lens.npy", "--q-len", "2",
                              "--latent-dim", std::to_string(Dl), "--out", dir / "o2.npy"},
                             dir);
  INFO(r2.err);
  REQUIRE(r2.code == 0);
  const attn::TensorF o2 = attn::read_npy_float(dir / "o2.npy");
  REQUIRE(o2.shape == std::vector<std::int64_t>{B, T, H, Dl});
  for (std::int64_t t = 0; t < T; ++t) {
    CAPTURE(t);
    attn::TensorF qt({B, H, Dk}), ot({B, H, Dl});
    std::vector<std::int64_t> lt(lens);
    for (std::int64_t b = 0; b < B; ++b) {
      std::copy_n(q2.data.begin() + (b * T + t) * H * Dk, H * Dk, qt.data.begin() + b * H * Dk);
      std::copy_n(o2.data.begin() + (b * T + t) * H * Dl, H * Dl, ot.data.begin() + b * H * Dl);
      lt[static_cast<std::size_t>(b)] = lens[static_cast<std::size_t>(b)] - T + t + 1;
    }
    CHECK(max_diff(ot, naive_decode(qt, kv, nullptr, Dl, 0, lt, scale)) < 1e-5);
  }

  // Bad input: each gives exit 2 and one error line naming what is wrong.
  const auto bad = [&](std::vector<std::string> args, const std::string& needle) {
    CAPTURE(needle);
    const Ran e = run_attnlab(args, dir);
    CHECK(e.code == 2);
    CHECK(e.err.find("attnlab: error: ") == 0);
    CHECK(e.err.find(needle) != std::string::npos);
  };
  const std::vector<std::string> base = {
      "run",          "--variant",        "mla",          "--q", dir / "q.npy",
      "--kv",         dir / "packed.npy", "--latent-dim", "24",  "--out",
      dir / "bad.npy"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  bad(with({"--qo-indptr", dir / "qo.npy"}), "--kv-indptr");
  bad(with({"--qo-indptr", dir / "qo.npy", "--kv-indptr", dir / "qo.npy"}), "the rows of kv");
  write_lens(dir / "dec.npy", {0, 54, 50, 81});
  bad(with({"--qo-indptr", dir / "qo.npy", "--kv-indptr", dir / "dec.npy"}), "decrease");
  {  // The packed GPU kernel takes Dl 512 and Dr 64 only, and here there may be no GPU: either
     // way exit 3 and one error line, nothing written.
    const Ran e = run_attnlab(
        with({"--qo-indptr", dir / "qo.npy", "--kv-indptr", dir / "kvp.npy", "--device", "gpu"}),
        dir);
    CHECK(e.code == 3);
    CHECK(e.err.find("attnlab: error: ") == 0);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  }
  bad({"run", "--variant", "mla", "--q", dir / "q2.npy", "--kv", dir / "kv.npy", "--q-len", "3",
       "--latent-dim", "24", "--out", dir / "bad.npy"},
      "--q-len");
  write_lens(dir / "short.npy", {54, 1, 20});
  bad({"run", "--variant", "mla", "--q", dir / "q2.npy", "--kv", dir / "kv.npy", "--q-len", "2",
       "--lens", dir / "short.npy", "--latent-dim", "24", "--out", dir / "bad.npy"},
      "1 cached tokens for 2 new ones");
  CHECK_FALSE(std::filesystem::exists(dir / "bad.npy"));
}
