#ifndef __GST_ENVI_SRC_H__
#define __GST_ENVI_SRC_H__

#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>

#include "gstenvicube.h"

/* application/x-hyperspectral in system memory (docs/media-types.md): the
 * pad templates of envisrc and envisink. */
#define GST_ENVI_CAPS "application/x-hyperspectral, " \
    "lines = (int) [ 1, 2147483647 ], samples = (int) [ 1, 2147483647 ], " \
    "bands = (int) [ 1, 65535 ], " \
    "format = (string) { U8, S16LE, U16LE, F32LE }, " \
    "interleave = (string) { bip, bil, bsq }"

G_BEGIN_DECLS
#define GST_TYPE_ENVI_SRC (gst_envi_src_get_type ())
G_DECLARE_FINAL_TYPE (GstEnviSrc, gst_envi_src, GST, ENVI_SRC, GstBaseSrc);

struct _GstEnviSrc
{
  GstBaseSrc parent;

  /* properties */
  gchar *location;
  gint interleave;              /* GstEnviInterleave */

  /* from start (): the files and the cube they hold */
  GstEnviCube cube;
  GstCaps *caps;
  gboolean done;                /* the cube went out */
};

GST_ELEMENT_REGISTER_DECLARE (envisrc);

G_END_DECLS
#endif
