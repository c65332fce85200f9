#!/usr/bin/env bash
# One device call (run from the copied worktree on the GPU machine, .deps carried; see the
# device tool's README): build attnlab, attnlab_gpu_tests and the tuning driver once (kept in
# /tmp/bcall while the machine stays warm), then the stages named in $STAGES, in order:
#   drv     tools/gpu_bench_driver on the peers' grouped rows (median, step in a graph, probe)
#   ncu     each grouped kernel's own duration and DRAM bytes under Nsight Compute
#   timeline  tools/grouped_timeline (v5 per-CTA times) on the two latency rows
#   small   env-knob variants of the two latency rows (GQA B1 S4096, MQA B16 S4096)
#   pdl     the split combines as programmatic dependent launches (the default) against ATTNLAB_PDL=0
#   (TEST_ENV="ATTNLAB_PDL=0" runs the tests stage with an environment)
#   waves   the 268 MB rows (SWA, MQA B64 S8192, GQA B16 S4096) split into several waves of CTAs
#   tests   attnlab_gpu_tests (filter in $TEST_FILTER, limit $TEST_LIMIT s)
#   suites  attnlab bench --device gpu --suite peers|amd-mixed-mla|sweep --json (~30 s each on the H200)
#   mqa     MQA B64 S8192 taken apart: its plan, one split, and MQA B128 S4096 (the same bytes
#           as 128 groups without a split) beside GQA B16 S4096
#   layout  268 MB as 128 groups of 4 or 32 heads, kv heads interleaved or contiguous
#   walk    v5's split CTAs interleaving their blocks (ATTNLAB_GROUPED_PROBE=2) against the plan
#   ticket  the ticket-first fused combine (ATTNLAB_GROUPED_TICKET=1) against the plan's
#   mla     tools/mla_timing on the fp8 kv8192 rows (bs64, bs256): the plan and the variants named
#           in $MLA_VARIANTS, then the kernel with its copies, Q K^T or P V left out
#           (ATTNLAB_MLA_PROBE in $MLA_PROBES, default 4 1 2; variants $MLA_PROBE_VARIANTS)
# A stage whose budget no longer fits under $LIMIT seconds (default 560) is skipped and says so.
# Logs and JSON go under $OUT. Usage: STAGES="drv tests" bash tools/gpu_call.sh <commit>
set -uo pipefail
# The commit must come from here: the device's copy of .git may not hold this checkout's
# latest commits (session 13: `git rev-parse HEAD` there named the landed base, not the tree).
COMMIT=${1:?usage: STAGES="..." bash tools/gpu_call.sh <commit of this tree, from git rev-parse here>}
OUT=${OUT:-/tmp/out}
LIMIT=${LIMIT:-560}
DEPS=$PWD/.deps/usr
B=/tmp/bcall
LOG=$OUT/call.log
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } > $LOG 2>&1
if [ ! -x /tmp/drv ]; then
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$DEPS -DATTNLAB_GUI=off \
    -DATTNLAB_GPU=cuda -DATTNLAB_CUDA_ARCH=90 -DATTNLAB_GIT_COMMIT=$COMMIT > $OUT/build.log 2>&1
  cmake --build $B -j16 --target attnlab attnlab_gpu_tests attnlab_kernels >> $OUT/build.log 2>&1 \
    || { tail -40 $OUT/build.log; exit 1; }
  nvcc -O2 -std=c++17 -I. -I$DEPS/include tools/gpu_bench_driver.cpp $B/libattnlab_kernels.a \
    $B/libattnlab_core.a -o /tmp/drv >> $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
