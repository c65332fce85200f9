// Per-vendor device helpers behind one interface: 16x16x16 matrix-unit tiles (mma.sync on
// NVIDIA sm_80+, MFMA on AMD CDNA), 16-byte global->shared copies (cp.async on NVIDIA, plain
// loads on AMD) and the fp8 e4m3 -> bf16 conversion. Kernels written against this header hold
// no vendor-specific code.
//
// Tiles. Every product is expressed in 16x16x16 steps, C[16 m][16 n] += A[16 m][16 k] B[16 k][16
// n], with 16-bit operands (bf16 or fp16, chosen by the Bf16 / Fp16 tag) and fp32 accumulators.
// Operands are loaded from shared memory, where a tile is addressed by a pointer to its first
// element and a row stride `ld` in elements (a multiple of 8; rows 16-byte aligned):
//   load_a    A stored [m][k] (k contiguous)                      -- e.g. queries, probabilities
//   load_b_nk B stored [n][k] (k contiguous), i.e. B^T row-major   -- keys (rows = tokens)
//   load_b_kn B stored [k][n] (n contiguous)                       -- values (rows = tokens)
// An accumulator FragC holds kFragCElems = 256 / kWarp floats per lane; element i of lane `lane`
// is C[frag_c_row(i, lane)][frag_c_col(i, lane)].
//
//   NVIDIA: two mma.sync.m16n8k16 per step, operands through ldmatrix (x4, .trans for kn).
//           C layout: i = 4 * half + j: row = lane/4 + 8 * (j/2), col = 8 * half + 2 * (lane%4) +
//           j%2.
//   AMD:    one v_mfma_f32_16x16x16{bf16_1k,f16} per step on a 64-wide wavefront; mma_k32 (two
//           steps) is one v_mfma_f32_16x16x32_{bf16,f16} on gfx950.
//           A: lane holds A[lane%16][4*(lane/16) + 0..3]; B: B[4*(lane/16) + 0..3][lane%16];
//           C: C[4*(lane/16) + i][lane%16].
//           UNVERIFIED ON HARDWARE: this path is compile-checked for gfx90a, gfx940, gfx942 and
//           gfx950 by tools/hip_check.sh only; the layouts follow AMD's matrix instruction
//           calculator.
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/hip_compat.h"

namespace kern {
namespace mo {

constexpr int kWarp = ATTNLAB_KWARP;  // compile-time width for layouts; the host checks it
constexpr int kFragCElems = 256 / kWarp;

struct Bf16 {};  // operand type tags
struct Fp16 {};

#if defined(ATTNLAB_HIP_ON_CUDA)
// ---------------------------------------------------------------------------------- NVIDIA
struct FragA {
  std::uint32_t r[4];
};
struct FragB {
  std::uint32_t r[4];
};  // two n8 halves: r[0..1] cols 0-7, r[2..3] cols 8-15
struct FragC {
  float v[8];
};

__device__ __forceinline__ int frag_c_row(int i, int lane) { return lane / 4 + 8 * ((i & 3) >> 1); }
__device__ __forceinline__ int frag_c_col(int i, int lane) {
  return 8 * (i >> 2) + 2 * (lane % 4) + (i & 1);
}

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void load_a(FragA& a, const std::uint16_t* s, int ld, int lane) {
  const std::uint16_t* p = s + (lane % 16) * ld + (lane / 16) * 8;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(a.r[0]), "=r"(a.r[1]), "=r"(a.r[2]), "=r"(a.r[3])
               : "r"(smem_addr(p)));
}
__device__ __forceinline__ void load_b_nk(FragB& b, const std::uint16_t* s, int ld, int lane) {
  const std::uint16_t* p = s + ((lane % 8) + 8 * (lane / 16)) * ld + 8 * ((lane / 8) % 2);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(b.r[0]), "=r"(b.r[1]), "=r"(b.r[2]), "=r"(b.r[3])
               : "r"(smem_addr(p)));
}
__device__ __forceinline__ void load_b_kn(FragB& b, const std::uint16_t* s, int ld, int lane) {
  const std::uint16_t* p = s + ((lane % 8) + 8 * ((lane / 8) % 2)) * ld + 8 * (lane / 16);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(b.r[0]), "=r"(b.r[1]), "=r"(b.r[2]), "=r"(b.r[3])
               : "r"(smem_addr(p)));
}

