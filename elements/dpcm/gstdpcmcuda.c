#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdpcmcuda.h"

#if HAVE_CUDA
static gint
new_state (gpointer * state)
{
  return sci_cuda_dpcm_create ((sci_cuda_dpcm **) state);
}

void
gst_dpcm_cuda_close (GstSciBackendState * b, sci_cuda_dpcm ** state)
{
  gst_sci_backend_cuda_state_close (b, (gpointer *) state,
      (GDestroyNotify) sci_cuda_dpcm_destroy);
}

gboolean
gst_dpcm_cuda_open (GstSciBackendState * b, sci_cuda_dpcm ** state,
    const gchar * what)
{
  return gst_sci_backend_cuda_state_open (b, (gpointer *) state, new_state,
      (GDestroyNotify) sci_cuda_dpcm_destroy, what);
}
#endif
