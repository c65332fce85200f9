#!/usr/bin/env bash
# The results call: build, `attnlab bench --device gpu --suite peers`, then the [gpu] tests.
# Run from the copied worktree on the GPU machine; outputs under $OUT.
set -uo pipefail
COMMIT=${1:-unknown}
DEPS=$PWD/../.deps/usr
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $OUT/smi.txt 2>&1
cmake -S . -B /tmp/bfin -G Ninja -DCMAKE_PREFIX_PATH=$DEPS -DATTNLAB_GUI=off -DATTNLAB_GPU=cuda \
  -DATTNLAB_CUDA_ARCH=90 -DATTNLAB_GIT_COMMIT=$COMMIT > $OUT/build.log 2>&1
cmake --build /tmp/bfin -j16 --target attnlab attnlab_gpu_tests >> $OUT/build.log 2>&1 || { tail -40 $OUT/build.log; exit 1; }
echo "== bench"
timeout 200 /tmp/bfin/attnlab bench --device gpu --suite peers --json $OUT/peers.json 2> $OUT/bench.err
echo "bench rc=$?"; tail -3 $OUT/bench.err
python3 - $OUT/peers.json <<'PY' || true
import json, sys
d = json.load(open(sys.argv[1]))
print("probe", d["device"].get("probe_gbps"))
for r in d["results"]:
    print("%-44s %9.2f %8.0f %6.1f%% peer %7.1f err %.1e %s %s" % (r.get("label", r["variant"]), r["median_us"], r["gbps"],
          100 * r["gbps"] / d["device"]["probe_gbps"], r.get("peer_us", 0), r["max_abs_err"], r["checked"], r.get("error", "")))
PY
echo "== tests"; timeout 150 /tmp/bfin/tests/attnlab_gpu_tests 2>&1 | tee $OUT/tests.log | tail -6
