#!/bin/sh
# RFC 9828 interoperability: rtpj2ksclpay to OpenJPH's receiver
# (ojph_stream_expand, OpenJPH >= 0.12 built with
# -DOJPH_BUILD_STREAM_EXPAND=ON), on loopback: every frame it writes must
# be the codestream htj2kenc made, byte for byte.  Exits 77 (skipped)
# without ojph_stream_expand (OJPH_STREAM_EXPAND, or on PATH).
#
#   tests/net/interop_ojph.sh [WORKDIR]   (GST_PLUGIN_PATH_1_0: our plugin)
set -u
W=${1:-$(mktemp -d)}
mkdir -p "$W"
OJ=${OJPH_STREAM_EXPAND:-$(command -v ojph_stream_expand)}
[ -n "$OJ" ] && [ -x "$OJ" ] || { echo "skipped: no ojph_stream_expand"; exit 77; }
N=30
PORT=${PORT:-5260}
SRC="videotestsrc num-buffers=$N pattern=smpte ! video/x-raw,format=Y444_12LE,width=176,height=144,framerate=30/1 ! htj2kenc backend=cpu reversible=true"
rm -f "$W"/ref_*.j2c "$W"/ojph_*.j2c
gst-launch-1.0 -q $SRC ! multifilesink location="$W/ref_%05d.j2c" || exit 1
# its receive buffer holds 2048-byte datagrams: mtu 1400
(cd "$W" && exec "$OJ" -addr 127.0.0.1 -port "$PORT" -o ojph_%05d -blocking \
  > ojph.log 2>&1) &
pid=$!
sleep 1
gst-launch-1.0 -q $SRC ! rtpj2ksclpay mtu=1400 ! \
  udpsink host=127.0.0.1 port="$PORT" sync=true || { kill $pid; exit 1; }
sleep 2
kill $pid 2>/dev/null
wait $pid 2>/dev/null
same=0
i=0
while [ $i -lt $N ]; do
  f=$(printf '%05d' $i)
  cmp -s "$W/ref_$f.j2c" "$W/ojph_$f.j2c" && same=$((same + 1))
  i=$((i + 1))
done
echo "ojph_stream_expand ($OJ): $same of $N frames byte-identical to htj2kenc's"
[ $same = $N ]
