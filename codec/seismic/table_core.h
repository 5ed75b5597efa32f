/*
 * The code table of a version 4 frame (docs/seismic-format.md, "Code
 * table"): the code lengths as a bit code over the symbols in order, cut
 * into segments of SCI_SEIS_TABLE_SEG symbols that each read alone, so
 * that a GPU thread reads one.  codec/seismic/table.c and the GPU decoder
 * (cuda/seismic/seismic.cu) both compile this reader.
 *
 * A segment's tokens, bits taken from the most significant of each byte
 * down; `last` is the segment's last nonzero length so far (0 at its
 * start):
 *   1                       a symbol of length last (last > 0)
 *   01 s                    a symbol of length last + 1 (s = 0) or
 *                           last - 1 (s = 1), in 1..SCI_HUFF_MAX_LEN
 *   001 0^k 1 b(k bits)     a run of r = 2^k + b unused symbols (Elias
 *                           gamma), within the segment
 *   000 v(5 bits)           a symbol of length v, 1..SCI_HUFF_MAX_LEN
 */
#ifndef SCI_CODEC_SEISMIC_TABLE_CORE_H
#define SCI_CODEC_SEISMIC_TABLE_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "huffman.h"

#if defined(__CUDACC__)
#define SCI_TABLE_HD __host__ __device__
#else
#define SCI_TABLE_HD
#endif

#define SCI_SEIS_TABLE_SEG 4096u

/* Segments of a table of nsym symbols. */
static inline SCI_TABLE_HD uint32_t sci_seis_table_segments(uint32_t nsym) {
    return (nsym + SCI_SEIS_TABLE_SEG - 1) / SCI_SEIS_TABLE_SEG;
}

/* k bits (1..25) from bit `pos` of b[0..n-1], bytes past n read as 0. */
static inline SCI_TABLE_HD uint32_t sci_seis_table_peek(const uint8_t *b,
                                                        size_t n, size_t pos,
                                                        unsigned k) {
    const size_t i = pos >> 3;
    uint32_t w = 0;
    for (unsigned j = 0; j < 4; j++)
        w = w << 8 | (i + j < n ? b[i + j] : 0u);
    return (w << (pos & 7)) >> (32 - k);
}

/* Segment g's lengths (symbols g SCI_SEIS_TABLE_SEG .. below nsym) into
 * len, read from bit *pos of the stream b[0..n-1]; *pos is left past its
 * last token.  0, or -1 when the tokens are not a segment an encoder
 * writes (no length to repeat, a length out of range, a run past the
 * segment, the stream's end passed). */
static inline SCI_TABLE_HD int sci_seis_table_segment(const uint8_t *b,
                                                      size_t n, uint32_t g,
                                                      uint32_t nsym,
                                                      size_t *pos,
                                                      uint8_t *len) {
    const uint32_t s0 = g * SCI_SEIS_TABLE_SEG;
    const uint32_t s1 = nsym - s0 < SCI_SEIS_TABLE_SEG
                            ? nsym
                            : s0 + SCI_SEIS_TABLE_SEG;
    size_t p = *pos;
    unsigned last = 0;
    for (uint32_t s = s0; s < s1;) {
        if (p >= 8 * (size_t)n)
            return -1;
        const uint32_t t = sci_seis_table_peek(b, n, p, 3);
        unsigned l;
        if (t >= 4) {
            l = last;
            p += 1;
        } else if (t >= 2) {
            l = t & 1 ? last - 1 : last + 1;
            p += 3;
        } else if (t == 1) {
            p += 3;
            unsigned k = 0;
            while (k <= 12 && !sci_seis_table_peek(b, n, p + k, 1))
                k++;
            if (k > 12)
                return -1;
            const uint32_t r = sci_seis_table_peek(b, n, p + k, k + 1);
            p += 2 * k + 1;
            if (r > s1 - s)
                return -1;
            for (uint32_t j = 0; j < r; j++)
                len[s + j] = 0;
            s += r;
            continue;
        } else {
            l = sci_seis_table_peek(b, n, p + 3, 5);
            p += 8;
        }
        if (l < 1 || l > SCI_HUFF_MAX_LEN)
            return -1;
        len[s++] = (uint8_t)l;
        last = l;
    }
    if (p > 8 * (size_t)n)
        return -1;
    *pos = p;
    return 0;
}

/* Where segment g's tokens start: bit 0 for the first, else the 32-bit
 * little-endian offset that the table stores for it (the offsets of
 * segments 1.. come first, the stream after them). */
static inline SCI_TABLE_HD size_t sci_seis_table_start(const uint8_t *table,
                                                       uint32_t g) {
    if (!g)
        return 0;
    const uint8_t *o = table + 4 * (size_t)(g - 1);
    return (size_t)o[0] | (size_t)o[1] << 8 | (size_t)o[2] << 16 |
           (size_t)o[3] << 24;
}

/* Segment g of a table of z bytes read into len, with the checks that
 * tie the segments together: its tokens end where the next segment's
 * start, or, for the last, in the stream's last byte, whose bits after
 * them are 0.  0, or -1 for a table an encoder does not write (also when
 * the offsets leave no stream). */
static inline SCI_TABLE_HD int sci_seis_table_read_segment(
    const uint8_t *table, size_t z, uint32_t g, uint32_t nsym, uint8_t *len) {
    const uint32_t segs = sci_seis_table_segments(nsym);
    const size_t head = 4 * (size_t)(segs - 1);
    if (z <= head || g >= segs)
        return -1;
    const uint8_t *b = table + head;
    const size_t n = z - head;
    size_t pos = sci_seis_table_start(table, g);
    if (sci_seis_table_segment(b, n, g, nsym, &pos, len))
        return -1;
    if (g + 1 < segs)
        return pos == sci_seis_table_start(table, g + 1) ? 0 : -1;
    if ((pos + 7) / 8 != n)
        return -1;
    return pos % 8 && sci_seis_table_peek(b, n, pos, 8 - (unsigned)(pos % 8))
               ? -1
               : 0;
}

#endif
