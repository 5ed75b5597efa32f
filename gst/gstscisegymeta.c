/*
 * GstSciSegyMeta: SEG-Y headers on a gather (gstscisegymeta.h), and what
 * segysrc and segysink share about the SEG-Y layout.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <zstd.h>

#include "gstscifitsmeta.h"
#include "gstscisegymeta.h"

#define API_NAME "GstSciSegyMetaAPI"
#define IMPL_NAME "GstSciSegyMeta"

/* zstd level of the records.  Measured on f3.sgy's trace headers (zstd
 * 1.5.4, one core): 96 headers (23040 bytes) take 0.05 ms and 2136 bytes at
 * level 3, 2.2 ms and 1508 bytes at 15, 9.6 ms and 1605 bytes at 19; 414
 * headers 0.1 ms at 3, 60 ms at 19; and levels 15 to 19 slow down further
 * on very repetitive headers (13 ms for shot-gather.sgy's 26 at 19, 0.01
 * ms at 3).  The headers are a small part of a compressed gather of real
 * length, the time is spent on every gather: level 3. */
#define RECORD_ZSTD_LEVEL 3

/* `bytes` bytes at `p` (of any alignment) as an integer of the byte order
 * given, and back. */
static inline guint64
load (const guint8 * p, guint bytes, gboolean le)
{
  guint64 v = 0;
  guint i;

  if (le)
    for (i = bytes; i > 0; i--)
      v = (v << 8) | p[i - 1];
  else
    for (i = 0; i < bytes; i++)
      v = (v << 8) | p[i];
  return v;
}

static inline void
store (guint8 * p, guint64 v, guint bytes, gboolean le)
{
  guint i;

  if (le)
    for (i = 0; i < bytes; i++, v >>= 8)
      p[i] = v & 0xff;
  else
    for (i = bytes; i > 0; i--, v >>= 8)
      p[i - 1] = v & 0xff;
}

/* The API and implementation are looked up by name before registering:
 * the plugin and a program linking this file (the tests) may both carry a
 * copy of this code in one process. */
GType
gst_sci_segy_meta_api_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    /* no tags: the headers are tied neither to the memory nor to the
     * sample values, so every element that copies metas keeps them */
    static const gchar *tags[] = { NULL };
    GType t = g_type_from_name (API_NAME);

    if (!t)
      t = gst_meta_api_type_register (API_NAME, tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
segy_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstSciSegyMeta *m = (GstSciSegyMeta *) meta;

  m->file_header = NULL;
  m->trace_headers = NULL;
  m->first_trace = 0;
  return TRUE;
}

static void
segy_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstSciSegyMeta *m = (GstSciSegyMeta *) meta;

  g_clear_pointer (&m->file_header, g_bytes_unref);
  g_clear_pointer (&m->trace_headers, g_bytes_unref);
}

/* Every transform keeps the headers as they are (references): they
 * describe where the traces came from. */
static gboolean
segy_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GstSciSegyMeta *m = (GstSciSegyMeta *) meta;

  if (gst_buffer_get_sci_segy_meta (dest))
    return TRUE;
  return gst_buffer_add_sci_segy_meta (dest, m->file_header,
      m->trace_headers, m->first_trace) != NULL;
}

const GstMetaInfo *
gst_sci_segy_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter (&info)) {
    const GstMetaInfo *i = gst_meta_get_info (IMPL_NAME);

    if (!i)
      i = gst_meta_register (GST_SCI_SEGY_META_API_TYPE, IMPL_NAME,
          sizeof (GstSciSegyMeta), segy_meta_init, segy_meta_free,
          segy_meta_transform);
    g_once_init_leave (&info, i);
  }
  return info;
}

GstSciSegyMeta *
gst_buffer_add_sci_segy_meta (GstBuffer * buffer, GBytes * file_header,
    GBytes * trace_headers, guint64 first_trace)
{
  GstSciSegyMeta *m;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (file_header != NULL, NULL);
  g_return_val_if_fail (trace_headers != NULL, NULL);
  m = (GstSciSegyMeta *) gst_buffer_add_meta (buffer, GST_SCI_SEGY_META_INFO,
      NULL);
  if (!m)
    return NULL;
  m->file_header = g_bytes_ref (file_header);
  m->trace_headers = g_bytes_ref (trace_headers);
  m->first_trace = first_trace;
  return m;
}

/* ---- records ---- */

