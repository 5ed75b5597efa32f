/*
 * The HT block decoder (codec/j2k/ht_dec.h) and the refinement-pass encoder
 * (sci_ht_encode_block_ref):
 *   - decoder tables against the rows they come from; size, M_b and pass
 *     limits;
 *   - cleanup round trips: sci_ht_encode_block's segments decode back
 *     exactly, for awkward sizes, sparse, dense, all-zero and maximal
 *     blocks, every M_b from 1 to 30;
 *   - refinement round trips: blocks coded at plane p with SigProp and
 *     MagRef decode, with one, two and three passes, to what a plain
 *     model of the passes (written here, sample by sample) expects, with
 *     and without VCAUSAL; segments free of marker codes;
 *   - damage: segments in buffers between unreadable pages, truncated,
 *     bit-flipped, with Scup and Lcup out of range: no read outside,
 *     deterministic results, the documented error codes, and the intact
 *     line-pairs kept;
 *   - independent decoders: ojph_compress's lossless codestreams, walked
 *     here, decode block by block to the coefficients of our forward 5/3
 *     DWT of the image ojph_expand gives back; and codestreams written
 *     here with refinement passes decode through ojph_expand and
 *     opj_decompress to what our decoder gives (each part is skipped
 *     where its tool is missing).
 * --bench prints the decoder's speed on dense 64x64 blocks; --seed S;
 * --keep leaves the last codestreams and logs in the working folder.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "codec/j2k/dwt.h"
#include "codec/j2k/ht_block.h"
#include "codec/j2k/ht_dec.h"
#include "codec/j2k/t2_bits.h"
#include "tests/common/testutil.h"
#include "tests/common/readfile.h"

static sci_ht_enc_tables enc;
static sci_ht_dec_tables dec;

/* ---- blocks ------------------------------------------------------------- */

enum { FILL_ZERO, FILL_SPARSE, FILL_DENSE, FILL_MAX, FILL_MIXED, FILL_SMALL, FILL_KINDS };
static const char *fill_name[] = {"zero", "sparse", "dense", "max", "mixed", "small"};

/* Magnitudes below 2^mb with random signs on the nonzero ones. */
static void fill(uint32_t *sm, unsigned n, unsigned mb, int kind) {
    uint32_t top = (uint32_t)((UINT64_C(1) << mb) - 1);
    for (unsigned i = 0; i < n; i++) {
        uint32_t m = 0;
        unsigned l;
        switch (kind) {
        case FILL_SPARSE:
            if (rng() % 20 == 0)
                m = 1 + (uint32_t)(rng() % top);
            break;
        case FILL_DENSE:
            m = (uint32_t)rng() & top;
            break;
        case FILL_MAX:
            m = top;
            break;
        case FILL_MIXED: /* every bit length equally likely */
            l = (unsigned)(rng() % (mb + 1));
            m = l ? ((uint32_t)rng() & ((1u << (l - 1)) - 1)) | 1u << (l - 1) : 0;
            break;
        case FILL_SMALL:
            m = (uint32_t)(rng() % 3) & top;
            break;
        default:
            break;
        }
        sm[i] = m | (m && rng() % 2 ? SCI_HT_SIGN : 0);
    }
}

static int decode(const uint8_t *cup, size_t lcup, const uint8_t *ref,
                  size_t lref, unsigned w, unsigned h, unsigned mb,
                  unsigned zbp, unsigned passes, unsigned style,
                  uint32_t *out, size_t stride) {
    sci_ht_dec_params p = {w, h, mb, zbp, passes, style};
    return sci_ht_decode_block(&dec, cup, lcup, ref, lref, &p, out, stride);
}

/* ---- tables and limits -------------------------------------------------- */

static void test_tables(void) {
    check(sci_ht_dec_tables_init(&dec) == 0, "decoder tables build");
    const sci_ht_vlc_row *tabs[2] = {sci_ht_vlc_table0, sci_ht_vlc_table1};
    unsigned rows[2] = {sci_ht_vlc_table0_rows, sci_ht_vlc_table1_rows};
    unsigned bad = 0;
    for (int k = 0; k < 2; k++)
        for (unsigned j = 0; j < rows[k]; j++) {
            const sci_ht_vlc_row *r = &tabs[k][j];
            /* any bits after the codeword must not matter */
            unsigned tail = (unsigned)(rng() % 128) << r->len & 127;
            unsigned e = dec.vlc[k][r->cq << 7 | r->cwd | tail];
            if ((e & 15) != r->rho || (e >> 4 & 1) != r->u_off ||
                (e >> 5 & 15) != r->e_k || (e >> 9 & 15) != r->e_1 || e >> 13 != r->len)
                bad++;
        }
    check(bad == 0, "every CxtVLC row decodes to itself");
    check(!strcmp(sci_ht_dec_strerror(SCI_HT_DEC_EMEL), "MEL stream ran past the segment"),
          "error strings");
}

static void test_limits(void) {
    static uint32_t out[4096 + 64];
    static uint8_t seg[2] = {0xF2, 0x00};
    struct {
        unsigned w, h, mb, zbp, passes, ok;
        const char *what;
    } c[] = {
        {1, 4096, 8, 7, 1, 0, "1x4096 refused (height above 1024)"},
        {4096, 1, 8, 7, 1, 0, "4096x1 refused (width above 1024)"},
        {65, 64, 8, 7, 1, 0, "65x64 refused (area above 4096)"},
        {0, 4, 8, 7, 1, 0, "width 0 refused"},
        {4, 0, 8, 7, 1, 0, "height 0 refused"},
        {4, 4, 31, 7, 1, 0, "M_b 31 refused"},
        {4, 4, 0, 0, 1, 0, "M_b 0 refused"},
        {4, 4, 8, 8, 1, 0, "missing MSBs = M_b refused"},
        {4, 4, 8, 7, 4, 0, "4 passes refused"},
        {4, 4, 8, 7, 2, 0, "refinement at p = 0 refused"},
        {1, 1024, 8, 7, 0, 1, "1x1024 accepted"},
        {1024, 1, 8, 7, 0, 1, "1024x1 accepted"},
        {1024, 4, 30, 0, 0, 1, "1024x4, M_b 30 accepted"},
        {4, 1024, 1, 0, 0, 1, "4x1024, M_b 1 accepted"},
        {64, 64, 8, 6, 3, 1, "64x64, three passes accepted"},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        memset(out, 0xA5, sizeof out);
        int st = decode(seg, sizeof seg, NULL, 0, c[i].w, c[i].h, c[i].mb,
                        c[i].zbp, c[i].passes, 0, out, c[i].w ? c[i].w : 1);
        /* refused: nothing written */
        check(c[i].ok ? st != SCI_HT_DEC_EARG
                      : st == SCI_HT_DEC_EARG && out[0] == 0xA5A5A5A5u,
              c[i].what);
    }
    check(decode(seg, 2, NULL, 0, 4, 4, 8, 7, 1, 0, out, 3) == SCI_HT_DEC_EARG,
          "stride below the width refused");
    check(decode(NULL, 5, NULL, 0, 4, 4, 8, 7, 1, 0, out, 4) == SCI_HT_DEC_EARG,
          "missing cleanup segment refused");
    check(decode(seg, 2, NULL, 3, 4, 4, 8, 6, 2, 0, out, 4) == SCI_HT_DEC_EARG,
          "missing refinement segment refused");
    /* the encoder's limits */
    static uint8_t buf[64];
    sci_ht_ref_lengths len;
    memset(out, 0, sizeof out);
    out[0] = 7;
    check(sci_ht_encode_block_ref(&enc, out, 4, 4, 4, 0, 0, buf, sizeof buf, &len) == -1 &&
              sci_ht_encode_block_ref(&enc, out, 4, 4, 4, 30, 0, buf, sizeof buf, &len) == -1 &&
              sci_ht_encode_block_ref(&enc, out, 65, 64, 65, 1, 0, buf, sizeof buf, &len) == -1 &&
              sci_ht_encode_block_ref(&enc, out, 1, 4096, 1, 1, 0, buf, sizeof buf, &len) == -1,
          "refinement encoder refuses p 0, p 30 and oversized blocks");
    check(sci_ht_encode_block_ref(&enc, out, 4, 4, 4, 3, 0, buf, sizeof buf, &len) == 0,
          "refinement encoder: nothing at plane p gives 0");
    check(sci_ht_encode_block_ref(&enc, out, 4, 4, 4, 2, 0, buf, 3, &len) == -1,
          "refinement encoder: too small a buffer refused");
}

