#ifndef __GST_SCI_J2K_ENC_H__
#define __GST_SCI_J2K_ENC_H__

#include "gst/gstscifilter.h"
#include "gst/gstscicodedpool.h"
#include "gst/gstwavelet.h"
#include "codec/j2k/htj2k.h"
#if HAVE_CUDA
#include "cuda/j2k/dwt.h"
#include "cuda/j2k/htj2k.h"
#include "cuda/j2k/t1.h"
#endif

G_BEGIN_DECLS
/*
 * The JPEG 2000 encoder shared by htj2kenc (HT code-blocks, Part 15) and
 * ebcotcm (EBCOT code-blocks, Part 1): negotiation, the wavelet transform,
 * the backends, output buffers.  A subclass picks the block coder and its
 * own properties with gst_sci_j2k_enc_class_setup.
 */
#define GST_TYPE_SCI_J2K_ENC (gst_sci_j2k_enc_get_type ())
#define GST_SCI_J2K_ENC(obj) \
  (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_SCI_J2K_ENC, GstSciJ2kEnc))
#define GST_SCI_J2K_ENC_CLASS(klass) \
  (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_SCI_J2K_ENC, GstSciJ2kEncClass))
#define GST_SCI_J2K_ENC_GET_CLASS(obj) \
  (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_SCI_J2K_ENC, GstSciJ2kEncClass))
typedef struct _GstSciJ2kEnc GstSciJ2kEnc;
typedef struct _GstSciJ2kEncClass GstSciJ2kEncClass;

struct _GstSciJ2kEncClass
{
  GstSciFilterClass parent_class;

  sci_j2k_coder coder;
  /* the element's own debug category, which the shared code logs to */
  GstDebugCategory *debug;
};

GType gst_sci_j2k_enc_get_type (void);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstSciJ2kEnc, gst_object_unref);

/* Sets the coder, installs the properties and pad templates that depend
 * on it; called from a subclass's class_init. */
void gst_sci_j2k_enc_class_setup (GstSciJ2kEncClass * klass,
    sci_j2k_coder coder, GstDebugCategory * debug);

/* The colour-transform property: a subset of GstSciColourMode (same
 * values), since the encoder picks RCT or ICT from `reversible`. */
typedef enum
{
  GST_SCI_J2K_COLOUR_AUTO = GST_SCI_COLOUR_AUTO,
  GST_SCI_J2K_COLOUR_NONE = GST_SCI_COLOUR_NONE,
} GstSciJ2kColour;

#if HAVE_CUDA
/* A frame whose coding is under way on the GPU (ebcotcm with two frames in
 * flight): its input, mapped while the device reads it (the wavelet
 * transform and, should a code-block fall back to the host, Tier-1), and
 * whether it is to be coded on the CPU instead when it leaves (the CUDA
 * backend failed before any frame had left). */
typedef struct
{
  GstBuffer *inbuf;             /* NULL: the lane is free */
  gboolean video;               /* frame (raw video) or map (coefficients) */
  gboolean mapped;
  gboolean in_dev;              /* mapped for its device addresses */
  GstVideoFrame frame;
  GstMapInfo map;
  gboolean on_cpu;
} GstSciJ2kFlight;
#endif

struct _GstSciJ2kEnc
{
  GstSciFilter parent;

  /* properties (object lock) */
  gboolean reversible;
  gdouble qstep;
  guint levels;
  guint block_width, block_height;
  sci_j2k_progression progression;
  GstSciJ2kColour colour;
  gdouble bitrate;
  gboolean jph;                 /* htj2kenc */
  guint layers;                 /* ebcotcm */
  guint cb_style;
  guint frames_in_flight;       /* ebcotcm */
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
  gsize pool_bytes;             /* the pool's buffers (pool_size ()) */
#if HAVE_CUDA
  /* CUDA backend, made with enc (raw input: wt too).  Frames take turns
   * between two lanes when two are in flight, else use lane 0: lane j has
   * its Tier-1 handle t1[j], its stream (lane 0 the base's, lane 1
   * stream1) and the base's staging slots 2j (raw input staged) and
   * 2j + 1 (device coefficients). */
  sci_cuda_wt *wt[2];
  sci_cuda_ht *ht;              /* htj2kenc */
  sci_cuda_t1 *t1[2];           /* ebcotcm; t1[1] with two in flight */
  gpointer stream1;
  GstSciJ2kFlight flight[2];
  guint next_lane;              /* where the next frame goes */
#endif
  /* a coded frame has left since start: no CPU fallback after that */
  gboolean sent;

  /* output buffers: a pool of pool_bytes buffers trimmed to each frame
   * (page-locked ones, from host_allocator, with the CUDA backend); a
   * frame that needs more gets a max_bytes buffer of its own */
  GstSciCodedPool out;
  GstAllocator *host_allocator; /* page-locked memory, CUDA backend */
};


G_END_DECLS
#endif
