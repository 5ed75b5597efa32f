/*
 * Unit tests of the online-DPCM codec (codec/dpcm/dpcm.h, codec/dpcm/dpcm_core.h,
 * codec/common/crc32.h): the CRC, the range coder, the residual classes and
 * contexts, the segment coder, the entropy stage, the solve, bit-exact
 * round trips of the real GMOS-N frames (bits per pixel against a
 * left-neighbour baseline) and of synthetic frames at every corner of
 * sizes, depths and parameters, frames put together from the stages, and
 * the rejection of every corrupted and truncated stream.
 *
 *   test-codec-dpcm [--seed S] [--data DIR] [--bench]
 *
 * DIR (else $SCI_TEST_DATA_DIR, else ../shared/data; meson passes it)
 * holds spectral16/gmos-n-multi.fits.  Without the file the real-data part
 * says SKIP and the synthetic and corruption parts still run.  --bench times
 * a 1024 x 1024 16-bit frame tiled from the real ones (encode, decode).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/common/crc32.h"
#include "codec/dpcm/dpcm.h"
#include "codec/dpcm/dpcm_core.h"
#include <zstd.h>

#include "dpcm_v5_frame.h"
#include "tests/fits/fitsread.h"
#include "tests/common/testutil.h"

/* ---------------------------------------------------------------------- */

static void test_crc(void) {
    check(sci_crc32(0, (const uint8_t *)"123456789", 9) == 0xCBF43926u,
          "CRC-32 check value");
    uint32_t c = sci_crc32(0, (const uint8_t *)"1234", 4);
    check(sci_crc32(c, (const uint8_t *)"56789", 5) == 0xCBF43926u,
          "CRC-32 in pieces");
}

/* One message of the range coder: count values, each (cum, freq, total). */
typedef struct {
    uint32_t cum, freq, total;
} rc_sym;

/* A random total of 2^k-ish size, k up to 24, and a (cum, freq) in it:
 * kind 0 anything, 1 a likely value (freq close to total, long runs of
 * 0xFF and carries), 2 an unlikely one (freq 1), 3 a power-of-two total
 * (verbatim bits). */
static rc_sym rc_random_sym(unsigned kind) {
    rc_sym s;
    unsigned k = (unsigned)(rng() % 25);
    uint32_t total = kind == 3 ? 1u << k
                               : (uint32_t)(1 + rng() % ((1u << k) + (rng() & 1 ? 0 : 1)));
    if (total > 1u << 24)
        total = 1u << 24;
    if (rng() % 16 == 0)
        total = 1u << 24; /* the largest total often */
    switch (kind) {
    case 1: s.freq = total - (uint32_t)(rng() % (total < 4 ? total : 4)); break;
    case 2: s.freq = 1; break;
    default: s.freq = 1 + (uint32_t)(rng() % total); break;
    }
    if (kind == 3)
        s.freq = 1;
    s.cum = (uint32_t)(rng() % (total - s.freq + 1));
    s.total = total;
    return s;
}

