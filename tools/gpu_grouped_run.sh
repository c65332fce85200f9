#!/usr/bin/env bash
# One device call for the grouped kernels (run from the copied worktree on the GPU machine):
# build, [gpu] tests, the tuning driver, split sweeps; logs under $OUT.
set -uo pipefail
COMMIT=${1:-unknown}
OUT=${OUT:-/tmp/out}
DEPS=$PWD/../.deps/usr
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $OUT/smi.txt 2>&1
cmake -S . -B /tmp/bgg -G Ninja -DCMAKE_PREFIX_PATH=$DEPS -DATTNLAB_GUI=off -DATTNLAB_GPU=cuda \
  -DATTNLAB_CUDA_ARCH=90 -DATTNLAB_GIT_COMMIT=$COMMIT > $OUT/build.log 2>&1
cmake --build /tmp/bgg -j16 --target attnlab_gpu_tests attnlab_kernels >> $OUT/build.log 2>&1 || { tail -40 $OUT/build.log; exit 1; }
nvcc -std=c++17 -I. -I$DEPS/include tools/gpu_bench_driver.cpp /tmp/bgg/libattnlab_kernels.a /tmp/bgg/libattnlab_core.a -o /tmp/drv >> $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
echo "== tests"; timeout 200 /tmp/bgg/tests/attnlab_gpu_tests 2>&1 | tee $OUT/tests.log | tail -15
echo "== bench"; /tmp/drv "${2:-}" $OUT/peers_grouped.json $COMMIT 2>&1 | tee $OUT/bench.log
for sp in ${SPLITS:-}; do
  echo "== splits $sp"; ATTNLAB_GROUPED_SPLITS=$sp /tmp/drv "${SPLIT_FILTER:-B1 S}" 2>&1 | tail -n +3 | tee -a $OUT/splits.log
done
