/*
 * Lossless online DPCM (see dpcm.h; the definitions that a second backend
 * must reproduce bit for bit are in docs/dpcm-format.md).
 *
 * The least-squares predictor of pixel (x, y), y >= 1, x >= 2, has
 * n = min(N, x) weights a_1..a_n, s^(x, y) = sum_k a_k s(x - k, y),
 * fitted on the equations s(j, r) ~ sum_k a_k s(j - k, r) of every row
 * r < y at the positions j = max(n, x - M + 1) .. x.  Its normal equations
 * G a = b are prefix sums over rows of per-row window sums, which are kept
 * as exact int64 running sums per column: after row r is final, each
 * column x adds the window sum of the outer products v_j v_j^T (and of
 * v_j s(j, r)) of row r, computed by sliding the window along the row.
 * The n x n system is the leading block of the N x N sums.
 */
#include "dpcm.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "codec/common/crc32.h"
#include "dpcm_core.h"

/* zstd level of a compressed metadata section (FITS header cards: text
 * padded with blanks).  Measured on the 13388 bytes dpcmenc stores for a
 * GMOS-N frame (zstd 1.5.4, one core, best of 15): level 1 3970 bytes in
 * 0.07 ms, 3 3863 in 0.08 ms, 9 3661 in 0.59 ms, 19 3515 in 13 ms; reading
 * back 0.03 ms at any level.  The 350 bytes between 3 and 19 are 0.07 bpp
 * of a 132 x 288 frame, while the GPU encoder codes a 1024 x 1024 frame in
 * under 2 ms and compresses its metadata on the host: level 3. */
#define META_ZSTD_LEVEL 3

#define MAXN SCI_DPCM_MAX_ORDER

void sci_dpcm_params_default(sci_dpcm_params *p) {
    p->order_n = 11;
    p->equations_m = 7;
    p->threshold = 13;
    p->scan = SCI_DPCM_SCAN_ROWS;
}

const char *sci_dpcm_error_string(int code) {
    switch (code) {
    case SCI_DPCM_OK: return "no error";
    case SCI_DPCM_E_ARG: return "invalid arguments";
    case SCI_DPCM_E_NOMEM: return "out of memory";
    case SCI_DPCM_E_TRUNCATED: return "truncated frame";
    case SCI_DPCM_E_MAGIC: return "not a DPCM frame (bad magic)";
    case SCI_DPCM_E_VERSION: return "unsupported format version";
    case SCI_DPCM_E_DIMENSIONS: return "invalid frame dimensions";
    case SCI_DPCM_E_DEPTH: return "invalid bit depth";
    case SCI_DPCM_E_PARAMS: return "invalid predictor or threshold parameters";
    case SCI_DPCM_E_THRESHOLDS: return "invalid residual thresholds";
    case SCI_DPCM_E_RESERVED: return "reserved flag bits set";
    case SCI_DPCM_E_LENGTHS: return "inconsistent section lengths";
    case SCI_DPCM_E_TRAILING: return "bytes after the end of the frame";
    case SCI_DPCM_E_CRC: return "CRC mismatch";
    case SCI_DPCM_E_ENTROPY: return "corrupt coded segment";
    case SCI_DPCM_E_ESCAPES: return "wrong escaped value or escape count";
    case SCI_DPCM_E_SAMPLE: return "reconstructed sample out of range";
    case SCI_DPCM_E_BUFFER: return "buffer too small";
    case SCI_DPCM_E_METADATA: return "corrupt compressed metadata";
    default: return "unknown error";
    }
}

const char *sci_dpcm_check(unsigned w, unsigned h, unsigned depth,
                           const sci_dpcm_params *p) {
    if (w < 1 || h < 1 || w > SCI_DPCM_MAX_DIM || h > SCI_DPCM_MAX_DIM)
        return "width and height must be 1..65535";
    if ((uint64_t)w * h > SCI_DPCM_MAX_PIXELS)
        return "width * height must be at most 2^28";
    if (depth < 1 || depth > 16)
        return "depth must be 1..16";
    if (!p)
        return "no parameters";
    if (p->order_n < 1 || p->order_n > SCI_DPCM_MAX_ORDER)
        return "order N must be 1..32";
    if (p->equations_m < 1 || p->equations_m > SCI_DPCM_MAX_EQUATIONS)
        return "equations M must be 1..64";
    if (p->threshold > SCI_DPCM_MAX_THRESHOLD)
        return "threshold T must be at most 2^28";
    if (p->scan != SCI_DPCM_SCAN_ROWS && p->scan != SCI_DPCM_SCAN_COLUMNS &&
        p->scan != SCI_DPCM_SCAN_AUTO)
        return "scan must be rows, columns or auto";
    return NULL;
}

/* ---------------------------------------------------------------------- */
/* Solve */

int sci_dpcm_solve(unsigned n, const int64_t *g, const int64_t *b, double *a) {
    if (n < 1 || n > MAXN)
        return 0;
    double A[MAXN * (MAXN + 1)];
    for (unsigned i = 0; i < n; i++) {
        for (unsigned j = i; j < n; j++) {
            double v = (double)g[sci_dpcm_packed(n, i, j)];
            A[i * (n + 1) + j] = v;
            A[j * (n + 1) + i] = v;
        }
        A[i * (n + 1) + n] = (double)b[i];
    }
    return sci_dpcm_solve_core(n, A, 1, a);
}

uint32_t sci_dpcm_round_prediction(double p, uint32_t maxval) {
    return sci_dpcm_round(p, maxval);
}

/* ---------------------------------------------------------------------- */
/* Predictor state */

#define CHUNK 128
/* Rows narrower than this run on one thread: below it a row's work does not
 * pay for waking the team (and many small parallel regions, one per row,
 * are slow where the cores are shared). */
#define PAR_MIN_WIDTH 256
/* The same for the segments of a frame: below this many residuals they
 * code and decode on one thread. */
