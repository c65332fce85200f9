// CPU decode for the grouped family (MHA, MQA, GQA, SWA) and, through the same strided loop,
// absorbed MLA (reference_mla.cpp).
//
// [SECTION] Multiversioning: the hot loop is compiled for x86-64-v4, -v3 and baseline
// [SECTION] The per-item loop: scores of a block, softmax merge, value accumulation
// [SECTION] Work split and threads
// [SECTION] decode_grouped
//
// Work item = (sequence b, chunk of positions), all heads: the rows of one position (every kv
// head) are adjacent, so an item reads memory in order, and every key and value row is read
// once for all G query heads of its group (MQA: all Hq heads).
// Positions are taken in blocks of kBlock: the Hq x kBlock scores are computed, each head's
// block is softmaxed against its own block max and merged into the head's running
// SoftmaxState, and the value rows are accumulated with the merged weights. When there are few
// sequences the positions are split into chunks whose partial states are merged at the
// end (flash-decoding); the split depends on the shape only, so the result is the same for any
// number of threads.
//
// Shapes: q [B, Hq, D]; k [B, S, Hkv, D]; v [B, S, Hkv, Dv]; out [B, Hq, Dv]; lens [B].
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "attention/config.h"
#include "attention/decode_strided.h"
#include "attention/error.h"
#include "attention/reference.h"
#include "attention/simd64.h"
#include "attention/softmax_state.h"

// ---------------------------------------------------------------------------------------------
// [SECTION] Multiversioning
// ---------------------------------------------------------------------------------------------
// The build cannot assume -march=native, but the loop is worth 2-4x with AVX2/AVX-512 and FMA:
// GCC's target_clones compiles it three times and picks one at load time (ifunc).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(__SANITIZE_THREAD__)  // TSan cannot run ifunc resolvers before it starts
#define ATTN_MULTIVERSION \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define ATTN_MULTIVERSION
#endif

