/*
 * The seismic codec's per-coefficient rules (seismic.h,
 * docs/seismic-format.md), one inline definition that codec/seismic/seismic.c and
 * cuda/seismic/seismic.cu both compile, so the backends cannot drift apart.
 */
#ifndef SCI_CODEC_SEISMIC_CORE_H
#define SCI_CODEC_SEISMIC_CORE_H

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "seismic.h"

#if defined(__CUDACC__)
#define SCI_SEIS_HD __host__ __device__
#else
#define SCI_SEIS_HD
#endif

/* The grid of the coefficients between min and max (docs/seismic-format.md,
 * "Quantization"): anchored at zero when min <= 0 <= max, so that zero is
 * a level, else at min; a grid of one level when min = max. */
static inline SCI_SEIS_HD sci_seis_grid sci_seis_grid_of(float min, float max,
                                                         unsigned bits) {
    sci_seis_grid g;
    const double range = (double)max - (double)min;
    g.min = min;
    g.zero = 0;
    g.zero_anchored = 0;
    g.step = 0.0f;
    if (range <= 0.0)
        return g;
    if (min <= 0.0f && max >= 0.0f) {
        g.zero_anchored = 1;
        g.step = (float)(range / (double)((1u << bits) - 2));
    } else {
        g.step = (float)(range / (double)((1u << bits) - 1));
    }
    /* a subnormal step would lose the step's own precision */
    if (g.step < FLT_MIN)
        g.step = FLT_MIN;
    if (g.zero_anchored)
        g.zero = (int32_t)ceil(-(double)min / (double)g.step);
    return g;
}

/* The index of coefficient c, in double arithmetic, so that it does not
 * depend on how a backend evaluates float expressions. */
static inline SCI_SEIS_HD uint32_t sci_seis_quantize_one(
    float c, const sci_seis_grid *g, uint32_t qmax) {
    double t;
    if (g->step == 0.0f)
        return 0;
    if (g->zero_anchored)
        t = floor((double)c / (double)g->step + 0.5) + (double)g->zero;
    else
        t = floor(((double)c - (double)g->min) / (double)g->step + 0.5);
    if (t < 0.0)
        return 0;
    return t > (double)qmax ? qmax : (uint32_t)t;
}

/* The decoder's coefficient of index q: a zero-anchored level is an
 * integer (exact in float) times the step, so zero comes back as zero and
 * levels around it are symmetric. */
static inline SCI_SEIS_HD float sci_seis_dequantize_one(
    uint32_t q, const sci_seis_grid *g) {
    if (g->zero_anchored)
        return (float)((int32_t)q - g->zero) * g->step;
    return fmaf((float)q, g->step, g->min);
}

/* Packages (docs/seismic-format.md, "Packages"): bits 63..58 the count of
 * Huffman codes that follow, or, from version 3, 0 for a run: bits 57..42
 * a symbol, bits 41..0 how many times it repeats (1..SCI_SEIS_RUN_MAX). */
#define SCI_SEIS_RUN_SHIFT 42u

static inline SCI_SEIS_HD int sci_seis_package_is_run(uint64_t pkg,
                                                      unsigned version) {
    return version >= 3 && (pkg >> 58) == 0;
}

static inline SCI_SEIS_HD uint32_t sci_seis_run_symbol(uint64_t pkg) {
    return (uint32_t)(pkg >> SCI_SEIS_RUN_SHIFT) & 0xFFFFu;
}

/* The symbols a package holds: 0 for one no encoder writes (a run of 0 or
 * of more than SCI_SEIS_RUN_MAX, or its unused bits set). */
static inline SCI_SEIS_HD uint32_t sci_seis_package_count(uint64_t pkg,
                                                          unsigned version) {
    if (!sci_seis_package_is_run(pkg, version))
        return (uint32_t)(pkg >> 58);
    uint64_t r = pkg & ((1ull << SCI_SEIS_RUN_SHIFT) - 1);
    return r <= SCI_SEIS_RUN_MAX ? (uint32_t)r : 0;
}

#endif
