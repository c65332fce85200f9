// Timing driver for the MLA decode kernel versions and choices (a dev tool, not part of the
// product): built as attnlab_mla_timing by a GPU build with -DATTNLAB_KERNEL_DIAG=ON (its probe
// runs need the diagnostics). Usage: attnlab_mla_timing [runs] [case filter] [variants];
// ATTNLAB_TIMING_ROT=N rotates N input copies (default past the L2).
// Method (docs/DESIGN.md section 5): random inputs on the device, each variant's output compared
// with the default variant's, warm-up, inputs rotated past the L2, one event pair per launch,
// median, min and max of many runs, and a streaming-read probe in the same run.
#include "kernels/hip_compat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/gpu_check.h"
#include "kernels/mla_launch.h"

using namespace kern;

namespace {

__global__ void fill_random(std::uint16_t* x, std::size_t n, std::uint32_t seed, int fp8,
                            float amp) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = std::uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    h *= 3266489917u;
    h ^= h >> 16;
    if (fp8) {  // two e4m3 bytes per 16-bit word, never the NaN code 0x7f / 0xff
      std::uint32_t a = h & 0x7e, b2 = (h >> 8) & 0x7e;
      a |= (h >> 16) & 0x80;
      b2 |= (h >> 24) & 0x80;
      x[i] = std::uint16_t(a | (b2 << 8));
    } else {  // bf16 of a uniform value in [-amp, amp)
      const float f = (float(h >> 8) * (1.f / 16777216.f) * 2.f - 1.f) * amp;
      x[i] = std::uint16_t(__float_as_uint(f) >> 16);
    }
  }
}

__global__ void read_probe(const uint4* p, std::size_t n, unsigned* sink) {
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    acc.x ^= v.x;
    acc.y ^= v.y;
    acc.z ^= v.z;
    acc.w ^= v.w;
  }
  if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x12345678u) *sink = 1;
}

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double probe_gbps() {
  const std::size_t bytes = std::size_t(4) << 30;
  DeviceBuffer buf(bytes), sink(4);
  HIP_CHECK(hipMemset(buf.get(), 1, bytes));
  hipEvent_t e0, e1;
  HIP_CHECK(hipEventCreate(&e0));
  HIP_CHECK(hipEventCreate(&e1));
  std::vector<float> t;
  for (int r = 0; r < 12; ++r) {
    HIP_CHECK(hipEventRecord(e0));
    read_probe<<<132 * 8, 512>>>(buf.as<uint4>(), bytes / 16, sink.as<unsigned>());
    HIP_CHECK(hipEventRecord(e1));
    HIP_CHECK(hipEventSynchronize(e1));
    float ms = 0;
    HIP_CHECK(hipEventElapsedTime(&ms, e0, e1));
    if (r >= 2) t.push_back(ms);
  }
  return double(bytes) / (median(t) * 1e-3) / 1e9;
}

