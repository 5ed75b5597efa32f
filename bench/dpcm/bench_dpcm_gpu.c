/*
 * Online DPCM on the GPU (cuda/dpcm/dpcm.h) against the C reference on all
 * cores and CharLS JPEG-LS, in one run on one machine (issue 4's targets:
 * 1024 x 1024 x 16 frames encoded in <= 2 ms, decoded in <= 50 ms alone
 * and >= 200 frames/s with frames in flight).
 *
 * Frames: the three real GMOS-N frames (132 x 288) and 1024 x 1024 frames
 * tiled from them by mirroring (bench-dpcm's `mirror` set).  Every coding
 * is checked: the GPU frame must equal the CPU frame byte for byte and
 * every decode must give the samples back.
 *
 * Times are wall-clock per call (the API synchronizes), median of --reps
 * runs after one warm-up: encode from host memory (upload included) and
 * from device memory; decode of one frame into device memory and into host
 * memory (download included); batches of 1..256 frames decoded in one call
 * into device memory (frames/s); encodes with frames in flight: 1..4 host
 * threads, each with its own handle and CUDA stream, encoding 1024 x 1024
 * frames from device memory (one frame's entropy coding, a few hundred
 * warps, leaves the GPU to the next frame's predictor); the decoder's
 * strip widths (sci_cuda_dpcm_tune_strip: its own choice, then 32, 16, 8
 * and 4 columns forced) for one frame and batches, with the real TRACE
 * 171 A frame (DIR/frames16) alone where it is.  The stage split comes
 * from CUDA events.
 *
 *   bench-dpcm-gpu [--reps N] [--data DIR]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench/common/benchutil.h"
#include "codec/dpcm/dpcm.h"
#include "cuda/dpcm/dpcm.h"
#include "tests/common/cudacheck.h"
#include "tests/fits/fitsread.h"

#if HAVE_CHARLS
#include <charls/charls.h>
#endif

typedef struct {
    const char *name;
    unsigned w, h;
    uint16_t *px;
} frame;

static frame mirror(const fits_frame *f, unsigned S, const char *name) {
    frame m = {name, S, S, malloc((size_t)S * S * 2)};
    for (unsigned y = 0; y < S; y++)
        for (unsigned x = 0; x < S; x++) {
            unsigned xx = x % (2 * f->w), yy = y % (2 * f->h);
            if (xx >= f->w)
                xx = 2 * f->w - 1 - xx;
            if (yy >= f->h)
                yy = 2 * f->h - 1 - yy;
            m.px[(size_t)y * S + x] = f->px[(size_t)yy * f->w + xx];
        }
    return m;
}

static int reps = 15;

#define TIME_MEDIAN(out, stmt) BENCH_TIME_MEDIAN(out, reps, stmt)

/* One host thread's share of the encodes in flight. */
typedef struct {
    const uint16_t *dpx; /* the three 1024 x 1024 frames, device memory */
    unsigned frames, first;
    const sci_dpcm_params *p;
    uint8_t *const *ref; /* the C reference's frames */
    const size_t *ref_len;
    pthread_barrier_t *start, *done;
    int bad;
} enc_job;

static void *enc_worker(void *arg) {
    enc_job *j = arg;
    const size_t count = (size_t)1024 * 1024;
    size_t cap = sci_dpcm_max_bytes(1024, 1024, 16), n = 0;
    sci_cuda_dpcm *g = NULL;
    cudaStream_t s = NULL;
    uint8_t *out = malloc(cap);
    j->bad = !out || sci_cuda_dpcm_create(&g) ||
             cudaStreamCreate(&s) != cudaSuccess ||
             sci_cuda_dpcm_encode(g, j->dpx, 1024, 2, 1, 1024, 1024, 16, j->p,
                                  NULL, 0, out, cap, &n, s); /* warm-up */
    pthread_barrier_wait(j->start);
    for (unsigned k = 0; k < j->frames && !j->bad; k++) {
        unsigned fi = (j->first + k) % 3;
        if (sci_cuda_dpcm_encode(g, j->dpx + count * fi, 1024, 2, 1, 1024,
                                 1024, 16, j->p, NULL, 0, out, cap, &n, s) ||
            n != j->ref_len[fi] || memcmp(out, j->ref[fi], n))
            j->bad = 1;
    }
    pthread_barrier_wait(j->done);
    if (s)
        cudaStreamDestroy(s);
    sci_cuda_dpcm_destroy(g);
    free(out);
    return NULL;
}

