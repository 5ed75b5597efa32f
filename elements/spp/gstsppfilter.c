/**
 * SECTION:element-sppfilter
 * @title: sppfilter
 *
 * Spatial preprocessing (SPP) of hyperspectral cubes (Zortea & Plaza, as
 * Delgado et al. run it before endmember extraction; codec/spp/spp.h): every
 * pixel is moved toward the cube's centroid by how unlike its
 * neighbourhood (a `window-size` x `window-size` window, borders
 * included) its spectrum is, so that the pure pixels of homogeneous
 * regions stand out.  One application/x-hyperspectral cube in (BIP;
 * U8, S16LE, U16LE or F32LE values), one cube of the same lines, samples
 * and bands out, as F32LE BIP.  Other interleaves are converted by the
 * reader (envisrc's `interleave` property, whose default is bip).
 *
 * With a usable CUDA device (`backend=auto` or `cuda`) the kernels of
 * cuda/spp/spp.cu run the filter on the GPU, on the element's CUDA stream;
 * otherwise the C reference (codec/spp/spp.c) runs on the CPU.  The outputs
 * agree within a relative 1e-5 (both sum in double and round to float
 * once).  Input and output may be in system memory or in CUDA memory
 * (application/x-hyperspectral(memory:CUDAMemory), the latter only while
 * the kernels run): device cubes of the element's CUDA context are read
 * and written in place, host cubes are copied by the kernels' call.
 *
 * A float cube holding NaN or infinite values is a STREAM/FORMAT error; so
 * is a buffer whose size is not that of the caps' cube.  An even
 * `window-size` is refused: the element does not start (LIBRARY/SETTINGS
 * error).  If the GPU state cannot be made at negotiation, or CUDA fails
 * (device memory running out, say) on the first cube with the cube in
 * system memory at both ends, `backend=auto` warns and goes on with the C
 * reference; with `backend=cuda`, with CUDA memory at either end, or once
 * a cube has been output, a CUDA failure is an error.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 envisrc location=cube.hdr ! sppfilter window-size=7 ! \
 *     envisink location=spp.hdr
 * gst-launch-1.0 envisrc location=cube.bsq ! sppfilter backend=cpu ! \
 *     envisink location=spp.hdr
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstsppfilter.h"
#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_spp_filter_debug);
#define GST_CAT_DEFAULT gst_spp_filter_debug

enum
{
  PROP_0,
  PROP_WINDOW_SIZE,
};

#define DEFAULT_WINDOW SCI_SPP_WINDOW_DEFAULT

#define HS_MEDIA_TYPE "application/x-hyperspectral"
#define HS_DIMS "lines = (int) [ 1, 2147483647 ], " \
  "samples = (int) [ 1, 2147483647 ], bands = (int) [ 1, 65535 ]"
#define SINK_CAPS HS_MEDIA_TYPE ", " HS_DIMS ", " \
  "format = (string) { U8, S16LE, U16LE, F32LE }, " \
  "interleave = (string) bip"
#define SRC_CAPS HS_MEDIA_TYPE ", " HS_DIMS ", " \
  "format = (string) F32LE, interleave = (string) bip"

/* Caps fields carried over between the two sides unchanged. */
static const gchar *const dim_fields[] = { "lines", "samples", "bands" };

static const struct
{
  const gchar *name;
  sci_spp_format format;
} formats[] = {
  {"U8", SCI_SPP_U8},
  {"S16LE", SCI_SPP_S16},
  {"U16LE", SCI_SPP_U16},
  {"F32LE", SCI_SPP_F32},
};

#define gst_spp_filter_parent_class parent_class
G_DEFINE_TYPE (GstSppFilter, gst_spp_filter, GST_TYPE_SCI_FILTER);
GST_ELEMENT_REGISTER_DEFINE (sppfilter, "sppfilter", GST_RANK_NONE,
    GST_TYPE_SPP_FILTER);

