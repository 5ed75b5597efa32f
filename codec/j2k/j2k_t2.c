/*
 * Tier-2 of JPEG 2000: a code-block's packet header entry written, a
 * tile's packets decoded (see j2k_t2.h).
 */
#include "j2k_t2.h"

#include <stdlib.h>
#include <string.h>

#include "../common/parallel.h"
#include "t2_bits.h"

/* ---- writing --------------------------------------------------------------- */

size_t sci_j2k_t2_put_p1_passes(sci_t2_bits *w, uint8_t *lblock,
                                const size_t *pass_len,
                                const uint8_t *pass_term, unsigned from,
                                unsigned to) {
    sci_t2_put_passes(w, to - from);
    /* a first walk finds the Lblock every segment's length fits, the
     * second writes the lengths */
    unsigned lb = *lblock;
    for (int pass = 0; pass < 2; pass++) {
        size_t start = from ? pass_len[from - 1] : 0;
        unsigned s = from;
        for (unsigned j = from; j < to; j++) {
            if (!(pass_term[j] || j == to - 1))
                continue;
            size_t len = pass_len[j] - start;
            unsigned extra = sci_t2_floor_log2(j + 1 - s);
            unsigned need = sci_t2_bit_len(len);
            if (pass == 0) {
                if (need > lb + extra)
                    lb = need - extra;
            } else {
                sci_t2_bits_put(w, len, lb + extra);
            }
            start = pass_len[j];
            s = j + 1;
        }
        if (pass == 0) {
            sci_t2_put_lblock_inc(w, lb - *lblock);
            *lblock = (uint8_t)lb;
        }
    }
    return pass_len[to - 1] - (from ? pass_len[from - 1] : 0);
}

/* ---- helpers --------------------------------------------------------------- */

size_t sci_j2k_t2_cs_offset(const sci_j2k_t2 *t2, size_t off) {
    size_t i = 0;
    while (i + 1 < t2->ntp && t2->tp_body[i + 1] <= off)
        i++;
    if (!t2->ntp)
        return off;
    return t2->tp_cs[i] + (off - t2->tp_body[i]);
}

/* A contribution announced by a packet header: its block, the bytes the
 * body holds for it, and what it is. */
typedef struct {
    uint32_t cblk;
    uint32_t len;
    uint16_t pass_end;
    uint8_t kind;
} contrib;

/* Where packets put what they announce: the pieces, and the scratch of
 * one packet's contributions (the tile's own, or a worker's). */
typedef struct {
    sci_j2k_piece *pieces;
    size_t npieces, pieces_cap;
    contrib *scratch;
    size_t scratch_cap;
} t2out;

static int push_contrib(t2out *o, size_t *n, const contrib *c) {
    if (*n == o->scratch_cap) {
        size_t cap = o->scratch_cap ? 2 * o->scratch_cap : 64;
        contrib *p = realloc(o->scratch, cap * sizeof *p);
        if (!p)
            return SCI_J2K_ENOMEM;
        o->scratch = p;
        o->scratch_cap = cap;
    }
    o->scratch[(*n)++] = *c;
    return 0;
}

static int add_piece(t2out *o, sci_j2k_cblk *cb, uint32_t off, uint32_t len,
                     uint16_t pass_end, uint8_t kind) {
    if (o->npieces == o->pieces_cap) {
        size_t cap = o->pieces_cap ? 2 * o->pieces_cap : 1024;
        sci_j2k_piece *p = realloc(o->pieces, cap * sizeof *p);
        if (!p)
            return SCI_J2K_ENOMEM;
        o->pieces = p;
        o->pieces_cap = cap;
    }
    int32_t i = (int32_t)o->npieces++;
    sci_j2k_piece *p = &o->pieces[i];
    p->off = off;
    p->len = len;
    p->pass_end = pass_end;
    p->kind = kind;
    p->next = -1;
    if (cb->last_piece >= 0)
        o->pieces[cb->last_piece].next = i;
    else
        cb->first_piece = i;
    cb->last_piece = i;
    return 0;
}

/* ---- one packet ------------------------------------------------------------ */

typedef struct {
    sci_j2k_t2 *t2;
    t2out *out;
    sci_j2k_status *st;  /* warnings (a worker's own, in parallel) */
    size_t bpos;      /* the body's read position */
    size_t hpos;      /* the packed headers' read position (PPM/PPT) */
    unsigned seq;     /* packet sequence number (SOP) */
    int eph_warned, sop_warned;
    int stopped;      /* damage or the end of the data stopped the tile */
    unsigned long idle;  /* loop steps that sent no packet */
    /* planning: the progression walked without reading, its packets
     * listed in order */
    int planning;
    struct planned *plan;
    size_t nplan, plan_cap;
} t2run;

/* ---- one code-block in a packet header ------------------------------------ */

/* Reads a length field of `nbits` bits; a field beyond 32 bits can only be
 * damage.  Returns -1 then. */
