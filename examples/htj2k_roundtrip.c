/*
 * The main job, second part: videotestsrc frames through the JPEG 2000
 * encoders (htj2kenc: HT code-blocks; ebcotcm: Part 1 EBCOT code-blocks
 * with PCRD rate control and quality layers) and two decoders of every
 * codestream, the plugin's j2kdec (same backend as the encoder) and, as
 * the independent check, OpenJPEG's openjpegdec; each decoded frame is
 * compared with the frame that went in: lossless (reversible=true) cases
 * must come back exact from both, lossy ones above a PSNR floor.  The first codestream of each case is written to a
 * directory and, where opj_decompress and ojph_expand are on PATH, decoded
 * by them too (their exit status is checked; ojph_expand decodes HT
 * code-blocks only).
 *
 * A case runs on CUDA memory (cudaupload ! htj2kenc) when nvcodec's
 * cudaupload is there and takes its format, the backend is not cpu and the
 * plugin was built with CUDA; else on system memory.  Which backend ran is
 * read from the encoder's own log (its INFO lines are captured, not printed,
 * unless GST_DEBUG asked for them).  "enc fps" is frames over the wall-clock
 * time spent in the encoding elements (upload, DWT, encoder), measured at
 * their pads, leaving out the first frame (set-up) where there are more.
 *
 *   htj2k-roundtrip [--frames N] [--backend auto|cuda|cpu] [--system-memory]
 *                   [--output-dir DIR]
 */
#include <stdio.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "exampleutil.h"
#include "tests/common/frameutil.h"

typedef struct
{
  const gchar *element;         /* htj2kenc or ebcotcm */
  const gchar *name;            /* file name of its codestream */
  const gchar *format;
  gint width, height;
  const gchar *pattern;
  const gchar *dwt;             /* cudadwt before the encoder: its properties */
  const gchar *props;           /* the encoder's properties */
  const gchar *coding;          /* what the table says of the two */
  gboolean lossless;
  gdouble min_psnr;             /* lossy: the least PSNR accepted, dB */
  gdouble max_bpp;              /* a bitrate target: the most bits/pixel */
  guint frames;                 /* the most frames (0: --frames) */
} Case;

static const Case cases[] = {
  {"htj2kenc", "rgb-720p", "RGB", 1280, 720, "smpte", NULL, "reversible=true",
      "lossless", TRUE, 0, 0, 0},
  {"htj2kenc", "i420p10-1080p", "I420_10LE", 1920, 1080, "spokes", NULL,
      "reversible=true", "lossless", TRUE, 0, 0, 0},
  {"htj2kenc", "i422p10-1080p-cudadwt", "I422_10LE", 1920, 1080, "pinwheel",
        "filter=5-3 levels=5", "reversible=true", "cudadwt ! lossless", TRUE,
      0, 0, 0},
  {"htj2kenc", "y444p12-2160p-qstep", "Y444_12LE", 3840, 2160, "circular",
      NULL, "qstep=0.00390625", "qstep 1/256", FALSE, 50, 0, 2},
  {"htj2kenc", "gbrp12-2160p-1bpp", "GBR_12LE", 3840, 2160, "circular", NULL,
      "bitrate=1", "bitrate 1 bpp", FALSE, 40, 1.05, 2},
  {"htj2kenc", "gray16-odd", "GRAY16_LE", 1001, 999, "gradient", NULL,
      "reversible=true", "lossless", TRUE, 0, 0, 0},
  {"ebcotcm", "p1-rgb-720p", "RGB", 1280, 720, "smpte", NULL,
      "reversible=true", "lossless", TRUE, 0, 0, 0},
  {"ebcotcm", "p1-i420p10-1080p-styles", "I420_10LE", 1920, 1080, "spokes",
        NULL, "reversible=true code-block-style=bypass+termall+segsym",
      "lossless, styles", TRUE, 0, 0, 0},
  {"ebcotcm", "p1-y444p12-2160p-2bpp", "Y444_12LE", 3840, 2160, "circular",
      NULL, "bitrate=2 layers=4", "2 bpp, 4 layers", FALSE, 40, 2.0, 2},
  {"ebcotcm", "p1-i422p10-1080p-cudadwt", "I422_10LE", 1920, 1080, "smpte",
        "filter=9-7 levels=5", "bitrate=1", "cudadwt ! 1 bpp", FALSE, 35, 1.0,
      0},
};

