/*
 * Fuzz target of the DPCM frame decoder (codec/dpcm/dpcm.h).
 *
 * As a libFuzzer target (LLVMFuzzerTestOneInput), built with clang:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -ffp-contract=off \
 *     -DSCI_FUZZ_LIBFUZZER -I. -Itests tests/dpcm/fuzz_dpcm.c codec/dpcm/dpcm.c \
 *     codec/common/crc32.c codec/common/parallel.c -lzstd -lm -lpthread -o fuzz-dpcm && \
 *     ./fuzz-dpcm -max_total_time=60
 *
 * Each input is decoded as it is and once more with its CRC recomputed, so
 * that mutations reach the checks behind the CRC.  Frame sizes are bounded
 * (at most 2^16 pixels) to keep every run short.
 *
 * The metadata is read too, as dpcmdec reads it (its length, then the
 * bytes, decompressed where the frame stores them compressed).
 *
 * Without -DSCI_FUZZ_LIBFUZZER, main replays a fixed number of random
 * mutations of valid version-6 frames and of a version-5 one (one segment
 * or several, without metadata, with metadata stored as given and
 * compressed: bit and byte changes, insertions, deletions, truncations,
 * header field and segment table changes), half of them with the CRC
 * fixed, and
 * checks that a mutated frame whose CRC was not fixed never decodes: the
 * test 'fuzz-dpcm' of suite codec.  --iterations N, --seed S, and
 * --write-seeds DIR to leave the valid frames there as a libFuzzer corpus.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/common/crc32.h"
#include "codec/dpcm/dpcm.h"
#include "dpcm_v5_frame.h"

#define FUZZ_MAX_PIXELS (1u << 16)
#define FUZZ_MAX_BYTES (1u << 20)

static uint16_t fuzz_out[FUZZ_MAX_PIXELS];

/* The metadata of one input, as a decoder reads it (its length, then the
 * bytes into a buffer of that length); the status. */
static int fuzz_metadata(const uint8_t *data, size_t size) {
    size_t len = 0;
    int st = sci_dpcm_metadata(data, size, NULL, 0, &len);
    if (st != SCI_DPCM_OK || len == 0)
        return st;
    uint8_t *m = malloc(len);
    if (!m)
        return SCI_DPCM_E_NOMEM;
    st = sci_dpcm_metadata(data, size, m, len, &len);
    free(m);
    return st;
}

/* Decodes one input (its metadata too); returns the samples' status (1:
 * not tried, too large). */
static int fuzz_decode(const uint8_t *data, size_t size) {
    /* set even where sci_dpcm_peek fails before filling it */
    sci_dpcm_info info = {0};
    if (size > FUZZ_MAX_BYTES)
        return 1;
    int st = sci_dpcm_peek(data, size, &info);
    if (st == SCI_DPCM_OK &&
        (uint64_t)info.width * info.height > FUZZ_MAX_PIXELS)
        return 1;
    fuzz_metadata(data, size);
    return sci_dpcm_decode(NULL, data, size, fuzz_out,
                           st == SCI_DPCM_OK ? info.width : 1, FUZZ_MAX_PIXELS,
                           NULL);
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_decode(data, size);
    if (size >= SCI_DPCM_HEADER_BYTES + SCI_DPCM_TRAILER_BYTES &&
        size <= FUZZ_MAX_BYTES) {
        uint8_t *copy = malloc(size);
        if (copy) {
            memcpy(copy, data, size);
            put32(copy + size - 4, sci_crc32(0, copy, size - 4));
            fuzz_decode(copy, size);
            free(copy);
        }
    }
    return 0;
}

#ifndef SCI_FUZZ_LIBFUZZER
#include "tests/common/testutil.h"

typedef struct {
    uint8_t *bytes;
    size_t len;
    unsigned w, h;
    uint16_t *px;
    size_t table; /* the segment table's offset */
    unsigned segments;
} seed_frame;

/* A valid frame: sci_dpcm_encode's (seg_rows 0, no metadata; scanned by
 * rows or by columns) or, with seg_rows > 0 or metadata, one framed from
 * the stages with segments of seg_rows rows (0: the encoder's) and
 * meta_len bytes of metadata (by rows). */
