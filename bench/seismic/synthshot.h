/*
 * A synthetic shot gather for the seismic benchmarks and the main job,
 * shaped like a real one so that quantization between the gather's
 * extremes behaves as it does on field data.
 *
 * A marine shot recorded by a one-sided streamer: receivers at offsets
 * x_i = 100 + 25 i m, samples every dt seconds.  Every event is a Ricker
 * wavelet w(tau) = (1 - 2 pi^2 f^2 tau^2) exp(-pi^2 f^2 tau^2) of f = 27 Hz
 * placed at its exact (fractional) arrival time:
 *  - the direct wave through the water, t = x / 1500 m/s, amplitude
 *    6 (100 m / x) (spherical spreading): the first break and the largest
 *    values of the gather;
 *  - a refracted head wave from the sea floor, t = 0.16 s + x / 2400 m/s,
 *    amplitude 0.6 (100 m / x)^1.5;
 *  - the water-bottom reflection, t0 = 0.24 s, R = 0.35, and its first two
 *    free-surface multiples (2 t0 and 3 t0, R -> -R^2, +R^3), all on
 *    hyperbolas t(x) = sqrt((k t0)^2 + (x / 1500)^2);
 *  - 70 sub-bottom reflectors, t0 uniform in 0.3..7.0 s, reflection
 *    coefficients Gaussian (sigma 0.12), on hyperbolas t(x) = sqrt(t0^2 +
 *    (x / v)^2) with the RMS velocity v(t0) = 1500 + 700 t0^0.75 m/s;
 *  - reflection amplitudes R g, with the spherical-divergence factor
 *    g = (1500 m/s)^2 0.24 s / (v(t0)^2 t) (Newman), 1 for the water
 *    bottom: late reflections are hundreds of times weaker than early
 *    ones, so the peak-to-RMS ratio is large (about 41 dB at 96 x 3584 and
 *    2 ms), as in real shots;
 *  - Gaussian noise of sigma 0.001 everywhere (ambient noise, about 75 dB
 *    under the direct wave's peak), which dominates the latest samples.
 * Deterministic for a seed (splitmix64).
 */
#ifndef SCI_BENCH_SYNTHSHOT_H
#define SCI_BENCH_SYNTHSHOT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#define SYNTHSHOT_F 27.0

static inline double synthshot_urand(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53;
}

static inline double synthshot_grand(uint64_t *s) {
    double a = synthshot_urand(s), b = synthshot_urand(s);
    return sqrt(-2.0 * log(a + 0x1p-60)) * cos(6.283185307179586 * b);
}

/* Adds a * w(t - t_event) to a trace of n samples, where the wavelet is
 * not negligible (|tau| <= 0.12 s). */
static inline void synthshot_event(float *tr, uint32_t n, double dt,
                                   double t_event, double a) {
    const double pf2 = M_PI * M_PI * SYNTHSHOT_F * SYNTHSHOT_F;
    long s0 = (long)floor((t_event - 0.12) / dt);
    long s1 = (long)ceil((t_event + 0.12) / dt);
    if (s0 < 0)
        s0 = 0;
    if (s1 > (long)n - 1)
        s1 = (long)n - 1;
    for (long s = s0; s <= s1; s++) {
        double tau = s * dt - t_event, e = pf2 * tau * tau;
        tr[s] += (float)(a * (1 - 2 * e) * exp(-e));
    }
}

/* traces x samples floats into g. */
static inline void synthshot(float *g, uint32_t traces, uint32_t samples,
                             double dt, uint64_t seed) {
    uint64_t st = seed * 0x632be59bd9b4e019ull + 12345;
    for (size_t i = 0; i < (size_t)traces * samples; i++)
        g[i] = (float)(0.001 * synthshot_grand(&st));
    enum { NREF = 70 };
    double t0[NREF], r[NREF];
    for (int k = 0; k < NREF; k++) {
        t0[k] = 0.3 + 6.7 * synthshot_urand(&st);
        r[k] = 0.12 * synthshot_grand(&st);
    }
    const double v0 = 1500.0, twb = 0.24, rwb = 0.35;
    for (uint32_t i = 0; i < traces; i++) {
        float *tr = g + (size_t)i * samples;
        double x = 100.0 + 25.0 * i;
        synthshot_event(tr, samples, dt, x / v0, 6.0 * (100.0 / x));
        synthshot_event(tr, samples, dt, 0.16 + x / 2400.0,
                        0.6 * pow(100.0 / x, 1.5));
        double rm = rwb;
        for (int m = 1; m <= 3; m++) {
            double t = sqrt((m * twb) * (m * twb) + (x / v0) * (x / v0));
            synthshot_event(tr, samples, dt, t, rm * twb / t);
            rm *= -rwb;
        }
        for (int k = 0; k < NREF; k++) {
            double v = v0 + 700.0 * pow(t0[k], 0.75);
            double t = sqrt(t0[k] * t0[k] + (x / v) * (x / v));
            synthshot_event(tr, samples, dt, t,
                            r[k] * v0 * v0 * twb / (v * v * t));
        }
    }
}

#endif
