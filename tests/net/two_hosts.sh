#!/bin/sh
# Two hosts on one machine: network namespaces joined by a veth pair, the
# sender in one, the receiver in the other, every frame checked exact
# (issue 23).  Needs root (ip netns); exits 77 (skipped) where the
# namespaces or the veth pair cannot be made.
#
#   tests/net/two_hosts.sh [WORKDIR]     (GST_PLUGIN_PATH_1_0: our plugin)
#
# Cases, each a gst-launch sender and receiver:
#   dpcm-rtp   16-bit frames -> dpcmenc -> rtpgstpay -> UDP -> rtpgstdepay
#              -> dpcmdec (paced by the frames' timestamps: sync=true)
#   j2k-rtp    I420 -> htj2kenc (lossless) -> rtpj2kpay (RFC 5371) -> UDP
#              -> rtpj2kdepay -> jpeg2000parse -> j2kdec
#   j2k-ts     Y444_12LE -> htj2kenc (lossless) -> mpegtsmux -> UDP ->
#              tsdemux -> jpeg2000parse -> j2kdec
#   segy-rtp   real field records (../shared/data/seismic/shot-gather.sgy,
#              a gather a shot, paced by segysrc's timestamps) -> seismicenc
#              -> rtpgstpay -> UDP -> rtpgstdepay -> seismicdec -> segysink:
#              every gather arrives, the file and trace headers exact
#              (skipped without the data)
#   j2k-srt    j2k-ts over SRT (srtsink caller, srtsrc listener): the
#              frames that arrive are exact and in order; srtsink closes
#              at EOS with the last frames unsent, so some may miss at the
#              end (docs/streaming.md); skipped without the srt elements
#   fits-rtp   a real FITS frame (../shared/data/frames16, TRACE 171 A)
#              -> fitsdec -> dpcmenc -> RTP -> dpcmdec -> fitsenc: its data
#              unit back exact (skipped without the data)
#   j2k-loss   j2k-rtp with 10 % of the packets dropped: the frames that
#              arrive are exact, or cut short and decoded as far as they
#              go with j2kdec's damage warning, never an error
#   dpcm-loss  dpcm-rtp with 10 % of the RTP packets dropped before the
#              link (identity drop-probability: the kernel's netem is not
#              in every container): the frames that arrive are exact, the
#              others are missing, never half-decoded.
#   j2k-scl    Y444_12LE -> htj2kenc (lossless, PLT) -> rtpj2ksclpay (RFC
#              9828) -> UDP -> rtpjitterbuffer -> rtpj2kscldepay -> j2kdec
#   j2k-scl-loss  j2k-scl through netsim (gst-plugins-bad: 3 % of the
#              packets dropped, each delayed 0 to 10 ms at random, so that
#              they arrive reordered): rtpjitterbuffer puts them back in
#              order; the frames that arrive are exact, or repaired by
#              rtpj2kscldepay with its warning (the lost J2K packets
#              emptied), never an error.
# UDP carries no EOS: a receiver runs with gst-launch -e and is stopped
# (SIGINT, then EOS) a second after its sender ends.
set -u
W=${1:-$(mktemp -d)}
mkdir -p "$W"
A=scia$$
B=scib$$
FRAMES=40

