/*
 * scimultigpu's scaling (issue 25): each coder on one device, then through
 * scimultigpu on the devices given, from frames made once (videotestsrc,
 * `--unique` distinct ones, in system memory, with --pinned-input in the
 * page-locked memory of the pool that the coder proposes upstream, or with
 * --cuda-input in CUDA memory of the first device) and pushed again and
 * again by an appsrc
 * (the same memory, no copy: the source is not the bound, as videotestsrc
 * was at 4K), into an appsink.  Prints a table: the coded size, frames/s
 * of one device and of all, the ratio, and whether the outputs are equal
 * byte for byte.  Exit status 1 when any differ.
 *
 *   bench-multigpu [--devices 0,1] [--frames 300] [--unique 8]
 *                  [--backend cuda] [--pattern ball] [--coder NAME]
 *                  [--extra PROPS] [--cuda-input | --pinned-input] [--quick]
 *
 * --pattern: videotestsrc's (ball: mostly flat, small codestreams; snow:
 * noise, the largest).  --coder: only that coder's cases.  --extra:
 * properties for every copy (e.g. "threads=1").  The rates are timed in runs without hashing; the
 * outputs are compared in runs of their own.
 *
 * --quick: small frames (a check on a machine without GPUs, with
 * --backend cpu).  A C program rather than a script: the GPU host has no
 * PyGObject.
 */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  const gchar *coder, *props, *format;
  guint w, h, qw, qh;           /* full and --quick sizes */
  /* --cuda-input: a lossless round trip whose decoder, on the first
   * device, writes the frames into its CUDA memory (GStreamer 1.22's
   * cudaupload takes neither 12-bit 4:4:4 nor gray) */
  const gchar *to_device;
} Case;

#define J2K_TO_DEVICE "htj2kenc backend=cpu reversible=true ! j2kdec"
static const Case cases[] = {
  {"ebcotcm", "bitrate=2", "Y444_12LE", 4096, 2160, 128, 96, J2K_TO_DEVICE},
  {"ebcotcm", "", "Y444_12LE", 4096, 2160, 128, 96, J2K_TO_DEVICE},
  {"htj2kenc", "reversible=true", "Y444_12LE", 3840, 2160, 128, 96,
      J2K_TO_DEVICE},
  {"dpcmenc", "", "GRAY16_LE", 1024, 1024, 96, 64,
      "dpcmenc backend=cpu ! dpcmdec"},
};

typedef struct
{
  GPtrArray *hashes;            /* NULL: count and size only */
  guint count;
  guint64 bytes;
  guint mark;                   /* the output that starts the steady state */
  gint64 t_mark, t_last;        /* when it and the last one came */
} Sink;

typedef struct
{
  GstBuffer **frames;
  guint n, got;
} Catch;

static GstPadProbeReturn
catch_frame (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Catch *c = user_data;

  (void) pad;
  if (c->got < c->n)
    c->frames[c->got++] = gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

/* n frames of `raw` caps in the buffers that `coder` (an element
 * description) gets from videotestsrc: from the pool it proposes, so in
 * its page-locked host memory where it has a CUDA context */
static gboolean
make_pinned_frames (const gchar * raw, const gchar * pattern,
    const gchar * coder, guint n, GstCaps ** caps, GstBuffer ** frames)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=%s ! "
      "%s ! %s name=c ! fakesink sync=false", n, pattern, raw, coder);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err), *c;
  Catch k = { frames, n, 0 };
  GstMessage *m;
  GstPad *pad;

  g_free (desc);
  if (!pipe || err) {
    fprintf (stderr, "%s\n", err ? err->message : "no pipeline");
    g_clear_error (&err);
    g_clear_object (&pipe);
    return FALSE;
  }
  c = gst_bin_get_by_name (GST_BIN (pipe), "c");
  pad = gst_element_get_static_pad (c, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, catch_frame, &k, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 120 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *e = NULL;
    gst_message_parse_error (m, &e, NULL);
    fprintf (stderr, "%s\n", e->message);
    g_clear_error (&e);
  }
  g_clear_pointer (&m, gst_message_unref);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (c);
  gst_object_unref (pipe);
  if (k.got < n) {
    while (k.got--)
      gst_buffer_unref (frames[k.got]);
    return FALSE;
  }
  *caps = gst_caps_from_string (raw);
  return TRUE;
}

/* n frames of `raw` caps, in CUDA memory of `device` through to_device
 * unless device is NULL; FALSE when the pipeline cannot make them */