namespace attn {
namespace {

using simd::Simd;

constexpr int kBlock = 64;                  // positions per softmax block
constexpr int kHeadTile = 8;                // query heads sharing one pass over value rows
constexpr std::int64_t kMinChunk = 512;     // positions: never split finer than this
constexpr std::int64_t kTargetItems = 256;  // split positions until there are about this many
constexpr int kMaxChunks = 64;

// One item's view of the problem: kv heads [0, Hkv) of one sequence. All the heads of a
// position are adjacent in memory, so an item streams through contiguous rows.
struct ItemRows {
  const float* q;  // [Hq, D], query head h = kv head h / G
  const float* k;  // key row of position t, kv head h: k + t * k_pos + h * k_head
  const float* v;  // likewise
  std::int64_t k_pos, k_head, v_pos, v_head;
  int Hkv, G, D, Dv;
  double scale;
};

template <class Acc>
struct Scratch {
  std::vector<Acc> qs;                    // [Hq, D] scaled queries
  std::vector<Acc> scores;                // [Hq, kBlock] scores, then weights
  std::vector<const float*> vrows;        // [kBlock] value rows of kv head 0
  std::vector<Acc> acc;                   // [Hq, Dv] output accumulator
  std::vector<SoftmaxState<Acc>> states;  // [Hq]
};

// ---------------------------------------------------------------------------------------------
// [SECTION] The per-item loop
// ---------------------------------------------------------------------------------------------

// out[r][n * out_stride] = q[n] . k_r for N heads (q rows [N, D]) and R key rows: one pass
// over the rows, N x R vector accumulators (no reassociation, so no -ffast-math needed). Two
// rows at a time halve the query loads per multiply-add.
template <class Acc, int N, int R>
ATTN_ALWAYS_INLINE void dot_heads(const Acc* q, int D, const float* const* k, Acc* const* out,
                                  int out_stride) {
  using S = Simd<Acc>;
  constexpr int L = S::kLanes;
  typename S::V a[R][N] = {};
  int d = 0;
  for (; d + L <= D; d += L) {
    typename S::V kv[R];
    for (int r = 0; r < R; ++r) kv[r] = S::load_kv(k[r] + d);
    for (int n = 0; n < N; ++n) {
      const typename S::V qv = S::load(q + n * D + d);
      for (int r = 0; r < R; ++r) a[r][n] += qv * kv[r];
    }
  }
#if defined(__GNUC__) && ATTN_HAVE_SHUFFLE
  if constexpr (N * R == 8) {
    Acc sums[8];
    S::hsum8(&a[0][0], sums);
    for (int r = 0; r < R; ++r)
      for (int n = 0; n < N; ++n) {
        Acc s = sums[r * N + n];
        for (int dd = d; dd < D; ++dd) s += q[n * D + dd] * static_cast<Acc>(k[r][dd]);
        out[r][n * out_stride] = s;
      }
    return;
  }
#endif
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < N; ++n) {
      Acc s = S::hsum(a[r][n]);
      for (int dd = d; dd < D; ++dd) s += q[n * D + dd] * static_cast<Acc>(k[r][dd]);
      out[r][n * out_stride] = s;
    }
}

// Scores of rows k[0..R) for the G heads of one group (q [G, D], out[r] at column j of
// scores [G, kBlock]).
template <class Acc, int R>
ATTN_ALWAYS_INLINE void group_scores(const Acc* q, int G, int D, const float* const* k,
                                     Acc* const* out) {
  int g = 0;
  for (; g + 4 <= G; g += 4) {
    Acc* o[R];
    for (int r = 0; r < R; ++r) o[r] = out[r] + g * kBlock;
    dot_heads<Acc, 4, R>(q + g * D, D, k, o, kBlock);
  }
  for (; g < G; ++g) {
    Acc* o[R];
    for (int r = 0; r < R; ++r) o[r] = out[r] + g * kBlock;
    dot_heads<Acc, 1, R>(q + g * D, D, k, o, kBlock);
  }
}

// acc[h*G + g, :] += sum_j p[h*G + g, j] * v_j[h] for the nb rows of a block: positions four
// at a time (one load and store of acc per four rows), each chunk of the four value rows loaded
// once for the G heads of its group, every kv head of a position before the next, so memory is
// read in order.
template <class Acc>
ATTN_ALWAYS_INLINE void accumulate_values(int Hkv, int G, int Dv, int nb, const Acc* p,
                                          const float* const* vrows, std::int64_t v_head,
                                          Acc* acc) {
  using S = Simd<Acc>;
  using V = typename S::V;
  constexpr int L = S::kLanes;
  int j = 0;
  for (; j + 4 <= nb; j += 4) {
    for (int h = 0; h < Hkv; ++h) {
      const std::int64_t off = h * v_head;
      const float* v0 = vrows[j] + off;
      const float* v1 = vrows[j + 1] + off;
      const float* v2 = vrows[j + 2] + off;
      const float* v3 = vrows[j + 3] + off;
      const Acc* ph = p + static_cast<std::int64_t>(h) * G * kBlock + j;
      Acc* ah = acc + static_cast<std::int64_t>(h) * G * Dv;
      // Heads in tiles of kHeadTile so that the accumulator rows in use stay in L1 (MLA has
      // G = 128 rows of 512).
      for (int g0 = 0; g0 < G; g0 += kHeadTile) {
        const int g1 = std::min(G, g0 + kHeadTile);
        int x = 0;
        for (; x + L <= Dv; x += L) {
          const V a0 = S::load_kv(v0 + x), a1 = S::load_kv(v1 + x);
          const V a2 = S::load_kv(v2 + x), a3 = S::load_kv(v3 + x);
          for (int g = g0; g < g1; ++g) {
            const Acc* w = ph + g * kBlock;
            Acc* a = ah + static_cast<std::int64_t>(g) * Dv + x;
            S::store(a, S::load(a) + ((w[0] * a0 + w[1] * a1) + (w[2] * a2 + w[3] * a3)));
          }
        }
        for (; x < Dv; ++x)
          for (int g = g0; g < g1; ++g) {
            const Acc* w = ph + g * kBlock;
            ah[static_cast<std::int64_t>(g) * Dv + x] +=
                (w[0] * static_cast<Acc>(v0[x]) + w[1] * static_cast<Acc>(v1[x])) +
                (w[2] * static_cast<Acc>(v2[x]) + w[3] * static_cast<Acc>(v3[x]));
          }
      }
    }
  }
  for (; j < nb; ++j) {
    for (int hq = 0; hq < Hkv * G; ++hq) {
      const float* v0 = vrows[j] + (hq / G) * v_head;
      const Acc w0 = p[hq * kBlock + j];
      Acc* a = acc + static_cast<std::int64_t>(hq) * Dv;
      int x = 0;
      for (; x + L <= Dv; x += L) S::store(a + x, S::load(a + x) + w0 * S::load_kv(v0 + x));
      for (; x < Dv; ++x) a[x] += w0 * static_cast<Acc>(v0[x]);
    }
  }
}

// Attends all Hq heads of one sequence to positions [t_begin, t_end); leaves the unnormalised
// accumulator in sc.acc and the states in sc.states.
template <class Acc>
ATTN_ALWAYS_INLINE void attend_range(const ItemRows& r, std::int64_t t_begin, std::int64_t t_end,
                                     Scratch<Acc>& sc) {
  const int Hkv = r.Hkv, G = r.G, D = r.D, Dv = r.Dv, Hq = Hkv * G;
  Acc* qs = sc.qs.data();
  Acc* scores = sc.scores.data();
  Acc* acc = sc.acc.data();
  SoftmaxState<Acc>* states = sc.states.data();
  const Acc scale = static_cast<Acc>(r.scale);
  for (int i = 0; i < Hq * D; ++i) qs[i] = static_cast<Acc>(r.q[i]) * scale;
  std::fill(acc, acc + static_cast<std::int64_t>(Hq) * Dv, Acc(0));
  std::fill(states, states + Hq, SoftmaxState<Acc>());

  for (std::int64_t t0 = t_begin; t0 < t_end; t0 += kBlock) {
    const int nb = static_cast<int>(std::min<std::int64_t>(kBlock, t_end - t0));
    // Scores: each key row once for the G heads of its group.
    for (int j = 0; j < nb; ++j) sc.vrows[static_cast<std::size_t>(j)] = r.v + (t0 + j) * r.v_pos;
    const int pair_end = nb & ~1;
    for (int j = 0; j < pair_end; j += 2) {
      for (int h = 0; h < Hkv; ++h) {
        const float* kr[2] = {r.k + (t0 + j) * r.k_pos + h * r.k_head,
                              r.k + (t0 + j + 1) * r.k_pos + h * r.k_head};
        Acc* sh = scores + static_cast<std::int64_t>(h) * G * kBlock + j;
        Acc* o[2] = {sh, sh + 1};
        group_scores<Acc, 2>(qs + static_cast<std::int64_t>(h) * G * D, G, D, kr, o);
      }
    }
    for (int j = pair_end; j < nb; ++j) {
      for (int h = 0; h < Hkv; ++h) {
        const float* kr[1] = {r.k + (t0 + j) * r.k_pos + h * r.k_head};
        Acc* o[1] = {scores + static_cast<std::int64_t>(h) * G * kBlock + j};
        group_scores<Acc, 1>(qs + static_cast<std::int64_t>(h) * G * D, G, D, kr, o);
      }
    }
    // Softmax of the block against its own max, merged into each head's running state; the
    // merge factor of the block is folded into its weights.
    for (int g = 0; g < Hq; ++g) {
      Acc* s = scores + g * kBlock;
      Acc m = s[0];
      for (int j = 1; j < nb; ++j) m = s[j] > m ? s[j] : m;
      Acc l = 0;
      for (int j = 0; j < nb; ++j) {
        s[j] = std::exp(s[j] - m);
        l += s[j];
      }
      SoftmaxState<Acc> block;
      block.max = m;
      block.sum = l;
      Acc scale_old, scale_block;
      states[g] = SoftmaxState<Acc>::merge(states[g], block, &scale_old, &scale_block);
      if (scale_old != Acc(1)) {
        Acc* a = acc + static_cast<std::int64_t>(g) * Dv;
        for (int x = 0; x < Dv; ++x) a[x] *= scale_old;
      }
      if (scale_block != Acc(1))
        for (int j = 0; j < nb; ++j) s[j] *= scale_block;
    }
    // Values: each value row once for the G heads of its group.
    accumulate_values(Hkv, G, Dv, nb, scores, sc.vrows.data(), r.v_head, acc);
  }
}

ATTN_MULTIVERSION void attend_range_f32(const ItemRows& r, std::int64_t b, std::int64_t e,
                                        Scratch<float>& sc) {
  attend_range<float>(r, b, e, sc);
}
ATTN_MULTIVERSION void attend_range_f64(const ItemRows& r, std::int64_t b, std::int64_t e,
                                        Scratch<double>& sc) {
  attend_range<double>(r, b, e, sc);
}
void attend(const ItemRows& r, std::int64_t b, std::int64_t e, Scratch<float>& sc) {
  attend_range_f32(r, b, e, sc);
}
void attend(const ItemRows& r, std::int64_t b, std::int64_t e, Scratch<double>& sc) {
  attend_range_f64(r, b, e, sc);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Work split and threads
// ---------------------------------------------------------------------------------------------

struct Split {
  std::int64_t chunks = 1;     // per sequence
  std::int64_t chunk_len = 0;  // positions per chunk
  std::int64_t items = 0;      // B * chunks
};

// Depends on the shape only (never on the thread count), so results are reproducible.
Split split_for(const StridedDecode& p) {
  Split s;
  const std::int64_t span = p.window > 0 ? std::min<std::int64_t>(p.seq, p.window) : p.seq;
  if (p.batch > 0 && span > kMinChunk) {
    const std::int64_t want = (kTargetItems + p.batch - 1) / p.batch;
    const std::int64_t most =
        std::min<std::int64_t>((span + kMinChunk - 1) / kMinChunk, kMaxChunks);
    s.chunks = std::max<std::int64_t>(1, std::min(want, most));
  }
  s.chunk_len = s.chunks > 1 ? (span + s.chunks - 1) / s.chunks : std::max<std::int64_t>(span, 1);
  s.items = p.batch * s.chunks;
  return s;
}

// Runs body(item, thread_index) for item in [0, n) on up to `threads` threads (the caller is
// one of them). Threads that cannot be created leave their share to the others.
template <class Body>
void parallel_items(std::int64_t n, int threads, const Body& body) {
  std::atomic<std::int64_t> next{0};
  auto worker = [&](int index) {
    for (std::int64_t i = next++; i < n; i = next++) body(i, index);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(worker, t);
    } catch (const std::system_error&) {
      break;
    }
  }
  worker(0);
  for (auto& t : pool) t.join();
}

int resolve_threads(int threads, std::int64_t items) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, items)));
}

}  // namespace

