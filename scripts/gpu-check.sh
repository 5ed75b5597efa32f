#!/bin/bash
# On the GPU host (../shared/GPU.md), after carrying .gpu and build-gpu:
# the gpu test suite, sanitizers, the benchmark and the main job (both
# parts) on CUDA memory.  Logs go to $OUT (default /tmp/gpu-check); a
# summary is printed.
cd "$(dirname "$0")/.."
B=${BUILD:-build-gpu}
OUT=${OUT:-/tmp/gpu-check}
mkdir -p "$OUT"
source .gpu/env.sh
export GST_PLUGIN_PATH_1_0=$PWD/$B/elements
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
date -u | tee -a "$OUT/gpu.txt"
step() { # name, time limit, command...
  local name=$1 limit=$2; shift 2
  timeout "$limit" "$@" > "$OUT/$name.txt" 2>&1
  echo "== $name: rc $?"; tail -n "${TAIL:-3}" "$OUT/$name.txt"
}
step tests 420 meson test -C "$B" --no-rebuild --suite gpu --print-errorlogs
cp "$B/meson-logs/testlog.txt" "$OUT/testlog.txt" 2>/dev/null
step memcheck 150 compute-sanitizer --tool memcheck --leak-check full \
  --error-exitcode 9 "$B/tests/parity-dwt" --quick --seed 5
step racecheck 90 compute-sanitizer --tool racecheck --error-exitcode 9 \
  "$B/tests/parity-dwt" --quick --seed 6
step memcheck-ht 150 compute-sanitizer --tool memcheck --leak-check full \
  --error-exitcode 9 "$B/tests/parity-htj2k" --quick --seed 5
step racecheck-ht 120 compute-sanitizer --tool racecheck --error-exitcode 9 \
  "$B/tests/parity-htj2k" --quick --seed 6
TAIL=16 step bench 150 "$B/bench/bench-dwt"
TAIL=14 step main 120 "$B/examples/dwt-roundtrip" --backend cuda
TAIL=16 step main-htj2k 150 "$B/examples/htj2k-roundtrip" --backend cuda
TAIL=8 step main-seismic 150 "$B/examples/seismic-roundtrip" --backend cuda
# the real-data parts of the main job: a copy of ../shared/data's aurora,
# spectral16 and hyperspectral folders carried in $DATA (../shared is not)
DATA=${DATA:-.gpudata}
if [ -d "$DATA" ]; then
  TAIL=12 step main-dpcm 300 "$B/examples/dpcm-roundtrip" --backend cuda \
    --data "$DATA"
  TAIL=8 step main-spp 120 "$B/examples/spp-check" --backend cuda \
    --data "$DATA"
fi
