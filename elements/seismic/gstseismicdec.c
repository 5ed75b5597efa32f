/**
 * SECTION:element-seismicdec
 * @title: seismicdec
 *
 * Decoder of compressed seismic gathers (application/x-seismic-compressed,
 * docs/seismic-format.md) into gathers of float32 traces
 * (application/x-seismic).
 *
 * The input is a byte stream of whole frames one after another: one frame
 * per buffer (seismicenc, multifilesrc) or any chunks of it (filesrc
 * reading a file of one or more frames, which the typefinder recognises
 * by its header: the `SEIS` magic and the header's own CRC).  Each frame's
 * 48-byte header says its length; the element gathers that many bytes.
 * The output caps (traces, samples, sample-interval) come from each
 * frame's header, not from the input caps, which may be bare
 * `application/x-seismic-compressed`: a gather of another geometry gives
 * new caps.
 *
 * Every frame is checked in full (header, section lengths, CRC-32, code
 * table, every slice or package) before anything is output: a corrupt frame, or
 * bytes left at the end of the stream that do not make a whole frame, is
 * a STREAM/DECODE error whose message says what is wrong and at which
 * byte of the stream the frame starts.
 *
 * The frame's metadata section (seismicenc's) gives back the
 * #GstSciSegyMeta (SEG-Y file and trace headers, for segysink).
 *
 * With a usable CUDA device (`backend=auto` or `cuda`) the kernels of
 * cuda/seismic/seismic.cu decode the frame on the GPU (16 threads a slice,
 * dequantization and the inverse wavelet transform on the device), after
 * the host has checked its header and CRC and read its code table;
 * otherwise the C reference runs on the CPU.  Whole frames of the same
 * geometry already waiting behind the first (up to 64) are decoded with
 * it in one batch.  The samples are the same
 * to the bit either way, and so are the checks and the error messages.
 * Output is in system memory, or in CUDA memory
 * (application/x-seismic(memory:CUDAMemory), written by the kernels in
 * place) when downstream asks for it and the kernels run; seismicenc
 * takes such gathers.
 *
 * If the GPU state cannot be made, or CUDA fails on the first frame with
 * the output in system memory, `backend=auto` warns and goes on with the
 * C reference; with `backend=cuda`, with CUDA-memory output, or once a
 * gather has been output, a CUDA failure is an error.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=f3.seis ! seismicdec ! \
 *     segysink location=back.sgy
 * gst-launch-1.0 filesrc location=f3.seis ! seismicdec ! \
 *     'application/x-seismic(memory:CUDAMemory)' ! seismicenc bits=8 ! \
 *     filesink location=f3-8.seis
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/base/gstadapter.h>

#include "gstseismicdec.h"
#include "gstseismicdeccuda.h"
#include "gst/gstscisegymeta.h"

GST_DEBUG_CATEGORY (gst_seismic_dec_debug);
#define GST_CAT_DEFAULT gst_seismic_dec_debug

#define SEISMIC_MEDIA_TYPE "application/x-seismic"
#define CODED_MEDIA_TYPE "application/x-seismic-compressed"
#define SRC_CAPS SEISMIC_MEDIA_TYPE ", traces = (int) [ 1, 16777216 ], " \
  "samples = (int) [ 1, 65535 ], sample-interval = (int) [ 1, MAX ]"

/* Caps fields carried over between the two sides unchanged. */
static const gchar *const gather_fields[] = {
  "traces", "samples", "sample-interval",
};

#define gst_seismic_dec_parent_class parent_class
G_DEFINE_TYPE (GstSeismicDec, gst_seismic_dec, GST_TYPE_SCI_FILTER);
GST_ELEMENT_REGISTER_DEFINE (seismicdec, "seismicdec", GST_RANK_PRIMARY,
    GST_TYPE_SEISMIC_DEC);

/* ---- negotiation ---- */

