/**
 * SECTION:element-j2kdec
 * @title: j2kdec
 *
 * Decodes JPEG 2000 frames: Part 1 (EBCOT) and HTJ2K (Part 15)
 * codestreams, `image/x-jpc` as htj2kenc, ebcotcm, jpeg2000parse,
 * htj2kparse and rtpj2kdepay give them, JPH files (`image/x-jph`) and
 * JP2 files (`image/jp2`), one frame a buffer, into raw video in system
 * memory or in CUDA memory.  A JP2 file straight from filesrc (no parser
 * frames it) is read whole, up to the end of the stream.
 *
 * The output format follows each frame (the caps of the input do not
 * decide it, and a frame of another size or format renegotiates): one
 * component is GRAY8 or GRAY16_LE; three are I420, Y42B, Y444 and their
 * 10, 12 (and for Y444 16) bit forms, from the subsampling of SIZ, or
 * RGB, GBR_10LE, GBR_12LE when the codestream's colour transform is on,
 * the JP2/JPH colr box says sRGB, or (nothing in the frame saying) the
 * input caps of an encoder say `colorspace=sRGB` (not those of a parser,
 * `parsed=true`: jpeg2000parse says sRGB of every three-component
 * codestream it reads from a file); four add alpha (A420, A420_10LE,
 * A422_10LE, A444_10LE, RGBA, GBRA_10LE, GBRA_12LE).  Samples keep their
 * values: a 12-bit grey frame is GRAY16_LE with samples up to 4095.  What
 * GStreamer video cannot carry (signed samples, more than 16 bits, two
 * or more than four components, other subsampling, components of
 * different depths) is a STREAM/FORMAT error that says what.
 *
 * `reduce` decodes at 1/2^r of the resolution (previews; the frame size
 * is that of the lower resolution, as `opj_decompress -r` gives) and
 * `max-layers` only the first quality layers.
 *
 * Damage: a codestream cut short or damaged inside its tile data decodes
 * what is intact (a truncated code-block ends early, as the standard
 * permits) and the frame comes out with a warning message that says
 * where; a codestream whose headers are broken is a STREAM/DECODE error
 * naming the byte offset.
 *
 * With a usable CUDA device (`backend=auto` or `cuda`) the frames are
 * decoded by cuda/j2k/j2kdec.h: the host parses the headers and tier-2,
 * the compressed frame is the one host-to-device copy, and the frame
 * stays on the device when downstream takes CUDA memory
 * (`video/x-raw(memory:CUDAMemory)`), else it is copied back into system
 * memory.  `frames-in-flight` frames are queued on the GPU before the
 * oldest is output (the latency it adds is reported).  `reduce` and
 * `max-layers` are decoded on the GPU too.  RGB frames with tiles go
 * through the C reference (then uploaded when the output is CUDA
 * memory).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=f.j2c ! jpeg2000parse ! j2kdec ! \
 *     videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=f.jph ! decodebin ! videoconvert ! \
 *     pngenc ! filesink location=f.png
 * gst-launch-1.0 videotestsrc num-buffers=10 ! htj2kenc ! j2kdec reduce=1 ! \
 *     fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstj2kdec.h"

GST_DEBUG_CATEGORY (gst_j2k_dec_debug);
#define GST_CAT_DEFAULT gst_j2k_dec_debug

#define SINK_CAPS "image/x-jpc; image/x-jph; image/jp2"
#define SRC_CAPS "video/x-raw, format = (string) { GRAY8, GRAY16_LE, I420, " \
  "I420_10LE, I420_12LE, Y42B, I422_10LE, I422_12LE, Y444, Y444_10LE, " \
  "Y444_12LE, Y444_16LE, RGB, GBR_10LE, GBR_12LE, A420, A420_10LE, " \
  "A422_10LE, A444_10LE, RGBA, GBRA_10LE, GBRA_12LE }, " \
  "width = (int) [ 1, MAX ], height = (int) [ 1, MAX ], " \
  "framerate = (fraction) [ 0/1, MAX ]"

#define DEFAULT_REDUCE 0
#define DEFAULT_MAX_LAYERS 0
#define DEFAULT_FRAMES_IN_FLIGHT 2

enum
{
  PROP_0,
  PROP_REDUCE,
  PROP_MAX_LAYERS,
  PROP_FRAMES_IN_FLIGHT,
};

#define gst_j2k_dec_parent_class parent_class
G_DEFINE_TYPE (GstJ2kDec, gst_j2k_dec, GST_TYPE_SCI_VIDEO_DECODER);
GST_ELEMENT_REGISTER_DEFINE (j2kdec, "j2kdec", GST_RANK_PRIMARY,
    GST_TYPE_J2K_DEC);

/* ---- negotiation ---- */

