// The attnlab command line, run as the real executable (docs/DESIGN.md section 3): each
// subcommand's success path and JSON fields; every class of bad input gives exit 2 and exactly one
// "attnlab: error: " line; a failed run leaves an existing output untouched; --device gpu
// without a GPU gives exit 3. Inputs are drawn from fixed, printed seeds.
#include <dirent.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "app/cli/cli.h"
#include "attention/dtype.h"
#include "attention/npy.h"
#include "attention/presets.h"
#include "cli_decode_util.h"
#include "cli_spawn.h"
#include "kernels/gpu.h"

using cli_test::max_diff;
using cli_test::naive_decode;
using cli_test::one_error_line;
using cli_test::Ran;
using cli_test::random_tensor;
using cli_test::run_attnlab;
using cli_test::TempDir;
using cli_test::write_lens;
using Json = nlohmann::json;

namespace {

void expect_bad_input(const std::vector<std::string>& args, const TempDir& dir,
                      const std::string& must_contain = "") {
  const Ran r = run_attnlab(args, dir);
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  INFO("attnlab " << joined << "\nstdout: " << r.out << "\nstderr: " << r.err);
  CHECK_FALSE(r.signaled);
  CHECK(r.code == 2);
  CHECK(one_error_line(r.err));
  CHECK(r.out.empty());
  if (!must_contain.empty()) CHECK(r.err.find(must_contain) != std::string::npos);
}

// A grouped-attention input set in `dir`: q.npy, k.npy, v.npy.
struct GroupedFiles {
  std::string q, k, v;
  attn::TensorF tq, tk, tv;
};
GroupedFiles write_grouped(const TempDir& dir, std::int64_t B, std::int64_t S, int Hq, int Hkv,
                           int D, std::mt19937& rng) {
  GroupedFiles f{dir / "q.npy", dir / "k.npy", dir / "v.npy", {}, {}, {}};
  f.tq = random_tensor({B, Hq, D}, rng);
  f.tk = random_tensor({B, S, Hkv, D}, rng);
  f.tv = random_tensor({B, S, Hkv, D}, rng);
  attn::write_npy(f.q, f.tq);
  attn::write_npy(f.k, f.tk);
  attn::write_npy(f.v, f.tv);
  return f;
}

}  // namespace

TEST_CASE("cli: presets lists every preset, --json is one JSON array", "[cli]") {
  TempDir dir;
  const Ran text = run_attnlab({"presets"}, dir);
  REQUIRE(text.code == 0);
  for (const char* name :
       {"llama-2-7b", "llama-3-8b", "llama-3.1-70b", "falcon-7b", "mistral-7b-v0.1", "gemma-2-9b",
        "gemma-3-12b", "gpt-oss-20b", "deepseek-v2-lite", "deepseek-v3"}) {
    CAPTURE(name);
    CHECK(text.out.find(name) != std::string::npos);
  }
  const Ran js = run_attnlab({"presets", "--json"}, dir);
  REQUIRE(js.code == 0);
  const Json j = Json::parse(js.out);  // throws if anything else is on stdout
  REQUIRE(j.is_array());
  CHECK(j.size() == attn::presets().size());
  for (const auto& p : j) {
    CHECK(p.at("name").is_string());
    CHECK(p.at("num_layers").get<int>() >= 1);
  }
}

