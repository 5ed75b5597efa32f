/*
 * Online DPCM (codec/dpcm/dpcm.h) on real 16-bit spectral frames against
 * lossless anchors, CPU only (issue 4).  Prints markdown tables.
 *
 *   bench-dpcm [--reps N] [--quick] [FITS]
 *
 * FITS: the GMOS-N frames (3 image extensions, NAXIS1 = 132 wide by
 * NAXIS2 = 288 high, BITPIX 16, BZERO 32768); default
 * ../shared/data/spectral16/gmos-n-multi.fits next to the source tree
 * (meson passes its path).  Frame sets:
 *   real     the 3 extensions as they are, each coded as one frame;
 *   mosaic   one 1024 x 1024 frame built exactly as test-codec-dpcm --bench
 *            builds it: pixel (x, y) comes from extension
 *            (x / 300 + y / 140) mod 3 at (x mod 132, y mod 288), mirrored
 *            in odd tiles (so one extension's edges meet smoothly, but where
 *            the extension changes, every 300 columns and 140 rows, there
 *            is a seam);
 *   mirror   three 1024 x 1024 frames, each one extension alone tiled by
 *            mirroring (period 264 x 576: no seams).
 * Tiling repeats whole rows, which LZ-type coders (xz, zstd) find as long
 * matches: on the tiled sets their sizes say nothing about real 1024 x 1024
 * frames; only the real set compares sizes fairly.
 * Codecs, each frame coded alone and decoded back (bit-exact check):
 * sci_dpcm_encode/decode (N=11 M=7 T=13 default, on a pool of a thread a
 * CPU and on one; T=0; N=4 M=4 T=13; scan by columns with T=13 and T=0), CharLS
 * JPEG-LS
 * lossless (16-bit grey, NEAR=0), and xz -9 (liblzma preset 9, CRC64 check
 * as the xz tool), zstd -19 (libzstd level 19) and bzip2 -9 (libbz2 block
 * size 9) on the raw little-endian 16-bit samples; all in-process, one
 * thread each.  An anchor whose library was missing at build time prints
 * n/a.  Times per frame (ms): after one untimed warm-up call, the median
 * of every frame's encode and decode over --reps runs (default 7 for real,
 * 3 for mosaic, 1 for mirror: 21, 3 and 3 samples; --quick: 1 run).  The
 * DPCM rows run on the codec's thread pool (a thread a CPU, or
 * SCI_BENCH_THREADS), except the 1-thread row; the anchors are
 * single-threaded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/common/benchutil.h"
#include "tests/fits/fitsread.h"
#include "codec/dpcm/dpcm.h"

#if HAVE_CHARLS
#include <charls/charls.h>
#endif
#if HAVE_LZMA
#include <lzma.h>
#endif
#if HAVE_ZSTD
#include <zstd.h>
#endif
#if HAVE_BZIP2
#include <bzlib.h>
#endif

#ifndef BENCH_DATA_FILE
#define BENCH_DATA_FILE "../shared/data/spectral16/gmos-n-multi.fits"
#endif

/* ---------------------------------------------------------------------- */
/* Frames */

typedef struct {
    unsigned w, h;
    uint16_t *px;  /* w * h samples, rows packed */
    uint8_t *le;   /* the same samples as little-endian bytes */
} frame;

static void frame_finish(frame *f) {
    size_t n = (size_t)f->w * f->h;
    f->le = malloc(2 * n);
    if (!f->le) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        f->le[2 * i] = (uint8_t)(f->px[i] & 0xff);
        f->le[2 * i + 1] = (uint8_t)(f->px[i] >> 8);
    }
}

static frame frame_alloc(unsigned w, unsigned h) {
    frame f = {w, h, malloc((size_t)w * h * sizeof(uint16_t)), NULL};
    if (!f.px) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return f;
}

/* The 16-bit frames of the FITS file at `path` (tests/fits/fitsread.c); returns
 * how many (at most max). */
static unsigned fits_read(const char *path, frame *out, unsigned max) {
    fits_frame ff[8];
    unsigned n = fits_read_u16(path, ff, max < 8 ? max : 8);
    for (unsigned i = 0; i < n; i++) {
        out[i] = (frame){ff[i].w, ff[i].h, ff[i].px, NULL};
        frame_finish(&out[i]);
    }
    return n;
}

