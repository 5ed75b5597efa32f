/*
 * Fuzz target of the SEG-Y binary-header parser and the sample conversions
 * (gst/gstscisegymeta.c: gst_sci_segy_binary_header_parse,
 * gst_sci_segy_samples_to_float / _from_float, IBM floats) and of the
 * header checks segysrc and segyparse make on top of them
 * (gst_segy_layout_init, elements/segy/gstsegyformat.c).
 *
 * As a libFuzzer target (LLVMFuzzerTestOneInput), built with clang
 * (docs/fuzzing.md):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DSCI_FUZZ_LIBFUZZER \
 *     -I. -Igst -Ielements tests/segy/fuzz_segy_samples.c gst/gstscisegymeta.c \
 *     gst/gstscifitsmeta.c elements/segy/gstsegyformat.c \
 *     $(pkg-config --cflags --libs gstreamer-1.0 libzstd) -lm \
 *     -o fuzz-segy-samples && ./fuzz-segy-samples -max_total_time=60
 *
 * An input is a selector byte (a sample format and a byte order), 400
 * bytes of binary header, then sample bytes.  What is checked, beyond not
 * crashing or overflowing (UBSan):
 * - the binary header: taken exactly when one byte order reads bytes
 *   3225-3226 as a format code, and then its fields are the bytes read in
 *   that order; refused with a reason otherwise; the layout checks then
 *   give traces of 240 + samples x sample size bytes, gathers that fit a
 *   buffer, or a refusal of one of the two kinds with a reason;
 * - the samples: the same floats from the bytes in either byte order;
 *   floats written back and read again are the same floats (NaN written
 *   as 0 by the integer and IBM formats, IBM values below float's normal
 *   range excepted), with the NaN and clamped counts that an independent
 *   count of the values gives; the bytes themselves come back for the
 *   formats that floats hold exactly (8-, 16- and 24-bit integers, IEEE
 *   float bits, IBM words that are normalised and within float's normal
 *   range);
 * - IBM floats from floats: normalised, within half an IBM step, and a
 *   value once converted converts to itself.
 *
 * Without -DSCI_FUZZ_LIBFUZZER, main runs a number of random inputs
 * (binary headers made of the fields that matter in either byte order
 * and rev 2's extended fields, or random; samples of every bit pattern,
 * special values, exact IBM values): the test 'fuzz-segy-samples' of suite
 * codec.  --iterations N, --seed S, --write-seeds DIR.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gst/gst.h>

#include "gst/gstscisegymeta.h"
#include "elements/segy/gstsegyformat.h"

static const guint formats[] = { 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16 };

/* The integer formats' ranges: values v with lo <= v < hi are stored as
 * they are, the others clamped (an independent table of the types). */
static gboolean
int_range (guint format, gdouble * lo, gdouble * hi)
{
  switch (format) {
    case 2:
      *lo = -2147483648.0, *hi = 2147483648.0;
      return TRUE;
    case 3:
      *lo = -32768, *hi = 32768;
      return TRUE;
    case 7:
      *lo = -8388608, *hi = 8388608;
      return TRUE;
    case 8:
      *lo = -128, *hi = 128;
      return TRUE;
    case 9:
      *lo = -9223372036854775808.0, *hi = 9223372036854775808.0;
      return TRUE;
    case 10:
      *lo = 0, *hi = 4294967296.0;
      return TRUE;
    case 11:
      *lo = 0, *hi = 65536;
      return TRUE;
    case 12:
      *lo = 0, *hi = 18446744073709551616.0;
      return TRUE;
    case 15:
      *lo = 0, *hi = 16777216;
      return TRUE;
    case 16:
      *lo = 0, *hi = 256;
      return TRUE;
    default:
      return FALSE;
  }
}

static guint64
load (const guint8 * p, guint n, gboolean le)
{
  guint64 v = 0;
  guint i;

  for (i = 0; i < n; i++)
    v = (v << 8) | p[le ? n - 1 - i : i];
  return v;
}

static gboolean
is_code (guint c)
{
  return (c >= 1 && c <= 12) || c == 15 || c == 16;
}

