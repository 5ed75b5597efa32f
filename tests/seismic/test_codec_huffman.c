/*
 * codec/seismic/huffman.c: length-limited code lengths against an unlimited
 * Huffman code built here independently (equal cost wherever the limit
 * does not bind, never above the limit, Kraft sum exactly 1); canonical
 * codes prefix-free; the next code read from any bits by the code's
 * definition; packages round trip, each decoding alone, in any order;
 * corrupted packages and length tables refused without a crash.
 *
 *   test-codec-huffman [--seed S]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/seismic/huffman.h"
#include "codec/seismic/huffman_core.h"
#include "tests/common/testutil.h"

/* Unlimited Huffman code lengths by repeatedly merging the two lightest
 * (O(m^2): for checking only). */
static void plain_huffman(const uint64_t *freq, unsigned n, unsigned *len) {
    unsigned m = 0;
    for (unsigned s = 0; s < n; s++)
        m += freq[s] != 0;
    uint64_t *w = malloc(2 * n * sizeof *w);
    int *parent = malloc(2 * n * sizeof *parent);
    int *alive = malloc(2 * n * sizeof *alive);
    for (unsigned s = 0; s < n; s++) {
        w[s] = freq[s];
        alive[s] = freq[s] != 0;
        parent[s] = -1;
        len[s] = 0;
    }
    unsigned nodes = n;
    for (unsigned left = m; left > 1; left--) {
        int a = -1, b = -1;
        for (unsigned i = 0; i < nodes; i++) {
            if (!alive[i])
                continue;
            if (a < 0 || w[i] < w[a]) {
                b = a;
                a = (int)i;
            } else if (b < 0 || w[i] < w[b]) {
                b = (int)i;
            }
        }
        w[nodes] = w[a] + w[b];
        alive[nodes] = 1;
        parent[nodes] = -1;
        alive[a] = alive[b] = 0;
        parent[a] = parent[b] = (int)nodes;
        nodes++;
    }
    for (unsigned s = 0; s < n; s++) {
        if (!freq[s])
            continue;
        unsigned d = 0;
        for (int p = parent[s]; p >= 0; p = parent[p])
            d++;
        len[s] = m == 1 ? 1 : d;
    }
    free(w);
    free(parent);
    free(alive);
}

static uint64_t cost(const uint64_t *freq, unsigned n, const unsigned *len8,
                     const uint8_t *len) {
    uint64_t c = 0;
    for (unsigned s = 0; s < n; s++)
        c += freq[s] * (len ? len[s] : len8[s]);
    return c;
}

static void histogram(uint64_t *freq, unsigned n, int shape) {
    for (unsigned s = 0; s < n; s++) {
        switch (shape) {
        case 0: freq[s] = 1 + rng() % 1000; break;            /* flat */
        case 1: freq[s] = (rng() % 3 ? 0 : 1 + rng() % 50); break; /* sparse */
        case 2: { /* geometric: long codes */
            unsigned k = s < 40 ? s : 40;
            freq[s] = (1ull << 40) >> k;
            break;
        }
        default: /* a quantized wavelet subband: peaked at the middle */
            freq[s] = (uint64_t)(1e6 / (1.0 + (double)((long)s - (long)n / 2) *
                                              ((long)s - (long)n / 2)));
            break;
        }
    }
}

