/*
 * The JPEG 2000 encoder shared by htj2kenc (gsthtj2kenc.c) and ebcotcm
 * (gstebcotcm.c): they differ in the block coder (HT or EBCOT), a few
 * properties and the output media types; everything else is here.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstj2kenc.h"
#if HAVE_CUDA
#include <cuda_runtime_api.h>
#include "cuda/error.h"
#endif

/* every log call here names the element `self` */
#define GST_CAT_DEFAULT (GST_SCI_J2K_ENC_GET_CLASS (self)->debug)

enum
{
  PROP_0,
  PROP_REVERSIBLE,
  PROP_QSTEP,
  PROP_LEVELS,
  PROP_BLOCK_WIDTH,
  PROP_BLOCK_HEIGHT,
  PROP_PROGRESSION,
  PROP_COLOUR_TRANSFORM,
  PROP_BITRATE,
  PROP_JPH,
  PROP_LAYERS,
  PROP_CODE_BLOCK_STYLE,
  PROP_FRAMES_IN_FLIGHT,
};

#define DEFAULT_REVERSIBLE FALSE
#define DEFAULT_QSTEP (1.0 / 256)
#define DEFAULT_LEVELS 5
#define DEFAULT_BLOCK_SIZE 64
#define DEFAULT_PROGRESSION SCI_J2K_RPCL
#define DEFAULT_COLOUR GST_SCI_J2K_COLOUR_AUTO
#define DEFAULT_BITRATE 0.0
#define DEFAULT_JPH FALSE
#define DEFAULT_LAYERS 1
#define DEFAULT_CODE_BLOCK_STYLE 0
#define DEFAULT_FRAMES_IN_FLIGHT 2

#define MIN_BLOCK_SIZE 4
#define MAX_BLOCK_SIZE 1024
#define MAX_BLOCK_AREA 4096
#define MAX_BITRATE 64.0

#define JPC_MEDIA_TYPE "image/x-jpc"
#define JPH_MEDIA_TYPE "image/x-jph"

/* Sizes as far as the codestream takes them (one precinct a resolution:
 * SCI_HTJ2K_MAX_SIZE), in every template, the wavelet caps' too. */
#define CODED_FIELDS \
  "width = (int) [ 1, " G_STRINGIFY (SCI_HTJ2K_MAX_SIZE) " ], " \
  "height = (int) [ 1, " G_STRINGIFY (SCI_HTJ2K_MAX_SIZE) " ], " \
  "num-components = (int) [ 1, 4 ], " \
  "colorspace = (string) { sRGB, sYUV, GRAY }, " \
  "sampling = (string) { RGB, YCbCr-4:4:4, YCbCr-4:2:2, YCbCr-4:2:0, " \
  "GRAYSCALE }, framerate = (fraction) [ 0/1, MAX ]"
#define SRC_CAPS JPC_MEDIA_TYPE ", " CODED_FIELDS "; " \
  JPH_MEDIA_TYPE ", " CODED_FIELDS

/* Fields the coded caps take over from the input unchanged. */
static const gchar *const passthrough_fields[] = {
  "width", "height", "framerate", "pixel-aspect-ratio",
};

#define gst_sci_j2k_enc_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE (GstSciJ2kEnc, gst_sci_j2k_enc, GST_TYPE_SCI_FILTER);

#define GST_TYPE_SCI_J2K_PROGRESSION (gst_sci_j2k_progression_get_type ())
static GType
gst_sci_j2k_progression_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {SCI_J2K_LRCP, "Layer-resolution-component-position", "lrcp"},
    {SCI_J2K_RLCP, "Resolution-layer-component-position", "rlcp"},
    {SCI_J2K_RPCL, "Resolution-position-component-layer", "rpcl"},
    {SCI_J2K_PCRL, "Position-component-resolution-layer", "pcrl"},
    {SCI_J2K_CPRL, "Component-position-resolution-layer", "cprl"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSciJ2kProgression", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_SCI_J2K_COLOUR (gst_sci_j2k_colour_get_type ())
static GType
gst_sci_j2k_colour_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_SCI_J2K_COLOUR_AUTO, "RCT (reversible) or ICT (irreversible) when "
          "the input has 3 full-size components (RGB), else none", "auto"},
    {GST_SCI_J2K_COLOUR_NONE, "Code every component on its own", "none"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSciJ2kColour", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_SCI_J2K_CODE_BLOCK_STYLE \
  (gst_sci_j2k_code_block_style_get_type ())
static GType
gst_sci_j2k_code_block_style_get_type (void)
{
  static GType type = 0;
  static const GFlagsValue values[] = {
    {SCI_T1_BYPASS, "Selective arithmetic coding bypass: significance and "
          "refinement passes raw from the fifth coded bit-plane", "bypass"},
    {SCI_T1_RESET, "Reset context probabilities on each coding pass",
        "reset"},
    {SCI_T1_TERMALL, "Terminate the codeword on each coding pass", "termall"},
    {SCI_T1_VCAUSAL, "Vertically causal context formation", "vcausal"},
    {SCI_T1_PTERM, "Predictable termination", "pterm"},
    {SCI_T1_SEGSYM, "Segmentation symbols at the end of each cleanup pass",
        "segsym"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstSciJ2kCodeBlockStyle", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

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

/* The coded structure for input structure `in` whose format (or
 * video-format) is `format`, or NULL when we cannot code it. */
static GstStructure *
coded_structure (const GstStructure * in, const gchar * media_type,
    const gchar * format)
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

static void
set_dirty_and_reconfigure (GstSciJ2kEnc * self)
{
  GST_OBJECT_LOCK (self);
  self->dirty = TRUE;
  GST_OBJECT_UNLOCK (self);
  /* jph changes the output caps; the others change the encoder, which is
   * rebuilt before the next frame (renegotiation skips set_caps when the
   * caps stay the same). */
  gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_sci_j2k_enc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_REVERSIBLE:
      self->reversible = g_value_get_boolean (value);
      break;
    case PROP_QSTEP:
      self->qstep = g_value_get_double (value);
      break;
    case PROP_LEVELS:
      self->levels = g_value_get_uint (value);
      break;
    case PROP_BLOCK_WIDTH:
      self->block_width = g_value_get_uint (value);
      break;
    case PROP_BLOCK_HEIGHT:
      self->block_height = g_value_get_uint (value);
      break;
    case PROP_PROGRESSION:
      self->progression = g_value_get_enum (value);
      break;
    case PROP_COLOUR_TRANSFORM:
      self->colour = g_value_get_enum (value);
      break;
    case PROP_BITRATE:
      self->bitrate = g_value_get_double (value);
      break;
    case PROP_JPH:
      self->jph = g_value_get_boolean (value);
      break;
    case PROP_LAYERS:
      self->layers = g_value_get_uint (value);
      break;
    case PROP_CODE_BLOCK_STYLE:
      self->cb_style = g_value_get_flags (value);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      self->frames_in_flight = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      GST_OBJECT_UNLOCK (self);
      return;
  }
  GST_OBJECT_UNLOCK (self);
  set_dirty_and_reconfigure (self);
}

static void
gst_sci_j2k_enc_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_REVERSIBLE:
      g_value_set_boolean (value, self->reversible);
      break;
    case PROP_QSTEP:
      g_value_set_double (value, self->qstep);
      break;
    case PROP_LEVELS:
      g_value_set_uint (value, self->levels);
      break;
    case PROP_BLOCK_WIDTH:
      g_value_set_uint (value, self->block_width);
      break;
    case PROP_BLOCK_HEIGHT:
      g_value_set_uint (value, self->block_height);
      break;
    case PROP_PROGRESSION:
      g_value_set_enum (value, self->progression);
      break;
    case PROP_COLOUR_TRANSFORM:
      g_value_set_enum (value, self->colour);
      break;
    case PROP_BITRATE:
      g_value_set_double (value, self->bitrate);
      break;
    case PROP_JPH:
      g_value_set_boolean (value, self->jph);
      break;
    case PROP_LAYERS:
      g_value_set_uint (value, self->layers);
      break;
    case PROP_CODE_BLOCK_STYLE:
      g_value_set_flags (value, self->cb_style);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      g_value_set_uint (value, self->frames_in_flight);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static GstCaps *
gst_sci_j2k_enc_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (trans);
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
        out = coded_structure (in, media_type, g_value_get_string (fmt));
        if (out)
          result = gst_caps_merge_structure (result, out);
      } else if (fmt && GST_VALUE_HOLDS_LIST (fmt)) {
        for (k = 0; k < gst_value_list_get_size (fmt); k++) {
          const GValue *f = gst_value_list_get_value (fmt, k);

          if (!G_VALUE_HOLDS_STRING (f))
            continue;
          out = coded_structure (in, media_type, g_value_get_string (f));
          if (out)
            result = gst_caps_merge_structure (result, out);
        }
      } else {
        result = gst_caps_merge_structure (result,
            coded_structure (in, media_type, NULL));
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
          gst_sci_filter_with_features (GST_SCI_FILTER (self), one,
              gst_caps_get_features (caps, i)));
      gst_caps_unref (one);
    }
  }

  return gst_sci_filter_finish_caps (GST_SCI_FILTER (self), direction, caps,
      result, filter);
}

