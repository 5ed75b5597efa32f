/*
 * SECTION:element-scimultigpu
 *
 * Runs one stream through several copies of a coder, one a CUDA device,
 * for streams faster than one GPU codes them.  Inside: a tee, and a branch
 * a device of `cuda-device-ids` (a dealer that keeps every N-th frame, a
 * queue, the coder with `cuda-device-id` set to the device and
 * `coder-properties` applied, a queue), then a collator that outputs the
 * branches' frames in turn: frames leave in their input order, with their
 * timestamps, and each is coded by one device.  The output is the one
 * coder's, byte for byte, when the coder codes each frame alone
 * (htj2kenc, ebcotcm, dpcmenc, seismicenc; and the decoders dpcmdec,
 * seismicdec and j2kdec fed one frame a buffer, e.g. behind
 * jpeg2000parse).  Each copy must give one output frame an input frame.
 *
 * The input goes to every copy in the memory it comes in.  A frame in
 * CUDA memory of another device than the copy's is copied device to
 * device (peer to peer where the GPUs reach each other) by dpcmenc,
 * htj2kenc and ebcotcm; through the host by the other coders.  With `backend=cpu` in
 * `coder-properties` the copies run on the CPU, one streaming thread each.
 *
 *     gst-launch-1.0 videotestsrc num-buffers=600 ! \
 *         video/x-raw,format=Y444_12LE,width=3840,height=2160 ! \
 *         scimultigpu coder=ebcotcm cuda-device-ids=0,1 \
 *             coder-properties="bitrate=2" ! multifilesink location=f%05d.j2c
 *     gst-launch-1.0 filesrc location=night.fits ! fitsdec all-hdus=true ! \
 *         scimultigpu coder=dpcmenc cuda-device-ids=0,1,2,3 ! \
 *         filesink location=night.dpcm
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstscimultigpu.h"
#include "gstscimultigpuparts.h"

GST_DEBUG_CATEGORY_STATIC (gst_sci_multigpu_debug);
#define GST_CAT_DEFAULT gst_sci_multigpu_debug

#define DEFAULT_DEVICE_IDS "0,1"
#define MAX_BRANCHES 64

struct _GstSciMultiGpu
{
  GstBin parent;
  GstPad *sinkpad, *srcpad;     /* ghost pads: their targets at READY */
  gchar *coder;
  gchar *device_ids;
  gchar *coder_props;
  gboolean built;
};

enum
{
  PROP_0,
  PROP_CODER,
  PROP_DEVICE_IDS,
  PROP_CODER_PROPERTIES,
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

G_DEFINE_TYPE (GstSciMultiGpu, gst_sci_multigpu, GST_TYPE_BIN);
GST_ELEMENT_REGISTER_DEFINE (scimultigpu, "scimultigpu", GST_RANK_NONE,
    GST_TYPE_SCI_MULTIGPU);

/* "0,1,3" -> the device numbers; FALSE on anything else */
static gboolean
parse_ids (const gchar * s, gint * ids, guint * n)
{
  gchar **parts = g_strsplit (s ? s : "", ",", -1);
  gboolean ok = parts[0] != NULL;
  guint i;

  *n = 0;
  for (i = 0; ok && parts[i]; i++) {
    gchar *end;
    gint64 v = g_ascii_strtoll (g_strstrip (parts[i]), &end, 10);
    ok = *parts[i] && !*end && v >= 0 && v <= G_MAXINT && *n < MAX_BRANCHES;
    if (ok)
      ids[(*n)++] = (gint) v;
  }
  g_strfreev (parts);
  return ok && *n > 0;
}

/* `coder-properties`: "name=value name=value", set as gst-launch does */
static gboolean
apply_props (GstSciMultiGpu * self, GstElement * coder)
{
  gchar **parts;
  gboolean ok = TRUE;
  guint i;

  if (!self->coder_props)
    return TRUE;
  parts = g_strsplit_set (self->coder_props, " \t", -1);
  for (i = 0; ok && parts[i]; i++) {
    gchar *eq = strchr (parts[i], '=');
    if (!*parts[i])
      continue;
    if (!eq || eq == parts[i]
        || !g_object_class_find_property (G_OBJECT_GET_CLASS (coder),
            (*eq = 0, parts[i]))) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("coder-properties: '%s' "
              "is not a property of %s as name=value", parts[i],
              self->coder), (NULL));
      ok = FALSE;
    } else {
      gst_util_set_object_arg (G_OBJECT (coder), parts[i], eq + 1);
    }
  }
  g_strfreev (parts);
  return ok;
}

