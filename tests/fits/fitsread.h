/*
 * A minimal FITS reader for the codec tests and bench-dpcm (plain C, no
 * GLib, no cfitsio): 2880-byte blocks of 80-character cards; every 2-D
 * HDU of BITPIX 16 (big-endian samples plus BZERO, clamped to 0..65535;
 * BSCALE must be 1) as unsigned 16-bit frames.
 */
#ifndef __FITSREAD_H__
#define __FITSREAD_H__

#include <stdint.h>

typedef struct
{
  unsigned w, h;
  uint16_t *px;                 /* w * h samples, rows packed (malloc) */
} fits_frame;

/* Reads the frames of the file at `path`; returns how many (at most
 * max), 0 when it cannot be read. */
unsigned fits_read_u16 (const char *path, fits_frame * out, unsigned max);

/* Sample (x, y) of the mosaic of `nf` (> 0) frames that test-codec-dpcm
 * --bench and bench-dpcm code: frame (x / 300 + y / 140) mod nf at
 * (x mod w, y mod h), mirrored in odd tiles. */
uint16_t fits_mosaic_sample (const fits_frame * fr, unsigned nf, unsigned x,
    unsigned y);

#endif
