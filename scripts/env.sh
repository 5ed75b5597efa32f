# Sourced by the scripts: the build dir and the CUDA toolkit on PATH.
BUILD=${BUILD:-build}
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  PATH=/usr/local/cuda/bin:$PATH
  export PATH
fi
# One GPU architecture keeps a CI build short; release builds take "all".
CUDA_ARCH=${CUDA_ARCH:-sm_90}
setup_build() {
  if [ ! -f "$BUILD/build.ninja" ]; then
    meson setup "$BUILD" -Dcuda-arch="$CUDA_ARCH" "$@"
  fi
  ninja -C "$BUILD"
}
# The kernels alone (cuda/), compiled for the oldest architecture that
# cuda-arch=all builds (sm_75, Turing) where the main build has the CUDA
# backend: a feature of newer GPUs used in a kernel breaks CI here, not a
# release build.  Compile only: no tests, benchmarks or plugin.
OLDEST_CUDA_ARCH=sm_75
compile_oldest_arch() {
  if [ "$CUDA_ARCH" = "$OLDEST_CUDA_ARCH" ] ||
    ! grep -q 'HAVE_CUDA 1' "$BUILD/config.h" 2>/dev/null; then
    return 0
  fi
  if [ ! -f "$BUILD-$OLDEST_CUDA_ARCH/build.ninja" ]; then
    meson setup "$BUILD-$OLDEST_CUDA_ARCH" -Dcuda=enabled \
      -Dcuda-arch="$OLDEST_CUDA_ARCH" -Dtests=disabled -Dbench=disabled
  fi
  ninja -C "$BUILD-$OLDEST_CUDA_ARCH" cuda/libscicodec-cuda.a
}