/* What the encoder said about its backend, from its INFO log lines. */
static GMutex log_lock;
static gchar log_backend[16];
static gboolean log_fallback;
static GstDebugLevel user_level = GST_LEVEL_NONE;

static gboolean
is_encoder_category (GstDebugCategory * cat)
{
  const gchar *name = gst_debug_category_get_name (cat);

  return strcmp (name, "htj2kenc") == 0 || strcmp (name, "ebcotcm") == 0;
}

static void
log_func (GstDebugCategory * cat, GstDebugLevel level, const gchar * file,
    const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  if (is_encoder_category (cat)) {
    const gchar *m = gst_debug_message_get (message);

    g_mutex_lock (&log_lock);
    /* at configure: "..., CUDA backend, system memory in" */
    if (m && strstr (m, "CUDA backend, "))
      g_strlcpy (log_backend, "CUDA", sizeof (log_backend));
    else if (m && strstr (m, "CPU backend, "))
      g_strlcpy (log_backend, "CPU", sizeof (log_backend));
    /* out of device memory, the auto backend goes on on the CPU */
    if (m && strstr (m, "backend: CPU") && strstr (m, "from now on"))
      log_fallback = TRUE;
    g_mutex_unlock (&log_lock);
    if (level > user_level)
      return;
  }
  gst_debug_log_default (cat, level, file, function, line, object, message,
      NULL);
}

/* Lets the encoders' INFO lines reach log_func without printing them. */
static void
capture_backend_log (void)
{
  const gchar *names[] = { "htj2kenc", "ebcotcm" };
  GSList *cats, *l;
  guint i;

  /* a debug category exists once its class is made */
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstElement *e = gst_element_factory_make (names[i], NULL);

    if (e)
      gst_object_unref (e);
  }
  cats = gst_debug_get_all_categories ();
  for (l = cats; l; l = l->next) {
    GstDebugCategory *cat = l->data;

    if (is_encoder_category (cat)) {
      user_level = gst_debug_category_get_threshold (cat);
      if (user_level < GST_LEVEL_INFO)
        gst_debug_category_set_threshold (cat, GST_LEVEL_INFO);
    }
  }
  g_slist_free (cats);
  /* without GST_DEBUG nothing is logged at all; the other categories stay
   * at their threshold (none) */
  gst_debug_set_active (TRUE);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (log_func, NULL, NULL);
}

/* What the pad probes gather about the encoding elements. */
typedef struct
{
  gint64 t_in;                  /* when the frame being encoded entered */
  gint64 enc_us;                /* time spent encoding, all frames */
  gint64 first_us;              /* of which the first frame */
  guint64 bytes;
  guint coded;
  GBytes *first;                /* the first codestream */
} Stats;

static GstPadProbeReturn
probe_in (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  ((Stats *) data)->t_in = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
probe_out (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Stats *st = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gint64 us = g_get_monotonic_time () - st->t_in;

  if (st->coded == 0)
    st->first_us = us;
  st->enc_us += us;
  st->bytes += gst_buffer_get_size (buf);
  if (st->coded++ == 0) {
    gpointer mem = NULL;
    gsize size = 0;

    gst_buffer_extract_dup (buf, 0, gst_buffer_get_size (buf), &mem, &size);
    st->first = g_bytes_new_take (mem, size);
  }
  return GST_PAD_PROBE_OK;
}

static void
add_probe (GstElement * pipe, const gchar * name, const gchar * pad,
    GstPadProbeCallback cb, Stats * st)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  GstPad *p = gst_element_get_static_pad (e, pad);

  gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_BUFFER, cb, st, NULL);
  gst_object_unref (p);
  gst_object_unref (e);
}

