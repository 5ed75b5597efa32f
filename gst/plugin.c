/* Plugin entry: registers every element of the scicodec plugin. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "elements/gstcudadwt.h"
#include "elements/gstcudaidwt.h"
#include "elements/gsthtj2kenc.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (cudadwt, plugin);
  ret |= GST_ELEMENT_REGISTER (cudaidwt, plugin);
  ret |= GST_ELEMENT_REGISTER (htj2kenc, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, scicodec,
    "Stages of scientific and video codecs (JPEG 2000 DWT, HTJ2K, ...) "
    "on CUDA and the CPU", plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME,
    GST_PACKAGE_ORIGIN)