template <class Acc>
void decode_strided(const StridedDecode& p, Acc* out, int threads) {
  const int Hq = p.q_heads, G = p.q_heads / p.kv_heads;
  const int D = p.head_dim, Dv = p.value_dim;
  const std::int64_t out_per_b = static_cast<std::int64_t>(Hq) * Dv;
  const Split split = split_for(p);
  const int n_threads = resolve_threads(threads, split.items);

  // Allocated up front: the workers never allocate (an exception there would terminate).
  std::vector<Scratch<Acc>> scratch(static_cast<std::size_t>(n_threads));
  for (auto& sc : scratch) {
    sc.qs.resize(static_cast<std::size_t>(Hq) * D);
    sc.scores.resize(static_cast<std::size_t>(Hq) * kBlock);
    sc.vrows.resize(kBlock);
    sc.acc.resize(static_cast<std::size_t>(out_per_b));
    sc.states.resize(static_cast<std::size_t>(Hq));
  }
  std::vector<Acc> part_acc;                  // [items, Hq, Dv] when positions are split
  std::vector<SoftmaxState<Acc>> part_state;  // [items, Hq]
  if (split.chunks > 1) {
    part_acc.resize(static_cast<std::size_t>(split.items * out_per_b));
    part_state.resize(static_cast<std::size_t>(split.items) * Hq);
  }

  parallel_items(split.items, n_threads, [&](std::int64_t item, int ti) {
    Scratch<Acc>& sc = scratch[static_cast<std::size_t>(ti)];
    const std::int64_t b = item / split.chunks, c = item % split.chunks;
    std::int64_t len = p.lens ? p.lens[b] : p.seq;
    len = std::max<std::int64_t>(0, std::min<std::int64_t>(len, p.seq));
    const std::int64_t lo = p.window > 0 ? std::max<std::int64_t>(0, len - p.window) : 0;
    const std::int64_t begin = std::min(len, lo + c * split.chunk_len);
    const std::int64_t end = std::min(len, begin + split.chunk_len);
    ItemRows r;
    r.q = p.q + b * Hq * D;
    r.k = p.k + b * p.k_batch;
    r.v = p.v + b * p.v_batch;
    r.k_pos = p.k_pos, r.k_head = p.k_head, r.v_pos = p.v_pos, r.v_head = p.v_head;
    r.Hkv = p.kv_heads, r.G = G, r.D = D, r.Dv = Dv, r.scale = p.scale;
    attend(r, begin, end, sc);
    if (split.chunks == 1) {
      Acc* o = out + b * out_per_b;
      for (int h = 0; h < Hq; ++h) {
        const Acc inv = sc.states[static_cast<std::size_t>(h)].inv_sum();
        const Acc* a = sc.acc.data() + static_cast<std::int64_t>(h) * Dv;
        for (int x = 0; x < Dv; ++x) o[h * Dv + x] = a[x] * inv;
      }
    } else {
      std::copy(sc.acc.begin(), sc.acc.end(), part_acc.begin() + item * out_per_b);
      std::copy(sc.states.begin(), sc.states.end(), part_state.begin() + item * Hq);
    }
  });
  if (split.chunks == 1) return;

  // Merge the chunks of each (sequence, query head) in chunk order.
  std::vector<Acc> merged(static_cast<std::size_t>(Dv));
  for (std::int64_t b = 0; b < p.batch; ++b) {
    for (int h = 0; h < Hq; ++h) {
      SoftmaxState<Acc> st;
      std::fill(merged.begin(), merged.end(), Acc(0));
      for (std::int64_t c = 0; c < split.chunks; ++c) {
        const std::int64_t item = b * split.chunks + c;
        Acc sa, sb;
        st = SoftmaxState<Acc>::merge(st, part_state[static_cast<std::size_t>(item * Hq + h)], &sa,
                                      &sb);
        const Acc* a = part_acc.data() + item * out_per_b + static_cast<std::int64_t>(h) * Dv;
        for (int x = 0; x < Dv; ++x) {
          Acc& m = merged[static_cast<std::size_t>(x)];
          m = m * sa + a[x] * sb;
        }
      }
      const Acc inv = st.inv_sum();
      Acc* o = out + b * out_per_b + static_cast<std::int64_t>(h) * Dv;
      for (int x = 0; x < Dv; ++x) o[x] = merged[static_cast<std::size_t>(x)] * inv;
    }
  }
}

