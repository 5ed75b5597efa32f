#ifndef __GST_SEISMIC_ENC_H__
#define __GST_SEISMIC_ENC_H__

#include "gst/gstscifilter.h"
#include "gst/gstscicodedpool.h"
#include "codec/seismic/seismic.h"

G_BEGIN_DECLS
#define GST_TYPE_SEISMIC_ENC (gst_seismic_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstSeismicEnc, gst_seismic_enc, GST, SEISMIC_ENC,
    GstSciFilter);

struct _GstSeismicEnc
{
  GstSciFilter parent;

  /* properties (object lock) */
  guint bits, levels, frame_version;

  /* negotiated (streaming thread): the gather's geometry and the bits
   * and levels of the src caps, which every frame is coded with */
  sci_seis_params params;
  gsize in_size;                /* bytes of a gather: traces x samples x 4 */
  GstCaps *outcaps;
  /* the host copy of a gather in device memory, or of one whose values
   * are not aligned for float */
  gfloat *copy;
  /* the serialised GstSciSegyMeta of the gather being coded, or NULL */
  GBytes *meta;

  /* output buffers, trimmed to each frame */
  GstSciCodedPool out;
  gboolean sent;                /* a frame has gone out */
#if HAVE_CUDA
  gpointer cuda_enc;            /* sci_cuda_seis, in the filter's context */
#endif
};

GST_ELEMENT_REGISTER_DECLARE (seismicenc);

G_END_DECLS
#endif
