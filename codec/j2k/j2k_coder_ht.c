/*
 * The HT block coder of the JPEG 2000 encoder (j2k_coder.h): every block
 * coded by ht_block.c in one cleanup pass, one quality layer, the rate
 * set by the step (htj2k.c's search); and its tier-2, packet headers of
 * one pass a block written in few bit operations (all-included bands
 * need no tag tree state), the bodies placed by spans so that a GPU
 * backend can copy them straight to their place.
 *
 * With refinement passes (params refinement) a block is a cleanup pass at
 * plane 1 and the SigProp (and MagRef) pass of plane 0 in one refinement
 * segment, or, where nothing reaches plane 1, a cleanup pass at plane 0;
 * the zero bit-planes then differ between blocks of a band, so those
 * packet headers go through the tag-tree coder, and each block's three
 * prefixes (cleanup, + SigProp, + MagRef) are truncation points for rate
 * control (fit_rate).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ht_block.h"
#include "j2k_coder.h"
#include "j2k_t2.h"

/* ---- block coding ------------------------------------------------------------ */

/* Per block, with refinement passes. */
struct j2k_htref {
    uint32_t *cup, *ref_sp, *ref; /* segment lengths as coded */
    uint8_t *plane;               /* the cleanup pass's bit-plane: 0 or 1 */
    uint8_t *passes;              /* passes written: 1..3 */
    /* estimated squared-error drop (image domain) of SigProp, MagRef */
    float *gain_sp, *gain_mr;
};

static unsigned ref_max_passes(const sci_htj2k_enc *e) {
    return e->p.refinement == SCI_HTJ2K_REF_ALL ? 3 : 2;
}

/* What the refinement passes of plane 0 are worth, from the indices: a
 * MagRef bit halves a significant sample's uncertainty (2 steps wide to
 * 1: squared error step^2 / 3 to step^2 / 12), a sample SigProp finds
 * (index 1, recovered as 1.5 steps instead of 0) saves 27/12 step^2 on
 * average.  SigProp only visits samples next to significant ones; its
 * count here takes the 8 neighbours significant at plane 1, a slight
 * underestimate (it also follows samples it has just found). */
static void ref_gains(const sci_htj2k_enc *e, size_t i, const uint32_t *sm) {
    const block *k = &e->blocks[i];
    unsigned w = k->w, h = k->h;
    size_t nmr = 0, nsp = 0;
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++) {
            uint32_t m = sm[(size_t)y * w + x] & ~SCI_HT_SIGN;
            if (m >= 2) {
                nmr++;
            } else if (m == 1) {
                int near = 0;
                for (int dy = -1; dy <= 1 && !near; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int yy = (int)y + dy, xx = (int)x + dx;
                        if (yy < 0 || xx < 0 || yy >= (int)h || xx >= (int)w)
                            continue;
                        if ((sm[(size_t)yy * w + xx] & ~SCI_HT_SIGN) >= 2) {
                            near = 1;
                            break;
                        }
                    }
                nsp += near;
            }
        }
    double dw = e->bands[k->band].dist_weight;
    e->htref->gain_sp[i] = (float)(dw * 2.25 * (double)nsp);
    e->htref->gain_mr[i] = (float)(dw * 0.25 * (double)nmr);
}

/* Block i with refinement passes into its arena slot: e->len[i] its
 * bytes (cleanup segment, then the refinement segment as far as the
 * passes go), 0 for an all-zero block, -1 on failure. */
static void code_block_ref(sci_htj2k_enc *e, size_t i, const uint32_t *sm) {
    const block *k = &e->blocks[i];
    struct j2k_htref *r = e->htref;
    unsigned mb = e->bands[k->band].mb;
    unsigned style = e->p.cb_style & SCI_HT_STYLE_VCAUSAL;
    long n = 0;
    sci_ht_ref_lengths rl;
    if (mb >= 2)
        n = sci_ht_encode_block_ref(&e->tables, sm, k->w, k->h, k->w, 1, style,
                                    e->arena + k->slot, k->slot_cap, &rl);
    if (n > 0) {
        r->cup[i] = (uint32_t)rl.cup;
        r->ref_sp[i] = (uint32_t)rl.ref_sp;
        r->ref[i] = (uint32_t)rl.ref;
        r->plane[i] = 1;
        r->passes[i] = (uint8_t)ref_max_passes(e);
        e->len[i] = (long)(rl.cup + (r->passes[i] == 3 ? rl.ref : rl.ref_sp));
        ref_gains(e, i, sm);
        return;
    }
    if (n < 0) {
        e->len[i] = -1;
        return;
    }
    /* nothing at plane 1: the cleanup pass codes plane 0 itself */
    n = sci_ht_encode_block(&e->tables, sm, k->w, k->h, k->w,
                            e->arena + k->slot, k->slot_cap);
    e->len[i] = n;
    r->cup[i] = n > 0 ? (uint32_t)n : 0;
    r->ref_sp[i] = r->ref[i] = 0;
    r->plane[i] = 0;
    r->passes[i] = 1;
    r->gain_sp[i] = r->gain_mr[i] = 0;
}

