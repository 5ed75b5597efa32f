#ifndef __GST_FITS_ENC_H__
#define __GST_FITS_ENC_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS
#define GST_TYPE_FITS_ENC (gst_fits_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstFitsEnc, gst_fits_enc, GST, FITS_ENC, GstElement);

struct _GstFitsEnc
{
  GstElement parent;

  GstPad *sinkpad, *srcpad;

  /* properties */
  gboolean extension;

  /* negotiated */
  GstVideoInfo info;
  gboolean have_info;
  gint sample_offset;           /* 32768: signed 16-bit (no BZERO) */
};

GST_ELEMENT_REGISTER_DECLARE (fitsenc);

G_END_DECLS
#endif
