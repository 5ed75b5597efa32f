/*
 * envisrc and envisink in pipelines: round trips appsrc -> envisink ->
 * envisrc -> appsink for every format and interleave at awkward sizes
 * (read back as stored and in every other order), hand-written headers
 * and data files (BSQ, BIL, big-endian, header offsets, data file or
 * header named, lists over several lines, CRLF), the real Indian Pines
 * cube of ../shared/data/hyperspectral (SCI_TEST_DATA_DIR; skipped where
 * absent) against its raw bytes, and refusals: each must post an ERROR
 * message that says why, never crash.
 */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

typedef enum
{
  BIP,
  BIL,
  BSQ,
} Order;

static const gchar *const order_names[] = { "bip", "bil", "bsq" };

typedef struct
{
  const gchar *format;
  gint bytes;
  gint envi_type;
} Format;

static const Format formats[] = {
  {"U8", 1, 1},
  {"S16LE", 2, 2},
  {"U16LE", 2, 12},
  {"F32LE", 4, 4},
};

/* ---- helpers ---- */

static guint32 rng_state = 12345;

static guint32
rng (void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

/* Index of value (line l, sample s, band b) in order `o`. */
static gsize
index_of (Order o, gint L, gint S, gint B, gint l, gint s, gint b)
{
  switch (o) {
    case BIP:
      return ((gsize) l * S + s) * B + b;
    case BIL:
      return ((gsize) l * B + b) * S + s;
    default:
      return ((gsize) b * L + l) * S + s;
  }
}

/* `src` (in order `from`) rearranged into order `to`. */
static guint8 *
reorder (const guint8 * src, Order from, Order to, gint L, gint S, gint B,
    gint bytes)
{
  guint8 *dst = g_malloc ((gsize) L * S * B * bytes);
  gint l, s, b;

  for (l = 0; l < L; l++)
    for (s = 0; s < S; s++)
      for (b = 0; b < B; b++)
        memcpy (dst + index_of (to, L, S, B, l, s, b) * bytes,
            src + index_of (from, L, S, B, l, s, b) * bytes, bytes);
  return dst;
}

/* Random values of a format; floats finite. */
static guint8 *
random_cube (const Format * f, gsize n)
{
  guint8 *d = g_malloc (n * f->bytes);
  gsize i;

  for (i = 0; i < n; i++) {
    if (f->bytes == 4) {
      gfloat v = ((gint32) rng () / 65536.0f) * (rng () % 3 ? 1.0f : 1e-3f);

      memcpy (d + 4 * i, &v, 4);
    } else if (f->bytes == 2) {
      guint16 v = rng () >> 7;

      memcpy (d + 2 * i, &v, 2);
    } else {
      d[i] = rng () >> 11;
    }
  }
  return d;
}

static gchar *
tmp_dir (void)
{
  GError *err = NULL;
  gchar *dir = g_dir_make_tmp ("test-envi-XXXXXX", &err);

  fail_unless (dir != NULL, "%s", err ? err->message : "");
  return dir;
}

/* Removes a flat directory and what it holds. */
static void
remove_dir (gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  if (d) {
    while ((name = g_dir_read_name (d))) {
      gchar *p = g_build_filename (dir, name, NULL);

      g_unlink (p);
      g_free (p);
    }
    g_dir_close (d);
  }
  g_rmdir (dir);
  g_free (dir);
}

static void
write_bytes (const gchar * path, gconstpointer data, gsize len)
{
  FILE *f = fopen (path, "wb");

  fail_unless (f != NULL, "cannot write %s", path);
  if (len)
    fail_unless_equals_int (fwrite (data, 1, len, f), len);
  fclose (f);
}

static void
write_text (const gchar * path, const gchar * text)
{
  write_bytes (path, text, strlen (text));
}

/* Runs a pipeline to EOS or ERROR: TRUE at EOS; FALSE at ERROR with its
 * message and debug text in `*error` (g_free); warnings, if asked, in
 * `*warning`.  The pipeline is left in its state (the caller stops it). */
static gboolean
run (GstElement * pipeline, gchar ** error, gchar ** warning)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gboolean eos = FALSE, done = FALSE;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    GError *err = NULL;
    gchar *dbg = NULL;

    fail_unless (m != NULL, "the pipeline neither ended nor failed");
    switch (GST_MESSAGE_TYPE (m)) {
      case GST_MESSAGE_EOS:
        eos = done = TRUE;
        break;
      case GST_MESSAGE_ERROR:
        gst_message_parse_error (m, &err, &dbg);
        if (error)
          *error = g_strdup_printf ("%s | %s", err->message, dbg);
        done = TRUE;
        break;
      case GST_MESSAGE_WARNING:
        gst_message_parse_warning (m, &err, &dbg);
        if (warning && !*warning)
          *warning = g_strdup_printf ("%s | %s", err->message, dbg);
        break;
      default:
        break;
    }
    g_clear_error (&err);
    g_free (dbg);
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  return eos;
}

static GstCaps *
cube_caps (const Format * f, Order o, gint L, gint S, gint B)
{
  return gst_caps_new_simple ("application/x-hyperspectral",
      "lines", G_TYPE_INT, L, "samples", G_TYPE_INT, S, "bands", G_TYPE_INT,
      B, "format", G_TYPE_STRING, f->format, "interleave", G_TYPE_STRING,
      order_names[o], NULL);
}

