/* What seismicdec's element and its CUDA path share. */
#ifndef __GST_SEISMIC_DEC_CUDA_H__
#define __GST_SEISMIC_DEC_CUDA_H__

#include "gstseismicdec.h"

G_BEGIN_DECLS
/* The src caps of gathers of this geometry, in CUDA memory when `cuda`.
 * A sample interval the caps cannot hold (0: unknown) is left out. */
    GstCaps * gst_seismic_dec_gather_caps (guint traces, guint samples,
    guint interval, gboolean cuda);

#if HAVE_CUDA
/* What a CUDA failure of gst_seismic_dec_decode_batch_cuda returns: the
 * caller may fall back to the CPU (it has posted nothing). */
#define GST_SEISMIC_DEC_CUDA_FAILED GST_FLOW_CUSTOM_ERROR

/* Makes the kernels' state (gst_sci_filter_cuda_state_open's maker). */
gint gst_seismic_dec_cuda_new_state (gpointer * state);

/* Frees the output pool and the kernels' state. */
void gst_seismic_dec_release_cuda (GstSeismicDec * self);

/* n frames of one geometry through the kernels in one batch, as the C
 * reference decodes them one by one: decoded straight into CUDA memory
 * when the src caps have it, else into the element's device staging and
 * copied into page-locked host memory.  The gathers are complete when
 * this returns.  GST_FLOW_OK with outs[i] and status[i] (0, or the
 * frame's error: outs[i] NULL); GST_FLOW_ERROR posted (no output
 * buffer); or GST_SEISMIC_DEC_CUDA_FAILED, *what and *err saying what
 * failed. */
GstFlowReturn gst_seismic_dec_decode_batch_cuda (GstSeismicDec * self,
    guint n, const guint8 ** frames, const sci_seis_info * info,
    GstBuffer ** outs, gint * status, const gchar ** what, gint * err);
#endif

G_END_DECLS
#endif
