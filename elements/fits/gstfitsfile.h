/* What fitsdec's files share: the FITS layout constants, the scan of a
 * file's HDUs from its headers, and the decoding of one whole file. */
#ifndef __GST_FITS_FILE_H__
#define __GST_FITS_FILE_H__

#include <gst/gst.h>
#include <gst/base/gstadapter.h>

#include "gstfitsdec.h"

G_BEGIN_DECLS
#define FITS_BLOCK 2880
#define FITS_CARD 80
/* Limits beyond which a file is taken as corrupt rather than allocated. */
#define MAX_HEADER_BLOCKS 10000 /* 360000 cards */
#define MAX_DATA_BYTES (G_GUINT64_CONSTANT (1) << 34)   /* 16 GiB per HDU */
#define MAX_HDUS 10000
#define MAX_DIM 65535
    typedef enum
{
  GST_FITS_SCAN_NEED_MORE,
  GST_FITS_SCAN_COMPLETE,
  GST_FITS_SCAN_ERROR,
} GstFitsScanResult;

/* Walks the HDUs of the file at the start of the adapter's `avail` bytes.
 * GST_FITS_SCAN_COMPLETE: every HDU in view is whole, the file is `*len`
 * bytes; `*definite` says whether bytes after it show that no extension
 * follows (else the file may go on).  GST_FITS_SCAN_NEED_MORE: `*need`
 * bytes are needed.  GST_FITS_SCAN_ERROR: `*why` says what is wrong. */
GstFitsScanResult gst_fits_scan_file (GstAdapter * adapter, gsize avail,
    gsize * len, gboolean * definite, gsize * need, gchar ** why);

/* Decodes every image HDU of one whole FITS file (or the one the hdu
 * property picks) and pushes its frames, timestamped from `pts`. */
GstFlowReturn gst_fits_dec_decode_file (GstFitsDec * self, GstBuffer * file,
    GstClockTime pts);

/* Makes a message printable ASCII in place (cfitsio quotes the bytes of
 * corrupt cards in its messages); returns s. */
gchar *gst_fits_printable (gchar * s);

G_END_DECLS
#endif
