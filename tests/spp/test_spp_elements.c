/*
 * sppfilter in pipelines (appsrc ! sppfilter ! appsink) with the CPU
 * backend: every input format on small awkward cubes (one pixel, one line,
 * one column, windows larger than the cube) giving exactly the bytes of
 * sci_spp_filter; a constant cube coming back unchanged as float; the
 * output caps and the caps refused; the window-size property (range,
 * even sizes refused); NaN and infinite input and buffers of the wrong
 * size posting an ERROR; backend=cuda without a device; the real Indian
 * Pines cube through envisrc ! sppfilter ! envisink (SCI_TEST_DATA_DIR;
 * skipped where absent or without GDAL) against sci_spp_filter.  The CUDA
 * backend is tested on the GPU host (test_elements_gpu.c).
 */
#include "config.h"             /* HAVE_CUDA: which error backend=cuda gives */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "codec/spp/spp.h"

typedef struct
{
  const gchar *name;
  sci_spp_format format;
  gsize bytes;
} Format;

static const Format formats[] = {
  {"U8", SCI_SPP_U8, 1},
  {"S16LE", SCI_SPP_S16, 2},
  {"U16LE", SCI_SPP_U16, 2},
  {"F32LE", SCI_SPP_F32, 4},
};

/* ---- helpers ---- */

static guint32 rng_state = 20240611;

static guint32
rng (void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

/* n values of format f: smooth spectra (a ramp over the bands, a level
 * per pixel) with noise, and now and then a pixel of another material or
 * zeros, so that angles of every size occur. */
static guint8 *
random_cube (const Format * f, gsize npix, gsize bands)
{
  guint8 *d = g_malloc (npix * bands * f->bytes + 1);
  gsize p, b;

  for (p = 0; p < npix; p++) {
    guint32 kind = rng () % 10;
    gdouble level = 0.2 + (rng () % 1000) / 1250.0;

    for (b = 0; b < bands; b++) {
      gdouble x = (gdouble) b / MAX (bands, 2);
      gdouble v = kind == 0 ? 1.0 - x : kind == 1 ? 0.0 : 0.3 + 0.6 * x;
      gsize i = p * bands + b;

      v = v * level + (rng () % 100) / 2000.0;
      switch (f->format) {
        case SCI_SPP_U8:
          d[i] = (guint8) (v * 250);
          break;
        case SCI_SPP_S16:{
          gint16 s = (gint16) (v * 30000) - (kind == 2 ? 20000 : 0);
          memcpy (d + 2 * i, &s, 2);
          break;
        }
        case SCI_SPP_U16:{
          guint16 u = (guint16) (v * 60000);
          memcpy (d + 2 * i, &u, 2);
          break;
        }
        default:{
          gfloat fl = (gfloat) (v * (kind == 3 ? -3e3 : 1.0));
          memcpy (d + 4 * i, &fl, 4);
          break;
        }
      }
    }
  }
  return d;
}

static GstCaps *
cube_caps (const gchar * format, const gchar * il, gint L, gint S, gint B)
{
  return gst_caps_new_simple ("application/x-hyperspectral",
      "lines", G_TYPE_INT, L, "samples", G_TYPE_INT, S, "bands", G_TYPE_INT,
      B, "format", G_TYPE_STRING, format, "interleave", G_TYPE_STRING, il,
      NULL);
}

/* gst_parse_launch, failing the test where an element is missing (the
 * plugin did not load, envisrc not built). */
static GstElement *
launch (const gchar * desc, GError ** unused)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch_full (desc, NULL,
      GST_PARSE_FLAG_FATAL_ERRORS, &err);

  fail_unless (p != NULL && err == NULL, "%s: %s", desc,
      err ? err->message : "no pipeline");
  return p;
}

/* Runs a pipeline to EOS or ERROR: TRUE at EOS; FALSE at ERROR with its
 * message and debug text in `*error` (may be NULL; g_free).  An appsink
 * `sink` (may be NULL) is drained meanwhile, its first sample kept in
 * *sample: appsink holds EOS back until its samples are taken.  The
 * pipeline is left in its state. */
