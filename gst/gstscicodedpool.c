#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstscicodedpool.h"

GST_DEBUG_CATEGORY_STATIC (gst_sci_coded_pool_debug);
#define GST_CAT_DEFAULT gst_sci_coded_pool_debug

/* `exact`: a pool is made again whenever the size asked for changes;
 * otherwise only when a frame needs more than its buffers hold. */
void
gst_sci_coded_pool_init (GstSciCodedPool * cp, gboolean exact)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_sci_coded_pool_debug, "scicodedpool", 0,
        "pools of coded output buffers");
    g_once_init_leave (&done, 1);
  }
  memset (cp, 0, sizeof (*cp));
  cp->exact = exact;
  gst_allocation_params_init (&cp->params);
}

/* Coded frames vary in size: downstream's pools (fixed-size buffers) are
 * not used, but its allocator is, for our own pool. */
static void
drop_pools (GstQuery * query)
{
  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);
}

void
gst_sci_coded_pool_use_query (GstSciCodedPool * cp, GstQuery * query)
{
  GstAllocator *allocator = NULL;
  GstAllocationParams params;

  drop_pools (query);
  gst_allocation_params_init (&params);
  if (gst_query_get_n_allocation_params (query) > 0)
    gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
  gst_clear_object (&cp->allocator);
  cp->allocator = allocator;
  cp->params = params;
  gst_sci_coded_pool_release (cp);
}

gboolean
gst_sci_coded_pool_decide_allocation (GstSciCodedPool * cp,
    GstBaseTransform * trans, GstQuery * query,
    GstBaseTransformClass * parent_class)
{
  drop_pools (query);
  if (!parent_class->decide_allocation (trans, query))
    return FALSE;
  gst_sci_coded_pool_use_query (cp, query);
  return TRUE;
}

/* A pool of `size`-byte buffers with `caps`, from `allocator` (cp->allocator
 * for downstream's; NULL: the default), made again when the size (see
 * init) or the allocator changes.  FALSE with an error posted on `element` when that fails. */
gboolean
gst_sci_coded_pool_ensure (GstSciCodedPool * cp, GstElement * element,
    GstCaps * caps, gsize size, GstAllocator * allocator)
{
  GstStructure *config;

  if (cp->pool && (cp->exact ? cp->size == size : cp->size >= size)
      && cp->pool_allocator == allocator)
    return TRUE;
  gst_sci_coded_pool_release (cp);
  if (size > G_MAXUINT) {
    GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
        ("A %" G_GSIZE_FORMAT "-byte output buffer is too large", size),
        (NULL));
    return FALSE;
  }
  cp->pool = gst_buffer_pool_new ();
  config = gst_buffer_pool_get_config (cp->pool);
  gst_buffer_pool_config_set_params (config, caps, (guint) size, 0, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, &cp->params);
  if (!gst_buffer_pool_set_config (cp->pool, config)
      || !gst_buffer_pool_set_active (cp->pool, TRUE)) {
    GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
        ("Cannot set up a pool of %" G_GSIZE_FORMAT "-byte output buffers",
            size), (NULL));
    gst_sci_coded_pool_release (cp);
    return FALSE;
  }
  cp->size = size;
  cp->pool_allocator = allocator ? gst_object_ref (allocator) : NULL;
  GST_DEBUG_OBJECT (element, "pool of %" G_GSIZE_FORMAT "-byte buffers from "
      "%" GST_PTR_FORMAT, size, allocator);
  return TRUE;
}

GstFlowReturn
gst_sci_coded_pool_get (GstSciCodedPool * cp, GstBuffer ** outbuf)
{
  GstFlowReturn ret;

  g_return_val_if_fail (cp->pool != NULL, GST_FLOW_ERROR);
  ret = gst_buffer_pool_acquire_buffer (cp->pool, outbuf, NULL);
  if (ret == GST_FLOW_OK)
    GST_BUFFER_FLAG_UNSET (*outbuf, GST_BUFFER_FLAG_DELTA_UNIT);
  return ret;
}

GstFlowReturn
gst_sci_coded_pool_acquire (GstSciCodedPool * cp, GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstFlowReturn ret = gst_sci_coded_pool_get (cp, outbuf);

  if (ret == GST_FLOW_OK
      && !GST_BASE_TRANSFORM_GET_CLASS (trans)->copy_metadata (trans, inbuf,
          *outbuf))
    GST_DEBUG_OBJECT (trans, "could not copy the metadata of the input");
  return ret;
}

/* Drops the pool (the next ensure makes one), keeps downstream's
 * allocator. */
void
gst_sci_coded_pool_release (GstSciCodedPool * cp)
{
  if (cp->pool) {
    gst_buffer_pool_set_active (cp->pool, FALSE);
    gst_clear_object (&cp->pool);
  }
  gst_clear_object (&cp->pool_allocator);
  cp->size = 0;
}

/* Drops the pool and downstream's allocator (stop, finalize). */
void
gst_sci_coded_pool_clear (GstSciCodedPool * cp)
{
  gst_sci_coded_pool_release (cp);
  gst_clear_object (&cp->allocator);
}
