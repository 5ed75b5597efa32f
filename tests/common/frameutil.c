#include "frameutil.h"

const gchar *const frameutil_formats[] = {
  "GRAY8", "GRAY16_LE", "I420", "I420_10LE", "I420_12LE", "Y42B",
  "I422_10LE", "I422_12LE", "Y444", "Y444_10LE", "Y444_12LE", "Y444_16LE",
  "RGB", "BGR", "RGBP", "BGRP", "GBR", "GBR_10LE", "GBR_12LE",
};

const guint frameutil_n_formats = G_N_ELEMENTS (frameutil_formats);

GstCaps *
frameutil_video_caps (const gchar * format, gint w, gint h)
{
  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, format,
      "width", G_TYPE_INT, w, "height", G_TYPE_INT, h,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
}

static guint64
next_random (guint64 * s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

guint
frameutil_sample (const GstVideoFrame * f, guint c, guint x, guint y)
{
  const guint8 *p = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, c) +
      (gsize) y * GST_VIDEO_FRAME_COMP_STRIDE (f, c) +
      (gsize) x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);

  if (GST_VIDEO_FRAME_COMP_DEPTH (f, c) > 8)
    return GST_READ_UINT16_LE (p);
  return *p;
}

void
frameutil_fill_random (GstVideoFrame * frame, guint64 * state)
{
  guint c, x, y;

  for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (frame); c++) {
    guint depth = GST_VIDEO_FRAME_COMP_DEPTH (frame, c);
    guint mask = (1u << depth) - 1;

    for (y = 0; y < (guint) GST_VIDEO_FRAME_COMP_HEIGHT (frame, c); y++) {
      for (x = 0; x < (guint) GST_VIDEO_FRAME_COMP_WIDTH (frame, c); x++) {
        guint8 *p = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (frame, c) +
            (gsize) y * GST_VIDEO_FRAME_COMP_STRIDE (frame, c) +
            (gsize) x * GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c);
        guint v = (guint) (next_random (state) >> 20) & mask;

        if (depth > 8)
          GST_WRITE_UINT16_LE (p, v);
        else
          *p = v;
      }
    }
  }
}

guint
frameutil_max_diff (const GstVideoFrame * a, const GstVideoFrame * b,
    gdouble * sq_err, guint64 * count)
{
  guint c, x, y, max = 0;
  gdouble sq = 0;
  guint64 n = 0;

  for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (a); c++) {
    for (y = 0; y < (guint) GST_VIDEO_FRAME_COMP_HEIGHT (a, c); y++) {
      for (x = 0; x < (guint) GST_VIDEO_FRAME_COMP_WIDTH (a, c); x++) {
        gint d = (gint) frameutil_sample (a, c, x, y) -
            (gint) frameutil_sample (b, c, x, y);
        guint ad = (guint) ABS (d);

        max = MAX (max, ad);
        sq += (gdouble) d *d;
        n++;
      }
    }
  }
  if (sq_err)
    *sq_err = sq;
  if (count)
    *count = n;
  return max;
}

gchar *
frameutil_describe_diff (const GstVideoFrame * a, const GstVideoFrame * b)
{
  GString *out = g_string_new (NULL);
  guint c, x, y;

  for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (a); c++) {
    guint64 bad = 0;
    guint fx = 0, fy = 0, va = 0, vb = 0;

    for (y = 0; y < (guint) GST_VIDEO_FRAME_COMP_HEIGHT (a, c); y++) {
      for (x = 0; x < (guint) GST_VIDEO_FRAME_COMP_WIDTH (a, c); x++) {
        guint sa = frameutil_sample (a, c, x, y);
        guint sb = frameutil_sample (b, c, x, y);

        if (sa != sb && bad++ == 0) {
          fx = x;
          fy = y;
          va = sa;
          vb = sb;
        }
      }
    }
    if (bad)
      g_string_append_printf (out, "[component %u: %" G_GUINT64_FORMAT
          " of %dx%d differ, first at (%u,%u): %u, not %u; strides %d/%d] ",
          c, bad, GST_VIDEO_FRAME_COMP_WIDTH (a, c),
          GST_VIDEO_FRAME_COMP_HEIGHT (a, c), fx, fy, vb, va,
          GST_VIDEO_FRAME_COMP_STRIDE (a, c),
          GST_VIDEO_FRAME_COMP_STRIDE (b, c));
  }
  return g_string_free (out, FALSE);
}

