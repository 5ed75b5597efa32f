/*
 * What decomposition levels beyond those a frame can use cost the JPEG 2000
 * encoders (codec/j2k/htj2k.c, both block coders, both filters): a 64 x 64
 * frame has nothing left to decompose after 6 levels, yet levels=32 once
 * took seconds and a 128 MiB filter per band to set up (the 5/3 gains
 * were computed 20 levels deep for every band; the 9/7 and Part 1 norms
 * ran a 4 Mi-sample transform for every level past 14).  Every byte the
 * encoder allocates while it is made is counted here (malloc and friends
 * are wrapped): the set-up of levels=32 must stay small, and once the
 * process has its synthesis norms, cost what the frame's usable levels
 * cost.  The codestream must not change: the reversible quantization
 * exponents of every level are checked against the bit counts of the
 * filters' BIBO gains, computed here by convolution as deep as is cheap
 * (they no longer change after 3 levels); tests/j2k/test_j2kenc_limits.c
 * decodes levels=32 codestreams of the elements with openjpegdec.
 *
 *   test-codec-levels
 */
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/j2k/htj2k.h"
#include "codec/j2k/wavelet_frame.h"
#include "tests/common/testutil.h"

/* ---- every allocation counted ------------------------------------------ */

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static int counting;
static size_t counted; /* bytes handed out while counting */

static void count(void *p, size_t n) {
    if (p && __atomic_load_n(&counting, __ATOMIC_RELAXED))
        __atomic_fetch_add(&counted, n, __ATOMIC_RELAXED);
}

void *malloc(size_t n) {
    void *p = __libc_malloc(n);
    count(p, n);
    return p;
}

void *calloc(size_t n, size_t size) {
    void *p = __libc_calloc(n, size);
    count(p, n * size);
    return p;
}

void *realloc(void *q, size_t n) {
    void *p = __libc_realloc(q, n);
    count(p, n);
    return p;
}

int posix_memalign(void **out, size_t align, size_t n) {
    void *p = __libc_memalign(align, n);
    if (!p)
        return 12; /* ENOMEM */
    count(p, n);
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t n) {
    void *p = __libc_memalign(align, n);
    count(p, n);
    return p;
}

void free(void *p) {
    __libc_free(p);
}

/* ---- the encoders ------------------------------------------------------- */

static void geometry(sci_wt_geometry *g, int irrev, unsigned levels) {
    memset(g, 0, sizeof *g);
    g->width = 64;
    g->height = 64;
    g->components = 1;
    g->depth = 8;
    g->dx[0] = g->dy[0] = 1;
    g->filter = irrev ? SCI_DWT_97 : SCI_DWT_53;
    g->levels = levels;
    g->ct = SCI_CT_NONE;
}

/* Bytes allocated while the encoder is made (and freed), or 0 when it
 * cannot be made. */
static size_t setup_bytes(int irrev, int part1, unsigned levels) {
    sci_wt_geometry g;
    sci_htj2k_params p;
    geometry(&g, irrev, levels);
    sci_htj2k_params_default(&p);
    p.coder = part1 ? SCI_J2K_CODER_PART1 : SCI_J2K_CODER_HT;
    counted = 0;
    __atomic_store_n(&counting, 1, __ATOMIC_RELAXED);
    sci_htj2k_enc *e = sci_htj2k_enc_new(&g, &p, NULL);
    __atomic_store_n(&counting, 0, __ATOMIC_RELAXED);
    if (!e)
        return 0;
    sci_htj2k_enc_free(e);
    return counted;
}

/* The frame coded with levels; *len its length (NULL on a failure). */
static uint8_t *code_frame(int irrev, int part1, unsigned levels,
                           size_t *len) {
    sci_wt_geometry g;
    sci_htj2k_params p;
    geometry(&g, irrev, levels);
    sci_htj2k_params_default(&p);
    p.coder = part1 ? SCI_J2K_CODER_PART1 : SCI_J2K_CODER_HT;
    uint8_t px[64 * 64];
    for (unsigned i = 0; i < sizeof px; i++)
        px[i] = (uint8_t)((i % 64) * 3 + (i / 64) * 2 + rng() % 16);
    sci_wt_plane src = {px, 64, 1};
    void *coeffs = malloc(sci_wt_coeff_count(&g) * 4);
    sci_htj2k_enc *e = sci_htj2k_enc_new(&g, &p, NULL);
    uint8_t *out = NULL;
    *len = 0;
    if (coeffs && e && !sci_wt_forward(NULL, &g, &src, coeffs)) {
        size_t cap = sci_htj2k_max_bytes(e);
        out = malloc(cap);
        if (out)
            *len = sci_htj2k_encode(e, coeffs, out, cap);
        if (!*len) {
            free(out);
            out = NULL;
        }
    }
    sci_htj2k_enc_free(e);
    free(coeffs);
    return out;
}

/* ---- the 5/3 gains, by convolution ------------------------------------- */

/* L1 norms of the 5/3 analysis filters of d low-pass steps (low[d]) and d
 * low-pass steps then a high-pass one (high[d]), d = 0..depth: the filter
 * of d + 1 steps is that of d convolved with the step's taps spread 2^d
 * apart. */
static double l1(const double *f, size_t n) {
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += fabs(f[i]);
    return sum;
}

