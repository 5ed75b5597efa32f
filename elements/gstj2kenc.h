#ifndef __GST_HTJ2K_ENC_H__
#define __GST_HTJ2K_ENC_H__

#include "gstscifilter.h"
#include "gstscicodedpool.h"
#include "gstwavelet.h"
#include "codec/htj2k.h"
#if HAVE_CUDA
#include "cuda/dwt.h"
#include "cuda/htj2k.h"
#endif

G_BEGIN_DECLS
#define GST_TYPE_HTJ2K_ENC (gst_htj2k_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstHtj2kEnc, gst_htj2k_enc, GST, HTJ2K_ENC, GstSciFilter);

/* The colour-transform property: a subset of GstSciColourMode (same
 * values), since the encoder picks RCT or ICT from `reversible`. */
typedef enum
{
  GST_HTJ2K_COLOUR_AUTO = GST_SCI_COLOUR_AUTO,
  GST_HTJ2K_COLOUR_NONE = GST_SCI_COLOUR_NONE,
} GstHtj2kColour;

struct _GstHtj2kEnc
{
  GstSciFilter parent;

  /* properties (object lock) */
  gboolean reversible;
  gdouble qstep;
  guint levels;
  guint block_width, block_height;
  sci_j2k_progression progression;
  GstHtj2kColour colour;
  gdouble bitrate;
  gboolean jph;
  /* a property changed since the encoder was configured */
  gboolean dirty;

  /* negotiated (streaming thread) */
  GstCaps *incaps, *outcaps;
  gboolean wavelet_in;          /* input is application/x-wavelet */
  GstVideoInfo in_info;         /* raw video input */
  GstWaveletInfo winfo;         /* what is coded */
  sci_htj2k_params params;
  sci_htj2k_enc *enc;
  gpointer coeffs;              /* DWT output (raw input), winfo.size bytes */
  gsize max_bytes;              /* sci_htj2k_max_bytes of enc */
#if HAVE_CUDA
  /* CUDA backend, made with enc (raw input: wt too); the device
   * coefficients are the base's staging slot 1 */
  sci_cuda_wt *wt;
  sci_cuda_ht *ht;
#endif
  /* a coded frame has left since start: no CPU fallback after that */
  gboolean sent;

  /* output buffers: a pool of max_bytes buffers trimmed to each frame
   * (page-locked ones, from host_allocator, with the CUDA backend) */
  GstSciCodedPool out;
  GstAllocator *host_allocator; /* page-locked memory, CUDA backend */
};

GST_ELEMENT_REGISTER_DECLARE (htj2kenc);

G_END_DECLS
#endif
