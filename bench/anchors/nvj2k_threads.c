/*
 * nvJPEG2000's decode throughput with frames in flight, the way its
 * documentation allows: one library handle, and a decode state, a
 * bitstream handle, output planes and a CUDA stream a host thread; every
 * thread decodes the same codestream (host memory -> device planes) frame
 * after frame.  The counterpart of bench-j2kdec's "frames in flight"
 * columns, so that both decoders are compared one frame at a time and in
 * flight.  Not built by meson (nvJPEG2000 is not in Debian): see
 * build-nvj2k-threads.sh.
 *
 *   nvj2k-threads [--frames F] [--threads "1 2 3 4"] FILE...
 *
 * prints, a line a file and thread count: frames/s over all threads
 * (after two frames a thread that are not timed).
 */
#include <cuda_runtime.h>
#include <nvjpeg2k.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/common/readfile.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

struct job {
    nvjpeg2kHandle_t hd;
    const unsigned char *cs;
    size_t len;
    int frames, ok;
    pthread_barrier_t *start;
};

/* a thread's own state; its planes sized from the codestream */
static void *decode_frames(void *arg) {
    struct job *j = arg;
    nvjpeg2kDecodeState_t ds = NULL;
    nvjpeg2kStream_t js = NULL;
    cudaStream_t s = NULL;
    void *plane[4] = {0};
    size_t pitch[4] = {0};
    int ready = nvjpeg2kDecodeStateCreate(j->hd, &ds) == NVJPEG2K_STATUS_SUCCESS &&
                nvjpeg2kStreamCreate(&js) == NVJPEG2K_STATUS_SUCCESS &&
                cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess &&
                nvjpeg2kStreamParse(j->hd, j->cs, j->len, 0, 0, js) == NVJPEG2K_STATUS_SUCCESS;
    nvjpeg2kImageInfo_t ii = {0};
    nvjpeg2kImage_t out = {0};
    int prec = 0;
    if (ready)
        ready = nvjpeg2kStreamGetImageInfo(js, &ii) == NVJPEG2K_STATUS_SUCCESS &&
                ii.num_components >= 1 && ii.num_components <= 4;
    for (unsigned c = 0; ready && c < ii.num_components; c++) {
        nvjpeg2kImageComponentInfo_t ci;
        ready = nvjpeg2kStreamGetImageComponentInfo(js, &ci, c) == NVJPEG2K_STATUS_SUCCESS &&
                cudaMallocPitch(&plane[c], &pitch[c], (size_t)ci.component_width * 2,
                                ci.component_height) == cudaSuccess;
        if (ci.precision > prec)
            prec = ci.precision;
    }
    out.pixel_data = plane;
    out.pitch_in_bytes = pitch;
    out.pixel_type = prec > 8 ? NVJPEG2K_UINT16 : NVJPEG2K_UINT8;
    out.num_components = ii.num_components;
    /* two untimed frames, then all threads start together */
    for (int i = 0; ready && i < 2; i++)
        ready = nvjpeg2kStreamParse(j->hd, j->cs, j->len, 0, 0, js) == NVJPEG2K_STATUS_SUCCESS &&
                nvjpeg2kDecode(j->hd, ds, js, &out, s) == NVJPEG2K_STATUS_SUCCESS &&
                cudaStreamSynchronize(s) == cudaSuccess;
    pthread_barrier_wait(j->start);
    for (int i = 0; ready && i < j->frames; i++)
        ready = nvjpeg2kStreamParse(j->hd, j->cs, j->len, 0, 0, js) == NVJPEG2K_STATUS_SUCCESS &&
                nvjpeg2kDecode(j->hd, ds, js, &out, s) == NVJPEG2K_STATUS_SUCCESS &&
                cudaStreamSynchronize(s) == cudaSuccess;
    j->ok = ready;
    pthread_barrier_wait(j->start);
    for (unsigned c = 0; c < 4; c++)
        cudaFree(plane[c]);
    if (s)
        cudaStreamDestroy(s);
    if (js)
        nvjpeg2kStreamDestroy(js);
    if (ds)
        nvjpeg2kDecodeStateDestroy(ds);
    return NULL;
}

/* frames/s of n threads on one codestream; negative when a decode failed */
static double run(nvjpeg2kHandle_t hd, const unsigned char *cs, size_t len,
                  int n, int frames) {
    pthread_t th[16];
    struct job jb[16];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)n + 1);
    for (int t = 0; t < n; t++) {
        jb[t] = (struct job){hd, cs, len, frames, 0, &start};
        pthread_create(&th[t], NULL, decode_frames, &jb[t]);
    }
    pthread_barrier_wait(&start);
    double t0 = now_s();
    pthread_barrier_wait(&start);
    double dt = now_s() - t0;
    int ok = 1;
    for (int t = 0; t < n; t++) {
        pthread_join(th[t], NULL);
        ok &= jb[t].ok;
    }
    pthread_barrier_destroy(&start);
    return ok ? n * frames / dt : -1.0;
}

int main(int argc, char **argv) {
    int frames = 40, bad = 0;
    const char *threads = "1 2 3 4";
    nvjpeg2kHandle_t hd;
    if (nvjpeg2kCreateSimple(&hd) != NVJPEG2K_STATUS_SUCCESS) {
        fprintf(stderr, "nvjpeg2kCreateSimple failed\n");
        return 1;
    }
    printf("| codestream | threads | nvJPEG2000 frames/s |\n|---|---|---|\n");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = atoi(argv[++i]);
            continue;
        }
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = argv[++i];
            continue;
        }
        size_t len;
        unsigned char *cs = test_read_file(argv[i], &len);
        if (!cs) {
            fprintf(stderr, "%s: cannot read\n", argv[i]);
            bad = 1;
            continue;
        }
        for (const char *p = threads; *p;) {
            char *e;
            long n = strtol(p, &e, 10);
            if (e == p)
                break;
            p = e;
            if (n < 1 || n > 16)
                continue;
            double fps = run(hd, cs, len, (int)n, frames);
            if (fps < 0) {
                printf("| %s | %ld | decode failed |\n", argv[i], n);
                bad = 1;
            } else
                printf("| %s | %ld | %.1f |\n", argv[i], n, fps);
            fflush(stdout);
        }
        free(cs);
    }
    nvjpeg2kDestroy(hd);
    return bad;
}