typedef struct {
    sci_htj2k_enc *e;
    const void *coeffs;
    atomic_int failed;
} blocks_args;

static void code_block_range(void *arg, size_t b, size_t end, unsigned wk) {
    blocks_args *a = arg;
    sci_htj2k_enc *e = a->e;
    for (size_t i = b; i < end; i++) {
        uint32_t sm[4096];
        const block *k = &e->blocks[i];
        int failed = j2k_quantize_block(e, i, a->coeffs, sm, k->w) < 0;
        if (e->htref)
            code_block_ref(e, i, sm);
        else
            e->len[i] = sci_ht_encode_block(&e->tables, sm, k->w, k->h, k->w,
                                            e->arena + k->slot, k->slot_cap);
        if (failed || e->len[i] < 0)
            atomic_store_explicit(&a->failed, 1, memory_order_relaxed);
    }
}

static int code_blocks(sci_htj2k_enc *e, const void *coeffs) {
    blocks_args a = {e, coeffs, 0};
    sci_pool_for(e->pool, e->nblocks, 4, code_block_range, &a);
    return atomic_load(&a.failed) ? -1 : 0;
}

/* ---- tier 2 ---------------------------------------------------------------- */

/* A band whose blocks are all included.  Both tag trees then have equal
 * leaves (inclusion 0, zero bit-planes M_b - 1), so a block's bits on each
 * are a 1 for every node its path visits first (B.10.2), the root's value
 * as zeros before the first; in raster order the path of block (x, y)
 * visits first exactly the nodes of the levels l with x and y multiples of
 * 2^l. */
static void band_all_included(const band *b, const long *len, sci_t2_bits *w) {
    unsigned top = b->incl.levels - 1; /* levels above the leaves */
    unsigned zeros = b->mb >= 1 ? b->mb - 1 : 0;
    const long *l = len + b->first_block;
    for (unsigned y = 0; y < b->nby; y++)
        for (unsigned x = 0; x < b->nbx; x++, l++) {
            unsigned xy = x | y;
            unsigned tz = xy ? (unsigned)__builtin_ctz(xy) : top;
            unsigned nn = (tz < top ? tz : top) + 1;
            if (!xy) {
                /* first block: inclusion path, then the zero bit-plane
                 * root's value */
                sci_t2_bits_run(w, 1, nn);
                sci_t2_bits_run(w, 0, zeros);
                sci_j2k_t2_put_ht_single(w, (UINT64_C(1) << nn) - 1, nn,
                                         (uint64_t)*l);
            } else {
                sci_j2k_t2_put_ht_single(w, (UINT64_C(1) << (2 * nn)) - 1,
                                         2 * nn, (uint64_t)*l);
            }
        }
}

/* A band with included and left-out blocks: the inclusion tree's nodes
 * hold 0 (a block of the subtree is included) or 1, and with one layer
 * (threshold 1) a node emits on its first visit a 1 (value 0, go on down)
 * or a 0 (value 1, stop); a known node with value 1 stops the walk.  The
 * zero bit-plane tree is constant (M_b - 1 at every leaf, left-out blocks
 * included), so its bits are as in band_all_included, with the first
 * visits tracked per node. */
