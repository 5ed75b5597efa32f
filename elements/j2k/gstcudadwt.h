#ifndef __GST_CUDA_DWT_H__
#define __GST_CUDA_DWT_H__

#include "gst/gstscifilter.h"
#include "gst/gstwavelet.h"
#if HAVE_CUDA
#include "cuda/j2k/dwt.h"
#endif

G_BEGIN_DECLS
#define GST_TYPE_CUDA_DWT (gst_cuda_dwt_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaDwt, gst_cuda_dwt, GST, CUDA_DWT, GstSciFilter);

struct _GstCudaDwt
{
  GstSciFilter parent;

  /* properties */
  sci_dwt_filter filter;
  guint levels;
  GstSciColourMode colour;

  /* negotiated */
  GstVideoInfo in_info;
  GstWaveletInfo out_info;
#if HAVE_CUDA
  sci_cuda_wt *wt;
#endif
};

GST_ELEMENT_REGISTER_DECLARE (cudadwt);

G_END_DECLS
#endif