#define PAR_MIN_SAMPLES (1u << 16)

typedef struct {
    unsigned w, n, m, p, e; /* e = p + n int64 per column */
    int64_t *sums;          /* per column: running sums over rows < y */
    int64_t *prod;          /* per position: products of the row above */
    double *wt;             /* per column: n weights */
    uint8_t *ok;            /* per column: solved (else left neighbour) */
    sci_pool *pool;         /* for the per-row regions; NULL: none */
} lsq;

static unsigned neff(const lsq *s, unsigned x) {
    return sci_dpcm_order_at(s->n, x);
}

static unsigned jlo(const lsq *s, unsigned x) {
    return sci_dpcm_window_lo(s->n, s->m, x);
}

static void lsq_free(lsq *s) {
    free(s->sums);
    free(s->prod);
    free(s->wt);
    free(s->ok);
}

static int lsq_init(lsq *s, sci_pool *pool, unsigned w, unsigned h,
                    unsigned n, unsigned m) {
    memset(s, 0, sizeof *s);
    s->w = w, s->n = n, s->m = m;
    s->pool = sci_pool_if(pool, w >= PAR_MIN_WIDTH);
    s->p = n * (n + 1) / 2;
    s->e = s->p + n;
    if (w < 3 || h < 2)
        return 0;
    s->sums = calloc((size_t)w * s->e, sizeof *s->sums);
    s->prod = malloc((size_t)w * s->e * sizeof *s->prod);
    s->wt = malloc((size_t)w * n * sizeof *s->wt);
    s->ok = calloc(w, 1);
    if (!s->sums || !s->prod || !s->wt || !s->ok) {
        lsq_free(s);
        return -1;
    }
    return 0;
}

/* The products of position j >= 1 of `row` into o: the outer product
 * v v^T (upper triangle) and v row[j], v = row[j - 1 .. j - N]. */
static inline void products_at(const lsq *s, const uint16_t *row, unsigned j,
                               int64_t *o) {
    const unsigned n = s->n, pn = s->p;
    int64_t v[MAXN];
    for (unsigned k = 0; k < n; k++)
        v[k] = j >= k + 1 ? row[j - 1 - k] : 0;
    unsigned t = 0;
    for (unsigned i = 0; i < n; i++)
        for (unsigned k = i; k < n; k++)
            o[t++] = v[i] * v[k];
    for (unsigned i = 0; i < n; i++)
        o[pn + i] = v[i] * row[j];
}

/* One row's work on the columns: the row above added to the sums, the
 * weights solved, and (encoder) the row predicted. */
typedef struct {
    lsq *s;
    const uint16_t *up;  /* the row above, final */
    int add;             /* whether its products join the sums */
    const uint16_t *row; /* the row to predict; NULL: none (decoder) */
    int32_t *res;
    uint16_t *pr;
    uint32_t maxval;
} row_args;

/* Prediction of pixel x of row y >= 1 (row: its samples left of x, up:
 * the row above). */
static uint32_t predict(const lsq *s, unsigned x, const uint16_t *row,
                        const uint16_t *up, uint32_t maxval) {
    if (x == 0)
        return up[0];
    if (x == 1 || !s->ok[x])
        return row[x - 1];
    return sci_dpcm_round(sci_dpcm_dot(neff(s, x), s->wt + (size_t)x * s->n,
                                       row + x),
                          maxval);
}

/* Chunk c (CHUNK columns) of one row.  Each chunk slides its own window
 * along its columns; the products of its own positions it keeps in
 * s->prod (for when they leave the window), those of the positions before
 * it (at most M - 1 of them) it computes again rather than waiting for the
 * chunk before: the chunks share nothing. */
static void chunk_row(const row_args *a, unsigned c) {
    lsq *s = a->s;
    const unsigned w = s->w, e = s->e;
    const unsigned x0 = c * CHUNK, x1 = x0 + CHUNK < w ? x0 + CHUNK : w;
    const unsigned xs = x0 > 2 ? x0 : 2;
    if (a->add && xs < x1) {
        int64_t win[MAXN * (MAXN + 1) / 2 + MAXN];
        int64_t tmp[MAXN * (MAXN + 1) / 2 + MAXN];
        memset(win, 0, e * sizeof *win);
        unsigned lo = jlo(s, xs);
        for (unsigned j = lo; j <= xs; j++) {
            int64_t *o = j >= x0 ? s->prod + (size_t)j * e : tmp;
            products_at(s, a->up, j, o);
            for (unsigned t = 0; t < e; t++)
                win[t] += o[t];
        }
        for (unsigned x = xs; x < x1; x++) {
            if (x > xs) {
                unsigned nlo = jlo(s, x);
                if (nlo > lo) {
                    const int64_t *o = s->prod + (size_t)lo * e;
                    if (lo < x0) {
                        products_at(s, a->up, lo, tmp);
                        o = tmp;
                    }
                    for (unsigned t = 0; t < e; t++)
                        win[t] -= o[t];
                    lo = nlo;
                }
                int64_t *o = s->prod + (size_t)x * e;
                products_at(s, a->up, x, o);
                for (unsigned t = 0; t < e; t++)
                    win[t] += o[t];
            }
            int64_t *sum = s->sums + (size_t)x * e;
            for (unsigned t = 0; t < e; t++)
                sum[t] += win[t];
            /* the weights of column x from the sums so far */
            double A[MAXN * (MAXN + 1)];
            unsigned n = neff(s, x);
            sci_dpcm_load_system(s->n, n, sum, 1, A, 1);
            s->ok[x] = (uint8_t)sci_dpcm_solve_core(
                n, A, 1, s->wt + (size_t)x * s->n);
        }
    }
    if (a->row)
        for (unsigned x = x0; x < x1; x++) {
            uint32_t p = predict(s, x, a->row, a->up, a->maxval);
            a->res[x] = (int32_t)a->row[x] - (int32_t)p;
            if (a->pr)
                a->pr[x] = (uint16_t)p;
        }
}

