/*
 * Pipeline benchmark of htj2kenc (or ebcotcm): one picture pushed N times
 * through `appsrc ! cudaupload ! htj2kenc ! fakesink`, frames per second
 * from the first push to EOS, and the mean coded bits per pixel.
 *
 *   bench-htj2k-pipeline [--frames N] [--backend auto|cuda|cpu]
 *       [--element htj2kenc|ebcotcm] [--reversible] [--qstep Q]
 *       [--bitrate B] [--format GBR_12LE|Y444_16LE|...]
 *       [--frames-in-flight 1|2] [--no-upload] [--dump FILE] IMAGE.ppm
 *
 * IMAGE is a binary PPM (P6) of up to 16 bits; its samples go into the
 * chosen planar format unchanged (GBR_12LE takes 12-bit pictures).
 * GStreamer 1.22's cudaupload takes Y444_16LE but no 12-bit 4:4:4 format:
 * with GBR_12LE the frames pass it in system memory and htj2kenc uploads
 * them itself.  --dump writes the first coded frame to FILE.
 * --frames-in-flight sets ebcotcm's property (default: the element's);
 * with two in flight a frame leaves when the next one comes, so the
 * warm-up is two frames and the rate counts the N frames pushed (the
 * warm-up frame still in flight also leaves inside the timed span).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

typedef struct
{
  guint64 bytes;
  guint frames;
  const gchar *dump;            /* file for the first coded frame, or NULL */
} Count;

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  Count *c = data;

  if (c->dump) {
    GstMapInfo map;
    if (gst_buffer_map (buf, &map, GST_MAP_READ)) {
      g_file_set_contents (c->dump, (const gchar *) map.data, map.size, NULL);
      gst_buffer_unmap (buf, &map);
    }
    c->dump = NULL;
  }
  c->bytes += gst_buffer_get_size (buf);
  c->frames++;
}

static guint16 *
read_ppm (const char *path, gint * w, gint * h, gint * maxval)
{
  FILE *f = fopen (path, "rb");
  char magic[3] = { 0 };
  guint16 *rgb;
  gint i, n;

  if (!f)
    return NULL;
  if (fscanf (f, "%2s %d %d %d", magic, w, h, maxval) != 4
      || strcmp (magic, "P6") || *w <= 0 || *h <= 0 || *maxval <= 0
      || *maxval > 65535) {
    fclose (f);
    return NULL;
  }
  fgetc (f);
  n = *w * *h * 3;
  rgb = g_new (guint16, n);
  for (i = 0; i < n; i++) {
    gint hi = fgetc (f), lo = *maxval > 255 ? fgetc (f) : 0;
    if (hi < 0 || lo < 0) {
      g_free (rgb);
      fclose (f);
      return NULL;
    }
    rgb[i] = *maxval > 255 ? (guint16) (hi << 8 | lo) : (guint16) hi;
  }
  fclose (f);
  return rgb;
}