static size_t step(const double *f, size_t n, const double *h, size_t hn,
                   unsigned d, double *out) {
    size_t up = (size_t)1 << d, m = n + (hn - 1) * up;
    memset(out, 0, m * sizeof *out);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < hn; k++)
            out[i + k * up] += f[i] * h[k];
    return m;
}

static void gains_53(unsigned depth, double *low, double *high) {
    static const double h0[5] = {-0.125, 0.25, 0.75, 0.25, -0.125};
    static const double h1[3] = {-0.5, 1.0, -0.5};
    size_t cap = (size_t)8 << (depth + 1);
    double *f = calloc(cap, sizeof *f), *t = calloc(cap, sizeof *t);
    size_t n = 1;
    f[0] = 1.0;
    for (unsigned d = 0; d <= depth; d++) {
        low[d] = l1(f, n);
        high[d] = l1(t, step(f, n, h1, 3, d, t));
        n = step(f, n, h0, 5, d, t);
        memcpy(f, t, n * sizeof *f);
    }
    free(f);
    free(t);
}

/* The reversible exponents of QCD (component 0): band order LL_L, then
 * HL, LH, HH of levels L..1.  Returns how many were read. */
static unsigned read_qcd(const uint8_t *cs, size_t len, unsigned *eps,
                         unsigned max) {
    for (size_t i = 0; i + 5 < len; i++)
        if (cs[i] == 0xFF && cs[i + 1] == 0x5C) {
            unsigned lq = (unsigned)cs[i + 2] << 8 | cs[i + 3];
            unsigned n = lq - 3;
            if ((cs[i + 4] & 0x1F) != 0 || n > max || i + 5 + n > len)
                return 0;
            for (unsigned k = 0; k < n; k++)
                eps[k] = cs[i + 5 + k] >> 3;
            return n;
        }
    return 0;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0);

    /* Set-up cost.  The first 9/7 or Part 1 encoder also computes the
     * process's synthesis norms, once: 14 levels deep (deeper ones follow
     * from them), some 20 MiB allocated and freed in turn, 2 MiB at most
     * at once.  Before, levels=32 allocated 230 MiB (norms) and GiB (5/3
     * gains) every time. */
    static const char *kind[2][2] = {{"HT 5/3", "Part 1 5/3"},
                                     {"HT 9/7", "Part 1 9/7"}};
    for (int irrev = 0; irrev < 2; irrev++)
        for (int part1 = 0; part1 < 2; part1++) {
            char what[160];
            size_t first = setup_bytes(irrev, part1, 32);
            snprintf(what, sizeof what,
                     "%s, levels=32 on 64x64: %zu bytes allocated to set up "
                     "(at most 32 MiB)", kind[irrev][part1], first);
            printf("%s\n", what);
            check(first > 0 && first <= ((size_t)32 << 20), what);
            /* now as the frame's own 6 levels (and a seventh that keeps
             * LL 1x1): the deep levels' bands cost their descriptions */
            size_t deep = setup_bytes(irrev, part1, 32);
            size_t usable = setup_bytes(irrev, part1, 7);
            snprintf(what, sizeof what,
                     "%s: levels=32 allocates %zu bytes, levels=7 %zu (at "
                     "most 64 KiB more)", kind[irrev][part1], deep, usable);
            printf("%s\n", what);
            check(usable > 0 && deep <= usable + 65536, what);
        }

    /* Reversible exponents of every level against the gains: from 3
     * levels on every band type has one bit count; convolution to 12
     * levels shows it stays (the gains grow by less than 0.2 % from 12
     * levels to their limit, 0.3 of a bit below the next count). */
    enum { DEPTH = 12 };
    double low[DEPTH + 1], high[DEPTH + 1];
    gains_53(DEPTH, low, high);
    for (int part1 = 0; part1 < 2; part1++) {
        size_t len;
        uint8_t *cs = code_frame(0, part1, 32, &len);
        unsigned eps[3 * 32 + 1];
        unsigned n = cs ? read_qcd(cs, len, eps, 3 * 32 + 1) : 0;
        int ok = n == 3 * 32 + 1;
        for (unsigned i = 0; ok && i < n; i++) {
            unsigned d = i == 0 ? 32 : 32 - (i - 1) / 3, t = i ? 1 + (i - 1) % 3 : 0;
            unsigned dl = d < DEPTH ? d : DEPTH, dh = d - 1 < DEPTH ? d - 1 : DEPTH;
            double gain = t == 0 ? low[dl] * low[dl]
                          : t == 3 ? high[dh] * high[dh] : low[dl] * high[dh];
            unsigned want = 8 + (unsigned)ceil(log2(gain * 1.1));
            if (eps[i] != want) {
                printf("  band %u (level %u, type %u): exponent %u, the gain "
                       "gives %u\n", i, d, t, eps[i], want);
                ok = 0;
            }
        }
        check(ok, part1 ? "Part 1 5/3 levels=32: QCD exponents of the gains"
                        : "HT 5/3 levels=32: QCD exponents of the gains");
        free(cs);
    }
    for (unsigned d = 3; d <= DEPTH; d++)
        check(ceil(log2(low[d] * low[d] * 1.1)) == 2 &&
                  ceil(log2(low[d] * high[d - 1] * 1.1)) == 3 &&
                  ceil(log2(high[d - 1] * high[d - 1] * 1.1)) == 4,
              "5/3 bit counts settled from 3 levels");

    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
