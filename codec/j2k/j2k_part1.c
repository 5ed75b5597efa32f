/*
 * The EBCOT block coder of the JPEG 2000 encoder (j2k_coder.h), JPEG 2000
 * Part 1 on the frame layout of j2k_enc.h: Tier-1 of every
 * code-block with the EBCOT coder (t1.h), post-compression rate-distortion
 * optimisation (PCRD) over quality layers, and tier-2 packets with several
 * coding passes, codeword segments and layers per code-block (B.10).
 *
 * Rate allocation.  Each block's truncation points (after 0..passes passes)
 * have a rate (the cumulative pass length) and a distortion decrease (the
 * Tier-1 pass distortions times the band's weight, htj2k.c's
 * set_dist_weights).  Only points on the lower convex hull can be optimal;
 * for a slope threshold lambda every block stops at its last hull point
 * whose slope is >= lambda, which minimises distortion for the rate it
 * gives.  Layer l's lambda is the smallest hull slope (of any block) at
 * which the codestream up to layer l, headers included and counted by the
 * tier-2 coder itself, fits its budget: a binary search over the sorted
 * slopes.  Lambdas fall from layer to layer, so truncation points only
 * grow.
 *
 * Tier-2 state carries from layer to layer (inclusion and zero bit-plane
 * tag trees, Lblock); the search saves it before a layer and restores it
 * for each trial.  An inclusion tag tree leaf holds the block's first
 * layer where known and `layers` (never) otherwise: for thresholds up to
 * the current layer that codes exactly what the final values would.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "j2k_coder.h"
#include "j2k_t2.h"
#include "t1.h"

#define NPTS (SCI_T1_MAX_PASSES + 1)
#define SORT_MAX_CHUNKS 64 /* sort_keys's */

struct j2k_p1 {
    /* the C coder: a coder and a sample block per thread, its output */
    int ncoders;
    sci_t1_coder *coders;
    uint32_t *sm;
    sci_t1_result *res;
    sci_j2k_block_passes *cpu;
    /* the frame being written */
    const sci_j2k_block_passes *blk;
    const uint8_t *bytes;
    const size_t *off;
    /* convex hulls: block i's points (passes) and slopes, hull_n[i] of them */
    uint8_t *hull_pt, *hull_n;
    double *hull_slope;
    /* every hull slope, for the search: keys of their bit patterns
     * (decreasing slopes as increasing keys; slope_key) */
    uint64_t *cand, *cand_tmp;
    /* trunc[l * nblocks + i]: passes of block i in layers 0..l */
    uint8_t *trunc;
    /* tier-2 state, and its copy for the layer search */
    uint8_t *first, *lblock;
    uint8_t *first_saved, *lblock_saved;
    uint8_t *tree_saved;
    size_t tree_bytes;
    /* a packet header's buffer a thread of the pool (the layer search
     * counts the packets in parallel), hdr_cap bytes each */
    uint8_t *hdr;
    size_t hdr_cap;
    size_t *pk_len;       /* count_layer's: a packet's bytes */
    size_t *part;         /* set_trunc's: a thread's body bytes */
    size_t (*sort_at)[8][256]; /* sort_keys's counts, a chunk's */
    /* the packet bodies' copies, made after the headers and in parallel
     * (a lossless 4K 4:4:4 frame's bodies are megabytes): a block's
     * bytes of a layer go to out + at */
    struct body_copy {
        size_t at, n;
        const uint8_t *src;
    } *copies;
    size_t ncopies;
};

static size_t tree_state_bytes(const sci_tagtree *t) {
    return t->nodes * (sizeof(*t->low) + 1);
}

static size_t block_header_bound(const sci_htj2k_enc *e) {
    /* bits: inclusion (a 1 a level, zeros up to the layer), zero
     * bit-planes (a 1 a level, up to 30 zeros), passes (<= 16), Lblock
     * increment (<= 33), lengths (<= 39 a segment) */
    unsigned segs = e->p.cb_style & (SCI_T1_TERMALL | SCI_T1_BYPASS) ?
                    SCI_T1_MAX_PASSES : 1;
    size_t bits = 17 + SCI_J2K_MAX_LAYERS + 17 + 31 + 16 + 33 + 39 * segs;
    return bits / 7 + 2;
}

