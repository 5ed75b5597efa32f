#ifndef __GST_FITS_DEC_H__
#define __GST_FITS_DEC_H__

#include <gst/gst.h>
#include <gst/base/gstadapter.h>
#include <gst/video/video.h>

G_BEGIN_DECLS
#define GST_TYPE_FITS_DEC (gst_fits_dec_get_type ())
G_DECLARE_FINAL_TYPE (GstFitsDec, gst_fits_dec, GST, FITS_DEC, GstElement);

struct _GstFitsDec
{
  GstElement parent;

  GstPad *sinkpad, *srcpad;

  /* properties */
  gint hdu;
  gboolean all_hdus;
  gboolean verify_checksum;

  /* streaming state */
  GstAdapter *adapter;
  gsize need;                   /* bytes the adapter needs before rescanning */
  gboolean skipping;            /* dropping bytes after a file's end */
  gint fps_n, fps_d;            /* from the input caps, else 0/1 */
  gboolean have_segment;        /* `segment` went downstream */
  GstSegment segment;
  guint64 frames;               /* frames pushed, for timestamps */
  guint64 buffers_in;           /* input buffers since the stream began */
};

GST_ELEMENT_REGISTER_DECLARE (fitsdec);
/* The typefinder of FITS files ("SIMPLE  =" at offset 0): image/fits. */
gboolean gst_fits_type_find_register (GstPlugin * plugin);

G_END_DECLS
#endif