static void test_range_coder(void) {
    enum { COUNT = 20000 };
    static rc_sym syms[COUNT];
    static uint8_t buf[6 + 5 * COUNT + 64];
    static const unsigned counts[] = {0, 1, 2, 5, 100, COUNT};
    unsigned bad = 0, bound_bad = 0, zero_bad = 0, messages = 0;
    for (unsigned c = 0; c < sizeof counts / sizeof *counts; c++)
        for (unsigned kind = 0; kind < 6; kind++) {
            size_t count = counts[c];
            double bits = 0;
            for (size_t i = 0; i < count; i++) {
                /* kinds 4 and 5: a mix; 5 mostly likely values */
                unsigned k = kind < 4 ? kind : kind == 4 ? (unsigned)(rng() % 4)
                                                         : (rng() % 8 ? 1u : 2u);
                syms[i] = rc_random_sym(k);
                bits += log2((double)syms[i].total / syms[i].freq);
            }
            sci_rc_enc e;
            sci_rc_enc_init(&e, buf, sizeof buf);
            for (size_t i = 0; i < count; i++)
                sci_rc_encode(&e, syms[i].cum, syms[i].freq, syms[i].total);
            size_t len = sci_rc_enc_finish(&e);
            messages++;
            /* a value costs log2(total / freq) bits and at most 2^-8 of its
             * interval to the rounding of r: < 0.006 bits */
            if (len > sizeof buf || len < SCI_RC_MIN_BYTES ||
                (double)len > 7 + (bits + 0.006 * count) / 8) {
                bound_bad++;
                continue;
            }
            if (buf[0] != 0)
                zero_bad++;
            sci_rc_dec d;
            int err = sci_rc_dec_init(&d, buf, len);
            for (size_t i = 0; i < count && !err; i++) {
                uint64_t r;
                uint32_t v = sci_rc_peek(&d, syms[i].total, &r);
                if (d.error || v < syms[i].cum || v >= syms[i].cum + syms[i].freq)
                    err = 1;
                else
                    sci_rc_consume(&d, r, syms[i].cum, syms[i].freq);
            }
            if (err || d.error || d.pos != len)
                bad++;
            /* one byte short: the decoder reads past its end */
            if (!err) {
                err = sci_rc_dec_init(&d, buf, len - 1);
                for (size_t i = 0; i < count && !err; i++) {
                    uint64_t r;
                    uint32_t v = sci_rc_peek(&d, syms[i].total, &r);
                    (void)v;
                    if (d.error)
                        break;
                    sci_rc_consume(&d, r, syms[i].cum, syms[i].freq);
                }
                if (!d.error)
                    bad++;
            }
        }
    char what[200];
    snprintf(what, sizeof what,
             "range coder: %u random messages (totals up to 2^24) decode back, reading "
             "exactly their bytes, and not one byte short", messages);
    check(bad == 0, what);
    check(bound_bad == 0, "range coder: messages within 7 bytes + the information content");
    check(zero_bad == 0, "range coder: every message starts with a 0 byte");

    /* verbatim bits by a shift: the same bytes as by a division by 2^bits,
     * between values of any total (bits 0..24) */
    {
        enum { N_BITS = 6000 };
        static uint8_t shifted[6 + 5 * N_BITS + 64];
        unsigned same = 1;
        for (unsigned round = 0; round < 20; round++) {
            sci_rc_enc a, b;
            sci_rc_enc_init(&a, buf, sizeof buf);
            sci_rc_enc_init(&b, shifted, sizeof shifted);
            for (unsigned i = 0; i < N_BITS; i++) {
                if (rng() % 2) {
                    rc_sym q = rc_random_sym((unsigned)(rng() % 4));
                    sci_rc_encode(&a, q.cum, q.freq, q.total);
                    sci_rc_encode(&b, q.cum, q.freq, q.total);
                }
                unsigned nb = (unsigned)(rng() % 25);
                uint32_t v = (uint32_t)(rng() & ((1u << nb) - 1));
                sci_rc_encode(&a, v, 1, 1u << nb);
                sci_rc_encode_bits(&b, v, nb);
            }
            size_t la = sci_rc_enc_finish(&a), lb = sci_rc_enc_finish(&b);
            if (la != lb || la > sizeof buf || memcmp(buf, shifted, la))
                same = 0;
        }
        check(same, "range coder: verbatim bits by a shift give the bytes of "
                    "a division by 2^bits");
    }
    /* an empty message is 6 zero bytes */
    {
        sci_rc_enc e;
        uint8_t b[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        sci_rc_enc_init(&e, b, sizeof b);
        size_t n = sci_rc_enc_finish(&e);
        static const uint8_t z[6] = {0};
        check(n == SCI_RC_MIN_BYTES && !memcmp(b, z, 6) && b[6] == 1,
              "range coder: an empty message is 6 zero bytes");
    }
    /* too small a buffer: the full length is still returned, the bytes that
     * fit are the message's first ones, nothing past cap is written */
    {
        size_t count = 3000;
        for (size_t i = 0; i < count; i++)
            syms[i] = rc_random_sym((unsigned)(rng() % 4));
        sci_rc_enc e;
        sci_rc_enc_init(&e, buf, sizeof buf);
        for (size_t i = 0; i < count; i++)
            sci_rc_encode(&e, syms[i].cum, syms[i].freq, syms[i].total);
        size_t full = sci_rc_enc_finish(&e);
        uint8_t *small = malloc(full + 16);
        size_t caps[] = {0, 1, 5, full / 2, full - 1};
        int ok = full > 16 && full <= sizeof buf;
        for (unsigned c = 0; ok && c < sizeof caps / sizeof *caps; c++) {
            memset(small, 0xA5, full + 16);
            sci_rc_enc_init(&e, small, caps[c]);
            for (size_t i = 0; i < count; i++)
                sci_rc_encode(&e, syms[i].cum, syms[i].freq, syms[i].total);
            size_t n = sci_rc_enc_finish(&e);
            if (n != full || memcmp(small, buf, caps[c]))
                ok = 0;
            for (size_t k = caps[c]; k < full + 16; k++)
                if (small[k] != 0xA5)
                    ok = 0;
        }
        free(small);
        check(ok, "range coder: too small a buffer: its full length returned, nothing "
                  "written past the end");
    }
    /* an impossible code: a value at or past the total */
    {
        uint8_t b[6] = {0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
        sci_rc_dec d;
        uint64_t r;
        int ok = sci_rc_dec_init(&d, b, 6) == 0;
        uint32_t v = sci_rc_peek(&d, 1u << 24, &r); /* code 2^40-1 / r >= 2^24 */
        ok = ok && v == 1u << 24 && d.error;
        uint8_t nz[6] = {1, 0, 0, 0, 0, 0};
        ok = ok && sci_rc_dec_init(&d, nz, 6) != 0;
        ok = ok && sci_rc_dec_init(&d, b, 5) != 0;
        check(ok, "range coder: a code past the total, a nonzero first byte and a message "
                  "under 6 bytes flagged");
    }
}

/* ---------------------------------------------------------------------- */
/* Classes, contexts, segments */

static void test_classes(void) {
    unsigned bad = 0, seen[SCI_DPCM_CLASSES] = {0}, prev = 0;
    for (uint32_t u = 0; u < 1u << 17; u++) {
        unsigned nb, nb2;
        unsigned c = sci_dpcm_class(u, &nb);
        if (c >= SCI_DPCM_ESCAPE || c < prev) {
            bad++;
            continue;
        }
        prev = c;
        seen[c]++;
        uint32_t base = sci_dpcm_class_base(c, &nb2);
        /* the spec's definition, written out again */
        unsigned b = 0;
        while (b < 32 && (u >> b))
            b++;
        unsigned want = u < 8 ? u : 8 + 2 * (b - 4) + ((u >> (b - 2)) & 1);
        unsigned want_nb = u < 8 ? 0 : b - 2;
        if (c != want || nb != want_nb || nb2 != nb || base > u ||
            u - base >= (1u << nb) || (u & ~((1u << nb) - 1)) != base)
            bad++;
    }
    unsigned missing = 0;
    for (unsigned c = 0; c < SCI_DPCM_ESCAPE; c++)
        if (!seen[c] || seen[c] != (c < 8 ? 1u : 1u << ((c - 8) / 2 + 2)))
            missing++;
    check(bad == 0, "classes: sci_dpcm_class / sci_dpcm_class_base invert each other for "
                    "every u < 2^17, as the spec says");
    check(missing == 0 && prev == 35,
          "classes: 0..35 all used, each with 2^(its verbatim bits) values");
}

/* The spec's context: min(7, max(0, floor(log2(a + 1)) - 2)). */
static unsigned ref_context(uint64_t a) {
    int l = (int)floor(log2((double)a + 1.0));
    int c = l - 2;
    return c < 0 ? 0 : c > 7 ? 7 : (unsigned)c;
}

static void test_contexts(void) {
    unsigned bad = 0;
    for (uint32_t a = 0; a < 1u << 20; a++)
        if (sci_dpcm_context(a) != ref_context(a))
            bad++;
    static const uint32_t big[] = {6 * 65535u, 1u << 24, 0x7FFFFFFFu, 0xFFFFFFFEu};
    for (unsigned i = 0; i < sizeof big / sizeof *big; i++)
        if (sci_dpcm_context(big[i]) != 7)
            bad++;
    check(bad == 0 && sci_dpcm_context(6) == 0 && sci_dpcm_context(7) == 1 &&
              sci_dpcm_context(14) == 1 && sci_dpcm_context(15) == 2 &&
              sci_dpcm_context(510) == 6 && sci_dpcm_context(511) == 7,
          "contexts: floor(log2(a + 1)) - 2 within 0..7");
    /* the neighbourhood inside a segment: left, up, up-left, up-right,
     * 0 outside (the frame's edges and the rows above the segment) */
    enum { W = 7, R = 5 };
    int32_t seg[W * R];
    unsigned nb = 0;
    for (unsigned rep = 0; rep < 50; rep++) {
        for (unsigned i = 0; i < W * R; i++)
            seg[i] = (int32_t)(rng() % 131071) - 65535;
        if (rep % 3 == 0)
            for (unsigned i = 0; i < W * R; i++)
                seg[i] = (int32_t)(rng() % 9) - 4;
        for (unsigned yy = 0; yy < R; yy++)
            for (unsigned x = 0; x < W; x++) {
#define A(xx, y2) ((xx) < 0 || (xx) >= W || (y2) < 0 ? 0 : llabs(seg[(y2) * W + (xx)]))
                int ix = (int)x, iy = (int)yy;
                uint64_t a = 2 * A(ix - 1, iy) + 2 * A(ix, iy - 1) + A(ix - 1, iy - 1) +
                             A(ix + 1, iy - 1);
#undef A
                if (sci_dpcm_context_at(seg, W, x, yy) != ref_context(a))
                    nb++;
            }
    }
    check(nb == 0, "contexts: a = 2|left| + 2|up| + |up-left| + |up-right|, 0 outside the "
                   "segment");
}

/* Random residuals in [-maxval, maxval]: mostly small, some of any size. */
static void random_residuals(int32_t *res, size_t count, unsigned depth, unsigned spread) {
    int32_t maxval = (int32_t)((1u << depth) - 1);
    for (size_t i = 0; i < count; i++) {
        int32_t v;
        if (rng() % 32 == 0)
            v = (int32_t)(rng() % (2 * (uint32_t)maxval + 1)) - maxval;
        else
            v = (int32_t)(rng() % (2 * spread + 1)) - (int32_t)spread;
        if (v > maxval)
            v = maxval;
        if (v < -maxval)
            v = -maxval;
        res[i] = v;
    }
}

static void test_segments(void) {
    static const unsigned shapes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 3}, {17, 5},
                                         {64, 8}, {300, 2}, {5, 200}};
    static const unsigned depths[] = {1, 8, 12, 16};
    unsigned bad = 0, runs = 0, bound_bad = 0;
    int32_t *res = malloc(1200 * sizeof *res), *back = malloc(1200 * sizeof *back);
    uint8_t *buf = malloc(sci_dpcm_segment_bound(1200));
    sci_dpcm_models m;
    for (unsigned s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (unsigned d = 0; d < sizeof depths / sizeof *depths; d++)
            for (unsigned tsel = 0; tsel < 4; tsel++) {
                unsigned w = shapes[s][0], rows = shapes[s][1], depth = depths[d];
                size_t count = (size_t)w * rows;
                int32_t maxval = (int32_t)((1u << depth) - 1);
                random_residuals(res, count, depth, depth > 4 ? 20 : 1);
                int32_t lo = -maxval, hi = maxval; /* tsel 0: all coded */
                if (tsel == 1)
                    lo = -3, hi = 4;
                else if (tsel == 2)
                    lo = 0, hi = -1; /* all escaped */
                else if (tsel == 3)
                    sci_dpcm_thresholds(res, count, depth, 2, &lo, &hi);
                if (lo < -maxval)
                    lo = -maxval;
                if (hi > maxval)
                    hi = maxval;
                uint32_t want_esc = 0;
                for (size_t i = 0; i < count; i++)
                    want_esc += res[i] < lo || res[i] > hi;
                sci_rc_enc e;
                size_t cap = sci_dpcm_segment_bound(count);
                uint32_t esc = 7; /* counts are added */
                sci_rc_enc_init(&e, buf, cap);
                sci_dpcm_code_segment(res, w, rows, depth, lo, hi, &m, &e, &esc);
                size_t n = sci_rc_enc_finish(&e);
                runs++;
                if (n > cap || n < SCI_RC_MIN_BYTES) {
                    bound_bad++;
                    continue;
                }
                uint32_t desc = 3;
                memset(back, 0x5A, count * sizeof *back);
                int st = sci_dpcm_decode_segment(buf, n, w, rows, depth, lo, hi, &m, back, &desc);
                if (esc != 7 + want_esc || st != 0 || desc != 3 + want_esc ||
                    memcmp(back, res, count * sizeof *res))
                    bad++;
            }
    char what[160];
    snprintf(what, sizeof what,
             "segments: %u segments (1..16 bits, all coded, all escaped, mixed) round trip", runs);
    check(bad == 0, what);
    check(bound_bad == 0, "segments: within sci_dpcm_segment_bound");

    /* the worst case: full-range noise, everything escaped or everything coded */
    {
        enum { N = 1000 };
        unsigned worst = 0;
        for (int mode = 0; mode < 2; mode++) {
            for (size_t i = 0; i < N; i++)
                res[i] = (int32_t)(rng() % 131071) - 65535;
            sci_rc_enc e;
            uint32_t esc = 0;
            sci_rc_enc_init(&e, buf, sci_dpcm_segment_bound(N));
            sci_dpcm_code_segment(res, 50, N / 50, 16, mode ? -65535 : 0, mode ? 65535 : -1, &m,
                                  &e, &esc);
            size_t n = sci_rc_enc_finish(&e);
            if (n > sci_dpcm_segment_bound(N))
                worst++;
        }
        check(worst == 0, "segments: 16-bit noise within the bound");
    }

    /* corruption of one segment (no CRC here): truncation, a byte more,
     * a nonzero first byte and thresholds the residuals break */
    {
        enum { W = 40, R = 6, N = W * R };
        random_residuals(res, N, 16, 6);
        res[5] = -5;
        res[6] = 5;
        res[7] = -9; /* escaped below */
        int32_t lo = -5, hi = 5;
        sci_rc_enc e;
        uint32_t esc = 0;
        sci_rc_enc_init(&e, buf, sci_dpcm_segment_bound(N));
        sci_dpcm_code_segment(res, W, R, 16, lo, hi, &m, &e, &esc);
        size_t n = sci_rc_enc_finish(&e);
        uint8_t *t = malloc(n + 1);
        unsigned trunc_bad = 0;
        for (size_t len = 0; len < n; len++) {
            uint8_t *u = malloc(len ? len : 1); /* exactly len bytes readable */
            memcpy(u, buf, len);
            uint32_t de = 0;
            if (sci_dpcm_decode_segment(u, len, W, R, 16, lo, hi, &m, back, &de) !=
                SCI_DPCM_E_ENTROPY)
                trunc_bad++;
            free(u);
        }
        check(trunc_bad == 0, "segments: every truncation is E_ENTROPY");
        memcpy(t, buf, n);
        t[n] = 0;
        uint32_t de = 0;
        check(sci_dpcm_decode_segment(t, n + 1, W, R, 16, lo, hi, &m, back, &de) ==
                  SCI_DPCM_E_ENTROPY,
              "segments: a byte appended is E_ENTROPY (not all bytes read)");
        t[0] = 1;
        check(sci_dpcm_decode_segment(t, n, W, R, 16, lo, hi, &m, back, &de) ==
                  SCI_DPCM_E_ENTROPY,
              "segments: a nonzero first byte is E_ENTROPY");
        check(sci_dpcm_decode_segment(buf, n, W, R, 16, lo + 1, hi, &m, back, &de) ==
                  SCI_DPCM_E_ENTROPY,
              "segments: a coded value outside narrower thresholds is E_ENTROPY");
        check(sci_dpcm_decode_segment(buf, n, W, R, 16, lo - 4, hi, &m, back, &de) ==
                  SCI_DPCM_E_ESCAPES,
              "segments: an escaped value inside wider thresholds is E_ESCAPES");
        check(sci_dpcm_decode_segment(buf, n, W, R - 1, 16, lo, hi, &m, back, &de) ==
                  SCI_DPCM_E_ENTROPY,
              "segments: decoding fewer residuals than coded is E_ENTROPY");
        /* changed bytes: an error or other residuals, never a read outside
         * (the buffer is exactly n bytes) */
        unsigned errors = 0, other = 0, same = 0, same_early = 0;
        for (size_t i = 0; i < n; i++)
            for (unsigned b = 0; b < 8; b++) {
                uint8_t *u = malloc(n);
                memcpy(u, buf, n);
                u[i] ^= (uint8_t)(1u << b);
                de = 0;
                int st = sci_dpcm_decode_segment(u, n, W, R, 16, lo, hi, &m, back, &de);
                if (st)
                    errors++;
                else if (memcmp(back, res, N * sizeof *res))
                    other++;
                else {
                    same++;
                    /* only the last 5 bytes (the coder's final 40-bit
                     * window) can leave the decoded values as they were */
                    if (i + 5 < n)
                        same_early++;
                }
                free(u);
            }
        printf("segment bit flips (no CRC): %u errors, %u other residuals, %u the same\n",
               errors, other, same);
        check(errors + other + same == 8 * n && same_early == 0,
              "segments: a changed bit changes the residuals or fails, except in the last "
              "5 bytes");
        free(t);
    }
    free(res);
    free(back);
    free(buf);
}

/* The dot product's order: oldest sample first (a sum that only this order
 * gets exactly right). */
static void test_dot(void) {
    const uint16_t row[4] = {1, 1, 1, 0};
    const double a[3] = {1.0, 1e16, -1e16}; /* a[0]: newest, row[2] */
    check(sci_dpcm_dot(3, a, row + 3) == 1.0,
          "predictor: the dot product adds the oldest sample first");
}

static void test_solve(void) {
    /* G = X^T X, b = X^T y for y = X a with a = (2, -1, 0.5) */
    int64_t x[6][3] = {{1, 2, 3}, {4, 5, 7}, {7, 8, 10}, {2, 9, 4}, {6, 1, 8}, {3, 3, 1}};
    const double a_true[3] = {2, -1, 0.5};
    int64_t g[6] = {0}, b[3] = {0};
    for (int r = 0; r < 6; r++) {
        double yv = 0;
        for (int k = 0; k < 3; k++)
            yv += a_true[k] * (double)x[r][k];
        int64_t y2 = (int64_t)(2 * yv); /* scale by 2: integers */
        int t = 0;
        for (int i = 0; i < 3; i++) {
            for (int j = i; j < 3; j++)
                g[t++] += 2 * x[r][i] * x[r][j];
            b[i] += x[r][i] * y2;
        }
    }
    double a[3];
    int ok = sci_dpcm_solve(3, g, b, a);
    check(ok && a[0] > 1.999999 && a[0] < 2.000001 && a[1] > -1.000001 &&
              a[1] < -0.999999 && a[2] > 0.499999 && a[2] < 0.500001,
          "solve: 3x3 least squares");
    int64_t gs[3] = {4, 4, 4}, bs[2] = {2, 2}; /* [[4,4],[4,4]]: rank 1 */
    check(!sci_dpcm_solve(2, gs, bs, a), "solve: rank-deficient system is singular");
    int64_t gz[1] = {0}, bz[1] = {0};
    check(!sci_dpcm_solve(1, gz, bz, a), "solve: zero system is singular");
    check(sci_dpcm_round_prediction(2.5, 10) == 3 && sci_dpcm_round_prediction(-0.5, 10) == 0 &&
              sci_dpcm_round_prediction(-0.6, 10) == 0 && sci_dpcm_round_prediction(9.49, 10) == 9 &&
              sci_dpcm_round_prediction(1e300, 10) == 10 && sci_dpcm_round_prediction(0.0 / 0.0, 10) == 0,
          "rounding: floor(p + 0.5), clamped, NaN to 0");
}

/* ---------------------------------------------------------------------- */

/* scan=auto: sci_dpcm_choose_scan's rule on frames whose structure runs
 * one way, its 8-bit form, and a frame coded with AUTO: the header says
 * the scan chosen, the bytes are those of that scan given explicitly, and
 * the frame decodes back. */
static void test_scan_auto(void) {
    enum { W = 45, H = 31 };
    static uint16_t v[W * H], t[W * H], flat[W * H];
    static uint8_t v8[W * H];
    for (unsigned y = 0; y < H; y++)
        for (unsigned x = 0; x < W; x++) {
            v[y * W + x] = (uint16_t)((x * 37u) % 1000u + (y & 1));
            t[y * W + x] = (uint16_t)((y * 37u) % 1000u + (x & 1));
            flat[y * W + x] = 1234;
            v8[y * W + x] = (uint8_t)v[y * W + x];
        }
    check(sci_dpcm_choose_scan(v, W, 2, W, H) == SCI_DPCM_SCAN_COLUMNS &&
              sci_dpcm_choose_scan(t, W, 2, W, H) == SCI_DPCM_SCAN_ROWS &&
              sci_dpcm_choose_scan(flat, W, 2, W, H) == SCI_DPCM_SCAN_ROWS &&
              sci_dpcm_choose_scan(v, W, 2, 1, 1) == SCI_DPCM_SCAN_ROWS,
          "scan auto: columns where vertical neighbours differ less, else rows "
          "(ties and 1x1 too)");
    check(sci_dpcm_choose_scan(v8, W, 1, W, H) ==
              sci_dpcm_choose_scan(v, W, 2, W, H),
          "scan auto: 8-bit samples choose as their 16-bit values");
    const uint16_t *frames[2] = {v, t};
    const unsigned want[2] = {SCI_DPCM_SCAN_COLUMNS, SCI_DPCM_SCAN_ROWS};
    int ok = 1;
    size_t cap = sci_dpcm_max_bytes(W, H, 10);
    uint8_t *a = malloc(cap), *b = malloc(cap);
    uint16_t *back = malloc(sizeof v);
    for (int i = 0; i < 2; i++) {
        sci_dpcm_params p;
        sci_dpcm_params_default(&p);
        p.scan = SCI_DPCM_SCAN_AUTO;
        size_t na = sci_dpcm_encode(test_pool(), frames[i], W, W, H, 10, &p, a, cap);
        p.scan = want[i];
        size_t nb = sci_dpcm_encode(test_pool(), frames[i], W, W, H, 10, &p, b, cap);
        sci_dpcm_info info;
        ok &= na && na == nb && !memcmp(a, b, na) &&
              sci_dpcm_peek(a, na, &info) == SCI_DPCM_OK &&
              info.params.scan == want[i] &&
              sci_dpcm_decode(test_pool(), a, na, back, W, (size_t)W * H, NULL) ==
                  SCI_DPCM_OK &&
              !memcmp(back, frames[i], sizeof v);
    }
    check(ok, "scan auto: the frame of the scan chosen, its header saying which; "
              "decoded back exactly");
    free(a);
    free(b);
    free(back);
}

static size_t roundtrip_bytes;

/* A frame put together from the stages, as another backend does: the
 * thresholds of p->threshold, the residuals coded in segments of seg_rows
 * rows, sci_dpcm_write_header, the segments, sci_dpcm_finish_frame.  A
 * malloc'd frame of *len bytes, or NULL. */
static uint8_t *frame_from_residuals(const int32_t *res, unsigned w, unsigned h,
                                     unsigned depth, const sci_dpcm_params *p,
                                     unsigned seg_rows, const uint8_t *meta, size_t meta_len,
                                     size_t *len) {
    size_t count = (size_t)w * h, segs = (h + seg_rows - 1) / seg_rows;
    size_t cap = sci_dpcm_coded_bound(w, h, seg_rows);
    uint8_t *f = malloc(SCI_DPCM_HEADER_BYTES + meta_len + 4 * segs + cap +
                        SCI_DPCM_TRAILER_BYTES);
    uint32_t *seg_bytes = malloc(segs * sizeof *seg_bytes);
    int32_t lo, hi;
    size_t coded = 0;
    uint32_t esc = 0;
    int compressed = 0;
    /* the metadata section first: the segments go after it */
    size_t section = sci_dpcm_write_metadata(f, meta_len, meta, meta_len, &compressed);
    size_t pre = SCI_DPCM_HEADER_BYTES + section + 4 * segs;
    sci_dpcm_thresholds(res, count, depth, p->threshold, &lo, &hi);
    int st = sci_dpcm_code_residuals(test_pool(), res, w, h, depth, lo, hi, seg_rows, f + pre, cap,
                                     seg_bytes, &coded, &esc);
    if (st == SCI_DPCM_OK && (section || !meta_len) &&
        sci_dpcm_write_header(f, w, h, depth, p, lo, hi, esc, seg_rows, coded, section,
                              compressed, seg_bytes) == pre)
        *len = sci_dpcm_finish_frame(f, pre + coded);
    else {
        free(f);
        f = NULL;
    }
    free(seg_bytes);
    return f;
}

/* Encodes and decodes, checking every step.  Returns the frame's bytes (0
 * on failure, after reporting). */
static size_t roundtrip(const uint16_t *px, size_t stride, unsigned w, unsigned h,
                        unsigned depth, const sci_dpcm_params *p, const char *name) {
    char what[256];
    size_t cap = sci_dpcm_max_bytes(w, h, depth);
    uint8_t *buf = malloc(cap);
    size_t dstride = w + 3;
    size_t cap_s = (size_t)(h - 1) * dstride + w;
    uint16_t *dec = malloc((cap_s + 3) * sizeof *dec);
    for (size_t i = 0; i < cap_s + 3; i++)
        dec[i] = 0xA5A5;
    size_t n = sci_dpcm_encode(test_pool(), px, stride, w, h, depth, p, buf, cap);
    int ok = n > 0 && n <= cap;
    sci_dpcm_info info;
    int st = ok ? sci_dpcm_decode(test_pool(), buf, n, dec, dstride, cap_s, &info) : SCI_DPCM_E_ARG;
    ok = ok && st == SCI_DPCM_OK;
    ok = ok && info.width == w && info.height == h && info.depth == depth &&
         info.params.order_n == p->order_n && info.params.equations_m == p->equations_m &&
         info.params.threshold == p->threshold && info.params.scan == p->scan &&
         info.frame_bytes == n;
    /* the version, the encoder's segments (rows of the coded geometry),
     * the sections one after another */
    const int by_columns = p->scan == SCI_DPCM_SCAN_COLUMNS;
    const unsigned cw = by_columns ? h : w, ch = by_columns ? w : h;
    unsigned seg_rows = sci_dpcm_segment_rows(cw, ch), segs = (ch + seg_rows - 1) / seg_rows;
    ok = ok && info.coded_width == cw && info.coded_height == ch;
    ok = ok && info.version == SCI_DPCM_VERSION && buf[4] == SCI_DPCM_VERSION && info.seg_rows == seg_rows &&
         info.segments == segs && info.meta_bytes == 0 &&
         info.meta_offset == SCI_DPCM_HEADER_BYTES &&
         info.table_offset == SCI_DPCM_HEADER_BYTES &&
         info.coded_offset == SCI_DPCM_HEADER_BYTES + 4 * (size_t)segs &&
         n == info.coded_offset + info.coded_bytes + SCI_DPCM_TRAILER_BYTES;
    for (unsigned y = 0; ok && y < h; y++) {
        if (memcmp(dec + y * dstride, px + y * stride, w * sizeof *dec))
            ok = 0;
        if (y + 1 < h)
            for (unsigned x = w; x < dstride; x++)
                if (dec[y * dstride + x] != 0xA5A5)
                    ok = 0;
    }
    /* by columns: the transposed frame's own frame, but for the size, the
     * flag and the CRC */
    if (ok && by_columns) {
        uint16_t *t = malloc((size_t)w * h * sizeof *t);
        for (unsigned y = 0; y < h; y++)
            for (unsigned x = 0; x < w; x++)
                t[(size_t)x * h + y] = px[(size_t)y * stride + x];
        sci_dpcm_params q = *p;
        q.scan = SCI_DPCM_SCAN_ROWS;
        uint8_t *g = malloc(cap);
        size_t gn = sci_dpcm_encode(test_pool(), t, h, h, w, depth, &q, g, cap);
        ok = gn == n && !memcmp(g, buf, 8) && !memcmp(g + 16, buf + 16, 28) &&
             !memcmp(g + 48, buf + 48, n - 52) && buf[44] == 1 && g[44] == 0 &&
             !memcmp(g + 8, buf + 12, 4) && !memcmp(g + 12, buf + 8, 4);
        free(g);
        free(t);
    }
    /* the stages alone give the same samples */
    if (ok && !by_columns) {
        int32_t *res = malloc((size_t)w * h * sizeof *res);
        uint16_t *pred = malloc((size_t)w * h * sizeof *pred);
        uint16_t *back = malloc((size_t)w * h * sizeof *back);
        int s1 = sci_dpcm_predict_residuals(test_pool(), px, stride, w, h, depth, p->order_n,
                                            p->equations_m, res, pred);
        int s2 = sci_dpcm_reconstruct(test_pool(), res, w, h, depth, p->order_n, p->equations_m,
                                      back, w);
        for (unsigned y = 0; y < h; y++)
            for (unsigned x = 0; x < w; x++) {
                size_t i = (size_t)y * w + x;
                if (back[i] != px[y * stride + x] ||
                    res[i] != (int32_t)px[y * stride + x] - pred[i])
                    s1 = -1;
            }
        ok = s1 == 0 && s2 == 0;
        /* and, framed from the stages, the encoder's very bytes */
        size_t fl = 0;
        uint8_t *f = ok ? frame_from_residuals(res, w, h, depth, p, seg_rows, NULL, 0, &fl) : NULL;
        ok = ok && f && fl == n && !memcmp(f, buf, n);
        free(f);
        free(res);
        free(pred);
        free(back);
    }
    snprintf(what, sizeof what, "%s: %ux%u depth %u N=%u M=%u T=%u %s round trip (%s, %zu bytes)",
             name, w, h, depth, p->order_n, p->equations_m, p->threshold,
             by_columns ? "by columns" : "by rows", sci_dpcm_error_string(st), n);
    check(ok, what);
    roundtrip_bytes = n;
    free(buf);
    free(dec);
    return ok ? n : 0;
}

/* Left-neighbour DPCM (column 0 from above) through the same entropy
 * stage and frame overheads: the baseline for the predictor's gain. */
static size_t baseline_bytes(const uint16_t *px, unsigned w, unsigned h, unsigned depth,
                             unsigned threshold) {
    size_t count = (size_t)w * h;
    int32_t *res = malloc(count * sizeof *res);
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++) {
            int32_t p = x ? px[y * w + x - 1] : y ? px[(y - 1) * w] : 0;
            res[(size_t)y * w + x] = (int32_t)px[y * w + x] - p;
        }
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    p.threshold = threshold;
    size_t len = 0;
    uint8_t *f = frame_from_residuals(res, w, h, depth, &p, sci_dpcm_segment_rows(w, h), NULL,
                                      0, &len);
    free(res);
    if (!f)
        return 0;
    free(f);
    return len;
}

