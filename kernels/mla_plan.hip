// The MLA decode's plan and launch (kernels/mla_launch.h): which version and kernel choice
// (v1, decode_mla.hip; v3 / v4, decode_mla_slice.hip; v5 / v6 / v7, the *_sm90a.hip files),
// how many KV splits, the workspace they need, and the launch with its split combine
// (mla_combine.hip). Every kernel file exports its kernels through a *_kernel_for function
// (kernels/mla_params.h); this file holds no kernel. Figures behind each choice:
// kernels/DESIGN.md, "The MLA plan".
#include "kernels/hip_compat.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include "attention/error.h"
#include "kernels/dependent_launch.h"
#include "kernels/gpu_check.h"
#include "kernels/mla_combine.h"
#include "kernels/mla_launch.h"
#include "kernels/mla_params.h"
#include "kernels/overrides.h"

namespace kern {
namespace {

constexpr int kDl = kMlaLatentDim, kDr = 64;

struct Plan {
  MlaKernelChoice k;
  int head_tiles = 0;
  std::int64_t split_len = 0;
};

using KernelFn = MlaKernelFn;

KernelFn select_for(const MlaDeviceArgs& a, const MlaKernelChoice& c, int* smem, int* threads,
                    int* per_sm) {
  if (c.version == 3 || c.version == 4) return mla_slice_kernel(a.dt, c, smem, threads, per_sm);
  if (c.version == 5 || c.version == 6 || c.version == 7) {
#if defined(ATTNLAB_HAVE_SM90A)
    return c.version == 5   ? mla_wgmma_kernel_for(a.dt, c, smem, threads, per_sm)
           : c.version == 6 ? mla_wgmma_narrow_kernel_for(a.dt, c, smem, threads, per_sm)
                            : mla_wgmma_fp8_kernel_for(a.dt, c, smem, threads, per_sm);
#else
    throw attn::DeviceError("MLA decode v" + std::to_string(c.version) +
                            " (wgmma) is not built for this target (NVIDIA sm_90a only)");
#endif
  }
  if (c.version != 1)
    throw attn::DeviceError("MLA decode: no kernel version " + std::to_string(c.version) +
                            " (1, 3, 4, 5 or 6)");
  return mla_tile_kernel_for(a.dt, c, smem, threads, per_sm);
}

void check_shape(const MlaDeviceArgs& a) {
  if (a.latent_dim != kDl || a.rope_dim != kDr)
    throw attn::DeviceError(
        "MLA decode: the GPU kernel supports latent_dim 512 and rope_dim 64, "
        "found " +
        std::to_string(a.latent_dim) + " and " + std::to_string(a.rope_dim));
  if (a.batch < 1 || a.seq < 1 || a.heads < 1)
    throw attn::DeviceError("MLA decode: batch, seq and heads must be >= 1, found " +
                            std::to_string(a.batch) + ", " + std::to_string(a.seq) + ", " +
                            std::to_string(a.heads));
  if (!(a.scale > 0.f) || !std::isfinite(a.scale))
    throw attn::DeviceError("MLA decode: the softmax scale must be a positive finite number");
}

// Splits: the fewest that minimise (waves of CTAs) x (blocks per CTA), plus a small charge for
// the combine; S and the SM count decide, so B = 1 with a long S spreads over the chip.
Plan make_plan(const MlaDeviceArgs& a, const MlaKernelChoice* forced) {
  check_shape(a);
  Plan pl;
  if (forced) {
    pl.k = *forced;
  } else {
    pl.k.head_groups = a.heads <= 16 ? 1 : 2;
    // 16 heads: 64-position tiles where the batch alone leaves SMs idle (the split cases:
    // measured bs4 kv1024 19.4 vs 26.0 us, H16 B64 S8192 171 vs 188, H16 B1 S65536 74 vs 113),
    // 32 where one wave of (b, head tile) blocks already fills the chip (bs256 593 vs 623) and
    // for fp8, whose conversion pass is slower over 64 positions (bs64 kv8192 186 vs 236).
    const bool fills = a.batch * ((a.heads + 15) / 16) >= device_multiprocessors();
    pl.k.block_n = a.heads > 16 ? 64 : (a.dt != attn::DType::kFp8 && !fills ? 64 : 32);
    pl.k.stages = 2;
    pl.k.splits = 0;
    // fp8 caches of >= 64 Ki tokens in all: v4 (a pipeline per warp, conversion in registers,
    // softmax rows split over the warps), 64-token blocks. H200, us: bs256 kv8192 400.6 (v3 542.8,
    // v1 ~665), bs64 kv8192 123.3 (v3 158.1), H128 B64 S8192 763.8 (v3 1050.3); bs4 kv1024 stays on
    // v1 (20.4 vs 20.5). 16-bit caches stay on v1 (bs256 587.3 vs v4 624.7, H16 B64 S8192 173.1 vs
    // 175.4-180.1, H128 870.6 vs 1117.1).
    if (a.dt == attn::DType::kFp8 && a.batch * a.seq >= 65536) {
      pl.k.version = 4;
      pl.k.head_groups = 1;
      pl.k.block_n = 64;
    }
    // 16-bit caches on an H100 / H200: v5, 64 heads a CTA on wgmma (decode_mla_wgmma_sm90a.hip),
    // faster than v1 on every case measured, the 16-head ones too although 48 of its 64 rows
    // are then padding (H200, us: H128 B64 S8192 276 vs 888, H16 B64 S8192 156 vs 172, bs256
    // kv8192 555 vs 593, bs4 kv1024 17.3 vs 17.8, H16 B1 S65536 45.9 vs 46.8).
#if defined(ATTNLAB_HAVE_SM90A)
    if (a.dt != attn::DType::kFp8 && device_is_sm90()) {
      pl.k.version = 5;
      pl.k.head_groups = 4;
      pl.k.block_n = 64;
      pl.k.stages = 2;
      // <= 16 heads: v6, the tokens as the 64 rows of both products (a quarter of v5's
      // tensor work, of which 16 heads make three-quarters padding). H200,
      // 20-run medians, us: H16 B64 S8192 152.8 (v5 154.5), bs256 kv8192 547.0-552.9 (v5
      // 554.2), bs4 kv1024 17.1 (v5 17.3); 64-token blocks beat 48 x 3 and 32 x 2 / 32 x 4.
      if (a.heads <= 16) {
        pl.k.version = 6;
        pl.k.head_groups = 1;
        pl.k.block_n = 64;
        pl.k.stages = 2;
      }
    }
    // fp8 caches on an H100 / H200: v7 (e4m3 x e4m3 Q K^T, P V with V converted in registers),
    // 2 stages (2 CTAs an SM). H200, 20-run medians, us: bs256 kv8192
    // 309.7 (v4 399.0; 3 stages 360.4), bs64 kv8192 100.6 (v4 125.3), bs4 kv1024 18.2 (v1
    // 21.9), H128 B64 S8192 555.8 (v4 773.2).
    if (a.dt == attn::DType::kFp8 && device_is_sm90()) {
      pl.k.version = 7;
      pl.k.head_groups = 1;
      pl.k.block_n = 64;
      pl.k.stages = 2;
    }
#endif
    // ATTNLAB_MLA_VERSION: one version with its default tile, for timing versions side by side
    // (the worklog suite); a version this build or device lacks fails the launch, named.
    if (const int v = read_overrides().mla_version) {
      if (v != 1 && (v < 3 || v > 7))
        throw attn::DeviceError("ATTNLAB_MLA_VERSION=" + std::to_string(v) + ": expected 1 or 3-7");
      if (!mla_version_available(v))
        throw attn::DeviceError("MLA decode v" + std::to_string(v) +
                                " is not built for this device (v5-v7 need sm_90a)");
      pl.k = MlaKernelChoice{};
      pl.k.version = v;
      pl.k.head_groups = v == 5 ? 4 : (v == 1 && a.heads > 16 ? 2 : 1);
      pl.k.block_n = v == 1 || v == 3 ? 32 : 64;
      pl.k.stages = 2;
    }
  }
  int smem = 0, threads = 0, per_sm = 0;
  (void)select_for(a, pl.k, &smem, &threads, &per_sm);
  // A device whose blocks get less shared memory than the chosen tile (gfx942's 64 KB LDS;
  // v1 with two 64-token stages and 32 heads needs 189 KB): v1 with one stage of 32 tokens
  // (47-58 KB), whose copies then do not overlap the math inside a CTA.
  if (!forced && per_sm < 1 && (pl.k.version == 1 || pl.k.version == 4)) {
    pl.k.version = 1;
    pl.k.head_groups = a.heads <= 16 ? 1 : 2;
    pl.k.block_n = 32;
    pl.k.stages = 1;
    (void)select_for(a, pl.k, &smem, &threads, &per_sm);
  }
  pl.head_tiles = (a.heads + 16 * pl.k.head_groups - 1) / (16 * pl.k.head_groups);
  const std::int64_t blocks = (a.seq + pl.k.block_n - 1) / pl.k.block_n;
  int splits = pl.k.splits;
  if (splits <= 0) splits = mla_split_count(a.batch * pl.head_tiles, blocks, per_sm);
  splits = std::max(1, std::min(splits, kMlaCombineMaxSplits));
  const std::int64_t per = (blocks + splits - 1) / splits;
  pl.split_len = per * pl.k.block_n;
  pl.k.splits = static_cast<int>((blocks + per - 1) / per);  // no split left empty by rounding
  // The parallel combine pays off with many splits (H200: bs4 kv1024 16 splits 18.4 vs 19.6 us,
  // H16 B1 S65536 128 splits 47.5 vs 73.6); with a few the serial walk is cheaper (H16 B64
  // S8192 2 splits 172.2 vs 185.7, bs64 kv8192 fp8 4 splits 185.6 vs 194.0).
  if (!forced) pl.k.combine = pl.k.splits >= 8 ? 2 : 1;
  return pl;
}

std::size_t workspace_for(const MlaDeviceArgs& a, const Plan& pl) {
  if (pl.k.splits <= 1) return 0;
  const std::size_t rows = std::size_t(a.batch) * std::size_t(a.heads) * std::size_t(pl.k.splits);
  return rows * (kDl * sizeof(float) + sizeof(float2));
}

void launch_with_plan(const MlaDeviceArgs& a, const Plan& pl) {
  check_warp_size();
  if (!a.q || !a.kv || !a.out) throw attn::DeviceError("MLA decode: null q, kv or out pointer");
  const std::size_t ws = workspace_for(a, pl);
  if (ws > 0 && !a.workspace)
    throw attn::DeviceError("MLA decode: " + std::to_string(ws) +
                            " bytes of workspace are needed for " + std::to_string(pl.k.splits) +
                            " splits, none given");
  int smem = 0, threads = 0, per_sm = 0;
  KernelFn fn = select_for(a, pl.k, &smem, &threads, &per_sm);
  if (per_sm < 1)
    throw attn::DeviceError("MLA decode: the kernel does not fit on this device (" +
                            std::to_string(smem) + " bytes of shared memory per block)");
  MlaParams p{};
  p.q = a.q;
  p.kv = a.kv;
  p.lens = a.lens;
  p.out = a.out;
  const std::size_t rows = std::size_t(a.batch) * std::size_t(a.heads) * std::size_t(pl.k.splits);
  p.part_acc = ws ? static_cast<float*>(a.workspace) : nullptr;
  p.part_state =
      ws ? reinterpret_cast<float2*>(static_cast<float*>(a.workspace) + rows * kDl) : nullptr;
  p.seq = a.seq;
  p.heads = a.heads;
  p.head_tiles = pl.head_tiles;
  p.splits = pl.k.splits;
  p.split_len = pl.split_len;
  const bool fp8 = a.dt == attn::DType::kFp8;
  p.score_scale = a.scale * (fp8 ? a.kv_scale : 1.0f);
  p.out_scale = fp8 ? a.kv_scale : 1.0f;
  if (kDiag && pl.k.version >= 5) p.probe = read_overrides().mla_probe;
  p.pdl = pl.k.splits > 1 && pdl_enabled();
  const std::int64_t ctas = a.batch * pl.head_tiles * pl.k.splits;
  if (ctas > std::numeric_limits<int>::max())
    throw attn::DeviceError("MLA decode: too many blocks (" + std::to_string(ctas) + ")");
  auto stream = static_cast<hipStream_t>(a.stream);
  fn<<<dim3(static_cast<unsigned>(ctas)), dim3(threads), smem, stream>>>(p);
  HIP_CHECK_LAUNCH();
  if (pl.k.splits > 1)
    launch_mla_combine(pl.k.combine, p.part_acc, p.part_state, a.out, pl.k.splits,
                       a.batch * a.heads, p.pdl != 0, stream);
}

}  // namespace

bool mla_version_available(int version) {
  if (version == 1 || version == 3 || version == 4) return true;
#if defined(ATTNLAB_HAVE_SM90A)
  if (version == 5 || version == 6 || version == 7) return device_is_sm90();
#endif
  return false;
}

MlaKernelChoice mla_plan(const MlaDeviceArgs& a) { return make_plan(a, nullptr).k; }
MlaKernelChoice mla_plan(const MlaDeviceArgs& a, const MlaKernelChoice& c) {
  return make_plan(a, &c).k;
}

std::size_t mla_workspace_bytes(const MlaDeviceArgs& a) {
  return workspace_for(a, make_plan(a, nullptr));
}
std::size_t mla_workspace_bytes(const MlaDeviceArgs& a, const MlaKernelChoice& c) {
  return workspace_for(a, make_plan(a, &c));
}

void launch_mla_decode(const MlaDeviceArgs& a) { launch_with_plan(a, make_plan(a, nullptr)); }
void launch_mla_decode(const MlaDeviceArgs& a, const MlaKernelChoice& c) {
  launch_with_plan(a, make_plan(a, &c));
}

}  // namespace kern
