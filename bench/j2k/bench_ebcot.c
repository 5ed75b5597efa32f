/*
 * ebcotcm benchmark (issue 7), GPU against the CPU and against OpenJPEG
 * and Grok on the same machine and images, in one run.
 *
 * Part 1, the paper's Tier-1 table (Matela et al.): 8-bit grey images,
 * 3-level 5/3, 64x64 code-blocks, lossless: 512x512 natural, white noise
 * and one colour; 1280x720, 1920x1080 and 4096x2160 natural.  Per image:
 *   GPU T1    the Tier-1 kernels (quantization, bit-parallel modeller, MQ
 *             coder, packing), CUDA events, from device coefficients;
 *             model and MQ, two of them; decisions, all and in the
 *             largest block (whose MQ chain is the kernel's critical path)
 *   +d2h      the same with the results' way to the host
 *   GPU frame samples on the device to the codestream in pinned host
 *             memory: DWT, Tier-1, copies, rate allocation and tier-2
 *   CPU T1    sci_t1_encode of every block with OpenMP (the C reference)
 *   CPU frame sci_wt_forward + sci_htj2k_encode on the codec's thread pool
 *             (--threads threads)
 *   opj, grk  opj_compress / grk_compress of the same PGM with the same
 *             parameters and --threads threads, whole process (they read
 *             and write files; no Tier-1 alone can be had from them)
 * Part 2: a 4096x2160 4:4:4 12-bit frame end to end (samples on the
 * device to the codestream, frames/s), lossless (5/3 + RCT) and lossy
 * (9/7 + ICT at --bpp with PCRD), against opj_compress and grk_compress
 * (lossless; lossy with -r at the ratio of our bytes); then the same
 * frames as a stream with two in flight (stream_fps), --stream-frames
 * frames (60) a case.
 * Every GPU codestream is compared with the CPU's byte for byte.
 *
 *   bench-ebcot [--runs N] [--cpu-runs N] [--anchor-runs N] [--threads T]
 *               [--bpp B] [--images DIR] [--work DIR] [--no-anchors]
 *               [--frames-only] [--mq-heavy N] [--mq-lanes N]
 *               [--stream-frames N]
 *
 * --frames-only: Part 2 alone.  --mq-heavy, --mq-lanes: the MQ kernel's
 * layout (sci_cuda_t1_set_mq_heavy, _lanes), for trying others.
 * --images DIR: natural-512x512.pgm, natural-1280x720.pgm,
 * natural-1920x1080.pgm, natural-4096x2160.pgm (8-bit) and
 * natural-4096x2160.ppm (any maxval, scaled to 12 bits) are read from DIR
 * where present (bench/j2k/ebcot_images.py makes them from scikit-image's
 * photographs); else a synthetic natural-looking image stands in, which
 * the table says.  --work DIR: where the anchors' files go (a temporary
 * directory by default).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <cuda_runtime_api.h>

#include "bench/common/benchutil.h"
#include "codec/j2k/htj2k.h"
#include "codec/j2k/t1.h"
#include "codec/j2k/wavelet_frame.h"
#include "cuda/j2k/dwt.h"
#include "cuda/j2k/t1.h"
#include "tests/common/cudacheck.h"

typedef struct {
    uint32_t w, h;
    unsigned comps, depth;
    uint16_t *pl[3];
    char source[160];
} image;

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(void) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

/* A lit scene: gradients, a disc, a dark rectangle, texture, a little
 * noise; component c tinted. */
static void synth_natural(image *im) {
    double top = (double)((1u << im->depth) - 1);
    for (unsigned c = 0; c < im->comps; c++)
        for (uint32_t y = 0; y < im->h; y++)
            for (uint32_t x = 0; x < im->w; x++) {
                double fx = (double)x / im->w, fy = (double)y / im->h;
                double v = 0.2 + 0.5 * fx * (1 - 0.5 * fy) + 0.1 * sin(3 * fy + fx);
                double dx = fx - 0.3, dy = fy - 0.5;
                if (dx * dx + dy * dy < 0.03)
                    v = 0.8 - 0.3 * fy;
                if (fx > 0.55 && fx < 0.85 && fy > 0.2 && fy < 0.45)
                    v = 0.15 + 0.05 * fx;
                if (fy > 0.6)
                    v += 0.04 * sin(x * 0.31) * sin(y * 0.27) +
                         0.02 * sin((x + y) * 0.11);
                v *= c == 0 ? 1.0 : c == 1 ? 0.9 - 0.1 * fy : 0.7 + 0.2 * fx;
                v = (v + ((rnd() & 1023) / 1023.0 - 0.5) * 0.004) * top;
                v = v < 0 ? 0 : v > top ? top : v;
                im->pl[c][(size_t)y * im->w + x] = (uint16_t)v;
            }
    snprintf(im->source, sizeof(im->source), "synthetic");
}