/* appsrc (the given buffers, then EOS) -> envisink location=hdr. */
static gboolean
write_cube (const gchar * hdr, GstCaps * caps, GstBuffer ** bufs, guint n,
    gchar ** error, gchar ** warning)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("appsrc", NULL);
  GstElement *sink = gst_element_factory_make ("envisink", NULL);
  GstFlowReturn flow;
  gboolean ok;
  guint i;

  fail_unless (src && sink);
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, NULL);
  if (hdr)
    g_object_set (sink, "location", hdr, NULL);
  gst_bin_add_many (GST_BIN (pipeline), src, sink, NULL);
  fail_unless (gst_element_link (src, sink));
  for (i = 0; i < n; i++) {
    g_signal_emit_by_name (src, "push-buffer", bufs[i], &flow);
    fail_unless_equals_int (flow, GST_FLOW_OK);
  }
  g_signal_emit_by_name (src, "end-of-stream", &flow);
  ok = run (pipeline, error, warning);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return ok;
}

typedef struct
{
  GstBuffer *buf;
  GstCaps *caps;
  guint n;
} Received;

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, Received * r)
{
  if (r->n++ == 0) {
    r->buf = gst_buffer_ref (buf);
    r->caps = gst_pad_get_current_caps (pad);
  }
}

/* envisrc location=path interleave=il -> fakesink: the cube and its caps,
 * or NULL with the error in `*error` (when given; a failure otherwise). */
static GstBuffer *
read_cube (const gchar * path, const gchar * il, GstCaps ** caps,
    gchar ** error)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("envisrc", NULL);
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  Received r = { NULL, NULL, 0 };
  gchar *err = NULL;

  fail_unless (src && sink);
  if (path)
    g_object_set (src, "location", path, NULL);
  if (il)
    gst_util_set_object_arg (G_OBJECT (src), "interleave", il);
  g_object_set (sink, "sync", FALSE, "signal-handoffs", TRUE, NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &r);
  gst_bin_add_many (GST_BIN (pipeline), src, sink, NULL);
  fail_unless (gst_element_link (src, sink));
  if (run (pipeline, &err, NULL))
    fail_unless_equals_int (r.n, 1);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  if (err) {
    gst_clear_buffer (&r.buf);
    gst_clear_caps (&r.caps);
  }
  if (error)
    *error = err;
  else if (err)
    fail ("reading %s: %s", path, err);
  else
    fail_unless (r.buf != NULL, "no cube from %s", path);
  if (caps)
    *caps = r.caps;
  else
    gst_clear_caps (&r.caps);
  return r.buf;
}

static void
check_caps (GstCaps * caps, const gchar * format, const gchar * il, gint L,
    gint S, gint B)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  gint v;

  fail_unless (gst_caps_is_fixed (caps));
  fail_unless (gst_structure_has_name (s, "application/x-hyperspectral"));
  fail_unless (gst_structure_get_int (s, "lines", &v));
  fail_unless_equals_int (v, L);
  fail_unless (gst_structure_get_int (s, "samples", &v));
  fail_unless_equals_int (v, S);
  fail_unless (gst_structure_get_int (s, "bands", &v));
  fail_unless_equals_int (v, B);
  fail_unless_equals_string (gst_structure_get_string (s, "format"), format);
  fail_unless_equals_string (gst_structure_get_string (s, "interleave"), il);
}

static void
check_bytes (GstBuffer * buf, gconstpointer expect, gsize len,
    const gchar * what)
{
  GstMapInfo map;
  gsize i;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, len);
  if (memcmp (map.data, expect, len) != 0) {
    for (i = 0; i < len && map.data[i] == ((const guint8 *) expect)[i]; i++);
    fail ("%s: byte %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " differs "
        "(0x%02x, expected 0x%02x)", what, i, len, map.data[i],
        ((const guint8 *) expect)[i]);
  }
  gst_buffer_unmap (buf, &map);
}

/* The data file must be a copy of `data`, the header an ENVI one. */
static void
check_written (const gchar * dir, const gchar * base, const Format * f,
    Order o, gint L, gint S, gint B, gconstpointer data)
{
  gchar *hdr = g_strdup_printf ("%s/%s.hdr", dir, base);
  gchar *raw = g_strdup_printf ("%s/%s.%s", dir, base, order_names[o]);
  gchar *text = NULL, *bytes = NULL, *want;
  gsize len;

  fail_unless (g_file_get_contents (raw, &bytes, &len, NULL), "%s", raw);
  fail_unless_equals_uint64 (len, (gsize) L * S * B * f->bytes);
  fail_unless (memcmp (bytes, data, len) == 0, "%s differs", raw);
  fail_unless (g_file_get_contents (hdr, &text, NULL, NULL), "%s", hdr);
  fail_unless (g_str_has_prefix (text, "ENVI\n"));
  want = g_strdup_printf ("samples = %d\nlines = %d\nbands = %d\n"
      "header offset = 0\nfile type = ENVI Standard\ndata type = %d\n"
      "interleave = %s\nbyte order = 0\n", S, L, B, f->envi_type,
      order_names[o]);
  fail_unless (strstr (text, want) != NULL, "header:\n%s", text);
  g_free (want);
  g_free (text);
  g_free (bytes);
  g_free (hdr);
  g_free (raw);
}

/* ---- round trips ---- */

