// Benchmark suites: the peers table, GPU MODE's MI355X MLA decode cases, and the sweep
// the explorer plots. Peer figures are the ones published in the issue, measured on one H200 in
// bf16: the best of PyTorch 2.11 SDPA flash/cuDNN/efficient for the grouped rows, SGLang's Triton
// decode kernel or plain PyTorch for MLA.
#include <cmath>
#include <string>
#include <vector>

#include "attention/error.h"
#include "kernels/bench.h"

namespace kern {
namespace {

using attn::DType;
using attn::Variant;

constexpr const char* kSdpa = "PyTorch 2.11 SDPA (best of flash/cuDNN/efficient), H200";
constexpr const char* kSdpaSliced = "PyTorch 2.11 SDPA flash on a pre-sliced cache, H200";
constexpr const char* kTriton = "SGLang Triton decode kernel, H200";
constexpr const char* kTorch = "PyTorch (plain), H200";

BenchCase grouped(Variant v, int hq, int hkv, int d, std::int64_t b, std::int64_t s, int w = 0) {
  BenchCase c;
  c.variant = v;
  c.q_heads = hq;
  c.kv_heads = hkv;
  c.head_dim = d;
  c.batch = b;
  c.seq = s;
  c.window = w;
  c.dtype = DType::kBf16;
  return c;
}

BenchCase mla(int heads, std::int64_t b, std::int64_t s, DType dt = DType::kBf16) {
  BenchCase c;
  c.variant = Variant::kMla;
  c.q_heads = heads;
  c.kv_heads = 1;
  c.latent_dim = 512;
  c.rope_dim = 64;
  c.head_dim = 576;
  c.batch = b;
  c.seq = s;
  c.scale = attn::default_scale(576);
  c.dtype = dt;
  return c;
}

BenchCase with_peer(BenchCase c, std::string label, double peer_us, const char* peer) {
  c.label = std::move(label);
  c.peer_us = peer_us;
  c.peer_name = peer;
  return c;
}

std::vector<BenchCase> peers() {
  const Variant G = Variant::kGqa, Q = Variant::kMqa, M = Variant::kMha, W = Variant::kSwa;
  return {
      with_peer(grouped(G, 32, 8, 128, 1, 4096), "peers: GQA 32/8x128 B1 S4096", 16.9, kSdpa),
      with_peer(grouped(G, 32, 8, 128, 16, 4096), "peers: GQA 32/8x128 B16 S4096", 76.5, kSdpa),
      with_peer(grouped(G, 32, 8, 128, 64, 8192), "peers: GQA 32/8x128 B64 S8192", 493, kSdpa),
      with_peer(grouped(G, 32, 8, 128, 1, 131072), "peers: GQA 32/8x128 B1 S131072", 139, kSdpa),
      with_peer(grouped(Q, 32, 1, 128, 16, 4096), "peers: MQA 32/1x128 B16 S4096", 55.7, kSdpa),
      with_peer(grouped(Q, 32, 1, 128, 64, 8192), "peers: MQA 32/1x128 B64 S8192", 84.4, kSdpa),
      with_peer(grouped(M, 32, 32, 128, 16, 4096), "peers: MHA 32x128 B16 S4096", 255, kSdpa),
      with_peer(grouped(M, 32, 32, 128, 1, 131072), "peers: MHA 32x128 B1 S131072", 490, kSdpa),
      with_peer(grouped(W, 32, 8, 128, 16, 32768, 4096), "peers: SWA 32/8x128 W4096 B16 S32768",
                83.3, kSdpaSliced),
      with_peer(mla(16, 64, 8192), "peers: MLA H16 B64 S8192", 305, kTriton),
      with_peer(mla(128, 64, 8192), "peers: MLA H128 B64 S8192", 977, kTorch),
      with_peer(mla(16, 256, 8192), "peers: MLA H16 bs256 kv8192 (GPU MODE)", 1141, kTriton),
      with_peer(mla(16, 4, 1024), "peers: MLA H16 bs4 kv1024 (GPU MODE)", 19.6, kTriton),
  };
}

// GPU MODE's MI355X "amd-mixed-mla" decode cases: bs x kv, 16 heads, 576/512, 1/sqrt(576).
std::vector<BenchCase> amd_mixed_mla() {
  std::vector<BenchCase> out;
  for (DType dt : {DType::kBf16, DType::kFp8}) {
    for (std::int64_t bs : {4, 32, 64, 256}) {
      for (std::int64_t kv : {1024, 8192}) {
        BenchCase c = mla(16, bs, kv, dt);
        c.label = "amd-mixed-mla: bs" + std::to_string(bs) + " kv" + std::to_string(kv) + " " +
                  std::string(attn::dtype_name(dt));
        // The two rows the peers table has a figure for (bf16, H200).
        if (dt == DType::kBf16 && bs == 256 && kv == 8192) {
          c.peer_us = 1141;
          c.peer_name = kTriton;
        } else if (dt == DType::kBf16 && bs == 4 && kv == 1024) {
          c.peer_us = 19.6;
          c.peer_name = kTriton;
        }
        out.push_back(c);
      }
    }
  }
  return out;
}

// AMD's MI355X MLA-decode problem as it now states it (AMD-AIM reference-kernels,
// problems/amd/mla): bs {4, 8, 16, 32, 64, 128} x kv {1024, 8192} x {bf16, fp8, mxfp4}, 16
// heads of 576 / 512, one new token a sequence; AMD ranks by the geometric mean of the 36 times.
std::vector<BenchCase> amd_mla() {
  std::vector<BenchCase> out;
  for (DType dt : {DType::kBf16, DType::kFp8, DType::kMxfp4})
    for (std::int64_t bs : {4, 8, 16, 32, 64, 128})
      for (std::int64_t kv : {1024, 8192}) {
        BenchCase c = mla(16, bs, kv, dt);
        c.label = "amd-mla: bs" + std::to_string(bs) + " kv" + std::to_string(kv) + " " +
                  std::string(attn::dtype_name(dt));
        out.push_back(c);
      }
  return out;
}

// How the kernels got where they are: every version that can still be selected, on the shapes
// each family was tuned on. Grouped v1-v3 are caps (the plan's best up to vN), v4 and v5 forced;
// MLA versions are forced with their default tile. A version a device lacks reports so.
std::vector<BenchCase> worklog() {
  struct Version {
    int v;
    const char* changed;
  };
  const std::vector<Version> grouped_versions = {
      {1, "one block per (split, q head, b), scalar loads: the generic baseline"},
      {2, "K and V tiles in shared memory read by all heads of a slice, 16-byte loads"},
      {3, "both products on mma.sync tensor cores, K and V straight from global memory"},
      {4, "v3's loop fed by a cp.async pipeline per warp"},
      {5, "up to 64 heads a CTA on Hopper's wgmma, a 3-stage 64-key pipeline"},
      {6, "AMD's matrix-unit kernel (matrix_ops.h), here on mma.sync through shared memory"}};
  const std::vector<Version> mla_versions = {
      {1, "16 or 32 heads a CTA on mma.sync, a CTA-wide cp.async pipeline"},
      {3, "a cp.async pipeline per warp over its own columns, one barrier a block"},
      {4, "v3 with the softmax rows split over the warps, e4m3 converted in registers"},
      {5, "64 heads a CTA on wgmma, two warpgroups splitting P V"},
      {6, "<= 16 heads a CTA on wgmma, 64 tokens as the rows of both products"},
      {7, "v6 for e4m3 caches: Q K^T as e4m3 x e4m3, V to fp16 in registers"}};
  std::vector<BenchCase> out;
  const auto add = [&](BenchCase c, const std::string& shape, const std::vector<Version>& vs) {
    for (const Version& v : vs) {
      BenchCase x = c;
      x.kernel_version = v.v;
      x.label = "worklog: " + shape + " | v" + std::to_string(v.v) + " | " + v.changed;
      out.push_back(x);
    }
  };
  add(grouped(Variant::kGqa, 32, 8, 128, 16, 4096), "GQA 32/8x128 B16 S4096", grouped_versions);
  add(grouped(Variant::kMqa, 32, 1, 128, 16, 4096), "MQA 32/1x128 B16 S4096", grouped_versions);
  add(grouped(Variant::kGqa, 32, 8, 128, 1, 131072), "GQA 32/8x128 B1 S131072", grouped_versions);
  const std::vector<Version> mla16(mla_versions.begin(), mla_versions.end() - 1);  // no v7
  add(mla(16, 64, 8192), "MLA H16 B64 S8192 bf16", mla16);
  add(mla(128, 64, 8192), "MLA H128 B64 S8192 bf16",
      {mla_versions[0], mla_versions[1], mla_versions[2], mla_versions[3]});
  add(mla(16, 256, 8192, DType::kFp8), "MLA H16 bs256 kv8192 fp8",
      {mla_versions[0], mla_versions[1], mla_versions[2], mla_versions[5]});
  return out;
}

// What the latency panel plots: latency and GB/s against S (at B = 1) and against B (at
// S = 4096), for GQA 32/8x128 and MLA H16 512+64. 2 x (10 + 8) = 36 cases.
std::vector<BenchCase> sweep() {
  std::vector<BenchCase> out;
  const std::vector<std::int64_t> seqs = {256,  512,   1024,  2048,  4096,
                                          8192, 16384, 32768, 65536, 131072};
  const std::vector<std::int64_t> batches = {2, 4, 8, 16, 32, 64, 128, 256};  // B1 is in seqs
  for (int which = 0; which < 2; ++which) {
    const bool is_mla = which == 1;
    const std::string name = is_mla ? "MLA H16" : "GQA 32/8x128";
    auto make = [&](std::int64_t b, std::int64_t s) {
      BenchCase c = is_mla ? mla(16, b, s) : grouped(Variant::kGqa, 32, 8, 128, b, s);
      c.label = "sweep: " + name + " B" + std::to_string(b) + " S" + std::to_string(s);
      return c;
    };
    for (std::int64_t s : seqs) out.push_back(make(1, s));
    for (std::int64_t b : batches) out.push_back(make(b, 4096));
  }
  return out;
}

}  // namespace

std::vector<std::string> suite_names() {
  return {"peers", "amd-mixed-mla", "amd-mla", "sweep", "worklog"};
}

std::vector<BenchCase> suite_cases(const std::string& name) {
  if (name == "peers") return peers();
  if (name == "amd-mixed-mla") return amd_mixed_mla();
  if (name == "amd-mla") return amd_mla();
  if (name == "worklog") return worklog();
  if (name == "sweep") return sweep();
  throw attn::InputError(
      "--suite: expected one of peers, amd-mixed-mla, amd-mla, sweep, worklog, found '" + name +
      "'");
}

}  // namespace kern
