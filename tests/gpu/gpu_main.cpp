// Main of attnlab_gpu_tests: runs the [gpu] tests where a GPU is usable, and otherwise exits
// 77 (CTest's "skipped") with a line saying why.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "kernels/gpu.h"

int main(int argc, char** argv) {
  const kern::DeviceInfo d = kern::query_device();
  if (!d.available) {
    std::printf("SKIPPED: no GPU (%s)\n", d.reason.c_str());
    return 77;
  }
  std::printf("GPU: %s (%s, %d multiprocessors, warp %d, %s, driver %s)\n", d.name.c_str(),
              d.arch.c_str(), d.multiprocessors, d.warp_size, d.runtime.c_str(), d.driver.c_str());
  return Catch::Session().run(argc, argv);
}