GST_START_TEST (test_round_trip)
{
  static const gint sizes[][3] = {      /* lines, samples, bands */
    {1, 1, 1}, {1, 37, 1}, {37, 1, 1}, {1, 1, 37}, {3, 5, 7}, {17, 13, 29},
  };
  gchar *dir = tmp_dir ();
  guint fi, si, o, r;

  for (fi = 0; fi < G_N_ELEMENTS (formats); fi++)
    for (si = 0; si < G_N_ELEMENTS (sizes); si++)
      for (o = BIP; o <= BSQ; o++) {
        const Format *f = &formats[fi];
        gint L = sizes[si][0], S = sizes[si][1], B = sizes[si][2];
        gsize n = (gsize) L * S * B, len = n * f->bytes;
        guint8 *data = random_cube (f, n);
        gchar *base = g_strdup_printf ("c-%s-%dx%dx%d", f->format, L, S, B);
        gchar *hdr = g_strdup_printf ("%s/%s.hdr", dir, base);
        GstCaps *caps = cube_caps (f, o, L, S, B), *got = NULL;
        GstBuffer *in = gst_buffer_new_memdup (data, len), *out;
        gchar *what;

        fail_unless (write_cube (hdr, caps, &in, 1, NULL, NULL));
        check_written (dir, base, f, o, L, S, B, data);

        /* as stored: the same bytes and caps */
        out = read_cube (hdr, "as-stored", &got, NULL);
        check_caps (got, f->format, order_names[o], L, S, B);
        what = g_strdup_printf ("%s %dx%dx%d %s as stored", f->format, L, S,
            B, order_names[o]);
        check_bytes (out, data, len, what);
        g_free (what);
        gst_buffer_unref (out);
        gst_caps_unref (got);

        /* every order, from the header or from the data file */
        for (r = BIP; r <= BSQ; r++) {
          guint8 *want = reorder (data, o, r, L, S, B, f->bytes);
          gchar *raw = g_strdup_printf ("%s/%s.%s", dir, base,
              order_names[o]);

          out = read_cube (r % 2 ? raw : hdr, order_names[r], &got, NULL);
          check_caps (got, f->format, order_names[r], L, S, B);
          what = g_strdup_printf ("%s %dx%dx%d %s read as %s", f->format, L,
              S, B, order_names[o], order_names[r]);
          check_bytes (out, want, len, what);
          g_free (what);
          gst_buffer_unref (out);
          gst_caps_unref (got);
          g_free (want);
          g_free (raw);
        }
        /* the default is bip */
        if (si == 4) {
          guint8 *want = reorder (data, o, BIP, L, S, B, f->bytes);

          out = read_cube (hdr, NULL, &got, NULL);
          check_caps (got, f->format, "bip", L, S, B);
          check_bytes (out, want, len, "default interleave");
          gst_buffer_unref (out);
          gst_caps_unref (got);
          g_free (want);
        }
        gst_buffer_unref (in);
        gst_caps_unref (caps);
        g_free (data);
        g_free (base);
        g_free (hdr);
      }
  remove_dir (dir);
}

GST_END_TEST;

/* ---- hand-written files ---- */

/* `n` values of `f` (their numbers `vals`) stored with byte order `big`. */
static guint8 *
store_values (const Format * f, const gdouble * vals, gsize n, gboolean big)
{
  guint8 *d = g_malloc (n * f->bytes);
  gsize i;

  for (i = 0; i < n; i++) {
    guint8 *p = d + i * f->bytes;

    switch (f->envi_type) {
      case 1:
        p[0] = (guint8) vals[i];
        break;
      case 2:
      case 12:{
        guint16 v = f->envi_type == 2 ? (guint16) (gint16) vals[i] :
            (guint16) vals[i];

        if (big)
          GST_WRITE_UINT16_BE (p, v);
        else
          GST_WRITE_UINT16_LE (p, v);
        break;
      }
      default:
        if (big)
          GST_WRITE_FLOAT_BE (p, (gfloat) vals[i]);
        else
          GST_WRITE_FLOAT_LE (p, (gfloat) vals[i]);
        break;
    }
  }
  return d;
}

typedef struct
{
  const gchar *name;
  gint fmt;                     /* index in formats */
  Order order;
  gboolean big;
  gint offset;                  /* header offset */
  const gchar *data_ext;        /* the data file's extension */
  gboolean open_data;           /* location = the data file */
  gboolean crlf;
} HandCase;

