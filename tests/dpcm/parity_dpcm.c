/*
 * The CUDA online-DPCM coder (cuda/dpcm/dpcm.h) against the C reference, in the
 * manner of dav1d's checkasm: frames of awkward sizes (1x1, single rows
 * and columns, widths below N + M, odd sizes, 1024 x 1024, the real GMOS-N
 * frames when the data is there), depths 1..16, contents from noise to
 * ramps, constants and outliers near the top of the range, parameter
 * corners (N 1..32, M 1..64, T 0/1/13/huge).  For each: the GPU frame must
 * equal sci_dpcm_encode_meta's byte for byte (samples from host and from
 * device memory); the GPU decode of the reference frame must give the
 * samples back (into host and device memory); and a batch of frames with
 * damaged ones in it must report, frame by frame, what sci_dpcm_decode
 * reports, decoding the good ones.  Large orders run again with the
 * kernels planned for 64 and 99 KiB of shared memory a block (Turing,
 * sm_86/sm_89), which fit fewer of their systems a block, and every
 * case runs again with the decoder's strips forced to 32, 16, 8, 5 and 1
 * columns.
 *
 *   parity-dpcm [--seed N] [--quick] [--verbose] [--data DIR]
 *
 * --quick: small frames only (the emulated run in CI).  Exit 0 when all
 * pass, 1 on a failure, 77 when there is no CUDA device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "codec/common/crc32.h"
#include "codec/dpcm/dpcm.h"
#include "cuda/dpcm/dpcm.h"
#include "tests/common/cudacheck.h"
#include "tests/fits/fitsread.h"
#include "tests/common/testutil.h"

enum { NOISE, SMOOTH, RAMP, CONSTANT, OUTLIERS, REAL };

typedef struct {
    unsigned w, h, depth, n, m, t;
    int content;
    int quick;
    unsigned scan; /* SCI_DPCM_SCAN_ROWS, _COLUMNS or _AUTO */
} tcase;

static const tcase cases[] = {
    {1, 1, 16, 11, 7, 13, NOISE, 1, 0},
    {1, 1, 1, 1, 1, 0, NOISE, 1, 0},
    {7, 1, 8, 11, 7, 13, SMOOTH, 1, 0},
    {1, 9, 12, 11, 7, 13, SMOOTH, 1, 0},
    {2, 2, 16, 11, 7, 0, NOISE, 1, 0},
    {3, 2, 16, 11, 7, 13, SMOOTH, 1, 0},
    {13, 5, 16, 11, 7, 13, SMOOTH, 1, 0},
    {17, 4, 16, 11, 7, 1, OUTLIERS, 1, 0},
    {33, 17, 12, 4, 4, 13, SMOOTH, 1, 0},
    {33, 17, 16, 32, 64, 13, SMOOTH, 1, 0},
    {40, 9, 16, 1, 1, 0, RAMP, 1, 0},
    {31, 23, 16, 11, 7, 13, CONSTANT, 1, 0},
    {57, 30, 16, 11, 7, 13, OUTLIERS, 1, 0},
    {64, 64, 10, 16, 8, 1000000, NOISE, 1, 0},
    {129, 37, 8, 11, 7, 13, NOISE, 1, 0},
    {5, 300, 16, 11, 7, 13, SMOOTH, 1, 0},
    {5, 300, 16, 11, 7, 13, SMOOTH, 1, SCI_DPCM_SCAN_COLUMNS},
    {37, 23, 8, 11, 7, 13, NOISE, 1, SCI_DPCM_SCAN_COLUMNS},
    {1, 9, 16, 11, 7, 0, SMOOTH, 1, SCI_DPCM_SCAN_COLUMNS},
    {132, 288, 16, 11, 7, 13, REAL, 1, SCI_DPCM_SCAN_COLUMNS},
    {1024, 1024, 16, 11, 7, 13, REAL, 0, SCI_DPCM_SCAN_COLUMNS},
    {132, 288, 16, 11, 7, 13, REAL, 1, 0},
    {132, 288, 16, 11, 7, 0, REAL, 0, 0},
    {333, 211, 16, 11, 7, 13, SMOOTH, 0, 0},
    {1000, 3, 16, 11, 7, 13, NOISE, 0, 0},
    {3, 1000, 16, 11, 7, 13, NOISE, 0, 0},
    {1024, 1024, 16, 11, 7, 13, REAL, 0, 0},
    {4099, 40, 16, 11, 7, 13, SMOOTH, 0, 0},
    {20000, 2, 16, 11, 7, 13, SMOOTH, 0, 0},
    /* scan=auto: the GPU's sums (host frames: the host's) must choose as
     * the C reference does */
    {1, 1, 16, 11, 7, 13, NOISE, 1, SCI_DPCM_SCAN_AUTO},
    {37, 23, 8, 11, 7, 13, NOISE, 1, SCI_DPCM_SCAN_AUTO},
    {5, 300, 16, 11, 7, 13, SMOOTH, 1, SCI_DPCM_SCAN_AUTO},
    {300, 5, 16, 11, 7, 13, RAMP, 1, SCI_DPCM_SCAN_AUTO},
    {132, 288, 16, 11, 7, 13, REAL, 1, SCI_DPCM_SCAN_AUTO},
    {1024, 1024, 16, 11, 7, 13, REAL, 0, SCI_DPCM_SCAN_AUTO},
    {4099, 40, 16, 11, 7, 13, SMOOTH, 0, SCI_DPCM_SCAN_AUTO},
};

