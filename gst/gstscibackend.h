/* The `backend` property every element of the plugin carries. */
#ifndef __GST_SCI_BACKEND_H__
#define __GST_SCI_BACKEND_H__

#include <gst/gst.h>

G_BEGIN_DECLS typedef enum
{
  GST_SCI_BACKEND_AUTO = 0,
  GST_SCI_BACKEND_CUDA = 1,
  GST_SCI_BACKEND_CPU = 2,
} GstSciBackend;

#define GST_TYPE_SCI_BACKEND (gst_sci_backend_get_type ())
GType gst_sci_backend_get_type (void);

G_END_DECLS
#endif