static void fail(const char *what, const frame *f) {
    fprintf(stderr, "bench-dpcm-gpu: %s on %s\n", what, f->name);
    exit(1);
}

#if HAVE_CHARLS
static size_t jls_encode(const frame *f, uint8_t *out, size_t cap) {
    charls_jpegls_encoder *e = charls_jpegls_encoder_create();
    charls_frame_info fi = {f->w, f->h, 16, 1};
    size_t n = 0;
    if (!e || charls_jpegls_encoder_set_frame_info(e, &fi) ||
        charls_jpegls_encoder_set_near_lossless(e, 0) ||
        charls_jpegls_encoder_set_destination_buffer(e, out, cap) ||
        charls_jpegls_encoder_encode_from_buffer(e, f->px,
                                                 (size_t)f->w * f->h * 2, 0) ||
        charls_jpegls_encoder_get_bytes_written(e, &n))
        n = 0;
    charls_jpegls_encoder_destroy(e);
    return n;
}

static int jls_decode(const frame *f, const uint8_t *in, size_t n,
                      uint16_t *out) {
    charls_jpegls_decoder *d = charls_jpegls_decoder_create();
    int bad = !d || charls_jpegls_decoder_set_source_buffer(d, in, n) ||
              charls_jpegls_decoder_read_header(d) ||
              charls_jpegls_decoder_decode_to_buffer(
                  d, out, (size_t)f->w * f->h * 2, 0);
    charls_jpegls_decoder_destroy(d);
    return bad;
}
#endif

