/*
 * Lossless online DPCM of 1..16-bit frames (Li, Wu & Jeon 2019, improved
 * online DPCM for aurora spectral data): each pixel is predicted by a
 * least-squares linear predictor fitted on pixels already coded, the
 * residuals are split by a dual threshold into range-coded ones and escaped
 * ones stored verbatim.  The decoder refits the same predictor, so the
 * arithmetic is defined to the last bit: docs/dpcm-format.md specifies the
 * frame format, the predictor and the order of every floating-point
 * operation of the solve, which a GPU backend must follow.
 *
 * Stages, each usable alone (a CUDA backend is tested against them one by
 * one):
 *   1. prediction:  sci_dpcm_predict_residuals / sci_dpcm_reconstruct
 *                   (inside: sci_dpcm_solve, sci_dpcm_round_prediction)
 *   2. entropy:     sci_dpcm_code_residuals / sci_dpcm_decode_residuals
 *   3. framing:     sci_dpcm_encode / sci_dpcm_decode / sci_dpcm_peek
 */
#ifndef SCI_CODEC_DPCM_H
#define SCI_CODEC_DPCM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCI_DPCM_VERSION 2        /* the newest version read and written */
#define SCI_DPCM_VERSION_PLAIN 1  /* written for frames without metadata */
#define SCI_DPCM_HEADER_BYTES 44
#define SCI_DPCM_TRAILER_BYTES 4         /* the CRC-32 */
#define SCI_DPCM_MAX_DIM 65535u          /* width and height */
#define SCI_DPCM_MAX_PIXELS (1u << 28)   /* width * height */
#define SCI_DPCM_MAX_ORDER 32u           /* N */
#define SCI_DPCM_MAX_EQUATIONS 64u       /* M */
#define SCI_DPCM_MAX_THRESHOLD (1u << 28)
#define SCI_DPCM_MAX_METADATA (1u << 24) /* bytes of the metadata section */
/* A pivot whose magnitude is at most this times the largest diagonal entry
 * of the normal matrix makes the system singular. */
#define SCI_DPCM_PIVOT_EPS 1e-12

typedef struct {
    unsigned order_n;      /* N: 1..32, default 11 */
    unsigned equations_m;  /* M: 1..64, default 7 */
    unsigned threshold;    /* T: 0 = off (no escapes), default 13 */
} sci_dpcm_params;

void sci_dpcm_params_default(sci_dpcm_params *p);

/* What a frame header says. */
typedef struct {
    unsigned width, height, depth;
    sci_dpcm_params params;
    int32_t t_lo, t_hi;     /* coded residuals [t_lo, t_hi]; t_hi = t_lo - 1: none */
    uint32_t escapes;       /* residuals stored verbatim */
    uint32_t rc_bytes, raw_bytes;
    size_t frame_bytes;     /* header + sections + CRC */
    unsigned version;       /* 1, or 2 (the metadata section exists) */
    uint32_t meta_bytes;    /* metadata section: its bytes (0: none) ... */
    size_t meta_offset;     /* ... starting here in the frame */
} sci_dpcm_info;

enum {
    SCI_DPCM_OK = 0,
    SCI_DPCM_E_ARG = -1,        /* bad arguments to the call */
    SCI_DPCM_E_NOMEM = -2,
    SCI_DPCM_E_TRUNCATED = -3,  /* shorter than its header or its lengths say */
    SCI_DPCM_E_MAGIC = -4,
    SCI_DPCM_E_VERSION = -5,
    SCI_DPCM_E_DIMENSIONS = -6, /* width, height out of bounds */
    SCI_DPCM_E_DEPTH = -7,
    SCI_DPCM_E_PARAMS = -8,     /* N, M or T out of bounds */
    SCI_DPCM_E_THRESHOLDS = -9, /* T-, T+ impossible for the depth */
    SCI_DPCM_E_RESERVED = -10,  /* reserved header bits set */
    SCI_DPCM_E_LENGTHS = -11,   /* section lengths inconsistent */
    SCI_DPCM_E_TRAILING = -12,  /* bytes after the frame */
    SCI_DPCM_E_CRC = -13,
    SCI_DPCM_E_ENTROPY = -14,   /* range-coded section invalid */
    SCI_DPCM_E_ESCAPES = -15,   /* raw section disagrees with the coded one */
    SCI_DPCM_E_SAMPLE = -16,    /* a reconstructed sample out of range */
    SCI_DPCM_E_BUFFER = -17,    /* the caller's sample buffer is too small */
};

/* A static string for a status code. */
const char *sci_dpcm_error_string(int code);

/* NULL when such frames can be coded, else why not (a static string). */
const char *sci_dpcm_check(unsigned w, unsigned h, unsigned depth,
                           const sci_dpcm_params *p);

/* An upper bound on the bytes of one frame without metadata; 0 for
 * invalid sizes.  A frame with m bytes of metadata takes at most m more. */
size_t sci_dpcm_max_bytes(unsigned w, unsigned h, unsigned depth);

