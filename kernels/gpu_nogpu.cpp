// kernels/gpu.h for builds without GPU support: every call reports that there is no GPU.
#include "attention/error.h"
#include "kernels/gpu.h"

namespace kern {

namespace {
[[noreturn]] void no_gpu() {
  throw attn::DeviceError(
      "this build has no GPU support (configured with ATTNLAB_GPU=off or "
      "without nvcc/hipcc); use --device cpu");
}
}  // namespace

bool gpu_compiled() { return false; }

DeviceInfo query_device() {
  DeviceInfo d;
  d.available = false;
  d.reason = "built without GPU support";
  return d;
}

void gpu_decode_grouped(const attn::GroupedDecodeShape&, const float*, const float*, const float*,
                        const std::int64_t*, float*, attn::DType, int) {
  no_gpu();
}

void gpu_decode_mla(const attn::MlaDecodeShape&, const float*, const float*, const std::int64_t*,
                    float*, attn::DType) {
  no_gpu();
}

void gpu_decode_mla_ragged(const attn::MlaRaggedShape&, const float*, std::int64_t, const float*,
                           std::int64_t, const std::vector<attn::MlaSequence>&, float*,
                           attn::DType, int) {
  no_gpu();
}

}  // namespace kern