/* ---- cleanup round trips ------------------------------------------------ */

static const unsigned sizes[][2] = {
    {1, 1}, {1, 2}, {2, 1}, {2, 2}, {3, 5}, {5, 3}, {1, 7}, {7, 1},
    {17, 33}, {33, 17}, {64, 64}, {32, 128}, {128, 32}, {1024, 4},
    {4, 1024}, {1, 1024}, {1024, 1}, {63, 65}, {2, 1024}, {1023, 3},
};
#define NSIZES (sizeof sizes / sizeof *sizes)

static unsigned roundtrip_cleanup(unsigned w, unsigned h, unsigned mb, int kind,
                                  unsigned *coded) {
    static uint32_t sm[4096], out[4096 + 3 * 1024];
    static uint8_t seg[65536];
    fill(sm, w * h, mb, kind);
    long n = sci_ht_encode_block(&enc, sm, w, h, w, seg,
                                 sci_ht_block_max_bytes((size_t)w * h, mb));
    if (n < 0)
        return 1;
    if (n == 0) {
        /* nothing coded: the block is absent, zero passes */
        memset(out, 0xA5, (size_t)w * h * 4);
        int st = decode(NULL, 0, NULL, 0, w, h, mb, mb - 1, 0, 0, out, w);
        for (unsigned i = 0; i < w * h; i++)
            if (sm[i] || out[i])
                return 1;
        return st != SCI_HT_DEC_OK;
    }
    (*coded)++;
    /* a wider stride: the words beside the block stay untouched */
    size_t stride = w + 3;
    for (size_t i = 0; i < stride * h; i++)
        out[i] = 0xDEADBEEFu;
    int st = decode(seg, (size_t)n, NULL, 0, w, h, mb, mb - 1, 1, 0, out, stride);
    unsigned bad = st != SCI_HT_DEC_OK;
    for (unsigned y = 0; y < h; y++)
        for (size_t x = 0; x < stride; x++) {
            uint32_t want = x < w ? sm[y * w + x] : 0xDEADBEEFu;
            bad += out[y * stride + x] != want;
        }
    return bad;
}

static void test_cleanup_roundtrips(void) {
    unsigned bad = 0, coded = 0, blocks = 0;
    char what[160];
    for (size_t s = 0; s < NSIZES; s++) {
        unsigned w = sizes[s][0], h = sizes[s][1], bad_here = 0;
        for (unsigned mb = 1; mb <= 30; mb++)
            for (int kind = 0; kind < FILL_KINDS; kind++) {
                /* every kind at every M_b for small blocks, a rotation
                 * for the big ones */
                if (w * h > 1024 && (mb + (unsigned)kind) % 3)
                    continue;
                unsigned b = roundtrip_cleanup(w, h, mb, kind, &coded);
                blocks++;
                if (b && bad_here++ < 3)
                    printf("  %ux%u M_b %u %s: %u samples differ\n", w, h, mb,
                           fill_name[kind], b);
                bad += b != 0;
            }
        (void)bad_here;
    }
    for (int i = 0; i < 300; i++) {
        unsigned w = 1 + (unsigned)(rng() % 1024);
        unsigned hmax = 4096 / w < 1024 ? 4096 / w : 1024;
        unsigned h = 1 + (unsigned)(rng() % hmax);
        unsigned mb = 1 + (unsigned)(rng() % 30);
        int kind = 1 + (int)(rng() % (FILL_KINDS - 1));
        unsigned b = roundtrip_cleanup(w, h, mb, kind, &coded);
        blocks++;
        if (b)
            printf("  %ux%u M_b %u %s: %u samples differ\n", w, h, mb,
                   fill_name[kind], b);
        bad += b != 0;
    }
    snprintf(what, sizeof what,
             "cleanup round trips: %u blocks (%u coded), awkward sizes, every M_b",
             blocks, coded);
    check(bad == 0 && coded > blocks / 2, what);
}

/* ---- refinement round trips --------------------------------------------- */

/* What decoding `passes` passes must give, straight from the definitions:
 * samples with bits at or above p are the cleanup pass's; SigProp scans
 * stripes of four rows column by column and tests each other sample that
 * has a significant neighbour (significant after the cleanup pass, unless
 * VCAUSAL and in a later stripe; or found earlier in this scan); MagRef
 * adds bit p - 1 to the cleanup pass's samples. */
