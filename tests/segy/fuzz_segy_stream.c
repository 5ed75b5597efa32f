/*
 * Fuzz target of segyparse's byte-stream parsing (GstSegyStream,
 * elements/segy/gstsegystream.c, with elements/segy/gstsegyformat.c and the SEG-Y
 * code of gst/gstscisegymeta.c).
 *
 * As a libFuzzer target (LLVMFuzzerTestOneInput), built with clang
 * (docs/fuzzing.md):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DSCI_FUZZ_LIBFUZZER \
 *     -I. -Igst -Ielements tests/segy/fuzz_segy_stream.c elements/segy/gstsegystream.c \
 *     elements/segy/gstsegyformat.c gst/gstscisegymeta.c gst/gstscifitsmeta.c \
 *     $(pkg-config --cflags --libs gstreamer-base-1.0 libzstd) -lm \
 *     -o fuzz-segy-stream && ./fuzz-segy-stream -max_total_time=60 corpus/
 *
 * An input is the parser's settings (byte 0: gather-traces 1 to 32; byte 1:
 * the gather key; bytes 2-3: how the stream is cut) and the stream (the
 * rest).  The stream is parsed twice, in one buffer and in chunks of 1 to
 * 600 bytes (the parser asked for what is ready after each one, as the
 * element does), and what comes out must be the same both times, gather
 * for gather and message for message.  And it must be right: gathers of
 * consecutive traces from trace 0, each the size its traces say, its meta
 * holding the stream's own header bytes and trace headers, of the
 * gather-traces size but the last, or runs of one key value ended by
 * another; a stream read without error consumed to its last byte, one
 * that ended inside a trace shorter than a trace past the last gather; at
 * most one error, last, with a reason.
 *
 * Without -DSCI_FUZZ_LIBFUZZER, main replays generated SEG-Y streams
 * (every format, both byte orders, extended headers counted and variable,
 * key runs) and random mutations of them (header fields, trace keys and
 * intervals, bytes cut, inserted or removed, junk appended) under random
 * settings, checking the same: the test 'fuzz-segy-stream' of suite codec.
 * --iterations N, --seed S, --write-seeds DIR.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gst/gst.h>

#include "elements/segy/gstsegystream.h"

/* What came out of one parse. */
typedef struct
{
  GPtrArray *gathers;           /* GstBuffer */
  GPtrArray *caps;              /* gchar *: the caps of each */
  GPtrArray *messages;          /* gchar *: "W|E domain code text|debug" */
  gboolean error;
} Outcome;

static void
outcome_init (Outcome * o)
{
  o->gathers = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  o->caps = g_ptr_array_new_with_free_func (g_free);
  o->messages = g_ptr_array_new_with_free_func (g_free);
  o->error = FALSE;
}

static void
outcome_clear (Outcome * o)
{
  g_ptr_array_unref (o->gathers);
  g_ptr_array_unref (o->caps);
  g_ptr_array_unref (o->messages);
}

/* Takes what is ready; FALSE on a broken promise (output after the end). */
static gboolean
take (GstSegyStream * s, Outcome * o)
{
  for (;;) {
    GstBuffer *g;
    GstSegyStreamMessage *m;
    GstSegyStreamResult r = gst_segy_stream_next (s, &g, &m);
    GstCaps *caps;

    if (o->error && r != GST_SEGY_STREAM_DONE && r != GST_SEGY_STREAM_NEED_DATA)
      return FALSE;
    switch (r) {
      case GST_SEGY_STREAM_GATHER:
        caps = gst_segy_stream_caps (s, GST_BUFFER_OFFSET_END (g) -
            GST_BUFFER_OFFSET (g));
        if (!caps) {
          gst_buffer_unref (g);
          return FALSE;
        }
        g_ptr_array_add (o->caps, gst_caps_to_string (caps));
        gst_caps_unref (caps);
        g_ptr_array_add (o->gathers, g);
        break;
      case GST_SEGY_STREAM_WARNING:
      case GST_SEGY_STREAM_ERROR:
        if (!m->text || !m->text[0] || !m->debug || !m->debug[0]) {
          gst_segy_stream_message_free (m);
          return FALSE;
        }
        g_ptr_array_add (o->messages, g_strdup_printf ("%c %s %d %s|%s",
                r == GST_SEGY_STREAM_ERROR ? 'E' : 'W',
                g_quark_to_string (m->domain), m->code, m->text, m->debug));
        o->error |= r == GST_SEGY_STREAM_ERROR;
        gst_segy_stream_message_free (m);
        break;
      case GST_SEGY_STREAM_NEED_DATA:
      case GST_SEGY_STREAM_DONE:
        return TRUE;
    }
  }
}

