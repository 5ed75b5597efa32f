/* Helpers of the JPEG 2000 decoder tests (see j2kdec_util.h). */
#include "j2kdec_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/j2k/j2k_dec.h"

void
j2kt_image_free (j2kt_image * im)
{
  for (unsigned c = 0; c < J2KT_MAX_COMP; c++) {
    free (im->s[c]);
    im->s[c] = NULL;
  }
  im->nc = 0;
}

uint8_t *
j2kt_slurp (const char *path, size_t *len)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return NULL;
  if (fseek (f, 0, SEEK_END) != 0) {
    fclose (f);
    return NULL;
  }
  long n = ftell (f);
  rewind (f);
  uint8_t *b = malloc (n > 0 ? (size_t) n : 1);
  if (!b || (n > 0 && fread (b, 1, (size_t) n, f) != (size_t) n)) {
    free (b);
    fclose (f);
    return NULL;
  }
  fclose (f);
  *len = (size_t) n;
  return b;
}

int
j2kt_write_file (const char *path, const void *data, size_t len)
{
  FILE *f = fopen (path, "wb");
  if (!f)
    return -1;
  size_t n = fwrite (data, 1, len, f);
  return fclose (f) == 0 && n == len ? 0 : -1;
}

/* PGX: "PG" then ML (big-endian) or LM, an optional sign, the depth, the
 * width and the height, one whitespace, then the samples (1 byte up to 8
 * bits, 2 above, 4 above 16). */
int
j2kt_read_pgx (const char *path, int32_t ** v, unsigned *w, unsigned *h,
    unsigned *depth, int *sgn)
{
  size_t n;
  uint8_t *b = j2kt_slurp (path, &n);
  if (!b)
    return -1;
  if (n < 8 || b[0] != 'P' || b[1] != 'G') {
    free (b);
    return -1;
  }
  size_t i = 2;
  while (i < n && b[i] == ' ')
    i++;
  if (i + 2 > n) {
    free (b);
    return -1;
  }
  int be = b[i] == 'M';
  i += 2;
  while (i < n && b[i] == ' ')
    i++;
  *sgn = 0;
  if (i < n && (b[i] == '+' || b[i] == '-')) {
    *sgn = b[i] == '-';
    i++;
  }
  unsigned vals[3];
  for (int k = 0; k < 3; k++) {
    while (i < n && b[i] == ' ')
      i++;
    unsigned x = 0;
    int any = 0;
    while (i < n && b[i] >= '0' && b[i] <= '9') {
      x = x * 10 + (unsigned) (b[i++] - '0');
      any = 1;
    }
    if (!any) {
      free (b);
      return -1;
    }
    vals[k] = x;
  }
  i++;                          /* the one whitespace */
  *depth = vals[0];
  *w = vals[1];
  *h = vals[2];
  unsigned bytes = *depth <= 8 ? 1 : *depth <= 16 ? 2 : 4;
  size_t cnt = (size_t) *w * *h;
  if (*depth < 1 || *depth > 32 || i + cnt * bytes > n) {
    free (b);
    return -1;
  }
  *v = malloc ((cnt ? cnt : 1) * sizeof **v);
  for (size_t k = 0; k < cnt; k++) {
    const uint8_t *p = b + i + k * bytes;
    uint32_t u = 0;
    for (unsigned j = 0; j < bytes; j++)
      u |= (uint32_t) p[be ? j : bytes - 1 - j] << (8 * (bytes - 1 - j));
    int32_t x;
    if (*sgn && bytes < 4 && (u >> (8 * bytes - 1)))
      x = (int32_t) (u - ((uint32_t) 1 << (8 * bytes)));
    else
      x = (int32_t) u;
    (*v)[k] = x;
  }
  free (b);
  return 0;
}

int
j2kt_write_pgx (const char *path, const int32_t * v, unsigned w, unsigned h,
    unsigned depth, int sgn)
{
  FILE *f = fopen (path, "wb");
  if (!f)
    return -1;
  fprintf (f, "PG ML %c%u %u %u\n", sgn ? '-' : '+', depth, w, h);
  unsigned bytes = depth <= 8 ? 1 : 2;
  for (size_t k = 0; k < (size_t) w * h; k++) {
    uint32_t u = (uint32_t) v[k];
    if (bytes == 2)
      fputc ((int) (u >> 8 & 0xFF), f);
    fputc ((int) (u & 0xFF), f);
  }
  return fclose (f);
}

int
j2kt_run (const char *log, unsigned seconds, const char *fmt, ...)
{
  char cmd[4096], full[4600];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (cmd, sizeof cmd, fmt, ap);
  va_end (ap);
  snprintf (full, sizeof full, "timeout %u sh -c '%s' >>'%s' 2>&1", seconds,
      cmd, log ? log : "/dev/null");
  if (getenv ("J2KT_VERBOSE"))
    fprintf (stderr, "  $ %s\n", cmd);
  int st = system (full);
  if (st == -1)
    return -1;
  return (st >> 8) & 0xFF;
}

