/*
 * Typefinders for the files this plugin writes that GStreamer 1.22 does
 * not name, or names wrongly: JPEG 2000 codestreams (HTJ2K among them),
 * JPH files and ENVI headers.  The DPCM, seismic and FITS typefinders live
 * beside their decoders.
 */
#ifndef __GST_SCI_TYPE_FIND_H__
#define __GST_SCI_TYPE_FIND_H__

#include <gst/gst.h>

G_BEGIN_DECLS
/* The media type of an ENVI header file (docs/media-types.md). */
#define GST_ENVI_HEADER_MEDIA_TYPE "application/x-envi-header"
    gboolean gst_sci_type_find_register (GstPlugin * plugin);

G_END_DECLS
#endif