/* Chunks [c0, c1) of one row: a row is one region (the decoder, which
 * needs each row whole before the next). */
static void row_chunks(void *arg, size_t c0, size_t c1, unsigned wk) {
    for (unsigned c = (unsigned)c0; c < c1; c++)
        chunk_row(arg, c);
}

/* The encoder knows every row: a chunk of columns runs down the whole
 * frame on its own (its sums, weights and predictions need nothing of the
 * other chunks), so a frame is one region.  Rows 1 .. h - 1 of chunks
 * [c0, c1). */
typedef struct {
    lsq *s;
    const uint16_t *samples;
    size_t stride;
    unsigned h;
    int32_t *residuals;
    uint16_t *pred;
    uint32_t maxval;
} frame_args;

static void frame_chunks(void *arg, size_t c0, size_t c1, unsigned wk) {
    const frame_args *f = arg;
    const unsigned w = f->s->w;
    for (unsigned c = (unsigned)c0; c < c1; c++)
        for (unsigned y = 1; y < f->h; y++) {
            const uint16_t *row = f->samples + (size_t)y * f->stride;
            row_args a = {f->s, row - f->stride, 1, row,
                          f->residuals + (size_t)y * w,
                          f->pred ? f->pred + (size_t)y * w : NULL, f->maxval};
            chunk_row(&a, c);
        }
}

/* Row y >= 1: the row above (`up`, final) joins every column's sums and the
 * weights are solved; with `row`, its residuals (and predictions) too. */
static void lsq_row(lsq *s, const uint16_t *up, const uint16_t *row,
                    int32_t *res, uint16_t *pr, uint32_t maxval) {
    row_args a = {s, up, s->sums != NULL, row, res, pr, maxval};
    sci_pool_for(s->pool, (s->w + CHUNK - 1) / CHUNK, 1, row_chunks, &a);
}

static int check_stage(unsigned w, unsigned h, unsigned depth, unsigned n,
                       unsigned m) {
    sci_dpcm_params p = {n, m, 0, SCI_DPCM_SCAN_ROWS};
    return sci_dpcm_check(w, h, depth, &p) ? SCI_DPCM_E_ARG : SCI_DPCM_OK;
}

int sci_dpcm_predict_residuals(sci_pool *pool, const uint16_t *samples,
                               size_t stride, unsigned w, unsigned h,
                               unsigned depth, unsigned order_n,
                               unsigned equations_m, int32_t *residuals,
                               uint16_t *pred) {
    if (check_stage(w, h, depth, order_n, equations_m) || !samples ||
        !residuals || stride < w)
        return SCI_DPCM_E_ARG;
    const uint32_t maxval = (1u << depth) - 1;
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++)
            if (samples[(size_t)y * stride + x] > maxval)
                return SCI_DPCM_E_ARG;
    lsq s;
    if (lsq_init(&s, pool, w, h, order_n, equations_m))
        return SCI_DPCM_E_NOMEM;
    /* row 0: the left neighbour */
    for (unsigned x = 0; x < w; x++) {
        uint32_t p = x ? samples[x - 1] : 0;
        residuals[x] = (int32_t)samples[x] - (int32_t)p;
        if (pred)
            pred[x] = (uint16_t)p;
    }
    if (s.sums) {
        frame_args f = {&s, samples, stride, h, residuals, pred, maxval};
        sci_pool_for(s.pool, (w + CHUNK - 1) / CHUNK, 1, frame_chunks, &f);
    } else {
        for (unsigned y = 1; y < h; y++) {
            const uint16_t *row = samples + (size_t)y * stride;
            lsq_row(&s, row - stride, row, residuals + (size_t)y * w,
                    pred ? pred + (size_t)y * w : NULL, maxval);
        }
    }
    lsq_free(&s);
    return SCI_DPCM_OK;
}

int sci_dpcm_reconstruct(sci_pool *pool, const int32_t *residuals,
                         unsigned w, unsigned h, unsigned depth,
                         unsigned order_n, unsigned equations_m,
                         uint16_t *samples, size_t stride) {
    if (check_stage(w, h, depth, order_n, equations_m) || !samples ||
        !residuals || stride < w)
        return SCI_DPCM_E_ARG;
    const int32_t maxval = (int32_t)((1u << depth) - 1);
    lsq s;
    if (lsq_init(&s, pool, w, h, order_n, equations_m))
        return SCI_DPCM_E_NOMEM;
    int status = SCI_DPCM_OK;
    for (unsigned y = 0; y < h && status == SCI_DPCM_OK; y++) {
        uint16_t *row = samples + (size_t)y * stride;
        const int32_t *res = residuals + (size_t)y * w;
        const uint16_t *up = y ? row - stride : NULL;
        if (y && s.sums)
            lsq_row(&s, up, NULL, NULL, NULL, (uint32_t)maxval);
        for (unsigned x = 0; x < w; x++) {
            int32_t p;
            if (y == 0)
                p = x ? row[x - 1] : 0;
            else
                p = (int32_t)predict(&s, x, row, up, (uint32_t)maxval);
            int32_t v = p + res[x];
            if (v < 0 || v > maxval) {
                status = SCI_DPCM_E_SAMPLE;
                break;
            }
            row[x] = (uint16_t)v;
        }
    }
    lsq_free(&s);
    return status;
}

/* ---------------------------------------------------------------------- */
/* Entropy stage */

