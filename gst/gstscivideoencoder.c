#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstscivideoencoder.h"

GST_DEBUG_CATEGORY_STATIC (gst_sci_video_encoder_debug);
#define GST_CAT_DEFAULT gst_sci_video_encoder_debug

enum
{
  PROP_0,
  PROP_BACKEND_FIRST,
};

#define gst_sci_video_encoder_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstSciVideoEncoder, gst_sci_video_encoder,
    GST_TYPE_VIDEO_ENCODER,
    GST_DEBUG_CATEGORY_INIT (gst_sci_video_encoder_debug, "scivideoencoder",
        0, "scicodec video encoder base class"));

static void
gst_sci_video_encoder_set_context (GstElement * element, GstContext * context)
{
  gst_sci_backend_set_context (&GST_SCI_VIDEO_ENCODER (element)->backend,
      context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

/* What a stream made: at stop and at finalize. */
static void
release_stream (GstSciVideoEncoder * self)
{
  gst_sci_coded_pool_clear (&self->out);
  gst_clear_object (&self->host_allocator);
  gst_clear_caps (&self->sink_caps);
  gst_clear_caps (&self->format_caps);
  g_clear_pointer (&self->input_state, gst_video_codec_state_unref);
  self->realloc = FALSE;
  self->latency = 0;
}

static gboolean
gst_sci_video_encoder_start (GstVideoEncoder * encoder)
{
  GstSciVideoEncoder *self = GST_SCI_VIDEO_ENCODER (encoder);

  /* coded frames are written on the host whichever backend runs */
  self->backend.src_system_memory = TRUE;
  self->out.exact = GST_SCI_VIDEO_ENCODER_GET_CLASS (self)->exact_pool;
  return gst_sci_backend_start (&self->backend);
}

/* After the subclass' stop, which frees its CUDA state first. */
static gboolean
gst_sci_video_encoder_stop (GstVideoEncoder * encoder)
{
  GstSciVideoEncoder *self = GST_SCI_VIDEO_ENCODER (encoder);

  /* GstVideoEncoder keeps its latency across a stop */
  gst_sci_video_encoder_set_frames_latency (self, 0);
  release_stream (self);
  gst_sci_backend_stop (&self->backend);
  return TRUE;
}

static void
gst_sci_video_encoder_finalize (GObject * object)
{
  GstSciVideoEncoder *self = GST_SCI_VIDEO_ENCODER (object);

  release_stream (self);
  gst_sci_backend_state_clear (&self->backend);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ---- caps ---- */

static GstCaps *
transform_caps (GstElement * element, GstPadDirection direction, GstCaps * caps)
{
  return GST_SCI_VIDEO_ENCODER_GET_CLASS (element)->transform_caps
      (GST_SCI_VIDEO_ENCODER (element), direction, caps);
}

static GstCaps *
gst_sci_video_encoder_getcaps (GstVideoEncoder * encoder, GstCaps * filter)
{
  return gst_sci_backend_pad_caps (&GST_SCI_VIDEO_ENCODER (encoder)->backend,
      GST_VIDEO_ENCODER_SINK_PAD (encoder),
      GST_VIDEO_ENCODER_SRC_PAD (encoder), transform_caps, filter);
}

GstCaps *
gst_sci_video_encoder_src_caps_for (GstSciVideoEncoder * self, GstCaps * caps)
{
  GstSciVideoEncoderClass *klass = GST_SCI_VIDEO_ENCODER_GET_CLASS (self);
  GstPad *srcpad = GST_VIDEO_ENCODER_SRC_PAD (self);
  GstCaps *mine = klass->transform_caps (self, GST_PAD_SINK, caps);
  GstCaps *templ = gst_pad_get_pad_template_caps (srcpad);
  GstCaps *offer = gst_caps_intersect_full (mine, templ,
      GST_CAPS_INTERSECT_FIRST);
  GstCaps *taken = gst_pad_peer_query_caps (srcpad, offer);

  gst_caps_unref (offer);
  gst_caps_unref (templ);
  gst_caps_unref (mine);
  if (gst_caps_is_empty (taken)) {
    GST_DEBUG_OBJECT (self, "downstream takes none of the caps for %"
        GST_PTR_FORMAT, caps);
    gst_caps_unref (taken);
    return NULL;
  }
  return gst_caps_fixate (taken);
}

/* The raw video that `caps` are or stand for (a new reference), or NULL. */
static GstCaps *
video_caps_of (GstSciVideoEncoder * self, GstCaps * caps)
{
  GstSciVideoEncoderClass *klass = GST_SCI_VIDEO_ENCODER_GET_CLASS (self);

  if (gst_structure_has_name (gst_caps_get_structure (caps, 0), "video/x-raw"))
    return gst_caps_ref (caps);
  return klass->video_caps ? klass->video_caps (self, caps) : NULL;
}

static gboolean
gst_sci_video_encoder_set_format (GstVideoEncoder * encoder,
    GstVideoCodecState * state)
{
  GstSciVideoEncoder *self = GST_SCI_VIDEO_ENCODER (encoder);
  GstCaps *caps = self->sink_caps ? self->sink_caps : state->caps;

  if (!gst_sci_backend_set_memory (&self->backend, caps, NULL)
      || !GST_SCI_VIDEO_ENCODER_GET_CLASS (self)->configure (self, caps, state))
    return FALSE;
  if (state != self->input_state) {
    g_clear_pointer (&self->input_state, gst_video_codec_state_unref);
    self->input_state = gst_video_codec_state_ref (state);
  }
  gst_caps_replace (&self->format_caps, caps);
  return TRUE;
}

/* GstVideoEncoder parses caps as raw video only: other sink caps reach it
 * as the raw video they stand for, and the subclass is configured with
 * the caps themselves.  GstVideoEncoder skips set_format when that raw
 * video does not change (coefficients of other levels from the same
 * frames): then the subclass is configured here. */
static gboolean
sink_caps_event (GstSciVideoEncoder * self, GstEvent * event)
{
  GstVideoEncoder *encoder = GST_VIDEO_ENCODER (self);
  GstCaps *caps, *video;
  gboolean ret;

  gst_event_parse_caps (event, &caps);
  if (gst_sci_backend_caps_refused_before (&self->backend, caps)) {
    gst_event_unref (event);
    return FALSE;
  }
  gst_caps_ref (caps);
  video = video_caps_of (self, caps);
  if (!video) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot take %" GST_PTR_FORMAT, caps),
        ("neither raw video nor a type that stands for it"));
    gst_sci_backend_caps_outcome (&self->backend, caps, FALSE);
    gst_event_unref (event);
    gst_caps_unref (caps);
    return FALSE;
  }
  gst_caps_replace (&self->sink_caps, caps);
  if (video != caps) {
    GstEvent *ev = gst_event_new_caps (video);

    gst_event_set_seqnum (ev, gst_event_get_seqnum (event));
    gst_event_unref (event);
    event = ev;
  }
  ret = GST_VIDEO_ENCODER_CLASS (parent_class)->sink_event (encoder, event);
  if (ret && self->input_state && (!self->format_caps
          || !gst_caps_is_equal (self->format_caps, caps)))
    ret = gst_sci_video_encoder_set_format (encoder, self->input_state);
  gst_sci_backend_caps_outcome (&self->backend, caps, ret);
  if (!ret)
    gst_sci_backend_explain_refused_caps (&self->backend, caps,
        GST_VIDEO_ENCODER_SRC_PAD (self));
  gst_caps_unref (video);
  gst_caps_unref (caps);
  return ret;
}

static gboolean
gst_sci_video_encoder_sink_event (GstVideoEncoder * encoder, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS)
    return sink_caps_event (GST_SCI_VIDEO_ENCODER (encoder), event);
  return GST_VIDEO_ENCODER_CLASS (parent_class)->sink_event (encoder, event);
}

