/*
 * A frame through the wavelet stage on the CPU (see wavelet_frame.h).
 */
#include "wavelet_frame.h"

#include <math.h>

const char *sci_wt_geometry_check(const sci_wt_geometry *g) {
    if (g->width < 1 || g->width > SCI_DWT_MAX_SIZE || g->height < 1
        || g->height > SCI_DWT_MAX_SIZE)
        return "width and height must be 1 to 65535";
    if (g->components < 1 || g->components > SCI_WT_MAX_COMPONENTS)
        return "1 to 4 components";
    if (g->depth < 1 || g->depth > 16)
        return "bit depth must be 1 to 16";
    for (unsigned c = 0; c < g->components; c++)
        if (g->dx[c] < 1 || g->dx[c] > 4 || g->dy[c] < 1 || g->dy[c] > 4)
            return "subsampling factors must be 1 to 4";
    if (g->filter != SCI_DWT_53 && g->filter != SCI_DWT_97)
        return "unknown filter";
    if (g->levels > SCI_DWT_MAX_LEVELS)
        return "at most 32 decomposition levels";
    switch (g->ct) {
    case SCI_CT_NONE:
        break;
    case SCI_CT_RCT:
    case SCI_CT_ICT:
        if (g->components < 3)
            return "a colour transform needs 3 components";
        for (unsigned c = 0; c < 3; c++)
            if (g->dx[c] != 1 || g->dy[c] != 1)
                return "a colour transform needs components 0-2 unsubsampled";
        if (g->ct == SCI_CT_RCT && g->filter != SCI_DWT_53)
            return "RCT goes with the 5/3 filter";
        if (g->ct == SCI_CT_ICT && g->filter != SCI_DWT_97)
            return "ICT goes with the 9/7 filter";
        break;
    default:
        return "unknown colour transform";
    }
    return NULL;
}

size_t sci_wt_comp_offset(const sci_wt_geometry *g, unsigned c) {
    size_t off = 0;
    for (unsigned i = 0; i < c; i++)
        off += (size_t)sci_wt_comp_width(g, i) * sci_wt_comp_height(g, i);
    return off;
}

size_t sci_wt_coeff_count(const sci_wt_geometry *g) {
    return sci_wt_comp_offset(g, g->components);
}

static inline const uint8_t *sample_at(const sci_wt_plane *p, uint32_t x,
                                       uint32_t y) {
    return (const uint8_t *)p->data + (ptrdiff_t)y * p->row_stride
        + (ptrdiff_t)x * p->pixel_stride;
}

/* Below this many samples a component is read or written on the calling
 * thread. */
#define PAR_MIN 65536

/* One component's samples and coefficients, for a region over its rows. */
typedef struct {
    const sci_wt_geometry *g;
    unsigned c;
    const sci_wt_plane *plane;
    const void *in;
    void *out;
} component_args;

/* Samples of rows [y0, y1) of one component to DC-shifted coefficients.
 * Bits above the depth are ignored (the CUDA path does the same), so a
 * stray high bit in a 10- or 12-bit word cannot push a sample out of
 * range. */
static void read_rows(void *arg, size_t y0, size_t y1, unsigned wk) {
    const component_args *a = arg;
    const sci_wt_geometry *g = a->g;
    const sci_wt_plane *src = a->plane;
    uint32_t cw = sci_wt_comp_width(g, a->c);
    int32_t shift = (int32_t)1 << (g->depth - 1);
    uint32_t mask = ((uint32_t)1 << g->depth) - 1;
    int wide = sci_wt_sample_bytes(g) == 2, is97 = g->filter == SCI_DWT_97;
    for (uint32_t y = (uint32_t)y0; y < y1; y++) {
        int32_t *oi = (int32_t *)a->out + (size_t)y * cw;
        float *of = (float *)a->out + (size_t)y * cw;
        for (uint32_t x = 0; x < cw; x++) {
            const uint8_t *s = sample_at(src, x, y);
            uint32_t raw = wide ? (uint32_t)s[0] | (uint32_t)s[1] << 8 : s[0];
            int32_t v = (int32_t)(raw & mask) - shift;
            if (is97)
                of[x] = (float)v;
            else
                oi[x] = v;
        }
    }
}

static void read_component(sci_pool *pool, const sci_wt_geometry *g,
                           unsigned c, const sci_wt_plane *src, void *out) {
    uint32_t cw = sci_wt_comp_width(g, c), ch = sci_wt_comp_height(g, c);
    component_args a = {g, c, src, NULL, out};
    sci_pool_for(sci_pool_if(pool, (size_t)cw * ch >= PAR_MIN), ch, 0,
                 read_rows, &a);
}

