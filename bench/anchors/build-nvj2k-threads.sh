#!/bin/sh
# Builds nvj2k_threads.c (nvJPEG2000 decoding with frames in flight, a
# thread each) on a machine without a GPU: NVIDIA's wheel from PyPI for the
# header and library, the static CUDA runtime.  Carry OUTDIR to the GPU host
# and run there: LD_LIBRARY_PATH=OUTDIR OUTDIR/nvj2k-threads FILE...
#   bench/anchors/build-nvj2k-threads.sh [OUTDIR]   (default .anchors/nvj2k)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-.anchors/nvj2k}
CUDA=${CUDA:-/usr/local/cuda}
mkdir -p "$OUT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 -m pip download -q --no-deps -d "$T" nvidia-nvjpeg2k-cu13==0.11.0.51
python3 -m zipfile -e "$T"/nvidia_nvjpeg2k_cu13-*.whl "$T/x"
J=$T/x/nvidia/nvjpeg2k
cp "$J/lib/libnvjpeg2k.so.0" "$OUT/"
cc -O2 -Wall -Wextra -I"$HERE/../.." -I"$CUDA/include" -I"$J/include" \
  "$HERE/nvj2k_threads.c" \
  -L"$J/lib" -l:libnvjpeg2k.so.0 "$CUDA/lib64/libcudart_static.a" \
  -ldl -lpthread -lrt -o "$OUT/nvj2k-threads"
echo "built $OUT/nvj2k-threads"
