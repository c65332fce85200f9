// Threaded streaming read: each thread sums its own contiguous slice with eight independent
// 64-bit lanes (integer adds, so the loop vectorises without -ffast-math and never waits on
// floating-point latency). The sum is kept so the reads cannot be optimised away.
#include "kernels/cpu_probe.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(__SANITIZE_THREAD__)  // TSan cannot run ifunc resolvers before it starts
#define KERN_MULTIVERSION \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define KERN_MULTIVERSION
#endif

namespace kern {
namespace {

constexpr int kPasses = 5;

KERN_MULTIVERSION std::uint64_t sum_words(const std::uint64_t* p, std::size_t n) {
  std::uint64_t lanes[8] = {};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) lanes[l] += p[i + static_cast<std::size_t>(l)];
  std::uint64_t s = 0;
  for (; i < n; ++i) s += p[i];
  for (std::uint64_t l : lanes) s += l;
  return s;
}

std::atomic<std::uint64_t> g_sink{0};

}  // namespace

double cpu_read_probe_gbps(int threads, std::size_t bytes) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::size_t words = std::max<std::size_t>(bytes / 8, std::size_t(threads) * 4096);
  std::unique_ptr<std::uint64_t[]> buf(new std::uint64_t[words]);

  // One pool for every pass, started by a generation counter, so thread start-up is not timed.
  // Pass 0 writes the buffer (first touch by the thread that will read it). The slices are
  // fixed once the pool exists (a thread that could not be created leaves its share to the
  // others); the helpers read them only after the first release of `generation`.
  std::atomic<int> generation{-1};
  std::atomic<int> done{0};
  std::size_t per = 0;
  auto work = [&](int t, int pass) {
    const std::size_t begin = std::min(words, static_cast<std::size_t>(t) * per);
    const std::size_t n = std::min(words - begin, per);
    if (pass == 0) {
      for (std::size_t i = 0; i < n; ++i) buf[begin + i] = (begin + i) * 0x9e3779b97f4a7c15ull;
    } else {
      g_sink.fetch_add(sum_words(buf.get() + begin, n), std::memory_order_relaxed);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) {
    try {
      pool.emplace_back([&, t] {
        for (int pass = 0; pass <= kPasses; ++pass) {
          while (generation.load(std::memory_order_acquire) < pass) std::this_thread::yield();
          work(t, pass);
          done.fetch_add(1, std::memory_order_acq_rel);
        }
      });
    } catch (const std::system_error&) {
      break;
    }
  }
  const int helpers = static_cast<int>(pool.size());
  per = (words + static_cast<std::size_t>(helpers)) / static_cast<std::size_t>(helpers + 1);
  double best = 0;
  for (int pass = 0; pass <= kPasses; ++pass) {
    done.store(0, std::memory_order_relaxed);
    const auto t0 = std::chrono::steady_clock::now();
    generation.store(pass, std::memory_order_release);
    work(0, pass);
    while (done.load(std::memory_order_acquire) < helpers) std::this_thread::yield();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (pass > 0 && s > 0) best = std::max(best, static_cast<double>(words * 8) / s / 1e9);
  }
  for (auto& th : pool) th.join();
  return best;
}

}  // namespace kern
