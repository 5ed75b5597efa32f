#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstscivideodecoder.h"

GST_DEBUG_CATEGORY_STATIC (gst_sci_video_decoder_debug);
#define GST_CAT_DEFAULT gst_sci_video_decoder_debug

enum
{
  PROP_0,
  PROP_BACKEND_FIRST,
};

#define gst_sci_video_decoder_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstSciVideoDecoder, gst_sci_video_decoder,
    GST_TYPE_VIDEO_DECODER,
    GST_DEBUG_CATEGORY_INIT (gst_sci_video_decoder_debug, "scivideodecoder",
        0, "scicodec video decoder base class"));

static void
gst_sci_video_decoder_set_context (GstElement * element, GstContext * context)
{
  gst_sci_backend_set_context (&GST_SCI_VIDEO_DECODER (element)->backend,
      context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_sci_video_decoder_start (GstVideoDecoder * decoder)
{
  GstSciVideoDecoder *self = GST_SCI_VIDEO_DECODER (decoder);

  self->offered = FALSE;
  return gst_sci_backend_start (&self->backend);
}

/* After the subclass' stop, which frees its CUDA state first. */
static gboolean
gst_sci_video_decoder_stop (GstVideoDecoder * decoder)
{
  GstSciVideoDecoder *self = GST_SCI_VIDEO_DECODER (decoder);

  gst_clear_caps (&self->sink_caps);
  gst_sci_backend_stop (&self->backend);
  return TRUE;
}

static void
gst_sci_video_decoder_finalize (GObject * object)
{
  GstSciVideoDecoder *self = GST_SCI_VIDEO_DECODER (object);

  gst_clear_caps (&self->sink_caps);
  gst_sci_backend_state_clear (&self->backend);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ---- caps ---- */

static GstCaps *
transform_caps (GstElement * element, GstPadDirection direction, GstCaps * caps)
{
  return GST_SCI_VIDEO_DECODER_GET_CLASS (element)->transform_caps
      (GST_SCI_VIDEO_DECODER (element), direction, caps);
}

static GstCaps *
gst_sci_video_decoder_getcaps (GstVideoDecoder * decoder, GstCaps * filter)
{
  return gst_sci_backend_pad_caps (&GST_SCI_VIDEO_DECODER (decoder)->backend,
      GST_VIDEO_DECODER_SINK_PAD (decoder),
      GST_VIDEO_DECODER_SRC_PAD (decoder), transform_caps, filter);
}

/* Caps that GstVideoDecoder cannot parse as video are the subclass' alone
 * (it would refuse them); the src caps come from the frames. */
static gboolean
sink_caps_event (GstSciVideoDecoder * self, GstEvent * event)
{
  GstSciVideoDecoderClass *klass = GST_SCI_VIDEO_DECODER_GET_CLASS (self);
  GstVideoInfo info;
  GstCaps *caps;
  gboolean ret = TRUE;

  gst_event_parse_caps (event, &caps);
  if (gst_sci_backend_caps_refused_before (&self->backend, caps)) {
    gst_event_unref (event);
    return FALSE;
  }
  gst_caps_replace (&self->sink_caps, caps);
  self->offered = FALSE;
  if (klass->set_sink_caps)
    ret = klass->set_sink_caps (self, self->sink_caps);
  if (ret && gst_video_info_from_caps (&info, caps)) {
    ret = GST_VIDEO_DECODER_CLASS (parent_class)->sink_event
        (GST_VIDEO_DECODER (self), event);
    gst_sci_backend_caps_outcome (&self->backend, self->sink_caps, ret);
    return ret;
  }
  gst_sci_backend_caps_outcome (&self->backend, caps, ret);
  if (!ret)
    gst_sci_backend_explain_refused_caps (&self->backend, caps,
        GST_VIDEO_DECODER_SRC_PAD (self));
  gst_event_unref (event);
  return ret;
}

static gboolean
gst_sci_video_decoder_src_event (GstVideoDecoder * decoder, GstEvent * event)
{
  gst_sci_backend_src_event (&GST_SCI_VIDEO_DECODER (decoder)->backend, event);
  return GST_VIDEO_DECODER_CLASS (parent_class)->src_event (decoder, event);
}

static gboolean
gst_sci_video_decoder_sink_event (GstVideoDecoder * decoder, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS)
    return sink_caps_event (GST_SCI_VIDEO_DECODER (decoder), event);
  return GST_VIDEO_DECODER_CLASS (parent_class)->sink_event (decoder, event);
}

static gboolean
gst_sci_video_decoder_sink_query (GstVideoDecoder * decoder, GstQuery * query)
{
  GstSciVideoDecoder *self = GST_SCI_VIDEO_DECODER (decoder);

  if (gst_sci_backend_query_context (&self->backend, query))
    return TRUE;
  if (!GST_VIDEO_DECODER_CLASS (parent_class)->sink_query (decoder, query))
    return FALSE;
  gst_sci_backend_check_caps_query (&self->backend, GST_PAD_SINK,
      GST_VIDEO_DECODER_SRC_PAD (decoder), query);
  return TRUE;
}

static gboolean
gst_sci_video_decoder_src_query (GstVideoDecoder * decoder, GstQuery * query)
{
  GstSciVideoDecoder *self = GST_SCI_VIDEO_DECODER (decoder);

  if (gst_sci_backend_query_context (&self->backend, query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    gst_sci_backend_answer_caps_query (&self->backend,
        GST_VIDEO_DECODER_SRC_PAD (decoder),
        GST_VIDEO_DECODER_SINK_PAD (decoder), transform_caps, query);
    return TRUE;
  }
  return GST_VIDEO_DECODER_CLASS (parent_class)->src_query (decoder, query);
}

/* `caps` (system memory) in CUDA memory when `cuda`: a new reference. */
static GstCaps *
in_memory (GstCaps * caps, gboolean cuda)
{
  caps = gst_caps_copy (caps);
  gst_sci_caps_set_cuda_memory (caps, cuda);
  return caps;
}

gboolean
gst_sci_video_decoder_set_src_caps (GstSciVideoDecoder * self, GstCaps * caps)
{
  GstVideoDecoder *decoder = GST_VIDEO_DECODER (self);
  GstSciBackendState *b = &self->backend;
  GstPad *srcpad = GST_VIDEO_DECODER_SRC_PAD (self);
  gboolean cuda = b->use_cuda && b->out_cuda_memory, ok = TRUE;
  GstCaps *want = in_memory (caps, cuda);
  GstVideoCodecState *state = gst_video_decoder_get_output_state (decoder);

  /* downstream asked for new caps: these are offered again */
  if (gst_pad_needs_reconfigure (srcpad))
    self->offered = FALSE;
  if (!self->offered || !state || !gst_caps_is_equal (state->caps, want)) {
    ok = gst_sci_backend_peer_accepts (b, srcpad, &want,
        b->use_cuda ? in_memory (caps, !cuda) : NULL, &cuda);
    GST_DEBUG_OBJECT (self, "caps from the frame: %" GST_PTR_FORMAT, want);
    if (!ok) {
      gst_sci_backend_post_refused (b, srcpad, want);
    } else {
      GstVideoInfo info;

      g_clear_pointer (&state, gst_video_codec_state_unref);
      gst_video_info_from_caps (&info, want);
      state = gst_video_decoder_set_output_state (decoder,
          GST_VIDEO_INFO_FORMAT (&info), GST_VIDEO_INFO_WIDTH (&info),
          GST_VIDEO_INFO_HEIGHT (&info), NULL);
      state->info = info;
      state->caps = gst_caps_ref (want);
      b->out_cuda_memory = cuda;
      self->offered = TRUE;
      GST_INFO_OBJECT (self, "%s backend, %s memory out: %" GST_PTR_FORMAT,
          b->use_cuda ? "CUDA" : "CPU", cuda ? "CUDA" : "system", want);
    }
  }
  g_clear_pointer (&state, gst_video_codec_state_unref);
  gst_caps_unref (want);
  gst_caps_unref (caps);
  return ok;
}

static void
gst_sci_video_decoder_class_init (GstSciVideoDecoderClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstVideoDecoderClass *vdec_class = GST_VIDEO_DECODER_CLASS (klass);

  gobject_class->finalize = gst_sci_video_decoder_finalize;
  gst_sci_backend_install_properties (gobject_class, PROP_BACKEND_FIRST,
      G_STRUCT_OFFSET (GstSciVideoDecoder, backend));

  GST_ELEMENT_CLASS (klass)->set_context =
      GST_DEBUG_FUNCPTR (gst_sci_video_decoder_set_context);
  vdec_class->start = GST_DEBUG_FUNCPTR (gst_sci_video_decoder_start);
  vdec_class->stop = GST_DEBUG_FUNCPTR (gst_sci_video_decoder_stop);
  vdec_class->getcaps = GST_DEBUG_FUNCPTR (gst_sci_video_decoder_getcaps);
  vdec_class->sink_event = GST_DEBUG_FUNCPTR (gst_sci_video_decoder_sink_event);
  vdec_class->src_event = GST_DEBUG_FUNCPTR (gst_sci_video_decoder_src_event);
  vdec_class->sink_query = GST_DEBUG_FUNCPTR (gst_sci_video_decoder_sink_query);
  vdec_class->src_query = GST_DEBUG_FUNCPTR (gst_sci_video_decoder_src_query);

  gst_type_mark_as_plugin_api (GST_TYPE_SCI_VIDEO_DECODER, 0);
}

static void
gst_sci_video_decoder_init (GstSciVideoDecoder * self)
{
  gst_sci_backend_state_init (&self->backend, GST_ELEMENT (self));
  /* GstVideoDecoder's qos is on by default: a frame late for a synced
   * sink would be dropped.  Scientific frames are data rather than
   * pictures to skip, and the encoders' qos (and that of GstSciFilter
   * before) is off: so is ours, until a user turns it on. */
  g_object_set (self, "qos", FALSE, NULL);
}
