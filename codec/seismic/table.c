#include "table.h"

#include <string.h>

#include "table_core.h"

/* A literal takes 8 bits and every other token fewer, a run of one
 * unused symbol 4: a byte a symbol bounds the stream. */
size_t sci_seis_table_bound(uint32_t nsym) {
    return 4 * (size_t)(sci_seis_table_segments(nsym) - 1) + nsym + 1;
}

typedef struct {
    uint8_t *b;
    size_t cap, bit;
    int full;
} bit_writer;

static void put_bits(bit_writer *w, uint32_t v, unsigned k) {
    for (unsigned i = k; i-- > 0; w->bit++) {
        if (w->bit >= 8 * w->cap) {
            w->full = 1;
            return;
        }
        if (v >> i & 1)
            w->b[w->bit >> 3] |= (uint8_t)(0x80u >> (w->bit & 7));
    }
}

static unsigned bit_length(uint32_t v) {
    unsigned n = 0;
    for (; v; v >>= 1)
        n++;
    return n;
}

size_t sci_seis_table_write(const uint8_t *len, uint32_t nsym, uint8_t *out,
                            size_t cap) {
    const uint32_t segs = sci_seis_table_segments(nsym);
    const size_t head = 4 * (size_t)(segs - 1);
    if (cap <= head)
        return 0;
    bit_writer w = {out + head, cap - head, 0, 0};
    memset(w.b, 0, w.cap);
    for (uint32_t g = 0; g < segs; g++) {
        if (g) {
            uint8_t *o = out + 4 * (size_t)(g - 1);
            o[0] = (uint8_t)w.bit;
            o[1] = (uint8_t)(w.bit >> 8);
            o[2] = (uint8_t)(w.bit >> 16);
            o[3] = (uint8_t)(w.bit >> 24);
        }
        const uint32_t s1 = nsym - g * SCI_SEIS_TABLE_SEG < SCI_SEIS_TABLE_SEG
                                ? nsym
                                : (g + 1) * SCI_SEIS_TABLE_SEG;
        unsigned last = 0;
        for (uint32_t s = g * SCI_SEIS_TABLE_SEG; s < s1;) {
            const unsigned l = len[s];
            if (!l) {
                uint32_t r = 0;
                while (s < s1 && !len[s]) {
                    r++;
                    s++;
                }
                const unsigned k = bit_length(r) - 1;
                put_bits(&w, 1, 3);
                put_bits(&w, 0, k);
                put_bits(&w, r, k + 1);
                continue;
            }
            if (l == last)
                put_bits(&w, 1, 1);
            else if (l + 1 == last || l == last + 1)
                put_bits(&w, l + 1 == last ? 3 : 2, 3);
            else {
                put_bits(&w, 0, 3);
                put_bits(&w, l, 5);
            }
            last = l;
            s++;
        }
    }
    return w.full ? 0 : head + (w.bit + 7) / 8;
}

int sci_seis_table_read(const uint8_t *table, size_t z, uint32_t nsym,
                        uint8_t *len) {
    for (uint32_t g = 0; g < sci_seis_table_segments(nsym); g++)
        if (sci_seis_table_read_segment(table, z, g, nsym, len))
            return -1;
    return 0;
}
