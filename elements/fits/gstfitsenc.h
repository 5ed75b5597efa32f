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
  gboolean checksum;

  /* negotiated */
  GstVideoInfo info;            /* of gray video input */
  gboolean have_info;
  gboolean raster;              /* application/x-raster input */
  gint width, height;
  gint bitpix;
  guint bytes;                  /* bytes a sample */
  guint64 flip;                 /* stored value = sample XOR flip */
  gboolean write_scaling;       /* BZERO and BSCALE cards */
  gchar bzero[32], bscale[32];  /* their values as written */
};

GST_ELEMENT_REGISTER_DECLARE (fitsenc);

G_END_DECLS
#endif