static void image_alloc(image *im, uint32_t w, uint32_t h, unsigned comps,
                        unsigned depth) {
    memset(im, 0, sizeof(*im));
    im->w = w, im->h = h, im->comps = comps, im->depth = depth;
    for (unsigned c = 0; c < comps; c++)
        im->pl[c] = calloc((size_t)w * h, 2);
}

static void image_free(image *im) {
    for (unsigned c = 0; c < im->comps; c++)
        free(im->pl[c]);
}

/* Binary PGM (P5) or PPM (P6), scaled to im->depth bits; 0 or -1. */
static int load_pnm(const char *path, image *im) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char magic[3] = {0};
    unsigned w, h, maxv;
    if (fscanf(f, "%2s %u %u %u", magic, &w, &h, &maxv) != 4 || maxv == 0 ||
        maxv > 65535 || w != im->w || h != im->h ||
        strcmp(magic, im->comps == 3 ? "P6" : "P5")) {
        fclose(f);
        return -1;
    }
    fgetc(f);
    unsigned top = (1u << im->depth) - 1;
    for (size_t i = 0; i < (size_t)w * h; i++)
        for (unsigned c = 0; c < im->comps; c++) {
            unsigned v = (unsigned)fgetc(f);
            if (maxv > 255)
                v = v << 8 | (unsigned)fgetc(f);
            im->pl[c][i] = (uint16_t)((v * top + maxv / 2) / maxv);
        }
    int bad = ferror(f) || feof(f);
    fclose(f);
    if (!bad)
        snprintf(im->source, sizeof(im->source), "%s", path);
    return bad ? -1 : 0;
}

static int write_pnm(const char *path, const image *im) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    unsigned top = (1u << im->depth) - 1, bytes = top > 255 ? 2 : 1;
    fprintf(f, "%s\n%u %u\n%u\n", im->comps == 3 ? "P6" : "P5", im->w, im->h,
            top);
    for (size_t i = 0; i < (size_t)im->w * im->h; i++)
        for (unsigned c = 0; c < im->comps; c++) {
            if (bytes == 2)
                fputc(im->pl[c][i] >> 8, f);
            fputc(im->pl[c][i] & 0xFF, f);
        }
    return fclose(f);
}

/* Wall time of one run of argv (stdout and stderr to /dev/null), ms; NAN
 * when it fails. */
static double run_ms(char *const argv[]) {
    /* the child must not inherit (and flush again) our buffered tables */
    fflush(NULL);
    double t0 = bench_now_ms();
    pid_t pid = fork();
    if (pid < 0)
        return NAN;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
            _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
        return NAN;
    return bench_now_ms() - t0;
}

static double anchor_ms(char *const argv[], int runs) {
    double t[64];
    int n = runs < 64 ? runs : 64;
    if (isnan(run_ms(argv))) /* warm-up, and is it there? */
        return NAN;
    for (int r = 0; r < n; r++)
        if (isnan(t[r] = run_ms(argv)))
            return NAN;
    return bench_median(t, n);
}

static long file_size(const char *path) {
    struct stat s;
    return stat(path, &s) ? -1 : (long)s.st_size;
}

/* opj_compress and grk_compress of `in` into `stem`.opj.j2k and .grk.j2k
 * with `resolutions` (levels + 1), 64x64 blocks, `threads` threads;
 * `ratio` (NULL: lossless 5/3) makes them irreversible 9/7 at that
 * compression ratio.  Their median times (ms) and output sizes. */
