/*
 * Unit tests of the MQ coder (codec/j2k/mq.c) and the sequential Part 1 Tier-1
 * coder (codec/j2k/t1.c, codec/j2k/t1_dec.c).
 *
 * The MQ coder is checked against answers that do not come from our code:
 * the test sequence of ITU-T T.88 (JBIG2) Annex H.2, whose coder is the
 * one of ISO/IEC 15444-1 Annex C, and two one-decision codewords derived by
 * hand from the flow charts of C.2 (derivations at test_mq_hand).  Tier-1's
 * context tables are shared by encoder and decoder, so the round trips here
 * prove consistency, truncation and traces, not conformance: that needs an
 * external decoder once Tier-2 exists.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/j2k/mq.h"
#include "codec/j2k/t1.h"
#include "tests/common/testutil.h"
#include "t1trace.h"

/* ---- MQ coder ---- */

static unsigned qe_index_ok(void) {
    /* Table C.2 spot values: both ends and the fast-attack states */
    return sci_mq_qe(0) == 0x5601 && sci_mq_qe(5) == 0x0221 &&
           sci_mq_qe(6) == 0x5601 && sci_mq_qe(14) == 0x5601 &&
           sci_mq_qe(45) == 0x0001 && sci_mq_qe(46) == 0x5601;
}

/* T.88 (08/2018) Annex H.2: 256 decisions, one context starting at index
 * 0, MPS 0, bits taken MSB first.  JBIG2 ends its codeword with the open
 * byte and the marker 0xFF 0xAC; here the open byte is that 0xFF, which a
 * 15444-1 FLUSH (C.2.9) leaves out, so the codeword is the first 28 of
 * those 30 bytes. */
static const uint8_t h2_in[32] = {
    0x00, 0x02, 0x00, 0x51, 0x00, 0x00, 0x00, 0xC0, 0x03, 0x52, 0x87,
    0x2A, 0xAA, 0xAA, 0xAA, 0xAA, 0x82, 0xC0, 0x20, 0x00, 0xFC, 0xD7,
    0x9E, 0xF6, 0xBF, 0x7F, 0xED, 0x90, 0x4F, 0x46, 0xA3, 0xBF,
};
static const uint8_t h2_out[28] = {
    0x84, 0xC7, 0x3B, 0xFC, 0xE1, 0xA1, 0x43, 0x04, 0x02, 0x20,
    0x00, 0x00, 0x41, 0x0D, 0xBB, 0x86, 0xF4, 0x31, 0x7F, 0xFF,
    0x88, 0xFF, 0x37, 0x47, 0x1A, 0xDB, 0x6A, 0xDF,
};

static void test_mq_h2(void) {
    uint8_t buf[64];
    sci_mq_enc e;
    sci_mq_enc_init(&e, buf, sizeof buf, 1, NULL);
    for (unsigned i = 0; i < 256; i++)
        sci_mq_enc_encode(&e, 0, h2_in[i >> 3] >> (7 - (i & 7)) & 1);
    size_t n = sci_mq_enc_flush(&e);
    check(n == sizeof h2_out && !memcmp(buf, h2_out, n),
          "T.88 H.2 test sequence encodes to its codeword (28 bytes)");

    sci_mq_dec d;
    sci_mq_dec_init(&d, h2_out, sizeof h2_out, 1, NULL);
    unsigned bad = 0;
    for (unsigned i = 0; i < 256; i++)
        bad += sci_mq_dec_decode(&d, 0) != (h2_in[i >> 3] >> (7 - (i & 7)) & 1u);
    check(bad == 0, "T.88 H.2 codeword decodes to its 256 decisions");
}

/* Hand derivations from C.2 (Qe(0) = 0x5601, NMPS(0) = NLPS(0) = 1,
 * SWITCH(0) = 1; INITENC: A = 0x8000, C = 0, CT = 12, B a dummy 0):
 *
 * One MPS (0): A = 0x8000 - 0x5601 = 0x29FF, no longer >= 0x8000, and
 * A < Qe: conditional exchange, A = Qe = 0x5601, C = 0.  RENORME: one shift,
 * A = 0xAC02, C = 0, CT = 11.  FLUSH: SETBITS: C + A = 0xAC02, C | 0xFFFF
 * = 0xFFFF >= 0xAC02, so C = 0x7FFF.  C << 11 = 0x3FFF800; BYTEOUT: C <
 * 0x8000000, new byte C >> 19 = 0x7F, C = 0x7F800, CT = 8.  C << 8 =
 * 0x7F80000; BYTEOUT: byte 0x7F closes, new byte 0xFF, which FLUSH drops.
 * Codeword: 7F.
 *
 * One LPS (1): A = 0x29FF < Qe: C = C + Qe = 0x5601, A stays 0x29FF.
 * RENORME: two shifts, A = 0xA7FC, C = 0x15804, CT = 10.  SETBITS: C + A
 * = 0x20000, C | 0xFFFF = 0x1FFFF < 0x20000, kept.  C << 10 = 0x7FFFC00;
 * BYTEOUT: new byte C >> 19 = 0xFF, C = 0x7FC00, CT = 8.  C << 8 =
 * 0x7FC0000; BYTEOUT after 0xFF: new byte C >> 20 = 0x7F (7 bits, bit
 * stuffing), CT = 7.  The open byte 0x7F is kept.  Codeword: FF 7F. */
