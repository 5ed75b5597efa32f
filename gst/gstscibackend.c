#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstscibackend.h"

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_sci_backend_debug);
#define GST_CAT_DEFAULT gst_sci_backend_debug

#define DEFAULT_BACKEND GST_SCI_BACKEND_AUTO
#define DEFAULT_DEVICE_ID -1
#define DEFAULT_THREADS 0

#define CUDA_MEMORY_FEATURE "memory:CUDAMemory"

/* the properties, counted from a base class' first id */
enum
{
  GST_SCI_BACKEND_PROP_BACKEND,
  GST_SCI_BACKEND_PROP_DEVICE_ID,
  GST_SCI_BACKEND_PROP_THREADS,
};

GType
gst_sci_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_SCI_BACKEND_AUTO,
        "CUDA when a usable device is present, else the CPU", "auto"},
    {GST_SCI_BACKEND_CUDA, "CUDA kernels (error when no device is usable)",
        "cuda"},
    {GST_SCI_BACKEND_CPU, "The C reference on the CPU", "cpu"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSciBackend", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* Any property may be what made the caps unacceptable. */
static void
forget_refused_caps (GObject * object, GParamSpec * pspec, gpointer data)
{
  GstSciBackendState *b = data;

  GST_OBJECT_LOCK (b->element);
  gst_clear_caps (&b->refused_caps);
  GST_OBJECT_UNLOCK (b->element);
}

void
gst_sci_backend_state_init (GstSciBackendState * b, GstElement * element)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_sci_backend_debug, "scibackend", 0,
        "scicodec backend choice, CUDA context and thread pool");
    g_once_init_leave (&done, 1);
  }
  memset (b, 0, sizeof (*b));
  b->element = element;
  g_signal_connect (element, "notify", G_CALLBACK (forget_refused_caps), b);
  b->choice = DEFAULT_BACKEND;
  b->device_id = DEFAULT_DEVICE_ID;
  b->threads = DEFAULT_THREADS;
  b->offer_cuda_memory = TRUE;
}

/* Says why the kernels do not run (the text of the no-GPU messages);
 * takes `reason`. */
static void
set_cpu_reason (GstSciBackendState * b, gchar * reason)
{
  g_free (b->cpu_reason);
  b->cpu_reason = reason;
}

void
gst_sci_backend_state_clear (GstSciBackendState * b)
{
  set_cpu_reason (b, NULL);
  gst_clear_caps (&b->refused_caps);
}

/* ---- properties ---- */

/* Where a base class' instances hold their state, and its first property
 * id: on the class' GType. */
typedef struct
{
  guint first_id;
  glong state_offset;
} PropertyPlace;

static GQuark
property_place_quark (void)
{
  static GQuark q = 0;

  if (!q)
    q = g_quark_from_static_string ("gst-sci-backend-property-place");
  return q;
}