static void
gst_spp_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSppFilter *self = GST_SPP_FILTER (object);

  switch (prop_id) {
    case PROP_WINDOW_SIZE:{
      guint w = g_value_get_uint (value);

      /* kept as given: an even size is refused, with an error, when the
       * element starts or the next cube comes */
      if (w % 2 == 0)
        GST_WARNING_OBJECT (self, "window-size %u is even: the filter "
            "will refuse to run (use %u or %u)", w, w - 1, w + 1);
      GST_OBJECT_LOCK (self);
      self->window = w;
      GST_OBJECT_UNLOCK (self);
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_spp_filter_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstSppFilter *self = GST_SPP_FILTER (object);

  switch (prop_id) {
    case PROP_WINDOW_SIZE:
      GST_OBJECT_LOCK (self);
      g_value_set_uint (value, self->window);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* The window size, after checking it is one the filter takes; FALSE posts
 * the error. */
static gboolean
current_window (GstSppFilter * self, guint * window)
{
  GST_OBJECT_LOCK (self);
  *window = self->window;
  GST_OBJECT_UNLOCK (self);
  if (*window >= SCI_SPP_WINDOW_MIN && *window <= SCI_SPP_WINDOW_MAX
      && *window % 2 == 1)
    return TRUE;
  GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
      ("window-size must be odd, from %u to %u: %u is not", SCI_SPP_WINDOW_MIN,
          SCI_SPP_WINDOW_MAX, *window),
      ("the window is centred on the pixel it weighs; use window-size=%u "
          "or %u", *window - 1, *window + 1));
  return FALSE;
}

/* ---- negotiation ---- */

/* Whether `s` allows the string `value` in `field` (or has no such field). */
static gboolean
field_allows (const GstStructure * s, const gchar * field, const gchar * value)
{
  const GValue *v = gst_structure_get_value (s, field);
  GValue want = G_VALUE_INIT;
  gboolean ok;

  if (!v)
    return TRUE;
  g_value_init (&want, G_TYPE_STRING);
  g_value_set_string (&want, value);
  ok = gst_value_can_intersect (v, &want);
  g_value_unset (&want);
  return ok;
}

/* The src side is F32LE BIP cubes of the sink side's sizes; the sink side
 * of a src cube is any of our formats, BIP, of its sizes.  The memory
 * follows the other side's first, then the other memory while the kernels
 * run (gst_sci_filter_with_features). */
static GstCaps *
gst_spp_filter_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstSciFilter *base = GST_SCI_FILTER (trans);
  GstCaps *result = gst_caps_new_empty ();
  guint i, k;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *in = gst_caps_get_structure (caps, i);
    GstStructure *out;
    GstCaps *one;

    if (!gst_structure_has_name (in, HS_MEDIA_TYPE)
        || !field_allows (in, "interleave", "bip"))
      continue;
    if (direction == GST_PAD_SRC && !field_allows (in, "format", "F32LE"))
      continue;
    out = gst_structure_new_empty (HS_MEDIA_TYPE);
    gst_sci_structure_copy_fields (out, in, dim_fields,
        G_N_ELEMENTS (dim_fields));
    if (direction == GST_PAD_SINK) {
      gst_structure_set (out, "format", G_TYPE_STRING, "F32LE", NULL);
    } else {
      GValue list = G_VALUE_INIT;

      gst_value_list_init (&list, G_N_ELEMENTS (formats));
      for (k = 0; k < G_N_ELEMENTS (formats); k++) {
        GValue v = G_VALUE_INIT;

        g_value_init (&v, G_TYPE_STRING);
        g_value_set_string (&v, formats[k].name);
        gst_value_list_append_and_take_value (&list, &v);
      }
      gst_structure_take_value (out, "format", &list);
    }
    gst_structure_set (out, "interleave", G_TYPE_STRING, "bip", NULL);
    one = gst_caps_new_full (out, NULL);
    result = gst_caps_merge (result, gst_sci_filter_with_features (base, one,
            gst_caps_get_features (caps, i)));
    gst_caps_unref (one);
  }
  return gst_sci_filter_finish_caps (base, direction, caps, result, filter);
}

/* The value type of a format name; FALSE when it is not one of ours. */
static gboolean
parse_format (const gchar * name, sci_spp_format * format)
{
  guint k;

  for (k = 0; name && k < G_N_ELEMENTS (formats); k++)
    if (strcmp (name, formats[k].name) == 0) {
      *format = formats[k].format;
      return TRUE;
    }
  return FALSE;
}

/* The sizes of the cube of a fixed caps and its bytes in its own format
 * (`as_float`: as F32 values); FALSE when the caps do not describe one or
 * its bytes do not fit in gsize. */
