/*
 * Fuzz target of the HT block decoder (codec/j2k/ht_dec.h).
 *
 * As a libFuzzer target (LLVMFuzzerTestOneInput), built with clang:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DSCI_FUZZ_LIBFUZZER \
 *     -I. tests/j2k/fuzz_ht_dec.c codec/j2k/ht_dec.c codec/j2k/ht_block.c \
 *     codec/j2k/ht_tables.c codec/j2k/ht_vlc_table.c -o fuzz-ht-dec && \
 *     ./fuzz-ht-dec -max_total_time=60 CORPUS
 *
 * An input is 8 header bytes and the segments:
 *   bytes 0-2  w - 1 (10 bits) and h - 1 (10 bits), little-endian packed;
 *              an area above 4096 shrinks h to 4096 / w
 *   byte 3     M_b = 1 + byte % 30
 *   byte 4     missing MSBs Z = byte % M_b
 *   byte 5     passes = byte & 3 (lowered to 1 where p = 0), style = byte
 *              & 0x08 (VCAUSAL)
 *   bytes 6-7  Lcup, little-endian, at most what follows
 *   then       Lcup bytes of cleanup segment, the rest refinement segment.
 * Each segment is copied into a buffer of exactly its size, so that a
 * sanitizer sees any read past either end.  Every input is decoded twice
 * (the results must agree: no state may leak between calls) and every
 * decoded magnitude must lie below 2^M_b; a breach aborts.
 *
 * Without -DSCI_FUZZ_LIBFUZZER, main replays random mutations of valid
 * blocks (cleanup only and with refinement passes; bit and byte changes,
 * truncations, Scup and Lcup changes, swapped segments, wrong M_b, Z, size
 * or style): the test 'fuzz-ht-dec' of suite codec.  --iterations N,
 * --seed S, and --write-seeds DIR to leave the valid inputs there as a
 * libFuzzer corpus.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/j2k/ht_block.h"
#include "codec/j2k/ht_dec.h"

#define FUZZ_HEADER 8

static sci_ht_dec_tables fuzz_tables;
static int fuzz_tables_ready;
static uint32_t fuzz_out[2][4096];

/* Decodes one input; returns the decoder's status, or 1 if the input is
 * too short to say anything. */