template <class T>
__device__ __forceinline__ void mma(FragC& c, const FragA& a, const FragB& b) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float* d = c.v + 4 * h;
    if constexpr (std::is_same<T, Bf16>::value) {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
          "{%8,%9}, {%0,%1,%2,%3};\n"
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
          : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[2 * h]),
            "r"(b.r[2 * h + 1]));
    } else {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
          "{%8,%9}, {%0,%1,%2,%3};\n"
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
          : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[2 * h]),
            "r"(b.r[2 * h + 1]));
    }
  }
}

// Two floats -> two 16-bit values (round to nearest even), lo in the low half.
template <class T>
__device__ __forceinline__ std::uint32_t pack2(float lo, float hi) {
  std::uint32_t r;
  if constexpr (std::is_same<T, Bf16>::value) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  } else {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  }
  return r;
}

// 16 bytes global -> shared, asynchronously; zero-fills the destination when !valid (src must
// still be a mapped address). Completion: copy_commit() then copy_wait<n>() and a barrier.
__device__ __forceinline__ void copy16(void* dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
               "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void copy_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void copy_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Four e4m3 bytes (byte 0 first) -> four bf16, exact: e4m3x2 -> f16x2 -> f32 -> bf16x2.
__device__ __forceinline__ void e4m3x4_to_bf16x4(std::uint32_t x, std::uint32_t& lo,
                                                 std::uint32_t& hi) {
  std::uint32_t h01, h23;
  asm("{\n .reg .b16 a, b;\n mov.b32 {a, b}, %2;\n cvt.rn.f16x2.e4m3x2 %0, a;\n"
      " cvt.rn.f16x2.e4m3x2 %1, b;\n}\n"
      : "=r"(h01), "=r"(h23)
      : "r"(x));
  auto cvt = [](std::uint32_t h2) {
    float f0, f1;
    asm("{\n .reg .b16 a, b;\n mov.b32 {a, b}, %2;\n cvt.f32.f16 %0, a;\n cvt.f32.f16 %1, b;\n}\n"
        : "=f"(f0), "=f"(f1)
        : "r"(h2));
    return pack2<Bf16>(f0, f1);
  };
  lo = cvt(h01);
  hi = cvt(h23);
}

// Four e4m3 bytes (byte 0 first) -> four fp16, exact (e4m3 values are fp16 normals or zero).
__device__ __forceinline__ void e4m3x4_to_f16x4(std::uint32_t x, std::uint32_t& lo,
                                                std::uint32_t& hi) {
  asm("{\n .reg .b16 a, b;\n mov.b32 {a, b}, %2;\n cvt.rn.f16x2.e4m3x2 %0, a;\n"
      " cvt.rn.f16x2.e4m3x2 %1, b;\n}\n"
      : "=r"(lo), "=r"(hi)
      : "r"(x));
}

// A-operand element positions: FragA holds kFragAElems 16-bit values a lane, element e in
// register e / 2, half e % 2 (so make_a packs floats in that order). On NVIDIA a lane holds two
// rows (lane/4 and lane/4 + 8: "slots" 0 and 1) and the positions equal the accumulator's, so a
// score tile's FragC is, element by element, the probability tile's FragA.
constexpr int kFragAElems = 8;
constexpr int kARowSlots = 2;
__device__ __forceinline__ int frag_a_row(int e, int lane) { return lane / 4 + 8 * ((e >> 1) & 1); }
__device__ __forceinline__ int frag_a_col(int e, int lane) {
  return 8 * (e >> 2) + 2 * (lane % 4) + (e & 1);
}
__device__ __forceinline__ int frag_a_slot(int e) { return (e >> 1) & 1; }
// Max / sum over the lanes that hold the same A rows (a quad).
__device__ __forceinline__ float a_row_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float a_row_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}
// The per-row value of accumulator element i, from the lane's A-row slot values (NVIDIA: the
// same lane holds the same rows in both layouts).
__device__ __forceinline__ float slot_to_c_row(const float* slot, int i, int /*lane*/) {
  return slot[(i >> 1) & 1];
}
// Accumulator elements i and i + 1 (i even) are adjacent columns of one row.
constexpr bool kCPairsAdjacent = true;
__device__ __forceinline__ void warp_sync() { __syncwarp(); }