GstBuffer *
frameutil_random_buffer (const GstVideoInfo * info, guint64 * state)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame frame;

  gst_buffer_memset (buf, 0, 0, info->size);
  if (gst_video_frame_map (&frame, info, buf, GST_MAP_WRITE)) {
    frameutil_fill_random (&frame, state);
    gst_video_frame_unmap (&frame);
  }
  return buf;
}

gint64
frameutil_compare_decoded (const GstVideoInfo * in_info, GstBuffer * in,
    GstBuffer * out, GstCaps * out_caps, gdouble * sq_err, guint64 * count,
    guint * max_err, gchar ** why)
{
  GstVideoInfo out_info;
  GstVideoFrame a, b;
  gchar *first = NULL;
  gint64 bad = 0;
  guint64 n = 0;
  gdouble sq = 0;
  guint c, x, y, max = 0;

  if (sq_err)
    *sq_err = 0;
  if (count)
    *count = 0;
  if (max_err)
    *max_err = 0;
  if (why)
    *why = NULL;
  if (!out_caps || !gst_video_info_from_caps (&out_info, out_caps)) {
    if (why)
      *why = g_strdup ("decoded frame without video caps");
    return -1;
  }
  if (GST_VIDEO_INFO_WIDTH (&out_info) != GST_VIDEO_INFO_WIDTH (in_info) ||
      GST_VIDEO_INFO_HEIGHT (&out_info) != GST_VIDEO_INFO_HEIGHT (in_info) ||
      GST_VIDEO_INFO_N_COMPONENTS (&out_info) <
      GST_VIDEO_INFO_N_COMPONENTS (in_info)) {
    if (why)
      *why = g_strdup_printf ("%s %dx%d decoded as %s %dx%d",
          GST_VIDEO_INFO_NAME (in_info), GST_VIDEO_INFO_WIDTH (in_info),
          GST_VIDEO_INFO_HEIGHT (in_info), GST_VIDEO_INFO_NAME (&out_info),
          GST_VIDEO_INFO_WIDTH (&out_info), GST_VIDEO_INFO_HEIGHT (&out_info));
    return -1;
  }
  if (!gst_video_frame_map (&a, in_info, in, GST_MAP_READ)) {
    if (why)
      *why = g_strdup ("cannot map the input frame");
    return -1;
  }
  if (!gst_video_frame_map (&b, &out_info, out, GST_MAP_READ)) {
    gst_video_frame_unmap (&a);
    if (why)
      *why = g_strdup ("cannot map the decoded frame");
    return -1;
  }
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (in_info); c++) {
    gint shift = CLAMP ((gint) GST_VIDEO_FRAME_COMP_DEPTH (&b, c) -
        (gint) GST_VIDEO_FRAME_COMP_DEPTH (&a, c), 0, 8);
    /* AYUV64 output of subsampled input repeats the chroma samples */
    guint xs = GST_VIDEO_FORMAT_INFO_W_SUB (a.info.finfo, c) -
        GST_VIDEO_FORMAT_INFO_W_SUB (b.info.finfo, c);
    guint ys = GST_VIDEO_FORMAT_INFO_H_SUB (a.info.finfo, c) -
        GST_VIDEO_FORMAT_INFO_H_SUB (b.info.finfo, c);

    for (y = 0; y < (guint) GST_VIDEO_FRAME_COMP_HEIGHT (&a, c); y++) {
      for (x = 0; x < (guint) GST_VIDEO_FRAME_COMP_WIDTH (&a, c); x++) {
        guint va = frameutil_sample (&a, c, x, y);
        guint vb = frameutil_sample (&b, c, x << xs, y << ys) >> shift;
        gint d = (gint) va - (gint) vb;

        n++;
        if (d == 0)
          continue;
        if (bad++ == 0)
          first = g_strdup_printf ("component %u (%u,%u): %u, not %u (%s "
              "decoded as %s)", c, x, y, vb, va, GST_VIDEO_INFO_NAME (in_info),
              GST_VIDEO_INFO_NAME (&out_info));
        max = MAX (max, (guint) ABS (d));
        sq += (gdouble) d *d;
      }
    }
  }
  gst_video_frame_unmap (&b);
  gst_video_frame_unmap (&a);
  if (sq_err)
    *sq_err = sq;
  if (count)
    *count = n;
  if (max_err)
    *max_err = max;
  if (why)
    *why = first;
  else
    g_free (first);
  return bad;
}
