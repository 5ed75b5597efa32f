/**
 * SECTION:element-dpcmdec
 * @title: dpcmdec
 *
 * Decoder of online-DPCM frames (application/x-dpcm, docs/dpcm-format.md)
 * into GRAY8 (bit depth up to 8) or GRAY16_LE (9..16) video frames.
 *
 * The input is a byte stream of whole frames one after another: one frame
 * per buffer (dpcmenc, multifilesrc) or any chunks of it (filesrc reading a
 * file of one or more frames, which the typefinder recognises by the
 * `DPCM` magic); each frame's header says its length.  The output caps
 * come from each frame's header (size, depth), not from the input caps,
 * which may be bare `application/x-dpcm`; framerate and `sample-offset`
 * are taken from the input caps when they have them.
 *
 * Every frame is checked in full (header, lengths, CRC-32, every step of
 * the decode) before anything is output: a corrupt frame, or bytes left
 * at the end of the stream that do not make a whole frame, is a
 * STREAM/DECODE error whose message says what is wrong.
 *
 * The frame's metadata section (dpcmenc's) gives back the #GstSciFitsMeta
 * (FITS header cards, for fitsenc) and the `sample-offset` of signed
 * 16-bit images.
 *
 * With a usable CUDA device (`backend=auto` or `cuda`) the kernels of
 * cuda/dpcm/dpcm.cu decode the frame on the GPU (segments in parallel, then
 * the rows' predictor recursion); otherwise the C reference runs on the
 * CPU.  The samples are the same either way, and so are the checks and
 * the error messages.  Output is in system memory, or in CUDA memory
 * (video/x-raw(memory:CUDAMemory), written by the kernels in place) when
 * downstream asks for it and the kernels run.  GStreamer 1.22 has no gray
 * GstCudaMemory: those frames are flat device blocks laid out as their
 * caps say (and a video meta), which dpcmenc reads in place; cudadownload
 * of 1.22 takes no gray formats.
 *
 * If the GPU state cannot be made, or CUDA fails on the first frame with
 * the output in system memory, `backend=auto` warns and goes on with the
 * C reference; with `backend=cuda`, with CUDA-memory output, or once a
 * frame has been output, a CUDA failure is an error.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=f.dpcm ! dpcmdec ! fitsenc ! \
 *     filesink location=f.fits
 * gst-launch-1.0 multifilesrc location=frame_%05d.dpcm \
 *     caps=application/x-dpcm ! dpcmdec ! fitsenc ! \
 *     multifilesink location=frame_%05d.fits
 * gst-launch-1.0 filesrc location=f.dpcm ! dpcmdec ! \
 *     'video/x-raw(memory:CUDAMemory)' ! dpcmenc order=4 ! \
 *     filesink location=g.dpcm
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/base/gstadapter.h>

#include "gstdpcmdec.h"
#include "gstdpcmcuda.h"
#include "gst/gstscifitsmeta.h"
#if HAVE_CUDA
#include <cuda_runtime_api.h>
#include "cuda/error.h"
#endif

GST_DEBUG_CATEGORY_STATIC (gst_dpcm_dec_debug);
#define GST_CAT_DEFAULT gst_dpcm_dec_debug

#define DPCM_MEDIA_TYPE "application/x-dpcm"
#define SRC_CAPS "video/x-raw, format = (string) { GRAY16_LE, GRAY8 }, " \
  "width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ], " \
  "framerate = (fraction) [ 0/1, MAX ]"

/* Caps fields carried over between the two sides unchanged. */
static const gchar *const common_fields[] = {
  "width", "height", "framerate", "sample-offset",
};

#define gst_dpcm_dec_parent_class parent_class
G_DEFINE_TYPE (GstDpcmDec, gst_dpcm_dec, GST_TYPE_SCI_VIDEO_DECODER);
GST_ELEMENT_REGISTER_DEFINE (dpcmdec, "dpcmdec", GST_RANK_PRIMARY,
    GST_TYPE_DPCM_DEC);

