/*
 * JPEG 2000 codestream parsing (see j2k_stream.h).
 */
#include "j2k_stream.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- status ------------------------------------------------------------ */

int sci_j2k_fail(sci_j2k_status *st, int code, size_t offset,
                 const char *fmt, ...) {
    if (st && st->code == 0) {
        va_list ap;
        char text[200];
        va_start(ap, fmt);
        vsnprintf(text, sizeof text, fmt, ap);
        va_end(ap);
        st->code = code;
        st->offset = offset;
        snprintf(st->msg, sizeof st->msg, "%s (at byte %zu)", text, offset);
    }
    return code;
}

void sci_j2k_warn(sci_j2k_status *st, size_t offset, const char *fmt, ...) {
    if (!st)
        return;
    /* damage can repeat for every tile or block: count it all, but hand
     * on only the first SCI_J2K_MAX_WARNINGS messages */
    if (++st->warnings > SCI_J2K_MAX_WARNINGS + 1)
        return;
    va_list ap;
    char text[200], msg[256];
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (st->warnings > SCI_J2K_MAX_WARNINGS)
        snprintf(msg, sizeof msg, "more warnings follow; not reported");
    else
        snprintf(msg, sizeof msg, "%s (at byte %zu)", text, offset);
    if (st->warnings == 1)
        memcpy(st->warning, msg, sizeof msg);
    if (st->warn_fn)
        st->warn_fn(st->warn_user, offset, msg);
}

/* ---- bytes --------------------------------------------------------------- */

static inline unsigned rd16(const uint8_t *p) {
    return (unsigned)p[0] << 8 | p[1];
}
static inline uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

const char *sci_j2k_marker_name(unsigned m) {
    switch (m) {
    case J2K_SOC: return "SOC";
    case J2K_CAP: return "CAP";
    case J2K_SIZ: return "SIZ";
    case J2K_COD: return "COD";
    case J2K_COC: return "COC";
    case J2K_TLM: return "TLM";
    case J2K_PRF: return "PRF";
    case J2K_PLM: return "PLM";
    case J2K_PLT: return "PLT";
    case J2K_CPF: return "CPF";
    case J2K_QCD: return "QCD";
    case J2K_QCC: return "QCC";
    case J2K_RGN: return "RGN";
    case J2K_POC: return "POC";
    case J2K_PPM: return "PPM";
    case J2K_PPT: return "PPT";
    case J2K_CRG: return "CRG";
    case J2K_COM: return "COM";
    case J2K_SOT: return "SOT";
    case J2K_SOP: return "SOP";
    case J2K_EPH: return "EPH";
    case J2K_SOD: return "SOD";
    case J2K_EOC: return "EOC";
    case 0xFF70: return "DCO (Part 2 variable DC offset)";
    case 0xFF71: return "VMS (Part 2 visual masking)";
    case 0xFF72: return "DFS (Part 2 arbitrary decomposition styles)";
    case 0xFF73: return "ADS (Part 2 arbitrary decomposition styles)";
    case 0xFF74: return "MCT (Part 2 multiple component transformation)";
    case 0xFF75: return "MCC (Part 2 multiple component collection)";
    case 0xFF76: return "NLT (Part 2 non-linearity point transformation)";
    case 0xFF77: return "MCO (Part 2 multiple component transform ordering)";
    case 0xFF78: return "CBD (Part 2 component bit depth)";
    case 0xFF79: return "ATK (Part 2 arbitrary transformation kernels)";
    default: return NULL;
    }
}

static int is_part2_marker(unsigned m) {
    return m >= 0xFF70 && m <= 0xFF79;
}

/* ---- coding parameter sets ---------------------------------------------- */

int sci_j2k_tcp_init(sci_j2k_tcp *tcp, uint16_t csiz) {
    memset(tcp, 0, sizeof *tcp);
    tcp->csiz = csiz;
    tcp->coc = calloc(csiz ? csiz : 1, sizeof *tcp->coc);
    tcp->qcd = calloc(csiz ? csiz : 1, sizeof *tcp->qcd);
    tcp->roi = calloc(csiz ? csiz : 1, 1);
    tcp->coc_prio = calloc(csiz ? csiz : 1, 1);
    tcp->qcd_prio = calloc(csiz ? csiz : 1, 1);
    if (!tcp->coc || !tcp->qcd || !tcp->roi || !tcp->coc_prio ||
        !tcp->qcd_prio) {
        sci_j2k_tcp_free(tcp);
        return SCI_J2K_ENOMEM;
    }
    tcp->layers = 1;
    return 0;
}

void sci_j2k_tcp_free(sci_j2k_tcp *tcp) {
    free(tcp->coc);
    free(tcp->qcd);
    free(tcp->roi);
    free(tcp->coc_prio);
    free(tcp->qcd_prio);
    tcp->coc = NULL;
    tcp->qcd = NULL;
    tcp->roi = tcp->coc_prio = tcp->qcd_prio = NULL;
}

int sci_j2k_tcp_copy(sci_j2k_tcp *dst, const sci_j2k_tcp *src) {
    sci_j2k_tcp t;
    if (sci_j2k_tcp_init(&t, src->csiz))
        return SCI_J2K_ENOMEM;
    sci_j2k_tcp keep = t;
    t = *src;
    t.coc = keep.coc;
    t.qcd = keep.qcd;
    t.roi = keep.roi;
    t.coc_prio = keep.coc_prio;
    t.qcd_prio = keep.qcd_prio;
    size_t n = src->csiz;
    memcpy(t.coc, src->coc, n * sizeof *t.coc);
    memcpy(t.qcd, src->qcd, n * sizeof *t.qcd);
    memcpy(t.roi, src->roi, n);
    memcpy(t.coc_prio, src->coc_prio, n);
    memcpy(t.qcd_prio, src->qcd_prio, n);
    *dst = t;
    return 0;
}

/* ---- marker segments ---------------------------------------------------- */

typedef struct {
    const uint8_t *p;   /* the segment's parameters (after Lxxx) */
    size_t n;           /* their bytes */
    size_t off;         /* offset of the marker */
    unsigned marker;
} seg;