static void make_seed(seed_frame *f, unsigned w, unsigned h, unsigned depth,
                      unsigned n, unsigned m, unsigned t, unsigned seg_rows,
                      size_t meta_len, unsigned scan) {
    uint32_t maxv = (1u << depth) - 1;
    f->w = w, f->h = h;
    f->px = malloc((size_t)w * h * sizeof *f->px);
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++) {
            uint32_t v = (uint32_t)((x * 37 + y * 11) % (maxv + 1)) / 2 +
                         (uint32_t)(rng() % 5);
            if (rng() % 40 == 0)
                v = maxv - (uint32_t)(rng() % 2);
            f->px[(size_t)y * w + x] = (uint16_t)(v > maxv ? maxv : v);
        }
    sci_dpcm_params p = {n, m, t, seg_rows || meta_len ? SCI_DPCM_SCAN_ROWS : scan};
    /* up to 64 bytes of a sequence that does not compress (stored as
     * given); more: FITS-like cards, which do (a compressed section) */
    uint8_t meta[800];
    for (size_t k = 0; k < sizeof meta; k++)
        meta[k] = (uint8_t)(k * 7 + 1);
    if (meta_len > 64) {
        for (size_t c = 0; c * 80 < sizeof meta; c++) {
            char card[81];
            snprintf(card, sizeof card, "KEY%-5u = %20u / card %-40u", (unsigned)c,
                     (unsigned)(c * 7919u), (unsigned)c);
            memcpy(meta + c * 80, card, 80);
        }
    }
    if (meta_len > sizeof meta)
        meta_len = sizeof meta;
    size_t cap = sci_dpcm_max_bytes(w, h, depth) + meta_len;
    if (!seg_rows) {
        f->bytes = malloc(cap);
        f->len = sci_dpcm_encode_meta(test_pool(), f->px, w, w, h, depth, &p, meta, meta_len,
                                      f->bytes, cap);
    } else {
        size_t count = (size_t)w * h, segs = (h + seg_rows - 1) / seg_rows;
        size_t ccap = sci_dpcm_coded_bound(w, h, seg_rows);
        int32_t *res = malloc(count * sizeof *res);
        uint32_t *sb = malloc(segs * sizeof *sb);
        int32_t lo, hi;
        size_t coded;
        uint32_t esc;
        int z = 0;
        f->bytes = malloc(SCI_DPCM_HEADER_BYTES + meta_len + 4 * segs + ccap +
                          SCI_DPCM_TRAILER_BYTES);
        size_t section = sci_dpcm_write_metadata(f->bytes, meta_len, meta,
                                                 meta_len, &z);
        size_t pre = SCI_DPCM_HEADER_BYTES + section + 4 * segs;
        f->len = 0;
        if (sci_dpcm_predict_residuals(test_pool(), f->px, w, w, h, depth, n, m, res, NULL) == 0) {
            sci_dpcm_thresholds(res, count, depth, t, &lo, &hi);
            if (sci_dpcm_code_residuals(test_pool(), res, w, h, depth, lo, hi, seg_rows,
                                        f->bytes + pre, ccap, sb, &coded,
                                        &esc) == 0) {
                sci_dpcm_write_header(f->bytes, w, h, depth, &p, lo, hi, esc,
                                      seg_rows, coded, section, z, sb);
                f->len = sci_dpcm_finish_frame(f->bytes, pre + coded);
            }
        }
        free(res);
        free(sb);
    }
    sci_dpcm_info info;
    f->table = SCI_DPCM_HEADER_BYTES;
    f->segments = 0;
    if (f->len && sci_dpcm_peek(f->bytes, f->len, &info) == SCI_DPCM_OK) {
        f->table = info.table_offset;
        f->segments = info.segments;
    }
}

