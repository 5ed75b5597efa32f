/*
 * The seismic codec's per-coefficient rules (seismic.h,
 * docs/seismic-format.md), one inline definition that codec/seismic/seismic.c and
 * cuda/seismic/seismic.cu both compile, so the backends cannot drift apart.
 */
#ifndef SCI_CODEC_SEISMIC_CORE_H
#define SCI_CODEC_SEISMIC_CORE_H

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "huffman_core.h"
#include "seismic.h"

#if defined(__CUDACC__)
#define SCI_SEIS_HD __host__ __device__
#else
#define SCI_SEIS_HD
#endif

/* The grid of the coefficients between min and max (docs/seismic-format.md,
 * "Quantization"): anchored at zero when min <= 0 <= max, so that zero is
 * a level, else at min; a grid of one level when min = max. */
static inline SCI_SEIS_HD sci_seis_grid sci_seis_grid_of(float min, float max,
                                                         unsigned bits) {
    sci_seis_grid g;
    const double range = (double)max - (double)min;
    g.min = min;
    g.zero = 0;
    g.zero_anchored = 0;
    g.step = 0.0f;
    if (range <= 0.0)
        return g;
    if (min <= 0.0f && max >= 0.0f) {
        g.zero_anchored = 1;
        g.step = (float)(range / (double)((1u << bits) - 2));
    } else {
        g.step = (float)(range / (double)((1u << bits) - 1));
    }
    /* a subnormal step would lose the step's own precision */
    if (g.step < FLT_MIN)
        g.step = FLT_MIN;
    if (g.zero_anchored)
        g.zero = (int32_t)ceil(-(double)min / (double)g.step);
    return g;
}

/* The index of coefficient c, in double arithmetic, so that it does not
 * depend on how a backend evaluates float expressions. */
static inline SCI_SEIS_HD uint32_t sci_seis_quantize_one(
    float c, const sci_seis_grid *g, uint32_t qmax) {
    double t;
    if (g->step == 0.0f)
        return 0;
    if (g->zero_anchored)
        t = floor((double)c / (double)g->step + 0.5) + (double)g->zero;
    else
        t = floor(((double)c - (double)g->min) / (double)g->step + 0.5);
    if (t < 0.0)
        return 0;
    return t > (double)qmax ? qmax : (uint32_t)t;
}

/* The decoder's coefficient of index q: a zero-anchored level is an
 * integer (exact in float) times the step, so zero comes back as zero and
 * levels around it are symmetric. */
static inline SCI_SEIS_HD float sci_seis_dequantize_one(
    uint32_t q, const sci_seis_grid *g) {
    if (g->zero_anchored)
        return (float)((int32_t)q - g->zero) * g->step;
    return fmaf((float)q, g->step, g->min);
}

/* Packages (docs/seismic-format.md, "Packages"): bits 63..58 the count of
 * Huffman codes that follow, or, from version 3, 0 for a run: bits 57..42
 * a symbol, bits 41..0 how many times it repeats (1..SCI_SEIS_RUN_MAX). */
#define SCI_SEIS_RUN_SHIFT 42u

static inline SCI_SEIS_HD int sci_seis_package_is_run(uint64_t pkg,
                                                      unsigned version) {
    return version >= 3 && (pkg >> 58) == 0;
}

static inline SCI_SEIS_HD uint32_t sci_seis_run_symbol(uint64_t pkg) {
    return (uint32_t)(pkg >> SCI_SEIS_RUN_SHIFT) & 0xFFFFu;
}

/* The symbols a package holds: 0 for one no encoder writes (a run of 0 or
 * of more than SCI_SEIS_RUN_MAX, or its unused bits set). */
static inline SCI_SEIS_HD uint32_t sci_seis_package_count(uint64_t pkg,
                                                          unsigned version) {
    if (!sci_seis_package_is_run(pkg, version))
        return (uint32_t)(pkg >> 58);
    uint64_t r = pkg & ((1ull << SCI_SEIS_RUN_SHIFT) - 1);
    return r <= SCI_SEIS_RUN_MAX ? (uint32_t)r : 0;
}

/* Version 6: the index a zero run repeats, the grid's zero (so that a
 * run comes back as 0.0f exactly), or index 0 on a grid without zero. */
static inline SCI_SEIS_HD uint32_t sci_seis_run_level(const sci_seis_grid *g) {
    return g->zero_anchored ? (uint32_t)g->zero : 0u;
}

/* The lookup tables of a canonical code (huffman.h), as either backend
 * holds them, and, where a backend has one, the pair table of version 7's
 * walks (sci_seis_pair_entries; NULL: none). */
