/**
 * SECTION:element-envisink
 * @title: envisink
 *
 * Writes one `application/x-hyperspectral` cube as an ENVI file pair: the
 * raw values, as they are in the buffer, into a data file named after
 * `location` with the interleave as its extension (`cube.hdr` ->
 * `cube.bip`), then the ENVI header at `location` (samples, lines, bands,
 * header offset = 0, file type = ENVI Standard, data type, interleave,
 * byte order of the host: 0 on little-endian machines).
 *
 * One cube per file pair: a second buffer is an error (nothing is
 * overwritten).  A stream that ends without a cube writes nothing and
 * posts a warning.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 envisrc location=cube.hdr ! envisink location=copy.hdr
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>

#include "gstenvisink.h"
#include "gstenvisrc.h"

GST_DEBUG_CATEGORY_STATIC (gst_envi_sink_debug);
#define GST_CAT_DEFAULT gst_envi_sink_debug

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_BLOCKSIZE,
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_ENVI_CAPS));

#define gst_envi_sink_parent_class parent_class
G_DEFINE_TYPE (GstEnviSink, gst_envi_sink, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE (envisink, "envisink", GST_RANK_NONE,
    GST_TYPE_ENVI_SINK);

static gboolean
has_hdr_suffix (const gchar * s)
{
  gsize n = strlen (s);

  return n > 4 && !g_ascii_strcasecmp (s + n - 4, ".hdr");
}

static gboolean
gst_envi_sink_start (GstBaseSink * sink)
{
  GstEnviSink *self = GST_ENVI_SINK (sink);
  gchar *location;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  location = g_strdup (self->location);
  GST_OBJECT_UNLOCK (self);
  self->written = FALSE;
  self->have_caps = FALSE;
  if (!location || !*location) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No file name specified for writing."), ("location is not set"));
    ok = FALSE;
  } else if (!has_hdr_suffix (location)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Cannot write the ENVI cube \"%s\".", location),
        ("%s: location names the header and must end in .hdr (the data "
            "file gets the same name with the interleave as extension; "
            "readers look for the header there)", location));
    ok = FALSE;
  }
  g_free (location);
  return ok;
}

static gboolean
gst_envi_sink_set_caps (GstBaseSink * sink, GstCaps * caps)
{
  GstEnviSink *self = GST_ENVI_SINK (sink);
  GstStructure *s = gst_caps_get_structure (caps, 0);
  const gchar *format, *interleave;

  format = gst_structure_get_string (s, "format");
  interleave = gst_structure_get_string (s, "interleave");
  if (!gst_structure_get_int (s, "lines", &self->lines)
      || !gst_structure_get_int (s, "samples", &self->samples)
      || !gst_structure_get_int (s, "bands", &self->bands) || !format
      || !interleave)
    goto refused;
  if (!strcmp (format, "U8")) {
    self->data_type = 1;
    self->bytes = 1;
  } else if (!strcmp (format, "S16LE")) {
    self->data_type = 2;
    self->bytes = 2;
  } else if (!strcmp (format, "U16LE")) {
    self->data_type = 12;
    self->bytes = 2;
  } else if (!strcmp (format, "F32LE")) {
    self->data_type = 4;
    self->bytes = 4;
  } else {
    goto refused;
  }
  if (!strcmp (interleave, "bip"))
    self->interleave = "bip";
  else if (!strcmp (interleave, "bil"))
    self->interleave = "bil";
  else if (!strcmp (interleave, "bsq"))
    self->interleave = "bsq";
  else
    goto refused;
  self->have_caps = TRUE;
  GST_DEBUG_OBJECT (self, "caps %" GST_PTR_FORMAT, caps);
  return TRUE;

refused:
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
      ("caps %" GST_PTR_FORMAT " are not a complete "
          "application/x-hyperspectral description", caps));
  return FALSE;
}

/* Writes `len` bytes to `path`; FALSE with `*why`. */
static gboolean
write_file (const gchar * path, const guint8 * data, gsize len, gchar ** why)
{
  FILE *f = g_fopen (path, "wb");

  if (!f) {
    *why = g_strdup_printf ("%s: %s", path, g_strerror (errno));
    return FALSE;
  }
  if (len && fwrite (data, 1, len, f) != len) {
    *why = g_strdup_printf ("%s: %s", path, g_strerror (errno));
    fclose (f);
    return FALSE;
  }
  if (fclose (f) != 0) {
    *why = g_strdup_printf ("%s: %s", path, g_strerror (errno));
    return FALSE;
  }
  return TRUE;
}