static fits_frame real[8];
static unsigned nreal;
static int decode_only; /* the decoder's strip widths: no GPU encode */

static uint32_t rnd(void) {
    return (uint32_t)rng();
}

static void fill(uint16_t *px, const tcase *c) {
    const uint32_t maxval = (1u << c->depth) - 1;
    unsigned k = rnd() % 1000;
    for (unsigned y = 0; y < c->h; y++)
        for (unsigned x = 0; x < c->w; x++) {
            uint32_t v;
            switch (c->content) {
            case NOISE: v = rnd() & maxval; break;
            case SMOOTH:
                v = (uint32_t)((x * 37 + y * 11 + k) % 997) * maxval / 997;
                v = (v + (rnd() % 9)) & maxval;
                break;
            case RAMP: v = (x + y * 3 + k) & maxval; break;
            case CONSTANT: v = k & maxval; break;
            case OUTLIERS:
                v = rnd() % 7 ? 1000 + rnd() % 50 : maxval - rnd() % 3;
                v &= maxval;
                break;
            default:
                v = nreal ? fits_mosaic_sample(real, nreal, x, y) & maxval
                          : (x * y) & maxval;
            }
            px[(size_t)y * c->w + x] = (uint16_t)v;
        }
}

static int verbose;
static int quick; /* --quick: small frames only */

/* 8-bit samples (GRAY8) in and out, from host and device memory, with a
 * stride wider than the row: the same frame, the same samples. */
static int run_8bit(sci_cuda_dpcm *g, const tcase *c, const uint16_t *px,
                    const uint8_t *ref, size_t nref) {
    const size_t stride = (size_t)c->w + 3, count = stride * c->h;
    sci_dpcm_params p = {c->n, c->m, c->t, c->scan};
    const uint8_t meta[] = "FHDRparity";
    size_t meta_len = (c->w + c->h) % 2 ? sizeof meta : 0;
    size_t cap = sci_dpcm_max_bytes(c->w, c->h, c->depth) + meta_len;
    uint8_t *px8 = malloc(count), *back = malloc(count), *gpu = malloc(cap);
    void *dpx = NULL, *dback = NULL;
    int fails = 0;
    CK(cudaMalloc(&dpx, count));
    CK(cudaMalloc(&dback, count));
    memset(px8, 0x5A, count);
    for (unsigned y = 0; y < c->h; y++)
        for (unsigned x = 0; x < c->w; x++)
            px8[y * stride + x] = (uint8_t)px[(size_t)y * c->w + x];
    CK(cudaMemcpy(dpx, px8, count, cudaMemcpyHostToDevice));
    for (int dev = 0; dev < 2; dev++) {
        size_t ng = 0;
        int st = sci_cuda_dpcm_encode(g, dev ? dpx : (void *)px8, stride, 1,
                                      dev, c->w, c->h, c->depth, &p, meta,
                                      meta_len, gpu, cap, &ng, NULL);
        if (st || ng != nref || memcmp(ref, gpu, nref)) {
            printf("  %ux%u d%u: 8-bit GPU frame (%s) differs: st %d\n",
                   c->w, c->h, c->depth, dev ? "device" : "host", st);
            fails++;
        }
    }
    for (int dev = 0; dev < 2; dev++) {
        const uint8_t *in = ref;
        size_t len = nref, capn = count;
        void *dst = dev ? dback : (void *)back;
        int status = 1;
        memset(back, 0xA5, count);
        if (dev)
            CK(cudaMemcpy(dback, back, count, cudaMemcpyHostToDevice));
        int st = sci_cuda_dpcm_decode(g, 1, &in, &len, &dst, &stride, &capn,
                                      1, dev, &status, NULL);
        if (dev)
            CK(cudaMemcpy(back, dback, count, cudaMemcpyDeviceToHost));
        int ok = st == 0 && status == 0;
        for (unsigned y = 0; ok && y < c->h; y++)
            for (unsigned x = 0; x < stride; x++)
                if (back[y * stride + x] !=
                    (x < c->w ? px8[y * stride + x] : 0xA5))
                    ok = 0;
        if (!ok) {
            printf("  %ux%u d%u: 8-bit GPU decode (%s) failed: %d/%d\n",
                   c->w, c->h, c->depth, dev ? "device" : "host", st, status);
            fails++;
        }
    }
    cudaFree(dpx);
    cudaFree(dback);
    free(px8);
    free(back);
    free(gpu);
    return fails;
}

