/*
 * j2kdec's CUDA path (cuda/j2k/j2kdec.h): a frame is parsed on the host,
 * queued after the instance's stream (on a stream of the decoder's slot,
 * so that the frames in flight decode at once), and finished once
 * `frames-in-flight`
 * frames are queued (or at a drain), so that the host parses frame n + 1
 * while the GPU decodes frame n.  The planes are written by the kernels
 * straight into the output buffer when it is CUDA memory; for system
 * memory they go to device staging (one slot a frame in flight) and are
 * copied into a page-locked output buffer at the finish.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstj2kdec.h"

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#include "cuda/error.h"
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (gst_j2k_dec_debug);
#define GST_CAT_DEFAULT gst_j2k_dec_debug

/* a frame in flight into system memory has a staging block of its own */
G_STATIC_ASSERT (GST_J2K_DEC_MAX_FLIGHT <= GST_SCI_CUDA_STAGING_SLOTS);

void
gst_j2k_dec_cuda_release (GstJ2kDec * self)
{
  GstSciBackendState *b = &GST_SCI_VIDEO_DECODER (self)->backend;

  gst_sci_out_pool_clear (&self->out);
  gst_sci_backend_cuda_state_close (b, (gpointer *) & self->cuda_dec,
      (GDestroyNotify) sci_cuda_j2kdec_destroy);
}

/* The GPU decoder, made at the first frame with `frames-in-flight` slots.
 * FALSE: an error was posted; else use_cuda says whether the GPU runs
 * (a failure may have handed the frames to the C reference). */
static gboolean
open_decoder (GstJ2kDec * self)
{
  GstSciBackendState *b = &GST_SCI_VIDEO_DECODER (self)->backend;
  guint slots;
  gint err = 0;

  if (self->cuda_dec)
    return TRUE;
  GST_OBJECT_LOCK (self);
  slots = self->frames_in_flight;
  GST_OBJECT_UNLOCK (self);
  if (!gst_sci_cuda_push (&b->cuda))
    return gst_sci_backend_cuda_failed (b, "context push", 0);
  err = sci_cuda_j2kdec_create (&self->cuda_dec, slots, b->threads);
  if (err) {
    cudaGetLastError ();
    self->cuda_dec = NULL;
  }
  gst_sci_cuda_pop ();
  if (err)
    return gst_sci_backend_cuda_failed (b, "JPEG 2000 GPU decoder state",
        err < 0 ? cudaErrorMemoryAllocation : err);
  self->slots = slots;
  if (self->fps_n > 0 && self->fps_d > 0) {
    GstClockTime lat = gst_util_uint64_scale (slots - 1,
        GST_SECOND * (guint64) self->fps_d, self->fps_n);

    gst_video_decoder_set_latency (GST_VIDEO_DECODER (self), lat, lat);
  }
  return TRUE;
}

/* Page-locked host memory for a frame of out_info (the kernels write
 * device staging, copied into it when the frame leaves).  NULL posts an
 * error. */
static GstBuffer *
acquire_host_output (GstJ2kDec * self)
{
  GstVideoInfo *vi = &self->out_info;
  GstCaps *caps = gst_video_info_to_caps (vi);
  GstBuffer *buf = gst_sci_out_pool_acquire (&self->out, GST_ELEMENT (self),
      GST_SCI_VIDEO_DECODER (self)->backend.cuda.context, caps,
      GST_VIDEO_INFO_SIZE (vi), FALSE);

  gst_caps_unref (caps);
  return buf;
}

/* A device buffer for a frame of out_info: from the pool negotiated with
 * downstream (decide_allocation: GstCudaMemory of the format where
 * GStreamer 1.22 allocates it, so that cudaconvert, cudadownload and the
 * other CUDA elements read it as they expect; else a flat block), else a
 * flat block of ours.  Flat blocks carry the video meta of out_info.  NULL
 * posts an error. */
