/*
 * Base class of the plugin's one-buffer-in, one-buffer-out elements: the
 * `backend` and `device-id` properties, the choice between the CUDA kernels
 * and the C reference at start, the CUDA context shared with the rest of
 * the pipeline through GstContext, the instance's CUDA stream, and the
 * allocation of device output buffers.
 */
#ifndef __GST_SCI_FILTER_H__
#define __GST_SCI_FILTER_H__

#include <gst/gst.h>
#include <gst/base/gstadapter.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "gstscibackend.h"
#include "codec/common/parallel.h"
#if HAVE_CUDA
#include "gstscicuda.h"
#endif

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

  /* properties */
  GstSciBackend backend;
  gint device_id;
  guint threads;

  /* the CPU backend's threads, made at start (threads of them) and freed
   * at stop; subclasses hand it to the codec (gst_sci_filter_pool) */
  sci_pool *pool;

  /* TRUE between start and stop when the CUDA kernels run; a subclass may
   * clear it (auto backend only) when device memory runs out. */
  gboolean use_cuda;
  /* Whether the pads offer memory:CUDAMemory: always before start (so
   * that links to CUDA-memory peers can be made in NULL state), then only
   * while the kernels run.  The C reference never sees device memory: it
   * would have to map it on the host, which 1.22 gets wrong for some
   * layouts (docs/architecture.md). */
  gboolean offer_cuda_memory;
  /* whether the negotiated caps carry memory:CUDAMemory */
  gboolean in_cuda_memory;
  gboolean out_cuda_memory;
  /* Between start and stop while the kernels do not run: why (no driver,
   * the device cannot be opened, backend=cpu, ...), for the messages that
   * explain a refused request for CUDA memory; refusal_posted keeps that
   * error to one. */
  gchar *cpu_reason;
  gboolean refusal_posted;
#if HAVE_CUDA
  GstSciCuda cuda;
#endif
};

struct _GstSciFilterClass
{
  GstBaseTransformClass parent_class;

  /* TRUE when the src caps are video (GstCudaBufferPool) rather than a
   * non-video type carried by the blob pool */
  gboolean src_is_video;
  /* TRUE when the src pad carries host data only (an encoder's codestream,
   * written on the host whichever backend runs): the subclass builds its
   * src caps without memory:CUDAMemory, and a CUDA-memory output caps is
   * refused by gst_sci_filter_set_memory.  The sink pad still offers CUDA
   * memory while the kernels run. */
  gboolean src_system_memory;
};

GType gst_sci_filter_get_type (void);

/* The thread pool the codec calls of a frame run on (between start and
 * stop; the `threads` property read at start). */
static inline sci_pool *
gst_sci_filter_pool (GstSciFilter * self)
{
  return self->pool;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstSciFilter, gst_object_unref);

/* Pad template caps: `structure` (the media type and its fields) in CUDA
 * memory first, when built with CUDA, then in system memory. */
GstCaps *gst_sci_filter_template_caps (const gchar * structure);

/* Each structure of `base` with the memory feature of the structure it was
 * made from first, then the other one (when CUDA memory is offered), so a
 * CUDA input prefers CUDA output yet can feed a system-memory peer. */
GstCaps *gst_sci_filter_with_features (GstSciFilter * self, GstCaps * base,
    GstCapsFeatures * preferred);

/* For subclasses' set_caps: records the memory features and checks that a
 * CUDA-memory caps can be served.  FALSE posts an error. */
/* Copies the fields of `names` that `src` (may be NULL) has to `dst`. */
void gst_sci_structure_copy_fields (GstStructure * dst,
    const GstStructure * src, const gchar * const *names, guint n_names);

/* The end of a transform_caps: `result` (taken) narrowed by `filter` (may
 * be NULL) and logged. */
GstCaps *gst_sci_filter_finish_caps (GstSciFilter * self,
    GstPadDirection direction, GstCaps * caps, GstCaps * result,
    GstCaps * filter);

gboolean gst_sci_filter_set_memory (GstSciFilter * self, GstCaps * incaps,
    GstCaps * outcaps);

/* For an element that sets its src caps itself (the decoders, from each
 * frame's header): posts the error for `caps` that downstream refused,
 * saying so in plain words when downstream takes only CUDA memory and the
 * kernels do not run.  Returns FALSE. */
gboolean gst_sci_filter_post_refused (GstSciFilter * self, GstCaps * caps);

/* Falls back to the C reference after a device allocation failed (auto
 * backend); returns FALSE (and posts the error) when the backend was cuda. */
gboolean gst_sci_filter_cuda_failed (GstSciFilter * self, const gchar * what,
    gint cuda_err);

/* The same for a CUDA failure at a frame: once frames have been sent
 * (`sent`) the backend does not change and it is an error (posted). */
gboolean gst_sci_filter_frame_cuda_failed (GstSciFilter * self,
    gboolean sent, const gchar * what, gint cuda_err);

#if HAVE_CUDA
/* A cuda/ handle's constructor (sci_cuda_*_create through a typed
 * wrapper): 0, a negative code (host memory ran out) or a cudaError_t. */
typedef gint (*GstSciCudaStateNew) (gpointer * state);

/* Makes *state in the filter's CUDA context unless it exists: TRUE when it
 * does; else what gst_sci_filter_cuda_failed returns (the CPU takes over,
 * or an error naming `what` was posted). */
gboolean gst_sci_filter_cuda_state_open (GstSciFilter * self,
    gpointer * state, GstSciCudaStateNew create, GDestroyNotify destroy,
    const gchar * what);

/* Frees *state in the filter's CUDA context (forgets it, with a warning,
 * when there is no context left to free it in). */
void gst_sci_filter_cuda_state_close (GstSciFilter * self, gpointer * state,
    GDestroyNotify destroy);
#endif

/* The sink events that a decoder splitting frames out of a byte stream
 * (dpcmdec, seismicdec) handles itself.  Caps are kept in *sinkcaps (for
 * the fields a frame header lacks: framerate, sample-offset) and never
 * passed on: the src caps come from the first frame's header only, since
 * upstream caps may hold fixated placeholders; *have_out is cleared.  A
 * segment before the src pad has caps waits in *pending (caps must go
 * first).  A flush stop empties `adapter` and drops *pending.  TRUE when
 * the event was taken here (the caller returns TRUE); FALSE when the
 * caller passes it on to the base class. */
gboolean gst_sci_filter_framed_sink_event (GstSciFilter * self,
    GstEvent * event, GstAdapter * adapter, GstCaps ** sinkcaps,
    GstEvent ** pending, gboolean * have_out);

/* The allocator for an encoder's coded output: page-locked host memory
 * (made once into *cache) while the CUDA backend runs, so that the coded
 * bytes come back from the device at full speed; else `fallback`. */
GstAllocator *gst_sci_filter_coded_allocator (GstSciFilter * self,
    GstAllocator ** cache, GstAllocator * fallback);

G_END_DECLS
#endif