static gboolean
run_draining (GstElement * pipeline, GstElement * sink, GstSample ** sample,
    gchar ** error)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gint64 deadline = g_get_monotonic_time () + 120 * G_TIME_SPAN_SECOND;
  GstMessage *m = NULL;
  gboolean eos = FALSE;

  /* a start refused posts its error on the bus */
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!m) {
    fail_unless (g_get_monotonic_time () < deadline,
        "the pipeline neither ended nor failed");
    if (sink) {
      GstSample *got = NULL;

      g_signal_emit_by_name (sink, "try-pull-sample", 20 * GST_MSECOND, &got);
      if (got && sample && !*sample)
        *sample = got;
      else if (got)
        gst_sample_unref (got);
    }
    m = gst_bus_timed_pop_filtered (bus, sink ? 0 : 20 * GST_MSECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  }
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
    eos = TRUE;
  } else {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (m, &err, &dbg);
    GST_INFO ("error: %s (%s)", err->message, dbg);
    if (error)
      *error = g_strdup_printf ("%s | %s", err->message, dbg ? dbg : "");
    g_error_free (err);
    g_free (dbg);
  }
  gst_message_unref (m);
  gst_object_unref (bus);
  return eos;
}

static gboolean
run (GstElement * pipeline, gchar ** error)
{
  return run_draining (pipeline, NULL, NULL, error);
}

/* appsrc's push-buffer signal, which takes no ownership: a copy of `len`
 * bytes of `data`. */
static void
push_bytes (GstElement * src, gconstpointer data, gsize len)
{
  GstBuffer *buf = gst_buffer_new_memdup (data, len);
  GstFlowReturn flow;

  g_signal_emit_by_name (src, "push-buffer", buf, &flow);
  gst_buffer_unref (buf);
  fail_unless_equals_int (flow, GST_FLOW_OK);
}

/* One cube (`data`, `len` bytes, taken by nobody) with `caps` through
 * appsrc ! sppfilter `props` ! appsink: the output buffer and its caps
 * (*out_caps, may be NULL), or NULL with the error in *error (when given;
 * else an error fails the test). */
static GstBuffer *
filter_cube (const gchar * props, GstCaps * caps, gconstpointer data,
    gsize len, GstCaps ** out_caps, gchar ** error)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! "
      "sppfilter name=spp %s ! appsink name=sink sync=false", props);
  GstElement *pipeline = launch (desc, NULL);
  GstElement *src, *sink;
  GstSample *sample = NULL;
  GstBuffer *out = NULL;
  GstFlowReturn flow;
  gchar *err = NULL;

  fail_unless (pipeline != NULL, "%s", desc);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_object_set (src, "caps", caps, NULL);
  push_bytes (src, data, len);
  g_signal_emit_by_name (src, "end-of-stream", &flow);
  if (run_draining (pipeline, sink, &sample, &err)) {
    fail_unless (sample != NULL, "%s: EOS without a cube", desc);
    out = gst_buffer_ref (gst_sample_get_buffer (sample));
    if (out_caps)
      *out_caps = gst_caps_ref (gst_sample_get_caps (sample));
    gst_sample_unref (sample);
  }
  if (sample && !out)
    gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  if (error)
    *error = err;
  else if (err)
    fail ("%s: %s", desc, err);
  g_free (desc);
  return out;
}

/* The reference: sci_spp_filter's output bytes. */
static gfloat *
reference (gconstpointer data, const Format * f, gsize L, gsize S, gsize B,
    guint window)
{
  gfloat *ref = g_new (gfloat, L * S * B);

  fail_unless_equals_int (sci_spp_filter (NULL, data, f->format, L, S, B,
          window, ref), 0);
  return ref;
}

static void
check_bytes (GstBuffer * buf, gconstpointer expect, gsize len,
    const gchar * what)
{
  GstMapInfo map;
  gsize i;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless (map.size == len, "%s: %" G_GSIZE_FORMAT " bytes, expected %"
      G_GSIZE_FORMAT, what, map.size, len);
  if (memcmp (map.data, expect, len) != 0) {
    for (i = 0; i < len && map.data[i] == ((const guint8 *) expect)[i]; i++);
    fail ("%s: byte %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " differs "
        "(value %" G_GSIZE_FORMAT ": %g, expected %g)", what, i, len, i / 4,
        ((const gfloat *) map.data)[i / 4], ((const gfloat *) expect)[i / 4]);
  }
  gst_buffer_unmap (buf, &map);
}

