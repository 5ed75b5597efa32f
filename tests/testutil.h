/*
 * What the C test programs share: a seeded generator (splitmix64), so a
 * failing seed can be replayed with --seed, and pass/fail counting for the
 * closing "N passed, M failed" line.
 */
#ifndef SCI_TESTS_TESTUTIL_H
#define SCI_TESTS_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>

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

#endif