/* Input caps say little for sure (the frame headers decide): the output
 * is gathers of the geometry the input caps give, in system memory first
 * (the input is host bytes), else in CUDA memory while the kernels run.
 * Upstream is offered the bare media type: what downstream takes says
 * nothing about the frames, and fields offered upstream would be fixated
 * there into placeholders (traces=1, samples=1). */
static GstCaps *
gst_seismic_dec_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstSciFilter *base = GST_SCI_FILTER (trans);
  GstCaps *result = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *in = gst_caps_get_structure (caps, i);
    GstStructure *out;

    if (direction == GST_PAD_SINK) {
      GstCaps *tmpl = gst_caps_from_string (SRC_CAPS);
      GstCaps *one;

      out = gst_structure_copy (gst_caps_get_structure (tmpl, 0));
      gst_caps_unref (tmpl);
      gst_sci_structure_copy_fields (out, in, gather_fields,
          G_N_ELEMENTS (gather_fields));
      one = gst_caps_new_full (out, NULL);
      result = gst_caps_merge (result, gst_sci_filter_with_features (base,
              one, NULL));
      gst_caps_unref (one);
    } else {
      result = gst_caps_merge_structure (result,
          gst_structure_new_empty (CODED_MEDIA_TYPE));
    }
  }
  return gst_sci_filter_finish_caps (base, direction, caps, result, filter);
}

/* The bytes of a gather of fixed caps (what the base class sizes device
 * output pools by). */
static gboolean
gst_seismic_dec_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstStructure *s;
  gint traces, samples;

  if (direction != GST_PAD_SINK || !othercaps
      || gst_caps_get_size (othercaps) < 1)
    return FALSE;
  s = gst_caps_get_structure (othercaps, 0);
  if (!gst_structure_get_int (s, "traces", &traces)
      || !gst_structure_get_int (s, "samples", &samples) || traces < 1
      || samples < 1)
    return FALSE;
  *othersize = sizeof (gfloat) * traces * samples;
  return TRUE;
}

/* The src caps come from the frames alone (ensure_src_caps): the base
 * class never sets caps, so the allocation query from upstream, whose
 * default handling would make src caps out of the input caps, is not
 * answered (the input is plain host bytes: nothing to propose). */
static gboolean
gst_seismic_dec_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) ==
      GST_QUERY_ALLOCATION)
    return FALSE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

/* ---- frames ---- */

#define DECODE_ERROR(self, code, at, ...) \
  GST_ELEMENT_ERROR (self, STREAM, DECODE, \
      ("Corrupt seismic frame at byte %" G_GUINT64_FORMAT " of the stream: " \
          "%s", (guint64) (at), sci_seis_error_string (code)), (__VA_ARGS__))

GstCaps *
gst_seismic_dec_gather_caps (guint traces, guint samples, guint interval,
    gboolean cuda)
{
  GstCaps *caps = gst_caps_new_simple (SEISMIC_MEDIA_TYPE,
      "traces", G_TYPE_INT, (gint) traces, "samples", G_TYPE_INT,
      (gint) samples, NULL);

  if (interval >= 1 && interval <= G_MAXINT)
    gst_caps_set_simple (caps, "sample-interval", G_TYPE_INT, (gint) interval,
        NULL);
  gst_sci_caps_set_cuda_memory (caps, cuda);
  return caps;
}

/* Makes the src caps say what the frame of `info` decodes to, in the
 * memory negotiated from the input caps; while the kernels run, in the
 * other memory when downstream takes only that (no input caps came, or
 * downstream changed). */
static gboolean
ensure_src_caps (GstSeismicDec * self, const sci_seis_info * info)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (trans);
  const sci_seis_params *p = &info->p;
  GstCaps *caps, *cur;
  gboolean ok = TRUE, cuda = FALSE;
#if HAVE_CUDA
  GstSciFilter *base = GST_SCI_FILTER (self);

  cuda = base->backend.use_cuda && base->backend.out_cuda_memory;
