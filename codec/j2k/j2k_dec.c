/*
 * JPEG 2000 decoder (see j2k_dec.h): tile by tile, tier-2 (j2k_t2.c), then
 * the code-blocks (t1.h, ht_dec.h) into dequantized coefficient planes,
 * the inverse DWT (j2k_idwt.h), the colour transform and the samples.
 */
#include "j2k_dec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codec/common/grow.h"
#include "colour.h"
#include "ht_dec.h"
#include "j2k_quant.h"
#include "t1.h"
#include "j2k_idwt.h"
#include "j2k_layout.h"
#include "j2k_t2.h"

struct sci_j2k_block_scratch {
    sci_t1_coder t1;
    sci_ht_dec_tables ht;
    int ht_ready;
    uint32_t sm[SCI_T1_MAX_SAMPLES];
    uint8_t low[SCI_T1_MAX_SAMPLES];
    size_t pass_len[SCI_J2K_MAX_PASSES + 4];
};

struct sci_j2k_dec {
    sci_j2k_cs cs;
    int parsed;
    sci_j2k_status st;
    /* the tile being decoded */
    sci_j2k_tcp tcp;
    int have_tcp;
    sci_j2k_tile tile;
    sci_j2k_t2 t2;
    uint8_t *body, *hdr;
    size_t *tp_body, *tp_cs;
    uint8_t *keep_res;
    uint32_t *plt;       /* the tile's packet lengths (PLT), for tier-2 */
    unsigned t2_parallel; /* tiles since the parse whose tier-2 was */
    /* what sci_j2k_dec_tile_blocks hands out */
    sci_j2k_tcomp_info *tci;
    sci_j2k_band_info *bands;
    sci_j2k_block *blocks;
    size_t blocks_cap;
    uint8_t *arena;
    size_t arena_cap;
    uint32_t *seg_end;
    uint16_t *seg_pass;
    size_t seg_cap;
    sci_j2k_block_scratch *scratch;
    /* sci_j2k_dec_set_pool: the threads, a scratch each, and what each
     * block of a tile returned */
    sci_pool *pool;
    sci_j2k_block_scratch **wscratch;
    unsigned nwscratch;
    int8_t *block_res;
    size_t block_res_cap;
    void **planes;       /* per component: int32_t or float */
    size_t *plane_cap;
    /* refs mode (sci_j2k_dec_set_refs) */
    int refs_mode;
    int body_borrowed;   /* body points into the codestream */
    sci_j2k_block_ref *refs;
    size_t nrefs, refs_cap;
    uint32_t *ref_first;
    size_t ref_first_cap;
    /* sci_j2k_dec_set_split, and the tile's tile_blocks call */
    int (*split_fn)(void *, const sci_j2k_tile_blocks *,
                    const sci_j2k_split_rest *);
    void *split_user;
    unsigned split_res;
    int split_taken;
    sci_j2k_tile_blocks *split_tb;
    size_t split_toff;
};

/* ---- life ---------------------------------------------------------------- */

sci_j2k_dec *sci_j2k_dec_new(void) {
    sci_j2k_dec *d = calloc(1, sizeof *d);
    return d;
}

static void tile_reset(sci_j2k_dec *d) {
    if (d->have_tcp)
        sci_j2k_tcp_free(&d->tcp);
    d->have_tcp = 0;
    sci_j2k_tile_free(&d->tile);
    sci_j2k_t2_free(&d->t2);
    if (!d->body_borrowed)
        free(d->body);
    d->body_borrowed = 0;
    free(d->hdr);
    free(d->tp_body);
    free(d->tp_cs);
    free(d->keep_res);
    free(d->plt);
    d->plt = NULL;
    free(d->tci);
    free(d->bands);
    d->body = d->hdr = d->keep_res = NULL;
    d->tp_body = d->tp_cs = NULL;
    d->tci = NULL;
    d->bands = NULL;
}

static void free_planes(sci_j2k_dec *d) {
    if (d->planes) {
        for (unsigned c = 0; c < d->cs.siz.csiz; c++)
            free(d->planes[c]);
    }
    free(d->planes);
    free(d->plane_cap);
    d->planes = NULL;
    d->plane_cap = NULL;
}

void sci_j2k_dec_free(sci_j2k_dec *d) {
    if (!d)
        return;
    tile_reset(d);
    free_planes(d);
    free(d->blocks);
    free(d->arena);
    free(d->seg_end);
    free(d->seg_pass);
    free(d->refs);
    free(d->ref_first);
    sci_j2k_block_scratch_free(d->scratch);
    for (unsigned i = 0; i < d->nwscratch; i++)
        sci_j2k_block_scratch_free(d->wscratch[i]);
    free(d->wscratch);
    free(d->block_res);
    sci_j2k_cs_free(&d->cs);
    free(d);
}

void sci_j2k_dec_set_warning_func(sci_j2k_dec *d,
                                  void (*fn)(void *, size_t, const char *),
                                  void *user) {
    d->st.warn_fn = fn;
    d->st.warn_user = user;
}

void sci_j2k_dec_set_refs(sci_j2k_dec *d, int on) {
    d->refs_mode = on != 0;
}

void sci_j2k_dec_set_split(sci_j2k_dec *d, unsigned res,
                           int (*fn)(void *, const sci_j2k_tile_blocks *,
                                     const sci_j2k_split_rest *),
                           void *user) {
    d->split_fn = fn;
    d->split_user = user;
    d->split_res = res;
}

sci_j2k_status *sci_j2k_dec_status(sci_j2k_dec *d) {
    return &d->st;
}

