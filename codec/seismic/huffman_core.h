/*
 * The canonical code's rules that codec/seismic/huffman.c and the GPU
 * decoder (cuda/seismic/seismic.cu, which builds a frame's tables on the
 * device) both compile, so the two cannot drift apart: whether a table of
 * code lengths is a code a decoder accepts, where each length's codes and
 * symbols start, and how a package's next code is read.
 */
#ifndef SCI_CODEC_HUFFMAN_CORE_H
#define SCI_CODEC_HUFFMAN_CORE_H

#include <stdint.h>

#include "huffman.h"

#if defined(__CUDACC__)
#define SCI_HUFF_HD __host__ __device__
#else
#define SCI_HUFF_HD
#endif

/* count[l]: how many of the `used` symbols have a code of l bits (1 ..
 * max_len).  Accepted: no symbol, a complete prefix code (Kraft sum
 * exactly 1), or one symbol with a 1-bit code. */
static inline SCI_HUFF_HD int sci_huff_complete(const uint32_t *count,
                                                unsigned max_len,
                                                uint32_t used) {
    uint64_t kraft = 0;
    for (unsigned l = 1; l <= max_len; l++)
        kraft += (uint64_t)count[l] << (max_len - l);
    return !used || kraft == 1ull << max_len || (used == 1 && count[1] == 1);
}

/* For l = 1 .. SCI_HUFF_MAX_LEN + 1: the first code of length l and the
 * place of its first symbol in canonical order (past max_len, where the
 * codes and symbols end). */
static inline SCI_HUFF_HD void sci_huff_heads(const uint32_t *count,
                                              unsigned max_len,
                                              uint32_t *first_code,
                                              uint32_t *first_index) {
    uint32_t next = 0, idx = 0;
    for (unsigned l = 1; l <= SCI_HUFF_MAX_LEN + 1; l++) {
        first_code[l] = next;
        first_index[l] = idx;
        if (l > max_len)
            continue;
        next = (next + count[l]) << 1;
        idx += count[l];
    }
}

/* The symbol whose code starts below bit *pos (bits not yet read) of a
 * package's code bits: the lookup table's entry (symbol << 5 | length, 0
 * where the code is longer) for a short code, else the canonical limits.
 * Sets *sym, moves *pos past the code and returns 1; 0 when no code of at
 * most max_len bits fits in what is left.
 *
 * A longer code's length is counted, not searched: in a canonical code a
 * code is longer than l bits exactly when its first l + 1 bits are at
 * least first_code[l + 1] (the code space doubles from one length to the
 * next), so its length is lb + 1 plus how many of the lengths lb + 1 ..
 * max_len - 1 it is longer than.  The tests do not depend on each other:
 * the lanes of a GPU warp that meet long codes take them in step, where a
 * search length by length had each wait on its own chain of loads. */
static inline SCI_HUFF_HD int sci_huff_next(const uint32_t *lookup,
                                            const uint32_t *first_code,
                                            const uint32_t *first_index,
                                            const uint32_t *sorted,
                                            unsigned max_len, uint64_t bits,
                                            unsigned *pos, uint32_t *sym) {
    const unsigned lb = SCI_HUFF_LOOKUP_BITS, ml = SCI_HUFF_MAX_LEN,
                   p = *pos;
    const uint32_t v = (uint32_t)(p >= lb ? bits >> (p - lb)
                                          : bits << (lb - p)) &
                       ((1u << lb) - 1);
    const uint32_t e = lookup[v];
    unsigned l = e & 31;
    if (l) {
        if (l > p)
            return 0;
        *sym = e >> 5;
        *pos = p - l;
        return 1;
    }
    /* the next ml bits, zeros past what is left: a code of at most p bits
     * is found the same */
    const uint32_t top = (uint32_t)(p >= ml ? bits >> (p - ml)
                                            : bits << (ml - p)) &
                         ((1u << ml) - 1);
    l = lb + 1;
    for (unsigned k = lb + 1; k < ml; k++)
        l += k < max_len && (top >> (ml - 1 - k)) >= first_code[k + 1];
    if (l > max_len || l > p)
        return 0;
    const uint32_t code = top >> (ml - l), off = code - first_code[l];
    if (code < first_code[l] || off >= first_index[l + 1] - first_index[l])
        return 0;
    *sym = sorted[first_index[l] + off];
    *pos = p - l;
    return 1;
}

#endif
