/*
 * The layout of one JPEG 2000 tile (ITU-T T.800 Annex B): tile-components,
 * resolutions, precincts, subbands and code-blocks, in the coordinates
 * Annex B defines them, all anchored at the canvas origin:
 *
 *   tile-component   tcx0 = ceil(tx0 / XRsiz)                        (B-12)
 *   resolution r     trx0 = ceil(tcx0 / 2^(N_L - r))                 (B-14)
 *   subband b        tbx0 = ceil((tcx0 - 2^(n_b - 1) xo_b) / 2^n_b)  (B-15)
 *   precincts        a grid of 2^PPx x 2^PPy at resolution r, from 0 (B-16),
 *                    2^(PPx - 1) in the subbands of r > 0
 *   code-blocks      a grid of 2^xcb' x 2^ycb' in each subband, from 0,
 *                    xcb' = min(xcb, PPx - (r > 0))                   (B-17)
 *
 * and likewise for y.  Odd origins are kept: a tile or resolution that
 * starts at an odd coordinate has its first sample in the high-pass band
 * (the inverse DWT follows that parity).
 *
 * Code-blocks of a subband are stored in raster order over the subband's
 * code-block grid, so the blocks of one precinct form a rectangle of that
 * grid.  The layout also places every subband in the coefficient plane of
 * its tile-component (Mallat layout: resolution r occupies the top-left
 * w_r x h_r samples, its LL the top-left w_(r-1) x h_(r-1), HL to the right
 * of it, LH below, HH diagonally), which is what j2k_idwt.h transforms.
 *
 * This is the shared geometry of the codestream layer: a decoder fills the
 * per-block tier-2 state; an encoder can enumerate the same blocks.
 */
#ifndef SCI_CODEC_J2K_LAYOUT_H
#define SCI_CODEC_J2K_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "j2k_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Subband orientations (as sci_t1_band). */
enum { SCI_J2K_LL = 0, SCI_J2K_HL = 1, SCI_J2K_LH = 2, SCI_J2K_HH = 3 };

/* Limits of one tile's layout (beyond them: SCI_J2K_EUNSUPPORTED). */
#define SCI_J2K_MAX_TILE_BLOCKS (1u << 22)
#define SCI_J2K_MAX_TILE_PRECINCTS (1u << 22)

typedef struct {
    uint32_t x0, y0, x1, y1;  /* in the band's own coordinates */
    uint32_t band;            /* index in the tile's bands[] */
    /* tier-2 state (decoder) */
    uint8_t included;         /* has had a first contribution */
    uint8_t lblock;
    uint8_t mode;             /* J2K_CB_* below */
    uint8_t zbp;              /* zero bit-planes from the tag tree */
    uint16_t passes;          /* coding passes received */
    int32_t first_piece, last_piece;  /* its contributions, -1: none */
} sci_j2k_cblk;

/* Code-block modes in tier-2 (what its passes are). */
enum {
    J2K_CB_PART1 = 0,   /* EBCOT passes */
    J2K_CB_HT_PHLD = 1, /* HT, no HT cleanup with bytes yet (placeholders) */
    J2K_CB_HT = 2,      /* HT, after the first HT cleanup with bytes */
};

typedef struct {
    uint32_t x0, y0, x1, y1;  /* in the band's coordinates; may be empty */
    uint8_t orient;           /* SCI_J2K_LL .. SCI_J2K_HH */
    uint8_t level;            /* n_b: 1..N_L; N_L for the LL band */
    uint16_t comp;
    uint8_t res;
    uint8_t xcb, ycb;         /* code-block exponents xcb', ycb' */
    uint32_t cbx0, cby0;      /* grid index of the first code-block */
    uint32_t ncbx, ncby;      /* code-blocks across and down */
    size_t first_cblk;        /* in the tile's cblks[] */
    /* quantization */
    uint8_t mb;               /* M_b = G + epsilon_b - 1 (E-2) */
    uint8_t roi;              /* RGN maxshift s */
    uint16_t spqcd;           /* epsilon << 11 | mu */
    double step;              /* Delta_b (irreversible; 1 when reversible) */
    /* offset of the band's first sample in the tile-component's plane */
    uint32_t px, py;
} sci_j2k_band;

