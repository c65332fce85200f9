// The CLI's behaviour on bad input (docs/DESIGN.md section 3), tested on the real binary: every
// malformed config, tensor, flag and unwritable output gives the documented exit code, exactly
// one "attnlab: error: " line on stderr and nothing on stdout, no signal, no hang, no large
// allocation, and leaves an existing output file byte-identical with no stray files beside it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/npy.h"
#include "fault_util.h"
#include "kernels/gpu.h"

namespace {

namespace fs = std::filesystem;
using fault::npy_dict;
using fault::npy_raw;

struct Case {
  std::string name;
  std::vector<std::string> args;  // "@x" is the file x in the case folder
  std::vector<int> want;          // accepted exit codes (the first is the documented one)
  std::string mention;            // the error line names this (the file, field or flag)
  bool needs_non_root = false;    // chmod does not stop root from reading
};

constexpr std::int64_t kB = 2, kS = 7, kHq = 6, kHkv = 2, kD = 8;  // awkward GQA shapes
constexpr std::int64_t kMlaH = 3, kDl = 16, kDr = 8;

attn::TensorF random_tensor(std::vector<std::int64_t> shape, std::mt19937& rng) {
  attn::TensorF t(std::move(shape));
  std::normal_distribution<float> n(0.f, 1.f);
  for (float& x : t.data) x = n(rng);
  return t;
}

std::string f32_payload(std::size_t n) { return std::string(n * 4, '\0'); }

// Writes every input the table refers to into `d`.
void make_inputs(const fault::TempDir& d, unsigned seed) {
  std::mt19937 rng(seed);
  auto put = [&](const std::string& name, const std::string& bytes) {
    fault::write_bytes(d / name, bytes);
  };
  auto put_t = [&](const std::string& name, std::vector<std::int64_t> shape) {
    fault::write_bytes(d / name, attn::npy_bytes(random_tensor(std::move(shape), rng)));
  };
  put_t("q.npy", {kB, kHq, kD});
  put_t("k.npy", {kB, kS, kHkv, kD});
  put_t("v.npy", {kB, kS, kHkv, kD});
  put_t("k_mqa.npy", {kB, kS, 1, kD});
  put_t("v_mqa.npy", {kB, kS, 1, kD});
  put_t("q_mla.npy", {kB, kMlaH, kDl + kDr});
  put_t("kv_mla.npy", {kB, kS, kDl + kDr});
  fault::write_bytes(d / "lens.npy", attn::npy_bytes_i64({kB}, {kS, 3}));
  // Shapes that do not fit.
  put_t("q_rank2.npy", {kB, kHq * kD});
  put_t("q_wrong_d.npy", {kB, kHq, kD / 2});
  put_t("q_wrong_b.npy", {kB + 1, kHq, kD});
  put_t("q_hq5.npy", {kB, 5, kD});
  put_t("v_wrong_s.npy", {kB, kS - 1, kHkv, kD});
  put_t("k_rank3.npy", {kB, kS, kHkv * kD});
  put_t("q_mla_wrong_w.npy", {kB, kMlaH, kDl + kDr - 4});
  put_t("kv_mla_rank4.npy", {kB, kS, 1, kDl + kDr});
  put_t("kv_mla_wrong_b.npy", {kB + 1, kS, kDl + kDr});
  fault::write_bytes(d / "lens_len3.npy", attn::npy_bytes_i64({3}, {1, 2, 3}));
  fault::write_bytes(d / "lens_past_s.npy", attn::npy_bytes_i64({kB}, {kS + 1, 1}));
  fault::write_bytes(d / "lens_negative.npy", attn::npy_bytes_i64({kB}, {-1, 2}));
  fault::write_bytes(d / "lens_rank2.npy", attn::npy_bytes_i64({kB, 1}, {1, 2}));
  put_t("lens_float.npy", {kB});
  // Malformed NPY files, one per class.
  const std::string q_shape = "(2, 6, 8)";
  const std::size_t q_n = kB * kHq * kD;
  put("not_npy.npy", "this is not an npy file\n");
  put("empty.npy", "");
  put("magic_only.npy", "\x93NUMPY");
  put("bad_magic.npy",
      "\x93NUMPZ" + npy_raw(1, npy_dict("<f4", q_shape), f32_payload(q_n)).substr(6));
  put("truncated_header.npy", npy_raw(1, npy_dict("<f4", q_shape), "").substr(0, 30));
  {
    std::string s = npy_raw(1, npy_dict("<f4", q_shape), f32_payload(q_n));
    s[8] = '\xff';  // header length 0xff.. past the end of the file
    s[9] = '\x7f';
    put("header_len_past_eof.npy", s.substr(0, 200));
  }
  put("version4.npy", npy_raw(4, npy_dict("<f4", q_shape), f32_payload(q_n)));
  put("complex.npy", npy_raw(1, npy_dict("<c8", q_shape), f32_payload(2 * q_n)));
  put("big_endian.npy", npy_raw(1, npy_dict(">f4", q_shape), f32_payload(q_n)));
  put("object.npy", npy_raw(1, npy_dict("|O", q_shape), f32_payload(2 * q_n)));
  put("unicode.npy", npy_raw(1, npy_dict("<U1", q_shape), f32_payload(q_n)));
  put("bool.npy", npy_raw(1, npy_dict("|b1", q_shape), std::string(q_n, '\0')));
  put("no_descr.npy",
      npy_raw(1, "{'fortran_order': False, 'shape': (2, 6, 8), }", f32_payload(q_n)));
  put("no_shape.npy", npy_raw(1, "{'descr': '<f4', 'fortran_order': False, }", f32_payload(q_n)));
  put("fortran.npy", npy_raw(1, npy_dict("<f4", q_shape, "True"), f32_payload(q_n)));
  put("negative_dim.npy", npy_raw(1, npy_dict("<f4", "(-2, 6, 8)"), f32_payload(q_n)));
  put("fraction_dim.npy", npy_raw(1, npy_dict("<f4", "(2.5, 6, 8)"), f32_payload(q_n)));
  put("huge_claim.npy", npy_raw(1, npy_dict("<f4", "(1000000000000000, 6, 8)"), f32_payload(q_n)));
  put("overflow_claim.npy",
      npy_raw(1, npy_dict("<f4", "(4294967296, 4294967296, 4294967296)"), f32_payload(q_n)));
  put("data_short.npy", npy_raw(1, npy_dict("<f4", q_shape), f32_payload(q_n - 1)));
  put("data_trailing.npy", npy_raw(1, npy_dict("<f4", q_shape), f32_payload(q_n + 1)));
  put("no_newline.npy", npy_raw(1, npy_dict("<f4", q_shape), f32_payload(q_n), false));
  put("cut_dict.npy", npy_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 6, 8), ",
                              f32_payload(q_n)));
  {  // a well-formed header whose data (sparse on disk) is past Limits::kMaxTensorBytes
    const std::int64_t n = attn::Limits::kMaxTensorBytes / 4 + 1024;
    const std::string h = npy_raw(1, npy_dict("<f4", "(" + std::to_string(n) + ",)"), "");
    put("huge_file.npy", h);
    REQUIRE(::truncate((d / "huge_file.npy").c_str(), static_cast<off_t>(h.size() + 4 * n)) == 0);
  }
  put("int_q.npy", npy_raw(1, npy_dict("<i4", q_shape), f32_payload(q_n)));
  put("unreadable.npy", fault::read_bytes(d / "q.npy"));
  ::chmod((d / "unreadable.npy").c_str(), 0);
  fs::create_directories(d.path / "adir");
  // Configs.
  put("cfg_ok.json", R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
    "num_key_value_heads": 8, "num_hidden_layers": 32, "max_position_embeddings": 8192})");
  put("cfg_invalid.json", R"({"model_type": "llama", "hidden_size": 4096,)");
  put("cfg_array.json", "[1, 2, 3]");
  put("cfg_string.json", "\"llama\"");
  put("cfg_empty.json", "");
  put("cfg_nan.json",
      R"({"hidden_size": NaN, "num_attention_heads": 32, "max_position_embeddings": 4096, "num_hidden_layers": 32})");
  put("cfg_heads_string.json", R"({"hidden_size": 4096, "num_attention_heads": "32",
    "num_key_value_heads": 8, "max_position_embeddings": 4096, "num_hidden_layers": 32})");
  put("cfg_no_layers.json", R"({"hidden_size": 4096, "num_attention_heads": 32,
    "num_key_value_heads": 8})");
  put("cfg_no_heads.json",
      R"({"hidden_size": 4096, "max_position_embeddings": 4096, "num_hidden_layers": 32})");
  put("cfg_negative_heads.json", R"({"hidden_size": 4096, "num_attention_heads": -32,
    "max_position_embeddings": 4096, "num_hidden_layers": 32})");
  put("cfg_zero_layers.json", R"({"hidden_size": 4096, "num_attention_heads": 32,
    "num_key_value_heads": 8, "max_position_embeddings": 4096, "num_hidden_layers": 0})");
  put("cfg_huge_layers.json", R"({"hidden_size": 4096, "num_attention_heads": 32,
    "num_key_value_heads": 8, "max_position_embeddings": 4096, "num_hidden_layers": 1000000000000})");
  put("cfg_huge_heads.json", R"({"hidden_size": 4096, "num_attention_heads": 1e30,
    "num_key_value_heads": 8, "max_position_embeddings": 4096, "num_hidden_layers": 32})");
  put("cfg_huge_head_dim.json", R"({"hidden_size": 4096, "num_attention_heads": 32,
    "num_key_value_heads": 8, "max_position_embeddings": 4096, "num_hidden_layers": 32, "head_dim": 1099511627776})");
  put("cfg_fraction_heads.json", R"({"hidden_size": 4096, "num_attention_heads": 32.5,
    "max_position_embeddings": 4096, "num_hidden_layers": 32})");
  put("cfg_kv_not_dividing.json", R"({"hidden_size": 4096, "num_attention_heads": 32,
    "num_key_value_heads": 5, "max_position_embeddings": 4096, "num_hidden_layers": 32})");
  put("cfg_hidden_not_dividing.json", R"({"hidden_size": 4000, "num_attention_heads": 48,
    "num_key_value_heads": 8, "max_position_embeddings": 4096, "num_hidden_layers": 32})");
  put("cfg_bad_window.json", R"({"hidden_size": 4096, "num_attention_heads": 32,
    "num_key_value_heads": 8, "max_position_embeddings": 4096, "num_hidden_layers": 32, "sliding_window": -5})");
  put("cfg_layer_types_len.json", R"({"hidden_size": 4096, "num_attention_heads": 32,
    "num_key_value_heads": 8, "max_position_embeddings": 4096, "num_hidden_layers": 4, "sliding_window": 128,
    "layer_types": ["sliding_attention", "full_attention"]})");
  put("cfg_layer_types_bad.json", R"({"hidden_size": 4096, "num_attention_heads": 32,
    "num_key_value_heads": 8, "max_position_embeddings": 4096, "num_hidden_layers": 2, "sliding_window": 128,
    "layer_types": ["sliding_attention", "sideways_attention"]})");
  put("cfg_text_config_bad.json", R"({"model_type": "gemma3", "text_config": [1]})");
  put("cfg_mla_bad.json", R"({"model_type": "deepseek_v3", "hidden_size": 7168,
    "num_attention_heads": 128, "num_key_value_heads": 128, "max_position_embeddings": 4096, "num_hidden_layers": 61,
    "kv_lora_rank": -512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128})");
  put("cfg_deep.json", std::string(100000, '[') + std::string(100000, ']'));
  put("cfg_unreadable.json", fault::read_bytes(d / "cfg_ok.json"));
  ::chmod((d / "cfg_unreadable.json").c_str(), 0);
  {  // valid JSON, but larger than Limits::kMaxConfigBytes
    std::string big = "{\"pad\": \"";
    big += std::string(static_cast<std::size_t>(attn::Limits::kMaxConfigBytes), 'x');
    big += "\", \"hidden_size\": 4096, \"num_attention_heads\": 32, \"num_hidden_layers\": 2}";
    put("cfg_too_big.json", big);
  }
  {  // a 2 GiB config.json (sparse): refused by its size, never read whole
    const int fd = ::open((d / "cfg_2gb.json").c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, (off_t(2) << 30) + 17) == 0);
    ::close(fd);
  }
  put("out.npy", "EXISTING OUTPUT: must survive every failed run\n");
  put("out.json", "{\"existing\": true}\n");
}

