// Main of attnlab_gpu_tests: runs the [gpu] tests where a GPU is usable, and otherwise exits
// 77 (CTest's "skipped") with a line saying why.
#include "tests/catch_run.h"

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
  return catch_run(argc, argv);
}
