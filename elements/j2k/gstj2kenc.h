#ifndef __GST_SCI_J2K_ENC_H__
#define __GST_SCI_J2K_ENC_H__

#include "gst/gstscivideoencoder.h"
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
 * ebcotcm (EBCOT code-blocks, Part 1), a GstSciVideoEncoder.  A subclass
 * picks the block coder and its own properties with
 * gst_sci_j2k_enc_class_setup.  By concern:
 *   gstj2kenc.c        the element: configuration, frames in and out
 *   gstj2kencprops.c   properties
 *   gstj2kenccaps.c    caps of both pads, wavelet input as the video it
 *                      stands for
 *   gstj2kencframe.c   one frame coded on the CPU or on CUDA (lane 0)
 *   gstj2kencflight.c  two frames in flight on CUDA (ebcotcm)
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
  GstSciVideoEncoderClass parent_class;

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
 * flight): the frame, its input mapped while the device reads it (the
 * wavelet transform and, should a code-block fall back to the host,
 * Tier-1), and whether it is to be coded on the CPU instead when it
 * leaves (the CUDA backend failed before any frame had left). */
typedef struct
{
  GstVideoCodecFrame *frame;    /* NULL: the lane is free */
  GstBuffer *inbuf;             /* the frame's input, mapped */
  gboolean video;               /* frame (raw video) or map (coefficients) */
  gboolean mapped;
  gboolean in_dev;              /* mapped for its device addresses */
  GstVideoFrame vframe;
  GstMapInfo map;
  gboolean on_cpu;
} GstSciJ2kFlight;
#endif

struct _GstSciJ2kEnc
{
  GstSciVideoEncoder parent;

  /* properties (object lock) */
  gboolean reversible;
  gdouble qstep;
  guint levels;
  guint block_width, block_height;
  sci_j2k_progression progression;
  GstSciJ2kColour colour;
  gdouble bitrate;
  gboolean jph;                 /* htj2kenc */
  sci_htj2k_refinement refinement;      /* htj2kenc */
  guint layers;                 /* ebcotcm */
  guint cb_style;
  guint frames_in_flight;       /* ebcotcm */
  gboolean plt;
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
};

/* ---- between the files (streaming thread unless said) ---- */

/* property ranges that negotiation checks again */
#define MIN_BLOCK_SIZE 4
#define MAX_BLOCK_SIZE 1024
#define MAX_BLOCK_AREA 4096

#define JPC_MEDIA_TYPE "image/x-jpc"
#define JPH_MEDIA_TYPE "image/x-jph"

/* What the encoders return when the codestream outgrows a buffer smaller
 * than max_bytes (nothing posted): the frame gets a larger one. */
#define FLOW_TOO_SMALL GST_FLOW_CUSTOM_ERROR_1
/* What a CUDA failure of a frame returns: the caller may fall back to the
 * CPU (nothing posted). */
#define FLOW_CUDA_FAILED GST_FLOW_CUSTOM_ERROR

#define NEGOTIATION_ERROR(self, ...) \
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (__VA_ARGS__), (NULL))

/* gstj2kenc.c: `frame` coded at once into a buffer of the coded pool and
 * finished (taken; abandoned with the error posted where it fails). */
GstFlowReturn gst_sci_j2k_enc_code_and_finish (GstSciJ2kEnc * self,
    GstVideoCodecFrame * frame);

/* gstj2kencprops.c: the properties of every coder, and those of `coder`
 * (with the src pad template, which depends on it too) */
void gst_sci_j2k_enc_install_properties (GObjectClass * klass);
void gst_sci_j2k_enc_install_coder_properties (GObjectClass * klass,
    sci_j2k_coder coder);
void gst_sci_j2k_enc_init_properties (GstSciJ2kEnc * self);

/* gstj2kenccaps.c */
GstCaps *gst_sci_j2k_enc_transform_caps (GstSciVideoEncoder * base,
    GstPadDirection direction, GstCaps * caps);
GstCaps *gst_sci_j2k_enc_video_caps (GstSciVideoEncoder * base, GstCaps * caps);
/* The sink and src pad templates' caps (src: of `coder`). */
GstCaps *gst_sci_j2k_enc_sink_template_caps (void);
GstCaps *gst_sci_j2k_enc_src_template_caps (sci_j2k_coder coder);

