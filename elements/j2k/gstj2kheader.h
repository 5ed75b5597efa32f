/*
 * The main header of a JPEG 2000 codestream (ISO/IEC 15444-1 Annex A, with
 * the Part 2 and Part 15 markers), read far enough to name the stream's
 * media type and caps: the plugin's typefinders and jphparse use it.
 */
#ifndef __GST_J2K_HEADER_H__
#define __GST_J2K_HEADER_H__

#include <gst/gst.h>

G_BEGIN_DECLS
/* Components whose sampling is kept: what GStreamer's caps can say. */
#define GST_SCI_J2K_MAX_COMPONENTS 4
    typedef struct
{
  guint16 rsiz;
  guint32 width, height;        /* Xsiz - XOsiz, Ysiz - YOsiz */
  guint16 components;           /* Csiz */
  /* the first components' depth in bits and sub-sampling */
  guint8 depth[GST_SCI_J2K_MAX_COMPONENTS];
  guint8 dx[GST_SCI_J2K_MAX_COMPONENTS], dy[GST_SCI_J2K_MAX_COMPONENTS];
  gboolean have_cod, have_qcd;
  gint mct;                     /* COD's multiple component transform; -1: no COD */
  guint64 sot;                  /* where the first SOT is (COMPLETE only) */
} GstSciJ2kHeader;

typedef enum
{
  /* no SOC + SIZ at the start, or a SIZ no codestream can have */
  GST_SCI_J2K_INVALID,
  /* a valid SIZ, then a marker or segment out of place in a main header */
  GST_SCI_J2K_DAMAGED,
  /* valid as far as the data goes (or as far as it was worth reading) */
  GST_SCI_J2K_TRUNCATED,
  /* SIZ, COD and QCD, and the first tile-part's SOT after them */
  GST_SCI_J2K_COMPLETE,
} GstSciJ2kStatus;

/* `size` bytes at `offset`, or NULL where the data does not reach. */
typedef const guint8 *(*GstSciPeekFunc) (gpointer ctx, guint64 offset,
    guint size);

/* Reads the main header of the codestream that starts at `start`, as a
 * typefinder may: TRUNCATED past 4096 marker segments or 1 MiB. */
GstSciJ2kStatus gst_sci_j2k_header_read (GstSciPeekFunc peek, gpointer ctx,
    guint64 start, GstSciJ2kHeader * h);

/* The same over `size` bytes in memory, as far as they go. */
GstSciJ2kStatus gst_sci_j2k_header_read_data (const guint8 * data, gsize size,
    GstSciJ2kHeader * h);

/* JP2-family colour spaces (the colr box's EnumCS); 0: none known. */
#define GST_SCI_JP2_ENUMCS_SRGB 16
#define GST_SCI_JP2_ENUMCS_GREY 17
#define GST_SCI_JP2_ENUMCS_SYCC 18

/* Sets `width`, `height`, `num-components` and, where the header (and the
 * file format's `enumcs`) make them certain enough, GStreamer's JPEG 2000
 * `colorspace` and `sampling` on `s` (see docs/elements.md, "Typefinding
 * and decodebin", for the rules). */
void gst_sci_j2k_header_to_structure (const GstSciJ2kHeader * h,
    guint32 enumcs, GstStructure * s);

G_END_DECLS
#endif
