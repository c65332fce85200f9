#!/usr/bin/env bash
# Compile-checks every kernels/*.hip for AMD with Debian's hipcc (gfx90a and gfx940, the newest
# its clang knows). MI355X (gfx950) needs ROCm 7: see README.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v hipcc >/dev/null; then echo "hip check: SKIPPED (no hipcc)"; exit 0; fi
out=build/hip-check; mkdir -p "$out"
shopt -s nullglob
files=(kernels/*.hip)
[ ${#files[@]} -eq 0 ] && { echo "hip check: no .hip files"; exit 0; }
for f in "${files[@]}"; do
  HIP_PLATFORM=amd hipcc -std=c++17 -O3 -I. --offload-arch=gfx90a --offload-arch=gfx940 \
    -DATTNLAB_HAVE_GPU=1 -DATTNLAB_GPU_HIP=1 -c "$f" -o "$out/$(basename "$f").o"
done
echo "hip check: ${#files[@]} files compiled for gfx90a and gfx940"
