/*
 * scimultigpu's dealer and collator (gstscimultigpuparts.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstscimultigpuparts.h"

GST_DEBUG_CATEGORY_STATIC (gst_sci_multigpu_parts_debug);
#define GST_CAT_DEFAULT gst_sci_multigpu_parts_debug

/* ---- the dealer ---------------------------------------------------------- */

struct _GstSciDeal
{
  GstBaseTransform parent;
  guint ways, way;
  guint64 count;                /* buffers seen since the start or a flush */
};

enum
{
  PROP_DEAL_0,
  PROP_WAYS,
  PROP_WAY,
};

G_DEFINE_TYPE (GstSciDeal, gst_sci_deal, GST_TYPE_BASE_TRANSFORM);

static GstStaticPadTemplate deal_sink = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate deal_src = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static GstFlowReturn
gst_sci_deal_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstSciDeal *self = GST_SCI_DEAL (trans);
  guint64 n = self->count++;

  return n % self->ways == self->way ? GST_FLOW_OK :
      GST_BASE_TRANSFORM_FLOW_DROPPED;
}

static gboolean
gst_sci_deal_start (GstBaseTransform * trans)
{
  GST_SCI_DEAL (trans)->count = 0;
  return TRUE;
}

static gboolean
gst_sci_deal_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    GST_SCI_DEAL (trans)->count = 0;
  return GST_BASE_TRANSFORM_CLASS (gst_sci_deal_parent_class)->sink_event
      (trans, event);
}

