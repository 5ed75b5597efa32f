/*
 * Spatial preprocessing (SPP) of hyperspectral cubes, Zortea & Plaza's
 * method as Delgado et al. run it before endmember extraction: each pixel
 * moves toward the cube's centroid by how unlike its neighbourhood is to
 * it, so pure pixels of homogeneous regions stand out.
 *
 * For a cube of `lines` x `samples` pixels of `bands` values (BIP), a
 * window of ws = 2d + 1 pixels a side:
 *   c             the centroid, the mean of all pixel vectors;
 *   gamma(p, q)   the spectral angle between pixels p and q, in [0, pi];
 *   beta(a, b)    1 / (a^2 + b^2) for the offsets of the window without its
 *                 centre, normalised to sum 1 over the neighbours present
 *                 (at the cube's borders, neighbours outside are left out);
 *   alpha(p)      sum of beta(q - p) gamma(p, q) over p's neighbours q
 *                 (0 when p has none: a 1 x 1 cube);
 *   rho(p)        (1 + sqrt(alpha(p)))^2;
 *   y'(p)         (y(p) - c) / rho(p) + c.
 * The angle is arccos(<u, v>) of the unit vectors u, v of p and q, computed
 * as 2 atan2(|u - v|, |u + v|), the same angle without arccos's loss near
 * 0 (where homogeneous regions are): identical spectra give exactly 0.  A
 * zero vector has no direction: two zero vectors are at angle 0, a zero
 * vector and any other at pi / 2.
 *
 * This is the reference: every sum in double, the output rounded to float
 * once.  It is also the CPU backend (over lines and pixels on the threads
 * of a pool, parallel.h; pool NULL: the calling thread).
 */
#ifndef SCI_CODEC_SPP_H
#define SCI_CODEC_SPP_H

#include <stddef.h>
#include <stdint.h>

#include "codec/common/parallel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    SCI_SPP_U8,  /* ENVI data type 1 */
    SCI_SPP_S16, /* 2 */
    SCI_SPP_U16, /* 12 */
    SCI_SPP_F32  /* 4 */
} sci_spp_format;

#define SCI_SPP_WINDOW_MIN 3u
#define SCI_SPP_WINDOW_MAX 15u
#define SCI_SPP_WINDOW_DEFAULT 5u
#define SCI_SPP_BANDS_MAX 65535u

enum {
    SCI_SPP_E_ARG = -1,   /* sizes, window or format out of range */
    SCI_SPP_E_NOMEM = -2,
    SCI_SPP_E_VALUE = -3  /* a float input value is NaN or infinite */
};

/* Bytes of one value of format f (0 for an unknown format). */
size_t sci_spp_value_bytes(sci_spp_format f);

/* 0 when a cube of these sizes can be filtered with this window (odd,
 * SCI_SPP_WINDOW_MIN..MAX; the window may be larger than the cube), else
 * SCI_SPP_E_ARG. */
int sci_spp_check(size_t lines, size_t samples, size_t bands,
                  unsigned window);

/* Value i of a cube of format f as a double. */
double sci_spp_value(const void *cube, sci_spp_format f, size_t i);

/* The centroid (bands doubles) of npix pixels. */
void sci_spp_centroid(const void *cube, sci_spp_format f, size_t npix,
                      size_t bands, double *c);

/* The unit vector of each pixel into u (npix x bands doubles, all zero for
 * a zero vector) and its norm into norm (npix doubles). */
void sci_spp_unit(sci_pool *pool, const void *cube, sci_spp_format f,
                  size_t npix, size_t bands, double *u, double *norm);

/* The angle between pixels with unit vectors u, v (norms nu, nv: only
 * whether they are 0 matters). */
double sci_spp_angle(const double *u, double nu, const double *v, double nv,
                     size_t bands);

/* alpha of every pixel (lines x samples doubles) from the unit vectors:
 * each pair's angle once (it is symmetric), then every pixel's neighbours
 * weighted in raster order.  0, or SCI_SPP_E_NOMEM (it holds
 * lines x samples x (ws^2 - 1) / 2 angles). */
int sci_spp_alpha(sci_pool *pool, const double *u, const double *norm,
                  size_t lines, size_t samples, size_t bands,
                  unsigned window, double *alpha);

/* The whole filter: the BIP cube `in` of format f to the BIP float cube
 * `out` (lines x samples x bands floats).  0, or an SCI_SPP_E_ code. */
int sci_spp_filter(sci_pool *pool, const void *in, sci_spp_format f,
                   size_t lines, size_t samples, size_t bands,
                   unsigned window, float *out);

#ifdef __cplusplus
}
#endif

#endif
