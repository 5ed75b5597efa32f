/*
 * Wavelet compression of seismic gathers (Castelar Mora, UIS 2015): a 2-D
 * float 5/3 DWT of the gather, uniform quantization of the coefficients to
 * n bits between their minimum and maximum, and a canonical length-limited
 * Huffman code cut into independent 64-bit packages (huffman.h).
 * docs/seismic-format.md is the normative definition of the frame; this is
 * the C reference and the CPU backend.
 *
 * A gather is `traces` rows of `samples` float32 values, trace after trace
 * (the buffer of application/x-seismic).  The DWT's width is `samples`, its
 * height `traces`.
 *
 * Quantization (the thesis' equations (11)-(12), range = max - min of the
 * coefficients), on a grid that holds zero where the coefficients straddle
 * it: seismic_core.h and docs/seismic-format.md define it.
 */
#ifndef SCI_CODEC_SEISMIC_H
#define SCI_CODEC_SEISMIC_H

#include <stddef.h>
#include <stdint.h>

#include "codec/common/parallel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCI_SEIS_VERSION 7        /* the version written */
#define SCI_SEIS_VERSION_OLDEST 2 /* the oldest version read */
/* Version 3's runs: an encoder codes this many equal symbols in a row, or
 * more, as run packages, of at most SCI_SEIS_RUN_MAX symbols each (which
 * also bounds a GPU thread's work on one package). */
#define SCI_SEIS_RUN_MIN 64u
#define SCI_SEIS_RUN_MAX 4096u
/* Version 6's zero runs: SCI_SEIS_ZRUN_CLASSES symbols after the 2^bits
 * indices, class k (1..11) a run of 2^k + b of the run level (b in k more
 * bits), so runs of 2..4095 in one code; a code package holds at most
 * SCI_SEIS_RUN_MAX values, and every SCI_SEIS_BLOCK_PACKAGES packages the
 * frame says which value the next block starts at. */
#define SCI_SEIS_ZRUN_CLASSES 11u
#define SCI_SEIS_ZRUN_MAX 4095u
#define SCI_SEIS_BLOCK_PACKAGES 256u
/* Version 7's slices: the tokens of version 6 as one stream of 64-bit
 * code words, cut into slices of SCI_SEIS_SLICE_WORDS words that each
 * start with a whole token and say which value they start at (a GPU
 * thread a slice). */
#define SCI_SEIS_SLICE_WORDS 32u
#define SCI_SEIS_SLICE_BITS (64u * SCI_SEIS_SLICE_WORDS)
/* A slice's last token starts in its last this many bits (an encoder
 * leaves at most 30 bits after it, or 63 in the last word of a frame), so
 * that a decoder that splits a slice among threads knows which one ends
 * it. */
#define SCI_SEIS_LAST_TOKEN_BITS 96u
#define SCI_SEIS_HEADER_BYTES 48
#define SCI_SEIS_MIN_BITS 2
#define SCI_SEIS_MAX_BITS 16
#define SCI_SEIS_MAX_LEVELS 8
#define SCI_SEIS_MAX_TRACES (1u << 24)
#define SCI_SEIS_MAX_SAMPLES 65535u
#define SCI_SEIS_MAX_VALUES (1u << 28) /* traces x samples */
#define SCI_SEIS_MAX_META (1u << 26)
#define SCI_SEIS_CODE_LIMIT 20u /* longest Huffman code an encoder makes */
#define SCI_SEIS_FLAG_ZERO 1u   /* header flags: the grid holds zero */
/* versions 6 and 7: the code has zero runs; clear, no run class may have
 * a code (version 6: and the packages are version 5's, which a GPU
 * decodes so) */
#define SCI_SEIS_FLAG_ZRUNS 2u

enum {
    SCI_SEIS_E_ARG = -1,      /* sizes or parameters out of range */
    SCI_SEIS_E_NOMEM = -2,
    SCI_SEIS_E_VALUE = -3,    /* NaN or infinity in the gather */
    SCI_SEIS_E_TRUNCATED = -4, /* fewer bytes than the header announces */
    SCI_SEIS_E_MAGIC = -5,
    SCI_SEIS_E_VERSION = -6,
    SCI_SEIS_E_HEADER = -7,   /* a header field out of range */
    SCI_SEIS_E_CRC = -8,
    SCI_SEIS_E_DATA = -9,     /* code table or packages no encoder writes */
    SCI_SEIS_E_ROOM = -10     /* the output buffer is too small */
};

typedef struct {
    uint32_t traces, samples;
    uint32_t sample_interval_us; /* carried, not used by the codec */
    unsigned bits;               /* SCI_SEIS_MIN_BITS..SCI_SEIS_MAX_BITS */
    unsigned levels;             /* 0..SCI_SEIS_MAX_LEVELS */
    unsigned version;            /* the frame version an encoder writes:
                                  * 3..SCI_SEIS_VERSION, or 0 for
                                  * SCI_SEIS_VERSION; 0 in a parsed frame's
                                  * info (the version is info.version) */
} sci_seis_params;

/* The quantization grid: level q is (q - zero) * step when zero_anchored,
 * else min + q * step (seismic_core.h). */
typedef struct {
    float step, min;
    int32_t zero;
    int zero_anchored;
} sci_seis_grid;

