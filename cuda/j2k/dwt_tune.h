/*
 * Tuning knob of cuda/j2k/dwt.cu for benchmarks; not part of the stage's API.
 */
#ifndef SCI_CUDA_DWT_TUNE_H
#define SCI_CUDA_DWT_TUNE_H

#include "dwt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tallest tile (16, 32 or 64 rows), the same for forward and inverse
 * blocks that hold three components (16 or 32), and the block count under
 * which a level halves its tile height (< 0 keeps the current one); other
 * values keep the current setting.  Defaults: 64, 32, 32, about one wave
 * (8 blocks per multiprocessor). */
void sci_cuda_wt_tune(sci_cuda_wt *wt, int max_rows, int joint_fwd,
                      int joint_inv, int min_blocks);

/* The forward's warps (cuda/j2k/dwt_strip.cuh): rows of a warp's chunk at
 * most (4 to 64, a power of two; 0: the forward runs on tiles too), and
 * the warp count under which a level halves them, and under which, even at
 * 4 rows, it runs on tiles (< 0 keeps the current one).  Defaults: 8 rows,
 * 16 warps a multiprocessor. */
void sci_cuda_wt_tune_strips(sci_cuda_wt *wt, int max_rows, int min_warps);

#ifdef __cplusplus
}
#endif
#endif
