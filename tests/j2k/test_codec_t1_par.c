/*
 * The bit-parallel EBCOT context modeller (codec/j2k/t1_par.c) against the
 * sequential Tier-1 coder (codec/j2k/t1.c): the proof that the parallel
 * reformulation emits exactly the sequential modeller's (CX, D) sequence.
 *
 * For every block: the sequential encoder's trace, cut into passes at its
 * pass_symbols, must equal the parallel modeller's pairs pass by pass (the
 * first difference is reported with pass, plane, index and sample); the
 * pass kinds and planes must follow the standard's order; each pass must
 * take at most sci_t1p_step_bound steps; sci_t1p_encode must give the
 * same codeword, pass lengths, distortions (bit for bit) and decision
 * counts as sci_t1_encode, and the same trace.  The modeller's steps run
 * their iterations forwards, backwards or permuted, in turn: a step whose
 * iterations were not independent would show up as a difference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/j2k/t1.h"
#include "codec/j2k/t1_par.h"
#include "tests/common/testutil.h"
#include "t1trace.h"


typedef struct {
    unsigned long blocks, passes, pairs, steps;
    unsigned bad_pairs, bad_struct, bad_steps, bad_code, bad_trace, bad_ret;
    unsigned bad_sum_order;
    unsigned long worst_steps;   /* the largest pass step count seen */
    unsigned worst_w, worst_h;
    unsigned reported;
} par_stats;

static sci_t1_coder coder;
static sci_t1p *par;

static const char *kind_name[] = {"SPP", "MRP", "CUP"};

