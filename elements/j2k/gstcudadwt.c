/**
 * SECTION:element-cudadwt
 * @title: cudadwt
 *
 * The forward two-dimensional discrete wavelet transform of JPEG 2000
 * Part 1: DC level shift, optional colour transform (RCT or ICT) and the
 * 5/3 reversible or 9/7 irreversible transform, `levels` deep, on every
 * component of each video frame.  It outputs application/x-wavelet
 * coefficients (docs/media-types.md) for an encoder or for cudaidwt.
 *
 * Buffers may be in system memory or in CUDA memory
 * (video/x-raw(memory:CUDAMemory), from cudaupload); with a usable device
 * the CUDA kernels run, else the C reference on the CPU.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=I420_10LE ! cudaupload ! \
 *     cudadwt levels=5 ! cudaidwt ! cudadownload ! fakesink
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGB ! \
 *     cudadwt filter=9-7 ! cudaidwt ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudadwt.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_dwt_debug);
#define GST_CAT_DEFAULT gst_cuda_dwt_debug

enum
{
  PROP_0,
  PROP_FILTER,
  PROP_LEVELS,
  PROP_COLOUR_TRANSFORM,
};

#define DEFAULT_FILTER SCI_DWT_53
#define DEFAULT_LEVELS 5
#define DEFAULT_COLOUR GST_SCI_COLOUR_AUTO

#define gst_cuda_dwt_parent_class parent_class
G_DEFINE_TYPE (GstCudaDwt, gst_cuda_dwt, GST_TYPE_SCI_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudadwt, "cudadwt", GST_RANK_NONE,
    GST_TYPE_CUDA_DWT);

static void
gst_cuda_dwt_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaDwt *self = GST_CUDA_DWT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FILTER:
      self->filter = g_value_get_enum (value);
      break;
    case PROP_LEVELS:
      self->levels = g_value_get_uint (value);
      break;
    case PROP_COLOUR_TRANSFORM:
      self->colour = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  /* Each of these changes the output caps. */
  gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_cuda_dwt_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaDwt *self = GST_CUDA_DWT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FILTER:
      g_value_set_enum (value, self->filter);
      break;
    case PROP_LEVELS:
      g_value_set_uint (value, self->levels);
      break;
    case PROP_COLOUR_TRANSFORM:
      g_value_set_enum (value, self->colour);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static GstCaps *
gst_cuda_dwt_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCudaDwt *self = GST_CUDA_DWT (trans);
  GstCaps *result = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *in = gst_caps_get_structure (caps, i);
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    GstStructure *out;
    GstCaps *one;

    if (direction == GST_PAD_SINK) {
      out = gst_wavelet_structure_from_video (in);
      GST_OBJECT_LOCK (self);
      gst_structure_set (out,
          "filter", G_TYPE_STRING, gst_wavelet_filter_to_string (self->filter),
          "levels", G_TYPE_INT, (gint) self->levels,
          "format", G_TYPE_STRING, self->filter == SCI_DWT_53 ? "S32" : "F32",
          NULL);
      GST_OBJECT_UNLOCK (self);
    } else {
      out = gst_wavelet_structure_to_video (in);
      if (!out) {
        GstCaps *tmpl = gst_caps_from_string (GST_WAVELET_VIDEO_CAPS_STRING);
        out = gst_structure_copy (gst_caps_get_structure (tmpl, 0));
        gst_caps_unref (tmpl);
      }
    }
    one = gst_caps_new_full (out, NULL);
    result =
        gst_caps_merge (result,
        gst_sci_filter_with_features (GST_SCI_FILTER (self), one, features));
    gst_caps_unref (one);
  }

  return gst_sci_filter_finish_caps (GST_SCI_FILTER (self), direction, caps,
      result, filter);
}