static int parse_siz(sci_j2k_cs *cs, const seg *s, sci_j2k_status *st) {
    sci_j2k_siz *z = &cs->siz;
    const uint8_t *p = s->p;
    if (s->n < 36)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                            "SIZ: segment of %zu bytes is too short", s->n + 2);
    z->rsiz = (uint16_t)rd16(p);
    z->xsiz = rd32(p + 2);
    z->ysiz = rd32(p + 6);
    z->xosiz = rd32(p + 10);
    z->yosiz = rd32(p + 14);
    z->xtsiz = rd32(p + 18);
    z->ytsiz = rd32(p + 22);
    z->xtosiz = rd32(p + 26);
    z->ytosiz = rd32(p + 30);
    unsigned csiz = rd16(p + 34);
    if (csiz < 1 || csiz > SCI_J2K_MAX_COMPONENTS)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off + 38,
                            "SIZ: Csiz %u is outside 1..16384", csiz);
    if (s->n != 36 + 3 * (size_t)csiz)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                            "SIZ: length %zu does not match Csiz %u (%zu)",
                            s->n + 2, csiz, 38 + 3 * (size_t)csiz);
    if (z->xsiz <= z->xosiz || z->ysiz <= z->yosiz)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off + 6,
                            "SIZ: empty image area (Xsiz %u, XOsiz %u, Ysiz "
                            "%u, YOsiz %u)", z->xsiz, z->xosiz, z->ysiz,
                            z->yosiz);
    if (z->xtsiz == 0 || z->ytsiz == 0)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off + 22,
                            "SIZ: tile size %ux%u is empty", z->xtsiz, z->ytsiz);
    if (z->xtosiz > z->xosiz || z->ytosiz > z->yosiz ||
        (uint64_t)z->xtosiz + z->xtsiz <= z->xosiz ||
        (uint64_t)z->ytosiz + z->ytsiz <= z->yosiz)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off + 30,
                            "SIZ: the first tile (offset %u,%u size %ux%u) "
                            "misses the image origin %u,%u", z->xtosiz,
                            z->ytosiz, z->xtsiz, z->ytsiz, z->xosiz, z->yosiz);
    uint64_t tx = ((uint64_t)z->xsiz - z->xtosiz + z->xtsiz - 1) / z->xtsiz;
    uint64_t ty = ((uint64_t)z->ysiz - z->ytosiz + z->ytsiz - 1) / z->ytsiz;
    if (tx * ty > 65535)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off + 18,
                            "SIZ: %llu tiles (more than 65535)",
                            (unsigned long long)(tx * ty));
    z->tiles_x = (uint32_t)tx;
    z->tiles_y = (uint32_t)ty;
    z->csiz = (uint16_t)csiz;
    z->comp = calloc(csiz, sizeof *z->comp);
    if (!z->comp)
        return sci_j2k_fail(st, SCI_J2K_ENOMEM, s->off, "out of memory");
    for (unsigned c = 0; c < csiz; c++) {
        const uint8_t *q = p + 36 + 3 * c;
        unsigned depth = (q[0] & 0x7F) + 1u;
        if (depth > 38)
            return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off + 40 + 3 * c,
                                "SIZ: component %u depth %u is above 38 bits",
                                c, depth);
        if (q[1] == 0 || q[2] == 0)
            return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off + 41 + 3 * c,
                                "SIZ: component %u subsampling %ux%u is zero",
                                c, q[1], q[2]);
        z->comp[c].depth = (uint8_t)depth;
        z->comp[c].is_signed = q[0] >> 7;
        z->comp[c].dx = q[1];
        z->comp[c].dy = q[2];
    }
    return 0;
}

/* Ccoc, Cqcc, Crgn: one byte when Csiz < 257, else two. */
static int comp_index(const sci_j2k_cs *cs, const seg *s, size_t *at,
                      unsigned *c, sci_j2k_status *st, const char *what) {
    size_t k = cs->siz.csiz < 257 ? 1 : 2;
    if (s->n < *at + k)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                            "%s: segment is too short", what);
    *c = k == 1 ? s->p[*at] : rd16(s->p + *at);
    if (*c >= cs->siz.csiz)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off + 4 + *at,
                            "%s: component %u does not exist (Csiz %u)", what,
                            *c, cs->siz.csiz);
    *at += k;
    return 0;
}

/* SPcod / SPcoc from p[0..n) with the precinct flag; at is the offset of p
 * in the segment for messages. */
static int parse_spcod(const seg *s, size_t at, int precincts,
                       sci_j2k_coc *c, sci_j2k_status *st, const char *what) {
    const uint8_t *p = s->p + at;
    size_t n = s->n - at;
    size_t base = s->off + 4 + at;
    if (n < 5)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                            "%s: segment is too short", what);
    if (p[0] > SCI_J2K_MAX_LEVELS)
        return sci_j2k_fail(st, (p[0] & 0x80) ? SCI_J2K_EUNSUPPORTED :
                            SCI_J2K_ECORRUPT, base,
                            "%s: %u decomposition levels%s", what, p[0],
                            (p[0] & 0x80) ? " (Part 2 arbitrary decomposition "
                            "styles) are not supported" : " (at most 32)");
    if (p[1] > 8 || p[2] > 8 || p[1] + p[2] > 8)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, base + 1,
                            "%s: code-block size 2^%u x 2^%u is outside the "
                            "standard's range", what, p[1] + 2u, p[2] + 2u);
    if ((p[3] & 0xC0) == 0x80)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, base + 3,
                            "%s: code-block style 0x%02x sets the mixed bit "
                            "without the HT bit", what, p[3]);
    if (p[4] > 1)
        return sci_j2k_fail(st, SCI_J2K_EUNSUPPORTED, base + 4,
                            "%s: wavelet transformation %u (Part 2 arbitrary "
                            "kernels) is not supported", what, p[4]);
    size_t need = 5 + (precincts ? (size_t)p[0] + 1 : 0);
    if (n < need)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                            "%s: segment is too short for %u precinct sizes",
                            what, p[0] + 1u);
    memset(c, 0, sizeof *c);
    c->levels = p[0];
    c->xcb = (uint8_t)(p[1] + 2);
    c->ycb = (uint8_t)(p[2] + 2);
    c->cb_style = p[3];
    c->reversible = p[4];
    c->precincts = (uint8_t)(precincts != 0);
    for (unsigned r = 0; r <= SCI_J2K_MAX_LEVELS; r++)
        c->ppx[r] = c->ppy[r] = 15;
    if (precincts) {
        for (unsigned r = 0; r <= c->levels; r++) {
            unsigned b = p[5 + r];
            c->ppx[r] = (uint8_t)(b & 15);
            c->ppy[r] = (uint8_t)(b >> 4);
            if (r > 0 && (c->ppx[r] == 0 || c->ppy[r] == 0))
                return sci_j2k_fail(st, SCI_J2K_ECORRUPT, base + 5 + r,
                                    "%s: precinct size 2^%u x 2^%u at "
                                    "resolution %u (only resolution 0 may "
                                    "use 2^0)", what, c->ppx[r], c->ppy[r], r);
        }
    }
    if (n > need)
        sci_j2k_warn(st, s->off, "%s: %zu bytes after the parameters ignored",
                     what, n - need);
    return 0;
}

