/*
 * j2kdec on the CPU backend (its CUDA cases are in test_j2kdec_gpu.c):
 * lossless round trips from htj2kenc and ebcotcm over formats and odd
 * sizes, lossy quality, JPH input, filesrc ! jpeg2000parse / htj2kparse,
 * RTP (rtpj2kpay ! rtpj2kdepay ! jpeg2000parse), openjpegdec's view of the
 * same streams, reduce and max-layers against the C reference, format
 * refusals, truncated and mutated codestreams, caps only from the frames
 * (multifilesrc, a mid-stream change of size), decodebin, properties.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "tests/common/frameutil.h"
#include "codec/j2k/j2k_dec.h"
#include "j2kutil.h"

#define DEC "j2kdec backend=cpu"

/* What a decode run posted. */
/* Largest difference between `in` (of `info`) and the decoded `out`,
 * whose caps must be `info`'s format and size. */
static guint
max_diff (const GstVideoInfo * info, GstBuffer * in, GstBuffer * out,
    GstCaps * out_caps, const gchar * what)
{
  GstVideoInfo oi;
  GstVideoFrame a, b;
  guint d;

  fail_unless (out_caps && gst_video_info_from_caps (&oi, out_caps),
      "%s: no video caps out", what);
  fail_unless_equals_string (gst_video_format_to_string
      (GST_VIDEO_INFO_FORMAT (&oi)),
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)));
  fail_unless (oi.width == info->width && oi.height == info->height,
      "%s: %dx%d out of %dx%d", what, oi.width, oi.height, info->width,
      info->height);
  fail_unless (gst_video_frame_map (&a, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&b, &oi, out, GST_MAP_READ));
  d = frameutil_max_diff (&a, &b, NULL, NULL);
  if (d) {
    gchar *why = frameutil_describe_diff (&a, &b);

    GST_INFO ("%s: %s", what, why);
    g_free (why);
  }
  gst_video_frame_unmap (&a);
  gst_video_frame_unmap (&b);
  return d;
}

static void
video_info (GstVideoInfo * info, const gchar * format, gint w, gint h)
{
  GstCaps *caps = frameutil_video_caps (format, w, h);

  fail_unless (gst_video_info_from_caps (info, caps));
  gst_caps_unref (caps);
}

/* A random frame of `format` coded by `enc`, decoded by `dec`: exact. */
static void
check_lossless (const gchar * enc, const gchar * dec, const gchar * format,
    gint w, gint h, guint64 seed)
{
  GstVideoInfo info;
  GstCaps *caps, *coded_caps = NULL, *out_caps = NULL;
  GstBuffer *in, *coded, *out;
  gchar *what = g_strdup_printf ("%s ! %s, %s %dx%d", enc, dec, format, w, h);
  J2kPosted p;

  video_info (&info, format, w, h);
  caps = gst_video_info_to_caps (&info);
  in = frameutil_random_buffer (&info, &seed);
  coded = j2kutil_encode (enc, in, caps, &coded_caps);
  out = j2kutil_decode_one (dec, coded, coded_caps, &out_caps, &p);
  fail_unless (out != NULL, "%s: nothing decoded (%s)", what,
      p.error ? p.error : "no error");
  fail_unless (p.errors == 0 && p.warnings == 0, "%s: %s", what,
      p.error ? p.error : p.warning);
  fail_unless (max_diff (&info, in, out, out_caps, what) == 0,
      "%s: not exact", what);
  j2kutil_posted_clear (&p);
  gst_caps_unref (out_caps);
  gst_caps_unref (coded_caps);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_buffer_unref (coded);
  gst_buffer_unref (in);
  g_free (what);
}

static const gchar *const lossless_formats[] = {
  "GRAY8", "GRAY16_LE", "I420", "I420_10LE", "I420_12LE", "Y42B",
  "I422_10LE", "I422_12LE", "Y444", "Y444_10LE", "Y444_12LE", "Y444_16LE",
  "RGB", "GBR_10LE", "GBR_12LE",
};