typedef struct {
    const uint32_t *lookup, *first_code, *first_index, *sorted;
    unsigned max_len;
    const uint64_t *pairs;
} sci_seis_codebook;

/* Version 7's walks can read two short index codes with one lookup where
 * both fit in its SCI_HUFF_LOOKUP_BITS bits (most do at 12 to 16 bits:
 * codes of 4 to 6 bits), which halves a GPU thread's dependent steps.  An
 * entry of the pair table (2^SCI_HUFF_LOOKUP_BITS of them) is the first
 * code's length (bits 0-4, 0 where the code is longer than the lookup)
 * and symbol (bits 10-26), and, when the first is an index and a second
 * index code follows within the lookup's bits, that code's length (bits
 * 5-9) and symbol (bits 27-43).  Entries from on by step, from the
 * lookup table of a code whose indices are below nval. */
#define SCI_SEIS_PAIR_SYM_BITS 17

static inline SCI_SEIS_HD void sci_seis_pair_entries(const uint32_t *lookup,
                                                     uint32_t nval,
                                                     uint64_t *pairs,
                                                     unsigned from,
                                                     unsigned step) {
    const unsigned lb = SCI_HUFF_LOOKUP_BITS;
    for (unsigned v = from; v < (1u << lb); v += step) {
        const uint32_t e1 = lookup[v], l1 = e1 & 31, s1 = e1 >> 5;
        uint64_t e = 0;
        if (l1) {
            e = l1 | (uint64_t)s1 << 10;
            if (s1 < nval && l1 < lb) {
                const uint32_t e2 = lookup[(v << l1) & ((1u << lb) - 1)],
                               l2 = e2 & 31, s2 = e2 >> 5;
                if (l2 && l1 + l2 <= lb && s2 < nval)
                    e |= (uint64_t)l2 << 5 |
                         (uint64_t)s2 << (10 + SCI_SEIS_PAIR_SYM_BITS);
            }
        }
        pairs[v] = e;
    }
}

/* A version 6 code package: bits 63..58 its token count c (1..58), then c
 * tokens from bit 57 down, unused low bits 0.  A token is the code of an
 * index v < nval (one value), or the code of nval + k - 1 (k = 1..11)
 * followed by k bits b: 2^k + b values of sci_seis_run_level.  tok[j]
 * gets each index token as v << 16 | its value's place in the package
 * (room for SCI_HUFF_PACKAGE_BITS), *ntok how many; returns the
 * package's values (1..SCI_SEIS_RUN_MAX), or 0 when the package is not
 * one an encoder writes. */
static inline SCI_SEIS_HD uint32_t sci_seis_unpack_tokens(
    const sci_seis_codebook *cb, uint32_t nval, uint64_t pkg, uint32_t *tok,
    unsigned *ntok) {
    const unsigned c = (unsigned)(pkg >> SCI_HUFF_PACKAGE_BITS);
    const uint64_t bits = pkg & ((1ull << SCI_HUFF_PACKAGE_BITS) - 1);
    unsigned pos = SCI_HUFF_PACKAGE_BITS, nt = 0;
    uint32_t at = 0;
    if (!c || c > SCI_HUFF_PACKAGE_BITS || !cb->max_len)
        return 0;
    for (unsigned j = 0; j < c; j++) {
        uint32_t sym;
        if (!sci_huff_next(cb->lookup, cb->first_code, cb->first_index,
                           cb->sorted, cb->max_len, bits, &pos, &sym))
            return 0;
        if (sym < nval) {
            tok[nt++] = sym << 16 | at;
            at++;
        } else {
            const unsigned k = sym - nval + 1;
            if (k > pos)
                return 0;
            pos -= k;
            at += (1u << k) + (uint32_t)((bits >> pos) & ((1u << k) - 1));
        }
        if (at > SCI_SEIS_RUN_MAX)
            return 0;
    }
    if (pos && (bits & ((1ull << pos) - 1)))
        return 0;
    *ntok = nt;
    return at;
}

/* Version 7: 32 bits of a slice's code words from half-word h (the words
 * are little-endian, their bits taken from the most significant down, so
 * a word's high half comes first). */
static inline SCI_SEIS_HD uint32_t sci_seis_half(const uint8_t *words,
                                                 uint32_t h) {
    const uint8_t *p = words + 8 * (h >> 1) + ((h & 1) ? 0 : 4);
#if defined(__CUDA_ARCH__)
    return *(const uint32_t *)p; /* 4-byte aligned: the words are 8 */
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
#endif
}

/* Version 7: a walk's window on a slice's bits, the nb bits from the
 * walk's place on at the top of buf, zeros below them. */
typedef struct {
    const uint8_t *words;
    uint32_t h, h_end; /* the next half-word, the slice's end in them */
    uint64_t buf;
    unsigned nb;
} sci_seis_window;