static void test_mq_hand(void) {
    uint8_t buf[16];
    sci_mq_enc e;
    sci_mq_enc_init(&e, buf, sizeof buf, 1, NULL);
    sci_mq_enc_encode(&e, 0, 0);
    check(e.a == 0xAC02 && e.c == 0 && e.ct == 11 && e.cx[0] == sci_mq_state(1, 0),
          "hand: registers after one MPS");
    size_t n = sci_mq_enc_flush(&e);
    check(n == 1 && buf[0] == 0x7F, "hand: one MPS codes to 7F");

    sci_mq_enc_init(&e, buf, sizeof buf, 1, NULL);
    sci_mq_enc_encode(&e, 0, 1);
    check(e.a == 0xA7FC && e.c == 0x15804 && e.ct == 10 &&
          e.cx[0] == sci_mq_state(1, 1), "hand: registers after one LPS (MPS switched)");
    n = sci_mq_enc_flush(&e);
    check(n == 2 && buf[0] == 0xFF && buf[1] == 0x7F, "hand: one LPS codes to FF 7F");

    sci_mq_dec d;
    static const uint8_t one[] = {0x7F}, two[] = {0xFF, 0x7F};
    sci_mq_dec_init(&d, one, 1, 1, NULL);
    check(sci_mq_dec_decode(&d, 0) == 0, "hand: 7F decodes to 0");
    sci_mq_dec_init(&d, two, 2, 1, NULL);
    check(sci_mq_dec_decode(&d, 0) == 1, "hand: FF 7F decodes to 1");
}

/* Predictable termination (D.4.2) by hand, from the registers of
 * test_mq_hand: no SETBITS, k = 12 - CT bits pushed out.
 * One MPS (A = 0xAC02, C = 0, CT = 11): k = 1; C << 11 = 0, BYTEOUT opens
 * byte 0x00, CT = 8, k = -7; the open byte is not 0xFF: BYTEOUT writes it.
 * Codeword: 00 (FLUSH gives 7F).
 * One LPS (A = 0xA7FC, C = 0x15804, CT = 10): k = 2; C << 10 = 0x5601000,
 * BYTEOUT opens C >> 19 = 0xAC, C = 0x1000, k = -6; 0xAC goes out.
 * Codeword: AC (FLUSH gives FF 7F).
 * Raw segments (D.6): nine 1-bits are FF then a byte of 7 bits after the
 * stuffed 0: 1 and the padding 010101, 0x55; eight 1-bits are FF, left
 * out (0 bytes) unless predictably terminated: FF 2A. */
static void test_mq_pterm_raw(void) {
    uint8_t buf[16];
    sci_mq_enc e;
    sci_mq_enc_init(&e, buf, sizeof buf, 1, NULL);
    sci_mq_enc_encode(&e, 0, 0);
    size_t n = sci_mq_enc_pterm(&e);
    check(n == 1 && buf[0] == 0x00, "pterm: one MPS codes to 00");
    sci_mq_enc_init(&e, buf, sizeof buf, 1, NULL);
    sci_mq_enc_encode(&e, 0, 1);
    n = sci_mq_enc_pterm(&e);
    check(n == 1 && buf[0] == 0xAC, "pterm: one LPS codes to AC");
    sci_mq_dec d;
    static const uint8_t z[] = {0x00}, ac[] = {0xAC};
    sci_mq_dec_init(&d, z, 1, 1, NULL);
    check(sci_mq_dec_decode(&d, 0) == 0, "pterm: 00 decodes to 0");
    sci_mq_dec_init(&d, ac, 1, 1, NULL);
    check(sci_mq_dec_decode(&d, 0) == 1, "pterm: AC decodes to 1");

    sci_raw_enc r;
    sci_raw_enc_init(&r, buf, sizeof buf, 0);
    for (unsigned i = 0; i < 9; i++)
        sci_raw_enc_put(&r, 1);
    check(sci_raw_enc_len(&r) == 2, "raw: nine bits touch two bytes");
    n = sci_raw_enc_flush(&r, 0);
    check(n == 2 && buf[0] == 0xFF && buf[1] == 0x55, "raw: nine 1-bits are FF 55");
    sci_raw_enc_init(&r, buf, sizeof buf, 0);
    for (unsigned i = 0; i < 8; i++)
        sci_raw_enc_put(&r, 1);
    check(sci_raw_enc_flush(&r, 0) == 0, "raw: a last FF is left out");
    sci_raw_enc_init(&r, buf, sizeof buf, 0);
    for (unsigned i = 0; i < 8; i++)
        sci_raw_enc_put(&r, 1);
    n = sci_raw_enc_flush(&r, 1);
    check(n == 2 && buf[0] == 0xFF && buf[1] == 0x2A, "raw: predictable end FF 2A");
    sci_raw_dec rd;
    static const uint8_t ff55[] = {0xFF, 0x55};
    sci_raw_dec_init(&rd, ff55, 2);
    unsigned ok = 1;
    for (unsigned i = 0; i < 9; i++)
        ok &= sci_raw_dec_get(&rd) == 1;
    check(ok && sci_raw_dec_get(&rd) == 0, "raw: FF 55 reads as nine 1s, then the padding");
}