/* test-codec-dpcm --bench's 1024 x 1024 frame, pixel for pixel. */
static frame make_mosaic(const frame *fr, unsigned nf, unsigned S) {
    frame m = frame_alloc(S, S);
    fits_frame ff[8];
    for (unsigned i = 0; i < nf && i < 8; i++)
        ff[i] = (fits_frame){fr[i].w, fr[i].h, fr[i].px};
    for (unsigned y = 0; y < S; y++)
        for (unsigned x = 0; x < S; x++)
            m.px[(size_t)y * S + x] = fits_mosaic_sample(ff, nf < 8 ? nf : 8, x, y);
    frame_finish(&m);
    return m;
}

/* One frame tiled by mirroring: period 2w x 2h, no seams. */
static frame make_mirror(const frame *f, unsigned S) {
    frame m = frame_alloc(S, S);
    for (unsigned y = 0; y < S; y++) {
        unsigned ty = y % (2 * f->h);
        unsigned yy = ty < f->h ? ty : 2 * f->h - 1 - ty;
        for (unsigned x = 0; x < S; x++) {
            unsigned tx = x % (2 * f->w);
            unsigned xx = tx < f->w ? tx : 2 * f->w - 1 - tx;
            m.px[(size_t)y * S + x] = f->px[yy * f->w + xx];
        }
    }
    frame_finish(&m);
    return m;
}

/* ---------------------------------------------------------------------- */
/* Codecs: encode returns the bytes written (0: failure); decode writes
 * samples (image codecs) or little-endian bytes (byte compressors) to out,
 * 2 w h bytes, and returns 0 on success. */

typedef struct codec codec;
struct codec {
    const char *name;
    const char *missing;  /* non-NULL: not built (why) */
    int bytes_codec;      /* decodes to the little-endian bytes */
    sci_dpcm_params p;
    int threads;          /* 0: bench_pool(); 1: the calling thread */
    size_t (*enc)(const codec *c, const frame *f, uint8_t *out, size_t cap);
    int (*dec)(const codec *c, const frame *f, const uint8_t *in, size_t n,
               void *out);
};

static size_t enc_dpcm(const codec *c, const frame *f, uint8_t *out, size_t cap) {
    return sci_dpcm_encode(c->threads == 1 ? NULL : bench_pool(), f->px, f->w, f->w, f->h,
                           16, &c->p, out, cap);
}

static int dec_dpcm(const codec *c, const frame *f, const uint8_t *in, size_t n,
                    void *out) {
    return sci_dpcm_decode(c->threads == 1 ? NULL : bench_pool(), in, n, out, f->w,
                           (size_t)f->w * f->h, NULL);
}

#if HAVE_CHARLS
static size_t enc_jls(const codec *c, const frame *f, uint8_t *out, size_t cap) {
    (void)c;
    charls_jpegls_encoder *e = charls_jpegls_encoder_create();
    if (!e)
        return 0;
    charls_frame_info fi = {f->w, f->h, 16, 1};
    size_t n = 0;
    if (charls_jpegls_encoder_set_frame_info(e, &fi) ||
        charls_jpegls_encoder_set_near_lossless(e, 0) ||
        charls_jpegls_encoder_set_destination_buffer(e, out, cap) ||
        charls_jpegls_encoder_encode_from_buffer(e, f->px, (size_t)f->w * f->h * 2, 0) ||
        charls_jpegls_encoder_get_bytes_written(e, &n))
        n = 0;
    charls_jpegls_encoder_destroy(e);
    return n;
}

static int dec_jls(const codec *c, const frame *f, const uint8_t *in, size_t n,
                   void *out) {
    (void)c;
    charls_jpegls_decoder *d = charls_jpegls_decoder_create();
    if (!d)
        return -1;
    charls_frame_info fi;
    int bad = charls_jpegls_decoder_set_source_buffer(d, in, n) ||
              charls_jpegls_decoder_read_header(d) ||
              charls_jpegls_decoder_get_frame_info(d, &fi) ||
              fi.width != f->w || fi.height != f->h || fi.bits_per_sample != 16 ||
              fi.component_count != 1 ||
              charls_jpegls_decoder_decode_to_buffer(d, out, (size_t)f->w * f->h * 2, 0);
    charls_jpegls_decoder_destroy(d);
    return bad ? -1 : 0;
}
#endif