static void band_mixed(band *b, const long *len, sci_t2_bits *w) {
    sci_tagtree *ti = &b->incl, *tz = &b->zbp;
    unsigned levels = ti->levels;
    int32_t *v = ti->value;
    const long *l = len + b->first_block;
    size_t nbk = (size_t)b->nbx * b->nby;
    for (size_t i = 0; i < nbk; i++)
        v[i] = l[i] > 0 ? 0 : 1;
    for (unsigned k = 1; k < levels; k++) {
        const int32_t *below = v + ti->base[k - 1];
        int32_t *here = v + ti->base[k];
        uint32_t bw = ti->lw[k - 1], bh = ti->lh[k - 1];
        for (uint32_t y = 0; y < ti->lh[k]; y++)
            for (uint32_t x = 0; x < ti->lw[k]; x++) {
                const int32_t *r0 = below + (size_t)(2 * y) * bw + 2 * x;
                int32_t m = r0[0];
                if (2 * x + 1 < bw)
                    m &= r0[1];
                if (2 * y + 1 < bh) {
                    m &= r0[bw];
                    if (2 * x + 1 < bw)
                        m &= r0[bw + 1];
                }
                here[(size_t)y * ti->lw[k] + x] = m;
            }
    }
    memset(ti->known, 0, ti->nodes);
    memset(tz->known, 0, tz->nodes);
    unsigned zeros = b->mb >= 1 ? b->mb - 1 : 0;
    for (unsigned y = 0; y < b->nby; y++)
        for (unsigned x = 0; x < b->nbx; x++, l++) {
            /* inclusion: the nodes a decoder knows are the top of the
             * path (a visit makes known every node above), so find the
             * lowest known one from below, then go down from there */
            uint64_t bits = 0;
            unsigned nb = 0, m = 0;
            size_t path[32];
            for (; m < levels; m++) {
                path[m] = ti->base[m] + (size_t)(y >> m) * ti->lw[m] + (x >> m);
                if (ti->known[path[m]])
                    break;
            }
            if (m < levels && v[path[m]]) {
                continue; /* below a known node with no included block */
            }
            int in = 1;
            while (m-- > 0) {
                size_t n = path[m];
                ti->known[n] = 1;
                bits = (bits << 1) | (v[n] == 0);
                nb++;
                if (v[n]) {
                    in = 0;
                    break;
                }
            }
            if (!in) {
                sci_t2_bits_put(w, bits, nb);
                continue;
            }
            /* zero bit-planes: the unknown nodes are the bottom of the path */
            unsigned nn = 0;
            for (unsigned k = 0; k < levels; k++) {
                size_t n = tz->base[k] + (size_t)(y >> k) * tz->lw[k] + (x >> k);
                if (tz->known[n])
                    break;
                tz->known[n] = 1;
                nn++;
            }
            if (nn == levels) {
                sci_t2_bits_put(w, bits, nb);
                sci_t2_bits_run(w, 0, zeros);
                sci_j2k_t2_put_ht_single(w, (UINT64_C(1) << nn) - 1, nn,
                                         (uint64_t)*l);
            } else {
                sci_j2k_t2_put_ht_single(w, (bits << nn) |
                                         ((UINT64_C(1) << nn) - 1), nb + nn,
                                         (uint64_t)*l);
            }
        }
}

/* Writes the header of packet k to dst (room for e->hdr_cap bytes);
 * returns its length (0: it would not fit, or a length beyond what 32
 * Lblock bits say), and the bytes of its bodies in *body. */
static size_t packet_header(sci_htj2k_enc *e, const packet *k, const long *len,
                            uint8_t *dst, size_t *body) {
    size_t inc[3 + 1] = {0};
    size_t sum = 0;
    unsigned long most = 0;
    int any = 0;
    for (unsigned i = 0; i < k->nbands; i++) {
        const band *b = &e->bands[k->first_band + i];
        const long *l = len + b->first_block;
        size_t nbk = (size_t)b->nbx * b->nby, n = 0;
        for (size_t j = 0; j < nbk; j++)
            if (l[j] > 0) {
                n++;
                sum += (size_t)l[j];
                most |= (unsigned long)l[j];
            }
        inc[i] = n;
        any |= n > 0;
    }
    if (most > 0xFFFFFFFFul)
        return 0;
    *body = sum;
    sci_t2_bits w;
    sci_t2_bits_init(&w, dst, e->hdr_cap);
    sci_t2_bits_put(&w, (uint64_t)any, 1);
    for (unsigned i = 0; i < k->nbands && any; i++) {
        band *b = &e->bands[k->first_band + i];
        size_t nbk = (size_t)b->nbx * b->nby;
        if (!nbk)
            continue;
        if (inc[i] == nbk)
            band_all_included(b, len, &w);
        else if (!inc[i])
            sci_t2_bits_put(&w, 0, 1); /* the inclusion root: 1, on the first block */
        else
            band_mixed(b, len, &w);
    }
    return sci_t2_bits_finish(&w);
}