static void run_anchors(const char *in, const char *stem, int resolutions,
                        const char *ratio, int threads, int runs, double ms[2],
                        long bytes[2]) {
    static const char *const tool[2] = {"opj_compress", "grk_compress"};
    static const char *const threads_opt[2] = {"-threads", "-H"};
    static const char *const ext[2] = {"opj.j2k", "grk.j2k"};
    char out[512], res[16], thr[16];
    snprintf(res, sizeof(res), "%d", resolutions);
    snprintf(thr, sizeof(thr), "%d", threads);
    for (int k = 0; k < 2; k++) {
        snprintf(out, sizeof(out), "%s.%s", stem, ext[k]);
        char *argv[16] = {(char *)tool[k], "-i", (char *)in, "-o", out, "-n", res,
                          "-b", "64,64", (char *)threads_opt[k], thr};
        if (ratio)
            argv[11] = "-I", argv[12] = "-r", argv[13] = (char *)ratio;
        ms[k] = anchor_ms(argv, runs);
        bytes[k] = file_size(out);
    }
}

typedef struct {
    sci_wt_geometry g;
    sci_htj2k_params p;
    uint8_t *d_smp;
    sci_wt_plane hp[3], dp[3];
} frame;

static void frame_init(frame *f, const image *im, sci_dwt_filter filter,
                       unsigned levels, double bpp) {
    memset(f, 0, sizeof(*f));
    f->g.width = im->w;
    f->g.height = im->h;
    f->g.components = im->comps;
    f->g.depth = im->depth;
    for (unsigned c = 0; c < im->comps; c++)
        f->g.dx[c] = f->g.dy[c] = 1;
    f->g.filter = filter;
    f->g.levels = levels;
    f->g.ct = im->comps == 3 ? (filter == SCI_DWT_53 ? SCI_CT_RCT : SCI_CT_ICT)
                             : SCI_CT_NONE;
    sci_htj2k_params_default(&f->p);
    f->p.coder = SCI_J2K_CODER_PART1;
    f->p.bitrate = bpp;
    size_t plane = (size_t)im->w * im->h * 2;
    CK(cudaMalloc((void **)&f->d_smp, plane * im->comps));
    for (unsigned c = 0; c < im->comps; c++) {
        CK(cudaMemcpy(f->d_smp + c * plane, im->pl[c], plane, cudaMemcpyHostToDevice));
        f->hp[c].data = im->pl[c];
        f->dp[c].data = f->d_smp + c * plane;
        f->hp[c].row_stride = f->dp[c].row_stride = (ptrdiff_t)im->w * 2;
        f->hp[c].pixel_stride = f->dp[c].pixel_stride = 2;
    }
}

typedef struct {
    double t1, t1_d2h, frame, cpu_t1, cpu_frame;
    double model, mq;      /* the Tier-1 kernels' medians */
    double dwt, fr_t1, fr_d2h, fr_write; /* the frame's stages (medians) */
    size_t bytes;
    int same;              /* GPU codestream == CPU codestream */
    unsigned long long symbols, max_symbols;
    uint8_t *cpu_cs;       /* the CPU's codestream (malloc'd), cpu_n bytes */
    size_t cpu_n;
} result;

/* The MQ kernel's layout (sci_cuda_t1_set_mq_heavy/_lanes); -1 and 0:
 * the default. */
static int mq_heavy = -1;
static unsigned mq_lanes;

/* Times the GPU (Tier-1 alone and the whole frame) and the CPU on one
 * frame. */