/* Parses `data` in chunks (`cut`: the generator of their sizes; 0: one
 * buffer); FALSE on a broken promise. */
static gboolean
parse (const guint8 * data, gsize len, guint gather_traces,
    GstSegyGatherKey key, guint32 cut, Outcome * o)
{
  GstSegyStream *s = gst_segy_stream_new (gather_traces, key);
  gboolean ok = TRUE;
  gsize off = 0;

  while (off < len && ok) {
    gsize n = len - off;

    if (cut) {
      cut = cut * 1103515245u + 12345u;
      n = MIN (n, (cut >> 16) % 8 ? 1 + (cut >> 16) % 600 : 1);
    }
    gst_segy_stream_push (s, gst_buffer_new_memdup (data + off, n));
    off += n;
    ok = take (s, o);
  }
  gst_segy_stream_finish (s);
  ok = ok && take (s, o);
  /* done is done */
  if (ok) {
    GstBuffer *g;
    GstSegyStreamMessage *m;

    ok = gst_segy_stream_next (s, &g, &m) == GST_SEGY_STREAM_DONE;
  }
  gst_segy_stream_free (s);
  return ok;
}

static gboolean
same (Outcome * a, Outcome * b)
{
  guint i;

  if (a->gathers->len != b->gathers->len
      || a->messages->len != b->messages->len || a->error != b->error)
    return FALSE;
  for (i = 0; i < a->messages->len; i++)
    if (strcmp (a->messages->pdata[i], b->messages->pdata[i]) != 0)
      return FALSE;
  for (i = 0; i < a->gathers->len; i++) {
    GstBuffer *x = a->gathers->pdata[i], *y = b->gathers->pdata[i];
    GstSciSegyMeta *mx = gst_buffer_get_sci_segy_meta (x);
    GstSciSegyMeta *my = gst_buffer_get_sci_segy_meta (y);
    GstMapInfo p, q;
    gboolean eq;

    if (strcmp (a->caps->pdata[i], b->caps->pdata[i]) != 0 || !mx || !my
        || GST_BUFFER_OFFSET (x) != GST_BUFFER_OFFSET (y)
        || GST_BUFFER_OFFSET_END (x) != GST_BUFFER_OFFSET_END (y)
        || !g_bytes_equal (mx->file_header, my->file_header)
        || !g_bytes_equal (mx->trace_headers, my->trace_headers)
        || mx->first_trace != my->first_trace)
      return FALSE;
    gst_buffer_map (x, &p, GST_MAP_READ);
    gst_buffer_map (y, &q, GST_MAP_READ);
    eq = p.size == q.size && memcmp (p.data, q.data, p.size) == 0;
    gst_buffer_unmap (x, &p);
    gst_buffer_unmap (y, &q);
    if (!eq)
      return FALSE;
  }
  return TRUE;
}

