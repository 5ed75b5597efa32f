/*
 * solve_rows (cuda/dpcm/dpcm.cu), the N = 11 solve in registers that the
 * GPU encoder's predictor and decoder's rebuild run, against the C
 * reference's sci_dpcm_solve_core, on the host: a warp of two 16-lane
 * groups, each solving a system of its own order, the lanes as coroutines
 * (warp_emu.cpp).  Both forms are checked: the encoder's, and the
 * decoder's that divides by every candidate while the pivot is sought
 * (EARLY).  parity_dpcm runs the decoder's form only on a GPU; this runs
 * both where there is none.  Weights must be equal to the bit, and a
 * system the reference finds singular must fail.
 *
 * The systems are the coder's normal equations (docs/dpcm-format.md: the
 * outer products of the N samples left of a position, over a window of
 * positions) of random samples, and awkward ones: all samples equal or
 * zero (singular), ties between pivot candidates (columns that repeat),
 * windows shorter than N (rank-deficient), samples at the 16-bit maximum,
 * one huge outlier, and every order from 0 to 11.
 *
 * Usage: parity-dpcm-solve-emu [--cases N] [--seed S]
 */
#define SCI_DPCM_EMU 1
#include "cuda/dpcm/dpcm.cu"

#include <stdio.h>

enum { NC = SCI_DPCM_DEFAULT_ORDER, PN = NC * (NC + 1) / 2, E = PN + NC };

static uint64_t rng_state;

static uint32_t rnd(void) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

enum { RANDOM, CONSTANT, REPEATING, SHORT, FULL_SCALE, OUTLIER, KINDS };
static const char *const kind_name[KINDS] = {
    "random", "constant", "repeating", "short window", "full scale",
    "outlier"};

/* Packed normal equations (entry t at S[t], order NC) of a window of m
 * positions over samples of kind `kind`, summed as the coder sums them. */
static void make_sums(int kind, int64_t *S) {
    enum { LEN = 96 };
    uint16_t s[LEN];
    const unsigned bits = 1 + rnd() % 16;
    const unsigned period = 1 + rnd() % 4;
    for (unsigned i = 0; i < LEN; i++) {
        uint32_t v = rnd() & ((1u << bits) - 1);
        if (kind == CONSTANT)
            v = i ? s[0] : v;
        else if (kind == REPEATING && i >= period)
            v = s[i - period];
        else if (kind == FULL_SCALE)
            v = 65535 - (rnd() & 3);
        s[i] = (uint16_t)v;
    }
    if (kind == OUTLIER)
        s[NC + rnd() % (LEN - NC)] = 65535;
    const unsigned m = kind == SHORT ? 1 + rnd() % (NC - 1)
                                     : 1 + rnd() % (LEN - NC);
    memset(S, 0, E * sizeof *S);
    sci_dpcm_add_window(NC, m, s, LEN - 1, S, 1);
}

/* The reference's answer for the leading n x n system of S. */
static int reference(unsigned n, const int64_t *S, double *a) {
    double A[NC * (NC + 1)];
    if (n == 0)
        return 0;
    sci_dpcm_load_system(NC, n, S, 1, A, 1);
    return sci_dpcm_solve_core(n, A, 1, a);
}

/* Both groups of a warp through solve_rows<NC, EARLY>. */
template <bool EARLY>
static void device_form(const unsigned n[2], const int64_t *const S[2],
                        double a[2][NC], int ok[2]) {
    emu_warp_run([&](unsigned l) {
        const unsigned h = l >> 4;
        int r = solve_rows<NC, EARLY>(n[h], S[h], 1, l & 15, a[h]);
        if ((l & 15) == 0)
            ok[h] = r;
    });
}

int main(int argc, char **argv) {
    unsigned cases = 20000;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cases") && i + 1 < argc)
            cases = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
    }
    rng_state = seed;
    unsigned failed = 0, solved = 0, singular = 0;
    for (unsigned c = 0; c < cases; c++) {
        int64_t S0[E], S1[E];
        const int64_t *S[2] = {S0, S1};
        int kind[2];
        unsigned n[2];
        for (unsigned h = 0; h < 2; h++) {
            kind[h] = (int)(rnd() % KINDS);
            make_sums(kind[h], h ? S1 : S0);
            /* mostly the full order, as the coder mostly asks */
            n[h] = rnd() % 3 ? (unsigned)NC : rnd() % (NC + 1);
        }
        double want[2][NC], got[2][2][NC];
        int want_ok[2], got_ok[2][2];
        /* a weight solve_rows failed to write shows as a NaN */
        memset(got, 0xFF, sizeof got);
        for (unsigned h = 0; h < 2; h++) {
            want_ok[h] = reference(n[h], S[h], want[h]);
            solved += want_ok[h];
            singular += !want_ok[h];
        }
        device_form<false>(n, S, got[0], got_ok[0]);
        device_form<true>(n, S, got[1], got_ok[1]);
        for (unsigned form = 0; form < 2; form++)
            for (unsigned h = 0; h < 2; h++) {
                int bad = got_ok[form][h] != want_ok[h] ||
                          (want_ok[h] && memcmp(got[form][h], want[h],
                                                n[h] * sizeof(double)));
                if (bad && failed++ < 10)
                    fprintf(stderr,
                            "case %u, group %u (%s, n = %u), %s form: "
                            "reference %s, solve_rows %s\n",
                            c, h, kind_name[kind[h]], n[h],
                            form ? "decoder's (EARLY)" : "encoder's",
                            want_ok[h] ? "solved" : "singular",
                            got_ok[form][h] ? "solved" : "singular");
            }
    }
    printf("parity-dpcm-solve: %u cases (%u systems solved, %u singular), "
           "both forms, %u failed\n",
           cases, solved, singular, failed);
    return failed != 0;
}
