/*
 * Base class of the plugin's filters, one buffer in, one buffer out
 * (GstBaseTransform: cudadwt, cudaidwt, sppfilter, seismicenc,
 * seismicdec): the backend (gstscibackend.h) wired into GstBaseTransform's
 * start, stop, queries, caps events and allocation.
 */
#ifndef __GST_SCI_FILTER_H__
#define __GST_SCI_FILTER_H__

#include <gst/gst.h>
#include <gst/base/gstadapter.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "gstscibackend.h"

G_BEGIN_DECLS
#define GST_TYPE_SCI_FILTER (gst_sci_filter_get_type ())
#define GST_SCI_FILTER(obj) \
  (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_SCI_FILTER, GstSciFilter))
#define GST_SCI_FILTER_CLASS(klass) \
  (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_SCI_FILTER, GstSciFilterClass))
#define GST_SCI_FILTER_GET_CLASS(obj) \
  (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_SCI_FILTER, GstSciFilterClass))
typedef struct _GstSciFilter GstSciFilter;
typedef struct _GstSciFilterClass GstSciFilterClass;

struct _GstSciFilter
{
  GstBaseTransform parent;

  /* properties, backend, CUDA state, thread pool */
  GstSciBackendState backend;
};

struct _GstSciFilterClass
{
  GstBaseTransformClass parent_class;

  /* TRUE when the src caps are video (GstCudaBufferPool) rather than a
   * non-video type carried by the blob pool */
  gboolean src_is_video;
  /* TRUE when the src pad carries host data only (an encoder's coded
   * frames): the subclass builds its src caps without memory:CUDAMemory,
   * and a CUDA-memory output caps is refused (gst_sci_filter_set_memory) */
  gboolean src_system_memory;
};

GType gst_sci_filter_get_type (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstSciFilter, gst_object_unref);

/* The backend's functions (gstscibackend.h) for a filter. */

static inline sci_pool *
gst_sci_filter_pool (GstSciFilter * self)
{
  return gst_sci_backend_pool (&self->backend);
}

static inline GstCaps *
gst_sci_filter_with_features (GstSciFilter * self, GstCaps * base,
    GstCapsFeatures * preferred)
{
  return gst_sci_backend_with_features (&self->backend, base, preferred);
}

static inline GstCaps *
gst_sci_filter_finish_caps (GstSciFilter * self, GstPadDirection direction,
    GstCaps * caps, GstCaps * result, GstCaps * filter)
{
  return gst_sci_caps_narrow (GST_OBJECT (self), direction, caps, result,
      filter);
}

static inline gboolean
gst_sci_filter_set_memory (GstSciFilter * self, GstCaps * incaps,
    GstCaps * outcaps)
{
  return gst_sci_backend_set_memory (&self->backend, incaps, outcaps);
}

static inline gboolean
gst_sci_filter_post_refused (GstSciFilter * self, GstCaps * caps)
{
  return gst_sci_backend_post_refused (&self->backend,
      GST_BASE_TRANSFORM_SRC_PAD (self), caps);
}

static inline gboolean
gst_sci_filter_cuda_failed (GstSciFilter * self, const gchar * what,
    gint cuda_err)
{
  return gst_sci_backend_cuda_failed (&self->backend, what, cuda_err);
}

static inline gboolean
gst_sci_filter_frame_cuda_failed (GstSciFilter * self, gboolean sent,
    const gchar * what, gint cuda_err)
{
  return gst_sci_backend_frame_cuda_failed (&self->backend, sent, what,
      cuda_err);
}

#if HAVE_CUDA
static inline gboolean
gst_sci_filter_cuda_state_open (GstSciFilter * self, gpointer * state,
    GstSciCudaStateNew create, GDestroyNotify destroy, const gchar * what)
{
  return gst_sci_backend_cuda_state_open (&self->backend, state, create,
      destroy, what);
}

static inline void
gst_sci_filter_cuda_state_close (GstSciFilter * self, gpointer * state,
    GDestroyNotify destroy)
{
  gst_sci_backend_cuda_state_close (&self->backend, state, destroy);
}
#endif

/* The sink events that a decoder splitting frames out of a byte stream
 * (seismicdec) handles itself.  Caps are kept in *sinkcaps (for the fields
 * a frame header lacks: framerate, sample-offset) and never passed on: the
 * src caps come from the first frame's header only, since upstream caps
 * may hold fixated placeholders; *have_out is cleared.  A segment before
 * the src pad has caps waits in *pending (caps must go first).  A flush
 * stop empties `adapter` and drops *pending.  TRUE when the event was
 * taken here (the caller returns TRUE); FALSE when the caller passes it
 * on to the base class. */
gboolean gst_sci_filter_framed_sink_event (GstSciFilter * self,
    GstEvent * event, GstAdapter * adapter, GstCaps ** sinkcaps,
    GstEvent ** pending, gboolean * have_out);

G_END_DECLS
#endif