static GstBuffer *
acquire_device_output (GstJ2kDec * self)
{
  GstSciCuda *cuda = &GST_SCI_VIDEO_DECODER (self)->backend.cuda;
  GstVideoInfo *vi = &self->out_info;
  GstBuffer *buf =
      gst_video_decoder_allocate_output_buffer (GST_VIDEO_DECODER (self));

  if (buf && !gst_sci_cuda_buffer_is_device (cuda, buf))
    gst_clear_buffer (&buf);
  if (!buf) {
    GstCaps *caps = gst_video_info_to_caps (vi);

    GST_DEBUG_OBJECT (self, "no device buffer from the negotiated pool");
    buf = gst_sci_out_pool_acquire (&self->out, GST_ELEMENT (self),
        cuda->context, caps, GST_VIDEO_INFO_SIZE (vi), TRUE);
    gst_caps_unref (caps);
  }
  if (buf && !gst_buffer_get_video_meta (buf)) {
    GstMemory *mem = gst_buffer_peek_memory (buf, 0);
    const GstVideoInfo *layout = vi;

    /* A GstCudaMemory of the format has its own (pitched) layout, which
     * nvcodec's elements read from the memory but a host mapping only
     * from a video meta: the meta says it for both. */
    if (gst_is_cuda_memory (mem) && GST_VIDEO_INFO_FORMAT
        (&GST_CUDA_MEMORY_CAST (mem)->info) == GST_VIDEO_INFO_FORMAT (vi))
      layout = &GST_CUDA_MEMORY_CAST (mem)->info;
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (vi), GST_VIDEO_INFO_WIDTH (vi),
        GST_VIDEO_INFO_HEIGHT (vi), GST_VIDEO_INFO_N_PLANES (vi),
        (gsize *) layout->offset, (gint *) layout->stride);
  }
  return buf;
}

/* Maps device buffer `buf` for writing; FALSE posts an error. */
static gboolean
dev_map (GstJ2kDec * self, GstBuffer * buf, GstJ2kDecDevMap * m)
{
  GstVideoInfo *vi = &self->out_info;
  guint p;

  memset (m, 0, sizeof *m);
  if (gst_sci_cuda_map_device_frame (&m->frame, vi, buf, GST_MAP_WRITE)) {
    m->mapped = TRUE;
    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (vi); p++) {
      m->data[p] = GST_VIDEO_FRAME_PLANE_DATA (&m->frame, p);
      m->stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&m->frame, p);
    }
    return TRUE;
  }
  GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
      ("Cannot map the output buffer in CUDA memory"), (NULL));
  return FALSE;
}

static void
dev_unmap (GstJ2kDecDevMap * m)
{
  if (m->mapped)
    gst_video_frame_unmap (&m->frame);
  m->mapped = FALSE;
}

/* The rows of plane p of out_info. */
static guint
plane_rows (const GstVideoInfo * vi, guint p)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (vi->finfo, p, comp);
  return GST_VIDEO_INFO_COMP_HEIGHT (vi, comp[0]);
}

gboolean
gst_j2k_dec_cuda_upload (GstJ2kDec * self, const guint8 * host,
    GstBuffer ** out)
{
  GstSciCuda *cuda = &GST_SCI_VIDEO_DECODER (self)->backend.cuda;
  GstVideoInfo *vi = &self->out_info;
  GstBuffer *buf = acquire_device_output (self);
  GstJ2kDecDevMap m;
  gint err = cudaErrorInvalidValue;
  guint p;

  *out = NULL;
  if (!buf)
    return FALSE;
  if (!dev_map (self, buf, &m)) {
    gst_buffer_unref (buf);
    return FALSE;
  }
  if (gst_sci_cuda_push (cuda)) {
    err = 0;
    for (p = 0; !err && p < GST_VIDEO_INFO_N_PLANES (vi); p++)
      err = gst_sci_cuda_copy_2d (cuda, m.data[p], m.stride[p],
          host + GST_VIDEO_INFO_PLANE_OFFSET (vi, p),
          GST_VIDEO_INFO_PLANE_STRIDE (vi, p),
          MIN (m.stride[p], GST_VIDEO_INFO_PLANE_STRIDE (vi, p)),
          plane_rows (vi, p));
    if (!err)
      err = gst_sci_cuda_sync (cuda);
    gst_sci_cuda_pop ();
  }
  dev_unmap (&m);
  if (err) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Cannot copy the decoded frame into CUDA memory: %s",
            gst_sci_cuda_error_name (err)), (NULL));
    gst_buffer_unref (buf);
    return FALSE;
  }
  *out = buf;
  return TRUE;
}

/* The planes of out_info's components, plane p at data[p] with rows
 * stride[p] bytes apart (device memory). */