// fp8 e4m3 operands read straight from shared memory (bytes, row stride `ld` bytes, a multiple
// of 16) and converted to fp16 in registers.
// Keys, B stored [n][k]: two 16x16 tiles (tokens n0 = 0-15 and 16-31 of s) of one 16-dim k-step.
// The k order inside the step is permuted: a lane's 4 consecutive bytes (dims 4 (lane%4) + 0..3)
// feed its two B registers, i.e. physical dim p is logical k e4m3_nk_col(p); the A operand
// (queries) must be stored with the same permutation.
__device__ __forceinline__ int e4m3_nk_col(int p) {
  return (p % 4 < 2 ? 0 : 6) + 2 * (p / 4) + p % 4;
}
__device__ __forceinline__ void load_b_nk_e4m3_x2(FragB& b0, FragB& b1, const unsigned char* s,
                                                  int ld, int lane) {
  const unsigned char* p = s + lane * ld;  // matrix m = lane / 8: tokens 8 m + 0..7
  std::uint32_t m[4];
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(m[0]), "=r"(m[1]), "=r"(m[2]), "=r"(m[3])
               : "r"(smem_addr(p)));
  e4m3x4_to_f16x4(m[0], b0.r[0], b0.r[1]);
  e4m3x4_to_f16x4(m[1], b0.r[2], b0.r[3]);
  e4m3x4_to_f16x4(m[2], b1.r[0], b1.r[1]);
  e4m3x4_to_f16x4(m[3], b1.r[2], b1.r[3]);
}
// Values, B stored [k][n] (rows = 16 tokens): two 16x16 tiles, dims 0-15 and 16-31 of s. Column
// c of a tile is dim e4m3_kn_dim(c) of its 16 (even dims first, then odd), so that a lane's
// transposed 16-bit pair (two dims of two tokens) splits into two B registers.
__device__ __forceinline__ int e4m3_kn_dim(int c) { return c < 8 ? 2 * c : 2 * (c - 8) + 1; }
__device__ __forceinline__ void load_b_kn_e4m3_x2(FragB& b0, FragB& b1, const unsigned char* s,
                                                  int ld, int lane) {
  // matrices: (tokens 0-7, bytes 0-15), (8-15, 0-15), (0-7, 16-31), (8-15, 16-31)
  const unsigned char* p = s + ((lane % 8) + 8 * ((lane / 8) % 2)) * ld + 16 * (lane / 16);
  std::uint32_t m[4];
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(m[0]), "=r"(m[1]), "=r"(m[2]), "=r"(m[3])
               : "r"(smem_addr(p)));
  // m = {V[2q][2g], V[2q][2g+1], V[2q+1][2g], V[2q+1][2g+1]} -> even dim pair, odd dim pair
  std::uint32_t e, o;
  e4m3x4_to_f16x4(__byte_perm(m[0], 0, 0x3120), e, o);
  b0.r[0] = e;
  b0.r[2] = o;
  e4m3x4_to_f16x4(__byte_perm(m[1], 0, 0x3120), e, o);
  b0.r[1] = e;
  b0.r[3] = o;
  e4m3x4_to_f16x4(__byte_perm(m[2], 0, 0x3120), e, o);
  b1.r[0] = e;
  b1.r[2] = o;
  e4m3x4_to_f16x4(__byte_perm(m[3], 0, 0x3120), e, o);
  b1.r[1] = e;
  b1.r[3] = o;
}