/* ---- negotiation ---- */

/* Input caps say little for sure (the frame headers decide): the output
 * is any of our formats with the sizes and rate the input caps give, in
 * system memory first (the input is host bytes), else in CUDA memory
 * while the kernels run.  Upstream is offered the bare media type: what
 * downstream takes says nothing about the frames, and fields offered
 * upstream would be fixated there into placeholders (width=1). */
static GstCaps *
gst_dpcm_dec_transform_caps (GstSciVideoDecoder * base,
    GstPadDirection direction, GstCaps * caps)
{
  GstCaps *result = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *in = gst_caps_get_structure (caps, i);
    GstStructure *out;

    if (direction == GST_PAD_SINK) {
      GstCaps *tmpl = gst_caps_from_string (SRC_CAPS);
      GstCaps *one;
      gint depth;

      out = gst_structure_copy (gst_caps_get_structure (tmpl, 0));
      gst_caps_unref (tmpl);
      if (gst_structure_get_int (in, "depth", &depth))
        gst_structure_set (out, "format", G_TYPE_STRING,
            depth <= 8 ? "GRAY8" : "GRAY16_LE", NULL);
      gst_sci_structure_copy_fields (out, in, common_fields,
          G_N_ELEMENTS (common_fields));
      one = gst_caps_new_full (out, NULL);
      result = gst_caps_merge (result,
          gst_sci_backend_with_features (&base->backend, one, NULL));
      gst_caps_unref (one);
    } else {
      result = gst_caps_merge_structure (result,
          gst_structure_new_empty (DPCM_MEDIA_TYPE));
    }
  }
  return result;
}

/* Whole frames one after another in each buffer (parsed=true: dpcmenc's
 * output) go to handle_frame as they come; any other input is a byte
 * stream split by parse. */
static gboolean
gst_dpcm_dec_set_sink_caps (GstSciVideoDecoder * base, GstCaps * caps)
{
  gboolean parsed = FALSE;

  gst_structure_get_boolean (gst_caps_get_structure (caps, 0), "parsed",
      &parsed);
  GST_DEBUG_OBJECT (base, "%s input", parsed ? "framed" : "byte-stream");
  gst_video_decoder_set_packetized (GST_VIDEO_DECODER (base), parsed);
  return TRUE;
}

/* ---- frames ---- */

#define DECODE_ERROR(self, code, ...) \
  GST_ELEMENT_ERROR (self, STREAM, DECODE, \
      ("Corrupt DPCM frame: %s", sci_dpcm_error_string (code)), (__VA_ARGS__))

/* A little-endian 32-bit field at any address.  Byte by byte: record
 * fields sit where the frame's bytes put them, and GST_READ_UINT32_LE is a
 * plain (misaligned, undefined) 32-bit load on x86. */
static inline guint32
read_le32 (const guint8 * p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 |
      (guint32) p[3] << 24;
}

/* The sample-offset of the metadata section (0 without a SOFF record);
 * FALSE when the section is not well-formed records. */
static gboolean
metadata_offset (const guint8 * data, gsize len, gint * offset)
{
  gsize off = 0;

  *offset = 0;
  while (off < len) {
    guint32 n;

    if (len - off < 8)
      return FALSE;
    n = read_le32 (data + off + 4);
    if (n > len - off - 8)
      return FALSE;
    if (memcmp (data + off, "SOFF", 4) == 0) {
      if (n != 4)
        return FALSE;
      *offset = (gint32) read_le32 (data + off + 8);
    }
    off += 8 + (gsize) n;
  }
  return TRUE;
}

/* The metadata of the whole frame `in` (len bytes) into *meta (g_malloc,
 * *meta_len bytes; NULL when there is none or it cannot be used) and its
 * sample-offset into *offset.  A section that does not decompress, or is
 * not dpcmenc's records, is ignored with a warning: the samples do not
 * depend on it.  The frame's status otherwise (its header, lengths and
 * CRC checked). */