GST_START_TEST (test_lossless_htj2kenc)
{
  const gint sizes[][2] = { {67, 45}, {1, 9}, {33, 2} };
  guint f, s;

  for (f = 0; f < G_N_ELEMENTS (lossless_formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      check_lossless ("htj2kenc backend=cpu reversible=true", DEC,
          lossless_formats[f], sizes[s][0], sizes[s][1], 31 * f + s + 1);
  /* RGB without the colour transform: the caps say sRGB */
  check_lossless ("htj2kenc backend=cpu reversible=true colour-transform=none",
      DEC, "RGB", 35, 21, 7);
  /* JPH files */
  check_lossless ("htj2kenc backend=cpu reversible=true jph=true", DEC, "I420",
      35, 21, 8);
  check_lossless ("htj2kenc backend=cpu reversible=true jph=true", DEC,
      "GBR_12LE", 35, 21, 9);
}

GST_END_TEST;

GST_START_TEST (test_lossless_ebcotcm)
{
  guint f;

  for (f = 0; f < G_N_ELEMENTS (lossless_formats); f++)
    check_lossless ("ebcotcm backend=cpu reversible=true", DEC,
        lossless_formats[f], 45, 29, 100 + f);
  check_lossless ("ebcotcm backend=cpu reversible=true layers=3 "
      "code-block-style=bypass+reset+termall+vcausal+pterm+segsym", DEC,
      "I420_10LE", 40, 26, 200);
  check_lossless ("ebcotcm backend=cpu reversible=true progression=cprl",
      DEC, "RGB", 31, 33, 201);
}

GST_END_TEST;

/* A smooth frame (videotestsrc's ball would do too): lossy decodes keep a
 * PSNR floor. */
GST_START_TEST (test_lossy_psnr)
{
  const gchar *encs[] = {
    "htj2kenc backend=cpu reversible=false qstep=0.004",
    "ebcotcm backend=cpu reversible=false bitrate=2",
  };
  const gchar *formats[] = { "GRAY8", "I420", "RGB", "Y444_12LE" };
  guint e, f;

  for (e = 0; e < G_N_ELEMENTS (encs); e++)
    for (f = 0; f < G_N_ELEMENTS (formats); f++) {
      gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 "
          "pattern=zone-plate kx2=6 ky2=6 ! video/x-raw,format=%s,"
          "width=96,height=64 ! tee name=t ! queue ! %s ! " DEC " ! "
          "appsink name=dec sync=false t. ! queue ! appsink name=src "
          "sync=false", formats[f], encs[e]);
      GstElement *pl = gst_parse_launch (desc, NULL);
      GstElement *a = gst_bin_get_by_name (GST_BIN (pl), "src");
      GstElement *b = gst_bin_get_by_name (GST_BIN (pl), "dec");
      GstSample *sa, *sb;
      GstVideoInfo ia, ib;
      GstVideoFrame fa, fb;
      gdouble sq, psnr, peak;
      guint64 n;

      fail_unless (pl != NULL, "%s", desc);
      gst_element_set_state (pl, GST_STATE_PLAYING);
      g_signal_emit_by_name (a, "pull-sample", &sa);
      g_signal_emit_by_name (b, "pull-sample", &sb);
      fail_unless (sa && sb, "%s: no frame", desc);
      gst_video_info_from_caps (&ia, gst_sample_get_caps (sa));
      gst_video_info_from_caps (&ib, gst_sample_get_caps (sb));
      fail_unless (GST_VIDEO_INFO_FORMAT (&ia) == GST_VIDEO_INFO_FORMAT (&ib));
      fail_unless (gst_video_frame_map (&fa, &ia, gst_sample_get_buffer (sa),
              GST_MAP_READ));
      fail_unless (gst_video_frame_map (&fb, &ib, gst_sample_get_buffer (sb),
              GST_MAP_READ));
      frameutil_max_diff (&fa, &fb, &sq, &n);
      peak = (1u << GST_VIDEO_INFO_COMP_DEPTH (&ia, 0)) - 1;
      psnr = sq > 0 ? 10 * log10 (peak * peak * n / sq) : 99;
      GST_INFO ("%s: PSNR %.2f dB", desc, psnr);
      fail_unless (psnr > 45 && psnr < 99, "%s: PSNR %.2f dB", desc, psnr);
      gst_video_frame_unmap (&fa);
      gst_video_frame_unmap (&fb);
      gst_sample_unref (sa);
      gst_sample_unref (sb);
      gst_element_set_state (pl, GST_STATE_NULL);
      gst_object_unref (a);
      gst_object_unref (b);
      gst_object_unref (pl);
      g_free (desc);
    }
}

GST_END_TEST;

/* Frames of a pipeline's appsink named "sink", after EOS; an error fails
 * the test. */
static GList *
run_pipeline (const gchar * desc, GstCaps ** caps)
{
  GError *err = NULL;
  GstElement *pl = gst_parse_launch (desc, &err);
  GstElement *sink;
  GstSample *s;
  GList *out = NULL;
  GstBus *bus;
  GstMessage *m;

  fail_unless (pl != NULL, "%s: %s", desc, err ? err->message : "?");
  g_clear_error (&err);
  sink = gst_bin_get_by_name (GST_BIN (pl), "sink");
  gst_element_set_state (pl, GST_STATE_PLAYING);
  while (TRUE) {
    g_signal_emit_by_name (sink, "pull-sample", &s);
    if (!s)
      break;
    if (caps && !*caps)
      *caps = gst_caps_ref (gst_sample_get_caps (s));
    out = g_list_append (out, gst_buffer_ref (gst_sample_get_buffer (s)));
    gst_sample_unref (s);
  }
  bus = gst_element_get_bus (pl);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (m) {
    gst_message_parse_error (m, &err, NULL);
    fail ("%s: %s", desc, err->message);
  }
  gst_object_unref (bus);
  gst_element_set_state (pl, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pl);
  return out;
}

/* A pipeline without appsink run to its EOS; an error fails the test. */
static void
run_to_eos (const gchar * desc)
{
  GstElement *pl = gst_parse_launch (desc, NULL);
  GstMessage *m;

  fail_unless (pl != NULL, "%s", desc);
  gst_element_set_state (pl, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pl), GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS, "%s: error", desc);
  gst_message_unref (m);
  gst_element_set_state (pl, GST_STATE_NULL);
  gst_object_unref (pl);
}

static void
free_buffers (GList * l)
{
  g_list_free_full (l, (GDestroyNotify) gst_buffer_unref);
}

static gboolean
same_bytes_all (GList * a, GList * b)
{
  if (g_list_length (a) != g_list_length (b))
    return FALSE;
  for (; a; a = a->next, b = b->next)
    if (!j2kutil_same_bytes (a->data, b->data))
      return FALSE;
  return TRUE;
}

#define SOURCE "videotestsrc num-buffers=3 pattern=ball ! " \
  "video/x-raw,format=I420,width=72,height=50"

/* The frames of SOURCE, the frames htj2kenc ! j2kdec decodes of them
 * (exact), and a file of the three codestreams back to back. */
