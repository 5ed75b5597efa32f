/* fitsdec: the HDUs of a file from its headers alone. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstfitsfile.h"

/* The integer value of a fixed-format card, FALSE if it has none. */
static gboolean
card_int (const gchar * card, gint64 * value)
{
  gchar buf[FITS_CARD - 9];
  gchar *end;
  gint64 v;

  if (card[8] != '=' || card[9] != ' ')
    return FALSE;
  memcpy (buf, card + 10, FITS_CARD - 10);
  buf[FITS_CARD - 10] = '\0';
  v = g_ascii_strtoll (buf, &end, 10);
  if (end == buf)
    return FALSE;
  while (*end == ' ')
    end++;
  if (*end != '\0' && *end != '/')
    return FALSE;
  *value = v;
  return TRUE;
}

static gboolean
card_is (const gchar * card, const gchar * key)
{
  gsize n = strlen (key);

  if (memcmp (card, key, n) != 0)
    return FALSE;
  for (; n < 8; n++)
    if (card[n] != ' ')
      return FALSE;
  return TRUE;
}

GstFitsScanResult
gst_fits_scan_file (GstAdapter * adapter, gsize avail, gsize * len,
    gboolean * definite, gsize * need, gchar ** why)
{
  guint8 block[FITS_BLOCK];
  guint64 off = 0;
  guint hdu;

  /* say at once when the input is not FITS */
  if (avail > 0) {
    guint8 head[9];
    gsize n = MIN (avail, 9);

    gst_adapter_copy (adapter, head, 0, n);
    if (memcmp (head, "SIMPLE  =", n) != 0) {
      *why = g_strdup ("the input does not begin with SIMPLE: not a FITS "
          "file");
      return GST_FITS_SCAN_ERROR;
    }
  }
  for (hdu = 0; hdu < MAX_HDUS; hdu++) {
    gint64 bitpix = 0, naxis = -1, pcount = 0, gcount = 1;
    gint64 axes[1000];
    guint64 header_len, nelem, data_len;
    gboolean ended = FALSE, random_groups = FALSE;
    guint b, c, i;

    if (hdu > 0) {
      gsize left = avail - off;
      guint8 head[8];

      *len = off;
      if (left == 0) {
        *definite = FALSE;
        return GST_FITS_SCAN_COMPLETE;
      }
      gst_adapter_copy (adapter, head, off, MIN (left, 8));
      if (memcmp (head, "XTENSION", MIN (left, 8)) != 0) {
        *definite = TRUE;
        return GST_FITS_SCAN_COMPLETE;
      }
      if (left < 8) {
        *definite = FALSE;
        return GST_FITS_SCAN_COMPLETE;
      }
    }
    for (i = 0; i < G_N_ELEMENTS (axes); i++)
      axes[i] = -1;
    for (b = 0; !ended; b++) {
      if (b >= MAX_HEADER_BLOCKS) {
        *why = g_strdup_printf ("HDU %u: no END card in %u header blocks",
            hdu, b);
        return GST_FITS_SCAN_ERROR;
      }
      if (off + (b + 1) * (guint64) FITS_BLOCK > avail) {
        *need = off + (b + 1) * (guint64) FITS_BLOCK;
        return GST_FITS_SCAN_NEED_MORE;
      }
      gst_adapter_copy (adapter, block, off + b * FITS_BLOCK, FITS_BLOCK);
      for (c = 0; c < FITS_BLOCK / FITS_CARD && !ended; c++) {
        const gchar *card = (const gchar *) block + c * FITS_CARD;
        gint64 v;

        if (b == 0 && c == 0) {
          if (hdu == 0 ? !card_is (card, "SIMPLE") : !card_is (card,
                  "XTENSION")) {
            *why = g_strdup_printf ("HDU %u does not begin with %s", hdu,
                hdu == 0 ? "SIMPLE: not a FITS file" : "XTENSION");
            return GST_FITS_SCAN_ERROR;
          }
        } else if (card_is (card, "END")) {
          ended = TRUE;
        } else if (card_is (card, "BITPIX") && card_int (card, &v)) {
          bitpix = v;
        } else if (card_is (card, "NAXIS") && card_int (card, &v)) {
          naxis = v;
        } else if (card_is (card, "PCOUNT") && card_int (card, &v)) {
          pcount = v;
        } else if (card_is (card, "GCOUNT") && card_int (card, &v)) {
          gcount = v;
        } else if (card_is (card, "GROUPS")) {
          random_groups = card[8] == '=' && strchr (card + 10, 'T') != NULL;
        } else if (memcmp (card, "NAXIS", 5) == 0 && card_int (card, &v)) {
          gchar key[9];
          gchar *end;
          guint64 n;

          memcpy (key, card, 8);
          key[8] = '\0';
          n = g_ascii_strtoull (key + 5, &end, 10);
          if (end != key + 5 && (*end == ' ' || *end == '\0') && n >= 1
              && n <= 999)
            axes[n - 1] = v;
        }
      }
    }
    header_len = (guint64) b *FITS_BLOCK;

    if (bitpix != 8 && bitpix != 16 && bitpix != 32 && bitpix != 64
        && bitpix != -32 && bitpix != -64) {
      *why = g_strdup_printf ("HDU %u: invalid or missing BITPIX (%"
          G_GINT64_FORMAT ")", hdu, bitpix);
      return GST_FITS_SCAN_ERROR;
    }
    if (naxis < 0 || naxis > 999) {
      *why = g_strdup_printf ("HDU %u: invalid or missing NAXIS (%"
          G_GINT64_FORMAT ")", hdu, naxis);
      return GST_FITS_SCAN_ERROR;
    }
    if (pcount < 0 || gcount < 0 || pcount > (gint64) MAX_DATA_BYTES
        || gcount > (gint64) MAX_DATA_BYTES) {
      *why = g_strdup_printf ("HDU %u: invalid PCOUNT or GCOUNT", hdu);
      return GST_FITS_SCAN_ERROR;
    }
    if (hdu == 0 && !random_groups)
      pcount = 0, gcount = 1;
    nelem = naxis > 0 ? 1 : 0;
    for (i = 0; i < naxis; i++) {
      if (axes[i] < 0 || axes[i] > (gint64) MAX_DATA_BYTES) {
        *why = g_strdup_printf ("HDU %u: invalid or missing NAXIS%u", hdu,
            i + 1);
        return GST_FITS_SCAN_ERROR;
      }
      if (i == 0 && random_groups && axes[0] == 0 && naxis > 1)
        continue;
      nelem *= axes[i];
      if (nelem > MAX_DATA_BYTES) {
        *why = g_strdup_printf ("HDU %u: data larger than %" G_GUINT64_FORMAT
            " bytes", hdu, (guint64) MAX_DATA_BYTES);
        return GST_FITS_SCAN_ERROR;
      }
    }
    data_len = (nelem + pcount) * gcount;
    if (naxis == 0 && pcount == 0)
      data_len = 0;
    if ((gcount && data_len / gcount != nelem + (guint64) pcount)
        || data_len > MAX_DATA_BYTES / 8) {
      *why = g_strdup_printf ("HDU %u: data larger than %" G_GUINT64_FORMAT
          " bytes", hdu, (guint64) MAX_DATA_BYTES);
      return GST_FITS_SCAN_ERROR;
    }
    data_len *= ABS (bitpix) / 8;
    data_len = (data_len + FITS_BLOCK - 1) / FITS_BLOCK * FITS_BLOCK;
    if (off + header_len + data_len > avail) {
      *need = off + header_len + data_len;
      return GST_FITS_SCAN_NEED_MORE;
    }
    off += header_len + data_len;
  }
  *why = g_strdup_printf ("more than %u HDUs", MAX_HDUS);
  return GST_FITS_SCAN_ERROR;
}
