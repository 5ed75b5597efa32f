#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstscifilter.h"

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_sci_filter_debug);
#define GST_CAT_DEFAULT gst_sci_filter_debug

enum
{
  PROP_0,
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_THREADS,
};

#define DEFAULT_BACKEND GST_SCI_BACKEND_AUTO
#define DEFAULT_DEVICE_ID -1
#define DEFAULT_THREADS 0

#define gst_sci_filter_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstSciFilter, gst_sci_filter,
    GST_TYPE_BASE_TRANSFORM,
    GST_DEBUG_CATEGORY_INIT (gst_sci_filter_debug, "scifilter", 0,
        "scicodec filter base class"));

static void
gst_sci_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSciFilter *self = GST_SCI_FILTER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      self->backend = g_value_get_enum (value);
      break;
    case PROP_DEVICE_ID:
      self->device_id = g_value_get_int (value);
      break;
    case PROP_THREADS:
      self->threads = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_sci_filter_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstSciFilter *self = GST_SCI_FILTER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      g_value_set_enum (value, self->backend);
      break;
    case PROP_DEVICE_ID:
      g_value_set_int (value, self->device_id);
      break;
    case PROP_THREADS:
      g_value_set_uint (value, self->threads);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

#if HAVE_CUDA
static void
gst_sci_filter_set_context (GstElement * element, GstContext * context)
{
  GstSciFilter *self = GST_SCI_FILTER (element);

  gst_cuda_handle_set_context (element, context, self->device_id,
      &self->cuda.context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_sci_filter_ensure_context (GstSciFilter * self)
{
  return gst_cuda_ensure_element_context (GST_ELEMENT (self), self->device_id,
      &self->cuda.context);
}
#endif

/* Says why the kernels do not run (the text of the no-GPU messages);
 * takes `reason`. */
static void
set_cpu_reason (GstSciFilter * self, gchar * reason)
{
  g_free (self->cpu_reason);
  self->cpu_reason = reason;
}

static gboolean
gst_sci_filter_start (GstBaseTransform * trans)
{
  GstSciFilter *self = GST_SCI_FILTER (trans);
  GstSciBackend backend;
  gint device_id;
  guint threads;

  GST_OBJECT_LOCK (self);
  backend = self->backend;
  device_id = self->device_id;
  threads = self->threads;
  GST_OBJECT_UNLOCK (self);

  self->use_cuda = FALSE;
  self->refusal_posted = FALSE;
  set_cpu_reason (self, NULL);
#if HAVE_CUDA
  if (backend == GST_SCI_BACKEND_CPU) {
    set_cpu_reason (self, g_strdup ("backend=cpu"));
  } else if (!gst_cuda_load_library ()) {
    /* Without libcuda every driver call would abort inside gstcuda. */
    set_cpu_reason (self, g_strdup ("no CUDA driver library (libcuda) "
            "could be loaded"));
  } else if (!gst_sci_filter_ensure_context (self)) {
    set_cpu_reason (self, device_id >= 0 ?
        g_strdup_printf ("CUDA device %d cannot be opened", device_id) :
        g_strdup ("no CUDA device could be opened"));
  } else {
    gint err = gst_sci_cuda_open_stream (&self->cuda);
    if (err == 0) {
      /* GstCudaBufferPool allocates through the default CUDA allocator,
       * which exists only once this has run. */
      gst_cuda_memory_init_once ();
      self->use_cuda = TRUE;
    } else {
      set_cpu_reason (self, g_strdup_printf ("cannot create a CUDA stream: "
              "%s", gst_sci_cuda_error_name (err)));
    }
  }
  if (self->cpu_reason)
    GST_INFO_OBJECT (self, "%s", self->cpu_reason);
  if (!self->use_cuda && backend == GST_SCI_BACKEND_CUDA) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("backend=cuda, but no usable CUDA device was found"),
        ("%s; use backend=auto or backend=cpu to run on the CPU",
            self->cpu_reason));
    return FALSE;
  }
#else
  set_cpu_reason (self, g_strdup ("this build has no CUDA backend"));
  if (backend == GST_SCI_BACKEND_CUDA) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("backend=cuda, but this build has no CUDA backend"),
        ("rebuild with -Dcuda=enabled, or use backend=auto or backend=cpu"));
    return FALSE;
  }
