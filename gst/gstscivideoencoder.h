/*
 * Base class of the plugin's encoders (htj2kenc, ebcotcm, dpcmenc): a
 * GstVideoEncoder with the backend of gstscibackend.h, coded output
 * buffers from a pool of its own (page-locked while the CUDA backend
 * runs), src caps exactly as the subclass makes them, and sink caps that
 * need not be raw video: a subclass that takes another media type
 * (application/x-wavelet) says which raw video it stands for, and
 * GstVideoEncoder tracks that while the subclass reads the caps upstream
 * sent.
 */
#ifndef __GST_SCI_VIDEO_ENCODER_H__
#define __GST_SCI_VIDEO_ENCODER_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideoencoder.h>

#include "gstscibackend.h"
#include "gstscicodedpool.h"

G_BEGIN_DECLS
#define GST_TYPE_SCI_VIDEO_ENCODER (gst_sci_video_encoder_get_type ())
#define GST_SCI_VIDEO_ENCODER(obj) \
  (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_SCI_VIDEO_ENCODER, \
      GstSciVideoEncoder))
#define GST_SCI_VIDEO_ENCODER_CLASS(klass) \
  (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_SCI_VIDEO_ENCODER, \
      GstSciVideoEncoderClass))
#define GST_SCI_VIDEO_ENCODER_GET_CLASS(obj) \
  (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_SCI_VIDEO_ENCODER, \
      GstSciVideoEncoderClass))
typedef struct _GstSciVideoEncoder GstSciVideoEncoder;
typedef struct _GstSciVideoEncoderClass GstSciVideoEncoderClass;

struct _GstSciVideoEncoder
{
  GstVideoEncoder parent;

  /* properties, backend, CUDA state, thread pool */
  GstSciBackendState backend;

  /* negotiated (streaming thread): the sink caps as upstream sent them,
   * those the subclass was last configured with, and GstVideoEncoder's
   * input state for them (raw video, or the video they stand for) */
  GstCaps *sink_caps;
  GstCaps *format_caps;
  GstVideoCodecState *input_state;
  /* downstream asked for a new allocation since the last one */
  gboolean realloc;
  /* the latency of the frames held back, as last set */
  GstClockTime latency;

  /* coded output buffers, trimmed to each frame (page-locked ones, from
   * host_allocator, with the CUDA backend) */
  GstSciCodedPool out;
  GstAllocator *host_allocator;
};

struct _GstSciVideoEncoderClass
{
  GstVideoEncoderClass parent_class;

  /* The caps of the other pad for `caps` (not fixed) of the `direction`
   * pad, GstBaseTransform's transform_caps without the filter: the caps
   * queries of both pads answer with it.  Required. */
  GstCaps *(*transform_caps) (GstSciVideoEncoder * enc,
      GstPadDirection direction, GstCaps * caps);

  /* The raw video caps that fixed sink caps of another media type stand
   * for (new caps; NULL: none).  NULL: raw video only. */
  GstCaps *(*video_caps) (GstSciVideoEncoder * enc, GstCaps * caps);

  /* GstVideoEncoder's set_format with the caps upstream sent (`caps`) and
   * the input state GstVideoEncoder made of them (or of what video_caps
   * said they stand for).  Also called when only the former changed.
   * FALSE: refused, an error posted. */
    gboolean (*configure) (GstSciVideoEncoder * enc, GstCaps * caps,
      GstVideoCodecState * state);

  /* GstVideoEncoder's handle_frame for a frame in time: one whose
   * deadline has passed while `qos` is on is dropped before. */
    GstFlowReturn (*encode) (GstSciVideoEncoder * enc,
      GstVideoCodecFrame * frame);

  /* The coded pool is made again whenever the size asked for changes
   * (else only when a frame needs more: GstSciCodedPool's `exact`). */
  gboolean exact_pool;
};

GType gst_sci_video_encoder_get_type (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstSciVideoEncoder, gst_object_unref);

/* The caps of the coded frames from now on (taken): fixed, set on the src
 * pad exactly so (no field added) before the next frame leaves. */
gboolean gst_sci_video_encoder_set_src_caps (GstSciVideoEncoder * enc,
    GstCaps * caps);

/* The src caps from the subclass' transform_caps of `caps` (the sink
 * caps) that downstream takes, fixated; NULL when it takes none. */
GstCaps *gst_sci_video_encoder_src_caps_for (GstSciVideoEncoder * enc,
    GstCaps * caps);

/* A coded-output buffer of at least `size` bytes (negotiating first where
 * the src caps or downstream changed).  NOT_NEGOTIATED or an error (posted)
 * when none can be had. */
GstFlowReturn gst_sci_video_encoder_acquire (GstSciVideoEncoder * enc,
    gsize size, GstBuffer ** outbuf);

/* `frame` coded into `coded` (taken) leaves: every coded frame stands
 * alone (a sync point). */
GstFlowReturn gst_sci_video_encoder_finish (GstSciVideoEncoder * enc,
    GstVideoCodecFrame * frame, GstBuffer * coded);

/* `frame` (taken) will not be coded (its error was posted): its input is
 * let go at once rather than when the stream stops. */
void gst_sci_video_encoder_abandon (GstSciVideoEncoder * enc,
    GstVideoCodecFrame * frame);

/* The latency of `frames` frames held back (frames in flight), from the
 * input framerate (none when it is unknown). */
void gst_sci_video_encoder_set_frames_latency (GstSciVideoEncoder * enc,
    guint frames);

G_END_DECLS
#endif
