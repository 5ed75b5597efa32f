/**
 * SECTION:element-dpcmenc
 * @title: dpcmenc
 *
 * Lossless online-DPCM encoder (Li, Wu & Jeon 2019; docs/dpcm-format.md):
 * each GRAY8 or GRAY16_LE frame becomes one DPCM frame (application/x-dpcm)
 * in one buffer, coded with bit depth 8 (GRAY8) or 16 (GRAY16_LE).  Every
 * pixel is predicted by a least-squares predictor of `order` weights fitted
 * on `equations` positions of every row above; residuals seen fewer than
 * `threshold` times are stored verbatim, the others range-coded (by
 * default all of them).  With
 * `scan=columns` the predictor runs down the columns instead (the frame is
 * coded transposed; the decoder reads the direction from the frame);
 * `scan=auto`, the default, chooses for each frame the direction along
 * which neighbouring samples differ less.
 *
 * The #GstSciFitsMeta of a frame (fitsdec's header cards) and the caps'
 * `sample-offset` (fitsdec's signed 16-bit images) travel in the frame's
 * metadata section, so that `dpcmdec` restores them, even from a file.
 *
 * With a usable CUDA device (`backend=auto` or `cuda`) the kernels of
 * cuda/dpcm/dpcm.cu run the prediction, the thresholds and the range coding of
 * every segment on the GPU; only the coded segments come back to the host,
 * where the header, the metadata section and the CRC are written around
 * them.  Otherwise the C reference runs on the CPU.  The bytes are the same
 * either way.  Input may be in system memory or in CUDA memory
 * (video/x-raw(memory:CUDAMemory), read in place; the latter only while
 * the kernels run); the output is always in system memory.  GStreamer
 * 1.22's cudaupload takes no gray formats: CUDA-memory gray frames come
 * from dpcmdec, or from an application.
 *
 * If the GPU state cannot be made at negotiation, or CUDA fails on the
 * first frame with the input in system memory, `backend=auto` warns and
 * goes on with the C reference; with `backend=cuda`, with CUDA-memory
 * input, or once a frame has been output, a CUDA failure is an error.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 multifilesrc location=frame_%05d.fits caps=image/fits ! \
 *     fitsdec ! dpcmenc ! multifilesink location=frame_%05d.dpcm
 * gst-launch-1.0 videotestsrc num-buffers=10 ! \
 *     video/x-raw,format=GRAY16_LE,width=1024,height=1024 ! \
 *     dpcmenc order=4 equations=4 ! filesink location=f.dpcm
 * gst-launch-1.0 filesrc location=f.dpcm ! dpcmdec ! \
 *     'video/x-raw(memory:CUDAMemory)' ! dpcmenc threshold=0 ! \
 *     filesink location=g.dpcm
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstdpcmenc.h"
#include "gstdpcmcuda.h"
#include "gst/gstscifitsmeta.h"
#if HAVE_CUDA
#include <cuda_runtime_api.h>
#include "cuda/error.h"
#endif

GST_DEBUG_CATEGORY_STATIC (gst_dpcm_enc_debug);
#define GST_CAT_DEFAULT gst_dpcm_enc_debug

enum
{
  PROP_0,
  PROP_ORDER,
  PROP_EQUATIONS,
  PROP_THRESHOLD,
  PROP_SCAN,
};

#define DEFAULT_ORDER 11
#define DEFAULT_EQUATIONS 7
/* 0, not the paper's 13: range-coding every residual took 0.8-4 % fewer
 * bits than escaping the rare ones on every real set measured (TREx
 * blueline and near-infrared, GMOS-N, TRACE; docs/dpcm-format.md) */
#define DEFAULT_THRESHOLD 0
#define DEFAULT_SCAN SCI_DPCM_SCAN_AUTO
#define MAX_THRESHOLD 65535