#else
// ---------------------------------------------------------------------------------- AMD
// UNVERIFIED ON HARDWARE (see the header comment).
typedef short Short4 __attribute__((ext_vector_type(4)));
typedef _Float16 Half4 __attribute__((ext_vector_type(4)));
typedef float Float4 __attribute__((ext_vector_type(4)));

struct FragA {
  std::uint32_t r[2];
};  // 4 x 16-bit
struct FragB {
  std::uint32_t r[2];
};
struct FragC {
  float v[4];
};

__device__ __forceinline__ int frag_c_row(int i, int lane) { return 4 * (lane / 16) + i; }
__device__ __forceinline__ int frag_c_col(int, int lane) { return lane % 16; }

__device__ __forceinline__ void load_a(FragA& a, const std::uint16_t* s, int ld, int lane) {
  const std::uint32_t* p =
      reinterpret_cast<const std::uint32_t*>(s + (lane % 16) * ld + 4 * (lane / 16));
  a.r[0] = p[0];
  a.r[1] = p[1];
}
__device__ __forceinline__ void load_b_nk(FragB& b, const std::uint16_t* s, int ld, int lane) {
  const std::uint32_t* p =
      reinterpret_cast<const std::uint32_t*>(s + (lane % 16) * ld + 4 * (lane / 16));
  b.r[0] = p[0];
  b.r[1] = p[1];
}
__device__ __forceinline__ void load_b_kn(FragB& b, const std::uint16_t* s, int ld, int lane) {
  const std::uint16_t* p = s + 4 * (lane / 16) * ld + lane % 16;
  b.r[0] = std::uint32_t(p[0]) | (std::uint32_t(p[ld]) << 16);
  b.r[1] = std::uint32_t(p[2 * ld]) | (std::uint32_t(p[3 * ld]) << 16);
}

template <class T>
__device__ __forceinline__ void mma(FragC& c, const FragA& a, const FragB& b) {
  Float4 acc = {c.v[0], c.v[1], c.v[2], c.v[3]};
  if constexpr (std::is_same<T, Bf16>::value) {
    Short4 av, bv;
    __builtin_memcpy(&av, a.r, 8);
    __builtin_memcpy(&bv, b.r, 8);
    acc = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(av, bv, acc, 0, 0, 0);
  } else {
    Half4 av, bv;
    __builtin_memcpy(&av, a.r, 8);
    __builtin_memcpy(&bv, b.r, 8);
    acc = __builtin_amdgcn_mfma_f32_16x16x16f16(av, bv, acc, 0, 0, 0);
  }
  c.v[0] = acc[0];
  c.v[1] = acc[1];
  c.v[2] = acc[2];
  c.v[3] = acc[3];
}