TEST_CASE("cli: kv --json has the documented fields and hand-worked totals", "[cli]") {
  TempDir dir;
  // Llama-3-8B: 32 layers x 2 (K, V) x 8 kv heads x 128 dims x 2 bytes (bf16) per token.
  const Ran r = run_attnlab({"kv", "--preset", "llama-3-8b", "--seq", "8192", "--json"}, dir);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  CHECK(j.at("model") == "llama-3-8b");
  CHECK(j.at("dtype") == "bf16");
  CHECK(j.at("seq") == 8192);
  CHECK(j.at("batch") == 1);
  const std::uint64_t total = 32ull * 2 * 8 * 128 * 2 * 8192;
  CHECK(j.at("total_bytes").get<std::uint64_t>() == total);
  CHECK(j.at("per_device_bytes").get<std::uint64_t>() == total);
  REQUIRE(j.at("layers").size() == 32);
  for (const auto& l : j.at("layers")) {
    CHECK(l.at("kind") == "full");
    CHECK(l.at("window") == 0);
    CHECK(l.at("bytes").get<std::uint64_t>() == total / 32);
  }

  // --tp 2 halves the 8 kv heads per device; --tp 16 keeps ceil(8/16) = 1 head each.
  const Ran tp2 = run_attnlab(
      {"kv", "--preset", "llama-3-8b", "--seq", "8192", "--tp", "2", "--json", "-"}, dir);
  REQUIRE(tp2.code == 0);
  CHECK(Json::parse(tp2.out).at("per_device_bytes").get<std::uint64_t>() == total / 2);
  const Ran tp16 =
      run_attnlab({"kv", "--preset", "llama-3-8b", "--seq", "8192", "--tp", "16", "--json"}, dir);
  REQUIRE(tp16.code == 0);
  CHECK(Json::parse(tp16.out).at("per_device_bytes").get<std::uint64_t>() == total / 8);

  // Defaults: --seq is the model's maximum context, batch 1.
  const Ran def = run_attnlab({"kv", "--preset", "llama-3-8b", "--json"}, dir);
  REQUIRE(def.code == 0);
  CHECK(Json::parse(def.out).at("seq").get<std::int64_t>() ==
        attn::find_preset("llama-3-8b").max_seq);

  // Mistral-7B-v0.1 slides every layer over 4096 tokens: at S = 32768 it stores 4096.
  const Ran swa = run_attnlab({"kv", "--preset", "mistral-7b-v0.1", "--seq", "32768", "--batch",
                               "2", "--dtype", "fp8", "--json"},
                              dir);
  REQUIRE(swa.code == 0);
  const Json js = Json::parse(swa.out);
  CHECK(js.at("total_bytes").get<std::uint64_t>() == 32ull * 2 * 8 * 128 * 1 * 4096 * 2);
  CHECK(js.at("layers").at(0).at("kind") == "sliding");
  CHECK(js.at("layers").at(0).at("window") == 4096);

  // The text form says the total in readable units.
  const Ran text = run_attnlab({"kv", "--preset", "llama-3-8b", "--seq", "8192"}, dir);
  REQUIRE(text.code == 0);
  CHECK(text.out.find("1.00 GiB") != std::string::npos);
}

TEST_CASE("cli: kv reads a Hugging Face config.json", "[cli]") {
  TempDir dir;
  cli_test::spit(dir / "config.json", R"({"model_type": "llama", "hidden_size": 4096,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
    "max_position_embeddings": 8192, "vocab_size": 128256, "intermediate_size": 14336})");
  const Ran r = run_attnlab(
      {"kv", "--config", dir / "config.json", "--seq", "1024", "--dtype", "mxfp4", "--json"}, dir);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  // mxfp4: 128 values of a row take 64 bytes and 4 scale bytes.
  CHECK(j.at("total_bytes").get<std::uint64_t>() == 32ull * 2 * 8 * (64 + 4) * 1024);
  CHECK(j.at("dtype") == "mxfp4");
}

TEST_CASE("cli: kv of a config that states no maximum context needs --seq", "[cli]") {
  TempDir dir;
  cli_test::spit(dir / "config.json", R"({"model_type": "llama", "hidden_size": 4096,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32})");
  const Ran without = run_attnlab({"kv", "--config", dir / "config.json"}, dir);
  CHECK(without.code == 2);
  CHECK(without.err.rfind("attnlab: error: ", 0) == 0);
  CHECK(without.err.find("give --seq S") != std::string::npos);
  const Ran with =
      run_attnlab({"kv", "--config", dir / "config.json", "--seq", "4096", "--json"}, dir);
  INFO(with.err);
  REQUIRE(with.code == 0);
  // 32 layers * 2 * 8 kv heads * 128 dims * 2 bytes * 4096 tokens.
  CHECK(Json::parse(with.out).at("total_bytes").get<std::uint64_t>() ==
        32ull * 2 * 8 * 128 * 2 * 4096);
}

