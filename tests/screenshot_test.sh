#!/usr/bin/env bash
# Screenshot test of the explorer (needs an X display; ./test.sh starts its own Xvfb).
#   tests/screenshot_test.sh <attnlab exe> <out dir>
# Takes a picture of the workbench, of every panel alone (--panel), of llama-3-8b under two
# variants (MHA and MLA), of every beat of every Learn chapter (--learn all) and of the Compare
# view; checks that each PNG exists, is 1600x1000 and is not blank, that the two variants
# differ, and that every beat differs from the one before. Exit 77 (skipped) without a display.
set -euo pipefail
exe=${1:?usage: screenshot_test.sh <attnlab exe> <out dir>}
out=${2:?usage: screenshot_test.sh <attnlab exe> <out dir>}
if [ -z "${DISPLAY:-}" ]; then
  echo "screenshot test skipped: no X display (DISPLAY is empty)"
  exit 77
fi
command -v python3 >/dev/null || { echo "screenshot test needs python3 to read the PNGs"; exit 1; }
mkdir -p "$out"
rm -f "$out"/*.png
# Settings of the user are never touched: screenshot mode reads and writes none, and the folder
# is a scratch one all the same.
export ATTNLAB_CONFIG_DIR="$out/config"

shoot() {  # name, then attnlab flags
  local name=$1
  shift
  if ! "$exe" --screenshot "$out/$name.png" --size 1600x1000 --frames 4 "$@" 2>"$out/$name.err"; then
    echo "FAIL: attnlab --screenshot $name $*: $(cat "$out/$name.err")"
    exit 1
  fi
}

shoot all --preset llama-3-8b --workbench
for panel in model kv-cache data-flow attention latency; do
  shoot "panel-$panel" --preset llama-3-8b --panel "$panel"
done
shoot llama-3-8b-mha --preset llama-3-8b --variant mha --workbench
shoot llama-3-8b-mla --preset llama-3-8b --variant mla --workbench
shoot deepseek-v3-data-flow --preset deepseek-v3 --panel data-flow
shoot compare --preset llama-3-8b --compare mha,gqa,mla,deepseek-v3
# A side-by-side run started as its button does (--start); the picture waits for the result.
light=${ATTNLAB_SCREENSHOT_LIGHT:-0}  # 1 (the sanitizer run): one beat, no side-by-side job
if [ "$light" != 1 ]; then
  shoot side-by-side --preset qwen2.5-7b --panel latency --start side-by-side
fi
# Where a GPU exists, a GPU suite started from the explorer the same way.
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  shoot gpu-peers --preset llama-3-8b --panel latency --start gpu:peers
else
  echo "GPU run from the explorer skipped: no GPU here"
fi
# Every beat of the lesson in one run: learn-N.M.png, each after its animation settled.
if [ "$light" = 1 ]; then
  shoot learn-3.2 --preset llama-3-8b --learn 3.2
elif ! "$exe" --screenshot "$out/learn.png" --size 1600x1000 --frames 75 --preset llama-3-8b \
    --learn all 2>"$out/learn.err"; then
  echo "FAIL: attnlab --screenshot learn.png --learn all: $(cat "$out/learn.err")"
  exit 1
fi

# The frame-statistics mode of tools/frame_check.sh works: with a benchmark started from the
# latency panel it renders on, prints its summary lines and exits 0 (no time is checked).
mkdir -p "$out/stats"
if ! ATTNLAB_FRAME_STATS=1 ATTNLAB_FRAME_BENCH=amd-mixed-mla ATTNLAB_FRAME_BENCH_THREADS=1 \
    "$exe" --screenshot "$out/stats/bench.png" --frames 20 --workbench 2>"$out/stats.err"; then
  echo "FAIL: frame statistics with a benchmark: $(cat "$out/stats.err")"
  exit 1
fi
for line in "attnlab: frame stats: 20 frames at 1600x1000" "frames while a benchmark ran: " \
            "median per phase (ms): " "benchmark 'amd-mixed-mla' on the CPU with 1 thread(s)"; do
  grep -qF "$line" "$out/stats.err" || { echo "FAIL: frame statistics lack '$line':"; cat "$out/stats.err"; exit 1; }
done
echo "frame statistics: $(grep -F 'frames while a benchmark ran' "$out/stats.err")"
if ATTNLAB_FRAME_BENCH=nonsense "$exe" --screenshot "$out/stats/bad.png" --frames 2 2>"$out/stats-bad.err" ||
   ! grep -q "^attnlab: error: ATTNLAB_FRAME_BENCH: expected one of" "$out/stats-bad.err"; then
  echo "FAIL: a bad ATTNLAB_FRAME_BENCH is not refused with exit 2: $(cat "$out/stats-bad.err")"
  exit 1
fi

python3 - "$out" <<'PY'
import os, struct, sys, zlib, pathlib

def read_png(path):
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    return w, h, zlib.decompress(idat)

def summary(raw, w):
    # Distinct colours over every 25th row, after undoing the PNG row filters (all five kinds).
    stride = w * 4
    prev = bytearray(stride)
    colours = set()
    rows = len(raw) // (stride + 1)
    for y in range(rows):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b = prev[i]
            c = prev[i - 4] if i >= 4 else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 25 == 0:
            colours.update(bytes(line[i:i + 3]) for i in range(0, stride, 4 * 3))
        prev = line
    return colours

out = pathlib.Path(sys.argv[1])
ok = True
pictures = {}
beats = []
for png in sorted(out.glob("*.png")):
    try:
        w, h, raw = read_png(png)
    except Exception as e:
        print(f"FAIL: {png.name}: {e}"); ok = False; continue
    if (w, h) != (1600, 1000):
        print(f"FAIL: {png.name}: {w}x{h}, expected 1600x1000"); ok = False; continue
    if png.name.startswith("learn-"):
        # The lesson's beats: a blank window compresses to a few KiB; each beat must also
        # differ from the one before (the picture grows).
        key = tuple(int(x) for x in png.name[6:-4].split("."))
        beats.append((key, png.name, raw))
        size = png.stat().st_size
        status = "ok" if size > 40000 else "FAIL (blank?)"
        print(f"{png.name}: {w}x{h}, {size} bytes: {status}")
        ok &= size > 40000
        continue
    colours = summary(raw, w)
    pictures[png.name] = raw
    status = "ok" if len(colours) >= 40 else "FAIL (blank?)"
    print(f"{png.name}: {w}x{h}, {png.stat().st_size} bytes, {len(colours)} colours sampled: {status}")
    ok &= len(colours) >= 40
light = os.environ.get("ATTNLAB_SCREENSHOT_LIGHT", "0") == "1"
expected = (10 if light else 11) + (1 if (out / "gpu-peers.png").exists() else 0)
if len(pictures) != expected:
    print(f"FAIL: {len(pictures)} pictures read, expected {expected}"); ok = False
beats.sort()
expected_beats = 1 if light else 37
if len(beats) != expected_beats:
    print(f"FAIL: {len(beats)} beats saved, expected {expected_beats}"); ok = False
for (k0, n0, r0), (k1, n1, r1) in zip(beats, beats[1:]):
    if r0 == r1:
        print(f"FAIL: {n1} is the same picture as {n0}"); ok = False
a, b = pictures.get("llama-3-8b-mha.png"), pictures.get("llama-3-8b-mla.png")
if a is not None and b is not None:
    differing = sum(1 for x, y in zip(a, b) if x != y)
    print(f"MHA vs MLA: {differing} of {len(a)} raw bytes differ")
    ok &= differing > len(a) // 100
sys.exit(0 if ok else 1)
PY
