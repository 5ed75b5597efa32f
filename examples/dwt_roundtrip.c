/*
 * The main job: videotestsrc frames through cudadwt ! cudaidwt, each frame
 * compared with the frame that went in.  5/3 must come back exact; 9/7 is
 * reported as its largest error and PSNR.  A case runs on CUDA memory
 * (cudaupload .. cudadownload) when nvcodec's cudaupload is there and takes
 * its format (GStreamer 1.22's takes no gray and few 12-bit formats), else
 * on system memory, which the elements upload themselves.
 *
 *   dwt-roundtrip [--frames N] [--backend auto|cuda|cpu] [--system-memory]
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "tests/frameutil.h"

typedef struct
{
  const gchar *format;
  gint width, height;
  const gchar *filter;
  guint levels;
  const gchar *pattern;
  guint frames;                 /* 0: the --frames value */
} Case;

static const Case cases[] = {
  {"I420", 1920, 1080, "5-3", 5, "smpte", 0},
  {"I420_10LE", 1920, 1080, "5-3", 5, "ball", 0},
  {"Y444_12LE", 3840, 2160, "5-3", 5, "snow", 2},
  {"RGB", 1279, 719, "5-3", 6, "pinwheel", 0},
  {"GRAY16_LE", 1001, 999, "5-3", 32, "gradient", 0},
  {"GBR_12LE", 1920, 1080, "9-7", 5, "smpte", 0},
  {"I422_10LE", 1920, 1080, "9-7", 5, "ball", 0},
};

/* The next frame of an appsink, or NULL at EOS, on a pipeline error (then
 * *error says which) or after a minute without one.  An error upstream never
 * wakes a waiting appsink, hence the short waits with a look at the bus. */
static GstSample *
pull (GstElement * sink, GstBus * bus, gchar ** error)
{
  guint tries;

  for (tries = 0; tries < 600; tries++) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        GST_SECOND / 10);
    GstMessage *msg;

    if (s)
      return s;
    if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
      return NULL;
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      GError *e = NULL;

      gst_message_parse_error (msg, &e, NULL);
      *error = g_strdup (e->message);
      g_clear_error (&e);
      gst_message_unref (msg);
      return NULL;
    }
  }
  *error = g_strdup ("no frame within a minute");
  return NULL;
}

/* Whether cudaupload, when there, takes `format` in CUDA memory. */
static gboolean
cuda_upload_takes (GstElementFactory * upload, const gchar * format)
{
  const GList *t;
  GstCaps *want;
  gboolean ok = FALSE;

  if (!upload)
    return FALSE;
  want = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, format,
      NULL);
  gst_caps_set_features (want, 0,
      gst_caps_features_new ("memory:CUDAMemory", NULL));
  for (t = gst_element_factory_get_static_pad_templates (upload); t;
      t = t->next) {
    GstStaticPadTemplate *tmpl = t->data;
    GstCaps *caps;

    if (tmpl->direction != GST_PAD_SRC)
      continue;
    caps = gst_static_pad_template_get_caps (tmpl);
    ok |= gst_caps_can_intersect (caps, want);
    gst_caps_unref (caps);
  }
  gst_caps_unref (want);
  return ok;
}

