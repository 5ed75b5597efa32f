/*
 * The core of the JPEG 2000 encoder (HTJ2K, and Part 1 through the EBCOT
 * coder): the frame's layout from the shared codestream layer (markers,
 * Annex B layout, quantization; see docs/j2k-codestream.md), the steps and
 * their search for a bitrate, and the codestream and JPH file around the
 * packets that the block coder (j2k_coder.h) writes.
 *
 * One tile covers the image, every resolution is one precinct (the default
 * maximal precincts of COD, 2^15), and with the image origin at 0 each
 * progression order reduces to a resolution-major or a component-major
 * walk over the (component, resolution) packets.
 */
#include "htj2k.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ht_block.h"
#include "j2k_coder.h"
#include "j2k_enc.h"
#include "j2k_layout.h"
#include "j2k_quant.h"
#include "t2_bits.h"

void sci_htj2k_params_default(sci_htj2k_params *p) {
    p->qstep = 1.0 / 256;
    p->cb_w_log2 = 6;
    p->cb_h_log2 = 6;
    p->progression = SCI_J2K_RPCL;
    p->bitrate = 0;
    p->coder = SCI_J2K_CODER_HT;
    p->layers = 1;
    p->cb_style = 0;
    p->jph = 0;
    p->refinement = SCI_HTJ2K_REF_NONE;
    p->plt = 0;
}

const char *sci_htj2k_check(const sci_wt_geometry *g, const sci_htj2k_params *p) {
    const char *why = sci_wt_geometry_check(g);
    if (why)
        return why;
    if (g->width > MAX_PRECINCT || g->height > MAX_PRECINCT)
        return "width and height are limited to 32768 (one precinct per resolution)";
    if (p->cb_w_log2 < 2 || p->cb_w_log2 > 10 || p->cb_h_log2 < 2 ||
        p->cb_h_log2 > 10)
        return "code-block sides must be powers of two from 4 to 1024";
    if (p->cb_w_log2 + p->cb_h_log2 > 12)
        return "code-block area must not exceed 4096 samples";
    if ((unsigned)p->progression > SCI_J2K_CPRL)
        return "unknown progression order";
    if (g->filter == SCI_DWT_97 && !(p->qstep > 0 && p->qstep <= 2))
        return "qstep must be in (0, 2]";
    if (!(p->bitrate >= 0) || p->bitrate > 64)
        return "bitrate must be 0 (off) or up to 64 bits per pixel";
    int part1 = p->coder == SCI_J2K_CODER_PART1;
    if (!part1 && p->coder != SCI_J2K_CODER_HT)
        return "unknown block coder";
    if (p->layers < 1 || p->layers > SCI_J2K_MAX_LAYERS)
        return "layers must be 1 to 64";
    if ((unsigned)p->refinement > SCI_HTJ2K_REF_ALL)
        return "unknown refinement mode";
    if (p->refinement && part1)
        return "refinement passes are an HT option (Part 1 codes every pass)";
    if (p->refinement && g->filter != SCI_DWT_97)
        return "HT refinement passes need the irreversible (9/7) path: "
               "lossless coding cannot use them (a sample that first becomes "
               "significant in the last bit-plane with no significant "
               "neighbour is never coded)";
    if (!part1 && p->layers != 1)
        return "quality layers need the Part 1 coder";
    /* HT: only the vertically causal style changes HT coding, and only
     * in the SigProp pass */
    if (!part1 && p->cb_style &&
        (p->cb_style != SCI_T1_VCAUSAL || !p->refinement))
        return "code-block styles need the Part 1 coder (HT takes vcausal "
               "with refinement passes only)";
    if (p->cb_style & ~(unsigned)SCI_T1_STYLES)
        return "unknown code-block style bits";
    if (part1 && p->jph)
        return "the JPH file format is for HTJ2K codestreams";
    if (p->bitrate > 0 && !part1 && g->filter != SCI_DWT_97)
        return "a bitrate target needs the irreversible (9/7) path";
    if (p->bitrate > 0) {
        /* What no step can go below (markers, one empty packet a component
         * and resolution) or needs to exceed (the samples themselves). */
        double pixels = (double)g->width * g->height, raw = 0;
        for (unsigned c = 0; c < g->components; c++)
            raw += (double)sci_wt_comp_width(g, c) * sci_wt_comp_height(g, c) *
                   g->depth;
        double floor_bytes = 2 + 40 + 3.0 * g->components + 10 + 14 +
                             5 + 2.0 * (3 * g->levels + 1) + 14 + 2 +
                             (double)g->components * (g->levels + 1) *
                                 p->layers +
                             (p->jph ? 85 : 0) +
                             (p->plt ? 5.0 + (double)g->components *
                                           (g->levels + 1) * p->layers : 0);
        if (p->bitrate * pixels / 8 < 1.05 * floor_bytes)
            return "bitrate too low: the codestream's headers alone need more";
        if (p->bitrate * pixels > raw && !part1)
            return "bitrate above the uncompressed samples' bits per pixel: "
                   "use reversible (lossless) coding instead";
    }
    return NULL;
}

