// Host API of the GPU decode kernels. Pure C++ header: no HIP or CUDA types cross it, so the
// CLI, the explorer and the tests include it in every build. In a build without GPU support
// every call throws DeviceError("this build has no GPU support") and query_device() reports
// available = false.
//
// All tensors here are host float32 in the layouts of docs/DESIGN.md section 2; the API
// uploads them converted to the requested storage dtype (bf16, fp16, fp8 e4m3 KV with one
// float32 scale per tensor, or mxfp4 KV for the ragged MLA decode; bf16 queries with fp8 and
// mxfp4), runs, and downloads float32 results. Benchmarks use
// GpuWorkspace to keep data resident.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "attention/dtype.h"
#include "attention/reference.h"

namespace kern {

struct DeviceInfo {
  bool available = false;
  std::string reason;       // why not available ("no GPU found", "built without GPU support")
  std::string name;         // "NVIDIA H200"
  std::string vendor;       // "nvidia" / "amd"
  std::string arch;         // "sm_90", "gfx942"
  std::string driver;       // driver version string
  std::string runtime;      // "CUDA 13.0" / "HIP 6.x"
  int multiprocessors = 0;  // SMs / CUs
  int warp_size = 0;        // asked of the device, never assumed
  std::uint64_t total_memory = 0;
  std::uint64_t free_memory = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t shared_per_block = 0;  // the most shared memory (LDS) one block may use
};

bool gpu_compiled();        // built with CUDA or HIP
DeviceInfo query_device();  // never throws

// Grouped decode (MHA/MQA/GQA/SWA): q [B, Hq, D], k/v [B, S, Hkv, D|Dv], lens [B] or nullptr,
// out [B, Hq, Dv]. dt: kBf16, kFp16 or kFp8 (KV in e4m3, q in bf16). Throws DeviceError.
// launches > 1 runs the decode that many times on the same workspace, the output poisoned
// before each, and returns the last (tests: what a launch leaves behind for the next).
void gpu_decode_grouped(const attn::GroupedDecodeShape& s, const float* q, const float* k,
                        const float* v, const std::int64_t* lens, float* out, attn::DType dt,
                        int launches = 1);
// MLA absorbed decode: q [B, H, Dl + Dr], kv [B, S, Dl + Dr], out [B, H, Dl]. dt: kBf16, kFp16,
// kFp8, or kMxfp4 (through gpu_decode_mla_ragged, one new token a sequence).
void gpu_decode_mla(const attn::MlaDecodeShape& s, const float* q, const float* kv,
                    const std::int64_t* lens, float* out, attn::DType dt);
// MLA absorbed decode over ragged sequences (AMD's MI355X layout; attn::decode_mla_ragged):
// q [total_q, H, Dl + Dr], kv [total_kv, Dl + Dr], each sequence's rows and new tokens in `seqs`
// (attn::mla_sequences_from_indptr for a packed batch), out [total_q, H, Dl] (rows no sequence
// owns are 0). dt: kBf16, kFp16, kFp8 (per-tensor scale) or kMxfp4 (attention/mxfp4.h; q bf16).
// splits 0 = the plan's choice. Throws InputError for sequences that break those rules.
void gpu_decode_mla_ragged(const attn::MlaRaggedShape& s, const float* q, std::int64_t total_q,
                           const float* kv, std::int64_t total_kv,
                           const std::vector<attn::MlaSequence>& seqs, float* out, attn::DType dt,
                           int splits = 0);

}  // namespace kern
