/*
 * Typefinder of ENVI header files.  It needs no GDAL and is registered in
 * every build; envidec (built with GDAL) reads what it finds.
 */
#ifndef __GST_ENVI_TYPE_FIND_H__
#define __GST_ENVI_TYPE_FIND_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* The media type of an ENVI header file (docs/media-types.md). */
#define GST_ENVI_HEADER_MEDIA_TYPE "application/x-envi-header"

gboolean gst_envi_type_find_register (GstPlugin * plugin);

G_END_DECLS
#endif
