#!/usr/bin/env bash
# Configures and builds attnlab into build/ (the build run.sh and test.sh share). Arguments go to
# cmake's configure step; ATTNLAB_WERROR=ON in the environment turns warnings into errors (CI).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
jobs=$(nproc 2>/dev/null || echo 2)
# A new build tree uses Ninja where it is installed; an existing one keeps its generator.
gen=()
[ ! -f build/CMakeCache.txt ] && command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DATTNLAB_WERROR="${ATTNLAB_WERROR:-OFF}" "$@" \
  >build.log 2>&1 || { cat build.log; exit 1; }
cmake --build build -j"$jobs" 2>&1 | tee -a build.log | grep -E "error|warning|Error" || true
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "attnlab: build failed, see build.log"; exit 1; }
