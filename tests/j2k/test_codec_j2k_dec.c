/*
 * The JPEG 2000 decoder, C reference (codec/j2k/j2k_dec.h):
 *   - the general-origin inverse DWT (codec/j2k/j2k_idwt.h): the same
 *     samples as codec/j2k/dwt.c at origin 0 (bit for bit, 5/3 and 9/7), and at
 *     every origin parity the same as a plain transcription of Annex F's
 *     1D_SR (explicit symmetric extension, written here) and the inverse of
 *     a plain 1D_SD forward;
 *   - our own encoders (codec/j2k/htj2k.h, HT and Part 1 code-blocks, every
 *     code-block style, layers, progressions, subsampling, depths 1..16):
 *     every lossless codestream decodes to the source bit for bit; fewer
 *     layers and lower resolutions decode as opj_decompress -l / -r does;
 *   - their PLT segments (params plt): the lengths tile the tile-part, the
 *     stream decodes as the one without PLT (with ours, opj_decompress and
 *     ojph_expand), and any packet of the last layer, found by its PLT
 *     length and replaced by an empty packet (as an RTP depayloader
 *     repairs a loss), leaves the other components and the lower
 *     resolutions as they were;
 *   - codestreams of opj_compress, grk_compress and ojph_compress (tiles,
 *     tile offsets and image offsets, user precincts, every progression,
 *     POC, layers, SOP/EPH, PLT/TLM, tile-parts, every code-block style,
 *     ROI, code-block shapes, depths 1..16, signed, 1..4 components with
 *     subsampling, HT and Part 1): reversible ones decode exactly as
 *     opj_decompress decodes them (and as the source where it applies);
 *     irreversible ones within 1 of opj_decompress, PSNR against the source
 *     within 0.01 dB of opj_decompress's;
 *   - files: JP2 (colr enumerated spaces) and JPH;
 *   - refusals and damage: Part 2 markers and fields named in the error,
 *     header errors with their byte offset, every truncation of a
 *     multi-tile codestream (an error, or a decode with a warning), missing
 *     tiles, and corrupted bytes.
 * Options: --keep (leave the temporary folder), --only SUBSTR, -v (show
 * commands), --bench (the decoder's speed on 4K 4:4:4 12-bit lossless HT and
 * Part 1 streams of our encoder, not a test; --bench-out DIR keeps them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "codec/j2k/dwt.h"
#include "codec/j2k/ht_block.h"
#include "codec/j2k/ht_dec.h"
#include "codec/j2k/htj2k.h"
#include "codec/j2k/t2_bits.h"
#include "codec/j2k/j2k_dec.h"
#include "codec/j2k/j2k_idwt.h"
#include "codec/j2k/j2k_markers.h"
#include "codec/j2k/j2k_stream.h"
#include "codec/j2k/wavelet_frame.h"
#include "j2kdec_util.h"
#include "j2kplt.h"
#include "tests/common/testutil.h"

/* The case tables leave their trailing fields to default to zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static char tmp[512];
static const char *only;
static int have_opj, have_grk, have_ojph;

static int
wanted (const char *label)
{
  return !only || strstr (label, only);
}

/* ---- images ------------------------------------------------------------ */

/* Natural-ish content: gradients, an edge, texture and noise, different
 * per component, within the component's range. */
static void
make_image (j2kt_image * im, unsigned nc, const unsigned *w,
    const unsigned *h, unsigned depth, int sgn, uint64_t seed)
{
  memset (im, 0, sizeof *im);
  im->nc = nc;
  rng_state = seed;
  int64_t max = ((int64_t) 1 << depth) - 1;
  for (unsigned c = 0; c < nc; c++) {
    im->w[c] = w[c];
    im->h[c] = h[c];
    im->depth[c] = depth;
    im->sgn[c] = sgn;
    im->s[c] = malloc (((size_t) w[c] * h[c] + 1) * sizeof (int32_t));
    for (unsigned y = 0; y < h[c]; y++)
      for (unsigned x = 0; x < w[c]; x++) {
        double t = 0.35 + 0.25 * sin ((x + 3.0 * c) * 0.11) *
            cos (y * 0.07 + c) + 0.2 * ((double) x / (w[c] + 1));
        if (x > w[c] / 3 && y < h[c] / 2)
          t += 0.15;
        t += ((double) (rng () % 1000) / 1000.0 - 0.5) * 0.06;
        int64_t v = (int64_t) llround (t * (double) max);
        v = v < 0 ? 0 : v > max ? max : v;
        if (sgn)
          v -= (int64_t) 1 << (depth - 1);
        im->s[c][(size_t) y * w[c] + x] = (int32_t) v;
      }
  }
}

/* Planar raw samples, each component at its own size: 1 byte up to 8 bits,
 * else 2 (big-endian unless le). */
static int
write_raw (const char *path, const j2kt_image * im, int le)
{
  FILE *f = fopen (path, "wb");
  if (!f)
    return -1;
  for (unsigned c = 0; c < im->nc; c++)
    for (size_t i = 0; i < (size_t) im->w[c] * im->h[c]; i++) {
      uint32_t u = (uint32_t) im->s[c][i];
      if (im->depth[c] <= 8) {
        fputc ((int) (u & 0xFF), f);
      } else if (le) {
        fputc ((int) (u & 0xFF), f);
        fputc ((int) (u >> 8 & 0xFF), f);
      } else {
        fputc ((int) (u >> 8 & 0xFF), f);
        fputc ((int) (u & 0xFF), f);
      }
    }
  return fclose (f);
}

/* PGM (1 component) or PPM (3 of one size), unsigned. */
static int
write_pnm (const char *path, const j2kt_image * im)
{
  FILE *f = fopen (path, "wb");
  if (!f)
    return -1;
  fprintf (f, "P%c\n%u %u\n%u\n", im->nc == 1 ? '5' : '6', im->w[0], im->h[0],
      (1u << im->depth[0]) - 1);
  for (size_t i = 0; i < (size_t) im->w[0] * im->h[0]; i++)
    for (unsigned c = 0; c < im->nc; c++) {
      uint32_t u = (uint32_t) im->s[c][i];
      if (im->depth[0] > 8)
        fputc ((int) (u >> 8 & 0xFF), f);
      fputc ((int) (u & 0xFF), f);
    }
  return fclose (f);
}

/* ---- the inverse DWT --------------------------------------------------- */

/* Annex F.3.7 and F.3.8 as written: extend the signal symmetrically by
 * enough samples (F.3.7's i_left/i_right), then lift over the extended
 * signal, then keep [i0, i1).  y holds the interleaved coefficients of
 * canvas positions i0..i1-1. */
static void
plain_sr53 (int32_t * y, unsigned n, unsigned i0)
{
  if (n == 1) {
    if (i0 & 1)
      y[0] /= 2;
    return;
  }
  int32_t ext[64 + 8];
  const int pad = 4;
  for (int k = -pad; k < (int) n + pad; k++) {
    int j = k;
    while (j < 0 || j >= (int) n)
      j = j < 0 ? -j : 2 * ((int) n - 1) - j;
    ext[k + pad] = y[j];
  }
  /* (F-5): even canvas positions, then (F-6): odd ones */
  for (int k = -pad + 1; k < (int) n + pad - 1; k++)
    if (((unsigned) (k + (int) i0 + 8) & 1) == 0)
      ext[k + pad] -= (int32_t) floor ((ext[k + pad - 1] +
              ext[k + pad + 1] + 2) / 4.0);
  for (int k = -pad + 2; k < (int) n + pad - 2; k++)
    if (((unsigned) (k + (int) i0 + 8) & 1) == 1)
      ext[k + pad] += (int32_t) floor ((ext[k + pad - 1] +
              ext[k + pad + 1]) / 2.0);
  for (unsigned k = 0; k < n; k++)
    y[k] = ext[k + pad];
}

static void
plain_sr97 (float *y, unsigned n, unsigned i0)
{
  if (n == 1) {
    if (i0 & 1)
      y[0] = y[0] * 0.5f;
    return;
  }
  float ext[64 + 16];
  const int pad = 6;
  for (int k = -pad; k < (int) n + pad; k++) {
    int j = k;
    while (j < 0 || j >= (int) n)
      j = j < 0 ? -j : 2 * ((int) n - 1) - j;
    ext[k + pad] = y[j];
  }
  int len = (int) n + 2 * pad;
#define EVEN(k) ((((k) - pad + (int) i0 + 16) & 1) == 0)
  for (int k = 0; k < len; k++)
    ext[k] = ext[k] * (EVEN (k) ? SCI_DWT97_K : SCI_DWT97_INV_K);
  const float c[4] = { -SCI_DWT97_DELTA, -SCI_DWT97_GAMMA, -SCI_DWT97_BETA,
    -SCI_DWT97_ALPHA
  };
  for (int s = 0; s < 4; s++)
    for (int k = 1 + s; k < len - 1 - s; k++)
      if (EVEN (k) == (s % 2 == 0))
        ext[k] = ext[k] + c[s] * (ext[k - 1] + ext[k + 1]);
#undef EVEN
  for (unsigned k = 0; k < n; k++)
    y[k] = ext[k + pad];
}

/* 1D_SD of F.4 for the 5/3, for the round trip. */
static void
plain_sd53 (int32_t * x, unsigned n, unsigned i0)
{
  if (n == 1) {
    if (i0 & 1)
      x[0] *= 2;
    return;
  }
  int32_t ext[64 + 8];
  const int pad = 4;
  for (int k = -pad; k < (int) n + pad; k++) {
    int j = k;
    while (j < 0 || j >= (int) n)
      j = j < 0 ? -j : 2 * ((int) n - 1) - j;
    ext[k + pad] = x[j];
  }
  for (int k = -pad + 1; k < (int) n + pad - 1; k++)
    if (((unsigned) (k + (int) i0 + 8) & 1) == 1)
      ext[k + pad] -= (int32_t) floor ((ext[k + pad - 1] +
              ext[k + pad + 1]) / 2.0);
  for (int k = -pad + 2; k < (int) n + pad - 2; k++)
    if (((unsigned) (k + (int) i0 + 8) & 1) == 0)
      ext[k + pad] += (int32_t) floor ((ext[k + pad - 1] +
              ext[k + pad + 1] + 2) / 4.0);
  for (unsigned k = 0; k < n; k++)
    x[k] = ext[k + pad];
}

/* Mallat layout <-> canvas order of one line. */
static void
deinterleave (const int32_t * in, int32_t * out, unsigned n, unsigned par)
{
  unsigned nl = (n + (par ? 0 : 1)) / 2, a = 0, b = nl;
  for (unsigned k = 0; k < n; k++)
    out[((k + par) & 1) ? b++ : a++] = in[k];
}

static void
interleave_i (const int32_t * in, int32_t * out, unsigned n, unsigned par)
{
  unsigned nl = (n + (par ? 0 : 1)) / 2, a = 0, b = nl;
  for (unsigned k = 0; k < n; k++)
    out[k] = in[((k + par) & 1) ? b++ : a++];
}

static void
interleave_f (const float *in, float *out, unsigned n, unsigned par)
{
  unsigned nl = (n + (par ? 0 : 1)) / 2, a = 0, b = nl;
  for (unsigned k = 0; k < n; k++)
    out[k] = in[((k + par) & 1) ? b++ : a++];
}

static void
test_idwt (void)
{
  if (!wanted ("idwt"))
    return;
  char what[160];
  unsigned fails = check_failed;
  /* origin 0 against codec/j2k/dwt.c, several levels */
  static const unsigned sz[][2] = { {1, 1}, {1, 7}, {2, 2}, {7, 1}, {13, 9},
  {32, 17}, {61, 40}, {100, 3}
  };
  rng_state = 11;
  for (size_t s = 0; s < sizeof sz / sizeof sz[0]; s++) {
    unsigned w = sz[s][0], h = sz[s][1];
    for (unsigned levels = 1; levels <= 4; levels++) {
      size_t n = (size_t) w * h;
      int32_t *a = malloc (n * 4), *b = malloc (n * 4);
      float *fa = malloc (n * 4), *fb = malloc (n * 4);
      for (size_t i = 0; i < n; i++) {
        a[i] = b[i] = (int32_t) (rng () % 2001) - 1000;
        fa[i] = fb[i] = (float) ((double) (rng () % 200001) / 100.0 - 1000);
      }
      uint32_t rect[33][4];
      for (unsigned r = 0; r <= levels; r++) {
        rect[r][0] = rect[r][1] = 0;
        rect[r][2] = sci_dwt_low_len (w, levels - r);
        rect[r][3] = sci_dwt_low_len (h, levels - r);
      }
      sci_dwt53_inverse (NULL, a, w, h, w, levels);
      sci_j2k_idwt53 (b, w, (const uint32_t (*)[4]) rect, levels);
      sci_dwt97_inverse (NULL, fa, w, h, w, levels);
      sci_j2k_idwt97 (fb, w, (const uint32_t (*)[4]) rect, levels);
      snprintf (what, sizeof what, "idwt origin 0 %ux%u levels %u", w, h,
          levels);
      check (!memcmp (a, b, n * 4), what);
      check (!memcmp (fa, fb, n * 4), what);
      free (a);
      free (b);
      free (fa);
      free (fb);
    }
  }
  /* one level at every parity against the plain 1D_SR, and round trips
   * through the plain 1D_SD */
  for (unsigned w = 1; w <= 9; w++)
    for (unsigned h = 1; h <= 6; h++)
      for (unsigned pu = 0; pu < 2; pu++)
        for (unsigned pv = 0; pv < 2; pv++) {
          size_t n = (size_t) w * h;
          int32_t *a = malloc (n * 4), *ref = malloc (n * 4), *src =
              malloc (n * 4);
          float *fa = malloc (n * 4), *fref = malloc (n * 4);
          int32_t line[64], line2[64];
          float fl[64], fl2[64];
          for (size_t i = 0; i < n; i++) {
            src[i] = a[i] = (int32_t) (rng () % 511) - 255;
            fa[i] = fref[i] = (float) a[i] * 0.75f;
          }
          /* plain inverse: rows, then columns */
          memcpy (ref, a, n * 4);
          for (unsigned y = 0; y < h; y++) {
            interleave_i (ref + y * w, line, w, pu);
            plain_sr53 (line, w, pu);
            memcpy (ref + y * w, line, w * 4);
            interleave_f (fref + y * w, fl, w, pu);
            plain_sr97 (fl, w, pu);
            memcpy (fref + y * w, fl, w * 4);
          }
          for (unsigned x = 0; x < w; x++) {
            for (unsigned y = 0; y < h; y++) {
              line2[y] = ref[y * w + x];
              fl2[y] = fref[y * w + x];
            }
            interleave_i (line2, line, h, pv);
            plain_sr53 (line, h, pv);
            interleave_f (fl2, fl, h, pv);
            plain_sr97 (fl, h, pv);
            for (unsigned y = 0; y < h; y++) {
              ref[y * w + x] = line[y];
              fref[y * w + x] = fl[y];
            }
          }
          sci_j2k_idwt53_level (a, w, w, h, pu, pv);
          sci_j2k_idwt97_level (fa, w, w, h, pu, pv);
          snprintf (what, sizeof what, "idwt %ux%u parity %u,%u against "
              "1D_SR", w, h, pu, pv);
          check (!memcmp (a, ref, n * 4), what);
          check (!memcmp (fa, fref, n * 4), what);
          /* forward (columns, then rows: 2D_SD) and back */
          memcpy (a, src, n * 4);
          for (unsigned x = 0; x < w; x++) {
            for (unsigned y = 0; y < h; y++)
              line[y] = a[y * w + x];
            plain_sd53 (line, h, pv);
            deinterleave (line, line2, h, pv);
            for (unsigned y = 0; y < h; y++)
              a[y * w + x] = line2[y];
          }
          for (unsigned y = 0; y < h; y++) {
            memcpy (line, a + y * w, w * 4);
            plain_sd53 (line, w, pu);
            deinterleave (line, a + y * w, w, pu);
          }
          sci_j2k_idwt53_level (a, w, w, h, pu, pv);
          snprintf (what, sizeof what, "idwt %ux%u parity %u,%u inverts "
              "1D_SD", w, h, pu, pv);
          check (!memcmp (a, src, n * 4), what);
          free (a);
          free (ref);
          free (src);
          free (fa);
          free (fref);
        }
  printf ("idwt: %s\n", check_failed == fails ? "ok" : "FAILED");
}