/* --- markers ------------------------------------------------------------- */

static unsigned max_mb(const sci_htj2k_enc *e) {
    unsigned m = 0;
    for (unsigned i = 0; i < e->nbands; i++)
        m = e->bands[i].mb > m ? e->bands[i].mb : m;
    return m;
}

/* The main header's structures from the geometry and parameters: one
 * tile, maximal precincts, no SOP or EPH, every component coded and
 * quantized alike (equal depth and levels). */
static int init_markers(sci_htj2k_enc *e) {
    const sci_wt_geometry *g = &e->g;
    int part1 = e->p.coder == SCI_J2K_CODER_PART1;
    sci_j2k_siz *z = &e->siz;
    z->rsiz = part1 ? 0 : 0x4000; /* Part 15 capabilities in CAP */
    z->xsiz = z->xtsiz = g->width;
    z->ysiz = z->ytsiz = g->height;
    z->csiz = (uint16_t)g->components;
    z->tiles_x = z->tiles_y = 1;
    z->comp = e->siz_comp;
    for (unsigned c = 0; c < g->components; c++) {
        z->comp[c].depth = (uint8_t)g->depth; /* unsigned samples */
        z->comp[c].dx = (uint8_t)g->dx[c];
        z->comp[c].dy = (uint8_t)g->dy[c];
    }
    /* Pcap bit 15 (from the MSB): Part 15 */
    e->pcap = part1 ? 0 : 0x00020000;
    if (sci_j2k_tcp_init(&e->tcp, z->csiz))
        return -1;
    e->tcp.prog = (uint8_t)e->p.progression;
    e->tcp.layers = (uint16_t)e->p.layers;
    e->tcp.mct = g->ct != SCI_CT_NONE;
    for (unsigned c = 0; c < g->components; c++) {
        sci_j2k_coc *k = &e->tcp.coc[c];
        k->levels = (uint8_t)g->levels;
        k->xcb = (uint8_t)e->p.cb_w_log2;
        k->ycb = (uint8_t)e->p.cb_h_log2;
        /* 0x40: HT code-blocks only */
        k->cb_style = (uint8_t)(part1 ? e->p.cb_style :
                                SCI_J2K_CB_HT | e->p.cb_style);
        k->reversible = g->filter == SCI_DWT_53;
        memset(k->ppx, 15, sizeof k->ppx);
        memset(k->ppy, 15, sizeof k->ppy);
    }
    /* the entries themselves follow the steps */
    sci_j2k_qcd *q = &e->tcp.qcd[0];
    q->style = g->filter == SCI_DWT_97 ? 2 : 0;
    q->guard = (uint8_t)e->guard_bits;
    q->n = (uint8_t)(3 * g->levels + 1);
    e->tcp.have_cod = e->tcp.have_qcd = 1;
    /* The JPH file format (15444-15 Annex D): image size, samples and
     * colour space */
    sci_j2k_jp2 *j = &e->jp2;
    j->file = j->jph = e->p.jph != 0;
    j->width = g->width;
    j->height = g->height;
    j->nc = (uint16_t)g->components;
    j->bpc = (uint8_t)(g->depth - 1); /* unsigned, equal depths */
    int rgb = g->ct != SCI_CT_NONE;
    int yuv = !rgb && g->components >= 3;
    j->enumcs = g->components < 3 ? 17 : yuv ? 18 : 16; /* grey, sYCC, sRGB */
    j->colour = j->enumcs == 17 ? SCI_J2K_COLOUR_GREY :
                j->enumcs == 18 ? SCI_J2K_COLOUR_SYCC : SCI_J2K_COLOUR_SRGB;
    return 0;
}