static gboolean
run_case (const Case * c, guint frames, const gchar * backend,
    gboolean cuda_memory, guint * max_err, gdouble * psnr, guint * done,
    gchar ** error)
{
  GstElement *pipe, *ref, *out;
  GstBus *bus;
  GError *err = NULL;
  gchar *desc;
  guint64 peak = (1u << 16) - 1;
  gdouble sq_total = 0;
  guint64 n_total = 0;
  gboolean ok = TRUE;

  desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=%s ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1 ! tee name=t "
      "t. ! queue ! appsink name=ref sync=false "
      "t. ! queue ! %s cudadwt filter=%s levels=%u backend=%s ! "
      "cudaidwt backend=%s %s ! appsink name=out sync=false",
      frames, c->pattern, c->format, c->width, c->height,
      cuda_memory ? "cudaupload ! video/x-raw(memory:CUDAMemory) !" : "",
      c->filter, c->levels, backend, backend,
      cuda_memory ? "! video/x-raw(memory:CUDAMemory) ! cudadownload" : "");
  pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipe) {
    *error = g_strdup (err->message);
    g_clear_error (&err);
    return FALSE;
  }
  ref = gst_bin_get_by_name (GST_BIN (pipe), "ref");
  out = gst_bin_get_by_name (GST_BIN (pipe), "out");
  gst_element_set_state (pipe, GST_STATE_PLAYING);

  *max_err = 0;
  *done = 0;
  bus = gst_element_get_bus (pipe);
  while (ok && *done < frames) {
    GstSample *a, *b = NULL;
    GstVideoInfo ia, ib;
    GstVideoFrame fa, fb;
    gdouble sq;
    guint64 n;

    a = pull (ref, bus, error);
    if (a)
      b = pull (out, bus, error);
    if (!a || !b) {
      if (a)
        gst_sample_unref (a);
      break;
    }
    gst_video_info_from_caps (&ia, gst_sample_get_caps (a));
    gst_video_info_from_caps (&ib, gst_sample_get_caps (b));
    peak = (1u << GST_VIDEO_INFO_COMP_DEPTH (&ia, 0)) - 1;
    if (gst_video_frame_map (&fa, &ia, gst_sample_get_buffer (a), GST_MAP_READ)) {
      if (gst_video_frame_map (&fb, &ib, gst_sample_get_buffer (b),
              GST_MAP_READ)) {
        *max_err = MAX (*max_err, frameutil_max_diff (&fa, &fb, &sq, &n));
        sq_total += sq;
        n_total += n;
        (*done)++;
        gst_video_frame_unmap (&fb);
      } else {
        ok = FALSE;
      }
      gst_video_frame_unmap (&fa);
    } else {
      ok = FALSE;
    }
    gst_sample_unref (a);
    gst_sample_unref (b);
  }

  if (*error)
    ok = FALSE;
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (ref);
  gst_object_unref (out);
  gst_object_unref (pipe);

  *psnr = sq_total > 0 ? 10 * log10 ((gdouble) peak * peak * n_total /
      sq_total) : INFINITY;
  return ok && *done == frames;
}

int
main (int argc, char **argv)
{
  gint frames = 5;
  gchar *backend = NULL;
  gboolean system_memory = FALSE, cuda_memory, all_exact = TRUE;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames, "Frames per case (5)",
        "N"},
    {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend,
        "auto, cuda or cpu (auto)", "B"},
    {"system-memory", 's', 0, G_OPTION_ARG_NONE, &system_memory,
        "Do not use CUDA memory even when cudaupload is there", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- DWT round trip check");
  GError *err = NULL;
  GstElementFactory *dwt, *upload;
  guint i;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (!backend)
    backend = g_strdup ("auto");
  dwt = gst_element_factory_find ("cudadwt");
  if (!dwt) {
    g_printerr ("cudadwt not found: set GST_PLUGIN_PATH to the build dir\n");
    return 2;
  }
  gst_object_unref (dwt);
  /* nvcodec registers cudaupload only where a CUDA driver loads */
  upload = system_memory ? NULL : gst_element_factory_find ("cudaupload");

  g_print ("cudadwt ! cudaidwt round trip, backend=%s\n\n", backend);
  g_print ("%-10s %-10s %-6s %-6s %-6s %-6s %-8s %s\n", "format", "size",
      "filter", "levels", "memory", "frames", "max err", "result");
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const Case *c = &cases[i];
    guint n = c->frames ? MIN ((guint) frames, c->frames) : (guint) frames;
    guint max_err = 0, done = 0;
    gdouble psnr = 0;
    gchar *error = NULL, *size;
    gboolean ok, lossless = !strcmp (c->filter, "5-3");

    cuda_memory = cuda_upload_takes (upload, c->format);
    ok = run_case (c, n, backend, cuda_memory, &max_err, &psnr, &done, &error);
    size = g_strdup_printf ("%dx%d", c->width, c->height);
    g_print ("%-10s %-10s %-6s %-6u %-6s %-6u ", c->format, size, c->filter,
        c->levels, cuda_memory ? "CUDA" : "system", done);
    if (!ok) {
      g_print ("%-8s FAILED: %s\n", "-", error ? error : "no output");
      all_exact = FALSE;
    } else if (lossless) {
      g_print ("%-8u %s\n", max_err, max_err == 0 ? "exact" : "NOT EXACT");
      all_exact &= max_err == 0;
    } else if (max_err == 0) {
      /* unquantised 9/7 float coefficients usually round back exactly */
      g_print ("%-8u exact after rounding (irreversible)\n", max_err);
    } else {
      g_print ("%-8u irreversible, PSNR %.1f dB\n", max_err, psnr);
    }
    g_free (size);
    g_free (error);
  }
  g_print ("\n%s\n", all_exact ? "every case ran; every 5/3 frame came "
      "back exact" : "FAILURE: a case failed or a 5/3 frame was not exact");
  if (upload)
    gst_object_unref (upload);
  g_free (backend);
  return all_exact ? 0 : 1;
}
