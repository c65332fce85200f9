#!/usr/bin/env bash
# Builds the libFuzzer targets (build-fuzz/, Debian's clang, fuzzer + ASan + UBSan) and runs
# each for a given time, then prints executions and crashes per target.
#   tools/fuzz.sh all 15              every target for 15 s (2 at a time: FUZZ_PARALLEL=2)
#   tools/fuzz.sh fuzz_npy 3600       one target for an hour (or a list: fuzz_npy,fuzz_hf_config)
#   FUZZ_FORK=4 tools/fuzz.sh all 420  each target as one campaign over 4 worker processes
#                                      (libFuzzer -fork; executions are the campaign's total)
# Corpora grow in build-fuzz/fuzz-corpus/TARGET (seeded from assets/ and the NPY writer each
# run); crashes land in build-fuzz/fuzz-crashes/TARGET/ (reproduce: build-fuzz/tests/fuzz/TARGET FILE).
# Exit status: 0 when every target ran and none crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-all}
secs=${2:-15}
parallel=${FUZZ_PARALLEL:-2}
bdir=${ATTNLAB_FUZZ_BUILD:-build-fuzz}
command -v clang++ >/dev/null || { echo "fuzz: FAILED (clang++ not found: apt-get install clang libclang-rt-14-dev)"; exit 1; }

launcher=()
mkdir -p "$bdir"
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ ! -f "$bdir/CMakeCache.txt" ]; then
  gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  cmake -S . -B "$bdir" "${gen[@]}" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DATTNLAB_FUZZ=ON -DATTNLAB_GUI=off -DATTNLAB_GPU=off -DBUILD_TESTING=OFF "${launcher[@]}" \
    >"$bdir/fuzz-configure.log" 2>&1 || { cat "$bdir/fuzz-configure.log"; echo "fuzz: FAILED (configure)"; exit 1; }
else
  cmake "$bdir" >"$bdir/fuzz-configure.log" 2>&1 || { cat "$bdir/fuzz-configure.log"; echo "fuzz: FAILED (configure)"; exit 1; }
fi
# The fuzz targets, from the generator's help target (Make: "... fuzz_npy", Ninja: "fuzz_npy: phony").
all_targets=$(cmake --build "$bdir" --target help |
  sed -n -e 's/^\.\.\. \(fuzz_[a-z_]*\).*/\1/p' -e 's/^\(fuzz_[a-z_]*\): phony$/\1/p' | sort -u)
if [ "$target" = all ]; then targets=$all_targets; else targets=${target//,/ }; fi
for t in $targets; do
  echo "$all_targets" | grep -qx "$t" || { echo "fuzz: unknown target '$t' (known: $(echo $all_targets))"; exit 1; }
done
jobs=$(nproc 2>/dev/null || echo 2)
# shellcheck disable=SC2086
cmake --build "$bdir" -j"$jobs" --target attnlab_fuzz_seeds $targets >"$bdir/fuzz-build.log" 2>&1 \
  || { grep -E "error|Error" "$bdir/fuzz-build.log" | head -40; echo "fuzz: FAILED (build, see $bdir/fuzz-build.log)"; exit 1; }
rm -rf "$bdir/fuzz-seeds"
"$bdir/tests/fuzz/attnlab_fuzz_seeds" "$bdir/fuzz-seeds" >/dev/null

run_one() {  # target -> writes $bdir/fuzz-logs/target.log and target.summary
  local t=$1 name=${1#fuzz_}
  local corpus="$bdir/fuzz-corpus/$t" crashes="$bdir/fuzz-crashes/$t" log="$bdir/fuzz-logs/$t.log"
  mkdir -p "$corpus" "$crashes" "$bdir/fuzz-logs"
  local dict=() ; [ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
  local before; before=$(find "$crashes" -type f | wc -l)
  local rc=0
  local fork=() ; [ "${FUZZ_FORK:-0}" -gt 1 ] && fork=(-fork="$FUZZ_FORK")
  ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=0:detect_leaks=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  nice -n "${FUZZ_NICE:-10}" "$bdir/tests/fuzz/$t" -max_total_time="$secs" -print_final_stats=1 \
    -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=10 -max_len=65536 \
    -artifact_prefix="$crashes/" "${fork[@]}" "${dict[@]}" "$corpus" "$bdir/fuzz-seeds/$name" >"$log" 2>&1 || rc=$?
  local execs; execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  # Fork mode prints no final stats: its status lines start with the campaign's total, "#N:".
  [ -z "$execs" ] && execs=$(sed -n 's/^#\([0-9][0-9]*\): .*/\1/p' "$log" | tail -1)
  local after; after=$(find "$crashes" -type f | wc -l)
  local new=$((after - before))
  [ "$rc" -ne 0 ] && [ "$new" -eq 0 ] && new=1
  echo "$t ${execs:-0} $new $(find "$corpus" -type f | wc -l) $rc" >"$bdir/fuzz-logs/$t.summary"
}

start=$(date +%s)
running=0
for t in $targets; do
  rm -f "$bdir/fuzz-logs/$t.summary"
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then wait -n || true; running=$((running - 1)); fi
done
wait || true

status=0
printf '%-20s %14s %8s %8s\n' target executions crashes corpus
for t in $targets; do
  if [ ! -f "$bdir/fuzz-logs/$t.summary" ]; then
    printf '%-20s %14s %8s %8s\n' "$t" "?" "?" "?"; status=1; continue
  fi
  read -r _ execs crashes corpus rc <"$bdir/fuzz-logs/$t.summary"
  printf '%-20s %14s %8s %8s\n' "$t" "$execs" "$crashes" "$corpus"
  if [ "$crashes" -ne 0 ] || [ "$rc" -ne 0 ]; then
    status=1
    echo "  $t failed (exit $rc): see $bdir/fuzz-logs/$t.log; inputs in $bdir/fuzz-crashes/$t/"
    grep -m3 -E "ERROR: |runtime error|deadly signal|SUMMARY" "$bdir/fuzz-logs/$t.log" | sed 's/^/    /' || true
  fi
done
echo "fuzz: $(echo $targets | wc -w) targets, ${secs} s each, $(( $(date +%s) - start )) s in all: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
