/*
 * General-origin inverse DWT (see j2k_idwt.h).
 *
 * As in codec/j2k/dwt.c, lifting runs on lines of n samples that are each a
 * vector of `cols` lanes (sample i of lane j at t[i * cols + j]): the
 * vertical pass copies a strip of columns, interleaved, into such a buffer,
 * so the inner loops run over lanes and vectorise without changing any
 * result.  Rows are lines of one lane.
 *
 * Symmetric extension needs no copies: lifting keeps a symmetrically
 * extended signal symmetric, so mirroring a neighbour index once at each
 * end (x[-1] = x[1], x[n] = x[n-2]) is Annex F's extension, for either
 * parity of the first sample.
 */
#include "j2k_idwt.h"

#include <stdlib.h>
#include <string.h>

#include "dwt.h"

#define STRIP 32

#define LEFT(t, i, cols) ((t) + ((i) > 0 ? (i) - 1 : 1) * (cols))
#define RIGHT(t, i, n, cols) \
    ((t) + ((i) + 1 < (n) ? (i) + 1 : (n) - 2) * (cols))

/* Sums wrap instead of overflowing: garbage coefficients from a damaged
 * codestream must not be undefined behaviour. */
static inline int32_t wadd(int32_t a, int32_t b) {
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

/* 5/3 synthesis (F-5, F-6): samples at even canvas positions (index i with
 * (i + par) even) are the low-pass ones. */
static void lift53(int32_t *t, size_t n, size_t cols, unsigned par) {
    if (n == 1) {
        if (par)
            for (size_t j = 0; j < cols; j++)
                t[j] /= 2;
        return;
    }
    for (size_t i = par; i < n; i += 2) {
        int32_t *x = t + i * cols;
        const int32_t *a = LEFT(t, i, cols), *b = RIGHT(t, i, n, cols);
        for (size_t j = 0; j < cols; j++)
            x[j] = wadd(x[j], -(wadd(wadd(a[j], b[j]), 2) >> 2));
    }
    for (size_t i = par ^ 1; i < n; i += 2) {
        int32_t *x = t + i * cols;
        const int32_t *a = LEFT(t, i, cols), *b = RIGHT(t, i, n, cols);
        for (size_t j = 0; j < cols; j++)
            x[j] = wadd(x[j], wadd(a[j], b[j]) >> 1);
    }
}

static void step97(float *t, size_t n, size_t cols, size_t first, float c) {
    for (size_t i = first; i < n; i += 2) {
        float *x = t + i * cols;
        const float *a = LEFT(t, i, cols), *b = RIGHT(t, i, n, cols);
        for (size_t j = 0; j < cols; j++)
            x[j] = x[j] + c * (a[j] + b[j]);
    }
}

/* 9/7 synthesis (F.3.8.2), the operations of codec/j2k/dwt.c's inverse. */
static void lift97(float *t, size_t n, size_t cols, unsigned par) {
    if (n == 1) {
        if (par)
            for (size_t j = 0; j < cols; j++)
                t[j] = t[j] * 0.5f;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        float *x = t + i * cols;
        float k = ((i + par) & 1) ? SCI_DWT97_INV_K : SCI_DWT97_K;
        for (size_t j = 0; j < cols; j++)
            x[j] = x[j] * k;
    }
    step97(t, n, cols, par, -SCI_DWT97_DELTA);
    step97(t, n, cols, par ^ 1, -SCI_DWT97_GAMMA);
    step97(t, n, cols, par, -SCI_DWT97_BETA);
    step97(t, n, cols, par ^ 1, -SCI_DWT97_ALPHA);
}

/* One level: a row's (column's) low-pass samples come first in the plane,
 * then its high-pass ones; sample i of the line is at canvas position
 * u0 + i, low-pass when that is even. */
#define DEFINE_LEVEL(name, T, LIFT)                                          \
    int name(T *plane, size_t stride, uint32_t w, uint32_t h, uint32_t u0,  \
             uint32_t v0) {                                                  \
        if (!w || !h)                                                        \
            return 0;                                                        \
        unsigned pu = u0 & 1, pv = v0 & 1;                                   \
        size_t wl = (w + (pu ? 0 : 1)) / 2; /* low samples of a row */       \
        size_t hl = (h + (pv ? 0 : 1)) / 2;                                  \
        size_t big = (w > h ? w : h);                                        \
        T *t = malloc(big * STRIP * sizeof *t);                              \
        if (!t)                                                              \
            return -1;                                                       \
        /* rows */                                                           \
        for (size_t y = 0; y < h; y++) {                                     \
            T *row = plane + y * stride;                                     \
            for (size_t i = 0; i < w; i++) {                                 \
                size_t li = (i + pu) / 2 - pu, hi = (i + pu) / 2 + wl;       \
                t[i] = ((i + pu) & 1) ? row[hi] : row[li];                   \
            }                                                                \
            LIFT(t, w, 1, pu);                                               \
            memcpy(row, t, w * sizeof *t);                                   \
        }                                                                    \
        /* columns, a strip at a time */                                     \
        for (size_t x0 = 0; x0 < w; x0 += STRIP) {                           \
            size_t cols = w - x0 < STRIP ? w - x0 : STRIP;                   \
            for (size_t i = 0; i < h; i++) {                                 \
                size_t src = ((i + pv) & 1) ? (i + pv) / 2 + hl              \
                                            : (i + pv) / 2 - pv;             \
                memcpy(t + i * cols, plane + src * stride + x0,              \
                       cols * sizeof *t);                                    \
            }                                                                \
            LIFT(t, h, cols, pv);                                            \
            for (size_t i = 0; i < h; i++)                                   \
                memcpy(plane + i * stride + x0, t + i * cols,                \
                       cols * sizeof *t);                                    \
        }                                                                    \
        free(t);                                                             \
        return 0;                                                            \
    }

DEFINE_LEVEL(sci_j2k_idwt53_level, int32_t, lift53)
DEFINE_LEVEL(sci_j2k_idwt97_level, float, lift97)

int sci_j2k_idwt53(int32_t *plane, size_t stride, const uint32_t (*rect)[4],
                   unsigned top) {
    for (unsigned r = 1; r <= top; r++) {
        if (sci_j2k_idwt53_level(plane, stride, rect[r][2] - rect[r][0],
                                 rect[r][3] - rect[r][1], rect[r][0],
                                 rect[r][1]))
            return -1;
    }
    return 0;
}

int sci_j2k_idwt97(float *plane, size_t stride, const uint32_t (*rect)[4],
                   unsigned top) {
    for (unsigned r = 1; r <= top; r++) {
        if (sci_j2k_idwt97_level(plane, stride, rect[r][2] - rect[r][0],
                                 rect[r][3] - rect[r][1], rect[r][0],
                                 rect[r][1]))
            return -1;
    }
    return 0;
}
