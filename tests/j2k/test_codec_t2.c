/*
 * Tier-2 header bits and tag trees (codec/j2k/t2_bits.h): hand-worked bytes,
 * then round trips through a decoder written here from B.10.1 and B.10.2
 * on random trees and random bit strings; then the library's own reading
 * side (what the decoder's tier-2 uses) against its writing side: tag
 * trees, and bits, pass counts (Table B.4) and Lblock increments mixed in
 * random headers.
 *
 *   test-codec-t2 [--seed N]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/j2k/j2k_t2.h"
#include "codec/j2k/t2_bits.h"
#include "tests/common/testutil.h"

/* ---- a reader following B.10.1 ---------------------------------------- */

typedef struct {
    const uint8_t *buf;
    size_t len, pos;
    unsigned bit;  /* next bit within buf[pos], counted from the top */
} reader;

static void reader_init(reader *r, const uint8_t *buf, size_t len) {
    r->buf = buf;
    r->len = len;
    r->pos = 0;
    r->bit = 0;
}

static int read_bit(reader *r) {
    if (r->pos >= r->len)
        return -1;
    /* a byte after 0xFF starts with a stuffed 0 */
    if (r->bit == 0 && r->pos > 0 && r->buf[r->pos - 1] == 0xFF) {
        if (r->buf[r->pos] & 0x80)
            return -2;
        r->bit = 1;
    }
    int v = (r->buf[r->pos] >> (7 - r->bit)) & 1;
    if (++r->bit == 8) {
        r->bit = 0;
        r->pos++;
    }
    return v;
}

static void test_bits(void) {
    uint8_t buf[16];
    sci_t2_bits b;
    size_t n;

    sci_t2_bits_init(&b, buf, sizeof(buf));
    sci_t2_bits_put(&b, 0xFF, 8);
    sci_t2_bits_put(&b, 1, 1);
    n = sci_t2_bits_finish(&b);
    check(n == 2 && buf[0] == 0xFF && buf[1] == 0x40,
          "bits: FF then 1 -> FF 40 (stuffed zero first)");

    sci_t2_bits_init(&b, buf, sizeof(buf));
    sci_t2_bits_put(&b, 0xFF, 8);
    n = sci_t2_bits_finish(&b);
    check(n == 2 && buf[0] == 0xFF && buf[1] == 0x00,
          "bits: header ending in FF gets 00");

    sci_t2_bits_init(&b, buf, sizeof(buf));
    sci_t2_bits_put(&b, 0x7FFF, 15);
    n = sci_t2_bits_finish(&b);
    check(n == 2 && buf[0] == 0xFF && buf[1] == 0x7F,
          "bits: 15 ones -> FF 7F (7 bits after FF)");

    sci_t2_bits_init(&b, buf, sizeof(buf));
    sci_t2_bits_put(&b, 0x5, 3);
    n = sci_t2_bits_finish(&b);
    check(n == 1 && buf[0] == 0xA0, "bits: 101 -> A0");

    sci_t2_bits_init(&b, buf, 1);
    sci_t2_bits_put(&b, 0xFFFF, 16);
    check(sci_t2_bits_finish(&b) == 0 && b.overflow, "bits: overflow reported");

    /* random strings, biased to ones so that FF bytes are common */
    int ok = 1;
    for (int round = 0; round < 2000 && ok; round++) {
        static uint8_t big[4096];
        uint8_t bits[2000];
        unsigned nb = (unsigned)(rng() % 2000);
        for (unsigned i = 0; i < nb; i++)
            bits[i] = (rng() % 8) != 0;
        sci_t2_bits_init(&b, big, sizeof(big));
        for (unsigned i = 0; i < nb; i++)
            sci_t2_bits_put(&b, bits[i], 1);
        n = sci_t2_bits_finish(&b);
        reader r;
        reader_init(&r, big, n);
        for (unsigned i = 0; i < nb && ok; i++)
            ok = read_bit(&r) == bits[i];
        /* no marker-like pair anywhere */
        for (size_t i = 0; i + 1 < n && ok; i++)
            ok = !(big[i] == 0xFF && big[i + 1] > 0x8F);
        ok = ok && (n == 0 || big[n - 1] != 0xFF);
    }
    check(ok, "bits: random strings read back, no marker codes");
}

/* ---- a tag tree decoder following B.10.2 ------------------------------- */

typedef struct {
    sci_tagtree shape;  /* only the geometry is used */
    int32_t *low, *value;
    uint8_t *known;
} tt_decoder;

static int tt_decode(tt_decoder *d, reader *r, uint32_t x, uint32_t y,
                     int32_t threshold) {
    const sci_tagtree *t = &d->shape;
    int32_t low = 0;
    size_t n = 0;
    for (unsigned k = t->levels; k-- > 0;) {
        n = t->base[k] + (size_t)(y >> k) * t->lw[k] + (x >> k);
        if (d->low[n] < low)
            d->low[n] = low;
        while (!d->known[n] && d->low[n] < threshold) {
            int bit = read_bit(r);
            if (bit < 0)
                return -1;
            if (bit) {
                d->known[n] = 1;
                d->value[n] = d->low[n];
            } else {
                d->low[n]++;
            }
        }
        low = d->low[n];
    }
    return d->known[n] && d->value[n] < threshold;
}

