/*
 * sci_cuda_j2kdec (cuda/j2k/j2kdec.h): frames in flight over lanes
 * (j2kdec_lane.h), a lane a frame, each lane's host work on a thread of
 * its own.
 *
 * Why threads: a frame's host work (tier-2, the tables, the codestream
 * into pinned memory: about 1.2 ms for a lossless 4K 4:4:4 frame) is
 * longer than its device work when frames are in flight, so on one thread
 * the host bounds the frame rate.  parse stays on the caller's thread
 * (its caller needs the frame's shape before it has planes to give);
 * submit hands the rest to the lane's thread and returns; finish waits
 * for that thread, then for the device.  With one slot there is nothing
 * to overlap, and the lane runs on the caller's thread.
 *
 * The lane threads make the caller's CUDA context current (a GStreamer
 * element's is not the device's primary context), taken from the thread
 * that creates the decoder through the runtime's driver entry points, so
 * that no binary links libcuda.
 *
 * Built with SCI_J2KDEC_EMU (tests/j2k/j2kdec_emu.cpp), the emulated
 * kernels share state between calls, so the lane threads take turns on
 * the submit.
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "j2kdec.h"
#include "j2kdec_lane.h"

#define MAX_SLOTS 8

#ifdef SCI_J2KDEC_EMU
static pthread_mutex_t emu_turn = PTHREAD_MUTEX_INITIALIZER;
#endif

/* A lane and its thread.  queued, quit and rc under m. */
struct lane_slot {
    jd_lane *lane;
    pthread_t tid;
    int started;
    pthread_mutex_t m;
    pthread_cond_t cv;
    int queued, quit;       /* a submit for the thread to run */
    int rc;                 /* the submit's */
    sci_cuda_j2kdec_plane *planes; /* a copy of the submit's */
    size_t planes_cap;
    jd_tuning tu;
    unsigned ticket;
    int busy;               /* submitted, not yet finished */
    unsigned long long used; /* when last submitted (the decoder's count) */
    struct sci_cuda_j2kdec *d;
};

typedef CUresult (*ctx_get_fn)(CUcontext *);
typedef CUresult (*ctx_set_fn)(CUcontext);

struct sci_cuda_j2kdec {
    sci_pool *pool;
    uint16_t *d_lut;        /* the HT VLC tables, shared by the lanes */
    unsigned nlanes;
    lane_slot lanes[MAX_SLOTS];
    unsigned next_ticket;
    unsigned long long submits;
    lane_slot *parsed;      /* the lane that holds a parse, not submitted */
    unsigned ncomp;         /* of that parse */
    sci_j2k_decode_params prm;
    jd_tuning tu;
    /* the creator's context, made current on the lane threads */
    ctx_set_fn ctx_set;
    CUcontext ctx;
    int device;
    /* what the getters read: of the lane of the last parse, failed
     * submit or finish (a copy: the lane's own may be changing on its
     * thread), or the decoder's own error */
    jd_lane_report rep;
    char err[256];
    int own_err;
};

static int fail(sci_cuda_j2kdec *d, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof d->err, fmt, ap);
    va_end(ap);
    d->own_err = 1;
    return code;
}

/* A finish: the frame's report.  Else only the error of the lane's call. */
static void heard_from(sci_cuda_j2kdec *d, const lane_slot *l, int finish) {
    const jd_lane_report *r = jd_lane_report_of(l->lane);
    if (finish)
        d->rep = *r;
    else
        memcpy(d->rep.err, r->err, sizeof d->rep.err);
    d->own_err = 0;
}

static void enter_context(const sci_cuda_j2kdec *d) {
#ifndef SCI_J2KDEC_EMU
    if (!d->ctx_set || d->ctx_set(d->ctx) != CUDA_SUCCESS)
        cudaSetDevice(d->device);
#else
    (void)d;
#endif
}

static int run_submit(lane_slot *l) {
#ifdef SCI_J2KDEC_EMU
    pthread_mutex_lock(&emu_turn);
#endif
    int rc = jd_lane_submit(l->lane, l->planes, &l->tu);
#ifdef SCI_J2KDEC_EMU
    pthread_mutex_unlock(&emu_turn);
#endif
    return rc;
}

static void *lane_main(void *v) {
    lane_slot *l = (lane_slot *)v;
    enter_context(l->d);
    pthread_mutex_lock(&l->m);
    for (;;) {
        while (!l->queued && !l->quit)
            pthread_cond_wait(&l->cv, &l->m);
        if (l->quit)
            break;
        pthread_mutex_unlock(&l->m);
        int rc = run_submit(l);
        pthread_mutex_lock(&l->m);
        l->rc = rc;
        l->queued = 0;
        pthread_cond_broadcast(&l->cv);
    }
    pthread_mutex_unlock(&l->m);
    return NULL;
}

/* The lane's submit done (its thread's, or none queued). */
static void wait_job(lane_slot *l) {
    pthread_mutex_lock(&l->m);
    while (l->queued)
        pthread_cond_wait(&l->cv, &l->m);
    pthread_mutex_unlock(&l->m);
}

