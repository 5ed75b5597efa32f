/*
 * Discrete wavelet transforms of JPEG 2000 Part 1 (ISO/IEC 15444-1 Annex F):
 * the reversible 5/3 integer lifting and the irreversible 9/7 lifting, with
 * whole-sample symmetric extension, applied N levels deep to a 2-D plane.
 *
 * The image origin is always (0, 0), so sample 0 of a row or column is even
 * and goes to the low-pass band: a signal of n samples splits into
 * ceil(n/2) low-pass and floor(n/2) high-pass samples.  A signal of one
 * sample passes unchanged (Annex F, 1D_SD / 1D_SR with i0 = i1 - 1, i0 even).
 *
 * Each level applies the vertical 1-D transform to every column and then the
 * horizontal one to every row (2D_SD); the inverse undoes the rows first and
 * then the columns (2D_SR).  The order matters for the integer 5/3 path:
 * it is the one every Part 1 decoder inverts.
 *
 * Coefficients are left in the Mallat layout, in place: after level l the
 * low-pass band LL_l occupies the top-left sci_dwt_low_len(w, l) x
 * sci_dwt_low_len(h, l) samples of the plane; the detail bands of level l
 * sit beside it inside LL_(l-1): HL_l (horizontal high, vertical low) to the
 * right, LH_l below, HH_l diagonally.
 *
 * Float paths compute in single precision, in exactly the order of
 * operations written in dwt.c, with no FMA contraction; cuda/j2k/dwt.cu performs
 * the same operations in the same order so both backends agree to the bit.
 */
#ifndef SCI_CODEC_DWT_H
#define SCI_CODEC_DWT_H

#include <stddef.h>
#include <stdint.h>

#include "codec/common/parallel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCI_DWT_MAX_LEVELS 32
#define SCI_DWT_MAX_SIZE 65535u

typedef enum {
    SCI_DWT_53 = 0, /* reversible 5/3, int32 coefficients */
    SCI_DWT_97 = 1, /* irreversible 9/7, float coefficients */
} sci_dwt_filter;

/* The 9/7 lifting constants of Annex F (Table F.4), as the float values the
 * lifting uses; alpha..delta are the four lifting steps, K the gain that the
 * forward transform divides the low-pass and multiplies the high-pass by. */
#define SCI_DWT97_ALPHA (-1.586134342059924f)
#define SCI_DWT97_BETA (-0.052980118572961f)
#define SCI_DWT97_GAMMA (0.882911075530934f)
#define SCI_DWT97_DELTA (0.443506852043971f)
#define SCI_DWT97_K (1.230174104914001f)
#define SCI_DWT97_INV_K (1.0f / 1.230174104914001f)

/* Samples in the low-pass band after `levels` decompositions of n samples. */
static inline uint32_t sci_dwt_low_len(uint32_t n, unsigned levels) {
    if (levels >= 32)
        return n > 0;
    return (uint32_t)(((uint64_t)n + (((uint64_t)1 << levels) - 1)) >> levels);
}

/* Levels of a w x h transform that change anything: those before the low
 * band is 1 x 1 (a one-sample signal passes unchanged). */
static inline unsigned sci_dwt_used_levels(uint32_t w, uint32_t h,
                                           unsigned levels) {
    unsigned used = 0;
    while (used < levels &&
           (sci_dwt_low_len(w, used) > 1 || sci_dwt_low_len(h, used) > 1))
        used++;
    return used;
}

/* Multi-level 2-D transforms, in place on the top-left w x h samples of a
 * plane whose rows are `stride` samples apart.  0 <= levels <= 32; w or h
 * of 0 is a no-op.  pool: the threads to use (NULL: the calling thread;
 * parallel.h).  Return 0, or -1 when scratch memory cannot be had. */
int sci_dwt53_forward(sci_pool *pool, int32_t *plane, uint32_t w, uint32_t h,
                      size_t stride, unsigned levels);
int sci_dwt53_inverse(sci_pool *pool, int32_t *plane, uint32_t w, uint32_t h,
                      size_t stride, unsigned levels);
int sci_dwt97_forward(sci_pool *pool, float *plane, uint32_t w, uint32_t h,
                      size_t stride, unsigned levels);
int sci_dwt97_inverse(sci_pool *pool, float *plane, uint32_t w, uint32_t h,
                      size_t stride, unsigned levels);
/* The 5/3 lifting in float without rounding (the seismic codec's transform,
 * not a JPEG 2000 one): forward x_odd += -1/2 (left + right), then x_even +=
 * 1/4 (left + right), each step as x + c * (a + b) in float; the inverse
 * x_even += -1/4 (...), then x_odd += 1/2 (...).  Same layout, levels and
 * extension as above. */
int sci_dwt53f_forward(sci_pool *pool, float *plane, uint32_t w, uint32_t h,
                       size_t stride, unsigned levels);
int sci_dwt53f_inverse(sci_pool *pool, float *plane, uint32_t w, uint32_t h,
                       size_t stride, unsigned levels);

#ifdef __cplusplus
}
#endif
#endif
