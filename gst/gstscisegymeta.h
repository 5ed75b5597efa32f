/*
 * GstSciSegyMeta: the SEG-Y headers of a gather, carried on the gather's
 * buffer (application/x-seismic) so that they survive segysrc ! ... !
 * segysink, and seismicenc / seismicdec through their frames' metadata
 * section.  docs/media-types.md describes it.
 *
 * `file_header` holds the file's textual header (3200 bytes, EBCDIC or
 * ASCII), binary header (400 bytes) and extended textual headers (3200
 * bytes each), as stored in the file (big- or little-endian).
 * `trace_headers` holds the 240-byte trace headers of the gather's traces,
 * as stored, one after another.  `first_trace` is the index, in its file,
 * of the gather's first trace.
 *
 * The file also offers what segysrc, segysink and the tests share about the
 * SEG-Y layout: the binary header's fields (with the byte order detected)
 * and the conversion of samples of every SEG-Y format to and from float.
 */
#ifndef __GST_SCI_SEGY_META_H__
#define __GST_SCI_SEGY_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS
#define GST_SCI_SEGY_TEXT_HEADER_BYTES 3200
#define GST_SCI_SEGY_BINARY_HEADER_BYTES 400
/* textual + binary header: where the extended textual headers begin */
#define GST_SCI_SEGY_FILE_HEADER_BYTES 3600
#define GST_SCI_SEGY_TRACE_HEADER_BYTES 240
/* The most extended textual headers a binary header can count (bytes
 * 3505-3506 are a signed 16-bit count); also the most records of a
 * variable number (-1) that the meta's records may carry. */
#define GST_SCI_SEGY_MAX_EXT_HEADERS 32767
#define GST_SCI_SEGY_META_API_TYPE (gst_sci_segy_meta_api_get_type ())
#define GST_SCI_SEGY_META_INFO (gst_sci_segy_meta_get_info ())
typedef struct _GstSciSegyMeta GstSciSegyMeta;

struct _GstSciSegyMeta
{
  GstMeta meta;

  GBytes *file_header;          /* 3600 + 3200 x extended headers bytes */
  GBytes *trace_headers;        /* 240 x traces bytes */
  guint64 first_trace;          /* index in the file of the first trace */
};

GType gst_sci_segy_meta_api_get_type (void);
const GstMetaInfo *gst_sci_segy_meta_get_info (void);

/* Adds a meta holding references to `file_header` and `trace_headers`
 * (neither may be NULL; their sizes are not checked here: readers of the
 * meta do). */
GstSciSegyMeta *gst_buffer_add_sci_segy_meta (GstBuffer * buffer,
    GBytes * file_header, GBytes * trace_headers, guint64 first_trace);

#define gst_buffer_get_sci_segy_meta(b) \
  ((GstSciSegyMeta *) gst_buffer_get_meta ((b), GST_SCI_SEGY_META_API_TYPE))

/* Serialisation as records (4-character tag, 32-bit little-endian payload
 * length, payload: gst_sci_meta_append_record of gstscifitsmeta.h) for
 * containers that carry opaque metadata bytes (the seismic frame's
 * metadata section): "SYFZ" the file header and "SYTZ" the trace headers,
 * each one zstd frame (with its content size), and "SYFT" first_trace as
 * a 64-bit little-endian integer.  NULL if zstd fails. */
GBytes *gst_sci_segy_meta_serialize (const GstSciSegyMeta * meta);

/* Reads records written by gst_sci_segy_meta_serialize (unknown tags are
 * skipped) and adds the meta to `buffer` when they hold one.  `traces` is
 * the number of traces of the gather the records come with: what they may
 * decompress to is bounded by what such a gather's headers can take, so a
 * few bytes of crafted records cannot inflate to much more (the file
 * header: 3600 bytes and at most GST_SCI_SEGY_MAX_EXT_HEADERS extended
 * textual headers, exactly as many as its binary header counts where it
 * reads as one; the trace headers: at most 240 x `traces` bytes).  Sizes
 * are checked against the frames' announced content sizes before anything
 * is allocated.  TRUE when the bytes are well-formed records (*added says
 * whether a meta was added); FALSE, adding nothing, when they are not: a
 * record running past the end, a SEG-Y tag twice, SYFZ / SYTZ / SYFT not
 * all three present, a SYFT payload other than 8 bytes, a payload that is
 * not exactly one zstd frame with its content size or that does not
 * decompress to that size, a file header that is not 3600 + 3200 k bytes
 * (k within the bound above), trace headers that are not a multiple of 240
 * bytes or more than `traces` of them. */