#endif
  /* A device the user named (the default, -1, names none) that cannot be
   * used is worth saying out loud: auto would otherwise run on the CPU as
   * if no GPU had been asked for. */
  if (!self->use_cuda && backend == GST_SCI_BACKEND_AUTO && device_id >= 0)
    GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
        ("CUDA device %d (cuda-device-id) cannot be used: running on the "
            "CPU", device_id), ("%s", self->cpu_reason));
  /* workers start at the first parallel region: none on the GPU path */
  g_clear_pointer (&self->pool, sci_pool_free);
  self->pool = sci_pool_new (threads);
  if (!self->pool) {
#if HAVE_CUDA
    gst_sci_cuda_close (&self->cuda);
#endif
    self->use_cuda = FALSE;
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Cannot create the CPU thread pool (out of memory)"), (NULL));
    return FALSE;
  }
  GST_INFO_OBJECT (self, "CPU backend threads: %u (threads=%u)",
      sci_pool_threads (self->pool), threads);
  GST_OBJECT_LOCK (self);
  self->offer_cuda_memory = self->use_cuda;
  GST_OBJECT_UNLOCK (self);
  if (self->use_cuda)
    GST_INFO_OBJECT (self, "backend: CUDA");
  else
    GST_INFO_OBJECT (self, "backend: CPU (C reference)");
  return TRUE;
}

static gboolean
gst_sci_filter_stop (GstBaseTransform * trans)
{
  GstSciFilter *self = GST_SCI_FILTER (trans);

#if HAVE_CUDA
  gst_sci_cuda_close (&self->cuda);
#endif
  /* no codec call runs after stop */
  g_clear_pointer (&self->pool, sci_pool_free);
  self->use_cuda = FALSE;
  self->in_cuda_memory = self->out_cuda_memory = FALSE;
  set_cpu_reason (self, NULL);
  GST_OBJECT_LOCK (self);
  self->offer_cuda_memory = TRUE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static void
gst_sci_filter_finalize (GObject * object)
{
  set_cpu_reason (GST_SCI_FILTER (object), NULL);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ---- negotiation failures that a missing GPU explains ---- */

#define CUDA_MEMORY_FEATURE "memory:CUDAMemory"

/* Whether every structure of `caps` (not empty, not ANY) is in CUDA
 * memory: then a peer takes nothing else. */
static gboolean
caps_cuda_only (GstCaps * caps)
{
  guint i, n;

  if (!caps || gst_caps_is_any (caps) || gst_caps_is_empty (caps))
    return FALSE;
  n = gst_caps_get_size (caps);
  for (i = 0; i < n; i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    if (!f || gst_caps_features_is_any (f)
        || !gst_caps_features_contains (f, CUDA_MEMORY_FEATURE))
      return FALSE;
  }
  return TRUE;
}

/* When the kernels do not run (no usable device, backend=cpu) the pads
 * offer system memory only, so a peer that takes only CUDA memory
 * (`wanted`, on the `direction` side) cannot negotiate: posts the error
 * that says so and why, once per start, and returns TRUE; FALSE (nothing
 * posted) when that is not the reason. */
static gboolean
explain_cpu_only (GstSciFilter * self, GstPadDirection direction,
    GstCaps * wanted)
{
  gboolean offer;

  GST_OBJECT_LOCK (self);
  offer = self->offer_cuda_memory;
  GST_OBJECT_UNLOCK (self);
  if (offer || !self->cpu_reason || !caps_cuda_only (wanted))
    return FALSE;
  if (!self->refusal_posted) {
    self->refusal_posted = TRUE;
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s only CUDA memory (memory:CUDAMemory), but %s runs on the CPU: "
            "%s", direction == GST_PAD_SRC ? "Downstream takes" :
            "Upstream offers", GST_OBJECT_NAME (self), self->cpu_reason),
        ("%s caps: %" GST_PTR_FORMAT "; without a usable GPU, leave out the "
            "memory:CUDAMemory capsfilter or cudaupload/cudadownload",
            direction == GST_PAD_SRC ? "downstream" : "upstream", wanted));
  }
  return TRUE;
}

/* After a caps query on the `direction` pad found nothing: whether the
 * peer of the other pad takes the other pad's template in CUDA memory
 * (what a GPU would let this element offer) and not in system memory (so
 * that nothing else, a size or a format, is the reason); then explained
 * as above. */