static int read_len(sci_t2_rd *b, unsigned nbits, uint32_t *len) {
    if (nbits > 32)
        return -1;
    *len = sci_t2_rd_bits(b, nbits);
    return 0;
}

/* Passes of the Part 1 codeword segment that pass n starts or continues,
 * as many as the style lets one length field cover (D.4, Table D.9). */
static unsigned p1_seg_passes(unsigned style, unsigned n) {
    if (style & SCI_J2K_CB_TERMALL)
        return 1;
    if (style & SCI_J2K_CB_BYPASS) {
        if (n < 10)
            return 10 - n;
        return (n - 10) % 3 == 0 ? 2 : 1;
    }
    return SCI_J2K_MAX_PASSES * 2;
}

/* The lengths of a block's new passes: appends the contributions.  Returns
 * 0, 1 for damage (a message is warned), or an error code. */
static int block_lengths(t2run *run, sci_t2_rd *b, sci_j2k_cblk *cb,
                         uint32_t ci, unsigned np, unsigned style,
                         size_t *nc, size_t hoff) {
    unsigned n0 = cb->passes;
    contrib c;
    c.cblk = ci;
    int r;
    if (cb->mode == J2K_CB_HT_PHLD) {
        /* Before the first HT cleanup with bytes (T.814 B.3): the passes up
         * to this contribution's last cleanup pass share one length field
         * sized as for a non-HT block; a length of 0 makes them
         * placeholders.  In mixed mode a non-HT block is told apart by
         * that field (an HT cleanup has Lblock > 3 and a clear top bit). */
        int mixed = (style & SCI_J2K_CB_MIXED) != 0;
        unsigned href = (n0 + np - 1) % 3;
        int segp = (int)np - (int)href;
        uint32_t len;
        if (segp < 1) {
            if (read_len(b, cb->lblock + sci_t2_floor_log2(np), &len))
                goto bad_len;
            if (len && !mixed)
                goto bad_ht;
            c.len = len;
            c.pass_end = (uint16_t)(n0 + np);
            c.kind = len ? J2K_PIECE_P1 : J2K_PIECE_HT_PHLD;
            if (len)
                cb->mode = J2K_CB_PART1;
            cb->passes = (uint16_t)(n0 + np);
            return push_contrib(run->out, nc, &c);
        }
        unsigned nb = cb->lblock + sci_t2_floor_log2((unsigned)segp);
        if (read_len(b, nb, &len))
            goto bad_len;
        int is_ht = 0;
        if (len) {
            if (!mixed)
                is_ht = 1;
            else
                is_ht = cb->lblock > 3 && len > 1 && (len >> (nb - 1)) == 0;
        }
        if (is_ht) {
            if (len < 2)
                goto bad_ht;
            c.len = len;
            c.pass_end = (uint16_t)(n0 + (unsigned)segp);
            c.kind = J2K_PIECE_HT_CUP;
            r = push_contrib(run->out, nc, &c);
            if (r)
                return r;
            cb->mode = J2K_CB_HT;
            cb->passes = c.pass_end;
            np -= (unsigned)segp;
            n0 = cb->passes;
            /* the rest: refinement passes, below */
        } else {
            /* widen the field to the non-HT size for all np passes */
            unsigned full = cb->lblock + sci_t2_floor_log2(np);
            while (nb < full) {
                len = len << 1 | sci_t2_rd_bit(b);
                nb++;
            }
            if (nb > 32)
                goto bad_len;
            if (len && !mixed)
                goto bad_ht;
            c.len = len;
            c.pass_end = (uint16_t)(n0 + np);
            c.kind = len ? J2K_PIECE_P1 : J2K_PIECE_HT_PHLD;
            if (len)
                cb->mode = J2K_CB_PART1;
            cb->passes = c.pass_end;
            return push_contrib(run->out, nc, &c);
        }
    }
    while (np > 0) {
        unsigned take, nb;
        if (cb->mode == J2K_CB_HT) {
            /* T.814: a cleanup pass is a segment of its own; SigProp and
             * MagRef share the refinement segment */
            unsigned kind = n0 % 3;
            if (kind == 0) {
                take = 1;
                c.kind = J2K_PIECE_HT_CUP;
            } else {
                take = kind == 1 && np > 1 ? 2 : 1;
                c.kind = J2K_PIECE_HT_REF;
            }
        } else {
            take = p1_seg_passes(style, n0);
            if (take > np)
                take = np;
            c.kind = J2K_PIECE_P1;
        }
        nb = cb->lblock + sci_t2_floor_log2(take);
        uint32_t len;
        if (read_len(b, nb, &len))
            goto bad_len;
        c.len = len;
        c.pass_end = (uint16_t)(n0 + take);
        r = push_contrib(run->out, nc, &c);
        if (r)
            return r;
        n0 += take;
        np -= take;
    }
    cb->passes = (uint16_t)n0;
    return 0;
bad_len:
    sci_j2k_warn(run->st, hoff, "tile %u: a codeword segment length field "
                 "of more than 32 bits: the tile's packets stop here",
                 run->t2->tile->index);
    return 1;
bad_ht:
    sci_j2k_warn(run->st, hoff, "tile %u: invalid length for an HT "
                 "code-block: the tile's packets stop here",
                 run->t2->tile->index);
    return 1;
}

