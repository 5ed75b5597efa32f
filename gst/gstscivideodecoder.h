/*
 * Base class of the plugin's decoders (dpcmdec, and the JPEG 2000
 * decoder): a GstVideoDecoder with the backend of gstscibackend.h.  Sink
 * caps that GstVideoDecoder cannot parse as video (application/x-dpcm)
 * stay with the subclass, which sets its output from each frame's
 * header; the caps queries of both pads answer with the subclass'
 * transform of the other side's.
 */
#ifndef __GST_SCI_VIDEO_DECODER_H__
#define __GST_SCI_VIDEO_DECODER_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideodecoder.h>

#include "gstscibackend.h"

G_BEGIN_DECLS
#define GST_TYPE_SCI_VIDEO_DECODER (gst_sci_video_decoder_get_type ())
#define GST_SCI_VIDEO_DECODER(obj) \
  (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_SCI_VIDEO_DECODER, \
      GstSciVideoDecoder))
#define GST_SCI_VIDEO_DECODER_CLASS(klass) \
  (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_SCI_VIDEO_DECODER, \
      GstSciVideoDecoderClass))
#define GST_SCI_VIDEO_DECODER_GET_CLASS(obj) \
  (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_SCI_VIDEO_DECODER, \
      GstSciVideoDecoderClass))
typedef struct _GstSciVideoDecoder GstSciVideoDecoder;
typedef struct _GstSciVideoDecoderClass GstSciVideoDecoderClass;

struct _GstSciVideoDecoder
{
  GstVideoDecoder parent;

  /* properties, backend, CUDA state, thread pool */
  GstSciBackendState backend;

  /* the sink caps as upstream sent them (streaming thread), NULL before
   * any: input may come without caps (filesrc) */
  GstCaps *sink_caps;
  /* the src caps were offered since the sink caps last changed */
  gboolean offered;
};

struct _GstSciVideoDecoderClass
{
  GstVideoDecoderClass parent_class;

  /* The caps of the other pad for `caps` (not fixed) of the `direction`
   * pad, GstBaseTransform's transform_caps without the filter: the caps
   * queries of both pads answer with it.  Required. */
  GstCaps *(*transform_caps) (GstSciVideoDecoder * dec,
      GstPadDirection direction, GstCaps * caps);

  /* New sink caps (in sink_caps).  Caps GstVideoDecoder parses as video
   * go on to its set_format too.  FALSE: refused, an error posted. */
    gboolean (*set_sink_caps) (GstSciVideoDecoder * dec, GstCaps * caps);
};

GType gst_sci_video_decoder_get_type (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstSciVideoDecoder, gst_object_unref);

/* Makes `caps` (taken: fixed raw video in system memory, with any fields
 * of the subclass') the src caps of the frames from now on, in the memory
 * chosen before (at first system memory), or in the other one while the
 * kernels run where downstream takes only that; backend.out_cuda_memory
 * says which.  Downstream is asked first (a caps event is stored even
 * where it is refused): where it refuses, the error says why (posted;
 * FALSE).  Caps that do not change are offered again only after new sink
 * caps or when downstream asked for new ones. */
gboolean gst_sci_video_decoder_set_src_caps (GstSciVideoDecoder * dec,
    GstCaps * caps);

G_END_DECLS
#endif