/* Only the frame rate is known for sure from the input caps: the frames
 * decide format and size (reduce changes the size too).  Upstream is
 * offered the bare media types. */
static GstCaps *
gst_j2k_dec_transform_caps (GstSciVideoDecoder * base,
    GstPadDirection direction, GstCaps * caps)
{
  GstCaps *result = gst_caps_new_empty ();
  guint i;

  if (direction != GST_PAD_SINK) {
    gst_caps_unref (result);
    return gst_caps_from_string (SINK_CAPS);
  }
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    static const gchar *const fields[] = { "framerate" };
    GstCaps *tmpl = gst_caps_from_string (SRC_CAPS), *one;
    GstStructure *out = gst_structure_copy (gst_caps_get_structure (tmpl, 0));

    gst_caps_unref (tmpl);
    gst_sci_structure_copy_fields (out, gst_caps_get_structure (caps, i),
        fields, G_N_ELEMENTS (fields));
    one = gst_caps_new_full (out, NULL);
    result = gst_caps_merge (result,
        gst_sci_backend_with_features (&base->backend, one, NULL));
    gst_caps_unref (one);
  }
  return result;
}

/* One frame a buffer, except a JP2 file that no parser framed (filesrc):
 * it is read whole, up to the end of the stream. */
static gboolean
gst_j2k_dec_set_sink_caps (GstSciVideoDecoder * base, GstCaps * caps)
{
  GstJ2kDec *self = GST_J2K_DEC (base);
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  const gchar *cs = gst_structure_get_string (s, "colorspace");
  gboolean parsed = FALSE;
  const gchar *alignment = gst_structure_get_string (s, "alignment");

  gst_structure_get_boolean (s, "parsed", &parsed);
  gst_video_decoder_set_packetized (GST_VIDEO_DECODER (base),
      !gst_structure_has_name (s, "image/jp2") || parsed || alignment);
  /* jpeg2000parse says sRGB for every three-component codestream it reads
   * from a file: a parser's word is not taken, an encoder's is */
  self->caps_rgb = cs && g_str_equal (cs, "sRGB") && !parsed;
  self->fps_n = 0;
  self->fps_d = 1;
  gst_structure_get_fraction (s, "framerate", &self->fps_n, &self->fps_d);
  return TRUE;
}

/* ---- frames ---- */

static GstFlowReturn
failed (GstJ2kDec * self, GstFlowReturn ret)
{
  if (ret == GST_FLOW_ERROR || ret == GST_FLOW_NOT_NEGOTIATED)
    self->failed = TRUE;
  return ret;
}

/* A JP2 file from a byte stream: all of it, at the end of the stream. */
static GstFlowReturn
gst_j2k_dec_parse (GstVideoDecoder * decoder, GstVideoCodecFrame * frame,
    GstAdapter * adapter, gboolean at_eos)
{
  gsize avail = gst_adapter_available (adapter);

  if (!at_eos || avail == 0)
    return GST_VIDEO_DECODER_FLOW_NEED_DATA;
  gst_video_decoder_add_to_frame (decoder, avail);
  return gst_video_decoder_have_frame (decoder);
}

static void
read_params (GstJ2kDec * self, sci_j2k_decode_params * p)
{
  GST_OBJECT_LOCK (self);
  p->reduce = self->reduce;
  p->max_layers = self->max_layers;
  GST_OBJECT_UNLOCK (self);
}

