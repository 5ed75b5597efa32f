/*
 * Writing the JPEG 2000 codestream's markers (ITU-T T.800 | ISO/IEC
 * 15444-1 Annex A, CAP of T.814) from the structures that j2k_stream.h
 * parses them into, so that what an encoder writes and what a decoder
 * reads are the same fields: sci_j2k_cs_parse of a main header written
 * here gives back the sci_j2k_siz and sci_j2k_tcp it was written from
 * (tests/j2k/test_codec_j2k_markers.c checks it).
 *
 * The writers append to a sci_j2k_out that counts every byte, stored or
 * not: with p NULL (or when full) they only measure, which rate control
 * uses to size a codestream without writing it.
 */
#ifndef SCI_CODEC_J2K_MARKERS_H
#define SCI_CODEC_J2K_MARKERS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "j2k_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint8_t *p;       /* NULL: count only */
    size_t len, cap;  /* bytes written (or counted), room at p */
} sci_j2k_out;

static inline void sci_j2k_put8(sci_j2k_out *o, unsigned v) {
    if (o->p && o->len < o->cap)
        o->p[o->len] = (uint8_t)v;
    o->len++;
}
static inline void sci_j2k_put16(sci_j2k_out *o, unsigned v) {
    sci_j2k_put8(o, v >> 8);
    sci_j2k_put8(o, v);
}
static inline void sci_j2k_put32(sci_j2k_out *o, uint32_t v) {
    sci_j2k_put16(o, v >> 16);
    sci_j2k_put16(o, v & 0xFFFF);
}
/* A run of bytes: stored only when all of it fits. */
static inline void sci_j2k_put_bytes(sci_j2k_out *o, const uint8_t *s,
                                     size_t n) {
    if (o->p && o->len + n <= o->cap)
        memcpy(o->p + o->len, s, n);
    o->len += n;
}
/* Overwrites 4 bytes at `at` (a length written before it was known). */
static inline void sci_j2k_patch32(sci_j2k_out *o, size_t at, uint32_t v) {
    if (o->p && at + 4 <= o->cap) {
        o->p[at] = (uint8_t)(v >> 24);
        o->p[at + 1] = (uint8_t)(v >> 16);
        o->p[at + 2] = (uint8_t)(v >> 8);
        o->p[at + 3] = (uint8_t)v;
    }
}

/* SIZ from s (tiles_x, tiles_y are derived and not written). */
void sci_j2k_write_siz(sci_j2k_out *o, const sci_j2k_siz *s);
/* CAP with Pcap pcap: a zero Ccap word for each Part announced but 15,
 * ccap15 for Part 15.  Nothing when pcap is 0. */
void sci_j2k_write_cap(sci_j2k_out *o, uint32_t pcap, uint16_t ccap15);
/* COD from t's progression, layers, MCT, SOP / EPH and the coding style
 * of component 0. */
void sci_j2k_write_cod(sci_j2k_out *o, const sci_j2k_tcp *t);
/* COC of component c, for a codestream of csiz components. */
void sci_j2k_write_coc(sci_j2k_out *o, const sci_j2k_coc *c, unsigned comp,
                       unsigned csiz);
/* QCD, and QCC of component comp. */
void sci_j2k_write_qcd(sci_j2k_out *o, const sci_j2k_qcd *q);
void sci_j2k_write_qcc(sci_j2k_out *o, const sci_j2k_qcd *q, unsigned comp,
                       unsigned csiz);
/* RGN (implicit maxshift) of component comp. */
void sci_j2k_write_rgn(sci_j2k_out *o, unsigned shift, unsigned comp,
                       unsigned csiz);
/* POC with t's npoc entries (nothing when none). */
void sci_j2k_write_poc(sci_j2k_out *o, const sci_j2k_tcp *t, unsigned csiz);

/* The main header: SOC, SIZ, CAP (when pcap), COD from component 0, COC
 * for each component coded otherwise, QCD from component 0, QCC for each
 * component quantized otherwise, RGN for each ROI shift, POC. */
void sci_j2k_write_main_header(sci_j2k_out *o, const sci_j2k_siz *siz,
                               uint32_t pcap, uint16_t ccap15,
                               const sci_j2k_tcp *t);

/* SOT of a tile-part (Psot 0: to be patched, or to the end of the
 * codestream); returns where Psot is, for sci_j2k_patch32. */
size_t sci_j2k_write_sot(sci_j2k_out *o, unsigned tile, uint32_t psot,
                         unsigned tpsot, unsigned tnsot);
/* Iplt bytes one PLT segment holds: Lplt (16 bits) counts itself, Zplt
 * and them. */
#define SCI_J2K_PLT_MAX_IPLT (65535u - 3u)

/* PLT segments (A.7.3) listing the n packet lengths len[] (header and
 * body each) in codestream order: as many segments as it takes, Zplt
 * counting from 0, no length split between two.  -1 when more than 256
 * segments would be needed (nothing is then written). */
int sci_j2k_write_plt(sci_j2k_out *o, const uint32_t *len, size_t n);

/* A marker without a segment: SOC, SOD, EOC, EPH. */
static inline void sci_j2k_write_marker(sci_j2k_out *o, unsigned marker) {
    sci_j2k_put16(o, marker);
}

/* The boxes of a JP2 or JPH file (jph: brand 'jph ', else 'jp2 ') before
 * its codestream: signature, file type, header (ihdr from width, height,
 * nc, bpc; colr, enumerated, from enumcs).  Then sci_j2k_write_jp2c_head
 * opens the codestream box; returns where its length goes, for
 * sci_j2k_patch32 (8 + the codestream's bytes). */
void sci_j2k_write_jp2_head(sci_j2k_out *o, const sci_j2k_jp2 *j);
size_t sci_j2k_write_jp2c_head(sci_j2k_out *o);

/* Whether two components' coding styles or quantizations are written
 * alike (so that one COD or QCD serves both). */
int sci_j2k_coc_same(const sci_j2k_coc *a, const sci_j2k_coc *b);
int sci_j2k_qcd_same(const sci_j2k_qcd *a, const sci_j2k_qcd *b);

#ifdef __cplusplus
}
#endif
#endif
