#!/bin/bash
# The glass-to-glass latency benchmark of issue 23 on the GPU host, in one
# command: 4K 4:4:4 12-bit at 60 frames/s through htj2kenc (CUDA), an RTP
# payloader, UDP loopback, the depayloader and j2kdec (CUDA), for RFC 9828
# (rtpj2ksclpay / rtpj2kscldepay) lossless and at 1 bit a pixel, RFC 5371
# (rtpj2kpay / rtpj2kdepay) lossless beside them, and 1080p.  Tables to
# $OUT.
#
# Here (no GPU), once: build build-gpu (scripts/bench-j2kdec.sh says how),
# then bundle it with GStreamer's UDP and RTP plugins, which gpu-bundle
# leaves out:
#   ../shared/tools/gpu-bundle build-gpu
#   for p in udp rtp rtpmanager; do
#     cp /usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgst$p.so .gpu/plugins/; done
#   tar -cf - .gpu build-gpu | xz -T2 -6 > .gpu-pack.tar.xz
# There (carry .gpu-pack.tar.xz):
#   tar xJf .gpu-pack.tar.xz && OUT=$OUT scripts/bench-rtp-latency.sh
# Settings: FRAMES (600: 10 s), OUT (/tmp/bench-rtp-latency).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/bench-rtp-latency}
FRAMES=${FRAMES:-600}
mkdir -p "$OUT"
[ -f .gpu/env.sh ] && source .gpu/env.sh
export GST_PLUGIN_PATH_1_0=$PWD/build-gpu/elements
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
# a coded 4K lossless frame leaves in one burst of about 16 MB
sysctl -w net.core.rmem_max=268435456 net.core.wmem_max=268435456 2>&1 | tail -1
B=build-gpu/bench/net/bench-rtp-latency
# a queue gives the depayloader a thread of its own, so that udpsrc's
# thread only receives: 1.3-1.8 ms less of the 5.2-5.4 ms that a 4K
# lossless frame's packets waited for the receiver (H100, 2026-11-28)
SCL=(--pay 'rtpj2ksclpay mtu=60000'
     --depay 'queue max-size-buffers=0 max-size-time=0 max-size-bytes=67108864 ! rtpj2kscldepay'
     --rtp-caps 'application/x-rtp,media=video,clock-rate=90000,encoding-name=JPEG2000-SCL')
run() {
  name=$1; shift
  echo "== $name"
  "$B" --frames "$FRAMES" --csv "$OUT/$name.csv" "$@" > "$OUT/$name.txt" 2>&1
  echo "exit status $?"
  grep -E "^frames pushed from|^\| [0-9c]|^\|   of which|^\| (decode|payload)" "$OUT/$name.txt"
}
# 4K at 60 frames/s: RFC 9828 lossless and at 1 bpp (frames from the
# page-locked pool htj2kenc proposes, and from pageable memory), RFC 5371
run 4k-lossless-60 --enc 'htj2kenc backend=cuda reversible=true plt=true' "${SCL[@]}"
run 4k-1bpp-60 --enc 'htj2kenc backend=cuda bitrate=1 plt=true' "${SCL[@]}"
run 4k-1bpp-60-own --own-memory --enc 'htj2kenc backend=cuda bitrate=1 plt=true' "${SCL[@]}"
run 4k-lossless-60-rfc5371 --lossless
# 1080p 4:4:4 12-bit at 60 frames/s, RFC 9828
run 1080p-lossless-60 --width 1920 --height 1080 --enc 'htj2kenc backend=cuda reversible=true plt=true' "${SCL[@]}"
run 1080p-1bpp-60 --width 1920 --height 1080 --enc 'htj2kenc backend=cuda bitrate=1 plt=true' "${SCL[@]}"
