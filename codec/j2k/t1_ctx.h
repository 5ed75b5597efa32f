/*
 * What the Tier-1 encoder and decoder share (internal to codec/t1*.c): the
 * per-sample state flags, the context formation of D.3 (Tables D.1 to D.4)
 * and the initial context states of Table D.7.
 *
 * State lives in a (w + 2) x (h + 2) array of flags with a border of
 * always-insignificant samples, so every sample has eight neighbours.
 */
#ifndef SCI_CODEC_T1_CTX_H
#define SCI_CODEC_T1_CTX_H

#include "mq.h"
#include "t1.h"
#include "t1_rules.h"

#define T1_SIG 1u   /* sigma: significant */
#define T1_REF 2u   /* sigma': refined at least once */
#define T1_VIS 4u   /* pi: coded in this plane's significance pass */
#define T1_NEG 8u   /* chi: negative (valid once significant) */

/* Table D.7: all contexts at state 0, MPS 0, except ZC label 0 (state 4),
 * run-length (state 3) and uniform (state 46). */
static inline void t1_init_states(uint8_t *s) {
    for (unsigned i = 0; i < SCI_T1_NCTX; i++)
        s[i] = sci_mq_state(0, 0);
    s[SCI_T1_CX_ZC] = sci_mq_state(4, 0);
    s[SCI_T1_CX_RL] = sci_mq_state(3, 0);
    s[SCI_T1_CX_UNI] = sci_mq_state(46, 0);
}

/* The neighbourhood of the sample at f: below = 0 leaves out the row
 * below (vertically causal mode, last row of a stripe). */
static inline unsigned t1_sig(const uint16_t *f) {
    return *f & T1_SIG;
}

static inline unsigned t1_any_sig(const uint16_t *f, size_t W, int below) {
    unsigned s = t1_sig(f - W - 1) | t1_sig(f - W) | t1_sig(f - W + 1) |
                 t1_sig(f - 1) | t1_sig(f + 1);
    if (below)
        s |= t1_sig(f + W - 1) | t1_sig(f + W) | t1_sig(f + W + 1);
    return s;
}

static inline unsigned t1_zc_ctx(const uint16_t *f, size_t W, unsigned band,
                                 int below) {
    unsigned h = t1_sig(f - 1) + t1_sig(f + 1);
    unsigned v = t1_sig(f - W);
    unsigned d = t1_sig(f - W - 1) + t1_sig(f - W + 1);
    if (below) {
        v += t1_sig(f + W);
        d += t1_sig(f + W - 1) + t1_sig(f + W + 1);
    }
    return SCI_T1_CX_ZC + t1_zc_label(band, h, v, d);
}

/* A neighbour's sign contribution (Table D.2): +1 significant positive,
 * -1 significant negative, 0 insignificant. */
static inline int t1_contrib(const uint16_t *f) {
    if (!(*f & T1_SIG))
        return 0;
    return *f & T1_NEG ? -1 : 1;
}

static inline int t1_clamp1(int x) {
    return x > 1 ? 1 : x < -1 ? -1 : x;
}

/* Table D.3: the sign coding context; *xr is the bit the sign is XORed
 * with.  The table is symmetric under negating both contributions, with
 * xr = 1 on the negated half. */
static inline unsigned t1_sc_ctx(const uint16_t *f, size_t W, int below,
                                 unsigned *xr) {
    int h = t1_clamp1(t1_contrib(f - 1) + t1_contrib(f + 1));
    int v = t1_contrib(f - W) + (below ? t1_contrib(f + W) : 0);
    v = t1_clamp1(v);
    *xr = 0;
    if (h < 0 || (h == 0 && v < 0)) {
        h = -h;
        v = -v;
        *xr = 1;
    }
    return (unsigned)(SCI_T1_CX_SC + (h ? 3 : 0) + v);
}

/* Table D.4: the first refinement of a sample depends on whether any
 * neighbour is significant, later ones share a context. */
static inline unsigned t1_mr_ctx(const uint16_t *f, size_t W, int below) {
    if (*f & T1_REF)
        return SCI_T1_CX_MR + 2;
    return SCI_T1_CX_MR + (t1_any_sig(f, W, below) ? 1 : 0);
}

