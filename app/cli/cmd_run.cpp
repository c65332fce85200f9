// `attnlab run`: one decode step on NPY inputs (docs/DESIGN.md sections 2 and 3).
//
//   grouped (mha, mqa, gqa, swa): q [B, Hq, D]; k, v [B, S, Hkv, D] -> out [B, Hq, D]
//   mla (absorbed):               q [B, H, Dl + Dr]; kv [B, S, Dl + Dr] -> out [B, H, Dl]
//   lens [B] (int32/int64, 0 <= len <= S), optional.
//
// Every shape is checked against the variant's claim before any work; a failed run writes
// nothing (the output is written to a temporary name and renamed).
#include <CLI/CLI.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "app/cli/cli_internal.h"
#include "attention/config.h"
#include "attention/dtype.h"
#include "attention/error.h"
#include "attention/mxfp4.h"
#include "attention/npy.h"
#include "attention/reference.h"
#include "attention/tensor.h"
#include "kernels/gpu.h"

namespace app::cli {
namespace {

using attn::InputError;
using Shape = std::vector<std::int64_t>;

// "[2, S, Hkv, 128]": known entries as numbers, unknown ones by their letter.
std::string shape_with_letters(const std::vector<std::string>& letters, const Shape& known) {
  std::string s = "[";
  for (std::size_t i = 0; i < letters.size(); ++i) {
    if (i) s += ", ";
    s += known[i] >= 0 ? std::to_string(known[i]) : letters[i];
  }
  return s + "]";
}

std::string letters_text(const std::vector<std::string>& letters) {
  std::string s = "[";
  for (std::size_t i = 0; i < letters.size(); ++i) s += (i ? ", " : "") + letters[i];
  return s + "]";
}

// Throws "FILE: expected shape [B, S, Hkv, D] = [2, 54, 8, 128] (from WHY), found [..]" when
// `found` differs from `expected` (entries < 0 are free and take the found value).
void expect_shape(const std::string& file, const std::vector<std::string>& letters, Shape expected,
                  const std::string& why, const Shape& found) {
  bool ok = found.size() == expected.size();
  if (ok) {
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (expected[i] < 0) expected[i] = found[i];
      ok = ok && expected[i] == found[i];
    }
  }
  if (ok) return;
  std::string msg = file + ": expected shape " + letters_text(letters) + " = " +
                    shape_with_letters(letters, expected);
  if (!why.empty()) msg += " (from " + why + ")";
  msg += ", found " + attn::shape_string(found);
  throw InputError(msg);
}

// Every dimension >= 1 and within the limits, naming the letter.
void expect_dims_in_range(const std::string& file, const std::vector<std::string>& letters,
                          const Shape& shape, const std::vector<std::int64_t>& max) {
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 1 || shape[i] > max[i]) {
      throw InputError(format("%s: %s = %lld is out of range 1..%lld in shape %s %s", file.c_str(),
                              letters[i].c_str(), static_cast<long long>(shape[i]),
                              static_cast<long long>(max[i]), letters_text(letters).c_str(),
                              attn::shape_string(shape).c_str()));
    }
  }
}

attn::TensorF load_float(const std::string& file) {
  const attn::NpyArray a = attn::read_npy(file);
  attn::TensorF t = attn::npy_to_float(a, file);
  for (std::size_t i = 0; i < t.data.size(); ++i) {
    if (!std::isfinite(t.data[i]))
      throw InputError(format("%s: element %zu is %s; inputs must be finite", file.c_str(), i,
                              std::isnan(t.data[i]) ? "NaN" : "infinite"));
  }
  return t;
}

