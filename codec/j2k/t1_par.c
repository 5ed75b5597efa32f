/*
 * Bit-parallel EBCOT context modeller (t1_par.h; docs/ebcot.md).
 *
 * Every pass is a fixed sequence of steps.  A step is a `for` loop over
 * independent iterations (PAR_FOR: one per sample, per stripe column or
 * per transfer-function entry), each of which writes only its own
 * elements and reads only what earlier steps wrote; t->steps counts the
 * steps (the barriers a GPU would need).  The few sequential loops left
 * are the stripes of the significance pass (S of them, each a constant
 * number of steps plus a log-depth scan) and the scan steps themselves.
 *
 * Why the significance pass needs a scan: a sample is in the pass if a
 * neighbour is significant when it is visited, and a neighbour visited
 * earlier in the same pass may just have become so.  Within a stripe the
 * earlier neighbours of (x, y) are the column to its left (rows y - 1, y,
 * y + 1 of the stripe), the samples above it in its own column, and the
 * row above the stripe (three samples, all in the previous stripe).  With
 * the previous stripe done, a stripe column is thus a function of the
 * "became significant" bits of the column to its left: 4 bits in, 4 bits
 * out, a 16-entry table that one thread builds by running the column's
 * four samples for each input.  Composition of such tables is associative,
 * so the outputs of all columns are a prefix composition (Hillis-Steele:
 * ceil(log2 w) steps of table composition) applied to the empty left
 * border.  Stripes follow each other (S steps of that kind): a stripe's
 * dependency on the one above is a w-bit row, too wide to tabulate.
 *
 * The cleanup pass has no such chain: every sample it visits (insignificant
 * and not coded by the significance pass) has its bit coded, explicitly or
 * as one of a run-length column's zeros, so it becomes significant iff its
 * bit is 1, known before the pass.  Refinement changes no significance.
 *
 * Order: each sample writes its pairs into its own slots (at most 4); an
 * exclusive prefix sum of the slot counts taken in scan order gives each
 * sample its place in the pass's sequence, and a scatter puts them there.
 */
#include "t1_par.h"

#include <string.h>

#include "t1_ctx.h"

static unsigned ceil_log2(unsigned n) {
    unsigned l = 0;
    while ((1u << l) < n)
        l++;
    return l;
}

unsigned long sci_t1p_step_bound(unsigned w, unsigned h, unsigned kind) {
    unsigned long scan = ceil_log2(w * h) + 1;   /* prefix sum + scatter */
    if (kind == SCI_T1P_SPP)
        return (unsigned long)((h + 3) / 4) * (ceil_log2(w) + 2) + 1 + scan;
    if (kind == SCI_T1P_MRP)
        return 1 + scan;
    return 3 + scan;
}

/* The q-th iteration of a step of n iterations, in the order asked for:
 * 7919 is a prime above any n, so i -> 7919 i mod n is a permutation. */
static inline unsigned ord(const sci_t1p *t, unsigned q, unsigned n) {
    if (t->order == 1)
        return n - 1 - q;
    if (t->order == 2)
        return (unsigned)((7919ull * q) % n);
    return q;
}