/* Returns 0 to go on, 1 when the tile's packets stop (damage, end of the
 * data), or an error code. */
static int packet(t2run *run, unsigned c, unsigned r, size_t k, unsigned l) {
    sci_j2k_t2 *t2 = run->t2;
    sci_j2k_tile *tile = t2->tile;
    const sci_j2k_res *rs = sci_j2k_tile_res(tile, c, r);
    const sci_j2k_tcomp *tc = &tile->comps[c];
    unsigned style = tc->cb_style;
    int record = l < t2->max_layers && r <= t2->keep_res[c];
    size_t pkt_off = run->bpos;

    if (run->bpos >= t2->body_len && !t2->hdr) {
        sci_j2k_warn(run->st, sci_j2k_t2_cs_offset(t2, t2->body_len),
                     "tile %u: the data ends before packet %u (component %u, "
                     "resolution %u, precinct %zu, layer %u)", tile->index,
                     run->seq, c, r, k, l);
        return 1;
    }
    /* SOP (A.8.1): optional before each packet when Scod allows it */
    if (t2->tcp->sop && t2->body_len - run->bpos >= 6 &&
        t2->body[run->bpos] == 0xFF && t2->body[run->bpos + 1] == 0x91) {
        const uint8_t *p = t2->body + run->bpos;
        unsigned lsop = (unsigned)p[2] << 8 | p[3];
        unsigned nsop = (unsigned)p[4] << 8 | p[5];
        if (lsop != 4 || (nsop != (run->seq & 0xFFFF) && !run->sop_warned)) {
            sci_j2k_warn(run->st, sci_j2k_t2_cs_offset(t2, run->bpos),
                         "tile %u: SOP marker with Lsop %u and Nsop %u where "
                         "packet %u was due", tile->index, lsop, nsop,
                         run->seq);
            run->sop_warned = 1;
        }
        run->bpos += 6;
    }
    sci_t2_rd b;
    if (t2->hdr)
        sci_t2_rd_init(&b, t2->hdr, t2->hdr_len, run->hpos);
    else
        sci_t2_rd_init(&b, t2->body, t2->body_len, run->bpos);
    size_t hoff = t2->hdr ? run->hpos : sci_j2k_t2_cs_offset(t2, run->bpos);
    size_t nc = 0;
    int ret = 0;
    if (sci_t2_rd_bit(&b)) {
        size_t p0 = rs->first_pband + k * rs->nbands;
        for (unsigned bi = 0; bi < rs->nbands && !ret; bi++) {
            const sci_j2k_pband *pb = &tile->pbands[p0 + bi];
            const sci_j2k_band *band = &tile->bands[rs->first_band + bi];
            if (!pb->cw || !pb->ch)
                continue;
            size_t nleaf = 0, w = pb->cw, h = pb->ch;
            for (;;) {
                nleaf += w * h;
                if (w <= 1 && h <= 1)
                    break;
                w = (w + 1) / 2;
                h = (h + 1) / 2;
            }
            int32_t *inc_lo = tile->tt_low + pb->tt, *inc_v = tile->tt_val + pb->tt;
            int32_t *zb_lo = inc_lo + nleaf, *zb_v = inc_v + nleaf;
            for (uint32_t y = 0; y < pb->ch && !ret; y++) {
                for (uint32_t x = 0; x < pb->cw && !ret; x++) {
                    uint32_t ci = (uint32_t)(band->first_cblk +
                                             (size_t)(pb->cy0 + y) * band->ncbx +
                                             pb->cx0 + x);
                    sci_j2k_cblk *cb = &tile->cblks[ci];
                    if (!cb->included) {
                        if (!sci_tagtree_decode(&b, inc_lo, inc_v, pb->cw, pb->ch, x, y,
                                       (int32_t)l + 1))
                            continue;
                        /* first inclusion: zero bit-planes (B.10.5).  One
                         * call with the highest threshold reads the same
                         * bits as one a threshold, 1, 2, ..., z + 1: a node
                         * reads nothing until its parent is known. */
                        if (!sci_tagtree_decode(&b, zb_lo, zb_v, pb->cw, pb->ch, x, y,
                                                75)) {
                            if (!b.over)
                                sci_j2k_warn(run->st, hoff, "tile %u: more "
                                             "than 74 zero bit-planes: the "
                                             "tile's packets stop here",
                                             tile->index);
                            ret = 1;
                            break;
                        }
                        int32_t z = zb_v[(size_t)y * pb->cw + x];
                        cb->included = 1;
                        cb->zbp = (uint8_t)z;
                        cb->lblock = 3;
                        cb->mode = (style & SCI_J2K_CB_HT) ? J2K_CB_HT_PHLD :
                                   J2K_CB_PART1;
                    } else if (!sci_t2_rd_bit(&b)) {
                        continue;
                    }
                    /* number of passes (Table B.4), Lblock (B.10.7.1) */
                    unsigned np = sci_t2_get_passes(&b);
                    unsigned lblock = cb->lblock;
                    /* it stops past 32: the length field then refuses it */
                    sci_t2_get_lblock_inc(&b, &lblock, 32);
                    cb->lblock = (uint8_t)lblock;
                    if (b.over)
                        break;
                    unsigned limit = 3u * (band->mb + band->roi) + 3u;
                    if (cb->passes + np > limit ||
                        cb->passes + np > 3 * 74) {
                        sci_j2k_warn(run->st, hoff, "tile %u: a code-block "
                                     "with %u coding passes (at most %u): the "
                                     "tile's packets stop here", tile->index,
                                     cb->passes + np, limit);
                        ret = 1;
                        break;
                    }
                    ret = block_lengths(run, &b, cb, ci, np, style, &nc, hoff);
                }
            }
        }
    }
    if (ret < 0)
        return ret;
    if (ret == 0 && b.over) {
        sci_j2k_warn(run->st, hoff, "tile %u: packet %u's header (component "
                     "%u, resolution %u, precinct %zu, layer %u) runs past the "
                     "%s", tile->index, run->seq, c, r, k, l,
                     t2->hdr ? "packed packet headers" : "tile's data");
        ret = 1;
    }
    if (ret) {
        run->stopped = 1;
        return 1;
    }
    sci_t2_rd_align(&b);
    /* EPH (A.8.2): shall follow the header when Scod says so */
    if (t2->tcp->eph) {
        const uint8_t *hp = t2->hdr ? t2->hdr : t2->body;
        size_t hl = t2->hdr ? t2->hdr_len : t2->body_len;
        if (b.pos + 2 <= hl && hp[b.pos] == 0xFF && hp[b.pos + 1] == 0x92) {
            b.pos += 2;
        } else if (!run->eph_warned) {
            sci_j2k_warn(run->st, t2->hdr ? b.pos :
                         sci_j2k_t2_cs_offset(t2, b.pos),
                         "tile %u: EPH marker missing after packet %u's "
                         "header", tile->index, run->seq);
            run->eph_warned = 1;
        }
    }
    if (t2->hdr)
        run->hpos = b.pos;
    else
        run->bpos = b.pos;
    /* the body: the contributions in header order */
    const contrib *cs = run->out->scratch;
    for (size_t i = 0; i < nc; i++) {
        sci_j2k_cblk *cb = &tile->cblks[cs[i].cblk];
        size_t left = t2->body_len - run->bpos;
        uint32_t len = cs[i].len;
        int cut = len > left;
        if (cut)
            len = (uint32_t)left;
        if (record) {
            if (run->bpos > UINT32_MAX)
                return sci_j2k_fail(run->st, SCI_J2K_EUNSUPPORTED,
                                    sci_j2k_t2_cs_offset(t2, run->bpos),
                                    "tile %u: more than 4 GiB of data",
                                    tile->index);
            int e = add_piece(run->out, cb, (uint32_t)run->bpos, len,
                              cs[i].pass_end, cs[i].kind);
            if (e)
                return sci_j2k_fail(run->st, e, pkt_off, "out of memory");
        }
        run->bpos += len;
        if (cut) {
            sci_j2k_warn(run->st, sci_j2k_t2_cs_offset(t2, t2->body_len),
                         "tile %u: the data ends inside packet %u (component "
                         "%u, resolution %u, precinct %zu, layer %u): the "
                         "code-blocks keep what arrived", tile->index,
                         run->seq, c, r, k, l);
            run->stopped = 1;
            return 1;
        }
    }
    run->seq++;
    return 0;
}

