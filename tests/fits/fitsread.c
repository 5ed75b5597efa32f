#include "fitsread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long
card_int (const char *card)
{
  return strtol (card + 10, NULL, 10);
}

static double
card_real (const char *card)
{
  return strtod (card + 10, NULL);
}

unsigned
fits_read_u16 (const char *path, fits_frame * out, unsigned max)
{
  FILE *f = fopen (path, "rb");
  long size, pos = 0;
  uint8_t *d;
  unsigned found = 0;

  if (!f)
    return 0;
  fseek (f, 0, SEEK_END);
  size = ftell (f);
  fseek (f, 0, SEEK_SET);
  d = size > 0 ? malloc ((size_t) size) : NULL;
  if (!d || fread (d, 1, (size_t) size, f) != (size_t) size) {
    fclose (f);
    free (d);
    return 0;
  }
  fclose (f);
  while (pos + 2880 <= size && found < max) {
    long bitpix = 0, naxis = 0, n1 = 0, n2 = 0, bytes;
    double bzero = 0, bscale = 1;
    int end = 0;

    while (!end && pos + 2880 <= size) {
      for (int c = 0; c < 36; c++) {
        const char *card = (const char *) d + pos + 80 * c;

        if (!strncmp (card, "END     ", 8))
          end = 1;
        else if (!strncmp (card, "BITPIX  =", 9))
          bitpix = card_int (card);
        else if (!strncmp (card, "NAXIS   =", 9))
          naxis = card_int (card);
        else if (!strncmp (card, "NAXIS1  =", 9))
          n1 = card_int (card);
        else if (!strncmp (card, "NAXIS2  =", 9))
          n2 = card_int (card);
        else if (!strncmp (card, "BZERO   =", 9))
          bzero = card_real (card);
        else if (!strncmp (card, "BSCALE  =", 9))
          bscale = card_real (card);
      }
      pos += 2880;
    }
    bytes = naxis == 0 ? 0 : (labs (bitpix) / 8) * n1 * (naxis >= 2 ? n2 : 1);
    if (naxis == 2 && bitpix == 16 && bscale == 1 && pos + bytes <= size
        && n1 > 0 && n2 > 0) {
      fits_frame *fr = &out[found];

      fr->w = (unsigned) n1;
      fr->h = (unsigned) n2;
      fr->px = malloc ((size_t) n1 * n2 * sizeof *fr->px);
      if (!fr->px)
        break;
      found++;
      for (long i = 0; i < n1 * n2; i++) {
        int16_t v = (int16_t) (d[pos + 2 * i] << 8 | d[pos + 2 * i + 1]);
        long s = v + (long) bzero;

        fr->px[i] = (uint16_t) (s < 0 ? 0 : s > 65535 ? 65535 : s);
      }
    }
    pos += (bytes + 2879) / 2880 * 2880;
  }
  free (d);
  return found;
}

uint16_t
fits_mosaic_sample (const fits_frame * fr, unsigned nf, unsigned x, unsigned y)
{
  const fits_frame *f = &fr[(x / 300 + y / 140) % nf];
  unsigned tx = x / f->w, ty = y / f->h, xx = x % f->w, yy = y % f->h;

  if (tx & 1)
    xx = f->w - 1 - xx;
  if (ty & 1)
    yy = f->h - 1 - yy;
  return f->px[yy * f->w + xx];
}