static int p1_init(sci_htj2k_enc *e) {
    struct j2k_p1 *p = calloc(1, sizeof(*p));
    if (!p)
        return -1;
    e->p1 = p;
    size_t n = e->nblocks ? e->nblocks : 1;
    /* a coder for each thread of the pool: encoding a frame allocates
     * nothing (htj2k.h) */
    p->ncoders = (int)sci_pool_threads(e->pool);
    p->coders = malloc((size_t)p->ncoders * sizeof(*p->coders));
    p->sm = malloc((size_t)p->ncoders * SCI_T1_MAX_SAMPLES * sizeof(*p->sm));
    p->res = malloc(n * sizeof(*p->res));
    p->cpu = calloc(n, sizeof(*p->cpu));
    p->hull_pt = malloc(n * NPTS);
    p->hull_n = calloc(n, 1);
    p->hull_slope = malloc(n * NPTS * sizeof(double));
    p->cand = malloc(n * NPTS * sizeof(*p->cand));
    p->cand_tmp = malloc(n * NPTS * sizeof(*p->cand_tmp));
    p->trunc = calloc(n * e->p.layers, 1);
    p->first = malloc(n);
    p->lblock = malloc(n);
    p->first_saved = malloc(n);
    p->lblock_saved = malloc(n);
    size_t most = 0;
    for (unsigned i = 0; i < e->nbands; i++) {
        const band *b = &e->bands[i];
        if (b->nbx && b->nby)
            p->tree_bytes += tree_state_bytes(&b->incl) +
                             tree_state_bytes(&b->zbp);
    }
    for (unsigned k = 0; k < e->npackets; k++)
        most = e->packets[k].nblocks > most ? e->packets[k].nblocks : most;
    p->tree_saved = malloc(p->tree_bytes ? p->tree_bytes : 1);
    p->hdr_cap = most * block_header_bound(e) + 16;
    p->hdr = malloc((size_t)p->ncoders * p->hdr_cap);
    p->pk_len = malloc((e->npackets ? e->npackets : 1) * sizeof(*p->pk_len));
    p->part = malloc((size_t)p->ncoders * sizeof(*p->part));
    p->sort_at = malloc(SORT_MAX_CHUNKS * sizeof(*p->sort_at));
    p->copies = malloc(n * e->p.layers * sizeof(*p->copies));
    if (!p->copies || !p->coders || !p->sm || !p->res || !p->cpu || !p->hull_pt || !p->hull_n || !p->hull_slope ||
        !p->cand || !p->cand_tmp || !p->trunc || !p->first || !p->lblock ||
        !p->first_saved || !p->lblock_saved || !p->tree_saved || !p->hdr ||
        !p->pk_len || !p->part || !p->sort_at)
        return -1;
    return 0;
}

static void p1_free(sci_htj2k_enc *e) {
    struct j2k_p1 *p = e->p1;
    if (!p)
        return;
    free(p->coders);
    free(p->sm);
    free(p->res);
    free(p->cpu);
    free(p->hull_pt);
    free(p->hull_n);
    free(p->hull_slope);
    free(p->cand);
    free(p->cand_tmp);
    free(p->trunc);
    free(p->first);
    free(p->lblock);
    free(p->first_saved);
    free(p->lblock_saved);
    free(p->tree_saved);
    free(p->hdr);
    free(p->pk_len);
    free(p->part);
    free(p->sort_at);
    free(p->copies);
    free(p);
    e->p1 = NULL;
}

void sci_htj2k_t1_params(const sci_htj2k_enc *e, size_t i, sci_t1_params *tp) {
    const block *k = &e->blocks[i];
    const band *b = &e->bands[k->band];
    memset(tp, 0, sizeof(*tp));
    tp->w = k->w;
    tp->h = k->h;
    tp->band = b->type;
    tp->nbp = b->mb;
    tp->style = e->p.cb_style;
}

