#ifndef __GST_DPCM_ENC_H__
#define __GST_DPCM_ENC_H__

#include "gst/gstscivideoencoder.h"
#include "codec/dpcm/dpcm.h"
#if HAVE_CUDA
#include "cuda/dpcm/dpcm.h"
#endif

G_BEGIN_DECLS
#define GST_TYPE_DPCM_ENC (gst_dpcm_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstDpcmEnc, gst_dpcm_enc, GST, DPCM_ENC,
    GstSciVideoEncoder);

struct _GstDpcmEnc
{
  GstSciVideoEncoder parent;

  /* properties (object lock) */
  sci_dpcm_params params;

  /* negotiated (streaming thread) */
  GstVideoInfo in_info;
  guint depth;                  /* coded bit depth: 8 or 16 */
  gsize max_bytes;              /* sci_dpcm_max_bytes of the frame size */
  guint16 *samples;             /* scratch when rows cannot be read in place */
  GstCaps *outcaps;
#if HAVE_CUDA
  /* CUDA backend: the encoder's device state, made at caps and kept
   * while the kernels run (its buffers grow to the largest frame) */
  sci_cuda_dpcm *cuda_enc;
#endif
  /* a coded frame has left since start: no CPU fallback after that */
  gboolean sent;
};

GST_ELEMENT_REGISTER_DECLARE (dpcmenc);

G_END_DECLS
#endif
