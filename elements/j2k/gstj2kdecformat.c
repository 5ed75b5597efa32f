/*
 * The video format a JPEG 2000 frame decodes to, from its SIZ (components,
 * depths, subsampling), its COD (the colour transform) and the JP2/JPH
 * colr box, and what GStreamer video cannot carry.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstj2kdec.h"

GST_DEBUG_CATEGORY_EXTERN (gst_j2k_dec_debug);
#define GST_CAT_DEFAULT gst_j2k_dec_debug

typedef enum
{
  KIND_GRAY,
  KIND_YUV,
  KIND_RGB,
} Kind;

typedef struct
{
  guint ncomp;
  Kind kind;
  guint dx, dy;                 /* subsampling of components 1 and 2 */
  guint bits;                   /* the format's sample depth */
  GstVideoFormat format;
} FormatEntry;

/* Smallest depth first within a layout: a frame takes the first entry of
 * its layout whose depth holds its samples (their values unscaled). */
static const FormatEntry formats[] = {
  {1, KIND_GRAY, 1, 1, 8, GST_VIDEO_FORMAT_GRAY8},
  {1, KIND_GRAY, 1, 1, 16, GST_VIDEO_FORMAT_GRAY16_LE},
  {3, KIND_YUV, 2, 2, 8, GST_VIDEO_FORMAT_I420},
  {3, KIND_YUV, 2, 2, 10, GST_VIDEO_FORMAT_I420_10LE},
  {3, KIND_YUV, 2, 2, 12, GST_VIDEO_FORMAT_I420_12LE},
  {3, KIND_YUV, 2, 1, 8, GST_VIDEO_FORMAT_Y42B},
  {3, KIND_YUV, 2, 1, 10, GST_VIDEO_FORMAT_I422_10LE},
  {3, KIND_YUV, 2, 1, 12, GST_VIDEO_FORMAT_I422_12LE},
  {3, KIND_YUV, 1, 1, 8, GST_VIDEO_FORMAT_Y444},
  {3, KIND_YUV, 1, 1, 10, GST_VIDEO_FORMAT_Y444_10LE},
  {3, KIND_YUV, 1, 1, 12, GST_VIDEO_FORMAT_Y444_12LE},
  {3, KIND_YUV, 1, 1, 16, GST_VIDEO_FORMAT_Y444_16LE},
  {3, KIND_RGB, 1, 1, 8, GST_VIDEO_FORMAT_RGB},
  {3, KIND_RGB, 1, 1, 10, GST_VIDEO_FORMAT_GBR_10LE},
  {3, KIND_RGB, 1, 1, 12, GST_VIDEO_FORMAT_GBR_12LE},
  {4, KIND_YUV, 2, 2, 8, GST_VIDEO_FORMAT_A420},
  {4, KIND_YUV, 2, 2, 10, GST_VIDEO_FORMAT_A420_10LE},
  {4, KIND_YUV, 2, 1, 10, GST_VIDEO_FORMAT_A422_10LE},
  {4, KIND_YUV, 1, 1, 10, GST_VIDEO_FORMAT_A444_10LE},
  {4, KIND_RGB, 1, 1, 8, GST_VIDEO_FORMAT_RGBA},
  {4, KIND_RGB, 1, 1, 10, GST_VIDEO_FORMAT_GBRA_10LE},
  {4, KIND_RGB, 1, 1, 12, GST_VIDEO_FORMAT_GBRA_12LE},
};

#define FORMAT_ERROR(self, ...) \
  GST_ELEMENT_ERROR (self, STREAM, FORMAT, \
      ("The JPEG 2000 frame cannot be output as GStreamer video: %s", \
          __VA_ARGS__), (NULL))

static const gchar *
kind_name (Kind kind)
{
  return kind == KIND_GRAY ? "greyscale" : kind == KIND_RGB ? "RGB" : "YCbCr";
}

