#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstscifilter.h"

GST_DEBUG_CATEGORY_STATIC (gst_sci_filter_debug);
#define GST_CAT_DEFAULT gst_sci_filter_debug

enum
{
  PROP_0,
  PROP_BACKEND_FIRST,
};

#define gst_sci_filter_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstSciFilter, gst_sci_filter,
    GST_TYPE_BASE_TRANSFORM,
    GST_DEBUG_CATEGORY_INIT (gst_sci_filter_debug, "scifilter", 0,
        "scicodec filter base class"));

static void
gst_sci_filter_set_context (GstElement * element, GstContext * context)
{
  gst_sci_backend_set_context (&GST_SCI_FILTER (element)->backend, context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_sci_filter_start (GstBaseTransform * trans)
{
  GstSciFilter *self = GST_SCI_FILTER (trans);

  /* a subclass' class is complete once instances start */
  self->backend.src_system_memory =
      GST_SCI_FILTER_GET_CLASS (self)->src_system_memory;
  return gst_sci_backend_start (&self->backend);
}

static gboolean
gst_sci_filter_stop (GstBaseTransform * trans)
{
  gst_sci_backend_stop (&GST_SCI_FILTER (trans)->backend);
  return TRUE;
}

static void
gst_sci_filter_finalize (GObject * object)
{
  gst_sci_backend_state_clear (&GST_SCI_FILTER (object)->backend);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* A caps event that could not be set: said in plain words where the reason
 * is CUDA memory without a usable device (else the base class' not-
 * negotiated stands), and refused again without a new error when GstPad
 * resends it. */
static gboolean
gst_sci_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstSciFilter *self = GST_SCI_FILTER (trans);
  GstCaps *caps = NULL;
  gboolean ret;

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    gst_event_parse_caps (event, &caps);
    if (gst_sci_backend_caps_refused_before (&self->backend, caps)) {
      gst_event_unref (event);
      return FALSE;
    }
    gst_caps_ref (caps);
  }
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
  if (caps) {
    gst_sci_backend_caps_outcome (&self->backend, caps, ret);
    if (!ret)
      gst_sci_backend_explain_refused_caps (&self->backend, caps,
          GST_BASE_TRANSFORM_SRC_PAD (trans));
  }
  gst_clear_caps (&caps);
  return ret;
}

static gboolean
gst_sci_filter_src_event (GstBaseTransform * trans, GstEvent * event)
{
  gst_sci_backend_src_event (&GST_SCI_FILTER (trans)->backend, event);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->src_event (trans, event);
}

static gboolean
gst_sci_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstSciFilter *self = GST_SCI_FILTER (trans);

  if (gst_sci_backend_query_context (&self->backend, query))
    return TRUE;
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query))
    return FALSE;
  gst_sci_backend_check_caps_query (&self->backend, direction,
      direction == GST_PAD_SINK ? GST_BASE_TRANSFORM_SRC_PAD (trans) :
      GST_BASE_TRANSFORM_SINK_PAD (trans), query);
  return TRUE;
}

static gboolean
gst_sci_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  if (decide_query != NULL)
    gst_sci_backend_propose_allocation (&GST_SCI_FILTER (trans)->backend,
        query);
  return TRUE;
}

static gboolean
gst_sci_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstSciFilter *self = GST_SCI_FILTER (trans);
  GstCaps *outcaps;
  gsize payload = 0;

  gst_query_parse_allocation (query, &outcaps, NULL);
  if (outcaps && self->backend.out_cuda_memory) {
    gboolean video = GST_SCI_FILTER_GET_CLASS (self)->src_is_video;

    if (!video && (!GST_BASE_TRANSFORM_GET_CLASS (trans)->transform_size
            (trans, GST_PAD_SINK, NULL, 0, outcaps, &payload)
            || payload == 0))
      return FALSE;
    if (!gst_sci_backend_decide_device_pool (&self->backend, query, outcaps,
            video, payload))
      return FALSE;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

static void
gst_sci_filter_class_init (GstSciFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_sci_filter_finalize;
  gst_sci_backend_install_properties (gobject_class, PROP_BACKEND_FIRST,
      G_STRUCT_OFFSET (GstSciFilter, backend));

  GST_ELEMENT_CLASS (klass)->set_context =
      GST_DEBUG_FUNCPTR (gst_sci_filter_set_context);
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_sci_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_sci_filter_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_sci_filter_query);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_sci_filter_sink_event);
  trans_class->src_event = GST_DEBUG_FUNCPTR (gst_sci_filter_src_event);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_sci_filter_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_sci_filter_decide_allocation);

  gst_type_mark_as_plugin_api (GST_TYPE_SCI_FILTER, 0);
}

static void
gst_sci_filter_init (GstSciFilter * self)
{
  gst_sci_backend_state_init (&self->backend, GST_ELEMENT (self));
}

gboolean
gst_sci_filter_framed_sink_event (GstSciFilter * self, GstEvent * event,
    GstAdapter * adapter, GstCaps ** sinkcaps, GstEvent ** pending,
    gboolean * have_out)
{
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;

      /* Never on to the base class, which would send src caps made from
       * them before any frame: upstream caps may be fixated placeholders
       * (multifilesrc caps=application/x-seismic-compressed answers
       * traces=1, samples=1) and only a parsed header is sure. */
      gst_event_parse_caps (event, &caps);
      gst_caps_replace (sinkcaps, caps);
      *have_out = FALSE;
      gst_event_unref (event);
      return TRUE;
    }
    case GST_EVENT_SEGMENT:
      if (gst_pad_has_current_caps (GST_BASE_TRANSFORM_SRC_PAD (self)))
        return FALSE;
      gst_event_replace (pending, event);
      gst_event_unref (event);
      return TRUE;
    case GST_EVENT_FLUSH_STOP:
      gst_adapter_clear (adapter);
      gst_clear_event (pending);
      return FALSE;
    default:
      return FALSE;
  }
}
