// kern::gpu_decode_mla_ragged (kernels/gpu.h): host float32 in, host float32 out, through the
// packed MLA decode (decode_mla_packed.hip).
//   q  [total_q, H, Dl + Dr] -> bf16 (fp16 when dt == kFp16)
//   kv [total_kv, Dl + Dr]   -> bf16 / fp16 / fp8 e4m3 with one scale (kernels/gpu_host.h), or
//                               mxfp4 values and E8M0 scales (attn::quantize_mxfp4)
//   seqs -> [B, 4] int32 (q_start, q_len, kv_start, kv_len); out [total_q, H, Dl]
// Rounding is attention/'s, so a CPU reference fed the same rounded values sees exactly what the
// kernel sees.
#include "kernels/hip_compat.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/dtype.h"
#include "attention/error.h"
#include "attention/mxfp4.h"
#include "kernels/gpu.h"
#include "kernels/gpu_check.h"
#include "kernels/gpu_host.h"
#include "kernels/mla_packed.h"
#include "kernels/mla_packed_params.h"

namespace kern {
namespace {

// [B, 4] int32 rows of the sequences, after checking each against the tensors' extents.
std::vector<std::int32_t> sequence_table(const std::vector<attn::MlaSequence>& seqs,
                                         std::int64_t total_q, std::int64_t total_kv,
                                         int* max_q_len, std::int64_t* max_kv_len) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  if (total_q > kMax || total_kv > kMax)
    throw attn::InputError("gpu MLA decode (ragged): more than 2^31 - 1 rows of q or kv");
  std::vector<std::int32_t> t;
  t.reserve(seqs.size() * 4);
  *max_q_len = 1;
  *max_kv_len = 1;
  for (std::size_t b = 0; b < seqs.size(); ++b) {
    const attn::MlaSequence& s = seqs[b];
    const std::string at = "gpu MLA decode (ragged): sequence " + std::to_string(b) + " ";
    if (s.q_len == 0 && s.kv_len >= 0) continue;  // no new token: it owns no output row
    if (s.q_start < 0 || s.q_len < 0 || s.q_len > kMlaPackedMaxQLen ||
        s.q_start + s.q_len > total_q)
      throw attn::InputError(at + "has q rows " + std::to_string(s.q_start) + " + " +
                             std::to_string(s.q_len) + " (q_len 0.." +
                             std::to_string(kMlaPackedMaxQLen) + ", within " +
                             std::to_string(total_q) + " rows)");
    if (s.kv_start < 0 || s.kv_len < s.q_len || s.kv_start + s.kv_len > total_kv)
      throw attn::InputError(at + "has kv rows " + std::to_string(s.kv_start) + " + " +
                             std::to_string(s.kv_len) + " (at least its " +
                             std::to_string(s.q_len) + " new tokens, within " +
                             std::to_string(total_kv) + " rows)");
    for (std::int64_t v : {s.q_start, s.q_len, s.kv_start, s.kv_len})
      t.push_back(static_cast<std::int32_t>(v));
    *max_q_len = std::max(*max_q_len, static_cast<int>(s.q_len));
    *max_kv_len = std::max(*max_kv_len, s.kv_len);
  }
  return t;  // empty when no sequence has a new token
}

}  // namespace