TEST_CASE("cli: run grouped variants equals the float64 definition", "[cli]") {
  const unsigned seed = 20261202;
  CAPTURE(seed);
  std::mt19937 rng(seed);
  TempDir dir;
  struct Case {
    const char* variant;
    std::int64_t B, S;
    int Hq, Hkv, D, window;
    bool lens;
  };
  const Case cases[] = {{"gqa", 2, 54, 9, 3, 64, 0, false},
                        {"mha", 1, 97, 3, 3, 16, 0, true},
                        {"mqa", 3, 1, 63, 1, 8, 0, false},
                        {"swa", 2, 97, 4, 2, 32, 16, true},
                        {"gqa", 3, 54, 6, 2, 24, 200, true}};
  for (const Case& c : cases) {
    CAPTURE(c.variant, c.B, c.S, c.Hq, c.Hkv, c.D, c.window, c.lens);
    GroupedFiles f = write_grouped(dir, c.B, c.S, c.Hq, c.Hkv, c.D, rng);
    std::vector<std::string> args = {"run", "--variant", c.variant, "--q",   f.q,          "--k",
                                     f.k,   "--v",       f.v,       "--out", dir / "o.npy"};
    std::vector<std::int64_t> lens;
    if (c.lens) {
      std::uniform_int_distribution<std::int64_t> u(0, c.S);
      for (std::int64_t b = 0; b < c.B; ++b) lens.push_back(b == 0 ? 0 : u(rng));
      write_lens(dir / "lens.npy", lens);
      args.insert(args.end(), {"--lens", dir / "lens.npy"});
    }
    if (c.window) args.insert(args.end(), {"--window", std::to_string(c.window)});
    const Ran r = run_attnlab(args, dir);
    INFO(r.err);
    REQUIRE(r.code == 0);
    const attn::TensorF out = attn::read_npy_float(dir / "o.npy");
    CHECK(out.shape == std::vector<std::int64_t>{c.B, c.Hq, c.D});
    const auto want = naive_decode(f.tq, f.tk, &f.tv, c.D, c.window, lens, 1.0 / std::sqrt(c.D));
    CHECK(max_diff(out, want) < 1e-5);
  }

  // --dtype fp8 on the CPU: k and v in e4m3 with one float32 scale per tensor, q in bf16.
  {
    GroupedFiles f8 = write_grouped(dir, 2, 33, 6, 3, 16, rng);
    const Ran r8 = run_attnlab({"run", "--variant", "gqa", "--q", f8.q, "--k", f8.k, "--v", f8.v,
                                "--out", dir / "o8.npy", "--dtype", "fp8"},
                               dir);
    INFO(r8.err);
    REQUIRE(r8.code == 0);
    auto to_e4m3 = [](attn::TensorF t) {
      float amax = 0;
      for (float x : t.data) amax = std::max(amax, std::fabs(x));
      const float sc = attn::e4m3_scale_for(amax);
      for (float& x : t.data) x = attn::round_to_e4m3(x, sc);
      return t;
    };
    attn::TensorF qb = f8.tq;
    for (float& x : qb.data) x = attn::round_to_bf16(x);
    const attn::TensorF k8 = to_e4m3(f8.tk), v8 = to_e4m3(f8.tv);
    CHECK(max_diff(attn::read_npy_float(dir / "o8.npy"),
                   naive_decode(qb, k8, &v8, 16, 0, {}, 1.0 / std::sqrt(16.0))) < 1e-5);
  }

  // --scale overrides the default.
  GroupedFiles f = write_grouped(dir, 1, 20, 4, 2, 8, rng);
  const Ran r = run_attnlab({"run", "--variant", "gqa", "--q", f.q, "--k", f.k, "--v", f.v, "--out",
                             dir / "o.npy", "--scale", "0.75"},
                            dir);
  REQUIRE(r.code == 0);
  CHECK(max_diff(attn::read_npy_float(dir / "o.npy"),
                 naive_decode(f.tq, f.tk, &f.tv, 8, 0, {}, 0.75)) < 1e-5);
}

