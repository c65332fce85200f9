// Hopper warpgroup matrix helpers (wgmma, sm_90a only): shared-memory matrix descriptors, the
// fences and groups, and the products the MLA v5 / v6 and grouped v5 kernels (decode_*_sm90a.hip)
// issue, for bf16 and fp16 operands with fp32 accumulators. NVIDIA only; include from a file
// compiled for sm_90a, after kernels/hip_compat.h and kernels/matrix_ops.h (operand tags).
//
// Shared-memory layout every descriptor here assumes: "128-byte swizzle" tiles of 64 rows x 64
// 16-bit elements (8 KB, 1024-byte aligned; MLA v6 also uses 16-row Q and P^T tiles and KV
// tiles of its block length). Row r of a tile is 128 bytes at r * 128; its 16-byte chunk c is
// stored at chunk position c ^ (r % 8) (tile_offset()).
//   K-major operand (A or B with the reduction dimension contiguous: Q, K, P): k-step kk of 16
//     elements starts kk % 4 * 32 bytes into tile kk / 4; 8-row groups 1024 bytes apart.
//   MN-major B (values, V[token][dv] with dv contiguous; imm-trans-b = 1): a k-step of 16
//     tokens starts 16 * 128 bytes further, 8-token groups 1024 apart (SBO), and the next 64
//     output columns one tile (8192 bytes) further (LBO).
// Accumulator layout of m64nN (per thread, warp w = threadIdx.x / 32 % 4 of the warpgroup,
// g = lane / 4, c = lane % 4): d[4 j + e] is row 16 w + g + 8 (e / 2), column 8 j + 2 c + e % 2.
// A from registers (the "rs" form) takes the mma.sync m16n8k16 A layout of the warp's 16 rows,
// so an m64n64 score accumulator becomes the A operand of the next product without a shuffle.
// The asm operand lists are written out long-hand: PTX takes no loops.
#pragma once
#include <cstdint>

#include "kernels/hip_compat.h"
#include "kernels/matrix_ops.h"

namespace kern {
namespace wg {

constexpr int kTileBytes = 64 * 128;  // one swizzled 64 x 64 16-bit tile

// Byte offset of 16-byte chunk `chunk` (0..7) of row `row` inside a swizzled tile.
__device__ __forceinline__ int tile_offset(int row, int chunk) {
  return row * 128 + ((chunk ^ (row & 7)) << 4);
}

// Descriptor of a 128-byte-swizzle operand at shared address `addr` (bytes) with the leading
// and stride byte offsets above (each a multiple of 16).
__device__ __forceinline__ std::uint64_t desc(std::uint32_t addr, std::uint32_t lbo,
                                              std::uint32_t sbo) {
  return std::uint64_t((addr & 0x3ffff) >> 4) | (std::uint64_t(lbo >> 4) << 16) |
         (std::uint64_t(sbo >> 4) << 32) | (std::uint64_t(1) << 62);
}
__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Diagnostics: the device-wide nanosecond timer and this CTA's multiprocessor.
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned sm_id() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
// Shared memory written by ordinary stores or cp.async and read next by wgmma.
__device__ __forceinline__ void fence_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
// 2^x with subnormal results flushed to zero: one MUFU.EX2. exp2f (ex2.approx.f32) also keeps
// subnormal results, which costs a compare and two multiplies around it; the softmax of these
// kernels takes 2^x of x <= 0 only, where a flushed result is below 2^-126 of the block's max.
__device__ __forceinline__ float exp2_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}
// Four 8 x 8 16-bit matrices to shared memory from the mma fragment layout (register i of
// lane t: row t / 4, columns 2 (t % 4) .. + 1 of matrix i); lane t gives the address of row
// t % 8 of matrix t / 8.
__device__ __forceinline__ void stmatrix_x4(std::uint32_t addr, std::uint32_t a, std::uint32_t b,
                                            std::uint32_t c, std::uint32_t d) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
               "r"(a), "r"(b), "r"(c), "r"(d)
               : "memory");
}
// Keeps the compiler from moving accumulator reads or writes across an issue or a wait.
template <int N>
__device__ __forceinline__ void pin(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// d (+)= A B for one 16-deep k-step; scale_d = 0 overwrites d. kTransB = 1: B is MN-major.
// "ss": A and B from shared memory (descriptors); "rs": A from registers. One macro a shape,
// instantiated for bf16 and fp16 (the PTX type is part of the instruction's name).
// Accumulator operand lists of 8, 32, 64 and 128 registers (d[0] .. d[N - 1]).
#define ATTNLAB_WG_D8 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
#define ATTNLAB_WG_D32                                                                           \
  ATTNLAB_WG_D8, "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),     \
      "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
      "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
      "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define ATTNLAB_WG_D64                                                                           \
  ATTNLAB_WG_D32, "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]),  \
      "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), \
      "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), \
      "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), \
      "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define ATTNLAB_WG_D128                                                                          \
  ATTNLAB_WG_D64, "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),  \
      "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), \
      "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), \
      "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), \
      "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), \
      "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),          \
      "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),        \
      "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),        \
      "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),        \
      "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