typedef struct
{
  guint done;                   /* frames compared */
  guint max_err;
  gdouble psnr;
  /* the same of j2kdec's frames */
  guint j2k_max_err;
  gdouble j2k_psnr;
  Stats st;
} Result;

/* The frame j2kdec decoded, compared with the input `ref` (of `info`). */
static gboolean
compare_j2kdec (GstElement * sink, const GstVideoInfo * info, GstSample * ref,
    gdouble * sq, guint64 * n, guint * e, gchar ** error)
{
  GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
      60 * GST_SECOND);
  gchar *why = NULL;
  gboolean ok;

  if (!s) {
    *error = g_strdup ("j2kdec: no frame");
    return FALSE;
  }
  ok = frameutil_compare_decoded (info, gst_sample_get_buffer (ref),
      gst_sample_get_buffer (s), gst_sample_get_caps (s), sq, n, e, &why) >= 0;
  if (!ok)
    *error = g_strdup_printf ("j2kdec: %s", why);
  g_free (why);
  gst_sample_unref (s);
  return ok;
}

static gboolean
run_case (const Case * c, guint frames, const gchar * backend,
    gboolean cuda_memory, Result * r, gchar ** error)
{
  ExamplePipeline p;
  gchar *desc, *dwt;
  guint64 peak = 255, n_total = 0, j2k_n = 0;
  gdouble sq_total = 0, j2k_sq = 0;
  GstElement *j2k;
  gboolean ok = TRUE;

  /* cudadwt, where a case has it, runs on the same backend */
  dwt = c->dwt ? g_strdup_printf ("cudadwt backend=%s %s !", backend,
      c->dwt) : g_strdup ("");
  desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=%s ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1 ! tee name=t "
      "t. ! queue ! appsink name=ref sync=false "
      "t. ! queue name=qe ! %s %s %s name=enc backend=%s %s ! tee name=c "
      "c. ! queue ! openjpegdec ! appsink name=out sync=false "
      "c. ! queue ! j2kdec backend=%s ! appsink name=j2k sync=false",
      frames, c->pattern, c->format, c->width, c->height,
      cuda_memory ? "cudaupload ! video/x-raw(memory:CUDAMemory) !" : "",
      dwt, c->element, backend, c->props, backend);
  g_free (dwt);
  memset (r, 0, sizeof (*r));
  ok = example_pipeline_init (&p, desc, error);
  g_free (desc);
  if (!ok)
    return FALSE;
  j2k = gst_bin_get_by_name (GST_BIN (p.pipe), "j2k");
  add_probe (p.pipe, "qe", "src", probe_in, &r->st);
  add_probe (p.pipe, "enc", "src", probe_out, &r->st);
  g_mutex_lock (&log_lock);
  log_backend[0] = '\0';
  log_fallback = FALSE;
  g_mutex_unlock (&log_lock);
  gst_element_set_state (p.pipe, GST_STATE_PLAYING);

  while (ok && r->done < frames) {
    GstSample *a, *b;
    GstVideoInfo info;
    gchar *why = NULL;
    gdouble sq;
    guint64 n;
    guint e;

    if (!example_pipeline_pull (&p, &a, &b, error))
      break;
    /* openjpegdec's output in its own format (see frameutil.h) */
    if (!gst_video_info_from_caps (&info, gst_sample_get_caps (a))) {
      *error = g_strdup ("input frames without video caps");
      ok = FALSE;
    } else if (frameutil_compare_decoded (&info, gst_sample_get_buffer (a),
            gst_sample_get_buffer (b), gst_sample_get_caps (b), &sq, &n, &e,
            &why) < 0) {
      *error = g_steal_pointer (&why);
      ok = FALSE;
    } else {
      peak = (1u << GST_VIDEO_INFO_COMP_DEPTH (&info, 0)) - 1;
      sq_total += sq;
      n_total += n;
      r->max_err = MAX (r->max_err, e);
      if (compare_j2kdec (j2k, &info, a, &sq, &n, &e, error)) {
        j2k_sq += sq;
        j2k_n += n;
        r->j2k_max_err = MAX (r->j2k_max_err, e);
        r->done++;
      } else {
        ok = FALSE;
      }
    }
    g_free (why);
    gst_sample_unref (a);
    gst_sample_unref (b);
  }

  if (*error)
    ok = FALSE;
  gst_object_unref (j2k);
  example_pipeline_clear (&p);
  r->psnr = example_psnr (peak, sq_total, n_total);
  r->j2k_psnr = example_psnr (peak, j2k_sq, j2k_n);
  return ok && r->done == frames;
}

