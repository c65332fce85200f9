// Strict number parsing and output helpers of the command line.
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "app/cli/cli_internal.h"
#include "attention/error.h"
#include "attention/npy.h"

namespace app::cli {

bool g_using_gpu = false;

namespace {

std::string quoted(const std::string& s) {
  // Keep the message one line and printable whatever the user typed.
  std::string out = "'";
  for (char ch : s.substr(0, 64)) {
    const auto u = static_cast<unsigned char>(ch);
    out += (u < 0x20 || u == 0x7f) ? '?' : ch;
  }
  if (s.size() > 64) out += "...";
  return out + "'";
}

}  // namespace

std::string format(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, args);
  va_end(args);
  return out;
}

std::int64_t parse_int(const std::string& flag, const std::string& text, std::int64_t lo,
                       std::int64_t hi) {
  const std::string want =
      format("%s: expected an integer from %lld to %lld, found %s", flag.c_str(),
             static_cast<long long>(lo), static_cast<long long>(hi), quoted(text).c_str());
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  if (i == text.size()) throw attn::InputError(want);
  // Accumulate in unsigned with an overflow check; digits only (no "1e3", "0x10", "12x").
  unsigned long long value = 0;
  for (; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch < '0' || ch > '9') throw attn::InputError(want);
    const unsigned long long digit = static_cast<unsigned long long>(ch - '0');
    if (value > (~0ull - digit) / 10) throw attn::InputError(want);
    value = value * 10 + digit;
  }
  if (value > static_cast<unsigned long long>(INT64_MAX)) throw attn::InputError(want);
  const std::int64_t v =
      negative ? -static_cast<std::int64_t>(value) : static_cast<std::int64_t>(value);
  if (v < lo || v > hi) throw attn::InputError(want);
  return v;
}

double parse_positive(const std::string& flag, const std::string& text) {
  const std::string want =
      format("%s: expected a finite number > 0, found %s", flag.c_str(), quoted(text).c_str());
  if (text.empty() || text.size() > 64) throw attn::InputError(want);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v) || !(v > 0))
    throw attn::InputError(want);
  return v;
}

attn::DType parse_dtype_flag(const std::string& flag, const std::string& text, bool allow_mxfp4) {
  const auto dt = attn::parse_dtype(text);
  if (!dt || (*dt == attn::DType::kMxfp4 && !allow_mxfp4)) {
    throw attn::InputError(format("%s: expected one of fp32, fp16, bf16, fp8%s, found %s",
                                  flag.c_str(), allow_mxfp4 ? ", mxfp4" : "",
                                  quoted(text).c_str()));
  }
  return *dt;
}

void emit_text(const std::string& target, const std::string& text) {
  if (target.empty() || target == "-") {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
        std::fputc('\n', stdout) == EOF || std::fflush(stdout) != 0) {
      throw attn::InputError("cannot write to standard output");
    }
    return;
  }
  attn::write_file_atomic(target, text + "\n");
}

void check_output_target(const std::string& flag, const std::string& target) {
  if (target.empty() || target == "-") return;
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw attn::InputError(target + ": cannot write " + flag +
                           ": expected a file name, found a directory");
  const std::size_t slash = target.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : target.substr(0, slash);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw attn::InputError(target + ": cannot write " + flag + ": folder " + dir +
                           " does not exist");
  if (::access(dir.c_str(), W_OK) != 0)
    throw attn::InputError(target + ": cannot write " + flag + ": folder " + dir +
                           " is not writable");
}

}  // namespace app::cli