static void measure(const frame *f, int runs, int cpu_runs, cudaStream_t st,
                    result *res) {
    memset(res, 0, sizeof(*res));
    size_t nco = sci_wt_coeff_count(&f->g);
    void *h_co = malloc(nco * 4), *d_co;
    if (sci_wt_forward(bench_pool(), &f->g, f->hp, h_co) < 0) {
        fprintf(stderr, "sci_wt_forward failed\n");
        exit(1);
    }
    sci_htj2k_enc *e = sci_htj2k_enc_new(&f->g, &f->p, bench_pool());
    if (!e) {
        fprintf(stderr, "sci_htj2k_enc_new failed\n");
        exit(1);
    }
    sci_cuda_wt *wt;
    sci_cuda_t1 *t1;
    CKW(sci_cuda_wt_create(&wt, &f->g));
    CK(cudaMalloc(&d_co, nco * 4));
    CKW(sci_cuda_t1_create(&t1, e, &f->g, &f->p));
    sci_cuda_t1_set_timing(t1, 1);
    if (mq_heavy >= 0)
        sci_cuda_t1_set_mq_heavy(t1, (unsigned)mq_heavy);
    if (mq_lanes)
        sci_cuda_t1_set_mq_lanes(t1, mq_lanes);
    size_t cap = sci_htj2k_max_bytes(e), n = 0;
    uint8_t *out, *cout = malloc(cap);
    CK(cudaMallocHost((void **)&out, cap));
    double *tt = malloc(sizeof(double) * (size_t)runs * 9);
    double *t_t1 = tt, *t_t1d = tt + runs, *t_fr = tt + 2 * runs;
    double *t_mo = tt + 3 * runs, *t_mq = tt + 4 * runs, *t_dwt = tt + 5 * runs;
    double *t_ft1 = tt + 6 * runs, *t_fd2h = tt + 7 * runs, *t_fwr = tt + 8 * runs;
    cudaEvent_t ev_dwt[2]; /* the frame's DWT */
    CK(cudaEventCreate(&ev_dwt[0]));
    CK(cudaEventCreate(&ev_dwt[1]));
    for (int r = -3; r < runs; r++) {
        /* Tier-1 alone, from the coefficients */
        CK(cudaMemcpy(d_co, h_co, nco * 4, cudaMemcpyHostToDevice));
        CKW(sci_cuda_t1_code(t1, d_co, st));
        sci_cuda_t1_times tm;
        sci_cuda_t1_get_times(t1, &tm);
        /* the whole frame, from the samples */
        double a = bench_now_ms();
        CK(cudaEventRecord(ev_dwt[0], st));
        CKW(sci_cuda_wt_forward(wt, f->dp, d_co, st));
        CK(cudaEventRecord(ev_dwt[1], st));
        CKW(sci_cuda_t1_encode(t1, d_co, out, cap, &n, st));
        double z = bench_now_ms();
        if (r < 0)
            continue;
        sci_cuda_t1_times fm;
        sci_cuda_t1_get_times(t1, &fm);
        float dw;
        CK(cudaEventElapsedTime(&dw, ev_dwt[0], ev_dwt[1]));
        t_dwt[r] = dw;
        t_ft1[r] = fm.model_ms + fm.mq_ms + fm.pack_ms;
        t_fd2h[r] = fm.d2h_ms;
        t_fwr[r] = fm.write_ms;
        t_t1[r] = tm.model_ms + tm.mq_ms + tm.pack_ms;
        t_t1d[r] = t_t1[r] + tm.d2h_ms;
        t_fr[r] = z - a;
        t_mo[r] = tm.model_ms;
        t_mq[r] = tm.mq_ms;
        res->symbols = tm.symbols;
        res->max_symbols = tm.max_symbols;
    }
    res->t1 = bench_median(t_t1, runs);
    res->t1_d2h = bench_median(t_t1d, runs);
    res->frame = bench_median(t_fr, runs);
    res->model = bench_median(t_mo, runs);
    res->mq = bench_median(t_mq, runs);
    res->dwt = bench_median(t_dwt, runs);
    res->fr_t1 = bench_median(t_ft1, runs);
    res->fr_d2h = bench_median(t_fd2h, runs);
    res->fr_write = bench_median(t_fwr, runs);
    CK(cudaEventDestroy(ev_dwt[0]));
    CK(cudaEventDestroy(ev_dwt[1]));
    res->bytes = n;

    /* the C reference: Tier-1 alone, then the whole frame */
    size_t nb = sci_htj2k_block_count(e);
    size_t *off = malloc(nb * sizeof(size_t));
    size_t total = 0;
    for (size_t i = 0; i < nb; i++) {
        sci_htj2k_block_info bi;
        sci_htj2k_block_get(e, i, &bi);
        off[i] = total;
        total += sci_t1_max_bytes(bi.w, bi.h, bi.mb);
    }
    uint8_t *arena = malloc(total);
    sci_t1_result *rs = malloc(nb * sizeof(*rs));
    double *tc = malloc(sizeof(double) * (size_t)cpu_runs * 2);
    for (int r = -1; r < cpu_runs; r++) {
        double a = bench_now_ms();
#pragma omp parallel
        {
            sci_t1_coder *coder = malloc(sizeof(*coder));
            uint32_t *sm = malloc(SCI_T1_MAX_SAMPLES * 4);
#pragma omp for schedule(dynamic, 4)
            for (long i = 0; i < (long)nb; i++) {
                sci_t1_params tp;
                sci_htj2k_t1_params(e, (size_t)i, &tp);
                sci_htj2k_block_quantize(e, (size_t)i, h_co, sm);
                sci_t1_encode(coder, &tp, sm, tp.w, arena + off[i],
                              sci_t1_max_bytes(tp.w, tp.h, tp.nbp), &rs[i]);
            }
            free(coder);
            free(sm);
        }
        double b = bench_now_ms();
        sci_wt_forward(bench_pool(), &f->g, f->hp, h_co);
        size_t nc = sci_htj2k_encode(e, h_co, cout, cap);
        double c = bench_now_ms();
        if (r < 0)
            continue;
        tc[r] = b - a;
        tc[cpu_runs + r] = c - b;
        res->same = nc == n && !memcmp(cout, out, n);
        res->cpu_n = nc;
    }
    res->cpu_cs = cout;
    res->cpu_t1 = bench_median(tc, cpu_runs);
    res->cpu_frame = bench_median(tc + cpu_runs, cpu_runs);
    free(tc);
    free(rs);
    free(arena);
    free(off);
    free(tt);
    CK(cudaFreeHost(out));
    sci_cuda_t1_destroy(t1);
    sci_cuda_wt_destroy(wt);
    sci_htj2k_enc_free(e);
    CK(cudaFree(d_co));
    free(h_co);
}