static void
gst_sci_deal_set_property (GObject * object, guint id, const GValue * value,
    GParamSpec * pspec)
{
  GstSciDeal *self = GST_SCI_DEAL (object);

  switch (id) {
    case PROP_WAYS:
      self->ways = g_value_get_uint (value);
      break;
    case PROP_WAY:
      self->way = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
gst_sci_deal_get_property (GObject * object, guint id, GValue * value,
    GParamSpec * pspec)
{
  GstSciDeal *self = GST_SCI_DEAL (object);

  switch (id) {
    case PROP_WAYS:
      g_value_set_uint (value, self->ways);
      break;
    case PROP_WAY:
      g_value_set_uint (value, self->way);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
gst_sci_deal_class_init (GstSciDealClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_sci_multigpu_parts_debug, "scimultigpuparts",
      0, "scimultigpu's dealer and collator");
  gobject_class->set_property = gst_sci_deal_set_property;
  gobject_class->get_property = gst_sci_deal_get_property;
  g_object_class_install_property (gobject_class, PROP_WAYS,
      g_param_spec_uint ("ways", "Ways", "Branches the frames are dealt to",
          1, G_MAXUINT, 1, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_WAY,
      g_param_spec_uint ("way", "Way", "This branch: it passes the frames "
          "whose count is this modulo ways", 0, G_MAXUINT - 1, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  gst_element_class_add_static_pad_template (element_class, &deal_sink);
  gst_element_class_add_static_pad_template (element_class, &deal_src);
  gst_element_class_set_static_metadata (element_class, "Frame dealer",
      "Generic", "Passes every ways-th frame (a part of scimultigpu)",
      SCI_ELEMENT_AUTHOR);
  trans_class->transform_ip = gst_sci_deal_transform_ip;
  trans_class->start = gst_sci_deal_start;
  trans_class->sink_event = gst_sci_deal_sink_event;
}

static void
gst_sci_deal_init (GstSciDeal * self)
{
  self->ways = 1;
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}

/* ---- the collator -------------------------------------------------------- */

struct _GstSciCollate
{
  GstAggregator parent;
  guint next;                   /* the branch whose frame leaves next */
  GstCaps *caps;                /* the src caps set last */
  gboolean warned;
};

G_DEFINE_TYPE (GstSciCollate, gst_sci_collate, GST_TYPE_AGGREGATOR);

static GstStaticPadTemplate collate_sink = GST_STATIC_PAD_TEMPLATE ("sink_%u",
    GST_PAD_SINK, GST_PAD_REQUEST, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate collate_src = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static GstAggregatorPad *
collate_pad (GstSciCollate * self, guint i)
{
  GstAggregatorPad *pad;
  GList *l;

  GST_OBJECT_LOCK (self);
  l = g_list_nth (GST_ELEMENT (self)->sinkpads, i);
  pad = l ? GST_AGGREGATOR_PAD (l->data) : NULL;
  GST_OBJECT_UNLOCK (self);
  return pad;
}

/* The output follows branch 0's caps and segment: every branch runs the
 * same coder with the same settings. */
static GstFlowReturn
gst_sci_collate_sync_caps (GstSciCollate * self, GstAggregatorPad * pad0)
{
  GstCaps *caps = gst_pad_get_current_caps (GST_PAD (pad0));

  if (!caps)
    return GST_FLOW_NOT_NEGOTIATED;
  if (!self->caps || !gst_caps_is_equal (caps, self->caps)) {
    GstSegment seg;

    gst_caps_replace (&self->caps, caps);
    gst_aggregator_set_src_caps (GST_AGGREGATOR (self), caps);
    GST_OBJECT_LOCK (pad0);
    seg = pad0->segment;
    GST_OBJECT_UNLOCK (pad0);
    gst_aggregator_update_segment (GST_AGGREGATOR (self), &seg);
  }
  gst_caps_unref (caps);
  return GST_FLOW_OK;
}

/* The next branch's frame, or NULL: *need when it has none yet, else it
 * is at its end with nothing left (then the branch is passed over: it can
 * only happen when a coder gave fewer frames than it took, which breaks
 * the order, so say so once). */
static GstBuffer *
collate_next (GstSciCollate * self, guint n, gboolean * need)
{
  guint tried;

  *need = FALSE;
  for (tried = 0; tried < n; tried++) {
    GstAggregatorPad *pad = collate_pad (self, self->next % n);
    GstBuffer *buf;

    if (!pad)
      return NULL;
    buf = gst_aggregator_pad_pop_buffer (pad);
    if (buf) {
      self->next++;
      return buf;
    }
    if (!gst_aggregator_pad_is_eos (pad)) {
      *need = TRUE;
      return NULL;
    }
    if (!self->warned && tried == 0) {
      gboolean more = FALSE;
      guint i;
      for (i = 0; i < n; i++)
        more |= gst_aggregator_pad_has_buffer (collate_pad (self, i));
      if (more) {
        GST_ELEMENT_WARNING (self, STREAM, FAILED,
            ("A branch ended before the others: the frames after it may "
                "leave out of order"), ("branch %u is at its end", self->next
                % n));
        self->warned = TRUE;
      }
    }
    self->next++;
  }
  return NULL;
}

/* Every frame that is next in turn and there: the aggregator calls this
 * only once each branch has a frame, so one frame a call would hold the
 * branches in step. */
static GstFlowReturn
gst_sci_collate_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstSciCollate *self = GST_SCI_COLLATE (agg);
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean need, any = FALSE;
  GstBuffer *buf;
  guint n;

  GST_OBJECT_LOCK (self);
  n = GST_ELEMENT (self)->numsinkpads;
  GST_OBJECT_UNLOCK (self);
  if (n == 0)
    return GST_FLOW_EOS;
  while (ret == GST_FLOW_OK && (buf = collate_next (self, n, &need))) {
    any = TRUE;
    ret = gst_sci_collate_sync_caps (self, collate_pad (self, 0));
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref (buf);
      break;
    }
    ret = gst_aggregator_finish_buffer (agg, buf);
  }
  if (ret != GST_FLOW_OK)
    return ret;
  if (need)
    return any ? GST_FLOW_OK : GST_AGGREGATOR_FLOW_NEED_DATA;
  return GST_FLOW_EOS;
}

static gboolean
gst_sci_collate_start (GstAggregator * agg)
{
  GstSciCollate *self = GST_SCI_COLLATE (agg);

  self->next = 0;
  self->warned = FALSE;
  gst_caps_replace (&self->caps, NULL);
  return TRUE;
}

static GstFlowReturn
gst_sci_collate_flush (GstAggregator * agg)
{
  GST_SCI_COLLATE (agg)->next = 0;
  return GST_FLOW_OK;
}

/* Branch 0's caps as they are (the collator changes nothing). */
static GstFlowReturn
gst_sci_collate_update_src_caps (GstAggregator * agg, GstCaps * caps,
    GstCaps ** ret)
{
  GstAggregatorPad *pad0 = collate_pad (GST_SCI_COLLATE (agg), 0);
  GstCaps *c = pad0 ? gst_pad_get_current_caps (GST_PAD (pad0)) : NULL;

  if (!c)
    return GST_AGGREGATOR_FLOW_NEED_DATA;
  *ret = gst_caps_intersect (c, caps);
  gst_caps_unref (c);
  return gst_caps_is_empty (*ret) ? GST_FLOW_NOT_NEGOTIATED : GST_FLOW_OK;
}

static void
gst_sci_collate_finalize (GObject * object)
{
  gst_caps_replace (&GST_SCI_COLLATE (object)->caps, NULL);
  G_OBJECT_CLASS (gst_sci_collate_parent_class)->finalize (object);
}

static void
gst_sci_collate_class_init (GstSciCollateClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);

  gobject_class->finalize = gst_sci_collate_finalize;
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &collate_sink, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &collate_src, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_set_static_metadata (element_class, "Frame collator",
      "Generic", "Outputs its branches' frames in turn (a part of "
      "scimultigpu)", SCI_ELEMENT_AUTHOR);
  agg_class->aggregate = gst_sci_collate_aggregate;
  agg_class->start = gst_sci_collate_start;
  agg_class->flush = gst_sci_collate_flush;
  agg_class->update_src_caps = gst_sci_collate_update_src_caps;
}

static void
gst_sci_collate_init (GstSciCollate * self)
{
}