static void
check_caps (GstCaps * caps, gint L, gint S, gint B)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  gint v;

  fail_unless (gst_caps_is_fixed (caps));
  fail_unless (gst_structure_has_name (s, "application/x-hyperspectral"));
  fail_unless (gst_caps_get_features (caps, 0) == NULL
      || gst_caps_features_is_equal (gst_caps_get_features (caps, 0),
          GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY));
  fail_unless (gst_structure_get_int (s, "lines", &v));
  fail_unless_equals_int (v, L);
  fail_unless (gst_structure_get_int (s, "samples", &v));
  fail_unless_equals_int (v, S);
  fail_unless (gst_structure_get_int (s, "bands", &v));
  fail_unless_equals_int (v, B);
  fail_unless_equals_string (gst_structure_get_string (s, "format"), "F32LE");
  fail_unless_equals_string (gst_structure_get_string (s, "interleave"), "bip");
}

/* ---- output against the reference ---- */

GST_START_TEST (test_formats_sizes)
{
  static const struct
  {
    gint L, S, B;
    guint window;
  } cases[] = {
    {1, 1, 1, 5}, {1, 1, 7, 3}, {1, 9, 4, 5}, {9, 1, 3, 3}, {5, 7, 3, 5},
    {5, 7, 3, 15}, {2, 2, 2, 15}, {3, 3, 1, 13}, {12, 10, 6, 3},
    {17, 23, 5, 7}, {4, 33, 2, 9},
  };
  guint f, i;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (i = 0; i < G_N_ELEMENTS (cases); i++) {
      gint L = cases[i].L, S = cases[i].S, B = cases[i].B;
      gsize n = (gsize) L * S * B;
      guint8 *in = random_cube (&formats[f], (gsize) L * S, B);
      gfloat *ref = reference (in, &formats[f], L, S, B, cases[i].window);
      GstCaps *caps = cube_caps (formats[f].name, "bip", L, S, B), *oc;
      gchar *props = g_strdup_printf ("backend=cpu window-size=%u",
          cases[i].window);
      gchar *what = g_strdup_printf ("%s %dx%dx%d window %u",
          formats[f].name, L, S, B, cases[i].window);
      GstBuffer *out = filter_cube (props, caps, in, n * formats[f].bytes,
          &oc, NULL);

      check_caps (oc, L, S, B);
      check_bytes (out, ref, n * 4, what);
      gst_buffer_unref (out);
      gst_caps_unref (oc);
      gst_caps_unref (caps);
      g_free (props);
      g_free (what);
      g_free (ref);
      g_free (in);
    }
}

GST_END_TEST;

/* Every pixel the same spectrum: no angles, every pixel stays where it is
 * (exactly: the centroid is that spectrum). */
GST_START_TEST (test_constant_cube)
{
  const gint L = 6, S = 5, B = 9;
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    gsize n = (gsize) L * S * B, i;
    guint8 *in = g_malloc (n * formats[f].bytes);
    gfloat *expect = g_new (gfloat, n);
    GstCaps *caps = cube_caps (formats[f].name, "bip", L, S, B);
    GstBuffer *out;

    for (i = 0; i < n; i++) {
      guint b = i % B;

      switch (formats[f].format) {
        case SCI_SPP_U8:
          in[i] = 10 + 20 * b;
          expect[i] = in[i];
          break;
        case SCI_SPP_S16:{
          gint16 v = -3000 + 777 * b;
          memcpy (in + 2 * i, &v, 2);
          expect[i] = v;
          break;
        }
        case SCI_SPP_U16:{
          guint16 v = 1234 + 6000 * b;
          memcpy (in + 2 * i, &v, 2);
          expect[i] = v;
          break;
        }
        default:{
          gfloat v = 0.125f + 0.3f * b;
          memcpy (in + 4 * i, &v, 4);
          expect[i] = v;
          break;
        }
      }
    }
    out = filter_cube ("backend=cpu window-size=3", caps, in,
        n * formats[f].bytes, NULL, NULL);
    check_bytes (out, expect, n * 4, formats[f].name);
    gst_buffer_unref (out);
    gst_caps_unref (caps);
    g_free (expect);
    g_free (in);
  }
}

