/*
 * What segysrc and segyparse share about reading SEG-Y (gstsegyformat.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstsegyformat.h"

/* The 1-based byte of each key's 4-byte field in the trace header. */
static const guint key_bytes[] = { 0, 9, 21, 189, 193, 17, 37 };

static const gchar *const key_names[] = { "none", "ffid", "cdp", "inline",
  "crossline", "energy-source-point", "offset"
};

GType
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

guint
gst_segy_gather_key_byte (GstSegyGatherKey key)
{
  return (guint) key < G_N_ELEMENTS (key_bytes) ? key_bytes[key] : 0;
}

const gchar *
gst_segy_gather_key_name (GstSegyGatherKey key)
{
  return (guint) key < G_N_ELEMENTS (key_names) ? key_names[key] : "none";
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

gboolean
gst_segy_layout_init (GstSegyLayout * l, const guint8 * head,
    GstStreamError * code, gchar ** why)
{
  GstSciSegyBinaryHeader *h = &l->bin;

  memset (l, 0, sizeof (*l));
  *code = GST_STREAM_ERROR_FORMAT;
  if (!gst_sci_segy_binary_header_parse (head +
          GST_SCI_SEGY_TEXT_HEADER_BYTES, h, why)) {
    *code = GST_STREAM_ERROR_WRONG_TYPE;
    return FALSE;
  }
  l->sample_bytes = gst_sci_segy_format_bytes (h->format);
  if (!l->sample_bytes) {
    *why = g_strdup_printf ("sample format %u (%s) is not supported: the "
        "formats read are 1 (IBM float), 2 (int32), 3 (int16), 5 (IEEE "
        "float), 6 (IEEE double), 7 (int24), 8 (int8), 9 (int64), 10 "
        "(uint32), 11 (uint16), 12 (uint64), 15 (uint24) and 16 (uint8)",
        h->format, gst_sci_segy_format_name (h->format));
    return FALSE;
  }
  if (h->extra_trace_headers) {
    *why = g_strdup_printf ("the binary header says up to %" G_GUINT64_FORMAT
        " additional trace headers a trace (SEG-Y rev 2, bytes 3507-3510), "
        "which are not read", h->extra_trace_headers);
    return FALSE;
  }
  if (h->samples == 0) {
    *why = g_strdup ("the binary header says 0 samples a trace (bytes "
        "3221-3222)");
    return FALSE;
  }
  if (h->samples > 65535) {
    *why = g_strdup_printf ("the binary header says %u samples a trace; "
        "application/x-seismic carries at most 65535", h->samples);
    return FALSE;
  }
  if (h->ext_headers < -1) {
    *why = g_strdup_printf ("the binary header says %d extended textual "
        "headers (bytes 3505-3506)", h->ext_headers);
    return FALSE;
  }
  l->trace_bytes = GST_SCI_SEGY_TRACE_HEADER_BYTES +
      (guint64) h->samples * l->sample_bytes;
  l->max_traces = MIN (GST_SEGY_MAX_TRACES, GST_SEGY_MAX_VALUES / h->samples);
  return TRUE;
}

gboolean
gst_segy_record_ends_text (const guint8 * rec)
{
  static const guint8 ascii[] = "((SEG: EndText))";
  static const guint8 ebcdic[] = { 0x4d, 0x4d, 0xe2, 0xc5, 0xc7, 0x7a, 0x40,
    0xc5, 0x95, 0x84, 0xe3, 0x85, 0xa7, 0xa3, 0x5d, 0x5d
  };
  gsize i;

  for (i = 0; i + 16 <= GST_SCI_SEGY_TEXT_HEADER_BYTES; i++)
    if (rec[i] == 0x28 ? memcmp (rec + i, ascii, 16) == 0 :
        rec[i] == 0x4d && memcmp (rec + i, ebcdic, 16) == 0)
      return TRUE;
  return FALSE;
}

guint
gst_segy_layout_fixed_traces (const GstSegyLayout * l, guint gather_traces)
{
  return MIN (gather_traces, l->max_traces);
}

guint32
gst_segy_layout_trace_key (const GstSegyLayout * l,
    const guint8 * trace_header, guint byte)
{
  return read_uint (trace_header + byte - 1, 4, l->bin.little_endian);
}

guint
gst_segy_layout_trace_interval (const GstSegyLayout * l,
    const guint8 * trace_header)
{
  return read_uint (trace_header + 116, 2, l->bin.little_endian);
}

GstCaps *
gst_segy_layout_caps (const GstSegyLayout * l, guint traces, guint interval)
{
  return gst_caps_new_simple ("application/x-seismic",
      "traces", G_TYPE_INT, (gint) traces,
      "samples", G_TYPE_INT, (gint) l->bin.samples,
      "sample-interval", G_TYPE_INT, (gint) interval, NULL);
}

GstBuffer *
gst_segy_layout_gather (const GstSegyLayout * l, const guint8 * raw,
    guint n, guint64 first, GBytes * file_header)
{
  const GstSciSegyBinaryHeader *h = &l->bin;
  gsize values = (gsize) n * h->samples;
  guint8 *headers;
  GstBuffer *buf;
  GstMapInfo map;
  GBytes *th;
  guint t;

  headers = g_try_malloc ((gsize) n * GST_SCI_SEGY_TRACE_HEADER_BYTES);
  buf = headers ? gst_buffer_new_allocate (NULL, values * sizeof (gfloat),
      NULL) : NULL;
  if (!buf || !gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
    g_free (headers);
    if (buf)
      gst_buffer_unref (buf);
    return NULL;
  }
  for (t = 0; t < n; t++) {
    const guint8 *trace = raw + (gsize) t * l->trace_bytes;

    memcpy (headers + (gsize) t * GST_SCI_SEGY_TRACE_HEADER_BYTES, trace,
        GST_SCI_SEGY_TRACE_HEADER_BYTES);
    gst_sci_segy_samples_to_float (h->format, h->little_endian,
        trace + GST_SCI_SEGY_TRACE_HEADER_BYTES,
        (gfloat *) map.data + (gsize) t * h->samples, h->samples);
  }
  gst_buffer_unmap (buf, &map);
  th = g_bytes_new_take (headers, (gsize) n * GST_SCI_SEGY_TRACE_HEADER_BYTES);
  gst_buffer_add_sci_segy_meta (buf, file_header, th, first);
  g_bytes_unref (th);
  GST_BUFFER_OFFSET (buf) = first;
  GST_BUFFER_OFFSET_END (buf) = first + n;
  return buf;
}
