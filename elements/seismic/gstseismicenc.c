/**
 * SECTION:element-seismicenc
 * @title: seismicenc
 *
 * Lossy compression of seismic gathers (Castelar Mora, UIS 2015;
 * docs/seismic-format.md): each application/x-seismic buffer (a gather of
 * `traces` traces of `samples` float32 values) becomes one frame of
 * application/x-seismic-compressed in one buffer.  The gather goes through
 * a 2-D 5/3 float wavelet transform of `levels` levels, its coefficients
 * are quantized uniformly to `bits` bits between their minimum and
 * maximum, and the indices are Huffman-coded into 64-bit words cut into
 * independent slices (which the decoder, on the GPU, decodes in
 * parallel).
 *
 * With the CUDA backend (`backend=cuda`, or `auto` while a CUDA device is
 * usable) the wavelet transform, the extremes and the quantization run on
 * the GPU (cuda/seismic/seismic.h), on gathers in CUDA memory as they come
 * (application/x-seismic(memory:CUDAMemory), from seismicdec, say) or
 * uploaded from system memory; the Huffman code and the slices are made
 * on the host, since laying out the code stream is sequential.  With the
 * CPU backend everything runs in the C reference (codec/seismic/seismic.c,
 * with OpenMP where it was built with it), and gathers
 * in CUDA memory are copied to the host first.  Both give the same bytes.
 * A CUDA failure before the first frame falls back to the CPU (`auto`)
 * or is an error (`cuda`).  The output is always in system memory.
 *
 * The #GstSciSegyMeta of a gather (segysrc's SEG-Y file and trace headers)
 * goes into the frame's metadata section, so that seismicdec restores it,
 * even from a file.
 *
 * A gather holding NaN or infinite values is a STREAM/FORMAT error naming
 * the trace and the sample; so is a buffer whose size is not that of the
 * caps' gather.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 segysrc location=f3.sgy ! seismicenc bits=12 levels=1 ! \
 *     filesink location=f3.seis
 * gst-launch-1.0 filesrc location=f3.seis ! seismicdec ! \
 *     seismicenc bits=8 levels=3 ! filesink location=f3-8.seis
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstseismicenc.h"
#include "gst/gstscisegymeta.h"
#if HAVE_CUDA
#include "cuda/seismic/seismic.h"
#endif

GST_DEBUG_CATEGORY_STATIC (gst_seismic_enc_debug);
#define GST_CAT_DEFAULT gst_seismic_enc_debug

enum
{
  PROP_0,
  PROP_BITS,
  PROP_LEVELS,
  PROP_FRAME_VERSION,
};

#define DEFAULT_BITS 12
#define DEFAULT_LEVELS 1
#define DEFAULT_FRAME_VERSION SCI_SEIS_VERSION

#define SEISMIC_MEDIA_TYPE "application/x-seismic"
#define CODED_MEDIA_TYPE "application/x-seismic-compressed"
#define GATHER_FIELDS "traces = (int) [ 1, 16777216 ], " \
  "samples = (int) [ 1, 65535 ], sample-interval = (int) [ 1, MAX ]"
#define SINK_CAPS SEISMIC_MEDIA_TYPE ", " GATHER_FIELDS
#define SRC_CAPS CODED_MEDIA_TYPE ", " GATHER_FIELDS ", " \
  "bits = (int) [ 2, 16 ], levels = (int) [ 0, 8 ]"

/* Caps fields carried over between the two sides unchanged. */
static const gchar *const gather_fields[] = {
  "traces", "samples", "sample-interval",
};

#define gst_seismic_enc_parent_class parent_class
G_DEFINE_TYPE (GstSeismicEnc, gst_seismic_enc, GST_TYPE_SCI_FILTER);
GST_ELEMENT_REGISTER_DEFINE (seismicenc, "seismicenc", GST_RANK_NONE,
    GST_TYPE_SEISMIC_ENC);

static void
gst_seismic_enc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSeismicEnc *self = GST_SEISMIC_ENC (object);
  gboolean changed = FALSE;
  guint v;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BITS:
      v = g_value_get_uint (value);
      changed = v != self->bits;
      self->bits = v;
      break;
    case PROP_LEVELS:
      v = g_value_get_uint (value);
      changed = v != self->levels;
      self->levels = v;
      break;
    case PROP_FRAME_VERSION:
      /* taken gather by gather (prepare_output_buffer) */
      self->frame_version = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  /* the src caps carry bits and levels: a change renegotiates before
   * the next gather */
  if (changed)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_seismic_enc_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstSeismicEnc *self = GST_SEISMIC_ENC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BITS:
      g_value_set_uint (value, self->bits);
      break;
    case PROP_LEVELS:
      g_value_set_uint (value, self->levels);
      break;
    case PROP_FRAME_VERSION:
      g_value_set_uint (value, self->frame_version);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ---- negotiation ---- */

