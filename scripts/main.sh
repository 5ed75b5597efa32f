#!/bin/sh
# The main job: install, build, and run videotestsrc frames through
# cudadwt ! cudaidwt, checking that every 5/3 frame comes back exact, then
# through htj2kenc ! openjpegdec, checking that every lossless frame comes
# back exact and every lossy one above its PSNR floor.  Arguments (--frames
# N, --backend auto|cuda|cpu, --system-memory) go to both programs.
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
exit $rc