gboolean gst_buffer_add_sci_segy_meta_from_records (GstBuffer * buffer,
    const guint8 * data, gsize len, guint64 traces, gboolean * added);

/* ---- the SEG-Y layout (SEG-Y rev 1 and rev 2.0) ---- */

/* What a binary header (the 400 bytes after the textual header) says. */
typedef struct
{
  gboolean little_endian;       /* the file's byte order */
  guint format;                 /* sample format code (bytes 3225-3226) */
  guint samples;                /* per trace: bytes 3221-3222 (unsigned), or
                                 * rev 2's extended count (3269-3272) */
  guint interval;               /* microseconds: bytes 3217-3218, or rev 2's
                                 * extended interval (3273-3280); 0: none */
  gint ext_headers;             /* extended textual headers (3505-3506);
                                 * -1: a variable number ending with an
                                 * ((SEG: EndText)) stanza */
  guint revision;               /* major revision (byte 3501) */
  gboolean fixed_length;        /* trace length flag (3503-3504) */
  guint64 extra_trace_headers;  /* rev 2: additional trace headers per trace
                                 * (3507-3510); 0 before rev 2 */
} GstSciSegyBinaryHeader;

/* Reads the binary header `bin` (400 bytes, as stored).  The byte order is
 * the one in which the format code (bytes 3225-3226) is a SEG-Y format
 * code: no code is one in both orders.  FALSE, with why in `*why`
 * (g_free), when neither order gives a format code (not a SEG-Y binary
 * header). */
gboolean gst_sci_segy_binary_header_parse (const guint8 * bin,
    GstSciSegyBinaryHeader * h, gchar ** why);

/* Bytes a sample of SEG-Y format `format` takes, or 0 for a format that
 * these functions do not convert (4, the obsolete fixed point with gain,
 * and codes that are no format).  Converted: 1 (IBM float), 2 (int32),
 * 3 (int16), 5 (IEEE float), 6 (IEEE double), 7 (int24), 8 (int8),
 * 9 (int64), 10 (uint32), 11 (uint16), 12 (uint64), 15 (uint24),
 * 16 (uint8). */
guint gst_sci_segy_format_bytes (guint format);

/* A name for a format code ("IBM float", "int16", ...; "unknown"). */
const gchar *gst_sci_segy_format_name (guint format);

/* `n` samples of format `format` as stored (byte order of the file) to
 * floats in host order: IBM floats exactly where float holds them (its
 * range is smaller: beyond it +-infinity, below it the nearest subnormal
 * or zero), integers of up to 24 bits exactly, wider integers and doubles
 * rounded to nearest.  `format` must be one gst_sci_segy_format_bytes
 * knows. */
void gst_sci_segy_samples_to_float (guint format, gboolean little_endian,
    const guint8 * src, gfloat * dst, gsize n);

/* The reverse: floats to `n` samples of the format, in the byte order
 * given.  Integer formats: rounded to nearest (ties to even), clamped to
 * the type's range, NaN written as 0.  IBM float: rounded to nearest (ties
 * to even), infinities clamped to the largest IBM magnitude, NaN written
 * as 0.  IEEE float: the bits unchanged.  `*nan` and `*clamped` (may be
 * NULL) are increased by the NaNs and the out-of-range values met. */
void gst_sci_segy_samples_from_float (guint format, gboolean little_endian,
    const gfloat * src, guint8 * dst, gsize n, guint64 * nan,
    guint64 * clamped);

/* One IBM single-precision float (its 32 bits as an integer) to float and
 * back, as above. */
gfloat gst_sci_segy_ibm_to_float (guint32 ibm);
guint32 gst_sci_segy_ibm_from_float (gfloat v);

G_END_DECLS
#endif