static int fuzz_decode(const uint8_t *data, size_t size) {
    if (!fuzz_tables_ready) {
        if (sci_ht_dec_tables_init(&fuzz_tables) < 0)
            abort();
        fuzz_tables_ready = 1;
    }
    if (size < FUZZ_HEADER)
        return 1;
    sci_ht_dec_params p;
    p.w = 1 + (data[0] | (unsigned)(data[1] & 3) << 8);
    p.h = 1 + (data[1] >> 2 | (unsigned)(data[2] & 15) << 6);
    if (p.w * p.h > 4096)
        p.h = 4096 / p.w;
    p.mb = 1 + data[3] % 30;
    p.zbp = data[4] % p.mb;
    p.passes = data[5] & 3;
    if (p.passes > 1 && p.mb - 1 - p.zbp == 0)
        p.passes = 1;
    p.style = data[5] & SCI_HT_STYLE_VCAUSAL;
    size_t rest = size - FUZZ_HEADER;
    size_t lcup = data[6] | (size_t)data[7] << 8;
    if (lcup > rest)
        lcup = rest;
    size_t lref = rest - lcup;
    uint8_t *cup = lcup ? malloc(lcup) : NULL, *ref = lref ? malloc(lref) : NULL;
    if ((lcup && !cup) || (lref && !ref))
        abort();
    if (lcup)
        memcpy(cup, data + FUZZ_HEADER, lcup);
    if (lref)
        memcpy(ref, data + FUZZ_HEADER + lcup, lref);
    int st[2];
    for (int k = 0; k < 2; k++) {
        memset(fuzz_out[k], 0xA5, sizeof fuzz_out[k]);
        st[k] = sci_ht_decode_block(&fuzz_tables, cup, lcup, ref, lref, &p,
                                    fuzz_out[k], p.w);
    }
    size_t n = (size_t)p.w * p.h;
    if (st[0] != st[1] || memcmp(fuzz_out[0], fuzz_out[1], n * sizeof(uint32_t)))
        abort();
    if (st[0] != SCI_HT_DEC_EARG)
        for (size_t i = 0; i < n; i++)
            if ((fuzz_out[0][i] & 0x7FFFFFFFu) >> p.mb ||
                fuzz_out[0][i] == SCI_HT_SIGN)
                abort();
    free(cup);
    free(ref);
    return st[0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_decode(data, size);
    return 0;
}

#ifndef SCI_FUZZ_LIBFUZZER
#include "tests/common/testutil.h"

typedef struct {
    uint8_t *bytes;
    size_t len;
    unsigned w, h, mb, zbp, passes, style;
    uint32_t sm[4096]; /* the decoded block the input must give */
} seed_block;

static void put_header(uint8_t *b, unsigned w, unsigned h, unsigned mb,
                       unsigned zbp, unsigned passes, unsigned style,
                       size_t lcup) {
    unsigned w1 = w - 1, h1 = h - 1;
    b[0] = (uint8_t)w1;
    b[1] = (uint8_t)(w1 >> 8 | (h1 & 63) << 2);
    b[2] = (uint8_t)(h1 >> 6);
    b[3] = (uint8_t)(mb - 1);
    b[4] = (uint8_t)zbp;
    b[5] = (uint8_t)(passes | style);
    b[6] = (uint8_t)lcup;
    b[7] = (uint8_t)(lcup >> 8);
}

/* A block with magnitudes of every bit length up to mb, a fraction
 * `zeros` of them zero; coded at plane p (p = 0: cleanup only). */
static void make_seed(seed_block *s, const sci_ht_enc_tables *t, unsigned w,
                      unsigned h, unsigned mb, unsigned p, unsigned style,
                      unsigned zeros) {
    static uint32_t src[4096];
    static uint8_t buf[65536];
    for (unsigned i = 0; i < w * h; i++) {
        unsigned l = (unsigned)(rng() % (mb + 1));
        uint32_t m = l ? ((uint32_t)rng() & ((1u << l) - 1)) | 1u << (l - 1) : 0;
        if (rng() % 100 < zeros)
            m = 0;
        src[i] = m | (m && rng() % 2 ? SCI_HT_SIGN : 0);
    }
    /* the first sample large, so the cleanup pass codes something */
    src[0] = (1u << (mb - 1)) | (src[0] & SCI_HT_SIGN);
    s->w = w, s->h = h, s->mb = mb, s->style = style;
    long n;
    sci_ht_ref_lengths len = {0, 0, 0};
    if (p == 0) {
        n = sci_ht_encode_block(t, src, w, h, w, buf, sizeof buf);
        len.cup = n > 0 ? (size_t)n : 0;
        s->passes = 1;
    } else {
        n = sci_ht_encode_block_ref(t, src, w, h, w, p, style, buf, sizeof buf,
                                    &len);
        s->passes = 3;
    }
    s->zbp = mb - 1 - p;
    if (n <= 0) {
        fprintf(stderr, "seed block not coded\n");
        exit(1);
    }
    s->len = FUZZ_HEADER + (size_t)n;
    s->bytes = malloc(s->len);
    put_header(s->bytes, w, h, mb, s->zbp, s->passes, style, len.cup);
    memcpy(s->bytes + FUZZ_HEADER, buf, (size_t)n);
    /* what cleanup (and MagRef) must give; SigProp's finds come from the
     * decoder itself, checked once below against the valid input */
    for (unsigned i = 0; i < w * h; i++) {
        uint32_t m = src[i] & ~SCI_HT_SIGN;
        unsigned lsb = p ? p - 1 : 0;
        s->sm[i] = m >> p ? (m >> lsb << lsb) | (src[i] & SCI_HT_SIGN) : 0;
    }
}

int main(int argc, char **argv) {
    unsigned iterations = 30000;
    const char *seed_dir = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--iterations"))
            iterations = (unsigned)strtoul(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--seed"))
            rng_state = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--write-seeds"))
            seed_dir = argv[i + 1];
    }
    static sci_ht_enc_tables enc;
    if (sci_ht_enc_tables_init(&enc) < 0)
        return 1;
    static seed_block seeds[10];
    make_seed(&seeds[0], &enc, 16, 16, 8, 0, 0, 30);
    make_seed(&seeds[1], &enc, 64, 64, 12, 0, 0, 10);
    make_seed(&seeds[2], &enc, 3, 5, 30, 0, 0, 0);
    make_seed(&seeds[3], &enc, 1, 37, 5, 0, 0, 50);
    make_seed(&seeds[4], &enc, 37, 1, 16, 0, 0, 90);
    make_seed(&seeds[5], &enc, 32, 32, 10, 3, 0, 40);
    make_seed(&seeds[6], &enc, 17, 9, 20, 7, SCI_HT_STYLE_VCAUSAL, 60);
    make_seed(&seeds[7], &enc, 8, 64, 6, 1, 0, 20);
    make_seed(&seeds[8], &enc, 128, 4, 9, 2, SCI_HT_STYLE_VCAUSAL, 70);
    make_seed(&seeds[9], &enc, 2, 2, 1, 0, 0, 0);
    unsigned nseeds = sizeof seeds / sizeof *seeds;
    for (unsigned i = 0; seed_dir && i < nseeds; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/seed%u.ht", seed_dir, i);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(seeds[i].bytes, 1, seeds[i].len, f);
            fclose(f);
        }
    }
    for (unsigned i = 0; i < nseeds; i++) {
        const seed_block *s = &seeds[i];
        int st = fuzz_decode(s->bytes, s->len);
        unsigned bad = 0, half = s->passes == 3 ? 1u << (s->mb - 2 - s->zbp) : 0;
        for (unsigned k = 0; k < s->w * s->h; k++) {
            uint32_t got = fuzz_out[0][k];
            /* a zero of the cleanup pass may come back as SigProp's half */
            if (got != s->sm[k] && !(s->sm[k] == 0 && (got & 0x7FFFFFFFu) == half))
                bad++;
        }
        check(st == SCI_HT_DEC_OK && bad == 0, "seed block decodes back");
    }

    static uint8_t buf[70000];
    unsigned status[8] = {0};
    for (unsigned it = 0; it < iterations; it++) {
        const seed_block *s = &seeds[rng() % nseeds];
        size_t len = s->len;
        memcpy(buf, s->bytes, len);
        size_t lcup = buf[6] | (size_t)buf[7] << 8;
        unsigned muts = 1 + (unsigned)(rng() % 4);
        for (unsigned k = 0; k < muts; k++) {
            size_t body = len - FUZZ_HEADER;
            size_t pos = FUZZ_HEADER + (body ? (size_t)(rng() % body) : 0);
            switch (rng() % 12) {
            case 0: /* bit flip */
                if (body)
                    buf[pos] ^= (uint8_t)(1u << (rng() % 8));
                break;
            case 1: /* byte */
                if (body)
                    buf[pos] = (uint8_t)rng();
                break;
            case 2: /* truncated input */
                len = FUZZ_HEADER + (body ? (size_t)(rng() % body) : 0);
                break;
            case 3: /* Scup: the last two bytes of the cleanup segment */
                if (lcup >= 2 && FUZZ_HEADER + lcup <= len) {
                    unsigned scup = (unsigned)(rng() % 4096);
                    buf[FUZZ_HEADER + lcup - 1] = (uint8_t)(scup >> 4);
                    buf[FUZZ_HEADER + lcup - 2] =
                        (uint8_t)((buf[FUZZ_HEADER + lcup - 2] & 0xF0) | (scup & 15));
                }
                break;
            case 4: /* Lcup off by a little or a lot */
                lcup = (rng() % 2 ? lcup + (size_t)(rng() % 9) - 4 : (size_t)rng()) & 0xFFFF;
                buf[6] = (uint8_t)lcup, buf[7] = (uint8_t)(lcup >> 8);
                break;
            case 5: /* M_b, Z */
                buf[3 + rng() % 2] = (uint8_t)rng();
                break;
            case 6: /* passes, style */
                buf[5] = (uint8_t)rng();
                break;
            case 7: /* size */
                buf[rng() % 3] = (uint8_t)rng();
                break;
            case 8: /* a run of 0xFF or 0x00 */
                for (size_t j = pos; j < len && j < pos + 1 + rng() % 16; j++)
                    buf[j] = rng() % 2 ? 0xFF : 0x00;
                break;
            case 9: /* cleanup cut short in its middle (MagSgn lost) */
                if (lcup > 4 && FUZZ_HEADER + lcup <= len) {
                    size_t cut = 1 + (size_t)(rng() % (lcup / 2));
                    memmove(buf + FUZZ_HEADER, buf + FUZZ_HEADER + cut, len - FUZZ_HEADER - cut);
                    len -= cut;
                    lcup -= cut;
                    buf[6] = (uint8_t)lcup, buf[7] = (uint8_t)(lcup >> 8);
                }
                break;
            case 10: /* bytes inserted */
                if (len + 8 < sizeof buf) {
                    unsigned n = 1 + (unsigned)(rng() % 8);
                    memmove(buf + pos + n, buf + pos, len - pos);
                    for (unsigned j = 0; j < n; j++)
                        buf[pos + j] = (uint8_t)rng();
                    len += n;
                }
                break;
            default: /* a random tail for the refinement segment */
                if (len + 64 < sizeof buf) {
                    unsigned n = (unsigned)(rng() % 64);
                    for (unsigned j = 0; j < n; j++)
                        buf[len + j] = (uint8_t)rng();
                    len += n;
                }
                break;
            }
        }
        int st = fuzz_decode(buf, len);
        status[st == 1 ? 7 : -st < 7 ? -st : 7]++;
    }
    printf("%u mutated blocks: ok %u, bad arguments %u, Scup %u, VLC %u, "
           "MagSgn %u, MEL %u, magnitude %u\n", iterations, status[0],
           status[1], status[2], status[3], status[4], status[5], status[6]);
    /* The mutations must reach the checks they can reach: the header is
     * always made valid (no bad arguments), and MEL overruns need crafted
     * segments (tests/j2k/test_codec_ht_dec.c has one). */
    check(status[0] && status[2] && status[3] && status[4] && status[6],
          "mutations reach the decoder's outcomes");
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
#endif