/* The header of packet k with refinement passes: tag trees for
 * inclusion (one layer: 0 included, 1 not) and for the zero bit-planes
 * (M_b - 1 - the cleanup's plane), then per included block its passes
 * (Table B.4), one Lblock increment, and the two segments' lengths: the
 * cleanup segment in Lblock bits, the refinement segment (its passes
 * after the cleanup: 1 or 2) in Lblock + floor(log2(passes - 1)) bits, as
 * T.814 sizes an HT set's length fields. */
static size_t packet_header_ref(sci_htj2k_enc *e, const packet *k,
                                const long *len, uint8_t *dst, size_t *body) {
    const struct j2k_htref *r = e->htref;
    size_t sum = 0;
    int any = 0;
    for (size_t j = k->first_block; j < k->first_block + k->nblocks; j++)
        if (len[j] > 0) {
            if ((uint64_t)len[j] > 0xFFFFFFFFu)
                return 0;
            any = 1;
            sum += (size_t)len[j];
        }
    *body = sum;
    sci_t2_bits w;
    sci_t2_bits_init(&w, dst, e->hdr_cap);
    sci_t2_bits_put(&w, (uint64_t)any, 1);
    for (unsigned bi = 0; bi < k->nbands && any; bi++) {
        band *b = &e->bands[k->first_band + bi];
        if (!b->nbx || !b->nby)
            continue;
        size_t base = b->first_block;
        for (unsigned y = 0; y < b->nby; y++)
            for (unsigned x = 0; x < b->nbx; x++) {
                size_t i = base + (size_t)y * b->nbx + x;
                sci_tagtree_set(&b->incl, x, y, len[i] > 0 ? 0 : 1);
                sci_tagtree_set(&b->zbp, x, y,
                                len[i] > 0 ? (int32_t)(b->mb - 1 - r->plane[i])
                                           : 0);
            }
        sci_tagtree_build(&b->incl);
        sci_tagtree_build(&b->zbp);
        for (unsigned y = 0; y < b->nby; y++)
            for (unsigned x = 0; x < b->nbx; x++) {
                size_t i = base + (size_t)y * b->nbx + x;
                sci_tagtree_encode(&b->incl, &w, x, y, 1);
                if (len[i] <= 0)
                    continue;
                sci_tagtree_encode(&b->zbp, &w, x, y,
                                   (int32_t)(b->mb - 1 - r->plane[i]) + 1);
                unsigned np = r->passes[i];
                uint64_t lcup = r->cup[i], lref = (uint64_t)len[i] - lcup;
                unsigned extra = np > 1 ? sci_t2_floor_log2(np - 1) : 0;
                unsigned lblock = sci_t2_bit_len(lcup);
                if (np > 1 && sci_t2_bit_len(lref) > lblock + extra)
                    lblock = sci_t2_bit_len(lref) - extra;
                lblock = lblock > 3 ? lblock : 3;
                sci_t2_put_passes(&w, np);
                sci_t2_put_lblock_inc(&w, lblock - 3);
                sci_t2_bits_put(&w, lcup, lblock);
                if (np > 1)
                    sci_t2_bits_put(&w, lref, lblock + extra);
            }
    }
    return sci_t2_bits_finish(&w);
}

/* Writes every packet's header, leaving room for its bodies; the bodies
 * of each packet with any go to spans (offsets relative to out - base). */
static int write_packets(sci_htj2k_enc *e, const long *len, out_buf *o,
                         size_t base, sci_htj2k_span *spans, size_t *nspans,
                         uint32_t *plen) {
    unsigned C = e->g.components, R = e->g.levels + 1;
    int comp_major = e->p.progression == SCI_J2K_PCRL ||
                     e->p.progression == SCI_J2K_CPRL;
    size_t ns = 0;
    for (unsigned a = 0; a < (comp_major ? C : R); a++)
        for (unsigned b = 0; b < (comp_major ? R : C); b++) {
            unsigned c = comp_major ? a : b, r = comp_major ? b : a;
            const packet *k = &e->packets[c * R + r];
            size_t body, at = o->len;
            if (o->p && o->len <= o->cap && o->cap - o->len >= e->hdr_cap) {
                size_t n = e->htref ?
                           packet_header_ref(e, k, len, o->p + o->len, &body) :
                           packet_header(e, k, len, o->p + o->len, &body);
                if (!n)
                    return -1;
                o->len += n;
            } else {
                /* near the end of out, or only counting */
                size_t n = e->htref ?
                           packet_header_ref(e, k, len, e->hdr, &body) :
                           packet_header(e, k, len, e->hdr, &body);
                if (!n)
                    return -1;
                put_bytes(o, e->hdr, n);
            }
            if (body) {
                if (spans) {
                    spans[ns].dst = base + o->len;
                    spans[ns].first = k->first_block;
                    spans[ns].count = k->nblocks;
                    spans[ns].bytes = body;
                }
                ns++;
                o->len += body;
            }
            if (plen) {
                if ((uint64_t)(o->len - at) > 0xFFFFFFFFu)
                    return -1;
                *plen++ = (uint32_t)(o->len - at);
            }
        }
    if (nspans)
        *nspans = ns;
    return 0;
}