static int parse_cod(sci_j2k_cs *cs, sci_j2k_tcp *t, const seg *s, int prio,
                     sci_j2k_status *st) {
    if (s->n < 10)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                            "COD: segment of %zu bytes is too short", s->n + 2);
    unsigned scod = s->p[0];
    if (scod & ~7u)
        return sci_j2k_fail(st, SCI_J2K_EUNSUPPORTED, s->off + 4,
                            "COD: Scod 0x%02x uses Part 2 partition origins "
                            "(not supported)", scod);
    if (s->p[1] > 4)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off + 5,
                            "COD: progression order %u (0..4)", s->p[1]);
    unsigned layers = rd16(s->p + 2);
    if (layers == 0)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off + 6,
                            "COD: zero quality layers");
    if (s->p[4] > 1)
        return sci_j2k_fail(st, s->p[4] == 2 ? SCI_J2K_EUNSUPPORTED :
                            SCI_J2K_ECORRUPT, s->off + 8,
                            "COD: multiple component transformation %u%s",
                            s->p[4], s->p[4] == 2 ? " (Part 2 array-based "
                            "transforms) is not supported" : " is invalid");
    sci_j2k_coc c;
    int e = parse_spcod(s, 5, scod & 1, &c, st, "COD");
    if (e)
        return e;
    t->prog = s->p[1];
    t->layers = (uint16_t)layers;
    t->mct = s->p[4];
    t->sop = (scod >> 1) & 1;
    t->eph = (scod >> 2) & 1;
    for (unsigned k = 0; k < t->csiz; k++) {
        if (t->coc_prio[k] <= prio) {
            t->coc[k] = c;
            t->coc_prio[k] = (uint8_t)prio;
        }
    }
    t->have_cod = 1;
    (void)cs;
    return 0;
}

static int parse_coc(sci_j2k_cs *cs, sci_j2k_tcp *t, const seg *s, int prio,
                     sci_j2k_status *st) {
    size_t at = 0;
    unsigned c;
    int e = comp_index(cs, s, &at, &c, st, "COC");
    if (e)
        return e;
    if (s->n < at + 1)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                            "COC: segment is too short");
    unsigned scoc = s->p[at++];
    if (scoc & ~1u)
        return sci_j2k_fail(st, SCI_J2K_EUNSUPPORTED, s->off + 4 + at - 1,
                            "COC: Scoc 0x%02x uses Part 2 options (not "
                            "supported)", scoc);
    sci_j2k_coc cc;
    e = parse_spcod(s, at, scoc & 1, &cc, st, "COC");
    if (e)
        return e;
    if (t->coc_prio[c] <= prio) {
        t->coc[c] = cc;
        t->coc_prio[c] = (uint8_t)prio;
    }
    return 0;
}

static int parse_sqcd(const seg *s, size_t at, sci_j2k_qcd *q,
                      sci_j2k_status *st, const char *what) {
    if (s->n < at + 1)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                            "%s: segment is too short", what);
    unsigned sq = s->p[at];
    const uint8_t *p = s->p + at + 1;
    size_t n = s->n - at - 1;
    memset(q, 0, sizeof *q);
    q->style = sq & 0x1F;
    q->guard = (uint8_t)(sq >> 5);
    if (q->style > 2)
        return sci_j2k_fail(st, SCI_J2K_EUNSUPPORTED, s->off + 4 + at,
                            "%s: quantization style %u (Part 2) is not "
                            "supported", what, q->style);
    if (q->style == 0) {
        if (n < 1 || n > SCI_J2K_MAX_STEPS)
            return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                                "%s: %zu exponents (1..97)", what, n);
        q->n = (uint8_t)n;
        for (size_t i = 0; i < n; i++)
            q->step[i] = (uint16_t)((p[i] >> 3) << 11);
    } else if (q->style == 1) {
        if (n != 2)
            return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                                "%s: scalar derived quantization with %zu "
                                "bytes of steps (2)", what, n);
        q->n = 1;
        q->step[0] = (uint16_t)rd16(p);
    } else {
        if (n < 2 || n % 2 || n / 2 > SCI_J2K_MAX_STEPS)
            return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                                "%s: %zu bytes of step sizes (pairs, 1..97 "
                                "of them)", what, n);
        q->n = (uint8_t)(n / 2);
        for (size_t i = 0; i < n / 2; i++)
            q->step[i] = (uint16_t)rd16(p + 2 * i);
    }
    return 0;
}

static int parse_qcd(sci_j2k_cs *cs, sci_j2k_tcp *t, const seg *s, int prio,
                     sci_j2k_status *st) {
    sci_j2k_qcd q;
    int e = parse_sqcd(s, 0, &q, st, "QCD");
    if (e)
        return e;
    for (unsigned k = 0; k < t->csiz; k++) {
        if (t->qcd_prio[k] <= prio) {
            t->qcd[k] = q;
            t->qcd_prio[k] = (uint8_t)prio;
        }
    }
    t->have_qcd = 1;
    (void)cs;
    return 0;
}

static int parse_qcc(sci_j2k_cs *cs, sci_j2k_tcp *t, const seg *s, int prio,
                     sci_j2k_status *st) {
    size_t at = 0;
    unsigned c;
    int e = comp_index(cs, s, &at, &c, st, "QCC");
    if (e)
        return e;
    sci_j2k_qcd q;
    e = parse_sqcd(s, at, &q, st, "QCC");
    if (e)
        return e;
    if (t->qcd_prio[c] <= prio) {
        t->qcd[c] = q;
        t->qcd_prio[c] = (uint8_t)prio;
    }
    return 0;
}

