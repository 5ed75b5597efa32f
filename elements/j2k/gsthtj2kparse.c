/**
 * SECTION:element-htj2kparse
 * @title: htj2kparse
 *
 * Splits a byte stream of JPEG 2000 codestreams (`image/x-jpc`, HTJ2K or
 * Part 1, back to back as `htj2kenc ! filesink` or `ebcotcm ! filesink`
 * write them) or of JPH files (`image/x-jph`) into one buffer per
 * codestream, `image/x-jpc, parsed=true`, with the caps fields
 * `jpeg2000parse` and `openjpegdec` need (`colorspace`, `sampling`) read
 * from the codestream's main header and, for JPH, from its colr box.
 *
 * It exists so that `filesrc location=f.j2c ! decodebin` and
 * `filesrc location=f.jph ! decodebin` decode: GStreamer 1.22 has no
 * element that takes `image/x-jph`, and `jpeg2000parse`, which decodebin
 * runs in pull mode straight after the typefinder, never sees the
 * typefinder's caps there and takes every three-component codestream for
 * sRGB (4:2:0 then fails in `openjpegdec`, 4:4:4 YCbCr comes out as RGB).
 *
 * A codestream ends after the tile-parts its SOT markers count (Psot), at
 * its EOC; a last tile-part of unknown length (Psot 0) runs to the next
 * EOC.  A JPH file is its boxes up to the end of its `jp2c` box; boxes
 * after that are skipped.  A stream that does not start with a codestream
 * (or a JPH file), a main header that is not valid, a tile-part that is
 * not followed by SOT or EOC, and a stream that ends inside a codestream
 * are errors; bytes between codestreams are skipped with a warning.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=frames.j2c ! htj2kparse ! openjpegdec ! \
 *     videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=f.jph ! decodebin ! videoconvert ! \
 *     pngenc ! filesink location=f.png
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gsthtj2kparse.h"
#include "gstj2kheader.h"

GST_DEBUG_CATEGORY_STATIC (gst_htj2k_parse_debug);
#define GST_CAT_DEFAULT gst_htj2k_parse_debug

#define MARKER_SOT 0xff90
#define MARKER_EOC 0xffd9

/* SOC and the SIZ marker: where a codestream starts */
static const guint8 soc_siz[4] = { 0xff, 0x4f, 0xff, 0x51 };

static const guint8 jp2_signature[12] = {
  0x00, 0x00, 0x00, 0x0c, 'j', 'P', ' ', ' ', 0x0d, 0x0a, 0x87, 0x0a
};

#define BOX(a, b, c, d) \
  (((guint32) (a) << 24) | ((guint32) (b) << 16) | ((guint32) (c) << 8) | (d))

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("image/x-jpc; image/x-jph"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("image/x-jpc, parsed = (boolean) true"));

#define gst_htj2k_parse_parent_class parent_class
G_DEFINE_TYPE (GstHtj2kParse, gst_htj2k_parse, GST_TYPE_BASE_PARSE);
/* One above jpeg2000parse, so that decodebin plugs this first: see the
 * section comment */
GST_ELEMENT_REGISTER_DEFINE (htj2kparse, "htj2kparse", GST_RANK_PRIMARY + 1,
    GST_TYPE_HTJ2K_PARSE);

/* ---- what one call found in the data ---- */

typedef enum
{
  SCAN_FOUND,                   /* a codestream at [cs, cs + cs_len), frame_len used */
  SCAN_NEED,                    /* more data: `need` bytes in all (0: unknown) */
  SCAN_SKIP,                    /* `skip` bytes belong to no codestream */
  SCAN_ERROR,                   /* `why` (to be freed) */
} ScanResult;

typedef struct
{
  gsize cs, cs_len, frame_len, need, skip;
  gchar *why;
  GstSciJ2kHeader h;
} Scan;

static gboolean
is_soc_siz (const guint8 * d, gsize size)
{
  return size >= 4 && memcmp (d, soc_siz, 4) == 0;
}