/* ---- the plug-in ---------------------------------------------------------- */

static void ht_free(sci_htj2k_enc *e) {
    free(e->hdr);
    e->hdr = NULL;
    struct j2k_htref *r = e->htref;
    if (r) {
        free(r->cup);
        free(r->ref_sp);
        free(r->ref);
        free(r->plane);
        free(r->passes);
        free(r->gain_sp);
        free(r->gain_mr);
        free(r);
        e->htref = NULL;
    }
}

static int ht_init(sci_htj2k_enc *e) {
    size_t most = 0;
    for (unsigned k = 0; k < e->npackets; k++)
        most = e->packets[k].nblocks > most ? e->packets[k].nblocks : most;
    /* A packet header bound: per code-block at most 122 bits (inclusion
     * tag tree <= 15 levels, zero bit-planes <= 29 + 15, one pass, Lblock
     * comma code <= 30, length <= 32), 140 after bit stuffing.  With
     * refinement passes: up to 4 bits of passes and a second length of
     * up to 33 bits, 190 after stuffing. */
    e->hdr_cap = most * (e->p.refinement ? 24 : 20) + 64;
    e->hdr = malloc(e->hdr_cap);
    if (!e->hdr)
        return -1;
    if (e->p.refinement) {
        size_t n = e->nblocks ? e->nblocks : 1;
        struct j2k_htref *r = calloc(1, sizeof(*r));
        e->htref = r;
        if (!r)
            return -1;
        r->cup = calloc(n, sizeof(uint32_t));
        r->ref_sp = calloc(n, sizeof(uint32_t));
        r->ref = calloc(n, sizeof(uint32_t));
        r->plane = calloc(n, 1);
        r->passes = calloc(n, 1);
        r->gain_sp = calloc(n, sizeof(float));
        r->gain_mr = calloc(n, sizeof(float));
        if (!r->cup || !r->ref_sp || !r->ref || !r->plane || !r->passes ||
            !r->gain_sp || !r->gain_mr)
            return -1;
    }
    return 0;
}

static size_t ht_block_bytes_bound(const sci_htj2k_enc *e, const block *k) {
    /* 9/7 steps may change under rate control: room for 30 bit-planes */
    unsigned mb = e->g.filter == SCI_DWT_97 ? 30 : e->bands[k->band].mb;
    size_t n = (size_t)k->w * k->h;
    return sci_ht_block_max_bytes(n, mb) +
           (e->p.refinement ? sci_ht_ref_max_bytes(n) : 0);
}

/* ---- rate control with refinement passes ---------------------------------- */

/* The packets' bytes (headers and bodies) for the lengths in e->len. */
static size_t packets_bytes(sci_htj2k_enc *e) {
    out_buf o = {NULL, 0, 0};
    if (write_packets(e, e->len, &o, 0, NULL, NULL, NULL) < 0)
        return SIZE_MAX;
    return o.len;
}

/* Each block keeps the prefix (cleanup; + SigProp; + MagRef) that
 * maximises gain - lambda * bytes. */
static void choose_passes(sci_htj2k_enc *e, double lambda) {
    struct j2k_htref *r = e->htref;
    unsigned most = ref_max_passes(e);
    for (size_t i = 0; i < e->nblocks; i++) {
        if (!r->plane[i] || e->len[i] <= 0)
            continue;
        double g[3] = {0, r->gain_sp[i], (double)r->gain_sp[i] + r->gain_mr[i]};
        double bytes[3] = {0, r->ref_sp[i], r->ref[i]};
        unsigned best = lambda > 0 ? 1 : most; /* 0: keep every pass */
        double best_v = 0;
        for (unsigned np = 2; np <= most && lambda > 0; np++) {
            double v = g[np - 1] - lambda * bytes[np - 1];
            if (v > best_v) {
                best_v = v;
                best = np;
            }
        }
        r->passes[i] = (uint8_t)best;
        e->len[i] = (long)r->cup[i] + (best == 3 ? (long)r->ref[i] :
                                       best == 2 ? (long)r->ref_sp[i] : 0);
    }
}