static int parse_rgn(sci_j2k_cs *cs, sci_j2k_tcp *t, const seg *s,
                     sci_j2k_status *st) {
    size_t at = 0;
    unsigned c;
    int e = comp_index(cs, s, &at, &c, st, "RGN");
    if (e)
        return e;
    if (s->n != at + 2)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                            "RGN: segment of %zu bytes (expected %zu)",
                            s->n + 2, at + 4);
    if (s->p[at] != 0)
        return sci_j2k_fail(st, SCI_J2K_EUNSUPPORTED, s->off + 4 + at,
                            "RGN: ROI style %u (only 0, implicit maxshift, "
                            "is Part 1)", s->p[at]);
    t->roi[c] = s->p[at + 1];
    return 0;
}

static int parse_poc(sci_j2k_cs *cs, sci_j2k_tcp *t, const seg *s,
                     sci_j2k_status *st) {
    size_t w = cs->siz.csiz < 257 ? 7 : 9;
    if (s->n < w || s->n % w)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                            "POC: segment of %zu bytes is not a whole number "
                            "of %zu-byte entries", s->n + 2, w);
    for (size_t i = 0; i < s->n; i += w) {
        const uint8_t *p = s->p + i;
        sci_j2k_poc o;
        size_t k = w == 7 ? 1 : 2;
        o.rs = p[0];
        o.cs = (uint16_t)(k == 1 ? p[1] : rd16(p + 1));
        o.lye = (uint16_t)rd16(p + 1 + k);
        o.re = p[3 + k];
        unsigned ce = k == 1 ? p[4 + k] : rd16(p + 4 + k);
        if (ce == 0)
            ce = k == 1 ? 256 : 16384;
        o.prog = p[4 + 2 * k];
        size_t at = s->off + 4 + i;
        if (o.rs > SCI_J2K_MAX_LEVELS || o.re <= o.rs ||
            o.re > SCI_J2K_MAX_RES)
            return sci_j2k_fail(st, SCI_J2K_ECORRUPT, at,
                                "POC: resolutions %u..%u", o.rs, o.re);
        if (o.cs >= cs->siz.csiz || ce <= o.cs)
            return sci_j2k_fail(st, SCI_J2K_ECORRUPT, at,
                                "POC: components %u..%u (Csiz %u)", o.cs, ce,
                                cs->siz.csiz);
        if (o.prog > 4)
            return sci_j2k_fail(st, SCI_J2K_ECORRUPT, at,
                                "POC: progression order %u", o.prog);
        if (ce > cs->siz.csiz)
            ce = cs->siz.csiz;
        o.ce = (uint16_t)ce;
        if (t->npoc >= SCI_J2K_MAX_POC)
            return sci_j2k_fail(st, SCI_J2K_EUNSUPPORTED, at,
                                "POC: more than %d progression changes",
                                SCI_J2K_MAX_POC);
        t->poc[t->npoc++] = o;
    }
    return 0;
}

static int parse_cap(sci_j2k_cs *cs, const seg *s, sci_j2k_status *st) {
    if (s->n < 4)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                            "CAP: segment is too short");
    uint32_t pcap = rd32(s->p);
    unsigned bits = 0;
    for (uint32_t v = pcap; v; v &= v - 1)
        bits++;
    if (s->n != 4 + 2 * (size_t)bits)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                            "CAP: %zu bytes for %u capability words",
                            s->n + 2, bits);
    /* Pcap bit i (1 = most significant) announces Part i's Ccap^i, the
     * words in order of i. */
    unsigned k = 0;
    for (unsigned i = 1; i <= 32; i++) {
        if (!(pcap >> (32 - i) & 1))
            continue;
        /* other Parts' capabilities are refused where they are used:
         * by their markers or by field values of Part 1 markers */
        if (i == 15)
            cs->ccap15 = (uint16_t)rd16(s->p + 4 + 2 * k);
        else
            sci_j2k_warn(st, s->off + 4, "CAP: capabilities of Part %u "
                         "announced", i);
        k++;
    }
    cs->pcap = pcap ? pcap : 1;
    return 0;
}

/* Reads the marker at pos and, for one with a segment, its extent. */
static int read_segment(const sci_j2k_cs *cs, size_t pos, size_t end, seg *s,
                        sci_j2k_status *st) {
    if (pos + 2 > end)
        return sci_j2k_fail(st, SCI_J2K_ETRUNCATED, pos,
                            "the codestream ends inside a header");
    s->marker = rd16(cs->buf + pos);
    s->off = pos;
    s->p = NULL;
    s->n = 0;
    if (s->marker < 0xFF00)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                            "expected a marker, found 0x%04x", s->marker);
    if ((s->marker >= 0xFF30 && s->marker <= 0xFF3F) ||
        s->marker == J2K_SOC || s->marker == J2K_SOD ||
        s->marker == J2K_EOC || s->marker == J2K_EPH)
        return 0;
    if (pos + 4 > end)
        return sci_j2k_fail(st, SCI_J2K_ETRUNCATED, pos,
                            "the codestream ends inside a header");
    unsigned l = rd16(cs->buf + pos + 2);
    if (l < 2)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos + 2,
                            "marker 0x%04x: length %u", s->marker, l);
    if (pos + 2 + l > end)
        return sci_j2k_fail(st, SCI_J2K_ETRUNCATED, pos,
                            "%s segment of %u bytes runs past the end",
                            sci_j2k_marker_name(s->marker) ?
                            sci_j2k_marker_name(s->marker) : "marker", l);
    s->p = cs->buf + pos + 4;
    s->n = l - 2;
    return 0;
}

static size_t seg_end(const seg *s) {
    return s->off + (s->p ? 4 + s->n : 2);
}

/* Appends the pieces (offset, length, index) sorted by index. */
typedef struct {
    size_t off, len;
    unsigned z;
    unsigned order;
} piece;

static int cmp_piece(const void *a, const void *b) {
    const piece *x = a, *y = b;
    if (x->z != y->z)
        return x->z < y->z ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int gather(const uint8_t *buf, piece *pc, size_t n, uint8_t **out,
                  size_t *out_len) {
    qsort(pc, n, sizeof *pc, cmp_piece);
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += pc[i].len;
    uint8_t *o = malloc(total ? total : 1);
    if (!o)
        return SCI_J2K_ENOMEM;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(o + at, buf + pc[i].off, pc[i].len);
        at += pc[i].len;
    }
    *out = o;
    *out_len = total;
    return 0;
}