/* The gathers are the stream's traces, as promised. */
static gboolean
right (const guint8 * data, gsize len, guint gather_traces,
    GstSegyGatherKey key, Outcome * o)
{
  guint key_byte = gst_segy_gather_key_byte (key), i, t;
  guint64 next = 0, header_len = 0;
  GstSegyLayout l;
  GBytes *fh = NULL;
  gfloat *want = NULL;
  guint32 last_key = 0;
  guint last_n = 0;

  for (i = 0; i < o->gathers->len; i++) {
    GstBuffer *g = o->gathers->pdata[i];
    GstSciSegyMeta *m = gst_buffer_get_sci_segy_meta (g);
    guint n = GST_BUFFER_OFFSET_END (g) - GST_BUFFER_OFFSET (g);
    const guint8 *th;
    GstMapInfo map;
    gboolean ok;

    if (!m || GST_BUFFER_OFFSET (g) != next || m->first_trace != next || n == 0)
      return FALSE;
    if (!fh) {
      GstStreamError code;
      gchar *why = NULL;

      fh = m->file_header;
      header_len = g_bytes_get_size (fh);
      if (header_len < 3600 || header_len > len
          || memcmp (g_bytes_get_data (fh, NULL), data, header_len) != 0
          || !gst_segy_layout_init (&l, data, &code, &why)) {
        g_free (why);
        return FALSE;
      }
    } else if (!g_bytes_equal (fh, m->file_header)) {
      return FALSE;
    }
    /* its traces are the stream's */
    if (header_len + (next + n) * l.trace_bytes > len
        || g_bytes_get_size (m->trace_headers) != (gsize) n * 240)
      return FALSE;
    th = g_bytes_get_data (m->trace_headers, NULL);
    want = g_renew (gfloat, want, (gsize) n * l.bin.samples);
    for (t = 0; t < n; t++) {
      const guint8 *tr = data + header_len + (next + t) * l.trace_bytes;

      if (memcmp (th + 240 * t, tr, 240) != 0)
        return FALSE;
      gst_sci_segy_samples_to_float (l.bin.format, l.bin.little_endian,
          tr + 240, want + (gsize) t * l.bin.samples, l.bin.samples);
      /* one key value a gather */
      if (key_byte && gst_segy_layout_trace_key (&l, tr, key_byte) !=
          gst_segy_layout_trace_key (&l, th, key_byte))
        return FALSE;
    }
    gst_buffer_map (g, &map, GST_MAP_READ);
    ok = map.size == (gsize) n *l.bin.samples * 4
        && memcmp (map.data, want, map.size) == 0;
    gst_buffer_unmap (g, &map);
    if (!ok)
      return FALSE;
    /* the gathers' sizes: gather-traces but the last; runs of a key */
    if (!key_byte && i + 1 < o->gathers->len
        && n != MIN (gather_traces, l.max_traces))
      return FALSE;
    if (key_byte && i > 0 && last_n < l.max_traces
        && gst_segy_layout_trace_key (&l, th, key_byte) == last_key)
      return FALSE;
    if (key_byte)
      last_key = gst_segy_layout_trace_key (&l, th, key_byte);
    last_n = n;
    next += n;
  }
  g_free (want);
  if (!fh)
    return TRUE;
  /* all of it read, or the end inside the trace after the last gather */
  if (!o->error)
    return header_len + next * l.trace_bytes == len;
  return len - (header_len + next * l.trace_bytes) < l.trace_bytes;
}