typedef struct {
    size_t i;
    double ratio;
} upgrade;

static int by_ratio(const void *a, const void *b) {
    const upgrade *x = a, *y = b;
    if (x->ratio != y->ratio)
        return x->ratio > y->ratio ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* One slope leaves a gap where many blocks share it (those whose passes
 * are estimated to buy nothing drop together): give blocks back their
 * next pass, best ratio first, while the bytes fit with room for what
 * their header entries grow by, then check the exact size. */
static void fill_budget(sci_htj2k_enc *e, size_t budget) {
    struct j2k_htref *r = e->htref;
    size_t used = packets_bytes(e);
    if (used >= budget)
        return;
    upgrade *u = malloc((e->nblocks ? e->nblocks : 1) * sizeof(*u));
    uint8_t *keep = malloc(e->nblocks ? e->nblocks : 1);
    if (!u || !keep) {
        free(u);
        free(keep);
        return;
    }
    memcpy(keep, r->passes, e->nblocks);
    unsigned most = ref_max_passes(e);
    for (int round = 0; round < 2; round++) {
        size_t n = 0;
        for (size_t i = 0; i < e->nblocks; i++) {
            if (!r->plane[i] || e->len[i] <= 0 || r->passes[i] >= most)
                continue;
            double db = r->passes[i] == 1 ? r->ref_sp[i] :
                        (double)r->ref[i] - r->ref_sp[i];
            double dg = r->passes[i] == 1 ? r->gain_sp[i] : r->gain_mr[i];
            u[n].i = i;
            u[n].ratio = dg / (db + 1);
            n++;
        }
        qsort(u, n, sizeof(*u), by_ratio);
        /* a header entry grows by at most 3 bits of pass count, an
         * Lblock increment and a length field: 6 bytes */
        for (size_t j = 0; j < n; j++) {
            size_t i = u[j].i;
            size_t db = r->passes[i] == 1 ? r->ref_sp[i] : r->ref[i] - r->ref_sp[i];
            if (used + db + 6 > budget)
                continue;
            used += db + 6;
            r->passes[i]++;
            e->len[i] = (long)r->cup[i] + (long)(r->passes[i] == 3 ? r->ref[i] :
                                                 r->ref_sp[i]);
        }
    }
    if (packets_bytes(e) > budget) {
        /* cannot be with the margins above; keep the slope's choice */
        memcpy(r->passes, keep, e->nblocks);
        for (size_t i = 0; i < e->nblocks; i++)
            if (r->plane[i] && e->len[i] > 0)
                e->len[i] = (long)r->cup[i] +
                            (long)(r->passes[i] == 3 ? r->ref[i] :
                                   r->passes[i] == 2 ? r->ref_sp[i] : 0);
    }
    free(u);
    free(keep);
}

/* Drops refinement passes where they buy the least distortion a byte
 * (one slope lambda for every block, found by bisection) until the
 * packets take at most `budget` bytes; all passes stay when they fit,
 * none when even that does not. */
static int ht_fit_rate(sci_htj2k_enc *e, size_t budget) {
    if (!e->htref)
        return 0;
    choose_passes(e, 0);
    if (packets_bytes(e) <= budget)
        return 0;
    choose_passes(e, INFINITY);
    if (packets_bytes(e) > budget)
        return 0;
    /* gains are step^2-weighted squared errors; bytes are bytes: bracket
     * lambda over a wide log range */
    double lo = 1e-30, hi = 1e30;
    for (int it = 0; it < 100 && hi / lo > 1.0001; it++) {
        double mid = sqrt(lo * hi);
        choose_passes(e, mid);
        if (packets_bytes(e) <= budget)
            hi = mid;
        else
            lo = mid;
    }
    choose_passes(e, hi);
    fill_budget(e, budget);
    return 0;
}

static size_t ht_packet_overhead_bound(const sci_htj2k_enc *e) {
    return e->nblocks * (e->p.refinement ? 14 : 8) +
           (size_t)e->g.components * (e->g.levels + 1) * 2;
}

const j2k_block_coder j2k_coder_ht = {
    .name = "HT",
    .init = ht_init,
    .free = ht_free,
    .code_blocks = code_blocks,
    .passes = NULL,
    .allocate = NULL,
    .write_packets = write_packets,
    .block_bytes_bound = ht_block_bytes_bound,
    .packet_overhead_bound = ht_packet_overhead_bound,
    .fit_rate = ht_fit_rate,
};
