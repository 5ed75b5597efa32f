/*
 * Fuzz target of the GstSciSegyMeta records parser
 * (gst_buffer_add_sci_segy_meta_from_records, gst/gstscisegymeta.c): what
 * seismicdec runs on the metadata section of every frame it decodes.
 *
 * As a libFuzzer target (LLVMFuzzerTestOneInput), built with clang
 * (docs/fuzzing.md):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DSCI_FUZZ_LIBFUZZER \
 *     -I. -Igst tests/segy/fuzz_segy_meta.c gst/gstscisegymeta.c gst/gstscifitsmeta.c \
 *     $(pkg-config --cflags --libs gstreamer-1.0 libzstd) -lm \
 *     -o fuzz-segy-meta && ./fuzz-segy-meta -max_total_time=60 corpus/
 *
 * An input is the gather's trace count (its first byte: 0 to 255) and the
 * records (the rest).  Beyond not crashing, what the parser promises must
 * hold: records it refuses add nothing; records it takes add one meta whose
 * file header is 3600 + 3200 k bytes with k at most 32767 and as many as
 * its binary header counts (where that reads as one and counts a fixed
 * number), and whose trace headers are 240 bytes each, no more than the
 * gather's traces; and the meta serialised again reads back to the same
 * bytes.
 *
 * Without -DSCI_FUZZ_LIBFUZZER, main replays seeds (serialised metas of
 * several sizes, extended headers counted and variable, records in other
 * orders and among foreign ones) and random mutations of them (bit and
 * byte flips, truncations, insertions, record lengths and tags changed,
 * records dropped or repeated, zstd frame headers changed, announced
 * sizes made huge), checking the same: the test 'fuzz-segy-meta' of suite
 * codec.  --iterations N, --seed S, --write-seeds DIR (the seeds as a
 * libFuzzer corpus).
 */
#define _GNU_SOURCE             /* memmem */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gst/gst.h>

#include "gst/gstscifitsmeta.h"
#include "gst/gstscisegymeta.h"

/* Little-endian 32-bit integers at any address (the records' lengths). */
static guint32
get32le (const guint8 * p)
{
  return p[0] | p[1] << 8 | p[2] << 16 | (guint32) p[3] << 24;
}

static void
set32le (guint8 * p, guint32 v)
{
  p[0] = v;
  p[1] = v >> 8;
  p[2] = v >> 16;
  p[3] = v >> 24;
}

/* Parses one input; 1 taken, 0 refused, -1 a broken promise. */
static int
fuzz_one (const guint8 * data, gsize size)
{
  GstBuffer *buf, *again;
  GstSciSegyMeta *m, *m2;
  GstSciSegyBinaryHeader h;
  gboolean added = TRUE, ok, added2 = FALSE;
  guint64 traces;
  gsize flen, tlen;
  const guint8 *fh;
  gchar *why = NULL;
  GBytes *rec;
  int r = 1;

  if (size < 1)
    return 0;
  traces = data[0];
  buf = gst_buffer_new ();
  ok = gst_buffer_add_sci_segy_meta_from_records (buf, data + 1, size - 1,
      traces, &added);
  m = gst_buffer_get_sci_segy_meta (buf);
  if (!ok || !added) {
    r = (m == NULL && !added) ? 0 : -1;
    gst_buffer_unref (buf);
    return r;
  }
  if (!m) {
    gst_buffer_unref (buf);
    return -1;
  }
  fh = g_bytes_get_data (m->file_header, &flen);
  tlen = g_bytes_get_size (m->trace_headers);
  if (flen < 3600 || (flen - 3600) % 3200 != 0
      || (flen - 3600) / 3200 > GST_SCI_SEGY_MAX_EXT_HEADERS
      || tlen % 240 != 0 || tlen / 240 > traces)
    r = -1;
  if (r > 0 && gst_sci_segy_binary_header_parse (fh + 3200, &h, &why)
      && h.ext_headers >= 0 && (gsize) h.ext_headers != (flen - 3600) / 3200)
    r = -1;
  g_free (why);
  /* serialised again, the same */
  rec = r > 0 ? gst_sci_segy_meta_serialize (m) : NULL;
  if (r > 0 && !rec)
    r = -1;
  if (rec) {
    again = gst_buffer_new ();
    if (!gst_buffer_add_sci_segy_meta_from_records (again,
            g_bytes_get_data (rec, NULL), g_bytes_get_size (rec), traces,
            &added2) || !added2)
      r = -1;
    m2 = gst_buffer_get_sci_segy_meta (again);
    if (r > 0 && (!m2 || !g_bytes_equal (m2->file_header, m->file_header)
            || !g_bytes_equal (m2->trace_headers, m->trace_headers)
            || m2->first_trace != m->first_trace))
      r = -1;
    gst_buffer_unref (again);
    g_bytes_unref (rec);
  }
  gst_buffer_unref (buf);
  return r;
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
  if (fuzz_one (data, size) < 0)
    abort ();
  return 0;
}

