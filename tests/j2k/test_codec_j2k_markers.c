/*
 * The marker writer (codec/j2k/j2k_markers.h) against the parser
 * (codec/j2k/j2k_stream.h): parse(write(x)) == x.
 *
 *   - random main headers: SIZ with offsets, tiles, signed and subsampled
 *     components; CAP; COD with and without precincts, SOP / EPH; COC,
 *     QCC (all three quantization styles) and RGN of some components; POC;
 *     with Csiz on both sides of 257 (one- and two-byte component
 *     indices), written, closed by one tile-part, in a JP2 or JPH file or
 *     not, and parsed back;
 *   - the encoder's main header (codec/j2k/htj2k.c writes it from these
 *     structures): for both block coders and filters, progressions,
 *     layers, code-block styles, 1 to 4 components with subsampling, 0 to
 *     6 levels, rate control (whose steps change the QCD) and JPH, what
 *     sci_j2k_cs_parse reads from a coded frame equals the sci_j2k_siz,
 *     sci_j2k_tcp, Pcap and Ccap15 the encoder holds, and the layout a
 *     decoder makes of it (sci_j2k_tile_layout) has the encoder's bands,
 *     code-blocks, positions and M_b;
 *   - PLT segments (sci_j2k_write_plt): the 7-bit groups of A.7.3 at
 *     every group boundary, lists long enough to take several segments
 *     (each filled as far as whole lengths go, Zplt counting up, no length
 *     split), counting equal to writing, and 257 segments refused.
 *
 *   test-codec-j2k-markers [--seed N]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/j2k/j2k_enc.h"
#include "codec/j2k/j2k_layout.h"
#include "codec/j2k/j2k_markers.h"
#include "codec/j2k/j2k_stream.h"
#include "tests/common/testutil.h"

static unsigned rnd(unsigned n) {
    return (unsigned)(rng() % n);
}

/* Whether the parsed main header equals what was written; says what
 * differs. */
static int same_header(const sci_j2k_cs *cs, const sci_j2k_siz *z,
                       uint32_t pcap, uint16_t ccap15, const sci_j2k_tcp *t,
                       const char *what) {
    char msg[160];
    const sci_j2k_siz *p = &cs->siz;
    int ok = p->rsiz == z->rsiz && p->xsiz == z->xsiz && p->ysiz == z->ysiz &&
             p->xosiz == z->xosiz && p->yosiz == z->yosiz &&
             p->xtsiz == z->xtsiz && p->ytsiz == z->ytsiz &&
             p->xtosiz == z->xtosiz && p->ytosiz == z->ytosiz &&
             p->csiz == z->csiz && p->tiles_x == z->tiles_x &&
             p->tiles_y == z->tiles_y;
    for (unsigned c = 0; ok && c < z->csiz; c++)
        ok = !memcmp(&p->comp[c], &z->comp[c], sizeof z->comp[c]);
    snprintf(msg, sizeof msg, "%s: SIZ", what);
    check(ok, msg);
    snprintf(msg, sizeof msg, "%s: CAP (Pcap %08x/%08x, Ccap15 %04x/%04x)",
             what, cs->pcap, pcap, cs->ccap15, ccap15);
    check(cs->pcap == pcap && (!pcap || cs->ccap15 == ccap15), msg);
    const sci_j2k_tcp *m = &cs->main;
    snprintf(msg, sizeof msg, "%s: COD's SGcod and Scod", what);
    check(m->prog == t->prog && m->layers == t->layers && m->mct == t->mct &&
          m->sop == t->sop && m->eph == t->eph && m->have_cod &&
          m->have_qcd, msg);
    unsigned bad_coc = 0, bad_qcd = 0, bad_roi = 0;
    for (unsigned c = 0; c < z->csiz; c++) {
        bad_coc += memcmp(&m->coc[c], &t->coc[c], sizeof t->coc[c]) != 0;
        bad_qcd += !sci_j2k_qcd_same(&m->qcd[c], &t->qcd[c]);
        bad_roi += m->roi[c] != t->roi[c];
    }
    snprintf(msg, sizeof msg, "%s: coding styles (%u components differ)",
             what, bad_coc);
    check(!bad_coc, msg);
    snprintf(msg, sizeof msg, "%s: quantization (%u components differ)",
             what, bad_qcd);
    check(!bad_qcd, msg);
    snprintf(msg, sizeof msg, "%s: ROI shifts (%u components differ)", what,
             bad_roi);
    check(!bad_roi, msg);
    ok = m->npoc == t->npoc;
    for (unsigned i = 0; ok && i < t->npoc; i++)
        ok = !memcmp(&m->poc[i], &t->poc[i], sizeof t->poc[i]);
    snprintf(msg, sizeof msg, "%s: POC", what);
    check(ok, msg);
    return check_failed == 0;
}