static void test_lengths(void) {
    unsigned bad_limit = 0, bad_kraft = 0, bad_cost = 0, runs = 0;
    static const unsigned sizes[] = {1, 2, 3, 7, 64, 257, 4096, 65536};
    static const unsigned limits[] = {24, 16, 12, 9};
    for (unsigned si = 0; si < 8; si++)
        for (int shape = 0; shape < 4; shape++)
            for (unsigned li = 0; li < 4; li++) {
                unsigned n = sizes[si], L = limits[li];
                if (n > (1u << L))
                    continue;
                uint64_t *freq = malloc(n * sizeof *freq);
                uint8_t *len = malloc(n);
                unsigned *plain = malloc(n * sizeof *plain);
                histogram(freq, n, shape);
                if (sci_huff_lengths(freq, n, L, len)) {
                    bad_limit++;
                    goto next;
                }
                unsigned used = 0, maxp = 0, maxl = 0;
                double kraft = 0;
                for (unsigned s = 0; s < n; s++) {
                    used += freq[s] != 0;
                    if ((freq[s] != 0) != (len[s] != 0))
                        bad_limit++;
                    if (len[s] > L)
                        bad_limit++;
                    if (len[s] > maxl)
                        maxl = len[s];
                    if (len[s])
                        kraft += 1.0 / (double)(1ull << len[s]);
                }
                if (used >= 2 && kraft != 1.0)
                    bad_kraft++;
                if (n <= 4096) {
                    plain_huffman(freq, n, plain);
                    for (unsigned s = 0; s < n; s++)
                        if (plain[s] > maxp)
                            maxp = plain[s];
                    uint64_t cl = cost(freq, n, NULL, len),
                             cp = cost(freq, n, plain, NULL);
                    /* optimal either way; equal when the limit does not
                     * bind, never better than unlimited */
                    if (cl < cp || (maxp <= L && cl != cp))
                        bad_cost++;
                }
            next:
                runs++;
                free(freq);
                free(len);
                free(plain);
            }
    char what[200];
    snprintf(what, sizeof what,
             "lengths: %u histograms (1..65536 symbols, limits 9..24): every "
             "used symbol coded, none over the limit", runs);
    check(bad_limit == 0, what);
    check(bad_kraft == 0, "lengths: Kraft sum exactly 1 (a complete code)");
    check(bad_cost == 0, "lengths: the cost of an unlimited Huffman code "
                         "wherever the limit does not bind, never below it");
}

/* A random histogram of 1..`most` symbols (*freq, *n) for a code of at
 * most *L (12..24) bits, and room for its lengths (*len). */
static void random_histogram(unsigned most, uint64_t **freq, uint8_t **len,
                             unsigned *n, unsigned *L) {
    *n = 1 + (unsigned)(rng() % most);
    *L = 12 + (unsigned)(rng() % 13);
    if (*n > (1u << *L))
        *n = 1u << *L;
    *freq = malloc(*n * sizeof **freq);
    *len = malloc(*n);
    histogram(*freq, *n, (int)(rng() % 4));
}

/* The code of at most L bits of the histogram freq (its lengths into
 * len): 1, or 0 having freed freq and len. */
static int code_of(uint64_t *freq, uint8_t *len, unsigned n, unsigned L,
                   sci_huff_code *c) {
    if (!sci_huff_lengths(freq, n, L, len) && !sci_huff_build(len, n, c))
        return 1;
    free(freq);
    free(len);
    return 0;
}

/* sci_huff_next against the code's definition, on random bits with 0..64
 * of them left (and garbage above those): the one symbol whose code the
 * bits left start with, or none where no code fits in them. */
static void test_next(void) {
    unsigned bad = 0, runs = 0, found = 0, longer = 0;
    for (unsigned t = 0; t < 120; t++) {
        unsigned n, L;
        uint64_t *freq;
        uint8_t *len;
        random_histogram(300, &freq, &len, &n, &L);
        if (t % 2) /* geometric: codes up to the limit */
            histogram(freq, n, 2);
        sci_huff_code c;
        if (!code_of(freq, len, n, L, &c)) {
            bad++;
            continue;
        }
        for (unsigned r = 0; r < 3000; r++) {
            uint64_t bits = rng();
            const unsigned left = (unsigned)(rng() % 65);
            const unsigned pick = (unsigned)(rng() % n);
            if (r % 2 && len[pick] && left) { /* a code, or its start */
                const unsigned l = len[pick];
                const uint64_t code = l <= left ? c.code[pick]
                                                : c.code[pick] >> (l - left);
                const unsigned w = l <= left ? l : left,
                               at = left - w;
                bits = (bits & ~(((1ull << w) - 1) << at)) | code << at;
            }
            unsigned want = n, matches = 0;
            for (unsigned s = 0; s < n; s++) {
                const unsigned l = len[s];
                if (l && l <= left &&
                    ((bits >> (left - l)) & ((1ull << l) - 1)) == c.code[s]) {
                    want = s;
                    matches++;
                }
            }
            unsigned pos = left;
            uint32_t sym = 0;
            const int ok = sci_huff_next(c.lookup, c.first_code,
                                         c.first_index, c.sorted, c.max_len,
                                         bits, &pos, &sym);
            if (matches > 1 || ok != (matches == 1) ||
                (ok && (sym != want || pos != left - len[want])))
                bad++;
            found += ok;
            longer += ok && len[want] > SCI_HUFF_LOOKUP_BITS;
        }
        runs++;
        sci_huff_free(&c);
        free(freq);
        free(len);
    }
    char what[200];
    snprintf(what, sizeof what,
             "next code: %u random codes (limits 12..24), 3000 reads "
             "each: %u found a code, %u of them longer than the lookup",
             runs,
             found, longer);
    check(bad == 0 && found && longer, what);
}

