#include "attention/units.h"

#include <cmath>
#include <cstdio>

namespace attn {
namespace {

// Three significant digits: 1.23, 12.3, 123.
std::string three_digits(double v) {
  char buf[32];
  const double a = std::fabs(v);
  if (a >= 99.95)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (a >= 9.995)
    std::snprintf(buf, sizeof buf, "%.1f", v);
  else
    std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string scaled(double v, double base, const char* const* units, int n_units,
                   const char* suffix) {
  if (!std::isfinite(v)) return "n/a";
  int u = 0;
  double a = std::fabs(v);
  // Move up a unit when the rounded value would print as 1000 (or 1024) of the smaller one.
  while (u + 1 < n_units && a >= base * 0.9995) {
    a /= base;
    v /= base;
    ++u;
  }
  return three_digits(v) + " " + units[u] + suffix;
}

}  // namespace

std::string format_bytes(double bytes) {
  if (!std::isfinite(bytes)) return "n/a";
  if (std::fabs(bytes) < 1024.0 * 0.9995) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f B", bytes);
    return buf;
  }
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  return scaled(bytes, 1024.0, kUnits, 7, "");
}

std::string format_si(double value) {
  if (!std::isfinite(value)) return "n/a";
  if (std::fabs(value) < 999.5) {
    char buf[32];
    if (value == std::floor(value))
      std::snprintf(buf, sizeof buf, "%.0f", value);
    else
      return three_digits(value);
    return buf;
  }
  static const char* const kUnits[] = {"", "k", "M", "G", "T", "P", "E"};
  return scaled(value, 1000.0, kUnits, 7, "");
}

std::string format_flops(double flops) {
  if (!std::isfinite(flops)) return "n/a";
  static const char* const kUnits[] = {"", "k", "M", "G", "T", "P", "E"};
  return scaled(flops, 1000.0, kUnits, 7, "FLOP");
}

std::string format_bandwidth(double bytes_per_s) {
  if (!std::isfinite(bytes_per_s)) return "n/a";
  static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  return scaled(bytes_per_s, 1000.0, kUnits, 6, "/s");
}

std::string format_duration_us(double us) {
  if (!std::isfinite(us)) return "n/a";
  const double a = std::fabs(us);
  if (a < 0.9995) return three_digits(us * 1000.0) + " ns";
  if (a < 999.5) return three_digits(us) + " us";
  if (a < 999.5e3) return three_digits(us / 1e3) + " ms";
  return three_digits(us / 1e6) + " s";
}

std::string format_tokens(double tokens) {
  if (!std::isfinite(tokens)) return "n/a";
  char buf[48];
  const double r = std::round(tokens);
  if (r == tokens && r >= 1048576.0 && std::fmod(r, 1048576.0) == 0.0) {
    std::snprintf(buf, sizeof buf, "%.0fM", r / 1048576.0);
  } else if (r == tokens && r >= 1024.0 && std::fmod(r, 1024.0) == 0.0) {
    std::snprintf(buf, sizeof buf, "%.0fk", r / 1024.0);
  } else if (r == tokens) {
    std::snprintf(buf, sizeof buf, "%.0f", r);
  } else if (std::fabs(tokens) >= 100) {
    std::snprintf(buf, sizeof buf, "%.0f", r);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", tokens);
  }
  return buf;
}

std::string format_ratio(double ratio) {
  if (!std::isfinite(ratio)) return "n/a";
  if (ratio != 0.0 && std::fabs(ratio) < 0.995) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3gx", ratio);
    return buf;
  }
  return three_digits(ratio) + "x";
}

}  // namespace attn