static void same_jp2(const sci_j2k_jp2 *p, const sci_j2k_jp2 *j,
                     const char *what) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s: JP2 boxes (brand, ihdr, colr)", what);
    check(p->file == j->file && p->jph == j->jph && p->width == j->width &&
          p->height == j->height && p->nc == j->nc && p->bpc == j->bpc &&
          p->colour == j->colour && p->enumcs == j->enumcs &&
          !p->has_palette && !p->has_cdef, msg);
}

/* ---- random headers ------------------------------------------------------ */

static void random_coc(sci_j2k_coc *k) {
    memset(k, 0, sizeof *k);
    k->levels = (uint8_t)rnd(SCI_J2K_MAX_LEVELS + 1);
    k->xcb = (uint8_t)(2 + rnd(9));
    k->ycb = (uint8_t)(2 + rnd(11 - k->xcb));
    k->cb_style = (uint8_t)rnd(0x40);
    if (rnd(3) == 0)
        k->cb_style |= rnd(2) ? SCI_J2K_CB_HT : SCI_J2K_CB_HT | SCI_J2K_CB_MIXED;
    k->reversible = (uint8_t)rnd(2);
    k->precincts = (uint8_t)rnd(2);
    memset(k->ppx, 15, sizeof k->ppx);
    memset(k->ppy, 15, sizeof k->ppy);
    if (k->precincts)
        for (unsigned r = 0; r <= k->levels; r++) {
            k->ppx[r] = (uint8_t)((r ? 1 : 0) + rnd(r ? 15 : 16));
            k->ppy[r] = (uint8_t)((r ? 1 : 0) + rnd(r ? 15 : 16));
        }
}

static void random_qcd(sci_j2k_qcd *q, unsigned levels) {
    memset(q, 0, sizeof *q);
    q->style = (uint8_t)rnd(3);
    q->guard = (uint8_t)rnd(8);
    q->n = q->style == 1 ? 1 : (uint8_t)(3 * levels + 1);
    for (unsigned i = 0; i < q->n; i++)
        q->step[i] = q->style == 0 ? (uint16_t)(rnd(32) << 11) :
                     (uint16_t)rnd(0x10000);
}