std::vector<Case> run_cases() {
  const std::vector<std::string> gqa = {"run",    "--variant", "gqa",    "--q",   "@q.npy",  "--k",
                                        "@k.npy", "--v",       "@v.npy", "--out", "@out.npy"};
  auto with = [&](std::vector<std::string> base, std::vector<std::string> extra) {
    base.insert(base.end(), extra.begin(), extra.end());
    return base;
  };
  auto gqa_q = [&](const std::string& q) {
    return std::vector<std::string>{"run",    "--variant", "gqa",    "--q",   "@" + q,   "--k",
                                    "@k.npy", "--v",       "@v.npy", "--out", "@out.npy"};
  };
  const std::vector<std::string> mla = {"run",  "--variant",   "mla",   "--q",     "@q_mla.npy",
                                        "--kv", "@kv_mla.npy", "--out", "@out.npy"};
  std::vector<Case> c;
  // Malformed tensor files, each given as q.
  for (const char* f : {"not_npy.npy",          "empty.npy",
                        "magic_only.npy",       "bad_magic.npy",
                        "truncated_header.npy", "header_len_past_eof.npy",
                        "version4.npy",         "complex.npy",
                        "big_endian.npy",       "object.npy",
                        "unicode.npy",          "bool.npy",
                        "no_descr.npy",         "no_shape.npy",
                        "fortran.npy",          "negative_dim.npy",
                        "fraction_dim.npy",     "huge_claim.npy",
                        "overflow_claim.npy",   "data_short.npy",
                        "data_trailing.npy",    "no_newline.npy",
                        "cut_dict.npy",         "int_q.npy",
                        "huge_file.npy",        "missing.npy"})
    c.push_back({std::string("q is ") + f, gqa_q(f), {2}, f});
  c.push_back({"q is a directory", gqa_q("adir"), {2}, "adir"});
  c.push_back({"q unreadable", gqa_q("unreadable.npy"), {2}, "unreadable.npy", true});
  // Shapes that do not fit the variant.
  c.push_back({"q rank 2", gqa_q("q_rank2.npy"), {2}, "q_rank2.npy"});
  c.push_back({"q head dim differs from k", gqa_q("q_wrong_d.npy"), {2}, ""});
  c.push_back({"q batch differs from k", gqa_q("q_wrong_b.npy"), {2}, ""});
  c.push_back({"Hq not a multiple of Hkv", gqa_q("q_hq5.npy"), {2}, ""});
  c.push_back({"v sequence differs from k",
               {"run", "--variant", "gqa", "--q", "@q.npy", "--k", "@k.npy", "--v",
                "@v_wrong_s.npy", "--out", "@out.npy"},
               {2},
               ""});
  c.push_back({"k rank 3",
               {"run", "--variant", "gqa", "--q", "@q.npy", "--k", "@k_rank3.npy", "--v", "@v.npy",
                "--out", "@out.npy"},
               {2},
               "k_rank3.npy"});
  c.push_back({"mha with Hkv != Hq",
               {"run", "--variant", "mha", "--q", "@q.npy", "--k", "@k.npy", "--v", "@v.npy",
                "--out", "@out.npy"},
               {2},
               ""});
  c.push_back({"mqa with Hkv = 2",
               {"run", "--variant", "mqa", "--q", "@q.npy", "--k", "@k.npy", "--v", "@v.npy",
                "--out", "@out.npy"},
               {2},
               ""});
  c.push_back({"swa without --window",
               {"run", "--variant", "swa", "--q", "@q.npy", "--k", "@k.npy", "--v", "@v.npy",
                "--out", "@out.npy"},
               {2},
               "window"});
  c.push_back({"--window 0", with(gqa, {"--window", "0"}), {2}, "--window"});
  c.push_back({"swa --window 0",
               {"run", "--variant", "swa", "--q", "@q.npy", "--k", "@k.npy", "--v", "@v.npy",
                "--out", "@out.npy", "--window", "0"},
               {2},
               "window"});
  c.push_back({"--window -3", with(gqa, {"--window", "-3"}), {2}, "--window"});
  c.push_back({"--window abc", with(gqa, {"--window", "abc"}), {2}, "--window"});
  c.push_back({"lens of length 3 for B = 2",
               with(gqa, {"--lens", "@lens_len3.npy"}),
               {2},
               "lens_len3.npy"});
  c.push_back({"lens past S", with(gqa, {"--lens", "@lens_past_s.npy"}), {2}, "lens_past_s.npy"});
  c.push_back(
      {"negative lens", with(gqa, {"--lens", "@lens_negative.npy"}), {2}, "lens_negative.npy"});
  c.push_back({"lens rank 2", with(gqa, {"--lens", "@lens_rank2.npy"}), {2}, "lens_rank2.npy"});
  c.push_back({"float lens", with(gqa, {"--lens", "@lens_float.npy"}), {2}, "lens_float.npy"});
  c.push_back({"lens is not npy", with(gqa, {"--lens", "@not_npy.npy"}), {2}, "not_npy.npy"});
  c.push_back({"--scale abc", with(gqa, {"--scale", "abc"}), {2}, "--scale"});
  c.push_back({"--scale nan", with(gqa, {"--scale", "nan"}), {2}, "--scale"});
  c.push_back({"--scale inf", with(gqa, {"--scale", "inf"}), {2}, "--scale"});
  c.push_back({"--device tpu", with(gqa, {"--device", "tpu"}), {2}, "tpu"});
  c.push_back({"--dtype fp3", with(gqa, {"--dtype", "fp3"}), {2}, "fp3"});
  c.push_back({"--dtype mxfp4 on the gpu",
               with(gqa, {"--dtype", "mxfp4", "--device", "gpu"}),
               {2},
               "mxfp4"});
  c.push_back({"--variant foo",
               {"run", "--variant", "foo", "--q", "@q.npy", "--k", "@k.npy", "--v", "@v.npy",
                "--out", "@out.npy"},
               {2},
               "foo"});
  c.push_back({"run without --variant",
               {"run", "--q", "@q.npy", "--k", "@k.npy", "--v", "@v.npy", "--out", "@out.npy"},
               {2},
               "--variant"});
  c.push_back({"run without --q",
               {"run", "--variant", "gqa", "--k", "@k.npy", "--v", "@v.npy", "--out", "@out.npy"},
               {2},
               "--q"});
  c.push_back({"run without --out",
               {"run", "--variant", "gqa", "--q", "@q.npy", "--k", "@k.npy", "--v", "@v.npy"},
               {2},
               "--out"});
  c.push_back({"gqa given --kv", with(gqa, {"--kv", "@kv_mla.npy"}), {2}, "--kv"});
  c.push_back({"--out in a missing folder",
               {"run", "--variant", "gqa", "--q", "@q.npy", "--k", "@k.npy", "--v", "@v.npy",
                "--out", "@no_such_dir/o.npy"},
               {2},
               "no_such_dir"});
  c.push_back({"--out is a folder",
               {"run", "--variant", "gqa", "--q", "@q.npy", "--k", "@k.npy", "--v", "@v.npy",
                "--out", "@adir"},
               {2},
               "adir"});
  // MLA.
  c.push_back(
      {"mla without --latent-dim",
       {"run", "--variant", "mla", "--q", "@q_mla.npy", "--kv", "@kv_mla.npy", "--out", "@out.npy"},
       {2},
       "--latent-dim"});
  c.push_back({"mla --latent-dim 0", with(mla, {"--latent-dim", "0"}), {2}, "--latent-dim"});
  c.push_back({"mla --latent-dim past the kv width", with(mla, {"--latent-dim", "25"}), {2}, ""});
  c.push_back({"mla --latent-dim abc", with(mla, {"--latent-dim", "abc"}), {2}, "--latent-dim"});
  c.push_back({"mla q width differs from kv",
               {"run", "--variant", "mla", "--q", "@q_mla_wrong_w.npy", "--kv", "@kv_mla.npy",
                "--out", "@out.npy", "--latent-dim", "16"},
               {2},
               ""});
  c.push_back({"mla kv rank 4",
               {"run", "--variant", "mla", "--q", "@q_mla.npy", "--kv", "@kv_mla_rank4.npy",
                "--out", "@out.npy", "--latent-dim", "16"},
               {2},
               "kv_mla_rank4.npy"});
  c.push_back({"mla kv batch differs from q",
               {"run", "--variant", "mla", "--q", "@q_mla.npy", "--kv", "@kv_mla_wrong_b.npy",
                "--out", "@out.npy", "--latent-dim", "16"},
               {2},
               ""});
  c.push_back({"mla given --k and --v instead of --kv",
               {"run", "--variant", "mla", "--q", "@q_mla.npy", "--k", "@k.npy", "--v", "@v.npy",
                "--out", "@out.npy", "--latent-dim", "16"},
               {2},
               ""});
  c.push_back({"mla kv is malformed",
               {"run", "--variant", "mla", "--q", "@q_mla.npy", "--kv", "@data_short.npy", "--out",
                "@out.npy", "--latent-dim", "16"},
               {2},
               "data_short.npy"});
  return c;
}

