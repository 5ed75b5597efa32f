/*
 * What segysrc and segyparse share about reading SEG-Y: the checks of a
 * file's textual and binary headers and the layout they give, the end of a
 * variable number of extended textual headers, the gather keys, and the
 * making of a gather's buffer (samples as floats, headers in a
 * GstSciSegyMeta) from its traces as stored.  Both elements call these, so
 * a file read from disk and the same bytes parsed from a stream give the
 * same gathers.
 */
#ifndef __GST_SEGY_FORMAT_H__
#define __GST_SEGY_FORMAT_H__

#include <gst/gst.h>

#include "gst/gstscisegymeta.h"

G_BEGIN_DECLS
/* application/x-seismic in system memory (docs/media-types.md): the pad
 * templates of segysrc, segyparse and segysink. */
#define GST_SEGY_CAPS "application/x-seismic, " \
    "traces = (int) [ 1, 16777216 ], samples = (int) [ 1, 65535 ], " \
    "sample-interval = (int) [ 1, 2147483647 ]"
/* The largest gather: traces, and traces x samples (docs/media-types.md). */
#define GST_SEGY_MAX_TRACES 16777216u
#define GST_SEGY_MAX_VALUES (1u << 28)
/* A SEG-Y file as a byte stream: the typefinder's type, segyparse's
 * input (docs/media-types.md). */
#define GST_SEGY_STREAM_CAPS "application/x-segy"
/* The trace-header fields a gather may be keyed on. */
    typedef enum
{
  GST_SEGY_GATHER_KEY_NONE,
  GST_SEGY_GATHER_KEY_FFID,     /* field record number, bytes 9-12 */
  GST_SEGY_GATHER_KEY_CDP,      /* ensemble (CDP) number, bytes 21-24 */
  GST_SEGY_GATHER_KEY_INLINE,   /* bytes 189-192 */
  GST_SEGY_GATHER_KEY_CROSSLINE,        /* bytes 193-196 */
  GST_SEGY_GATHER_KEY_ENERGY_SOURCE_POINT,      /* bytes 17-20 */
  GST_SEGY_GATHER_KEY_OFFSET,   /* source-receiver offset, bytes 37-40 */
} GstSegyGatherKey;

#define GST_TYPE_SEGY_GATHER_KEY (gst_segy_gather_key_get_type ())
GType gst_segy_gather_key_get_type (void);

/* The 1-based byte of a key's 4-byte trace-header field (0: none), and
 * its nick ("ffid", ...). */
guint gst_segy_gather_key_byte (GstSegyGatherKey key);
const gchar *gst_segy_gather_key_name (GstSegyGatherKey key);

/* What the 3600 bytes of textual and binary header say about the traces. */
typedef struct
{
  GstSciSegyBinaryHeader bin;
  guint sample_bytes;
  guint64 trace_bytes;          /* 240 + samples x sample_bytes */
  guint max_traces;             /* the largest gather the caps allow */
} GstSegyLayout;

/* Reads the textual and binary headers (`head`, 3600 bytes as stored).
 * FALSE when the traces cannot be read, with why in `*why` (g_free) and
 * `*code` GST_STREAM_ERROR_WRONG_TYPE (no SEG-Y binary header) or
 * GST_STREAM_ERROR_FORMAT (SEG-Y this code does not read: format 4, rev 2
 * additional trace headers, 0 or more than 65535 samples, fewer than -1
 * extended textual headers). */
gboolean gst_segy_layout_init (GstSegyLayout * l, const guint8 * head,
    GstStreamError * code, gchar ** why);

/* Whether a 3200-byte extended textual header holds the ((SEG: EndText))
 * stanza (ASCII or EBCDIC) that ends a variable number of them. */
gboolean gst_segy_record_ends_text (const guint8 * rec);

/* Traces a gather without a key: `gather_traces`, lowered to what a buffer
 * may hold. */
guint gst_segy_layout_fixed_traces (const GstSegyLayout * l,
    guint gather_traces);

/* The 4-byte field at 1-based byte `byte` of a trace header, and the
 * trace's sample interval (bytes 117-118), in the file's byte order. */
guint32 gst_segy_layout_trace_key (const GstSegyLayout * l,
    const guint8 * trace_header, guint byte);
guint gst_segy_layout_trace_interval (const GstSegyLayout * l,
    const guint8 * trace_header);

/* The caps of a gather of `traces` traces. */
GstCaps *gst_segy_layout_caps (const GstSegyLayout * l, guint traces,
    guint interval);

/* The buffer of a gather of `n` traces (`raw`: n x trace_bytes bytes as
 * stored), the first being trace `first` of the file: floats in host
 * order, a GstSciSegyMeta with `file_header` and the traces' headers,
 * offset and offset-end the traces' indices.  NULL when memory runs out. */
GstBuffer *gst_segy_layout_gather (const GstSegyLayout * l,
    const guint8 * raw, guint n, guint64 first, GBytes * file_header);

G_END_DECLS
#endif
