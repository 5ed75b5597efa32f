/*
 * Packet header bits and tag trees (see t2_bits.h).
 */
#include "t2_bits.h"

#include <stdlib.h>

void sci_t2_bits_init(sci_t2_bits *b, uint8_t *buf, size_t cap) {
    b->buf = buf;
    b->cap = cap;
    b->len = 0;
    b->acc = 0;
    b->room = 8;
    b->used = 0;
    b->overflow = 0;
}

static void emit_byte(sci_t2_bits *b, unsigned byte) {
    if (b->len < b->cap)
        b->buf[b->len++] = (uint8_t)byte;
    else
        b->overflow = 1;
    /* B.10.1: a 0xFF is followed by a byte whose top bit is a stuffed 0 */
    b->room = byte == 0xFF ? 7 : 8;
}

void sci_t2_bits_put(sci_t2_bits *b, uint64_t v, unsigned n) {
    if (n < 64)
        v &= (UINT64_C(1) << n) - 1;
    b->acc = (b->acc << n) | v;
    b->used += n;
    while (b->used >= b->room) {
        b->used -= b->room;
        emit_byte(b, (unsigned)(b->acc >> b->used) & ((1u << b->room) - 1));
    }
}

void sci_t2_bits_run(sci_t2_bits *b, unsigned bit, unsigned n) {
    for (; n > 32; n -= 32)
        sci_t2_bits_put(b, bit ? 0xFFFFFFFFu : 0, 32);
    sci_t2_bits_put(b, bit ? (UINT64_C(1) << n) - 1 : 0, n);
}

size_t sci_t2_bits_finish(sci_t2_bits *b) {
    if (b->used) {
        emit_byte(b, (unsigned)(b->acc << (b->room - b->used)) &
                         ((1u << b->room) - 1));
        b->used = 0;
    }
    if (b->room == 7) /* the header ended on 0xFF */
        emit_byte(b, 0x00);
    return b->overflow ? 0 : b->len;
}

int sci_tagtree_init(sci_tagtree *t, uint32_t w, uint32_t h) {
    t->w = w;
    t->h = h;
    t->nodes = 0;
    t->levels = 0;
    for (;;) {
        t->lw[t->levels] = w;
        t->lh[t->levels] = h;
        t->base[t->levels] = t->nodes;
        t->nodes += (size_t)w * h;
        t->levels++;
        if (w == 1 && h == 1)
            break;
        w = (w + 1) / 2;
        h = (h + 1) / 2;
    }
    t->value = malloc(t->nodes * sizeof(*t->value));
    t->low = malloc(t->nodes * sizeof(*t->low));
    t->known = malloc(t->nodes);
    if (!t->value || !t->low || !t->known) {
        sci_tagtree_free(t);
        return -1;
    }
    return 0;
}

void sci_tagtree_free(sci_tagtree *t) {
    free(t->value);
    free(t->low);
    free(t->known);
    t->value = t->low = NULL;
    t->known = NULL;
}

void sci_tagtree_set(sci_tagtree *t, uint32_t x, uint32_t y, int32_t v) {
    t->value[(size_t)y * t->w + x] = v;
}

void sci_tagtree_refresh(sci_tagtree *t) {
    for (unsigned l = 1; l < t->levels; l++) {
        const int32_t *below = t->value + t->base[l - 1];
        int32_t *here = t->value + t->base[l];
        uint32_t bw = t->lw[l - 1], bh = t->lh[l - 1];
        for (uint32_t y = 0; y < t->lh[l]; y++)
            for (uint32_t x = 0; x < t->lw[l]; x++) {
                int32_t m = INT32_MAX;
                for (uint32_t dy = 0; dy < 2 && 2 * y + dy < bh; dy++)
                    for (uint32_t dx = 0; dx < 2 && 2 * x + dx < bw; dx++) {
                        int32_t v = below[(size_t)(2 * y + dy) * bw + 2 * x + dx];
                        m = v < m ? v : m;
                    }
                here[(size_t)y * t->lw[l] + x] = m;
            }
    }
}

