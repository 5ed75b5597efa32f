/*
 * A SEG-Y file read as a byte stream (gstsegystream.h).
 *
 * The bytes wait in an adapter.  The 3600 bytes of textual and binary
 * header are checked as segysrc checks them (gst_segy_layout_init); then
 * come the extended textual headers the binary header counts, or records
 * up to the one holding ((SEG: EndText)); then the traces, each of the
 * same size.  The first whole trace (or the end of the stream) decides the
 * sample interval when the binary header gives none.  A gather is output
 * when its traces are all there: `fixed` traces without a key; with a key,
 * when the trace after the run is there and differs (or the run has as
 * many traces as a buffer may hold), or at the end.  Only whole traces are
 * looked at, as segysrc looks only at the whole traces of its file.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/base/gstadapter.h>

#include "gstsegystream.h"

typedef enum
{
  PHASE_HEAD,                   /* the 3600 bytes of textual and binary header */
  PHASE_EXT,                    /* a counted number of extended headers */
  PHASE_EXT_VARIABLE,           /* records up to ((SEG: EndText)) */
  PHASE_FIRST,                  /* waiting for the first whole trace */
  PHASE_TRACES,
  PHASE_OVER,                   /* done, or failed */
} Phase;

/* What is ready to be given: a gather or a message, in order. */
typedef struct
{
  GstBuffer *gather;
  GstSegyStreamMessage *message;
  gboolean error;
} Item;

struct _GstSegyStream
{
  /* settings */
  guint gather_traces;
  GstSegyGatherKey key;
  guint key_byte;

  GstAdapter *adapter;
  guint64 offset;               /* stream offset of the adapter's first byte */
  guint64 pushed;
  gboolean eos;
  Phase phase;
  GQueue ready;                 /* Item */

  /* from the headers */
  GstSegyLayout l;
  GByteArray *header;           /* the file header while it is read */
  GBytes *file_header;
  guint ext_records;            /* variable number: records read */
  guint interval;               /* of the caps; 0 until decided */
  guint fixed;

  /* the traces */
  guint64 next;                 /* file index of the adapter's first trace */
  guint run;                    /* traces of the current key run seen */
  guint32 run_key;
  gboolean split_warned;
};

void
gst_segy_stream_message_free (GstSegyStreamMessage * m)
{
  if (!m)
    return;
  g_free (m->text);
  g_free (m->debug);
  g_free (m);
}

GstSegyStream *
gst_segy_stream_new (guint gather_traces, GstSegyGatherKey key)
{
  GstSegyStream *s = g_new0 (GstSegyStream, 1);

  s->gather_traces = MAX (gather_traces, 1);
  s->key = key;
  s->key_byte = gst_segy_gather_key_byte (key);
  s->adapter = gst_adapter_new ();
  s->header = g_byte_array_new ();
  g_queue_init (&s->ready);
  return s;
}

static void
item_free (gpointer p)
{
  Item *it = p;

  if (it->gather)
    gst_buffer_unref (it->gather);
  gst_segy_stream_message_free (it->message);
  g_free (it);
}

void
gst_segy_stream_free (GstSegyStream * s)
{
  if (!s)
    return;
  g_object_unref (s->adapter);
  if (s->header)
    g_byte_array_unref (s->header);
  if (s->file_header)
    g_bytes_unref (s->file_header);
  g_queue_clear_full (&s->ready, item_free);
  g_free (s);
}

void
gst_segy_stream_push (GstSegyStream * s, GstBuffer * buf)
{
  s->pushed += gst_buffer_get_size (buf);
  if (s->phase == PHASE_OVER || s->eos) {
    gst_buffer_unref (buf);
    return;
  }
  gst_adapter_push (s->adapter, buf);
}

void
gst_segy_stream_finish (GstSegyStream * s)
{
  s->eos = TRUE;
}

guint64
gst_segy_stream_bytes (GstSegyStream * s)
{
  return s->pushed;
}

GstCaps *
gst_segy_stream_caps (GstSegyStream * s, guint traces)
{
  if (!s->interval)
    return NULL;
  return gst_segy_layout_caps (&s->l, traces, s->interval);
}

