/* Plugin entry: registers every element of the scicodec plugin. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "j2k/gstcudadwt.h"
#include "j2k/gstcudaidwt.h"
#include "j2k/gsthtj2kenc.h"
#include "j2k/gsthtj2kparse.h"
#include "j2k/gstebcotcm.h"
#include "j2k/gstj2kdec.h"
#include "rtp/gstrtpj2ksclpay.h"
#include "rtp/gstrtpj2kscldepay.h"
#include "dpcm/gstdpcmenc.h"
#include "dpcm/gstdpcmdec.h"
#include "spp/gstsppfilter.h"
#include "seismic/gstseismicenc.h"
#include "seismic/gstseismicdec.h"
#include "j2k/gstj2ktypefind.h"
#include "multigpu/gstscimultigpu.h"
#include "envi/gstenvitypefind.h"
#if HAVE_CFITSIO
#include "fits/gstfitsdec.h"
#include "fits/gstfitsenc.h"
#endif
#if HAVE_GDAL
#include "envi/gstenvisrc.h"
#include "envi/gstenvisink.h"
#include "envi/gstenvidec.h"
#endif
#if HAVE_SEGYIO
#include "segy/gstsegysrc.h"
#include "segy/gstsegysink.h"
#include "segy/gstsegyparse.h"
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
  ret |= GST_ELEMENT_REGISTER (j2kdec, plugin);
  ret |= GST_ELEMENT_REGISTER (rtpj2ksclpay, plugin);
  ret |= GST_ELEMENT_REGISTER (rtpj2kscldepay, plugin);
  ret |= GST_ELEMENT_REGISTER (dpcmenc, plugin);
  ret |= GST_ELEMENT_REGISTER (dpcmdec, plugin);
  ret |= gst_dpcm_type_find_register (plugin);
  ret |= gst_seismic_type_find_register (plugin);
  ret |= gst_j2k_type_find_register (plugin);
  ret |= gst_envi_type_find_register (plugin);
  ret |= GST_ELEMENT_REGISTER (sppfilter, plugin);
  ret |= GST_ELEMENT_REGISTER (seismicenc, plugin);
  ret |= GST_ELEMENT_REGISTER (seismicdec, plugin);
  ret |= GST_ELEMENT_REGISTER (scimultigpu, plugin);
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