/* Component 0's quantization entries stand for every component's. */
static void share_qcd(sci_htj2k_enc *e) {
    for (unsigned c = 1; c < e->g.components; c++)
        e->tcp.qcd[c] = e->tcp.qcd[0];
}

/* What the steps change in the main header beyond QCD: through M_b,
 * CAP's bit-plane count. */
static void sync_markers(sci_htj2k_enc *e) {
    int irrev = e->g.filter == SCI_DWT_97;
    share_qcd(e);
    unsigned b = max_mb(e), bp = b <= 8 ? 0 : b < 28 ? b - 8 : 13 + (b >> 2);
    /* Ccap15: HT code-blocks only, one HT set each, MAGB, irreversible */
    e->ccap15 = (uint16_t)((irrev ? 0x20 : 0) | bp);
}

static void write_main_header(const sci_htj2k_enc *e, out_buf *o) {
    sci_j2k_write_main_header(o, &e->siz, e->pcap, e->ccap15, &e->tcp);
}

/* --- band geometry and quantization ------------------------------------ */

/* Part 1 rate allocation weighs each band's index errors by what they
 * become in the image: the step and the synthesis norm, squared, and for
 * the first three components the squared norm of their column of the
 * inverse colour transform (RCT: G = Y - (Cb + Cr) / 4, R = Cr + G,
 * B = Cb + G; ICT: Table G.2's inverse). */
static void set_dist_weights(sci_htj2k_enc *e) {
    static const double rct[3] = {3.0, 11.0 / 16, 11.0 / 16};
    static const double ict[3] = {3.0, 0.344136 * 0.344136 + 1.772 * 1.772,
                                  1.402 * 1.402 + 0.714136 * 0.714136};
    for (unsigned i = 0; i < e->nbands; i++) {
        band *b = &e->bands[i];
        double step = e->g.filter == SCI_DWT_97 ? 1.0 / b->inv_step : 1.0;
        double w = step * step * b->weight * b->weight;
        if (b->comp < 3 && e->g.ct == SCI_CT_RCT)
            w *= rct[b->comp];
        else if (b->comp < 3 && e->g.ct == SCI_CT_ICT)
            w *= ict[b->comp];
        b->dist_weight = w;
    }
}

/* SPqcd's order: LL, then HL, LH, HH from the lowest resolution up. */
static unsigned qcd_index(unsigned res, unsigned orient) {
    return res ? 1 + 3 * (res - 1) + (orient - 1) : 0;
}

/* Every band's quantization from the entries of tcp.qcd[0], which stand
 * for every component (equal depth and levels). */
static void apply_entries(sci_htj2k_enc *e) {
    const sci_wt_geometry *g = &e->g;
    const sci_j2k_qcd *q = &e->tcp.qcd[0];
    for (unsigned i = 0; i < e->nbands; i++) {
        band *b = &e->bands[i];
        b->spqcd = q->step[qcd_index(b->res, b->type)];
        b->mb = (unsigned)sci_j2k_entry_mb(e->guard_bits, b->spqcd);
        /* 9/7: quantize with the step the decoder will read back */
        if (g->filter == SCI_DWT_97)
            b->inv_step = (float)(1.0 / sci_j2k_entry_step(b->spqcd, g->depth,
                                                           b->type));
    }
    set_dist_weights(e);
    sync_markers(e);
}

/* The irreversible entries of base step qstep: each band's step is qstep
 * in sample units over the norm of its synthesis basis. */
static void irrev_entries(sci_htj2k_enc *e, double qstep) {
    const sci_wt_geometry *g = &e->g;
    sci_j2k_qcd *q = &e->tcp.qcd[0];
    for (unsigned i = 0; i < q->n; i++) {
        unsigned t = i ? 1 + (i - 1) % 3 : 0;
        unsigned d = i ? g->levels - (i - 1) / 3 : g->levels;
        double weight = sci_j2k_band_norm(g->filter, d, t);
        double step = qstep * (double)(1u << g->depth) / weight;
        /* The block coder takes up to 30 bit-planes: a coarser step. */
        q->step[i] = (uint16_t)sci_j2k_irrev_entry(step, g->depth, t,
                                                   e->guard_bits, 30);
    }
}

static void set_steps(sci_htj2k_enc *e, double qstep) {
    irrev_entries(e, qstep);
    apply_entries(e);
}