/* ---- progression ------------------------------------------------------------ */

typedef struct {
    uint64_t y, x;    /* canvas position at which the precinct is visited */
    uint32_t c, k;
    uint8_t r;
} visit;

#define CMP(f) \
    if (a->f != b->f) \
        return a->f < b->f ? -1 : 1
static int cmp_rpcl(const void *pa, const void *pb) {
    const visit *a = pa, *b = pb;
    CMP(r);
    CMP(y);
    CMP(x);
    CMP(c);
    return 0;
}
static int cmp_pcrl(const void *pa, const void *pb) {
    const visit *a = pa, *b = pb;
    CMP(y);
    CMP(x);
    CMP(c);
    CMP(r);
    return 0;
}
static int cmp_cprl(const void *pa, const void *pb) {
    const visit *a = pa, *b = pb;
    CMP(c);
    CMP(y);
    CMP(x);
    CMP(r);
    return 0;
}
#undef CMP

/* The canvas position at which B.12.1.3-5's loops reach precinct (i, j)
 * of resolution r of component c: the top-left corner of the precinct on
 * the canvas, or the tile's corner for a first column (row) that starts
 * before the tile. */
static void visit_pos(const sci_j2k_tile *tile, unsigned c, unsigned r,
                      uint32_t i, uint32_t j, uint64_t *x, uint64_t *y) {
    const sci_j2k_tcomp *tc = &tile->comps[c];
    const sci_j2k_res *rs = sci_j2k_tile_res(tile, c, r);
    unsigned sh = tc->levels - r;
    uint64_t px = (uint64_t)(rs->pcx0 + i) << rs->ppx;
    uint64_t py = (uint64_t)(rs->pcy0 + j) << rs->ppy;
    *x = px < rs->x0 ? tile->x0 : (px << sh) * tc->dx;
    *y = py < rs->y0 ? tile->y0 : (py << sh) * tc->dy;
}