int
main (int argc, char **argv)
{
  guint frames = 200, i;
  const gchar *backend = "auto", *format = "GBR_12LE", *path = NULL;
  const gchar *element = "htj2kenc";
  guint in_flight = 0;
  gchar *extra;
  gboolean reversible = FALSE, upload = TRUE;
  gdouble qstep = 1.0 / 256, bitrate = 0;
  gint w, h, maxval, c, x, y;
  guint16 *rgb;
  GstVideoInfo vinfo;
  GstBuffer *frame;
  GstVideoFrame vf;
  gchar *desc;
  GstElement *pipe, *src, *sink;
  GstBus *bus;
  GstMessage *msg;
  Count count = { 0, 0, NULL };
  gint64 t0, t1;
  int rc = 0;

  gst_init (&argc, &argv);
  for (i = 1; i < (guint) argc; i++) {
    if (!strcmp (argv[i], "--frames") && i + 1 < (guint) argc)
      frames = (guint) atoi (argv[++i]);
    else if (!strcmp (argv[i], "--backend") && i + 1 < (guint) argc)
      backend = argv[++i];
    else if (!strcmp (argv[i], "--format") && i + 1 < (guint) argc)
      format = argv[++i];
    else if (!strcmp (argv[i], "--qstep") && i + 1 < (guint) argc)
      qstep = g_ascii_strtod (argv[++i], NULL);
    else if (!strcmp (argv[i], "--bitrate") && i + 1 < (guint) argc)
      bitrate = g_ascii_strtod (argv[++i], NULL);
    else if (!strcmp (argv[i], "--element") && i + 1 < (guint) argc)
      element = argv[++i];
    else if (!strcmp (argv[i], "--reversible"))
      reversible = TRUE;
    else if (!strcmp (argv[i], "--frames-in-flight") && i + 1 < (guint) argc)
      in_flight = (guint) atoi (argv[++i]);
    else if (!strcmp (argv[i], "--no-upload"))
      upload = FALSE;
    else if (!strcmp (argv[i], "--dump") && i + 1 < (guint) argc)
      count.dump = argv[++i];
    else
      path = argv[i];
  }
  if (!path || !(rgb = read_ppm (path, &w, &h, &maxval))) {
    fprintf (stderr, "usage: %s [options] IMAGE.ppm (binary P6)\n", argv[0]);
    return 2;
  }

  gst_video_info_set_format (&vinfo, gst_video_format_from_string (format),
      (guint) w, (guint) h);
  if (GST_VIDEO_INFO_FORMAT (&vinfo) == GST_VIDEO_FORMAT_UNKNOWN
      || GST_VIDEO_INFO_N_COMPONENTS (&vinfo) != 3) {
    fprintf (stderr, "format %s: need a 3-component video format\n", format);
    return 2;
  }
  frame = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&vinfo), NULL);
  gst_video_frame_map (&vf, &vinfo, frame, GST_MAP_WRITE);
  for (c = 0; c < 3; c++) {
    /* RGB components go to the format's R, G, B (or Y, U, V) components */
    guint8 *base = GST_VIDEO_FRAME_COMP_DATA (&vf, c);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&vf, c);
    gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (&vf, c);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        guint16 s = rgb[((gsize) y * w + x) * 3 + c];
        guint8 *d = base + (gsize) y * stride + (gsize) x * ps;
        if (GST_VIDEO_FRAME_COMP_DEPTH (&vf, c) > 8) {
          d[0] = (guint8) s;
          d[1] = (guint8) (s >> 8);
        } else {
          d[0] = (guint8) s;
        }
      }
  }
  gst_video_frame_unmap (&vf);
  g_free (rgb);

  extra = in_flight ? g_strdup_printf ("frames-in-flight=%u", in_flight) :
      g_strdup ("");
  desc = g_strdup_printf ("appsrc name=src format=time block=true "
      "max-buffers=4 "
      "%s ! %s backend=%s reversible=%s qstep=%g bitrate=%g %s ! "
      "fakesink name=sink signal-handoffs=true sync=false",
      upload ? "! cudaupload" : "", element, backend,
      reversible ? "true" : "false", qstep, bitrate, extra);
  pipe = gst_parse_launch (desc, NULL);
  g_free (desc);
  if (!pipe) {
    fprintf (stderr, "pipeline could not be built\n");
    return 1;
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  g_object_set (src, "caps", gst_video_info_to_caps (&vinfo), NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &count);
  gst_element_set_state (pipe, GST_STATE_PLAYING);

  /* warm-up frames: negotiation, pools and encoder set-up (the second
   * lets the first leave where frames are in flight) */
  gst_app_src_push_buffer (GST_APP_SRC (src), gst_buffer_ref (frame));
  if (in_flight != 1 && !strcmp (element, "ebcotcm"))
    gst_app_src_push_buffer (GST_APP_SRC (src), gst_buffer_ref (frame));
  bus = gst_element_get_bus (pipe);
  t0 = g_get_monotonic_time ();
  while (count.frames < 1) {
    if (g_get_monotonic_time () - t0 > 60 * G_USEC_PER_SEC) {
      fprintf (stderr, "no coded frame within a minute\n");
      return 1;
    }
    msg = gst_bus_timed_pop_filtered (bus, 10 * GST_MSECOND, GST_MESSAGE_ERROR);
    if (msg) {
      GError *err;
      gst_message_parse_error (msg, &err, NULL);
      fprintf (stderr, "error: %s\n", err->message);
      return 1;
    }
  }
  count.bytes = 0;
  count.frames = 0;
  t0 = g_get_monotonic_time ();
  for (i = 0; i < frames; i++) {
    GstBuffer *b = gst_buffer_copy (frame);     /* shares the memory */
    GST_BUFFER_PTS (b) = (i + 1) * GST_SECOND / 30;
    gst_app_src_push_buffer (GST_APP_SRC (src), b);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  t1 = g_get_monotonic_time ();
  if (!msg || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_EOS) {
    fprintf (stderr, "no EOS: %s\n", msg ? "error" : "timeout");
    rc = 1;
  } else {
    gdouble s = (t1 - t0) / 1e6;
    printf ("| %s | %s | %s%s%s%s%s | %dx%d | %u | %.1f | %.3f |\n", format,
        backend, strcmp (element, "htj2kenc") ? element : "",
        strcmp (element, "htj2kenc") ? " " : "", extra[0] ? extra : "",
        extra[0] ? " " : "", reversible ? "lossless" : "lossy", w, h, frames,
        frames / s,
        count.frames ? count.bytes * 8.0 / count.frames / w / h : 0.0);
  }
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  gst_buffer_unref (frame);
  g_free (extra);
  return rc;
}