/* The entropy stage alone: segments of several heights, the buffer checks,
 * the escape count. */
static void test_entropy(void) {
    static const unsigned shapes[][2] = {{1, 1}, {1, 50}, {50, 1}, {13, 11}, {100, 64},
                                         {300, 37}};
    unsigned runs = 0, bad = 0;
    for (unsigned s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        unsigned w = shapes[s][0], h = shapes[s][1];
        size_t count = (size_t)w * h;
        int32_t *res = malloc(count * sizeof *res), *back = malloc(count * sizeof *back);
        for (unsigned depth = 8; depth <= 16; depth += 8) {
            random_residuals(res, count, depth, 12);
            int32_t lo, hi;
            sci_dpcm_thresholds(res, count, depth, s & 1 ? 0 : 3, &lo, &hi);
            uint32_t want_esc = 0;
            for (size_t i = 0; i < count; i++)
                want_esc += res[i] < lo || res[i] > hi;
            unsigned rows[] = {1, 2, 3, 7, h, sci_dpcm_segment_rows(w, h), h > 1 ? h - 1 : 1};
            for (unsigned r = 0; r < sizeof rows / sizeof *rows; r++) {
                unsigned R = rows[r], segs = (h + R - 1) / R;
                if (R > h)
                    continue;
                size_t bound = sci_dpcm_coded_bound(w, h, R);
                uint8_t *out = malloc(bound), *out2 = malloc(bound + 1);
                uint32_t *sb = malloc(segs * sizeof *sb), *sb2 = malloc(segs * sizeof *sb2);
                size_t nb = 0, nb2 = 0;
                uint32_t esc = 0, esc2 = 0;
                int ok = sci_dpcm_code_residuals(test_pool(), res, w, h, depth, lo, hi, R, out,
                                                 bound, sb, &nb, &esc) == SCI_DPCM_OK &&
                         esc == want_esc && nb <= bound && bound == segs * 6 + 5 * count;
                size_t sum = 0;
                for (unsigned i = 0; ok && i < segs; i++) {
                    unsigned n_rows = h - i * R < R ? h - i * R : R;
                    if (sb[i] < SCI_RC_MIN_BYTES ||
                        sb[i] > sci_dpcm_segment_bound((size_t)w * n_rows))
                        ok = 0;
                    sum += sb[i];
                }
                ok = ok && sum == nb;
                memset(back, 0x5A, count * sizeof *back);
                ok = ok && sci_dpcm_decode_residuals(test_pool(), out, sb, w, h, depth, lo, hi, R,
                                                     esc, back) == SCI_DPCM_OK &&
                     !memcmp(back, res, count * sizeof *res);
                ok = ok && sci_dpcm_decode_residuals(test_pool(), out, sb, w, h, depth, lo, hi, R,
                                                     esc + 1, back) == SCI_DPCM_E_ESCAPES;
                if (esc)
                    ok = ok && sci_dpcm_decode_residuals(test_pool(), out, sb, w, h, depth, lo, hi,
                                                         R, esc - 1, back) == SCI_DPCM_E_ESCAPES;
                /* exactly enough room (the one-by-one path): the same bytes;
                 * a byte less: E_BUFFER */
                if (ok) {
                    out2[nb] = 0xEE;
                    ok = sci_dpcm_code_residuals(test_pool(), res, w, h, depth, lo, hi, R, out2, nb,
                                                 sb2, &nb2, &esc2) == SCI_DPCM_OK &&
                         nb2 == nb && esc2 == esc && !memcmp(out2, out, nb) &&
                         !memcmp(sb2, sb, segs * sizeof *sb) && out2[nb] == 0xEE;
                    ok = ok && sci_dpcm_code_residuals(test_pool(), res, w, h, depth, lo, hi, R,
                                                       out2, nb - 1, sb2, &nb2,
                                                       &esc2) == SCI_DPCM_E_BUFFER;
                    ok = ok && sci_dpcm_code_residuals(test_pool(), res, w, h, depth, lo, hi, R,
                                                       out2, 0, sb2, &nb2,
                                                       &esc2) == SCI_DPCM_E_BUFFER;
                }
                runs++;
                if (!ok) {
                    bad++;
                    printf("  entropy stage failed: %ux%u depth %u rows %u\n", w, h, depth, R);
                }
                free(out);
                free(out2);
                free(sb);
                free(sb2);
            }
        }
        free(res);
        free(back);
    }
    char what[160];
    snprintf(what, sizeof what,
             "entropy stage: %u frames x segment heights (1, h, ...) round trip; exact "
             "buffers give the same bytes, a byte less E_BUFFER", runs);
    check(bad == 0, what);

    /* arguments */
    int32_t r4[4] = {0, 1, -1, 2};
    uint8_t o[64];
    uint32_t sb[4];
    size_t nb;
    uint32_t esc;
    check(sci_dpcm_code_residuals(test_pool(), r4, 2, 2, 8, -1, 2, 0, o, sizeof o, sb, &nb, &esc) ==
                  SCI_DPCM_E_ARG &&
              sci_dpcm_code_residuals(test_pool(), r4, 2, 2, 8, -1, 2, 1, NULL, sizeof o, sb, &nb,
                                      &esc) ==
                  SCI_DPCM_E_ARG &&
              sci_dpcm_code_residuals(test_pool(), r4, 2, 2, 1, -1, 1, 1, o, sizeof o, sb, &nb,
                                      &esc) ==
                  SCI_DPCM_E_ARG && /* 2 above maxval 1 */
              sci_dpcm_code_residuals(test_pool(), r4, 2, 2, 8, 3, 1, 1, o, sizeof o, sb, &nb,
                                      &esc) ==
                  SCI_DPCM_E_ARG && /* T+ < T- - 1 */
              sci_dpcm_decode_residuals(test_pool(), o, sb, 2, 2, 8, -1, 2, 0, 0, r4) ==
                  SCI_DPCM_E_ARG,
          "entropy stage: zero segment rows, no buffer, residuals and thresholds out of range "
          "refused");
    check(sci_dpcm_segment_rows(1024, 1024) == 4 && sci_dpcm_segment_rows(288, 132) == 15 &&
              sci_dpcm_segment_rows(5000, 3) == 1 && sci_dpcm_segment_rows(1, 100) == 100 &&
              sci_dpcm_segment_rows(1, 5000) == 4096 && sci_dpcm_segment_rows(3, 1) == 1 &&
              sci_dpcm_segment_bound(0) == 6 && sci_dpcm_segment_bound(10) == 56 &&
              sci_dpcm_coded_bound(10, 10, 3) == 4 * 6 + 500 && sci_dpcm_coded_bound(10, 10, 0) == 0,
          "entropy stage: segment rows ceil(4096 / w) at most h, the bounds");
}

