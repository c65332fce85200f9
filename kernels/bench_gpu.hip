// kernels/bench_gpu.h for GPU builds: one benchmark case on the device.
//
// Method (docs/DESIGN.md section 5):
//   1. random inputs from a fixed seed, rounded to the storage dtype (fp8: one scale per tensor);
//   2. check: output poisoned with NaN, one launch, compared with the CPU float64 reference fed
//      the same rounded values (|gpu - ref| <= 8e-3 + 2e-2 |ref|, NaN fails); no timing if it
//      fails;
//   3. the inputs are copied n times so that the copies together exceed 4x the L2, and each
//      run uses the next copy;
//   4. each copy's decode step (main kernel + split-KV combine) is captured in a graph; after a
//      warm-up, every run is one graph launch between two device events, so a figure is the
//      device time of one decode step including the gap between its two kernels, without the
//      host's launch overhead; many runs, median with min and max;
//   5. then the steady state: `steps` decode steps (one a copy, in rotation) captured back to
//      back in one graph, as a model's decode graph runs them, timed between two events; a
//      step's figure (step_us) is that time over `steps`, median of many runs. It leaves out
//      the fixed cost of one graph launch between two events (~3 us on the H200, empty kernel)
//      and keeps the gap between consecutive kernels (~1 us there).
// The runtime first: attention/softmax_state.h needs __host__/__device__ defined (HIP).
#include "kernels/hip_compat.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "attention/error.h"
#include "attention/reference.h"
#include "kernels/bench_gpu.h"
#include "kernels/bench_gpu_internal.h"
#include "kernels/gpu.h"
#include "kernels/gpu_check.h"
#include "kernels/gpu_host.h"
#include "kernels/grouped_launch.h"
#include "kernels/read_probe.h"

