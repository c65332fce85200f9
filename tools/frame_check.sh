#!/usr/bin/env bash
# How smooth is the explorer? Renders every panel at 1600x1000 under its own Xvfb (Mesa's
# llvmpipe), first idle, then while a CPU benchmark started from the latency panel runs, and
# prints the frame statistics (median / p99 / max, frames over 50 ms, the phases of the slowest
# frames). A measurement, not a test: it never fails on a time.
#
#   tools/frame_check.sh [attnlab exe] [frames] [workload] [threads]
#     exe       default build/attnlab
#     frames    frames per run, default 600 (about 10 s)
#     workload  the benchmark: sweep (default), peers, amd-mixed-mla, model
#     threads   its CPU threads (default: the latency panel's default)
#   FRAME_CHECK_PACE=1  pace frames to 60 Hz as the interactive explorer does (default: back to
#                       back, the worst case for the CPU). LP_NUM_THREADS is passed through.
# The load of the machine is printed before and after: on a shared machine other work (a
# compile) shows up as slow frames that are not the explorer's.
#
# What was found with it (2 cores, Xvfb + llvmpipe, 1600x1000, every panel; details in the
# commit messages): the UI thread builds a frame in ~0.4 ms; the rest is Mesa (~2 ms queueing
# the draw, ~10 ms rasterising and copying to the X server in SDL_GL_SwapWindow). The 137 ms
# "spike" of earlier runs was the screenshot frame itself (glReadPixels + PNG write), now
# reported apart. CPU benchmark threads run at SCHED_IDLE + nice 19 (app/job_runner.cpp), so
# llvmpipe's threads always get the cores first.
# LP_NUM_THREADS: leave it unset. llvmpipe then rasterises on one thread per core; with
# LP_NUM_THREADS=1 the idle median went from 12.6 ms to 20.9 ms here. A benchmark at idle
# priority does not need fewer rasteriser threads.
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${1:-build/attnlab}
frames=${2:-600}
workload=${3:-sweep}
threads=${4:-}
[ -x "$exe" ] || { echo "frame_check: no executable at $exe (build the attnlab target)"; exit 2; }
command -v Xvfb >/dev/null || { echo "frame_check: needs Xvfb (apt-get install xvfb)"; exit 2; }

out=$(mktemp -d)
disp=$(( 200 + RANDOM % 300 ))
while [ -e "/tmp/.X11-unix/X$disp" ] || [ -e "/tmp/.X$disp-lock" ]; do disp=$(( disp + 1 )); done
Xvfb ":$disp" -screen 0 1920x1200x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
trap 'kill $xvfb_pid 2>/dev/null || true; rm -rf "$out"' EXIT
for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$disp" ] && break; sleep 0.1; done
export DISPLAY=":$disp" ATTNLAB_FRAME_STATS=1 ATTNLAB_CONFIG_DIR="$out/config"
[ "${FRAME_CHECK_PACE:-0}" = 1 ] && export ATTNLAB_FRAME_PACE=1

echo "== $(date -u +%FT%TZ) $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== idle: every panel, $frames frames"
"$exe" --screenshot "$out/idle.png" --size 1600x1000 --frames "$frames"
echo "== load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== while the '$workload' benchmark runs on the CPU${threads:+ with $threads thread(s)}: $frames frames"
ATTNLAB_FRAME_BENCH="$workload" ATTNLAB_FRAME_BENCH_THREADS="$threads" \
  "$exe" --screenshot "$out/bench.png" --size 1600x1000 --frames "$frames"
echo "== load: $(cut -d' ' -f1-3 /proc/loadavg)"