static gint
read_metadata (GstDpcmDec * self, const guint8 * in, gsize len,
    guint8 ** meta, gsize * meta_len, gint * offset)
{
  const gchar *bad = NULL;
  gint st;

  *meta = NULL;
  *offset = 0;
  st = sci_dpcm_metadata (in, len, NULL, 0, meta_len);
  if (st == SCI_DPCM_OK && *meta_len) {
    /* at most SCI_DPCM_MAX_METADATA (16 MiB), whatever the section says */
    *meta = g_try_malloc (*meta_len);
    if (!*meta)
      bad = "cannot be held in memory";
    else
      st = sci_dpcm_metadata (in, len, *meta, *meta_len, meta_len);
  }
  if (st == SCI_DPCM_E_METADATA)
    bad = "does not decompress";
  else if (st == SCI_DPCM_OK && *meta && !metadata_offset (*meta, *meta_len,
          offset))
    bad = "is not in dpcmenc's form";
  if (bad) {
    GST_ELEMENT_WARNING (self, STREAM, DECODE,
        ("The DPCM frame's metadata %s: ignored", bad),
        ("frame of %" G_GSIZE_FORMAT " bytes at byte %" G_GUINT64_FORMAT
            " of the stream", len, self->offset - len));
    g_clear_pointer (meta, g_free);
    *offset = 0;
    st = SCI_DPCM_OK;
  }
  if (!*meta)
    *meta_len = 0;
  return st;
}


/* Makes the src caps say what the frame of `info` decodes to: the frame's
 * size and depth, the rate of the input caps, the sample offset of the
 * frame's metadata (else of the input caps). */
static gboolean
ensure_src_caps (GstDpcmDec * self, const sci_dpcm_info * info, gint offset)
{
  GstCaps *sinkcaps = GST_SCI_VIDEO_DECODER (self)->sink_caps;
  GstVideoFormat format = info->depth <= 8 ? GST_VIDEO_FORMAT_GRAY8 :
      GST_VIDEO_FORMAT_GRAY16_LE;
  gint fps_n = 0, fps_d = 1, caps_offset = 0;
  GstVideoInfo vinfo;
  GstCaps *caps;

  if (sinkcaps) {
    GstStructure *s = gst_caps_get_structure (sinkcaps, 0);

    if (!gst_structure_get_fraction (s, "framerate", &fps_n, &fps_d)) {
      fps_n = 0;
      fps_d = 1;
    }
    gst_structure_get_int (s, "sample-offset", &caps_offset);
  }
  if (!offset)
    offset = caps_offset;
  gst_video_info_set_format (&vinfo, format, info->width, info->height);
  vinfo.fps_n = fps_n;
  vinfo.fps_d = fps_d;
  caps = gst_video_info_to_caps (&vinfo);
  if (offset && format == GST_VIDEO_FORMAT_GRAY16_LE)
    gst_caps_set_simple (caps, "sample-offset", G_TYPE_INT, offset, NULL);
  if (!gst_sci_video_decoder_set_src_caps (GST_SCI_VIDEO_DECODER (self), caps))
    return FALSE;
  self->out_info = vinfo;
  return TRUE;
}

/* One frame through the C reference: the whole frame `in` (len bytes,
 * whose header is `info`) checked and decoded into *outbuf, a new system
 * memory frame of out_info (left NULL on error). */
