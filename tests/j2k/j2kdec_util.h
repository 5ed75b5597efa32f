/* What the tests of the JPEG 2000 decoder (codec/j2k/j2k_dec.h) share:
 * images as int32 planes, PGX files, decoding with ours and with
 * opj_decompress, commands with a time limit, comparisons. */
#ifndef SCI_TESTS_J2KDEC_UTIL_H
#define SCI_TESTS_J2KDEC_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "codec/j2k/htj2k.h"
#include "codec/j2k/wavelet_frame.h"

#define J2KT_MAX_COMP 4

typedef struct
{
  unsigned nc;
  unsigned w[J2KT_MAX_COMP], h[J2KT_MAX_COMP];
  unsigned depth[J2KT_MAX_COMP];
  int sgn[J2KT_MAX_COMP];
  int32_t *s[J2KT_MAX_COMP];
} j2kt_image;

void j2kt_image_free (j2kt_image * im);

/* A codestream of our encoder with params p of an image of geometry g
 * (at most 16 bits): sample (x, y) of component c is
 * (37 x + 11 y + 50 c) mod 2^depth, one in eight replaced by rng's.  The
 * fuzz targets' seeds.  Returns 0 (*bytes malloc'ed, *len), or -1. */
int j2kt_encode_seed (const sci_wt_geometry * g, const sci_htj2k_params * p,
    uint64_t (*rng) (void), uint8_t ** bytes, size_t *len);

/* Reads a whole file (malloc'ed, NULL when it cannot). */
uint8_t *j2kt_slurp (const char *path, size_t *len);
int j2kt_write_file (const char *path, const void *data, size_t len);

/* A PGX file (one component): 0, or -1 when unreadable. */
int j2kt_read_pgx (const char *path, int32_t ** v, unsigned *w, unsigned *h,
    unsigned *depth, int *sgn);
int j2kt_write_pgx (const char *path, const int32_t * v, unsigned w,
    unsigned h, unsigned depth, int sgn);

/* Runs a shell command (its output to `log`, appended) with a time limit
 * in seconds; returns its exit status, or -1. */
int j2kt_run (const char *log, unsigned seconds, const char *fmt, ...)
    __attribute__((format (printf, 3, 4)));

/* Decodes buf with sci_j2k_dec at reduce / max_layers into im (every
 * component).  Returns the decoder's result; *warnings (may be NULL) gets
 * its warning count; err (may be NULL) its error message. */
int j2kt_decode_ours (const uint8_t * buf, size_t len, unsigned reduce,
    unsigned layers, j2kt_image * im, unsigned *warnings, char *err,
    size_t errlen);

/* Decodes `path` with opj_decompress into PGX files in `dir`: all
 * components in one run, or with per_comp one run a component (-c), for
 * subsampled components, which opj_decompress would otherwise take for
 * sYCC and convert.  Returns 0 or -1. */
int j2kt_decode_opj (const char *dir, const char *path, unsigned nc,
    int per_comp, unsigned reduce, unsigned layers, j2kt_image * im);

/* Largest absolute difference over all samples of all components; -1 when
 * the shapes differ.  *mse (may be NULL) gets the mean squared error of
 * component `c` (all when c < 0). */
long j2kt_peak_diff (const j2kt_image * a, const j2kt_image * b, int c,
    double *mse);

/* PSNR of b against a over all components, peak (2^depth - 1) of each. */
double j2kt_psnr (const j2kt_image * a, const j2kt_image * b);

/* The forward DWT of `im` (unsigned samples of g's depth) under g: the
 * coefficient planes (malloc'ed), or NULL. */
void *j2kt_forward (const sci_wt_geometry * g, const j2kt_image * im);

/* A binary PNM header (P5 or P6: width, height, maxval, blanks and #
 * comments between them) at the start of d[0..n): 0 and where the samples
 * begin (*body), or -1. */
int j2kt_pnm_header (const uint8_t * d, size_t n, unsigned *w, unsigned *h,
    unsigned *maxv, size_t *body);

#endif
