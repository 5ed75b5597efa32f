/**
 * SECTION:element-segysrc
 * @title: segysrc
 *
 * Reads a SEG-Y file (rev 0, 1 or 2.0, big- or little-endian) and pushes
 * its traces as gathers of `application/x-seismic`: one buffer of traces x
 * samples float32 values in host order, trace after trace.  Each buffer
 * carries a #GstSciSegyMeta with the file's textual, binary and extended
 * textual headers and its traces' 240-byte headers, all as stored, so
 * that segysink writes the same file back byte for byte.
 *
 * A gather is `gather-traces` consecutive traces (the last one may be
 * shorter), or, with `gather-key`, a run of consecutive traces with the
 * same value of that trace-header field (one gather per shot with
 * `gather-key=ffid`); the caps' `traces` follows each gather.
 *
 * Gathers are timestamped one after the other from 0, each lasting
 * `gather-duration`, by default the record length (samples x sample
 * interval): so that a live chain can pace them (a sink with sync=true, or
 * `clocksync`), a shot a record length.  Their offsets are trace numbers
 * (offset: the first trace, offset-end: one past the last).
 *
 * Sample formats 1 (IBM float), 2 (int32), 3 (int16), 5 (IEEE float),
 * 6 (IEEE double), 7 (int24), 8 (int8), 9 (int64), 10 (uint32),
 * 11 (uint16), 12 (uint64), 15 (uint24) and 16 (uint8) are read; the byte
 * order is found from the binary header.  A file that ends inside a trace
 * gives its whole traces, then an error that says so.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 segysrc location=f3.sgy ! segysink location=copy.sgy
 * gst-launch-1.0 segysrc location=shots.sgy gather-key=ffid ! \
 *     seismicenc ! filesink location=shots.seis
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "gstsegysrc.h"

GST_DEBUG_CATEGORY_STATIC (gst_segy_src_debug);
#define GST_CAT_DEFAULT gst_segy_src_debug

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_GATHER_TRACES,
  PROP_GATHER_KEY,
  PROP_BLOCKSIZE,
  PROP_GATHER_DURATION,
};

#define DEFAULT_GATHER_TRACES 96
#define DEFAULT_GATHER_KEY GST_SEGY_GATHER_KEY_NONE

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_SEGY_CAPS));

#define gst_segy_src_parent_class parent_class
G_DEFINE_TYPE (GstSegySrc, gst_segy_src, GST_TYPE_BASE_SRC);
GST_ELEMENT_REGISTER_DEFINE (segysrc, "segysrc", GST_RANK_NONE,
    GST_TYPE_SEGY_SRC);

/* ---- reading ---- */

/* Reads exactly `len` bytes at `off`; FALSE with why in `*why`. */
static gboolean
read_at (gint fd, gpointer buf, gsize len, guint64 off, gchar ** why)
{
  guint8 *p = buf;

  while (len) {
    gssize n = pread (fd, p, MIN (len, (gsize) 1 << 30), (off_t) off);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      *why = g_strdup_printf ("cannot read %" G_GSIZE_FORMAT " bytes at "
          "byte %" G_GUINT64_FORMAT ": %s", len, off, g_strerror (errno));
      return FALSE;
    }
    if (n == 0) {
      *why = g_strdup_printf ("the file ends at byte %" G_GUINT64_FORMAT
          " (it shrank while being read?)", off);
      return FALSE;
    }
    p += n;
    len -= n;
    off += n;
  }
  return TRUE;
}

/* The value of the key field of trace `t`. */
static gboolean
read_key (GstSegySrc * self, guint64 t, guint32 * v, gchar ** why)
{
  guint8 th[GST_SCI_SEGY_TRACE_HEADER_BYTES];

  if (!read_at (self->fd, th, sizeof (th), self->trace0 + t *
          self->layout.trace_bytes, why))
    return FALSE;
  *v = gst_segy_layout_trace_key (&self->layout, th, self->key_offset);
  return TRUE;
}