/* ---- our encoders -------------------------------------------------------- */

typedef struct
{
  const char *label;
  unsigned w, h, nc, depth;
  unsigned dx[4], dy[4];
  sci_dwt_filter filter;
  unsigned levels;
  sci_colour_transform ct;
  sci_j2k_coder coder;
  unsigned cbw, cbh;
  sci_j2k_progression prog;
  unsigned layers, style;
  int jph;
  int plt;
} own_case;

/* Codes im (unsigned samples) with our encoder; the codestream is malloc'ed. */
static uint8_t *
own_encode (const own_case * k, const j2kt_image * im, size_t *len)
{
  sci_wt_geometry g;
  memset (&g, 0, sizeof g);
  g.width = k->w;
  g.height = k->h;
  g.components = k->nc;
  g.depth = k->depth;
  for (unsigned c = 0; c < k->nc; c++) {
    g.dx[c] = k->dx[c] ? k->dx[c] : 1;
    g.dy[c] = k->dy[c] ? k->dy[c] : 1;
  }
  g.filter = k->filter;
  g.levels = k->levels;
  g.ct = k->ct;
  if (sci_wt_geometry_check (&g))
    return NULL;
  void *coeffs = j2kt_forward (&g, im);
  uint8_t *out = NULL;
  if (coeffs) {
    sci_htj2k_params p;
    sci_htj2k_params_default (&p);
    p.coder = k->coder;
    p.cb_w_log2 = k->cbw ? k->cbw : 6;
    p.cb_h_log2 = k->cbh ? k->cbh : 6;
    p.progression = k->prog;
    p.layers = k->layers ? k->layers : 1;
    p.cb_style = k->style;
    p.jph = k->jph;
    p.plt = k->plt;
    if (!sci_htj2k_check (&g, &p)) {
      sci_htj2k_enc *e = sci_htj2k_enc_new (&g, &p, NULL);
      if (e) {
        size_t cap = sci_htj2k_max_bytes (e);
        out = malloc (cap);
        *len = sci_htj2k_encode (e, coeffs, out, cap);
        if (!*len) {
          free (out);
          out = NULL;
        }
        sci_htj2k_enc_free (e);
      }
    }
  }
  free (coeffs);
  return out;
}

static void
test_own_encoders (void)
{
  if (!wanted ("own"))
    return;
  static const own_case cases[] = {
    {"own-ht-gray8", 97, 61, 1, 8, {1}, {1}, SCI_DWT_53, 5, SCI_CT_NONE,
        SCI_J2K_CODER_HT},
    {"own-ht-rgb-rct", 77, 45, 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 4,
        SCI_CT_RCT, SCI_J2K_CODER_HT, 5, 5, SCI_J2K_RPCL},
    {"own-ht-12bit-cb16x64", 130, 70, 1, 12, {1}, {1}, SCI_DWT_53, 3,
        SCI_CT_NONE, SCI_J2K_CODER_HT, 4, 6, SCI_J2K_CPRL},
    {"own-ht-16bit", 40, 33, 1, 16, {1}, {1}, SCI_DWT_53, 2, SCI_CT_NONE,
        SCI_J2K_CODER_HT},
    {"own-ht-1bit", 31, 17, 1, 1, {1}, {1}, SCI_DWT_53, 2, SCI_CT_NONE,
        SCI_J2K_CODER_HT},
    {"own-ht-422-10bit", 66, 41, 3, 10, {1, 2, 2}, {1, 1, 1}, SCI_DWT_53, 3,
        SCI_CT_NONE, SCI_J2K_CODER_HT, 5, 4, SCI_J2K_PCRL},
    {"own-ht-420-4comp", 45, 29, 4, 9, {1, 2, 2, 1}, {1, 2, 2, 1},
        SCI_DWT_53, 3, SCI_CT_NONE, SCI_J2K_CODER_HT, 3, 3, SCI_J2K_RLCP},
    {"own-ht-jph", 50, 40, 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 3,
        SCI_CT_RCT, SCI_J2K_CODER_HT, 6, 6, SCI_J2K_LRCP, 1, 0, 1},
    {"own-p1-plain", 97, 61, 1, 8, {1}, {1}, SCI_DWT_53, 5, SCI_CT_NONE,
        SCI_J2K_CODER_PART1},
    {"own-p1-bypass-l3", 90, 70, 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 4,
        SCI_CT_RCT, SCI_J2K_CODER_PART1, 5, 5, SCI_J2K_LRCP, 3, 0x01},
    {"own-p1-reset-l2", 70, 50, 1, 12, {1}, {1}, SCI_DWT_53, 3, SCI_CT_NONE,
        SCI_J2K_CODER_PART1, 4, 4, SCI_J2K_RLCP, 2, 0x02},
    {"own-p1-termall-l4", 64, 64, 1, 10, {1}, {1}, SCI_DWT_53, 3,
        SCI_CT_NONE, SCI_J2K_CODER_PART1, 5, 5, SCI_J2K_RPCL, 4, 0x04},
    {"own-p1-vcausal", 55, 66, 1, 8, {1}, {1}, SCI_DWT_53, 3, SCI_CT_NONE,
        SCI_J2K_CODER_PART1, 6, 2, SCI_J2K_PCRL, 1, 0x08},
    {"own-p1-pterm-l2", 61, 47, 1, 8, {1}, {1}, SCI_DWT_53, 4, SCI_CT_NONE,
        SCI_J2K_CODER_PART1, 5, 5, SCI_J2K_CPRL, 2, 0x10},
    {"own-p1-segsym", 61, 47, 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 4,
        SCI_CT_RCT, SCI_J2K_CODER_PART1, 5, 5, SCI_J2K_LRCP, 1, 0x20},
    {"own-p1-all-styles-l5", 83, 59, 3, 12, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53,
        5, SCI_CT_RCT, SCI_J2K_CODER_PART1, 4, 5, SCI_J2K_RPCL, 5, 0x3F},
    {"own-p1-bypass-termall-l3", 47, 53, 1, 16, {1}, {1}, SCI_DWT_53, 3,
        SCI_CT_NONE, SCI_J2K_CODER_PART1, 5, 5, SCI_J2K_LRCP, 3, 0x05},
    {"own-p1-422-l2", 66, 41, 3, 10, {1, 2, 2}, {1, 1, 1}, SCI_DWT_53, 3,
        SCI_CT_NONE, SCI_J2K_CODER_PART1, 5, 4, SCI_J2K_PCRL, 2, 0x09},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const own_case *k = &cases[i];
    if (!wanted (k->label))
      continue;
    j2kt_image src, out;
    unsigned w[4], h[4];
    for (unsigned c = 0; c < k->nc; c++) {
      unsigned dx = k->dx[c] ? k->dx[c] : 1, dy = k->dy[c] ? k->dy[c] : 1;
      w[c] = (k->w + dx - 1) / dx;
      h[c] = (k->h + dy - 1) / dy;
    }
    make_image (&src, k->nc, w, h, k->depth, 0, 100 + i);
    size_t len = 0;
    uint8_t *cs = own_encode (k, &src, &len);
    char what[512], err[300];
    snprintf (what, sizeof what, "%s: our encoder codes it", k->label);
    check (cs != NULL, what);
    if (!cs) {
      j2kt_image_free (&src);
      continue;
    }
    unsigned warnings = 0;
    int r = j2kt_decode_ours (cs, len, 0, 0, &out, &warnings, err, sizeof err);
    snprintf (what, sizeof what, "%s: decodes (%d: %s)", k->label, r, err);
    check (r == 0 && warnings == 0, what);
    long d = r == 0 ? j2kt_peak_diff (&src, &out, -1, NULL) : -1;
    snprintf (what, sizeof what, "%s: lossless (peak difference %ld)",
        k->label, d);
    check (d == 0, what);
    j2kt_image_free (&out);
    int multi = k->layers > 1;
    if (have_opj && (multi || i % 4 == 1) && !k->jph) {
      /* fewer layers and lower resolutions, as OpenJPEG decodes them */
      char path[600];
      snprintf (path, sizeof path, "%s/%s.j2k", tmp, k->label);
      j2kt_write_file (path, cs, len);
      static const unsigned modes[3][2] = { {0, 1}, {1, 0}, {2, 2} };
      for (unsigned mode = 0; mode < 3; mode++) {
        unsigned red = modes[mode][0];
        unsigned lay = multi ? modes[mode][1] : 0;
        if (!red && !lay)
          continue;
        if (red > k->levels)
          continue;
        j2kt_image ref;
        int sub = 0;
        for (unsigned c = 0; c < k->nc; c++)
          sub |= (k->dx[c] && k->dx[c] != 1) || (k->dy[c] && k->dy[c] != 1);
        int ro = j2kt_decode_opj (tmp, path, k->nc, sub, red, lay, &ref);
        r = j2kt_decode_ours (cs, len, red, lay, &out, NULL, err, sizeof err);
        d = ro == 0 && r == 0 ? j2kt_peak_diff (&ref, &out, -1, NULL) : -2;
        snprintf (what, sizeof what, "%s: reduce %u, %u layers as "
            "opj_decompress (%d %d: peak difference %ld)", k->label, red, lay,
            ro, r, d);
        check (d == 0, what);
        j2kt_image_free (&ref);
        j2kt_image_free (&out);
      }
    }
    printf ("%-28s %6zu bytes  %s\n", k->label, len, d == 0 ? "ok" : "FAILED");
    free (cs);
    j2kt_image_free (&src);
  }
}

/* ---- external encoders --------------------------------------------------- */

typedef struct
{
  const char *label;
  const char *tool;             /* opj, grk, ojph */
  unsigned w, h, nc, depth, sgn;
  const char *sub;              /* opj/grk -F subsampling, "" for none */
  unsigned dx[4], dy[4];
  const char *args;
  int lossy;
  int pnm;                      /* 1: PGM/PPM input, 2: PGX (1 component) */
  int vs_source;                /* compare with the source too */
  unsigned reduce, layers;      /* decode parameters */
  int ref_ojph;                 /* the reference is ojph_expand's (PGM) */
} ext_case;