void sci_j2k_block_passes_from(sci_j2k_block_passes *b, const sci_t1_result *r) {
    b->passes = r->passes;
    b->zero_planes = r->zero_planes;
    b->pass_len = r->pass_len;
    b->pass_dist = r->pass_dist;
    b->pass_term = r->pass_term;
}

/* --- Tier-1 with the C coder --------------------------------------------- */

typedef struct {
    sci_htj2k_enc *e;
    const void *coeffs;
    atomic_int failed;
} blocks_args;

/* Blocks [b, end) with worker wk's coder and samples. */
static void code_block_range(void *arg, size_t b, size_t end, unsigned wk) {
    blocks_args *a = arg;
    sci_htj2k_enc *e = a->e;
    struct j2k_p1 *p = e->p1;
    sci_t1_coder *coder = &p->coders[wk];
    uint32_t *sm = p->sm + (size_t)wk * SCI_T1_MAX_SAMPLES;
    for (size_t i = b; i < end; i++) {
        const block *k = &e->blocks[i];
        sci_t1_params tp;
        sci_htj2k_t1_params(e, i, &tp);
        if (j2k_quantize_block(e, i, a->coeffs, sm, k->w) < 0 ||
            sci_t1_encode(coder, &tp, sm, k->w, e->arena + k->slot,
                          k->slot_cap, &p->res[i]) < 0)
            atomic_store_explicit(&a->failed, 1, memory_order_relaxed);
        else
            sci_j2k_block_passes_from(&p->cpu[i], &p->res[i]);
    }
}

static int p1_code_blocks(sci_htj2k_enc *e, const void *coeffs) {
    blocks_args a = {e, coeffs, 0};
    sci_pool_for(e->pool, e->nblocks, 4, code_block_range, &a);
    return atomic_load(&a.failed) ? -1 : 0;
}

static const sci_j2k_block_passes *p1_cpu_passes(const sci_htj2k_enc *e) {
    return e->p1->cpu;
}

/* --- tier 2 -------------------------------------------------------------- */

static uint8_t *trunc_of(const sci_htj2k_enc *e, unsigned l) {
    return e->p1->trunc + (size_t)l * e->nblocks;
}

/* Fresh state for the first layer: nothing included, Lblock 3, the zero
 * bit-plane trees hold each block's value. */
static void t2_reset(sci_htj2k_enc *e) {
    struct j2k_p1 *p = e->p1;
    memset(p->first, e->p.layers, e->nblocks);
    memset(p->lblock, 3, e->nblocks);
    for (unsigned i = 0; i < e->nbands; i++) {
        band *b = &e->bands[i];
        if (!b->nbx || !b->nby)
            continue;
        for (unsigned y = 0; y < b->nby; y++)
            for (unsigned x = 0; x < b->nbx; x++) {
                const sci_j2k_block_passes *k =
                    &p->blk[b->first_block + (size_t)y * b->nbx + x];
                sci_tagtree_set(&b->zbp, x, y, (int32_t)k->zero_planes);
                sci_tagtree_set(&b->incl, x, y, (int32_t)e->p.layers);
            }
        sci_tagtree_build(&b->zbp);
        sci_tagtree_build(&b->incl);
    }
}

static void t2_save(sci_htj2k_enc *e, int restore) {
    struct j2k_p1 *p = e->p1;
    uint8_t *s = p->tree_saved;
    for (unsigned i = 0; i < e->nbands; i++) {
        band *b = &e->bands[i];
        if (!b->nbx || !b->nby)
            continue;
        sci_tagtree *t[2] = {&b->incl, &b->zbp};
        for (int j = 0; j < 2; j++) {
            size_t nl = t[j]->nodes * sizeof(*t[j]->low);
            if (restore) {
                memcpy(t[j]->low, s, nl);
                memcpy(t[j]->known, s + nl, t[j]->nodes);
            } else {
                memcpy(s, t[j]->low, nl);
                memcpy(s + nl, t[j]->known, t[j]->nodes);
            }
            s += nl + t[j]->nodes;
        }
    }
    if (restore) {
        memcpy(p->first, p->first_saved, e->nblocks);
        memcpy(p->lblock, p->lblock_saved, e->nblocks);
    } else {
        memcpy(p->first_saved, p->first, e->nblocks);
        memcpy(p->lblock_saved, p->lblock, e->nblocks);
    }
}