/* A stream of `frames` frames with two in flight: two Tier-1 handles of
 * one encoder take turns (sci_cuda_t1_submit / _finish), each with its
 * own DWT scratch, coefficients and (with `upload`) device samples, so
 * that frame k + 1's DWT and Tier-1 are queued before frame k is finished
 * and written on the host.  streams 1: all GPU work on one stream, in
 * order (the host's share and the copies run beside the kernels); 2:
 * frame k + 1's work on the other stream, so that its kernels may also
 * run beside frame k's.  upload: each frame's samples first copied from
 * pinned host memory (else they are on the device already, as for the
 * single frames).  Frames/s over the stream after two frames of warm-up;
 * *same: every codestream equals ref. */
static double stream_fps(const frame *f, const image *im, int frames, int streams,
                         int upload, const uint8_t *ref, size_t ref_n, int *same) {
    size_t nco = sci_wt_coeff_count(&f->g), plane = (size_t)im->w * im->h * 2;
    sci_htj2k_enc *e = sci_htj2k_enc_new(&f->g, &f->p, bench_pool());
    if (!e) {
        fprintf(stderr, "sci_htj2k_enc_new failed\n");
        exit(1);
    }
    size_t cap = sci_htj2k_max_bytes(e), n = 0;
    uint8_t *out, *h_smp = NULL;
    CK(cudaMallocHost((void **)&out, cap));
    if (upload) {
        CK(cudaMallocHost((void **)&h_smp, plane * im->comps));
        for (unsigned c = 0; c < im->comps; c++)
            memcpy(h_smp + c * plane, im->pl[c], plane);
    }
    sci_cuda_wt *wt[2];
    sci_cuda_t1 *t1[2];
    void *d_co[2];
    uint8_t *d_in[2] = {NULL, NULL};
    sci_wt_plane dp[2][3];
    cudaStream_t st[2];
    for (int j = 0; j < 2; j++) {
        CKW(sci_cuda_wt_create(&wt[j], &f->g));
        CKW(sci_cuda_t1_create(&t1[j], e, &f->g, &f->p));
        if (mq_heavy >= 0)
            sci_cuda_t1_set_mq_heavy(t1[j], (unsigned)mq_heavy);
        if (mq_lanes)
            sci_cuda_t1_set_mq_lanes(t1[j], mq_lanes);
        CK(cudaMalloc(&d_co[j], nco * 4));
        CK(cudaStreamCreate(&st[j]));
        if (upload)
            CK(cudaMalloc((void **)&d_in[j], plane * im->comps));
        for (unsigned c = 0; c < im->comps; c++) {
            dp[j][c] = f->dp[c];
            if (upload)
                dp[j][c].data = d_in[j] + c * plane;
        }
    }
    int ok = 1;
    double t0 = 0;
    for (int k = 0; k <= frames + 2; k++) {
        if (k == 2)
            t0 = bench_now_ms();
        if (k < frames + 2) {
            int j = k & 1;
            cudaStream_t s = st[streams == 2 ? j : 0];
            if (upload)
                CK(cudaMemcpyAsync(d_in[j], h_smp, plane * im->comps,
                                   cudaMemcpyHostToDevice, s));
            CKW(sci_cuda_wt_forward(wt[j], dp[j], d_co[j], s));
            CKW(sci_cuda_t1_submit(t1[j], d_co[j], s));
        }
        if (k > 0) {
            int j = (k - 1) & 1;
            CKW(sci_cuda_t1_finish(t1[j]));
            CKW(sci_cuda_t1_write(t1[j], out, cap, &n));
            ok &= n == ref_n && !memcmp(out, ref, n);
        }
    }
    double ms = bench_now_ms() - t0;
    *same = ok;
    for (int j = 0; j < 2; j++) {
        sci_cuda_t1_destroy(t1[j]);
        sci_cuda_wt_destroy(wt[j]);
        CK(cudaFree(d_co[j]));
        CK(cudaStreamDestroy(st[j]));
        if (upload)
            CK(cudaFree(d_in[j]));
    }
    if (upload)
        CK(cudaFreeHost(h_smp));
    CK(cudaFreeHost(out));
    sci_htj2k_enc_free(e);
    return frames * 1000.0 / ms;
}

