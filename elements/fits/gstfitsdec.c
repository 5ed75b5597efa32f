/**
 * SECTION:element-fitsdec
 * @title: fitsdec
 *
 * Decodes FITS files (image/fits) into frames with cfitsio, keeping every
 * bit: BITPIX 8 images become GRAY8; BITPIX 16 images with BZERO 32768 and
 * BSCALE 1 (unsigned 16-bit, as instruments write them) become GRAY16_LE
 * holding the FITS physical values exactly; signed BITPIX 16 images (no
 * BZERO) become GRAY16_LE offset by 32768, which the caps field
 * `sample-offset=32768` says.  Every other image (BITPIX 32, 64, -32,
 * -64, signed bytes, scaled data) becomes application/x-raster: the FITS
 * values where its format holds them (S32LE, U32LE for BZERO 2^31, F32LE,
 * ...), else the stored values with the caps fields bzero and bscale
 * (docs/media-types.md).  Cubes are refused with an error that says why.
 *
 * CHECKSUM and DATASUM cards, where present, are verified first: a file
 * that does not match them is an error, unless verify-checksum is false.
 *
 * Row 0 of the FITS data (the first row stored, drawn at the bottom by
 * astronomical viewers) is row 0 of the video frame: nothing is flipped.
 *
 * One input buffer holding one whole FITS file (multifilesrc, or filesrc
 * with a blocksize at least the file's size) is decoded when it arrives.
 * A file that arrives in pieces (filesrc's 4 KiB blocks) is gathered and
 * decoded at EOS, or when the next file's `SIMPLE` card arrives.
 *
 * Each output buffer carries a #GstSciFitsMeta with the header cards of its
 * HDU (and of the primary HDU when the image is an extension), which
 * fitsenc writes back.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=f.fits ! fitsdec ! videoconvert ! \
 *     autovideosink
 * gst-launch-1.0 multifilesrc location=frame_%05d.fits \
 *     caps=image/fits,framerate=10/1 ! fitsdec ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=gmos-n-multi.fits ! fitsdec all-hdus=true ! \
 *     fitsenc ! multifilesink location=hdu_%d.fits
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fitsio.h>

#include "gstfitsdec.h"
#include "gst/gstscifitsmeta.h"

GST_DEBUG_CATEGORY_STATIC (gst_fits_dec_debug);
#define GST_CAT_DEFAULT gst_fits_dec_debug

enum
{
  PROP_0,
  PROP_HDU,
  PROP_ALL_HDUS,
  PROP_VERIFY_CHECKSUM,
};

#define DEFAULT_HDU -1
#define DEFAULT_ALL_HDUS FALSE
#define DEFAULT_VERIFY_CHECKSUM TRUE

#define FITS_BLOCK 2880
#define FITS_CARD 80
/* Limits beyond which a file is taken as corrupt rather than allocated. */
#define MAX_HEADER_BLOCKS 10000 /* 360000 cards */
#define MAX_DATA_BYTES (G_GUINT64_CONSTANT (1) << 34)   /* 16 GiB per HDU */
#define MAX_HDUS 10000
#define MAX_DIM 65535

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("image/fits; application/fits"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/x-raw, format = (string) { GRAY8, GRAY16_LE }, "
        "width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ], "
        "framerate = (fraction) [ 0/1, MAX ]; "
        "application/x-raster, format = (string) " GST_SCI_RASTER_FORMATS ", "
        "width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ], "
        "framerate = (fraction) [ 0/1, MAX ]"));

#define gst_fits_dec_parent_class parent_class
G_DEFINE_TYPE (GstFitsDec, gst_fits_dec, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (fitsdec, "fitsdec", GST_RANK_PRIMARY,
    GST_TYPE_FITS_DEC);

/* ---- typefinder: a FITS file starts with the card "SIMPLE  =" ---- */

static void
fits_type_find (GstTypeFind * tf, gpointer unused)
{
  const guint8 *d = gst_type_find_peek (tf, 0, FITS_CARD);

  if (!d || memcmp (d, "SIMPLE  =", 9) != 0)
    return;
  /* a conforming file says T in column 30 */
  if (d[29] == 'T')
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_MAXIMUM,
        "image/fits");
  else
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_LIKELY, "image/fits");
}

