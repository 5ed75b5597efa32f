/*
 * Typefinders for the JPEG 2000 files this plugin writes that GStreamer
 * 1.22 does not name, or names wrongly: codestreams (HTJ2K among them) and
 * JPH files.
 */
#ifndef __GST_J2K_TYPE_FIND_H__
#define __GST_J2K_TYPE_FIND_H__

#include <gst/gst.h>

G_BEGIN_DECLS

gboolean gst_j2k_type_find_register (GstPlugin * plugin);

G_END_DECLS
#endif