template void decode_strided<float>(const StridedDecode&, float*, int);
template void decode_strided<double>(const StridedDecode&, double*, int);

// ---------------------------------------------------------------------------------------------
// [SECTION] decode_grouped
// ---------------------------------------------------------------------------------------------

namespace {
void check_positive(const char* field, std::int64_t value, std::int64_t lowest) {
  if (value < lowest)
    throw InputError(std::string("decode: ") + field + ": expected >= " + std::to_string(lowest) +
                     ", found " + std::to_string(value));
}
}  // namespace

template <class Acc>
void decode_grouped(const GroupedDecodeShape& s, const float* q, const float* k, const float* v,
                    const std::int64_t* lens, Acc* out, int threads) {
  check_positive("batch", s.batch, 0);
  check_positive("seq", s.seq, 0);
  check_positive("q_heads", s.q_heads, 1);
  check_positive("kv_heads", s.kv_heads, 1);
  check_positive("head_dim", s.head_dim, 1);
  check_positive("value_dim", s.value_dim, 1);
  check_positive("window", s.window, 0);
  if (s.q_heads % s.kv_heads != 0)
    throw InputError("decode: q_heads: expected a multiple of kv_heads (" +
                     std::to_string(s.kv_heads) + "), found " + std::to_string(s.q_heads));
  StridedDecode p;
  p.batch = s.batch;
  p.seq = s.seq;
  p.q_heads = s.q_heads;
  p.kv_heads = s.kv_heads;
  p.head_dim = s.head_dim;
  p.value_dim = s.value_dim;
  p.window = s.window;
  p.scale = resolve_scale(s.scale, static_cast<int>(s.head_dim));
  p.q = q;
  p.k = k;
  p.k_head = s.head_dim;
  p.k_pos = static_cast<std::int64_t>(s.kv_heads) * s.head_dim;
  p.k_batch = s.seq * p.k_pos;
  p.v = v;
  p.v_head = s.value_dim;
  p.v_pos = static_cast<std::int64_t>(s.kv_heads) * s.value_dim;
  p.v_batch = s.seq * p.v_pos;
  p.lens = lens;
  decode_strided<Acc>(p, out, threads);
}

template void decode_grouped<float>(const GroupedDecodeShape&, const float*, const float*,
                                    const float*, const std::int64_t*, float*, int);
template void decode_grouped<double>(const GroupedDecodeShape&, const float*, const float*,
                                     const float*, const std::int64_t*, double*, int);

}  // namespace attn