static GstCaps *
gst_cuda_dwt_fixate_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * othercaps)
{
  GstCudaDwt *self = GST_CUDA_DWT (trans);
  GstVideoInfo vinfo;
  GstWaveletInfo info;
  GstCaps *wanted, *result;
  const gchar *why;

  if (direction != GST_PAD_SINK || !gst_video_info_from_caps (&vinfo, caps))
    return gst_caps_fixate (othercaps);

  GST_OBJECT_LOCK (self);
  why = gst_wavelet_info_from_video (&info, &vinfo, self->filter,
      self->levels, self->colour);
  GST_OBJECT_UNLOCK (self);
  if (why) {
    GST_WARNING_OBJECT (self, "cannot transform %" GST_PTR_FORMAT ": %s",
        caps, why);
    return gst_caps_fixate (othercaps);
  }
  wanted = gst_caps_new_full (gst_wavelet_info_to_structure (&info,
          gst_caps_get_structure (caps, 0)), NULL);
  if (!gst_caps_is_empty (othercaps))
    gst_caps_set_features (wanted, 0,
        gst_caps_features_copy (gst_caps_get_features (othercaps, 0)));
  result = gst_caps_intersect (wanted, othercaps);
  gst_caps_unref (wanted);
  if (gst_caps_is_empty (result)) {
    gst_caps_unref (result);
    return gst_caps_fixate (othercaps);
  }
  gst_caps_unref (othercaps);
  return gst_caps_fixate (result);
}

static gboolean
gst_cuda_dwt_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  if (direction == GST_PAD_SINK) {
    GstWaveletInfo info;

    if (gst_wavelet_info_from_caps (&info, othercaps))
      return FALSE;
    *othersize = info.size;
  } else {
    GstVideoInfo info;

    if (!gst_video_info_from_caps (&info, othercaps))
      return FALSE;
    *othersize = info.size;
  }
  return TRUE;
}

static gboolean
gst_cuda_dwt_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaDwt *self = GST_CUDA_DWT (trans);
  GstSciFilter *base = GST_SCI_FILTER (trans);
  GstWaveletInfo want;
  const gchar *why;

  if (!gst_video_info_from_caps (&self->in_info, incaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Invalid input caps %" GST_PTR_FORMAT, incaps), (NULL));
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  why = gst_wavelet_info_from_video (&want, &self->in_info, self->filter,
      self->levels, self->colour);
  GST_OBJECT_UNLOCK (self);
  if (why) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot transform %s %dx%d: %s",
            GST_VIDEO_INFO_NAME (&self->in_info),
            GST_VIDEO_INFO_WIDTH (&self->in_info),
            GST_VIDEO_INFO_HEIGHT (&self->in_info), why), (NULL));
    return FALSE;
  }
  why = gst_wavelet_info_from_caps (&self->out_info, outcaps);
  if (why || memcmp (&want.geom, &self->out_info.geom, sizeof (want.geom))) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Output caps %" GST_PTR_FORMAT " do not describe the transform "
            "of the input", outcaps), ("%s", why ? why : "geometry differs"));
    return FALSE;
  }
  if (!gst_sci_filter_set_memory (base, incaps, outcaps))
    return FALSE;

#if HAVE_CUDA
  if (base->backend.use_cuda && gst_sci_cuda_push (&base->backend.cuda)) {
    gint err;

    g_clear_pointer (&self->wt, sci_cuda_wt_destroy);
    err = sci_cuda_wt_create (&self->wt, &self->out_info.geom);
    gst_sci_cuda_pop ();
    if (err && !gst_sci_filter_cuda_failed (base, "device scratch", err))
      return FALSE;
  }
#endif
  GST_INFO_OBJECT (self, "%s %ux%u, %u components, depth %u: %s, %u levels,"
      " colour transform %s, %s backend, %s memory in, %s memory out",
      GST_VIDEO_INFO_NAME (&self->in_info), want.geom.width,
      want.geom.height, want.geom.components, want.geom.depth,
      gst_wavelet_filter_to_string (want.geom.filter), want.geom.levels,
      gst_wavelet_colour_to_string (want.geom.ct),
      base->backend.use_cuda ? "CUDA" : "CPU",
      base->backend.in_cuda_memory ? "CUDA" : "system",
      base->backend.out_cuda_memory ? "CUDA" : "system");
  return TRUE;
}