int sci_j2k_dec_truncated(const sci_j2k_dec *d) {
    return d->parsed && d->cs.truncated;
}

const char *sci_j2k_dec_error(const sci_j2k_dec *d) {
    return d->st.code ? d->st.msg : "";
}
size_t sci_j2k_dec_error_offset(const sci_j2k_dec *d) {
    return d->st.offset;
}
unsigned sci_j2k_dec_t2_parallel(const sci_j2k_dec *d) {
    return d->t2_parallel;
}
unsigned sci_j2k_dec_warnings(const sci_j2k_dec *d) {
    return d->st.warnings;
}
const char *sci_j2k_dec_warning(const sci_j2k_dec *d) {
    return d->st.warnings ? d->st.warning : "";
}

sci_j2k_block_scratch *sci_j2k_block_scratch_new(void) {
    sci_j2k_block_scratch *s = malloc(sizeof *s);
    if (s)
        s->ht_ready = 0;
    return s;
}

void sci_j2k_block_scratch_free(sci_j2k_block_scratch *s) {
    free(s);
}

/* ---- parse --------------------------------------------------------------- */

static void clear_status(sci_j2k_status *st) {
    void (*fn)(void *, size_t, const char *) = st->warn_fn;
    void *user = st->warn_user;
    memset(st, 0, sizeof *st);
    st->warn_fn = fn;
    st->warn_user = user;
}

int sci_j2k_dec_parse(sci_j2k_dec *d, const uint8_t *data, size_t len,
                      sci_j2k_info *info) {
    if (!d)
        return SCI_J2K_EARG;
    tile_reset(d);
    free_planes(d);
    sci_j2k_cs_free(&d->cs);
    d->parsed = 0;
    d->t2_parallel = 0;
    clear_status(&d->st);
    int r = sci_j2k_cs_parse(&d->cs, data, len, &d->st);
    if (r)
        return r;
    const sci_j2k_cs *cs = &d->cs;
    if (cs->jp2.file && cs->jp2.has_palette)
        return sci_j2k_fail(&d->st, SCI_J2K_EUNSUPPORTED, 0,
                            "JP2: palette (pclr box) images are not "
                            "supported");
    if (!cs->main.have_cod || !cs->main.have_qcd)
        return sci_j2k_fail(&d->st, SCI_J2K_ECORRUPT, cs->main_end,
                            "the main header lacks %s",
                            cs->main.have_cod ? "QCD" : "COD");
    d->parsed = 1;
    if (info) {
        const sci_j2k_siz *z = &cs->siz;
        memset(info, 0, sizeof *info);
        info->x0 = z->xosiz;
        info->y0 = z->yosiz;
        info->width = z->xsiz - z->xosiz;
        info->height = z->ysiz - z->yosiz;
        info->components = z->csiz;
        info->tiles_x = z->tiles_x;
        info->tiles_y = z->tiles_y;
        info->tile_w = z->xtsiz;
        info->tile_h = z->ytsiz;
        info->tile_x0 = z->xtosiz;
        info->tile_y0 = z->ytosiz;
        unsigned lv = SCI_J2K_MAX_LEVELS;
        for (unsigned c = 0; c < z->csiz; c++) {
            if (cs->main.coc[c].levels < lv)
                lv = cs->main.coc[c].levels;
            if (cs->main.coc[c].cb_style & SCI_J2K_CB_HT)
                info->ht = 1;
        }
        info->levels = lv;
        info->layers = cs->main.layers;
        info->progression = cs->main.prog;
        info->reversible = cs->main.coc[0].reversible;
        info->mct = cs->main.mct;
        info->cb_style = cs->main.coc[0].cb_style;
        info->rsiz = z->rsiz;
        info->colour = cs->jp2.colour;
        info->file = cs->jp2.file;
        info->jph = cs->jp2.jph;
    }
    return 0;
}

int sci_j2k_dec_comp_info(const sci_j2k_dec *d, unsigned c, unsigned reduce,
                          sci_j2k_comp_info *ci) {
    if (!d || !d->parsed || c >= d->cs.siz.csiz || reduce > 32)
        return SCI_J2K_EARG;
    const sci_j2k_siz *z = &d->cs.siz;
    const sci_j2k_siz_comp *k = &z->comp[c];
    uint32_t x0 = sci_j2k_ceil_pow2(sci_j2k_ceil_div(z->xosiz, k->dx), reduce);
    uint32_t y0 = sci_j2k_ceil_pow2(sci_j2k_ceil_div(z->yosiz, k->dy), reduce);
    uint32_t x1 = sci_j2k_ceil_pow2(sci_j2k_ceil_div(z->xsiz, k->dx), reduce);
    uint32_t y1 = sci_j2k_ceil_pow2(sci_j2k_ceil_div(z->ysiz, k->dy), reduce);
    ci->x0 = x0;
    ci->y0 = y0;
    ci->w = x1 - x0;
    ci->h = y1 - y0;
    ci->depth = k->depth;
    ci->is_signed = k->is_signed;
    ci->dx = k->dx;
    ci->dy = k->dy;
    return 0;
}

/* ---- tier-2 and the block list ------------------------------------------- */

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
    return sci_grow(p, cap, need, elem, 64);
}

/* The tile's packet data, tile-part after tile-part, and its packed
 * headers (PPM or PPT) likewise. */
