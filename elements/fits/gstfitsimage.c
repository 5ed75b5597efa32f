/* fitsdec: one whole file decoded with cfitsio. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fitsio.h>

#include "gstfitsfile.h"
#include "gst/gstscifitsmeta.h"

GST_DEBUG_CATEGORY_EXTERN (gst_fits_dec_debug);
#define GST_CAT_DEFAULT gst_fits_dec_debug

/* cfitsio's message for `status` and its error stack, cleared. */
static gchar *
fits_message (int status)
{
  char text[FLEN_STATUS], msg[FLEN_ERRMSG];
  GString *s = g_string_new (NULL);

  fits_get_errstatus (status, text);
  g_string_append_printf (s, "cfitsio error %d: %s", status, text);
  while (fits_read_errmsg (msg))
    g_string_append_printf (s, "; %s", msg);
  return g_string_free (s, FALSE);
}

gchar *
gst_fits_printable (gchar * s)
{
  gchar *p;

  for (p = s; p && *p; p++)
    if (*p < 32 || *p > 126)
      *p = '?';
  return s;
}

/* "HDU i: " and cfitsio's message. */
static gchar *
hdu_message (gint hdu, int status)
{
  gchar *m = fits_message (status);
  gchar *ret = g_strdup_printf ("HDU %d: %s", hdu, m);

  g_free (m);
  return ret;
}

/* The header of the current HDU as a string of cards (g_free). */
static gchar *
hdu_header (fitsfile * f, int *status)
{
  char *hdr = NULL;
  int nkeys = 0;
  gchar *ret;

  if (fits_hdr2str (f, 0, NULL, 0, &hdr, &nkeys, status))
    return NULL;
  ret = g_strdup (hdr);
  fits_free_memory (hdr, status);
  return ret;
}

typedef struct
{
  gint hdu;                     /* 0-based */
  gint bitpix;
  LONGLONG naxes[9];
  gint naxis;
} ImageHdu;

/* Whether the current HDU is an image (compressed ones included) with
 * data; fills `img`. */
static gboolean
hdu_is_image (fitsfile * f, ImageHdu * img, int *status)
{
  int type, i;

  if (fits_get_hdu_type (f, &type, status) || type != IMAGE_HDU)
    return FALSE;
  if (fits_get_img_paramll (f, G_N_ELEMENTS (img->naxes), &img->bitpix,
          &img->naxis, img->naxes, status))
    return FALSE;
  if (img->naxis < 1)
    return FALSE;
  for (i = 0; i < MIN (img->naxis, (int) G_N_ELEMENTS (img->naxes)); i++)
    if (img->naxes[i] <= 0)
      return FALSE;
  return TRUE;
}

/* Pushes a frame with its caps (sent first when they changed). */
static GstFlowReturn
push_frame (GstFitsDec * self, GstCaps * caps, GstBuffer * out)
{
  GstCaps *cur;

  gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, self->fps_n,
      self->fps_d, NULL);
  cur = gst_pad_get_current_caps (self->srcpad);
  if (!cur || !gst_caps_is_equal (cur, caps)) {
    GST_DEBUG_OBJECT (self, "caps %" GST_PTR_FORMAT, caps);
    if (!gst_pad_push_event (self->srcpad, gst_event_new_caps (caps))) {
      gst_caps_unref (caps);
      if (cur)
        gst_caps_unref (cur);
      gst_buffer_unref (out);
      return GST_FLOW_NOT_NEGOTIATED;
    }
  }
  gst_caps_unref (caps);
  if (cur)
    gst_caps_unref (cur);
  if (!self->have_segment) {
    gst_pad_push_event (self->srcpad, gst_event_new_segment (&self->segment));
    self->have_segment = TRUE;
  }
  return gst_pad_push (self->srcpad, out);
}

/* cfitsio's type for reading the stored values of BITPIX `bitpix`. */
static int
stored_type (gint bitpix)
{
  switch (bitpix) {
    case 8:
      return TBYTE;
    case 16:
      return TSHORT;
    case 32:
      return TINT;
    case 64:
      return TLONGLONG;
    case -32:
      return TFLOAT;
    default:
      return TDOUBLE;
  }
}

