/*
 * The coded (and decoded) bytes of the video codecs are those of the
 * elements before they moved onto GstVideoEncoder and GstVideoDecoder
 * (issue 21): for each pipeline of the table below, the MD5 of every
 * output buffer in turn, the number of buffers, their timestamps and the
 * output caps are what the old elements gave.
 *
 * The table was made by this very program run with --print against the
 * plugin built from the tree before the change (commit 187f1b1, the CPU
 * build): GST_PLUGIN_PATH_1_0=<old build>/elements test-codec-bytes
 * --print.  Every pipeline is deterministic: videotestsrc patterns, the
 * CPU backend (the CUDA one gives the same bytes, checked by the parity
 * tests and the GPU suite).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>

typedef struct
{
  const gchar *pipeline;
  guint buffers;
  /* MD5 of the output bytes, buffer after buffer */
  const gchar *md5;
  /* MD5 of each buffer's PTS and duration (as text), in turn */
  const gchar *times;
  const gchar *caps;
} Case;

#define RAW(pattern, fmt, w, h) \
  "videotestsrc pattern=" pattern " num-buffers=3 ! video/x-raw,format=" \
  fmt ",width=" #w ",height=" #h ",framerate=25/1 ! "

static const gchar *const pipelines[] = {
  RAW ("smpte", "I420", 64, 48) "htj2kenc backend=cpu reversible=true",
  RAW ("ball", "RGB", 77, 61) "htj2kenc backend=cpu reversible=false",
  RAW ("zone-plate", "GRAY16_LE", 64, 40) "htj2kenc backend=cpu jph=true "
      "levels=3 progression=rpcl block-width=16 block-height=16",
  RAW ("pinwheel", "Y444", 48, 48) "htj2kenc backend=cpu reversible=false "
      "bitrate=2.0",
  RAW ("smpte", "I420", 64, 48) "cudadwt backend=cpu levels=3 ! "
      "htj2kenc backend=cpu reversible=true",
  RAW ("smpte", "I420", 64, 48) "ebcotcm backend=cpu",
  RAW ("ball", "RGB", 77, 61) "ebcotcm backend=cpu reversible=false "
      "layers=3 progression=pcrl",
  RAW ("spokes", "GRAY8", 50, 30) "ebcotcm backend=cpu bitrate=1.5 layers=2 "
      "code-block-style=bypass+termall",
  RAW ("zone-plate", "RGB", 64, 48) "cudadwt backend=cpu filter=9-7 ! "
      "ebcotcm backend=cpu reversible=false",
  /* threshold=13: the old element's default (dpcmenc's is 0 since) */
  RAW ("zone-plate", "GRAY16_LE", 64, 40) "dpcmenc backend=cpu threshold=13",
  RAW ("ball", "GRAY8", 45, 37) "dpcmenc backend=cpu scan=columns order=4 "
      "equations=3 threshold=0",
  RAW ("gamut", "GRAY16_LE", 64, 40) "dpcmenc backend=cpu ! "
      "dpcmdec backend=cpu",
};

/* Made with --print from the plugin of commit 187f1b1 (see above); the
 * caps of image/x-jpc since gained alignment, profile and colorimetry (for
 * mpegtsmux), image/x-jph colorimetry: bytes and timestamps unchanged. */