static int gather_tile(sci_j2k_dec *d, unsigned t, const uint8_t *ppt,
                       size_t ppt_len, int have_ppt) {
    const sci_j2k_cs *cs = &d->cs;
    size_t n = 0, total = 0, htotal = 0;
    for (int32_t i = cs->tile_first[t]; i >= 0; i = cs->tp[i].next) {
        n++;
        total += cs->tp[i].data_end - cs->tp[i].data;
        htotal += cs->tp[i].ppm_len;
    }
    /* refs mode reads only the packet headers from the body: one
     * tile-part's data can be read where it lies */
    d->body_borrowed = d->refs_mode && n == 1;
    d->body = d->body_borrowed ? (uint8_t *)cs->buf + cs->tp[cs->tile_first[t]].data
                               : malloc(total ? total : 1);
    d->tp_body = malloc((n ? n : 1) * sizeof *d->tp_body);
    d->tp_cs = malloc((n ? n : 1) * sizeof *d->tp_cs);
    if (!d->body || !d->tp_body || !d->tp_cs)
        return SCI_J2K_ENOMEM;
    size_t at = 0, k = 0;
    for (int32_t i = cs->tile_first[t]; i >= 0; i = cs->tp[i].next, k++) {
        const sci_j2k_tilepart *tp = &cs->tp[i];
        d->tp_body[k] = at;
        d->tp_cs[k] = tp->data;
        if (!d->body_borrowed)
            memcpy(d->body + at, cs->buf + tp->data, tp->data_end - tp->data);
        at += tp->data_end - tp->data;
    }
    d->t2.body = d->body;
    d->t2.body_len = total;
    d->t2.tp_body = d->tp_body;
    d->t2.tp_cs = d->tp_cs;
    d->t2.ntp = n;
    d->t2.hdr = NULL;
    d->t2.hdr_len = 0;
    if (cs->have_ppm) {
        d->hdr = malloc(htotal ? htotal : 1);
        if (!d->hdr)
            return SCI_J2K_ENOMEM;
        at = 0;
        for (int32_t i = cs->tile_first[t]; i >= 0; i = cs->tp[i].next) {
            memcpy(d->hdr + at, cs->ppm + cs->tp[i].ppm, cs->tp[i].ppm_len);
            at += cs->tp[i].ppm_len;
        }
        d->t2.hdr = d->hdr;
        d->t2.hdr_len = htotal;
    } else if (have_ppt) {
        d->t2.hdr = ppt;
        d->t2.hdr_len = ppt_len;
    }
    return 0;
}

/* Turns block cb's pieces into a sci_j2k_block (its bytes appended to the
 * arena).  Returns 1 when it has something to decode, 0 when not, or an
 * error code. */
static int assemble(sci_j2k_dec *d, const sci_j2k_cblk *cb, size_t *arena_len,
                    size_t *nseg, sci_j2k_block *out) {
    const sci_j2k_piece *pc = d->t2.pieces;
    const sci_j2k_band *band = &d->tile.bands[cb->band];
    size_t total = 0;
    int p1 = 0;
    for (int32_t i = cb->first_piece; i >= 0; i = pc[i].next) {
        total += pc[i].len;
        if (pc[i].kind == J2K_PIECE_P1)
            p1 = 1;
    }
    memset(out, 0, sizeof *out);
    out->band = cb->band;
    out->x0 = cb->x0;
    out->y0 = cb->y0;
    out->x1 = cb->x1;
    out->y1 = cb->y1;
    out->px = band->px + (cb->x0 - band->x0);
    out->py = band->py + (cb->y0 - band->y0);
    out->style = d->tile.comps[band->comp].cb_style;
    out->off = *arena_len;
    out->src = cb->first_piece >= 0 ?
               sci_j2k_t2_cs_offset(&d->t2, pc[cb->first_piece].off) : 0;
    size_t at = *arena_len;
    if (d->refs_mode) {
        /* where the bytes are, not the bytes (the caller drops these
         * when the block has nothing to decode) */
        for (int32_t i = cb->first_piece; i >= 0; i = pc[i].next) {
            if (grow((void **)&d->refs, &d->refs_cap, d->nrefs + 1,
                     sizeof *d->refs))
                return SCI_J2K_ENOMEM;
            d->refs[d->nrefs].src = sci_j2k_t2_cs_offset(&d->t2, pc[i].off);
            d->refs[d->nrefs++].len = pc[i].len;
            at += pc[i].len;
        }
    } else {
        if (grow((void **)&d->arena, &d->arena_cap, *arena_len + total + 8, 1))
            return SCI_J2K_ENOMEM;
        for (int32_t i = cb->first_piece; i >= 0; i = pc[i].next) {
            memcpy(d->arena + at, d->body + pc[i].off, pc[i].len);
            at += pc[i].len;
        }
    }
    out->len = total;
    if (p1) {
        /* EBCOT: one segment entry per piece (pieces end where segments
         * do, or where a layer ends) */
        size_t n = 0, cum = 0;
        for (int32_t i = cb->first_piece; i >= 0; i = pc[i].next)
            n++;
        if (*nseg + n > d->seg_cap) {
            size_t cap = d->seg_cap ? 2 * d->seg_cap : 1024;
            while (cap < *nseg + n)
                cap *= 2;
            uint32_t *se = realloc(d->seg_end, cap * sizeof *se);
            if (se)
                d->seg_end = se;
            uint16_t *sp = realloc(d->seg_pass, cap * sizeof *sp);
            if (sp)
                d->seg_pass = sp;
            if (!se || !sp)
                return SCI_J2K_ENOMEM;
            d->seg_cap = cap;
        }
        out->first_seg = (uint32_t)*nseg;
        for (int32_t i = cb->first_piece; i >= 0; i = pc[i].next) {
            cum += pc[i].len;
            d->seg_end[*nseg] = (uint32_t)cum;
            d->seg_pass[*nseg] = pc[i].pass_end;
            (*nseg)++;
        }
        out->nseg = (uint32_t)n;
        out->ht = 0;
        out->zbp = cb->zbp;
        uint16_t passes = d->seg_pass[*nseg - 1];
        out->passes = (uint8_t)(passes > 255 ? 255 : passes);
        *arena_len = at;
        return passes > 0 && total > 0;
    }
    /* HT: the last cleanup segment with bytes is the HT set decoded; the
     * passes before it are placeholders (T.814: each three of them a
     * missing bit-plane) */
    int32_t cup = -1;
    size_t cup_off = 0, cum = 0;
    for (int32_t i = cb->first_piece; i >= 0; i = pc[i].next) {
        if (pc[i].kind == J2K_PIECE_HT_CUP && pc[i].len > 0) {
            cup = i;
            cup_off = cum;
        }
        cum += pc[i].len;
    }
    *arena_len = at;
    if (cup < 0)
        return 0;
    unsigned ci = pc[cup].pass_end - 1u;
    unsigned passes = 1;
    size_t lref = 0;
    for (int32_t i = pc[cup].next; i >= 0 && pc[i].kind == J2K_PIECE_HT_REF;
         i = pc[i].next) {
        lref += pc[i].len;
        passes = pc[i].pass_end - ci;
    }
    if (passes > 3)
        passes = 3;
    out->ht = 1;
    out->cup = (uint32_t)cup_off;
    out->lcup = pc[cup].len;
    out->lref = (uint32_t)lref;
    unsigned z = cb->zbp + ci / 3;
    out->zbp = (uint8_t)(z > 255 ? 255 : z);
    out->passes = (uint8_t)passes;
    return 1;
}

