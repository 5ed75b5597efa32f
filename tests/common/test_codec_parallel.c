/*
 * The CPU backend's thread pool (codec/common/parallel.h), and the codec on it.
 *
 *   - sci_pool_for runs every index exactly once, in chunks of the grain
 *     (or about four a thread), on worker numbers below the pool's size,
 *     over sizes and thread counts; a region started from inside a region,
 *     or from two threads at once, completes (on its caller); the sizes
 *     sci_pool_new gives; the workers do take part.
 *   - Idle workers sleep: many short codec calls (the wavelet transform of
 *     a frame just over its parallel threshold, the DPCM decoder on a frame
 *     a few rows high) separated by sleeps take process CPU time far below
 *     threads x wall time.  libgomp's workers, which the codec ran on
 *     before, spin after every region and took about threads x wall.
 *   - Every parallel stage gives the same bytes (floats bit for bit) on no
 *     pool and on pools of 2, 3, 5 and 8 threads: the wavelet stage (5/3 +
 *     RCT, 9/7 + ICT), the HT and Part 1 encoders, DPCM (and the error a
 *     frame with two damaged segments gives), the seismic codec (and the
 *     index of the first NaN), SPP.
 *
 *   test-codec-parallel [--seed S]
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/common/crc32.h"
#include "codec/dpcm/dpcm.h"
#include "codec/j2k/htj2k.h"
#include "codec/common/parallel.h"
#include "codec/seismic/seismic.h"
#include "codec/spp/spp.h"
#include "codec/j2k/wavelet_frame.h"
#include "testutil.h"

static const unsigned pool_sizes[] = {2, 3, 5, 8};
#define NPOOLS (sizeof pool_sizes / sizeof *pool_sizes)

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_ms(unsigned ms) {
    struct timespec ts = {0, (long)ms * 1000000L};
    while (nanosleep(&ts, &ts))
        ;
}

/* ---- the pool ----------------------------------------------------------- */

typedef struct {
    atomic_uint *count;
    size_t n, grain;
    unsigned threads;
    atomic_int bad_chunk, bad_worker;
    atomic_uint workers_seen; /* bit w: worker w ran a chunk */
    sci_pool *nest;           /* pool to start a region from inside */
    atomic_uint nested_ok;
    unsigned sleep_ms;
    int shared;               /* sci_pool_for_shared: never the whole range
                               * on the caller when there are chunks */
} cover_args;

static void nested_fn(void *arg, size_t b, size_t e, unsigned wk) {
    atomic_uint *sum = arg;
    atomic_fetch_add(sum, (unsigned)(e - b));
}

static void cover_fn(void *arg, size_t b, size_t e, unsigned wk) {
    cover_args *a = arg;
    /* a chunk of the grain, or the whole range on the caller (no pool, a
     * pool of one thread, a single chunk, a nested region) */
    int whole = b == 0 && e == a->n && wk == 0;
    if (b >= e || e > a->n || (a->grain && !whole && (b % a->grain || e - b > a->grain)) ||
        (a->shared && whole && a->grain && a->n > a->grain && a->threads > 1))
        atomic_store(&a->bad_chunk, 1);
    if (wk >= a->threads)
        atomic_store(&a->bad_worker, 1);
    else if (wk < 32)
        atomic_fetch_or(&a->workers_seen, 1u << wk);
    for (size_t i = b; i < e && i < a->n; i++)
        atomic_fetch_add(&a->count[i], 1);
    if (a->nest) {
        atomic_uint sum = 0;
        sci_pool_for(a->nest, 100, 7, nested_fn, &sum);
        if (atomic_load(&sum) == 100)
            atomic_fetch_add(&a->nested_ok, 1);
    }
    if (a->sleep_ms)
        sleep_ms(a->sleep_ms);
}

/* Runs a covering region; 1 when every index ran once and every chunk and
 * worker number was in range. */
