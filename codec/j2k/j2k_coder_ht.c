/*
 * The HT block coder of the JPEG 2000 encoder (j2k_coder.h): every block
 * coded by ht_block.c in one cleanup pass, one quality layer, the rate
 * set by the step (htj2k.c's search); and its tier-2, packet headers of
 * one pass a block written in few bit operations (all-included bands
 * need no tag tree state), the bodies placed by spans so that a GPU
 * backend can copy them straight to their place.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ht_block.h"
#include "j2k_coder.h"
#include "j2k_t2.h"

/* ---- block coding ------------------------------------------------------------ */

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

/* Writes every packet's header, leaving room for its bodies; the bodies
 * of each packet with any go to spans (offsets relative to out - base). */
static int write_packets(sci_htj2k_enc *e, const long *len, out_buf *o,
                         size_t base, sci_htj2k_span *spans, size_t *nspans) {
    unsigned C = e->g.components, R = e->g.levels + 1;
    int comp_major = e->p.progression == SCI_J2K_PCRL ||
                     e->p.progression == SCI_J2K_CPRL;
    size_t ns = 0;
    for (unsigned a = 0; a < (comp_major ? C : R); a++)
        for (unsigned b = 0; b < (comp_major ? R : C); b++) {
            unsigned c = comp_major ? a : b, r = comp_major ? b : a;
            const packet *k = &e->packets[c * R + r];
            size_t body;
            if (o->p && o->len <= o->cap && o->cap - o->len >= e->hdr_cap) {
                size_t n = packet_header(e, k, len, o->p + o->len, &body);
                if (!n)
                    return -1;
                o->len += n;
            } else {
                /* near the end of out, or only counting */
                size_t n = packet_header(e, k, len, e->hdr, &body);
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
        }
    if (nspans)
        *nspans = ns;
    return 0;
}

/* ---- the plug-in ---------------------------------------------------------- */

static int ht_init(sci_htj2k_enc *e) {
    size_t most = 0;
    for (unsigned k = 0; k < e->npackets; k++)
        most = e->packets[k].nblocks > most ? e->packets[k].nblocks : most;
    /* A packet header bound: per code-block at most 122 bits (inclusion
     * tag tree <= 15 levels, zero bit-planes <= 29 + 15, one pass, Lblock
     * comma code <= 30, length <= 32), 140 after bit stuffing. */
    e->hdr_cap = most * 20 + 64;
    e->hdr = malloc(e->hdr_cap);
    return e->hdr ? 0 : -1;
}

static void ht_free(sci_htj2k_enc *e) {
    free(e->hdr);
    e->hdr = NULL;
}

static size_t ht_block_bytes_bound(const sci_htj2k_enc *e, const block *k) {
    /* 9/7 steps may change under rate control: room for 30 bit-planes */
    unsigned mb = e->g.filter == SCI_DWT_97 ? 30 : e->bands[k->band].mb;
    return sci_ht_block_max_bytes((size_t)k->w * k->h, mb);
}

static size_t ht_packet_overhead_bound(const sci_htj2k_enc *e) {
    return e->nblocks * 8 + (size_t)e->g.components * (e->g.levels + 1) * 2;
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
};