/* The blocks with data of bands of resolutions [res_lo, res_hi) into
 * d->blocks (and in refs mode d->refs), and tb's fields for them. */
static int collect_blocks(sci_j2k_dec *d, sci_j2k_tile_blocks *tb,
                          unsigned res_lo, unsigned res_hi, size_t toff) {
    sci_j2k_status *st = &d->st;
    sci_j2k_tile *tile = &d->tile;
    size_t nb = 0, arena_len = 0, nseg = 0;
    d->nrefs = 0;
    for (size_t i = 0; i < tile->ncblks; i++) {
        const sci_j2k_cblk *cb = &tile->cblks[i];
        unsigned res = tile->bands[cb->band].res;
        if (cb->first_piece < 0 || res < res_lo || res >= res_hi)
            continue;
        if (grow((void **)&d->blocks, &d->blocks_cap, nb + 1,
                 sizeof *d->blocks) ||
            (d->refs_mode && grow((void **)&d->ref_first, &d->ref_first_cap,
                                  nb + 2, sizeof *d->ref_first)))
            return sci_j2k_fail(st, SCI_J2K_ENOMEM, toff, "out of memory");
        size_t nrefs = d->nrefs;
        int r = assemble(d, cb, &arena_len, &nseg, &d->blocks[nb]);
        if (r < 0)
            return sci_j2k_fail(st, r, toff, "out of memory");
        if (r) {
            if (d->refs_mode)
                d->ref_first[nb] = (uint32_t)nrefs;
            nb++;
        } else {
            d->nrefs = nrefs;
        }
    }
    tb->nblocks = nb;
    tb->blocks = d->blocks;
    tb->arena = d->refs_mode ? NULL : d->arena;
    if (d->refs_mode) {
        if (grow((void **)&d->ref_first, &d->ref_first_cap, nb + 1,
                 sizeof *d->ref_first))
            return sci_j2k_fail(st, SCI_J2K_ENOMEM, toff, "out of memory");
        d->ref_first[nb] = (uint32_t)d->nrefs;
        tb->refs = d->refs;
        tb->ref_first = d->ref_first;
    }
    tb->arena_len = arena_len;
    tb->seg_end = d->seg_end;
    tb->seg_pass = d->seg_pass;
    return 0;
}

/* Tier-2 reached the split's resolution: the blocks of the lower ones go
 * to the split's function (ask: it is only asked, before tier-2). */
static int split_hook(void *user, int ask) {
    sci_j2k_dec *d = user;
    sci_j2k_split_rest rest = {d->t2.body_len - d->t2.split_at, 0};
    const sci_j2k_tile *tile = &d->tile;
    for (size_t i = 0; i < tile->nbands; i++)
        if (tile->bands[i].res >= d->t2.split_res)
            rest.blocks += (size_t)tile->bands[i].ncbx * tile->bands[i].ncby;
    if (ask)
        return d->split_fn(d->split_user, NULL, &rest);
    sci_j2k_tile_blocks part = *d->split_tb;
    int r = collect_blocks(d, &part, 0, d->t2.split_res, d->split_toff);
    if (r)
        return r;
    r = d->split_fn(d->split_user, &part, &rest);
    if (r < 0)
        return r;
    d->split_taken = r == 1;
    return 0;
}

