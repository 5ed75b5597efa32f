/*
 * The bit-parallel EBCOT context modeller (after Matela, Rusnak & Holub,
 * MEMICS 2010): the same (context, decision) pairs as the sequential coder
 * of t1.h, but every pass of a bit-plane is computed by a bounded number
 * of data-parallel steps over all samples of the code-block.
 *
 * A step is a loop whose iterations (one per sample, or one per stripe
 * column) are independent: each reads only what earlier steps wrote and
 * writes only its own elements, so a CUDA thread per iteration and a
 * barrier between steps compute the same.  The loops here can run their
 * iterations forwards, backwards or permuted (sci_t1p.order): the result
 * must not change, and the tests check that it does not.
 *
 * State per sample (docs/ebcot.md, "Bit-parallel modeller"):
 *   rho: 0 insignificant, 1 significant and never refined, 2 significant
 *        and refined at least once  (sigma = rho != 0, sigma' = rho == 2);
 *   tau: what coded the sample in the current plane: 0 nothing yet, 1 the
 *        significance propagation pass (eta/pi = tau == 1), 2 refinement,
 *        3 cleanup; back to 0 after each plane;
 *   nu:  became significant in the pass now being modelled (committed into
 *        rho at the pass's last step).
 * A neighbour j counts as significant when sample i is coded iff
 * rho[j] != 0 or (nu[j] and j precedes i in the stripe scan): the scan
 * order is only a comparison of precomputed scan indices.
 *
 * Steps per pass (L(n) = ceil(log2 n), N = w h samples, S = ceil(h / 4)
 * stripes):
 *   significance propagation: S (L(w) + 2) + 1 + L(N) + 1
 *   magnitude refinement:     1 + L(N) + 1
 *   cleanup:                  3 + L(N) + 1
 * (sci_t1p_step_bound).  The significance pass resolves its dependencies
 * along the scan with a prefix composition, per stripe, of per-column
 * transfer functions (4 bits in, 4 bits out); the cleanup pass has none
 * (every sample it visits becomes significant iff its bit is 1).  The
 * pairs are put into coding order by an exclusive prefix sum of per-sample
 * counts in scan order (L(N) steps) and a scatter.
 */
#ifndef SCI_CODEC_T1_PAR_H
#define SCI_CODEC_T1_PAR_H

#include <stddef.h>
#include <stdint.h>

#include "t1.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pass kinds */
#define SCI_T1P_SPP 0   /* significance propagation */
#define SCI_T1P_MRP 1   /* magnitude refinement */
#define SCI_T1P_CUP 2   /* cleanup */

/* A pass codes at most 2.5 decisions a sample (a run-length column: RL,
 * two uniform, a sign and three times ZC and sign) and 4 segmentation
 * symbols. */
#define SCI_T1P_MAX_PAIRS (SCI_T1_MAX_SAMPLES * 5 / 2 + 4)
/* Decisions one sample can emit in one pass (RL, UNI, UNI, SC) */
#define SCI_T1P_SLOTS 4
/* pos of a pair that belongs to no sample (segmentation symbols) */
#define SCI_T1P_NOPOS 0xFFFFu

typedef struct {
    uint8_t cx, d;   /* context label (t1.h), decision */
    uint16_t pos;    /* raster index y * w + x of the sample coded */
} sci_t1p_pair;

/* One modelled pass. */
typedef struct {
    unsigned kind;              /* SCI_T1P_* */
    unsigned plane;
    size_t n;                   /* pairs, in the standard's coding order */
    const sci_t1p_pair *pairs;
    /* Distortion decreases (t1.h's pass_dist terms, exact integers) of the
     * samples that became significant or were refined, in coding order:
     * their exact (128-bit) sum, in any order, rounded to double is
     * pass_dist. */
    size_t ngain;
    const int64_t *gain;
    unsigned long steps;        /* parallel steps this pass took */
} sci_t1p_pass;

/* Working memory of one modeller (about 250 KiB; nothing is allocated
 * inside).  Zero it, or set `order`, before the first use. */
typedef struct {
    /* iteration order of every step: 0 forwards, 1 backwards, 2 permuted
     * (i -> 7919 i mod n); the output does not depend on it */
    unsigned order;

    /* the block (set by sci_t1p_begin) */
    unsigned w, h, band, style, nbp, n;
    unsigned top;        /* most significant nonzero plane */
    int plane;           /* plane of the next pass, -1 when done */
    unsigned kind;       /* kind of the next pass */

    uint32_t mag[SCI_T1_MAX_SAMPLES];
    uint8_t neg[SCI_T1_MAX_SAMPLES];
    uint8_t rho[SCI_T1_MAX_SAMPLES];
    uint8_t tau[SCI_T1_MAX_SAMPLES];
    uint8_t nu[SCI_T1_MAX_SAMPLES];
    uint16_t sidx[SCI_T1_MAX_SAMPLES];   /* scan index of raster index */

    /* per-sample output slots of the current pass */
    sci_t1p_pair slot[SCI_T1_MAX_SAMPLES][SCI_T1P_SLOTS];
    uint8_t cnt[SCI_T1_MAX_SAMPLES];
    int64_t sgain[SCI_T1_MAX_SAMPLES];
    uint8_t hasgain[SCI_T1_MAX_SAMPLES];
    /* prefix sums in scan order: pairs in the low 16 bits, gains above */
    uint32_t scan[2][SCI_T1_MAX_SAMPLES];
    /* column transfer functions of a stripe (significance pass) */
    uint8_t fn[2][SCI_T1_MAX_SIDE][16];
    /* per stripe column (s * w + x): 0..3 run-length column whose first
     * 1 is in that row, 4 run-length column of zeros, 5 no run */
    uint8_t run[SCI_T1_MAX_SAMPLES];

    /* the current pass's output */
    sci_t1p_pair pairs[SCI_T1P_MAX_PAIRS];
    int64_t gain[SCI_T1_MAX_SAMPLES];
    unsigned long steps;
} sci_t1p;

/* The number of steps a pass of the given kind takes on a w x h block at
 * most (exactly, as implemented). */
unsigned long sci_t1p_step_bound(unsigned w, unsigned h, unsigned kind);

/* Loads a block (as sci_t1_encode: p's trace is not used here).  Returns 0
 * and the number of passes (0 for an all-zero block) and zero planes, or
 * -1 for invalid parameters or a magnitude >= 2^nbp. */
int sci_t1p_begin(sci_t1p *t, const sci_t1_params *p, const uint32_t *sm,
                  size_t stride, unsigned *passes, unsigned *zero_planes);

/* Models the next pass into *o (valid until the next call).  Returns 1, or
 * 0 when every pass has been modelled. */
int sci_t1p_next(sci_t1p *t, sci_t1p_pass *o);

/* sci_t1_encode with the parallel modeller: the pairs of each pass go
 * through the MQ coder in order; same arguments, return values and result
 * (codeword, pass lengths, distortions, decision counts); p->trace sees
 * every pair. */
int sci_t1p_encode(sci_t1p *t, const sci_t1_params *p, const uint32_t *sm,
                   size_t stride, uint8_t *out, size_t cap, sci_t1_result *r);

#ifdef __cplusplus
}
#endif
#endif
