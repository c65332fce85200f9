// 64-byte vectors (16 floats / 8 doubles) for the CPU decode loop (reference_grouped.cpp, its
// only user): loads, stores and horizontal sums through GCC/Clang vector extensions, one
// AVX-512 register, two AVX2 or four SSE registers, whichever multiversioned clone includes
// them; a portable lane-array fallback elsewhere. Internal to attention/: not part of the
// reference API (reference.h).
#pragma once
#include <cstring>

#if defined(__GNUC__)
// The 64-byte vector helpers below are always inlined, so the ABI note does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
#define ATTN_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ATTN_ALWAYS_INLINE inline
#endif

namespace attn {
namespace simd {

// Vectors of 64 bytes (16 floats / 8 doubles) through GCC/Clang vector extensions: one
// AVX-512 register, two AVX2 or four SSE registers, whichever clone runs. Loads go through
// memcpy (unaligned, no aliasing assumptions); keys and values are float in memory and are
// widened when Acc is double.
#if defined(__GNUC__)
typedef float VecF __attribute__((vector_size(64)));
typedef double VecD __attribute__((vector_size(64)));
typedef float VecF8 __attribute__((vector_size(32)));
typedef float VecF4 __attribute__((vector_size(16)));
typedef double VecD4 __attribute__((vector_size(32)));
typedef double VecD2 __attribute__((vector_size(16)));

#if defined(__clang__) || __GNUC__ >= 12
#define ATTN_HAVE_SHUFFLE 1
#else
#define ATTN_HAVE_SHUFFLE 0
#endif

template <class Acc>
struct Simd;
template <>
struct Simd<float> {
  using V = VecF;
  static constexpr int kLanes = 16;
  static ATTN_ALWAYS_INLINE V load(const float* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static ATTN_ALWAYS_INLINE V load_kv(const float* p) { return load(p); }
  static ATTN_ALWAYS_INLINE void store(float* p, const V& v) { std::memcpy(p, &v, sizeof v); }
  static ATTN_ALWAYS_INLINE float hsum(const V& v) {
    VecF8 lo, hi;
    std::memcpy(&lo, &v, 32);
    std::memcpy(&hi, reinterpret_cast<const char*>(&v) + 32, 32);
    const VecF8 s8 = lo + hi;
    VecF4 a, b;
    std::memcpy(&a, &s8, 16);
    std::memcpy(&b, reinterpret_cast<const char*>(&s8) + 16, 16);
    const VecF4 s4 = a + b;
    return (s4[0] + s4[2]) + (s4[1] + s4[3]);
  }
#if ATTN_HAVE_SHUFFLE
  // out[i] = the sum of a[i]'s lanes, for 8 vectors at once (a transpose-and-add tree: 31
  // vector operations instead of 8 separate reductions of 7).
  static ATTN_ALWAYS_INLINE void hsum8(const V* a, float* out) {
    VecF8 t[8];
    for (int i = 0; i < 8; ++i)
      t[i] = __builtin_shufflevector(a[i], a[i], 0, 1, 2, 3, 4, 5, 6, 7) +
             __builtin_shufflevector(a[i], a[i], 8, 9, 10, 11, 12, 13, 14, 15);
    VecF8 u[4];  // lanes 0-3: partials of t[2i], 4-7: of t[2i+1]
    for (int i = 0; i < 4; ++i)
      u[i] = __builtin_shufflevector(t[2 * i], t[2 * i + 1], 0, 1, 2, 3, 8, 9, 10, 11) +
             __builtin_shufflevector(t[2 * i], t[2 * i + 1], 4, 5, 6, 7, 12, 13, 14, 15);
    VecF8 w[2];  // lanes (0,1) t[4i], (2,3) t[4i+2], (4,5) t[4i+1], (6,7) t[4i+3]
    for (int i = 0; i < 2; ++i)
      w[i] = __builtin_shufflevector(u[2 * i], u[2 * i + 1], 0, 1, 8, 9, 4, 5, 12, 13) +
             __builtin_shufflevector(u[2 * i], u[2 * i + 1], 2, 3, 10, 11, 6, 7, 14, 15);
    // lanes: t0 t2 t1 t3 t4 t6 t5 t7
    const VecF8 z = __builtin_shufflevector(w[0], w[1], 0, 2, 4, 6, 8, 10, 12, 14) +
                    __builtin_shufflevector(w[0], w[1], 1, 3, 5, 7, 9, 11, 13, 15);
    out[0] = z[0], out[1] = z[2], out[2] = z[1], out[3] = z[3];
    out[4] = z[4], out[5] = z[6], out[6] = z[5], out[7] = z[7];
  }
#endif
};
template <>
struct Simd<double> {
  using V = VecD;
  static constexpr int kLanes = 8;
  static ATTN_ALWAYS_INLINE V load(const double* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static ATTN_ALWAYS_INLINE V load_kv(const float* p) {
    VecF8 f;
    std::memcpy(&f, p, sizeof f);
    return __builtin_convertvector(f, VecD);
  }
  static ATTN_ALWAYS_INLINE void store(double* p, const V& v) { std::memcpy(p, &v, sizeof v); }
  static ATTN_ALWAYS_INLINE double hsum(const V& v) {
    VecD4 lo, hi;
    std::memcpy(&lo, &v, 32);
    std::memcpy(&hi, reinterpret_cast<const char*>(&v) + 32, 32);
    const VecD4 s4 = lo + hi;
    return (s4[0] + s4[2]) + (s4[1] + s4[3]);
  }
#if ATTN_HAVE_SHUFFLE
  static ATTN_ALWAYS_INLINE void hsum8(const V* a, double* out) {
    VecD4 t[8];
    for (int i = 0; i < 8; ++i)
      t[i] = __builtin_shufflevector(a[i], a[i], 0, 1, 2, 3) +
             __builtin_shufflevector(a[i], a[i], 4, 5, 6, 7);
    VecD4 u[4];  // lanes 0-1: partials of t[2i], 2-3: of t[2i+1]
    for (int i = 0; i < 4; ++i)
      u[i] = __builtin_shufflevector(t[2 * i], t[2 * i + 1], 0, 1, 4, 5) +
             __builtin_shufflevector(t[2 * i], t[2 * i + 1], 2, 3, 6, 7);
    for (int i = 0; i < 2; ++i) {  // lanes: t[4i], t[4i+1], t[4i+2], t[4i+3]
      const VecD4 w = __builtin_shufflevector(u[2 * i], u[2 * i + 1], 0, 2, 4, 6) +
                      __builtin_shufflevector(u[2 * i], u[2 * i + 1], 1, 3, 5, 7);
      for (int l = 0; l < 4; ++l) out[4 * i + l] = w[l];
    }
  }
#endif
};
#else
// Portable fallback: a lane array the compiler may vectorise.
template <class Acc>
struct Simd {
  static constexpr int kLanes = static_cast<int>(64 / sizeof(Acc));
  struct V {
    Acc x[kLanes] = {};
    V& operator+=(const V& o) {
      for (int i = 0; i < kLanes; ++i) x[i] += o.x[i];
      return *this;
    }
    friend V operator+(V a, const V& b) { return a += b; }
    friend V operator*(V a, const V& b) {
      for (int i = 0; i < kLanes; ++i) a.x[i] *= b.x[i];
      return a;
    }
    friend V operator*(Acc s, V a) {
      for (int i = 0; i < kLanes; ++i) a.x[i] *= s;
      return a;
    }
  };
  static V load(const Acc* p) {
    V v;
    for (int i = 0; i < kLanes; ++i) v.x[i] = p[i];
    return v;
  }
  static V load_kv(const float* p) {
    V v;
    for (int i = 0; i < kLanes; ++i) v.x[i] = static_cast<Acc>(p[i]);
    return v;
  }
  static void store(Acc* p, V v) {
    for (int i = 0; i < kLanes; ++i) p[i] = v.x[i];
  }
  static Acc hsum(V v) {
    Acc s = 0;
    for (int i = 0; i < kLanes; ++i) s += v.x[i];
    return s;
  }
};
#endif

}  // namespace simd
}  // namespace attn
