/*
 * Fuzz target of the FITS metadata record parser
 * (gst_buffer_add_sci_fits_meta_from_records in gst/gstscifitsmeta.c),
 * which dpcmdec runs on the metadata section of every DPCM frame it
 * reads, so its input is whatever a file holds.
 *
 * As a libFuzzer target (LLVMFuzzerTestOneInput), built with clang
 * (docs/fuzzing.md):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DSCI_FUZZ_LIBFUZZER \
 *     -Igst tests/fits/fuzz_fits_meta.c gst/gstscifitsmeta.c \
 *     $(pkg-config --cflags --libs gstreamer-1.0) -o fuzz-fits-meta &&
 *   mkdir -p corpus && ./fuzz-fits-meta-ci --write-corpus corpus &&
 *   ./fuzz-fits-meta -max_total_time=900 corpus
 *
 * (fuzz-fits-meta-ci is the CI build below; --write-corpus writes its
 * seeds as files.)  Each input is parsed where it lies and again at every
 * byte offset of 1..7, since the records' length fields fall wherever the
 * bytes before them put them.
 *
 * Without -DSCI_FUZZ_LIBFUZZER, main checks the seeds (metas of several
 * shapes, serialised and parsed back to the same meta at every alignment)
 * and replays a fixed number of random mutations of them (byte flips,
 * length fields set to edge values, records cut, dropped, duplicated and
 * spliced, NUL bytes and END cards in the text), checking what the parser
 * promises: FALSE adds nothing; TRUE adds a meta exactly when there is a
 * header record, whose header is whole 80-character cards without END, and
 * which serialises to records that parse back to the same meta; the same
 * answer at every alignment.  The test 'fuzz-fits-meta' of suite codec
 * (built with -fsanitize=alignment where the compiler has it, so a read
 * at an odd address stops it).  --iterations N, --seed S.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>

#include "gst/gstscifitsmeta.h"

/* What parsing gave: ret, and the meta's fields when one was added. */
typedef struct
{
  gboolean ret, added;
  gchar *header, *primary;
  gint hdu;
} Parsed;

static void
parsed_clear (Parsed * p)
{
  g_free (p->header);
  g_free (p->primary);
  memset (p, 0, sizeof (*p));
}

static gboolean
header_ok (const gchar * h)
{
  gsize len, i;

  if (!h)
    return TRUE;
  len = strlen (h);
  if (len % GST_SCI_FITS_CARD_LEN)
    return FALSE;
  for (i = 0; i < len; i += GST_SCI_FITS_CARD_LEN) {
    gsize k;

    if (memcmp (h + i, "END", 3) != 0)
      continue;
    for (k = 3; k < GST_SCI_FITS_CARD_LEN && h[i + k] == ' '; k++);
    if (k == GST_SCI_FITS_CARD_LEN)
      return FALSE;             /* an END card kept */
  }
  return TRUE;
}

/* Parses `size` bytes at `data`; FALSE when a promise is broken. */
static gboolean
parse (const guint8 * data, gsize size, Parsed * out)
{
  GstBuffer *buf = gst_buffer_new ();
  GstSciFitsMeta *m;
  gboolean ok = TRUE;

  memset (out, 0, sizeof (*out));
  out->ret = gst_buffer_add_sci_fits_meta_from_records (buf, data, size,
      &out->added);
  m = gst_buffer_get_sci_fits_meta (buf);
  if ((m != NULL) != out->added || (!out->ret && out->added))
    ok = FALSE;
  if (m) {
    out->header = g_strdup (m->header);
    out->primary = g_strdup (m->primary_header);
    out->hdu = m->hdu;
    if (!m->header || !header_ok (m->header) || !header_ok (m->primary_header))
      ok = FALSE;
  }
  gst_buffer_unref (buf);
  return ok;
}

static gboolean
same (const Parsed * a, const Parsed * b)
{
  return a->ret == b->ret && a->added == b->added && a->hdu == b->hdu
      && g_strcmp0 (a->header, b->header) == 0
      && g_strcmp0 (a->primary, b->primary) == 0;
}

/* Serialises the meta of `p` and parses it back: the same meta. */
static gboolean
reserialises (const Parsed * p)
{
  GstBuffer *buf = gst_buffer_new ();
  GstSciFitsMeta *m;
  GBytes *b;
  Parsed q;
  gsize n;
  const guint8 *d;
  gboolean ok;

  m = gst_buffer_add_sci_fits_meta (buf, p->header, p->primary, p->hdu);
  b = gst_sci_fits_meta_serialize (m);
  d = g_bytes_get_data (b, &n);
  ok = parse (d, n, &q) && q.ret && q.added && same (p, &q);
  parsed_clear (&q);
  g_bytes_unref (b);
  gst_buffer_unref (buf);
  return ok;
}

