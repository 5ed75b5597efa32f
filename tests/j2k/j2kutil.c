#include "j2kutil.h"

#include <math.h>
#include <string.h>

#include "tests/common/frameutil.h"
#include "j2kplt.h"

const J2kCapsCase j2kutil_caps_cases[] = {
  {"GRAY8", "GRAY", "GRAYSCALE", 1},
  {"GRAY16_LE", "GRAY", "GRAYSCALE", 1},
  {"I420", "sYUV", "YCbCr-4:2:0", 3},
  {"I420_12LE", "sYUV", "YCbCr-4:2:0", 3},
  {"Y42B", "sYUV", "YCbCr-4:2:2", 3},
  {"I422_10LE", "sYUV", "YCbCr-4:2:2", 3},
  {"Y444_12LE", "sYUV", "YCbCr-4:4:4", 3},
  {"Y444_16LE", "sYUV", "YCbCr-4:4:4", 3},
  {"RGB", "sRGB", "RGB", 3},
  {"BGR", "sRGB", "RGB", 3},
  {"GBR_10LE", "sRGB", "RGB", 3},
};

const guint j2kutil_n_caps_cases = G_N_ELEMENTS (j2kutil_caps_cases);

gboolean
j2kutil_have_openjpegdec (void)
{
  GstElementFactory *f = gst_element_factory_find ("openjpegdec");

  if (!f)
    return FALSE;
  gst_object_unref (f);
  return TRUE;
}

GstBuffer *
j2kutil_run_one (GstHarness * h, GstBuffer * in, GstCaps ** out_caps,
    const gchar * what)
{
  GstFlowReturn ret = gst_harness_push (h, gst_buffer_ref (in));
  GstQuery *drain = gst_query_new_drain ();
  GstBuffer *out;

  fail_unless (ret == GST_FLOW_OK, "%s: push returned %s", what,
      gst_flow_get_name (ret));
  /* ebcotcm on CUDA keeps a frame in flight until the next one or a
   * drain (whose answer is downstream's: the harness has none) */
  gst_pad_peer_query (h->srcpad, drain);
  gst_query_unref (drain);
  out = gst_harness_pull (h);
  if (out && out_caps)
    *out_caps = gst_pad_get_current_caps (h->sinkpad);
  return out;
}

GstBuffer *
j2kutil_encode (const gchar * pipeline, GstBuffer * in, GstCaps * caps,
    GstCaps ** out_caps)
{
  GstHarness *hr = gst_harness_new_parse (pipeline);
  GstBuffer *out;

  gst_harness_set_src_caps (hr, gst_caps_ref (caps));
  out = j2kutil_run_one (hr, in, out_caps, pipeline);
  fail_unless (out != NULL, "%s: no output", pipeline);
  gst_harness_teardown (hr);
  return out;
}

GstBuffer *
j2kutil_decode (GstBuffer * coded, GstCaps * coded_caps, GstCaps ** out_caps,
    const gchar * what)
{
  GstHarness *hr = gst_harness_new ("openjpegdec");
  GstBuffer *out;

  gst_harness_set_src_caps (hr, gst_caps_ref (coded_caps));
  out = j2kutil_run_one (hr, coded, out_caps, what);
  fail_unless (out != NULL, "%s: openjpegdec decoded nothing", what);
  gst_harness_teardown (hr);
  return out;
}

gint64
j2kutil_code_and_measure (const gchar * pipeline, const GstVideoInfo * info,
    GstCaps * caps, GstBuffer * in, gsize * size, gdouble * psnr)
{
  GstCaps *coded_caps = NULL, *out_caps = NULL;
  GstBuffer *coded, *out;
  gdouble sq, peak = (1u << GST_VIDEO_INFO_COMP_DEPTH (info, 0)) - 1;
  guint64 n;
  gchar *why = NULL;
  gint64 bad;

  coded = j2kutil_encode (pipeline, in, caps, &coded_caps);
  if (size)
    *size = gst_buffer_get_size (coded);
  out = j2kutil_decode (coded, coded_caps, &out_caps, pipeline);
  bad = frameutil_compare_decoded (info, in, out, out_caps, &sq, &n, NULL,
      &why);
  fail_unless (bad >= 0, "%s: %s", pipeline, why);
  g_free (why);
  *psnr = sq > 0 ? 10 * log10 (peak * peak * n / sq) : 99;
  gst_caps_unref (out_caps);
  gst_caps_unref (coded_caps);
  gst_buffer_unref (out);
  gst_buffer_unref (coded);
  return bad;
}