static void
tool_exited (GObject * source, GAsyncResult * res, gpointer data)
{
  g_subprocess_wait_finish (G_SUBPROCESS (source), res, NULL);
  *(gboolean *) data = TRUE;
}

/* Runs a decoder on a codestream, at most a minute: "ok", "FAILED" (its
 * exit status or a timeout) or "-" (not on PATH).  *failed is set on a
 * failure. */
static const gchar *
run_decoder (const gchar * tool, const gchar * in, const gchar * out,
    gboolean * failed)
{
  gchar *path = g_find_program_in_path (tool);
  const gchar *argv[] = { path, "-i", in, "-o", out, NULL };
  GMainContext *ctx;
  GSubprocess *p;
  gboolean exited = FALSE, ok = FALSE;
  gint64 deadline;

  if (!path)
    return "-";
  ctx = g_main_context_new ();
  g_main_context_push_thread_default (ctx);
  p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
      G_SUBPROCESS_FLAGS_STDERR_SILENCE, NULL);
  if (p) {
    g_subprocess_wait_async (p, NULL, tool_exited, &exited);
    deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
    while (!exited && g_get_monotonic_time () < deadline) {
      if (!g_main_context_iteration (ctx, FALSE))
        g_usleep (10000);
    }
    if (exited)
      ok = g_subprocess_get_successful (p) &&
          g_file_test (out, G_FILE_TEST_EXISTS);
    else
      g_subprocess_force_exit (p);
    while (!exited)
      g_main_context_iteration (ctx, TRUE);
    g_object_unref (p);
  }
  g_main_context_pop_thread_default (ctx);
  g_main_context_unref (ctx);
  g_free (path);
  *failed |= !ok;
  return ok ? "ok" : "FAILED";
}

/* Removes what a decoder wrote for `base` (opj_decompress writes one file,
 * ojph_expand one, but both are told names that start with it). */
static void
remove_outputs (const gchar * dir, const gchar * base)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  if (!d)
    return;
  while ((name = g_dir_read_name (d))) {
    if (g_str_has_prefix (name, base) && !g_str_has_suffix (name, ".j2c")) {
      gchar *f = g_build_filename (dir, name, NULL);

      g_unlink (f);
      g_free (f);
    }
  }
  g_dir_close (d);
}

