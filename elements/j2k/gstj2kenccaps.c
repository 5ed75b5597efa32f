/*
 * The caps of htj2kenc and ebcotcm: raw video or application/x-wavelet in,
 * image/x-jpc or image/x-jph out, with GStreamer's jpeg2000 fields
 * (num-components, colorspace, sampling) from the video format, and on
 * image/x-jpc those that mpegtsmux needs to carry it (H.222.0 Annex S):
 * alignment (a codestream a buffer), profile (the codestream's Rsiz) and
 * the input's colorimetry.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstj2kenc.h"

/* every log call here names the element `self` */
#define GST_CAT_DEFAULT (GST_SCI_J2K_ENC_GET_CLASS (self)->debug)

/* Sizes as far as the codestream takes them (one precinct a resolution:
 * SCI_HTJ2K_MAX_SIZE), in every template, the wavelet caps' too. */
#define CODED_FIELDS \
  "width = (int) [ 1, " G_STRINGIFY (SCI_HTJ2K_MAX_SIZE) " ], " \
  "height = (int) [ 1, " G_STRINGIFY (SCI_HTJ2K_MAX_SIZE) " ], " \
  "num-components = (int) [ 1, 4 ], " \
  "colorspace = (string) { sRGB, sYUV, GRAY }, " \
  "sampling = (string) { RGB, YCbCr-4:4:4, YCbCr-4:2:2, YCbCr-4:2:0, " \
  "GRAYSCALE }, framerate = (fraction) [ 0/1, MAX ]"
/* Rsiz: 0 for Part 1 (no restriction), bit 14 for Part 15 (HTJ2K) */
#define JPC_FIELDS \
  "alignment = (string) frame, profile = (int) { 0, 16384 }"
#define SRC_CAPS JPC_MEDIA_TYPE ", " CODED_FIELDS ", " JPC_FIELDS "; " \
  JPH_MEDIA_TYPE ", " CODED_FIELDS

/* Fields the coded caps take over from the input unchanged. */
static const gchar *const passthrough_fields[] = {
  "width", "height", "framerate", "pixel-aspect-ratio", "colorimetry",
};

/* What the jpeg2000 caps of GStreamer (gstjpeg2000sampling.h) say about
 * the samples of a video format. */
typedef struct
{
  const gchar *sampling;
  const gchar *colorspace;
  gint components;
} J2kSampling;

static gboolean
sampling_from_format (GstVideoFormat format, J2kSampling * out)
{
  const GstVideoFormatInfo *finfo = gst_video_format_get_info (format);
  GstVideoInfo vinfo;
  GstWaveletInfo winfo;

  /* only what the wavelet stage takes */
  if (!finfo || !gst_video_info_set_format (&vinfo, format, 16, 16)
      || gst_wavelet_info_from_video (&winfo, &vinfo, SCI_DWT_53, 0,
          GST_SCI_COLOUR_NONE))
    return FALSE;
  out->components = GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo);
  if (GST_VIDEO_FORMAT_INFO_IS_GRAY (finfo)) {
    out->sampling = "GRAYSCALE";
    out->colorspace = "GRAY";
  } else if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)) {
    /* the wavelet stage orders the components R, G, B for every RGB format */
    out->sampling = "RGB";
    out->colorspace = "sRGB";
  } else {
    guint wsub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, 1);
    guint hsub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, 1);

    out->colorspace = "sYUV";
    if (wsub == 0 && hsub == 0)
      out->sampling = "YCbCr-4:4:4";
    else if (wsub == 1 && hsub == 0)
      out->sampling = "YCbCr-4:2:2";
    else if (wsub == 1 && hsub == 1)
      out->sampling = "YCbCr-4:2:0";
    else
      return FALSE;
  }
  return TRUE;
}

/* Input caps without colorimetry stand for the format's default (as
 * GstVideoInfo reads them), which the coded caps then say: mpegtsmux
 * refuses JPEG 2000 without it. */
