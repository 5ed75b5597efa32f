#!/bin/bash
# Issue 25's scaling benchmark on a host of two or more GPUs, in one
# command: bench-multigpu (steady-state rates since 752631a) for every
# coder, from pageable and page-locked system memory and from CUDA memory
# of the first device, with each GPU's utilisation sampled alongside
# (nvidia-smi, every 0.5 s) and averaged over the timed one-device and
# multi-device runs, so that an uneven split between the devices shows.
# Tables on stdout, logs and samples in $OUT.
#
# Here (no GPU), once:
#   meson setup build-gpu -Dcuda=enabled -Dcuda-arch=sm_90 -Denvi=disabled
#   ninja -C build-gpu
#   ../shared/tools/gpu-bundle build-gpu
#   tar --exclude='*.o' -cf - .gpu build-gpu | xz -T2 -3 > .gpu-pack.tar.xz
# There (a kind of two GPUs; carry .gpu-pack.tar.xz):
#   tar xJf .gpu-pack.tar.xz && OUT=$OUT scripts/bench-multigpu.sh
#
# Settings (environment): BUILD (build-gpu), OUT (/tmp/bench-multigpu),
# DEVICES (0,1), FRAMES (2000 4K frames a run; dpcmenc's are 1024x1024),
# CODERS ("htj2kenc ebcotcm dpcmenc"), PATTERNS ("ball snow"), INPUTS
# ("system pinned cuda": where the frames are: pageable system memory,
# the page-locked memory of the pool the coder proposes upstream, CUDA
# memory of the first device).
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build-gpu}
OUT=${OUT:-/tmp/bench-multigpu}
DEVICES=${DEVICES:-0,1}
FRAMES=${FRAMES:-2000}
CODERS=${CODERS:-htj2kenc ebcotcm dpcmenc}
PATTERNS=${PATTERNS:-ball snow}
INPUTS=${INPUTS:-system pinned cuda}
mkdir -p "$OUT"
[ -f .gpu/env.sh ] && source .gpu/env.sh
export GST_PLUGIN_PATH_1_0=$PWD/$B/elements
date -u
nvidia-smi -L
for input in $INPUTS; do
  case $input in
    cuda) flag=--cuda-input ;;
    pinned) flag=--pinned-input ;;
    *) flag= ;;
  esac
  for coder in $CODERS; do
    for pattern in $PATTERNS; do
      tag=$input-$coder-$pattern
      nvidia-smi --query-gpu=timestamp,index,utilization.gpu \
        --format=csv,noheader -lms 500 > "$OUT/smi-$tag.csv" &
      smi=$!
      "$B/bench/bench-multigpu" $flag --coder "$coder" --pattern "$pattern" \
        --devices "$DEVICES" --frames "$FRAMES" > "$OUT/$tag.txt" 2>&1
      kill "$smi" 2>/dev/null
      echo "== $tag"
      grep "^| $coder" "$OUT/$tag.txt" || tail -3 "$OUT/$tag.txt"
      # each device's mean utilisation inside the timed one-device run and
      # inside the timed multi-device run (the longest window of each)
      python3 - "$OUT/$tag.txt" "$OUT/smi-$tag.csv" <<'PY'
import re, sys, time
win = {}
for line in open(sys.argv[1]):
    m = re.match(r"timed run of (\S+).*: ([\d.]+) \.\. ([\d.]+)", line)
    if m:
        kind = "devices" if m.group(1) == "scimultigpu" else "one device"
        a, b = float(m.group(2)), float(m.group(3))
        if b - a > win.get(kind, (0, 0))[1] - win.get(kind, (0, 0))[0]:
            win[kind] = (a, b)
samples = []
for line in open(sys.argv[2]):
    f = [x.strip() for x in line.split(",")]
    if len(f) < 3:
        continue
    try:
        t = time.mktime(time.strptime(f[0][:19], "%Y/%m/%d %H:%M:%S"))
        t += float("0" + f[0][19:])
        samples.append((t, f[1], float(f[2].split()[0])))
    except ValueError:
        pass
for kind, (a, b) in sorted(win.items()):
    per = {}
    for t, d, u in samples:
        if a <= t <= b:
            per.setdefault(d, []).append(u)
    print("utilisation during the %s run: %s" % (kind, ", ".join(
        "device %s %.0f %%" % (d, sum(v) / len(v)) for d, v in sorted(per.items()))))
PY
    done
  done
done
date -u