static void model_ref(const uint32_t *sm, unsigned w, unsigned h, unsigned p,
                      int vcausal, unsigned passes, uint32_t *want) {
    static uint8_t cup[4096], found[4096], visited[4096];
    for (unsigned i = 0; i < w * h; i++) {
        cup[i] = (sm[i] & ~SCI_HT_SIGN) >> p != 0;
        found[i] = visited[i] = 0;
    }
    for (unsigned s = 0; s < h; s += 4)
        for (unsigned x = 0; x < w; x++)
            for (unsigned y = s; y < s + 4 && y < h; y++) {
                unsigned i = y * w + x;
                visited[i] = 1;
                if (cup[i])
                    continue;
                int member = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int nx = (int)x + dx, ny = (int)y + dy;
                        if ((!dx && !dy) || nx < 0 || ny < 0 || nx >= (int)w ||
                            ny >= (int)h)
                            continue;
                        unsigned j = (unsigned)ny * w + (unsigned)nx;
                        int later_stripe = (unsigned)ny / 4 > y / 4;
                        if ((cup[j] && !(vcausal && later_stripe)) ||
                            (visited[j] && found[j]))
                            member = 1;
                    }
                if (member && (sm[i] >> (p - 1) & 1))
                    found[i] = 1;
            }
    for (unsigned i = 0; i < w * h; i++) {
        uint32_t m = sm[i] & ~SCI_HT_SIGN, sign = sm[i] & SCI_HT_SIGN;
        if (cup[i])
            want[i] = (passes >= 3 ? m >> (p - 1) << (p - 1) : m >> p << p) | sign;
        else if (found[i] && passes >= 2)
            want[i] = 1u << (p - 1) | sign;
        else
            want[i] = 0;
    }
}

/* No 0xFF followed by a byte above 0x8F (a marker), and no 0xFF last. */
static int marker_free(const uint8_t *b, size_t n) {
    for (size_t i = 0; i + 1 < n; i++)
        if (b[i] == 0xFF && b[i + 1] > 0x8F)
            return 0;
    return n == 0 || b[n - 1] != 0xFF;
}

static void test_refinement(void) {
    static uint32_t sm[4096], out[4096], want[4096], want_other[4096];
    static uint8_t seg[65536];
    unsigned bad = 0, blocks = 0, empty = 0, markers = 0, found_any = 0,
             causal_differs = 0, lengths = 0;
    for (int it = 0; it < 1500; it++) {
        unsigned w, h;
        if (it < (int)NSIZES * 20) {
            w = sizes[it % NSIZES][0], h = sizes[it % NSIZES][1];
        } else {
            w = 1 + (unsigned)(rng() % 80);
            h = 1 + (unsigned)(rng() % 80);
            if (w * h > 4096)
                h = 4096 / w;
        }
        unsigned mb = 2 + (unsigned)(rng() % 29);
        unsigned p = 1 + (unsigned)(rng() % (mb - 1 < 29 ? mb - 1 : 29));
        int kind = (int)(rng() % FILL_KINDS);
        int vcausal = (int)(rng() % 2);
        unsigned style = 0x40 | (vcausal ? SCI_HT_STYLE_VCAUSAL : 0);
        fill(sm, w * h, mb, kind);
        sci_ht_ref_lengths len;
        size_t cap = sci_ht_block_max_bytes((size_t)w * h, mb) +
                     sci_ht_ref_max_bytes((size_t)w * h);
        long n = sci_ht_encode_block_ref(&enc, sm, w, h, w, p, style, seg, cap, &len);
        if (n < 0) {
            bad++;
            continue;
        }
        if (n == 0) {
            unsigned any = 0;
            for (unsigned i = 0; i < w * h; i++)
                any |= (sm[i] & ~SCI_HT_SIGN) >> p;
            bad += any != 0;
            empty++;
            continue;
        }
        blocks++;
        lengths += len.cup + len.ref != (size_t)n || len.ref_sp > len.ref;
        markers += !marker_free(seg, (size_t)n) || !marker_free(seg + len.cup, len.ref_sp);
        const uint8_t *ref = seg + len.cup;
        unsigned zbp = mb - 1 - p;
        struct {
            unsigned passes;
            size_t lref;
        } runs[4] = {{1, 0}, {2, len.ref_sp}, {2, len.ref}, {3, len.ref}};
        for (int r = 0; r < 4; r++) {
            model_ref(sm, w, h, p, vcausal, runs[r].passes, want);
            int st = decode(seg, len.cup, ref, runs[r].lref, w, h, mb, zbp,
                            runs[r].passes, style, out, w);
            unsigned diff = 0;
            for (unsigned i = 0; i < w * h; i++)
                diff += out[i] != want[i];
            if (st != SCI_HT_DEC_OK || diff) {
                if (bad < 5)
                    printf("  %ux%u M_b %u p %u %s%s passes %u (lref %zu): "
                           "status %d, %u samples differ\n", w, h, mb, p,
                           fill_name[kind], vcausal ? " VCAUSAL" : "",
                           runs[r].passes, runs[r].lref, st, diff);
                bad++;
            }
            if (runs[r].passes == 3) {
                for (unsigned i = 0; i < w * h; i++)
                    found_any += (sm[i] & ~SCI_HT_SIGN) >> p == 0 && out[i] != 0;
                model_ref(sm, w, h, p, !vcausal, 3, want_other);
                causal_differs += memcmp(want, want_other, (size_t)w * h * 4) != 0;
            }
        }
    }
    char what[200];
    snprintf(what, sizeof what,
             "refinement round trips: %u blocks (%u with nothing at plane p), "
             "1, 2 (SigProp alone and with MagRef bytes) and 3 passes",
             blocks, empty);
    check(bad == 0 && blocks > 1000, what);
    check(lengths == 0, "refinement: lengths add up, SigProp's within the segment");
    check(markers == 0, "refinement: segments hold no marker code, none ends in 0xFF");
    snprintf(what, sizeof what,
             "refinement: SigProp found %u samples, VCAUSAL mattered in %u blocks",
             found_any, causal_differs);
    check(found_any > 1000 && causal_differs > 20, what);
}

/* ---- damage ------------------------------------------------------------- */

/* A copy of n bytes flush against an unreadable page (after it when
 * `before`, else before it), so a read outside faults. */
typedef struct {
    uint8_t *map, *p;
    size_t maplen;
} guarded;

static int guard(guarded *g, const uint8_t *src, size_t n, int before) {
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t body = (n + pg - 1) / pg * pg;
    g->maplen = body + 2 * pg;
    g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED)
        return -1;
    mprotect(g->map, pg, PROT_NONE);
    mprotect(g->map + pg + body, pg, PROT_NONE);
    g->p = before ? g->map + pg : g->map + pg + body - n;
    if (n)
        memcpy(g->p, src, n);
    return 0;
}

static void unguard(guarded *g) {
    munmap(g->map, g->maplen);
}

