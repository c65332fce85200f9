// GPU faults: a case bigger than the card fails with an out-of-memory error that names
// the memory, the device stays usable for the next case, and the CLI turns it into exit 3 with
// one error line. Runs only on a GPU machine (the GPU tests' main exits 77 elsewhere).
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdlib>
#include <cstdio>
#include <string>

#include "attention/error.h"
#include "kernels/bench.h"
#include "kernels/gpu.h"

namespace {

// A GQA case whose cache is far bigger than any card: 256 x 2^20 tokens x 8 heads x 128 x 2
// (K and V) x 2 bytes = 1 TiB.
kern::BenchCase too_big_case() {
  kern::BenchCase c;
  c.variant = attn::Variant::kGqa;
  c.batch = 256;
  c.seq = std::int64_t(1) << 20;
  c.q_heads = 32;
  c.kv_heads = 8;
  c.head_dim = 128;
  c.dtype = attn::DType::kBf16;
  return c;
}

kern::BenchCase small_case() {
  kern::BenchCase c;
  c.variant = attn::Variant::kGqa;
  c.batch = 2;
  c.seq = 97;
  c.q_heads = 9;
  c.kv_heads = 3;
  c.head_dim = 64;
  c.dtype = attn::DType::kBf16;
  return c;
}

}  // namespace

TEST_CASE("gpu faults: a case bigger than the card is an error, and the next case still runs",
          "[gpu][faults]") {
  const kern::DeviceInfo info = kern::query_device();
  REQUIRE(info.available);
  const kern::BenchCase big = too_big_case();
  INFO("device " << info.name << ", " << info.total_memory << " bytes; case needs "
                 << big.kv_bytes() << " bytes of cache");
  REQUIRE(big.kv_bytes() > info.total_memory);
  kern::BenchOptions opt;
  opt.device = kern::BenchDevice::kGpu;
  opt.min_runs = 3;
  opt.min_seconds = 0.01;
  kern::BenchReport rep;
  REQUIRE_NOTHROW(rep = kern::run_bench({big, small_case()}, opt));
  REQUIRE(rep.results.size() == 2);
  INFO("error of the big case: " << rep.results[0].error);
  CHECK_FALSE(rep.results[0].error.empty());
  CHECK_FALSE(rep.results[0].checked);
  CHECK(rep.results[0].error.find("memory") != std::string::npos);
  INFO("error of the small case: " << rep.results[1].error);
  CHECK(rep.results[1].error.empty());
  CHECK(rep.results[1].checked);
  CHECK(rep.results[1].median_us > 0);
}

#ifdef ATTNLAB_EXE
TEST_CASE("gpu faults: attnlab bench with a case bigger than the card exits 3 with one line",
          "[gpu][faults][cli]") {
  REQUIRE(kern::query_device().available);
  // ATTNLAB_EXE in the environment overrides the build-time path (tests built on one machine
  // and run on another, e.g. the GPU machine).
  const char* env_exe = std::getenv("ATTNLAB_EXE");
  const std::string exe = env_exe && *env_exe ? env_exe : ATTNLAB_EXE;
  const std::string cmd = exe +
                          " bench --device gpu --variant gqa --batch 256 --seq 1048576"
                          " --q-heads 32 --kv-heads 8 --head-dim 128 --dtype bf16"
                          " 2>&1 >/dev/null";
  std::FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string err;
  std::array<char, 512> buf{};
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), p) != nullptr) err += buf.data();
  const int status = ::pclose(p);
  INFO("stderr: " << err);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
  CHECK(err.rfind("attnlab: error: ", 0) == 0);
  CHECK(err.find('\n') == err.size() - 1);  // one line
}
#endif
