/*
 * A whole frame through the wavelet stage: image samples in, JPEG 2000
 * wavelet coefficients out, and back.
 *
 * Forward, per Annex G and F of ISO/IEC 15444-1: read the unsigned samples
 * of each component, DC level shift them (subtract 2^(depth-1)), apply the
 * component transform to components 0..2 if asked, then the 2-D DWT `levels`
 * deep on each component.  The inverse undoes each step in reverse and
 * writes samples clamped to [0, 2^depth - 1] (9/7: rounded to nearest,
 * halves up, before the clamp).
 *
 * Coefficient buffer: the components one after another, component c a
 * tightly packed plane of sci_wt_comp_width x sci_wt_comp_height samples of
 * 4 bytes (int32 for 5/3, float for 9/7) in the Mallat layout of dwt.h,
 * starting sci_wt_comp_offset samples into the buffer.
 *
 * Sample planes: samples of depth <= 8 are one byte, deeper ones a 16-bit
 * little-endian word holding the value in its low bits (GStreamer's _LE
 * formats).  A plane names its first sample, the bytes between rows and the
 * bytes between horizontally adjacent samples, so planar and packed video
 * (RGB: pixel stride 3) are both described.
 */
#ifndef SCI_CODEC_WAVELET_FRAME_H
#define SCI_CODEC_WAVELET_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "colour.h"
#include "dwt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCI_WT_MAX_COMPONENTS 4

typedef struct {
    uint32_t width, height;            /* of the full-resolution grid */
    unsigned components;               /* 1..SCI_WT_MAX_COMPONENTS */
    unsigned depth;                    /* bits per sample, 1..16 */
    unsigned dx[SCI_WT_MAX_COMPONENTS]; /* horizontal subsampling, 1..4 */
    unsigned dy[SCI_WT_MAX_COMPONENTS]; /* vertical subsampling, 1..4 */
    sci_dwt_filter filter;
    unsigned levels;                   /* 0..SCI_DWT_MAX_LEVELS */
    sci_colour_transform ct;
} sci_wt_geometry;

typedef struct {
    void *data;          /* first sample (host or device address) */
    ptrdiff_t row_stride; /* bytes from one row to the next */
    unsigned pixel_stride; /* bytes from one sample to the next in a row */
} sci_wt_plane;

/* NULL when the geometry is valid, else why not (a static string):
 * sizes 1..65535, components, depth, subsampling, levels <= 32; RCT needs
 * 5/3, ICT needs 9/7, and either needs components 0..2 unsubsampled. */
const char *sci_wt_geometry_check(const sci_wt_geometry *g);

static inline uint32_t sci_wt_comp_width(const sci_wt_geometry *g, unsigned c) {
    return (g->width + g->dx[c] - 1) / g->dx[c];
}
static inline uint32_t sci_wt_comp_height(const sci_wt_geometry *g, unsigned c) {
    return (g->height + g->dy[c] - 1) / g->dy[c];
}
/* In samples (4 bytes each) from the start of the coefficient buffer. */
size_t sci_wt_comp_offset(const sci_wt_geometry *g, unsigned c);
size_t sci_wt_coeff_count(const sci_wt_geometry *g);
/* 1 or 2 */
static inline unsigned sci_wt_sample_bytes(const sci_wt_geometry *g) {
    return g->depth > 8 ? 2 : 1;
}

/* Return 0, or -1 when the geometry fails sci_wt_geometry_check or scratch
 * memory cannot be had.  The inverse works in place and leaves `coeffs`
 * destroyed.  pool: the threads to use (NULL: the calling thread;
 * parallel.h). */
int sci_wt_forward(sci_pool *pool, const sci_wt_geometry *g,
                   const sci_wt_plane src[], void *coeffs);
int sci_wt_inverse(sci_pool *pool, const sci_wt_geometry *g, void *coeffs,
                   const sci_wt_plane dst[]);

#ifdef __cplusplus
}
#endif
#endif