#ifndef SCI_J2KDEC_EMU
/* A driver function by name (CUDA 12.5 has the versioned form; 13 has
 * only that one). */
static int driver_fn(const char *name, void **fn) {
    cudaDriverEntryPointQueryResult q;
#if CUDART_VERSION >= 12050
    cudaError_t e = cudaGetDriverEntryPointByVersion(name, fn, 12000,
                                                     cudaEnableDefault, &q);
#else
    cudaError_t e = cudaGetDriverEntryPoint(name, fn, cudaEnableDefault, &q);
#endif
    return e == cudaSuccess && q == cudaDriverEntryPointSuccess ? 0 : -1;
}
#endif

static void capture_context(sci_cuda_j2kdec *d) {
    cudaGetDevice(&d->device);
#ifndef SCI_J2KDEC_EMU
    ctx_get_fn get = NULL;
    if (driver_fn("cuCtxGetCurrent", (void **)&get) ||
        driver_fn("cuCtxSetCurrent", (void **)&d->ctx_set) ||
        get(&d->ctx) != CUDA_SUCCESS || !d->ctx) {
        cudaGetLastError();
        d->ctx_set = NULL;
    }
#endif
}

extern "C" int sci_cuda_j2kdec_create(sci_cuda_j2kdec **out, unsigned slots,
                                      unsigned threads) {
    *out = NULL;
    if (slots < 1 || slots > MAX_SLOTS)
        return SCI_CUDA_J2KDEC_ERR_ARG;
    sci_cuda_j2kdec *d = (sci_cuda_j2kdec *)calloc(1, sizeof *d);
    if (!d)
        return cudaErrorMemoryAllocation;
    d->rep.path = SCI_CUDA_J2KDEC_DEVICE;
    for (int k = 0; k < 5; k++)
        d->rep.stage_ms[k] = -1;
    for (int k = 0; k < 4; k++)
        d->rep.host_ms[k] = -1;
    d->pool = sci_pool_new(threads);
    if (!d->pool) {
        free(d);
        return cudaErrorMemoryAllocation;
    }
    capture_context(d);
    int err = jd_vlc_table_new(&d->d_lut);
    for (unsigned i = 0; !err && i < slots; i++) {
        lane_slot *l = &d->lanes[i];
        l->d = d;
        pthread_mutex_init(&l->m, NULL);
        pthread_cond_init(&l->cv, NULL);
        d->nlanes = i + 1;
        err = jd_lane_create(&l->lane, d->pool, d->d_lut);
        if (!err && slots > 1) {
            if (pthread_create(&l->tid, NULL, lane_main, l))
                err = cudaErrorMemoryAllocation;
            else
                l->started = 1;
        }
    }
    if (err) {
        sci_cuda_j2kdec_destroy(d);
        return err;
    }
    *out = d;
    return cudaSuccess;
}

extern "C" void sci_cuda_j2kdec_destroy(sci_cuda_j2kdec *d) {
    if (!d)
        return;
    for (unsigned i = 0; i < d->nlanes; i++) {
        lane_slot *l = &d->lanes[i];
        if (l->started) {
            pthread_mutex_lock(&l->m);
            l->quit = 1;
            pthread_cond_broadcast(&l->cv);
            pthread_mutex_unlock(&l->m);
            pthread_join(l->tid, NULL);
        }
        jd_lane_destroy(l->lane);
        free(l->planes);
        pthread_cond_destroy(&l->cv);
        pthread_mutex_destroy(&l->m);
    }
    cudaFree(d->d_lut);
    sci_pool_free(d->pool);
    free(d);
}

/* The free lane submitted last (its buffers and tables are the warmest),
 * or NULL. */
static lane_slot *free_lane(sci_cuda_j2kdec *d) {
    lane_slot *best = NULL;
    for (unsigned i = 0; i < d->nlanes; i++) {
        lane_slot *l = &d->lanes[i];
        if (!l->busy && (!best || l->used > best->used))
            best = l;
    }
    return best;
}

static int in_flight(const sci_cuda_j2kdec *d) {
    int n = 0;
    for (unsigned i = 0; i < d->nlanes; i++)
        n += d->lanes[i].busy;
    return n;
}

extern "C" int sci_cuda_j2kdec_parse(sci_cuda_j2kdec *d, const uint8_t *data,
                                     size_t len, sci_j2k_info *info,
                                     sci_j2k_comp_info *comp, unsigned ncomp) {
    d->parsed = NULL;
    lane_slot *l = free_lane(d);
    if (!l)
        return fail(d, SCI_CUDA_J2KDEC_ERR_ARG, "%u frames in flight already",
                    d->nlanes);
    sci_j2k_info li;
    int r = jd_lane_parse(l->lane, data, len, &d->prm, &li, comp, ncomp);
    heard_from(d, l, 0);
    if (r)
        return r;
    if (info)
        *info = li;
    d->parsed = l;
    d->ncomp = li.components;
    return 0;
}