#define DPCM_MEDIA_TYPE "application/x-dpcm"
#define SINK_CAPS "video/x-raw, format = (string) { GRAY16_LE, GRAY8 }, " \
  "width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ], " \
  "framerate = (fraction) [ 0/1, MAX ]"
#define SRC_CAPS DPCM_MEDIA_TYPE ", " \
  "width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ], " \
  "depth = (int) { 8, 16 }, framerate = (fraction) [ 0/1, MAX ]"

/* Caps fields carried over between the two sides unchanged. */
static const gchar *const common_fields[] = {
  "width", "height", "framerate", "sample-offset",
};

#define GST_TYPE_DPCM_SCAN (gst_dpcm_scan_get_type ())
static GType
gst_dpcm_scan_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {SCI_DPCM_SCAN_ROWS, "Predict along rows", "rows"},
    {SCI_DPCM_SCAN_COLUMNS, "Predict along columns (the frame is coded "
          "transposed)", "columns"},
    {SCI_DPCM_SCAN_AUTO, "Choose for each frame: along columns where "
          "vertical neighbours differ less than horizontal ones (summed "
          "absolute differences), else along rows", "auto"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstDpcmScan", values);
    g_once_init_leave (&type, t);
  }
  return (GType) type;
}

#define gst_dpcm_enc_parent_class parent_class
G_DEFINE_TYPE (GstDpcmEnc, gst_dpcm_enc, GST_TYPE_SCI_VIDEO_ENCODER);
GST_ELEMENT_REGISTER_DEFINE (dpcmenc, "dpcmenc", GST_RANK_NONE,
    GST_TYPE_DPCM_ENC);

static void
gst_dpcm_enc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstDpcmEnc *self = GST_DPCM_ENC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ORDER:
      self->params.order_n = g_value_get_uint (value);
      break;
    case PROP_EQUATIONS:
      self->params.equations_m = g_value_get_uint (value);
      break;
    case PROP_THRESHOLD:
      self->params.threshold = g_value_get_uint (value);
      break;
    case PROP_SCAN:
      self->params.scan = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_dpcm_enc_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstDpcmEnc *self = GST_DPCM_ENC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ORDER:
      g_value_set_uint (value, self->params.order_n);
      break;
    case PROP_EQUATIONS:
      g_value_set_uint (value, self->params.equations_m);
      break;
    case PROP_THRESHOLD:
      g_value_set_uint (value, self->params.threshold);
      break;
    case PROP_SCAN:
      g_value_set_enum (value, self->params.scan);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* The coded depth of a video format, 0 if not ours. */
static gint
format_depth (const gchar * format)
{
  if (g_strcmp0 (format, "GRAY8") == 0)
    return 8;
  if (g_strcmp0 (format, "GRAY16_LE") == 0)
    return 16;
  return 0;
}

static void
append_string (GValue * list, const gchar * s)
{
  GValue v = G_VALUE_INIT;

  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, s);
  gst_value_list_append_and_take_value (list, &v);
}

static void
append_int (GValue * list, gint i)
{
  GValue v = G_VALUE_INIT;

  g_value_init (&v, G_TYPE_INT);
  g_value_set_int (&v, i);
  gst_value_list_append_and_take_value (list, &v);
}

/* Which of 8 and 16 a field (format or depth) allows: bit 0 for 8, bit 1
 * for 16; both when absent. */
static guint
allowed_depths (const GstStructure * s, const gchar * field, gboolean video)
{
  const GValue *v = gst_structure_get_value (s, field);
  guint mask = 0, k;

  if (!v)
    return 3;
  if (video) {
    if (G_VALUE_HOLDS_STRING (v)) {
      k = format_depth (g_value_get_string (v));
      return k == 8 ? 1 : k == 16 ? 2 : 0;
    }
    if (GST_VALUE_HOLDS_LIST (v)) {
      for (k = 0; k < gst_value_list_get_size (v); k++) {
        const GValue *f = gst_value_list_get_value (v, k);
        gint d = G_VALUE_HOLDS_STRING (f) ?
            format_depth (g_value_get_string (f)) : 0;

        mask |= d == 8 ? 1 : d == 16 ? 2 : 0;
      }
    }
    return mask;
  } else {
    GValue eight = G_VALUE_INIT, sixteen = G_VALUE_INIT;

    g_value_init (&eight, G_TYPE_INT);
    g_value_set_int (&eight, 8);
    g_value_init (&sixteen, G_TYPE_INT);
    g_value_set_int (&sixteen, 16);
    if (gst_value_can_intersect (v, &eight))
      mask |= 1;
    if (gst_value_can_intersect (v, &sixteen))
      mask |= 2;
    return mask;
  }
}

