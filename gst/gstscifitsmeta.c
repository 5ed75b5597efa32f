/*
 * GstSciFitsMeta: a FITS header on a buffer (gstscifitsmeta.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstscifitsmeta.h"

#define API_NAME "GstSciFitsMetaAPI"
#define IMPL_NAME "GstSciFitsMeta"

/* The API and implementation are looked up by name before registering:
 * the plugin and a program linking this file (the tests) may both carry a
 * copy of this code in one process. */
GType
gst_sci_fits_meta_api_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    /* no tags: the header is not tied to the memory, the video format or
     * the frame size, so every element that copies metas keeps it */
    static const gchar *tags[] = { NULL };
    GType t = g_type_from_name (API_NAME);

    if (!t)
      t = gst_meta_api_type_register (API_NAME, tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* The header cut to whole cards before any END card (a copy). */
static gchar *
normalise_header (const gchar * header)
{
  gsize len, n, i;
  GString *s;

  if (!header)
    return NULL;
  len = strlen (header);
  n = (len + GST_SCI_FITS_CARD_LEN - 1) / GST_SCI_FITS_CARD_LEN;
  s = g_string_sized_new (n * GST_SCI_FITS_CARD_LEN + 1);
  for (i = 0; i < n; i++) {
    const gchar *card = header + i * GST_SCI_FITS_CARD_LEN;
    gsize l = MIN (len - i * GST_SCI_FITS_CARD_LEN, GST_SCI_FITS_CARD_LEN);
    gsize k;

    if (l >= 3 && memcmp (card, "END", 3) == 0) {
      for (k = 3; k < l && card[k] == ' '; k++);
      if (k == l)
        break;
    }
    g_string_append_len (s, card, l);
    for (k = l; k < GST_SCI_FITS_CARD_LEN; k++)
      g_string_append_c (s, ' ');
  }
  return g_string_free (s, FALSE);
}

static gboolean
fits_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstSciFitsMeta *m = (GstSciFitsMeta *) meta;

  m->header = NULL;
  m->primary_header = NULL;
  m->hdu = -1;
  return TRUE;
}

static void
fits_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstSciFitsMeta *m = (GstSciFitsMeta *) meta;

  g_free (m->header);
  g_free (m->primary_header);
  m->header = m->primary_header = NULL;
}

/* Every transform (copy, region copy, scaling, ...) keeps the header as
 * it is: it describes where the samples came from. */
static gboolean
fits_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GstSciFitsMeta *m = (GstSciFitsMeta *) meta;

  if (gst_buffer_get_sci_fits_meta (dest))
    return TRUE;
  return gst_buffer_add_sci_fits_meta (dest, m->header, m->primary_header,
      m->hdu) != NULL;
}

const GstMetaInfo *
gst_sci_fits_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter (&info)) {
    const GstMetaInfo *i = gst_meta_get_info (IMPL_NAME);

    if (!i)
      i = gst_meta_register (GST_SCI_FITS_META_API_TYPE, IMPL_NAME,
          sizeof (GstSciFitsMeta), fits_meta_init, fits_meta_free,
          fits_meta_transform);
    g_once_init_leave (&info, i);
  }
  return info;
}

GstSciFitsMeta *
gst_buffer_add_sci_fits_meta (GstBuffer * buffer, const gchar * header,
    const gchar * primary_header, gint hdu)
{
  GstSciFitsMeta *m;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  m = (GstSciFitsMeta *) gst_buffer_add_meta (buffer, GST_SCI_FITS_META_INFO,
      NULL);
  if (!m)
    return NULL;
  m->header = normalise_header (header ? header : "");
  m->primary_header = normalise_header (primary_header);
  m->hdu = hdu;
  return m;
}

guint
gst_sci_fits_header_n_cards (const gchar * header)
{
  return header ? strlen (header) / GST_SCI_FITS_CARD_LEN : 0;
}

gboolean
gst_sci_fits_card_is_structural (const gchar * card)
{
  static const gchar *const names[] = { "SIMPLE", "XTENSION", "BITPIX",
    "NAXIS", "BZERO", "BSCALE", "EXTEND", "PCOUNT", "GCOUNT", "END",
    "CHECKSUM", "DATASUM",
  };
  gchar key[9];
  guint i, n;

  for (n = 0; n < 8 && card[n] && card[n] != ' '; n++)
    key[n] = card[n];
  key[n] = '\0';
  for (i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (key, names[i]) == 0)
      return TRUE;
  /* NAXISn */
  if (n > 5 && strncmp (key, "NAXIS", 5) == 0) {
    for (i = 5; i < n && g_ascii_isdigit (key[i]); i++);
    return i == n;
  }
  return FALSE;
}

/* Record fields lie at whatever offset the bytes before them leave (a
 * payload has any length), so they are read and written a byte at a time:
 * GST_READ_UINT32_LE is a plain 32-bit load on x86, undefined behaviour
 * at an odd address. */
