/* The SEG-Y sample reader of segyread.h. */
#include "segyread.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_BYTES 3200
#define BINARY_BYTES 400
#define TRACE_HEADER_BYTES 240

static int fail(char *why, size_t whylen, const char *fmt, ...) {
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static uint32_t get_u16(const uint8_t *p, int le) {
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8
              : (uint32_t)p[0] << 8 | (uint32_t)p[1];
}

static uint32_t get_u32(const uint8_t *p, int le) {
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                    (uint32_t)p[3] << 24
              : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
                    (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

float segy_ibm_to_float(uint32_t w) {
    uint32_t frac = w & 0xffffffu;
    int exp16 = (int)((w >> 24) & 0x7f) - 64;
    if (frac == 0)
        return w >> 31 ? -0.0f : 0.0f;
    /* 0.frac (24 bits) x 16^exp16: exact in double, rounded once to float */
    double v = ldexp((double)frac, 4 * exp16 - 24);
    return (float)(w >> 31 ? -v : v);
}

/* Bytes a sample of format code fmt takes, 0 when not supported. */
static unsigned format_bytes(uint32_t fmt) {
    switch (fmt) {
    case 1: case 2: case 5: return 4;
    case 3: return 2;
    case 8: return 1;
    default: return 0;
    }
}

int segy_read(const char *path, segy_gather *g, char *why, size_t whylen) {
    memset(g, 0, sizeof *g);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(why, whylen, "cannot open %s", path);
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return fail(why, whylen, "cannot seek in %s", path);
    }
    long size = ftell(f);
    rewind(f);
    if (size < TEXT_BYTES + BINARY_BYTES) {
        fclose(f);
        return fail(why, whylen, "%s: %ld bytes, shorter than the file headers",
                    path, size);
    }
    uint8_t *d = malloc((size_t)size);
    if (!d || fread(d, 1, (size_t)size, f) != (size_t)size) {
        free(d);
        fclose(f);
        return fail(why, whylen, "cannot read %s", path);
    }
    fclose(f);

    const uint8_t *bin = d + TEXT_BYTES;
    /* 1-based bytes 3221-3222 and 3225-3226 of the file */
    int le = 0;
    uint32_t fmt = get_u16(bin + 24, 0);
    if (fmt < 1 || fmt > 16) {
        le = 1;
        fmt = get_u16(bin + 24, 1);
        if (fmt < 1 || fmt > 16) {
            free(d);
            return fail(why, whylen, "%s: no valid format code either way", path);
        }
    }
    unsigned bytes = format_bytes(fmt);
    uint32_t ns = get_u16(bin + 20, le);
    uint32_t dt = get_u16(bin + 16, le);
    uint32_t ext = get_u16(bin + 304, le);
    if (!bytes) {
        free(d);
        return fail(why, whylen, "%s: sample format %u not supported", path, fmt);
    }
    if (ns == 0 || ext == 0xffff) {
        free(d);
        return fail(why, whylen, "%s: %s", path,
                    ns ? "variable extended headers" : "0 samples per trace");
    }
    size_t start = TEXT_BYTES + BINARY_BYTES + (size_t)ext * TEXT_BYTES;
    size_t trace_bytes = TRACE_HEADER_BYTES + (size_t)ns * bytes;
    if ((size_t)size < start + trace_bytes ||
        ((size_t)size - start) % trace_bytes) {
        free(d);
        return fail(why, whylen,
                    "%s: %ld bytes is no whole number of %zu-byte traces", path,
                    size, trace_bytes);
    }
    size_t traces = ((size_t)size - start) / trace_bytes;
    float *out = malloc(traces * ns * sizeof *out);
    if (!out) {
        free(d);
        return fail(why, whylen, "out of memory");
    }
    for (size_t t = 0; t < traces; t++) {
        const uint8_t *th = d + start + t * trace_bytes;
        const uint8_t *s = th + TRACE_HEADER_BYTES;
        float *o = out + t * ns;
        for (uint32_t i = 0; i < ns; i++, s += bytes) {
            uint32_t u;
            float v;
            switch (fmt) {
            case 1:
                o[i] = segy_ibm_to_float(get_u32(s, le));
                break;
            case 2:
                o[i] = (float)(int32_t)get_u32(s, le);
                break;
            case 3:
                o[i] = (float)(int16_t)get_u16(s, le);
                break;
            case 5:
                u = get_u32(s, le);
                memcpy(&v, &u, 4);
                o[i] = v;
                break;
            default: /* 8 */
                o[i] = (float)(int8_t)s[0];
                break;
            }
        }
    }
    free(d);
    g->traces = (uint32_t)traces;
    g->samples = ns;
    g->interval_us = dt;
    g->format = (int)fmt;
    g->little_endian = le;
    g->data = out;
    return 0;
}

void segy_free(segy_gather *g) {
    free(g->data);
    g->data = NULL;
}