void
gst_sci_backend_install_properties (GObjectClass * klass, guint first_id,
    glong state_offset)
{
  PropertyPlace *place = g_new (PropertyPlace, 1);

  place->first_id = first_id;
  place->state_offset = state_offset;
  g_type_set_qdata (G_OBJECT_CLASS_TYPE (klass), property_place_quark (),
      place);
  klass->set_property = gst_sci_backend_object_set_property;
  klass->get_property = gst_sci_backend_object_get_property;
  g_object_class_install_property (klass,
      first_id + GST_SCI_BACKEND_PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where the work runs: auto picks CUDA when a device is usable "
          "(the debug log says which), else the CPU",
          GST_TYPE_SCI_BACKEND, DEFAULT_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (klass,
      first_id + GST_SCI_BACKEND_PROP_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use; -1 takes the pipeline's context, or device 0",
          -1, G_MAXINT, DEFAULT_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (klass,
      first_id + GST_SCI_BACKEND_PROP_THREADS,
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
  gst_type_mark_as_plugin_api (GST_TYPE_SCI_BACKEND, 0);
}

/* The state of `object` and the backend's id of the property of `pspec`
 * (which its base class installed); where no base class installed it, NULL
 * and an id that no case of the accessors takes. */
static GstSciBackendState *
property_state (GObject * object, GParamSpec * pspec, guint prop_id, guint * id)
{
  PropertyPlace *place = g_type_get_qdata (pspec->owner_type,
      property_place_quark ());

  *id = G_MAXUINT;
  g_return_val_if_fail (place != NULL, NULL);
  *id = prop_id - place->first_id;
  return G_STRUCT_MEMBER_P (object, place->state_offset);
}

void
gst_sci_backend_object_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  guint id;
  GstSciBackendState *b = property_state (object, pspec, prop_id, &id);

  GST_OBJECT_LOCK (object);
  switch (id) {
    case GST_SCI_BACKEND_PROP_BACKEND:
      b->choice = g_value_get_enum (value);
      break;
    case GST_SCI_BACKEND_PROP_DEVICE_ID:
      b->device_id = g_value_get_int (value);
      break;
    case GST_SCI_BACKEND_PROP_THREADS:
      b->threads = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

void
gst_sci_backend_object_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  guint id;
  GstSciBackendState *b = property_state (object, pspec, prop_id, &id);

  GST_OBJECT_LOCK (object);
  switch (id) {
    case GST_SCI_BACKEND_PROP_BACKEND:
      g_value_set_enum (value, b->choice);
      break;
    case GST_SCI_BACKEND_PROP_DEVICE_ID:
      g_value_set_int (value, b->device_id);
      break;
    case GST_SCI_BACKEND_PROP_THREADS:
      g_value_set_uint (value, b->threads);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

/* ---- start, stop, context ---- */

#if HAVE_CUDA
void
gst_sci_backend_set_context (GstSciBackendState * b, GstContext * context)
{
  gst_cuda_handle_set_context (b->element, context, b->device_id,
      &b->cuda.context);
}

gboolean
gst_sci_backend_query_context (GstSciBackendState * b, GstQuery * query)
{
  return GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_cuda_handle_context_query (b->element, query, b->cuda.context);
}

static gboolean
ensure_context (GstSciBackendState * b)
{
  return gst_cuda_ensure_element_context (b->element, b->device_id,
      &b->cuda.context);
}
#else
void
gst_sci_backend_set_context (GstSciBackendState * b, GstContext * context)
{
}

gboolean
gst_sci_backend_query_context (GstSciBackendState * b, GstQuery * query)
{
  return FALSE;
}
#endif

/* Whether the kernels can run: a CUDA context (the pipeline's or a new
 * one) and a stream of our own; else cpu_reason says why not. */
static void
choose_backend (GstSciBackendState * b, GstSciBackend choice, gint device_id)
{
#if HAVE_CUDA
  if (choice == GST_SCI_BACKEND_CPU) {
    set_cpu_reason (b, g_strdup ("backend=cpu"));
  } else if (!gst_cuda_load_library ()) {
    /* Without libcuda every driver call would abort inside gstcuda. */
    set_cpu_reason (b, g_strdup ("no CUDA driver library (libcuda) "
            "could be loaded"));
  } else if (!ensure_context (b)) {
    set_cpu_reason (b, device_id >= 0 ?
        g_strdup_printf ("CUDA device %d cannot be opened", device_id) :
        g_strdup ("no CUDA device could be opened"));
  } else {
    gint err = gst_sci_cuda_open_stream (&b->cuda);
    if (err == 0) {
      /* GstCudaBufferPool allocates through the default CUDA allocator,
       * which exists only once this has run. */
      gst_cuda_memory_init_once ();
      b->use_cuda = TRUE;
    } else {
      set_cpu_reason (b, g_strdup_printf ("cannot create a CUDA stream: "
              "%s", gst_sci_cuda_error_name (err)));
    }
  }
#else
  set_cpu_reason (b, g_strdup ("this build has no CUDA backend"));
#endif
}

gboolean
gst_sci_backend_start (GstSciBackendState * b)
{
  GstElement *e = b->element;
  GstSciBackend choice;
  gint device_id;
  guint threads;

  GST_OBJECT_LOCK (e);
  choice = b->choice;
  device_id = b->device_id;
  threads = b->threads;
  GST_OBJECT_UNLOCK (e);

  b->use_cuda = FALSE;
  b->refusal_posted = FALSE;
  set_cpu_reason (b, NULL);
  choose_backend (b, choice, device_id);
  if (b->cpu_reason)
    GST_INFO_OBJECT (e, "%s", b->cpu_reason);
  if (!b->use_cuda && choice == GST_SCI_BACKEND_CUDA) {
#if HAVE_CUDA
    GST_ELEMENT_ERROR (e, RESOURCE, NOT_FOUND,
        ("backend=cuda, but no usable CUDA device was found"),
        ("%s; use backend=auto or backend=cpu to run on the CPU",
            b->cpu_reason));
#else
    GST_ELEMENT_ERROR (e, RESOURCE, NOT_FOUND,
        ("backend=cuda, but this build has no CUDA backend"),
        ("rebuild with -Dcuda=enabled, or use backend=auto or backend=cpu"));
#endif
    return FALSE;
  }
  /* A device the user named (the default, -1, names none) that cannot be
   * used is worth saying out loud: auto would otherwise run on the CPU as
   * if no GPU had been asked for. */
  if (!b->use_cuda && choice == GST_SCI_BACKEND_AUTO && device_id >= 0)
    GST_ELEMENT_WARNING (e, RESOURCE, NOT_FOUND,
        ("CUDA device %d (cuda-device-id) cannot be used: running on the "
            "CPU", device_id), ("%s", b->cpu_reason));
  /* workers start at the first parallel region: none on the GPU path */
  g_clear_pointer (&b->pool, sci_pool_free);
  b->pool = sci_pool_new (threads);
  if (!b->pool) {
#if HAVE_CUDA
    gst_sci_cuda_close (&b->cuda);
#endif
    b->use_cuda = FALSE;
    GST_ELEMENT_ERROR (e, RESOURCE, NO_SPACE_LEFT,
        ("Cannot create the CPU thread pool (out of memory)"), (NULL));
    return FALSE;
  }
  GST_INFO_OBJECT (e, "CPU backend threads: %u (threads=%u)",
      sci_pool_threads (b->pool), threads);
  GST_OBJECT_LOCK (e);
  b->offer_cuda_memory = b->use_cuda;
  GST_OBJECT_UNLOCK (e);
  GST_INFO_OBJECT (e, "backend: %s", b->use_cuda ? "CUDA" :
      "CPU (C reference)");
  return TRUE;
}

void
gst_sci_backend_stop (GstSciBackendState * b)
{
#if HAVE_CUDA
  gst_sci_cuda_close (&b->cuda);
#endif
  /* no codec call runs after stop */
  g_clear_pointer (&b->pool, sci_pool_free);
  b->use_cuda = FALSE;
  b->in_cuda_memory = b->out_cuda_memory = FALSE;
  set_cpu_reason (b, NULL);
  GST_OBJECT_LOCK (b->element);
  b->offer_cuda_memory = TRUE;
  gst_clear_caps (&b->refused_caps);
  GST_OBJECT_UNLOCK (b->element);
}

/* ---- caps ---- */

void
gst_sci_caps_set_cuda_memory (GstCaps * caps, gboolean cuda)
{
#if HAVE_CUDA
  if (cuda)
    gst_caps_set_features_simple (caps,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
#endif
}

GstCaps *
gst_sci_template_caps (const gchar * structure)
{
  GstCaps *caps = gst_caps_from_string (structure);
#if HAVE_CUDA
  GstCaps *cuda = gst_caps_copy (caps);

  gst_sci_caps_set_cuda_memory (cuda, TRUE);
  caps = gst_caps_merge (cuda, caps);
#endif
  return caps;
}

GstCaps *
gst_sci_backend_with_features (GstSciBackendState * b, GstCaps * base,
    GstCapsFeatures * preferred)
{
  GstCaps *result = gst_caps_new_empty ();
  guint i, k, n = gst_caps_get_size (base);
  gboolean cuda_first = FALSE, offer_cuda;

  GST_OBJECT_LOCK (b->element);
  offer_cuda = b->offer_cuda_memory;
  GST_OBJECT_UNLOCK (b->element);
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
gst_sci_caps_narrow (GstObject * obj, GstPadDirection direction,
    GstCaps * caps, GstCaps * result, GstCaps * filter)
{
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, result,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = tmp;
  }
  GST_DEBUG_OBJECT (obj, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

GstCaps *
gst_sci_backend_pad_caps (GstSciBackendState * b, GstPad * pad,
    GstPad * other, GstSciTransformCaps transform, GstCaps * filter)
{
  GstCaps *otempl = gst_pad_get_pad_template_caps (other);
  GstCaps *templ = gst_pad_get_pad_template_caps (pad);
  GstCaps *peer = gst_pad_peer_query_caps (other, otempl);
  GstCaps *caps = transform (b->element, GST_PAD_DIRECTION (other), peer);
  GstCaps *result = gst_caps_intersect_full (caps, templ,
      GST_CAPS_INTERSECT_FIRST);

  result = gst_sci_caps_narrow (GST_OBJECT (b->element),
      GST_PAD_DIRECTION (other), peer, result, filter);
  gst_caps_unref (caps);
  gst_caps_unref (peer);
  gst_caps_unref (templ);
  gst_caps_unref (otempl);
  return result;
}

void
gst_sci_backend_answer_caps_query (GstSciBackendState * b, GstPad * pad,
    GstPad * other, GstSciTransformCaps transform, GstQuery * query)
{
  GstCaps *filter, *caps;

  gst_query_parse_caps (query, &filter);
  caps = gst_sci_backend_pad_caps (b, pad, other, transform, filter);
  gst_query_set_caps_result (query, caps);
  gst_caps_unref (caps);
  gst_sci_backend_check_caps_query (b, GST_PAD_DIRECTION (pad), other, query);
}

gboolean
gst_sci_backend_set_memory (GstSciBackendState * b, GstCaps * incaps,
    GstCaps * outcaps)
{
#if HAVE_CUDA
  b->in_cuda_memory =
      gst_sci_caps_features_is_cuda (gst_caps_get_features (incaps, 0));
  b->out_cuda_memory = outcaps &&
      gst_sci_caps_features_is_cuda (gst_caps_get_features (outcaps, 0));
  if (b->out_cuda_memory && b->src_system_memory) {
    GST_ELEMENT_ERROR (b->element, CORE, NEGOTIATION,
        ("CUDA memory was negotiated on the src pad, whose data is host "
            "memory only"), ("%" GST_PTR_FORMAT, outcaps));
    return FALSE;
  }
  if ((b->in_cuda_memory || b->out_cuda_memory) && !b->cuda.context
      && !ensure_context (b)) {
    GST_ELEMENT_ERROR (b->element, CORE, NEGOTIATION,
        ("CUDA memory was negotiated but no CUDA context could be had"),
        (NULL));
    return FALSE;
  }
#else
  b->in_cuda_memory = b->out_cuda_memory = FALSE;
#endif
  return TRUE;
}

/* ---- negotiation failures that a missing GPU explains ---- */

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

gboolean
gst_sci_backend_explain_cpu_only (GstSciBackendState * b,
    GstPadDirection direction, GstCaps * wanted)
{
  gboolean offer;

  GST_OBJECT_LOCK (b->element);
  offer = b->offer_cuda_memory;
  GST_OBJECT_UNLOCK (b->element);
  if (offer || !b->cpu_reason || !caps_cuda_only (wanted))
    return FALSE;
  if (!b->refusal_posted) {
    b->refusal_posted = TRUE;
    GST_ELEMENT_ERROR (b->element, CORE, NEGOTIATION,
        ("%s only CUDA memory (memory:CUDAMemory), but %s runs on the CPU: "
            "%s", direction == GST_PAD_SRC ? "Downstream takes" :
            "Upstream offers", GST_OBJECT_NAME (b->element), b->cpu_reason),
        ("%s caps: %" GST_PTR_FORMAT "; without a usable GPU, leave out the "
            "memory:CUDAMemory capsfilter or cudaupload/cudadownload",
            direction == GST_PAD_SRC ? "downstream" : "upstream", wanted));
  }
  return TRUE;
}

/* After a caps query on one pad found nothing: whether the peer of the
 * element's `other` pad takes other's template in CUDA memory (what a GPU
 * would let this element offer) and not in system memory (so that
 * nothing else, a size or a format, is the reason); then explained as
 * above. */
static void
explain_other_side (GstSciBackendState * b, GstPad * other)
{
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
        gst_sci_backend_explain_cpu_only (b, GST_PAD_DIRECTION (other), peer);
    }
  }
  gst_clear_caps (&peer);
  gst_caps_unref (cuda);
  gst_caps_unref (sys);
}

/* Nothing to offer: negotiation is about to fail.  Said in plain words
 * where a missing GPU is the reason: the peer asking wants CUDA memory
 * only, or the peer on the other side takes CUDA memory where system
 * memory found nothing (cudadwt ! application/x-wavelet(memory:CUDAMemory)
 * ! htj2kenc without a GPU: the capsfilter answers the system-memory query
 * empty, the one in CUDA memory reaches htj2kenc, whose own check here
 * speaks). */
void
gst_sci_backend_check_caps_query (GstSciBackendState * b,
    GstPadDirection direction, GstPad * other, GstQuery * query)
{
  GstCaps *filter = NULL, *result = NULL;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CAPS || !b->cpu_reason)
    return;
  gst_query_parse_caps (query, &filter);
  gst_query_parse_caps_result (query, &result);
  if (result && gst_caps_is_empty (result)
      && !gst_sci_backend_explain_cpu_only (b, direction, filter))
    explain_other_side (b, other);
}

gboolean
gst_sci_backend_caps_refused_before (GstSciBackendState * b, GstCaps * caps)
{
  gboolean again;

  GST_OBJECT_LOCK (b->element);
  again = b->refused_caps && gst_caps_is_equal (b->refused_caps, caps);
  GST_OBJECT_UNLOCK (b->element);
  if (again)
    GST_DEBUG_OBJECT (b->element, "refused again, no property changed "
        "since: %" GST_PTR_FORMAT, caps);
  return again;
}

void
gst_sci_backend_caps_outcome (GstSciBackendState * b, GstCaps * caps,
    gboolean accepted)
{
  GST_OBJECT_LOCK (b->element);
  gst_caps_replace (&b->refused_caps, accepted ? NULL : caps);
  GST_OBJECT_UNLOCK (b->element);
}

void
gst_sci_backend_src_event (GstSciBackendState * b, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_RECONFIGURE)
    forget_refused_caps (NULL, NULL, b);
}

void
gst_sci_backend_explain_refused_caps (GstSciBackendState * b,
    GstCaps * caps, GstPad * srcpad)
{
  GstCaps *peer;

  if (gst_sci_backend_explain_cpu_only (b, GST_PAD_SINK, caps))
    return;
  peer = gst_pad_peer_query_caps (srcpad, NULL);
  gst_sci_backend_explain_cpu_only (b, GST_PAD_SRC, peer);
  gst_caps_unref (peer);
}

gboolean
gst_sci_backend_peer_accepts (GstSciBackendState * b, GstPad * srcpad,
    GstCaps ** caps, GstCaps * other, gboolean * cuda)
{
  if (gst_pad_peer_query_accept_caps (srcpad, *caps)) {
    gst_clear_caps (&other);
    return TRUE;
  }
  if (!other || !b->use_cuda || !gst_pad_peer_query_accept_caps (srcpad, other)) {
    gst_clear_caps (&other);
    return FALSE;
  }
  gst_caps_take (caps, other);
  *cuda = !*cuda;
  return TRUE;
}

gboolean
gst_sci_backend_post_refused (GstSciBackendState * b, GstPad * srcpad,
    GstCaps * caps)
{
  GstCaps *peer = gst_pad_peer_query_caps (srcpad, NULL);

  if (!gst_sci_backend_explain_cpu_only (b, GST_PAD_SRC, peer))
    GST_ELEMENT_ERROR (b->element, CORE, NEGOTIATION,
        ("Downstream refused the caps of the decoded data: %" GST_PTR_FORMAT,
            caps), ("downstream takes %" GST_PTR_FORMAT, peer));
  gst_caps_unref (peer);
  return FALSE;
}

/* ---- CUDA failures ---- */

static const gchar *
cuda_error_name (gint cuda_err)
{
#if HAVE_CUDA
  return gst_sci_cuda_error_name (cuda_err);
#else
  return "no CUDA backend";
#endif
}

gboolean
gst_sci_backend_cuda_failed (GstSciBackendState * b, const gchar * what,
    gint cuda_err)
{
  const gchar *why = cuda_error_name (cuda_err);

  /* The C reference cannot take over buffers in device memory. */
  if (b->choice == GST_SCI_BACKEND_CUDA || b->in_cuda_memory
      || b->out_cuda_memory) {
    GST_ELEMENT_ERROR (b->element, RESOURCE, FAILED,
        ("CUDA failed: %s", what), ("%s", why));
    return FALSE;
  }
  GST_ELEMENT_WARNING (b->element, RESOURCE, FAILED,
      ("CUDA failed (%s): falling back to the CPU backend", what), ("%s", why));
  b->use_cuda = FALSE;
  set_cpu_reason (b, g_strdup_printf ("CUDA failed (%s: %s)", what, why));
  GST_OBJECT_LOCK (b->element);
  b->offer_cuda_memory = FALSE;
  GST_OBJECT_UNLOCK (b->element);
  return TRUE;
}

gboolean
gst_sci_backend_frame_cuda_failed (GstSciBackendState * b, gboolean sent,
    const gchar * what, gint cuda_err)
{
  if (sent) {
    /* the stream has begun on the GPU: it does not change backend */
    GST_ELEMENT_ERROR (b->element, RESOURCE, FAILED, ("CUDA %s failed",
            what), ("%s", cuda_error_name (cuda_err)));
    return FALSE;
  }
  return gst_sci_backend_cuda_failed (b, what, cuda_err);
}

#if HAVE_CUDA
void
gst_sci_backend_cuda_state_close (GstSciBackendState * b, gpointer * state,
    GDestroyNotify destroy)
{
  if (!*state)
    return;
  if (gst_sci_cuda_push (&b->cuda)) {
    destroy (*state);
    gst_sci_cuda_pop ();
  } else {
    GST_WARNING_OBJECT (b->element, "no CUDA context to free the device "
        "state in");
  }
  *state = NULL;
}

gboolean
gst_sci_backend_cuda_state_open (GstSciBackendState * b, gpointer * state,
    GstSciCudaStateNew create, GDestroyNotify destroy, const gchar * what)
{
  const gchar *failed = "context push";
  gint err = 0;

  if (*state)
    return TRUE;
  if (gst_sci_cuda_push (&b->cuda)) {
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
  gst_sci_backend_cuda_state_close (b, state, destroy);
  return gst_sci_backend_cuda_failed (b, failed, err);
}
#endif

/* ---- memory ---- */

GstAllocator *
gst_sci_backend_coded_allocator (GstSciBackendState * b,
    GstAllocator ** cache, GstAllocator * fallback)
{
#if HAVE_CUDA
  if (b->use_cuda && b->cuda.context) {
    if (!*cache)
      *cache = gst_sci_cuda_host_allocator_new (b->cuda.context);
    return *cache;
  }
#endif
  return fallback;
}

#if HAVE_CUDA
/* Whether GStreamer 1.22 can allocate GstCudaMemory for frames of
 * `info`: its allocator knows these formats only and aborts
 * (g_assert_not_reached) on any other, GRAY8 and GRAY16_LE included, so
 * no GstCudaBufferPool may be configured, or proposed, for the rest. */
static gboolean
cuda_memory_allocates (const GstVideoInfo * info)
{
  guint p;

  /* GStreamer 1.22's GstCudaMemory starts the second chroma plane of a
   * 4:2:0 frame of odd height a row too early (height / 2 rows after the
   * first, which has height / 2 + 1): the planes would overlap. */
  if (GST_VIDEO_INFO_HEIGHT (info) % 2)
    for (p = 1; p < GST_VIDEO_INFO_N_COMPONENTS (info); p++)
      if (GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, p))
        return FALSE;
  switch (GST_VIDEO_INFO_FORMAT (info)) {
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

gboolean
gst_sci_backend_propose_allocation (GstSciBackendState * b, GstQuery * query)
{
  GstCaps *caps;
  GstVideoInfo info;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  /* Planes may then come with any stride or offset: we read them through
   * GstVideoFrame. */
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
#if HAVE_CUDA
  if (gst_sci_caps_features_is_cuda (gst_caps_get_features (caps, 0))
      && b->cuda.context && cuda_memory_allocates (&info)
      && gst_query_get_n_allocation_pools (query) == 0) {
    GstBufferPool *pool = gst_cuda_buffer_pool_new (b->cuda.context);
    GstStructure *config = gst_buffer_pool_get_config (pool);

    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
    if (!gst_buffer_pool_set_config (pool, config)) {
      GST_WARNING_OBJECT (b->element, "cannot configure the proposed pool");
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
  } else if (!gst_sci_caps_features_is_cuda (gst_caps_get_features (caps, 0))
      && b->use_cuda && b->cuda.context
      && gst_query_get_n_allocation_pools (query) == 0) {
    /* Frames in system memory are uploaded: from page-locked memory at
     * the bus's speed, from pageable memory through the driver's bounce
     * buffers at a fraction of it (a 4K 4:4:4 12-bit frame through
     * htj2kenc on an H100 host: 2.2 ms against 8.7).  Upstream elements
     * that take the proposed pool write into page-locked memory. */
    GstAllocator *alloc = gst_sci_cuda_host_allocator_new (b->cuda.context);
    GstBufferPool *pool = gst_video_buffer_pool_new ();
    GstStructure *config = gst_buffer_pool_get_config (pool);

    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
    gst_buffer_pool_config_set_allocator (config, alloc, NULL);
    if (gst_buffer_pool_set_config (pool, config)) {
      gst_query_add_allocation_pool (query, pool, info.size, 0, 0);
      gst_query_add_allocation_param (query, alloc, NULL);
    } else {
      GST_WARNING_OBJECT (b->element, "cannot configure a page-locked pool");
    }
    gst_object_unref (pool);
    gst_object_unref (alloc);
  }
#endif
  return TRUE;
}

#if HAVE_CUDA
gboolean
gst_sci_backend_decide_device_pool (GstSciBackendState * b, GstQuery * query,
    GstCaps * outcaps, gboolean video, gsize payload)
{
  GstBufferPool *pool = NULL;
  GstStructure *config;
  guint size = 0, min = 0, max = 0;
  gboolean update = gst_query_get_n_allocation_pools (query) > 0;
  gboolean video_pool = FALSE;

  if (video) {
    GstVideoInfo info;

    if (!gst_video_info_from_caps (&info, outcaps))
      return FALSE;
    video_pool = cuda_memory_allocates (&info);
    payload = info.size;
  }
  if (video_pool) {
    if (update) {
      gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
      if (pool && (!GST_IS_CUDA_BUFFER_POOL (pool)
              || GST_CUDA_BUFFER_POOL (pool)->context != b->cuda.context))
        gst_clear_object (&pool);
    }
    if (!pool)
      pool = gst_cuda_buffer_pool_new (b->cuda.context);
    size = MAX (size, (guint) payload);
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  } else {
    /* Non-video data, or frames of a format that GstCudaMemory cannot
     * hold: one flat device block each, video frames laid out as their
     * caps say (default strides, no video meta). */
    pool = gst_sci_cuda_blob_pool_new (b->cuda.context);
    if (!pool) {
      GST_ELEMENT_ERROR (b->element, RESOURCE, FAILED,
          ("no CUDA memory allocator is registered"), (NULL));
      return FALSE;
    }
    size = payload;
    config = gst_buffer_pool_get_config (pool);
  }
  gst_buffer_pool_config_set_params (config, outcaps, size, min, max);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_ELEMENT_ERROR (b->element, RESOURCE, SETTINGS,
        ("cannot configure the device buffer pool"), (NULL));
    gst_object_unref (pool);
    return FALSE;
  }
  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}
#else
gboolean
gst_sci_backend_decide_device_pool (GstSciBackendState * b, GstQuery * query,
    GstCaps * outcaps, gboolean video, gsize payload)
{
  return FALSE;
}
#endif