/* A random decision source: per context a probability of a 1 from very
 * skewed to even, drawn once. */
typedef struct {
    unsigned nctx;
    uint32_t p1[SCI_MQ_MAX_CONTEXTS];  /* P(1) in 1/2^32 */
} source;

static void source_init(source *s, unsigned nctx) {
    static const double probs[] = {0.0005, 0.01, 0.05, 0.2, 0.5, 0.8, 0.97, 0.9995};
    s->nctx = nctx;
    for (unsigned i = 0; i < nctx; i++)
        s->p1[i] = (uint32_t)(probs[rng() % 8] * 4294967295.0);
}

static void random_init_states(uint8_t *init, unsigned nctx) {
    for (unsigned i = 0; i < nctx; i++) {
        unsigned index = (unsigned)(rng() % 47);
        init[i] = sci_mq_state(index, (unsigned)(rng() & 1));
    }
}

static void test_mq_random(void) {
    enum { N = 40000 };
    static uint8_t cx[N], dd[N], buf[N * 3];
    unsigned bad_runs = 0, runs = 60;
    for (unsigned run = 0; run < runs; run++) {
        unsigned nctx = 1 + (unsigned)(rng() % SCI_MQ_MAX_CONTEXTS);
        unsigned n = 1 + (unsigned)(rng() % N);
        source s;
        source_init(&s, nctx);
        uint8_t init[SCI_MQ_MAX_CONTEXTS];
        random_init_states(init, nctx);
        for (unsigned i = 0; i < n; i++) {
            /* contexts in bursts, as a modeller uses them */
            cx[i] = i && rng() % 4 ? cx[i - 1] : (uint8_t)(rng() % nctx);
            dd[i] = (uint32_t)rng() < s.p1[cx[i]];
        }
        sci_mq_enc e;
        sci_mq_enc_init(&e, buf, sizeof buf, nctx, init);
        for (unsigned i = 0; i < n; i++)
            sci_mq_enc_encode(&e, cx[i], dd[i]);
        /* every other run predictably terminated (D.4.2) */
        size_t len = run & 1 ? sci_mq_enc_pterm(&e) : sci_mq_enc_flush(&e);
        int ok = !e.overflow && e.symbols == n && (len == 0 || buf[len - 1] != 0xFF);
        sci_mq_dec d;
        sci_mq_dec_init(&d, buf, len, nctx, init);
        for (unsigned i = 0; i < n && ok; i++)
            ok = sci_mq_dec_decode(&d, cx[i]) == dd[i];
        /* no 0xFF is followed by a byte above 0x8F (no false marker) */
        for (size_t i = 0; i + 1 < len && ok; i++)
            ok = buf[i] != 0xFF || buf[i + 1] <= 0x8F;
        bad_runs += !ok;
    }
    char what[96];
    snprintf(what, sizeof what, "MQ round trips of %u random sequences (1..64 contexts)", runs);
    check(bad_runs == 0, what);
}

/* After every symbol: the codeword cut at sci_mq_enc_trunc_len (clipped to
 * the final length, a last 0xFF dropped) decodes every symbol so far. */
