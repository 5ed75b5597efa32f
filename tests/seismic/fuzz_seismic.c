/*
 * Fuzz target of the seismic frame decoder (codec/seismic/seismic.h) as seismicdec
 * runs it: sci_seis_frame_length on the 48-byte header (the stream
 * splitter), sci_seis_parse, sci_seis_decode.
 *
 * As a libFuzzer target (LLVMFuzzerTestOneInput), built with clang:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -ffp-contract=off \
 *     -DSCI_FUZZ_LIBFUZZER -I. tests/seismic/fuzz_seismic.c codec/seismic/seismic.c \
 *     codec/seismic/huffman.c codec/seismic/table.c codec/j2k/dwt.c codec/common/crc32.c \
 *     codec/common/parallel.c -lzstd -lm -lpthread -o fuzz-seismic && \
 *     ./fuzz-seismic -max_total_time=60
 *
 * Each input is decoded as it is and once more with both CRCs recomputed
 * (the header's, bytes 44..47 over bytes 0..43, then the frame's, its last
 * 4 bytes over everything before them), so that mutations reach the checks
 * behind the CRCs.  Frames are bounded (at most 2^16 values, 1 MiB) to keep
 * every run short.  Beyond not crashing, the decoder's answers must agree
 * with one another: the splitter's length is the parser's, a header the
 * splitter refuses is refused by the parser with the same code, and
 * decoding the indices alone fails exactly when decoding the gather does.
 *
 * With -DSCI_FUZZ_SEIS_GPU (the test 'fuzz-seismic-gpu-emu', built with
 * cuda/seismic/seismic.cu for the host, tests/seismic/seismic_emu.cpp) each
 * frame the reference decodes or refuses is also decoded by the GPU
 * decoder (sci_cuda_seis_decode), which must refuse it alike or give the
 * same indices and gather bit for bit; its host side (code lengths,
 * staging) and its kernels' per-thread code (tables, first indices,
 * packages, inverse DWT) then see every mutation.  As a libFuzzer target,
 * with F = -g -O1 -fsanitize=fuzzer-no-link,address,undefined
 * -ffp-contract=off -I. -Ibuild -I/usr/local/cuda/include:
 *
 *   clang $F -DSCI_FUZZ_LIBFUZZER -DSCI_FUZZ_SEIS_GPU -c
 *     tests/seismic/fuzz_seismic.c; clang $F -c tests/common/cuda_emu.c;
 *   clang++ $F -std=c++17 -c tests/seismic/seismic_emu.cpp
 *     tests/j2k/dwt_emu.cpp tests/common/error_emu.cpp;
 *   clang++ -fsanitize=fuzzer,address,undefined *.o
 *     build/codec/libscicodec-codec.a -lzstd -lm -lpthread -fopenmp
 *
 * Without -DSCI_FUZZ_LIBFUZZER, main replays a number of random mutations
 * (bit and byte flips, insertions, deletions, truncations, header field
 * changes, package changes: counts moved between packages, code bits
 * flipped, packages swapped, zeroed or repeated; code table changes) of
 * valid frames of several shapes, bits and levels, with and without
 * metadata, half of them with both CRCs fixed, and checks that a mutated
 * frame whose CRCs were not fixed never decodes, that an unchanged frame
 * (bytes after it do not count) decodes to its gather, and the agreements
 * above: the test 'fuzz-seismic' of suite codec.  --iterations N, --seed S,
 * and --write-seeds DIR to leave the valid frames there as a libFuzzer
 * corpus.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/common/crc32.h"
#include "codec/seismic/seismic.h"
#ifdef SCI_FUZZ_SEIS_GPU
#include <cuda_runtime_api.h>

#include "cuda/seismic/seismic.h"
#endif

#define FUZZ_MAX_VALUES (1u << 16)
#define FUZZ_MAX_BYTES (1u << 20)
#define NOT_TRIED 1

static float fuzz_out[FUZZ_MAX_VALUES];
static uint16_t fuzz_q[FUZZ_MAX_VALUES];
/* answers that disagree (each would be a bug of the decoder) */
static unsigned fuzz_disagreements;

