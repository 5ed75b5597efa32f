/**
 * SECTION:element-segyparse
 * @title: segyparse
 *
 * Parses a SEG-Y file arriving as a byte stream (`application/x-segy`, in
 * chunks of any size: `filesrc`, `udpsrc`, `souphttpsrc`, `decodebin`, a
 * recorder writing SEG-Y as it goes) into gathers of
 * `application/x-seismic`, exactly as `segysrc` reads the same file: the
 * same buffers (traces x samples float32 values in host order), caps,
 * #GstSciSegyMeta (file and trace headers as stored), offsets, gather
 * properties (`gather-traces`, `gather-key`) and warnings.  A gather goes
 * out as soon as its traces have arrived (with a key: when the next trace
 * of another value has, or at the end of the stream).
 *
 * A stream that is not SEG-Y (no SEG-Y binary header, fewer than 3600
 * bytes) or not SEG-Y this element reads is an error naming the byte or
 * field; a stream that ends inside its headers, or inside a trace, gives
 * its whole traces and then an error that says at which byte it ends and
 * in which trace.  The element does not seek; a flush starts it again
 * from the first byte of a new file.
 *
 * With the plugin's typefinder (`application/x-segy`, extensions `.sgy`
 * and `.segy`) `decodebin` plugs it by itself; inside a decodebin (or
 * parsebin) the gathers are exposed as they are: `application/x-seismic`
 * is a final type there, though not one of decodebin's raw types (the
 * element answers its bin's `autoplug-continue` for its own pad).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=f3.sgy ! segyparse ! segysink location=copy.sgy
 * gst-launch-1.0 filesrc location=shots.sgy ! decodebin ! seismicenc ! \
 *     filesink location=shots.seis
 * gst-launch-1.0 udpsrc port=5000 ! segyparse gather-key=ffid ! \
 *     seismicenc ! filesink location=live.seis
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstsegyparse.h"

GST_DEBUG_CATEGORY_STATIC (gst_segy_parse_debug);
#define GST_CAT_DEFAULT gst_segy_parse_debug

enum
{
  PROP_0,
  PROP_GATHER_TRACES,
  PROP_GATHER_KEY,
};

#define DEFAULT_GATHER_TRACES 96
#define DEFAULT_GATHER_KEY GST_SEGY_GATHER_KEY_NONE

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_SEGY_STREAM_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_SEGY_CAPS));

#define gst_segy_parse_parent_class parent_class
G_DEFINE_TYPE (GstSegyParse, gst_segy_parse, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (segyparse, "segyparse", GST_RANK_PRIMARY,
    GST_TYPE_SEGY_PARSE);

/* ---- typefinder ---- */

/* A printable character of EBCDIC (code page 037). */
static gboolean
ebcdic_text (guint8 c)
{
  return c == 0x40 || (c >= 0x4a && c <= 0x50) || (c >= 0x5a && c <= 0x61)
      || (c >= 0x6a && c <= 0x6f) || (c >= 0x79 && c <= 0x7f)
      || (c >= 0x81 && c <= 0x89) || (c >= 0x91 && c <= 0x99)
      || (c >= 0xa1 && c <= 0xa9) || (c >= 0xc0 && c <= 0xc9)
      || (c >= 0xd0 && c <= 0xd9) || c == 0xe0 || (c >= 0xe2 && c <= 0xe9)
      || (c >= 0xf0 && c <= 0xf9);
}

static gboolean
ascii_text (guint8 c)
{
  return (c >= 0x20 && c < 0x7f) || c == '\r' || c == '\n' || c == '\t';
}

typedef enum
{
  TEXT_NONE,
  TEXT_BLANK,                   /* mostly NUL bytes */
  TEXT_ASCII,
  TEXT_EBCDIC,
} TextKind;

/* What `len` bytes of textual header (whole 80-byte cards) are, and how
 * many cards begin with "C", as the standard's cards do. */