static void
default_colorimetry (GstStructure * out, GstVideoFormat format)
{
  GstVideoInfo vinfo;
  gint w, h;
  gchar *c;

  if (!gst_structure_get_int (out, "width", &w)
      || !gst_structure_get_int (out, "height", &h)
      || !gst_video_info_set_format (&vinfo, format, w, h))
    return;
  c = gst_video_colorimetry_to_string (&vinfo.colorimetry);
  if (c)
    gst_structure_set (out, "colorimetry", G_TYPE_STRING, c, NULL);
  g_free (c);
}

/* The coded structure for input structure `in` whose format (or
 * video-format) is `format`, or NULL when we cannot code it. */
static GstStructure *
coded_structure (const GstStructure * in, const gchar * media_type,
    const gchar * format, sci_j2k_coder coder)
{
  GstStructure *out;
  J2kSampling si;

  if (format && !sampling_from_format (gst_video_format_from_string (format),
          &si))
    return NULL;
  out = gst_structure_new_empty (media_type);
  gst_sci_structure_copy_fields (out, in, passthrough_fields,
      G_N_ELEMENTS (passthrough_fields));
  if (format)
    gst_structure_set (out, "num-components", G_TYPE_INT, si.components,
        "colorspace", G_TYPE_STRING, si.colorspace,
        "sampling", G_TYPE_STRING, si.sampling, NULL);
  if (format && !gst_structure_has_field (out, "colorimetry"))
    default_colorimetry (out, gst_video_format_from_string (format));
  if (g_str_equal (media_type, JPC_MEDIA_TYPE))
    gst_structure_set (out, "alignment", G_TYPE_STRING, "frame",
        "profile", G_TYPE_INT, coder == SCI_J2K_CODER_HT ? 0x4000 : 0, NULL);
  return out;
}

static gboolean
field_allows (const GstStructure * s, const gchar * field, const GValue * v)
{
  const GValue *have = gst_structure_get_value (s, field);

  return !have || gst_value_can_intersect (have, v);
}

/* The formats of the sink template whose coded caps fit structure `s`. */
static gboolean
formats_for_coded (const GstStructure * s, GValue * list)
{
  static const gchar *const tmpl_caps = GST_WAVELET_VIDEO_CAPS_STRING;
  GstCaps *tmpl = gst_caps_from_string (tmpl_caps);
  const GValue *formats =
      gst_structure_get_value (gst_caps_get_structure (tmpl, 0), "format");
  guint i;

  g_value_init (list, GST_TYPE_LIST);
  for (i = 0; i < gst_value_list_get_size (formats); i++) {
    const GValue *f = gst_value_list_get_value (formats, i);
    J2kSampling si;
    GValue v = G_VALUE_INIT;
    gboolean ok;

    if (!sampling_from_format (gst_video_format_from_string
            (g_value_get_string (f)), &si))
      continue;
    g_value_init (&v, G_TYPE_INT);
    g_value_set_int (&v, si.components);
    ok = field_allows (s, "num-components", &v);
    g_value_unset (&v);
    g_value_init (&v, G_TYPE_STRING);
    g_value_set_static_string (&v, si.sampling);
    ok = ok && field_allows (s, "sampling", &v);
    g_value_set_static_string (&v, si.colorspace);
    ok = ok && field_allows (s, "colorspace", &v);
    g_value_unset (&v);
    if (ok)
      gst_value_list_append_value (list, f);
  }
  gst_caps_unref (tmpl);
  return gst_value_list_get_size (list) > 0;
}

/* Raw video or coefficients into codestreams of the media type `jph`
 * selects (with the fields the caps already fix); codestreams back into
 * the video and coefficients they can be made of, in CUDA memory too while
 * the kernels run. */