/* Markers of the main header or of a tile-part header. */
static int header_marker(sci_j2k_cs *cs, sci_j2k_tcp *t, const seg *s,
                         int in_tile, int first_tp, int *poc_reset,
                         sci_j2k_status *st) {
    const char *name = sci_j2k_marker_name(s->marker);
    int base = in_tile ? 2 : 0;
    if (is_part2_marker(s->marker))
        return sci_j2k_fail(st, SCI_J2K_EUNSUPPORTED, s->off,
                            "marker %s is not supported", name);
    switch (s->marker) {
    case J2K_COD: case J2K_COC: case J2K_QCD: case J2K_QCC: case J2K_RGN:
        if (in_tile && !first_tp) {
            sci_j2k_warn(st, s->off, "%s in a tile-part header other than "
                         "the first: ignored", name);
            return 0;
        }
        break;
    default:
        break;
    }
    switch (s->marker) {
    case J2K_COD:
        return parse_cod(cs, t, s, base, st);
    case J2K_COC:
        return parse_coc(cs, t, s, base + 1, st);
    case J2K_QCD:
        return parse_qcd(cs, t, s, base, st);
    case J2K_QCC:
        return parse_qcc(cs, t, s, base + 1, st);
    case J2K_RGN:
        return parse_rgn(cs, t, s, st);
    case J2K_POC:
        if (poc_reset && *poc_reset) {
            t->npoc = 0;
            *poc_reset = 0;
        }
        return parse_poc(cs, t, s, st);
    case J2K_COM:
        if (s->n < 2)
            return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                                "COM: segment is too short");
        return 0;
    case J2K_PLT:
        if (!in_tile)
            break;
        if (s->n < 1)
            return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                                "PLT: segment is too short");
        return 0;
    case J2K_PPT:
        if (!in_tile)
            break;
        if (s->n < 1)
            return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                                "PPT: segment is too short");
        return 0;
    case J2K_CAP:
    case J2K_SIZ:
    case J2K_TLM:
    case J2K_PLM:
    case J2K_PPM:
    case J2K_CRG:
    case J2K_CPF:
    case J2K_PRF:
        if (in_tile)
            break;
        return 0; /* handled by the caller */
    default:
        if (!name && s->p) {
            sci_j2k_warn(st, s->off, "unknown marker 0x%04x skipped",
                         s->marker);
            return 0;
        }
        break;
    }
    return sci_j2k_fail(st, SCI_J2K_ECORRUPT, s->off,
                        "marker %s (0x%04x) is not allowed in a %s header",
                        name ? name : "?", s->marker,
                        in_tile ? "tile-part" : "main");
}

/* ---- JP2 / JPH boxes ------------------------------------------------------ */

static uint32_t fourcc(const char *s) {
    return (uint32_t)(uint8_t)s[0] << 24 | (uint32_t)(uint8_t)s[1] << 16 |
           (uint32_t)(uint8_t)s[2] << 8 | (uint8_t)s[3];
}

/* A box at pos (< end): its type and content [*c, *e). */
static int read_box(const uint8_t *b, size_t pos, size_t end, uint32_t *type,
                    size_t *c, size_t *e, sci_j2k_status *st) {
    if (end - pos < 8)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                            "JP2: a box header runs past the end");
    uint64_t l = rd32(b + pos);
    *type = rd32(b + pos + 4);
    size_t hdr = 8;
    if (l == 1) {
        if (end - pos < 16)
            return sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                                "JP2: a box header runs past the end");
        l = (uint64_t)rd32(b + pos + 8) << 32 | rd32(b + pos + 12);
        hdr = 16;
    } else if (l == 0) {
        l = end - pos;
    }
    if (l < hdr || l > end - pos)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                            "JP2: box '%c%c%c%c' of %llu bytes does not fit",
                            (int)(*type >> 24 & 0xFF), (int)(*type >> 16 & 0xFF),
                            (int)(*type >> 8 & 0xFF), (int)(*type & 0xFF),
                            (unsigned long long)l);
    *c = pos + hdr;
    *e = pos + (size_t)l;
    return 0;
}

static int parse_jp2h(sci_j2k_cs *cs, size_t pos, size_t end,
                      sci_j2k_status *st) {
    const uint8_t *b = cs->buf;
    sci_j2k_jp2 *j = &cs->jp2;
    int have_ihdr = 0;
    while (pos < end) {
        uint32_t type;
        size_t c, e;
        int r = read_box(b, pos, end, &type, &c, &e, st);
        if (r)
            return r;
        if (type == fourcc("ihdr")) {
            if (e - c != 14)
                return sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                                    "JP2: ihdr box of %zu bytes", e - c + 8);
            j->height = rd32(b + c);
            j->width = rd32(b + c + 4);
            j->nc = (uint16_t)rd16(b + c + 8);
            j->bpc = b[c + 10];
            if (b[c + 11] != 7)
                return sci_j2k_fail(st, SCI_J2K_ECORRUPT, c + 11,
                                    "JP2: ihdr compression type %u (7)",
                                    b[c + 11]);
            have_ihdr = 1;
        } else if (type == fourcc("colr")) {
            if (e - c < 3)
                return sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                                    "JP2: colr box is too short");
            /* the first colr box is the one that counts (I.5.3.3) */
            if (j->colour == SCI_J2K_COLOUR_UNKNOWN) {
                unsigned meth = b[c];
                if (meth == 1) {
                    if (e - c < 7)
                        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                                            "JP2: colr box is too short");
                    j->enumcs = rd32(b + c + 3);
                    j->colour = j->enumcs == 16 ? SCI_J2K_COLOUR_SRGB :
                                j->enumcs == 17 ? SCI_J2K_COLOUR_GREY :
                                j->enumcs == 18 ? SCI_J2K_COLOUR_SYCC :
                                SCI_J2K_COLOUR_OTHER;
                } else if (meth == 2 || meth == 3) {
                    j->colour = SCI_J2K_COLOUR_ICC;
                } else {
                    j->colour = SCI_J2K_COLOUR_OTHER;
                }
            }
        } else if (type == fourcc("pclr")) {
            j->has_palette = 1;
        } else if (type == fourcc("cdef")) {
            j->has_cdef = 1;
        }
        pos = e;
    }
    if (!have_ihdr)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, end,
                            "JP2: jp2h holds no ihdr box");
    return 0;
}

