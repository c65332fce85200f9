#!/usr/bin/env bash
# Builds the whole project with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/, no
# GPU, with the explorer so its headless tests run too) and runs every test through CTest. Any
# sanitizer report fails the test that triggered it.
#   tools/sanitize.sh              build and run all tests
#   tools/sanitize.sh -R cli       only the tests matching a CTest regex
#   tools/sanitize.sh --build      only the build (./test.sh runs it beside the plain tests)
#   tools/sanitize.sh --test ...   only the tests, on an existing build
# With clang (the default where it is installed) the same build also holds the libFuzzer
# targets (-DATTNLAB_FUZZ=ON), so tools/fuzz.sh can run them without a build of its own
# (ATTNLAB_FUZZ_BUILD=build-asan, as ./test.sh does). ATTNLAB_ASAN_CXX=g++ builds with GCC
# and no fuzz targets. Exit status: CTest's.
set -euo pipefail
cd "$(dirname "$0")/.."
stage=all
case "${1:-}" in
  --build) stage=build; shift ;;
  --test) stage=test; shift ;;
esac
bdir=${ATTNLAB_ASAN_BUILD:-build-asan}
gui=${ATTNLAB_ASAN_GUI:-on}
cxx=${ATTNLAB_ASAN_CXX:-$(command -v clang++ >/dev/null && echo clang++ || echo g++)}
fuzz=OFF
[[ "$cxx" == *clang* ]] && fuzz=ON
jobs=$(nproc 2>/dev/null || echo 2)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ "$stage" != test ]; then
  echo "== sanitizer build (ASan + UBSan, $cxx, fuzz targets $fuzz) in $bdir"
  mkdir -p "$bdir"
  # -O1 with line tables: sanitizer reports keep file and line, and the build is about a third
  # quicker than -O2 -g.
  gen=()  # a new tree uses Ninja where it is installed; an existing one keeps its generator
  [ ! -f "$bdir/CMakeCache.txt" ] && command -v ninja >/dev/null && gen=(-G Ninja)
  cmake -S . -B "$bdir" "${gen[@]}" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DATTNLAB_SANITIZE=ON -DATTNLAB_FUZZ="$fuzz" \
    -DATTNLAB_GPU=off -DATTNLAB_GUI="$gui" "${launcher[@]}" >"$bdir/sanitize-build.log" 2>&1 \
    || { cat "$bdir/sanitize-build.log"; echo "sanitize: FAILED (configure)"; exit 1; }
  cmake --build "$bdir" -j"$jobs" >>"$bdir/sanitize-build.log" 2>&1 \
    || { grep -E "error|Error" "$bdir/sanitize-build.log" | head -40; echo "sanitize: FAILED (build, see $bdir/sanitize-build.log)"; exit 1; }
fi
[ "$stage" = build ] && exit 0
[ -f "$bdir/CTestTestfile.cmake" ] || { echo "sanitize: FAILED (no build in $bdir: run tools/sanitize.sh --build first)"; exit 1; }
# Leaks inside the system's GL/X/SDL/font libraries are theirs, not ours (tools/lsan.supp).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1:strict_string_checks=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tools/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$bdir"
set +e
# The screenshot test shoots one Learn beat and skips the side-by-side job here: every beat is
# drawn under the sanitizers by the headless GUI tests already, and the full set of pictures is
# the plain build's job.
ATTNLAB_SCREENSHOT_LIGHT=1 ctest --output-on-failure -j"$jobs" --timeout 900 "$@" >ctest.log 2>&1
rc=$?
set -e
grep -vE "Test +#[0-9]+: .* Passed|^ +Start +[0-9]+: " ctest.log || true
echo "sanitize: $([ $rc -eq 0 ] && echo PASSED || echo FAILED) (ASan + UBSan, log: $bdir/ctest.log)"
exit $rc
