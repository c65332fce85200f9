// The GPU figures recorded in assets/results/ (embedded at build time), looked up by shape: what
// the Compare view, the Learn view's "Measure it" and `attnlab compare` show where no GPU is
// present, always with the GPU, date and commit they were measured on. No ImGui.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/dtype.h"
#include "kernels/bench.h"

namespace app {

struct RecordedResult {
  kern::BenchResult result;
  std::string gpu;     // the results file's device name ("NVIDIA H200")
  std::string date;    // ISO 8601
  std::string commit;  // the attnlab commit measured
  std::string file;    // "results/h200-2026-12-05-peers.json"
  // "recorded on NVIDIA H200, 2026-12-05, commit abc1234"
  std::string provenance() const;
};

// Every checked GPU result of the embedded results files, parsed once (files that do not parse
// are skipped; the latency panel lists them).
const std::vector<RecordedResult>& recorded_gpu_results();
// The newest recorded GPU result of the same layer shape (variant family, heads, dims, window),
// B, S and storage dtype; nullopt when none was recorded.
std::optional<RecordedResult> find_recorded_gpu(const attn::LayerShape& layer, std::int64_t batch,
                                                std::int64_t seq, attn::DType dt);

}  // namespace app