static int parse_boxes(sci_j2k_cs *cs, sci_j2k_status *st) {
    const uint8_t *b = cs->buf;
    size_t len = cs->len, pos = 0;
    int have_sig = 0, have_jp2h = 0;
    cs->jp2.file = 1;
    while (pos < len) {
        uint32_t type;
        size_t c, e;
        int r = read_box(b, pos, len, &type, &c, &e, st);
        if (r)
            return r;
        if (!have_sig) {
            if (type != fourcc("jP  ") || e - c != 4 ||
                rd32(b + c) != 0x0D0A870Au)
                return sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                                    "JP2: no signature box");
            have_sig = 1;
        } else if (type == fourcc("ftyp")) {
            if (e - c < 8)
                return sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                                    "JP2: ftyp box is too short");
            cs->jp2.jph = rd32(b + c) == fourcc("jph ");
        } else if (type == fourcc("jp2h")) {
            if (!have_jp2h) {
                r = parse_jp2h(cs, c, e, st);
                if (r)
                    return r;
            }
            have_jp2h = 1;
        } else if (type == fourcc("jp2c")) {
            cs->cs = c;
            cs->cs_end = e;
            if (!have_jp2h)
                sci_j2k_warn(st, pos, "JP2: the codestream box comes "
                             "before jp2h");
            return 0;
        }
        pos = e;
    }
    return sci_j2k_fail(st, SCI_J2K_ECORRUPT, len,
                        "JP2: the file holds no codestream box (jp2c)");
}

/* ---- the codestream ------------------------------------------------------- */

static int add_tp(sci_j2k_cs *cs, size_t *cap, const sci_j2k_tilepart *t) {
    if (cs->ntp == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        sci_j2k_tilepart *n = realloc(cs->tp, nc * sizeof *n);
        if (!n)
            return SCI_J2K_ENOMEM;
        cs->tp = n;
        *cap = nc;
    }
    cs->tp[cs->ntp++] = *t;
    return 0;
}

/* Walks the tile-part header from pos to its SOD; *sod gets the offset of
 * the SOD marker.  Markers are checked for length only here. */
static int walk_tp_header(sci_j2k_cs *cs, size_t pos, size_t end, size_t *sod,
                          sci_j2k_status *st) {
    for (;;) {
        seg s;
        int r = read_segment(cs, pos, end, &s, st);
        if (r)
            return r;
        if (s.marker == J2K_SOD) {
            *sod = pos;
            return 0;
        }
        if (s.marker >= 0xFF30 && s.marker <= 0xFF3F) {
            pos += 2;
            continue;
        }
        if (!s.p)
            return sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                                "marker 0x%04x in a tile-part header",
                                s.marker);
        pos = seg_end(&s);
    }
}

static int scan_tileparts(sci_j2k_cs *cs, size_t pos, sci_j2k_status *st) {
    size_t end = cs->cs_end, cap = 0;
    uint32_t ntiles = sci_j2k_cs_tiles(cs);
    uint8_t *tp_count = calloc(ntiles, 1);
    int32_t *last = malloc(ntiles * sizeof *last);
    unsigned *tp_seen = calloc(ntiles, sizeof *tp_seen);
    cs->tile_first = malloc(ntiles * sizeof *cs->tile_first);
    if (!tp_count || !last || !tp_seen || !cs->tile_first) {
        free(tp_count);
        free(last);
        free(tp_seen);
        return sci_j2k_fail(st, SCI_J2K_ENOMEM, pos, "out of memory");
    }
    for (uint32_t t = 0; t < ntiles; t++)
        cs->tile_first[t] = last[t] = -1;
    int r = 0;
    /* the end of data for a tile-part whose Psot is 0 */
    size_t data_limit = end;
    if (end - cs->cs >= 2 && rd16(cs->buf + end - 2) == J2K_EOC)
        data_limit = end - 2;
    while (pos < end) {
        if (end - pos < 2) {
            sci_j2k_warn(st, pos, "one stray byte after the last tile-part");
            break;
        }
        unsigned m = rd16(cs->buf + pos);
        if (m == J2K_EOC) {
            cs->eoc = 1;
            break;
        }
        if (m != J2K_SOT) {
            if (cs->ntp == 0)
                r = sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                                 "expected SOT, found 0x%04x", m);
            else
                sci_j2k_warn(st, pos, "expected SOT or EOC, found 0x%04x: "
                             "the rest is ignored", m);
            break;
        }
        if (end - pos < 12) {
            sci_j2k_warn(st, pos, "the codestream ends inside an SOT "
                         "marker segment");
            cs->truncated = 1;
            break;
        }
        const uint8_t *p = cs->buf + pos;
        unsigned lsot = rd16(p + 2), isot = rd16(p + 4);
        uint32_t psot = rd32(p + 6);
        sci_j2k_tilepart t;
        memset(&t, 0, sizeof t);
        t.tile = (uint16_t)isot;
        t.tpsot = p[10];
        t.tnsot = p[11];
        t.sot = pos;
        t.next = -1;
        if (lsot != 10) {
            r = sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos + 2,
                             "SOT: length %u (10)", lsot);
            break;
        }
        if (isot >= ntiles) {
            r = sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos + 4,
                             "SOT: tile %u does not exist (%u tiles)", isot,
                             ntiles);
            break;
        }
        if (psot != 0 && psot < 14) {
            r = sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos + 6,
                             "SOT: tile-part length %u is too short", psot);
            break;
        }
        size_t tp_end = psot ? pos + psot : data_limit;
        if (psot && (tp_end > end || tp_end < pos)) {
            sci_j2k_warn(st, pos + 6, "SOT: tile-part of %u bytes runs past "
                         "the end of the codestream: truncated", psot);
            tp_end = end;
            cs->truncated = 1;
        }
        if (tp_end < pos + 12)
            tp_end = pos + 12;
        size_t sod = 0;
        r = walk_tp_header(cs, pos + 12, tp_end, &sod, st);
        if (r) {
            if (r == SCI_J2K_ETRUNCATED && cs->ntp > 0) {
                /* a cut inside the last tile-part's header: keep what came
                 * before */
                st->code = 0;
                st->msg[0] = 0;
                sci_j2k_warn(st, pos, "the codestream ends inside a "
                             "tile-part header");
                cs->truncated = 1;
                r = 0;
            }
            break;
        }
        t.hdr = pos + 12;
        t.hdr_end = sod;
        t.data = sod + 2;
        t.data_end = tp_end;
        if (t.tpsot != tp_seen[isot]) {
            r = sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos + 10,
                             "SOT: tile %u tile-part %u comes where "
                             "tile-part %u was due", isot, t.tpsot,
                             tp_seen[isot]);
            break;
        }
        tp_seen[isot]++;
        r = add_tp(cs, &cap, &t);
        if (r) {
            sci_j2k_fail(st, r, pos, "out of memory");
            break;
        }
        int32_t idx = (int32_t)(cs->ntp - 1);
        if (last[isot] < 0)
            cs->tile_first[isot] = idx;
        else
            cs->tp[last[isot]].next = idx;
        last[isot] = idx;
        pos = tp_end;
        if (!psot)
            break;
    }
    free(tp_count);
    free(last);
    free(tp_seen);
    if (!r && cs->ntp == 0)
        r = sci_j2k_fail(st, SCI_J2K_ETRUNCATED, pos,
                         "the codestream holds no tile-part");
    return r;
}