static GstFlowReturn
decode_frame_cpu (GstDpcmDec * self, const guint8 * in, gsize len,
    sci_dpcm_info * info, GstBuffer ** outbuf)
{
  guint w = info->width, h = info->height, x, y;
  GstVideoFrame frame;
  GstBuffer *out;
  guint8 *plane;
  gint stride;
  gboolean direct;
  int st;

  *outbuf = NULL;
  out = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&self->out_info),
      NULL);
  if (!gst_video_frame_map (&frame, &self->out_info, out, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
        (NULL));
    gst_buffer_unref (out);
    return GST_FLOW_ERROR;
  }
  plane = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
  stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
  direct = info->depth > 8 && G_BYTE_ORDER == G_LITTLE_ENDIAN && stride > 0
      && stride % 2 == 0 && (guintptr) plane % 2 == 0;
  if (direct) {
    st = sci_dpcm_decode (gst_sci_backend_pool (&GST_SCI_VIDEO_DECODER
            (self)->backend), in, len, (guint16 *) plane, stride / 2,
        ((gsize) (h - 1) * stride) / 2 + w, info);
  } else {
    gsize n = (gsize) w * h;

    if (self->samples_len < n) {
      g_free (self->samples);
      self->samples = g_new (guint16, n);
      self->samples_len = n;
    }
    st = sci_dpcm_decode (gst_sci_backend_pool (&GST_SCI_VIDEO_DECODER
            (self)->backend), in, len, self->samples, w, n, info);
    if (st == SCI_DPCM_OK)
      for (y = 0; y < h; y++) {
        guint8 *row = plane + (gssize) y * stride;
        const guint16 *src = self->samples + (gsize) y * w;

        /* bytes: this path is taken for rows that are not aligned */
        if (info->depth <= 8)
          for (x = 0; x < w; x++)
            row[x] = (guint8) src[x];
        else
          for (x = 0; x < w; x++) {
            row[2 * x] = (guint8) src[x];
            row[2 * x + 1] = (guint8) (src[x] >> 8);
          }
      }
  }
  gst_video_frame_unmap (&frame);
  if (st != SCI_DPCM_OK) {
    DECODE_ERROR (self, st, "sci_dpcm_decode of a %" G_GSIZE_FORMAT
        "-byte frame (%ux%u, depth %u): %d", len, w, h, info->depth, st);
    gst_buffer_unref (out);
    return GST_FLOW_ERROR;
  }
  *outbuf = out;
  return GST_FLOW_OK;
}

#if HAVE_CUDA
/* What a CUDA failure of decode_frame_cuda returns: the caller may fall
 * back to the CPU (it has posted nothing). */
#define FLOW_CUDA_FAILED GST_FLOW_CUSTOM_ERROR

static void
release_cuda (GstDpcmDec * self)
{
  gst_sci_out_pool_clear (&self->out);
  gst_dpcm_cuda_close (&GST_SCI_VIDEO_DECODER (self)->backend, &self->cuda_dec);
}

/* A buffer for a frame of out_info: device memory (`device`) or
 * page-locked host memory.  Device buffers carry the video meta of
 * out_info: their memory records the layout of its carrier, not of the
 * frame.  NULL posts an error. */
static GstBuffer *
acquire_output (GstDpcmDec * self, gboolean device)
{
  GstVideoInfo *vi = &self->out_info;
  GstCaps *caps = gst_video_info_to_caps (vi);
  GstBuffer *buf = gst_sci_out_pool_acquire (&self->out, GST_ELEMENT (self),
      GST_SCI_VIDEO_DECODER (self)->backend.cuda.context, caps,
      GST_VIDEO_INFO_SIZE (vi),
      device);

  gst_caps_unref (caps);
  if (buf && device && !gst_buffer_get_video_meta (buf))
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (vi), GST_VIDEO_INFO_WIDTH (vi),
        GST_VIDEO_INFO_HEIGHT (vi), GST_VIDEO_INFO_N_PLANES (vi), vi->offset,
        vi->stride);
  return buf;
}

/* One frame through the kernels, as decode_frame_cpu: decoded straight
 * into CUDA memory when the src caps have it, else into page-locked host
 * memory.  sci_cuda_dpcm_decode synchronizes its stream, so the frame is
 * complete when it returns.  The frame's checks are the C reference's:
 * a failing one gives the CPU path's error.  On FLOW_CUDA_FAILED, *what
 * and *err say what failed. */