static void
explain_other_side (GstSciFilter * self, GstPadDirection direction)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstPad *other = direction == GST_PAD_SINK ?
      GST_BASE_TRANSFORM_SRC_PAD (trans) : GST_BASE_TRANSFORM_SINK_PAD (trans);
  GstCaps *templ = gst_pad_get_pad_template_caps (other);
  GstCaps *cuda = gst_caps_new_empty (), *sys = gst_caps_new_empty ();
  GstCaps *peer = NULL;
  guint i;

  for (i = 0; i < gst_caps_get_size (templ); i++) {
    GstCapsFeatures *f = gst_caps_get_features (templ, i);
    GstStructure *st = gst_caps_get_structure (templ, i);

    if (f && !gst_caps_features_is_any (f)
        && gst_caps_features_contains (f, CUDA_MEMORY_FEATURE))
      cuda = gst_caps_merge_structure_full (cuda, gst_structure_copy (st),
          gst_caps_features_copy (f));
    else
      sys = gst_caps_merge_structure (sys, gst_structure_copy (st));
  }
  gst_caps_unref (templ);
  if (!gst_caps_is_empty (cuda) && !gst_caps_is_empty (sys)) {
    peer = gst_pad_peer_query_caps (other, sys);
    if (gst_caps_is_empty (peer)) {
      gst_caps_unref (peer);
      peer = gst_pad_peer_query_caps (other, cuda);
      if (!gst_caps_is_empty (peer))
        explain_cpu_only (self, GST_PAD_DIRECTION (other), peer);
    }
  }
  gst_clear_caps (&peer);
  gst_caps_unref (cuda);
  gst_caps_unref (sys);
}

gboolean
gst_sci_filter_post_refused (GstSciFilter * self, GstCaps * caps)
{
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (self);
  GstCaps *peer = gst_pad_peer_query_caps (srcpad, NULL);

  if (!explain_cpu_only (self, GST_PAD_SRC, peer))
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream refused the caps of the decoded data: %" GST_PTR_FORMAT,
            caps), ("downstream takes %" GST_PTR_FORMAT, peer));
  gst_caps_unref (peer);
  return FALSE;
}

/* A caps event that could not be set: said in plain words where the reason
 * is CUDA memory without a usable device (else the base class' not-
 * negotiated stands). */
static gboolean
gst_sci_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstSciFilter *self = GST_SCI_FILTER (trans);
  GstCaps *caps = NULL;
  gboolean ret;

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    gst_event_parse_caps (event, &caps);
    gst_caps_ref (caps);
  }
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
  if (caps && !ret && !explain_cpu_only (self, GST_PAD_SINK, caps)) {
    GstCaps *peer =
        gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (trans), NULL);

    explain_cpu_only (self, GST_PAD_SRC, peer);
    gst_caps_unref (peer);
  }
  gst_clear_caps (&caps);
  return ret;
}

static gboolean
gst_sci_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstSciFilter *self = GST_SCI_FILTER (trans);
  gboolean ret;

#if HAVE_CUDA
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_cuda_handle_context_query (GST_ELEMENT (self), query,
          self->cuda.context))
    return TRUE;
#endif
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
  /* Nothing to offer: negotiation is about to fail.  Said in plain words
   * where a missing GPU is the reason: the peer asking wants CUDA memory
   * only, or the peer on the other side takes CUDA memory where system
   * memory found nothing (cudadwt ! application/x-wavelet(memory:CUDAMemory)
   * ! htj2kenc without a GPU: the capsfilter answers the system-memory
   * query empty, the one in CUDA memory reaches htj2kenc, whose own check
   * here speaks). */
  if (ret && GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    GstCaps *filter = NULL, *result = NULL;

    gst_query_parse_caps (query, &filter);
    gst_query_parse_caps_result (query, &result);
    if (result && gst_caps_is_empty (result) && self->cpu_reason
        && !explain_cpu_only (self, direction, filter))
      explain_other_side (self, direction);
  }
  return ret;
}

#if HAVE_CUDA
/* Whether GStreamer 1.22 can allocate GstCudaMemory for frames of
 * `format`: its allocator knows these formats only and aborts
 * (g_assert_not_reached) on any other, GRAY8 and GRAY16_LE included, so
 * no GstCudaBufferPool may be configured, or proposed, for the rest. */