/* Random streams of symbols drawn from a histogram, packed and unpacked. */
static void test_packages(void) {
    unsigned bad = 0, runs = 0, alone_bad = 0;
    for (unsigned t = 0; t < 300; t++) {
        unsigned n, L;
        uint64_t *freq;
        uint8_t *len;
        random_histogram(t % 3 ? 300 : 65536, &freq, &len, &n, &L);
        if (t % 7 == 0) { /* one used symbol */
            memset(freq, 0, n * sizeof *freq);
            freq[rng() % n] = 5;
        }
        sci_huff_code c;
        if (!code_of(freq, len, n, L, &c)) {
            bad++;
            continue;
        }
        /* every code alone decodes to its symbol */
        for (unsigned s = 0; s < n; s++) {
            uint32_t one = s, out[SCI_HUFF_PACKAGE_BITS], f;
            uint64_t w;
            if (len[s] && (sci_huff_pack(&c, &one, 1, &w, &f, 1) != 1 ||
                           sci_huff_unpack(&c, w, out) != 1 || out[0] != s))
                bad++;
        }
        size_t count = 1 + (size_t)(rng() % 20000);
        uint32_t *sym = malloc(count * 4), *back = malloc(count * 4);
        unsigned used = 0;
        uint32_t *pool = malloc(n * 4);
        for (unsigned s = 0; s < n; s++)
            if (len[s])
                pool[used++] = s;
        if (!used) { /* a sparse histogram of no symbol: nothing to send */
            sci_huff_free(&c);
            free(freq);
            free(len);
            free(sym);
            free(back);
            free(pool);
            continue;
        }
        for (size_t i = 0; i < count; i++)
            sym[i] = pool[rng() % used];
        uint64_t *pkg = malloc(count * 8);
        uint32_t *first = malloc(count * 4);
        long np = sci_huff_pack(&c, sym, count, pkg, first, count);
        /* what a decoder builds: the same tables without len and code */
        sci_huff_code d;
        if (sci_huff_build_decoder(len, n, &d) || d.len || d.code)
            bad++;
        else if (np <= 0) {
            bad++;
        } else {
            /* each package alone, last to first */
            for (long p = np - 1; p >= 0; p--) {
                uint32_t out[SCI_HUFF_PACKAGE_BITS];
                int k = sci_huff_unpack(&d, pkg[p], out);
                size_t end = p + 1 < np ? first[p + 1] : count;
                if (k <= 0 || first[p] + (size_t)k != end ||
                    memcmp(out, sym + first[p], (size_t)k * 4))
                    alone_bad++;
                else
                    memcpy(back + first[p], out, (size_t)k * 4);
            }
            if (memcmp(back, sym, count * 4))
                bad++;
            /* packages are full: the next package's first code would not
             * have fitted */
            for (long p = 0; p + 1 < np; p++) {
                unsigned bits = 0;
                for (size_t i = first[p]; i < first[p + 1]; i++)
                    bits += len[sym[i]];
                if (bits + len[sym[first[p + 1]]] <= SCI_HUFF_PACKAGE_BITS)
                    bad++;
            }
        }
        runs++;
        sci_huff_free(&c);
        sci_huff_free(&d);
        free(freq);
        free(len);
        free(sym);
        free(back);
        free(pool);
        free(pkg);
        free(first);
    }
    char what[200];
    snprintf(what, sizeof what,
             "packages: %u random streams (1 to 65536 symbols, limits "
             "12..24) round trip through the decoder's tables, every "
             "package full", runs);
    check(bad == 0, what);
    check(alone_bad == 0, "packages: each decodes alone, in any order, to "
                          "its own symbols");
}