// Rounds a tensor to the storage the GPU would use, so the CPU reference sees the same numbers.
// fp8 (e4m3, one float32 scale per tensor) and mxfp4 (E2M1, one E8M0 scale per 32 elements)
// apply to the KV tensors; queries are bf16 then.
void round_to_storage(attn::TensorF& t, attn::DType dt, bool is_cache, const std::string& file) {
  if (dt == attn::DType::kFp32) return;
  if (dt == attn::DType::kMxfp4 && is_cache) {
    // Blocks of 32 along the last dimension (a token's latent row, or a head's key / value
    // row), as AMD's MI355X problem stores its cache.
    const std::size_t cols = static_cast<std::size_t>(t.shape.back());
    if (cols % 2 != 0)
      throw InputError(
          format("%s: mxfp4 packs two elements a byte, so the last dimension must be "
                 "even, found %zu",
                 file.c_str(), cols));
    attn::round_to_mxfp4(t.data.data(), t.data.size() / cols, cols);
    return;
  }
  if (dt == attn::DType::kFp8 && is_cache) {
    float amax = 0;
    for (float x : t.data) amax = std::fmax(amax, std::fabs(x));
    const float scale = attn::e4m3_scale_for(amax);
    for (float& x : t.data) x = attn::round_to_e4m3(x, scale);
    return;
  }
  const bool fp16 = dt == attn::DType::kFp16;
  for (std::size_t i = 0; i < t.data.size(); ++i) {
    const float r = fp16 ? attn::round_to_fp16(t.data[i]) : attn::round_to_bf16(t.data[i]);
    if (!std::isfinite(r))
      throw InputError(format("%s: element %zu = %g does not fit %s (largest %s)", file.c_str(), i,
                              static_cast<double>(t.data[i]), fp16 ? "fp16" : "bf16",
                              fp16 ? "65504" : "3.39e38"));
    t.data[i] = r;
  }
}

std::vector<std::int64_t> load_lens(const std::string& file, std::int64_t batch, std::int64_t seq,
                                    const std::string& q_file, const std::string& seq_file) {
  const attn::NpyArray a = attn::read_npy(file);
  std::vector<std::int64_t> lens = attn::npy_to_int64(a, file);
  expect_shape(file, {"B"}, {batch}, q_file, a.shape);
  for (std::size_t b = 0; b < lens.size(); ++b) {
    if (lens[b] < 0 || lens[b] > seq)
      throw InputError(format("%s: lens[%zu] = %lld is out of range 0..%lld (S of %s)",
                              file.c_str(), b, static_cast<long long>(lens[b]),
                              static_cast<long long>(seq), seq_file.c_str()));
  }
  return lens;
}

// --latent-dim as Dl in 1 .. Dl + Dr, where Dl + Dr is the last dimension of the queries in
// `q_file` (the error says where that upper bound comes from).
int parse_latent_dim(const std::string& text, std::int64_t width, const std::string& q_file) {
  try {
    return static_cast<int>(parse_int("--latent-dim", text, 1, width));
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + " (Dl <= Dl + Dr = " + std::to_string(width) +
                     ", the last dim of " + q_file + ")");
  }
}

attn::TensorF to_float(const std::vector<double>& d, Shape shape) {
  attn::TensorF t(std::move(shape));
  for (std::size_t i = 0; i < d.size(); ++i) t.data[i] = static_cast<float>(d[i]);
  return t;
}

}  // namespace

void RunCommand::add(CLI::App& root) {
  sub = root.add_subcommand(
      "run",
      "Run one decode step on .npy inputs and write the output (float32 .npy).\n"
      "  grouped: --variant {mha,mqa,gqa,swa} --q q.npy --k k.npy --v v.npy --out o.npy\n"
      "           q [B, Hq, D], k and v [B, S, Hkv, D], out [B, Hq, D]\n"
      "  mla:     --variant mla --q q.npy --kv kv.npy --latent-dim Dl --out o.npy\n"
      "           q [B, H, Dl+Dr], kv [B, S, Dl+Dr], out [B, H, Dl]\n"
      "  --device cpu (default) computes the float64 reference; --device gpu runs the kernels.");
  sub->add_option("--variant", variant, "mha, mqa, gqa, swa or mla")->type_name("V");
  sub->add_option("--q", q, "Queries")->type_name("q.npy");
  sub->add_option("--k", k, "Keys (grouped variants)")->type_name("k.npy");
  sub->add_option("--v", v, "Values (grouped variants)")->type_name("v.npy");
  sub->add_option("--kv", kv, "Latent cache (mla)")->type_name("kv.npy");
  sub->add_option("--latent-dim", latent_dim, "Dl: the value columns of kv (mla)")->type_name("Dl");
  sub->add_option("--out", out, "Output file (written atomically)")->type_name("o.npy");
  sub->add_option("--window", window, "Sliding window W >= 1 (needed by swa)")->type_name("W");
  sub->add_option("--qo-indptr", qo_indptr,
                  "mla, packed batch: [B + 1] int32/int64 row offsets of each sequence's new "
                  "tokens in q [total_q, H, Dl+Dr]")
      ->type_name("qo.npy");
  sub->add_option("--kv-indptr", kv_indptr,
                  "mla, packed batch: [B + 1] row offsets of each sequence's cache in kv "
                  "[total_kv, 1, Dl+Dr] (its last tokens are the new ones)")
      ->type_name("kv.npy");
  sub->add_option("--q-len", q_len,
                  "mla: T new tokens a sequence, causal among them; q [B, T, H, Dl+Dr], out "
                  "[B, T, H, Dl] (1..64, default 1 with q [B, H, Dl+Dr])")
      ->type_name("T");
  sub->add_option("--lens", lens, "Valid positions per sequence, int32/int64 [B]")
      ->type_name("lens.npy");
  sub->add_option("--scale", scale, "Softmax scale (default 1/sqrt(D), mla 1/sqrt(Dl+Dr))")
      ->type_name("X");
  sub->add_option("--device", device, "cpu (default) or gpu")->type_name("cpu|gpu");
  sub->add_option("--dtype", dtype,
                  "Storage dtype: fp32 (cpu default), bf16 (gpu default), fp16, fp8, mxfp4 (E2M1 "
                  "with one E8M0 scale per 32; gpu: mla only); on the cpu the inputs are rounded "
                  "to it first")
      ->type_name("DT");
}