int sci_j2k_dec_tile_blocks(sci_j2k_dec *d, unsigned t,
                            const sci_j2k_decode_params *p,
                            sci_j2k_tile_blocks *tb) {
    if (!d || !d->parsed || !p || !tb || t >= sci_j2k_cs_tiles(&d->cs))
        return SCI_J2K_EARG;
    tile_reset(d);
    sci_j2k_cs *cs = &d->cs;
    sci_j2k_status *st = &d->st;
    uint8_t *ppt = NULL;
    size_t ppt_len = 0;
    int have_ppt = 0;
    int r = sci_j2k_cs_tile_params(cs, t, &d->tcp, &ppt, &ppt_len, &have_ppt,
                                   st);
    d->have_tcp = r == 0 || d->tcp.coc != NULL;
    if (r) {
        free(ppt);
        return r;
    }
    d->hdr = ppt; /* freed with the tile */
    size_t toff = cs->tile_first[t] >= 0 ? cs->tp[cs->tile_first[t]].sot :
                  cs->main_end;
    r = sci_j2k_tile_layout(&d->tile, &cs->siz, &d->tcp, t, toff, st);
    if (r)
        return r;
    sci_j2k_tile *tile = &d->tile;
    unsigned nc = tile->ncomp;
    d->keep_res = malloc(nc);
    d->tci = calloc(nc, sizeof *d->tci);
    d->bands = calloc(tile->nbands ? tile->nbands : 1, sizeof *d->bands);
    if (!d->keep_res || !d->tci || !d->bands)
        return sci_j2k_fail(st, SCI_J2K_ENOMEM, toff, "out of memory");
    for (unsigned c = 0; c < nc; c++) {
        const sci_j2k_tcomp *tc = &tile->comps[c];
        if (p->reduce > tc->levels)
            return sci_j2k_fail(st, SCI_J2K_EARG, toff,
                                "reduce %u exceeds the %u decomposition "
                                "levels of tile %u component %u", p->reduce,
                                tc->levels, t, c);
        unsigned top = tc->levels - p->reduce;
        d->keep_res[c] = (uint8_t)top;
        sci_j2k_tcomp_info *ti = &d->tci[c];
        ti->comp = c;
        ti->levels = tc->levels;
        ti->top = top;
        ti->reversible = tc->reversible;
        for (unsigned rr = 0; rr <= top; rr++) {
            const sci_j2k_res *rs = sci_j2k_tile_res(tile, c, rr);
            ti->rect[rr][0] = rs->x0;
            ti->rect[rr][1] = rs->y0;
            ti->rect[rr][2] = rs->x1;
            ti->rect[rr][3] = rs->y1;
        }
        ti->x0 = ti->rect[top][0];
        ti->y0 = ti->rect[top][1];
        ti->w = ti->rect[top][2] - ti->rect[top][0];
        ti->h = ti->rect[top][3] - ti->rect[top][1];
    }
    for (size_t i = 0; i < tile->nbands; i++) {
        const sci_j2k_band *b = &tile->bands[i];
        sci_j2k_band_info *o = &d->bands[i];
        o->comp = b->comp;
        o->res = b->res;
        o->orient = b->orient;
        o->x0 = b->x0;
        o->y0 = b->y0;
        o->x1 = b->x1;
        o->y1 = b->y1;
        o->px = b->px;
        o->py = b->py;
        o->mb = b->mb;
        o->roi = b->roi;
        o->reversible = tile->comps[b->comp].reversible;
        o->step = b->step;
    }

    memset(tb, 0, sizeof *tb);
    tb->tile = t;
    tb->x0 = tile->x0;
    tb->y0 = tile->y0;
    tb->x1 = tile->x1;
    tb->y1 = tile->y1;
    tb->present = cs->tile_first[t] >= 0;
    tb->ncomp = nc;
    tb->comps = d->tci;
    tb->nbands = tile->nbands;
    tb->bands = d->bands;
    tb->mct = d->tcp.mct;

    /* tier-2 */
    d->split_taken = 0;
    memset(&d->t2, 0, sizeof d->t2);
    d->t2.tcp = &d->tcp;
    d->t2.tile = tile;
    d->t2.max_layers = p->max_layers ? p->max_layers : 65535;
    d->t2.keep_res = d->keep_res;
    d->t2.st = st;
    if (tb->present) {
        d->hdr = NULL;
        r = gather_tile(d, t, ppt, ppt_len, have_ppt);
        if (r) {
            free(ppt);
            return sci_j2k_fail(st, r, toff, "out of memory");
        }
        if (!cs->have_ppm)
            d->hdr = ppt; /* the PPT data: freed with the tile */
        else
            free(ppt);
        if (d->pool && sci_pool_threads(d->pool) > 1 &&
            sci_j2k_cs_tile_plt(cs, t, &d->plt, &d->t2.nplt))
            return sci_j2k_fail(st, SCI_J2K_ENOMEM, toff, "out of memory");
        d->t2.plt = d->plt;
        d->t2.pool = d->pool;
        /* where every lower resolution comes first */
        if (d->split_fn && d->split_res > 0 && d->tcp.npoc == 0 &&
            (d->tcp.prog == SCI_J2K_PROG_RLCP ||
             d->tcp.prog == SCI_J2K_PROG_RPCL)) {
            d->t2.split = split_hook;
            d->t2.split_user = d;
            d->t2.split_res = d->split_res;
            d->split_tb = tb;
            d->split_toff = toff;
        }
        r = sci_j2k_t2_decode(&d->t2);
        if (r)
            return r;
        d->t2_parallel += (unsigned)d->t2.parallel;
    } else {
        sci_j2k_warn(st, cs->main_end, "tile %u is missing from the "
                     "codestream: decoded as zero coefficients", t);
    }

    /* the blocks with data, or those the split did not take */
    return collect_blocks(d, tb, d->split_taken ? d->split_res : 0, 256, toff);
}

/* ---- one code-block ---------------------------------------------------------- */

