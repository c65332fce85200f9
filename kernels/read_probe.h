// The streaming-read probe's kernel launch, for the GPU host code (read_probe.hip defines it;
// bench_gpu.hip times it on a case's bytes). Include after kernels/hip_compat.h: HIP types.
#pragma once
#include <cstddef>

namespace kern {

// Reads `bytes` (a multiple of 16) at buf once with `blocks` CTAs on stream st, folding what it
// read into sink[blocks] so nothing is eliminated. Launch errors are left to the caller's check.
void launch_read_probe(const void* buf, std::size_t bytes, unsigned* sink, int blocks,
                       hipStream_t st);
// Blocks the probe launches: 4 a multiprocessor.
int read_probe_blocks();

}  // namespace kern
