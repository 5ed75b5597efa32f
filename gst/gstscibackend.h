/*
 * What every codec element of the plugin has, whatever its GStreamer base
 * class (GstSciFilter: GstBaseTransform; GstSciVideoEncoder:
 * GstVideoEncoder; GstSciVideoDecoder: GstVideoDecoder): the `backend`,
 * `cuda-device-id` and `threads` properties, the choice between the CUDA
 * kernels and the C reference at start with the messages that explain it,
 * the CUDA context shared with the pipeline through GstContext, the
 * instance's CUDA stream, the CPU thread pool, device output pools, and
 * the CUDA state of the codec handles.
 *
 * A base class embeds a GstSciBackendState, calls the functions below from
 * its virtual methods and hands the state to its subclasses; the state
 * knows its element (for messages and locks) but holds no reference to it.
 */
#ifndef __GST_SCI_BACKEND_H__
#define __GST_SCI_BACKEND_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "codec/common/parallel.h"
#if HAVE_CUDA
#include "gstscicuda.h"
#endif

G_BEGIN_DECLS typedef enum
{
  GST_SCI_BACKEND_AUTO = 0,
  GST_SCI_BACKEND_CUDA = 1,
  GST_SCI_BACKEND_CPU = 2,
} GstSciBackend;

#define GST_TYPE_SCI_BACKEND (gst_sci_backend_get_type ())
GType gst_sci_backend_get_type (void);

typedef struct _GstSciBackendState GstSciBackendState;

struct _GstSciBackendState
{
  /* the element this state belongs to (not a reference) */
  GstElement *element;

  /* properties (the element's object lock) */
  GstSciBackend choice;
  gint device_id;
  guint threads;

  /* TRUE when the src pad carries host data only (an encoder's coded
   * frames, written on the host whichever backend runs): a CUDA-memory
   * output caps is refused by gst_sci_backend_set_memory.  The sink pad
   * still offers CUDA memory while the kernels run.  Set once by the base
   * class from its class. */
  gboolean src_system_memory;

  /* the CPU backend's threads, made at start (threads of them) and freed
   * at stop; handed to every codec call (gst_sci_backend_pool) */
  sci_pool *pool;

  /* TRUE between start and stop when the CUDA kernels run; cleared (auto
   * backend only) when CUDA fails before output has left. */
  gboolean use_cuda;
  /* Whether the pads offer memory:CUDAMemory (object lock): always before
   * start (so that links to CUDA-memory peers can be made in NULL state),
   * then only while the kernels run.  The C reference never sees device
   * memory: it would have to map it on the host, which 1.22 gets wrong
   * for some layouts (docs/architecture.md). */
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
  /* Sink caps the element refused, with the error posted (object lock).
   * GstPad sends a refused sticky caps event again before every later
   * event, query and buffer; without this each try would post the same
   * error again.  Forgotten when a property changes and at stop. */
  GstCaps *refused_caps;
#if HAVE_CUDA
  GstSciCuda cuda;
#endif
};

void gst_sci_backend_state_init (GstSciBackendState * b, GstElement * element);
/* Frees what the state holds beyond a stop (finalize). */
void gst_sci_backend_state_clear (GstSciBackendState * b);

/* Installs backend, cuda-device-id and threads on a base class whose
 * instances hold their GstSciBackendState at `state_offset`
 * (G_STRUCT_OFFSET), as property ids first_id to first_id + 2; its
 * set_property and get_property are gst_sci_backend_object_set_property
 * and _get_property. */
void gst_sci_backend_install_properties (GObjectClass * klass, guint first_id,
    glong state_offset);
void gst_sci_backend_object_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
void gst_sci_backend_object_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);

/* READY->PAUSED: the backend chosen (CUDA context and stream, or the
 * reason the C reference runs, with the warning and error rules of
 * docs/architecture.md), the thread pool made.  FALSE posts an error. */
gboolean gst_sci_backend_start (GstSciBackendState * b);
/* PAUSED->READY: stream, context and pool freed; after the subclass has
 * freed its CUDA state. */
void gst_sci_backend_stop (GstSciBackendState * b);

/* The thread pool the codec calls of a frame run on (between start and
 * stop; the `threads` property read at start). */
static inline sci_pool *
gst_sci_backend_pool (GstSciBackendState * b)
{
  return b->pool;
}