GstCaps *
gst_sci_j2k_enc_transform_caps (GstSciVideoEncoder * base,
    GstPadDirection direction, GstCaps * caps)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (base);
  sci_j2k_coder coder = GST_SCI_J2K_ENC_GET_CLASS (self)->coder;
  GstCaps *result = gst_caps_new_empty ();
  const gchar *media_type;
  guint i, k;

  GST_OBJECT_LOCK (self);
  media_type = self->jph ? JPH_MEDIA_TYPE : JPC_MEDIA_TYPE;
  GST_OBJECT_UNLOCK (self);

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *in = gst_caps_get_structure (caps, i);

    if (direction == GST_PAD_SINK) {
      const GValue *fmt = gst_structure_get_value (in,
          gst_structure_has_name (in, GST_WAVELET_MEDIA_TYPE) ?
          "video-format" : "format");
      GstStructure *out;

      if (fmt && G_VALUE_HOLDS_STRING (fmt)) {
        out = coded_structure (in, media_type, g_value_get_string (fmt), coder);
        if (out)
          result = gst_caps_merge_structure (result, out);
      } else if (fmt && GST_VALUE_HOLDS_LIST (fmt)) {
        for (k = 0; k < gst_value_list_get_size (fmt); k++) {
          const GValue *f = gst_value_list_get_value (fmt, k);

          if (!G_VALUE_HOLDS_STRING (f))
            continue;
          out = coded_structure (in, media_type, g_value_get_string (f), coder);
          if (out)
            result = gst_caps_merge_structure (result, out);
        }
      } else {
        result = gst_caps_merge_structure (result,
            coded_structure (in, media_type, NULL, coder));
      }
    } else {
      GValue formats = G_VALUE_INIT;
      GstStructure *video, *wavelet;
      GstCaps *one;

      /* jph selects the one media type we produce */
      if (!gst_structure_has_name (in, media_type)
          || !formats_for_coded (in, &formats)) {
        if (G_IS_VALUE (&formats))
          g_value_unset (&formats);
        continue;
      }
      video = gst_structure_new_empty ("video/x-raw");
      gst_sci_structure_copy_fields (video, in, passthrough_fields,
          G_N_ELEMENTS (passthrough_fields));
      gst_structure_set_value (video, "format", &formats);
      wavelet = gst_structure_new_empty (GST_WAVELET_MEDIA_TYPE);
      gst_sci_structure_copy_fields (wavelet, in, passthrough_fields,
          G_N_ELEMENTS (passthrough_fields));
      gst_structure_take_value (wavelet, "video-format", &formats);
      one = gst_caps_new_full (video, wavelet, NULL);
      /* the input may be in CUDA memory while the kernels run */
      result = gst_caps_merge (result,
          gst_sci_backend_with_features (&base->backend, one,
              gst_caps_get_features (caps, i)));
      gst_caps_unref (one);
    }
  }

  return result;
}

/* Coefficients of cudadwt stand for the video they were made of: its
 * format, size and rate (GstVideoEncoder tracks those); the encoder reads
 * the filter, levels and colour transform from the wavelet caps. */
GstCaps *
gst_sci_j2k_enc_video_caps (GstSciVideoEncoder * base, GstCaps * caps)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (base);
  GstStructure *video = NULL;
  GstWaveletInfo winfo;
  const gchar *why;

  why = gst_wavelet_info_from_caps (&winfo, caps);
  if (!why && !(video = gst_wavelet_structure_to_video
          (gst_caps_get_structure (caps, 0))))
    why = "no video format";
  if (why) {
    NEGOTIATION_ERROR (self, "Cannot code coefficients %" GST_PTR_FORMAT
        ": %s", caps, why);
    return NULL;
  }
  return gst_caps_new_full (video, NULL);
}

GstCaps *
gst_sci_j2k_enc_sink_template_caps (void)
{
  GstCaps *caps = gst_sci_template_caps (GST_WAVELET_VIDEO_CAPS_STRING "; "
      GST_WAVELET_CAPS_STRING);

  gst_caps_set_simple (caps,
      "width", GST_TYPE_INT_RANGE, 1, SCI_HTJ2K_MAX_SIZE,
      "height", GST_TYPE_INT_RANGE, 1, SCI_HTJ2K_MAX_SIZE, NULL);
  return caps;
}

GstCaps *
gst_sci_j2k_enc_src_template_caps (sci_j2k_coder coder)
{
  return gst_caps_from_string (coder == SCI_J2K_CODER_HT ? SRC_CAPS :
      JPC_MEDIA_TYPE ", " CODED_FIELDS ", " JPC_FIELDS);
}