/* One input; FALSE on a broken promise. */
static gboolean
fuzz_one (const guint8 * data, gsize size)
{
  guint gather_traces;
  GstSegyGatherKey key;
  guint32 cut;
  Outcome a, b;
  gboolean ok;

  if (size < 4)
    return TRUE;
  gather_traces = 1 + data[0] % 32;
  key = data[1] % 7;
  cut = 1 + (data[2] | data[3] << 8);
  outcome_init (&a);
  outcome_init (&b);
  ok = parse (data + 4, size - 4, gather_traces, key, 0, &a)
      && parse (data + 4, size - 4, gather_traces, key, cut, &b)
      && same (&a, &b) && right (data + 4, size - 4, gather_traces, key, &a);
  outcome_clear (&a);
  outcome_clear (&b);
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

static void
put (guint8 * p, guint64 v, guint n, gboolean le)
{
  guint i;

  for (i = 0; i < n; i++)
    p[le ? i : n - 1 - i] = (v >> (8 * i)) & 0xff;
}

/* An input: settings, then a SEG-Y stream of random shape. */
static GByteArray *
make_stream (void)
{
  static const guint formats[] = { 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 15,
    16
  };
  guint fmt = formats[rng () % G_N_ELEMENTS (formats)];
  guint sb = gst_sci_segy_format_bytes (fmt);
  guint samples = 1 + rng () % 24, traces = rng () % 40, run = 1 + rng () % 6;
  gint ext = (gint) (rng () % 4) - 1;
  guint records = ext < 0 ? 1 + rng () % 3 : (guint) ext, i, t;
  gboolean le = rng () % 2;
  GByteArray *a = g_byte_array_new ();
  guint8 *h;

  g_byte_array_set_size (a, 4 + 3600 + 3200 * records);
  h = a->data;
  h[0] = rng ();
  h[1] = rng ();
  h[2] = rng ();
  h[3] = rng ();
  h += 4;
  for (i = 0; i < 3200 * (records + 1); i++)
    h[i < 3200 ? i : i + 400] = i % 80 ? 0x40 : 0xc3;
  memset (h + 3200, 0, 400);
  put (h + 3216, rng () % 4 ? 2000 : 0, 2, le);
  put (h + 3220, samples, 2, le);
  put (h + 3224, fmt, 2, le);
  put (h + 3504, (guint16) ext, 2, le);
  if (ext < 0)
    memcpy (h + 3600 + 3200 * records - 200, "((SEG: EndText))", 16);
  for (t = 0; t < traces; t++) {
    guint off = a->len;
    guint8 *tr;

    g_byte_array_set_size (a, off + 240 + samples * sb);
    tr = a->data + off;
    for (i = 0; i < 240 + samples * sb; i++)
      tr[i] = rng ();
    put (tr + 8, t / run, 4, le);
    put (tr + 20, (t + 1) / run, 4, le);
    put (tr + 16, 7, 4, le);
    put (tr + 116, rng () % 2 ? 1000 : 0, 2, le);
  }
  return a;
}

static gsize
mutate (guint8 * b, gsize len, gsize cap)
{
  static const guint hot[] = { 3216, 3217, 3220, 3221, 3224, 3225, 3268,
    3271, 3279, 3500, 3504, 3505, 3506, 3508, 3509
  };
  guint n = rng () % 4, k;

  for (k = 0; k < n && len > 8; k++) {
    gsize at = 4 + rng () % (len - 4);

    switch (rng () % 8) {
      case 0:                  /* a field of the binary header */
        if (len > 4 + 3600)
          b[4 + hot[rng () % G_N_ELEMENTS (hot)]] = rng () % 2 ? rng () :
              rng () % 3;
        break;
      case 1:                  /* a byte anywhere */
        b[at] = rng ();
        break;
      case 2:                  /* the stream cut */
        len = at;
        break;
      case 3:                  /* bytes inserted: the traces shift */
        if (len + 16 <= cap) {
          guint m = 1 + rng () % 16, i;

          memmove (b + at + m, b + at, len - at);
          for (i = 0; i < m; i++)
            b[at + i] = rng ();
          len += m;
        }
        break;
      case 4:                  /* bytes removed */
      {
        gsize run = 1 + rng () % 16;

        run = MIN (run, len - at);

        memmove (b + at, b + at + run, len - at - run);
        len -= run;
        break;
      }
      case 5:                  /* junk after the end */
        if (len + 64 <= cap) {
          guint m = 1 + rng () % 64, i;

          for (i = 0; i < m; i++)
            b[len + i] = rng ();
          len += m;
        }
        break;
      case 6:                  /* the settings */
        b[rng () % 4] = rng ();
        break;
      default:                 /* a key field: runs joined or split */
        if (len > 4 + 3600 + 240)
          b[4 + 3600 + 8 + rng () % (len - 4 - 3600 - 8)] ^= 1;
        break;
    }
  }
  return len;
}

int
main (int argc, char **argv)
{
  guint iterations = 4000, i, broken = 0, errors = 0, gathers = 0;
  const gchar *seeds_dir = NULL;
  enum
  { CAP = 1 << 18 };
  guint8 *buf = g_malloc (CAP);
  gchar what[200];

  for (i = 1; i + 1 < (guint) argc; i += 2) {
    if (!strcmp (argv[i], "--iterations"))
      iterations = strtoul (argv[i + 1], NULL, 0);
    else if (!strcmp (argv[i], "--seed"))
      rng_state = strtoull (argv[i + 1], NULL, 0);
    else if (!strcmp (argv[i], "--write-seeds"))
      seeds_dir = argv[i + 1];
  }
  gst_init (NULL, NULL);
  for (i = 0; i < iterations; i++) {
    GByteArray *a = make_stream ();
    gsize len = MIN ((gsize) a->len, (gsize) CAP);
    Outcome o;

    memcpy (buf, a->data, len);
    g_byte_array_unref (a);
    if (seeds_dir && i < 32) {
      gchar *p = g_strdup_printf ("%s/seed-%u", seeds_dir, i);

      g_mkdir_with_parents (seeds_dir, 0755);
      g_file_set_contents (p, (const gchar *) buf, len, NULL);
      g_free (p);
    }
    if (i % 4)
      len = mutate (buf, len, CAP);
    if (!fuzz_one (buf, len)) {
      printf ("broken promise at iteration %u (--seed to replay)\n", i);
      broken++;
      continue;
    }
    /* what the outcomes were */
    outcome_init (&o);
    parse (buf + 4, len - 4, 1 + buf[0] % 32, buf[1] % 7, 0, &o);
    errors += o.error;
    gathers += o.gathers->len;
    outcome_clear (&o);
  }
  snprintf (what, sizeof what, "%u streams, 3 in 4 mutated (%u gathers, %u "
      "ended by an error): the same in chunks, right, no crash",
      iterations, gathers, errors);
  check (broken == 0, what);
  check (errors > iterations / 10 && errors < iterations, "both outcomes "
      "occur");
  g_free (buf);
  printf ("%u passed, %u failed\n", check_passed, check_failed);
  return check_failed ? 1 : 0;
}
#endif