static gboolean
gst_sci_j2k_enc_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (trans);

  /* Only the bound on a coded frame is known; prepare_output_buffer
   * allocates it and transform trims the buffer to the frame. */
  if (direction != GST_PAD_SINK || !self->enc)
    return FALSE;
  *othersize = self->max_bytes;
  return TRUE;
}

#if HAVE_CUDA
/* The CUDA handles (the block coders use enc: freed first).  Frames in
 * flight keep their inputs (flight_cuda_failed codes them on the CPU);
 * the device stops reading those first. */
static void
release_cuda (GstSciJ2kEnc * self)
{
  GstSciFilter *base = GST_SCI_FILTER (self);
  guint j;

  if (!self->wt[0] && !self->wt[1] && !self->ht && !self->t1[0]
      && !self->t1[1] && !self->stream1)
    return;
  if (gst_sci_cuda_push (&base->cuda)) {
    if (self->stream1) {
      cudaStreamSynchronize ((cudaStream_t) self->stream1);
      cudaStreamDestroy ((cudaStream_t) self->stream1);
      cudaGetLastError ();
    }
    g_clear_pointer (&self->ht, sci_cuda_ht_destroy);
    for (j = 0; j < 2; j++) {
      g_clear_pointer (&self->t1[j], sci_cuda_t1_destroy);
      g_clear_pointer (&self->wt[j], sci_cuda_wt_destroy);
    }
    gst_sci_cuda_pop ();
  } else {
    GST_WARNING_OBJECT (self, "no CUDA context to free the device state in");
    self->ht = NULL;
    for (j = 0; j < 2; j++) {
      self->t1[j] = NULL;
      self->wt[j] = NULL;
    }
  }
  self->stream1 = NULL;
  self->next_lane = 0;
}
#endif

#if HAVE_CUDA
/* frames in flight (defined with the frame coding below) */
static guint frames_in_flight (GstSciJ2kEnc * self);
static GstFlowReturn flight_drain (GstSciJ2kEnc * self);
static void flight_drop (GstSciJ2kEnc * self);
#endif

static void
release_encoder (GstSciJ2kEnc * self)
{
#if HAVE_CUDA
  /* frames in flight have left before (drained) unless the stream stops */
  flight_drop (self);
  release_cuda (self);
#endif
  g_clear_pointer (&self->enc, sci_htj2k_enc_free);
  g_clear_pointer (&self->coeffs, g_free);
  self->max_bytes = 0;
}

#define NEGOTIATION_ERROR(self, ...) \
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (__VA_ARGS__), (NULL))

#if HAVE_CUDA
/* The CUDA handles for the encoder just made and the device coefficients
 * (staging slot 1, unless they come in CUDA memory), all allocated here
 * rather than at a frame; for ebcotcm with two frames in flight the same
 * again for lane 1, on a stream of its own (without them, one frame at a
 * time).  FALSE (error posted) when lane 0 cannot be had and the CPU
 * cannot take over; else use_cuda says which backend runs. */
static gboolean
setup_cuda (GstSciJ2kEnc * self, const GstWaveletInfo * winfo,
    const sci_htj2k_params * p)
{
  GstSciFilter *base = GST_SCI_FILTER (self);
  gboolean coeffs_staged = !(self->wavelet_in && base->in_cuda_memory);
  const gchar *what = "context push";
  gint err = 0;

  if (gst_sci_cuda_push (&base->cuda)) {
    what = NULL;
    if (!self->wavelet_in
        && (err = sci_cuda_wt_create (&self->wt[0], &winfo->geom)))
      what = "wavelet transform scratch";
    else if (p->coder == SCI_J2K_CODER_HT
        && (err = sci_cuda_ht_create (&self->ht, self->enc, &winfo->geom, p)))
      what = "HT block coder memory";
    else if (p->coder == SCI_J2K_CODER_PART1
        && (err = sci_cuda_t1_create (&self->t1[0], self->enc, &winfo->geom,
                p)))
      what = "EBCOT block coder memory";
    else if (coeffs_staged
        && !gst_sci_cuda_staging (&base->cuda, 1, winfo->size, &err))
      what = "coefficient buffer";
    if (what)
      cudaGetLastError ();
    if (!what && p->coder == SCI_J2K_CODER_PART1 && self->frames_in_flight > 1) {
      cudaStream_t stream = NULL;
      const gchar *lane = NULL;

      if ((err = cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking)))
        lane = "stream";
      else if (!self->wavelet_in
          && (err = sci_cuda_wt_create (&self->wt[1], &winfo->geom)))
        lane = "wavelet transform scratch";
      else if ((err = sci_cuda_t1_create (&self->t1[1], self->enc,
                  &winfo->geom, p)))
        lane = "EBCOT block coder memory";
      else if (coeffs_staged
          && !gst_sci_cuda_staging (&base->cuda, 3, winfo->size, &err))
        lane = "coefficient buffer";
      if (lane) {
        cudaGetLastError ();
        GST_WARNING_OBJECT (self, "no second frame in flight: its %s cannot "
            "be had (%s); one frame at a time", lane,
            gst_sci_cuda_error_name (err));
        g_clear_pointer (&self->t1[1], sci_cuda_t1_destroy);
        g_clear_pointer (&self->wt[1], sci_cuda_wt_destroy);
        if (stream)
          cudaStreamDestroy (stream);
      } else {
        self->stream1 = stream;
      }
    }
    gst_sci_cuda_pop ();
  }
  if (!what) {
    GST_DEBUG_OBJECT (self, "block coder: %" G_GSIZE_FORMAT " bytes of "
        "device memory%s", self->ht ? sci_cuda_ht_device_bytes (self->ht) :
        sci_cuda_t1_device_bytes (self->t1[0]),
        self->t1[1] ? " a lane, two frames in flight" : "");
    return TRUE;
  }
  release_cuda (self);
  return gst_sci_filter_cuda_failed (base, what, err);
}
#endif