GST_START_TEST (test_file_and_rtp)
{
  gchar *dir = g_dir_make_tmp ("j2kdec-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "f.j2c", NULL);
  gchar *desc;
  GList *src, *dec, *parsed;
  GstCaps *caps = NULL;
  GstVideoInfo info;
  GList *a, *b;

  src = run_pipeline (SOURCE " ! appsink name=sink sync=false", &caps);
  fail_unless_equals_int (g_list_length (src), 3);
  gst_video_info_from_caps (&info, caps);
  gst_caps_unref (caps);
  caps = NULL;
  dec = run_pipeline (SOURCE " ! htj2kenc backend=cpu reversible=true ! " DEC
      " ! appsink name=sink sync=false", &caps);
  fail_unless_equals_int (g_list_length (dec), 3);
  for (a = src, b = dec; a; a = a->next, b = b->next)
    fail_unless (max_diff (&info, a->data, b->data, caps, "htj2kenc") == 0);
  gst_caps_unref (caps);

  desc =
      g_strdup_printf (SOURCE
      " ! htj2kenc backend=cpu reversible=true ! filesink " "location=%s",
      file);
  run_to_eos (desc);
  g_free (desc);

  /* the same frames through the parsers, and through RTP */
  desc = g_strdup_printf ("filesrc location=%s ! jpeg2000parse ! " DEC
      " ! appsink name=sink sync=false", file);
  parsed = run_pipeline (desc, NULL);
  fail_unless (same_bytes_all (parsed, dec), "jpeg2000parse");
  free_buffers (parsed);
  g_free (desc);
  desc = g_strdup_printf ("filesrc location=%s ! htj2kparse ! " DEC
      " ! appsink name=sink sync=false", file);
  parsed = run_pipeline (desc, NULL);
  fail_unless (same_bytes_all (parsed, dec), "htj2kparse");
  free_buffers (parsed);
  g_free (desc);
  parsed =
      run_pipeline (SOURCE
      " ! htj2kenc backend=cpu reversible=true ! rtpj2kpay mtu=400 "
      "! rtpj2kdepay ! jpeg2000parse ! " DEC " ! appsink name=sink sync=false",
      NULL);
  fail_unless (same_bytes_all (parsed, dec), "rtpj2kpay ! rtpj2kdepay");
  free_buffers (parsed);
  /* and decodebin picks j2kdec for a raw codestream file */
  desc = g_strdup_printf ("filesrc location=%s ! decodebin name=d ! "
      "appsink name=sink sync=false", file);
  parsed = run_pipeline (desc, NULL);
  fail_unless (same_bytes_all (parsed, dec), "decodebin");
  free_buffers (parsed);
  g_free (desc);

  free_buffers (src);
  free_buffers (dec);
  g_unlink (file);
  g_rmdir (dir);
  g_free (file);
  g_free (dir);
}

GST_END_TEST;

/* J2K in MPEG-TS (H.222.0 Annex S): the coded caps carry what mpegtsmux
 * needs (alignment, profile, colorimetry), and htj2kenc and ebcotcm
 * lossless streams come back exact through mpegtsmux, a file, tsdemux and
 * jpeg2000parse, in every kind of sampling; ebcotcm's 8-bit ones also
 * through openjpegdec, an independent decoder. */
GST_START_TEST (test_mpegts)
{
  static const gchar *const formats[] = {
    "I420", "Y42B", "Y444_12LE", "GRAY16_LE", "RGB",
  };
  static const gchar *const encs[] = { "htj2kenc", "ebcotcm" };
  gchar *dir = g_dir_make_tmp ("j2kdec-ts-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "f.ts", NULL);
  guint f, e;

  if (!gst_registry_check_feature_version (gst_registry_get (), "mpegtsmux",
          1, 0, 0) || !gst_registry_check_feature_version (gst_registry_get (),
          "tsdemux", 1, 0, 0)) {
    g_printerr ("no mpegtsmux or tsdemux: test_mpegts skipped\n");
    goto done;
  }
  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (e = 0; e < G_N_ELEMENTS (encs); e++) {
      gchar *src_desc = g_strdup_printf ("videotestsrc num-buffers=4 "
          "pattern=ball ! video/x-raw,format=%s,width=70,height=46,"
          "framerate=25/1", formats[f]);
      gchar *desc;
      GList *src, *back, *a, *b;
      GstCaps *caps = NULL, *coded = NULL;
      GstVideoInfo info;
      const GstStructure *cs;

      desc = g_strdup_printf ("%s ! appsink name=sink sync=false", src_desc);
      src = run_pipeline (desc, &caps);
      g_free (desc);
      gst_video_info_from_caps (&info, caps);
      gst_caps_unref (caps);
      caps = NULL;

      desc = g_strdup_printf ("%s ! %s backend=cpu reversible=true ! "
          "appsink name=sink sync=false", src_desc, encs[e]);
      free_buffers (run_pipeline (desc, &coded));
      g_free (desc);
      cs = gst_caps_get_structure (coded, 0);
      fail_unless (g_str_equal (gst_structure_get_string (cs, "alignment"),
              "frame") && gst_structure_has_field_typed (cs, "profile",
              G_TYPE_INT) && gst_structure_get_string (cs, "colorimetry"),
          "%s %s: %" GST_PTR_FORMAT, encs[e], formats[f], coded);
      gst_caps_unref (coded);

      desc = g_strdup_printf ("%s ! %s backend=cpu reversible=true ! "
          "mpegtsmux ! filesink location=%s", src_desc, encs[e], file);
      run_to_eos (desc);
      g_free (desc);
      desc = g_strdup_printf ("filesrc location=%s ! tsdemux ! jpeg2000parse "
          "! " DEC " ! video/x-raw,format=%s ! appsink name=sink sync=false",
          file, formats[f]);
      back = run_pipeline (desc, &caps);
      g_free (desc);
      fail_unless_equals_int (g_list_length (back), 4);
      for (a = src, b = back; a && b; a = a->next, b = b->next)
        fail_unless (max_diff (&info, a->data, b->data, caps, encs[e]) == 0,
            "%s %s through MPEG-TS", encs[e], formats[f]);
      free_buffers (back);
      gst_caps_unref (caps);
      caps = NULL;
      /* the 8-bit ones: Debian's openjpegdec refuses to negotiate
       * GRAY16 and 12-bit 4:4:4 */
      if (e == 1 && j2kutil_have_openjpegdec ()
          && GST_VIDEO_INFO_COMP_DEPTH (&info, 0) == 8) {
        desc = g_strdup_printf ("filesrc location=%s ! tsdemux ! "
            "jpeg2000parse ! openjpegdec ! videoconvert ! video/x-raw,"
            "format=%s ! appsink name=sink sync=false", file, formats[f]);
        back = run_pipeline (desc, &caps);
        g_free (desc);
        fail_unless_equals_int (g_list_length (back), 4);
        for (a = src, b = back; a && b; a = a->next, b = b->next)
          fail_unless (max_diff (&info, a->data, b->data, caps,
                  "openjpegdec") == 0, "openjpegdec %s through MPEG-TS",
              formats[f]);
        free_buffers (back);
        gst_caps_unref (caps);
      }
      free_buffers (src);
      g_free (src_desc);
    }
done:
  g_unlink (file);
  g_rmdir (dir);
  g_free (file);
  g_free (dir);
}

GST_END_TEST;

static void
element_added (GstBin * bin, GstBin * sub, GstElement * e, gpointer found)
{
  GstElementFactory *f = gst_element_get_factory (e);

  if (f && g_str_equal (GST_OBJECT_NAME (f), "j2kdec"))
    *(gboolean *) found = TRUE;
}

/* decodebin on a .j2c and a .jph file: j2kdec decodes them. */
GST_START_TEST (test_decodebin)
{
  const gchar *encs[] = { "htj2kenc backend=cpu", "htj2kenc backend=cpu "
        "jph=true", "ebcotcm backend=cpu"
  };
  gchar *dir = g_dir_make_tmp ("j2kdec-XXXXXX", NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (encs); i++) {
    gchar *file = g_build_filename (dir, i == 1 ? "f.jph" : "f.j2c", NULL);
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! video/x-raw,"
        "format=Y444,width=40,height=30 ! %s ! filesink location=%s",
        encs[i], file);
    gboolean found = FALSE;
    GstElement *pl, *d, *sink;
    GstSample *s;

    run_to_eos (desc);
    g_free (desc);
    desc = g_strdup_printf ("filesrc location=%s ! decodebin name=d ! "
        "appsink name=sink sync=false", file);
    pl = gst_parse_launch (desc, NULL);
    d = gst_bin_get_by_name (GST_BIN (pl), "d");
    sink = gst_bin_get_by_name (GST_BIN (pl), "sink");
    g_signal_connect (d, "deep-element-added", G_CALLBACK (element_added),
        &found);
    gst_element_set_state (pl, GST_STATE_PLAYING);
    g_signal_emit_by_name (sink, "pull-sample", &s);
    fail_unless (s != NULL, "%s: no frame", desc);
    gst_sample_unref (s);
    gst_element_set_state (pl, GST_STATE_NULL);
    gst_object_unref (sink);
    gst_object_unref (d);
    gst_object_unref (pl);
    fail_unless (found, "decodebin did not pick j2kdec for %s", encs[i]);
    g_unlink (file);
    g_free (file);
    g_free (desc);
  }
  g_rmdir (dir);
}

GST_END_TEST;

/* A JP2 file (a JPH one with the brand "jp2 ": the decoder reads any
 * code-block kind) from filesrc in 100-byte blocks: read whole, exact;
 * through decodebin too. */
GST_START_TEST (test_jp2_stream)
{
  gchar *dir = g_dir_make_tmp ("j2kdec-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "f.jp2", NULL);
  const gchar *chains[] = { "image/jp2 ! " DEC, "decodebin" };
  GstVideoInfo info;
  GstCaps *caps, *cc = NULL;
  GstBuffer *in, *coded;
  GstMapInfo map;
  guint64 seed = 41;
  gsize i;
  guint c;

  video_info (&info, "RGB", 45, 31);
  caps = gst_video_info_to_caps (&info);
  in = frameutil_random_buffer (&info, &seed);
  coded = j2kutil_encode ("htj2kenc backend=cpu reversible=true jph=true", in,
      caps, &cc);
  fail_unless (gst_buffer_map (coded, &map, GST_MAP_READ));
  {
    guint8 *d = g_memdup2 (map.data, map.size);

    for (i = 0; i + 4 <= MIN (map.size, 64); i++)
      if (memcmp (d + i, "jph ", 4) == 0)
        memcpy (d + i, "jp2 ", 4);
    fail_unless (g_file_set_contents (file, (gchar *) d, map.size, NULL));
    g_free (d);
  }
  gst_buffer_unmap (coded, &map);
  for (c = 0; c < G_N_ELEMENTS (chains); c++) {
    gchar *desc = g_strdup_printf ("filesrc location=%s blocksize=100 ! %s ! "
        "appsink name=sink sync=false", file, chains[c]);
    GstCaps *oc = NULL;
    GList *out = run_pipeline (desc, &oc);

    fail_unless_equals_int (g_list_length (out), 1);
    fail_unless (max_diff (&info, in, out->data, oc, desc) == 0, "%s", desc);
    gst_caps_unref (oc);
    free_buffers (out);
    g_free (desc);
  }
  g_unlink (file);
  g_rmdir (dir);
  g_free (file);
  g_free (dir);
  gst_caps_unref (caps);
  gst_caps_unref (cc);
  gst_buffer_unref (in);
  gst_buffer_unref (coded);
}

GST_END_TEST;

/* openjpegdec, the independent decoder, gives the frames j2kdec gives. */
GST_START_TEST (test_openjpegdec_agrees)
{
  const gchar *formats[] = { "GRAY8", "GRAY16_LE", "I420", "Y444_10LE",
    "RGB", "GBR_10LE"
  };
  const gchar *encs[] = { "htj2kenc backend=cpu reversible=true",
    "ebcotcm backend=cpu reversible=true"
  };
  guint f, e;

  if (!j2kutil_have_openjpegdec ()) {
    GST_WARNING ("openjpegdec missing: skipped");
    return;
  }
  for (e = 0; e < G_N_ELEMENTS (encs); e++)
    for (f = 0; f < G_N_ELEMENTS (formats); f++) {
      GstVideoInfo info;
      GstCaps *caps, *coded_caps = NULL, *out_caps = NULL, *opj_caps = NULL;
      GstBuffer *in, *coded, *out, *opj;
      guint64 seed = 500 + f;
      gchar *why = NULL;
      J2kPosted p;

      video_info (&info, formats[f], 50, 36);
      caps = gst_video_info_to_caps (&info);
      in = frameutil_random_buffer (&info, &seed);
      coded = j2kutil_encode (encs[e], in, caps, &coded_caps);
      out = j2kutil_decode_one (DEC, coded, coded_caps, &out_caps, &p);
      fail_unless (out != NULL);
      opj = j2kutil_decode (coded, coded_caps, &opj_caps, formats[f]);
      /* j2kdec's frame is of the input's format: compared as the input */
      fail_unless (frameutil_compare_decoded (&info, out, opj, opj_caps,
              NULL, NULL, NULL, &why) == 0, "%s %s: %s", encs[e], formats[f],
          why ? why : "");
      j2kutil_posted_clear (&p);
      gst_caps_unref (caps);
      gst_caps_unref (coded_caps);
      gst_caps_unref (out_caps);
      gst_caps_unref (opj_caps);
      gst_buffer_unref (in);
      gst_buffer_unref (coded);
      gst_buffer_unref (out);
      gst_buffer_unref (opj);
    }
}

GST_END_TEST;

/* The C reference's decode of `coded` with `p`: component c's samples
 * compared with the element's frame. */
static void
check_against_reference (GstBuffer * coded, GstBuffer * out,
    GstCaps * out_caps, const sci_j2k_decode_params * p, const gchar * what)
{
  sci_j2k_dec *d = sci_j2k_dec_new ();
  GstMapInfo map;
  GstVideoInfo oi;
  GstVideoFrame f;
  sci_j2k_info info;
  sci_j2k_plane planes[4];
  sci_j2k_comp_info ci[4];
  guint16 *buf[4] = { NULL };
  guint c, x, y, bad = 0;

  fail_unless (gst_buffer_map (coded, &map, GST_MAP_READ));
  fail_unless (sci_j2k_dec_parse (d, map.data, map.size, &info) == 0);
  fail_unless (info.components <= 4);
  for (c = 0; c < info.components; c++) {
    sci_j2k_dec_comp_info (d, c, p->reduce, &ci[c]);
    buf[c] = g_new0 (guint16, (gsize) ci[c].w * ci[c].h);
    planes[c].data = buf[c];
    planes[c].stride = ci[c].w;
    planes[c].bytes = ci[c].depth <= 8 ? 1 : 2;
  }
  fail_unless (sci_j2k_dec_decode (d, p, planes) == 0, "%s: %s", what,
      sci_j2k_dec_error (d));
  fail_unless (gst_video_info_from_caps (&oi, out_caps));
  fail_unless (gst_video_frame_map (&f, &oi, out, GST_MAP_READ));
  fail_unless (GST_VIDEO_FRAME_N_COMPONENTS (&f) == info.components);
  for (c = 0; c < info.components; c++) {
    fail_unless (GST_VIDEO_FRAME_COMP_WIDTH (&f, c) == (gint) ci[c].w
        && GST_VIDEO_FRAME_COMP_HEIGHT (&f, c) == (gint) ci[c].h,
        "%s: component %u is %dx%d, the reference's %ux%u", what, c,
        GST_VIDEO_FRAME_COMP_WIDTH (&f, c), GST_VIDEO_FRAME_COMP_HEIGHT (&f,
            c), ci[c].w, ci[c].h);
    for (y = 0; y < ci[c].h; y++)
      for (x = 0; x < ci[c].w; x++) {
        guint16 r = buf[c][(gsize) y * ci[c].w + x];

        if (ci[c].depth <= 8)
          r = ((guint8 *) buf[c])[(gsize) y * ci[c].w + x];
        bad += frameutil_sample (&f, c, x, y) != r;
      }
    g_free (buf[c]);
  }
  fail_unless (bad == 0, "%s: %u samples differ from the C reference", what,
      bad);
  gst_video_frame_unmap (&f);
  gst_buffer_unmap (coded, &map);
  sci_j2k_dec_free (d);
}

GST_START_TEST (test_reduce_and_layers)
{
  const gchar *formats[] = { "GRAY8", "I420", "RGB", "Y444_12LE" };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info;
    GstCaps *caps, *coded_caps = NULL, *out_caps = NULL;
    GstBuffer *in, *coded, *out;
    guint64 seed = 900 + f;
    sci_j2k_decode_params p = { 0, 0 };
    guint r, l;
    J2kPosted ps;

    video_info (&info, formats[f], 77, 51);
    caps = gst_video_info_to_caps (&info);
    in = frameutil_random_buffer (&info, &seed);
    coded = j2kutil_encode ("ebcotcm backend=cpu reversible=true layers=3 "
        "levels=3", in, caps, &coded_caps);
    for (r = 1; r <= 4; r++) {
      gchar *dec = g_strdup_printf (DEC " reduce=%u", r);
      GstVideoInfo oi;

      out = j2kutil_decode_one (dec, coded, coded_caps, &out_caps, &ps);
      fail_unless (out != NULL, "%s: %s", dec, ps.error);
      gst_video_info_from_caps (&oi, out_caps);
      /* ceil(77 / 2^r) x ceil(51 / 2^r); beyond the 3 levels: as 3 */
      fail_unless_equals_int (oi.width, (77 + (1 << MIN (r, 3)) - 1)
          >> MIN (r, 3));
      fail_unless_equals_int (oi.height, (51 + (1 << MIN (r, 3)) - 1)
          >> MIN (r, 3));
      p.reduce = MIN (r, 3);
      check_against_reference (coded, out, out_caps, &p, dec);
      j2kutil_posted_clear (&ps);
      gst_caps_unref (out_caps);
      gst_buffer_unref (out);
      g_free (dec);
    }
    p.reduce = 0;
    for (l = 1; l <= 3; l++) {
      gchar *dec = g_strdup_printf (DEC " max-layers=%u", l);

      out = j2kutil_decode_one (dec, coded, coded_caps, &out_caps, &ps);
      fail_unless (out != NULL, "%s: %s", dec, ps.error);
      p.max_layers = l;
      check_against_reference (coded, out, out_caps, &p, dec);
      /* fewer layers than coded lose detail; all of them are exact */
      if (l < 3)
        fail_unless (max_diff (&info, in, out, out_caps, dec) > 0,
            "%s: exact with %u of 3 layers", dec, l);
      else
        fail_unless (max_diff (&info, in, out, out_caps, dec) == 0, "%s", dec);
      j2kutil_posted_clear (&ps);
      gst_caps_unref (out_caps);
      gst_buffer_unref (out);
      g_free (dec);
    }
    gst_caps_unref (caps);
    gst_caps_unref (coded_caps);
    gst_buffer_unref (in);
    gst_buffer_unref (coded);
  }
}

GST_END_TEST;

/* A coded frame of `format`, w x h (htj2kenc, reversible). */
static GstBuffer *
coded_frame (const gchar * format, gint w, gint h, guint64 seed,
    GstCaps ** coded_caps)
{
  GstVideoInfo info;
  GstCaps *caps;
  GstBuffer *in, *coded;

  video_info (&info, format, w, h);
  caps = gst_video_info_to_caps (&info);
  in = frameutil_random_buffer (&info, &seed);
  coded = j2kutil_encode ("htj2kenc backend=cpu reversible=true", in, caps,
      coded_caps);
  gst_caps_unref (caps);
  gst_buffer_unref (in);
  return coded;
}

/* The SIZ of a codestream htj2kenc wrote: Csiz at 40, then Ssiz, XRsiz,
 * YRsiz of each component. */
#define SIZ_CSIZ 40
#define SIZ_COMP(c) (42 + 3 * (c))

static GstBuffer *
patched (GstBuffer * coded, gsize at, guint8 value)
{
  GstBuffer *b = gst_buffer_copy_deep (coded);

  gst_buffer_fill (b, at, &value, 1);
  return b;
}

/* What GStreamer video cannot carry: a STREAM/FORMAT error naming it. */
GST_START_TEST (test_refusals)
{
  GstCaps *caps = NULL, *yuv_caps = NULL;
  GstBuffer *gray = coded_frame ("GRAY8", 32, 24, 1, &caps);
  GstBuffer *yuv = coded_frame ("Y444", 32, 24, 2, &yuv_caps);
  struct
  {
    GstBuffer *in;
    GstCaps *caps;
    const gchar *says;
  } cases[4];
  guint i;

  /* signed samples; 17-bit samples; chroma subsampled 4x1; 3x3 */
  cases[0].in = patched (gray, SIZ_COMP (0), 0x87);
  cases[0].caps = caps;
  cases[0].says = "signed";
  cases[1].in = patched (gray, SIZ_COMP (0), 16);
  cases[1].caps = caps;
  cases[1].says = "17-bit";
  cases[2].in = patched (yuv, SIZ_COMP (1) + 1, 4);
  {
    GstBuffer *b = patched (cases[2].in, SIZ_COMP (2) + 1, 4);

    gst_buffer_unref (cases[2].in);
    cases[2].in = b;
  }
  cases[2].caps = yuv_caps;
  cases[2].says = "subsampled";
  cases[3].in = patched (yuv, SIZ_COMP (0) + 1, 2);
  cases[3].caps = yuv_caps;
  cases[3].says = "subsampled";
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    J2kPosted p;
    GstBuffer *out =
        j2kutil_decode_one (DEC, cases[i].in, cases[i].caps, NULL, &p);

    fail_unless (out == NULL, "case %u: decoded", i);
    fail_unless (p.errors >= 1, "case %u: no error", i);
    fail_unless (strstr (p.error, cases[i].says) != NULL,
        "case %u: \"%s\" does not say %s", i, p.error, cases[i].says);
    j2kutil_posted_clear (&p);
    gst_buffer_unref (cases[i].in);
  }
  gst_buffer_unref (gray);
  gst_buffer_unref (yuv);
  gst_caps_unref (caps);
  gst_caps_unref (yuv_caps);
}