/* The number of traces of the gather that starts at trace `first`: a run
 * of equal keys, or `fixed` traces, never more than the caps allow and
 * never past the last whole trace. */
static gboolean
gather_length (GstSegySrc * self, guint64 first, guint * n, gchar ** why)
{
  guint64 left = self->n_traces - first;
  guint32 key, v;
  guint k;

  if (!self->key_offset) {
    *n = MIN ((guint64) self->fixed, left);
    return TRUE;
  }
  if (!read_key (self, first, &key, why))
    return FALSE;
  for (k = 1; k < left; k++) {
    if (!read_key (self, first + k, &v, why))
      return FALSE;
    if (v != key)
      break;
    if (k == self->layout.max_traces) {
      if (!self->split_warned) {
        GST_ELEMENT_WARNING (self, STREAM, FORMAT,
            ("A gather of \"%s\" is split: it is longer than a buffer of "
                "application/x-seismic may be.", self->path),
            ("gather-key=%s: the run of traces with value %d from trace %"
                G_GUINT64_FORMAT " has more than %u traces (at most 16777216 "
                "traces and 2^28 values a gather): cut into gathers of %u",
                gst_segy_gather_key_name (self->gather_key), (gint32) key,
                first, self->layout.max_traces, self->layout.max_traces));
        self->split_warned = TRUE;
      }
      break;
    }
  }
  *n = k;
  return TRUE;
}

/* Bytes of extended textual headers from `off` up to and including the
 * record that holds the ((SEG: EndText)) stanza; FALSE when no record up
 * to the end of the file, or up to the most that a meta's records carry
 * (GST_SCI_SEGY_MAX_EXT_HEADERS), does. */
static gboolean
find_end_text (gint fd, guint64 off, guint64 size, guint64 * len, gchar ** why)
{
  guint8 rec[GST_SCI_SEGY_TEXT_HEADER_BYTES];
  guint64 at;
  guint n = 0;

  for (at = off; at + sizeof (rec) <= size; at += sizeof (rec)) {
    if (n++ == GST_SCI_SEGY_MAX_EXT_HEADERS) {
      *why = g_strdup_printf ("the binary header says a variable number of "
          "extended textual headers (-1 in bytes 3505-3506), but none of "
          "the %u records after the binary header holds the "
          "((SEG: EndText)) stanza that ends them", n - 1);
      return FALSE;
    }
    if (!read_at (fd, rec, sizeof (rec), at, why))
      return FALSE;
    if (gst_segy_record_ends_text (rec)) {
      *len = at + sizeof (rec) - off;
      return TRUE;
    }
  }
  *why = g_strdup ("the binary header says a variable number of extended "
      "textual headers (-1 in bytes 3505-3506), but no 3200-byte record "
      "after the binary header holds the ((SEG: EndText)) stanza that ends "
      "them");
  return FALSE;
}

/* ---- start / stop ---- */

static void
clear_file (GstSegySrc * self)
{
  if (self->fd >= 0) {
    close (self->fd);
    self->fd = -1;
  }
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->file_header, g_bytes_unref);
  g_clear_pointer (&self->raw, g_free);
  self->raw_size = 0;
  GST_OBJECT_LOCK (self);
  gst_clear_caps (&self->caps);
  GST_OBJECT_UNLOCK (self);
  self->caps_traces = 0;
  self->next = 0;
  self->time = 0;
  self->split_warned = FALSE;
}

static GstCaps *
make_caps (GstSegySrc * self, guint traces)
{
  return gst_segy_layout_caps (&self->layout, traces, self->interval);
}

#define FAIL(domain, code, ...) G_STMT_START {                           \
    GST_ELEMENT_ERROR (self, domain, code,                              \
        ("Cannot read the SEG-Y file \"%s\".", location), __VA_ARGS__); \
    goto fail;                                                          \
  } G_STMT_END