/* The output buffers' size.  sci_htj2k_max_bytes is a proof, not an
 * estimate: for Part 1 it lets every decision renormalize by 15 bits and
 * comes to some forty times the samples' bytes (2.4 GB for a 4096x2160
 * 4:4:4 12-bit frame), and a pool of page-locked buffers that size would
 * pin gigabytes.  The buffers hold the samples' bytes and a quarter more,
 * 64 KiB and 16 bytes a code-block and layer for headers (lossless white
 * noise, about the least compressible input, takes some 1.1 times its
 * samples' bytes); a frame that needs more gets a buffer of its own
 * (transform). */
static gsize
pool_size (GstSciJ2kEnc * self)
{
  const sci_wt_geometry *g = &self->winfo.geom;
  guint64 bytes = 0;
  guint c;

  for (c = 0; c < g->components; c++)
    bytes += (guint64) ((g->width + g->dx[c] - 1) / g->dx[c]) *
        ((g->height + g->dy[c] - 1) / g->dy[c]);
  bytes *= (g->depth + 7) / 8;
  bytes += bytes / 4 + 65536 +
      (guint64) sci_htj2k_block_count (self->enc) * self->params.layers * 16;
  return MIN (bytes, self->max_bytes);
}

/* Builds the encoder for the negotiated caps and the current properties:
 * called at negotiation and before the first frame after a property
 * change.  FALSE posts an error saying why. */
static gboolean
gst_sci_j2k_enc_configure (GstSciJ2kEnc * self)
{
  GstSciFilter *base = GST_SCI_FILTER (self);
  sci_j2k_coder coder = GST_SCI_J2K_ENC_GET_CLASS (self)->coder;
  GstWaveletInfo winfo;
  sci_htj2k_params p;
  gboolean reversible;
  guint levels, bw, bh;
  GstSciJ2kColour colour;
  gdouble bitrate;
  const sci_wt_geometry *g = &winfo.geom;
  const gchar *why;

  GST_OBJECT_LOCK (self);
  self->dirty = FALSE;
  reversible = self->reversible;
  levels = self->levels;
  colour = self->colour;
  bw = self->block_width;
  bh = self->block_height;
  bitrate = self->bitrate;
  sci_htj2k_params_default (&p);
  p.coder = coder;
  p.qstep = self->qstep;
  p.progression = self->progression;
  p.bitrate = bitrate;
  if (coder == SCI_J2K_CODER_PART1) {
    p.layers = self->layers;
    p.cb_style = self->cb_style;
  }
  GST_OBJECT_UNLOCK (self);
  /* from the caps, not the property: the bytes must match the caps even
   * when jph changes between renegotiation and this frame */
  p.jph = gst_structure_has_name (gst_caps_get_structure (self->outcaps, 0),
      JPH_MEDIA_TYPE);

  release_encoder (self);

  if (self->wavelet_in) {
    why = gst_wavelet_info_from_caps (&winfo, self->incaps);
    if (why) {
      NEGOTIATION_ERROR (self, "Cannot code coefficients %" GST_PTR_FORMAT
          ": %s", self->incaps, why);
      return FALSE;
    }
    if ((g->filter == SCI_DWT_53) != reversible) {
      NEGOTIATION_ERROR (self, "The input coefficients are filter=%s but "
          "reversible=%s: set reversible=%s, or make them with filter=%s",
          gst_wavelet_filter_to_string (g->filter),
          reversible ? "true" : "false", reversible ? "false" : "true",
          reversible ? "5-3" : "9-7");
      return FALSE;
    }
    if (levels != g->levels)
      GST_INFO_OBJECT (self, "levels=%u ignored: the coefficients have %u",
          levels, g->levels);
  } else {
    why = gst_wavelet_info_from_video (&winfo, &self->in_info,
        reversible ? SCI_DWT_53 : SCI_DWT_97, levels,
        (GstSciColourMode) colour);
    if (why) {
      NEGOTIATION_ERROR (self, "Cannot code %s %dx%d: %s",
          GST_VIDEO_INFO_NAME (&self->in_info),
          GST_VIDEO_INFO_WIDTH (&self->in_info),
          GST_VIDEO_INFO_HEIGHT (&self->in_info), why);
      return FALSE;
    }
  }

  if ((bw & (bw - 1)) || (bh & (bh - 1))) {
    NEGOTIATION_ERROR (self, "Code-block size %ux%u: block-width and "
        "block-height must be powers of two from %u to %u", bw, bh,
        MIN_BLOCK_SIZE, MAX_BLOCK_SIZE);
    return FALSE;
  }
  if (bw * bh > MAX_BLOCK_AREA) {
    NEGOTIATION_ERROR (self, "Code-block size %ux%u has %u samples: JPEG 2000 "
        "allows at most %u (block-width x block-height)", bw, bh, bw * bh,
        MAX_BLOCK_AREA);
    return FALSE;
  }
  p.cb_w_log2 = g_bit_nth_lsf (bw, -1);
  p.cb_h_log2 = g_bit_nth_lsf (bh, -1);
  if (coder == SCI_J2K_CODER_HT && reversible && bitrate > 0) {
    NEGOTIATION_ERROR (self, "bitrate=%g needs reversible=false: reversible "
        "coding is lossless and has no rate target (set bitrate=0)", bitrate);
    return FALSE;
  }
  why = sci_htj2k_check (g, &p);
  if (why) {
    NEGOTIATION_ERROR (self, "Cannot code %ux%u, %u components of %u bits, "
        "%s, %u levels: %s", g->width, g->height, g->components, g->depth,
        gst_wavelet_filter_to_string (g->filter), g->levels, why);
    return FALSE;
  }

  self->enc = sci_htj2k_enc_new (g, &p, gst_sci_filter_pool (base));
  if (!self->enc) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Cannot create the JPEG 2000 encoder (out of memory?)"), (NULL));
    return FALSE;
  }
#if HAVE_CUDA
  if (base->use_cuda && !setup_cuda (self, &winfo, &p)) {
    release_encoder (self);
    return FALSE;
  }
#endif
  /* the CUDA backend keeps its coefficients on the device */
  if (!self->wavelet_in && !base->use_cuda) {
    self->coeffs = g_try_malloc (winfo.size);
    if (!self->coeffs) {
      release_encoder (self);
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Cannot allocate %" G_GSIZE_FORMAT " bytes of coefficients",
              winfo.size), (NULL));
      return FALSE;
    }
  }
  self->winfo = winfo;
  self->params = p;
  self->max_bytes = sci_htj2k_max_bytes (self->enc);
  self->pool_bytes = pool_size (self);

  GST_INFO_OBJECT (self, "%s%s %ux%u, %u components, depth %u: %s, %u levels,"
      " colour transform %s, code-blocks %ux%u, progression %u, %u layers, "
      "style 0x%02x, %s%s, up to %" G_GSIZE_FORMAT " bytes a frame (buffers "
      "of %" G_GSIZE_FORMAT "), %s backend, %s memory in",
      self->wavelet_in ? "coefficients of " : "",
      gst_video_format_to_string (winfo.video_format), g->width, g->height,
      g->components, g->depth, gst_wavelet_filter_to_string (g->filter),
      g->levels, gst_wavelet_colour_to_string (g->ct), bw, bh,
      (guint) p.progression, p.layers, p.cb_style,
      p.jph ? "JPH" : "codestream",
      reversible ? ", lossless" : "", self->max_bytes, self->pool_bytes,
      base->use_cuda ? "CUDA" : "CPU",
      base->in_cuda_memory ? "CUDA" : "system");
  return TRUE;
}