/* Appends `bytes` zstd-compressed as one record; FALSE if zstd fails. */
static gboolean
append_compressed (GByteArray * a, const gchar * tag, GBytes * bytes)
{
  gsize len = 0;
  gconstpointer data = bytes ? g_bytes_get_data (bytes, &len) : NULL;
  gsize cap = ZSTD_compressBound (len);
  guint8 *z = g_malloc (cap);
  gsize n = ZSTD_compress (z, cap, data ? data : "", len, RECORD_ZSTD_LEVEL);

  if (ZSTD_isError (n) || n > G_MAXUINT32) {
    g_free (z);
    return FALSE;
  }
  gst_sci_meta_append_record (a, tag, z, n);
  g_free (z);
  return TRUE;
}

GBytes *
gst_sci_segy_meta_serialize (const GstSciSegyMeta * meta)
{
  GByteArray *a;
  guint8 first[8];

  g_return_val_if_fail (meta != NULL, NULL);
  a = g_byte_array_new ();
  if (!append_compressed (a, "SYFZ", meta->file_header)
      || !append_compressed (a, "SYTZ", meta->trace_headers)) {
    g_byte_array_unref (a);
    return NULL;
  }
  store (first, meta->first_trace, 8, TRUE);
  gst_sci_meta_append_record (a, "SYFT", first, 8);
  return g_byte_array_free_to_bytes (a);
}

/* The content size announced by a payload that is exactly one zstd frame,
 * or -1 when it is not such a frame or announces no size. */
static gint64
frame_content_size (const guint8 * z, gsize len)
{
  unsigned long long size = ZSTD_getFrameContentSize (z, len);
  gsize frame;

  if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR
      || size > G_MAXINT64)
    return -1;
  frame = ZSTD_findFrameCompressedSize (z, len);
  if (ZSTD_isError (frame) || frame != len)
    return -1;
  return (gint64) size;
}

/* The payload decompressed to the `size` bytes it announced (checked by
 * the caller against the bounds), or NULL when it decompresses to
 * anything else. */
static GBytes *
decompress (const guint8 * z, gsize len, gsize size)
{
  guint8 *out;
  gsize n;

  /* one spare byte: a frame that decompresses to more than it announced
   * fills it and is refused */
  out = g_try_malloc (size + 1);
  if (!out)
    return NULL;
  n = ZSTD_decompress (out, size + 1, z, len);
  if (ZSTD_isError (n) || n != size) {
    g_free (out);
    return NULL;
  }
  return g_bytes_new_take (out, size);
}

/* Whether a decompressed file header holds as many extended textual
 * headers as its binary header counts, where that reads as one and counts
 * a fixed number. */
static gboolean
ext_headers_agree (GBytes * file)
{
  gsize len;
  const guint8 *p = g_bytes_get_data (file, &len);
  GstSciSegyBinaryHeader h;
  gchar *why = NULL;

  if (!gst_sci_segy_binary_header_parse (p + GST_SCI_SEGY_TEXT_HEADER_BYTES,
          &h, &why)) {
    /* not a binary header segysink could write from: it says so then */
    g_free (why);
    return TRUE;
  }
  return h.ext_headers < 0 || (gsize) h.ext_headers ==
      (len - GST_SCI_SEGY_FILE_HEADER_BYTES) / GST_SCI_SEGY_TEXT_HEADER_BYTES;
}

