#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdpcmcuda.h"

#if HAVE_CUDA
#include <cuda_runtime_api.h>

void
gst_dpcm_cuda_close (GstSciFilter * base, sci_cuda_dpcm ** state)
{
  if (!*state)
    return;
  if (gst_sci_cuda_push (&base->cuda)) {
    g_clear_pointer (state, sci_cuda_dpcm_destroy);
    gst_sci_cuda_pop ();
  } else {
    GST_WARNING_OBJECT (base, "no CUDA context to free the device state in");
    *state = NULL;
  }
}

gboolean
gst_dpcm_cuda_open (GstSciFilter * base, sci_cuda_dpcm ** state,
    const gchar * what)
{
  const gchar *failed = "context push";
  gint err = 0;

  if (*state)
    return TRUE;
  if (gst_sci_cuda_push (&base->cuda)) {
    failed = NULL;
    if ((err = sci_cuda_dpcm_create (state))) {
      failed = what;
      cudaGetLastError ();
      /* its one negative code is host memory running out */
      if (err < 0)
        err = cudaErrorMemoryAllocation;
    }
    gst_sci_cuda_pop ();
  }
  if (!failed)
    return TRUE;
  gst_dpcm_cuda_close (base, state);
  return gst_sci_filter_cuda_failed (base, failed, err);
}
#endif