static gboolean
gst_sci_j2k_enc_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (trans);

#if HAVE_CUDA
  /* a renegotiation makes the encoder again: the frames in flight leave
   * first, under the caps they were coded for */
  if (frames_in_flight (self) && flight_drain (self) != GST_FLOW_OK)
    GST_DEBUG_OBJECT (self, "frames in flight dropped at new caps");
#endif
  if (!gst_sci_filter_set_memory (GST_SCI_FILTER (self), incaps, outcaps))
    return FALSE;
  self->wavelet_in = gst_structure_has_name (gst_caps_get_structure (incaps,
          0), GST_WAVELET_MEDIA_TYPE);
  if (!self->wavelet_in && !gst_video_info_from_caps (&self->in_info, incaps)) {
    NEGOTIATION_ERROR (self, "Invalid input caps %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
  gst_caps_replace (&self->incaps, incaps);
  gst_caps_replace (&self->outcaps, outcaps);
  return gst_sci_j2k_enc_configure (self);
}

static gboolean
gst_sci_j2k_enc_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  return gst_sci_coded_pool_decide_allocation (&GST_SCI_J2K_ENC (trans)->out,
      trans, query, GST_BASE_TRANSFORM_CLASS (parent_class));
}

/* A pool of pool_bytes buffers, made again when that size or the backend
 * changes.  With the CUDA backend the buffers are page-locked, so that
 * copies from the device into them run at full speed. */
static gboolean
ensure_pool (GstSciJ2kEnc * self)
{
  GstAllocator *allocator =
      gst_sci_filter_coded_allocator (GST_SCI_FILTER (self),
      &self->host_allocator, self->out.allocator);

  return gst_sci_coded_pool_ensure (&self->out, GST_ELEMENT (self),
      self->outcaps, self->pool_bytes, allocator);
}

static GstFlowReturn
gst_sci_j2k_enc_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (trans);
  gboolean dirty;

  GST_OBJECT_LOCK (self);
  dirty = self->dirty;
  GST_OBJECT_UNLOCK (self);
  if (!self->outcaps)
    return GST_FLOW_NOT_NEGOTIATED;
  if ((dirty || !self->enc) && !gst_sci_j2k_enc_configure (self))
    return GST_FLOW_NOT_NEGOTIATED;
  if (!ensure_pool (self))
    return GST_FLOW_ERROR;
  return gst_sci_coded_pool_acquire (&self->out, trans, inbuf, outbuf);
}

static gboolean
map_frame (GstSciJ2kEnc * self, GstVideoFrame * frame, GstBuffer * inbuf)
{
  if (gst_video_frame_map (frame, &self->in_info, inbuf, GST_MAP_READ))
    return TRUE;
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Input buffer of %" G_GSIZE_FORMAT " bytes does not hold a %s "
          "%dx%d frame (%" G_GSIZE_FORMAT " bytes)",
          gst_buffer_get_size (inbuf), GST_VIDEO_INFO_NAME (&self->in_info),
          GST_VIDEO_INFO_WIDTH (&self->in_info),
          GST_VIDEO_INFO_HEIGHT (&self->in_info),
          GST_VIDEO_INFO_SIZE (&self->in_info)), (NULL));
  return FALSE;
}

/* Maps wavelet input (GST_MAP_CUDA in `extra`: device addresses). */
static gboolean
map_coefficients (GstSciJ2kEnc * self, GstBuffer * inbuf, GstMapInfo * in,
    GstMapFlags extra)
{
  if (!gst_buffer_map (inbuf, in, GST_MAP_READ | extra)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map input buffer"),
        (NULL));
    return FALSE;
  }
  if (in->size < self->winfo.size) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input buffer of %" G_GSIZE_FORMAT " bytes is smaller than the %"
            G_GSIZE_FORMAT " bytes of coefficients the caps describe",
            in->size, self->winfo.size), (NULL));
    gst_buffer_unmap (inbuf, in);
    return FALSE;
  }
  return TRUE;
}

/* What the encoders return when the codestream outgrows a buffer smaller
 * than max_bytes (nothing posted): transform gives the frame a larger
 * one. */
#define FLOW_TOO_SMALL GST_FLOW_CUSTOM_ERROR_1

/* Rare (see pool_size): outbuf gets memory of its own at the bound, whose
 * pages are touched only as far as the codestream goes.  FALSE (error
 * posted) when there is none. */
static gboolean
give_bound_memory (GstSciJ2kEnc * self, GstBuffer * outbuf)
{
  GstMemory *mem = gst_allocator_alloc (NULL, self->max_bytes, NULL);

  GST_DEBUG_OBJECT (self, "the frame needs more than the %" G_GSIZE_FORMAT
      " bytes of the pool's buffers: coding it into %" G_GSIZE_FORMAT,
      self->pool_bytes, self->max_bytes);
  if (!mem) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Cannot allocate a %" G_GSIZE_FORMAT "-byte output buffer",
            self->max_bytes), (NULL));
    return FALSE;
  }
  gst_buffer_replace_all_memory (outbuf, mem);
  return TRUE;
}

/* One frame through the C reference: the wavelet transform (raw input) and
 * the encoder.  *written gets the coded bytes. */