GST_END_TEST;

/* ---- negotiation ---- */

GST_START_TEST (test_caps)
{
  const Format *f = &formats[2];
  guint8 *in = random_cube (f, 12, 4);
  GstCaps *caps;
  GstBuffer *out;
  gchar *err = NULL;

  /* another interleave is not taken: envisrc converts */
  caps = cube_caps (f->name, "bil", 3, 4, 4);
  out = filter_cube ("backend=cpu", caps, in, 48 * 2, NULL, &err);
  fail_unless (out == NULL && err != NULL, "a bil cube was filtered");
  fail_unless (strstr (err, "not-negotiated") || strstr (err, "negotiat"),
      "%s", err);
  g_clear_pointer (&err, g_free);
  gst_caps_unref (caps);

  /* downstream asking for another output format: the link is refused */
  {
    GError *e = NULL;
    GstElement *pipeline = gst_parse_launch_full ("appsrc ! sppfilter ! "
        "application/x-hyperspectral,format=U16LE ! fakesink", NULL,
        GST_PARSE_FLAG_FATAL_ERRORS, &e);

    fail_unless (pipeline == NULL && e != NULL, "U16LE output linked");
    fail_unless (g_error_matches (e, GST_PARSE_ERROR, GST_PARSE_ERROR_LINK),
        "%s", e->message);
    g_error_free (e);
  }

  /* the caps each pad offers for the other's */
  {
    GstElement *e = gst_element_factory_make ("sppfilter", NULL);
    GstPad *sink = gst_element_get_static_pad (e, "sink");
    GstPad *src = gst_element_get_static_pad (e, "src");
    GstCaps *in_caps = cube_caps ("S16LE", "bip", 7, 8, 9);
    GstCaps *q;
    GstStructure *s;
    gint v;

    /* the src pad's caps (no peer): F32LE BIP, any size */
    q = gst_pad_query_caps (src, NULL);
    fail_if (gst_caps_is_empty (q));
    s = gst_caps_get_structure (q, 0);
    fail_unless_equals_string (gst_structure_get_string (s, "format"), "F32LE");
    fail_unless_equals_string (gst_structure_get_string (s, "interleave"),
        "bip");
    gst_caps_unref (q);
    /* the sink pad accepts our formats in BIP only */
    fail_unless (gst_pad_query_accept_caps (sink, in_caps));
    gst_caps_unref (in_caps);
    in_caps = cube_caps ("S16LE", "bsq", 7, 8, 9);
    fail_if (gst_pad_query_accept_caps (sink, in_caps));
    gst_caps_unref (in_caps);
    in_caps = cube_caps ("F64LE", "bip", 7, 8, 9);
    fail_if (gst_pad_query_accept_caps (sink, in_caps));
    gst_caps_unref (in_caps);
    /* the sink pad's caps (the src template's through the element): our
     * four formats, BIP only */
    q = gst_pad_query_caps (sink, NULL);
    fail_if (gst_caps_is_empty (q));
    for (v = 0; v < (gint) gst_caps_get_size (q); v++) {
      const GValue *fl;

      s = gst_caps_get_structure (q, v);
      fl = gst_structure_get_value (s, "format");
      fail_unless (fl && GST_VALUE_HOLDS_LIST (fl), "%" GST_PTR_FORMAT, q);
      fail_unless_equals_int (gst_value_list_get_size (fl), 4);
      fail_unless_equals_string (gst_structure_get_string (s, "interleave"),
          "bip");
    }
    gst_caps_unref (q);
    gst_object_unref (sink);
    gst_object_unref (src);
    gst_object_unref (e);
  }
  g_free (in);
}

GST_END_TEST;

/* ---- properties ---- */

