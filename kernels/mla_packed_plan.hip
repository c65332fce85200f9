// The packed MLA decode's plan and launch (kernels/mla_packed.h): the checks, the split count,
// the workspace, and the launch with its split combine (mla_combine.hip). The kernels are in
// decode_mla_packed.hip.
#include "kernels/hip_compat.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "attention/error.h"
#include "kernels/dependent_launch.h"
#include "kernels/gpu_check.h"
#include "kernels/mla_combine.h"
#include "kernels/mla_packed.h"
#include "kernels/mla_packed_params.h"

namespace kern {
namespace {

constexpr int kDl = kMlaLatentDim, kDr = 64;

void check_args(const MlaPackedArgs& a) {
  if (a.latent_dim != kDl || a.rope_dim != kDr)
    throw attn::DeviceError(
        "MLA decode (packed): the GPU kernel supports latent_dim 512 and rope_dim 64, found " +
        std::to_string(a.latent_dim) + " and " + std::to_string(a.rope_dim));
  if (a.batch < 1 || a.heads < 1 || a.total_q < 1 || a.max_kv_len < 1)
    throw attn::DeviceError(
        "MLA decode (packed): batch, heads, total_q and max_kv_len must be "
        ">= 1");
  if (a.max_q_len < 1 || a.max_q_len > kMlaPackedMaxQLen)
    throw attn::DeviceError("MLA decode (packed): q_len " + std::to_string(a.max_q_len) +
                            " is outside 1.." + std::to_string(kMlaPackedMaxQLen));
  if (std::int64_t(a.max_q_len) * a.heads > std::numeric_limits<int>::max() / 2 ||
      a.max_kv_len > std::numeric_limits<std::int32_t>::max())
    throw attn::DeviceError("MLA decode (packed): the batch is too large for 32-bit row indices");
  if (!(a.scale > 0.f) || !std::isfinite(a.scale))
    throw attn::DeviceError(
        "MLA decode (packed): the softmax scale must be a positive finite "
        "number");
}

void check_pointers(const MlaPackedArgs& a) {
  if (!a.q || !a.kv || !a.seqs || !a.out)
    throw attn::DeviceError("MLA decode (packed): null q, kv, seqs or out pointer");
  if (a.dt == attn::DType::kMxfp4 && !a.kv_scales)
    throw attn::DeviceError("MLA decode (packed): an mxfp4 cache needs its scale bytes");
}

struct Plan {
  int row_tiles = 0, splits = 1;
  std::int64_t split_len = 0;
};

// Splits as v1 chooses them (mla_split_count), over the longest sequence.
Plan make_plan(const MlaPackedArgs& a, int per_sm) {
  Plan pl;
  pl.row_tiles = (a.max_q_len * a.heads + 15) / 16;
  const std::int64_t blocks = (a.max_kv_len + kMlaPackedBlockN - 1) / kMlaPackedBlockN;
  int splits = a.splits;
  if (splits <= 0) splits = mla_split_count(a.batch * pl.row_tiles, blocks, per_sm);
  splits = std::max(1, std::min<int>(splits, kMlaCombineMaxSplits));
  const std::int64_t per = (blocks + splits - 1) / splits;
  pl.split_len = per * kMlaPackedBlockN;
  pl.splits = static_cast<int>((blocks + per - 1) / per);  // no split left empty by rounding
  return pl;
}

std::size_t workspace_for(const MlaPackedArgs& a, const Plan& pl) {
  if (pl.splits <= 1) return 0;
  const std::size_t rows = std::size_t(a.total_q) * std::size_t(a.heads) * std::size_t(pl.splits);
  return rows * (kDl * sizeof(float) + sizeof(float2));
}

Plan plan_for(const MlaPackedArgs& a) {
  check_args(a);
  int smem = 0, per_sm = 0;
  int threads = 0;
  (void)mla_packed_kernel_for(a.dt, &smem, &threads, &per_sm);
  return make_plan(a, per_sm);
}

}  // namespace

int mla_packed_splits(const MlaPackedArgs& a) { return plan_for(a).splits; }

std::size_t mla_packed_workspace_bytes(const MlaPackedArgs& a) {
  return workspace_for(a, plan_for(a));
}

void launch_mla_packed(const MlaPackedArgs& a) {
  check_warp_size();
  check_pointers(a);
  const Plan pl = plan_for(a);
  const std::size_t ws = workspace_for(a, pl);
  if (ws > 0 && !a.workspace)
    throw attn::DeviceError("MLA decode (packed): " + std::to_string(ws) +
                            " bytes of workspace are needed for " + std::to_string(pl.splits) +
                            " splits, none given");
  int smem = 0, threads = 0, per_sm = 0;
  MlaPackedKernelFn fn = mla_packed_kernel_for(a.dt, &smem, &threads, &per_sm);
  if (per_sm < 1)
    throw attn::DeviceError("MLA decode (packed): the kernel does not fit on this device (" +
                            std::to_string(smem) + " bytes of shared memory a block)");
  PackedParams p{};
  p.q = a.q;
  p.kv = a.kv;
  p.kv_scales = a.kv_scales;
  p.seqs = a.seqs;
  p.out = a.out;
  const std::size_t rows = std::size_t(a.total_q) * std::size_t(a.heads) * std::size_t(pl.splits);
  p.part_acc = ws ? static_cast<float*>(a.workspace) : nullptr;
  p.part_state =
      ws ? reinterpret_cast<float2*>(static_cast<float*>(a.workspace) + rows * kDl) : nullptr;
  p.heads = a.heads;
  p.row_tiles = pl.row_tiles;
  p.splits = pl.splits;
  p.split_len = pl.split_len;
  const bool fp8 = a.dt == attn::DType::kFp8;
  p.score_scale = a.scale * (fp8 ? a.kv_scale : 1.0f);
  p.out_scale = fp8 ? a.kv_scale : 1.0f;
  p.pdl = pl.splits > 1 && pdl_enabled();
  const std::int64_t ctas = a.batch * pl.row_tiles * pl.splits;
  if (ctas > std::numeric_limits<int>::max())
    throw attn::DeviceError("MLA decode (packed): too many blocks (" + std::to_string(ctas) + ")");
  auto stream = static_cast<hipStream_t>(a.stream);
  fn<<<dim3(static_cast<unsigned>(ctas)), dim3(threads), smem, stream>>>(p);
  HIP_CHECK_LAUNCH();
  if (pl.splits > 1)
    launch_mla_combine(pl.splits >= 8 ? 2 : 1, p.part_acc, p.part_state, a.out, pl.splits,
                       a.total_q * a.heads, p.pdl != 0, stream);
}

}  // namespace kern