gboolean
j2kutil_same_bytes (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;
  gboolean same;

  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  same = ma.size == mb.size && memcmp (ma.data, mb.data, ma.size) == 0;
  gst_buffer_unmap (b, &mb);
  gst_buffer_unmap (a, &ma);
  return same;
}

void
j2kutil_assert_same_bytes (GstBuffer * a, GstBuffer * b, const gchar * what)
{
  fail_unless (j2kutil_same_bytes (a, b), "%s: %" G_GSIZE_FORMAT " and %"
      G_GSIZE_FORMAT " bytes differ", what, gst_buffer_get_size (a),
      gst_buffer_get_size (b));
}

void
j2kutil_assert_coded_as (GstBuffer * out, const gchar * pipeline,
    GstBuffer * in, GstCaps * caps, const gchar * what)
{
  GstBuffer *ref = j2kutil_encode (pipeline, in, caps, NULL);

  j2kutil_assert_same_bytes (out, ref, what);
  gst_buffer_unref (ref);
}

void
j2kutil_assert_same_coding (const gchar * pipeline_a,
    const gchar * pipeline_b, GstBuffer * in, GstCaps * caps,
    const gchar * what)
{
  GstBuffer *a = j2kutil_encode (pipeline_a, in, caps, NULL);

  j2kutil_assert_coded_as (a, pipeline_b, in, caps, what);
  gst_buffer_unref (a);
}

void
j2kutil_check_plt (const gchar * pipeline, const gchar * format, gint w,
    gint h, guint64 seed)
{
  GstCaps *caps = frameutil_video_caps (format, w, h);
  gchar *with = g_strdup_printf ("%s plt=true", pipeline);
  GstVideoInfo info;
  GstBuffer *in, *a, *b;
  GstMapInfo ma, mb;
  j2kt_plt t, t0;
  const gchar *why = "";
  uint8_t *strip;
  size_t n;

  fail_unless (gst_video_info_from_caps (&info, caps));
  in = j2kutil_random_frame (&info, seed);
  a = j2kutil_encode (with, in, caps, NULL);
  b = j2kutil_encode (pipeline, in, caps, NULL);
  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  fail_unless (j2kt_plt_parse (ma.data, ma.size, &t, &why) == 0,
      "%s, %s %dx%d: %s", with, format, w, h, why);
  fail_unless (t.segs >= 1 && t.n > 0, "%s, %s %dx%d: no PLT", with, format,
      w, h);
  fail_unless (j2kt_plt_parse (mb.data, mb.size, &t0, &why) == 0 &&
      t0.segs == 0, "%s, %s %dx%d: PLT without plt", pipeline, format, w, h);
  strip = j2kt_plt_strip (ma.data, ma.size, &t, &n);
  fail_unless (strip && n == mb.size && memcmp (strip, mb.data, n) == 0,
      "%s, %s %dx%d: without its PLT not what %s makes", with, format, w, h,
      pipeline);
  free (strip);
  j2kt_plt_free (&t);
  j2kt_plt_free (&t0);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
  g_free (with);
}

/* Zeroed: no byte (padding included) is left uninitialised, and a frame
 * nothing is drawn on is the flat one. */
static GstBuffer *
new_frame (const GstVideoInfo * info, GstVideoFrame * f)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);

  gst_buffer_memset (buf, 0, 0, info->size);
  fail_unless (gst_video_frame_map (f, info, buf, GST_MAP_WRITE));
  return buf;
}

static GstBuffer *
random_frame (const GstVideoInfo * info, guint64 * state)
{
  GstVideoFrame f;
  GstBuffer *buf = new_frame (info, &f);

  frameutil_fill_random (&f, state);
  gst_video_frame_unmap (&f);
  return buf;
}

GstBuffer *
j2kutil_random_frame (const GstVideoInfo * info, guint64 seed)
{
  return random_frame (info, &seed);
}

GstBuffer *
j2kutil_synthetic_frame (const GstVideoInfo * info, J2kSampleFunc sample,
    gpointer user_data)
{
  GstVideoFrame f;
  GstBuffer *buf = new_frame (info, &f);
  guint c, x, y;

  for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (&f); c++) {
    guint depth = GST_VIDEO_FRAME_COMP_DEPTH (&f, c);
    guint cw = GST_VIDEO_FRAME_COMP_WIDTH (&f, c);
    guint ch = GST_VIDEO_FRAME_COMP_HEIGHT (&f, c);
    gdouble max = (1u << depth) - 1;

    for (y = 0; y < ch; y++) {
      for (x = 0; x < cw; x++) {
        guint8 *p = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, c) +
            (gsize) y * GST_VIDEO_FRAME_COMP_STRIDE (&f, c) +
            (gsize) x * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, c);
        gdouble v = sample (c, x, y, cw, ch, user_data);
        guint s = (guint) CLAMP (v * max + 0.5, 0, max);

        if (depth > 8)
          GST_WRITE_UINT16_LE (p, s);
        else
          *p = s;
      }
    }
  }
  gst_video_frame_unmap (&f);
  return buf;
}