static gboolean
gst_sci_video_encoder_src_event (GstVideoEncoder * encoder, GstEvent * event)
{
  gst_sci_backend_src_event (&GST_SCI_VIDEO_ENCODER (encoder)->backend, event);
  return GST_VIDEO_ENCODER_CLASS (parent_class)->src_event (encoder, event);
}

static gboolean
gst_sci_video_encoder_sink_query (GstVideoEncoder * encoder, GstQuery * query)
{
  GstSciVideoEncoder *self = GST_SCI_VIDEO_ENCODER (encoder);
  GstVideoEncoderClass *klass = GST_VIDEO_ENCODER_GET_CLASS (encoder);

  if (gst_sci_backend_query_context (&self->backend, query))
    return TRUE;
  /* a drain lets the frames held back (frames in flight) leave */
  if (GST_QUERY_TYPE (query) == GST_QUERY_DRAIN && klass->finish) {
    GstFlowReturn ret;

    GST_VIDEO_ENCODER_STREAM_LOCK (encoder);
    ret = klass->finish (encoder);
    GST_VIDEO_ENCODER_STREAM_UNLOCK (encoder);
    GST_DEBUG_OBJECT (self, "drained: %s", gst_flow_get_name (ret));
  }
  if (!GST_VIDEO_ENCODER_CLASS (parent_class)->sink_query (encoder, query))
    return FALSE;
  gst_sci_backend_check_caps_query (&self->backend, GST_PAD_SINK,
      GST_VIDEO_ENCODER_SRC_PAD (encoder), query);
  return TRUE;
}