static unsigned test_real(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/spectral16/gmos-n-multi.fits", dir);
    fits_frame fr[8];
    unsigned n = fits_read_u16(path, fr, 8);
    if (n == 0) {
        printf("SKIP real frames: cannot read %s\n", path);
        return 0;
    }
    check(n == 3, "FITS: 3 image extensions");
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    printf("real frames (bits per pixel; raw 16):\n");
    printf("  %-5s %-9s %10s %10s %10s %10s %10s %10s %10s\n", "ext", "size", "N11M7T13",
           "N11M7T0", "N4M4T13", "N16M8T13", "left T13", "cols T13", "cols T0");
    double sum_ours = 0, sum_base = 0;
    size_t pixels = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned w = fr[i].w, h = fr[i].h;
        double px = (double)w * h;
        size_t a = roundtrip(fr[i].px, w, w, h, 16, &p, "real");
        sci_dpcm_params q = p;
        q.threshold = 0;
        size_t b = roundtrip(fr[i].px, w, w, h, 16, &q, "real");
        q = p;
        q.order_n = 4, q.equations_m = 4;
        size_t c = roundtrip(fr[i].px, w, w, h, 16, &q, "real");
        q = p;
        q.order_n = 16, q.equations_m = 8;
        size_t d = roundtrip(fr[i].px, w, w, h, 16, &q, "real");
        size_t base = baseline_bytes(fr[i].px, w, h, 16, 13);
        q = p;
        q.scan = SCI_DPCM_SCAN_COLUMNS;
        size_t e = roundtrip(fr[i].px, w, w, h, 16, &q, "real");
        q.threshold = 0;
        size_t e0 = roundtrip(fr[i].px, w, w, h, 16, &q, "real");
        printf("  %-5u %3ux%-5u %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", i + 1, w,
               h, 8.0 * a / px, 8.0 * b / px, 8.0 * c / px, 8.0 * d / px, 8.0 * base / px,
               8.0 * e / px, 8.0 * e0 / px);
        sum_ours += a;
        sum_base += base;
        pixels += (size_t)w * h;
        /* depth 8: the top byte of each sample */
        uint16_t *hi = malloc((size_t)w * h * sizeof *hi);
        for (size_t k = 0; k < (size_t)w * h; k++)
            hi[k] = fr[i].px[k] >> 8;
        roundtrip(hi, w, w, h, 8, &p, "real top byte");
        free(hi);
    }
    printf("  all   %-9s %10.3f %43s %10.3f  (gain %.3f bpp)\n", "", 8.0 * sum_ours / pixels,
           "", 8.0 * sum_base / pixels, 8.0 * (sum_base - sum_ours) / pixels);
    check(sum_ours < sum_base, "real frames: the LS predictor beats left-neighbour DPCM");
    for (unsigned i = 0; i < n; i++)
        free(fr[i].px);
    return n;
}

typedef enum { CONSTANT, NOISE, RAMP_X, RAMP_Y, RAMP_XY, SMOOTH, OUTLIERS, SATURATED } pattern;

static void fill(uint16_t *px, unsigned w, unsigned h, size_t stride, unsigned depth,
                 pattern pat) {
    uint32_t maxv = (1u << depth) - 1;
    uint32_t c = (uint32_t)(rng() % (maxv + 1));
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++) {
            uint32_t v = 0;
            switch (pat) {
            case CONSTANT: v = c; break;
            case NOISE: v = (uint32_t)(rng() % (maxv + 1)); break;
            case RAMP_X: v = (c + 3 * x) % (maxv + 1); break;
            case RAMP_Y: v = (c + 5 * y) % (maxv + 1); break;
            case RAMP_XY: v = (c + x + 2 * y) % (maxv + 1); break;
            case SMOOTH: {
                double t = 0.5 + 0.4 * ((x * 7 + y * 3) % 97) / 97.0;
                v = (uint32_t)(t * maxv) + (uint32_t)(rng() % 3);
                if (v > maxv)
                    v = maxv;
                break;
            }
            case OUTLIERS:
                v = (uint32_t)(maxv / 16) + (uint32_t)(rng() % 4);
                if (rng() % 50 == 0)
                    v = maxv - (uint32_t)(rng() % 3);
                if (v > maxv)
                    v = maxv;
                break;
            case SATURATED: v = (rng() & 1) ? maxv : 0; break;
            }
            px[(size_t)y * stride + x] = (uint16_t)v;
        }
}

