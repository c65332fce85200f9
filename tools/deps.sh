#!/usr/bin/env bash
# Installs the Debian packages attnlab needs (docs/DESIGN.md section 7) when any is missing.
# clang-22 compiles the kernels for gfx942 and gfx950 (MI355X) in tools/hip_check.sh; Ninja builds
# new build trees (about 7 % quicker than Make here).
# Quiet and idempotent: does nothing when everything is installed.
set -euo pipefail
pkgs=(cmake g++ make ninja-build pkg-config git libsdl2-dev libimgui-dev libglm-dev catch2 nlohmann-json3-dev
      libcli11-dev libstb-dev xvfb xauth libgl1-mesa-dri fonts-dejavu-core
      hipcc libamdhip64-dev rocm-device-libs clang libclang-rt-14-dev clang-22)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "attnlab: installing missing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null || true
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