gboolean
gst_fits_type_find_register (GstPlugin * plugin)
{
  GstCaps *caps = gst_caps_new_empty_simple ("image/fits");
  gboolean ret = gst_type_find_register (plugin, "image/fits",
      GST_RANK_PRIMARY, fits_type_find, "fits,fit,fts", caps, NULL, NULL);

  gst_caps_unref (caps);
  return ret;
}

/* ---- the structure of a file, from its headers only ---- */

typedef enum
{
  SCAN_NEED_MORE,
  SCAN_COMPLETE,
  SCAN_ERROR,
} ScanResult;

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

/* Walks the HDUs of the file at the start of the adapter's `avail` bytes.
 * SCAN_COMPLETE: every HDU in view is whole, the file is `*len` bytes;
 * `*definite` says whether bytes after it show that no extension follows
 * (else the file may go on).  SCAN_NEED_MORE: `*need` bytes are needed.
 * SCAN_ERROR: `*why` says what is wrong. */
static ScanResult
scan_file (GstAdapter * adapter, gsize avail, gsize * len,
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
      return SCAN_ERROR;
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
        return SCAN_COMPLETE;
      }
      gst_adapter_copy (adapter, head, off, MIN (left, 8));
      if (memcmp (head, "XTENSION", MIN (left, 8)) != 0) {
        *definite = TRUE;
        return SCAN_COMPLETE;
      }
      if (left < 8) {
        *definite = FALSE;
        return SCAN_COMPLETE;
      }
    }
    for (i = 0; i < G_N_ELEMENTS (axes); i++)
      axes[i] = -1;
    for (b = 0; !ended; b++) {
      if (b >= MAX_HEADER_BLOCKS) {
        *why = g_strdup_printf ("HDU %u: no END card in %u header blocks",
            hdu, b);
        return SCAN_ERROR;
      }
      if (off + (b + 1) * (guint64) FITS_BLOCK > avail) {
        *need = off + (b + 1) * (guint64) FITS_BLOCK;
        return SCAN_NEED_MORE;
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
            return SCAN_ERROR;
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
      return SCAN_ERROR;
    }
    if (naxis < 0 || naxis > 999) {
      *why = g_strdup_printf ("HDU %u: invalid or missing NAXIS (%"
          G_GINT64_FORMAT ")", hdu, naxis);
      return SCAN_ERROR;
    }
    if (pcount < 0 || gcount < 0 || pcount > (gint64) MAX_DATA_BYTES
        || gcount > (gint64) MAX_DATA_BYTES) {
      *why = g_strdup_printf ("HDU %u: invalid PCOUNT or GCOUNT", hdu);
      return SCAN_ERROR;
    }
    if (hdu == 0 && !random_groups)
      pcount = 0, gcount = 1;
    nelem = naxis > 0 ? 1 : 0;
    for (i = 0; i < naxis; i++) {
      if (axes[i] < 0 || axes[i] > (gint64) MAX_DATA_BYTES) {
        *why = g_strdup_printf ("HDU %u: invalid or missing NAXIS%u", hdu,
            i + 1);
        return SCAN_ERROR;
      }
      if (i == 0 && random_groups && axes[0] == 0 && naxis > 1)
        continue;
      nelem *= axes[i];
      if (nelem > MAX_DATA_BYTES) {
        *why = g_strdup_printf ("HDU %u: data larger than %" G_GUINT64_FORMAT
            " bytes", hdu, (guint64) MAX_DATA_BYTES);
        return SCAN_ERROR;
      }
    }
    data_len = (nelem + pcount) * gcount;
    if (naxis == 0 && pcount == 0)
      data_len = 0;
    if ((gcount && data_len / gcount != nelem + (guint64) pcount)
        || data_len > MAX_DATA_BYTES / 8) {
      *why = g_strdup_printf ("HDU %u: data larger than %" G_GUINT64_FORMAT
          " bytes", hdu, (guint64) MAX_DATA_BYTES);
      return SCAN_ERROR;
    }
    data_len *= ABS (bitpix) / 8;
    data_len = (data_len + FITS_BLOCK - 1) / FITS_BLOCK * FITS_BLOCK;
    if (off + header_len + data_len > avail) {
      *need = off + header_len + data_len;
      return SCAN_NEED_MORE;
    }
    off += header_len + data_len;
  }
  *why = g_strdup_printf ("more than %u HDUs", MAX_HDUS);
  return SCAN_ERROR;
}

