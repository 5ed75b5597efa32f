/*
 * A minimal SEG-Y sample reader for test-codec-seismic and bench-seismic
 * (plain C, no segyio): files of fixed-length traces, the samples of every
 * trace as float32, trace after trace.
 *
 * Layout read: a 3200-byte textual header, the 400-byte binary header
 * (bytes 3217-3218 the sample interval in us, 3221-3222 the samples per
 * trace, 3225-3226 the format code, 3505-3506 the number of 3200-byte
 * extended textual headers that follow it; 1-based byte numbers of the
 * standard), then per trace a 240-byte header and its samples.  Fields are
 * big-endian as the standard says; a file whose format code is no valid
 * code when read big-endian but is one read little-endian (f3-lsb.sgy) is
 * read little-endian throughout, samples and headers.  The number of
 * traces is what the file size holds; it must hold a whole number of them.
 * Trace headers are not read: their sample counts (bytes 115-116) are not
 * trusted (f3.sgy, cropped from a larger survey, still says 462 there).
 *
 * Formats: 1 (4-byte IBM float), 2 (4-byte two's complement), 3 (2-byte
 * two's complement), 5 (4-byte IEEE float), 8 (1-byte two's complement).
 * IBM floats are converted exactly (every IBM single has at most 24
 * significant bits) except out of float's range.
 */
#ifndef SCI_TESTS_SEGYREAD_H
#define SCI_TESTS_SEGYREAD_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t traces, samples;
    uint32_t interval_us;
    int format;        /* the SEG-Y sample format code */
    int little_endian; /* 1 for files such as f3-lsb.sgy */
    float *data;       /* traces x samples (malloc) */
} segy_gather;

/* 0 and *g filled, or -1 with the reason in why (whylen bytes; may be
 * NULL). */
int segy_read(const char *path, segy_gather *g, char *why, size_t whylen);
void segy_free(segy_gather *g);

/* IBM single-precision float (as a 32-bit word) to float. */
float segy_ibm_to_float(uint32_t w);

#endif