namespace kern {
namespace {

constexpr double kAtol = 8e-3, kRtol = 2e-2;  // GPU MODE's bf16 bound, applied to every dtype:
// the reference sees the same rounded inputs, so only float32 accumulation differs.
constexpr std::uint64_t kMaxRefWork = std::uint64_t{1} << 33;  // MACs checked on the CPU

struct Stream {
  hipStream_t s = nullptr;
  Stream() { HIP_CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking)); }
  ~Stream() {
    if (s) (void)hipStreamDestroy(s);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

struct Graph {
  hipGraph_t g = nullptr;
  hipGraphExec_t exec = nullptr;
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph() {
    if (exec) (void)hipGraphExecDestroy(exec);
    if (g) (void)hipGraphDestroy(g);
  }
};

struct Events {
  std::vector<hipEvent_t> e;
  explicit Events(std::size_t n) : e(n, nullptr) {
    for (auto& x : e) HIP_CHECK(hipEventCreate(&x));
  }
  ~Events() {
    for (auto& x : e)
      if (x) (void)hipEventDestroy(x);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
};

struct Timing {
  double median_us = 0, min_us = 0, max_us = 0;
  int runs = 0;
  double step_us = 0;  // steady state: median graph of `steps` back-to-back steps / steps
  int steps = 0;
  bool cancelled = false;
};

double median_of(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Steps a steady-state graph holds: every copy at least once (so the L2 holds none of the
// next step's inputs) and >= 8, so the graph's own launch is spread over many steps.
int steady_steps(int copies) { return copies * ((8 + copies - 1) / copies); }

// Captures what `enqueue` puts on stream s into g and instantiates it; a failure inside the
// capture ends it (the partial graph destroyed) before it propagates.
void capture(hipStream_t s, Graph& g, const std::function<void()>& enqueue) {
  HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal));
  try {
    enqueue();
  } catch (...) {
    hipGraph_t broken = nullptr;
    (void)hipStreamEndCapture(s, &broken);
    if (broken) (void)hipGraphDestroy(broken);
    throw;
  }
  HIP_CHECK(hipStreamEndCapture(s, &g.g));
  HIP_CHECK(hipGraphInstantiate(&g.exec, g.g, nullptr, nullptr, 0));
}

// One batch of ev.e.size() / 2 timed runs: each the graph next() returns, launched between two
// events; appends each run's device time in us over `per` to out.
void time_batch(hipStream_t s, Events& ev, const std::function<hipGraphExec_t()>& next, double per,
                std::vector<double>& out) {
  const std::size_t n = ev.e.size() / 2;
  for (std::size_t i = 0; i < n; ++i) {
    HIP_CHECK(hipEventRecord(ev.e[2 * i], s));
    HIP_CHECK(hipGraphLaunch(next(), s));
    HIP_CHECK(hipEventRecord(ev.e[2 * i + 1], s));
  }
  HIP_CHECK(hipStreamSynchronize(s));
  for (std::size_t i = 0; i < n; ++i) {
    float ms = 0;
    HIP_CHECK(hipEventElapsedTime(&ms, ev.e[2 * i], ev.e[2 * i + 1]));
    out.push_back(1e3 * ms / per);
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// launch(copy, stream) enqueues one decode step on copy `copy`.
Timing time_runs(const std::function<void(int, hipStream_t)>& launch, int copies,
                 const BenchOptions& opt) {
  Stream stream;
  for (int i = 0; i < std::max(3, copies); ++i) launch(i % copies, stream.s);  // warm-up
  HIP_CHECK(hipStreamSynchronize(stream.s));
  std::vector<std::unique_ptr<Graph>> graphs;
  for (int i = 0; i < copies; ++i) {
    graphs.push_back(std::make_unique<Graph>());
    capture(stream.s, *graphs.back(), [&] { launch(i, stream.s); });
  }
  for (int i = 0; i < copies; ++i) HIP_CHECK(hipGraphLaunch(graphs[i]->exec, stream.s));
  HIP_CHECK(hipStreamSynchronize(stream.s));

  constexpr int kBatch = 100;
  constexpr int kMaxRuns = 5000;
  Events ev(2 * kBatch);
  std::vector<double> us;
  const int min_runs = std::max(opt.min_runs, 10);
  const auto t0 = std::chrono::steady_clock::now();
  Timing t;
  int next = 0;
  while (true) {
    time_batch(
        stream.s, ev,
        [&] {
          const hipGraphExec_t g = graphs[next]->exec;
          next = (next + 1) % copies;
          return g;
        },
        1.0, us);
    const double secs = seconds_since(t0);
    if (opt.cancel && opt.cancel->load()) {
      t.cancelled = true;
      return t;
    }
    const int runs = static_cast<int>(us.size());
    if ((runs >= min_runs && secs >= opt.min_seconds) || runs >= kMaxRuns) break;
  }
  t.runs = static_cast<int>(us.size());
  t.min_us = *std::min_element(us.begin(), us.end());
  t.max_us = *std::max_element(us.begin(), us.end());
  t.median_us = median_of(us);

  // Steady state: the steps back to back in one graph, between two events.
  const int steps = steady_steps(copies);
  Graph chain;
  capture(stream.s, chain, [&] {
    for (int i = 0; i < steps; ++i) launch(i % copies, stream.s);
  });
  HIP_CHECK(hipGraphLaunch(chain.exec, stream.s));  // warm-up
  HIP_CHECK(hipStreamSynchronize(stream.s));
  constexpr int kChainBatch = 10;  // graphs of `steps` steps timed a batch
  Events cev(2 * kChainBatch);
  std::vector<double> per_step;
  const auto c0 = std::chrono::steady_clock::now();
  while (true) {
    time_batch(
        stream.s, cev, [&] { return chain.exec; }, steps, per_step);
    if (opt.cancel && opt.cancel->load()) {
      t.cancelled = true;
      return t;
    }
    const int n = static_cast<int>(per_step.size());
    if ((n >= 20 && seconds_since(c0) >= 0.5 * opt.min_seconds) || n >= 1000) break;
  }
  t.step_us = median_of(per_step);
  t.steps = steps;
  return t;
}

// Compares gpu with ref over n elements; returns the max abs error, or throws DeviceError
// naming the first element out of bounds (NaN included).
double check_against(const std::vector<float>& gpu, const std::vector<double>& ref, std::size_t n) {
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::fabs(static_cast<double>(gpu[i]) - ref[i]);
    if (!(d <= kAtol + kRtol * std::fabs(ref[i])))
      throw attn::DeviceError("check failed at output element " + std::to_string(i) + ": gpu " +
                              std::to_string(gpu[i]) + ", reference " + std::to_string(ref[i]));
    worst = std::max(worst, d);
  }
  return worst;
}

}  // namespace

namespace bench_gpu {

// x[i] uniform in [-amp, amp), a function of (seed, i) only, filled in parallel.
void fill_uniform(std::vector<float>& x, std::uint64_t seed, float amp) {
  parallel_for(x.size(), [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const std::uint64_t r = splitmix64(seed * 0x100000001b3ull + i);
      const float u = static_cast<float>(r >> 40) * (1.0f / 16777216.0f);  // [0, 1)
      x[i] = (2.0f * u - 1.0f) * amp;
    }
  });
}

// How many rotated copies of `per_copy` bytes: together > 4x L2, within 70 % of free memory.
int copies_for(std::size_t per_copy, std::size_t fixed) {
  const DeviceInfo d = query_device();
  const std::size_t want_total = 4 * std::max<std::size_t>(d.l2_bytes, std::size_t{50} << 20);
  std::size_t n = (want_total + per_copy - 1) / per_copy;
  n = std::clamp<std::size_t>(n, 2, 256);
  const std::size_t budget = d.free_memory / 10 * 7;
  if (per_copy + fixed > budget)
    throw attn::DeviceError("the case needs " + std::to_string((per_copy + fixed) >> 20) +
                            " MiB of device memory, " + std::to_string(d.free_memory >> 20) +
                            " MiB are free (out of memory)");
  n = std::min(n, (budget - fixed) / per_copy);
  return static_cast<int>(std::max<std::size_t>(n, 1));
}

void upload_copies(DeviceCopies& c, int n, const std::vector<unsigned char>& hq,
                   const std::vector<unsigned char>& hk, const std::vector<unsigned char>& hv,
                   std::size_t out_bytes) {
  for (int i = 0; i < n; ++i) {
    c.q.emplace_back(hq.size());
    c.k.emplace_back(hk.size());
    c.v.emplace_back(hv.size());
    c.out.emplace_back(out_bytes);
    if (i == 0) {
      HIP_CHECK(hipMemcpy(c.q[0].get(), hq.data(), hq.size(), hipMemcpyHostToDevice));
      HIP_CHECK(hipMemcpy(c.k[0].get(), hk.data(), hk.size(), hipMemcpyHostToDevice));
      if (!hv.empty())
        HIP_CHECK(hipMemcpy(c.v[0].get(), hv.data(), hv.size(), hipMemcpyHostToDevice));
    } else {
      HIP_CHECK(hipMemcpy(c.q[i].get(), c.q[0].get(), hq.size(), hipMemcpyDeviceToDevice));
      HIP_CHECK(hipMemcpy(c.k[i].get(), c.k[0].get(), hk.size(), hipMemcpyDeviceToDevice));
      if (!hv.empty())
        HIP_CHECK(hipMemcpy(c.v[i].get(), c.v[0].get(), hv.size(), hipMemcpyDeviceToDevice));
    }
  }
}

// The sequences the float64 reference checks: all of them, or the first ones whose work (MACs,
// per_seq each) fits kMaxRefWork.
std::int64_t reference_batch(std::int64_t batch, std::uint64_t per_seq) {
  const std::uint64_t fit = kMaxRefWork / std::max<std::uint64_t>(1, per_seq);
  return std::max<std::int64_t>(1, std::min<std::int64_t>(batch, static_cast<std::int64_t>(fit)));
}

// Shared tail of both families: poison, check, time, fill r.
// GB/s counts the cache (r.kv_bytes) and `io_bytes` (queries and outputs).
void check_and_time(const std::function<void(int, hipStream_t)>& launch, DeviceCopies& dc,
                    std::size_t n_out, std::size_t n_checked, const std::vector<double>& ref,
                    const BenchOptions& opt, BenchResult& r, std::size_t io_bytes) {
  HIP_CHECK(hipMemset(dc.out[0].get(), 0xff, n_out * sizeof(float)));  // NaN
  launch(0, nullptr);
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<float> got(n_out);
  HIP_CHECK(hipMemcpy(got.data(), dc.out[0].get(), n_out * sizeof(float), hipMemcpyDeviceToHost));
  r.max_abs_err = check_against(got, ref, n_checked);
  r.checked = true;
  const Timing t = time_runs(launch, static_cast<int>(dc.q.size()), opt);
  if (t.cancelled) {
    r.error = "cancelled";
    return;
  }
  r.median_us = t.median_us;
  r.min_us = t.min_us;
  r.max_us = t.max_us;
  r.runs = t.runs;
  r.step_us = t.step_us;
  r.steps = t.steps;
  // Checked again after the timed runs: state a launch leaves behind (the fused combine's
  // counters, a workspace reused by every run) must not change the next result.
  HIP_CHECK(hipMemset(dc.out[0].get(), 0xff, n_out * sizeof(float)));
  launch(0, nullptr);
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(got.data(), dc.out[0].get(), n_out * sizeof(float), hipMemcpyDeviceToHost));
  r.max_abs_err = std::max(r.max_abs_err, check_against(got, ref, n_checked));
  r.gbps = r.median_us > 0 ? static_cast<double>(r.kv_bytes + io_bytes) / (r.median_us * 1e3) : 0;
}

}  // namespace bench_gpu

namespace {

using namespace bench_gpu;

void bench_grouped(const BenchCase& c, const BenchOptions& opt, BenchResult& r) {
  attn::GroupedDecodeShape s;
  s.batch = c.batch;
  s.seq = c.seq;
  s.q_heads = c.q_heads;
  s.kv_heads = c.kv_heads;
  s.head_dim = c.head_dim;
  s.value_dim = c.head_dim;
  s.window = c.window;
  s.scale = attn::resolve_scale(c.scale, c.head_dim);
  const attn::DType dt = c.dtype;
  const std::size_t eb = storage_elem_bytes(dt);
  const std::size_t nq = static_cast<std::size_t>(s.batch) * s.q_heads * s.head_dim;
  const std::size_t nk = static_cast<std::size_t>(s.batch) * s.seq * s.kv_heads * s.head_dim;
  const std::size_t no = static_cast<std::size_t>(s.batch) * s.q_heads * s.value_dim;
  const std::size_t keys =
      static_cast<std::size_t>(s.window > 0 ? std::min<std::int64_t>(s.seq, s.window) : s.seq);
  r.kv_bytes = c.kv_bytes();

  GroupedDeviceArgs a;
  a.batch = s.batch;
  a.seq = s.seq;
  a.q_heads = s.q_heads;
  a.kv_heads = s.kv_heads;
  a.head_dim = s.head_dim;
  a.value_dim = s.value_dim;
  a.window = s.window;
  a.scale = static_cast<float>(s.scale);
  a.dt = dt;
  const std::size_t work_bytes = grouped_workspace_bytes(a);
  const std::size_t per_copy = nq * 2 + 2 * nk * eb + no * sizeof(float);
  const int copies = copies_for(per_copy, work_bytes);  // before any host allocation

  std::vector<float> q(nq), k(nk), v(nk);
  fill_uniform(q, kSeed + 1, 1.7320508f);
  fill_uniform(k, kSeed + 2, 1.7320508f);
  fill_uniform(v, kSeed + 3, 1.0f);
  const attn::DType qdt = query_storage(dt);
  a.k_scale = storage_scale(dt, k.data(), nk);
  a.v_scale = storage_scale(dt, v.data(), nk);
  std::vector<unsigned char> hq(nq * 2), hk(nk * eb), hv(nk * eb);
  encode_storage(qdt, q.data(), nq, 1.0f, hq.data());
  encode_storage(dt, k.data(), nk, a.k_scale, hk.data());
  encode_storage(dt, v.data(), nk, a.v_scale, hv.data());
  round_as_storage(qdt, q.data(), nq, 1.0f, q.data());
  round_as_storage(dt, k.data(), nk, a.k_scale, k.data());
  round_as_storage(dt, v.data(), nk, a.v_scale, v.data());

  // The reference on the first sequences only when the whole batch would take too long.
  attn::GroupedDecodeShape rs = s;
  const std::uint64_t per_seq =
      static_cast<std::uint64_t>(keys) * s.q_heads * (s.head_dim + s.value_dim);
  rs.batch = reference_batch(s.batch, per_seq);
  std::vector<double> ref(static_cast<std::size_t>(rs.batch) * s.q_heads * s.value_dim);
  attn::decode_grouped<double>(rs, q.data(), k.data(), v.data(), nullptr, ref.data(), 0);
  std::vector<float>().swap(k);
  std::vector<float>().swap(v);

  DeviceCopies dc;
  upload_copies(dc, copies, hq, hk, hv, no * sizeof(float));
  std::vector<unsigned char>().swap(hk);
  std::vector<unsigned char>().swap(hv);
  DeviceBuffer work(work_bytes);
  if (work_bytes > 0) HIP_CHECK(hipMemset(work.get(), 0, work_bytes));  // counters start at 0
  auto launch = [&](int i, hipStream_t st) {
    GroupedDeviceArgs x = a;
    x.q = dc.q[i].get();
    x.k = dc.k[i].get();
    x.v = dc.v[i].get();
    x.out = dc.out[i].as<float>();
    x.workspace = work.get();
    x.stream = st;
    launch_grouped_decode(x);
  };
  check_and_time(launch, dc, no, ref.size(), ref, opt, r, nq * 2 + no * sizeof(float));
}

__global__ void empty_kernel() {}

}  // namespace

GpuTiming gpu_launch_floor() {
  require_device();
  BenchOptions opt;
  opt.min_runs = 200;
  opt.min_seconds = 0.05;
  const Timing t = time_runs(
      [](int, hipStream_t st) {
        empty_kernel<<<1, 32, 0, st>>>();
        HIP_CHECK_LAUNCH();
      },
      2, opt);
  return {t.median_us, t.step_us};
}

GpuTiming gpu_read_probe_time(std::size_t bytes) {
  require_device();
  bytes = bytes / 16 * 16;
  if (bytes == 0) throw attn::DeviceError("read probe: no bytes to read");
  const int blocks = read_probe_blocks();
  const int n = copies_for(bytes, std::size_t(blocks) * sizeof(unsigned));
  std::vector<DeviceBuffer> bufs;
  for (int i = 0; i < n; ++i) {
    bufs.emplace_back(bytes);
    HIP_CHECK(hipMemset(bufs.back().get(), i + 1, bytes));
  }
  DeviceBuffer sink(std::size_t(blocks) * sizeof(unsigned));
  BenchOptions opt;
  opt.min_runs = 200;
  opt.min_seconds = 0.1;
  const Timing t = time_runs(
      [&](int i, hipStream_t st) {
        launch_read_probe(bufs[i].get(), bytes, sink.as<unsigned>(), blocks, st);
        HIP_CHECK_LAUNCH();
      },
      n, opt);
  return {t.median_us, t.step_us};
}

BenchResult gpu_bench_case(const BenchCase& c, const BenchOptions& opt) {
  require_device();  // no GPU at all: DeviceError to the caller
  BenchResult r;
  r.c = c;
  r.device = "gpu";
  try {
    const bool mxfp4_mla = c.dtype == attn::DType::kMxfp4 && c.variant == attn::Variant::kMla;
    if (c.dtype != attn::DType::kBf16 && c.dtype != attn::DType::kFp16 &&
        c.dtype != attn::DType::kFp8 && !mxfp4_mla)
      throw attn::InputError(
          "--dtype for the GPU must be bf16, fp16 or fp8 (mxfp4 for mla), found " +
          std::string(attn::dtype_name(c.dtype)));
    if (mxfp4_mla)
      bench_mla_packed(c, opt, r);
    else if (c.variant == attn::Variant::kMla)
      bench_mla(c, opt, r);
    else
      bench_grouped(c, opt, r);
  } catch (const std::bad_alloc&) {
    r.error = "host out of memory for this case";
  } catch (const std::exception& e) {
    r.error = e.what();
    (void)hipGetLastError();
  }
  return r;
}

}  // namespace kern