/* Writes the first codestream and has the external decoders read it. */
static void
check_external (const Case * c, GBytes * cs, const gchar * dir,
    const gchar ** opj, const gchar ** ojph, gboolean * failed)
{
  gchar *j2c, *o1, *o2, *base;
  const GstVideoFormatInfo *finfo =
      gst_video_format_get_info (gst_video_format_from_string (c->format));
  const gchar *ext = GST_VIDEO_FORMAT_INFO_IS_GRAY (finfo) ? "pgm" :
      GST_VIDEO_FORMAT_INFO_IS_RGB (finfo) ? "ppm" : "yuv";

  *opj = *ojph = "-";
  if (!cs || !dir)
    return;
  base = g_strdup_printf ("%s.", c->name);
  j2c = g_strdup_printf ("%s/%s.j2c", dir, c->name);
  o1 = g_strdup_printf ("%s/%s.opj.raw", dir, c->name);
  o2 = g_strdup_printf ("%s/%s.ojph.%s", dir, c->name, ext);
  if (!g_file_set_contents (j2c, g_bytes_get_data (cs, NULL),
          g_bytes_get_size (cs), NULL)) {
    *opj = *ojph = "no file";
    *failed = TRUE;
  } else {
    *opj = run_decoder ("opj_decompress", j2c, o1, failed);
    if (strcmp (c->element, "htj2kenc") == 0)
      *ojph = run_decoder ("ojph_expand", j2c, o2, failed);
  }
  /* keep the codestream, not the (large) decoded pictures */
  remove_outputs (dir, base);
  g_free (base);
  g_free (j2c);
  g_free (o1);
  g_free (o2);
}