#if HAVE_LZMA
static size_t enc_xz(const codec *c, const frame *f, uint8_t *out, size_t cap) {
    (void)c;
    size_t pos = 0;
    return lzma_easy_buffer_encode(9, LZMA_CHECK_CRC64, NULL, f->le,
                                   (size_t)f->w * f->h * 2, out, &pos, cap) == LZMA_OK
               ? pos : 0;
}

static int dec_xz(const codec *c, const frame *f, const uint8_t *in, size_t n,
                  void *out) {
    (void)c;
    uint64_t memlimit = UINT64_MAX;
    size_t in_pos = 0, out_pos = 0, size = (size_t)f->w * f->h * 2;
    lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, NULL, in, &in_pos, n,
                                           out, &out_pos, size);
    return r == LZMA_OK && in_pos == n && out_pos == size ? 0 : -1;
}
#endif

#if HAVE_ZSTD
static size_t enc_zstd(const codec *c, const frame *f, uint8_t *out, size_t cap) {
    (void)c;
    size_t r = ZSTD_compress(out, cap, f->le, (size_t)f->w * f->h * 2, 19);
    return ZSTD_isError(r) ? 0 : r;
}

static int dec_zstd(const codec *c, const frame *f, const uint8_t *in, size_t n,
                    void *out) {
    (void)c;
    size_t size = (size_t)f->w * f->h * 2;
    size_t r = ZSTD_decompress(out, size, in, n);
    return !ZSTD_isError(r) && r == size ? 0 : -1;
}
#endif

#if HAVE_BZIP2
static size_t enc_bz2(const codec *c, const frame *f, uint8_t *out, size_t cap) {
    (void)c;
    unsigned len = cap > 0xffffffffu ? 0xffffffffu : (unsigned)cap;
    return BZ2_bzBuffToBuffCompress((char *)out, &len, (char *)f->le,
                                    (unsigned)((size_t)f->w * f->h * 2), 9, 0, 0) == BZ_OK
               ? len : 0;
}

static int dec_bz2(const codec *c, const frame *f, const uint8_t *in, size_t n,
                   void *out) {
    (void)c;
    unsigned size = (unsigned)((size_t)f->w * f->h * 2), len = size;
    return BZ2_bzBuffToBuffDecompress(out, &len, (char *)in, (unsigned)n, 0, 0) == BZ_OK &&
                   len == size
               ? 0 : -1;
}
#endif

/* ---------------------------------------------------------------------- */

typedef struct {
    int ok;           /* built and every round trip exact */
    const char *why;  /* when not ok */
    size_t bytes;     /* all frames of the set */
    double enc_ms, dec_ms;  /* median per frame */
} result;

static result run_codec(const codec *c, const frame *fr, unsigned nf, int reps) {
    result r = {0, NULL, 0, 0, 0};
    if (c->missing) {
        r.why = c->missing;
        return r;
    }
    uint8_t *enc[8];
    size_t len[8], cap[8];
    size_t maxpx = 0;
    for (unsigned i = 0; i < nf; i++) {
        size_t px = (size_t)fr[i].w * fr[i].h;
        cap[i] = sci_dpcm_max_bytes(fr[i].w, fr[i].h, 16) + 4 * px + 65536;
        enc[i] = malloc(cap[i]);
        if (px > maxpx)
            maxpx = px;
    }
    uint16_t *dec = malloc(maxpx * 2);
    /* samples: per-frame times of every run (reps x frames) */
    double *te = malloc((size_t)reps * nf * sizeof *te);
    double *td = malloc((size_t)reps * nf * sizeof *td);
    int exact = 1, ns = 0;
    /* warm-up, untimed: the first calls of a codec are slower (allocator,
     * caches, clock ramp) */
    len[0] = c->enc(c, &fr[0], enc[0], cap[0]);
    if (len[0])
        c->dec(c, &fr[0], enc[0], len[0], dec);
    for (int rep = 0; rep < reps && exact; rep++) {
        for (unsigned i = 0; i < nf; i++) {
            double t0 = bench_now_ms();
            len[i] = c->enc(c, &fr[i], enc[i], cap[i]);
            double t1 = bench_now_ms();
            if (!len[i]) {
                exact = 0;
                r.why = "encode failed";
                break;
            }
            int st = c->dec(c, &fr[i], enc[i], len[i], dec);
            double t2 = bench_now_ms();
            te[ns] = t1 - t0, td[ns] = t2 - t1, ns++;
            size_t n = (size_t)fr[i].w * fr[i].h * 2;
            if (st || memcmp(dec, c->bytes_codec ? (const void *)fr[i].le
                                                 : (const void *)fr[i].px, n)) {
                exact = 0;
                r.why = st ? "decode failed" : "MISMATCH";
                break;
            }
        }
    }
    if (exact) {
        r.ok = 1;
        for (unsigned i = 0; i < nf; i++)
            r.bytes += len[i];
        r.enc_ms = bench_median(te, ns);
        r.dec_ms = bench_median(td, ns);
    }
    free(te);
    free(td);
    for (unsigned i = 0; i < nf; i++)
        free(enc[i]);
    free(dec);
    return r;
}