static void test_damage(void) {
    static uint32_t sm[4096], out[4096], again[4096], clean[4096];
    static uint8_t seg[65536], bad_seg[65536];
    unsigned nondet = 0, over = 0, runs = 0, errors = 0, zero_tail = 0;
    for (int it = 0; it < 3000; it++) {
        unsigned w = 1 + (unsigned)(rng() % 64), h = 1 + (unsigned)(rng() % 64);
        unsigned mb = 2 + (unsigned)(rng() % 29);
        unsigned p = rng() % 2 ? 1 + (unsigned)(rng() % (mb - 1)) : 0;
        if (p > 29)
            p = 29;
        fill(sm, w * h, mb, FILL_MIXED);
        sm[0] = 1u << (mb - 1);
        sci_ht_ref_lengths len = {0, 0, 0};
        long n = p ? sci_ht_encode_block_ref(&enc, sm, w, h, w, p, 0, seg, sizeof seg, &len)
                   : sci_ht_encode_block(&enc, sm, w, h, w, seg, sizeof seg);
        if (n <= 0)
            continue;
        if (!p)
            len.cup = (size_t)n;
        size_t lcup = len.cup, lref = len.ref;
        memcpy(bad_seg, seg, (size_t)n);
        unsigned passes = p ? 1 + (unsigned)(rng() % 3) : 1;
        switch (rng() % 6) {
        case 0: /* bit flips */
            for (int k = 0; k < 1 + (int)(rng() % 4); k++)
                bad_seg[rng() % (size_t)n] ^= (uint8_t)(1u << (rng() % 8));
            break;
        case 1: /* cleanup truncated at its end (Scup now garbage) */
            lcup = 1 + (size_t)(rng() % lcup);
            break;
        case 2: /* Scup anything */ {
            unsigned scup = (unsigned)(rng() % 4096);
            bad_seg[lcup - 1] = (uint8_t)(scup >> 4);
            bad_seg[lcup - 2] = (uint8_t)((bad_seg[lcup - 2] & 0xF0) | (scup & 15));
            break;
        }
        case 3: /* refinement truncated or padded with noise */
            lref = lref ? (size_t)(rng() % (lref + 1)) : 0;
            break;
        case 4: /* random bytes in place of the MEL and VLC */
            for (size_t k = lcup / 2; k + 2 < lcup; k++)
                bad_seg[k] = (uint8_t)rng();
            break;
        default: /* wrong M_b: too few bit-planes for the magnitudes */
            mb = mb / 2 > p ? mb / 2 : p + 1;
            break;
        }
        unsigned zbp = mb - 1 - p;
        for (int before = 0; before < 2; before++) {
            guarded gc, gr;
            if (guard(&gc, bad_seg, lcup, before) ||
                guard(&gr, bad_seg + len.cup, lref, before))
                return;
            int st = decode(gc.p, lcup, lref ? gr.p : NULL, lref, w, h, mb, zbp,
                            passes, 0, out, w);
            int st2 = decode(gc.p, lcup, lref ? gr.p : NULL, lref, w, h, mb, zbp,
                             passes, 0, again, w);
            unguard(&gc);
            unguard(&gr);
            runs++;
            nondet += st != st2 || memcmp(out, again, (size_t)w * h * 4);
            for (unsigned i = 0; i < w * h; i++)
                over += (out[i] & 0x7FFFFFFFu) >> mb != 0 || out[i] == SCI_HT_SIGN;
            if (st != SCI_HT_DEC_OK) {
                /* the line-pair that failed and all below it are zero */
                int zero = 1;
                for (unsigned x = 0; x < w; x++)
                    zero &= out[(h - 1) * w + x] == 0;
                errors++;
                zero_tail += zero;
            }
        }
    }
    char what[160];
    snprintf(what, sizeof what,
             "damaged segments: %u decodes between unreadable pages, %u errors "
             "detected, all deterministic", runs, errors);
    check(nondet == 0 && runs > 4000 && errors > 500, what);
    check(over == 0, "damaged segments: magnitudes stay below 2^M_b, no signed zeros");
    check(zero_tail == errors, "damaged segments: an error leaves the last rows zero");

    /* Scup checks */
    uint8_t tiny[3] = {0x00, 0x01, 0x00};
    check(decode(tiny, 1, NULL, 0, 4, 4, 8, 7, 1, 0, out, 4) == SCI_HT_DEC_ESCUP,
          "Lcup 1: Scup error");
    check(decode(tiny, 0, NULL, 0, 4, 4, 8, 7, 1, 0, out, 4) == SCI_HT_DEC_ESCUP,
          "Lcup 0 with one pass: Scup error");
    check(decode(tiny, 2, NULL, 0, 4, 4, 8, 7, 1, 0, out, 4) == SCI_HT_DEC_ESCUP,
          "Scup 1: error");
    tiny[0] = 0x03, tiny[1] = 0x00; /* Scup 3 > Lcup 2 */
    check(decode(tiny, 2, NULL, 0, 4, 4, 8, 7, 1, 0, out, 4) == SCI_HT_DEC_ESCUP,
          "Scup above Lcup: error");
    static uint8_t big[5000];
    memset(big, 0, sizeof big);
    big[4999] = 0xFF, big[4998] = 0x0F; /* Scup 4095 */
    check(decode(big, sizeof big, NULL, 0, 4, 4, 8, 7, 1, 0, out, 4) == SCI_HT_DEC_ESCUP,
          "Scup above 4079: error");

    /* MEL past the segment: Scup 2, the MEL reads two bytes of ones (runs
     * of insignificant quads) and then needs more */
    uint8_t mel[2] = {0xF2, 0x00};
    memset(out, 0xA5, sizeof out);
    int st = decode(mel, 2, NULL, 0, 1024, 4, 8, 7, 1, 0, out, 1024);
    unsigned nz = 0;
    for (unsigned i = 0; i < 4096; i++)
        nz += out[i] != 0;
    check(st == SCI_HT_DEC_EMEL && nz == 0, "MEL past the segment: error, block zero");

    /* VLC below its start: Scup 2 and a significant first quad */
    uint8_t vlc[2] = {0x02, 0x00};
    st = decode(vlc, 2, NULL, 0, 64, 64, 8, 7, 1, 0, out, 64);
    check(st == SCI_HT_DEC_EVLC, "VLC below its first byte: error");

    /* An exponent above M_b: a valid 12-bit block read as 4-bit */
    fill(sm, 64 * 64, 12, FILL_DENSE);
    sm[0] = 4095;
    long n = sci_ht_encode_block(&enc, sm, 64, 64, 64, seg, sizeof seg);
    st = decode(seg, (size_t)n, NULL, 0, 64, 64, 4, 3, 1, 0, out, 64);
    check(st == SCI_HT_DEC_EMAG, "magnitudes above M_b: error");

    /* MagSgn cut short: the line-pairs before the one that runs out come
     * back exactly, the rest is zero */
    fill(sm, 64 * 64, 10, FILL_DENSE);
    n = sci_ht_encode_block(&enc, sm, 64, 64, 64, seg, sizeof seg);
    size_t scup = (size_t)seg[n - 1] << 4 | (seg[n - 2] & 15);
    size_t pcup = (size_t)n - scup, keep = pcup / 2;
    memcpy(bad_seg, seg, keep);
    memcpy(bad_seg + keep, seg + pcup, scup);
    /* M_b 20, more planes than the magnitudes need: the ones a reader
     * sees past the end make no magnitude too large before the MagSgn
     * check fires */
    decode(seg, (size_t)n, NULL, 0, 64, 64, 20, 19, 1, 0, clean, 64);
    st = decode(bad_seg, keep + scup, NULL, 0, 64, 64, 20, 19, 1, 0, out, 64);
    unsigned rows_kept = 0, rows_zero = 0;
    for (unsigned y = 0; y < 64; y++) {
        if (!memcmp(out + y * 64, clean + y * 64, 64 * 4))
            rows_kept += rows_zero == 0;
        int zero = 1;
        for (unsigned x = 0; x < 64; x++)
            zero &= out[y * 64 + x] == 0;
        rows_zero += zero;
    }
    /* (the line-pair that read the one fill byte a segment may omit can
     * differ without being detected) */
    snprintf(what, sizeof what,
             "MagSgn cut at half: error (%d), %u rows intact then %u zero", st,
             rows_kept, rows_zero);
    check(st == SCI_HT_DEC_EMAGSGN && rows_kept >= 20 && rows_zero >= 2 &&
              rows_kept + rows_zero >= 62,
          what);
}

