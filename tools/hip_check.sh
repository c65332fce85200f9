#!/usr/bin/env bash
# Compile-checks every kernels/*.hip (and the kernels/dev/ tools, with the diagnostics on) for
# AMD, two jobs at a time, and fails on any error:
#   - Debian's hipcc (HIP 5.2): gfx90a and gfx940, device and host code, to an object;
#   - Debian's clang-22 against the same HIP headers: gfx942 (MI300X) and gfx950 (MI355X),
#     device code only, to assembly (no AMD linker is needed for that).
# No AMD GPU runs them here: this proves they build, not that they are right.
# A job whose output is newer than the file and every header it includes (hipcc's -MD list;
# clang-22 writes none for device-only output, and the headers are the same) was checked before
# and is not run again.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/hip-check; mkdir -p "$out"
shopt -s nullglob
files=(kernels/*.hip kernels/dev/*.hip)
[ ${#files[@]} -eq 0 ] && { echo "hip check: no .hip files"; exit 0; }
targets=()
command -v hipcc >/dev/null && targets+=(hipcc)
command -v clang++-22 >/dev/null && targets+=(gfx942 gfx950)
[ ${#targets[@]} -eq 0 ] && { echo "hip check: SKIPPED (neither hipcc nor clang++-22)"; exit 0; }
jobs=$(nproc 2>/dev/null || echo 2)
up_to_date() {  # up_to_date OUTPUT DEPFILE
  [ -f "$1" ] && [ -f "$2" ] || return 1
  local dep
  for dep in $(sed -e 's/^[^:]*://' -e 's/\\$//' "$2"); do
    [ "$dep" -nt "$1" ] && return 1
  done
  return 0
}
output_of() {  # output_of FILE TARGET
  case "$2" in hipcc) echo "$out/$(basename "$1").o" ;; *) echo "$out/$(basename "$1").$2.s" ;; esac
}
check_one() {  # check_one FILE TARGET OUTPUT
  local f=$1 t=$2 o=$3 diag=()
  case "$f" in kernels/dev/*) diag=(-DATTNLAB_KERNEL_DIAG=1) ;; esac
  local common=(-std=c++17 -I. -DATTNLAB_HAVE_GPU=1 -DATTNLAB_GPU_HIP=1 "${diag[@]}")
  if [ "$t" = hipcc ]; then
    # -O1: the whole back end still runs (instruction selection, register allocation), about a
    # fifth quicker than -O3; the clang-22 targets keep -O3, whose assembly is read for the
    # MFMA counts in kernels/DESIGN.md.
    HIP_PLATFORM=amd hipcc "${common[@]}" -O1 -MD -MF "$o.d" --offload-arch=gfx90a \
      --offload-arch=gfx940 -c "$f" -o "$o" >"$o.log" 2>&1 && return 0
  else
    clang++-22 -x hip --offload-arch="$t" --cuda-device-only -nogpulib --hip-path=/usr \
      -D__AMDGCN_WAVEFRONT_SIZE=64 "${common[@]}" -O3 -S "$f" -o "$o" >"$o.log" 2>&1 && return 0
  fi
  rm -f "$o"
  echo "hip check: $f for $t failed:"; cat "$o.log"; return 1
}
export -f check_one
todo=()
for f in "${files[@]}"; do
  for t in "${targets[@]}"; do
    o=$(output_of "$f" "$t")
    up_to_date "$o" "$(output_of "$f" hipcc).d" || todo+=("$f $t $o")
  done
done
total=$((${#files[@]} * ${#targets[@]}))
names="${targets[*]}"
names=${names/hipcc/gfx90a + gfx940 (hipcc)}
names=${names/ gfx942 gfx950/, gfx942 + gfx950 (clang-22)}
names=${names/#gfx942 gfx950/gfx942 + gfx950 (clang-22)}
if [ ${#todo[@]} -eq 0 ] ||
   printf '%s\n' "${todo[@]}" | xargs -P "$jobs" -L1 bash -c 'check_one "$0" "$1" "$2"'; then
  echo "hip check: ${#files[@]} files compile for $names ($total jobs: ${#todo[@]} run now, $((total - ${#todo[@]})) unchanged since their last check)"
else
  echo "hip check: FAILED"; exit 1
fi