/* The frame's bands, code-blocks and packets: the shared layout of the
 * one tile (j2k_layout.h, as a decoder lays out what it reads), with one
 * precinct per resolution, so each packet's blocks are consecutive. */
static int layout(sci_htj2k_enc *e) {
    const sci_wt_geometry *g = &e->g;
    sci_j2k_tile tile;
    sci_j2k_status st;
    memset(&st, 0, sizeof st);
    int ret = -1;
    if (sci_j2k_tile_layout_enc(&tile, &e->siz, &e->tcp, 0, &st))
        goto done;
    for (unsigned c = 0; c < g->components; c++)
        e->comp_offset[c] = sci_wt_comp_offset(g, c);
    e->nbands = (unsigned)tile.nbands;
    e->nblocks = tile.ncblks;
    for (unsigned i = 0; i < e->nbands; i++) {
        const sci_j2k_band *tb = &tile.bands[i];
        band *b = &e->bands[i];
        memset(b, 0, sizeof(*b));
        b->comp = tb->comp, b->res = tb->res, b->type = tb->orient;
        b->level = tb->level;
        /* in the component's coefficient plane (Mallat) */
        b->x0 = tb->px;
        b->y0 = tb->py;
        b->w = tb->x1 - tb->x0;
        b->h = tb->y1 - tb->y0;
        b->nbx = tb->ncbx;
        b->nby = tb->ncby;
        b->first_block = tb->first_cblk;
        if (g->filter == SCI_DWT_97 || e->p.coder == SCI_J2K_CODER_PART1)
            b->weight = sci_j2k_band_norm(g->filter, b->level, b->type);
    }
    e->blocks = calloc(e->nblocks ? e->nblocks : 1, sizeof(block));
    if (!e->blocks)
        goto done;
    for (size_t i = 0; i < e->nblocks; i++) {
        const sci_j2k_cblk *cb = &tile.cblks[i];
        const sci_j2k_band *tb = &tile.bands[cb->band];
        block *k = &e->blocks[i];
        k->band = cb->band;
        k->x0 = tb->px + (cb->x0 - tb->x0);
        k->y0 = tb->py + (cb->y0 - tb->y0);
        k->w = cb->x1 - cb->x0;
        k->h = cb->y1 - cb->y0;
    }
    e->npackets = (unsigned)tile.nres;
    for (unsigned r = 0; r < e->npackets; r++) {
        const sci_j2k_res *rs = &tile.res[r];
        packet *k = &e->packets[r];
        if (rs->npw * rs->nph > 1)
            goto done; /* cannot be: resolutions are at most 2^15 */
        k->first_band = rs->first_band;
        k->nbands = rs->nbands;
        k->first_block = tile.bands[rs->first_band].first_cblk;
        for (unsigned j = 0; j < rs->nbands; j++) {
            const sci_j2k_band *tb = &tile.bands[rs->first_band + j];
            k->nblocks += (size_t)tb->ncbx * tb->ncby;
        }
    }
    ret = 0;
done:
    sci_j2k_tile_free(&tile);
    return ret;
}

/* --- construction -------------------------------------------------------- */

/* Packets of the tile: one a component, resolution and layer. */
static size_t plt_count(const sci_htj2k_enc *e) {
    return (size_t)e->npackets * e->p.layers;
}

