/*
 * The layout of a JPEG 2000 tile (see j2k_layout.h).
 */
#include "j2k_layout.h"

#include <stdlib.h>
#include <string.h>

#include "j2k_quant.h"

/* ceil(a / 2^e) for a signed a (B-15's numerator may be negative). */
static int64_t ceil_shift(int64_t a, unsigned e) {
    int64_t d = (int64_t)1 << e;
    if (a >= 0)
        return (a + d - 1) >> e;
    return -((-a) >> e);
}

void sci_j2k_band_rect(const sci_j2k_tcomp *tc, unsigned nb, unsigned o,
                       uint32_t *x0, uint32_t *y0, uint32_t *x1,
                       uint32_t *y1) {
    int64_t xo = (o & 1) && nb ? (int64_t)1 << (nb - 1) : 0;
    int64_t yo = (o & 2) && nb ? (int64_t)1 << (nb - 1) : 0;
    *x0 = (uint32_t)ceil_shift((int64_t)tc->x0 - xo, nb);
    *y0 = (uint32_t)ceil_shift((int64_t)tc->y0 - yo, nb);
    *x1 = (uint32_t)ceil_shift((int64_t)tc->x1 - xo, nb);
    *y1 = (uint32_t)ceil_shift((int64_t)tc->y1 - yo, nb);
}

/* Nodes of a tag tree over w x h leaves, and its levels. */
static size_t tt_nodes(uint32_t w, uint32_t h, uint8_t *levels) {
    size_t n = 0;
    uint8_t l = 0;
    for (;;) {
        n += (size_t)w * h;
        l++;
        if (w <= 1 && h <= 1)
            break;
        w = (w + 1) / 2;
        h = (h + 1) / 2;
    }
    if (levels)
        *levels = l;
    return n;
}

void sci_j2k_tile_free(sci_j2k_tile *t) {
    free(t->comps);
    free(t->res);
    free(t->bands);
    free(t->cblks);
    free(t->precs);
    free(t->pbands);
    free(t->tt_low);
    free(t->tt_val);
    memset(t, 0, sizeof *t);
}

/* The precinct's extent in a band of resolution r: [*a, *b) of the band's
 * coordinates for precinct grid index p. */
static void prec_span(uint32_t p, unsigned pp, unsigned r, uint64_t *a,
                      uint64_t *b) {
    unsigned e = r > 0 ? pp - 1u : pp;
    *a = (uint64_t)p << e;
    *b = (uint64_t)(p + 1) << e;
}

/* Band b's quantization (of component c of tile t) from tcp: its entry,
 * M_b, ROI shift and step. */
static int band_quant(sci_j2k_band *b, const sci_j2k_siz *siz,
                      const sci_j2k_tcp *tcp, unsigned c, uint32_t t,
                      size_t err_off, sci_j2k_status *st) {
    const sci_j2k_qcd *qcd = &tcp->qcd[c];
    unsigned nl = tcp->coc[c].levels, o = b->orient, r = b->res;
    /* SPqcd's order is LL, then HL, LH, HH from the lowest resolution up */
    unsigned qi = r ? 1 + 3 * (r - 1) + (o - 1) : 0;
    int sp = sci_j2k_qcd_step(qcd, nl, qi);
    if (sp < 0)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, err_off,
                            "tile %u component %u: the quantization marker "
                            "has %u entries, too few for %u levels", t, c,
                            qcd->n, nl);
    int mb = sci_j2k_entry_mb(qcd->guard, (unsigned)sp);
    if (mb < 0)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, err_off,
                            "tile %u component %u: no magnitude bit-planes "
                            "(guard %u, exponent %d)", t, c, qcd->guard,
                            sp >> 11);
    b->spqcd = (uint16_t)sp;
    b->mb = (uint8_t)mb;
    b->roi = tcp->roi[c];
    b->step = tcp->coc[c].reversible ? 1.0 :
              sci_j2k_entry_step((unsigned)sp, siz->comp[c].depth, o);
    return 0;
}

static uint32_t clamp32(uint64_t v, uint32_t lo, uint32_t hi) {
    return v < lo ? lo : v > hi ? hi : (uint32_t)v;
}

