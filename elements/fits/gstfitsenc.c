/**
 * SECTION:element-fitsenc
 * @title: fitsenc
 *
 * Writes each GRAY8 or GRAY16_LE video frame, or application/x-raster
 * frame, as one complete FITS file (image/fits): a primary HDU holding the
 * image, BITPIX 8, or BITPIX 16 with BZERO 32768 (unsigned 16-bit), or the
 * BITPIX of the raster format (with BZERO and BSCALE from its caps), padded
 * to 2880-byte blocks.  Frames whose caps say `sample-offset=32768` (signed
 * images from fitsdec) are written as signed BITPIX 16 without BZERO.  Row
 * 0 of the frame is the first row stored.
 *
 * The header cards of a #GstSciFitsMeta on the frame (from fitsdec) are
 * written after the structural cards the element writes itself (SIMPLE,
 * XTENSION, BITPIX, NAXIS*, BZERO, BSCALE, EXTEND, PCOUNT, GCOUNT) and a
 * CHECKSUM and DATASUM of its own (the meta's are stale); damaged cards
 * are dropped with a warning message; without the meta the header is the
 * structural cards and the sums alone.  With `extension=true`
 * the file is an empty primary HDU (with the cards of the meta's primary
 * header) followed by the image as an IMAGE extension.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=10 ! \
 *     video/x-raw,format=GRAY16_LE,width=288,height=132 ! fitsenc ! \
 *     multifilesink location=frame_%05d.fits
 * gst-launch-1.0 filesrc location=in.fits ! fitsdec ! fitsenc ! \
 *     filesink location=out.fits
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstfitsenc.h"
#include "gst/gstscifitsmeta.h"

GST_DEBUG_CATEGORY_STATIC (gst_fits_enc_debug);
#define GST_CAT_DEFAULT gst_fits_enc_debug

enum
{
  PROP_0,
  PROP_EXTENSION,
  PROP_CHECKSUM,
};

#define DEFAULT_EXTENSION FALSE
#define DEFAULT_CHECKSUM TRUE
#define FITS_BLOCK 2880
#define FITS_CARD 80

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/x-raw, format = (string) { GRAY8, GRAY16_LE }, "
        "width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ], "
        "framerate = (fraction) [ 0/1, MAX ]; "
        "application/x-raster, format = (string) " GST_SCI_RASTER_FORMATS ", "
        "width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ]"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("image/fits"));

#define gst_fits_enc_parent_class parent_class
G_DEFINE_TYPE (GstFitsEnc, gst_fits_enc, GST_TYPE_ELEMENT);
/* rank none: an encoder is chosen by the user, never autoplugged */
GST_ELEMENT_REGISTER_DEFINE (fitsenc, "fitsenc", GST_RANK_NONE,
    GST_TYPE_FITS_ENC);

/* ---- header cards ---- */

/* Appends a card, padded with spaces to 80 characters. */
static void
add_card (GString * h, const gchar * card)
{
  gsize n = MIN (strlen (card), FITS_CARD);

  g_string_append_len (h, card, n);
  for (; n < FITS_CARD; n++)
    g_string_append_c (h, ' ');
}

/* A fixed-format card: the value right-justified to column 30. */
static void
add_value (GString * h, const gchar * key, const gchar * value,
    const gchar * comment)
{
  gchar *card = g_strdup_printf ("%-8.8s= %20s / %s", key, value, comment);

  add_card (h, card);
  g_free (card);
}

static void
add_int (GString * h, const gchar * key, gint64 value, const gchar * comment)
{
  gchar v[32];

  g_snprintf (v, sizeof (v), "%" G_GINT64_FORMAT, value);
  add_value (h, key, v, comment);
}

/* Whether a card may be copied: printable ASCII, a keyword of A-Z, 0-9,
 * '-' and '_' padded with spaces. */