void gpu_decode_mla_ragged(const attn::MlaRaggedShape& s, const float* q, std::int64_t total_q,
                           const float* kv, std::int64_t total_kv,
                           const std::vector<attn::MlaSequence>& seqs, float* out, attn::DType dt,
                           int splits) {
  if (dt != attn::DType::kBf16 && dt != attn::DType::kFp16 && dt != attn::DType::kFp8 &&
      dt != attn::DType::kMxfp4)
    throw attn::DeviceError("gpu MLA decode (ragged): dtype " + std::string(attn::dtype_name(dt)) +
                            " is not supported (expected bf16, fp16, fp8 or mxfp4)");
  if (s.heads < 1 || total_q < 1 || total_kv < 1)
    throw attn::InputError("gpu MLA decode (ragged): heads, total_q and total_kv must be >= 1");
  if (s.latent_dim != 512 || s.rope_dim != 64)
    throw attn::DeviceError(
        "gpu MLA decode (ragged): the GPU kernel supports latent_dim 512 and rope_dim 64, found " +
        std::to_string(s.latent_dim) + " and " + std::to_string(s.rope_dim));
  const int dk = s.latent_dim + s.rope_dim;
  MlaPackedArgs a;
  const std::vector<std::int32_t> table =
      sequence_table(seqs, total_q, total_kv, &a.max_q_len, &a.max_kv_len);
  require_device();
  const std::size_t nq = std::size_t(total_q) * std::size_t(s.heads) * std::size_t(dk);
  const std::size_t nkv = std::size_t(total_kv) * std::size_t(dk);
  const std::size_t nout = std::size_t(total_q) * std::size_t(s.heads) * std::size_t(s.latent_dim);
  a.batch = static_cast<std::int64_t>(table.size() / 4);
  a.total_q = total_q;
  a.heads = s.heads;
  a.latent_dim = s.latent_dim;
  a.rope_dim = s.rope_dim;
  a.scale = static_cast<float>(attn::resolve_scale(s.scale, dk));
  a.dt = dt;
  a.splits = splits;

  // Host conversion first: a shape error must not cost device allocations.
  std::vector<std::uint16_t> hq(nq);
  encode_storage(query_storage(dt), q, nq, 1.0f, hq.data());
  std::vector<std::uint8_t> hkv, hscales;
  if (dt == attn::DType::kMxfp4) {
    attn::Mxfp4Matrix m = attn::quantize_mxfp4(kv, std::size_t(total_kv), std::size_t(dk));
    hkv = std::move(m.values);
    hscales = std::move(m.scales);
  } else {
    a.kv_scale = storage_scale(dt, kv, nkv);
    hkv.resize(nkv * storage_elem_bytes(dt));
    encode_storage(dt, kv, nkv, a.kv_scale, hkv.data());
  }

  DeviceBuffer dq(nq * 2), dkv(hkv.size()), dscales(hscales.size()), dout(nout * 4);
  DeviceBuffer dseqs(table.size() * 4);  // empty when no sequence has a new token
  HIP_CHECK(hipMemcpy(dq.get(), hq.data(), nq * 2, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(dkv.get(), hkv.data(), hkv.size(), hipMemcpyHostToDevice));
  if (!hscales.empty())
    HIP_CHECK(hipMemcpy(dscales.get(), hscales.data(), hscales.size(), hipMemcpyHostToDevice));
  if (!table.empty())
    HIP_CHECK(hipMemcpy(dseqs.get(), table.data(), table.size() * 4, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset(dout.get(), 0, nout * 4));  // rows no sequence owns stay 0
  if (table.empty()) {                            // nothing to attend: every row is 0
    HIP_CHECK(hipMemcpy(out, dout.get(), nout * 4, hipMemcpyDeviceToHost));
    return;
  }
  a.q = dq.get();
  a.kv = dkv.get();
  a.kv_scales = hscales.empty() ? nullptr : dscales.as<std::uint8_t>();
  a.seqs = dseqs.as<std::int32_t>();
  a.out = dout.as<float>();
  // Split states of rows no sequence owns are read by the combine: zero is an empty state.
  const std::size_t ws_bytes = mla_packed_workspace_bytes(a);
  DeviceBuffer ws(ws_bytes);
  if (ws_bytes > 0) HIP_CHECK(hipMemset(ws.get(), 0, ws_bytes));
  a.workspace = ws.get();
  launch_mla_packed(a);
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(out, dout.get(), nout * 4, hipMemcpyDeviceToHost));
}

}  // namespace kern
