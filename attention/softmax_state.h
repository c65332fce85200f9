// Online-softmax state shared by the CPU references and the GPU kernels.
//
// The state keeps the running max m and the running sum l of exp(score - m) of the scores seen
// so far; the weighted output accumulator lives with the caller (a vector on the CPU, registers
// spread over threads on the GPU), which is why every operation returns the factors the
// accumulator must be scaled by instead of touching it.
//
//   SoftmaxState<float> s;
//   for each score x with value row v:  s.update(x, &alpha, &w);  acc = acc * alpha + w * v;
//   out = acc * s.inv_sum();
//
// merge() combines two partial states (split-KV / flash-decoding): merging the states of two
// halves equals one pass over the whole row. An empty state (no score seen) has m = -inf and
// l = 0 and merges as the identity; inv_sum() of an empty state is 0, so an empty row gives 0.
#pragma once
#include <cmath>
#include <limits>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define ATTN_HD __host__ __device__ __forceinline__
#else
#define ATTN_HD inline
#endif

namespace attn {

template <class T>
struct SoftmaxState {
  T max = -std::numeric_limits<T>::infinity();  // running max m of the scores
  T sum = T(0);                                 // running sum l of exp(score - m)

  ATTN_HD bool empty() const { return !(sum > T(0)); }

  // Adds one score. On return the caller scales its accumulator by *rescale and adds
  // *weight times the new value row.
  ATTN_HD void update(T score, T* rescale, T* weight) {
    const T new_max = score > max ? score : max;
    const T r = (max == new_max) ? T(1) : exp_of(max - new_max);  // exp(-inf) = 0 when empty
    const T w = exp_of(score - new_max);
    sum = sum * r + w;
    max = new_max;
    *rescale = r;
    *weight = w;
  }

  // Merges two states; the merged accumulator is acc_a * (*scale_a) + acc_b * (*scale_b).
  ATTN_HD static SoftmaxState merge(const SoftmaxState& a, const SoftmaxState& b, T* scale_a,
                                    T* scale_b) {
    SoftmaxState out;
    if (a.empty() && b.empty()) {
      *scale_a = T(0);
      *scale_b = T(0);
      return out;
    }
    if (a.empty()) {
      *scale_a = T(0);
      *scale_b = T(1);
      return b;
    }
    if (b.empty()) {
      *scale_a = T(1);
      *scale_b = T(0);
      return a;
    }
    out.max = a.max > b.max ? a.max : b.max;
    *scale_a = exp_of(a.max - out.max);
    *scale_b = exp_of(b.max - out.max);
    out.sum = a.sum * (*scale_a) + b.sum * (*scale_b);
    return out;
  }

  // 1 / l, or 0 for an empty state (a sequence with no valid position yields zeros).
  ATTN_HD T inv_sum() const { return sum > T(0) ? T(1) / sum : T(0); }

  // log-sum-exp of the scores seen: m + log(l); -inf when empty. Useful for storing partials.
  ATTN_HD T lse() const {
    return empty() ? -std::numeric_limits<T>::infinity() : max + log_of(sum);
  }

 private:
  ATTN_HD static T exp_of(T x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return ::exp(x);
#else
    return std::exp(x);
#endif
  }
  ATTN_HD static T log_of(T x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return ::log(x);
#else
    return std::log(x);
#endif
  }
};

}  // namespace attn