int main(int argc, char **argv) {
    const char *dir = "../shared/data";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--data") && i + 1 < argc)
            dir = argv[++i];
    }
    if (reps < 1)
        reps = 1;
    REQUIRE_CUDA_DEVICE();
    char path[1024];
    snprintf(path, sizeof path, "%s/spectral16/gmos-n-multi.fits", dir);
    fits_frame real[3];
    unsigned nr = fits_read_u16(path, real, 3);
    if (nr != 3) {
        fprintf(stderr, "bench-dpcm-gpu: cannot read %s\n", path);
        return 1;
    }
    static const char *rn[] = {"real 1", "real 2", "real 3"};
    static const char *mn[] = {"mirror 1", "mirror 2", "mirror 3"};
    frame fr[6];
    for (unsigned i = 0; i < 3; i++) {
        fr[i] = (frame){rn[i], real[i].w, real[i].h, real[i].px};
        fr[3 + i] = mirror(&real[i], 1024, mn[i]);
    }
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs; reps %d (median after a warm-up)\n",
           prop.name, prop.multiProcessorCount, reps);
    sci_cuda_dpcm *g;
    CKW(sci_cuda_dpcm_create(&g));
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    p.threshold = 0; /* dpcmenc's default: every residual range-coded */

    /* the tables' buffers, once for the largest frame, and each frame on
     * the device once */
    size_t most = 0, most_cap = 0;
    void *dfr[6];
    for (unsigned i = 0; i < 6; i++) {
        size_t n = (size_t)fr[i].w * fr[i].h;
        size_t c = sci_dpcm_max_bytes(fr[i].w, fr[i].h, 16);
        most = n > most ? n : most;
        most_cap = c > most_cap ? c : most_cap;
        CK(cudaMalloc(&dfr[i], n * 2));
        CK(cudaMemcpy(dfr[i], fr[i].px, n * 2, cudaMemcpyHostToDevice));
    }
    uint8_t *cpu = malloc(most_cap), *gpu = malloc(most_cap);
    uint16_t *back = malloc(most * 2);
    void *dback;
    CK(cudaMalloc(&dback, most * 2));

    printf("\nper frame, N=11 M=7 T=0 (ms; GPU wall per call, CPU on all "
           "cores, CharLS one thread)\n");
    printf("| frame    | bpp   | JPEG-LS bpp | GPU enc (host) | GPU enc "
           "(dev) | GPU dec (dev) | GPU dec (host) | CPU enc | CPU dec | "
           "JPEG-LS enc | JPEG-LS dec | CPU/GPU enc | CPU/GPU dec |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
           "--- | --- | --- |\n");
    for (unsigned i = 0; i < 6; i++) {
        const frame *f = &fr[i];
        size_t count = (size_t)f->w * f->h;
        size_t cap = sci_dpcm_max_bytes(f->w, f->h, 16);
        void *dpx = dfr[i];
        size_t ncpu = 0, ngpu = 0;
        double t_cenc, t_cdec, t_genc_h, t_genc_d, t_gdec_d, t_gdec_h;
        int r1 = reps;
        reps = reps < 3 ? reps : 3; /* the CPU takes a while */
        TIME_MEDIAN(t_cenc, ncpu = sci_dpcm_encode(bench_pool(), f->px, f->w, f->w, f->h,
                                                   16, &p, cpu, cap));
        TIME_MEDIAN(t_cdec, if (sci_dpcm_decode(bench_pool(), cpu, ncpu, back, f->w, count,
                                                NULL)) fail("CPU decode", f));
        reps = r1;
        if (!ncpu || memcmp(back, f->px, count * 2))
            fail("CPU round trip", f);
        TIME_MEDIAN(t_genc_h,
                    CKW(sci_cuda_dpcm_encode(g, f->px, f->w, 2, 0, f->w, f->h,
                                             16, &p, NULL, 0, gpu, cap,
                                             &ngpu, NULL)));
        if (ngpu != ncpu || memcmp(cpu, gpu, ncpu))
            fail("GPU frame differs from the CPU frame", f);
        TIME_MEDIAN(t_genc_d,
                    CKW(sci_cuda_dpcm_encode(g, dpx, f->w, 2, 1, f->w, f->h, 16,
                                             &p, NULL, 0, gpu, cap, &ngpu,
                                             NULL)));
        if (ngpu != ncpu || memcmp(cpu, gpu, ncpu))
            fail("GPU frame (device input) differs", f);
        sci_cuda_dpcm_times te;
        sci_cuda_dpcm_set_timing(g, 1);
        CKW(sci_cuda_dpcm_encode(g, dpx, f->w, 2, 1, f->w, f->h, 16, &p, NULL,
                                 0, gpu, cap, &ngpu, NULL));
        sci_cuda_dpcm_get_times(g, &te);
        sci_cuda_dpcm_set_timing(g, 0);
        const uint8_t *in = cpu;
        size_t stride = f->w;
        int st;
        void *dst = dback;
        TIME_MEDIAN(t_gdec_d,
                    CKW(sci_cuda_dpcm_decode(g, 1, &in, &ncpu, &dst, &stride,
                                             &count, 2, 1, &st, NULL)));
        CK(cudaMemcpy(back, dback, count * 2, cudaMemcpyDeviceToHost));
        if (memcmp(back, f->px, count * 2))
            fail("GPU decode (device)", f);
        dst = back;
        memset(back, 0, count * 2);
        TIME_MEDIAN(t_gdec_h,
                    CKW(sci_cuda_dpcm_decode(g, 1, &in, &ncpu, &dst, &stride,
                                             &count, 2, 0, &st, NULL)));
        if (memcmp(back, f->px, count * 2))
            fail("GPU decode (host)", f);
        sci_cuda_dpcm_times td;
        sci_cuda_dpcm_set_timing(g, 1);
        dst = dback;
        CKW(sci_cuda_dpcm_decode(g, 1, &in, &ncpu, &dst, &stride, &count, 2,
                                 1, &st, NULL));
        sci_cuda_dpcm_get_times(g, &td);
        sci_cuda_dpcm_set_timing(g, 0);
        double jbpp = -1, t_jenc = -1, t_jdec = -1;
#if HAVE_CHARLS
        {
            size_t jcap = count * 3 + 1024, nj = 0;
            uint8_t *j = malloc(jcap);
            uint16_t *jb = malloc(count * 2);
            TIME_MEDIAN(t_jenc, nj = jls_encode(f, j, jcap));
            TIME_MEDIAN(t_jdec, if (jls_decode(f, j, nj, jb))
                                    fail("JPEG-LS decode", f));
            if (!nj || memcmp(jb, f->px, count * 2))
                fail("JPEG-LS round trip", f);
            jbpp = nj * 8.0 / count;
            free(j);
            free(jb);
        }
#endif
        printf("| %-8s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f | "
               "%.1f | %.2f | %.2f | %.0fx | %.0fx |\n",
               f->name, ncpu * 8.0 / count, jbpp, t_genc_h, t_genc_d,
               t_gdec_d, t_gdec_h, t_cenc, t_cdec, t_jenc, t_jdec,
               t_cenc / t_genc_d, t_cdec / t_gdec_d);
        printf("|   stages | enc: upload %.3f, predict %.3f, entropy %.3f, "
               "download %.3f; dec: upload %.3f, entropy %.3f, rebuild "
               "%.3f, download %.3f |\n",
               te.upload_ms, te.predict_ms, te.entropy_ms, te.download_ms,
               td.upload_ms, td.entropy_ms, td.rebuild_ms, td.download_ms);
    }

    /* The scan direction and the threshold against JPEG-LS: bits per
     * pixel, GPU times into and from device memory (CPU frame equal). */
    printf("\nscan direction, N=11 M=7 (bpp; ms GPU, device memory)\n");
    printf("| frame    | rows T13 | rows T0 | columns T13 | columns T0 | "
           "JPEG-LS | GPU enc, columns T13 | GPU dec, columns T13 |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (unsigned i = 0; i < 6; i++) {
        const frame *f = &fr[i];
        size_t count = (size_t)f->w * f->h;
        size_t cap = sci_dpcm_max_bytes(f->w, f->h, 16);
        void *dpx = dfr[i];
        double bpp[4], t_enc = 0, t_dec = 0;
        for (unsigned k = 0; k < 4; k++) {
            sci_dpcm_params q = p;
            q.scan = k < 2 ? SCI_DPCM_SCAN_ROWS : SCI_DPCM_SCAN_COLUMNS;
            q.threshold = k % 2 ? 0 : 13;
            size_t ncpu = 0, ngpu = 0;
            CKW(sci_cuda_dpcm_encode(g, dpx, f->w, 2, 1, f->w, f->h, 16, &q,
                                     NULL, 0, gpu, cap, &ngpu, NULL));
            ncpu = sci_dpcm_encode(bench_pool(), f->px, f->w, f->w, f->h, 16, &q, cpu, cap);
            if (!ncpu || ngpu != ncpu || memcmp(cpu, gpu, ncpu))
                fail("GPU frame differs from the CPU frame (scan)", f);
            bpp[k] = ncpu * 8.0 / count;
            if (k == 2) {
                const uint8_t *in = gpu;
                size_t stride = f->w;
                int st;
                void *dst = dback;
                TIME_MEDIAN(t_enc, CKW(sci_cuda_dpcm_encode(
                                       g, dpx, f->w, 2, 1, f->w, f->h, 16,
                                       &q, NULL, 0, gpu, cap, &ngpu, NULL)));
                TIME_MEDIAN(t_dec, CKW(sci_cuda_dpcm_decode(
                                       g, 1, &in, &ngpu, &dst, &stride,
                                       &count, 2, 1, &st, NULL)));
                CK(cudaMemcpy(back, dback, count * 2,
                              cudaMemcpyDeviceToHost));
                if (memcmp(back, f->px, count * 2))
                    fail("GPU decode (scan by columns)", f);
            }
        }
        double jbpp = -1;
#if HAVE_CHARLS
        {
            size_t jcap = count * 3 + 1024;
            uint8_t *j = malloc(jcap);
            jbpp = jls_encode(f, j, jcap) * 8.0 / count;
            free(j);
        }
#endif
        printf("| %-8s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
               f->name, bpp[0], bpp[1], bpp[2], bpp[3], jbpp, t_enc, t_dec);
    }

    /* What scan=auto's choice (two sums on the device, a host frame copied
     * there once for them and for the coding) adds to an encode alone. */
    printf("\nscan=auto against a fixed scan, N=11 M=7 T=0 (ms, GPU wall per "
           "call; the auto frame equal to the C reference's)\n");
    printf("| frame    | auto chose | host: rows | host: auto | device: rows | "
           "device: auto |\n");
    printf("| --- | --- | --- | --- | --- | --- |\n");
    for (unsigned i = 0; i < 6; i++) {
        const frame *f = &fr[i];
        size_t cap = sci_dpcm_max_bytes(f->w, f->h, 16);
        void *dpx = dfr[i];
        sci_dpcm_params rows = p, aut = p;
        rows.scan = SCI_DPCM_SCAN_ROWS;
        aut.scan = SCI_DPCM_SCAN_AUTO;
        size_t ngpu = 0, ncpu = sci_dpcm_encode(bench_pool(), f->px, f->w,
                                                f->w, f->h, 16, &aut, cpu, cap);
        double t[4];
        for (int k = 0; k < 4; k++) {
            const void *src = k < 2 ? (const void *)f->px : dpx;
            const sci_dpcm_params *q = k % 2 ? &aut : &rows;
            TIME_MEDIAN(t[k], CKW(sci_cuda_dpcm_encode(g, src, f->w, 2, k >= 2,
                                                       f->w, f->h, 16, q, NULL,
                                                       0, gpu, cap, &ngpu,
                                                       NULL)));
            if (k % 2 && (ngpu != ncpu || memcmp(cpu, gpu, ncpu)))
                fail("GPU frame differs from the CPU frame (auto)", f);
        }
        sci_dpcm_info info;
        const char *chose = "?";
        if (!sci_dpcm_peek(cpu, ncpu, &info))
            chose = info.params.scan == SCI_DPCM_SCAN_COLUMNS ? "columns" : "rows";
        printf("| %-8s | %s | %.3f | %.3f | %.3f | %.3f |\n", f->name, chose,
               t[0], t[1], t[2], t[3]);
    }

    /* Frames in flight: batches of the three 1024 x 1024 frames. */
    printf("\nbatch decode, 1024 x 1024 x 16 (mirror frames in turn), into "
           "device memory\n");
    printf("| frames | ms per call | ms per frame | frames/s |\n");
    printf("| --- | --- | --- | --- |\n");
    enum { MAXB = 264 };
    size_t cap = sci_dpcm_max_bytes(1024, 1024, 16);
    uint8_t *enc[3];
    size_t elen[3];
    for (unsigned i = 0; i < 3; i++) {
        enc[i] = malloc(cap);
        elen[i] = sci_dpcm_encode(bench_pool(), fr[3 + i].px, 1024, 1024, 1024, 16, &p,
                                  enc[i], cap);
    }
    size_t count = (size_t)1024 * 1024;
    uint16_t *dall;
    CK(cudaMalloc((void **)&dall, count * 2 * MAXB));
    const uint8_t *in[MAXB];
    size_t len[MAXB], stride[MAXB], capn[MAXB];
    void *dst[MAXB];
    int status[MAXB];
    for (unsigned i = 0; i < MAXB; i++) {
        in[i] = enc[i % 3];
        len[i] = elen[i % 3];
        stride[i] = 1024;
        capn[i] = count;
        dst[i] = dall + count * i;
    }
    static const unsigned nb[] = {1, 4, 16, 66, 132, 264};
    int r1 = reps;
    reps = reps < 5 ? reps : 5;
    for (unsigned k = 0; k < sizeof nb / sizeof nb[0]; k++) {
        double t;
        TIME_MEDIAN(t, CKW(sci_cuda_dpcm_decode(g, nb[k], in, len, dst,
                                                stride, capn, 2, 1, status,
                                                NULL)));
        uint16_t *back = malloc(count * 2);
        CK(cudaMemcpy(back, dall + count * (nb[k] - 1), count * 2,
                      cudaMemcpyDeviceToHost));
        if (memcmp(back, fr[3 + (nb[k] - 1) % 3].px, count * 2))
            fail("batch decode", &fr[3 + (nb[k] - 1) % 3]);
        free(back);
        printf("| %u | %.2f | %.3f | %.1f |\n", nb[k], t, t / nb[k],
               nb[k] * 1000.0 / t);
    }
    {
        /* where a large batch's time goes (CUDA events between stages) */
        sci_cuda_dpcm_times tb;
        sci_cuda_dpcm_set_timing(g, 1);
        CKW(sci_cuda_dpcm_decode(g, MAXB, in, len, dst, stride, capn, 2, 1,
                                 status, NULL));
        sci_cuda_dpcm_get_times(g, &tb);
        sci_cuda_dpcm_set_timing(g, 0);
        printf("stages of %u frames (ms): upload %.3f, entropy %.3f, "
               "rebuild %.3f, download %.3f\n", (unsigned)MAXB, tb.upload_ms,
               tb.entropy_ms, tb.rebuild_ms, tb.download_ms);
    }

    /* The decoder's strip width (sci_cuda_dpcm_tune_strip): the default
     * chooses by the batch's width; each forced width beside it, and the
     * real 1024 x 1024 TRACE 171 A frame alone, where it is. */
    fits_frame trace = {0, 0, NULL};
    uint8_t *tenc = NULL;
    size_t tlen = 0;
    snprintf(path, sizeof path,
             "%s/frames16/trace_171_19980519T222143_1024.fits", dir);
    if (fits_read_u16(path, &trace, 1) == 1) {
        size_t tcap = sci_dpcm_max_bytes(trace.w, trace.h, 16);
        tenc = malloc(tcap);
        tlen = sci_dpcm_encode(bench_pool(), trace.px, trace.w, trace.w,
                               trace.h, 16, &p, tenc, tcap);
    }
    printf("\ndecoder strip width, 1024 x 1024 x 16 mirror frames into device "
           "memory (0: the decoder's choice); TRACE 171 A (real, %s) "
           "alone\n", tlen ? "read" : "not found");
    printf("| columns | 1 frame ms | rebuild ms | 4 frames/s | 16 frames/s | "
           "132 frames/s | TRACE 1 frame ms |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    static const unsigned sws[] = {0, 32, 16, 8, 4};
    static const unsigned sb[] = {4, 16, 132};
    for (unsigned k = 0; k < sizeof sws / sizeof sws[0]; k++) {
        double t1, tb[3];
        sci_cuda_dpcm_tune_strip(g, sws[k]);
        TIME_MEDIAN(t1, CKW(sci_cuda_dpcm_decode(g, 1, in, len, dst, stride,
                                                 capn, 2, 1, status, NULL)));
        sci_cuda_dpcm_times td;
        sci_cuda_dpcm_set_timing(g, 1);
        CKW(sci_cuda_dpcm_decode(g, 1, in, len, dst, stride, capn, 2, 1,
                                 status, NULL));
        sci_cuda_dpcm_get_times(g, &td);
        sci_cuda_dpcm_set_timing(g, 0);
        CK(cudaMemset(dall + count * 129, 0, count * 2 * 3));
        for (unsigned b = 0; b < 3; b++)
            TIME_MEDIAN(tb[b], CKW(sci_cuda_dpcm_decode(
                                   g, sb[b], in, len, dst, stride, capn, 2, 1,
                                   status, NULL)));
        uint16_t *chk = malloc(count * 2);
        for (unsigned i = 0; i < 3; i++) {
            CK(cudaMemcpy(chk, dall + count * (129 + i), count * 2,
                          cudaMemcpyDeviceToHost));
            if (memcmp(chk, fr[3 + i].px, count * 2))
                fail("batch decode (strip width)", &fr[3 + i]);
        }
        free(chk);
        double tt = -1;
        if (tlen) {
            const uint8_t *tin = tenc;
            size_t tstride = trace.w, tcount = (size_t)trace.w * trace.h;
            void *tdst = dall;
            int tst;
            TIME_MEDIAN(tt, CKW(sci_cuda_dpcm_decode(g, 1, &tin, &tlen, &tdst,
                                                     &tstride, &tcount, 2, 1,
                                                     &tst, NULL)));
            uint16_t *tb16 = malloc(tcount * 2);
            CK(cudaMemcpy(tb16, dall, tcount * 2, cudaMemcpyDeviceToHost));
            if (memcmp(tb16, trace.px, tcount * 2))
                fail("GPU decode", &(frame){"TRACE 171 A", trace.w, trace.h,
                                            trace.px});
            free(tb16);
        }
        printf("| %u | %.3f | %.3f | %.1f | %.1f | %.1f | %.3f |\n", sws[k],
               t1, td.rebuild_ms, sb[0] * 1000.0 / tb[0],
               sb[1] * 1000.0 / tb[1], sb[2] * 1000.0 / tb[2], tt);
    }
    free(tenc);
    free(trace.px);
    sci_cuda_dpcm_tune_strip(g, 0);
    reps = r1;

    printf("\nencode with frames in flight, 1024 x 1024 x 16 (mirror frames in "
           "turn) from device memory: host threads, each its own handle and "
           "stream\n");
    printf("| threads | frames | ms | ms per frame | frames/s |\n");
    printf("| --- | --- | --- | --- | --- |\n");
    CK(cudaMemcpy(dall, fr[3].px, count * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dall + count, fr[4].px, count * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dall + 2 * count, fr[5].px, count * 2,
                  cudaMemcpyHostToDevice));
    for (unsigned nt = 1; nt <= 4; nt++) {
        enum { PER_THREAD = 60 };
        pthread_t th[4];
        enc_job job[4];
        pthread_barrier_t start, done;
        pthread_barrier_init(&start, NULL, nt + 1);
        pthread_barrier_init(&done, NULL, nt + 1);
        for (unsigned t = 0; t < nt; t++) {
            job[t] = (enc_job){dall, PER_THREAD, t, &p, enc, elen, &start,
                               &done, 0};
            if (pthread_create(&th[t], NULL, enc_worker, &job[t])) {
                fprintf(stderr, "bench-dpcm-gpu: no thread\n");
                return 1;
            }
        }
        pthread_barrier_wait(&start);
        double t0 = bench_now_ms();
        pthread_barrier_wait(&done);
        double ms = bench_now_ms() - t0;
        for (unsigned t = 0; t < nt; t++) {
            pthread_join(th[t], NULL);
            if (job[t].bad)
                fail("an encode in flight differs from the CPU frame",
                     &fr[3]);
        }
        pthread_barrier_destroy(&start);
        pthread_barrier_destroy(&done);
        unsigned frames = nt * PER_THREAD;
        printf("| %u | %u | %.1f | %.3f | %.1f |\n", nt, frames, ms,
               ms / frames, frames * 1000.0 / ms);
    }
    printf("\ndevice memory held: %.1f MiB\n",
           sci_cuda_dpcm_device_bytes(g) / 1048576.0);
    cudaFree(dall);
    for (unsigned i = 0; i < 6; i++)
        cudaFree(dfr[i]);
    cudaFree(dback);
    free(cpu);
    free(gpu);
    free(back);
    sci_cuda_dpcm_destroy(g);
    return 0;
}
