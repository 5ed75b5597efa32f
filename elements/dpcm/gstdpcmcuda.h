/* The device state that dpcmenc and dpcmdec share the handling of. */
#ifndef __GST_DPCM_CUDA_H__
#define __GST_DPCM_CUDA_H__

#include "gst/gstscibackend.h"

#if HAVE_CUDA
#include "cuda/dpcm/dpcm.h"

G_BEGIN_DECLS
/* Makes *state in the element's CUDA context unless it exists.  FALSE
 * (error posted) when that fails and the CPU cannot take over; else the
 * backend's use_cuda says which backend runs. */
    gboolean gst_dpcm_cuda_open (GstSciBackendState * b, sci_cuda_dpcm ** state,
    const gchar * what);

/* Frees *state in the element's CUDA context and clears it. */
void gst_dpcm_cuda_close (GstSciBackendState * b, sci_cuda_dpcm ** state);

G_END_DECLS
#endif
#endif
