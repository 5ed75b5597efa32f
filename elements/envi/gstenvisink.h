#ifndef __GST_ENVI_SINK_H__
#define __GST_ENVI_SINK_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS
#define GST_TYPE_ENVI_SINK (gst_envi_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstEnviSink, gst_envi_sink, GST, ENVI_SINK, GstBaseSink);

struct _GstEnviSink
{
  GstBaseSink parent;

  /* properties */
  gchar *location;

  /* negotiated */
  gint lines, samples, bands;
  gint bytes;                   /* per value */
  gint data_type;               /* ENVI data type: 1, 2, 12, 4 */
  const gchar *interleave;      /* bip, bil, bsq */
  gboolean have_caps;

  gboolean written;             /* a cube was written */
};

GST_ELEMENT_REGISTER_DECLARE (envisink);

G_END_DECLS
#endif