void sci_dpcm_thresholds(const int32_t *res, size_t count, unsigned depth,
                         unsigned threshold, int32_t *t_lo, int32_t *t_hi) {
    const int32_t maxval = (int32_t)((1u << depth) - 1);
    *t_lo = 0;
    *t_hi = -1;
    if (count == 0)
        return;
    if (threshold == 0) {
        int32_t lo = res[0], hi = res[0];
        for (size_t i = 1; i < count; i++) {
            if (res[i] < lo)
                lo = res[i];
            if (res[i] > hi)
                hi = res[i];
        }
        *t_lo = lo;
        *t_hi = hi;
        return;
    }
    uint32_t *hist = calloc(2 * (size_t)maxval + 1, sizeof *hist);
    if (!hist) { /* no histogram: code everything (still a valid choice) */
        sci_dpcm_thresholds(res, count, depth, 0, t_lo, t_hi);
        return;
    }
    for (size_t i = 0; i < count; i++)
        if (res[i] >= -maxval && res[i] <= maxval)
            hist[res[i] + maxval]++;
    for (int32_t v = 0; v <= 2 * maxval; v++)
        if (hist[v] >= threshold) {
            *t_lo = v - maxval;
            break;
        }
    for (int32_t v = 2 * maxval; v >= 0; v--)
        if (hist[v] >= threshold) {
            *t_hi = v - maxval;
            break;
        }
    free(hist);
}


static int thresholds_valid(unsigned depth, int32_t t_lo, int32_t t_hi) {
    const int32_t maxval = (int32_t)((1u << depth) - 1);
    return t_lo >= -maxval && t_lo <= maxval && t_hi <= maxval &&
           t_hi >= t_lo - 1;
}

unsigned sci_dpcm_segment_rows(unsigned w, unsigned h) {
    if (w < 1 || h < 1)
        return 1;
    unsigned r = (SCI_DPCM_SEGMENT_SAMPLES + w - 1) / w;
    return r < h ? r : h;
}

/* A symbol costs at most 17 bits (a class of frequency 1 out of at most
 * 2^16 + 32, the coder's rounding included) and its verbatim bits at most
 * 17: 5 bytes a residual, plus the coder's start and flush. */
size_t sci_dpcm_segment_bound(size_t samples) {
    return SCI_RC_MIN_BYTES + 5 * samples;
}

size_t sci_dpcm_coded_bound(unsigned w, unsigned h, unsigned seg_rows) {
    if (seg_rows < 1)
        return 0;
    size_t segs = (h + seg_rows - 1) / seg_rows;
    return segs * SCI_RC_MIN_BYTES + 5 * (size_t)w * h;
}

static int residuals_valid(const int32_t *res, size_t count, unsigned depth) {
    const int32_t maxval = (int32_t)((1u << depth) - 1);
    for (size_t i = 0; i < count; i++)
        if (res[i] < -maxval || res[i] > maxval)
            return 0;
    return 1;
}

/* The segments of a frame, coded or decoded one per call; escape counts
 * and the first failing segment per worker, combined by the caller. */
typedef struct {
    const int32_t *res_in;
    int32_t *res;
    const uint8_t *in;
    uint8_t *out;
    const size_t *slot; /* where segment i's bytes start */
    uint32_t *seg_bytes;
    const uint32_t *seg_len;
    unsigned w, h, depth, seg_rows;
    int32_t t_lo, t_hi;
    uint32_t esc[SCI_POOL_MAX_THREADS];
    unsigned bad[SCI_POOL_MAX_THREADS];  /* first failing segment */
    int status[SCI_POOL_MAX_THREADS];    /* and its code */
} segments_args;

static segments_args *segments_new(sci_pool *pool) {
    segments_args *a = calloc(1, sizeof *a);
    if (a)
        for (unsigned t = 0; t < sci_pool_threads(pool); t++)
            a->bad[t] = UINT32_MAX;
    return a;
}

static void code_segments(void *arg, size_t i0, size_t i1, unsigned wk) {
    segments_args *a = arg;
    const unsigned w = a->w;
    for (unsigned i = (unsigned)i0; i < i1; i++) {
        unsigned y0 = i * a->seg_rows;
        unsigned rows = sci_dpcm_segment_height(a->h, a->seg_rows, i);
        sci_dpcm_models m;
        sci_rc_enc e;
        uint32_t ei = 0;
        sci_rc_enc_init(&e, a->out + a->slot[i],
                        sci_dpcm_segment_bound((size_t)w * rows));
        sci_dpcm_code_segment(a->res_in + (size_t)y0 * w, w, rows, a->depth,
                              a->t_lo, a->t_hi, &m, &e, &ei);
        a->seg_bytes[i] = (uint32_t)sci_rc_enc_finish(&e);
        a->esc[wk] += ei;
    }
}