/* One subband's part of one precinct: a rectangle of its code-block grid
 * (relative to the band's cbx0, cby0) and the two tag trees over it. */
typedef struct {
    uint32_t cx0, cy0, cw, ch;
    uint32_t tt;              /* first tag-tree node in the tile's pool */
    uint8_t tt_levels;
} sci_j2k_pband;

typedef struct {
    uint16_t next_layer;      /* the layer of its next packet */
} sci_j2k_prec;

typedef struct {
    uint32_t x0, y0, x1, y1;  /* resolution coordinates (B-14) */
    uint8_t ppx, ppy;         /* precinct exponents */
    uint32_t pcx0, pcy0;      /* grid index of the first precinct */
    uint32_t npw, nph;        /* precincts across and down (0: empty) */
    size_t first_prec;        /* in the tile's precs[] */
    size_t first_pband;       /* in the tile's pbands[]: nbands a precinct */
    uint8_t nbands;           /* 1 (r = 0) or 3 */
    uint32_t first_band;      /* in the tile's bands[] */
} sci_j2k_res;

typedef struct {
    uint32_t x0, y0, x1, y1;  /* tile-component (B-12) */
    uint8_t dx, dy;           /* XRsiz, YRsiz */
    uint8_t levels;           /* N_L */
    uint8_t reversible;
    uint8_t cb_style;
    uint8_t guard;
    uint32_t first_res;       /* in the tile's res[] */
} sci_j2k_tcomp;

typedef struct {
    uint32_t index;
    uint32_t x0, y0, x1, y1;  /* on the canvas (B-7) */
    uint16_t ncomp;
    sci_j2k_tcomp *comps;
    sci_j2k_res *res;
    size_t nres;
    sci_j2k_band *bands;
    size_t nbands;
    sci_j2k_cblk *cblks;
    size_t ncblks;
    sci_j2k_prec *precs;
    size_t nprecs;
    sci_j2k_pband *pbands;
    size_t npbands;
    /* tag-tree nodes: inclusion and zero bit-planes, per node the decoder's
     * lower bound (low) and the value once known (val, else INT32_MAX) */
    int32_t *tt_low, *tt_val;
    size_t ntt;
} sci_j2k_tile;

/* Builds the layout of tile t with coding parameters tcp.  Checks the
 * parameters against the tile (quantization entries for every band, M_b
 * within range).  Returns 0 or an error code (st says why). */
int sci_j2k_tile_layout(sci_j2k_tile *tile, const sci_j2k_siz *siz,
                        const sci_j2k_tcp *tcp, uint32_t t, size_t err_off,
                        sci_j2k_status *st);
void sci_j2k_tile_free(sci_j2k_tile *tile);

/* The same for an encoder, whose parameters are its own choice: without
 * the limits on code-blocks and precincts that guard a decoder against
 * what a codestream announces. */
int sci_j2k_tile_layout_enc(sci_j2k_tile *tile, const sci_j2k_siz *siz,
                            const sci_j2k_tcp *tcp, uint32_t t,
                            sci_j2k_status *st);

/* Tier-2's decoding state back to a tile's start: no code-block included
 * yet, every precinct at its first layer, the tag trees unread (the
 * layout leaves a tile so). */
void sci_j2k_tile_t2_reset(sci_j2k_tile *tile);

static inline const sci_j2k_res *sci_j2k_tile_res(const sci_j2k_tile *t,
                                                  unsigned c, unsigned r) {
    return &t->res[t->comps[c].first_res + r];
}

/* Band coordinates of orientation o at level n_b of a tile-component
 * (B-15); n_b = 0 with o = LL gives the tile-component itself. */
void sci_j2k_band_rect(const sci_j2k_tcomp *tc, unsigned nb, unsigned o,
                       uint32_t *x0, uint32_t *y0, uint32_t *x1, uint32_t *y1);

#ifdef __cplusplus
}
#endif
#endif