fi
echo "build done at ${SECONDS}s" | tee -a $LOG
fits() {  # fits NAME SECONDS
  if [ $((SECONDS + $2)) -gt "$LIMIT" ]; then echo "== $1 SKIPPED (${SECONDS}s used, needs $2)" | tee -a $LOG; return 1; fi
  echo "== $1 at ${SECONDS}s" | tee -a $LOG
}
small() {  # small LABEL-FILTER ENV...
  local f=$1; shift
  printf '%-44s ' "$*"; env ATTNLAB_DRV_READ=0 "$@" /tmp/drv "$f" 2>&1 | sed -n 3p
}
for st in ${STAGES:-drv}; do
  case $st in
    drv) fits drv 120 && /tmp/drv "${DRV_FILTER:-}" $OUT/drv.json $COMMIT 2>&1 | tee $OUT/drv.log ;;
    small) fits small 120 && {
      V5="ATTNLAB_GROUPED_VERSION=5"
      for e in "" "$V5 ATTNLAB_GROUPED_STAGES=4 ATTNLAB_GROUPED_COMBINE=3" \
               "$V5 ATTNLAB_GROUPED_STAGES=3 ATTNLAB_GROUPED_SPLITS=16 ATTNLAB_GROUPED_COMBINE=3" \
               "$V5 ATTNLAB_GROUPED_STAGES=6 ATTNLAB_GROUPED_SPLITS=16 ATTNLAB_GROUPED_COMBINE=3" \
               "$V5 ATTNLAB_GROUPED_STAGES=4 ATTNLAB_GROUPED_SPLITS=8 ATTNLAB_GROUPED_COMBINE=3" \
               "$V5 ATTNLAB_GROUPED_STAGES=4"; do
        small "GQA B1 S4096" $e
      done
      for e in "" "ATTNLAB_GROUPED_COMBINE=1" "ATTNLAB_GROUPED_COMBINE=2" "ATTNLAB_GROUPED_STAGES=4" \
               "ATTNLAB_GROUPED_SPLITS=16 ATTNLAB_GROUPED_COMBINE=3" "ATTNLAB_GROUPED_SPLITS=4" \
               "ATTNLAB_GROUPED_STAGES=4 ATTNLAB_GROUPED_SPLITS=16 ATTNLAB_GROUPED_COMBINE=3" \
               "ATTNLAB_GROUPED_STAGES=4 ATTNLAB_GROUPED_SPLITS=8 ATTNLAB_GROUPED_COMBINE=3" \
               "ATTNLAB_GROUPED_STAGES=6 ATTNLAB_GROUPED_SPLITS=8 ATTNLAB_GROUPED_COMBINE=3"; do
        small "MQA B16 S4096" $e
      done
      for f in "GQA B4 S4096" "GQA B8 S4096"; do
        for e in "" "ATTNLAB_GROUPED_COMBINE=1" "ATTNLAB_GROUPED_COMBINE=2"; do small "$f" $e; done
      done
    } 2>&1 | tee $OUT/small.log ;;
    waves) fits waves 200 && {  # the 268 MB rows as several waves of split CTAs, against the plan's one wave
      for f in "SWA W4096" "MQA B64 S8192" "GQA B16 S4096"; do
        for e in "" "ATTNLAB_GROUPED_WGS=1 ATTNLAB_GROUPED_SPLITS=4 ATTNLAB_GROUPED_COMBINE=1" \
                 "ATTNLAB_GROUPED_WGS=1 ATTNLAB_GROUPED_SPLITS=4 ATTNLAB_GROUPED_COMBINE=2" \
                 "ATTNLAB_GROUPED_WGS=1 ATTNLAB_GROUPED_SPLITS=8 ATTNLAB_GROUPED_COMBINE=1" \
                 "ATTNLAB_GROUPED_WGS=1 ATTNLAB_GROUPED_SPLITS=8 ATTNLAB_GROUPED_COMBINE=2" \
                 "ATTNLAB_GROUPED_WGS=1 ATTNLAB_GROUPED_SPLITS=16 ATTNLAB_GROUPED_COMBINE=1" \
                 "ATTNLAB_GROUPED_WGS=2 ATTNLAB_GROUPED_SPLITS=4 ATTNLAB_GROUPED_COMBINE=1" \
                 "ATTNLAB_GROUPED_WGS=2 ATTNLAB_GROUPED_SPLITS=4 ATTNLAB_GROUPED_COMBINE=2" \
                 "ATTNLAB_GROUPED_WGS=2 ATTNLAB_GROUPED_SPLITS=8 ATTNLAB_GROUPED_COMBINE=1" \
                 "ATTNLAB_GROUPED_STAGES=4 ATTNLAB_GROUPED_SPLITS=8 ATTNLAB_GROUPED_COMBINE=1"; do
          small "$f" $e
        done
      done; } 2>&1 | tee $OUT/waves.log ;;
    pdl) fits pdl 120 && {  # the split combines as programmatic dependent launches, against plain ones
      for f in "MQA B16 S4096" "MHA B1 S131072" "GQA B1 S131072"; do
        for e in "" "ATTNLAB_PDL=0" "" "ATTNLAB_PDL=0"; do small "$f" $e; done
      done
      for m in "4 1024" "32 1024" "64 8192"; do
        set -- $m
        for e in "" "ATTNLAB_PDL=0" "" "ATTNLAB_PDL=0"; do
          printf '%-24s MLA bs%s kv%s ' "$e" $1 $2
          env $e $B/attnlab bench --device gpu --variant mla --batch $1 --seq $2 --q-heads 16 2>&1 | grep -E "^ *mla|gpu" | tail -1
        done
      done; } 2>&1 | tee $OUT/pdl.log ;;
    mqa) fits mqa 120 && {  # 8 cases of 268 MB, each checked on the CPU first
      for e in "" "ATTNLAB_GROUPED_SPLITS=1 ATTNLAB_GROUPED_WGS=2" "ATTNLAB_GROUPED_COMBINE=1" ""; do
        small "MQA B64 S8192" $e; done
      for i in 1 2; do small "MQA B128 S4096"; small "GQA B16 S4096"; done
    } 2>&1 | tee $OUT/mqa.log ;;
    layout) fits layout 200 && {  # 268 MB as 128 groups of 4 or 32 heads, kv heads interleaved
      # ([B, S, Hkv, D] with Hkv 8: 256-byte rows every 2 KB) or contiguous (Hkv 1): which of
      # the two makes MQA B128 S4096 slower than GQA B16 S4096 (session 16 call 7: 96.2 vs 93.2)
      for i in 1 2; do
        for c in "gqa 16 32 8" "gqa 16 256 8" "mqa 128 32 1" "gqa 128 4 1"; do
          set -- $c
          printf '%s B%s Hq%s Hkv%s  ' $1 $2 $3 $4
          $B/attnlab bench --device gpu --variant $1 --batch $2 --seq 4096 --q-heads $3 --kv-heads $4 2>&1 | grep -E "^(gqa|mqa)" | tail -1
        done
      done; } 2>&1 | tee $OUT/layout.log ;;
    walk) fits walk 150 && {  # the splits of a group interleaving their blocks (probe bit 2), A B A B
      V5="ATTNLAB_GROUPED_VERSION=5"
      for f in "MQA B64 S8192" "MQA B16 S4096" "GQA B1 S131072"; do
        for e in "" "ATTNLAB_GROUPED_PROBE=2" "" "ATTNLAB_GROUPED_PROBE=2"; do small "$f" $e; done
      done
      for e in "$V5 ATTNLAB_GROUPED_STAGES=4" "$V5 ATTNLAB_GROUPED_STAGES=4 ATTNLAB_GROUPED_PROBE=2" \
               "$V5 ATTNLAB_GROUPED_STAGES=4" "$V5 ATTNLAB_GROUPED_STAGES=4 ATTNLAB_GROUPED_PROBE=2" ""; do
        small "GQA B1 S4096" $e
      done
      W4="ATTNLAB_GROUPED_WGS=1 ATTNLAB_GROUPED_SPLITS=4"
      for e in "$W4 ATTNLAB_GROUPED_COMBINE=2" "$W4 ATTNLAB_GROUPED_COMBINE=2 ATTNLAB_GROUPED_PROBE=2" \
               "$W4 ATTNLAB_GROUPED_COMBINE=1 ATTNLAB_GROUPED_PROBE=2" ""; do
        small "MQA B64 S8192" $e
      done; } 2>&1 | tee $OUT/walk.log ;;
    ticket) fits ticket 120 && {  # the ticket-first fused combine against the plan's, A B A B
      T="ATTNLAB_GROUPED_TICKET=1"
      for f in "MQA B64 S8192" "GQA B1 S4096" "GQA B1 S131072" "GQA B4 S4096"; do
        for e in "" "$T" "" "$T"; do small "$f" $e; done
      done
      small "GQA B1 S131072" $T ATTNLAB_GROUPED_PROBE=2
      small "GQA B1 S4096" ATTNLAB_GROUPED_VERSION=5 ATTNLAB_GROUPED_STAGES=4
      small "GQA B1 S4096" ATTNLAB_GROUPED_VERSION=5 ATTNLAB_GROUPED_STAGES=4 $T
    } 2>&1 | tee $OUT/ticket.log ;;
    mla) fits mla 150 && {  # where MLA bs64 kv8192 fp8 loses its time against bs256 kv8192
      nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -I. -x cu -c tools/mla_timing.hip -o /tmp/mt.o &&
        nvcc -arch=sm_90 /tmp/mt.o $B/libattnlab_kernels.a $B/libattnlab_core.a -lpthread -o /tmp/mt || exit 1
      /tmp/mt 40 "kv8192 fp8" "${MLA_VARIANTS:-v7 s}" 2>&1
      for pr in ${MLA_PROBES:-4 1 2}; do echo "-- ATTNLAB_MLA_PROBE=$pr (maxdiff is against this run's own plan)"
        ATTNLAB_MLA_PROBE=$pr /tmp/mt 40 "kv8192 fp8" "${MLA_PROBE_VARIANTS:-none}" 2>&1 | grep -v "^read probe"; done; } 2>&1 | tee $OUT/mla.log ;;
    ncu) fits ncu 90 && {  # each kernel's own duration (no launch or event cost), first launches
      for f in "GQA B1 S4096" "MQA B16 S4096" "GQA B16 S4096"; do
        echo "-- $f"
        ATTNLAB_DRV_READ=0 timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum \
          -k regex:'grouped|combine' --launch-skip 2 --launch-count 4 /tmp/drv "$f" 2>&1 \
          | grep -E "grouped|combine|gpu__time|dram__bytes|ERR|rror" | cut -c1-160
      done; } 2>&1 | tee $OUT/ncu.log ;;
    timeline) fits timeline 60 && {  # v5's per-CTA timeline on the two latency rows
      nvcc -std=c++17 -O3 -arch=sm_90 -I. -x cu -c tools/grouped_timeline.hip -o /tmp/tl.o &&
        nvcc -arch=sm_90 /tmp/tl.o $B/libattnlab_kernels.a $B/libattnlab_core.a -o /tmp/tl || exit 1
      for e in "ATTNLAB_GROUPED_VERSION=5 ATTNLAB_GROUPED_STAGES=4" "ATTNLAB_GROUPED_VERSION=5"; do
        echo "-- GQA B1 S4096 $e"; env $e /tmp/tl 1 4096 32 8 2>&1 | grep -v "SMs (id"
      done
      echo "-- MQA B16 S4096"; /tmp/tl 16 4096 32 1 2>&1 | grep -v "SMs (id"; } 2>&1 | tee $OUT/timeline.log ;;
    tests) fits tests "${TEST_LIMIT:-300}" && {
      eval env ${TEST_ENV:-} timeout "${TEST_LIMIT:-300}" $B/tests/attnlab_gpu_tests ${TEST_FILTER:-} > $OUT/tests.log 2>&1
      echo "tests rc=$?"; tail -4 $OUT/tests.log; } 2>&1 | tee -a $LOG ;;
    suites) for s in ${SUITES:-peers amd-mixed-mla sweep}; do
      fits "suite $s" ${SUITE_BUDGET:-60} && { timeout 200 $B/attnlab bench --device gpu --suite $s --json $OUT/$s.json 2> $OUT/$s.err
        echo "suite $s rc=$?"; tail -2 $OUT/$s.err; } 2>&1 | tee -a $LOG
    done ;;
    *) echo "unknown stage $st" ;;
  esac
done
echo "done at ${SECONDS}s" | tee -a $LOG