static void print_set(const char *title, const codec *cs, unsigned nc,
                      const frame *fr, unsigned nf, int reps, int jls_index) {
    size_t px = 0;
    for (unsigned i = 0; i < nf; i++)
        px += (size_t)fr[i].w * fr[i].h;
    printf("\n### %s\n\n", title);
    printf("%u frame(s), %zu pixels, %zu raw bytes; times per frame: median of %d run(s) x %u frame(s) after one warm-up\n\n",
           nf, px, 2 * px, reps, nf);
    result *rs = calloc(nc, sizeof *rs);
    /* JPEG-LS first: the others are compared with it */
    rs[jls_index] = run_codec(&cs[jls_index], fr, nf, reps);
    for (unsigned k = 0; k < nc; k++)
        if ((int)k != jls_index)
            rs[k] = run_codec(&cs[k], fr, nf, reps);
    const result *j = &rs[jls_index];
    printf("| codec | bytes | bpp | ratio | bpp / JPEG-LS | enc ms | dec ms | enc / JPEG-LS | dec / JPEG-LS | round trip |\n");
    printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (unsigned k = 0; k < nc; k++) {
        const result *r = &rs[k];
        if (!r->ok) {
            printf("| %s | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | %s |\n",
                   cs[k].name, r->why);
            continue;
        }
        double bpp = 8.0 * r->bytes / px;
        printf("| %s | %zu | %.3f | %.2f | ", cs[k].name, r->bytes, bpp, 16.0 / bpp);
        if (j->ok)
            printf("%.3f | ", bpp / (8.0 * j->bytes / px));
        else
            printf("n/a | ");
        printf("%.2f | %.2f | ", r->enc_ms, r->dec_ms);
        if (j->ok)
            printf("%.1fx | %.1fx | ", r->enc_ms / j->enc_ms, r->dec_ms / j->dec_ms);
        else
            printf("n/a | n/a | ");
        printf("exact |\n");
    }
    fflush(stdout);
    free(rs);
}

static void print_load(const char *when) {
    double l[3];
    if (getloadavg(l, 3) == 3)
        printf("load average %s: %.2f %.2f %.2f\n", when, l[0], l[1], l[2]);
}

int main(int argc, char **argv) {
    const char *path = BENCH_DATA_FILE;
    int reps_set = 0, quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps_set = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: %s [--reps N] [--quick] [FITS]\n", argv[0]);
            return 2;
        } else
            path = argv[i];
    }
    if (reps_set < 0 || reps_set > 64) {
        fprintf(stderr, "--reps: 1..64\n");
        return 2;
    }
    frame real[3];
    unsigned nf = fits_read(path, real, 3);
    if (nf != 3) {
        fprintf(stderr, "%s: expected 3 16-bit image extensions, found %u\n", path, nf);
        return 1;
    }

    int threads = (int)sci_pool_threads(bench_pool());
    static char name_def[64], name_1t[64];
    snprintf(name_def, sizeof name_def, "DPCM N=11 M=7 T=13 (%d thr)", threads);
    snprintf(name_1t, sizeof name_1t, "DPCM N=11 M=7 T=13 (1 thr)");
    codec cs[12];
    unsigned nc = 0;
    sci_dpcm_params def;
    sci_dpcm_params_default(&def);
    cs[nc++] = (codec){name_def, NULL, 0, def, 0, enc_dpcm, dec_dpcm};
    if (threads > 1)
        cs[nc++] = (codec){name_1t, NULL, 0, def, 1, enc_dpcm, dec_dpcm};
    cs[nc++] = (codec){"DPCM N=11 M=7 T=0", NULL, 0, {11, 7, 0, SCI_DPCM_SCAN_ROWS}, 0,
                       enc_dpcm, dec_dpcm};
    cs[nc++] = (codec){"DPCM N=4 M=4 T=13", NULL, 0, {4, 4, 13, SCI_DPCM_SCAN_ROWS}, 0,
                       enc_dpcm, dec_dpcm};
    cs[nc++] = (codec){"DPCM N=11 M=7 T=13 scan=columns", NULL, 0,
                       {11, 7, 13, SCI_DPCM_SCAN_COLUMNS}, 0, enc_dpcm, dec_dpcm};
    cs[nc++] = (codec){"DPCM N=11 M=7 T=0 scan=columns", NULL, 0,
                       {11, 7, 0, SCI_DPCM_SCAN_COLUMNS}, 0, enc_dpcm, dec_dpcm};
    int jls = (int)nc;
