// kernels/gpu.h for GPU builds: the grouped decode host API (upload converted to the storage
// dtype, run, download) and the storage helpers of kernels/gpu_host.h. gpu_decode_mla lives in
// mla_api.hip; device discovery in gpu_device.hip.
// The runtime first: attention/softmax_state.h needs __host__/__device__ defined (HIP).
#include "kernels/hip_compat.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/error.h"
#include "kernels/gpu.h"
#include "kernels/gpu_check.h"
#include "kernels/gpu_host.h"
#include "kernels/grouped_launch.h"

namespace kern {

std::size_t storage_elem_bytes(attn::DType dt) { return dt == attn::DType::kFp8 ? 1 : 2; }

attn::DType query_storage(attn::DType cache_dt) {
  return cache_dt == attn::DType::kFp16 ? attn::DType::kFp16 : attn::DType::kBf16;
}

float abs_max(const float* x, std::size_t n) {
  std::mutex mu;
  float m = 0.0f;
  parallel_for(n, [&](std::size_t b, std::size_t e) {
    float local = 0.0f;
    for (std::size_t i = b; i < e; ++i) local = std::max(local, std::fabs(x[i]));
    std::lock_guard<std::mutex> lock(mu);
    m = std::max(m, local);
  });
  return m;
}

float storage_scale(attn::DType dt, const float* x, std::size_t n) {
  return dt == attn::DType::kFp8 ? attn::e4m3_scale_for(abs_max(x, n)) : 1.0f;
}

void encode_storage(attn::DType dt, const float* x, std::size_t n, float scale, void* dst) {
  switch (dt) {
    case attn::DType::kBf16: {
      auto* o = static_cast<std::uint16_t*>(dst);
      parallel_for(n, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) o[i] = attn::float_to_bf16_bits(x[i]);
      });
      return;
    }
    case attn::DType::kFp16: {
      auto* o = static_cast<std::uint16_t*>(dst);
      parallel_for(n, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) o[i] = attn::float_to_fp16_bits(x[i]);
      });
      return;
    }
    case attn::DType::kFp8: {
      auto* o = static_cast<std::uint8_t*>(dst);
      const float inv = 1.0f / scale;
      parallel_for(n, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) o[i] = attn::float_to_e4m3_bits(x[i] * inv);
      });
      return;
    }
    default:
      throw attn::DeviceError("GPU storage dtype must be bf16, fp16 or fp8, found " +
                              std::string(attn::dtype_name(dt)));
  }
}

void round_as_storage(attn::DType dt, const float* x, std::size_t n, float scale, float* dst) {
  switch (dt) {
    case attn::DType::kBf16:
      parallel_for(n, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) dst[i] = attn::round_to_bf16(x[i]);
      });
      return;
    case attn::DType::kFp16:
      parallel_for(n, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) dst[i] = attn::round_to_fp16(x[i]);
      });
      return;
    case attn::DType::kFp8: {
      const float inv = 1.0f / scale;
      parallel_for(n, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i)
          dst[i] = attn::e4m3_bits_to_float(attn::float_to_e4m3_bits(x[i] * inv)) * scale;
      });
      return;
    }
    default:
      throw attn::DeviceError("GPU storage dtype must be bf16, fp16 or fp8, found " +
                              std::string(attn::dtype_name(dt)));
  }
}

namespace {

void check_grouped_shape(const attn::GroupedDecodeShape& s) {
  auto bad = [](const std::string& m) { throw attn::InputError(m); };
  if (s.batch < 1) bad("batch (B) must be >= 1, found " + std::to_string(s.batch));
  if (s.seq < 1) bad("seq (S) must be >= 1, found " + std::to_string(s.seq));
  if (s.q_heads < 1 || s.kv_heads < 1 || s.q_heads % s.kv_heads != 0)
    bad("kv heads must divide q heads (Hq " + std::to_string(s.q_heads) + ", Hkv " +
        std::to_string(s.kv_heads) + ")");
  if (s.head_dim < 1 || s.value_dim < 1) bad("head dims must be >= 1");
  if (s.window < 0) bad("window must be >= 0, found " + std::to_string(s.window));
}

}  // namespace