/* Gathers become frames of the same geometry coded with the properties'
 * bits and levels, in system memory (the frame is written on the host);
 * frames come from gathers of their geometry, in the memory of the other
 * side first, then in the other one while CUDA is usable. */
static GstCaps *
gst_seismic_enc_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstSciFilter *base = GST_SCI_FILTER (trans);
  GstSeismicEnc *self = GST_SEISMIC_ENC (trans);
  GstCaps *result = gst_caps_new_empty ();
  guint i, bits, levels;

  GST_OBJECT_LOCK (self);
  bits = self->bits;
  levels = self->levels;
  GST_OBJECT_UNLOCK (self);

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *in = gst_caps_get_structure (caps, i);
    GstStructure *out;

    if (direction == GST_PAD_SINK) {
      if (!gst_structure_has_name (in, SEISMIC_MEDIA_TYPE))
        continue;
      out = gst_structure_new_empty (CODED_MEDIA_TYPE);
      gst_sci_structure_copy_fields (out, in, gather_fields,
          G_N_ELEMENTS (gather_fields));
      gst_structure_set (out, "bits", G_TYPE_INT, (gint) bits, "levels",
          G_TYPE_INT, (gint) levels, NULL);
      result = gst_caps_merge_structure (result, out);
    } else {
      GstCaps *one;

      if (!gst_structure_has_name (in, CODED_MEDIA_TYPE))
        continue;
      out = gst_structure_new_empty (SEISMIC_MEDIA_TYPE);
      gst_sci_structure_copy_fields (out, in, gather_fields,
          G_N_ELEMENTS (gather_fields));
      one = gst_caps_new_full (out, NULL);
      result = gst_caps_merge (result, gst_sci_filter_with_features (base,
              one, gst_caps_get_features (caps, i)));
      gst_caps_unref (one);
    }
  }
  return gst_sci_filter_finish_caps (base, direction, caps, result, filter);
}

static gboolean
gst_seismic_enc_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstSeismicEnc *self = GST_SEISMIC_ENC (trans);

  /* only a bound is known: prepare_output_buffer allocates it and
   * transform trims the buffer to the frame */
  if (direction != GST_PAD_SINK || !self->in_size)
    return FALSE;
  *othersize = sci_seis_frame_bound (&self->params, 0);
  return TRUE;
}

static gboolean
gst_seismic_enc_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstSeismicEnc *self = GST_SEISMIC_ENC (trans);
  GstSciFilter *base = GST_SCI_FILTER (trans);
  GstStructure *in = gst_caps_get_structure (incaps, 0);
  GstStructure *out = gst_caps_get_structure (outcaps, 0);
  gint traces, samples, interval = 0, bits, levels;
  sci_seis_params p;
  const gchar *why;

  self->in_size = 0;
  if (!gst_sci_filter_set_memory (base, incaps, outcaps))
    return FALSE;
  if (!gst_structure_get_int (in, "traces", &traces)
      || !gst_structure_get_int (in, "samples", &samples)
      || traces < 1 || samples < 1) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Input caps %" GST_PTR_FORMAT " do not say the gather's traces and "
            "samples", incaps), (NULL));
    return FALSE;
  }
  /* carried in the frame, not used by the codec: 0 when unknown */
  if (!gst_structure_get_int (in, "sample-interval", &interval)
      || interval < 0)
    interval = 0;
  if (!gst_structure_get_int (out, "bits", &bits)
      || !gst_structure_get_int (out, "levels", &levels)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Output caps %" GST_PTR_FORMAT " do not fix bits and levels",
            outcaps), (NULL));
    return FALSE;
  }
  p.traces = traces;
  p.samples = samples;
  p.sample_interval_us = interval;
  p.bits = bits;
  p.levels = levels;
  p.version = 0;                /* frame-version's, gather by gather */
  why = sci_seis_params_check (&p);
  if (why) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot code gathers of %d traces x %d samples with %d bits and %d "
            "levels: %s", traces, samples, bits, levels, why), (NULL));
    return FALSE;
  }
  self->params = p;
  self->in_size = sizeof (gfloat) * traces * samples;
  g_clear_pointer (&self->copy, g_free);
  gst_caps_replace (&self->outcaps, outcaps);
  GST_INFO_OBJECT (self, "%d traces x %d samples (%d us), %d bits, %d "
      "levels, up to %" G_GSIZE_FORMAT " bytes a frame without metadata, "
      "%s memory in; coded on %s", traces, samples, interval, bits,
      levels, sci_seis_frame_bound (&p, 0),
      base->backend.in_cuda_memory ? "CUDA" : "system",
      base->backend.use_cuda ? "CUDA and the host" : "the CPU");
  return TRUE;
}

