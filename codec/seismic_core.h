/*
 * The seismic codec's per-coefficient rules (seismic.h,
 * docs/seismic-format.md), one inline definition that codec/seismic.c and
 * cuda/seismic.cu both compile, so the backends cannot drift apart.
 */
#ifndef SCI_CODEC_SEISMIC_CORE_H
#define SCI_CODEC_SEISMIC_CORE_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define SCI_SEIS_HD __host__ __device__
#else
#define SCI_SEIS_HD
#endif

/* The step for coefficients between min and max. */
static inline SCI_SEIS_HD float sci_seis_step_of(float min, float max,
                                                 unsigned bits) {
    return (float)(((double)max - (double)min) /
                   (double)((1u << bits) - 1));
}

/* The index of coefficient c, in double arithmetic, so that it does not
 * depend on how a backend evaluates float expressions. */
static inline SCI_SEIS_HD uint32_t sci_seis_quantize_one(float c, float min,
                                                         float step,
                                                         uint32_t qmax) {
    if (step == 0.0f)
        return 0;
    double t = floor(((double)c - (double)min) / (double)step + 0.5);
    if (t < 0.0)
        return 0;
    return t > (double)qmax ? qmax : (uint32_t)t;
}

/* The decoder's coefficient of index q. */
static inline SCI_SEIS_HD float sci_seis_dequantize_one(uint32_t q, float min,
                                                        float step) {
    return fmaf((float)q, step, min);
}

#endif
