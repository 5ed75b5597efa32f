#ifndef __GST_ENVI_DEC_H__
#define __GST_ENVI_DEC_H__

#include <gst/gst.h>
#include <gst/base/gstadapter.h>

#include "gstenvicube.h"

G_BEGIN_DECLS
#define GST_TYPE_ENVI_DEC (gst_envi_dec_get_type ())
G_DECLARE_FINAL_TYPE (GstEnviDec, gst_envi_dec, GST, ENVI_DEC, GstElement);

struct _GstEnviDec
{
  GstElement parent;

  GstPad *sinkpad, *srcpad;

  /* properties */
  gint interleave;              /* GstEnviInterleave */

  GstAdapter *adapter;          /* the header's bytes so far */
  gboolean failed;              /* an error was posted: the rest is dropped */
};

GST_ELEMENT_REGISTER_DECLARE (envidec);

G_END_DECLS
#endif