/* ---- tools -------------------------------------------------------------- */

static char workdir[] = "/tmp/test-ht-dec-XXXXXX";

static int have_tool(const char *name) {
    const char *path = getenv("PATH");
    char dir[4096];
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(dir, sizeof dir, "%.*s/%s", (int)n, path, name);
        if (access(dir, X_OK) == 0)
            return 1;
        path += n;
        if (*path == ':')
            path++;
    }
    return 0;
}

/* Runs argv quietly (output to workdir/log); 0 when it exited 0. */
static int run(char *const argv[]) {
    char log[256];
    snprintf(log, sizeof log, "%s/log", workdir);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        alarm(60);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int write_file(const char *path, const void *d, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t k = fwrite(d, 1, n, f);
    return fclose(f) == 0 && k == n ? 0 : -1;
}

static int write_pgm(const char *path, const uint8_t *px, unsigned w, unsigned h) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    fprintf(f, "P5\n%u %u\n255\n", w, h);
    size_t k = fwrite(px, 1, (size_t)w * h, f);
    return fclose(f) == 0 && k == (size_t)w * h ? 0 : -1;
}

/* The next number of a PNM header, skipping blanks and # comments. */
static int pnm_number(const uint8_t *d, size_t n, size_t *pos, unsigned *v) {
    while (*pos < n && (d[*pos] == '#' || d[*pos] == ' ' || d[*pos] == '\t' ||
                        d[*pos] == '\n' || d[*pos] == '\r')) {
        if (d[*pos] == '#')
            while (*pos < n && d[*pos] != '\n')
                (*pos)++;
        else
            (*pos)++;
    }
    if (*pos >= n || d[*pos] < '0' || d[*pos] > '9')
        return -1;
    *v = 0;
    while (*pos < n && d[*pos] >= '0' && d[*pos] <= '9' && *v < 100000)
        *v = *v * 10 + (unsigned)(d[(*pos)++] - '0');
    return 0;
}

/* An 8-bit PGM of w x h; NULL otherwise. */
static uint8_t *read_pgm(const char *path, unsigned w, unsigned h) {
    size_t n, pos = 2;
    uint8_t *d = test_read_file(path, &n);
    unsigned fw, fh, maxv;
    if (!d || n < 2 || d[0] != 'P' || d[1] != '5' || pnm_number(d, n, &pos, &fw) ||
        pnm_number(d, n, &pos, &fh) || pnm_number(d, n, &pos, &maxv) || fw != w ||
        fh != h || maxv != 255 || pos + 1 + (size_t)w * h > n) {
        free(d);
        return NULL;
    }
    uint8_t *px = malloc((size_t)w * h);
    memcpy(px, d + pos + 1, (size_t)w * h);
    free(d);
    return px;
}

/* ---- OpenJPH's cleanup segments ----------------------------------------- */

/* Packet header bits (T.800 B.10.1): most significant first, 7 bits in a
 * byte after 0xFF. */
typedef struct {
    const uint8_t *d;
    size_t pos, end;
    unsigned byte, bits;
    int last_ff, fail;
} hdr_reader;

static unsigned hbit(hdr_reader *r) {
    if (!r->bits) {
        if (r->pos >= r->end) {
            r->fail = 1;
            return 0;
        }
        r->byte = r->d[r->pos++];
        r->bits = r->last_ff ? 7 : 8;
        r->last_ff = r->byte == 0xFF;
    }
    r->bits--;
    return r->byte >> r->bits & 1;
}

static unsigned hbits(hdr_reader *r, unsigned n) {
    unsigned v = 0;
    while (n--)
        v = v << 1 | hbit(r);
    return v;
}

static void hdr_end(hdr_reader *r) {
    r->bits = 0;
    if (r->last_ff)
        r->pos++; /* the byte that holds only the stuffed bit */
    r->last_ff = 0;
}

static unsigned rd16(const uint8_t *p) {
    return (unsigned)p[0] << 8 | p[1];
}

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* One code-block per subband, one layer, one tile, one component, no
 * SOP/EPH: each resolution is one packet.  For each block (band order:
 * LL, then HL, LH, HH from the coarsest level), decodes its segments and
 * compares with the forward DWT of `img`.  Returns the blocks that
 * matched, or -1 where the codestream is not of that simple kind. */