GST_START_TEST (test_window_size)
{
  GstElement *e = gst_element_factory_make ("sppfilter", NULL);
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "window-size");
  GParamSpecUInt *u;
  const Format *f = &formats[3];
  guint8 *in = random_cube (f, 20, 3);
  GstCaps *caps = cube_caps (f->name, "bip", 4, 5, 3);
  gchar *err = NULL;
  GstBuffer *out;
  guint v, w;

  fail_unless (p != NULL && G_IS_PARAM_SPEC_UINT (p));
  u = G_PARAM_SPEC_UINT (p);
  fail_unless_equals_int (u->minimum, 3);
  fail_unless_equals_int (u->maximum, 15);
  fail_unless_equals_int (u->default_value, 5);
  fail_unless (p->flags & GST_PARAM_MUTABLE_PLAYING);
  fail_unless (strlen (g_param_spec_get_blurb (p)) > 20);
  g_object_get (e, "window-size", &v, NULL);
  fail_unless_equals_int (v, 5);
  for (w = 3; w <= 15; w += 2) {
    g_object_set (e, "window-size", w, NULL);
    g_object_get (e, "window-size", &v, NULL);
    fail_unless_equals_int (v, w);
  }
  /* out of the range: GObject's own validation clamps */
  {
    GValue val = G_VALUE_INIT;

    g_value_init (&val, G_TYPE_UINT);
    g_value_set_uint (&val, 17);
    fail_unless (g_param_value_validate (p, &val));
    fail_unless_equals_int (g_value_get_uint (&val), 15);
    g_value_set_uint (&val, 1);
    fail_unless (g_param_value_validate (p, &val));
    fail_unless_equals_int (g_value_get_uint (&val), 3);
  }
  /* an even size is kept as set, and refused at start */
  g_object_set (e, "window-size", 6, NULL);
  g_object_get (e, "window-size", &v, NULL);
  fail_unless_equals_int (v, 6);
  gst_object_unref (e);

  for (w = 4; w <= 14; w += 10) {
    gchar *props = g_strdup_printf ("backend=cpu window-size=%u", w);

    out = filter_cube (props, caps, in, 60 * 4, NULL, &err);
    fail_unless (out == NULL && err != NULL, "window %u: no error", w);
    fail_unless (strstr (err, "window-size must be odd") != NULL, "%s", err);
    g_clear_pointer (&err, g_free);
    g_free (props);
  }
  /* each odd size runs, the window larger than the cube included */
  for (w = 3; w <= 15; w += 2) {
    gchar *props = g_strdup_printf ("backend=cpu window-size=%u", w);
    gfloat *ref = reference (in, f, 4, 5, 3, w);

    out = filter_cube (props, caps, in, 60 * 4, NULL, NULL);
    check_bytes (out, ref, 60 * 4, props);
    gst_buffer_unref (out);
    g_free (ref);
    g_free (props);
  }
  gst_caps_unref (caps);
  g_free (in);
}

GST_END_TEST;

/* The size may change while the element plays: two cubes, each filtered
 * with the window set when it came; an even size set while playing is an
 * error at the next cube. */
GST_START_TEST (test_window_while_playing)
{
  const Format *f = &formats[1];
  const gint L = 6, S = 7, B = 4;
  gsize n = (gsize) L * S * B;
  guint8 *in = random_cube (f, (gsize) L * S, B);
  gfloat *ref3 = reference (in, f, L, S, B, 3);
  gfloat *ref9 = reference (in, f, L, S, B, 9);
  GstCaps *caps = cube_caps (f->name, "bip", L, S, B);
  GstElement *pipeline = launch ("appsrc name=src format=time ! "
      "sppfilter name=spp backend=cpu window-size=3 ! appsink name=sink "
      "sync=false", NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstElement *spp = gst_bin_get_by_name (GST_BIN (pipeline), "spp");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstSample *sample = NULL;
  GstMessage *m;

  g_object_set (src, "caps", caps, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  push_bytes (src, in, n * 2);
  g_signal_emit_by_name (sink, "pull-sample", &sample);
  fail_unless (sample != NULL);
  check_bytes (gst_sample_get_buffer (sample), ref3, n * 4, "window 3");
  gst_sample_unref (sample);

  g_object_set (spp, "window-size", 9, NULL);
  push_bytes (src, in, n * 2);
  g_signal_emit_by_name (sink, "pull-sample", &sample);
  fail_unless (sample != NULL);
  check_bytes (gst_sample_get_buffer (sample), ref9, n * 4, "window 9");
  gst_sample_unref (sample);

  g_object_set (spp, "window-size", 8, NULL);
  push_bytes (src, in, n * 2);
  m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "an even window while playing: no error");
  {
    GError *err = NULL;

    gst_message_parse_error (m, &err, NULL);
    fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
            GST_LIBRARY_ERROR_SETTINGS), "%s", err->message);
    fail_unless (strstr (err->message, "8 is not") != NULL, "%s", err->message);
    g_error_free (err);
  }
  gst_message_unref (m);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (spp);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  gst_caps_unref (caps);
  g_free (ref3);
  g_free (ref9);
  g_free (in);
}

