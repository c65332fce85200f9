// libFuzzer target: the results-file reader (kern::parse_bench_report), which the explorer
// uses to import results made on other machines.
// Properties: any text parses or is rejected with attn::InputError; a report that parses is
// written back by bench_report_json and that text parses again to the same results.
#include <cstddef>
#include <cstdint>
#include <string>

#include "attention/error.h"
#include "kernels/bench.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  kern::BenchReport r;
  try {
    r = kern::parse_bench_report(text, "fuzz/results.json");
  } catch (const attn::InputError&) {
    return 0;
  }
  const std::string again = kern::bench_report_json(r);
  kern::BenchReport r2;
  try {
    r2 = kern::parse_bench_report(again, "roundtrip.json");
  } catch (const attn::InputError&) {
    __builtin_trap();  // the reader refused what the writer wrote
  }
  if (r2.results.size() != r.results.size()) __builtin_trap();
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const kern::BenchResult& x = r.results[i];
    const kern::BenchResult& y = r2.results[i];
    if (x.c.variant != y.c.variant || x.c.batch != y.c.batch || x.c.seq != y.c.seq ||
        x.c.q_heads != y.c.q_heads || x.c.kv_heads != y.c.kv_heads ||
        x.c.head_dim != y.c.head_dim || x.c.dtype != y.c.dtype || x.runs != y.runs ||
        x.checked != y.checked || x.device != y.device)
      __builtin_trap();
  }
  return 0;
}