void
j2kutil_check_lossless (const gchar * pipeline, const gchar * format,
    gint w, gint h, guint64 seed, J2kFrameFunc extra)
{
  GstHarness *hr = gst_harness_new_parse (pipeline);
  GstCaps *caps = frameutil_video_caps (format, w, h);
  GstVideoInfo info;
  guint k, n_frames = extra ? 3 : 2;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (hr, caps);
  for (k = 0; k < n_frames; k++) {
    GstBuffer *in, *out;
    GstCaps *out_caps = NULL;
    gchar *why = NULL, *what;
    gint64 bad;

    if (k == 0) {
      GstVideoFrame f;

      in = new_frame (&info, &f);
      gst_video_frame_unmap (&f);
    } else if (k == 1) {
      in = random_frame (&info, &seed);
    } else {
      in = extra (&info, seed);
    }
    what = g_strdup_printf ("%s, %s %dx%d frame %u", pipeline, format, w, h, k);
    out = j2kutil_run_one (hr, in, &out_caps, what);
    fail_unless (out != NULL, "%s: nothing decoded", what);
    bad = frameutil_compare_decoded (&info, in, out, out_caps, NULL, NULL,
        NULL, &why);
    fail_unless (bad >= 0, "%s: %s", what, why);
    fail_unless (bad == 0, "%s: %" G_GINT64_FORMAT " samples differ, first %s",
        what, bad, why);
    g_free (what);
    gst_caps_unref (out_caps);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_harness_teardown (hr);
}

GstStructure *
j2kutil_coded_structure (const gchar * pipeline, const gchar * format,
    gint w, gint h)
{
  GstCaps *caps = frameutil_video_caps (format, w, h);
  GstCaps *out_caps = NULL;
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstStructure *s;

  fail_unless (gst_video_info_from_caps (&info, caps));
  in = j2kutil_random_frame (&info, 3);
  out = j2kutil_encode (pipeline, in, caps, &out_caps);
  s = gst_structure_copy (gst_caps_get_structure (out_caps, 0));
  gst_caps_unref (out_caps);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
  return s;
}

void
j2kutil_assert_jpc_structure (const GstStructure * s, const J2kCapsCase * c,
    gint w, gint h)
{
  gint v, n, d;

  fail_unless (gst_structure_has_name (s, "image/x-jpc"), "%s: %s",
      c->format, gst_structure_get_name (s));
  fail_unless (gst_structure_get_int (s, "width", &v) && v == w);
  fail_unless (gst_structure_get_int (s, "height", &v) && v == h);
  fail_unless (gst_structure_get_int (s, "num-components", &v));
  fail_unless_equals_int (v, c->components);
  fail_unless_equals_string (gst_structure_get_string (s, "colorspace"),
      c->colorspace);
  fail_unless_equals_string (gst_structure_get_string (s, "sampling"),
      c->sampling);
  fail_unless (gst_structure_get_fraction (s, "framerate", &n, &d));
  fail_unless (n == 30 && d == 1);
}

void
j2kutil_expect_refusal (const gchar * pipeline, GstCaps * caps,
    const gchar * needle)
{
  GstHarness *hr = gst_harness_new_parse (pipeline);
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  GstFlowReturn ret;
  GstMessage *msg;

  gst_element_set_bus (hr->element, bus);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (hr, caps);
  ret = gst_harness_push (hr, j2kutil_random_frame (&info, 9));
  fail_unless (ret == GST_FLOW_NOT_NEGOTIATED || ret == GST_FLOW_ERROR,
      "%s: pushed with %s", pipeline, gst_flow_get_name (ret));
  fail_unless (gst_harness_try_pull (hr) == NULL);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (needle) {
    GError *err = NULL;
    gchar *debug = NULL;

    fail_unless (msg != NULL, "%s: no error message", pipeline);
    gst_message_parse_error (msg, &err, &debug);
    GST_INFO ("%s: %s (%s)", pipeline, err->message, debug);
    fail_unless (strstr (err->message, needle) != NULL,
        "%s: error \"%s\" does not mention \"%s\"", pipeline, err->message,
        needle);
    g_error_free (err);
    g_free (debug);
  } else {
    fail_unless_equals_int (ret, GST_FLOW_NOT_NEGOTIATED);
  }
  if (msg)
    gst_message_unref (msg);
  gst_element_set_bus (hr->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (hr);
}

void
j2kutil_check_wavelet_input (const gchar * element,
    const J2kWaveletCase * cases, guint n_cases, J2kFrameFunc make,
    guint64 seed0)
{
  guint i;

  for (i = 0; i < n_cases; i++) {
    GstCaps *caps = frameutil_video_caps (cases[i].format, 45, 37);
    GstVideoInfo info;
    GstBuffer *in;
    gchar *p1, *p2;

    fail_unless (gst_video_info_from_caps (&info, caps));
    in = make (&info, seed0 + i);
    p1 = g_strdup_printf ("%s %s", element, cases[i].enc);
    /* the encoder's levels are ignored with wavelet input: a different
     * value must not matter */
    p2 = g_strdup_printf ("cudadwt backend=cpu %s ! %s %s levels=7",
        cases[i].dwt, element, cases[i].enc);
    j2kutil_assert_same_coding (p1, p2, in, caps, p2);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
    g_free (p1);
    g_free (p2);
  }
}

void
j2kutil_run_pipeline (const gchar * desc)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipe != NULL && err == NULL, "%s", desc);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipe);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: timed out", desc);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *e = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &e, &dbg);
    fail ("%s: %s (%s)", desc, e->message, dbg);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