GST_END_TEST;

/* ---- errors ---- */

/* NaN and infinite values: an ERROR saying so and where, nothing out. */
GST_START_TEST (test_nonfinite)
{
  const gint L = 5, S = 7, B = 3;
  const gfloat bad[] = { NAN, INFINITY, -INFINITY };
  GstCaps *caps = cube_caps ("F32LE", "bip", L, S, B);
  guint k;

  for (k = 0; k < G_N_ELEMENTS (bad); k++) {
    guint8 *in = random_cube (&formats[3], (gsize) L * S, B);
    gsize at = ((gsize) 3 * S + 4) * B + 2;     /* line 3, sample 4, band 2 */
    gchar *err = NULL;
    GstBuffer *out;

    memcpy (in + 4 * at, &bad[k], 4);
    out = filter_cube ("backend=cpu", caps, in, (gsize) L * S * B * 4, NULL,
        &err);
    fail_unless (out == NULL && err != NULL, "value %g: no error", bad[k]);
    fail_unless (strstr (err, "NaN or infinite") != NULL, "%s", err);
    fail_unless (strstr (err, "line 3, sample 4, band 2") != NULL, "%s", err);
    g_free (err);
    g_free (in);
  }
  gst_caps_unref (caps);
}

GST_END_TEST;

/* A buffer that is not the caps' cube: an ERROR naming both sizes. */
GST_START_TEST (test_wrong_size)
{
  const gint L = 4, S = 3, B = 5;
  const gssize delta[] = { -1, 1, -L * S * B, 2 };
  GstCaps *caps = cube_caps ("U16LE", "bip", L, S, B);
  guint8 *in = random_cube (&formats[2], (gsize) 2 * L * S, B);
  guint k;

  for (k = 0; k < G_N_ELEMENTS (delta); k++) {
    gsize len = (gsize) ((gssize) L * S * B * 2 + delta[k]);
    gchar *err = NULL, *want;
    GstBuffer *out;

    out = filter_cube ("backend=cpu", caps, in, len, NULL, &err);
    fail_unless (out == NULL && err != NULL, "%" G_GSIZE_FORMAT " bytes: "
        "no error", len);
    want = g_strdup_printf ("The buffer holds %" G_GSIZE_FORMAT " bytes, the "
        "caps' cube 120", len);
    fail_unless (strstr (err, want) != NULL, "%s", err);
    g_free (want);
    g_free (err);
  }
  gst_caps_unref (caps);
  g_free (in);
}

GST_END_TEST;

/* backend=cuda without a usable device is refused at start as by every
 * element; where it starts, a GPU is there and the gpu suite covers it.
 * auto runs the CPU without a device, with the CPU's bytes. */
GST_START_TEST (test_backend)
{
  GstElement *e = gst_element_factory_make ("sppfilter", NULL);
  GstBus *bus = gst_bus_new ();
  const Format *f = &formats[0];
  guint8 *in = random_cube (f, 35, 3);
  gfloat *ref = reference (in, f, 5, 7, 3, 5);
  GstCaps *caps = cube_caps (f->name, "bip", 5, 7, 3);
  GstMessage *m;
  GError *err = NULL;
  GstBuffer *out;
  gboolean gpu = FALSE;

  fail_unless (e != NULL);
  gst_element_set_bus (e, bus);
  gst_util_set_object_arg (G_OBJECT (e), "backend", "cuda");
  if (gst_element_set_state (e, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE) {
    g_print ("sppfilter backend=cuda started: a GPU is there (gpu suite)\n");
    gpu = TRUE;
  } else {
    m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (m != NULL);
    gst_message_parse_error (m, &err, NULL);
    fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NOT_FOUND), "%s", err->message);
#if HAVE_CUDA
    fail_unless (strstr (err->message, "no usable CUDA device") != NULL, "%s",
        err->message);
#else
    fail_unless (strstr (err->message, "this build has no CUDA backend")
        != NULL, "%s", err->message);
#endif
    g_error_free (err);
    gst_message_unref (m);
  }
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);

  /* auto: without a GPU the CPU's bytes */
  out = filter_cube ("backend=auto", caps, in, 35 * 3, NULL, NULL);
  if (!gpu)
    check_bytes (out, ref, 35 * 3 * 4, "backend=auto");
  gst_buffer_unref (out);
  gst_caps_unref (caps);
  g_free (ref);
  g_free (in);
}

