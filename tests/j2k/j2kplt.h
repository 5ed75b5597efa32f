/*
 * PLT marker segments (ISO/IEC 15444-1 A.7.3) of a one-tile-part
 * codestream, read independently of the codec's parser, for the tests of
 * the encoder's `plt` parameter: the segments, the packet lengths they
 * list, and whether those lengths tile the tile-part's data exactly.  A
 * JPH or JP2 file is read from its codestream box.
 */
#ifndef SCI_TESTS_J2KPLT_H
#define SCI_TESTS_J2KPLT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t cs;          /* where the codestream starts (after any boxes) */
    size_t box;         /* the jp2c box (its length field), or 0 */
    size_t sot;         /* SOT of the tile-part */
    size_t data;        /* the first byte after SOD */
    uint32_t psot;
    unsigned segs;      /* PLT segments in the tile-part header */
    size_t plt_bytes;   /* their bytes, markers included */
    size_t plt_at[256]; /* where each starts */
    size_t n;           /* packet lengths */
    uint32_t *len;      /* malloc'ed (NULL when none) */
    size_t eoc;         /* where EOC is */
} j2kt_plt;

static inline unsigned j2kt_be16(const uint8_t *p) {
    return (unsigned)p[0] << 8 | p[1];
}

static inline uint32_t j2kt_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

static inline void j2kt_plt_free(j2kt_plt *t) {
    free(t->len);
    t->len = NULL;
}

/* Reads b[0..n): 0, or -1 with *why saying what is wrong: no markers
 * where they should be, a PLT segment out of place, Zplt out of order,
 * a length split across segments, Psot not to the EOC that closes the
 * codestream, or lengths that do not add up to the tile-part's data.
 * Packets walked by the lengths from the first byte after SOD end
 * exactly at the EOC when this returns 0. */
static inline int j2kt_plt_parse(const uint8_t *b, size_t n, j2kt_plt *t,
                                 const char **why) {
    memset(t, 0, sizeof *t);
    size_t at = 0;
    if (n >= 12 && j2kt_be32(b) == 12 && j2kt_be32(b + 4) == 0x6A502020u) {
        /* boxes up to the codestream's */
        while (at + 8 <= n && j2kt_be32(b + at + 4) != 0x6A703263u) {
            uint32_t l = j2kt_be32(b + at);
            if (l < 8 || at + l > n) {
                *why = "box lengths";
                return -1;
            }
            at += l;
        }
        if (at + 8 > n) {
            *why = "no codestream box";
            return -1;
        }
        t->box = at;
        at += 8;
    }
    t->cs = at;
    if (at + 4 > n || j2kt_be16(b + at) != 0xFF4F) {
        *why = "no SOC";
        return -1;
    }
    at += 2;
    /* main header: segments up to SOT, none of them PLT */
    while (at + 4 <= n && j2kt_be16(b + at) != 0xFF90) {
        if (j2kt_be16(b + at) == 0xFF58) {
            *why = "PLT in the main header";
            return -1;
        }
        at += 2 + j2kt_be16(b + at + 2);
    }
    if (at + 12 > n || j2kt_be16(b + at + 2) != 10) {
        *why = "no SOT";
        return -1;
    }
    t->sot = at;
    t->psot = j2kt_be32(b + at + 6);
    at += 12;
    /* the tile-part header */
    size_t cap = 0;
    uint32_t v = 0;
    int open = 0;
    while (at + 2 <= n && j2kt_be16(b + at) != 0xFF93) {
        if (at + 4 > n) {
            *why = "tile-part header cut short";
            return -1;
        }
        unsigned m = j2kt_be16(b + at), l = j2kt_be16(b + at + 2);
        if (l < 2 || at + 2 + l > n) {
            *why = "segment length";
            return -1;
        }
        if (m == 0xFF58) {
            if (l < 3 || b[at + 4] != t->segs || t->segs == 256) {
                *why = "Zplt out of order";
                return -1;
            }
            t->plt_at[t->segs++] = at;
            t->plt_bytes += 2 + l;
            for (size_t i = at + 5; i < at + 2 + l; i++) {
                if (v >> 25) {
                    *why = "a length of more than 32 bits";
                    return -1;
                }
                v = v << 7 | (b[i] & 0x7Fu);
                open = b[i] >> 7;
                if (open)
                    continue;
                if (t->n == cap) {
                    cap = cap ? 2 * cap : 64;
                    uint32_t *p = realloc(t->len, cap * sizeof *p);
                    if (!p) {
                        *why = "no memory";
                        return -1;
                    }
                    t->len = p;
                }
                t->len[t->n++] = v;
                v = 0;
            }
            if (open) {
                *why = "a length split across PLT segments";
                return -1;
            }
        }
        at += 2 + l;
    }
    if (at + 2 > n) {
        *why = "no SOD";
        return -1;
    }
    t->data = at + 2;
    t->eoc = t->sot + t->psot;
    if (t->psot < t->data - t->sot || t->eoc + 2 != n ||
        j2kt_be16(b + t->eoc) != 0xFFD9) {
        *why = "Psot does not end at the final EOC";
        return -1;
    }
    if (t->segs) {
        size_t walk = t->data;
        for (size_t i = 0; i < t->n; i++)
            walk += t->len[i];
        if (walk != t->eoc) {
            *why = "packet lengths do not add up to the tile-part's data";
            return -1;
        }
    }
    return 0;
}

/* The codestream (or file) without its PLT segments, Psot and the
 * codestream box's length shortened to match (malloc'ed; *m its size):
 * what an encoder without PLT writes for the same packets. */
static inline uint8_t *j2kt_plt_strip(const uint8_t *b, size_t n,
                                      const j2kt_plt *t, size_t *m) {
    uint8_t *o = malloc(n ? n : 1);
    if (!o)
        return NULL;
    size_t k = 0, at = 0;
    for (unsigned s = 0; s < t->segs; s++) {
        size_t seg = t->plt_at[s];
        memcpy(o + k, b + at, seg - at);
        k += seg - at;
        at = seg + 2 + j2kt_be16(b + seg + 2);
    }
    memcpy(o + k, b + at, n - at);
    k += n - at;
    uint32_t psot = t->psot - (uint32_t)t->plt_bytes;
    uint8_t *p = o + t->sot + 6;
    p[0] = (uint8_t)(psot >> 24), p[1] = (uint8_t)(psot >> 16);
    p[2] = (uint8_t)(psot >> 8), p[3] = (uint8_t)psot;
    if (t->box) {
        uint32_t l = j2kt_be32(o + t->box) - (uint32_t)t->plt_bytes;
        p = o + t->box;
        p[0] = (uint8_t)(l >> 24), p[1] = (uint8_t)(l >> 16);
        p[2] = (uint8_t)(l >> 8), p[3] = (uint8_t)l;
    }
    *m = k;
    return o;
}

#endif