#endif

  caps =
      gst_seismic_dec_gather_caps (p->traces, p->samples, p->sample_interval_us,
      cuda);
  cur = gst_pad_get_current_caps (srcpad);
  /* downstream asked for new caps: the next frame's are offered again */
  if (gst_pad_check_reconfigure (srcpad))
    self->have_out = FALSE;
  if (!self->have_out || !cur || !gst_caps_is_equal (cur, caps)) {
    ok = gst_sci_backend_peer_accepts (&GST_SCI_FILTER (self)->backend,
        srcpad, &caps, GST_SCI_FILTER (self)->backend.use_cuda ?
        gst_seismic_dec_gather_caps (p->traces, p->samples,
            p->sample_interval_us, !cuda) : NULL, &cuda);
    GST_DEBUG_OBJECT (self, "caps from the frame header: %" GST_PTR_FORMAT,
        caps);
    if (ok)
      ok = gst_pad_push_event (srcpad, gst_event_new_caps (caps));
    if (!ok)
      gst_sci_filter_post_refused (GST_SCI_FILTER (self), caps);
    else
      GST_INFO_OBJECT (self, "%u traces x %u samples (%u us), %u bits, %u "
          "levels: %s backend, %s memory out", p->traces, p->samples,
          p->sample_interval_us, p->bits, p->levels,
          GST_SCI_FILTER (self)->backend.use_cuda ? "CUDA" : "CPU",
          cuda ? "CUDA" : "system");
  }
  if (ok) {
    self->traces = p->traces;
    self->samples = p->samples;
    self->sample_interval = p->sample_interval_us;
    self->have_out = TRUE;
#if HAVE_CUDA
    base->backend.out_cuda_memory = cuda;
#endif
    if (self->pending_segment) {
      GstEvent *seg = self->pending_segment;

      self->pending_segment = NULL;
      GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, seg);
    }
  }
  gst_caps_unref (caps);
  if (cur)
    gst_caps_unref (cur);
  return ok;
}

/* The error of the frame at byte `at` of the stream (header `info`) that
 * `decoder` found. */
static void
post_frame_error (GstSeismicDec * self, gint code, guint64 at,
    const sci_seis_info * info, const gchar * decoder)
{
  DECODE_ERROR (self, code, at, "%s of a %" G_GSIZE_FORMAT "-byte frame (%u "
      "traces x %u samples, %u bits, %u levels): %d", decoder,
      info->frame_len, info->p.traces, info->p.samples, info->p.bits,
      info->p.levels, code);
}

/* One frame through the C reference: the checked frame `in` (header
 * `info`) decoded into *outbuf, a new system-memory gather.  0, or the
 * codec's error (not posted; *outbuf NULL). */
static gint
decode_frame_cpu (GstSeismicDec * self, const guint8 * in,
    const sci_seis_info * info, GstBuffer ** outbuf)
{
  gsize n = (gsize) info->p.traces * info->p.samples;
  GstBuffer *out;
  GstMapInfo map;
  gfloat *dst, *scratch = NULL;
  gint rc;

  *outbuf = NULL;
  out = gst_buffer_new_allocate (NULL, n * sizeof (gfloat), NULL);
  if (!out || !gst_buffer_map (out, &map, GST_MAP_WRITE)) {
    if (out)
      gst_buffer_unref (out);
    return SCI_SEIS_E_NOMEM;
  }
  dst = (gfloat *) map.data;
  if ((guintptr) dst % sizeof (gfloat))
    dst = scratch = g_try_new (gfloat, n);
  rc = dst ? sci_seis_decode (gst_sci_filter_pool (GST_SCI_FILTER (self)), in,
      info, NULL, dst) : SCI_SEIS_E_NOMEM;
  if (rc == 0 && scratch)
    memcpy (map.data, scratch, n * sizeof (gfloat));
  g_free (scratch);
  gst_buffer_unmap (out, &map);
  if (rc) {
    gst_buffer_unref (out);
    return rc;
  }
  *outbuf = out;
  return 0;
}