void gpu_decode_grouped(const attn::GroupedDecodeShape& s, const float* q, const float* k,
                        const float* v, const std::int64_t* lens, float* out, attn::DType dt,
                        int launches) {
  check_grouped_shape(s);
  if (dt != attn::DType::kBf16 && dt != attn::DType::kFp16 && dt != attn::DType::kFp8)
    throw attn::InputError("--dtype for the GPU must be bf16, fp16 or fp8, found " +
                           std::string(attn::dtype_name(dt)));
  std::vector<std::int32_t> lens32;
  if (lens) {
    lens32.resize(static_cast<std::size_t>(s.batch));
    for (std::int64_t b = 0; b < s.batch; ++b) {
      if (lens[b] < 0 || lens[b] > s.seq)
        throw attn::InputError("lens[" + std::to_string(b) + "] = " + std::to_string(lens[b]) +
                               " is outside 0.." + std::to_string(s.seq));
      lens32[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(lens[b]);
    }
  }
  require_device();
  const std::size_t nq = static_cast<std::size_t>(s.batch) * s.q_heads * s.head_dim;
  const std::size_t nk = static_cast<std::size_t>(s.batch) * s.seq * s.kv_heads * s.head_dim;
  const std::size_t nv = static_cast<std::size_t>(s.batch) * s.seq * s.kv_heads * s.value_dim;
  const std::size_t no = static_cast<std::size_t>(s.batch) * s.q_heads * s.value_dim;
  const attn::DType qdt = query_storage(dt);
  const std::size_t eb = storage_elem_bytes(dt);

  GroupedDeviceArgs a;
  a.batch = s.batch;
  a.seq = s.seq;
  a.q_heads = s.q_heads;
  a.kv_heads = s.kv_heads;
  a.head_dim = s.head_dim;
  a.value_dim = s.value_dim;
  a.window = s.window;
  a.scale = static_cast<float>(attn::resolve_scale(s.scale, static_cast<int>(s.head_dim)));
  a.dt = dt;
  a.k_scale = storage_scale(dt, k, nk);
  a.v_scale = storage_scale(dt, v, nv);

  std::vector<unsigned char> hq(nq * 2), hk(nk * eb), hv(nv * eb);
  encode_storage(qdt, q, nq, 1.0f, hq.data());
  encode_storage(dt, k, nk, a.k_scale, hk.data());
  encode_storage(dt, v, nv, a.v_scale, hv.data());

  DeviceBuffer dq(hq.size()), dk(hk.size()), dv(hv.size()), dout(no * sizeof(float));
  DeviceBuffer dlens(lens32.size() * sizeof(std::int32_t));
  DeviceBuffer work(grouped_workspace_bytes(a));
  if (work.bytes() > 0) HIP_CHECK(hipMemset(work.get(), 0, work.bytes()));  // counters start at 0
  HIP_CHECK(hipMemcpy(dq.get(), hq.data(), hq.size(), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(dk.get(), hk.data(), hk.size(), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(dv.get(), hv.data(), hv.size(), hipMemcpyHostToDevice));
  if (!lens32.empty())
    HIP_CHECK(hipMemcpy(dlens.get(), lens32.data(), dlens.bytes(), hipMemcpyHostToDevice));
  a.q = dq.get();
  a.k = dk.get();
  a.v = dv.get();
  a.lens = lens32.empty() ? nullptr : dlens.as<std::int32_t>();
  a.out = dout.as<float>();
  a.workspace = work.get();
  for (int i = 0; i < std::max(1, launches); ++i) {
    HIP_CHECK(hipMemset(dout.get(), 0xff, no * sizeof(float)));  // NaN: unwritten outputs show
    launch_grouped_decode(a);
    HIP_CHECK(hipDeviceSynchronize());
  }
  HIP_CHECK(hipMemcpy(out, dout.get(), no * sizeof(float), hipMemcpyDeviceToHost));
}

}  // namespace kern