static gboolean
gst_seismic_enc_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  return gst_sci_coded_pool_decide_allocation (&GST_SEISMIC_ENC (trans)->out,
      trans, query, GST_BASE_TRANSFORM_CLASS (parent_class));
}

/* ---- gathers ---- */

/* The metadata section of the frame of `inbuf`: the serialised
 * GstSciSegyMeta, or NULL when the gather has none. */
static GBytes *
frame_metadata (GstBuffer * inbuf)
{
  GstSciSegyMeta *meta = gst_buffer_get_sci_segy_meta (inbuf);
  GBytes *bytes;

  if (!meta)
    return NULL;
  bytes = gst_sci_segy_meta_serialize (meta);
  if (bytes && g_bytes_get_size (bytes) == 0)
    g_clear_pointer (&bytes, g_bytes_unref);
  return bytes;
}

static GstFlowReturn
gst_seismic_enc_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstSeismicEnc *self = GST_SEISMIC_ENC (trans);
  gsize meta_len = 0;

  if (!self->outcaps || !self->in_size)
    return GST_FLOW_NOT_NEGOTIATED;
  GST_OBJECT_LOCK (self);
  self->params.version = self->frame_version;
  GST_OBJECT_UNLOCK (self);
  g_clear_pointer (&self->meta, g_bytes_unref);
  self->meta = frame_metadata (inbuf);
  if (self->meta)
    meta_len = g_bytes_get_size (self->meta);
  if (meta_len > SCI_SEIS_MAX_META) {
    GST_ELEMENT_ERROR (self, STREAM, ENCODE,
        ("The gather's SEG-Y headers (%" G_GSIZE_FORMAT " bytes serialised) "
            "exceed the frame's metadata limit of %u bytes", meta_len,
            SCI_SEIS_MAX_META), (NULL));
    return GST_FLOW_ERROR;
  }
  /* a pool of buffers of at least the bound, made again when a frame
   * needs more (a larger gather, or more metadata) */
  if (!gst_sci_coded_pool_ensure (&self->out, GST_ELEMENT (self),
          self->outcaps, sci_seis_frame_bound (&self->params, meta_len),
          self->out.allocator))
    return GST_FLOW_ERROR;
  return gst_sci_coded_pool_acquire (&self->out, trans, inbuf, outbuf);
}

#if HAVE_CUDA
/* Copies a gather in CUDA memory of the element's context into
 * self->copy with the element's stream; FALSE posts an error. */
static gboolean
download_gather (GstSeismicEnc * self, GstBuffer * inbuf)
{
  GstSciCuda *cuda = &GST_SCI_FILTER (self)->backend.cuda;
  GstMapInfo map;
  gint err = 0;

  if (!gst_buffer_map (inbuf, &map, GST_MAP_READ | GST_MAP_CUDA)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Cannot map the gather's CUDA memory"), (NULL));
    return FALSE;
  }
  if (!self->copy)
    self->copy = g_malloc (self->in_size);
  if (gst_sci_cuda_push (cuda)) {
    err = gst_sci_cuda_copy (cuda, self->copy, map.data, self->in_size);
    if (!err)
      err = gst_sci_cuda_sync (cuda);
    gst_sci_cuda_pop ();
  } else {
    err = -1;
  }
  gst_buffer_unmap (inbuf, &map);
  if (err) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Cannot copy the gather from CUDA memory to the host"),
        ("%s", err < 0 ? "context push failed" :
            gst_sci_cuda_error_name (err)));
    return FALSE;
  }
  return TRUE;
}
#endif

/* Posts the error of sci_seis_encode's `code` for a gather whose first
 * bad value, `v`, is at `bad`. */