/* Packet (layer l, component and resolution of pk): the header into hdr
 * (p->hdr_cap bytes), the tier-2 state advanced.  Returns the header's
 * bytes and the body's in *body, or 0 on overflow. */
static size_t packet_header(sci_htj2k_enc *e, unsigned l, const packet *pk,
                            uint8_t *hdr, size_t *body) {
    struct j2k_p1 *p = e->p1;
    const uint8_t *now = trunc_of(e, l), *before = l ? trunc_of(e, l - 1) : NULL;
    sci_t2_bits w;
    sci_t2_bits_init(&w, hdr, p->hdr_cap);
    int any = 0;
    for (size_t i = pk->first_block; i < pk->first_block + pk->nblocks; i++)
        any |= now[i] > (before ? before[i] : 0);
    *body = 0;
    sci_t2_bits_put(&w, (uint64_t)any, 1);
    for (unsigned bi = 0; any && bi < pk->nbands; bi++) {
        band *b = &e->bands[pk->first_band + bi];
        if (!b->nbx || !b->nby)
            continue;
        const size_t base = b->first_block;
        for (unsigned y = 0; y < b->nby; y++)
            for (unsigned x = 0; x < b->nbx; x++) {
                size_t i = base + (size_t)y * b->nbx + x;
                if (p->first[i] == e->p.layers)
                    sci_tagtree_set(&b->incl, x, y,
                                    now[i] > (before ? before[i] : 0) ?
                                    (int32_t)l : (int32_t)e->p.layers);
            }
        sci_tagtree_refresh(&b->incl);
        for (unsigned y = 0; y < b->nby; y++)
            for (unsigned x = 0; x < b->nbx; x++) {
                size_t i = base + (size_t)y * b->nbx + x;
                const sci_j2k_block_passes *k = &p->blk[i];
                unsigned from = before ? before[i] : 0, to = now[i];
                if (p->first[i] == e->p.layers) {
                    sci_tagtree_encode(&b->incl, &w, x, y, (int32_t)l + 1);
                    if (to == from)
                        continue;
                    p->first[i] = (uint8_t)l;
                    sci_tagtree_encode(&b->zbp, &w, x, y,
                                       (int32_t)k->zero_planes + 1);
                } else {
                    sci_t2_bits_put(&w, to > from, 1);
                    if (to == from)
                        continue;
                }
                *body += sci_j2k_t2_put_p1_passes(&w, &p->lblock[i],
                                                  k->pass_len, k->pass_term,
                                                  from, to);
            }
    }
    return sci_t2_bits_finish(&w);
}

static int write_packet(sci_htj2k_enc *e, unsigned l, const packet *pk,
                        out_buf *o) {
    struct j2k_p1 *p = e->p1;
    size_t body, n = packet_header(e, l, pk, p->hdr, &body);
    if (!n)
        return -1;
    put_bytes(o, p->hdr, n);
    if (!o->p) {
        o->len += body;
        return 0;
    }
    const uint8_t *now = trunc_of(e, l), *before = l ? trunc_of(e, l - 1) : NULL;
    for (size_t i = pk->first_block; i < pk->first_block + pk->nblocks; i++) {
        const sci_j2k_block_passes *k = &p->blk[i];
        unsigned from = before ? before[i] : 0, to = now[i];
        if (to == from)
            continue;
        size_t a = from ? k->pass_len[from - 1] : 0, z = k->pass_len[to - 1];
        if (o->len + (z - a) <= o->cap)
            p->copies[p->ncopies++] = (struct body_copy) {o->len, z - a,
                                                          p->bytes + p->off[i] + a};
        o->len += z - a;
    }
    return 0;
}

typedef struct {
    sci_htj2k_enc *e;
    unsigned l;
} count_args;