static visit *sorted_visits(const sci_j2k_tile *tile, int prog, size_t *n) {
    size_t cnt = 0;
    for (unsigned c = 0; c < tile->ncomp; c++)
        for (unsigned r = 0; r <= tile->comps[c].levels; r++) {
            const sci_j2k_res *rs = sci_j2k_tile_res(tile, c, r);
            cnt += (size_t)rs->npw * rs->nph;
        }
    visit *v = malloc((cnt ? cnt : 1) * sizeof *v);
    if (!v)
        return NULL;
    size_t at = 0;
    for (unsigned c = 0; c < tile->ncomp; c++)
        for (unsigned r = 0; r <= tile->comps[c].levels; r++) {
            const sci_j2k_res *rs = sci_j2k_tile_res(tile, c, r);
            for (uint32_t j = 0; j < rs->nph; j++)
                for (uint32_t i = 0; i < rs->npw; i++) {
                    visit *e = &v[at++];
                    visit_pos(tile, c, r, i, j, &e->x, &e->y);
                    e->c = c;
                    e->r = (uint8_t)r;
                    e->k = j * rs->npw + i;
                }
        }
    qsort(v, cnt, sizeof *v, prog == SCI_J2K_PROG_RPCL ? cmp_rpcl :
          prog == SCI_J2K_PROG_PCRL ? cmp_pcrl : cmp_cprl);
    *n = cnt;
    return v;
}

#define IDLE_LIMIT (1ul << 26)

struct planned {
    uint32_t c, k;
    uint16_t l;
    uint8_t r;
};

/* The split's function, once (the pieces found so far in t2->pieces);
 * at: where resolution split_res starts in the body. */
static int split_now(sci_j2k_t2 *t2, size_t at) {
    int (*fn)(void *, int) = t2->split;
    t2->split = NULL;
    t2->split_at = at;
    int e = fn(t2->split_user, 0);
    return e < 0 ? e : 0;
}

/* The progression's next packet: decoded, or added to the plan. */
static int send(t2run *run, unsigned c, unsigned r, size_t k, unsigned l) {
    if (!run->planning) {
        sci_j2k_t2 *t2 = run->t2;
        if (t2->split && r >= t2->split_res) {
            t2->pieces = run->out->pieces;
            t2->npieces = run->out->npieces;
            int e = split_now(t2, run->bpos);
            if (e)
                return e;
        }
        return packet(run, c, r, k, l);
    }
    /* more packets than PLT lists: no plan, so stop (a stream may
     * announce 65535 layers of a million precincts) */
    if (run->nplan >= run->t2->nplt)
        return 2;
    if (run->nplan == run->plan_cap) {
        size_t cap = run->plan_cap ? 2 * run->plan_cap : 256;
        struct planned *p = realloc(run->plan, cap * sizeof *p);
        if (!p)
            return SCI_J2K_ENOMEM;
        run->plan = p;
        run->plan_cap = cap;
    }
    struct planned *p = &run->plan[run->nplan++];
    p->c = c;
    p->k = (uint32_t)k;
    p->l = (uint16_t)l;
    p->r = (uint8_t)r;
    return 0;
}

/* All packets of precinct k of (c, r) from its next layer up to lye. */
static int precinct_layers(t2run *run, unsigned c, unsigned r, size_t k,
                           unsigned lye) {
    sci_j2k_tile *tile = run->t2->tile;
    sci_j2k_prec *p = &tile->precs[sci_j2k_tile_res(tile, c, r)->first_prec + k];
    if (p->next_layer >= lye) {
        if (++run->idle > IDLE_LIMIT)
            return 2;
        return 0;
    }
    while (p->next_layer < lye) {
        unsigned l = p->next_layer++;
        int e = send(run, c, r, k, l);
        if (e)
            return e;
    }
    return 0;
}

