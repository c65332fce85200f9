// Host side of the grouped decode: argument checks, the plan (kernel version, head slices, KV
// splits, the combine) and the workspace layout. The kernels and their launch are in
// decode_grouped.hip (v1, v2, combine) and decode_grouped_mma.hip (v3).
#include "kernels/hip_compat.h"
#include <algorithm>
#include <cstdlib>
#include <string>

#include "attention/error.h"
#include "kernels/gpu_check.h"
#include "kernels/grouped_device.h"
#include "kernels/grouped_launch.h"

namespace kern {
namespace {

using namespace gdev;

bool tiled_dims(int d, int dv) { return d == dv && (d == 64 || d == 128 || d == 256); }

int tile_keys(attn::DType dt, int d) {
  const int elem_bytes = dt == attn::DType::kFp8 ? 1 : 2;
  return kTileBytes / (2 * d * elem_bytes);
}

int slice_heads_for(int g) {
  int gs = 1;
  while (gs < g && gs < 32) gs *= 2;
  return gs;
}

void check_args(const GroupedDeviceArgs& a) {
  auto bad = [](const std::string& m) { throw attn::DeviceError("grouped decode: " + m); };
  if (a.batch < 1 || a.seq < 1) bad("B and S must be >= 1");
  if (a.batch > 65535) bad("B must be <= 65535 (grid limit), found " + std::to_string(a.batch));
  if (a.q_heads < 1 || a.kv_heads < 1 || a.q_heads % a.kv_heads != 0)
    bad("Hkv must divide Hq (Hq " + std::to_string(a.q_heads) + ", Hkv " +
        std::to_string(a.kv_heads) + ")");
  if (a.head_dim < 1 || a.value_dim < 1) bad("D and Dv must be >= 1");
  if (a.value_dim > kGenericDvPerThread * kThreads && !tiled_dims(a.head_dim, a.value_dim))
    bad("Dv must be <= " + std::to_string(kGenericDvPerThread * kThreads));
  if (a.window < 0) bad("W must be >= 0");
  if (a.dt != attn::DType::kBf16 && a.dt != attn::DType::kFp16 && a.dt != attn::DType::kFp8)
    bad("dtype must be bf16, fp16 or fp8, found " + std::string(attn::dtype_name(a.dt)));
  if (!(a.scale > 0.0f) && !(a.scale < 0.0f)) bad("scale must be resolved (non-zero)");
}

}  // namespace

namespace gdev {
WorkLayout work_layout(const GroupedDeviceArgs& a, const GroupedPlan& plan) {
  WorkLayout w;
  if (plan.splits <= 1) return w;
  const std::size_t rows = static_cast<std::size_t>(plan.splits) * a.batch * a.q_heads;
  const auto up = [](std::size_t x) { return (x + 255) / 256 * 256; };
  w.acc = 0;
  w.state = up(rows * a.value_dim * sizeof(float));
  w.counters = w.state + up(rows * 2 * sizeof(float));
  w.total = w.counters + static_cast<std::size_t>(a.batch) * a.kv_heads * plan.slices * sizeof(unsigned);
  return w;
}
}  // namespace gdev

GroupedPlan grouped_plan(const GroupedDeviceArgs& a) {
  check_args(a);
  GroupedPlan plan;
  const int g = a.q_heads / a.kv_heads;
  int cap = 5;
  bool forced = false;
  if (const char* e = std::getenv("ATTNLAB_GROUPED_VERSION")) {
    cap = std::clamp(std::atoi(e), 1, 5);
    forced = true;
  }
  const bool half = a.dt == attn::DType::kBf16 || a.dt == attn::DType::kFp16;
  const bool fp16 = a.dt == attn::DType::kFp16;
  const std::int64_t keys = a.window > 0 ? std::min<std::int64_t>(a.seq, a.window) : a.seq;
  // v4 or v3 (both where supported): v4 is faster where the walk is short or the tile serves
  // many heads, v3 on long streaming reads, where it reaches ~4.4 TB/s and v4 ~4.1-4.2 (H200,
  // session 3 call 1: MHA B16 S4096 248.6 vs 258.3 us, MHA B1 S131072 479.7 vs 509.0, GQA B64
  // S8192 483.7 vs 508.7; GQA B1 S131072, 537 MB, 134.9 vs 135.2; GQA B16 S4096, 268 MB,
  // 74.3 vs 70.7; MQA B64 S8192 108.0 vs 93.0). Streaming: G = 1, or G <= 16 with >= 512 MiB
  // of KV. ATTNLAB_GROUPED_VERSION=4 takes v4 everywhere it is built.
  const double kv_bytes = double(a.batch) * double(keys) * a.kv_heads * (a.head_dim + a.value_dim) * 2.0;
  const bool streaming = g == 1 || (g <= kMmaSliceHeads && kv_bytes >= 512.0 * 1024 * 1024);
  const bool v3_ok = mma_supported(a.head_dim, a.value_dim, half);
  // v5 (wgmma, 64 heads a CTA; H100 / H200 only): see the policy below, measured in session 8.
  bool v5_ok = false;
#if defined(ATTNLAB_HAVE_SM90A)
  v5_ok = half && a.head_dim == 128 && a.value_dim == 128 && device_is_sm90();
#endif
  // v5 with 3 stages (two CTAs an SM) measured best or within noise on every D 128 row but
  // two (H200, session 8 call 7, us, v5 vs v3 / v4): MQA B64 S8192 76.8 vs 88.2, GQA B1
  // S131072 133.0 vs 137.6, MHA B16 S4096 247.0 vs 253.3, GQA B16 S4096 70.2 vs 71.7, SWA 70.6
  // vs 71.8, GQA B64 S8192 488.8 vs 494.3. The two: MHA B1 S131072, where the split v3 streams
  // at 98 % (489.3 vs 494.9), and GQA B1 S4096, 16.8 MB, where v4's 16-key steps ramp up
  // faster (14.3 vs 14.5). So v3 / v4 keep G = 1 with split KV and G <= 16 below 32 MiB.
  const bool v5_pick = !(g == 1 && a.batch * a.kv_heads < device_multiprocessors()) &&
                       !(g <= kMmaSliceHeads && kv_bytes < 32.0 * 1024 * 1024);
  if (cap >= 5 && v5_ok && (forced || v5_pick))
    plan.version = 5;
  else if (cap >= 4 && pipe_supported(a.head_dim, a.value_dim, half) && (forced || !streaming || !v3_ok))
    plan.version = 4;
  else if (cap >= 3 && v3_ok) plan.version = 3;
  else if (cap >= 2 && tiled_dims(a.head_dim, a.value_dim)) plan.version = 2;
  else plan.version = 1;
  plan.fast = plan.version >= 2;
  const bool matrix = plan.version >= 3;
  const bool v5 = plan.version == 5;
  // v4 with more than 16 query heads a kv head (MQA): 32 heads read each K/V tile once, either
  // as two m-tiles in one warp ("mt2", 252 registers: 2 blocks an SM) or as two warps of 16
  // heads sharing one pipeline ("wt2", 159 registers: 3 blocks an SM at 2-4 stages). Chosen:
  // wt2 (session 4, see NOTES.md); ATTNLAB_GROUPED_LAYOUT=mt2|wt2|1 for comparisons.
  if (plan.version == 4 && g > kMmaSliceHeads) {
    std::string layout = "wt2";
    if (const char* e = std::getenv("ATTNLAB_GROUPED_LAYOUT")) layout = e;
    if (layout == "mt2") plan.mtiles = 2;
    else if (layout == "wt2") plan.tile_warps = 2;
  }
  // v4 keys a warp step: 16, or 32 (two 16-key groups sharing a step's waits, barriers and
  // softmax reductions; D 128 with one m-tile, 2-3 stages). ATTNLAB_GROUPED_KEYS=16|32.
  // wt2 (MQA) takes 32: MQA B16 S4096 25.2 vs 27.4 us, B64 S8192 87.3-88.4 vs 87.9; the other
  // v4 rows measured the same or up to 0.8 % slower with 32 (GQA B16 S4096 71.3-71.8 vs 71.3,
  // SWA 71.1-71.7 vs 71.2, GQA B1 S4096 14.2 vs 14.2; H200, session 7, NOTES.md).
  if (plan.version == 4) {
    if (plan.tile_warps == 2) plan.keys = 32;
    if (const char* e = std::getenv("ATTNLAB_GROUPED_KEYS")) plan.keys = std::atoi(e) == 32 ? 32 : 16;
    if (!pipe_keys_supported(a.head_dim, pipe_max_stages(plan.keys), plan.mtiles, plan.keys))
      plan.keys = 16;
  }
  plan.slice_heads = v5       ? kWgmmaSliceHeads
                     : matrix ? kMmaSliceHeads * plan.mtiles * plan.tile_warps
                              : plan.version == 2 ? slice_heads_for(g) : 1;
  plan.slices = (g + plan.slice_heads - 1) / plan.slice_heads;
  const std::int64_t tile = v5       ? kWgmmaBlockKeys
                            : matrix ? kMmaBlockKeys * (plan.keys / 16)
                            : plan.version == 2 ? tile_keys(a.dt, a.head_dim)
                                                : kGenericKeys;
  // v3/v4: >= 256 keys a split (measured on the H200 with v3, GQA B1 S4096 with the fused
  // combine: 8 splits 21.3 us, 16 splits 17.9, 32 splits 19.6).
  // v4 wt2 (MQA): >= 512 keys (B16 S4096: 8 splits 26.9 us, 16 splits 28.4, session 4).
  // v5: >= 128 keys a split, >= 512 with G > 16 (MQA B16 S4096: 8 splits 18.9 us, 16 splits
  // 20.8; session 8 call 8).
  const std::int64_t min_chunk = !matrix ? std::max<std::int64_t>(128, 2 * tile)
                                 : v5 ? (g > kMmaSliceHeads ? 512 : 128)
                                 : plan.tile_warps == 2 ? 512 : 256;
  const std::int64_t base = a.batch * a.kv_heads * plan.slices;
  const std::int64_t max_splits = std::max<std::int64_t>(1, (keys + min_chunk - 1) / min_chunk);
  int force = a.force_splits;
  if (force <= 0)
    if (const char* e = std::getenv("ATTNLAB_GROUPED_SPLITS")) force = std::atoi(e);
  int wg_splits = 0;  // v5 two warpgroups with splits merged in registers (below)
  if (v5) {
    // v5: 3 stages of 64 keys (two CTAs an SM), 4 or 6 (one); ATTNLAB_GROUPED_STAGES.
    plan.stages = 3;
    if (const char* e = std::getenv("ATTNLAB_GROUPED_STAGES"))
      plan.stages = std::atoi(e) <= 3 ? 3 : std::atoi(e) == 4 ? 4 : 6;
    // Two warpgroups a CTA where the (b, kv head, slice) groups alone fill 15/16 to all of
    // the multiprocessors: one CTA each, two math chains an SM and no split to merge. A single
    // warpgroup a CTA there waits on its own chain (copies alone walk 268 MB in 56 us, with
    // the math 65 us), and a split to two CTAs an SM leaves SMs with one and adds the combine
    // (H200, session 11, us, 2 vs 1 warpgroups: GQA B16 S4096 68.1 vs 70.3-70.5, SWA W4096 B16
    // S32768 68.0-68.3 vs 70.5-70.6; elsewhere equal or slower: MQA B16 S4096 19.9 vs 18.7).
    const std::int64_t groups = a.batch * a.kv_heads * plan.slices;
    const std::int64_t sms = device_multiprocessors();
    if (plan.stages == 3 && 16 * groups >= 15 * sms && groups <= sms) plan.warpgroups = 2;
    // The same with 2-4 splits where the slices hold > 16 heads (MQA) and groups x splits
    // fill 15/16 to all of the SMs, the splits merged in registers by the last CTA of a group
    // (merge_splits in decode_grouped_wgmma_sm90a.hip): MQA B64 S8192 takes 2 splits of 4096
    // keys in place of 4 with one warpgroup and a second kernel (H200, session 12 call 4, one
    // machine, us: 74.1 / 74.0 vs 76.4 / 76.3; the separate combine 74.8).
    const char* wgs = std::getenv("ATTNLAB_GROUPED_WGS");
    if (plan.stages == 3 && plan.warpgroups == 1 && !wgs && force <= 0 && g > kMmaSliceHeads)
      for (int s = 2; s <= 4; ++s)
        if (16 * groups * s >= 15 * sms && groups * s <= sms && keys >= 1024 * s) {
          plan.warpgroups = 2;
          wg_splits = s;
          break;
        }
    if (wgs) {  // 1 | 2; 2 runs 3 stages
      plan.warpgroups = std::atoi(wgs) == 2 ? 2 : 1;
      if (plan.warpgroups == 2) plan.stages = 3;
    }
  }
  if (plan.version == 4) {
    // Stages: 4 (three blocks in flight a pipeline), measured best or within 1 % on every row
    // v4 now takes (session 3 call 1: GQA B16 S4096 70.7 vs 75.9 us at 2 stages, MQA B16
    // S4096 31.5 vs 34.4); 3 where a pipeline walks <= 4 blocks at 4 stages (GQA B1 S4096:
    // 14.1 vs 14.9).
    int stages = 0;
    if (const char* e = std::getenv("ATTNLAB_GROUPED_STAGES")) stages = std::clamp(std::atoi(e), 2, 4);
    stages = std::min(stages, pipe_max_stages(plan.keys));
    // wt2 (MQA): 2 stages (call D: MQA B64 S8192 86.7 vs 90.0 us at 4; call A: MQA B16 S4096
    // 27.5 vs 28.4).
    if (stages == 0 && plan.tile_warps == 2) stages = 2;
    if (stages == 0) {
      const std::int64_t slots4 = pipe_blocks_per_sm(fp16, a.head_dim, pipe_max_stages(plan.keys),
                                                     plan.mtiles, plan.tile_warps, plan.keys) *
                                  std::int64_t(device_multiprocessors());
      const std::int64_t s4 = std::min(max_splits, std::max<std::int64_t>(1, slots4 / base));
      const std::int64_t round = plan.keys * (4 / plan.tile_warps);  // keys a block takes a step
      const std::int64_t walk = ((keys + s4 - 1) / s4 + round - 1) / round;  // blocks a pipeline
      stages = plan.keys == 32 ? (walk <= 2 ? 2 : 3) : (walk <= 4 ? 3 : 4);
    }
    plan.stages = stages;
  }
  if (wg_splits > 0) force = wg_splits;
  std::int64_t splits = force > 0 ? force : 1;
  if (force <= 0) {
    // v3 keeps 2 blocks (8 warps) per SM resident, v4 what its occupancy query says, v1/v2
    // ~4 blocks. v3/v4 take the most splits that still fit one wave (rounding up made MHA B1
    // S131072 288 blocks for 264 slots: two waves, 702 us); v1/v2 keep the rounding up they
    // were measured with.
    // v4 wt2 aims at 2 blocks an SM although 3 fit (MQA B64 S8192: 4 splits 89.2 us, 6
    // splits 92.7, session 4): fewer partials to merge, and no third block on half the SMs.
    const std::int64_t pipe_sm =
        plan.version == 4 ? pipe_blocks_per_sm(fp16, a.head_dim, plan.stages, plan.mtiles, plan.tile_warps, plan.keys) : 0;
    std::int64_t per_sm = plan.version == 4 ? (plan.tile_warps == 2 ? std::min<std::int64_t>(2, pipe_sm) : pipe_sm)
                          : plan.version == 3 ? 2 : 4;
#if defined(ATTNLAB_HAVE_SM90A)
    if (v5) per_sm = grouped_wgmma_blocks_per_sm(fp16, plan.stages, plan.warpgroups);
#endif
    const std::int64_t target = per_sm * device_multiprocessors();
    const std::int64_t want = matrix ? target / base : (target + base - 1) / base;
    splits = std::min(max_splits, std::max<std::int64_t>(1, want));
  }
  std::int64_t chunk = (keys + splits - 1) / splits;
  chunk = (chunk + tile - 1) / tile * tile;
  splits = (keys + chunk - 1) / chunk;
  plan.splits = static_cast<int>(splits);
  plan.chunk = chunk;
  plan.blocks = base * splits;
  int combine = a.combine;
  if (combine <= 0)
    if (const char* e = std::getenv("ATTNLAB_GROUPED_COMBINE")) combine = std::atoi(e);
  const bool ask_cluster = combine == 3;  // else chosen as with 0
  if (ask_cluster) combine = 0;
  // The kernel's shared memory holds the weights, slice_heads x splits floats: v3 has 4 x 16 x D
  // floats, v4 at least 256 (D + 8) bytes (2 stages). Chosen for slices of <= 8 heads (GQA B1
  // S4096, 4 heads: 17.9 vs 18.6 us separate, v3); with 16 heads the last block's tail costs
  // more than the second kernel (MQA B16 S4096: 34.5 vs 31.5 us, v3).
  const int slice_rows = std::min(g, plan.slice_heads);
  const bool fuse = combine == 2 || (combine <= 0 && slice_rows <= 8);
  const std::int64_t weights = std::int64_t(plan.slice_heads) * plan.splits * 4;
  const bool fits = plan.version == 3 ? plan.splits <= 4 * a.head_dim
                    : v5              ? weights <= 3 * 32768  // the stages, >= 3 x 32 KB
                                      : weights <= 256 * std::int64_t(a.head_dim + 8);
  // Two warpgroups merge the splits in registers (fused) where the plan chose it above, or
  // with ATTNLAB_GROUPED_COMBINE=2; else the separate kernel.
  const bool wg_merge = combine == 2 || (combine <= 0 && wg_splits > 0);
  plan.fused_combine = plan.splits > 1 && matrix && (plan.warpgroups == 1 ? fuse && fits : wg_merge);
  // v5 with one warpgroup and one head slice: the splits of a group as one thread-block
  // cluster, merged through distributed shared memory (cluster_merge in
  // kernels/cluster_merge_sm90a.h) in place of the workspace and the fused or separate
  // combine. Only where ATTNLAB_GROUPED_COMBINE=3 asks for it (2-16 splits that the device can
  // schedule as clusters): it measured slower than the plan's combines on every row tried
  // (H100, session 13, us: MQA B16 S4096 8 splits 23.78 vs 21.34 with the separate kernel; GQA
  // B1 S4096 v5 16 splits 17.60 at 3 stages, 25.12 at 4, vs 15.78 with the fused tail; H200,
  // session 14: MQA B16 S4096 8 splits at one CTA an SM 32.10 vs 19.01, GQA B1 S4096 15.90 vs
  // 14.34).
#if defined(ATTNLAB_HAVE_SM90A)
  if (ask_cluster && v5 && plan.warpgroups == 1 && plan.slices == 1 && plan.splits >= 2 &&
      grouped_wgmma_max_clusters(fp16, plan.stages, plan.splits) >= 1) {
    plan.cluster = plan.splits;
    plan.fused_combine = false;
  }
#endif
  return plan;
}

std::size_t grouped_workspace_bytes(const GroupedDeviceArgs& a) {
  return work_layout(a, grouped_plan(a)).total;
}

}  // namespace kern