static gboolean
cuda_memory_allocates (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_YV12:
    case GST_VIDEO_FORMAT_I420_10LE:
    case GST_VIDEO_FORMAT_Y42B:
    case GST_VIDEO_FORMAT_I422_10LE:
    case GST_VIDEO_FORMAT_I422_12LE:
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_NV21:
    case GST_VIDEO_FORMAT_P010_10LE:
    case GST_VIDEO_FORMAT_P016_LE:
    case GST_VIDEO_FORMAT_Y444:
    case GST_VIDEO_FORMAT_Y444_16LE:
    case GST_VIDEO_FORMAT_RGBP:
    case GST_VIDEO_FORMAT_BGRP:
    case GST_VIDEO_FORMAT_GBR:
    case GST_VIDEO_FORMAT_GBRA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_ARGB:
    case GST_VIDEO_FORMAT_ABGR:
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
    case GST_VIDEO_FORMAT_BGR10A2_LE:
    case GST_VIDEO_FORMAT_RGB10A2_LE:
    case GST_VIDEO_FORMAT_YUY2:
    case GST_VIDEO_FORMAT_UYVY:
      return TRUE;
    default:
      return FALSE;
  }
}
#endif

static gboolean
gst_sci_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCaps *caps;
  GstVideoInfo info;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  if (decide_query == NULL)
    return TRUE;
  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return TRUE;
  /* Planes may then come with any stride or offset: we read them through
   * GstVideoFrame. */
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
#if HAVE_CUDA
  {
    GstSciFilter *self = GST_SCI_FILTER (trans);
    GstCapsFeatures *features = gst_caps_get_features (caps, 0);

    if (gst_sci_caps_features_is_cuda (features) && self->cuda.context
        && cuda_memory_allocates (GST_VIDEO_INFO_FORMAT (&info))
        && gst_query_get_n_allocation_pools (query) == 0) {
      GstBufferPool *pool = gst_cuda_buffer_pool_new (self->cuda.context);
      GstStructure *config = gst_buffer_pool_get_config (pool);

      gst_buffer_pool_config_add_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_META);
      gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
      if (!gst_buffer_pool_set_config (pool, config)) {
        GST_WARNING_OBJECT (self, "cannot configure the proposed pool");
        gst_object_unref (pool);
        return TRUE;
      }
      /* The pool may have grown the size for device pitch. */
      config = gst_buffer_pool_get_config (pool);
      gst_buffer_pool_config_get_params (config, NULL, (guint *) & info.size,
          NULL, NULL);
      gst_structure_free (config);
      gst_query_add_allocation_pool (query, pool, info.size, 0, 0);
      gst_object_unref (pool);
    }
  }
#endif
  return TRUE;
}

static gboolean
gst_sci_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
#if HAVE_CUDA
  GstSciFilter *self = GST_SCI_FILTER (trans);
  GstSciFilterClass *klass = GST_SCI_FILTER_GET_CLASS (self);
  GstCaps *outcaps;
  GstBufferPool *pool = NULL;
  GstStructure *config;
  guint size = 0, min = 0, max = 0;
  gsize payload = 0;
  gboolean update, video_pool = FALSE;

  gst_query_parse_allocation (query, &outcaps, NULL);
  if (!outcaps || !self->out_cuda_memory)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
        query);

  update = gst_query_get_n_allocation_pools (query) > 0;
  if (klass->src_is_video) {
    GstVideoInfo info;

    if (!gst_video_info_from_caps (&info, outcaps))
      return FALSE;
    video_pool = cuda_memory_allocates (GST_VIDEO_INFO_FORMAT (&info));
    payload = info.size;
  } else if (!GST_BASE_TRANSFORM_GET_CLASS (trans)->transform_size (trans,
          GST_PAD_SINK, NULL, 0, outcaps, &payload) || payload == 0) {
    return FALSE;
  }
  if (video_pool) {
    if (update) {
      gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
      if (pool && (!GST_IS_CUDA_BUFFER_POOL (pool)
              || GST_CUDA_BUFFER_POOL (pool)->context != self->cuda.context))
        gst_clear_object (&pool);
    }
    if (!pool)
      pool = gst_cuda_buffer_pool_new (self->cuda.context);
    size = MAX (size, (guint) payload);
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  } else {
    /* Non-video data, or frames of a format that GstCudaMemory cannot
     * hold: one flat device block each, video frames laid out as their
     * caps say (default strides, no video meta). */
    pool = gst_sci_cuda_blob_pool_new (self->cuda.context);
    if (!pool) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("no CUDA memory allocator is registered"), (NULL));
      return FALSE;
    }
    size = payload;
    config = gst_buffer_pool_get_config (pool);
  }
  gst_buffer_pool_config_set_params (config, outcaps, size, min, max);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("cannot configure the device buffer pool"), (NULL));
    gst_object_unref (pool);
    return FALSE;
  }
  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
