/*
 * The JPEG 2000 encoder shared by htj2kenc (gsthtj2kenc.c) and ebcotcm
 * (gstebcotcm.c), on GstSciVideoEncoder: they differ in the block coder
 * (HT or EBCOT), a few properties and the output media types.  This file
 * is the element: the encoder made for the caps and properties, frames in
 * and out; the rest is split by concern (gstj2kenc.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstj2kenc.h"

/* every log call here names the element `self` */
#define GST_CAT_DEFAULT (GST_SCI_J2K_ENC_GET_CLASS (self)->debug)

#define gst_sci_j2k_enc_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE (GstSciJ2kEnc, gst_sci_j2k_enc,
    GST_TYPE_SCI_VIDEO_ENCODER);

static void
release_encoder (GstSciJ2kEnc * self)
{
#if HAVE_CUDA
  /* frames in flight have left before (drained) unless the stream stops */
  gst_sci_j2k_enc_flight_drop (self);
  gst_sci_j2k_enc_release_cuda (self);
#endif
  g_clear_pointer (&self->enc, sci_htj2k_enc_free);
  g_clear_pointer (&self->coeffs, g_free);
  self->max_bytes = 0;
}

/* The output buffers' size.  sci_htj2k_max_bytes is a proof, not an
 * estimate: for Part 1 it lets every decision renormalize by 15 bits and
 * comes to some forty times the samples' bytes (2.4 GB for a 4096x2160
 * 4:4:4 12-bit frame), and a pool of page-locked buffers that size would
 * pin gigabytes.  The buffers hold the samples' bytes and a quarter more,
 * 64 KiB and 16 bytes a code-block and layer for headers (lossless white
 * noise, about the least compressible input, takes some 1.1 times its
 * samples' bytes); a frame that needs more gets a buffer of its own
 * (gst_sci_j2k_enc_code_frame). */
static gsize
pool_size (GstSciJ2kEnc * self)
{
  const sci_wt_geometry *g = &self->winfo.geom;
  guint64 bytes = 0;
  guint c;

  for (c = 0; c < g->components; c++)
    bytes += (guint64) ((g->width + g->dx[c] - 1) / g->dx[c]) *
        ((g->height + g->dy[c] - 1) / g->dy[c]);
  bytes *= (g->depth + 7) / 8;
  bytes += bytes / 4 + 65536 +
      (guint64) sci_htj2k_block_count (self->enc) * self->params.layers * 16;
  return MIN (bytes, self->max_bytes);
}

/* Builds the encoder for the negotiated caps and the current properties,
 * into a codestream (`jph` FALSE) or a JPH file.  FALSE posts an error
 * saying why. */