static const ext_case ext_cases[] = {
  {"opj-gray8", "opj", 67, 45, 1, 8, 0, "", {1}, {1}, "-n 4", 0, 0, 1},
  {"opj-tiles-precincts-rpcl", "opj", 131, 77, 3, 8, 0, "", {1, 1, 1}, {1, 1,
          1}, "-t 40,30 -b 16,16 -c [32,32],[16,16] -p RPCL -n 3", 0, 0, 1},
  {"opj-offsets-pcrl", "opj", 93, 71, 1, 10, 0, "", {1}, {1},
      "-d 5,3 -T 2,1 -t 33,29 -p PCRL -n 3", 0, 0, 1},
  {"opj-odd-offsets-cprl", "opj", 61, 52, 3, 8, 0, "", {1, 1, 1}, {1, 1, 1},
      "-d 7,9 -T 3,4 -t 20,21 -p CPRL -n 2 -c [8,8] -b 4,4", 0, 0, 1},
  {"opj-all-styles-layers-lrcp", "opj", 99, 64, 3, 8, 0, "", {1, 1, 1}, {1,
          1, 1}, "-M 63 -r 40,20,10,1 -p LRCP -b 32,32", 0, 0, 1},
  {"opj-bypass-layers-rlcp", "opj", 120, 88, 1, 12, 0, "", {1}, {1},
      "-M 1 -r 30,8,1 -p RLCP", 0, 0, 1},
  {"opj-termall-vcausal", "opj", 70, 60, 1, 8, 0, "", {1}, {1},
      "-M 12 -r 10,1", 0, 0, 1},
  {"opj-reset-pterm-segsym", "opj", 70, 60, 1, 8, 0, "", {1}, {1},
      "-M 50 -r 5,1 -p RPCL", 0, 0, 1},
  {"opj-sop-eph-cprl-tp-r", "opj", 88, 90, 3, 8, 0, "", {1, 1, 1}, {1, 1, 1},
      "-SOP -EPH -p CPRL -TP R -t 50,50", 0, 0, 1},
  {"opj-plt-tlm-tp-l-16bit", "opj", 101, 55, 2, 16, 0, "", {1, 1}, {1, 1},
      "-PLT -TLM -TP L -r 10,1", 0, 0, 1},
  {"opj-tp-c", "opj", 60, 40, 3, 8, 0, "", {1, 1, 1}, {1, 1, 1},
      "-TP C -p CPRL -t 32,32", 0, 0, 1},
  {"opj-poc", "opj", 97, 81, 3, 8, 0, "", {1, 1, 1}, {1, 1, 1},
      "-r 20,1 -POC T0=0,0,1,3,3,LRCP/T0=0,0,2,6,3,RPCL -n 5", 0, 0, 1},
  {"opj-subsampled-12s", "opj", 46, 38, 3, 12, 1, "@1x1:2x1:1x2", {1, 2, 1},
      {1, 1, 2}, "-n 3", 0, 0, 1},
  {"opj-4comp-420", "opj", 40, 30, 4, 9, 0, "@1x1:2x2:2x2:1x1", {1, 2, 2, 1},
      {1, 2, 2, 1}, "-n 2 -b 8,8", 0, 0, 1},
  {"ojph-1bit", "ojph", 33, 17, 1, 1, 0, "", {1}, {1},
      "-reversible true -num_decomps 2", 0, 0, 1},
  {"grk-5bit-signed", "grk", 51, 23, 1, 5, 1, "", {1}, {1}, "-n 3", 0, 2, 1},
  {"opj-cblk-1024x4", "opj", 150, 40, 1, 8, 0, "", {1}, {1}, "-b 1024,4 -n 5",
      0, 0, 1},
  {"opj-cblk-4x256-precincts", "opj", 70, 300, 1, 8, 0, "", {1}, {1},
      "-b 4,256 -n 4 -c [128,128],[64,64],[32,32]", 0, 0, 1},
  {"opj-irrev-mct", "opj", 96, 72, 3, 8, 0, "", {1, 1, 1}, {1, 1, 1},
      "-I -mct 1 -r 12", 1, 0, 1},
  {"opj-irrev-12s-layers", "opj", 77, 61, 1, 12, 1, "", {1}, {1},
      "-I -r 6,3", 1, 0, 1},
  {"opj-irrev-tiles-sub", "opj", 64, 48, 3, 8, 0, "@1x1:2x2:2x2", {1, 2, 2},
      {1, 2, 2}, "-I -t 32,24 -n 3", 1, 0, 1},
  {"opj-reduce1", "opj", 99, 64, 3, 8, 0, "", {1, 1, 1}, {1, 1, 1},
      "-M 63 -r 40,20,10,1 -p LRCP -b 32,32", 0, 0, 0, 1, 0},
  {"opj-layers2", "opj", 99, 64, 3, 8, 0, "", {1, 1, 1}, {1, 1, 1},
      "-M 63 -r 40,20,10,1 -p LRCP -b 32,32", 0, 0, 0, 0, 2},
  {"opj-reduce2-layers1-tiles", "opj", 131, 77, 1, 8, 0, "", {1}, {1},
      "-t 40,30 -r 20,1 -p RPCL -n 3", 0, 0, 0, 2, 1},
  {"opj-irrev-reduce1", "opj", 96, 72, 3, 8, 0, "", {1, 1, 1}, {1, 1, 1},
      "-I -r 8", 1, 0, 0, 1, 0},
  {"grk-ht-gray8", "grk", 67, 45, 1, 8, 0, "", {1}, {1}, "-M 64", 0, 1, 1},
  {"grk-ht-rgb-tiles-precincts", "grk", 130, 90, 3, 8, 0, "", {1, 1, 1}, {1,
          1, 1}, "-M 64 -t 64,64 -c [64,64],[32,32] -p RPCL", 0, 1, 1},
  {"grk-ht-irrev", "grk", 64, 48, 3, 8, 0, "", {1, 1, 1}, {1, 1, 1},
      "-M 64 -I", 1, 1, 1},
  {"grk-p1-12s-styles-layers", "grk", 100, 70, 1, 12, 1, "", {1}, {1},
      "-M 31 -r 20,5,1", 0, 2, 1},
  {"grk-p1-sop-eph-pcrl", "grk", 80, 50, 3, 8, 0, "", {1, 1, 1}, {1, 1, 1},
      "-S -E -p PCRL", 0, 1, 1},
  {"ojph-gray8", "ojph", 67, 45, 1, 8, 0, "", {1}, {1},
      "-reversible true", 0, 1, 1},
  {"ojph-rgb-tiles-cprl", "ojph", 101, 77, 3, 8, 0, "", {1, 1, 1}, {1, 1, 1},
      "-reversible true -tile_size {48,40} -prog_order CPRL "
      "-precincts {32,32},{16,16} -block_size {16,32}", 0, 1, 1},
  {"ojph-offsets", "ojph", 80, 60, 1, 8, 0, "", {1}, {1},
      "-reversible true -image_offset {3,5} -tile_offset {1,2} "
      "-tile_size {37,29}", 0, 1, 1},
  {"ojph-12s-downsampled", "ojph", 70, 50, 1, 12, 1, "", {2}, {1},
      "-reversible true -num_decomps 3", 0, 0, 0},
  {"ojph-10u-downsampled", "ojph", 72, 50, 1, 10, 0, "", {2}, {2},
      "-reversible true -num_decomps 3", 0, 0, 1},
  /* empty tile-components (the image offset puts a 1-sample column and
   * row of the canvas into tiles of their own); opj_decompress and
   * grk_decompress refuse it, ojph_expand is the reference */
  {"ojph-offset-empty-tiles", "ojph", 71, 50, 1, 10, 0, "", {2}, {2},
      "-reversible true -num_decomps 3 -image_offset {1,1}", 0, 0, 0, 0, 0,
      1},
  {"ojph-16bit", "ojph", 60, 40, 1, 16, 0, "", {1}, {1},
      "-reversible true -num_decomps 4", 0, 0, 1},
  {"ojph-irrev-rgb", "ojph", 96, 64, 3, 8, 0, "", {1, 1, 1}, {1, 1, 1},
      "-qstep 0.01", 1, 1, 1},
  {"ojph-irrev-lrcp-6lev", "ojph", 130, 100, 1, 8, 0, "", {1}, {1},
      "-qstep 0.005 -prog_order LRCP -num_decomps 6", 1, 1, 1},
};

/* ojph_expand's PGM of a 1-component codestream (16-bit big-endian above
 * 8 bits). */
static int
decode_ojph_pgm (const char *cs, j2kt_image * im)
{
  char out[600];
  memset (im, 0, sizeof *im);
  snprintf (out, sizeof out, "%s/ojph_expand.pgm", tmp);
  if (j2kt_run (NULL, 60, "ojph_expand -i %s -o %s", cs, out))
    return -1;
  size_t n, at;
  uint8_t *b = j2kt_slurp (out, &n);
  unsigned w, h, maxv;
  if (!b || j2kt_pnm_header (b, n, &w, &h, &maxv, &at) || b[1] != '5') {
    free (b);
    return -1;
  }
  unsigned bytes = maxv > 255 ? 2 : 1;
  if ((size_t) at + (size_t) w * h * bytes > n) {
    free (b);
    return -1;
  }
  im->nc = 1;
  im->w[0] = w;
  im->h[0] = h;
  im->depth[0] = 0;
  while ((1u << im->depth[0]) - 1 < maxv)
    im->depth[0]++;
  im->s[0] = malloc ((size_t) w * h * sizeof (int32_t));
  for (size_t i = 0; i < (size_t) w * h; i++)
    im->s[0][i] = bytes == 1 ? b[at + i] : b[at + 2 * i] << 8 |
        b[at + 2 * i + 1];
  free (b);
  return 0;
}

/* ---- PLT ----------------------------------------------------------------- */

/* The (layer, resolution, component) of each packet in stream order: with
 * one precinct a resolution, every progression is a nest of layer,
 * resolution and component loops (PCRL and CPRL alike). */
static void
packet_order (sci_j2k_progression prog, unsigned L, unsigned R, unsigned C,
    unsigned (*lrc)[3])
{
  unsigned dims[3] = { L, R, C }, ord[3], idx[3], n = 0;
  switch (prog) {
    case SCI_J2K_LRCP:
      ord[0] = 0, ord[1] = 1, ord[2] = 2;
      break;
    case SCI_J2K_RLCP:
      ord[0] = 1, ord[1] = 0, ord[2] = 2;
      break;
    case SCI_J2K_RPCL:
      ord[0] = 1, ord[1] = 2, ord[2] = 0;
      break;
    default:
      ord[0] = 2, ord[1] = 1, ord[2] = 0;
      break;
  }
  for (idx[ord[0]] = 0; idx[ord[0]] < dims[ord[0]]; idx[ord[0]]++)
    for (idx[ord[1]] = 0; idx[ord[1]] < dims[ord[1]]; idx[ord[1]]++)
      for (idx[ord[2]] = 0; idx[ord[2]] < dims[ord[2]]; idx[ord[2]]++, n++) {
        lrc[n][0] = idx[0];
        lrc[n][1] = idx[1];
        lrc[n][2] = idx[2];
      }
}

/* The codestream cs (PLT read into t) with packet `which` replaced by an
 * empty one (a single zero byte: no block included), its PLT entry, Psot
 * and the codestream box following (malloc'ed, *n its length). */
static uint8_t *
empty_packet (const uint8_t * cs, size_t len, const j2kt_plt * t,
    size_t which, size_t *n)
{
  uint32_t *plen = malloc (t->n * sizeof *plen);
  memcpy (plen, t->len, t->n * sizeof *plen);
  plen[which] = 1;
  size_t at = t->data;
  for (size_t i = 0; i < which; i++)
    at += t->len[i];
  size_t last = t->plt_at[t->segs - 1];
  size_t hdr_end = last + 2 + j2kt_be16 (cs + last + 2);
  uint8_t *o = malloc (len + 16);
  sci_j2k_out w = { o, 0, len + 16 };
  sci_j2k_put_bytes (&w, cs, t->plt_at[0]);
  sci_j2k_write_plt (&w, plen, t->n);
  sci_j2k_put_bytes (&w, cs + hdr_end, at - hdr_end);
  sci_j2k_put8 (&w, 0);
  at += t->len[which];
  sci_j2k_put_bytes (&w, cs + at, len - at);
  size_t d = len - w.len;
  sci_j2k_patch32 (&w, t->sot + 6, t->psot - (uint32_t) d);
  if (t->box)
    sci_j2k_patch32 (&w, t->box, j2kt_be32 (cs + t->box) - (uint32_t) d);
  free (plen);
  *n = w.len;
  return o;
}