#else
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
#endif
}

static void
gst_sci_filter_class_init (GstSciFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_sci_filter_set_property;
  gobject_class->get_property = gst_sci_filter_get_property;
  gobject_class->finalize = gst_sci_filter_finalize;

  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where the work runs: auto picks CUDA when a device is usable "
          "(the debug log says which), else the CPU",
          GST_TYPE_SCI_BACKEND, DEFAULT_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use; -1 takes the pipeline's context, or device 0",
          -1, G_MAXINT, DEFAULT_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_uint ("threads", "Threads",
          "Threads of the CPU backend, this element's own: 0 = one per CPU "
          "the process may use, 1 = the streaming thread alone. More "
          "threads finish a frame sooner where cores are free; idle ones "
          "sleep and never spin, so the default costs nothing between "
          "frames, in live chains of several elements too. 1 holds the "
          "element to one core's worth, for hosts whose other work must "
          "keep its share. Every value gives the same output. Read at "
          "start (READY to PAUSED): a change takes effect at the next start",
          0, SCI_POOL_MAX_THREADS, DEFAULT_THREADS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

#if HAVE_CUDA
  GST_ELEMENT_CLASS (klass)->set_context = gst_sci_filter_set_context;
#endif
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_sci_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_sci_filter_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_sci_filter_query);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_sci_filter_sink_event);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_sci_filter_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_sci_filter_decide_allocation);

  gst_type_mark_as_plugin_api (GST_TYPE_SCI_FILTER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_SCI_BACKEND, 0);
}

static void
gst_sci_filter_init (GstSciFilter * self)
{
  self->backend = DEFAULT_BACKEND;
  self->device_id = DEFAULT_DEVICE_ID;
  self->offer_cuda_memory = TRUE;
}

GstCaps *
gst_sci_filter_template_caps (const gchar * structure)
{
  GstCaps *caps = gst_caps_from_string (structure);
#if HAVE_CUDA
  GstCaps *cuda = gst_caps_copy (caps);

  gst_caps_set_features_simple (cuda,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  caps = gst_caps_merge (cuda, caps);
#endif
  return caps;
}

GstCaps *
gst_sci_filter_with_features (GstSciFilter * self, GstCaps * base,
    GstCapsFeatures * preferred)
{
  GstCaps *result = gst_caps_new_empty ();
  guint i, k, n = gst_caps_get_size (base);
  gboolean cuda_first = FALSE, offer_cuda;

  GST_OBJECT_LOCK (self);
  offer_cuda = self->offer_cuda_memory;
  GST_OBJECT_UNLOCK (self);
#if HAVE_CUDA
  cuda_first = gst_sci_caps_features_is_cuda (preferred);
#endif
  for (i = 0; i < n; i++) {
    GstStructure *s = gst_caps_get_structure (base, i);

    for (k = 0; k < 2; k++) {
      gboolean cuda = (k == 0) == cuda_first;
      GstCapsFeatures *f = NULL;        /* system memory */

      if (cuda && !offer_cuda)
        continue;
#if HAVE_CUDA
      if (cuda)
        f = gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL);
#else
      if (cuda)
        continue;
#endif
      result = gst_caps_merge_structure_full (result, gst_structure_copy (s),
          f);
    }
  }
  return result;
}

void
gst_sci_structure_copy_fields (GstStructure * dst, const GstStructure * src,
    const gchar * const *names, guint n_names)
{
  guint i;

  if (!src)
    return;
  for (i = 0; i < n_names; i++) {
    const GValue *v = gst_structure_get_value (src, names[i]);

    if (v)
      gst_structure_set_value (dst, names[i], v);
  }
}

GstCaps *
gst_sci_filter_finish_caps (GstSciFilter * self, GstPadDirection direction,
    GstCaps * caps, GstCaps * result, GstCaps * filter)
{
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, result,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = tmp;
  }
  GST_DEBUG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