static void disagree(const char *what) {
    fuzz_disagreements++;
#ifdef SCI_FUZZ_LIBFUZZER
    fprintf(stderr, "disagreement: %s\n", what);
    abort();
#else
    if (fuzz_disagreements <= 10)
        printf("disagreement: %s\n", what);
#endif
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

#ifdef SCI_FUZZ_SEIS_GPU
/* The GPU decoder on a parsed frame that the reference answered with st
 * (its gather and indices in fuzz_out and fuzz_q when 0). */
static void gpu_agrees(const uint8_t *data, const sci_seis_info *info,
                       int st) {
    static sci_cuda_seis *gs;
    static float *out, gpu_out[FUZZ_MAX_VALUES];
    static uint16_t *q, gpu_q[FUZZ_MAX_VALUES];
    if (!gs && (sci_cuda_seis_create(&gs) ||
                cudaMalloc((void **)&out, FUZZ_MAX_VALUES * 4) ||
                cudaMalloc((void **)&q, FUZZ_MAX_VALUES * 2))) {
        disagree("the GPU decoder cannot be set up");
        return;
    }
    const size_t n = (size_t)info->p.traces * info->p.samples;
    int status = 0;
    int ret = sci_cuda_seis_decode(gs, 1, &data, info, &out, &q, &status,
                                   NULL);
    if (ret > 0) {
        disagree("the GPU decoder failed in CUDA");
        return;
    }
    if ((status != 0) != (st != 0)) {
        disagree("the GPU decoder and the reference disagree on a frame");
        return;
    }
    if (status)
        return;
    if (cudaMemcpy(gpu_out, out, n * 4, cudaMemcpyDeviceToHost) ||
        cudaMemcpy(gpu_q, q, n * 2, cudaMemcpyDeviceToHost) ||
        memcmp(gpu_out, fuzz_out, n * 4) || memcmp(gpu_q, fuzz_q, n * 2))
        disagree("the GPU decoder's gather differs from the reference's");
}
#endif

/* Decodes one input as seismicdec does; returns the status (NOT_TRIED:
 * too large).  The gather is in fuzz_out when 0. */
static int fuzz_decode(const uint8_t *data, size_t size) {
    sci_seis_info info;
    long long fl = 0;
    if (size > FUZZ_MAX_BYTES)
        return NOT_TRIED;
    if (size >= SCI_SEIS_HEADER_BYTES)
        fl = sci_seis_frame_length(data);
    int st = sci_seis_parse(data, size, &info);
    if (size >= SCI_SEIS_HEADER_BYTES) {
        if (fl < 0 && st != (int)fl)
            disagree("sci_seis_frame_length refuses a header that "
                     "sci_seis_parse does not refuse alike");
        if (st == 0 && fl != (long long)info.frame_len)
            disagree("sci_seis_frame_length differs from the parsed length");
        if (fl > 0 && (size_t)fl > size && st != SCI_SEIS_E_TRUNCATED)
            disagree("a frame longer than the input is not truncated");
    } else if (st != SCI_SEIS_E_TRUNCATED) {
        disagree("less than a header is not truncated");
    }
    if (st)
        return st;
    if (info.frame_len > size || info.pkg_off % 8 ||
        info.firsts_off != info.pkg_off + 8 * (size_t)info.packages ||
        info.firsts_off + 4 * (size_t)(info.blocks ? info.blocks - 1 : 0) +
                4 != info.frame_len ||
        info.table_off + info.table_len > info.pkg_off ||
        info.meta_off + info.meta_len != info.table_off)
        disagree("the parsed sections do not tile the frame");
    if ((uint64_t)info.p.traces * info.p.samples > FUZZ_MAX_VALUES)
        return NOT_TRIED;
    int sq = sci_seis_decode(NULL, data, &info, fuzz_q, NULL);
    st = sci_seis_decode(NULL, data, &info, NULL, fuzz_out);
    if (sq != st)
        disagree("decoding the indices and the gather end differently");
#ifdef SCI_FUZZ_SEIS_GPU
    gpu_agrees(data, &info, st);
#endif
    return st;
}

/* Makes both CRCs of the frame at buf (len bytes) valid: the header's,
 * then the frame's at the end its header announces (or at the end of the
 * input, when the header does not fit it). */
static void fix_crcs(uint8_t *buf, size_t len) {
    if (len < SCI_SEIS_HEADER_BYTES)
        return;
    put32(buf + 44, sci_crc32(0, buf, 44));
    long long fl = sci_seis_frame_length(buf);
    size_t end = fl >= SCI_SEIS_HEADER_BYTES + 4 && (size_t)fl <= len
                     ? (size_t)fl
                     : len;
    if (end >= SCI_SEIS_HEADER_BYTES + 4)
        put32(buf + end - 4, sci_crc32(0, buf, end - 4));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_decode(data, size);
    if (size >= SCI_SEIS_HEADER_BYTES && size <= FUZZ_MAX_BYTES) {
        uint8_t *copy = malloc(size);
        if (copy) {
            memcpy(copy, data, size);
            fix_crcs(copy, size);
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
    unsigned traces, samples;
    float *want; /* the decoder's gather */
    sci_seis_info info;
} seed_frame;

/* A valid frame of a synthetic gather: `kind` 0 smooth events with noise,
 * 1 white noise, 2 a constant (step 0), 3 spikes on zeros; of frame
 * version `version`. */
static void make_seed(seed_frame *f, unsigned traces, unsigned samples,
                      unsigned bits, unsigned levels, size_t meta_len,
                      int kind, unsigned version) {
    size_t n = (size_t)traces * samples;
    float *g = malloc(n * sizeof *g);
    for (unsigned t = 0; t < traces; t++)
        for (unsigned s = 0; s < samples; s++) {
            double v;
            switch (kind) {
            case 0:
                v = 300.0 * sin(0.05 * s + 0.3 * t) * exp(-0.001 * s) +
                    (double)(rng() % 101) - 50.0;
                break;
            case 1:
                v = (double)(rng() % 200001) / 100.0 - 1000.0;
                break;
            case 2:
                v = 42.5;
                break;
            default:
                /* sparse enough that zeros run past SCI_SEIS_RUN_MIN:
                 * run packages between code packages */
                v = rng() % 211 == 0 ? 1e4 : 0.0;
                break;
            }
            g[(size_t)t * samples + s] = (float)v;
        }
    uint8_t meta[128];
    for (size_t k = 0; k < sizeof meta; k++)
        meta[k] = (uint8_t)(k * 13 + 5);
    if (meta_len > sizeof meta)
        meta_len = sizeof meta;
    sci_seis_params p = {traces, samples, 1000, bits, levels, 0};
    size_t cap = sci_seis_frame_bound(&p, meta_len);
    f->bytes = malloc(cap);
    f->len = 0;
    f->traces = traces;
    f->samples = samples;
    f->want = malloc(n * sizeof *f->want);
    uint16_t *q = malloc(n * sizeof *q);
    sci_seis_grid grid;
    if (sci_seis_quantize(test_pool(), &p, g, q, &grid, NULL) ||
        sci_seis_encode_indices_version(&p, q, &grid, meta, meta_len, version,
                                        f->bytes, cap, &f->len) ||
        sci_seis_parse(f->bytes, f->len, &f->info) ||
        sci_seis_decode(test_pool(), f->bytes, &f->info, NULL, f->want))
        f->len = 0;
    free(q);
    free(g);
}

static uint32_t pkg_count(const uint8_t *pk) {
    return pk[7] >> 2;
}

static void set_pkg_count(uint8_t *pk, uint32_t c) {
    pk[7] = (uint8_t)((pk[7] & 3) | (c & 63) << 2);
}

/* One random change of buf (*len bytes, room for cap) made from seed s. */
static void mutate(uint8_t *buf, size_t *len, size_t cap,
                   const seed_frame *s) {
    size_t n = *len;
    if (n == 0)
        return;
    size_t pos = (size_t)(rng() % n);
    const sci_seis_info *in = &s->info;
    size_t np = in->packages;
    switch (rng() % 14) {
    case 0:
        buf[pos] ^= (uint8_t)(1u << (rng() % 8));
        break;
    case 1:
        buf[pos] = (uint8_t)rng();
        break;
    case 2: /* a header byte */
        if (n >= SCI_SEIS_HEADER_BYTES)
            buf[rng() % SCI_SEIS_HEADER_BYTES] = (uint8_t)rng();
        break;
    case 3: /* truncate */
        *len = pos;
        break;
    case 4: /* insert a byte */
        if (n + 1 <= cap) {
            memmove(buf + pos + 1, buf + pos, n - pos);
            buf[pos] = (uint8_t)rng();
            *len = n + 1;
        }
        break;
    case 5: /* delete a byte */
        memmove(buf + pos, buf + pos + 1, n - pos - 1);
        *len = n - 1;
        break;
    case 6: { /* interesting values in a 32-bit header field */
        static const uint32_t v[] = {0,          1,          2,
                                     7,          8,          0x7FFFFFFF,
                                     0x80000000u, 0xFFFFFFFFu, 65535,
                                     65536,      1u << 24,   1u << 28,
                                     0x7F800000u, 0x7FC00000u, 0xFF800000u};
        size_t at = 8 + 4 * (size_t)(rng() % 9); /* fields 8..40 */
        if (at + 4 <= n)
            put32(buf + at, v[rng() % (sizeof v / sizeof *v)]);
        break;
    }
    case 7: { /* bits, levels or the longest code a little off */
        size_t at = 5 + (size_t)(rng() % 3);
        if (at < n)
            buf[at] = (uint8_t)(buf[at] + (rng() & 1 ? 1 : -1));
        break;
    }
    case 8: { /* symbols moved between two packages: the sum kept */
        if (np < 1)
            break;
        size_t a = in->pkg_off + 8 * (size_t)(rng() % np);
        size_t b = in->pkg_off + 8 * (size_t)(rng() % np);
        int d = (int)(rng() % 5) - 2;
        if (a + 8 > n || b + 8 > n)
            break;
        set_pkg_count(buf + a, pkg_count(buf + a) + (uint32_t)d);
        if (rng() & 1)
            set_pkg_count(buf + b, pkg_count(buf + b) - (uint32_t)d);
        break;
    }
    case 9: { /* a package's code bits */
        if (np < 1)
            break;
        size_t a = in->pkg_off + 8 * (size_t)(rng() % np);
        if (a + 8 > n)
            break;
        switch (rng() % 4) {
        case 0: /* a code bit */
            buf[a + rng() % 7] ^= (uint8_t)(1u << (rng() % 8));
            break;
        case 1: /* zeroed */
            memset(buf + a, 0, 8);
            break;
        case 2: /* the previous one repeated */
            if (a >= in->pkg_off + 8)
                memcpy(buf + a, buf + a - 8, 8);
            break;
        default: { /* swapped with another */
            size_t b = in->pkg_off + 8 * (size_t)(rng() % np);
            uint8_t t[8];
            if (b + 8 > n)
                break;
            memcpy(t, buf + a, 8);
            memcpy(buf + a, buf + b, 8);
            memcpy(buf + b, t, 8);
            break;
        }
        }
        break;
    }
    case 10: /* the code table */
        if (in->table_len && in->table_off + in->table_len <= n)
            buf[in->table_off + rng() % in->table_len] ^=
                (uint8_t)(1u << (rng() % 8));
        break;
    case 11: /* the padding before the packages, or the metadata */
        if (rng() & 1) {
            if (in->pkg_off > in->table_off + in->table_len &&
                in->pkg_off <= n)
                buf[in->pkg_off - 1] = (uint8_t)(1 + rng() % 255);
        } else if (in->meta_len && in->meta_off + in->meta_len <= n) {
            buf[in->meta_off + rng() % in->meta_len] ^= 0x20;
        }
        break;
    case 12: /* versions 6, 7: a block's (slice's) first value moved */
        if (in->blocks > 1) {
            size_t at = in->firsts_off + 4 * (rng() % (in->blocks - 1));
            if (at + 4 <= n)
                buf[at + rng() % 2] ^= (uint8_t)(1u << (rng() % 8));
        }
        break;
    default:
        buf[pos] ^= 0xFF;
        break;
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
    seed_frame seeds[17];
    /* traces, samples, bits, levels, metadata bytes, kind, version */
    const unsigned v = SCI_SEIS_VERSION;
    make_seed(&seeds[0], 16, 40, 12, 1, 0, 0, v);
    make_seed(&seeds[1], 1, 1, 2, 0, 0, 0, v);
    make_seed(&seeds[2], 1, 7, 16, 0, 0, 1, v);
    make_seed(&seeds[3], 7, 1, 8, 3, 0, 0, 3);
    make_seed(&seeds[4], 5, 101, 16, 4, 23, 0, v);
    make_seed(&seeds[5], 30, 64, 2, 2, 0, 1, 4);
    make_seed(&seeds[6], 64, 64, 10, 8, 0, 0, 5);
    make_seed(&seeds[7], 3, 200, 14, 1, 100, 1, v);
    make_seed(&seeds[8], 8, 8, 6, 0, 0, 2, v); /* step 0 */
    make_seed(&seeds[9], 20, 50, 16, 2, 5, 1, 5);
    make_seed(&seeds[10], 12, 90, 5, 3, 0, 3, v);
    make_seed(&seeds[11], 2, 333, 12, 5, 1, 0, 4);
    /* version 6: blocks of packages (white noise at 16 bits), zero runs
     * in code packages (spikes on zeros); version 7: the same as slices */
    make_seed(&seeds[12], 40, 100, 16, 1, 0, 1, 6);
    make_seed(&seeds[13], 64, 64, 9, 2, 0, 3, 6);
    make_seed(&seeds[14], 64, 64, 10, 8, 0, 0, v);
    make_seed(&seeds[15], 40, 100, 16, 1, 0, 1, v);
    make_seed(&seeds[16], 64, 64, 9, 2, 0, 3, v);
    unsigned nseeds = sizeof seeds / sizeof *seeds;
    for (unsigned i = 0; seed_dir && i < nseeds; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/seed%u.seis", seed_dir, i);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(seeds[i].bytes, 1, seeds[i].len, f);
            fclose(f);
        }
    }
    for (unsigned i = 0; i < nseeds; i++) {
        const seed_frame *s = &seeds[i];
        int st = s->len ? fuzz_decode(s->bytes, s->len) : -99;
        char what[96];
        snprintf(what, sizeof what, "seed %u (%ux%u, %u bits, %u levels) "
                 "decodes to its gather", i, s->traces, s->samples,
                 s->info.p.bits, s->info.p.levels);
        check(st == 0 && !memcmp(fuzz_out, s->want,
                                 (size_t)s->traces * s->samples * 4),
              what);
    }
    check(seeds[4].info.meta_len == 23 && seeds[7].info.meta_len == 100 &&
              seeds[0].info.meta_len == 0 && seeds[8].info.grid.step == 0.0f &&
              seeds[6].info.packages > 1 && seeds[6].info.version == 5 &&
              seeds[12].info.blocks > 2 && seeds[12].info.version == 6 &&
              seeds[13].info.zero_runs && seeds[13].info.version == 6 &&
              seeds[15].info.blocks > 2 && seeds[15].info.version == 7 &&
              seeds[16].info.zero_runs,
          "seed frames: metadata, a constant gather, several packages, "
          "versions 3 to 7, several blocks and slices, zero runs");

    static uint8_t buf[1 << 16];
    {
        /* a code package whose count says more codes than a package holds
         * (63), the counts of the others lowered so that they still add up
         * to the gather: both decoders refuse it, and the GPU decoder writes
         * nothing of it (libFuzzer found it writing that package's symbols
         * from past its slice, which the last lane of a warp's 32 reads
         * past the slices' end: seen under ASan) */
        const seed_frame *s = &seeds[6];
        memcpy(buf, s->bytes, s->len);
        uint8_t *pk = buf + s->info.pkg_off;
        const uint32_t np = s->info.packages;
        uint32_t a = np, d = 0;
        for (uint32_t j = 31; j < np && a == np; j += 32)
            if (pk[8 * j + 7] >> 2)
                a = j;
        if (a < np) {
            d = 63u - (pk[8 * a + 7] >> 2);
            pk[8 * a + 7] = (uint8_t)(63u << 2 | (pk[8 * a + 7] & 3));
        }
        for (uint32_t j = 0; j < np && d; j++) {
            const uint32_t c = pk[8 * j + 7] >> 2;
            const uint32_t take = j == a || c < 2 ? 0 : c - 1 < d ? c - 1 : d;
            pk[8 * j + 7] = (uint8_t)((c - take) << 2 | (pk[8 * j + 7] & 3));
            d -= take;
        }
        fix_crcs(buf, s->len);
        check(a < np && d == 0 && fuzz_decode(buf, s->len) == SCI_SEIS_E_DATA &&
                  fuzz_disagreements == 0,
              "a code package that counts 63 codes, the counts adding up: "
              "refused by both decoders alike");
    }
    unsigned count[32] = {0}, undetected = 0, fixed_ok = 0, same_bad = 0;
    unsigned mutated = 0;
    for (unsigned it = 0; it < iterations; it++) {
        const seed_frame *s = &seeds[rng() % nseeds];
        size_t len = s->len;
        if (len + 64 > sizeof buf)
            continue;
        memcpy(buf, s->bytes, len);
        unsigned muts = 1 + (unsigned)(rng() % 3);
        for (unsigned k = 0; k < muts; k++)
            mutate(buf, &len, sizeof buf, s);
        /* unchanged: the frame's bytes intact, whatever follows them */
        int same = len >= s->len && !memcmp(buf, s->bytes, s->len);
        int fix = (int)(rng() & 1);
        if (fix)
            fix_crcs(buf, len);
        int st = fuzz_decode(buf, len);
        if (st <= 0 && -st < 32)
            count[-st]++;
        if (!same)
            mutated++;
        if (same && (st != 0 || memcmp(fuzz_out, s->want,
                                      (size_t)s->traces * s->samples * 4)))
            same_bad++;
        if (st == 0 && !same) {
            if (fix)
                fixed_ok++;
            else
                undetected++;
        }
    }
    char what[160];
    snprintf(what, sizeof what,
             "%u mutated frames of %u: none decoded without a CRC fix-up",
             mutated, iterations);
    check(undetected == 0, what);
    check(same_bad == 0, "frames left intact decode to their gathers");
    check(fuzz_disagreements == 0,
          "splitter, parser and decoder agree on every input");
    check(mutated > iterations / 2, "most iterations changed the frame");
    printf("outcomes of %u mutations:\n", iterations);
    for (int c = 0; c < 32; c++)
        if (count[c])
            printf("  %-50s %u\n", sci_seis_error_string(-c), count[c]);
    printf("  decoded after a CRC fix-up (a changed frame): %u\n", fixed_ok);
    for (unsigned i = 0; i < nseeds; i++) {
        free(seeds[i].bytes);
        free(seeds[i].want);
    }
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
#endif