std::vector<Case> kv_and_flag_cases() {
  std::vector<Case> c;
  for (const char* f : {"cfg_invalid.json", "cfg_array.json", "cfg_string.json", "cfg_empty.json",
                        "cfg_nan.json", "cfg_deep.json", "cfg_too_big.json", "cfg_2gb.json",
                        "cfg_missing.json", "cfg_text_config_bad.json"})
    c.push_back({std::string("config ") + f, {"kv", "--config", std::string("@") + f}, {2}, f});
  c.push_back({"config is a directory", {"kv", "--config", "@adir"}, {2}, "adir"});
  c.push_back({"config unreadable",
               {"kv", "--config", "@cfg_unreadable.json"},
               {2},
               "cfg_unreadable.json",
               true});
  const std::vector<std::pair<const char*, const char*>> field_cases = {
      {"cfg_heads_string.json", "num_attention_heads"},
      {"cfg_no_layers.json", "num_hidden_layers"},
      {"cfg_no_heads.json", "num_attention_heads"},
      {"cfg_negative_heads.json", "num_attention_heads"},
      {"cfg_zero_layers.json", "num_hidden_layers"},
      {"cfg_huge_layers.json", "num_hidden_layers"},
      {"cfg_huge_heads.json", "num_attention_heads"},
      {"cfg_huge_head_dim.json", "head_dim"},
      {"cfg_fraction_heads.json", "num_attention_heads"},
      {"cfg_kv_not_dividing.json", "num_key_value_heads"},
      {"cfg_hidden_not_dividing.json", ""},
      {"cfg_bad_window.json", "sliding_window"},
      {"cfg_layer_types_len.json", "layer_types"},
      {"cfg_layer_types_bad.json", "layer_types"},
      {"cfg_mla_bad.json", "kv_lora_rank"}};
  for (const auto& [f, field] : field_cases)
    c.push_back({std::string("config ") + f, {"kv", "--config", std::string("@") + f}, {2}, field});
  const std::vector<std::string> kv = {"kv", "--preset", "llama-3-8b"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = kv;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  c.push_back({"kv without a model", {"kv"}, {2}, ""});
  c.push_back({"unknown preset", {"kv", "--preset", "llama-9-9000b"}, {2}, "llama-9-9000b"});
  c.push_back({"--preset without a value", {"kv", "--preset"}, {2}, "--preset"});
  c.push_back({"--seq without a value", with({"--seq"}), {2}, "--seq"});
  for (const char* v :
       {"0", "-1", "abc", "12abc", "1.5", "1e99", "99999999999999999999999", "67108865"})
    c.push_back({std::string("--seq ") + v, with({"--seq", v}), {2}, "--seq"});
  for (const char* v : {"0", "-3", "x", "1048577"})
    c.push_back({std::string("--batch ") + v, with({"--batch", v}), {2}, "--batch"});
  for (const char* v : {"0", "-1", "two"})
    c.push_back({std::string("--tp ") + v, with({"--tp", v}), {2}, "--tp"});
  c.push_back({"kv --dtype fp3", with({"--dtype", "fp3"}), {2}, "fp3"});
  c.push_back({"unknown flag", with({"--frobnicate"}), {2}, "--frobnicate"});
  c.push_back({"unknown top-level flag", {"--frobnicate"}, {2}, "--frobnicate"});
  c.push_back({"unknown subcommand", {"frobnicate"}, {2}, "frobnicate"});
  c.push_back({"presets with an unknown flag", {"presets", "--bogus"}, {2}, "--bogus"});
  // bench flags.
  const std::vector<std::string> bench = {
      "bench",     "--variant", "gqa",        "--batch", "1",          "--seq", "16",
      "--q-heads", "2",         "--kv-heads", "1",       "--head-dim", "8"};
  auto b = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = bench;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  c.push_back({"bench --batch 0", b({"--batch", "0"}), {2}, "--batch"});
  c.push_back({"bench --seq -4", b({"--seq", "-4"}), {2}, "--seq"});
  c.push_back({"bench --q-heads 0", b({"--q-heads", "0"}), {2}, "--q-heads"});
  c.push_back({"bench --kv-heads not dividing", b({"--q-heads", "6", "--kv-heads", "4"}), {2}, ""});
  c.push_back({"bench --head-dim 100000", b({"--head-dim", "100000"}), {2}, "--head-dim"});
  c.push_back({"bench --batch past the limit", b({"--batch", "99999999999"}), {2}, "--batch"});
  c.push_back({"bench swa --window 0",
               {"bench", "--variant", "swa", "--batch", "1", "--seq", "16", "--q-heads", "2",
                "--kv-heads", "1", "--head-dim", "8", "--window", "0"},
               {2},
               "--window"});
  c.push_back({"bench mla --latent-dim 0",
               {"bench", "--variant", "mla", "--batch", "1", "--seq", "16", "--q-heads", "2",
                "--head-dim", "24", "--latent-dim", "0", "--rope-dim", "8"},
               {2},
               "--latent-dim"});
  c.push_back({"bench --variant foo", {"bench", "--variant", "foo"}, {2}, "foo"});
  c.push_back({"bench --suite nope", {"bench", "--suite", "nope"}, {2}, "nope"});
  c.push_back({"bench --dtype fp3", b({"--dtype", "fp3"}), {2}, "fp3"});
  c.push_back({"bench --json into a missing folder",
               b({"--json", "@no_such_dir/r.json"}),
               {2},
               "no_such_dir"});
  c.push_back({"bench --json into a folder", b({"--json", "@adir"}), {2}, "adir"});
  // Each limit alone is fine, together they are 2^59 bytes of cache: refused, not allocated.
  c.push_back({"bench case past any memory",
               {"bench", "--variant", "gqa", "--batch", "1048576", "--seq", "67108864", "--q-heads",
                "64", "--kv-heads", "8", "--head-dim", "128", "--json", "@out.json"},
               {2, 3},
               ""});
  return c;
}

std::vector<std::string> expand(const std::vector<std::string>& args, const fault::TempDir& d) {
  std::vector<std::string> out;
  for (const std::string& a : args)
    out.push_back(a.size() > 1 && a[0] == '@' ? d / a.substr(1) : a);
  return out;
}

void check_case(const Case& c, const fault::TempDir& d) {
  const std::string out_before = fault::read_bytes(d / "out.npy");
  const std::string json_before = fault::read_bytes(d / "out.json");
  const auto entries_before = fault::dir_entries(d.path);
  const fault::ProcResult r = fault::run_process(fault::attnlab_argv(expand(c.args, d)), 20);
  INFO("case: " << c.name);
  INFO(r.describe());
  CHECK_FALSE(r.timed_out);
  CHECK_FALSE(r.signaled);
  CHECK(std::find(c.want.begin(), c.want.end(), r.exit_code) != c.want.end());
  const std::vector<std::string> lines = r.err_lines();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("attnlab: error: ", 0) == 0);
  CHECK(lines[0].size() > std::string("attnlab: error: ").size() + 8);
  if (!c.mention.empty()) CHECK(lines[0].find(c.mention) != std::string::npos);
  CHECK(r.out.empty());
  // Refused before allocating: the process stays small and quick.
  CHECK(r.max_rss_kib < 400 * 1024);
  CHECK(r.seconds < 10);
  CHECK(fault::read_bytes(d / "out.npy") == out_before);
  CHECK(fault::read_bytes(d / "out.json") == json_before);
  CHECK(fault::dir_entries(d.path) == entries_before);
}

}  // namespace