/* Checks one block in every way the file comment lists. */
static void par_block(par_stats *st, const uint32_t *sm, unsigned w,
                      unsigned h, unsigned band, unsigned nbp,
                      unsigned style, unsigned order) {
    static uint8_t out1[1 << 20], out2[1 << 20];
    trace t1 = {0}, t2 = {0};
    sci_t1_params p = {w, h, band, nbp, style, trace_fn, &t1};
    sci_t1_result r1, r2;
    size_t cap = sci_t1_max_bytes(w, h, nbp);
    if (cap > sizeof out1)
        cap = sizeof out1;
    st->blocks++;
    par->order = order;
    int e1 = sci_t1_encode(&coder, &p, sm, w, out1, cap, &r1);

    /* the modeller alone, pass by pass, against the sequential trace */
    unsigned passes = ~0u, zero = ~0u;
    int e0 = sci_t1p_begin(par, &p, sm, w, &passes, &zero);
    if (e1 || e0) {
        st->bad_ret++;
        goto done;
    }
    if (passes != r1.passes || zero != r1.zero_planes)
        st->bad_struct++;
    sci_t1p_pass o;
    unsigned k = 0;
    size_t at = 0;
    int differ = 0;
    while (sci_t1p_next(par, &o)) {
        unsigned plane = r1.passes ? (nbp - 1 - r1.zero_planes) - (k + 2) / 3 : 0;
        unsigned kind = k ? (k - 1) % 3 : SCI_T1P_CUP;
        if (k >= r1.passes || o.kind != kind || o.plane != plane) {
            st->bad_struct++;
            break;
        }
        unsigned long bound = sci_t1p_step_bound(w, h, o.kind);
        st->passes++;
        st->steps += o.steps;
        if (o.steps > bound)
            st->bad_steps++;
        if (o.steps > st->worst_steps) {
            st->worst_steps = o.steps;
            st->worst_w = w;
            st->worst_h = h;
        }
        size_t end = r1.pass_symbols[k];
        /* the pairs keep their contexts in raw (bypass) passes; the coder
         * traces raw decisions as context SCI_T1_NCTX */
        for (size_t j = 0; j < o.n && !differ; j++) {
            unsigned cx = r1.pass_raw[k] ? SCI_T1_NCTX : o.pairs[j].cx;
            uint8_t v = (uint8_t)(cx << 1 | o.pairs[j].d);
            if (at + j >= end || t1.v[at + j] != v) {
                differ = 1;
                if (st->reported++ < 5) {
                    unsigned pos = o.pairs[j].pos;
                    printf("first difference: %ux%u band %u nbp %u style 0x%x order %u: "
                           "pass %u (%s, plane %u), pair %zu, sample (%u, %u): "
                           "parallel (%u, %u), sequential ",
                           w, h, band, nbp, style, order, k, kind_name[o.kind],
                           o.plane, j, pos == SCI_T1P_NOPOS ? 0 : pos % w,
                           pos == SCI_T1P_NOPOS ? 0 : pos / w,
                           o.pairs[j].cx, o.pairs[j].d);
                    if (at + j < end)
                        printf("(%u, %u)\n", t1.v[at + j] >> 1, t1.v[at + j] & 1);
                    else
                        printf("none (pass ended)\n");
                }
            }
        }
        if (!differ && at + o.n != end) {
            differ = 1;
            if (st->reported++ < 5)
                printf("first difference: %ux%u band %u nbp %u style 0x%x: pass %u (%s, "
                       "plane %u): parallel has %zu pairs, sequential %zu\n",
                       w, h, band, nbp, style, k, kind_name[o.kind], o.plane,
                       o.n, end - at);
        }
        /* pass_dist is the exact (128-bit) sum of the terms rounded to
         * double, whatever the order: summed backwards, the same bits */
        __extension__ __int128 acc = 0;
        for (size_t j = o.ngain; j-- > 0;)
            acc += o.gain[j];
        double back = (double)acc;
        st->bad_sum_order += memcmp(&back, &r1.pass_dist[k], sizeof back) != 0;
        st->pairs += o.n;
        at = end;
        k++;
    }
    if (k != r1.passes)
        st->bad_struct++;
    st->bad_pairs += differ;

    /* the whole encoder on top of it */
    p.trace_user = &t2;
    par->order = (order + 1) % 3;
    int e2 = sci_t1p_encode(par, &p, sm, w, out2, cap, &r2);
    if (e2) {
        st->bad_ret++;
        goto done;
    }
    int same = r1.passes == r2.passes && r1.zero_planes == r2.zero_planes &&
               r1.len == r2.len && r1.symbols == r2.symbols &&
               r1.segments == r2.segments &&
               !memcmp(out1, out2, r1.len);
    for (unsigned i = 0; i < r1.passes && same; i++)
        same = r1.pass_len[i] == r2.pass_len[i] &&
               r1.pass_term[i] == r2.pass_term[i] &&
               r1.pass_raw[i] == r2.pass_raw[i] &&
               r1.pass_symbols[i] == r2.pass_symbols[i] &&
               !memcmp(&r1.pass_dist[i], &r2.pass_dist[i], sizeof(double));
    if (!same && st->reported++ < 5)
        printf("codeword/result differs: %ux%u band %u nbp %u style 0x%x\n",
               w, h, band, nbp, style);
    st->bad_code += !same;
    st->bad_trace += t1.n != t2.n || (t1.n && memcmp(t1.v, t2.v, t1.n));
done:
    free(t1.v);
    free(t2.v);
}

/* (one rng() call a statement, so --seed replays on every compiler) */
static uint32_t rand_mag(unsigned nbp, unsigned kind) {
    uint32_t full = (uint32_t)((1ull << nbp) - 1);
    uint32_t m = (uint32_t)rng() & full;
    unsigned shift = (unsigned)(rng() % nbp);
    uint32_t r = (uint32_t)rng();
    switch (kind) {
    case 0: /* dense, uniform */
        return m;
    case 1: /* dense, geometric bit depths (like wavelet detail) */
        return m >> shift;
    case 2: /* sparse */
        return r % 16 ? 0 : m >> shift;
    case 3: /* below the top plane, bits mostly 1: long propagation
             * chains through the significance pass */
        return (m | ((uint32_t)rng() & full)) >> 1;
    default:
        return 0;
    }
}