/* One progression volume (a POC entry, or the whole tile). */
static int volume(t2run *run, const sci_j2k_poc *v, visit **vis, size_t *nvis) {
    sci_j2k_t2 *t2 = run->t2;
    sci_j2k_tile *tile = t2->tile;
    unsigned lye = v->lye < t2->tcp->layers ? v->lye : t2->tcp->layers;
    unsigned ce = v->ce < tile->ncomp ? v->ce : tile->ncomp;
    int e;
    switch (v->prog) {
    case SCI_J2K_PROG_LRCP:
    case SCI_J2K_PROG_RLCP: {
        /* packets this volume still has to send: the loops stop when
         * none is left (a stream may announce 65535 layers) */
        uint64_t left = 0;
        for (unsigned c = v->cs; c < ce; c++)
            for (unsigned r = v->rs; r < v->re && r <= tile->comps[c].levels;
                 r++) {
                const sci_j2k_res *rs = sci_j2k_tile_res(tile, c, r);
                size_t np = (size_t)rs->npw * rs->nph;
                for (size_t k = 0; k < np; k++) {
                    unsigned nl = tile->precs[rs->first_prec + k].next_layer;
                    left += nl < lye ? lye - nl : 0;
                }
            }
        unsigned outer = v->prog == SCI_J2K_PROG_LRCP ? lye : v->re;
        unsigned inner = v->prog == SCI_J2K_PROG_LRCP ? v->re : lye;
        unsigned o0 = v->prog == SCI_J2K_PROG_LRCP ? 0 : v->rs;
        unsigned i0 = v->prog == SCI_J2K_PROG_LRCP ? v->rs : 0;
        for (unsigned a = o0; a < outer && left; a++) {
            for (unsigned b2 = i0; b2 < inner && left; b2++) {
                unsigned l = v->prog == SCI_J2K_PROG_LRCP ? a : b2;
                unsigned r = v->prog == SCI_J2K_PROG_LRCP ? b2 : a;
                for (unsigned c = v->cs; c < ce; c++) {
                    if (r > tile->comps[c].levels)
                        continue;
                    const sci_j2k_res *rs = sci_j2k_tile_res(tile, c, r);
                    size_t np = (size_t)rs->npw * rs->nph;
                    for (size_t k = 0; k < np; k++) {
                        sci_j2k_prec *p = &tile->precs[rs->first_prec + k];
                        if (p->next_layer != l) {
                            if (++run->idle > IDLE_LIMIT)
                                return 2;
                            continue;
                        }
                        p->next_layer++;
                        left--;
                        e = send(run, c, r, k, l);
                        if (e)
                            return e;
                    }
                }
            }
        }
        return 0;
    }
    default: {
        int prog = v->prog;
        if (!vis[prog - 2]) {
            vis[prog - 2] = sorted_visits(tile, prog, &nvis[prog - 2]);
            if (!vis[prog - 2])
                return SCI_J2K_ENOMEM;
        }
        const visit *list = vis[prog - 2];
        for (size_t i = 0; i < nvis[prog - 2]; i++) {
            const visit *x = &list[i];
            if (x->c < v->cs || x->c >= ce || x->r < v->rs || x->r >= v->re)
                continue;
            e = precinct_layers(run, x->c, x->r, x->k, lye);
            if (e)
                return e;
        }
        return 0;
    }
    }
}

/* Walks the tile's progression (every POC volume): each packet decoded,
 * or planned when run->planning. */
static int progression(t2run *run) {
    visit *vis[3] = {NULL, NULL, NULL};
    size_t nvis[3] = {0, 0, 0};
    const sci_j2k_tcp *tcp = run->t2->tcp;
    int e = 0;
    if (tcp->npoc == 0) {
        sci_j2k_poc v;
        v.rs = 0;
        v.re = SCI_J2K_MAX_RES;
        v.cs = 0;
        v.ce = run->t2->tile->ncomp;
        v.lye = tcp->layers;
        v.prog = tcp->prog;
        e = volume(run, &v, vis, nvis);
    } else {
        for (unsigned i = 0; i < tcp->npoc && !e; i++)
            e = volume(run, &tcp->poc[i], vis, nvis);
    }
    for (int i = 0; i < 3; i++)
        free(vis[i]);
    return e;
}

/* ---- packets in parallel, where PLT gives their lengths ------------------- */

/* A job and its bytes (PLT's), to start the heaviest first. */
struct job {
    uint64_t weight;
    uint32_t job;
    uint32_t hi;    /* with a split: of the resolutions above it */
};

/* the split's lower group first, each heaviest first */
static int cmp_heavier(const void *pa, const void *pb) {
    const struct job *a = pa, *b = pb;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    if (a->weight != b->weight)
        return a->weight > b->weight ? -1 : 1;
    return a->job < b->job ? -1 : a->job > b->job;
}

/* A precinct's packets, layer by layer, are a job: a job's packets depend
 * on each other (its tag trees, its blocks' Lblock and passes) and on no
 * other job's.  Jobs run on the pool's workers, each into its own pieces;
 * any warning, or a packet that does not end where PLT says the next one
 * starts, sends the whole tile back to the sequential walk, which then
 * reports what it finds. */
typedef struct {
    sci_j2k_t2 *t2;
    const struct planned *plan;
    const size_t *off;      /* packet i's body offset; off[n]: the end */
    const uint32_t *order;  /* the packets, job by job */
    const uint32_t *first;  /* job j: order[first[j] .. first[j + 1]) */
    const struct job *jobs; /* the jobs, heaviest first */
    uint32_t *worker;       /* job j ran on worker[j] */
    t2out *outs;            /* a worker each */
    int *failed;            /* a worker each */
} par_ctx;

