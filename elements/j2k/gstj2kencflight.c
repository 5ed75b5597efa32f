/*
 * ebcotcm's two frames in flight on CUDA: a frame's wavelet transform and
 * Tier-1 are queued on the GPU (lanes take turns, each with its own
 * stream, Tier-1 handle and staging) and the frame before leaves while
 * they run, so the host's tier-2 of one frame overlaps the next one's
 * kernels.  The frames are GstVideoEncoder's: each is finished, with its
 * own timestamps, when the next one has been queued, at a drain (EOS, a
 * drain query, new caps, a property change) or dropped at a flush.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstj2kenc.h"

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#include "cuda/error.h"

/* every log call here names the element `self` */
#define GST_CAT_DEFAULT (GST_SCI_J2K_ENC_GET_CLASS (self)->debug)

gboolean
gst_sci_j2k_enc_pipelined (GstSciJ2kEnc * self)
{
  return GST_SCI_VIDEO_ENCODER (self)->backend.use_cuda && self->t1[0]
      && self->t1[1];
}

guint
gst_sci_j2k_enc_frames_in_flight (GstSciJ2kEnc * self)
{
  return (self->flight[0].frame != NULL) + (self->flight[1].frame != NULL);
}

/* The lane of the oldest frame in flight (frames in flight > 0). */
static guint
oldest_lane (GstSciJ2kEnc * self)
{
  guint j = self->next_lane;

  return self->flight[j].frame ? j : j ^ 1;
}

/* The lane's input let go (the frame stays the caller's). */
static void
flight_clear (GstSciJ2kFlight * f)
{
  gst_sci_j2k_enc_flight_unmap (f);
  gst_clear_buffer (&f->inbuf);
  f->on_cpu = FALSE;
  f->frame = NULL;
}

/* The CUDA backend failed with frames in flight: where the stream may
 * still change backend (nothing has left yet), every frame in flight is
 * marked for the CPU (its input is kept) and the device state goes; else
 * the error is posted and FALSE returned. */
static gboolean
flight_cuda_failed (GstSciJ2kEnc * self, const gchar * what, gint err)
{
  GstSciVideoEncoder *base = GST_SCI_VIDEO_ENCODER (self);
  guint j;

  if (!gst_sci_backend_frame_cuda_failed (&base->backend, self->sent, what,
          err))
    return FALSE;
  for (j = 0; j < 2; j++) {
    gst_sci_j2k_enc_flight_unmap (&self->flight[j]);
    self->flight[j].on_cpu = self->flight[j].frame != NULL;
  }
  gst_sci_j2k_enc_release_cuda (self);
  /* one frame at a time from now on */
  gst_sci_video_encoder_set_frames_latency (base, 0);
  GST_INFO_OBJECT (self, "backend: CPU (C reference) from now on");
  return TRUE;
}

GstFlowReturn
gst_sci_j2k_enc_flight_submit (GstSciJ2kEnc * self, GstVideoCodecFrame * frame)
{
  GstSciCuda *cuda = &GST_SCI_VIDEO_ENCODER (self)->backend.cuda;
  guint j = self->next_lane;
  GstSciJ2kFlight *f = &self->flight[j];
  const gchar *what = NULL;
  gconstpointer coeffs;
  gint err = 0;

  g_assert (f->frame == NULL);
  if (!gst_sci_j2k_enc_flight_map (self, f, frame->input_buffer))
    return GST_FLOW_ERROR;
  if (!gst_sci_cuda_push (cuda)) {
    what = "context push";
  } else {
    if (gst_sci_j2k_enc_stage_input (self, j, f, &coeffs, &what, &err)
        && (err = sci_cuda_t1_submit (self->t1[j], coeffs,
                gst_sci_j2k_enc_lane_stream (self, j))))
      what = "EBCOT encoding";
    if (what)
      cudaGetLastError ();
    gst_sci_cuda_pop ();
  }
  if (what) {
    flight_clear (f);
    return flight_cuda_failed (self, what, err) ? FLOW_CUDA_FAILED :
        GST_FLOW_ERROR;
  }
  f->frame = frame;
  self->next_lane = j ^ 1;
  return GST_FLOW_OK;
}

/* The codestream of lane j's finished Tier-1 into outbuf, given a buffer
 * of its own at the bound when the pool's is too small. */