static void fill(uint32_t *sm, unsigned n, unsigned nbp, unsigned kind) {
    for (unsigned i = 0; i < n; i++) {
        uint32_t m = rand_mag(nbp, kind);
        uint32_t s = (uint32_t)rng() & 1 ? SCI_T1_SIGN : 0;
        sm[i] = m | s;
    }
    if (kind == 3 && n) {
        /* one seed at the top plane */
        unsigned i = (unsigned)(rng() % n);
        sm[i] = (sm[i] & SCI_T1_SIGN) | (uint32_t)((1ull << nbp) - 1);
    }
}

static const unsigned shapes[][2] = {
    {4, 4}, {8, 8}, {16, 16}, {32, 32}, {64, 64}, {64, 32}, {32, 64},
    {16, 256}, {256, 16}, {1024, 4}, {4, 1024},
    {1, 1}, {3, 5}, {63, 17}, {1, 64}, {64, 1}, {5, 3}, {7, 1}, {2, 9},
};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };
/* every combination of the other styles, also with BYPASS, PTERM, both */
#define T1_STYLE_SET(x) x, x | SCI_T1_BYPASS, x | SCI_T1_PTERM, \
    x | SCI_T1_BYPASS | SCI_T1_PTERM
static const unsigned styles[] = {
    T1_STYLE_SET(0), T1_STYLE_SET(SCI_T1_VCAUSAL), T1_STYLE_SET(SCI_T1_RESET),
    T1_STYLE_SET(SCI_T1_TERMALL), T1_STYLE_SET(SCI_T1_SEGSYM),
    T1_STYLE_SET(SCI_T1_RESET | SCI_T1_TERMALL),
    T1_STYLE_SET(SCI_T1_RESET | SCI_T1_TERMALL | SCI_T1_VCAUSAL | SCI_T1_SEGSYM),
};
enum { NSTYLES = sizeof styles / sizeof styles[0] };

static void report(const par_stats *st, const char *what) {
    char line[200];
    snprintf(line, sizeof line, "%s: %lu blocks, %lu passes, %lu pairs: parallel pairs == "
             "sequential trace, pass by pass", what, st->blocks, st->passes, st->pairs);
    check(st->bad_pairs == 0 && st->blocks > 0, line);
    snprintf(line, sizeof line, "%s: pass structure (count, kinds, planes, zero planes)", what);
    check(st->bad_struct == 0, line);
    snprintf(line, sizeof line, "%s: every pass within sci_t1p_step_bound", what);
    check(st->bad_steps == 0, line);
    snprintf(line, sizeof line, "%s: codeword, pass lengths, distortions, counts == sci_t1_encode",
             what);
    check(st->bad_code == 0, line);
    snprintf(line, sizeof line, "%s: sci_t1p_encode trace == sci_t1_encode trace", what);
    check(st->bad_trace == 0, line);
    snprintf(line, sizeof line, "%s: modeller's gains summed backwards == pass_dist", what);
    check(st->bad_sum_order == 0, line);
    snprintf(line, sizeof line, "%s: no error returns", what);
    check(st->bad_ret == 0, line);
    printf("info: %s: %lu blocks, %lu passes, %lu pairs; %.1f steps a pass on average, "
           "most %lu (%ux%u)\n", what, st->blocks, st->passes, st->pairs,
           st->passes ? (double)st->steps / st->passes : 0.0, st->worst_steps,
           st->worst_w, st->worst_h);
}

static uint32_t sm[SCI_T1_MAX_SAMPLES];

