#!/bin/bash
# On the GPU host (../shared/GPU.md), after carrying .gpu (bundled with
# ojph_compress, ojph_expand, opj_decompress, grk_compress, grk_decompress)
# and build-gpu: the HTJ2K benchmark and its anchors on one picture, in one
# run.  The picture is scikit-image's astronaut photo (512x512) scaled to
# 3840x2160 with bicubic interpolation, 12-bit RGB.  Logs go to $OUT.
cd "$(dirname "$0")/.."
B=${BUILD:-build-gpu}
OUT=${OUT:-/tmp/bench-htj2k}
mkdir -p "$OUT/j"
source .gpu/env.sh
export GST_PLUGIN_PATH_1_0=$PWD/$B/elements
img=$OUT/j/astronaut-4k.ppm
python3 - "$img" <<'PY'
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
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
echo "== device-resident encoder (bench-htj2k)"
"$B/bench/bench-htj2k" --write "$OUT/j" "$img" | tee "$OUT/bench-htj2k.txt"
q=$(sed -n 's/^lossy: qstep \([0-9.e-]*\),.*/\1/p' "$OUT/bench-htj2k.txt")
echo "lossy qstep from bench-htj2k: $q"

echo "== decoders on the GPU encoder's output"
for m in lossless lossy rate; do
  [ -f "$OUT/j/$m.j2c" ] || continue
  r="$m:"
  ojph_expand -i "$OUT/j/$m.j2c" -o "$OUT/j/$m-ojph.ppm" >/dev/null 2>&1 && r="$r ojph ok" || r="$r ojph FAIL"
  opj_decompress -i "$OUT/j/$m.j2c" -o "$OUT/j/$m-opj.ppm" >/dev/null 2>&1 && r="$r opj ok" || r="$r opj FAIL"
  grk_decompress -i "$OUT/j/$m.j2c" -o "$OUT/j/$m-grk.ppm" >/dev/null 2>&1 && r="$r grk ok" || r="$r grk FAIL"
  echo "$r"
done
python3 - "$OUT/j" <<'PY'
import sys, numpy as np
def rd(p):
    d = open(p, "rb").read()
    t, i = [], 0
    while len(t) < 4:
        while d[i:i+1].isspace(): i += 1
        if d[i:i+1] == b"#":
            while d[i:i+1] != b"\n": i += 1
            continue
        j = i
        while not d[j:j+1].isspace(): j += 1
        t.append(d[i:j]); i = j
    return np.frombuffer(d[i+1:], ">u2" if int(t[3]) > 255 else "u1").astype(np.float64)
s = rd(sys.argv[1] + "/astronaut-4k.ppm")
for m in ("lossless", "lossy", "rate"):
    for dec in ("ojph", "opj", "grk"):
        try:
            x = rd("%s/%s-%s.ppm" % (sys.argv[1], m, dec))
        except OSError:
            continue
        mse = np.mean((x - s) ** 2)
        print("%-8s %-4s %s" % (m, dec, "exact" if mse == 0 else
              "PSNR %.2f dB" % (10 * np.log10(4095.0 ** 2 / mse))))
PY

med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
calc() { awk "BEGIN { printf \"%.4g\\n\", $* }"; }
t1() { local s=$(date +%s.%N); "$@" >/dev/null 2>&1; calc "$(date +%s.%N) - $s"; }
echo "== anchors, same picture"
for mode in lossless lossy; do
  if [ $mode = lossless ]; then oa="-reversible true"; else oa="-qstep $q"; fi
  s=$(for i in 1 2 3; do t1 ojph_compress -i "$img" -o "$OUT/j/oj-$mode.j2c" -num_decomps 5 -block_size '{64,64}' $oa; done | med)
  st=$(date +%s.%N)
  for p in $(seq 16); do
    (for k in 1 2 3 4; do ojph_compress -i "$img" -o "$OUT/j/oj16-$p.j2c" -num_decomps 5 -block_size '{64,64}' $oa >/dev/null 2>&1; done) &
  done
  wait
  w=$(calc "$(date +%s.%N) - $st")
  bytes=$(stat -c %s "$OUT/j/oj-$mode.j2c")
  echo "ojph_compress $mode: 1 process $s s/frame; 16 processes $(calc "64 / $w") frames/s; $bytes bytes ($(calc "$bytes * 8 / 8294400") bpp)"
  if [ $mode = lossless ]; then ga=""; else ga="-I"; fi
  g=$(for i in 1 2 3; do t1 grk_compress -i "$img" -o "$OUT/j/grk-$mode.j2k" -n 6 -b 64,64 -M 64 -H 16 $ga; done | med)
  echo "grk_compress HT $mode, 16 threads: $g s/frame; $(stat -c %s "$OUT/j/grk-$mode.j2k") bytes"
done

echo "== pipeline: appsrc [! cudaupload] ! htj2kenc ! fakesink"
# cudaupload (1.22) takes Y444_16LE but no 12-bit 4:4:4 format: GBR_12LE
# goes in system memory and htj2kenc uploads it; Y444_16LE through
# cudaupload is coded as 16-bit samples (the 12-bit values unchanged).
echo "| format | backend | mode | size | frames | frames/s | bpp |"
echo "|---|---|---|---|---|---|---|"
for a in "--reversible" "--qstep $q"; do
  "$B/bench/bench-htj2k-pipeline" --frames 200 --backend cuda --no-upload --format GBR_12LE $a "$img" 2>&1 | tail -1
  "$B/bench/bench-htj2k-pipeline" --frames 200 --backend cuda --format Y444_16LE $a "$img" 2>&1 | tail -1
  "$B/bench/bench-htj2k-pipeline" --frames 5 --backend cpu --no-upload --format GBR_12LE $a "$img" 2>&1 | tail -1
done