gboolean
gst_buffer_add_sci_segy_meta_from_records (GstBuffer * buffer,
    const guint8 * data, gsize len, guint64 traces, gboolean * added)
{
  const guint8 *fz = NULL, *tz = NULL, *ft = NULL;
  guint32 fz_len = 0, tz_len = 0;
  GBytes *file = NULL, *th = NULL;
  gint64 flen, tlen;
  gsize off = 0;
  gboolean ok = FALSE;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  if (added)
    *added = FALSE;
  while (off < len) {
    const guint8 *tag, *payload;
    guint32 n;

    if (len - off < 8)
      return FALSE;
    tag = data + off;
    n = load (data + off + 4, 4, TRUE);
    if (n > len - off - 8)
      return FALSE;
    payload = data + off + 8;
    if (memcmp (tag, "SYFZ", 4) == 0) {
      if (fz)
        return FALSE;
      fz = payload;
      fz_len = n;
    } else if (memcmp (tag, "SYTZ", 4) == 0) {
      if (tz)
        return FALSE;
      tz = payload;
      tz_len = n;
    } else if (memcmp (tag, "SYFT", 4) == 0) {
      if (ft || n != 8)
        return FALSE;
      ft = payload;
    }
    off += 8 + (gsize) n;
  }
  if (!fz && !tz && !ft)
    return TRUE;
  if (!fz || !tz || !ft)
    return FALSE;

  /* the sizes the gather's headers can take, before any allocation */
  flen = frame_content_size (fz, fz_len);
  tlen = frame_content_size (tz, tz_len);
  if (flen < GST_SCI_SEGY_FILE_HEADER_BYTES
      || (flen - GST_SCI_SEGY_FILE_HEADER_BYTES) %
      GST_SCI_SEGY_TEXT_HEADER_BYTES != 0
      || (flen - GST_SCI_SEGY_FILE_HEADER_BYTES) /
      GST_SCI_SEGY_TEXT_HEADER_BYTES > GST_SCI_SEGY_MAX_EXT_HEADERS)
    return FALSE;
  if (tlen < 0 || tlen % GST_SCI_SEGY_TRACE_HEADER_BYTES != 0
      || (guint64) tlen / GST_SCI_SEGY_TRACE_HEADER_BYTES > traces
      || (guint64) tlen > G_MAXSIZE - 1)
    return FALSE;

  file = decompress (fz, fz_len, flen);
  if (!file || !ext_headers_agree (file))
    goto done;
  th = decompress (tz, tz_len, tlen);
  if (!th)
    goto done;
  gst_buffer_add_sci_segy_meta (buffer, file, th, load (ft, 8, TRUE));
  if (added)
    *added = TRUE;
  ok = TRUE;

done:
  if (file)
    g_bytes_unref (file);
  if (th)
    g_bytes_unref (th);
  return ok;
}

/* ---- the binary header ---- */

/* Offsets in the binary header of the fields read (SEG-Y byte - 3201). */
#define BIN_INTERVAL 16         /* 3217-3218 */
#define BIN_SAMPLES 20          /* 3221-3222 */
#define BIN_FORMAT 24           /* 3225-3226 */
#define BIN_EXT_SAMPLES 68      /* 3269-3272, rev 2 */
#define BIN_EXT_INTERVAL 72     /* 3273-3280, rev 2, IEEE double */
#define BIN_REVISION 300        /* 3501 major, 3502 minor */
#define BIN_FIXED_LENGTH 302    /* 3503-3504 */
#define BIN_EXT_HEADERS 304     /* 3505-3506 */
#define BIN_EXTRA_TRACE_HEADERS 306     /* 3507-3510, rev 2 */

static guint32
read_u16 (const guint8 * p, gboolean le)
{
  return load (p, 2, le);
}

static guint32
read_u32 (const guint8 * p, gboolean le)
{
  return load (p, 4, le);
}

static guint64
read_u64 (const guint8 * p, gboolean le)
{
  return load (p, 8, le);
}

/* Whether `code` is a sample format code of SEG-Y (rev 2.0: 1 to 12, 15
 * and 16), converted here or not. */
static gboolean
is_format_code (guint code)
{
  return (code >= 1 && code <= 12) || code == 15 || code == 16;
}

gboolean
gst_sci_segy_binary_header_parse (const guint8 * bin,
    GstSciSegyBinaryHeader * h, gchar ** why)
{
  guint be = read_u16 (bin + BIN_FORMAT, FALSE);
  guint le = read_u16 (bin + BIN_FORMAT, TRUE);
  gboolean l;

  memset (h, 0, sizeof (*h));
  /* SEG-Y's format codes are below 256, so no code reads as one in both
   * byte orders: rev 2's byte-order constant (bytes 3297-3300) is not
   * needed */
  if (is_format_code (be)) {
    l = FALSE;
  } else if (is_format_code (le)) {
    l = TRUE;
  } else {
    *why = g_strdup_printf ("bytes 3225-3226 of the binary header (the "
        "sample format code) hold %02x %02x, no SEG-Y format code in either "
        "byte order: not a SEG-Y file", bin[BIN_FORMAT], bin[BIN_FORMAT + 1]);
    return FALSE;
  }
  h->little_endian = l;
  h->format = l ? le : be;
  h->revision = bin[BIN_REVISION];
  h->samples = read_u16 (bin + BIN_SAMPLES, l);
  h->interval = read_u16 (bin + BIN_INTERVAL, l);
  h->ext_headers = (gint16) read_u16 (bin + BIN_EXT_HEADERS, l);
  h->fixed_length = h->revision < 1 || read_u16 (bin + BIN_FIXED_LENGTH, l);
  if (h->revision >= 2) {
    guint32 ext_samples = read_u32 (bin + BIN_EXT_SAMPLES, l);
    guint64 bits = read_u64 (bin + BIN_EXT_INTERVAL, l);
    gdouble ext_interval;

    if (ext_samples)
      h->samples = ext_samples;
    memcpy (&ext_interval, &bits, 8);
    if (isfinite (ext_interval) && ext_interval >= 0.5
        && ext_interval < 2147483647.5)
      h->interval = (guint) lround (ext_interval);
    h->extra_trace_headers = read_u32 (bin + BIN_EXTRA_TRACE_HEADERS, l);
  }
  return TRUE;
}