int
main (int argc, char **argv)
{
  gint frames = 5;
  gchar *backend = NULL, *dir = NULL;
  gboolean system_memory = FALSE, all_ok = TRUE;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames,
        "Frames per case (5; at most 2 at 4K)", "N"},
    {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend,
        "auto, cuda or cpu (auto)", "B"},
    {"system-memory", 's', 0, G_OPTION_ARG_NONE, &system_memory,
        "Do not use CUDA memory even when cudaupload is there", NULL},
    {"output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &dir,
        "Where the codestreams go (a new directory under the temp dir)", "D"},
    {NULL}
  };
  GstElementFactory *enc, *dec, *upload;
  gboolean cuda_build;
  guint i;

  if (!example_parse_args (&argc, &argv, "- HTJ2K encode and decode check",
          entries, &frames, &backend))
    return 2;
  enc = gst_element_factory_find ("htj2kenc");
  if (!enc || !(dec = gst_element_factory_find ("ebcotcm"))) {
    g_printerr ("htj2kenc or ebcotcm not found: set GST_PLUGIN_PATH to the "
        "build dir\n");
    return 2;
  }
  gst_object_unref (dec);
  dec = gst_element_factory_find ("j2kdec");
  if (!dec) {
    g_printerr ("j2kdec not found: set GST_PLUGIN_PATH to the build dir\n");
    return 2;
  }
  gst_object_unref (dec);
  dec = gst_element_factory_find ("openjpegdec");
  if (!dec) {
    g_printerr ("openjpegdec not found: install gstreamer1.0-plugins-bad "
        "(scripts/install-deps.sh)\n");
    return 2;
  }
  gst_object_unref (dec);
  /* the plugin offers CUDA memory only when built with CUDA */
  cuda_build = example_takes_cuda_memory (enc, GST_PAD_SINK, NULL);
  gst_object_unref (enc);
  /* nvcodec registers cudaupload only where a CUDA driver loads */
  upload = system_memory || !strcmp (backend, "cpu") || !cuda_build ? NULL :
      gst_element_factory_find ("cudaupload");
  capture_backend_log ();
  if (dir)
    g_mkdir_with_parents (dir, 0755);
  else
    dir = g_dir_make_tmp ("htj2k-roundtrip-XXXXXX", NULL);

  g_print ("videotestsrc ! htj2kenc|ebcotcm ! openjpegdec and ! j2kdec, each "
      "frame compared with its input; backend=%s\n\n", backend);
  g_print ("%-8s %-33s %-18s %6s %11s %6s %7s %-13s %-13s %-8s %-4s %s\n",
      "element", "case", "coding", "frames", "bytes/frame", "bpp", "enc fps",
      "openjpegdec", "j2kdec", "backend", "opj", "ojph");
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const Case *c = &cases[i];
    guint n = c->frames ? MIN ((guint) frames, c->frames) : (guint) frames;
    gboolean cuda_memory =
        example_takes_cuda_memory (upload, GST_PAD_SRC, c->format);
    gchar *error = NULL, *label, *result, *used, *j2k;
    const gchar *opj = "-", *ojph = "-";
    gboolean ok, failed = FALSE;
    gdouble bytes, bpp, fps;
    Result r;

    ok = run_case (c, n, backend, cuda_memory, &r, &error);
    bytes = r.st.coded ? (gdouble) r.st.bytes / r.st.coded : 0;
    bpp = 8 * bytes / c->width / c->height;
    /* the first frame, which sets things up, counts only when alone */
    fps = r.st.coded > 1 && r.st.enc_us > r.st.first_us ?
        (r.st.coded - 1) * 1e6 / (r.st.enc_us - r.st.first_us) :
        r.st.enc_us ? r.st.coded * 1e6 / r.st.enc_us : 0;
    g_mutex_lock (&log_lock);
    used = g_strdup_printf ("%s%s%s", log_backend[0] ? log_backend :
        !strcmp (backend, "cpu") ? "CPU" : "?", log_fallback ? ">CPU" : "",
        cuda_memory ? "/cudamem" : "");
    g_mutex_unlock (&log_lock);
    label = g_strdup_printf ("%s %dx%d %s", c->format, c->width, c->height,
        c->pattern);
    j2k = NULL;
    if (!ok) {
      result = g_strdup_printf ("FAILED (%s)", error ? error : "no output");
      failed = TRUE;
    } else if (c->lossless) {
      failed = r.max_err != 0 || r.j2k_max_err != 0;
      result = r.max_err ? g_strdup_printf ("NOT EXACT (max err %u)",
          r.max_err) : g_strdup ("exact");
      j2k = r.j2k_max_err ? g_strdup_printf ("NOT EXACT (max err %u)",
          r.j2k_max_err) : g_strdup ("exact");
    } else {
      failed = r.psnr < c->min_psnr || r.j2k_psnr < c->min_psnr;
      result = g_strdup_printf ("PSNR %.1f dB%s", r.psnr,
          r.psnr < c->min_psnr ? " LOW" : "");
      j2k = g_strdup_printf ("PSNR %.1f dB%s", r.j2k_psnr,
          r.j2k_psnr < c->min_psnr ? " LOW" : "");
    }
    if (ok && c->max_bpp > 0 && bpp > c->max_bpp) {
      g_free (result);
      result = g_strdup_printf ("%.3f BPP > %g", bpp, c->max_bpp);
      failed = TRUE;
    }
    if (ok)
      check_external (c, r.st.first, dir, &opj, &ojph, &failed);
    g_print ("%-8s %-33s %-18s %6u %11.0f %6.3f %7.2f %-13s %-13s %-8s %-4s "
        "%s\n", c->element, label, c->coding, r.done, bytes, bpp, fps, result,
        j2k ? j2k : "-", used, opj, ojph);
    all_ok &= !failed;
    if (r.st.first)
      g_bytes_unref (r.st.first);
    g_free (label);
    g_free (result);
    g_free (used);
    g_free (j2k);
    g_free (error);
  }
  g_print ("\nbpp: codestream bits per pixel; enc fps: frames per second of "
      "wall-clock time in the\nencoding elements, after the first frame; "
      "openjpegdec, j2kdec: the two decoders'\nframes against the input; "
      "backend: the one the encoder ran (/cudamem: frames\nuploaded by "
      "cudaupload; j2kdec has the same backend setting); opj, ojph:\n"
      "opj_decompress and ojph_expand on the first codestream, kept in\n%s\n\n",
      dir);
  g_print ("%s\n", all_ok ? "every case ran; every lossless frame came back "
      "exact, every lossy one above its PSNR floor" :
      "FAILURE: a case failed, a lossless frame was not exact, a lossy one "
      "was below its PSNR floor or a decoder refused a codestream");
  if (upload)
    gst_object_unref (upload);
  g_free (backend);
  g_free (dir);
  return all_ok ? 0 : 1;
}