static void test_tagtree(void) {
    /* worked by hand: leaves [2 1], root 1; leaf 0 against 3 sends the root
     * (0 1) then the leaf (0 1); leaf 1 only 1 */
    sci_tagtree t;
    uint8_t buf[64];
    sci_t2_bits b;
    check(sci_tagtree_init(&t, 2, 1) == 0 && t.levels == 2, "tag tree 2x1");
    sci_tagtree_set(&t, 0, 0, 2);
    sci_tagtree_set(&t, 1, 0, 1);
    sci_tagtree_build(&t);
    sci_t2_bits_init(&b, buf, sizeof(buf));
    sci_tagtree_encode(&t, &b, 0, 0, 3);
    sci_tagtree_encode(&t, &b, 1, 0, 3);
    size_t n = sci_t2_bits_finish(&b);
    check(n == 1 && buf[0] == 0x58, "tag tree [2 1]: 01011 -> 58");
    /* a second pass learns nothing new and sends nothing */
    sci_t2_bits_init(&b, buf, sizeof(buf));
    sci_tagtree_encode(&t, &b, 0, 0, 3);
    sci_tagtree_encode(&t, &b, 1, 0, 3);
    check(sci_t2_bits_finish(&b) == 0, "tag tree: nothing resent");
    sci_tagtree_free(&t);

    /* random trees coded as layers are: thresholds 1, 2, ... per leaf in
     * raster order, then a final pass to a large threshold */
    int ok = 1;
    for (int round = 0; round < 300 && ok; round++) {
        uint32_t w = 1 + (uint32_t)(rng() % 23), h = 1 + (uint32_t)(rng() % 17);
        int32_t maxv = (int32_t)(rng() % 12);
        if (sci_tagtree_init(&t, w, h)) {
            ok = 0;
            break;
        }
        int32_t *vals = malloc(w * h * sizeof(*vals));
        for (uint32_t i = 0; i < w * h; i++) {
            vals[i] = (int32_t)(rng() % (uint64_t)(maxv + 1));
            sci_tagtree_set(&t, i % w, i / w, vals[i]);
        }
        sci_tagtree_build(&t);
        tt_decoder d = {.shape = t};
        d.low = calloc(t.nodes, sizeof(*d.low));
        d.value = calloc(t.nodes, sizeof(*d.value));
        d.known = calloc(t.nodes, 1);
        /* the library's decoder (j2k_t2.c's) reads the same bytes */
        int32_t *lib_low = calloc(t.nodes, sizeof(*lib_low));
        int32_t *lib_val = malloc(t.nodes * sizeof(*lib_val));
        for (size_t i = 0; i < t.nodes; i++)
            lib_val[i] = INT32_MAX;
        size_t cap = 64 + t.nodes * 40;
        uint8_t *big = malloc(cap);
        for (int32_t th = 1; th <= maxv + 2 && ok; th++) {
            int32_t use = th == maxv + 2 ? 1000 : th;
            sci_t2_bits_init(&b, big, cap);
            for (uint32_t i = 0; i < w * h; i++)
                sci_tagtree_encode(&t, &b, i % w, i / w, use);
            n = sci_t2_bits_finish(&b);
            reader r;
            reader_init(&r, big, n);
            for (uint32_t i = 0; i < w * h && ok; i++) {
                int below = tt_decode(&d, &r, i % w, i / w, use);
                ok = below == (vals[i] < use);
            }
            sci_t2_rd lr;
            sci_t2_rd_init(&lr, big, n, 0);
            for (uint32_t i = 0; i < w * h && ok; i++) {
                int below = sci_tagtree_decode(&lr, lib_low, lib_val, w, h,
                                               i % w, i / w, use);
                ok = below == (vals[i] < use) && !lr.over;
            }
        }
        for (uint32_t i = 0; i < w * h && ok; i++)
            ok = d.known[i] && d.value[i] == vals[i] && lib_val[i] == vals[i];
        free(lib_low);
        free(lib_val);
        free(big);
        free(d.low);
        free(d.value);
        free(d.known);
        free(vals);
        sci_tagtree_free(&t);
    }
    check(ok, "tag tree: random trees decode, layer by layer (both "
          "decoders)");
}


/* ---- the library's reader against its writer ---------------------------- */