static GstFlowReturn
gst_envi_sink_render (GstBaseSink * sink, GstBuffer * buf)
{
  GstEnviSink *self = GST_ENVI_SINK (sink);
  gchar *location, *data_path = NULL, *header = NULL, *why = NULL;
  guint64 need;
  GstMapInfo map;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  location = g_strdup (self->location);
  GST_OBJECT_UNLOCK (self);

  if (self->written) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Cannot write the ENVI cube \"%s\".", location),
        ("%s: a second buffer arrived; envisink writes one cube per file "
            "(the first one is written)", location));
    goto fail;
  }
  if (!self->have_caps) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("a buffer arrived before the caps"));
    goto fail;
  }
  need = (guint64) self->lines * self->samples * self->bands * self->bytes;
  if (gst_buffer_get_size (buf) != need) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Cannot write the ENVI cube \"%s\".", location),
        ("the buffer holds %" G_GSIZE_FORMAT " bytes, the caps (%d lines x "
            "%d samples x %d bands x %d bytes) say %" G_GUINT64_FORMAT,
            gst_buffer_get_size (buf), self->lines, self->samples,
            self->bands, self->bytes, need));
    goto fail;
  }

  /* the data first: a header exists only next to complete data */
  data_path = g_strdup_printf ("%.*s.%s", (int) (strlen (location) - 4),
      location, self->interleave);
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Cannot write the ENVI cube \"%s\".", location),
        ("cannot map the buffer"));
    goto fail;
  }
  ok = write_file (data_path, map.data, map.size, &why);
  gst_buffer_unmap (buf, &map);
  if (!ok) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Cannot write the ENVI cube \"%s\".", location), ("%s", why));
    goto fail;
  }
  header = g_strdup_printf ("ENVI\n"
      "description = {written by envisink (gst-scicodec)}\n"
      "samples = %d\n"
      "lines = %d\n"
      "bands = %d\n"
      "header offset = 0\n"
      "file type = ENVI Standard\n"
      "data type = %d\n"
      "interleave = %s\n"
      "byte order = %d\n", self->samples, self->lines, self->bands,
      self->data_type, self->interleave, G_BYTE_ORDER == G_BIG_ENDIAN ? 1 : 0);
  if (!write_file (location, (const guint8 *) header, strlen (header), &why)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Cannot write the ENVI cube \"%s\".", location), ("%s", why));
    goto fail;
  }
  self->written = TRUE;
  GST_INFO_OBJECT (self, "wrote %s and %s: %d lines x %d samples x %d "
      "bands, data type %d, %s", location, data_path, self->lines,
      self->samples, self->bands, self->data_type, self->interleave);
  g_free (location);
  g_free (data_path);
  g_free (header);
  return GST_FLOW_OK;

fail:
  g_free (location);
  g_free (data_path);
  g_free (header);
  g_free (why);
  return GST_FLOW_ERROR;
}

static gboolean
gst_envi_sink_event (GstBaseSink * sink, GstEvent * event)
{
  GstEnviSink *self = GST_ENVI_SINK (sink);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && !self->written) {
    gchar *location;

    GST_OBJECT_LOCK (self);
    location = g_strdup (self->location);
    GST_OBJECT_UNLOCK (self);
    GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
        ("No cube was written to \"%s\".", location),
        ("the stream ended without a buffer"));
    g_free (location);
  }
  return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
}

static void
gst_envi_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstEnviSink *self = GST_ENVI_SINK (object);
  GstState state;

  GST_OBJECT_LOCK (self);
  state = GST_STATE (self);
  if (state != GST_STATE_NULL && state != GST_STATE_READY) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "%s can only be set in the NULL or READY "
        "state", pspec->name);
    return;
  }
  switch (prop_id) {
    case PROP_LOCATION:
      g_free (self->location);
      self->location = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_envi_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstEnviSink *self = GST_ENVI_SINK (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_BLOCKSIZE:
      g_value_set_uint (value, 0);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_envi_sink_finalize (GObject * object)
{
  GstEnviSink *self = GST_ENVI_SINK (object);

  g_free (self->location);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_envi_sink_class_init (GstEnviSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *basesink_class = GST_BASE_SINK_CLASS (klass);

  gobject_class->set_property = gst_envi_sink_set_property;
  gobject_class->get_property = gst_envi_sink_get_property;
  gobject_class->finalize = gst_envi_sink_finalize;
  basesink_class->start = GST_DEBUG_FUNCPTR (gst_envi_sink_start);
  basesink_class->set_caps = GST_DEBUG_FUNCPTR (gst_envi_sink_set_caps);
  basesink_class->render = GST_DEBUG_FUNCPTR (gst_envi_sink_render);
  basesink_class->event = GST_DEBUG_FUNCPTR (gst_envi_sink_event);

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "Path of the ENVI header to write, ending in .hdr; the data file "
          "gets the same name with the interleave as extension (cube.hdr -> "
          "cube.bip)", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /* GstBaseSink's blocksize sizes what a sink pulls in pull mode, which
   * envisink never runs in; it cannot be removed: a read-only property of
   * the same name hides it (gst-inspect, gst-launch and g_object_set see
   * this one) */
  g_object_class_install_property (gobject_class, PROP_BLOCKSIZE,
      g_param_spec_uint ("blocksize", "Block size",
          "Not used (always 0): envisink writes each cube as upstream pushes "
          "it, whole; GstBaseSink's block size, which this replaces, only "
          "sizes what a sink pulls", 0, G_MAXUINT, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "ENVI hyperspectral cube sink", "Sink/File",
      "Writes one application/x-hyperspectral cube as an ENVI header and "
      "raw data file", SCI_ELEMENT_AUTHOR);

  GST_DEBUG_CATEGORY_INIT (gst_envi_sink_debug, "envisink", 0,
      "ENVI cube sink");
}

static void
gst_envi_sink_init (GstEnviSink * self)
{
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
}