static gboolean
cube_of_caps (GstCaps * caps, gboolean as_float, guint * lines,
    guint * samples, guint * bands, sci_spp_format * format, gsize * bytes)
{
  GstStructure *s;
  gint l, sa, b;
  sci_spp_format f = SCI_SPP_F32;
  gsize n;

  if (!caps || gst_caps_get_size (caps) < 1)
    return FALSE;
  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, HS_MEDIA_TYPE)
      || !gst_structure_get_int (s, "lines", &l)
      || !gst_structure_get_int (s, "samples", &sa)
      || !gst_structure_get_int (s, "bands", &b) || l < 1 || sa < 1 || b < 1
      || !parse_format (gst_structure_get_string (s, "format"), &f))
    return FALSE;
  if (!g_size_checked_mul (&n, (gsize) l, (gsize) sa)
      || !g_size_checked_mul (&n, n, (gsize) b)
      || !g_size_checked_mul (&n, n, as_float ? 4 : sci_spp_value_bytes (f)))
    return FALSE;
  if (lines)
    *lines = l;
  if (samples)
    *samples = sa;
  if (bands)
    *bands = b;
  if (format)
    *format = f;
  *bytes = n;
  return TRUE;
}

static gboolean
gst_spp_filter_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  /* the cube of the other side's caps, whatever this buffer holds (a
   * wrong size is caught in transform) */
  return cube_of_caps (othercaps, direction == GST_PAD_SINK, NULL, NULL,
      NULL, NULL, othersize);
}

#if HAVE_CUDA
static void
close_cuda (GstSppFilter * self)
{
  gst_sci_filter_cuda_state_close (GST_SCI_FILTER (self),
      (gpointer *) & self->cuda_spp, (GDestroyNotify) sci_cuda_spp_destroy);
}

static gint
new_state (gpointer * state)
{
  return sci_cuda_spp_create ((sci_cuda_spp **) state);
}

/* Makes the device state unless it exists.  FALSE (error posted) when
 * that fails and the CPU cannot take over; else use_cuda says which
 * backend runs. */
static gboolean
open_cuda (GstSppFilter * self)
{
  return gst_sci_filter_cuda_state_open (GST_SCI_FILTER (self),
      (gpointer *) & self->cuda_spp, new_state,
      (GDestroyNotify) sci_cuda_spp_destroy, "SPP device state");
}
#endif

static gboolean
gst_spp_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstSppFilter *self = GST_SPP_FILTER (trans);
  GstSciFilter *base = GST_SCI_FILTER (trans);
  GstStructure *s = gst_caps_get_structure (incaps, 0);
  guint l, sa, b, ol, osa, ob;
  sci_spp_format f, of;
  gsize in_size, out_size, out_bytes;
  guint k;

  self->in_size = self->out_size = 0;
  if (!gst_sci_filter_set_memory (base, incaps, outcaps))
    return FALSE;
  if (!cube_of_caps (incaps, FALSE, &l, &sa, &b, &f, &in_size)
      || !cube_of_caps (incaps, TRUE, NULL, NULL, NULL, NULL, &out_size)
      || g_strcmp0 (gst_structure_get_string (s, "interleave"), "bip") != 0) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Input caps %" GST_PTR_FORMAT " do not describe a BIP cube the "
            "filter takes", incaps), (NULL));
    return FALSE;
  }
  if (!cube_of_caps (outcaps, FALSE, &ol, &osa, &ob, &of, &out_bytes)
      || of != SCI_SPP_F32 || ol != l || osa != sa || ob != b
      || g_strcmp0 (gst_structure_get_string (gst_caps_get_structure
              (outcaps, 0), "interleave"), "bip") != 0) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Output caps %" GST_PTR_FORMAT " are not the F32LE BIP cube of the "
            "input's sizes", outcaps), ("input %" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  /* the sizes only: the window is checked at start */
  if (sci_spp_check (l, sa, b, SCI_SPP_WINDOW_MIN) != 0) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("SPP cannot filter a cube of %u lines x %u samples x %u bands", l,
            sa, b), ("its values' double copies do not fit in memory"));
    return FALSE;
  }
  self->format = f;
  for (k = 0; k < G_N_ELEMENTS (formats); k++)
    if (formats[k].format == f)
      self->format_name = formats[k].name;
  self->lines = l;
  self->samples = sa;
  self->bands = b;
  self->in_size = in_size;
  self->out_size = out_size;
  g_clear_pointer (&self->in_copy, g_free);
  g_clear_pointer (&self->out_copy, g_free);
