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
};

#define DEFAULT_GATHER_TRACES 96
#define DEFAULT_GATHER_KEY GST_SEGY_GATHER_KEY_NONE

#define GST_TYPE_SEGY_GATHER_KEY (gst_segy_gather_key_get_type ())
static GType gst_segy_gather_key_get_type (void);

/* The 1-based byte of each key's 4-byte field in the trace header. */
static const guint key_bytes[] = { 0, 9, 21, 189, 193, 17, 37 };

static const gchar *const key_names[] = { "none", "ffid", "cdp", "inline",
  "crossline", "energy-source-point", "offset"
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_SEGY_CAPS));

#define gst_segy_src_parent_class parent_class
G_DEFINE_TYPE (GstSegySrc, gst_segy_src, GST_TYPE_BASE_SRC);
GST_ELEMENT_REGISTER_DEFINE (segysrc, "segysrc", GST_RANK_NONE,
    GST_TYPE_SEGY_SRC);

static GType
gst_segy_gather_key_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_SEGY_GATHER_KEY_NONE, "No key: gather-traces traces a gather",
        "none"},
    {GST_SEGY_GATHER_KEY_FFID, "Field record number (trace header bytes "
          "9-12): one gather per shot", "ffid"},
    {GST_SEGY_GATHER_KEY_CDP, "Ensemble (CDP) number (bytes 21-24)", "cdp"},
    {GST_SEGY_GATHER_KEY_INLINE, "Inline number (bytes 189-192)", "inline"},
    {GST_SEGY_GATHER_KEY_CROSSLINE, "Crossline number (bytes 193-196)",
        "crossline"},
    {GST_SEGY_GATHER_KEY_ENERGY_SOURCE_POINT, "Energy source point number "
          "(bytes 17-20)", "energy-source-point"},
    {GST_SEGY_GATHER_KEY_OFFSET, "Source-receiver offset (bytes 37-40)",
        "offset"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSegyGatherKey", values);

    g_once_init_leave (&type, t);
  }
  return type;
}

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

/* A big- or little-endian unsigned integer of `n` bytes. */
static guint32
read_uint (const guint8 * b, guint n, gboolean le)
{
  guint32 v = 0;
  guint i;

  for (i = 0; i < n; i++)
    v = (v << 8) | b[le ? n - 1 - i : i];
  return v;
}

/* The value of the key field of trace `t`. */
static gboolean
read_key (GstSegySrc * self, guint64 t, guint32 * v, gchar ** why)
{
  guint8 b[4];

  if (!read_at (self->fd, b, 4, self->trace0 + t * self->trace_bytes +
          self->key_offset - 1, why))
    return FALSE;
  *v = read_uint (b, 4, self->bin.little_endian);
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
    if (k == self->max_traces) {
      if (!self->split_warned) {
        GST_ELEMENT_WARNING (self, STREAM, FORMAT,
            ("A gather of \"%s\" is split: it is longer than a buffer of "
                "application/x-seismic may be.", self->path),
            ("gather-key=%s: the run of traces with value %d from trace %"
                G_GUINT64_FORMAT " has more than %u traces (at most 16777216 "
                "traces and 2^28 values a gather): cut into gathers of %u",
                key_names[self->gather_key], (gint32) key, first,
                self->max_traces, self->max_traces));
        self->split_warned = TRUE;
      }
      break;
    }
  }
  *n = k;
  return TRUE;
}

/* Whether `hay` holds `needle`. */
static gboolean
contains (const guint8 * hay, gsize n, const guint8 * needle, gsize m)
{
  gsize i;

  for (i = 0; i + m <= n; i++)
    if (hay[i] == needle[0] && memcmp (hay + i, needle, m) == 0)
      return TRUE;
  return FALSE;
}

/* Bytes of extended textual headers from `off` up to and including the
 * record that holds the ((SEG: EndText)) stanza (ASCII or EBCDIC); FALSE
 * when no record up to the end of the file does. */