gboolean
gst_sci_filter_set_memory (GstSciFilter * self, GstCaps * incaps,
    GstCaps * outcaps)
{
#if HAVE_CUDA
  self->in_cuda_memory =
      gst_sci_caps_features_is_cuda (gst_caps_get_features (incaps, 0));
  self->out_cuda_memory =
      gst_sci_caps_features_is_cuda (gst_caps_get_features (outcaps, 0));
  if (self->out_cuda_memory
      && GST_SCI_FILTER_GET_CLASS (self)->src_system_memory) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("CUDA memory was negotiated on the src pad, whose data is host "
            "memory only"), ("%" GST_PTR_FORMAT, outcaps));
    return FALSE;
  }
  if ((self->in_cuda_memory || self->out_cuda_memory) && !self->cuda.context
      && !gst_sci_filter_ensure_context (self)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("CUDA memory was negotiated but no CUDA context could be had"),
        (NULL));
    return FALSE;
  }
#else
  self->in_cuda_memory = self->out_cuda_memory = FALSE;
#endif
  return TRUE;
}

gboolean
gst_sci_filter_cuda_failed (GstSciFilter * self, const gchar * what,
    gint cuda_err)
{
#if HAVE_CUDA
  const gchar *why = gst_sci_cuda_error_name (cuda_err);
#else
  const gchar *why = "no CUDA backend";
#endif

  /* The C reference cannot take over buffers in device memory. */
  if (self->backend == GST_SCI_BACKEND_CUDA || self->in_cuda_memory
      || self->out_cuda_memory) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("CUDA failed: %s", what), ("%s", why));
    return FALSE;
  }
  GST_ELEMENT_WARNING (self, RESOURCE, FAILED,
      ("CUDA failed (%s): falling back to the CPU backend", what), ("%s", why));
  self->use_cuda = FALSE;
  set_cpu_reason (self, g_strdup_printf ("CUDA failed (%s: %s)", what, why));
  GST_OBJECT_LOCK (self);
  self->offer_cuda_memory = FALSE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

gboolean
gst_sci_filter_frame_cuda_failed (GstSciFilter * self, gboolean sent,
    const gchar * what, gint cuda_err)
{
  if (sent) {
#if HAVE_CUDA
    const gchar *why = gst_sci_cuda_error_name (cuda_err);
#else
    const gchar *why = "no CUDA backend";
#endif
    /* the stream has begun on the GPU: it does not change backend */
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("CUDA %s failed", what),
        ("%s", why));
    return FALSE;
  }
  return gst_sci_filter_cuda_failed (self, what, cuda_err);
}

GstAllocator *
gst_sci_filter_coded_allocator (GstSciFilter * self, GstAllocator ** cache,
    GstAllocator * fallback)
{
#if HAVE_CUDA
  if (self->use_cuda && self->cuda.context) {
    if (!*cache)
      *cache = gst_sci_cuda_host_allocator_new (self->cuda.context);
    return *cache;
  }
#endif
  return fallback;
}

#if HAVE_CUDA
void
gst_sci_filter_cuda_state_close (GstSciFilter * self, gpointer * state,
    GDestroyNotify destroy)
{
  if (!*state)
    return;
  if (gst_sci_cuda_push (&self->cuda)) {
    destroy (*state);
    gst_sci_cuda_pop ();
  } else {
    GST_WARNING_OBJECT (self, "no CUDA context to free the device state in");
  }
  *state = NULL;
}

gboolean
gst_sci_filter_cuda_state_open (GstSciFilter * self, gpointer * state,
    GstSciCudaStateNew create, GDestroyNotify destroy, const gchar * what)
{
  const gchar *failed = "context push";
  gint err = 0;

  if (*state)
    return TRUE;
  if (gst_sci_cuda_push (&self->cuda)) {
    failed = NULL;
    if ((err = create (state))) {
      failed = what;
      cudaGetLastError ();
      /* the one negative code of a constructor is host memory running out */
      if (err < 0)
        err = cudaErrorMemoryAllocation;
    }
    gst_sci_cuda_pop ();
  }
  if (!failed)
    return TRUE;
  gst_sci_filter_cuda_state_close (self, state, destroy);
  return gst_sci_filter_cuda_failed (self, failed, err);
}
#endif

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
