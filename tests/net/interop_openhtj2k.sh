#!/bin/sh
# RFC 9828 interoperability with OpenHTJ2K (github.com/osamu620/OpenHTJ2K,
# built outside our tree with -DOPENHTJ2K_RTP=ON), on loopback:
#   - rtpj2ksclpay to its receiver, open_htj2k_rtp_recv --no-render, which
#     checks the payload headers' rules, decodes every frame and writes
#     what it reassembled: every frame must be decoded, none failed, and
#     every codestream written must be the one our encoder made, byte for
#     byte (HT lossless 4:4:4 12-bit, HT at 1 bpp 4:2:0, a 1080p HT frame
#     with PLT in 1400-byte packets, and Part 1 from ebcotcm);
#   - where its source is at hand (OPENHTJ2K_SRC), its sender,
#     source/apps/rtp_recv/tools/rtp_loopback_send.py (a whole codestream
#     in one main packet, MH 3), to rtpj2kscldepay: the codestream must
#     come out whole.
# Exits 77 (skipped) without the receiver (OPENHTJ2K_RTP_RECV, or
# open_htj2k_rtp_recv on PATH).
#
#   tests/net/interop_openhtj2k.sh [WORKDIR]  (GST_PLUGIN_PATH_1_0: our plugin)
set -u
W=${1:-$(mktemp -d)}
mkdir -p "$W"
RECV=${OPENHTJ2K_RTP_RECV:-$(command -v open_htj2k_rtp_recv)}
[ -n "$RECV" ] && [ -x "$RECV" ] || {
  echo "skipped: no open_htj2k_rtp_recv"
  exit 77
}
PORT=${PORT:-5266}
fails=0

# case NAME FRAMES CAPS ENCODER [MTU]
case_to_theirs() {
  name=$1 n=$2 caps=$3 enc=$4 mtu=${5:-1400}
  d="$W/$name"
  rm -rf "$d"
  mkdir -p "$d"
  src="videotestsrc num-buffers=$n pattern=smpte ! $caps,framerate=30/1 ! $enc"
  gst-launch-1.0 -q $src ! multifilesink location="$d/ref_%05d.j2c" || {
    fails=$((fails + 1))
    return
  }
  "$RECV" --bind 127.0.0.1 --port "$PORT" --no-render --frames "$n" \
    --dump-codestream "$d/theirs_%05d.j2c" > "$d/recv.log" 2>&1 &
  pid=$!
  sleep 1
  gst-launch-1.0 -q $src ! rtpj2ksclpay mtu="$mtu" ! \
    udpsink host=127.0.0.1 port="$PORT" sync=true
  sleep 2
  kill $pid 2>/dev/null
  wait $pid 2>/dev/null
  same=0
  i=0
  while [ $i -lt "$n" ]; do
    f=$(printf '%05d' $i)
    cmp -s "$d/ref_$f.j2c" "$d/theirs_$f.j2c" && same=$((same + 1))
    i=$((i + 1))
  done
  decoded=$(sed -n 's/^ *frames decoded: *\([0-9]*\).*/\1/p' "$d/recv.log")
  failed=$(sed -n 's/^ *frames failed: *\([0-9]*\).*/\1/p' "$d/recv.log")
  echo "$name: $same of $n codestreams byte-identical, decoded ${decoded:-?}," \
    "failed ${failed:-?}"
  [ "$same" = "$n" ] && [ "${decoded:-}" = "$n" ] && [ "${failed:-}" = 0 ] ||
    fails=$((fails + 1))
}

case_to_theirs ht-lossless-444-12 30 \
  "video/x-raw,format=Y444_12LE,width=176,height=144" \
  "htj2kenc backend=cpu reversible=true"
case_to_theirs ht-1bpp-420 20 "video/x-raw,format=I420,width=320,height=240" \
  "htj2kenc backend=cpu bitrate=1"
case_to_theirs ht-1080p-plt 5 \
  "video/x-raw,format=Y444_12LE,width=1920,height=1080" \
  "htj2kenc backend=cpu reversible=true plt=true"
case_to_theirs part1-rgb 10 "video/x-raw,format=RGB,width=320,height=240" \
  "ebcotcm backend=cpu" 8000

SEND=${OPENHTJ2K_SRC:+$OPENHTJ2K_SRC/source/apps/rtp_recv/tools/rtp_loopback_send.py}
if [ -n "$SEND" ] && [ -f "$SEND" ] && command -v python3 > /dev/null; then
  d="$W/from-theirs"
  rm -rf "$d"
  mkdir -p "$d"
  cs="$W/ht-lossless-444-12/ref_00003.j2c"
  gst-launch-1.0 -q udpsrc address=127.0.0.1 port="$PORT" \
    caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=JPEG2000-SCL" \
    ! rtpj2kscldepay ! multifilesink location="$d/ours_%05d.j2c" &
  pid=$!
  sleep 1
  python3 "$SEND" "$cs" 127.0.0.1 "$PORT" > /dev/null
  sleep 1
  kill $pid 2>/dev/null
  wait $pid 2>/dev/null
  if cmp -s "$cs" "$d/ours_00000.j2c"; then
    echo "their sender to rtpj2kscldepay: the codestream came out whole"
  else
    echo "their sender to rtpj2kscldepay: the codestream did not come out whole"
    fails=$((fails + 1))
  fi
else
  echo "their sender: not run (OPENHTJ2K_SRC does not name its source)"
fi
[ $fails = 0 ]
