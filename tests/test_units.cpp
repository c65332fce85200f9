// Human units of attention/units.h.
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "attention/units.h"

namespace {

// "15.6 GiB" -> bytes.
double parse_bytes(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  const std::string unit(end + 1);
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  for (int i = 0; i < 7; ++i)
    if (unit == units[i]) return v * std::pow(1024.0, i);
  return -1;
}

}  // namespace

TEST_CASE("format_bytes uses binary units with three significant digits", "[gui][units]") {
  CHECK(attn::format_bytes(0) == "0 B");
  CHECK(attn::format_bytes(512) == "512 B");
  CHECK(attn::format_bytes(1024) == "1.00 KiB");
  CHECK(attn::format_bytes(131072) == "128 KiB");
  CHECK(attn::format_bytes(4.0 * 1024 * 1024 * 1024) == "4.00 GiB");
  CHECK(attn::format_bytes(1023.9) == "1.00 KiB");  // never "1024 B"
  CHECK(attn::format_bytes(std::nan("")) == "n/a");
  const unsigned seed = 7101;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> e(0, 60);
  for (int i = 0; i < 3000; ++i) {
    const double b = std::floor(std::pow(2.0, e(rng)));
    const std::string s = attn::format_bytes(b);
    CAPTURE(b, s);
    const double back = parse_bytes(s);
    REQUIRE(back >= 0);
    CHECK(std::fabs(back - b) <= 0.005 * b + 0.5);  // 3 significant digits
    const double mantissa = std::strtod(s.c_str(), nullptr);
    CHECK(mantissa < 1024);
  }
}

TEST_CASE("format_tokens writes context lengths as people do", "[gui][units]") {
  CHECK(attn::format_tokens(131072) == "128k");
  CHECK(attn::format_tokens(4096) == "4k");
  CHECK(attn::format_tokens(1 << 20) == "1M");
  CHECK(attn::format_tokens(1000) == "1000");
  CHECK(attn::format_tokens(54) == "54");
  CHECK(attn::format_tokens(14203.7) == "14204");
}

TEST_CASE("SI, FLOP, bandwidth, durations and ratios", "[gui][units]") {
  CHECK(attn::format_si(950) == "950");
  CHECK(attn::format_si(1200) == "1.20 k");
  CHECK(attn::format_si(999.7) == "1.00 k");
  CHECK(attn::format_flops(1.2e9) == "1.20 GFLOP");
  CHECK(attn::format_bandwidth(4.8e12) == "4.80 TB/s");
  CHECK(attn::format_duration_us(12.3) == "12.3 us");
  CHECK(attn::format_duration_us(1500) == "1.50 ms");
  CHECK(attn::format_duration_us(0.5) == "500 ns");
  CHECK(attn::format_ratio(57.0) == "57.0x");
  CHECK(attn::format_ratio(0.125) == "0.125x");
}
