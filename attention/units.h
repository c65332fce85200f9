// Numbers a person reads: bytes in binary units (KiB, MiB, GiB), counts and FLOPs with SI
// prefixes, sequence lengths as LLM people write them (4k = 4096, 128k = 131072).
// Pure functions (no ImGui), tested in tests/test_units.cpp; the CLI and the explorer both print
// through it.
#pragma once
#include <cstdint>
#include <string>

namespace attn {

// 3 significant digits, binary units: "512 B", "1.00 KiB", "15.6 GiB", "2.50 TiB".
std::string format_bytes(double bytes);
// SI prefixes, 3 significant digits: "950", "1.20 k", "3.40 M", "7.00 G".
std::string format_si(double value);
// FLOPs: "1.20 GFLOP". Rates: "3.35 TB/s" (decimal, as datasheets write bandwidth).
std::string format_flops(double flops);
std::string format_bandwidth(double bytes_per_s);
// Microseconds, switching to ms / s: "12.3 us", "1.50 ms".
std::string format_duration_us(double us);
// Sequence lengths: multiples of 1024 as "k" (131072 -> "128k"), of 1048576 as "M"; else the
// integer as is ("1000", "54").
std::string format_tokens(double tokens);
// A ratio as "57.0x" / "0.125x".
std::string format_ratio(double ratio);

}  // namespace attn