static TextKind
text_kind (const guint8 * d, gsize len, guint * c_cards)
{
  gsize i, nul = 0, ebc = 0, asc = 0;

  *c_cards = 0;
  for (i = 0; i < len; i++) {
    if (!d[i]) {
      nul++;
      continue;
    }
    ebc += ebcdic_text (d[i]);
    asc += ascii_text (d[i]);
  }
  for (i = 0; i + 80 <= len; i += 80)
    *c_cards += d[i] == 0xc3 || d[i] == 'C';
  if (nul * 2 > len)
    return TEXT_BLANK;
  /* 90 %: a few bytes of other code pages or of binary junk are common */
  if ((ebc + nul) * 10 >= len * 9)
    return TEXT_EBCDIC;
  if ((asc + nul) * 10 >= len * 9)
    return TEXT_ASCII;
  return TEXT_NONE;
}

/* A SEG-Y file: a textual header of 40 cards of EBCDIC (or ASCII) text, a
 * binary header whose format code reads as one in either byte order and
 * that counts samples, and, where the length or the first trace header
 * can be seen, traces of the size it says.  EBCDIC text alone already
 * excludes the formats whose finders match parts of SEG-Y data (MP3 frame
 * syncs in the samples). */
static void
segy_type_find (GstTypeFind * tf, gpointer unused)
{
  static const guint partial[] = { 3200, 2400, 2000 };
  const guint8 *d = gst_type_find_peek (tf, 0, GST_SCI_SEGY_FILE_HEADER_BYTES);
  const guint8 *th;
  GstSciSegyBinaryHeader h;
  TextKind kind;
  gchar *why = NULL;
  gboolean text_ok, size_ok = FALSE, trace_ok = FALSE;
  guint64 length, first, trace_bytes;
  guint cards, sb, i;

  if (!d) {
    /* a stream typefound from its first bytes (the typefind element in
     * push mode tries from 2 KiB on): the textual header alone */
    for (i = 0; i < G_N_ELEMENTS (partial) && !d; i++)
      d = gst_type_find_peek (tf, 0, partial[i]);
    if (!d)
      return;
    kind = text_kind (d, partial[i - 1], &cards);
    if (kind == TEXT_EBCDIC && cards * 4 >= partial[i - 1] / 80 * 3)
      gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_LIKELY,
          GST_SEGY_STREAM_CAPS);
    else if (kind == TEXT_ASCII && cards * 4 >= partial[i - 1] / 80 * 3)
      gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_POSSIBLE,
          GST_SEGY_STREAM_CAPS);
    return;
  }
  /* FITS headers are 80-byte ASCII cards too; its own finder takes it */
  if (memcmp (d, "SIMPLE  =", 9) == 0)
    return;
  if (!gst_sci_segy_binary_header_parse (d + GST_SCI_SEGY_TEXT_HEADER_BYTES,
          &h, &why)) {
    g_free (why);
    return;
  }
  if (h.samples == 0 || h.samples > 65535 || h.ext_headers < -1)
    return;
  kind = text_kind (d, GST_SCI_SEGY_TEXT_HEADER_BYTES, &cards);
  text_ok = kind == TEXT_EBCDIC || (kind == TEXT_ASCII && cards >= 20);

  /* the traces: format 4 (refused by segyparse) takes 4 bytes a sample */
  sb = gst_sci_segy_format_bytes (h.format);
  trace_bytes = GST_SCI_SEGY_TRACE_HEADER_BYTES + (guint64) h.samples *
      (sb ? sb : 4);
  first = GST_SCI_SEGY_FILE_HEADER_BYTES + (guint64) MAX (h.ext_headers, 0) *
      GST_SCI_SEGY_TEXT_HEADER_BYTES;
  /* a variable number of extended headers: up to the ((SEG: EndText))
   * stanza, within the first few records */
  for (i = 0; h.ext_headers < 0 && i < 16; i++) {
    const guint8 *rec = gst_type_find_peek (tf, first,
        GST_SCI_SEGY_TEXT_HEADER_BYTES);

    if (!rec)
      break;
    first += GST_SCI_SEGY_TEXT_HEADER_BYTES;
    if (gst_segy_record_ends_text (rec))
      break;
  }
  length = gst_type_find_get_length (tf);
  if (length >= first + trace_bytes)
    size_ok = (length - first) % trace_bytes == 0;
  th = gst_type_find_peek (tf, first, GST_SCI_SEGY_TRACE_HEADER_BYTES);
  if (th)
    trace_ok = (guint) (h.little_endian ? th[114] | th[115] << 8 :
        th[114] << 8 | th[115]) == h.samples;

  if (text_ok && (size_ok || trace_ok))
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_MAXIMUM,
        GST_SEGY_STREAM_CAPS);
  else if (text_ok)
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_NEARLY_CERTAIN,
        GST_SEGY_STREAM_CAPS);
  else if (size_ok && trace_ok)
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_LIKELY,
        GST_SEGY_STREAM_CAPS);
}