static gboolean
make_encoder (GstSciJ2kEnc * self, gboolean jph)
{
  GstSciBackendState *base = &GST_SCI_VIDEO_ENCODER (self)->backend;
  sci_j2k_coder coder = GST_SCI_J2K_ENC_GET_CLASS (self)->coder;
  GstWaveletInfo winfo;
  sci_htj2k_params p;
  gboolean reversible;
  guint levels, bw, bh;
  GstSciJ2kColour colour;
  gdouble bitrate;
  const sci_wt_geometry *g = &winfo.geom;
  const gchar *why;

  GST_OBJECT_LOCK (self);
  self->dirty = FALSE;
  reversible = self->reversible;
  levels = self->levels;
  colour = self->colour;
  bw = self->block_width;
  bh = self->block_height;
  bitrate = self->bitrate;
  sci_htj2k_params_default (&p);
  p.coder = coder;
  p.qstep = self->qstep;
  p.progression = self->progression;
  p.bitrate = bitrate;
  p.plt = self->plt;
  if (coder == SCI_J2K_CODER_PART1) {
    p.layers = self->layers;
    p.cb_style = self->cb_style;
  } else {
    p.refinement = self->refinement;
  }
  GST_OBJECT_UNLOCK (self);
  p.jph = jph;

  release_encoder (self);

  if (self->wavelet_in) {
    why = gst_wavelet_info_from_caps (&winfo, self->incaps);
    if (why) {
      NEGOTIATION_ERROR (self, "Cannot code coefficients %" GST_PTR_FORMAT
          ": %s", self->incaps, why);
      return FALSE;
    }
    if ((g->filter == SCI_DWT_53) != reversible) {
      NEGOTIATION_ERROR (self, "The input coefficients are filter=%s but "
          "reversible=%s: set reversible=%s, or make them with filter=%s",
          gst_wavelet_filter_to_string (g->filter),
          reversible ? "true" : "false", reversible ? "false" : "true",
          reversible ? "5-3" : "9-7");
      return FALSE;
    }
    if (levels != g->levels)
      GST_INFO_OBJECT (self, "levels=%u ignored: the coefficients have %u",
          levels, g->levels);
  } else {
    why = gst_wavelet_info_from_video (&winfo, &self->in_info,
        reversible ? SCI_DWT_53 : SCI_DWT_97, levels,
        (GstSciColourMode) colour);
    if (why) {
      NEGOTIATION_ERROR (self, "Cannot code %s %dx%d: %s",
          GST_VIDEO_INFO_NAME (&self->in_info),
          GST_VIDEO_INFO_WIDTH (&self->in_info),
          GST_VIDEO_INFO_HEIGHT (&self->in_info), why);
      return FALSE;
    }
  }

  if ((bw & (bw - 1)) || (bh & (bh - 1))) {
    NEGOTIATION_ERROR (self, "Code-block size %ux%u: block-width and "
        "block-height must be powers of two from %u to %u", bw, bh,
        MIN_BLOCK_SIZE, MAX_BLOCK_SIZE);
    return FALSE;
  }
  if (bw * bh > MAX_BLOCK_AREA) {
    NEGOTIATION_ERROR (self, "Code-block size %ux%u has %u samples: JPEG 2000 "
        "allows at most %u (block-width x block-height)", bw, bh, bw * bh,
        MAX_BLOCK_AREA);
    return FALSE;
  }
  p.cb_w_log2 = g_bit_nth_lsf (bw, -1);
  p.cb_h_log2 = g_bit_nth_lsf (bh, -1);
  if (coder == SCI_J2K_CODER_HT && reversible && p.refinement) {
    NEGOTIATION_ERROR (self, "refinement=%s needs reversible=false: "
        "lossless coding cannot use HT refinement passes (a sample first "
        "significant in the last bit-plane with no significant neighbour "
        "would be lost; set refinement=none)",
        p.refinement == SCI_HTJ2K_REF_ALL ? "all" : "sigprop");
    return FALSE;
  }
  if (coder == SCI_J2K_CODER_HT && reversible && bitrate > 0) {
    NEGOTIATION_ERROR (self, "bitrate=%g needs reversible=false: reversible "
        "coding is lossless and has no rate target (set bitrate=0)", bitrate);
    return FALSE;
  }
  why = sci_htj2k_check (g, &p);
  if (why) {
    NEGOTIATION_ERROR (self, "Cannot code %ux%u, %u components of %u bits, "
        "%s, %u levels: %s", g->width, g->height, g->components, g->depth,
        gst_wavelet_filter_to_string (g->filter), g->levels, why);
    return FALSE;
  }

  self->enc = sci_htj2k_enc_new (g, &p, gst_sci_backend_pool (base));
  if (!self->enc) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Cannot create the JPEG 2000 encoder (out of memory?)"), (NULL));
    return FALSE;
  }
#if HAVE_CUDA
  if (base->use_cuda && !gst_sci_j2k_enc_setup_cuda (self, &winfo, &p)) {
    release_encoder (self);
    return FALSE;
  }
#endif
  /* the CUDA backend keeps its coefficients on the device */
  if (!self->wavelet_in && !base->use_cuda) {
    self->coeffs = g_try_malloc (winfo.size);
    if (!self->coeffs) {
      release_encoder (self);
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Cannot allocate %" G_GSIZE_FORMAT " bytes of coefficients",
              winfo.size), (NULL));
      return FALSE;
    }
  }
  self->winfo = winfo;
  self->params = p;
  self->max_bytes = sci_htj2k_max_bytes (self->enc);
  self->pool_bytes = pool_size (self);

  if (p.refinement && base->use_cuda)
    GST_INFO_OBJECT (self, "refinement passes: the wavelet transform runs on "
        "the GPU, the blocks are coded on the CPU from its coefficients");
  GST_INFO_OBJECT (self, "%s%s %ux%u, %u components, depth %u: %s, %u levels,"
      " colour transform %s, code-blocks %ux%u, progression %u, %u layers, "
      "style 0x%02x, refinement %u, %s%s%s, up to %" G_GSIZE_FORMAT " bytes "
      "a frame (buffers of %" G_GSIZE_FORMAT "), %s backend, %s memory in",
      self->wavelet_in ? "coefficients of " : "",
      gst_video_format_to_string (winfo.video_format), g->width, g->height,
      g->components, g->depth, gst_wavelet_filter_to_string (g->filter),
      g->levels, gst_wavelet_colour_to_string (g->ct), bw, bh,
      (guint) p.progression, p.layers, p.cb_style, (guint) p.refinement,
      p.jph ? "JPH" : "codestream", p.plt ? " with PLT" : "",
      reversible ? ", lossless" : "",
      self->max_bytes, self->pool_bytes, base->use_cuda ? "CUDA" : "CPU",
      base->in_cuda_memory ? "CUDA" : "system");
  return TRUE;
}