void sci_tagtree_build(sci_tagtree *t) {
    sci_tagtree_refresh(t);
    for (size_t i = 0; i < t->nodes; i++) {
        t->low[i] = 0;
        t->known[i] = 0;
    }
}

/* B.10.2: from the root down to the leaf, each node's value is sent as a
 * run of 0 bits (one per unit it exceeds what the decoder knows) ended by
 * a 1 when it is reached, but only up to the threshold; a child starts
 * from its parent's bound, as its value cannot be smaller. */
void sci_tagtree_encode(sci_tagtree *t, sci_t2_bits *b, uint32_t x,
                        uint32_t y, int32_t threshold) {
    size_t path[32];
    for (unsigned l = 0; l < t->levels; l++)
        path[l] = t->base[l] + (size_t)(y >> l) * t->lw[l] + (x >> l);
    int32_t low = 0;
    for (unsigned k = t->levels; k-- > 0;) {
        size_t n = path[k];
        if (t->low[n] < low)
            t->low[n] = low;
        while (t->low[n] < threshold) {
            if (t->low[n] >= t->value[n]) {
                if (!t->known[n]) {
                    sci_t2_bits_put(b, 1, 1);
                    t->known[n] = 1;
                }
                break;
            }
            sci_t2_bits_put(b, 0, 1);
            t->low[n]++;
        }
        low = t->low[n];
    }
}

int sci_tagtree_decode(sci_t2_rd *b, int32_t *low, int32_t *val, uint32_t w,
                       uint32_t h, uint32_t x, uint32_t y, int32_t threshold) {
    /* A node's value is found only after its parent's (a child reads bits
     * only once the parent's bound is below the threshold, which needs the
     * parent found), and is never below it.  So the nodes found are the
     * top of the tree, where the walk down from the root reads nothing and
     * leaves each bound at the node's value: the walk starts below the
     * lowest node on the leaf's path that is found, from its value. */
    size_t path[34];
    unsigned n = 0;
    size_t base = 0;
    int32_t lo = 0;
    for (;;) {
        size_t i = base + (size_t)y * w + x;
        if (val[i] != INT32_MAX) {
            lo = val[i];
            break;
        }
        path[n++] = i;
        if (w <= 1 && h <= 1)
            break;
        base += (size_t)w * h;
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        x /= 2;
        y /= 2;
    }
    if (n == 0)
        return lo < threshold;
    while (n--) {
        size_t i = path[n];
        if (lo > low[i])
            low[i] = lo;
        else
            lo = low[i];
        while (lo < threshold && lo < val[i]) {
            if (sci_t2_rd_bit(b))
                val[i] = lo;
            else
                lo++;
            if (b->over)
                return 0;
        }
        low[i] = lo;
    }
    return val[path[0]] < threshold;
}

/* Table B.4: 0 (1 pass), 10 (2), 11xx (3-5), 1111 xxxxx (6-36), 1111
 * 11111 xxxxxxx (37-164). */
void sci_t2_put_passes(sci_t2_bits *w, unsigned n) {
    if (n == 1)
        sci_t2_bits_put(w, 0, 1);
    else if (n == 2)
        sci_t2_bits_put(w, 2, 2);
    else if (n <= 5)
        sci_t2_bits_put(w, (3u << 2) | (n - 3), 4);
    else if (n <= 36)
        sci_t2_bits_put(w, (15u << 5) | (n - 6), 9);
    else
        sci_t2_bits_put(w, (511u << 7) | (n - 37), 16);
}

unsigned sci_t2_get_passes(sci_t2_rd *b) {
    if (!sci_t2_rd_bit(b))
        return 1;
    if (!sci_t2_rd_bit(b))
        return 2;
    unsigned v = sci_t2_rd_bits(b, 2);
    if (v < 3)
        return 3 + v;
    v = sci_t2_rd_bits(b, 5);
    if (v < 31)
        return 6 + v;
    return 37 + sci_t2_rd_bits(b, 7);
}