TEST_CASE("cli: bench runs a checked CPU case and prints the documented JSON", "[cli]") {
  TempDir dir;
  const Ran r = run_attnlab(
      {"bench", "--variant", "gqa", "--batch", "2", "--seq", "300", "--q-heads", "8", "--kv-heads",
       "2", "--head-dim", "64", "--min-runs", "3", "--min-seconds", "0.01", "--json", "-"},
      dir);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  REQUIRE(j.at("device").is_object());
  CHECK(j.at("device").at("kind") == "cpu");
  CHECK(j.at("device").at("probe_gbps").get<double>() > 0);
  REQUIRE(j.at("results").size() == 1);
  const Json& res = j.at("results").at(0);
  for (const char* f : {"variant", "batch", "seq", "q_heads", "kv_heads", "head_dim", "window",
                        "latent_dim", "rope_dim", "dtype", "device", "median_us", "min_us",
                        "max_us", "runs", "kv_bytes", "gbps", "max_abs_err", "checked"}) {
    CAPTURE(f);
    CHECK(res.contains(f));
  }
  CHECK(res.at("checked") == true);
  CHECK(res.at("device") == "cpu");
  CHECK(res.at("dtype") == "fp32");
  CHECK(res.at("runs").get<int>() >= 3);
  CHECK(res.at("kv_bytes").get<std::uint64_t>() == 2ull * 300 * 2 * 2 * 64 * 4);
  CHECK(res.at("min_us").get<double>() <= res.at("median_us").get<double>());
  CHECK(res.at("median_us").get<double>() <= res.at("max_us").get<double>());
  CHECK(res.at("max_abs_err").get<double>() < 1e-4);

  // --json FILE writes the file and prints the table instead.
  const Ran f = run_attnlab({"bench", "--variant", "mla", "--batch", "1", "--seq", "64",
                             "--q-heads", "4", "--latent-dim", "32", "--rope-dim", "8",
                             "--min-runs", "2", "--min-seconds", "0.01", "--json", dir / "r.json"},
                            dir);
  INFO(f.err);
  REQUIRE(f.code == 0);
  CHECK(f.out.find("mla") != std::string::npos);
  const Json jf = Json::parse(cli_test::slurp(dir / "r.json"));
  CHECK(jf.at("results").at(0).at("variant") == "mla");
  CHECK(jf.at("results").at(0).at("head_dim") == 40);
}

TEST_CASE("cli: --help lists subcommands and limits, --version, explorer flags", "[cli]") {
  TempDir dir;
  const Ran h = run_attnlab({"--help"}, dir);
  REQUIRE(h.code == 0);
  for (const char* s : {"presets", "kv", "run", "bench", "--screenshot", "Limits", "16.0 GiB",
                        "16.0 MiB", "67108864", "4096", "1024"}) {
    CAPTURE(s);
    CHECK(h.out.find(s) != std::string::npos);
  }
  const Ran v = run_attnlab({"--version"}, dir);
  CHECK(v.code == 0);
  CHECK(v.out.rfind("attnlab ", 0) == 0);
  const Ran sub = run_attnlab({"run", "--help"}, dir);
  CHECK(sub.code == 0);
  CHECK(sub.out.find("--latent-dim") != std::string::npos);

  // In-process: no arguments, or the explorer flags, ask for the explorer.
  std::vector<std::string> a0 = {"attnlab"};
  std::vector<char*> argv0 = {a0[0].data()};
  const app::CliOutcome none = app::run_cli(1, argv0.data());
  CHECK(none.open_explorer);
  std::vector<std::string> a = {
      "attnlab", "--screenshot", dir / "shot.png", "--preset", "deepseek-v3", "--variant", "mha",
      "--panel", "kv-cache",     "--size",         "800x600",  "--frames",    "5"};
  std::vector<char*> argv;
  for (auto& s : a) argv.push_back(s.data());
  const app::CliOutcome o = app::run_cli(static_cast<int>(argv.size()), argv.data());
  CHECK(o.open_explorer);
  CHECK(o.exit_code == 0);
  CHECK(o.explorer.screenshot == dir / "shot.png");
  CHECK(o.explorer.preset == "deepseek-v3");
  CHECK(o.explorer.variant == "mha");
  CHECK(o.explorer.panel == "kv-cache");
  CHECK(o.explorer.width == 800);
  CHECK(o.explorer.height == 600);
  CHECK(o.explorer.frames == 5);
}