/* Queues a message (printf-style debug text); an error ends the stream. */
static void
G_GNUC_PRINTF (5, 6)
queue_message (GstSegyStream * s, gboolean error, GQuark domain,
    gint code, const gchar * debug, ...)
{
  Item *it = g_new0 (Item, 1);
  GstSegyStreamMessage *m = g_new0 (GstSegyStreamMessage, 1);
  va_list args;

  m->domain = domain;
  m->code = code;
  va_start (args, debug);
  m->debug = g_strdup_vprintf (debug, args);
  va_end (args);
  it->message = m;
  it->error = error;
  g_queue_push_tail (&s->ready, it);
  if (error) {
    s->phase = PHASE_OVER;
    gst_adapter_clear (s->adapter);
  }
}

/* The last queued message's text for users. */
static void
set_text (GstSegyStream * s, const gchar * text)
{
  Item *it = g_queue_peek_tail (&s->ready);

  it->message->text = g_strdup (text);
}

#define FAIL(domain, code, text, ...) G_STMT_START {                \
    queue_message (s, TRUE, domain, code, __VA_ARGS__);              \
    set_text (s, text);                                              \
  } G_STMT_END
#define WARN(domain, code, text, ...) G_STMT_START {                \
    queue_message (s, FALSE, domain, code, __VA_ARGS__);             \
    set_text (s, text);                                              \
  } G_STMT_END

/* Moves `n` bytes from the adapter to the file header. */
static void
take_header (GstSegyStream * s, gsize n)
{
  guint len = s->header->len;

  g_byte_array_set_size (s->header, len + n);
  gst_adapter_copy (s->adapter, s->header->data + len, 0, n);
  gst_adapter_flush (s->adapter, n);
  s->offset += n;
}

/* The header is read: the traces follow. */
static void
header_done (GstSegyStream * s)
{
  s->file_header = g_byte_array_free_to_bytes (s->header);
  s->header = NULL;
  s->next = 0;
  s->phase = PHASE_FIRST;
}

/* The 3600 bytes of textual and binary header, when all there. */
static gboolean
read_head (GstSegyStream * s)
{
  gsize avail = gst_adapter_available (s->adapter);
  GstStreamError code;
  gchar *why = NULL;
  gint ext;

  if (avail < GST_SCI_SEGY_FILE_HEADER_BYTES) {
    if (s->eos)
      FAIL (GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
          "The stream is not SEG-Y: it is shorter than a SEG-Y file's "
          "headers.", "the stream ends at byte %" G_GSIZE_FORMAT ", before "
          "the 3600 bytes of a SEG-Y file's textual and binary headers", avail);
    return FALSE;
  }
  take_header (s, GST_SCI_SEGY_FILE_HEADER_BYTES);
  if (!gst_segy_layout_init (&s->l, s->header->data, &code, &why)) {
    if (code == GST_STREAM_ERROR_WRONG_TYPE)
      FAIL (GST_STREAM_ERROR, code, "The stream is not SEG-Y.", "%s", why);
    else
      FAIL (GST_STREAM_ERROR, code, "Cannot read the SEG-Y stream.", "%s", why);
    g_free (why);
    return TRUE;
  }
  ext = s->l.bin.ext_headers;
  s->phase = ext < 0 ? PHASE_EXT_VARIABLE : PHASE_EXT;
  if (ext == 0)
    header_done (s);
  return TRUE;
}

/* A counted number of extended textual headers, when all there. */
static gboolean
read_ext (GstSegyStream * s)
{
  gsize avail = gst_adapter_available (s->adapter);
  gsize need = (gsize) s->l.bin.ext_headers * GST_SCI_SEGY_TEXT_HEADER_BYTES;

  if (avail < need) {
    if (s->eos)
      FAIL (GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "The SEG-Y stream ends inside its headers.", "the binary header "
          "says %d extended textual headers (bytes 3505-3506), which end at "
          "byte %" G_GUINT64_FORMAT ", but the stream ends at byte %"
          G_GUINT64_FORMAT, s->l.bin.ext_headers, s->offset + need,
          s->offset + avail);
    return FALSE;
  }
  take_header (s, need);
  header_done (s);
  return TRUE;
}