#if HAVE_CUDA
  if (base->backend.use_cuda && !open_cuda (self))
    return FALSE;
#endif
  GST_INFO_OBJECT (self, "%u lines x %u samples x %u bands of %s: "
      "%s backend, %s memory in, %s memory out", l, sa, b, self->format_name,
      base->backend.use_cuda ? "CUDA" : "CPU",
      base->backend.in_cuda_memory ? "CUDA" : "system",
      base->backend.out_cuda_memory ? "CUDA" : "system");
  return TRUE;
}

/* ---- cubes ---- */

/* The first NaN or infinite value of a float cube on the host, or -1. */
static gssize
first_nonfinite (const guint8 * data, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++) {
    gfloat v;

    memcpy (&v, data + 4 * i, 4);
    if (!isfinite (v))
      return (gssize) i;
  }
  return -1;
}

/* Posts the error of an SCI_SPP_E_ code of `fn` for the current cube;
 * `host_in` (may be NULL) is the cube on the host, to say where a bad
 * value is. */
static void
post_spp_error (GstSppFilter * self, gint code, const gchar * fn,
    guint window, const guint8 * host_in)
{
  if (code == SCI_SPP_E_VALUE) {
    gssize at = host_in ? first_nonfinite (host_in,
        self->in_size / 4) : -1;
    gchar *where = at < 0 ? g_strdup ("") :
        g_strdup_printf (" (the first at line %" G_GSIZE_FORMAT ", sample %"
        G_GSIZE_FORMAT ", band %" G_GSIZE_FORMAT ")",
        ((gsize) at / self->bands) / self->samples,
        ((gsize) at / self->bands) % self->samples, (gsize) at % self->bands);

    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The cube holds NaN or infinite values%s: SPP needs finite input",
            where), ("%s of a %u x %u x %u F32LE cube: SCI_SPP_E_VALUE", fn,
            self->lines, self->samples, self->bands));
    g_free (where);
  } else if (code == SCI_SPP_E_NOMEM) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of memory for the SPP scratch of a %u x %u x %u cube",
            self->lines, self->samples, self->bands),
        ("%s: SCI_SPP_E_NOMEM (it holds the cube's unit vectors in double)",
            fn));
  } else {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("SPP refused a %u x %u x %u %s cube with window %u", self->lines,
            self->samples, self->bands, self->format_name, window),
        ("%s returned %d", fn, code));
  }
}

/* One cube through the C reference, from and into host mappings (values
 * at addresses not aligned for their type go through scratch). */
