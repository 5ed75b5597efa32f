/*
 * One frame of htj2kenc or ebcotcm coded at once: the wavelet transform
 * (raw video input) and the block coder on the C reference, or on the
 * CUDA kernels of lane 0 with tier-2 on the host; the CUDA handles of
 * both lanes (gstj2kencflight.c uses lane 1 too).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstj2kenc.h"
#if HAVE_CUDA
#include <cuda_runtime_api.h>
#include "cuda/error.h"
#endif

/* every log call here names the element `self` */
#define GST_CAT_DEFAULT (GST_SCI_J2K_ENC_GET_CLASS (self)->debug)

#if HAVE_CUDA
/* The CUDA handles (the block coders use enc: freed first).  Frames in
 * flight keep their inputs (flight_cuda_failed codes them on the CPU);
 * the device stops reading those first. */
void
gst_sci_j2k_enc_release_cuda (GstSciJ2kEnc * self)
{
  GstSciBackendState *b = &GST_SCI_VIDEO_ENCODER (self)->backend;
  guint j;

  if (!self->wt[0] && !self->wt[1] && !self->ht && !self->t1[0]
      && !self->t1[1] && !self->stream1)
    return;
  if (gst_sci_cuda_push (&b->cuda)) {
    if (self->stream1) {
      cudaStreamSynchronize ((cudaStream_t) self->stream1);
      cudaStreamDestroy ((cudaStream_t) self->stream1);
      cudaGetLastError ();
    }
    g_clear_pointer (&self->ht, sci_cuda_ht_destroy);
    for (j = 0; j < 2; j++) {
      g_clear_pointer (&self->t1[j], sci_cuda_t1_destroy);
      g_clear_pointer (&self->wt[j], sci_cuda_wt_destroy);
    }
    gst_sci_cuda_pop ();
  } else {
    GST_WARNING_OBJECT (self, "no CUDA context to free the device state in");
    self->ht = NULL;
    for (j = 0; j < 2; j++) {
      self->t1[j] = NULL;
      self->wt[j] = NULL;
    }
  }
  self->stream1 = NULL;
  self->next_lane = 0;
}

/* The CUDA handles for the encoder just made and the device coefficients
 * (staging slot 1, unless they come in CUDA memory), all allocated here
 * rather than at a frame; for ebcotcm with two frames in flight the same
 * again for lane 1, on a stream of its own (without them, one frame at a
 * time).  FALSE (error posted) when lane 0 cannot be had and the CPU
 * cannot take over; else use_cuda says which backend runs. */
gboolean
gst_sci_j2k_enc_setup_cuda (GstSciJ2kEnc * self, const GstWaveletInfo * winfo,
    const sci_htj2k_params * p)
{
  GstSciBackendState *b = &GST_SCI_VIDEO_ENCODER (self)->backend;
  gboolean coeffs_staged = !(self->wavelet_in && b->in_cuda_memory);
  const gchar *what = "context push";
  gint err = 0;

  if (gst_sci_cuda_push (&b->cuda)) {
    what = NULL;
    if (!self->wavelet_in
        && (err = sci_cuda_wt_create (&self->wt[0], &winfo->geom)))
      what = "wavelet transform scratch";
    /* refinement passes: blocks coded on the host (encode_frame_cuda) */
    else if (p->coder == SCI_J2K_CODER_HT && !p->refinement
        && (err = sci_cuda_ht_create (&self->ht, self->enc, &winfo->geom, p)))
      what = "HT block coder memory";
    else if (p->coder == SCI_J2K_CODER_PART1
        && (err = sci_cuda_t1_create (&self->t1[0], self->enc, &winfo->geom,
                p)))
      what = "EBCOT block coder memory";
    else if (coeffs_staged
        && !gst_sci_cuda_staging (&b->cuda, 1, winfo->size, &err))
      what = "coefficient buffer";
    if (what)
      cudaGetLastError ();
    if (!what && p->coder == SCI_J2K_CODER_PART1 && self->frames_in_flight > 1) {
      cudaStream_t stream = NULL;
      const gchar *lane = NULL;

      if ((err = cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking)))
        lane = "stream";
      else if (!self->wavelet_in
          && (err = sci_cuda_wt_create (&self->wt[1], &winfo->geom)))
        lane = "wavelet transform scratch";
      else if ((err = sci_cuda_t1_create (&self->t1[1], self->enc,
                  &winfo->geom, p)))
        lane = "EBCOT block coder memory";
      else if (coeffs_staged
          && !gst_sci_cuda_staging (&b->cuda, 3, winfo->size, &err))
        lane = "coefficient buffer";
      if (lane) {
        cudaGetLastError ();
        GST_WARNING_OBJECT (self, "no second frame in flight: its %s cannot "
            "be had (%s); one frame at a time", lane,
            gst_sci_cuda_error_name (err));
        g_clear_pointer (&self->t1[1], sci_cuda_t1_destroy);
        g_clear_pointer (&self->wt[1], sci_cuda_wt_destroy);
        if (stream)
          cudaStreamDestroy (stream);
      } else {
        self->stream1 = stream;
      }
    }
    gst_sci_cuda_pop ();
  }
  if (!what) {
    GST_DEBUG_OBJECT (self, "block coder: %" G_GSIZE_FORMAT " bytes of "
        "device memory%s", self->ht ? sci_cuda_ht_device_bytes (self->ht) :
        self->t1[0] ? sci_cuda_t1_device_bytes (self->t1[0]) : 0,
        self->t1[1] ? " a lane, two frames in flight" : "");
    return TRUE;
  }
  gst_sci_j2k_enc_release_cuda (self);
  return gst_sci_backend_cuda_failed (b, what, err);
}
#endif

