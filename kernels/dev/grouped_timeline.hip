// Where the time of a grouped decode v5 launch goes (a dev tool, not part of the product): per
// CTA of the main kernel, %globaltimer at its start, when its first block landed, after its last
// block and at its exit (GroupedDeviceArgs::timeline), for the 268 MB rows that stop short of
// the read probe. Built as attnlab_grouped_timeline by a CUDA build with
// -DATTNLAB_KERNEL_DIAG=ON (the timeline writes exist only there).
// Usage: attnlab_grouped_timeline B S Hq Hkv [W] [splits]. Inputs are random bf16 on the device,
// four copies rotated past the L2; 30 timed launches (event pair each, median), then the timeline
// of one more launch on a copy not read for three launches. Prints the launch's span, the
// spread of CTA starts, first landings and exits, the mean exit by kv head and by batch row,
// and the multiprocessors that finish first and last.
#include "kernels/hip_compat.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "kernels/gpu_check.h"
#include "kernels/grouped_launch.h"

using namespace kern;

namespace {

__global__ void fill_bf16(std::uint16_t* x, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = std::uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    h *= 3266489917u;
    h ^= h >> 16;
    const float f = float(h >> 8) * (1.f / 16777216.f) * 2.f - 1.f;
    x[i] = std::uint16_t(__float_as_uint(f) >> 16);
  }
}