/* The window of a slice of `bits` bits (a multiple of 64) at bit from. */
static inline SCI_SEIS_HD void sci_seis_window_at(sci_seis_window *r,
                                                  const uint8_t *words,
                                                  uint32_t bits,
                                                  uint32_t from) {
    r->words = words;
    r->h = from / 32;
    r->h_end = bits / 32;
    r->buf = 0;
    r->nb = 0;
    if (from < bits) {
        r->buf = (uint64_t)sci_seis_half(words, r->h++) << (32 + from % 32);
        r->nb = 32 - from % 32;
    }
}

/* At least 33 bits in the window, where the slice has them. */
static inline SCI_SEIS_HD void sci_seis_window_fill(sci_seis_window *r) {
    if (r->nb <= 32 && r->h < r->h_end) {
        r->buf |= (uint64_t)sci_seis_half(r->words, r->h++) << (32 - r->nb);
        r->nb += 32;
    }
}

/* Where a walk over a slice's tokens stopped. */
typedef struct {
    uint32_t pos;  /* the bit after the last token taken */
    uint32_t last; /* the bit the last token taken starts at */
    uint32_t at;   /* the value after the last token's */
} sci_seis_walk;

/* Version 7: the token whose symbol is sym and whose code ends at bit
 * *left of b (the bits not yet read, right-aligned), starting at bit pos
 * of its slice, as sci_seis_slice_tokens_marked takes it: a run class's
 * bits after its code read (*left moves past them), its values counted
 * from *at (which moves past them), its start marked when it is among the
 * first nmark, its value (index) or values (run, when runs is set)
 * written into coef and q (either may be NULL).  0, taking nothing, when
 * its bits or its values do not fit. */
static inline SCI_SEIS_HD int sci_seis_take_token(
    uint32_t sym, uint32_t nval, const sci_seis_grid *g, uint64_t b,
    unsigned *left, uint32_t pos, uint32_t *at, uint32_t end, float *coef,
    uint16_t *q, int runs, unsigned *taken, unsigned nmark,
    uint32_t *mark_pos, uint32_t *mark_at) {
    uint32_t r = 1;
    if (sym >= nval) {
        const unsigned k = sym - nval + 1;
        if (k > *left)
            return 0;
        *left -= k;
        r = (1u << k) + (uint32_t)((b >> *left) & ((1u << k) - 1));
    }
    if (r > end - *at)
        return 0;
    if (*taken < nmark) {
        mark_pos[*taken] = pos;
        mark_at[*taken] = *at;
    }
    (*taken)++;
    if (sym < nval) {
        if (coef)
            coef[*at] = sci_seis_dequantize_one(sym, g);
        if (q)
            q[*at] = (uint16_t)sym;
    }
    if (runs && sym >= nval) {
        const uint32_t level = sci_seis_run_level(g);
        const float level_value = sci_seis_dequantize_one(level, g);
        for (uint32_t j = 0; j < r; j++) {
            if (coef)
                coef[*at + j] = level_value;
            if (q)
                q[*at + j] = (uint16_t)level;
        }
    }
    *at += r;
    return 1;
}

/* Version 7: the tokens of a slice of `bits` bits (its words from words)
 * that start at bit `from` and on, before bit `before`, until the values
 * reach `end`, values counted from `at` (read two at once where the
 * codebook has a pair table; the same tokens): an index token's dequantized
 * value into coef and its index into q (either may be NULL), and, when
 * runs is set, a run token's
 * run level (a decoder that has put the level everywhere first leaves it
 * clear).  Returns 1 when every token taken is a code of the table that
 * ends within the slice, its values within end; else 0, having written
 * only below end.  *w says where it stopped; and, for the first nmark
 * tokens taken, mark_pos says where each starts and mark_at the value
 * before it. */