#define PAR_FOR(t, i, count)                                               \
    for (unsigned i##_q = 0, i##_n = (count), i = 0;                       \
         i##_q < i##_n && ((i = ord(t, i##_q, i##_n)), 1); i##_q++)

static inline unsigned bit(const sci_t1p *t, unsigned i) {
    return t->mag[i] >> t->plane & 1;
}

/* Significance of neighbour j as sample i sees it when it is coded. */
static inline unsigned vsig(const sci_t1p *t, unsigned j, unsigned i) {
    return t->rho[j] != 0 || (t->nu[j] && t->sidx[j] < t->sidx[i]);
}

/* The neighbourhood of sample (x, y) as it sees it: counts for zero coding
 * (Table D.1) and sign contributions (Table D.2). */
typedef struct {
    unsigned h, v, d;   /* significant horizontal, vertical, diagonal */
    int hc, vc;         /* summed sign contributions */
} nbhd;

static nbhd look(const sci_t1p *t, unsigned x, unsigned y) {
    nbhd r = {0, 0, 0, 0, 0};
    unsigned w = t->w, i = y * w + x;
    int below = t1_below(t->style, y);
    for (int dy = -1; dy <= 1; dy++) {
        if ((dy < 0 && y == 0) || (dy > 0 && (y + 1 == t->h || !below)))
            continue;
        for (int dx = -1; dx <= 1; dx++) {
            if ((!dx && !dy) || (dx < 0 && x == 0) || (dx > 0 && x + 1 == w))
                continue;
            unsigned j = (unsigned)((int)i + dy * (int)w + dx);
            if (!vsig(t, j, i))
                continue;
            int c = t->neg[j] ? -1 : 1;
            if (!dy) {
                r.h++;
                r.hc += c;
            } else if (!dx) {
                r.v++;
                r.vc += c;
            } else {
                r.d++;
            }
        }
    }
    return r;
}

/* Table D.3 from the summed contributions; *xr the XOR bit. */
static unsigned sc_ctx(const nbhd *n, unsigned *xr) {
    int h = t1_clamp1(n->hc), v = t1_clamp1(n->vc);
    *xr = 0;
    if (h < 0 || (h == 0 && v < 0)) {
        h = -h;
        v = -v;
        *xr = 1;
    }
    return (unsigned)(SCI_T1_CX_SC + (h ? 3 : 0) + v);
}

static inline void put(sci_t1p *t, unsigned i, unsigned cx, unsigned d) {
    sci_t1p_pair *s = &t->slot[i][t->cnt[i]++];
    s->cx = (uint8_t)cx;
    s->d = (uint8_t)d;
    s->pos = (uint16_t)i;
}

/* The sign of sample i at (x, y), which just became significant. */
static void put_sign(sci_t1p *t, unsigned i, unsigned x, unsigned y) {
    nbhd n = look(t, x, y);
    unsigned xr, cx = sc_ctx(&n, &xr);
    /* a raw (bypass) significance pass stores the sign itself (D.6) */
    if (t->kind == SCI_T1P_SPP &&
        t1_pass_raw(t->style, 3 * (t->top - (unsigned)t->plane) - 2))
        xr = 0;
    put(t, i, cx, t->neg[i] ^ xr);
    t->sgain[i] = t1_sig_gain(t->mag[i], (unsigned)t->plane);
    t->hasgain[i] = 1;
}

/* ---- significance propagation: the column transfer function ---- */

/* The "became significant" bits of stripe column x (stripe rows y0 ..
 * y0 + rows - 1) given those of the column to its left, L; the stripe
 * above is final (nu).  A sequential walk down four samples: the work of
 * one thread. */
static unsigned col_fn(const sci_t1p *t, unsigned x, unsigned y0,
                       unsigned rows, unsigned L) {
    unsigned w = t->w, out = 0;
    for (unsigned k = 0; k < rows; k++) {
        unsigned y = y0 + k, i = y * w + x;
        if (t->rho[i])
            continue;
        int below = t1_below(t->style, y), any = 0;
        for (int dy = -1; dy <= 1 && !any; dy++) {
            if ((dy < 0 && y == 0) || (dy > 0 && (y + 1 == t->h || !below)))
                continue;
            for (int dx = -1; dx <= 1 && !any; dx++) {
                if ((!dx && !dy) || (dx < 0 && x == 0) ||
                    (dx > 0 && x + 1 == w))
                    continue;
                unsigned yj = (unsigned)((int)y + dy);
                unsigned j = yj * w + (unsigned)((int)x + dx);
                if (t->rho[j]) {
                    any = 1;
                } else if (t->sidx[j] < t->sidx[i]) {
                    /* visited before i in this pass */
                    if (yj < y0)
                        any = t->nu[j];              /* stripe above */
                    else if (dx < 0)
                        any = L >> (yj - y0) & 1;    /* left column */
                    else
                        any = out >> (yj - y0) & 1;  /* above, own column */
                }
            }
        }
        if (any && bit(t, i))
            out |= 1u << k;
    }
    return out;
}

static void sig_pass(sci_t1p *t) {
    unsigned w = t->w, h = t->h, n = t->n;
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        unsigned rows = y0 + 4 < h ? 4 : h - y0;
        /* step: every column's table, one entry an iteration */
        t->steps++;
        PAR_FOR(t, e, w * 16) {
            unsigned x = e >> 4, L = e & 15;
            t->fn[0][x][L] = (uint8_t)col_fn(t, x, y0, rows, L & ((1u << rows) - 1));
        }
        /* ceil(log2 w) steps: fn[x] becomes f_x o f_(x-1) o ... o f_0 */
        unsigned cur = 0;
        for (unsigned d = 1; d < w; d <<= 1) {
            t->steps++;
            PAR_FOR(t, x, w) {
                for (unsigned L = 0; L < 16; L++)
                    t->fn[cur ^ 1][x][L] = x >= d
                        ? t->fn[cur][x][t->fn[cur][x - d][L]]
                        : t->fn[cur][x][L];
            }
            cur ^= 1;
        }
        /* step: the stripe's bits, from the empty left border */
        t->steps++;
        PAR_FOR(t, e, rows * w) {
            unsigned x = e % w, k = e / w;
            t->nu[(y0 + k) * w + x] = t->fn[cur][x][0] >> k & 1;
        }
    }
    /* step: every sample's pairs */
    t->steps++;
    PAR_FOR(t, i, n) {
        unsigned x = i % w, y = i / w;
        t->cnt[i] = 0;
        t->hasgain[i] = 0;
        if (t->rho[i])
            continue;
        nbhd nb = look(t, x, y);
        unsigned lab = t1_zc_label(t->band, nb.h, nb.v, nb.d);
        if (!lab)
            continue;   /* no significant neighbour: cleanup's */
        t->tau[i] = 1;
        put(t, i, SCI_T1_CX_ZC + lab, bit(t, i));
        if (bit(t, i))
            put_sign(t, i, x, y);
    }
}