/* limits: refuse more code-blocks or precincts than a decoder takes */
static int tile_layout(sci_j2k_tile *tile, const sci_j2k_siz *siz,
                       const sci_j2k_tcp *tcp, uint32_t t, size_t err_off,
                       int limits, sci_j2k_status *st) {
    memset(tile, 0, sizeof *tile);
    tile->index = t;
    sci_j2k_tile_rect(siz, t, &tile->x0, &tile->y0, &tile->x1, &tile->y1);
    unsigned nc = siz->csiz;
    tile->ncomp = (uint16_t)nc;
    tile->comps = calloc(nc, sizeof *tile->comps);
    if (!tile->comps)
        return sci_j2k_fail(st, SCI_J2K_ENOMEM, err_off, "out of memory");

    /* pass 1: count */
    size_t nres = 0, nbands = 0;
    uint64_t nblocks = 0, nprecs = 0, npb = 0, ntt = 0;
    for (unsigned c = 0; c < nc; c++) {
        const sci_j2k_coc *coc = &tcp->coc[c];
        sci_j2k_tcomp *tc = &tile->comps[c];
        tc->dx = siz->comp[c].dx;
        tc->dy = siz->comp[c].dy;
        tc->x0 = sci_j2k_ceil_div(tile->x0, tc->dx);
        tc->y0 = sci_j2k_ceil_div(tile->y0, tc->dy);
        tc->x1 = sci_j2k_ceil_div(tile->x1, tc->dx);
        tc->y1 = sci_j2k_ceil_div(tile->y1, tc->dy);
        tc->levels = coc->levels;
        tc->reversible = coc->reversible;
        tc->cb_style = coc->cb_style;
        tc->guard = tcp->qcd[c].guard;
        tc->first_res = (uint32_t)nres;
        nres += coc->levels + 1u;
        nbands += 3u * coc->levels + 1u;
    }
    tile->nres = nres;
    tile->nbands = nbands;
    tile->res = calloc(nres, sizeof *tile->res);
    tile->bands = calloc(nbands, sizeof *tile->bands);
    if (!tile->res || !tile->bands)
        return sci_j2k_fail(st, SCI_J2K_ENOMEM, err_off, "out of memory");

    size_t bi = 0;
    for (unsigned c = 0; c < nc; c++) {
        const sci_j2k_coc *coc = &tcp->coc[c];
        sci_j2k_tcomp *tc = &tile->comps[c];
        unsigned nl = coc->levels;
        uint32_t prev_w = 0, prev_h = 0;
        for (unsigned r = 0; r <= nl; r++) {
            sci_j2k_res *rs = &tile->res[tc->first_res + r];
            unsigned sh = nl - r;
            rs->x0 = sci_j2k_ceil_pow2(tc->x0, sh);
            rs->y0 = sci_j2k_ceil_pow2(tc->y0, sh);
            rs->x1 = sci_j2k_ceil_pow2(tc->x1, sh);
            rs->y1 = sci_j2k_ceil_pow2(tc->y1, sh);
            rs->ppx = coc->ppx[r];
            rs->ppy = coc->ppy[r];
            rs->nbands = r ? 3 : 1;
            rs->first_band = (uint32_t)bi;
            if (rs->x1 > rs->x0 && rs->y1 > rs->y0) {
                rs->pcx0 = rs->x0 >> rs->ppx;
                rs->pcy0 = rs->y0 >> rs->ppy;
                rs->npw = sci_j2k_ceil_pow2(rs->x1, rs->ppx) - rs->pcx0;
                rs->nph = sci_j2k_ceil_pow2(rs->y1, rs->ppy) - rs->pcy0;
            }
            rs->first_prec = (size_t)nprecs;
            rs->first_pband = (size_t)npb;
            nprecs += (uint64_t)rs->npw * rs->nph;
            npb += (uint64_t)rs->npw * rs->nph * rs->nbands;
            if (limits && nprecs > SCI_J2K_MAX_TILE_PRECINCTS)
                return sci_j2k_fail(st, SCI_J2K_EUNSUPPORTED, err_off,
                                    "tile %u has more than %u precincts", t,
                                    SCI_J2K_MAX_TILE_PRECINCTS);
            uint32_t w = rs->x1 - rs->x0, h = rs->y1 - rs->y0;
            for (unsigned k = 0; k < rs->nbands; k++, bi++) {
                sci_j2k_band *b = &tile->bands[bi];
                unsigned o = r ? k + 1 : SCI_J2K_LL;
                unsigned nb = r ? nl - r + 1 : nl;
                b->orient = (uint8_t)o;
                b->level = (uint8_t)nb;
                b->comp = (uint16_t)c;
                b->res = (uint8_t)r;
                sci_j2k_band_rect(tc, nb, o, &b->x0, &b->y0, &b->x1, &b->y1);
                if (b->x1 < b->x0)
                    b->x1 = b->x0;
                if (b->y1 < b->y0)
                    b->y1 = b->y0;
                unsigned px = r ? rs->ppx - 1u : rs->ppx;
                unsigned py = r ? rs->ppy - 1u : rs->ppy;
                b->xcb = (uint8_t)(coc->xcb < px ? coc->xcb : px);
                b->ycb = (uint8_t)(coc->ycb < py ? coc->ycb : py);
                if (b->x1 > b->x0 && b->y1 > b->y0) {
                    b->cbx0 = b->x0 >> b->xcb;
                    b->cby0 = b->y0 >> b->ycb;
                    b->ncbx = sci_j2k_ceil_pow2(b->x1, b->xcb) - b->cbx0;
                    b->ncby = sci_j2k_ceil_pow2(b->y1, b->ycb) - b->cby0;
                }
                b->first_cblk = (size_t)nblocks;
                nblocks += (uint64_t)b->ncbx * b->ncby;
                if (limits && nblocks > SCI_J2K_MAX_TILE_BLOCKS)
                    return sci_j2k_fail(st, SCI_J2K_EUNSUPPORTED, err_off,
                                        "tile %u has more than %u "
                                        "code-blocks", t,
                                        SCI_J2K_MAX_TILE_BLOCKS);
                int e = band_quant(b, siz, tcp, c, t, err_off, st);
                if (e)
                    return e;
                /* Mallat placement */
                b->px = (o & 1) ? prev_w : 0;
                b->py = (o & 2) ? prev_h : 0;
                /* tag trees of each precinct's part of this band */
                if (b->ncbx && b->ncby) {
                    for (uint32_t j = 0; j < rs->nph; j++)
                        for (uint32_t i = 0; i < rs->npw; i++) {
                            uint64_t a, e, f, g;
                            prec_span(rs->pcx0 + i, rs->ppx, r, &a, &e);
                            prec_span(rs->pcy0 + j, rs->ppy, r, &f, &g);
                            uint32_t ix0 = clamp32(a, b->x0, b->x1);
                            uint32_t ix1 = clamp32(e, b->x0, b->x1);
                            uint32_t iy0 = clamp32(f, b->y0, b->y1);
                            uint32_t iy1 = clamp32(g, b->y0, b->y1);
                            if (ix1 <= ix0 || iy1 <= iy0)
                                continue;
                            uint32_t cw = sci_j2k_ceil_pow2(ix1, b->xcb) -
                                          (ix0 >> b->xcb);
                            uint32_t ch = sci_j2k_ceil_pow2(iy1, b->ycb) -
                                          (iy0 >> b->ycb);
                            ntt += 2 * tt_nodes(cw, ch, NULL);
                        }
                }
            }
            prev_w = w;
            prev_h = h;
        }
    }
    tile->ncblks = (size_t)nblocks;
    tile->nprecs = (size_t)nprecs;
    tile->npbands = (size_t)npb;
    tile->ntt = (size_t)ntt;
    tile->cblks = calloc(nblocks ? nblocks : 1, sizeof *tile->cblks);
    tile->precs = calloc(nprecs ? nprecs : 1, sizeof *tile->precs);
    tile->pbands = calloc(npb ? npb : 1, sizeof *tile->pbands);
    tile->tt_low = malloc((ntt ? ntt : 1) * sizeof *tile->tt_low);
    tile->tt_val = malloc((ntt ? ntt : 1) * sizeof *tile->tt_val);
    if (!tile->cblks || !tile->precs || !tile->pbands || !tile->tt_low ||
        !tile->tt_val)
        return sci_j2k_fail(st, SCI_J2K_ENOMEM, err_off, "out of memory");

    /* pass 2: code-blocks and precinct parts */
    size_t tt = 0;
    for (size_t k = 0; k < nbands; k++) {
        sci_j2k_band *b = &tile->bands[k];
        for (uint32_t j = 0; j < b->ncby; j++) {
            for (uint32_t i = 0; i < b->ncbx; i++) {
                sci_j2k_cblk *cb = &tile->cblks[b->first_cblk +
                                                (size_t)j * b->ncbx + i];
                uint64_t gx = (uint64_t)(b->cbx0 + i), gy = (uint64_t)(b->cby0 + j);
                cb->x0 = clamp32(gx << b->xcb, b->x0, b->x1);
                cb->x1 = clamp32((gx + 1) << b->xcb, b->x0, b->x1);
                cb->y0 = clamp32(gy << b->ycb, b->y0, b->y1);
                cb->y1 = clamp32((gy + 1) << b->ycb, b->y0, b->y1);
                cb->band = (uint32_t)k;
            }
        }
    }
    for (size_t ri = 0; ri < nres; ri++) {
        sci_j2k_res *rs = &tile->res[ri];
        unsigned r = tile->bands[rs->first_band].res;
        for (uint32_t j = 0; j < rs->nph; j++) {
            for (uint32_t i = 0; i < rs->npw; i++) {
                size_t p = (size_t)j * rs->npw + i;
                for (unsigned k = 0; k < rs->nbands; k++) {
                    sci_j2k_band *b = &tile->bands[rs->first_band + k];
                    sci_j2k_pband *pb =
                        &tile->pbands[rs->first_pband + p * rs->nbands + k];
                    if (!b->ncbx || !b->ncby)
                        continue;
                    uint64_t a, e, f, g;
                    prec_span(rs->pcx0 + i, rs->ppx, r, &a, &e);
                    prec_span(rs->pcy0 + j, rs->ppy, r, &f, &g);
                    uint32_t ix0 = clamp32(a, b->x0, b->x1);
                    uint32_t ix1 = clamp32(e, b->x0, b->x1);
                    uint32_t iy0 = clamp32(f, b->y0, b->y1);
                    uint32_t iy1 = clamp32(g, b->y0, b->y1);
                    if (ix1 <= ix0 || iy1 <= iy0)
                        continue;
                    pb->cx0 = (ix0 >> b->xcb) - b->cbx0;
                    pb->cy0 = (iy0 >> b->ycb) - b->cby0;
                    pb->cw = sci_j2k_ceil_pow2(ix1, b->xcb) - (ix0 >> b->xcb);
                    pb->ch = sci_j2k_ceil_pow2(iy1, b->ycb) - (iy0 >> b->ycb);
                    pb->tt = (uint32_t)tt;
                    tt += 2 * tt_nodes(pb->cw, pb->ch, &pb->tt_levels);
                }
            }
        }
    }
    sci_j2k_tile_t2_reset(tile);
    return 0;
}

