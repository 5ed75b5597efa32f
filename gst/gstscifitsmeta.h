/*
 * GstSciFitsMeta: the FITS header of the HDU a frame came from, carried on
 * the frame's buffer so that the header survives fitsdec ! ... ! fitsenc
 * (and, later, dpcmenc/dpcmdec).  docs/media-types.md describes it.
 *
 * `header` is the HDU's header as FITS stores it: 80-character cards one
 * after another, without separators, without the END card and the blank
 * padding after it (a length that is a multiple of 80).  It includes the
 * structural cards (SIMPLE or XTENSION, BITPIX, NAXIS*, BZERO, BSCALE,
 * ...) as read; a writer replaces those with its own.
 * `primary_header` is, for an image read from an extension, the primary
 * HDU's header in the same form (keywords that apply to the whole file),
 * else NULL.  `hdu` is the 0-based number of the HDU in its file
 * (0 = primary), -1 when unknown.
 */
#ifndef __GST_SCI_FITS_META_H__
#define __GST_SCI_FITS_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS
#define GST_SCI_FITS_CARD_LEN 80
#define GST_SCI_FITS_META_API_TYPE (gst_sci_fits_meta_api_get_type ())
#define GST_SCI_FITS_META_INFO (gst_sci_fits_meta_get_info ())
typedef struct _GstSciFitsMeta GstSciFitsMeta;

struct _GstSciFitsMeta
{
  GstMeta meta;

  gchar *header;                /* cards of the HDU, NUL-terminated */
  gchar *primary_header;        /* cards of the primary HDU, or NULL */
  gint hdu;                     /* 0-based HDU number, -1 if unknown */
};

GType gst_sci_fits_meta_api_get_type (void);
const GstMetaInfo *gst_sci_fits_meta_get_info (void);

/* Adds a meta holding copies of `header` and `primary_header` (may be
 * NULL).  Each string is cut to a whole number of 80-character cards (a
 * shorter last card is padded with spaces) and ends before an END card. */
GstSciFitsMeta *gst_buffer_add_sci_fits_meta (GstBuffer * buffer,
    const gchar * header, const gchar * primary_header, gint hdu);

#define gst_buffer_get_sci_fits_meta(b) \
  ((GstSciFitsMeta *) gst_buffer_get_meta ((b), GST_SCI_FITS_META_API_TYPE))

/* Number of cards in a header string of the meta (length / 80). */
guint gst_sci_fits_header_n_cards (const gchar * header);

/* Whether the card (80 characters) is one that a FITS writer makes itself
 * from the data: SIMPLE, XTENSION, BITPIX, NAXIS, NAXISn, BZERO, BSCALE,
 * EXTEND, PCOUNT, GCOUNT, END, and the now-stale CHECKSUM and DATASUM. */
gboolean gst_sci_fits_card_is_structural (const gchar * card);

/* Serialisation as records, for containers that carry opaque metadata
 * bytes (the DPCM frame's metadata section, docs/dpcm-format.md): each
 * record is a 4-character tag, a 32-bit little-endian payload length and
 * the payload.  The meta gives "FHDR" (header cards), "FPRI" (primary
 * header cards, only when not NULL) and "FHDU" (hdu, int32 LE). */
GBytes *gst_sci_fits_meta_serialize (const GstSciFitsMeta * meta);

/* Appends one such record (`len` bytes of `data` under `tag`) to `a`. */
void gst_sci_meta_append_record (GByteArray * a, const gchar * tag,
    gconstpointer data, guint32 len);

/* Reads records written by gst_sci_fits_meta_serialize (unknown tags are
 * skipped) and adds the meta to `buffer` when there is an FHDR record.
 * TRUE when the bytes are well-formed records (*added says whether a meta
 * was added), FALSE when they are not (nothing is added then). */
gboolean gst_buffer_add_sci_fits_meta_from_records (GstBuffer * buffer,
    const guint8 * data, gsize len, gboolean * added);

/* application/x-raster (docs/media-types.md): the FITS images that GRAY8
 * and GRAY16_LE cannot hold, as rows of samples of `format`, little-endian,
 * no padding.  Each format stands for one FITS BITPIX; the sample is the
 * FITS value itself where the format holds it exactly (the signed and
 * unsigned integer conventions of BZERO), else the stored value, with the
 * caps fields `bzero` and `bscale` giving value = bzero + bscale * sample. */
#define GST_SCI_RASTER_FORMATS \
  "{ U8, S8, S16LE, S32LE, U32LE, S64LE, U64LE, F32LE, F64LE }"

typedef struct
{
  const gchar *format;          /* the caps' format string */
  gint bitpix;                  /* FITS BITPIX of the stored values */
  guint bytes;                  /* bytes a sample */
  guint64 flip;                 /* sample = stored XOR flip (a sign bit) */
  gdouble bzero;                /* BZERO of that convention (BSCALE 1) */
} GstSciRasterFormat;

/* The format named `format`, or NULL. */
const GstSciRasterFormat *gst_sci_raster_format_from_string (const gchar *
    format);

/* The format for a FITS image of `bitpix` with `bzero` and `bscale`: one
 * whose samples are the FITS values (*scaled FALSE), else the one of the
 * stored values (*scaled TRUE: the caps carry bzero and bscale); NULL for
 * an invalid BITPIX. */
const GstSciRasterFormat *gst_sci_raster_format_for_fits (gint bitpix,
    gdouble bzero, gdouble bscale, gboolean * scaled);

G_END_DECLS
#endif