/* Writes `n` stored values of `bytes` each, in host order at `src`, as
 * little-endian samples at `dst`, each XOR `flip` (the sign bit of the
 * unsigned conventions).  Floats are moved as bit patterns: NaN payloads
 * and signed zeros stay as stored. */
static void
stored_to_le (guint8 * dst, gconstpointer src, gsize n, guint bytes,
    guint64 flip)
{
  gsize i;
  guint k;

  for (i = 0; i < n; i++) {
    guint64 v = 0;

    switch (bytes) {
      case 1:
        v = ((const guint8 *) src)[i];
        break;
      case 2:
        v = ((const guint16 *) src)[i];
        break;
      case 4:
        v = ((const guint32 *) src)[i];
        break;
      default:
        v = ((const guint64 *) src)[i];
        break;
    }
    v ^= flip;
    for (k = 0; k < bytes; k++)
      dst[i * bytes + k] = (v >> (8 * k)) & 0xff;
  }
}

/* Decodes the image of one HDU into a frame and pushes it. */
static GstFlowReturn
decode_image (GstFitsDec * self, fitsfile * f, const ImageHdu * img,
    const gchar * primary, GstClockTime pts, gchar ** why)
{
  double bzero = 0.0, bscale = 1.0;
  int status = 0, anynul = 0, i;
  GstVideoFormat format = GST_VIDEO_FORMAT_UNKNOWN;
  const GstSciRasterFormat *raster = NULL;
  gboolean scaled = FALSE;
  GstCaps *caps;
  GstBuffer *out;
  gint offset = 0, width, height, y;
  guint bytes;
  guint64 flip;
  gchar *header;
  gpointer data;
  LONGLONG npix;
  GstMapInfo map;

  for (i = 2; i < img->naxis; i++)
    if (i >= (int) G_N_ELEMENTS (img->naxes) || img->naxes[i] != 1) {
      *why = g_strdup_printf ("HDU %d is a %d-dimensional image "
          "(NAXIS%d = %lld): only 2-D images are decoded", img->hdu,
          img->naxis, i + 1,
          i < (int) G_N_ELEMENTS (img->naxes) ? img->naxes[i] : 0LL);
      return GST_FLOW_ERROR;
    }
  if (img->naxes[0] > MAX_DIM || (img->naxis > 1 && img->naxes[1] > MAX_DIM)) {
    *why = g_strdup_printf ("HDU %d: image of %lld x %lld is larger than "
        "%d x %d", img->hdu, img->naxes[0], img->naxis > 1 ? img->naxes[1] :
        1, MAX_DIM, MAX_DIM);
    return GST_FLOW_ERROR;
  }
  width = img->naxes[0];
  height = img->naxis > 1 ? img->naxes[1] : 1;

  if (fits_read_key (f, TDOUBLE, "BZERO", &bzero, NULL, &status)
      == KEY_NO_EXIST)
    status = 0;
  if (fits_read_key (f, TDOUBLE, "BSCALE", &bscale, NULL, &status)
      == KEY_NO_EXIST)
    status = 0;
  if (status) {
    *why = hdu_message (img->hdu, status);
    return GST_FLOW_ERROR;
  }
  if (!isfinite (bzero) || !isfinite (bscale) || bscale == 0.0) {
    *why = g_strdup_printf ("HDU %d: invalid scaling (BZERO %g, BSCALE %g)",
        img->hdu, bzero, bscale);
    return GST_FLOW_ERROR;
  }
  if (img->bitpix == 8 && bzero == 0.0 && bscale == 1.0) {
    format = GST_VIDEO_FORMAT_GRAY8;
  } else if (img->bitpix == 16 && bzero == 32768.0 && bscale == 1.0) {
    format = GST_VIDEO_FORMAT_GRAY16_LE;
  } else if (img->bitpix == 16 && bzero == 0.0 && bscale == 1.0) {
    /* signed: the stored value plus 32768, said by sample-offset */
    format = GST_VIDEO_FORMAT_GRAY16_LE;
    offset = 32768;
  } else {
    /* every other image: its FITS values where a format holds them
     * exactly, else its stored values and the scaling in the caps */
    raster = gst_sci_raster_format_for_fits (img->bitpix, bzero, bscale,
        &scaled);
    if (!raster) {
      *why = g_strdup_printf ("HDU %d: BITPIX %d is not a FITS sample type",
          img->hdu, img->bitpix);
      return GST_FLOW_ERROR;
    }
  }
  if (raster) {
    bytes = raster->bytes;
    flip = raster->flip;
  } else {
    bytes = format == GST_VIDEO_FORMAT_GRAY8 ? 1 : 2;
    flip = bytes == 2 ? 0x8000 : 0;
  }

  npix = (LONGLONG) width *height;
  data = g_try_malloc (npix * bytes);
  if (!data) {
    *why = g_strdup_printf ("HDU %d: cannot allocate %d x %d", img->hdu,
        width, height);
    return GST_FLOW_ERROR;
  }
  /* the stored values, unscaled, and no null check (BLANK values and NaNs
   * come through as stored) */
  fits_set_bscale (f, 1.0, 0.0, &status);
  fits_read_img (f, stored_type (img->bitpix), 1, npix, NULL, data, &anynul,
      &status);
  header = status ? NULL : hdu_header (f, &status);
  if (status) {
    *why = hdu_message (img->hdu, status);
    g_free (data);
    g_free (header);
    return GST_FLOW_ERROR;
  }

  if (raster) {
    out = gst_buffer_new_allocate (NULL, (gsize) npix * bytes, NULL);
    gst_buffer_map (out, &map, GST_MAP_WRITE);
    stored_to_le (map.data, data, npix, bytes, flip);
    gst_buffer_unmap (out, &map);
    caps = gst_caps_new_simple ("application/x-raster", "format",
        G_TYPE_STRING, raster->format, "width", G_TYPE_INT, width, "height",
        G_TYPE_INT, height, NULL);
    if (scaled)
      gst_caps_set_simple (caps, "bzero", G_TYPE_DOUBLE, bzero, "bscale",
          G_TYPE_DOUBLE, bscale, NULL);
  } else {
    GstVideoInfo info;
    GstVideoFrame frame;

    gst_video_info_set_format (&info, format, width, height);
    out = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_video_frame_map (&frame, &info, out, GST_MAP_WRITE);
    /* GRAY16_LE: stored + 32768, the FITS value for BZERO 32768, the
     * signed value offset by 32768 otherwise */
    for (y = 0; y < height; y++)
      stored_to_le ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0),
          (const guint8 *) data + (gsize) y * width * bytes, width, bytes,
          flip);
    gst_video_frame_unmap (&frame);
    info.fps_n = self->fps_n;
    info.fps_d = self->fps_d;
    caps = gst_video_info_to_caps (&info);
    if (offset)
      gst_caps_set_simple (caps, "sample-offset", G_TYPE_INT, offset, NULL);
  }
  g_free (data);

  gst_buffer_add_sci_fits_meta (out, header, img->hdu > 0 ? primary : NULL,
      img->hdu);
  g_free (header);

  if (GST_CLOCK_TIME_IS_VALID (pts)) {
    GST_BUFFER_PTS (out) = pts;
  } else if (self->fps_n > 0) {
    GST_BUFFER_PTS (out) = gst_util_uint64_scale (self->frames,
        self->fps_d * GST_SECOND, self->fps_n);
    GST_BUFFER_DURATION (out) = gst_util_uint64_scale (GST_SECOND,
        self->fps_d, self->fps_n);
  }
  self->frames++;
  GST_LOG_OBJECT (self, "HDU %d: %dx%d BITPIX %d BZERO %g BSCALE %g",
      img->hdu, width, height, img->bitpix, bzero, bscale);
  return push_frame (self, caps, out);
}