/* Every check on one input; FALSE when a promise is broken. */
static gboolean
fuzz_one (const guint8 * data, gsize size)
{
  guint8 *copy = g_malloc (size + 16);
  Parsed p, q;
  gboolean ok;
  guint a;

  ok = parse (data, size, &p);
  if (ok && p.added)
    ok = reserialises (&p);
  /* the same bytes at every alignment of an 8-byte word */
  for (a = 1; a < 8 && ok; a++) {
    guint8 *at = (guint8 *) (((guintptr) copy + 8) & ~(guintptr) 7) + a;

    if (size)
      memcpy (at, data, size);
    ok = parse (at, size, &q) && same (&p, &q);
    parsed_clear (&q);
  }
  parsed_clear (&p);
  g_free (copy);
  return ok;
}

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);
int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static gboolean inited;

  if (!inited) {
    gst_init (NULL, NULL);
    inited = TRUE;
  }
  if (!fuzz_one (data, size))
    abort ();
  return 0;
}

#ifndef SCI_FUZZ_LIBFUZZER
#include "tests/common/testutil.h"

/* A header of `n` cards, the k-th naming k; `end`: an END card and more
 * after it (cut by the meta); `odd`: a last card shorter than 80. */
static gchar *
make_header (guint n, gboolean end, gboolean odd)
{
  GString *s = g_string_new (NULL);
  guint k;

  for (k = 0; k < n; k++)
    g_string_append_printf (s, "%-80.80s", k == 0 ? "XTENSION= 'IMAGE   '" :
        k % 3 == 0 ? "HISTORY  a history card" : "KEY     = 1234");
  if (end)
    g_string_append_printf (s, "%-80s%-80s", "END", "AFTER   = 1");
  if (odd)
    g_string_append (s, "COMMENT short");
  return g_string_free (s, FALSE);
}

static GPtrArray *
make_seeds (void)
{
  GPtrArray *seeds = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  static const guint cards[] = { 0, 1, 3, 7, 36, 40 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cards); i++) {
    GstBuffer *buf = gst_buffer_new ();
    gchar *h = make_header (cards[i], i == 2, i == 4);
    gchar *pri = i % 2 ? make_header (cards[i] / 2 + 1, FALSE, FALSE) : NULL;
    GstSciFitsMeta *m = gst_buffer_add_sci_fits_meta (buf, h, pri,
        (gint) i - 1);

    g_ptr_array_add (seeds, gst_sci_fits_meta_serialize (m));
    g_free (h);
    g_free (pri);
    gst_buffer_unref (buf);
  }
  {
    /* unknown records around a header, as a newer writer may add them */
    GByteArray *a = g_byte_array_new ();
    gchar *h = make_header (5, FALSE, FALSE);
    guint8 hdu[4] = { 2, 0, 0, 0 };

    gst_sci_meta_append_record (a, "XTRA", "abc", 3);
    gst_sci_meta_append_record (a, "FHDU", hdu, 4);
    gst_sci_meta_append_record (a, "FHDR", h, strlen (h));
    gst_sci_meta_append_record (a, "ZERO", NULL, 0);
    g_ptr_array_add (seeds, g_byte_array_free_to_bytes (a));
    g_free (h);
    /* records without a header: well-formed, no meta */
    a = g_byte_array_new ();
    gst_sci_meta_append_record (a, "FHDU", hdu, 4);
    gst_sci_meta_append_record (a, "XTRA", "abcdefg", 7);
    g_ptr_array_add (seeds, g_byte_array_free_to_bytes (a));
  }
  return seeds;
}

/* Overwrites the 32-bit length field at `at` with an edge value. */
static void
set_length (guint8 * buf, gsize at, gsize len)
{
  guint32 v;

  switch (rng () % 6) {
    case 0:
      v = 0;
      break;
    case 1:
      v = 0xffffffffu;
      break;
    case 2:
      v = 0x80000000u + (guint32) (rng () % 16);
      break;
    case 3:
      v = (guint32) (len - at);
      break;
    case 4:
      v = (guint32) (len - at) - 8 + (guint32) (rng () % 3);
      break;
    default:
      v = (guint32) rng ();
      break;
  }
  buf[at] = v & 0xff;
  buf[at + 1] = (v >> 8) & 0xff;
  buf[at + 2] = (v >> 16) & 0xff;
  buf[at + 3] = v >> 24;
}