#if defined(__gfx950__)
// gfx950 (MI355X): two k16 steps as one v_mfma_f32_16x16x32_{bf16,f16}. That instruction wants
// lane group g = lane / 16 to hold k = 8 g .. 8 g + 7; the two 16x16x16 fragments give it k = 4 g
// .. 4 g + 3 of the first step and 16 + 4 g .. 16 + 4 g + 3 of the second. k is summed over and A
// and B carry the same k in the same slots, so this permutation of k leaves the product as it is.
// UNVERIFIED ON HARDWARE, like the rest of this block.
#define ATTNLAB_MO_HAVE_K32 1
template <class T>
__device__ __forceinline__ void mma_k32(FragC& c, const FragA& a0, const FragB& b0, const FragA& a1,
                                        const FragB& b1) {
  Float4 acc = {c.v[0], c.v[1], c.v[2], c.v[3]};
  const std::uint32_t ar[4] = {a0.r[0], a0.r[1], a1.r[0], a1.r[1]};
  const std::uint32_t br[4] = {b0.r[0], b0.r[1], b1.r[0], b1.r[1]};
  if constexpr (std::is_same<T, Bf16>::value) {
    typedef __bf16 Bf16x8 __attribute__((ext_vector_type(8)));
    Bf16x8 av, bv;
    __builtin_memcpy(&av, ar, 16);
    __builtin_memcpy(&bv, br, 16);
    acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(av, bv, acc, 0, 0, 0);
  } else {
    typedef _Float16 Half8 __attribute__((ext_vector_type(8)));
    Half8 av, bv;
    __builtin_memcpy(&av, ar, 16);
    __builtin_memcpy(&bv, br, 16);
    acc = __builtin_amdgcn_mfma_f32_16x16x32_f16(av, bv, acc, 0, 0, 0);
  }
  c.v[0] = acc[0];
  c.v[1] = acc[1];
  c.v[2] = acc[2];
  c.v[3] = acc[3];
}
#endif

__device__ __forceinline__ std::uint32_t bf16_bits_rne(float f) {
  std::uint32_t u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;  // NaN stays NaN
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}
template <class T>
__device__ __forceinline__ std::uint32_t pack2(float lo, float hi) {
  if constexpr (std::is_same<T, Bf16>::value) {
    return bf16_bits_rne(lo) | (bf16_bits_rne(hi) << 16);
  } else {
    _Float16 l = static_cast<_Float16>(lo), h = static_cast<_Float16>(hi);
    std::uint16_t lb, hb;
    __builtin_memcpy(&lb, &l, 2);
    __builtin_memcpy(&hb, &h, 2);
    return std::uint32_t(lb) | (std::uint32_t(hb) << 16);
  }
}

// Synchronous on AMD: visible to the block after the next barrier.
__device__ __forceinline__ void copy16(void* dst, const void* src, bool valid) {
  uint4 v = make_uint4(0, 0, 0, 0);
  if (valid) v = *reinterpret_cast<const uint4*>(src);
  *reinterpret_cast<uint4*>(dst) = v;
}
__device__ __forceinline__ void copy_commit() {}
template <int N>
__device__ __forceinline__ void copy_wait() {}

__device__ __forceinline__ std::uint32_t e4m3_to_bf16_bits(std::uint32_t b) {
  const std::uint32_t sign = (b & 0x80u) << 8, e = (b >> 3) & 15u, m = b & 7u;
  std::uint32_t mag;
  if ((b & 0x7fu) == 0x7fu)
    mag = 0x7fc0u;  // NaN
  else if (e == 0)
    mag = __float_as_uint(float(m) * 0.001953125f) >> 16;  // m * 2^-9, exact
  else
    mag = ((e + 120u) << 7) | (m << 4);
  return sign | mag;
}
__device__ __forceinline__ void e4m3x4_to_bf16x4(std::uint32_t x, std::uint32_t& lo,
                                                 std::uint32_t& hi) {
  lo = e4m3_to_bf16_bits(x & 0xffu) | (e4m3_to_bf16_bits((x >> 8) & 0xffu) << 16);
  hi = e4m3_to_bf16_bits((x >> 16) & 0xffu) | (e4m3_to_bf16_bits(x >> 24) << 16);
}
__device__ __forceinline__ void e4m3x4_to_f16x4(std::uint32_t x, std::uint32_t& lo,
                                                std::uint32_t& hi) {
  float f[4];
  for (int i = 0; i < 4; ++i)
    f[i] = __uint_as_float(e4m3_to_bf16_bits((x >> (8 * i)) & 0xffu) << 16);
  lo = pack2<Fp16>(f[0], f[1]);
  hi = pack2<Fp16>(f[2], f[3]);
}
// A-operand element positions (see the NVIDIA block): one row a lane, 4 consecutive columns.
constexpr int kFragAElems = 4;
constexpr int kARowSlots = 1;
__device__ __forceinline__ int frag_a_row(int, int lane) { return lane % 16; }
__device__ __forceinline__ int frag_a_col(int e, int lane) { return 4 * (lane / 16) + e; }
__device__ __forceinline__ int frag_a_slot(int) { return 0; }
__device__ __forceinline__ float a_row_max(float x) {
  x = fmaxf(x, __shfl_xor(x, 16, 64));
  return fmaxf(x, __shfl_xor(x, 32, 64));
}
__device__ __forceinline__ float a_row_sum(float x) {
  x += __shfl_xor(x, 16, 64);
  return x + __shfl_xor(x, 32, 64);
}
// Accumulator rows (4 (lane/16) + i) live in other lanes of the A layout (row = lane % 16).
__device__ __forceinline__ float slot_to_c_row(const float* slot, int i, int lane) {
  return __shfl(slot[0], frag_c_row(i, lane), 64);
}
constexpr bool kCPairsAdjacent = false;
__device__ __forceinline__ void warp_sync() { __builtin_amdgcn_wave_barrier(); }

