/*
 * A pool of output buffers for coded frames of variable size (htj2kenc,
 * dpcmenc): downstream's pools (fixed-size buffers) are not used, but its
 * allocator is, for a pool of our own whose buffers hold a bound on the
 * coded size; each frame's buffer is trimmed to what was written.
 */
#ifndef __GST_SCI_CODED_POOL_H__
#define __GST_SCI_CODED_POOL_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS typedef struct
{
  GstBufferPool *pool;
  gsize size;                   /* bytes a buffer of pool, 0 without one */
  GstAllocator *pool_allocator; /* the allocator pool uses (ref), or NULL */
  gboolean exact;               /* a pool of another size is made again */
  GstAllocator *allocator;      /* downstream's (ref), or NULL */
  GstAllocationParams params;   /* downstream's */
} GstSciCodedPool;

/* `exact`: a pool is made again whenever the size asked for changes;
 * otherwise only when a frame needs more than its buffers hold. */
void gst_sci_coded_pool_init (GstSciCodedPool * cp, gboolean exact);

/* For an encoder's decide_allocation, once its base class has answered
 * `query`: drops downstream's pools from it and keeps the allocator it
 * settled on for our own pool (made again at the next frame). */
void gst_sci_coded_pool_use_query (GstSciCodedPool * cp, GstQuery * query);

/* The decide_allocation of a GstBaseTransform encoder (seismicenc): the
 * same around `parent_class`'s. */
gboolean gst_sci_coded_pool_decide_allocation (GstSciCodedPool * cp,
    GstBaseTransform * trans, GstQuery * query,
    GstBaseTransformClass * parent_class);

/* A pool of `size`-byte buffers with `caps`, from `allocator` (cp->allocator
 * for downstream's; NULL: the default), made again when the size (see
 * init) or the allocator changes.  FALSE with an error posted on `element`
 * when that fails. */
gboolean gst_sci_coded_pool_ensure (GstSciCodedPool * cp,
    GstElement * element, GstCaps * caps, gsize size, GstAllocator * allocator);

/* A buffer of the pool (ensure it first), never a delta unit (every coded
 * frame stands alone). */
GstFlowReturn gst_sci_coded_pool_get (GstSciCodedPool * cp,
    GstBuffer ** outbuf);

/* The same for the frame of `inbuf` of a GstBaseTransform: its metadata
 * copied. */
GstFlowReturn gst_sci_coded_pool_acquire (GstSciCodedPool * cp,
    GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer ** outbuf);

/* Drops the pool (the next ensure makes one), keeps downstream's
 * allocator. */
void gst_sci_coded_pool_release (GstSciCodedPool * cp);

/* Drops the pool and downstream's allocator (stop, finalize). */
void gst_sci_coded_pool_clear (GstSciCodedPool * cp);

G_END_DECLS
#endif