GST_START_TEST (test_hand_written)
{
  static const HandCase cases[] = {
    {"bsq-s16", 1, BSQ, FALSE, 0, ".bsq", FALSE, FALSE},
    {"bil-u16", 2, BIL, FALSE, 0, ".bil", FALSE, FALSE},
    {"bil-u16-be", 2, BIL, TRUE, 0, ".img", FALSE, FALSE},
    {"bsq-s16-be-offset", 1, BSQ, TRUE, 100, "", FALSE, TRUE},
    {"bsq-f32-be", 3, BSQ, TRUE, 0, ".dat", TRUE, FALSE},
    {"bil-f32-be-offset", 3, BIL, TRUE, 7, ".raw", TRUE, TRUE},
    {"bip-u8", 0, BIP, FALSE, 3, ".bip", TRUE, FALSE},
    {"bil-u8-offset", 0, BIL, TRUE, 1, ".BIL", FALSE, FALSE},
  };
  const gint L = 4, S = 6, B = 5;
  gchar *dir = tmp_dir ();
  guint c;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    const HandCase *hc = &cases[c];
    const Format *f = &formats[hc->fmt];
    gsize n = (gsize) L * S * B, i;
    gdouble *vals = g_new (gdouble, n);
    guint8 *stored, *bip_le, *file;
    gchar *hdr, *raw;
    GString *h = g_string_new (NULL);
    GstBuffer *out;
    GstCaps *caps;
    gint l, s, b;

    /* value(l, s, b) distinct and signed where the type is */
    for (l = 0; l < L; l++)
      for (s = 0; s < S; s++)
        for (b = 0; b < B; b++) {
          gdouble v = l * 100 + s * 10 + b;

          if (f->envi_type == 2)
            v = (l % 2 ? -1 : 1) * v * 97;
          else if (f->envi_type == 12)
            v = v * 601;
          else if (f->envi_type == 4)
            v = v / 7.0 - 3.0;
          else
            v = l * 60 + s * 7 + b;
          vals[index_of (hc->order, L, S, B, l, s, b)] = v;
        }
    stored = store_values (f, vals, n, hc->big);
    file = g_malloc (hc->offset + n * f->bytes);
    for (i = 0; i < (gsize) hc->offset; i++)
      file[i] = rng ();
    memcpy (file + hc->offset, stored, n * f->bytes);
    raw = g_strdup_printf ("%s/%s%s", dir, hc->name, hc->data_ext);
    write_bytes (raw, file, hc->offset + n * f->bytes);

    g_string_append_printf (h, "ENVI\n"
        "description = {hand-written,\n  over two lines}\n"
        "; a comment line\n"
        "samples = %d\nlines   = %d\nBands = %d\n"
        "header offset = %d\nfile type = ENVI Standard\n"
        "Data Type = %d\ninterleave = %s\nsensor type = Unknown\n"
        "byte order = %d\n"
        "wavelength units = Nanometers\n"
        "wavelength = {\n 400.0, 500.0,\n 600.0, 700.0,\n 800.0}\n",
        S, L, B, hc->offset, f->envi_type,
        hc->order == BIL ? "BIL" : order_names[hc->order], hc->big ? 1 : 0);
    if (hc->crlf) {
      gchar **parts = g_strsplit (h->str, "\n", -1);
      gchar *j = g_strjoinv ("\r\n", parts);

      g_string_assign (h, j);
      g_free (j);
      g_strfreev (parts);
    }
    hdr = g_strdup_printf ("%s/%s.hdr", dir, hc->name);
    write_text (hdr, h->str);

    /* expected: host-order (little-endian) BIP */
    {
      gdouble *bip = g_new (gdouble, n);

      for (l = 0; l < L; l++)
        for (s = 0; s < S; s++)
          for (b = 0; b < B; b++)
            bip[index_of (BIP, L, S, B, l, s, b)] =
                vals[index_of (hc->order, L, S, B, l, s, b)];
      bip_le = store_values (f, bip, n, FALSE);
      g_free (bip);
    }
    out = read_cube (hc->open_data ? raw : hdr, "bip", &caps, NULL);
    check_caps (caps, f->format, "bip", L, S, B);
    check_bytes (out, bip_le, n * f->bytes, hc->name);
    gst_buffer_unref (out);
    gst_caps_unref (caps);

    /* as stored: the file's order, swapped to the host's */
    out = read_cube (hdr, "as-stored", &caps, NULL);
    check_caps (caps, f->format, order_names[hc->order], L, S, B);
    g_free (stored);
    stored = store_values (f, vals, n, FALSE);
    check_bytes (out, stored, n * f->bytes, hc->name);
    gst_buffer_unref (out);
    gst_caps_unref (caps);

    g_string_free (h, TRUE);
    g_free (hdr);
    g_free (raw);
    g_free (file);
    g_free (stored);
    g_free (bip_le);
    g_free (vals);
  }
  remove_dir (dir);
}

GST_END_TEST;

/* ---- the real cube ---- */

#define PINES_LINES 145
#define PINES_SAMPLES 145
#define PINES_BANDS 224

GST_START_TEST (test_real_cube)
{
  const gchar *dir = g_getenv ("SCI_TEST_DATA_DIR");
  gchar *hdr, *raw, *data = NULL;
  gsize len, i;
  GstBuffer *out;
  GstCaps *caps;
  GstMapInfo map;
  gfloat lo = G_MAXFLOAT, hi = -G_MAXFLOAT;
  guint8 *bsq;

  if (!dir)
    dir = "../shared/data";
  hdr = g_build_filename (dir, "hyperspectral", "indian_pines_clean.hdr", NULL);
  raw = g_build_filename (dir, "hyperspectral", "indian_pines_clean.bip", NULL);
  if (!g_file_get_contents (raw, &data, &len, NULL)
      || !g_file_test (hdr, G_FILE_TEST_IS_REGULAR)) {
    g_print ("%s absent: real-data checks skipped\n", hdr);
    g_free (hdr);
    g_free (raw);
    g_free (data);
    return;
  }
  fail_unless_equals_uint64 (len, (gsize) PINES_LINES * PINES_SAMPLES *
      PINES_BANDS * 4);

  /* BIP, byte for byte */
  out = read_cube (hdr, NULL, &caps, NULL);
  check_caps (caps, "F32LE", "bip", PINES_LINES, PINES_SAMPLES, PINES_BANDS);
  check_bytes (out, data, len, "indian_pines_clean");
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  for (i = 0; i < len / 4; i++) {
    gfloat v = GST_READ_FLOAT_LE (map.data + 4 * i);

    lo = MIN (lo, v);
    hi = MAX (hi, v);
  }
  gst_buffer_unmap (out, &map);
  fail_unless (lo >= 0.04f && lo <= 0.06f, "min %g", lo);
  fail_unless (hi >= 0.90f && hi <= 0.92f, "max %g", hi);
  gst_buffer_unref (out);
  gst_caps_unref (caps);

  /* named by its data file, read as BSQ */
  out = read_cube (raw, "bsq", &caps, NULL);
  check_caps (caps, "F32LE", "bsq", PINES_LINES, PINES_SAMPLES, PINES_BANDS);
  bsq = reorder ((guint8 *) data, BIP, BSQ, PINES_LINES, PINES_SAMPLES,
      PINES_BANDS, 4);
  check_bytes (out, bsq, len, "indian_pines_clean as BSQ");
  g_free (bsq);
  gst_buffer_unref (out);
  gst_caps_unref (caps);

  g_free (hdr);
  g_free (raw);
  g_free (data);
}

