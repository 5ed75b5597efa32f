/* Clock, medians, allocation and the codec's thread pool for the benchmark
 * programs. */
#ifndef SCI_BENCH_BENCHUTIL_H
#define SCI_BENCH_BENCHUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "codec/common/parallel.h"

static inline double bench_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* malloc that ends the program when memory is short (a benchmark has no
 * use for less). */
static inline void *bench_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static inline int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v. */
static inline double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* out = the median of nrep timings (at most 256) of stmt, in ms, after
 * one warm-up run. */
#define BENCH_TIME_MEDIAN(out, nrep, stmt)                                  \
    do {                                                                    \
        double t_[256];                                                     \
        int n_ = (nrep) < 256 ? (nrep) : 256;                               \
        stmt; /* warm-up */                                                 \
        for (int r_ = 0; r_ < n_; r_++) {                                   \
            double a_ = bench_now_ms();                                     \
            stmt;                                                           \
            t_[r_] = bench_now_ms() - a_;                                   \
        }                                                                   \
        out = bench_median(t_, n_);                                         \
    } while (0)

static unsigned bench_threads_;
static sci_pool *bench_pool_;

/* Sets the threads of bench_pool (0: sci_pool_cpus(), the default) before
 * its first use. */
static inline void bench_set_threads(unsigned threads) {
    bench_threads_ = threads;
}

/* The pool the benchmarks hand the codec, made on first use: the threads
 * bench_set_threads gave, else SCI_BENCH_THREADS, else one a CPU (what
 * OpenMP gave the codec before it had its own pool).  Never freed: it
 * lives as long as the program. */
static inline sci_pool *bench_pool(void) {
    if (!bench_pool_) {
        const char *env = getenv("SCI_BENCH_THREADS");
        unsigned t = bench_threads_ ? bench_threads_
                     : env         ? (unsigned)atoi(env)
                                   : 0u;
        bench_pool_ = sci_pool_new(t);
    }
    return bench_pool_;
}

#endif