static void
test_plt (void)
{
  if (!wanted ("plt"))
    return;
  static const own_case cases[] = {
    {"plt-ht-gray-rpcl", 37, 29, 1, 8, {1}, {1}, SCI_DWT_53, 3, SCI_CT_NONE,
        SCI_J2K_CODER_HT, 4, 4, SCI_J2K_RPCL},
    {"plt-ht-3comp-lrcp", 45, 31, 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 3,
        SCI_CT_NONE, SCI_J2K_CODER_HT, 4, 5, SCI_J2K_LRCP},
    {"plt-ht-rct-cprl", 33, 41, 3, 10, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 4,
        SCI_CT_RCT, SCI_J2K_CODER_HT, 3, 3, SCI_J2K_CPRL},
    {"plt-ht-97-pcrl", 51, 23, 1, 12, {1}, {1}, SCI_DWT_97, 3, SCI_CT_NONE,
        SCI_J2K_CODER_HT, 4, 4, SCI_J2K_PCRL},
    {"plt-ht-jph-rlcp", 29, 19, 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 2,
        SCI_CT_RCT, SCI_J2K_CODER_HT, 3, 3, SCI_J2K_RLCP, 1, 0, 1},
    {"plt-p1-gray-rlcp", 39, 27, 1, 8, {1}, {1}, SCI_DWT_53, 3, SCI_CT_NONE,
        SCI_J2K_CODER_PART1, 4, 4, SCI_J2K_RLCP},
    {"plt-p1-3comp-l3-lrcp", 43, 35, 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53,
        3, SCI_CT_NONE, SCI_J2K_CODER_PART1, 4, 4, SCI_J2K_LRCP, 3},
    {"plt-p1-rct-l4-rpcl", 47, 33, 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 4,
        SCI_CT_RCT, SCI_J2K_CODER_PART1, 3, 4, SCI_J2K_RPCL, 4, 0x05},
    {"plt-p1-97-l5-cprl", 31, 45, 1, 10, {1}, {1}, SCI_DWT_97, 3,
        SCI_CT_NONE, SCI_J2K_CODER_PART1, 4, 4, SCI_J2K_CPRL, 5},
    {"plt-p1-422-l2-pcrl", 35, 21, 3, 8, {1, 2, 2}, {1, 1, 1}, SCI_DWT_53, 2,
        SCI_CT_NONE, SCI_J2K_CODER_PART1, 3, 3, SCI_J2K_PCRL, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    own_case k = cases[i];
    if (!wanted (k.label))
      continue;
    char what[600], err[300], path[600];
    unsigned w[4], h[4], L = k.layers ? k.layers : 1, R = k.levels + 1;
    int sub = 0, lossless = k.filter == SCI_DWT_53;
    for (unsigned c = 0; c < k.nc; c++) {
      w[c] = (k.w + k.dx[c] - 1) / k.dx[c];
      h[c] = (k.h + k.dy[c] - 1) / k.dy[c];
      sub |= k.dx[c] != 1 || k.dy[c] != 1;
    }
    j2kt_image src, off_im, on_im;
    make_image (&src, k.nc, w, h, k.depth, 0, 300 + i);
    size_t len0 = 0, len = 0;
    uint8_t *cs0 = own_encode (&k, &src, &len0);
    k.plt = 1;
    uint8_t *cs = own_encode (&k, &src, &len);
    snprintf (what, sizeof what, "%s: coded with and without plt", k.label);
    check (cs && cs0, what);
    if (!cs || !cs0) {
      free (cs);
      free (cs0);
      j2kt_image_free (&src);
      continue;
    }

    /* the lengths tile the tile-part; none without plt */
    j2kt_plt t, t0;
    const char *why = "", *why0 = "";
    int rp = j2kt_plt_parse (cs, len, &t, &why);
    int rp0 = j2kt_plt_parse (cs0, len0, &t0, &why0);
    size_t np = (size_t) L * R * k.nc;
    snprintf (what, sizeof what, "%s: %zu PLT lengths (of %zu packets) walk "
        "from SOD to EOC (%s)", k.label, t.n, np, rp ? why : "ok");
    check (rp == 0 && t.segs >= 1 && t.n == np, what);
    snprintf (what, sizeof what, "%s: without plt no PLT (%s)", k.label,
        rp0 ? why0 : "ok");
    check (rp0 == 0 && t0.segs == 0, what);
    j2kt_plt_free (&t0);
    if (rp || t.n != np) {
      j2kt_plt_free (&t);
      free (cs);
      free (cs0);
      j2kt_image_free (&src);
      continue;
    }

    /* the same image from ours with and without PLT */
    unsigned warnings = 0;
    int r0 = j2kt_decode_ours (cs0, len0, 0, 0, &off_im, NULL, err,
        sizeof err);
    int r = j2kt_decode_ours (cs, len, 0, 0, &on_im, &warnings, err,
        sizeof err);
    long d = r == 0 && r0 == 0 ? j2kt_peak_diff (&off_im, &on_im, -1,
        NULL) : -2;
    snprintf (what, sizeof what, "%s: decodes as without PLT (%d %d, %u "
        "warnings: peak difference %ld; %s)", k.label, r0, r, warnings, d, err);
    check (d == 0 && warnings == 0, what);
    if (lossless) {
      d = r == 0 ? j2kt_peak_diff (&src, &on_im, -1, NULL) : -2;
      snprintf (what, sizeof what, "%s: lossless (peak difference %ld)",
          k.label, d);
      check (d == 0, what);
    }

    /* the external decoders read it alike */
    if (have_opj && !k.jph && r == 0) {
      j2kt_image ref;
      snprintf (path, sizeof path, "%s/%s.j2k", tmp, k.label);
      j2kt_write_file (path, cs, len);
      int ro = j2kt_decode_opj (tmp, path, k.nc, sub, 0, 0, &ref);
      d = ro == 0 ? j2kt_peak_diff (&ref, &on_im, -1, NULL) : -2;
      snprintf (what, sizeof what, "%s: opj_decompress decodes it as ours "
          "(%d: peak difference %ld)", k.label, ro, d);
      check (d >= 0 && d <= (lossless ? 0 : 1), what);
      j2kt_image_free (&ref);
    }
    if (have_ojph && k.coder == SCI_J2K_CODER_HT && r == 0) {
      snprintf (path, sizeof path, "%s/%s.%s", tmp, k.label,
          k.jph ? "jph" : "j2c");
      j2kt_write_file (path, cs, len);
      if (k.nc == 1) {
        j2kt_image ref;
        int ro = decode_ojph_pgm (path, &ref);
        d = ro == 0 ? j2kt_peak_diff (&ref, &on_im, -1, NULL) : -2;
        snprintf (what, sizeof what, "%s: ojph_expand decodes it as ours "
            "(%d: peak difference %ld)", k.label, ro, d);
        check (d >= 0 && d <= (lossless ? 0 : 1), what);
        j2kt_image_free (&ref);
      } else {
        int ro = j2kt_run (NULL, 60, "ojph_expand -i %s -o %s/%s.ppm", path,
            tmp, k.label);
        snprintf (what, sizeof what, "%s: ojph_expand decodes it (%d)",
            k.label, ro);
        check (ro == 0, what);
      }
    }

    /* any packet of the last layer emptied: the other components (no
     * colour transform) and the resolutions below the packet's stay */
    unsigned (*lrc)[3] = malloc (np * sizeof *lrc);
    packet_order (k.prog, L, R, k.nc, lrc);
    unsigned emptied = 0, kept = 0;
    for (size_t p = 0; p < np && r == 0; p++) {
      if (lrc[p][0] != L - 1)
        continue;
      size_t n;
      uint8_t *mod = empty_packet (cs, len, &t, p, &n);
      j2kt_plt tm;
      int rm = j2kt_plt_parse (mod, n, &tm, &why);
      j2kt_plt_free (&tm);
      j2kt_image im;
      unsigned wm = 0;
      int ri = rm == 0 ? j2kt_decode_ours (mod, n, 0, 0, &im, &wm, err,
          sizeof err) : -1;
      snprintf (what, sizeof what, "%s: packet %zu (layer %u, resolution %u,"
          " component %u) emptied: decodes (%d %d, %u warnings; %s)", k.label,
          p, lrc[p][0], lrc[p][1], lrc[p][2], rm, ri, wm, err);
      check (ri == 0 && wm == 0, what);
      if (ri == 0 && k.ct == SCI_CT_NONE) {
        for (unsigned c = 0; c < k.nc; c++) {
          if (c == lrc[p][2])
            continue;
          d = j2kt_peak_diff (&im, &on_im, (int) c, NULL);
          long dc = 0;
          for (size_t s = 0; s < (size_t) im.w[c] * im.h[c]; s++)
            dc |= im.s[c][s] != on_im.s[c][s];
          snprintf (what, sizeof what, "%s: packet %zu emptied: component %u "
              "unchanged", k.label, p, c);
          check (d >= 0 && dc == 0, what);
        }
        kept++;
      }
      if (ri == 0)
        j2kt_image_free (&im);
      unsigned red = R - lrc[p][1];
      if (lrc[p][1] > 0) {
        j2kt_image a, b;
        int ra = j2kt_decode_ours (mod, n, red, 0, &a, NULL, err, sizeof err);
        int rb = j2kt_decode_ours (cs, len, red, 0, &b, NULL, err, sizeof err);
        d = ra == 0 && rb == 0 ? j2kt_peak_diff (&a, &b, -1, NULL) : -2;
        snprintf (what, sizeof what, "%s: packet %zu emptied: reduce %u as "
            "before (%d %d: peak difference %ld)", k.label, p, red, ra, rb, d);
        check (d == 0, what);
        if (ra == 0)
          j2kt_image_free (&a);
        if (rb == 0)
          j2kt_image_free (&b);
      }
      emptied++;
      free (mod);
    }
    printf ("%-28s %6zu bytes, %zu of PLT in %u segment(s), %u packets "
        "emptied\n", k.label, len, t.plt_bytes, t.segs, emptied);
    (void) kept;
    free (lrc);
    if (r == 0)
      j2kt_image_free (&on_im);
    if (r0 == 0)
      j2kt_image_free (&off_im);
    j2kt_plt_free (&t);
    free (cs);
    free (cs0);
    j2kt_image_free (&src);
  }
}

static void
test_external (void)
{
  for (size_t i = 0; i < sizeof ext_cases / sizeof ext_cases[0]; i++) {
    const ext_case *k = &ext_cases[i];
    if (!wanted (k->label))
      continue;
    int have = !strcmp (k->tool, "opj") ? have_opj : !strcmp (k->tool,
        "grk") ? have_grk : have_ojph;
    if (!have || !have_opj) {
      printf ("%-28s skipped (no %s)\n", k->label, have ? "opj_decompress" :
          k->tool);
      continue;
    }
    char what[1024], src[600], cs[600], log[600], err[300];
    unsigned w[4], h[4];
    for (unsigned c = 0; c < k->nc; c++) {
      w[c] = (k->w + k->dx[c] - 1) / k->dx[c];
      h[c] = (k->h + k->dy[c] - 1) / k->dy[c];
    }
    j2kt_image im;
    make_image (&im, k->nc, w, h, k->depth, k->sgn, 1000 + i);
    snprintf (log, sizeof log, "%s/%s.log", tmp, k->label);
    snprintf (cs, sizeof cs, "%s/%s.%s", tmp, k->label,
        strcmp (k->tool, "ojph") ? "j2k" : "j2c");
    int rc;
    if (!strcmp (k->tool, "ojph")) {
      if (k->pnm) {
        snprintf (src, sizeof src, "%s/%s.%s", tmp, k->label,
            k->nc == 1 ? "pgm" : "ppm");
        write_pnm (src, &im);
        rc = j2kt_run (log, 60, "ojph_compress -i %s -o %s %s", src, cs,
            k->args);
      } else {
        snprintf (src, sizeof src, "%s/%s.yuv", tmp, k->label);
        write_raw (src, &im, 1);
        rc = j2kt_run (log, 60, "ojph_compress -i %s -o %s -dims {%u,%u} "
            "-num_comps 1 -signed %s -bit_depth %u -downsamp {%u,%u} %s", src,
            cs, k->w, k->h, k->sgn ? "true" : "false", k->depth, k->dx[0],
            k->dy[0], k->args);
      }
    } else {
      const char *exe = !strcmp (k->tool, "opj") ? "opj_compress" :
          "grk_compress";
      if (k->pnm == 2) {
        snprintf (src, sizeof src, "%s/%s.pgx", tmp, k->label);
        j2kt_write_pgx (src, im.s[0], im.w[0], im.h[0], k->depth, k->sgn);
        rc = j2kt_run (log, 60, "%s -i %s -o %s %s", exe, src, cs, k->args);
      } else if (k->pnm) {
        snprintf (src, sizeof src, "%s/%s.%s", tmp, k->label,
            k->nc == 1 ? "pgm" : "ppm");
        write_pnm (src, &im);
        rc = j2kt_run (log, 60, "%s -i %s -o %s %s", exe, src, cs, k->args);
      } else {
        snprintf (src, sizeof src, "%s/%s.raw", tmp, k->label);
        write_raw (src, &im, 0);
        rc = j2kt_run (log, 60, "%s -i %s -o %s -F %u,%u,%u,%u,%c%s %s", exe,
            src, cs, k->w, k->h, k->nc, k->depth, k->sgn ? 's' : 'u', k->sub,
            k->args);
      }
    }
    snprintf (what, sizeof what, "%s: %s_compress codes it (see %s)",
        k->label, k->tool, log);
    check (rc == 0, what);
    if (rc) {
      j2kt_image_free (&im);
      continue;
    }
    size_t len;
    uint8_t *buf = j2kt_slurp (cs, &len);
    j2kt_image ours, ref;
    unsigned warnings = 0;
    int r = j2kt_decode_ours (buf, len, k->reduce, k->layers, &ours,
        &warnings, err, sizeof err);
    snprintf (what, sizeof what, "%s: decodes (%d: %s)", k->label, r, err);
    check (r == 0 && warnings == 0, what);
    int sub = 0;
    for (unsigned c = 0; c < k->nc; c++)
      sub |= k->dx[c] != 1 || k->dy[c] != 1;
    int ro;
    if (k->ref_ojph)
      ro = decode_ojph_pgm (cs, &ref);
    else
      ro = j2kt_decode_opj (tmp, cs, k->nc, sub, k->reduce, k->layers, &ref);
    snprintf (what, sizeof what, "%s: %s decodes it", k->label,
        k->ref_ojph ? "ojph_expand" : "opj_decompress");
    check (ro == 0, what);
    const char *verdict = "FAILED";
    char detail[200] = "";
    if (r == 0 && ro == 0) {
      long d = j2kt_peak_diff (&ref, &ours, -1, NULL);
      if (!k->lossy) {
        snprintf (what, sizeof what, "%s: as opj_decompress (peak "
            "difference %ld)", k->label, d);
        check (d == 0, what);
        long ds = k->vs_source ? j2kt_peak_diff (&im, &ours, -1, NULL) : 0;
        snprintf (what, sizeof what, "%s: lossless (peak difference %ld)",
            k->label, ds);
        check (ds == 0, what);
        if (d == 0 && ds == 0)
          verdict = "ok";
        snprintf (detail, sizeof detail, "exact");
      } else {
        snprintf (what, sizeof what, "%s: within 1 of opj_decompress "
            "(peak difference %ld)", k->label, d);
        check (d >= 0 && d <= 1, what);
        int ok = d >= 0 && d <= 1;
        if (k->vs_source) {
          double po = j2kt_psnr (&im, &ours), pr = j2kt_psnr (&im, &ref);
          snprintf (what, sizeof what, "%s: PSNR %.3f dB, opj_decompress "
              "%.3f dB", k->label, po, pr);
          check (fabs (po - pr) <= 0.01, what);
          ok = ok && fabs (po - pr) <= 0.01;
          snprintf (detail, sizeof detail, "PSNR %.3f dB (opj %.3f), peak "
              "difference %ld", po, pr, d);
        } else {
          snprintf (detail, sizeof detail, "peak difference %ld", d);
        }
        if (ok)
          verdict = "ok";
      }
    }
    printf ("%-28s %6zu bytes  %s %s\n", k->label, len, verdict, detail);
    free (buf);
    j2kt_image_free (&im);
    j2kt_image_free (&ours);
    j2kt_image_free (&ref);
  }
}

/* ROI (RGN maxshift): opj_compress's stream decodes to the source, as
 * grk_decompress decodes it.  (OpenJPEG 2.5.0's own decoder does not: it
 * tests the ROI threshold against its doubled coefficients, so it is not
 * the reference here.) */
static void
test_roi (void)
{
  if (!wanted ("roi") || !have_opj)
    return;
  for (unsigned u = 3; u <= 9; u += 6) {
    char label[64], src[600], cs[600], log[600], what[512], err[300];
    snprintf (label, sizeof label, "opj-roi-shift%u", u);
    unsigned w[3] = { 64, 64, 64 }, h[3] = { 48, 48, 48 };
    j2kt_image im, out;
    make_image (&im, 3, w, h, 8, 0, 77 + u);
    snprintf (src, sizeof src, "%s/%s.raw", tmp, label);
    snprintf (cs, sizeof cs, "%s/%s.j2k", tmp, label);
    snprintf (log, sizeof log, "%s/%s.log", tmp, label);
    write_raw (src, &im, 0);
    int rc = j2kt_run (log, 60, "opj_compress -i %s -o %s -F 64,48,3,8,u "
        "-ROI c=1,U=%u -n 3", src, cs, u);
    check (rc == 0, label);
    size_t len;
    uint8_t *buf = j2kt_slurp (cs, &len);
    int r = buf ? j2kt_decode_ours (buf, len, 0, 0, &out, NULL, err,
        sizeof err) : -1;
    long d = r == 0 ? j2kt_peak_diff (&im, &out, -1, NULL) : -1;
    snprintf (what, sizeof what, "%s: lossless (%d %s, peak difference %ld)",
        label, r, err, d);
    check (d == 0, what);
    printf ("%-28s %6zu bytes  %s\n", label, buf ? len : 0,
        d == 0 ? "ok" : "FAILED");
    if (have_grk && buf) {
      char base[600], p[700];
      j2kt_image g;
      memset (&g, 0, sizeof g);
      snprintf (base, sizeof base, "%s/%s-grk", tmp, label);
      rc = j2kt_run (log, 60, "grk_decompress -i %s -o %s.pgx", cs, base);
      int ok = rc == 0;
      for (unsigned c = 0; c < 3 && ok; c++) {
        snprintf (p, sizeof p, "%s_%u.pgx", base, c);
        ok = j2kt_read_pgx (p, &g.s[c], &g.w[c], &g.h[c], &g.depth[c],
            &g.sgn[c]) == 0;
        g.nc = c + 1;
      }
      d = ok && r == 0 ? j2kt_peak_diff (&g, &out, -1, NULL) : -1;
      snprintf (what, sizeof what, "%s: as grk_decompress (peak difference "
          "%ld)", label, d);
      check (d == 0, what);
      j2kt_image_free (&g);
    }
    free (buf);
    j2kt_image_free (&im);
    j2kt_image_free (&out);
  }
}

/* ---- HT sets and placeholder passes -------------------------------------- */

/* A 16 x 16 8-bit image, no DWT (N_L = 0), one HT code-block, two layers,
 * written here with packet headers made by hand (T.814's length rules):
 *   sets:  layer 0 holds an HT set whose cleanup codes plane 1 with its
 *          SigProp and MagRef passes (plane 0), layer 1 a second HT set
 *          whose cleanup codes plane 0: the decoder must take the last set
 *          (its plane one lower than the first: the three passes before it
 *          count as a missing MSB);
 *   placeholders: layer 0 holds three placeholder passes and the cleanup of
 *          plane 1 under one length field, layer 1 its SigProp and MagRef.
 * With one layer each decodes to what the block decoder makes of the first
 * set, reconstructed at the middle of the interval where a plane is
 * missing. */
static size_t
put_marker (uint8_t * b, size_t at, unsigned m, const uint8_t * p, size_t n)
{
  b[at] = 0xFF;
  b[at + 1] = (uint8_t) m;
  b[at + 2] = (uint8_t) ((n + 2) >> 8);
  b[at + 3] = (uint8_t) (n + 2);
  memcpy (b + at + 4, p, n);
  return at + 4 + n;
}

/* One packet of the single block: the header (first inclusion with zero
 * bit-planes z, or inclusion bit), passes, Lblock grown to fit the lengths,
 * the lengths with their bit counts, then the bodies. */
static size_t
put_packet (uint8_t * b, size_t at, int first, unsigned z, unsigned passes,
    unsigned *lblock, const size_t *len, const unsigned *extra, unsigned n,
    const uint8_t * const *body)
{
  uint8_t hdr[64];
  sci_t2_bits bits;
  sci_t2_bits_init (&bits, hdr, sizeof hdr);
  sci_t2_bits_put (&bits, 1, 1);        /* not empty */
  if (first) {
    sci_t2_bits_put (&bits, 1, 1);      /* included now (tag tree: 0 < 1) */
    sci_t2_bits_run (&bits, 0, z);      /* zero bit-planes: z, one node */
    sci_t2_bits_put (&bits, 1, 1);
  } else {
    sci_t2_bits_put (&bits, 1, 1);
  }
  if (passes == 1)
    sci_t2_bits_put (&bits, 0, 1);
  else if (passes == 2)
    sci_t2_bits_put (&bits, 2, 2);
  else
    sci_t2_bits_put (&bits, 0xC | (passes - 3), 4);
  unsigned need = *lblock;
  for (unsigned i = 0; i < n; i++) {
    unsigned nb = 0;
    while (len[i] >> nb)
      nb++;
    while (need + extra[i] < nb)
      need++;
  }
  sci_t2_bits_run (&bits, 1, need - *lblock);
  sci_t2_bits_put (&bits, 0, 1);
  *lblock = need;
  for (unsigned i = 0; i < n; i++)
    sci_t2_bits_put (&bits, len[i], need + extra[i]);
  size_t hl = sci_t2_bits_finish (&bits);
  memcpy (b + at, hdr, hl);
  at += hl;
  for (unsigned i = 0; i < n; i++) {
    memcpy (b + at, body[i], len[i]);
    at += len[i];
  }
  return at;
}

static void
test_ht_sets (void)
{
  if (!wanted ("ht-sets"))
    return;
  unsigned fails = check_failed;
  sci_ht_enc_tables et;
  sci_ht_dec_tables dt;
  check (sci_ht_enc_tables_init (&et) == 0 && sci_ht_dec_tables_init (&dt)
      == 0, "HT tables");
  rng_state = 99;
  uint32_t sm[256];
  int32_t src[256];
  for (unsigned i = 0; i < 256; i++) {
    src[i] = (int32_t) (rng () % 256);
    int32_t q = src[i] - 128;
    sm[i] = q < 0 ? SCI_HT_SIGN | (uint32_t) - q : (uint32_t) q;
  }
  const unsigned mb = 8;        /* guard 1 + exponent 8 - 1 */
  uint8_t a[4096], bset[4096];
  sci_ht_ref_lengths la;
  long na = sci_ht_encode_block_ref (&et, sm, 16, 16, 16, 1, 0, a, sizeof a,
      &la);
  long nbb = sci_ht_encode_block (&et, sm, 16, 16, 16, bset, sizeof bset);
  check (na > 0 && nbb > 0, "HT sets: blocks coded");
  /* what the first set decodes to, with 1 and 3 passes */
  uint32_t d1[256], d3[256];
  sci_ht_dec_params prm = { 16, 16, mb, mb - 2, 1, 0 };
  sci_ht_decode_block (&dt, a, la.cup, NULL, 0, &prm, d1, 16);
  prm.passes = 3;
  sci_ht_decode_block (&dt, a, la.cup, a + la.cup, la.ref, &prm, d3, 16);
  for (int variant = 0; variant < 2; variant++) {
    uint8_t cs[16384];
    size_t at = 0;
    cs[at++] = 0xFF;
    cs[at++] = 0x4F;
    uint8_t siz[39] = { 0x40, 0, 0, 0, 0, 16, 0, 0, 0, 16 };
    siz[21] = 16;               /* XTsiz */
    siz[25] = 16;               /* YTsiz */
    siz[35] = 1;                /* Csiz */
    siz[36] = 7;                /* 8 bits unsigned */
    siz[37] = 1;
    siz[38] = 1;
    at = put_marker (cs, at, 0x51, siz, sizeof siz);
    const uint8_t cap[6] = { 0, 2, 0, 0, 0, 0 };
    at = put_marker (cs, at, 0x50, cap, sizeof cap);
    const uint8_t cod[10] = { 0, 0, 0, 2, 0, 0, 2, 2, 0x40, 1 };
    at = put_marker (cs, at, 0x52, cod, sizeof cod);
    const uint8_t qcd[2] = { 0x20, 8 << 3 };
    at = put_marker (cs, at, 0x5C, qcd, sizeof qcd);
    size_t sot = at;
    const uint8_t sotp[8] = { 0 };
    at = put_marker (cs, at, 0x90, sotp, sizeof sotp);
    cs[at++] = 0xFF;
    cs[at++] = 0x93;
    unsigned lblock = 3;
    if (variant == 0) {
      /* set A: Z = mb - 2 (cleanup at plane 1), three passes */
      size_t l0[2] = { la.cup, la.ref };
      unsigned e0[2] = { 0, 1 };
      const uint8_t *b0[2] = { a, a + la.cup };
      at = put_packet (cs, at, 1, mb - 2, 3, &lblock, l0, e0, 2, b0);
      /* set B: one more cleanup pass, plane 0 */
      size_t l1[1] = { (size_t) nbb };
      unsigned e1[1] = { 0 };
      const uint8_t *b1[1] = { bset };
      at = put_packet (cs, at, 0, 0, 1, &lblock, l1, e1, 1, b1);
    } else {
      /* three placeholder passes and the cleanup of plane 1 under one
       * length field of Lblock + floor(log2 4) bits: Z = mb - 3 */
      size_t l0[1] = { la.cup };
      unsigned e0[1] = { 2 };
      const uint8_t *b0[1] = { a };
      at = put_packet (cs, at, 1, mb - 3, 4, &lblock, l0, e0, 1, b0);
      size_t l1[1] = { la.ref };
      unsigned e1[1] = { 1 };
      const uint8_t *b1[1] = { a + la.cup };
      at = put_packet (cs, at, 0, 0, 2, &lblock, l1, e1, 1, b1);
    }
    uint32_t psot = (uint32_t) (at - sot);
    cs[sot + 6] = (uint8_t) (psot >> 24);
    cs[sot + 7] = (uint8_t) (psot >> 16);
    cs[sot + 8] = (uint8_t) (psot >> 8);
    cs[sot + 9] = (uint8_t) psot;
    cs[at++] = 0xFF;
    cs[at++] = 0xD9;
    char path[700];
    snprintf (path, sizeof path, "%s/ht-%s.j2c", tmp,
        variant ? "placeholders" : "sets");
    j2kt_write_file (path, cs, at);
    for (unsigned layers = 1; layers <= 2; layers++) {
      j2kt_image out;
      unsigned warnings = 0;
      char err[300], what[400];
      int r = j2kt_decode_ours (cs, at, 0, layers == 2 ? 0 : 1, &out,
          &warnings, err, sizeof err);
      long bad = r == 0 ? 0 : -1;
      for (unsigned i = 0; r == 0 && i < 256; i++) {
        int32_t want;
        if (layers == 2) {
          want = src[i];
        } else {
          /* variant 0: set A, three passes: known to plane 0; variant 1:
           * its cleanup only: known to plane 1, the middle of the pair */
          uint32_t m = (variant == 0 ? d3[i] : d1[i]) & ~SCI_HT_SIGN;
          uint32_t s = (variant == 0 ? d3[i] : d1[i]) & SCI_HT_SIGN;
          if (m && variant == 1)
            m += 1;
          want = (s ? -(int32_t) m : (int32_t) m) + 128;
          want = want < 0 ? 0 : want > 255 ? 255 : want;        /* clamped */
        }
        if (out.s[0][i] != want) {
          if (getenv ("J2KT_VERBOSE"))
            printf ("  sample %u: %d, expected %d (source %d)\n", i,
                out.s[0][i], want, src[i]);
          bad++;
        }
      }
      snprintf (what, sizeof what, "HT %s, %u layer%s: %ld samples differ "
          "(%d, %u warnings: %s)", variant ? "placeholder passes" :
          "two HT sets", layers, layers > 1 ? "s" : "", bad, r, warnings, err);
      check (bad == 0 && warnings == 0, what);
      j2kt_image_free (&out);
    }
  }
  printf ("ht-sets: %s\n", check_failed == fails ? "ok" : "FAILED");
}

/* ---- files ----------------------------------------------------------------- */

static void
put32 (uint8_t * p, uint32_t v)
{
  p[0] = (uint8_t) (v >> 24);
  p[1] = (uint8_t) (v >> 16);
  p[2] = (uint8_t) (v >> 8);
  p[3] = (uint8_t) v;
}

/* A minimal JP2 file around a codestream: signature, ftyp, jp2h (ihdr,
 * colr with an enumerated space), jp2c. */
static uint8_t *
wrap_jp2 (const uint8_t * cs, size_t len, unsigned nc, uint32_t w, uint32_t h,
    uint32_t enumcs, size_t *out_len)
{
  size_t n = 12 + 20 + 8 + 22 + 15 + 8 + len;
  uint8_t *b = calloc (1, n), *p = b;
  put32 (p, 12);
  memcpy (p + 4, "jP  ", 4);
  put32 (p + 8, 0x0D0A870A);
  p += 12;
  put32 (p, 20);
  memcpy (p + 4, "ftyp", 4);
  memcpy (p + 8, "jp2 ", 4);
  put32 (p + 12, 0);
  memcpy (p + 16, "jp2 ", 4);
  p += 20;
  put32 (p, 8 + 22 + 15);
  memcpy (p + 4, "jp2h", 4);
  p += 8;
  put32 (p, 22);
  memcpy (p + 4, "ihdr", 4);
  put32 (p + 8, h);
  put32 (p + 12, w);
  p[16] = (uint8_t) (nc >> 8);
  p[17] = (uint8_t) nc;
  p[18] = 7;
  p[19] = 7;
  p += 22;
  put32 (p, 15);
  memcpy (p + 4, "colr", 4);
  p[8] = 1;
  put32 (p + 11, enumcs);
  p += 15;
  put32 (p, (uint32_t) (8 + len));
  memcpy (p + 4, "jp2c", 4);
  memcpy (p + 8, cs, len);
  *out_len = n;
  return b;
}

static void
test_files (void)
{
  if (!wanted ("files"))
    return;
  own_case k = { "files", 40, 30, 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 3,
  SCI_CT_RCT, SCI_J2K_CODER_HT
  };
  unsigned w[3] = { 40, 40, 40 }, h[3] = { 30, 30, 30 };
  j2kt_image src, out;
  make_image (&src, 3, w, h, 8, 0, 5);
  size_t len;
  uint8_t *cs = own_encode (&k, &src, &len);
  static const struct
  {
    uint32_t e;
    sci_j2k_colour c;
  } sp[] = { {16, SCI_J2K_COLOUR_SRGB}, {17, SCI_J2K_COLOUR_GREY}, {18,
      SCI_J2K_COLOUR_SYCC}, {12, SCI_J2K_COLOUR_OTHER}
  };
  for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
    size_t n;
    uint8_t *f = wrap_jp2 (cs, len, 3, 40, 30, sp[i].e, &n);
    sci_j2k_dec *d = sci_j2k_dec_new ();
    sci_j2k_info info;
    int r = sci_j2k_dec_parse (d, f, n, &info);
    char what[200];
    snprintf (what, sizeof what, "JP2 with EnumCS %u: colour %d (%d %s)",
        sp[i].e, info.colour, r, sci_j2k_dec_error (d));
    check (r == 0 && info.file && !info.jph && info.colour == sp[i].c, what);
    sci_j2k_dec_free (d);
    r = j2kt_decode_ours (f, n, 0, 0, &out, NULL, NULL, 0);
    check (r == 0 && j2kt_peak_diff (&src, &out, -1, NULL) == 0,
        "JP2 decodes to the source");
    j2kt_image_free (&out);
    free (f);
  }
  /* JPH from our encoder */
  k.jph = 1;
  free (cs);
  cs = own_encode (&k, &src, &len);
  sci_j2k_dec *d = sci_j2k_dec_new ();
  sci_j2k_info info;
  int r = sci_j2k_dec_parse (d, cs, len, &info);
  check (r == 0 && info.file && info.jph, "JPH file parsed");
  sci_j2k_dec_free (d);
  r = j2kt_decode_ours (cs, len, 0, 0, &out, NULL, NULL, 0);
  check (r == 0 && j2kt_peak_diff (&src, &out, -1, NULL) == 0,
      "JPH decodes to the source");
  j2kt_image_free (&out);
  /* opj_compress's JP2 */
  if (have_opj) {
    char p[600], q[600];
    snprintf (p, sizeof p, "%s/files.raw", tmp);
    snprintf (q, sizeof q, "%s/files.jp2", tmp);
    write_raw (p, &src, 0);
    int rc = j2kt_run (NULL, 60, "opj_compress -i %s -o %s -F 40,30,3,8,u "
        "-n 3", p, q);
    size_t n;
    uint8_t *f = rc == 0 ? j2kt_slurp (q, &n) : NULL;
    d = sci_j2k_dec_new ();
    r = f ? sci_j2k_dec_parse (d, f, n, &info) : -1;
    check (r == 0 && info.file && info.colour == SCI_J2K_COLOUR_SRGB,
        "opj_compress JP2: sRGB");
    sci_j2k_dec_free (d);
    r = f ? j2kt_decode_ours (f, n, 0, 0, &out, NULL, NULL, 0) : -1;
    check (r == 0 && j2kt_peak_diff (&src, &out, -1, NULL) == 0,
        "opj_compress JP2 decodes to the source");
    j2kt_image_free (&out);
    free (f);
  }
  printf ("files: done\n");
  free (cs);
  j2kt_image_free (&src);
}

