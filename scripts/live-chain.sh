#!/bin/sh
# The live CPU chain of issue 20, two processes on loopback:
#
#   sender:   videotestsrc is-live=true ! GRAY16_LE WxH at F fps ! dpcmenc !
#             rtpgstpay (8 KiB packets) ! udpsink
#   receiver: udpsrc ! queue ! rtpgstdepay ! dpcmdec ! identity ! fakesink
#
# N frames.  Prints the sender's wall and CPU time, and how long after the
# sender's start the receiver had decoded its last frame (counted from
# identity's messages, polled every 0.1 s).  A chain that keeps up takes
# about N / F seconds (50 frames at 5 fps: 10 s).  The receiver is given
# --grace seconds (default 30) after the sender ends; then it is stopped
# and the frames it decoded are counted.
#
#   scripts/live-chain.sh [--frames N] [--fps F] [--size WxH]
#                         [--threads T] [--port P] [--grace S]
#                         [--plugin-dir DIR]
#
# --threads sets both elements' `threads` property (left out: their
# default); --plugin-dir is where libgstscicodec.so is (default
# build/elements).  The environment (OMP_WAIT_POLICY, ...) passes through.
set -e
cd "$(dirname "$0")/.."
frames=50 fps=5 size=512x512 threads= port=5600 grace=30
plugin_dir=$PWD/build/elements
while [ $# -gt 0 ]; do
  case "$1" in
    --frames) frames=$2; shift 2 ;;
    --fps) fps=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --threads) threads="threads=$2"; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --grace) grace=$2; shift 2 ;;
    --plugin-dir) plugin_dir=$2; shift 2 ;;
    *) echo "usage: $0 [--frames N] [--fps F] [--size WxH] [--threads T]" \
         "[--port P] [--grace S] [--plugin-dir DIR]" >&2; exit 2 ;;
  esac
done
w=${size%x*} h=${size#*x}
tmp=$(mktemp -d /tmp/live-chain-XXXXXX)
trap '[ -n "$KEEP" ] || rm -rf "$tmp"' EXIT
export GST_PLUGIN_PATH_1_0="$plugin_dir"
export GST_REGISTRY_1_0="$tmp/registry.bin"
gst-inspect-1.0 dpcmenc >/dev/null
now() { date +%s.%N; }

# -v prints identity's last-message for every frame decoded
rtp="application/x-rtp,media=application,clock-rate=90000,encoding-name=X-GST"
gst-launch-1.0 -v udpsrc port="$port" buffer-size=4194304 caps="$rtp" ! \
  queue max-size-bytes=0 max-size-buffers=0 max-size-time=0 ! rtpgstdepay ! \
  dpcmdec backend=cpu $threads ! identity name=got silent=false ! \
  fakesink sync=false > "$tmp/recv.log" 2>&1 &
recv=$!
# the sender starts once the receiver listens (a busy host starts it slowly)
hexport=$(printf ':%04X ' "$port")
i=0
until grep -q "$hexport" /proc/net/udp /proc/net/udp6 2>/dev/null; do
  i=$((i + 1))
  if [ $i -gt 600 ] || ! kill -0 "$recv" 2>/dev/null; then
    echo "the receiver did not start" >&2
    cat "$tmp/recv.log" >&2
    exit 1
  fi
  sleep 0.1
done
sleep 0.5
t0=$(now)
/usr/bin/time -f "%e %U %S" -o "$tmp/send.time" \
  gst-launch-1.0 -q videotestsrc is-live=true num-buffers="$frames" \
    pattern=ball ! "video/x-raw,format=GRAY16_LE,width=$w,height=$h,framerate=$fps/1" ! \
    dpcmenc backend=cpu $threads ! rtpgstpay mtu=8192 ! \
    udpsink host=127.0.0.1 port="$port" sync=false > "$tmp/send.log" 2>&1
decoded() { grep -c "got: last-message = chain" "$tmp/recv.log" || true; }
i=0
while [ "$(decoded)" -lt "$frames" ] && [ $i -lt $((grace * 10)) ]; do
  sleep 0.1
  i=$((i + 1))
done
t1=$(now)
got=$(decoded)
stopped=
[ "$got" -ge "$frames" ] || stopped=yes
kill "$recv" 2>/dev/null || true
wait "$recv" 2>/dev/null || true
read -r sw su ss < "$tmp/send.time"
echo "frames $frames at $fps fps, ${w}x$h GRAY16_LE, ${threads:-threads default}," \
  "OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset}; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "sender:   wall $sw s, CPU $su s user + $ss s system"
if [ -z "$stopped" ] && [ "$got" -eq "$frames" ]; then
  echo "receiver: all $got frames decoded $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s after the sender started"
else
  echo "receiver: $got of $frames frames decoded, stopped ${grace} s after the sender ended" \
    "($(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s after it started)"
  exit 1
fi
