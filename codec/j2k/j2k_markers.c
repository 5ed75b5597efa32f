/*
 * Writing JPEG 2000 markers from the parsed structures (see j2k_markers.h).
 */
#include "j2k_markers.h"

/* Ccoc, Cqcc, Crgn, CSpoc, CEpoc: one byte when Csiz < 257, else two. */
static unsigned comp_bytes(unsigned csiz) {
    return csiz < 257 ? 1u : 2u;
}

static void put_comp(sci_j2k_out *o, unsigned comp, unsigned csiz) {
    if (comp_bytes(csiz) == 1)
        sci_j2k_put8(o, comp);
    else
        sci_j2k_put16(o, comp);
}

void sci_j2k_write_siz(sci_j2k_out *o, const sci_j2k_siz *s) {
    sci_j2k_put16(o, J2K_SIZ);
    sci_j2k_put16(o, 38 + 3 * (unsigned)s->csiz);
    sci_j2k_put16(o, s->rsiz);
    sci_j2k_put32(o, s->xsiz);
    sci_j2k_put32(o, s->ysiz);
    sci_j2k_put32(o, s->xosiz);
    sci_j2k_put32(o, s->yosiz);
    sci_j2k_put32(o, s->xtsiz);
    sci_j2k_put32(o, s->ytsiz);
    sci_j2k_put32(o, s->xtosiz);
    sci_j2k_put32(o, s->ytosiz);
    sci_j2k_put16(o, s->csiz);
    for (unsigned c = 0; c < s->csiz; c++) {
        const sci_j2k_siz_comp *k = &s->comp[c];
        sci_j2k_put8(o, (k->depth - 1u) | (k->is_signed ? 0x80u : 0u));
        sci_j2k_put8(o, k->dx);
        sci_j2k_put8(o, k->dy);
    }
}

void sci_j2k_write_cap(sci_j2k_out *o, uint32_t pcap, uint16_t ccap15) {
    if (!pcap)
        return;
    unsigned words = (unsigned)__builtin_popcount(pcap);
    sci_j2k_put16(o, J2K_CAP);
    sci_j2k_put16(o, 6 + 2 * words);
    sci_j2k_put32(o, pcap);
    /* Pcap bit i (1 = most significant) announces Ccap^i, in order of i */
    for (unsigned i = 1; i <= 32; i++)
        if (pcap >> (32 - i) & 1)
            sci_j2k_put16(o, i == 15 ? ccap15 : 0);
}

/* SPcod / SPcoc: levels, code-block size and style, filter, precincts. */
static void put_spcod(sci_j2k_out *o, const sci_j2k_coc *c) {
    sci_j2k_put8(o, c->levels);
    sci_j2k_put8(o, c->xcb - 2u);
    sci_j2k_put8(o, c->ycb - 2u);
    sci_j2k_put8(o, c->cb_style);
    sci_j2k_put8(o, c->reversible);
    if (c->precincts)
        for (unsigned r = 0; r <= c->levels; r++)
            sci_j2k_put8(o, (c->ppx[r] & 15u) | (unsigned)c->ppy[r] << 4);
}

static unsigned spcod_bytes(const sci_j2k_coc *c) {
    return 5 + (c->precincts ? c->levels + 1u : 0u);
}

void sci_j2k_write_cod(sci_j2k_out *o, const sci_j2k_tcp *t) {
    const sci_j2k_coc *c = &t->coc[0];
    sci_j2k_put16(o, J2K_COD);
    sci_j2k_put16(o, 2 + 1 + 4 + spcod_bytes(c));
    sci_j2k_put8(o, (c->precincts ? 1u : 0u) | (t->sop ? 2u : 0u) |
                    (t->eph ? 4u : 0u));
    sci_j2k_put8(o, t->prog);
    sci_j2k_put16(o, t->layers);
    sci_j2k_put8(o, t->mct);
    put_spcod(o, c);
}

void sci_j2k_write_coc(sci_j2k_out *o, const sci_j2k_coc *c, unsigned comp,
                       unsigned csiz) {
    sci_j2k_put16(o, J2K_COC);
    sci_j2k_put16(o, 2 + comp_bytes(csiz) + 1 + spcod_bytes(c));
    put_comp(o, comp, csiz);
    sci_j2k_put8(o, c->precincts ? 1 : 0);
    put_spcod(o, c);
}

/* Sqcd / SPqcd: style 0 has one byte an exponent, 1 and 2 two bytes an
 * entry. */
