/*
 * j2kdec: the JPEG 2000 decoder element (GstSciVideoDecoder), split by
 * concern: gstj2kdec.c (class, properties, caps, frames), gstj2kdecformat.c
 * (the video format a codestream decodes to), gstj2kdeccpu.c (the C
 * reference), gstj2kdeccuda.c (cuda/j2k/j2kdec.h, frames in flight).
 */
#ifndef __GST_J2K_DEC_H__
#define __GST_J2K_DEC_H__

#include "gst/gstscivideodecoder.h"
#include "codec/j2k/j2k_dec.h"
#if HAVE_CUDA
#include "gst/gstscicuda.h"
#include "cuda/j2k/j2kdec.h"
#endif

G_BEGIN_DECLS
#define GST_TYPE_J2K_DEC (gst_j2k_dec_get_type ())
G_DECLARE_FINAL_TYPE (GstJ2kDec, gst_j2k_dec, GST, J2K_DEC, GstSciVideoDecoder);

/* Components a frame may have: what GStreamer's video formats carry. */
#define GST_J2K_DEC_MAX_COMPONENTS 4
#define GST_J2K_DEC_MAX_FLIGHT 8

#if HAVE_CUDA
/* A device buffer mapped for the kernels: its planes' device addresses and
 * pitches (gst_sci_cuda_map_device_frame: GstCudaMemory of the frame's
 * format keeps its own pitch; a flat block is laid out as its video meta
 * says). */
typedef struct
{
  GstVideoFrame frame;
  gboolean mapped;
  guint8 *data[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
} GstJ2kDecDevMap;

/* A frame queued on the GPU.  Its input stays mapped until it is
 * finished: the decoder reads it on a thread of its own after the submit,
 * and the C reference decodes it instead when the GPU decoder refuses it
 * then. */
typedef struct
{
  GstVideoCodecFrame *frame;
  GstBuffer *in;
  GstMapInfo in_map;
  GstBuffer *out;               /* the output buffer */
  GstJ2kDecDevMap dev;          /* out, when in device memory */
  GstMapInfo host;              /* out, when in (page-locked) host memory */
  gpointer staging;             /* its device planes then */
  guint ticket;
} GstJ2kDecFlight;
#endif

struct _GstJ2kDec
{
  GstSciVideoDecoder parent;

  /* properties (object lock) */
  guint reduce;
  guint max_layers;
  guint frames_in_flight;

  /* streaming thread */
  sci_j2k_dec *dec;             /* the C reference, made at start */
  GstVideoInfo out_info;        /* of the current src caps */
  gboolean have_info;
  /* what the sink caps say: an RGB colour space where the codestream
   * does not tell, and the frame rate */
  gboolean caps_rgb;
  gint fps_n, fps_d;
  guint64 frames;               /* frames taken since start (messages) */
  gboolean sent;                /* a decoded frame has left */
  gboolean failed;              /* an error was posted: input dropped */
  guint8 *scratch;              /* planes of packed formats (CPU) */
  gsize scratch_len;
#if HAVE_CUDA
  sci_cuda_j2kdec *cuda_dec;
  guint slots;                  /* frames in flight of cuda_dec */
  GstSciOutPool out;
  GstJ2kDecFlight flight[GST_J2K_DEC_MAX_FLIGHT];
  guint flight_head, flight_count;
#endif
};

GST_ELEMENT_REGISTER_DECLARE (j2kdec);

/* gstj2kdecformat.c: the format of a parsed codestream's frame at a
 * reduction (comp: its components at that reduction); FALSE with an error
 * posted (STREAM/FORMAT) when GStreamer video cannot carry it. */
gboolean gst_j2k_dec_choose_format (GstJ2kDec * self,
    const sci_j2k_info * info, const sci_j2k_comp_info * comp,
    GstVideoFormat * format);
/* The src caps for a frame of `format` whose components are `comp`:
 * out_info set; FALSE when refused or the grid does not fit (posted). */
gboolean gst_j2k_dec_set_output (GstJ2kDec * self, GstVideoFormat format,
    const sci_j2k_comp_info * comp, guint ncomp);
/* Whether out_info is what a frame of `format` and comp[0]'s size gives. */
gboolean gst_j2k_dec_same_output (GstJ2kDec * self, GstVideoFormat format,
    const sci_j2k_comp_info * comp);

/* gstj2kdec.c: a frame by the C reference into system memory (uploaded
 * when the src caps are CUDA memory); the frame is finished or released. */
GstFlowReturn gst_j2k_dec_decode_cpu (GstJ2kDec * self,
    GstVideoCodecFrame * frame, const guint8 * data, gsize len);

/* gstj2kdeccpu.c: the parsed codestream of self->dec decoded with `p`
 * into the mapped system-memory buffer `data` laid out as out_info.
 * Posts a warning for damage, an error (FALSE) for a failed decode. */
gboolean gst_j2k_dec_cpu_decode (GstJ2kDec * self,
    const sci_j2k_decode_params * p, guint8 * data, gsize input_len);
/* A codestream error of the C reference (`where`: what was being done). */
void gst_j2k_dec_post_error (GstJ2kDec * self, int code, const gchar * msg,
    gsize offset, gsize len);
/* Once per frame: the decoder's warnings. */
void gst_j2k_dec_post_warnings (GstJ2kDec * self, unsigned n,
    const gchar * first);

#if HAVE_CUDA
/* gstj2kdeccuda.c */
/* What gst_j2k_dec_cuda_frame returns when the frame is the C
 * reference's (reduce, layers, a format the GPU path cannot write, a
 * CUDA failure the CPU took over from): nothing was posted. */
#define GST_J2K_DEC_FLOW_CPU GST_FLOW_CUSTOM_SUCCESS
/* Queues the frame coded in `in` (mapped here, and kept mapped by the
 * frame in flight until it is finished). */
GstFlowReturn gst_j2k_dec_cuda_frame (GstJ2kDec * self,
    GstVideoCodecFrame * frame, GstBuffer * in);
/* Finishes the frames in flight, oldest first. */
GstFlowReturn gst_j2k_dec_cuda_drain (GstJ2kDec * self);
/* Drops the frames in flight (flush, stop) after waiting for them. */
void gst_j2k_dec_cuda_discard (GstJ2kDec * self);
void gst_j2k_dec_cuda_release (GstJ2kDec * self);
/* A system-memory frame of out_info (host) copied into a new device
 * buffer: *out; FALSE posts an error. */
gboolean gst_j2k_dec_cuda_upload (GstJ2kDec * self, const guint8 * host,
    GstBuffer ** out);
#endif

G_END_DECLS
#endif