static int check_ojph_stream(const uint8_t *cs, size_t n, const uint8_t *img,
                             unsigned w, unsigned h, unsigned levels,
                             unsigned *blocks, char *why, size_t whylen) {
    size_t pos = 2;
    unsigned nl = 99, style = 0, guard_bits = 0, eps[3 * 32 + 1], neps = 0;
    unsigned cbw = 0, cbh = 0;
    *blocks = 0;
    if (n < 4 || rd16(cs) != 0xFF4F) {
        snprintf(why, whylen, "no SOC");
        return -1;
    }
    /* main header up to SOT */
    while (pos + 4 <= n && rd16(cs + pos) != 0xFF90) {
        unsigned m = rd16(cs + pos), l = rd16(cs + pos + 2);
        const uint8_t *s = cs + pos + 4;
        if (pos + 2 + l > n)
            break;
        if (m == 0xFF51 && (rd32(s + 2) != w || rd32(s + 6) != h || rd16(s + 34) != 1)) {
            snprintf(why, whylen, "SIZ: not a %ux%u one-component image", w, h);
            return -1;
        }
        if (m == 0xFF52) {
            /* no SOP or EPH markers, one layer, 5/3; precincts (if
             * given) no smaller than the image */
            int small_precincts = 0;
            for (unsigned i = 10; (s[0] & 1) && i + 2 < l; i++)
                small_precincts |= (1u << (s[i] & 15)) < w || (1u << (s[i] >> 4)) < h;
            if ((s[0] & 6) || small_precincts || rd16(s + 2) != 1 || s[9] != 1) {
                snprintf(why, whylen, "COD: SOP/EPH, precincts, layers or not 5/3");
                return -1;
            }
            nl = s[5];
            cbw = 4u << s[6], cbh = 4u << s[7];
            style = s[8];
        }
        if (m == 0xFF5C) {
            guard_bits = s[0] >> 5;
            if ((s[0] & 31) != 0) {
                snprintf(why, whylen, "QCD: not reversible");
                return -1;
            }
            for (unsigned i = 1; i + 2 < l && neps < sizeof eps / sizeof *eps; i++)
                eps[neps++] = s[i] >> 3;
        }
        pos += 2 + l;
    }
    if (nl != levels || neps != 3 * nl + 1 || !(style & 0x40)) {
        snprintf(why, whylen, "header: %u levels (want %u), %u bands, style 0x%02x",
                 nl, levels, neps, style);
        return -1;
    }
    if (pos + 14 > n || rd16(cs + pos + 12) != 0xFF93) {
        snprintf(why, whylen, "no SOT/SOD");
        return -1;
    }
    size_t body = pos + 14;

    /* the coefficients: level-shifted image through our 5/3 DWT */
    int32_t *c = malloc((size_t)w * h * sizeof *c);
    for (size_t i = 0; i < (size_t)w * h; i++)
        c[i] = (int32_t)img[i] - 128;
    sci_dwt53_forward(NULL, c, w, h, w, levels);

    hdr_reader r = {cs, body, n, 0, 0, 0, 0};
    static uint32_t out[4096];
    unsigned bad = 0;
    for (unsigned res = 0; res <= levels; res++) {
        unsigned nb = res ? 3 : 1, lev = res ? levels - res + 1 : levels;
        unsigned x0[3], y0[3], bw[3], bh[3], incl[3] = {0, 0, 0}, zbp[3],
                 passes[3];
        size_t lens[3][2];
        uint32_t lw = sci_dwt_low_len(w, lev), lh = sci_dwt_low_len(h, lev);
        uint32_t pw = sci_dwt_low_len(w, lev - (res ? 1 : 0)),
                 ph = sci_dwt_low_len(h, lev - (res ? 1 : 0));
        for (unsigned b = 0; b < nb; b++) {
            /* LL; or HL (right), LH (below), HH */
            int right = res && b != 1, below = res && b != 0;
            x0[b] = right ? lw : 0, y0[b] = below ? lh : 0;
            bw[b] = right ? pw - lw : lw, bh[b] = below ? ph - lh : lh;
        }
        for (unsigned b = 0; b < nb; b++)
            if (bw[b] > cbw || bh[b] > cbh) {
                snprintf(why, whylen, "more than one code-block in a band");
                free(c);
                return -1;
            }
        unsigned nonempty = hbit(&r);
        for (unsigned b = 0; b < nb && nonempty; b++) {
            if (!bw[b] || !bh[b])
                continue;
            incl[b] = hbit(&r); /* one-node inclusion tag tree, layer 0 */
            if (!incl[b])
                continue;
            zbp[b] = 0;
            while (!hbit(&r) && !r.fail && zbp[b] < 64)
                zbp[b]++;
            unsigned np = 1;
            if (hbit(&r)) {
                np = 2;
                if (hbit(&r)) {
                    unsigned v = hbits(&r, 2);
                    np = 3 + v;
                    if (v == 3) {
                        v = hbits(&r, 5);
                        np = 6 + v;
                        if (v == 31)
                            np = 37 + hbits(&r, 7);
                    }
                }
            }
            passes[b] = np;
            unsigned lblock = 3;
            while (hbit(&r) && !r.fail)
                lblock++;
            /* HT: the cleanup segment (one pass), then the refinement
             * segment (the other passes), each its own length */
            lens[b][0] = hbits(&r, lblock);
            lens[b][1] = 0;
            if (np > 1) {
                unsigned extra = np - 1 >= 2;
                lens[b][1] = hbits(&r, lblock + extra);
            }
        }
        hdr_end(&r);
        if (r.fail) {
            snprintf(why, whylen, "packet header %u runs out", res);
            free(c);
            return -1;
        }
        for (unsigned b = 0; b < nb; b++) {
            if (!bw[b] || !bh[b])
                continue;
            unsigned band = res ? 1 + 3 * (res - 1) + b : 0;
            unsigned mb = guard_bits + eps[band] - 1;
            size_t lc = incl[b] ? lens[b][0] : 0, lr = incl[b] ? lens[b][1] : 0;
            if (r.pos + lc + lr > n || (incl[b] && (zbp[b] >= mb || passes[b] > 3))) {
                snprintf(why, whylen, "band %u: segments beyond the codestream "
                         "or an unexpected Z/passes", band);
                free(c);
                return -1;
            }
            int st = decode(cs + r.pos, lc, cs + r.pos + lc, lr, bw[b], bh[b], mb,
                            incl[b] ? zbp[b] : 0, incl[b] ? passes[b] : 0, style,
                            out, bw[b]);
            r.pos += lc + lr;
            unsigned diff = st != SCI_HT_DEC_OK;
            for (unsigned y = 0; y < bh[b]; y++)
                for (unsigned x = 0; x < bw[b]; x++) {
                    int32_t v = c[(size_t)(y0[b] + y) * w + x0[b] + x];
                    uint32_t want = v < 0 ? (uint32_t)-v | SCI_HT_SIGN : (uint32_t)v;
                    diff += out[y * bw[b] + x] != want;
                }
            if (diff) {
                printf("  band %u (%ux%u, M_b %u, Z %u): status %d, %u samples differ\n",
                       band, bw[b], bh[b], mb, zbp[b], st, diff);
                bad++;
            } else {
                (*blocks)++;
            }
        }
    }
    free(c);
    if (bad)
        snprintf(why, whylen, "%u blocks differ", bad);
    return bad ? -1 : 0;
}

