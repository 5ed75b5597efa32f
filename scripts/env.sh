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
