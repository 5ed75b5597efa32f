/*
 * Programmatic dependent launches (sm_90 and newer): a grid marked so may
 * start while the grid before it on the stream finishes, and each kernel
 * waits (cudaGridDependencySynchronize) before it reads what that grid
 * wrote; the launch gaps of short grids then overlap the work before them.
 * Included by the .cu files only.
 */
#ifndef SCI_CUDA_LAUNCH_CUH
#define SCI_CUDA_LAUNCH_CUH

#include <cuda_runtime.h>

#include <stddef.h>

/* kernel<<<grid, block, smem, s>>>(args...), marked as a programmatic
 * dependent launch when pdl is set (a device of compute capability 9 or
 * more: launch_pdl_supported). */
template <typename... A>
static cudaError_t launch_pdl(void (*kernel)(A...), dim3 grid, dim3 block,
                              size_t smem, cudaStream_t s, bool pdl,
                              A... args) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cudaLaunchAttribute at = {};
    at.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at.val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = &at;
    cfg.numAttrs = pdl ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, kernel, args...);
}

/* Whether a device of compute capability `major`.x takes them. */
static inline bool launch_pdl_supported(int major) {
    return major >= 9;
}

#endif
