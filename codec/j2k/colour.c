/*
 * Component transforms of JPEG 2000 Part 1 Annex G (see colour.h).
 */
#include "colour.h"

/* Below this many samples a transform runs on the calling thread. */
#define PAR_MIN 65536

typedef struct {
    void *c0, *c1, *c2;
} planes;

static void rct_forward_range(void *arg, size_t b, size_t e, unsigned wk) {
    const planes *a = arg;
    int32_t *c0 = a->c0, *c1 = a->c1, *c2 = a->c2;
    for (size_t i = b; i < e; i++) {
        int32_t r = c0[i], g = c1[i], bl = c2[i];
        c0[i] = (r + 2 * g + bl) >> 2;
        c1[i] = bl - g;
        c2[i] = r - g;
    }
}

void sci_rct_forward(sci_pool *pool, int32_t *c0, int32_t *c1, int32_t *c2,
                     size_t n) {
    planes a = {c0, c1, c2};
    sci_pool_for(sci_pool_if(pool, n >= PAR_MIN), n, 0, rct_forward_range,
                 &a);
}

/* Wrapping sums: an inverse fed garbage coefficients must not be undefined
 * behaviour (valid ones never come near the int32 range). */
static inline int32_t wrap_add(int32_t a, int32_t b) {
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

static void rct_inverse_range(void *arg, size_t b, size_t e, unsigned wk) {
    const planes *a = arg;
    int32_t *c0 = a->c0, *c1 = a->c1, *c2 = a->c2;
    for (size_t i = b; i < e; i++) {
        int32_t y = c0[i], u = c1[i], v = c2[i];
        int32_t g = wrap_add(y, -(wrap_add(u, v) >> 2));
        c0[i] = wrap_add(v, g);
        c1[i] = g;
        c2[i] = wrap_add(u, g);
    }
}

void sci_rct_inverse(sci_pool *pool, int32_t *c0, int32_t *c1, int32_t *c2,
                     size_t n) {
    planes a = {c0, c1, c2};
    sci_pool_for(sci_pool_if(pool, n >= PAR_MIN), n, 0, rct_inverse_range,
                 &a);
}

/* Equations G-5..G-7 and G-8..G-10, summed left to right. */
static void ict_forward_range(void *arg, size_t b, size_t e, unsigned wk) {
    const planes *a = arg;
    float *c0 = a->c0, *c1 = a->c1, *c2 = a->c2;
    for (size_t i = b; i < e; i++) {
        float r = c0[i], g = c1[i], bl = c2[i];
        c0[i] = 0.299f * r + 0.587f * g + 0.114f * bl;
        c1[i] = -0.16875f * r - 0.33126f * g + 0.5f * bl;
        c2[i] = 0.5f * r - 0.41869f * g - 0.08131f * bl;
    }
}

void sci_ict_forward(sci_pool *pool, float *c0, float *c1, float *c2,
                     size_t n) {
    planes a = {c0, c1, c2};
    sci_pool_for(sci_pool_if(pool, n >= PAR_MIN), n, 0, ict_forward_range,
                 &a);
}

static void ict_inverse_range(void *arg, size_t b, size_t e, unsigned wk) {
    const planes *a = arg;
    float *c0 = a->c0, *c1 = a->c1, *c2 = a->c2;
    for (size_t i = b; i < e; i++) {
        float y = c0[i], cb = c1[i], cr = c2[i];
        c0[i] = y + 1.402f * cr;
        c1[i] = y - 0.34413f * cb - 0.71414f * cr;
        c2[i] = y + 1.772f * cb;
    }
}

void sci_ict_inverse(sci_pool *pool, float *c0, float *c1, float *c2,
                     size_t n) {
    planes a = {c0, c1, c2};
    sci_pool_for(sci_pool_if(pool, n >= PAR_MIN), n, 0, ict_inverse_range,
                 &a);
}