static void count_packets(void *arg, size_t k, size_t end, unsigned wk) {
    const count_args *a = arg;
    struct j2k_p1 *p = a->e->p1;
    for (; k < end; k++) {
        size_t body, n = packet_header(a->e, a->l, &a->e->packets[k],
                                       p->hdr + wk * p->hdr_cap, &body);
        p->pk_len[k] = n ? n + body : SIZE_MAX;
    }
}

/* The bytes of layer l's packets, the tier-2 state advanced.  Every
 * band's state is its own, so the packets are counted in any order, on
 * the pool's threads: the layer search counts a 4K frame's headers about
 * ten times (4.8 of the allocator's 10 ms on one thread). */
static size_t count_layer(sci_htj2k_enc *e, unsigned l) {
    struct j2k_p1 *p = e->p1;
    count_args a = {e, l};
    sci_pool_for(sci_pool_if(e->pool, e->nblocks >= 256), e->npackets, 1,
                 count_packets, &a);
    size_t n = 0;
    for (unsigned k = 0; k < e->npackets; k++) {
        if (p->pk_len[k] == SIZE_MAX)
            return SIZE_MAX;
        n += p->pk_len[k];
    }
    return n;
}

typedef struct {
    const struct j2k_p1 *p;
    uint8_t *out;
} copies_args;

static void copy_bodies(void *arg, size_t b, size_t end, unsigned wk) {
    const copies_args *a = arg;
    for (size_t j = b; j < end; j++)
        memcpy(a->out + a->p->copies[j].at, a->p->copies[j].src,
               a->p->copies[j].n);
}

/* Every layer's packets in progression order, at the chosen truncation. */
static int p1_write_packets(sci_htj2k_enc *e, const long *len, out_buf *o,
                            size_t base, sci_htj2k_span *spans,
                            size_t *nspans, uint32_t *plen) {
    (void)len, (void)base, (void)spans; /* the bodies are written here */
    if (nspans)
        *nspans = 0;
    unsigned L = e->p.layers, C = e->g.components, R = e->g.levels + 1;
    t2_reset(e);
    /* With one precinct per resolution every order is a nest of layer,
     * resolution and component loops. */
    unsigned dims[3] = {L, R, C}, order[3];
    switch (e->p.progression) {
    case SCI_J2K_LRCP:
        order[0] = 0, order[1] = 1, order[2] = 2;
        break;
    case SCI_J2K_RLCP:
        order[0] = 1, order[1] = 0, order[2] = 2;
        break;
    case SCI_J2K_RPCL:
        order[0] = 1, order[1] = 2, order[2] = 0;
        break;
    default: /* PCRL, CPRL */
        order[0] = 2, order[1] = 1, order[2] = 0;
        break;
    }
    unsigned idx[3];
    struct j2k_p1 *p = e->p1;
    p->ncopies = 0;
    for (unsigned a = 0; a < dims[order[0]]; a++)
        for (unsigned b = 0; b < dims[order[1]]; b++)
            for (unsigned c = 0; c < dims[order[2]]; c++) {
                idx[order[0]] = a, idx[order[1]] = b, idx[order[2]] = c;
                const packet *pk = &e->packets[idx[2] * R + idx[1]];
                size_t at = o->len;
                if (write_packet(e, idx[0], pk, o) < 0)
                    return -1;
                if (plen) {
                    if ((uint64_t)(o->len - at) > 0xFFFFFFFFu)
                        return -1;
                    *plen++ = (uint32_t)(o->len - at);
                }
            }
    size_t body = 0;
    for (size_t j = 0; j < p->ncopies; j++)
        body += p->copies[j].n;
    copies_args a = {p, o->p};
    sci_pool_for(sci_pool_if(e->pool, body > ((size_t)1 << 20)), p->ncopies,
                 0, copy_bodies, &a);
    return 0;
}

/* --- rate allocation ----------------------------------------------------- */