/* Cuts the PPM data into the packet headers of each tile-part (in
 * codestream order): a 4-byte Nppm and Nppm bytes each. */
static int split_ppm(sci_j2k_cs *cs, sci_j2k_status *st) {
    size_t at = 0;
    for (size_t i = 0; i < cs->ntp; i++) {
        if (cs->ppm_len - at < 4) {
            sci_j2k_warn(st, cs->tp[i].sot, "PPM: no packet headers left for "
                         "this tile-part");
            cs->tp[i].ppm = at;
            cs->tp[i].ppm_len = 0;
            continue;
        }
        uint32_t n = rd32(cs->ppm + at);
        at += 4;
        if (n > cs->ppm_len - at) {
            sci_j2k_warn(st, cs->tp[i].sot, "PPM: Nppm %u runs past the "
                         "PPM data", n);
            n = (uint32_t)(cs->ppm_len - at);
        }
        cs->tp[i].ppm = at;
        cs->tp[i].ppm_len = n;
        at += n;
    }
    return 0;
}

int sci_j2k_cs_parse(sci_j2k_cs *cs, const uint8_t *data, size_t len,
                     sci_j2k_status *st) {
    memset(cs, 0, sizeof *cs);
    cs->buf = data;
    cs->len = len;
    if (!data || len < 2)
        return sci_j2k_fail(st, SCI_J2K_ETRUNCATED, 0,
                            "input of %zu bytes is not a codestream", len);
    int r;
    if (rd16(data) == J2K_SOC) {
        cs->cs = 0;
        cs->cs_end = len;
    } else if (len >= 12 && rd32(data) == 12 && rd32(data + 4) ==
               fourcc("jP  ")) {
        r = parse_boxes(cs, st);
        if (r)
            return r;
    } else {
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, 0,
                            "neither a JPEG 2000 codestream (SOC) nor a JP2 "
                            "file");
    }
    size_t pos = cs->cs, end = cs->cs_end;
    seg s;
    r = read_segment(cs, pos, end, &s, st);
    if (r)
        return r;
    if (s.marker != J2K_SOC)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                            "the codestream does not begin with SOC");
    pos += 2;
    r = read_segment(cs, pos, end, &s, st);
    if (r)
        return r;
    if (s.marker != J2K_SIZ)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                            "SIZ does not follow SOC");
    r = parse_siz(cs, &s, st);
    if (r)
        return r;
    pos = seg_end(&s);
    r = sci_j2k_tcp_init(&cs->main, cs->siz.csiz);
    if (r)
        return sci_j2k_fail(st, r, pos, "out of memory");

    piece *ppm = NULL;
    size_t nppm = 0, ppm_cap = 0;
    for (;;) {
        r = read_segment(cs, pos, end, &s, st);
        if (r)
            break;
        if (s.marker == J2K_SOT)
            break;
        if (s.marker == J2K_EOC) {
            r = sci_j2k_fail(st, SCI_J2K_ETRUNCATED, pos,
                             "EOC before any tile-part");
            break;
        }
        if (!s.p) {
            if (s.marker >= 0xFF30 && s.marker <= 0xFF3F) {
                /* reserved markers without a segment: skipped (A.1.3) */
                pos += 2;
                continue;
            }
            r = sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                             "marker %s in the main header",
                             sci_j2k_marker_name(s.marker));
            break;
        }
        switch (s.marker) {
        case J2K_SIZ:
            r = sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos, "a second SIZ");
            break;
        case J2K_CAP:
            r = parse_cap(cs, &s, st);
            break;
        case J2K_PPM:
            if (s.n < 1) {
                r = sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                                 "PPM: segment is too short");
                break;
            }
            if (nppm == ppm_cap) {
                size_t nc = ppm_cap ? 2 * ppm_cap : 8;
                piece *np = realloc(ppm, nc * sizeof *np);
                if (!np) {
                    r = sci_j2k_fail(st, SCI_J2K_ENOMEM, pos, "out of memory");
                    break;
                }
                ppm = np;
                ppm_cap = nc;
            }
            ppm[nppm].off = pos + 5;
            ppm[nppm].len = s.n - 1;
            ppm[nppm].z = s.p[0];
            ppm[nppm].order = (unsigned)nppm;
            nppm++;
            break;
        case J2K_TLM:
            if (s.n < 2 || ((s.p[1] >> 4) & 3) == 3) {
                r = sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                                 "TLM: invalid Stlm");
                break;
            } else {
                size_t w = ((s.p[1] >> 4) & 3) + ((s.p[1] >> 6) & 1 ? 4 : 2);
                if ((s.n - 2) % w)
                    sci_j2k_warn(st, pos, "TLM: %zu bytes of %zu-byte "
                                 "entries", s.n - 2, w);
            }
            break;
        case J2K_CRG:
            if (s.n != 4 * (size_t)cs->siz.csiz)
                sci_j2k_warn(st, pos, "CRG: %zu bytes for %u components",
                             s.n, cs->siz.csiz);
            break;
        default:
            r = header_marker(cs, &cs->main, &s, 0, 1, NULL, st);
            break;
        }
        if (r)
            break;
        pos = seg_end(&s);
    }
    if (!r && nppm) {
        cs->have_ppm = 1;
        r = gather(cs->buf, ppm, nppm, &cs->ppm, &cs->ppm_len);
        if (r)
            sci_j2k_fail(st, r, pos, "out of memory");
    }
    free(ppm);
    if (r)
        return r;
    if ((cs->siz.rsiz & 0x4000) && !cs->pcap)
        sci_j2k_warn(st, cs->cs + 6, "SIZ: Rsiz announces Part 15 but there "
                     "is no CAP marker");
    cs->main_end = pos;
    r = scan_tileparts(cs, pos, st);
    if (r)
        return r;
    if (cs->have_ppm)
        split_ppm(cs, st);
    if (!cs->eoc && !cs->truncated)
        sci_j2k_warn(st, cs->cs_end, "the codestream ends without EOC: it "
                     "may be truncated");
    return 0;
}

