/*
 * Reference 2-D DWT of JPEG 2000 Part 1 (see dwt.h).
 *
 * All lifting runs on "lines": n signal samples, each a vector of `cols`
 * independent lanes stored contiguously (sample i of lane j at
 * t[i * cols + j]).  The vertical pass copies a strip of columns into such a
 * buffer, the horizontal pass a block of rows transposed, so one lifting
 * routine serves both directions and its inner loop runs over lanes, which
 * the compiler vectorises without changing any result (every lane is
 * computed with exactly the scalar operations).
 *
 * Symmetric extension: a lifting step reads only the two neighbours of a
 * sample, and lifting keeps a symmetrically extended signal symmetric, so
 * mirroring the neighbour index once (x[-1] = x[1], x[n] = x[n-2]) at each
 * step gives what Annex F gets by extending the input by the full filter
 * support first.
 */
#include "dwt.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define STRIP_COLS 32 /* lanes per vertical strip */
#define BLOCK_ROWS 16 /* lanes per horizontal block */

/* ---- lifting on lines -------------------------------------------------- */

/* The neighbours of sample i, mirrored at the ends; needs n >= 2. */
#define LEFT(t, i, cols) ((t) + ((i) > 0 ? (i) - 1 : 1) * (cols))
#define RIGHT(t, i, n, cols) \
    ((t) + ((i) + 1 < (n) ? (i) + 1 : (n) - 2) * (cols))

/* Sums of two or three coefficients wrap instead of overflowing: valid
 * coefficients never come near the int32 range, but an inverse fed garbage
 * must not be undefined behaviour. */
