// Internal to the GPU benchmark runner: what bench_gpu.hip (the timing, the grouped decode) and
// bench_gpu_mla.hip (the MLA decodes) share. Include only from .hip files, after
// kernels/hip_compat.h.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/bench.h"
#include "kernels/gpu_check.h"
#include "kernels/hip_compat.h"

namespace kern {
namespace bench_gpu {

constexpr std::uint64_t kSeed = 20261202;  // inputs: a function of (kSeed + tensor, index)

// x[i] uniform in [-amp, amp), a function of (seed, i) only, filled in parallel.
void fill_uniform(std::vector<float>& x, std::uint64_t seed, float amp);
// How many rotated copies of `per_copy` bytes: together > 4x L2, within 70 % of free memory
// beside `fixed` bytes; throws DeviceError (out of memory) when one copy does not fit.
int copies_for(std::size_t per_copy, std::size_t fixed);

struct DeviceCopies {  // n copies of the same inputs, one output each
  std::vector<DeviceBuffer> q, k, v, out;
};
// Uploads hq, hk and hv (hv may be empty) once and copies them on the device n - 1 times.
void upload_copies(DeviceCopies& c, int n, const std::vector<unsigned char>& hq,
                   const std::vector<unsigned char>& hk, const std::vector<unsigned char>& hv,
                   std::size_t out_bytes);
// The sequences the float64 reference checks: all of them, or the first ones whose work (MACs,
// per_seq each) fits the checking budget.
std::int64_t reference_batch(std::int64_t batch, std::uint64_t per_seq);
// The shared tail of every case: output poisoned, one launch checked against ref (its first
// n_checked values), timed (kernels/bench_gpu.hip's method), checked again; fills r. GB/s counts
// the cache (r.kv_bytes) and io_bytes (queries and outputs).
void check_and_time(const std::function<void(int, hipStream_t)>& launch, DeviceCopies& dc,
                    std::size_t n_out, std::size_t n_checked, const std::vector<double>& ref,
                    const BenchOptions& opt, BenchResult& r, std::size_t io_bytes);

// bench_gpu_mla.hip: the absorbed MLA decode (the padded kernels), and mxfp4 caches through the
// packed kernel in AMD's layout.
void bench_mla(const BenchCase& c, const BenchOptions& opt, BenchResult& r);
void bench_mla_packed(const BenchCase& c, const BenchOptions& opt, BenchResult& r);

}  // namespace bench_gpu
}  // namespace kern