sci_htj2k_enc *sci_htj2k_enc_new(const sci_wt_geometry *g,
                                 const sci_htj2k_params *p, sci_pool *pool) {
    if (sci_htj2k_check(g, p))
        return NULL;
    sci_htj2k_enc *e = calloc(1, sizeof(*e));
    if (!e)
        return NULL;
    e->g = *g;
    e->p = *p;
    e->pool = pool;
    e->coder = p->coder == SCI_J2K_CODER_PART1 ? &j2k_coder_ebcot :
               &j2k_coder_ht;
    e->last_qstep = p->qstep;
    /* Reversible: two guard bits leave room for the rounding of the integer
     * lifting beyond the BIBO gain; irreversible: one, as is usual. */
    e->guard_bits = g->filter == SCI_DWT_53 ? 2 : 1;
    if (sci_ht_enc_tables_init(&e->tables) < 0)
        goto fail;
    if (init_markers(e))
        goto fail;
    if (g->filter == SCI_DWT_97) {
        if (p->coder == SCI_J2K_CODER_PART1 && p->bitrate > 0) {
            /* Truncation, not the step, sets the rate here: quantize no
             * coarser than one sample unit, so that high rates are not
             * capped by the step. */
            e->last_qstep = fmin(p->qstep, ldexp(1.0, -(int)g->depth));
        }
        irrev_entries(e, e->last_qstep);
    } else {
        /* RCT chroma differences take one bit more */
        unsigned extra = g->ct == SCI_CT_RCT ? 1 : 0;
        if (sci_j2k_rev_entries(g->levels, g->depth + extra,
                                e->tcp.qcd[0].step))
            goto fail;
    }
    share_qcd(e);
    if (layout(e))
        goto fail;
    apply_entries(e);
    for (unsigned i = 0; i < e->nbands; i++)
        if (e->bands[i].mb > 30)
            goto fail;
    size_t arena = 0;
    for (unsigned i = 0; i < e->nbands; i++) {
        band *b = &e->bands[i];
        for (size_t j = b->first_block;
             j < b->first_block + (size_t)b->nbx * b->nby; j++) {
            block *k = &e->blocks[j];
            k->slot = arena;
            k->slot_cap = e->coder->block_bytes_bound(e, k);
            arena += k->slot_cap;
        }
        if (b->nbx && b->nby) {
            if (sci_tagtree_init(&b->incl, b->nbx, b->nby) < 0 ||
                sci_tagtree_init(&b->zbp, b->nbx, b->nby) < 0)
                goto fail;
        }
    }
    e->arena_size = arena;
    e->arena = malloc(arena ? arena : 1);
    e->len = calloc(e->nblocks ? e->nblocks : 1, sizeof(long));
    e->slot_off = calloc(e->nblocks ? e->nblocks : 1, sizeof(size_t));
    if (!e->arena || !e->len || !e->slot_off)
        goto fail;
    if (p->plt && !(e->plen = calloc(plt_count(e), sizeof(uint32_t))))
        goto fail;
    for (size_t i = 0; i < e->nblocks; i++)
        e->slot_off[i] = e->blocks[i].slot;
    if (e->coder->init(e) < 0)
        goto fail;
    return e;
fail:
    sci_htj2k_enc_free(e);
    return NULL;
}

void sci_htj2k_enc_free(sci_htj2k_enc *e) {
    if (!e)
        return;
    e->coder->free(e);
    sci_j2k_tcp_free(&e->tcp);
    for (unsigned i = 0; i < e->nbands; i++) {
        sci_tagtree_free(&e->bands[i].incl);
        sci_tagtree_free(&e->bands[i].zbp);
    }
    free(e->blocks);
    free(e->arena);
    free(e->len);
    free(e->slot_off);
    free(e->plen);
    free(e);
}

double sci_htj2k_last_qstep(const sci_htj2k_enc *e) {
    return e->last_qstep;
}

/* --- block coding -------------------------------------------------------- */

int sci_htj2k_block_quantize(const sci_htj2k_enc *e, size_t i,
                             const void *coeffs, uint32_t *sm) {
    return j2k_quantize_block(e, i, coeffs, sm, e->blocks[i].w);
}

/* --- codestream and file ------------------------------------------------- */

/* PLT segments for the packets that write_packets will write for these
 * lengths, which a counting pass of the coder measures first: the
 * lengths go before the packets, and the real pass then places headers
 * and bodies (spans) after them. */
static int write_plt(sci_htj2k_enc *e, const long *len, out_buf *o) {
    out_buf c = {NULL, 0, 0};
    if (e->coder->write_packets(e, len, &c, 0, NULL, NULL, e->plen) < 0)
        return -1;
    return sci_j2k_write_plt(o, e->plen, plt_count(e));
}

static size_t write_codestream(sci_htj2k_enc *e, const long *len, out_buf *o,
                               size_t base, sci_htj2k_span *spans, size_t *nspans) {
    write_main_header(e, o);
    size_t sot = o->len;
    /* tile 0, part 0 of 1, Psot filled in below */
    size_t psot_at = sci_j2k_write_sot(o, 0, 0, 0, 1);
    if (e->p.plt && write_plt(e, len, o) < 0)
        return 0;
    sci_j2k_write_marker(o, J2K_SOD);
    int bad = e->coder->write_packets(e, len, o, base, spans, nspans, NULL);
    if (bad < 0 || (o->p && o->len > o->cap))
        return 0;
    size_t psot = o->len - sot;
    if (psot > 0xFFFFFFFFu)
        return 0;
    if (!o->p) {
        sci_j2k_write_marker(o, J2K_EOC);
        return o->len;
    }
    sci_j2k_patch32(o, psot_at, (uint32_t)psot);
    sci_j2k_write_marker(o, J2K_EOC);
    return o->len <= o->cap ? o->len : 0;
}