GST_END_TEST;

/* ---- the real cube ---- */

#define PINES_LINES 145
#define PINES_SAMPLES 145
#define PINES_BANDS 224

GST_START_TEST (test_real_cube)
{
  const gchar *dir = g_getenv ("SCI_TEST_DATA_DIR");
  GstElementFactory *envisrc = gst_element_factory_find ("envisrc");
  gchar *hdr, *raw, *data = NULL, *tmp, *out_hdr, *out_raw, *desc;
  gchar *out_data = NULL, *err = NULL, *text = NULL;
  gsize len, out_len, n = (gsize) PINES_LINES * PINES_SAMPLES * PINES_BANDS;
  GstElement *pipeline;
  gfloat *ref;

  if (!envisrc) {
    g_print ("no envisrc (built without GDAL): real-cube pipeline skipped\n");
    return;
  }
  gst_object_unref (envisrc);
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
  fail_unless_equals_uint64 (len, n * 4);
  ref = reference (data, &formats[3], PINES_LINES, PINES_SAMPLES,
      PINES_BANDS, 7);

  tmp = g_dir_make_tmp ("test-spp-XXXXXX", NULL);
  fail_unless (tmp != NULL);
  out_hdr = g_build_filename (tmp, "spp.hdr", NULL);
  out_raw = g_build_filename (tmp, "spp.bip", NULL);
  desc = g_strdup_printf ("envisrc location=\"%s\" ! sppfilter backend=cpu "
      "window-size=7 ! envisink location=\"%s\"", hdr, out_hdr);
  pipeline = launch (desc, NULL);
  fail_unless (pipeline != NULL, "%s", desc);
  fail_unless (run (pipeline, &err), "%s: %s", desc, err);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);

  fail_unless (g_file_get_contents (out_raw, &out_data, &out_len, NULL));
  fail_unless_equals_uint64 (out_len, n * 4);
  if (memcmp (out_data, ref, n * 4) != 0) {
    gsize i;

    for (i = 0; i < n && ((gfloat *) out_data)[i] == ref[i]; i++);
    fail ("indian_pines_clean, window 7: value %" G_GSIZE_FORMAT " is %g, "
        "sci_spp_filter gives %g", i, ((gfloat *) out_data)[i], ref[i]);
  }
  fail_unless (g_file_get_contents (out_hdr, &text, NULL, NULL));
  fail_unless (strstr (text, "samples = 145\nlines = 145\nbands = 224\n")
      != NULL, "%s", text);
  fail_unless (strstr (text, "data type = 4\ninterleave = bip\n") != NULL,
      "%s", text);

  g_unlink (out_hdr);
  g_unlink (out_raw);
  g_rmdir (tmp);
  g_free (text);
  g_free (out_data);
  g_free (desc);
  g_free (out_hdr);
  g_free (out_raw);
  g_free (tmp);
  g_free (ref);
  g_free (hdr);
  g_free (raw);
  g_free (data);
}

GST_END_TEST;

static Suite *
spp_suite (void)
{
  Suite *s = suite_create ("scicodec-spp");
  TCase *tc = tcase_create ("spp");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_formats_sizes);
  tcase_add_test (tc, test_constant_cube);
  tcase_add_test (tc, test_caps);
  tcase_add_test (tc, test_window_size);
  tcase_add_test (tc, test_window_while_playing);
  tcase_add_test (tc, test_nonfinite);
  tcase_add_test (tc, test_wrong_size);
  tcase_add_test (tc, test_backend);
  tcase_add_test (tc, test_real_cube);
  return s;
}

GST_CHECK_MAIN (spp);
