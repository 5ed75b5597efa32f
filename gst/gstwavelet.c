#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstwavelet.h"
#include "gstscifilter.h"

#include <string.h>

static const GstVideoFormat supported_formats[] = {
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE,
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420_10LE,
  GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_Y42B,
  GST_VIDEO_FORMAT_I422_10LE, GST_VIDEO_FORMAT_I422_12LE,
  GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_Y444_10LE,
  GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_Y444_16LE,
  GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_RGBP,
  GST_VIDEO_FORMAT_BGRP, GST_VIDEO_FORMAT_GBR, GST_VIDEO_FORMAT_GBR_10LE,
  GST_VIDEO_FORMAT_GBR_12LE,
};

/* Fields a wavelet structure takes over from the video it came from, and
 * gives back to the video it goes to. */
static const gchar *const passthrough_fields[] = {
  "framerate", "pixel-aspect-ratio", "colorimetry", "chroma-site",
};

GType
gst_sci_dwt_filter_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {SCI_DWT_53, "5/3 reversible integer lifting (lossless)", "5-3"},
    {SCI_DWT_97, "9/7 irreversible float lifting", "9-7"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSciDwtFilter", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_sci_colour_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_SCI_COLOUR_AUTO,
        "RCT (5-3) or ICT (9-7) for RGB input, none for YUV and gray", "auto"},
    {GST_SCI_COLOUR_NONE, "No component transform", "none"},
    {GST_SCI_COLOUR_RCT,
        "Reversible colour transform (needs filter 5-3 and 3 full-size "
          "components)", "rct"},
    {GST_SCI_COLOUR_ICT,
        "Irreversible colour transform (needs filter 9-7 and 3 full-size "
          "components)", "ict"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSciColourMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

const gchar *
gst_wavelet_filter_to_string (sci_dwt_filter filter)
{
  return filter == SCI_DWT_97 ? "9-7" : "5-3";
}

const gchar *
gst_wavelet_colour_to_string (sci_colour_transform ct)
{
  switch (ct) {
    case SCI_CT_RCT:
      return "rct";
    case SCI_CT_ICT:
      return "ict";
    default:
      return "none";
  }
}

static gboolean
format_supported (GstVideoFormat format)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (supported_formats); i++) {
    if (supported_formats[i] == format)
      return TRUE;
  }
  return FALSE;
}

const gchar *
gst_wavelet_info_from_video (GstWaveletInfo * info, const GstVideoInfo * vinfo,
    sci_dwt_filter filter, guint levels, GstSciColourMode mode)
{
  const GstVideoFormatInfo *finfo = vinfo->finfo;
  sci_wt_geometry *g = &info->geom;
  const gchar *why;
  guint c;

  memset (info, 0, sizeof (*info));
  if (!format_supported (GST_VIDEO_INFO_FORMAT (vinfo)))
    return "unsupported video format";
  if (GST_VIDEO_INFO_IS_INTERLACED (vinfo))
    return "interlaced video is not supported";
  if (GST_VIDEO_INFO_N_COMPONENTS (vinfo) > SCI_WT_MAX_COMPONENTS)
    return "too many components";

  g->width = GST_VIDEO_INFO_WIDTH (vinfo);
  g->height = GST_VIDEO_INFO_HEIGHT (vinfo);
  g->components = GST_VIDEO_INFO_N_COMPONENTS (vinfo);
  g->depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0);
  for (c = 0; c < g->components; c++) {
    g->dx[c] = 1u << GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
    g->dy[c] = 1u << GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
  }
  g->filter = filter;
  g->levels = levels;
  if (mode == GST_SCI_COLOUR_AUTO) {
    if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo) && g->components >= 3)
      g->ct = filter == SCI_DWT_53 ? SCI_CT_RCT : SCI_CT_ICT;
    else
      g->ct = SCI_CT_NONE;
  } else {
    g->ct = (sci_colour_transform) mode;
  }
  why = sci_wt_geometry_check (g);
  if (why)
    return why;
  info->video_format = GST_VIDEO_INFO_FORMAT (vinfo);
  info->size = sci_wt_coeff_count (g) * 4;
  return NULL;
}