/* The binary header and the layout checks; FALSE on a broken promise. */
static gboolean
check_header (const guint8 * bin)
{
  GstSciSegyBinaryHeader h;
  GstSegyLayout l;
  GstStreamError code;
  guint8 head[3600];
  gchar *why = NULL;
  gboolean be_code = is_code (load (bin + 24, 2, FALSE));
  gboolean le_code = is_code (load (bin + 24, 2, TRUE));
  gboolean ok = TRUE, le;

  if (!gst_sci_segy_binary_header_parse (bin, &h, &why)) {
    ok = why && why[0] && !be_code && !le_code;
    g_free (why);
    return ok;
  }
  le = h.little_endian;
  if (why || be_code == le_code || le != le_code
      || h.format != load (bin + 24, 2, le)
      || h.ext_headers != (gint16) load (bin + 304, 2, le)
      || h.revision != bin[300])
    return FALSE;
  if (h.revision < 2 && (h.samples != load (bin + 20, 2, le)
          || h.interval != load (bin + 16, 2, le) || h.extra_trace_headers))
    return FALSE;
  if (h.revision >= 2 && h.extra_trace_headers != load (bin + 306, 4, le))
    return FALSE;

  memset (head, 0x40, 3200);
  memcpy (head + 3200, bin, 400);
  if (!gst_segy_layout_init (&l, head, &code, &why)) {
    ok = why && why[0] && code == GST_STREAM_ERROR_FORMAT;
    g_free (why);
    return ok;
  }
  return !why && l.sample_bytes == gst_sci_segy_format_bytes (h.format)
      && l.sample_bytes && l.bin.samples >= 1 && l.bin.samples <= 65535
      && l.trace_bytes == 240 + (guint64) l.bin.samples * l.sample_bytes
      && l.max_traces >= 1 && l.max_traces <= 16777216
      && (guint64) l.max_traces * l.bin.samples <= (1u << 28)
      && l.bin.ext_headers >= -1 && !l.bin.extra_trace_headers;
}

/* Whether IBM word `u` is one float holds exactly: normalised (or a zero
 * word) and within float's normal range. */
static gboolean
ibm_exact (guint32 u)
{
  gint e = (gint) ((u >> 24) & 0x7f) - 64;

  if ((u & 0x7fffffff) == 0)
    return TRUE;
  if (!(u & 0xf00000))
    return FALSE;
  /* the value is in [16^(e-1), 16^e) */
  return 4 * (e - 1) >= -126 && 4 * e <= 128;
}

/* `n` samples of format `fmt` from `src` (either byte order). */
static gboolean
check_samples (guint fmt, gboolean le, const guint8 * src, gsize n)
{
  guint b = gst_sci_segy_format_bytes (fmt);
  gfloat *a = g_new (gfloat, n + 1), *c = g_new (gfloat, n + 1);
  guint8 *rev = g_malloc (n * b + 1), *back = g_malloc (n * b + 1);
  guint64 nan = 0, clamped = 0, want_nan = 0, want_clamped = 0;
  gboolean ok = TRUE, exact = fmt == 3 || fmt == 7 || fmt == 8 || fmt == 11
      || fmt == 15 || fmt == 16 || fmt == 5;
  gdouble lo, hi;
  gsize i, k;

  gst_sci_segy_samples_to_float (fmt, le, src, a, n);
  /* the other byte order */
  for (i = 0; i < n; i++)
    for (k = 0; k < b; k++)
      rev[i * b + k] = src[i * b + b - 1 - k];
  gst_sci_segy_samples_to_float (fmt, !le, rev, c, n);
  if (n && memcmp (a, c, n * sizeof (gfloat)) != 0)
    ok = FALSE;

  gst_sci_segy_samples_from_float (fmt, le, a, back, n, &nan, &clamped);
  gst_sci_segy_samples_to_float (fmt, le, back, c, n);
  for (i = 0; i < n && ok; i++) {
    gboolean is_int = int_range (fmt, &lo, &hi);

    if (isnan (a[i])) {
      want_nan += fmt != 5 && fmt != 6;
      if (fmt == 5 || fmt == 6)
        ok = isnan (c[i]) && (fmt != 5 || memcmp (a + i, c + i, 4) == 0);
      else
        ok = c[i] == 0;
      continue;
    }
    if (is_int) {
      gdouble r = rint (a[i]);

      want_clamped += r < lo || r >= hi;
    } else if (fmt == 1) {
      want_clamped += isinf (a[i]) != 0;
      /* below float's normal range the IBM value may hold fewer bits */
      if (a[i] != 0 && fabsf (a[i]) < FLT_MIN)
        continue;
    }
    ok = c[i] == a[i] && signbit (c[i]) == signbit (a[i]);
  }
  if (nan != want_nan || clamped != want_clamped)
    ok = FALSE;
  /* the bytes themselves */
  for (i = 0; i < n && ok; i++) {
    if (exact || (fmt == 1 && ibm_exact (load (src + 4 * i, 4, le))))
      ok = memcmp (src + i * b, back + i * b, b) == 0;
  }
  g_free (a);
  g_free (c);
  g_free (rev);
  g_free (back);
  return ok;
}

/* IBM floats from the floats the bytes make. */
static gboolean
check_ibm (const guint8 * p, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++) {
    gfloat x, y;
    guint32 u, w;
    gint e;
    gdouble back, step;

    memcpy (&x, p + 4 * i, 4);
    if (!isfinite (x))
      continue;
    u = gst_sci_segy_ibm_from_float (x);
    if ((u & 0x7fffffff) == 0) {
      if (x != 0)
        return FALSE;
      continue;
    }
    if (!(u & 0xf00000))
      return FALSE;
    e = (gint) ((u >> 24) & 0x7f) - 64;
    step = ldexp (1.0, 4 * e - 24);
    back = ldexp ((gdouble) (u & 0xffffff), 4 * e - 24);
    if (u & 0x80000000u)
      back = -back;
    if (fabs (back - (gdouble) x) > step / 2)
      return FALSE;
    y = gst_sci_segy_ibm_to_float (u);
    w = gst_sci_segy_ibm_from_float (y);
    if (fabsf (y) >= FLT_MIN && isfinite (y)
        && gst_sci_segy_ibm_to_float (w) != y)
      return FALSE;
  }
  return TRUE;
}