/* Every shape x orientation x data kind x style, at random depths. */
static void test_shapes(void) {
    par_stats st = {0};
    unsigned order = 0;
    for (unsigned s = 0; s < NSHAPES; s++) {
        unsigned w = shapes[s][0], h = shapes[s][1];
        int big = w * h > 1024;
        for (unsigned band = 0; band < 4; band++) {
            for (unsigned kind = 0; kind < 4; kind++) {
                for (unsigned rep = 0; rep < (big ? 2u : 10u); rep++) {
                    unsigned nbp = 1 + (unsigned)(rng() % (big ? 16 : 30));
                    unsigned style = styles[(band * 4 + kind + rep) % NSTYLES];
                    fill(sm, w * h, nbp, kind);
                    par_block(&st, sm, w, h, band, nbp, style, order++ % 3);
                }
            }
        }
    }
    report(&st, "shapes");
}

/* Every depth 1..30 on every shape, the full magnitude range included. */
static void test_depths(void) {
    par_stats st = {0};
    unsigned order = 0;
    for (unsigned nbp = 1; nbp <= SCI_T1_MAX_PLANES; nbp++) {
        for (unsigned s = 0; s < NSHAPES; s++) {
            unsigned w = shapes[s][0], h = shapes[s][1];
            if (w * h > 1024 && nbp % 5)
                continue;   /* the large shapes every fifth depth */
            unsigned band = (nbp + s) % 4, kind = (nbp + 3 * s) % 4;
            unsigned style = styles[(nbp + s) % NSTYLES];
            fill(sm, w * h, nbp, kind);
            /* one sample at the largest magnitude */
            sm[rng() % (w * h)] = (uint32_t)((1ull << nbp) - 1) | SCI_T1_SIGN;
            par_block(&st, sm, w, h, band, nbp, style, order++ % 3);
        }
    }
    report(&st, "depths 1..30");
}

/* All-zero blocks, single nonzero samples, single-sample blocks, a
 * checkerboard and full-magnitude blocks. */
static void test_special(void) {
    par_stats st = {0};
    unsigned order = 0;
    for (unsigned s = 0; s < NSHAPES; s++) {
        unsigned w = shapes[s][0], h = shapes[s][1], n = w * h;
        for (unsigned band = 0; band < 4; band++) {
            unsigned nbp = 1 + (unsigned)(rng() % 30);
            unsigned style = styles[(s + band) % NSTYLES];
            memset(sm, 0, n * sizeof sm[0]);
            par_block(&st, sm, w, h, band, nbp, style, order++ % 3);
            for (unsigned i = 0; i < n; i++)
                sm[i] = (uint32_t)rng() & SCI_T1_SIGN;   /* -0 and +0 */
            par_block(&st, sm, w, h, band, nbp, style, order++ % 3);
            memset(sm, 0, n * sizeof sm[0]);
            sm[rng() % n] = (uint32_t)(1 + rng() % ((1ull << nbp) - 1)) | SCI_T1_SIGN;
            par_block(&st, sm, w, h, band, nbp, style, order++ % 3);
            for (unsigned i = 0; i < n; i++)
                sm[i] = (uint32_t)((1ull << nbp) - 1) | ((uint32_t)rng() & SCI_T1_SIGN);
            par_block(&st, sm, w, h, band, nbp, style, order++ % 3);
            for (unsigned i = 0; i < n; i++)
                sm[i] = ((i % w + i / w) & 1) ? (uint32_t)((1ull << nbp) - 1) : 0;
            par_block(&st, sm, w, h, band, nbp, style, order++ % 3);
        }
    }
    for (unsigned nbp = 1; nbp <= SCI_T1_MAX_PLANES; nbp++) {
        for (unsigned band = 0; band < 4; band++) {
            uint32_t v = (uint32_t)(rng() % (1ull << nbp)) | ((uint32_t)rng() & SCI_T1_SIGN);
            par_block(&st, &v, 1, 1, band, nbp, styles[band], order++ % 3);
        }
    }
    report(&st, "special blocks");
}

