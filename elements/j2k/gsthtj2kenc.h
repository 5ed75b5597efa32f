#ifndef __GST_HTJ2K_ENC_H__
#define __GST_HTJ2K_ENC_H__

#include "gstj2kenc.h"

G_BEGIN_DECLS
#define GST_TYPE_HTJ2K_ENC (gst_htj2k_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstHtj2kEnc, gst_htj2k_enc, GST, HTJ2K_ENC, GstSciJ2kEnc);

struct _GstHtj2kEnc
{
  GstSciJ2kEnc parent;
};

GST_ELEMENT_REGISTER_DECLARE (htj2kenc);

G_END_DECLS
#endif