static void
device_planes (GstJ2kDec * self, guint8 * const *data, const gint * stride,
    sci_cuda_j2kdec_plane * planes)
{
  GstVideoInfo *vi = &self->out_info;
  guint bytes = GST_VIDEO_FORMAT_INFO_BITS (vi->finfo) > 8 ? 2 : 1, c;

  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (vi); c++) {
    guint plane = GST_VIDEO_INFO_COMP_PLANE (vi, c);

    planes[c].data = data[plane] + GST_VIDEO_INFO_COMP_POFFSET (vi, c);
    planes[c].row_stride = stride[plane];
    planes[c].pixel_stride = GST_VIDEO_INFO_COMP_PSTRIDE (vi, c);
    planes[c].bytes = bytes;
  }
}

static void
flight_clear_output (GstJ2kDecFlight * f)
{
  if (f->out) {
    if (f->dev.mapped)
      dev_unmap (&f->dev);
    else
      gst_buffer_unmap (f->out, &f->host);
    gst_clear_buffer (&f->out);
  }
  f->staging = NULL;
}

static void
flight_clear (GstJ2kDecFlight * f)
{
  flight_clear_output (f);
  if (f->in) {
    gst_buffer_unmap (f->in, &f->in_map);
    gst_clear_buffer (&f->in);
  }
  f->frame = NULL;
}

/* The flight entry the next frame takes: after a drain too (the head
 * then moves to it). */
static GstJ2kDecFlight *
next_flight (GstJ2kDec * self, guint * idx)
{
  *idx = (self->flight_head + self->flight_count) % GST_J2K_DEC_MAX_FLIGHT;
  return &self->flight[*idx];
}

/* The oldest frame in flight: waited for, copied back when in system
 * memory, output. */
static GstFlowReturn
finish_oldest (GstJ2kDec * self)
{
  GstSciCuda *cuda = &GST_SCI_VIDEO_DECODER (self)->backend.cuda;
  GstJ2kDecFlight *f = &self->flight[self->flight_head];
  GstVideoCodecFrame *frame = f->frame;
  GstBuffer *out = gst_buffer_ref (f->out);
  gint rc = cudaErrorInvalidValue;

  if (gst_sci_cuda_push (cuda)) {
    rc = sci_cuda_j2kdec_finish (self->cuda_dec, f->ticket);
    if (!rc)
      GST_LOG_OBJECT (self, "ticket %u decoded (%s path)", f->ticket,
          sci_cuda_j2kdec_path (self->cuda_dec) == SCI_CUDA_J2KDEC_DEVICE ?
          "device" : "host");
    if (!rc && f->staging) {
      rc = gst_sci_cuda_copy (cuda, f->host.data, f->staging,
          GST_VIDEO_INFO_SIZE (&self->out_info));
      if (!rc)
        rc = gst_sci_cuda_sync (cuda);
    }
    if (rc > 0 && rc < SCI_CUDA_J2KDEC_ERR_DECODE)
      cudaGetLastError ();
    gst_sci_cuda_pop ();
  }
  self->flight_head = (self->flight_head + 1) % GST_J2K_DEC_MAX_FLIGHT;
  self->flight_count--;
  if (rc == SCI_CUDA_J2KDEC_ERR_UNSUPPORTED || rc == SCI_CUDA_J2KDEC_ERR_DECODE) {
    /* packed output on the host path; or the C reference's error, which
     * its own decode posts with the byte offset */
    GstFlowReturn ret;

    GST_DEBUG_OBJECT (self, "frame to the C reference: %s",
        sci_cuda_j2kdec_error (self->cuda_dec));
    flight_clear_output (f);
    gst_buffer_unref (out);
    ret = gst_j2k_dec_decode_cpu (self, frame, f->in_map.data, f->in_map.size);
    flight_clear (f);
    return ret;
  }
  flight_clear (f);
  if (rc) {
    GST_ELEMENT_ERROR (self, STREAM, DECODE,
        ("The GPU could not decode a JPEG 2000 frame: %s",
            sci_cuda_error_string (rc)), ("%s",
            sci_cuda_j2kdec_error (self->cuda_dec)));
    gst_buffer_unref (out);
    gst_video_decoder_release_frame (GST_VIDEO_DECODER (self), frame);
    return GST_FLOW_ERROR;
  }
  gst_j2k_dec_post_warnings (self, sci_cuda_j2kdec_warnings (self->cuda_dec),
      sci_cuda_j2kdec_warning (self->cuda_dec));
  frame->output_buffer = out;
  self->sent = TRUE;
  return gst_video_decoder_finish_frame (GST_VIDEO_DECODER (self), frame);
}