static GstFlowReturn
encode_frame_cpu (GstSciJ2kEnc * self, GstBuffer * inbuf, guint8 * out,
    gsize cap, gsize * written)
{
  GstMapInfo in = GST_MAP_INFO_INIT;
  const void *coeffs;

  if (self->wavelet_in) {
    if (!map_coefficients (self, inbuf, &in, 0))
      return GST_FLOW_ERROR;
    coeffs = in.data;
    if ((guintptr) in.data % 4) {
      /* samples are read as int32 or float */
      if (!self->coeffs)
        self->coeffs = g_malloc (self->winfo.size);
      memcpy (self->coeffs, in.data, self->winfo.size);
      coeffs = self->coeffs;
    }
  } else {
    sci_wt_plane planes[SCI_WT_MAX_COMPONENTS];
    GstVideoFrame frame;
    int err;

    /* not made at configure when the CUDA backend was to run */
    if (!self->coeffs && !(self->coeffs = g_try_malloc (self->winfo.size))) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Cannot allocate %" G_GSIZE_FORMAT " bytes of coefficients",
              self->winfo.size), (NULL));
      return GST_FLOW_ERROR;
    }
    if (!map_frame (self, &frame, inbuf))
      return GST_FLOW_ERROR;
    gst_wavelet_planes_from_frame (&frame, planes);
    err =
        sci_wt_forward (gst_sci_filter_pool (GST_SCI_FILTER (self)),
        &self->winfo.geom, planes, self->coeffs);
    gst_video_frame_unmap (&frame);
    if (err) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Out of memory for the wavelet transform scratch"), (NULL));
      return GST_FLOW_ERROR;
    }
    coeffs = self->coeffs;
  }

  *written = sci_htj2k_encode (self->enc, coeffs, out, cap);
  if (in.memory)
    gst_buffer_unmap (inbuf, &in);
  if (*written == 0 && cap < self->max_bytes)
    return FLOW_TOO_SMALL;
  if (*written == 0) {
    GST_ELEMENT_ERROR (self, STREAM, ENCODE,
        ("The JPEG 2000 encoder refused the frame"),
        ("sci_htj2k_encode returned 0 with a %" G_GSIZE_FORMAT "-byte "
            "buffer (magnitudes beyond the signalled bit-planes?)", cap));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

#if HAVE_CUDA
/* What a CUDA failure of encode_frame_cuda returns: the caller may fall
 * back to the CPU (it has posted nothing). */
#define FLOW_CUDA_FAILED GST_FLOW_CUSTOM_ERROR

static gpointer
lane_stream (GstSciJ2kEnc * self, guint j)
{
  return j ? self->stream1 : GST_SCI_FILTER (self)->cuda.stream;
}

/* Maps inbuf into f (which takes a reference): raw video in CUDA memory
 * for its device addresses where that works, else on the host.  FALSE
 * (error posted) when the buffer does not hold a frame. */
static gboolean
flight_map (GstSciJ2kEnc * self, GstSciJ2kFlight * f, GstBuffer * inbuf)
{
  GstSciCuda *cuda = &GST_SCI_FILTER (self)->cuda;
  gboolean in_dev = gst_buffer_n_memory (inbuf) == 1
      && gst_sci_cuda_buffer_is_device (cuda, inbuf);

  memset (f, 0, sizeof (*f));
  if (self->wavelet_in) {
    if (!map_coefficients (self, inbuf, &f->map, in_dev ? GST_MAP_CUDA : 0))
      return FALSE;
  } else {
    f->video = TRUE;
    if (in_dev && !gst_sci_cuda_map_device_frame (&f->frame, &self->in_info,
            inbuf, GST_MAP_READ)) {
      GST_DEBUG_OBJECT (self, "cannot map the CUDA input in place: staging");
      in_dev = FALSE;
    }
    if (!in_dev && !map_frame (self, &f->frame, inbuf))
      return FALSE;
  }
  f->mapped = TRUE;
  f->in_dev = in_dev;
  f->inbuf = gst_buffer_ref (inbuf);
  return TRUE;
}

static void
flight_unmap (GstSciJ2kFlight * f)
{
  if (!f->mapped)
    return;
  if (f->video)
    gst_video_frame_unmap (&f->frame);
  else
    gst_buffer_unmap (f->inbuf, &f->map);
  f->mapped = FALSE;
}

static void
flight_clear (GstSciJ2kFlight * f)
{
  flight_unmap (f);
  gst_clear_buffer (&f->inbuf);
  f->on_cpu = FALSE;
}

/* Queues on lane j's stream what brings frame f's coefficients to the
 * device: the upload of raw video or coefficients in system memory into
 * the lane's staging, the wavelet transform of raw video; *coeffs gets
 * their device address.  Call with the context pushed.  FALSE when a CUDA
 * call failed (*what and *err say which). */
static gboolean
stage_input (GstSciJ2kEnc * self, guint j, GstSciJ2kFlight * f,
    gconstpointer * coeffs, const gchar ** what, gint * err)
{
  GstSciCuda *cuda = &GST_SCI_FILTER (self)->cuda;
  gpointer stream = lane_stream (self, j);
  sci_wt_plane planes[SCI_WT_MAX_COMPONENTS];
  GstVideoFrame staged;
  gpointer dev = NULL;

  if (!(self->wavelet_in && f->in_dev)) {
    dev = gst_sci_cuda_staging (cuda, 2 * j + 1, self->winfo.size, err);
    if (!dev) {
      *what = "coefficient buffer";
      return FALSE;
    }
  }
  if (self->wavelet_in) {
    *coeffs = f->map.data;
    if (!f->in_dev) {
      if ((*err = gst_sci_cuda_copy_on (stream, dev, f->map.data,
                  self->winfo.size))) {
        *what = "coefficient upload";
        return FALSE;
      }
      *coeffs = dev;
    }
    return TRUE;
  }
  if (f->in_dev) {
    gst_wavelet_planes_from_frame (&f->frame, planes);
  } else {
    if ((*err = gst_sci_cuda_stage_frame_on (cuda, stream, &f->frame, 2 * j,
                TRUE, &staged))) {
      *what = "input upload";
      return FALSE;
    }
    gst_wavelet_planes_from_frame (&staged, planes);
  }
  if ((*err = sci_cuda_wt_forward (self->wt[j], planes, dev, stream))) {
    *what = "forward transform";
    return FALSE;
  }
  *coeffs = dev;
  return TRUE;
}

/* What the block coders' errors mean for a frame coded into a buffer of
 * cap bytes: FLOW_TOO_SMALL (a larger buffer will do), an error of the
 * data (posted: the C reference would refuse the frame too), a CUDA
 * failure, or success. */
static GstFlowReturn
cuda_coded (GstSciJ2kEnc * self, gsize cap, const gchar * what, gint err)
{
  if ((err == SCI_CUDA_HT_ERR_CAP || err == SCI_CUDA_T1_ERR_CAP)
      && cap < self->max_bytes)
    return FLOW_TOO_SMALL;
  if (err == SCI_CUDA_HT_ERR_BLOCK || err == SCI_CUDA_HT_ERR_CAP
      || err == SCI_CUDA_T1_ERR_BLOCK || err == SCI_CUDA_T1_ERR_CAP) {
    GST_ELEMENT_ERROR (self, STREAM, ENCODE,
        ("The JPEG 2000 encoder refused the frame"),
        ("%s with a %" G_GSIZE_FORMAT "-byte buffer: %s", what, cap,
            sci_cuda_error_string (err)));
    return GST_FLOW_ERROR;
  }
  return what ? FLOW_CUDA_FAILED : GST_FLOW_OK;
}

/* One frame through the kernels, lane 0: raw video in CUDA memory read in
 * place (else uploaded into staging slot 0) and transformed into the
 * device coefficients (staging slot 1), or coefficients in CUDA memory
 * read in place (else uploaded into slot 1); then block coding on the
 * device and tier-2 on the host into `out` (the coders synchronize, so
 * the input may be unmapped after them).  On FLOW_CUDA_FAILED, *what and
 * *err say what failed. */
static GstFlowReturn
encode_frame_cuda (GstSciJ2kEnc * self, GstBuffer * inbuf, guint8 * out,
    gsize cap, gsize * written, const gchar ** what, gint * err)
{
  GstSciCuda *cuda = &GST_SCI_FILTER (self)->cuda;
  GstSciJ2kFlight f;
  gconstpointer coeffs;

  *what = NULL;
  *err = 0;
  if (!flight_map (self, &f, inbuf))
    return GST_FLOW_ERROR;
  if (!gst_sci_cuda_push (cuda)) {
    *what = "context push";
  } else {
    if (!stage_input (self, 0, &f, &coeffs, what, err)) {
      /* *what says it */
    } else if (self->ht) {
      *err = sci_cuda_ht_encode (self->ht, coeffs, out, cap, written,
          cuda->stream);
      if (*err)
        *what = "HT encoding";
    } else {
      *err = sci_cuda_t1_encode (self->t1[0], coeffs, out, cap, written,
          cuda->stream);
      if (*err)
        *what = "EBCOT encoding";
    }
    if (*what)
      cudaGetLastError ();      /* clear what is not sticky */
    gst_sci_cuda_pop ();
  }
  flight_clear (&f);
  return cuda_coded (self, cap, *what, *err);
}

/* Whether frames go through the lanes two at a time: ebcotcm on the CUDA
 * backend with both lanes made. */
static gboolean
pipelined (GstSciJ2kEnc * self)
{
  return GST_SCI_FILTER (self)->use_cuda && self->t1[0] && self->t1[1];
}

static guint
frames_in_flight (GstSciJ2kEnc * self)
{
  return (self->flight[0].inbuf != NULL) + (self->flight[1].inbuf != NULL);
}

/* The lane of the oldest frame in flight (frames_in_flight () > 0). */
static guint
oldest_lane (GstSciJ2kEnc * self)
{
  guint j = self->next_lane;

  return self->flight[j].inbuf ? j : j ^ 1;
}

/* The CUDA backend failed with frames in flight: where the stream may
 * still change backend (nothing has left yet), every frame in flight is
 * marked for the CPU (its input is kept) and the device state goes; else
 * the error is posted and FALSE returned. */
static gboolean
flight_cuda_failed (GstSciJ2kEnc * self, const gchar * what, gint err)
{
  guint j;

  if (!gst_sci_filter_frame_cuda_failed (GST_SCI_FILTER (self), self->sent,
          what, err))
    return FALSE;
  for (j = 0; j < 2; j++) {
    flight_unmap (&self->flight[j]);
    self->flight[j].on_cpu = self->flight[j].inbuf != NULL;
  }
  release_cuda (self);
  GST_INFO_OBJECT (self, "backend: CPU (C reference) from now on");
  return TRUE;
}

/* Queues inbuf's coding on the next lane (the lane takes a reference).
 * GST_FLOW_OK, GST_FLOW_ERROR (posted), or FLOW_CUDA_FAILED once the CPU
 * has taken over (inbuf is then the caller's to code). */
static GstFlowReturn
flight_submit (GstSciJ2kEnc * self, GstBuffer * inbuf)
{
  GstSciCuda *cuda = &GST_SCI_FILTER (self)->cuda;
  guint j = self->next_lane;
  GstSciJ2kFlight *f = &self->flight[j];
  const gchar *what = NULL;
  gconstpointer coeffs;
  gint err = 0;

  g_assert (f->inbuf == NULL);
  if (!flight_map (self, f, inbuf))
    return GST_FLOW_ERROR;
  if (!gst_sci_cuda_push (cuda)) {
    what = "context push";
  } else {
    if (stage_input (self, j, f, &coeffs, &what, &err)
        && (err = sci_cuda_t1_submit (self->t1[j], coeffs,
                lane_stream (self, j))))
      what = "EBCOT encoding";
    if (what)
      cudaGetLastError ();
    gst_sci_cuda_pop ();
  }
  if (what) {
    flight_clear (f);
    return flight_cuda_failed (self, what, err) ? FLOW_CUDA_FAILED :
        GST_FLOW_ERROR;
  }
  self->next_lane = j ^ 1;
  return GST_FLOW_OK;
}

/* The codestream of lane j's finished Tier-1 into outbuf, given a buffer
 * of its own at the bound when the pool's is too small. */
static GstFlowReturn
flight_write (GstSciJ2kEnc * self, guint j, GstBuffer * outbuf)
{
  GstMapInfo out;
  gsize written = 0;
  gint err;

  if (!gst_buffer_map (outbuf, &out, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  err = sci_cuda_t1_write (self->t1[j], out.data, out.size, &written);
  gst_buffer_unmap (outbuf, &out);
  if (err == SCI_CUDA_T1_ERR_CAP && out.size < self->max_bytes) {
    if (!give_bound_memory (self, outbuf)
        || !gst_buffer_map (outbuf, &out, GST_MAP_WRITE))
      return GST_FLOW_ERROR;
    err = sci_cuda_t1_write (self->t1[j], out.data, out.size, &written);
    gst_buffer_unmap (outbuf, &out);
  }
  if (err) {
    /* cuda_coded posts the errors of the data */
    if (cuda_coded (self, self->max_bytes, "EBCOT encoding", err) !=
        GST_FLOW_ERROR)
      GST_ELEMENT_ERROR (self, STREAM, ENCODE,
          ("The JPEG 2000 encoder failed"), ("tier-2: %s",
              sci_cuda_error_string (err)));
    return GST_FLOW_ERROR;
  }
  gst_buffer_set_size (outbuf, written);
  self->sent = TRUE;
  return GST_FLOW_OK;
}
#endif

/* One frame into outbuf's memory, on the CUDA backend while it works (a
 * CUDA failure before the first frame has left hands the stream to the
 * CPU); FLOW_TOO_SMALL when the memory cannot hold it. */
static GstFlowReturn
encode_into (GstSciJ2kEnc * self, GstBuffer * inbuf, GstBuffer * outbuf,
    gsize * written)
{
#if HAVE_CUDA
  GstSciFilter *base = GST_SCI_FILTER (self);
#endif
  GstMapInfo out;
  GstFlowReturn ret;

  if (!gst_buffer_map (outbuf, &out, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
#if HAVE_CUDA
  if (base->use_cuda && (self->ht || self->t1[0])) {
    const gchar *what;
    gint err;

    ret = encode_frame_cuda (self, inbuf, out.data, out.size, written, &what,
        &err);
    if (ret == FLOW_CUDA_FAILED) {
      if (!gst_sci_filter_frame_cuda_failed (base, self->sent, what, err)) {
        ret = GST_FLOW_ERROR;
      } else {
        release_cuda (self);
        GST_INFO_OBJECT (self, "backend: CPU (C reference) from now on");
        ret = encode_frame_cpu (self, inbuf, out.data, out.size, written);
      }
    }
  } else
#endif
    ret = encode_frame_cpu (self, inbuf, out.data, out.size, written);
  gst_buffer_unmap (outbuf, &out);
  return ret;
}

static GstFlowReturn
gst_sci_j2k_enc_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (trans);
  GstFlowReturn ret;
  gsize written = 0;

  ret = encode_into (self, inbuf, outbuf, &written);
  if (ret == FLOW_TOO_SMALL) {
    if (!give_bound_memory (self, outbuf))
      return GST_FLOW_ERROR;
    ret = encode_into (self, inbuf, outbuf, &written);
  }
  if (ret == GST_FLOW_OK) {
    gst_buffer_set_size (outbuf, written);
    self->sent = TRUE;
    if (self->params.bitrate > 0)
      GST_LOG_OBJECT (self, "%" G_GSIZE_FORMAT " bytes, qstep %g for bitrate "
          "%g", written, sci_htj2k_last_qstep (self->enc),
          self->params.bitrate);
  }
  return ret;
}

#if HAVE_CUDA
/* The oldest frame in flight leaves: its codestream (Tier-1 from the GPU,
 * or the CPU's once the backend failed) in an output buffer with its
 * input's metadata. */
static GstFlowReturn
flight_finish (GstSciJ2kEnc * self, GstBuffer ** outbuf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstSciCuda *cuda = &GST_SCI_FILTER (self)->cuda;
  guint j = oldest_lane (self);
  GstSciJ2kFlight *f = &self->flight[j];
  GstBuffer *inbuf = gst_buffer_ref (f->inbuf);
  gboolean on_cpu = f->on_cpu;
  const gchar *what = NULL;
  GstFlowReturn ret;
  gint err = 0;

  *outbuf = NULL;
  if (!on_cpu) {
    if (!gst_sci_cuda_push (cuda)) {
      what = "context push";
    } else {
      if ((err = sci_cuda_t1_finish (self->t1[j])))
        what = "EBCOT encoding";
      if (what)
        cudaGetLastError ();
      gst_sci_cuda_pop ();
    }
  }
  /* the device is done with the input */
  flight_clear (f);
  if (what) {
    ret = cuda_coded (self, self->max_bytes, what, err);
    if (ret != FLOW_CUDA_FAILED || !flight_cuda_failed (self, what, err)) {
      ret = GST_FLOW_ERROR;
      goto out;
    }
    on_cpu = TRUE;
  }
  if (!ensure_pool (self)) {
    ret = GST_FLOW_ERROR;
    goto out;
  }
  ret = gst_sci_coded_pool_acquire (&self->out, trans, inbuf, outbuf);
  if (ret == GST_FLOW_OK)
    ret = on_cpu ? gst_sci_j2k_enc_transform (trans, inbuf, *outbuf) :
        flight_write (self, j, *outbuf);
out:
  if (ret != GST_FLOW_OK)
    gst_clear_buffer (outbuf);
  gst_buffer_unref (inbuf);
  return ret;
}

/* Frames in flight forgotten (flushing, stopping, an encoder made again),
 * once the device has stopped reading their input. */
static void
flight_drop (GstSciJ2kEnc * self)
{
  guint j;

  for (j = 0; j < 2; j++) {
    GstSciJ2kFlight *f = &self->flight[j];

    if (!f->inbuf)
      continue;
    if (!f->on_cpu && gst_sci_cuda_push (&GST_SCI_FILTER (self)->cuda)) {
      cudaStreamSynchronize ((cudaStream_t) lane_stream (self, j));
      cudaGetLastError ();
      gst_sci_cuda_pop ();
    }
    GST_DEBUG_OBJECT (self, "dropping a frame in flight");
    flight_clear (f);
  }
  self->next_lane = 0;
}

/* Every frame in flight pushed downstream, oldest first. */
static GstFlowReturn
flight_drain (GstSciJ2kEnc * self)
{
  GstFlowReturn ret = GST_FLOW_OK;

  while (ret == GST_FLOW_OK && frames_in_flight (self)) {
    GstBuffer *outbuf;

    ret = flight_finish (self, &outbuf);
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), outbuf);
  }
  if (ret != GST_FLOW_OK) {
    GST_DEBUG_OBJECT (self, "draining: %s", gst_flow_get_name (ret));
    flight_drop (self);
  }
  return ret;
}
#endif

#if HAVE_CUDA
/* With two frames in flight (ebcotcm on CUDA), a frame's Tier-1 is queued
 * on the GPU and the frame before it leaves while it runs: the host's
 * tier-2 of one frame overlaps the next one's kernels.  Otherwise one
 * frame in, one frame out, through transform. */
static GstFlowReturn
generate (GstSciJ2kEnc * self, GstBuffer ** outbuf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstBuffer *inbuf;
  gboolean dirty;
  GstFlowReturn ret;

  GST_OBJECT_LOCK (self);
  dirty = self->dirty;
  GST_OBJECT_UNLOCK (self);
  /* frames in flight leave before the encoder is made again or frames
   * stop taking turns; the queued one waits for the next call */
  if (frames_in_flight (self) && (dirty || !pipelined (self)))
    return flight_finish (self, outbuf);
  if ((dirty || !self->enc) && self->outcaps
      && !gst_sci_j2k_enc_configure (self))
    return GST_FLOW_NOT_NEGOTIATED;
  if (pipelined (self)) {
    inbuf = trans->queued_buf;
    trans->queued_buf = NULL;
    ret = flight_submit (self, inbuf);
    if (ret != FLOW_CUDA_FAILED) {
      gst_buffer_unref (inbuf);
      if (ret != GST_FLOW_OK || frames_in_flight (self) < 2)
        return ret;
      return flight_finish (self, outbuf);
    }
    /* the CPU codes it, after the frames in flight */
    trans->queued_buf = inbuf;
    if (frames_in_flight (self))
      return flight_finish (self, outbuf);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
      outbuf);
}

static GstFlowReturn
gst_sci_j2k_enc_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstFlowReturn ret;

  *outbuf = NULL;
  if (!trans->queued_buf)
    return GST_FLOW_OK;
  ret = generate (GST_SCI_J2K_ENC (trans), outbuf);
  /* a frame not taken when the stream stops is dropped here */
  if (ret != GST_FLOW_OK)
    gst_clear_buffer (&trans->queued_buf);
  return ret;
}

/* Serialized events keep their place after the frames before them:
 * those in flight leave first (EOS drains); a flush drops them. */
static gboolean
gst_sci_j2k_enc_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (trans);

  if (frames_in_flight (self)) {
    if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
      flight_drop (self);
    else if (GST_EVENT_IS_SERIALIZED (event))
      flight_drain (self);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* A drain query lets the frames in flight leave; they add a frame to the
 * latency. */
static gboolean
gst_sci_j2k_enc_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (trans);
  gint fn = 0, fd = 1;
  GstClockTime min, max, frame;
  GstCaps *caps;
  gboolean live;

  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_DRAIN
      && frames_in_flight (self))
    flight_drain (self);
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query))
    return FALSE;
  if (GST_QUERY_TYPE (query) != GST_QUERY_LATENCY || direction != GST_PAD_SRC
      || !pipelined (self))
    return TRUE;
  /* any thread may ask: the pad's caps, not incaps */
  caps = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD (trans));
  if (caps) {
    gst_structure_get_fraction (gst_caps_get_structure (caps, 0), "framerate",
        &fn, &fd);
    gst_caps_unref (caps);
  }
  if (fn <= 0 || fd <= 0)
    return TRUE;
  gst_query_parse_latency (query, &live, &min, &max);
  frame = gst_util_uint64_scale_int (GST_SECOND, fd, fn);
  GST_DEBUG_OBJECT (self, "frames in flight: %" GST_TIME_FORMAT " more",
      GST_TIME_ARGS (frame));
  gst_query_set_latency (query, live, min + frame,
      GST_CLOCK_TIME_IS_VALID (max) ? max + frame : max);
  return TRUE;
}
#endif