TEST_CASE("cli: every malformed tensor, shape and run flag gives one error line and exit 2",
          "[cli][faults]") {
  const unsigned seed = 20261202;
  INFO("seed " << seed);
  fault::TempDir d;
  make_inputs(d, seed);
  const bool root = ::geteuid() == 0;
  for (const Case& c : run_cases()) {
    if (c.needs_non_root && root) {
      WARN("skipped as root (chmod does not stop root from reading): " << c.name);
      continue;
    }
    check_case(c, d);
  }
}

TEST_CASE("cli: every malformed config and bad kv/bench flag gives one error line and exit 2",
          "[cli][faults]") {
  const unsigned seed = 20261203;
  INFO("seed " << seed);
  fault::TempDir d;
  make_inputs(d, seed);
  const bool root = ::geteuid() == 0;
  for (const Case& c : kv_and_flag_cases()) {
    if (c.needs_non_root && root) {
      WARN("skipped as root (chmod does not stop root from reading): " << c.name);
      continue;
    }
    check_case(c, d);
  }
}

TEST_CASE("cli: the valid inputs of the fault table do run (the table tests what it says)",
          "[cli][faults]") {
  const unsigned seed = 20261204;
  INFO("seed " << seed);
  fault::TempDir d;
  make_inputs(d, seed);
  const std::vector<std::vector<std::string>> ok = {
      {"run", "--variant", "gqa", "--q", "@q.npy", "--k", "@k.npy", "--v", "@v.npy", "--out",
       "@o1.npy", "--lens", "@lens.npy"},
      {"run", "--variant", "swa", "--window", "3", "--q", "@q.npy", "--k", "@k.npy", "--v",
       "@v.npy", "--out", "@o2.npy"},
      {"run", "--variant", "mqa", "--q", "@q.npy", "--k", "@k_mqa.npy", "--v", "@v_mqa.npy",
       "--out", "@o3.npy"},
      {"run", "--variant", "mla", "--q", "@q_mla.npy", "--kv", "@kv_mla.npy", "--latent-dim", "16",
       "--out", "@o4.npy"},
      {"kv", "--config", "@cfg_ok.json"},
      {"kv", "--preset", "llama-3-8b", "--seq", "4096", "--batch", "2", "--tp", "2", "--json"},
  };
  for (const auto& args : ok) {
    const fault::ProcResult r = fault::run_process(fault::attnlab_argv(expand(args, d)), 60);
    INFO(args[0] << " " << args[1] << " " << args[2] << ": " << r.describe());
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
  }
  CHECK(attn::read_npy_float(d / "o1.npy").shape == std::vector<std::int64_t>{kB, kHq, kD});
  CHECK(attn::read_npy_float(d / "o4.npy").shape == std::vector<std::int64_t>{kB, kMlaH, kDl});
}

