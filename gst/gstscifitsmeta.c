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