gboolean
gst_segy_type_find_register (GstPlugin * plugin)
{
  GstCaps *caps = gst_caps_new_empty_simple (GST_SEGY_STREAM_CAPS);
  gboolean ret = gst_type_find_register (plugin, GST_SEGY_STREAM_CAPS,
      GST_RANK_PRIMARY, segy_type_find, "sgy,segy", caps, NULL, NULL);

  gst_caps_unref (caps);
  return ret;
}

/* ---- streaming ---- */

static void
reset (GstSegyParse * self)
{
  guint gather_traces;
  GstSegyGatherKey key;

  GST_OBJECT_LOCK (self);
  gather_traces = self->gather_traces;
  key = self->gather_key;
  GST_OBJECT_UNLOCK (self);
  gst_segy_stream_free (self->stream);
  self->stream = gst_segy_stream_new (gather_traces, key);
  self->failed = FALSE;
  self->need_segment = TRUE;
  self->caps_traces = 0;
  self->discont = TRUE;
}

/* Posts a message of the stream, its debug text led by upstream's URI. */
static void
post (GstSegyParse * self, GstMessageType type, GstSegyStreamMessage * m)
{
  gchar *debug = self->uri ? g_strdup_printf ("%s: %s", self->uri, m->debug) :
      g_strdup (m->debug);

  gst_element_message_full (GST_ELEMENT (self), type, m->domain, m->code,
      g_strdup (m->text), debug, __FILE__, GST_FUNCTION, __LINE__);
}

/* Caps of `traces` traces when they change, and the segment before the
 * first gather. */
static gboolean
push_caps (GstSegyParse * self, guint traces)
{
  GstCaps *caps;
  gboolean ok;

  if ((gint) traces != self->caps_traces) {
    caps = gst_segy_stream_caps (self->stream, traces);
    g_assert (caps != NULL);
    GST_DEBUG_OBJECT (self, "caps %" GST_PTR_FORMAT, caps);
    ok = gst_pad_push_event (self->srcpad, gst_event_new_caps (caps));
    gst_caps_unref (caps);
    if (!ok)
      return FALSE;
    self->caps_traces = traces;
  }
  if (self->need_segment) {
    GstSegment seg;

    /* as segysrc's: time, the gathers without timestamps */
    gst_segment_init (&seg, GST_FORMAT_TIME);
    gst_pad_push_event (self->srcpad, gst_event_new_segment (&seg));
    self->need_segment = FALSE;
  }
  return TRUE;
}