static void par_fn(void *v, size_t begin, size_t end, unsigned w) {
    par_ctx *x = v;
    sci_j2k_status st;
    for (size_t q = begin; q < end && !x->failed[w]; q++) {
        uint32_t j = x->jobs[q].job;
        x->worker[j] = w;
        memset(&st, 0, sizeof st);
        for (uint32_t a = x->first[j]; a < x->first[j + 1]; a++) {
            uint32_t i = x->order[a];
            const struct planned *p = &x->plan[i];
            t2run run;
            memset(&run, 0, sizeof run);
            run.t2 = x->t2;
            run.out = &x->outs[w];
            run.st = &st;
            run.bpos = x->off[i];
            run.seq = i;
            int e = packet(&run, p->c, p->r, p->k, p->l);
            if (e || st.warnings || run.bpos != x->off[i + 1]) {
                x->failed[w] = 1;
                break;
            }
        }
    }
}

/* The workers' pieces appended to the tile's, and the links of the blocks
 * of the precincts of jobs[0 .. njobs) moved by their worker's start. */
static int join_pieces(sci_j2k_t2 *t2, const par_ctx *x, unsigned nw,
                       const struct job *jobs, size_t njobs) {
    size_t base[SCI_POOL_MAX_THREADS], total = t2->npieces;
    for (unsigned w = 0; w < nw; w++) {
        base[w] = total;
        total += x->outs[w].npieces;
    }
    if (total > INT32_MAX)
        return SCI_J2K_ENOMEM;
    if (total > t2->pieces_cap) {
        sci_j2k_piece *p = realloc(t2->pieces, total * sizeof *p);
        if (!p)
            return SCI_J2K_ENOMEM;
        t2->pieces = p;
        t2->pieces_cap = total;
    }
    for (unsigned w = 0; w < nw; w++) {
        const t2out *o = &x->outs[w];
        sci_j2k_piece *dst = t2->pieces + base[w];
        for (size_t i = 0; i < o->npieces; i++) {
            dst[i] = o->pieces[i];
            if (dst[i].next >= 0)
                dst[i].next += (int32_t)base[w];
        }
    }
    t2->npieces = total;
    sci_j2k_tile *tile = t2->tile;
    for (size_t q = 0; q < njobs; q++) {
        uint32_t j = jobs[q].job;
        int32_t add = (int32_t)base[x->worker[j]];
        const struct planned *p = &x->plan[x->order[x->first[j]]];
        const sci_j2k_res *rs = sci_j2k_tile_res(tile, p->c, p->r);
        size_t p0 = rs->first_pband + (size_t)p->k * rs->nbands;
        for (unsigned bi = 0; bi < rs->nbands; bi++) {
            const sci_j2k_pband *pb = &tile->pbands[p0 + bi];
            const sci_j2k_band *band = &tile->bands[rs->first_band + bi];
            for (uint32_t y = 0; y < pb->ch; y++)
                for (uint32_t xx = 0; xx < pb->cw; xx++) {
                    sci_j2k_cblk *cb = &tile->cblks[band->first_cblk +
                        (size_t)(pb->cy0 + y) * band->ncbx + pb->cx0 + xx];
                    if (cb->first_piece >= 0) {
                        cb->first_piece += add;
                        cb->last_piece += add;
                    }
                }
        }
    }
    return 0;
}

/* Returns 1 when the packets were decoded in parallel, 0 when the tile is
 * to be walked in sequence (as it was before), or an error code. */