int sci_dpcm_code_residuals(sci_pool *pool, const int32_t *res, unsigned w,
                            unsigned h, unsigned depth, int32_t t_lo,
                            int32_t t_hi, unsigned seg_rows, uint8_t *out,
                            size_t cap, uint32_t *seg_bytes,
                            size_t *out_bytes, uint32_t *escapes) {
    if (depth < 1 || depth > 16 || !thresholds_valid(depth, t_lo, t_hi) ||
        w < 1 || h < 1 || seg_rows < 1 || !res || !out || !seg_bytes)
        return SCI_DPCM_E_ARG;
    size_t count = (size_t)w * h;
    if (!residuals_valid(res, count, depth))
        return SCI_DPCM_E_ARG;
    const unsigned segs = (h + seg_rows - 1) / seg_rows;
    /* Segments code in parallel into slots of their bound, then close up;
     * with a cap below the whole bound they code one after another. */
    size_t need = sci_dpcm_coded_bound(w, h, seg_rows);
    int parallel = cap >= need && segs > 1;
    uint32_t esc = 0;
    size_t pos = 0;
    int status = SCI_DPCM_OK;
    sci_pool *par = sci_pool_if(pool, count >= PAR_MIN_SAMPLES);
    size_t *slot = parallel ? malloc(segs * sizeof *slot) : NULL;
    segments_args *a = parallel ? segments_new(par) : NULL;
    if (parallel && (!slot || !a))
        parallel = 0;
    if (parallel) {
        size_t o = 0;
        for (unsigned i = 0; i < segs; i++) {
            slot[i] = o;
            unsigned rows = sci_dpcm_segment_height(h, seg_rows, i);
            o += sci_dpcm_segment_bound((size_t)w * rows);
        }
        a->res_in = res, a->out = out, a->slot = slot;
        a->seg_bytes = seg_bytes;
        a->w = w, a->h = h, a->depth = depth, a->seg_rows = seg_rows;
        a->t_lo = t_lo, a->t_hi = t_hi;
        sci_pool_for(par, segs, 1, code_segments, a);
        for (unsigned t = 0; t < sci_pool_threads(par); t++)
            esc += a->esc[t];
        for (unsigned i = 0; i < segs; i++) {
            memmove(out + pos, out + slot[i], seg_bytes[i]);
            pos += seg_bytes[i];
        }
    } else {
        for (unsigned i = 0; i < segs && status == SCI_DPCM_OK; i++) {
            unsigned y0 = i * seg_rows;
            unsigned rows = sci_dpcm_segment_height(h, seg_rows, i);
            sci_dpcm_models m;
            sci_rc_enc e;
            sci_rc_enc_init(&e, out + pos, cap - pos);
            sci_dpcm_code_segment(res + (size_t)y0 * w, w, rows, depth, t_lo,
                                  t_hi, &m, &e, &esc);
            size_t n = sci_rc_enc_finish(&e);
            if (n > cap - pos)
                status = SCI_DPCM_E_BUFFER;
            else {
                seg_bytes[i] = (uint32_t)n;
                pos += n;
            }
        }
    }
    free(slot);
    free(a);
    if (status == SCI_DPCM_OK) {
        *out_bytes = pos;
        *escapes = esc;
    }
    return status;
}

static void decode_segments(void *arg, size_t i0, size_t i1, unsigned wk) {
    segments_args *a = arg;
    const unsigned w = a->w;
    for (unsigned i = (unsigned)i0; i < i1; i++) {
        unsigned y0 = i * a->seg_rows;
        unsigned rows = sci_dpcm_segment_height(a->h, a->seg_rows, i);
        sci_dpcm_models m;
        uint32_t ei = 0;
        int st = sci_dpcm_decode_segment(a->in + a->slot[i], a->seg_len[i], w,
                                         rows, a->depth, a->t_lo, a->t_hi, &m,
                                         a->res + (size_t)y0 * w, &ei);
        a->esc[wk] += ei;
        if (st && i < a->bad[wk]) {
            a->bad[wk] = i;
            a->status[wk] = st;
        }
    }
}

int sci_dpcm_decode_residuals(sci_pool *pool, const uint8_t *in,
                              const uint32_t *seg_bytes, unsigned w,
                              unsigned h, unsigned depth, int32_t t_lo,
                              int32_t t_hi, unsigned seg_rows,
                              uint32_t escapes, int32_t *res) {
    if (depth < 1 || depth > 16 || !thresholds_valid(depth, t_lo, t_hi) ||
        w < 1 || h < 1 || seg_rows < 1 || !in || !seg_bytes || !res)
        return SCI_DPCM_E_ARG;
    const unsigned segs = (h + seg_rows - 1) / seg_rows;
    sci_pool *par =
        sci_pool_if(pool, segs > 1 && (size_t)w * h >= PAR_MIN_SAMPLES);
    size_t *off = malloc(segs * sizeof *off);
    segments_args *a = segments_new(par);
    if (!off || !a) {
        free(off);
        free(a);
        return SCI_DPCM_E_NOMEM;
    }
    size_t o = 0;
    for (unsigned i = 0; i < segs; i++) {
        off[i] = o;
        o += seg_bytes[i];
    }
    a->in = in, a->res = res, a->slot = off, a->seg_len = seg_bytes;
    a->w = w, a->h = h, a->depth = depth, a->seg_rows = seg_rows;
    a->t_lo = t_lo, a->t_hi = t_hi;
    sci_pool_for(par, segs, 1, decode_segments, a);
    /* the first failing segment reports */
    unsigned bad = UINT32_MAX;
    int status = SCI_DPCM_OK;
    uint32_t esc = 0;
    for (unsigned t = 0; t < sci_pool_threads(par); t++) {
        esc += a->esc[t];
        if (a->bad[t] < bad) {
            bad = a->bad[t];
            status = a->status[t];
        }
    }
    free(off);
    free(a);
    if (status == SCI_DPCM_OK && esc != escapes)
        status = SCI_DPCM_E_ESCAPES;
    return status;
}

/* ---------------------------------------------------------------------- */
/* Frames */

size_t sci_dpcm_max_bytes(unsigned w, unsigned h, unsigned depth) {
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    if (sci_dpcm_check(w, h, depth, &p))
        return 0;
    /* either scan: the larger */
    size_t most = 0;
    for (int t = 0; t < 2; t++) {
        unsigned cw = t ? h : w, ch = t ? w : h;
        unsigned r = sci_dpcm_segment_rows(cw, ch);
        size_t segs = (ch + r - 1) / r;
        size_t b = 4 * segs + sci_dpcm_coded_bound(cw, ch, r);
        if (b > most)
            most = b;
    }
    return SCI_DPCM_HEADER_BYTES + SCI_DPCM_TRAILER_BYTES + most;
}

/* dst (h x w, row x at dst + x * h) = src (w x h, row y at src + y *
 * src_stride) transposed, and back with the roles swapped: a frame
 * scanned by columns is coded as its transpose. */
