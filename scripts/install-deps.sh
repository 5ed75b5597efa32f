#!/bin/sh
# Installs what building and testing the project needs on Debian 12.
# The CUDA toolkit (nvcc) is not a Debian 12 package: where it is installed
# (/usr/local/cuda), the CUDA backend is built; elsewhere the CPU one only.
# openjph-tools, libopenjp2-tools and grokj2k-tools: the three JPEG 2000
# decoders of the conformance test (tests/j2k/conformance_htj2k.c).
# libcfitsio-dev: the FITS elements fitsdec and fitsenc.
# libgdal-dev: the ENVI hyperspectral cube elements envisrc and envisink.
# libzstd-dev: the seismic codec (code tables, SEG-Y headers); libsegyio-dev:
# the SEG-Y elements segysrc and segysink; libzfp-dev: bench-seismic's anchor.
# libcharls-dev, liblzma-dev, libzstd-dev, libbz2-dev: the lossless anchors
# of bench-dpcm (JPEG-LS, xz, zstd, bzip2, all in-process); optional there,
# the bench prints n/a for a missing one (zstd is required by the codec).
# time (GNU time): scripts/live-chain.sh's CPU times.
# xz-utils: conformance-j2k-dec's reference images are xz-compressed.
# iproute2, python3: two-hosts runs a sender and a receiver in two network
# namespaces (ip netns) and compares their frames in Python.
set -eu
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential meson ninja-build pkg-config \
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev \
  libgstreamer-plugins-bad1.0-dev \
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
  gstreamer1.0-plugins-bad \
  openjph-tools libopenjp2-tools grokj2k-tools libcfitsio-dev libgdal-dev \
  libcharls-dev liblzma-dev libzstd-dev libbz2-dev libsegyio-dev libzfp-dev \
  time xz-utils iproute2 python3 >/dev/null
# fitsverify: test-fits checks fitsenc's files with it (skipped without it).
$SUDO apt-get install -y -qq --no-install-recommends fitsverify >/dev/null
# archive/sciarchive.py and its test: Dask distributed, numpy and PyGObject
# with GStreamer's introspection data.  Dask's dashboard needs bokeh 2.4
# (Debian 12's distributed takes 2.4.2..2.4.3, which Debian does not
# package): from PyPI, its dependencies from Debian.
$SUDO apt-get install -y -qq --no-install-recommends \
  python3-distributed python3-numpy python3-gi python3-gst-1.0 \
  gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 \
  python3-pip python3-jinja2 python3-pil python3-yaml \
  python3-typing-extensions python3-tornado python3-packaging >/dev/null
/usr/bin/python3 -c 'import bokeh' 2>/dev/null ||
  $SUDO /usr/bin/python3 -m pip install -q --no-deps --break-system-packages \
    --root-user-action=ignore bokeh==2.4.3