#ifndef SCI_FUZZ_LIBFUZZER
#include "tests/common/testutil.h"

/* The records of a meta: a file header of `ext` extended headers counted
 * by its binary header as `count` (IBM floats, 10 samples), `traces`
 * trace headers of text-like bytes; the input: `traces` + the records. */
static GByteArray *
seed (guint ext, gint count, guint traces, gboolean foreign)
{
  gsize flen = 3600 + 3200 * (gsize) ext, i;
  guint8 *f = g_malloc (flen), *t = g_malloc (240 * traces + 1);
  GBytes *fb, *tb, *rec;
  GstBuffer *buf = gst_buffer_new ();
  GByteArray *a = g_byte_array_new ();
  guint8 n = traces;

  for (i = 0; i < flen; i++)
    f[i] = rng () % 3 ? 0x40 : 0xc1 + rng () % 9;
  memset (f + 3200, 0, 400);
  f[3220] = 0;
  f[3221] = 10;
  f[3224] = 0;
  f[3225] = 1;
  f[3504] = (guint16) count >> 8;
  f[3505] = count & 0xff;
  if (count < 0)
    memcpy (f + flen - 100, "((SEG: EndText))", 16);
  for (i = 0; i < 240 * (gsize) traces; i++)
    t[i] = rng () % 4 ? 0 : rng ();
  fb = g_bytes_new_take (f, flen);
  tb = g_bytes_new_take (t, 240 * traces);
  gst_buffer_add_sci_segy_meta (buf, fb, tb, rng () % 100000);
  rec = gst_sci_segy_meta_serialize (gst_buffer_get_sci_segy_meta (buf));
  g_byte_array_append (a, &n, 1);
  if (foreign)
    gst_sci_meta_append_record (a, "FHDR", "SIMPLE  =", 9);
  g_byte_array_append (a, g_bytes_get_data (rec, NULL), g_bytes_get_size (rec));
  if (foreign)
    gst_sci_meta_append_record (a, "XXXX", "abc", 3);
  g_bytes_unref (rec);
  g_bytes_unref (fb);
  g_bytes_unref (tb);
  gst_buffer_unref (buf);
  return a;
}

/* Changes the input at random; its new length. */
static gsize
mutate (guint8 * b, gsize len, gsize cap)
{
  guint n = 1 + rng () % 4, k;

  for (k = 0; k < n && len > 1; k++) {
    gsize at = 1 + rng () % (len - 1);

    switch (rng () % 9) {
      case 0:                  /* a bit */
        b[at] ^= 1u << (rng () % 8);
        break;
      case 1:                  /* a byte */
        b[at] = rng ();
        break;
      case 2:                  /* cut */
        len = at;
        break;
      case 3:                  /* insert a few bytes */
        if (len + 8 <= cap) {
          guint m = 1 + rng () % 8, i;

          memmove (b + at + m, b + at, len - at);
          for (i = 0; i < m; i++)
            b[at + i] = rng ();
          len += m;
        }
        break;
      case 4:                  /* delete a run */
      {
        gsize run = 1 + rng () % 16;

        run = MIN (run, len - at);

        memmove (b + at, b + at + run, len - at - run);
        len -= run;
        break;
      }
      case 5:                  /* a record's length or tag */
      {
        gsize off = 1;

        while (off + 8 <= len && rng () % 3) {
          gsize next = off + 8 + get32le (b + off + 4);

          if (next > len)
            break;
          off = next;
        }
        if (off + 8 <= len) {
          static const gchar *const tags[] = { "SYFZ", "SYTZ", "SYFT",
            "FHDR"
          };

          if (rng () % 2)
            set32le (b + off + 4, get32le (b + off + 4) + (gint) (rng () % 9)
                - 4);
          else
            memcpy (b + off, tags[rng () % 4], 4);
        }
        break;
      }
      case 6:                  /* a zstd frame header: its content size */
      {
        guint8 *z = memmem (b, len, "\x28\xb5\x2f\xfd", 4);

        if (z && z + 13 <= b + len)
          z[5 + rng () % 8] = rng ();
        break;
      }
      case 7:                  /* the gather's traces */
        b[0] = rng ();
        break;
      default:                 /* a run repeated */
        if (len + 64 <= cap) {
          gsize run = 1 + rng () % 64;

          run = MIN (run, len - at);

          memmove (b + at + run, b + at, len - at);
          len += run;
        }
        break;
    }
  }
  return len;
}

