// Conversions between the explorer's model and the benchmark harness, and the numbers the
// latency panel and the tour derive from a benchmark case (no ImGui here).
#pragma once
#include <cstdint>
#include <string>

#include "attention/config.h"
#include "attention/cost.h"
#include "attention/roofline.h"
#include "kernels/bench.h"

namespace app {

// The KV storage dtype of a result: the case's dtype on the GPU, fp32 on the CPU (which always
// runs float32).
attn::DType storage_dtype(const kern::BenchResult& r);
// Cost of one decode step of the case's layer (attention proper: cache, query and output).
attn::DecodeCost case_cost(const kern::BenchCase& c, attn::DType dt);
// Projected (roofline) time of the case on `gpu`, in microseconds, with the case's dtype.
double projected_us(const kern::BenchCase& c, const attn::GpuSpec& gpu);
// The gpus.json entry whose name appears in a device name ("NVIDIA H200" -> H200), or nullptr.
const attn::GpuSpec* gpu_spec_for_device(const std::string& device_name);
// Key that identifies the same shape across devices and runs (variant, B, S, heads, dims, W).
std::string shape_key(const kern::BenchCase& c);

}  // namespace app
