#!/usr/bin/env bash
# Compile-checks every kernels/*.hip (and the kernels/dev/ tools, with the diagnostics on) for
# AMD with Debian's hipcc: gfx90a and gfx940, the newest its clang knows (MI355X, gfx950, needs
# ROCm 7). Two files at a time; any error fails the check and is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v hipcc >/dev/null; then echo "hip check: SKIPPED (no hipcc)"; exit 0; fi
out=build/hip-check; mkdir -p "$out"
shopt -s nullglob
files=(kernels/*.hip kernels/dev/*.hip)
[ ${#files[@]} -eq 0 ] && { echo "hip check: no .hip files"; exit 0; }
jobs=$(nproc 2>/dev/null || echo 2)
check_one() {
  local f=$1 log diag=()
  log="$2/$(basename "$f").log"
  case "$f" in kernels/dev/*) diag=(-DATTNLAB_KERNEL_DIAG=1) ;; esac
  if HIP_PLATFORM=amd hipcc -std=c++17 -O3 -I. --offload-arch=gfx90a --offload-arch=gfx940 \
       -DATTNLAB_HAVE_GPU=1 -DATTNLAB_GPU_HIP=1 "${diag[@]}" -c "$f" \
       -o "$2/$(basename "$f").o" >"$log" 2>&1; then
    return 0
  fi
  echo "hip check: $f failed:"; cat "$log"; return 1
}
export -f check_one
if printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} bash -c 'check_one "$1" "$2"' _ {} "$out"; then
  echo "hip check: ${#files[@]} files compiled for gfx90a and gfx940"
else
  echo "hip check: FAILED"; exit 1
fi