static gboolean
gst_sci_video_encoder_src_query (GstVideoEncoder * encoder, GstQuery * query)
{
  GstSciVideoEncoder *self = GST_SCI_VIDEO_ENCODER (encoder);

  if (gst_sci_backend_query_context (&self->backend, query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    gst_sci_backend_answer_caps_query (&self->backend,
        GST_VIDEO_ENCODER_SRC_PAD (encoder),
        GST_VIDEO_ENCODER_SINK_PAD (encoder), transform_caps, query);
    return TRUE;
  }
  return GST_VIDEO_ENCODER_CLASS (parent_class)->src_query (encoder, query);
}

/* Raw video from upstream: video meta, and a GstCudaBufferPool for CUDA
 * memory.  No system-memory pool: upstream's own serves. */
static gboolean
gst_sci_video_encoder_propose_allocation (GstVideoEncoder * encoder,
    GstQuery * query)
{
  gst_sci_backend_propose_allocation (&GST_SCI_VIDEO_ENCODER
      (encoder)->backend, query);
  return TRUE;
}

/* ---- output ---- */

gboolean
gst_sci_video_encoder_set_src_caps (GstSciVideoEncoder * self, GstCaps * caps)
{
  GstVideoCodecState *state;

  state = gst_video_encoder_set_output_state (GST_VIDEO_ENCODER (self), caps,
      self->input_state);
  if (!state)
    return FALSE;
  gst_video_codec_state_unref (state);
  return TRUE;
}

/* Stream-start and the other events that go before caps, of the oldest
 * frame (GstVideoEncoder's order, as its own negotiation keeps it). */
static void
push_pre_caps_events (GstSciVideoEncoder * self)
{
  GstVideoCodecFrame *frame =
      gst_video_encoder_get_oldest_frame (GST_VIDEO_ENCODER (self));
  GList *l;

  if (!frame)
    return;
  /* newest first in the list */
  for (l = g_list_last (frame->events); l;) {
    GstEvent *event = l->data;
    GList *prev = l->prev;

    if (GST_EVENT_TYPE (event) < GST_EVENT_CAPS) {
      gst_pad_push_event (GST_VIDEO_ENCODER_SRC_PAD (self), event);
      frame->events = g_list_delete_link (frame->events, l);
    }
    l = prev;
  }
  gst_video_codec_frame_unref (frame);
}

/* GstVideoEncoder's own negotiation adds fields to the caps (interlace
 * mode, colorimetry, chroma site, pixel aspect ratio, framerate): the
 * coded caps are the subclass' as they are.  GstVideoEncoder calls this
 * before every frame leaves; the caps are set when they changed, and
 * downstream is asked for an allocator then or when it asked for it. */
static gboolean
gst_sci_video_encoder_negotiate (GstVideoEncoder * encoder)
{
  GstSciVideoEncoder *self = GST_SCI_VIDEO_ENCODER (encoder);
  GstPad *srcpad = GST_VIDEO_ENCODER_SRC_PAD (encoder);
  GstVideoCodecState *state = gst_video_encoder_get_output_state (encoder);
  GstCaps *prev;
  gboolean changed, ret = TRUE;

  if (!state)
    return FALSE;
  if (gst_pad_check_reconfigure (srcpad))
    self->realloc = TRUE;
  prev = gst_pad_get_current_caps (srcpad);
  changed = !prev || !gst_caps_is_equal (prev, state->caps);
  gst_clear_caps (&prev);
  if (changed) {
    push_pre_caps_events (self);
    ret = gst_pad_set_caps (srcpad, state->caps);
    GST_DEBUG_OBJECT (self, "src caps %" GST_PTR_FORMAT ": %s", state->caps,
        ret ? "set" : "refused");
  }
  if (ret && (changed || self->realloc)) {
    GstQuery *query = gst_query_new_allocation (state->caps, TRUE);

    if (!gst_pad_peer_query (srcpad, query))
      GST_DEBUG_OBJECT (self, "no allocation answer from downstream");
    ret = GST_VIDEO_ENCODER_GET_CLASS (encoder)->decide_allocation (encoder,
        query);
    if (ret)
      gst_sci_coded_pool_use_query (&self->out, query);
    gst_query_unref (query);
    self->realloc = FALSE;
  }
  gst_video_codec_state_unref (state);
  return ret;
}

GstFlowReturn
gst_sci_video_encoder_acquire (GstSciVideoEncoder * self, gsize size,
    GstBuffer ** outbuf)
{
  GstVideoEncoder *encoder = GST_VIDEO_ENCODER (self);
  GstVideoCodecState *state;
  GstAllocator *allocator;
  gboolean ok;

  /* Downstream's allocator is known before the first frame is coded into
   * a buffer (GstVideoEncoder asks only as a frame leaves). */
  if (!gst_sci_video_encoder_negotiate (encoder)) {
    gst_pad_mark_reconfigure (GST_VIDEO_ENCODER_SRC_PAD (encoder));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  state = gst_video_encoder_get_output_state (encoder);
  allocator = gst_sci_backend_coded_allocator (&self->backend,
      &self->host_allocator, self->out.allocator);
  ok = gst_sci_coded_pool_ensure (&self->out, GST_ELEMENT (self),
      state->caps, size, allocator);
  gst_video_codec_state_unref (state);
  if (!ok)
    return GST_FLOW_ERROR;
  return gst_sci_coded_pool_get (&self->out, outbuf);
}

GstFlowReturn
gst_sci_video_encoder_finish (GstSciVideoEncoder * self,
    GstVideoCodecFrame * frame, GstBuffer * coded)
{
  g_assert (frame->output_buffer == NULL);
  frame->output_buffer = coded;
  GST_VIDEO_CODEC_FRAME_SET_SYNC_POINT (frame);
  return gst_video_encoder_finish_frame (GST_VIDEO_ENCODER (self), frame);
}

void
gst_sci_video_encoder_abandon (GstSciVideoEncoder * self,
    GstVideoCodecFrame * frame)
{
  /* GstVideoEncoder keeps the frame in its list until the stream stops
   * or flushes (1.22 has no call to release it); its input need not */
  gst_clear_buffer (&frame->input_buffer);
  gst_video_codec_frame_unref (frame);
}

void
gst_sci_video_encoder_set_frames_latency (GstSciVideoEncoder * self,
    guint frames)
{
  GstVideoInfo *info = self->input_state ? &self->input_state->info : NULL;
  GstClockTime latency = 0;

  if (frames && info && GST_VIDEO_INFO_FPS_N (info) > 0
      && GST_VIDEO_INFO_FPS_D (info) > 0)
    latency = gst_util_uint64_scale_int (frames * GST_SECOND,
        GST_VIDEO_INFO_FPS_D (info), GST_VIDEO_INFO_FPS_N (info));
  if (latency == self->latency)
    return;
  GST_DEBUG_OBJECT (self, "%u frames held back: latency %" GST_TIME_FORMAT,
      frames, GST_TIME_ARGS (latency));
  self->latency = latency;
  gst_video_encoder_set_latency (GST_VIDEO_ENCODER (self), latency, latency);
}

/* QoS (the `qos` property, off by default): a frame already too late for
 * downstream is dropped before it is coded, with a QoS message. */
static GstFlowReturn
gst_sci_video_encoder_handle_frame (GstVideoEncoder * encoder,
    GstVideoCodecFrame * frame)
{
  GstSciVideoEncoder *self = GST_SCI_VIDEO_ENCODER (encoder);
  GstClockTimeDiff left = gst_video_encoder_get_max_encode_time (encoder,
      frame);

  if (left < 0) {
    GST_DEBUG_OBJECT (self, "frame %u late by %" GST_STIME_FORMAT ": dropped",
        frame->system_frame_number, GST_STIME_ARGS (-left));
    return gst_video_encoder_finish_frame (encoder, frame);
  }
  if (gst_pad_needs_reconfigure (GST_VIDEO_ENCODER_SRC_PAD (encoder)))
    self->realloc = TRUE;
  return GST_SCI_VIDEO_ENCODER_GET_CLASS (self)->encode (self, frame);
}

static void
gst_sci_video_encoder_class_init (GstSciVideoEncoderClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstVideoEncoderClass *venc_class = GST_VIDEO_ENCODER_CLASS (klass);

  gobject_class->finalize = gst_sci_video_encoder_finalize;
  gst_sci_backend_install_properties (gobject_class, PROP_BACKEND_FIRST,
      G_STRUCT_OFFSET (GstSciVideoEncoder, backend));

  GST_ELEMENT_CLASS (klass)->set_context =
      GST_DEBUG_FUNCPTR (gst_sci_video_encoder_set_context);
  venc_class->start = GST_DEBUG_FUNCPTR (gst_sci_video_encoder_start);
  venc_class->stop = GST_DEBUG_FUNCPTR (gst_sci_video_encoder_stop);
  venc_class->set_format = GST_DEBUG_FUNCPTR (gst_sci_video_encoder_set_format);
  venc_class->src_event = GST_DEBUG_FUNCPTR (gst_sci_video_encoder_src_event);
  venc_class->handle_frame =
      GST_DEBUG_FUNCPTR (gst_sci_video_encoder_handle_frame);
  venc_class->getcaps = GST_DEBUG_FUNCPTR (gst_sci_video_encoder_getcaps);
  venc_class->sink_event = GST_DEBUG_FUNCPTR (gst_sci_video_encoder_sink_event);
  venc_class->sink_query = GST_DEBUG_FUNCPTR (gst_sci_video_encoder_sink_query);
  venc_class->src_query = GST_DEBUG_FUNCPTR (gst_sci_video_encoder_src_query);
  venc_class->negotiate = GST_DEBUG_FUNCPTR (gst_sci_video_encoder_negotiate);
  venc_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_sci_video_encoder_propose_allocation);

  gst_type_mark_as_plugin_api (GST_TYPE_SCI_VIDEO_ENCODER, 0);
}

static void
gst_sci_video_encoder_init (GstSciVideoEncoder * self)
{
  gst_sci_backend_state_init (&self->backend, GST_ELEMENT (self));
  gst_sci_coded_pool_init (&self->out, FALSE);
}