static gboolean
gst_segy_src_start (GstBaseSrc * src)
{
  GstSegySrc *self = GST_SEGY_SRC (src);
  gchar *location, *why = NULL;
  guint8 head[GST_SCI_SEGY_FILE_HEADER_BYTES];
  GstSegyLayout *l = &self->layout;
  GstSciSegyBinaryHeader *h = &l->bin;
  GstStreamError code;
  guint64 size, header_len, ext_len, data;
  guint8 *file_header;
  guint gather_traces, first_n;
  struct stat st;

  GST_OBJECT_LOCK (self);
  location = g_strdup (self->location);
  gather_traces = self->gather_traces;
  self->key_offset = gst_segy_gather_key_byte (self->gather_key);
  GST_OBJECT_UNLOCK (self);
  clear_file (self);

  if (!location || !*location) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No file name specified for reading."), ("location is not set"));
    goto fail;
  }
  self->path = g_strdup (location);
  if (!g_file_test (location, G_FILE_TEST_EXISTS))
    FAIL (RESOURCE, NOT_FOUND, ("%s: no such file", location));
  if (!g_file_test (location, G_FILE_TEST_IS_REGULAR))
    FAIL (RESOURCE, OPEN_READ, ("%s: not a regular file", location));
  self->fd = g_open (location, O_RDONLY | O_CLOEXEC, 0);
  if (self->fd < 0 || fstat (self->fd, &st) != 0)
    FAIL (RESOURCE, OPEN_READ, ("%s: %s", location, g_strerror (errno)));
  size = st.st_size;

  /* the textual and binary headers */
  if (size < GST_SCI_SEGY_FILE_HEADER_BYTES)
    FAIL (STREAM, WRONG_TYPE, ("%s: %" G_GUINT64_FORMAT " bytes, fewer than "
            "the 3600 bytes of a SEG-Y file's textual and binary headers: not "
            "a SEG-Y file", location, size));
  if (!read_at (self->fd, head, sizeof (head), 0, &why))
    FAIL (RESOURCE, READ, ("%s: %s", location, why));
  if (!gst_segy_layout_init (l, head, &code, &why)) {
    gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR,
        GST_STREAM_ERROR, code, g_strdup_printf ("Cannot read the SEG-Y "
            "file \"%s\".", location), g_strdup_printf ("%s: %s", location,
            why), __FILE__, GST_FUNCTION, __LINE__);
    goto fail;
  }

  /* the extended textual headers */
  if (h->ext_headers >= 0) {
    ext_len = (guint64) h->ext_headers * GST_SCI_SEGY_TEXT_HEADER_BYTES;
    if (GST_SCI_SEGY_FILE_HEADER_BYTES + ext_len > size)
      FAIL (STREAM, FORMAT, ("%s: the binary header says %d extended "
              "textual headers (bytes 3505-3506), which end at byte %"
              G_GUINT64_FORMAT ", but the file holds %" G_GUINT64_FORMAT
              " bytes", location, h->ext_headers,
              GST_SCI_SEGY_FILE_HEADER_BYTES + ext_len, size));
  } else {
    /* -1: gst_segy_layout_init refused the others */
    if (!find_end_text (self->fd, GST_SCI_SEGY_FILE_HEADER_BYTES, size,
            &ext_len, &why))
      FAIL (STREAM, FORMAT, ("%s: %s", location, why));
  }
  header_len = GST_SCI_SEGY_FILE_HEADER_BYTES + ext_len;
  file_header = g_malloc (header_len);
  memcpy (file_header, head, sizeof (head));
  self->file_header = g_bytes_new_take (file_header, header_len);
  if (!read_at (self->fd, file_header + sizeof (head), ext_len,
          sizeof (head), &why))
    FAIL (RESOURCE, READ, ("%s: %s", location, why));

  /* the traces */
  self->trace0 = header_len;
  data = size - header_len;
  self->n_traces = data / l->trace_bytes;
  self->tail = data % l->trace_bytes;
  if (self->n_traces == 0 && self->tail)
    FAIL (RESOURCE, READ, ("%s: truncated: the file ends %" G_GUINT64_FORMAT
            " bytes into its first trace, which takes %" G_GUINT64_FORMAT
            " bytes (240 header + %u samples x %u bytes of %s)", location,
            self->tail, l->trace_bytes, h->samples, l->sample_bytes,
            gst_sci_segy_format_name (h->format)));

  /* the sample interval: the binary header's, else the first trace's */
  self->interval = h->interval;
  if (!self->interval && self->n_traces) {
    guint8 th[GST_SCI_SEGY_TRACE_HEADER_BYTES];

    if (!read_at (self->fd, th, sizeof (th), self->trace0, &why))
      FAIL (RESOURCE, READ, ("%s: %s", location, why));
    self->interval = gst_segy_layout_trace_interval (l, th);
  }
  if (!self->interval) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("The SEG-Y file \"%s\" gives no sample interval.", location),
        ("%s: the sample interval is 0 in the binary header (bytes "
            "3217-3218) and in the first trace header (bytes 117-118): the "
            "caps say sample-interval=1 (microsecond)", location));
    self->interval = 1;
  }

  /* the gathers */
  self->fixed = gst_segy_layout_fixed_traces (l, gather_traces);
  if (!self->key_offset && self->fixed < gather_traces)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("Gathers of \"%s\" are cut to %u traces.", location, self->fixed),
        ("gather-traces=%u traces of %u samples are more than 2^28 values, "
            "the most a buffer of application/x-seismic holds", gather_traces,
            h->samples));
  if (self->n_traces == 0) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("The SEG-Y file \"%s\" holds no traces.", location),
        ("%s: the file ends with its headers (%" G_GUINT64_FORMAT " bytes)",
            location, size));
    first_n = 1;
  } else if (!gather_length (self, 0, &first_n, &why)) {
    FAIL (RESOURCE, READ, ("%s: %s", location, why));
  }
  GST_OBJECT_LOCK (self);
  self->caps = make_caps (self, first_n);
  GST_OBJECT_UNLOCK (self);
  self->caps_traces = first_n;

  GST_INFO_OBJECT (self, "%s: SEG-Y rev %u, %s-endian, format %u (%s), %u "
      "samples every %u us, %d extended textual headers (%" G_GUINT64_FORMAT
      " header bytes), %" G_GUINT64_FORMAT " traces of %" G_GUINT64_FORMAT
      " bytes%s; gathers: %s", location, h->revision,
      h->little_endian ? "little" : "big", h->format,
      gst_sci_segy_format_name (h->format), h->samples, self->interval,
      h->ext_headers, header_len, self->n_traces, l->trace_bytes,
      self->tail ? " and an incomplete one" : "",
      gst_segy_gather_key_name (self->key_offset ? self->gather_key : 0));
  g_free (location);
  return TRUE;