static GstFlowReturn
decode_frame_cuda (GstDpcmDec * self, const guint8 * in, gsize len,
    sci_dpcm_info * info, GstBuffer ** outbuf, const gchar ** what, gint * err)
{
  GstSciBackendState *base = &GST_SCI_VIDEO_DECODER (self)->backend;
  GstSciCuda *cuda = &base->cuda;
  gboolean device = base->out_cuda_memory;
  guint w = info->width, h = info->height;
  guint bps = info->depth <= 8 ? 1 : 2;
  const guint8 *ins[1];
  size_t lens[1], strides[1], caps[1];
  void *outs[1];
  int status = SCI_DPCM_OK, rc = 0;
  GstVideoFrame frame;
  GstBuffer *out;
  guint8 *plane;
  gint stride;

  *outbuf = NULL;
  *what = NULL;
  *err = 0;
  out = acquire_output (self, device);
  if (!out)
    return GST_FLOW_ERROR;
  if (!gst_video_frame_map (&frame, &self->out_info, out,
          GST_MAP_WRITE | (device ? GST_MAP_CUDA : 0))) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
        (NULL));
    gst_buffer_unref (out);
    return GST_FLOW_ERROR;
  }
  plane = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
  stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
  /* the kernels count the stride in samples */
  if (stride <= 0 || stride % bps || (guintptr) plane % bps) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("The output frame's rows are %d bytes apart, not a whole number of "
            "%u-byte samples", stride, bps), (NULL));
    gst_video_frame_unmap (&frame);
    gst_buffer_unref (out);
    return GST_FLOW_ERROR;
  }
  ins[0] = in;
  lens[0] = len;
  outs[0] = plane;
  strides[0] = stride / bps;
  caps[0] = (gsize) (h - 1) * strides[0] + w;
  if (gst_sci_cuda_push (cuda)) {
    rc = sci_cuda_dpcm_decode (self->cuda_dec, 1, ins, lens, outs, strides,
        caps, bps, device, &status, cuda->stream);
    if (rc > 0) {
      *what = "DPCM decoding";
      *err = rc;
      cudaGetLastError ();      /* clear what is not sticky */
    }
    gst_sci_cuda_pop ();
  } else {
    *what = "context push";
  }
  gst_video_frame_unmap (&frame);
  if (*what) {
    gst_buffer_unref (out);
    return FLOW_CUDA_FAILED;
  }
  if (status != SCI_DPCM_OK) {
    DECODE_ERROR (self, status, "sci_cuda_dpcm_decode of a %" G_GSIZE_FORMAT
        "-byte frame (%ux%u, depth %u): %d", len, w, h, info->depth, status);
    gst_buffer_unref (out);
    return GST_FLOW_ERROR;
  }
  if (rc < 0) {
    /* no frame code: the call itself was refused */
    GST_ELEMENT_ERROR (self, STREAM, DECODE,
        ("The GPU decoder refused the frame: %s", sci_cuda_error_string (rc)),
        ("sci_cuda_dpcm_decode of a %" G_GSIZE_FORMAT "-byte frame (%ux%u, "
            "depth %u) into %s memory: %d", len, w, h, info->depth,
            device ? "CUDA" : "system", rc));
    gst_buffer_unref (out);
    return GST_FLOW_ERROR;
  }
  *outbuf = out;
  return GST_FLOW_OK;
}
#endif

#define FLOW_NEED_DATA GST_VIDEO_DECODER_FLOW_NEED_DATA

/* Every later frame is dropped once an error has been posted. */
static GstFlowReturn
failed (GstDpcmDec * self, GstFlowReturn ret)
{
  if (ret == GST_FLOW_ERROR || ret == GST_FLOW_NOT_NEGOTIATED)
    self->failed = TRUE;
  return ret;
}

/* The stream ends (EOS, a new stream) `left` bytes into a frame: those are
 * truncated, unless downstream stopped the stream first (refused caps, a
 * sink's own EOS): the error already posted is the one to read. */