static void block_hull(sci_htj2k_enc *e, size_t i) {
    struct j2k_p1 *p = e->p1;
    const sci_j2k_block_passes *k = &p->blk[i];
    double w = e->bands[e->blocks[i].band].dist_weight;
    uint8_t *pt = p->hull_pt + i * NPTS;
    double *sl = p->hull_slope + i * NPTS;
    double r[NPTS], d[NPTS];
    unsigned n = 0;
    r[0] = 0, d[0] = 0;
    for (unsigned j = 1; j <= k->passes; j++) {
        r[j] = (double)k->pass_len[j - 1];
        d[j] = d[j - 1] + w * k->pass_dist[j - 1];
    }
    /* stack of hull points after the origin, slopes strictly falling */
    for (unsigned j = 1; j <= k->passes; j++) {
        for (;;) {
            unsigned top = n ? pt[n - 1] : 0;
            if (d[j] <= d[top])
                goto next;
            double dr = r[j] - r[top];
            double s = dr > 0 ? (d[j] - d[top]) / dr : INFINITY;
            if (n && s >= sl[n - 1]) {
                n--;
                continue;
            }
            pt[n] = (uint8_t)j;
            sl[n] = s;
            n++;
            break;
        }
    next:;
    }
    p->hull_n[i] = (uint8_t)n;
}

static void hull_range(void *arg, size_t i, size_t end, unsigned wk) {
    (void)wk;
    for (; i < end; i++)
        block_hull(arg, i);
}

typedef struct {
    sci_htj2k_enc *e;
    unsigned l;
    double lambda;
} trunc_args;

static void trunc_range(void *arg, size_t i, size_t end, unsigned wk) {
    const trunc_args *a = arg;
    sci_htj2k_enc *e = a->e;
    struct j2k_p1 *p = e->p1;
    unsigned l = a->l;
    double lambda = a->lambda;
    uint8_t *t = trunc_of(e, l), *before = l ? trunc_of(e, l - 1) : NULL;
    size_t body = 0;
    for (; i < end; i++) {
        const double *sl = p->hull_slope + i * NPTS;
        const size_t *len = p->blk[i].pass_len;
        unsigned n = 0, h = p->hull_n[i];
        while (n < h && sl[n] >= lambda)
            n++;
        unsigned v = n ? p->hull_pt[i * NPTS + n - 1] : 0;
        unsigned b = before ? before[i] : 0;
        if (v > b)
            body += len[v - 1] - (b ? len[b - 1] : 0);
        t[i] = (uint8_t)(v > b ? v : b);
    }
    p->part[wk] += body;
}

/* trunc of layer l for threshold lambda, never below layer l - 1's, on
 * the pool's threads; returns the codeword bytes the layer's packets then
 * carry (their bodies: a lower bound of their size) */
static size_t set_trunc(sci_htj2k_enc *e, unsigned l, double lambda) {
    struct j2k_p1 *p = e->p1;
    trunc_args a = {e, l, lambda};
    memset(p->part, 0, (size_t)p->ncoders * sizeof(*p->part));
    sci_pool_for(sci_pool_if(e->pool, e->nblocks >= 1024), e->nblocks, 0,
                 trunc_range, &a);
    size_t body = 0;
    for (int w = 0; w < p->ncoders; w++)
        body += p->part[w];
    return body;
}

static void set_trunc_all(sci_htj2k_enc *e, unsigned l) {
    uint8_t *t = trunc_of(e, l);
    for (size_t i = 0; i < e->nblocks; i++)
        t[i] = (uint8_t)e->p1->blk[i].passes;
}

/* Hull slopes are positive (some infinite): their bit patterns order as
 * their values do, so a slope's key is the complement of its pattern and
 * increasing keys are decreasing slopes. */
static uint64_t slope_key(double s) {
    uint64_t b;
    memcpy(&b, &s, sizeof(b));
    return ~b;
}

static double key_slope(uint64_t k) {
    double s;
    k = ~k;
    memcpy(&s, &k, sizeof(s));
    return s;
}

/* LSD radix sort of a[0..n), tmp as large: qsort of the slopes took half
 * the allocator's time on a 4K frame.  Digits every key shares (the high
 * exponent bits, mostly) cost nothing beyond the first counting pass,
 * which counts all eight digits at once.  Many keys are cut into ranges
 * in order (chunks), counted and scattered in parallel, a chunk's keys of
 * a digit after the earlier chunks' of that digit, so that each pass
 * stays stable; a pass after one that moved keys counts its digit again
 * by chunk.  Equal keys are equal values, so the result is the one sort's
 * whatever the chunks. */