static void test_synthetic(void) {
    static const unsigned dims[][2] = {{1, 1},  {1, 7},   {7, 1},  {2, 2},   {3, 3},
                                       {1, 40}, {40, 1},  {2, 50}, {5, 40},  {17, 20},
                                       {18, 3}, {30, 30}, {64, 9}, {100, 64}};
    static const unsigned depths[] = {16, 8, 1, 12};
    static const char *names[] = {"constant", "noise", "ramp x", "ramp y",
                                  "ramp xy", "smooth", "outliers", "saturated"};
    static const sci_dpcm_params params[] = {
        {11, 7, 13, 0}, {1, 1, 13, 0}, {1, 7, 0, 0}, {11, 1, 0, 0}, {11, 7, 1, 0},
        {11, 7, 1000000, 0}, {16, 8, 13, 0}, {32, 64, 2, 0}, {3, 2, 0, 0},
        {11, 7, 13, SCI_DPCM_SCAN_COLUMNS}, {4, 9, 0, SCI_DPCM_SCAN_COLUMNS}};
    unsigned before = check_failed, runs = 0;
    for (unsigned d = 0; d < sizeof dims / sizeof *dims; d++)
        for (unsigned b = 0; b < sizeof depths / sizeof *depths; b++)
            for (unsigned pat = 0; pat <= SATURATED; pat++) {
                unsigned w = dims[d][0], h = dims[d][1];
                size_t stride = w + (unsigned)(rng() % 3);
                uint16_t *px = malloc(((size_t)h * stride + 1) * sizeof *px);
                fill(px, w, h, stride, depths[b], (pattern)pat);
                for (unsigned q = 0; q < sizeof params / sizeof *params; q++) {
                    /* frames above 1000 pixels: every parameter set at
                     * depth 16, the defaults and N=32 (on two patterns)
                     * elsewhere, to keep the test short */
                    if (w * h > 1000 && depths[b] != 16 && q != 0 &&
                        !(q == 7 && (pat == NOISE || pat == SMOOTH)))
                        continue;
                    roundtrip(px, stride, w, h, depths[b], &params[q], names[pat]);
                    runs++;
                }
                free(px);
            }
    printf("synthetic: %u size x depth x pattern x parameter round trips, %u failed\n", runs,
           check_failed - before);

    /* compression sanity: a constant frame costs almost nothing, a ramp too */
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    uint16_t *px = malloc(256 * 256 * sizeof *px);
    fill(px, 256, 256, 256, 16, CONSTANT);
    size_t n = roundtrip(px, 256, 256, 256, 16, &p, "constant 256");
    /* 16 segments of 16 rows: the header, the table, the CRC and 16 empty
     * segments take 48 + 16 (4 + 6) = 208 bytes; the zeros cost almost
     * nothing on top */
    check(n > 0 && n < 48 + 16 * (4 + 6 + 4),
          "constant 256x256 codes to < 4 bytes a segment above the framing");
    fill(px, 256, 256, 256, 16, RAMP_XY);
    n = roundtrip(px, 256, 256, 256, 16, &p, "ramp 256");
    check(n > 0 && n < 2000, "ramp 256x256 codes to < 2000 bytes");
    fill(px, 256, 256, 256, 16, NOISE);
    n = roundtrip(px, 256, 256, 256, 16, &p, "noise 256");
    check(n > 0 && 8.0 * n / 65536 < 18.2, "16-bit noise stays below 18.2 bits per pixel");
    free(px);

    /* samples above the depth are refused */
    uint16_t bad[4] = {1, 2, 256, 3};
    uint8_t out[256];
    check(sci_dpcm_encode(test_pool(), bad, 2, 2, 2, 8, &p, out, sizeof out) == 0,
          "encode refuses a sample above 2^depth - 1");
    check(sci_dpcm_encode(test_pool(), bad, 2, 2, 2, 9, &p, out, 10) == 0,
          "encode refuses a tiny buffer");
    sci_dpcm_params z = {0, 7, 13, SCI_DPCM_SCAN_ROWS};
    check(sci_dpcm_check(4, 4, 16, &z) != NULL && sci_dpcm_check(0, 4, 16, &p) != NULL &&
              sci_dpcm_check(65536, 1, 16, &p) != NULL && sci_dpcm_check(4, 4, 17, &p) != NULL &&
              sci_dpcm_check(16384, 16385, 16, &p) != NULL &&
              sci_dpcm_check(65535, 4096, 16, &p) == NULL,
          "parameter and size checks");

    /* the same bytes whatever the thread count, frames decoded on any
     * number of threads: rows wide enough for the per-row regions, and
     * enough samples for the segments' */
    for (int big = 0; big < 2; big++) {
        unsigned W = big ? 640 : 300, H = big ? 130 : 40;
        uint16_t *img = malloc((size_t)W * H * sizeof *img);
        uint16_t *back = malloc((size_t)W * H * sizeof *back);
        fill(img, W, H, W, 16, SMOOTH);
        size_t cap = sci_dpcm_max_bytes(W, H, 16);
        uint8_t *a = malloc(cap), *b2 = malloc(cap);
        size_t na = sci_dpcm_encode(NULL, img, W, W, H, 16, &p, a, cap);
        int same = na > 0;
        for (unsigned t = 2; t <= 7; t += 5) {
            sci_pool *pool = sci_pool_new(t);
            size_t nb = sci_dpcm_encode(pool, img, W, W, H, 16, &p, b2, cap);
            same = same && nb == na && !memcmp(a, b2, na) &&
                   sci_dpcm_decode(pool, a, na, back, W, (size_t)W * H, NULL) == 0 &&
                   !memcmp(back, img, (size_t)W * H * sizeof *img);
            sci_pool_free(pool);
        }
        check(same, big ? "encoding independent of the thread count (segments in parallel)"
                        : "encoding independent of the thread count");
        free(img);
        free(back);
        free(a);
        free(b2);
    }
}

/* ---------------------------------------------------------------------- */

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

