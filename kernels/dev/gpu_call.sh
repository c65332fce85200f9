#!/usr/bin/env bash
# One call on the GPU machine (run from a copy of the worktree there, the headless build's Debian
# libraries beside it in .deps/usr): build attnlab, attnlab_gpu_tests and the dev tools once with
# the kernel diagnostics compiled in (-DATTNLAB_KERNEL_DIAG=ON; build kept in /tmp/bcall while
# the machine stays warm), then run the stages named in $STAGES, in order:
#   drv       attnlab_bench_driver on the peers' grouped rows (median, step in a graph, probe)
#   ncu       each grouped kernel's own duration and DRAM bytes under Nsight Compute
#   timeline  attnlab_grouped_timeline (v5 per-CTA times) on the two latency rows
#   small     override variants of the two latency rows (GQA B1 S4096, MQA B16 S4096)
#   pdl       the split combines as programmatic dependent launches against ATTNLAB_PDL=0
#   waves     the 268 MB rows split into several waves of CTAs against the plan's one wave
#   tests     attnlab_gpu_tests (filter in $TEST_FILTER, limit $TEST_LIMIT s, env in $TEST_ENV)
#   suites    attnlab bench --device gpu --suite peers|amd-mixed-mla|sweep --json
#   mla       attnlab_mla_timing on the fp8 kv8192 rows: the plan and the variants named in
#             $MLA_VARIANTS, then with its copies, Q K^T or P V left out (ATTNLAB_MLA_PROBE in
#             $MLA_PROBES, default 4 1 2)
# The diagnostics build runs the same production code paths: every diagnostic branch is off
# unless its ATTNLAB_* probe variable is set (kernels/diag.h). A stage whose budget no longer
# fits under $LIMIT seconds (default 560) is skipped and says so. Logs and JSON go under $OUT.
# Usage: STAGES="drv tests" bash kernels/dev/gpu_call.sh <commit of this tree>
set -uo pipefail
# The commit must be given: the GPU machine's copy of .git may not hold this tree's commits.
COMMIT=${1:?usage: STAGES="..." bash kernels/dev/gpu_call.sh <commit of this tree, from git rev-parse here>}
OUT=${OUT:-/tmp/out}
LIMIT=${LIMIT:-560}
DEPS=$PWD/.deps/usr
B=/tmp/bcall
LOG=$OUT/call.log
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } > $LOG 2>&1
if [ ! -x $B/attnlab_bench_driver ]; then
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$DEPS -DATTNLAB_GUI=off \
    -DATTNLAB_GPU=cuda -DATTNLAB_CUDA_ARCH=90 -DATTNLAB_KERNEL_DIAG=ON \
    -DATTNLAB_GIT_COMMIT=$COMMIT > $OUT/build.log 2>&1
  cmake --build $B -j16 --target attnlab attnlab_gpu_tests attnlab_dev_tools >> $OUT/build.log 2>&1 \
    || { tail -40 $OUT/build.log; exit 1; }
fi
DRV=$B/attnlab_bench_driver
echo "build done at ${SECONDS}s" | tee -a $LOG
fits() {  # fits NAME SECONDS
  if [ $((SECONDS + $2)) -gt "$LIMIT" ]; then echo "== $1 SKIPPED (${SECONDS}s used, needs $2)" | tee -a $LOG; return 1; fi
  echo "== $1 at ${SECONDS}s" | tee -a $LOG
}
small() {  # small LABEL-FILTER ENV...
  local f=$1; shift
  printf '%-44s ' "$*"; env ATTNLAB_DRV_READ=0 "$@" $DRV "$f" 2>&1 | sed -n 3p
}
for st in ${STAGES:-drv}; do
  case $st in
    drv) fits drv 120 && $DRV "${DRV_FILTER:-}" $OUT/drv.json $COMMIT 2>&1 | tee $OUT/drv.log ;;
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
    mla) fits mla 150 && {  # where MLA bs64 kv8192 fp8 loses its time against bs256 kv8192
      $B/attnlab_mla_timing 40 "kv8192 fp8" "${MLA_VARIANTS:-v7 s}" 2>&1
      for pr in ${MLA_PROBES:-4 1 2}; do echo "-- ATTNLAB_MLA_PROBE=$pr (maxdiff is against this run's own plan)"
        ATTNLAB_MLA_PROBE=$pr $B/attnlab_mla_timing 40 "kv8192 fp8" "${MLA_PROBE_VARIANTS:-none}" 2>&1 | grep -v "^read probe"; done; } 2>&1 | tee $OUT/mla.log ;;
    ncu) fits ncu 90 && {  # each kernel's own duration (no launch or event cost), first launches
      for f in "GQA B1 S4096" "MQA B16 S4096" "GQA B16 S4096"; do
        echo "-- $f"
        ATTNLAB_DRV_READ=0 timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum \
          -k regex:'grouped|combine' --launch-skip 2 --launch-count 4 $DRV "$f" 2>&1 \
          | grep -E "grouped|combine|gpu__time|dram__bytes|ERR|rror" | cut -c1-160
      done; } 2>&1 | tee $OUT/ncu.log ;;
    timeline) fits timeline 60 && {  # v5's per-CTA timeline on the two latency rows
      for e in "ATTNLAB_GROUPED_VERSION=5 ATTNLAB_GROUPED_STAGES=4" "ATTNLAB_GROUPED_VERSION=5"; do
        echo "-- GQA B1 S4096 $e"; env $e $B/attnlab_grouped_timeline 1 4096 32 8 2>&1 | grep -v "SMs (id"
      done
      echo "-- MQA B16 S4096"; $B/attnlab_grouped_timeline 16 4096 32 1 2>&1 | grep -v "SMs (id"; } 2>&1 | tee $OUT/timeline.log ;;
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