int RunCommand::run() {
  auto given = [&](const char* flag) { return sub->count(flag) > 0; };
  if (!given("--variant")) throw InputError("run: needs --variant (mha, mqa, gqa, swa or mla)");
  const auto var = attn::parse_variant(variant);
  if (!var)
    throw InputError("--variant: expected one of mha, mqa, gqa, swa, mla, found '" + variant + "'");
  const bool mla = *var == attn::Variant::kMla;
  const std::string vflag = "--variant " + variant;

  if (given("--device") && device != "cpu" && device != "gpu")
    throw InputError("--device: expected cpu or gpu, found '" + device + "'");
  const bool gpu = given("--device") && device == "gpu";
  attn::DType dt = gpu ? attn::DType::kBf16 : attn::DType::kFp32;
  if (given("--dtype")) dt = parse_dtype_flag("--dtype", dtype, true);
  if (gpu && dt == attn::DType::kMxfp4 && !mla)
    throw InputError(
        "--dtype mxfp4: the GPU kernels read mxfp4 caches for --variant mla only; use --device "
        "cpu");
  if (gpu && dt == attn::DType::kFp32)
    throw InputError("--dtype fp32: the GPU kernels take bf16, fp16 or fp8 (--device gpu)");

  // Which files the variant takes.
  const std::vector<const char*> needed =
      mla ? std::vector<const char*>{"--q", "--kv", "--latent-dim", "--out"}
          : std::vector<const char*>{"--q", "--k", "--v", "--out"};
  for (const char* f : needed)
    if (!given(f)) throw InputError(format("run: %s needs %s", vflag.c_str(), f));
  const std::vector<const char*> unused = mla ? std::vector<const char*>{"--k", "--v", "--window"}
                                              : std::vector<const char*>{"--kv", "--latent-dim"};
  for (const char* f : unused)
    if (given(f))
      throw InputError(format(
          "run: %s is not used by %s (%s)", f, vflag.c_str(),
          mla ? "mla takes --q, --kv and --latent-dim" : "grouped variants take --q, --k and --v"));
  check_output_target("--out", out);  // before reading or computing anything
  int w = 0;
  if (given("--window"))
    w = static_cast<int>(parse_int("--window", window, 1, attn::Limits::kMaxSeq));
  if (*var == attn::Variant::kSwa && w == 0)
    throw InputError("run: --variant swa needs --window W (W >= 1)");
  const double sc = given("--scale") ? parse_positive("--scale", scale) : 0.0;
  g_using_gpu = gpu;
  const bool ragged = given("--qo-indptr") || given("--kv-indptr") || given("--q-len");
  if (ragged) {
    if (!mla) throw InputError("run: --q-len, --qo-indptr and --kv-indptr are for --variant mla");
    return run_mla_ragged(dt, sc, gpu);
  }

  // ---- queries ---------------------------------------------------------------------------
  attn::TensorF tq = load_float(q);
  const std::vector<std::string> q_letters =
      mla ? std::vector<std::string>{"B", "H", "Dl+Dr"} : std::vector<std::string>{"B", "Hq", "D"};
  if (tq.rank() != 3)
    throw InputError(q + ": expected shape " + letters_text(q_letters) + ", found " +
                     attn::shape_string(tq.shape));
  expect_dims_in_range(q, q_letters, tq.shape,
                       {attn::Limits::kMaxBatch, attn::Limits::kMaxHeads,
                        mla ? 2 * attn::Limits::kMaxHeadDim : attn::Limits::kMaxHeadDim});
  const std::int64_t B = tq.dim(0), Hq = tq.dim(1), D = tq.dim(2);
  attn::TensorF tout;
  std::string summary;

  if (!mla) {
    // ---- grouped: k [B, S, Hkv, D], v the same --------------------------------------------
    const std::vector<std::string> kv_letters = {"B", "S", "Hkv", "D"};
    attn::TensorF tk = load_float(k);
    const std::int64_t hkv_claim = *var == attn::Variant::kMha   ? Hq
                                   : *var == attn::Variant::kMqa ? 1
                                                                 : -1;
    expect_shape(k, kv_letters, {B, -1, hkv_claim, D}, q + " and " + vflag, tk.shape);
    expect_dims_in_range(k, kv_letters, tk.shape,
                         {attn::Limits::kMaxBatch, attn::Limits::kMaxSeq, attn::Limits::kMaxHeads,
                          attn::Limits::kMaxHeadDim});
    const std::int64_t S = tk.dim(1), Hkv = tk.dim(2);
    if (Hq % Hkv != 0)
      throw InputError(
          format("%s: Hkv = %lld does not divide Hq = %lld of %s (%s needs Hq = G * "
                 "Hkv)",
                 k.c_str(), static_cast<long long>(Hkv), static_cast<long long>(Hq), q.c_str(),
                 vflag.c_str()));
    attn::TensorF tv = load_float(v);
    expect_shape(v, kv_letters, {B, S, Hkv, D}, k, tv.shape);
    std::vector<std::int64_t> lv;
    if (given("--lens")) lv = load_lens(lens, B, S, q, k);

    attn::GroupedDecodeShape s;
    s.batch = B;
    s.seq = S;
    s.q_heads = static_cast<int>(Hq);
    s.kv_heads = static_cast<int>(Hkv);
    s.head_dim = static_cast<int>(D);
    s.value_dim = static_cast<int>(D);
    s.window = w;
    s.scale = sc;
    const std::int64_t* lp = lv.empty() ? nullptr : lv.data();
    if (gpu) {
      tout = attn::TensorF({B, Hq, D});
      kern::gpu_decode_grouped(s, tq.ptr(), tk.ptr(), tv.ptr(), lp, tout.ptr(), dt);
    } else {
      round_to_storage(tq, dt, false, q);
      round_to_storage(tk, dt, true, k);
      round_to_storage(tv, dt, true, v);
      std::vector<double> od(static_cast<std::size_t>(B * Hq * D));
      attn::decode_grouped<double>(s, tq.ptr(), tk.ptr(), tv.ptr(), lp, od.data(), 0);
      tout = to_float(od, {B, Hq, D});
    }
    summary = format("%s B %lld, S %lld, Hq %lld, Hkv %lld, D %lld%s", variant.c_str(),
                     static_cast<long long>(B), static_cast<long long>(S),
                     static_cast<long long>(Hq), static_cast<long long>(Hkv),
                     static_cast<long long>(D), w ? format(", W %d", w).c_str() : "");
  } else {
    // ---- mla: kv [B, S, Dl + Dr] ------------------------------------------------------------
    const int Dl = parse_latent_dim(latent_dim, D, q);
    attn::TensorF tkv = load_float(kv);
    const std::vector<std::string> kv_letters = {"B", "S", "Dl+Dr"};
    expect_shape(kv, kv_letters, {B, -1, D}, q + " and " + vflag, tkv.shape);
    expect_dims_in_range(kv, kv_letters, tkv.shape,
                         {attn::Limits::kMaxBatch, attn::Limits::kMaxSeq, D});
    const std::int64_t S = tkv.dim(1);
    std::vector<std::int64_t> lv;
    if (given("--lens")) lv = load_lens(lens, B, S, q, kv);

    attn::MlaDecodeShape s;
    s.batch = B;
    s.seq = S;
    s.heads = static_cast<int>(Hq);
    s.latent_dim = Dl;
    s.rope_dim = static_cast<int>(D) - Dl;
    s.scale = sc;
    const std::int64_t* lp = lv.empty() ? nullptr : lv.data();
    if (gpu) {
      tout = attn::TensorF({B, Hq, Dl});
      kern::gpu_decode_mla(s, tq.ptr(), tkv.ptr(), lp, tout.ptr(), dt);
    } else {
      round_to_storage(tq, dt, false, q);
      round_to_storage(tkv, dt, true, kv);
      std::vector<double> od(static_cast<std::size_t>(B * Hq * Dl));
      attn::decode_mla_absorbed<double>(s, tq.ptr(), tkv.ptr(), lp, od.data(), 0);
      tout = to_float(od, {B, Hq, Dl});
    }
    summary =
        format("mla B %lld, S %lld, H %lld, Dl %d, Dr %d", static_cast<long long>(B),
               static_cast<long long>(S), static_cast<long long>(Hq), Dl, static_cast<int>(D) - Dl);
  }

  return finish(tout, summary, gpu, dt);
}