/* The end of the codestream at `d` (SOC .. EOC). */
static ScanResult
scan_codestream (GstHtj2kParse * self, const guint8 * d, gsize size,
    gboolean draining, Scan * sc)
{
  gsize off, i;

  switch (gst_sci_j2k_header_read_data (d, size, &sc->h)) {
    case GST_SCI_J2K_COMPLETE:
      break;
    case GST_SCI_J2K_TRUNCATED:
      if (!draining)
        return SCAN_NEED;
      sc->why = g_strdup_printf ("the stream ends in the main header of a "
          "codestream (%" G_GSIZE_FORMAT " bytes of it)", size);
      return SCAN_ERROR;
    default:
      sc->why = g_strdup ("its main header is not valid (a SIZ field out of "
          "range, a marker out of place, or no COD or QCD before the first "
          "tile-part)");
      return SCAN_ERROR;
  }

  /* tile-part after tile-part, by their lengths, up to EOC */
  off = sc->h.sot;
  for (;;) {
    guint16 m;
    guint32 psot;

    if (size - off < 2)
      goto need;
    m = GST_READ_UINT16_BE (d + off);
    if (m == MARKER_EOC) {
      sc->cs = 0;
      sc->cs_len = sc->frame_len = off + 2;
      return SCAN_FOUND;
    }
    if (m != MARKER_SOT) {
      sc->why = g_strdup_printf ("byte %" G_GSIZE_FORMAT " of the codestream "
          "holds %04X where a tile-part (SOT) or the end (EOC) belongs", off,
          m);
      return SCAN_ERROR;
    }
    if (size - off < 12)
      goto need;
    psot = GST_READ_UINT32_BE (d + off + 6);
    if (GST_READ_UINT16_BE (d + off + 2) != 10 || (psot != 0 && psot < 14)) {
      sc->why = g_strdup_printf ("the SOT segment at byte %" G_GSIZE_FORMAT
          " of the codestream is not valid (Lsot %u, Psot %u)", off,
          GST_READ_UINT16_BE (d + off + 2), psot);
      return SCAN_ERROR;
    }
    if (psot == 0) {
      /* the last tile-part, of unspecified length: no FF90..FFFF occurs in
       * coded data, so the first EOC after it ends the codestream */
      for (i = MAX (off + 12, self->scan); i + 1 < size; i++) {
        if (d[i] == 0xff && d[i + 1] == 0xd9) {
          sc->cs = 0;
          sc->cs_len = sc->frame_len = i + 2;
          return SCAN_FOUND;
        }
      }
      self->scan = size - 1;
      goto need;
    }
    off += psot;
    if (off > size) {
      sc->need = off + 2;
      goto need;
    }
  }

need:
  if (!draining)
    return SCAN_NEED;
  sc->why = g_strdup_printf ("the stream ends inside a codestream (after %"
      G_GSIZE_FORMAT " bytes of it, before its EOC)", size);
  return SCAN_ERROR;
}

/* Bare codestreams, one after another. */
static ScanResult
scan_jpc (GstHtj2kParse * self, const guint8 * d, gsize size,
    gboolean draining, Scan * sc)
{
  gsize i;

  if (size < 4)
    return draining ? SCAN_SKIP : SCAN_NEED;
  if (is_soc_siz (d, size))
    return scan_codestream (self, d, size, draining, sc);
  if (self->frames == 0) {
    sc->why = g_strdup_printf ("the stream does not begin with a JPEG 2000 "
        "codestream (SOC and SIZ, FF 4F FF 51): it begins with %02X %02X "
        "%02X %02X", d[0], d[1], d[2], d[3]);
    return SCAN_ERROR;
  }
  /* resynchronise on the next codestream */
  for (i = 1; i + 4 <= size; i++)
    if (d[i] == 0xff && is_soc_siz (d + i, size - i))
      break;
  sc->skip = i + 4 <= size ? i : size - 3;
  return SCAN_SKIP;
}

/* The colr box's enumerated colour space inside a jp2h box's contents. */
static guint32
jp2h_enumcs (const guint8 * d, gsize size)
{
  gsize off = 0;

  while (size - off >= 8) {
    guint32 len = GST_READ_UINT32_BE (d + off);

    if (len < 8 || len > size - off)
      break;
    if (GST_READ_UINT32_BE (d + off + 4) == BOX ('c', 'o', 'l', 'r')
        && len >= 15 && d[off + 8] == 1)
      return GST_READ_UINT32_BE (d + off + 11);
    off += len;
  }
  return 0;
}