/* The same blocks through all three iteration orders, compared with each
 * other directly (the other tests compare each order with the sequential
 * coder). */
static void test_orders(void) {
    static sci_t1p_pair first[SCI_T1P_MAX_PAIRS * 3 * SCI_T1_MAX_PLANES];
    unsigned blocks = 0, bad = 0;
    for (unsigned rep = 0; rep < 60; rep++) {
        unsigned s = rep % NSHAPES, w = shapes[s][0], h = shapes[s][1];
        if (w * h > 1024)
            continue;
        unsigned nbp = 1 + (unsigned)(rng() % 12), band = rep % 4;
        sci_t1_params p = {w, h, band, nbp, styles[rep % NSTYLES], NULL, NULL};
        fill(sm, w * h, nbp, rep % 4);
        size_t total = 0;
        for (unsigned order = 0; order < 3; order++) {
            unsigned passes, zero;
            par->order = order;
            sci_t1p_begin(par, &p, sm, w, &passes, &zero);
            sci_t1p_pass o;
            size_t at = 0;
            int diff = 0;
            while (sci_t1p_next(par, &o)) {
                for (size_t j = 0; j < o.n; j++, at++) {
                    if (!order)
                        first[at] = o.pairs[j];
                    else
                        diff |= at >= total || memcmp(&first[at], &o.pairs[j], sizeof first[0]);
                }
            }
            if (!order)
                total = at;
            else
                bad += diff || at != total;
        }
        blocks++;
    }
    char line[120];
    snprintf(line, sizeof line, "%u blocks: forwards, backwards and permuted steps give the "
             "same pairs and positions", blocks);
    check(bad == 0 && blocks > 0, line);
}

/* The bound's formula at a few points, by hand from t1_par.h:
 * 64x64: S = 16, L(w) = 6, L(N) = 12: SPP 16 * 8 + 1 + 13 = 142, MRP 14,
 * CUP 16; 4x1024: S = 256, L(w) = 2: SPP 256 * 4 + 14 = 1038; 1x1: SPP
 * 1 * 2 + 1 + 1 = 4, MRP 2, CUP 4. */
static void test_bound(void) {
    check(sci_t1p_step_bound(64, 64, SCI_T1P_SPP) == 142 &&
          sci_t1p_step_bound(64, 64, SCI_T1P_MRP) == 14 &&
          sci_t1p_step_bound(64, 64, SCI_T1P_CUP) == 16 &&
          sci_t1p_step_bound(4, 1024, SCI_T1P_SPP) == 1038 &&
          sci_t1p_step_bound(1, 1, SCI_T1P_SPP) == 4 &&
          sci_t1p_step_bound(1, 1, SCI_T1P_MRP) == 2 &&
          sci_t1p_step_bound(1, 1, SCI_T1P_CUP) == 4,
          "step bound formula at 64x64, 4x1024, 1x1");
}

static void test_params(void) {
    uint32_t v = 4;
    unsigned passes, zero;
    sci_t1_params p = {1, 1, 0, 2, 0, NULL, NULL};
    check(sci_t1p_begin(par, &p, &v, 1, &passes, &zero) == -1,
          "magnitude >= 2^nbp refused");
    p.nbp = 3;
    p.style = 0x40;
    check(sci_t1p_begin(par, &p, &v, 1, &passes, &zero) == -1, "unknown style bit refused");
    p.style = 0;
    p.w = 65;
    p.h = 64;
    check(sci_t1p_begin(par, &p, &v, 1, &passes, &zero) == -1, "over 4096 samples refused");
}

int main(int argc, char **argv) {
    if (argc > 2 && !strcmp(argv[1], "--seed"))
        rng_state = strtoull(argv[2], NULL, 0);
    par = calloc(1, sizeof *par);
    if (!par)
        return 2;
    test_bound();
    test_params();
    test_special();
    test_shapes();
    test_depths();
    test_orders();
    free(par);
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
