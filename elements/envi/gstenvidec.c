/**
 * SECTION:element-envidec
 * @title: envidec
 *
 * Takes the text of an ENVI header (`application/x-envi-header`, what the
 * plugin's typefinder names a file beginning with the line `ENVI`), finds
 * the header's data file next to it and outputs the cube as `envisrc`
 * does: one `application/x-hyperspectral` buffer, then EOS.
 *
 * A header says nothing of where its data is: the data file is found
 * next to the header's file, which the element asks upstream for with a
 * URI query (`filesrc` answers it).  So `filesrc location=cube.hdr !
 * decodebin caps=application/x-hyperspectral` reads a cube; a header from
 * any source that is not a local file is an error that says so.  The
 * header is the bytes that arrive (up to 64 MiB); the data file is read
 * with GDAL, which checks it against the header on disk.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=cube.hdr ! envidec ! envisink location=copy.hdr
 * gst-launch-1.0 filesrc location=cube.hdr ! \
 *     decodebin caps=application/x-hyperspectral ! sppfilter ! \
 *     envisink location=smooth.hdr
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstenvidec.h"
#include "gstenvisrc.h"
#include "gstenvitypefind.h"

GST_DEBUG_CATEGORY_STATIC (gst_envi_dec_debug);
#define GST_CAT_DEFAULT gst_envi_dec_debug

enum
{
  PROP_0,
  PROP_INTERLEAVE,
};

#define DEFAULT_INTERLEAVE GST_ENVI_INTERLEAVE_BIP

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_ENVI_HEADER_MEDIA_TYPE));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_ENVI_CAPS));

#define gst_envi_dec_parent_class parent_class
G_DEFINE_TYPE (GstEnviDec, gst_envi_dec, GST_TYPE_ELEMENT);
/* ranked, so that decodebin plugs it after the typefinder */
GST_ELEMENT_REGISTER_DEFINE (envidec, "envidec", GST_RANK_PRIMARY,
    GST_TYPE_ENVI_DEC);

/* The local file the header came from, or NULL with the reason. */
static gchar *
header_file (GstEnviDec * self, gchar ** why)
{
  GstQuery *q = gst_query_new_uri ();
  gchar *uri = NULL, *path;
  GError *err = NULL;

  if (gst_pad_peer_query (self->sinkpad, q))
    gst_query_parse_uri (q, &uri);
  gst_query_unref (q);
  if (!uri) {
    *why = g_strdup ("upstream says nothing of where the header comes from "
        "(no answer to a URI query): envidec finds the data file next to "
        "the header's file, so the header must come from a file source "
        "such as filesrc");
    return NULL;
  }
  path = g_filename_from_uri (uri, NULL, &err);
  if (!path) {
    *why = g_strdup_printf ("the header comes from %s, not a local file: "
        "its data file cannot be found next to it (%s)", uri, err->message);
    g_error_free (err);
  }
  g_free (uri);
  return path;
}

/* At EOS: the header whole, the cube it describes out. */
static gboolean
gst_envi_dec_finish (GstEnviDec * self)
{
  GstEnviCube cube = { 0 };
  GError *err = NULL;
  gsize n = gst_adapter_available (self->adapter);
  gchar *text, *path, *why = NULL;
  GstEnviInterleave want;
  GstSegment segment;
  GstBuffer *buf;
  GstCaps *caps;
  GstFlowReturn flow;

  if (n == 0) {
    GST_ELEMENT_ERROR (self, STREAM, WRONG_TYPE,
        ("Cannot read the ENVI cube."), ("the stream ended before any "
            "byte of the header"));
    return FALSE;
  }
  path = header_file (self, &why);
  if (!path) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("Cannot read the ENVI cube."), ("%s", why));
    g_free (why);
    return FALSE;
  }
  text = g_malloc (n + 1);
  gst_adapter_copy (self->adapter, text, 0, n);
  text[n] = '\0';
  gst_adapter_clear (self->adapter);

  GST_OBJECT_LOCK (self);
  want = self->interleave;
  GST_OBJECT_UNLOCK (self);
  if (!gst_envi_cube_open (&cube, path, text, want, &err)
      || !(buf = gst_envi_cube_read (&cube, &err))) {
    gst_envi_cube_post_error (GST_ELEMENT (self), path, err);
    g_error_free (err);
    gst_envi_cube_clear (&cube);
    g_free (text);
    g_free (path);
    return FALSE;
  }
  caps = gst_envi_cube_caps (&cube);
  GST_INFO_OBJECT (self, "%s: %" GST_PTR_FORMAT, path, caps);
  gst_envi_cube_clear (&cube);
  g_free (text);
  g_free (path);

  gst_pad_push_event (self->srcpad, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_pad_push_event (self->srcpad, gst_event_new_segment (&segment));
  flow = gst_pad_push (self->srcpad, buf);
  if (flow != GST_FLOW_OK && flow != GST_FLOW_FLUSHING && flow != GST_FLOW_EOS) {
    GST_ELEMENT_FLOW_ERROR (self, flow);
    return FALSE;
  }
  return TRUE;
}