int main(int argc, char **argv) {
    unsigned iterations = 100000;
    const char *seed_dir = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--iterations"))
            iterations = (unsigned)strtoul(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--seed"))
            rng_state = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--write-seeds"))
            seed_dir = argv[i + 1];
    }
    seed_frame seeds[13];
    make_seed(&seeds[0], 16, 12, 16, 11, 7, 13, 0, 0, SCI_DPCM_SCAN_ROWS);
    make_seed(&seeds[1], 9, 5, 8, 3, 2, 2, 0, 0, SCI_DPCM_SCAN_ROWS);
    make_seed(&seeds[2], 1, 10, 12, 1, 1, 0, 0, 0, SCI_DPCM_SCAN_ROWS);
    make_seed(&seeds[3], 30, 4, 16, 16, 8, 1, 0, 0, SCI_DPCM_SCAN_ROWS);
    make_seed(&seeds[4], 7, 7, 1, 2, 3, 1, 0, 0, SCI_DPCM_SCAN_ROWS);
    make_seed(&seeds[5], 20, 20, 16, 11, 7, 0, 0, 0, SCI_DPCM_SCAN_ROWS);
    /* several segments (the encoder cuts only frames above 4096 pixels) */
    make_seed(&seeds[6], 16, 12, 16, 11, 7, 13, 3, 0, SCI_DPCM_SCAN_ROWS);
    make_seed(&seeds[7], 11, 9, 8, 4, 4, 2, 1, 0, SCI_DPCM_SCAN_ROWS);
    /* metadata, with segments and without */
    make_seed(&seeds[8], 12, 10, 16, 11, 7, 3, 4, 23, SCI_DPCM_SCAN_ROWS);
    /* scanned by columns, several segments of the transposed frame */
    make_seed(&seeds[9], 70, 90, 16, 11, 7, 13, 0, 0, SCI_DPCM_SCAN_COLUMNS);
    /* compressed metadata (FITS-like cards), one segment and several */
    make_seed(&seeds[10], 10, 8, 16, 11, 7, 13, 0, 800, SCI_DPCM_SCAN_ROWS);
    make_seed(&seeds[11], 12, 10, 16, 4, 4, 0, 3, 400, SCI_DPCM_SCAN_ROWS);
    /* a frame of the version-5 encoder, with dpcmenc's records */
    {
        seed_frame *f = &seeds[12];
        sci_dpcm_info info;
        f->len = sizeof dpcm_v5_frame;
        f->bytes = malloc(f->len);
        memcpy(f->bytes, dpcm_v5_frame, f->len);
        f->w = DPCM_V5_W, f->h = DPCM_V5_H;
        f->px = malloc((size_t)f->w * f->h * sizeof *f->px);
        for (unsigned y = 0; y < f->h; y++)
            for (unsigned x = 0; x < f->w; x++)
                f->px[y * f->w + x] = dpcm_v5_sample(x, y);
        f->table = SCI_DPCM_HEADER_BYTES;
        f->segments = 0;
        if (sci_dpcm_peek(f->bytes, f->len, &info) == SCI_DPCM_OK) {
            f->table = info.table_offset;
            f->segments = info.segments;
        }
    }
    unsigned nseeds = sizeof seeds / sizeof *seeds;
    for (unsigned i = 0; seed_dir && i < nseeds; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/seed%u.dpcm", seed_dir, i);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(seeds[i].bytes, 1, seeds[i].len, f);
            fclose(f);
        }
    }
    for (unsigned i = 0; i < nseeds; i++) {
        int st = seeds[i].len ? fuzz_decode(seeds[i].bytes, seeds[i].len) : -99;
        check(st == SCI_DPCM_OK && seeds[i].bytes[4] == (i == 12 ? 5 : SCI_DPCM_VERSION) &&
                  seeds[i].segments > 0 &&
                  fuzz_metadata(seeds[i].bytes, seeds[i].len) == SCI_DPCM_OK &&
                  !memcmp(fuzz_out, seeds[i].px, (size_t)seeds[i].w * seeds[i].h * 2),
              "seed frame round trip");
    }
    check(!(seeds[8].bytes[44] & SCI_DPCM_FLAG_META_ZSTD) &&
              (seeds[10].bytes[44] & SCI_DPCM_FLAG_META_ZSTD) &&
              (seeds[11].bytes[44] & SCI_DPCM_FLAG_META_ZSTD),
          "seed frames: metadata as given and compressed");
    check(seeds[6].segments == 4 && seeds[7].segments == 9 &&
              seeds[8].segments == 3 && seeds[8].table == SCI_DPCM_HEADER_BYTES + 23,
          "seed frames: several segments, metadata");
    static uint8_t buf[1 << 16];
    unsigned count[32] = {0}, undetected = 0, fixed_ok = 0;
    for (unsigned it = 0; it < iterations; it++) {
        const seed_frame *s = &seeds[rng() % nseeds];
        size_t len = s->len;
        memcpy(buf, s->bytes, len);
        unsigned muts = 1 + (unsigned)(rng() % 4);
        for (unsigned k = 0; k < muts && len > 0; k++) {
            size_t pos = (size_t)(rng() % len);
            switch (rng() % 10) {
            case 0: buf[pos] ^= (uint8_t)(1u << (rng() % 8)); break;
            case 1: buf[pos] = (uint8_t)rng(); break;
            case 2: /* header field */
                buf[(size_t)(rng() % SCI_DPCM_HEADER_BYTES)] = (uint8_t)rng();
                break;
            case 3: len = pos; break; /* truncate */
            case 4: /* insert a byte */
                if (len + 1 < sizeof buf) {
                    memmove(buf + pos + 1, buf + pos, len - pos);
                    buf[pos] = (uint8_t)rng();
                    len++;
                }
                break;
            case 5: /* delete a byte */
                memmove(buf + pos, buf + pos + 1, len - pos - 1);
                len--;
                break;
            case 6: /* interesting values in a 32-bit field, often one of
                     * the header's E, R, C, L (offsets 28, 32, 36, 40) */
                if (rng() & 1)
                    pos = 28 + 4 * (size_t)(rng() % 4);
                if (pos + 4 <= len) {
                    static const uint32_t v[] = {0, 1, 6, 0x7FFFFFFF, 0x80000000u,
                                                 0xFFFFFFFFu, 65535, 65536, 1u << 28};
                    put32(buf + pos, v[rng() % 9]);
                }
                break;
            case 7: /* a segment count: a little more or less, or moved */
            case 8: {
                size_t e = s->table + 4 * (size_t)(rng() % (s->segments + !s->segments));
                if (s->segments && e + 4 <= len) {
                    uint32_t c = (uint32_t)buf[e] | (uint32_t)buf[e + 1] << 8 |
                                 (uint32_t)buf[e + 2] << 16 | (uint32_t)buf[e + 3] << 24;
                    int32_t d = (int32_t)(rng() % 7) - 3;
                    put32(buf + e, c + (uint32_t)d);
                    /* the other way in the next one: the sum kept */
                    if (rng() & 1 && e + 8 <= len && e + 8 <= s->table + 4 * s->segments) {
                        c = (uint32_t)buf[e + 4] | (uint32_t)buf[e + 5] << 8 |
                            (uint32_t)buf[e + 6] << 16 | (uint32_t)buf[e + 7] << 24;
                        put32(buf + e + 4, c - (uint32_t)d);
                    }
                }
                break;
            }
            default: buf[pos] ^= 0xFF; break;
            }
        }
        int same = len == s->len && !memcmp(buf, s->bytes, len);
        int fix = (rng() & 1) && len >= 8;
        if (fix)
            put32(buf + len - 4, sci_crc32(0, buf, len - 4));
        int st = fuzz_decode(buf, len);
        if (st <= 0 && -st < 32)
            count[-st]++;
        if (st == SCI_DPCM_OK && !same) {
            if (fix)
                fixed_ok++;
            else
                undetected++;
        }
    }
    char what[128];
    snprintf(what, sizeof what, "%u mutated frames: none decoded without a CRC fix-up",
             iterations);
    check(undetected == 0, what);
    printf("outcomes of %u mutations:\n", iterations);
    for (int c = 0; c < 32; c++)
        if (count[c])
            printf("  %-45s %u\n", sci_dpcm_error_string(-c), count[c]);
    printf("  decoded after a CRC fix-up (other samples): %u\n", fixed_ok);
    for (unsigned i = 0; i < nseeds; i++) {
        free(seeds[i].bytes);
        free(seeds[i].px);
    }
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
#endif