int
main (int argc, char **argv)
{
  static const struct
  {
    guint ext;
    gint count;
    guint traces;
    gboolean foreign;
  } shapes[] = {
    {0, 0, 1, FALSE}, {0, 0, 96, TRUE}, {2, 2, 7, FALSE}, {1, -1, 3, TRUE},
    {3, -1, 0, FALSE}, {1, 1, 255, FALSE},
  };
  const gchar *seeds_dir = NULL;
  guint iterations = 20000, i, s, taken = 0, refused = 0, broken = 0;
  GByteArray *seeds[G_N_ELEMENTS (shapes)];
  enum
  { CAP = 1 << 20 };
  guint8 *buf = g_malloc (CAP);
  gchar what[200];
  int r;

  for (i = 1; i + 1 < (guint) argc; i += 2) {
    if (!strcmp (argv[i], "--iterations"))
      iterations = strtoul (argv[i + 1], NULL, 0);
    else if (!strcmp (argv[i], "--seed"))
      rng_state = strtoull (argv[i + 1], NULL, 0);
    else if (!strcmp (argv[i], "--write-seeds"))
      seeds_dir = argv[i + 1];
  }
  gst_init (NULL, NULL);
  for (s = 0; s < G_N_ELEMENTS (shapes); s++) {
    seeds[s] = seed (shapes[s].ext, shapes[s].count, shapes[s].traces,
        shapes[s].foreign);
    r = fuzz_one (seeds[s]->data, seeds[s]->len);
    snprintf (what, sizeof what, "seed %u (%u extended headers, %u traces) "
        "taken and read back", s, shapes[s].ext, shapes[s].traces);
    check (r == 1, what);
    if (seeds_dir) {
      gchar *p = g_strdup_printf ("%s/seed-%u", seeds_dir, s);

      g_mkdir_with_parents (seeds_dir, 0755);
      g_file_set_contents (p, (const gchar *) seeds[s]->data, seeds[s]->len,
          NULL);
      g_free (p);
    }
  }
  /* a seed with too few traces for its trace headers is refused */
  buf[0] = 6;
  memcpy (buf + 1, seeds[2]->data + 1, seeds[2]->len - 1);
  check (fuzz_one (buf, seeds[2]->len) == 0, "7 trace headers for a gather "
      "of 6 traces refused");

  for (i = 0; i < iterations; i++) {
    GByteArray *a = seeds[rng () % G_N_ELEMENTS (shapes)];
    gsize len = MIN (a->len, (gsize) CAP);

    memcpy (buf, a->data, len);
    len = mutate (buf, len, CAP);
    r = fuzz_one (buf, len);
    if (r < 0)
      printf ("broken promise at iteration %u (--seed to replay)\n", i);
    broken += r < 0;
    taken += r > 0;
    refused += r == 0;
  }
  snprintf (what, sizeof what, "%u mutated records (%u taken, %u refused): "
      "every promise kept, no crash", iterations, taken, refused);
  check (broken == 0, what);
  check (taken > 0 && refused > iterations / 4, "both outcomes occur");
  for (s = 0; s < G_N_ELEMENTS (shapes); s++)
    g_byte_array_unref (seeds[s]);
  g_free (buf);
  printf ("%u passed, %u failed\n", check_passed, check_failed);
  return check_failed ? 1 : 0;
}
#endif
