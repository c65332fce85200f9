// The MLA split-KV combine (mla_combine.hip), launched by mla_plan.hip. Include only from .hip
// files, after kernels/hip_compat.h.
#pragma once
#include <cstdint>

#include "kernels/hip_compat.h"

namespace kern {

constexpr int kMlaLatentDim = 512;         // Dl, the value width the kernels are built for
constexpr int kMlaCombineMaxSplits = 256;  // most KV splits one combine merges

// version 1: serial walk over the splits (SoftmaxState::merge), one 128-thread block per row;
// 2: the states merged in parallel, then independent weighted loads (up to 4 x 128 threads).
// part_acc [rows, splits, Dl], part_state [rows, splits] {max, sum}, out [rows, Dl]. Launches
// on `stream`, as a programmatic dependent of the decode kernel where `dependent` (the
// decode kernel's MlaParams::pdl; kernels/dependent_launch.h); throws attn::DeviceError on a
// launch error or rows / splits out of range.
void launch_mla_combine(int version, const float* part_acc, const float2* part_state, float* out,
                        int splits, std::int64_t rows, bool dependent, hipStream_t stream);

// The KV split count of an MLA decode (the tile and packed plans): the fewest splits that
// minimise (waves of CTAs) x (blocks a CTA walks), plus a small charge for the combine, for
// `ctas` CTAs a split, `blocks` KV blocks a sequence and `per_sm` resident CTAs a multiprocessor
// of the current device. 1..min(blocks, kMlaCombineMaxSplits).
int mla_split_count(std::int64_t ctas, std::int64_t blocks, int per_sm);

}  // namespace kern
