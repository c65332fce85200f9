// Host side of the grouped decode: argument checks, the plan (kernel version, head slices, KV
// splits, the combine) and the workspace layout. The kernels and their launch are in
// decode_grouped.hip (v1, v2, the combine and the launch), decode_grouped_mma.hip (v3),
// decode_grouped_pipe.hip (v4), decode_grouped_wgmma_sm90a.hip (v5) and decode_grouped_tile.hip
// (v6); kernels/README.md has the table of versions.
#include "kernels/hip_compat.h"
#include <algorithm>
#include <cstdlib>
#include <string>

#include "attention/error.h"
#include "kernels/gpu_check.h"
#include "kernels/grouped_device.h"
#include "kernels/grouped_launch.h"
#include "kernels/overrides.h"

namespace kern {
namespace {

using namespace gdev;

#if defined(ATTNLAB_HIP_ON_CUDA)
constexpr bool kNvidia = true;
#else
constexpr bool kNvidia = false;
#endif

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
  w.total =
      w.counters + static_cast<std::size_t>(a.batch) * a.kv_heads * plan.slices * sizeof(unsigned);
  return w;
}
}  // namespace gdev

namespace {

// What the choices below read of the arguments.
struct Shape {
  int g = 1;          // G = Hq / Hkv
  bool half = false;  // bf16 or fp16 (the matrix paths' inputs)
  bool fp16 = false;
  std::int64_t keys = 0;  // keys a sequence reads: min(S, W)
  double kv_bytes16 = 0;  // KV bytes at 16 bits an element (the thresholds were set on them)
};

Shape shape_of(const GroupedDeviceArgs& a) {
  Shape s;
  s.g = a.q_heads / a.kv_heads;
  s.half = a.dt == attn::DType::kBf16 || a.dt == attn::DType::kFp16;
  s.fp16 = a.dt == attn::DType::kFp16;
  s.keys = a.window > 0 ? std::min<std::int64_t>(a.seq, a.window) : a.seq;
  s.kv_bytes16 = double(a.batch) * double(s.keys) * a.kv_heads * (a.head_dim + a.value_dim) * 2.0;
  return s;
}

// The version: the newest that is built, fits the shape and measured fastest for it. On AMD
// (no v3-v5) that is v6, the matrix-unit kernel written against matrix_ops.h, wherever it
// applies; on NVIDIA v6 runs only when asked for (ATTNLAB_GROUPED_VERSION=6), as the checked
// twin of the AMD build.
// v5 (wgmma) everywhere on an sm_90 device with 16-bit D 128, except G = 1 with too few
// (b, kv head) groups to fill the SMs (v3's split walk streams faster) and G <= 16 under 32 MiB
// (v4's 16-key steps ramp up sooner). v4 over v3 except on long streaming reads (G = 1, or
// G <= 16 with >= 512 MiB), where v3's register prefetch reads faster. A version cap in
// ATTNLAB_GROUPED_VERSION forces 4, 5 or 6 wherever it is built and fits the shape.
int choose_version(const GroupedDeviceArgs& a, const Shape& s, const Overrides& o) {
  const bool forced = o.grouped_version != 0;
  const int cap = forced ? std::clamp(o.grouped_version, 1, 6) : 6;
  const bool streaming = s.g == 1 || (s.g <= kMmaSliceHeads && s.kv_bytes16 >= 512.0 * 1024 * 1024);
  const bool v3_ok = mma_supported(a.head_dim, a.value_dim, s.half);
  bool v5_ok = false;
#if defined(ATTNLAB_HAVE_SM90A)
  v5_ok = s.half && a.head_dim == 128 && a.value_dim == 128 && device_is_sm90();
#endif
  const bool v5_pick = !(s.g == 1 && a.batch * a.kv_heads < device_multiprocessors()) &&
                       !(s.g <= kMmaSliceHeads && s.kv_bytes16 < 32.0 * 1024 * 1024);
  if (cap >= 6 && tile_supported(a.head_dim, a.value_dim, s.half) && (forced || !kNvidia)) return 6;
  if (cap >= 5 && v5_ok && (forced || v5_pick)) return 5;
  if (cap >= 4 && pipe_supported(a.head_dim, a.value_dim, s.half) &&
      (forced || !streaming || !v3_ok))
    return 4;
  if (cap >= 3 && v3_ok) return 3;
  if (cap >= 2 && tiled_dims(a.head_dim, a.value_dim)) return 2;
  return 1;
}

// v4 with G > 16 (MQA): two warps of 16 heads share one pipeline ("wt2", 3 blocks an SM), so
// each K/V tile is read once for 32 heads; "mt2" (two m-tiles a warp) needs 252 registers.
// v4's keys a warp step: 32 for wt2 (two 16-key groups share a step's waits and reductions),
// else 16; 32 needs D 128, one m-tile and <= 3 stages.
void choose_v4_layout(GroupedPlan& plan, const GroupedDeviceArgs& a, const Shape& s,
                      const Overrides& o) {
  if (s.g > kMmaSliceHeads) {
    const std::string layout = o.grouped_layout.empty() ? "wt2" : o.grouped_layout;
    if (layout == "mt2")
      plan.mtiles = 2;
    else if (layout == "wt2")
      plan.tile_warps = 2;
  }
  if (plan.tile_warps == 2) plan.keys = 32;
  if (o.grouped_keys != 0) plan.keys = o.grouped_keys == 32 ? 32 : 16;
  if (!pipe_keys_supported(a.head_dim, pipe_max_stages(plan.keys), plan.mtiles, plan.keys))
    plan.keys = 16;
}

// Fewest keys a split: a split shorter than this costs more in its partial and merge than its
// parallelism gains (v1 / v2: two tiles and >= 128; v3 / v4: 256; v4 wt2 and v5 with G > 16:
// 512; v5: 128).
std::int64_t min_split_keys(const GroupedPlan& plan, const Shape& s, std::int64_t tile) {
  const bool matrix = plan.version >= 3;
  if (!matrix) return std::max<std::int64_t>(128, 2 * tile);
  if (plan.version == 5) return s.g > kMmaSliceHeads ? 512 : 128;
  return plan.tile_warps == 2 ? 512 : 256;
}

// v5's stages and warpgroups. Three 64-key stages (two CTAs an SM) by default. Two warpgroups a
// CTA (one CTA an SM, two math chains over alternate blocks) where the (b, kv head, slice)
// groups alone fill 15/16 to all of the SMs; with G > 16 also where 2-4 splits of >= 1024 keys
// do, the last CTA of a group merging the splits in its registers. Returns those splits (0 =
// none).
int choose_v5_pipeline(GroupedPlan& plan, const GroupedDeviceArgs& a, const Shape& s,
                       const Overrides& o, int force) {
  plan.stages = 3;
  if (o.grouped_stages != 0)
    plan.stages = o.grouped_stages <= 3 ? 3 : o.grouped_stages == 4 ? 4 : 6;
  const std::int64_t groups = a.batch * a.kv_heads * plan.slices;
  const std::int64_t sms = device_multiprocessors();
  if (plan.stages == 3 && 16 * groups >= 15 * sms && groups <= sms) plan.warpgroups = 2;
  int wg_splits = 0;
  const bool wgs_forced = o.grouped_wgs != 0;
  if (plan.stages == 3 && plan.warpgroups == 1 && !wgs_forced && force <= 0 && s.g > kMmaSliceHeads)
    for (int n = 2; n <= 4; ++n)
      if (16 * groups * n >= 15 * sms && groups * n <= sms && s.keys >= 1024 * n) {
        plan.warpgroups = 2;
        wg_splits = n;
        break;
      }
  if (wgs_forced) {
    plan.warpgroups = o.grouped_wgs == 2 ? 2 : 1;
    if (plan.warpgroups == 2) plan.stages = 3;
  }
  return wg_splits;
}

// v4's stages: 4 (three blocks in flight a pipeline), 3 where a pipeline walks <= 4 blocks,
// 2-3 with 32-key steps, 2 for wt2 (MQA).
void choose_v4_stages(GroupedPlan& plan, const GroupedDeviceArgs& a, const Shape& s,
                      const Overrides& o, std::int64_t base, std::int64_t max_splits) {
  int stages = 0;
  if (o.grouped_stages != 0) stages = std::clamp(o.grouped_stages, 2, 4);
  stages = std::min(stages, pipe_max_stages(plan.keys));
  if (stages == 0 && plan.tile_warps == 2) stages = 2;
  if (stages == 0) {
    const std::int64_t slots4 = pipe_blocks_per_sm(s.fp16, a.head_dim, pipe_max_stages(plan.keys),
                                                   plan.mtiles, plan.tile_warps, plan.keys) *
                                std::int64_t(device_multiprocessors());
    const std::int64_t s4 = std::min(max_splits, std::max<std::int64_t>(1, slots4 / base));
    const std::int64_t round = plan.keys * (4 / plan.tile_warps);  // keys a block takes a step
    const std::int64_t walk = ((s.keys + s4 - 1) / s4 + round - 1) / round;  // blocks a pipeline
    stages = plan.keys == 32 ? (walk <= 2 ? 2 : 3) : (walk <= 4 ? 3 : 4);
  }
  plan.stages = stages;
}

// Splits: the most that still fit one wave of the resident blocks an SM (v3: 2, v4: its
// occupancy, at most 2 for wt2; v5: its occupancy), rounded down; v1 / v2 round up. Never more
// than `max_splits`.
std::int64_t choose_splits(const GroupedPlan& plan, const Shape& s, std::int64_t base,
                           std::int64_t max_splits, const GroupedDeviceArgs& a) {
  const bool matrix = plan.version >= 3;
  const std::int64_t pipe_sm = plan.version == 4
                                   ? pipe_blocks_per_sm(s.fp16, a.head_dim, plan.stages,
                                                        plan.mtiles, plan.tile_warps, plan.keys)
                                   : 0;
  std::int64_t per_sm = plan.version == 4
                            ? (plan.tile_warps == 2 ? std::min<std::int64_t>(2, pipe_sm) : pipe_sm)
                        : plan.version == 3 ? 2
                        : plan.version == 6 ? tile_blocks_per_sm(s.fp16, a.head_dim)
                                            : 4;
#if defined(ATTNLAB_HAVE_SM90A)
  if (plan.version == 5) per_sm = grouped_wgmma_blocks_per_sm(s.fp16, plan.stages, plan.warpgroups);
#endif
  const std::int64_t target = per_sm * device_multiprocessors();
  const std::int64_t want = matrix ? target / base : (target + base - 1) / base;
  return std::min(max_splits, std::max<std::int64_t>(1, want));
}

// The combine of the splits. One warpgroup: fused into the last CTA of a group where a slice
// holds <= 8 heads and the weights fit its shared memory (with 16 heads the last CTA's tail
// costs more than a second kernel). Two v5 warpgroups: fused where choose_v5_pipeline split
// the group for them. ATTNLAB_GROUPED_COMBINE=1 / 2 asks for the separate / fused combine; 3 for
// the cluster merge (diagnostic builds; measured slower than both).
void choose_combine(GroupedPlan& plan, const GroupedDeviceArgs& a, const Shape& s,
                    const Overrides& o, int wg_splits) {
  const bool matrix = plan.version >= 3;
  const bool v5 = plan.version == 5;
  int combine = a.combine > 0 ? a.combine : o.grouped_combine;
  const bool ask_cluster = combine == 3;
  if (ask_cluster) combine = 0;
  const int slice_rows = std::min(s.g, plan.slice_heads);
  const bool fuse = combine == 2 || (combine <= 0 && slice_rows <= 8);
  const std::int64_t weights = std::int64_t(plan.slice_heads) * plan.splits * 4;
  const bool fits = plan.version == 3   ? plan.splits <= 4 * a.head_dim
                    : plan.version == 6 ? weights <= tile_smem_bytes(a.head_dim)
                    : v5                ? weights <= 3 * 32768  // the stages, >= 3 x 32 KB
                                        : weights <= 256 * std::int64_t(a.head_dim + 8);
  const bool wg_merge = combine == 2 || (combine <= 0 && wg_splits > 0);
  plan.fused_combine =
      plan.splits > 1 && matrix && (plan.warpgroups == 1 ? fuse && fits : wg_merge);
#if defined(ATTNLAB_HAVE_SM90A) && defined(ATTNLAB_KERNEL_DIAG)
  if (ask_cluster && v5 && plan.warpgroups == 1 && plan.slices == 1 && plan.splits >= 2 &&
      grouped_wgmma_max_clusters(s.fp16, plan.stages, plan.splits) >= 1) {
    plan.cluster = plan.splits;
    plan.fused_combine = false;
  }
#else
  (void)ask_cluster;
  (void)v5;
#endif
}

}  // namespace