/* Whether the row below counts for a sample in row y. */
static inline int t1_below(unsigned style, unsigned y) {
    return !(style & SCI_T1_VCAUSAL) || (y & 3) != 3;
}

/* Run-length mode (D.3.4) for the column of a stripe starting at flag
 * `col`, rows y0..y1-1: a full column of four samples, none coded yet in
 * this plane and none with a significant neighbour.  Partial stripes
 * never use it. */
static inline int t1_run_eligible(const uint16_t *col, size_t W,
                                  unsigned style, unsigned y0, unsigned y1) {
    if (y1 - y0 != 4)
        return 0;
    for (unsigned k = 0; k < 4; k++) {
        const uint16_t *f = col + k * W;
        if ((*f & (T1_SIG | T1_VIS)) ||
            t1_any_sig(f, W, t1_below(style, y0 + k)))
            return 0;
    }
    return 1;
}

static inline int64_t t1_sq(int64_t x) {
    return x * x;
}

/* A pass's distortion decrease is the sum of the int64 terms below (each
 * within 2^62), summed exactly in a 128-bit integer: no sum of a block's
 * terms can overflow it, and integer addition makes the result the same in
 * any order (the CUDA coder adds the same terms per lane and then across
 * lanes).  pass_dist is that sum rounded once to double (round to nearest,
 * ties to even).  __int128 is a GCC and Clang extension, hence
 * __extension__ (C99 has no 128-bit type). */
__extension__ typedef __int128 t1_dsum;

static inline double t1_dsum_double(t1_dsum s) {
    return (double)s;
}

/* Distortion decrease (squared error of the quantization index, with
 * sci_t1_decode's reconstruction) when a sample of magnitude m becomes
 * significant in plane p: from 0 to the midpoint 1.5 * 2^p (or exactly 1
 * in plane 0). */
static inline int64_t t1_sig_gain(uint32_t m, unsigned p) {
    int64_t rec = p ? (int64_t)3 << (p - 1) : 1;
    return t1_sq(m) - t1_sq((int64_t)m - rec);
}

/* ... when plane p of an already significant sample is refined. */
static inline int64_t t1_ref_gain(uint32_t m, unsigned p) {
    int64_t before = (int64_t)(m >> (p + 1) << (p + 1)) + ((int64_t)1 << p);
    int64_t after = p ? (int64_t)(m >> p << p) + ((int64_t)1 << (p - 1)) : m;
    return t1_sq((int64_t)m - before) - t1_sq((int64_t)m - after);
}

/* ---- passes and codeword segments (D.4, D.6, Table D.9) ---- */

/* The coder side of the segments, shared by t1.c and t1_par.c so that both
 * write the same bytes: decisions go to the MQ coder or, in raw passes, to
 * the raw coder; t1_out_end_pass terminates segments where Table D.9 (and
 * the style) says and starts the next one. */
typedef struct {
    sci_mq_enc mq;
    sci_raw_enc raw;
    unsigned style, passes, n;
    int israw;            /* the current pass is raw */
    int overflow;
    uint8_t *buf;
    size_t cap;
    unsigned long symbols;   /* decisions coded, MQ and raw */
    size_t end[SCI_T1_MAX_PASSES];   /* terminated: segment end; raw: len */
    sci_mq_mark mark[SCI_T1_MAX_PASSES];
} t1_out;

void t1_out_init(t1_out *o, unsigned style, unsigned passes, uint8_t *buf,
                 size_t cap);
/* Ends the current pass. */
void t1_out_end_pass(t1_out *o);
/* After the last pass: fills r's len, symbols, passes and segment fields
 * and pass_len; returns 0, or -2 when the bytes did not fit. */
int t1_out_finish(t1_out *o, sci_t1_result *r);

static inline void t1_out_code(t1_out *o, const sci_t1_params *p,
                               unsigned cx, unsigned d) {
    o->symbols++;
    if (o->israw) {
        if (p->trace)
            p->trace(p->trace_user, SCI_T1_NCTX, d);
        sci_raw_enc_put(&o->raw, d);
    } else {
        if (p->trace)
            p->trace(p->trace_user, cx, d);
        sci_mq_enc_encode(&o->mq, cx, d);
    }
}

#endif
