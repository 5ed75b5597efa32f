#!/bin/sh
# The main job: install, build, and run videotestsrc frames through
# cudadwt ! cudaidwt, checking that every 5/3 frame comes back exact, then
# through htj2kenc and ebcotcm (JPEG 2000 Part 15 and Part 1), each
# codestream decoded by j2kdec and by openjpegdec (the independent check),
# checking that every lossless frame comes back exact from both and
# every lossy one above its PSNR floor; then synthetic shot
# gathers through seismicenc ! seismicdec, each above its SNR floor, and,
# where ../shared/data holds it, the F3 SEG-Y file through segysrc ..
# segysink with its headers back byte for byte; then the real 16-bit
# frames of ../shared/data (TREx auroral imager sequences, GMOS-N
# spectrograph frames) through dpcmenc ! dpcmdec, every frame back exact and
# every coded frame equal to the C reference's, bits per pixel beside
# JPEG-LS; last, the real Samson hyperspectral cube through envisrc !
# sppfilter at two windows, every value within 1e-5 of the C reference.
# Arguments (--frames N, --backend auto|cuda|cpu, --system-memory) go to
# every program.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
. scripts/env.sh
setup_build
export GST_PLUGIN_PATH_1_0="$PWD/$BUILD/elements"
rc=0
"$BUILD/examples/dwt-roundtrip" "$@" || rc=1
echo
"$BUILD/examples/htj2k-roundtrip" "$@" || rc=1
echo
f3=../shared/data/seismic/f3.sgy
if [ -f "$f3" ]; then
  "$BUILD/examples/seismic-roundtrip" --segy "$f3" "$@" || rc=1
else
  "$BUILD/examples/seismic-roundtrip" "$@" || rc=1
fi
echo
"$BUILD/examples/dpcm-roundtrip" "$@" || rc=1
echo
"$BUILD/examples/spp-check" "$@" || rc=1
exit $rc