fail:
  clear_file (self);
  g_free (location);
  g_free (why);
  return FALSE;
}

#undef FAIL

static gboolean
gst_segy_src_stop (GstBaseSrc * src)
{
  clear_file (GST_SEGY_SRC (src));
  return TRUE;
}

static GstCaps *
gst_segy_src_get_caps (GstBaseSrc * src, GstCaps * filter)
{
  GstSegySrc *self = GST_SEGY_SRC (src);
  GstCaps *caps;

  GST_OBJECT_LOCK (self);
  caps = self->caps ? gst_caps_ref (self->caps) :
      gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (src));
  GST_OBJECT_UNLOCK (self);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, caps,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (caps);
    caps = tmp;
  }
  return caps;
}

static gboolean
gst_segy_src_is_seekable (GstBaseSrc * src)
{
  return FALSE;
}

/* What a gather stands for: the property, else the record length
 * (samples x the sample interval of the caps, in microseconds). */
static GstClockTime
gather_duration (GstSegySrc * self)
{
  guint64 d;

  GST_OBJECT_LOCK (self);
  d = self->gather_duration;
  GST_OBJECT_UNLOCK (self);
  if (!d)
    d = (guint64) self->layout.bin.samples * self->interval * GST_USECOND;
  return d;
}

static GstFlowReturn
gst_segy_src_create (GstBaseSrc * src, guint64 offset, guint size,
    GstBuffer ** out)
{
  GstSegySrc *self = GST_SEGY_SRC (src);
  GstSegyLayout *l = &self->layout;
  GstSciSegyBinaryHeader *h = &l->bin;
  guint64 first = self->next, off;
  gsize raw_len;
  gchar *why = NULL;
  GstBuffer *buf;
  guint n;

  if (first >= self->n_traces) {
    if (!self->tail)
      return GST_FLOW_EOS;
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("The SEG-Y file \"%s\" is truncated.", self->path),
        ("%s: the file ends %" G_GUINT64_FORMAT " bytes into trace %"
            G_GUINT64_FORMAT ", which takes %" G_GUINT64_FORMAT " bytes "
            "(240 header + %u samples x %u bytes of %s); the %"
            G_GUINT64_FORMAT " whole traces before it were read", self->path,
            self->tail, self->n_traces, l->trace_bytes, h->samples,
            l->sample_bytes, gst_sci_segy_format_name (h->format),
            self->n_traces));
    return GST_FLOW_ERROR;
  }
  if (!gather_length (self, first, &n, &why))
    goto read_error;

  /* the gather's bytes as stored, in one read */
  raw_len = (gsize) n *l->trace_bytes;
  if (raw_len > self->raw_size) {
    g_free (self->raw);
    self->raw = g_try_malloc (raw_len);
    self->raw_size = self->raw ? raw_len : 0;
    if (!self->raw) {
      why = g_strdup_printf ("cannot allocate %" G_GSIZE_FORMAT " bytes",
          raw_len);
      goto read_error;
    }
  }
  off = self->trace0 + first * l->trace_bytes;
  if (!read_at (self->fd, self->raw, raw_len, off, &why))
    goto read_error;

  /* the samples as floats, the headers as they are */
  buf = gst_segy_layout_gather (l, self->raw, n, first, self->file_header);
  if (!buf) {
    why = g_strdup_printf ("cannot allocate a gather of %u traces", n);
    goto read_error;
  }

  /* new caps when the gather's length changes */
  if ((gint) n != self->caps_traces) {
    GstCaps *caps = make_caps (self, n);

    GST_DEBUG_OBJECT (self, "caps %" GST_PTR_FORMAT, caps);
    GST_OBJECT_LOCK (self);
    gst_caps_replace (&self->caps, caps);
    GST_OBJECT_UNLOCK (self);
    if (!gst_base_src_set_caps (src, caps)) {
      gst_caps_unref (caps);
      gst_buffer_unref (buf);
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
          ("downstream refused the caps of a gather of %u traces (from trace "
              "%" G_GUINT64_FORMAT ")", n, first));
      return GST_FLOW_NOT_NEGOTIATED;
    }
    gst_caps_unref (caps);
    self->caps_traces = n;
  }
  self->next = first + n;
  GST_BUFFER_PTS (buf) = self->time;
  GST_BUFFER_DURATION (buf) = gather_duration (self);
  GST_BUFFER_OFFSET (buf) = first;
  GST_BUFFER_OFFSET_END (buf) = first + n;
  self->time += GST_BUFFER_DURATION (buf);
  GST_LOG_OBJECT (self, "gather of %u traces from trace %" G_GUINT64_FORMAT
      " at %" GST_TIME_FORMAT, n, first, GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
  *out = buf;
  return GST_FLOW_OK;

read_error:
  GST_ELEMENT_ERROR (self, RESOURCE, READ,
      ("Cannot read the SEG-Y file \"%s\".", self->path),
      ("%s: trace %" G_GUINT64_FORMAT ": %s", self->path, first, why));
  g_free (why);
  return GST_FLOW_ERROR;
}

