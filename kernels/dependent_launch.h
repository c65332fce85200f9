// Programmatic dependent launch (PDL, compute capability 9.0 on NVIDIA): the second kernel of
// a decode step (the split-KV combine) is scheduled while the first still runs, instead of
// after the first grid has completed, so its launch latency is hidden behind the main kernel's
// tail. Correctness does not depend on the main kernel: the dependent kernel waits at
// pdl_wait_primary() until the primary grid has completed and its memory is visible (PTX
// griddepcontrol.wait), exactly what stream order gives without PDL. The primary only decides
// how early the dependent may be scheduled (pdl_allow_dependents, griddepcontrol.
// launch_dependents; without it, when all its CTAs have exited).
//
// Elsewhere (AMD, or an NVIDIA device below 9.0) the two device calls compile to nothing and
// launch_dependent is a plain launch.
//
// The launcher decides once a launch (pdl_enabled()) and tells both kernels (a `pdl` field or
// argument), so that with it off they run exactly the code they ran before this header.
// On by default; ATTNLAB_PDL=0 turns it off (comparisons). It saves about 1 us on the short
// split rows (kernels/DESIGN.md, "Dependent launches").
// Include after kernels/hip_compat.h.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <utility>

#include "kernels/gpu_check.h"
#include "kernels/overrides.h"

namespace kern {

// In a primary kernel, once a CTA: the dependent grid may be scheduled once every CTA of this
// grid has called it (or exited).
__device__ __forceinline__ void pdl_allow_dependents() {
#if defined(ATTNLAB_HIP_ON_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// In a dependent kernel, before its first read of the primary's results: returns once the
// primary grid has completed and its writes are visible (at once after a plain launch).
__device__ __forceinline__ void pdl_wait_primary() {
#if defined(ATTNLAB_HIP_ON_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// Whether launches take the PDL attribute: an sm_90 device, and ATTNLAB_PDL not "0" (read
// once).
inline bool pdl_enabled() {
#if defined(ATTNLAB_HIP_ON_CUDA)
  static const bool on = read_overrides().pdl;
  return on && device_is_sm90();
#else
  return false;
#endif
}

// kernel<<<grid, block, smem, stream>>>(args...), as a programmatic dependent of the kernel
// launched before it on `stream` where `dependent` (the launcher's pdl_enabled(), the same
// flag it gave both kernels, so that only then do they run the griddepcontrol instructions).
// The caller checks the launch (HIP_CHECK_LAUNCH) as after a plain launch.
template <class... Params, class... Args>
void launch_dependent(bool dependent, void (*kernel)(Params...), dim3 grid, dim3 block,
                      std::size_t smem, hipStream_t stream, Args&&... args) {
#if defined(ATTNLAB_HIP_ON_CUDA)
  if (dependent) {
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    HIP_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
    return;
  }
#else
  (void)dependent;
#endif
  kernel<<<grid, block, smem, stream>>>(std::forward<Args>(args)...);
}

}  // namespace kern