static const Case expected[] = {
  {"videotestsrc pattern=smpte num-buffers=3 ! video/x-raw,format=I420,width=64,height=48,framerate=25/1 ! htj2kenc backend=cpu reversible=true",
        3, "50d576f8d922bbd553ec865f767ed031",
        "9c00550fbe8c8dcd1d88e474634adbce",
      "image/x-jpc, width=(int)64, height=(int)48, framerate=(fraction)25/1, pixel-aspect-ratio=(fraction)1/1, num-components=(int)3, colorspace=(string)sYUV, sampling=(string)YCbCr-4:2:0, colorimetry=(string)bt601, alignment=(string)frame, profile=(int)16384"},
  {"videotestsrc pattern=ball num-buffers=3 ! video/x-raw,format=RGB,width=77,height=61,framerate=25/1 ! htj2kenc backend=cpu reversible=false",
        3, "1215aef7d46a564e4015c83823779696",
        "9c00550fbe8c8dcd1d88e474634adbce",
      "image/x-jpc, width=(int)77, height=(int)61, framerate=(fraction)25/1, pixel-aspect-ratio=(fraction)1/1, num-components=(int)3, colorspace=(string)sRGB, sampling=(string)RGB, colorimetry=(string)sRGB, alignment=(string)frame, profile=(int)16384"},
  {"videotestsrc pattern=zone-plate num-buffers=3 ! video/x-raw,format=GRAY16_LE,width=64,height=40,framerate=25/1 ! htj2kenc backend=cpu jph=true levels=3 progression=rpcl block-width=16 block-height=16",
        3, "3cc58a37d0d95b9318bed168ec29abc4",
        "9c00550fbe8c8dcd1d88e474634adbce",
      "image/x-jph, width=(int)64, height=(int)40, framerate=(fraction)25/1, pixel-aspect-ratio=(fraction)1/1, num-components=(int)1, colorspace=(string)GRAY, sampling=(string)GRAYSCALE, colorimetry=(string)1:4:0:0"},
  {"videotestsrc pattern=pinwheel num-buffers=3 ! video/x-raw,format=Y444,width=48,height=48,framerate=25/1 ! htj2kenc backend=cpu reversible=false bitrate=2.0",
        3, "a623ec132fc516da0b6f30ff51b53f05",
        "9c00550fbe8c8dcd1d88e474634adbce",
      "image/x-jpc, width=(int)48, height=(int)48, framerate=(fraction)25/1, pixel-aspect-ratio=(fraction)1/1, num-components=(int)3, colorspace=(string)sYUV, sampling=(string)YCbCr-4:4:4, colorimetry=(string)bt601, alignment=(string)frame, profile=(int)16384"},
  {"videotestsrc pattern=smpte num-buffers=3 ! video/x-raw,format=I420,width=64,height=48,framerate=25/1 ! cudadwt backend=cpu levels=3 ! htj2kenc backend=cpu reversible=true",
        3, "06e82a1e389b8bc31657a5f5be5bda29",
        "9c00550fbe8c8dcd1d88e474634adbce",
      "image/x-jpc, width=(int)64, height=(int)48, framerate=(fraction)25/1, pixel-aspect-ratio=(fraction)1/1, num-components=(int)3, colorspace=(string)sYUV, sampling=(string)YCbCr-4:2:0, colorimetry=(string)bt601, alignment=(string)frame, profile=(int)16384"},
  {"videotestsrc pattern=smpte num-buffers=3 ! video/x-raw,format=I420,width=64,height=48,framerate=25/1 ! ebcotcm backend=cpu",
        3, "dc097ef685aa795870bcdac0429a2ab5",
        "9c00550fbe8c8dcd1d88e474634adbce",
      "image/x-jpc, width=(int)64, height=(int)48, framerate=(fraction)25/1, pixel-aspect-ratio=(fraction)1/1, num-components=(int)3, colorspace=(string)sYUV, sampling=(string)YCbCr-4:2:0, colorimetry=(string)bt601, alignment=(string)frame, profile=(int)0"},
  {"videotestsrc pattern=ball num-buffers=3 ! video/x-raw,format=RGB,width=77,height=61,framerate=25/1 ! ebcotcm backend=cpu reversible=false layers=3 progression=pcrl",
        3, "510e2c15c6fef6145e54943830c1464e",
        "9c00550fbe8c8dcd1d88e474634adbce",
      "image/x-jpc, width=(int)77, height=(int)61, framerate=(fraction)25/1, pixel-aspect-ratio=(fraction)1/1, num-components=(int)3, colorspace=(string)sRGB, sampling=(string)RGB, colorimetry=(string)sRGB, alignment=(string)frame, profile=(int)0"},
  {"videotestsrc pattern=spokes num-buffers=3 ! video/x-raw,format=GRAY8,width=50,height=30,framerate=25/1 ! ebcotcm backend=cpu bitrate=1.5 layers=2 code-block-style=bypass+termall",
        3, "0c30e8c516fce00052bb993b306d5bb9",
        "9c00550fbe8c8dcd1d88e474634adbce",
      "image/x-jpc, width=(int)50, height=(int)30, framerate=(fraction)25/1, pixel-aspect-ratio=(fraction)1/1, num-components=(int)1, colorspace=(string)GRAY, sampling=(string)GRAYSCALE, colorimetry=(string)1:4:0:0, alignment=(string)frame, profile=(int)0"},
  {"videotestsrc pattern=zone-plate num-buffers=3 ! video/x-raw,format=RGB,width=64,height=48,framerate=25/1 ! cudadwt backend=cpu filter=9-7 ! ebcotcm backend=cpu reversible=false",
        3, "55ada5aa297f9e75f4d177b264088c10",
        "9c00550fbe8c8dcd1d88e474634adbce",
      "image/x-jpc, width=(int)64, height=(int)48, framerate=(fraction)25/1, pixel-aspect-ratio=(fraction)1/1, num-components=(int)3, colorspace=(string)sRGB, sampling=(string)RGB, colorimetry=(string)sRGB, alignment=(string)frame, profile=(int)0"},
  {"videotestsrc pattern=zone-plate num-buffers=3 ! video/x-raw,format=GRAY16_LE,width=64,height=40,framerate=25/1 ! dpcmenc backend=cpu threshold=13",
        3, "e55cb4888dfee6ff5c5218c723ecca73",
        "9c00550fbe8c8dcd1d88e474634adbce",
      "application/x-dpcm, width=(int)64, height=(int)40, framerate=(fraction)25/1, depth=(int)16"},
  {"videotestsrc pattern=ball num-buffers=3 ! video/x-raw,format=GRAY8,width=45,height=37,framerate=25/1 ! dpcmenc backend=cpu scan=columns order=4 equations=3 threshold=0",
        3, "e18de3012d45967afeef252372b5ade2",
        "9c00550fbe8c8dcd1d88e474634adbce",
      "application/x-dpcm, width=(int)45, height=(int)37, framerate=(fraction)25/1, depth=(int)8"},
  {"videotestsrc pattern=gamut num-buffers=3 ! video/x-raw,format=GRAY16_LE,width=64,height=40,framerate=25/1 ! dpcmenc backend=cpu ! dpcmdec backend=cpu",
        3, "bafe0b5d00cddeba5d23f16a522c3e0a",
        "9c00550fbe8c8dcd1d88e474634adbce",
      "video/x-raw, format=(string)GRAY16_LE, width=(int)64, height=(int)40, interlace-mode=(string)progressive, pixel-aspect-ratio=(fraction)1/1, colorimetry=(string)1:4:0:0, framerate=(fraction)25/1"},
};