static unsigned sqcd_bytes(const sci_j2k_qcd *q) {
    return 1 + (q->style == 0 ? q->n : q->style == 1 ? 2u : 2u * q->n);
}

static void put_sqcd(sci_j2k_out *o, const sci_j2k_qcd *q) {
    sci_j2k_put8(o, (unsigned)q->guard << 5 | q->style);
    unsigned n = q->style == 1 ? 1 : q->n;
    for (unsigned i = 0; i < n; i++) {
        if (q->style == 0)
            sci_j2k_put8(o, (q->step[i] >> 11) << 3);
        else
            sci_j2k_put16(o, q->step[i]);
    }
}

void sci_j2k_write_qcd(sci_j2k_out *o, const sci_j2k_qcd *q) {
    sci_j2k_put16(o, J2K_QCD);
    sci_j2k_put16(o, 2 + sqcd_bytes(q));
    put_sqcd(o, q);
}

void sci_j2k_write_qcc(sci_j2k_out *o, const sci_j2k_qcd *q, unsigned comp,
                       unsigned csiz) {
    sci_j2k_put16(o, J2K_QCC);
    sci_j2k_put16(o, 2 + comp_bytes(csiz) + sqcd_bytes(q));
    put_comp(o, comp, csiz);
    put_sqcd(o, q);
}

void sci_j2k_write_rgn(sci_j2k_out *o, unsigned shift, unsigned comp,
                       unsigned csiz) {
    sci_j2k_put16(o, J2K_RGN);
    sci_j2k_put16(o, 2 + comp_bytes(csiz) + 2);
    put_comp(o, comp, csiz);
    sci_j2k_put8(o, 0); /* implicit (maxshift) */
    sci_j2k_put8(o, shift);
}

void sci_j2k_write_poc(sci_j2k_out *o, const sci_j2k_tcp *t, unsigned csiz) {
    if (!t->npoc)
        return;
    unsigned k = comp_bytes(csiz);
    sci_j2k_put16(o, J2K_POC);
    sci_j2k_put16(o, 2 + t->npoc * (5 + 2 * k));
    for (unsigned i = 0; i < t->npoc; i++) {
        const sci_j2k_poc *p = &t->poc[i];
        sci_j2k_put8(o, p->rs);
        put_comp(o, p->cs, csiz);
        sci_j2k_put16(o, p->lye);
        sci_j2k_put8(o, p->re);
        /* CEpoc: 0 stands for 256 (or 16384) */
        put_comp(o, p->ce == (k == 1 ? 256 : 16384) ? 0 : p->ce, csiz);
        sci_j2k_put8(o, p->prog);
    }
}

int sci_j2k_coc_same(const sci_j2k_coc *a, const sci_j2k_coc *b) {
    if (a->levels != b->levels || a->xcb != b->xcb || a->ycb != b->ycb ||
        a->cb_style != b->cb_style || a->reversible != b->reversible ||
        a->precincts != b->precincts)
        return 0;
    if (a->precincts)
        for (unsigned r = 0; r <= a->levels; r++)
            if (a->ppx[r] != b->ppx[r] || a->ppy[r] != b->ppy[r])
                return 0;
    return 1;
}

int sci_j2k_qcd_same(const sci_j2k_qcd *a, const sci_j2k_qcd *b) {
    if (a->style != b->style || a->guard != b->guard || a->n != b->n)
        return 0;
    for (unsigned i = 0; i < a->n; i++)
        if (a->step[i] != b->step[i])
            return 0;
    return 1;
}

void sci_j2k_write_main_header(sci_j2k_out *o, const sci_j2k_siz *siz,
                               uint32_t pcap, uint16_t ccap15,
                               const sci_j2k_tcp *t) {
    unsigned csiz = siz->csiz;
    sci_j2k_write_marker(o, J2K_SOC);
    sci_j2k_write_siz(o, siz);
    sci_j2k_write_cap(o, pcap, ccap15);
    sci_j2k_write_cod(o, t);
    for (unsigned c = 1; c < csiz; c++)
        if (!sci_j2k_coc_same(&t->coc[c], &t->coc[0]))
            sci_j2k_write_coc(o, &t->coc[c], c, csiz);
    sci_j2k_write_qcd(o, &t->qcd[0]);
    for (unsigned c = 1; c < csiz; c++)
        if (!sci_j2k_qcd_same(&t->qcd[c], &t->qcd[0]))
            sci_j2k_write_qcc(o, &t->qcd[c], c, csiz);
    for (unsigned c = 0; c < csiz; c++)
        if (t->roi[c])
            sci_j2k_write_rgn(o, t->roi[c], c, csiz);
    sci_j2k_write_poc(o, t, csiz);
}