static GstCaps *
gst_dpcm_enc_transform_caps (GstSciVideoEncoder * base,
    GstPadDirection direction, GstCaps * caps)
{
  GstCaps *result = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *in = gst_caps_get_structure (caps, i);
    gboolean from_video = direction == GST_PAD_SINK;
    guint mask = allowed_depths (in, from_video ? "format" : "depth",
        from_video);
    GstStructure *out;
    GValue list = G_VALUE_INIT;

    if (!mask)
      continue;
    out = gst_structure_new_empty (from_video ? DPCM_MEDIA_TYPE :
        "video/x-raw");
    gst_sci_structure_copy_fields (out, in, common_fields,
        G_N_ELEMENTS (common_fields));
    if (mask == 3) {
      gst_value_list_init (&list, 2);
      if (from_video) {
        append_int (&list, 16);
        append_int (&list, 8);
      } else {
        append_string (&list, "GRAY16_LE");
        append_string (&list, "GRAY8");
      }
      gst_structure_take_value (out, from_video ? "depth" : "format", &list);
    } else if (from_video) {
      gst_structure_set (out, "depth", G_TYPE_INT, mask == 1 ? 8 : 16, NULL);
    } else {
      gst_structure_set (out, "format", G_TYPE_STRING,
          mask == 1 ? "GRAY8" : "GRAY16_LE", NULL);
    }
    if (from_video) {
      /* the coded frame is written on the host, one frame a buffer */
      gst_structure_set (out, "parsed", G_TYPE_BOOLEAN, TRUE, NULL);
      result = gst_caps_merge_structure (result, out);
    } else {
      GstCaps *one = gst_caps_new_full (out, NULL);

      /* the input may be in CUDA memory while the kernels run */
      result = gst_caps_merge (result,
          gst_sci_backend_with_features (&base->backend, one,
              gst_caps_get_features (caps, i)));
      gst_caps_unref (one);
    }
  }
  return result;
}

/* New sink caps: the frame size and depth, the coded caps. */
static gboolean
gst_dpcm_enc_configure (GstSciVideoEncoder * venc, GstCaps * incaps,
    GstVideoCodecState * state)
{
  GstDpcmEnc *self = GST_DPCM_ENC (venc);
  GstSciBackendState *base = &venc->backend;
  GstStructure *s = gst_caps_get_structure (incaps, 0);
  GstCaps *outcaps;
  gint offset = 0;
  guint w, h;

  self->in_info = state->info;
  self->depth = GST_VIDEO_INFO_FORMAT (&self->in_info) ==
      GST_VIDEO_FORMAT_GRAY8 ? 8 : 16;
  if (gst_structure_get_int (s, "sample-offset", &offset) && offset != 0
      && self->depth != 16) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("sample-offset=%d is only meaningful with GRAY16_LE", offset), (NULL));
    return FALSE;
  }
  w = GST_VIDEO_INFO_WIDTH (&self->in_info);
  h = GST_VIDEO_INFO_HEIGHT (&self->in_info);
  self->max_bytes = sci_dpcm_max_bytes (w, h, self->depth);
  if (!self->max_bytes) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("DPCM cannot code %ux%u frames", w, h),
        ("%s", sci_dpcm_check (w, h, self->depth, &self->params)));
    return FALSE;
  }
  outcaps = gst_sci_video_encoder_src_caps_for (venc, incaps);
  if (!outcaps) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream takes none of the DPCM frames of %" GST_PTR_FORMAT,
            incaps), (NULL));
    return FALSE;
  }
  if (!self->outcaps || !gst_caps_is_equal (self->outcaps, outcaps)) {
    gst_caps_replace (&self->outcaps, outcaps);
    gst_sci_video_encoder_set_src_caps (venc, gst_caps_ref (outcaps));
  }
  gst_caps_unref (outcaps);