typedef struct {
    uint64_t *src, *dst;
    size_t n, chunks;
    unsigned sh;
    size_t (*at)[8][256]; /* a chunk's counts, then its next places */
} sort_args;

static size_t chunk_start(const sort_args *s, size_t c) {
    return s->n / s->chunks * c + (c < s->n % s->chunks ? c : s->n % s->chunks);
}

static void count_digits(void *arg, size_t c, size_t end, unsigned wk) {
    const sort_args *s = arg;
    (void)wk;
    for (; c < end; c++) {
        size_t (*at)[256] = s->at[c];
        memset(at, 0, sizeof(s->at[c]));
        for (size_t i = chunk_start(s, c), z = chunk_start(s, c + 1); i < z; i++)
            for (unsigned d = 0; d < 8; d++)
                at[d][s->src[i] >> (8 * d) & 255]++;
    }
}

/* a chunk's counts of the digit at sh, of the keys in their order now */
static void count_digit(void *arg, size_t c, size_t end, unsigned wk) {
    const sort_args *s = arg;
    (void)wk;
    for (; c < end; c++) {
        size_t *at = s->at[c][s->sh / 8];
        memset(at, 0, sizeof(s->at[c][0]));
        for (size_t i = chunk_start(s, c), z = chunk_start(s, c + 1); i < z; i++)
            at[s->src[i] >> s->sh & 255]++;
    }
}

static void scatter_digit(void *arg, size_t c, size_t end, unsigned wk) {
    const sort_args *s = arg;
    (void)wk;
    for (; c < end; c++) {
        size_t *at = s->at[c][s->sh / 8];
        for (size_t i = chunk_start(s, c), z = chunk_start(s, c + 1); i < z; i++)
            s->dst[at[s->src[i] >> s->sh & 255]++] = s->src[i];
    }
}

static void sort_keys(uint64_t *a, uint64_t *tmp, size_t n, sci_pool *pool,
                      size_t (*at)[8][256]) {
    if (n < 2)
        return;
    unsigned threads = sci_pool_threads(pool);
    size_t chunks = n < 32768 || threads < 2 ? 1 :
                    threads < SORT_MAX_CHUNKS ? threads : SORT_MAX_CHUNKS;
    sci_pool *use = chunks > 1 ? pool : NULL;
    sort_args s = {a, tmp, n, chunks, 0, at};
    uint64_t k0 = a[0];
    int moved = 0;
    sci_pool_for(use, chunks, 1, count_digits, &s);
    for (unsigned d = 0; d < 8; d++) {
        /* every key shares this digit: nothing moves */
        size_t same = 0;
        for (size_t c = 0; c < chunks; c++)
            same += at[c][d][k0 >> (8 * d) & 255];
        if (same == n)
            continue;
        s.sh = 8 * d;
        /* the chunks hold other keys once a pass has moved them */
        if (moved && chunks > 1)
            sci_pool_for(use, chunks, 1, count_digit, &s);
        moved = 1;
        size_t sum = 0;
        for (unsigned v = 0; v < 256; v++)
            for (size_t c = 0; c < chunks; c++) {
                size_t k = at[c][d][v];
                at[c][d][v] = sum;
                sum += k;
            }
        sci_pool_for(use, chunks, 1, scatter_digit, &s);
        uint64_t *t = s.src;
        s.src = s.dst;
        s.dst = t;
    }
    if (s.src != a)
        memcpy(a, s.src, n * sizeof(*a));
}

/* Chooses every layer's truncation points; the markers take `overhead`
 * bytes. */