static GstFlowReturn
stream_ends (GstDpcmDec * self, gsize left)
{
  GstFlowReturn last =
      gst_pad_get_last_flow_return (GST_VIDEO_DECODER_SRC_PAD (self));

  if (self->failed || last < GST_FLOW_OK) {
    GST_DEBUG_OBJECT (self, "%" G_GSIZE_FORMAT " bytes left after the "
        "stream stopped (%s)", left, gst_flow_get_name (last));
    return self->failed ? GST_FLOW_ERROR : last;
  }
  DECODE_ERROR (self, SCI_DPCM_E_TRUNCATED, "%" G_GSIZE_FORMAT
      " bytes at the end of the stream are not a whole frame", left);
  return failed (self, GST_FLOW_ERROR);
}

/* Byte-stream input: the next whole frame of the adapter, which its header
 * gives the length of. */
static GstFlowReturn
gst_dpcm_dec_parse (GstVideoDecoder * decoder, GstVideoCodecFrame * frame,
    GstAdapter * adapter, gboolean at_eos)
{
  GstDpcmDec *self = GST_DPCM_DEC (decoder);
  gsize avail = gst_adapter_available (adapter);
  const guint8 *hd;
  sci_dpcm_info info;
  GstFlowReturn ret;
  int st;

  if (self->failed) {
    gst_adapter_flush (adapter, avail);
    return GST_FLOW_ERROR;
  }
  if (avail == 0)
    return FLOW_NEED_DATA;
  hd = gst_adapter_map (adapter, MIN (avail, SCI_DPCM_HEADER_BYTES));
  st = sci_dpcm_peek (hd, MIN (avail, SCI_DPCM_HEADER_BYTES), &info);
  gst_adapter_unmap (adapter);
  if (st != SCI_DPCM_OK && !(st == SCI_DPCM_E_TRUNCATED
          && avail < SCI_DPCM_HEADER_BYTES)) {
    DECODE_ERROR (self, st, "header at byte %" G_GUINT64_FORMAT
        " of the stream", self->offset);
    ret = failed (self, GST_FLOW_ERROR);
  } else if (st != SCI_DPCM_OK || avail < info.frame_bytes) {
    if (!at_eos)
      return FLOW_NEED_DATA;
    ret = stream_ends (self, avail);
  } else {
    gst_video_decoder_add_to_frame (decoder, info.frame_bytes);
    ret = gst_video_decoder_have_frame (decoder);
  }
  /* posted (a corrupt frame, refused caps): the rest is not read */
  if (self->failed)
    gst_adapter_flush (adapter, gst_adapter_available (adapter));
  return ret;
}

/* A frame through the C reference or the kernels into an output buffer
 * (*outbuf, left NULL on error, posted). */
static GstFlowReturn
decode_frame (GstDpcmDec * self, const guint8 * in, gsize len,
    sci_dpcm_info * info, GstBuffer ** outbuf)
{
#if HAVE_CUDA
  GstSciBackendState *base = &GST_SCI_VIDEO_DECODER (self)->backend;
  GstFlowReturn ret;

  if (base->use_cuda && !gst_dpcm_cuda_open (base, &self->cuda_dec,
          "DPCM decoder state"))
    return GST_FLOW_ERROR;
  if (base->use_cuda) {
    const gchar *what;
    gint err;

    ret = decode_frame_cuda (self, in, len, info, outbuf, &what, &err);
    if (ret != FLOW_CUDA_FAILED)
      return ret;
    if (!gst_sci_backend_frame_cuda_failed (base, self->sent, what, err))
      return GST_FLOW_ERROR;
    release_cuda (self);
    GST_INFO_OBJECT (self, "backend: CPU (C reference) from now on");
  }
#endif
  return decode_frame_cpu (self, in, len, info, outbuf);
}

/* One whole frame (from parse, or a buffer of framed input): checked in
 * full, decoded, its metadata section back as GstSciFitsMeta and the
 * sample-offset of the src caps. */