static uint8_t *make_image(unsigned w, unsigned h, int noise) {
    uint8_t *px = malloc((size_t)w * h);
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++) {
            double v = 128 + 70 * sin(x / 5.0 + y / 11.0) * cos(y / 7.0) +
                       (double)(rng() % (2 * noise + 1)) - noise;
            px[y * w + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    return px;
}

static void test_ojph_cleanup(void) {
    if (!have_tool("ojph_compress") || !have_tool("ojph_expand")) {
        printf("SKIP OpenJPH cleanup segments: ojph_compress/ojph_expand not found\n");
        return;
    }
    struct {
        unsigned w, h, levels;
        int noise;
    } cases[] = {{64, 64, 5, 6}, {64, 64, 3, 120}, {37, 29, 3, 20},
                 {64, 64, 0, 3}, {16, 48, 2, 60}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        unsigned w = cases[k].w, h = cases[k].h, L = cases[k].levels;
        uint8_t *img = make_image(w, h, cases[k].noise);
        char in[256], cs[256], back[256], nd[16], what[256], why[160] = "";
        snprintf(in, sizeof in, "%s/in.pgm", workdir);
        snprintf(cs, sizeof cs, "%s/ojph.j2c", workdir);
        snprintf(back, sizeof back, "%s/back.pgm", workdir);
        snprintf(nd, sizeof nd, "%u", L);
        char *enc_argv[] = {"ojph_compress", "-i", in, "-o", cs, "-reversible",
                            "true", "-num_decomps", nd, "-block_size", "{64,64}",
                            NULL};
        char *dec_argv[] = {"ojph_expand", "-i", cs, "-o", back, NULL};
        int ok = write_pgm(in, img, w, h) == 0 && run(enc_argv) == 0 &&
                 run(dec_argv) == 0;
        uint8_t *dec_img = ok ? read_pgm(back, w, h) : NULL;
        size_t n = 0;
        uint8_t *stream = dec_img ? test_read_file(cs, &n) : NULL;
        unsigned blocks = 0;
        int same = dec_img && !memcmp(dec_img, img, (size_t)w * h);
        int st = stream ? check_ojph_stream(stream, n, dec_img, w, h, L, &blocks,
                                            why, sizeof why)
                        : -1;
        snprintf(what, sizeof what,
                 "OpenJPH %ux%u, %u levels: ojph_expand lossless, our decoder "
                 "gives the DWT of its output in all %u blocks%s%s", w, h, L,
                 blocks, *why ? ": " : "", why);
        check(ok && same && st == 0 && blocks == 3 * L + 1, what);
        free(img);
        free(dec_img);
        free(stream);
    }
}

/* ---- our refinement passes through OpenJPH and OpenJPEG ----------------- */

static void put16(uint8_t *b, size_t *n, unsigned v) {
    b[(*n)++] = (uint8_t)(v >> 8);
    b[(*n)++] = (uint8_t)v;
}

static void put32(uint8_t *b, size_t *n, uint32_t v) {
    put16(b, n, v >> 16);
    put16(b, n, v & 0xFFFF);
}

static unsigned bit_length(size_t v) {
    unsigned n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}

/* A codestream of one 8-bit w x h component, reversible, no DWT (0
 * levels), one 64x64 HT code-block holding the block coded at plane p with
 * `passes` passes: its samples are the sample values less 128. */
static size_t write_ref_stream(uint8_t *b, unsigned w, unsigned h,
                               unsigned style, const uint8_t *seg,
                               const sci_ht_ref_lengths *len, unsigned passes,
                               unsigned p) {
    const unsigned guard_bits = 1, eps = 8, mb = guard_bits + eps - 1;
    size_t n = 0;
    put16(b, &n, 0xFF4F); /* SOC */
    put16(b, &n, 0xFF51); /* SIZ */
    put16(b, &n, 41);
    put16(b, &n, 0x4000);
    put32(b, &n, w), put32(b, &n, h), put32(b, &n, 0), put32(b, &n, 0);
    put32(b, &n, w), put32(b, &n, h), put32(b, &n, 0), put32(b, &n, 0);
    put16(b, &n, 1);
    b[n++] = 7, b[n++] = 1, b[n++] = 1;
    put16(b, &n, 0xFF50); /* CAP: Part 15, M_b <= 8 */
    put16(b, &n, 8);
    put32(b, &n, 0x00020000);
    put16(b, &n, 0);
    put16(b, &n, 0xFF52); /* COD */
    put16(b, &n, 12);
    b[n++] = 0, b[n++] = 0;
    put16(b, &n, 1);
    b[n++] = 0, b[n++] = 0, b[n++] = 4, b[n++] = 4, b[n++] = (uint8_t)style, b[n++] = 1;
    put16(b, &n, 0xFF5C); /* QCD: reversible, one band */
    put16(b, &n, 4);
    b[n++] = (uint8_t)(guard_bits << 5), b[n++] = (uint8_t)(eps << 3);
    size_t sot = n;
    put16(b, &n, 0xFF90);
    put16(b, &n, 10);
    put16(b, &n, 0);
    put32(b, &n, 0);
    b[n++] = 0, b[n++] = 1;
    put16(b, &n, 0xFF93);
    /* the packet header */
    size_t lref = passes == 3 ? len->ref : passes == 2 ? len->ref_sp : 0;
    unsigned extra = passes == 3;
    int need = (int)bit_length(len->cup);
    if ((int)bit_length(lref) - (int)extra > need)
        need = (int)bit_length(lref) - (int)extra;
    unsigned k = need > 3 ? (unsigned)need - 3 : 0;
    sci_t2_bits hb;
    sci_t2_bits_init(&hb, b + n, 64);
    sci_t2_bits_put(&hb, 1, 1);                 /* not empty */
    sci_t2_bits_put(&hb, 1, 1);                 /* included */
    sci_t2_bits_run(&hb, 0, mb - 1 - p);        /* missing MSBs */
    sci_t2_bits_put(&hb, 1, 1);
    if (passes == 3)
        sci_t2_bits_put(&hb, 12, 4);
    else if (passes == 2)
        sci_t2_bits_put(&hb, 2, 2);
    else
        sci_t2_bits_put(&hb, 0, 1);
    sci_t2_bits_run(&hb, 1, k); /* Lblock 3 + k */
    sci_t2_bits_put(&hb, 0, 1);
    sci_t2_bits_put(&hb, len->cup, 3 + k);
    if (passes > 1)
        sci_t2_bits_put(&hb, lref, 3 + k + extra);
    n += sci_t2_bits_finish(&hb);
    memcpy(b + n, seg, len->cup);
    n += len->cup;
    memcpy(b + n, seg + len->cup, lref);
    n += lref;
    size_t psot = n - sot;
    b[sot + 6] = (uint8_t)(psot >> 24), b[sot + 7] = (uint8_t)(psot >> 16);
    b[sot + 8] = (uint8_t)(psot >> 8), b[sot + 9] = (uint8_t)psot;
    put16(b, &n, 0xFFD9);
    return n;
}

/* Mostly zeros, some +-1 (which SigProp finds next to larger values and
 * misses elsewhere) and a few larger values, around 128. */
static uint8_t *make_sparse(unsigned w, unsigned h) {
    uint8_t *px = malloc((size_t)w * h);
    for (unsigned i = 0; i < w * h; i++) {
        unsigned r = (unsigned)(rng() % 100);
        int v = r < 55 ? 0 : r < 85 ? 1 : 2 + (int)(rng() % 12);
        px[i] = (uint8_t)(128 + (rng() % 2 ? -v : v));
    }
    return px;
}

/* Our decoder's output as a reconstructing decoder shows it: a nonzero
 * sample known down to plane k >= 1 (see codec/j2k/ht_dec.h) moves 2^(k-1)
 * away from zero; then the level shift and the 8-bit range. */
static int reconstruct(uint32_t s, unsigned p, unsigned passes) {
    uint32_t m = s & 0x7FFFFFFFu;
    if (!m)
        return 128;
    unsigned k = passes == 3 || (passes == 2 && m == 1u << (p - 1)) ? p - 1 : p;
    int v = (int)(m + (k ? 1u << (k - 1) : 0));
    v = 128 + (s >> 31 ? -v : v);
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

static void test_ref_external(void) {
    const char *tools[2] = {"ojph_expand", "opj_decompress"};
    int have[2] = {have_tool(tools[0]), have_tool(tools[1])};
    if (!have[0] && !have[1]) {
        printf("SKIP refinement passes through OpenJPH/OpenJPEG: no decoder found\n");
        return;
    }
    static uint32_t sm[4096], out[4096];
    static uint8_t seg[65536], cs[70000];
    struct {
        unsigned w, h, style;
        int noise; /* < 0: sparse */
    } cases[] = {{64, 64, 0x40, 40}, {17, 33, 0x40, -1}, {64, 64, 0x48, -1},
                 {33, 47, 0x48, 128}, {5, 64, 0x48, 10}};
    unsigned found = 0, missed = 0;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        unsigned w = cases[k].w, h = cases[k].h, style = cases[k].style;
        uint8_t *img = cases[k].noise < 0 ? make_sparse(w, h)
                                          : make_image(w, h, cases[k].noise);
        for (unsigned i = 0; i < w * h; i++) {
            int v = (int)img[i] - 128;
            sm[i] = v < 0 ? (uint32_t)-v | SCI_HT_SIGN : (uint32_t)v;
        }
        for (unsigned p = 1; p <= 3; p++) {
            sci_ht_ref_lengths len;
            long n = sci_ht_encode_block_ref(&enc, sm, w, h, w, p, style, seg,
                                             sizeof seg, &len);
            for (unsigned passes = 1; passes <= 3; passes++) {
                size_t lref = passes == 3 ? len.ref : passes == 2 ? len.ref_sp : 0;
                int st = n > 0 ? decode(seg, len.cup, seg + len.cup, lref, w, h, 8,
                                        7 - p, passes, style, out, w)
                               : -1;
                for (unsigned i = 0; passes == 3 && p == 1 && i < w * h; i++) {
                    missed += out[i] != sm[i];
                    found += sm[i] && (sm[i] & 0x7FFFFFFFu) < 2 && out[i] == sm[i];
                }
                size_t csn = write_ref_stream(cs, w, h, style, seg, &len, passes, p);
                char path[256], back[256], what[256];
                snprintf(path, sizeof path, "%s/ref.j2c", workdir);
                snprintf(back, sizeof back, "%s/ref.pgm", workdir);
                for (int d = 0; d < 2; d++) {
                    if (!have[d])
                        continue;
                    remove(back);
                    char *argv[] = {(char *)tools[d], "-i", path, "-o", back, NULL};
                    int ok = st == SCI_HT_DEC_OK && write_file(path, cs, csn) == 0 &&
                             run(argv) == 0;
                    uint8_t *px = ok ? read_pgm(back, w, h) : NULL;
                    unsigned diff = px ? 0 : w * h;
                    for (unsigned i = 0; px && i < w * h; i++)
                        diff += px[i] != reconstruct(out[i], p, passes);
                    snprintf(what, sizeof what,
                             "%s decodes our %ux%u block%s at p %u with %u pass%s "
                             "as we do (%u samples differ)", tools[d], w, h,
                             style & 8 ? " (VCAUSAL)" : "", p, passes,
                             passes > 1 ? "es" : "", diff);
                    check(ok && px && diff == 0, what);
                    free(px);
                }
            }
        }
        free(img);
    }
    char what[160];
    snprintf(what, sizeof what,
             "external refinement cases exercise SigProp: %u samples of magnitude "
             "1 found, %u missed", found, missed);
    check(found > 100 && missed > 100, what);
}

/* ---- speed -------------------------------------------------------------- */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void bench(void) {
    enum { NB = 64 };
    static uint32_t sm[NB][4096], out[4096];
    static uint8_t seg[NB][20000];
    static sci_ht_ref_lengths len[NB];
    static long lc[NB];
    unsigned mbs[2] = {8, 12};
    for (int m = 0; m < 2; m++) {
        unsigned mb = mbs[m];
        size_t bytes = 0, rbytes = 0;
        for (int b = 0; b < NB; b++) {
            fill(sm[b], 4096, mb, FILL_DENSE);
            lc[b] = sci_ht_encode_block(&enc, sm[b], 64, 64, 64, seg[b], sizeof seg[b]);
            bytes += (size_t)lc[b];
        }
        double t0 = now(), t;
        unsigned reps = 0;
        do {
            for (int b = 0; b < NB; b++)
                decode(seg[b], (size_t)lc[b], NULL, 0, 64, 64, mb, mb - 1, 1, 0, out, 64);
            reps++;
            t = now() - t0;
        } while (t < 1.0);
        printf("cleanup only, dense 64x64, M_b %2u (%.2f bits/sample): %.1f Msamples/s\n",
               mb, 8.0 * (double)bytes / (NB * 4096.0),
               (double)reps * NB * 4096 / t / 1e6);
        for (int b = 0; b < NB; b++) {
            sci_ht_encode_block_ref(&enc, sm[b], 64, 64, 64, 1, 0, seg[b],
                                    sizeof seg[b], &len[b]);
            rbytes += len[b].cup + len[b].ref;
        }
        t0 = now(), reps = 0;
        do {
            for (int b = 0; b < NB; b++)
                decode(seg[b], len[b].cup, seg[b] + len[b].cup, len[b].ref, 64, 64,
                       mb, mb - 2, 3, 0, out, 64);
            reps++;
            t = now() - t0;
        } while (t < 1.0);
        printf("cleanup at p=1 + SigProp + MagRef, M_b %2u (%.2f bits/sample): "
               "%.1f Msamples/s\n", mb, 8.0 * (double)rbytes / (NB * 4096.0),
               (double)reps * NB * 4096 / t / 1e6);
    }
}

int main(int argc, char **argv) {
    int do_bench = 0, keep = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--bench"))
            do_bench = 1;
        else if (!strcmp(argv[i], "--keep"))
            keep = 1;
    }
    if (sci_ht_enc_tables_init(&enc) < 0)
        return 1;
    test_tables();
    if (do_bench) {
        bench();
        return 0;
    }
    test_limits();
    test_cleanup_roundtrips();
    test_refinement();
    test_damage();
    if (!mkdtemp(workdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_ojph_cleanup();
    test_ref_external();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", workdir);
    if (keep)
        printf("kept %s\n", workdir);
    else if (system(cmd) != 0)
        printf("could not remove %s\n", workdir);
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