static uint32_t get32(const uint8_t *p) {
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void fix_crc(uint8_t *s, size_t n) {
    put32(s + n - 4, sci_crc32(0, s, n - 4));
}

/* Decoding the stream must fail with `want` (any error if want is 1). */
static void expect(const uint8_t *s, size_t n, int want, const char *what) {
    static uint16_t out[1 << 16];
    int st = sci_dpcm_decode(test_pool(), s, n, out, 64, sizeof out / sizeof *out, NULL);
    char msg[200];
    snprintf(msg, sizeof msg, "%s: %s", what, sci_dpcm_error_string(st));
    check(want == 1 ? st < 0 : st == want, msg);
}

static void test_corruption(void) {
    /* a small frame with escapes and coded residuals, in four segments of
     * 6, 6, 6 and 2 rows (framed from the stages: encoders would pick one
     * segment for so small a frame) */
    enum { W = 24, H = 20, R = 6, S = 4 };
    uint16_t px[W * H];
    fill(px, W, H, W, 16, OUTLIERS);
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    p.threshold = 3;
    uint8_t s[8192], t[8192];
    int32_t res[W * H];
    size_t n = 0;
    uint8_t *f = NULL;
    if (sci_dpcm_predict_residuals(test_pool(), px, W, W, H, 16, p.order_n, p.equations_m, res,
                                   NULL) == 0)
        f = frame_from_residuals(res, W, H, 16, &p, R, NULL, 0, &n);
    check(f && n + 1 <= sizeof s, "corruption: a frame of four segments framed from the stages");
    if (!f || n + 1 > sizeof s) {
        free(f);
        return;
    }
    memcpy(s, f, n);
    free(f);
    sci_dpcm_info info;
    static uint16_t out[W * H];
    check(sci_dpcm_peek(s, n, &info) == SCI_DPCM_OK && info.escapes > 0 && info.version == SCI_DPCM_VERSION &&
              info.seg_rows == R && info.segments == S && info.meta_bytes == 0 &&
              info.table_offset == SCI_DPCM_HEADER_BYTES &&
              info.coded_offset == SCI_DPCM_HEADER_BYTES + 4 * S && info.frame_bytes == n &&
              get32(s + 28) == info.escapes && get32(s + 32) == R &&
              get32(s + 36) == info.coded_bytes && get32(s + 40) == 0,
          "corruption: the test frame's header (version, escapes, R, C, L = 0)");
    check(sci_dpcm_decode(test_pool(), s, n, out, W, W * H, NULL) == SCI_DPCM_OK &&
              !memcmp(out, px, sizeof px),
          "corruption: a frame of segments other than the encoder's decodes");
    {
        sci_dpcm_info ci;
        uint32_t sb[S];
        int32_t back[W * H];
        int ok = sci_dpcm_check_frame(s, n, &ci) == SCI_DPCM_OK && ci.segments == S &&
                 sci_dpcm_segment_table(s, &ci, sb) == SCI_DPCM_OK;
        uint64_t sum = 0;
        for (unsigned i = 0; ok && i < S; i++) {
            ok = sb[i] == get32(s + SCI_DPCM_HEADER_BYTES + 4 * i);
            sum += sb[i];
        }
        ok = ok && sum == ci.coded_bytes &&
             sci_dpcm_decode_residuals(test_pool(), s + ci.coded_offset, sb, W, H, 16, ci.t_lo,
                                       ci.t_hi, R, ci.escapes, back) == SCI_DPCM_OK &&
             !memcmp(back, res, sizeof res);
        check(ok, "corruption: sci_dpcm_check_frame and sci_dpcm_segment_table give the "
                  "segments");
        ok = 1;
        for (size_t len = 0; len < n; len++)
            if (sci_dpcm_check_frame(s, len, &ci) >= 0)
                ok = 0;
        check(ok, "corruption: sci_dpcm_check_frame refuses every truncation");
    }
    unsigned flips = 0, flip_bad = 0, trunc_bad = 0;
    for (size_t i = 0; i < n; i++)
        for (unsigned m = 0; m < 9; m++) {
            memcpy(t, s, n);
            t[i] ^= m < 8 ? (uint8_t)(1u << m) : 0xFF;
            flips++;
            if (sci_dpcm_decode(test_pool(), t, n, out, W, W * H, NULL) >= 0)
                flip_bad++;
        }
    char what[160];
    snprintf(what, sizeof what,
             "corruption: all %u single-bit and byte flips of a %zu-byte frame rejected", flips, n);
    check(flip_bad == 0, what);
    for (size_t len = 0; len < n; len++) {
        memcpy(t, s, len);
        if (sci_dpcm_decode(test_pool(), t, len, out, W, W * H, NULL) >= 0)
            trunc_bad++;
    }
    snprintf(what, sizeof what, "corruption: all %zu truncations rejected", n);
    check(trunc_bad == 0, what);
    memcpy(t, s, n);
    t[n] = 0;
    expect(t, n + 1, SCI_DPCM_E_TRAILING, "a byte appended");
    check(sci_dpcm_decode(test_pool(), s, n, out, W, W * H - 1, NULL) == SCI_DPCM_E_BUFFER,
          "corruption: too small an output buffer refused");
    check(sci_dpcm_decode(test_pool(), s, n, out, W, W * H, NULL) == SCI_DPCM_OK,
          "corruption: original decodes");

    /* each header check, with a valid CRC so that the check itself fires */
    struct { size_t off; uint32_t val; int bytes, want; const char *what; } cases[] = {
        {0, 'X', 1, SCI_DPCM_E_MAGIC, "bad magic"},
        {4, 0, 1, SCI_DPCM_E_VERSION, "version 0"},
        {4, 1, 1, SCI_DPCM_E_VERSION, "version 1"},
        {4, 2, 1, SCI_DPCM_E_VERSION, "version 2"},
        {4, 3, 1, SCI_DPCM_E_VERSION, "version 3"},
        {4, 4, 1, SCI_DPCM_E_VERSION, "version 4"},
        {4, 7, 1, SCI_DPCM_E_VERSION, "version 7"},
        {4, 0xFF, 1, SCI_DPCM_E_VERSION, "version 255"},
        {5, 0, 1, SCI_DPCM_E_DEPTH, "depth 0"},
        {5, 17, 1, SCI_DPCM_E_DEPTH, "depth 17"},
        {6, 0, 1, SCI_DPCM_E_PARAMS, "N 0"},
        {6, 33, 1, SCI_DPCM_E_PARAMS, "N 33"},
        {7, 0, 1, SCI_DPCM_E_PARAMS, "M 0"},
        {7, 65, 1, SCI_DPCM_E_PARAMS, "M 65"},
        {8, 0, 4, SCI_DPCM_E_DIMENSIONS, "width 0"},
        {12, 0, 4, SCI_DPCM_E_DIMENSIONS, "height 0"},
        {12, 70000, 4, SCI_DPCM_E_DIMENSIONS, "height 70000"},
        {8, 40000, 4, SCI_DPCM_E_DIMENSIONS, "width x height above 2^28"}, /* and height */
        {16, (1u << 28) + 1, 4, SCI_DPCM_E_PARAMS, "T above 2^28"},
        {16, 0, 4, SCI_DPCM_E_THRESHOLDS, "T 0 with escapes"},
        {20, (uint32_t)-70000, 4, SCI_DPCM_E_THRESHOLDS, "T- below -(2^16-1)"},
        {24, 70000, 4, SCI_DPCM_E_THRESHOLDS, "T+ above 2^16-1"},
        {24, (uint32_t)-70000, 4, SCI_DPCM_E_THRESHOLDS, "T+ below T- - 1"},
        {28, W * H + 1, 4, SCI_DPCM_E_LENGTHS, "escape count above the pixels"},
        {28, 0xFFFFFFFFu, 4, SCI_DPCM_E_LENGTHS, "escape count 2^32-1"},
        {32, 0, 4, SCI_DPCM_E_LENGTHS, "R 0"},
        {32, H + 1, 4, SCI_DPCM_E_LENGTHS, "R above the height"},
        {32, 0xFFFFFFFFu, 4, SCI_DPCM_E_LENGTHS, "R 2^32-1"},
        {36, 6 * S - 1, 4, SCI_DPCM_E_LENGTHS, "segment bytes below 6 a segment"},
        {36, 6 * S + 5 * W * H + 1, 4, SCI_DPCM_E_LENGTHS, "segment bytes above the bound"},
        {36, 0xFFFFFFFFu, 4, SCI_DPCM_E_LENGTHS, "segment bytes 2^32-1"},
        {40, SCI_DPCM_MAX_METADATA + 1, 4, SCI_DPCM_E_LENGTHS, "metadata above 2^24"},
        {40, 1, 4, SCI_DPCM_E_TRUNCATED, "metadata length 1 (the frame is short)"},
        {44, 2, 4, SCI_DPCM_E_LENGTHS, "flag bit 1 (compressed metadata) without metadata"},
        {44, 4, 4, SCI_DPCM_E_RESERVED, "flag bit 2"},
        {44, 0x80000001u, 4, SCI_DPCM_E_RESERVED, "flag bit 31 with scan by columns"},
        {36, 0, 0, SCI_DPCM_E_TRUNCATED, "segment bytes one more (the frame is short)"},
        {36, 0, -1, SCI_DPCM_E_TRAILING, "segment bytes one fewer (bytes left over)"},
        {32, R + 1, 4, 1, "R of 7 (other segments)"},
    };
    for (unsigned c = 0; c < sizeof cases / sizeof *cases; c++) {
        memcpy(t, s, n);
        if (cases[c].bytes == 1)
            t[cases[c].off] = (uint8_t)cases[c].val;
        else if (cases[c].bytes == 4)
            put32(t + cases[c].off, cases[c].val);
        else /* 0: one more, -1: one fewer */
            put32(t + cases[c].off, get32(t + cases[c].off) + (cases[c].bytes ? -1u : 1u));
        if (cases[c].off == 8 && cases[c].val == 40000) /* 40000 x 20 is fine: 40000 x 40000 */
            put32(t + 12, 40000);
        fix_crc(t, n);
        expect(t, n, cases[c].want, cases[c].what);
        if (cases[c].want != 1) {
            sci_dpcm_info ci;
            int st = sci_dpcm_check_frame(t, n, &ci);
            snprintf(what, sizeof what, "check_frame: %s: %s", cases[c].what,
                     sci_dpcm_error_string(st));
            check(st == cases[c].want, what);
        }
    }
    /* the version byte before everything after the magic: an old frame of
     * any length is E_VERSION, also too short for the new header */
    memcpy(t, s, n);
    t[4] = 2;
    expect(t, SCI_DPCM_HEADER_BYTES, SCI_DPCM_E_VERSION, "version 2, a header's bytes");
    expect(t, 43, SCI_DPCM_E_TRUNCATED, "43 bytes");
    expect(t, 3, SCI_DPCM_E_TRUNCATED, "3 bytes");
    memcpy(t, s, n);
    t[n - 1] ^= 1;
    expect(t, n, SCI_DPCM_E_CRC, "CRC flipped");
    memcpy(t, s, n);
    t[SCI_DPCM_HEADER_BYTES] ^= 1;
    expect(t, n, SCI_DPCM_E_CRC, "a segment count changed, CRC not fixed");
    memcpy(t, s, n);
    t[n - 5] ^= 0x80;
    expect(t, n, SCI_DPCM_E_CRC, "the last segment byte changed, CRC not fixed");

    /* the segment table, the CRC recomputed */
    {
        size_t tab = info.table_offset;
        uint32_t c0 = get32(s + tab), c1 = get32(s + tab + 4);
        memcpy(t, s, n);
        put32(t + tab, c0 + 1);
        fix_crc(t, n);
        expect(t, n, SCI_DPCM_E_LENGTHS, "a segment count one more (their sum off)");
        memcpy(t, s, n);
        put32(t + tab + 8, get32(s + tab + 8) - 1);
        fix_crc(t, n);
        expect(t, n, SCI_DPCM_E_LENGTHS, "a segment count one fewer (their sum off)");
        memcpy(t, s, n);
        put32(t + tab, 5);
        put32(t + tab + 4, c1 + c0 - 5);
        fix_crc(t, n);
        expect(t, n, SCI_DPCM_E_LENGTHS, "a segment count of 5 (the sum kept)");
        memcpy(t, s, n);
        put32(t + tab + 12, 0);
        put32(t + tab + 8, get32(s + tab + 8) + get32(s + tab + 12));
        fix_crc(t, n);
        expect(t, n, SCI_DPCM_E_LENGTHS, "a segment count of 0 (the sum kept)");
        memcpy(t, s, n);
        put32(t + tab, 0xFFFFFFFFu);
        fix_crc(t, n);
        expect(t, n, SCI_DPCM_E_LENGTHS, "a segment count of 2^32-1");
        /* a byte moved from one segment to the next: each reads exactly
         * its own bytes, so the first ends early */
        memcpy(t, s, n);
        put32(t + tab, c0 + 1);
        put32(t + tab + 4, c1 - 1);
        fix_crc(t, n);
        expect(t, n, SCI_DPCM_E_ENTROPY, "a byte moved between segments (the sum kept)");
        memcpy(t, s, n);
        put32(t + tab, c0 - 1);
        put32(t + tab + 4, c1 + 1);
        fix_crc(t, n);
        expect(t, n, SCI_DPCM_E_ENTROPY, "a byte moved the other way");
        /* segments swapped, table and all: another frame's residuals, or an
         * error, never a crash */
        memcpy(t, s, n);
        put32(t + tab, c1);
        put32(t + tab + 4, c0);
        memcpy(t + info.coded_offset, s + info.coded_offset + c0, c1);
        memcpy(t + info.coded_offset + c1, s + info.coded_offset, c0);
        fix_crc(t, n);
        int st = sci_dpcm_decode(test_pool(), t, n, out, W, W * H, NULL);
        check(st != SCI_DPCM_OK || memcmp(out, px, sizeof px),
              "corruption: the first two segments swapped do not decode to the frame");
    }
    /* the escape count one off: the segments escape another number */
    memcpy(t, s, n);
    put32(t + 28, info.escapes - 1);
    fix_crc(t, n);
    expect(t, n, SCI_DPCM_E_ESCAPES, "escape count one short");
    memcpy(t, s, n);
    put32(t + 28, info.escapes + 1);
    fix_crc(t, n);
    expect(t, n, SCI_DPCM_E_ESCAPES, "escape count one more");
    /* thresholds that the coded residuals break */
    memcpy(t, s, n);
    put32(t + 20, (uint32_t)(info.t_lo + 1));
    fix_crc(t, n);
    expect(t, n, 1, "T- one higher");
    /* coded data changed under a valid CRC: an error or, at worst, other
     * samples, never a crash (the fuzz test goes further) */
    unsigned decoded = 0, errors = 0;
    for (size_t i = info.coded_offset; i < n - 4; i++) {
        memcpy(t, s, n);
        t[i] ^= 0x10;
        fix_crc(t, n);
        if (sci_dpcm_decode(test_pool(), t, n, out, W, W * H, NULL) < 0)
            errors++;
        else
            decoded++;
    }
    printf("segment byte changes under a valid CRC: %u errors, %u decoded to other samples\n",
           errors, decoded);
    check(errors > decoded, "corruption: most segment byte changes under a valid CRC are "
                            "errors");
}

/* ---------------------------------------------------------------------- */
/* The metadata section (L bytes after the header; L = 0: none), stored as
 * given or zstd-compressed (flag bit 1, version 6) */

/* len bytes of metadata: incompressible noise (kind 0), or FITS-like
 * cards (kind 1), which compress. */
static void make_metadata(uint8_t *m, size_t len, int kind, unsigned salt) {
    uint32_t r = 2463534242u + salt;
    for (size_t k = 0; k < len; k++) {
        r ^= r << 13, r ^= r >> 17, r ^= r << 5;
        if (kind == 0) {
            m[k] = (uint8_t)(r >> 24);
        } else {
            /* "KEYnnnn = value / comment" cards padded with blanks */
            size_t card = k / 80, col = k % 80;
            char text[81];
            int n = snprintf(text, sizeof text, "KEY%04zu  = %10u / card %zu of the header",
                             card % 10000, (unsigned)(card * 2654435761u % 100000), card);
            m[k] = (uint8_t)(col < (size_t)n ? text[col] : ' ');
        }
    }
}

/* The metadata of frame f (n bytes) through sci_dpcm_metadata, into a
 * fresh buffer; *len its length, NULL (and *st the code) on failure. */
static uint8_t *frame_metadata(const uint8_t *f, size_t n, size_t *len, int *st) {
    *st = sci_dpcm_metadata(f, n, NULL, 0, len);
    if (*st != SCI_DPCM_OK)
        return NULL;
    uint8_t *m = malloc(*len + 1);
    size_t again = 0;
    *st = sci_dpcm_metadata(f, n, m, *len, &again);
    if (*st != SCI_DPCM_OK || again != *len) {
        free(m);
        return NULL;
    }
    return m;
}

/* A frame of the w x h samples px (default parameters) around the
 * metadata section `sec` (sec_len bytes) as given, flagged compressed or
 * not: for sections that the encoder would not write. */
static uint8_t *frame_with_section(const uint16_t *px, unsigned w, unsigned h,
                                   const uint8_t *sec, size_t sec_len, int compressed,
                                   size_t *len) {
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    size_t count = (size_t)w * h;
    unsigned seg_rows = sci_dpcm_segment_rows(w, h), segs = (h + seg_rows - 1) / seg_rows;
    size_t pre = SCI_DPCM_HEADER_BYTES + sec_len + 4 * (size_t)segs;
    size_t cap = sci_dpcm_coded_bound(w, h, seg_rows);
    uint8_t *f = malloc(pre + cap + SCI_DPCM_TRAILER_BYTES);
    int32_t *res = malloc(count * sizeof *res), lo, hi;
    uint32_t *sb = malloc(segs * sizeof *sb), esc;
    size_t coded;
    *len = 0;
    if (sci_dpcm_predict_residuals(test_pool(), px, w, w, h, 16, p.order_n, p.equations_m, res, NULL) == 0) {
        sci_dpcm_thresholds(res, count, 16, p.threshold, &lo, &hi);
        if (sci_dpcm_code_residuals(test_pool(), res, w, h, 16, lo, hi, seg_rows, f + pre, cap, sb, &coded,
                                    &esc) == 0) {
            memcpy(f + SCI_DPCM_HEADER_BYTES, sec, sec_len);
            sci_dpcm_write_header(f, w, h, 16, &p, lo, hi, esc, seg_rows, coded, sec_len,
                                  compressed, sb);
            *len = sci_dpcm_finish_frame(f, pre + coded);
        }
    }
    free(res);
    free(sb);
    return f;
}

/* A compressed section: the raw length u, then the zstd frame(s) z. */
static uint8_t *section_of(uint32_t u, const uint8_t *z, size_t zlen, size_t *len) {
    uint8_t *s = malloc(4 + zlen);
    put32(s, u);
    memcpy(s + 4, z, zlen);
    *len = 4 + zlen;
    return s;
}

/* Checks that the frame's samples decode while its metadata gives `want`
 * (and never more than the length the section declares). */
static void expect_metadata(const uint8_t *f, size_t n, const uint16_t *px, unsigned w,
                            unsigned h, int want, const char *what) {
    uint16_t *out = malloc((size_t)w * h * sizeof *out);
    size_t ml = 0;
    int st = sci_dpcm_metadata(f, n, NULL, 0, &ml);
    char msg[200];
    snprintf(msg, sizeof msg, "compressed metadata: %s gives %s (%s)", what,
             sci_dpcm_error_string(want), sci_dpcm_error_string(st));
    check(st == want && sci_dpcm_decode(test_pool(), f, n, out, w, (size_t)w * h, NULL) == SCI_DPCM_OK &&
              !memcmp(out, px, (size_t)w * h * sizeof *out),
          msg);
    free(out);
}

/* Damage to a compressed metadata section (f, n bytes: `meta`, len bytes,
 * compressed) under a valid CRC, and sections no encoder writes: refused
 * with SCI_DPCM_E_METADATA (the samples still decode), and nothing larger
 * than SCI_DPCM_MAX_METADATA is ever decompressed. */
static void test_metadata_compressed(const uint8_t *f, size_t n, const uint8_t *meta,
                                     size_t len, unsigned w, unsigned h) {
    uint16_t *px = malloc((size_t)w * h * sizeof *px);
    check(sci_dpcm_decode(test_pool(), f, n, px, w, (size_t)w * h, NULL) == SCI_DPCM_OK,
          "compressed metadata: the frame decodes");
    size_t L = get32(f + 40), fl, sl;
    const uint8_t *z = f + SCI_DPCM_HEADER_BYTES + 4;
    size_t zlen = L - 4;
    uint8_t *t = malloc(n + 64), *g, *sec;
    check(get32(f + SCI_DPCM_HEADER_BYTES) == len &&
              ZSTD_getFrameContentSize(z, zlen) == len,
          "compressed metadata: the raw length, then one zstd frame of that size");

    /* the raw length changed, the CRC fixed */
    static const uint32_t us[] = {0, 1, 2879, 2881, SCI_DPCM_MAX_METADATA,
                                  SCI_DPCM_MAX_METADATA + 1, 0xFFFFFFFFu};
    for (unsigned i = 0; i < sizeof us / sizeof *us; i++) {
        char what[80];
        memcpy(t, f, n);
        put32(t + SCI_DPCM_HEADER_BYTES, us[i] == 2879 ? (uint32_t)len - 1
                                         : us[i] == 2881 ? (uint32_t)len + 1 : us[i]);
        fix_crc(t, n);
        snprintf(what, sizeof what, "raw length %u", (unsigned)get32(t + SCI_DPCM_HEADER_BYTES));
        expect_metadata(t, n, px, w, h, SCI_DPCM_E_METADATA, what);
    }
    /* a byte of the zstd frame header changed: never more than it says */
    {
        unsigned bad = 0;
        for (size_t k = 0; k < zlen; k++) {
            uint8_t mbuf[4096];
            size_t ml = 0;
            memcpy(t, f, n);
            t[SCI_DPCM_HEADER_BYTES + 4 + k] ^= 0x40;
            fix_crc(t, n);
            int st = sci_dpcm_metadata(t, n, NULL, 0, &ml);
            if (st == SCI_DPCM_OK) {
                if (ml != len)
                    bad++;
                st = sci_dpcm_metadata(t, n, mbuf, sizeof mbuf, &ml);
            }
            if (st != SCI_DPCM_OK && st != SCI_DPCM_E_METADATA)
                bad++;
        }
        check(bad == 0, "compressed metadata: any byte changed under a valid CRC: the "
                        "declared length or E_METADATA");
    }
    /* flag bit 1 with L of 0 and 4 bytes; on a version-5 frame */
    memcpy(t, f, n);
    t[4] = 5;
    fix_crc(t, n);
    expect(t, n, SCI_DPCM_E_RESERVED, "compressed metadata in a version-5 frame");
    g = frame_with_section(px, w, h, (const uint8_t *)"\x05\0\0\0", 4, 1, &fl);
    expect(g, fl, SCI_DPCM_E_LENGTHS, "a compressed section of 4 bytes");
    free(g);
    g = frame_with_section(px, w, h, NULL, 0, 1, &fl);
    expect(g, fl, SCI_DPCM_E_LENGTHS, "a compressed section of 0 bytes");
    free(g);

    /* two zstd frames: the section must be exactly one */
    {
        uint8_t *two = malloc(2 * zlen);
        memcpy(two, z, zlen);
        memcpy(two + zlen, z, zlen);
        sec = section_of((uint32_t)len, two, 2 * zlen, &sl);
        g = frame_with_section(px, w, h, sec, sl, 1, &fl);
        expect_metadata(g, fl, px, w, h, SCI_DPCM_E_METADATA, "two zstd frames");
        free(g);
        free(sec);
        free(two);
    }
    /* a zstd frame that does not say its size (streaming) */
    {
        ZSTD_CCtx *cc = ZSTD_createCCtx();
        size_t zcap = ZSTD_compressBound(len), pos = 0;
        uint8_t *zs = malloc(zcap);
        ZSTD_outBuffer ob = {zs, zcap, 0};
        ZSTD_inBuffer ib = {meta, len, 0};
        ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
        while (ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end) > 0)
            ;
        pos = ob.pos;
        check(ZSTD_getFrameContentSize(zs, pos) == ZSTD_CONTENTSIZE_UNKNOWN,
              "compressed metadata: a zstd frame without its size made");
        sec = section_of((uint32_t)len, zs, pos, &sl);
        g = frame_with_section(px, w, h, sec, sl, 1, &fl);
        expect_metadata(g, fl, px, w, h, SCI_DPCM_E_METADATA, "a frame of unknown size");
        free(g);
        free(sec);
        free(zs);
        ZSTD_freeCCtx(cc);
    }
    /* decompression bombs: 2^24 bytes (the most metadata there is) read
     * back; 2^24 + 1, whether the section says so or not, refused before
     * anything is decompressed */
    {
        size_t big = (size_t)SCI_DPCM_MAX_METADATA + 1;
        uint8_t *zeros = calloc(big, 1), *zb = malloc(ZSTD_compressBound(big));
        size_t zn = ZSTD_compress(zb, ZSTD_compressBound(big), zeros, big - 1, 3);
        size_t ml = 0;
        sec = section_of(SCI_DPCM_MAX_METADATA, zb, zn, &sl);
        g = frame_with_section(px, w, h, sec, sl, 1, &fl);
        uint8_t *got = frame_metadata(g, fl, &ml, &(int){0});
        check(got && ml == SCI_DPCM_MAX_METADATA && !memcmp(got, zeros, ml) &&
                  sl < 4096,
              "compressed metadata: 2^24 bytes from a section of a few KiB read back");
        free(got);
        free(g);
        free(sec);
        zn = ZSTD_compress(zb, ZSTD_compressBound(big), zeros, big, 3);
        sec = section_of((uint32_t)big, zb, zn, &sl);
        g = frame_with_section(px, w, h, sec, sl, 1, &fl);
        expect_metadata(g, fl, px, w, h, SCI_DPCM_E_METADATA, "2^24 + 1 bytes");
        free(g);
        free(sec);
        /* a small raw length in front of a huge frame */
        sec = section_of((uint32_t)len, zb, zn, &sl);
        g = frame_with_section(px, w, h, sec, sl, 1, &fl);
        expect_metadata(g, fl, px, w, h, SCI_DPCM_E_METADATA,
                        "a raw length below the zstd frame's");
        free(g);
        free(sec);
        free(zeros);
        free(zb);
    }
    free(t);
    free(px);
}