static void ref_pass(sci_t1p *t) {
    unsigned w = t->w;
    t->steps++;
    PAR_FOR(t, i, t->n) {
        t->cnt[i] = 0;
        t->hasgain[i] = 0;
        if (!t->rho[i] || t->tau[i])
            continue;
        unsigned cx = SCI_T1_CX_MR + 2;
        if (t->rho[i] == 1) {
            nbhd nb = look(t, i % w, i / w);
            cx = SCI_T1_CX_MR + (nb.h + nb.v + nb.d ? 1 : 0);
        }
        t->tau[i] = 2;
        put(t, i, cx, bit(t, i));
        t->sgain[i] = t1_ref_gain(t->mag[i], (unsigned)t->plane);
        t->hasgain[i] = 1;
    }
}

static void cleanup_pass(sci_t1p *t) {
    unsigned w = t->w, h = t->h, n = t->n;
    /* step: who becomes significant */
    t->steps++;
    PAR_FOR(t, i, n)
        t->nu[i] = !t->rho[i] && !t->tau[i] && bit(t, i);
    /* step: run-length mode per stripe column, decided as the column is
     * reached (D.3.4): full stripe, four samples not yet coded, none with
     * a significant neighbour as seen from the column's first sample */
    unsigned cols = (h + 3) / 4 * w;
    t->steps++;
    PAR_FOR(t, c, cols) {
        unsigned x = c % w, y0 = c / w * 4, i0 = y0 * w + x;
        unsigned r = 5;
        if (y0 + 4 <= h) {
            r = 4;
            for (unsigned k = 0; k < 4 && r != 5; k++) {
                unsigned i = i0 + k * w;
                if (t->rho[i] || t->tau[i]) {
                    r = 5;
                    break;
                }
                int below = t1_below(t->style, y0 + k);
                for (int dy = -1; dy <= 1 && r != 5; dy++) {
                    unsigned y = y0 + k;
                    if ((dy < 0 && y == 0) ||
                        (dy > 0 && (y + 1 == h || !below)))
                        continue;
                    for (int dx = -1; dx <= 1; dx++) {
                        if ((!dx && !dy) || (dx < 0 && x == 0) ||
                            (dx > 0 && x + 1 == w))
                            continue;
                        unsigned j = (unsigned)((int)i + dy * (int)w + dx);
                        if (vsig(t, j, i0)) {
                            r = 5;
                            break;
                        }
                    }
                }
            }
            for (unsigned k = 0; r == 4 && k < 4; k++)
                if (t->nu[i0 + k * w])
                    r = k;
        }
        t->run[c] = (uint8_t)r;
    }
    /* step: every sample's pairs */
    t->steps++;
    PAR_FOR(t, i, n) {
        unsigned x = i % w, y = i / w, k = y & 3;
        unsigned r = t->run[y / 4 * w + x];
        t->cnt[i] = 0;
        t->hasgain[i] = 0;
        if (r == 4) {
            if (!k)
                put(t, i, SCI_T1_CX_RL, 0);
            continue;
        }
        if (r < 4 && k < r)
            continue;
        if (r < 4 && k == r) {
            put(t, i, SCI_T1_CX_RL, 1);
            put(t, i, SCI_T1_CX_UNI, r >> 1);
            put(t, i, SCI_T1_CX_UNI, r & 1);
            t->tau[i] = 3;
            put_sign(t, i, x, y);
            continue;
        }
        if (t->rho[i] || t->tau[i])
            continue;
        nbhd nb = look(t, x, y);
        t->tau[i] = 3;
        put(t, i, SCI_T1_CX_ZC + t1_zc_label(t->band, nb.h, nb.v, nb.d),
            bit(t, i));
        if (bit(t, i))
            put_sign(t, i, x, y);
    }
}

