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
 *
 * The stages and frames that take a `pool` run on its threads (NULL: on the
 * calling thread; parallel.h); their output does not depend on it.
 */
#ifndef SCI_CODEC_DPCM_H
#define SCI_CODEC_DPCM_H

#include <stddef.h>
#include <stdint.h>

#include "codec/common/parallel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCI_DPCM_VERSION 6        /* the version written */
#define SCI_DPCM_VERSION_OLDEST 5 /* the oldest version read */
#define SCI_DPCM_HEADER_BYTES 48
#define SCI_DPCM_TRAILER_BYTES 4         /* the CRC-32 */
#define SCI_DPCM_MAX_DIM 65535u          /* width and height */
#define SCI_DPCM_MAX_PIXELS (1u << 28)   /* width * height */
#define SCI_DPCM_MAX_ORDER 32u           /* N */
#define SCI_DPCM_DEFAULT_ORDER 11u       /* N that encoders pick unless told */
#define SCI_DPCM_MAX_EQUATIONS 64u       /* M */
#define SCI_DPCM_MAX_THRESHOLD (1u << 28)
/* Bytes of metadata, as given to the encoder and as the decoder gives
 * them back (a compressed section stores fewer, and never expands to
 * more than this). */
#define SCI_DPCM_MAX_METADATA (1u << 24)
/* Header flag bits (offset 44). */
#define SCI_DPCM_FLAG_COLUMNS 1u   /* scanned by columns */
#define SCI_DPCM_FLAG_META_ZSTD 2u /* metadata section zstd-compressed (v6) */
/* Encoders cut frames into segments of ceil(this / width) rows. */
#define SCI_DPCM_SEGMENT_SAMPLES 4096u
/* A pivot whose magnitude is at most this times the largest diagonal entry
 * of the normal matrix makes the system singular. */
#define SCI_DPCM_PIVOT_EPS 1e-12

typedef struct {
    unsigned order_n;      /* N: 1..32, default 11 */
    unsigned equations_m;  /* M: 1..64, default 7 */
    unsigned threshold;    /* T: 0 = off (no escapes), default 13 */
    unsigned scan;         /* SCI_DPCM_SCAN_ROWS (default), _COLUMNS or _AUTO */
} sci_dpcm_params;

/* The direction the predictor runs in: along rows, or along columns (the
 * frame is coded transposed; a spectrograph whose dispersion runs down the
 * columns wants this), or AUTO: chosen for each frame by
 * sci_dpcm_choose_scan, the header saying which. */
enum { SCI_DPCM_SCAN_ROWS = 0, SCI_DPCM_SCAN_COLUMNS = 1, SCI_DPCM_SCAN_AUTO = 2 };

/* The scan AUTO takes for w x h samples (row y at samples + y * stride
 * samples of sample_bytes each: 2 uint16_t, 1 uint8_t): COLUMNS when the
 * sum of the absolute differences between vertical neighbours is below
 * that between horizontal ones, else ROWS.  The sums are exact integers,
 * so the GPU encoder, which forms them on the device, makes the same
 * choice. */
unsigned sci_dpcm_choose_scan(const void *samples, size_t stride,
                              unsigned sample_bytes, unsigned w, unsigned h);

/* The rule on the two sums (of |s(x, y) - s(x - 1, y)| and of |s(x, y) -
 * s(x, y - 1)|): one place for the C and the CUDA encoders. */
static inline unsigned sci_dpcm_scan_of_sums(unsigned long long along_rows,
                                             unsigned long long along_columns) {
    return along_columns < along_rows ? SCI_DPCM_SCAN_COLUMNS : SCI_DPCM_SCAN_ROWS;
}

void sci_dpcm_params_default(sci_dpcm_params *p);

