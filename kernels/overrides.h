// Every ATTNLAB_* environment variable that steers the kernels, read in one place with one rule.
// They exist for comparisons and experiments; the plans decide well without them. The table of
// what each does is in kernels/README.md.
//
// The rule: a variable that is unset, empty or not a whole decimal integer (or, for the layout,
// not one of its names) counts as not set. The plans call read_overrides() once a plan, so a
// test or tool may change a variable between launches; the two on-by-default launch switches
// (pdl, grouped_ticket) are read once a process.
#pragma once
#include <string>

namespace kern {

struct Overrides {
  // Grouped decode (MHA / MQA / GQA / SWA).
  int grouped_version = 0;  // ATTNLAB_GROUPED_VERSION 1..6: highest version the plan may take;
                            // 4, 5 or 6 forces that version wherever it is built. 0 = the plan's.
  int grouped_splits = 0;   // ATTNLAB_GROUPED_SPLITS N >= 1: the KV split count. 0 = the plan's.
  int grouped_stages = 0;   // ATTNLAB_GROUPED_STAGES: pipeline stages, rounded to what the
                            // version has (v4: 2..4, v5: 3, 4 or 6). 0 = the plan's.
  std::string grouped_layout;  // ATTNLAB_GROUPED_LAYOUT mt2 | wt2 | 1: v4's layout for G > 16
                               // (two m-tiles a warp, two warps a pipeline, or neither). "" = wt2.
  int grouped_keys = 0;     // ATTNLAB_GROUPED_KEYS 16 | 32: v4's keys a warp step. 0 = the plan's.
  int grouped_wgs = 0;      // ATTNLAB_GROUPED_WGS 1 | 2: v5's warpgroups a CTA. 0 = the plan's.
  int grouped_combine = 0;  // ATTNLAB_GROUPED_COMBINE 1 separate kernel, 2 fused into the last
                            // CTA, 3 the cluster merge (diagnostic builds). 0 = the plan's.
  int grouped_probe = 0;    // ATTNLAB_GROUPED_PROBE bits (diagnostic builds, v5): 1 copies only,
                            // 2 the splits of a group interleave their blocks.
  bool grouped_ticket = true;  // ATTNLAB_GROUPED_TICKET=0: v5's two-warpgroup split merge counts
                               // arrivals after writing (the older order).
  // MLA decode.
  int mla_version = 0;  // ATTNLAB_MLA_VERSION 1, 3-7: that version with its default tile
                        // wherever it is built (the worklog suite times each). 0 = the plan's.
  int mla_probe = 0;    // ATTNLAB_MLA_PROBE bits (diagnostic builds, v5-v7): 1 no Q K^T,
                        // 2 no P V, 4 no KV copies, 8 (v5) copies by every thread.
  int mla_packed_stages = 0;  // ATTNLAB_MLA_PACKED_STAGES 1 or 2: v8's shared-memory stages.
                              // 0 = two where they fit the device's shared memory, else one.
  // Both families.
  bool pdl = true;  // ATTNLAB_PDL=0: split combines launch plainly, not as dependents.
  // The CPU benchmark.
  int cpu_probe_mib = 0;  // ATTNLAB_CPU_PROBE_MIB N >= 1: the CPU read probe's buffer in MiB
                          // (at most a quarter of memory, 4 GiB). 0 = automatic
                          // (kern::cpu_probe_bytes).
};

// The variables as they are now (a dozen getenv calls).
Overrides read_overrides();

// `name` as an integer under the rule above, or `unset`.
int env_int(const char* name, int unset = 0);

}  // namespace kern