/* The prefix sum of the counts in scan order and the scatter into coding
 * order (with the commit of the pass's state changes), L(N) + 1 steps;
 * the counts were written by the pass's last step. */
static size_t order_out(sci_t1p *t, size_t *ngain) {
    unsigned n = t->n, cur = 0;
    /* (counted with the pass's last step: it would write scan[] itself) */
    PAR_FOR(t, i, n)
        t->scan[0][t->sidx[i]] = t->cnt[i] | (uint32_t)t->hasgain[i] << 16;
    for (unsigned d = 1; d < n; d <<= 1) {
        t->steps++;
        PAR_FOR(t, s, n)
            t->scan[cur ^ 1][s] = s >= d ? t->scan[cur][s] + t->scan[cur][s - d]
                                         : t->scan[cur][s];
        cur ^= 1;
    }
    /* step: scatter, and commit: the new significance into rho, a refined
     * sample's rho to 2, and after the cleanup pass tau back to 0 */
    t->steps++;
    PAR_FOR(t, i, n) {
        uint32_t end = t->scan[cur][t->sidx[i]];
        unsigned off = (end & 0xFFFF) - t->cnt[i];
        for (unsigned k = 0; k < t->cnt[i]; k++)
            t->pairs[off + k] = t->slot[i][k];
        if (t->hasgain[i])
            t->gain[(end >> 16) - 1] = t->sgain[i];
        if (t->kind == SCI_T1P_MRP && t->tau[i] == 2)
            t->rho[i] = 2;
        if (t->nu[i])
            t->rho[i] = 1;
        t->nu[i] = 0;
        if (t->kind == SCI_T1P_CUP)
            t->tau[i] = 0;
    }
    uint32_t total = t->scan[cur][n - 1];
    *ngain = total >> 16;
    return total & 0xFFFF;
}