static void test_mq_trunc(void) {
    enum { N = 1500 };
    static uint8_t cx[N], dd[N], buf[N * 3];
    static size_t tl[N], fl[N];
    static sci_mq_mark mk[N];
    unsigned long cuts = 0, bad = 0, flush_bad = 0, slack_ok = 0, too_long = 0;
    unsigned long xcuts = 0, xbad = 0, xlonger = 0, xslack = 0, saved = 0;
    for (unsigned run = 0; run < 40; run++) {
        unsigned nctx = 1 + (unsigned)(rng() % 19);
        unsigned n = 1 + (unsigned)(rng() % N);
        source s;
        source_init(&s, nctx);
        uint8_t init[SCI_MQ_MAX_CONTEXTS];
        random_init_states(init, nctx);
        for (unsigned i = 0; i < n; i++) {
            cx[i] = (uint8_t)(rng() % nctx);
            dd[i] = (uint32_t)rng() < s.p1[cx[i]];
        }
        sci_mq_enc e;
        sci_mq_enc_init(&e, buf, sizeof buf, nctx, init);
        for (unsigned i = 0; i < n; i++) {
            sci_mq_enc_encode(&e, cx[i], dd[i]);
            tl[i] = sci_mq_enc_trunc_len(&e);
            fl[i] = sci_mq_enc_flush_len(&e);
            sci_mq_enc_mark(&e, &mk[i]);
            /* at most four bytes beyond those already out */
            too_long += tl[i] > (size_t)(e.bp + 1) + 4;
        }
        size_t len = sci_mq_enc_flush(&e);
        for (unsigned i = 0; i < n; i++) {
            size_t xl = sci_mq_cut_len(&mk[i], buf, len);
            size_t bl = tl[i] < len ? tl[i] : len;
            if (bl && bl < len && buf[bl - 1] == 0xFF)
                bl++;
            xlonger += xl > bl;
            saved += bl - (xl < bl ? xl : bl);
            for (int which = 0; which < 5; which++) {
                size_t l = which == 0 ? tl[i] : which == 1 ? fl[i]
                         : which == 2 ? tl[i] - 1 : which == 3 ? xl : xl - 1;
                if ((which == 2 && tl[i] == 0) || (which == 4 && xl == 0))
                    continue;
                if (l > len)
                    l = len;
                /* the bounds' rule (mq.h): a 0xFF keeps its successor */
                if (which < 3 && l && l < len && buf[l - 1] == 0xFF)
                    l++;
                sci_mq_dec d;
                sci_mq_dec_init(&d, buf, l, nctx, init);
                int ok = 1;
                for (unsigned j = 0; j <= i && ok; j++)
                    ok = sci_mq_dec_decode(&d, cx[j]) == dd[j];
                if (which == 0) {
                    cuts++;
                    bad += !ok;
                } else if (which == 1) {
                    flush_bad += !ok;
                } else if (which == 2) {
                    slack_ok += ok;
                } else if (which == 3) {
                    xcuts++;
                    xbad += !ok;
                } else {
                    xslack += ok;
                }
            }
        }
    }
    char what[160];
    snprintf(what, sizeof what, "MQ: %lu cuts at the truncation length decode every symbol so far (%lu fail)",
             cuts, bad);
    check(bad == 0 && cuts > 0, what);
    check(too_long == 0, "MQ: truncation length within 4 bytes of the bytes out");
    snprintf(what, sizeof what, "MQ: %lu exact cuts (sci_mq_cut_len) decode every symbol so far (%lu fail)",
             xcuts, xbad);
    check(xbad == 0 && xcuts > 0, what);
    check(xlonger == 0, "MQ: exact cut never longer than the online bound");
    /* one byte less than the exact cut: only cuts that drop part of the
     * byte open at the mark can still decode (those are not searched) */
    printf("info: exact cuts %lu bytes shorter in all than the bound; "
           "exact cut minus one still decoding: %lu of %lu\n", saved, xslack, xcuts);
    /* For the record: the FLUSH length is not a safe cut of a codeword
     * that goes on (it is the length only if FLUSH is really run there),
     * and the safe length is often 1 byte longer than needed. */
    printf("info: cuts at the flush length failing: %lu of %lu; "
           "cuts one byte shorter than the truncation length still decoding: %lu\n",
           flush_bad, cuts, slack_ok);
}

/* ---- Tier-1 ---- */


/* (one rng() call a statement: the order of calls within an expression
 * is unspecified, and --seed must replay on every compiler) */
static uint32_t rand_mag(unsigned nbp, unsigned kind) {
    uint32_t full = (uint32_t)((1ull << nbp) - 1);
    uint32_t m = (uint32_t)rng() & full;
    unsigned shift = (unsigned)(rng() % nbp);
    switch (kind) {
    case 0: /* dense, uniform */
        return m;
    case 1: /* dense, geometric bit depths (like wavelet detail) */
        return m >> shift;
    case 2: /* sparse */
        return rng() % 16 ? 0 : m >> shift;
    default:
        return 0;
    }
}