/* A branch's queues hold frames by count, not bytes (a 4K frame is
 * larger than a queue's default 10 MB): before the coder, enough that the
 * tee rarely waits for a busy device; after it, enough that a coder never
 * waits for the collator while the other branches catch up. */
#define BRANCH_IN_FRAMES 3
#define BRANCH_OUT_FRAMES 8

static GstElement *
branch_queue (const gchar * kind, guint i, guint frames)
{
  gchar name[32];
  GstElement *q;

  g_snprintf (name, sizeof name, "%s%u", kind, i);
  q = gst_element_factory_make ("queue", name);
  g_object_set (q, "max-size-buffers", frames, "max-size-bytes", 0,
      "max-size-time", (guint64) 0, NULL);
  return q;
}

static gboolean
gst_sci_multigpu_build (GstSciMultiGpu * self)
{
  GstElement *tee, *collate;
  GstPad *pad;
  gint ids[MAX_BRANCHES];
  guint n, i;

  if (!self->coder) {
    GST_ELEMENT_ERROR (self, CORE, MISSING_PLUGIN, ("No coder: set the "
            "coder property (htj2kenc, ebcotcm, dpcmenc, ...)"), (NULL));
    return FALSE;
  }
  if (!parse_ids (self->device_ids, ids, &n)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("cuda-device-ids '%s' is "
            "not a list of device numbers such as 0,1", self->device_ids),
        (NULL));
    return FALSE;
  }
  tee = gst_element_factory_make ("tee", "tee");
  collate = g_object_new (GST_TYPE_SCI_COLLATE, "name", "collate", NULL);
  gst_bin_add_many (GST_BIN (self), tee, collate, NULL);
  for (i = 0; i < n; i++) {
    gchar name[32];
    GstElement *deal, *queue, *coder, *done;
    GstPad *tsrc, *dsink, *csrc, *csink;

    g_snprintf (name, sizeof name, "coder%u", i);
    coder = gst_element_factory_make (self->coder, name);
    if (!coder) {
      GST_ELEMENT_ERROR (self, CORE, MISSING_PLUGIN, ("No element '%s'",
              self->coder), (NULL));
      return FALSE;
    }
    g_snprintf (name, sizeof name, "deal%u", i);
    deal = g_object_new (GST_TYPE_SCI_DEAL, "name", name, "ways", n, "way",
        i, NULL);
    queue = branch_queue ("queue", i, BRANCH_IN_FRAMES);
    done = branch_queue ("done", i, BRANCH_OUT_FRAMES);
    if (g_object_class_find_property (G_OBJECT_GET_CLASS (coder),
            "cuda-device-id"))
      g_object_set (coder, "cuda-device-id", ids[i], NULL);
    gst_bin_add_many (GST_BIN (self), deal, queue, coder, done, NULL);
    if (!apply_props (self, coder))
      return FALSE;
    tsrc = gst_element_request_pad_simple (tee, "src_%u");
    dsink = gst_element_get_static_pad (deal, "sink");
    csrc = gst_element_get_static_pad (done, "src");
    csink = gst_element_request_pad_simple (collate, "sink_%u");
    if (gst_pad_link (tsrc, dsink) != GST_PAD_LINK_OK
        || !gst_element_link_many (deal, queue, coder, done, NULL)
        || !csrc || gst_pad_link (csrc, csink) != GST_PAD_LINK_OK) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Cannot link branch %u "
              "(%s)", i, self->coder), (NULL));
      return FALSE;
    }
    gst_object_unref (tsrc);
    gst_object_unref (dsink);
    gst_object_unref (csrc);
    gst_object_unref (csink);
    GST_INFO_OBJECT (self, "branch %u: %s on device %d", i, self->coder,
        ids[i]);
  }
  pad = gst_element_get_static_pad (tee, "sink");
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->sinkpad), pad);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (collate, "src");
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->srcpad), pad);
  gst_object_unref (pad);
  self->built = TRUE;
  return TRUE;
}

static void
gst_sci_multigpu_clear (GstSciMultiGpu * self)
{
  GList *children = g_list_copy (GST_BIN (self)->children), *l;

  gst_ghost_pad_set_target (GST_GHOST_PAD (self->sinkpad), NULL);
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->srcpad), NULL);
  for (l = children; l; l = l->next)
    gst_bin_remove (GST_BIN (self), GST_ELEMENT (l->data));
  g_list_free (children);
  self->built = FALSE;
}

