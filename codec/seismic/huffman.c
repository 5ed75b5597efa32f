/*
 * Canonical length-limited Huffman codes in 64-bit packages (huffman.h).
 */
#include "huffman.h"
#include "huffman_core.h"

#include <stdlib.h>
#include <string.h>

/* An item of a package-merge level: a leaf (b < 0: leaf a of the sorted
 * leaves) or a package of items a and b of the level before. */
typedef struct {
    uint64_t w;
    int32_t a, b;
} pm_item;

typedef struct {
    uint64_t w;
    uint32_t sym;
} leaf;

static int leaf_cmp(const void *x, const void *y) {
    const leaf *p = x, *q = y;
    if (p->w != q->w)
        return p->w < q->w ? -1 : 1;
    return p->sym < q->sym ? -1 : p->sym > q->sym;
}

/* Adds one to the depth of every leaf under item i of level lev. */
static void pm_count(pm_item *const *levels, unsigned lev, int32_t i,
                     uint8_t *depth) {
    const pm_item *it = &levels[lev][i];
    if (it->b < 0) {
        depth[it->a]++;
        return;
    }
    pm_count(levels, lev - 1, it->a, depth);
    pm_count(levels, lev - 1, it->b, depth);
}

int sci_huff_lengths(const uint64_t *freq, unsigned nsym, unsigned max_len,
                     uint8_t *len) {
    if (!freq || !len || !nsym || nsym > SCI_HUFF_MAX_SYMBOLS || !max_len ||
        max_len > SCI_HUFF_MAX_LEN)
        return SCI_HUFF_E_ARG;
    unsigned m = 0;
    for (unsigned s = 0; s < nsym; s++) {
        len[s] = 0;
        m += freq[s] != 0;
    }
    if (m == 0)
        return 0;
    if ((uint64_t)m > (1ull << max_len))
        return SCI_HUFF_E_ARG;
    leaf *lv = malloc(m * sizeof *lv);
    if (!lv)
        return SCI_HUFF_E_NOMEM;
    for (unsigned s = 0, k = 0; s < nsym; s++)
        if (freq[s])
            lv[k++] = (leaf){freq[s], s};
    if (m == 1) {
        len[lv[0].sym] = 1;
        free(lv);
        return 0;
    }
    /* ties broken by symbol: the same lengths on every machine */
    qsort(lv, m, sizeof *lv, leaf_cmp);
    pm_item *levels[SCI_HUFF_MAX_LEN];
    size_t sizes[SCI_HUFF_MAX_LEN];
    int err = 0;
    unsigned made = 0;
    for (unsigned lev = 0; lev < max_len; lev++) {
        size_t np = lev ? sizes[lev - 1] / 2 : 0;
        levels[lev] = malloc((m + np) * sizeof(pm_item));
        if (!levels[lev]) {
            err = SCI_HUFF_E_NOMEM;
            break;
        }
        made++;
        /* merge the leaves and the packages of the level before, a
         * leaf first on equal weights */
        size_t i = 0, j = 0, k = 0;
        while (i < m || j < np) {
            uint64_t pw = j < np ? levels[lev - 1][2 * j].w +
                                       levels[lev - 1][2 * j + 1].w
                                 : 0;
            if (j >= np || (i < m && lv[i].w <= pw)) {
                levels[lev][k++] = (pm_item){lv[i].w, (int32_t)i, -1};
                i++;
            } else {
                levels[lev][k++] =
                    (pm_item){pw, (int32_t)(2 * j), (int32_t)(2 * j + 1)};
                j++;
            }
        }
        sizes[lev] = k;
    }
    if (!err) {
        uint8_t *depth = calloc(m, 1);
        if (!depth) {
            err = SCI_HUFF_E_NOMEM;
        } else {
            for (size_t i = 0; i < 2 * (size_t)m - 2; i++)
                pm_count(levels, max_len - 1, (int32_t)i, depth);
            for (unsigned k = 0; k < m; k++)
                len[lv[k].sym] = depth[k];
            free(depth);
        }
    }
    for (unsigned lev = 0; lev < made; lev++)
        free(levels[lev]);
    free(lv);
    return err;
}

void sci_huff_free(sci_huff_code *c) {
    if (!c)
        return;
    free(c->len);
    free(c->code);
    free(c->sorted);
    free(c->lookup);
    memset(c, 0, sizeof *c);
}

/* The next s >= from with len[s] != 0, or nsym: eight lengths a read over
 * the long runs of unused symbols of a 16-bit table. */
static unsigned next_used(const uint8_t *len, unsigned nsym, unsigned from) {
    unsigned s = from;
    while (s < nsym && (s & 7))
        if (len[s++])
            return s - 1;
    for (; s + 8 <= nsym; s += 8) {
        uint64_t w;
        memcpy(&w, len + s, 8);
        if (w)
            break;
    }
    while (s < nsym && !len[s])
        s++;
    return s;
}

