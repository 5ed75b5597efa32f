/*
 * The CUDA seismic decoder (cuda/seismic/seismic.h) against the C reference
 * (codec/seismic/seismic.c), in the manner of dav1d's checkasm: gathers of awkward
 * sizes (1 x 1, one trace, one sample a trace, odd sizes, 96 x 3584, tall
 * and thin), contents from random to constant and smooth synthetic shots,
 * every bits 2..16 and levels 0..8 across the cases, frames decoded alone
 * and in batches that mix sizes, bits and levels.  The quantization indices
 * must be identical and the floats identical to the bit (the device does
 * the reference's float operations in its order; the bound, 1e-6
 * relative, is looser: the largest difference is printed).  Damaged frames
 * (packages changed behind a recomputed CRC) must be reported for that
 * frame alone, the batch's other frames still decoding right.  The GPU
 * encoder (transform, extremes and quantization on the device) must give
 * sci_seis_encode's frames byte for byte, alone and in batches, and refuse
 * a NaN at the same index.  With --data,
 * the F3 survey's gather from ../shared/data/seismic too.
 *
 *   parity-seismic [--seed N] [--quick] [--huge] [--data DIR]
 *
 * --quick: small gathers only (the emulated run in CI).  --huge: also one
 * gather at the format's limits, 4096 traces of 65535 samples (2^28 - 4096
 * values, 1 GiB of floats), decoded and encoded both ways.  Exit 0 when all
 * pass, 1 on a failure, 77 when there is no CUDA device.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <zstd.h>

#include "codec/seismic/huffman.h"
#include "codec/seismic/table.h"

#include "codec/common/crc32.h"
#include "codec/seismic/seismic.h"
#include "codec/seismic/seismic_core.h"
#include "cuda/seismic/seismic.h"
#include "tests/common/cudacheck.h"
#include "tests/segy/segyread.h"
#include "tests/common/testutil.h"

enum { RANDOM, CONSTANT, SMOOTH, SPIKY, STEP, NCONTENT };

typedef struct {
    sci_seis_params p;
    float *g;          /* the gather */
    uint8_t *frame;
    size_t len;
    sci_seis_info info;
    float *want;       /* the reference's gather */
    uint16_t *want_q;  /* and indices */
    int want_err;      /* the reference's verdict on the frame */
} fcase;

static int failures, checked;
static double max_rel;

/* A condition on the cases themselves (that they hold what the run means
 * to test): a failure when it does not hold. */
static void need(int ok, const char *what) {
    if (!ok) {
        printf("FAIL %s\n", what);
        failures++;
    }
}

static double urand(void) {
    return (double)(rng() >> 11) * (1.0 / 9007199254740992.0);
}

static void fill(float *g, uint32_t traces, uint32_t samples, int content) {
    for (uint32_t t = 0; t < traces; t++)
        for (uint32_t s = 0; s < samples; s++) {
            double v;
            switch (content) {
            case CONSTANT: v = 3.25; break;
            case SMOOTH: {
                /* a hyperbolic event with a Ricker-like wavelet, decaying */
                double t0 = 0.3 * samples, x = (double)t - traces / 2.0;
                double tt = sqrt(t0 * t0 + 4 * x * x) - s;
                double a = 0.04 * tt * tt;
                v = 1000.0 * (1 - 2 * a) * exp(-a) / (1 + 0.01 * s) +
                    5 * (urand() - 0.5);
                break;
            }
            case SPIKY: v = rng() % 97 == 0 ? 1e4 * (urand() - 0.5) : 0; break;
            /* long runs of indices other than zero's: run packages */
            case STEP: v = 2 * s >= samples ? 250.0 : -250.0; break;
            default: v = 2e3 * (urand() - 0.5); break;
            }
            g[(size_t)t * samples + s] = (float)v;
        }
}

static int make_case(fcase *c, const float *g, sci_seis_params p) {
    memset(c, 0, sizeof *c);
    c->p = p;
    size_t n = (size_t)p.traces * p.samples;
    size_t cap = sci_seis_frame_bound(&p, 0);
    c->frame = malloc(cap);
    c->want = malloc(n * sizeof *c->want);
    c->want_q = malloc(n * sizeof *c->want_q);
    c->g = malloc(n * sizeof *c->g);
    if (!c->frame || !c->want || !c->want_q || !c->g)
        return -1;
    memcpy(c->g, g, n * sizeof *c->g);
    int e = sci_seis_encode(test_pool(), &p, g, NULL, 0, c->frame, cap, &c->len, NULL);
    if (e) {
        fprintf(stderr, "encode %ux%u failed: %s\n", p.traces, p.samples,
                sci_seis_error_string(e));
        return -1;
    }
    if ((e = sci_seis_parse(c->frame, c->len, &c->info)))
        return -1;
    c->want_err = sci_seis_decode(test_pool(), c->frame, &c->info, c->want_q, c->want);
    return 0;
}