GstFlowReturn
gst_j2k_dec_decode_cpu (GstJ2kDec * self, GstVideoCodecFrame * frame,
    const guint8 * data, gsize len)
{
  GstVideoDecoder *decoder = GST_VIDEO_DECODER (self);
  sci_j2k_comp_info comp[GST_J2K_DEC_MAX_COMPONENTS];
  sci_j2k_decode_params p;
  sci_j2k_info info;
  GstVideoFormat format;
  GstBuffer *out;
  GstMapInfo map;
  guint c;
  int rc;

  read_params (self, &p);
  rc = sci_j2k_dec_parse (self->dec, data, len, &info);
  if (rc != SCI_J2K_OK) {
    gst_j2k_dec_post_error (self, rc, sci_j2k_dec_error (self->dec),
        sci_j2k_dec_error_offset (self->dec), len);
    goto error;
  }
  /* reduce beyond the levels gives the smallest resolution there is */
  p.reduce = MIN (p.reduce, info.levels);
  for (c = 0; c < MIN (info.components, GST_J2K_DEC_MAX_COMPONENTS); c++)
    sci_j2k_dec_comp_info (self->dec, c, p.reduce, &comp[c]);
  if (!gst_j2k_dec_choose_format (self, &info, comp, &format))
    goto error;
  if (!gst_j2k_dec_set_output (self, format, comp, info.components)) {
    gst_video_decoder_release_frame (decoder, frame);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  out = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&self->out_info),
      NULL);
  if (!out || !gst_buffer_map (out, &map, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
        (NULL));
    gst_clear_buffer (&out);
    goto error;
  }
  if (!gst_j2k_dec_cpu_decode (self, &p, map.data, len)) {
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    goto error;
  }
#if HAVE_CUDA
  if (GST_SCI_VIDEO_DECODER (self)->backend.out_cuda_memory) {
    GstBuffer *dev = NULL;
    gboolean ok = gst_j2k_dec_cuda_upload (self, map.data, &dev);

    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    if (!ok)
      goto error;
    out = dev;
  } else
#endif
    gst_buffer_unmap (out, &map);
  frame->output_buffer = out;
  self->sent = TRUE;
  return gst_video_decoder_finish_frame (decoder, frame);

error:
  gst_video_decoder_release_frame (decoder, frame);
  return GST_FLOW_ERROR;
}

static GstFlowReturn
gst_j2k_dec_handle_frame (GstVideoDecoder * decoder, GstVideoCodecFrame * frame)
{
  GstJ2kDec *self = GST_J2K_DEC (decoder);
  GstFlowReturn ret;
  GstBuffer *in;
  GstMapInfo map;

  /* dropped after an error; an empty buffer holds no frame */
  if (self->failed || gst_buffer_get_size (frame->input_buffer) == 0) {
    gst_video_decoder_release_frame (decoder, frame);
    return self->failed ? GST_FLOW_ERROR : GST_FLOW_OK;
  }
  /* finish_frame may free the frame, and its input, before the unmap */
  in = gst_buffer_ref (frame->input_buffer);
  self->frames++;
#if HAVE_CUDA
  if (GST_SCI_VIDEO_DECODER (self)->backend.use_cuda) {
    /* the CUDA path maps the input itself: it keeps it until the frame
     * is finished */
    ret = gst_j2k_dec_cuda_frame (self, frame, in);
    if (ret != GST_J2K_DEC_FLOW_CPU) {
      gst_buffer_unref (in);
      return failed (self, ret);
    }
    /* the C reference's frame: the frames queued before it leave first */
    ret = gst_j2k_dec_cuda_drain (self);
    if (ret != GST_FLOW_OK) {
      gst_video_decoder_release_frame (decoder, frame);
      gst_buffer_unref (in);
      return failed (self, ret);
    }
  }
#endif
  if (!gst_buffer_map (in, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map input buffer"),
        (NULL));
    gst_buffer_unref (in);
    gst_video_decoder_release_frame (decoder, frame);
    return failed (self, GST_FLOW_ERROR);
  }
  ret = gst_j2k_dec_decode_cpu (self, frame, map.data, map.size);
  gst_buffer_unmap (in, &map);
  gst_buffer_unref (in);
  return failed (self, ret);
}

