/* The picture of bench-htj2k (and bench-htref): 3 planes of W x H 12-bit
 * samples, synthetic but natural-looking. */
#ifndef SCI_BENCH_HTJ2K_PICTURE_H
#define SCI_BENCH_HTJ2K_PICTURE_H

#include <math.h>
#include <stdint.h>

/* Three planes of 12-bit samples: a lit scene of smooth gradients, shapes
 * with hard edges, a textured region and a little noise. */
static inline void htj2k_picture(uint16_t *pl[3], uint32_t W, uint32_t H) {
    uint64_t s = 0x12345678;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            double fx = (double)x / W, fy = (double)y / H;
            double base = 0.2 + 0.5 * fx * (1 - 0.5 * fy) + 0.1 * sin(3 * fy + fx);
            double dx = fx - 0.3, dy = fy - 0.5;
            if (dx * dx + dy * dy < 0.03)
                base = 0.8 - 0.3 * fy; /* a disc */
            if (fx > 0.55 && fx < 0.85 && fy > 0.2 && fy < 0.45)
                base = 0.15 + 0.05 * fx; /* a dark rectangle */
            double tex = 0;
            if (fy > 0.6) /* fabric-like texture in the lower part */
                tex = 0.04 * sin(x * 0.31) * sin(y * 0.27) + 0.02 * sin((x + y) * 0.11);
            for (int c = 0; c < 3; c++) {
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                double n = ((double)((s >> 33) & 1023) / 1023.0 - 0.5) * 0.004;
                double tint = c == 0 ? 1.0 : c == 1 ? 0.9 - 0.1 * fy : 0.7 + 0.2 * fx;
                double v = (base * tint + tex + n) * 4095.0;
                v = v < 0 ? 0 : v > 4095 ? 4095 : v;
                pl[c][(size_t)y * W + x] = (uint16_t)v;
            }
        }
}

#endif