/* Checks the CHECKSUM and DATASUM cards of the current HDU, where present
 * (cfitsio's fits_verify_chksum).  FALSE, with `*why`, when a sum does
 * not match what the HDU holds.  `header_only`: only the HDU's header is
 * used (the primary header of an extension's frame), so damage in its data
 * unit is only a warning. */
static gboolean
verify_hdu (GstFitsDec * self, fitsfile * f, gint hdu, gboolean header_only,
    gchar ** why)
{
  int dataok = 0, hduok = 0, status = 0;

  if (fits_verify_chksum (f, &dataok, &hduok, &status)) {
    *why = hdu_message (hdu, status);
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "HDU %d: DATASUM %s, CHECKSUM %s", hdu,
      dataok > 0 ? "matches" : dataok < 0 ? "differs" : "absent",
      hduok > 0 ? "matches" : hduok < 0 ? "differs" : "absent");
  if (header_only && dataok < 0) {
    GST_ELEMENT_WARNING (self, STREAM, DECODE,
        ("The primary HDU's data unit of the FITS file is damaged"),
        ("HDU %d: DATASUM does not match its data unit, which is not "
            "decoded; its header cards are kept", hdu));
    return TRUE;
  }
  if (dataok < 0) {
    *why = g_strdup_printf ("HDU %d: DATASUM does not match the data unit: "
        "the data are damaged (verify-checksum=false decodes them anyway)",
        hdu);
    return FALSE;
  }
  if (hduok < 0) {
    *why = g_strdup_printf ("HDU %d: CHECKSUM does not match the HDU%s: "
        "the header or data are damaged (verify-checksum=false decodes "
        "them anyway)", hdu, dataok > 0 ? " (its data match DATASUM, so "
        "the header changed)" : "");
    return FALSE;
  }
  return TRUE;
}