GST_END_TEST;

/* ---- refusals ---- */

/* envisrc on `path` must post an ERROR whose text holds `expect`. */
static void
expect_read_error (const gchar * path, const gchar * expect)
{
  gchar *err = NULL;
  GstBuffer *out = read_cube (path, NULL, NULL, &err);

  fail_unless (out == NULL, "%s: a cube where an error was expected", path);
  fail_unless (err != NULL, "%s: no error message", path);
  fail_unless (strstr (err, expect) != NULL, "%s: error \"%s\" does not say "
      "\"%s\"", path, err, expect);
  GST_INFO ("%s: %s", path, err);
  g_free (err);
}

/* A header of the given fields and a data file of `data_len` bytes. */
static gchar *
make_files (const gchar * dir, const gchar * name, const gchar * header,
    gssize data_len)
{
  gchar *hdr = g_strdup_printf ("%s/%s.hdr", dir, name);

  if (header)
    write_text (hdr, header);
  if (data_len >= 0) {
    gchar *raw = g_strdup_printf ("%s/%s.bip", dir, name);
    guint8 *zero = g_malloc0 (data_len + 1);

    write_bytes (raw, zero, data_len);
    g_free (zero);
    g_free (raw);
  }
  return hdr;
}

#define HDR(s, l, b, t) "ENVI\nsamples = " #s "\nlines = " #l "\nbands = " \
  #b "\nheader offset = 0\ndata type = " #t "\ninterleave = bip\n" \
  "byte order = 0\n"

GST_START_TEST (test_read_errors)
{
  gchar *dir = tmp_dir ();
  gchar *p, *q;
  guint8 garbage[600];
  guint i;

  p = make_files (dir, "bands0", HDR (4, 3, 0, 4), 1000);
  expect_read_error (p, "bands = 0");
  g_free (p);
  p = make_files (dir, "samples0", HDR (0, 3, 2, 4), 1000);
  expect_read_error (p, "at least one");
  g_free (p);
  p = make_files (dir, "short", HDR (4, 3, 2, 4), 4 * 3 * 2 * 4 - 1);
  expect_read_error (p, "data file holds 95 bytes, the header needs 96");
  g_free (p);
  p = make_files (dir, "short-offset", "ENVI\nsamples = 4\nlines = 3\n"
      "bands = 2\nheader offset = 10\ndata type = 1\ninterleave = bsq\n", 30);
  expect_read_error (p, "data file holds 30 bytes, the header needs 34");
  g_free (p);
  p = make_files (dir, "double", HDR (4, 3, 2, 5), 4 * 3 * 2 * 8);
  expect_read_error (p, "data type 5 (float64) is not supported");
  g_free (p);
  p = make_files (dir, "complex", HDR (4, 3, 2, 6), 4 * 3 * 2 * 8);
  expect_read_error (p, "data type 6 (complex float32) is not supported");
  g_free (p);
  p = make_files (dir, "int32", HDR (4, 3, 2, 3), 4 * 3 * 2 * 4);
  expect_read_error (p, "1 (uint8), 2 (int16), 12 (uint16) and 4 (float32)");
  g_free (p);
  p = make_files (dir, "huge", HDR (65536, 65536, 1, 4), 100);
  expect_read_error (p, "more than 2^31 bytes");
  g_free (p);
  p = make_files (dir, "huge2", HDR (2147483647, 2147483647, 65535, 4), 100);
  expect_read_error (p, "more than 2^31 bytes");
  g_free (p);
  p = make_files (dir, "toomanybands", HDR (1, 1, 65536, 1), 65536);
  expect_read_error (p, "65535 bands");
  g_free (p);
  p = make_files (dir, "badinterleave", "ENVI\nsamples = 1\nlines = 1\n"
      "bands = 1\ndata type = 1\ninterleave = xyz\n", 1);
  expect_read_error (p, "interleave = \"xyz\"");
  g_free (p);
  p = make_files (dir, "badnumber", "ENVI\nsamples = abc\nlines = 1\n"
      "bands = 1\ndata type = 1\n", 1);
  expect_read_error (p, "not an integer");
  g_free (p);
  p = make_files (dir, "badorder", "ENVI\nsamples = 1\nlines = 1\n"
      "bands = 1\ndata type = 1\nbyte order = 2\n", 1);
  expect_read_error (p, "byte order = 2");
  g_free (p);
  p = make_files (dir, "nobrace", "ENVI\nsamples = 1\nlines = 1\n"
      "bands = 1\ndata type = 1\nwavelength = {1.0, 2.0\n", 1);
  expect_read_error (p, "never closed");
  g_free (p);
  /* GDAL takes "data  type" for another key and reads bytes: the element
   * notices that GDAL disagrees with the header */
  p = make_files (dir, "gdaldiffers", "ENVI\nsamples = 2\nlines = 1\n"
      "bands = 1\ndata  type = 2\n", 4);
  expect_read_error (p, "GDAL reads 2 samples x 1 lines x 1 bands of Byte");
  g_free (p);
  p = make_files (dir, "notype", "ENVI\nsamples = 1\nlines = 1\n"
      "bands = 1\n", 1);
  expect_read_error (p, "no \"data type\"");
  g_free (p);

  /* missing files */
  p = g_strdup_printf ("%s/absent.hdr", dir);
  expect_read_error (p, "no such file");
  g_free (p);
  p = make_files (dir, "nodata", HDR (1, 1, 1, 1), -1);
  expect_read_error (p, "no data file");
  g_free (p);
  p = g_strdup_printf ("%s/lonely.bip", dir);
  write_bytes (p, "x", 1);
  expect_read_error (p, "no ENVI header");
  g_free (p);
  expect_read_error (NULL, "location is not set");
  expect_read_error (dir, "not a regular file");

  /* garbage headers */
  for (i = 0; i < sizeof (garbage); i++)
    garbage[i] = rng ();
  p = g_strdup_printf ("%s/garbage.hdr", dir);
  q = g_strdup_printf ("%s/garbage.bip", dir);
  write_bytes (p, garbage, sizeof (garbage));
  write_bytes (q, garbage, sizeof (garbage));
  expect_read_error (p, "not an ENVI header");
  expect_read_error (q, "not an ENVI header");
  memcpy (garbage, "ENVI\n", 5);
  for (i = 5; i < sizeof (garbage); i++)
    if (garbage[i] == 0)
      garbage[i] = '=';
  write_bytes (p, garbage, sizeof (garbage));
  expect_read_error (p, "Cannot read the ENVI cube");
  write_text (p, "");
  expect_read_error (p, "not an ENVI header");
  g_free (p);
  g_free (q);

  remove_dir (dir);
}