extern "C" int sci_cuda_j2kdec_submit(sci_cuda_j2kdec *d,
                                      const sci_cuda_j2kdec_plane *planes,
                                      void *stream, unsigned *ticket) {
    lane_slot *l = d->parsed;
    if (!l || !planes)
        return fail(d, SCI_CUDA_J2KDEC_ERR_ARG, "nothing parsed, or no planes");
    if (d->ncomp > l->planes_cap) {
        void *p = realloc(l->planes, d->ncomp * sizeof *l->planes);
        if (!p)
            return fail(d, cudaErrorMemoryAllocation, "out of host memory");
        l->planes = (sci_cuda_j2kdec_plane *)p;
        l->planes_cap = d->ncomp;
    }
    int r = jd_lane_after(l->lane, (cudaStream_t)stream);
    if (r) {
        heard_from(d, l, 0);
        return r;
    }
    d->parsed = NULL;
    memcpy(l->planes, planes, d->ncomp * sizeof *l->planes);
    l->tu = d->tu;
    l->tu.others = in_flight(d);
    /* nothing else in flight: no host work to overlap, so none to hand
     * over (a frame at a time costs no thread switch) */
    int here = !l->started || !l->tu.others;
    l->ticket = d->next_ticket++;
    l->used = ++d->submits;
    l->busy = 1;
    *ticket = l->ticket;
    if (here) {
        l->rc = run_submit(l);
        return 0;
    }
    pthread_mutex_lock(&l->m);
    l->queued = 1;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->m);
    return 0;
}

extern "C" int sci_cuda_j2kdec_finish(sci_cuda_j2kdec *d, unsigned ticket) {
    lane_slot *l = NULL;
    for (unsigned i = 0; i < d->nlanes && !l; i++)
        if (d->lanes[i].busy && d->lanes[i].ticket == ticket)
            l = &d->lanes[i];
    if (!l)
        return fail(d, SCI_CUDA_J2KDEC_ERR_ARG, "frame %u is not in flight", ticket);
    wait_job(l);
    l->busy = 0;
    int r = l->rc;
    if (!r)
        r = jd_lane_finish(l->lane);
    /* a frame whose submit failed has no report of its own */
    heard_from(d, l, !l->rc);
    return r;
}

extern "C" int sci_cuda_j2kdec_decode(sci_cuda_j2kdec *d, const uint8_t *data,
                                      size_t len,
                                      const sci_cuda_j2kdec_plane *planes,
                                      void *stream) {
    unsigned t;
    int r = sci_cuda_j2kdec_parse(d, data, len, NULL, NULL, 0);
    if (!r)
        r = sci_cuda_j2kdec_submit(d, planes, stream, &t);
    if (!r)
        r = sci_cuda_j2kdec_finish(d, t);
    return r;
}

extern "C" void sci_cuda_j2kdec_set_decode(sci_cuda_j2kdec *d, unsigned reduce,
                                           unsigned max_layers) {
    d->prm.reduce = reduce;
    d->prm.max_layers = max_layers;
}

extern "C" void sci_cuda_j2kdec_tune(sci_cuda_j2kdec *d, int ebcot_on_host) {
    d->tu.ebcot_host = ebcot_on_host != 0;
}

extern "C" void sci_cuda_j2kdec_tune_ht(sci_cuda_j2kdec *d, int symbols) {
    d->tu.ht_sym = symbols;
}

extern "C" void sci_cuda_j2kdec_tune_split(sci_cuda_j2kdec *d, int mode) {
    d->tu.split = mode;
}

extern "C" unsigned sci_cuda_j2kdec_phases(const sci_cuda_j2kdec *d) {
    return d->rep.phases;
}

extern "C" int sci_cuda_j2kdec_profile(sci_cuda_j2kdec *d, int on) {
    if (in_flight(d))
        return fail(d, SCI_CUDA_J2KDEC_ERR_ARG, "frames in flight");
    for (unsigned i = 0; i < d->nlanes; i++) {
        lane_slot *l = &d->lanes[i];
        int r = jd_lane_profile(l->lane, on);
        if (r) {
            heard_from(d, l, 0);
            return r;
        }
    }
    return 0;
}

extern "C" void sci_cuda_j2kdec_host_ms(const sci_cuda_j2kdec *d, float ms[4]) {
    for (int k = 0; k < 4; k++)
        ms[k] = d->rep.host_ms[k];
}

extern "C" void sci_cuda_j2kdec_stage_ms(const sci_cuda_j2kdec *d, float ms[5]) {
    for (int k = 0; k < 5; k++)
        ms[k] = d->rep.stage_ms[k];
}

extern "C" sci_cuda_j2kdec_path_t sci_cuda_j2kdec_path(const sci_cuda_j2kdec *d) {
    return d->rep.path;
}

extern "C" const char *sci_cuda_j2kdec_error(const sci_cuda_j2kdec *d) {
    return d->own_err ? d->err : d->rep.err;
}

extern "C" unsigned sci_cuda_j2kdec_warnings(const sci_cuda_j2kdec *d) {
    return d->rep.warnings;
}

extern "C" const char *sci_cuda_j2kdec_warning(const sci_cuda_j2kdec *d) {
    return d->rep.warnings ? d->rep.warning : "";
}
