/**
 * SECTION:element-segysink
 * @title: segysink
 *
 * Writes gathers of `application/x-seismic` to a SEG-Y file.  When the
 * gathers carry a #GstSciSegyMeta (segysrc's, or seismicdec's), the file
 * header of the first one is written as it is, each trace with its own
 * 240-byte header from the meta, and the samples in the format and byte
 * order that binary header names: `segysrc ! segysink` copies a file byte
 * for byte.  Without the meta it writes a minimal SEG-Y rev 1 file: an
 * EBCDIC textual header, a binary header with the samples, the interval
 * and format 5 (IEEE float, big-endian), and trace headers with the
 * sequence numbers, sample count and interval.
 *
 * Integer formats get the floats rounded to nearest and clamped to their
 * range, IBM floats a rounded-to-nearest conversion; NaN is written as 0
 * (with a warning), except in IEEE float files.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 segysrc location=f3.sgy gather-traces=96 ! \
 *     segysink location=copy.sgy
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>
#include <segyio/segy.h>

#include "gstsegysink.h"
#include "gstsegysrc.h"

GST_DEBUG_CATEGORY_STATIC (gst_segy_sink_debug);
#define GST_CAT_DEFAULT gst_segy_sink_debug

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_BLOCKSIZE,
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_SEGY_CAPS));

#define gst_segy_sink_parent_class parent_class
G_DEFINE_TYPE (GstSegySink, gst_segy_sink, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE (segysink, "segysink", GST_RANK_NONE,
    GST_TYPE_SEGY_SINK);

#define TH GST_SCI_SEGY_TRACE_HEADER_BYTES

/* ---- headers of a file written without GstSciSegyMeta ---- */

/* EBCDIC of the characters the textual header uses (others: space). */
static guint8
ebcdic (gchar c)
{
  if (c >= 'A' && c <= 'I')
    return 0xc1 + (c - 'A');
  if (c >= 'J' && c <= 'R')
    return 0xd1 + (c - 'J');
  if (c >= 'S' && c <= 'Z')
    return 0xe2 + (c - 'S');
  if (c >= '0' && c <= '9')
    return 0xf0 + (c - '0');
  switch (c) {
    case '(':
      return 0x4d;
    case ')':
      return 0x5d;
    case '-':
      return 0x60;
    case '.':
      return 0x4b;
    case '/':
      return 0x61;
    case ':':
      return 0x7a;
    default:
      return 0x40;
  }
}

/* The 3600 bytes of a big-endian SEG-Y rev 1 file of IEEE floats: 40
 * EBCDIC cards, then the binary header (segyio's field setters). */
static GBytes *
minimal_file_header (guint samples, guint interval, guint traces)
{
  guint8 *h = g_malloc0 (GST_SCI_SEGY_FILE_HEADER_BYTES);
  gchar *bin = (gchar *) h + GST_SCI_SEGY_TEXT_HEADER_BYTES;
  guint card, i;

  for (card = 0; card < 40; card++) {
    gchar line[81];
    gint n;

    if (card == 0)
      n = g_snprintf (line, sizeof (line), "C 1 SEG-Y WRITTEN BY SEGYSINK "
          "(GST-SCICODEC)");
    else if (card == 1)
      n = g_snprintf (line, sizeof (line), "C 2 %u SAMPLES A TRACE EVERY %u "
          "US. IEEE FLOAT BIG-ENDIAN", samples, interval);
    else if (card == 38)
      n = g_snprintf (line, sizeof (line), "C39 SEG Y REV1");
    else if (card == 39)
      n = g_snprintf (line, sizeof (line), "C40 END TEXTUAL HEADER");
    else
      n = g_snprintf (line, sizeof (line), "C%2u", card + 1);
    for (i = 0; i < 80; i++)
      h[card * 80 + i] = ebcdic (i < (guint) n ? line[i] : ' ');
  }
  segy_set_bfield (bin, SEGY_BIN_TRACES, traces <= 32767 ? (gint) traces : 0);
  segy_set_bfield (bin, SEGY_BIN_INTERVAL, interval <= 65535 ?
      (gint) interval : 0);
  segy_set_bfield (bin, SEGY_BIN_SAMPLES, (gint) samples);
  segy_set_bfield (bin, SEGY_BIN_FORMAT, SEGY_IEEE_FLOAT_4_BYTE);
  segy_set_bfield (bin, SEGY_BIN_SEGY_REVISION, 0x0100);
  segy_set_bfield (bin, SEGY_BIN_TRACE_FLAG, 1);
  segy_set_bfield (bin, SEGY_BIN_EXT_HEADERS, 0);
  return g_bytes_new_take (h, GST_SCI_SEGY_FILE_HEADER_BYTES);
}