static int run_case(sci_cuda_dpcm *g, const tcase *c) {
    size_t count = (size_t)c->w * c->h;
    sci_dpcm_params p = {c->n, c->m, c->t, c->scan};
    const uint8_t meta[] = "FHDRparity";
    size_t meta_len = (c->w + c->h) % 2 ? sizeof meta : 0;
    size_t cap = sci_dpcm_max_bytes(c->w, c->h, c->depth) + meta_len;
    uint16_t *px = malloc(count * 2), *back = malloc(count * 2);
    uint8_t *ref = malloc(cap), *gpu = malloc(cap);
    void *dpx = NULL, *dback = NULL;
    CK(cudaMalloc(&dpx, count * 2));
    CK(cudaMalloc(&dback, count * 2));
    fill(px, c);
    int fails = 0;
    size_t nref = sci_dpcm_encode_meta(test_pool(), px, c->w, c->w, c->h, c->depth, &p,
                                       meta, meta_len, ref, cap);
    if (!nref) {
        printf("  %ux%u: the reference refused the frame\n", c->w, c->h);
        fails++;
    }
    for (int dev = 0; dev < 2 && nref && !decode_only; dev++) {
        size_t ng = 0;
        const uint16_t *src = px;
        if (dev) {
            CK(cudaMemcpy(dpx, px, count * 2, cudaMemcpyHostToDevice));
            src = dpx;
        }
        int st = sci_cuda_dpcm_encode(g, src, c->w, 2, dev, c->w, c->h,
                                      c->depth, &p, meta, meta_len, gpu, cap,
                                      &ng, NULL);
        int same = st == 0 && ng == nref && !memcmp(ref, gpu, nref);
        if (!same) {
            size_t i = 0;
            while (i < ng && i < nref && ref[i] == gpu[i])
                i++;
            printf("  %ux%u d%u N%u M%u T%u S%u: GPU frame (%s) differs: st %d "
                   "%zu vs %zu bytes, first difference at %zu\n",
                   c->w, c->h, c->depth, c->n, c->m, c->t, c->scan,
                   dev ? "device" : "host", st, ng, nref, i);
        }
        fails += !same;
    }
    /* GPU decode of the reference frame, to host and device memory */
    for (int dev = 0; dev < 2 && nref; dev++) {
        const uint8_t *in = ref;
        size_t len = nref, stride = c->w, capn = count;
        void *dst = dev ? dback : (void *)back;
        int status = 1;
        memset(back, 0xA5, count * 2);
        int st = sci_cuda_dpcm_decode(g, 1, &in, &len, &dst, &stride, &capn,
                                      2, dev, &status, NULL);
        if (dev)
            CK(cudaMemcpy(back, dback, count * 2, cudaMemcpyDeviceToHost));
        int ok = st == 0 && status == 0 && !memcmp(back, px, count * 2);
        if (!ok)
            printf("  %ux%u d%u N%u M%u T%u S%u: GPU decode (%s) failed: %d/%d\n",
                   c->w, c->h, c->depth, c->n, c->m, c->t, c->scan,
                   dev ? "device" : "host", st, status);
        fails += !ok;
    }
    if (c->depth <= 8 && nref)
        fails += run_8bit(g, c, px, ref, nref);
    if (verbose)
        printf("  %ux%u d%u N%u M%u T%u: %zu bytes (%.3f bpp)\n", c->w, c->h,
               c->depth, c->n, c->m, c->t, nref, nref * 8.0 / count);
    cudaFree(dpx);
    cudaFree(dback);
    free(px);
    free(back);
    free(ref);
    free(gpu);
    return fails;
}