static void test_canonical(void) {
    /* lengths 1, 2, 3, 3: codes 0, 10, 110, 111 */
    uint8_t len[5] = {2, 0, 1, 3, 3};
    sci_huff_code c;
    int ok = sci_huff_build(len, 5, &c) == 0 && c.code[2] == 0 &&
             c.code[0] == 2 && c.code[3] == 6 && c.code[4] == 7;
    sci_huff_free(&c);
    check(ok, "canonical codes: by length, then symbol, counting up");
    /* not a complete prefix code */
    uint8_t over[3] = {1, 1, 1}, under[3] = {1, 2, 0}, long_len[2] = {1, 25};
    ok = sci_huff_build(over, 3, &c) == SCI_HUFF_E_DATA &&
         sci_huff_build(under, 3, &c) == SCI_HUFF_E_DATA &&
         sci_huff_build(long_len, 2, &c) == SCI_HUFF_E_DATA;
    uint8_t two1[2] = {1, 1}, one2[2] = {0, 2};
    ok &= sci_huff_build(one2, 2, &c) == SCI_HUFF_E_DATA;
    ok &= sci_huff_build(two1, 2, &c) == 0;
    sci_huff_free(&c);
    check(ok, "length tables that are no complete prefix code are refused");
}

/* The canonical code by its definition: symbols in (length, symbol)
 * order, codes counting up, shifted left where the length grows. */
static void test_canonical_random(void) {
    unsigned bad = 0, runs = 0;
    for (unsigned t = 0; t < 200; t++) {
        unsigned n, L;
        uint64_t *freq;
        uint8_t *len;
        random_histogram(t % 2 ? 300 : 65536, &freq, &len, &n, &L);
        sci_huff_code c;
        if (sci_huff_lengths(freq, n, L, len) || sci_huff_build(len, n, &c)) {
            bad++;
        } else {
            uint32_t code = 0, prev_len = 0, k = 0;
            int first = 1;
            for (unsigned l = 1; l <= SCI_HUFF_MAX_LEN; l++)
                for (unsigned s = 0; s < n; s++) {
                    if (len[s] != l)
                        continue;
                    if (!first)
                        code = (code + 1) << (l - prev_len);
                    first = 0;
                    prev_len = l;
                    if (c.code[s] != code || c.sorted[k++] != s)
                        bad++;
                }
            sci_huff_free(&c);
            runs++;
        }
        free(freq);
        free(len);
    }
    char what[160];
    snprintf(what, sizeof what,
             "canonical codes of %u random tables (up to 65536 symbols) as "
             "defined, symbols sorted alike", runs);
    check(bad == 0, what);
}

static void test_corrupt(void) {
    uint64_t freq[300];
    uint8_t len[300];
    histogram(freq, 300, 3);
    sci_huff_code c;
    if (sci_huff_lengths(freq, 300, 16, len) || sci_huff_build(len, 300, &c)) {
        check(0, "corrupt packages: a code to test with");
        return;
    }
    unsigned refused = 0, accepted_bad = 0;
    uint32_t out[SCI_HUFF_PACKAGE_BITS];
    for (unsigned t = 0; t < 200000; t++) {
        uint64_t w = rng();
        int k = sci_huff_unpack(&c, w, out);
        if (k < 0)
            refused++;
        else if (k == 0 || (unsigned)k != (unsigned)(w >> 58))
            accepted_bad++;
        else
            for (int i = 0; i < k; i++)
                if (out[i] >= 300 || !len[out[i]])
                    accepted_bad++;
    }
    int ok = sci_huff_unpack(&c, 0, out) == SCI_HUFF_E_DATA &&
             sci_huff_unpack(&c, 63ull << 58, out) == SCI_HUFF_E_DATA;
    sci_huff_free(&c);
    char what[200];
    snprintf(what, sizeof what,
             "corrupt packages: 200000 random words (%u refused), the rest "
             "decode only to coded symbols; counts 0 and 63 refused",
             refused);
    check(ok && accepted_bad == 0 && refused > 0, what);
}

int main(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--seed"))
            rng_state = strtoull(argv[i + 1], NULL, 0);
    test_lengths();
    test_canonical();
    test_canonical_random();
    test_next();
    test_packages();
    test_corrupt();
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