static gboolean
card_is_valid (const gchar * card)
{
  guint i;
  gboolean pad = FALSE;

  for (i = 0; i < FITS_CARD; i++)
    if (card[i] < 32 || card[i] > 126)
      return FALSE;
  for (i = 0; i < 8; i++) {
    gchar c = card[i];

    if (c == ' ')
      pad = TRUE;
    else if (pad || !(g_ascii_isupper (c) || g_ascii_isdigit (c) || c == '-'
            || c == '_'))
      return FALSE;
  }
  return TRUE;
}

/* Appends the non-structural cards of a meta header string (`which`
 * names it in messages).  A damaged card is dropped, and the user told
 * which: a warning message names every card dropped from the header. */
static void
add_cards (GstFitsEnc * self, GString * h, const gchar * cards,
    const gchar * which)
{
  guint i, dropped = 0, n = gst_sci_fits_header_n_cards (cards);
  GString *list = NULL;

  for (i = 0; i < n; i++) {
    const gchar *card = cards + i * FITS_CARD;

    if (gst_sci_fits_card_is_structural (card))
      continue;
    if (!card_is_valid (card)) {
      gchar shown[FITS_CARD + 1];
      guint k;

      /* the card as text, its bytes outside printable ASCII as '?' */
      for (k = 0; k < FITS_CARD; k++)
        shown[k] = card[k] >= 32 && card[k] <= 126 ? card[k] : '?';
      while (k > 0 && shown[k - 1] == ' ')
        k--;
      shown[k] = '\0';
      if (!list)
        list = g_string_new (NULL);
      g_string_append_printf (list, "%scard %u: '%s'", dropped ? "; " : "",
          i + 1, shown);
      dropped++;
      continue;
    }
    g_string_append_len (h, card, FITS_CARD);
  }
  if (list) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("Dropped %u damaged FITS header card(s) of the %s header", dropped,
            which), ("not valid FITS (printable ASCII, keyword of A-Z, 0-9, "
            "'-', '_'): %s", list->str));
    g_string_free (list, TRUE);
  }
}

/* Ends a header: END and spaces to the block. */
static void
end_header (GString * h)
{
  add_card (h, "END");
  while (h->len % FITS_BLOCK)
    g_string_append_c (h, ' ');
}

/* ---- the checksum convention of the FITS 4.0 standard ---- */

/* `sum` plus the 32-bit big-endian words of `p` (`len` a multiple of 4),
 * in ones' complement (the carries out of bit 31 wrap around). */
static guint32
ones_sum (guint32 sum, const guint8 * p, gsize len)
{
  guint64 acc = sum;
  gsize i;

  for (i = 0; i + 4 <= len; i += 4) {
    acc += (guint32) p[i] << 24 | (guint32) p[i + 1] << 16 |
        (guint32) p[i + 2] << 8 | p[i + 3];
    /* fold well before 2^64 */
    if ((i & (((gsize) 1 << 30) - 1)) == 0)
      acc = (acc & 0xffffffffu) + (acc >> 32);
  }
  while (acc >> 32)
    acc = (acc & 0xffffffffu) + (acc >> 32);
  return (guint32) acc;
}

/* The 16 characters of a CHECKSUM value for a HDU whose sum, with the
 * value's characters all '0', is `sum`: they add the complement of `sum`
 * (less the '0's), so the HDU then sums to -0 (all ones).  Each byte of
 * the complement is spread over four characters of '0' plus a quarter of
 * it (the first also takes the remainder), which keeps the byte in its own
 * position of the 32-bit words; pairs are moved one up and one down (the
 * sum stays) until none is punctuation between the digits and the
 * letters.  The value starts at byte 11 of its card, so the characters are
 * rotated by one to fall in their bytes' positions. */