/* The integer value of a fixed-format card, or -1. */
static gint64
card_value (const guint8 * card)
{
  gchar v[71];
  gchar *end;
  gint64 n;

  if (card[8] != '=')
    return -1;
  memcpy (v, card + 10, 70);
  v[70] = '\0';
  n = g_ascii_strtoll (v, &end, 10);
  return end == v ? -1 : n;
}

/* n of a card NAXISn (1..999, as its key spells it), or 0. */
static gint64
axis_number (const guint8 * card)
{
  gint64 n = 0;
  gint i;

  for (i = 5; i < 8 && card[i] >= '0' && card[i] <= '9'; i++)
    n = n * 10 + (card[i] - '0');
  if (i == 5 || (i < 8 && card[i] != ' '))
    return 0;
  return n;
}

static gboolean
card_named (const guint8 * card, const gchar * key)
{
  gsize n = strlen (key);

  return memcmp (card, key, n) == 0 && (n == 8 || card[n] == ' ');
}

/* FITS 4.4.1: each header opens with its mandatory cards in order
 * (SIMPLE or XTENSION, BITPIX, NAXIS, NAXIS1..NAXISn, and PCOUNT, GCOUNT
 * in an extension), and cfitsio refuses one that does not: IDL has
 * written files with NAXISn after other cards.  Returns a copy of the
 * file with those cards moved into place, the others in their order, or
 * NULL when every header is in order (or one cannot be read this way:
 * cfitsio then says why).  The headers keep their size, so the data stay
 * where they were, and the checksums too (sums of 4-byte words, and a
 * card is 20 of them).  *hdus: the HDUs whose cards moved. */