static const unsigned shapes[][2] = {
    {4, 4}, {8, 8}, {16, 16}, {32, 32}, {64, 64}, {64, 32}, {32, 64},
    {16, 256}, {1024, 4}, {4, 1024}, {256, 16},
    {1, 1}, {3, 5}, {63, 17}, {1, 64}, {64, 1}, {5, 3}, {7, 1}, {2, 9},
};
/* every combination of the other styles, also with BYPASS, PTERM, both */
#define T1_STYLE_SET(x) x, x | SCI_T1_BYPASS, x | SCI_T1_PTERM, \
    x | SCI_T1_BYPASS | SCI_T1_PTERM
static const unsigned styles[] = {
    T1_STYLE_SET(0), T1_STYLE_SET(SCI_T1_RESET), T1_STYLE_SET(SCI_T1_TERMALL),
    T1_STYLE_SET(SCI_T1_RESET | SCI_T1_TERMALL), T1_STYLE_SET(SCI_T1_VCAUSAL),
    T1_STYLE_SET(SCI_T1_SEGSYM), T1_STYLE_SET(SCI_T1_RESET | SCI_T1_TERMALL |
                                              SCI_T1_VCAUSAL | SCI_T1_SEGSYM),
};

typedef struct {
    unsigned blocks, bad_round, bad_trace, bad_count, bad_zero, bad_cut,
        bad_dist, bad_sum, bad_mono_est, cuts, neg_passes, bad_len, bad_seg,
        bad_rebuild,
        raw_passes;
} t1_stats;

static sci_t1_coder coder;

/* The codeword put together again from the encoder's trace with the MQ
 * and raw coders alone, segment by segment as pass_term / pass_raw say
 * (checked against Table D.9 separately): each segment FLUSHed, or
 * predictably terminated under PTERM; contexts from Table D.7, reset
 * after every pass under RESET.  1 when it matches bytes and lengths. */
static int t1_rebuild(const trace *te, const sci_t1_result *r, unsigned style,
                      const uint8_t *out) {
    static uint8_t buf[1 << 20];
    uint8_t init[SCI_T1_NCTX] = {0};
    init[0] = sci_mq_state(4, 0);
    init[17] = sci_mq_state(3, 0);
    init[18] = sci_mq_state(46, 0);
    int pterm = (style & SCI_T1_PTERM) != 0;
    sci_mq_enc e;
    sci_raw_enc rw;
    sci_mq_enc_init(&e, buf, sizeof buf, SCI_T1_NCTX, init);
    size_t start = 0, k = 0;
    for (unsigned i = 0; i < r->passes; i++) {
        int raw = r->pass_raw[i];
        if (i && r->pass_term[i - 1]) {
            if (raw)
                sci_raw_enc_init(&rw, buf, sizeof buf, start);
            else
                sci_mq_enc_restart(&e, start);
        }
        for (; k < r->pass_symbols[i]; k++) {
            unsigned cx = te->v[k] >> 1, d = te->v[k] & 1;
            if (raw != (cx == SCI_T1_NCTX))
                return 0;
            if (raw)
                sci_raw_enc_put(&rw, d);
            else
                sci_mq_enc_encode(&e, cx, d);
        }
        if (r->pass_term[i]) {
            size_t end = raw ? sci_raw_enc_flush(&rw, pterm)
                             : pterm ? sci_mq_enc_pterm(&e) : sci_mq_enc_flush(&e);
            if (end != r->pass_len[i])
                return 0;
            start = end;
        }
        if (style & SCI_T1_RESET)
            memcpy(e.cx, init, sizeof init);
    }
    return start == r->len && !memcmp(buf, out, r->len);
}

/* Encodes sm, decodes it whole and after every pass, and checks all that
 * the comments of test_t1 list. */