/* The metadata frame f (n bytes, 80 bytes of metadata stored as given):
 * its length field changed, its bytes flipped, other versions, truncation. */
static void test_metadata_lengths(const uint8_t *f, size_t n, const uint16_t *px,
                                  uint16_t *out, unsigned W, unsigned H) {
    uint8_t *t = malloc(n + 8);
    size_t ml = 0;
    (void)px;
    /* the length field changed, CRC fixed: the frame no longer adds up */
    memcpy(t, f, n);
    put32(t + 40, 81);
    fix_crc(t, n);
    expect(t, n, SCI_DPCM_E_TRUNCATED, "metadata length one too large");
    check(sci_dpcm_metadata(t, n, NULL, 0, &ml) == SCI_DPCM_E_TRUNCATED && ml == 0,
          "metadata: too large a length refused by sci_dpcm_metadata");
    memcpy(t, f, n);
    put32(t + 40, 79);
    fix_crc(t, n);
    expect(t, n, SCI_DPCM_E_TRAILING, "metadata length one too small");
    memcpy(t, f, n);
    put32(t + 40, SCI_DPCM_MAX_METADATA + 1);
    fix_crc(t, n);
    expect(t, n, SCI_DPCM_E_LENGTHS, "metadata length above the limit");
    memcpy(t, f, n);
    put32(t + 40, 0xFFFFFFFFu);
    fix_crc(t, n);
    expect(t, n, SCI_DPCM_E_LENGTHS, "metadata length 2^32-1");
    /* L = 0 but the bytes still there: the table is read from the
     * metadata and the frame is too long */
    memcpy(t, f, n);
    put32(t + 40, 0);
    fix_crc(t, n);
    expect(t, n, SCI_DPCM_E_TRAILING, "metadata length 0 with the bytes there");
    /* without the CRC fixed, every change of the metadata is caught */
    unsigned bad = 0;
    for (size_t k = 0; k < 80 + 4; k++) {
        memcpy(t, f, n);
        t[SCI_DPCM_HEADER_BYTES - 4 + k] ^= 0x01;
        if (sci_dpcm_decode(test_pool(), t, n, out, W, W * H, NULL) >= 0 ||
            sci_dpcm_metadata(t, n, NULL, 0, &ml) >= 0)
            bad++;
    }
    check(bad == 0, "metadata: every flipped bit of it or its length rejected");
    /* versions before 5 are refused (1: none, 2: with metadata) */
    for (uint8_t v = 1; v <= 4; v++) {
        memcpy(t, f, n);
        t[4] = v;
        fix_crc(t, n);
        expect(t, n, SCI_DPCM_E_VERSION, "metadata frame as a version before 5");
        check(sci_dpcm_metadata(t, n, NULL, 0, &ml) == SCI_DPCM_E_VERSION && !ml,
              "metadata: sci_dpcm_metadata refuses versions before 5");
    }
    for (size_t k = 0; k < n; k++)
        if (sci_dpcm_decode(test_pool(), f, k, out, W, W * H, NULL) >= 0 ||
            sci_dpcm_metadata(f, k, NULL, 0, &ml) >= 0)
            bad++;
    check(bad == 0, "metadata: every truncation rejected");
    free(t);
}

/* A frame the version-5 encoder wrote (tests/dpcm/dpcm_v5_frame.h) still
 * decodes, samples and metadata; the version-6 encoder's frame of the same
 * samples and metadata has the same segments. */
