/*
 * RFC 9828 payload headers and codestream repair (j2kscl.h).
 */
#include "j2kscl.h"

#include "codec/j2k/j2k_markers.h"

#include <stdlib.h>
#include <string.h>

#define M_SOC 0xFF4F
#define M_SOT 0xFF90
#define M_SOD 0xFF93
#define M_EOC 0xFFD9
#define M_COD 0xFF52
#define M_PLT 0xFF58
#define SOT_LEN 12              /* marker, Lsot = 10 */

static unsigned rd16(const uint8_t *p) {
    return (unsigned)p[0] << 8 | p[1];
}

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

void sci_j2kscl_hdr_write(const sci_j2kscl_hdr *h, uint8_t out[SCI_J2KSCL_HDR_LEN]) {
    unsigned body = h->mh == SCI_J2KSCL_BODY;
    out[0] = (uint8_t)((h->mh & 3) << 6 | (h->tp & 7) << 3 |
                       ((body ? h->res : h->ordh) & 7));
    out[1] = (uint8_t)(((body ? h->ordb : h->p) & 1) << 7 |
                       ((body ? h->qual : h->xtrac) & 7) << 4 |
                       (h->ptstamp >> 8 & 15));
    out[2] = (uint8_t)(h->ptstamp & 0xFF);
    out[3] = (uint8_t)(h->eseq & 0xFF);
    if (body) {
        uint32_t v = (uint32_t)(h->pos & 0xFFF) << 20 | (h->pid & 0xFFFFF);
        out[4] = (uint8_t)(v >> 24);
        out[5] = (uint8_t)(v >> 16);
        out[6] = (uint8_t)(v >> 8);
        out[7] = (uint8_t)v;
    } else {
        out[4] = (uint8_t)((h->r & 1) << 7 | (h->s & 1) << 6 | (h->c & 1) << 5 |
                           (h->range & 1));
        out[5] = (uint8_t)h->prims;
        out[6] = (uint8_t)h->trans;
        out[7] = (uint8_t)h->mat;
    }
}

int sci_j2kscl_hdr_read(const uint8_t *p, size_t len, sci_j2kscl_hdr *h) {
    if (len < SCI_J2KSCL_HDR_LEN)
        return -1;
    memset(h, 0, sizeof *h);
    h->mh = p[0] >> 6;
    h->tp = p[0] >> 3 & 7;
    h->ptstamp = (unsigned)(p[1] & 15) << 8 | p[2];
    h->eseq = p[3];
    if (h->mh == SCI_J2KSCL_BODY) {
        h->res = p[0] & 7;
        h->ordb = p[1] >> 7;
        h->qual = p[1] >> 4 & 7;
        uint32_t v = rd32(p + 4);
        h->pos = v >> 20;
        h->pid = v & 0xFFFFF;
    } else {
        h->ordh = p[0] & 7;
        h->p = p[1] >> 7;
        h->xtrac = p[1] >> 4 & 7;
        h->r = p[4] >> 7;
        h->s = p[4] >> 6 & 1;
        h->c = p[4] >> 5 & 1;
        h->range = p[4] & 1;
        h->prims = p[5];
        h->trans = p[6];
        h->mat = p[7];
    }
    return 0;
}

/* The coding style that repair needs: one COD segment's. */
typedef struct {
    int sop, eph;
    unsigned layers;
} cod_style;

static void read_cod(const uint8_t *seg, unsigned lseg, cod_style *c) {
    /* Lcod Scod SGcod(progression, layers:16, MCT) */
    if (lseg < 7)
        return;
    c->sop = seg[4] & 2;
    c->eph = seg[4] & 4;
    c->layers = rd16(seg + 6);
}

/* Walks the marker segments from pos to the first `stop` marker; returns
 * its offset, or 0 when a segment is malformed or runs past len.  With
 * cod, the last COD seen is read into it. */
static size_t walk_segments(const uint8_t *cs, size_t len, size_t pos,
                            unsigned stop, cod_style *cod) {
    while (pos + 2 <= len) {
        unsigned m = rd16(cs + pos);
        if (m == stop)
            return pos;
        if ((m & 0xFF00) != 0xFF00 || pos + 4 > len)
            return 0;
        unsigned l = rd16(cs + pos + 2);
        if (l < 2 || pos + 2 + l > len)
            return 0;
        if (m == M_COD && cod)
            read_cod(cs + pos, l + 2, cod);
        pos += 2 + (size_t)l;
    }
    return 0;
}