/* JPH files, one after another: the codestream of each one's jp2c box. */
static ScanResult
scan_jph (GstHtj2kParse * self, const guint8 * d, gsize size,
    gboolean draining, Scan * sc)
{
  gsize off = 0;

  for (;;) {
    guint64 len, hlen = 8, end;
    guint32 type;

    if (size - off < 8)
      goto need;
    len = GST_READ_UINT32_BE (d + off);
    type = GST_READ_UINT32_BE (d + off + 4);
    if (len == 1) {
      if (size - off < 16)
        goto need;
      len = GST_READ_UINT64_BE (d + off + 8);
      hlen = 16;
    }
    if (len == 0) {
      /* the box runs to the end of the file: the stream's end */
      if (!draining)
        return SCAN_NEED;
      len = size - off;
    }
    if (len < hlen) {
      sc->why = g_strdup_printf ("the box at byte %" G_GSIZE_FORMAT " of the "
          "file has a length of %" G_GUINT64_FORMAT " bytes", off, len);
      return SCAN_ERROR;
    }

    if (off == 0 && memcmp (d, jp2_signature, MIN (size, 12)) != 0) {
      if (self->frames == 0) {
        sc->why = g_strdup ("the stream does not begin with the JPEG 2000 "
            "signature box of a JPH file");
        return SCAN_ERROR;
      }
      /* a box after the last file's codestream */
      if (len > size) {
        sc->need = len;
        goto need;
      }
      sc->skip = len;
      return SCAN_SKIP;
    }
    if (len > G_MAXSIZE - off) {
      sc->why = g_strdup_printf ("the box at byte %" G_GSIZE_FORMAT " of the "
          "file claims %" G_GUINT64_FORMAT " bytes", off, len);
      return SCAN_ERROR;
    }
    end = off + len;
    /* the header and the codestream whole, any other box passed over */
    if (end > size) {
      sc->need = end;
      goto need;
    }
    if (type == BOX ('j', 'p', '2', 'h')) {
      self->enumcs = jp2h_enumcs (d + off + hlen, len - hlen);
    } else if (type == BOX ('j', 'p', '2', 'c')) {
      const guint8 *cs = d + off + hlen;
      gsize cs_size = len - hlen;
      ScanResult r;

      if (!is_soc_siz (cs, cs_size)) {
        sc->why = g_strdup ("the jp2c box does not hold a codestream (no SOC "
            "and SIZ)");
        return SCAN_ERROR;
      }
      /* the box is whole: the codestream must end in it */
      self->scan = 0;
      r = scan_codestream (self, cs, cs_size, TRUE, sc);
      if (r != SCAN_FOUND)
        return r;
      sc->cs = off + hlen;
      sc->frame_len = end;
      return SCAN_FOUND;
    }
    off = end;
  }

need:
  if (!draining)
    return SCAN_NEED;
  sc->why = g_strdup_printf ("the stream ends inside a JPH file (after %"
      G_GSIZE_FORMAT " bytes of it, before the end of its jp2c box)", size);
  return SCAN_ERROR;
}

/* The caps of a codestream: what its header says, and what upstream said
 * of the stream (rate, aspect, and its own colour fields, which win: an
 * encoder or a demuxer knows the colour space, a header only hints it). */
static GstCaps *
frame_caps (GstHtj2kParse * self, const GstSciJ2kHeader * h)
{
  GstCaps *caps = gst_caps_new_simple ("image/x-jpc",
      "parsed", G_TYPE_BOOLEAN, TRUE, NULL);
  GstStructure *s = gst_caps_get_structure (caps, 0);
  const GstStructure *up = self->upstream;
  static const gchar *const kept[] = { "framerate", "pixel-aspect-ratio" };
  guint i;

  gst_sci_j2k_header_to_structure (h, self->jph ? self->enumcs : 0, s);
  if (!up)
    return caps;
  for (i = 0; i < G_N_ELEMENTS (kept); i++)
    if (gst_structure_has_field (up, kept[i]))
      gst_structure_set_value (s, kept[i], gst_structure_get_value (up,
              kept[i]));
  if (gst_structure_has_field_typed (up, "colorspace", G_TYPE_STRING)
      && gst_structure_has_field_typed (up, "sampling", G_TYPE_STRING))
    gst_structure_set (s, "colorspace", G_TYPE_STRING,
        gst_structure_get_string (up, "colorspace"), "sampling",
        G_TYPE_STRING, gst_structure_get_string (up, "sampling"), NULL);
  return caps;
}