static void random_round_trip(unsigned csiz, unsigned run) {
    char what[64];
    snprintf(what, sizeof what, "random header %u (Csiz %u)", run, csiz);
    sci_j2k_siz z;
    memset(&z, 0, sizeof z);
    z.rsiz = (uint16_t)(rnd(2) ? 0 : 0x4000);
    z.xosiz = rnd(4) ? 0 : rnd(1000);
    z.yosiz = rnd(4) ? 0 : rnd(1000);
    z.xsiz = z.xosiz + 1 + rnd(5000);
    z.ysiz = z.yosiz + 1 + rnd(5000);
    /* one tile covering the image, its origin at or before the image's */
    z.xtosiz = z.xosiz ? rnd(z.xosiz + 1) : 0;
    z.ytosiz = z.yosiz ? rnd(z.yosiz + 1) : 0;
    z.xtsiz = z.xsiz - z.xtosiz + rnd(100);
    z.ytsiz = z.ysiz - z.ytosiz + rnd(100);
    z.tiles_x = z.tiles_y = 1;
    z.csiz = (uint16_t)csiz;
    sci_j2k_siz_comp *comp = calloc(csiz, sizeof *comp);
    sci_j2k_tcp t;
    if (!comp || sci_j2k_tcp_init(&t, (uint16_t)csiz)) {
        check(0, "out of memory");
        free(comp);
        return;
    }
    z.comp = comp;
    for (unsigned c = 0; c < csiz; c++) {
        comp[c].depth = (uint8_t)(1 + rnd(38));
        comp[c].is_signed = (uint8_t)rnd(2);
        comp[c].dx = (uint8_t)(1 + rnd(255));
        comp[c].dy = (uint8_t)(1 + rnd(255));
    }
    uint32_t pcap = rnd(2) ? 0x00020000 : 0;
    uint16_t ccap15 = (uint16_t)rnd(0x10000);
    t.prog = (uint8_t)rnd(5);
    t.layers = (uint16_t)(1 + rnd(65535));
    t.mct = (uint8_t)(csiz >= 3 ? rnd(2) : 0);
    t.sop = (uint8_t)rnd(2);
    t.eph = (uint8_t)rnd(2);
    t.have_cod = t.have_qcd = 1;
    random_coc(&t.coc[0]);
    random_qcd(&t.qcd[0], t.coc[0].levels);
    for (unsigned c = 1; c < csiz; c++) {
        /* most components as the defaults, some with their own */
        if (rnd(4))
            t.coc[c] = t.coc[0];
        else
            random_coc(&t.coc[c]);
        if (rnd(4) && t.coc[c].levels == t.coc[0].levels)
            t.qcd[c] = t.qcd[0];
        else
            random_qcd(&t.qcd[c], t.coc[c].levels);
    }
    for (unsigned c = 0; c < csiz; c++)
        t.roi[c] = (uint8_t)(rnd(5) ? 0 : 1 + rnd(255));
    t.npoc = rnd(4);
    for (unsigned i = 0; i < t.npoc; i++) {
        sci_j2k_poc *p = &t.poc[i];
        p->rs = (uint8_t)rnd(SCI_J2K_MAX_LEVELS + 1);
        p->re = (uint8_t)(p->rs + 1 + rnd(SCI_J2K_MAX_RES - p->rs));
        p->cs = (uint16_t)rnd(csiz);
        p->ce = (uint16_t)(p->cs + 1 + rnd(csiz - p->cs));
        p->lye = (uint16_t)rnd(0x10000);
        p->prog = (uint8_t)rnd(5);
    }

    /* in a JP2 or JPH file half the time */
    sci_j2k_jp2 jp2;
    memset(&jp2, 0, sizeof jp2);
    jp2.file = (int)rnd(2);
    jp2.jph = jp2.file && rnd(2);
    jp2.width = z.xsiz - z.xosiz;
    jp2.height = z.ysiz - z.yosiz;
    jp2.nc = (uint16_t)csiz;
    jp2.bpc = (uint8_t)rnd(256);
    static const uint32_t cs_enum[] = {16, 17, 18, 12, 20};
    static const sci_j2k_colour cs_colour[] = {
        SCI_J2K_COLOUR_SRGB, SCI_J2K_COLOUR_GREY, SCI_J2K_COLOUR_SYCC,
        SCI_J2K_COLOUR_OTHER, SCI_J2K_COLOUR_OTHER};
    unsigned ce = rnd(5);
    jp2.enumcs = cs_enum[ce];
    jp2.colour = cs_colour[ce];

    sci_j2k_out o = {NULL, 0, 0};
    for (int pass = 0; pass < 2; pass++) {
        /* first count, then write into what the count asked for */
        if (pass) {
            o.p = malloc(o.len);
            o.cap = o.len;
            o.len = 0;
            if (!o.p)
                break;
        }
        size_t box = 0, box_start = 0;
        if (jp2.file) {
            sci_j2k_write_jp2_head(&o, &jp2);
            box = sci_j2k_write_jp2c_head(&o);
            box_start = o.len;
        }
        sci_j2k_write_main_header(&o, &z, pcap, ccap15, &t);
        size_t sot = o.len;
        size_t psot = sci_j2k_write_sot(&o, 0, 0, 0, 1);
        sci_j2k_write_marker(&o, J2K_SOD);
        sci_j2k_put8(&o, 0); /* an empty packet */
        sci_j2k_patch32(&o, psot, (uint32_t)(o.len - sot));
        sci_j2k_write_marker(&o, J2K_EOC);
        if (jp2.file)
            sci_j2k_patch32(&o, box, (uint32_t)(8 + o.len - box_start));
    }
    sci_j2k_cs cs;
    sci_j2k_status st;
    memset(&st, 0, sizeof st);
    int e = o.p ? sci_j2k_cs_parse(&cs, o.p, o.len, &st) : SCI_J2K_ENOMEM;
    char msg[400];
    snprintf(msg, sizeof msg, "%s: parses (%d: %s)", what, e, st.msg);
    check(e == 0, msg);
    if (e == 0) {
        check(cs.ntp == 1 && cs.eoc && cs.tp[0].data_end - cs.tp[0].data == 1,
              "random header: the tile-part after it");
        same_header(&cs, &z, pcap, ccap15, &t, what);
        if (jp2.file)
            same_jp2(&cs.jp2, &jp2, what);
        else
            check(!cs.jp2.file, "random header: a raw codestream");
    }
    sci_j2k_cs_free(&cs);
    free(o.p);
    sci_j2k_tcp_free(&t);
    free(comp);
}

