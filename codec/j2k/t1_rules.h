/*
 * Rules of Tier-1 that the C coders (codec/j2k/t1_ctx.h) and the GPU coder
 * (cuda/j2k/t1.cu) share, so that they are written once: the zero coding
 * label of Table D.1 and which passes are raw and which end a codeword
 * segment (Table D.9).  Under nvcc the functions are for host and device.
 */
#ifndef SCI_CODEC_T1_RULES_H
#define SCI_CODEC_T1_RULES_H

#include "t1.h"

#ifdef __CUDACC__
#define SCI_T1_FN static inline __host__ __device__
#else
#define SCI_T1_FN static inline
#endif

/* Table D.1: the zero coding label from the counts of significant
 * horizontal (0..2), vertical (0..2) and diagonal (0..4) neighbours.  LL
 * and LH favour horizontal neighbours, HL the vertical ones (the table with
 * h and v swapped), HH the diagonals. */
SCI_T1_FN unsigned t1_zc_label(unsigned band, unsigned h, unsigned v, unsigned d) {
    if (band == SCI_T1_HL) {
        unsigned t = h;
        h = v;
        v = t;
    }
    if (band != SCI_T1_HH) {
        if (h == 2)
            return 8;
        if (h == 1)
            return v ? 7 : d ? 6 : 5;
        if (v)
            return v == 2 ? 4 : 3;
        return d >= 2 ? 2 : d;
    }
    unsigned hv = h + v;
    if (d >= 3)
        return 8;
    if (d == 2)
        return hv ? 7 : 6;
    if (d == 1)
        return hv >= 2 ? 5 : hv ? 4 : 3;
    return hv >= 2 ? 2 : hv;
}

/* Kind of pass n (0-based): 0 significance propagation, 1 magnitude
 * refinement, 2 cleanup; pass 0 is the cleanup of the top plane. */
SCI_T1_FN unsigned t1_pass_kind(unsigned n) {
    return n == 0 ? 2 : (n - 1) % 3;
}

/* Bypass: the significance and refinement passes from the fifth coded
 * bit-plane on (pass 10 on) are raw. */
SCI_T1_FN int t1_pass_raw(unsigned style, unsigned n) {
    return (style & SCI_T1_BYPASS) && n >= 10 && t1_pass_kind(n) != 2;
}

/* Whether pass n of `passes` ends a codeword segment: the last pass;
 * every pass under TERMALL; under BYPASS the cleanup of the fourth plane
 * (pass 9, before the first raw pass) and then every refinement (end of a
 * raw segment) and cleanup pass (an MQ segment before a raw one). */
SCI_T1_FN int t1_pass_term(unsigned style, unsigned n, unsigned passes) {
    if (n + 1 >= passes || (style & SCI_T1_TERMALL))
        return 1;
    return (style & SCI_T1_BYPASS) && n >= 9 && t1_pass_kind(n) != 0;
}

#endif