int sci_j2k_block_decode(const sci_j2k_tile_blocks *tb, size_t i,
                         sci_j2k_block_scratch *s, void *plane, size_t stride,
                         sci_j2k_status *st) {
    const sci_j2k_block *b = &tb->blocks[i];
    const sci_j2k_band_info *band = &tb->bands[b->band];
    unsigned w = b->x1 - b->x0, h = b->y1 - b->y0;
    const uint8_t *data = tb->arena + b->off;
    int damaged = 0;
    if (!w || !h)
        return 0;
    /* the magnitude bit-planes the block coder sees: M_b plus the ROI
     * shift (H.1); planes above those the block skips (zbp) are never
     * coded, so a deep band still decodes when few planes are coded */
    unsigned nbp = band->mb + band->roi, zbp = b->zbp;
    if (nbp == 0 || zbp >= nbp) {
        if (zbp > nbp && st)
            sci_j2k_warn(st, b->src, "tile %u: a code-block of component %u with "
                         "%u zero bit-planes out of %u: left zero", tb->tile,
                         band->comp, zbp, nbp);
        return zbp > nbp;
    }
    if (nbp > 30) {
        unsigned k = nbp - 30;
        if (zbp < k) {
            if (st)
                sci_j2k_warn(st, b->src, "tile %u: a code-block of component %u "
                             "codes %u bit-planes (at most 30 are supported): "
                             "left zero", tb->tile, band->comp, nbp - zbp);
            return 1;
        }
        nbp -= k;
        zbp -= k;
    }
    unsigned top_plane = nbp - 1 - zbp;
    uint32_t *sm = s->sm;
    uint8_t *low = s->low;
    if (!b->ht) {
        sci_t1_params prm;
        memset(&prm, 0, sizeof prm);
        prm.w = w;
        prm.h = h;
        prm.band = band->orient;
        prm.nbp = nbp;
        prm.style = b->style & SCI_T1_STYLES;
        unsigned passes = b->passes;
        /* cumulative bytes after each pass, from the segments */
        unsigned k = 0;
        for (unsigned sg = 0; sg < b->nseg; sg++) {
            unsigned pe = tb->seg_pass[b->first_seg + sg];
            if (pe > passes)
                pe = passes;
            for (; k < pe && k < SCI_J2K_MAX_PASSES; k++)
                s->pass_len[k] = tb->seg_end[b->first_seg + sg];
        }
        for (; k < passes && k < SCI_J2K_MAX_PASSES; k++)
            s->pass_len[k] = b->len;
        if (passes > 3 * top_plane + 1)
            passes = 3 * top_plane + 1;
        int rr = sci_t1_decode_raw(&s->t1, &prm, data, b->len, zbp, passes,
                                   s->pass_len, sm, w, low, w);
        if (rr < 0) {
            if (st)
                sci_j2k_warn(st, b->src, "tile %u: a code-block of component %u "
                             "could not be decoded: left zero", tb->tile,
                             band->comp);
            return 1;
        }
        if (rr > 0) {
            damaged = 1;
            if (st)
                sci_j2k_warn(st, b->src, "tile %u: a code-block of component %u "
                             "has a wrong segmentation symbol (damaged data)",
                             tb->tile, band->comp);
        }
    } else {
        if (!s->ht_ready) {
            if (sci_ht_dec_tables_init(&s->ht))
                return -1;
            s->ht_ready = 1;
        }
        sci_ht_dec_params prm;
        prm.w = w;
        prm.h = h;
        prm.mb = nbp;
        prm.zbp = zbp;
        prm.passes = b->passes;
        if (top_plane == 0 && prm.passes > 1)
            prm.passes = 1;
        prm.style = b->style;
        const uint8_t *ref = b->lref ? data + b->cup + b->lcup : NULL;
        int rr = sci_ht_decode_block(&s->ht, data + b->cup, b->lcup, ref,
                                     b->lref, &prm, sm, w);
        if (rr == SCI_HT_DEC_EARG) {
            if (st)
                sci_j2k_warn(st, b->src, "tile %u: an HT code-block of component "
                             "%u could not be decoded: left zero", tb->tile,
                             band->comp);
            return 1;
        }
        if (rr) {
            damaged = 1;
            if (st)
                sci_j2k_warn(st, b->src, "tile %u: an HT code-block of component "
                             "%u is damaged (%s): decoded in part", tb->tile,
                             band->comp, sci_ht_dec_strerror(rr));
        }
        /* the lowest plane each sample is known to (ht_dec.h) */
        unsigned p = top_plane;
        for (unsigned y = 0; y < h; y++)
            for (unsigned x = 0; x < w; x++) {
                uint32_t m = sm[y * w + x] & ~SCI_T1_SIGN;
                unsigned lo = p;
                if (prm.passes == 3 ||
                    (prm.passes == 2 && p && m == 1u << (p - 1)))
                    lo = p - 1;
                low[y * w + x] = (uint8_t)lo;
            }
    }
    /* dequantization, ROI shift (H.1) and reconstruction */
    if (band->reversible)
        sci_j2k_dequantize_block(sm, low, w, h, band->roi, 1, 1.0,
                                 (int32_t *)plane + (size_t)b->py * stride +
                                     b->px, stride);
    else
        sci_j2k_dequantize_block(sm, low, w, h, band->roi, 0, band->step,
                                 (float *)plane + (size_t)b->py * stride +
                                     b->px, stride);
    return damaged;
}

/* ---- samples --------------------------------------------------------------- */