static GstFlowReturn
filter_cpu (GstSppFilter * self, GstBuffer * inbuf, GstBuffer * outbuf,
    guint window)
{
  gsize vb = sci_spp_value_bytes (self->format);
  GstMapInfo in, out;
  gconstpointer src;
  gfloat *dst;
  gint rc;

  if (!gst_buffer_map (inbuf, &in, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map input buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (!gst_buffer_map (outbuf, &out, GST_MAP_WRITE)) {
    gst_buffer_unmap (inbuf, &in);
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  src = in.data;
  if ((guintptr) src % vb) {
    if (!self->in_copy)
      self->in_copy = g_malloc (self->in_size);
    memcpy (self->in_copy, in.data, self->in_size);
    src = self->in_copy;
  }
  dst = (gfloat *) out.data;
  if ((guintptr) dst % 4) {
    if (!self->out_copy)
      self->out_copy = g_malloc (self->out_size);
    dst = self->out_copy;
  }
  rc = sci_spp_filter (gst_sci_filter_pool (GST_SCI_FILTER (self)), src,
      self->format, self->lines, self->samples, self->bands, window, dst);
  if (rc == 0 && (guint8 *) dst != out.data)
    memcpy (out.data, dst, self->out_size);
  if (rc)
    post_spp_error (self, rc, "sci_spp_filter", window, in.data);
  gst_buffer_unmap (outbuf, &out);
  gst_buffer_unmap (inbuf, &in);
  return rc ? GST_FLOW_ERROR : GST_FLOW_OK;
}

#if HAVE_CUDA
/* What a CUDA failure of filter_cuda returns: the caller may fall back to
 * the CPU (it has posted nothing). */
#define FLOW_CUDA_FAILED GST_FLOW_CUSTOM_ERROR

/* Maps `buf` for the kernels: device addresses when *dev (CUDA memory of
 * our context, its values aligned for their type), else host ones, *dev
 * cleared. */
static gboolean
map_for_kernels (GstBuffer * buf, GstMapInfo * map, GstMapFlags flags,
    gsize align, gboolean * dev)
{
  if (*dev) {
    if (gst_buffer_map (buf, map, flags | GST_MAP_CUDA)) {
      if ((guintptr) map->data % align == 0)
        return TRUE;
      gst_buffer_unmap (buf, map);
    }
    *dev = FALSE;
  }
  return gst_buffer_map (buf, map, flags);
}

/* One cube through the kernels on the element's stream: CUDA memory of
 * our context read and written in place (device addresses), system memory
 * copied in and out by sci_cuda_spp_filter, which synchronizes its stream
 * before it returns, so the output is complete when this does.  On
 * FLOW_CUDA_FAILED, *what and *err say what failed. */
static GstFlowReturn
filter_cuda (GstSppFilter * self, GstBuffer * inbuf, GstBuffer * outbuf,
    guint window, const gchar ** what, gint * err)
{
  GstSciCuda *cuda = &GST_SCI_FILTER (self)->backend.cuda;
  gsize vb = sci_spp_value_bytes (self->format);
  gboolean in_dev = gst_buffer_n_memory (inbuf) == 1
      && gst_sci_cuda_buffer_is_device (cuda, inbuf);
  gboolean out_dev = gst_buffer_n_memory (outbuf) == 1
      && gst_sci_cuda_buffer_is_device (cuda, outbuf);
  GstMapInfo in, out;
  gint rc = 0;

  *what = NULL;
  *err = 0;
  if (!map_for_kernels (inbuf, &in, GST_MAP_READ, vb, &in_dev)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map input buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (!map_for_kernels (outbuf, &out, GST_MAP_WRITE, 4, &out_dev)) {
    gst_buffer_unmap (inbuf, &in);
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot map output buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  GST_LOG_OBJECT (self, "%s cube in, %s cube out", in_dev ? "device" : "host",
      out_dev ? "device" : "host");
  if (gst_sci_cuda_push (cuda)) {
    rc = sci_cuda_spp_filter (self->cuda_spp, in.data, in_dev, self->format,
        self->lines, self->samples, self->bands, window, (gfloat *) out.data,
        out_dev, cuda->stream);
    if (rc > 0) {
      *what = "SPP filtering";
      *err = rc;
      cudaGetLastError ();      /* clear what is not sticky */
    } else if (rc == SCI_SPP_E_NOMEM) {
      *what = "SPP filtering (host memory)";
      *err = cudaErrorMemoryAllocation;
    } else if (rc == SCI_SPP_E_ARG) {
      /* the sizes passed sci_spp_check at caps: the cube is beyond the
       * kernels' grid, which the C reference has no limit of */
      *what = "SPP filtering (the cube exceeds the kernels' grid)";
      *err = cudaErrorInvalidConfiguration;
    }
    gst_sci_cuda_pop ();
  } else {
    *what = "context push";
  }
  if (rc == SCI_SPP_E_VALUE)
    post_spp_error (self, rc, "sci_cuda_spp_filter", window,
        in_dev ? NULL : in.data);
  gst_buffer_unmap (outbuf, &out);
  gst_buffer_unmap (inbuf, &in);
  if (*what)
    return FLOW_CUDA_FAILED;
  return rc ? GST_FLOW_ERROR : GST_FLOW_OK;
}
#endif

static GstFlowReturn
gst_spp_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstSppFilter *self = GST_SPP_FILTER (trans);
#if HAVE_CUDA
  GstSciFilter *base = GST_SCI_FILTER (trans);
#endif
  gsize in_len = gst_buffer_get_size (inbuf);
  GstFlowReturn ret;
  guint window;

  if (!self->in_size)
    return GST_FLOW_NOT_NEGOTIATED;
  if (!current_window (self, &window))
    return GST_FLOW_ERROR;
  if (in_len != self->in_size) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The buffer holds %" G_GSIZE_FORMAT " bytes, the caps' cube %"
            G_GSIZE_FORMAT " (%u lines x %u samples x %u bands of %s)",
            in_len, self->in_size, self->lines, self->samples, self->bands,
            self->format_name), ("one buffer must hold one whole cube"));
    return GST_FLOW_ERROR;
  }
  if (gst_buffer_get_size (outbuf) < self->out_size) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Output buffer too small"), ("%" G_GSIZE_FORMAT " bytes, the cube "
            "needs %" G_GSIZE_FORMAT, gst_buffer_get_size (outbuf),
            self->out_size));
    return GST_FLOW_ERROR;
  }
  gst_buffer_set_size (outbuf, self->out_size);