/* ---- the encoder's main header ---------------------------------------- */

typedef struct {
    int part1, irrev;
    unsigned w, h, comps, sub, depth, levels, cbw, cbh, prog, layers, style;
    double bitrate;
    int jph;
} ecase;

static void case_setup(const ecase *k, sci_wt_geometry *gp,
                       sci_htj2k_params *pp) {
    sci_wt_geometry g;
    memset(&g, 0, sizeof g);
    g.width = k->w;
    g.height = k->h;
    g.components = k->comps;
    g.depth = k->depth;
    for (unsigned c = 0; c < k->comps; c++) {
        int chroma = c > 0 && c < 3 && k->comps >= 3;
        g.dx[c] = chroma && k->sub != 444 ? 2 : 1;
        g.dy[c] = chroma && k->sub == 420 ? 2 : 1;
    }
    g.filter = k->irrev ? SCI_DWT_97 : SCI_DWT_53;
    g.levels = k->levels;
    g.ct = k->comps >= 3 && k->sub == 444 ?
           (k->irrev ? SCI_CT_ICT : SCI_CT_RCT) : SCI_CT_NONE;
    sci_htj2k_params p;
    sci_htj2k_params_default(&p);
    p.coder = k->part1 ? SCI_J2K_CODER_PART1 : SCI_J2K_CODER_HT;
    p.cb_w_log2 = k->cbw;
    p.cb_h_log2 = k->cbh;
    p.progression = (sci_j2k_progression)k->prog;
    p.layers = k->layers;
    p.cb_style = k->style;
    p.bitrate = k->bitrate;
    p.jph = k->jph;
    *gp = g;
    *pp = p;
}

