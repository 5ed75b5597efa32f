/**
 * SECTION:element-cudaidwt
 * @title: cudaidwt
 *
 * The inverse of cudadwt: application/x-wavelet coefficients back to raw
 * video in the format they came from (the caps' video-format field).  The
 * 5/3 path reconstructs the samples exactly; 9/7 rounds to the nearest
 * sample value.  Filter, levels and colour transform come from the caps.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=Y444_12LE ! cudaupload ! \
 *     cudadwt ! cudaidwt ! cudadownload ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaidwt.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_idwt_debug);
#define GST_CAT_DEFAULT gst_cuda_idwt_debug

#define gst_cuda_idwt_parent_class parent_class
G_DEFINE_TYPE (GstCudaIdwt, gst_cuda_idwt, GST_TYPE_SCI_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudaidwt, "cudaidwt", GST_RANK_NONE,
    GST_TYPE_CUDA_IDWT);

static GstCaps *
gst_cuda_idwt_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *result = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *in = gst_caps_get_structure (caps, i);
    GstStructure *out;
    GstCaps *one;

    if (direction == GST_PAD_SINK) {
      out = gst_wavelet_structure_to_video (in);
      if (!out) {
        GstCaps *tmpl = gst_caps_from_string (GST_WAVELET_VIDEO_CAPS_STRING);
        out = gst_structure_copy (gst_caps_get_structure (tmpl, 0));
        gst_caps_unref (tmpl);
      }
    } else {
      out = gst_wavelet_structure_from_video (in);
    }
    one = gst_caps_new_full (out, NULL);
    result =
        gst_caps_merge (result,
        gst_sci_filter_with_features (GST_SCI_FILTER (trans), one,
            gst_caps_get_features (caps, i)));
    gst_caps_unref (one);
  }

  return gst_sci_filter_finish_caps (GST_SCI_FILTER (trans), direction, caps,
      result, filter);
}

static GstCaps *
gst_cuda_idwt_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  GstStructure *video;
  GstCaps *wanted, *result;

  if (direction != GST_PAD_SINK || gst_caps_is_empty (othercaps) ||
      !(video = gst_wavelet_structure_to_video (gst_caps_get_structure (caps,
                  0))))
    return gst_caps_fixate (othercaps);

  wanted = gst_caps_new_full (video, NULL);
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
gst_cuda_idwt_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  if (direction == GST_PAD_SINK) {
    GstVideoInfo info;

    if (!gst_video_info_from_caps (&info, othercaps))
      return FALSE;
    *othersize = info.size;
  } else {
    GstWaveletInfo info;

    if (gst_wavelet_info_from_caps (&info, othercaps))
      return FALSE;
    *othersize = info.size;
  }
  return TRUE;
}

static void
free_scratch (GstCudaIdwt * self)
{
  GstSciFilter *base = GST_SCI_FILTER (self);

  g_clear_pointer (&self->host_scratch, g_free);
#if HAVE_CUDA
  if (self->wt && gst_sci_cuda_push (&base->backend.cuda)) {
    g_clear_pointer (&self->wt, sci_cuda_wt_destroy);
    gst_sci_cuda_pop ();
  }
#else
  (void) base;
#endif
}

static gboolean
gst_cuda_idwt_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaIdwt *self = GST_CUDA_IDWT (trans);
  GstSciFilter *base = GST_SCI_FILTER (trans);
  const gchar *why;

  why = gst_wavelet_info_from_caps (&self->in_info, incaps);
  if (why) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Invalid wavelet caps: %s", why), ("%" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  if (!gst_video_info_from_caps (&self->out_info, outcaps)
      || GST_VIDEO_INFO_FORMAT (&self->out_info) != self->in_info.video_format
      || (guint) GST_VIDEO_INFO_WIDTH (&self->out_info) !=
      self->in_info.geom.width
      || (guint) GST_VIDEO_INFO_HEIGHT (&self->out_info) !=
      self->in_info.geom.height) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Output caps %" GST_PTR_FORMAT " do not match the coefficients",
            outcaps), (NULL));
    return FALSE;
  }
  if (!gst_sci_filter_set_memory (base, incaps, outcaps))
    return FALSE;

  free_scratch (self);
#if HAVE_CUDA
  if (base->backend.use_cuda && gst_sci_cuda_push (&base->backend.cuda)) {
    gint err = sci_cuda_wt_create (&self->wt, &self->in_info.geom);

    gst_sci_cuda_pop ();
    if (err && !gst_sci_filter_cuda_failed (base, "device scratch", err))
      return FALSE;
  }
#endif
  GST_INFO_OBJECT (self, "%s %ux%u from %s, %u levels, colour transform %s,"
      " %s backend, %s memory in, %s memory out",
      GST_VIDEO_INFO_NAME (&self->out_info), self->in_info.geom.width,
      self->in_info.geom.height,
      gst_wavelet_filter_to_string (self->in_info.geom.filter),
      self->in_info.geom.levels,
      gst_wavelet_colour_to_string (self->in_info.geom.ct),
      base->backend.use_cuda ? "CUDA" : "CPU",
      base->backend.in_cuda_memory ? "CUDA" : "system",
      base->backend.out_cuda_memory ? "CUDA" : "system");
  return TRUE;
}

static gboolean
gst_cuda_idwt_stop (GstBaseTransform * trans)
{
  free_scratch (GST_CUDA_IDWT (trans));
  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
}

static gboolean
map_output (GstCudaIdwt * self, GstVideoFrame * frame, GstBuffer * outbuf,
    GstMapFlags extra)
{
  if (gst_video_frame_map (frame, &self->out_info, outbuf,
          GST_MAP_WRITE | extra))
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output frame"),
      (NULL));
  return FALSE;
}

static GstFlowReturn
transform_cpu (GstCudaIdwt * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  sci_wt_plane planes[SCI_WT_MAX_COMPONENTS];
  GstVideoFrame frame;
  gsize size = self->in_info.size;
  int ret;

  if (!self->host_scratch && !(self->host_scratch = g_try_malloc (size))) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of memory for %" G_GSIZE_FORMAT " bytes of coefficients", size),
        (NULL));
    return GST_FLOW_ERROR;
  }
  gst_buffer_extract (inbuf, 0, self->host_scratch, size);
  if (!map_output (self, &frame, outbuf, 0))
    return GST_FLOW_ERROR;
  gst_wavelet_planes_from_frame (&frame, planes);
  ret =
      sci_wt_inverse (gst_sci_filter_pool (GST_SCI_FILTER (self)),
      &self->in_info.geom, self->host_scratch, planes);
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
transform_cuda (GstCudaIdwt * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstSciFilter *base = GST_SCI_FILTER (self);
  GstSciCuda *cuda = &base->backend.cuda;
  sci_wt_plane planes[SCI_WT_MAX_COMPONENTS];
  gboolean in_dev = gst_sci_cuda_buffer_is_device (cuda, inbuf);
  gboolean out_dev = gst_sci_cuda_buffer_is_device (cuda, outbuf);
  GstVideoFrame frame, staged;
  GstMapInfo in;
  gconstpointer coeffs;
  const gchar *what = NULL;
  gint err = 0;

  if (!gst_buffer_map (inbuf, &in, GST_MAP_READ | (in_dev ? GST_MAP_CUDA : 0))) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map input buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (out_dev && !gst_sci_cuda_map_device_frame (&frame, &self->out_info,
          outbuf, GST_MAP_WRITE)) {
    GST_DEBUG_OBJECT (self, "cannot map the CUDA output in place: staging");
    out_dev = FALSE;
  }
  if (!out_dev && !map_output (self, &frame, outbuf, 0)) {
    gst_buffer_unmap (inbuf, &in);
    return GST_FLOW_ERROR;
  }
  if (!gst_sci_cuda_push (cuda)) {
    what = "context push";
    goto done;
  }

  coeffs = in.data;
  if (!in_dev) {
    gpointer dev = gst_sci_cuda_staging (cuda, 0, self->in_info.size, &err);

    if (!dev || (err = gst_sci_cuda_copy (cuda, dev, in.data,
                self->in_info.size))) {
      what = "input upload";
      goto pop;
    }
    coeffs = dev;
  }
  if (out_dev) {
    gst_wavelet_planes_from_frame (&frame, planes);
  } else {
    if ((err = gst_sci_cuda_stage_frame (cuda, &frame, 1, FALSE, &staged))) {
      what = "output staging";
      goto pop;
    }
    gst_wavelet_planes_from_frame (&staged, planes);
  }
  if ((err = sci_cuda_wt_inverse (self->wt, coeffs, planes, cuda->stream))) {
    what = "inverse transform";
    goto pop;
  }
  if (!out_dev && (err = gst_sci_cuda_unstage_frame (cuda, &staged, &frame))) {
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
  gst_video_frame_unmap (&frame);
  gst_buffer_unmap (inbuf, &in);
  if (what) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("CUDA %s failed", what),
        ("%s", gst_sci_cuda_error_name (err)));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}
#endif

static GstFlowReturn
gst_cuda_idwt_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaIdwt *self = GST_CUDA_IDWT (trans);

  if (gst_buffer_get_size (inbuf) < self->in_info.size) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input buffer of %" G_GSIZE_FORMAT " bytes is smaller than the %"
            G_GSIZE_FORMAT " bytes of coefficients the caps describe",
            gst_buffer_get_size (inbuf), self->in_info.size), (NULL));
    return GST_FLOW_ERROR;
  }
#if HAVE_CUDA
  if (GST_SCI_FILTER (self)->backend.use_cuda && self->wt)
    return transform_cuda (self, inbuf, outbuf);
#endif
  return transform_cpu (self, inbuf, outbuf);
}

static void
gst_cuda_idwt_class_init (GstCudaIdwtClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCaps *caps;

  gst_element_class_set_static_metadata (element_class,
      "Inverse wavelet transform (JPEG 2000 IDWT)", "Filter/Converter/Video",
      "Inverse JPEG 2000 Part 1 wavelet transform of wavelet coefficients "
      "back into raw video, on CUDA or the CPU", SCI_ELEMENT_AUTHOR);

  caps = gst_sci_template_caps (GST_WAVELET_CAPS_STRING);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  caps = gst_sci_template_caps (GST_WAVELET_VIDEO_CAPS_STRING);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_idwt_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_cuda_idwt_fixate_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_cuda_idwt_transform_size);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_idwt_set_caps);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_idwt_stop);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_idwt_transform);

  GST_SCI_FILTER_CLASS (klass)->src_is_video = TRUE;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_idwt_debug, "cudaidwt", 0,
      "JPEG 2000 inverse wavelet transform");
}

static void
gst_cuda_idwt_init (GstCudaIdwt * self)
{
}