static void t1_block(t1_stats *st, const uint32_t *sm, unsigned w, unsigned h,
                     unsigned band, unsigned nbp, unsigned style, int all_cuts) {
    static uint8_t out[1 << 20], cut[1 << 20];
    static uint32_t back[4096];
    trace te = {0}, td = {0};
    sci_t1_params p = {w, h, band, nbp, style, trace_fn, &te};
    sci_t1_result r;
    st->blocks++;
    size_t cap = sci_t1_max_bytes(w, h, nbp);
    if (cap > sizeof out)
        cap = sizeof out;
    if (sci_t1_encode(&coder, &p, sm, w, out, cap, &r) != 0) {
        st->bad_round++;
        goto done;
    }
    /* the samples' own statistics */
    uint32_t any = 0;
    double total = 0;
    for (unsigned i = 0; i < w * h; i++) {
        uint32_t m = sm[i] & ~SCI_T1_SIGN;
        any |= m;
        total += (double)m * m;
    }
    unsigned top = 0;
    while (any >> (top + 1))
        top++;
    if (!any) {
        st->bad_zero += !(r.passes == 0 && r.len == 0 && te.n == 0 &&
                          r.zero_planes == nbp);
        goto done;
    }
    st->bad_zero += r.zero_planes != nbp - 1 - top || r.passes != 3 * top + 1;
    st->bad_count += te.n != r.symbols || r.pass_symbols[r.passes - 1] != r.symbols;
    st->bad_len += r.pass_len[r.passes - 1] != r.len;
    for (unsigned i = 1; i < r.passes; i++)
        st->bad_len += r.pass_len[i] < r.pass_len[i - 1];

    /* The segments of Table D.9, worked out here independently: raw are
     * the SPP and MRP passes of the fifth plane on (pass 10 on), segments
     * end at the last pass, at every pass under TERMALL, and under BYPASS
     * at pass 9 and every later MRP and CUP.  No segment ends in 0xFF,
     * no 0xFF is followed by a byte above 0x8F (MQ) or 0x7F (raw). */
    unsigned nseg = 0;
    size_t seg_start = 0;
    for (unsigned i = 0; i < r.passes; i++) {
        unsigned kind = i ? (i - 1) % 3 : 2;
        int raw = (style & SCI_T1_BYPASS) && i >= 10 && kind != 2;
        int term = i + 1 == r.passes || (style & SCI_T1_TERMALL) ||
                   ((style & SCI_T1_BYPASS) && i >= 9 && kind != 0);
        st->bad_seg += r.pass_raw[i] != raw || r.pass_term[i] != term;
        st->raw_passes += raw;
        if (!r.pass_term[i])
            continue;
        nseg++;
        size_t e = r.pass_len[i];
        if (e > seg_start && out[e - 1] == 0xFF)
            st->bad_seg++;
        for (size_t j = seg_start; j + 1 < e; j++)
            if (out[j] == 0xFF && out[j + 1] > (raw ? 0x7F : 0x8F))
                st->bad_seg++;
        seg_start = e;
    }
    st->bad_seg += nseg != r.segments;
    st->bad_rebuild += !t1_rebuild(&te, &r, style, out);

    /* all passes: the samples come back exactly, the decoder sees the
     * encoder's (context, decision) sequence */
    p.trace_user = &td;
    int rc = sci_t1_decode(&coder, &p, out, r.len, r.zero_planes, r.passes,
                           r.pass_len, back, w);
    st->bad_round += rc != 0 || memcmp(back, sm, w * h * sizeof *sm) != 0;
    st->bad_trace += td.n != te.n || memcmp(td.v, te.v, te.n) != 0;

    /* every pass's distortion decrease, summed, is the whole energy */
    double sum = 0;
    for (unsigned i = 0; i < r.passes; i++) {
        sum += r.pass_dist[i];
        st->neg_passes += r.pass_dist[i] < 0;
    }
    st->bad_sum += nbp <= 20 ? sum != total : fabs(sum - total) > 1e-9 * total;

    /* Cut after pass k: only the first pass_len[k-1] bytes exist.  The
     * decoder's first pass_symbols[k-1] decisions are the encoder's, the
     * squared error is what the estimates say, and each sample is within
     * the precision of the last plane coded. */
    double remaining = total, prev_err = total;
    for (unsigned k = 1; k <= r.passes; k++) {
        remaining -= r.pass_dist[k - 1];
        if (!all_cuts && k != r.passes && rng() % 8)
            continue;
        st->cuts++;
        size_t l = r.pass_len[k - 1];
        memcpy(cut, out, l);
        td.n = 0;
        sci_t1_decode(&coder, &p, cut, l, r.zero_planes, k, r.pass_len, back, w);
        unsigned long ns = r.pass_symbols[k - 1];
        st->bad_cut += td.n < ns || memcmp(td.v, te.v, ns) != 0;
        /* plane of pass k - 1: pass 0 is plane top, then 3 per plane */
        unsigned pk = top - (k + 1) / 3;
        double err = 0;
        int far = 0;
        for (unsigned i = 0; i < w * h; i++) {
            uint32_t m = sm[i] & ~SCI_T1_SIGN, dm = back[i] & ~SCI_T1_SIGN;
            double e = (double)m - (double)dm;
            err += e * e;
            if (fabs(e) >= ldexp(1.0, (int)pk + 1) ||
                (dm && (back[i] & SCI_T1_SIGN) != (sm[i] & SCI_T1_SIGN)))
                far = 1;
        }
        st->bad_cut += far;
        st->bad_dist += nbp <= 20 ? err != remaining
                                  : fabs(err - remaining) > 1e-9 * total;
        /* the error falls wherever the estimate says it falls */
        if (all_cuts && k > 1)
            st->bad_mono_est += (err <= prev_err) != (r.pass_dist[k - 1] >= 0);
        prev_err = err;
    }
done:
    free(te.v);
    free(td.v);
}