GST_END_TEST;

GST_START_TEST (test_write_errors)
{
  gchar *dir = tmp_dir ();
  const Format *f = &formats[1];
  GstCaps *caps = cube_caps (f, BIL, 2, 3, 4);
  guint8 *data = random_cube (f, 24);
  GstBuffer *bufs[2];
  gchar *hdr, *err = NULL, *warn = NULL, *raw;

  /* a second cube: an error, the first one kept */
  hdr = g_strdup_printf ("%s/two.hdr", dir);
  bufs[0] = gst_buffer_new_memdup (data, 48);
  bufs[1] = gst_buffer_new_memdup (data, 48);
  fail_if (write_cube (hdr, caps, bufs, 2, &err, NULL));
  fail_unless (err && strstr (err, "one cube per file"), "%s", err);
  check_written (dir, "two", f, BIL, 2, 3, 4, data);
  g_clear_pointer (&err, g_free);
  g_free (hdr);

  /* a buffer of the wrong size */
  hdr = g_strdup_printf ("%s/size.hdr", dir);
  gst_buffer_unref (bufs[1]);
  bufs[1] = gst_buffer_new_memdup (data, 47);
  fail_if (write_cube (hdr, caps, &bufs[1], 1, &err, NULL));
  fail_unless (err && strstr (err, "holds 47 bytes"), "%s", err);
  fail_if (g_file_test (hdr, G_FILE_TEST_EXISTS));
  g_clear_pointer (&err, g_free);
  g_free (hdr);

  /* a location that is not a .hdr, and none */
  hdr = g_strdup_printf ("%s/cube.bil", dir);
  fail_if (write_cube (hdr, caps, bufs, 1, &err, NULL));
  fail_unless (err && strstr (err, "must end in .hdr"), "%s", err);
  g_clear_pointer (&err, g_free);
  g_free (hdr);
  fail_if (write_cube (NULL, caps, bufs, 1, &err, NULL));
  fail_unless (err && strstr (err, "location is not set"), "%s", err);
  g_clear_pointer (&err, g_free);

  /* a directory that does not exist */
  hdr = g_strdup_printf ("%s/no/such/dir/cube.hdr", dir);
  fail_if (write_cube (hdr, caps, bufs, 1, &err, NULL));
  fail_unless (err && strstr (err, "no/such/dir/cube.bil"), "%s", err);
  g_clear_pointer (&err, g_free);
  g_free (hdr);

  /* no cube at all: a warning, nothing written */
  hdr = g_strdup_printf ("%s/empty.hdr", dir);
  raw = g_strdup_printf ("%s/empty.bil", dir);
  fail_unless (write_cube (hdr, caps, NULL, 0, &err, &warn));
  fail_unless (warn && strstr (warn, "No cube was written"), "%s", warn);
  fail_if (g_file_test (hdr, G_FILE_TEST_EXISTS));
  fail_if (g_file_test (raw, G_FILE_TEST_EXISTS));
  g_free (warn);
  g_free (hdr);
  g_free (raw);

  gst_buffer_unref (bufs[0]);
  gst_buffer_unref (bufs[1]);
  gst_caps_unref (caps);
  g_free (data);
  remove_dir (dir);
}

GST_END_TEST;

/* ---- envidec: the header's bytes in, the cube out ---- */

/* `desc` (a pipeline ending in a fakesink named "sink") to EOS: the one
 * cube and its caps, or NULL with the error in `*error`. */