static inline int32_t clamp_i32(int64_t v, int32_t lo, int32_t hi) {
    return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

/* Rounds a 9/7 sample to the nearest integer, ties to even (lrintf's
 * default rounding), within a range that cannot overflow. */
static inline int64_t round_sample(float v) {
    if (!(v == v))
        return 0;
    if (v > 1e9f)
        return 1000000000;
    if (v < -1e9f)
        return -1000000000;
    return (int64_t)lrintf(v);
}

static void put_samples(sci_j2k_dec *d, const sci_j2k_tcomp_info *ti,
                        unsigned c, const sci_j2k_decode_params *p,
                        const sci_j2k_plane *pl) {
    const sci_j2k_siz_comp *k = &d->cs.siz.comp[c];
    sci_j2k_comp_info ci;
    sci_j2k_dec_comp_info(d, c, p->reduce, &ci);
    int32_t lo, hi, shift;
    if (k->is_signed) {
        lo = -(int32_t)(1u << (k->depth - 1));
        hi = (int32_t)(1u << (k->depth - 1)) - 1;
        shift = 0;
    } else {
        lo = 0;
        hi = (int32_t)((1u << k->depth) - 1);
        shift = (int32_t)(1u << (k->depth - 1));
    }
    uint32_t ox = ti->x0 - ci.x0, oy = ti->y0 - ci.y0;
    for (uint32_t y = 0; y < ti->h; y++) {
        size_t row = (size_t)(oy + y) * pl->stride + ox;
        if (ti->reversible) {
            const int32_t *s = (const int32_t *)d->planes[c] + (size_t)y * ti->w;
            for (uint32_t x = 0; x < ti->w; x++) {
                int32_t v = clamp_i32((int64_t)s[x] + shift, lo, hi);
                if (pl->bytes == 1)
                    ((uint8_t *)pl->data)[row + x] = (uint8_t)v;
                else
                    ((uint16_t *)pl->data)[row + x] = (uint16_t)v;
            }
        } else {
            const float *s = (const float *)d->planes[c] + (size_t)y * ti->w;
            for (uint32_t x = 0; x < ti->w; x++) {
                int32_t v = clamp_i32(round_sample(s[x]) + shift, lo, hi);
                if (pl->bytes == 1)
                    ((uint8_t *)pl->data)[row + x] = (uint8_t)v;
                else
                    ((uint16_t *)pl->data)[row + x] = (uint16_t)v;
            }
        }
    }
}

/* ---- a tile on the decoder's threads ---------------------------------------- */

void sci_j2k_dec_set_pool(sci_j2k_dec *d, sci_pool *pool) {
    d->pool = pool;
}

typedef struct {
    sci_j2k_dec *d;
    const sci_j2k_tile_blocks *tb;
    int nomem;
} block_job;

static void blocks_fn(void *ctx, size_t begin, size_t end, unsigned worker) {
    block_job *j = ctx;
    sci_j2k_dec *d = j->d;
    const sci_j2k_tile_blocks *tb = j->tb;
    sci_j2k_block_scratch *s = d->wscratch[worker];
    for (size_t i = begin; i < end; i++) {
        unsigned c = tb->bands[tb->blocks[i].band].comp;
        d->block_res[i] = 0;
        if (tb->bands[tb->blocks[i].band].res > tb->comps[c].top)
            continue;
        int r = sci_j2k_block_decode(tb, i, s, d->planes[c], tb->comps[c].w,
                                     NULL);
        if (r < 0)
            j->nomem = 1;
        d->block_res[i] = (int8_t)(r != 0);
    }
}

/* The tile's code-blocks into the planes: on the pool's threads when there
 * is one, then the blocks that had something to say decoded again here,
 * in order, to say it (the same warnings, in the same order, as one
 * thread gives; those blocks are rare, and decode to the same words). */
static int decode_blocks(sci_j2k_dec *d, const sci_j2k_tile_blocks *tb) {
    unsigned nw = d->pool ? sci_pool_threads(d->pool) : 1;
    if (nw < 2 || tb->nblocks < 2) {
        for (size_t i = 0; i < tb->nblocks; i++) {
            unsigned c = tb->bands[tb->blocks[i].band].comp;
            if (tb->bands[tb->blocks[i].band].res > tb->comps[c].top)
                continue;
            if (sci_j2k_block_decode(tb, i, d->scratch, d->planes[c],
                                     tb->comps[c].w, &d->st) < 0)
                return -1;
        }
        return 0;
    }
    if (d->nwscratch < nw) {
        sci_j2k_block_scratch **w = realloc(d->wscratch, nw * sizeof *w);
        if (!w)
            return -1;
        d->wscratch = w;
        for (; d->nwscratch < nw; d->nwscratch++)
            if (!(w[d->nwscratch] = sci_j2k_block_scratch_new()))
                return -1;
    }
    if (grow((void **)&d->block_res, &d->block_res_cap, tb->nblocks, 1))
        return -1;
    block_job j = {d, tb, 0};
    sci_pool_for(d->pool, tb->nblocks, 4, blocks_fn, &j);
    if (j.nomem)
        return -1;
    for (size_t i = 0; i < tb->nblocks; i++)
        if (d->block_res[i]) {
            unsigned c = tb->bands[tb->blocks[i].band].comp;
            if (sci_j2k_block_decode(tb, i, d->scratch, d->planes[c],
                                     tb->comps[c].w, &d->st) < 0)
                return -1;
        }
    return 0;
}

typedef struct {
    sci_j2k_dec *d;
    const sci_j2k_tile_blocks *tb;
    const sci_j2k_decode_params *p;
    const sci_j2k_plane *planes;
    int nomem;
} comp_job;

static void idwt_fn(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    comp_job *j = ctx;
    for (size_t c = begin; c < end; c++) {
        const sci_j2k_tcomp_info *ti = &j->tb->comps[c];
        int e = ti->reversible ?
                sci_j2k_idwt53(j->d->planes[c], ti->w,
                               (const uint32_t (*)[4])ti->rect, ti->top) :
                sci_j2k_idwt97(j->d->planes[c], ti->w,
                               (const uint32_t (*)[4])ti->rect, ti->top);
        if (e)
            j->nomem = 1;
    }
}

static void put_fn(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    comp_job *j = ctx;
    for (size_t c = begin; c < end; c++)
        put_samples(j->d, &j->tb->comps[c], (unsigned)c, j->p, &j->planes[c]);
}

static int decode_tile(sci_j2k_dec *d, unsigned t,
                       const sci_j2k_decode_params *p,
                       const sci_j2k_plane *planes) {
    sci_j2k_tile_blocks tb;
    int r = sci_j2k_dec_tile_blocks(d, t, p, &tb);
    if (r)
        return r;
    sci_j2k_status *st = &d->st;
    unsigned nc = tb.ncomp;
    /* the coefficient planes, zeroed */
    for (unsigned c = 0; c < nc; c++) {
        size_t n = (size_t)tb.comps[c].w * tb.comps[c].h;
        if (grow(&d->planes[c], &d->plane_cap[c], n ? n : 1, 4))
            return sci_j2k_fail(st, SCI_J2K_ENOMEM, 0, "out of memory");
        memset(d->planes[c], 0, (n ? n : 1) * 4);
    }
    if (decode_blocks(d, &tb))
        return sci_j2k_fail(st, SCI_J2K_ENOMEM, 0, "out of memory");
    comp_job cj = {d, &tb, p, planes, 0};
    sci_pool_for(sci_pool_if(d->pool, nc > 1), nc, 1, idwt_fn, &cj);
    if (cj.nomem)
        return sci_j2k_fail(st, SCI_J2K_ENOMEM, 0, "out of memory");
    if (tb.mct) {
        int ok = nc >= 3;
        for (unsigned c = 1; ok && c < 3; c++)
            ok = tb.comps[c].w == tb.comps[0].w &&
                 tb.comps[c].h == tb.comps[0].h &&
                 tb.comps[c].reversible == tb.comps[0].reversible;
        if (!ok) {
            sci_j2k_warn(st, 0, "tile %u: the colour transform needs three "
                         "components of one size and filter: not applied", t);
        } else {
            size_t n = (size_t)tb.comps[0].w * tb.comps[0].h;
            if (tb.comps[0].reversible)
                sci_rct_inverse(d->pool, d->planes[0], d->planes[1], d->planes[2], n);
            else
                sci_ict_inverse(d->pool, d->planes[0], d->planes[1], d->planes[2], n);
        }
    }
    sci_pool_for(sci_pool_if(d->pool, nc > 1), nc, 1, put_fn, &cj);
    return 0;
}

int sci_j2k_dec_decode(sci_j2k_dec *d, const sci_j2k_decode_params *p,
                       const sci_j2k_plane *planes) {
    if (!d || !p || !planes)
        return SCI_J2K_EARG;
    if (!d->parsed)
        return d->st.code ? d->st.code : SCI_J2K_EARG;
    d->refs_mode = 0;
    sci_j2k_status *st = &d->st;
    const sci_j2k_siz *z = &d->cs.siz;
    for (unsigned c = 0; c < z->csiz; c++) {
        if (z->comp[c].depth > 16)
            return sci_j2k_fail(st, SCI_J2K_EUNSUPPORTED, d->cs.cs + 42 + 3 * c,
                                "component %u has %u bits: at most 16 are "
                                "supported", c, z->comp[c].depth);
        if (!planes[c].data || (planes[c].bytes != 1 && planes[c].bytes != 2) ||
            (planes[c].bytes == 1 && z->comp[c].depth > 8))
            return sci_j2k_fail(st, SCI_J2K_EARG, 0, "plane %u: %u-byte "
                                "samples for a %u-bit component", c,
                                planes[c].bytes, z->comp[c].depth);
        sci_j2k_comp_info ci;
        sci_j2k_dec_comp_info(d, c, p->reduce, &ci);
        if (planes[c].stride < ci.w)
            return sci_j2k_fail(st, SCI_J2K_EARG, 0, "plane %u: stride %zu "
                                "below its width %u", c, planes[c].stride,
                                ci.w);
    }
    if (!d->scratch) {
        d->scratch = sci_j2k_block_scratch_new();
        if (!d->scratch)
            return sci_j2k_fail(st, SCI_J2K_ENOMEM, 0, "out of memory");
    }
    if (!d->planes) {
        d->planes = calloc(z->csiz, sizeof *d->planes);
        d->plane_cap = calloc(z->csiz, sizeof *d->plane_cap);
        if (!d->planes || !d->plane_cap)
            return sci_j2k_fail(st, SCI_J2K_ENOMEM, 0, "out of memory");
    }
    uint32_t nt = sci_j2k_cs_tiles(&d->cs);
    /* each tile-component costs its layout even where it holds no sample
     * (a component subsampled by more than the tile size): bound the work
     * a tiny codestream can ask for */
    if ((uint64_t)nt * z->csiz > SCI_J2K_MAX_TILE_COMPONENTS)
        return sci_j2k_fail(st, SCI_J2K_EUNSUPPORTED, d->cs.cs + 2,
                            "%u tiles of %u components: more than %u "
                            "tile-components are not supported", nt, z->csiz,
                            SCI_J2K_MAX_TILE_COMPONENTS);
    for (uint32_t t = 0; t < nt; t++) {
        int r = decode_tile(d, t, p, planes);
        if (r)
            return r;
    }
    if (d->cs.truncated && !d->st.warnings)
        sci_j2k_warn(st, d->cs.len, "the codestream is truncated");
    return 0;
}