/* Pushes what the stream has ready. */
static GstFlowReturn
drain (GstSegyParse * self)
{
  for (;;) {
    GstBuffer *gather;
    GstSegyStreamMessage *m;
    GstFlowReturn ret;
    guint traces;

    switch (gst_segy_stream_next (self->stream, &gather, &m)) {
      case GST_SEGY_STREAM_GATHER:
        traces = GST_BUFFER_OFFSET_END (gather) - GST_BUFFER_OFFSET (gather);
        if (!push_caps (self, traces)) {
          gst_buffer_unref (gather);
          GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
              ("downstream refused the caps of a gather of %u traces (from "
                  "trace %" G_GUINT64_FORMAT ")", traces,
                  GST_BUFFER_OFFSET (gather)));
          self->failed = TRUE;
          return GST_FLOW_NOT_NEGOTIATED;
        }
        if (self->discont) {
          GST_BUFFER_FLAG_SET (gather, GST_BUFFER_FLAG_DISCONT);
          self->discont = FALSE;
        }
        GST_LOG_OBJECT (self, "gather of %u traces from trace %"
            G_GUINT64_FORMAT, traces, GST_BUFFER_OFFSET (gather));
        ret = gst_pad_push (self->srcpad, gather);
        if (ret != GST_FLOW_OK)
          return ret;
        break;
      case GST_SEGY_STREAM_WARNING:
        post (self, GST_MESSAGE_WARNING, m);
        gst_segy_stream_message_free (m);
        break;
      case GST_SEGY_STREAM_ERROR:
        post (self, GST_MESSAGE_ERROR, m);
        gst_segy_stream_message_free (m);
        self->failed = TRUE;
        return GST_FLOW_ERROR;
      case GST_SEGY_STREAM_NEED_DATA:
      case GST_SEGY_STREAM_DONE:
        return GST_FLOW_OK;
    }
  }
}

static GstFlowReturn
gst_segy_parse_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstSegyParse *self = GST_SEGY_PARSE (parent);

  if (self->failed) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  if (!self->uri_asked) {
    GstQuery *q = gst_query_new_uri ();

    if (gst_pad_peer_query (self->sinkpad, q))
      gst_query_parse_uri (q, &self->uri);
    gst_query_unref (q);
    self->uri_asked = TRUE;
  }
  gst_segy_stream_push (self->stream, buf);
  return drain (self);
}

static gboolean
gst_segy_parse_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstSegyParse *self = GST_SEGY_PARSE (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:
    case GST_EVENT_SEGMENT:
      /* the gathers' own caps and segment go out with the first one */
      gst_event_unref (event);
      return TRUE;
    case GST_EVENT_FLUSH_STOP:
      reset (self);
      break;
    case GST_EVENT_EOS:
      if (!self->failed) {
        gst_segy_stream_finish (self->stream);
        drain (self);
        /* headers only: segysrc's caps of one trace, then the end */
        if (!self->failed && self->caps_traces == 0)
          push_caps (self, 1);
      }
      /* after an error too: what was pushed is complete downstream */
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
gst_segy_parse_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_SEEKING) {
    GstFormat fmt;

    gst_query_parse_seeking (query, &fmt, NULL, NULL, NULL);
    gst_query_set_seeking (query, fmt, FALSE, 0, -1);
    return TRUE;
  }
  return gst_pad_query_default (pad, parent, query);
}

static gboolean
gst_segy_parse_src_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK) {
    GST_DEBUG_OBJECT (parent, "seeking is not supported");
    gst_event_unref (event);
    return FALSE;
  }
  return gst_pad_event_default (pad, parent, event);
}

/* ---- inside decodebin ---- */

/* decodebin exposes a pad only when its caps are one of its raw types
 * (or its `caps`) or when autoplug-continue says so; otherwise it looks
 * for a decoder of application/x-seismic, finds none and fails.  The
 * gathers are what the user wants out of a SEG-Y file, so for this
 * element's own pad the answer is: expose. */
static gboolean
autoplug_continue (GstElement * bin, GstPad * pad, GstCaps * caps,
    GstSegyParse * self)
{
  GstPad *target;
  gboolean ours = FALSE;

  if (!GST_IS_GHOST_PAD (pad))
    return TRUE;
  target = gst_ghost_pad_get_target (GST_GHOST_PAD (pad));
  if (target) {
    ours = GST_OBJECT_PARENT (target) == GST_OBJECT (self);
    gst_object_unref (target);
  }
  return !ours;
}

static void
hook_autoplug (GstSegyParse * self)
{
  GstObject *bin = gst_object_get_parent (GST_OBJECT (self));

  if (bin && g_signal_lookup ("autoplug-continue", G_OBJECT_TYPE (bin))) {
    self->autoplug_id = g_signal_connect_object (bin, "autoplug-continue",
        G_CALLBACK (autoplug_continue), self, 0);
    g_weak_ref_set (&self->autoplug_bin, bin);
    GST_DEBUG_OBJECT (self, "answering autoplug-continue of %"
        GST_PTR_FORMAT, bin);
  }
  if (bin)
    gst_object_unref (bin);
}

