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

#include "range_coder.h"

#define MAXN SCI_DPCM_MAX_ORDER

void sci_dpcm_params_default(sci_dpcm_params *p) {
    p->order_n = 11;
    p->equations_m = 7;
    p->threshold = 13;
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
    case SCI_DPCM_E_RESERVED: return "reserved header field not zero";
    case SCI_DPCM_E_LENGTHS: return "inconsistent section lengths";
    case SCI_DPCM_E_TRAILING: return "bytes after the end of the frame";
    case SCI_DPCM_E_CRC: return "CRC mismatch";
    case SCI_DPCM_E_ENTROPY: return "corrupt range-coded section";
    case SCI_DPCM_E_ESCAPES: return "corrupt escape section";
    case SCI_DPCM_E_SAMPLE: return "reconstructed sample out of range";
    case SCI_DPCM_E_BUFFER: return "buffer too small";
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
    return NULL;
}

/* ---------------------------------------------------------------------- */
/* Solve */

static unsigned packed_index(unsigned n, unsigned i, unsigned j) {
    return i * n - i * (i - 1) / 2 + (j - i); /* i <= j */
}

/* Gauss-Jordan elimination with partial pivoting, in the one order of
 * operations of docs/dpcm-format.md.  A is n x (n + 1), b in column n. */
static int solve_core(unsigned n, double A[MAXN][MAXN + 1], double *a) {
    double scale = 0.0;
    for (unsigned i = 0; i < n; i++)
        if (A[i][i] > scale)
            scale = A[i][i];
    if (!(scale > 0.0))
        return 0;
    double thr = scale * SCI_DPCM_PIVOT_EPS;
    for (unsigned c = 0; c < n; c++) {
        unsigned p = c;
        double best = fabs(A[c][c]);
        for (unsigned r = c + 1; r < n; r++)
            if (fabs(A[r][c]) > best) {
                best = fabs(A[r][c]);
                p = r;
            }
        if (!(best > thr))
            return 0;
        if (p != c)
            for (unsigned k = c; k <= n; k++) {
                double t = A[c][k];
                A[c][k] = A[p][k];
                A[p][k] = t;
            }
        double piv = A[c][c];
        for (unsigned r = 0; r < n; r++) {
            if (r == c)
                continue;
            double f = A[r][c] / piv;
            for (unsigned k = c + 1; k <= n; k++)
                A[r][k] = A[r][k] - f * A[c][k];
        }
    }
    for (unsigned i = 0; i < n; i++)
        a[i] = A[i][n] / A[i][i];
    return 1;
}

/* The leading n x n block (and n entries of b) of sums packed for order
 * big_n: P = big_n (big_n + 1) / 2 matrix entries, then big_n of b. */
static int solve_packed(unsigned big_n, unsigned n, const int64_t *sums,
                        double *a) {
    double A[MAXN][MAXN + 1];
    unsigned pn = big_n * (big_n + 1) / 2;
    for (unsigned i = 0; i < n; i++) {
        for (unsigned j = i; j < n; j++) {
            double v = (double)sums[packed_index(big_n, i, j)];
            A[i][j] = v;
            A[j][i] = v;
        }
        A[i][n] = (double)sums[pn + i];
    }
    return solve_core(n, A, a);
}

int sci_dpcm_solve(unsigned n, const int64_t *g, const int64_t *b, double *a) {
    if (n < 1 || n > MAXN)
        return 0;
    double A[MAXN][MAXN + 1];
    for (unsigned i = 0; i < n; i++) {
        for (unsigned j = i; j < n; j++) {
            double v = (double)g[packed_index(n, i, j)];
            A[i][j] = v;
            A[j][i] = v;
        }
        A[i][n] = (double)b[i];
    }
    return solve_core(n, A, a);
}

uint32_t sci_dpcm_round_prediction(double p, uint32_t maxval) {
    double q = floor(p + 0.5);
    if (!(q >= 0.0))
        return 0;
    if (q >= (double)maxval)
        return maxval;
    return (uint32_t)q;
}

/* ---------------------------------------------------------------------- */
/* Predictor state */