static int cover(sci_pool *pool, size_t n, size_t grain, cover_args *a) {
    a->count = calloc(n ? n : 1, sizeof *a->count);
    a->n = n;
    a->grain = grain;
    a->threads = sci_pool_threads(pool);
    atomic_store(&a->bad_chunk, 0);
    atomic_store(&a->bad_worker, 0);
    atomic_store(&a->workers_seen, 0);
    atomic_store(&a->nested_ok, 0);
    if (a->shared)
        sci_pool_for_shared(pool, n, grain, cover_fn, a);
    else
        sci_pool_for(pool, n, grain, cover_fn, a);
    int ok = !atomic_load(&a->bad_chunk) && !atomic_load(&a->bad_worker);
    for (size_t i = 0; i < n; i++)
        ok = ok && atomic_load(&a->count[i]) == 1;
    free(a->count);
    return ok;
}

typedef struct {
    sci_pool *pool;
    int ok, shared;
} racer;

static void *race_main(void *arg) {
    racer *r = arg;
    cover_args a = {0};
    a.shared = r->shared;
    r->ok = 1;
    for (unsigned k = 0; k < 200; k++)
        r->ok = r->ok && cover(r->pool, 50 + k, 3, &a);
    return NULL;
}

static void test_regions(void) {
    static const size_t sizes[] = {0, 1, 2, 5, 100, 1000, 4097};
    static const size_t grains[] = {0, 1, 3, 64, 5000};
    cover_args a = {0};
    int ok = 1;
    ok = ok && cover(NULL, 77, 0, &a);
    for (unsigned t = 1; t <= 7; t += 2) {
        sci_pool *pool = sci_pool_new(t);
        check(pool && sci_pool_threads(pool) == t, "a pool of the threads asked for");
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            for (size_t j = 0; j < sizeof grains / sizeof *grains; j++)
                for (int rep = 0; rep < 3; rep++) {
                    int one = cover(pool, sizes[i], grains[j], &a);
                    if (!one)
                        printf("  threads %u, n %zu, grain %zu\n", t, sizes[i], grains[j]);
                    ok = ok && one;
                }
        sci_pool_free(pool);
    }
    check(ok, "every index once, chunks of the grain, workers below the size");

    check(sci_pool_threads(NULL) == 1, "no pool: one thread");
    sci_pool *p = sci_pool_new(0);
    check(p && sci_pool_threads(p) == sci_pool_cpus() && sci_pool_cpus() >= 1,
          "0 threads: one a CPU");
    sci_pool_free(p);
    /* no region runs: no thread is started for these */
    p = sci_pool_new(100000);
    check(p && sci_pool_threads(p) == SCI_POOL_MAX_THREADS, "at most 256 threads");
    sci_pool_free(p);
    sci_pool_free(NULL);

    /* a region from inside a region runs on its caller and completes */
    p = sci_pool_new(4);
    a.nest = p;
    ok = cover(p, 40, 1, &a) && atomic_load(&a.nested_ok) == 40;
    a.nest = NULL;
    check(ok, "a region inside a region completes");

    /* the workers take part: chunks that sleep leave time for all to
     * join, however late they wake */
    a.sleep_ms = 2;
    ok = cover(p, 64, 1, &a);
    unsigned seen = atomic_load(&a.workers_seen);
    a.sleep_ms = 0;
    check(ok && (seen & ~1u) != 0, "workers run chunks");

    /* two threads on one pool at once: one runs its regions on the
     * workers, the other on itself, and neither waits for the other */
    racer r[2] = {{p, 0, 0}, {p, 0, 0}};
    pthread_t tid[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&tid[i], NULL, race_main, &r[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(tid[i], NULL);
    check(r[0].ok && r[1].ok, "two threads running regions on one pool");

    /* the same with sci_pool_for_shared: each waits for the other's
     * region and runs its own on the workers, in chunks */
    for (int i = 0; i < 2; i++) {
        r[i].shared = 1;
        pthread_create(&tid[i], NULL, race_main, &r[i]);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(tid[i], NULL);
    check(r[0].ok && r[1].ok, "two threads sharing one pool, taking turns");
    sci_pool_free(p);
}

/* ---- idle workers sleep ------------------------------------------------- */

/* CPU time (all threads) and wall time of `calls` calls of `fn`, each
 * followed by a sleep of `ms`. */
static void measure(void (*fn)(sci_pool *, void *), sci_pool *pool, void *ctx,
                    unsigned calls, unsigned ms, double *cpu, double *wall) {
    double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    for (unsigned i = 0; i < calls; i++) {
        fn(pool, ctx);
        sleep_ms(ms);
    }
    *cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    *wall = clock_s(CLOCK_MONOTONIC) - w0;
}

typedef struct {
    sci_wt_geometry g;
    sci_wt_plane src;
    int32_t *co;
    uint16_t *px;
    uint8_t *out;
    size_t cap, len;
    unsigned w, h;
    sci_dpcm_params p;
} idle_ctx;

static void wt_call(sci_pool *pool, void *arg) {
    idle_ctx *c = arg;
    sci_wt_forward(pool, &c->g, &c->src, c->co);
}

static void dpcm_call(sci_pool *pool, void *arg) {
    idle_ctx *c = arg;
    sci_dpcm_decode(pool, c->out, c->len, c->px, c->w, (size_t)c->w * c->h, NULL);
}

static void idle_check(const char *what, void (*fn)(sci_pool *, void *), idle_ctx *c) {
    /* as many threads as CPUs (at least 2): where libgomp spins longest */
    unsigned t = sci_pool_cpus() < 2 ? 2 : sci_pool_cpus();
    sci_pool *pool = sci_pool_new(t);
    double cpu0, wall0, cpu, wall;
    fn(pool, c); /* the workers start */
    measure(fn, NULL, c, 40, 5, &cpu0, &wall0);
    measure(fn, pool, c, 40, 5, &cpu, &wall);
    sci_pool_free(pool);
    /* Beyond the work (cpu0, on one thread), spinning workers burn about
     * (t - 1) x the sleeps, more on a busy host; sleeping ones next to
     * nothing.  The sleeps, not the wall time, are the yardstick: a busy
     * host stretches the wall time without giving a spinner more CPU. */
    double sleeps = 40 * 5e-3, limit = cpu0 + 0.25 * (t - 1) * sleeps;
    char msg[256];
    snprintf(msg, sizeof msg,
             "%s: idle workers sleep (%u threads: CPU %.3f s over %.3f s wall; "
             "one thread %.3f s; limit %.3f s)",
             what, t, cpu, wall, cpu0, limit);
    printf("  %s\n", msg);
    check(cpu < limit, msg);
}

static void test_idle(void) {
    idle_ctx c;
    memset(&c, 0, sizeof c);
    /* 256 x 256 grey: 65536 samples, the wavelet stage's threshold */
    c.g.width = c.g.height = 256;
    c.g.components = 1;
    c.g.depth = 8;
    c.g.dx[0] = c.g.dy[0] = 1;
    c.g.filter = SCI_DWT_53;
    c.g.levels = 1;
    c.g.ct = SCI_CT_NONE;
    uint8_t *img = malloc(256 * 256);
    for (size_t i = 0; i < 256 * 256; i++)
        img[i] = (uint8_t)rng();
    c.src.data = img;
    c.src.row_stride = 256;
    c.src.pixel_stride = 1;
    c.co = malloc(256 * 256 * sizeof *c.co);
    idle_check("wavelet transform", wt_call, &c);

    /* the DPCM decoder (a region a row) on a frame 256 wide, 4 rows high */
    c.w = 256, c.h = 4;
    c.px = malloc((size_t)c.w * c.h * sizeof *c.px);
    for (size_t i = 0; i < (size_t)c.w * c.h; i++)
        c.px[i] = (uint16_t)(30000 + 200 * (i % c.w) / c.w + rng() % 16);
    sci_dpcm_params_default(&c.p);
    c.cap = sci_dpcm_max_bytes(c.w, c.h, 16);
    c.out = malloc(c.cap);
    c.len = sci_dpcm_encode(NULL, c.px, c.w, c.w, c.h, 16, &c.p, c.out, c.cap);
    idle_check("DPCM decoder", dpcm_call, &c);
    free(img);
    free(c.co);
    free(c.px);
    free(c.out);
}

/* ---- the same bytes on any number of threads ---------------------------- */

static sci_pool *pools[NPOOLS];

static void fill_plane(uint16_t *p, size_t n, unsigned depth) {
    /* smooth with noise: every band and bit-plane has something */
    for (size_t i = 0; i < n; i++)
        p[i] = (uint16_t)(((i * 37 % 1009) * ((1u << depth) - 1) / 1009 + rng() % 7) &
                          ((1u << depth) - 1));
}

static void test_wavelet_and_j2k(void) {
    const uint32_t W = 333, H = 301;
    uint16_t *smp[3];
    sci_wt_plane src[3], dst[3];
    for (int c = 0; c < 3; c++) {
        smp[c] = malloc((size_t)W * H * 2);
        fill_plane(smp[c], (size_t)W * H, 10);
        src[c].data = smp[c];
        src[c].row_stride = (ptrdiff_t)W * 2;
        src[c].pixel_stride = 2;
    }
    for (int lossy = 0; lossy < 2; lossy++) {
        sci_wt_geometry g = {W, H, 3, 10, {1, 1, 1}, {1, 1, 1},
                             lossy ? SCI_DWT_97 : SCI_DWT_53, lossy ? 4 : 5,
                             lossy ? SCI_CT_ICT : SCI_CT_RCT};
        size_t n = sci_wt_coeff_count(&g);
        int32_t *ref = malloc(n * 4), *co = malloc(n * 4), *tmp = malloc(n * 4);
        uint16_t *back_ref = malloc((size_t)W * H * 2 * 3), *back = malloc((size_t)W * H * 2 * 3);
        int ok = sci_wt_forward(NULL, &g, src, ref) == 0;
        for (int c = 0; c < 3; c++) {
            dst[c] = src[c];
            dst[c].data = back_ref + (size_t)c * W * H;
        }
        memcpy(tmp, ref, n * 4);
        ok = ok && sci_wt_inverse(NULL, &g, tmp, dst) == 0;
        for (size_t k = 0; k < NPOOLS; k++) {
            ok = ok && sci_wt_forward(pools[k], &g, src, co) == 0 && !memcmp(co, ref, n * 4);
            for (int c = 0; c < 3; c++)
                dst[c].data = back + (size_t)c * W * H;
            ok = ok && sci_wt_inverse(pools[k], &g, co, dst) == 0 &&
                 !memcmp(back, back_ref, (size_t)W * H * 2 * 3);
        }
        check(ok, lossy ? "9/7 + ICT wavelet stage: the same floats on any pool"
                        : "5/3 + RCT wavelet stage: the same coefficients on any pool");

        /* the block coders on the coefficients: HT, and Part 1 with PCRD
         * over layers (lossy) or every pass (lossless) */
        for (int coder = 0; coder < 2; coder++) {
            sci_htj2k_params p;
            sci_htj2k_params_default(&p);
            p.coder = coder ? SCI_J2K_CODER_PART1 : SCI_J2K_CODER_HT;
            p.cb_w_log2 = p.cb_h_log2 = 5;
            if (coder && lossy)
                p.bitrate = 1.5, p.layers = 3;
            sci_htj2k_enc *e = sci_htj2k_enc_new(&g, &p, NULL);
            size_t cap = e ? sci_htj2k_max_bytes(e) : 0;
            uint8_t *a = malloc(cap ? cap : 1), *b = malloc(cap ? cap : 1);
            size_t na = e ? sci_htj2k_encode(e, ref, a, cap) : 0;
            int same = na > 0;
            sci_htj2k_enc_free(e);
            for (size_t k = 0; k < NPOOLS && same; k++) {
                e = sci_htj2k_enc_new(&g, &p, pools[k]);
                size_t nb = e ? sci_htj2k_encode(e, ref, b, cap) : 0;
                same = nb == na && !memcmp(a, b, na);
                sci_htj2k_enc_free(e);
            }
            char msg[128];
            snprintf(msg, sizeof msg, "%s %s codestream: the same bytes on any pool",
                     coder ? "Part 1" : "HT", lossy ? "9/7" : "5/3");
            check(same, msg);
            free(a);
            free(b);
        }
        free(ref);
        free(co);
        free(tmp);
        free(back_ref);
        free(back);
    }
    for (int c = 0; c < 3; c++)
        free(smp[c]);
}

static void test_dpcm(void) {
    const unsigned W = 300, H = 260; /* rows wide and samples enough for both */
    uint16_t *px = malloc((size_t)W * H * 2), *back = malloc((size_t)W * H * 2);
    for (unsigned y = 0; y < H; y++)
        for (unsigned x = 0; x < W; x++)
            px[(size_t)y * W + x] = (uint16_t)(20000 + 40 * x + 25 * y + rng() % 64);
    for (int scan = 0; scan < 2; scan++) {
        sci_dpcm_params p;
        sci_dpcm_params_default(&p);
        p.scan = scan ? SCI_DPCM_SCAN_COLUMNS : SCI_DPCM_SCAN_ROWS;
        size_t cap = sci_dpcm_max_bytes(W, H, 16);
        uint8_t *a = malloc(cap), *b = malloc(cap);
        size_t na = sci_dpcm_encode(NULL, px, W, W, H, 16, &p, a, cap);
        int ok = na > 0;
        for (size_t k = 0; k < NPOOLS; k++) {
            size_t nb = sci_dpcm_encode(pools[k], px, W, W, H, 16, &p, b, cap);
            ok = ok && nb == na && !memcmp(a, b, na) &&
                 sci_dpcm_decode(pools[k], a, na, back, W, (size_t)W * H, NULL) == 0 &&
                 !memcmp(back, px, (size_t)W * H * 2);
        }
        check(ok, scan ? "DPCM by columns: the same frame and samples on any pool"
                       : "DPCM by rows: the same frame and samples on any pool");
        if (scan == 0) {
            /* two segments damaged, the CRC made right again: the first
             * one's error, whichever thread meets its segment first */
            sci_dpcm_info info;
            ok = sci_dpcm_peek(a, na, &info) == 0 && info.segments >= 4;
            uint32_t off = 0, len[64];
            for (uint32_t i = 0; ok && i < info.segments && i < 64; i++)
                len[i] = (uint32_t)a[info.table_offset + 4 * i] |
                         (uint32_t)a[info.table_offset + 4 * i + 1] << 8 |
                         (uint32_t)a[info.table_offset + 4 * i + 2] << 16 |
                         (uint32_t)a[info.table_offset + 4 * i + 3] << 24;
            for (uint32_t i = 0; ok && i < info.segments && i < 64; i++) {
                if (i == 1 || i == info.segments - 1)
                    for (uint32_t k = 0; k < len[i]; k += 3)
                        a[info.coded_offset + off + k] ^= 0x5a;
                off += len[i];
            }
            size_t body = na - SCI_DPCM_TRAILER_BYTES;
            uint32_t crc = sci_crc32(0, a, body);
            for (int k = 0; k < 4; k++)
                a[body + k] = (uint8_t)(crc >> (8 * k));
            int want = sci_dpcm_decode(NULL, a, na, back, W, (size_t)W * H, NULL);
            ok = ok && want < 0;
            for (size_t k = 0; k < NPOOLS; k++)
                for (int rep = 0; rep < 5; rep++)
                    ok = ok && sci_dpcm_decode(pools[k], a, na, back, W, (size_t)W * H,
                                               NULL) == want;
            check(ok, "DPCM: a damaged frame's error the same on any pool");
        }
        free(a);
        free(b);
    }
    free(px);
    free(back);
}

static void test_seismic(void) {
    sci_seis_params p = {300, 400, 2000, 12, 3, 0};
    const size_t n = (size_t)p.traces * p.samples;
    float *g = malloc(n * sizeof *g), *ref = malloc(n * sizeof *g), *out = malloc(n * sizeof *g);
    for (size_t i = 0; i < n; i++)
        g[i] = (float)((double)(i % 400) * 0.01 - 2.0 + (double)(rng() % 1000) * 1e-3);
    g[12345] = -0.0f;
    size_t cap = sci_seis_frame_bound(&p, 0), na = 0, nb = 0;
    uint8_t *a = malloc(cap), *b = malloc(cap);
    sci_seis_info info;
    int ok = sci_seis_encode(NULL, &p, g, NULL, 0, a, cap, &na, NULL) == 0 &&
             sci_seis_parse(a, na, &info) == 0 &&
             sci_seis_decode(NULL, a, &info, NULL, ref) == 0;
    for (size_t k = 0; k < NPOOLS; k++)
        ok = ok && sci_seis_encode(pools[k], &p, g, NULL, 0, b, cap, &nb, NULL) == 0 &&
             nb == na && !memcmp(a, b, na) &&
             sci_seis_decode(pools[k], a, &info, NULL, out) == 0 &&
             !memcmp(out, ref, n * sizeof *out);
    check(ok, "seismic: the same frame and gather on any pool");

    /* the first NaN reports, wherever the threads meet the others */
    g[n - 7] = NAN;
    g[n / 2 + 3] = NAN;
    g[n / 2 + 9000] = NAN;
    for (size_t k = 0; k < NPOOLS; k++) {
        size_t bad = 0;
        int rc = sci_seis_encode(pools[k], &p, g, NULL, 0, b, cap, &nb, &bad);
        if (rc != SCI_SEIS_E_VALUE || bad != n / 2 + 3)
            printf("  %u threads: %d, index %zu\n", pool_sizes[k], rc, bad);
        ok = ok && rc == SCI_SEIS_E_VALUE && bad == n / 2 + 3;
    }
    check(ok, "seismic: the first NaN's index on any pool");
    free(g);
    free(ref);
    free(out);
    free(a);
    free(b);
}

static void test_spp(void) {
    const size_t L = 37, S = 41, B = 29;
    uint16_t *cube = malloc(L * S * B * 2);
    for (size_t i = 0; i < L * S * B; i++)
        cube[i] = (uint16_t)(1000 + (i % B) * 30 + (i / B % S) * 3 + rng() % 100);
    float *ref = malloc(L * S * B * 4), *out = malloc(L * S * B * 4);
    int ok = sci_spp_filter(NULL, cube, SCI_SPP_U16, L, S, B, 7, ref) == 0;
    for (size_t k = 0; k < NPOOLS; k++)
        ok = ok && sci_spp_filter(pools[k], cube, SCI_SPP_U16, L, S, B, 7, out) == 0 &&
             !memcmp(out, ref, L * S * B * 4);
    check(ok, "SPP: the same floats on any pool");
    free(cube);
    free(ref);
    free(out);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0);
    test_regions();
    test_idle();
    for (size_t k = 0; k < NPOOLS; k++)
        pools[k] = sci_pool_new(pool_sizes[k]);
    test_wavelet_and_j2k();
    test_dpcm();
    test_seismic();
    test_spp();
    for (size_t k = 0; k < NPOOLS; k++)
        sci_pool_free(pools[k]);
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