static void
unhook_autoplug (GstSegyParse * self)
{
  GObject *bin = g_weak_ref_get (&self->autoplug_bin);

  if (bin && self->autoplug_id)
    g_signal_handler_disconnect (bin, self->autoplug_id);
  self->autoplug_id = 0;
  g_weak_ref_set (&self->autoplug_bin, NULL);
  if (bin)
    g_object_unref (bin);
}

static GstStateChangeReturn
gst_segy_parse_change_state (GstElement * element, GstStateChange transition)
{
  GstSegyParse *self = GST_SEGY_PARSE (element);
  GstStateChangeReturn ret;

  switch (transition) {
    case GST_STATE_CHANGE_NULL_TO_READY:
      hook_autoplug (self);
      break;
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      reset (self);
      self->uri_asked = FALSE;
      g_clear_pointer (&self->uri, g_free);
      break;
    default:
      break;
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  switch (transition) {
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      g_clear_pointer (&self->stream, gst_segy_stream_free);
      g_clear_pointer (&self->uri, g_free);
      break;
    case GST_STATE_CHANGE_READY_TO_NULL:
      unhook_autoplug (self);
      break;
    default:
      break;
  }
  return ret;
}

/* ---- properties ---- */

static void
gst_segy_parse_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSegyParse *self = GST_SEGY_PARSE (object);
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
gst_segy_parse_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstSegyParse *self = GST_SEGY_PARSE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_GATHER_TRACES:
      g_value_set_uint (value, self->gather_traces);
      break;
    case PROP_GATHER_KEY:
      g_value_set_enum (value, self->gather_key);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_segy_parse_finalize (GObject * object)
{
  GstSegyParse *self = GST_SEGY_PARSE (object);

  gst_segy_stream_free (self->stream);
  g_free (self->uri);
  g_weak_ref_clear (&self->autoplug_bin);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_segy_parse_class_init (GstSegyParseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_segy_parse_set_property;
  gobject_class->get_property = gst_segy_parse_get_property;
  gobject_class->finalize = gst_segy_parse_finalize;
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_segy_parse_change_state);

  g_object_class_install_property (gobject_class, PROP_GATHER_TRACES,
      g_param_spec_uint ("gather-traces", "Gather traces",
          "Traces a gather when gather-key is none (the last gather of the "
          "stream may be shorter); ignored with a gather key.  More traces "
          "a gather: fewer, larger buffers, more latency and memory (each "
          "gather waits for all its traces)", 1, GST_SEGY_MAX_TRACES,
          DEFAULT_GATHER_TRACES, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_GATHER_KEY,
      g_param_spec_enum ("gather-key", "Gather key",
          "Trace-header field that makes the gathers: each run of "
          "consecutive traces with the same value is one gather, whatever "
          "its length (it goes out when the next trace of another value "
          "arrives); none: gather-traces traces a gather",
          GST_TYPE_SEGY_GATHER_KEY, DEFAULT_GATHER_KEY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "SEG-Y parser", "Codec/Parser/Seismic",
      "Parses a SEG-Y byte stream into gathers of application/x-seismic "
      "float traces, with its headers kept as stored (GstSciSegyMeta): "
      "what segysrc reads from a file", SCI_ELEMENT_AUTHOR);

  gst_type_mark_as_plugin_api (GST_TYPE_SEGY_GATHER_KEY, 0);
  GST_DEBUG_CATEGORY_INIT (gst_segy_parse_debug, "segyparse", 0,
      "SEG-Y parser");
}

static void
gst_segy_parse_init (GstSegyParse * self)
{
  self->gather_traces = DEFAULT_GATHER_TRACES;
  self->gather_key = DEFAULT_GATHER_KEY;
  g_weak_ref_init (&self->autoplug_bin, NULL);

  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_segy_parse_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_segy_parse_sink_event));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_use_fixed_caps (self->srcpad);
  gst_pad_set_query_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_segy_parse_src_query));
  gst_pad_set_event_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_segy_parse_src_event));
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}