GstFlowReturn
gst_j2k_dec_cuda_drain (GstJ2kDec * self)
{
  GstFlowReturn ret = GST_FLOW_OK;

  while (self->flight_count > 0) {
    GstFlowReturn r = finish_oldest (self);

    if (ret == GST_FLOW_OK)
      ret = r;
  }
  return ret;
}

void
gst_j2k_dec_cuda_discard (GstJ2kDec * self)
{
  GstSciCuda *cuda = &GST_SCI_VIDEO_DECODER (self)->backend.cuda;

  while (self->flight_count > 0) {
    GstJ2kDecFlight *f = &self->flight[self->flight_head];

    /* the device may still write the buffer: wait before it goes */
    if (self->cuda_dec && gst_sci_cuda_push (cuda)) {
      sci_cuda_j2kdec_finish (self->cuda_dec, f->ticket);
      gst_sci_cuda_pop ();
    }
    /* our reference; the base class drops the frame from its list */
    gst_video_codec_frame_unref (f->frame);
    flight_clear (f);
    self->flight_head = (self->flight_head + 1) % GST_J2K_DEC_MAX_FLIGHT;
    self->flight_count--;
  }
  self->flight_head = 0;
}

/* A CUDA failure before the frame was queued: the C reference takes over
 * while nothing has left (and nothing is in flight), else an error. */
static GstFlowReturn
cuda_failed (GstJ2kDec * self, GstVideoCodecFrame * frame,
    const gchar * what, gint err)
{
  GstSciBackendState *b = &GST_SCI_VIDEO_DECODER (self)->backend;

  if (!gst_sci_backend_frame_cuda_failed (b, self->sent
          || self->flight_count > 0, what, err)) {
    gst_video_decoder_release_frame (GST_VIDEO_DECODER (self), frame);
    return GST_FLOW_ERROR;
  }
  gst_j2k_dec_cuda_release (self);
  GST_INFO_OBJECT (self, "backend: CPU (C reference) from now on");
  return GST_J2K_DEC_FLOW_CPU;
}