static GstFlowReturn
gst_seismic_dec_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstSeismicDec *self = GST_SEISMIC_DEC (trans);

  if (self->failed) {
    gst_buffer_unref (input);
    return GST_FLOW_ERROR;
  }
  gst_adapter_push (self->adapter, input);
  return GST_FLOW_OK;
}

/* Gives the buffer the GstSciSegyMeta of the frame's metadata section
 * (seismicenc's records); a section of another form is ignored with a
 * warning.  The records may decompress to no more than the headers of a
 * gather of the frame's traces can take (gstscisegymeta.h). */
static void
restore_metadata (GstSeismicDec * self, GstBuffer * out,
    const guint8 * frame, const sci_seis_info * info, guint64 at)
{
  gboolean added = FALSE;

  if (info->meta_len == 0)
    return;
  if (!gst_buffer_add_sci_segy_meta_from_records (out,
          frame + info->meta_off, info->meta_len, info->p.traces, &added))
    GST_ELEMENT_WARNING (self, STREAM, DECODE,
        ("The metadata of the seismic frame at byte %" G_GUINT64_FORMAT
            " is not SEG-Y header records: ignored", at),
        ("%" G_GSIZE_FORMAT " bytes of metadata", info->meta_len));
  else if (!added)
    GST_DEBUG_OBJECT (self, "no SEG-Y headers in %" G_GSIZE_FORMAT
        " bytes of metadata", info->meta_len);
}

/* At most this many frames go to the GPU in one call: the whole frames
 * waiting in the adapter (big input buffers, a slow downstream), so a
 * stream of small gathers fills the GPU without any added latency. */
#define MAX_BATCH 64

/* The length of the whole frame at the start of the adapter (0: more bytes
 * are needed), or an error code. */
static long long
next_frame_length (GstSeismicDec * self)
{
  gsize avail = gst_adapter_available (self->adapter);
  const guint8 *hd;
  long long len;

  if (avail < SCI_SEIS_HEADER_BYTES)
    return 0;
  hd = gst_adapter_map (self->adapter, SCI_SEIS_HEADER_BYTES);
  len = sci_seis_frame_length (hd);
  gst_adapter_unmap (self->adapter);
  if (len >= 0 && (guint64) len > G_MAXSIZE)
    return SCI_SEIS_E_HEADER;
  if (len >= 0 && avail < (gsize) len)
    return 0;
  return len;
}

/* A frame taken from the adapter, mapped and checked. */
typedef struct
{
  GstBuffer *in;
  GstMapInfo map;
  sci_seis_info info;
  guint64 at;
} Frame;

static void
frame_clear (Frame * f)
{
  if (f->in) {
    gst_buffer_unmap (f->in, &f->map);
    gst_clear_buffer (&f->in);
  }
}

/* Takes the next `len` bytes as a frame: FALSE (posted) when they cannot
 * be mapped. */
static gboolean
take_frame (GstSeismicDec * self, gsize len, Frame * f)
{
  f->at = self->offset;
  f->in = gst_adapter_take_buffer (self->adapter, len);
  self->offset += len;
  if (!gst_buffer_map (f->in, &f->map, GST_MAP_READ)) {
    gst_clear_buffer (&f->in);
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map input buffer"),
        (NULL));
    return FALSE;
  }
  return TRUE;
}

#if HAVE_CUDA
/* Whether the next whole frame in the adapter checks out and has the
 * geometry of `first`: then it can join first's batch. */
static gboolean
next_joins (GstSeismicDec * self, const sci_seis_info * first, gsize * len)
{
  long long l = next_frame_length (self);
  const guint8 *d;
  sci_seis_info info;
  gint rc;

  if (l <= 0)
    return FALSE;
  d = gst_adapter_map (self->adapter, (gsize) l);
  rc = sci_seis_parse (d, (gsize) l, &info);
  gst_adapter_unmap (self->adapter);
  *len = (gsize) l;
  return rc == 0 && info.p.traces == first->p.traces
      && info.p.samples == first->p.samples
      && info.p.sample_interval_us == first->p.sample_interval_us;
}
#endif