static GstBuffer *
run_decode (const gchar * desc, GstCaps ** caps, gchar ** error)
{
  GError *perr = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &perr);
  GstElement *sink;
  Received r = { NULL, NULL, 0 };
  gchar *err = NULL;

  fail_unless (pipeline != NULL, "%s: %s", desc, perr ? perr->message : "");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_object_set (sink, "sync", FALSE, "signal-handoffs", TRUE, NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &r);
  gst_object_unref (sink);
  if (run (pipeline, &err, NULL))
    fail_unless_equals_int (r.n, 1);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  if (err) {
    gst_clear_buffer (&r.buf);
    gst_clear_caps (&r.caps);
  }
  if (error)
    *error = err;
  else if (err)
    fail ("%s: %s", desc, err);
  if (caps)
    *caps = r.caps;
  else
    gst_clear_caps (&r.caps);
  return r.buf;
}

/* What envidec (or decodebin, which plugs it) makes of header `hdr`. */
static GstBuffer *
decode_cube (const gchar * hdr, gboolean decodebin, const gchar * il,
    GstCaps ** caps, gchar ** error)
{
  gchar *desc = decodebin ?
      g_strdup_printf ("filesrc location=\"%s\" ! "
      "decodebin caps=application/x-hyperspectral ! fakesink name=sink",
      hdr) : g_strdup_printf ("filesrc location=\"%s\" ! "
      "envidec interleave=%s ! fakesink name=sink", hdr, il ? il : "bip");
  GstBuffer *buf = run_decode (desc, caps, error);

  g_free (desc);
  return buf;
}

GST_START_TEST (test_envidec)
{
  gchar *dir = tmp_dir ();
  guint fi, o, r;

  /* every format and stored order, read in every order: what envisrc
   * reads; through decodebin too */
  for (fi = 0; fi < G_N_ELEMENTS (formats); fi++)
    for (o = BIP; o <= BSQ; o++) {
      const Format *f = &formats[fi];
      gint L = 5, S = 7, B = 3;
      gsize n = (gsize) L * S * B, len = n * f->bytes;
      guint8 *data = random_cube (f, n);
      gchar *hdr = g_strdup_printf ("%s/d-%s-%s.hdr", dir, f->format,
          order_names[o]);
      GstCaps *caps = cube_caps (f, o, L, S, B), *got = NULL;
      GstBuffer *in = gst_buffer_new_memdup (data, len), *out;

      fail_unless (write_cube (hdr, caps, &in, 1, NULL, NULL));
      for (r = BIP; r <= BSQ; r++) {
        guint8 *want = reorder (data, o, r, L, S, B, f->bytes);

        out = decode_cube (hdr, FALSE, order_names[r], &got, NULL);
        check_caps (got, f->format, order_names[r], L, S, B);
        check_bytes (out, want, len, "envidec");
        gst_buffer_unref (out);
        gst_caps_unref (got);
        g_free (want);
      }
      {
        guint8 *want = reorder (data, o, BIP, L, S, B, f->bytes);

        out = decode_cube (hdr, TRUE, NULL, &got, NULL);
        check_caps (got, f->format, "bip", L, S, B);
        check_bytes (out, want, len, "decodebin");
        gst_buffer_unref (out);
        gst_caps_unref (got);
        g_free (want);
      }
      gst_buffer_unref (in);
      gst_caps_unref (caps);
      g_free (data);
      g_free (hdr);
    }
  remove_dir (dir);
}

GST_END_TEST;

/* envidec's errors: those of envisrc for what the header or the data file
 * hold, and a header that comes from no local file. */
static void
expect_decode_error (const gchar * hdr, const gchar * expect)
{
  gchar *err = NULL;
  GstBuffer *out = decode_cube (hdr, FALSE, NULL, NULL, &err);

  fail_unless (out == NULL, "%s: a cube where an error was expected", hdr);
  fail_unless (err != NULL && strstr (err, expect) != NULL, "%s: error "
      "\"%s\" does not say \"%s\"", hdr, err, expect);
  GST_INFO ("%s: %s", hdr, err);
  g_free (err);
}

GST_START_TEST (test_envidec_errors)
{
  gchar *dir = tmp_dir ();
  gchar *p, *desc, *err = NULL;
  GstBuffer *out;

  p = make_files (dir, "bands0", HDR (4, 3, 0, 4), 1000);
  expect_decode_error (p, "bands = 0");
  g_free (p);
  p = make_files (dir, "short", HDR (4, 3, 2, 4), 4 * 3 * 2 * 4 - 1);
  expect_decode_error (p, "data file holds 95 bytes, the header needs 96");
  g_free (p);
  p = make_files (dir, "double", HDR (4, 3, 2, 5), 4 * 3 * 2 * 8);
  expect_decode_error (p, "data type 5 (float64) is not supported");
  g_free (p);
  p = make_files (dir, "nodata", HDR (1, 1, 1, 1), -1);
  expect_decode_error (p, "no data file");
  g_free (p);
  p = make_files (dir, "notype", "ENVI\nsamples = 1\nlines = 1\n"
      "bands = 1\n", 1);
  expect_decode_error (p, "no \"data type\"");
  g_free (p);

  /* a header not named .hdr: its data file cannot be found */
  p = g_strdup_printf ("%s/named.txt", dir);
  write_text (p, HDR (1, 1, 1, 1));
  expect_decode_error (p, "must be named NAME.hdr");
  g_free (p);

  /* a header from no file at all */
  desc = g_strdup ("appsrc name=a caps=application/x-envi-header "
      "! envidec ! fakesink name=sink");
  {
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    GstElement *a = gst_bin_get_by_name (GST_BIN (pipeline), "a");
    GstBuffer *b = gst_buffer_new_memdup (HDR (1, 1, 1, 1),
        strlen (HDR (1, 1, 1, 1)));
    GstFlowReturn flow;

    g_signal_emit_by_name (a, "push-buffer", b, &flow);
    g_signal_emit_by_name (a, "end-of-stream", &flow);
    gst_buffer_unref (b);
    gst_object_unref (a);
    fail_if (run (pipeline, &err, NULL));
    fail_unless (err && strstr (err, "must come from a file source"), "%s",
        err);
    g_clear_pointer (&err, g_free);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }
  g_free (desc);

  /* decodebin without caps: it has no final type to stop at */
  p = make_files (dir, "plain", HDR (1, 1, 1, 1), 1);
  desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
      "fakesink name=sink", p);
  out = run_decode (desc, NULL, &err);
  fail_unless (out == NULL && err != NULL);
  g_free (err);
  g_free (desc);
  g_free (p);
  remove_dir (dir);
}