GST_END_TEST;

/* Truncated codestreams: a frame and a warning, or an error naming the
 * byte offset; a broken main header: an error naming the byte offset. */
GST_START_TEST (test_truncated)
{
  GstCaps *caps = NULL;
  GstBuffer *coded = coded_frame ("I420", 64, 48, 3, &caps);
  gsize size = gst_buffer_get_size (coded), cut;
  guint frames = 0, errors = 0, warned = 0;
  J2kPosted p;
  GstBuffer *b, *out;

  for (cut = 2; cut < size; cut += 1 + cut / 8) {
    b = gst_buffer_copy_region (coded, GST_BUFFER_COPY_ALL, 0, cut);
    out = j2kutil_decode_one (DEC, b, caps, NULL, &p);
    if (out) {
      frames++;
      /* what the codestream lacks is said */
      fail_unless (p.warnings == 1, "cut at %" G_GSIZE_FORMAT ": %u "
          "warnings", cut, p.warnings);
      warned++;
      gst_buffer_unref (out);
    } else {
      errors++;
      fail_unless (p.errors == 1 && strstr (p.error, "byte") != NULL,
          "cut at %" G_GSIZE_FORMAT ": %s", cut, p.error ? p.error : "none");
    }
    j2kutil_posted_clear (&p);
    gst_buffer_unref (b);
  }
  GST_INFO ("%u frames with a warning, %u errors", frames, errors);
  fail_unless (frames > 0 && errors > 0 && warned == frames);

  /* Lsiz broken */
  b = patched (coded, 4, 0x01);
  out = j2kutil_decode_one (DEC, b, caps, NULL, &p);
  fail_unless (out == NULL && p.errors == 1);
  fail_unless (strstr (p.error, "at byte") != NULL, "%s", p.error);
  j2kutil_posted_clear (&p);
  gst_buffer_unref (b);
  gst_buffer_unref (coded);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* A few hundred mutated frames: each decodes (a warning allowed) or is an
 * error; no crash, no hang (ASan and the timeout watch the rest). */
GST_START_TEST (test_mutations)
{
  GstCaps *caps[2] = { NULL, NULL };
  GstBuffer *coded[2];
  guint64 state = 12345;
  guint i, frames = 0, errors = 0;

  coded[0] = coded_frame ("I420", 40, 30, 4, &caps[0]);
  {
    GstVideoInfo info;
    GstCaps *vc;
    GstBuffer *in;
    guint64 seed = 6;

    video_info (&info, "RGB", 40, 30);
    vc = gst_video_info_to_caps (&info);
    in = frameutil_random_buffer (&info, &seed);
    coded[1] = j2kutil_encode ("ebcotcm backend=cpu layers=2 "
        "code-block-style=termall", in, vc, &caps[1]);
    gst_buffer_unref (in);
    gst_caps_unref (vc);
  }
  for (i = 0; i < 300; i++) {
    guint k = i & 1, n, j;
    GstBuffer *b = gst_buffer_copy_deep (coded[k]);
    gsize size = gst_buffer_get_size (b);
    GstMapInfo map;
    GstBuffer *out;
    J2kPosted p;

    gst_buffer_map (b, &map, GST_MAP_WRITE);
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    n = 1 + (state >> 60) % 4;
    for (j = 0; j < n; j++) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      map.data[(state >> 33) % size] ^= 1u << ((state >> 20) & 7);
    }
    gst_buffer_unmap (b, &map);
    if (i % 5 == 4)
      gst_buffer_resize (b, 0, 1 + (state >> 40) % size);
    out = j2kutil_decode_one (DEC, b, caps[k], NULL, &p);
    if (out) {
      frames++;
      gst_buffer_unref (out);
    } else {
      errors++;
      fail_unless (p.errors == 1, "mutation %u: no frame and no error", i);
    }
    j2kutil_posted_clear (&p);
    gst_buffer_unref (b);
  }
  GST_INFO ("%u frames, %u errors", frames, errors);
  fail_unless (frames > 0 && errors > 0);
  gst_buffer_unref (coded[0]);
  gst_buffer_unref (coded[1]);
  gst_caps_unref (caps[0]);
  gst_caps_unref (caps[1]);
}