static void
checksum_encode (guint32 sum, gchar out[16])
{
  guint32 value = ~sum;
  guint8 chars[16];
  guint i, j;

  for (i = 0; i < 4; i++) {
    guint byte = (value >> (24 - 8 * i)) & 0xff;
    guint8 c[4];
    gboolean moved = TRUE;

    c[0] = c[1] = c[2] = c[3] = '0' + byte / 4;
    c[0] += byte % 4;
    while (moved) {
      moved = FALSE;
      for (j = 0; j < 4; j += 2) {
        gboolean bad_a = (c[j] > '9' && c[j] < 'A') || (c[j] > 'Z'
            && c[j] < 'a');
        gboolean bad_b = (c[j + 1] > '9' && c[j + 1] < 'A') || (c[j + 1] > 'Z'
            && c[j + 1] < 'a');

        if (bad_a || bad_b) {
          c[j]++;
          c[j + 1]--;
          moved = TRUE;
        }
      }
    }
    for (j = 0; j < 4; j++)
      chars[4 * j + i] = c[j];
  }
  for (i = 0; i < 16; i++)
    out[i] = chars[(i + 15) % 16];
}

#define CHECKSUM_CARD "CHECKSUM= '0000000000000000'   / HDU checksum (FITS " \
  "checksum convention)"
#define CHECKSUM_AT 11          /* the value's first character in its card */

/* The DATASUM card for a data unit summing to `sum`. */
static void
add_datasum (GString * h, guint32 sum)
{
  gchar v[16], *card;

  g_snprintf (v, sizeof (v), "%u", sum);
  card = g_strdup_printf ("DATASUM = '%-8s'           / data unit checksum", v);
  add_card (h, card);
  g_free (card);
}

/* Completes the CHECKSUM card at `ck` (an offset in the header `h` of a
 * HDU whose data unit sums to `datasum`). */
static void
seal_header (GString * h, gsize ck, guint32 datasum)
{
  guint32 sum = ones_sum (0, (const guint8 *) h->str, h->len);
  guint64 acc = (guint64) sum + datasum;

  acc = (acc & 0xffffffffu) + (acc >> 32);
  checksum_encode ((guint32) acc, h->str + ck + CHECKSUM_AT);
}

/* ---- frames ---- */

/* Writes `n` little-endian samples of `bytes` at `src` as big-endian
 * stored values, each XOR `flip` (the sign bit of the unsigned and signed
 * byte conventions); floats go through as bit patterns. */
static void
samples_to_stored (guint8 * dst, const guint8 * src, gsize n, guint bytes,
    guint64 flip)
{
  gsize i;
  guint k;

  for (i = 0; i < n; i++) {
    guint64 v = 0;

    for (k = 0; k < bytes; k++)
      v |= (guint64) src[i * bytes + k] << (8 * k);
    v ^= flip;
    for (k = 0; k < bytes; k++)
      dst[i * bytes + k] = (v >> (8 * (bytes - 1 - k))) & 0xff;
  }
}

/* Fills `dst` with the stored values of the frame `in`; FALSE (and an
 * error posted) when it is smaller than the caps say. */
static gboolean
write_data (GstFitsEnc * self, GstBuffer * in, guint8 * dst)
{
  gsize row_len = (gsize) self->width * self->bytes;
  gint y;

  if (self->raster) {
    GstMapInfo map;
    gsize need = row_len * self->height;

    if (!gst_buffer_map (in, &map, GST_MAP_READ))
      return FALSE;
    if (map.size < need) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
          ("a raster frame of %" G_GSIZE_FORMAT " bytes, its caps (%d x %d "
              "of %u bytes) need %" G_GSIZE_FORMAT, map.size, self->width,
              self->height, self->bytes, need));
      gst_buffer_unmap (in, &map);
      return FALSE;
    }
    samples_to_stored (dst, map.data, (gsize) self->width * self->height,
        self->bytes, self->flip);
    gst_buffer_unmap (in, &map);
  } else {
    GstVideoFrame frame;

    if (!gst_video_frame_map (&frame, &self->info, in, GST_MAP_READ)) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
          ("cannot map the input frame (smaller than the caps say?)"));
      return FALSE;
    }
    for (y = 0; y < self->height; y++)
      samples_to_stored (dst + y * row_len,
          (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), self->width,
          self->bytes, self->flip);
    gst_video_frame_unmap (&frame);
  }
  return TRUE;
}