/* sci_huff_build; with codes 0, len and code are left NULL. */
static int build(const uint8_t *len, unsigned nsym, sci_huff_code *c,
                 int codes) {
    memset(c, 0, sizeof *c);
    if (!len || !nsym || nsym > SCI_HUFF_MAX_SYMBOLS)
        return SCI_HUFF_E_ARG;
    uint32_t count[SCI_HUFF_MAX_LEN + 1] = {0}, used = 0;
    unsigned max_len = 0;
    for (unsigned s = next_used(len, nsym, 0); s < nsym;
         s = next_used(len, nsym, s + 1)) {
        if (len[s] > SCI_HUFF_MAX_LEN)
            return SCI_HUFF_E_DATA;
        count[len[s]]++;
        used++;
        if (len[s] > max_len)
            max_len = len[s];
    }
    if (!sci_huff_complete(count, max_len, used))
        return SCI_HUFF_E_DATA;
    c->nsym = nsym;
    c->max_len = max_len;
    if (codes) {
        c->len = malloc(nsym);
        c->code = calloc(nsym, sizeof *c->code);
    }
    c->sorted = malloc((used ? used : 1) * sizeof *c->sorted);
    c->lookup = calloc((size_t)1 << SCI_HUFF_LOOKUP_BITS, sizeof *c->lookup);
    if ((codes && (!c->len || !c->code)) || !c->sorted || !c->lookup) {
        sci_huff_free(c);
        return SCI_HUFF_E_NOMEM;
    }
    if (codes)
        memcpy(c->len, len, nsym);
    /* Each length's first code and first place in `sorted`, then one pass
     * over the symbols hands out the next of each: a pass a length would
     * read 2^16 lengths up to 24 times at 16 bits. */
    sci_huff_heads(count, max_len, c->first_code, c->first_index);
    uint32_t taken[SCI_HUFF_MAX_LEN + 1] = {0};
    for (unsigned s = next_used(len, nsym, 0); s < nsym;
         s = next_used(len, nsym, s + 1)) {
        const unsigned l = len[s];
        const uint32_t k = taken[l]++, code = c->first_code[l] + k;
        if (codes)
            c->code[s] = code;
        c->sorted[c->first_index[l] + k] = s;
        if (l <= SCI_HUFF_LOOKUP_BITS) {
            unsigned sh = SCI_HUFF_LOOKUP_BITS - l;
            for (uint32_t v = code << sh; v < (code + 1) << sh; v++)
                c->lookup[v] = s << 5 | l;
        }
    }
    return 0;
}

int sci_huff_build(const uint8_t *len, unsigned nsym, sci_huff_code *c) {
    return build(len, nsym, c, 1);
}

int sci_huff_build_decoder(const uint8_t *len, unsigned nsym,
                           sci_huff_code *c) {
    return build(len, nsym, c, 0);
}

long sci_huff_pack(const sci_huff_code *c, const uint32_t *sym, size_t n,
                   uint64_t *pkg, uint32_t *first, size_t cap) {
    size_t np = 0;
    uint64_t acc = 0;
    unsigned used = 0, count = 0;
    for (size_t i = 0; i <= n; i++) {
        unsigned l = 0;
        if (i < n) {
            if (sym[i] >= c->nsym || !(l = c->len[sym[i]]))
                return SCI_HUFF_E_ARG;
        }
        if (count && (i == n || used + l > SCI_HUFF_PACKAGE_BITS)) {
            if (np >= cap)
                return SCI_HUFF_E_ARG;
            pkg[np] = (uint64_t)count << SCI_HUFF_PACKAGE_BITS |
                      acc << (SCI_HUFF_PACKAGE_BITS - used);
            if (first)
                first[np] = (uint32_t)(i - count);
            np++;
            acc = 0;
            used = count = 0;
        }
        if (i < n) {
            acc = acc << l | c->code[sym[i]];
            used += l;
            count++;
        }
    }
    return (long)np;
}

int sci_huff_unpack(const sci_huff_code *c, uint64_t pkg, uint32_t *out) {
    const unsigned count = (unsigned)(pkg >> SCI_HUFF_PACKAGE_BITS);
    const uint64_t bits = pkg & ((1ull << SCI_HUFF_PACKAGE_BITS) - 1);
    unsigned pos = SCI_HUFF_PACKAGE_BITS; /* bits not yet read */
    if (!count || count > SCI_HUFF_PACKAGE_BITS || !c->max_len)
        return SCI_HUFF_E_DATA;
    for (unsigned k = 0; k < count; k++)
        if (!sci_huff_next(c->lookup, c->first_code, c->first_index,
                           c->sorted, c->max_len, bits, &pos, &out[k]))
            return SCI_HUFF_E_DATA;
    /* the padding is zero */
    if (pos && (bits & ((1ull << pos) - 1)))
        return SCI_HUFF_E_DATA;
    return (int)count;
}