/* Encodes w x h samples (row y at samples + y * stride, each < 2^depth).
 * Returns the frame's bytes, or 0 when the arguments are invalid (see
 * sci_dpcm_check), a sample is out of range, memory is short or cap is too
 * small (never when cap >= sci_dpcm_max_bytes). */
size_t sci_dpcm_encode(const uint16_t *samples, size_t stride, unsigned w,
                       unsigned h, unsigned depth, const sci_dpcm_params *p,
                       uint8_t *out, size_t cap);

/* The same with an opaque metadata section of meta_len bytes (0 ..
 * SCI_DPCM_MAX_METADATA; meta may be NULL when meta_len is 0), stored
 * as it is and covered by the CRC: the frame is then of version 2 (see
 * docs/dpcm-format.md).  meta_len = 0 gives sci_dpcm_encode's bytes.
 * cap >= sci_dpcm_max_bytes + meta_len is always enough. */
size_t sci_dpcm_encode_meta(const uint16_t *samples, size_t stride,
                            unsigned w, unsigned h, unsigned depth,
                            const sci_dpcm_params *p, const uint8_t *meta,
                            size_t meta_len, uint8_t *out, size_t cap);

/* Reads and validates the header of the frame at the start of in (not its
 * CRC); fills info.  SCI_DPCM_OK or a negative code. */
int sci_dpcm_peek(const uint8_t *in, size_t len, sci_dpcm_info *info);

/* Decodes one frame of exactly len bytes into samples (row y at samples +
 * y * stride; cap_samples elements there).  Every length, the CRC and every
 * field are checked, and so is every step of the decode: any failure gives
 * its negative code (and the samples are then unspecified), never a read
 * outside in.  info may be NULL. */
int sci_dpcm_decode(const uint8_t *in, size_t len, uint16_t *samples,
                    size_t stride, size_t cap_samples, sci_dpcm_info *info);

/* The metadata section of the frame of exactly len bytes: *meta points
 * into in (NULL when there is none) and *meta_len is its length (0 when
 * there is none).  The header, the lengths and the CRC are checked first,
 * as by sci_dpcm_decode (whose codes it returns), but not the samples. */
int sci_dpcm_metadata(const uint8_t *in, size_t len, const uint8_t **meta,
                      size_t *meta_len);

/*
 * Stage 1: prediction.  residuals (and pred, if not NULL) are w * h values
 * in raster order; residual = sample - prediction, in
 * [-(2^depth - 1), 2^depth - 1].  0 or a negative code.
 */
int sci_dpcm_predict_residuals(const uint16_t *samples, size_t stride,
                               unsigned w, unsigned h, unsigned depth,
                               unsigned order_n, unsigned equations_m,
                               int32_t *residuals, uint16_t *pred);
/* The inverse; SCI_DPCM_E_SAMPLE when a sample leaves [0, 2^depth - 1]. */
int sci_dpcm_reconstruct(const int32_t *residuals, unsigned w, unsigned h,
                         unsigned depth, unsigned order_n,
                         unsigned equations_m, uint16_t *samples,
                         size_t stride);

/* The least-squares solve of one pixel (docs/dpcm-format.md, "Solve"):
 * g is the n x n normal matrix in packed upper-triangular rows (g[0..n-1]
 * is row 0, then n-1 entries of row 1, ...), b the right-hand side, both
 * exact sums.  Writes the n weights and returns 1, or returns 0 when the
 * system is singular. */
int sci_dpcm_solve(unsigned n, const int64_t *g, const int64_t *b, double *a);
/* floor(p + 0.5) clamped to [0, maxval]; NaN gives 0. */
uint32_t sci_dpcm_round_prediction(double p, uint32_t maxval);

/*
 * Stage 2: entropy coding of residuals (any predictor's).  T- and T+ follow
 * from the histogram and the threshold (sci_dpcm_thresholds); the range
 * coder's bytes go to rc (capacity rc_cap), the escaped residuals to raw.
 * Returns 0 (and the lengths and counts), or a negative code
 * (SCI_DPCM_E_BUFFER when a capacity is too small).
 */
void sci_dpcm_thresholds(const int32_t *res, size_t count, unsigned depth,
                         unsigned threshold, int32_t *t_lo, int32_t *t_hi);
int sci_dpcm_code_residuals(const int32_t *res, size_t count, unsigned depth,
                            int32_t t_lo, int32_t t_hi, uint8_t *rc,
                            size_t rc_cap, size_t *rc_bytes, uint8_t *raw,
                            size_t raw_cap, size_t *raw_bytes,
                            uint32_t *escapes);
int sci_dpcm_decode_residuals(const uint8_t *rc, size_t rc_bytes,
                              const uint8_t *raw, size_t raw_bytes,
                              uint32_t escapes, size_t count, unsigned depth,
                              int32_t t_lo, int32_t t_hi, int32_t *res);

#ifdef __cplusplus
}
#endif

#endif
