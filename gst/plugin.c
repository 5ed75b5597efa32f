/* Plugin entry: registers every element of the scicodec plugin. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "elements/gstcudadwt.h"
#include "elements/gstcudaidwt.h"
#include "elements/gsthtj2kenc.h"
#include "elements/gsthtj2kparse.h"
#include "elements/gstebcotcm.h"
#include "elements/gstdpcmenc.h"
#include "elements/gstdpcmdec.h"
#include "elements/gstsppfilter.h"
#include "elements/gstseismicenc.h"
#include "elements/gstseismicdec.h"
#include "elements/gsttypefind.h"
#if HAVE_CFITSIO
#include "elements/gstfitsdec.h"
#include "elements/gstfitsenc.h"
#endif
#if HAVE_GDAL
#include "elements/gstenvisrc.h"
#include "elements/gstenvisink.h"
#include "elements/gstenvidec.h"
#endif
#if HAVE_SEGYIO
#include "elements/gstsegysrc.h"
#include "elements/gstsegysink.h"
#include "elements/gstsegyparse.h"
#endif

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (cudadwt, plugin);
  ret |= GST_ELEMENT_REGISTER (cudaidwt, plugin);
  ret |= GST_ELEMENT_REGISTER (htj2kenc, plugin);
  ret |= GST_ELEMENT_REGISTER (htj2kparse, plugin);
  ret |= GST_ELEMENT_REGISTER (ebcotcm, plugin);
  ret |= GST_ELEMENT_REGISTER (dpcmenc, plugin);
  ret |= GST_ELEMENT_REGISTER (dpcmdec, plugin);
  ret |= gst_dpcm_type_find_register (plugin);
  ret |= gst_seismic_type_find_register (plugin);
  ret |= gst_sci_type_find_register (plugin);
  ret |= GST_ELEMENT_REGISTER (sppfilter, plugin);
  ret |= GST_ELEMENT_REGISTER (seismicenc, plugin);
  ret |= GST_ELEMENT_REGISTER (seismicdec, plugin);
#if HAVE_CFITSIO
  ret |= GST_ELEMENT_REGISTER (fitsdec, plugin);
  ret |= GST_ELEMENT_REGISTER (fitsenc, plugin);
  ret |= gst_fits_type_find_register (plugin);
#endif
#if HAVE_GDAL
  ret |= GST_ELEMENT_REGISTER (envisrc, plugin);
  ret |= GST_ELEMENT_REGISTER (envisink, plugin);
  ret |= GST_ELEMENT_REGISTER (envidec, plugin);
#endif
#if HAVE_SEGYIO
  ret |= GST_ELEMENT_REGISTER (segysrc, plugin);
  ret |= GST_ELEMENT_REGISTER (segysink, plugin);
  ret |= GST_ELEMENT_REGISTER (segyparse, plugin);
  ret |= gst_segy_type_find_register (plugin);
#endif
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, scicodec,
    "Stages of scientific and video codecs (JPEG 2000 DWT, HTJ2K, DPCM, "
    "hyperspectral SPP, ...) "
    "on CUDA and the CPU", plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME,
    GST_PACKAGE_ORIGIN)
