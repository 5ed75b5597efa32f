/*
 * Quantization of JPEG 2000 subbands (see j2k_quant.h).
 */
#include "j2k_quant.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- entries ------------------------------------------------------------ */

double sci_j2k_entry_step(unsigned entry, unsigned depth, unsigned orient) {
    int eps = (int)(entry >> 11), mu = (int)(entry & 0x7FF);
    int rb = (int)(depth + sci_j2k_gain_bits(orient));
    return ldexp(1.0 + mu / 2048.0, rb - eps);
}

int sci_j2k_qcd_step(const sci_j2k_qcd *q, unsigned levels, unsigned band) {
    if (q->style == 1) {
        if (q->n < 1)
            return -1;
        int eps = q->step[0] >> 11, mu = q->step[0] & 0x7FF;
        /* E-5: epsilon_b = epsilon_0 - N_L + n_b, n_b the band's level */
        int down = band ? (int)((band - 1) / 3) : 0;
        eps -= down;
        if (eps < 0)
            return -1;
        return eps << 11 | mu;
    }
    (void)levels;
    if (band >= q->n)
        return -1;
    return q->step[band];
}

unsigned sci_j2k_step_encode(double rel) {
    unsigned eps = 0;
    while (rel < 1.0 && eps < 31) {
        rel *= 2;
        eps++;
    }
    long mu = lround((rel - 1.0) * 2048.0);
    if (mu < 0)
        mu = 0;
    if (mu > 2047)
        mu = 2047;
    return (eps << 11) | (unsigned)mu;
}

unsigned sci_j2k_irrev_entry(double step, unsigned depth, unsigned orient,
                             unsigned guard, unsigned max_mb) {
    double range = ldexp(1.0, (int)(depth + sci_j2k_gain_bits(orient)));
    unsigned entry = sci_j2k_step_encode(step / range);
    if (sci_j2k_entry_mb(guard, entry) > (int)max_mb)
        entry = (max_mb + 1 - guard) << 11;
    return entry;
}

/* ---- reversible exponents ------------------------------------------------ */

/* The 5/3 BIBO gains are taken to this depth; deeper bands take its.  The
 * gains converge (low 1.71559..., high 2.86714... at 20 levels), and the
 * bit-planes a band gets from them, ceil(log2(1.1 gain)), are 2 (LL), 3
 * (HL, LH) and 4 (HH) from 3 levels on, to the limit, 0.3 of a bit and
 * more below the next count (tests/j2k/test_codec_levels.c checks them by
 * convolution to 12 levels).  Deeper gains would change no codestream and
 * cost twice the work and memory a level. */
#define BIBO_LEVELS 3

/* L1 norms of the 5/3 analysis filters equivalent to d low-pass steps
 * (low[d]) and to d low-pass steps then one high-pass step (high[d]), d =
 * 0..levels (at most BIBO_LEVELS): how much a band can grow over the
 * samples (its BIBO gain).  Returns -1 when out of memory. */
static int bibo_53(unsigned levels, double *low, double *high) {
    static const double h0[5] = {-0.125, 0.25, 0.75, 0.25, -0.125};
    static const double h1[3] = {-0.5, 1.0, -0.5};
    size_t cap = (size_t)8 << (levels + 1);
    double *f = calloc(cap, sizeof(double)), *t = calloc(cap, sizeof(double));
    if (!f || !t) {
        free(f);
        free(t);
        return -1;
    }
    size_t n = 1;
    f[0] = 1.0;
    for (unsigned s = 0;; s++) {
        /* f: the filter of s low-pass steps */
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += fabs(f[i]);
        low[s] = sum;
        for (int hp = 1; hp >= 0; hp--) {
            if (!hp && s == levels)
                break;
            const double *h = hp ? h1 : h0;
            size_t hn = hp ? 3 : 5, up = (size_t)1 << s;
            size_t m = n + (hn - 1) * up;
            memset(t, 0, m * sizeof(double));
            for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < hn; k++)
                    t[i + k * up] += f[i] * h[k];
            if (hp) {
                sum = 0;
                for (size_t i = 0; i < m; i++)
                    sum += fabs(t[i]);
                high[s] = sum;
            } else {
                memcpy(f, t, m * sizeof(double));
                n = m;
            }
        }
        if (s == levels)
            break;
    }
    free(f);
    free(t);
    return 0;
}

int sci_j2k_rev_entries(unsigned levels, unsigned range_bits,
                        uint16_t *entries) {
    double low[BIBO_LEVELS + 1], high[BIBO_LEVELS + 1];
    if (bibo_53(levels < BIBO_LEVELS ? levels : BIBO_LEVELS, low, high))
        return -1;
    for (unsigned i = 0; i < 3 * levels + 1; i++) {
        unsigned o = i ? 1 + (i - 1) % 3 : 0;
        unsigned d = i ? levels - (i - 1) / 3 : levels;
        unsigned dl = d < BIBO_LEVELS ? d : BIBO_LEVELS;
        unsigned dh = d - 1 < BIBO_LEVELS ? d - 1 : BIBO_LEVELS;
        double gain = o == 0 ? low[dl] * low[dl]
                      : o == 3 ? high[dh] * high[dh] : low[dl] * high[dh];
        unsigned x = (unsigned)ceil(log2(gain * 1.1));
        entries[i] = (uint16_t)((range_bits + x) << 11);
    }
    return 0;
}

/* ---- synthesis norms ------------------------------------------------------- */

/* Levels whose synthesis norms are computed; deeper ones grow by sqrt(2)
 * a level from the deepest of these. */
#define NORM_LEVELS 14

