/*
 * Arrays that grow by doubling to the largest request and are kept: the
 * decoders' per-frame tables, so that a stream of frames of one size
 * allocates nothing once warm.
 */
#ifndef SCI_CODEC_COMMON_GROW_H
#define SCI_CODEC_COMMON_GROW_H

#include <stdlib.h>

/* Room for `need` elements of `elem` bytes at *p (capacity *cap, in
 * elements, doubled from `first`); the contents are kept.  0, or -1 when
 * memory runs out (*p and *cap then unchanged). */
static inline int sci_grow(void **p, size_t *cap, size_t need, size_t elem,
                           size_t first) {
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : first;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

#endif