// The plan, in the order its choices depend on each other: version, v4's layout, head slices,
// the tile and the fewest keys a split, v5's or v4's pipeline, splits, and the combine. Why each
// choice is what it is, with the figures: kernels/DESIGN.md, "The grouped plan".
GroupedPlan grouped_plan(const GroupedDeviceArgs& a) {
  check_args(a);
  const Overrides o = read_overrides();
  const Shape s = shape_of(a);
  GroupedPlan plan;
  plan.version = choose_version(a, s, o);
  plan.fast = plan.version >= 2;
  const bool matrix = plan.version >= 3;
  const bool v5 = plan.version == 5;
  if (plan.version == 4) choose_v4_layout(plan, a, s, o);
  plan.slice_heads = v5                  ? kWgmmaSliceHeads
                     : matrix            ? kMmaSliceHeads * plan.mtiles * plan.tile_warps
                     : plan.version == 2 ? slice_heads_for(s.g)
                                         : 1;
  plan.slices = (s.g + plan.slice_heads - 1) / plan.slice_heads;
  const std::int64_t tile = v5                  ? kWgmmaBlockKeys
                            : matrix            ? kMmaBlockKeys * (plan.keys / 16)
                            : plan.version == 2 ? tile_keys(a.dt, a.head_dim)
                                                : kGenericKeys;
  const std::int64_t min_chunk = min_split_keys(plan, s, tile);
  const std::int64_t base = a.batch * a.kv_heads * plan.slices;
  const std::int64_t max_splits = std::max<std::int64_t>(1, (s.keys + min_chunk - 1) / min_chunk);
  int force = a.force_splits > 0 ? a.force_splits : o.grouped_splits;
  const int wg_splits = v5 ? choose_v5_pipeline(plan, a, s, o, force) : 0;
  if (plan.version == 4) choose_v4_stages(plan, a, s, o, base, max_splits);
  if (wg_splits > 0) force = wg_splits;
  std::int64_t splits = force > 0 ? force : choose_splits(plan, s, base, max_splits, a);
  std::int64_t chunk = (s.keys + splits - 1) / splits;
  chunk = (chunk + tile - 1) / tile * tile;
  splits = (s.keys + chunk - 1) / chunk;
  plan.splits = static_cast<int>(splits);
  plan.chunk = chunk;
  plan.blocks = base * splits;
  choose_combine(plan, a, s, o, wg_splits);
  return plan;
}

std::size_t grouped_workspace_bytes(const GroupedDeviceArgs& a) {
  return work_layout(a, grouped_plan(a)).total;
}

}  // namespace kern