typedef struct {
    unsigned w, n, m, p, e; /* e = p + n int64 per column */
    int64_t *sums;          /* per column: running sums over rows < y */
    int64_t *prod;          /* per position: products of the last row */
    double *wt;             /* per column: n weights */
    uint8_t *ok;            /* per column: solved (else left neighbour) */
} lsq;

/* Weights of column x >= 2: min(N, x), every sample to the left. */
static unsigned neff(const lsq *s, unsigned x) {
    return x < s->n ? x : s->n;
}

/* First equation position of column x's window. */
static unsigned jlo(const lsq *s, unsigned x) {
    unsigned a = neff(s, x);
    unsigned b = x + 1 >= s->m ? x + 1 - s->m : 0;
    return a > b ? a : b;
}

static void lsq_free(lsq *s) {
    free(s->sums);
    free(s->prod);
    free(s->wt);
    free(s->ok);
}

static int lsq_init(lsq *s, unsigned w, unsigned h, unsigned n, unsigned m) {
    memset(s, 0, sizeof *s);
    s->w = w, s->n = n, s->m = m;
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

#define CHUNK 128
/* Rows narrower than this run on one thread: below it a row's work does not
 * pay for waking the team (and many small parallel regions, one per row,
 * are slow where the cores are shared). */
#define PAR_MIN_WIDTH 256

/* Adds row r (final samples) to every column's sums. */
static void lsq_add_row(lsq *s, const uint16_t *row) {
    const unsigned w = s->w, n = s->n, e = s->e, pn = s->p;
    const int par = w >= PAR_MIN_WIDTH;
    (void)par;
#pragma omp parallel for schedule(static) if (par)
    for (unsigned j = 1; j < w; j++) {
        int64_t v[MAXN];
        for (unsigned k = 0; k < n; k++)
            v[k] = j >= k + 1 ? row[j - 1 - k] : 0;
        int64_t *o = s->prod + (size_t)j * e;
        unsigned t = 0;
        for (unsigned i = 0; i < n; i++)
            for (unsigned k = i; k < n; k++)
                o[t++] = v[i] * v[k];
        for (unsigned i = 0; i < n; i++)
            o[pn + i] = v[i] * row[j];
    }
    unsigned chunks = (w - 2 + CHUNK - 1) / CHUNK;
#pragma omp parallel for schedule(static) if (par)
    for (unsigned c = 0; c < chunks; c++) {
        unsigned x0 = 2 + c * CHUNK, x1 = x0 + CHUNK < w ? x0 + CHUNK : w;
        int64_t win[MAXN * (MAXN + 1) / 2 + MAXN];
        memset(win, 0, e * sizeof *win);
        unsigned lo = jlo(s, x0);
        for (unsigned j = lo; j <= x0; j++)
            for (unsigned t = 0; t < e; t++)
                win[t] += s->prod[(size_t)j * e + t];
        for (unsigned x = x0; x < x1; x++) {
            if (x > x0) {
                unsigned nlo = jlo(s, x);
                if (nlo > lo) {
                    const int64_t *o = s->prod + (size_t)lo * e;
                    for (unsigned t = 0; t < e; t++)
                        win[t] -= o[t];
                    lo = nlo;
                }
                const int64_t *o = s->prod + (size_t)x * e;
                for (unsigned t = 0; t < e; t++)
                    win[t] += o[t];
            }
            int64_t *sum = s->sums + (size_t)x * e;
            for (unsigned t = 0; t < e; t++)
                sum[t] += win[t];
        }
    }
}

/* Weights of every column x >= 2 from the sums over the rows so far. */
static void lsq_solve_row(lsq *s) {
    const unsigned w = s->w;
    const int par = w >= PAR_MIN_WIDTH;
    (void)par;
#pragma omp parallel for schedule(dynamic, 16) if (par)
    for (unsigned x = 2; x < w; x++)
        s->ok[x] = (uint8_t)solve_packed(s->n, neff(s, x),
                                         s->sums + (size_t)x * s->e,
                                         s->wt + (size_t)x * s->n);
}

/* Prediction of pixel x of row y >= 1 (row: its samples left of x, up:
 * the row above). */
static uint32_t predict(const lsq *s, unsigned x, const uint16_t *row,
                        const uint16_t *up, uint32_t maxval) {
    if (x == 0)
        return up[0];
    if (x == 1 || !s->ok[x])
        return row[x - 1];
    const double *a = s->wt + (size_t)x * s->n;
    unsigned n = neff(s, x);
    double p = 0.0;
    for (unsigned k = 0; k < n; k++)
        p = p + a[k] * (double)row[x - 1 - k];
    return sci_dpcm_round_prediction(p, maxval);
}

static int check_stage(unsigned w, unsigned h, unsigned depth, unsigned n,
                       unsigned m) {
    sci_dpcm_params p = {n, m, 0};
    return sci_dpcm_check(w, h, depth, &p) ? SCI_DPCM_E_ARG : SCI_DPCM_OK;
}

int sci_dpcm_predict_residuals(const uint16_t *samples, size_t stride,
                               unsigned w, unsigned h, unsigned depth,
                               unsigned order_n, unsigned equations_m,
                               int32_t *residuals, uint16_t *pred) {
    if (check_stage(w, h, depth, order_n, equations_m) || !samples ||
        !residuals || stride < w)
        return SCI_DPCM_E_ARG;
    const uint32_t maxval = (1u << depth) - 1;
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++)
            if (samples[(size_t)y * stride + x] > maxval)
                return SCI_DPCM_E_ARG;
    lsq s;
    if (lsq_init(&s, w, h, order_n, equations_m))
        return SCI_DPCM_E_NOMEM;
    for (unsigned y = 0; y < h; y++) {
        const uint16_t *row = samples + (size_t)y * stride;
        int32_t *res = residuals + (size_t)y * w;
        uint16_t *pr = pred ? pred + (size_t)y * w : NULL;
        if (y == 0) {
            for (unsigned x = 0; x < w; x++) {
                uint32_t p = x ? row[x - 1] : 0;
                res[x] = (int32_t)row[x] - (int32_t)p;
                if (pr)
                    pr[x] = (uint16_t)p;
            }
            continue;
        }
        const uint16_t *up = row - stride;
        if (s.sums) {
            lsq_add_row(&s, up);
            lsq_solve_row(&s);
        }
        const int par = w >= PAR_MIN_WIDTH;
        (void)par;
#pragma omp parallel for schedule(static) if (par)
        for (unsigned x = 0; x < w; x++) {
            uint32_t p = predict(&s, x, row, up, maxval);
            res[x] = (int32_t)row[x] - (int32_t)p;
            if (pr)
                pr[x] = (uint16_t)p;
        }
    }
    lsq_free(&s);
    return SCI_DPCM_OK;
}

