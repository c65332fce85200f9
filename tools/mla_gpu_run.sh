#!/usr/bin/env bash
# One device call for the MLA kernel (kernels/decode_mla.hip): build, run the [mla] GPU tests,
# then time the kernel variants with tools/mla_timing.hip. Logs go to $OUT (or ./out).
#   tools/mla_gpu_run.sh [commit] [timing runs]
set -u
cd "$(dirname "$0")/.."
out=${OUT:-out}; mkdir -p "$out"
commit=${1:-unknown}; runs=${2:-30}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/env.txt"
# Binaries built on the workstation (tools/mla_gpu_run.sh is told where) save the device build;
# when they do not start there, everything is built here.
pre=${PREBUILT:-}
if [ -n "$pre" ] && LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib "$pre/attnlab_gpu_tests" --help >/dev/null 2>&1 && "$pre/mla_timing" --help >/dev/null 2>&1; then
  echo "using prebuilt binaries from $pre"
  mkdir -p /tmp/b/tests && cp "$pre/attnlab_gpu_tests" /tmp/b/tests/ && cp "$pre/mla_timing" /tmp/mla_timing
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
else
deps=$PWD/../.deps/usr; [ -d "$deps" ] || deps=$PWD/.deps/usr
{ cmake -S . -B /tmp/b -G Ninja -DCMAKE_PREFIX_PATH="$deps" -DATTNLAB_GUI=off -DATTNLAB_GPU=cuda \
    -DATTNLAB_CUDA_ARCH=90 -DATTNLAB_GIT_COMMIT="$commit" &&
  cmake --build /tmp/b -j16 --target attnlab_gpu_tests attnlab_kernels &&
  timeout 120 nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -I. -x cu -c \
    tools/mla_timing.hip -o /tmp/mla_timing.o &&
  nvcc -arch=sm_90 /tmp/mla_timing.o /tmp/b/libattnlab_kernels.a /tmp/b/libattnlab_core.a \
    -lpthread -o /tmp/mla_timing; } \
  2>&1 | head -c 1000000 >"$out/build.log"
[ -x /tmp/mla_timing ] || { tail -60 "$out/build.log"; exit 1; }
echo "build ok"
fi
timeout 300 /tmp/b/tests/attnlab_gpu_tests "[mla]" >"$out/test.log" 2>&1; rc=$?
tail -25 "$out/test.log"; echo "test rc=$rc"
timeout 240 /tmp/mla_timing "$runs" 2>&1 | tee "$out/timing.txt"