/* gstj2kencframe.c: the frame of `inbuf` coded into outbuf (given a
 * buffer of its own at the bound where the pool's is too small), on the
 * CUDA backend (lane 0) while it works: a CUDA failure before the first
 * frame has left hands the stream to the CPU.  outbuf is trimmed to the
 * codestream; an error is posted. */
GstFlowReturn gst_sci_j2k_enc_code_frame (GstSciJ2kEnc * self,
    GstBuffer * inbuf, GstBuffer * outbuf);
/* Rare (see pool_size): outbuf gets memory of its own at the bound, whose
 * pages are touched only as far as the codestream goes.  FALSE (error
 * posted) when there is none. */
gboolean gst_sci_j2k_enc_give_bound_memory (GstSciJ2kEnc * self,
    GstBuffer * outbuf);
gboolean gst_sci_j2k_enc_map_frame (GstSciJ2kEnc * self, GstVideoFrame * frame,
    GstBuffer * inbuf);
/* Maps wavelet input (GST_MAP_CUDA in `extra`: device addresses). */
gboolean gst_sci_j2k_enc_map_coefficients (GstSciJ2kEnc * self,
    GstBuffer * inbuf, GstMapInfo * in, GstMapFlags extra);
#if HAVE_CUDA
/* The CUDA handles for the encoder just made (lane 1 too with two frames
 * in flight).  FALSE (error posted) when lane 0 cannot be had and the CPU
 * cannot take over; else backend.use_cuda says which backend runs. */
gboolean gst_sci_j2k_enc_setup_cuda (GstSciJ2kEnc * self,
    const GstWaveletInfo * winfo, const sci_htj2k_params * p);
/* The CUDA handles freed (frames in flight keep their input). */
void gst_sci_j2k_enc_release_cuda (GstSciJ2kEnc * self);
/* The stream of lane j. */
gpointer gst_sci_j2k_enc_lane_stream (GstSciJ2kEnc * self, guint j);
/* Queues on lane j's stream what brings the coefficients of the input
 * mapped in f to the device; *coeffs gets their device address.  With
 * the context pushed.  FALSE when a CUDA call failed (*what, *err). */
gboolean gst_sci_j2k_enc_stage_input (GstSciJ2kEnc * self, guint j,
    GstSciJ2kFlight * f, gconstpointer * coeffs, const gchar ** what,
    gint * err);
/* Maps inbuf into f (which takes a reference): raw video in CUDA memory
 * for its device addresses where that works, else on the host.  FALSE
 * (error posted) when the buffer does not hold a frame. */
gboolean gst_sci_j2k_enc_flight_map (GstSciJ2kEnc * self, GstSciJ2kFlight * f,
    GstBuffer * inbuf);
void gst_sci_j2k_enc_flight_unmap (GstSciJ2kFlight * f);
/* What the block coders' errors mean for a frame coded into a buffer of
 * cap bytes: FLOW_TOO_SMALL, an error of the data (posted), a CUDA
 * failure (FLOW_CUDA_FAILED) or success. */
GstFlowReturn gst_sci_j2k_enc_cuda_coded (GstSciJ2kEnc * self, gsize cap,
    const gchar * what, gint err);

/* gstj2kencflight.c */
/* Whether frames go through the lanes two at a time: ebcotcm on the CUDA
 * backend with both lanes made. */
gboolean gst_sci_j2k_enc_pipelined (GstSciJ2kEnc * self);
guint gst_sci_j2k_enc_frames_in_flight (GstSciJ2kEnc * self);
/* Queues frame's coding on the next lane (which takes a reference).
 * GST_FLOW_OK, an error (posted), or FLOW_CUDA_FAILED once the CPU has
 * taken over (the frame is then the caller's to code). */
GstFlowReturn gst_sci_j2k_enc_flight_submit (GstSciJ2kEnc * self,
    GstVideoCodecFrame * frame);
/* The oldest frame in flight leaves. */
GstFlowReturn gst_sci_j2k_enc_flight_finish (GstSciJ2kEnc * self);
/* Every frame in flight leaves, oldest first; on an error the rest are
 * dropped. */
GstFlowReturn gst_sci_j2k_enc_flight_drain (GstSciJ2kEnc * self);
/* Frames in flight forgotten (flushing, stopping), once the device has
 * stopped reading their input. */
void gst_sci_j2k_enc_flight_drop (GstSciJ2kEnc * self);
#endif

G_END_DECLS
#endif