/* Everything but the block bodies, which spans place; out == NULL: only
 * counts the bytes. */
static size_t write_all(sci_htj2k_enc *e, const long *len, uint8_t *out,
                        size_t cap, sci_htj2k_span *spans, size_t *nspans) {
    out_buf o = {out, 0, out ? cap : 0};
    size_t box = 0;
    if (e->p.jph) {
        sci_j2k_write_jp2_head(&o, &e->jp2);
        box = sci_j2k_write_jp2c_head(&o); /* its length filled in below */
    }
    out_buf cs = {out ? out + (o.len <= cap ? o.len : cap) : NULL, 0,
                  out && o.len <= cap ? cap - o.len : 0};
    size_t n = write_codestream(e, len, &cs, o.len, spans, nspans);
    if (!n)
        return 0;
    if (e->p.jph)
        sci_j2k_patch32(&o, box, (uint32_t)(n + 8));
    return o.len + n;
}

/* Bytes of everything but the packets that Part 1 rate allocation
 * counts: main header, SOT, SOD, EOC, and under a bitrate target the
 * least PLT can take (one byte a packet), sci_j2k_part1_write adding
 * what the chosen packets' lengths take beyond it.  Without a target
 * PLT is left out, so that the layers split the packets' bytes as they
 * do without PLT. */
static size_t frame_overhead(const sci_htj2k_enc *e) {
    out_buf o = {NULL, 0, 0};
    write_main_header(e, &o);
    size_t plt = e->p.plt && e->p.bitrate > 0 ? 5 + plt_count(e) : 0;
    return o.len + 12 + 2 + 2 + plt; /* SOT, SOD, EOC */
}

size_t sci_j2k_part1_write(sci_htj2k_enc *e, const sci_j2k_block_passes *blk,
                           const uint8_t *bytes, const size_t *off,
                           uint8_t *out, size_t cap) {
    size_t overhead = frame_overhead(e);
    if (!e->coder->allocate ||
        e->coder->allocate(e, blk, bytes, off, overhead) < 0)
        return 0;
    if (e->p.plt && e->p.bitrate > 0) {
        /* PLT entries of more than a byte: allocate again with the PLT
         * bytes of the chosen packets counted, and with the overshoot
         * where that is more: the last layer's search may have left
         * slack, which a correction by the overshoot alone did not use up
         * (3 layers at 2 bpp: 3 bytes over, four times).  A few rounds
         * at most (fewer bytes, shorter lengths). */
        double target = e->p.bitrate * (double)e->g.width * e->g.height / 8.0;
        size_t held = 5 + plt_count(e); /* the PLT bytes overhead holds */
        for (int it = 0; it < 16; it++) {
            size_t n = write_all(e, NULL, NULL, 0, NULL, NULL);
            if (!n)
                return 0;
            if ((double)n <= target)
                break;
            out_buf c = {NULL, 0, 0};
            if (write_plt(e, NULL, &c) < 0)
                return 0;
            size_t want = held + (size_t)ceil((double)n - target);
            if (c.len > want)
                want = c.len;
            overhead += want - held;
            held = want;
            if (e->coder->allocate(e, blk, bytes, off, overhead) < 0)
                return 0;
        }
    }
    return write_all(e, NULL, out, cap, NULL, NULL);
}

size_t sci_htj2k_packet_count(const sci_htj2k_enc *e) {
    return e->npackets;
}

size_t sci_htj2k_write_frame(sci_htj2k_enc *e, const long *len, uint8_t *out,
                             size_t cap, sci_htj2k_span *spans, size_t *nspans) {
    size_t ns = 0;
    /* refinement: the packet headers need the segment lengths that only
     * the C coder's own blocks (e->len) have */
    size_t n = out && (!e->htref || len == e->len) ?
               write_all(e, len, out, cap, spans, &ns) : 0;
    if (nspans)
        *nspans = n ? ns : 0;
    return n;
}