static void transpose(const uint16_t *src, size_t src_stride, unsigned w,
                      unsigned h, uint16_t *dst, size_t dst_stride) {
    enum { B = 64 };
    for (unsigned y0 = 0; y0 < h; y0 += B)
        for (unsigned x0 = 0; x0 < w; x0 += B)
            for (unsigned y = y0; y < h && y < y0 + B; y++)
                for (unsigned x = x0; x < w && x < x0 + B; x++)
                    dst[(size_t)x * dst_stride + y] =
                        src[(size_t)y * src_stride + x];
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p) {
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

size_t sci_dpcm_encode(sci_pool *pool, const uint16_t *samples,
                       size_t stride, unsigned w, unsigned h, unsigned depth,
                       const sci_dpcm_params *p, uint8_t *out, size_t cap) {
    return sci_dpcm_encode_meta(pool, samples, stride, w, h, depth, p, NULL,
                                0, out, cap);
}

size_t sci_dpcm_write_metadata(uint8_t *out, size_t cap, const uint8_t *meta,
                               size_t meta_len, int *compressed) {
    *compressed = 0;
    if (!out || meta_len > SCI_DPCM_MAX_METADATA || (meta_len && !meta) ||
        cap < meta_len)
        return 0;
    if (!meta_len)
        return 0;
    uint8_t *sec = out + SCI_DPCM_HEADER_BYTES;
    /* Compressed only where that saves bytes (the raw length, then the zstd
     * frame, shorter than the metadata itself): a frame never grows, and
     * the capacity callers already reserve stays enough. */
    if (meta_len > 5) {
        size_t z = ZSTD_compress(sec + 4, meta_len - 5, meta, meta_len,
                                 META_ZSTD_LEVEL);
        if (!ZSTD_isError(z)) {
            put32(sec, (uint32_t)meta_len);
            *compressed = 1;
            return 4 + z;
        }
    }
    memcpy(sec, meta, meta_len);
    return meta_len;
}

size_t sci_dpcm_write_header(uint8_t *out, unsigned w, unsigned h,
                             unsigned depth, const sci_dpcm_params *p,
                             int32_t t_lo, int32_t t_hi, uint32_t escapes,
                             unsigned seg_rows, size_t coded_bytes,
                             size_t section, int compressed,
                             const uint32_t *seg_bytes) {
    uint8_t *hd = out;
    uint32_t flags =
        (p->scan == SCI_DPCM_SCAN_COLUMNS ? SCI_DPCM_FLAG_COLUMNS : 0) |
        (compressed ? SCI_DPCM_FLAG_META_ZSTD : 0);
    memcpy(hd, "DPCM", 4);
    hd[4] = SCI_DPCM_VERSION;
    hd[5] = (uint8_t)depth;
    hd[6] = (uint8_t)p->order_n;
    hd[7] = (uint8_t)p->equations_m;
    put32(hd + 8, w);
    put32(hd + 12, h);
    put32(hd + 16, p->threshold);
    put32(hd + 20, (uint32_t)t_lo);
    put32(hd + 24, (uint32_t)t_hi);
    put32(hd + 28, escapes);
    put32(hd + 32, seg_rows);
    put32(hd + 36, (uint32_t)coded_bytes);
    put32(hd + 40, (uint32_t)section);
    put32(hd + 44, flags);
    size_t pos = SCI_DPCM_HEADER_BYTES + section;
    unsigned ch = p->scan == SCI_DPCM_SCAN_COLUMNS ? w : h;
    unsigned segs = (ch + seg_rows - 1) / seg_rows;
    for (unsigned i = 0; i < segs; i++, pos += 4)
        put32(out + pos, seg_bytes[i]);
    return pos;
}

size_t sci_dpcm_finish_frame(uint8_t *out, size_t body) {
    put32(out + body, sci_crc32(0, out, body));
    return body + SCI_DPCM_TRAILER_BYTES;
}

/* The rows' loops branch-free and summed in 32 bits (a row's at most
 * 65535 differences of at most 65535 fit), so that they vectorise: a
 * 1024 x 1024 frame is summed in a fraction of its coding time. */
#define SCAN_SUMS(T)                                                        \
    static void scan_sums_##T(const T *s, size_t stride, unsigned w,        \
                              unsigned h, unsigned long long *along_rows,   \
                              unsigned long long *along_columns) {          \
        unsigned long long r = 0, c = 0;                                     \
        for (unsigned y = 0; y < h; y++) {                                   \
            const T *row = s + (size_t)y * stride;                           \
            uint32_t rr = 0, rc = 0;                                         \
            for (unsigned x = 1; x < w; x++)                                 \
                rr += (uint32_t)abs((int)row[x] - (int)row[x - 1]);          \
            if (y) {                                                         \
                const T *up = row - stride;                                  \
                for (unsigned x = 0; x < w; x++)                             \
                    rc += (uint32_t)abs((int)row[x] - (int)up[x]);           \
            }                                                                \
            r += rr;                                                         \
            c += rc;                                                         \
        }                                                                    \
        *along_rows = r;                                                     \
        *along_columns = c;                                                  \
    }
SCAN_SUMS(uint8_t)
SCAN_SUMS(uint16_t)

unsigned sci_dpcm_choose_scan(const void *samples, size_t stride,
                              unsigned sample_bytes, unsigned w, unsigned h) {
    unsigned long long along_rows, along_columns;
    if (sample_bytes == 1)
        scan_sums_uint8_t(samples, stride, w, h, &along_rows, &along_columns);
    else
        scan_sums_uint16_t(samples, stride, w, h, &along_rows, &along_columns);
    return sci_dpcm_scan_of_sums(along_rows, along_columns);
}