size_t sci_j2kscl_main_header_len(const uint8_t *cs, size_t len) {
    if (len < 2 || rd16(cs) != M_SOC)
        return 0;
    return walk_segments(cs, len, 2, M_SOT, NULL);
}

/* --- repair ---------------------------------------------------------------- */

typedef struct {
    const sci_j2kscl_hole *holes;
    size_t nholes, len;
} lost_map;

/* Whether any byte of [a, b) is missing (past len, nothing arrived). */
static int damaged(const lost_map *m, size_t a, size_t b) {
    if (b > m->len)
        return 1;
    for (size_t i = 0; i < m->nholes; i++) {
        const sci_j2kscl_hole *h = &m->holes[i];
        if (h->off < b && h->off + h->len > a)
            return 1;
    }
    return 0;
}

/* The first missing byte at or after a. */
static size_t first_missing(const lost_map *m, size_t a) {
    size_t f = m->len > a ? m->len : a;
    for (size_t i = 0; i < m->nholes; i++) {
        const sci_j2kscl_hole *h = &m->holes[i];
        if (h->off + h->len > a) {
            size_t s = h->off > a ? h->off : a;
            if (s < f)
                f = s;
        }
    }
    return f;
}

/* The packet lengths that the PLT segments in [a, b) list, in their
 * order in the header (the standard puts them in Zplt order), at most max
 * of them into lens (NULL: only counted).  Returns how many, or -1 when a
 * length runs past its segment or exceeds 2^32 - 1. */
static long read_plt(const uint8_t *cs, size_t a, size_t b, uint32_t *lens,
                     size_t max, int *found) {
    size_t n = 0;
    *found = 0;
    for (size_t pos = a; pos + 4 <= b;) {
        unsigned m = rd16(cs + pos), l = rd16(cs + pos + 2);
        if (m == M_PLT) {
            *found = 1;
            if (l < 3)
                return -1;
            uint64_t v = 0;
            unsigned k = 0;
            for (size_t i = pos + 5; i < pos + 2 + l; i++) {
                v = v << 7 | (cs[i] & 0x7F);
                if (++k > 5 || v > 0xFFFFFFFFu)
                    return -1;
                if (!(cs[i] & 0x80)) {
                    if (lens && n < max)
                        lens[n] = (uint32_t)v;
                    n++;
                    v = 0;
                    k = 0;
                }
            }
            if (k)
                return -1;
        }
        pos += 2 + (size_t)l;
    }
    return (long)n;
}

/* A tile-part that lost body bytes, rebuilt: SOT, its header less PLT, a
 * new PLT, SOD, and its packets with an empty packet (a zero header byte,
 * then EPH where used) in place of each damaged one.  orig: the n
 * packets' lengths; newl: room for n.  -1 when PLT cannot be written. */
static int rebuild_tile_part(const uint8_t *cs, const lost_map *m, size_t pos,
                             size_t sod, const cod_style *cod,
                             const uint32_t *orig, uint32_t *newl, size_t n,
                             sci_j2k_out *o, unsigned *emptied) {
    static const uint8_t empty[3] = {0x00, 0xFF, 0x92};
    unsigned empty_len = cod->eph ? 3 : 1;
    size_t start = o->len;
    sci_j2k_put_bytes(o, cs + pos, SOT_LEN);
    for (size_t q = pos + SOT_LEN; q < sod;) {
        unsigned mk = rd16(cs + q), l = rd16(cs + q + 2);
        if (mk != M_PLT)
            sci_j2k_put_bytes(o, cs + q, 2 + (size_t)l);
        q += 2 + (size_t)l;
    }
    size_t at = sod + 2;
    for (size_t i = 0; i < n; at += orig[i++])
        newl[i] = damaged(m, at, at + orig[i]) ? empty_len : orig[i];
    if (sci_j2k_write_plt(o, newl, n) < 0)
        return -1;
    sci_j2k_put16(o, M_SOD);
    at = sod + 2;
    for (size_t i = 0; i < n; at += orig[i++]) {
        if (damaged(m, at, at + orig[i])) {
            sci_j2k_put_bytes(o, empty, empty_len);
            (*emptied)++;
        } else {
            sci_j2k_put_bytes(o, cs + at, orig[i]);
        }
    }
    sci_j2k_patch32(o, start + 6, (uint32_t)(o->len - start));
    return 0;
}

