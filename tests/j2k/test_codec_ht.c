/*
 * Unit tests of the HT cleanup coder's tables and block encoder and of the
 * HTJ2K encoder's parameter checks.  Whether the streams decode is proven
 * by tests/j2k/conformance_htj2k.c with three independent decoders; here the
 * tables are checked for the properties a decoder relies on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/j2k/ht_block.h"
#include "codec/j2k/ht_tables.h"
#include "codec/j2k/htj2k.h"
#include "tests/common/testutil.h"

/* A decoder reads a CxtVLC codeword by matching up to 7 bits against the
 * rows of the quad's context: the rows of each context must form a
 * complete prefix code, and no (rho, u_off, e_k, e_1) may repeat. */
static void test_prefix_codes(const sci_ht_vlc_row *rows, unsigned n,
                              const char *name) {
    char what[128];
    for (unsigned cq = 0; cq < 8; cq++) {
        double kraft = 0;
        int prefix_free = 1, unique = 1;
        for (unsigned i = 0; i < n; i++) {
            if (rows[i].cq != cq)
                continue;
            kraft += 1.0 / (1u << rows[i].len);
            for (unsigned j = i + 1; j < n; j++) {
                if (rows[j].cq != cq)
                    continue;
                unsigned l = rows[i].len < rows[j].len ? rows[i].len : rows[j].len;
                unsigned m = (1u << l) - 1;
                if ((rows[i].cwd & m) == (rows[j].cwd & m))
                    prefix_free = 0;
                if (rows[i].rho == rows[j].rho && rows[i].u_off == rows[j].u_off &&
                    rows[i].e_k == rows[j].e_k && rows[i].e_1 == rows[j].e_1)
                    unique = 0;
            }
        }
        snprintf(what, sizeof what, "%s context %u: Kraft sum 1 (%.6f)", name, cq, kraft);
        check(kraft == 1.0, what);
        snprintf(what, sizeof what, "%s context %u: prefix-free", name, cq);
        check(prefix_free, what);
        snprintf(what, sizeof what, "%s context %u: rows unique", name, cq);
        check(unique, what);
    }
}

/* Every reachable (context, rho, emb) maps to a row that a decoder reads
 * back as the same significance, with EMB bits consistent with emb. */
static void test_lookup(const sci_ht_enc_tables *t, int which,
                        const sci_ht_vlc_row *rows, unsigned n) {
    unsigned bad = 0, count = 0;
    for (unsigned i = 0; i < 2048; i++) {
        unsigned cq = i >> 8, rho = (i >> 4) & 15, emb = i & 15;
        if ((emb & rho) != emb || (cq == 0 && rho == 0))
            continue;
        count++;
        unsigned e = t->vlc[which][i];
        unsigned cwd = e >> 8, len = (e >> 4) & 15, ek = e & 15;
        const sci_ht_vlc_row *hit = NULL;
        for (unsigned j = 0; j < n; j++)
            if (rows[j].cq == cq && rows[j].len == len && rows[j].cwd == cwd)
                hit = &rows[j];
        if (!hit || hit->rho != rho || hit->u_off != (emb != 0) || hit->e_k != ek ||
            (emb && (emb & hit->e_k) != hit->e_1))
            bad++;
    }
    char what[96];
    snprintf(what, sizeof what, "table %d: %u lookups decode back", which, count);
    check(bad == 0 && count > 0, what);
}

/* U-VLC as a decoder reads it (prefix, then suffix, then extension). */
static unsigned uvlc_decode(sci_ht_uvlc c) {
    unsigned bits = c.pre | (unsigned)c.suf << c.pre_len;
    if (bits & 1)
        return 1;
    if (bits & 2)
        return 2;
    if (bits & 4)
        return 3 + ((bits >> 3) & 1);
    unsigned suf = (bits >> 3) & 31;
    if (suf < 28)
        return 5 + suf;
    return 5 + suf + 4 * c.ext;
}

static void test_uvlc(void) {
    unsigned bad = 0;
    for (unsigned u = 1; u <= 74; u++) {
        sci_ht_uvlc c = sci_ht_uvlc_code(u);
        if (uvlc_decode(c) != u || c.pre_len > 3 || c.suf_len > 5 || c.ext_len > 4)
            bad++;
    }
    check(bad == 0, "U-VLC codes 1..74 decode back");
    sci_ht_uvlc z = sci_ht_uvlc_code(0);
    check(z.pre_len + z.suf_len + z.ext_len == 0, "U-VLC of 0 is empty");
}

