/*
 * Canonical, length-limited Huffman codes in independent 64-bit packages,
 * the entropy stage of the seismic codec (Castelar Mora, UIS 2015).
 *
 * Code: from a histogram of up to SCI_HUFF_MAX_SYMBOLS symbols, code
 * lengths of at most `max_len` bits minimising the coded size (package-
 * merge), then canonical codes: symbols sorted by (length, symbol), codes
 * counting up, so the lengths alone describe the code.  A symbol that
 * never occurs gets no code; a histogram with one used symbol gives it a
 * 1-bit code.
 *
 * Packages: the code stream is cut into 64-bit words, each holding a whole
 * number of codes: bits 63..58 the count of symbols in it (1..58), bits
 * 57..0 their codes, the first symbol's code from bit 57 down, unused low
 * bits 0.  With the index of each package's first symbol, every package
 * decodes alone: a thread a package.
 *
 * Decoding is table-driven: a first-level table of 2^SCI_HUFF_LOOKUP_BITS
 * entries gives the symbol and length of every code that short; longer
 * codes go through the canonical first-code-of-each-length limits.
 */
#ifndef SCI_CODEC_HUFFMAN_H
#define SCI_CODEC_HUFFMAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2^16 indices and the seismic codec's zero-run classes */
#define SCI_HUFF_MAX_SYMBOLS (65536u + 16u)
#define SCI_HUFF_MAX_LEN 24u      /* the longest code allowed */
#define SCI_HUFF_PACKAGE_BITS 58u /* code bits a package */
#define SCI_HUFF_LOOKUP_BITS 11u

enum {
    SCI_HUFF_E_ARG = -1,   /* sizes out of range */
    SCI_HUFF_E_NOMEM = -2,
    SCI_HUFF_E_DATA = -3   /* a code, package or length table no encoder
                            * writes */
};

/* A canonical code: len[s] (0: no code) and code[s] for each symbol, and
 * what a decoder needs. */
typedef struct {
    unsigned nsym, max_len;
    uint8_t *len;   /* nsym */
    uint32_t *code; /* nsym */
    /* decoding: symbols in canonical order, the first code and the index
     * of the first symbol of each length, and the lookup table (symbol <<
     * 5 | length, 0 where the prefix starts a longer code) */
    uint32_t *sorted;
    uint32_t first_code[SCI_HUFF_MAX_LEN + 2];
    uint32_t first_index[SCI_HUFF_MAX_LEN + 2];
    uint32_t *lookup; /* 2^SCI_HUFF_LOOKUP_BITS */
} sci_huff_code;

/* Code lengths of at most max_len bits (1..SCI_HUFF_MAX_LEN, with 2^max_len
 * >= the symbols used) for the histogram freq[0..nsym-1] into len: 0, or
 * SCI_HUFF_E_ARG / E_NOMEM. */
int sci_huff_lengths(const uint64_t *freq, unsigned nsym, unsigned max_len,
                     uint8_t *len);

/* The canonical code of the lengths len[0..nsym-1] (as sci_huff_lengths
 * makes them, or as a stream carries them: then checked, E_DATA when they
 * are no prefix code that fills the code space or a single 1-bit code).
 * Free with sci_huff_free. */
int sci_huff_build(const uint8_t *len, unsigned nsym, sci_huff_code *c);
void sci_huff_free(sci_huff_code *c);

/* sci_huff_build with only what sci_huff_unpack reads: len and code stay
 * NULL (a decoder of 2^16 symbols is spared their 320 KB). */
int sci_huff_build_decoder(const uint8_t *len, unsigned nsym,
                           sci_huff_code *c);

/* Packages of the symbols sym[0..n-1] (each with a code) into pkg (room for
 * cap words) and, when first is not NULL, the index of each one's first
 * symbol into first (cap entries; a decoder can also sum the counts).  Returns the number of packages, or E_ARG when a symbol has no
 * code or the room runs out.  n symbols take at most n packages. */
long sci_huff_pack(const sci_huff_code *c, const uint32_t *sym, size_t n,
                   uint64_t *pkg, uint32_t *first, size_t cap);

/* Decodes one package into out (room for SCI_HUFF_PACKAGE_BITS symbols):
 * the number of symbols, or E_DATA when the package is not one an encoder
 * writes (a count of 0, codes that do not fill it, nonzero padding). */
int sci_huff_unpack(const sci_huff_code *c, uint64_t pkg, uint32_t *out);

#ifdef __cplusplus
}
#endif

#endif