void sci_j2k_cs_free(sci_j2k_cs *cs) {
    free(cs->siz.comp);
    sci_j2k_tcp_free(&cs->main);
    free(cs->ppm);
    free(cs->tp);
    free(cs->tile_first);
    memset(cs, 0, sizeof *cs);
}

int sci_j2k_cs_tile_params(const sci_j2k_cs *cs, uint32_t t, sci_j2k_tcp *tcp,
                           uint8_t **ppt, size_t *ppt_len, int *have_ppt,
                           sci_j2k_status *st) {
    *ppt = NULL;
    *ppt_len = 0;
    *have_ppt = 0;
    if (sci_j2k_tcp_copy(tcp, &cs->main))
        return sci_j2k_fail(st, SCI_J2K_ENOMEM, 0, "out of memory");
    int poc_reset = 1;
    piece *pc = NULL;
    size_t npc = 0, cap = 0;
    int r = 0;
    for (int32_t i = t < sci_j2k_cs_tiles(cs) ? cs->tile_first[t] : -1;
         i >= 0 && !r; i = cs->tp[i].next) {
        const sci_j2k_tilepart *tp = &cs->tp[i];
        size_t pos = tp->hdr;
        while (pos < tp->hdr_end) {
            seg s;
            r = read_segment(cs, pos, tp->hdr_end, &s, st);
            if (r)
                break;
            if (!s.p) {
                pos += 2; /* FF30..FF3F (walk_tp_header let no other by) */
                continue;
            }
            if (s.marker == J2K_PPT) {
                if (cs->have_ppm) {
                    r = sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                                     "PPT in a codestream with PPM");
                    break;
                }
                if (s.n < 1) {
                    r = sci_j2k_fail(st, SCI_J2K_ECORRUPT, pos,
                                     "PPT: segment is too short");
                    break;
                }
                if (npc == cap) {
                    size_t nc = cap ? 2 * cap : 8;
                    piece *np = realloc(pc, nc * sizeof *np);
                    if (!np) {
                        r = sci_j2k_fail(st, SCI_J2K_ENOMEM, pos,
                                         "out of memory");
                        break;
                    }
                    pc = np;
                    cap = nc;
                }
                /* Zppt counts the tile's PPTs in order: keep the order of
                 * appearance across tile-parts, Zppt within a run */
                pc[npc].off = pos + 5;
                pc[npc].len = s.n - 1;
                pc[npc].z = 0;
                pc[npc].order = (unsigned)npc;
                npc++;
            } else {
                r = header_marker((sci_j2k_cs *)cs, tcp, &s, 1,
                                  tp->tpsot == 0, &poc_reset, st);
                if (r)
                    break;
            }
            pos = seg_end(&s);
        }
    }
    if (!r && npc) {
        *have_ppt = 1;
        r = gather(cs->buf, pc, npc, ppt, ppt_len);
        if (r)
            sci_j2k_fail(st, r, 0, "out of memory");
    }
    free(pc);
    if (r)
        return r;
    if (!tcp->have_cod)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, cs->main_end,
                            "no COD marker for tile %u", t);
    if (!tcp->have_qcd)
        return sci_j2k_fail(st, SCI_J2K_ECORRUPT, cs->main_end,
                            "no QCD marker for tile %u", t);
    return 0;
}

int sci_j2k_cs_tile_plt(const sci_j2k_cs *cs, uint32_t t, uint32_t **len,
                        size_t *n) {
    *len = NULL;
    *n = 0;
    size_t cap = 0, cnt = 0;
    uint64_t v = 0;
    int open = 0, bad = 0;
    for (int32_t i = t < sci_j2k_cs_tiles(cs) ? cs->tile_first[t] : -1;
         i >= 0 && !bad; i = cs->tp[i].next) {
        const sci_j2k_tilepart *tp = &cs->tp[i];
        size_t pos = tp->hdr;
        while (pos < tp->hdr_end && !bad) {
            seg s = {NULL, 0, 0, 0};
            if (read_segment(cs, pos, tp->hdr_end, &s, NULL)) {
                bad = 1;
                break;
            }
            pos = seg_end(&s);
            if (s.marker != J2K_PLT || s.n < 1)
                continue;
            /* Iplt after Zplt: 7 bits a byte, most significant first, the
             * top bit set on every byte but a length's last */
            for (size_t k = 1; k < s.n; k++) {
                v = v << 7 | (s.p[k] & 0x7F);
                open = 1;
                if (v > UINT32_MAX) {
                    bad = 1;
                    break;
                }
                if (s.p[k] & 0x80)
                    continue;
                if (cnt == cap) {
                    size_t nc = cap ? 2 * cap : 256;
                    uint32_t *p = realloc(*len, nc * sizeof *p);
                    if (!p) {
                        free(*len);
                        *len = NULL;
                        return SCI_J2K_ENOMEM;
                    }
                    *len = p;
                    cap = nc;
                }
                (*len)[cnt++] = (uint32_t)v;
                v = 0;
                open = 0;
            }
        }
    }
    if (bad || open) {
        free(*len);
        *len = NULL;
        cnt = 0;
    }
    *n = cnt;
    return 0;
}

void sci_j2k_tile_rect(const sci_j2k_siz *s, uint32_t t, uint32_t *x0,
                       uint32_t *y0, uint32_t *x1, uint32_t *y1) {
    uint32_t p = t % s->tiles_x, q = t / s->tiles_x;
    uint64_t a = (uint64_t)s->xtosiz + (uint64_t)p * s->xtsiz;
    uint64_t b = (uint64_t)s->ytosiz + (uint64_t)q * s->ytsiz;
    uint64_t c = a + s->xtsiz, d = b + s->ytsiz;
    *x0 = (uint32_t)(a > s->xosiz ? a : s->xosiz);
    *y0 = (uint32_t)(b > s->yosiz ? b : s->yosiz);
    *x1 = (uint32_t)(c < s->xsiz ? c : s->xsiz);
    *y1 = (uint32_t)(d < s->ysiz ? d : s->ysiz);
}