static GstFlowReturn
gst_j2k_dec_drain (GstVideoDecoder * decoder)
{
#if HAVE_CUDA
  GstJ2kDec *self = GST_J2K_DEC (decoder);

  if (!self->failed)
    return failed (self, gst_j2k_dec_cuda_drain (self));
#endif
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_j2k_dec_finish (GstVideoDecoder * decoder)
{
  GstJ2kDec *self = GST_J2K_DEC (decoder);

  if (self->failed)
    return GST_FLOW_ERROR;
  return gst_j2k_dec_drain (decoder);
}

static gboolean
gst_j2k_dec_flush (GstVideoDecoder * decoder)
{
  GstJ2kDec *self = GST_J2K_DEC (decoder);

#if HAVE_CUDA
  gst_j2k_dec_cuda_discard (self);
#endif
  self->failed = FALSE;
  return TRUE;
}

/* CUDA-memory output: downstream's GstCudaBufferPool on our context, or
 * one of ours (a flat block for the formats GstCudaMemory of 1.22 cannot
 * hold); the CUDA path takes its device buffers from it. */
static gboolean
gst_j2k_dec_decide_allocation (GstVideoDecoder * decoder, GstQuery * query)
{
  GstSciBackendState *b = &GST_SCI_VIDEO_DECODER (decoder)->backend;
  GstCaps *outcaps = NULL;

  gst_query_parse_allocation (query, &outcaps, NULL);
  if (outcaps && b->out_cuda_memory
      && !gst_sci_backend_decide_device_pool (b, query, outcaps, TRUE, 0))
    return FALSE;
  return GST_VIDEO_DECODER_CLASS (parent_class)->decide_allocation (decoder,
      query);
}

/* The output's metadata is the frame's, not the coded buffer's. */
static gboolean
gst_j2k_dec_transform_meta (GstVideoDecoder * decoder,
    GstVideoCodecFrame * frame, GstMeta * meta)
{
  return FALSE;
}

static gboolean
gst_j2k_dec_start (GstVideoDecoder * decoder)
{
  GstJ2kDec *self = GST_J2K_DEC (decoder);

  self->frames = 0;
  self->sent = FALSE;
  self->failed = FALSE;
  self->have_info = FALSE;
  self->caps_rgb = FALSE;
  self->fps_n = 0;
  self->fps_d = 1;
  if (!self->dec)
    self->dec = sci_j2k_dec_new ();
  if (!self->dec) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Cannot make the JPEG 2000 decoder: out of memory"), (NULL));
    return FALSE;
  }
  /* one frame a buffer unless the caps say otherwise */
  gst_video_decoder_set_packetized (decoder, TRUE);
  return GST_VIDEO_DECODER_CLASS (parent_class)->start (decoder);
}

static void
release_all (GstJ2kDec * self)
{
#if HAVE_CUDA
  gst_j2k_dec_cuda_discard (self);
  gst_j2k_dec_cuda_release (self);
#endif
  g_clear_pointer (&self->dec, sci_j2k_dec_free);
  g_clear_pointer (&self->scratch, g_free);
  self->scratch_len = 0;
  self->have_info = FALSE;
}

static gboolean
gst_j2k_dec_stop (GstVideoDecoder * decoder)
{
  /* before the base class drops the CUDA context */
  release_all (GST_J2K_DEC (decoder));
  return GST_VIDEO_DECODER_CLASS (parent_class)->stop (decoder);
}