#if HAVE_CUDA
  if (base->use_cuda && !gst_dpcm_cuda_open (base, &self->cuda_enc,
          "DPCM encoder state"))
    return FALSE;
#endif
  g_clear_pointer (&self->samples, g_free);
  GST_INFO_OBJECT (self, "%s %ux%u, depth %u, up to %" G_GSIZE_FORMAT
      " bytes a frame, %s backend, %s memory in",
      GST_VIDEO_INFO_NAME (&self->in_info), w, h, self->depth,
      self->max_bytes, base->use_cuda ? "CUDA" : "CPU",
      base->in_cuda_memory ? "CUDA" : "system");
  return TRUE;
}

/* The metadata section of the frame of `inbuf` (docs/dpcm-format.md,
 * "What dpcmenc stores there"), or NULL when there is nothing to keep. */
static GBytes *
frame_metadata (GstDpcmEnc * self, GstBuffer * inbuf)
{
  GstSciFitsMeta *meta = gst_buffer_get_sci_fits_meta (inbuf);
  GByteArray *a = g_byte_array_new ();
  gint offset = 0;

  if (meta) {
    GBytes *fits = gst_sci_fits_meta_serialize (meta);
    gsize n;
    gconstpointer d = g_bytes_get_data (fits, &n);

    g_byte_array_append (a, d, n);
    g_bytes_unref (fits);
  }
  if (self->outcaps && gst_structure_get_int (gst_caps_get_structure
          (self->outcaps, 0), "sample-offset", &offset) && offset != 0) {
    guint32 u = (guint32) offset;
    /* bytes: GST_WRITE_UINT32_LE stores 32 bits at once on x86, and a
     * byte array need not be aligned for that */
    guint8 v[4] = { u & 0xff, (u >> 8) & 0xff, (u >> 16) & 0xff, u >> 24 };

    gst_sci_meta_append_record (a, "SOFF", v, 4);
  }
  if (a->len == 0) {
    g_byte_array_unref (a);
    return NULL;
  }
  return g_byte_array_free_to_bytes (a);
}

/* Maps the input frame: host addresses, or device addresses (`device`:
 * CUDA memory of our context).  FALSE posts an error. */
static gboolean
map_input (GstDpcmEnc * self, GstVideoFrame * frame, GstBuffer * inbuf,
    gboolean device)
{
  if (!device) {
    if (gst_video_frame_map (frame, &self->in_info, inbuf, GST_MAP_READ))
      return TRUE;
  }
#if HAVE_CUDA
  /* (the blob memory of dpcmdec carries gray frames, for which GStreamer
   * 1.22 allocates no GstCudaMemory) */
  else if (gst_sci_cuda_map_device_frame (frame, &self->in_info, inbuf,
          GST_MAP_READ))
    return TRUE;
#endif
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Input buffer of %" G_GSIZE_FORMAT " bytes does not hold a %s "
          "%ux%u frame", gst_buffer_get_size (inbuf),
          GST_VIDEO_INFO_NAME (&self->in_info),
          GST_VIDEO_INFO_WIDTH (&self->in_info),
          GST_VIDEO_INFO_HEIGHT (&self->in_info)), (NULL));
  return FALSE;
}

/* The samples of a frame mapped on the host as w x h native uint16 rows
 * one after another (self->samples), for rows the encoders cannot read
 * in place: 8-bit samples, or 16-bit ones at an odd stride or address. */