static GstFlowReturn
flight_write (GstSciJ2kEnc * self, guint j, GstBuffer * outbuf)
{
  GstMapInfo out;
  gsize written = 0;
  gint err;

  if (!gst_buffer_map (outbuf, &out, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  err = sci_cuda_t1_write (self->t1[j], out.data, out.size, &written);
  gst_buffer_unmap (outbuf, &out);
  if (err == SCI_CUDA_T1_ERR_CAP && out.size < self->max_bytes) {
    if (!gst_sci_j2k_enc_give_bound_memory (self, outbuf)
        || !gst_buffer_map (outbuf, &out, GST_MAP_WRITE))
      return GST_FLOW_ERROR;
    err = sci_cuda_t1_write (self->t1[j], out.data, out.size, &written);
    gst_buffer_unmap (outbuf, &out);
  }
  if (err) {
    /* cuda_coded posts the errors of the data */
    if (gst_sci_j2k_enc_cuda_coded (self, self->max_bytes, "EBCOT encoding",
            err) != GST_FLOW_ERROR)
      GST_ELEMENT_ERROR (self, STREAM, ENCODE, ("The JPEG 2000 encoder failed"),
          ("tier-2: %s", sci_cuda_error_string (err)));
    return GST_FLOW_ERROR;
  }
  gst_buffer_set_size (outbuf, written);
  self->sent = TRUE;
  return GST_FLOW_OK;
}

GstFlowReturn
gst_sci_j2k_enc_flight_finish (GstSciJ2kEnc * self)
{
  GstSciVideoEncoder *base = GST_SCI_VIDEO_ENCODER (self);
  guint j = oldest_lane (self);
  GstSciJ2kFlight *f = &self->flight[j];
  GstVideoCodecFrame *frame = f->frame;
  gboolean on_cpu = f->on_cpu;
  GstBuffer *outbuf = NULL;
  const gchar *what = NULL;
  GstFlowReturn ret;
  gint err = 0;

  if (!on_cpu) {
    if (!gst_sci_cuda_push (&base->backend.cuda)) {
      what = "context push";
    } else {
      if ((err = sci_cuda_t1_finish (self->t1[j])))
        what = "EBCOT encoding";
      if (what)
        cudaGetLastError ();
      gst_sci_cuda_pop ();
    }
  }
  /* the device is done with the input */
  flight_clear (f);
  if (what) {
    ret = gst_sci_j2k_enc_cuda_coded (self, self->max_bytes, what, err);
    if (ret != FLOW_CUDA_FAILED || !flight_cuda_failed (self, what, err)) {
      gst_sci_video_encoder_abandon (base, frame);
      return GST_FLOW_ERROR;
    }
    on_cpu = TRUE;
  }
  if (on_cpu)
    return gst_sci_j2k_enc_code_and_finish (self, frame);
  ret = gst_sci_video_encoder_acquire (base, self->pool_bytes, &outbuf);
  if (ret == GST_FLOW_OK)
    ret = flight_write (self, j, outbuf);
  if (ret != GST_FLOW_OK) {
    gst_clear_buffer (&outbuf);
    gst_sci_video_encoder_abandon (base, frame);
    return ret;
  }
  return gst_sci_video_encoder_finish (base, frame, outbuf);
}

void
gst_sci_j2k_enc_flight_drop (GstSciJ2kEnc * self)
{
  GstSciVideoEncoder *base = GST_SCI_VIDEO_ENCODER (self);
  guint j;

  for (j = 0; j < 2; j++) {
    GstSciJ2kFlight *f = &self->flight[j];
    GstVideoCodecFrame *frame = f->frame;

    if (!frame)
      continue;
    if (!f->on_cpu && gst_sci_cuda_push (&base->backend.cuda)) {
      cudaStreamSynchronize ((cudaStream_t) gst_sci_j2k_enc_lane_stream (self,
              j));
      cudaGetLastError ();
      gst_sci_cuda_pop ();
    }
    GST_DEBUG_OBJECT (self, "dropping a frame in flight");
    flight_clear (f);
    gst_sci_video_encoder_abandon (base, frame);
  }
  self->next_lane = 0;
}

GstFlowReturn
gst_sci_j2k_enc_flight_drain (GstSciJ2kEnc * self)
{
  GstFlowReturn ret = GST_FLOW_OK;

  while (ret == GST_FLOW_OK && gst_sci_j2k_enc_frames_in_flight (self))
    ret = gst_sci_j2k_enc_flight_finish (self);
  if (ret != GST_FLOW_OK) {
    GST_DEBUG_OBJECT (self, "draining: %s", gst_flow_get_name (ret));
    gst_sci_j2k_enc_flight_drop (self);
  }
  return ret;
}
#endif