static void test_version5_frame(void) {
    const uint8_t *f = dpcm_v5_frame;
    size_t n = sizeof dpcm_v5_frame;
    uint16_t want[DPCM_V5_W * DPCM_V5_H], out[DPCM_V5_W * DPCM_V5_H];
    uint8_t meta[256];
    size_t mlen = dpcm_v5_metadata(meta), ml = 0;
    sci_dpcm_info info;
    for (unsigned y = 0; y < DPCM_V5_H; y++)
        for (unsigned x = 0; x < DPCM_V5_W; x++)
            want[y * DPCM_V5_W + x] = dpcm_v5_sample(x, y);
    int st;
    uint8_t *got = frame_metadata(f, n, &ml, &st);
    check(f[4] == 5 && sci_dpcm_decode(test_pool(), f, n, out, DPCM_V5_W, DPCM_V5_W * DPCM_V5_H, &info) ==
                           SCI_DPCM_OK &&
              info.version == 5 && !info.meta_compressed && info.meta_bytes == mlen &&
              !memcmp(out, want, sizeof want) && got && ml == mlen && !memcmp(got, meta, ml),
          "version 5: a frame of the former encoder decodes, samples and metadata");
    free(got);
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    size_t cap = sci_dpcm_max_bytes(DPCM_V5_W, DPCM_V5_H, 16) + mlen;
    uint8_t *g = malloc(cap);
    size_t gn = sci_dpcm_encode_meta(test_pool(), want, DPCM_V5_W, DPCM_V5_W, DPCM_V5_H, 16, &p, meta,
                                     mlen, g, cap);
    size_t L = gn ? get32(g + 40) : 0;
    got = gn ? frame_metadata(g, gn, &ml, &st) : NULL;
    check(gn && g[4] == SCI_DPCM_VERSION && got && ml == mlen && !memcmp(got, meta, ml) &&
              gn - L == n - mlen &&
              !memcmp(g + SCI_DPCM_HEADER_BYTES + L, f + SCI_DPCM_HEADER_BYTES + mlen,
                      n - SCI_DPCM_HEADER_BYTES - mlen - 4) &&
              !memcmp(g + 5, f + 5, 35),
          "version 5: the version-6 frame of the same input has the same segments");
    printf("version 5 frame %zu bytes, version 6 %zu (metadata %zu -> %zu bytes%s)\n", n, gn,
           mlen, L, gn && (get32(g + 44) & SCI_DPCM_FLAG_META_ZSTD) ? ", compressed" : "");
    free(got);
    free(g);
}

static void test_metadata(void) {
    enum { W = 64, H = 100 }; /* two segments of 64 and 36 rows */
    uint16_t px[W * H], out[W * H];
    fill(px, W, H, W, 16, OUTLIERS);
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    size_t cap = sci_dpcm_max_bytes(W, H, 16);
    uint8_t *plain = malloc(cap);
    size_t n0 = sci_dpcm_encode(test_pool(), px, W, W, H, 16, &p, plain, cap);
    sci_dpcm_info info0;
    check(n0 > 0 && plain[4] == SCI_DPCM_VERSION && get32(plain + 40) == 0 &&
              get32(plain + 44) == 0 &&
              sci_dpcm_peek(plain, n0, &info0) == SCI_DPCM_OK && info0.meta_bytes == 0 &&
              !info0.meta_compressed && info0.segments == 2 &&
              info0.meta_offset == SCI_DPCM_HEADER_BYTES &&
              info0.table_offset == SCI_DPCM_HEADER_BYTES,
          "metadata: a frame without it is the version with L = 0");
    size_t n0b = sci_dpcm_encode_meta(test_pool(), px, W, W, H, 16, &p, NULL, 0, plain, cap);
    check(n0b == n0, "metadata: encode_meta with none gives encode's frame");
    size_t ml = 1;
    check(sci_dpcm_metadata(plain, n0, NULL, 0, &ml) == SCI_DPCM_OK && ml == 0,
          "metadata: none in a frame with L = 0");

    /* lengths from 1 byte to many FITS blocks; noise (stored as given) and
     * cards (compressed) */
    static const size_t lens[] = {1, 2, 5, 6, 7, 80, 2880, 100000};
    for (unsigned i = 0; i < sizeof lens / sizeof *lens; i++) {
        for (int kind = 0; kind < 2; kind++) {
            size_t len = lens[i];
            uint8_t *meta = malloc(len);
            make_metadata(meta, len, kind, i);
            size_t fcap = cap + len;
            uint8_t *f = malloc(fcap);
            char what[160];
            size_t r = sci_dpcm_encode_meta(test_pool(), px, W, W, H, 16, &p, meta, len, f,
                                            SCI_DPCM_HEADER_BYTES + len - 1);
            check(r == 0, "metadata: a buffer shorter than header and metadata refused");
            size_t n = sci_dpcm_encode_meta(test_pool(), px, W, W, H, 16, &p, meta, len, f, fcap);
            sci_dpcm_info info;
            int st = n ? sci_dpcm_decode(test_pool(), f, n, out, W, W * H, &info) : SCI_DPCM_E_ARG;
            size_t L = n ? get32(f + 40) : 0;
            int z = n && (get32(f + 44) & SCI_DPCM_FLAG_META_ZSTD);
            int mst;
            size_t mlen = 0;
            uint8_t *back = n ? frame_metadata(f, n, &mlen, &mst) : NULL;
            /* a card and more compress; noise and a few bytes are stored
             * as given */
            int want_z = kind == 1 && len >= 80;
            snprintf(what, sizeof what, "metadata: %zu bytes of %s round trip (%s, L = %zu)",
                     len, kind ? "cards" : "noise", z ? "compressed" : "as given", L);
            int ok = n > 0 && st == SCI_DPCM_OK && f[4] == SCI_DPCM_VERSION &&
                     info.version == SCI_DPCM_VERSION && info.meta_bytes == L &&
                     info.meta_compressed == z && z == want_z &&
                     (z ? L < len : L == len) && n == n0 + L &&
                     info.meta_offset == SCI_DPCM_HEADER_BYTES &&
                     info.table_offset == SCI_DPCM_HEADER_BYTES + L &&
                     info.coded_offset == info0.coded_offset + L &&
                     memcmp(out, px, sizeof px) == 0 && back && mlen == len &&
                     memcmp(back, meta, len) == 0 &&
                     /* the header but L and the flags, and the table and
                      * segments after the metadata, are the plain frame's */
                     memcmp(f, plain, 40) == 0 &&
                     memcmp(f + SCI_DPCM_HEADER_BYTES + L, plain + SCI_DPCM_HEADER_BYTES,
                            n0 - SCI_DPCM_HEADER_BYTES - 4) == 0;
            check(ok, what);
            if (z && len == 100000)
                printf("metadata: 100000 bytes of cards stored in %zu (%.1f %%)\n", L,
                       100.0 * L / len);
            /* too small a buffer for the metadata is said, with its length */
            if (back && len > 1) {
                size_t l2 = 0;
                check(sci_dpcm_metadata(f, n, back, len - 1, &l2) == SCI_DPCM_E_BUFFER &&
                          l2 == len,
                      "metadata: a short buffer refused, the length given");
            }
            free(back);
            /* the same frame framed from the stages */
            {
                int32_t *res = malloc(sizeof px / sizeof *px * sizeof *res);
                size_t fl = 0;
                uint8_t *g = NULL;
                if (sci_dpcm_predict_residuals(test_pool(), px, W, W, H, 16, p.order_n, p.equations_m,
                                               res, NULL) == 0)
                    g = frame_from_residuals(res, W, H, 16, &p, sci_dpcm_segment_rows(W, H),
                                             meta, len, &fl);
                snprintf(what, sizeof what, "metadata: %zu bytes of %s: the stages' frame "
                                            "is encode_meta's", len, kind ? "cards" : "noise");
                check(g && fl == n && !memcmp(g, f, n), what);
                free(g);
                free(res);
            }
            if (len == 80 && kind == 0)
                test_metadata_lengths(f, n, px, out, W, H);
            if (z && len == 2880)
                test_metadata_compressed(f, n, meta, len, W, H);
            free(f);
            free(meta);
        }
    }
    check(sci_dpcm_encode_meta(test_pool(), px, W, W, H, 16, &p, NULL, 5, plain, cap) == 0,
          "metadata: NULL with a length refused");
    uint8_t one = 0;
    check(sci_dpcm_encode_meta(test_pool(), px, W, W, H, 16, &p, &one,
                               (size_t)SCI_DPCM_MAX_METADATA + 1, plain, cap) == 0,
          "metadata: above the limit refused");
    /* the plain frame marked with another version: 5 (the layout is the
     * same without a compressed section) reads, the rest are refused */
    {
        uint8_t *t = malloc(n0);
        for (unsigned v = 0; v <= 9; v++) {
            if (v == SCI_DPCM_VERSION)
                continue;
            memcpy(t, plain, n0);
            t[4] = (uint8_t)v;
            fix_crc(t, n0);
            if (v == 5) {
                sci_dpcm_info info;
                check(sci_dpcm_decode(test_pool(), t, n0, out, W, W * H, &info) == SCI_DPCM_OK &&
                          info.version == 5 && !memcmp(out, px, sizeof px),
                      "metadata: a frame without metadata read as version 5");
            } else {
                expect(t, n0, SCI_DPCM_E_VERSION,
                       "a frame without metadata as another version");
            }
        }
        free(t);
    }
    free(plain);
}

/* ---------------------------------------------------------------------- */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void bench(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/spectral16/gmos-n-multi.fits", dir);
    fits_frame fr[3];
    unsigned nf = fits_read_u16(path, fr, 3);
    enum { S = 1024 };
    uint16_t *img = malloc((size_t)S * S * sizeof *img);
    /* tiles of the real frames, mirrored so that edges stay smooth */
    for (unsigned y = 0; y < S; y++)
        for (unsigned x = 0; x < S; x++) {
            if (!nf) {
                img[y * S + x] = (uint16_t)(1000 + (x * 7 + y * 3) % 500 + rng() % 8);
                continue;
            }
            img[y * S + x] = fits_mosaic_sample(fr, nf, x, y);
        }
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    size_t cap = sci_dpcm_max_bytes(S, S, 16);
    uint8_t *buf = malloc(cap);
    uint16_t *dec = malloc((size_t)S * S * sizeof *dec);
    int threads = (int)sci_pool_threads(test_pool());
    for (int rep = 0; rep < 2; rep++) {
        double t0 = now();
        size_t n = sci_dpcm_encode(test_pool(), img, S, S, S, 16, &p, buf, cap);
        double t1 = now();
        int st = sci_dpcm_decode(test_pool(), buf, n, dec, S, (size_t)S * S, NULL);
        double t2 = now();
        printf("bench 1024x1024x16 (%d threads): %.3f bpp, encode %.3f s, decode %.3f s, %s\n",
               threads, 8.0 * n / (S * S), t1 - t0, t2 - t1,
               st == 0 && !memcmp(img, dec, (size_t)S * S * 2) ? "exact" : "MISMATCH");
    }
    free(img);
    free(buf);
    free(dec);
    for (unsigned i = 0; i < nf; i++)
        free(fr[i].px);
}

int main(int argc, char **argv) {
    const char *dir = getenv("SCI_TEST_DATA_DIR");
    if (!dir)
        dir = "../shared/data";
    int do_bench = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--data") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--bench"))
            do_bench = 1;
    }
    if (do_bench) {
        bench(dir);
        return 0;
    }
    test_crc();
    test_range_coder();
    test_classes();
    test_contexts();
    test_segments();
    test_dot();
    test_solve();
    test_scan_auto();
    test_entropy();
    test_real(dir);
    test_synthetic();
    test_corruption();
    test_metadata();
    test_version5_frame();
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