typedef struct
{
  guint buffers;
  gchar *md5, *times, *caps;
  GChecksum *bytes_sum, *times_sum;
} Result;

static void
result_clear (Result * r)
{
  g_free (r->md5);
  g_free (r->times);
  g_free (r->caps);
}

static void
handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, Result * r)
{
  GstMapInfo map;
  gchar *t;

  if (!r->caps) {
    GstCaps *caps = gst_pad_get_current_caps (pad);

    r->caps = gst_caps_to_string (caps);
    gst_caps_unref (caps);
  }
  gst_buffer_map (buf, &map, GST_MAP_READ);
  g_checksum_update (r->bytes_sum, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  t = g_strdup_printf ("%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT ";",
      GST_BUFFER_PTS (buf), GST_BUFFER_DURATION (buf));
  g_checksum_update (r->times_sum, (const guchar *) t, strlen (t));
  g_free (t);
  r->buffers++;
}

/* Runs `description` ! fakesink to its end, gathering what came out. */
static gboolean
run (const gchar * description, Result * r)
{
  gchar *full = g_strdup_printf ("%s ! fakesink name=out sync=false "
      "signal-handoffs=true", description);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (full, &err);
  GstElement *sink;
  GstBus *bus;
  GstMessage *msg;
  gboolean ok;

  memset (r, 0, sizeof (*r));
  g_free (full);
  if (!pipeline) {
    GST_ERROR ("%s: %s", description, err ? err->message : "?");
    g_clear_error (&err);
    return FALSE;
  }
  r->bytes_sum = g_checksum_new (G_CHECKSUM_MD5);
  r->times_sum = g_checksum_new (G_CHECKSUM_MD5);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  g_signal_connect (sink, "handoff", G_CALLBACK (handoff), r);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  ok = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (msg && !ok) {
    gst_message_parse_error (msg, &err, NULL);
    GST_ERROR ("%s: %s", description, err->message);
    g_clear_error (&err);
  }
  gst_clear_message (&msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  r->md5 = g_strdup (g_checksum_get_string (r->bytes_sum));
  r->times = g_strdup (g_checksum_get_string (r->times_sum));
  g_checksum_free (r->bytes_sum);
  g_checksum_free (r->times_sum);
  return ok && r->caps != NULL;
}

/* dpcmenc's caps say parsed=true since it is a GstVideoEncoder (so that
 * dpcmdec takes its buffers as whole frames); every other field of the
 * caps is as before. */
static gchar *
without_parsed (gchar * caps_string)
{
  GstCaps *caps = gst_caps_from_string (caps_string);

  gst_structure_remove_field (gst_caps_get_structure (caps, 0), "parsed");
  g_free (caps_string);
  caps_string = gst_caps_to_string (caps);
  gst_caps_unref (caps);
  return caps_string;
}

GST_START_TEST (test_bytes_unchanged)
{
  guint k;

  fail_unless_equals_int (G_N_ELEMENTS (expected), G_N_ELEMENTS (pipelines));
  for (k = 0; k < G_N_ELEMENTS (expected); k++) {
    const Case *c = &expected[k];
    Result r;

    fail_unless_equals_string (c->pipeline, pipelines[k]);
    fail_unless (run (c->pipeline, &r), "%s: failed", c->pipeline);
    fail_unless_equals_int (r.buffers, c->buffers);
    fail_unless (strcmp (r.md5, c->md5) == 0, "%s: bytes differ", c->pipeline);
    fail_unless (strcmp (r.times, c->times) == 0, "%s: timestamps differ",
        c->pipeline);
    r.caps = without_parsed (r.caps);
    fail_unless_equals_string (r.caps, c->caps);
    result_clear (&r);
  }
}

GST_END_TEST;

/* The rows of `expected` for the plugin found (to stdout). */
static int
print_table (void)
{
  guint k;

  for (k = 0; k < G_N_ELEMENTS (pipelines); k++) {
    Result r;

    if (!run (pipelines[k], &r)) {
      g_printerr ("%s: failed\n", pipelines[k]);
      return 1;
    }
    g_print ("  {\"%s\",\n      %u, \"%s\", \"%s\",\n      \"%s\"},\n",
        pipelines[k], r.buffers, r.md5, r.times, r.caps);
    result_clear (&r);
  }
  return 0;
}

static Suite *
codec_bytes_suite (void)
{
  Suite *s = suite_create ("codec-bytes");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_bytes_unchanged);
  return s;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--print") == 0) {
    gst_init (NULL, NULL);
    return print_table ();
  }
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (codec_bytes_suite (), "codec-bytes", __FILE__);
}
