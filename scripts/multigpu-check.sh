#!/bin/bash
# scimultigpu on a host with several GPUs (issue 25): each coder on device
# 0 alone, then through scimultigpu on devices 0,1 (DEVICES), in one call:
# the outputs byte for byte equal, and frames/s of both.  Frames come from
# videotestsrc in system memory; a warm-up run first.  Build here as
# scripts/bench-j2kdec.sh's header says (build-gpu), carry the pack, then
# there: OUT=$OUT scripts/multigpu-check.sh
set -u
cd "$(dirname "$0")/.."
[ -f .gpu/env.sh ] && source .gpu/env.sh
export GST_PLUGIN_PATH_1_0=$PWD/${BUILD:-build-gpu}/elements
DEVICES=${DEVICES:-0,1}
N=${FRAMES:-240}
W=${WORK:-/tmp/multigpu-check}
rm -rf "$W"; mkdir -p "$W"
nvidia-smi --query-gpu=index,name --format=csv,noheader
date -u
# coder, its properties, the source caps
cases=(
  "ebcotcm|bitrate=2|video/x-raw,format=Y444_12LE,width=4096,height=2160"
  "ebcotcm||video/x-raw,format=Y444_12LE,width=4096,height=2160"
  "htj2kenc|reversible=true|video/x-raw,format=Y444_12LE,width=3840,height=2160"
  "dpcmenc||video/x-raw,format=GRAY16_LE,width=1024,height=1024"
)
run() { # name element-string
  local t0 t1
  t0=$(date +%s.%N)
  gst-launch-1.0 -q videotestsrc num-buffers=$N pattern=ball ! "$caps" ! \
    queue max-size-buffers=8 ! $2 ! multifilesink location="$W/$1/%05d" || return 1
  t1=$(date +%s.%N)
  echo "$t0 $t1" | awk -v n=$N '{printf "%.1f", n / ($2 - $1)}'
}
printf '\n| coder | properties | frames | source alone frames/s | device 0 frames/s | devices %s frames/s | scaling | outputs |\n|---|---|---|---|---|---|---|---|\n' "$DEVICES" > "$W/table"
for c in "${cases[@]}"; do
  IFS='|' read -r coder props caps <<< "$c"
  mkdir -p "$W/one" "$W/multi" "$W/warm"
  run warm "$coder $props cuda-device-id=0" >/dev/null
  t0=$(date +%s.%N)
  gst-launch-1.0 -q videotestsrc num-buffers=$N pattern=ball ! "$caps" ! fakesink
  f0=$(echo "$t0 $(date +%s.%N)" | awk -v n=$N '{printf "%.1f", n / ($2 - $1)}')
  f1=$(run one "$coder $props cuda-device-id=0")
  f2=$(run multi "scimultigpu coder=$coder cuda-device-ids=$DEVICES coder-properties=\"$props\"")
  same=equal
  [ "$(ls "$W/one" | wc -l)" = "$N" ] || same="count $(ls "$W/one" | wc -l)"
  diff -rq "$W/one" "$W/multi" >/dev/null || same=DIFFER
  awk -v z="$f0" -v a="$f1" -v b="$f2" -v c="$coder" -v p="$props" -v n=$N -v s="$same" \
    'BEGIN {printf "| %s | %s | %d | %s | %s | %s | %.2fx | %s |\n", c, p, n, z, a, b, b / a, s}' >> "$W/table"
  rm -rf "$W/one" "$W/multi" "$W/warm"
done
cat "$W/table"
[ -n "${OUT:-}" ] && cp "$W/table" "$OUT/multigpu.txt"