/* What a frame header says. */
typedef struct {
    unsigned width, height, depth;
    sci_dpcm_params params;
    /* the geometry the residuals are coded in: width x height, or
     * height x width when scanned by columns; seg_rows, segments and the
     * segment table count its rows */
    unsigned coded_width, coded_height;
    int32_t t_lo, t_hi;     /* coded residuals [t_lo, t_hi]; t_hi = t_lo - 1: none */
    uint32_t escapes;       /* residuals stored verbatim */
    uint32_t seg_rows;      /* rows per segment */
    uint32_t segments;      /* ceil(height / seg_rows) */
    uint32_t coded_bytes;   /* the segments together */
    size_t frame_bytes;     /* header + sections + CRC */
    unsigned version;
    uint32_t meta_bytes;    /* metadata section: its stored bytes (0: none) ... */
    size_t meta_offset;     /* ... starting here in the frame ... */
    int meta_compressed;    /* ... zstd-compressed (sci_dpcm_metadata unpacks) */
    size_t table_offset;    /* segments' byte counts (uint32 LE) here */
    size_t coded_offset;    /* the first segment here */
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
    SCI_DPCM_E_RESERVED = -10,  /* reserved flag bits set */
    SCI_DPCM_E_LENGTHS = -11,   /* section lengths inconsistent */
    SCI_DPCM_E_TRAILING = -12,  /* bytes after the frame */
    SCI_DPCM_E_CRC = -13,
    SCI_DPCM_E_ENTROPY = -14,   /* a segment does not decode */
    SCI_DPCM_E_ESCAPES = -15,   /* an escaped value or the escape count wrong */
    SCI_DPCM_E_SAMPLE = -16,    /* a reconstructed sample out of range */
    SCI_DPCM_E_BUFFER = -17,    /* the caller's sample buffer is too small */
    SCI_DPCM_E_METADATA = -18,  /* a compressed metadata section is corrupt */
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
size_t sci_dpcm_encode(sci_pool *pool, const uint16_t *samples,
                       size_t stride, unsigned w, unsigned h, unsigned depth,
                       const sci_dpcm_params *p, uint8_t *out, size_t cap);

/* The same with meta_len bytes of opaque metadata (0 ..
 * SCI_DPCM_MAX_METADATA; meta may be NULL when meta_len is 0), kept in
 * the frame's metadata section, zstd-compressed where that is shorter,
 * and covered by the CRC (docs/dpcm-format.md).  meta_len = 0 gives
 * sci_dpcm_encode's bytes.  cap >= sci_dpcm_max_bytes + meta_len is always
 * enough. */
size_t sci_dpcm_encode_meta(sci_pool *pool, const uint16_t *samples,
                            size_t stride, unsigned w, unsigned h,
                            unsigned depth, const sci_dpcm_params *p,
                            const uint8_t *meta, size_t meta_len,
                            uint8_t *out, size_t cap);

/* Reads and validates the header of the frame at the start of in (not its
 * CRC); fills info.  SCI_DPCM_OK or a negative code. */
int sci_dpcm_peek(const uint8_t *in, size_t len, sci_dpcm_info *info);

/* Decodes one frame of exactly len bytes into samples (row y at samples +
 * y * stride; cap_samples elements there).  Every length, the CRC and every
 * field are checked, and so is every step of the decode: any failure gives
 * its negative code (and the samples are then unspecified), never a read
 * outside in.  info may be NULL. */
int sci_dpcm_decode(sci_pool *pool, const uint8_t *in, size_t len,
                    uint16_t *samples, size_t stride, size_t cap_samples,
                    sci_dpcm_info *info);

/* The metadata of the frame of exactly len bytes, as given to the encoder
 * (decompressed where the frame stores it compressed): *meta_len gets its
 * length (0: none, at most SCI_DPCM_MAX_METADATA); with out not NULL the
 * bytes are written there (cap bytes; SCI_DPCM_E_BUFFER when fewer than
 * *meta_len).  The header, the lengths and the CRC are checked first, as
 * by sci_dpcm_decode (whose codes it returns), but not the samples; a
 * compressed section that is not one zstd frame of exactly the length it
 * declares gives SCI_DPCM_E_METADATA (nothing more than that length is
 * ever written or allocated). */
int sci_dpcm_metadata(const uint8_t *in, size_t len, uint8_t *out,
                      size_t cap, size_t *meta_len);

/*
 * Stage 1: prediction.  residuals (and pred, if not NULL) are w * h values
 * in raster order; residual = sample - prediction, in
 * [-(2^depth - 1), 2^depth - 1].  0 or a negative code.
 */
int sci_dpcm_predict_residuals(sci_pool *pool, const uint16_t *samples,
                               size_t stride, unsigned w, unsigned h,
                               unsigned depth, unsigned order_n,
                               unsigned equations_m, int32_t *residuals,
                               uint16_t *pred);
/* The inverse; SCI_DPCM_E_SAMPLE when a sample leaves [0, 2^depth - 1]. */
int sci_dpcm_reconstruct(sci_pool *pool, const int32_t *residuals,
                         unsigned w, unsigned h, unsigned depth,
                         unsigned order_n, unsigned equations_m,
                         uint16_t *samples, size_t stride);

/* The least-squares solve of one pixel (docs/dpcm-format.md, "Solve"):
 * g is the n x n normal matrix in packed upper-triangular rows (g[0..n-1]
 * is row 0, then n-1 entries of row 1, ...), b the right-hand side, both
 * exact sums.  Writes the n weights and returns 1, or returns 0 when the
 * system is singular. */
int sci_dpcm_solve(unsigned n, const int64_t *g, const int64_t *b, double *a);
/* floor(p + 0.5) clamped to [0, maxval]; NaN gives 0. */
uint32_t sci_dpcm_round_prediction(double p, uint32_t maxval);

/*
 * Stage 2: entropy coding of residuals (any predictor's), w x h in raster
 * order.  T- and T+ follow from the histogram and the threshold
 * (sci_dpcm_thresholds).  The frame is cut into segments of seg_rows rows
 * (the last may be shorter), each coded alone: their bytes go one after
 * another to out (capacity cap), segment i's count to seg_bytes[i]
 * (ceil(h / seg_rows) entries).  0 (and the total and escape count), or a
 * negative code (SCI_DPCM_E_BUFFER when cap is too small; never when
 * cap >= sci_dpcm_coded_bound).
 */
void sci_dpcm_thresholds(const int32_t *res, size_t count, unsigned depth,
                         unsigned threshold, int32_t *t_lo, int32_t *t_hi);
/* Rows per segment that encoders pick: ceil(SCI_DPCM_SEGMENT_SAMPLES / w),
 * at most h. */
unsigned sci_dpcm_segment_rows(unsigned w, unsigned h);
/* Bytes one segment of `samples` residuals can take at most. */
size_t sci_dpcm_segment_bound(size_t samples);
/* The same for all segments of a w x h frame cut into seg_rows rows. */
size_t sci_dpcm_coded_bound(unsigned w, unsigned h, unsigned seg_rows);
int sci_dpcm_code_residuals(sci_pool *pool, const int32_t *res, unsigned w,
                            unsigned h, unsigned depth, int32_t t_lo,
                            int32_t t_hi, unsigned seg_rows, uint8_t *out,
                            size_t cap, uint32_t *seg_bytes,
                            size_t *out_bytes, uint32_t *escapes);
/* The inverse: in holds the segments of seg_bytes[] bytes one after
 * another; checks that exactly `escapes` residuals were escaped. */
int sci_dpcm_decode_residuals(sci_pool *pool, const uint8_t *in,
                              const uint32_t *seg_bytes, unsigned w,
                              unsigned h, unsigned depth, int32_t t_lo,
                              int32_t t_hi, unsigned seg_rows,
                              uint32_t escapes, int32_t *res);

/*
 * Framing for other backends (cuda/dpcm/dpcm.cu), which produce the segments
 * themselves.  First sci_dpcm_write_metadata writes the metadata section
 * for meta_len bytes of metadata at out + SCI_DPCM_HEADER_BYTES (cap
 * bytes there, at least meta_len; NULL meta with meta_len 0 for none),
 * zstd-compressed where that is shorter: it returns the section's length
 * (at most meta_len; 0 when cap is short or meta_len too large) and sets
 * *compressed.  Then, once the segments are known, sci_dpcm_write_header
 * writes the header and the segment table around that section (the
 * frame's first 48 + section + 4 ceil(h' / seg_rows) bytes) and returns
 * their length; the segments follow; sci_dpcm_finish_frame appends the
 * CRC of the first `body` bytes and returns the frame's length.
 */
size_t sci_dpcm_write_metadata(uint8_t *out, size_t cap, const uint8_t *meta,
                               size_t meta_len, int *compressed);
size_t sci_dpcm_write_header(uint8_t *out, unsigned w, unsigned h,
                             unsigned depth, const sci_dpcm_params *p,
                             int32_t t_lo, int32_t t_hi, uint32_t escapes,
                             unsigned seg_rows, size_t coded_bytes,
                             size_t section, int compressed,
                             const uint32_t *seg_bytes);
size_t sci_dpcm_finish_frame(uint8_t *out, size_t body);
/* Every check sci_dpcm_decode makes before decoding (header, lengths, CRC,
 * segment table); then sci_dpcm_segment_table reads the info->segments
 * byte counts. */
int sci_dpcm_check_frame(const uint8_t *in, size_t len, sci_dpcm_info *info);
int sci_dpcm_segment_table(const uint8_t *in, const sci_dpcm_info *info,
                           uint32_t *seg_bytes);

#ifdef __cplusplus
}
#endif

#endif