static guint8 *
mandatory_in_order (const guint8 * data, gsize size, guint * hdus)
{
  guint8 *copy = NULL;
  guint64 off = 0;
  guint hdu;

  *hdus = 0;
  for (hdu = 0; off + 2880 <= size; hdu++) {
    const guint8 *h = data + off;
    guint64 ncards = 0, e, k, nelem = 1, bytes;
    gint64 bitpix = 0, naxis = -1, pcount = 0, gcount = 1;
    gint64 at[1 + 2 + 999 + 2]; /* card0, BITPIX, NAXIS, NAXISn, P/GCOUNT */
    guint nwant, i;
    gboolean ordered = TRUE;

    /* the END card */
    for (e = 0; off + (e + 1) * 80 <= size; e++)
      if (card_named (h + e * 80, "END"))
        break;
    if (off + (e + 1) * 80 > size)
      break;
    ncards = e;
    for (k = 0; k < ncards; k++) {
      const guint8 *c = h + k * 80;

      if (card_named (c, "BITPIX"))
        bitpix = card_value (c);
      else if (card_named (c, "NAXIS"))
        naxis = card_value (c);
      else if (card_named (c, "PCOUNT"))
        pcount = card_value (c);
      else if (card_named (c, "GCOUNT"))
        gcount = card_value (c);
    }
    if (naxis < 0 || naxis > 999 || !bitpix || pcount < 0 || gcount < 0)
      break;
    nwant = 3 + (guint) naxis + (hdu ? 2 : 0);
    for (i = 0; i < nwant; i++)
      at[i] = -1;
    at[0] = 0;
    for (k = 1; k < ncards; k++) {
      const guint8 *c = h + k * 80;
      gint64 n;

      if (card_named (c, "BITPIX"))
        at[1] = (gint64) k;
      else if (card_named (c, "NAXIS"))
        at[2] = (gint64) k;
      else if (memcmp (c, "NAXIS", 5) == 0 && (n = axis_number (c)) >= 1
          && n <= naxis && at[2 + n] < 0) {
        gint64 v = card_value (c);

        at[2 + n] = (gint64) k;
        /* bounded by the file's size, so that the offsets cannot wrap */
        nelem = v <= 0 ? 0 : MIN (nelem * (guint64) MIN (v, (gint64) size),
            (guint64) size);
      } else if (hdu && card_named (c, "PCOUNT"))
        at[3 + naxis] = (gint64) k;
      else if (hdu && card_named (c, "GCOUNT"))
        at[4 + naxis] = (gint64) k;
    }
    for (i = 0; i < nwant; i++) {
      if (at[i] < 0)
        goto done;
      ordered = ordered && at[i] == (gint64) i;
    }
    if (!ordered) {
      guint8 *cards, *dst;

      if (!copy)
        copy = g_memdup2 (data, size);
      cards = g_memdup2 (h, ncards * 80);
      dst = copy + off;
      for (i = 0; i < nwant; i++)
        memcpy (dst + i * 80, cards + at[i] * 80, 80);
      for (k = 0, i = nwant; k < ncards; k++) {
        guint j;
        gboolean moved = FALSE;

        for (j = 0; j < nwant && !moved; j++)
          moved = at[j] == (gint64) k;
        if (!moved)
          memcpy (dst + (i++) * 80, cards + k * 80, 80);
      }
      g_free (cards);
      (*hdus)++;
    }
    /* the next HDU: the header's blocks, then the data's */
    if (naxis == 0)
      nelem = 0;
    if (ABS (bitpix) > 64 || gcount > (gint64) size || pcount > (gint64) size)
      break;
    bytes = (guint64) ABS (bitpix) / 8 * (guint64) gcount *
        ((guint64) pcount + nelem);
    if (bytes > size)
      break;
    off += ((ncards + 1) * 80 + 2879) / 2880 * 2880 + (bytes + 2879) / 2880 *
        2880;
  }
done:
  if (copy && !*hdus) {
    g_free (copy);
    copy = NULL;
  }
  return copy;
}

