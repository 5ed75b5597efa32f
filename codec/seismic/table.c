#include "table.h"

#include <string.h>

#include "table_core.h"

/* A literal takes 8 bits and every other token fewer, a run of one
 * unused symbol 4: a byte a symbol bounds the stream. */
size_t sci_seis_table_bound(uint32_t nsym, unsigned version) {
    return sci_seis_table_head(nsym, version) + nsym + 1;
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

/* Field i of the head: where segment i + 1 starts (version 4), or how
 * many bits segment i took (version 5). */
static void put_field(uint8_t *out, uint32_t i, unsigned version,
                      size_t start, size_t next) {
    const uint32_t v = (uint32_t)(version == 4 ? next : next - start);
    uint8_t *f = out + sci_seis_table_field_bytes(version) * (size_t)i;
    for (unsigned j = 0; j < sci_seis_table_field_bytes(version); j++)
        f[j] = (uint8_t)(v >> 8 * j);
}

size_t sci_seis_table_write(const uint8_t *len, uint32_t nsym,
                            unsigned version, uint8_t *out, size_t cap) {
    const uint32_t segs = sci_seis_table_segments(nsym, version);
    const uint32_t seg = sci_seis_table_seg(version);
    const size_t head = sci_seis_table_head(nsym, version);
    if (cap <= head)
        return 0;
    bit_writer w = {out + head, cap - head, 0, 0};
    memset(w.b, 0, w.cap);
    for (uint32_t g = 0; g < segs; g++) {
        const size_t start = w.bit;
        const uint32_t s1 = nsym - g * seg < seg ? nsym : (g + 1) * seg;
        unsigned last = 0;
        for (uint32_t s = g * seg; s < s1;) {
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
        if (g + 1 < segs)
            put_field(out, g, version, start, w.bit);
    }
    return w.full ? 0 : head + (w.bit + 7) / 8;
}

int sci_seis_table_read(const uint8_t *table, size_t z, uint32_t nsym,
                        unsigned version, uint8_t *len) {
    const uint32_t segs = sci_seis_table_segments(nsym, version);
    if (z <= sci_seis_table_head(nsym, version))
        return -1;
    size_t start = 0;
    for (uint32_t g = 0; g < segs; g++) {
        size_t end = 0;
        if (g + 1 < segs)
            end = version == 4 ? sci_seis_table_field(table, g, 4)
                               : start + sci_seis_table_field(table, g, 5);
        if (sci_seis_table_read_segment(table, z, version, g, nsym, start, end,
                                        len + g * sci_seis_table_seg(version),
                                        0))
            return -1;
        start = end;
    }
    return 0;
}