static int decode_parallel(sci_j2k_t2 *t2) {
    t2run run;
    memset(&run, 0, sizeof run);
    run.t2 = t2;
    run.planning = 1;
    int e = progression(&run);
    size_t n = run.nplan;
    if (e || n != t2->nplt || n < 2) {
        free(run.plan);
        sci_j2k_tile_t2_reset(t2->tile);
        return e < 0 ? e : 0;
    }
    sci_j2k_tile *tile = t2->tile;
    size_t np = tile->nprecs;
    unsigned nw = sci_pool_threads(t2->pool);
    size_t *off = malloc((n + 1) * sizeof *off);
    uint32_t *order = malloc(n * sizeof *order);
    uint32_t *first = calloc(np + 2, sizeof *first);
    struct job *jobs = calloc(np + 1, sizeof *jobs);
    uint32_t *worker = calloc(np + 1, sizeof *worker);
    uint32_t *slot = malloc((np + 1) * sizeof *slot);
    uint32_t *fill = malloc((np + 1) * sizeof *fill);
    t2out *outs = calloc(nw, sizeof *outs);
    int *failed = calloc(nw, sizeof *failed);
    int ret = SCI_J2K_ENOMEM;
    if (!off || !order || !first || !jobs || !worker || !slot || !fill ||
        !outs || !failed)
        goto done;
    ret = 0;
    off[0] = 0;
    for (size_t i = 0; i < n; i++)
        off[i + 1] = off[i] + t2->plt[i];
    if (off[n] > t2->body_len)
        goto done;
    /* jobs: the precincts with packets, numbered as first met */
    for (size_t i = 0; i < np; i++)
        slot[i] = UINT32_MAX;
    size_t njobs = 0;
    for (size_t i = 0; i < n; i++) {
        const struct planned *p = &run.plan[i];
        size_t prec = sci_j2k_tile_res(tile, p->c, p->r)->first_prec + p->k;
        if (slot[prec] == UINT32_MAX)
            slot[prec] = (uint32_t)njobs++;
        uint32_t j = slot[prec];
        first[j + 1]++;
        jobs[j].job = j;
        jobs[j].weight += t2->plt[i];
    }
    for (size_t j = 0; j < njobs; j++)
        first[j + 1] += first[j];
    /* a job's packets in stream order: its layers in turn */
    memcpy(fill, first, njobs * sizeof *fill);
    for (size_t i = 0; i < n; i++) {
        const struct planned *p = &run.plan[i];
        size_t prec = sci_j2k_tile_res(tile, p->c, p->r)->first_prec + p->k;
        order[fill[slot[prec]]++] = (uint32_t)i;
    }
    /* with a split, the lower resolutions' precincts in a round of their
     * own, the split's function, then the others */
    size_t nlo = njobs, at = off[n];
    if (t2->split) {
        for (size_t i = 0; i < n; i++)
            if (run.plan[i].r >= t2->split_res && off[i] < at)
                at = off[i];
        t2->split_at = at;
        int e2 = t2->split(t2->split_user, 1);
        if (e2 < 0) {
            ret = e2;
            goto done;
        }
        if (!e2)
            t2->split = NULL;
    }
    if (t2->split) {
        nlo = 0;
        for (size_t j = 0; j < njobs; j++) {
            jobs[j].hi = run.plan[order[first[j]]].r >= t2->split_res;
            nlo += !jobs[j].hi;
        }
    }
    /* the heaviest first, so that the longest does not start last */
    qsort(jobs, njobs, sizeof *jobs, cmp_heavier);
    par_ctx x = {t2, run.plan, off, order, first, jobs, worker, outs, failed};
    for (int round = 0; round < 2 && ret == 0; round++) {
        size_t q0 = round ? nlo : 0, q1 = round ? njobs : nlo;
        if (round && q0 < q1 && t2->split) {
            ret = split_now(t2, at);
            if (ret)
                break;
        }
        for (unsigned w = 0; w < nw; w++)
            outs[w].npieces = 0;
        x.jobs = jobs + q0;
        sci_pool_for(t2->pool, q1 - q0, 1, par_fn, &x);
        int bad = 0;
        for (unsigned w = 0; w < nw; w++)
            bad |= failed[w];
        if (bad)
            break;
        ret = join_pieces(t2, &x, nw, jobs + q0, q1 - q0);
        if (!ret && round == 1)
            ret = 1;
    }
done:
    if (ret != 1) {
        sci_j2k_tile_t2_reset(tile);
        t2->npieces = 0;
    }
    for (unsigned w = 0; outs && w < nw; w++) {
        free(outs[w].pieces);
        free(outs[w].scratch);
    }
    free(run.plan);
    free(off);
    free(order);
    free(first);
    free(jobs);
    free(worker);
    free(slot);
    free(fill);
    free(outs);
    free(failed);
    return ret;
}

int sci_j2k_t2_decode(sci_j2k_t2 *t2) {
    t2->parallel = 0;
    if (t2->plt && t2->nplt > 1 && !t2->hdr && sci_pool_threads(t2->pool) > 1) {
        int r = decode_parallel(t2);
        if (r < 0)
            return r;
        if (r == 1) {
            t2->parallel = 1;
            return 0;
        }
    }
    t2run run;
    memset(&run, 0, sizeof run);
    run.t2 = t2;
    run.st = t2->st;
    t2out o = {t2->pieces, t2->npieces, t2->pieces_cap, t2->scratch,
               t2->scratch_cap};
    run.out = &o;
    int e = progression(&run);
    t2->pieces = o.pieces;
    t2->npieces = o.npieces;
    t2->pieces_cap = o.pieces_cap;
    t2->scratch = o.scratch;
    t2->scratch_cap = o.scratch_cap;
    t2->stopped = run.stopped;
    if (e == 2) {
        sci_j2k_warn(t2->st, sci_j2k_t2_cs_offset(t2, run.bpos),
                     "tile %u: the progression order visits too many packets "
                     "that were sent already: stopped", t2->tile->index);
        t2->stopped = 1;
        return 0;
    }
    if (e < 0)
        return e;
    return 0;
}

void sci_j2k_t2_free(sci_j2k_t2 *t2) {
    free(t2->pieces);
    free(t2->scratch);
    t2->pieces = NULL;
    t2->scratch = NULL;
    t2->npieces = t2->pieces_cap = t2->scratch_cap = 0;
}