/* Reverses the `n` bytes at `p`. */
static void
swap_bytes (guint8 * p, guint n)
{
  guint i;

  for (i = 0; i < n / 2; i++) {
    guint8 t = p[i];

    p[i] = p[n - 1 - i];
    p[n - 1 - i] = t;
  }
}

/* A trace header of the file's byte order with the trace's sequence
 * numbers (1-based), the trace identification code 1 (seismic data), the
 * sample count and the interval. */
static void
minimal_trace_header (guint8 * th, guint64 seq, guint samples,
    guint interval, gboolean little_endian)
{
  static const struct
  {
    gint field;
    guint bytes;
  } fields[] = {
    {SEGY_TR_SEQ_LINE, 4}, {SEGY_TR_SEQ_FILE, 4}, {SEGY_TR_TRACE_ID, 2},
    {SEGY_TR_SAMPLE_COUNT, 2}, {SEGY_TR_SAMPLE_INTER, 2},
  };
  guint i;

  memset (th, 0, TH);
  segy_set_field ((gchar *) th, SEGY_TR_SEQ_LINE, (gint32) seq);
  segy_set_field ((gchar *) th, SEGY_TR_SEQ_FILE, (gint32) seq);
  segy_set_field ((gchar *) th, SEGY_TR_TRACE_ID, 1);
  segy_set_field ((gchar *) th, SEGY_TR_SAMPLE_COUNT, (gint) samples);
  segy_set_field ((gchar *) th, SEGY_TR_SAMPLE_INTER, interval <= 65535 ?
      (gint) interval : 0);
  /* segyio writes big-endian fields */
  if (little_endian)
    for (i = 0; i < G_N_ELEMENTS (fields); i++)
      swap_bytes (th + fields[i].field - 1, fields[i].bytes);
}

/* ---- start / stop ---- */

static void
clear_file (GstSegySink * self)
{
  g_clear_pointer (&self->file_header, g_bytes_unref);
  g_clear_pointer (&self->block, g_free);
  self->block_size = 0;
  self->header_written = FALSE;
  self->from_meta = FALSE;
  self->traces_written = 0;
  self->nan = self->clamped = 0;
  self->values_warned = self->headers_warned = FALSE;
  self->have_caps = FALSE;
  self->first_samples = self->first_interval = 0;
}

static gboolean
gst_segy_sink_start (GstBaseSink * sink)
{
  GstSegySink *self = GST_SEGY_SINK (sink);
  gchar *location;

  GST_OBJECT_LOCK (self);
  location = g_strdup (self->location);
  GST_OBJECT_UNLOCK (self);
  clear_file (self);
  if (!location || !*location) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No file name specified for writing."), ("location is not set"));
    g_free (location);
    return FALSE;
  }
  self->file = g_fopen (location, "wb");
  if (!self->file) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Cannot write the SEG-Y file \"%s\".", location),
        ("%s: %s", location, g_strerror (errno)));
    g_free (location);
    return FALSE;
  }
  self->path = location;
  return TRUE;
}

static gboolean
gst_segy_sink_stop (GstBaseSink * sink)
{
  GstSegySink *self = GST_SEGY_SINK (sink);

  if (self->file) {
    fclose (self->file);
    self->file = NULL;
    /* a file that got not even its headers is not left behind */
    if (!self->header_written)
      g_unlink (self->path);
  }
  g_clear_pointer (&self->path, g_free);
  clear_file (self);
  return TRUE;
}