static GstFlowReturn
gst_htj2k_parse_handle_frame (GstBaseParse * parse, GstBaseParseFrame * frame,
    gint * skipsize)
{
  GstHtj2kParse *self = GST_HTJ2K_PARSE (parse);
  gboolean draining = GST_BASE_PARSE_DRAINING (parse);
  GstFlowReturn ret = GST_FLOW_OK;
  Scan sc = { 0 };
  ScanResult r;
  GstMapInfo map;

  if (!gst_buffer_map (frame->buffer, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL), ("cannot map input"));
    return GST_FLOW_ERROR;
  }
  /* the data says which: in pull mode (decodebin) no caps come */
  if (self->frames == 0) {
    gsize k = MIN (map.size, 12);

    self->jph = memcmp (map.data, jp2_signature, k) == 0;
    if (self->jph && k < 12 && !draining) {
      gst_buffer_unmap (frame->buffer, &map);
      gst_base_parse_set_min_frame_size (parse, 12);
      return GST_FLOW_OK;
    }
  }
  r = self->jph ? scan_jph (self, map.data, map.size, draining, &sc) :
      scan_jpc (self, map.data, map.size, draining, &sc);
  gst_buffer_unmap (frame->buffer, &map);

  switch (r) {
    case SCAN_NEED:
      /* more than what was asked for last time, or all that is known */
      gst_base_parse_set_min_frame_size (parse, MIN (sc.need ? sc.need :
              map.size + 1, G_MAXUINT));
      break;
    case SCAN_SKIP:
      if (draining && sc.skip == 0)
        sc.skip = map.size;
      GST_ELEMENT_WARNING (self, STREAM, DECODE, (NULL),
          ("skipped %" G_GSIZE_FORMAT " bytes at offset %" G_GUINT64_FORMAT
              " that belong to no %s", sc.skip, frame->offset,
              self->jph ? "JPH file" : "codestream"));
      self->skipped += sc.skip;
      self->scan = 0;
      *skipsize = sc.skip;
      break;
    case SCAN_ERROR:
      GST_ELEMENT_ERROR (self, STREAM, DECODE,
          ("Invalid JPEG 2000 %s.", self->jph ? "JPH file" : "codestream"),
          ("at offset %" G_GUINT64_FORMAT ": %s", frame->offset, sc.why));
      g_free (sc.why);
      ret = GST_FLOW_ERROR;
      break;
    case SCAN_FOUND:{
      GstCaps *caps = frame_caps (self, &sc.h);
      GstCaps *cur = gst_pad_get_current_caps (GST_BASE_PARSE_SRC_PAD (parse));

      if (!cur || !gst_caps_is_equal (cur, caps)) {
        GST_DEBUG_OBJECT (self, "caps %" GST_PTR_FORMAT, caps);
        gst_pad_set_caps (GST_BASE_PARSE_SRC_PAD (parse), caps);
      }
      gst_clear_caps (&cur);
      gst_caps_unref (caps);
      if (sc.cs != 0 || sc.cs_len != sc.frame_len)
        frame->out_buffer = gst_buffer_copy_region (frame->buffer,
            GST_BUFFER_COPY_ALL, sc.cs, sc.cs_len);
      self->frames++;
      self->scan = 0;
      self->enumcs = 0;
      gst_base_parse_set_min_frame_size (parse, 4);
      ret = gst_base_parse_finish_frame (parse, frame, sc.frame_len);
      break;
    }
  }
  return ret;
}

static gboolean
gst_htj2k_parse_set_sink_caps (GstBaseParse * parse, GstCaps * caps)
{
  GstHtj2kParse *self = GST_HTJ2K_PARSE (parse);
  GstStructure *s = gst_caps_get_structure (caps, 0);
  gint n, d;

  self->jph = gst_structure_has_name (s, "image/x-jph");
  g_clear_pointer (&self->upstream, gst_structure_free);
  self->upstream = gst_structure_copy (s);
  if (gst_structure_get_fraction (s, "framerate", &n, &d) && n > 0 && d > 0)
    gst_base_parse_set_frame_rate (parse, n, d, 0, 0);
  return TRUE;
}

static gboolean
gst_htj2k_parse_start (GstBaseParse * parse)
{
  GstHtj2kParse *self = GST_HTJ2K_PARSE (parse);

  self->enumcs = 0;
  self->scan = 0;
  self->frames = 0;
  self->skipped = 0;
  gst_base_parse_set_min_frame_size (parse, 4);
  return TRUE;
}

static gboolean
gst_htj2k_parse_stop (GstBaseParse * parse)
{
  GstHtj2kParse *self = GST_HTJ2K_PARSE (parse);

  g_clear_pointer (&self->upstream, gst_structure_free);
  self->jph = FALSE;
  return TRUE;
}

static void
gst_htj2k_parse_class_init (GstHtj2kParseClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseParseClass *parse_class = GST_BASE_PARSE_CLASS (klass);

  parse_class->start = GST_DEBUG_FUNCPTR (gst_htj2k_parse_start);
  parse_class->stop = GST_DEBUG_FUNCPTR (gst_htj2k_parse_stop);
  parse_class->set_sink_caps =
      GST_DEBUG_FUNCPTR (gst_htj2k_parse_set_sink_caps);
  parse_class->handle_frame = GST_DEBUG_FUNCPTR (gst_htj2k_parse_handle_frame);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "JPEG 2000 codestream and JPH parser", "Codec/Parser/Image",
      "Splits JPEG 2000 codestreams (HTJ2K or Part 1) and JPH files into one "
      "image/x-jpc buffer a codestream, with colorspace and sampling from "
      "the headers", SCI_ELEMENT_AUTHOR);

  GST_DEBUG_CATEGORY_INIT (gst_htj2k_parse_debug, "htj2kparse", 0,
      "JPEG 2000 codestream and JPH parser");
}

static void
gst_htj2k_parse_init (GstHtj2kParse * self)
{
  GST_PAD_SET_ACCEPT_INTERSECT (GST_BASE_PARSE_SINK_PAD (self));
  GST_PAD_SET_ACCEPT_TEMPLATE (GST_BASE_PARSE_SINK_PAD (self));
}