/* The src caps for the sink caps and the properties (jph selects the
 * media type), then the encoder for them; the frames they make leave with
 * those caps.  FALSE posts an error. */
static gboolean
configure (GstSciJ2kEnc * self)
{
  GstSciVideoEncoder *base = GST_SCI_VIDEO_ENCODER (self);
  GstCaps *outcaps = gst_sci_video_encoder_src_caps_for (base, self->incaps);
  gboolean ok;

  if (!outcaps) {
    release_encoder (self);
    NEGOTIATION_ERROR (self, "Downstream takes none of the codestreams of %"
        GST_PTR_FORMAT, self->incaps);
    return FALSE;
  }
  ok = make_encoder (self, gst_structure_has_name (gst_caps_get_structure
          (outcaps, 0), JPH_MEDIA_TYPE));
  if (ok && (!self->outcaps || !gst_caps_is_equal (self->outcaps, outcaps))) {
    gst_caps_replace (&self->outcaps, outcaps);
    ok = gst_sci_video_encoder_set_src_caps (base, gst_caps_ref (outcaps));
  }
#if HAVE_CUDA
  /* a frame more while two are in flight */
  if (ok)
    gst_sci_video_encoder_set_frames_latency (base,
        gst_sci_j2k_enc_pipelined (self) ? 1 : 0);
#endif
  gst_caps_unref (outcaps);
  return ok;
}

/* New sink caps (raw video, or coefficients of cudadwt). */
static gboolean
gst_sci_j2k_enc_configure (GstSciVideoEncoder * base, GstCaps * caps,
    GstVideoCodecState * state)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (base);

#if HAVE_CUDA
  /* the frames in flight leave first, under the caps they were coded for */
  if (gst_sci_j2k_enc_frames_in_flight (self)
      && gst_sci_j2k_enc_flight_drain (self) != GST_FLOW_OK)
    GST_DEBUG_OBJECT (self, "frames in flight dropped at new caps");
#endif
  self->wavelet_in = gst_structure_has_name (gst_caps_get_structure (caps,
          0), GST_WAVELET_MEDIA_TYPE);
  if (!self->wavelet_in)
    self->in_info = state->info;
  gst_caps_replace (&self->incaps, caps);
  return configure (self);
}

GstFlowReturn
gst_sci_j2k_enc_code_and_finish (GstSciJ2kEnc * self,
    GstVideoCodecFrame * frame)
{
  GstSciVideoEncoder *base = GST_SCI_VIDEO_ENCODER (self);
  GstBuffer *outbuf = NULL;
  GstFlowReturn ret;

  ret = gst_sci_video_encoder_acquire (base, self->pool_bytes, &outbuf);
  if (ret == GST_FLOW_OK)
    ret = gst_sci_j2k_enc_code_frame (self, frame->input_buffer, outbuf);
  if (ret != GST_FLOW_OK) {
    gst_clear_buffer (&outbuf);
    gst_sci_video_encoder_abandon (base, frame);
    return ret;
  }
  return gst_sci_video_encoder_finish (base, frame, outbuf);
}

/* With two frames in flight (ebcotcm on CUDA) a frame is queued on the GPU
 * and the one before it leaves; otherwise each frame leaves at once. */
static GstFlowReturn
gst_sci_j2k_enc_encode (GstSciVideoEncoder * base, GstVideoCodecFrame * frame)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (base);
#if HAVE_CUDA
  GstFlowReturn ret;
#endif
  gboolean dirty;

  GST_OBJECT_LOCK (self);
  dirty = self->dirty;
  GST_OBJECT_UNLOCK (self);