static gboolean
make_frames (const gchar * raw, const gchar * pattern, const gchar * to_device,
    const gchar * device, guint n, GstCaps ** caps, GstBuffer ** frames)
{
  gchar *cuda_caps = NULL, *desc;
  GstElement *pipe, *sink;
  GError *err = NULL;
  guint i;

  if (device) {
    cuda_caps = g_strdup_printf ("video/x-raw(memory:CUDAMemory)%s",
        raw + strlen ("video/x-raw"));
    desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=%s ! %s ! "
        "%s cuda-device-id=%s ! %s ! appsink name=s sync=false", n, pattern,
        raw, to_device, device, cuda_caps);
  } else {
    desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=%s ! %s ! "
        "appsink name=s sync=false", n, pattern, raw);
  }
  pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipe || err) {
    fprintf (stderr, "%s\n", err ? err->message : "no pipeline");
    g_clear_error (&err);
    g_clear_object (&pipe);
    g_free (cuda_caps);
    return FALSE;
  }
  sink = gst_bin_get_by_name (GST_BIN (pipe), "s");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (i = 0; i < n; i++) {
    /* a pipeline that failed (caps cudaupload refuses) never gives one */
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        60 * GST_SECOND);
    if (!s)
      break;
    frames[i] = gst_buffer_ref (gst_sample_get_buffer (s));
    gst_sample_unref (s);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  if (i < n) {
    while (i--)
      gst_buffer_unref (frames[i]);
    g_free (cuda_caps);
    return FALSE;
  }
  *caps = gst_caps_from_string (cuda_caps ? cuda_caps : raw);
  g_free (cuda_caps);
  return TRUE;
}

static GstFlowReturn
on_sample (GstAppSink * sink, gpointer user_data)
{
  Sink *k = user_data;
  GstSample *s = gst_app_sink_pull_sample (sink);
  GstBuffer *b;
  GstMapInfo map;

  if (!s)
    return GST_FLOW_ERROR;
  b = gst_sample_get_buffer (s);
  k->count++;
  k->t_last = g_get_monotonic_time ();
  if (k->count == k->mark)
    k->t_mark = k->t_last;
  k->bytes += gst_buffer_get_size (b);
  if (k->hashes && gst_buffer_map (b, &map, GST_MAP_READ)) {
    g_ptr_array_add (k->hashes, g_compute_checksum_for_data (G_CHECKSUM_MD5,
            map.data, map.size));
    gst_buffer_unmap (b, &map);
  }
  gst_sample_unref (s);
  return GST_FLOW_OK;
}

/* frames/s of appsrc ! element ! appsink in the steady state: from the
 * output of a tenth of the `total` frames to the last (the start, where
 * each device's coder makes its GPU state with its first frame, and the
 * pipeline's start, are left out: in runs of a few hundred 4K frames they
 * cost two devices more than one); over the whole run, start to EOS, into
 * *whole.  The number of frames out and their mean size into *out and
 * *mean, and with hashes (which may bound the rate: they are not timed)
 * the outputs' hashes into *hashes; a negative figure when the pipeline
 * failed */