/* ---- samples ---- */

guint
gst_sci_segy_format_bytes (guint format)
{
  switch (format) {
    case 1:                    /* IBM float */
    case 2:                    /* int32 */
    case 5:                    /* IEEE float */
    case 10:                   /* uint32 */
      return 4;
    case 3:                    /* int16 */
    case 11:                   /* uint16 */
      return 2;
    case 6:                    /* IEEE double */
    case 9:                    /* int64 */
    case 12:                   /* uint64 */
      return 8;
    case 7:                    /* int24 */
    case 15:                   /* uint24 */
      return 3;
    case 8:                    /* int8 */
    case 16:                   /* uint8 */
      return 1;
    default:                   /* 4: fixed point with gain (obsolete) */
      return 0;
  }
}

const gchar *
gst_sci_segy_format_name (guint format)
{
  static const gchar *const names[] = {
    "unknown", "IBM float", "int32", "int16",
    "fixed point with gain (obsolete)", "IEEE float", "IEEE double",
    "int24", "int8", "int64", "uint32", "uint16", "uint64", "unknown",
    "unknown", "uint24", "uint8",
  };

  return format < G_N_ELEMENTS (names) ? names[format] : "unknown";
}

gfloat
gst_sci_segy_ibm_to_float (guint32 ibm)
{
  /* (-1)^s x 0.F x 16^(E - 64), F 24 bits: exact in double, then rounded
   * once to float */
  gdouble m = (gdouble) (ibm & 0xffffff);
  gint e = (gint) ((ibm >> 24) & 0x7f) - 64;
  gdouble v = ldexp (m, 4 * e - 24);

  return (gfloat) ((ibm & 0x80000000u) ? -v : v);
}

guint32
gst_sci_segy_ibm_from_float (gfloat v)
{
  guint32 sign = signbit (v) ? 0x80000000u : 0;
  gdouble a = fabs ((gdouble) v), m;
  gint e, E;

  if (isnan (v))
    return 0;
  if (a == 0)
    return sign;
  if (isinf (v))
    return sign | 0x7fffffffu;
  /* a = f x 2^e with f in [1/2, 1): the hexadecimal exponent E puts
   * a / 16^E in [1/16, 1), E = ceil (e / 4) */
  frexp (a, &e);
  E = e > 0 ? (e + 3) / 4 : -(-e / 4);
  m = rint (ldexp (a, 24 - 4 * E));     /* in [2^20, 2^24] */
  if (m >= 16777216.0) {
    m = 1048576.0;
    E++;
  }
  /* every finite float has 27 <= E + 64 <= 96 */
  return sign | ((guint32) (E + 64) << 24) | (guint32) m;
}

void
gst_sci_segy_samples_to_float (guint format, gboolean little_endian,
    const guint8 * src, gfloat * dst, gsize n)
{
  guint b = gst_sci_segy_format_bytes (format);
  gboolean le = little_endian;
  gsize i;

  g_return_if_fail (b != 0);
  switch (format) {
    case 1:
      for (i = 0; i < n; i++)
        dst[i] = gst_sci_segy_ibm_to_float (load (src + 4 * i, 4, le));
      break;
    case 2:
      for (i = 0; i < n; i++)
        dst[i] = (gfloat) (gint32) load (src + 4 * i, 4, le);
      break;
    case 3:
      for (i = 0; i < n; i++)
        dst[i] = (gint16) load (src + 2 * i, 2, le);
      break;
    case 5:
      for (i = 0; i < n; i++) {
        guint32 u = load (src + 4 * i, 4, le);

        memcpy (dst + i, &u, 4);
      }
      break;
    case 6:
      for (i = 0; i < n; i++) {
        guint64 u = load (src + 8 * i, 8, le);
        gdouble d;

        memcpy (&d, &u, 8);
        dst[i] = (gfloat) d;
      }
      break;
    case 7:
      for (i = 0; i < n; i++) {
        guint32 u = load (src + 3 * i, 3, le);

        dst[i] = (gfloat) ((gint32) (u << 8) >> 8);
      }
      break;
    case 8:
      for (i = 0; i < n; i++)
        dst[i] = (gint8) src[i];
      break;
    case 9:
      for (i = 0; i < n; i++)
        dst[i] = (gfloat) (gint64) load (src + 8 * i, 8, le);
      break;
    case 10:
      for (i = 0; i < n; i++)
        dst[i] = (gfloat) (guint32) load (src + 4 * i, 4, le);
      break;
    case 11:
      for (i = 0; i < n; i++)
        dst[i] = (guint16) load (src + 2 * i, 2, le);
      break;
    case 12:
      for (i = 0; i < n; i++)
        dst[i] = (gfloat) load (src + 8 * i, 8, le);
      break;
    case 15:
      for (i = 0; i < n; i++)
        dst[i] = (gfloat) load (src + 3 * i, 3, le);
      break;
    case 16:
      for (i = 0; i < n; i++)
        dst[i] = src[i];
      break;
    default:
      g_assert_not_reached ();
  }
}