static GstFlowReturn
gst_fits_enc_chain (GstPad * pad, GstObject * parent, GstBuffer * in)
{
  GstFitsEnc *self = GST_FITS_ENC (parent);
  GstSciFitsMeta *meta;
  GstBuffer *out;
  GString *p = NULL, *h;
  gboolean extension, checksum;
  gsize data_len, padded, p_ck = 0, h_ck = 0, h_ds = 0, plen;
  GstMapInfo map;
  guint8 *dst;

  if (!self->have_info) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("no caps before the first frame"));
    gst_buffer_unref (in);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  GST_OBJECT_LOCK (self);
  extension = self->extension;
  checksum = self->checksum;
  GST_OBJECT_UNLOCK (self);
  meta = gst_buffer_get_sci_fits_meta (in);

  if (extension) {
    p = g_string_sized_new (FITS_BLOCK);
    add_value (p, "SIMPLE", "T", "conforms to the FITS standard");
    add_int (p, "BITPIX", 8, "no data in the primary HDU");
    add_int (p, "NAXIS", 0, "no data in the primary HDU");
    add_value (p, "EXTEND", "T", "an image extension follows");
    if (checksum) {
      p_ck = p->len;
      add_card (p, CHECKSUM_CARD);
      add_datasum (p, 0);
    }
    if (meta && meta->primary_header)
      add_cards (self, p, meta->primary_header, "primary");
    end_header (p);
  }
  h = g_string_sized_new (2 * FITS_BLOCK);
  if (extension)
    /* a mandatory string: its quote in column 11 */
    add_card (h, "XTENSION= 'IMAGE   '           / image extension");
  else
    add_value (h, "SIMPLE", "T", "conforms to the FITS standard");
  add_int (h, "BITPIX", self->bitpix, self->bitpix < 0 ? "IEEE floats" :
      "integers");
  add_int (h, "NAXIS", 2, "two-dimensional image");
  add_int (h, "NAXIS1", self->width, "width (samples per row)");
  add_int (h, "NAXIS2", self->height, "height (rows)");
  if (extension) {
    add_int (h, "PCOUNT", 0, "no parameters");
    add_int (h, "GCOUNT", 1, "one group");
  }
  if (self->write_scaling) {
    add_value (h, "BZERO", self->bzero, "value = BZERO + BSCALE * stored");
    add_value (h, "BSCALE", self->bscale, "value = BZERO + BSCALE * stored");
  }
  if (checksum) {
    h_ck = h->len;
    add_card (h, CHECKSUM_CARD);
    h_ds = h->len;
    add_datasum (h, 0);
  }
  if (meta)
    add_cards (self, h, meta->header, "frame's");
  end_header (h);

  plen = p ? p->len : 0;
  data_len = (gsize) self->width * self->height * self->bytes;
  padded = (data_len + FITS_BLOCK - 1) / FITS_BLOCK * FITS_BLOCK;
  out = gst_buffer_new_allocate (NULL, plen + h->len + padded, NULL);
  gst_buffer_map (out, &map, GST_MAP_WRITE);
  dst = map.data + plen + h->len;
  memset (dst + data_len, 0, padded - data_len);
  if (!write_data (self, in, dst)) {
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    if (p)
      g_string_free (p, TRUE);
    g_string_free (h, TRUE);
    return GST_FLOW_ERROR;
  }
  if (checksum) {
    guint32 datasum = ones_sum (0, dst, padded);
    GString *card = g_string_new (NULL);

    add_datasum (card, datasum);
    memcpy (h->str + h_ds, card->str, FITS_CARD);
    g_string_free (card, TRUE);
    seal_header (h, h_ck, datasum);
    if (p)
      seal_header (p, p_ck, 0);
  }
  if (p) {
    memcpy (map.data, p->str, plen);
    g_string_free (p, TRUE);
  }
  memcpy (map.data + plen, h->str, h->len);
  g_string_free (h, TRUE);
  gst_buffer_unmap (out, &map);

  gst_buffer_copy_into (out, in, GST_BUFFER_COPY_TIMESTAMPS |
      GST_BUFFER_COPY_FLAGS, 0, -1);
  gst_buffer_unref (in);
  return gst_pad_push (self->srcpad, out);
}