struct Case {
  const char* name;
  int heads;
  std::int64_t batch, seq;
  attn::DType dt;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--help") {
    std::printf(
        "usage: mla_timing [timed runs per variant, default 30] [case filter] "
        "[variant filter]\n  filters are substrings of \"<case> <dtype>\" and of the "
        "variant label (for ncu: one case, one variant)\n");
    return 0;
  }
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 30;
  const std::string case_filter = argc > 2 ? argv[2] : "";
  const std::string var_filter = argc > 3 ? argv[3] : "";
  const double probe = probe_gbps();
  std::printf("read probe: %.0f GB/s\n", probe);
  const Case cases[] = {
      {"H16 B64 S8192", 16, 64, 8192, attn::DType::kBf16},
      {"H128 B64 S8192", 128, 64, 8192, attn::DType::kBf16},
      {"H64 B64 S8192", 64, 64, 8192, attn::DType::kBf16},
      {"GPUMODE bs256 kv8192", 16, 256, 8192, attn::DType::kBf16},
      {"GPUMODE bs256 kv8192", 16, 256, 8192, attn::DType::kFp8},
      {"GPUMODE bs4 kv1024", 16, 4, 1024, attn::DType::kBf16},
      {"GPUMODE bs4 kv8192", 16, 4, 8192, attn::DType::kBf16},
      {"GPUMODE bs32 kv1024", 16, 32, 1024, attn::DType::kBf16},
      {"GPUMODE bs32 kv8192", 16, 32, 8192, attn::DType::kBf16},
      {"GPUMODE bs64 kv1024", 16, 64, 1024, attn::DType::kBf16},
      {"GPUMODE bs64 kv8192", 16, 64, 8192, attn::DType::kBf16},
      {"GPUMODE bs256 kv1024", 16, 256, 1024, attn::DType::kBf16},
      {"GPUMODE bs4 kv1024", 16, 4, 1024, attn::DType::kFp8},
      {"GPUMODE bs64 kv8192", 16, 64, 8192, attn::DType::kFp8},
      {"H16 B1 S65536", 16, 1, 65536, attn::DType::kBf16},
      // 2 splits a sequence: 120, 128, 132 CTAs on 132 SMs (does the chip stream with 4 idle?)
      {"H16 B60 S8192", 16, 60, 8192, attn::DType::kBf16},
      {"H16 B66 S8192", 16, 66, 8192, attn::DType::kBf16},
      {"H128 B64 S8192", 128, 64, 8192, attn::DType::kFp8},
  };
  std::printf("%-22s %-5s %-34s %6s %10s %10s %10s %8s %7s %8s %10s\n", "case", "dtype", "variant",
              "splits", "median_us", "min_us", "max_us", "GB/s", "%probe", "TFLOP/s", "maxdiff");
  for (const Case& c : cases) {
    if ((std::string(c.name) + " " + std::string(attn::dtype_name(c.dt))).find(case_filter) ==
        std::string::npos)
      continue;
    const int dk = 576;
    const bool fp8 = c.dt == attn::DType::kFp8;
    const std::size_t q_elems = std::size_t(c.batch) * c.heads * dk;
    const std::size_t kv_bytes = std::size_t(c.batch) * c.seq * dk * (fp8 ? 1 : 2);
    const std::size_t out_elems = std::size_t(c.batch) * c.heads * 512;
    int rot = int(std::min<std::size_t>(
        16, std::max<std::size_t>(1, (std::size_t(400) << 20) / kv_bytes + 1)));
    // ATTNLAB_TIMING_ROT=n: rotate over n copies (the bench takes at least 2; this driver 1 for
    // caches > 400 MB), to compare the two methods on the same binary.
    if (const char* e = std::getenv("ATTNLAB_TIMING_ROT"))
      rot = std::max(1, std::min(16, std::atoi(e)));
    std::vector<DeviceBuffer> q, kv;
    for (int r = 0; r < rot; ++r) {
      q.emplace_back(q_elems * 2);
      kv.emplace_back(kv_bytes);
      fill_random<<<1024, 256>>>(q.back().as<std::uint16_t>(), q_elems, 17u + r, 0, 2.0f);
      fill_random<<<1024, 256>>>(kv.back().as<std::uint16_t>(), kv_bytes / 2, 991u + r, fp8, 1.0f);
      HIP_CHECK_LAUNCH();
    }
    DeviceBuffer out(out_elems * 4), ref(out_elems * 4);
    MlaDeviceArgs a;
    a.batch = c.batch;
    a.seq = c.seq;
    a.heads = c.heads;
    a.scale = 1.0f / std::sqrt(576.f);
    a.dt = c.dt;
    a.kv_scale = fp8 ? 0.01f : 1.0f;
    std::vector<float> h_ref(out_elems), h_out(out_elems);
    // Variants: the launcher's choice first (the others are compared with its output), then
    // v1's serial combine, fp8 through the other MMA type, and the other tile shapes.
    const MlaKernelChoice auto_choice = mla_plan(a);
    std::vector<std::pair<std::string, MlaKernelChoice>> vars = {{"auto", auto_choice}};
    if (auto_choice.splits > 1) {
      MlaKernelChoice v = auto_choice;
      v.combine = v.combine == 1 ? 2 : 1;
      vars.push_back({v.combine == 2 ? "auto combine2" : "auto combine1", v});
    }
    if (fp8) {
      MlaKernelChoice v = auto_choice;
      v.fp8_fp16 = !v.fp8_fp16;
      vars.push_back({v.fp8_fp16 ? "auto f16mma" : "auto bf16mma", v});
    }
    if (c.heads <= 16) {
      MlaKernelChoice v{1, 64, 2, 0};
      v.fp8_fp16 = auto_choice.fp8_fp16;
      if (auto_choice.block_n != 64) vars.push_back({"hg1 n64", v});
      MlaKernelChoice w{1, 32, 2, 0};
      w.fp8_fp16 = auto_choice.fp8_fp16;
      if (auto_choice.block_n != 32) vars.push_back({"hg1 n32", w});
      w.combine = 1;
      if (auto_choice.block_n != 32) vars.push_back({"hg1 n32 combine1", w});
    } else {
      MlaKernelChoice v{2, 32, 2, 0};
      v.fp8_fp16 = auto_choice.fp8_fp16;
      if (auto_choice.block_n != 32) vars.push_back({"hg2 n32", v});
    }
    // v3 (a pipeline per warp, decode_mla_slice.hip), every tile it has.
    for (const auto& [bn, ns] : fp8 ? std::vector<std::pair<int, int>>{{32, 2}, {32, 3}, {64, 2}}
                                    : std::vector<std::pair<int, int>>{{16, 2}, {16, 3}, {32, 2}}) {
      MlaKernelChoice v{1, bn, ns, 0};
      v.version = 3;
      if (auto_choice.version == 3 && auto_choice.block_n == bn && auto_choice.stages == ns)
        continue;
      vars.push_back({"v3 s" + std::to_string(ns), v});
    }
    for (int bn : {32, 64}) {  // v4: v3 with the softmax rows split over the warps
      MlaKernelChoice v{1, bn, 2, 0};
      v.version = 4;
      if (auto_choice.version == 4 && auto_choice.block_n == bn) continue;  // "auto" is it
      v.combine = mla_plan(a, v).splits >= 8 ? 2 : 1;  // as the plan picks for v1
      vars.push_back({"v4", v});
    }
    // v5 (64 heads a CTA on wgmma, 16-bit caches) where it is not the plan's choice, and v1's
    // 32-head tile where v5 is.
    if (!fp8 && mla_version_available(5)) {
      if (auto_choice.version != 5) {
        MlaKernelChoice v{4, 64, 2, 0};
        v.version = 5;
        v.combine = mla_plan(a, v).splits >= 8 ? 2 : 1;
        vars.push_back({"v5", v});
      } else {
        MlaKernelChoice v{2, 64, 2, 0};
        v.combine = mla_plan(a, v).splits >= 8 ? 2 : 1;
        vars.push_back({"v1 hg2 n64", v});
      }
    }
    // v6 (16 heads a CTA on wgmma, tokens as rows): every tile the plan did not take.
    if (!fp8 && c.heads <= 16 && mla_version_available(6)) {
      for (const auto& [bn, ns] :
           std::vector<std::pair<int, int>>{{64, 2}, {48, 3}, {32, 2}, {32, 4}}) {
        if (auto_choice.version == 6 && auto_choice.block_n == bn && auto_choice.stages == ns)
          continue;
        MlaKernelChoice v{1, bn, ns, 0};
        v.version = 6;
        v.combine = mla_plan(a, v).splits >= 8 ? 2 : 1;
        vars.push_back({"v6 n" + std::to_string(bn) + " s" + std::to_string(ns), v});
      }
      for (int sp : {1, 2, 3, 4, 8}) {  // the plan's tile with other split counts
        MlaKernelChoice v{1, 64, 2, sp};
        v.version = 6;
        v.combine = sp >= 8 ? 2 : 1;
        vars.push_back({"v6 n64 s2 sp" + std::to_string(sp), v});
      }
    }
    // v7 (v6's products for fp8 caches, e4m3 converted in registers): both stage counts, and
    // 2 stages with other split counts.
    if (fp8 && mla_version_available(7)) {
      for (int ns : {2, 3}) {
        if (auto_choice.version == 7 && auto_choice.stages == ns) continue;
        MlaKernelChoice v{1, 64, ns, 0};
        v.version = 7;
        v.combine = mla_plan(a, v).splits >= 8 ? 2 : 1;
        vars.push_back({"v7 s" + std::to_string(ns), v});
      }
      for (int sp : {1, 2, 4}) {
        MlaKernelChoice v{1, 64, 2, sp};
        v.version = 7;
        v.combine = 1;
        vars.push_back({"v7 s2 sp" + std::to_string(sp), v});
      }
    }
    for (const auto& [label, v0] : vars) {
      const bool deflt = label == "auto";
      if (!deflt && label.find(var_filter) == std::string::npos) continue;
      const MlaKernelChoice v = v0;
      try {
        DeviceBuffer ws(mla_workspace_bytes(a, v));
        a.workspace = ws.get();
        a.q = q[0].get();
        a.kv = kv[0].get();
        a.out = out.as<float>();
        HIP_CHECK(hipMemset(out.get(), 0xff, out_elems * 4));  // NaN poison
        launch_mla_decode(a, v);
        HIP_CHECK(hipDeviceSynchronize());
        HIP_CHECK(hipMemcpy(h_out.data(), out.get(), out_elems * 4, hipMemcpyDeviceToHost));
        double maxdiff = 0;
        if (deflt) {
          h_ref = h_out;
          for (float f : h_out)
            if (!std::isfinite(f)) maxdiff = INFINITY;
        } else {
          for (std::size_t i = 0; i < out_elems; ++i) {
            const double d = std::fabs(double(h_out[i]) - h_ref[i]);
            maxdiff = std::isnan(d) ? INFINITY : std::max(maxdiff, d);
          }
        }
        hipEvent_t e0, e1;
        HIP_CHECK(hipEventCreate(&e0));
        HIP_CHECK(hipEventCreate(&e1));
        std::vector<float> t;
        for (int r = 0; r < runs + 5; ++r) {
          a.q = q[r % rot].get();
          a.kv = kv[r % rot].get();
          HIP_CHECK(hipEventRecord(e0));
          launch_mla_decode(a, v);
          HIP_CHECK(hipEventRecord(e1));
          HIP_CHECK(hipEventSynchronize(e1));
          float ms = 0;
          HIP_CHECK(hipEventElapsedTime(&ms, e0, e1));
          if (r >= 5) t.push_back(ms * 1000.f);
        }
        HIP_CHECK(hipEventDestroy(e0));
        HIP_CHECK(hipEventDestroy(e1));
        const double med = median(t);
        const double bytes = double(kv_bytes) + q_elems * 2.0 + out_elems * 4.0;
        const double flops = 2.0 * c.batch * c.heads * double(c.seq) * (576 + 512);
        char vname[64];
        std::snprintf(vname, sizeof vname, "%s: v%d hg%d n%d s%d%s", label.c_str(), v.version,
                      v.head_groups, v.block_n, v.stages, fp8 && v.fp8_fp16 ? " f16" : "");
        const MlaKernelChoice used = mla_plan(a, v);
        std::printf("%-22s %-5s %-34s %6d %10.1f %10.1f %10.1f %8.0f %7.1f %8.1f %10.2e\n", c.name,
                    std::string(attn::dtype_name(c.dt)).c_str(), vname, used.splits, med,
                    *std::min_element(t.begin(), t.end()), *std::max_element(t.begin(), t.end()),
                    bytes / (med * 1e-6) / 1e9, 100.0 * bytes / (med * 1e-6) / 1e9 / probe,
                    flops / (med * 1e-6) / 1e12, maxdiff);
        std::fflush(stdout);
      } catch (const std::exception& e) {
        std::printf("%-22s variant %s: ERROR %s\n", c.name, label.c_str(), e.what());
      }
    }
  }
  return 0;
}