int RunCommand::finish(const attn::TensorF& tout, const std::string& summary, bool gpu,
                       attn::DType dt) {
  attn::write_npy(out, tout);
  const std::string how =
      gpu ? format("gpu kernel, %s storage", std::string(attn::dtype_name(dt)).c_str())
          : format("cpu float64 reference on %s inputs", std::string(attn::dtype_name(dt)).c_str());
  emit_text("-", format("%s: %s float32 (%s; %s)", out.c_str(),
                        attn::shape_string(tout.shape).c_str(), summary.c_str(), how.c_str()));
  return 0;
}

int RunCommand::run_mla_ragged(attn::DType dt, double scale_value, bool gpu) {
  const auto given = [&](const char* f) { return sub->count(f) > 0; };
  const bool packed = given("--qo-indptr") || given("--kv-indptr");
  if (packed && !(given("--qo-indptr") && given("--kv-indptr")))
    throw InputError(
        format("run: a packed batch needs both --qo-indptr and --kv-indptr (%s is "
               "missing)",
               given("--qo-indptr") ? "--kv-indptr" : "--qo-indptr"));
  if (packed && given("--q-len"))
    throw InputError(
        "run: --q-len is not used with --qo-indptr: each sequence's new tokens are "
        "its span of --qo-indptr");
  if (packed && given("--lens"))
    throw InputError(
        "run: --lens is not used with --kv-indptr: each sequence's cache is its "
        "span of --kv-indptr");
  attn::TensorF tq = load_float(q);
  attn::TensorF tkv = load_float(kv);
  std::vector<attn::MlaSequence> seqs;
  std::int64_t H = 0, Dk = 0;
  Shape out_shape;
  std::string summary;
  if (packed) {
    // q [total_q, H, Dl+Dr]; kv [total_kv, 1, Dl+Dr] (AMD's layout) or [total_kv, Dl+Dr].
    const std::vector<std::string> q_letters = {"total_q", "H", "Dl+Dr"};
    if (tq.rank() != 3)
      throw InputError(q + ": expected shape " + letters_text(q_letters) +
                       " with --qo-indptr, "
                       "found " +
                       attn::shape_string(tq.shape));
    expect_dims_in_range(
        q, q_letters, tq.shape,
        {attn::Limits::kMaxSeq, attn::Limits::kMaxHeads, 2 * attn::Limits::kMaxHeadDim});
    H = tq.dim(1);
    Dk = tq.dim(2);
    if (tkv.rank() == 3) {
      expect_shape(kv, {"total_kv", "1", "Dl+Dr"}, {-1, 1, Dk}, q, tkv.shape);
      tkv.shape = {tkv.dim(0), Dk};
    }
    expect_shape(kv, {"total_kv", "Dl+Dr"}, {-1, Dk}, q, tkv.shape);
    const auto read_indptr = [](const std::string& file) {
      const attn::NpyArray a = attn::read_npy(file);
      if (a.shape.size() != 1)
        throw InputError(file + ": expected shape [B + 1], found " + attn::shape_string(a.shape));
      return attn::npy_to_int64(a, file);
    };
    seqs = attn::mla_sequences_from_indptr(read_indptr(qo_indptr), read_indptr(kv_indptr),
                                           tq.dim(0), tkv.dim(0), qo_indptr, kv_indptr);
    out_shape = {tq.dim(0), H};
    summary = format("mla packed, B %zu, total_q %lld, total_kv %lld, H %lld", seqs.size(),
                     static_cast<long long>(tq.dim(0)), static_cast<long long>(tkv.dim(0)),
                     static_cast<long long>(H));
  } else {
    // q [B, T, H, Dl+Dr]; kv [B, S, Dl+Dr]; lens [B] optional, each >= T.
    const std::int64_t T = parse_int("--q-len", q_len, 1, 64);
    const std::vector<std::string> q_letters = {"B", "T", "H", "Dl+Dr"};
    expect_shape(q, q_letters, {-1, T, -1, -1}, "--q-len", tq.shape);
    expect_dims_in_range(
        q, q_letters, tq.shape,
        {attn::Limits::kMaxBatch, 64, attn::Limits::kMaxHeads, 2 * attn::Limits::kMaxHeadDim});
    const std::int64_t B = tq.dim(0);
    H = tq.dim(2);
    Dk = tq.dim(3);
    const std::vector<std::string> kv_letters = {"B", "S", "Dl+Dr"};
    expect_shape(kv, kv_letters, {B, -1, Dk}, q, tkv.shape);
    expect_dims_in_range(kv, kv_letters, tkv.shape,
                         {attn::Limits::kMaxBatch, attn::Limits::kMaxSeq, Dk});
    const std::int64_t S = tkv.dim(1);
    std::vector<std::int64_t> lv(static_cast<std::size_t>(B), S);
    if (given("--lens")) lv = load_lens(lens, B, S, q, kv);
    for (std::int64_t b = 0; b < B; ++b) {
      const std::int64_t len = lv[static_cast<std::size_t>(b)];
      if (len < T)
        throw InputError(
            format("%s: sequence %lld has %lld cached tokens for %lld new ones "
                   "(--q-len); the new tokens are the last of the cache",
                   given("--lens") ? lens.c_str() : kv.c_str(), static_cast<long long>(b),
                   static_cast<long long>(len), static_cast<long long>(T)));
      seqs.push_back({b * T, T, b * S, len});
    }
    out_shape = {B, T, H};
    summary =
        format("mla B %lld, T %lld causal, S %lld, H %lld", static_cast<long long>(B),
               static_cast<long long>(T), static_cast<long long>(S), static_cast<long long>(H));
  }
  const int Dl = parse_latent_dim(latent_dim, Dk, q);
  summary += format(", Dl %d, Dr %lld", Dl, static_cast<long long>(Dk - Dl));
  attn::MlaRaggedShape s;
  s.heads = static_cast<int>(H);
  s.latent_dim = Dl;
  s.rope_dim = static_cast<int>(Dk) - Dl;
  s.scale = scale_value;
  std::int64_t rows = 1;  // query rows x heads
  for (std::int64_t d : out_shape) rows *= d;
  const std::int64_t total_q = rows / H;  // [B, S, Dk] padded or [total_kv, Dk] packed
  const std::int64_t total_kv = tkv.rank() == 3 ? tkv.dim(0) * tkv.dim(1) : tkv.dim(0);
  out_shape.push_back(Dl);
  if (gpu) {  // the device rounds to its storage itself
    attn::TensorF tout(out_shape);
    kern::gpu_decode_mla_ragged(s, tq.ptr(), total_q, tkv.ptr(), total_kv, seqs, tout.ptr(), dt);
    return finish(tout, summary, true, dt);
  }
  round_to_storage(tq, dt, false, q);
  round_to_storage(tkv, dt, true, kv);
  std::vector<double> od(static_cast<std::size_t>(rows * Dl), 0.0);
  attn::decode_mla_ragged(s, tq.ptr(), tkv.ptr(), seqs, od.data());
  return finish(to_float(od, out_shape), summary, false, dt);
}

}  // namespace app::cli
