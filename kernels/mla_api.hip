// kern::gpu_decode_mla (kernels/gpu.h): host float32 in, host float32 out (mxfp4 caches go to the
// packed kernel through gpu_decode_mla_ragged, mla_packed_api.hip).
//   q [B, H, Dl + Dr] -> bf16 (fp16 when dt == kFp16; bf16 with an fp8 cache)
//   kv [B, S, Dl + Dr] -> bf16 / fp16 / fp8 e4m3 with one scale = e4m3_scale_for(amax)
//   lens [B] (int64, 0..S) or nullptr; out [B, H, Dl]
// Rounding is attention/dtype.h's, so a CPU reference fed round_to_bf16(x) etc. sees exactly the
// values the kernel sees.
#include "kernels/hip_compat.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "attention/dtype.h"
#include "attention/config.h"
#include "attention/error.h"
#include "kernels/gpu.h"
#include "kernels/gpu_check.h"
#include "kernels/mla_launch.h"

namespace kern {
namespace {

std::vector<std::uint16_t> to_16bit(const float* x, std::size_t n, attn::DType dt) {
  std::vector<std::uint16_t> r(n);
  if (dt == attn::DType::kFp16)
    for (std::size_t i = 0; i < n; ++i) r[i] = attn::float_to_fp16_bits(x[i]);
  else
    for (std::size_t i = 0; i < n; ++i) r[i] = attn::float_to_bf16_bits(x[i]);
  return r;
}

// lens (0..S each) as int32, or empty when there are none.
std::vector<std::int32_t> checked_lens(const attn::MlaDecodeShape& s, const std::int64_t* lens) {
  std::vector<std::int32_t> lens32;
  if (!lens) return lens32;
  lens32.resize(std::size_t(s.batch));
  for (std::int64_t b = 0; b < s.batch; ++b) {
    if (lens[b] < 0 || lens[b] > s.seq)
      throw attn::InputError("gpu MLA decode: lens[" + std::to_string(b) + "] = " +
                             std::to_string(lens[b]) + " is outside 0.." + std::to_string(s.seq));
    lens32[std::size_t(b)] = static_cast<std::int32_t>(lens[b]);
  }
  return lens32;
}

}  // namespace

void gpu_decode_mla(const attn::MlaDecodeShape& s, const float* q, const float* kv,
                    const std::int64_t* lens, float* out, attn::DType dt) {
  if (dt != attn::DType::kMxfp4) {
    gpu_decode_mla_with(s, q, kv, lens, out, dt, nullptr);
    return;
  }
  // mxfp4 caches are read by the packed kernel (v8): sequence b is q row b and kv rows b * S ..
  // b * S + len - 1; a sequence of length 0 owns no row, so its output is zeros.
  if (s.batch < 1 || s.seq < 1 || s.heads < 1)
    throw attn::InputError("gpu MLA decode: batch, seq and heads must be >= 1");
  const std::vector<std::int32_t> lens32 = checked_lens(s, lens);
  std::vector<attn::MlaSequence> seqs;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const std::int64_t len = lens ? lens32[std::size_t(b)] : s.seq;
    seqs.push_back({b, len > 0 ? 1 : 0, b * s.seq, len});
  }
  attn::MlaRaggedShape rs;
  rs.heads = s.heads;
  rs.latent_dim = s.latent_dim;
  rs.rope_dim = s.rope_dim;
  rs.scale = s.scale;
  gpu_decode_mla_ragged(rs, q, s.batch, kv, s.batch * s.seq, seqs, out, dt);
}

void gpu_decode_mla_with(const attn::MlaDecodeShape& s, const float* q, const float* kv,
                         const std::int64_t* lens, float* out, attn::DType dt,
                         const MlaKernelChoice* choice) {
  if (dt != attn::DType::kBf16 && dt != attn::DType::kFp16 && dt != attn::DType::kFp8)
    throw attn::DeviceError("gpu MLA decode: dtype " + std::string(attn::dtype_name(dt)) +
                            " is not supported (expected bf16, fp16 or fp8)");
  if (s.batch < 1 || s.seq < 1 || s.heads < 1)
    throw attn::InputError("gpu MLA decode: batch, seq and heads must be >= 1");
  require_device();
  const int dk = s.latent_dim + s.rope_dim;
  const std::size_t nq = std::size_t(s.batch) * std::size_t(s.heads) * std::size_t(dk);
  const std::size_t nkv = std::size_t(s.batch) * std::size_t(s.seq) * std::size_t(dk);
  const std::size_t nout = std::size_t(s.batch) * std::size_t(s.heads) * std::size_t(s.latent_dim);

  MlaDeviceArgs a;
  a.batch = s.batch;
  a.seq = s.seq;
  a.heads = s.heads;
  a.latent_dim = s.latent_dim;
  a.rope_dim = s.rope_dim;
  a.scale = static_cast<float>(attn::resolve_scale(s.scale, static_cast<int>(dk)));
  a.dt = dt;

  const std::vector<std::int32_t> lens32 = checked_lens(s, lens);

  // Host conversion first: a shape error must not cost device allocations.
  const std::vector<std::uint16_t> hq =
      to_16bit(q, nq, dt == attn::DType::kFp16 ? dt : attn::DType::kBf16);
  std::vector<std::uint16_t> hkv16;
  std::vector<std::uint8_t> hkv8;
  if (dt == attn::DType::kFp8) {
    float amax = 0.f;
    for (std::size_t i = 0; i < nkv; ++i) amax = std::fmax(amax, std::fabs(kv[i]));
    a.kv_scale = attn::e4m3_scale_for(amax);
    hkv8.resize(nkv);
    for (std::size_t i = 0; i < nkv; ++i) hkv8[i] = attn::float_to_e4m3_bits(kv[i] / a.kv_scale);
  } else {
    hkv16 = to_16bit(kv, nkv, dt);
  }

  DeviceBuffer dq(nq * 2), dkv(dt == attn::DType::kFp8 ? nkv : nkv * 2), dout(nout * 4);
  DeviceBuffer dlens(lens ? lens32.size() * 4 : 0);
  HIP_CHECK(hipMemcpy(dq.get(), hq.data(), nq * 2, hipMemcpyHostToDevice));
  if (dt == attn::DType::kFp8)
    HIP_CHECK(hipMemcpy(dkv.get(), hkv8.data(), nkv, hipMemcpyHostToDevice));
  else
    HIP_CHECK(hipMemcpy(dkv.get(), hkv16.data(), nkv * 2, hipMemcpyHostToDevice));
  if (lens)
    HIP_CHECK(hipMemcpy(dlens.get(), lens32.data(), lens32.size() * 4, hipMemcpyHostToDevice));
  a.q = dq.get();
  a.kv = dkv.get();
  a.lens = lens ? dlens.as<std::int32_t>() : nullptr;
  a.out = dout.as<float>();
  DeviceBuffer ws(choice ? mla_workspace_bytes(a, *choice) : mla_workspace_bytes(a));
  a.workspace = ws.get();
  if (choice)
    launch_mla_decode(a, *choice);
  else
    launch_mla_decode(a);
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(out, dout.get(), nout * 4, hipMemcpyDeviceToHost));
}

}  // namespace kern
