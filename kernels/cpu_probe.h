// Streaming-read bandwidth of the CPU, the yardstick `bench` puts beside the CPU decode's GB/s.
#pragma once
#include <cstddef>

namespace kern {

// Threads (<= 0: all cores) sum disjoint slices of a buffer of `bytes` bytes (much larger than
// the caches; first touched by the same threads). Returns the best of a few passes in GB/s
// (1e9 bytes per second). Throws std::bad_alloc when the buffer cannot be allocated.
double cpu_read_probe_gbps(int threads, std::size_t bytes = std::size_t(1) << 30);

}  // namespace kern