static void
post_encode_error (GstSeismicEnc * self, gint code, gfloat v, gsize bad,
    gsize cap)
{
  const sci_seis_params *p = &self->params;
  gsize n = (gsize) p->traces * p->samples;

  if (code == SCI_SEIS_E_VALUE && bad < n) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The gather holds %s at trace %" G_GSIZE_FORMAT ", sample %"
            G_GSIZE_FORMAT ": seismicenc needs finite samples",
            isnan (v) ? "NaN" : v > 0 ? "+infinity" : "-infinity",
            bad / p->samples, bad % p->samples),
        ("value %" G_GSIZE_FORMAT " of a gather of %u traces x %u samples "
            "(0-based trace and sample); sci_seis_encode: %s", bad,
            p->traces, p->samples, sci_seis_error_string (code)));
  } else if (code == SCI_SEIS_E_VALUE) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The gather's values are so large that its wavelet transform "
            "overflows float"),
        ("a gather of %u traces x %u samples, %u levels; sci_seis_encode: %s",
            p->traces, p->samples, p->levels, sci_seis_error_string (code)));
  } else if (code == SCI_SEIS_E_NOMEM) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of memory coding a gather of %u traces x %u samples",
            p->traces, p->samples), ("sci_seis_encode: %s",
            sci_seis_error_string (code)));
  } else {
    GST_ELEMENT_ERROR (self, STREAM, ENCODE,
        ("The seismic encoder refused the gather: %s",
            sci_seis_error_string (code)),
        ("sci_seis_encode of %u traces x %u samples, %u bits, %u levels "
            "into %" G_GSIZE_FORMAT " bytes: %d", p->traces, p->samples,
            p->bits, p->levels, cap, code));
  }
}

#if HAVE_CUDA
/* What a CUDA failure of encode_cuda returns: the caller may fall back to
 * the CPU (it has posted nothing). */
#define FLOW_CUDA_FAILED GST_FLOW_CUSTOM_ERROR

static gint
new_state (gpointer * state)
{
  return sci_cuda_seis_create ((sci_cuda_seis **) state);
}

/* Codes `inbuf` (CUDA memory of the element's context, or system memory,
 * uploaded) into out with the GPU encoder.  GST_FLOW_OK with *written,
 * GST_FLOW_ERROR (posted: the gather's own fault), or FLOW_CUDA_FAILED
 * with *what and *err. */
static GstFlowReturn
encode_cuda (GstSeismicEnc * self, GstBuffer * inbuf, const guint8 * meta,
    gsize meta_len, GstMapInfo * out, gsize * written, const gchar ** what,
    gint * err)
{
  GstSciCuda *cuda = &GST_SCI_FILTER (self)->backend.cuda;
  const gboolean device = gst_buffer_n_memory (inbuf) == 1
      && gst_sci_cuda_buffer_is_device (cuda, inbuf);
  const gsize n = (gsize) self->params.traces * self->params.samples;
  const gfloat *dev = NULL;
  gsize cap = out->size, len = 0, bad = 0;
  gint status = 0, rc;
  gfloat bad_value = 0;
  GstMapInfo map;

  if (!gst_buffer_map (inbuf, &map, GST_MAP_READ | (device ? GST_MAP_CUDA : 0))) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map input buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (!gst_sci_cuda_push (cuda)) {
    gst_buffer_unmap (inbuf, &map);
    *what = "pushing the CUDA context";
    *err = -1;
    return FLOW_CUDA_FAILED;
  }
  *err = 0;
  if (device) {
    dev = (const gfloat *) map.data;
  } else {
    dev = gst_sci_cuda_staging (cuda, 0, self->in_size, err);
    if (dev)
      *err = gst_sci_cuda_copy (cuda, (gpointer) dev, map.data, self->in_size);
  }
  if (*err) {
    gst_sci_cuda_pop ();
    gst_buffer_unmap (inbuf, &map);
    *what = "uploading the gather";
    return FLOW_CUDA_FAILED;
  }
  rc = sci_cuda_seis_encode (self->cuda_enc, 1, &self->params, &dev, &meta,
      &meta_len, &out->data, &cap, &len, &status, &bad, cuda->stream);
  /* the first bad value, for the message */
  if (rc == SCI_SEIS_E_VALUE && bad < n) {
    if (device) {
      if (gst_sci_cuda_copy (cuda, &bad_value, dev + bad, sizeof bad_value)
          || gst_sci_cuda_sync (cuda))
        bad_value = NAN;
    } else {
      memcpy (&bad_value, map.data + bad * sizeof (gfloat), sizeof bad_value);
    }
  }
  gst_sci_cuda_pop ();
  gst_buffer_unmap (inbuf, &map);
  if (rc > 0) {
    *what = "the GPU encoder";
    *err = rc;
    return FLOW_CUDA_FAILED;
  }
  if (rc < 0) {
    post_encode_error (self, rc, bad_value, bad, cap);
    return GST_FLOW_ERROR;
  }
  *written = len;
  return GST_FLOW_OK;
}
#endif

