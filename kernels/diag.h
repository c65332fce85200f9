// The one compile-time switch for kernel diagnostics (CMake option ATTNLAB_KERNEL_DIAG, off by
// default): the probe bits (ATTNLAB_GROUPED_PROBE, ATTNLAB_MLA_PROBE) that leave parts of a
// kernel out to see where its time goes, grouped v5's per-CTA timeline (tools/grouped_timeline)
// and its cluster merge. Every such branch is written `if (kDiag && ...)`, so production builds
// compile none of them.
#pragma once

namespace kern {

#if defined(ATTNLAB_KERNEL_DIAG)
inline constexpr bool kDiag = true;
#else
inline constexpr bool kDiag = false;
#endif

}  // namespace kern
