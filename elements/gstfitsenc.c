/**
 * SECTION:element-fitsenc
 * @title: fitsenc
 *
 * Writes each GRAY8 or GRAY16_LE video frame as one complete FITS file
 * (image/fits): a primary HDU holding the image, BITPIX 8, or BITPIX 16
 * with BZERO 32768 (unsigned 16-bit), padded to 2880-byte blocks.  Frames
 * whose caps say `sample-offset=32768` (signed images from fitsdec) are
 * written as signed BITPIX 16 without BZERO.  Row 0 of the frame is the
 * first row stored.
 *
 * The header cards of a #GstSciFitsMeta on the frame (from fitsdec) are
 * written after the structural cards the element writes itself (SIMPLE,
 * XTENSION, BITPIX, NAXIS*, BZERO, BSCALE, EXTEND, PCOUNT, GCOUNT; CHECKSUM
 * and DATASUM, stale once the header changes, are dropped); without the
 * meta the header is the structural cards alone.  With `extension=true`
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

#include <string.h>

#include "gstfitsenc.h"
#include "gstscifitsmeta.h"

GST_DEBUG_CATEGORY_STATIC (gst_fits_enc_debug);
#define GST_CAT_DEFAULT gst_fits_enc_debug

enum
{
  PROP_0,
  PROP_EXTENSION,
};

#define DEFAULT_EXTENSION FALSE
#define FITS_BLOCK 2880
#define FITS_CARD 80

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/x-raw, format = (string) { GRAY8, GRAY16_LE }, "
        "width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ], "
        "framerate = (fraction) [ 0/1, MAX ]"));

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

/* ---- frames ---- */

static GstFlowReturn
gst_fits_enc_chain (GstPad * pad, GstObject * parent, GstBuffer * in)
{
  GstFitsEnc *self = GST_FITS_ENC (parent);
  GstSciFitsMeta *meta;
  GstVideoFrame frame;
  GstBuffer *out;
  GString *h;
  gboolean gray8, extension;
  gint width, height, x, y;
  gsize data_len, padded, hlen;
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
  GST_OBJECT_UNLOCK (self);

  gray8 = GST_VIDEO_INFO_FORMAT (&self->info) == GST_VIDEO_FORMAT_GRAY8;
  width = GST_VIDEO_INFO_WIDTH (&self->info);
  height = GST_VIDEO_INFO_HEIGHT (&self->info);
  meta = gst_buffer_get_sci_fits_meta (in);

  h = g_string_sized_new (2 * FITS_BLOCK);
  if (extension) {
    add_value (h, "SIMPLE", "T", "conforms to the FITS standard");
    add_int (h, "BITPIX", 8, "no data in the primary HDU");
    add_int (h, "NAXIS", 0, "no data in the primary HDU");
    add_value (h, "EXTEND", "T", "an image extension follows");
    if (meta && meta->primary_header)
      add_cards (self, h, meta->primary_header, "primary");
    end_header (h);
    add_value (h, "XTENSION", "'IMAGE   '", "image extension");
  } else {
    add_value (h, "SIMPLE", "T", "conforms to the FITS standard");
  }
  add_int (h, "BITPIX", gray8 ? 8 : 16, gray8 ? "8-bit unsigned integers" :
      "16-bit integers");
  add_int (h, "NAXIS", 2, "two-dimensional image");
  add_int (h, "NAXIS1", width, "width (samples per row)");
  add_int (h, "NAXIS2", height, "height (rows)");
  if (extension) {
    add_int (h, "PCOUNT", 0, "no parameters");
    add_int (h, "GCOUNT", 1, "one group");
  }
  if (!gray8 && self->sample_offset == 0) {
    add_int (h, "BZERO", 32768, "unsigned 16-bit: value = stored + 32768");
    add_int (h, "BSCALE", 1, "no scaling");
  }
  if (meta)
    add_cards (self, h, meta->header, "frame's");
  end_header (h);
  hlen = h->len;

  data_len = (gsize) width *height * (gray8 ? 1 : 2);
  padded = (data_len + FITS_BLOCK - 1) / FITS_BLOCK * FITS_BLOCK;
  out = gst_buffer_new_allocate (NULL, hlen + padded, NULL);
  gst_buffer_map (out, &map, GST_MAP_WRITE);
  memcpy (map.data, h->str, hlen);
  g_string_free (h, TRUE);
  dst = map.data + hlen;
  memset (dst + data_len, 0, padded - data_len);

  if (!gst_video_frame_map (&frame, &self->info, in, GST_MAP_READ)) {
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
        ("cannot map the input frame (smaller than the caps say?)"));
    return GST_FLOW_ERROR;
  }
  for (y = 0; y < height; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
        0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);

    if (gray8) {
      memcpy (dst + (gsize) y * width, row, width);
    } else {
      guint8 *d = dst + (gsize) y * width * 2;

      /* stored = sample - 32768, big-endian: the unsigned value with
       * BZERO 32768, or the signed value when sample-offset is 32768 */
      for (x = 0; x < width; x++)
        GST_WRITE_UINT16_BE (d + 2 * x, GST_READ_UINT16_LE (row + 2 * x)
            ^ 0x8000);
    }
  }
  gst_video_frame_unmap (&frame);
  gst_buffer_unmap (out, &map);

  gst_buffer_copy_into (out, in, GST_BUFFER_COPY_TIMESTAMPS |
      GST_BUFFER_COPY_FLAGS, 0, -1);
  gst_buffer_unref (in);
  return gst_pad_push (self->srcpad, out);
}

static gboolean
gst_fits_enc_set_caps (GstFitsEnc * self, GstCaps * caps)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  GstCaps *out;
  gint offset = 0;
  gboolean ret;

  if (!gst_video_info_from_caps (&self->info, caps))
    return FALSE;
  if (gst_structure_get_int (s, "sample-offset", &offset) && offset != 0
      && (offset != 32768
          || GST_VIDEO_INFO_FORMAT (&self->info) != GST_VIDEO_FORMAT_GRAY16_LE))
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("sample-offset=%d: only 0, or 32768 with GRAY16_LE (signed 16-bit), "
            "can be written", offset));
    return FALSE;
  }
  self->sample_offset = offset;
  self->have_info = TRUE;
  out = gst_caps_new_simple ("image/fits", "framerate", GST_TYPE_FRACTION,
      GST_VIDEO_INFO_FPS_N (&self->info), GST_VIDEO_INFO_FPS_D (&self->info),
      NULL);
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

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "FITS encoder",
      "Codec/Encoder/Image", "Writes each gray video frame as a FITS file, "
      "with the header cards of its GstSciFitsMeta", "gst-scicodec");

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
}