size_t sci_dpcm_encode_meta(sci_pool *pool, const uint16_t *samples,
                            size_t stride, unsigned w, unsigned h,
                            unsigned depth, const sci_dpcm_params *params,
                            const uint8_t *meta, size_t meta_len,
                            uint8_t *out, size_t cap) {
    if (sci_dpcm_check(w, h, depth, params) || !samples || !out || stride < w ||
        meta_len > SCI_DPCM_MAX_METADATA || (meta_len && !meta))
        return 0;
    sci_dpcm_params chosen = *params;
    if (chosen.scan == SCI_DPCM_SCAN_AUTO)
        chosen.scan = sci_dpcm_choose_scan(samples, stride, 2, w, h);
    const sci_dpcm_params *p = &chosen;
    const int by_columns = p->scan == SCI_DPCM_SCAN_COLUMNS;
    const unsigned cw = by_columns ? h : w, ch = by_columns ? w : h;
    const unsigned seg_rows = sci_dpcm_segment_rows(cw, ch);
    const unsigned segs = (ch + seg_rows - 1) / seg_rows;
    if (cap < SCI_DPCM_HEADER_BYTES + meta_len)
        return 0;
    int compressed;
    size_t section = sci_dpcm_write_metadata(out, cap - SCI_DPCM_HEADER_BYTES,
                                             meta, meta_len, &compressed);
    if (meta_len && !section)
        return 0;
    size_t pre = SCI_DPCM_HEADER_BYTES + section + 4 * (size_t)segs;
    if (cap < pre + SCI_DPCM_TRAILER_BYTES + segs * SCI_RC_MIN_BYTES)
        return 0;
    size_t count = (size_t)w * h;
    int32_t *res = malloc(count * sizeof *res);
    uint32_t *seg_bytes = malloc(segs * sizeof *seg_bytes);
    uint16_t *t = by_columns ? malloc(count * sizeof *t) : NULL;
    size_t total = 0;
    const uint16_t *coded = samples;
    size_t coded_stride = stride;
    if (t) {
        transpose(samples, stride, w, h, t, h);
        coded = t;
        coded_stride = h;
    }
    if (res && seg_bytes && (t || !by_columns) &&
        sci_dpcm_predict_residuals(pool, coded, coded_stride, cw, ch, depth,
                                   p->order_n, p->equations_m, res,
                                   NULL) == SCI_DPCM_OK) {
        int32_t t_lo, t_hi;
        size_t coded;
        uint32_t esc;
        sci_dpcm_thresholds(res, count, depth, p->threshold, &t_lo, &t_hi);
        if (sci_dpcm_code_residuals(pool, res, cw, ch, depth, t_lo, t_hi,
                                    seg_rows,
                                    out + pre,
                                    cap - pre - SCI_DPCM_TRAILER_BYTES,
                                    seg_bytes, &coded, &esc) == SCI_DPCM_OK) {
            sci_dpcm_write_header(out, w, h, depth, p, t_lo, t_hi, esc,
                                  seg_rows, coded, section, compressed,
                                  seg_bytes);
            total = sci_dpcm_finish_frame(out, pre + coded);
        }
    }
    free(res);
    free(seg_bytes);
    free(t);
    return total;
}

int sci_dpcm_peek(const uint8_t *in, size_t len, sci_dpcm_info *info) {
    if (!in || !info)
        return SCI_DPCM_E_ARG;
    /* cleared whatever fails: a caller never reads an unset field */
    memset(info, 0, sizeof *info);
    if (len >= 4 && memcmp(in, "DPCM", 4))
        return SCI_DPCM_E_MAGIC;
    if (len < SCI_DPCM_HEADER_BYTES)
        return SCI_DPCM_E_TRUNCATED;
    if (in[4] < SCI_DPCM_VERSION_OLDEST || in[4] > SCI_DPCM_VERSION)
        return SCI_DPCM_E_VERSION;
    info->version = in[4];
    info->depth = in[5];
    info->params.order_n = in[6];
    info->params.equations_m = in[7];
    info->width = get32(in + 8);
    info->height = get32(in + 12);
    info->params.threshold = get32(in + 16);
    info->t_lo = (int32_t)get32(in + 20);
    info->t_hi = (int32_t)get32(in + 24);
    info->escapes = get32(in + 28);
    info->seg_rows = get32(in + 32);
    info->coded_bytes = get32(in + 36);
    info->meta_bytes = get32(in + 40);
    uint32_t flags = get32(in + 44);
    info->params.scan = flags & SCI_DPCM_FLAG_COLUMNS;
    info->meta_compressed = (flags & SCI_DPCM_FLAG_META_ZSTD) != 0;
    if (info->width < 1 || info->height < 1 ||
        info->width > SCI_DPCM_MAX_DIM || info->height > SCI_DPCM_MAX_DIM ||
        (uint64_t)info->width * info->height > SCI_DPCM_MAX_PIXELS)
        return SCI_DPCM_E_DIMENSIONS;
    if (info->depth < 1 || info->depth > 16)
        return SCI_DPCM_E_DEPTH;
    if (info->params.order_n < 1 ||
        info->params.order_n > SCI_DPCM_MAX_ORDER ||
        info->params.equations_m < 1 ||
        info->params.equations_m > SCI_DPCM_MAX_EQUATIONS ||
        info->params.threshold > SCI_DPCM_MAX_THRESHOLD)
        return SCI_DPCM_E_PARAMS;
    /* version 5 knows only the scan bit */
    if (flags & ~(SCI_DPCM_FLAG_COLUMNS |
                  (info->version >= 6 ? SCI_DPCM_FLAG_META_ZSTD : 0)))
        return SCI_DPCM_E_RESERVED;
    const int by_columns = info->params.scan == SCI_DPCM_SCAN_COLUMNS;
    info->coded_width = by_columns ? info->height : info->width;
    info->coded_height = by_columns ? info->width : info->height;
    if (!thresholds_valid(info->depth, info->t_lo, info->t_hi) ||
        (info->params.threshold == 0 &&
         (info->t_hi < info->t_lo || info->escapes != 0)))
        return SCI_DPCM_E_THRESHOLDS;
    uint64_t count = (uint64_t)info->width * info->height;
    if (info->seg_rows < 1 || info->seg_rows > info->coded_height)
        return SCI_DPCM_E_LENGTHS;
    info->segments =
        (info->coded_height + info->seg_rows - 1) / info->seg_rows;
    if (info->escapes > count ||
        info->coded_bytes <
            (uint64_t)info->segments * SCI_RC_MIN_BYTES ||
        info->coded_bytes > sci_dpcm_coded_bound(info->coded_width,
                                                 info->coded_height,
                                                 info->seg_rows) ||
        info->meta_bytes > SCI_DPCM_MAX_METADATA ||
        (info->meta_compressed && info->meta_bytes <= 4))
        return SCI_DPCM_E_LENGTHS;
    info->meta_offset = SCI_DPCM_HEADER_BYTES;
    info->table_offset = info->meta_offset + info->meta_bytes;
    info->coded_offset = info->table_offset + 4 * (size_t)info->segments;
    info->frame_bytes = info->coded_offset + info->coded_bytes +
                        SCI_DPCM_TRAILER_BYTES;
    return SCI_DPCM_OK;
}

