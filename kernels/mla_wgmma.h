// Shared by the MLA decode kernels on wgmma (decode_mla_wgmma_sm90a.hip: v5, 64 heads a CTA;
// decode_mla_narrow_sm90a.hip: v6, up to 16 heads a CTA): dimensions, the CTA's named barrier
// for P and the coalesced block copy into 128-byte-swizzle tiles. NVIDIA sm_90a only; include
// after kernels/wgmma_ops.h.
#pragma once
#include <cstdint>

#include "kernels/hip_compat.h"
#include "kernels/matrix_ops.h"
#include "kernels/wgmma_ops.h"

namespace kern {
namespace mla_wg {

constexpr int kDl = 512, kDk = 576;
constexpr int kKTiles = kDk / 64;  // swizzled 64 x 64 tiles across a row: 9
constexpr int kThreads = 256;      // two warpgroups

// All 256 threads: P (and the row factors) of the block are in shared memory.
__device__ __forceinline__ void bar_sync_p() { asm volatile("bar.sync 1, 256;\n" ::: "memory"); }

// A block of kN rows (rows 1152 bytes apart from src; rows >= nvalid zero-filled) into its 9
// swizzled column tiles at dst, kTile bytes apart, by kCopiers threads (t = 0 .. kCopiers - 1).
// One warp instruction copies 4 rows x one 128-byte tile row (lane l: row + l / 8, chunk
// l % 8): whole lines, as coalesced as a contiguous 512 bytes. Warp w takes row groups w,
// w + W, ... (W warps), so a lane's row % 8, and with it its swizzle, is the same for every
// copy: each copy is a register plus a compile-time offset on both sides.
template <int kCopiers, int kN = 64, int kTile = wg::kTileBytes>
__device__ __forceinline__ void copy_rows(unsigned char* dst, const std::uint16_t* src, int nvalid,
                                          int t) {
  constexpr int kW = kCopiers / 32, kGroups = kN / 4 / kW;  // row groups a warp
  static_assert(kCopiers % 32 == 0 && (kN / 4) % kW == 0 && kW % 2 == 0, "copy layout");
  const int w = t / 32, l = t % 32, row0 = 4 * w + l / 8, ch = l % 8;
  unsigned char* d = dst + row0 * 128 + ((ch ^ (row0 & 7)) << 4);  // row0 % 8 == row % 8
  const std::uint16_t* s = src + row0 * kDk + ch * 8;
#pragma unroll
  for (int m = 0; m < kGroups; ++m) {
    const bool valid = row0 + 4 * kW * m < nvalid;
    const std::uint16_t* sm = valid ? s + 4 * kW * m * kDk : src;
#pragma unroll
    for (int k = 0; k < kKTiles; ++k)
      mo::copy16(d + 4 * kW * m * 128 + k * kTile, sm + k * 64, valid);
  }
}

}  // namespace mla_wg
}  // namespace kern