static int allocate(sci_htj2k_enc *e, size_t overhead) {
    struct j2k_p1 *p = e->p1;
    unsigned L = e->p.layers;
    set_trunc_all(e, 0);
    if (L == 1 && e->p.bitrate <= 0)
        return 0; /* every pass in the one layer: nothing to choose */
    /* the size with every pass in one layer: the lossless (or full) size */
    t2_reset(e);
    size_t full = count_layer(e, 0);
    if (full == SIZE_MAX)
        return -1;
    full += overhead + (L - 1) * e->npackets; /* later layers: empty packets */
    double target = e->p.bitrate > 0 ?
                    e->p.bitrate * (double)e->g.width * e->g.height / 8.0 : 0;
    if (L == 1 && (target == 0 || full <= target))
        return 0; /* trunc of layer 0 holds every pass */
    sci_pool_for(sci_pool_if(e->pool, e->nblocks >= 256), e->nblocks, 0,
                 hull_range, e);
    size_t nc = 0;
    for (size_t i = 0; i < e->nblocks; i++) {
        for (unsigned j = 0; j < p->hull_n[i]; j++)
            p->cand[nc++] = slope_key(p->hull_slope[i * NPTS + j]);
    }
    sort_keys(p->cand, p->cand_tmp, nc, e->pool, p->sort_at);
    size_t u = 0;
    for (size_t j = 0; j < nc; j++)
        if (!u || p->cand[j] != p->cand[u - 1])
            p->cand[u++] = p->cand[j];
    nc = u;
    double last = target > 0 && full > target ? target : (double)full;
    size_t done = overhead; /* bytes of the layers chosen so far */
    long lo = -1;           /* the previous layer's candidate */
    t2_reset(e);
    for (unsigned l = 0; l < L; l++) {
        double budget = ldexp(last, -(int)(L - 1 - l));
        /* later layers' empty packets are part of the codestream too */
        double room = budget - (double)done - (double)(L - 1 - l) * e->npackets;
        t2_save(e, 0);
        if (l == L - 1 && !(target > 0 && full > target)) {
            set_trunc_all(e, l);
        } else {
            /* largest k in [lo, nc) whose layer fits; k = lo: nothing new
             * beyond the previous layer (and always taken if none fits) */
            long a = lo, z = (long)nc - 1;
            while (a < z) {
                long m = a + (z - a + 1) / 2;
                /* the bodies alone too large: no need to count headers */
                if ((double)set_trunc(e, l, key_slope(p->cand[m])) > room) {
                    z = m - 1;
                    continue;
                }
                t2_save(e, 1);
                size_t n = count_layer(e, l);
                if (n != SIZE_MAX && (double)n <= room)
                    a = m;
                else
                    z = m - 1;
            }
            if (a >= 0)
                set_trunc(e, l, key_slope(p->cand[a]));
            else if (l)
                memcpy(trunc_of(e, l), trunc_of(e, l - 1), e->nblocks);
            else
                memset(trunc_of(e, 0), 0, e->nblocks);
            lo = a;
            t2_save(e, 1);
        }
        if (l + 1 == L)
            break; /* the packets are written from a fresh state */
        size_t n = count_layer(e, l);
        if (n == SIZE_MAX)
            return -1;
        done += n;
    }
    return 0;
}

static int p1_allocate(sci_htj2k_enc *e, const sci_j2k_block_passes *blk,
                       const uint8_t *bytes, const size_t *off,
                       size_t overhead) {
    struct j2k_p1 *p = e->p1;
    if (!p)
        return -1;
    p->blk = blk;
    p->bytes = bytes;
    p->off = off;
    return allocate(e, overhead);
}

static size_t p1_block_bytes_bound(const sci_htj2k_enc *e, const block *k) {
    return sci_t1_max_bytes(k->w, k->h, e->bands[k->band].mb);
}

static size_t p1_packet_overhead_bound(const sci_htj2k_enc *e) {
    return e->nblocks * e->p.layers * block_header_bound(e) +
           (size_t)e->npackets * e->p.layers * 2;
}

const j2k_block_coder j2k_coder_ebcot = {
    .name = "EBCOT",
    .init = p1_init,
    .free = p1_free,
    .code_blocks = p1_code_blocks,
    .passes = p1_cpu_passes,
    .allocate = p1_allocate,
    .write_packets = p1_write_packets,
    .block_bytes_bound = p1_block_bytes_bound,
    .packet_overhead_bound = p1_packet_overhead_bound,
};
