/*
 * Typefinder of ENVI headers (see gstenvitypefind.h and docs/elements.md,
 * "Typefinding and decodebin").
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstenvitypefind.h"

/* How much of a header is searched for the keys every cube has. */
#define ENVI_PEEK 4096

static gboolean
has_key (const gchar * text, gsize n, const gchar * key)
{
  gsize k = strlen (key), i;

  /* a key starts a line: "samples = 640" */
  for (i = 0; i + k <= n; i++)
    if ((i == 0 || text[i - 1] == '\n')
        && g_ascii_strncasecmp (text + i, key, k) == 0)
      return TRUE;
  return FALSE;
}

static void
envi_type_find (GstTypeFind * tf, gpointer unused)
{
  const guint8 *d;
  guint64 length = gst_type_find_get_length (tf);
  guint off = 0, i, n;

  d = gst_type_find_peek (tf, 0, 3);
  if (d && memcmp (d, "\xef\xbb\xbf", 3) == 0)
    off = 3;
  d = gst_type_find_peek (tf, off, 4);
  if (!d || memcmp (d, "ENVI", 4) != 0)
    return;
  /* the word alone on its line (blanks and a CR allowed) */
  for (i = off + 4;; i++) {
    d = gst_type_find_peek (tf, i, 1);
    if (!d || i > off + 64)
      return;
    if (*d == '\n')
      break;
    if (*d != ' ' && *d != '\t' && *d != '\r')
      return;
  }

  n = length ? MIN (length, ENVI_PEEK) : ENVI_PEEK;
  d = NULL;
  while (n > i && !(d = gst_type_find_peek (tf, 0, n)))
    n /= 2;
  if (d && n > i && has_key ((const gchar *) d, n, "samples")
      && has_key ((const gchar *) d, n, "lines")
      && has_key ((const gchar *) d, n, "bands"))
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_MAXIMUM,
        GST_ENVI_HEADER_MEDIA_TYPE);
  else
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_LIKELY,
        GST_ENVI_HEADER_MEDIA_TYPE);
}

gboolean
gst_envi_type_find_register (GstPlugin * plugin)
{
  GstCaps *caps = gst_caps_new_empty_simple (GST_ENVI_HEADER_MEDIA_TYPE);
  gboolean ret = gst_type_find_register (plugin, GST_ENVI_HEADER_MEDIA_TYPE,
      GST_RANK_PRIMARY, envi_type_find, "hdr", caps, NULL, NULL);

  gst_caps_unref (caps);
  return ret;
}