static void test_shared_reader(void) {
    /* pass counts: every value, hand-checked codes at the edges */
    uint8_t buf[64];
    sci_t2_bits b;
    sci_t2_bits_init(&b, buf, sizeof(buf));
    sci_t2_put_passes(&b, 37);
    size_t n = sci_t2_bits_finish(&b);
    check(n == 3 && buf[0] == 0xFF && buf[1] == 0x40 && buf[2] == 0x00,
          "passes: 37 -> 1111 11111 0000000 -> FF 40 00 (7 bits after FF)");
    int ok = 1;
    for (unsigned v = 1; v <= 164 && ok; v++) {
        sci_t2_bits_init(&b, buf, sizeof(buf));
        sci_t2_put_passes(&b, v);
        sci_t2_bits_put(&b, 1, 1);
        n = sci_t2_bits_finish(&b);
        sci_t2_rd r;
        sci_t2_rd_init(&r, buf, n, 0);
        ok = sci_t2_get_passes(&r) == v && sci_t2_rd_bit(&r) == 1 && !r.over;
    }
    check(ok, "passes: 1..164 read back");

    /* random headers: a mix of fields, FF bytes common, read back with
     * the alignment ending each one */
    ok = 1;
    static uint8_t big[1 << 16];
    for (int round = 0; round < 500 && ok; round++) {
        enum { F_BITS, F_PASSES, F_LBLOCK, F_TREE };
        struct field {
            int kind;
            uint32_t v;
            unsigned n;
        } f[200];
        unsigned nf = 1 + (unsigned)(rng() % 200);
        size_t start = (size_t)(rng() % 4);
        memset(big, 0xAA, start);
        sci_t2_bits_init(&b, big + start, sizeof(big) - start);
        for (unsigned i = 0; i < nf; i++) {
            f[i].kind = (int)(rng() % 3);
            switch (f[i].kind) {
            case F_BITS:
                f[i].n = 1 + (unsigned)(rng() % 32);
                f[i].v = (uint32_t)rng() | (rng() % 2 ? 0xFFFFFF00u : 0);
                if (f[i].n < 32)
                    f[i].v &= (1u << f[i].n) - 1;
                sci_t2_bits_put(&b, f[i].v, f[i].n);
                break;
            case F_PASSES:
                f[i].v = 1 + (uint32_t)(rng() % 164);
                sci_t2_put_passes(&b, f[i].v);
                break;
            default:
                f[i].v = (uint32_t)(rng() % 30);
                sci_t2_put_lblock_inc(&b, f[i].v);
                break;
            }
        }
        n = sci_t2_bits_finish(&b);
        big[start + n] = 0x55; /* what follows the header */
        sci_t2_rd r;
        sci_t2_rd_init(&r, big, start + n + 1, start);
        for (unsigned i = 0; i < nf && ok; i++) {
            switch (f[i].kind) {
            case F_BITS:
                ok = sci_t2_rd_bits(&r, f[i].n) == f[i].v;
                break;
            case F_PASSES:
                ok = sci_t2_get_passes(&r) == f[i].v;
                break;
            default: {
                unsigned lb = 3;
                ok = sci_t2_get_lblock_inc(&r, &lb, 3 + 29) == 0 &&
                     lb == 3 + f[i].v;
                break;
            }
            }
        }
        sci_t2_rd_align(&r);
        ok = ok && !r.over && r.pos == start + n && big[r.pos] == 0x55;
    }
    check(ok, "reader: random headers of bits, pass counts and Lblock "
          "increments read back, aligned to their end");
}

/* The HT one-pass entry, packed into one put where it fits, against its
 * fields put one by one: a 0 (one pass), Lblock - 3 ones and a 0, the
 * length in Lblock bits (Lblock at least 3). */
static void test_ht_entry(void) {
    int ok = 1;
    for (int round = 0; round < 20000 && ok; round++) {
        unsigned pre = (unsigned)(rng() % 58);
        uint64_t pre_v = rng() & ((UINT64_C(1) << pre) - 1);
        unsigned lbits = (unsigned)(rng() % 33);
        uint64_t len = lbits ? rng() & ((UINT64_C(1) << lbits) - 1) : 0;
        uint8_t a[64], b[64];
        sci_t2_bits wa, wb;
        sci_t2_bits_init(&wa, a, sizeof a);
        sci_j2k_t2_put_ht_single(&wa, pre_v, pre, len);
        size_t na = sci_t2_bits_finish(&wa);
        sci_t2_bits_init(&wb, b, sizeof b);
        for (unsigned i = pre; i-- > 0;)
            sci_t2_bits_put(&wb, pre_v >> i & 1, 1);
        unsigned lblock = sci_t2_bit_len(len) > 3 ? sci_t2_bit_len(len) : 3;
        sci_t2_bits_put(&wb, 0, 1);
        for (unsigned i = 3; i < lblock; i++)
            sci_t2_bits_put(&wb, 1, 1);
        sci_t2_bits_put(&wb, 0, 1);
        for (unsigned i = lblock; i-- > 0;)
            sci_t2_bits_put(&wb, len >> i & 1, 1);
        size_t nb = sci_t2_bits_finish(&wb);
        ok = na == nb && na && !memcmp(a, b, na);
    }
    check(ok, "HT one-pass entry: packed bits equal the fields put one by "
          "one (both sides of the 57-bit limit)");
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0);
    printf("seed %llu\n", (unsigned long long)rng_state);
    test_bits();
    test_tagtree();
    test_shared_reader();
    test_ht_entry();
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
