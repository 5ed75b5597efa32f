/*
 * Component transforms of JPEG 2000 Part 1 Annex G (see colour.h).
 */
#include "colour.h"

void sci_rct_forward(int32_t *c0, int32_t *c1, int32_t *c2, size_t n) {
#pragma omp parallel for schedule(static) if (n >= 65536)
    for (size_t i = 0; i < n; i++) {
        int32_t r = c0[i], g = c1[i], b = c2[i];
        c0[i] = (r + 2 * g + b) >> 2;
        c1[i] = b - g;
        c2[i] = r - g;
    }
}

/* Wrapping sums: an inverse fed garbage coefficients must not be undefined
 * behaviour (valid ones never come near the int32 range). */
static inline int32_t wrap_add(int32_t a, int32_t b) {
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

void sci_rct_inverse(int32_t *c0, int32_t *c1, int32_t *c2, size_t n) {
#pragma omp parallel for schedule(static) if (n >= 65536)
    for (size_t i = 0; i < n; i++) {
        int32_t y = c0[i], u = c1[i], v = c2[i];
        int32_t g = wrap_add(y, -(wrap_add(u, v) >> 2));
        c0[i] = wrap_add(v, g);
        c1[i] = g;
        c2[i] = wrap_add(u, g);
    }
}

/* Equations G-5..G-7 and G-8..G-10, summed left to right. */
void sci_ict_forward(float *c0, float *c1, float *c2, size_t n) {
#pragma omp parallel for schedule(static) if (n >= 65536)
    for (size_t i = 0; i < n; i++) {
        float r = c0[i], g = c1[i], b = c2[i];
        c0[i] = 0.299f * r + 0.587f * g + 0.114f * b;
        c1[i] = -0.16875f * r - 0.33126f * g + 0.5f * b;
        c2[i] = 0.5f * r - 0.41869f * g - 0.08131f * b;
    }
}

void sci_ict_inverse(float *c0, float *c1, float *c2, size_t n) {
#pragma omp parallel for schedule(static) if (n >= 65536)
    for (size_t i = 0; i < n; i++) {
        float y = c0[i], cb = c1[i], cr = c2[i];
        c0[i] = y + 1.402f * cr;
        c1[i] = y - 0.34413f * cb - 0.71414f * cr;
        c2[i] = y + 1.772f * cb;
    }
}
