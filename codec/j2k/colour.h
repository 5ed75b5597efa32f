/*
 * Component transforms of JPEG 2000 Part 1 (ISO/IEC 15444-1 Annex G): the
 * reversible colour transform (RCT, integer, goes with the 5/3 filter) and
 * the irreversible one (ICT, float, goes with 9/7).  They act on the first
 * three components after the DC level shift, components 0, 1, 2 being
 * R, G, B forward and Y, Cb, Cr (Y, U, V for RCT) afterwards.
 *
 * ICT arithmetic is single precision, evaluated left to right exactly as
 * written in colour.c (no FMA contraction); cuda/ does the same.
 */
#ifndef SCI_CODEC_COLOUR_H
#define SCI_CODEC_COLOUR_H

#include <stddef.h>
#include <stdint.h>

#include "codec/common/parallel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    SCI_CT_NONE = 0,
    SCI_CT_RCT = 1,
    SCI_CT_ICT = 2,
} sci_colour_transform;

/* In place on n samples of each component; pool: threads to use (NULL:
 * the calling thread only; parallel.h). */
/* Annex G.2: Y = floor((R + 2G + B) / 4), U = B - G, V = R - G. */
void sci_rct_forward(sci_pool *pool, int32_t *c0, int32_t *c1, int32_t *c2,
                     size_t n);
/* G = Y - floor((U + V) / 4), R = V + G, B = U + G. */
void sci_rct_inverse(sci_pool *pool, int32_t *c0, int32_t *c1, int32_t *c2,
                     size_t n);

/* Annex G.3 (Table G.1 / G.2 coefficients). */
void sci_ict_forward(sci_pool *pool, float *c0, float *c1, float *c2,
                     size_t n);
void sci_ict_inverse(sci_pool *pool, float *c0, float *c1, float *c2,
                     size_t n);

#ifdef __cplusplus
}
#endif
#endif
