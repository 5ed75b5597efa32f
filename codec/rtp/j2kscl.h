/*
 * JPEG 2000 over RTP with sub-codestream latency (RFC 9828,
 * video/jpeg2000-scl): the 8-byte payload header, where a codestream's main
 * header ends, and the repair of a codestream that lost pieces in transit.
 *
 * The payload header's layout follows draft-ietf-avtcore-rtp-j2k-scl-00 as
 * OpenJPH's receiver (ojph_stream_expand) reads it, which its author tested
 * against Kakadu's sender, and the same field for field as the parser of
 * OpenHTJ2K's RFC 9828 receiver (docs/streaming.md says what was checked):
 *
 *   main packet (MH != 0)        body packet (MH == 0)
 *   byte 0: MH:2 TP:3 ORDH:3     MH:2 TP:3 RES:3
 *   byte 1: P:1 XTRAC:3 PTSTAMP  ORDB:1 QUAL:3 PTSTAMP (high 4 of 12 bits)
 *   byte 2: PTSTAMP (low 8)      PTSTAMP (low 8)
 *   byte 3: ESEQ                 ESEQ (bits 16..23 of the sequence number)
 *   byte 4: R:1 S:1 C:1 0:4 RANGE:1   POS:12 PID:20 (bytes 4..7)
 *   bytes 5..7: PRIMS TRANS MAT (H.273 colour codes, when S)
 */
#ifndef SCI_RTP_J2KSCL_H
#define SCI_RTP_J2KSCL_H

#include <stddef.h>
#include <stdint.h>

#define SCI_J2KSCL_HDR_LEN 8

/* MH: what a packet carries */
enum {
    SCI_J2KSCL_BODY = 0,        /* tile-parts: SOT onwards */
    SCI_J2KSCL_MAIN_MORE = 1,   /* main header, more main packets follow */
    SCI_J2KSCL_MAIN_LAST = 2,   /* main header's last packet, body follows */
    SCI_J2KSCL_MAIN_ONLY = 3,   /* the frame's one main packet */
};

typedef struct {
    unsigned mh, tp, ptstamp, eseq;
    /* main packets */
    unsigned ordh, p, xtrac, r, s, c, range, prims, trans, mat;
    /* body packets */
    unsigned res, ordb, qual, pos, pid;
} sci_j2kscl_hdr;

void sci_j2kscl_hdr_write(const sci_j2kscl_hdr *h, uint8_t out[SCI_J2KSCL_HDR_LEN]);
/* 0, or -1 when len < SCI_J2KSCL_HDR_LEN */
int sci_j2kscl_hdr_read(const uint8_t *p, size_t len, sci_j2kscl_hdr *h);

/* The main header's length (SOC up to the first SOT), or 0 when cs does
 * not start with SOC or holds no well-formed main header. */
size_t sci_j2kscl_main_header_len(const uint8_t *cs, size_t len);

/* Bytes [off, off + len) of a codestream that never arrived. */
typedef struct {
    size_t off, len;
} sci_j2kscl_hole;

typedef struct {
    unsigned packets_emptied;   /* J2K packets replaced by empty ones */
    int truncated;              /* cut at a hole (no PLT, layers, ...) */
    size_t truncated_at;        /* where, in the input */
} sci_j2kscl_repair_info;

/* A decodable codestream from one with holes (sorted, disjoint, inside
 * [0, len); what lies past len is missing too when tail_missing):
 *  - a J2K packet that lost bytes becomes an empty packet, when its
 *    tile-part lists the packet lengths (PLT) and the codestream has one
 *    quality layer, so that a loss costs only the precincts it hit;
 *  - otherwise the codestream ends before the first damaged packet (or
 *    the damaged tile-part header), as a truncated codestream.
 * Writes at most len + 2 bytes to out; returns its length, or 0 when the
 * main header itself is damaged or malformed (nothing to decode). */
size_t sci_j2kscl_repair(const uint8_t *cs, size_t len, int tail_missing,
                         const sci_j2kscl_hole *holes, size_t nholes,
                         uint8_t *out, size_t cap,
                         sci_j2kscl_repair_info *info);

#endif