gboolean
gst_j2k_dec_choose_format (GstJ2kDec * self, const sci_j2k_info * info,
    const sci_j2k_comp_info * comp, GstVideoFormat * format)
{
  guint n = info->components, c, i, depth = comp[0].depth;
  gboolean layout_known = FALSE;
  gchar *why;
  Kind kind;

  if (n != 1 && n != 3 && n != 4) {
    why = g_strdup_printf ("it has %u components; GStreamer video carries "
        "1 (grey), 3 (YCbCr or RGB) or 4 (with alpha)", n);
    goto refuse;
  }
  for (c = 0; c < n; c++) {
    if (comp[c].is_signed) {
      why = g_strdup_printf ("component %u holds signed samples, which no "
          "GStreamer video format has", c);
      goto refuse;
    }
    if (comp[c].depth > 16) {
      why = g_strdup_printf ("component %u has %u-bit samples, more than "
          "the 16 bits of GStreamer video formats", c, comp[c].depth);
      goto refuse;
    }
    if (comp[c].depth != depth) {
      why = g_strdup_printf ("its components have different depths "
          "(%u bits in component 0, %u in component %u)", depth,
          comp[c].depth, c);
      goto refuse;
    }
  }
  if (comp[0].dx != 1 || comp[0].dy != 1 || (n == 4 && (comp[3].dx != 1
              || comp[3].dy != 1)) || (n >= 3 && (comp[1].dx != comp[2].dx
              || comp[1].dy != comp[2].dy))) {
    why = g_strdup_printf ("its components are subsampled %ux%u, %ux%u%s%s, "
        "which no GStreamer video format has", comp[0].dx, comp[0].dy,
        n > 1 ? comp[1].dx : 1, n > 1 ? comp[1].dy : 1,
        n > 2 ? ", ..." : "", "");
    goto refuse;
  }
  if (n == 1)
    kind = KIND_GRAY;
  else if (info->mct || info->colour == SCI_J2K_COLOUR_SRGB
      || (info->colour == SCI_J2K_COLOUR_UNKNOWN && self->caps_rgb))
    kind = KIND_RGB;
  else
    kind = KIND_YUV;
  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    const FormatEntry *f = &formats[i];

    if (f->ncomp != n || f->kind != kind || (n > 1 && (f->dx != comp[1].dx
                || f->dy != comp[1].dy)))
      continue;
    layout_known = TRUE;
    if (f->bits >= depth) {
      *format = f->format;
      GST_DEBUG_OBJECT (self, "%u components of %u bits, %s: %s", n, depth,
          kind_name (kind), gst_video_format_to_string (f->format));
      return TRUE;
    }
  }
  if (layout_known)
    why = g_strdup_printf ("no GStreamer video format holds %u-bit %s "
        "samples subsampled %ux%u", depth, kind_name (kind),
        n > 1 ? comp[1].dx : 1, n > 1 ? comp[1].dy : 1);
  else
    why = g_strdup_printf ("no GStreamer video format has %s components "
        "subsampled %ux%u%s", kind_name (kind), comp[1].dx, comp[1].dy,
        kind == KIND_RGB ? " (RGB is decoded without subsampling only)" : "");
refuse:
  FORMAT_ERROR (self, why);
  g_free (why);
  return FALSE;
}

static void
info_for (GstJ2kDec * self, GstVideoInfo * vi, GstVideoFormat format,
    const sci_j2k_comp_info * comp)
{
  gst_video_info_set_format (vi, format, comp[0].w, comp[0].h);
  vi->fps_n = self->fps_n;
  vi->fps_d = self->fps_d;
}

gboolean
gst_j2k_dec_same_output (GstJ2kDec * self, GstVideoFormat format,
    const sci_j2k_comp_info * comp)
{
  return self->have_info && GST_VIDEO_INFO_FORMAT (&self->out_info) == format
      && GST_VIDEO_INFO_WIDTH (&self->out_info) == (gint) comp[0].w
      && GST_VIDEO_INFO_HEIGHT (&self->out_info) == (gint) comp[0].h;
}

gboolean
gst_j2k_dec_set_output (GstJ2kDec * self, GstVideoFormat format,
    const sci_j2k_comp_info * comp, guint ncomp)
{
  GstVideoInfo vi;
  guint c;

  if (comp[0].w < 1 || comp[0].h < 1 || comp[0].w > G_MAXINT / 8
      || comp[0].h > G_MAXINT / 8) {
    gchar *why = g_strdup_printf ("its size at this reduction is %ux%u",
        comp[0].w, comp[0].h);

    FORMAT_ERROR (self, why);
    g_free (why);
    return FALSE;
  }
  info_for (self, &vi, format, comp);
  for (c = 0; c < ncomp; c++) {
    if (GST_VIDEO_INFO_COMP_WIDTH (&vi, c) != (gint) comp[c].w
        || GST_VIDEO_INFO_COMP_HEIGHT (&vi, c) != (gint) comp[c].h) {
      gchar *why = g_strdup_printf ("component %u is %ux%u where %s of "
          "%ux%u has %dx%d (an odd image origin on the canvas shifts the "
          "subsampled grid)", c, comp[c].w, comp[c].h,
          gst_video_format_to_string (format), comp[0].w, comp[0].h,
          GST_VIDEO_INFO_COMP_WIDTH (&vi, c),
          GST_VIDEO_INFO_COMP_HEIGHT (&vi, c));

      FORMAT_ERROR (self, why);
      g_free (why);
      return FALSE;
    }
  }
  if (!gst_sci_video_decoder_set_src_caps (GST_SCI_VIDEO_DECODER (self),
          gst_video_info_to_caps (&vi)))
    return FALSE;
  self->out_info = vi;
  self->have_info = TRUE;
  return TRUE;
}
