/*
 * A byte-oriented range coder with carry propagation (the scheme of LZMA's
 * rc, widened to a 40-bit interval) and an adaptive multi-symbol frequency
 * model, as used by the DPCM codec (docs/dpcm-format.md, "Range coder").
 *
 * Coder: `low` holds 40 bits plus a carry bit, `range` lies in
 * [2^32, 2^40) between symbols.  A symbol of frequency f at cumulative
 * frequency c out of a total t (t <= 2^24) narrows the interval to
 *     r = floor(range / t); low += r * c; range = r * f
 * and then, while range < 2^32, one byte leaves low (range <<= 8).  The
 * stream starts with one 0 byte; the encoder flushes 5 more bytes of low,
 * so the decoder reads exactly the bytes written: 6 at the start and one per
 * renormalisation.
 *
 * Model: n symbols (1 <= n <= SCI_RC_MAX_SYMBOLS), all of frequency 1 at
 * the start; coding symbol s adds SCI_RC_INCREMENT to its frequency; when
 * the total then exceeds the model's limit, every frequency f becomes
 * (f + 1) / 2.  The limit is 2^16 when 8 n <= 2^16, else the smallest
 * power of two >= 8 n (at most 2^21 < 2^24).  Cumulative frequencies come
 * from a Fenwick tree, so a symbol costs O(log n) whatever the alphabet.
 */
#ifndef SCI_CODEC_RANGE_CODER_H
#define SCI_CODEC_RANGE_CODER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCI_RC_MAX_SYMBOLS (1u << 18)
#define SCI_RC_INCREMENT 32u
#define SCI_RC_MIN_BYTES 6u /* an empty message */

typedef struct {
    uint8_t *buf;
    size_t cap, pos;     /* pos counts every byte, also those past cap */
    uint64_t low, range, cache_size;
    uint8_t cache;
} sci_rc_enc;

typedef struct {
    const uint8_t *buf;
    size_t len, pos;
    uint64_t code, range;
    int error;           /* read past the end, or an impossible code */
} sci_rc_dec;

typedef struct {
    uint32_t n, total, limit, top; /* top: highest power of two <= n */
    uint32_t *freq;                /* n */
    uint32_t *tree;                /* n + 1, Fenwick tree, 1-based */
} sci_rc_model;

void sci_rc_enc_init(sci_rc_enc *e, uint8_t *buf, size_t cap);
/* Codes symbol s of the model and adapts the model. */
void sci_rc_encode(sci_rc_enc *e, sci_rc_model *m, uint32_t s);
/* Returns the bytes of the message; larger than cap when it did not fit
 * (then only the first cap were written). */
size_t sci_rc_enc_finish(sci_rc_enc *e);

/* Nonzero (and the decoder flags an error) when the message does not start
 * as a message of this coder does. */
int sci_rc_dec_init(sci_rc_dec *d, const uint8_t *buf, size_t len);
/* The next symbol; on corrupt data sets d->error and returns 0. */
uint32_t sci_rc_decode(sci_rc_dec *d, sci_rc_model *m);

/* 0, or -1 without memory or when n is 0 or above SCI_RC_MAX_SYMBOLS. */
int sci_rc_model_init(sci_rc_model *m, uint32_t n);
void sci_rc_model_free(sci_rc_model *m);

/* CRC-32 of IEEE 802.3 (reflected polynomial 0xEDB88320, initial value and
 * final xor 0xFFFFFFFF): sci_crc32("123456789") = 0xCBF43926.  crc is the
 * value of the bytes before (0 at the start), so it can run in pieces. */
uint32_t sci_crc32(uint32_t crc, const uint8_t *p, size_t n);

#ifdef __cplusplus
}
#endif

#endif