/* A decoded gather made ready for output. */
static GstBuffer *
finish_gather (GstSeismicDec * self, GstBuffer * out, const Frame * f)
{
  restore_metadata (self, out, f->map.data, &f->info, f->at);
  gst_buffer_copy_into (out, f->in, GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  GST_BUFFER_FLAG_UNSET (out, GST_BUFFER_FLAG_DELTA_UNIT);
  GST_LOG_OBJECT (self, "frame of %" G_GSIZE_FORMAT " bytes at byte %"
      G_GUINT64_FORMAT " decoded", f->info.frame_len, f->at);
  return out;
}

/* The next gather into *outbuf: one decoded before, or the next whole
 * frame of the adapter (with, on the GPU, the whole frames of the same
 * geometry behind it); *outbuf NULL when more bytes are needed. */
static GstFlowReturn
decode_next (GstSeismicDec * self, GstBuffer ** outbuf)
{
#if HAVE_CUDA
  GstSciFilter *base = GST_SCI_FILTER (self);
#endif
  Frame f[MAX_BATCH];
  GstFlowReturn ret = GST_FLOW_OK;
  guint n = 0, i;
  long long len;
  gint rc;

  *outbuf = g_queue_pop_head (&self->ready);
  if (*outbuf) {
    self->sent = TRUE;
    return GST_FLOW_OK;
  }
  if (self->held_error) {
    post_frame_error (self, self->held_error, self->held_at,
        &self->held_info, self->held_by);
    self->held_error = 0;
    return GST_FLOW_ERROR;
  }
  len = next_frame_length (self);
  if (len == 0)
    return GST_FLOW_OK;
  if (len < 0) {
    DECODE_ERROR (self, (gint) len, self->offset, "the header of the frame "
        "at byte %" G_GUINT64_FORMAT " of the stream", self->offset);
    return GST_FLOW_ERROR;
  }
  memset (f, 0, sizeof f);
  if (!take_frame (self, (gsize) len, &f[0]))
    return GST_FLOW_ERROR;
  n = 1;
  /* header, lengths and CRC before anything else is read */
  rc = sci_seis_parse (f[0].map.data, f[0].map.size, &f[0].info);
  if (rc) {
    DECODE_ERROR (self, rc, f[0].at, "a %" G_GSIZE_FORMAT "-byte frame",
        f[0].map.size);
    ret = GST_FLOW_ERROR;
    goto done;
  }
  if (!ensure_src_caps (self, &f[0].info)) {
    ret = GST_FLOW_NOT_NEGOTIATED;
    goto done;
  }
#if HAVE_CUDA
  if (base->backend.use_cuda && !gst_sci_filter_cuda_state_open (base,
          (gpointer *) & self->cuda_dec, gst_seismic_dec_cuda_new_state,
          (GDestroyNotify) sci_cuda_seis_destroy, "seismic decoder state")) {
    ret = GST_FLOW_ERROR;
    goto done;
  }
  if (base->backend.use_cuda) {
    const guint8 *frames[MAX_BATCH];
    sci_seis_info info[MAX_BATCH];
    GstBuffer *outs[MAX_BATCH];
    gint status[MAX_BATCH];
    const gchar *what;
    gsize l;
    gint err;

    /* the host's share of a batch (tables, staging) a frame a thread */
    sci_cuda_seis_set_pool (self->cuda_dec, gst_sci_filter_pool (base));
    while (n < MAX_BATCH && next_joins (self, &f[0].info, &l)) {
      if (!take_frame (self, l, &f[n])) {
        ret = GST_FLOW_ERROR;
        goto done;
      }
      /* checked by next_joins; parsed again for the offsets */
      sci_seis_parse (f[n].map.data, f[n].map.size, &f[n].info);
      n++;
    }
    for (i = 0; i < n; i++) {
      frames[i] = f[i].map.data;
      info[i] = f[i].info;
    }
    ret =
        gst_seismic_dec_decode_batch_cuda (self, n, frames, info, outs, status,
        &what, &err);
    if (ret == GST_FLOW_OK) {
      /* the gathers up to the first bad frame; its error after them */
      for (i = 0; i < n && status[i] == 0; i++)
        g_queue_push_tail (&self->ready, finish_gather (self, outs[i], &f[i]));
      if (i < n) {
        self->held_error = status[i];
        self->held_at = f[i].at;
        self->held_info = f[i].info;
        self->held_by = "sci_cuda_seis_decode";
      }
      GST_LOG_OBJECT (self, "%u frames in one batch", n);
      goto done;
    }
    if (ret != GST_SEISMIC_DEC_CUDA_FAILED)
      goto done;
    if (!gst_sci_filter_frame_cuda_failed (base, self->sent, what, err)) {
      ret = GST_FLOW_ERROR;
      goto done;
    }
    gst_seismic_dec_release_cuda (self);
    GST_INFO_OBJECT (self, "backend: CPU (C reference) from now on");
  }
#endif
  /* the C reference, frame by frame (a CUDA batch that failed too) */
  ret = GST_FLOW_OK;
  for (i = 0; i < n; i++) {
    GstBuffer *out;

    rc = decode_frame_cpu (self, f[i].map.data, &f[i].info, &out);
    if (rc) {
      self->held_error = rc;
      self->held_at = f[i].at;
      self->held_info = f[i].info;
      self->held_by = "sci_seis_decode";
      break;
    }
    g_queue_push_tail (&self->ready, finish_gather (self, out, &f[i]));
  }
done:
  for (i = 0; i < n; i++)
    frame_clear (&f[i]);
  if (ret != GST_FLOW_OK)
    return ret;
  /* the first gather now, or the error if there is none */
  *outbuf = g_queue_pop_head (&self->ready);
  if (*outbuf) {
    self->sent = TRUE;
    return GST_FLOW_OK;
  }
  if (self->held_error) {
    post_frame_error (self, self->held_error, self->held_at,
        &self->held_info, self->held_by);
    self->held_error = 0;
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_seismic_dec_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstSeismicDec *self = GST_SEISMIC_DEC (trans);
  GstFlowReturn ret;

  *outbuf = NULL;
  if (self->failed)
    return GST_FLOW_ERROR;
  ret = decode_next (self, outbuf);
  /* posted (a corrupt frame, refused caps): the rest is not read */
  if (ret == GST_FLOW_ERROR || ret == GST_FLOW_NOT_NEGOTIATED) {
    self->failed = TRUE;
    gst_adapter_clear (self->adapter);
  }
  return ret;
}

/* Never called: generate_output does the work.  A transform function
 * keeps the base class from going passthrough. */
static GstFlowReturn
gst_seismic_dec_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  return GST_FLOW_NOT_SUPPORTED;
}

/* The error for `left` bytes at the end of the stream that are not a
 * whole frame. */
static void
post_truncated (GstSeismicDec * self, gsize left)
{
  long long len = SCI_SEIS_E_TRUNCATED;

  if (left >= SCI_SEIS_HEADER_BYTES) {
    const guint8 *hd = gst_adapter_map (self->adapter, SCI_SEIS_HEADER_BYTES);

    len = sci_seis_frame_length (hd);
    gst_adapter_unmap (self->adapter);
  }
  if (len >= 0)
    DECODE_ERROR (self, SCI_SEIS_E_TRUNCATED, self->offset, "the stream "
        "ends %" G_GSIZE_FORMAT " bytes into a frame of %lld bytes", left, len);
  else
    DECODE_ERROR (self, SCI_SEIS_E_TRUNCATED, self->offset, "the stream "
        "ends %" G_GSIZE_FORMAT " bytes into a frame, before the end of its "
        "%d-byte header", left, SCI_SEIS_HEADER_BYTES);
}

static gboolean
gst_seismic_dec_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstSeismicDec *self = GST_SEISMIC_DEC (trans);

  if (gst_sci_filter_framed_sink_event (GST_SCI_FILTER (trans), event,
          self->adapter, &self->sinkcaps, &self->pending_segment,
          &self->have_out))
    return TRUE;
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:{
      gsize left = gst_adapter_available (self->adapter);
      GstFlowReturn last =
          gst_pad_get_last_flow_return (GST_BASE_TRANSFORM_SRC_PAD (trans));

      /* Bytes left after downstream stopped the stream (refused caps, a
       * sink's own EOS) were cut off by that, not truncated: the error
       * already posted is the one to read. */
      if (self->failed || last < GST_FLOW_OK)
        GST_DEBUG_OBJECT (self, "%" G_GSIZE_FORMAT " bytes left after the "
            "stream stopped (%s)", left, gst_flow_get_name (last));
      else if (left > 0)
        post_truncated (self, left);
      else if (self->offset == 0)
        GST_ELEMENT_ERROR (self, STREAM, DECODE,
            ("The seismic stream is empty: no frame to decode"),
            ("end of stream before any input byte"));
      gst_adapter_clear (self->adapter);
      gst_clear_event (&self->pending_segment);
      break;
    }
    case GST_EVENT_FLUSH_STOP:
      self->failed = FALSE;
      g_queue_clear_full (&self->ready, (GDestroyNotify) gst_buffer_unref);
      self->held_error = 0;
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_seismic_dec_start (GstBaseTransform * trans)
{
  GstSeismicDec *self = GST_SEISMIC_DEC (trans);

  gst_adapter_clear (self->adapter);
  self->offset = 0;
  self->have_out = FALSE;
  self->sent = FALSE;
  self->failed = FALSE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans);
}

