/* Clock and medians for the benchmark programs. */
#ifndef SCI_BENCH_BENCHUTIL_H
#define SCI_BENCH_BENCHUTIL_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
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

#endif