size_t sci_htj2k_write(sci_htj2k_enc *e, const long *len, const uint8_t *bytes,
                       const size_t *off, uint8_t *out, size_t cap) {
    size_t ns, n = sci_htj2k_write_frame(e, len, out, cap, e->spans, &ns);
    for (size_t s = 0; s < ns; s++) {
        const sci_htj2k_span *sp = &e->spans[s];
        uint8_t *d = out + sp->dst;
        for (size_t k = sp->first; k < sp->first + sp->count; k++)
            if (len[k] > 0) {
                memcpy(d, bytes + off[k], (size_t)len[k]);
                d += len[k];
            }
    }
    return n;
}

size_t sci_htj2k_max_bytes(const sci_htj2k_enc *e) {
    /* headers, plus per code-block its bytes and a generous header share */
    size_t n = 1024 + 3 * e->nbands * 2 + e->arena_size;
    if (e->p.plt) { /* 5 bytes a length at most, 5 a segment */
        size_t iplt = 5 * plt_count(e);
        n += iplt + 5 * (iplt / SCI_J2K_PLT_MAX_IPLT + 1);
    }
    return n + e->coder->packet_overhead_bound(e);
}

size_t sci_htj2k_block_count(const sci_htj2k_enc *e) {
    return e->nblocks;
}

void sci_htj2k_block_get(const sci_htj2k_enc *e, size_t i,
                         sci_htj2k_block_info *info) {
    const block *k = &e->blocks[i];
    info->comp = e->bands[k->band].comp;
    info->x0 = k->x0;
    info->y0 = k->y0;
    info->w = k->w;
    info->h = k->h;
    info->mb = e->bands[k->band].mb;
    info->band = e->bands[k->band].type;
    info->max_bytes = k->slot_cap;
}

float sci_htj2k_block_inv_step(const sci_htj2k_enc *e, size_t i) {
    return e->bands[e->blocks[i].band].inv_step;
}

size_t sci_htj2k_comp_offset(const sci_htj2k_enc *e, unsigned c) {
    return e->comp_offset[c];
}

const sci_ht_enc_tables *sci_htj2k_tables(const sci_htj2k_enc *e) {
    return &e->tables;
}

void sci_htj2k_set_qstep(sci_htj2k_enc *e, double qstep) {
    if (e->g.filter == SCI_DWT_97) {
        set_steps(e, qstep);
        e->last_qstep = qstep;
    }
}

/* With refinement passes the step search aims this much above the
 * target, and dropping refinement passes brings the size down to it:
 * finer than the step alone, which meets the target within 0.5 %. */
#define REF_RATE_MARGIN 0.01

/* Rate control: the coded size falls smoothly as the step grows, close to
 * linearly in log(size) against log(step), so a secant search on that
 * model meets the target in a few trial codings of the blocks.  Each trial
 * measures the whole codestream, headers included, without writing it.
 * A frame starts from the step and slope the previous one ended on: in a
 * video the next frame is usually within 0.5 % at once. */
static int search_rate(sci_htj2k_enc *e, double target,
                       long (*code)(void *ctx, long *len), void *ctx) {
    double q = e->rate_q > 0 ? e->rate_q : e->p.qstep, best_q = q;
    double best_err = INFINITY, lq_prev = 0, ls_prev = 0;
    double first_slope = e->rate_slope < 0 ? e->rate_slope : -1.0;
    for (int it = 0; it < 16; it++) {
        sci_htj2k_set_qstep(e, q);
        if (code(ctx, e->len) < 0)
            return -1;
        double size = (double)write_all(e, e->len, NULL, 0, NULL, NULL);
        double err = fabs(size - target);
        if (err < best_err) {
            best_err = err;
            best_q = q;
        }
        if (err <= 0.005 * target)
            break;
        double lq = log(q), ls = log(size), slope = first_slope;
        if (it > 0) {
            slope = (ls - ls_prev) / (lq - lq_prev);
            if (!isfinite(slope) || slope > -0.05)
                slope = -1.0;
            e->rate_slope = slope;
        }
        lq_prev = lq, ls_prev = ls;
        double next = exp(lq + (log(target) - ls) / slope);
        next = next > 2 ? 2 : next < 1e-7 ? 1e-7 : next;
        if (fabs(log(next) - lq) < 1e-6)
            break; /* pinned at a limit: the target is out of reach */
        q = next;
    }
    e->rate_q = best_q;
    if (best_q != e->last_qstep) {
        sci_htj2k_set_qstep(e, best_q);
        if (code(ctx, e->len) < 0)
            return -1;
    }
    return 0;
}