static inline SCI_SEIS_HD int sci_seis_slice_tokens_marked(
    const sci_seis_codebook *cb, uint32_t nval, const sci_seis_grid *g,
    const uint8_t *words, uint32_t bits, uint32_t from, uint32_t before,
    uint32_t at, uint32_t end, float *coef, uint16_t *q, int runs,
    sci_seis_walk *w, unsigned nmark, uint32_t *mark_pos, uint32_t *mark_at) {
    const uint32_t sym_mask = (1u << SCI_SEIS_PAIR_SYM_BITS) - 1;
    sci_seis_window r;
    uint32_t pos = from;
    unsigned taken = 0;
    sci_seis_window_at(&r, words, bits, from);
    w->last = from;
    while (pos < before && at < end) {
        sci_seis_window_fill(&r);
        /* sci_huff_next reads below bit nb of the bits right-aligned */
        const unsigned nb = r.nb;
        const uint64_t b = nb == 64 ? r.buf : r.buf >> (64 - nb);
        const uint64_t e =
            cb->pairs && nb ? cb->pairs[r.buf >> (64 - SCI_HUFF_LOOKUP_BITS)]
                            : 0;
        const unsigned l1 = (unsigned)e & 31;
        unsigned left = nb;
        uint32_t sym = (uint32_t)(e >> 10) & sym_mask;
        if (l1 > nb ||
            (!l1 && (!nb || !sci_huff_next(cb->lookup, cb->first_code,
                                           cb->first_index, cb->sorted,
                                           cb->max_len, b, &left, &sym))))
            break;
        if (l1)
            left = nb - l1;
        if (!sci_seis_take_token(sym, nval, g, b, &left, pos, &at, end, coef,
                                 q, runs, &taken, nmark, mark_pos, mark_at))
            break;
        w->last = pos;
        pos += nb - left;
        r.buf = nb - left == 64 ? 0 : r.buf << (nb - left);
        r.nb = left;
        /* a pair's second code, an index (it always fits), wherever the
         * loop would take it next */
        const unsigned l2 = (unsigned)(e >> 5) & 31;
        if (!l2 || l2 > r.nb || pos >= before || at >= end)
            continue;
        left = r.nb - l2;
        sci_seis_take_token((uint32_t)(e >> (10 + SCI_SEIS_PAIR_SYM_BITS)) &
                                sym_mask,
                            nval, g, b, &left, pos, &at, end, coef, q, runs,
                            &taken, nmark, mark_pos, mark_at);
        w->last = pos;
        pos += l2;
        r.buf <<= l2;
        r.nb = left;
    }
    w->pos = pos;
    w->at = at;
    return pos >= before || at >= end;
}

/* sci_seis_slice_tokens_marked without marks. */
static inline SCI_SEIS_HD int sci_seis_slice_tokens(
    const sci_seis_codebook *cb, uint32_t nval, const sci_seis_grid *g,
    const uint8_t *words, uint32_t bits, uint32_t from, uint32_t before,
    uint32_t at, uint32_t end, float *coef, uint16_t *q, int runs,
    sci_seis_walk *w) {
    return sci_seis_slice_tokens_marked(cb, nval, g, words, bits, from,
                                        before, at, end, coef, q, runs, w, 0,
                                        NULL, NULL);
}

/* Version 7: whether a slice's bits from `from` to its end (`bits`) are
 * all 0. */
static inline SCI_SEIS_HD int sci_seis_slice_zero(const uint8_t *words,
                                                  uint32_t from,
                                                  uint32_t bits) {
    uint32_t h = from / 32;
    if (from % 32 && h < bits / 32 &&
        (uint32_t)(sci_seis_half(words, h++) << (from % 32)))
        return 0;
    for (; h < bits / 32; h++)
        if (sci_seis_half(words, h))
            return 0;
    return 1;
}

/* Version 7: the bits of slice s of a frame of nwords code words. */
static inline SCI_SEIS_HD uint32_t sci_seis_slice_bits(uint32_t nwords,
                                                       uint32_t s) {
    const uint32_t left = nwords - s * SCI_SEIS_SLICE_WORDS;
    return 64 * (left < SCI_SEIS_SLICE_WORDS ? left : SCI_SEIS_SLICE_WORDS);
}

/* Version 7, slice s of a frame of `nwords` code words whose values run
 * from first to end (docs/seismic-format.md, "Slices"), decoded in order
 * from its first bit (sci_seis_slice_tokens), runs written as the run
 * level.  Returns 1 when its tokens decode, reach end exactly with a token
 * that starts in the slice's last SCI_SEIS_LAST_TOKEN_BITS bits, and
 * every bit after them is 0; else 0, having written only within [first,
 * end). */
static inline SCI_SEIS_HD int sci_seis_decode_slice(
    const sci_seis_codebook *cb, uint32_t nval, const sci_seis_grid *g,
    const uint8_t *words, uint32_t nwords, uint32_t s, uint32_t first,
    uint32_t end, float *coef, uint16_t *q) {
    const uint8_t *ws = words + 8 * (size_t)s * SCI_SEIS_SLICE_WORDS;
    const uint32_t bits = sci_seis_slice_bits(nwords, s);
    sci_seis_walk w;
    return sci_seis_slice_tokens(cb, nval, g, ws, bits, 0, bits, first, end,
                                 coef, q, 1, &w) &&
           w.at == end && w.last + SCI_SEIS_LAST_TOKEN_BITS >= bits &&
           sci_seis_slice_zero(ws, w.pos, bits);
}

#endif