/* A BZERO or BSCALE value as a FITS real: the shortest text that reads
 * back as the same double, with an upper-case exponent. */
static void
format_real (gchar * buf, gsize len, gdouble v)
{
  gchar *e;

  g_ascii_dtostr (buf, len, v);
  if ((e = strchr (buf, 'e')))
    *e = 'E';
  else if (!strchr (buf, '.') && !strchr (buf, 'E')
      && strlen (buf) + 2 < len)
    strcat (buf, ".0");
}

static gboolean
gst_fits_enc_set_caps (GstFitsEnc * self, GstCaps * caps)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  GstCaps *out;
  gint fps_n = 0, fps_d = 1;
  gboolean ret;

  self->have_info = FALSE;
  self->write_scaling = FALSE;
  if (gst_structure_has_name (s, "application/x-raster")) {
    const GstSciRasterFormat *fmt =
        gst_sci_raster_format_from_string (gst_structure_get_string (s,
            "format"));
    gdouble bzero = 0.0, bscale = 1.0;
    gboolean has_z = gst_structure_get_double (s, "bzero", &bzero);
    gboolean has_s = gst_structure_get_double (s, "bscale", &bscale);

    if (!fmt || !gst_structure_get_int (s, "width", &self->width)
        || !gst_structure_get_int (s, "height", &self->height))
      return FALSE;
    if (!isfinite (bzero) || !isfinite (bscale) || bscale == 0.0) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
          ("bzero=%g bscale=%g: the scaling must be finite and bscale not 0",
              bzero, bscale));
      return FALSE;
    }
    if ((has_z || has_s) && (bzero != 0.0 || bscale != 1.0) && fmt->flip) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
          ("format %s with bzero=%g bscale=%g: scaling is written only for "
              "the formats of stored values (U8, S16LE, S32LE, S64LE, F32LE, "
              "F64LE)", fmt->format, bzero, bscale));
      return FALSE;
    }
    self->raster = TRUE;
    self->bitpix = fmt->bitpix;
    self->bytes = fmt->bytes;
    self->flip = fmt->flip;
    if (fmt->flip) {
      /* the BZERO of the convention, an integer */
      self->write_scaling = TRUE;
      g_snprintf (self->bzero, sizeof (self->bzero), "%.0f", fmt->bzero);
      g_strlcpy (self->bscale, "1", sizeof (self->bscale));
    } else if (bzero != 0.0 || bscale != 1.0) {
      self->write_scaling = TRUE;
      format_real (self->bzero, sizeof (self->bzero), bzero);
      format_real (self->bscale, sizeof (self->bscale), bscale);
    }
    gst_structure_get_fraction (s, "framerate", &fps_n, &fps_d);
  } else {
    gint offset = 0;

    if (!gst_video_info_from_caps (&self->info, caps))
      return FALSE;
    if (gst_structure_get_int (s, "sample-offset", &offset) && offset != 0
        && (offset != 32768
            || GST_VIDEO_INFO_FORMAT (&self->info) !=
            GST_VIDEO_FORMAT_GRAY16_LE)) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
          ("sample-offset=%d: only 0, or 32768 with GRAY16_LE (signed "
              "16-bit), can be written", offset));
      return FALSE;
    }
    self->raster = FALSE;
    self->width = GST_VIDEO_INFO_WIDTH (&self->info);
    self->height = GST_VIDEO_INFO_HEIGHT (&self->info);
    if (GST_VIDEO_INFO_FORMAT (&self->info) == GST_VIDEO_FORMAT_GRAY8) {
      self->bitpix = 8;
      self->bytes = 1;
      self->flip = 0;
    } else {
      /* stored = sample - 32768: the unsigned value with BZERO 32768, or
       * the signed value when sample-offset is 32768 */
      self->bitpix = 16;
      self->bytes = 2;
      self->flip = 0x8000;
      if (offset == 0) {
        self->write_scaling = TRUE;
        g_strlcpy (self->bzero, "32768", sizeof (self->bzero));
        g_strlcpy (self->bscale, "1", sizeof (self->bscale));
      }
    }
    fps_n = GST_VIDEO_INFO_FPS_N (&self->info);
    fps_d = GST_VIDEO_INFO_FPS_D (&self->info);
  }
  self->have_info = TRUE;
  out = gst_caps_new_simple ("image/fits", "framerate", GST_TYPE_FRACTION,
      fps_n, fps_d, NULL);
  GST_DEBUG_OBJECT (self, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps, out);
  ret = gst_pad_set_caps (self->srcpad, out);
  gst_caps_unref (out);
  return ret;
}