/* ---- refusals and damage --------------------------------------------------- */

/* The offset of the first marker m in the main header, or 0. */
static size_t
find_marker (const uint8_t * b, size_t len, unsigned m)
{
  size_t pos = 2;
  while (pos + 4 <= len) {
    unsigned mk = (unsigned) b[pos] << 8 | b[pos + 1];
    if (mk == m)
      return pos;
    if (mk == 0xFF90)
      return 0;
    pos += 2 + ((size_t) b[pos + 2] << 8 | b[pos + 3]);
  }
  return 0;
}

static void
count_warning (void *user, size_t offset, const char *msg)
{
  (*(unsigned *) user)++;
}

static int
parse_result (const uint8_t * b, size_t len, char *msg, size_t cap, size_t *off)
{
  sci_j2k_dec *d = sci_j2k_dec_new ();
  sci_j2k_info info;
  int r = sci_j2k_dec_parse (d, b, len, &info);
  snprintf (msg, cap, "%s", sci_j2k_dec_error (d));
  if (off)
    *off = sci_j2k_dec_error_offset (d);
  sci_j2k_dec_free (d);
  return r;
}

/* Refs mode (sci_j2k_dec_set_refs, for the GPU backend): the same blocks
 * and segments as the normal mode, no arena, and the pieces laid end to
 * end from each block's offset give the normal mode's arena bytes. */