static void
release_all (GstSeismicDec * self)
{
  g_queue_clear_full (&self->ready, (GDestroyNotify) gst_buffer_unref);
  self->held_error = 0;
  gst_adapter_clear (self->adapter);
  gst_clear_caps (&self->sinkcaps);
  gst_clear_event (&self->pending_segment);
  self->have_out = FALSE;
  self->sent = FALSE;
#if HAVE_CUDA
  gst_seismic_dec_release_cuda (self);
#endif
}

static gboolean
gst_seismic_dec_stop (GstBaseTransform * trans)
{
  /* before the base class drops the CUDA context */
  release_all (GST_SEISMIC_DEC (trans));
  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
}

static void
gst_seismic_dec_finalize (GObject * object)
{
  GstSeismicDec *self = GST_SEISMIC_DEC (object);

  release_all (self);
  g_clear_object (&self->adapter);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_seismic_dec_class_init (GstSeismicDecClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCaps *caps;

  gobject_class->finalize = gst_seismic_dec_finalize;

  gst_element_class_set_static_metadata (element_class,
      "Seismic gather decoder", "Codec/Decoder/Seismic",
      "Decodes and checks compressed seismic gathers into float32 traces, "
      "SEG-Y headers restored, on CUDA or the CPU", SCI_ELEMENT_AUTHOR);

  caps = gst_caps_from_string (CODED_MEDIA_TYPE);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  caps = gst_sci_template_caps (SRC_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_seismic_dec_transform_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_seismic_dec_transform_size);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_seismic_dec_query);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_seismic_dec_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_seismic_dec_generate_output);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_seismic_dec_transform);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_seismic_dec_sink_event);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_seismic_dec_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_seismic_dec_stop);

  /* gathers, not frames: device output buffers come from the blob pool */
  GST_SCI_FILTER_CLASS (klass)->src_is_video = FALSE;

  GST_DEBUG_CATEGORY_INIT (gst_seismic_dec_debug, "seismicdec", 0,
      "seismic gather decoder");
}

static void
gst_seismic_dec_init (GstSeismicDec * self)
{
  self->adapter = gst_adapter_new ();
  g_queue_init (&self->ready);
}
