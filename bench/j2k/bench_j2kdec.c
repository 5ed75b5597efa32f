/*
 * JPEG 2000 decoder benchmark (issue 22): the GPU decoder (cuda/j2k/j2kdec.h)
 * against our C reference and the anchors, on the bench-htj2k picture
 * (3840x2160 4:4:4 12-bit: a PPM, or a synthetic natural-looking one),
 * coded by our encoder in three ways:
 *   ht-lossless   HT, 5/3 + RCT, 5 levels, 64x64 blocks
 *   ht-1bpp       HT, 9/7 + ICT, the step that gives about 1 bit a pixel
 *   p1-lossless   Part 1 (EBCOT), 5/3 + RCT, 5 levels, 64x64 blocks
 * GPU: codestream bytes in host memory to the frame in device memory
 * (parse, tier-2, the upload, the kernels), one frame at a time (median
 * wall time of --runs frames; in two parts where the decoder splits the
 * frame, sci_cuda_j2kdec_tune_split, and in one, frames of the two kinds in
 * turn) and with 2 to 8 frames in flight (frames/s
 * over --runs frames; the decoder's slot threads do each frame's host
 * work, the caller parses); the GPU output is checked against the C
 * reference.
 * CPU: sci_j2k_dec_decode on one thread (median s/frame), on --threads
 * threads a frame each (frames/s), and one frame on a pool of --threads
 * threads (sci_j2k_dec_set_pool; median s/frame).  Anchors, when their
 * paths are given: nvj2k-bench (../shared/anchors: nvJPEG2000 decoding the
 * same files into device memory, one frame at a time) and nvj2k-threads
 * (bench/anchors: nvJPEG2000 with 1 to 8 frames in flight, a host thread
 * each), so that both decoders are compared one frame at a time and in
 * flight; opj_decompress and grk_decompress with
 * --threads threads and ojph_expand (single-threaded), whole processes
 * writing a PPM (median of 3).  The table comes last.
 *
 *   bench-j2kdec [--runs N] [--cpu-runs N] [--threads N] [--workdir DIR]
 *                [--nvj2k PATH] [--nvj2k-threads PATH]
 *                [--opj PATH] [--ojph PATH] [--grk PATH] [--tiles-with GRK_COMPRESS] [--tiles-only]
 *                [--ht-symbols auto|thread|warp] [--plt] [--size W H] [image.ppm]
 *
 * --plt: the three streams carry PLT marker segments (htj2kenc plt=true,
 * as the RTP payloader wants them), with which tier-2 decodes the
 * precincts' packets on the decoder's threads; every decoder, the anchors
 * too, reads those same files.
 *
 * --ht-symbols: where the HT blocks' symbols are decoded
 * (sci_cuda_j2kdec_tune_ht; auto, the default, chooses by the frame).
 *
 * --tiles-with: also the picture coded by grk_compress in one tile and in
 * 1024x1024 and 512x512 tiles (Part 1, lossless and 9/7), on the GPU and
 * nvJPEG2000; --tiles-only: those alone.
 *
 * Part 1 gets a second GPU row, its blocks decoded on the host's threads
 * (the host-blocks path, sci_cuda_j2kdec_tune).
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "bench/common/benchutil.h"
#include "codec/j2k/htj2k.h"
#include "codec/j2k/j2k_dec.h"
#include "codec/j2k/wavelet_frame.h"
#include "cuda/j2k/j2kdec.h"
#include "tests/common/cudacheck.h"
#include "tests/common/readfile.h"

#define DEPTH 12
#define LEVELS 5
#define MAX_ROWS 64
#define MAX_DEPTH 8   /* frames in flight, at most */

static uint32_t W = 3840, H = 2160;

/* Three 12-bit planes: gradients, a disc and a box with hard edges, a
 * textured region, a little noise. */
static void synth(uint16_t *pl[3]) {
    uint64_t s = 0x2545f4914f6cdd1dull;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            double fx = (double)x / W, fy = (double)y / H;
            double v0 = 0.25 + 0.45 * fx * (1 - 0.4 * fy) + 0.08 * cos(2.5 * fy - fx);
            double ex = fx - 0.35, ey = fy - 0.45;
            if (ex * ex + ey * ey < 0.025)
                v0 = 0.75 - 0.25 * fy;
            if (fx > 0.6 && fx < 0.9 && fy > 0.15 && fy < 0.4)
                v0 = 0.12 + 0.06 * fy;
            double tex = fy > 0.65 ? 0.035 * sin(x * 0.29) * cos(y * 0.23) : 0;
            for (int c = 0; c < 3; c++) {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                double n = ((double)(s % 1024) / 1023.0 - 0.5) * 0.005;
                double tint = c == 0 ? 1.0 : c == 1 ? 0.85 + 0.1 * fx : 0.7 + 0.2 * fy;
                double v = (v0 * tint + tex + n) * 4095.0;
                pl[c][(size_t)y * W + x] = (uint16_t)(v < 0 ? 0 : v > 4095 ? 4095 : v);
            }
        }
}