static double norm_run(sci_dwt_filter f, unsigned l, int high) {
    /* The basis function spans some 7.5 * 2^l samples around the middle
     * of these 16 * 2^l: no boundary reaches it, so the values (and their
     * sum) are those of any longer signal. */
    uint32_t n = (uint32_t)16 << l;
    float *x = calloc(n, sizeof(float));
    if (!x)
        return 0.0;
    uint32_t low = sci_dwt_low_len(n, l);
    uint32_t pos = high ? low + (sci_dwt_low_len(n, l - 1) - low) / 2 : low / 2;
    x[pos] = 1.0f;
    if (f == SCI_DWT_97)
        sci_dwt97_inverse(NULL, x, n, 1, n, l);
    else
        sci_dwt53f_inverse(NULL, x, n, 1, n, l);
    double sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += (double)x[i] * x[i];
    free(x);
    return sqrt(sum);
}

/* They depend on the filter and the level only: each is computed once in
 * the process, when an encoder first needs it (those of 14 levels take a
 * 256 Ki-sample transform), so that deep levels cost a frame nothing. */
static pthread_mutex_t norm_lock = PTHREAD_MUTEX_INITIALIZER;
static double norm_table[2][2][NORM_LEVELS + 1]; /* [9/7][high][level] */

/* L2 norm of a 1-D synthesis basis function of a coefficient of the low
 * (high = 0) or high band of level `level`, found by running our own
 * inverse transform (9/7, or the 5/3 without rounding) on an impulse, so
 * it holds for our normalisation.  1.0 when out of memory. */
static double norm_synth(sci_dwt_filter f, unsigned level, int high) {
    unsigned l = level > NORM_LEVELS ? NORM_LEVELS : level;
    double *slot = &norm_table[f == SCI_DWT_97][high != 0][l];
    pthread_mutex_lock(&norm_lock);
    if (*slot == 0.0)
        *slot = norm_run(f, l, high);
    double norm = *slot;
    pthread_mutex_unlock(&norm_lock);
    if (norm == 0.0)
        return 1.0;
    for (unsigned d = l; d < level; d++)
        norm *= sqrt(2.0);
    return norm;
}

double sci_j2k_band_norm(sci_dwt_filter f, unsigned level, unsigned orient) {
    double low = norm_synth(f, level, 0);
    double high = level ? norm_synth(f, level, 1) : 1.0;
    return ((orient & 1) ? high : low) * ((orient & 2) ? high : low);
}

/* ---- code-blocks -------------------------------------------------------------- */

int sci_j2k_quantize_block(const void *src, size_t stride, unsigned w,
                           unsigned h, int reversible, float inv_step,
                           unsigned mb, uint32_t *dst, size_t dst_stride) {
    uint32_t limit = (1u << mb) - 1;
    int bad = 0;
    for (uint32_t y = 0; y < h; y++, dst += dst_stride) {
        if (!reversible) {
            const float *s = (const float *)src + (size_t)y * stride;
            for (uint32_t x = 0; x < w; x++) {
                float v = s[x];
                float a = fabsf(v) * inv_step;
                uint32_t q = a >= (float)limit ? limit : (uint32_t)a;
                dst[x] = q ? q | (v < 0 ? SCI_J2K_SIGN : 0) : 0;
            }
        } else {
            const int32_t *s = (const int32_t *)src + (size_t)y * stride;
            for (uint32_t x = 0; x < w; x++) {
                int32_t v = s[x];
                uint32_t a = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
                bad |= a > limit; /* exceeds the signalled range */
                dst[x] = a ? a | (v < 0 ? SCI_J2K_SIGN : 0) : 0;
            }
        }
    }
    return bad ? -1 : 0;
}

/* The magnitude m of a sample whose lowest decoded bit-plane is *lo, back
 * from the ROI shift s (H.1): a magnitude at or above 2^s belongs to the
 * region and is shifted down, with its decoded planes. */
static inline uint32_t roi_unshift(uint32_t m, unsigned s, unsigned *lo) {
    if (s && s < 32 && m >= (1u << s)) {
        m >>= s;
        *lo = *lo > s ? *lo - s : 0;
    }
    return m;
}

void sci_j2k_dequantize_block(const uint32_t *sm, const uint8_t *low,
                              unsigned w, unsigned h, unsigned roi,
                              int reversible, double step, void *dst,
                              size_t stride) {
    /* one loop each, so that neither tests the filter per sample */
    if (reversible) {
        int32_t *d = dst;
        for (unsigned y = 0; y < h; y++)
            for (unsigned x = 0; x < w; x++) {
                uint32_t v = sm[y * w + x];
                uint32_t m = v & ~SCI_J2K_SIGN;
                int32_t q = 0;
                if (m) {
                    unsigned lo = low[y * w + x];
                    m = roi_unshift(m, roi, &lo);
                    /* the middle of the interval, an integer when lo > 0 */
                    if (lo)
                        m += 1u << (lo - 1);
                    q = (v & SCI_J2K_SIGN) ? -(int32_t)m : (int32_t)m;
                }
                d[(size_t)y * stride + x] = q;
            }
    } else {
        float *d = dst;
        for (unsigned y = 0; y < h; y++)
            for (unsigned x = 0; x < w; x++) {
                uint32_t v = sm[y * w + x];
                uint32_t m = v & ~SCI_J2K_SIGN;
                float q = 0.0f;
                if (m) {
                    unsigned lo = low[y * w + x];
                    m = roi_unshift(m, roi, &lo);
                    double a = ((double)m + ldexp(0.5, (int)lo)) * step;
                    q = (float)((v & SCI_J2K_SIGN) ? -a : a);
                }
                d[(size_t)y * stride + x] = q;
            }
    }
}