skip() { echo "skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root"
command -v ip >/dev/null || skip "no ip (iproute2)"
ip netns add "$A" 2>/dev/null || skip "cannot make a network namespace"
trap 'ip netns del "$A" 2>/dev/null; ip netns del "$B" 2>/dev/null' EXIT
ip netns add "$B" || skip "cannot make a second network namespace"
ip link add vA netns "$A" type veth peer name vB netns "$B" 2>/dev/null ||
  skip "cannot make a veth pair"
ip -n "$A" addr add 10.77.0.1/24 dev vA
ip -n "$B" addr add 10.77.0.2/24 dev vB
for ns in "$A" "$B"; do ip -n "$ns" link set lo up; done
ip -n "$A" link set vA up
ip -n "$B" link set vB up

fail=0
# relay NAME RECEIVER SENDER: the receiver pipeline in B, a second later
# the sender pipeline in A.  With NETSTREAM (examples/netstream: meson
# gives it), each end counts its frames and the receiver reports the
# latency query's answer, and ends itself (an EOS) two seconds after its
# last frame; else gst-launch-1.0 -e (not -q, so that the log keeps the
# warnings and errors), stopped by SIGINT (an EOS) a second after the
# sender ends.  A receiver still running 8 s after its sender is stopped
# so.  Logs: $W/NAME.recv.log, $W/NAME.send.log.
relay() {
  if [ -n "${NETSTREAM:-}" ]; then
    ip netns exec "$B" "$NETSTREAM" --idle 2 $2 > "$W/$1.recv.log" 2>&1 &
  else
    ip netns exec "$B" gst-launch-1.0 -e $2 > "$W/$1.recv.log" 2>&1 &
  fi
  rpid=$!
  sleep 1
  if [ -n "${NETSTREAM:-}" ]; then
    ip netns exec "$A" "$NETSTREAM" $3 > "$W/$1.send.log" 2>&1
  else
    ip netns exec "$A" gst-launch-1.0 -q $3 > "$W/$1.send.log" 2>&1
  fi || { echo "FAIL $1: the sender"; cat "$W/$1.send.log"; fail=1; }
  if [ -n "${NETSTREAM:-}" ]; then
    t=0
    while kill -0 $rpid 2>/dev/null && [ $t -lt 16 ]; do
      sleep 0.5
      t=$((t + 1))
    done
  else
    sleep 1
  fi
  kill -INT $rpid 2>/dev/null
  wait $rpid
}

# case name, source (caps included), sender chain, receiver chain, output
# caps, drop probability (or "tail": frames may be missing at the end
# only; a probability followed by "+partial": frames cut short may also
# arrive, each with its decoder's "decoded what is intact" warning), and
# the sender's sink (UDP to the receiver by default)
run_case() {
  name=$1 src=$2 send=$3 recv=$4 outcaps=$5 drop=$6
  sink=${7:-udpsink host=10.77.0.2 port=5004 sync=true}
  rm -f "$W/$name.ref" "$W/$name.rx"
  gst-launch-1.0 -q $src ! filesink location="$W/$name.ref" || {
    echo "FAIL $name: the reference frames"; fail=1; return; }
  dropper=""
  p=${drop%+partial}
  case $drop in
    0|tail) ;;
    netsim:*) dropper="! netsim drop-probability=${p#netsim:} \
      delay-distribution=uniform min-delay=0 max-delay=10";;
    *) dropper="! identity drop-probability=$p";;
  esac
  relay "$name" "$recv ! $outcaps ! filesink location=$W/$name.rx" \
    "$src ! identity name=count ! $send $dropper ! $sink"
  python3 - "$W/$name.ref" "$W/$name.rx" "$FRAMES" "$name" "$drop" \
    "$W/$name.recv.log" "$W/$name.send.log" <<'PY'
import re, sys
ref, rx, n, name, drop = open(sys.argv[1], "rb").read(), \
    open(sys.argv[2], "rb").read(), int(sys.argv[3]), sys.argv[4], sys.argv[5]
