/*
 * Fuzz target of envisrc's ENVI header parser (elements/envi/gstenviheader.c).
 *
 * As a libFuzzer target (LLVMFuzzerTestOneInput), built with clang:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DSCI_FUZZ_LIBFUZZER \
 *     tests/envi/fuzz_envi_header.c elements/envi/gstenviheader.c \
 *     $(pkg-config --cflags --libs glib-2.0) -o fuzz-envi-header &&
 *   ./fuzz-envi-header -max_total_time=60
 *
 * Without -DSCI_FUZZ_LIBFUZZER, main replays a fixed number of random
 * mutations of valid headers (byte changes, insertions of the characters
 * the grammar turns on, deletions, truncations, duplicated and dropped
 * lines) and checks what the parser promises: a refusal always comes with
 * a reason and an acceptance without one, and every valid seed is accepted
 * with its own values: the test 'fuzz-envi-header' of suite codec.
 * --iterations N, --seed S.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elements/envi/gstenviheader.h"

/* Parses one input; 1 accepted, 0 refused, -1 a broken promise. */
static int fuzz_parse(const char *data, size_t size) {
    gchar *text = g_strndup(data, size); /* stops at a NUL, as a file read
                                          * into a string would */
    GstEnviHeader h;
    gchar *why = NULL;
    int r;
    memset(&h, 0, sizeof h);
    if (gst_envi_header_parse(text, &h, &why))
        r = why == NULL ? 1 : -1;
    else
        r = why != NULL && why[0] ? 0 : -1;
    g_free(why);
    g_free(text);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (fuzz_parse((const char *)data, size) < 0)
        abort();
    return 0;
}

#ifndef SCI_FUZZ_LIBFUZZER
#include "tests/common/testutil.h"

static const char *const seeds[] = {
    "ENVI\ndescription = {Indian Pines (AVIRIS, 1992), 145 x 145 x 224, "
    "normalized to [0,1] per the source; BIP float32}\nsamples = 145\n"
    "lines = 145\nbands = 224\nheader offset = 0\nfile type = ENVI "
    "Standard\ndata type = 4\ninterleave = bip\nbyte order = 0\n",
    "ENVI\r\nsamples = 3\r\nlines = 5\r\nbands = 7\r\ndata type = 12\r\n"
    "interleave = bsq\r\nbyte order = 1\r\nheader offset = 128\r\n",
    "\xef\xbb\xbf" "ENVI\nsamples=1\nlines=1\nbands=1\ndata type=1\n"
    "wavelength = {\n 400.0, 410.0,\n 420.0}\nband names = {a, b,\n c}\n"
    "interleave = BIL\n",
    "ENVI\nSAMPLES = 17\nLines   =   13\nbands = 29\ndata  type = 2\n"
    "map info = {UTM, 1, 1, 0.5, 0.5, 30, 30, 13, North}\n",
};
static const int seed_values[][4] = {
    {145, 145, 224, 4}, {3, 5, 7, 12}, {1, 1, 1, 1}, {17, 13, 29, 2}};

static size_t mutate(char *buf, size_t len, size_t cap) {
    static const char special[] = "={}\n\r -0123456789ENVI\t,";
    unsigned n = 1 + (unsigned)(rng() % 4);
    for (unsigned k = 0; k < n; k++) {
        size_t at = len ? (size_t)(rng() % len) : 0;
        switch (rng() % 7) {
        case 0: /* flip a byte */
            if (len)
                buf[at] ^= (char)(1u << (rng() % 8));
            break;
        case 1: /* a character the grammar turns on */
            if (len)
                buf[at] = special[rng() % (sizeof special - 1)];
            break;
        case 2: /* insert one */
            if (len + 1 < cap) {
                memmove(buf + at + 1, buf + at, len - at);
                buf[at] = special[rng() % (sizeof special - 1)];
                len++;
            }
            break;
        case 3: /* delete a run */
            if (len) {
                size_t run = 1 + (size_t)(rng() % 8);
                if (run > len - at)
                    run = len - at;
                memmove(buf + at, buf + at + run, len - at - run);
                len -= run;
            }
            break;
        case 4: /* truncate */
            len = at;
            break;
        case 5: /* duplicate a run */
            if (len) {
                size_t run = 1 + (size_t)(rng() % 40);
                if (run > len - at)
                    run = len - at;
                if (len + run < cap) {
                    memmove(buf + at + run, buf + at, len - at);
                    len += run;
                }
            }
            break;
        default: /* huge or negative numbers */
            if (len + 24 < cap) {
                const char *num = rng() & 1 ? "99999999999999999999999"
                                            : "-1";
                size_t nl = strlen(num);
                memmove(buf + at + nl, buf + at, len - at);
                memcpy(buf + at, num, nl);
                len += nl;
            }
            break;
        }
    }
    return len;
}

int main(int argc, char **argv) {
    unsigned iterations = 200000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--iterations"))
            iterations = (unsigned)strtoul(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--seed"))
            rng_state = strtoull(argv[i + 1], NULL, 0);
    }
    const unsigned nseeds = sizeof seeds / sizeof *seeds;
    int seeds_ok = 1;
    for (unsigned s = 0; s < nseeds; s++) {
        GstEnviHeader h;
        gchar *why = NULL;
        memset(&h, 0, sizeof h);
        if (!gst_envi_header_parse(seeds[s], &h, &why) ||
            h.samples != seed_values[s][0] || h.lines != seed_values[s][1] ||
            h.bands != seed_values[s][2] ||
            h.data_type != seed_values[s][3]) {
            printf("seed %u: %s\n", s, why ? why : "wrong values");
            seeds_ok = 0;
        }
        g_free(why);
    }
    check(seeds_ok, "valid headers (lists over lines, CRLF, a BOM, odd "
                    "spacing and case) parse to their values");
    enum { CAP = 4096 };
    static char buf[CAP];
    unsigned broken = 0, accepted = 0;
    for (unsigned it = 0; it < iterations; it++) {
        const char *seed = seeds[rng() % nseeds];
        size_t len = strlen(seed);
        memcpy(buf, seed, len);
        len = mutate(buf, len, CAP);
        int r = fuzz_parse(buf, len);
        broken += r < 0;
        accepted += r > 0;
    }
    char what[200];
    snprintf(what, sizeof what,
             "%u mutated headers (%u still accepted): every refusal has a "
             "reason, no crash", iterations, accepted);
    check(broken == 0, what);
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
#endif
