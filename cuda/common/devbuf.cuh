/*
 * What every cuda/ handle keeps on the host side: device (or page-locked
 * host) buffers that grow to the largest request and are kept, and the
 * CUDA events of its stage timer.  Included by the .cu files only.
 */
#ifndef SCI_CUDA_DEVBUF_CUH
#define SCI_CUDA_DEVBUF_CUH

#include <cuda_runtime.h>

#include <stddef.h>

struct dbuf {
    void *p;
    size_t cap;
};

/* At least `bytes` in b (a quarter more, for the next, slightly larger
 * request): 0, or the cudaError_t of the allocation (b is then empty). */
static inline int grow_mem(dbuf *b, size_t bytes, int pinned) {
    if (b->cap >= bytes)
        return 0;
    if (pinned)
        cudaFreeHost(b->p);
    else
        cudaFree(b->p);
    b->p = NULL;
    b->cap = 0;
    size_t want = bytes + bytes / 4;
    cudaError_t e = pinned ? cudaMallocHost(&b->p, want ? want : 1)
                           : cudaMalloc(&b->p, want ? want : 1);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return (int)e;
    }
    b->cap = want;
    return 0;
}

static inline int grow(dbuf *b, size_t bytes) {
    return grow_mem(b, bytes, 0);
}

/* n elements of device memory, counted into *held (a handle's total);
 * *p is NULL on failure. */
template <typename T>
static cudaError_t dev_alloc(size_t *held, T **p, size_t n) {
    size_t bytes = n * sizeof(T);
    cudaError_t err = cudaMalloc((void **)p, bytes ? bytes : 1);
    if (!err)
        *held += bytes ? bytes : 1;
    else
        *p = NULL;
    return err;
}

/* n elements of page-locked host memory; *p is NULL on failure. */
template <typename T>
static cudaError_t host_alloc(T **p, size_t n) {
    size_t bytes = n * sizeof(T);
    cudaError_t err = cudaMallocHost((void **)p, bytes ? bytes : 1);
    if (err)
        *p = NULL;
    return err;
}

/* Shared memory a block may take on the current device when it opts in
 * (64 KiB on Turing, 99 KiB on sm_86 and sm_89, 163 KiB on sm_80, 227 KiB
 * on sm_90), at most `limit` when that is nonzero (a test planning a
 * smaller GPU's launches on a larger one); 48 KiB, what every GPU gives
 * without opting in, when the device cannot be asked. */
static inline size_t smem_optin(size_t limit) {
    int dev = 0, optin = 48 * 1024;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                               dev) != cudaSuccess) {
        cudaGetLastError();
        optin = 48 * 1024;
    }
    return limit && limit < (size_t)optin ? limit : (size_t)optin;
}

/* n timing events: 0, or the cudaError_t (none left created). */
static inline int events_create(cudaEvent_t *ev, int n) {
    for (int i = 0; i < n; i++) {
        cudaError_t e = cudaEventCreate(&ev[i]);
        if (e != cudaSuccess) {
            cudaGetLastError();
            for (int k = 0; k < i; k++)
                cudaEventDestroy(ev[k]);
            return (int)e;
        }
    }
    return 0;
}

static inline void events_destroy(cudaEvent_t *ev, int n) {
    for (int i = 0; i < n; i++)
        cudaEventDestroy(ev[i]);
}

/* Event i recorded on s when timing is on. */
static inline void events_mark(int timing, cudaEvent_t *ev, int i, cudaStream_t s) {
    if (timing)
        cudaEventRecord(ev[i], s);
}

/* ms from event a to b (0 when timing is off or either is missing). */
static inline float events_span(int timing, cudaEvent_t *ev, int a, int b) {
    float ms = 0;
    if (timing && cudaEventElapsedTime(&ms, ev[a], ev[b]) != cudaSuccess) {
        cudaGetLastError();
        ms = 0;
    }
    return ms;
}

#endif