/* Extended textual headers up to the record holding ((SEG: EndText)). */
static gboolean
read_ext_variable (GstSegyStream * s)
{
  guint8 rec[GST_SCI_SEGY_TEXT_HEADER_BYTES];
  gsize avail = gst_adapter_available (s->adapter);

  if (avail < sizeof (rec)) {
    if (s->eos)
      FAIL (GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "The SEG-Y stream ends inside its headers.", "the binary header "
          "says a variable number of extended textual headers (-1 in bytes "
          "3505-3506), but the stream ends at byte %" G_GUINT64_FORMAT
          " before a 3200-byte record holds the ((SEG: EndText)) stanza "
          "that ends them", s->offset + avail);
    return FALSE;
  }
  if (s->ext_records == GST_SCI_SEGY_MAX_EXT_HEADERS) {
    FAIL (GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "Cannot read the SEG-Y stream.", "the binary header says a variable "
        "number of extended textual headers (-1 in bytes 3505-3506), but "
        "none of the %u records from byte 3600 to byte %" G_GUINT64_FORMAT
        " holds the ((SEG: EndText)) stanza that ends them",
        s->ext_records, s->offset);
    return TRUE;
  }
  gst_adapter_copy (s->adapter, rec, 0, sizeof (rec));
  take_header (s, sizeof (rec));
  s->ext_records++;
  if (gst_segy_record_ends_text (rec))
    header_done (s);
  return TRUE;
}

/* The error of a stream that ends inside trace `s->next + whole`. */
static void
truncated (GstSegyStream * s, guint64 whole, gsize tail)
{
  const GstSegyLayout *l = &s->l;
  guint64 t = s->next + whole;
  guint64 at = s->offset + whole * l->trace_bytes;

  FAIL (GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "The SEG-Y stream is truncated.", "the stream ends at byte %"
      G_GUINT64_FORMAT ", %" G_GSIZE_FORMAT " bytes into trace %"
      G_GUINT64_FORMAT " (which starts at byte %" G_GUINT64_FORMAT
      " and takes %" G_GUINT64_FORMAT " bytes: 240 header + %u samples x %u "
      "bytes of %s); the %" G_GUINT64_FORMAT " whole traces before it were "
      "output", at + tail, tail, t, at, l->trace_bytes, l->bin.samples,
      l->sample_bytes, gst_sci_segy_format_name (l->bin.format), t);
}

/* The first whole trace, or the end: the interval and the gathers' size
 * are decided, with segysrc's warnings. */
static gboolean
read_first (GstSegyStream * s)
{
  const GstSegyLayout *l = &s->l;
  gsize avail = gst_adapter_available (s->adapter);

  if (avail < l->trace_bytes && !s->eos)
    return FALSE;
  if (avail < l->trace_bytes && avail > 0) {
    truncated (s, 0, avail);
    return TRUE;
  }
  s->interval = l->bin.interval;
  if (!s->interval && avail) {
    guint8 th[GST_SCI_SEGY_TRACE_HEADER_BYTES];

    gst_adapter_copy (s->adapter, th, 0, sizeof (th));
    s->interval = gst_segy_layout_trace_interval (l, th);
  }
  if (!s->interval) {
    WARN (GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "The SEG-Y stream gives no sample interval.", "the sample interval "
        "is 0 in the binary header (bytes 3217-3218) and in the first trace "
        "header (bytes 117-118): the caps say sample-interval=1 "
        "(microsecond)");
    s->interval = 1;
  }
  s->fixed = gst_segy_layout_fixed_traces (l, s->gather_traces);
  if (!s->key_byte && s->fixed < s->gather_traces)
    WARN (GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "Gathers of the SEG-Y stream are cut.", "gather-traces=%u traces of "
        "%u samples are more than 2^28 values, the most a buffer of "
        "application/x-seismic holds: gathers of %u", s->gather_traces,
        l->bin.samples, s->fixed);
  if (!avail)
    WARN (GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "The SEG-Y stream holds no traces.", "the stream ends with its "
        "headers (%" G_GUINT64_FORMAT " bytes)", s->offset);
  s->phase = PHASE_TRACES;
  return TRUE;
}