/* The cases of set[0..n) that a quick run takes, or all of up to `most`
 * samples otherwise, under a setting the caller made (`what`, with its
 * value v, is said after a failing case); returns the failures. */
static int run_set(sci_cuda_dpcm *g, const tcase *set, size_t n, size_t most,
                   const char *what, size_t v, int *run) {
    int fails = 0;
    for (size_t i = 0; i < n; i++) {
        if (!set[i].quick && (quick || (size_t)set[i].w * set[i].h > most))
            continue;
        int f = run_case(g, &set[i]) != 0;
        if (f) {
            printf("  (");
            printf(what, v);
            printf(")\n");
        }
        fails += f;
        ++*run;
    }
    return fails;
}

/* A batch with damaged frames among good ones: each frame's status must be
 * sci_dpcm_decode's, and the good frames must decode. */
static int run_batch(sci_cuda_dpcm *g) {
    enum { NF = 7 };
    const unsigned W = 45, H = 29;
    sci_dpcm_params p = {11, 7, 13, SCI_DPCM_SCAN_ROWS};
    uint16_t px[NF][45 * 29], back[NF][45 * 29];
    uint8_t *fr[NF];
    size_t len[NF], stride[NF], capn[NF];
    uint16_t *dst[NF];
    int status[NF], want[NF];
    int fails = 0;
    for (unsigned i = 0; i < NF; i++) {
        tcase c = {W, H, 16, 11, 7, 13, i % 2 ? NOISE : SMOOTH, 1, 0};
        /* every third frame scanned by columns: mixed in one batch */
        p.scan = i % 3 == 2 ? SCI_DPCM_SCAN_COLUMNS : SCI_DPCM_SCAN_ROWS;
        fill(px[i], &c);
        size_t cap = sci_dpcm_max_bytes(W, H, 16);
        fr[i] = malloc(cap);
        len[i] = sci_dpcm_encode(test_pool(), px[i], W, W, H, 16, &p, fr[i], cap);
        stride[i] = W;
        capn[i] = (size_t)W * H;
        dst[i] = back[i];
    }
    sci_dpcm_info info;
    sci_dpcm_peek(fr[1], len[1], &info);
    fr[1][len[1] / 2] ^= 0x10;                     /* CRC */
    len[2] -= 3;                                   /* truncated */
    /* a segment's byte changed, the CRC made right: the decoder's checks */
    sci_dpcm_peek(fr[4], len[4], &info);
    size_t body = len[4] - 4;
    fr[4][info.coded_offset + 7] ^= 0x5A;
    uint32_t crc = sci_crc32(0, fr[4], body);
    for (int k = 0; k < 4; k++)
        fr[4][body + k] = (uint8_t)(crc >> (8 * k));
    /* a sample pushed out of range: residual 0 of the frame is the first
     * sample; code frame 6 from a frame whose reconstruction overflows is
     * not possible by encoding, so damage its thresholds instead */
    sci_dpcm_peek(fr[6], len[6], &info);
    fr[6][20] ^= 1; /* T- changes: residuals decode differently */
    crc = sci_crc32(0, fr[6], len[6] - 4);
    for (int k = 0; k < 4; k++)
        fr[6][len[6] - 4 + k] = (uint8_t)(crc >> (8 * k));
    for (unsigned i = 0; i < NF; i++) {
        uint16_t tmp[45 * 29];
        want[i] = sci_dpcm_decode(test_pool(), fr[i], len[i], tmp, W, (size_t)W * H, NULL);
    }
    const uint8_t *in[NF];
    for (unsigned i = 0; i < NF; i++)
        in[i] = fr[i];
    int st = sci_cuda_dpcm_decode(g, NF, in, len, (void *const *)dst, stride,
                                  capn, 2, 0, status, NULL);
    int first = 0;
    for (unsigned i = 0; i < NF; i++) {
        if (status[i] != want[i]) {
            printf("  batch frame %u: status %d, the reference says %d\n", i,
                   status[i], want[i]);
            fails++;
        }
        if (!want[i] && memcmp(back[i], px[i], sizeof px[i])) {
            printf("  batch frame %u: samples differ\n", i);
            fails++;
        }
        if (want[i] && !first)
            first = want[i];
    }
    if (st != first) {
        printf("  batch: returned %d, first failure is %d\n", st, first);
        fails++;
    }
    int bad = 0;
    for (unsigned i = 0; i < NF; i++)
        bad += want[i] != 0;
    if (bad < 3) {
        printf("  batch: only %d damaged frames were refused\n", bad);
        fails++;
    }
    for (unsigned i = 0; i < NF; i++)
        free(fr[i]);
    return fails;
}