static void fill(uint32_t *sm, unsigned n, unsigned nbp, unsigned kind) {
    /* the sign of a zero is not coded: a "-0" comes back as 0, so the
     * round trips compare blocks without any (t1_negzero checks them) */
    for (unsigned i = 0; i < n; i++) {
        uint32_t m = rand_mag(nbp, kind);
        sm[i] = m | (m && rng() & 1 ? SCI_T1_SIGN : 0);
    }
}

static void report(const t1_stats *st, const char *name) {
    char what[160];
    snprintf(what, sizeof what, "%s: %u blocks round-trip exactly", name, st->blocks);
    check(st->bad_round == 0, what);
    snprintf(what, sizeof what, "%s: decoder trace equals encoder trace", name);
    check(st->bad_trace == 0, what);
    snprintf(what, sizeof what, "%s: trace length == MQ decisions", name);
    check(st->bad_count == 0, what);
    snprintf(what, sizeof what, "%s: passes and zero bit-planes (all-zero: none)", name);
    check(st->bad_zero == 0, what);
    snprintf(what, sizeof what, "%s: pass lengths non-decreasing, last == codeword", name);
    check(st->bad_len == 0, what);
    snprintf(what, sizeof what, "%s: segments and raw passes as Table D.9 (%u raw passes), "
             "no segment ends in 0xFF, no false marker", name, st->raw_passes);
    check(st->bad_seg == 0 && st->raw_passes > 0, what);
    snprintf(what, sizeof what, "%s: codeword == its segments rebuilt from the trace by the "
             "MQ and raw coders (FLUSH, or PTERM)", name);
    check(st->bad_rebuild == 0, what);
    snprintf(what, sizeof what, "%s: %u cuts decode the encoder's decisions, samples within a plane",
             name, st->cuts);
    check(st->bad_cut == 0 && st->cuts > 0, what);
    snprintf(what, sizeof what, "%s: error after each cut == total - estimates", name);
    check(st->bad_dist == 0, what);
    snprintf(what, sizeof what, "%s: estimates sum to the block energy", name);
    check(st->bad_sum == 0, what);
    snprintf(what, sizeof what, "%s: error falls exactly where estimates are >= 0", name);
    check(st->bad_mono_est == 0, what);
    if (st->neg_passes)
        printf("info: %s: %u passes with a negative distortion estimate\n", name,
               st->neg_passes);
}