static GstFlowReturn
gst_seismic_enc_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstSeismicEnc *self = GST_SEISMIC_ENC (trans);
  gsize in_len = gst_buffer_get_size (inbuf), written = 0, bad = 0;
  gsize meta_len = 0;
  const guint8 *meta = NULL;
  const gfloat *gather;
  GstMapInfo in, out;
  gboolean mapped = FALSE;
  gint rc;

  if (!self->in_size)
    return GST_FLOW_NOT_NEGOTIATED;
  if (in_len != self->in_size) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The buffer holds %" G_GSIZE_FORMAT " bytes, the caps' gather %"
            G_GSIZE_FORMAT " (%u traces x %u samples of float32)", in_len,
            self->in_size, self->params.traces, self->params.samples),
        ("one buffer must hold one whole gather"));
    return GST_FLOW_ERROR;
  }
  if (self->meta)
    meta = g_bytes_get_data (self->meta, &meta_len);
#if HAVE_CUDA
  if (GST_SCI_FILTER (self)->backend.use_cuda
      && !gst_sci_filter_cuda_state_open (GST_SCI_FILTER (self),
          &self->cuda_enc, new_state, (GDestroyNotify) sci_cuda_seis_destroy,
          "seismic encoder state"))
    return GST_FLOW_ERROR;
  /* (the state's failure may have moved the filter to the CPU) */
  if (GST_SCI_FILTER (self)->backend.use_cuda) {
    GstSciFilter *base = GST_SCI_FILTER (self);
    const gchar *what = NULL;
    GstFlowReturn ret;
    gint err = 0;

    if (!gst_buffer_map (outbuf, &out, GST_MAP_WRITE)) {
      GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
          (NULL));
      return GST_FLOW_ERROR;
    }
    ret = encode_cuda (self, inbuf, meta, meta_len, &out, &written, &what,
        &err);
    gst_buffer_unmap (outbuf, &out);
    if (ret == FLOW_CUDA_FAILED) {
      if (!gst_sci_filter_frame_cuda_failed (base, self->sent, what, err))
        return GST_FLOW_ERROR;
      gst_sci_filter_cuda_state_close (base, &self->cuda_enc,
          (GDestroyNotify) sci_cuda_seis_destroy);
      GST_INFO_OBJECT (self, "backend: CPU (C reference) from now on");
    } else {
      g_clear_pointer (&self->meta, g_bytes_unref);
      if (ret != GST_FLOW_OK)
        return ret;
      gst_buffer_set_size (outbuf, written);
      self->sent = TRUE;
      GST_LOG_OBJECT (self, "%" G_GSIZE_FORMAT " bytes (%" G_GSIZE_FORMAT
          " of metadata), GPU", written, meta_len);
      return GST_FLOW_OK;
    }
  }
#endif
#if HAVE_CUDA
  if (gst_buffer_n_memory (inbuf) == 1
      && gst_sci_cuda_buffer_is_device (&GST_SCI_FILTER (self)->backend.cuda,
          inbuf)) {
    if (!download_gather (self, inbuf))
      return GST_FLOW_ERROR;
    gather = self->copy;
  } else
#endif
  {
    if (!gst_buffer_map (inbuf, &in, GST_MAP_READ)) {
      GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map input buffer"),
          (NULL));
      return GST_FLOW_ERROR;
    }
    mapped = TRUE;
    if ((guintptr) in.data % sizeof (gfloat)) {
      if (!self->copy)
        self->copy = g_malloc (self->in_size);
      memcpy (self->copy, in.data, self->in_size);
      gather = self->copy;
    } else {
      gather = (const gfloat *) in.data;
    }
  }
  if (!gst_buffer_map (outbuf, &out, GST_MAP_WRITE)) {
    if (mapped)
      gst_buffer_unmap (inbuf, &in);
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  rc = sci_seis_encode (gst_sci_filter_pool (GST_SCI_FILTER (self)),
      &self->params, gather, meta, meta_len, out.data, out.size, &written,
      &bad);
  if (rc)
    post_encode_error (self, rc, bad < in_len / sizeof (gfloat) ?
        gather[bad] : 0, bad, out.size);
  gst_buffer_unmap (outbuf, &out);
  if (mapped)
    gst_buffer_unmap (inbuf, &in);
  g_clear_pointer (&self->meta, g_bytes_unref);
  if (rc)
    return GST_FLOW_ERROR;
  gst_buffer_set_size (outbuf, written);
  self->sent = TRUE;
  GST_LOG_OBJECT (self, "%" G_GSIZE_FORMAT " bytes (%" G_GSIZE_FORMAT
      " of metadata)", written, meta_len);
  return GST_FLOW_OK;
}

