#ifndef __GST_DPCM_DEC_H__
#define __GST_DPCM_DEC_H__

#include "gst/gstscivideodecoder.h"
#include "codec/dpcm/dpcm.h"
#if HAVE_CUDA
#include "cuda/dpcm/dpcm.h"
#endif

G_BEGIN_DECLS
#define GST_TYPE_DPCM_DEC (gst_dpcm_dec_get_type ())
G_DECLARE_FINAL_TYPE (GstDpcmDec, gst_dpcm_dec, GST, DPCM_DEC,
    GstSciVideoDecoder);

struct _GstDpcmDec
{
  GstSciVideoDecoder parent;

  /* the bytes of the frames taken so far (for the messages) */
  guint64 offset;

  /* the frame being decoded (streaming thread) */
  GstVideoInfo out_info;
  guint16 *samples;             /* scratch when rows cannot be written in place */
  gsize samples_len;
  /* a decoded frame has left since start: no CPU fallback after that */
  gboolean sent;
  /* an error was posted (a bad frame, caps downstream refused): input is
   * dropped until a flush or a restart, and the end of the stream says
   * nothing more about the bytes left */
  gboolean failed;
#if HAVE_CUDA
  /* CUDA backend: the decoder's device state, made at the first frame
   * and kept while the kernels run (its buffers grow to the largest
   * frame) */
  sci_cuda_dpcm *cuda_dec;
  /* output buffers of out_info's size: device memory (a blob pool, since
   * GStreamer 1.22 allocates no gray GstCudaMemory) when the src caps
   * have memory:CUDAMemory, else page-locked host memory */
  GstSciOutPool out;
#endif
};

GST_ELEMENT_REGISTER_DECLARE (dpcmdec);

/* The typefinder of application/x-dpcm (a frame's magic and header). */
gboolean gst_dpcm_type_find_register (GstPlugin * plugin);

G_END_DECLS
#endif
