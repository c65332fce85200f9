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
# A file whose object is newer than the file and every header it included (hipcc's -MD list)
# was checked before and is not compiled again.
up_to_date() {  # up_to_date OBJ DEPFILE
  [ -f "$1" ] && [ -f "$2" ] || return 1
  local dep
  for dep in $(sed -e 's/^[^:]*://' -e 's/\\$//' "$2"); do
    [ "$dep" -nt "$1" ] && return 1
  done
  return 0
}
check_one() {
  local f=$1 base log diag=()
  base="$2/$(basename "$f")"
  log="$base.log"
  case "$f" in kernels/dev/*) diag=(-DATTNLAB_KERNEL_DIAG=1) ;; esac
  if HIP_PLATFORM=amd hipcc -std=c++17 -O3 -I. --offload-arch=gfx90a --offload-arch=gfx940 \
       -DATTNLAB_HAVE_GPU=1 -DATTNLAB_GPU_HIP=1 "${diag[@]}" -MD -MF "$base.d" -c "$f" \
       -o "$base.o" >"$log" 2>&1; then
    return 0
  fi
  rm -f "$base.o"
  echo "hip check: $f failed:"; cat "$log"; return 1
}
export -f check_one
todo=()
for f in "${files[@]}"; do
  up_to_date "$out/$(basename "$f").o" "$out/$(basename "$f").d" || todo+=("$f")
done
fresh=$((${#files[@]} - ${#todo[@]}))
if [ ${#todo[@]} -eq 0 ] ||
   printf '%s\n' "${todo[@]}" | xargs -P "$jobs" -I{} bash -c 'check_one "$1" "$2"' _ {} "$out"; then
  echo "hip check: ${#files[@]} files compile for gfx90a and gfx940 (${#todo[@]} compiled now, $fresh unchanged since their last check)"
else
  echo "hip check: FAILED"; exit 1
fi
