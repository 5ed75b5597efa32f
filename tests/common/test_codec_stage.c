/*
 * sci_stage_copy (codec/common/stage.h): the bytes memcpy would give, at
 * every length from 0 to 300 and some long ones, from and to every
 * alignment in a 64-byte line, and not a byte outside the destination.
 *
 *   test-codec-stage
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/common/stage.h"

#define GUARD 80

static uint32_t rng = 0x9E3779B9u;

static uint8_t next_byte(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return (uint8_t)rng;
}

#define LONGEST ((1u << 22) + 13)
#define ROOM (LONGEST + 2 * GUARD + 64)

static uint8_t *src, *dst, *want;

/* One copy of n bytes, src at offset so, dst at offset d_off; 0 when it
 * gives memcpy's bytes and leaves the guards alone. */
static int check(size_t n, size_t so, size_t d_off) {
    if (n > LONGEST)
        return 1;
    const size_t room = n + 2 * GUARD + 64;
    for (size_t i = 0; i < room; i++) {
        src[i] = next_byte();
        dst[i] = want[i] = next_byte();
    }
    memcpy(want + GUARD + d_off, src + so, n);
    sci_stage_copy(dst + GUARD + d_off, src + so, n);
    int bad = memcmp(dst, want, room) != 0;
    if (bad)
        fprintf(stderr, "FAIL: %zu bytes, source offset %zu, destination "
                        "offset %zu\n", n, so, d_off);
    return bad;
}

int main(void) {
    int fails = 0, cases = 0;
    src = malloc(ROOM);
    dst = malloc(ROOM);
    want = malloc(ROOM);
    if (!src || !dst || !want) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (size_t n = 0; n <= 300; n++)
        for (size_t so = 0; so < 64; so += 7)
            for (size_t d = 0; d < 64; d += 5, cases++)
                fails += check(n, so, d);
    const size_t longs[] = {4095, 4096, 65537, 1u << 20, LONGEST};
    for (unsigned k = 0; k < sizeof longs / sizeof longs[0]; k++)
        for (size_t so = 0; so < 64; so += 21)
            for (size_t d = 0; d < 64; d += 17, cases++)
                fails += check(longs[k], so, d);
    printf("test-codec-stage: %d copies, %d failed\n", cases, fails);
    free(src);
    free(dst);
    free(want);
    return fails != 0;
}