#if HAVE_CUDA
  /* frames in flight leave before the encoder is made again or frames
   * stop taking turns */
  if (gst_sci_j2k_enc_frames_in_flight (self) && (dirty
          || !gst_sci_j2k_enc_pipelined (self))
      && (ret = gst_sci_j2k_enc_flight_drain (self)) != GST_FLOW_OK) {
    gst_sci_video_encoder_abandon (base, frame);
    return ret;
  }
#endif
  if ((dirty || !self->enc) && !configure (self)) {
    gst_sci_video_encoder_abandon (base, frame);
    return GST_FLOW_NOT_NEGOTIATED;
  }
#if HAVE_CUDA
  if (gst_sci_j2k_enc_pipelined (self)) {
    ret = gst_sci_j2k_enc_flight_submit (self, frame);
    if (ret == GST_FLOW_OK)
      return gst_sci_j2k_enc_frames_in_flight (self) < 2 ? GST_FLOW_OK :
          gst_sci_j2k_enc_flight_finish (self);
    /* FLOW_CUDA_FAILED: the CPU codes it, after the frames in flight */
    if (ret == FLOW_CUDA_FAILED)
      ret = gst_sci_j2k_enc_flight_drain (self);
    if (ret != GST_FLOW_OK) {
      gst_sci_video_encoder_abandon (base, frame);
      return ret;
    }
  }
#endif
  return gst_sci_j2k_enc_code_and_finish (self, frame);
}

/* EOS and drain queries: the frames in flight leave. */
static GstFlowReturn
gst_sci_j2k_enc_finish (GstVideoEncoder * encoder)
{
#if HAVE_CUDA
  return gst_sci_j2k_enc_flight_drain (GST_SCI_J2K_ENC (encoder));
#else
  return GST_FLOW_OK;
#endif
}

/* A flush drops the frames in flight. */
static gboolean
gst_sci_j2k_enc_flush (GstVideoEncoder * encoder)
{
#if HAVE_CUDA
  gst_sci_j2k_enc_flight_drop (GST_SCI_J2K_ENC (encoder));
#endif
  return TRUE;
}

/* Everything a stream made: at stop and at finalize. */
static void
release_all (GstSciJ2kEnc * self)
{
  release_encoder (self);
  gst_clear_caps (&self->incaps);
  gst_clear_caps (&self->outcaps);
  self->sent = FALSE;
}

static gboolean
gst_sci_j2k_enc_stop (GstVideoEncoder * encoder)
{
  /* before the base class drops the CUDA context */
  release_all (GST_SCI_J2K_ENC (encoder));
  return GST_VIDEO_ENCODER_CLASS (parent_class)->stop (encoder);
}

static void
gst_sci_j2k_enc_finalize (GObject * object)
{
  release_all (GST_SCI_J2K_ENC (object));
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_sci_j2k_enc_class_init (GstSciJ2kEncClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstVideoEncoderClass *venc_class = GST_VIDEO_ENCODER_CLASS (klass);
  GstSciVideoEncoderClass *sci_class = GST_SCI_VIDEO_ENCODER_CLASS (klass);
  GstCaps *caps;

  gobject_class->finalize = gst_sci_j2k_enc_finalize;
  gst_sci_j2k_enc_install_properties (gobject_class);

  caps = gst_sci_j2k_enc_sink_template_caps ();
  gst_element_class_add_pad_template (GST_ELEMENT_CLASS (klass),
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  venc_class->stop = GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_stop);
  venc_class->finish = GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_finish);
  venc_class->flush = GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_flush);
  sci_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_transform_caps);
  sci_class->video_caps = GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_video_caps);
  sci_class->configure = GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_configure);
  sci_class->encode = GST_DEBUG_FUNCPTR (gst_sci_j2k_enc_encode);
  /* buffers of pool_size (), which a new encoder changes */
  sci_class->exact_pool = TRUE;

  gst_type_mark_as_plugin_api (GST_TYPE_SCI_J2K_ENC, 0);
}

void
gst_sci_j2k_enc_class_setup (GstSciJ2kEncClass * klass, sci_j2k_coder coder,
    GstDebugCategory * debug)
{
  GstCaps *caps = gst_sci_j2k_enc_src_template_caps (coder);

  klass->coder = coder;
  klass->debug = debug;
  gst_sci_j2k_enc_install_coder_properties (G_OBJECT_CLASS (klass), coder);
  gst_element_class_add_pad_template (GST_ELEMENT_CLASS (klass),
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

static void
gst_sci_j2k_enc_init (GstSciJ2kEnc * self)
{
  gst_sci_j2k_enc_init_properties (self);
}
