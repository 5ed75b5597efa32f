/*
 * An ENVI cube on disk (header + data file) read with GDAL into one
 * application/x-hyperspectral buffer: what envisrc and envidec share.
 */
#ifndef __GST_ENVI_CUBE_H__
#define __GST_ENVI_CUBE_H__

#include <gst/gst.h>

#include "gstenviheader.h"

G_BEGIN_DECLS
/* The `interleave` property of envisrc and envidec (GstEnviInterleave). */
#define GST_TYPE_ENVI_INTERLEAVE (gst_envi_interleave_get_type ())
    GType gst_envi_interleave_get_type (void);

/* A header larger than this is taken as not a header. */
#define GST_ENVI_MAX_HEADER_BYTES (64 << 20)

typedef struct
{
  gchar *hdr_path, *data_path;
  gpointer dataset;             /* GDALDatasetH; NULL for a one-byte cube */
  guint8 one_byte;              /* the value of a one-byte cube */
  gint lines, samples, bands;
  gint bytes;                   /* per value */
  gint gdal_type;               /* GDALDataType */
  const gchar *format;          /* U8, S16LE, U16LE, F32LE */
  gint out_interleave;          /* BIP, BIL or BSQ */
  gsize size;                   /* bytes of the cube */
} GstEnviCube;

/* Opens the cube `location` names (its header, or its data file when
 * `header_text` is NULL and the name does not end in .hdr) for reading
 * in order `want`.  `header_text`: the header's text where the caller has
 * it already (envidec), NULL to read it from the file.  FALSE with `err`
 * (GST_RESOURCE_ERROR or GST_STREAM_ERROR, the message naming the file
 * and the reason) when it cannot be read. */
gboolean gst_envi_cube_open (GstEnviCube * cube, const gchar * location,
    const gchar * header_text, GstEnviInterleave want, GError ** err);

/* The caps of an opened cube. */
GstCaps *gst_envi_cube_caps (const GstEnviCube * cube);

/* The whole cube as one buffer (PTS 0), or NULL with `err`. */
GstBuffer *gst_envi_cube_read (GstEnviCube * cube, GError ** err);

void gst_envi_cube_clear (GstEnviCube * cube);

/* Posts `err` as the element's ERROR message "Cannot read the ENVI cube
 * NAME." with the error's message as debug text. */
void gst_envi_cube_post_error (GstElement * element, const gchar * name,
    const GError * err);

G_END_DECLS
#endif