/* The header, the frame length, the CRC and the segment table. */
static int check_frame(const uint8_t *in, size_t len, sci_dpcm_info *info) {
    int st = sci_dpcm_peek(in, len, info);
    if (st)
        return st;
    if (len < info->frame_bytes)
        return SCI_DPCM_E_TRUNCATED;
    if (len > info->frame_bytes)
        return SCI_DPCM_E_TRAILING;
    size_t body = info->frame_bytes - SCI_DPCM_TRAILER_BYTES;
    if (sci_crc32(0, in, body) != get32(in + body))
        return SCI_DPCM_E_CRC;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < info->segments; i++) {
        uint32_t n = get32(in + info->table_offset + 4 * (size_t)i);
        unsigned rows = sci_dpcm_segment_height(info->coded_height,
                                                info->seg_rows, i);
        if (n < SCI_RC_MIN_BYTES ||
            n > sci_dpcm_segment_bound((size_t)info->coded_width * rows))
            return SCI_DPCM_E_LENGTHS;
        sum += n;
    }
    if (sum != info->coded_bytes)
        return SCI_DPCM_E_LENGTHS;
    return SCI_DPCM_OK;
}

int sci_dpcm_segment_table(const uint8_t *in, const sci_dpcm_info *info,
                           uint32_t *seg_bytes) {
    for (uint32_t i = 0; i < info->segments; i++)
        seg_bytes[i] = get32(in + info->table_offset + 4 * (size_t)i);
    return SCI_DPCM_OK;
}

int sci_dpcm_check_frame(const uint8_t *in, size_t len, sci_dpcm_info *info) {
    if (!in || !info)
        return SCI_DPCM_E_ARG;
    return check_frame(in, len, info);
}

int sci_dpcm_metadata(const uint8_t *in, size_t len, uint8_t *out,
                      size_t cap, size_t *meta_len) {
    sci_dpcm_info info;
    if (!meta_len)
        return SCI_DPCM_E_ARG;
    *meta_len = 0;
    int st = check_frame(in, len, &info);
    if (st)
        return st;
    const uint8_t *sec = in + info.meta_offset;
    if (!info.meta_compressed) {
        *meta_len = info.meta_bytes;
        if (out && cap < info.meta_bytes)
            return SCI_DPCM_E_BUFFER;
        if (out && info.meta_bytes)
            memcpy(out, sec, info.meta_bytes);
        return SCI_DPCM_OK;
    }
    /* The raw length, then one zstd frame that says the same length: the
     * length is known, and bounded, before anything is decompressed. */
    uint32_t raw = get32(sec);
    const uint8_t *z = sec + 4;
    size_t zlen = info.meta_bytes - 4;
    unsigned long long size = ZSTD_getFrameContentSize(z, zlen);
    if (raw == 0 || raw > SCI_DPCM_MAX_METADATA || size != raw ||
        ZSTD_findFrameCompressedSize(z, zlen) != zlen)
        return SCI_DPCM_E_METADATA;
    *meta_len = raw;
    if (!out)
        return SCI_DPCM_OK;
    if (cap < raw)
        return SCI_DPCM_E_BUFFER;
    /* at most raw bytes are written: a frame that holds more fails */
    size_t got = ZSTD_decompress(out, raw, z, zlen);
    if (ZSTD_isError(got) || got != raw)
        return SCI_DPCM_E_METADATA;
    return SCI_DPCM_OK;
}

int sci_dpcm_decode(sci_pool *pool, const uint8_t *in, size_t len,
                    uint16_t *samples, size_t stride, size_t cap_samples,
                    sci_dpcm_info *info) {
    sci_dpcm_info local;
    if (!info)
        info = &local;
    int st = check_frame(in, len, info);
    if (st)
        return st;
    unsigned w = info->width, h = info->height;
    if (!samples || stride < w || stride > (SIZE_MAX - w) / h ||
        cap_samples < (size_t)(h - 1) * stride + w)
        return SCI_DPCM_E_BUFFER;
    const unsigned cw = info->coded_width, ch = info->coded_height;
    const int by_columns = info->params.scan == SCI_DPCM_SCAN_COLUMNS;
    size_t count = (size_t)w * h;
    int32_t *res = malloc(count * sizeof *res);
    uint32_t *seg_bytes = malloc(info->segments * sizeof *seg_bytes);
    uint16_t *t = by_columns ? malloc(count * sizeof *t) : NULL;
    if (!res || !seg_bytes || (by_columns && !t)) {
        free(res);
        free(seg_bytes);
        free(t);
        return SCI_DPCM_E_NOMEM;
    }
    sci_dpcm_segment_table(in, info, seg_bytes);
    st = sci_dpcm_decode_residuals(pool, in + info->coded_offset, seg_bytes,
                                   cw, ch, info->depth, info->t_lo,
                                   info->t_hi, info->seg_rows, info->escapes,
                                   res);
    if (st == SCI_DPCM_OK)
        st = sci_dpcm_reconstruct(pool, res, cw, ch, info->depth,
                                  info->params.order_n,
                                  info->params.equations_m, t ? t : samples,
                                  t ? cw : stride);
    if (st == SCI_DPCM_OK && t)
        transpose(t, cw, cw, ch, samples, stride);
    free(res);
    free(seg_bytes);
    free(t);
    return st;
}
