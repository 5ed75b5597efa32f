/*
 * JPEG 2000 main headers (see gstj2kheader.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstj2kheader.h"

#define MARKER_SOC 0xff4f
#define MARKER_SIZ 0xff51
#define MARKER_COD 0xff52
#define MARKER_QCD 0xff5c
#define MARKER_SOT 0xff90

/* How far a main header is followed: PPM and TLM segments can make it
 * long, and a typefinder must not read a file whole to name it. */
#define MAX_MARKERS 4096
#define MAX_HEADER_BYTES (1 << 20)

/* Marker segments a main header may hold before the first SOT: Part 1
 * (COD, COC, TLM, PLM, QCD, QCC, RGN, POC, PPM, CRG, COM), Part 15 (CAP,
 * CPF), Part 1 amendments (PRF) and Part 2 (DFS, ADS, MCT, MCC, NLT, MCO,
 * CBD, ATK).  GStreamer 1.22's own jpc typefinder stops at any marker
 * outside the Part 1 ones and a few of Part 2, so it refuses every HTJ2K
 * codestream: CAP follows SIZ in all of them. */
static gboolean
main_header_marker (guint16 m)
{
  switch (m) {
    case 0xff50:               /* CAP */
    case 0xff52:               /* COD */
    case 0xff53:               /* COC */
    case 0xff55:               /* TLM */
    case 0xff56:               /* PRF */
    case 0xff57:               /* PLM */
    case 0xff59:               /* CPF */
    case 0xff5c:               /* QCD */
    case 0xff5d:               /* QCC */
    case 0xff5e:               /* RGN */
    case 0xff5f:               /* POC */
    case 0xff60:               /* PPM */
    case 0xff63:               /* CRG */
    case 0xff64:               /* COM */
    case 0xff72:               /* DFS */
    case 0xff73:               /* ADS */
    case 0xff74:               /* MCT */
    case 0xff75:               /* MCC */
    case 0xff76:               /* NLT */
    case 0xff77:               /* MCO */
    case 0xff78:               /* CBD */
    case 0xff79:               /* ATK */
      return TRUE;
    default:
      return FALSE;
  }
}

/* The SIZ segment (Table A.9): every field in its range, and the image
 * and tile grids consistent, so that a few bytes of something else that
 * happen to begin with FF4F FF51 are not taken for a codestream. */
static gboolean
read_siz (const guint8 * d, guint lsiz, GstSciJ2kHeader * h)
{
  guint32 xsiz, ysiz, xo, yo, xt, yt, xto, yto;
  guint c, n;

  if (lsiz < 41)
    return FALSE;
  h->rsiz = GST_READ_UINT16_BE (d + 2);
  xsiz = GST_READ_UINT32_BE (d + 4);
  ysiz = GST_READ_UINT32_BE (d + 8);
  xo = GST_READ_UINT32_BE (d + 12);
  yo = GST_READ_UINT32_BE (d + 16);
  xt = GST_READ_UINT32_BE (d + 20);
  yt = GST_READ_UINT32_BE (d + 24);
  xto = GST_READ_UINT32_BE (d + 28);
  yto = GST_READ_UINT32_BE (d + 32);
  n = GST_READ_UINT16_BE (d + 36);
  if (n < 1 || n > 16384 || lsiz != 38 + 3 * n)
    return FALSE;
  if (xsiz <= xo || ysiz <= yo || xt == 0 || yt == 0)
    return FALSE;
  /* the first tile holds the image's first sample */
  if (xto > xo || yto > yo || (guint64) xto + xt <= xo
      || (guint64) yto + yt <= yo)
    return FALSE;
  for (c = 0; c < n; c++) {
    const guint8 *s = d + 38 + 3 * c;

    /* at most 38 bits a sample; sub-sampling 1..255 */
    if ((s[0] & 0x7f) > 37 || s[1] == 0 || s[2] == 0)
      return FALSE;
    if (c < GST_SCI_J2K_MAX_COMPONENTS) {
      h->depth[c] = (s[0] & 0x7f) + 1;
      h->dx[c] = s[1];
      h->dy[c] = s[2];
    }
  }
  h->width = xsiz - xo;
  h->height = ysiz - yo;
  h->components = n;
  return TRUE;
}