/* What a frame's header says, and where its sections are. */
typedef struct {
    sci_seis_params p;
    unsigned version;
    unsigned max_len;        /* longest code in the table */
    sci_seis_grid grid;      /* dequantization */
    int zero_runs;           /* versions 6, 7: SCI_SEIS_FLAG_ZRUNS */
    uint32_t packages;       /* version 7: code words */
    size_t meta_off, meta_len;     /* opaque metadata bytes */
    size_t table_off, table_len;   /* the code table (versions 4 and 5:
                                    * table_core.h's code; 2 and 3:
                                    * zstd-compressed lengths) */
    size_t pkg_off;                /* 8-byte aligned within the frame */
    uint32_t nsym;                 /* the code's alphabet (version 6:
                                    * 2^bits + SCI_SEIS_ZRUN_CLASSES) */
    uint32_t blocks;               /* version 6: ceil(packages / 256);
                                    * version 7: the slices,
                                    * ceil(packages / 32) */
    size_t firsts_off;             /* versions 6, 7: the first value of
                                    * blocks (slices) 1..blocks-1, 4 bytes
                                    * each */
    size_t frame_len;              /* everything, CRC included */
} sci_seis_info;

/* NULL when the parameters are valid, else why not (a static string). */
const char *sci_seis_params_check(const sci_seis_params *p);

/* Bytes a frame of these parameters and metadata can take at most. */
size_t sci_seis_frame_bound(const sci_seis_params *p, size_t meta_len);

/* Encodes the gather (traces x samples floats, finite) with `meta_len`
 * opaque metadata bytes into out (cap bytes; sci_seis_frame_bound is always
 * enough) and sets *out_len.  0 or an error code; E_VALUE when a value is
 * NaN or infinite, its index in *bad_index when bad_index is not NULL, and
 * E_VALUE with *bad_index = traces x samples when the values are so large
 * that the transform, or the decoder's reconstruction, would overflow. */
int sci_seis_encode(sci_pool *pool, const sci_seis_params *p,
                    const float *gather, const uint8_t *meta, size_t meta_len,
                    uint8_t *out, size_t cap, size_t *out_len,
                    size_t *bad_index);

/* The encoder's two halves, for a backend that does the first itself
 * (cuda/seismic/seismic.h): sci_seis_quantize transforms and quantizes the gather
 * into q (traces x samples indices, Mallat layout) and gives the grid
 * (E_VALUE and *bad_index as sci_seis_encode); sci_seis_encode_indices
 * codes indices (each below 2^bits) into a frame.  sci_seis_encode is the
 * two one after the other. */
int sci_seis_quantize(sci_pool *pool, const sci_seis_params *p,
                      const float *gather, uint16_t *q, sci_seis_grid *grid,
                      size_t *bad_index);
int sci_seis_encode_indices(const sci_seis_params *p, const uint16_t *q,
                            const sci_seis_grid *grid, const uint8_t *meta,
                            size_t meta_len, uint8_t *out, size_t cap,
                            size_t *out_len);

/* sci_seis_encode_indices writing frame version `version`: 3 (the code
 * table zstd-compressed, for decoders older than version 4), 4 (the table
 * in segments of 4096 symbols), 5 (in segments of 256), 6 (zero runs in
 * the code) or 7 (the code in slices, the newest, SCI_SEIS_VERSION); for
 * tests and for readers of older versions. */
int sci_seis_encode_indices_version(const sci_seis_params *p,
                                    const uint16_t *q,
                                    const sci_seis_grid *grid,
                                    const uint8_t *meta, size_t meta_len,
                                    unsigned version, uint8_t *out,
                                    size_t cap, size_t *out_len);

/* Whether the grid's extreme levels, through the inverse transform of
 * `levels` levels of a traces x samples gather, stay below FLT_MAX (with a
 * factor 2 to spare): the encoder refuses grids that fail (E_VALUE), so
 * that no frame decodes to an infinity. */
int sci_seis_grid_fits(const sci_seis_grid *g, const sci_seis_params *p);

/* The length of the frame whose first SCI_SEIS_HEADER_BYTES bytes are
 * `hdr` (for splitting a byte stream), or an error code: E_MAGIC,
 * E_VERSION, E_HEADER. */
long long sci_seis_frame_length(const uint8_t *hdr);

/* Checks the header, the section lengths and the CRC of the frame in
 * buf[0..len-1] (len may exceed the frame) and fills *info. */
int sci_seis_parse(const uint8_t *buf, size_t len, sci_seis_info *info);

/* The code's alphabet in a frame of this version and depth. */
uint32_t sci_seis_alphabet(unsigned version, unsigned bits);

/* The code lengths of a parsed frame, info->nsym bytes into len (room for
 * sci_seis_alphabet(SCI_SEIS_VERSION, SCI_SEIS_MAX_BITS)): 0, E_DATA when the table does not decompress to
 * exactly that size or is not a complete prefix code of at most
 * SCI_HUFF_MAX_LEN bits, E_NOMEM. */
int sci_seis_code_lengths(const uint8_t *frame, const sci_seis_info *info,
                          uint8_t *len);

/* A decompression context for sci_seis_code_lengths_in, for a thread that
 * reads the tables of many frames: making one a call costs as much as
 * decoding a small table.  NULL when memory is short. */
typedef struct sci_seis_dctx sci_seis_dctx;
sci_seis_dctx *sci_seis_dctx_new(void);
void sci_seis_dctx_free(sci_seis_dctx *d);

/* sci_seis_code_lengths with the context d (NULL: one made for the call). */
int sci_seis_code_lengths_in(sci_seis_dctx *d, const uint8_t *frame,
                             const sci_seis_info *info, uint8_t *len);

/* Decodes a parsed frame: the quantization indices into q (traces x
 * samples, Mallat layout), when q is not NULL, and the gather into out
 * (traces x samples floats), when out is not NULL.  0, E_DATA (packages
 * that do not decode, or symbols that do not add up to the gather), or
 * E_NOMEM. */
int sci_seis_decode(sci_pool *pool, const uint8_t *frame,
                    const sci_seis_info *info, uint16_t *q, float *out);

const char *sci_seis_error_string(int err);

#ifdef __cplusplus
}
#endif
#endif