#if HAVE_CHARLS
    cs[nc++] = (codec){"JPEG-LS (CharLS, NEAR=0)", NULL, 0, def, 0, enc_jls, dec_jls};
#else
    cs[nc++] = (codec){"JPEG-LS (CharLS, NEAR=0)", "n/a (not built with CharLS)", 0, def, 0, NULL, NULL};
#endif
#if HAVE_LZMA
    cs[nc++] = (codec){"xz -9 (raw LE)", NULL, 1, def, 0, enc_xz, dec_xz};
#else
    cs[nc++] = (codec){"xz -9 (raw LE)", "n/a (not built with liblzma)", 1, def, 0, NULL, NULL};
#endif
#if HAVE_ZSTD
    cs[nc++] = (codec){"zstd -19 (raw LE)", NULL, 1, def, 0, enc_zstd, dec_zstd};
#else
    cs[nc++] = (codec){"zstd -19 (raw LE)", "n/a (not built with libzstd)", 1, def, 0, NULL, NULL};
#endif
#if HAVE_BZIP2
    cs[nc++] = (codec){"bzip2 -9 (raw LE)", NULL, 1, def, 0, enc_bz2, dec_bz2};
#else
    cs[nc++] = (codec){"bzip2 -9 (raw LE)", "n/a (not built with libbz2)", 1, def, 0, NULL, NULL};
#endif

    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    printf("## bench-dpcm %s\n\n", date);
    printf("data: %s (%u extensions, %ux%u w x h)\n", path, nf, real[0].w, real[0].h);
    printf("threads for the DPCM rows: %d (anchors: 1 thread each)\n", threads);
    printf("libraries:");
#if !HAVE_CHARLS && !HAVE_LZMA && !HAVE_ZSTD && !HAVE_BZIP2
    printf(" none");
#endif
#if HAVE_CHARLS
    printf(" CharLS %s", charls_get_version_string());
#endif
#if HAVE_LZMA
    printf(" liblzma %s", lzma_version_string());
#endif
#if HAVE_ZSTD
    printf(" libzstd %s", ZSTD_versionString());
#endif
#if HAVE_BZIP2
    printf(" libbz2 %s", BZ2_bzlibVersion());
#endif
    printf("\n");
    print_load("at start");

    int reps_small = reps_set ? reps_set : quick ? 1 : 7;
    int reps_big = reps_set ? reps_set : quick ? 1 : 3;
    int reps_mirror = reps_set ? reps_set : 1;  /* 3 frames: 3 samples */
    print_set("real: the 3 GMOS-N extensions, 132x288 (w x h) each", cs, nc, real, nf,
              reps_small, jls);

    frame mosaic = make_mosaic(real, nf, 1024);
    print_set("mosaic: 1024x1024 tiled from all 3 (test-codec-dpcm --bench's frame)",
              cs, nc, &mosaic, 1, reps_big, jls);

    frame mirror[3];
    for (unsigned i = 0; i < nf; i++)
        mirror[i] = make_mirror(&real[i], 1024);
    print_set("mirror: 3 frames of 1024x1024, each one extension mirror-tiled",
              cs, nc, mirror, nf, reps_mirror, jls);

    printf("\n");
    print_load("at end");
    for (unsigned i = 0; i < nf; i++) {
        free(real[i].px), free(real[i].le);
        free(mirror[i].px), free(mirror[i].le);
    }
    free(mosaic.px), free(mosaic.le);
    return 0;
}