static GstSciJ2kStatus
read_header (GstSciPeekFunc peek, gpointer ctx, guint64 start,
    GstSciJ2kHeader * h, guint max_markers, guint64 max_bytes)
{
  const guint8 *d;
  guint64 off;
  guint lsiz, i;

  memset (h, 0, sizeof (*h));
  h->mct = -1;

  d = peek (ctx, start, 6);
  if (!d || GST_READ_UINT16_BE (d) != MARKER_SOC
      || GST_READ_UINT16_BE (d + 2) != MARKER_SIZ)
    return GST_SCI_J2K_INVALID;
  lsiz = GST_READ_UINT16_BE (d + 4);
  d = peek (ctx, start + 4, lsiz);
  if (!d || !read_siz (d, lsiz, h))
    return GST_SCI_J2K_INVALID;

  off = start + 4 + lsiz;
  for (i = 0; i < max_markers && off - start < max_bytes; i++) {
    guint16 m;
    guint len;

    d = peek (ctx, off, 2);
    if (!d)
      return GST_SCI_J2K_TRUNCATED;
    m = GST_READ_UINT16_BE (d);
    if (m == MARKER_SOT) {
      h->sot = off;
      return h->have_cod && h->have_qcd ? GST_SCI_J2K_COMPLETE :
          GST_SCI_J2K_DAMAGED;
    }
    if (!main_header_marker (m))
      return GST_SCI_J2K_DAMAGED;
    d = peek (ctx, off + 2, 2);
    if (!d)
      return GST_SCI_J2K_TRUNCATED;
    len = GST_READ_UINT16_BE (d);
    if (len < 2)
      return GST_SCI_J2K_DAMAGED;
    if (m == MARKER_COD) {
      /* Scod, progression order, layers, then the colour transform */
      if (len < 12)
        return GST_SCI_J2K_DAMAGED;
      d = peek (ctx, off + 2, len);
      if (!d)
        return GST_SCI_J2K_TRUNCATED;
      if (d[3] > 4 || GST_READ_UINT16_BE (d + 4) == 0)
        return GST_SCI_J2K_DAMAGED;
      h->mct = d[6];
      h->have_cod = TRUE;
    } else if (m == MARKER_QCD) {
      if (len < 4)
        return GST_SCI_J2K_DAMAGED;
      h->have_qcd = TRUE;
    }
    off += 2 + len;
  }
  return GST_SCI_J2K_TRUNCATED;
}

GstSciJ2kStatus
gst_sci_j2k_header_read (GstSciPeekFunc peek, gpointer ctx, guint64 start,
    GstSciJ2kHeader * h)
{
  return read_header (peek, ctx, start, h, MAX_MARKERS, MAX_HEADER_BYTES);
}

typedef struct
{
  const guint8 *data;
  gsize size;
} MemPeek;

static const guint8 *
mem_peek (gpointer ctx, guint64 offset, guint size)
{
  MemPeek *m = ctx;

  if (offset > m->size || size > m->size - offset)
    return NULL;
  return m->data + offset;
}

GstSciJ2kStatus
gst_sci_j2k_header_read_data (const guint8 * data, gsize size,
    GstSciJ2kHeader * h)
{
  MemPeek m = { data, size };

  /* every marker segment takes 4 bytes or more: the data bounds the walk */
  return read_header (mem_peek, &m, 0, h, G_MAXUINT, G_MAXUINT64);
}

void
gst_sci_j2k_header_to_structure (const GstSciJ2kHeader * h, guint32 enumcs,
    GstStructure * s)
{
  const gchar *colorspace = NULL, *sampling = NULL;
  gboolean full = TRUE;
  guint c, n = MIN (h->components, GST_SCI_J2K_MAX_COMPONENTS);

  if (h->width <= G_MAXINT && h->height <= G_MAXINT)
    gst_structure_set (s, "width", G_TYPE_INT, (gint) h->width,
        "height", G_TYPE_INT, (gint) h->height, NULL);
  gst_structure_set (s, "num-components", G_TYPE_INT, (gint) h->components,
      NULL);

  for (c = 0; c < n; c++)
    if (h->dx[c] != 1 || h->dy[c] != 1)
      full = FALSE;

  if (h->components == 1) {
    colorspace = "GRAY";
    sampling = "GRAYSCALE";
  } else if (h->components == 3 && full) {
    /* A file format's colr box says it; a bare codestream only through
     * its colour transform: RCT/ICT are for RGB, and what our encoders
     * write without one is YCbCr 4:4:4 (the Y444 formats) */
    if (enumcs == GST_SCI_JP2_ENUMCS_SRGB || (enumcs == 0 && h->mct == 1)) {
      colorspace = "sRGB";
      sampling = "RGB";
    } else if (enumcs == GST_SCI_JP2_ENUMCS_SYCC
        || (enumcs == 0 && h->mct == 0)) {
      colorspace = "sYUV";
      sampling = "YCbCr-4:4:4";
    }
  } else if (h->components == 3 && h->dx[0] == 1 && h->dy[0] == 1
      && h->dx[1] == h->dx[2] && h->dy[1] == h->dy[2]) {
    /* sub-sampled chroma: YCbCr whatever the file says */
    if (h->dx[1] == 2 && h->dy[1] == 2)
      sampling = "YCbCr-4:2:0";
    else if (h->dx[1] == 2 && h->dy[1] == 1)
      sampling = "YCbCr-4:2:2";
    else if (h->dx[1] == 4 && h->dy[1] == 1)
      sampling = "YCbCr-4:1:1";
    else if (h->dx[1] == 4 && h->dy[1] == 4)
      sampling = "YCbCr-4:1:0";
    if (sampling)
      colorspace = "sYUV";
  } else if (h->components == 4 && full) {
    if (enumcs == GST_SCI_JP2_ENUMCS_SRGB || (enumcs == 0 && h->mct == 1)) {
      colorspace = "sRGB";
      sampling = "RGBA";
    } else if (enumcs == GST_SCI_JP2_ENUMCS_SYCC) {
      colorspace = "sYUV";
      sampling = "YCbCrA-4:4:4:4";
    }
  }
  if (colorspace)
    gst_structure_set (s, "colorspace", G_TYPE_STRING, colorspace,
        "sampling", G_TYPE_STRING, sampling, NULL);
}