const gchar *
gst_wavelet_info_from_caps (GstWaveletInfo * info, const GstCaps * caps)
{
  const GstStructure *s;
  const gchar *str;
  GstVideoInfo vinfo;
  GstVideoFormat vformat;
  gint width, height, components, depth, levels;
  sci_dwt_filter filter;
  sci_colour_transform ct;
  const gchar *why;

  if (!caps || gst_caps_get_size (caps) < 1)
    return "no caps";
  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, GST_WAVELET_MEDIA_TYPE))
    return "not " GST_WAVELET_MEDIA_TYPE;
  if (!gst_structure_get_int (s, "width", &width)
      || !gst_structure_get_int (s, "height", &height)
      || !gst_structure_get_int (s, "components", &components)
      || !gst_structure_get_int (s, "depth", &depth)
      || !gst_structure_get_int (s, "levels", &levels))
    return "width, height, components, depth or levels missing";
  if (width < 1 || height < 1 || width > 65535 || height > 65535)
    return "width and height must be 1..65535";
  if (levels < 0 || levels > SCI_DWT_MAX_LEVELS)
    return "levels must be 0..32";

  str = gst_structure_get_string (s, "filter");
  if (!g_strcmp0 (str, "5-3"))
    filter = SCI_DWT_53;
  else if (!g_strcmp0 (str, "9-7"))
    filter = SCI_DWT_97;
  else
    return "filter must be 5-3 or 9-7";

  str = gst_structure_get_string (s, "format");
  if (g_strcmp0 (str, filter == SCI_DWT_53 ? "S32" : "F32"))
    return "format must be S32 for 5-3 and F32 for 9-7";

  str = gst_structure_get_string (s, "colour-transform");
  if (!g_strcmp0 (str, "none"))
    ct = SCI_CT_NONE;
  else if (!g_strcmp0 (str, "rct"))
    ct = SCI_CT_RCT;
  else if (!g_strcmp0 (str, "ict"))
    ct = SCI_CT_ICT;
  else
    return "colour-transform must be none, rct or ict";

  vformat = gst_video_format_from_string (gst_structure_get_string (s,
          "video-format"));
  if (vformat == GST_VIDEO_FORMAT_UNKNOWN)
    return "video-format missing or unknown";
  if (!gst_video_info_set_format (&vinfo, vformat, width, height))
    return "video-format does not fit width and height";

  why = gst_wavelet_info_from_video (info, &vinfo, filter, levels,
      (GstSciColourMode) ct);
  if (why)
    return why;
  if ((gint) info->geom.components != components
      || (gint) info->geom.depth != depth)
    return "components or depth disagree with video-format";
  return NULL;
}

GstStructure *
gst_wavelet_info_to_structure (const GstWaveletInfo * info,
    const GstStructure * video)
{
  const sci_wt_geometry *g = &info->geom;
  GstStructure *s;

  s = gst_structure_new (GST_WAVELET_MEDIA_TYPE,
      "width", G_TYPE_INT, (gint) g->width,
      "height", G_TYPE_INT, (gint) g->height,
      "components", G_TYPE_INT, (gint) g->components,
      "depth", G_TYPE_INT, (gint) g->depth,
      "filter", G_TYPE_STRING, gst_wavelet_filter_to_string (g->filter),
      "levels", G_TYPE_INT, (gint) g->levels,
      "colour-transform", G_TYPE_STRING, gst_wavelet_colour_to_string (g->ct),
      "format", G_TYPE_STRING, g->filter == SCI_DWT_53 ? "S32" : "F32",
      "video-format", G_TYPE_STRING,
      gst_video_format_to_string (info->video_format), NULL);
  gst_sci_structure_copy_fields (s, video, passthrough_fields,
      G_N_ELEMENTS (passthrough_fields));
  return s;
}

GstStructure *
gst_wavelet_structure_from_video (const GstStructure * video)
{
  GstStructure *s = gst_structure_new_empty (GST_WAVELET_MEDIA_TYPE);
  const GValue *v;

  if ((v = gst_structure_get_value (video, "width")))
    gst_structure_set_value (s, "width", v);
  if ((v = gst_structure_get_value (video, "height")))
    gst_structure_set_value (s, "height", v);
  if ((v = gst_structure_get_value (video, "format")))
    gst_structure_set_value (s, "video-format", v);
  gst_sci_structure_copy_fields (s, video, passthrough_fields,
      G_N_ELEMENTS (passthrough_fields));
  return s;
}

GstStructure *
gst_wavelet_structure_to_video (const GstStructure * s)
{
  const gchar *fields[] = { "width", "height" };
  const GValue *fmt = gst_structure_get_value (s, "video-format");
  GstStructure *v;
  guint i;

  if (!fmt)
    return NULL;
  v = gst_structure_new_empty ("video/x-raw");
  gst_structure_set_value (v, "format", fmt);
  for (i = 0; i < G_N_ELEMENTS (fields); i++) {
    const GValue *val = gst_structure_get_value (s, fields[i]);
    if (val)
      gst_structure_set_value (v, fields[i], val);
  }
  gst_sci_structure_copy_fields (v, s, passthrough_fields,
      G_N_ELEMENTS (passthrough_fields));
  return v;
}

void
gst_wavelet_planes_from_frame (const GstVideoFrame * frame,
    sci_wt_plane planes[SCI_WT_MAX_COMPONENTS])
{
  guint c;

  for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (frame); c++) {
    planes[c].data = GST_VIDEO_FRAME_COMP_DATA (frame, c);
    planes[c].row_stride = GST_VIDEO_FRAME_COMP_STRIDE (frame, c);
    planes[c].pixel_stride = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c);
  }
}