static gboolean
gst_cuda_dwt_stop (GstBaseTransform * trans)
{
#if HAVE_CUDA
  GstCudaDwt *self = GST_CUDA_DWT (trans);
  GstSciFilter *base = GST_SCI_FILTER (trans);

  if (self->wt && gst_sci_cuda_push (&base->backend.cuda)) {
    g_clear_pointer (&self->wt, sci_cuda_wt_destroy);
    gst_sci_cuda_pop ();
  }
#endif
  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
}

static gboolean
map_input (GstCudaDwt * self, GstVideoFrame * frame, GstBuffer * inbuf,
    GstMapFlags extra)
{
  if (gst_video_frame_map (frame, &self->in_info, inbuf, GST_MAP_READ | extra))
    return TRUE;
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Input buffer of %" G_GSIZE_FORMAT " bytes does not hold a %s %dx%d "
          "frame (%" G_GSIZE_FORMAT " bytes)", gst_buffer_get_size (inbuf),
          GST_VIDEO_INFO_NAME (&self->in_info),
          GST_VIDEO_INFO_WIDTH (&self->in_info),
          GST_VIDEO_INFO_HEIGHT (&self->in_info),
          GST_VIDEO_INFO_SIZE (&self->in_info)), (NULL));
  return FALSE;
}

static GstFlowReturn
transform_cpu (GstCudaDwt * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  sci_wt_plane planes[SCI_WT_MAX_COMPONENTS];
  GstVideoFrame frame;
  GstMapInfo out;
  int ret;

  if (!map_input (self, &frame, inbuf, 0))
    return GST_FLOW_ERROR;
  if (!gst_buffer_map (outbuf, &out, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&frame);
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  gst_wavelet_planes_from_frame (&frame, planes);
  ret =
      sci_wt_forward (gst_sci_filter_pool (GST_SCI_FILTER (self)),
      &self->out_info.geom, planes, out.data);
  gst_buffer_unmap (outbuf, &out);
  gst_video_frame_unmap (&frame);
  if (ret) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of memory for the wavelet transform scratch"), (NULL));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

#if HAVE_CUDA
static GstFlowReturn
transform_cuda (GstCudaDwt * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstSciFilter *base = GST_SCI_FILTER (self);
  GstSciCuda *cuda = &base->backend.cuda;
  sci_wt_plane planes[SCI_WT_MAX_COMPONENTS];
  gboolean in_dev = gst_sci_cuda_buffer_is_device (cuda, inbuf);
  gboolean out_dev = gst_sci_cuda_buffer_is_device (cuda, outbuf);
  GstVideoFrame frame, staged;
  GstMapInfo out;
  gpointer coeffs;
  const gchar *what = NULL;
  gint err = 0;

  if (in_dev && !gst_sci_cuda_map_device_frame (&frame, &self->in_info, inbuf,
          GST_MAP_READ)) {
    GST_DEBUG_OBJECT (self, "cannot map the CUDA input in place: staging it");
    in_dev = FALSE;
  }
  if (!in_dev && !map_input (self, &frame, inbuf, 0))
    return GST_FLOW_ERROR;
  if (!gst_buffer_map (outbuf, &out,
          GST_MAP_WRITE | (out_dev ? GST_MAP_CUDA : 0))) {
    gst_video_frame_unmap (&frame);
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (!gst_sci_cuda_push (cuda)) {
    what = "context push";
    goto done;
  }

  if (in_dev) {
    gst_wavelet_planes_from_frame (&frame, planes);
  } else {
    err = gst_sci_cuda_stage_frame (cuda, &frame, 0, TRUE, &staged);
    if (err) {
      what = "input upload";
      goto pop;
    }
    gst_wavelet_planes_from_frame (&staged, planes);
  }
  coeffs = out_dev ? out.data :
      gst_sci_cuda_staging (cuda, 1, self->out_info.size, &err);
  if (!coeffs) {
    what = "output staging";
    goto pop;
  }
  err = sci_cuda_wt_forward (self->wt, planes, coeffs, cuda->stream);
  if (err) {
    what = "forward transform";
    goto pop;
  }
  if (!out_dev && (err = gst_sci_cuda_copy (cuda, out.data, coeffs,
              self->out_info.size))) {
    what = "output download";
    goto pop;
  }
  /* 1.22 memory carries no stream: the buffer must be complete when it
   * leaves this element. */
  if ((err = gst_sci_cuda_sync (cuda)))
    what = "stream synchronisation";
pop:
  gst_sci_cuda_pop ();
done:
  gst_buffer_unmap (outbuf, &out);
  gst_video_frame_unmap (&frame);
  if (what) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("CUDA %s failed", what),
        ("%s", gst_sci_cuda_error_name (err)));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}
#endif

static GstFlowReturn
gst_cuda_dwt_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaDwt *self = GST_CUDA_DWT (trans);

  if (gst_buffer_get_size (outbuf) < self->out_info.size) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Output buffer too small"), (NULL));
    return GST_FLOW_ERROR;
  }
#if HAVE_CUDA
  if (GST_SCI_FILTER (self)->backend.use_cuda && self->wt)
    return transform_cuda (self, inbuf, outbuf);
#endif
  return transform_cpu (self, inbuf, outbuf);
}