/* Case c's gather coded again as a frame of another version (3: its
 * code lengths zstd-compressed, read by the host; 4: its table in
 * segments of 4096 symbols), the reference's verdict redone. */
static int to_version(fcase *c, unsigned version) {
    size_t cap = sci_seis_frame_bound(&c->p, 0);
    c->p.version = version; /* and the GPU encoder's, from the parameters */
    sci_seis_grid grid;
    int e = sci_seis_quantize(test_pool(), &c->p, c->g, c->want_q, &grid,
                              NULL);
    if (!e)
        e = sci_seis_encode_indices_version(&c->p, c->want_q, &grid, NULL, 0,
                                            version, c->frame, cap, &c->len);
    if (e || sci_seis_parse(c->frame, c->len, &c->info) ||
        c->info.version != version)
        return -1;
    c->want_err = sci_seis_decode(test_pool(), c->frame, &c->info, c->want_q,
                                  c->want);
    return 0;
}

static void free_case(fcase *c) {
    free(c->g);
    free(c->frame);
    free(c->want);
    free(c->want_q);
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

/* Changes a package's code bits (count kept) and fixes the frame's CRC, so
 * the damage reaches the decoders; the reference's verdict is redone. */
static void damage(fcase *c) {
    size_t np = c->info.packages;
    uint8_t *pk = c->frame + c->info.pkg_off + 8 * (rng() % np);
    for (int k = 0; k < 3; k++)
        pk[rng() % 7] ^= (uint8_t)(1u << (rng() % 8));
    put32(c->frame + c->len - 4, sci_crc32(0, c->frame, c->len - 4));
    c->want_err = sci_seis_decode(test_pool(), c->frame, &c->info, c->want_q, c->want);
}

/* Changes a package's symbol count (bit 58: a code package's count by one,
 * or a run turned into a code package or back) and fixes the CRC: the
 * symbols no longer add up to the gather, which the GPU finds on the
 * device. */
static void damage_count(fcase *c) {
    size_t np = c->info.packages;
    c->frame[c->info.pkg_off + 8 * (rng() % np) + 7] ^= 1u << 2;
    put32(c->frame + c->len - 4, sci_crc32(0, c->frame, c->len - 4));
    c->want_err = sci_seis_decode(test_pool(), c->frame, &c->info, c->want_q, c->want);
}

/* One of a version 6 frame's block firsts, or a version 7 frame's slice
 * firsts, moved (CRC fixed): the blocks (slices) no longer add up, which
 * the GPU finds block by block (slice by slice). */
static int damage_firsts(fcase *c) {
    if (c->info.version < 6 || c->info.blocks < 2)
        return 0;
    uint8_t *at = c->frame + c->info.firsts_off +
                  4 * (rng() % (c->info.blocks - 1));
    const int d[] = {1, -1, 64, -64};
    uint32_t v = (uint32_t)at[0] | (uint32_t)at[1] << 8 |
                 (uint32_t)at[2] << 16 | (uint32_t)at[3] << 24;
    put32(at, v + (uint32_t)d[rng() % 4]);
    put32(c->frame + c->len - 4, sci_crc32(0, c->frame, c->len - 4));
    c->want_err = sci_seis_decode(test_pool(), c->frame, &c->info, c->want_q,
                                  c->want);
    return 1;
}

/* A version 6 or 7 frame's zero-run flag flipped (CRCs fixed): cleared on
 * a code with runs, refused (the device finds it from the code it reads);
 * set on one without, the frame decodes (version 6: through the token
 * launches; both: after the run level is put everywhere).  1 when
 * flipped. */
static int flip_zero_runs(fcase *c) {
    if (c->info.version < 6)
        return 0;
    c->frame[40] ^= SCI_SEIS_FLAG_ZRUNS;
    put32(c->frame + 44, sci_crc32(0, c->frame, 44));
    put32(c->frame + c->len - 4, sci_crc32(0, c->frame, c->len - 4));
    if (sci_seis_parse(c->frame, c->len, &c->info))
        return 0;
    c->want_err = sci_seis_decode(test_pool(), c->frame, &c->info, c->want_q,
                                  c->want);
    return 1;
}

/* A bit of a version 4 or 5 frame's code table flipped (CRC fixed): the device
 * reads that table, the reference its own way; the verdicts must agree. */
static void damage_table_bits(fcase *c) {
    if (c->info.version < 4)
        return;
    size_t at = c->info.table_off + rng() % c->info.table_len;
    c->frame[at] ^= (uint8_t)(1u << (rng() % 8));
    put32(c->frame + c->len - 4, sci_crc32(0, c->frame, c->len - 4));
    c->want_err = sci_seis_decode(test_pool(), c->frame, &c->info, c->want_q,
                                  c->want);
}

/* The header's longest code one more than a version 4 or 5 table's (both CRCs
 * fixed): the device, which reads that table, must find the mismatch as
 * the host does. */
static void damage_max_len(fcase *c) {
    if (c->info.version < 4 || c->info.max_len >= SCI_HUFF_MAX_LEN)
        return;
    c->frame[7]++;
    put32(c->frame + 44, sci_crc32(0, c->frame, 44));
    put32(c->frame + c->len - 4, sci_crc32(0, c->frame, c->len - 4));
    if (sci_seis_parse(c->frame, c->len, &c->info))
        return;
    c->want_err = sci_seis_decode(test_pool(), c->frame, &c->info, c->want_q,
                                  c->want);
}

/* Puts frame c together again around the code lengths len (info.nsym
 * of them, longest `longest`), stored as the frame's version stores them:
 * the table, the header's Z and longest code, both CRCs; the reference's
 * verdict redone.  0, or -1 when the new frame does not parse. */
static int set_table(fcase *c, const uint8_t *len, unsigned longest) {
    const sci_seis_info *in = &c->info;
    const size_t nsym = in->nsym;
    size_t zcap = in->version >= 4
                      ? sci_seis_table_bound((uint32_t)nsym, in->version)
                      : ZSTD_compressBound(nsym);
    /* the packages, and version 6's firsts after them */
    size_t head = in->table_off, pkg_bytes = in->frame_len - 4 - in->pkg_off;
    uint8_t *f = calloc(head + zcap + 8 + pkg_bytes + 4, 1);
    memcpy(f, c->frame, head);
    size_t z = in->version >= 4
                   ? sci_seis_table_write(len, (uint32_t)nsym, in->version,
                                          f + head, zcap)
                   : ZSTD_compress(f + head, zcap, len, nsym, 9);
    size_t pkg_off = (head + z + 7) / 8 * 8;
    memset(f + head + z, 0, pkg_off - head - z); /* the table may have used it */
    memcpy(f + pkg_off, c->frame + in->pkg_off, pkg_bytes);
    size_t n = pkg_off + pkg_bytes + 4;
    f[7] = (uint8_t)longest;
    put32(f + 28, (uint32_t)z);
    put32(f + 44, sci_crc32(0, f, 44));
    put32(f + n - 4, sci_crc32(0, f, n - 4));
    free(c->frame);
    c->frame = f;
    c->len = n;
    if (sci_seis_parse(c->frame, c->len, &c->info))
        return -1;
    c->want_err = sci_seis_decode(test_pool(), c->frame, &c->info, c->want_q,
                                  c->want);
    return 0;
}

/* Gives an unused symbol a code of the longest length, so that the code
 * lengths are no prefix code (their Kraft sum passes 1) while still
 * reading as a table and agreeing with the header's longest code: the GPU
 * decoder, which builds the tables on the device, must refuse the frame
 * there.  1 when changed, 0 when no symbol was unused, -1 on failure. */
static int damage_table(fcase *c) {
    const size_t nsym = c->info.nsym;
    uint8_t *len = malloc(nsym);
    size_t s = 0;
    if (sci_seis_code_lengths(c->frame, &c->info, len) == 0)
        while (s < nsym && len[s])
            s++;
    int r = 0;
    if (s < nsym && c->info.max_len) {
        len[s] = (uint8_t)c->info.max_len;
        r = set_table(c, len, c->info.max_len) ? -1 : 1;
    }
    free(len);
    return r;
}

/* A complete code of every symbol, each L = ceil(log2 nsym) bits long but
 * the first 2^L - nsym, one shorter: more codes than a small gather has
 * values, which the tables must have room for (the packages then decode
 * to other symbols, or fail, alike on both sides). */
static int full_table(fcase *c) {
    const size_t nsym = c->info.nsym;
    unsigned l = 0;
    while (((size_t)1 << l) < nsym)
        l++;
    uint8_t *len = malloc(nsym);
    memset(len, (int)l, nsym);
    memset(len, (int)l - 1, ((size_t)1 << l) - nsym);
    int r = set_table(c, len, l);
    free(len);
    return r;
}

/* Decodes the cases as one batch and compares each with the reference. */
static void run_batch(sci_cuda_seis *s, fcase *cs, unsigned n,
                      const char *what) {
    const uint8_t **frames = calloc(n, sizeof *frames);
    sci_seis_info *info = calloc(n, sizeof *info);
    float **out = calloc(n, sizeof *out);
    uint16_t **q = calloc(n, sizeof *q);
    int *status = calloc(n, sizeof *status);
    for (unsigned i = 0; i < n; i++) {
        size_t v = (size_t)cs[i].p.traces * cs[i].p.samples;
        frames[i] = cs[i].frame;
        info[i] = cs[i].info;
        CK(cudaMalloc((void **)&out[i], v * 4));
        CK(cudaMalloc((void **)&q[i], v * 2));
    }
    int ret = sci_cuda_seis_decode(s, n, frames, info, out, q, status, NULL);
    if (ret > 0) {
        fprintf(stderr, "%s: CUDA error %d\n", what, ret);
        exit(1);
    }
    for (unsigned i = 0; i < n; i++) {
        fcase *c = &cs[i];
        size_t v = (size_t)c->p.traces * c->p.samples;
        checked++;
        if ((status[i] != 0) != (c->want_err != 0)) {
            fprintf(stderr,
                    "FAIL %s frame %u (%ux%u bits %u levels %u): GPU says "
                    "%d, reference %d\n",
                    what, i, c->p.traces, c->p.samples, c->p.bits,
                    c->p.levels, status[i], c->want_err);
            failures++;
            continue;
        }
        if (status[i])
            continue;
        float *got = malloc(v * 4);
        uint16_t *got_q = malloc(v * 2);
        CK(cudaMemcpy(got, out[i], v * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(got_q, q[i], v * 2, cudaMemcpyDeviceToHost));
        size_t bad_q = v, bad_f = v;
        for (size_t k = 0; k < v; k++) {
            if (got_q[k] != c->want_q[k] && bad_q == v)
                bad_q = k;
            if (memcmp(&got[k], &c->want[k], 4) && bad_f == v)
                bad_f = k;
            double d = fabs((double)got[k] - c->want[k]);
            double r = d / fmax(fabs((double)c->want[k]), 1e-30);
            if (d > 0 && r > max_rel)
                max_rel = r;
        }
        if (bad_q < v || bad_f < v) {
            size_t k = bad_q < v ? bad_q : bad_f;
            fprintf(stderr,
                    "FAIL %s frame %u (%ux%u bits %u levels %u) at trace "
                    "%zu sample %zu: q %u/%u value %.9g/%.9g\n",
                    what, i, c->p.traces, c->p.samples, c->p.bits,
                    c->p.levels, k / c->p.samples, k % c->p.samples,
                    got_q[k], c->want_q[k], got[k], c->want[k]);
            failures++;
        }
        free(got);
        free(got_q);
    }
    for (unsigned i = 0; i < n; i++) {
        CK(cudaFree(out[i]));
        CK(cudaFree(q[i]));
    }
    free(frames);
    free(info);
    free(out);
    free(q);
    free(status);
}

/* Encodes the cases' gathers (uploaded) as one batch on the GPU: every
 * frame must be sci_seis_encode's byte for byte; bad[i] >= 0 puts a NaN at
 * that index of gather i first, which both must refuse alike. */
static void run_encode(sci_cuda_seis *s, fcase *cs, unsigned n,
                       const long *bad, const char *what) {
    sci_seis_params *p = calloc(n, sizeof *p);
    float **dg = calloc(n, sizeof *dg);
    uint8_t **out = calloc(n, sizeof *out);
    size_t *cap = calloc(n, sizeof *cap), *len = calloc(n, sizeof *len);
    size_t *bad_at = calloc(n, sizeof *bad_at);
    int *status = calloc(n, sizeof *status);
    for (unsigned i = 0; i < n; i++) {
        size_t v = (size_t)cs[i].p.traces * cs[i].p.samples;
        p[i] = cs[i].p;
        cap[i] = sci_seis_frame_bound(&p[i], 0);
        out[i] = malloc(cap[i]);
        CK(cudaMalloc((void **)&dg[i], v * 4));
        float *h = malloc(v * 4);
        memcpy(h, cs[i].g, v * 4);
        if (bad && bad[i] >= 0)
            h[bad[i]] = NAN;
        CK(cudaMemcpy(dg[i], h, v * 4, cudaMemcpyHostToDevice));
        free(h);
    }
    int ret = sci_cuda_seis_encode(s, n, p, (const float *const *)dg, NULL,
                                   NULL, out, cap, len, status, bad_at, NULL);
    if (ret > 0) {
        fprintf(stderr, "%s: CUDA error %d\n", what, ret);
        exit(1);
    }
    for (unsigned i = 0; i < n; i++) {
        checked++;
        if (bad && bad[i] >= 0) {
            if (status[i] != SCI_SEIS_E_VALUE ||
                bad_at[i] != (size_t)bad[i]) {
                fprintf(stderr, "FAIL %s gather %u: NaN at %ld gave status "
                        "%d at %zu\n", what, i, bad[i], status[i], bad_at[i]);
                failures++;
            }
            continue;
        }
        if (status[i] || len[i] != cs[i].len ||
            memcmp(out[i], cs[i].frame, len[i])) {
            size_t k = 0;
            while (!status[i] && k < len[i] && k < cs[i].len &&
                   out[i][k] == cs[i].frame[k])
                k++;
            fprintf(stderr,
                    "FAIL %s gather %u (%ux%u bits %u levels %u): status %d, "
                    "%zu bytes against %zu, first difference at byte %zu\n",
                    what, i, p[i].traces, p[i].samples, p[i].bits,
                    p[i].levels, status[i], len[i], cs[i].len, k);
            failures++;
        }
    }
    for (unsigned i = 0; i < n; i++) {
        CK(cudaFree(dg[i]));
        free(out[i]);
    }
    free(p);
    free(dg);
    free(out);
    free(cap);
    free(len);
    free(bad_at);
    free(status);
}

int main(int argc, char **argv) {
    uint64_t seed = 20261123;
    int quick = 0, huge = 0;
    const char *data = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--huge"))
            huge = 1;
        else if (!strcmp(argv[i], "--data") && i + 1 < argc)
            data = argv[++i];
    }
    REQUIRE_CUDA_DEVICE();
    rng_state = seed;
    sci_cuda_seis *s;
    CKW(sci_cuda_seis_create(&s));
    /* the host's share of a batch (tables, staging, codes) on threads */
    sci_cuda_seis_set_pool(s, test_pool());

    static const uint32_t sizes[][2] = {
        {1, 1}, {1, 7}, {7, 1}, {2, 2}, {3, 5}, {13, 17}, {64, 64},
        {31, 257}, {300, 75}, {1000, 3}, {96, 3584}, {5, 4097},
        {1021, 1031}, {2, 65535}};
    const unsigned nsizes = quick ? 10 : sizeof sizes / sizeof sizes[0];

    /* each case alone, and then all of a content as one batch */
    fcase *cs = calloc(nsizes * NCONTENT, sizeof *cs);
    unsigned nc = 0;
    for (unsigned z = 0; z < nsizes; z++)
        for (int content = 0; content < NCONTENT; content++) {
            uint32_t tr = sizes[z][0], ns = sizes[z][1];
            float *g = malloc((size_t)tr * ns * 4);
            fill(g, tr, ns, content);
            sci_seis_params p = {tr, ns, 2000,
                                 2 + (unsigned)((z * NCONTENT + content) % 15),
                                 (unsigned)((z + content) % 9), 0};
            /* the steps' runs, a row's half, only untransformed */
            if (content == STEP && z % 2)
                p.levels = 0;
            if (make_case(&cs[nc], g, p)) {
                failures++;
                free(g);
                continue;
            }
            free(g);
            char what[64];
            snprintf(what, sizeof what, "alone %ux%u content %d", tr, ns,
                     content);
            run_batch(s, &cs[nc], 1, what);
            nc++;
        }
    run_batch(s, cs, nc, "one batch of every case");
    /* the same batch in four chunks (a large batch's path) */
    sci_cuda_seis_tune_chunks(s, 1);
    run_batch(s, cs, nc, "one batch of every case, in chunks");
    sci_cuda_seis_tune_chunks(s, 0);
    {
        /* zero runs (the constant and spiky gathers' zero detail bands)
         * and frames of several slices among the cases */
        unsigned long zruns = 0, multi = 0;
        for (unsigned i = 0; i < nc; i++) {
            zruns += cs[i].info.zero_runs;
            multi += cs[i].info.blocks > 1;
        }
        printf("version 7 frames with zero runs: %lu; of more than one "
               "slice: %lu\n", zruns, multi);
        need(zruns && multi, "no zero run or second slice among the cases");
    }
    for (unsigned i = 0; i < nc; i++)
        run_encode(s, &cs[i], 1, NULL, "encode alone");
    run_encode(s, cs, nc, NULL, "encode one batch of every case");
    {
        /* NaN at the first, a middle and the last value of some gathers */
        long *bad = calloc(nc, sizeof *bad);
        for (unsigned i = 0; i < nc; i++) {
            long v = (long)cs[i].p.traces * cs[i].p.samples;
            bad[i] = i % 4 == 0 ? 0 : i % 4 == 1 ? v / 2
                   : i % 4 == 2 ? v - 1 : -1;
        }
        run_encode(s, cs, nc, bad, "encode with NaN");
        free(bad);
    }

    /* version 3 frames (the host reads their lengths), version 4 and 5
     * ones (the device reads their tables, and sums their counts) and
     * version 6 ones (packages of tokens) among version 7 ones */
    for (unsigned i = 0; i < nc; i++)
        if (i % 5 < 4 && to_version(&cs[i], 3 + i % 5)) {
            printf("FAIL a version %u frame of case %u\n", 3 + i % 5, i);
            failures++;
        }
    {
        /* run packages among the older frames (the step gathers'
         * halves), and version 6 packages of more values than tokens */
        unsigned long runs = 0, zruns = 0, multi = 0;
        for (unsigned i = 0; i < nc; i++) {
            if (cs[i].info.version >= 7)
                continue;
            for (uint32_t k = 0; k < cs[i].info.packages; k++) {
                uint64_t pk;
                memcpy(&pk, cs[i].frame + cs[i].info.pkg_off + 8 * (size_t)k,
                       8);
                runs += sci_seis_package_is_run(pk, cs[i].info.version);
            }
            zruns += cs[i].info.version == 6 && cs[i].info.zero_runs;
            multi += cs[i].info.version == 6 && cs[i].info.blocks > 1;
        }
        printf("run packages in the version 3 to 6 frames: %lu; version 6 "
               "frames with zero runs: %lu; of more than one block of "
               "packages: %lu\n", runs, zruns, multi);
        need(runs && zruns && multi, "no run package, version 6 zero run or "
                                     "second block among the cases");
    }
    run_batch(s, cs, nc, "versions 3 to 7 in one batch");
    sci_cuda_seis_tune_chunks(s, 1);
    run_batch(s, cs, nc, "versions 3 to 7 in one batch, in chunks");
    sci_cuda_seis_tune_chunks(s, 0);
    run_encode(s, cs, nc, NULL, "encode versions 3 to 7 in one batch");

    /* the same cases again, some damaged: only those are refused */
    for (unsigned i = 0; i < nc; i += 3)
        damage(&cs[i]);
    for (unsigned i = 1; i < nc; i += 3)
        damage_count(&cs[i]);
    {
        /* version 6 block firsts and version 7 slice firsts moved, among
         * the others, or, in frames of one block or slice, the zero-run
         * flag flipped */
        unsigned moved = 0, cleared = 0, set = 0;
        for (unsigned i = 2; i < nc; i += 6) {
            if (to_version(&cs[i], 6 + (i / 6) % 2))
                continue;
            const int had = cs[i].info.zero_runs;
            if (damage_firsts(&cs[i]))
                moved += cs[i].want_err != 0;
            else if (flip_zero_runs(&cs[i]) && had)
                cleared += cs[i].want_err != 0;
            else if (!had)
                set += cs[i].want_err == 0;
        }
        printf("version 6 and 7 frames refused after a block's (slice's) "
               "first moved: %u; with runs, refused with the zero-run flag "
               "cleared: %u; without, decoded with it set: %u\n", moved,
               cleared, set);
        need(moved && cleared && set, "no moved block first, or no flipped "
                                      "zero-run flag, of each kind");
    }
    {
        /* code lengths that are no prefix code, in the rest */
        unsigned tables = 0;
        for (unsigned i = 5; i < nc; i += 6) {
            int r = damage_table(&cs[i]);
            if (r < 0) {
                printf("FAIL a damaged table's frame does not parse\n");
                failures++;
            }
            tables += r > 0 && cs[i].want_err;
        }
        printf("frames with a code table that is no prefix code: %u\n",
               tables);
        if (!tables) {
            printf("FAIL no damaged code table among the cases\n");
            failures++;
        }
    }
    {
        /* version 4 to 7 tables with a bit flipped */
        unsigned refused = 0;
        for (unsigned i = 1; i < nc; i += 4) {
            damage_table_bits(&cs[i]);
            refused += cs[i].info.version >= 4 && cs[i].want_err;
        }
        for (unsigned i = 3; i < nc; i += 4)
            damage_max_len(&cs[i]);
        printf("version 4 to 7 frames refused after a bit of their table "
               "flipped: %u\n", refused);
        if (!refused) {
            printf("FAIL no version 4 to 7 table damage refused\n");
            failures++;
        }
    }
    /* a code of every symbol for the gathers of fewer values */
    for (unsigned i = 0; i < nc; i++)
        if ((size_t)cs[i].p.traces * cs[i].p.samples < (1u << cs[i].p.bits) &&
            full_table(&cs[i])) {
            printf("FAIL a full code table's frame does not parse\n");
            failures++;
        }
    run_batch(s, cs, nc, "batch with damaged frames");
    sci_cuda_seis_tune_chunks(s, 1);
    run_batch(s, cs, nc, "batch with damaged frames, in chunks");
    sci_cuda_seis_tune_chunks(s, 0);
    for (unsigned i = 0; i < nc; i++)
        free_case(&cs[i]);
    free(cs);

    /* a batch of 64 shots of one geometry, bits and levels swept */
    if (!quick) {
        for (unsigned levels = 0; levels <= 4; levels++) {
            enum { SHOTS = 64 };
            fcase *b = calloc(SHOTS, sizeof *b);
            float *g = malloc((size_t)96 * 3584 * 4);
            for (unsigned i = 0; i < SHOTS; i++) {
                fill(g, 96, 3584, SMOOTH);
                sci_seis_params p = {96, 3584, 2000, 8 + i % 9, levels, 0};
                if (make_case(&b[i], g, p))
                    failures++;
            }
            run_batch(s, b, SHOTS, "64 shots");
            run_encode(s, b, SHOTS, NULL, "encode 64 shots");
            for (unsigned i = 0; i < SHOTS; i++)
                free_case(&b[i]);
            free(b);
            free(g);
        }
    }

    if (huge) {
        fcase c;
        float *g = malloc((size_t)4096 * 65535 * 4);
        fill(g, 4096, 65535, SMOOTH);
        sci_seis_params p = {4096, 65535, 1000, 12, 2, 0};
        if (!g || make_case(&c, g, p)) {
            failures++;
        } else {
            run_batch(s, &c, 1, "huge gather");
            run_encode(s, &c, 1, NULL, "encode huge gather");
            free_case(&c);
        }
        free(g);
    }

    if (data) {
        char path[4096];
        segy_gather sg;
        char why[256];
        snprintf(path, sizeof path, "%s/seismic/f3.sgy", data);
        if (segy_read(path, &sg, why, sizeof why) == 0) {
            fcase f[8];
            unsigned k = 0;
            for (unsigned bits = 8; bits <= 16; bits += 4)
                for (unsigned levels = 1; levels <= 4; levels += 3) {
                    sci_seis_params p = {sg.traces, sg.samples,
                                         sg.interval_us, bits, levels, 0};
                    if (make_case(&f[k], sg.data, p))
                        failures++;
                    else
                        k++;
                }
            run_batch(s, f, k, "f3.sgy");
            run_encode(s, f, k, NULL, "encode f3.sgy");
            for (unsigned i = 0; i < k; i++)
                free_case(&f[i]);
            segy_free(&sg);
        } else {
            printf("f3.sgy not read (%s): skipped\n", why);
        }
    }

    sci_cuda_seis_destroy(s);
    printf("parity-seismic: %d frames checked, %d failures; largest "
           "relative difference %.3g\n",
           checked, failures, max_rel);
    return failures ? 1 : 0;
}