int sci_htj2k_search_rate(sci_htj2k_enc *e, long (*code)(void *ctx, long *len),
                          void *ctx) {
    if (e->htref)
        return -1; /* other backends code cleanup-only blocks */
    return search_rate(e, e->p.bitrate * (double)e->g.width * e->g.height / 8.0,
                       code, ctx);
}

typedef struct {
    sci_htj2k_enc *e;
    const void *coeffs;
} cpu_ctx;

static long code_cpu(void *ctx, long *len) {
    cpu_ctx *c = ctx;
    (void)len; /* code_blocks fills e->len */
    return c->e->coder->code_blocks(c->e, c->coeffs);
}

/* With refinement passes, the blocks coded at the encoder's step, then
 * cut at their refinement passes to fit `target` bytes in all.  Returns
 * the codestream's size, or 0 on failure. */
static size_t ref_fit(sci_htj2k_enc *e, double target) {
    size_t total = write_all(e, e->len, NULL, 0, NULL, NULL);
    out_buf o = {NULL, 0, 0};
    if (!total ||
        e->coder->write_packets(e, e->len, &o, 0, NULL, NULL, NULL) < 0)
        return 0;
    double budget = target - (double)(total - o.len);
    if (budget > 0 && e->coder->fit_rate(e, (size_t)budget) < 0)
        return 0;
    return write_all(e, e->len, NULL, 0, NULL, NULL);
}

/* Rate control with refinement passes: the step that codes every pass in
 * a little more than the target, then passes dropped where they buy the
 * least.  Dropping is coarse where a few large blocks hold the passes, so
 * a step further above is tried when the cut falls short by more than
 * the step search's own tolerance, and the closest size at or below the
 * target is kept. */
static int ref_rate(sci_htj2k_enc *e, const void *coeffs) {
    static const double margin[] = {0.01, 0.03, 0};
    double target = e->p.bitrate * (double)e->g.width * e->g.height / 8.0;
    cpu_ctx c = {e, coeffs};
    double best_q = 0, best_size = 0, kept_rate_q = 0;
    size_t last = 0;
    for (size_t m = 0; m < sizeof margin / sizeof *margin; m++) {
        if (search_rate(e, target * (1 + margin[m]), code_cpu, &c) < 0)
            return -1;
        if (!m)
            kept_rate_q = e->rate_q; /* the next frame starts from here */
        last = ref_fit(e, target);
        if (!last)
            return -1;
        double s = (double)last;
        int better = best_q == 0 ||
                     (s <= target ? best_size > target || s > best_size
                                  : best_size > target && s < best_size);
        if (better) {
            best_size = s;
            best_q = e->last_qstep;
        }
        if (s <= target && s >= target * (1 - 0.005))
            break;
    }
    e->rate_q = kept_rate_q;
    if (best_q != e->last_qstep || (double)last != best_size) {
        sci_htj2k_set_qstep(e, best_q);
        if (code_cpu(&c, e->len) < 0 || !ref_fit(e, target))
            return -1;
    }
    return 0;
}

size_t sci_htj2k_encode(sci_htj2k_enc *e, const void *coeffs, uint8_t *out,
                        size_t cap) {
    if (e->coder->allocate) {
        if (e->coder->code_blocks(e, coeffs) < 0)
            return 0;
        return sci_j2k_part1_write(e, e->coder->passes(e), e->arena,
                                   e->slot_off, out, cap);
    }
    if (e->g.filter == SCI_DWT_97 && e->p.bitrate > 0 && e->htref) {
        if (ref_rate(e, coeffs) < 0)
            return 0;
    } else if (e->g.filter == SCI_DWT_97 && e->p.bitrate > 0) {
        cpu_ctx c = {e, coeffs};
        if (sci_htj2k_search_rate(e, code_cpu, &c) < 0)
            return 0;
    } else if (e->coder->code_blocks(e, coeffs) < 0) {
        return 0;
    }
    return sci_htj2k_write(e, e->len, e->arena, e->slot_off, out, cap);
}
