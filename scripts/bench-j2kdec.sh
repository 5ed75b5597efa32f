#!/bin/bash
# The JPEG 2000 decoder benchmark (issue 22) on the GPU host, in one command
# of a few minutes: the GPU parity test, then bench-j2kdec on the
# bench-htj2k picture (scikit-image's astronaut scaled to 3840x2160, 12-bit
# RGB, as scripts/bench-htj2k.sh makes it) with nvJPEG2000 and the CPU
# anchors; the tables come last.  Logs go to $OUT.
#
# Here (no GPU), once:
#   meson setup build-gpu -Dcuda=enabled -Dcuda-arch=sm_90 -Denvi=disabled
#   ninja -C build-gpu && find build-gpu -name '*.o' -delete
#   ../shared/anchors/build-nvj2k.sh .anchors/nvj2k
#   bench/anchors/build-nvj2k-threads.sh .anchors/nvj2k
#   ../shared/tools/gpu-bundle build-gpu -- ojph_expand opj_decompress grk_decompress
#   tar -cf - .gpu build-gpu .anchors | xz -T2 -6 > .gpu-pack.tar.xz
# There (carry .gpu-pack.tar.xz):
#   tar xJf .gpu-pack.tar.xz && OUT=$OUT scripts/bench-j2kdec.sh
#
# Settings (environment): BUILD (build-gpu), OUT (/tmp/bench-j2kdec: logs),
# WORK (/tmp/bench-j2kdec-work: pictures and codestreams),
# NVJ2K (.anchors/nvj2k: the folder of nvj2k-bench, nvj2k-threads and
# their library),
# THREADS (16), RUNS (50),
# PARITY (1: run the gpu parity test first, and compute-sanitizer's
# memcheck and racecheck on its --quick run; 0: skip them), BENCH (1: the
# benchmark; 0: stop after the parity checks).
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build-gpu}
OUT=${OUT:-/tmp/bench-j2kdec}
# pictures, codestreams and the anchors' outputs (large: kept out of $OUT)
WORK=${WORK:-/tmp/bench-j2kdec-work}
NV=${NVJ2K:-.anchors/nvj2k}
THREADS=${THREADS:-16}
RUNS=${RUNS:-50}
mkdir -p "$OUT" "$WORK"
[ -f .gpu/env.sh ] && source .gpu/env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u

if [ "${PARITY:-1}" = 1 ]; then
  echo "== parity-j2k-dec (GPU == C reference)"
  timeout 600 "$B/tests/parity-j2k-dec" --data tests/j2k/data 2>&1 | tee "$OUT/parity-j2k-dec.txt" | tail -15
  echo "parity-j2k-dec exit status: ${PIPESTATUS[0]}"
  if command -v compute-sanitizer >/dev/null; then
    echo "== compute-sanitizer memcheck parity-j2k-dec --quick"
    timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 \
      "$B/tests/parity-j2k-dec" --quick --data tests/j2k/data > "$OUT/memcheck.txt" 2>&1
    echo "memcheck exit status: $? (0 clean, 9 errors, 124 timed out: $OUT/memcheck.txt)"
    tail -3 "$OUT/memcheck.txt"
    echo "== compute-sanitizer racecheck parity-j2k-dec --quick"
    timeout 300 compute-sanitizer --tool racecheck --error-exitcode 9 \
      "$B/tests/parity-j2k-dec" --quick --data tests/j2k/data > "$OUT/racecheck.txt" 2>&1
    echo "racecheck exit status: $? (0 clean, 9 errors, 124 timed out: $OUT/racecheck.txt)"
    tail -3 "$OUT/racecheck.txt"
  fi
fi

[ "${BENCH:-1}" = 1 ] || exit 0

img=$WORK/astronaut-4k.ppm
python3 - "$img" <<'PY' || img=
import sys
import numpy as np
from skimage import data, transform
a = data.astronaut().astype(np.float64) / 255.0
a = transform.resize(a, (2160, 3840, 3), order=3, mode="reflect",
                     anti_aliasing=False)
v = np.clip(np.round(a * 4095), 0, 4095).astype(">u2")
with open(sys.argv[1], "wb") as f:
    f.write(b"P6\n3840 2160\n4095\n")
    f.write(v.tobytes())
PY
[ -n "$img" ] || echo "no scikit-image: the synthetic picture instead"

args=(--runs "$RUNS" --threads "$THREADS" --workdir "$WORK")
if [ -x "$NV/nvj2k-bench" ]; then
  export LD_LIBRARY_PATH=$PWD/$NV${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  args+=(--nvj2k "$NV/nvj2k-bench")
  if [ -x "$NV/nvj2k-threads" ]; then
    args+=(--nvj2k-threads "$NV/nvj2k-threads")
  else
    echo "no $NV/nvj2k-threads: nvJPEG2000 with frames in flight left out"
  fi
else
  echo "no $NV/nvj2k-bench: nvJPEG2000 left out"
fi
for p in opj_decompress:--opj ojph_expand:--ojph grk_decompress:--grk; do
  b=${p%%:*}
  if command -v "$b" >/dev/null; then args+=("${p#*:}" "$(command -v "$b")"); else echo "no $b"; fi
done
echo "== bench-j2kdec ${args[*]} $img"
"$B/bench/bench-j2kdec" "${args[@]}" $img 2>&1 | tee "$OUT/bench-j2kdec.txt"