/* ---- decoding with cfitsio ---- */

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

/* Makes a message printable ASCII in place (cfitsio quotes the bytes of
 * corrupt cards in its messages). */
static gchar *
printable (gchar * s)
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

/* Decodes one whole FITS file, pushing its image(s). */
static GstFlowReturn
decode_file (GstFitsDec * self, GstBuffer * file, GstClockTime pts)
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
  g_free (primary);
  return ret;

fail:
  GST_ELEMENT_ERROR (self, STREAM, DECODE, ("%s", title),
      ("%s", printable (why)));
  g_free (why);
  g_free (primary);
  if (f) {
    status = 0;
    fits_close_file (f, &status);
  }
  fits_clear_errmsg ();
  gst_buffer_unmap (file, &map);
  return GST_FLOW_ERROR;
}

/* Takes `len` bytes from the adapter and decodes them. */
static GstFlowReturn
take_and_decode (GstFitsDec * self, gsize len)
{
  GstClockTime pts = gst_adapter_prev_pts (self->adapter, NULL);
  GstBuffer *file = gst_adapter_take_buffer (self->adapter, len);
  GstFlowReturn ret;

  self->need = 0;
  ret = decode_file (self, file, pts);
  gst_buffer_unref (file);
  /* what follows the file: the next file, or bytes to drop */
  if (ret == GST_FLOW_OK && gst_adapter_available (self->adapter) > 0) {
    guint8 head[9];
    gsize n = MIN (gst_adapter_available (self->adapter), 9);

    gst_adapter_copy (self->adapter, head, 0, n);
    if (memcmp (head, "SIMPLE  =", n) != 0) {
      GST_WARNING_OBJECT (self, "dropping %" G_GSIZE_FORMAT " bytes after "
          "the end of the FITS file", gst_adapter_available (self->adapter));
      gst_adapter_clear (self->adapter);
      self->skipping = TRUE;
    }
  }
  return ret;
}

/* Decodes what the adapter holds: whole files, and at `eos` the rest.
 * `one_buffer`: the adapter holds exactly the one buffer that just came,
 * which is then a file of its own when its HDUs end with it. */
static GstFlowReturn
process (GstFitsDec * self, gboolean one_buffer, gboolean eos)
{
  GstFlowReturn ret = GST_FLOW_OK;

  while (ret == GST_FLOW_OK) {
    gsize avail = gst_adapter_available (self->adapter);
    gsize len = 0, need = 0;
    gboolean definite = FALSE;
    gchar *why = NULL;
    ScanResult r;

    if (avail == 0 || (!eos && avail < self->need))
      break;
    r = scan_file (self->adapter, avail, &len, &definite, &need, &why);
    if (r == SCAN_ERROR) {
      GST_ELEMENT_ERROR (self, STREAM, DECODE, ("Invalid FITS file"),
          ("%s", printable (why)));
      g_free (why);
      return GST_FLOW_ERROR;
    }
    if (r == SCAN_NEED_MORE) {
      if (eos) {
        GST_ELEMENT_ERROR (self, STREAM, DECODE, ("Truncated FITS file"),
            ("the file ends after %" G_GSIZE_FORMAT " bytes, its headers "
                "need %" G_GSIZE_FORMAT, avail, need));
        return GST_FLOW_ERROR;
      }
      self->need = need;
      break;
    }
    if (definite || eos || one_buffer) {
      ret = take_and_decode (self, len);
      one_buffer = FALSE;
    } else {
      /* an extension may follow: wait for more, or EOS */
      self->need = avail + 1;
      break;
    }
  }
  return ret;
}