static const guint16 *
pack_samples (GstDpcmEnc * self, const GstVideoFrame * frame)
{
  guint w = GST_VIDEO_INFO_WIDTH (&self->in_info);
  guint h = GST_VIDEO_INFO_HEIGHT (&self->in_info);
  const guint8 *plane = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  guint16 *dst;
  guint x, y;

  if (!self->samples)
    self->samples = g_new (guint16, (gsize) w * h);
  dst = self->samples;
  for (y = 0; y < h; y++) {
    const guint8 *row = plane + (gssize) y * stride;

    if (self->depth == 8)
      for (x = 0; x < w; x++)
        dst[(gsize) y * w + x] = row[x];
    else
      /* bytes: rows land here exactly when they are not aligned, where
       * GST_READ_UINT16_LE would be a misaligned 16-bit load on x86 */
      for (x = 0; x < w; x++)
        dst[(gsize) y * w + x] = row[2 * x] | (guint16) row[2 * x + 1] << 8;
  }
  return dst;
}

/* Whether 16-bit rows at `plane`, `stride` bytes apart, can be read in
 * place as native uint16_t samples. */
static gboolean
rows_in_place (const guint8 * plane, gint stride)
{
  return G_BYTE_ORDER == G_LITTLE_ENDIAN && stride > 0 && stride % 2 == 0
      && (guintptr) plane % 2 == 0;
}

/* One frame through the C reference: the samples of `inbuf` (read in
 * place where their layout allows) coded with `p` and the metadata into
 * `out`; *written gets the frame's bytes. */