/* Queues the gather of the adapter's first `n` traces. */
static void
emit (GstSegyStream * s, guint n)
{
  gsize len = (gsize) n * s->l.trace_bytes;
  const guint8 *raw = gst_adapter_map (s->adapter, len);
  GstBuffer *buf = raw ? gst_segy_layout_gather (&s->l, raw, n, s->next,
      s->file_header) : NULL;
  Item *it;

  if (raw)
    gst_adapter_unmap (s->adapter);
  if (!buf) {
    FAIL (GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "Not enough memory for a gather of the SEG-Y stream.", "cannot "
        "allocate a gather of %u traces (from trace %" G_GUINT64_FORMAT ")",
        n, s->next);
    return;
  }
  gst_adapter_flush (s->adapter, len);
  s->offset += len;
  s->next += n;
  s->run = 0;
  it = g_new0 (Item, 1);
  it->gather = buf;
  g_queue_push_tail (&s->ready, it);
}

/* The key of the adapter's trace `t`. */
static guint32
key_of (GstSegyStream * s, guint t)
{
  guint8 th[GST_SCI_SEGY_TRACE_HEADER_BYTES];

  gst_adapter_copy (s->adapter, th, (gsize) t * s->l.trace_bytes, sizeof (th));
  return gst_segy_layout_trace_key (&s->l, th, s->key_byte);
}

/* The traces: a gather when its end is known. */
static gboolean
read_traces (GstSegyStream * s)
{
  const GstSegyLayout *l = &s->l;
  gsize avail = gst_adapter_available (s->adapter);
  guint64 whole = avail / l->trace_bytes;

  if (!s->key_byte) {
    if (whole >= s->fixed) {
      emit (s, s->fixed);
      return TRUE;
    }
  } else {
    if (!s->run && whole) {
      s->run_key = key_of (s, 0);
      s->run = 1;
    }
    while (s->run && s->run < whole) {
      if (key_of (s, s->run) != s->run_key) {
        emit (s, s->run);
        return TRUE;
      }
      if (s->run == l->max_traces) {
        if (!s->split_warned) {
          WARN (GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
              "A gather of the SEG-Y stream is split: it is longer than a "
              "buffer of application/x-seismic may be.", "gather-key=%s: "
              "the run of traces with value %d from trace %" G_GUINT64_FORMAT
              " has more than %u traces (at most 16777216 traces and 2^28 "
              "values a gather): cut into gathers of %u",
              gst_segy_gather_key_name (s->key), (gint32) s->run_key,
              s->next, l->max_traces, l->max_traces);
          s->split_warned = TRUE;
        }
        emit (s, s->run);
        return TRUE;
      }
      s->run++;
    }
  }
  if (!s->eos)
    return FALSE;
  /* the end: what is left, then the end of a trace cut short */
  if (whole) {
    emit (s, (guint) whole);
    return TRUE;
  }
  if (avail)
    truncated (s, 0, avail);
  else
    s->phase = PHASE_OVER;
  return TRUE;
}

GstSegyStreamResult
gst_segy_stream_next (GstSegyStream * s, GstBuffer ** gather,
    GstSegyStreamMessage ** message)
{
  *gather = NULL;
  *message = NULL;
  for (;;) {
    Item *it = g_queue_pop_head (&s->ready);
    gboolean progress;

    if (it) {
      GstSegyStreamResult r = it->gather ? GST_SEGY_STREAM_GATHER :
          it->error ? GST_SEGY_STREAM_ERROR : GST_SEGY_STREAM_WARNING;

      *gather = it->gather;
      *message = it->message;
      g_free (it);
      return r;
    }
    switch (s->phase) {
      case PHASE_HEAD:
        progress = read_head (s);
        break;
      case PHASE_EXT:
        progress = read_ext (s);
        break;
      case PHASE_EXT_VARIABLE:
        progress = read_ext_variable (s);
        break;
      case PHASE_FIRST:
        progress = read_first (s);
        break;
      case PHASE_TRACES:
        progress = read_traces (s);
        break;
      default:
        return GST_SEGY_STREAM_DONE;
    }
    if (!progress && g_queue_is_empty (&s->ready))
      return GST_SEGY_STREAM_NEED_DATA;
  }
}