int sci_dpcm_reconstruct(const int32_t *residuals, unsigned w, unsigned h,
                         unsigned depth, unsigned order_n,
                         unsigned equations_m, uint16_t *samples,
                         size_t stride) {
    if (check_stage(w, h, depth, order_n, equations_m) || !samples ||
        !residuals || stride < w)
        return SCI_DPCM_E_ARG;
    const int32_t maxval = (int32_t)((1u << depth) - 1);
    lsq s;
    if (lsq_init(&s, w, h, order_n, equations_m))
        return SCI_DPCM_E_NOMEM;
    int status = SCI_DPCM_OK;
    for (unsigned y = 0; y < h && status == SCI_DPCM_OK; y++) {
        uint16_t *row = samples + (size_t)y * stride;
        const int32_t *res = residuals + (size_t)y * w;
        const uint16_t *up = y ? row - stride : NULL;
        if (y && s.sums) {
            lsq_add_row(&s, up);
            lsq_solve_row(&s);
        }
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

static size_t raw_size(uint64_t escapes, unsigned depth) {
    return (size_t)((escapes * (depth + 1) + 7) / 8);
}

int sci_dpcm_code_residuals(const int32_t *res, size_t count, unsigned depth,
                            int32_t t_lo, int32_t t_hi, uint8_t *rc,
                            size_t rc_cap, size_t *rc_bytes, uint8_t *raw,
                            size_t raw_cap, size_t *raw_bytes,
                            uint32_t *escapes) {
    if (depth < 1 || depth > 16 || !thresholds_valid(depth, t_lo, t_hi))
        return SCI_DPCM_E_ARG;
    const int32_t maxval = (int32_t)((1u << depth) - 1);
    uint32_t k = (uint32_t)(t_hi - t_lo + 1), esc = 0;
    for (size_t i = 0; i < count; i++) {
        if (res[i] < -maxval || res[i] > maxval)
            return SCI_DPCM_E_ARG;
        if (res[i] < t_lo || res[i] > t_hi)
            esc++;
    }
    size_t rb = raw_size(esc, depth);
    if (rb > raw_cap)
        return SCI_DPCM_E_BUFFER;
    sci_rc_model m;
    if (sci_rc_model_init(&m, k + 1))
        return SCI_DPCM_E_NOMEM;
    sci_rc_enc enc;
    sci_rc_enc_init(&enc, rc, rc_cap);
    uint64_t acc = 0;
    unsigned nacc = 0;
    size_t rp = 0;
    for (size_t i = 0; i < count; i++) {
        int32_t e = res[i];
        if (e >= t_lo && e <= t_hi) {
            sci_rc_encode(&enc, &m, (uint32_t)(e - t_lo));
            continue;
        }
        sci_rc_encode(&enc, &m, k);
        acc = (acc << (depth + 1)) | (uint32_t)(e + maxval);
        nacc += depth + 1;
        while (nacc >= 8) {
            nacc -= 8;
            raw[rp++] = (uint8_t)(acc >> nacc);
        }
    }
    if (nacc)
        raw[rp++] = (uint8_t)(acc << (8 - nacc));
    sci_rc_model_free(&m);
    size_t n = sci_rc_enc_finish(&enc);
    if (n > rc_cap)
        return SCI_DPCM_E_BUFFER;
    *rc_bytes = n;
    *raw_bytes = rp;
    *escapes = esc;
    return SCI_DPCM_OK;
}

int sci_dpcm_decode_residuals(const uint8_t *rc, size_t rc_bytes,
                              const uint8_t *raw, size_t raw_bytes,
                              uint32_t escapes, size_t count, unsigned depth,
                              int32_t t_lo, int32_t t_hi, int32_t *res) {
    if (depth < 1 || depth > 16 || !thresholds_valid(depth, t_lo, t_hi))
        return SCI_DPCM_E_ARG;
    if (escapes > count || raw_bytes != raw_size(escapes, depth))
        return SCI_DPCM_E_LENGTHS;
    const int32_t maxval = (int32_t)((1u << depth) - 1);
    const unsigned bits = depth + 1;
    uint32_t k = (uint32_t)(t_hi - t_lo + 1), used = 0;
    sci_rc_model m;
    if (sci_rc_model_init(&m, k + 1))
        return SCI_DPCM_E_NOMEM;
    sci_rc_dec dec;
    int status = SCI_DPCM_OK;
    if (sci_rc_dec_init(&dec, rc, rc_bytes))
        status = SCI_DPCM_E_ENTROPY;
    uint64_t acc = 0;
    unsigned nacc = 0;
    size_t rp = 0;
    for (size_t i = 0; i < count && status == SCI_DPCM_OK; i++) {
        uint32_t sym = sci_rc_decode(&dec, &m);
        if (dec.error) {
            status = SCI_DPCM_E_ENTROPY;
            break;
        }
        if (sym < k) {
            res[i] = t_lo + (int32_t)sym;
            continue;
        }
        if (used == escapes) {
            status = SCI_DPCM_E_ESCAPES;
            break;
        }
        used++;
        while (nacc < bits) { /* rp < raw_bytes: raw_bytes fits escapes */
            acc = (acc << 8) | raw[rp++];
            nacc += 8;
        }
        nacc -= bits;
        int32_t u = (int32_t)((acc >> nacc) & ((1u << bits) - 1));
        int32_t e = u - maxval;
        if (e > maxval || (e >= t_lo && e <= t_hi)) {
            status = SCI_DPCM_E_ESCAPES;
            break;
        }
        res[i] = e;
    }
    sci_rc_model_free(&m);
    if (status == SCI_DPCM_OK && (dec.error || dec.pos != rc_bytes))
        status = SCI_DPCM_E_ENTROPY;
    if (status == SCI_DPCM_OK &&
        (used != escapes || (nacc && (acc & ((1u << nacc) - 1)))))
        status = SCI_DPCM_E_ESCAPES;
    return status;
}

/* ---------------------------------------------------------------------- */
/* Frames */

static size_t rc_bound(size_t count) {
    return SCI_RC_MIN_BYTES + 3 * count;
}

size_t sci_dpcm_max_bytes(unsigned w, unsigned h, unsigned depth) {
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    if (sci_dpcm_check(w, h, depth, &p))
        return 0;
    size_t count = (size_t)w * h;
    return SCI_DPCM_HEADER_BYTES + SCI_DPCM_TRAILER_BYTES + rc_bound(count) +
           raw_size(count, depth);
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

size_t sci_dpcm_encode(const uint16_t *samples, size_t stride, unsigned w,
                       unsigned h, unsigned depth, const sci_dpcm_params *p,
                       uint8_t *out, size_t cap) {
    return sci_dpcm_encode_meta(samples, stride, w, h, depth, p, NULL, 0, out,
                                cap);
}

size_t sci_dpcm_encode_meta(const uint16_t *samples, size_t stride,
                            unsigned w, unsigned h, unsigned depth,
                            const sci_dpcm_params *p, const uint8_t *meta,
                            size_t meta_len, uint8_t *out, size_t cap) {
    if (sci_dpcm_check(w, h, depth, p) || !samples || !out || stride < w ||
        meta_len > SCI_DPCM_MAX_METADATA || (meta_len && !meta) ||
        cap < SCI_DPCM_HEADER_BYTES + meta_len + SCI_DPCM_TRAILER_BYTES +
                  SCI_RC_MIN_BYTES)
        return 0;
    size_t count = (size_t)w * h;
    int32_t *res = malloc(count * sizeof *res);
    if (!res)
        return 0;
    size_t total = 0;
    if (sci_dpcm_predict_residuals(samples, stride, w, h, depth, p->order_n,
                                   p->equations_m, res, NULL) == SCI_DPCM_OK) {
        int32_t t_lo, t_hi;
        sci_dpcm_thresholds(res, count, depth, p->threshold, &t_lo, &t_hi);
        size_t room = cap - SCI_DPCM_HEADER_BYTES - meta_len -
                      SCI_DPCM_TRAILER_BYTES;
        uint8_t *raw = out + SCI_DPCM_HEADER_BYTES + meta_len;
        size_t rc_bytes, raw_bytes;
        uint32_t esc;
        /* the raw section comes first: its length is known before coding */
        uint32_t pre = 0;
        for (size_t i = 0; i < count; i++)
            pre += res[i] < t_lo || res[i] > t_hi;
        size_t rb = raw_size(pre, depth);
        if (rb <= room &&
            sci_dpcm_code_residuals(res, count, depth, t_lo, t_hi, raw + rb,
                                    room - rb, &rc_bytes, raw, rb,
                                    &raw_bytes, &esc) == SCI_DPCM_OK) {
            uint8_t *hd = out;
            memcpy(hd, "DPCM", 4);
            hd[4] = meta_len ? SCI_DPCM_VERSION : SCI_DPCM_VERSION_PLAIN;
            hd[5] = (uint8_t)depth;
            hd[6] = (uint8_t)p->order_n;
            hd[7] = (uint8_t)p->equations_m;
            put32(hd + 8, w);
            put32(hd + 12, h);
            put32(hd + 16, p->threshold);
            put32(hd + 20, (uint32_t)t_lo);
            put32(hd + 24, (uint32_t)t_hi);
            put32(hd + 28, esc);
            put32(hd + 32, (uint32_t)raw_bytes);
            put32(hd + 36, (uint32_t)rc_bytes);
            put32(hd + 40, (uint32_t)meta_len);
            if (meta_len)
                memcpy(out + SCI_DPCM_HEADER_BYTES, meta, meta_len);
            total = SCI_DPCM_HEADER_BYTES + meta_len + raw_bytes + rc_bytes;
            put32(out + total, sci_crc32(0, out, total));
            total += SCI_DPCM_TRAILER_BYTES;
        }
    }
    free(res);
    return total;
}

int sci_dpcm_peek(const uint8_t *in, size_t len, sci_dpcm_info *info) {
    if (!in || !info)
        return SCI_DPCM_E_ARG;
    if (len >= 4 && memcmp(in, "DPCM", 4))
        return SCI_DPCM_E_MAGIC;
    if (len < SCI_DPCM_HEADER_BYTES)
        return SCI_DPCM_E_TRUNCATED;
    if (in[4] != SCI_DPCM_VERSION_PLAIN && in[4] != SCI_DPCM_VERSION)
        return SCI_DPCM_E_VERSION;
    memset(info, 0, sizeof *info);
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
    info->raw_bytes = get32(in + 32);
    info->rc_bytes = get32(in + 36);
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
    if (!thresholds_valid(info->depth, info->t_lo, info->t_hi) ||
        (info->params.threshold == 0 &&
         (info->t_hi < info->t_lo || info->escapes != 0)))
        return SCI_DPCM_E_THRESHOLDS;
    /* version 1: reserved; version 2: the metadata length */
    if (info->version == SCI_DPCM_VERSION_PLAIN && get32(in + 40) != 0)
        return SCI_DPCM_E_RESERVED;
    if (info->version >= 2)
        info->meta_bytes = get32(in + 40);
    uint64_t count = (uint64_t)info->width * info->height;
    if (info->escapes > count ||
        info->raw_bytes != raw_size(info->escapes, info->depth) ||
        info->rc_bytes < SCI_RC_MIN_BYTES || info->rc_bytes > rc_bound(count) ||
        info->meta_bytes > SCI_DPCM_MAX_METADATA)
        return SCI_DPCM_E_LENGTHS;
    info->meta_offset = SCI_DPCM_HEADER_BYTES;
    info->frame_bytes = (size_t)SCI_DPCM_HEADER_BYTES + info->meta_bytes +
                        info->raw_bytes + info->rc_bytes +
                        SCI_DPCM_TRAILER_BYTES;
    return SCI_DPCM_OK;
}

/* The header, the frame length and the CRC. */
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
    return SCI_DPCM_OK;
}

int sci_dpcm_metadata(const uint8_t *in, size_t len, const uint8_t **meta,
                      size_t *meta_len) {
    sci_dpcm_info info;
    if (!meta || !meta_len)
        return SCI_DPCM_E_ARG;
    *meta = NULL;
    *meta_len = 0;
    int st = check_frame(in, len, &info);
    if (st)
        return st;
    if (info.meta_bytes) {
        *meta = in + info.meta_offset;
        *meta_len = info.meta_bytes;
    }
    return SCI_DPCM_OK;
}

int sci_dpcm_decode(const uint8_t *in, size_t len, uint16_t *samples,
                    size_t stride, size_t cap_samples, sci_dpcm_info *info) {
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
    size_t count = (size_t)w * h;
    int32_t *res = malloc(count * sizeof *res);
    if (!res)
        return SCI_DPCM_E_NOMEM;
    const uint8_t *raw = in + SCI_DPCM_HEADER_BYTES + info->meta_bytes;
    st = sci_dpcm_decode_residuals(raw + info->raw_bytes, info->rc_bytes, raw,
                                   info->raw_bytes, info->escapes, count,
                                   info->depth, info->t_lo, info->t_hi, res);
    if (st == SCI_DPCM_OK)
        st = sci_dpcm_reconstruct(res, w, h, info->depth,
                                  info->params.order_n,
                                  info->params.equations_m, samples, stride);
    free(res);
    return st;
}
