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
#include <stdio.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/video/video.h>

#include "exampleutil.h"
#include "tests/common/frameutil.h"

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

static gboolean
run_case (const Case * c, guint frames, const gchar * backend,
    gboolean cuda_memory, guint * max_err, gdouble * psnr, guint * done,
    gchar ** error)
{
  ExamplePipeline p;
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
  *max_err = 0;
  *done = 0;
  ok = example_pipeline_init (&p, desc, error);
  g_free (desc);
  if (!ok)
    return FALSE;
  gst_element_set_state (p.pipe, GST_STATE_PLAYING);

  while (ok && *done < frames) {
    GstSample *a, *b;
    GstVideoInfo ia, ib;
    GstVideoFrame fa, fb;
    gdouble sq;
    guint64 n;

    if (!example_pipeline_pull (&p, &a, &b, error))
      break;
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
  example_pipeline_clear (&p);
  *psnr = example_psnr (peak, sq_total, n_total);
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
  GstElementFactory *dwt, *upload;
  guint i;

  if (!example_parse_args (&argc, &argv, "- DWT round trip check", entries,
          &frames, &backend))
    return 2;
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

    cuda_memory = example_takes_cuda_memory (upload, GST_PAD_SRC, c->format);
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