/* A binary PPM, scaled to 12 bits. */
static int load_ppm(const char *path, uint16_t *pl[3]) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    unsigned w, h, maxv;
    if (fscanf(f, "P6 %u %u %u", &w, &h, &maxv) != 3 || !maxv || maxv > 65535) {
        fclose(f);
        return -1;
    }
    fgetc(f);
    W = w;
    H = h;
    for (int c = 0; c < 3; c++)
        pl[c] = malloc((size_t)W * H * 2);
    for (size_t i = 0; i < (size_t)W * H; i++)
        for (int c = 0; c < 3; c++) {
            unsigned v = (unsigned)fgetc(f);
            if (maxv > 255)
                v = v << 8 | (unsigned)fgetc(f);
            pl[c][i] = (uint16_t)((v * 4095u + maxv / 2) / maxv);
        }
    fclose(f);
    return 0;
}

typedef struct {
    const char *name;
    sci_j2k_coder coder;
    sci_dwt_filter filter;
    double bitrate;
} stream_kind;

static const stream_kind kinds[] = {
    {"ht-lossless", SCI_J2K_CODER_HT, SCI_DWT_53, 0},
    {"ht-1bpp", SCI_J2K_CODER_HT, SCI_DWT_97, 1.0},
    {"p1-lossless", SCI_J2K_CODER_PART1, SCI_DWT_53, 0},
};
#define NKINDS 3

static int plt;

static uint8_t *encode(const stream_kind *k, uint16_t *pl[3], size_t *len) {
    sci_wt_geometry g;
    memset(&g, 0, sizeof g);
    g.width = W;
    g.height = H;
    g.components = 3;
    g.depth = DEPTH;
    for (int c = 0; c < 3; c++)
        g.dx[c] = g.dy[c] = 1;
    g.filter = k->filter;
    g.levels = LEVELS;
    g.ct = k->filter == SCI_DWT_53 ? SCI_CT_RCT : SCI_CT_ICT;
    sci_wt_plane src[3];
    for (int c = 0; c < 3; c++) {
        src[c].data = pl[c];
        src[c].row_stride = (ptrdiff_t)W * 2;
        src[c].pixel_stride = 2;
    }
    void *coef = malloc(sci_wt_coeff_count(&g) * 4);
    sci_pool *pool = bench_pool();
    uint8_t *out = NULL;
    if (!sci_wt_forward(pool, &g, src, coef)) {
        sci_htj2k_params p;
        sci_htj2k_params_default(&p);
        p.coder = k->coder;
        p.bitrate = k->bitrate;
        p.plt = plt;
        const char *why = sci_htj2k_check(&g, &p);
        if (why) {
            fprintf(stderr, "%s: %s\n", k->name, why);
            exit(1);
        }
        sci_htj2k_enc *e = sci_htj2k_enc_new(&g, &p, pool);
        size_t cap = sci_htj2k_max_bytes(e);
        out = malloc(cap);
        *len = sci_htj2k_encode(e, coef, out, cap);
        sci_htj2k_enc_free(e);
    }
    free(coef);
    if (!out || !*len) {
        fprintf(stderr, "%s: the encoder failed\n", k->name);
        exit(1);
    }
    return out;
}