static size_t repair(const uint8_t *cs, size_t len, int tail_missing,
                     const lost_map *m, sci_j2k_out *o,
                     sci_j2kscl_repair_info *info) {
    cod_style cod = {0, 0, 1};
    if (len < 2 || rd16(cs) != M_SOC)
        return 0;
    size_t mhl = walk_segments(cs, len, 2, M_SOT, &cod);
    if (!mhl || damaged(m, 0, mhl))
        return 0;
    sci_j2k_put_bytes(o, cs, mhl);
    uint32_t *orig = NULL, *newl = NULL;
    size_t pos = mhl, cut = 0;
    int ended = 0, open_end = 0;
    while (!ended && pos + 2 <= len) {
        if (rd16(cs + pos) == M_EOC && !damaged(m, pos, pos + 2)) {
            ended = 1;
            break;
        }
        if (damaged(m, pos, pos + SOT_LEN) || rd16(cs + pos) != M_SOT) {
            cut = pos;
            break;
        }
        size_t psot = rd32(cs + pos + 6);
        if (psot && psot < SOT_LEN + 2) {
            cut = pos;
            break;
        }
        cod_style tc = cod;
        size_t sod = walk_segments(cs, len, pos + SOT_LEN, M_SOD, &tc);
        if (!sod || damaged(m, pos, sod + 2)) {
            cut = pos;
            break;
        }
        int found;
        long n = read_plt(cs, pos + SOT_LEN, sod, NULL, 0, &found);
        uint64_t sum = 0;
        if (found && n > 0 && tc.layers == 1 && !tc.sop) {
            free(orig);
            free(newl);
            orig = malloc((size_t)n * sizeof *orig);
            newl = malloc((size_t)n * sizeof *newl);
            if (!orig || !newl ||
                read_plt(cs, pos + SOT_LEN, sod, orig, (size_t)n, &found) != n)
                n = 0;
            for (long i = 0; i < n; i++)
                sum += orig[i];
        } else {
            n = 0;
        }
        /* Psot 0: the last tile-part, up to EOC (or as its PLT says) */
        size_t tend = psot ? pos + psot
                    : n ? sod + 2 + (size_t)sum
                    : !tail_missing && len >= 4 && rd16(cs + len - 2) == M_EOC
                    ? len - 2 : len;
        if (tend < sod + 2) {
            cut = pos;
            break;
        }
        open_end = !psot && !n;
        if (!damaged(m, sod + 2, tend)) {
            sci_j2k_put_bytes(o, cs + pos, tend - pos);
            pos = tend;
            continue;
        }
        if (n && sod + 2 + sum == tend) {
            size_t before = o->len;
            if (rebuild_tile_part(cs, m, pos, sod, &tc, orig, newl, (size_t)n, o,
                                  &info->packets_emptied) == 0) {
                pos = tend;
                continue;
            }
            o->len = before;
        }
        /* Without the packet lengths: up to the first missing byte, a
         * truncated tile-part and codestream, which decoders decode as
         * far as it goes. */
        size_t h = first_missing(m, sod + 2);
        if (h > sod + 2) {
            size_t start = o->len;
            sci_j2k_put_bytes(o, cs + pos, h - pos);
            sci_j2k_patch32(o, start + 6, (uint32_t)(h - pos));
        }
        cut = h > sod + 2 ? h : pos;
        break;
    }
    free(orig);
    free(newl);
    /* bytes after the tile-parts that are not EOC; or a lost tail after a
     * tile-part of unknown length */
    if (!cut && !ended && (pos < len || (tail_missing && open_end)))
        cut = pos;
    if (cut) {
        info->truncated = 1;
        info->truncated_at = cut;
    }
    if (o->len == mhl)
        return 0;               /* no tile-part survived */
    sci_j2k_put16(o, M_EOC);
    return o->p && o->len > o->cap ? 0 : o->len;
}

size_t sci_j2kscl_repair(const uint8_t *cs, size_t len, int tail_missing,
                         const sci_j2kscl_hole *holes, size_t nholes,
                         uint8_t *out, size_t cap,
                         sci_j2kscl_repair_info *info) {
    lost_map m = {holes, nholes, len};
    sci_j2k_out o = {out, 0, out ? cap : 0};
    memset(info, 0, sizeof *info);
    return repair(cs, len, tail_missing, &m, &o, info);
}