/* Everything a stream made: at stop and at finalize. */
static void
release_all (GstSciJ2kEnc * self)
{
  release_encoder (self);
  gst_sci_coded_pool_clear (&self->out);
  gst_clear_object (&self->host_allocator);
  gst_clear_caps (&self->incaps);
  gst_clear_caps (&self->outcaps);
  self->sent = FALSE;
}

static gboolean
gst_sci_j2k_enc_stop (GstBaseTransform * trans)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (trans);

  /* before the base class drops the CUDA context */
  release_all (self);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
}

static void
gst_sci_j2k_enc_finalize (GObject * object)
{
  release_all (GST_SCI_J2K_ENC (object));
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_sci_j2k_enc_class_init (GstSciJ2kEncClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  GstCaps *caps;

  gobject_class->set_property = gst_sci_j2k_enc_set_property;
  gobject_class->get_property = gst_sci_j2k_enc_get_property;
  gobject_class->finalize = gst_sci_j2k_enc_finalize;

  g_object_class_install_property (gobject_class, PROP_REVERSIBLE,
      g_param_spec_boolean ("reversible", "Reversible",
          "Lossless coding: 5/3 wavelet and RCT (3 components).  false: "
          "9/7 wavelet and ICT, quantised by qstep or bitrate.  With "
          "application/x-wavelet input it must agree with the caps' filter",
          DEFAULT_REVERSIBLE, flags));
  g_object_class_install_property (gobject_class, PROP_QSTEP,
      g_param_spec_double ("qstep", "Quantisation step",
          "Irreversible only: base quantisation step relative to the full "
          "sample range (as ojph_compress -qstep); each subband's step is "
          "this over its synthesis gain.  Smaller keeps more detail in more "
          "bytes; 2^-depth is one sample unit (the default 1/256: 8 bits); "
          "1e-9 is about the finest step that 30 bit-planes a subband "
          "allow", SCI_HTJ2K_MIN_QSTEP, 2.0, DEFAULT_QSTEP, flags));
  g_object_class_install_property (gobject_class, PROP_LEVELS,
      g_param_spec_uint ("levels", "Levels",
          "Wavelet decomposition levels, raw video input only (coefficients "
          "bring their own)", 0, SCI_DWT_MAX_LEVELS, DEFAULT_LEVELS, flags));
  g_object_class_install_property (gobject_class, PROP_BLOCK_WIDTH,
      g_param_spec_uint ("block-width", "Code-block width",
          "Code-block width: a power of two, 4..1024, with block-width x "
          "block-height <= 4096 (checked at negotiation)", MIN_BLOCK_SIZE,
          MAX_BLOCK_SIZE, DEFAULT_BLOCK_SIZE, flags));
  g_object_class_install_property (gobject_class, PROP_BLOCK_HEIGHT,
      g_param_spec_uint ("block-height", "Code-block height",
          "Code-block height: a power of two, 4..1024, with block-width x "
          "block-height <= 4096 (checked at negotiation)", MIN_BLOCK_SIZE,
          MAX_BLOCK_SIZE, DEFAULT_BLOCK_SIZE, flags));
  g_object_class_install_property (gobject_class, PROP_PROGRESSION,
      g_param_spec_enum ("progression", "Progression order",
          "Packet progression order of the codestream",
          GST_TYPE_SCI_J2K_PROGRESSION, DEFAULT_PROGRESSION, flags));
  g_object_class_install_property (gobject_class, PROP_COLOUR_TRANSFORM,
      g_param_spec_enum ("colour-transform", "Colour transform",
          "Component transform of raw video input: auto = RCT (reversible) or"
          " ICT when the input has 3 full-size components (RGB), none = code"
          " components independently", GST_TYPE_SCI_J2K_COLOUR, DEFAULT_COLOUR,
          flags));
  caps = gst_sci_filter_template_caps (GST_WAVELET_VIDEO_CAPS_STRING "; "
      GST_WAVELET_CAPS_STRING);
  gst_caps_set_simple (caps,
      "width", GST_TYPE_INT_RANGE, 1, SCI_HTJ2K_MAX_SIZE,
      "height", GST_TYPE_INT_RANGE, 1, SCI_HTJ2K_MAX_SIZE, NULL);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_transform_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_transform_size);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_set_caps);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_decide_allocation);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_transform);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_stop);