static void write_file(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

/* ---- the C reference -------------------------------------------------------- */

typedef struct {
    const uint8_t *cs;
    size_t len;
    int frames;
    uint16_t *out;
    int fail;
} cpu_job;

static int cpu_decode(const uint8_t *cs, size_t len, uint16_t *out,
                      sci_pool *pool) {
    sci_j2k_dec *d = sci_j2k_dec_new();
    sci_j2k_dec_set_pool(d, pool);
    sci_j2k_info info;
    sci_j2k_plane pl[3];
    for (int c = 0; c < 3; c++) {
        pl[c].data = out + (size_t)c * W * H;
        pl[c].stride = W;
        pl[c].bytes = 2;
    }
    sci_j2k_decode_params p = {0, 0};
    int r = sci_j2k_dec_parse(d, cs, len, &info);
    if (!r)
        r = sci_j2k_dec_decode(d, &p, pl);
    sci_j2k_dec_free(d);
    return r;
}

static void *cpu_thread(void *v) {
    cpu_job *j = v;
    for (int i = 0; i < j->frames; i++)
        j->fail |= cpu_decode(j->cs, j->len, j->out, NULL) != 0;
    return NULL;
}

/* ---- anchors ------------------------------------------------------------------ */

static double run_cmd_s(const char *cmd) {
    double best[3];
    for (int i = 0; i < 3; i++) {
        double t0 = bench_now_ms();
        if (system(cmd) != 0)
            return -1;
        best[i] = (bench_now_ms() - t0) / 1000.0;
    }
    return bench_median(best, 3);
}

/* nvj2k-bench dec FILE --frames N: "FILE WxH xN P-bit  T ms  F frames/s" */
static double run_nvj2k(const char *nv, const char *file, int frames, double *ms) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s dec %s --frames %d 2>&1", nv, file, frames);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char line[1024];
    double fps = -1;
    while (fgets(line, sizeof line, p)) {
        fputs(line, stdout);
        char *m = strstr(line, " ms ");
        if (m) {
            char *s = m;
            while (s > line && s[-1] == ' ')
                s--;
            while (s > line && s[-1] != ' ')
                s--;
            *ms = atof(s);
            fps = atof(m + 4);
        }
    }
    pclose(p);
    return fps;
}

/* nvj2k-threads --frames N --threads "1 .. depth" FILE: "| FILE | T | F |"
 * lines, into fps[T] (-1 where missing); 0, or -1 when it did not run */
static int run_nvj2k_threads(const char *nvt, const char *file, int frames,
                             int depth, double fps[MAX_DEPTH + 1]) {
    char cmd[4096], list[32] = "";
    for (int d = 1; d <= depth; d++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%d ", d);
    snprintf(cmd, sizeof cmd, "%s --frames %d --threads '%s' %s 2>&1", nvt,
             frames, list, file);
    for (int d = 0; d <= MAX_DEPTH; d++)
        fps[d] = -1;
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char line[1024];
    size_t fl = strlen(file);
    while (fgets(line, sizeof line, p)) {
        fputs(line, stdout);
        int t;
        double f;
        if (!strncmp(line, "| ", 2) && !strncmp(line + 2, file, fl) &&
            sscanf(line + 2 + fl, " | %d | %lf", &t, &f) == 2 && t >= 1 &&
            t <= MAX_DEPTH)
            fps[t] = f;
    }
    return pclose(p) == 0 ? 0 : -1;
}

static double best_of(const double *v, int from, int to) {
    double b = -1;
    for (int i = from; i <= to; i++)
        if (v[i] > b)
            b = v[i];
    return b;
}

/* fps[from .. MAX_DEPTH] as "a / b / ..." */
static void depths_str(char *out, size_t n, const double *fps, int from) {
    out[0] = 0;
    for (int d = from; d <= MAX_DEPTH; d++)
        snprintf(out + strlen(out), n - strlen(out), "%s%.1f", d > from ? " / " : "",
                 fps[d]);
}

/* "1 / 2 / ... / MAX_DEPTH" */
static void depths_label(char *out, size_t n) {
    out[0] = 0;
    for (int d = 1; d <= MAX_DEPTH; d++)
        snprintf(out + strlen(out), n - strlen(out), "%s%d", d > 1 ? " / " : "", d);
}

/* "a / b" as "N.NNx", or n/a */
static void ratio_str(char *out, size_t n, double a, double b) {
    if (a > 0 && b > 0)
        snprintf(out, n, "%.2fx", a / b);
    else
        snprintf(out, n, "n/a");
}

/* depth frames in flight, n frames a slot in all: as nvj2k-threads counts
 * frames (a thread a frame in flight, n frames each) */
static void pipeline(sci_cuda_j2kdec *g, const uint8_t *cs, size_t len,
                     const sci_cuda_j2kdec_plane *dp, cudaStream_t st,
                     int depth, int n) {
    unsigned tk[MAX_DEPTH];
    for (int i = 0; i < n + depth - 1; i++) {
        if (i < n) {
            CKW(sci_cuda_j2kdec_parse(g, cs, len, NULL, NULL, 0));
            CKW(sci_cuda_j2kdec_submit(g, dp, st, &tk[i % depth]));
        }
        if (i >= depth - 1)
            CKW(sci_cuda_j2kdec_finish(g, tk[(i - depth + 1) % depth]));
    }
}

/* frames/s with `depth` frames in flight, n frames a slot, after two a
 * slot untimed (each slot's buffers are made at its first frame) */
static double in_flight_fps(sci_cuda_j2kdec *g, const uint8_t *cs, size_t len,
                            const sci_cuda_j2kdec_plane *dp, cudaStream_t st,
                            int depth, int n) {
    pipeline(g, cs, len, dp, st, depth, 2 * depth);
    double t0 = bench_now_ms();
    pipeline(g, cs, len, dp, st, depth, n * depth);
    return n * depth / ((bench_now_ms() - t0) / 1000.0);
}

/* ---- tiled streams by another encoder ---------------------------------------- */

static int write_ppm12(const char *path, uint16_t *pl[3]) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    fprintf(f, "P6\n%u %u\n4095\n", W, H);
    for (size_t i = 0; i < (size_t)W * H; i++)
        for (int c = 0; c < 3; c++) {
            fputc(pl[c][i] >> 8, f);
            fputc(pl[c][i] & 0xFF, f);
        }
    return fclose(f);
}