static gboolean
gst_segy_sink_set_caps (GstBaseSink * sink, GstCaps * caps)
{
  GstSegySink *self = GST_SEGY_SINK (sink);
  GstStructure *s = gst_caps_get_structure (caps, 0);
  gint traces, samples, interval;

  if (!gst_structure_get_int (s, "traces", &traces)
      || !gst_structure_get_int (s, "samples", &samples)
      || !gst_structure_get_int (s, "sample-interval", &interval)
      || traces < 1 || samples < 1 || interval < 1) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("caps %" GST_PTR_FORMAT " are not a complete application/x-seismic "
            "description", caps));
    return FALSE;
  }
  if (self->first_samples && samples != self->first_samples) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Cannot write the SEG-Y file \"%s\".", self->path),
        ("the caps change from %d to %d samples a trace: a SEG-Y file holds "
            "traces of one length", self->first_samples, samples));
    return FALSE;
  }
  if (self->first_interval && interval != self->first_interval)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("The sample interval changes in the stream written to \"%s\".",
            self->path),
        ("the caps change from %d to %d microseconds; the file keeps the "
            "first one", self->first_interval, interval));
  if (!self->first_samples) {
    self->first_samples = samples;
    self->first_interval = interval;
  }
  self->traces = traces;
  self->samples = samples;
  self->interval = interval;
  self->have_caps = TRUE;
  GST_DEBUG_OBJECT (self, "caps %" GST_PTR_FORMAT, caps);
  return TRUE;
}

/* ---- writing ---- */

static gboolean
write_bytes (GstSegySink * self, gconstpointer data, gsize len)
{
  if (len && fwrite (data, 1, len, self->file) != len) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Cannot write the SEG-Y file \"%s\".", self->path),
        ("%s: %s", self->path, g_strerror (errno)));
    return FALSE;
  }
  return TRUE;
}

/* Writes the file header: the meta's (checked against the caps), or a
 * minimal one. */
static gboolean
write_file_header (GstSegySink * self, GstSciSegyMeta * meta)
{
  GstSciSegyBinaryHeader *h = &self->bin;
  gsize len = 0;
  const guint8 *p;
  gchar *why = NULL;

  if (!meta) {
    self->file_header = minimal_file_header (self->samples, self->interval,
        self->traces);
    p = g_bytes_get_data (self->file_header, &len);
    if (!gst_sci_segy_binary_header_parse (p + GST_SCI_SEGY_TEXT_HEADER_BYTES,
            h, &why))
      g_assert_not_reached ();
    if (self->interval > 65535)
      GST_ELEMENT_WARNING (self, STREAM, FORMAT,
          ("The sample interval does not fit a SEG-Y binary header."),
          ("%d microseconds is more than the 65535 of bytes 3217-3218: "
              "written as 0", self->interval));
  } else {
    p = g_bytes_get_data (meta->file_header, &len);
    if (len < GST_SCI_SEGY_FILE_HEADER_BYTES
        || (len - GST_SCI_SEGY_FILE_HEADER_BYTES) %
        GST_SCI_SEGY_TEXT_HEADER_BYTES != 0) {
      why = g_strdup_printf ("the file header of the gather's "
          "GstSciSegyMeta holds %" G_GSIZE_FORMAT " bytes, not 3600 + 3200 "
          "x extended textual headers", len);
      goto refused;
    }
    if (!gst_sci_segy_binary_header_parse (p + GST_SCI_SEGY_TEXT_HEADER_BYTES,
            h, &why))
      goto refused;
    if (!gst_sci_segy_format_bytes (h->format)) {
      why = g_strdup_printf ("the binary header says sample format %u (%s), "
          "which segysink does not write", h->format,
          gst_sci_segy_format_name (h->format));
      goto refused;
    }
    if (h->samples != (guint) self->samples) {
      why = g_strdup_printf ("the caps say %d samples a trace, the binary "
          "header of the gather's GstSciSegyMeta %u (bytes 3221-3222)",
          self->samples, h->samples);
      goto refused;
    }
    if (h->ext_headers >= 0 && (gsize) h->ext_headers !=
        (len - GST_SCI_SEGY_FILE_HEADER_BYTES) / 3200) {
      why = g_strdup_printf ("the binary header says %d extended textual "
          "headers, the file header holds %" G_GSIZE_FORMAT, h->ext_headers,
          (len - GST_SCI_SEGY_FILE_HEADER_BYTES) / 3200);
      goto refused;
    }
    if (h->extra_trace_headers) {
      why = g_strdup ("the binary header says the traces have additional "
          "trace headers (SEG-Y rev 2, bytes 3507-3510), which segysink "
          "does not write");
      goto refused;
    }
    if (h->interval && h->interval != (guint) self->interval)
      GST_ELEMENT_WARNING (self, STREAM, FORMAT,
          ("The sample interval of the caps is not the file header's."),
          ("the caps say %d microseconds, the binary header %u; the file "
              "header is written as it is", self->interval, h->interval));
    self->file_header = g_bytes_ref (meta->file_header);
    self->from_meta = TRUE;
  }
  self->sample_bytes = gst_sci_segy_format_bytes (h->format);
  if (!write_bytes (self, p, len))
    return FALSE;
  self->header_written = TRUE;
  GST_INFO_OBJECT (self, "%s: %s file header of %" G_GSIZE_FORMAT " bytes, "
      "format %u (%s), %s-endian", self->path, meta ? "the meta's" :
      "a minimal", len, h->format, gst_sci_segy_format_name (h->format),
      h->little_endian ? "little" : "big");
  return TRUE;

refused:
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Cannot write the SEG-Y file \"%s\".", self->path), ("%s", why));
  g_free (why);
  return FALSE;
}

