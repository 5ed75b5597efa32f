/*
 * Typefinders for JPEG 2000 codestreams and JPH files (see gstj2ktypefind.h
 * and docs/elements.md, "Typefinding and decodebin").
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstj2kheader.h"
#include "gstj2ktypefind.h"

static const guint8 *
tf_peek (gpointer ctx, guint64 offset, guint size)
{
  if (offset > G_MAXINT64)
    return NULL;
  return gst_type_find_peek ((GstTypeFind *) ctx, (gint64) offset, size);
}

/* ---- image/x-jpc: SOC, a valid SIZ, the main header up to SOT ---- */

static void
jpc_type_find (GstTypeFind * tf, gpointer unused)
{
  GstSciJ2kHeader h;
  GstTypeFindProbability p;
  GstCaps *caps;

  switch (gst_sci_j2k_header_read (tf_peek, tf, 0, &h)) {
    case GST_SCI_J2K_COMPLETE:
      p = GST_TYPE_FIND_MAXIMUM;
      break;
    case GST_SCI_J2K_TRUNCATED:
      /* the start of a file, or one cut short: jpeg2000parse decides */
      p = h.have_cod && h.have_qcd ? GST_TYPE_FIND_NEARLY_CERTAIN :
          GST_TYPE_FIND_LIKELY;
      break;
    case GST_SCI_J2K_DAMAGED:
      p = GST_TYPE_FIND_POSSIBLE;
      break;
    default:
      return;
  }
  caps = gst_caps_new_empty_simple ("image/x-jpc");
  gst_sci_j2k_header_to_structure (&h, 0, gst_caps_get_structure (caps, 0));
  gst_type_find_suggest (tf, p, caps);
  gst_caps_unref (caps);
}

/* ---- image/x-jph: the JP2 signature box, then ftyp with brand "jph " ---- */

static const guint8 jp2_signature[12] = {
  0x00, 0x00, 0x00, 0x0c, 'j', 'P', ' ', ' ', 0x0d, 0x0a, 0x87, 0x0a
};

/* Boxes followed at one level before giving up on the fields. */
#define MAX_BOXES 64

/* A box header at `off`: its type, where its contents start and its
 * length (0: to the end of the data); FALSE where it cannot be read or is
 * shorter than its own header. */
static gboolean
box_header (GstTypeFind * tf, guint64 off, guint32 * type, guint64 * start,
    guint64 * len)
{
  const guint8 *d = tf_peek (tf, off, 8);
  guint64 l;

  if (!d)
    return FALSE;
  l = GST_READ_UINT32_BE (d);
  *type = GST_READ_UINT32_BE (d + 4);
  *start = off + 8;
  if (l == 1) {
    d = tf_peek (tf, off + 8, 8);
    if (!d)
      return FALSE;
    l = GST_READ_UINT64_BE (d);
    *start = off + 16;
    if (l < 16)
      return FALSE;
  } else if (l != 0 && l < 8) {
    return FALSE;
  }
  *len = l;
  return TRUE;
}

#define BOX(a, b, c, d) \
  (((guint32) (a) << 24) | ((guint32) (b) << 16) | ((guint32) (c) << 8) | (d))

static void
jph_type_find (GstTypeFind * tf, gpointer unused)
{
  const guint8 *d = tf_peek (tf, 0, 24);
  GstSciJ2kHeader h;
  gboolean have_siz = FALSE, have_ihdr = FALSE;
  guint32 enumcs = 0, ih_w = 0, ih_h = 0, ih_nc = 0, type;
  guint64 off = 12, start, len;
  GstStructure *s;
  GstCaps *caps;
  guint i;

  if (!d || memcmp (d, jp2_signature, 12) != 0
      || memcmp (d + 16, "ftyp", 4) != 0 || memcmp (d + 20, "jph ", 4) != 0)
    return;

  /* the signature and the brand are certain: the fields are a bonus */
  for (i = 0; i < MAX_BOXES && box_header (tf, off, &type, &start, &len); i++) {
    if (type == BOX ('j', 'p', '2', 'h')) {
      guint64 sub = start, end = len ? off + len : G_MAXUINT64, sstart, slen;
      guint32 stype;
      guint j;

      for (j = 0; j < MAX_BOXES && sub < end
          && box_header (tf, sub, &stype, &sstart, &slen) && slen; j++) {
        if (stype == BOX ('i', 'h', 'd', 'r') && (d = tf_peek (tf, sstart, 10))) {
          ih_h = GST_READ_UINT32_BE (d);
          ih_w = GST_READ_UINT32_BE (d + 4);
          ih_nc = GST_READ_UINT16_BE (d + 8);
          have_ihdr = TRUE;
        } else if (stype == BOX ('c', 'o', 'l', 'r')
            && (d = tf_peek (tf, sstart, 7)) && d[0] == 1) {
          enumcs = GST_READ_UINT32_BE (d + 3);
        }
        sub += slen;
      }
    } else if (type == BOX ('j', 'p', '2', 'c')) {
      have_siz = gst_sci_j2k_header_read (tf_peek, tf, start, &h) !=
          GST_SCI_J2K_INVALID;
      break;
    }
    if (len == 0)
      break;
    off += len;
  }

  caps = gst_caps_new_empty_simple ("image/x-jph");
  s = gst_caps_get_structure (caps, 0);
  if (have_siz)
    gst_sci_j2k_header_to_structure (&h, enumcs, s);
  else if (have_ihdr && ih_w && ih_h && ih_nc && ih_w <= G_MAXINT
      && ih_h <= G_MAXINT)
    gst_structure_set (s, "width", G_TYPE_INT, (gint) ih_w, "height",
        G_TYPE_INT, (gint) ih_h, "num-components", G_TYPE_INT, (gint) ih_nc,
        NULL);
  gst_type_find_suggest (tf, GST_TYPE_FIND_MAXIMUM, caps);
  gst_caps_unref (caps);
}

/* ---- application/x-envi-header: a first line "ENVI", then keys ---- */

gboolean
gst_j2k_type_find_register (GstPlugin * plugin)
{
  GstCaps *caps;
  gboolean ret = TRUE;

  /* Not named "image/x-jpc": that is gst-plugins-base's typefinder, which
   * stays registered (and finds the Part 1 codestreams it knows, with no
   * fields).  One rank above it, ours runs first and, at the maximum
   * probability, ends the search with the caps fields jpeg2000parse and
   * openjpegdec need. */
  caps = gst_caps_new_empty_simple ("image/x-jpc");
  ret &= gst_type_find_register (plugin, "scicodec-jpc",
      GST_RANK_PRIMARY + 1, jpc_type_find, "j2c,jpc,j2k,jhc", caps, NULL, NULL);
  gst_caps_unref (caps);

  caps = gst_caps_new_empty_simple ("image/x-jph");
  ret &= gst_type_find_register (plugin, "image/x-jph", GST_RANK_PRIMARY,
      jph_type_find, "jph", caps, NULL, NULL);
  gst_caps_unref (caps);
  return ret;
}