static GstFlowReturn
encode_frame_cpu (GstDpcmEnc * self, GstBuffer * inbuf,
    const sci_dpcm_params * p, GBytes * meta, guint8 * out, gsize cap,
    gsize * written)
{
  guint w = GST_VIDEO_INFO_WIDTH (&self->in_info);
  guint h = GST_VIDEO_INFO_HEIGHT (&self->in_info);
  const guint8 *meta_data = NULL;
  gsize meta_len = 0;
  const guint16 *samples;
  GstVideoFrame frame;
  const guint8 *plane;
  gint stride;
  gsize sample_stride;

  if (!map_input (self, &frame, inbuf, FALSE))
    return GST_FLOW_ERROR;
  plane = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
  stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
  if (self->depth == 16 && rows_in_place (plane, stride)) {
    samples = (const guint16 *) plane;
    sample_stride = stride / 2;
  } else {
    samples = pack_samples (self, &frame);
    sample_stride = w;
  }
  if (meta)
    meta_data = g_bytes_get_data (meta, &meta_len);
  *written =
      sci_dpcm_encode_meta (gst_sci_backend_pool (&GST_SCI_VIDEO_ENCODER
          (self)->backend), samples, sample_stride, w, h, self->depth, p,
      meta_data, meta_len, out, cap);
  gst_video_frame_unmap (&frame);
  if (*written == 0) {
    const gchar *why = sci_dpcm_check (w, h, self->depth, p);

    GST_ELEMENT_ERROR (self, STREAM, ENCODE,
        ("The DPCM encoder refused the frame"),
        ("sci_dpcm_encode_meta returned 0 for %ux%u depth %u, N %u, M %u, "
            "T %u with a %" G_GSIZE_FORMAT "-byte buffer: %s", w, h,
            self->depth, p->order_n, p->equations_m, p->threshold, cap,
            why ? why : "out of memory"));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

#if HAVE_CUDA
/* What a CUDA failure of encode_frame_cuda returns: the caller may fall
 * back to the CPU (it has posted nothing). */
#define FLOW_CUDA_FAILED GST_FLOW_CUSTOM_ERROR

/* One frame through the kernels, with encode_frame_cpu's arguments: CUDA
 * memory of our context read in place (device addresses, the stride in
 * samples), system memory read by the kernels' upload (rows the encoder
 * cannot read in place packed first).  sci_cuda_dpcm_encode synchronizes
 * its stream, so the input may be unmapped after it.  On
 * FLOW_CUDA_FAILED, *what and *err say what failed. */
static GstFlowReturn
encode_frame_cuda (GstDpcmEnc * self, GstBuffer * inbuf,
    const sci_dpcm_params * p, GBytes * meta, guint8 * out, gsize cap,
    gsize * written, const gchar ** what, gint * err)
{
  GstSciCuda *cuda = &GST_SCI_VIDEO_ENCODER (self)->backend.cuda;
  guint w = GST_VIDEO_INFO_WIDTH (&self->in_info);
  guint h = GST_VIDEO_INFO_HEIGHT (&self->in_info);
  guint bps = self->depth == 8 ? 1 : 2;
  gboolean one = gst_buffer_n_memory (inbuf) == 1;
  gboolean in_dev = one && gst_sci_cuda_buffer_is_device (cuda, inbuf);
  /* another device's memory: its device addresses, copied to this device
   * as a host frame is (sci_cuda_dpcm_encode's copies infer the kind) */
  gboolean peer = one && !in_dev && gst_sci_cuda_buffer_is_peer (cuda, inbuf);
  const guint8 *meta_data = NULL;
  gsize meta_len = 0;
  gconstpointer samples;
  guint sample_bytes = bps;
  gsize sample_stride;
  GstVideoFrame frame;
  const guint8 *plane;
  gint stride;
  size_t len = 0;

  *what = NULL;
  *err = 0;
  if (!map_input (self, &frame, inbuf, in_dev || peer))
    return GST_FLOW_ERROR;
  plane = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
  stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
  if (bps == 1 ? stride > 0 : rows_in_place (plane, stride)) {
    samples = plane;
    sample_stride = stride / bps;
  } else if (in_dev || peer) {
    /* the kernels count the stride in samples; device rows are never
     * repacked on the host */
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The rows of the %s frame in CUDA memory are %d bytes apart, not a "
            "whole number of %u-byte samples", GST_VIDEO_INFO_NAME
            (&self->in_info), stride, bps),
        ("plane at device address %p, %ux%u", plane, w, h));
    gst_video_frame_unmap (&frame);
    return GST_FLOW_ERROR;
  } else {
    samples = pack_samples (self, &frame);
    sample_bytes = 2;
    sample_stride = w;
  }
  if (meta)
    meta_data = g_bytes_get_data (meta, &meta_len);
  GST_LOG_OBJECT (self, "%s samples, %" G_GSIZE_FORMAT " apart, %u bytes "
      "each", in_dev ? "device" : peer ? "peer device" : "host", sample_stride,
      sample_bytes);
  if (gst_sci_cuda_push (cuda)) {
    *err = sci_cuda_dpcm_encode (self->cuda_enc, samples, sample_stride,
        sample_bytes, in_dev, w, h, self->depth, p, meta_data, meta_len, out,
        cap, &len, cuda->stream);
    if (*err > 0) {
      *what = "DPCM encoding";
      cudaGetLastError ();      /* clear what is not sticky */
    }
    gst_sci_cuda_pop ();
  } else {
    *what = "context push";
  }
  gst_video_frame_unmap (&frame);
  if (*err < 0) {
    /* the frame or the parameters, not the device: the C reference would
     * refuse them too */
    GST_ELEMENT_ERROR (self, STREAM, ENCODE,
        ("The DPCM encoder refused the frame"),
        ("sci_cuda_dpcm_encode for %ux%u depth %u, N %u, M %u, T %u with a "
            "%" G_GSIZE_FORMAT "-byte buffer: %s", w, h, self->depth,
            p->order_n, p->equations_m, p->threshold, cap,
            sci_cuda_error_string (*err)));
    return GST_FLOW_ERROR;
  }
  if (*what)
    return FLOW_CUDA_FAILED;
  *written = len;
  return GST_FLOW_OK;
}
#endif