int
j2kt_decode_ours (const uint8_t * buf, size_t len, unsigned reduce,
    unsigned layers, j2kt_image * im, unsigned *warnings, char *err,
    size_t errlen)
{
  sci_j2k_dec *d = sci_j2k_dec_new ();
  sci_j2k_info info;
  memset (im, 0, sizeof *im);
  int r = sci_j2k_dec_parse (d, buf, len, &info);
  if (r == 0 && info.components > J2KT_MAX_COMP)
    r = SCI_J2K_EUNSUPPORTED;
  sci_j2k_plane pl[J2KT_MAX_COMP];
  uint16_t *raw[J2KT_MAX_COMP] = { NULL };
  if (r == 0) {
    im->nc = info.components;
    for (unsigned c = 0; c < im->nc; c++) {
      sci_j2k_comp_info ci;
      sci_j2k_dec_comp_info (d, c, reduce, &ci);
      im->w[c] = ci.w;
      im->h[c] = ci.h;
      im->depth[c] = ci.depth;
      im->sgn[c] = ci.is_signed;
      raw[c] = calloc ((size_t) ci.w * ci.h + 1, 2);
      pl[c].data = raw[c];
      pl[c].stride = ci.w;
      pl[c].bytes = 2;
    }
    sci_j2k_decode_params p = { reduce, layers };
    r = sci_j2k_dec_decode (d, &p, pl);
  }
  if (r == 0) {
    for (unsigned c = 0; c < im->nc; c++) {
      size_t n = (size_t) im->w[c] * im->h[c];
      im->s[c] = malloc ((n ? n : 1) * sizeof (int32_t));
      for (size_t k = 0; k < n; k++)
        im->s[c][k] = im->sgn[c] ? (int16_t) raw[c][k] : raw[c][k];
    }
  }
  for (unsigned c = 0; c < J2KT_MAX_COMP; c++)
    free (raw[c]);
  if (warnings)
    *warnings = sci_j2k_dec_warnings (d);
  if (err)
    snprintf (err, errlen, "%s", r ? sci_j2k_dec_error (d) :
        sci_j2k_dec_warning (d));
  sci_j2k_dec_free (d);
  if (r)
    j2kt_image_free (im);
  return r;
}

int
j2kt_decode_opj (const char *dir, const char *path, unsigned nc,
    int per_comp, unsigned reduce, unsigned layers, j2kt_image * im)
{
  char log[1024], out[1024], opt[64] = "";
  memset (im, 0, sizeof *im);
  snprintf (log, sizeof log, "%s/opj_decompress.log", dir);
  if (reduce)
    snprintf (opt, sizeof opt, "-r %u", reduce);
  if (layers)
    snprintf (opt + strlen (opt), sizeof opt - strlen (opt), " -l %u", layers);
  for (unsigned c = 0; c < nc; c++) {
    if (per_comp || c == 0) {
      for (unsigned k = 0; k < nc; k++) {
        snprintf (out, sizeof out, "%s/opj_%u.pgx", dir, k);
        remove (out);
      }
      char sel[32] = "";
      if (per_comp)
        snprintf (sel, sizeof sel, "-c %u", c);
      if (j2kt_run (log, 60, "opj_decompress -i %s -o %s/opj.pgx %s %s",
              path, dir, sel, opt) != 0)
        return -1;
    }
    snprintf (out, sizeof out, "%s/opj_%u.pgx", dir, per_comp ? 0 : c);
    if (j2kt_read_pgx (out, &im->s[c], &im->w[c], &im->h[c], &im->depth[c],
            &im->sgn[c]))
      return -1;
    im->nc = c + 1;
  }
  return 0;
}

long
j2kt_peak_diff (const j2kt_image * a, const j2kt_image * b, int c, double *mse)
{
  if (a->nc != b->nc)
    return -1;
  long peak = 0;
  double se = 0;
  size_t cnt = 0;
  for (unsigned k = 0; k < a->nc; k++) {
    if (a->w[k] != b->w[k] || a->h[k] != b->h[k])
      return -1;
    size_t n = (size_t) a->w[k] * a->h[k];
    for (size_t i = 0; i < n; i++) {
      long d = labs ((long) a->s[k][i] - (long) b->s[k][i]);
      if (d > peak)
        peak = d;
      if (c < 0 || (unsigned) c == k) {
        se += (double) d *d;
        cnt++;
      }
    }
  }
  if (mse)
    *mse = cnt ? se / (double) cnt : 0;
  return peak;
}

double
j2kt_psnr (const j2kt_image * a, const j2kt_image * b)
{
  double se = 0, pk = 0;
  size_t cnt = 0;
  for (unsigned k = 0; k < a->nc; k++) {
    size_t n = (size_t) a->w[k] * a->h[k];
    double p = ldexp (1.0, (int) a->depth[k]) - 1;
    for (size_t i = 0; i < n; i++) {
      double d = (double) a->s[k][i] - b->s[k][i];
      se += d * d / (p * p);
    }
    cnt += n;
    (void) pk;
  }
  if (se == 0)
    return 99.0;
  return 10 * log10 ((double) cnt / se);
}