/* One input; FALSE on a broken promise. */
static gboolean
fuzz_one (const guint8 * data, gsize size)
{
  guint fmt, b;
  gboolean le;
  gsize n;

  if (size < 401)
    return TRUE;
  fmt = formats[(data[0] & 0x7f) % G_N_ELEMENTS (formats)];
  le = data[0] >> 7;
  b = gst_sci_segy_format_bytes (fmt);
  n = MIN ((size - 401) / b, 1 << 16);
  return check_header (data + 1) && check_samples (fmt, le, data + 401, n)
      && check_ibm (data + 401, MIN ((size - 401) / 4, 1 << 14));
}

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);
int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  if (!fuzz_one (data, size))
    abort ();
  return 0;
}

#ifndef SCI_FUZZ_LIBFUZZER
#include "tests/common/testutil.h"

static void
put (guint8 * p, guint64 v, guint n, gboolean le)
{
  guint i;

  for (i = 0; i < n; i++)
    p[le ? i : n - 1 - i] = (v >> (8 * i)) & 0xff;
}

/* A random input: a binary header of plausible fields most of the time,
 * samples of random bits, special values or exact IBM words. */
static gsize
make_input (guint8 * d, gsize cap)
{
  gsize n = 401 + rng () % MIN (cap - 401, (gsize) 4096), i;
  gboolean le = rng () % 2;
  guint kind = rng () % 4;

  for (i = 0; i < n; i++)
    d[i] = rng ();
  if (rng () % 4) {
    guint8 *bin = d + 1;

    memset (bin, 0, 400);
    put (bin + 16, rng () % 3 ? 4000 : rng (), 2, le);
    put (bin + 20, rng () % 4 ? rng () % 2000 : rng (), 2, le);
    put (bin + 24, rng () % 8 ? rng () % 18 : rng (), 2, le);
    put (bin + 304, rng () % 4 ? rng () % 3 - 1 : rng (), 2, le);
    bin[300] = rng () % 4;
    put (bin + 302, rng () % 2, 2, le);
    if (rng () % 2) {
      gdouble dt = rng () % 2 ? (gdouble) (rng () % 100000) / 7 : NAN;
      guint64 bits;

      memcpy (&bits, &dt, 8);
      put (bin + 68, rng () % 2 ? rng () % 100000 : rng (), 4, le);
      put (bin + 72, bits, 8, le);
      put (bin + 306, rng () % 4 ? 0 : rng (), 4, le);
    }
  }
  for (i = 401; kind && i + 4 <= n; i += 4) {
    static const gfloat special[] = { 0.0f, -0.0f, NAN, INFINITY, -INFINITY,
      FLT_MIN, FLT_MAX, 1.5f, 2.5f, -32768.5f, 2147483648.0f, 1e-40f
    };
    guint32 u;

    if (kind == 1) {
      memcpy (&u, &special[rng () % G_N_ELEMENTS (special)], 4);
    } else if (kind == 2) {
      /* a normalised IBM word of any exponent */
      u = (rng () & 0xff0fffff) | ((1 + rng () % 15) << 20);
    } else {
      continue;
    }
    put (d + i, u, 4, le);
  }
  return n;
}

int
main (int argc, char **argv)
{
  guint iterations = 10000, i, broken = 0;
  const gchar *seeds_dir = NULL;
  enum
  { CAP = 8192 };
  guint8 d[CAP];
  gchar what[160];

  for (i = 1; i + 1 < (guint) argc; i += 2) {
    if (!strcmp (argv[i], "--iterations"))
      iterations = strtoul (argv[i + 1], NULL, 0);
    else if (!strcmp (argv[i], "--seed"))
      rng_state = strtoull (argv[i + 1], NULL, 0);
    else if (!strcmp (argv[i], "--write-seeds"))
      seeds_dir = argv[i + 1];
  }
  for (i = 0; i < iterations; i++) {
    gsize n = make_input (d, CAP);

    if (seeds_dir && i < 64) {
      gchar *p = g_strdup_printf ("%s/seed-%u", seeds_dir, i);

      g_mkdir_with_parents (seeds_dir, 0755);
      g_file_set_contents (p, (const gchar *) d, n, NULL);
      g_free (p);
    }
    if (!fuzz_one (d, n)) {
      printf ("broken promise at iteration %u (--seed to replay)\n", i);
      broken++;
    }
  }
  snprintf (what, sizeof what, "%u random binary headers and sample blocks "
      "of every format and byte order: every promise kept", iterations);
  check (broken == 0, what);
  printf ("%u passed, %u failed\n", check_passed, check_failed);
  return check_failed ? 1 : 0;
}
#endif