#if HAVE_CUDA
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_query);
#endif

  GST_SCI_FILTER_CLASS (klass)->src_is_video = FALSE;
  /* the codestream is written on the host whichever backend runs */
  GST_SCI_FILTER_CLASS (klass)->src_system_memory = TRUE;

  gst_type_mark_as_plugin_api (GST_TYPE_SCI_J2K_ENC, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_SCI_J2K_PROGRESSION, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_SCI_J2K_COLOUR, 0);
}

void
gst_sci_j2k_enc_class_setup (GstSciJ2kEncClass * klass, sci_j2k_coder coder,
    GstDebugCategory * debug)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  GstCaps *caps;

  klass->coder = coder;
  klass->debug = debug;
  /* GObject does not inherit these: the properties installed here are
   * the base's too */
  gobject_class->set_property = gst_sci_j2k_enc_set_property;
  gobject_class->get_property = gst_sci_j2k_enc_get_property;
  if (coder == SCI_J2K_CODER_HT) {
    g_object_class_install_property (gobject_class, PROP_BITRATE,
        g_param_spec_double ("bitrate", "Bit rate",
            "Irreversible only: target bits per pixel (the step meeting it "
            "replaces qstep); 0 = off.  With reversible=true negotiation "
            "fails", 0.0, MAX_BITRATE, DEFAULT_BITRATE, flags));
    g_object_class_install_property (gobject_class, PROP_JPH,
        g_param_spec_boolean ("jph", "JPH file",
            "Output the JPH file format (image/x-jph: JP2 signature, header "
            "boxes, codestream box) instead of the raw codestream "
            "(image/x-jpc)", DEFAULT_JPH, flags));
    caps = gst_caps_from_string (SRC_CAPS);
  } else {
    g_object_class_install_property (gobject_class, PROP_BITRATE,
        g_param_spec_double ("bitrate", "Bit rate",
            "Target bits per pixel of the codestream, headers included, met "
            "by truncating code-blocks at their rate-distortion convex hull "
            "(PCRD); with reversible=true too (lossy 5/3).  With it the "
            "irreversible step is at most one sample unit.  0 = off: every "
            "coding pass is kept", 0.0, MAX_BITRATE, DEFAULT_BITRATE, flags));
    g_object_class_install_property (gobject_class, PROP_LAYERS,
        g_param_spec_uint ("layers", "Quality layers",
            "Quality layers: the last holds every pass (or meets bitrate), "
            "each one before it half the bytes of the next",
            1, SCI_J2K_MAX_LAYERS, DEFAULT_LAYERS, flags));
    g_object_class_install_property (gobject_class, PROP_CODE_BLOCK_STYLE,
        g_param_spec_flags ("code-block-style", "Code-block style",
            "Code-block coding style options of COD (ISO/IEC 15444-1 Table "
            "A.19)", GST_TYPE_SCI_J2K_CODE_BLOCK_STYLE,
            DEFAULT_CODE_BLOCK_STYLE, flags));
    g_object_class_install_property (gobject_class, PROP_FRAMES_IN_FLIGHT,
        g_param_spec_uint ("frames-in-flight", "Frames in flight",
            "CUDA backend: frames coded at once.  2: a frame's wavelet "
            "transform and Tier-1 run on the GPU while the host writes the "
            "codestream of the frame before (a higher frame rate, one frame "
            "more latency, twice the block coder's device memory); 1: each "
            "frame is coded before the next is taken.  The bytes are the same",
            1, 2, DEFAULT_FRAMES_IN_FLIGHT, flags));
    gst_type_mark_as_plugin_api (GST_TYPE_SCI_J2K_CODE_BLOCK_STYLE, 0);
    caps = gst_caps_from_string (JPC_MEDIA_TYPE ", " CODED_FIELDS);
  }
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

static void
gst_sci_j2k_enc_init (GstSciJ2kEnc * self)
{
  self->reversible = DEFAULT_REVERSIBLE;
  self->qstep = DEFAULT_QSTEP;
  self->levels = DEFAULT_LEVELS;
  self->block_width = DEFAULT_BLOCK_SIZE;
  self->block_height = DEFAULT_BLOCK_SIZE;
  self->progression = DEFAULT_PROGRESSION;
  self->colour = DEFAULT_COLOUR;
  self->bitrate = DEFAULT_BITRATE;
  self->jph = DEFAULT_JPH;
  self->layers = DEFAULT_LAYERS;
  self->cb_style = DEFAULT_CODE_BLOCK_STYLE;
  self->frames_in_flight = DEFAULT_FRAMES_IN_FLIGHT;
  gst_sci_coded_pool_init (&self->out, TRUE);
}