/* The decoder's layout of the parsed header against the encoder's. */
static void same_layout(const sci_j2k_cs *cs, const sci_htj2k_enc *e,
                        const char *what) {
    char msg[400];
    sci_j2k_tile tile;
    sci_j2k_status st;
    memset(&st, 0, sizeof st);
    int r = sci_j2k_tile_layout(&tile, &cs->siz, &cs->main, 0, 0, &st);
    snprintf(msg, sizeof msg, "%s: the decoder lays it out (%s)", what,
             st.msg);
    check(r == 0, msg);
    if (r == 0) {
        int ok = tile.nbands == e->nbands && tile.ncblks == e->nblocks;
        for (unsigned i = 0; ok && i < e->nbands; i++) {
            const sci_j2k_band *t = &tile.bands[i];
            const band *b = &e->bands[i];
            ok = t->comp == b->comp && t->res == b->res &&
                 t->orient == b->type && t->px == b->x0 && t->py == b->y0 &&
                 t->x1 - t->x0 == b->w && t->y1 - t->y0 == b->h &&
                 t->ncbx == b->nbx && t->ncby == b->nby &&
                 t->first_cblk == b->first_block && t->mb == b->mb &&
                 t->spqcd == b->spqcd;
        }
        snprintf(msg, sizeof msg, "%s: bands as the decoder's", what);
        check(ok, msg);
        ok = tile.ncblks == e->nblocks;
        for (size_t i = 0; ok && i < e->nblocks; i++) {
            const sci_j2k_cblk *c = &tile.cblks[i];
            const sci_j2k_band *t = &tile.bands[c->band];
            const block *k = &e->blocks[i];
            ok = c->band == k->band && t->px + c->x0 - t->x0 == k->x0 &&
                 t->py + c->y0 - t->y0 == k->y0 && c->x1 - c->x0 == k->w &&
                 c->y1 - c->y0 == k->h;
        }
        snprintf(msg, sizeof msg, "%s: code-blocks as the decoder's", what);
        check(ok, msg);
    }
    sci_j2k_tile_free(&tile);
}

static void encoder_round_trip(const ecase *k, unsigned run) {
    char what[64];
    snprintf(what, sizeof what, "encoder case %u", run);
    sci_wt_geometry g;
    sci_htj2k_params p;
    case_setup(k, &g, &p);
    char msg[400];
    const char *why = sci_htj2k_check(&g, &p);
    snprintf(msg, sizeof msg, "%s: accepted (%s)", what, why ? why : "");
    check(!why, msg);
    if (why)
        return;
    sci_htj2k_enc *e = sci_htj2k_enc_new(&g, &p, NULL);
    size_t n = sci_wt_coeff_count(&g);
    void *coeffs = malloc(n * 4);
    uint8_t *out = e ? malloc(sci_htj2k_max_bytes(e)) : NULL;
    if (!e || !coeffs || !out) {
        check(0, "encoder: out of memory");
        goto done;
    }
    /* small pseudo-random coefficients: within every band's range */
    unsigned span = k->depth < 6 ? 1u << k->depth : 64;
    for (size_t i = 0; i < n; i++) {
        int v = (int)rnd(span) - (int)(span / 2);
        if (k->irrev)
            ((float *)coeffs)[i] = (float)v / 256.0f;
        else
            ((int32_t *)coeffs)[i] = v;
    }
    size_t len = sci_htj2k_encode(e, coeffs, out, sci_htj2k_max_bytes(e));
    snprintf(msg, sizeof msg, "%s: encodes", what);
    check(len > 0, msg);
    if (!len)
        goto done;
    sci_j2k_cs cs;
    sci_j2k_status st;
    memset(&st, 0, sizeof st);
    int r = sci_j2k_cs_parse(&cs, out, len, &st);
    snprintf(msg, sizeof msg, "%s: parses (%d: %s)", what, r, st.msg);
    check(r == 0, msg);
    if (r == 0) {
        same_header(&cs, &e->siz, e->pcap, e->ccap15, &e->tcp, what);
        same_layout(&cs, e, what);
        if (k->jph)
            same_jp2(&cs.jp2, &e->jp2, what);
    }
    sci_j2k_cs_free(&cs);
done:
    free(out);
    free(coeffs);
    sci_htj2k_enc_free(e);
}

/* ---- PLT ------------------------------------------------------------------ */

/* Reads the PLT segments of b[0..n) back into len (room for cap);
 * returns the lengths read, or -1 (says why) when the segments are not
 * as the writer must make them. */