GST_END_TEST;

/* Bare input caps (multifilesrc): the output caps come from the frames,
 * and a frame of another size and format renegotiates. */
GST_START_TEST (test_caps_from_frames)
{
  gchar *dir = g_dir_make_tmp ("j2kdec-XXXXXX", NULL);
  const gchar *formats[] = { "I420", "I420", "GRAY16_LE" };
  const gint sizes[][2] = { {64, 48}, {31, 17}, {20, 10} };
  GstBuffer *in[3];
  GstVideoInfo infos[3];
  gchar *desc, *loc;
  guint i;

  for (i = 0; i < 3; i++) {
    GstCaps *caps, *cc = NULL;
    GstBuffer *coded;
    gchar *file = g_strdup_printf ("%s/f%u.j2c", dir, i);
    GstMapInfo map;
    guint64 seed = 70 + i;

    video_info (&infos[i], formats[i], sizes[i][0], sizes[i][1]);
    caps = gst_video_info_to_caps (&infos[i]);
    in[i] = frameutil_random_buffer (&infos[i], &seed);
    coded = j2kutil_encode ("htj2kenc backend=cpu reversible=true", in[i],
        caps, &cc);
    gst_buffer_map (coded, &map, GST_MAP_READ);
    fail_unless (g_file_set_contents (file, (gchar *) map.data, map.size,
            NULL));
    gst_buffer_unmap (coded, &map);
    gst_buffer_unref (coded);
    gst_caps_unref (cc);
    gst_caps_unref (caps);
    g_free (file);
  }
  loc = g_strdup_printf ("%s/f%%u.j2c", dir);
  desc = g_strdup_printf ("multifilesrc location=%s stop-index=2 "
      "caps=image/x-jpc ! " DEC " ! appsink name=sink sync=false "
      "emit-signals=false", loc);
  {
    GstElement *pl = gst_parse_launch (desc, NULL);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pl), "sink");
    GstSample *s;

    gst_element_set_state (pl, GST_STATE_PLAYING);
    for (i = 0; i < 3; i++) {
      GstVideoInfo oi;
      gchar *what = g_strdup_printf ("frame %u", i);

      g_signal_emit_by_name (sink, "pull-sample", &s);
      fail_unless (s != NULL, "%s: none", what);
      gst_video_info_from_caps (&oi, gst_sample_get_caps (s));
      fail_unless (max_diff (&infos[i], in[i], gst_sample_get_buffer (s),
              gst_sample_get_caps (s), what) == 0, "%s", what);
      gst_sample_unref (s);
      g_free (what);
    }
    gst_element_set_state (pl, GST_STATE_NULL);
    gst_object_unref (sink);
    gst_object_unref (pl);
  }
  for (i = 0; i < 3; i++) {
    gchar *file = g_strdup_printf ("%s/f%u.j2c", dir, i);

    g_unlink (file);
    g_free (file);
    gst_buffer_unref (in[i]);
  }
  g_rmdir (dir);
  g_free (dir);
  g_free (loc);
  g_free (desc);
}

