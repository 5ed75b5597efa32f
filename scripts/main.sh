#!/bin/sh
# The main job: install, build, and run videotestsrc frames through
# cudadwt ! cudaidwt, checking that every 5/3 frame comes back exact.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
. scripts/env.sh
setup_build
GST_PLUGIN_PATH_1_0="$PWD/$BUILD/elements" "$BUILD/examples/dwt-roundtrip" "$@"
