/*
 * The code table of a version 4 or 5 frame (docs/seismic-format.md, "Code
 * table"): the code lengths as a bit code over the symbols in order, cut
 * into segments that each read alone, so that a GPU thread reads one.
 * codec/seismic/table.c and the GPU decoder (cuda/seismic/seismic.cu) both
 * compile this reader.
 *
 * Version 4 cuts every 4096 symbols and stores where each segment after
 * the first starts (32-bit bit offsets); version 5 cuts every 256, so that
 * a 2^16-symbol table gives a GPU 256 threads of 256 tokens instead of 16
 * of 4096, and stores each segment but the last's length in bits (16 bits:
 * no segment of 256 takes more than 2048).
 *
 * A segment's tokens, bits taken from the most significant of each byte
 * down; `last` is the segment's last nonzero length so far (0 at its
 * start):
 *   1                       a symbol of length last (last > 0)
 *   01 s                    a symbol of length last + 1 (s = 0) or
 *                           last - 1 (s = 1), in 1..SCI_HUFF_MAX_LEN
 *   001 0^k 1 b(k bits)     a run of r = 2^k + b unused symbols (Elias
 *                           gamma, k <= 12), within the segment
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

/* Symbols a segment holds in a version's table (4 or 5). */
static inline SCI_TABLE_HD uint32_t sci_seis_table_seg(unsigned version) {
    return version == 4 ? 4096u : 256u;
}

static inline SCI_TABLE_HD uint32_t sci_seis_table_segments(uint32_t nsym,
                                                            unsigned version) {
    return (nsym + sci_seis_table_seg(version) - 1) /
           sci_seis_table_seg(version);
}

/* Bytes of a field before the stream: a version 4 offset, a version 5
 * segment length. */
static inline SCI_TABLE_HD unsigned sci_seis_table_field_bytes(
    unsigned version) {
    return version == 4 ? 4u : 2u;
}

/* The bytes before the stream: a field for each segment but one. */
static inline SCI_TABLE_HD size_t sci_seis_table_head(uint32_t nsym,
                                                      unsigned version) {
    return sci_seis_table_field_bytes(version) *
           (size_t)(sci_seis_table_segments(nsym, version) - 1);
}

/* Field i (little-endian): version 4, where segment i + 1 starts; version
 * 5, how many bits segment i takes. */
static inline SCI_TABLE_HD uint32_t sci_seis_table_field(const uint8_t *table,
                                                         uint32_t i,
                                                         unsigned version) {
    const uint8_t *f = table + sci_seis_table_field_bytes(version) * (size_t)i;
    uint32_t v = (uint32_t)f[0] | (uint32_t)f[1] << 8;
    if (version == 4)
        v |= (uint32_t)f[2] << 16 | (uint32_t)f[3] << 24;
    return v;
}

/* Word k of the z-byte table t, its first byte the most significant;
 * bytes past z read as 0.  On a GPU a 4-byte aligned table is read a word
 * a load. */
static inline SCI_TABLE_HD uint32_t sci_seis_table_word(const uint8_t *t,
                                                        size_t z, size_t k) {
    const size_t i = 4 * k;
#if defined(__CUDA_ARCH__)
    if (i + 4 <= z && ((uintptr_t)t & 3) == 0)
        return __byte_perm(((const uint32_t *)t)[k], 0, 0x0123);
#endif
    uint32_t w = 0;
    for (unsigned j = 0; j < 4; j++)
        w = w << 8 | (i + j < z ? t[i + j] : 0u);
    return w;
}

/* A window on the table: bits from `pos` (counted from the table's first
 * byte) on, the next at the top of w, `have` of them loaded. */
typedef struct {
    const uint8_t *t;
    size_t z, next, pos;
    uint64_t w;
    unsigned have;
} sci_seis_table_bits;

static inline SCI_TABLE_HD void sci_seis_table_bits_at(sci_seis_table_bits *r,
                                                       const uint8_t *t,
                                                       size_t z, size_t pos) {
    r->t = t;
    r->z = z;
    r->next = pos / 32 + 1;
    r->pos = pos;
    r->w = (uint64_t)sci_seis_table_word(t, z, pos / 32) << (32 + pos % 32);
    r->have = 32 - (unsigned)(pos % 32);
}

/* At least 33 bits in the window (a token takes at most 28). */
static inline SCI_TABLE_HD void sci_seis_table_fill(sci_seis_table_bits *r) {
    if (r->have <= 32) {
        r->w |= (uint64_t)sci_seis_table_word(r->t, r->z, r->next++)
                << (32 - r->have);
        r->have += 32;
    }
}

static inline SCI_TABLE_HD void sci_seis_table_skip(sci_seis_table_bits *r,
                                                    unsigned k) {
    r->w <<= k;
    r->have -= k;
    r->pos += k;
}

static inline SCI_TABLE_HD unsigned sci_seis_table_clz64(uint64_t x) {
#if defined(__CUDA_ARCH__)
    return (unsigned)__clzll((long long)x);
#else
    return x ? (unsigned)__builtin_clzll(x) : 64u;
#endif
}