/* Whether the trace headers of `meta` can go into the file as they are:
 * its file header is the file's, or one of the same byte order. */
static gboolean
meta_headers_fit (GstSegySink * self, GstSciSegyMeta * meta)
{
  GstSciSegyBinaryHeader h;
  const guint8 *p;
  gchar *why = NULL;
  gsize len;

  if (!meta || !self->from_meta)
    return FALSE;
  if (meta->file_header == self->file_header
      || g_bytes_equal (meta->file_header, self->file_header))
    return TRUE;
  p = g_bytes_get_data (meta->file_header, &len);
  if (len < GST_SCI_SEGY_FILE_HEADER_BYTES
      || !gst_sci_segy_binary_header_parse (p +
          GST_SCI_SEGY_TEXT_HEADER_BYTES, &h, &why)) {
    g_free (why);
    return FALSE;
  }
  return h.little_endian == self->bin.little_endian;
}

static GstFlowReturn
gst_segy_sink_render (GstBaseSink * sink, GstBuffer * buf)
{
  GstSegySink *self = GST_SEGY_SINK (sink);
  GstSciSegyMeta *meta = gst_buffer_get_sci_segy_meta (buf);
  GstSciSegyBinaryHeader *h = &self->bin;
  guint64 nan = 0, clamped = 0;
  gsize need, trace_len, len, t;
  const guint8 *headers = NULL;
  GstMapInfo map;
  gboolean ok;

  if (!self->have_caps) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("a buffer arrived before the caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  need = (gsize) self->traces * self->samples * sizeof (gfloat);
  if (gst_buffer_get_size (buf) != need) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Cannot write the SEG-Y file \"%s\".", self->path),
        ("the buffer holds %" G_GSIZE_FORMAT " bytes, the caps (%d traces x "
            "%d samples x 4 bytes) say %" G_GSIZE_FORMAT,
            gst_buffer_get_size (buf), self->traces, self->samples, need));
    return GST_FLOW_ERROR;
  }
  if (!self->header_written && !write_file_header (self, meta))
    return GST_FLOW_ERROR;

  /* the trace headers: the meta's, or made here */
  if (meta && self->from_meta) {
    gsize th_len = g_bytes_get_size (meta->trace_headers);

    if (th_len != (gsize) self->traces * TH) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("Cannot write the SEG-Y file \"%s\".", self->path),
          ("the gather's GstSciSegyMeta holds %" G_GSIZE_FORMAT " bytes of "
              "trace headers, %d traces need %" G_GSIZE_FORMAT " (240 "
              "each)", th_len, self->traces, (gsize) self->traces * TH));
      return GST_FLOW_ERROR;
    }
    if (meta_headers_fit (self, meta))
      headers = g_bytes_get_data (meta->trace_headers, NULL);
  }
  if (self->from_meta && !headers && !self->headers_warned) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("Some traces written to \"%s\" get new headers.", self->path),
        ("the gather from trace %" G_GUINT64_FORMAT " has %s: its traces get "
            "headers with only sequence numbers, sample count and interval",
            self->traces_written, meta ? "SEG-Y headers of the other byte "
            "order" : "no GstSciSegyMeta"));
    self->headers_warned = TRUE;
  }

  /* the gather as the file stores it, written at once */
  trace_len = TH + (gsize) self->samples * self->sample_bytes;
  len = trace_len * self->traces;
  if (len > self->block_size) {
    g_free (self->block);
    self->block = g_try_malloc (len);
    self->block_size = self->block ? len : 0;
    if (!self->block) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Cannot write the SEG-Y file \"%s\".", self->path),
          ("cannot allocate %" G_GSIZE_FORMAT " bytes", len));
      return GST_FLOW_ERROR;
    }
  }
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Cannot write the SEG-Y file \"%s\".", self->path),
        ("cannot map the buffer"));
    return GST_FLOW_ERROR;
  }
  for (t = 0; t < (gsize) self->traces; t++) {
    guint8 *trace = self->block + t * trace_len;

    if (headers)
      memcpy (trace, headers + t * TH, TH);
    else
      minimal_trace_header (trace, self->traces_written + t + 1,
          self->samples, self->interval, h->little_endian);
    gst_sci_segy_samples_from_float (h->format, h->little_endian,
        (const gfloat *) map.data + t * self->samples, trace + TH,
        self->samples, &nan, &clamped);
  }
  gst_buffer_unmap (buf, &map);
  ok = write_bytes (self, self->block, len);
  if (!ok)
    return GST_FLOW_ERROR;
  self->traces_written += self->traces;
  self->nan += nan;
  self->clamped += clamped;
  if ((nan || clamped) && !self->values_warned) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("Some samples written to \"%s\" are not the values given.",
            self->path),
        ("the gather ending at trace %" G_GUINT64_FORMAT " holds %"
            G_GUINT64_FORMAT " NaN (written as 0) and %" G_GUINT64_FORMAT
            " values outside the range of %s (clamped)", self->traces_written,
            nan, clamped, gst_sci_segy_format_name (h->format)));
    self->values_warned = TRUE;
  }
  GST_LOG_OBJECT (self, "wrote %d traces (%" G_GUINT64_FORMAT " so far)",
      self->traces, self->traces_written);
  return GST_FLOW_OK;
}

