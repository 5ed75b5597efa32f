/*
 * The CPU backend's thread pool (see parallel.h).
 *
 * One mutex guards the bookkeeping; each worker sleeps on its own
 * condition variable, so a region wakes only the workers it can use.  A
 * region is `open` while chunks may still be taken: a worker joins it
 * (busy++) only while it is open, and the caller, once no chunk is left,
 * closes it and waits for the workers that joined.  A worker woken after
 * the close finds nothing to do and goes back to sleep without touching
 * the region's arguments, which live on the caller's stack.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "parallel.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
    sci_pool *pool;
    unsigned id;
    pthread_t tid;
    pthread_cond_t cond;
    unsigned long go; /* the region it was last asked to join */
} worker;

struct sci_pool {
    unsigned threads; /* asked for, the caller included */
    unsigned started; /* workers running */
    int start_failed; /* the system refused one: start no more */
    worker *w;        /* room for threads - 1 */
    pthread_mutex_t run; /* held by the thread running a region */

    pthread_mutex_t m;   /* guards what follows */
    pthread_cond_t idle; /* the caller waits here for busy to reach 0 */
    unsigned long region; /* counts regions: the current one's number */
    int open, quit;
    unsigned busy;        /* workers inside the current region */

    /* the current region; read by workers only while they are busy */
    sci_pool_fn fn;
    void *ctx;
    size_t n, grain, chunks;
    atomic_size_t next; /* the next chunk to take */
};

unsigned sci_pool_cpus(void) {
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int c = CPU_COUNT(&set);
        if (c > 0)
            return (unsigned)c;
    }
#endif
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (unsigned)c : 1u;
}

/* Takes chunks of the current region until none is left. */
static void run_chunks(sci_pool *p, unsigned id) {
    for (;;) {
        size_t c = atomic_fetch_add_explicit(&p->next, 1,
                                             memory_order_relaxed);
        if (c >= p->chunks)
            return;
        size_t b = c * p->grain;
        size_t e = p->n - b < p->grain ? p->n : b + p->grain;
        p->fn(p->ctx, b, e, id);
    }
}

static void *worker_main(void *arg) {
    worker *w = arg;
    sci_pool *p = w->pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->m);
    for (;;) {
        while (w->go == seen && !p->quit)
            pthread_cond_wait(&w->cond, &p->m);
        if (p->quit)
            break;
        seen = w->go;
        if (!p->open || p->region != seen)
            continue; /* woken too late: that region is over */
        p->busy++;
        pthread_mutex_unlock(&p->m);
        run_chunks(p, w->id);
        pthread_mutex_lock(&p->m);
        if (--p->busy == 0 && !p->open)
            pthread_cond_signal(&p->idle);
    }
    pthread_mutex_unlock(&p->m);
    return NULL;
}

sci_pool *sci_pool_new(unsigned threads) {
    if (threads == 0)
        threads = sci_pool_cpus();
    if (threads > SCI_POOL_MAX_THREADS)
        threads = SCI_POOL_MAX_THREADS;
    sci_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    if (threads > 1 && !(p->w = calloc(threads - 1, sizeof *p->w))) {
        free(p);
        return NULL;
    }
    p->threads = threads;
    pthread_mutex_init(&p->run, NULL);
    pthread_mutex_init(&p->m, NULL);
    pthread_cond_init(&p->idle, NULL);
    atomic_init(&p->next, 0);
    return p;
}

/* Starts the workers, on the first region that can use them: a pool that
 * never runs one (an element on the GPU) costs no thread. */
static void start_workers(sci_pool *p) {
    /* workers take no signals: they belong to the application's threads
     * (a GStreamer streaming thread starts them) */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (p->started + 1 < p->threads) {
        worker *w = &p->w[p->started];
        w->pool = p;
        w->id = p->started + 1;
        pthread_cond_init(&w->cond, NULL);
        if (pthread_create(&w->tid, NULL, worker_main, w)) {
            pthread_cond_destroy(&w->cond);
            p->start_failed = 1;
            break;
        }
        p->started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void sci_pool_free(sci_pool *p) {
    if (!p)
        return;
    pthread_mutex_lock(&p->m);
    p->quit = 1;
    pthread_mutex_unlock(&p->m);
    for (unsigned i = 0; i < p->started; i++) {
        pthread_cond_signal(&p->w[i].cond);
        pthread_join(p->w[i].tid, NULL);
        pthread_cond_destroy(&p->w[i].cond);
    }
    free(p->w);
    pthread_cond_destroy(&p->idle);
    pthread_mutex_destroy(&p->m);
    pthread_mutex_destroy(&p->run);
    free(p);
}

unsigned sci_pool_threads(const sci_pool *p) {
    return p ? p->threads : 1u;
}

static void pool_for(sci_pool *p, size_t n, size_t grain, sci_pool_fn fn,
                     void *ctx, int wait) {
    if (n == 0)
        return;
    unsigned t = p ? p->threads : 1;
    if (grain == 0) {
        size_t pieces = (size_t)t * 4;
        grain = (n + pieces - 1) / pieces;
    }
    size_t chunks = (n - 1) / grain + 1;
    if (t == 1 || chunks == 1 ||
        (wait ? pthread_mutex_lock(&p->run) : pthread_mutex_trylock(&p->run))) {
        fn(ctx, 0, n, 0);
        return;
    }
    if (p->started + 1 < t && !p->start_failed)
        start_workers(p);
    /* the caller takes chunks too: wake at most chunks - 1 workers */
    unsigned wake = chunks - 1 < p->started ? (unsigned)(chunks - 1)
                                            : p->started;
    pthread_mutex_lock(&p->m);
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    p->grain = grain;
    p->chunks = chunks;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    p->region++;
    p->open = 1;
    for (unsigned i = 0; i < wake; i++)
        p->w[i].go = p->region;
    pthread_mutex_unlock(&p->m);
    for (unsigned i = 0; i < wake; i++)
        pthread_cond_signal(&p->w[i].cond);

    run_chunks(p, 0);

    pthread_mutex_lock(&p->m);
    p->open = 0;
    while (p->busy)
        pthread_cond_wait(&p->idle, &p->m);
    pthread_mutex_unlock(&p->m);
    pthread_mutex_unlock(&p->run);
}

void sci_pool_for(sci_pool *p, size_t n, size_t grain, sci_pool_fn fn,
                  void *ctx) {
    pool_for(p, n, grain, fn, ctx, 0);
}

void sci_pool_for_shared(sci_pool *p, size_t n, size_t grain, sci_pool_fn fn,
                         void *ctx) {
    pool_for(p, n, grain, fn, ctx, 1);
}