static long read_plt(const uint8_t *b, size_t n, uint32_t *len, size_t cap,
                     const char **why) {
    size_t at = 0, k = 0;
    for (unsigned z = 0; at < n; z++) {
        if (at + 5 > n || (b[at] << 8 | b[at + 1]) != 0xFF58) {
            *why = "no PLT marker";
            return -1;
        }
        size_t l = (size_t)b[at + 2] << 8 | b[at + 3];
        if (l < 4 || at + 2 + l > n || b[at + 4] != z) {
            *why = "Lplt or Zplt";
            return -1;
        }
        uint64_t v = 0;
        int open = 0;
        for (size_t i = at + 5; i < at + 2 + l; i++) {
            v = v << 7 | (b[i] & 0x7F);
            open = b[i] >> 7;
            if (!open) {
                if (k == cap || v > 0xFFFFFFFFu) {
                    *why = "too many lengths, or one too long";
                    return -1;
                }
                len[k++] = (uint32_t)v;
                v = 0;
            }
        }
        if (open) {
            *why = "a length split across segments";
            return -1;
        }
        at += 2 + l;
    }
    return (long)k;
}

static unsigned group_bytes(uint32_t v) {
    unsigned n = 1;
    while (n < 5 && v >> (7 * n))
        n++;
    return n;
}