size_t sci_j2k_write_sot(sci_j2k_out *o, unsigned tile, uint32_t psot,
                         unsigned tpsot, unsigned tnsot) {
    sci_j2k_put16(o, J2K_SOT);
    sci_j2k_put16(o, 10);
    sci_j2k_put16(o, tile);
    size_t at = o->len;
    sci_j2k_put32(o, psot);
    sci_j2k_put8(o, tpsot);
    sci_j2k_put8(o, tnsot);
    return at;
}

/* Bytes of one Iplt entry: 7 bits a byte. */
static unsigned iplt_bytes(uint32_t len) {
    unsigned n = 1;
    while (n < 5 && len >> (7 * n))
        n++;
    return n;
}

/* The end of the PLT segment whose first length is len[i]. */
static size_t plt_end(const uint32_t *len, size_t n, size_t i, size_t *iplt) {
    /* a length never straddles two segments: decoders (OpenJPEG among
     * them) refuse one that does */
    size_t end = i, b = 0;
    while (end < n && b + iplt_bytes(len[end]) <= SCI_J2K_PLT_MAX_IPLT)
        b += iplt_bytes(len[end++]);
    *iplt = b;
    return end;
}

int sci_j2k_write_plt(sci_j2k_out *o, const uint32_t *len, size_t n) {
    size_t iplt, segs = 0;
    for (size_t i = 0; i < n; segs++)
        i = plt_end(len, n, i, &iplt);
    if (segs > 256)
        return -1;
    for (size_t i = 0, z = 0; i < n; z++) {
        size_t end = plt_end(len, n, i, &iplt);
        sci_j2k_put16(o, J2K_PLT);
        sci_j2k_put16(o, (unsigned)(3 + iplt));
        sci_j2k_put8(o, (unsigned)z);
        for (; i < end; i++)
            for (unsigned b = iplt_bytes(len[i]); b-- > 0;)
                sci_j2k_put8(o, (len[i] >> (7 * b) & 0x7F) | (b ? 0x80 : 0));
    }
    return 0;
}

/* Box types (ISO/IEC 15444-1 Annex I, 15444-15 Annex D). */
#define BOX_JP 0x6A502020u   /* 'jP  ' */
#define BOX_FTYP 0x66747970u /* 'ftyp' */
#define BOX_JP2H 0x6A703268u /* 'jp2h' */
#define BOX_IHDR 0x69686472u /* 'ihdr' */
#define BOX_COLR 0x636F6C72u /* 'colr' */
#define BOX_JP2C 0x6A703263u /* 'jp2c' */
#define BRAND_JPH 0x6A706820u /* 'jph ' */
#define BRAND_JP2 0x6A703220u /* 'jp2 ' */

void sci_j2k_write_jp2_head(sci_j2k_out *o, const sci_j2k_jp2 *j) {
    uint32_t brand = j->jph ? BRAND_JPH : BRAND_JP2;
    sci_j2k_put32(o, 12);
    sci_j2k_put32(o, BOX_JP);
    sci_j2k_put32(o, 0x0D0A870A);
    sci_j2k_put32(o, 20);
    sci_j2k_put32(o, BOX_FTYP);
    sci_j2k_put32(o, brand);
    sci_j2k_put32(o, 0); /* minor version */
    sci_j2k_put32(o, brand); /* compatible with */
    sci_j2k_put32(o, 8 + 22 + 15);
    sci_j2k_put32(o, BOX_JP2H);
    sci_j2k_put32(o, 22);
    sci_j2k_put32(o, BOX_IHDR);
    sci_j2k_put32(o, j->height);
    sci_j2k_put32(o, j->width);
    sci_j2k_put16(o, j->nc);
    sci_j2k_put8(o, j->bpc);
    sci_j2k_put8(o, 7); /* compression type: JPEG 2000 */
    sci_j2k_put8(o, 0); /* colour space known */
    sci_j2k_put8(o, 0); /* no intellectual property box */
    sci_j2k_put32(o, 15);
    sci_j2k_put32(o, BOX_COLR);
    sci_j2k_put8(o, 1); /* enumerated colour space */
    sci_j2k_put8(o, 0);
    sci_j2k_put8(o, 0);
    sci_j2k_put32(o, j->enumcs);
}

size_t sci_j2k_write_jp2c_head(sci_j2k_out *o) {
    size_t at = o->len;
    sci_j2k_put32(o, 0);
    sci_j2k_put32(o, BOX_JP2C);
    return at;
}