static guint32
load_le32 (const guint8 * p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 |
      (guint32) p[3] << 24;
}

static void
store_le32 (guint8 * p, guint32 v)
{
  p[0] = v & 0xff;
  p[1] = (v >> 8) & 0xff;
  p[2] = (v >> 16) & 0xff;
  p[3] = v >> 24;
}

void
gst_sci_meta_append_record (GByteArray * a, const gchar * tag,
    gconstpointer data, guint32 len)
{
  guint8 head[8];

  memcpy (head, tag, 4);
  store_le32 (head + 4, len);
  g_byte_array_append (a, head, 8);
  if (len)
    g_byte_array_append (a, data, len);
}

GBytes *
gst_sci_fits_meta_serialize (const GstSciFitsMeta * meta)
{
  GByteArray *a;
  guint8 hdu[4];

  g_return_val_if_fail (meta != NULL, NULL);
  a = g_byte_array_new ();
  gst_sci_meta_append_record (a, "FHDR", meta->header,
      meta->header ? strlen (meta->header) : 0);
  if (meta->primary_header)
    gst_sci_meta_append_record (a, "FPRI", meta->primary_header,
        strlen (meta->primary_header));
  store_le32 (hdu, (guint32) meta->hdu);
  gst_sci_meta_append_record (a, "FHDU", hdu, 4);
  return g_byte_array_free_to_bytes (a);
}

/* Whether the payload holds no NUL (header strings are C strings). */
static gboolean
text_ok (const guint8 * p, guint32 len)
{
  return memchr (p, 0, len) == NULL;
}

gboolean
gst_buffer_add_sci_fits_meta_from_records (GstBuffer * buffer,
    const guint8 * data, gsize len, gboolean * added)
{
  const guint8 *hdr = NULL, *pri = NULL;
  guint32 hdr_len = 0, pri_len = 0;
  gint hdu = -1;
  gsize off = 0;
  gchar *h, *p;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  if (added)
    *added = FALSE;
  while (off < len) {
    const guint8 *tag, *payload;
    guint32 n;

    if (len - off < 8)
      return FALSE;
    tag = data + off;
    n = load_le32 (data + off + 4);
    if (n > len - off - 8)
      return FALSE;
    payload = data + off + 8;
    if (memcmp (tag, "FHDR", 4) == 0) {
      if (hdr || !text_ok (payload, n))
        return FALSE;
      hdr = payload;
      hdr_len = n;
    } else if (memcmp (tag, "FPRI", 4) == 0) {
      if (pri || !text_ok (payload, n))
        return FALSE;
      pri = payload;
      pri_len = n;
    } else if (memcmp (tag, "FHDU", 4) == 0) {
      if (n != 4)
        return FALSE;
      hdu = (gint32) load_le32 (payload);
    }
    off += 8 + (gsize) n;
  }
  if (!hdr)
    return TRUE;
  h = g_strndup ((const gchar *) hdr, hdr_len);
  p = pri ? g_strndup ((const gchar *) pri, pri_len) : NULL;
  gst_buffer_add_sci_fits_meta (buffer, h, p, hdu);
  g_free (h);
  g_free (p);
  if (added)
    *added = TRUE;
  return TRUE;
}

/* ---- application/x-raster formats ---- */

static const GstSciRasterFormat raster_formats[] = {
  {"U8", 8, 1, 0, 0.0},
  /* FITS stores signed bytes as unsigned with BZERO -128 */
  {"S8", 8, 1, 0x80, -128.0},
  {"S16LE", 16, 2, 0, 0.0},
  {"S32LE", 32, 4, 0, 0.0},
  {"U32LE", 32, 4, G_GUINT64_CONSTANT (0x80000000), 2147483648.0},
  {"S64LE", 64, 8, 0, 0.0},
  {"U64LE", 64, 8, G_GUINT64_CONSTANT (0x8000000000000000),
      9223372036854775808.0},
  {"F32LE", -32, 4, 0, 0.0},
  {"F64LE", -64, 8, 0, 0.0},
};

const GstSciRasterFormat *
gst_sci_raster_format_from_string (const gchar * format)
{
  guint i;

  for (i = 0; format && i < G_N_ELEMENTS (raster_formats); i++)
    if (strcmp (format, raster_formats[i].format) == 0)
      return &raster_formats[i];
  return NULL;
}

const GstSciRasterFormat *
gst_sci_raster_format_for_fits (gint bitpix, gdouble bzero, gdouble bscale,
    gboolean * scaled)
{
  const GstSciRasterFormat *stored = NULL;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (raster_formats); i++) {
    const GstSciRasterFormat *f = &raster_formats[i];

    if (f->bitpix != bitpix)
      continue;
    if (f->flip == 0)
      stored = f;
    if (bscale == 1.0 && bzero == f->bzero) {
      *scaled = FALSE;
      return f;
    }
  }
  *scaled = TRUE;
  return stored;
}