TEST_CASE("cli: NaN in an input tensor is reported or computed, never a crash", "[cli][faults]") {
  const unsigned seed = 20261205;
  INFO("seed " << seed);
  fault::TempDir d;
  make_inputs(d, seed);
  std::mt19937 rng(seed);
  attn::TensorF q = random_tensor({kB, kHq, kD}, rng);
  q.data[5] = std::numeric_limits<float>::quiet_NaN();
  fault::write_bytes(d / "q_nan.npy", attn::npy_bytes(q));
  const fault::ProcResult r = fault::run_process(
      fault::attnlab_argv(expand({"run", "--variant", "gqa", "--q", "@q_nan.npy", "--k", "@k.npy",
                                  "--v", "@v.npy", "--out", "@o.npy"},
                                 d)),
      20);
  INFO(r.describe());
  CHECK_FALSE(r.signaled);
  CHECK((r.exit_code == 0 || r.exit_code == 2));
  if (r.exit_code == 2) {
    REQUIRE(r.err_lines().size() == 1);
    CHECK(r.err_lines()[0].rfind("attnlab: error: ", 0) == 0);
    CHECK_FALSE(fs::exists(d / "o.npy"));
  }
}

TEST_CASE("cli: --help states the limits on absurd values", "[cli][faults][limits]") {
  const fault::ProcResult r = fault::run_process(fault::attnlab_argv({"--help"}), 20);
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  const std::string& h = r.out;
  auto has_any = [&](std::vector<std::string> forms) {
    for (const std::string& f : forms)
      if (h.find(f) != std::string::npos) return true;
    return false;
  };
  CHECK(has_any({"imit"}));  // "Limits" / "limits"
  CHECK(has_any({std::to_string(attn::Limits::kMaxLayers)}));
  CHECK(has_any({std::to_string(attn::Limits::kMaxHeads)}));
  CHECK(has_any({std::to_string(attn::Limits::kMaxHeadDim)}));
  CHECK(has_any({std::to_string(attn::Limits::kMaxSeq), "64 Mi", "2^26"}));
  CHECK(has_any({std::to_string(attn::Limits::kMaxBatch), "1 Mi", "2^20"}));
  CHECK(has_any({std::to_string(attn::Limits::kMaxConfigBytes), "16 MiB", "16 MB"}));
  CHECK(has_any({std::to_string(attn::Limits::kMaxTensorBytes), "16 GiB", "16 GB"}));
}

TEST_CASE("cli: --device gpu without a GPU gives exit 3 and one error line",
          "[cli][faults][gpu-absent]") {
  if (kern::query_device().available) {
    WARN("skipped: this machine has a GPU (the GPU fault tests are in tests/gpu)");
    return;
  }
  fault::TempDir d;
  make_inputs(d, 20261206);
  const std::vector<std::vector<std::string>> cmds = {
      {"run", "--variant", "gqa", "--q", "@q.npy", "--k", "@k.npy", "--v", "@v.npy", "--out",
       "@out.npy", "--device", "gpu"},
      {"run", "--variant", "mla", "--q", "@q_mla.npy", "--kv", "@kv_mla.npy", "--latent-dim", "16",
       "--out", "@out.npy", "--device", "gpu", "--dtype", "fp8"},
      {"bench", "--variant", "gqa", "--batch", "1", "--seq", "16", "--q-heads", "2", "--kv-heads",
       "1", "--head-dim", "8", "--device", "gpu", "--json", "@out.json"},
  };
  for (const auto& args : cmds) check_case({args[0] + " --device gpu", args, {3}, ""}, d);
}