gboolean
gst_sci_j2k_enc_map_frame (GstSciJ2kEnc * self, GstVideoFrame * frame,
    GstBuffer * inbuf)
{
  if (gst_video_frame_map (frame, &self->in_info, inbuf, GST_MAP_READ))
    return TRUE;
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Input buffer of %" G_GSIZE_FORMAT " bytes does not hold a %s "
          "%dx%d frame (%" G_GSIZE_FORMAT " bytes)",
          gst_buffer_get_size (inbuf), GST_VIDEO_INFO_NAME (&self->in_info),
          GST_VIDEO_INFO_WIDTH (&self->in_info),
          GST_VIDEO_INFO_HEIGHT (&self->in_info),
          GST_VIDEO_INFO_SIZE (&self->in_info)), (NULL));
  return FALSE;
}

gboolean
gst_sci_j2k_enc_map_coefficients (GstSciJ2kEnc * self, GstBuffer * inbuf,
    GstMapInfo * in, GstMapFlags extra)
{
  if (!gst_buffer_map (inbuf, in, GST_MAP_READ | extra)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map input buffer"),
        (NULL));
    return FALSE;
  }
  if (in->size < self->winfo.size) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input buffer of %" G_GSIZE_FORMAT " bytes is smaller than the %"
            G_GSIZE_FORMAT " bytes of coefficients the caps describe",
            in->size, self->winfo.size), (NULL));
    gst_buffer_unmap (inbuf, in);
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_sci_j2k_enc_give_bound_memory (GstSciJ2kEnc * self, GstBuffer * outbuf)
{
  GstMemory *mem = gst_allocator_alloc (NULL, self->max_bytes, NULL);

  GST_DEBUG_OBJECT (self, "the frame needs more than the %" G_GSIZE_FORMAT
      " bytes of the pool's buffers: coding it into %" G_GSIZE_FORMAT,
      self->pool_bytes, self->max_bytes);
  if (!mem) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Cannot allocate a %" G_GSIZE_FORMAT "-byte output buffer",
            self->max_bytes), (NULL));
    return FALSE;
  }
  gst_buffer_replace_all_memory (outbuf, mem);
  return TRUE;
}

/* One frame through the C reference: the wavelet transform (raw input) and
 * the encoder.  *written gets the coded bytes. */