TEST_CASE("cli: every class of bad input exits 2 with one error line", "[cli]") {
  const unsigned seed = 77;
  CAPTURE(seed);
  std::mt19937 rng(seed);
  TempDir dir;
  GroupedFiles f = write_grouped(dir, 2, 54, 8, 2, 16, rng);
  const std::vector<std::string> ok = {"run", "--variant", "gqa", "--q",   f.q,          "--k",
                                       f.k,   "--v",       f.v,   "--out", dir / "o.npy"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = ok;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  auto replaced = [&](const std::string& flag, const std::string& value) {
    std::vector<std::string> a = ok;
    for (std::size_t i = 0; i + 1 < a.size(); ++i)
      if (a[i] == flag) a[i + 1] = value;
    return a;
  };

  SECTION("usage") {
    expect_bad_input({"frobnicate"}, dir);
    expect_bad_input({"--bogus"}, dir);
    expect_bad_input({"presets", "--bogus"}, dir, "--bogus");
    expect_bad_input({"kv", "--preset"}, dir);  // CLI11: value missing
    expect_bad_input({"kv"}, dir, "--preset");
    expect_bad_input({"kv", "--preset", "llama-3-8b", "--config", "x.json"}, dir);
    expect_bad_input({"kv", "--preset", "no-such-model"}, dir, "no-such-model");
    expect_bad_input({"run", "--variant", "gqa"}, dir, "--q");
    expect_bad_input({"bench"}, dir);
    expect_bad_input({"bench", "--suite", "nope"}, dir, "--suite");
    expect_bad_input({"bench", "--suite", "peers", "--batch", "2"}, dir, "--batch");
    expect_bad_input({"--panel", "nope"}, dir, "--panel");
    expect_bad_input({"--size", "100"}, dir, "--size");
    expect_bad_input({"--frames", "0"}, dir, "--frames");
    expect_bad_input({"--screenshot", dir / "shot.jpg"}, dir, "--screenshot");
    expect_bad_input({"--screenshot", dir / "missing-folder/shot.png"}, dir, "--screenshot");
  }
  SECTION("invalid numbers") {
    for (const char* seq : {"0", "-1", "abc", "12x", "1e3", "99999999999999999999", "nan", ""}) {
      CAPTURE(seq);
      expect_bad_input({"kv", "--preset", "llama-3-8b", "--seq", seq}, dir, "--seq");
    }
    expect_bad_input({"kv", "--preset", "llama-3-8b", "--batch", "0"}, dir, "--batch");
    expect_bad_input({"kv", "--preset", "llama-3-8b", "--tp", "0"}, dir, "--tp");
    expect_bad_input({"kv", "--preset", "llama-3-8b", "--tp", "-2"}, dir, "--tp");
    expect_bad_input({"kv", "--preset", "llama-3-8b", "--dtype", "int4"}, dir, "--dtype");
    expect_bad_input(with({"--window", "0"}), dir, "--window");
    expect_bad_input(with({"--window", "-5"}), dir, "--window");
    for (const char* sc : {"nan", "inf", "-1", "0", "x"}) {
      CAPTURE(sc);
      expect_bad_input(with({"--scale", sc}), dir, "--scale");
    }
    expect_bad_input(with({"--dtype", "mxfp4", "--device", "gpu"}), dir, "--dtype");
    expect_bad_input(with({"--device", "tpu"}), dir, "--device");
    expect_bad_input({"bench", "--variant", "gqa", "--batch", "0"}, dir, "--batch");
    expect_bad_input({"bench", "--variant", "gqa", "--kv-heads", "3"}, dir, "--kv-heads");
    expect_bad_input({"bench", "--variant", "swa"}, dir, "--window");
    expect_bad_input({"bench", "--variant", "gqa", "--dtype", "bf16"}, dir, "--dtype");
  }
  SECTION("files that cannot be read or are malformed") {
    expect_bad_input(replaced("--q", dir / "missing.npy"), dir, "missing.npy");
    cli_test::spit(dir / "garbage.npy", "this is not an npy file at all");
    expect_bad_input(replaced("--k", dir / "garbage.npy"), dir, "garbage.npy");
    const std::string good = cli_test::slurp(f.v);
    cli_test::spit(dir / "short.npy", good.substr(0, good.size() / 2));
    expect_bad_input(replaced("--v", dir / "short.npy"), dir, "short.npy");
    cli_test::spit(dir / "bad.json", "{\"num_attention_heads\": ");
    expect_bad_input({"kv", "--config", dir / "bad.json"}, dir, "bad.json");
    expect_bad_input({"kv", "--config", dir / "missing.json"}, dir, "missing.json");
    // A NaN in an input.
    attn::TensorF qn = f.tq;
    qn.data[5] = std::nanf("");
    attn::write_npy(dir / "qnan.npy", qn);
    expect_bad_input(replaced("--q", dir / "qnan.npy"), dir, "qnan.npy");
  }
  SECTION("shapes that do not fit the variant") {
    // The error names the file, the expected and the found shape.
    attn::write_npy(dir / "k64.npy", random_tensor({2, 54, 2, 8}, rng));
    expect_bad_input(replaced("--k", dir / "k64.npy"), dir,
                     "k64.npy: expected shape [B, S, Hkv, D] = [2, 54, 2, 16] (from " + f.q +
                         " and --variant gqa), found [2, 54, 2, 8]");
    attn::write_npy(dir / "k3.npy", random_tensor({2, 54, 3, 16}, rng));
    expect_bad_input(replaced("--k", dir / "k3.npy"), dir, "Hkv = 3");
    attn::write_npy(dir / "v53.npy", random_tensor({2, 53, 2, 16}, rng));
    expect_bad_input(replaced("--v", dir / "v53.npy"), dir, "found [2, 53, 2, 16]");
    attn::write_npy(dir / "q2.npy", random_tensor({2, 16}, rng));
    expect_bad_input(replaced("--q", dir / "q2.npy"), dir, "q2.npy");
    expect_bad_input(replaced("--variant", "mha"), dir, "--variant mha");
    expect_bad_input(replaced("--variant", "mqa"), dir, "--variant mqa");
    expect_bad_input(replaced("--variant", "swa"), dir, "--window");
    expect_bad_input(with({"--kv", f.k}), dir, "--kv");
    // lens: shape, dtype and range.
    write_lens(dir / "lens3.npy", {1, 2, 3});
    expect_bad_input(with({"--lens", dir / "lens3.npy"}), dir, "lens3.npy");
    write_lens(dir / "lens_big.npy", {54, 55});
    expect_bad_input(with({"--lens", dir / "lens_big.npy"}), dir, "lens[1] = 55");
    write_lens(dir / "lens_neg.npy", {-1, 2});
    expect_bad_input(with({"--lens", dir / "lens_neg.npy"}), dir, "lens[0] = -1");
    attn::write_npy(dir / "lens_float.npy", random_tensor({2}, rng));
    expect_bad_input(with({"--lens", dir / "lens_float.npy"}), dir, "lens_float.npy");
    // MLA: kv width, latent dim.
    attn::write_npy(dir / "mq.npy", random_tensor({2, 4, 40}, rng));
    attn::write_npy(dir / "mkv.npy", random_tensor({2, 30, 36}, rng));
    expect_bad_input({"run", "--variant", "mla", "--q", dir / "mq.npy", "--kv", dir / "mkv.npy",
                      "--latent-dim", "32", "--out", dir / "o.npy"},
                     dir, "expected shape [B, S, Dl+Dr] = [2, 30, 40]");
    expect_bad_input({"run", "--variant", "mla", "--q", dir / "mq.npy", "--kv", dir / "mq.npy",
                      "--latent-dim", "41", "--out", dir / "o.npy"},
                     dir, "--latent-dim");
    expect_bad_input({"run", "--variant", "mla", "--q", dir / "mq.npy", "--kv", dir / "mkv.npy",
                      "--out", dir / "o.npy"},
                     dir, "--latent-dim");
  }
  SECTION("outputs that cannot be written") {
    expect_bad_input(replaced("--out", dir / "no-such-folder/o.npy"), dir, "o.npy");
    expect_bad_input({"kv", "--preset", "llama-3-8b", "--json", dir / "no-such-folder/x.json"}, dir,
                     "x.json");
  }
}

TEST_CASE("cli: a failed run leaves an existing output file untouched", "[cli]") {
  const unsigned seed = 4242;
  CAPTURE(seed);
  std::mt19937 rng(seed);
  TempDir dir;
  GroupedFiles f = write_grouped(dir, 1, 10, 4, 2, 8, rng);
  const std::string precious = "precious bytes that must survive";
  cli_test::spit(dir / "o.npy", precious);
  attn::write_npy(dir / "kbad.npy", random_tensor({1, 10, 2, 7}, rng));
  const Ran r = run_attnlab({"run", "--variant", "gqa", "--q", f.q, "--k", dir / "kbad.npy", "--v",
                             f.v, "--out", dir / "o.npy"},
                            dir);
  CHECK(r.code == 2);
  CHECK(cli_test::slurp(dir / "o.npy") == precious);

  cli_test::spit(dir / "r.json", precious);
  const Ran b =
      run_attnlab({"bench", "--variant", "gqa", "--seq", "0", "--json", dir / "r.json"}, dir);
  CHECK(b.code == 2);
  CHECK(cli_test::slurp(dir / "r.json") == precious);
  const Ran k = run_attnlab({"kv", "--preset", "nope", "--json", dir / "r.json"}, dir);
  CHECK(k.code == 2);
  CHECK(cli_test::slurp(dir / "r.json") == precious);

  // No temporary is left beside it either.
  DIR* d = opendir(dir.path.c_str());
  REQUIRE(d != nullptr);
  std::vector<std::string> names;
  while (const dirent* e = readdir(d)) names.push_back(e->d_name);
  closedir(d);
  for (const auto& n : names) {
    CAPTURE(n);
    CHECK(n.find("tmp") == std::string::npos);
  }
}

TEST_CASE("cli: --device gpu without a GPU exits 3", "[cli]") {
  const kern::DeviceInfo info = kern::query_device();
  if (info.available) {
    WARN("a GPU is present (" << info.name << "): the no-GPU path is not testable here");
    return;
  }
  const unsigned seed = 99;
  CAPTURE(seed);
  std::mt19937 rng(seed);
  TempDir dir;
  GroupedFiles f = write_grouped(dir, 1, 10, 4, 2, 8, rng);
  cli_test::spit(dir / "o.npy", "keep");
  const Ran r = run_attnlab({"run", "--variant", "gqa", "--q", f.q, "--k", f.k, "--v", f.v, "--out",
                             dir / "o.npy", "--device", "gpu"},
                            dir);
  INFO(r.err);
  CHECK(r.code == 3);
  CHECK(one_error_line(r.err));
  CHECK(cli_test::slurp(dir / "o.npy") == "keep");
  const Ran b = run_attnlab({"bench", "--variant", "gqa", "--device", "gpu", "--json"}, dir);
  INFO(b.err);
  CHECK(b.code == 3);
  CHECK(one_error_line(b.err));
  CHECK(b.out.empty());
}