GST_END_TEST;

/* ---- blocksize: GstBaseSrc's and GstBaseSink's, hidden ---- */

GST_START_TEST (test_blocksize)
{
  const gchar *names[] = { "envisrc", "envisink" };
  gchar *dir = tmp_dir ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstElement *e = gst_element_factory_make (names[i], NULL);
    GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        "blocksize");
    guint v = 1;

    /* the element's own, read-only: setting it is refused */
    fail_unless (ps != NULL);
    fail_unless (ps->owner_type == G_OBJECT_TYPE (e), "%s: blocksize is %s's",
        names[i], g_type_name (ps->owner_type));
    fail_if (ps->flags & G_PARAM_WRITABLE, "%s: blocksize is writable",
        names[i]);
    ASSERT_WARNING (g_object_set (e, "blocksize", 8u, NULL));
    g_object_get (e, "blocksize", &v, NULL);
    fail_unless_equals_int (v, 0);
    gst_object_unref (e);
  }

  /* envisrc says the size of its one buffer once it has started */
  {
    const Format *f = &formats[2];
    GstCaps *caps = cube_caps (f, BSQ, 3, 4, 5);
    guint8 *data = random_cube (f, 60);
    GstBuffer *in = gst_buffer_new_memdup (data, 120);
    gchar *hdr = g_strdup_printf ("%s/b.hdr", dir);
    GstElement *pipeline, *src, *sink;
    Received r = { NULL, NULL, 0 };
    guint v = 0;

    fail_unless (write_cube (hdr, caps, &in, 1, NULL, NULL));
    pipeline = gst_pipeline_new (NULL);
    src = gst_element_factory_make ("envisrc", NULL);
    sink = gst_element_factory_make ("fakesink", NULL);
    g_object_set (src, "location", hdr, NULL);
    g_object_set (sink, "sync", FALSE, "signal-handoffs", TRUE, NULL);
    g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &r);
    gst_bin_add_many (GST_BIN (pipeline), src, sink, NULL);
    fail_unless (gst_element_link (src, sink));
    fail_unless (run (pipeline, NULL, NULL));
    g_object_get (src, "blocksize", &v, NULL);
    fail_unless_equals_int (v, 120);
    fail_unless_equals_int (gst_buffer_get_size (r.buf), 120);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    g_object_get (src, "blocksize", &v, NULL);
    fail_unless_equals_int (v, 0);
    gst_object_unref (pipeline);
    gst_buffer_unref (r.buf);
    gst_caps_unref (r.caps);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
    g_free (data);
    g_free (hdr);
  }
  remove_dir (dir);
}

GST_END_TEST;

/* Properties and pad templates as documented. */
GST_START_TEST (test_elements)
{
  GstElement *src = gst_element_factory_make ("envisrc", NULL);
  GstElement *sink = gst_element_factory_make ("envisink", NULL);
  GstCaps *tmpl, *want;
  GstPad *pad;
  gchar *s;
  gint il;

  fail_unless (src && sink);
  g_object_get (src, "location", &s, "interleave", &il, NULL);
  fail_unless (s == NULL);
  fail_unless_equals_int (il, 0);
  gst_util_set_object_arg (G_OBJECT (src), "interleave", "as-stored");
  g_object_get (src, "interleave", &il, NULL);
  fail_unless_equals_int (il, 3);
  want = gst_caps_from_string ("application/x-hyperspectral, "
      "lines = (int) [ 1, 2147483647 ], samples = (int) [ 1, 2147483647 ], "
      "bands = (int) [ 1, 65535 ], "
      "format = (string) { U8, S16LE, U16LE, F32LE }, "
      "interleave = (string) { bip, bil, bsq }");
  pad = gst_element_get_static_pad (src, "src");
  tmpl = gst_pad_get_pad_template_caps (pad);
  fail_unless (gst_caps_is_equal (tmpl, want));
  gst_caps_unref (tmpl);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (sink, "sink");
  tmpl = gst_pad_get_pad_template_caps (pad);
  fail_unless (gst_caps_is_equal (tmpl, want));
  gst_caps_unref (tmpl);
  gst_object_unref (pad);
  gst_caps_unref (want);
  gst_object_unref (src);
  gst_object_unref (sink);
}

GST_END_TEST;

static Suite *
envi_suite (void)
{
  Suite *s = suite_create ("scicodec-envi");
  TCase *tc = tcase_create ("envi");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_elements);
  tcase_add_test (tc, test_round_trip);
  tcase_add_test (tc, test_hand_written);
  tcase_add_test (tc, test_real_cube);
  tcase_add_test (tc, test_read_errors);
  tcase_add_test (tc, test_write_errors);
  tcase_add_test (tc, test_envidec);
  tcase_add_test (tc, test_envidec_errors);
  tcase_add_test (tc, test_blocksize);
  return s;
}

GST_CHECK_MAIN (envi);