static void
gst_j2k_dec_finalize (GObject * object)
{
  release_all (GST_J2K_DEC (object));
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_j2k_dec_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstJ2kDec *self = GST_J2K_DEC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_REDUCE:
      self->reduce = g_value_get_uint (value);
      break;
    case PROP_MAX_LAYERS:
      self->max_layers = g_value_get_uint (value);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      self->frames_in_flight = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_j2k_dec_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstJ2kDec *self = GST_J2K_DEC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_REDUCE:
      g_value_set_uint (value, self->reduce);
      break;
    case PROP_MAX_LAYERS:
      g_value_set_uint (value, self->max_layers);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      g_value_set_uint (value, self->frames_in_flight);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_j2k_dec_class_init (GstJ2kDecClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstVideoDecoderClass *vdec_class = GST_VIDEO_DECODER_CLASS (klass);
  GstSciVideoDecoderClass *sci_class = GST_SCI_VIDEO_DECODER_CLASS (klass);
  GstCaps *caps;

  gobject_class->finalize = gst_j2k_dec_finalize;
  gobject_class->set_property = gst_j2k_dec_set_property;
  gobject_class->get_property = gst_j2k_dec_get_property;

  g_object_class_install_property (gobject_class, PROP_REDUCE,
      g_param_spec_uint ("reduce", "Reduce",
          "Decode at 1/2^reduce of the resolution: the frame is that many "
          "times halved in each direction, and only the lower resolutions "
          "are decoded (faster; 1 or 2 for previews).  Beyond the "
          "codestream's decomposition levels it gives the smallest "
          "resolution there is.  0: full resolution", 0, 32, DEFAULT_REDUCE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MAX_LAYERS,
      g_param_spec_uint ("max-layers", "Maximum quality layers",
          "Decode only the first N quality layers of each frame: fewer "
          "layers read fewer bytes and give a coarser frame (lossless "
          "streams are exact only with all of them).  0: all layers",
          0, 65535, DEFAULT_MAX_LAYERS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_FRAMES_IN_FLIGHT,
      g_param_spec_uint ("frames-in-flight", "Frames in flight",
          "CUDA backend: frames queued on the GPU before the oldest is "
          "output; each has a host thread of its own for its tier-2 and "
          "upload and its own device buffers (about 6 bytes a sample), so "
          "their host and device work run at once.  More frames: more "
          "throughput, latency and device memory (4K lossless HTJ2K on an "
          "H200: 330 frames/s with 1, 1030 with 4, 1500 with 8).  1: each "
          "frame leaves before the next one is taken.  Read when the GPU "
          "decoder is made (the first frame after start)", 1,
          GST_J2K_DEC_MAX_FLIGHT,
          DEFAULT_FRAMES_IN_FLIGHT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (element_class,
      "JPEG 2000 decoder", "Codec/Decoder/Video/Image",
      "Decodes JPEG 2000 Part 1 and HTJ2K codestreams, JP2 and JPH files "
      "into raw video, on CUDA or the CPU", SCI_ELEMENT_AUTHOR);

  caps = gst_caps_from_string (SINK_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  caps = gst_sci_template_caps (SRC_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  vdec_class->start = GST_DEBUG_FUNCPTR (gst_j2k_dec_start);
  vdec_class->stop = GST_DEBUG_FUNCPTR (gst_j2k_dec_stop);
  vdec_class->parse = GST_DEBUG_FUNCPTR (gst_j2k_dec_parse);
  vdec_class->handle_frame = GST_DEBUG_FUNCPTR (gst_j2k_dec_handle_frame);
  vdec_class->finish = GST_DEBUG_FUNCPTR (gst_j2k_dec_finish);
  vdec_class->drain = GST_DEBUG_FUNCPTR (gst_j2k_dec_drain);
  vdec_class->flush = GST_DEBUG_FUNCPTR (gst_j2k_dec_flush);
  vdec_class->transform_meta = GST_DEBUG_FUNCPTR (gst_j2k_dec_transform_meta);
  vdec_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_j2k_dec_decide_allocation);
  sci_class->transform_caps = GST_DEBUG_FUNCPTR (gst_j2k_dec_transform_caps);
  sci_class->set_sink_caps = GST_DEBUG_FUNCPTR (gst_j2k_dec_set_sink_caps);

  GST_DEBUG_CATEGORY_INIT (gst_j2k_dec_debug, "j2kdec", 0, "JPEG 2000 decoder");
}

static void
gst_j2k_dec_init (GstJ2kDec * self)
{
  self->reduce = DEFAULT_REDUCE;
  self->max_layers = DEFAULT_MAX_LAYERS;
  self->frames_in_flight = DEFAULT_FRAMES_IN_FLIGHT;
  self->fps_d = 1;
}