void
j2kutil_posted_clear (J2kPosted * p)
{
  g_free (p->error);
  g_free (p->warning);
  memset (p, 0, sizeof *p);
}

void
j2kutil_collect (GstBus * bus, J2kPosted * p)
{
  GstMessage *m;

  while ((m = gst_bus_pop (bus))) {
    GError *err = NULL;
    gchar *dbg = NULL;

    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (m, &err, &dbg);
      if (!p->errors++)
        p->error = g_strdup (err->message);
    } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (m, &err, &dbg);
      if (!p->warnings++)
        p->warning = g_strdup (err->message);
    }
    g_clear_error (&err);
    g_free (dbg);
    gst_message_unref (m);
  }
}

static GstPadProbeReturn
note_caps (GstPad * pad, GstPadProbeInfo * info, gpointer list)
{
  GList **l = list;

  *l = g_list_append (*l, gst_pad_get_current_caps (pad));
  return GST_PAD_PROBE_OK;
}

GList *
j2kutil_decode_all (const gchar * desc, GList * coded, GstCaps * coded_caps,
    GList ** caps, J2kPosted * p)
{
  GstHarness *h = gst_harness_new_parse (desc);
  GstBus *bus = gst_bus_new ();
  GList *out = NULL, *noted = NULL, *l;
  GstBuffer *b;

  memset (p, 0, sizeof *p);
  gst_element_set_bus (h->element, bus);
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BUFFER, note_caps,
      &noted, NULL);
  gst_harness_set_src_caps (h, gst_caps_ref (coded_caps));
  for (l = coded; l; l = l->next)
    if (gst_harness_push (h, gst_buffer_ref (l->data)) != GST_FLOW_OK)
      break;
  gst_harness_push_event (h, gst_event_new_eos ());
  while ((b = gst_harness_try_pull (h)))
    out = g_list_append (out, b);
  fail_unless_equals_int (g_list_length (noted), g_list_length (out));
  if (caps)
    *caps = noted;
  else
    g_list_free_full (noted, (GDestroyNotify) gst_caps_unref);
  j2kutil_collect (bus, p);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return out;
}

GstBuffer *
j2kutil_decode_one (const gchar * desc, GstBuffer * coded,
    GstCaps * coded_caps, GstCaps ** caps, J2kPosted * p)
{
  GList *in = g_list_append (NULL, coded), *cl = NULL;
  GList *out = j2kutil_decode_all (desc, in, coded_caps, &cl, p);
  GstBuffer *b = out ? out->data : NULL;

  fail_unless (g_list_length (out) <= 1, "%s: %u frames out of one", desc,
      g_list_length (out));
  if (caps)
    *caps = cl ? gst_caps_ref (cl->data) : NULL;
  g_list_free_full (cl, (GDestroyNotify) gst_caps_unref);
  g_list_free (out);
  g_list_free (in);
  return b;
}