/* The lengths of symbols s0..s1-1 (one segment) into len[0..s1-s0-1],
 * read from bit *pos of the z bytes at `bytes`; *pos is left past the
 * last token.  With `zeroed`, len already holds zeros and runs leave it as
 * it is.  0, or -1 when the tokens are not a segment an encoder writes (no
 * length to repeat, a length out of range, a run past the segment, the
 * bytes' end passed).
 *
 * Every token takes the same steps, its kind choosing their values: a GPU
 * warp walks 32 segments at once, and with a branch a kind each of its
 * steps went through every kind its lanes' tokens had (the table launch,
 * bound by the densest segment's 256 tokens, took 13-15 % longer). */
static inline SCI_TABLE_HD int sci_seis_table_segment(const uint8_t *bytes,
                                                      size_t z, uint32_t s0,
                                                      uint32_t s1, size_t *pos,
                                                      uint8_t *len,
                                                      int zeroed) {
    const size_t end = 8 * z;
    sci_seis_table_bits r;
    sci_seis_table_bits_at(&r, bytes, z, *pos);
    unsigned last = 0;
    for (uint32_t s = 0; s < s1 - s0;) {
        if (r.pos >= end)
            return -1;
        sci_seis_table_fill(&r);
        const unsigned t = (unsigned)(r.w >> 61);
        /* a run: 001, k zeros, then the 2k + 1 bits 1 b read as r itself
         * (k clamped for the shifts; k > 12 refuses it) */
        const unsigned k = sci_seis_table_clz64(r.w << 3);
        const unsigned kc = k > 12 ? 12 : k;
        const uint32_t run = (uint32_t)((r.w << (3 + kc)) >> (63 - kc));
        const int is_run = t == 1;
        const unsigned l = t >= 4   ? last
                           : t >= 2 ? (t & 1 ? last - 1 : last + 1)
                                    : (unsigned)(r.w >> 56) & 31;
        const int bad = is_run ? k > 12 || run > s1 - s0 - s
                               : l < 1 || l > SCI_HUFF_MAX_LEN;
        if (bad)
            return -1;
        sci_seis_table_skip(&r, t >= 4   ? 1
                                : t >= 2 ? 3
                                : is_run ? 4 + 2 * k
                                         : 8);
        if (!is_run) {
            len[s] = (uint8_t)l;
            last = l;
        } else if (!zeroed) {
            for (uint32_t j = 0; j < run; j++)
                len[s + j] = 0;
        }
        s += is_run ? run : 1;
    }
    if (r.pos > end)
        return -1;
    *pos = r.pos;
    return 0;
}

/* The bytes [*from, *to) of the z-byte table that a copy holding
 * consecutive segments needs: their stream's bits [start, start + bits)
 * (after the head), the table's end too when the last segment is among
 * them; *from a multiple of 4, both clipped to the table (*from <= *to). */
static inline SCI_TABLE_HD void sci_seis_table_window(size_t head, size_t z,
                                                      size_t start,
                                                      size_t bits,
                                                      int holds_last,
                                                      size_t *from,
                                                      size_t *to) {
    size_t f = (head + start / 8) & ~(size_t)3;
    size_t t = holds_last ? z : head + (start + bits + 7) / 8;
    *from = f < z ? f : z & ~(size_t)3;
    *to = t < z ? t : z;
}

/* Segment g of the z-byte table of nsym symbols into len (its first
 * symbol's length first; `zeroed` as above), its tokens starting at bit
 * `start` of the stream (after the head) and ending at bit `end` (the
 * next segment's start) when g is not the last; the last ends in the
 * stream's last byte, whose bits after it are 0.  `bytes` holds the
 * table's bytes from `from` on, `have` of them (bytes past them read as
 * 0): a copy in faster memory of the part the segment lies in.  A segment
 * an encoder writes reads only its own bits, and one that reads past them
 * fails wherever its bits come from, so a copy that holds the segment
 * (and, for the last, the table's end) decides as the table would.  0, or
 * -1 for a table an encoder does not write (also when the head leaves no
 * stream). */
static inline SCI_TABLE_HD int sci_seis_table_read_segment_in(
    const uint8_t *bytes, size_t from, size_t have, size_t z,
    unsigned version, uint32_t g, uint32_t nsym, size_t start, size_t end,
    uint8_t *len, int zeroed) {
    const uint32_t segs = sci_seis_table_segments(nsym, version);
    const size_t head = sci_seis_table_head(nsym, version);
    if (z <= head || g >= segs || 8 * head + start < 8 * from)
        return -1;
    const uint32_t seg = sci_seis_table_seg(version);
    const uint32_t s0 = g * seg;
    const uint32_t s1 = nsym - s0 < seg ? nsym : s0 + seg;
    /* bit positions from the copy's first byte */
    size_t pos = 8 * head + start - 8 * from;
    if (sci_seis_table_segment(bytes, have, s0, s1, &pos, len, zeroed))
        return -1;
    if (g + 1 < segs)
        return pos == 8 * head + end - 8 * from ? 0 : -1;
    if (from + (pos + 7) / 8 != z)
        return -1;
    return pos % 8 && (bytes[have - 1] & (0xffu >> (pos % 8))) ? -1 : 0;
}

/* The same, read from the table itself. */
static inline SCI_TABLE_HD int sci_seis_table_read_segment(
    const uint8_t *table, size_t z, unsigned version, uint32_t g,
    uint32_t nsym, size_t start, size_t end, uint8_t *len, int zeroed) {
    return sci_seis_table_read_segment_in(table, 0, z, z, version, g, nsym,
                                          start, end, len, zeroed);
}

#endif