void sci_j2k_tile_t2_reset(sci_j2k_tile *tile) {
    for (size_t i = 0; i < tile->ncblks; i++) {
        sci_j2k_cblk *cb = &tile->cblks[i];
        cb->included = 0;
        cb->lblock = 0;
        cb->mode = 0;
        cb->zbp = 0;
        cb->passes = 0;
        cb->first_piece = cb->last_piece = -1;
    }
    for (size_t i = 0; i < tile->nprecs; i++)
        tile->precs[i].next_layer = 0;
    for (size_t i = 0; i < tile->ntt; i++) {
        tile->tt_low[i] = 0;
        tile->tt_val[i] = INT32_MAX;
    }
}

int sci_j2k_tile_layout(sci_j2k_tile *tile, const sci_j2k_siz *siz,
                        const sci_j2k_tcp *tcp, uint32_t t, size_t err_off,
                        sci_j2k_status *st) {
    return tile_layout(tile, siz, tcp, t, err_off, 1, st);
}

int sci_j2k_tile_layout_enc(sci_j2k_tile *tile, const sci_j2k_siz *siz,
                            const sci_j2k_tcp *tcp, uint32_t t,
                            sci_j2k_status *st) {
    return tile_layout(tile, siz, tcp, t, 0, 0, st);
}