static GstFlowReturn
encode_frame_cpu (GstSciJ2kEnc * self, GstBuffer * inbuf, guint8 * out,
    gsize cap, gsize * written)
{
  GstMapInfo in = GST_MAP_INFO_INIT;
  const void *coeffs;

  if (self->wavelet_in) {
    if (!gst_sci_j2k_enc_map_coefficients (self, inbuf, &in, 0))
      return GST_FLOW_ERROR;
    coeffs = in.data;
    if ((guintptr) in.data % 4) {
      /* samples are read as int32 or float */
      if (!self->coeffs)
        self->coeffs = g_malloc (self->winfo.size);
      memcpy (self->coeffs, in.data, self->winfo.size);
      coeffs = self->coeffs;
    }
  } else {
    sci_wt_plane planes[SCI_WT_MAX_COMPONENTS];
    GstVideoFrame frame;
    int err;

    /* not made at configure when the CUDA backend was to run */
    if (!self->coeffs && !(self->coeffs = g_try_malloc (self->winfo.size))) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Cannot allocate %" G_GSIZE_FORMAT " bytes of coefficients",
              self->winfo.size), (NULL));
      return GST_FLOW_ERROR;
    }
    if (!gst_sci_j2k_enc_map_frame (self, &frame, inbuf))
      return GST_FLOW_ERROR;
    gst_wavelet_planes_from_frame (&frame, planes);
    err =
        sci_wt_forward (gst_sci_backend_pool (&GST_SCI_VIDEO_ENCODER
            (self)->backend), &self->winfo.geom, planes, self->coeffs);
    gst_video_frame_unmap (&frame);
    if (err) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Out of memory for the wavelet transform scratch"), (NULL));
      return GST_FLOW_ERROR;
    }
    coeffs = self->coeffs;
  }

  *written = sci_htj2k_encode (self->enc, coeffs, out, cap);
  if (in.memory)
    gst_buffer_unmap (inbuf, &in);
  if (*written == 0 && cap < self->max_bytes)
    return FLOW_TOO_SMALL;
  if (*written == 0) {
    GST_ELEMENT_ERROR (self, STREAM, ENCODE,
        ("The JPEG 2000 encoder refused the frame"),
        ("sci_htj2k_encode returned 0 with a %" G_GSIZE_FORMAT "-byte "
            "buffer (magnitudes beyond the signalled bit-planes?)", cap));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

#if HAVE_CUDA
gpointer
gst_sci_j2k_enc_lane_stream (GstSciJ2kEnc * self, guint j)
{
  return j ? self->stream1 : GST_SCI_VIDEO_ENCODER (self)->backend.cuda.stream;
}

gboolean
gst_sci_j2k_enc_flight_map (GstSciJ2kEnc * self, GstSciJ2kFlight * f,
    GstBuffer * inbuf)
{
  GstSciCuda *cuda = &GST_SCI_VIDEO_ENCODER (self)->backend.cuda;
  gboolean one = gst_buffer_n_memory (inbuf) == 1;
  gboolean in_dev = one && gst_sci_cuda_buffer_is_device (cuda, inbuf);
  /* another device's memory is mapped for its device addresses too, and
   * staged like a host frame: the copy goes device to device */
  gboolean peer = one && !in_dev && gst_sci_cuda_buffer_is_peer (cuda, inbuf);

  memset (f, 0, sizeof (*f));
  if (self->wavelet_in) {
    if (!gst_sci_j2k_enc_map_coefficients (self, inbuf, &f->map,
            in_dev || peer ? GST_MAP_CUDA : 0))
      return FALSE;
  } else {
    f->video = TRUE;
    if ((in_dev || peer) && !gst_sci_cuda_map_device_frame (&f->vframe,
            &self->in_info, inbuf, GST_MAP_READ)) {
      GST_DEBUG_OBJECT (self, "cannot map the CUDA input in place: staging");
      in_dev = peer = FALSE;
    }
    if (!in_dev && !peer
        && !gst_sci_j2k_enc_map_frame (self, &f->vframe, inbuf))
      return FALSE;
  }
  if (peer)
    GST_LOG_OBJECT (self, "input on another device: copied peer to peer");
  f->mapped = TRUE;
  f->in_dev = in_dev;
  f->inbuf = gst_buffer_ref (inbuf);
  return TRUE;
}

void
gst_sci_j2k_enc_flight_unmap (GstSciJ2kFlight * f)
{
  if (!f->mapped)
    return;
  if (f->video)
    gst_video_frame_unmap (&f->vframe);
  else
    gst_buffer_unmap (f->inbuf, &f->map);
  f->mapped = FALSE;
}

static void
flight_clear (GstSciJ2kFlight * f)
{
  gst_sci_j2k_enc_flight_unmap (f);
  gst_clear_buffer (&f->inbuf);
  f->on_cpu = FALSE;
}

/* Queues on lane j's stream what brings frame f's coefficients to the
 * device: the upload of raw video or coefficients in system memory into
 * the lane's staging, the wavelet transform of raw video; *coeffs gets
 * their device address.  Call with the context pushed.  FALSE when a CUDA
 * call failed (*what and *err say which). */
gboolean
gst_sci_j2k_enc_stage_input (GstSciJ2kEnc * self, guint j, GstSciJ2kFlight * f,
    gconstpointer * coeffs, const gchar ** what, gint * err)
{
  GstSciCuda *cuda = &GST_SCI_VIDEO_ENCODER (self)->backend.cuda;
  gpointer stream = gst_sci_j2k_enc_lane_stream (self, j);
  sci_wt_plane planes[SCI_WT_MAX_COMPONENTS];
  GstVideoFrame staged;
  gpointer dev = NULL;

  if (!(self->wavelet_in && f->in_dev)) {
    dev = gst_sci_cuda_staging (cuda, 2 * j + 1, self->winfo.size, err);
    if (!dev) {
      *what = "coefficient buffer";
      return FALSE;
    }
  }
  if (self->wavelet_in) {
    *coeffs = f->map.data;
    if (!f->in_dev) {
      if ((*err = gst_sci_cuda_copy_on (stream, dev, f->map.data,
                  self->winfo.size))) {
        *what = "coefficient upload";
        return FALSE;
      }
      *coeffs = dev;
    }
    return TRUE;
  }
  if (f->in_dev) {
    gst_wavelet_planes_from_frame (&f->vframe, planes);
  } else {
    if ((*err = gst_sci_cuda_stage_frame_on (cuda, stream, &f->vframe, 2 * j,
                TRUE, &staged))) {
      *what = "input upload";
      return FALSE;
    }
    gst_wavelet_planes_from_frame (&staged, planes);
  }
  if ((*err = sci_cuda_wt_forward (self->wt[j], planes, dev, stream))) {
    *what = "forward transform";
    return FALSE;
  }
  *coeffs = dev;
  return TRUE;
}

/* What the block coders' errors mean for a frame coded into a buffer of
 * cap bytes: FLOW_TOO_SMALL (a larger buffer will do), an error of the
 * data (posted: the C reference would refuse the frame too), a CUDA
 * failure, or success. */
GstFlowReturn
gst_sci_j2k_enc_cuda_coded (GstSciJ2kEnc * self, gsize cap, const gchar * what,
    gint err)
{
  if ((err == SCI_CUDA_HT_ERR_CAP || err == SCI_CUDA_T1_ERR_CAP)
      && cap < self->max_bytes)
    return FLOW_TOO_SMALL;
  if (err == SCI_CUDA_HT_ERR_BLOCK || err == SCI_CUDA_HT_ERR_CAP
      || err == SCI_CUDA_T1_ERR_BLOCK || err == SCI_CUDA_T1_ERR_CAP) {
    GST_ELEMENT_ERROR (self, STREAM, ENCODE,
        ("The JPEG 2000 encoder refused the frame"),
        ("%s with a %" G_GSIZE_FORMAT "-byte buffer: %s", what, cap,
            sci_cuda_error_string (err)));
    return GST_FLOW_ERROR;
  }
  return what ? FLOW_CUDA_FAILED : GST_FLOW_OK;
}

/* HT refinement passes, which the device block coder does not write: the
 * device coefficients to the host and sci_htj2k_encode there.  Call with
 * the context pushed. */
static void
encode_on_host (GstSciJ2kEnc * self, gconstpointer coeffs, guint8 * out,
    gsize cap, gsize * written, const gchar ** what, gint * err)
{
  GstSciCuda *cuda = &GST_SCI_VIDEO_ENCODER (self)->backend.cuda;

  if (!self->coeffs && !(self->coeffs = g_try_malloc (self->winfo.size))) {
    *what = "host coefficient buffer";
    *err = cudaErrorMemoryAllocation;
    return;
  }
  if ((*err = cudaStreamSynchronize ((cudaStream_t) cuda->stream))
      || (*err = cudaMemcpy (self->coeffs, coeffs, self->winfo.size,
              cudaMemcpyDeviceToHost))) {
    *what = "coefficient download";
    return;
  }
  *written = sci_htj2k_encode (self->enc, self->coeffs, out, cap);
  if (!*written) {
    /* too small a buffer, or a frame the C coder refuses: as the device
     * coder's result says either (gst_sci_j2k_enc_cuda_coded) */
    *what = "HT encoding with refinement passes on the host";
    *err = SCI_CUDA_HT_ERR_CAP;
  }
}

/* One frame through the kernels, lane 0: raw video in CUDA memory read in
 * place (else uploaded into staging slot 0) and transformed into the
 * device coefficients (staging slot 1), or coefficients in CUDA memory
 * read in place (else uploaded into slot 1); then block coding on the
 * device and tier-2 on the host into `out` (the coders synchronize, so
 * the input may be unmapped after them).  On FLOW_CUDA_FAILED, *what and
 * *err say what failed. */
static GstFlowReturn
encode_frame_cuda (GstSciJ2kEnc * self, GstBuffer * inbuf, guint8 * out,
    gsize cap, gsize * written, const gchar ** what, gint * err)
{
  GstSciCuda *cuda = &GST_SCI_VIDEO_ENCODER (self)->backend.cuda;
  GstSciJ2kFlight f;
  gconstpointer coeffs;

  *what = NULL;
  *err = 0;
  if (!gst_sci_j2k_enc_flight_map (self, &f, inbuf))
    return GST_FLOW_ERROR;
  if (!gst_sci_cuda_push (cuda)) {
    *what = "context push";
  } else {
    if (!gst_sci_j2k_enc_stage_input (self, 0, &f, &coeffs, what, err)) {
      /* *what says it */
    } else if (self->ht) {
      *err = sci_cuda_ht_encode (self->ht, coeffs, out, cap, written,
          cuda->stream);
      if (*err) {
        *what = "HT encoding";
      } else {
        /* rate control codes the blocks once a trial step: how many a
         * frame took is what explains a slow frame */
        sci_cuda_ht_times t;
        sci_cuda_ht_get_times (self->ht, &t);
        GST_LOG_OBJECT (self, "frame %" GST_TIME_FORMAT ": %" G_GSIZE_FORMAT
            " bytes, blocks coded %d times", GST_TIME_ARGS (GST_BUFFER_PTS
                (inbuf)), *written, t.trials);
      }
    } else if (!self->t1[0]) {
      encode_on_host (self, coeffs, out, cap, written, what, err);
    } else {
      *err = sci_cuda_t1_encode (self->t1[0], coeffs, out, cap, written,
          cuda->stream);
      if (*err)
        *what = "EBCOT encoding";
    }
    if (*what)
      cudaGetLastError ();      /* clear what is not sticky */
    gst_sci_cuda_pop ();
  }
  flight_clear (&f);
  return gst_sci_j2k_enc_cuda_coded (self, cap, *what, *err);
}

#endif

/* One frame into outbuf's memory, on the CUDA backend while it works (a
 * CUDA failure before the first frame has left hands the stream to the
 * CPU); FLOW_TOO_SMALL when the memory cannot hold it. */
static GstFlowReturn
encode_into (GstSciJ2kEnc * self, GstBuffer * inbuf, GstBuffer * outbuf,
    gsize * written)
{
#if HAVE_CUDA
  GstSciBackendState *b = &GST_SCI_VIDEO_ENCODER (self)->backend;
#endif
  GstMapInfo out;
  GstFlowReturn ret;

  if (!gst_buffer_map (outbuf, &out, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
#if HAVE_CUDA
  if (b->use_cuda && (self->ht || self->t1[0])) {
    const gchar *what;
    gint err;

    ret = encode_frame_cuda (self, inbuf, out.data, out.size, written, &what,
        &err);
    if (ret == FLOW_CUDA_FAILED) {
      if (!gst_sci_backend_frame_cuda_failed (b, self->sent, what, err)) {
        ret = GST_FLOW_ERROR;
      } else {
        gst_sci_j2k_enc_release_cuda (self);
        GST_INFO_OBJECT (self, "backend: CPU (C reference) from now on");
        ret = encode_frame_cpu (self, inbuf, out.data, out.size, written);
      }
    }
  } else
#endif
    ret = encode_frame_cpu (self, inbuf, out.data, out.size, written);
  gst_buffer_unmap (outbuf, &out);
  return ret;
}

GstFlowReturn
gst_sci_j2k_enc_code_frame (GstSciJ2kEnc * self, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstFlowReturn ret;
  gsize written = 0;

  ret = encode_into (self, inbuf, outbuf, &written);
  if (ret == FLOW_TOO_SMALL) {
    if (!gst_sci_j2k_enc_give_bound_memory (self, outbuf))
      return GST_FLOW_ERROR;
    ret = encode_into (self, inbuf, outbuf, &written);
  }
  if (ret == GST_FLOW_OK) {
    gst_buffer_set_size (outbuf, written);
    self->sent = TRUE;
    if (self->params.bitrate > 0)
      GST_LOG_OBJECT (self, "%" G_GSIZE_FORMAT " bytes, qstep %g for bitrate "
          "%g", written, sci_htj2k_last_qstep (self->enc),
          self->params.bitrate);
  }
  return ret;
}