static void test_t1(void) {
    static uint32_t sm[4096];
    unsigned nshapes = sizeof shapes / sizeof shapes[0];
    unsigned nstyles = sizeof styles / sizeof styles[0];

    /* every shape x orientation x kind, random depth and style */
    t1_stats st = {0};
    for (unsigned s = 0; s < nshapes; s++) {
        unsigned w = shapes[s][0], h = shapes[s][1];
        for (unsigned band = 0; band < 4; band++) {
            for (unsigned kind = 0; kind < 3; kind++) {
                unsigned nbp = 1 + (unsigned)(rng() % 30);
                unsigned style = styles[rng() % nstyles];
                fill(sm, w * h, nbp, kind);
                t1_block(&st, sm, w, h, band, nbp, style, w * h <= 1024 || nbp <= 10);
            }
        }
    }
    report(&st, "shapes");

    /* every depth 1..30, every style, on a few shapes */
    t1_stats sd = {0};
    static const unsigned dshapes[][2] = {{8, 8}, {3, 5}, {16, 4}, {64, 64}};
    for (unsigned nbp = 1; nbp <= 30; nbp++) {
        for (unsigned s = 0; s < 4; s++) {
            unsigned w = dshapes[s][0], h = dshapes[s][1];
            unsigned style = styles[(nbp + s) % nstyles];
            unsigned band = (nbp + s) & 3;
            fill(sm, w * h, nbp, s == 3 ? 1 : 0);
            /* the top plane used in half the blocks */
            if (nbp > 1 && rng() & 1)
                sm[rng() % (w * h)] |= 1u << (nbp - 1);
            t1_block(&sd, sm, w, h, band, nbp, style, w * h <= 256);
        }
    }
    report(&sd, "depths");

    /* special blocks: all zero, one nonzero sample, single samples */
    t1_stats sp = {0};
    for (unsigned s = 0; s < nshapes; s++) {
        unsigned w = shapes[s][0], h = shapes[s][1];
        for (unsigned style = 0; style < nstyles; style++) {
            unsigned nbp = 1 + (unsigned)(rng() % 30);
            memset(sm, 0, w * h * sizeof *sm);
            t1_block(&sp, sm, w, h, style & 3, nbp, styles[style], 1);
            uint32_t m = (uint32_t)rng() & ((1u << nbp) - 1);
            uint32_t sign = rng() & 1 ? SCI_T1_SIGN : 0;
            sm[rng() % (w * h)] = (m ? m : 1) | sign;
            t1_block(&sp, sm, w, h, style & 3, nbp, styles[style], 1);
        }
    }
    for (unsigned nbp = 1; nbp <= 30; nbp++) {
        sm[0] = (((uint32_t)rng() & ((1u << nbp) - 1)) | 1u << (nbp - 1)) |
                (nbp & 1 ? SCI_T1_SIGN : 0);
        t1_block(&sp, sm, 1, 1, nbp & 3, nbp, styles[nbp % nstyles], 1);
        /* a whole block at the largest magnitude, every plane full */
        for (unsigned i = 0; i < 64; i++)
            sm[i] = (1u << nbp) - 1;
        t1_block(&sp, sm, 8, 8, nbp & 3, nbp, styles[nbp % nstyles], 1);
    }
    report(&sp, "special");
}

/* A negative zero is coded as a zero and decodes as +0. */
static void test_t1_negzero(void) {
    static uint8_t out[1 << 16];
    uint32_t sm[16], back[16];
    sci_t1_result r;
    sci_t1_params p = {4, 4, SCI_T1_HH, 6, 0, NULL, NULL};
    for (unsigned i = 0; i < 16; i++)
        sm[i] = i & 1 ? SCI_T1_SIGN : (uint32_t)i;
    int ok = sci_t1_encode(&coder, &p, sm, 4, out, sizeof out, &r) == 0 &&
             sci_t1_decode(&coder, &p, out, r.len, r.zero_planes, r.passes,
                           r.pass_len, back, 4) == 0;
    for (unsigned i = 0; i < 16 && ok; i++)
        ok = back[i] == (i & 1 ? 0 : i);
    check(ok, "negative zeros decode as +0");
}

static void test_t1_params(void) {
    static uint8_t out[1 << 16];
    static uint32_t sm[4096];
    sci_t1_result r;
    sci_t1_params p = {64, 64, SCI_T1_LL, 8, 0, NULL, NULL};
    check(sci_t1_check(&p) == NULL, "64x64 accepted");
    p.w = 128;
    check(sci_t1_check(&p) != NULL, "128x64 refused (more than 4096 samples)");
    p.w = 2048;
    p.h = 2;
    check(sci_t1_check(&p) != NULL, "2048x2 refused (side above 1024)");
    p.w = 0;
    check(sci_t1_check(&p) != NULL, "0 width refused");
    p.w = p.h = 8;
    p.nbp = 31;
    check(sci_t1_check(&p) != NULL, "31 bit-planes refused");
    p.nbp = 8;
    p.style = 0x40;
    check(sci_t1_check(&p) != NULL && sci_t1_encode(&coder, &p, sm, 8, out, sizeof out, &r) == -1,
          "unknown style bit refused");
    p.style = SCI_T1_BYPASS | SCI_T1_PTERM;
    check(sci_t1_check(&p) == NULL, "bypass and predictable termination accepted");
    p.style = 0;
    memset(sm, 0, sizeof sm);
    sm[3] = 256;
    check(sci_t1_encode(&coder, &p, sm, 8, out, sizeof out, &r) == -1,
          "a magnitude of 2^nbp refused");
    for (unsigned i = 0; i < 64; i++)
        sm[i] = (uint32_t)rng() & 255;
    check(sci_t1_encode(&coder, &p, sm, 8, out, 4, &r) == -2, "too small an output buffer: -2");
}

int main(int argc, char **argv) {
    if (argc > 2 && !strcmp(argv[1], "--seed"))
        rng_state = strtoull(argv[2], NULL, 0);
    check(qe_index_ok(), "Table C.2 spot values");
    test_mq_h2();
    test_mq_hand();
    test_mq_pterm_raw();
    test_mq_random();
    test_mq_trunc();
    test_t1();
    test_t1_negzero();
    test_t1_params();
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