static void
test_refs_mode (void)
{
  if (!wanted ("refs"))
    return;
  static const own_case cases[] = {
    {"refs-p1-layers", 61, 45, 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 3,
        SCI_CT_RCT, SCI_J2K_CODER_PART1, 4, 4, SCI_J2K_LRCP, 4, 0x04},
    {"refs-ht", 77, 38, 1, 12, {1}, {1}, SCI_DWT_97, 4, SCI_CT_NONE,
        SCI_J2K_CODER_HT, 5, 5},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const own_case *c = &cases[k];
    unsigned w[3] = { c->w, c->w, c->w }, h[3] = { c->h, c->h, c->h };
    j2kt_image src;
    make_image (&src, c->nc, w, h, c->depth, 0, 31 + k);
    size_t len;
    uint8_t *cs = own_encode (c, &src, &len);
    char what[256];
    snprintf (what, sizeof what, "%s: our encoder codes it", c->label);
    check (cs != NULL, what);
    if (!cs) {
      j2kt_image_free (&src);
      continue;
    }
    sci_j2k_dec *a = sci_j2k_dec_new (), *b = sci_j2k_dec_new ();
    sci_j2k_info info;
    sci_j2k_decode_params p = { 0, 0 };
    sci_j2k_tile_blocks ta, tr;
    int ok = !sci_j2k_dec_parse (a, cs, len, &info) &&
        !sci_j2k_dec_parse (b, cs, len, &info);
    sci_j2k_dec_set_refs (b, 1);
    ok = ok && !sci_j2k_dec_tile_blocks (a, 0, &p, &ta) &&
        !sci_j2k_dec_tile_blocks (b, 0, &p, &tr);
    snprintf (what, sizeof what, "%s: tier-2 in both modes", c->label);
    check (ok, what);
    if (ok) {
      size_t bad = 0, pieces = 0;
      int same = ta.nblocks == tr.nblocks && ta.nblocks > 0 && !tr.arena &&
          tr.refs && tr.ref_first && ta.arena && !ta.refs;
      for (size_t i = 0; same && i < ta.nblocks; i++) {
        const sci_j2k_block *x = &ta.blocks[i], *y = &tr.blocks[i];
        if (x->off != y->off || x->len != y->len || x->passes != y->passes ||
            x->zbp != y->zbp || x->nseg != y->nseg || x->cup != y->cup ||
            x->lcup != y->lcup || x->lref != y->lref || x->src != y->src) {
          bad++;
          continue;
        }
        for (uint32_t s = 0; s < x->nseg; s++)
          if (ta.seg_end[x->first_seg + s] != tr.seg_end[y->first_seg + s] ||
              ta.seg_pass[x->first_seg + s] != tr.seg_pass[y->first_seg + s])
            bad++;
        size_t at = y->off;
        for (uint32_t r = tr.ref_first[i]; r < tr.ref_first[i + 1]; r++) {
          const sci_j2k_block_ref *ref = &tr.refs[r];
          if (ref->src + ref->len > len ||
              memcmp (cs + ref->src, ta.arena + at, ref->len))
            bad++;
          at += ref->len;
          pieces++;
        }
        if (at != x->off + x->len)
          bad++;
      }
      snprintf (what, sizeof what, "%s: %zu blocks, %zu pieces: the same "
          "blocks, and the pieces are the arena's bytes (%zu bad)", c->label,
          ta.nblocks, pieces, bad);
      check (same && bad == 0, what);
    }
    /* a decode after refs mode is the normal one */
    j2kt_image o1;
    memset (&o1, 0, sizeof o1);
    int r1 = j2kt_decode_ours (cs, len, 0, 0, &o1, NULL, NULL, 0);
    unsigned nc = info.components;
    sci_j2k_plane pl[3];
    uint16_t *buf = malloc ((size_t) c->w * c->h * 2 * nc);
    for (unsigned q = 0; q < nc; q++) {
      pl[q].data = buf + (size_t) c->w * c->h * q;
      pl[q].stride = c->w;
      pl[q].bytes = 2;
    }
    int r2 = sci_j2k_dec_decode (b, &p, pl);
    int eq = !r1 && !r2;
    for (unsigned q = 0; eq && q < nc; q++)
      for (size_t i = 0; i < (size_t) c->w * c->h; i++)
        if (o1.s[q][i] != buf[(size_t) q * c->w * c->h + i])
          eq = 0;
    snprintf (what, sizeof what, "%s: sci_j2k_dec_decode after refs mode "
        "decodes as usual", c->label);
    check (eq, what);
    free (buf);
    j2kt_image_free (&o1);
    sci_j2k_dec_free (a);
    sci_j2k_dec_free (b);
    free (cs);
    j2kt_image_free (&src);
  }
}

/* ---- the split: low resolutions handed out before tier-2 ends ------------ */

/* A block as the split test compares it: where it is, what tier-2 found,
 * and its bytes. */
typedef struct
{
  sci_j2k_block blk;            /* its off and first_seg are its list's */
  uint32_t seg[64];
  uint8_t *bytes;
} split_block;

typedef struct
{
  split_block *b;
  size_t n, cap;
  const uint8_t *cs;
  size_t len;
  unsigned res, calls, asks, bad_res;
  size_t handed, rest_bytes, rest_blocks;
  int take;
} split_list;

static void
split_add (split_list * l, const sci_j2k_tile_blocks * tb, const uint8_t * cs)
{
  for (size_t i = 0; i < tb->nblocks; i++) {
    const sci_j2k_block *x = &tb->blocks[i];
    if (l->n == l->cap) {
      l->cap = l->cap ? 2 * l->cap : 64;
      l->b = realloc (l->b, l->cap * sizeof *l->b);
    }
    split_block *o = &l->b[l->n++];
    memset (o, 0, sizeof *o);
    o->blk = *x;
    for (uint32_t k = 0; k < x->nseg && k < 64; k++)
      o->seg[k] = tb->seg_end[x->first_seg + k] |
          (uint32_t) tb->seg_pass[x->first_seg + k] << 24;
    o->bytes = malloc (x->len + 1);
    if (tb->refs) {
      size_t at = 0;
      for (uint32_t r = tb->ref_first[i]; r < tb->ref_first[i + 1]; r++) {
        memcpy (o->bytes + at, cs + tb->refs[r].src, tb->refs[r].len);
        at += tb->refs[r].len;
      }
    } else {
      memcpy (o->bytes, tb->arena + x->off, x->len);
    }
  }
}

static void
split_list_free (split_list * l)
{
  for (size_t i = 0; i < l->n; i++)
    free (l->b[i].bytes);
  free (l->b);
}

static int
split_fn (void *user, const sci_j2k_tile_blocks * part,
    const sci_j2k_split_rest * rest)
{
  split_list *l = user;
  if (!part) {
    l->asks++;
    return l->take;
  }
  l->calls++;
  l->rest_bytes = rest->bytes;
  l->rest_blocks = rest->blocks;
  for (size_t i = 0; i < part->nblocks; i++)
    if (part->bands[part->blocks[i].band].res >= l->res)
      l->bad_res++;
  l->handed += part->nblocks;
  /* blocks not taken come again */
  if (l->take)
    split_add (l, part, l->cs);
  return l->take;
}

/* How many of a's blocks are not in b, the same in every field and byte
 * (and b has no others). */
static size_t
split_differ (const split_list * a, const split_list * b)
{
  size_t bad = a->n > b->n ? a->n - b->n : b->n - a->n;
  for (size_t i = 0; i < a->n; i++) {
    const sci_j2k_block *x = &a->b[i].blk;
    size_t j = 0;
    while (j < b->n && (b->b[j].blk.band != x->band ||
            b->b[j].blk.x0 != x->x0 || b->b[j].blk.y0 != x->y0))
      j++;
    if (j == b->n) {
      bad++;
      continue;
    }
    /* the same but for where the lists put it (off, first_seg) */
    const sci_j2k_block *y = &b->b[j].blk;
    if (x->x1 != y->x1 || x->y1 != y->y1 || x->px != y->px ||
        x->py != y->py || x->ht != y->ht || x->style != y->style ||
        x->zbp != y->zbp || x->passes != y->passes || x->len != y->len ||
        x->src != y->src || x->nseg != y->nseg || x->cup != y->cup ||
        x->lcup != y->lcup || x->lref != y->lref ||
        memcmp (a->b[i].seg, b->b[j].seg, sizeof a->b[i].seg) ||
        memcmp (a->b[i].bytes, b->b[j].bytes, x->len))
      bad++;
  }
  return bad;
}

