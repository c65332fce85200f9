// The MLA cases of the GPU benchmark runner (kernels/bench_gpu.hip has the method and the grouped
// decode): the absorbed decode on the padded kernels (mla_plan.hip), and mxfp4 caches on the packed
// kernel (decode_mla_packed.hip) in AMD's MI355X layout.
#include "kernels/hip_compat.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "attention/config.h"
#include "attention/mxfp4.h"
#include "attention/reference.h"
#include "kernels/bench_gpu_internal.h"
#include "kernels/gpu_host.h"
#include "kernels/mla_launch.h"
#include "kernels/mla_packed.h"

namespace kern {
namespace bench_gpu {

void bench_mla(const BenchCase& c, const BenchOptions& opt, BenchResult& r) {
  attn::MlaDecodeShape s;
  s.batch = c.batch;
  s.seq = c.seq;
  s.heads = c.q_heads;
  s.latent_dim = c.latent_dim;
  s.rope_dim = c.rope_dim;
  const int dk = s.latent_dim + s.rope_dim;
  s.scale = attn::resolve_scale(c.scale, dk);
  const attn::DType dt = c.dtype;
  const std::size_t eb = storage_elem_bytes(dt);
  const std::size_t nq = static_cast<std::size_t>(s.batch) * s.heads * dk;
  const std::size_t nkv = static_cast<std::size_t>(s.batch) * s.seq * dk;
  const std::size_t no = static_cast<std::size_t>(s.batch) * s.heads * s.latent_dim;
  r.kv_bytes = c.kv_bytes();

  MlaDeviceArgs a;
  a.batch = s.batch;
  a.seq = s.seq;
  a.heads = s.heads;
  a.latent_dim = s.latent_dim;
  a.rope_dim = s.rope_dim;
  a.scale = static_cast<float>(s.scale);
  a.dt = dt;
  const std::size_t work_bytes = mla_workspace_bytes(a);
  const std::size_t per_copy = nq * 2 + nkv * eb + no * sizeof(float);
  const int copies = copies_for(per_copy, work_bytes);

  std::vector<float> q(nq), kv(nkv);
  fill_uniform(q, kSeed + 11, 1.7320508f);
  fill_uniform(kv, kSeed + 12, 1.7320508f);
  const attn::DType qdt = query_storage(dt);
  a.kv_scale = storage_scale(dt, kv.data(), nkv);
  std::vector<unsigned char> hq(nq * 2), hkv(nkv * eb);
  encode_storage(qdt, q.data(), nq, 1.0f, hq.data());
  encode_storage(dt, kv.data(), nkv, a.kv_scale, hkv.data());
  round_as_storage(qdt, q.data(), nq, 1.0f, q.data());
  round_as_storage(dt, kv.data(), nkv, a.kv_scale, kv.data());

  attn::MlaDecodeShape rs = s;
  const std::uint64_t per_seq = static_cast<std::uint64_t>(s.seq) * s.heads * (dk + s.latent_dim);
  rs.batch = reference_batch(s.batch, per_seq);
  std::vector<double> ref(static_cast<std::size_t>(rs.batch) * s.heads * s.latent_dim);
  attn::decode_mla_absorbed<double>(rs, q.data(), kv.data(), nullptr, ref.data(), 0);
  std::vector<float>().swap(kv);

  DeviceCopies dc;
  upload_copies(dc, copies, hq, hkv, {}, no * sizeof(float));
  std::vector<unsigned char>().swap(hkv);
  DeviceBuffer work(work_bytes);
  auto launch = [&](int i, hipStream_t st) {
    MlaDeviceArgs x = a;
    x.q = dc.q[i].get();
    x.kv = dc.k[i].get();
    x.out = dc.out[i].as<float>();
    x.workspace = work.get();
    x.stream = st;
    launch_mla_decode(x);
  };
  check_and_time(launch, dc, no, ref.size(), ref, opt, r, nq * 2 + no * sizeof(float));
}

// mxfp4 caches (AMD's MI355X problem) through the packed kernel (decode_mla_packed.hip), in AMD's
// layout: B sequences of one new token each, their caches back to back, E2M1 values and E8M0
// scales as two tensors. The reference sees the dequantised cache.
void bench_mla_packed(const BenchCase& c, const BenchOptions& opt, BenchResult& r) {
  const int dk = c.latent_dim + c.rope_dim;
  const std::size_t nq = static_cast<std::size_t>(c.batch) * c.q_heads * dk;
  const std::size_t nkv = static_cast<std::size_t>(c.batch) * c.seq * dk;
  const std::size_t no = static_cast<std::size_t>(c.batch) * c.q_heads * c.latent_dim;
  r.kv_bytes = c.kv_bytes();

  MlaPackedArgs a;
  a.batch = c.batch;
  a.total_q = c.batch;
  a.max_q_len = 1;
  a.max_kv_len = c.seq;
  a.heads = c.q_heads;
  a.latent_dim = c.latent_dim;
  a.rope_dim = c.rope_dim;
  a.scale = static_cast<float>(attn::resolve_scale(c.scale, dk));
  a.dt = c.dtype;
  const std::size_t work_bytes = mla_packed_workspace_bytes(a);
  const std::size_t per_copy = nq * 2 + nkv / 2 + nkv / 32 + no * sizeof(float);
  const std::size_t table_bytes = static_cast<std::size_t>(c.batch) * 4 * sizeof(std::int32_t);
  const int copies = copies_for(per_copy, work_bytes + table_bytes);

  std::vector<float> q(nq), kv(nkv);
  fill_uniform(q, kSeed + 11, 1.7320508f);
  fill_uniform(kv, kSeed + 12, 1.7320508f);
  std::vector<unsigned char> hq(nq * 2);
  encode_storage(attn::DType::kBf16, q.data(), nq, 1.0f, hq.data());
  round_as_storage(attn::DType::kBf16, q.data(), nq, 1.0f, q.data());
  attn::Mxfp4Matrix m =
      attn::quantize_mxfp4(kv.data(), static_cast<std::size_t>(c.batch * c.seq), std::size_t(dk));
  std::vector<float>().swap(kv);

  attn::MlaDecodeShape rs;
  rs.seq = c.seq;
  rs.heads = c.q_heads;
  rs.latent_dim = c.latent_dim;
  rs.rope_dim = c.rope_dim;
  rs.scale = a.scale;
  const std::uint64_t per_seq = static_cast<std::uint64_t>(c.seq) * c.q_heads * (dk + c.latent_dim);
  rs.batch = reference_batch(c.batch, per_seq);
  std::vector<double> ref(static_cast<std::size_t>(rs.batch) * c.q_heads * c.latent_dim);
  {
    attn::Mxfp4Matrix head = m;  // the sequences the reference runs, dequantised
    head.rows = static_cast<std::size_t>(rs.batch * c.seq);
    head.values.resize(head.rows * head.cols / 2);
    head.scales.resize(head.rows * head.scale_cols());
    const std::vector<float> kv_ref = attn::dequantize_mxfp4(head);
    attn::decode_mla_absorbed<double>(rs, q.data(), kv_ref.data(), nullptr, ref.data(), 0);
  }

  std::vector<std::int32_t> table;
  for (std::int64_t b = 0; b < c.batch; ++b)
    for (std::int64_t v : {b, std::int64_t{1}, b * c.seq, c.seq})
      table.push_back(static_cast<std::int32_t>(v));
  DeviceBuffer dtable(table_bytes);
  HIP_CHECK(hipMemcpy(dtable.get(), table.data(), table_bytes, hipMemcpyHostToDevice));
  DeviceCopies dc;  // k holds the E2M1 values, v the E8M0 scales
  upload_copies(dc, copies, hq, m.values, m.scales, no * sizeof(float));
  m = attn::Mxfp4Matrix{};
  DeviceBuffer work(work_bytes);
  auto launch = [&](int i, hipStream_t st) {
    MlaPackedArgs x = a;
    x.q = dc.q[i].get();
    x.kv = dc.k[i].get();
    x.kv_scales = dc.v[i].as<std::uint8_t>();
    x.seqs = dtable.as<std::int32_t>();
    x.out = dc.out[i].as<float>();
    x.workspace = work.get();
    x.stream = st;
    launch_mla_packed(x);
  };
  check_and_time(launch, dc, no, ref.size(), ref, opt, r, nq * 2 + no * sizeof(float));
}

}  // namespace bench_gpu
}  // namespace kern