static void test_plt_writer(void) {
    /* the groups at their boundaries, most significant first */
    static const struct {
        uint32_t v;
        uint8_t b[5];
        unsigned n;
    } fixed[] = {
        {0, {0x00}, 1},
        {1, {0x01}, 1},
        {127, {0x7F}, 1},
        {128, {0x81, 0x00}, 2},
        {300, {0x82, 0x2C}, 2},
        {16383, {0xFF, 0x7F}, 2},
        {16384, {0x81, 0x80, 0x00}, 3},
        {2097151, {0xFF, 0xFF, 0x7F}, 3},
        {2097152, {0x81, 0x80, 0x80, 0x00}, 4},
        {268435455, {0xFF, 0xFF, 0xFF, 0x7F}, 4},
        {268435456, {0x81, 0x80, 0x80, 0x80, 0x00}, 5},
        {0xFFFFFFFFu, {0x8F, 0xFF, 0xFF, 0xFF, 0x7F}, 5},
    };
    char what[200];
    for (unsigned i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        uint8_t b[16];
        sci_j2k_out o = {b, 0, sizeof b};
        int r = sci_j2k_write_plt(&o, &fixed[i].v, 1);
        snprintf(what, sizeof what, "PLT of one length %lu: FF58, Lplt %u, "
                 "Zplt 0, its %u bytes", (unsigned long)fixed[i].v,
                 3 + fixed[i].n, fixed[i].n);
        check(r == 0 && o.len == 5 + fixed[i].n && b[0] == 0xFF &&
              b[1] == 0x58 && b[2] == 0 && b[3] == 3 + fixed[i].n &&
              b[4] == 0 && !memcmp(b + 5, fixed[i].b, fixed[i].n), what);
    }
    /* lists of up to several segments; lengths of every group count */
    static const size_t counts[] = {0, 1, 2, 1000, 21844, 21845, 40000,
                                    70000};
    for (unsigned t = 0; t < sizeof counts / sizeof counts[0]; t++) {
        size_t n = counts[t];
        uint32_t *len = malloc((n + 1) * sizeof *len);
        uint32_t *back = malloc((n + 1) * sizeof *back);
        size_t iplt = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned bits = 1 + rnd(32);
            len[i] = bits == 32 ? (uint32_t)rng() :
                     (uint32_t)rng() & ((1u << bits) - 1);
            /* three bytes each: 21844 fill one segment exactly */
            if (n == 21844 || n == 21845)
                len[i] = 16384 + (uint32_t)rnd(16384);
            iplt += group_bytes(len[i]);
        }
        /* as many segments as filling each with whole lengths takes */
        size_t segs = 0, room = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned g = group_bytes(len[i]);
            if (!segs || room < g) {
                segs++;
                room = SCI_J2K_PLT_MAX_IPLT;
            }
            room -= g;
        }
        sci_j2k_out c = {NULL, 0, 0};
        int rc = sci_j2k_write_plt(&c, len, n);
        size_t cap = iplt + 5 * segs + 1;
        uint8_t *b = malloc(cap);
        sci_j2k_out o = {b, 0, cap};
        int r = sci_j2k_write_plt(&o, len, n);
        const char *why = "";
        long k = r == 0 ? read_plt(b, o.len, back, n, &why) : -1;
        snprintf(what, sizeof what, "PLT of %zu lengths: %zu segments, %zu "
                 "bytes (wrote %zu, counted %zu), read back (%s)", n, segs,
                 iplt + 5 * segs, o.len, c.len, k < 0 ? why : "ok");
        check(r == 0 && rc == 0 && o.len == iplt + 5 * segs &&
              c.len == o.len && k == (long)n &&
              (!n || !memcmp(back, len, n * sizeof *len)), what);
        free(b);
        free(len);
        free(back);
    }
    /* 256 segments of five-byte lengths are the most */
    size_t per = SCI_J2K_PLT_MAX_IPLT / 5, n = 256 * per + 1;
    uint32_t *len = malloc(n * sizeof *len);
    for (size_t i = 0; i < n; i++)
        len[i] = 0xFFFFFFFFu;
    sci_j2k_out c = {NULL, 0, 0};
    int r = sci_j2k_write_plt(&c, len, n - 1);
    snprintf(what, sizeof what, "PLT of %zu five-byte lengths: 256 segments",
             n - 1);
    check(r == 0 && c.len == 256 * (5 + 5 * per), what);
    c.len = 0;
    r = sci_j2k_write_plt(&c, len, n);
    snprintf(what, sizeof what, "PLT of %zu five-byte lengths: refused, "
             "nothing written", n);
    check(r < 0 && c.len == 0, what);
    free(len);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0);
    printf("seed %llu\n", (unsigned long long)rng_state);
    for (unsigned i = 0; i < 40; i++)
        random_round_trip(1 + rnd(8), i);
    for (unsigned i = 0; i < 4; i++)
        random_round_trip(257 + rnd(300), 40 + i);

    static const ecase fixed[] = {
        {0, 0, 64, 48, 1, 444, 8, 3, 6, 6, 0, 1, 0, 0, 0},
        {0, 1, 64, 48, 3, 444, 8, 5, 5, 5, 2, 1, 0, 0, 0},
        {0, 1, 61, 33, 3, 420, 10, 2, 4, 6, 4, 1, 0, 2.0, 0},
        {0, 0, 17, 9, 4, 422, 12, 0, 6, 6, 1, 1, 0, 0, 1},
        {1, 0, 64, 64, 3, 444, 8, 4, 5, 5, 3, 3, 0x3F, 0, 0},
        {1, 1, 80, 60, 2, 444, 16, 6, 4, 4, 0, 5, 0x05, 4.0, 0},
        {1, 1, 1, 1, 1, 444, 1, 0, 6, 6, 2, 2, 0x10, 0, 0},
    };
    for (unsigned i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        encoder_round_trip(&fixed[i], i);
    for (unsigned i = 0; i < 12; i++) {
        ecase k;
        sci_wt_geometry g;
        sci_htj2k_params p;
    again:
        k.part1 = (int)rnd(2);
        k.irrev = (int)rnd(2);
        k.w = 1 + rnd(80);
        k.h = 1 + rnd(80);
        k.comps = 1 + rnd(4);
        k.sub = rnd(3) == 0 ? 420 : 444;
        k.depth = 1 + rnd(16);
        k.levels = rnd(7);
        k.cbw = 2 + rnd(5);
        k.cbh = 2 + rnd(5);
        k.prog = rnd(5);
        k.layers = k.part1 ? 1 + rnd(4) : 1;
        k.style = k.part1 ? rnd(0x40) : 0;
        k.bitrate = rnd(3) == 0 ? 0.5 + rnd(4) : 0;
        if (!k.part1 && !k.irrev)
            k.bitrate = 0;
        k.jph = !k.part1 && rnd(4) == 0;
        /* settings the encoder refuses (a bitrate below the headers) are
         * drawn again */
        case_setup(&k, &g, &p);
        if (sci_htj2k_check(&g, &p))
            goto again;
        encoder_round_trip(&k, 100 + i);
    }
    test_plt_writer();
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
