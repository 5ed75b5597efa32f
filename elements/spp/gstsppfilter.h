#ifndef __GST_SPP_FILTER_H__
#define __GST_SPP_FILTER_H__

#include "gst/gstscifilter.h"
#include "codec/spp/spp.h"
#if HAVE_CUDA
#include "cuda/spp/spp.h"
#endif

G_BEGIN_DECLS
#define GST_TYPE_SPP_FILTER (gst_spp_filter_get_type ())
G_DECLARE_FINAL_TYPE (GstSppFilter, gst_spp_filter, GST, SPP_FILTER,
    GstSciFilter);

struct _GstSppFilter
{
  GstSciFilter parent;

  /* property (object lock): may be even, which start refuses */
  guint window;

  /* negotiated (streaming thread) */
  sci_spp_format format;
  const gchar *format_name;
  guint lines, samples, bands;
  gsize in_size, out_size;      /* bytes of the input and output cubes */
  /* scratch for buffers whose values are not aligned for their type */
  gpointer in_copy, out_copy;
  /* a filtered cube has left since start: no CPU fallback after that */
  gboolean sent;
#if HAVE_CUDA
  /* CUDA backend: the filter's device state, made at caps and kept while
   * the kernels run (its buffers grow to the largest cube) */
  sci_cuda_spp *cuda_spp;
#endif
};

GST_ELEMENT_REGISTER_DECLARE (sppfilter);

G_END_DECLS
#endif