/* The frame's metadata section, the coded frame in a buffer of the coded
 * pool (at least the bound on a frame and its metadata), on the CUDA
 * backend while it works. */
static GstFlowReturn
gst_dpcm_enc_encode (GstSciVideoEncoder * venc, GstVideoCodecFrame * frame)
{
  GstDpcmEnc *self = GST_DPCM_ENC (venc);
  GstBuffer *inbuf = frame->input_buffer, *outbuf = NULL;
#if HAVE_CUDA
  GstSciBackendState *base = &venc->backend;
#endif
  sci_dpcm_params p;
  GBytes *meta;
  gsize meta_len = 0;
  GstMapInfo out;
  GstFlowReturn ret;
  gsize written = 0;

  GST_OBJECT_LOCK (self);
  p = self->params;
  GST_OBJECT_UNLOCK (self);
  meta = frame_metadata (self, inbuf);
  if (meta)
    meta_len = g_bytes_get_size (meta);
  if (meta_len > SCI_DPCM_MAX_METADATA) {
    GST_ELEMENT_ERROR (self, STREAM, ENCODE,
        ("The frame's metadata (%" G_GSIZE_FORMAT " bytes of FITS header) "
            "exceeds the DPCM limit of %u bytes", meta_len,
            SCI_DPCM_MAX_METADATA), (NULL));
    ret = GST_FLOW_ERROR;
    goto done;
  }
  /* buffers of at least that size, made again when a frame needs more
   * (its metadata grew) or the backend changes */
  ret = gst_sci_video_encoder_acquire (venc, self->max_bytes + meta_len,
      &outbuf);
  if (ret != GST_FLOW_OK)
    goto done;
  if (!gst_buffer_map (outbuf, &out, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
        (NULL));
    ret = GST_FLOW_ERROR;
    goto done;
  }
#if HAVE_CUDA
  if (base->use_cuda && self->cuda_enc) {
    const gchar *what;
    gint err;

    ret = encode_frame_cuda (self, inbuf, &p, meta, out.data, out.size,
        &written, &what, &err);
    if (ret == FLOW_CUDA_FAILED) {
      if (!gst_sci_backend_frame_cuda_failed (base, self->sent, what, err)) {
        ret = GST_FLOW_ERROR;
      } else {
        gst_dpcm_cuda_close (base, &self->cuda_enc);
        GST_INFO_OBJECT (self, "backend: CPU (C reference) from now on");
        ret = encode_frame_cpu (self, inbuf, &p, meta, out.data, out.size,
            &written);
      }
    }
  } else
#endif
    ret = encode_frame_cpu (self, inbuf, &p, meta, out.data, out.size,
        &written);
  gst_buffer_unmap (outbuf, &out);
done:
  if (meta)
    g_bytes_unref (meta);
  if (ret != GST_FLOW_OK) {
    gst_clear_buffer (&outbuf);
    gst_sci_video_encoder_abandon (venc, frame);
    return ret;
  }
  gst_buffer_set_size (outbuf, written);
  self->sent = TRUE;
  GST_LOG_OBJECT (self, "%" G_GSIZE_FORMAT " bytes", written);
  return gst_sci_video_encoder_finish (venc, frame, outbuf);
}

static void
release_all (GstDpcmEnc * self)
{
#if HAVE_CUDA
  gst_dpcm_cuda_close (&GST_SCI_VIDEO_ENCODER (self)->backend, &self->cuda_enc);
#endif
  gst_clear_caps (&self->outcaps);
  g_clear_pointer (&self->samples, g_free);
  self->max_bytes = 0;
  self->sent = FALSE;
}

static gboolean
gst_dpcm_enc_stop (GstVideoEncoder * encoder)
{
  /* before the base class drops the CUDA context */
  release_all (GST_DPCM_ENC (encoder));
  return GST_VIDEO_ENCODER_CLASS (parent_class)->stop (encoder);
}