/* Coefficients back to samples, rows [y0, y1): 9/7 values rounded to
 * nearest (halves up), all clamped to the sample range.  The float clamp
 * comes first because an out-of-range float has no int32 value; NaN goes
 * to the low end. */
static void write_rows(void *arg, size_t y0, size_t y1, unsigned wk) {
    const component_args *a = arg;
    const sci_wt_geometry *g = a->g;
    const sci_wt_plane *dst = a->plane;
    uint32_t cw = sci_wt_comp_width(g, a->c);
    int32_t shift = (int32_t)1 << (g->depth - 1);
    int32_t maxv = (int32_t)(((uint32_t)1 << g->depth) - 1);
    float lo = (float)-shift, hi = (float)(maxv - shift);
    int wide = sci_wt_sample_bytes(g) == 2, is97 = g->filter == SCI_DWT_97;
    for (uint32_t y = (uint32_t)y0; y < y1; y++) {
        const int32_t *ii = (const int32_t *)a->in + (size_t)y * cw;
        const float *fi = (const float *)a->in + (size_t)y * cw;
        for (uint32_t x = 0; x < cw; x++) {
            int32_t v;
            if (is97) {
                float r = floorf(fi[x] + 0.5f);
                r = r >= lo ? r : lo;
                r = r <= hi ? r : hi;
                v = (int32_t)r + shift;
            } else {
                int64_t w = (int64_t)ii[x] + shift;
                v = w < 0 ? 0 : w > maxv ? maxv : (int32_t)w;
            }
            uint8_t *s = (uint8_t *)sample_at(dst, x, y);
            s[0] = (uint8_t)v;
            if (wide)
                s[1] = (uint8_t)(v >> 8);
        }
    }
}

static void write_component(sci_pool *pool, const sci_wt_geometry *g,
                            unsigned c, const void *in,
                            const sci_wt_plane *dst) {
    uint32_t cw = sci_wt_comp_width(g, c), ch = sci_wt_comp_height(g, c);
    component_args a = {g, c, dst, in, NULL};
    sci_pool_for(sci_pool_if(pool, (size_t)cw * ch >= PAR_MIN), ch, 0,
                 write_rows, &a);
}

static int dwt_component(sci_pool *pool, const sci_wt_geometry *g,
                         unsigned c, void *coeffs, int inverse) {
    uint32_t cw = sci_wt_comp_width(g, c), ch = sci_wt_comp_height(g, c);
    void *plane = (int32_t *)coeffs + sci_wt_comp_offset(g, c);
    if (g->filter == SCI_DWT_97)
        return inverse ? sci_dwt97_inverse(pool, plane, cw, ch, cw, g->levels)
                       : sci_dwt97_forward(pool, plane, cw, ch, cw, g->levels);
    return inverse ? sci_dwt53_inverse(pool, plane, cw, ch, cw, g->levels)
                   : sci_dwt53_forward(pool, plane, cw, ch, cw, g->levels);
}

int sci_wt_forward(sci_pool *pool, const sci_wt_geometry *g,
                   const sci_wt_plane src[], void *coeffs) {
    if (sci_wt_geometry_check(g))
        return -1;
    for (unsigned c = 0; c < g->components; c++)
        read_component(pool, g, c, &src[c], (int32_t *)coeffs
                       + sci_wt_comp_offset(g, c));
    size_t n = (size_t)g->width * g->height;
    int32_t *c0 = coeffs, *c1 = c0 + n, *c2 = c1 + n;
    if (g->ct == SCI_CT_RCT)
        sci_rct_forward(pool, c0, c1, c2, n);
    else if (g->ct == SCI_CT_ICT)
        sci_ict_forward(pool, (float *)c0, (float *)c1, (float *)c2, n);
    for (unsigned c = 0; c < g->components; c++)
        if (dwt_component(pool, g, c, coeffs, 0))
            return -1;
    return 0;
}

int sci_wt_inverse(sci_pool *pool, const sci_wt_geometry *g, void *coeffs,
                   const sci_wt_plane dst[]) {
    if (sci_wt_geometry_check(g))
        return -1;
    for (unsigned c = 0; c < g->components; c++)
        if (dwt_component(pool, g, c, coeffs, 1))
            return -1;
    size_t n = (size_t)g->width * g->height;
    int32_t *c0 = coeffs, *c1 = c0 + n, *c2 = c1 + n;
    if (g->ct == SCI_CT_RCT)
        sci_rct_inverse(pool, c0, c1, c2, n);
    else if (g->ct == SCI_CT_ICT)
        sci_ict_inverse(pool, (float *)c0, (float *)c1, (float *)c2, n);
    for (unsigned c = 0; c < g->components; c++)
        write_component(pool, g, c,
                        (int32_t *)coeffs + sci_wt_comp_offset(g, c), &dst[c]);
    return 0;
}