static GstFlowReturn
gst_fits_dec_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstFitsDec *self = GST_FITS_DEC (parent);
  gboolean one_buffer;

  self->buffers_in++;
  /* An empty buffer where a file would start is an empty file
   * (multifilesrc reads a zero-length file so); between the pieces of a
   * file it is harmless. */
  if (gst_buffer_get_size (buf) == 0) {
    gboolean gap = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP);

    gst_buffer_unref (buf);
    if (gap || self->skipping || gst_adapter_available (self->adapter) > 0)
      return GST_FLOW_OK;
    GST_ELEMENT_ERROR (self, STREAM, DECODE, ("Empty FITS file"),
        ("an input buffer of 0 bytes where a FITS file should begin (a "
            "zero-length file?)"));
    return GST_FLOW_ERROR;
  }

  if (self->skipping) {
    GstMapInfo map;
    gboolean start;

    gst_buffer_map (buf, &map, GST_MAP_READ);
    start = map.size >= 9 && memcmp (map.data, "SIMPLE  =", 9) == 0;
    gst_buffer_unmap (buf, &map);
    if (!start) {
      GST_DEBUG_OBJECT (self, "dropping a buffer after a file's end");
      gst_buffer_unref (buf);
      return GST_FLOW_OK;
    }
    self->skipping = FALSE;
  }
  one_buffer = gst_adapter_available (self->adapter) == 0;
  if (!one_buffer && gst_buffer_get_size (buf) >= 9) {
    GstMapInfo map;

    /* a buffer that starts a new file ends the one gathered so far */
    gst_buffer_map (buf, &map, GST_MAP_READ);
    if (memcmp (map.data, "SIMPLE  =", 9) == 0) {
      GstFlowReturn ret;

      gst_buffer_unmap (buf, &map);
      ret = process (self, FALSE, TRUE);
      if (ret != GST_FLOW_OK) {
        gst_buffer_unref (buf);
        return ret;
      }
      gst_adapter_clear (self->adapter);
      one_buffer = TRUE;
    } else {
      gst_buffer_unmap (buf, &map);
    }
  }
  gst_adapter_push (self->adapter, buf);
  return process (self, one_buffer, FALSE);
}

static void
reset (GstFitsDec * self)
{
  gst_adapter_clear (self->adapter);
  self->need = 0;
  self->skipping = FALSE;
}

static gboolean
gst_fits_dec_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstFitsDec *self = GST_FITS_DEC (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      GstStructure *s;

      gst_event_parse_caps (event, &caps);
      s = gst_caps_get_structure (caps, 0);
      if (!gst_structure_get_fraction (s, "framerate", &self->fps_n,
              &self->fps_d) || self->fps_d <= 0 || self->fps_n < 0) {
        self->fps_n = 0;
        self->fps_d = 1;
      }
      gst_event_unref (event);
      return TRUE;
    }
    case GST_EVENT_SEGMENT:{
      const GstSegment *seg;

      gst_event_parse_segment (event, &seg);
      /* a time segment goes out after the caps, before the next frame:
       * upstream's, or (bytes from filesrc) one of our own */
      if (seg->format == GST_FORMAT_TIME)
        gst_segment_copy_into (seg, &self->segment);
      else
        gst_segment_init (&self->segment, GST_FORMAT_TIME);
      self->have_segment = FALSE;
      gst_event_unref (event);
      return TRUE;
    }
    case GST_EVENT_EOS:
      if (self->buffers_in == 0) {
        /* filesrc on a zero-length file sends EOS alone */
        GST_ELEMENT_ERROR (self, STREAM, DECODE, ("Empty FITS input"),
            ("the stream ended before any buffer arrived (a zero-length "
                "file?)"));
      } else if (process (self, FALSE, TRUE) != GST_FLOW_OK) {
        reset (self);
      }
      break;
    case GST_EVENT_FLUSH_STOP:
      reset (self);
      self->frames = 0;
      gst_segment_init (&self->segment, GST_FORMAT_TIME);
      self->have_segment = FALSE;
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

