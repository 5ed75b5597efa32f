#ifndef __GST_CUDA_IDWT_H__
#define __GST_CUDA_IDWT_H__

#include "gst/gstscifilter.h"
#include "gst/gstwavelet.h"
#if HAVE_CUDA
#include "cuda/j2k/dwt.h"
#endif

G_BEGIN_DECLS
#define GST_TYPE_CUDA_IDWT (gst_cuda_idwt_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaIdwt, gst_cuda_idwt, GST, CUDA_IDWT, GstSciFilter);

struct _GstCudaIdwt
{
  GstSciFilter parent;

  /* negotiated */
  GstWaveletInfo in_info;
  GstVideoInfo out_info;
  /* the CPU inverse works in place, and input buffers are read-only */
  gpointer host_scratch;
#if HAVE_CUDA
  sci_cuda_wt *wt;
#endif
};

GST_ELEMENT_REGISTER_DECLARE (cudaidwt);

G_END_DECLS
#endif