static gboolean
find_end_text (gint fd, guint64 off, guint64 size, guint64 * len, gchar ** why)
{
  static const guint8 ascii[] = "((SEG: EndText))";
  static const guint8 ebcdic[] = { 0x4d, 0x4d, 0xe2, 0xc5, 0xc7, 0x7a, 0x40,
    0xc5, 0x95, 0x84, 0xe3, 0x85, 0xa7, 0xa3, 0x5d, 0x5d
  };
  guint8 rec[GST_SCI_SEGY_TEXT_HEADER_BYTES];
  guint64 at;

  for (at = off; at + sizeof (rec) <= size; at += sizeof (rec)) {
    if (!read_at (fd, rec, sizeof (rec), at, why))
      return FALSE;
    if (contains (rec, sizeof (rec), ascii, 16)
        || contains (rec, sizeof (rec), ebcdic, 16)) {
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
  self->split_warned = FALSE;
}

static GstCaps *
make_caps (GstSegySrc * self, guint traces)
{
  return gst_caps_new_simple ("application/x-seismic",
      "traces", G_TYPE_INT, (gint) traces,
      "samples", G_TYPE_INT, (gint) self->bin.samples,
      "sample-interval", G_TYPE_INT, (gint) self->interval, NULL);
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
  GstSciSegyBinaryHeader *h = &self->bin;
  guint64 size, header_len, ext_len, data;
  guint8 *file_header;
  guint gather_traces, first_n;
  struct stat st;

  GST_OBJECT_LOCK (self);
  location = g_strdup (self->location);
  gather_traces = self->gather_traces;
  self->key_offset = key_bytes[self->gather_key];
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
  if (!gst_sci_segy_binary_header_parse (head +
          GST_SCI_SEGY_TEXT_HEADER_BYTES, h, &why))
    FAIL (STREAM, WRONG_TYPE, ("%s: %s", location, why));
  self->sample_bytes = gst_sci_segy_format_bytes (h->format);
  if (!self->sample_bytes)
    FAIL (STREAM, FORMAT, ("%s: sample format %u (%s) is not supported: "
            "segysrc reads formats 1 (IBM float), 2 (int32), 3 (int16), "
            "5 (IEEE float), 6 (IEEE double), 7 (int24), 8 (int8), "
            "9 (int64), 10 (uint32), 11 (uint16), 12 (uint64), 15 (uint24) "
            "and 16 (uint8)", location, h->format,
            gst_sci_segy_format_name (h->format)));
  if (h->extra_trace_headers)
    FAIL (STREAM, FORMAT, ("%s: the binary header says up to %"
            G_GUINT64_FORMAT " additional trace headers a trace (SEG-Y rev 2, "
            "bytes 3507-3510), which segysrc does not read", location,
            h->extra_trace_headers));
  if (h->samples == 0)
    FAIL (STREAM, FORMAT, ("%s: the binary header says 0 samples a trace "
            "(bytes 3221-3222)", location));
  if (h->samples > 65535)
    FAIL (STREAM, FORMAT, ("%s: the binary header says %u samples a trace; "
            "application/x-seismic carries at most 65535", location,
            h->samples));

  /* the extended textual headers */
  if (h->ext_headers >= 0) {
    ext_len = (guint64) h->ext_headers * GST_SCI_SEGY_TEXT_HEADER_BYTES;
    if (GST_SCI_SEGY_FILE_HEADER_BYTES + ext_len > size)
      FAIL (STREAM, FORMAT, ("%s: the binary header says %d extended "
              "textual headers (bytes 3505-3506), which end at byte %"
              G_GUINT64_FORMAT ", but the file holds %" G_GUINT64_FORMAT
              " bytes", location, h->ext_headers,
              GST_SCI_SEGY_FILE_HEADER_BYTES + ext_len, size));
  } else if (h->ext_headers == -1) {
    if (!find_end_text (self->fd, GST_SCI_SEGY_FILE_HEADER_BYTES, size,
            &ext_len, &why))
      FAIL (STREAM, FORMAT, ("%s: %s", location, why));
  } else {
    FAIL (STREAM, FORMAT, ("%s: the binary header says %d extended textual "
            "headers (bytes 3505-3506)", location, h->ext_headers));
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
  self->trace_bytes = GST_SCI_SEGY_TRACE_HEADER_BYTES +
      (guint64) h->samples * self->sample_bytes;
  data = size - header_len;
  self->n_traces = data / self->trace_bytes;
  self->tail = data % self->trace_bytes;
  if (self->n_traces == 0 && self->tail)
    FAIL (RESOURCE, READ, ("%s: truncated: the file ends %" G_GUINT64_FORMAT
            " bytes into its first trace, which takes %" G_GUINT64_FORMAT
            " bytes (240 header + %u samples x %u bytes of %s)", location,
            self->tail, self->trace_bytes, h->samples, self->sample_bytes,
            gst_sci_segy_format_name (h->format)));

  /* the sample interval: the binary header's, else the first trace's */
  self->interval = h->interval;
  if (!self->interval && self->n_traces) {
    guint8 b[2];

    if (!read_at (self->fd, b, 2, self->trace0 + 116, &why))
      FAIL (RESOURCE, READ, ("%s: %s", location, why));
    self->interval = read_uint (b, 2, h->little_endian);
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
  self->max_traces = MIN (GST_SEGY_MAX_TRACES,
      GST_SEGY_MAX_VALUES / h->samples);
  self->fixed = MIN (gather_traces, self->max_traces);
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
      h->ext_headers, header_len, self->n_traces, self->trace_bytes,
      self->tail ? " and an incomplete one" : "",
      key_names[self->key_offset ? self->gather_key : 0]);
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

static GstFlowReturn
gst_segy_src_create (GstBaseSrc * src, guint64 offset, guint size,
    GstBuffer ** out)
{
  GstSegySrc *self = GST_SEGY_SRC (src);
  GstSciSegyBinaryHeader *h = &self->bin;
  guint64 first = self->next, off;
  gsize raw_len, values;
  guint8 *headers;
  gchar *why = NULL;
  GstBuffer *buf;
  GstMapInfo map;
  guint n, t;

  if (first >= self->n_traces) {
    if (!self->tail)
      return GST_FLOW_EOS;
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("The SEG-Y file \"%s\" is truncated.", self->path),
        ("%s: the file ends %" G_GUINT64_FORMAT " bytes into trace %"
            G_GUINT64_FORMAT ", which takes %" G_GUINT64_FORMAT " bytes "
            "(240 header + %u samples x %u bytes of %s); the %"
            G_GUINT64_FORMAT " whole traces before it were read", self->path,
            self->tail, self->n_traces, self->trace_bytes, h->samples,
            self->sample_bytes, gst_sci_segy_format_name (h->format),
            self->n_traces));
    return GST_FLOW_ERROR;
  }
  if (!gather_length (self, first, &n, &why))
    goto read_error;

  /* the gather's bytes as stored, in one read */
  raw_len = (gsize) n *self->trace_bytes;
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
  off = self->trace0 + first * self->trace_bytes;
  if (!read_at (self->fd, self->raw, raw_len, off, &why))
    goto read_error;

  /* the samples as floats, the headers as they are */
  values = (gsize) n *h->samples;
  buf = gst_buffer_new_allocate (NULL, values * sizeof (gfloat), NULL);
  if (!buf || !gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
    why = g_strdup_printf ("cannot allocate a buffer of %" G_GSIZE_FORMAT
        " bytes", values * sizeof (gfloat));
    if (buf)
      gst_buffer_unref (buf);
    goto read_error;
  }
  headers = g_malloc ((gsize) n * GST_SCI_SEGY_TRACE_HEADER_BYTES);
  for (t = 0; t < n; t++) {
    const guint8 *trace = self->raw + (gsize) t * self->trace_bytes;

    memcpy (headers + (gsize) t * GST_SCI_SEGY_TRACE_HEADER_BYTES, trace,
        GST_SCI_SEGY_TRACE_HEADER_BYTES);
    gst_sci_segy_samples_to_float (h->format, h->little_endian,
        trace + GST_SCI_SEGY_TRACE_HEADER_BYTES,
        (gfloat *) map.data + (gsize) t * h->samples, h->samples);
  }
  gst_buffer_unmap (buf, &map);
  {
    GBytes *th = g_bytes_new_take (headers,
        (gsize) n * GST_SCI_SEGY_TRACE_HEADER_BYTES);

    gst_buffer_add_sci_segy_meta (buf, self->file_header, th, first);
    g_bytes_unref (th);
  }
  GST_BUFFER_OFFSET (buf) = first;
  GST_BUFFER_OFFSET_END (buf) = first + n;

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
  GST_LOG_OBJECT (self, "gather of %u traces from trace %" G_GUINT64_FORMAT,
      n, first);
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
      "with its headers kept as stored (GstSciSegyMeta)", "gst-scicodec");

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