/* GstElement::set_context: a CUDA context the pipeline shares. */
void gst_sci_backend_set_context (GstSciBackendState * b, GstContext * context);
/* Answers a context query with our CUDA context; FALSE when it is not
 * ours to answer (the caller goes on with its default). */
gboolean gst_sci_backend_query_context (GstSciBackendState * b,
    GstQuery * query);

/* ---- caps ---- */

/* Every structure of `caps` (writable) in CUDA memory when `cuda` (and
 * built with CUDA); else left as it is, in system memory. */
void gst_sci_caps_set_cuda_memory (GstCaps * caps, gboolean cuda);

/* Pad template caps: `structure` (the media type and its fields) in CUDA
 * memory first, when built with CUDA, then in system memory. */
GstCaps *gst_sci_template_caps (const gchar * structure);

/* Each structure of `base` with the memory feature of the structure it was
 * made from first, then the other one (when CUDA memory is offered), so a
 * CUDA input prefers CUDA output yet can feed a system-memory peer. */
GstCaps *gst_sci_backend_with_features (GstSciBackendState * b,
    GstCaps * base, GstCapsFeatures * preferred);

/* Copies the fields of `names` that `src` (may be NULL) has to `dst`. */
void gst_sci_structure_copy_fields (GstStructure * dst,
    const GstStructure * src, const gchar * const *names, guint n_names);

/* The end of a caps transformation for `obj`: `result` (taken) narrowed by
 * `filter` (may be NULL) and logged. */
GstCaps *gst_sci_caps_narrow (GstObject * obj, GstPadDirection direction,
    GstCaps * caps, GstCaps * result, GstCaps * filter);

/* An element's caps of the other pad for `caps` of the `direction` pad
 * (GstBaseTransform's transform_caps, without a filter). */
typedef GstCaps *(*GstSciTransformCaps) (GstElement * element,
    GstPadDirection direction, GstCaps * caps);

/* What `pad` of an element that is not a GstBaseTransform can take or
 * give: `transform` of what the peer of its `other` pad takes or gives,
 * within pad's template, narrowed by `filter` (may be NULL). */
GstCaps *gst_sci_backend_pad_caps (GstSciBackendState * b, GstPad * pad,
    GstPad * other, GstSciTransformCaps transform, GstCaps * filter);

/* Answers a caps query on `pad` with gst_sci_backend_pad_caps; an empty
 * answer that a missing GPU explains is said so
 * (gst_sci_backend_check_caps_query). */
void gst_sci_backend_answer_caps_query (GstSciBackendState * b, GstPad * pad,
    GstPad * other, GstSciTransformCaps transform, GstQuery * query);

/* For set_caps/set_format: records the memory features of the negotiated
 * caps (outcaps may be NULL: not known yet) and checks that they can be
 * served.  FALSE posts an error. */
gboolean gst_sci_backend_set_memory (GstSciBackendState * b,
    GstCaps * incaps, GstCaps * outcaps);

/* ---- negotiation failures that a missing GPU explains ---- */

/* When the kernels do not run the pads offer system memory only, so a
 * peer that takes only CUDA memory (`wanted`, on the `direction` side)
 * cannot negotiate: posts the error that says so and why, once per start,
 * and returns TRUE; FALSE (nothing posted) when that is not the reason. */
gboolean gst_sci_backend_explain_cpu_only (GstSciBackendState * b,
    GstPadDirection direction, GstCaps * wanted);

/* After a caps query on the `direction` pad (`other`: the element's other
 * pad) was answered: when the answer is empty, says so in plain words
 * where a missing GPU is the reason (the peer asking wants CUDA memory
 * only, or the peer on the other side takes CUDA memory where system
 * memory found nothing). */
void gst_sci_backend_check_caps_query (GstSciBackendState * b,
    GstPadDirection direction, GstPad * other, GstQuery * query);

/* Sink caps events: TRUE when `caps` were refused before, their error
 * posted, and no property has changed since; the caller refuses them
 * again without a second error.  Else FALSE, and the caller tries them,
 * then reports the outcome with gst_sci_backend_caps_outcome. */
gboolean gst_sci_backend_caps_refused_before (GstSciBackendState * b,
    GstCaps * caps);