static GstStateChangeReturn
gst_fits_dec_change_state (GstElement * element, GstStateChange transition)
{
  GstFitsDec *self = GST_FITS_DEC (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    reset (self);
    self->fps_n = 0;
    self->fps_d = 1;
    self->frames = 0;
    self->buffers_in = 0;
    gst_segment_init (&self->segment, GST_FORMAT_TIME);
    self->have_segment = FALSE;
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    reset (self);
  return ret;
}

static void
gst_fits_dec_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstFitsDec *self = GST_FITS_DEC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_HDU:
      self->hdu = g_value_get_int (value);
      break;
    case PROP_ALL_HDUS:
      self->all_hdus = g_value_get_boolean (value);
      break;
    case PROP_VERIFY_CHECKSUM:
      self->verify_checksum = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_fits_dec_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstFitsDec *self = GST_FITS_DEC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_HDU:
      g_value_set_int (value, self->hdu);
      break;
    case PROP_ALL_HDUS:
      g_value_set_boolean (value, self->all_hdus);
      break;
    case PROP_VERIFY_CHECKSUM:
      g_value_set_boolean (value, self->verify_checksum);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_fits_dec_finalize (GObject * object)
{
  GstFitsDec *self = GST_FITS_DEC (object);

  g_object_unref (self->adapter);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_fits_dec_class_init (GstFitsDecClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_fits_dec_set_property;
  gobject_class->get_property = gst_fits_dec_get_property;
  gobject_class->finalize = gst_fits_dec_finalize;
  element_class->change_state = gst_fits_dec_change_state;

  g_object_class_install_property (gobject_class, PROP_HDU,
      g_param_spec_int ("hdu", "HDU",
          "HDU to decode, 0-based (0 = primary, 1 = first extension); -1: "
          "the first image HDU with data", -1, G_MAXINT, DEFAULT_HDU,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_ALL_HDUS,
      g_param_spec_boolean ("all-hdus", "All HDUs",
          "Output every image HDU with data as a buffer of its own, in file "
          "order (overrides hdu)", DEFAULT_ALL_HDUS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_VERIFY_CHECKSUM,
      g_param_spec_boolean ("verify-checksum", "Verify checksum",
          "Check the CHECKSUM and DATASUM cards of each decoded HDU (and of "
          "the primary HDU, whose cards an extension's frame carries) where "
          "a file has them, and refuse a file that does not match (damaged "
          "on disk or in transit); false skips the check, which costs one "
          "pass over the HDU, to salvage a damaged file or to save that "
          "pass on trusted input", DEFAULT_VERIFY_CHECKSUM,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "FITS decoder",
      "Codec/Decoder/Image", "Decodes FITS images into gray video frames "
      "(8- and 16-bit integers) or application/x-raster frames (32- and "
      "64-bit integers, floats, scaled images), header cards kept as "
      "GstSciFitsMeta", SCI_ELEMENT_AUTHOR);

  GST_DEBUG_CATEGORY_INIT (gst_fits_dec_debug, "fitsdec", 0, "FITS decoder");
}

static void
gst_fits_dec_init (GstFitsDec * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_fits_dec_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_fits_dec_sink_event));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  self->hdu = DEFAULT_HDU;
  self->all_hdus = DEFAULT_ALL_HDUS;
  self->verify_checksum = DEFAULT_VERIFY_CHECKSUM;
  self->adapter = gst_adapter_new ();
  self->fps_n = 0;
  self->fps_d = 1;
  gst_segment_init (&self->segment, GST_FORMAT_TIME);
}