static void
gst_dpcm_enc_finalize (GObject * object)
{
  release_all (GST_DPCM_ENC (object));
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_dpcm_enc_class_init (GstDpcmEncClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstVideoEncoderClass *venc_class = GST_VIDEO_ENCODER_CLASS (klass);
  GstSciVideoEncoderClass *sci_class = GST_SCI_VIDEO_ENCODER_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  GstCaps *caps;

  gobject_class->set_property = gst_dpcm_enc_set_property;
  gobject_class->get_property = gst_dpcm_enc_get_property;
  gobject_class->finalize = gst_dpcm_enc_finalize;

  g_object_class_install_property (gobject_class, PROP_ORDER,
      g_param_spec_uint ("order", "Prediction order",
          "N: weights of the least-squares predictor (left neighbours of a "
          "pixel in its row). Trades bits against time: encoding and "
          "decoding time grow faster than N^2 (4 takes a quarter of 11's "
          "time, 32 fifteen times it) while the bits change by a few "
          "percent, smallest for 2..6 on real GMOS-N and TRACE frames. "
          "Good values 4..6; 11 is the paper's", 1, SCI_DPCM_MAX_ORDER,
          DEFAULT_ORDER, flags));
  g_object_class_install_property (gobject_class, PROP_EQUATIONS,
      g_param_spec_uint ("equations", "Equations per row",
          "M: positions of every row above that the predictor is fitted on. "
          "Trades the fit's locality against its averaging, not time: on "
          "real GMOS-N and TRACE frames 1..2 code 3-6% fewer bits than 7 "
          "(the paper's), 64 up to 9% more. Good values 1..7", 1,
          SCI_DPCM_MAX_EQUATIONS, DEFAULT_EQUATIONS, flags));
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_uint ("threshold", "Escape threshold",
          "T: residual values occurring fewer than T times in a frame are "
          "stored verbatim rather than range-coded; 0 = range-code all "
          "(the default: fewer bits on every real set measured; 13 is the "
          "paper's)", 0, MAX_THRESHOLD, DEFAULT_THRESHOLD, flags));
  g_object_class_install_property (gobject_class, PROP_SCAN,
      g_param_spec_enum ("scan", "Scan direction",
          "Direction the predictor runs in: along rows, along columns "
          "(better where the structure runs down the columns, e.g. a "
          "spectrum dispersed vertically), or auto: chosen for each frame "
          "(the frame says which)", GST_TYPE_DPCM_SCAN, DEFAULT_SCAN, flags));
  gst_type_mark_as_plugin_api (GST_TYPE_DPCM_SCAN, 0);

  gst_element_class_set_static_metadata (element_class,
      "Online-DPCM encoder", "Codec/Encoder/Image",
      "Lossless online-DPCM compression (least-squares prediction, "
      "range coding) of 8- and 16-bit gray frames, FITS header kept, "
      "on CUDA or the CPU", SCI_ELEMENT_AUTHOR);

  caps = gst_sci_template_caps (SINK_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string (SRC_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  venc_class->stop = GST_DEBUG_FUNCPTR (gst_dpcm_enc_stop);
  sci_class->transform_caps = GST_DEBUG_FUNCPTR (gst_dpcm_enc_transform_caps);
  sci_class->configure = GST_DEBUG_FUNCPTR (gst_dpcm_enc_configure);
  sci_class->encode = GST_DEBUG_FUNCPTR (gst_dpcm_enc_encode);

  GST_DEBUG_CATEGORY_INIT (gst_dpcm_enc_debug, "dpcmenc", 0,
      "online-DPCM encoder");
}

static void
gst_dpcm_enc_init (GstDpcmEnc * self)
{
  self->params.order_n = DEFAULT_ORDER;
  self->params.equations_m = DEFAULT_EQUATIONS;
  self->params.threshold = DEFAULT_THRESHOLD;
  self->params.scan = DEFAULT_SCAN;
}