static GstFlowReturn
gst_envi_dec_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstEnviDec *self = GST_ENVI_DEC (parent);

  if (self->failed) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  gst_adapter_push (self->adapter, buf);
  if (gst_adapter_available (self->adapter) > GST_ENVI_MAX_HEADER_BYTES) {
    GST_ELEMENT_ERROR (self, STREAM, WRONG_TYPE,
        ("Cannot read the ENVI cube."), ("more than %d bytes of header: "
            "too large for an ENVI header", GST_ENVI_MAX_HEADER_BYTES));
    gst_adapter_clear (self->adapter);
    self->failed = TRUE;
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static gboolean
gst_envi_dec_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstEnviDec *self = GST_ENVI_DEC (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:
    case GST_EVENT_SEGMENT:
      /* the header's: the cube's own go out with it */
      gst_event_unref (event);
      return TRUE;
    case GST_EVENT_FLUSH_STOP:
      gst_adapter_clear (self->adapter);
      self->failed = FALSE;
      break;
    case GST_EVENT_EOS:
      if (self->failed || !gst_envi_dec_finish (self)) {
        self->failed = TRUE;
        gst_event_unref (event);
        return FALSE;
      }
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

static GstStateChangeReturn
gst_envi_dec_change_state (GstElement * element, GstStateChange transition)
{
  GstEnviDec *self = GST_ENVI_DEC (element);
  GstStateChangeReturn ret;

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    gst_adapter_clear (self->adapter);
    self->failed = FALSE;
  }
  return ret;
}

static void
gst_envi_dec_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstEnviDec *self = GST_ENVI_DEC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_INTERLEAVE:
      self->interleave = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_envi_dec_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstEnviDec *self = GST_ENVI_DEC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_INTERLEAVE:
      g_value_set_enum (value, self->interleave);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_envi_dec_finalize (GObject * object)
{
  GstEnviDec *self = GST_ENVI_DEC (object);

  g_object_unref (self->adapter);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_envi_dec_class_init (GstEnviDecClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_envi_dec_set_property;
  gobject_class->get_property = gst_envi_dec_get_property;
  gobject_class->finalize = gst_envi_dec_finalize;
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_envi_dec_change_state);

  g_object_class_install_property (gobject_class, PROP_INTERLEAVE,
      g_param_spec_enum ("interleave", "Interleave",
          "Order of the values in the output buffer: bip, bil, bsq, or "
          "as-stored (the data file's own order); read when the header "
          "ends", GST_TYPE_ENVI_INTERLEAVE, DEFAULT_INTERLEAVE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "ENVI header decoder", "Codec/Decoder/Hyperspectral",
      "Reads the ENVI cube whose header arrives (its data file found next "
      "to the header's file) into one application/x-hyperspectral buffer",
      SCI_ELEMENT_AUTHOR);

  GST_DEBUG_CATEGORY_INIT (gst_envi_dec_debug, "envidec", 0,
      "ENVI header decoder");
}

static void
gst_envi_dec_init (GstEnviDec * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_envi_dec_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_envi_dec_sink_event));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  self->interleave = DEFAULT_INTERLEAVE;
  self->adapter = gst_adapter_new ();
}
