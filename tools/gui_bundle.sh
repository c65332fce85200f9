#!/usr/bin/env bash
# Packs the explorer for a machine that has a GPU but none of the desktop libraries (the GPU
# machine): the attnlab binary, every shared library `ldd` lists for it except the C and C++
# runtimes (SDL2 and its dependencies, glvnd's GL/EGL dispatch), and glvnd's libEGL / libGL /
# libGLX / libOpenGL / libGLdispatch, which SDL opens at run time. The NVIDIA driver's EGL there
# renders; SDL's offscreen driver needs no X server.
#
#   tools/gui_bundle.sh [build/attnlab] [out dir, default build/gui-bundle]
# There:
#   cd <out dir> && ./attnlab-offscreen --screenshot shot.png --panel latency --start gpu:peers
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${1:-build/attnlab}
out=${2:-build/gui-bundle}
[ -x "$exe" ] || { echo "gui_bundle: no executable at $exe (build the attnlab target)"; exit 2; }
ldd "$exe" | grep -q libSDL2 || { echo "gui_bundle: $exe is not a GUI build (no SDL2)"; exit 2; }
rm -rf "$out"
mkdir -p "$out/lib"
cp "$exe" "$out/attnlab"
# What the dynamic linker resolves, less the runtimes every Linux machine has.
skip='^(libc|libm|libstdc\+\+|libgcc_s|ld-linux-x86-64|libdl|libpthread|librt)\.so'
ldd "$exe" | awk '/=> \// { print $1, $3 }' | while read -r name path; do
  if [[ ! $name =~ $skip ]]; then cp -L "$path" "$out/lib/$name"; fi
done
# glvnd's dispatch libraries SDL loads with dlopen (not in ldd).
for lib in libEGL.so.1 libGL.so.1 libGLX.so.0 libOpenGL.so.0 libGLdispatch.so.0; do
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ { print $NF; exit }')
  [ -n "$path" ] && cp -L "$path" "$out/lib/$lib"
done
cat >"$out/attnlab-offscreen" <<'SH'
#!/usr/bin/env bash
# The bundled explorer, rendered with SDL's offscreen driver through the machine's EGL.
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SDL_VIDEODRIVER=offscreen
exec "$here/attnlab" "$@"
SH
chmod +x "$out/attnlab-offscreen"
echo "gui_bundle: $out: attnlab and $(ls "$out/lib" | wc -l) libraries ($(du -sh "$out" | cut -f1))"
