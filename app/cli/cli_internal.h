// Internals of the attnlab command line shared by its files (not part of the public API):
// strict number parsing with flag-naming errors, output helpers and the subcommands.
//
// Every subcommand keeps its flags as text and parses them itself, so that every invalid value
// ("0", "-3", "nan", "12x", "1e99") gets one error line that names the flag, what was expected
// and what was found, and exit code 2.
#pragma once
#include <cstdint>
#include <string>

#include "attention/config.h"
#include "attention/dtype.h"
#include "attention/tensor.h"
#include "kernels/bench.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace app::cli {

// ---- parsing -------------------------------------------------------------------------------
// Integer in [lo, hi]; throws attn::InputError "FLAG: expected an integer from lo to hi,
// found 'text'".
std::int64_t parse_int(const std::string& flag, const std::string& text, std::int64_t lo,
                       std::int64_t hi);
// Finite number > 0.
double parse_positive(const std::string& flag, const std::string& text);
// A dtype name; `allowed` lists the accepted ones for the message ("fp32, fp16, bf16 or fp8").
attn::DType parse_dtype_flag(const std::string& flag, const std::string& text, bool allow_mxfp4);

// ---- output --------------------------------------------------------------------------------
// `target` "-" (or empty): stdout; else the file, written atomically. A trailing newline is
// added. Throws InputError when stdout or the file cannot be written.
void emit_text(const std::string& target, const std::string& text);
// Refuses, before any work is done, an output file that cannot be written: a directory, or a
// path in a folder that does not exist or is not writable. "-" and "" (stdout) pass.
void check_output_target(const std::string& flag, const std::string& target);
// "1.50 GiB", "128 KiB", "512 B".
// printf into a std::string.
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// ---- subcommands ---------------------------------------------------------------------------
// Each adds its subcommand to `root` with add(); run() is called when it was selected and
// returns the exit code (errors are thrown: attn::InputError -> 2, attn::DeviceError -> 3).
struct PresetsCommand {
  CLI::App* sub = nullptr;
  CLI::Option* json_opt = nullptr;
  std::string json;
  void add(CLI::App& root);
  int run();
};

struct KvCommand {
  CLI::App* sub = nullptr;
  CLI::Option* json_opt = nullptr;
  std::string preset, config, seq, batch, dtype, tp, json;
  void add(CLI::App& root);
  int run();
};

struct RunCommand {
  CLI::App* sub = nullptr;
  std::string variant, q, k, v, kv, out, window, lens, scale, device, dtype, latent_dim;
  std::string qo_indptr, kv_indptr, q_len;  // mla over several new tokens or packed batches
  void add(CLI::App& root);
  int run();
  // mla with --q-len or --qo-indptr / --kv-indptr (the CPU reference; checked flags given).
  int run_mla_ragged(attn::DType dt, double scale_value, bool gpu);
  // Writes `tout` to --out and prints the one-line summary.
  int finish(const attn::TensorF& tout, const std::string& summary, bool gpu, attn::DType dt);
};

// The flags of one benchmark case (--variant, --batch, --seq, heads, dims, --window, --scale),
// shared by bench and compare.
struct CaseFlags {
  std::string variant, batch, seq, q_heads, kv_heads, head_dim, window, latent_dim, rope_dim, scale;
  void add(CLI::App* sub, const char* variant_help);
  attn::Variant variant_of() const;  // --variant, checked
  // The case the given flags describe (defaults for the rest; dtype left as BenchCase's).
  kern::BenchCase parse(CLI::App* sub) const;
};
// "mla B64 S8192 H16 Dl512 Dr64", "gqa B1 S4096 Hq32 Hkv8 D128 W4096".
std::string bench_case_text(const kern::BenchCase& c);

struct BenchCommand {
  CLI::App* sub = nullptr;
  CLI::Option* json_opt = nullptr;
  CaseFlags shape;
  std::string device, dtype, suite, json, threads, min_runs, min_seconds;
  void add(CLI::App& root);
  int run();
};

// The device a command is using, so an out-of-memory error can be told apart (exit 3 on the
// GPU, 2 on the host).
extern bool g_using_gpu;

struct CompareCommand {
  CLI::App* sub = nullptr;
  CLI::Option* json_opt = nullptr;
  CaseFlags shape;
  std::string device, dtype, seed, json, threads, min_runs, min_seconds;
  void add(CLI::App& root);
  int run();
};

}  // namespace app::cli
