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
#include "gstfitsfile.h"
#include "gst/gstscifitsmeta.h"

GST_DEBUG_CATEGORY (gst_fits_dec_debug);
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

static GstFlowReturn
take_and_decode (GstFitsDec * self, gsize len)
{
  GstClockTime pts = gst_adapter_prev_pts (self->adapter, NULL);
  GstBuffer *file = gst_adapter_take_buffer (self->adapter, len);
  GstFlowReturn ret;

  self->need = 0;
  ret = gst_fits_dec_decode_file (self, file, pts);
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
    GstFitsScanResult r;

    if (avail == 0 || (!eos && avail < self->need))
      break;
    r = gst_fits_scan_file (self->adapter, avail, &len, &definite, &need, &why);
    if (r == GST_FITS_SCAN_ERROR) {
      GST_ELEMENT_ERROR (self, STREAM, DECODE, ("Invalid FITS file"),
          ("%s", gst_fits_printable (why)));
      g_free (why);
      /* the EOS that follows the error must not parse them again */
      gst_adapter_clear (self->adapter);
      return GST_FLOW_ERROR;
    }
    if (r == GST_FITS_SCAN_NEED_MORE) {
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