/* ---- properties ---- */

static void
gst_segy_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSegySrc *self = GST_SEGY_SRC (object);
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
    case PROP_GATHER_TRACES:
      self->gather_traces = g_value_get_uint (value);
      break;
    case PROP_GATHER_KEY:
      self->gather_key = g_value_get_enum (value);
      break;
    case PROP_GATHER_DURATION:
      self->gather_duration = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_segy_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstSegySrc *self = GST_SEGY_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_GATHER_TRACES:
      g_value_set_uint (value, self->gather_traces);
      break;
    case PROP_GATHER_KEY:
      g_value_set_enum (value, self->gather_key);
      break;
    case PROP_BLOCKSIZE:
      g_value_set_uint (value, 0);
      break;
    case PROP_GATHER_DURATION:
      g_value_set_uint64 (value, self->gather_duration);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_segy_src_finalize (GObject * object)
{
  GstSegySrc *self = GST_SEGY_SRC (object);

  clear_file (self);
  g_free (self->location);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_segy_src_class_init (GstSegySrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *basesrc_class = GST_BASE_SRC_CLASS (klass);

  gobject_class->set_property = gst_segy_src_set_property;
  gobject_class->get_property = gst_segy_src_get_property;
  gobject_class->finalize = gst_segy_src_finalize;
  basesrc_class->start = GST_DEBUG_FUNCPTR (gst_segy_src_start);
  basesrc_class->stop = GST_DEBUG_FUNCPTR (gst_segy_src_stop);
  basesrc_class->get_caps = GST_DEBUG_FUNCPTR (gst_segy_src_get_caps);
  basesrc_class->is_seekable = GST_DEBUG_FUNCPTR (gst_segy_src_is_seekable);
  basesrc_class->create = GST_DEBUG_FUNCPTR (gst_segy_src_create);

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "Path of the SEG-Y file to read", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_GATHER_TRACES,
      g_param_spec_uint ("gather-traces", "Gather traces",
          "Traces a gather when gather-key is none (the last gather of the "
          "file may be shorter); ignored with a gather key", 1,
          GST_SEGY_MAX_TRACES, DEFAULT_GATHER_TRACES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_GATHER_KEY,
      g_param_spec_enum ("gather-key", "Gather key",
          "Trace-header field that makes the gathers: each run of "
          "consecutive traces with the same value is one gather, whatever "
          "its length; none: gather-traces traces a gather",
          GST_TYPE_SEGY_GATHER_KEY, DEFAULT_GATHER_KEY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_GATHER_DURATION,
      g_param_spec_uint64 ("gather-duration", "Gather duration",
          "Time each gather stands for, in nanoseconds: the gathers are "
          "timestamped one after the other from 0 (0: the record length, "
          "samples x sample interval)", 0, G_MAXUINT64, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /* GstBaseSrc's blocksize (bytes a buffer) means nothing here and cannot
   * be uninstalled: a read-only property of the same name shadows it, so
   * that gst-inspect tells the truth and setting it fails loudly instead of
   * being silently ignored */
  g_object_class_install_property (gobject_class, PROP_BLOCKSIZE,
      g_param_spec_uint ("blocksize", "Block size",
          "Not used (always 0, read-only): segysrc's buffers are gathers of "
          "gather-traces traces or of a gather-key run, not blocks of bytes",
          0, 0, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "SEG-Y source", "Source/File",
      "Reads a SEG-Y file as gathers of application/x-seismic float traces, "
      "with its headers kept as stored (GstSciSegyMeta)", SCI_ELEMENT_AUTHOR);

  gst_type_mark_as_plugin_api (GST_TYPE_SEGY_GATHER_KEY, 0);
  GST_DEBUG_CATEGORY_INIT (gst_segy_src_debug, "segysrc", 0, "SEG-Y source");
}

static void
gst_segy_src_init (GstSegySrc * self)
{
  self->gather_traces = DEFAULT_GATHER_TRACES;
  self->gather_key = DEFAULT_GATHER_KEY;
  self->fd = -1;
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}
