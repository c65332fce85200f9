// The CPU streaming-read probe that `bench` reports beside the CPU decode's GB/s. Only its
// contract is tested (a positive, finite rate for any thread count, including more threads
// than the buffer has slices): the figure itself is a measurement, not a test.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/cpu_probe.h"

TEST_CASE("cpu read probe returns a positive finite rate for any thread count", "[bench]") {
  for (int threads : {1, 2, 3, 0}) {
    INFO("threads " << threads);
    const double gbps = kern::cpu_read_probe_gbps(threads, std::size_t(8) << 20);
    CHECK(std::isfinite(gbps));
    CHECK(gbps > 0);
  }
  // A buffer smaller than one slice per thread is enlarged, never divided into nothing.
  CHECK(kern::cpu_read_probe_gbps(64, 16) > 0);
}
