#ifndef __GST_EBCOTCM_H__
#define __GST_EBCOTCM_H__

#include "gstj2kenc.h"

G_BEGIN_DECLS
#define GST_TYPE_EBCOTCM (gst_ebcotcm_get_type ())
G_DECLARE_FINAL_TYPE (GstEbcotcm, gst_ebcotcm, GST, EBCOTCM, GstSciJ2kEnc);

struct _GstEbcotcm
{
  GstSciJ2kEnc parent;
};

GST_ELEMENT_REGISTER_DECLARE (ebcotcm);

G_END_DECLS
#endif