/* A frame built from residuals (all 0, so every prediction is 0, except
 * `v` at (x, y)): with v < 0 a sample leaves the range there. */
static size_t residual_frame(unsigned w, unsigned h, unsigned x, unsigned y,
                             int32_t v, uint8_t **out) {
    sci_dpcm_params p = {11, 7, 0, SCI_DPCM_SCAN_ROWS};
    size_t count = (size_t)w * h;
    int32_t *res = calloc(count, sizeof *res);
    res[(size_t)y * w + x] = v;
    unsigned seg_rows = sci_dpcm_segment_rows(w, h);
    unsigned segs = (h + seg_rows - 1) / seg_rows;
    int32_t lo, hi;
    sci_dpcm_thresholds(res, count, 16, 0, &lo, &hi);
    size_t pre = SCI_DPCM_HEADER_BYTES + 4 * (size_t)segs;
    size_t cap = pre + sci_dpcm_coded_bound(w, h, seg_rows) +
                 SCI_DPCM_TRAILER_BYTES;
    uint8_t *f = malloc(cap);
    uint32_t *lens = malloc(segs * sizeof *lens), esc = 0;
    size_t coded = 0;
    int st = sci_dpcm_code_residuals(test_pool(), res, w, h, 16, lo, hi, seg_rows, f + pre,
                                     cap - pre, lens, &coded, &esc);
    check(st == 0, "residual frame: coded");
    sci_dpcm_write_header(f, w, h, 16, &p, lo, hi, esc, seg_rows, coded, 0,
                          0, lens);
    free(res);
    free(lens);
    *out = f;
    return sci_dpcm_finish_frame(f, pre + coded);
}

/* Samples out of range in the wavefront decoder: in the first strip, in a
 * later one (strips to the right must stop, not wait), on the last row,
 * each among good frames; the statuses must be the reference's. */
static int run_overflow(sci_cuda_dpcm *g) {
    static const unsigned geo[][4] = {
        {100, 20, 70, 6}, {100, 20, 3, 2}, {40, 9, 39, 8}, {1, 5, 0, 3},
        {300, 4, 299, 1}, {64, 64, 0, 63},
    };
    enum { NG = sizeof geo / sizeof geo[0], NF = 2 * NG };
    uint8_t *fr[NF];
    size_t len[NF], stride[NF], capn[NF];
    uint16_t *back[NF], *refpx[NF];
    void *dst[NF];
    int status[NF], want[NF], fails = 0;
    for (unsigned i = 0; i < NF; i++) {
        const unsigned *q = geo[i / 2];
        /* odd frames good: 1000 at the same place stays in range */
        len[i] = residual_frame(q[0], q[1], q[2], q[3], i % 2 ? 1000 : -1,
                                &fr[i]);
        stride[i] = q[0];
        capn[i] = (size_t)q[0] * q[1];
        back[i] = malloc(capn[i] * 2);
        refpx[i] = malloc(capn[i] * 2);
        dst[i] = back[i];
        want[i] = sci_dpcm_decode(test_pool(), fr[i], len[i], refpx[i], q[0], capn[i],
                                  NULL);
        if (want[i] != (i % 2 ? 0 : SCI_DPCM_E_SAMPLE)) {
            printf("  overflow frame %u: the reference says %d\n", i,
                   want[i]);
            fails++;
        }
    }
    for (int dev = 0; dev < 2; dev++) {
        const uint8_t *in[NF];
        void *ddst[NF];
        for (unsigned i = 0; i < NF; i++) {
            in[i] = fr[i];
            ddst[i] = NULL;
            if (dev)
                CK(cudaMalloc(&ddst[i], capn[i] * 2));
        }
        int st = sci_cuda_dpcm_decode(g, NF, in, len,
                                      dev ? (void *const *)ddst : dst, stride,
                                      capn, 2, dev, status, NULL);
        for (unsigned i = 0; i < NF; i++) {
            if (dev)
                CK(cudaMemcpy(back[i], ddst[i], capn[i] * 2,
                              cudaMemcpyDeviceToHost));
            int ok = status[i] == want[i];
            if (ok && !want[i])
                ok = !memcmp(back[i], refpx[i], capn[i] * 2);
            if (!ok) {
                printf("  overflow frame %u (%s): status %d, the reference "
                       "says %d\n", i, dev ? "device" : "host", status[i],
                       want[i]);
                fails++;
            }
            cudaFree(ddst[i]);
        }
        if (st != SCI_DPCM_E_SAMPLE) {
            printf("  overflow batch: returned %d\n", st);
            fails++;
        }
    }
    for (unsigned i = 0; i < NF; i++) {
        free(fr[i]);
        free(back[i]);
        free(refpx[i]);
    }
    return fails;
}