int sci_t1p_begin(sci_t1p *t, const sci_t1_params *p, const uint32_t *sm,
                  size_t stride, unsigned *passes, unsigned *zero_planes) {
    if (sci_t1_check(p))
        return -1;
    unsigned w = p->w, h = p->h;
    t->w = w;
    t->h = h;
    t->n = w * h;
    t->band = p->band;
    t->style = p->style;
    t->nbp = p->nbp;
    /* setup (not counted in the passes' steps): a step loading the
     * samples and their scan indices, and an OR reduction */
    uint32_t any = 0;
    PAR_FOR(t, i, t->n) {
        unsigned x = i % w, y = i / w, y0 = y & ~3u;
        unsigned rows = y0 + 4 < h ? 4 : h - y0;
        uint32_t v = sm[(size_t)y * stride + x];
        t->mag[i] = v & ~SCI_T1_SIGN;
        t->neg[i] = t->mag[i] && (v & SCI_T1_SIGN);
        t->rho[i] = t->tau[i] = t->nu[i] = 0;
        t->sidx[i] = (uint16_t)(y0 * w + x * rows + (y - y0));
        any |= t->mag[i];
    }
    if (any >> p->nbp)
        return -1;
    if (!any) {
        *passes = 0;
        *zero_planes = p->nbp;
        t->plane = -1;
        return 0;
    }
    unsigned top = 31;
    while (!(any >> top))
        top--;
    t->top = top;
    t->plane = (int)top;
    t->kind = SCI_T1P_CUP;
    *passes = 3 * top + 1;
    *zero_planes = p->nbp - 1 - top;
    return 0;
}

int sci_t1p_next(sci_t1p *t, sci_t1p_pass *o) {
    if (t->plane < 0)
        return 0;
    t->steps = 0;
    if (t->kind == SCI_T1P_SPP)
        sig_pass(t);
    else if (t->kind == SCI_T1P_MRP)
        ref_pass(t);
    else
        cleanup_pass(t);
    size_t n = order_out(t, &o->ngain);
    if (t->kind == SCI_T1P_CUP && (t->style & SCI_T1_SEGSYM)) {
        /* D.5: 1010 in the uniform context ends every cleanup pass */
        for (unsigned k = 0; k < 4; k++) {
            t->pairs[n].cx = SCI_T1_CX_UNI;
            t->pairs[n].d = (uint8_t)(~k & 1);
            t->pairs[n++].pos = SCI_T1P_NOPOS;
        }
    }
    o->kind = t->kind;
    o->plane = (unsigned)t->plane;
    o->n = n;
    o->pairs = t->pairs;
    o->gain = t->gain;
    o->steps = t->steps;
    if (t->kind == SCI_T1P_CUP) {
        t->plane--;
        t->kind = SCI_T1P_SPP;
    } else {
        t->kind++;
    }
    return 1;
}

int sci_t1p_encode(sci_t1p *t, const sci_t1_params *p, const uint32_t *sm,
                   size_t stride, uint8_t *out, size_t cap, sci_t1_result *r) {
    unsigned passes, zero;
    memset(r, 0, sizeof *r);
    if (sci_t1p_begin(t, p, sm, stride, &passes, &zero))
        return -1;
    r->zero_planes = zero;
    if (!passes)
        return 0;
    /* the one sequential consumer: MQ or raw coding (the segments of
     * t1.c, shared code); raw passes ignore the pairs' contexts.  The
     * distortion sum is exact, its order immaterial. */
    t1_out oc;
    t1_out_init(&oc, p->style, passes, out, cap);
    unsigned n = 0;
    sci_t1p_pass o;
    while (sci_t1p_next(t, &o)) {
        for (size_t k = 0; k < o.n; k++)
            t1_out_code(&oc, p, o.pairs[k].cx, o.pairs[k].d);
        t1_dsum dist = 0;
        for (size_t k = 0; k < o.ngain; k++)
            dist += o.gain[k];
        r->pass_dist[n] = t1_dsum_double(dist);
        r->pass_symbols[n] = oc.symbols;
        t1_out_end_pass(&oc);
        n++;
    }
    return t1_out_finish(&oc, r);
}
