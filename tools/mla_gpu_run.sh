#!/usr/bin/env bash
# One device call for the MLA kernel (kernels/decode_mla.hip): build, run the [mla] GPU tests,
# then time the kernel variants with tools/mla_timing.hip. Logs go to $OUT (or ./out).
#   tools/mla_gpu_run.sh [commit] [timing runs]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out}; mkdir -p "$out"
commit=${1:-unknown}; runs=${2:-30}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/env.txt"
deps=$PWD/../.deps/usr; [ -d "$deps" ] || deps=$PWD/.deps/usr
{ cmake -S . -B /tmp/b -G Ninja -DCMAKE_PREFIX_PATH="$deps" -DATTNLAB_GUI=off -DATTNLAB_GPU=cuda \
    -DATTNLAB_CUDA_ARCH=90 -DATTNLAB_GIT_COMMIT="$commit" &&
  cmake --build /tmp/b -j16 --target attnlab_gpu_tests attnlab_kernels &&
  nvcc -std=c++17 -O3 -arch=sm_90 -x cu --expt-relaxed-constexpr -I. tools/mla_timing.hip \
    /tmp/b/libattnlab_kernels.a /tmp/b/libattnlab_core.a -lpthread -o /tmp/mla_timing; } \
  >"$out/build.log" 2>&1 || { tail -60 "$out/build.log"; exit 1; }
echo "build ok"
timeout 300 /tmp/b/tests/attnlab_gpu_tests "[mla]" >"$out/test.log" 2>&1; rc=$?
tail -25 "$out/test.log"; echo "test rc=$rc"
timeout 240 /tmp/mla_timing "$runs" 2>&1 | tee "$out/timing.txt"