#if HAVE_CUDA
  if (base->backend.use_cuda && self->cuda_spp) {
    const gchar *what;
    gint err;

    ret = filter_cuda (self, inbuf, outbuf, window, &what, &err);
    if (ret == FLOW_CUDA_FAILED) {
      if (!gst_sci_filter_frame_cuda_failed (base, self->sent, what, err)) {
        ret = GST_FLOW_ERROR;
      } else {
        close_cuda (self);
        GST_INFO_OBJECT (self, "backend: CPU (C reference) from now on");
        ret = filter_cpu (self, inbuf, outbuf, window);
      }
    }
  } else
#endif
    ret = filter_cpu (self, inbuf, outbuf, window);
  if (ret == GST_FLOW_OK) {
    self->sent = TRUE;
    GST_LOG_OBJECT (self, "cube filtered, window %u", window);
  }
  return ret;
}

static void
release_all (GstSppFilter * self)
{
#if HAVE_CUDA
  close_cuda (self);
#endif
  g_clear_pointer (&self->in_copy, g_free);
  g_clear_pointer (&self->out_copy, g_free);
  self->in_size = self->out_size = 0;
  self->sent = FALSE;
}

static gboolean
gst_spp_filter_start (GstBaseTransform * trans)
{
  GstSppFilter *self = GST_SPP_FILTER (trans);
  guint window;

  if (!current_window (self, &window))
    return FALSE;
  self->sent = FALSE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans);
}

static gboolean
gst_spp_filter_stop (GstBaseTransform * trans)
{
  /* before the base class drops the CUDA context */
  release_all (GST_SPP_FILTER (trans));
  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
}

static void
gst_spp_filter_finalize (GObject * object)
{
  release_all (GST_SPP_FILTER (object));
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_spp_filter_class_init (GstSppFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCaps *caps;

  gobject_class->set_property = gst_spp_filter_set_property;
  gobject_class->get_property = gst_spp_filter_get_property;
  gobject_class->finalize = gst_spp_filter_finalize;

  g_object_class_install_property (gobject_class, PROP_WINDOW_SIZE,
      g_param_spec_uint ("window-size", "Window size",
          "Side of the square window of neighbours a pixel is compared "
          "with, in pixels: odd, 3..15 (an even size is refused: the "
          "element then fails to start with an error); cubes smaller than "
          "the window use the neighbours they have",
          SCI_SPP_WINDOW_MIN, SCI_SPP_WINDOW_MAX, DEFAULT_WINDOW,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class,
      "Hyperspectral spatial preprocessing (SPP)",
      "Filter/Converter/Hyperspectral",
      "Zortea & Plaza spatial preprocessing of hyperspectral cubes (BIP "
      "U8, S16LE, U16LE or F32LE in, F32LE out): each pixel moved toward "
      "the centroid by its spectral-angle dissimilarity to its "
      "neighbours, on CUDA or the CPU", SCI_ELEMENT_AUTHOR);

  caps = gst_sci_template_caps (SINK_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  caps = gst_sci_template_caps (SRC_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_spp_filter_transform_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_spp_filter_transform_size);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_spp_filter_set_caps);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_spp_filter_transform);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_spp_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_spp_filter_stop);

  /* cubes, not frames: device output buffers come from the blob pool */
  GST_SCI_FILTER_CLASS (klass)->src_is_video = FALSE;

  GST_DEBUG_CATEGORY_INIT (gst_spp_filter_debug, "sppfilter", 0,
      "hyperspectral spatial preprocessing (SPP)");
}

static void
gst_spp_filter_init (GstSppFilter * self)
{
  self->window = DEFAULT_WINDOW;
}