GST_END_TEST;

/* Frames leave in order with their timestamps; after an error the input
 * is dropped until a flush, and decoding then goes on. */
GST_START_TEST (test_timestamps_and_flush)
{
  GstCaps *caps = NULL;
  GstBuffer *coded = coded_frame ("I420", 48, 32, 9, &caps);
  GstHarness *h = gst_harness_new_parse (DEC);
  GstBus *bus = gst_bus_new ();
  GstBuffer *bad, *out;
  J2kPosted p = { 0 };
  guint k;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  for (k = 0; k < 4; k++) {
    GstBuffer *b = gst_buffer_copy (coded);

    GST_BUFFER_PTS (b) = k * 40 * GST_MSECOND;
    GST_BUFFER_DURATION (b) = 40 * GST_MSECOND;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  for (k = 0; k < 4; k++) {
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * 40 * GST_MSECOND);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), 40 * GST_MSECOND);
    gst_buffer_unref (out);
  }
  /* a broken main header: an error, and the next frame is dropped */
  bad = patched (coded, 4, 0x01);
  fail_unless_equals_int (gst_harness_push (h, bad), GST_FLOW_ERROR);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (coded)),
      GST_FLOW_ERROR);
  fail_unless (gst_harness_try_pull (h) == NULL);
  j2kutil_collect (bus, &p);
  fail_unless_equals_int (p.errors, 1);
  j2kutil_posted_clear (&p);
  /* a flush, and frames decode again */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (coded)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  j2kutil_collect (bus, &p);
  fail_unless_equals_int (p.errors, 0);
  j2kutil_posted_clear (&p);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  gst_buffer_unref (coded);
  gst_caps_unref (caps);
}

GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("j2kdec", NULL);
  GParamSpecUInt *ps;
  guint v;

  fail_unless (e != NULL);
  ps = (GParamSpecUInt *) g_object_class_find_property (G_OBJECT_GET_CLASS
      (e), "reduce");
  fail_unless (ps && ps->minimum == 0 && ps->maximum == 32
      && ps->default_value == 0);
  ps = (GParamSpecUInt *) g_object_class_find_property (G_OBJECT_GET_CLASS
      (e), "max-layers");
  fail_unless (ps && ps->minimum == 0 && ps->maximum == 65535
      && ps->default_value == 0);
  ps = (GParamSpecUInt *) g_object_class_find_property (G_OBJECT_GET_CLASS
      (e), "frames-in-flight");
  fail_unless (ps && ps->minimum == 1 && ps->maximum == 8
      && ps->default_value == 2);
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          "backend") != NULL);
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          "cuda-device-id") != NULL);
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          "threads") != NULL);
  g_object_set (e, "reduce", 3, "max-layers", 7, "frames-in-flight", 4, NULL);
  g_object_get (e, "reduce", &v, NULL);
  fail_unless_equals_int (v, 3);
  g_object_get (e, "max-layers", &v, NULL);
  fail_unless_equals_int (v, 7);
  g_object_get (e, "frames-in-flight", &v, NULL);
  fail_unless_equals_int (v, 4);
  fail_unless_equals_int (gst_plugin_feature_get_rank (GST_PLUGIN_FEATURE
          (gst_element_get_factory (e))), GST_RANK_PRIMARY);
  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
j2kdec_suite (void)
{
  Suite *s = suite_create ("scicodec-j2kdec");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_lossless_htj2kenc);
  tcase_add_test (tc, test_lossless_ebcotcm);
  tcase_add_test (tc, test_lossy_psnr);
  tcase_add_test (tc, test_file_and_rtp);
  tcase_add_test (tc, test_mpegts);
  tcase_add_test (tc, test_decodebin);
  tcase_add_test (tc, test_jp2_stream);
  tcase_add_test (tc, test_openjpegdec_agrees);
  tcase_add_test (tc, test_reduce_and_layers);
  tcase_add_test (tc, test_refusals);
  tcase_add_test (tc, test_truncated);
  tcase_add_test (tc, test_mutations);
  tcase_add_test (tc, test_caps_from_frames);
  tcase_add_test (tc, test_timestamps_and_flush);
  return s;
}

GST_CHECK_MAIN (j2kdec);