// m64n16k16, both operands from shared memory, either of them MN-major (kTransA: A is
// MN-major, e.g. V^T read from V[token][dv]; the MLA v6 kernel's transposed products).
#define ATTNLAB_WG_SS_M64N16K16(TAG, TY)                                                   \
  template <int kTransA, int kTransB>                                                      \
  __device__ __forceinline__ void mma_ss_m64n16k16(mo::TAG, float(&d)[8], std::uint64_t a, \
                                                   std::uint64_t b, int scale_d) {         \
    asm volatile(                                                                          \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"                                       \
        "wgmma.mma_async.sync.aligned.m64n16k16.f32." TY "." TY                            \
        " "                                                                                \
        "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, %11, %12;\n}\n"                \
        : ATTNLAB_WG_D8                                                                    \
        : "l"(a), "l"(b), "r"(scale_d), "n"(kTransA), "n"(kTransB));                       \
  }
ATTNLAB_WG_SS_M64N16K16(Bf16, "bf16")
ATTNLAB_WG_SS_M64N16K16(Fp16, "f16")
#undef ATTNLAB_WG_SS_M64N16K16

// m64n16k16 with A from registers (the mma.sync m16n8k16 A layout of the warp's 16 rows) and
// B K-major from shared memory: MLA v7's products, whose A operands are e4m3 converted in
// registers. A register written since the last fence() needs another fence() before the issue.
#define ATTNLAB_WG_RS_M64N16K16(TAG, TY)                                                 \
  __device__ __forceinline__ void mma_rs_m64n16k16(                                      \
      mo::TAG, float(&d)[8], const std::uint32_t(&a)[4], std::uint64_t b, int scale_d) { \
    asm volatile(                                                                        \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"                                     \
        "wgmma.mma_async.sync.aligned.m64n16k16.f32." TY "." TY                          \
        " "                                                                              \
        "{%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, p, 1, 1, 0;\n}\n"    \
        : ATTNLAB_WG_D8                                                                  \
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d));             \
  }
ATTNLAB_WG_RS_M64N16K16(Bf16, "bf16")
ATTNLAB_WG_RS_M64N16K16(Fp16, "f16")
#undef ATTNLAB_WG_RS_M64N16K16

#define ATTNLAB_WG_SS_M64N64K16(TAG, TY)                                                         \
  template <int kTransB>                                                                         \
  __device__ __forceinline__ void mma_ss_m64n64k16(mo::TAG, float(&d)[32], std::uint64_t a,      \
                                                   std::uint64_t b, int scale_d) {               \
    asm volatile(                                                                                \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                             \
        "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY                                  \
        " "                                                                                      \
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "                     \
        "%32, %33, p, 1, 1, 0, %35;\n}\n"                                                        \
        : ATTNLAB_WG_D32                                                                         \
        : "l"(a), "l"(b), "r"(scale_d), "n"(kTransB));                                           \
  }
ATTNLAB_WG_SS_M64N64K16(Bf16, "bf16")
ATTNLAB_WG_SS_M64N64K16(Fp16, "f16")
#undef ATTNLAB_WG_SS_M64N64K16

#define ATTNLAB_WG_SS_M64N256K16(TAG, TY)                                                        \
  template <int kTransB>                                                                         \
  __device__ __forceinline__ void mma_ss_m64n256k16(mo::TAG, float(&d)[128], std::uint64_t a,    \
                                                    std::uint64_t b, int scale_d) {              \
    asm volatile(                                                                                \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                            \
        "wgmma.mma_async.sync.aligned.m64n256k16.f32." TY "." TY                                 \
        " "                                                                                      \
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "  \
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "  \
        "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, "  \
        "%70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, "  \
        "%87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, "    \
        "%103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, "   \
        "%117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "                    \
        "%128, %129, p, 1, 1, 0, %131;\n}\n"                                                     \
        : ATTNLAB_WG_D128                                                                        \
        : "l"(a), "l"(b), "r"(scale_d), "n"(kTransB));                                           \
  }
ATTNLAB_WG_SS_M64N256K16(Bf16, "bf16")
ATTNLAB_WG_SS_M64N256K16(Fp16, "f16")
#undef ATTNLAB_WG_SS_M64N256K16

#define ATTNLAB_WG_RS_M64N256K16(TAG, TY)                                                        \
  template <int kTransB>                                                                         \
  __device__ __forceinline__ void mma_rs_m64n256k16(                                             \
      mo::TAG, float(&d)[128], const std::uint32_t(&a)[4], std::uint64_t b, int scale_d) {       \
    asm volatile(                                                                                \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"                                            \
        "wgmma.mma_async.sync.aligned.m64n256k16.f32." TY "." TY                                 \
        " "                                                                                      \
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "  \
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "  \
        "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, "  \
        "%70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, "  \
        "%87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, "    \
        "%103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, "   \
        "%117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "                    \
        "{%128, %129, %130, %131}, %132, p, 1, 1, %134;\n}\n"                                    \
        : ATTNLAB_WG_D128                                                                        \
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d), "n"(kTransB));       \
  }
ATTNLAB_WG_RS_M64N256K16(Bf16, "bf16")
ATTNLAB_WG_RS_M64N256K16(Fp16, "f16")
#undef ATTNLAB_WG_RS_M64N256K16

#define ATTNLAB_WG_RS_M64N128K16(TAG, TY)                                                        \
  template <int kTransB>                                                                         \
  __device__ __forceinline__ void mma_rs_m64n128k16(                                             \
      mo::TAG, float(&d)[64], const std::uint32_t(&a)[4], std::uint64_t b, int scale_d) {        \
    asm volatile(                                                                                \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"                                             \
        "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY                                 \
        " "                                                                                      \
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "  \
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "  \
        "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "                               \
        "{%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"                                          \
        : ATTNLAB_WG_D64                                                                         \
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d), "n"(kTransB));       \
  }
ATTNLAB_WG_RS_M64N128K16(Bf16, "bf16")
ATTNLAB_WG_RS_M64N128K16(Fp16, "f16")
#undef ATTNLAB_WG_RS_M64N128K16

#define ATTNLAB_WG_RS_M64N64K16(TAG, TY)                                                         \
  template <int kTransB>                                                                         \
  __device__ __forceinline__ void mma_rs_m64n64k16(                                              \
      mo::TAG, float(&d)[32], const std::uint32_t(&a)[4], std::uint64_t b, int scale_d) {        \
    asm volatile(                                                                                \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"                                             \
        "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY                                  \
        " "                                                                                      \
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "                     \
        "{%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n"                                          \
        : ATTNLAB_WG_D32                                                                         \
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d), "n"(kTransB));       \
  }
ATTNLAB_WG_RS_M64N64K16(Bf16, "bf16")
ATTNLAB_WG_RS_M64N64K16(Fp16, "f16")
#undef ATTNLAB_WG_RS_M64N64K16

#undef ATTNLAB_WG_D8
#undef ATTNLAB_WG_D32
#undef ATTNLAB_WG_D64
#undef ATTNLAB_WG_D128

}  // namespace wg
}  // namespace kern