// fp8 operands (see the NVIDIA block); no permutation is needed here.
__device__ __forceinline__ int e4m3_nk_col(int p) { return p; }
__device__ __forceinline__ void load_b_nk_e4m3_x2(FragB& b0, FragB& b1, const unsigned char* s,
                                                  int ld, int lane) {
  const unsigned char* p = s + (lane % 16) * ld + 4 * (lane / 16);
  e4m3x4_to_f16x4(*reinterpret_cast<const std::uint32_t*>(p), b0.r[0], b0.r[1]);
  e4m3x4_to_f16x4(*reinterpret_cast<const std::uint32_t*>(p + 16 * ld), b1.r[0], b1.r[1]);
}
__device__ __forceinline__ int e4m3_kn_dim(int c) { return c; }
__device__ __forceinline__ void load_b_kn_e4m3_x2(FragB& b0, FragB& b1, const unsigned char* s,
                                                  int ld, int lane) {
  const unsigned char* p = s + 4 * (lane / 16) * ld + lane % 16;
  auto gather = [&](const unsigned char* c) {
    return std::uint32_t(c[0]) | (std::uint32_t(c[ld]) << 8) | (std::uint32_t(c[2 * ld]) << 16) |
           (std::uint32_t(c[3 * ld]) << 24);
  };
  e4m3x4_to_f16x4(gather(p), b0.r[0], b0.r[1]);
  e4m3x4_to_f16x4(gather(p + 16), b1.r[0], b1.r[1]);
}
#endif

__device__ __forceinline__ float bf16_to_float(std::uint32_t bits16) {
  return __uint_as_float(bits16 << 16);
}

#if !defined(ATTNLAB_MO_HAVE_K32)
// C += A0 B0 + A1 B1: two consecutive k16 steps (one instruction where the target has a k32
// product: gfx950 above; two mma calls, in that order, elsewhere).
template <class T>
__device__ __forceinline__ void mma_k32(FragC& c, const FragA& a0, const FragB& b0, const FragA& a1,
                                        const FragB& b1) {
  mma<T>(c, a0, b0);
  mma<T>(c, a1, b1);
}
#endif

__device__ __forceinline__ void zero(FragC& c) {
#pragma unroll
  for (int i = 0; i < kFragCElems; ++i) c.v[i] = 0.f;
}

// Floats v[0 .. kFragAElems) (element order of frag_a_row / frag_a_col) -> an A fragment.
template <class T>
__device__ __forceinline__ void make_a(FragA& a, const float* v) {
#pragma unroll
  for (int r = 0; r < kFragAElems / 2; ++r) a.r[r] = pack2<T>(v[2 * r], v[2 * r + 1]);
}

}  // namespace mo
}  // namespace kern
