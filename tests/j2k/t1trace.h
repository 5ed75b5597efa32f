/* A Tier-1 (context, decision) trace collected in memory, for
 * test-codec-t1 and test-codec-t1-par. */
#ifndef SCI_TESTS_T1TRACE_H
#define SCI_TESTS_T1TRACE_H

#include <stdint.h>
#include <stdlib.h>

typedef struct {
    uint8_t *v;   /* cx << 1 | d */
    size_t n, cap;
} trace;

static void trace_fn(void *user, unsigned cx, unsigned d) {
    trace *t = user;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 4096;
        t->v = realloc(t->v, t->cap);
        if (!t->v)
            abort();
    }
    t->v[t->n++] = (uint8_t)(cx << 1 | d);
}

#endif
