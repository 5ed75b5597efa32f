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

void gst_sci_coded_pool_init (GstSciCodedPool * cp, gboolean exact);

gboolean gst_sci_coded_pool_decide_allocation (GstSciCodedPool * cp,
    GstBaseTransform * trans, GstQuery * query,
    GstBaseTransformClass * parent_class);

gboolean gst_sci_coded_pool_ensure (GstSciCodedPool * cp,
    GstElement * element, GstCaps * caps, gsize size, GstAllocator * allocator);

GstFlowReturn gst_sci_coded_pool_acquire (GstSciCodedPool * cp,
    GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer ** outbuf);

void gst_sci_coded_pool_release (GstSciCodedPool * cp);

void gst_sci_coded_pool_clear (GstSciCodedPool * cp);

G_END_DECLS
#endif
