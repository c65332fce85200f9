#!/usr/bin/env bash
# attnlab: install what is missing, build, and run every test (CTest), then print the summary.
# GPU tests run only where a GPU exists and say so when skipped; GUI tests run under our own Xvfb.
# Then the whole suite again under ASan + UBSan, and every fuzz target for a smoke run.
#   ./test.sh          everything (CI runs this)
#   ./test.sh --quick  build, the AMD compile check and CTest only: the inner loop
set -euo pipefail
cd "$(dirname "$0")"
quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  *) echo "usage: ./test.sh [--quick]" >&2; exit 2 ;;
esac
start=$SECONDS
tools/deps.sh
# The AMD compile check (hipcc, one process a file, needing nothing from the build) runs beside
# the build, the tests and the sanitizer build; its result is collected at the end and fails
# the run like any test.
echo "== AMD compile check (hipcc) started in the background: build/hip-check.log"
mkdir -p build
tools/hip_check.sh >build/hip-check.log 2>&1 &
hip_pid=$!
tools/configure.sh
finish_hip_check() {
  local hip_rc=0
  wait "$hip_pid" || hip_rc=$?
  cat build/hip-check.log
  [ "$hip_rc" -eq 0 ] || { [ "$rc" -ne 0 ] || rc=1; }
}
xvfb_pid=""
if [ -z "${DISPLAY:-}" ] && command -v Xvfb >/dev/null; then
  for n in $(seq 91 140); do [ -e /tmp/.X11-unix/X$n ] || [ -e /tmp/.X$n-lock ] || { disp=$n; break; }; done
  Xvfb ":$disp" -screen 0 1920x1200x24 -nolisten tcp >/dev/null 2>&1 &
  xvfb_pid=$!
  export DISPLAY=":$disp"
  for _ in $(seq 50); do [ -e /tmp/.X11-unix/X$disp ] && break; sleep 0.1; done
  echo "== Xvfb on $DISPLAY"
fi
san_pid=""
trap '[ -n "$xvfb_pid" ] && kill $xvfb_pid 2>/dev/null; [ -n "$san_pid" ] && kill $san_pid 2>/dev/null; true' EXIT
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 \
  || echo "== no GPU on this machine: GPU tests will be reported as skipped"
# Reliability: the whole suite again under ASan + UBSan, then every libFuzzer target for a short
# smoke run (long campaigns: tools/fuzz.sh all SECONDS). ATTNLAB_TEST_SANITIZE=0 or
# ATTNLAB_TEST_FUZZ=0 skips one; either failing makes test.sh fail. The sanitizer build runs
# beside the plain tests, whose screenshot test leaves a core mostly idle.
sanitize=0
[ "$quick" = 0 ] && [ "${ATTNLAB_TEST_SANITIZE:-1}" != 0 ] && sanitize=1
if [ "$sanitize" = 1 ]; then
  echo "== sanitizer build started in the background: build-asan/sanitize-build.log"
  mkdir -p build-asan
  tools/sanitize.sh --build >build/sanitize-build.out 2>&1 &
  san_pid=$!
fi
echo "== tests"
cd build
set +e
ctest --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" >ctest.log 2>&1
rc=$?
set -e
# Start and Passed lines are noise; failures, skips and the summary are what a reader needs.
grep -vE "Test +#[0-9]+: .* Passed|^ +Start +[0-9]+: " ctest.log || true
cd ..
if [ "$quick" = 1 ]; then
  finish_hip_check
  echo "== test.sh --quick: $((SECONDS - start)) s, rc $rc (sanitizer and fuzz stages skipped)"
  exit "$rc"
fi
if [ "$sanitize" = 1 ]; then
  san_rc=0
  wait "$san_pid" || san_rc=$?
  san_pid=""
  cat build/sanitize-build.out
  if [ "$san_rc" -eq 0 ]; then
    tools/sanitize.sh --test || { [ "$rc" -ne 0 ] || rc=1; }
  else
    [ "$rc" -ne 0 ] || rc=1
  fi
fi
if [ "${ATTNLAB_TEST_FUZZ:-1}" != 0 ]; then
  # The sanitizer build (clang) holds the fuzz targets too; without it fuzz.sh builds its own.
  fuzz_build=build-fuzz
  [ -f build-asan/CMakeCache.txt ] && grep -q '^ATTNLAB_FUZZ:BOOL=ON' build-asan/CMakeCache.txt \
    && fuzz_build=build-asan
  echo "== fuzz smoke: tools/fuzz.sh all ${ATTNLAB_FUZZ_SECONDS:-10} (build: $fuzz_build)"
  ATTNLAB_FUZZ_BUILD=$fuzz_build tools/fuzz.sh all "${ATTNLAB_FUZZ_SECONDS:-10}" \
    || { [ "$rc" -ne 0 ] || rc=1; }
fi
finish_hip_check
echo "== test.sh: $((SECONDS - start)) s, rc $rc"
exit "$rc"
