// Device-side pieces shared by the grouped decode kernels (decode_grouped.hip: v1, v2, combine;
// decode_grouped_mma.hip: v3; decode_grouped_pipe.hip: v4; decode_grouped_wgmma_sm90a.hip: v5;
// decode_grouped_tile.hip: v6): the launch parameters, storage conversions, the key range of a
// split and the result write. Include only from .hip files, after kernels/hip_compat.h.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/grouped_launch.h"
#include "kernels/hip_compat.h"
#include "kernels/dependent_launch.h"
#include "kernels/diag.h"

namespace kern {
namespace gdev {

constexpr int kThreads = 128;           // threads per block (both kernels)
constexpr int kTileBytes = 16384;       // K + V bytes of one tile (v2)
constexpr int kGenericKeys = 128;       // keys per tile (v1)
constexpr int kGenericDvPerThread = 8;  // v1 supports Dv <= 8 * kThreads
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
constexpr int kWarp = ATTNLAB_KWARP;

// ---- storage types ----------------------------------------------------------------------
struct Bf16Kv {
  using T = std::uint16_t;
  static constexpr int kVec = 8;
};
struct Fp16Kv {
  using T = std::uint16_t;
  static constexpr int kVec = 8;
};
struct Fp8Kv {
  using T = std::uint8_t;
  static constexpr int kVec = 16;
};

// Exact conversions by bit placement (no vendor fp16/bf16/fp8 headers needed). fp16 and e4m3
// magnitudes are put into a float's low exponent bits and rescaled by a power of two, which is
// exact for subnormals too (no flush-to-zero in these builds).
__device__ __forceinline__ float bf16_lo(unsigned w) { return __uint_as_float(w << 16); }
__device__ __forceinline__ float bf16_hi(unsigned w) { return __uint_as_float(w & 0xffff0000u); }
__device__ __forceinline__ float fp16_lo(unsigned w) {
  return __uint_as_float(((w & 0x7fffu) << 13) | ((w & 0x8000u) << 16)) * 0x1p112f;
}
__device__ __forceinline__ float fp16_hi(unsigned w) {
  return __uint_as_float(((w >> 3) & 0x0fffe000u) | (w & 0x80000000u)) * 0x1p112f;
}
__device__ __forceinline__ float e4m3_byte(unsigned b) {  // b in 0..255
  return __uint_as_float(((b & 0x7fu) << 20) | ((b & 0x80u) << 24)) * 0x1p120f;
}

__device__ __forceinline__ void unpack(Bf16Kv, const uint4& c, float* f) {
  const unsigned w[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = bf16_lo(w[i]);
    f[2 * i + 1] = bf16_hi(w[i]);
  }
}
__device__ __forceinline__ void unpack(Fp16Kv, const uint4& c, float* f) {
  const unsigned w[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = fp16_lo(w[i]);
    f[2 * i + 1] = fp16_hi(w[i]);
  }
}
__device__ __forceinline__ void unpack(Fp8Kv, const uint4& c, float* f) {
  const unsigned w[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
#pragma unroll
    for (int j = 0; j < 4; ++j) f[4 * i + j] = e4m3_byte((w[i] >> (8 * j)) & 0xffu);
  }
}

// One stored element (v1 and q loads).
__device__ __forceinline__ float elem(Bf16Kv, std::uint16_t x) { return bf16_lo(x); }
__device__ __forceinline__ float elem(Fp16Kv, std::uint16_t x) { return fp16_lo(x); }
__device__ __forceinline__ float elem(Fp8Kv, std::uint8_t x) { return e4m3_byte(x); }
// Queries: fp16 with fp16 caches, bf16 otherwise.
__device__ __forceinline__ float q_elem(Bf16Kv, std::uint16_t x) { return bf16_lo(x); }
__device__ __forceinline__ float q_elem(Fp16Kv, std::uint16_t x) { return fp16_lo(x); }
__device__ __forceinline__ float q_elem(Fp8Kv, std::uint16_t x) { return bf16_lo(x); }

__device__ __forceinline__ float warp_max(float x) {
#pragma unroll
  for (int off = kWarp / 2; off >= 1; off /= 2) x = fmaxf(x, ATTNLAB_SHFL_XOR(x, off, kWarp));
  return x;
}
__device__ __forceinline__ float warp_sum(float x) {
#pragma unroll
  for (int off = kWarp / 2; off >= 1; off /= 2) x += ATTNLAB_SHFL_XOR(x, off, kWarp);
  return x;
}

struct Params {
  const void* q;                 // [B, Hq, D]
  const void* k;                 // [B, S, Hkv, D]
  const void* v;                 // [B, S, Hkv, Dv]
  const std::int32_t* lens;      // [B] or nullptr
  float* out;                    // [B, Hq, Dv] (written directly when splits == 1)
  float* part_acc;               // [splits, B, Hq, Dv] unnormalised partial outputs (splits > 1)
  float2* part_state;            // [splits, B, Hq] {max (natural-log units), sum}
  long long seq;                 // S
  long long chunk;               // C, keys per split
  int batch, hq, hkv, g, d, dv;  // B, Hq, Hkv, G, D, Dv
  int window;                    // W, 0 = full
  int splits, slices;            // KV splits; head slices per kv head
  float q_mult;                  // scale * k_scale * log2(e), folded into q
  float v_scale;                 // fp8 value scale (1 otherwise)
  unsigned* counters;  // [B, Hkv, slices] finished splits (fused combine); 0 between launches
  int fused;           // 1: the last block of each (b, kv head, slice) does the combine
  unsigned long long* timeline;  // v5 diagnostics, GroupedDeviceArgs::timeline; nullptr = off
  int probe;    // v5 diagnostics (ATTNLAB_GROUPED_PROBE): 1 = copies only, no math;
                // 2 = the splits of a group interleave their blocks
  int pdl;      // 1: the separate combine is launched as a programmatic dependent of
                // the main kernel (kernels/dependent_launch.h; ATTNLAB_PDL=0: never)
  int cluster;  // v5, one warpgroup, one slice: > 1 = the `splits` CTAs of a group are
                // one thread-block cluster and merge through distributed shared memory
  int ticket;   // v5, two warpgroups, split and fused: 1 = ticket-first merge
                // (take_ticket below)
};

// Key range [start, end) of block `split` of sequence b.
__device__ __forceinline__ void key_range(const Params& p, int b, int split, long long* start,
                                          long long* end) {
  long long len = p.lens ? static_cast<long long>(p.lens[b]) : p.seq;
  len = len < 0 ? 0 : (len > p.seq ? p.seq : len);
  const long long lo = (p.window > 0 && len > p.window) ? len - p.window : 0;
  *start = lo + static_cast<long long>(split) * p.chunk;
  const long long e = *start + p.chunk;
  *end = e < len ? e : len;
}

// Writes a block's result for query head hq: the normalised output, or the partial.
__device__ __forceinline__ void write_result(const Params& p, int split, int b, int hq, int d0,
                                             const float* acc, int n, float mx, float sum,
                                             bool write_state) {
  const long long row = static_cast<long long>(b) * p.hq + hq;
  if (p.splits == 1) {
    const float inv = sum > 0.0f ? p.v_scale / sum : 0.0f;
    float* o = p.out + row * p.dv + d0;
    for (int e = 0; e < n; ++e) o[e] = acc[e] * inv;
  } else {
    const long long prow = static_cast<long long>(split) * p.batch * p.hq + row;
    float* o = p.part_acc + prow * p.dv + d0;
    for (int e = 0; e < n; ++e) o[e] = acc[e] * p.v_scale;
    if (write_state) p.part_state[prow] = make_float2(mx, sum);
  }
}

// Fused split-KV combine. Called by every block of a split launch after it wrote its partials
// for heads [h0, h0 + nh) of sequence b; the last of the p.splits blocks of the same (b, kv
// head, slice) -- `group` -- merges all splits into out, so no second kernel (and no launch gap)
// is needed. Pattern of CUDA's threadFenceReduction sample: each thread fences its partial
// writes, one thread counts the block in with an atomic, the block that counts last reads the
// others' partials (it never read those addresses before, so no stale cached line exists) and
// resets the counter for the next launch. scratch: >= nh * p.splits floats of shared memory
// (the caller's, free by then). out = sum_s w_s acc_s with w_s = exp(m_s - M) / sum exp(m_s - M)
// l_s: the same merge as attn::SoftmaxState::merge, done for all splits at once.
// The merge of rows [row0, row0 + nh) of all splits (row = b * Hq + hq), by the whole block:
// weights per (row, split) into scratch, then 4 dv a thread. Dv % 4 == 0.
__device__ __forceinline__ void combine_rows(const Params& p, long long row0, int nh,
                                             float* scratch) {
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int warp = static_cast<int>(threadIdx.x) / kWarp;
  const int warps = static_cast<int>(blockDim.x) / kWarp;
  const long long rows = static_cast<long long>(p.batch) * p.hq;
  for (int r = warp; r < nh; r += warps) {
    const float2* st = p.part_state + row0 + r;
    if (p.splits <= kWarp) {  // one state per lane: a single round trip
      const float2 x = lane < p.splits ? st[lane * rows] : make_float2(-INFINITY, 0.0f);
      const float m = warp_max(x.y > 0.0f ? x.x : -INFINITY);
      const float e = x.y > 0.0f ? expf(x.x - m) : 0.0f;
      const float l = warp_sum(x.y * e);
      if (lane < p.splits) scratch[r * p.splits + lane] = l > 0.0f ? e / l : 0.0f;
      continue;
    }
    float m = -INFINITY;
    for (int s = lane; s < p.splits; s += kWarp)
      if (st[s * rows].y > 0.0f) m = fmaxf(m, st[s * rows].x);
    m = warp_max(m);
    float l = 0.0f;
    for (int s = lane; s < p.splits; s += kWarp) {
      const float2 x = st[s * rows];
      const float e = x.y > 0.0f ? expf(x.x - m) : 0.0f;
      scratch[r * p.splits + s] = e;
      l += x.y * e;
    }
    l = warp_sum(l);
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    for (int s = lane; s < p.splits; s += kWarp) scratch[r * p.splits + s] *= inv;
  }
  __syncthreads();
  // Output: 4 consecutive dv of one row per thread (Dv % 4 == 0, as v3 has), the splits'
  // loads 16 at a time, all independent: one L2 round trip per 16 splits, not one per split.
  const int quads = p.dv / 4;
  const long long step = rows * p.dv;
  for (int idx = static_cast<int>(threadIdx.x); idx < nh * quads;
       idx += static_cast<int>(blockDim.x)) {
    const int r = idx / quads, dd = 4 * (idx % quads);
    const float* w = scratch + r * p.splits;
    const float* pa = p.part_acc + (row0 + r) * p.dv + dd;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    constexpr int kAhead = 16;
    for (int s0 = 0; s0 < p.splits; s0 += kAhead) {
      float4 x[kAhead];
#pragma unroll
      for (int i = 0; i < kAhead; ++i)
        x[i] = s0 + i < p.splits ? *reinterpret_cast<const float4*>(pa + (s0 + i) * step)
                                 : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
      for (int i = 0; i < kAhead; ++i) {
        const float wi = s0 + i < p.splits ? w[s0 + i] : 0.0f;
        acc.x += wi * x[i].x;
        acc.y += wi * x[i].y;
        acc.z += wi * x[i].z;
        acc.w += wi * x[i].w;
      }
    }
    *reinterpret_cast<float4*>(p.out + (row0 + r) * p.dv + dd) = acc;
  }
}

__device__ __forceinline__ void combine_if_last(const Params& p, int b, int group, int h0, int nh,
                                                float* scratch) {
  __shared__ int last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned prev = atomicAdd(p.counters + group, 1u);
    last = prev + 1 == static_cast<unsigned>(p.splits);
    if (last) p.counters[group] = 0u;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  combine_rows(p, static_cast<long long>(b) * p.hq + h0, nh, scratch);
}

// Ticket-first split merge (p.ticket; v5 with two warpgroups, merge_splits): a group's word
// counts arrivals in its low 16 bits and published partials in its high 16. Each CTA takes its
// arrival ticket as soon as its walk is done (thread 0, one atomic whose round trip overlaps
// the two warpgroups' hand-over); the CTAs that are not last write their partials, fence and
// publish; the last one writes no partial, waits until the others have published (they never
// wait on anyone, so this cannot deadlock: each took its ticket earlier, so it is running),
// merges them into its registers and resets the word. H100: MQA B64 S8192 -0.45 us;
// the same order for the one-warpgroup / v4 tails (combine_if_last, whose last CTA must write
// its own partial anyway) measured 0.4-0.75 us slower and was not kept.
constexpr unsigned kTicketArrivals = 0xffffu;
constexpr unsigned kTicketPublished = 1u << 16;
__device__ __forceinline__ unsigned take_ticket(const Params& p, int group) {
  if (!p.ticket || threadIdx.x != 0) return 0u;  // p.ticket: split, fused (the launcher)
  return atomicAdd(p.counters + group, 1u);
}
__device__ __forceinline__ bool ticket_is_last(const Params& p, unsigned ticket) {
  return (ticket & kTicketArrivals) + 1 == static_cast<unsigned>(p.splits);
}
// A CTA that is not last, every calling thread after its partial writes: fence, then one
// publish. `sync` is the barrier over the calling threads.
template <class Sync>
__device__ __forceinline__ void publish_partial(const Params& p, int group, bool leader,
                                                Sync&& sync) {
  __threadfence();
  sync();
  if (leader) atomicAdd(p.counters + group, kTicketPublished);
}
// The last CTA's leader: waits for the other splits' partials, then leaves the word at 0.
__device__ __forceinline__ void wait_published(const Params& p, int group) {
  volatile unsigned* w = p.counters + group;
  const unsigned want = static_cast<unsigned>(p.splits - 1);
  while ((*w >> 16) < want) {
  }
  __threadfence();
  *w = 0u;  // every other CTA of the group is done with it
}

// Workspace layout (grouped_plan.hip): partial outputs, states, then the fused combine's
// counters, byte offsets into GroupedDeviceArgs::workspace.
struct WorkLayout {
  std::size_t acc = 0, state = 0, counters = 0, total = 0;
};
WorkLayout work_layout(const GroupedDeviceArgs& a, const GroupedPlan& plan);

// v3 (NVIDIA mma) launcher, defined in decode_grouped_mma.hip; heads per slice 16.
constexpr int kMmaSliceHeads = 16;
constexpr int kMmaBlockKeys = 64;  // 4 warps x 16 keys
bool mma_supported(int d, int dv, bool fp16_or_bf16);
void launch_grouped_mma(const Params& p, bool fp16, int splits, hipStream_t stream);

// v4 (NVIDIA mma fed by cp.async pipelines), decode_grouped_pipe.hip: 16 x mtiles x tile_warps
// heads a slice (mtiles 1 or 2 m-tiles a warp; tile_warps 1, or 2 warps sharing one pipeline
// with 16 heads each, with mtiles 1), `stages` blocks of `keys` keys in shared memory a
// pipeline (2-4).
// `keys` a step: 16, or 32 (D 128, mtiles 1, 2-3 stages; pipe_keys_supported).
constexpr int pipe_max_stages(int keys) { return keys == 32 ? 3 : 4; }  // 4 x 32 keys do not fit
bool pipe_supported(int d, int dv, bool fp16_or_bf16);
bool pipe_keys_supported(int d, int stages, int mtiles, int keys);
int pipe_blocks_per_sm(bool fp16, int d, int stages, int mtiles, int tile_warps,
                       int keys);  // an SM
void launch_grouped_pipe(const Params& p, bool fp16, int splits, int stages, int mtiles,
                         int tile_warps, int keys, hipStream_t stream);

// v5 (wgmma, decode_grouped_wgmma_sm90a.hip, built where ATTNLAB_HAVE_SM90A is defined): 64
// heads a slice, 64 keys a block, `stages` (3, 4 or 6) blocks in shared memory; bf16 / fp16,
// D = Dv = 128; a compute capability 9.0 device (device_is_sm90, gpu_check.h). `warpgroups`
// 2: two pipelines a CTA (3 stages each) over alternate blocks, merged in the CTA; its fused
// combine (p.fused) has the last CTA of a group merge the other splits into its registers.
constexpr int kWgmmaSliceHeads = 64;
constexpr int kWgmmaBlockKeys = 64;
int grouped_wgmma_blocks_per_sm(bool fp16, int stages, int warpgroups);
// Clusters of `size` CTAs (one warpgroup, `stages` stages) that can be resident at once; 0
// where such a cluster cannot be scheduled (size 9-16 needs the non-portable attribute,
// which is set here).
int grouped_wgmma_max_clusters(bool fp16, int stages, int size);
void launch_grouped_wgmma(const Params& p, bool fp16, int splits, int stages, int warpgroups,
                          hipStream_t stream);

// v6 (matrix units through matrix_ops.h: MFMA on AMD, mma.sync on NVIDIA),
// decode_grouped_tile.hip: 16 heads a slice, 4 warps of 16 keys a step (kMmaBlockKeys), bf16 /
// fp16, D = Dv in {64, 128}. The plan takes it on AMD; on NVIDIA only when asked for.
bool tile_supported(int d, int dv, bool fp16_or_bf16);
int tile_smem_bytes(int d);                // dynamic shared memory a CTA
int tile_blocks_per_sm(bool fp16, int d);  // resident CTAs a multiprocessor (occupancy query)
void launch_grouped_tile(const Params& p, bool fp16, int splits, hipStream_t stream);

}  // namespace gdev
}  // namespace kern