double pct(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * (v.size() - 1) + 0.5))];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s B S Hq Hkv [W] [splits]\n", argv[0]);
    return 2;
  }
  GroupedDeviceArgs a;
  a.batch = std::atoll(argv[1]);
  a.seq = std::atoll(argv[2]);
  a.q_heads = std::atoi(argv[3]);
  a.kv_heads = std::atoi(argv[4]);
  a.window = argc > 5 ? std::atoi(argv[5]) : 0;
  a.force_splits = argc > 6 ? std::atoi(argv[6]) : 0;
  a.head_dim = a.value_dim = 128;
  a.scale = 0.08838835f;
  a.dt = attn::DType::kBf16;
  try {
    const GroupedPlan plan = grouped_plan(a);
    if (plan.version != 5) {
      std::fprintf(stderr, "the plan takes v%d here; the timeline is v5's only\n", plan.version);
      return 2;
    }
    const std::size_t nkv = std::size_t(a.batch) * a.seq * a.kv_heads * 128;
    const std::size_t nq = std::size_t(a.batch) * a.q_heads * 128;
    constexpr int kCopies = 4;
    std::vector<DeviceBuffer> k, v, q, out, work;
    for (int c = 0; c < kCopies; ++c) {
      k.emplace_back(2 * nkv);
      v.emplace_back(2 * nkv);
      q.emplace_back(2 * nq);
      out.emplace_back(4 * nq);
      work.emplace_back(std::max<std::size_t>(grouped_workspace_bytes(a), 16));
      HIP_CHECK(hipMemset(work.back().get(), 0, work.back().bytes()));
      fill_bf16<<<1024, 256>>>(k.back().as<std::uint16_t>(), nkv, 11u + c);
      fill_bf16<<<1024, 256>>>(v.back().as<std::uint16_t>(), nkv, 23u + c);
      fill_bf16<<<64, 256>>>(q.back().as<std::uint16_t>(), nq, 37u + c);
    }
    HIP_CHECK(hipDeviceSynchronize());
    auto set = [&](int c) {
      a.q = q[c].get();
      a.k = k[c].get();
      a.v = v[c].get();
      a.out = out[c].as<float>();
      a.workspace = work[c].get();
    };
    const int ctas = static_cast<int>(plan.blocks);
    DeviceBuffer tl(std::size_t(ctas) * 8 * 8);
    hipEvent_t e0, e1;
    HIP_CHECK(hipEventCreate(&e0));
    HIP_CHECK(hipEventCreate(&e1));
    std::vector<float> ms;
    for (int r = 0; r < 34; ++r) {
      set(r % kCopies);
      HIP_CHECK(hipEventRecord(e0));
      launch_grouped_decode(a);
      HIP_CHECK(hipEventRecord(e1));
      HIP_CHECK(hipEventSynchronize(e1));
      float t = 0;
      HIP_CHECK(hipEventElapsedTime(&t, e0, e1));
      if (r >= 4) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    set(34 % kCopies);
    a.timeline = tl.get();
    HIP_CHECK(hipMemset(tl.get(), 0, tl.bytes()));
    HIP_CHECK(hipEventRecord(e0));
    launch_grouped_decode(a);
    HIP_CHECK(hipEventRecord(e1));
    HIP_CHECK(hipEventSynchronize(e1));
    float tlm = 0;
    HIP_CHECK(hipEventElapsedTime(&tlm, e0, e1));
    std::vector<unsigned long long> h(std::size_t(ctas) * 8);
    HIP_CHECK(hipMemcpy(h.data(), tl.get(), tl.bytes(), hipMemcpyDeviceToHost));
    (void)hipEventDestroy(e0);
    (void)hipEventDestroy(e1);
    unsigned long long t0 = ~0ull, tend = 0;
    for (int i = 0; i < ctas; ++i) {
      t0 = std::min(t0, h[8 * i]);
      tend = std::max(tend, h[8 * i + 3]);
    }
    std::vector<double> st, first, loop, ex, walk;
    std::vector<double> sm_end(256, 0.0);
    std::vector<int> sm_ctas(256, 0);
    for (int i = 0; i < ctas; ++i) {
      const double s = double(h[8 * i] - t0) * 1e-3;
      const int sm = int(h[8 * i + 4] & 255);
      st.push_back(s);
      first.push_back(double(h[8 * i + 1] - t0) * 1e-3);
      loop.push_back(double(h[8 * i + 2] - t0) * 1e-3);
      ex.push_back(double(h[8 * i + 3] - t0) * 1e-3);
      walk.push_back(double(h[8 * i + 2] - h[8 * i + 1]) * 1e-3);
      sm_end[sm] = std::max(sm_end[sm], ex.back());
      ++sm_ctas[sm];
    }
    const double kv_mb = 2.0 * 2.0 * double(nkv) * 1e-6;
    std::printf("B%lld S%lld Hq%d Hkv%d W%d: v5 ns%d wg%d splits %d%s, %d CTAs, KV %.1f MB\n",
                (long long)a.batch, (long long)a.seq, a.q_heads, a.kv_heads, a.window, plan.stages,
                plan.warpgroups, plan.splits, plan.fused_combine ? " fused" : "", ctas, kv_mb);
    std::printf(
        "event-timed launch: median %.2f us (min %.2f, max %.2f, 30 runs); this one %.2f us\n",
        1e3 * ms[ms.size() / 2], 1e3 * ms.front(), 1e3 * ms.back(), 1e3 * tlm);
    std::printf("timeline span (first CTA start to last CTA exit): %.2f us\n",
                double(tend - t0) * 1e-3);
    auto row = [](const char* name, const std::vector<double>& x) {
      std::printf("  %-26s min %7.2f  p10 %7.2f  p50 %7.2f  p90 %7.2f  max %7.2f us\n", name,
                  pct(x, 0), pct(x, 0.1), pct(x, 0.5), pct(x, 0.9), pct(x, 1.0));
    };
    row("CTA start", st);
    row("first block landed", first);
    row("last block done", loop);
    row("CTA exit", ex);
    row("walk (first to last block)", walk);
    int used = 0;
    std::vector<double> ends;
    for (int s = 0; s < 256; ++s)
      if (sm_ctas[s]) {
        ++used;
        ends.push_back(sm_end[s]);
      }
    std::printf("  multiprocessors used %d; their last exit: ", used);
    std::printf("min %.2f p10 %.2f p50 %.2f p90 %.2f max %.2f us\n", pct(ends, 0), pct(ends, 0.1),
                pct(ends, 0.5), pct(ends, 0.9), pct(ends, 1.0));
    // Which CTAs end first: mean exit by kv head and by batch row, and the earliest and latest
    // multiprocessors.
    std::vector<double> by_h(a.kv_heads, 0.0), by_b(a.batch, 0.0);
    std::vector<int> n_h(a.kv_heads, 0), n_b(a.batch, 0);
    const int gx = ctas / int(a.batch * a.kv_heads);
    for (int i = 0; i < ctas; ++i) {
      const int hh = (i / gx) % a.kv_heads, bb = i / (gx * a.kv_heads);
      by_h[hh] += ex[i];
      ++n_h[hh];
      by_b[bb] += ex[i];
      ++n_b[bb];
    }
    std::printf("  mean exit by kv head:");
    for (int i = 0; i < a.kv_heads && i < 16; ++i)
      std::printf(" %.1f", by_h[i] / std::max(1, n_h[i]));
    std::printf("\n  mean exit by batch row:");
    for (int i = 0; i < a.batch && i < 32; ++i) std::printf(" %.1f", by_b[i] / std::max(1, n_b[i]));
    std::vector<std::pair<double, int>> sm_order;
    for (int s = 0; s < 256; ++s)
      if (sm_ctas[s]) sm_order.push_back({sm_end[s], s});
    std::sort(sm_order.begin(), sm_order.end());
    std::printf("\n  earliest SMs (id:exit):");
    for (std::size_t i = 0; i < sm_order.size() && i < 12; ++i)
      std::printf(" %d:%.1f", sm_order[i].second, sm_order[i].first);
    std::printf("\n  latest SMs (id:exit):");
    for (std::size_t i = sm_order.size() > 12 ? sm_order.size() - 12 : 0; i < sm_order.size(); ++i)
      std::printf(" %d:%.1f", sm_order[i].second, sm_order[i].first);
    std::printf("\n");
    // Achieved rate inside the span.
    std::printf("  KV read over the span: %.0f GB/s\n", kv_mb * 1e-3 / (double(tend - t0) * 1e-9));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 3;
  }
  return 0;
}