int main(int argc, char **argv) {
    const char *dir = "../shared/data";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else if (!strcmp(argv[i], "--data") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0);
    }
    REQUIRE_CUDA_DEVICE();
    char path[1024];
    snprintf(path, sizeof path, "%s/spectral16/gmos-n-multi.fits", dir);
    nreal = fits_read_u16(path, real, 8);
    if (!nreal)
        printf("note: %s not read; REAL cases use a synthetic pattern\n",
               path);
    sci_cuda_dpcm *g;
    CKW(sci_cuda_dpcm_create(&g));
    int fails = 0, run = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (quick && !cases[i].quick)
            continue;
        fails += run_case(g, &cases[i]) != 0;
        run++;
    }
    /* random sizes and parameters */
    int nrand = quick ? 12 : 60;
    for (int i = 0; i < nrand; i++) {
        tcase c;
        c.w = 1 + rnd() % (quick ? 70 : 700);
        c.h = 1 + rnd() % (quick ? 40 : 300);
        c.depth = 1 + rnd() % 16;
        c.n = 1 + rnd() % 32;
        c.m = 1 + rnd() % 64;
        unsigned tv[] = {0, 1, 13, 200};
        c.t = tv[rnd() % 4];
        c.content = (int)(rnd() % 6);
        c.quick = 1;
        c.scan = rnd() % 2;
        fails += run_case(g, &c) != 0;
        run++;
    }
    fails += run_batch(g) != 0;
    run++;
    fails += run_overflow(g) != 0;
    run++;
    /* The decoder's strip width is its own choice (4..32 by the batch's
     * width): every width, odd ones too, must give the same samples. */
    static const unsigned widths[] = {32, 16, 8, 5, 1};
    decode_only = 1;
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        sci_cuda_dpcm_tune_strip(g, widths[k]);
        fails += run_set(g, cases, sizeof cases / sizeof cases[0], 300000,
                         "strips of %zu columns", widths[k], &run);
        fails += run_batch(g) != 0;
        run++;
    }
    sci_cuda_dpcm_tune_strip(g, 0);
    decode_only = 0;
    /* The launch shapes of GPUs with less shared memory a block: Turing
     * (64 KiB) and sm_86/sm_89 (99 KiB) hold fewer of the large orders'
     * systems a block, in the encoder and the decoder: the same bytes. */
    static const tcase large[] = {
        {33, 17, 16, 32, 64, 13, SMOOTH, 1, 0},
        {41, 29, 12, 27, 40, 1, NOISE, 1, SCI_DPCM_SCAN_COLUMNS},
        {140, 90, 16, 32, 64, 13, REAL, 0, 0},
        {300, 77, 16, 26, 9, 13, SMOOTH, 0, 0},
    };
    static const size_t limits[] = {65536, 101376};
    for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
        sci_cuda_dpcm_limit_shared(g, limits[l]);
        fails += run_set(g, large, sizeof large / sizeof large[0], SIZE_MAX,
                         "shared memory limited to %zu bytes", limits[l],
                         &run);
    }
    sci_cuda_dpcm_limit_shared(g, 0);
    check(fails == 0, "every case");
    printf("parity-dpcm: %d cases, %d failed; device memory held %zu bytes\n",
           run, fails, sci_cuda_dpcm_device_bytes(g));
    sci_cuda_dpcm_destroy(g);
    for (unsigned i = 0; i < nreal; i++)
        free(real[i].px);
    return fails ? 1 : 0;
}