static inline int32_t wrap_add(int32_t a, int32_t b) {
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

/* 5/3, F.4.8.1 eq. (F-9) and (F-10): the odd samples become the high-pass
 * band, then the even ones the low-pass band.  Arithmetic shifts are floor
 * divisions (gcc and clang define >> of negative values that way). */
static void lift53_forward(int32_t *t, size_t n, size_t cols) {
    for (size_t i = 1; i < n; i += 2) {
        int32_t *x = t + i * cols;
        const int32_t *a = LEFT(t, i, cols), *b = RIGHT(t, i, n, cols);
        for (size_t j = 0; j < cols; j++)
            x[j] = wrap_add(x[j], -(wrap_add(a[j], b[j]) >> 1));
    }
    for (size_t i = 0; i < n; i += 2) {
        int32_t *x = t + i * cols;
        const int32_t *a = LEFT(t, i, cols), *b = RIGHT(t, i, n, cols);
        for (size_t j = 0; j < cols; j++)
            x[j] = wrap_add(x[j], wrap_add(wrap_add(a[j], b[j]), 2) >> 2);
    }
}

/* F.3.8.1 eq. (F-5) and (F-6). */
static void lift53_inverse(int32_t *t, size_t n, size_t cols) {
    for (size_t i = 0; i < n; i += 2) {
        int32_t *x = t + i * cols;
        const int32_t *a = LEFT(t, i, cols), *b = RIGHT(t, i, n, cols);
        for (size_t j = 0; j < cols; j++)
            x[j] = wrap_add(x[j], -(wrap_add(wrap_add(a[j], b[j]), 2) >> 2));
    }
    for (size_t i = 1; i < n; i += 2) {
        int32_t *x = t + i * cols;
        const int32_t *a = LEFT(t, i, cols), *b = RIGHT(t, i, n, cols);
        for (size_t j = 0; j < cols; j++)
            x[j] = wrap_add(x[j], wrap_add(a[j], b[j]) >> 1);
    }
}

/* One 9/7 lifting step: samples of parity `first` get x + c * (a + b). */
static void step97(float *t, size_t n, size_t cols, size_t first, float c) {
    for (size_t i = first; i < n; i += 2) {
        float *x = t + i * cols;
        const float *a = LEFT(t, i, cols), *b = RIGHT(t, i, n, cols);
        for (size_t j = 0; j < cols; j++)
            x[j] = x[j] + c * (a[j] + b[j]);
    }
}

static void scale97(float *t, size_t n, size_t cols, float even, float odd) {
    for (size_t i = 0; i < n; i++) {
        float *x = t + i * cols, k = i & 1 ? odd : even;
        for (size_t j = 0; j < cols; j++)
            x[j] = x[j] * k;
    }
}

/* F.4.8.2: four lifting steps, then the low-pass band is divided by K
 * (multiplied by the float 1/K) and the high-pass band multiplied by K,
 * giving the low-pass filter a DC gain of 1 and the high-pass filter a
 * Nyquist gain of 2, the normalisation of the decoder's 1D_FILTR_9-7I. */
static void lift97_forward(float *t, size_t n, size_t cols) {
    step97(t, n, cols, 1, SCI_DWT97_ALPHA);
    step97(t, n, cols, 0, SCI_DWT97_BETA);
    step97(t, n, cols, 1, SCI_DWT97_GAMMA);
    step97(t, n, cols, 0, SCI_DWT97_DELTA);
    scale97(t, n, cols, SCI_DWT97_INV_K, SCI_DWT97_K);
}

/* F.3.8.2: undo the scaling, then the steps in reverse.  x + (-c) * (a + b)
 * is the same float as x - c * (a + b): negation is exact and IEEE defines
 * x - y as x + (-y). */
static void lift97_inverse(float *t, size_t n, size_t cols) {
    scale97(t, n, cols, SCI_DWT97_K, SCI_DWT97_INV_K);
    step97(t, n, cols, 0, -SCI_DWT97_DELTA);
    step97(t, n, cols, 1, -SCI_DWT97_GAMMA);
    step97(t, n, cols, 0, -SCI_DWT97_BETA);
    step97(t, n, cols, 1, -SCI_DWT97_ALPHA);
}

/* The float 5/3 of the seismic codec: the 5/3 lifting of F.4.8.1 without
 * its rounding, as 9/7-style steps with c = -1/2 and 1/4 and no scaling.
 * c * (a + b) is exact for these c (barring underflow), so a fused
 * multiply-add would give the same floats. */
static void lift53f_forward(float *t, size_t n, size_t cols) {
    step97(t, n, cols, 1, -0.5f);
    step97(t, n, cols, 0, 0.25f);
}

static void lift53f_inverse(float *t, size_t n, size_t cols) {
    step97(t, n, cols, 0, -0.25f);
    step97(t, n, cols, 1, 0.5f);
}

/* ---- one level of one plane -------------------------------------------- */

enum { KIND_53, KIND_97, KIND_53F };

static void lift(int kind, int inverse, void *t, size_t n, size_t cols) {
    if (kind == KIND_53F) {
        if (inverse)
            lift53f_inverse(t, n, cols);
        else
            lift53f_forward(t, n, cols);
    } else if (kind == KIND_97) {
        if (inverse)
            lift97_inverse(t, n, cols);
        else
            lift97_forward(t, n, cols);
    } else {
        if (inverse)
            lift53_inverse(t, n, cols);
        else
            lift53_forward(t, n, cols);
    }
}

/* Row of the plane that holds interleaved sample i of a signal whose
 * low-pass band has nl samples: even samples first, then the odd ones. */
static inline size_t band_pos(size_t i, size_t nl) {
    return i & 1 ? nl + (i >> 1) : i >> 1;
}

/* One pass of one level: the plane, its size, and what a chunk of strips
 * or blocks needs. */
typedef struct {
    uint32_t *p;
    size_t w, h, stride;
    int kind, inverse;
    atomic_int failed;
} pass_args;

/* Below this many samples a pass runs on the calling thread. */
#define PAR_MIN 65536

/* Vertical pass over columns [0, w) of rows [0, h), h >= 2: strips
 * [s0, s1) of STRIP_COLS columns.  Samples are 4 bytes of either type;
 * only lifting looks at their type. */
static void vertical_strips(void *arg, size_t s0, size_t s1, unsigned wk) {
    pass_args *a = arg;
    uint32_t *p = a->p;
    const size_t w = a->w, h = a->h, stride = a->stride, nl = (h + 1) / 2;
    const int inverse = a->inverse;
    /* a strip is at most w wide, a block at most h high: a long single
     * row or column takes no more than itself */
    uint32_t *t = malloc(h * (w < STRIP_COLS ? w : STRIP_COLS) * sizeof(*t));
    if (!t) {
        atomic_store(&a->failed, 1);
        return;
    }
    for (size_t s = s0; s < s1; s++) {
        size_t x0 = s * STRIP_COLS;
        size_t cols = w - x0 < STRIP_COLS ? w - x0 : STRIP_COLS;
        for (size_t i = 0; i < h; i++) {
            size_t y = inverse ? band_pos(i, nl) : i;
            memcpy(t + i * cols, p + y * stride + x0, cols * sizeof(*t));
        }
        lift(a->kind, inverse, t, h, cols);
        for (size_t i = 0; i < h; i++) {
            size_t y = inverse ? i : band_pos(i, nl);
            memcpy(p + y * stride + x0, t + i * cols, cols * sizeof(*t));
        }
    }
    free(t);
}

static int pass_vertical(sci_pool *pool, uint32_t *p, size_t w, size_t h,
                         size_t stride, int kind, int inverse) {
    pass_args a = {p, w, h, stride, kind, inverse, 0};
    size_t strips = (w + STRIP_COLS - 1) / STRIP_COLS;
    sci_pool_for(sci_pool_if(pool, w * h >= PAR_MIN), strips, 0,
                 vertical_strips, &a);
    return atomic_load(&a.failed) ? -1 : 0;
}

/* Horizontal pass over rows [0, h) of columns [0, w), w >= 2, a block of
 * rows at a time, transposed so that the rows are the lanes: blocks
 * [b0, b1). */
static void horizontal_blocks(void *arg, size_t b0, size_t b1, unsigned wk) {
    pass_args *a = arg;
    uint32_t *p = a->p;
    const size_t w = a->w, h = a->h, stride = a->stride, nl = (w + 1) / 2;
    const int inverse = a->inverse;
    uint32_t *t = malloc(w * (h < BLOCK_ROWS ? h : BLOCK_ROWS) * sizeof(*t));
    if (!t) {
        atomic_store(&a->failed, 1);
        return;
    }
    for (size_t b = b0; b < b1; b++) {
        size_t y0 = b * BLOCK_ROWS;
        size_t rows = h - y0 < BLOCK_ROWS ? h - y0 : BLOCK_ROWS;
        for (size_t r = 0; r < rows; r++) {
            const uint32_t *row = p + (y0 + r) * stride;
            for (size_t i = 0; i < w; i++)
                t[i * rows + r] = row[inverse ? band_pos(i, nl) : i];
        }
        lift(a->kind, inverse, t, w, rows);
        for (size_t r = 0; r < rows; r++) {
            uint32_t *row = p + (y0 + r) * stride;
            for (size_t i = 0; i < w; i++)
                row[inverse ? i : band_pos(i, nl)] = t[i * rows + r];
        }
    }
    free(t);
}

static int pass_horizontal(sci_pool *pool, uint32_t *p, size_t w, size_t h,
                           size_t stride, int kind, int inverse) {
    pass_args a = {p, w, h, stride, kind, inverse, 0};
    size_t blocks = (h + BLOCK_ROWS - 1) / BLOCK_ROWS;
    sci_pool_for(sci_pool_if(pool, w * h >= PAR_MIN), blocks, 0,
                 horizontal_blocks, &a);
    return atomic_load(&a.failed) ? -1 : 0;
}

/* ---- multi-level ------------------------------------------------------- */

static int transform(sci_pool *pool, void *plane, uint32_t w, uint32_t h,
                     size_t stride, unsigned levels, int kind, int inverse) {
    uint32_t *p = plane;
    if (levels > SCI_DWT_MAX_LEVELS)
        return -1;
    unsigned used = w && h ? sci_dwt_used_levels(w, h, levels) : 0;

    for (unsigned k = 0; k < used; k++) {
        /* 2D_SD goes down the levels, 2D_SR back up */
        unsigned l = inverse ? used - 1 - k : k;
        size_t lw = sci_dwt_low_len(w, l), lh = sci_dwt_low_len(h, l);
        int err = 0;
        if (!inverse) {
            if (lh >= 2)
                err = pass_vertical(pool, p, lw, lh, stride, kind, 0);
            if (!err && lw >= 2)
                err = pass_horizontal(pool, p, lw, lh, stride, kind, 0);
        } else {
            if (lw >= 2)
                err = pass_horizontal(pool, p, lw, lh, stride, kind, 1);
            if (!err && lh >= 2)
                err = pass_vertical(pool, p, lw, lh, stride, kind, 1);
        }
        if (err)
            return -1;
    }
    return 0;
}

int sci_dwt53_forward(sci_pool *pool, int32_t *plane, uint32_t w, uint32_t h,
                      size_t stride, unsigned levels) {
    return transform(pool, plane, w, h, stride, levels, KIND_53, 0);
}

int sci_dwt53_inverse(sci_pool *pool, int32_t *plane, uint32_t w, uint32_t h,
                      size_t stride, unsigned levels) {
    return transform(pool, plane, w, h, stride, levels, KIND_53, 1);
}

int sci_dwt97_forward(sci_pool *pool, float *plane, uint32_t w, uint32_t h,
                      size_t stride, unsigned levels) {
    return transform(pool, plane, w, h, stride, levels, KIND_97, 0);
}

int sci_dwt97_inverse(sci_pool *pool, float *plane, uint32_t w, uint32_t h,
                      size_t stride, unsigned levels) {
    return transform(pool, plane, w, h, stride, levels, KIND_97, 1);
}

int sci_dwt53f_forward(sci_pool *pool, float *plane, uint32_t w, uint32_t h,
                       size_t stride, unsigned levels) {
    return transform(pool, plane, w, h, stride, levels, KIND_53F, 0);
}

int sci_dwt53f_inverse(sci_pool *pool, float *plane, uint32_t w, uint32_t h,
                       size_t stride, unsigned levels) {
    return transform(pool, plane, w, h, stride, levels, KIND_53F, 1);
}