static void
test_split (void)
{
  if (!wanted ("split"))
    return;
  /* expect: the split's function runs (resolution-major, no POC) */
  static const struct
  {
    own_case k;
    unsigned reduce, refs, take, threads, expect;
    double cut;                 /* keep this share of the codestream */
  } cases[] = {
    {{"split-ht-rpcl", 97, 61, 3, 12, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 4,
            SCI_CT_RCT, SCI_J2K_CODER_HT, 4, 4, SCI_J2K_RPCL}, 0, 1, 1, 0, 1,
        1},
    {{"split-ht-rlcp", 80, 50, 1, 10, {1}, {1}, SCI_DWT_97, 3, SCI_CT_NONE,
            SCI_J2K_CODER_HT, 4, 4, SCI_J2K_RLCP}, 0, 1, 1, 0, 1, 1},
    {{"split-p1-rlcp-layers", 80, 50, 1, 10, {1}, {1}, SCI_DWT_97, 3,
            SCI_CT_NONE, SCI_J2K_CODER_PART1, 4, 4, SCI_J2K_RLCP, 3}, 0, 1,
        1, 0, 1, 1},
    {{"split-p1-rpcl-layers-styles", 70, 45, 3, 8, {1, 1, 1}, {1, 1, 1},
            SCI_DWT_53, 3, SCI_CT_RCT, SCI_J2K_CODER_PART1, 4, 4,
            SCI_J2K_RPCL, 2, 0x05}, 0, 0, 1, 0, 1, 1},
    {{"split-ht-rpcl-reduce1", 90, 70, 1, 8, {1}, {1}, SCI_DWT_53, 3,
            SCI_CT_NONE, SCI_J2K_CODER_HT, 4, 5, SCI_J2K_RPCL}, 1, 1, 1, 0, 1,
        1},
    {{"split-ht-rpcl-not-taken", 64, 64, 1, 8, {1}, {1}, SCI_DWT_53, 3,
            SCI_CT_NONE, SCI_J2K_CODER_HT, 4, 4, SCI_J2K_RPCL}, 0, 1, 0, 0, 1,
        1},
    {{"split-ht-rpcl-plt-pool", 77, 41, 3, 8, {1, 1, 1}, {1, 1, 1},
            SCI_DWT_53, 3, SCI_CT_RCT, SCI_J2K_CODER_HT, 4, 4, SCI_J2K_RPCL,
            1, 0, 0, 1}, 0, 1, 1, 2, 1, 1},
    {{"split-p1-rlcp-layers-plt-pool", 90, 50, 3, 8, {1, 1, 1}, {1, 1, 1},
            SCI_DWT_53, 3, SCI_CT_RCT, SCI_J2K_CODER_PART1, 4, 4,
            SCI_J2K_RLCP, 3, 0, 0, 1}, 0, 0, 1, 2, 1, 1},
    {{"split-ht-rpcl-plt-pool-not-taken", 77, 41, 1, 8, {1}, {1},
            SCI_DWT_53, 3, SCI_CT_NONE, SCI_J2K_CODER_HT, 4, 4, SCI_J2K_RPCL,
            1, 0, 0, 1}, 1, 1, 0, 2, 0, 1},
    {{"split-ht-rpcl-plt-pool-truncated", 97, 61, 3, 12, {1, 1, 1},
            {1, 1, 1}, SCI_DWT_53, 4, SCI_CT_RCT, SCI_J2K_CODER_HT, 4, 4,
            SCI_J2K_RPCL, 1, 0, 0, 1}, 0, 1, 1, 2, 1, 0.7},
    {{"split-ht-rpcl-truncated", 97, 61, 3, 12, {1, 1, 1}, {1, 1, 1},
            SCI_DWT_53, 4, SCI_CT_RCT, SCI_J2K_CODER_HT, 4, 4, SCI_J2K_RPCL},
        0, 1, 1, 0, 1, 0.6},
    {{"split-p1-lrcp-layers", 60, 40, 1, 8, {1}, {1}, SCI_DWT_53, 3,
            SCI_CT_NONE, SCI_J2K_CODER_PART1, 4, 4, SCI_J2K_LRCP, 2}, 0, 1, 1,
        0, 0, 1},
    {{"split-p1-cprl", 60, 40, 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 3,
            SCI_CT_NONE, SCI_J2K_CODER_PART1, 4, 4, SCI_J2K_CPRL}, 0, 1, 1, 0,
        0, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const own_case *c = &cases[i].k;
    if (!wanted (c->label))
      continue;
    unsigned w[3] = { c->w, c->w, c->w }, h[3] = { c->h, c->h, c->h };
    j2kt_image src;
    make_image (&src, c->nc, w, h, c->depth, 0, 71 + i);
    size_t len;
    uint8_t *cs = own_encode (c, &src, &len);
    j2kt_image_free (&src);
    char what[400];
    snprintf (what, sizeof what, "%s: our encoder codes it", c->label);
    check (cs != NULL, what);
    if (!cs)
      continue;
    len = (size_t) (len * cases[i].cut);
    sci_pool *pool = cases[i].threads ? sci_pool_new (cases[i].threads) : NULL;
    sci_j2k_dec *a = sci_j2k_dec_new (), *b = sci_j2k_dec_new ();
    if (pool)
      sci_j2k_dec_set_pool (b, pool);
    sci_j2k_info info;
    sci_j2k_decode_params p = { cases[i].reduce, 0 };
    sci_j2k_tile_blocks ta, tb;
    split_list la = { 0 }, lb = { 0 };
    lb.cs = la.cs = cs;
    lb.len = len;
    lb.res = c->levels - cases[i].reduce;
    lb.take = (int) cases[i].take;
    int ok = !sci_j2k_dec_parse (a, cs, len, &info) &&
        !sci_j2k_dec_parse (b, cs, len, &info);
    sci_j2k_dec_set_refs (b, (int) cases[i].refs);
    sci_j2k_dec_set_split (b, lb.res, split_fn, &lb);
    ok = ok && !sci_j2k_dec_tile_blocks (a, 0, &p, &ta) &&
        !sci_j2k_dec_tile_blocks (b, 0, &p, &tb);
    snprintf (what, sizeof what, "%s: tier-2 with and without the split",
        c->label);
    check (ok, what);
    if (ok) {
      size_t before = lb.n;
      split_add (&la, &ta, cs);
      split_add (&lb, &tb, cs);
      size_t late_low = 0;
      for (size_t k = before; k < lb.n && lb.take && lb.calls; k++)
        if (ta.bands[lb.b[k].blk.band].res < lb.res)
          late_low++;
      if (cases[i].cut == 1) {
        /* on a pool with PLT it is asked first (every such case here
         * splits by resolution) */
        unsigned asks = cases[i].threads && cases[i].k.plt;
        snprintf (what, sizeof what, "%s: the split's function ran %u times "
            "(expected %u), with %zu blocks; asked %u times (expected %u)",
            c->label, lb.calls, cases[i].expect, lb.handed, lb.asks, asks);
        check (lb.calls == cases[i].expect && (!lb.calls || lb.handed > 0) &&
            lb.asks == asks, what);
      }
      /* what is left: the later blocks' bytes and more, within the
       * codestream; the later resolutions' code-blocks, those with data
       * and more */
      if (lb.calls) {
        size_t later_bytes = 0, later = 0;
        for (size_t k = 0; k < la.n; k++)
          if (ta.bands[la.b[k].blk.band].res >= lb.res) {
            later_bytes += la.b[k].blk.len;
            later++;
          }
        snprintf (what, sizeof what, "%s: left at the split %zu bytes, %zu "
            "blocks (of %zu bytes, %zu blocks with data; codestream %zu)",
            c->label, lb.rest_bytes, lb.rest_blocks, later_bytes, later, len);
        check (lb.rest_bytes >= later_bytes && lb.rest_bytes < len &&
            lb.rest_blocks >= later && lb.rest_blocks > 0, what);
      }
      size_t n = la.n, nb = lb.n;
      size_t bad = split_differ (&la, &lb);
      snprintf (what, sizeof what, "%s: %zu blocks without the split, %zu "
          "with it (%zu handed out); %zu differ, %u handed out above "
          "resolution %u, %zu below it after", c->label, n, nb, lb.handed, bad,
          lb.bad_res, lb.res, late_low);
      check (n > 0 && bad == 0 && lb.bad_res == 0 && late_low == 0, what);
      if (pool && cases[i].cut == 1) {
        snprintf (what, sizeof what, "%s: tier-2 in parallel with the split "
            "too (%u tiles in parallel)", c->label,
            sci_j2k_dec_t2_parallel (b));
        check (sci_j2k_dec_t2_parallel (b) == 1, what);
      }
    }
    split_list_free (&la);
    split_list_free (&lb);
    sci_j2k_dec_free (a);
    sci_j2k_dec_free (b);
    if (pool)
      sci_pool_free (pool);
    free (cs);
  }
}

static void
test_damage (void)
{
  if (!wanted ("damage"))
    return;
  unsigned fails = check_failed;
  /* a small multi-tile Part 1 stream with layers, made by our encoder
   * inside one tile, then tiled by opj_compress when available */
  own_case k = { "damage", 48, 40, 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 3,
  SCI_CT_RCT, SCI_J2K_CODER_PART1, 4, 4, SCI_J2K_LRCP, 3, 0x00
  };
  unsigned w[3] = { 48, 48, 48 }, h[3] = { 40, 40, 40 };
  j2kt_image src, out;
  make_image (&src, 3, w, h, 8, 0, 9);
  size_t len;
  uint8_t *cs = own_encode (&k, &src, &len);
  char msg[300], what[512];
  size_t off;

  /* Part 2 markers and values: refused by name */
  static const struct
  {
    uint8_t seg[8];
    size_t n;
    const char *name;
  } p2[] = { {{0xFF, 0x74, 0, 4, 0, 0}, 6, "MCT"},
  {{0xFF, 0x79, 0, 4, 0, 0}, 6, "ATK"},
  {{0xFF, 0x72, 0, 4, 0, 0}, 6, "DFS"},
  {{0xFF, 0x76, 0, 4, 0, 0}, 6, "NLT"},
  {{0xFF, 0x78, 0, 4, 0, 0}, 6, "CBD"}
  };
  size_t cod = find_marker (cs, len, 0xFF52);
  check (cod > 0, "our stream has COD");
  for (size_t i = 0; i < sizeof p2 / sizeof p2[0]; i++) {
    uint8_t *b = malloc (len + p2[i].n);
    memcpy (b, cs, cod);
    memcpy (b + cod, p2[i].seg, p2[i].n);
    memcpy (b + cod + p2[i].n, cs + cod, len - cod);
    int r = parse_result (b, len + p2[i].n, msg, sizeof msg, &off);
    snprintf (what, sizeof what, "Part 2 %s refused: %d \"%s\"", p2[i].name,
        r, msg);
    check (r == SCI_J2K_EUNSUPPORTED && strstr (msg, p2[i].name) &&
        off == cod, what);
    free (b);
  }
  {
    uint8_t *b = malloc (len);
    memcpy (b, cs, len);
    b[cod + 4 + 9] = 2;         /* SPcod transformation: Part 2 kernel */
    int r = parse_result (b, len, msg, sizeof msg, &off);
    snprintf (what, sizeof what, "COD transformation 2 refused: \"%s\"", msg);
    check (r == SCI_J2K_EUNSUPPORTED && strstr (msg, "Part 2") &&
        off == cod + 13, what);
    memcpy (b, cs, len);
    b[cod + 4 + 4] = 2;         /* SGcod MCT 2 */
    r = parse_result (b, len, msg, sizeof msg, &off);
    check (r == SCI_J2K_EUNSUPPORTED && strstr (msg, "Part 2"),
        "COD array-based MCT refused");
    memcpy (b, cs, len);
    b[40] = 0;                  /* SIZ Csiz = 0 */
    b[41] = 0;
    r = parse_result (b, len, msg, sizeof msg, &off);
    snprintf (what, sizeof what, "SIZ Csiz 0: \"%s\" at %zu", msg, off);
    check (r == SCI_J2K_ECORRUPT && off == 40 && strstr (msg, "byte 40"), what);
    memcpy (b, cs, len);
    b[cod + 4 + 5] = 33;        /* 33 decomposition levels */
    r = parse_result (b, len, msg, sizeof msg, &off);
    check (r == SCI_J2K_ECORRUPT && off == cod + 9, "COD: 33 levels");
    memcpy (b, cs, len);
    b[0] = 0;
    r = parse_result (b, len, msg, sizeof msg, &off);
    check (r == SCI_J2K_ECORRUPT, "no SOC");
    free (b);
  }

  /* 1x1 tiles: all but the first missing, 1919 warnings, of which the
   * callback gets the first 100 and one saying more follow */
  {
    uint8_t *b = malloc (len);
    memcpy (b, cs, len);
    memset (b + 24, 0, 8);      /* XTsiz = YTsiz = 1 */
    b[27] = 1;
    b[31] = 1;
    sci_j2k_dec *d = sci_j2k_dec_new ();
    unsigned calls = 0;
    sci_j2k_dec_set_warning_func (d, count_warning, &calls);
    sci_j2k_info info;
    int r = sci_j2k_dec_parse (d, b, len, &info);
    sci_j2k_plane pl[3];
    uint8_t px[3][48 * 40];
    for (unsigned c = 0; c < 3; c++) {
      pl[c].data = px[c];
      pl[c].stride = 48;
      pl[c].bytes = 1;
    }
    sci_j2k_decode_params p = { 0, 0 };
    if (r == 0)
      r = sci_j2k_dec_decode (d, &p, pl);
    snprintf (what, sizeof what, "1920 tiles of 1x1, one present: %d, %u "
        "warnings, %u reported", r, sci_j2k_dec_warnings (d), calls);
    check (r == 0 && info.tiles_x * info.tiles_y == 1920 &&
        sci_j2k_dec_warnings (d) >= 1919 && calls == 101, what);
    sci_j2k_dec_free (d);
    free (b);
  }

  /* 65280 tiles of 1x1 and 300 components subsampled 255x255: a tiny
   * output, but 19.6 million tile-components of work: refused */
  {
    size_t n = 2 + 2 + 38 + 3 * 300 + 14 + 8 + 14 + 2;
    uint8_t *b = calloc (1, n), *p = b;
    *p++ = 0xFF;
    *p++ = 0x4F;
    *p++ = 0xFF;
    *p++ = 0x51;
    *p++ = (uint8_t) ((38 + 900) >> 8);
    *p++ = (uint8_t) (38 + 900);
    p += 2;                     /* Rsiz */
    p[3] = 255;                 /* Xsiz */
    p[6] = 1;                   /* Ysiz = 256 */
    p[19] = 1;                  /* XTsiz */
    p[23] = 1;                  /* YTsiz */
    p += 32;
    *p++ = 300 >> 8;
    *p++ = 300 & 0xFF;
    for (unsigned c = 0; c < 300; c++) {
      *p++ = 7;
      *p++ = 255;
      *p++ = 255;
    }
    static const uint8_t cod[14] = { 0xFF, 0x52, 0, 12, 0, 0, 0, 1, 0, 0, 4,
      4, 0, 1
    };
    memcpy (p, cod, 14);
    p += 14;
    static const uint8_t qcd[8] = { 0xFF, 0x5C, 0, 4, 0x20, 0x40, 0, 0 };
    memcpy (p, qcd, 6);
    p += 6;
    static const uint8_t sot[14] = { 0xFF, 0x90, 0, 10, 0, 0, 0, 0, 0, 14,
      0, 1, 0xFF, 0x93
    };
    memcpy (p, sot, 14);
    p += 14;
    *p++ = 0xFF;
    *p++ = 0xD9;
    sci_j2k_dec *d = sci_j2k_dec_new ();
    sci_j2k_info info;
    int r = sci_j2k_dec_parse (d, b, (size_t) (p - b), &info);
    sci_j2k_plane pl[300];
    uint8_t px[300][4];
    for (unsigned c = 0; c < 300; c++) {
      pl[c].data = px[c];
      pl[c].stride = 1;
      pl[c].bytes = 1;
    }
    sci_j2k_decode_params dp = { 0, 0 };
    if (r == 0)
      r = sci_j2k_dec_decode (d, &dp, pl);
    snprintf (what, sizeof what, "65280 tiles x 300 components: %d \"%s\"",
        r, sci_j2k_dec_error (d));
    check (r == SCI_J2K_EUNSUPPORTED && info.tiles_x * info.tiles_y == 65280
        && strstr (sci_j2k_dec_error (d), "tile-components"), what);
    sci_j2k_dec_free (d);
    free (b);
  }

  /* every truncation: an error, or a decode with a warning */
  unsigned errors = 0, warned = 0, bad = 0;
  for (size_t cut = 0; cut < len; cut++) {
    unsigned warnings = 0;
    int r = j2kt_decode_ours (cs, cut, 0, 0, &out, &warnings, msg,
        sizeof msg);
    if (r)
      errors++;
    else if (warnings)
      warned++;
    else
      bad++;
    j2kt_image_free (&out);
  }
  snprintf (what, sizeof what, "truncations: %u errors, %u decoded with a "
      "warning, %u silent", errors, warned, bad);
  check (bad == 0 && warned > 0, what);
  printf ("%s\n", what);

  /* a tile missing: opj_compress with 4 tiles, the second tile's tile-part
   * cut out */
  if (have_opj) {
    char p[600], q[600];
    snprintf (p, sizeof p, "%s/damage.raw", tmp);
    snprintf (q, sizeof q, "%s/damage.j2k", tmp);
    write_raw (p, &src, 0);
    int rc = j2kt_run (NULL, 60, "opj_compress -i %s -o %s -F 48,40,3,8,u "
        "-t 24,20 -n 3 -SOP -EPH", p, q);
    size_t n;
    uint8_t *f = rc == 0 ? j2kt_slurp (q, &n) : NULL;
    check (f != NULL, "opj_compress tiles");
    if (f) {
      size_t sot[8], ns = 0;
      for (size_t i = 0; i + 12 <= n && ns < 8; i++)
        if (f[i] == 0xFF && f[i + 1] == 0x90 && f[i + 2] == 0 && f[i + 3] == 10)
          sot[ns++] = i;
      check (ns == 4, "four tile-parts");
      if (ns == 4) {
        uint8_t *g = malloc (n);
        size_t cut = sot[2] - sot[1];
        memcpy (g, f, sot[1]);
        memcpy (g + sot[1], f + sot[2], n - sot[2]);
        unsigned warnings = 0;
        int r = j2kt_decode_ours (g, n - cut, 0, 0, &out, &warnings, msg,
            sizeof msg);
        snprintf (what, sizeof what, "a missing tile: %d, %u warnings "
            "(\"%s\")", r, warnings, msg);
        check (r == 0 && warnings == 1 && strstr (msg, "tile 1"), what);
        /* the other tiles are intact */
        long d = -1;
        if (r == 0) {
          d = 0;
          for (unsigned c = 0; c < 3; c++)
            for (unsigned y = 0; y < 40; y++)
              for (unsigned x = 0; x < 48; x++) {
                if (x >= 24 && y < 20)
                  continue;
                long e = labs ((long) out.s[c][y * 48 + x] -
                    src.s[c][y * 48 + x]);
                d = e > d ? e : d;
              }
        }
        check (d == 0, "the other tiles decode exactly");
        j2kt_image_free (&out);
        /* corrupted bytes in the packets: no crash, every result
         * deterministic */
        unsigned ok = 0, err = 0;
        rng_state = 3;
        for (unsigned t = 0; t < 400; t++) {
          memcpy (g, f, n);
          size_t at = sot[0] + 14 + rng () % (n - sot[0] - 14);
          g[at] ^= (uint8_t) (1 + rng () % 255);
          int r1 = j2kt_decode_ours (g, n, 0, 0, &out, NULL, NULL, 0);
          j2kt_image out2;
          int r2 = j2kt_decode_ours (g, n, 0, 0, &out2, NULL, NULL, 0);
          if (r1 == 0 && r2 == 0 && j2kt_peak_diff (&out, &out2, -1, NULL) != 0)
            check (0, "a corrupt stream decodes the same twice");
          r1 ? err++ : ok++;
          j2kt_image_free (&out);
          j2kt_image_free (&out2);
        }
        printf ("corrupted bytes: %u decoded, %u refused\n", ok, err);
        free (g);
      }
      free (f);
    }
  }
  printf ("damage: %s\n", check_failed == fails ? "ok" : "FAILED");
  free (cs);
  j2kt_image_free (&src);
}

/* ---- speed ------------------------------------------------------------------- */

/* Wall-clock time, and this thread's CPU time: the decoder runs on one
 * thread, so on a shared machine its CPU time is what it would take
 * alone. */
static double
now (clockid_t id)
{
  struct timespec t;
  clock_gettime (id, &t);
  return (double) t.tv_sec + t.tv_nsec * 1e-9;
}

static const char *bench_out;

static void
bench (void)
{
  static const own_case cases[] = {
    {"4K 4:4:4 12-bit lossless HT", 3840, 2160, 3, 12, {1, 1, 1}, {1, 1, 1},
        SCI_DWT_53, 5, SCI_CT_RCT, SCI_J2K_CODER_HT},
    {"4K 4:4:4 12-bit lossless Part 1", 3840, 2160, 3, 12, {1, 1, 1}, {1, 1,
            1}, SCI_DWT_53, 5, SCI_CT_RCT, SCI_J2K_CODER_PART1},
  };
  for (size_t i = 0; i < 2; i++) {
    const own_case *k = &cases[i];
    unsigned w[3] = { k->w, k->w, k->w }, h[3] = { k->h, k->h, k->h };
    j2kt_image src;
    make_image (&src, 3, w, h, 12, 0, 42);
    size_t len;
    uint8_t *cs = own_encode (k, &src, &len);
    if (!cs) {
      printf ("%s: encoder failed\n", k->label);
      continue;
    }
    if (bench_out) {
      char path[600];
      snprintf (path, sizeof path, "%s/bench-%s.j2c", bench_out,
          k->coder == SCI_J2K_CODER_HT ? "ht" : "part1");
      j2kt_write_file (path, cs, len);
    }
    sci_j2k_dec *d = sci_j2k_dec_new ();
    sci_j2k_info info;
    sci_j2k_plane pl[3];
    uint16_t *buf[3];
    for (unsigned c = 0; c < 3; c++) {
      buf[c] = malloc ((size_t) k->w * k->h * 2);
      pl[c].data = buf[c];
      pl[c].stride = k->w;
      pl[c].bytes = 2;
    }
    double best = 1e9, best_cpu = 1e9;
    int ok = 1;
    for (int rep = 0; rep < 3; rep++) {
      double t0 = now (CLOCK_MONOTONIC), c0 = now (CLOCK_THREAD_CPUTIME_ID);
      sci_j2k_decode_params p = { 0, 0 };
      if (sci_j2k_dec_parse (d, cs, len, &info) ||
          sci_j2k_dec_decode (d, &p, pl))
        ok = 0;
      double t = now (CLOCK_MONOTONIC) - t0;
      double c = now (CLOCK_THREAD_CPUTIME_ID) - c0;
      best = t < best ? t : best;
      best_cpu = c < best_cpu ? c : best_cpu;
    }
    for (unsigned c = 0; c < 3 && ok; c++)
      for (size_t j = 0; j < (size_t) k->w * k->h; j++)
        if (buf[c][j] != (uint16_t) src.s[c][j])
          ok = 0;
    printf ("%-34s %9zu bytes  CPU %7.1f ms (%6.2f Msamples/s), wall %7.1f "
        "ms  %s\n", k->label, len, best_cpu * 1e3,
        3.0 * k->w * k->h / best_cpu / 1e6, best * 1e3, ok ? "exact" : "WRONG");
    for (unsigned c = 0; c < 3; c++)
      free (buf[c]);
    sci_j2k_dec_free (d);
    free (cs);
    j2kt_image_free (&src);
  }
}

/* ---- on a thread pool ------------------------------------------------- */

typedef struct
{
  unsigned n;
  char log[4096];
} warn_log;

static void
log_warning (void *user, size_t offset, const char *msg)
{
  warn_log *l = user;
  l->n++;
  size_t at = strlen (l->log);
  snprintf (l->log + at, sizeof l->log - at, "%zu:%s|", offset, msg);
}

/* Decodes into 16-bit planes of w x h, on pool (or not); the warnings into
 * log, the tiles whose tier-2 ran in parallel into *par.  Returns
 * sci_j2k_dec_decode's result. */
static int
decode_with_pool (const uint8_t * cs, size_t len, sci_pool * pool,
    unsigned nc, unsigned w, unsigned h, uint16_t * out, warn_log * log,
    unsigned *par)
{
  sci_j2k_dec *d = sci_j2k_dec_new ();
  memset (log, 0, sizeof *log);
  sci_j2k_dec_set_warning_func (d, log_warning, log);
  sci_j2k_dec_set_pool (d, pool);
  sci_j2k_info info;
  int r = sci_j2k_dec_parse (d, cs, len, &info);
  sci_j2k_plane pl[4];
  for (unsigned c = 0; c < nc; c++) {
    pl[c].data = out + (size_t) c * w * h;
    pl[c].stride = w;
    pl[c].bytes = 2;
  }
  sci_j2k_decode_params p = { 0, 0 };
  if (r == 0)
    r = sci_j2k_dec_decode (d, &p, pl);
  *par = sci_j2k_dec_t2_parallel (d);
  sci_j2k_dec_free (d);
  return r;
}

/* Swaps two neighbouring PLT lengths of the same coded size but different
 * values, so that PLT no longer matches the packets (the packets stay as
 * they are).  Returns 0 when the stream has no such pair. */
static int
plt_swap (uint8_t * cs, size_t len)
{
  j2kt_plt t;
  const char *why = "";
  if (j2kt_plt_parse (cs, len, &t, &why) || t.segs < 1) {
    j2kt_plt_free (&t);
    return 0;
  }
  size_t at = t.plt_at[0] + 5, end = t.plt_at[0] + 2 +
      j2kt_be16 (cs + t.plt_at[0] + 2), prev = at, prev_n = 0;
  uint32_t prev_v = 0;
  int done = 0;
  while (at < end && !done) {
    size_t s0 = at;
    uint32_t v = 0;
    while (at < end && (cs[at] & 0x80))
      v = v << 7 | (cs[at++] & 0x7F);
    if (at == end)
      break;
    v = v << 7 | cs[at++];
    size_t n = at - s0;
    if (prev_n == n && prev_v != v) {
      uint8_t tmp[8];
      memcpy (tmp, cs + prev, n);
      memcpy (cs + prev, cs + s0, n);
      memcpy (cs + s0, tmp, n);
      done = 1;
    }
    prev = s0;
    prev_n = n;
    prev_v = v;
  }
  j2kt_plt_free (&t);
  return done;
}

/* The packet lengths sci_j2k_cs_tile_plt reads, against the test's own
 * PLT reader (j2kplt.h), or none (n) for a stream whose Iplt cannot be
 * read. */
static int
codec_plt (const uint8_t * cs, size_t len, uint32_t ** out, size_t *n)
{
  sci_j2k_cs c;
  sci_j2k_status st;
  memset (&c, 0, sizeof c);
  memset (&st, 0, sizeof st);
  int r = sci_j2k_cs_parse (&c, cs, len, &st);
  if (r == 0)
    r = sci_j2k_cs_tile_plt (&c, 0, out, n);
  sci_j2k_cs_free (&c);
  return r;
}

/* sci_j2k_cs_tile_plt: the lengths of our encoder's PLT segments as the
 * test's own reader reads them; none for a stream without PLT, for an
 * Iplt left unfinished at the segment's end, and for a length of more
 * than 32 bits. */
static void
test_plt_lengths (void)
{
  if (!wanted ("plt-lengths"))
    return;
  own_case k = { "plt-lengths", 61, 47, 3, 8, {1, 1, 1}, {1, 1, 1},
    SCI_DWT_53, 4, SCI_CT_RCT, SCI_J2K_CODER_PART1, 4, 4, SCI_J2K_LRCP, 3,
    0, 0, 1
  };
  unsigned w[3] = { k.w, k.w, k.w }, h[3] = { k.h, k.h, k.h };
  j2kt_image src;
  make_image (&src, 3, w, h, k.depth, 0, 77);
  size_t len = 0, len0 = 0;
  uint8_t *cs = own_encode (&k, &src, &len);
  k.plt = 0;
  uint8_t *cs0 = own_encode (&k, &src, &len0);
  j2kt_plt t;
  const char *why = "";
  int ok = cs && cs0 && j2kt_plt_parse (cs, len, &t, &why) == 0 &&
      t.segs >= 1 && t.n == 3u * 5 * 3;
  check (ok, "plt-lengths: our encoder's PLT, read by the test's reader");
  if (ok) {
    uint32_t *got = NULL;
    size_t n = 0;
    int r = codec_plt (cs, len, &got, &n);
    char what[300];
    snprintf (what, sizeof what, "plt-lengths: %zu lengths read (%zu "
        "listed), the same values", n, t.n);
    check (r == 0 && n == t.n && got
        && !memcmp (got, t.len, n * sizeof *got), what);
    free (got);
    got = NULL;
    r = codec_plt (cs0, len0, &got, &n);
    check (r == 0 && n == 0 && !got, "plt-lengths: none without PLT");
    /* the segment's last Iplt byte says that more follow */
    size_t last = t.plt_at[t.segs - 1];
    size_t end = last + 2 + j2kt_be16 (cs + last + 2);
    uint8_t *bad = malloc (len);
    memcpy (bad, cs, len);
    bad[end - 1] |= 0x80;
    r = codec_plt (bad, len, &got, &n);
    check (r == 0 && n == 0 && !got,
        "plt-lengths: an unfinished Iplt gives none");
    /* the first Iplt bytes as one length of 2^32 */
    memcpy (bad, cs, len);
    static const uint8_t big[5] = { 0x90, 0x80, 0x80, 0x80, 0x00 };
    size_t first = t.plt_at[0] + 5;
    check (first + 5 <= end, "plt-lengths: 5 Iplt bytes to overwrite");
    memcpy (bad + first, big, sizeof big);
    r = codec_plt (bad, len, &got, &n);
    check (r == 0 && n == 0 && !got,
        "plt-lengths: a length of 2^32 gives none");
    free (bad);
  }
  if (cs && cs0)
    j2kt_plt_free (&t);
  free (cs);
  free (cs0);
  j2kt_image_free (&src);
}

/* sci_j2k_dec_set_pool: the same samples and the same warnings, in the
 * same order, on 1 and on 4 threads, for HT and Part 1 streams, 5/3 and
 * 9/7, whole and damaged (Part 1 with segmentation symbols, so that its
 * damage shows).  With PLT, tier-2 runs precinct by precinct on the pool
 * for a whole stream, and falls back to the sequential walk, with the
 * same result, when the packets are damaged or PLT does not match them. */
static void
test_threads (void)
{
  if (!wanted ("threads"))
    return;
  static const own_case cases[] = {
    {"threads HT 5/3", 257, 131, 3, 12, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 4,
        SCI_CT_RCT, SCI_J2K_CODER_HT, 5, 5, SCI_J2K_LRCP, 1, 0x00},
    {"threads HT 9/7", 200, 97, 3, 10, {1, 1, 1}, {1, 1, 1}, SCI_DWT_97, 3,
        SCI_CT_ICT, SCI_J2K_CODER_HT, 4, 4, SCI_J2K_RPCL, 1, 0x00},
    {"threads Part 1 5/3", 150, 121, 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53,
        3, SCI_CT_RCT, SCI_J2K_CODER_PART1, 4, 4, SCI_J2K_LRCP, 2,
        SCI_T1_SEGSYM},
    {"threads HT 5/3 PLT", 257, 131, 3, 12, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53,
        4, SCI_CT_RCT, SCI_J2K_CODER_HT, 5, 5, SCI_J2K_RPCL, 1, 0x00, 0, 1},
    {"threads HT 9/7 PLT", 200, 97, 3, 10, {1, 1, 1}, {1, 1, 1}, SCI_DWT_97,
        3, SCI_CT_ICT, SCI_J2K_CODER_HT, 4, 4, SCI_J2K_CPRL, 1, 0x00, 0, 1},
    {"threads Part 1 5/3 3 layers PLT", 150, 121, 3, 8, {1, 1, 1}, {1, 1, 1},
        SCI_DWT_53, 3, SCI_CT_RCT, SCI_J2K_CODER_PART1, 4, 4, SCI_J2K_LRCP, 3,
        SCI_T1_SEGSYM, 0, 1},
    {"threads Part 1 4:2:2 2 layers PLT", 141, 77, 3, 8, {1, 2, 2},
        {1, 1, 1}, SCI_DWT_53, 3, SCI_CT_NONE, SCI_J2K_CODER_PART1, 4, 4,
        SCI_J2K_PCRL, 2, SCI_T1_SEGSYM, 0, 1},
  };
  sci_pool *pool = sci_pool_new (4);
  check (pool != NULL && sci_pool_threads (pool) == 4, "a pool of 4 threads");
  for (size_t i = 0; pool && i < sizeof cases / sizeof cases[0]; i++) {
    const own_case *k = &cases[i];
    unsigned w[3], h[3];
    for (unsigned c = 0; c < 3; c++) {
      w[c] = (k->w + k->dx[c] - 1) / k->dx[c];
      h[c] = (k->h + k->dy[c] - 1) / k->dy[c];
    }
    j2kt_image src;
    make_image (&src, 3, w, h, k->depth, 0, 300 + i);
    size_t len;
    uint8_t *cs = own_encode (k, &src, &len);
    check (cs != NULL, k->label);
    if (!cs) {
      j2kt_image_free (&src);
      continue;
    }
    size_t n = (size_t) 3 * k->w * k->h;
    uint16_t *a = malloc (n * 2), *b = malloc (n * 2);
    static warn_log la, lb;
    /* whole; with PLT that does not match the packets (PLT streams); then
     * with bytes flipped past the main header: every 97th from the middle
     * on, so that many blocks are damaged */
    uint16_t *whole = malloc (n * 2);
    for (int dmg = 0; dmg < 3; dmg++) {
      if (dmg == 1 && (!k->plt || !plt_swap (cs, len)))
        continue;
      if (dmg == 2)
        for (size_t j = len / 2; j + 2 < len; j += 97)
          cs[j] ^= 0x5A;
      /* different fillings show a sample left unwritten; subsampled
       * planes leave the rest of their w x h rows so on both */
      int sub = k->dx[1] != 1 || k->dx[2] != 1;
      memset (a, 0xEE, n * 2);
      memset (b, sub ? 0xEE : 0x11, n * 2);
      unsigned pa, pb;
      int ra = decode_with_pool (cs, len, NULL, 3, k->w, k->h, a, &la, &pa);
      int rb = decode_with_pool (cs, len, pool, 3, k->w, k->h, b, &lb, &pb);
      if (dmg == 0)
        memcpy (whole, a, n * 2);
      /* tier-2 in parallel only for a whole stream whose PLT matches */
      unsigned par = k->plt && dmg == 0;
      char what[512];
      snprintf (what, sizeof what, "%s%s: 1 thread %d (%u warnings), 4 "
          "threads %d (%u warnings, tier-2 in parallel on %u tiles, %u "
          "wanted): same samples and warnings", k->label,
          dmg == 1 ? ", PLT not matching" : dmg ? ", damaged" : "", ra, la.n,
          rb, lb.n, pb, par);
      check (ra == rb && !memcmp (a, b, n * 2) && la.n == lb.n &&
          !strcmp (la.log, lb.log) && (dmg == 2 ? la.n > 0 : la.n == 0) &&
          pa == 0 && pb == par && (dmg != 1 || !memcmp (a, whole, n * 2)),
          what);
    }
    free (whole);
    free (a);
    free (b);
    free (cs);
    j2kt_image_free (&src);
  }
  sci_pool_free (pool);
}

static int
have_tool (const char *name)
{
  return j2kt_run (NULL, 10, "command -v %s", name) == 0;
}

int
main (int argc, char **argv)
{
  int keep = 0, do_bench = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--keep"))
      keep = 1;
    else if (!strcmp (argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp (argv[i], "-v"))
      setenv ("J2KT_VERBOSE", "1", 1);
    else if (!strcmp (argv[i], "--bench"))
      do_bench = 1;
    else if (!strcmp (argv[i], "--bench-out") && i + 1 < argc)
      bench_out = argv[++i];
  }
  if (do_bench) {
    bench ();
    return 0;
  }
  const char *td = getenv ("TMPDIR");
  snprintf (tmp, sizeof tmp, "%s/j2kdec-XXXXXX", td ? td : "/tmp");
  if (!mkdtemp (tmp)) {
    perror ("mkdtemp");
    return 1;
  }
  have_opj = have_tool ("opj_compress") && have_tool ("opj_decompress");
  have_grk = have_tool ("grk_compress") && have_tool ("grk_decompress");
  have_ojph = have_tool ("ojph_compress");
  if (!have_opj || !have_grk || !have_ojph)
    printf ("missing tools (scripts/install-deps.sh): opj %d grk %d ojph %d\n",
        have_opj, have_grk, have_ojph);

  test_idwt ();
  test_own_encoders ();
  test_plt ();
  test_external ();
  test_roi ();
  test_ht_sets ();
  test_files ();
  test_damage ();
  test_refs_mode ();
  test_split ();
  test_threads ();
  test_plt_lengths ();

  printf ("%u passed, %u failed\n", check_passed, check_failed);
  if (check_failed || keep)
    printf ("files kept in %s\n", tmp);
  else
    j2kt_run (NULL, 60, "rm -rf %s", tmp);
  return check_failed ? 1 : 0;
}