int main(int argc, char **argv) {
    int runs = 20, cpu_runs = 3, anchor_runs = 3, threads = 16, anchors = 1;
    int stream_frames = 60;
    int table = 1;
    double bpp = 2.0;
    const char *images = NULL, *work = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cpu-runs") && i + 1 < argc)
            cpu_runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--anchor-runs") && i + 1 < argc)
            anchor_runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--bpp") && i + 1 < argc)
            bpp = atof(argv[++i]);
        else if (!strcmp(argv[i], "--images") && i + 1 < argc)
            images = argv[++i];
        else if (!strcmp(argv[i], "--work") && i + 1 < argc)
            work = argv[++i];
        else if (!strcmp(argv[i], "--stream-frames") && i + 1 < argc)
            stream_frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-anchors"))
            anchors = 0;
        else if (!strcmp(argv[i], "--frames-only"))
            table = 0;
        else if (!strcmp(argv[i], "--mq-heavy") && i + 1 < argc)
            mq_heavy = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--mq-lanes") && i + 1 < argc)
            mq_lanes = (unsigned)atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--runs N] [--cpu-runs N] [--anchor-runs N] "
                    "[--threads T] [--bpp B] [--images DIR] [--work DIR] "
                    "[--no-anchors] [--frames-only] [--mq-heavy N] [--mq-lanes N] "
                    "[--stream-frames N]\n",
                    argv[0]);
            return 2;
        }
    }
    runs = runs < 1 ? 1 : runs;
    stream_frames = stream_frames < 1 ? 1 : stream_frames;
    cpu_runs = cpu_runs < 1 ? 1 : cpu_runs;
    anchor_runs = anchor_runs < 1 ? 1 : anchor_runs;
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    /* the codec's own calls (transform, encoder) on as many */
    bench_set_threads(threads > 0 ? (unsigned)threads : 0);
    REQUIRE_CUDA_DEVICE();
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    char tmpl[] = "/tmp/bench-ebcot-XXXXXX";
    if (!work && !(work = mkdtemp(tmpl))) {
        perror("mkdtemp");
        return 1;
    }
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    printf("# ebcotcm: GPU %s; CPU %d threads; anchors with %d threads; "
           "medians of %d GPU, %d CPU, %d anchor runs\n\n", prop.name, threads,
           threads, runs, cpu_runs, anchor_runs);

    /* --- Tier-1 table --------------------------------------------------- */
    static const struct {
        const char *name;
        uint32_t w, h;
        int kind; /* 0 natural, 1 noise, 2 one colour */
        double paper_ms; /* Matela et al., GTX 285, where reported */
    } t1c[] = {
        {"natural", 512, 512, 0, NAN}, {"white noise", 512, 512, 1, NAN},
        {"one colour", 512, 512, 2, NAN}, {"natural", 1280, 720, 0, NAN},
        {"natural", 1920, 1080, 0, NAN}, {"natural", 4096, 2160, 0, 663},
    };
    if (table) {
        printf("## Tier-1, 8-bit grey, 3-level 5/3, 64x64 code-blocks, lossless\n\n");
        printf("| image | source | bytes | GPU T1 ms | model ms | MQ ms | decisions "
               "| largest block | +d2h ms | GPU frame ms | CPU T1 ms | CPU frame ms | "
               "opj_compress ms | grk_compress ms | opj / GPU frame | grk / GPU frame "
               "| GPU = CPU |\n");
        printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
               "---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    }
    for (size_t k = 0; table && k < sizeof(t1c) / sizeof(t1c[0]); k++) {
        image im;
        image_alloc(&im, t1c[k].w, t1c[k].h, 1, 8);
        char path[512];
        if (t1c[k].kind == 1) {
            for (size_t i = 0; i < (size_t)im.w * im.h; i++)
                im.pl[0][i] = (uint16_t)(rnd() & 255);
            snprintf(im.source, sizeof(im.source), "uniform random");
        } else if (t1c[k].kind == 2) {
            for (size_t i = 0; i < (size_t)im.w * im.h; i++)
                im.pl[0][i] = 117;
            snprintf(im.source, sizeof(im.source), "constant 117");
        } else {
            snprintf(path, sizeof(path), "%s/natural-%ux%u.pgm", images ? images : ".",
                     im.w, im.h);
            if (!images || load_pnm(path, &im) < 0)
                synth_natural(&im);
        }
        frame f;
        frame_init(&f, &im, SCI_DWT_53, 3, 0);
        result r;
        measure(&f, runs, cpu_runs, st, &r);
        double ams[2] = {NAN, NAN};
        long abytes[2];
        if (anchors) {
            char in[512], stem[512];
            snprintf(in, sizeof(in), "%s/t1-%zu.pgm", work, k);
            snprintf(stem, sizeof(stem), "%s/t1-%zu", work, k);
            write_pnm(in, &im);
            run_anchors(in, stem, 4, NULL, threads, anchor_runs, ams, abytes);
        }
        double opj = ams[0], grk = ams[1];
        char label[64];
        snprintf(label, sizeof(label), "%s %ux%u", t1c[k].name, im.w, im.h);
        printf("| %s | %s | %zu | %.2f | %.2f | %.2f | %llu | %llu | %.2f | %.2f | %.1f "
               "| %.1f | %.1f | %.1f | %.1fx | %.1fx | %s |\n", label, im.source,
               r.bytes, r.t1, r.model, r.mq, r.symbols, r.max_symbols, r.t1_d2h,
               r.frame, r.cpu_t1, r.cpu_frame, opj, grk, opj / r.frame,
               grk / r.frame, r.same ? "yes" : "NO");
        if (!isnan(t1c[k].paper_ms))
            printf("|   the paper (GTX 285): Tier-1 %.0f ms, %.0fx our GPU T1; Kakadu "
                   "single-threaded 1093 ms | | | | | | | | | | | | | | | | |\n",
                   t1c[k].paper_ms, t1c[k].paper_ms / r.t1);
        CK(cudaFree(f.d_smp));
        free(r.cpu_cs);
        image_free(&im);
    }

    /* --- 4K 4:4:4 12-bit frames/s ---------------------------------------- */
    printf("\n## 4096x2160 4:4:4 12-bit, 5 levels, 64x64 code-blocks, end to end\n\n");
    printf("| mode | source | bytes | bpp | GPU fps | GPU ms | GPU T1 ms | model ms | "
           "MQ ms | decisions | largest block | CPU ms | opj_compress ms | "
           "grk_compress ms | GPU vs opj | GPU vs grk | GPU = CPU |\n");
    printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
           "| ---: | ---: | ---: | ---: | ---: | --- |\n");
    image big;
    image_alloc(&big, 4096, 2160, 3, 12);
    char path[512];
    snprintf(path, sizeof(path), "%s/natural-4096x2160.ppm", images ? images : ".");
    if (!images || load_pnm(path, &big) < 0)
        synth_natural(&big);
    char in[512];
    snprintf(in, sizeof(in), "%s/rgb12.ppm", work);
    if (anchors)
        write_pnm(in, &big);
    result fr[2];
    double anchor[2][2];
    /* streams of frames: [lossy][upload][streams - 1] */
    double sfps[2][2][2];
    int ssame[2][2][2];
    for (int lossy = 0; lossy < 2; lossy++) {
        frame f;
        frame_init(&f, &big, lossy ? SCI_DWT_97 : SCI_DWT_53, 5, lossy ? bpp : 0);
        result r;
        measure(&f, runs, cpu_runs, st, &r);
        double ams[2] = {NAN, NAN};
        long abytes[2];
        if (anchors) {
            char stem[512], ratio[32];
            snprintf(stem, sizeof(stem), "%s/rgb12-%d", work, lossy);
            /* the compression ratio of our codestream */
            snprintf(ratio, sizeof(ratio), "%.4f", 3.0 * 12 * 4096 * 2160 / 8 / r.bytes);
            run_anchors(in, stem, 6, lossy ? ratio : NULL, threads, anchor_runs, ams,
                        abytes);
            printf("<!-- %s: opj %ld B, grk %ld B -->\n", lossy ? "lossy" : "lossless",
                   abytes[0], abytes[1]);
        }
        double opj = ams[0], grk = ams[1];
        printf("| %s | %s | %zu | %.3f | %.1f | %.2f | %.2f | %.2f | %.2f | %llu | %llu "
               "| %.0f | %.0f | %.0f | %.0fx | %.0fx | %s |\n",
               lossy ? "lossy 9/7 PCRD" : "lossless 5/3", big.source, r.bytes,
               r.bytes * 8.0 / (4096.0 * 2160), 1000.0 / r.frame, r.frame, r.t1, r.model,
               r.mq, r.symbols, r.max_symbols, r.cpu_frame, opj, grk, opj / r.frame,
               grk / r.frame, r.same ? "yes" : "NO");
        fr[lossy] = r;
        anchor[lossy][0] = opj;
        anchor[lossy][1] = grk;
        for (int up = 0; up < 2; up++)
            for (int ns = 1; ns <= 2; ns++)
                sfps[lossy][up][ns - 1] = stream_fps(&f, &big, stream_frames, ns, up,
                                                     r.cpu_cs, r.cpu_n,
                                                     &ssame[lossy][up][ns - 1]);
        free(r.cpu_cs);
        CK(cudaFree(f.d_smp));
    }
    printf("\nWhere the GPU frame goes (medians, ms):\n\n| mode | DWT | Tier-1 kernels | "
           "results to host | rate allocation and tier-2 (host) |\n| --- | ---: | ---: | "
           "---: | ---: |\n");
    for (int lossy = 0; lossy < 2; lossy++)
        printf("| %s | %.2f | %.2f | %.2f | %.2f |\n", lossy ? "lossy 9/7 PCRD" : "lossless 5/3",
               fr[lossy].dwt, fr[lossy].fr_t1, fr[lossy].fr_d2h, fr[lossy].fr_write);
    printf("\n## The same frames as a stream, two in flight (%d frames)\n\n"
           "Frame k + 1's DWT and Tier-1 are queued before frame k is finished and "
           "written on the host (two Tier-1 handles taking turns). One GPU stream: the "
           "GPU's work in order, the host's share and the copies beside it; two: "
           "consecutive frames' kernels may also overlap. Samples from the device as "
           "above, or copied from pinned host memory each frame.\n\n"
           "| mode | samples | GPU streams | fps | ms a frame | vs one frame at a time "
           "| vs opj | vs grk | every codestream = CPU |\n"
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n", stream_frames);
    for (int lossy = 0; lossy < 2; lossy++)
        for (int up = 0; up < 2; up++)
            for (int ns = 1; ns <= 2; ns++) {
                double fps = sfps[lossy][up][ns - 1];
                printf("| %s | %s | %d | %.1f | %.2f | %.2fx | %.0fx | %.0fx | %s |\n",
                       lossy ? "lossy 9/7 PCRD" : "lossless 5/3",
                       up ? "host (uploaded)" : "device", ns, fps, 1000.0 / fps,
                       fps * fr[lossy].frame / 1000.0, anchor[lossy][0] * fps / 1000.0,
                       anchor[lossy][1] * fps / 1000.0,
                       ssame[lossy][up][ns - 1] ? "yes" : "NO");
            }
    image_free(&big);
    printf("\nGPU ms: samples on the device to the codestream in pinned host memory; "
           "opj/grk: whole process (reading the PNM, writing the file) with %d "
           "threads; GPU = CPU: the codestreams are identical.\n", threads);
    CK(cudaStreamDestroy(st));
    return 0;
}