log = open(sys.argv[6], errors="replace").read()
slog = open(sys.argv[7], errors="replace").read()
# netstream's counts at both ends and the receiver's latency query
sent = re.findall(r"^frames: (\d+)$", slog, re.M)
counted = re.findall(r"^frames: (\d+)$", log, re.M)
latency = re.findall(r"^latency: (.*)$", log, re.M)
fb = len(ref) // n
frames = [ref[i * fb:(i + 1) * fb] for i in range(n)]
got = [rx[i * fb:(i + 1) * fb] for i in range(len(rx) // fb)]
ok = len(rx) % fb == 0 and "ERROR" not in log
# every frame that arrived is one sent, in order; with +partial, those
# that are not are at most as many as the decoder's damage warnings and
# the RFC 9828 depayloader's repair warnings
partial, damaged, at = drop.endswith("+partial"), 0, 0
warned = log.count("decoded what is intact") + \
    log.count("lost packets in transit and was")
for g in got:
    k = at
    while k < n and frames[k] != g:
        k += 1
    if k < n:
        at = k + 1
    elif partial:
        damaged += 1
    else:
        ok = False
ok = ok and damaged <= warned
if sent or counted:
    ok = ok and sent == [str(n)] and counted == [str(len(got))]
exact = len(got) - damaged
if drop == "0":
    ok = ok and len(got) == n
elif drop == "tail":
    # the first frames, each exact, none missing before the last received
    ok = ok and 0 < len(got) <= n and got == frames[:len(got)]
else:
    ok = ok and 0 < exact < n
print("%s %s: %d of %d frames received, %d exact, %d cut short (%d damage "
      "warnings)%s" % ("ok" if ok else "FAIL", name, len(got), n, exact,
                       damaged, warned,
                       "; counted: %s sent, %s received; receiver latency: %s"
                       % (sent[0] if sent else "?",
                          counted[0] if counted else "?",
                          latency[0] if latency else "?")
                       if sent or counted else ""))
sys.exit(0 if ok else 1)
PY
  [ $? = 0 ] || { fail=1; cat "$W/$name.recv.log"; }
}

# The SEG-Y chain: the same size and the same headers, byte for byte (the
# samples are coded lossily; test-seismic-elements holds their SNR).
segy_case() {
  data=${SCI_TEST_DATA_DIR:-$(dirname "$0")/../../../shared/data}
  f=$data/seismic/shot-gather.sgy
  [ -f "$f" ] || { echo "skipped segy-rtp: no $f"; return; }
  rm -f "$W/segy.rx.sgy"
  relay segy "$RTP_GST ! rtpjitterbuffer latency=200 ! rtpgstdepay ! \
    seismicdec backend=cpu ! segysink location=$W/segy.rx.sgy" \
    "segysrc location=$f gather-key=ffid ! seismicenc backend=cpu ! \
    rtpgstpay ! udpsink host=10.77.0.2 port=5004 sync=true"
  python3 - "$f" "$W/segy.rx.sgy" <<'PY'
import struct, sys
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
ns, fmt = struct.unpack(">H", a[3220:3222])[0], struct.unpack(">H", a[3224:3226])[0]
bps = {1: 4, 2: 4, 3: 2, 5: 4, 8: 1}[fmt]
tl = 240 + ns * bps
n = (len(a) - 3600) // tl
ok = len(a) == len(b) and a[:3600] == b[:3600] and all(
    a[3600 + i * tl:3600 + i * tl + 240] == b[3600 + i * tl:3600 + i * tl + 240]
    for i in range(n))
print("%s segy-rtp: %d traces in %d bytes received, file and trace headers "
      "exact" % ("ok" if ok else "FAIL", n, len(b)))
sys.exit(0 if ok else 1)
PY
  [ $? = 0 ] || { fail=1; cat "$W/segy.recv.log"; }
}

# A real FITS frame (TRACE 171 A, 1024 x 1024, 16-bit) through fitsdec,
# dpcmenc, RTP, dpcmdec and fitsenc: its data unit back exact.
fits_case() {
  data=${SCI_TEST_DATA_DIR:-$(dirname "$0")/../../../shared/data}
  f=$data/frames16/trace_171_19980519T222143_1024.fits
  [ -f "$f" ] || { echo "skipped fits-rtp: no $f"; return; }
  rm -f "$W/fits.rx.fits"
  # a frame of about 1.3 MB leaves in one burst of RTP packets: the
  # receiver's socket buffer must hold it
  ip netns exec "$B" sh -c 'echo 33554432 > /proc/sys/net/core/rmem_max' \
    2>/dev/null
  relay fits "$RTP_GST buffer-size=33554432 ! rtpjitterbuffer latency=200 ! \
    rtpgstdepay ! dpcmdec backend=cpu ! fitsenc ! \
    filesink location=$W/fits.rx.fits" \
    "filesrc location=$f blocksize=4194304 ! fitsdec ! dpcmenc backend=cpu ! \
    rtpgstpay ! udpsink host=10.77.0.2 port=5004"
  python3 - "$f" "$W/fits.rx.fits" <<'PY'
import sys
def data_unit(path):
    b = open(path, "rb").read()
    i, kv = 0, {}
    while i + 80 <= len(b) and not b[i:i + 80].startswith(b"END "):
        c = b[i:i + 80].decode("ascii", "replace")
        if c[8:10] == "= ":
            kv[c[:8].strip()] = c[10:].split("/")[0].strip()
        i += 80
    start = (i // 2880 + 1) * 2880
    n = int(kv["NAXIS1"]) * int(kv["NAXIS2"]) * abs(int(kv["BITPIX"])) // 8
    return kv["BITPIX"], b[start:start + n]
try:
    a, b = data_unit(sys.argv[1]), data_unit(sys.argv[2])
    ok = a == b
except (OSError, KeyError, ValueError):
    ok = False
print("%s fits-rtp: the FITS data unit %s" % ("ok" if ok else "FAIL",
      "came back exact" if ok else "differs or is missing"))
sys.exit(0 if ok else 1)
PY
  [ $? = 0 ] || { fail=1; cat "$W/fits.recv.log"; }
}

RTP_GST="udpsrc port=5004 caps=application/x-rtp,media=application,clock-rate=90000,encoding-name=X-GST"
run_case dpcm-rtp \
  "videotestsrc num-buffers=$FRAMES pattern=ball ! video/x-raw,format=GRAY16_LE,width=160,height=120,framerate=50/1" \
  "dpcmenc backend=cpu ! rtpgstpay" \
  "$RTP_GST ! rtpjitterbuffer latency=200 ! rtpgstdepay ! dpcmdec backend=cpu" \
  "video/x-raw,format=GRAY16_LE" 0
run_case j2k-rtp \
  "videotestsrc num-buffers=$FRAMES pattern=smpte ! video/x-raw,format=I420,width=160,height=120,framerate=50/1" \
  "htj2kenc backend=cpu reversible=true ! rtpj2kpay" \
  "udpsrc port=5004 caps=application/x-rtp,media=video,clock-rate=90000,encoding-name=JPEG2000,sampling=YCbCr-4:2:0 ! rtpjitterbuffer latency=200 ! rtpj2kdepay ! jpeg2000parse ! j2kdec backend=cpu" \
  "video/x-raw,format=I420" 0
run_case j2k-ts \
  "videotestsrc num-buffers=$FRAMES pattern=ball ! video/x-raw,format=Y444_12LE,width=160,height=120,framerate=50/1" \
  "htj2kenc backend=cpu reversible=true ! mpegtsmux" \
  "udpsrc port=5004 ! tsdemux ! jpeg2000parse ! j2kdec backend=cpu" \
  "video/x-raw,format=Y444_12LE" 0
segy_case
fits_case
if gst-inspect-1.0 srtsink >/dev/null 2>&1; then
  run_case j2k-srt \
    "videotestsrc num-buffers=$FRAMES pattern=ball ! video/x-raw,format=Y444_12LE,width=160,height=120,framerate=50/1" \
    "htj2kenc backend=cpu reversible=true ! mpegtsmux" \
    "srtsrc uri=srt://:5005?mode=listener ! tsdemux ! jpeg2000parse ! j2kdec backend=cpu" \
    "video/x-raw,format=Y444_12LE" tail \
    "srtsink uri=srt://10.77.0.2:5005?mode=caller"
else
  echo "skipped j2k-srt: no srtsink"
fi
run_case j2k-loss \
  "videotestsrc num-buffers=$FRAMES pattern=smpte ! video/x-raw,format=I420,width=160,height=120,framerate=50/1" \
  "htj2kenc backend=cpu reversible=true ! rtpj2kpay mtu=600" \
  "udpsrc port=5004 caps=application/x-rtp,media=video,clock-rate=90000,encoding-name=JPEG2000,sampling=YCbCr-4:2:0 ! rtpjitterbuffer latency=200 ! rtpj2kdepay ! jpeg2000parse ! j2kdec backend=cpu" \
  "video/x-raw,format=I420" 0.1+partial
SCL_CAPS="application/x-rtp,media=video,clock-rate=90000,encoding-name=JPEG2000-SCL"
run_case j2k-scl \
  "videotestsrc num-buffers=$FRAMES pattern=ball ! video/x-raw,format=Y444_12LE,width=160,height=120,framerate=50/1" \
  "htj2kenc backend=cpu reversible=true plt=true ! rtpj2ksclpay" \
  "udpsrc port=5004 caps=$SCL_CAPS ! rtpjitterbuffer latency=200 ! rtpj2kscldepay ! j2kdec backend=cpu" \
  "video/x-raw,format=Y444_12LE" 0
if gst-inspect-1.0 netsim >/dev/null 2>&1; then
  run_case j2k-scl-loss \
    "videotestsrc num-buffers=$FRAMES pattern=smpte ! video/x-raw,format=Y444_12LE,width=160,height=120,framerate=50/1" \
    "htj2kenc backend=cpu reversible=true plt=true ! rtpj2ksclpay" \
    "udpsrc port=5004 caps=$SCL_CAPS ! rtpjitterbuffer latency=200 ! rtpj2kscldepay ! j2kdec backend=cpu" \
    "video/x-raw,format=Y444_12LE" netsim:0.03+partial
else
  echo "skipped j2k-scl-loss: no netsim"
fi
run_case dpcm-loss \
  "videotestsrc num-buffers=$FRAMES pattern=ball ! video/x-raw,format=GRAY16_LE,width=160,height=120,framerate=50/1" \
  "dpcmenc backend=cpu ! rtpgstpay" \
  "$RTP_GST ! rtpjitterbuffer latency=200 ! rtpgstdepay ! dpcmdec backend=cpu" \
  "video/x-raw,format=GRAY16_LE" 0.1
exit $fail
