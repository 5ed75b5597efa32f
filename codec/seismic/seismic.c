/*
 * The seismic codec's C reference and CPU backend (seismic.h); the frame
 * is defined in docs/seismic-format.md.
 */
#include "seismic.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "table.h"

#include "codec/common/crc32.h"
#include "codec/j2k/dwt.h"
#include "huffman.h"
#include "seismic_core.h"

/* zstd level of the code-length table: tables are at most 64 KiB and most
 * of their bytes are the zero runs of unused symbols; higher levels gain
 * little and cost milliseconds a gather at 16 bits. */
#define TABLE_ZSTD_LEVEL 9

/* ---- little-endian fields ---------------------------------------------- */

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint64_t get64(const uint8_t *p) {
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put64(uint8_t *p, uint64_t v) {
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static float get_f32(const uint8_t *p) {
    uint32_t u = get32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void put_f32(uint8_t *p, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    put32(p, u);
}

static size_t align8(size_t n) {
    return (n + 7) & ~(size_t)7;
}

/* ---- parameters --------------------------------------------------------- */

const char *sci_seis_params_check(const sci_seis_params *p) {
    if (!p)
        return "no parameters";
    if (p->bits < SCI_SEIS_MIN_BITS || p->bits > SCI_SEIS_MAX_BITS)
        return "bits must be 2..16";
    if (p->levels > SCI_SEIS_MAX_LEVELS)
        return "levels must be 0..8";
    if (p->traces < 1 || p->traces > SCI_SEIS_MAX_TRACES)
        return "traces must be 1..16777216";
    if (p->samples < 1 || p->samples > SCI_SEIS_MAX_SAMPLES)
        return "samples must be 1..65535";
    if ((uint64_t)p->traces * p->samples > SCI_SEIS_MAX_VALUES)
        return "traces x samples must be at most 2^28";
    if (p->version && (p->version < 3 || p->version > SCI_SEIS_VERSION))
        return "version must be 3..7 (or 0: the newest)";
    return NULL;
}

uint32_t sci_seis_alphabet(unsigned version, unsigned bits) {
    return (1u << bits) + (version >= 6 ? SCI_SEIS_ZRUN_CLASSES : 0);
}

/* Version 6's blocks of SCI_SEIS_BLOCK_PACKAGES packages, version 7's
 * slices of SCI_SEIS_SLICE_WORDS code words; none before version 6. */
static size_t blocks_of(unsigned version, size_t packages) {
    const size_t group =
        version >= 7 ? SCI_SEIS_SLICE_WORDS : SCI_SEIS_BLOCK_PACKAGES;
    return version >= 6 ? (packages + group - 1) / group : 0;
}

/* The blocks' (slices') firsts: 4 bytes for each but the first. */
static size_t firsts_bytes(unsigned version, size_t packages) {
    const size_t blocks = blocks_of(version, packages);
    return blocks ? 4 * (blocks - 1) : 0;
}

/* Every value takes at most one package (a package holds at least one
 * whole code), so n values take at most n packages; and at most one code
 * word in version 7 (a token of at most SCI_SEIS_CODE_LIMIT bits a value,
 * and under 32 bits of padding a slice). */
size_t sci_seis_frame_bound(const sci_seis_params *p, size_t meta_len) {
    size_t n = (size_t)p->traces * p->samples;
    size_t table = ZSTD_compressBound((size_t)1 << p->bits);
    for (unsigned v = 4; v <= SCI_SEIS_VERSION; v++)
        if (sci_seis_table_bound(sci_seis_alphabet(v, p->bits), v) > table)
            table = sci_seis_table_bound(sci_seis_alphabet(v, p->bits), v);
    return align8(SCI_SEIS_HEADER_BYTES + meta_len + table) + 8 * n +
           firsts_bytes(SCI_SEIS_VERSION, n) + 4;
}

/* ---- encoder ------------------------------------------------------------ */

/* Below this many values a loop runs on the calling thread. */
#define PAR_MIN 65536

/* A region over the values of a gather; per-worker results combined by
 * the caller in worker order (they are exact: indices, minima, maxima). */
typedef struct {
    const float *v;
    uint16_t *q;
    const sci_seis_grid *g;
    uint32_t qmax;
    size_t first[SCI_POOL_MAX_THREADS];
    float lo[SCI_POOL_MAX_THREADS], hi[SCI_POOL_MAX_THREADS];
} values_args;

static void first_nonfinite(void *arg, size_t b, size_t e, unsigned wk) {
    values_args *a = arg;
    for (size_t i = b; i < e && i < a->first[wk]; i++)
        if (!isfinite(a->v[i])) {
            a->first[wk] = i;
            break;
        }
}

static int find_nonfinite(sci_pool *pool, const float *v, size_t n,
                          size_t *bad) {
    sci_pool *par = sci_pool_if(pool, n >= PAR_MIN);
    values_args *a = par ? malloc(sizeof *a) : NULL;
    size_t first = n;
    if (a) {
        a->v = v;
        for (unsigned t = 0; t < sci_pool_threads(par); t++)
            a->first[t] = n;
        sci_pool_for(par, n, 0, first_nonfinite, a);
        for (unsigned t = 0; t < sci_pool_threads(par); t++)
            first = a->first[t] < first ? a->first[t] : first;
        free(a);
    } else {
        for (size_t i = 0; i < n && first == n; i++)
            if (!isfinite(v[i]))
                first = i;
    }
    if (first == n)
        return 0;
    if (bad)
        *bad = first;
    return 1;
}

static void value_range(void *arg, size_t b, size_t e, unsigned wk) {
    values_args *a = arg;
    float lo = a->lo[wk], hi = a->hi[wk];
    for (size_t i = b; i < e; i++) {
        lo = a->v[i] < lo ? a->v[i] : lo;
        hi = a->v[i] > hi ? a->v[i] : hi;
    }
    a->lo[wk] = lo, a->hi[wk] = hi;
}

static void quantize_values(void *arg, size_t b, size_t e, unsigned wk) {
    const values_args *a = arg;
    for (size_t i = b; i < e; i++)
        a->q[i] = (uint16_t)sci_seis_quantize_one(a->v[i], a->g, a->qmax);
}

/* Each inverse level gives a sample at most its low-band value plus three
 * detail values (the rows' and then the columns' synthesis sum |weights|
 * to 1 for either band), so the output is at most (1 + 3 L) times the
 * largest level; a factor 2 covers the lifting's rounding.  Without levels
 * the output is a level itself, rounded once: it fits when the level
 * does. */
int sci_seis_grid_fits(const sci_seis_grid *g, const sci_seis_params *p) {
    const uint32_t qmax = (1u << p->bits) - 1;
    double top;
    if (g->zero_anchored)
        top = (double)g->step * (double)(g->zero > (int32_t)qmax - g->zero
                                             ? g->zero
                                             : (int32_t)qmax - g->zero);
    else
        top = fmax(fabs((double)g->min),
                   fabs((double)g->min + (double)qmax * g->step));
    unsigned l = sci_dwt_used_levels(p->samples, p->traces, p->levels);
    if (l == 0)
        return top <= (double)FLT_MAX;
    return top * (1.0 + 3.0 * l) * 2.0 <= (double)FLT_MAX;
}

int sci_seis_quantize(sci_pool *pool, const sci_seis_params *p,
                      const float *gather, uint16_t *q, sci_seis_grid *grid,
                      size_t *bad_index) {
    if (sci_seis_params_check(p) || !gather || !q || !grid)
        return SCI_SEIS_E_ARG;
    const size_t n = (size_t)p->traces * p->samples;
    const uint32_t qmax = (1u << p->bits) - 1;
    if (find_nonfinite(pool, gather, n, bad_index))
        return SCI_SEIS_E_VALUE;
    float *coef = malloc(n * sizeof *coef);
    values_args *a = malloc(sizeof *a);
    if (!coef || !a) {
        free(coef);
        free(a);
        return SCI_SEIS_E_NOMEM;
    }
    memcpy(coef, gather, n * sizeof *coef);
    if (sci_dwt53f_forward(pool, coef, p->samples, p->traces, p->samples,
                           p->levels)) {
        free(coef);
        free(a);
        return SCI_SEIS_E_NOMEM;
    }
    /* finite samples can still overflow the transform near FLT_MAX */
    if (find_nonfinite(pool, coef, n, NULL)) {
        if (bad_index)
            *bad_index = n;
        free(coef);
        free(a);
        return SCI_SEIS_E_VALUE;
    }
    sci_pool *par = sci_pool_if(pool, n >= PAR_MIN);
    a->v = coef;
    for (unsigned t = 0; t < sci_pool_threads(par); t++)
        a->lo[t] = a->hi[t] = coef[0];
    sci_pool_for(par, n, 0, value_range, a);
    float lo = a->lo[0], hi = a->hi[0];
    for (unsigned t = 1; t < sci_pool_threads(par); t++) {
        lo = a->lo[t] < lo ? a->lo[t] : lo;
        hi = a->hi[t] > hi ? a->hi[t] : hi;
    }
    /* +0.0f makes a minimum or maximum of -0 a +0, whichever zero the
     * reduction met first: the frame's bytes must not depend on it */
    const sci_seis_grid g = sci_seis_grid_of(lo + 0.0f, hi + 0.0f, p->bits);
    if (!sci_seis_grid_fits(&g, p)) {
        if (bad_index)
            *bad_index = n;
        free(coef);
        free(a);
        return SCI_SEIS_E_VALUE;
    }
    a->q = q;
    a->g = &g;
    a->qmax = qmax;
    sci_pool_for(par, n, 0, quantize_values, a);
    free(coef);
    free(a);
    *grid = g;
    return 0;
}

/* The header's bytes 20..23 and the flags of a grid. */
static int grid_valid(const sci_seis_grid *g, unsigned bits) {
    if (!isfinite(g->step) || !(g->step >= 0.0f))
        return 0;
    if (g->zero_anchored)
        return g->step > 0.0f && g->zero >= 0 &&
               g->zero <= (int32_t)((1u << bits) - 1);
    return isfinite(g->min);
}

int sci_seis_encode_indices(const sci_seis_params *p, const uint16_t *q,
                            const sci_seis_grid *grid, const uint8_t *meta,
                            size_t meta_len, uint8_t *out, size_t cap,
                            size_t *out_len) {
    return sci_seis_encode_indices_version(
        p, q, grid, meta, meta_len, p && p->version ? p->version
                                                    : SCI_SEIS_VERSION,
        out, cap, out_len);
}

/* Versions 3 to 5: every maximal run of SCI_SEIS_RUN_MIN equal symbols or
 * more in run packages, the symbols between in code packages (a new one
 * after each stretch between runs).  The Huffman code is that of the
 * symbols outside the runs (a code of the first run's symbol alone when
 * every symbol is in one).  The packages into pkg; their count, or an
 * error code. */
static long packages_v3(const uint32_t *sym, size_t n, unsigned nsym,
                        uint8_t *len, sci_huff_code *code, uint64_t *pkg) {
    long np = -1;
    uint64_t *freq = calloc(nsym, sizeof *freq);
    /* run_end[i]: where the run starting at i ends, for runs that go into
     * run packages; else i */
    size_t *run_end = malloc(n * sizeof *run_end);
    if (!freq || !run_end) {
        np = SCI_SEIS_E_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < n;) {
        size_t e = i + 1;
        while (e < n && sym[e] == sym[i])
            e++;
        int run = e - i >= SCI_SEIS_RUN_MIN;
        for (size_t k = i; k < e; k++)
            run_end[k] = run ? e : k;
        if (!run)
            freq[sym[i]] += e - i;
        i = e;
    }
    int any = 0;
    for (unsigned k = 0; k < nsym && !any; k++)
        any = freq[k] != 0;
    if (!any)
        freq[sym[0]] = 1;
    int err = sci_huff_lengths(freq, nsym, SCI_SEIS_CODE_LIMIT, len);
    if (err == 0)
        err = sci_huff_build(len, nsym, code);
    if (err) {
        np = err == SCI_HUFF_E_NOMEM ? SCI_SEIS_E_NOMEM : SCI_SEIS_E_ARG;
        goto out;
    }
    np = 0;
    for (size_t i = 0; i < n;) {
        if (run_end[i] > i) {
            for (size_t r = run_end[i] - i; r;) {
                size_t take = r < SCI_SEIS_RUN_MAX ? r : SCI_SEIS_RUN_MAX;
                pkg[np++] = (uint64_t)sym[i] << SCI_SEIS_RUN_SHIFT | take;
                r -= take;
            }
            i = run_end[i];
            continue;
        }
        size_t e = i;
        while (e < n && run_end[e] == e)
            e++;
        long k = sci_huff_pack(code, sym + i, e - i, pkg + np, NULL,
                               n - (size_t)np);
        if (k < 0) {
            np = SCI_SEIS_E_ARG;
            goto out;
        }
        np += k;
        i = e;
    }
out:
    free(freq);
    free(run_end);
    return np;
}

static unsigned floor_log2(uint32_t v) {
    unsigned k = 0;
    while (v >>= 1)
        k++;
    return k;
}

/* An estimate of the bits of f codes of a symbol among `total`: a
 * Huffman code takes at least a bit. */
static double code_bits(double f, double total) {
    if (f <= 0)
        return 0;
    const double b = log2(total / f);
    return f * (b > 1 ? b : 1);
}

/* No zero runs: the level's runs all as single indices. */
#define ZRUN_NEVER (SCI_SEIS_ZRUN_MAX + 1)

/* Zero runs are coded only where they save more than 1 - ZRUN_WORTH of a
 * frame's estimated code bits. */
#define ZRUN_WORTH 0.99

/* Below this many indices in use, the choice of the shortest zero run
 * weighs each candidate's code exactly: there a symbol more (a rare run
 * class) can lengthen a frequent index's code by a bit. */
#define ZRUN_EXACT_USED 256

/* What one scan of a gather's indices tells a version 6 encoder: the
 * other indices' counts outside run packages (freq, over the alphabet),
 * and the level's runs as the tokens split them: `pieces` whole runs of
 * SCI_SEIS_ZRUN_MAX and rest[r] rests of r. */
typedef struct {
    uint64_t *freq;
    uint64_t *rest;
    uint64_t pieces;
} zrun_scan;

/* The level's share of the symbol frequencies when runs of m or more are
 * coded (ZRUN_NEVER: none): single levels, each class's runs, and the
 * runs' bits past their codes. */
static void zrun_counts(const zrun_scan *z, uint32_t m, uint64_t *single,
                        uint64_t cls[SCI_SEIS_ZRUN_CLASSES + 1],
                        double *extra) {
    memset(cls, 0, (SCI_SEIS_ZRUN_CLASSES + 1) * sizeof *cls);
    *single = 0;
    *extra = 0;
    if (m == ZRUN_NEVER) {
        *single = z->pieces * SCI_SEIS_ZRUN_MAX;
    } else {
        cls[SCI_SEIS_ZRUN_CLASSES] = z->pieces;
        *extra = (double)SCI_SEIS_ZRUN_CLASSES * (double)z->pieces;
    }
    for (uint32_t r = 1; r < SCI_SEIS_ZRUN_MAX; r++) {
        if (!z->rest[r])
            continue;
        if (r < m) {
            *single += (uint64_t)r * z->rest[r];
        } else {
            const unsigned k = floor_log2(r);
            cls[k] += z->rest[r];
            *extra += (double)k * (double)z->rest[r];
        }
    }
}

/* The shortest run of the level worth a zero-run code.  Where the level
 * is rare next to the other indices, runs of two cost more in the code
 * than two single levels, and splitting the level's frequency between the
 * single and the run symbols lengthens its codes.  Each candidate's
 * symbol frequencies follow from the scan exactly; the one of the fewest
 * bits is taken: each symbol's frequency times its ideal code length (at
 * least a bit), or, in a small alphabet, times its length in the Huffman
 * code of those frequencies; plus the runs' bits past their codes.  len
 * is scratch (nsym bytes). */
static uint32_t shortest_zero_run(const zrun_scan *z, unsigned bits,
                                  uint32_t level, uint8_t *len) {
    static const uint32_t cand[] = {2,  3,  4,  5,  6,  8,         12,
                                    16, 24, 32, 64, ZRUN_NEVER};
    const uint32_t nval = 1u << bits, nsym = sci_seis_alphabet(6, bits);
    uint64_t *freq = z->freq;
    double other = 0, other_log = 0, other_max = 0;
    unsigned used = 0;
    for (uint32_t v = 0; v < nval; v++)
        if (freq[v]) {
            other += (double)freq[v];
            other_log += (double)freq[v] * log2((double)freq[v]);
            other_max = (double)freq[v] > other_max ? (double)freq[v]
                                                    : other_max;
            used++;
        }
    const int exact = used + SCI_SEIS_ZRUN_CLASSES + 1 <= ZRUN_EXACT_USED;
    uint32_t best = 2;
    double best_bits = 0;
    for (unsigned c = 0; c < sizeof cand / sizeof *cand; c++) {
        const uint32_t m = cand[c];
        uint64_t single, cls[SCI_SEIS_ZRUN_CLASSES + 1];
        double bits_of;
        zrun_counts(z, m, &single, cls, &bits_of);
        if (exact) {
            const uint64_t keep = freq[level];
            freq[level] += single;
            int any = 0;
            for (unsigned k = 1; k <= SCI_SEIS_ZRUN_CLASSES; k++)
                freq[nval + k - 1] = cls[k];
            for (uint32_t v = 0; v < nsym && !any; v++)
                any = freq[v] != 0;
            const int ok = any && sci_huff_lengths(freq, nsym,
                                                   SCI_SEIS_CODE_LIMIT,
                                                   len) == 0;
            for (uint32_t v = 0; ok && v < nsym; v++)
                bits_of += (double)freq[v] * len[v];
            freq[level] = keep;
            for (unsigned k = 1; k <= SCI_SEIS_ZRUN_CLASSES; k++)
                freq[nval + k - 1] = 0;
            if (!ok)
                continue;
        } else {
            double total = other + (double)single;
            for (unsigned k = 1; k <= SCI_SEIS_ZRUN_CLASSES; k++)
                total += (double)cls[k];
            if (total <= 0)
                continue;
            /* the other indices: sum f log2(total / f), the largest at
             * least a bit a code */
            bits_of += other * log2(total) - other_log;
            if (other_max * 2 > total)
                bits_of += code_bits(other_max, total) -
                           other_max * log2(total / other_max);
            bits_of += code_bits((double)single, total);
            for (unsigned k = 1; k <= SCI_SEIS_ZRUN_CLASSES; k++)
                bits_of += code_bits((double)cls[k], total);
        }
        if (c == 0 || bits_of < best_bits) {
            best = m;
            best_bits = bits_of;
        }
        /* the last candidate, none: kept unless runs save a hundredth,
         * since a frame without zero runs decodes faster on a GPU
         * (version 6: its packages are version 5's; version 7: no launch
         * puts the run level everywhere first) */
        if (m == ZRUN_NEVER && best != ZRUN_NEVER &&
            bits_of * ZRUN_WORTH <= best_bits)
            best = ZRUN_NEVER;
    }
    return best;
}

/* Version 6's packages as they fill: a code package takes tokens while
 * their codes and bits fit in 58 bits and their values in
 * SCI_SEIS_RUN_MAX; each block of SCI_SEIS_BLOCK_PACKAGES packages but the
 * first notes its first value.  Version 7's code words (sliced): the
 * tokens one after another, a token that would cross into the next slice
 * moved to its start (the bits it leaves are 0), each slice but the first
 * noting its first value. */
typedef struct {
    const sci_huff_code *code;
    uint64_t *pkg;
    uint32_t *firsts;
    long np;
    uint64_t acc;
    unsigned used, count;
    uint32_t values, first; /* the open package's; sliced: the next token's */
    int sliced;
    uint64_t bits; /* sliced: written so far */
} packer;

/* Sliced: the l low bits of v (l < 64) after those written. */
static inline void slice_bits(packer *k, uint64_t v, unsigned l) {
    const unsigned room = 64 - k->used;
    if (l < room) {
        k->acc = k->acc << l | v;
        k->used += l;
    } else {
        k->pkg[k->np++] = k->acc << room | v >> (l - room);
        k->used = l - room;
        k->acc = v & ((1ull << k->used) - 1);
    }
    k->bits += l;
}

static inline void slice_token(packer *k, uint32_t s, unsigned kb,
                               uint32_t b, uint32_t values) {
    const unsigned l = k->code->len[s] + kb;
    const unsigned in = (unsigned)(k->bits % SCI_SEIS_SLICE_BITS);
    if (in + l > SCI_SEIS_SLICE_BITS)
        slice_bits(k, 0, SCI_SEIS_SLICE_BITS - in);
    if (k->bits && k->bits % SCI_SEIS_SLICE_BITS == 0)
        k->firsts[k->bits / SCI_SEIS_SLICE_BITS - 1] = k->first;
    slice_bits(k, (uint64_t)k->code->code[s] << kb | b, l);
    k->first += values;
}

static inline void pack_put(packer *k, uint64_t word, uint32_t values) {
    if (k->np % SCI_SEIS_BLOCK_PACKAGES == 0 && k->np)
        k->firsts[k->np / SCI_SEIS_BLOCK_PACKAGES - 1] = k->first;
    k->pkg[k->np++] = word;
    k->first += values;
}

static inline void pack_close(packer *k) {
    if (k->sliced) {
        if (k->used)
            k->pkg[k->np++] = k->acc << (64 - k->used);
        k->used = 0;
        return;
    }
    if (!k->count)
        return;
    pack_put(k,
             (uint64_t)k->count << SCI_HUFF_PACKAGE_BITS |
                 k->acc << (SCI_HUFF_PACKAGE_BITS - k->used),
             k->values);
    k->acc = 0;
    k->used = k->count = 0;
    k->values = 0;
}

/* A token: symbol s's code, then `kb` bits b; `values` values. */
static inline void pack_token(packer *k, uint32_t s, unsigned kb, uint32_t b,
                       uint32_t values) {
    if (k->sliced) {
        slice_token(k, s, kb, b, values);
        return;
    }
    const unsigned l = k->code->len[s] + kb;
    if (k->count == SCI_HUFF_PACKAGE_BITS ||
        k->used + l > SCI_HUFF_PACKAGE_BITS ||
        k->values + values > SCI_SEIS_RUN_MAX)
        pack_close(k);
    k->acc = (k->acc << k->code->len[s] | k->code->code[s]) << kb | b;
    k->used += l;
    k->count++;
    k->values += values;
}

/* Versions 6 and 7 (docs/seismic-format.md, "Zero runs", "Slices"): runs
 * of the level of the chosen shortest or more as run tokens of at most
 * SCI_SEIS_ZRUN_MAX (a rest shorter as single levels), in version 6 other
 * runs of SCI_SEIS_RUN_MIN or more as run packages, the rest index by
 * index; the code of those tokens into len and code, the packages (code
 * words) into pkg and the blocks' (slices') firsts into firsts.  The
 * packages' (words') count, or an error code. */
static long packages_v6(const uint16_t *q, size_t n, unsigned bits,
                        uint32_t level, unsigned version, uint8_t *len,
                        sci_huff_code *code, uint64_t *pkg, uint32_t *firsts,
                        int *zero_runs) {
    const int sliced = version >= 7;
    const uint32_t nval = 1u << bits;
    const unsigned nsym = sci_seis_alphabet(6, bits);
    long np = SCI_SEIS_E_NOMEM;
    zrun_scan z = {calloc(nsym, sizeof(uint64_t)),
                   calloc(SCI_SEIS_ZRUN_MAX, sizeof(uint64_t)), 0};
    if (!z.freq || !z.rest)
        goto out;
    for (size_t i = 0; i < n;) {
        size_t e = i + 1;
        while (e < n && q[e] == q[i])
            e++;
        const size_t r = e - i;
        if (q[i] == level) {
            if (r >= SCI_SEIS_ZRUN_MAX) {
                z.pieces += r / SCI_SEIS_ZRUN_MAX;
                z.rest[r % SCI_SEIS_ZRUN_MAX]++;
            } else {
                z.rest[r]++;
            }
        } else if (r < SCI_SEIS_RUN_MIN || sliced) {
            z.freq[q[i]] += r;
        }
        i = e;
    }
    z.rest[0] = 0; /* runs of whole pieces */
    const uint32_t m = shortest_zero_run(&z, bits, level, len);
    {
        uint64_t single, cls[SCI_SEIS_ZRUN_CLASSES + 1];
        double extra;
        zrun_counts(&z, m, &single, cls, &extra);
        z.freq[level] += single;
        *zero_runs = 0;
        for (unsigned k = 1; k <= SCI_SEIS_ZRUN_CLASSES; k++) {
            z.freq[nval + k - 1] = cls[k];
            *zero_runs |= cls[k] != 0;
        }
    }
    int any = 0;
    for (uint32_t v = 0; v < nsym && !any; v++)
        any = z.freq[v] != 0;
    if (!any) /* every index in run packages */
        z.freq[q[0]] = 1;
    int err = sci_huff_lengths(z.freq, nsym, SCI_SEIS_CODE_LIMIT, len);
    if (err == 0)
        err = sci_huff_build(len, nsym, code);
    if (err) {
        np = err == SCI_HUFF_E_NOMEM ? SCI_SEIS_E_NOMEM : SCI_SEIS_E_ARG;
        goto out;
    }
    packer k = {code, pkg, firsts, 0, 0, 0, 0, 0, 0, sliced, 0};
    for (size_t i = 0; i < n;) {
        size_t e = i + 1;
        while (e < n && q[e] == q[i])
            e++;
        size_t r = e - i;
        if (q[i] == level) {
            for (; r >= m;) {
                const uint32_t take =
                    r < SCI_SEIS_ZRUN_MAX ? (uint32_t)r : SCI_SEIS_ZRUN_MAX;
                const unsigned kb = floor_log2(take);
                pack_token(&k, nval + kb - 1, kb, take - (1u << kb), take);
                r -= take;
            }
            for (; r; r--)
                pack_token(&k, level, 0, 0, 1);
        } else if (r >= SCI_SEIS_RUN_MIN && !sliced) {
            pack_close(&k);
            for (; r;) {
                const uint32_t take =
                    r < SCI_SEIS_RUN_MAX ? (uint32_t)r : SCI_SEIS_RUN_MAX;
                pack_put(&k, (uint64_t)q[i] << SCI_SEIS_RUN_SHIFT | take,
                         take);
                r -= take;
            }
        } else {
            for (; r; r--)
                pack_token(&k, q[i], 0, 0, 1);
        }
        i = e;
    }
    pack_close(&k);
    np = k.np;
out:
    free(z.freq);
    free(z.rest);
    return np;
}

int sci_seis_encode_indices_version(const sci_seis_params *p,
                                    const uint16_t *q,
                                    const sci_seis_grid *grid,
                                    const uint8_t *meta, size_t meta_len,
                                    unsigned version, uint8_t *out,
                                    size_t cap, size_t *out_len) {
    if (sci_seis_params_check(p) || !q || !grid || !out || !out_len ||
        meta_len > SCI_SEIS_MAX_META || (meta_len && !meta) ||
        !grid_valid(grid, p->bits) || version < 3 ||
        version > SCI_SEIS_VERSION)
        return SCI_SEIS_E_ARG;
    const size_t n = (size_t)p->traces * p->samples;
    const unsigned nval = 1u << p->bits;
    const unsigned nsym = sci_seis_alphabet(version, p->bits);
    int err = SCI_SEIS_E_NOMEM;
    /* versions 3 to 5 pack 32-bit symbols (sci_huff_pack) */
    uint32_t *sym = version < 6 ? malloc(n * sizeof *sym) : NULL;
    uint64_t *pkg = malloc(n * sizeof *pkg);
    uint8_t *len = malloc(nsym);
    uint32_t *firsts = malloc(firsts_bytes(version, n) + 4);
    sci_huff_code code = {0};
    if ((version < 6 && !sym) || !pkg || !len || !firsts)
        goto out;
    for (size_t i = 0; i < n; i++) {
        if (q[i] >= nval) {
            err = SCI_SEIS_E_ARG;
            goto out;
        }
        if (sym)
            sym[i] = q[i];
    }
    /* the frame stores no first indices before version 6: a decoder sums
     * the counts */
    int zero_runs = 0;
    long np = version >= 6 ? packages_v6(q, n, p->bits,
                                         sci_seis_run_level(grid), version,
                                         len, &code, pkg, firsts, &zero_runs)
                           : packages_v3(sym, n, nsym, len, &code, pkg);
    if (np < 0) {
        err = (int)np;
        goto out;
    }

    size_t table_off = SCI_SEIS_HEADER_BYTES + meta_len;
    if (cap < table_off) {
        err = SCI_SEIS_E_ROOM;
        goto out;
    }
    size_t zlen;
    if (version >= 4) {
        const size_t room = sci_seis_table_bound(nsym, version);
        zlen = sci_seis_table_write(len, nsym, version, out + table_off,
                                    cap - table_off < room ? cap - table_off
                                                           : room);
    } else {
        zlen = ZSTD_compress(out + table_off, cap - table_off, len, nsym,
                             TABLE_ZSTD_LEVEL);
        zlen = ZSTD_isError(zlen) ? 0 : zlen;
    }
    if (!zlen) {
        err = SCI_SEIS_E_ROOM;
        goto out;
    }
    size_t pkg_off = align8(table_off + zlen);
    size_t nfirst = firsts_bytes(version, (size_t)np) / 4;
    size_t total = pkg_off + 8 * (size_t)np + 4 * nfirst + 4;
    if (total > cap) {
        err = SCI_SEIS_E_ROOM;
        goto out;
    }

    uint8_t *h = out;
    memcpy(h, "SEIS", 4);
    h[4] = (uint8_t)version;
    h[5] = (uint8_t)p->bits;
    h[6] = (uint8_t)p->levels;
    h[7] = (uint8_t)code.max_len;
    put32(h + 8, p->traces);
    put32(h + 12, p->samples);
    put32(h + 16, p->sample_interval_us);
    if (grid->zero_anchored)
        put32(h + 20, (uint32_t)grid->zero);
    else
        put_f32(h + 20, grid->min);
    put_f32(h + 24, grid->step);
    put32(h + 28, (uint32_t)zlen);
    put32(h + 32, (uint32_t)np);
    put32(h + 36, (uint32_t)meta_len);
    put32(h + 40, (grid->zero_anchored ? SCI_SEIS_FLAG_ZERO : 0) |
                      (zero_runs ? SCI_SEIS_FLAG_ZRUNS : 0));
    put32(h + 44, sci_crc32(0, h, 44));
    if (meta_len)
        memcpy(out + SCI_SEIS_HEADER_BYTES, meta, meta_len);
    memset(out + table_off + zlen, 0, pkg_off - table_off - zlen);
    for (long i = 0; i < np; i++)
        put64(out + pkg_off + 8 * (size_t)i, pkg[i]);
    for (size_t b = 0; b < nfirst; b++)
        put32(out + pkg_off + 8 * (size_t)np + 4 * b, firsts[b]);
    put32(out + total - 4, sci_crc32(0, out, total - 4));
    *out_len = total;
    err = 0;
out:
    sci_huff_free(&code);
    free(sym);
    free(pkg);
    free(len);
    free(firsts);
    return err;
}

int sci_seis_encode(sci_pool *pool, const sci_seis_params *p,
                    const float *gather, const uint8_t *meta, size_t meta_len,
                    uint8_t *out, size_t cap, size_t *out_len,
                    size_t *bad_index) {
    if (sci_seis_params_check(p) || !gather || !out || !out_len ||
        meta_len > SCI_SEIS_MAX_META || (meta_len && !meta))
        return SCI_SEIS_E_ARG;
    const size_t n = (size_t)p->traces * p->samples;
    uint16_t *q = malloc(n * sizeof *q);
    if (!q)
        return SCI_SEIS_E_NOMEM;
    sci_seis_grid grid;
    int err = sci_seis_quantize(pool, p, gather, q, &grid, bad_index);
    if (!err)
        err = sci_seis_encode_indices(p, q, &grid, meta, meta_len, out, cap,
                                      out_len);
    free(q);
    return err;
}

/* ---- decoder ------------------------------------------------------------ */

/* The most bytes a version's code table takes. */
static size_t table_room(unsigned version, unsigned bits) {
    return version >= 4 ? sci_seis_table_bound(
                              sci_seis_alphabet(version, bits), version)
                        : ZSTD_compressBound((size_t)1 << bits);
}

/* Header fields into info; frame_len from them.  The header's own CRC lets
 * a stream splitter trust the length before it has the whole frame. */
static int parse_header(const uint8_t *h, sci_seis_info *info) {
    if (memcmp(h, "SEIS", 4) != 0)
        return SCI_SEIS_E_MAGIC;
    if (h[4] < SCI_SEIS_VERSION_OLDEST || h[4] > SCI_SEIS_VERSION)
        return SCI_SEIS_E_VERSION;
    if (get32(h + 44) != sci_crc32(0, h, 44))
        return SCI_SEIS_E_HEADER;
    memset(info, 0, sizeof *info);
    info->version = h[4];
    info->p.bits = h[5];
    info->p.levels = h[6];
    info->max_len = h[7];
    info->p.traces = get32(h + 8);
    info->p.samples = get32(h + 12);
    info->p.sample_interval_us = get32(h + 16);
    const uint32_t flags = get32(h + 40);
    info->grid.zero_anchored = (flags & SCI_SEIS_FLAG_ZERO) != 0;
    info->zero_runs = (flags & SCI_SEIS_FLAG_ZRUNS) != 0;
    if (info->grid.zero_anchored)
        info->grid.zero = (int32_t)get32(h + 20);
    else
        info->grid.min = get_f32(h + 20);
    info->grid.step = get_f32(h + 24);
    info->table_len = get32(h + 28);
    info->packages = get32(h + 32);
    info->meta_len = get32(h + 36);
    if (sci_seis_params_check(&info->p))
        return SCI_SEIS_E_HEADER;
    size_t n = (size_t)info->p.traces * info->p.samples;
    /* the most symbols a package holds; version 7, a code word: 64 bits
     * of the longest zero runs, SCI_SEIS_ZRUN_MAX values in a token of at
     * least 1 + SCI_SEIS_ZRUN_CLASSES bits */
    size_t most = info->version >= 7
                      ? 64 * SCI_SEIS_ZRUN_MAX / (SCI_SEIS_ZRUN_CLASSES + 1)
                  : info->version >= 3 ? SCI_SEIS_RUN_MAX
                                       : SCI_HUFF_PACKAGE_BITS;
    if (info->max_len < 1 || info->max_len > SCI_HUFF_MAX_LEN ||
        !grid_valid(&info->grid, info->p.bits) || info->table_len < 1 ||
        info->table_len > table_room(info->version, info->p.bits) ||
        info->packages < (n + most - 1) / most ||
        info->packages > n || info->meta_len > SCI_SEIS_MAX_META ||
        (flags & ~(uint32_t)(SCI_SEIS_FLAG_ZERO |
                             (info->version >= 6 ? SCI_SEIS_FLAG_ZRUNS : 0))))
        return SCI_SEIS_E_HEADER;
    /* a grid whose levels overflow through the inverse transform: no
     * encoder writes one, and it would decode to infinities */
    if (!sci_seis_grid_fits(&info->grid, &info->p))
        return SCI_SEIS_E_HEADER;
    info->nsym = sci_seis_alphabet(info->version, info->p.bits);
    info->blocks = (uint32_t)blocks_of(info->version, info->packages);
    info->meta_off = SCI_SEIS_HEADER_BYTES;
    info->table_off = info->meta_off + info->meta_len;
    info->pkg_off = align8(info->table_off + info->table_len);
    info->firsts_off = info->pkg_off + 8 * (size_t)info->packages;
    info->frame_len = info->firsts_off +
                      firsts_bytes(info->version, info->packages) + 4;
    return 0;
}

long long sci_seis_frame_length(const uint8_t *hdr) {
    sci_seis_info info;
    int err = parse_header(hdr, &info);
    return err ? err : (long long)info.frame_len;
}

int sci_seis_parse(const uint8_t *buf, size_t len, sci_seis_info *info) {
    if (!buf || !info)
        return SCI_SEIS_E_ARG;
    if (len < SCI_SEIS_HEADER_BYTES)
        return SCI_SEIS_E_TRUNCATED;
    int err = parse_header(buf, info);
    if (err)
        return err;
    if (len < info->frame_len)
        return SCI_SEIS_E_TRUNCATED;
    size_t crc_at = info->frame_len - 4;
    if (get32(buf + crc_at) != sci_crc32(0, buf, crc_at))
        return SCI_SEIS_E_CRC;
    for (size_t i = info->table_off + info->table_len; i < info->pkg_off; i++)
        if (buf[i])
            return SCI_SEIS_E_DATA;
    return 0;
}

struct sci_seis_dctx {
    ZSTD_DCtx *z;
};

sci_seis_dctx *sci_seis_dctx_new(void) {
    sci_seis_dctx *d = malloc(sizeof *d);
    if (d && !(d->z = ZSTD_createDCtx())) {
        free(d);
        d = NULL;
    }
    return d;
}

void sci_seis_dctx_free(sci_seis_dctx *d) {
    if (d) {
        ZSTD_freeDCtx(d->z);
        free(d);
    }
}

int sci_seis_code_lengths_in(sci_seis_dctx *d, const uint8_t *frame,
                             const sci_seis_info *info, uint8_t *len) {
    const size_t nsym = info->nsym;
    if (info->version >= 4) {
        if (sci_seis_table_read(frame + info->table_off, info->table_len,
                                (uint32_t)nsym, info->version, len))
            return SCI_SEIS_E_DATA;
    } else {
        unsigned long long size =
            ZSTD_getFrameContentSize(frame + info->table_off, info->table_len);
        if (size != nsym)
            return SCI_SEIS_E_DATA;
        size_t got = d ? ZSTD_decompressDCtx(d->z, len, nsym,
                                             frame + info->table_off,
                                             info->table_len)
                       : ZSTD_decompress(len, nsym, frame + info->table_off,
                                         info->table_len);
        if (ZSTD_isError(got) || got != nsym)
            return SCI_SEIS_E_DATA;
    }
    unsigned longest = 0;
    for (size_t s = 0; s < nsym; s++)
        longest = len[s] > longest ? len[s] : longest;
    /* the header's max_len is the table's: a decoder may size by it */
    if (longest != info->max_len)
        return SCI_SEIS_E_DATA;
    /* a version 6 or 7 frame that says it has no zero run has none */
    for (size_t s = (size_t)1 << info->p.bits; !info->zero_runs && s < nsym;
         s++)
        if (len[s])
            return SCI_SEIS_E_DATA;
    return 0;
}

int sci_seis_code_lengths(const uint8_t *frame, const sci_seis_info *info,
                          uint8_t *len) {
    return sci_seis_code_lengths_in(NULL, frame, info, len);
}

/* A region over the packages of a frame. */
typedef struct {
    const sci_huff_code *code;
    const uint64_t *pairs; /* version 7: sci_seis_pair_entries */
    const uint8_t *pk;
    const size_t *start; /* each package's first value; version 6: each
                          * block's; version 7: each slice's */
    const sci_seis_grid *grid;
    uint16_t *q;
    float *coef;
    unsigned version, nsym; /* nsym: the indices, 2^bits */
    size_t npkg;
    atomic_int bad;
} unpack_args;

/* Values [at, at + c) all of index v: a run package, or the level under a
 * version 6 package's zero runs. */
static void put_same(const unpack_args *a, size_t at, size_t c, uint32_t v) {
    const float x = sci_seis_dequantize_one(v, a->grid);
    for (size_t j = at; j < at + c; j++) {
        if (a->q)
            a->q[j] = (uint16_t)v;
        if (a->coef)
            a->coef[j] = x;
    }
}

static void unpack_packages(void *arg, size_t b, size_t e, unsigned wk) {
    unpack_args *a = arg;
    const size_t *start = a->start;
    for (size_t i = b; i < e; i++) {
        uint32_t sym[SCI_HUFF_PACKAGE_BITS];
        uint64_t pkg = get64(a->pk + 8 * i);
        if (sci_seis_package_is_run(pkg, a->version)) {
            uint32_t v = sci_seis_run_symbol(pkg);
            if (v >= a->nsym) {
                atomic_store_explicit(&a->bad, 1, memory_order_relaxed);
                continue;
            }
            /* (its count, checked by the sum of counts) */
            put_same(a, start[i], start[i + 1] - start[i], v);
            continue;
        }
        int k = sci_huff_unpack(a->code, pkg, sym);
        if (k < 0 || (size_t)k != start[i + 1] - start[i]) {
            atomic_store_explicit(&a->bad, 1, memory_order_relaxed);
            continue;
        }
        for (int j = 0; j < k; j++) {
            if (a->q)
                a->q[start[i] + j] = (uint16_t)sym[j];
            if (a->coef)
                a->coef[start[i] + j] =
                    sci_seis_dequantize_one(sym[j], a->grid);
        }
    }
}

/* Version 6, blocks [b, e) of SCI_SEIS_BLOCK_PACKAGES packages: each
 * block's packages in order from the value its first says, to the next
 * block's first (the last, to the gather's end); nothing written past
 * it. */
static void unpack_blocks(void *arg, size_t b, size_t e, unsigned wk) {
    unpack_args *a = arg;
    (void)wk;
    const uint32_t level = sci_seis_run_level(a->grid);
    const sci_seis_codebook cb = {a->code->lookup, a->code->first_code,
                                  a->code->first_index, a->code->sorted,
                                  a->code->max_len, NULL};
    for (size_t blk = b; blk < e; blk++) {
        size_t at = a->start[blk];
        const size_t end = a->start[blk + 1];
        const size_t p1 = (blk + 1) * SCI_SEIS_BLOCK_PACKAGES < a->npkg
                              ? (blk + 1) * SCI_SEIS_BLOCK_PACKAGES
                              : a->npkg;
        int ok = 1;
        for (size_t i = blk * SCI_SEIS_BLOCK_PACKAGES; i < p1 && ok; i++) {
            uint32_t tok[SCI_HUFF_PACKAGE_BITS];
            unsigned nt = 0;
            const uint64_t pkg = get64(a->pk + 8 * i);
            uint32_t v, c;
            if (sci_seis_package_is_run(pkg, a->version)) {
                v = sci_seis_run_symbol(pkg);
                c = sci_seis_package_count(pkg, a->version);
                if (v >= a->nsym || !c || c > end - at) {
                    ok = 0;
                    break;
                }
                put_same(a, at, c, v);
                at += c;
                continue;
            }
            c = sci_seis_unpack_tokens(&cb, a->nsym, pkg, tok, &nt);
            if (!c || c > end - at) {
                ok = 0;
                break;
            }
            /* the level where the tokens' runs are, if any */
            if (nt < c)
                put_same(a, at, c, level);
            for (unsigned k = 0; k < nt; k++) {
                const size_t j = at + (tok[k] & 0xFFFFu);
                if (a->q)
                    a->q[j] = (uint16_t)(tok[k] >> 16);
                if (a->coef)
                    a->coef[j] = sci_seis_dequantize_one(tok[k] >> 16, a->grid);
            }
            at += c;
        }
        if (!ok || at != end)
            atomic_store_explicit(&a->bad, 1, memory_order_relaxed);
    }
}

_Static_assert((1u << SCI_SEIS_MAX_BITS) + SCI_SEIS_ZRUN_CLASSES <=
                   (1u << SCI_SEIS_PAIR_SYM_BITS),
               "a pair entry holds any symbol of the alphabet");

/* Version 7, slices [b, e): each decoded from its first value to the
 * next slice's (sci_seis_decode_slice). */
static void unpack_slices(void *arg, size_t b, size_t e, unsigned wk) {
    unpack_args *a = arg;
    (void)wk;
    const sci_seis_codebook cb = {a->code->lookup, a->code->first_code,
                                  a->code->first_index, a->code->sorted,
                                  a->code->max_len, a->pairs};
    for (size_t s = b; s < e; s++)
        if (!sci_seis_decode_slice(&cb, a->nsym, a->grid, a->pk,
                                   (uint32_t)a->npkg, (uint32_t)s,
                                   (uint32_t)a->start[s],
                                   (uint32_t)a->start[s + 1], a->coef,
                                   a->q))
            atomic_store_explicit(&a->bad, 1, memory_order_relaxed);
}

/* Versions 6 and 7: where each block (slice) starts, from the frame's
 * firsts, into start[0..blocks]; 0 when they do not rise from 0 to the
 * gather's end. */
static int block_starts(const uint8_t *frame, const sci_seis_info *info,
                        size_t n, size_t *start) {
    start[0] = 0;
    for (uint32_t b = 1; b < info->blocks; b++) {
        start[b] = get32(frame + info->firsts_off + 4 * (size_t)(b - 1));
        if (start[b] <= start[b - 1] || start[b] >= n)
            return 0;
    }
    start[info->blocks] = n;
    return 1;
}

/* Versions 2 to 5: each package's first value from the counts in its top
 * bits, into start[0..packages]; 0 when a package holds none or they do
 * not add up to the gather. */
static int package_starts(const uint8_t *pk, const sci_seis_info *info,
                          size_t n, size_t *start) {
    start[0] = 0;
    for (size_t i = 0; i < info->packages; i++) {
        const uint32_t c =
            sci_seis_package_count(get64(pk + 8 * i), info->version);
        if (!c)
            return 0;
        start[i + 1] = start[i] + c;
    }
    return start[info->packages] == n;
}

int sci_seis_decode(sci_pool *pool, const uint8_t *frame,
                    const sci_seis_info *info, uint16_t *q, float *out) {
    const sci_seis_params *p = &info->p;
    const size_t n = (size_t)p->traces * p->samples;
    const size_t np = info->packages;
    const uint8_t *pk = frame + info->pkg_off;
    uint8_t *len = malloc(info->nsym);
    size_t *start = malloc((np + 1) * sizeof *start);
    float *coef = out ? malloc(n * sizeof *coef) : NULL;
    /* version 7's walks read two short codes at once, as the GPU's do */
    uint64_t pairs[1u << SCI_HUFF_LOOKUP_BITS];
    sci_huff_code code = {0};
    int err = SCI_SEIS_E_NOMEM;
    if (!len || !start || (out && !coef))
        goto out;
    err = sci_seis_code_lengths(frame, info, len);
    if (err)
        goto out;
    if (sci_huff_build_decoder(len, info->nsym, &code)) {
        err = SCI_SEIS_E_DATA;
        goto out;
    }
    if (info->version >= 7)
        sci_seis_pair_entries(code.lookup, 1u << p->bits, pairs, 0, 1);
    unpack_args a = {&code, info->version >= 7 ? pairs : NULL, pk, start,
                     &info->grid, q, coef, info->version, 1u << p->bits, np,
                     0};
    sci_pool *par = sci_pool_if(pool, n >= 65536);
    if (info->version >= 6) {
        if (!block_starts(frame, info, n, start)) {
            err = SCI_SEIS_E_DATA;
            goto out;
        }
        sci_pool_for(par, info->blocks, 1,
                     info->version >= 7 ? unpack_slices : unpack_blocks, &a);
    } else {
        if (!package_starts(pk, info, n, start)) {
            err = SCI_SEIS_E_DATA;
            goto out;
        }
        /* by values, not packages: a run package holds up to 4096 */
        sci_pool_for(par, np, 0, unpack_packages, &a);
    }
    if (atomic_load(&a.bad)) {
        err = SCI_SEIS_E_DATA;
        goto out;
    }
    if (out) {
        if (sci_dwt53f_inverse(pool, coef, p->samples, p->traces, p->samples,
                               p->levels)) {
            err = SCI_SEIS_E_NOMEM;
            goto out;
        }
        memcpy(out, coef, n * sizeof *coef);
    }
    err = 0;
out:
    sci_huff_free(&code);
    free(len);
    free(start);
    free(coef);
    return err;
}

const char *sci_seis_error_string(int err) {
    switch (err) {
    case 0:
        return "no error";
    case SCI_SEIS_E_ARG:
        return "sizes or parameters out of range";
    case SCI_SEIS_E_NOMEM:
        return "out of memory";
    case SCI_SEIS_E_VALUE:
        return "NaN or infinity in the gather (or values so large that "
               "the wavelet transform overflows)";
    case SCI_SEIS_E_TRUNCATED:
        return "truncated frame";
    case SCI_SEIS_E_MAGIC:
        return "not a seismic frame (bad magic)";
    case SCI_SEIS_E_VERSION:
        return "unsupported seismic frame version";
    case SCI_SEIS_E_HEADER:
        return "corrupt seismic frame header";
    case SCI_SEIS_E_CRC:
        return "seismic frame checksum mismatch";
    case SCI_SEIS_E_DATA:
        return "corrupt seismic frame data";
    case SCI_SEIS_E_ROOM:
        return "output buffer too small";
    default:
        return "unknown seismic codec error";
    }
}
