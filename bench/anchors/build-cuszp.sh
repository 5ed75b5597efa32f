#!/bin/sh
# Builds cuszp_seis.cu (cuSZp on the seismic codec's gathers, issue 24)
# against cuSZp's public source, which stays outside our tree: CUSZP_SRC is
# a checkout or `git archive` export of github.com/szcompressor/cuSZp
# (3.x).  nvcc for sm_90 with the static CUDA runtime, so the binary needs
# only the driver: carry OUTDIR to the GPU host and run there
#   OUTDIR/cuszp-seis [--csv FILE] [--reps N] [SEGY...]
#   bench/anchors/build-cuszp.sh CUSZP_SRC [OUTDIR]   (default .anchors/cuszp)
# CUSZP_REV (default: git describe of CUSZP_SRC, else "unknown") is the
# version the program prints.  The SEG-Y files of the comparison are copied
# from ../shared/data/seismic into OUTDIR/data.
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 CUSZP_SRC [OUTDIR]" >&2
  exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$1" && pwd)
OUT=${2:-.anchors/cuszp}
CUDA=${CUDA:-/usr/local/cuda}
REV=${CUSZP_REV:-$(git -C "$SRC" describe --tags --always 2>/dev/null || echo unknown)}
mkdir -p "$OUT/obj"
# cuSZp's generic entry points (src/cuSZp.cu) and the entries and kernels
# they dispatch to, a compiler per CPU; their CMake flags less the
# architectures, and quiet about CUDA 13 deprecating their double4 (1444)
NVCC="$CUDA/bin/nvcc -O3 -arch=sm_90 -std=c++17 -Xcompiler -Wno-unused-result"
export NVCC SRC OUT
# shellcheck disable=SC2016 # expanded by the sh that xargs starts
printf '%s\0' "$SRC"/src/cuSZp.cu "$SRC"/src/cuSZp_entry_*.cu \
  "$SRC"/src/cuSZp_kernels_*.cu |
  xargs -0 -n 1 -P "$(nproc)" sh -c '$NVCC -diag-suppress 1444 \
    -I"$SRC/include" -I"$SRC/include/cuSZp" -c "$1" \
    -o "$OUT/obj/$(basename "$1" .cu).o"' sh
cc -O2 -Wall -Wextra -I"$HERE/../.." -c "$HERE/../../tests/segy/segyread.c" \
  -o "$OUT/obj/segyread.o"
$NVCC -Xcompiler -Wall,-Wextra -I"$HERE/../.." -I"$SRC/include" \
  -DCUSZP_REV="\"$REV\"" -cudart static \
  "$HERE/cuszp_seis.cu" "$OUT"/obj/*.o -o "$OUT/cuszp-seis"
rm -rf "$OUT/obj"
# the real gathers of issue 24's comparison travel with it (the GPU host
# has no ../shared)
DATA=$HERE/../../../shared/data/seismic
if [ -d "$DATA" ]; then
  mkdir -p "$OUT/data"
  for f in f3.sgy volve10r12-full-twt-arb.sgy volve10r12-full-z-il10117sub.sgy; do
    cp -f "$DATA/$f" "$OUT/data/"
  done
fi
echo "built $OUT/cuszp-seis (cuSZp $REV)"