static gboolean
gst_segy_sink_event (GstBaseSink * sink, GstEvent * event)
{
  GstSegySink *self = GST_SEGY_SINK (sink);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->file) {
    if (fflush (self->file) != 0) {
      GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
          ("Cannot write the SEG-Y file \"%s\".", self->path),
          ("%s: %s", self->path, g_strerror (errno)));
    } else if (!self->header_written) {
      GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
          ("No traces were written to \"%s\".", self->path),
          ("the stream ended without a gather: no file is left"));
    } else {
      GST_INFO_OBJECT (self, "%s: %" G_GUINT64_FORMAT " traces; %"
          G_GUINT64_FORMAT " NaN, %" G_GUINT64_FORMAT " clamped", self->path,
          self->traces_written, self->nan, self->clamped);
    }
  }
  return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
}

/* ---- properties ---- */

static void
gst_segy_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSegySink *self = GST_SEGY_SINK (object);
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
gst_segy_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstSegySink *self = GST_SEGY_SINK (object);

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
gst_segy_sink_finalize (GObject * object)
{
  GstSegySink *self = GST_SEGY_SINK (object);

  if (self->file)
    fclose (self->file);
  g_free (self->path);
  clear_file (self);
  g_free (self->location);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_segy_sink_class_init (GstSegySinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *basesink_class = GST_BASE_SINK_CLASS (klass);

  gobject_class->set_property = gst_segy_sink_set_property;
  gobject_class->get_property = gst_segy_sink_get_property;
  gobject_class->finalize = gst_segy_sink_finalize;
  basesink_class->start = GST_DEBUG_FUNCPTR (gst_segy_sink_start);
  basesink_class->stop = GST_DEBUG_FUNCPTR (gst_segy_sink_stop);
  basesink_class->set_caps = GST_DEBUG_FUNCPTR (gst_segy_sink_set_caps);
  basesink_class->render = GST_DEBUG_FUNCPTR (gst_segy_sink_render);
  basesink_class->event = GST_DEBUG_FUNCPTR (gst_segy_sink_event);

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "Path of the SEG-Y file to write (replaced if it exists)", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /* GstBaseSink's blocksize is what a sink pulls a buffer in pull mode,
   * which segysink never uses; it cannot be uninstalled, so a read-only
   * property of the same name shadows it (gst-inspect tells the truth,
   * setting it fails loudly) */
  g_object_class_install_property (gobject_class, PROP_BLOCKSIZE,
      g_param_spec_uint ("blocksize", "Block size",
          "Not used (always 0, read-only): segysink writes the gathers pushed "
          "to it as they come and never pulls blocks of bytes", 0, 0, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "SEG-Y sink", "Sink/File",
      "Writes application/x-seismic gathers to a SEG-Y file, with the "
      "headers of their GstSciSegyMeta as they are", SCI_ELEMENT_AUTHOR);

  GST_DEBUG_CATEGORY_INIT (gst_segy_sink_debug, "segysink", 0, "SEG-Y sink");
}

static void
gst_segy_sink_init (GstSegySink * self)
{
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
}