static GstStateChangeReturn
gst_sci_multigpu_change_state (GstElement * element, GstStateChange t)
{
  GstSciMultiGpu *self = GST_SCI_MULTIGPU (element);
  GstStateChangeReturn ret;

  if (t == GST_STATE_CHANGE_NULL_TO_READY && !self->built
      && !gst_sci_multigpu_build (self)) {
    gst_sci_multigpu_clear (self);
    return GST_STATE_CHANGE_FAILURE;
  }
  ret = GST_ELEMENT_CLASS (gst_sci_multigpu_parent_class)->change_state
      (element, t);
  if (t == GST_STATE_CHANGE_READY_TO_NULL)
    gst_sci_multigpu_clear (self);
  return ret;
}

static void
gst_sci_multigpu_set_property (GObject * object, guint id,
    const GValue * value, GParamSpec * pspec)
{
  GstSciMultiGpu *self = GST_SCI_MULTIGPU (object);
  gchar **field;

  switch (id) {
    case PROP_CODER:
      field = &self->coder;
      break;
    case PROP_DEVICE_IDS:
      field = &self->device_ids;
      break;
    case PROP_CODER_PROPERTIES:
      field = &self->coder_props;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      return;
  }
  GST_OBJECT_LOCK (self);
  g_free (*field);
  *field = g_value_dup_string (value);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_sci_multigpu_get_property (GObject * object, guint id, GValue * value,
    GParamSpec * pspec)
{
  GstSciMultiGpu *self = GST_SCI_MULTIGPU (object);

  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_CODER:
      g_value_set_string (value, self->coder);
      break;
    case PROP_DEVICE_IDS:
      g_value_set_string (value, self->device_ids);
      break;
    case PROP_CODER_PROPERTIES:
      g_value_set_string (value, self->coder_props);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_sci_multigpu_finalize (GObject * object)
{
  GstSciMultiGpu *self = GST_SCI_MULTIGPU (object);

  g_free (self->coder);
  g_free (self->device_ids);
  g_free (self->coder_props);
  G_OBJECT_CLASS (gst_sci_multigpu_parent_class)->finalize (object);
}

static void
gst_sci_multigpu_class_init (GstSciMultiGpuClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
      | GST_PARAM_MUTABLE_READY;

  GST_DEBUG_CATEGORY_INIT (gst_sci_multigpu_debug, "scimultigpu", 0,
      "one stream over several GPUs");
  gobject_class->set_property = gst_sci_multigpu_set_property;
  gobject_class->get_property = gst_sci_multigpu_get_property;
  gobject_class->finalize = gst_sci_multigpu_finalize;
  g_object_class_install_property (gobject_class, PROP_CODER,
      g_param_spec_string ("coder", "Coder", "The coder element each device "
          "runs a copy of: htj2kenc, ebcotcm, dpcmenc, seismicenc, or a "
          "decoder fed one frame a buffer (dpcmdec, seismicdec, j2kdec). "
          "Read when the element goes to READY", NULL, flags));
  g_object_class_install_property (gobject_class, PROP_DEVICE_IDS,
      g_param_spec_string ("cuda-device-ids", "CUDA device ids", "The CUDA "
          "devices, comma-separated (at most 64): a copy of the coder a "
          "device, frames dealt to them in turn. A device may be named "
          "twice (two copies on one GPU)", DEFAULT_DEVICE_IDS, flags));
  g_object_class_install_property (gobject_class, PROP_CODER_PROPERTIES,
      g_param_spec_string ("coder-properties", "Coder properties",
          "Properties set on every copy, as gst-launch writes them: "
          "\"bitrate=2 levels=5\" (cuda-device-id is set from "
          "cuda-device-ids)", NULL, flags));
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "Multi-GPU coder",
      "Codec/Generic", "Runs one stream through copies of a coder, one a "
      "CUDA device, frames dealt in turn and output in their order",
      SCI_ELEMENT_AUTHOR);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_sci_multigpu_change_state);
}

static void
gst_sci_multigpu_init (GstSciMultiGpu * self)
{
  self->device_ids = g_strdup (DEFAULT_DEVICE_IDS);
  self->sinkpad = gst_ghost_pad_new_no_target_from_template ("sink",
      gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (self),
          "sink"));
  self->srcpad = gst_ghost_pad_new_no_target_from_template ("src",
      gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (self), "src"));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}