static gdouble
run (const gchar * element, GstCaps * caps, GstBuffer ** frames, guint n,
    guint total, GPtrArray ** hashes, guint * out_count, gdouble * mean,
    gdouble * whole)
{
  GstAppSinkCallbacks cb = { 0 };
  gchar *desc = g_strdup_printf ("appsrc name=src format=time is-live=false "
      "block=true max-bytes=0 max-buffers=8 ! %s ! appsink name=out "
      "sync=false", element);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstElement *src, *out;
  GstClockTime dur = GST_SECOND / 60;
  gint64 t0, t1, wall0;
  GstMessage *msg;
  Sink k;
  guint i;

  g_free (desc);
  if (!pipe || err) {
    fprintf (stderr, "%s: %s\n", element, err ? err->message : "?");
    g_clear_error (&err);
    g_clear_object (&pipe);
    return -1;
  }
  cb.new_sample = on_sample;
  k.hashes = hashes ? g_ptr_array_new_with_free_func (g_free) : NULL;
  k.count = 0;
  k.bytes = 0;
  k.mark = MAX (total / 10, 1);
  k.t_mark = k.t_last = 0;
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  out = gst_bin_get_by_name (GST_BIN (pipe), "out");
  g_object_set (src, "caps", caps, NULL);
  gst_app_sink_set_callbacks (GST_APP_SINK (out), &cb, &k, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  t0 = g_get_monotonic_time ();
  wall0 = g_get_real_time ();
  for (i = 0; i < total; i++) {
    /* a new buffer on the same memory: no copy of the frame */
    GstBuffer *b = gst_buffer_copy (frames[i % n]);
    GST_BUFFER_PTS (b) = i * dur;
    GST_BUFFER_DURATION (b) = dur;
    if (gst_app_src_push_buffer (GST_APP_SRC (src), b) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 600 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  t1 = g_get_monotonic_time ();
  /* for samplers beside the run (scripts/bench-multigpu.sh) */
  if (!hashes)
    printf ("timed run of %s: %.3f .. %.3f (Unix time, s)\n", element,
        wall0 / 1e6, g_get_real_time () / 1e6);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (out);
  gst_object_unref (pipe);
  if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    if (msg) {
      gst_message_parse_error (msg, &err, NULL);
      fprintf (stderr, "%s: %s\n", element, err->message);
      g_clear_error (&err);
    } else {
      fprintf (stderr, "%s: no EOS in 600 s\n", element);
    }
    g_clear_pointer (&msg, gst_message_unref);
    g_clear_pointer (&k.hashes, g_ptr_array_unref);
    return -1;
  }
  gst_message_unref (msg);
  if (hashes)
    *hashes = k.hashes;
  if (out_count)
    *out_count = k.count;
  if (mean)
    *mean = k.count ? (gdouble) k.bytes / k.count : 0;
  if (whole)
    *whole = total / ((t1 - t0) / 1e6);
  if (k.count <= k.mark || k.t_last <= k.t_mark)
    return total / ((t1 - t0) / 1e6);
  return (k.count - k.mark) / ((k.t_last - k.t_mark) / 1e6);
}

static gboolean
same (GPtrArray * a, GPtrArray * b, guint n)
{
  guint i;

  if (a->len != n || b->len != n)
    return FALSE;
  for (i = 0; i < n; i++)
    if (strcmp (g_ptr_array_index (a, i), g_ptr_array_index (b, i)))
      return FALSE;
  return TRUE;
}

int
main (int argc, char **argv)
{
  const gchar *devices = "0,1", *backend = "cuda", *pattern = "ball";
  const gchar *only = NULL, *extra = "";
  guint frames = 300, unique = 8, c, i;
  gboolean cuda_input = FALSE, pinned_input = FALSE, quick = FALSE;
  gboolean all_equal = TRUE;
  GString *table = g_string_new (NULL);
  gchar *first;

  gst_init (&argc, &argv);
  for (i = 1; i < (guint) argc; i++) {
    if (!strcmp (argv[i], "--devices") && i + 1 < (guint) argc)
      devices = argv[++i];
    else if (!strcmp (argv[i], "--frames") && i + 1 < (guint) argc)
      frames = (guint) atoi (argv[++i]);
    else if (!strcmp (argv[i], "--unique") && i + 1 < (guint) argc)
      unique = (guint) atoi (argv[++i]);
    else if (!strcmp (argv[i], "--backend") && i + 1 < (guint) argc)
      backend = argv[++i];
    else if (!strcmp (argv[i], "--pattern") && i + 1 < (guint) argc)
      pattern = argv[++i];
    else if (!strcmp (argv[i], "--extra") && i + 1 < (guint) argc)
      extra = argv[++i];
    else if (!strcmp (argv[i], "--coder") && i + 1 < (guint) argc)
      only = argv[++i];
    else if (!strcmp (argv[i], "--cuda-input"))
      cuda_input = TRUE;
    else if (!strcmp (argv[i], "--pinned-input"))
      pinned_input = TRUE;
    else if (!strcmp (argv[i], "--quick"))
      quick = TRUE;
    else {
      fprintf (stderr, "usage: %s [--devices 0,1] [--frames 300] "
          "[--unique 8] [--backend cuda] [--pattern ball] [--coder NAME] "
          "[--extra PROPS] [--cuda-input | --pinned-input] [--quick]\n",
          argv[0]);
      return 2;
    }
  }
  if (cuda_input && pinned_input) {
    fprintf (stderr, "--cuda-input or --pinned-input, not both\n");
    return 2;
  }
  if (frames == 0 || unique == 0) {
    fprintf (stderr, "--frames and --unique must be positive\n");
    return 2;
  }
  first = g_strndup (devices, strcspn (devices, ","));
  g_string_append_printf (table, "\nframes (videotestsrc pattern=%s) in "
      "%s%s, %u pushed, %u distinct\n\n| coder | properties | frame | "
      "bytes out a frame | device %s frames/s | devices %s frames/s | ratio | "
      "whole runs, start included: frames/s and ratio | outputs |\n"
      "|---|---|---|---|---|---|---|---|---|\n", pattern, cuda_input ?
      "CUDA memory of device " : pinned_input ? "page-locked memory of the "
      "coder's pool on device " : "system memory", cuda_input
      || pinned_input ? first : "", frames, unique, first, devices);
  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    const Case *k = &cases[c];
    if (only && strcmp (only, k->coder))
      continue;
    guint w = quick ? k->qw : k->w;
    guint h = quick ? k->qh : k->h;
    gchar *raw = g_strdup_printf ("video/x-raw,format=%s,width=%u,height=%u,"
        "framerate=60/1", k->format, w, h);
    gchar *props = g_strdup_printf ("%s%sbackend=%s%s%s", k->props,
        *k->props ? " " : "", backend, *extra ? " " : "", extra);
    gchar *one = g_strdup_printf ("%s %s cuda-device-id=%s", k->coder, props,
        first);
    gchar *multi = g_strdup_printf ("scimultigpu coder=%s cuda-device-ids=%s "
        "coder-properties=\"%s\"", k->coder, devices, props);
    GstBuffer **buf = g_new0 (GstBuffer *, unique);
    GPtrArray *h1 = NULL, *h2 = NULL;
    GstCaps *caps = NULL;
    gdouble f1 = -1, f2 = -1, w1 = -1, w2 = -1;

    if (!(pinned_input ? make_pinned_frames (raw, pattern, one, unique,
                &caps, buf) : make_frames (raw, pattern, k->to_device,
                cuda_input ? first : NULL, unique, &caps, buf))) {
      all_equal = FALSE;
      g_string_append_printf (table, "| %s | %s | %ux%u | no %s frames "
          "(above) | | | | | |\n", k->coder, *k->props ? k->props :
          "(defaults)", w, h, k->format);
    } else {
      guint n1 = 0, n2 = 0;
      gdouble mean = 0;
      gboolean ok;

      /* warm-up: each device's first frames load the kernels */
      run (one, caps, buf, unique, MIN (frames, 2 * unique), NULL, NULL, NULL,
          NULL);
      run (multi, caps, buf, unique, MIN (frames, 2 * unique), NULL, NULL,
          NULL, NULL);
      f1 = run (one, caps, buf, unique, frames, NULL, &n1, &mean, &w1);
      if (f1 >= 0)
        f2 = run (multi, caps, buf, unique, frames, NULL, &n2, NULL, &w2);
      /* the outputs compared in runs of their own: hashing 4K frames in
       * the sink's thread would bound the rate */
      ok = f1 >= 0 && f2 >= 0 && n1 == frames && n2 == frames
          && run (one, caps, buf, unique, frames, &h1, NULL, NULL, NULL) >= 0
          && run (multi, caps, buf, unique, frames, &h2, NULL, NULL, NULL) >= 0;
      if (!ok) {
        all_equal = FALSE;
        g_string_append_printf (table, "| %s | %s | %ux%u | | %s | | | | "
            "FAILED (above; %u and %u of %u frames out) |\n", k->coder,
            *k->props ? k->props : "(defaults)", w, h, f1 < 0 ? "failed" : "",
            n1, n2, frames);
      } else {
        gboolean eq = same (h1, h2, frames);
        all_equal &= eq;
        g_string_append_printf (table, "| %s | %s | %ux%u | %.0f | %.1f | "
            "%.1f | %.2fx | %.1f -> %.1f (%.2fx) | %s |\n", k->coder,
            *k->props ? k->props : "(defaults)", w, h, mean, f1, f2, f2 / f1,
            w1, w2, w2 / w1, eq ? "equal" : "DIFFER");
      }
      for (i = 0; i < unique; i++)
        gst_buffer_unref (buf[i]);
      gst_caps_unref (caps);
    }
    g_clear_pointer (&h1, g_ptr_array_unref);
    g_clear_pointer (&h2, g_ptr_array_unref);
    g_free (buf);
    g_free (raw);
    g_free (props);
    g_free (one);
    g_free (multi);
  }
  fputs (table->str, stdout);
  g_string_free (table, TRUE);
  g_free (first);
  return all_equal ? 0 : 1;
}
