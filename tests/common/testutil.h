/*
 * What the C test programs share: a seeded generator (splitmix64), so a
 * failing seed can be replayed with --seed, pass/fail counting for the
 * closing "N passed, M failed" line, and the codec's thread pool.
 */
#ifndef SCI_TESTS_TESTUTIL_H
#define SCI_TESTS_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "codec/common/parallel.h"

static uint64_t rng_state = 1;
static unsigned check_passed, check_failed;

static inline uint64_t rng(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline void check(int ok, const char *what) {
    if (ok) {
        check_passed++;
    } else {
        check_failed++;
        printf("FAIL %s\n", what);
    }
}

static sci_pool *test_pool_;

static inline void test_pool_free_(void) {
    sci_pool_free(test_pool_);
    test_pool_ = NULL;
}

/* The pool the tests hand the codec: SCI_TEST_THREADS threads (default 4,
 * more than CI's cores, so that every region is split and its chunks
 * finish in varying order), made on first use and freed at exit.  NULL
 * when it cannot be made: the codec then runs on the calling thread. */
static inline sci_pool *test_pool(void) {
    if (!test_pool_) {
        const char *env = getenv("SCI_TEST_THREADS");
        test_pool_ = sci_pool_new(env ? (unsigned)atoi(env) : 4u);
        if (test_pool_)
            atexit(test_pool_free_);
    }
    return test_pool_;
}

#endif