static gboolean
gst_fits_enc_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstFitsEnc *self = GST_FITS_ENC (parent);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps;
    gboolean ret;

    gst_event_parse_caps (event, &caps);
    ret = gst_fits_enc_set_caps (self, caps);
    gst_event_unref (event);
    return ret;
  }
  return gst_pad_event_default (pad, parent, event);
}

static GstStateChangeReturn
gst_fits_enc_change_state (GstElement * element, GstStateChange transition)
{
  GstFitsEnc *self = GST_FITS_ENC (element);
  GstStateChangeReturn ret;

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    self->have_info = FALSE;
  return ret;
}

static void
gst_fits_enc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstFitsEnc *self = GST_FITS_ENC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_EXTENSION:
      self->extension = g_value_get_boolean (value);
      break;
    case PROP_CHECKSUM:
      self->checksum = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_fits_enc_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstFitsEnc *self = GST_FITS_ENC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_EXTENSION:
      g_value_set_boolean (value, self->extension);
      break;
    case PROP_CHECKSUM:
      g_value_set_boolean (value, self->checksum);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_fits_enc_class_init (GstFitsEncClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_fits_enc_set_property;
  gobject_class->get_property = gst_fits_enc_get_property;
  element_class->change_state = gst_fits_enc_change_state;

  g_object_class_install_property (gobject_class, PROP_EXTENSION,
      g_param_spec_boolean ("extension", "Extension",
          "Write an empty primary HDU (holding the cards of the meta's "
          "primary header) and the image as an IMAGE extension, instead of "
          "the image in the primary HDU", DEFAULT_EXTENSION,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_CHECKSUM,
      g_param_spec_boolean ("checksum", "Checksum",
          "Write CHECKSUM and DATASUM cards in every HDU (the FITS checksum "
          "convention), with which fitsdec, cfitsio and fitsverify detect a "
          "damaged file; costs one pass over the frame.  false writes none "
          "(stale ones of the meta are dropped either way)", DEFAULT_CHECKSUM,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "FITS encoder",
      "Codec/Encoder/Image", "Writes each gray video frame or "
      "application/x-raster frame as a FITS file, with the header cards of "
      "its GstSciFitsMeta and a checksum", SCI_ELEMENT_AUTHOR);

  GST_DEBUG_CATEGORY_INIT (gst_fits_enc_debug, "fitsenc", 0, "FITS encoder");
}

static void
gst_fits_enc_init (GstFitsEnc * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_fits_enc_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_fits_enc_sink_event));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  self->extension = DEFAULT_EXTENSION;
  self->checksum = DEFAULT_CHECKSUM;
}