/* An integer format's range: values v with lo <= v < hi_excl (doubles,
 * exact) are stored as they are; below or above, `min` or `max` (the
 * type's extremes as two's complement bits). */
typedef struct
{
  guint format;
  gdouble lo, hi_excl;
  guint64 min, max;
  gboolean is_unsigned;
} IntRange;

static const IntRange int_ranges[] = {
  {2, -2147483648.0, 2147483648.0, (guint64) G_MININT32, G_MAXINT32, FALSE},
  {3, -32768.0, 32768.0, (guint64) G_MININT16, G_MAXINT16, FALSE},
  {7, -8388608.0, 8388608.0, (guint64) - 8388608, 8388607, FALSE},
  {8, -128.0, 128.0, (guint64) G_MININT8, G_MAXINT8, FALSE},
  {9, -9223372036854775808.0, 9223372036854775808.0, (guint64) G_MININT64,
      G_MAXINT64, FALSE},
  {10, 0.0, 4294967296.0, 0, G_MAXUINT32, TRUE},
  {11, 0.0, 65536.0, 0, G_MAXUINT16, TRUE},
  {12, 0.0, 18446744073709551616.0, 0, G_MAXUINT64, TRUE},
  {15, 0.0, 16777216.0, 0, 16777215, TRUE},
  {16, 0.0, 256.0, 0, G_MAXUINT8, TRUE},
};

static const IntRange *
int_range (guint format)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (int_ranges); i++)
    if (int_ranges[i].format == format)
      return &int_ranges[i];
  return NULL;
}

void
gst_sci_segy_samples_from_float (guint format, gboolean little_endian,
    const gfloat * src, guint8 * dst, gsize n, guint64 * nan, guint64 * clamped)
{
  guint b = gst_sci_segy_format_bytes (format);
  guint64 n_nan = 0, n_clamped = 0;
  const IntRange *r;
  gsize i;

  g_return_if_fail (b != 0);
  if (format == 1) {
    for (i = 0; i < n; i++) {
      if (isnan (src[i]))
        n_nan++;
      else if (isinf (src[i]))
        n_clamped++;
      store (dst + 4 * i, gst_sci_segy_ibm_from_float (src[i]), 4,
          little_endian);
    }
  } else if (format == 5) {
    for (i = 0; i < n; i++) {
      guint32 u;

      memcpy (&u, src + i, 4);
      store (dst + 4 * i, u, 4, little_endian);
    }
  } else if (format == 6) {
    for (i = 0; i < n; i++) {
      gdouble d = src[i];
      guint64 u;

      memcpy (&u, &d, 8);
      store (dst + 8 * i, u, 8, little_endian);
    }
  } else if ((r = int_range (format))) {
    for (i = 0; i < n; i++) {
      gdouble v = rint ((gdouble) src[i]);
      guint64 u;

      if (isnan (v)) {
        n_nan++;
        u = 0;
      } else if (v < r->lo) {
        n_clamped++;
        u = r->min;
      } else if (v >= r->hi_excl) {
        n_clamped++;
        u = r->max;
      } else {
        u = r->is_unsigned ? (guint64) v : (guint64) (gint64) v;
      }
      store (dst + b * i, u, b, little_endian);
    }
  } else {
    g_assert_not_reached ();
  }
  if (nan)
    *nan += n_nan;
  if (clamped)
    *clamped += n_clamped;
}