static gsize
mutate (guint8 * buf, gsize len, gsize cap, const GPtrArray * seeds)
{
  static const char *const bits[] = { "FHDR", "FPRI", "FHDU", "END",
    "END     ", "\0", "SIMPLE  =", "\xff\xfe"
  };
  guint n = 1 + (guint) (rng () % 4), k;

  for (k = 0; k < n; k++) {
    gsize at = len ? (gsize) (rng () % len) : 0;

    switch (rng () % 8) {
      case 0:                  /* flip a bit */
        if (len)
          buf[at] ^= 1u << (rng () % 8);
        break;
      case 1:                  /* a length field: at a record's place */
        if (len >= 8) {
          /* the first record's, or anywhere */
          gsize f = rng () % 2 ? 4 : (gsize) (rng () % (len - 3));

          set_length (buf, f, len);
        }
        break;
      case 2:                  /* a tag or text the parser knows */
      {
        const char *b = bits[rng () % G_N_ELEMENTS (bits)];
        gsize bl = strlen (b) ? strlen (b) : 1;

        if (at + bl <= len)
          memcpy (buf + at, b, bl);
      }
        break;
      case 3:                  /* cut */
        len = at;
        break;
      case 4:                  /* delete a run */
        if (len) {
          gsize run = 1 + (gsize) (rng () % 12);

          run = MIN (run, len - at);
          memmove (buf + at, buf + at + run, len - at - run);
          len -= run;
        }
        break;
      case 5:                  /* duplicate a run */
        if (len) {
          gsize run = 1 + (gsize) (rng () % 100);

          run = MIN (run, len - at);
          if (len + run <= cap) {
            memmove (buf + at + run, buf + at, len - at);
            len += run;
          }
        }
        break;
      case 6:                  /* splice another seed in */
      {
        gsize sl;
        const guint8 *s = g_bytes_get_data (g_ptr_array_index (seeds,
                rng () % seeds->len), &sl);

        if (len + sl <= cap) {
          memmove (buf + at + sl, buf + at, len - at);
          memcpy (buf + at, s, sl);
          len += sl;
        }
      }
        break;
      default:                 /* a NUL in the text */
        if (len)
          buf[at] = 0;
        break;
    }
  }
  return len;
}

/* Writes the seeds as files in `dir`, a libFuzzer corpus. */
static int
write_corpus (const char *dir, const GPtrArray * seeds)
{
  guint i;

  for (i = 0; i < seeds->len; i++) {
    gchar *name = g_strdup_printf ("%s/seed-%02u", dir, i);
    gsize n;
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (seeds, i), &n);
    gboolean ok = g_file_set_contents (name, (const gchar *) d, n, NULL);

    g_free (name);
    if (!ok) {
      printf ("cannot write to %s\n", dir);
      return 1;
    }
  }
  printf ("%u seeds written to %s\n", seeds->len, dir);
  return 0;
}

int
main (int argc, char **argv)
{
  unsigned iterations = 100000;
  GPtrArray *seeds;
  enum
  { CAP = 16384 };
  static guint8 buf[CAP];
  unsigned broken = 0, added = 0, refused = 0, it, s;
  gboolean seeds_ok = TRUE;
  char what[200];
  int i;

  gst_init (NULL, NULL);
  seeds = make_seeds ();
  for (i = 1; i + 1 < argc; i += 2) {
    if (!strcmp (argv[i], "--iterations"))
      iterations = (unsigned) strtoul (argv[i + 1], NULL, 0);
    else if (!strcmp (argv[i], "--seed"))
      rng_state = strtoull (argv[i + 1], NULL, 0);
    else if (!strcmp (argv[i], "--write-corpus"))
      return write_corpus (argv[i + 1], seeds);
  }

  for (s = 0; s < seeds->len; s++) {
    gsize n;
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (seeds, s), &n);
    Parsed p;

    if (!fuzz_one (d, n) || !parse (d, n, &p) || !p.ret
        || p.added != (s + 1 < seeds->len)) {
      printf ("seed %u refused or broken\n", s);
      seeds_ok = FALSE;
    }
    if (s == 2 && p.header && gst_sci_fits_header_n_cards (p.header) != 3) {
      printf ("seed 2: the cards after END were kept\n");
      seeds_ok = FALSE;
    }
    if (s == 4 && p.header && strlen (p.header) != 37 * GST_SCI_FITS_CARD_LEN) {
      printf ("seed 4: the short last card was not padded\n");
      seeds_ok = FALSE;
    }
    if (s == 6 && p.hdu != 2) {
      printf ("seed 6: hdu %d, expected 2\n", p.hdu);
      seeds_ok = FALSE;
    }
    parsed_clear (&p);
  }
  check (seeds_ok, "serialised metas (empty, with a primary header, cut at "
      "END, a short last card, unknown records) parse back to themselves at "
      "every alignment");

  for (it = 0; it < iterations; it++) {
    gsize n;
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (seeds,
            rng () % seeds->len), &n);
    Parsed p;

    memcpy (buf, d, n);
    n = mutate (buf, n, CAP, seeds);
    if (!fuzz_one (buf, n)) {
      if (broken++ < 5)
        printf ("iteration %u: a broken promise\n", it);
    }
    parse (buf, n, &p);
    added += p.added;
    refused += !p.ret;
    parsed_clear (&p);
  }
  snprintf (what, sizeof what, "%u mutated record sets (%u gave a meta, %u "
      "refused): promises kept at every alignment, no crash", iterations,
      added, refused);
  check (broken == 0, what);
  printf ("%s\n", what);
  g_ptr_array_unref (seeds);
  printf ("%u passed, %u failed\n", check_passed, check_failed);
  return check_failed ? 1 : 0;
}
#endif