static void test_block(const sci_ht_enc_tables *t) {
    static uint32_t sm[4096];
    static uint8_t out[65536];
    memset(sm, 0, sizeof sm);
    check(sci_ht_encode_block(t, sm, 64, 64, 64, out, sizeof out) == 0,
          "all-zero block codes to nothing");
    sm[4095] = 5 | SCI_HT_SIGN;
    long n = sci_ht_encode_block(t, sm, 64, 64, 64, out, sizeof out);
    check(n >= 2, "a single sample codes");
    if (n >= 2) {
        unsigned scup = ((unsigned)out[n - 1] << 4) | (out[n - 2] & 15);
        check(scup >= 2 && scup <= (unsigned)n, "Scup within the segment");
    }
    unsigned bad = 0;
    for (int trial = 0; trial < 200; trial++) {
        unsigned w = 1 + (unsigned)(rng() % 64), h = 1 + (unsigned)(rng() % 64);
        unsigned mb = 1 + (unsigned)(rng() % 30);
        unsigned density = (unsigned)(rng() % 4);
        for (unsigned i = 0; i < w * h; i++) {
            uint32_t mag = (rng() % 4) < density ? (uint32_t)(rng() % (1u << mb)) : 0;
            if (rng() % 5 == 0)
                mag = (1u << mb) - 1;
            sm[i] = mag | (mag && (rng() & 1) ? SCI_HT_SIGN : 0);
        }
        size_t cap = sci_ht_block_max_bytes((size_t)w * h, mb);
        long a = sci_ht_encode_block(t, sm, w, h, w, out, cap);
        static uint8_t again[65536];
        long b = sci_ht_encode_block(t, sm, w, h, w, again, cap);
        if (a < 0 || a != b || (a > 0 && memcmp(out, again, (size_t)a)) ||
            (size_t)a > cap)
            bad++;
        /* too small a buffer is refused, not overrun */
        if (a > 4) {
            memset(again, 0xEE, sizeof again);
            long c = sci_ht_encode_block(t, sm, w, h, w, again, (size_t)a - 3);
            if (c != -1 || again[a - 3] != 0xEE)
                bad++;
        }
    }
    check(bad == 0, "random blocks: deterministic, within bound, cap respected");
}

static void test_params(void) {
    sci_wt_geometry g;
    memset(&g, 0, sizeof g);
    g.width = 64, g.height = 48, g.components = 1, g.depth = 8;
    g.dx[0] = g.dy[0] = 1;
    g.filter = SCI_DWT_97, g.levels = 5, g.ct = SCI_CT_NONE;
    sci_htj2k_params p;
    sci_htj2k_params_default(&p);
    check(sci_htj2k_check(&g, &p) == NULL, "defaults accepted");
    p.cb_w_log2 = 11;
    check(sci_htj2k_check(&g, &p) != NULL, "block width 2048 refused");
    p.cb_w_log2 = 7, p.cb_h_log2 = 6;
    check(sci_htj2k_check(&g, &p) != NULL, "block area 8192 refused");
    p.cb_w_log2 = 10, p.cb_h_log2 = 2;
    check(sci_htj2k_check(&g, &p) == NULL, "1024x4 accepted");
    p.cb_w_log2 = 1;
    check(sci_htj2k_check(&g, &p) != NULL, "block width 2 refused");
    sci_htj2k_params_default(&p);
    p.qstep = 0;
    check(sci_htj2k_check(&g, &p) != NULL, "qstep 0 refused");
    sci_htj2k_params_default(&p);
    p.bitrate = 1;
    check(sci_htj2k_check(&g, &p) == NULL, "bitrate with 9/7 accepted");
    p.bitrate = 0.05; /* 64x48: 19 bytes, less than the headers */
    check(sci_htj2k_check(&g, &p) != NULL, "bitrate below the headers refused");
    p.bitrate = 8.5; /* above 8-bit samples */
    check(sci_htj2k_check(&g, &p) != NULL, "bitrate above the samples refused");
    p.bitrate = 8;
    check(sci_htj2k_check(&g, &p) == NULL, "bitrate at the samples accepted");
    p.bitrate = 1;
    g.filter = SCI_DWT_53;
    check(sci_htj2k_check(&g, &p) != NULL, "bitrate with 5/3 refused");
    p.bitrate = 0;
    g.width = 0;
    check(sci_htj2k_check(&g, &p) != NULL, "width 0 refused");
    g.width = 40000;
    check(sci_htj2k_check(&g, &p) != NULL, "width above 32768 refused");
    check(sci_htj2k_enc_new(&g, &p, test_pool()) == NULL, "no encoder for a refused geometry");
}

int main(int argc, char **argv) {
    if (argc > 2 && !strcmp(argv[1], "--seed"))
        rng_state = strtoull(argv[2], NULL, 0);
    test_prefix_codes(sci_ht_vlc_table0, sci_ht_vlc_table0_rows, "table 0");
    test_prefix_codes(sci_ht_vlc_table1, sci_ht_vlc_table1_rows, "table 1");
    static sci_ht_enc_tables t;
    check(sci_ht_enc_tables_init(&t) == 0, "encoder lookup builds");
    test_lookup(&t, 0, sci_ht_vlc_table0, sci_ht_vlc_table0_rows);
    test_lookup(&t, 1, sci_ht_vlc_table1, sci_ht_vlc_table1_rows);
    test_uvlc();
    test_block(&t);
    test_params();
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