void *
j2kt_forward (const sci_wt_geometry * g, const j2kt_image * im)
{
  unsigned bps = sci_wt_sample_bytes (g);
  sci_wt_plane pl[SCI_WT_MAX_COMPONENTS];
  uint8_t *bufs[SCI_WT_MAX_COMPONENTS];
  for (unsigned c = 0; c < g->components; c++) {
    size_t n = (size_t) im->w[c] * im->h[c];
    bufs[c] = malloc (n * bps + 1);
    for (size_t i = 0; i < n; i++) {
      uint32_t u = (uint32_t) im->s[c][i];
      if (bps == 1) {
        bufs[c][i] = (uint8_t) u;
      } else {
        bufs[c][2 * i] = (uint8_t) u;
        bufs[c][2 * i + 1] = (uint8_t) (u >> 8);
      }
    }
    pl[c].data = bufs[c];
    pl[c].row_stride = (ptrdiff_t) im->w[c] * bps;
    pl[c].pixel_stride = bps;
  }
  void *coeffs = malloc (sci_wt_coeff_count (g) * 4);
  if (sci_wt_forward (NULL, g, pl, coeffs)) {
    free (coeffs);
    coeffs = NULL;
  }
  for (unsigned c = 0; c < g->components; c++)
    free (bufs[c]);
  return coeffs;
}

/* The next number of a PNM header, after blanks and # comments. */
static int
pnm_number (const uint8_t * d, size_t n, size_t *pos, unsigned *v)
{
  while (*pos < n && (d[*pos] == ' ' || d[*pos] == '\n' || d[*pos] == '\r' ||
          d[*pos] == '\t' || d[*pos] == '#')) {
    if (d[*pos] == '#')
      while (*pos < n && d[*pos] != '\n')
        (*pos)++;
    else
      (*pos)++;
  }
  if (*pos >= n || d[*pos] < '0' || d[*pos] > '9')
    return -1;
  *v = 0;
  while (*pos < n && d[*pos] >= '0' && d[*pos] <= '9' && *v < 100000000)
    *v = *v * 10 + (unsigned) (d[(*pos)++] - '0');
  return 0;
}

int
j2kt_pnm_header (const uint8_t * d, size_t n, unsigned *w, unsigned *h,
    unsigned *maxv, size_t *body)
{
  size_t pos = 2;
  if (n < 2 || d[0] != 'P' || (d[1] != '5' && d[1] != '6') ||
      pnm_number (d, n, &pos, w) || pnm_number (d, n, &pos, h) ||
      pnm_number (d, n, &pos, maxv) || pos >= n)
    return -1;
  *body = pos + 1;
  return 0;
}

int
j2kt_encode_seed (const sci_wt_geometry * g, const sci_htj2k_params * p,
    uint64_t (*rng) (void), uint8_t ** bytes, size_t *len)
{
  unsigned bps = sci_wt_sample_bytes (g);
  sci_wt_plane pl[SCI_WT_MAX_COMPONENTS];
  uint8_t *buf[SCI_WT_MAX_COMPONENTS];
  uint32_t max = (1u << g->depth) - 1;
  for (unsigned c = 0; c < g->components; c++) {
    unsigned cw = sci_wt_comp_width (g, c), ch = sci_wt_comp_height (g, c);
    buf[c] = malloc ((size_t) cw * ch * bps);
    for (unsigned y = 0; y < ch; y++)
      for (unsigned x = 0; x < cw; x++) {
        uint32_t v = (uint32_t) ((x * 37 + y * 11 + c * 50) % (max + 1));
        if (rng () % 8 == 0)
          v = (uint32_t) (rng () % (max + 1));
        size_t i = (size_t) y * cw + x;
        if (bps == 1)
          buf[c][i] = (uint8_t) v;
        else {
          buf[c][2 * i] = (uint8_t) v;
          buf[c][2 * i + 1] = (uint8_t) (v >> 8);
        }
      }
    pl[c].data = buf[c];
    pl[c].row_stride = (ptrdiff_t) cw *bps;
    pl[c].pixel_stride = bps;
  }
  void *coeffs = malloc (sci_wt_coeff_count (g) * 4);
  int r = -1;
  *bytes = NULL;
  *len = 0;
  if (sci_wt_forward (NULL, g, pl, coeffs) == 0) {
    sci_htj2k_enc *e = sci_htj2k_enc_new (g, p, NULL);
    if (e) {
      size_t cap = sci_htj2k_max_bytes (e);
      *bytes = malloc (cap);
      *len = sci_htj2k_encode (e, coeffs, *bytes, cap);
      r = *len ? 0 : -1;
      sci_htj2k_enc_free (e);
    }
  }
  free (coeffs);
  for (unsigned c = 0; c < g->components; c++)
    free (buf[c]);
  return r;
}