GstFlowReturn
gst_j2k_dec_cuda_frame (GstJ2kDec * self, GstVideoCodecFrame * frame,
    GstBuffer * in)
{
  GstSciBackendState *b = &GST_SCI_VIDEO_DECODER (self)->backend;
  GstSciCuda *cuda = &b->cuda;
  sci_j2k_comp_info comp[GST_J2K_DEC_MAX_COMPONENTS];
  sci_cuda_j2kdec_plane planes[GST_J2K_DEC_MAX_COMPONENTS];
  GstJ2kDecFlight *f;
  sci_j2k_info info;
  GstVideoFormat format;
  gboolean device;
  guint idx, reduce, layers;
  gint rc;

  GST_OBJECT_LOCK (self);
  reduce = self->reduce;
  layers = self->max_layers;
  GST_OBJECT_UNLOCK (self);
  if (!open_decoder (self)) {
    gst_video_decoder_release_frame (GST_VIDEO_DECODER (self), frame);
    return GST_FLOW_ERROR;
  }
  if (!b->use_cuda)
    return GST_J2K_DEC_FLOW_CPU;

  f = next_flight (self, &idx);
  if (!gst_buffer_map (in, &f->in_map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map input buffer"),
        (NULL));
    gst_video_decoder_release_frame (GST_VIDEO_DECODER (self), frame);
    return GST_FLOW_ERROR;
  }
  f->in = gst_buffer_ref (in);
  if (!gst_sci_cuda_push (cuda)) {
    flight_clear (f);
    return cuda_failed (self, frame, "context push", 0);
  }
  sci_cuda_j2kdec_set_decode (self->cuda_dec, reduce, layers);
  rc = sci_cuda_j2kdec_parse (self->cuda_dec, f->in_map.data, f->in_map.size,
      &info, comp, GST_J2K_DEC_MAX_COMPONENTS);
  gst_sci_cuda_pop ();
  /* the C reference posts the parser's error with its code and offset */
  if (rc) {
    flight_clear (f);
    return GST_J2K_DEC_FLOW_CPU;
  }
  if (!gst_j2k_dec_choose_format (self, &info, comp, &format)) {
    flight_clear (f);
    gst_video_decoder_release_frame (GST_VIDEO_DECODER (self), frame);
    return GST_FLOW_ERROR;
  }
  /* the frames queued leave with the caps (and the memory) they were
   * decoded for: new caps, or downstream asking to negotiate again, wait
   * for them */
  if (!gst_j2k_dec_same_output (self, format, comp)
      || gst_pad_needs_reconfigure (GST_VIDEO_DECODER_SRC_PAD (self))) {
    GstFlowReturn ret = gst_j2k_dec_cuda_drain (self);

    if (ret != GST_FLOW_OK) {
      flight_clear (f);
      gst_video_decoder_release_frame (GST_VIDEO_DECODER (self), frame);
      return ret;
    }
  }
  if (!gst_j2k_dec_set_output (self, format, comp, info.components)) {
    flight_clear (f);
    gst_video_decoder_release_frame (GST_VIDEO_DECODER (self), frame);
    return GST_FLOW_NOT_NEGOTIATED;
  }

  f->staging = NULL;
  device = b->out_cuda_memory;
  f->out = device ? acquire_device_output (self) : acquire_host_output (self);
  if (!f->out) {
    flight_clear (f);
    gst_video_decoder_release_frame (GST_VIDEO_DECODER (self), frame);
    return GST_FLOW_ERROR;
  }
  if (device ? !dev_map (self, f->out, &f->dev) : !gst_buffer_map (f->out,
          &f->host, GST_MAP_WRITE)) {
    if (!device)
      GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
          (NULL));
    gst_clear_buffer (&f->out);
    flight_clear (f);
    gst_video_decoder_release_frame (GST_VIDEO_DECODER (self), frame);
    return GST_FLOW_ERROR;
  }
  if (!gst_sci_cuda_push (cuda)) {
    flight_clear (f);
    return cuda_failed (self, frame, "context push", 0);
  }
  rc = 0;
  if (device) {
    device_planes (self, f->dev.data, f->dev.stride, planes);
  } else {
    /* staging laid out as out_info, as the host buffer */
    guint8 *data[GST_VIDEO_MAX_PLANES];
    guint p;

    f->staging = gst_sci_cuda_staging (cuda, idx,
        GST_VIDEO_INFO_SIZE (&self->out_info), &rc);
    if (!f->staging && !rc)
      rc = cudaErrorMemoryAllocation;
    for (p = 0; f->staging && p < GST_VIDEO_INFO_N_PLANES (&self->out_info);
        p++)
      data[p] = (guint8 *) f->staging +
          GST_VIDEO_INFO_PLANE_OFFSET (&self->out_info, p);
    if (f->staging)
      device_planes (self, data, self->out_info.stride, planes);
  }
  if (!rc)
    rc = sci_cuda_j2kdec_submit (self->cuda_dec, planes, cuda->stream,
        &f->ticket);
  if (rc > 0 && rc < SCI_CUDA_J2KDEC_ERR_DECODE)
    cudaGetLastError ();
  gst_sci_cuda_pop ();
  if (rc == SCI_CUDA_J2KDEC_ERR_ARG || rc < 0) {
    GST_ELEMENT_ERROR (self, STREAM, DECODE,
        ("The GPU decoder refused a JPEG 2000 frame: %s",
            sci_cuda_error_string (rc)), ("%s",
            sci_cuda_j2kdec_error (self->cuda_dec)));
    flight_clear (f);
    gst_video_decoder_release_frame (GST_VIDEO_DECODER (self), frame);
    return GST_FLOW_ERROR;
  }
  if (rc) {
    flight_clear (f);
    return cuda_failed (self, frame, "JPEG 2000 decoding", rc);
  }
  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT " queued, ticket %u",
      self->frames, f->ticket);
  f->frame = frame;
  self->flight_count++;
  while (self->flight_count >= MAX (self->slots, 1)) {
    GstFlowReturn ret = finish_oldest (self);

    if (ret != GST_FLOW_OK)
      return ret;
  }
  return GST_FLOW_OK;
}
#endif
