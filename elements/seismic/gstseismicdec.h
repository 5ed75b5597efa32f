#ifndef __GST_SEISMIC_DEC_H__
#define __GST_SEISMIC_DEC_H__

#include <gst/base/gstadapter.h>

#include "gst/gstscifilter.h"
#include "codec/seismic/seismic.h"
#if HAVE_CUDA
#include "cuda/seismic/seismic.h"
#endif

G_BEGIN_DECLS
#define GST_TYPE_SEISMIC_DEC (gst_seismic_dec_get_type ())
G_DECLARE_FINAL_TYPE (GstSeismicDec, gst_seismic_dec, GST, SEISMIC_DEC,
    GstSciFilter);

struct _GstSeismicDec
{
  GstSciFilter parent;

  /* the input bytes not yet decoded, and how many came before them */
  GstAdapter *adapter;
  guint64 offset;

  /* negotiated (streaming thread) */
  GstCaps *sinkcaps;            /* as upstream gave them, or NULL */
  /* the geometry of the current src caps (valid when have_out) */
  guint traces, samples, sample_interval;
  gboolean have_out;
  /* a segment that came before any caps (input without caps, as from
   * filesrc): sent after the first frame's caps */
  GstEvent *pending_segment;
  /* a decoded gather has left since start: no CPU fallback after that */
  gboolean sent;
  /* an error was posted: input is dropped (GST_FLOW_ERROR) until a flush
   * or a restart, since the frames after a bad one cannot be found */
  gboolean failed;
#if HAVE_CUDA
  /* CUDA backend: the decoder's device state, made at the first frame
   * and kept while the kernels run (its scratch grows to the largest
   * batch) */
  sci_cuda_seis *cuda_dec;
  /* output buffers: device memory when the src caps have
   * memory:CUDAMemory, else page-locked host memory */
  GstSciOutPool out;
#endif
  /* gathers decoded in one batch and not yet output, and the error of
   * the batch's frame after them (held_error 0: none), posted when they
   * are out */
  GQueue ready;
  gint held_error;
  guint64 held_at;
  sci_seis_info held_info;
  const gchar *held_by;         /* the decoder that found it */
};

GST_ELEMENT_REGISTER_DECLARE (seismicdec);

/* The typefinder of application/x-seismic-compressed (a frame's header). */
gboolean gst_seismic_type_find_register (GstPlugin * plugin);

G_END_DECLS
#endif