/* Decodes one whole FITS file, pushing its image(s). */
GstFlowReturn
gst_fits_dec_decode_file (GstFitsDec * self, GstBuffer * file, GstClockTime pts)
{
  GstFlowReturn ret = GST_FLOW_OK;
  GstMapInfo map;
  fitsfile *f = NULL;
  void *ptr;
  size_t size;
  int status = 0, nhdus = 0, i, type;
  gint want_hdu;
  gboolean all, verify, found = FALSE, primary_checked = FALSE;
  gchar *primary = NULL, *why = NULL;
  const gchar *title = "Cannot decode the FITS file";
  guint8 *reordered = NULL;
  guint moved;

  GST_OBJECT_LOCK (self);
  want_hdu = self->hdu;
  all = self->all_hdus;
  verify = self->verify_checksum;
  GST_OBJECT_UNLOCK (self);

  if (!gst_buffer_map (file, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL), ("cannot map input"));
    return GST_FLOW_ERROR;
  }
  ptr = map.data;
  size = map.size;
  GST_DEBUG_OBJECT (self, "decoding a file of %" G_GSIZE_FORMAT " bytes",
      map.size);
  reordered = mandatory_in_order (map.data, map.size, &moved);
  if (reordered) {
    GST_ELEMENT_WARNING (self, STREAM, DECODE,
        ("The FITS file's mandatory keywords are out of order: reordered"),
        ("%u HDU%s with NAXISn (or BITPIX, NAXIS, PCOUNT, GCOUNT) not in "
            "the order FITS 4.4.1 requires (IDL writes such files): the "
            "cards were moved into place, the data read as they are",
            moved, moved == 1 ? "" : "s"));
    ptr = reordered;
  }
  if (fits_open_memfile (&f, "fitsdec.fits", READONLY, &ptr, &size, 0, NULL,
          &status) || fits_get_num_hdus (f, &nhdus, &status)) {
    why = fits_message (status);
    goto fail;
  }
  primary = hdu_header (f, &status);
  if (status) {
    why = fits_message (status);
    goto fail;
  }
  if (want_hdu >= nhdus && !all) {
    why = g_strdup_printf ("hdu=%d asked, the file has %d HDUs (0..%d)",
        want_hdu, nhdus, nhdus - 1);
    goto fail;
  }

  for (i = 0; i < nhdus && ret == GST_FLOW_OK; i++) {
    ImageHdu img = { 0 };

    if (!all && want_hdu >= 0 && i != want_hdu)
      continue;
    img.hdu = i;
    if (fits_movabs_hdu (f, i + 1, &type, &status)) {
      why = hdu_message (i, status);
      goto fail;
    }
    if (!hdu_is_image (f, &img, &status)) {
      if (status) {
        why = hdu_message (i, status);
        goto fail;
      }
      if (!all && want_hdu >= 0) {
        why = g_strdup_printf ("HDU %d is not an image with data", i);
        goto fail;
      }
      continue;
    }
    found = TRUE;
    if (verify) {
      if (i > 0 && !primary_checked) {
        /* its cards go out with the frame */
        if (fits_movabs_hdu (f, 1, &type, &status)) {
          why = hdu_message (0, status);
          goto fail;
        }
        if (!verify_hdu (self, f, 0, TRUE, &why)) {
          title = "FITS checksum mismatch";
          goto fail;
        }
        if (fits_movabs_hdu (f, i + 1, &type, &status)) {
          why = hdu_message (i, status);
          goto fail;
        }
        primary_checked = TRUE;
      }
      if (!verify_hdu (self, f, i, FALSE, &why)) {
        title = "FITS checksum mismatch";
        goto fail;
      }
    }
    ret = decode_image (self, f, &img, primary, pts, &why);
    if (why)
      goto fail;
    if (!all)
      break;
  }
  if (!found) {
    why = g_strdup_printf ("no image HDU with data among the file's %d HDUs",
        nhdus);
    goto fail;
  }
  fits_close_file (f, &status);
  fits_clear_errmsg ();
  gst_buffer_unmap (file, &map);
  g_free (reordered);
  g_free (primary);
  return ret;

fail:
  GST_ELEMENT_ERROR (self, STREAM, DECODE, ("%s", title),
      ("%s", gst_fits_printable (why)));
  g_free (why);
  g_free (primary);
  if (f) {
    status = 0;
    fits_close_file (f, &status);
  }
  fits_clear_errmsg ();
  gst_buffer_unmap (file, &map);
  g_free (reordered);
  return GST_FLOW_ERROR;
}

/* Takes `len` bytes from the adapter and decodes them. */