static GstFlowReturn
decode (GstDpcmDec * self, GstVideoCodecFrame * frame)
{
  GstVideoDecoder *decoder = GST_VIDEO_DECODER (self);
  GstMapInfo map;
  sci_dpcm_info info;
  guint8 *meta = NULL;
  gsize meta_len = 0;
  GstBuffer *out = NULL;
  GstFlowReturn ret = GST_FLOW_ERROR;
  gint offset = 0;
  int st;

  if (!gst_buffer_map (frame->input_buffer, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map input buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  st = sci_dpcm_peek (map.data, MIN (map.size, SCI_DPCM_HEADER_BYTES), &info);
  if (st != SCI_DPCM_OK) {
    DECODE_ERROR (self, st, "header at byte %" G_GUINT64_FORMAT
        " of the stream (a buffer of %" G_GSIZE_FORMAT " bytes)",
        self->offset, map.size);
    goto done;
  }
  if (map.size != info.frame_bytes) {
    /* framed input: a buffer is one frame */
    GST_ELEMENT_ERROR (self, STREAM, DECODE,
        ("Corrupt DPCM frame: a buffer of %" G_GSIZE_FORMAT " bytes holds a "
            "frame of %u bytes", map.size, (guint) info.frame_bytes),
        ("at byte %" G_GUINT64_FORMAT " of the stream; input caps %"
            GST_PTR_FORMAT, self->offset,
            GST_SCI_VIDEO_DECODER (self)->sink_caps));
    goto done;
  }
  self->offset += map.size;
  /* the metadata section is read only once the frame has been checked:
   * first the CRC and lengths (sci_dpcm_metadata), then the samples */
  st = read_metadata (self, map.data, map.size, &meta, &meta_len, &offset);
  if (st != SCI_DPCM_OK) {
    DECODE_ERROR (self, st, "%" G_GSIZE_FORMAT "-byte frame", map.size);
    goto done;
  }
  if (!ensure_src_caps (self, &info, offset)) {
    ret = GST_FLOW_NOT_NEGOTIATED;
    goto done;
  }
  ret = decode_frame (self, map.data, map.size, &info, &out);
  if (ret == GST_FLOW_OK && meta) {
    gboolean added = FALSE;

    if (!gst_buffer_add_sci_fits_meta_from_records (out, meta, meta_len,
            &added))
      GST_ELEMENT_WARNING (self, STREAM, DECODE,
          ("The DPCM frame's FITS header records are malformed: ignored"),
          (NULL));
  }
done:
  g_free (meta);
  gst_buffer_unmap (frame->input_buffer, &map);
  if (ret != GST_FLOW_OK) {
    gst_video_decoder_release_frame (decoder, frame);
    return failed (self, ret);
  }
  frame->output_buffer = out;
  self->sent = TRUE;
  return gst_video_decoder_finish_frame (decoder, frame);
}

static GstFlowReturn
gst_dpcm_dec_handle_frame (GstVideoDecoder * decoder,
    GstVideoCodecFrame * frame)
{
  GstDpcmDec *self = GST_DPCM_DEC (decoder);

  /* dropped after an error; a buffer of no bytes (framed input, an empty
   * file) adds nothing */
  if (self->failed || gst_buffer_get_size (frame->input_buffer) == 0) {
    gst_video_decoder_release_frame (decoder, frame);
    return self->failed ? GST_FLOW_ERROR : GST_FLOW_OK;
  }
  return decode (self, frame);
}

/* The end of the stream: the bytes of an unfinished frame were reported by
 * parse; nothing at all is an error too. */
static GstFlowReturn
gst_dpcm_dec_finish (GstVideoDecoder * decoder)
{
  GstDpcmDec *self = GST_DPCM_DEC (decoder);
  GstFlowReturn last =
      gst_pad_get_last_flow_return (GST_VIDEO_DECODER_SRC_PAD (decoder));

  if (self->failed)
    return GST_FLOW_ERROR;
  if (last < GST_FLOW_OK)
    return last;
  if (self->offset == 0) {
    GST_ELEMENT_ERROR (self, STREAM, DECODE,
        ("The DPCM stream is empty: no frame to decode"),
        ("end of stream before any input byte"));
    return failed (self, GST_FLOW_ERROR);
  }
  return GST_FLOW_OK;
}

/* Frames leave as they are decoded: nothing is held back. */
static GstFlowReturn
gst_dpcm_dec_drain (GstVideoDecoder * decoder)
{
  return GST_FLOW_OK;
}

static gboolean
gst_dpcm_dec_flush (GstVideoDecoder * decoder)
{
  GST_DPCM_DEC (decoder)->failed = FALSE;
  return TRUE;
}

/* The output's metadata comes from the frame alone (its metadata section),
 * never from the coded buffer's. */
static gboolean
gst_dpcm_dec_transform_meta (GstVideoDecoder * decoder,
    GstVideoCodecFrame * frame, GstMeta * meta)
{
  return FALSE;
}

static gboolean
gst_dpcm_dec_start (GstVideoDecoder * decoder)
{
  GstDpcmDec *self = GST_DPCM_DEC (decoder);

  self->offset = 0;
  self->sent = FALSE;
  self->failed = FALSE;
  /* a byte stream until caps say otherwise */
  gst_video_decoder_set_packetized (decoder, FALSE);
  return GST_VIDEO_DECODER_CLASS (parent_class)->start (decoder);
}

static void
release_all (GstDpcmDec * self)
{
  g_clear_pointer (&self->samples, g_free);
  self->samples_len = 0;
  self->sent = FALSE;
#if HAVE_CUDA
  release_cuda (self);
#endif
}

static gboolean
gst_dpcm_dec_stop (GstVideoDecoder * decoder)
{
  /* before the base class drops the CUDA context */
  release_all (GST_DPCM_DEC (decoder));
  return GST_VIDEO_DECODER_CLASS (parent_class)->stop (decoder);
}

static void
gst_dpcm_dec_finalize (GObject * object)
{
  release_all (GST_DPCM_DEC (object));
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_dpcm_dec_class_init (GstDpcmDecClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstVideoDecoderClass *vdec_class = GST_VIDEO_DECODER_CLASS (klass);
  GstSciVideoDecoderClass *sci_class = GST_SCI_VIDEO_DECODER_CLASS (klass);
  GstCaps *caps;

  gobject_class->finalize = gst_dpcm_dec_finalize;

  gst_element_class_set_static_metadata (element_class,
      "Online-DPCM decoder", "Codec/Decoder/Image",
      "Decodes and checks online-DPCM frames into 8- and 16-bit gray "
      "frames, FITS header restored, on CUDA or the CPU", SCI_ELEMENT_AUTHOR);

  caps = gst_caps_from_string (DPCM_MEDIA_TYPE);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  caps = gst_sci_template_caps (SRC_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  vdec_class->start = GST_DEBUG_FUNCPTR (gst_dpcm_dec_start);
  vdec_class->stop = GST_DEBUG_FUNCPTR (gst_dpcm_dec_stop);
  vdec_class->parse = GST_DEBUG_FUNCPTR (gst_dpcm_dec_parse);
  vdec_class->handle_frame = GST_DEBUG_FUNCPTR (gst_dpcm_dec_handle_frame);
  vdec_class->finish = GST_DEBUG_FUNCPTR (gst_dpcm_dec_finish);
  vdec_class->drain = GST_DEBUG_FUNCPTR (gst_dpcm_dec_drain);
  vdec_class->flush = GST_DEBUG_FUNCPTR (gst_dpcm_dec_flush);
  vdec_class->transform_meta = GST_DEBUG_FUNCPTR (gst_dpcm_dec_transform_meta);
  sci_class->transform_caps = GST_DEBUG_FUNCPTR (gst_dpcm_dec_transform_caps);
  sci_class->set_sink_caps = GST_DEBUG_FUNCPTR (gst_dpcm_dec_set_sink_caps);

  GST_DEBUG_CATEGORY_INIT (gst_dpcm_dec_debug, "dpcmdec", 0,
      "online-DPCM decoder");
}

static void
gst_dpcm_dec_init (GstDpcmDec * self)
{
}
