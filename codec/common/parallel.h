/*
 * A small thread pool for the CPU backend: index ranges split across a
 * fixed set of worker threads, which sleep on a condition variable between
 * parallel regions and never spin.
 *
 * Why not OpenMP: libgomp's idle threads spin (GOMP_SPINCOUNT, up to
 * milliseconds of busy waiting after every region) unless OMP_WAIT_POLICY
 * is set before the process starts, and its thread count is per process.
 * A live chain of several encoders and decoders, each running many short
 * regions a frame, on a host with few cores then spends its CPU spinning
 * and falls behind.  A pool is per caller (per element instance), sized by
 * the caller, and costs no CPU while idle.
 *
 * Every function of codec/ that parallelises takes a `sci_pool *` (NULL:
 * run on the calling thread).  Results never depend on the thread count or
 * on which thread ran which indices: iterations are independent, and the
 * reductions the codec makes (integer sums, minima, maxima, ors) are
 * combined in a fixed order.
 */
#ifndef SCI_CODEC_PARALLEL_H
#define SCI_CODEC_PARALLEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most threads a pool can have, the calling thread included. */
#define SCI_POOL_MAX_THREADS 256u

typedef struct sci_pool sci_pool;

/* A region's body: indices [begin, end) of the region, run by worker
 * `worker` (0 .. sci_pool_threads - 1; 0 is the thread that called
 * sci_pool_for).  Called once per chunk, so one worker may be called many
 * times in a region; two calls never run at once on the same worker. */
typedef void (*sci_pool_fn)(void *ctx, size_t begin, size_t end,
                            unsigned worker);

/* The CPUs this process may run on (its affinity mask; the online CPUs
 * where that cannot be read), at least 1. */
unsigned sci_pool_cpus(void);

/* A pool of `threads` threads, the caller of sci_pool_for included:
 * threads - 1 workers, started by the first region that can use them (a
 * pool that never runs a region costs no thread).  0 means
 * sci_pool_cpus(); values above SCI_POOL_MAX_THREADS are taken as that.  1
 * starts no thread: every region runs on the caller.  Where the system
 * refuses a thread, regions run on those it gave.  NULL when memory is
 * short. */
sci_pool *sci_pool_new(unsigned threads);

/* Stops and joins the workers (waiting for none: no region may be running)
 * and frees the pool.  NULL is a no-op. */
void sci_pool_free(sci_pool *pool);

/* Threads a region can use at most, the caller included (what
 * sci_pool_new was asked for): 1 for NULL.  Per-worker state sized by it
 * covers every `worker` index fn can get. */
unsigned sci_pool_threads(const sci_pool *pool);

/* Runs fn over [0, n): the range is cut into chunks of `grain` indices
 * (0: about four chunks a thread), which the caller and the workers take
 * in turn until none is left, so a worker that wakes late (the host is
 * busy) leaves its share to the others instead of holding the region up.
 * Returns when every index has been run.
 *
 * pool NULL, n of a single chunk, or a pool already running a region (a
 * call from inside fn, or from another thread meanwhile) run fn(ctx, 0, n,
 * 0) on the calling thread. */
void sci_pool_for(sci_pool *pool, size_t n, size_t grain, sci_pool_fn fn,
                  void *ctx);

/* sci_pool_for for a pool that several threads share: a region another
 * thread is running is waited for, instead of this one running on the
 * calling thread alone.  Never from inside a region's fn. */
void sci_pool_for_shared(sci_pool *pool, size_t n, size_t grain,
                         sci_pool_fn fn, void *ctx);

/* `pool` when cond holds, else NULL: for regions too small to be worth
 * waking threads for. */
static inline sci_pool *sci_pool_if(sci_pool *pool, int cond) {
    return cond ? pool : (sci_pool *)0;
}

#ifdef __cplusplus
}
#endif
#endif