void gst_sci_backend_caps_outcome (GstSciBackendState * b, GstCaps * caps,
    gboolean accepted);
/* For the src pad's events: a RECONFIGURE (downstream changed) makes
 * refused caps worth a new try, as a property change does. */
void gst_sci_backend_src_event (GstSciBackendState * b, GstEvent * event);

/* After sink caps `caps` could not be set: said in plain words where the
 * reason is CUDA memory without a usable device (on either side; srcpad:
 * the element's). */
void gst_sci_backend_explain_refused_caps (GstSciBackendState * b,
    GstCaps * caps, GstPad * srcpad);

/* For an element that sets its src caps itself from each frame: whether
 * downstream (srcpad's peer) takes *caps, asked before they are set (a
 * sticky caps event is stored even where downstream refuses it, which
 * would show only as the frame's push failing).  Where it does not and
 * the kernels run, `other` (taken, may be NULL: the same caps in the
 * other memory) is asked and, taken, replaces *caps and flips *cuda. */
gboolean gst_sci_backend_peer_accepts (GstSciBackendState * b,
    GstPad * srcpad, GstCaps ** caps, GstCaps * other, gboolean * cuda);

/* For an element that sets its src caps itself from each frame (the
 * decoders): posts the error for `caps` that downstream (srcpad's peer)
 * refused, saying so in plain words when downstream takes only CUDA memory
 * and the kernels do not run.  Returns FALSE. */
gboolean gst_sci_backend_post_refused (GstSciBackendState * b,
    GstPad * srcpad, GstCaps * caps);

/* ---- CUDA failures ---- */

/* Falls back to the C reference after a device allocation failed (auto
 * backend, data in system memory: a warning); returns FALSE (and posts the
 * error) when the backend was cuda or device memory is negotiated. */
gboolean gst_sci_backend_cuda_failed (GstSciBackendState * b,
    const gchar * what, gint cuda_err);

/* The same for a CUDA failure at a frame: once output has left (`sent`)
 * the backend does not change and it is an error (posted). */
gboolean gst_sci_backend_frame_cuda_failed (GstSciBackendState * b,
    gboolean sent, const gchar * what, gint cuda_err);

#if HAVE_CUDA
/* A cuda/ handle's constructor (sci_cuda_*_create through a typed
 * wrapper): 0, a negative code (host memory ran out) or a cudaError_t. */
typedef gint (*GstSciCudaStateNew) (gpointer * state);

/* Makes *state in the element's CUDA context unless it exists: TRUE when
 * it does; else what gst_sci_backend_cuda_failed returns (the CPU takes
 * over, or an error naming `what` was posted). */
gboolean gst_sci_backend_cuda_state_open (GstSciBackendState * b,
    gpointer * state, GstSciCudaStateNew create, GDestroyNotify destroy,
    const gchar * what);

/* Frees *state in the element's CUDA context (forgets it, with a warning,
 * when there is no context left to free it in). */
void gst_sci_backend_cuda_state_close (GstSciBackendState * b,
    gpointer * state, GDestroyNotify destroy);
#endif

/* ---- memory ---- */

/* The allocator for an encoder's coded output: page-locked host memory
 * (made once into *cache) while the CUDA backend runs, so that the coded
 * bytes come back from the device at full speed; else `fallback`. */
GstAllocator *gst_sci_backend_coded_allocator (GstSciBackendState * b,
    GstAllocator ** cache, GstAllocator * fallback);

/* Answers an allocation query from upstream for raw video: video meta
 * (planes at any stride or offset are read through GstVideoFrame) and,
 * for CUDA memory of a format GstCudaMemory allocates, a GstCudaBufferPool
 * on our context.  FALSE when the caps are not raw video (nothing
 * added). */
gboolean gst_sci_backend_propose_allocation (GstSciBackendState * b,
    GstQuery * query);

/* For output in CUDA memory (out_cuda_memory): sets the query's first pool
 * to a device pool of `payload`-byte buffers (downstream's
 * GstCudaBufferPool on our context, else one of ours; a blob pool for
 * non-video data and for video formats GstCudaMemory cannot allocate).
 * FALSE posts an error. */
gboolean gst_sci_backend_decide_device_pool (GstSciBackendState * b,
    GstQuery * query, GstCaps * outcaps, gboolean video, gsize payload);

G_END_DECLS
#endif
