/*
 * The inverse DWT of JPEG 2000 Part 1 (ITU-T T.800 Annex F.3) for any
 * origin: a tile-component whose resolutions start at odd canvas
 * coordinates has its first sample in the high-pass band, and the lifting
 * steps of F.3.8 then apply to the other parity (1D_SR with odd i0).
 * codec/j2k/dwt.c is the special case of origin 0 (and gives the same samples
 * there: the same lifting, in the same order of float operations).
 *
 * The plane is in the Mallat layout of j2k_layout.h.  Level r (1..top)
 * turns the w_(r-1) x h_(r-1) low band and the three detail bands of
 * resolution r into the w_r x h_r samples of resolution r: the rows first,
 * then the columns (2D_SR).  rect[r] = {x0, y0, x1, y1} are resolution r's
 * coordinates (B-14); a signal of one sample passes unchanged at an even
 * coordinate and is halved at an odd one (F.3.7).
 */
#ifndef SCI_CODEC_J2K_IDWT_H
#define SCI_CODEC_J2K_IDWT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Returns 0, or -1 when scratch memory cannot be had. */
int sci_j2k_idwt53(int32_t *plane, size_t stride, const uint32_t (*rect)[4],
                   unsigned top);
int sci_j2k_idwt97(float *plane, size_t stride, const uint32_t (*rect)[4],
                   unsigned top);

/* One level on a w x h region whose resolution starts at (u0, v0) (only
 * the parities matter); for tests. */
int sci_j2k_idwt53_level(int32_t *plane, size_t stride, uint32_t w,
                         uint32_t h, uint32_t u0, uint32_t v0);
int sci_j2k_idwt97_level(float *plane, size_t stride, uint32_t w, uint32_t h,
                         uint32_t u0, uint32_t v0);

#ifdef __cplusplus
}
#endif
#endif