/* The picture coded by grk_compress with and without tiles, decoded on
 * the GPU one frame at a time and with 3 in flight (each frame checked
 * once against the C reference), nvJPEG2000 on the same files alike. */
static void bench_tiled(const char *grk, const char *workdir, const char *nv,
                        const char *nvt, uint16_t *pl[3], int runs, unsigned threads,
                        const sci_cuda_j2kdec_plane *dp, void *dframe,
                        cudaStream_t st, uint16_t *ref, uint16_t *got) {
    static const struct {
        const char *name, *args;
    } tc[] = {
        {"p1-lossless, one tile", ""},
        {"p1-lossless, 1024x1024 tiles", "-t 1024,1024"},
        {"p1-lossless, 512x512 tiles", "-t 512,512"},
        {"p1-9/7 1.5 bpp, one tile", "-I -r 24"},
        {"p1-9/7 1.5 bpp, 1024x1024 tiles", "-I -r 24 -t 1024,1024"},
    };
    size_t frame_bytes = (size_t)W * H * 2 * 3;
    char ppm[1100], cmd[4096];
    snprintf(ppm, sizeof ppm, "%s/picture.ppm", workdir);
    if (write_ppm12(ppm, pl)) {
        fprintf(stderr, "cannot write %s\n", ppm);
        return;
    }
    printf("\n## Tiled codestreams (grk_compress, 5 levels, 64x64 blocks), %ux%u "
           "4:4:4 12-bit, codestream in host memory -> frame in device memory\n\n"
           "| stream | bpp | path | GPU ms (1 frame) | GPU frames/s, 3 in flight | "
           "GPU == C | nvJPEG2000 frames/s, 1 frame / 3 in flight | "
           "ours / nvJPEG2000, 1 frame / 3 in flight |\n"
           "|---|---|---|---|---|---|---|---|\n", W, H);
    double *t = malloc(sizeof(double) * (size_t)runs);
    for (size_t k = 0; k < sizeof tc / sizeof tc[0]; k++) {
        char file[1100];
        snprintf(file, sizeof file, "%s/grk-%zu.j2k", workdir, k);
        snprintf(cmd, sizeof cmd, "%s -i %s -o %s -n 6 %s >/dev/null 2>&1", grk,
                 ppm, file, tc[k].args);
        size_t len = 0;
        uint8_t *cs = system(cmd) ? NULL : test_read_file(file, &len);
        if (!cs || cpu_decode(cs, len, ref, NULL)) {
            printf("| %s | the encoder or the C reference failed |\n", tc[k].name);
            free(cs);
            continue;
        }
        sci_cuda_j2kdec *g;
        CKW(sci_cuda_j2kdec_create(&g, MAX_DEPTH, threads));
        CK(cudaMemsetAsync(dframe, 0xff, frame_bytes, st));
        CKW(sci_cuda_j2kdec_decode(g, cs, len, dp, st));
        CK(cudaMemcpy(got, dframe, frame_bytes, cudaMemcpyDeviceToHost));
        const char *check = memcmp(got, ref, frame_bytes) ? "DIFFERS" : "exact";
        int path = (int)sci_cuda_j2kdec_path(g);
        int n = runs / 5 > 5 ? runs / 5 : 5;
        for (int i = 0; i < n; i++) {
            double t0 = bench_now_ms();
            CKW(sci_cuda_j2kdec_decode(g, cs, len, dp, st));
            t[i] = bench_now_ms() - t0;
        }
        double ms1 = bench_median(t, n);
        double fps3 = in_flight_fps(g, cs, len, dp, st, 3, n);
        sci_cuda_j2kdec_destroy(g);
        double nvms, nvt_fps[MAX_DEPTH + 1];
        double nvfps = nv ? run_nvj2k(nv, file, n, &nvms) : -1;
        if (!nvt || run_nvj2k_threads(nvt, file, n, 3, nvt_fps))
            nvt_fps[3] = -1;
        char r1[32], r3[32];
        ratio_str(r1, sizeof r1, 1000.0 / ms1, nvfps);
        ratio_str(r3, sizeof r3, fps3, nvt_fps[3]);
        printf("| %s | %.3f | %d | %.3f | %.1f | %s | %.1f / %.1f | %s / %s |\n",
               tc[k].name, len * 8.0 / ((double)W * H), path, ms1, fps3, check,
               nvfps, nvt_fps[3], r1, r3);
        free(cs);
    }
    free(t);
}

