/*
 * The per-pair rule of SPP (spp.h) that the C reference and the CUDA
 * kernels both compile, so that the angle comes from the two sums the same
 * way on both.
 */
#ifndef SCI_CODEC_SPP_CORE_H
#define SCI_CODEC_SPP_CORE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "spp.h"

#if defined(__CUDACC__)
#define SCI_SPP_HD __host__ __device__
#else
#define SCI_SPP_HD
#endif

#define SCI_SPP_RIGHT_ANGLE 1.57079632679489661923

/* Value i of a cube of format f as a double. */
static inline SCI_SPP_HD double sci_spp_value_at(const void *cube,
                                                 sci_spp_format f, size_t i) {
    switch (f) {
    case SCI_SPP_U8:
        return ((const uint8_t *)cube)[i];
    case SCI_SPP_S16:
        return ((const int16_t *)cube)[i];
    case SCI_SPP_U16:
        return ((const uint16_t *)cube)[i];
    case SCI_SPP_F32:
        return ((const float *)cube)[i];
    }
    return 0.0;
}

/* The angle between two pixels from d2 = |u - v|^2 and s2 = |u + v|^2 of
 * their unit vectors; nu, nv their norms (a zero vector has none: two are
 * at 0, one and another spectrum at a right angle). */
static inline SCI_SPP_HD double sci_spp_angle_sums(double d2, double s2,
                                                   double nu, double nv) {
    if (!(nu > 0.0) || !(nv > 0.0))
        return nu > 0.0 || nv > 0.0 ? SCI_SPP_RIGHT_ANGLE : 0.0;
    return 2.0 * atan2(sqrt(d2), sqrt(s2));
}

/* Neighbour k of a window ws wide (raster order, the centre left out; nn
 * = ws^2 - 1 of them) as an offset (a lines, b samples).  Neighbour
 * nn - 1 - k is at the opposite offset: those from nn / 2 on (after the
 * centre) are the forward half. */
static inline SCI_SPP_HD void sci_spp_neighbour(unsigned ws, unsigned k,
                                                int *a, int *b) {
    unsigned r = k < (ws * ws - 1) / 2 ? k : k + 1;
    *a = (int)(r / ws) - (int)(ws / 2);
    *b = (int)(r % ws) - (int)(ws / 2);
}

/* beta(a, b) = 1 / (a^2 + b^2) of a neighbour at offset (a, b). */
static inline SCI_SPP_HD double sci_spp_beta(int a, int b) {
    return 1.0 / (double)(a * a + b * b);
}

#endif
