/*
 * A whole file into memory, for the tests and benchmarks that read
 * codestreams and pictures.
 */
#ifndef SCI_TESTS_READFILE_H
#define SCI_TESTS_READFILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The bytes of the file at `path` (malloc; an empty file gives a block of
 * one byte and *len 0), or NULL when it cannot be opened or read. */
static inline uint8_t *test_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    uint8_t *d = n >= 0 && fseek(f, 0, SEEK_SET) == 0
                     ? (uint8_t *)malloc(n > 0 ? (size_t)n : 1)
                     : NULL;
    if (d && fread(d, 1, (size_t)n, f) != (size_t)n) {
        free(d);
        d = NULL;
    }
    fclose(f);
    if (d)
        *len = (size_t)n;
    return d;
}

#endif