static void
gst_cuda_dwt_class_init (GstCudaDwtClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCaps *caps;

  gobject_class->set_property = gst_cuda_dwt_set_property;
  gobject_class->get_property = gst_cuda_dwt_get_property;

  g_object_class_install_property (gobject_class, PROP_FILTER,
      g_param_spec_enum ("filter", "Filter",
          "Wavelet filter: 5-3 reversible (lossless, S32 coefficients) or "
          "9-7 irreversible (F32 coefficients)",
          GST_TYPE_SCI_DWT_FILTER, DEFAULT_FILTER,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_LEVELS,
      g_param_spec_uint ("levels", "Levels",
          "Decomposition levels (JPEG 2000 allows 0..32; levels beyond "
          "log2 of the size give empty subbands)",
          0, SCI_DWT_MAX_LEVELS, DEFAULT_LEVELS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_COLOUR_TRANSFORM,
      g_param_spec_enum ("colour-transform", "Colour transform",
          "Component transform of the first three components",
          GST_TYPE_SCI_COLOUR_MODE, DEFAULT_COLOUR,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class,
      "Wavelet transform (JPEG 2000 DWT)", "Filter/Converter/Video",
      "Forward JPEG 2000 Part 1 wavelet transform (5/3 or 9/7, RCT/ICT) "
      "of raw video into wavelet coefficients, on CUDA or the CPU",
      SCI_ELEMENT_AUTHOR);

  caps = gst_sci_template_caps (GST_WAVELET_VIDEO_CAPS_STRING);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  caps = gst_sci_template_caps (GST_WAVELET_CAPS_STRING);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cuda_dwt_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_cuda_dwt_fixate_caps);
  trans_class->transform_size = GST_DEBUG_FUNCPTR (gst_cuda_dwt_transform_size);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_dwt_set_caps);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_dwt_stop);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_dwt_transform);

  GST_SCI_FILTER_CLASS (klass)->src_is_video = FALSE;

  gst_type_mark_as_plugin_api (GST_TYPE_SCI_DWT_FILTER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_SCI_COLOUR_MODE, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_dwt_debug, "cudadwt", 0,
      "JPEG 2000 forward wavelet transform");
}

static void
gst_cuda_dwt_init (GstCudaDwt * self)
{
  self->filter = DEFAULT_FILTER;
  self->levels = DEFAULT_LEVELS;
  self->colour = DEFAULT_COLOUR;
}