static void
release_all (GstSeismicEnc * self)
{
  gst_sci_coded_pool_clear (&self->out);
  gst_clear_caps (&self->outcaps);
  g_clear_pointer (&self->copy, g_free);
  g_clear_pointer (&self->meta, g_bytes_unref);
  self->in_size = 0;
  self->sent = FALSE;
#if HAVE_CUDA
  gst_sci_filter_cuda_state_close (GST_SCI_FILTER (self), &self->cuda_enc,
      (GDestroyNotify) sci_cuda_seis_destroy);
#endif
}

static gboolean
gst_seismic_enc_stop (GstBaseTransform * trans)
{
  release_all (GST_SEISMIC_ENC (trans));
  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
}

static void
gst_seismic_enc_finalize (GObject * object)
{
  release_all (GST_SEISMIC_ENC (object));
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_seismic_enc_class_init (GstSeismicEncClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  GstCaps *caps;

  gobject_class->set_property = gst_seismic_enc_set_property;
  gobject_class->get_property = gst_seismic_enc_get_property;
  gobject_class->finalize = gst_seismic_enc_finalize;

  g_object_class_install_property (gobject_class, PROP_BITS,
      g_param_spec_uint ("bits", "Quantization bits",
          "Bits of the uniform quantization of the wavelet coefficients "
          "between their minimum and maximum (2^bits levels): more bits, "
          "less error, larger frames", SCI_SEIS_MIN_BITS, SCI_SEIS_MAX_BITS,
          DEFAULT_BITS, flags));
  g_object_class_install_property (gobject_class, PROP_LEVELS,
      g_param_spec_uint ("levels", "DWT levels",
          "Levels of the 2-D 5/3 wavelet transform of the gather (0: the "
          "samples are quantized directly)", 0, SCI_SEIS_MAX_LEVELS,
          DEFAULT_LEVELS, flags));
  g_object_class_install_property (gobject_class, PROP_FRAME_VERSION,
      g_param_spec_uint ("frame-version", "Frame version",
          "Version of the frames written (docs/seismic-format.md): 7, the "
          "newest, the smallest; 6, 12-29 % larger, decoded 4-40 % "
          "faster by a GPU at 12 and 16 bits; 3 to 5 for decoders "
          "that read no newer (5 and older: no runs of zero in the code, "
          "3: a zstd code table)", 3, SCI_SEIS_VERSION, DEFAULT_FRAME_VERSION,
          flags));

  gst_element_class_set_static_metadata (element_class,
      "Seismic gather encoder", "Codec/Encoder/Seismic",
      "Lossy compression of seismic gathers (2-D 5/3 wavelet transform, "
      "uniform quantization, Huffman code in independent slices), SEG-Y "
      "headers kept; transform and quantization on CUDA or the CPU",
      SCI_ELEMENT_AUTHOR);

  caps = gst_sci_template_caps (SINK_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string (SRC_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_seismic_enc_transform_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_seismic_enc_transform_size);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_seismic_enc_set_caps);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_seismic_enc_decide_allocation);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_seismic_enc_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_seismic_enc_transform);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_seismic_enc_stop);

  GST_SCI_FILTER_CLASS (klass)->src_is_video = FALSE;
  /* the frame is written on the host */
  GST_SCI_FILTER_CLASS (klass)->src_system_memory = TRUE;

  GST_DEBUG_CATEGORY_INIT (gst_seismic_enc_debug, "seismicenc", 0,
      "seismic gather encoder");
}

static void
gst_seismic_enc_init (GstSeismicEnc * self)
{
  self->bits = DEFAULT_BITS;
  self->levels = DEFAULT_LEVELS;
  self->frame_version = DEFAULT_FRAME_VERSION;
  gst_sci_coded_pool_init (&self->out, FALSE);
}