/* ---- main ------------------------------------------------------------------------ */

typedef struct {
    char label[96];
    int kind;
    double ms1, fps[MAX_DEPTH + 1], host_ms; /* fps[d]: d in flight */
    double ms1_one;  /* one at a time, in one part (tune_split off) */
    unsigned parts;  /* of a frame one at a time, split on */
    double stage[9]; /* the device's 5, then the host's 4 */
    const char *check;
} gpu_row;

int main(int argc, char **argv) {
    int runs = 50, cpu_runs = 3;
    unsigned threads = 16;
    const char *workdir = "/tmp/bench-j2kdec", *img = NULL;
    const char *nv = getenv("NVJ2K_BENCH"), *nvt = getenv("NVJ2K_THREADS"), *opj = getenv("OPJ_DECOMPRESS"),
               *ojph = getenv("OJPH_EXPAND"), *grk = getenv("GRK_DECOMPRESS");
    const char *grk_enc = NULL;
    int tiles_only = 0, ht_symbols = SCI_CUDA_J2KDEC_SYM_AUTO;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cpu-runs") && i + 1 < argc)
            cpu_runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--workdir") && i + 1 < argc)
            workdir = argv[++i];
        else if (!strcmp(argv[i], "--nvj2k") && i + 1 < argc)
            nv = argv[++i];
        else if (!strcmp(argv[i], "--nvj2k-threads") && i + 1 < argc)
            nvt = argv[++i];
        else if (!strcmp(argv[i], "--opj") && i + 1 < argc)
            opj = argv[++i];
        else if (!strcmp(argv[i], "--ojph") && i + 1 < argc)
            ojph = argv[++i];
        else if (!strcmp(argv[i], "--grk") && i + 1 < argc)
            grk = argv[++i];
        else if (!strcmp(argv[i], "--tiles-with") && i + 1 < argc)
            grk_enc = argv[++i];
        else if (!strcmp(argv[i], "--ht-symbols") && i + 1 < argc) {
            const char *m = argv[++i];
            if (!strcmp(m, "auto") || !strcmp(m, "thread") || !strcmp(m, "warp")) {
                ht_symbols = m[0] == 't'   ? SCI_CUDA_J2KDEC_SYM_THREAD
                             : m[0] == 'w' ? SCI_CUDA_J2KDEC_SYM_WARP
                                           : SCI_CUDA_J2KDEC_SYM_AUTO;
            } else {
                fprintf(stderr, "--ht-symbols: auto, thread or warp, not %s\n", m);
                return 2;
            }
        } else if (!strcmp(argv[i], "--tiles-only"))
            tiles_only = 1;
        else if (!strcmp(argv[i], "--plt"))
            plt = 1;
        else if (!strcmp(argv[i], "--size") && i + 2 < argc) {
            W = (uint32_t)atoi(argv[++i]);
            H = (uint32_t)atoi(argv[++i]);
        } else if (argv[i][0] != '-')
            img = argv[i];
        else {
            fprintf(stderr, "usage: %s [--runs N] [--cpu-runs N] [--threads N] "
                    "[--workdir DIR] [--nvj2k PATH] [--nvj2k-threads PATH] [--opj PATH] [--ojph PATH] "
                    "[--grk PATH] [--tiles-with GRK_COMPRESS] [--tiles-only] "
                    "[--ht-symbols auto|thread|warp] [--plt] [--size W H] "
                    "[image.ppm]\n", argv[0]);
            return 2;
        }
    }
    if (runs < 3)
        runs = 3;
    if (cpu_runs < 1)
        cpu_runs = 1;
    REQUIRE_CUDA_DEVICE();
    bench_set_threads(threads);
    uint16_t *pl[3];
    if (img) {
        if (load_ppm(img, pl)) {
            fprintf(stderr, "cannot read %s (a binary PPM)\n", img);
            return 1;
        }
    } else {
        for (int c = 0; c < 3; c++)
            pl[c] = malloc((size_t)W * H * 2);
        synth(pl);
    }
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", workdir);
    if (system(cmd))
        return 1;
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("GPU: %s; picture %ux%u 4:4:4 %d-bit (%s); %d runs%s\n", prop.name, W,
           H, DEPTH, img ? img : "synthetic", runs,
           plt ? "; streams with PLT" : "");

    size_t npix = (size_t)W * H, frame_bytes = npix * 2 * 3;
    int nk = tiles_only ? 0 : NKINDS;
    uint8_t *cs[NKINDS];
    size_t len[NKINDS];
    char path[NKINDS][1024];
    for (int k = 0; k < nk; k++) {
        cs[k] = encode(&kinds[k], pl, &len[k]);
        snprintf(path[k], sizeof path[k], "%s/%s.j2c", workdir, kinds[k].name);
        write_file(path[k], cs[k], len[k]);
        printf("%s: %zu bytes, %.3f bpp\n", kinds[k].name, len[k],
               len[k] * 8.0 / (double)npix);
    }

    void *dframe;
    CK(cudaMalloc(&dframe, frame_bytes));
    sci_cuda_j2kdec_plane dp[3];
    for (int c = 0; c < 3; c++) {
        dp[c].data = (uint8_t *)dframe + (size_t)c * npix * 2;
        dp[c].row_stride = (ptrdiff_t)W * 2;
        dp[c].pixel_stride = 2;
        dp[c].bytes = 2;
    }
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    uint16_t *ref = malloc(frame_bytes), *got = malloc(frame_bytes);
    /* the longest series: runs, cpu_runs, or Part 1's at least 5 */
    double *t = malloc(sizeof(double) * (size_t)(2 * runs + cpu_runs + 5));

    gpu_row rows[NKINDS * 9];
    int nrows = 0;
    double cpu1[NKINDS], cpun[NKINDS], cpup[NKINDS];
    sci_pool *cpu_pool = sci_pool_new(threads);
    for (int k = 0; k < nk; k++) {
        /* the C reference: the oracle, then its speed */
        if (cpu_decode(cs[k], len[k], ref, NULL)) {
            fprintf(stderr, "%s: the C reference fails\n", kinds[k].name);
            return 1;
        }
        /* Part 1 decodes ten times slower on the CPU (an unoptimised MQ
         * decoder, docs/j2k-decoder.md): fewer frames keep the run short */
        int p1 = kinds[k].coder == SCI_J2K_CODER_PART1;
        int kcpu = p1 ? 1 : cpu_runs, kruns = p1 ? (runs / 10 > 5 ? runs / 10 : 5) : runs;
        for (int i = 0; i < kcpu; i++) {
            double t0 = bench_now_ms();
            cpu_decode(cs[k], len[k], got, NULL);
            t[i] = (bench_now_ms() - t0) / 1000.0;
        }
        cpu1[k] = bench_median(t, kcpu);
        /* one frame on the pool's threads (sci_j2k_dec_set_pool) */
        for (int i = 0; i < kcpu; i++) {
            double t0 = bench_now_ms();
            if (cpu_decode(cs[k], len[k], got, cpu_pool) ||
                memcmp(got, ref, frame_bytes)) {
                fprintf(stderr, "%s: the C reference on %u threads differs\n",
                        kinds[k].name, threads);
                return 1;
            }
            t[i] = (bench_now_ms() - t0) / 1000.0;
        }
        cpup[k] = bench_median(t, kcpu);
        {
            pthread_t th[256];
            cpu_job jobs[256];
            unsigned n = threads > 256 ? 256 : threads ? threads : 1;
            double t0 = bench_now_ms();
            for (unsigned i = 0; i < n; i++) {
                jobs[i].cs = cs[k];
                jobs[i].len = len[k];
                jobs[i].frames = kcpu;
                jobs[i].out = malloc(frame_bytes);
                jobs[i].fail = 0;
                pthread_create(&th[i], NULL, cpu_thread, &jobs[i]);
            }
            for (unsigned i = 0; i < n; i++) {
                pthread_join(th[i], NULL);
                free(jobs[i].out);
            }
            cpun[k] = n * kcpu / ((bench_now_ms() - t0) / 1000.0);
        }
        /* Part 1 also with its blocks on the host's threads (the
         * host-blocks path) */
        for (int b = 0; b < 1 + p1; b++) {
            int host_blocks = b == 1;
            gpu_row *r = &rows[nrows++];
            r->kind = k;
            snprintf(r->label, sizeof r->label, "%s", kinds[k].name);
            if (host_blocks)
                snprintf(r->label, sizeof r->label, "%s host blocks", kinds[k].name);
            sci_cuda_j2kdec *g;
            CKW(sci_cuda_j2kdec_create(&g, MAX_DEPTH, threads));
            sci_cuda_j2kdec_tune(g, host_blocks);
            sci_cuda_j2kdec_tune_ht(g, ht_symbols);
            /* warm-up and the check */
            CK(cudaMemsetAsync(dframe, 0xff, frame_bytes, st));
            CKW(sci_cuda_j2kdec_decode(g, cs[k], len[k], dp, st));
            CK(cudaMemcpy(got, dframe, frame_bytes, cudaMemcpyDeviceToHost));
            r->check = memcmp(got, ref, frame_bytes) ? "DIFFERS" : "exact";
            for (int i = 0; i < 2; i++)
                CKW(sci_cuda_j2kdec_decode(g, cs[k], len[k], dp, st));
            /* one at a time: in two parts where the decoder splits the
             * frame, and in one, the two in turn */
            double host = 0, *t_one = t + kruns;
            r->parts = 0;
            for (int i = 0; i < 2 * kruns; i++) {
                unsigned tk;
                int one = i & 1;
                sci_cuda_j2kdec_tune_split(g, one ? SCI_CUDA_J2KDEC_SPLIT_OFF
                                                  : SCI_CUDA_J2KDEC_SPLIT_AUTO);
                double t0 = bench_now_ms();
                CKW(sci_cuda_j2kdec_parse(g, cs[k], len[k], NULL, NULL, 0));
                CKW(sci_cuda_j2kdec_submit(g, dp, st, &tk));
                double t1 = bench_now_ms();
                CKW(sci_cuda_j2kdec_finish(g, tk));
                (one ? t_one : t)[i / 2] = bench_now_ms() - t0;
                if (!one) {
                    host += t1 - t0;
                    r->parts = sci_cuda_j2kdec_phases(g);
                }
            }
            sci_cuda_j2kdec_tune_split(g, SCI_CUDA_J2KDEC_SPLIT_AUTO);
            /* the frame as the decoder splits it is still the C reference's */
            CK(cudaMemsetAsync(dframe, 0xff, frame_bytes, st));
            CKW(sci_cuda_j2kdec_decode(g, cs[k], len[k], dp, st));
            CK(cudaMemcpy(got, dframe, frame_bytes, cudaMemcpyDeviceToHost));
            if (memcmp(got, ref, frame_bytes))
                r->check = "DIFFERS";
            r->ms1 = bench_median(t, kruns);
            r->ms1_one = bench_median(t_one, kruns);
            r->fps[1] = 1000.0 / r->ms1;
            r->host_ms = host / kruns;
            /* in flight (the host-blocks path's frames take turns on the
             * CPU threads: two in flight say so) */
            for (int depth = 2; depth <= MAX_DEPTH; depth++)
                r->fps[depth] = host_blocks && depth > 2 ? -1
                                : in_flight_fps(g, cs[k], len[k], dp, st,
                                                depth, kruns);
            /* stages, from CUDA events, on frames of their own */
            CKW(sci_cuda_j2kdec_profile(g, 1));
            {
                double sm[9][16];
                int np = 0;
                for (int i = 0; i < 12; i++) {
                    CKW(sci_cuda_j2kdec_decode(g, cs[k], len[k], dp, st));
                    float ms[9];
                    sci_cuda_j2kdec_stage_ms(g, ms);
                    sci_cuda_j2kdec_host_ms(g, ms + 5);
                    if (ms[0] < 0)
                        break;
                    for (int q = 0; q < 9; q++)
                        sm[q][np] = ms[q];
                    np++;
                }
                for (int q = 0; q < 9; q++)
                    r->stage[q] = np ? bench_median(sm[q], np) : -1;
            }
            char fl[160];
            depths_str(fl, sizeof fl, r->fps, 2);
            printf("%s: path %d, %s, %.3f ms one at a time in %u parts, %.3f "
                   "in one (caller %.3f ms), %s frames/s with 2 .. %d in "
                   "flight\n", r->label, (int)sci_cuda_j2kdec_path(g),
                   r->check, r->ms1, r->parts, r->ms1_one, r->host_ms, fl,
                   MAX_DEPTH);
            sci_cuda_j2kdec_destroy(g);
        }
    }

    /* anchors */
    double nvfps[NKINDS], nvms[NKINDS], opjs[NKINDS], ojphs[NKINDS], grks[NKINDS];
    double nvt_fps[NKINDS][MAX_DEPTH + 1];
    for (int k = 0; k < nk; k++) {
        nvfps[k] = nvms[k] = opjs[k] = ojphs[k] = grks[k] = -1;
        if (nv)
            nvfps[k] = run_nvj2k(nv, path[k], runs, &nvms[k]);
        if (!nvt || run_nvj2k_threads(nvt, path[k], runs, MAX_DEPTH, nvt_fps[k]))
            for (int d = 0; d <= MAX_DEPTH; d++)
                nvt_fps[k][d] = -1;
        if (opj) {
            snprintf(cmd, sizeof cmd, "%s -i %s -o %s/opj.ppm -threads %u >/dev/null 2>&1",
                     opj, path[k], workdir, threads);
            opjs[k] = run_cmd_s(cmd);
        }
        if (ojph && kinds[k].coder == SCI_J2K_CODER_HT) {
            snprintf(cmd, sizeof cmd, "%s -i %s -o %s/ojph.ppm >/dev/null 2>&1",
                     ojph, path[k], workdir);
            ojphs[k] = run_cmd_s(cmd);
        }
        if (grk) {
            snprintf(cmd, sizeof cmd, "%s -i %s -o %s/grk.ppm -H %u >/dev/null 2>&1",
                     grk, path[k], workdir, threads);
            grks[k] = run_cmd_s(cmd);
        }
    }

    printf("\n## JPEG 2000 decode, %ux%u 4:4:4 %d-bit, %s, codestream in host "
           "memory -> frame in device memory\n\n", W, H, DEPTH, prop.name);
    char dl[64];
    depths_label(dl, sizeof dl);
    printf("| stream | bpp | GPU ms (1 frame) | GPU ms, 1 frame in one part "
           "| GPU frames/s %s in flight "
           "| caller ms | GPU == C | nvJPEG2000 frames/s, 1 frame | nvJPEG2000 "
           "frames/s %s in flight | ours / nvJPEG2000, 1 frame | "
           "ours / nvJPEG2000, best in flight |\n", dl, dl);
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int r = 0; r < nrows; r++) {
        int k = rows[r].kind;
        const double *nf = nvt_fps[k];
        char r1[32], rb[32];
        ratio_str(r1, sizeof r1, rows[r].fps[1], nvfps[k]);
        ratio_str(rb, sizeof rb, best_of(rows[r].fps, 1, MAX_DEPTH),
                  best_of(nf, 1, MAX_DEPTH));
        char of[160], nvf[160];
        depths_str(of, sizeof of, rows[r].fps, 1);
        depths_str(nvf, sizeof nvf, nf, 1);
        printf("| %s | %.3f | %.3f (%u parts) | %.3f | %s | %.3f | %s | %.1f | "
               "%s | %s | %s |\n", rows[r].label, len[k] * 8.0 / (double)npix,
               rows[r].ms1, rows[r].parts, rows[r].ms1_one, of,
               rows[r].host_ms, rows[r].check, nvfps[k], nvf, r1, rb);
    }
    printf("\n## Stages, ms (median of 12 frames one at a time; device: CUDA "
           "events; host: its clock in submit; host paths: n/a)\n\n");
    printf("| stream | uploads + clear | gather | HT blocks | EBCOT blocks | "
           "inverse DWT + output | host: tier-2 | host: tables + buffers | "
           "host: pinned copy | host: whole submit |\n"
           "|---|---|---|---|---|---|---|---|---|---|\n");
    for (int r = 0; r < nrows; r++) {
        printf("| %s |", rows[r].label);
        for (int q = 0; q < 9; q++)
            if (rows[r].stage[q] >= 0)
                printf(" %.3f |", rows[r].stage[q]);
            else
                printf(" n/a |");
        printf("\n");
    }
    printf("\n## CPU decode, s/frame (whole process for the anchors, writing a PPM)\n\n");
    printf("| stream | ours 1 thread | ours %u threads (frames/s) | opj_decompress "
           "%u threads | ojph_expand | grk_decompress %u threads | ours, a "
           "frame on %u threads |\n", threads, threads, threads, threads);
    printf("|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < nk; k++) {
        char a[3][32];
        double v[3] = {opjs[k], ojphs[k], grks[k]};
        for (int i = 0; i < 3; i++)
            if (v[i] > 0)
                snprintf(a[i], sizeof a[i], "%.3f", v[i]);
            else
                snprintf(a[i], sizeof a[i], "n/a");
        printf("| %s | %.3f | %.2f | %s | %s | %s | %.3f |\n", kinds[k].name,
               cpu1[k], cpun[k], a[0], a[1], a[2], cpup[k]);
    }
    if (grk_enc)
        bench_tiled(grk_enc, workdir, nv, nvt, pl, runs, threads, dp, dframe, st, ref,
                    got);
    for (int k = 0; k < nk; k++)
        free(cs[k]);
    for (int c = 0; c < 3; c++)
        free(pl[c]);
    free(ref);
    free(got);
    free(t);
    sci_pool_free(cpu_pool);
    CK(cudaFree(dframe));
    CK(cudaStreamDestroy(st));
    return 0;
}
