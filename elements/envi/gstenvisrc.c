/**
 * SECTION:element-envisrc
 * @title: envisrc
 *
 * Reads an ENVI hyperspectral cube (a text header `name.hdr` and a raw
 * data file of the same base name) with GDAL and pushes it whole, as one
 * buffer of `application/x-hyperspectral`, then EOS.  The values come out
 * in the host's byte order (big-endian files, `byte order = 1`, are
 * swapped) and in the order the `interleave` property asks for, whatever
 * order the file stores them in.
 *
 * `location` names either the header or the data file: the other one is
 * found next to it (data file: the header's base name with no extension or
 * with .bip, .bil, .bsq, .img, .dat or .raw; header: the data file's name
 * with its extension replaced by, or followed by, .hdr).
 *
 * ENVI data types 1 (uint8, format U8), 2 (int16, S16LE), 12 (uint16,
 * U16LE) and 4 (float32, F32LE) are read; any other type, an empty cube, a
 * data file shorter than the header says or a cube of more than 2^31
 * bytes is an error that says why.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 envisrc location=cube.hdr ! envisink location=copy.hdr
 * gst-launch-1.0 envisrc location=cube.bil interleave=bsq ! \
 *     envisink location=bands.hdr
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstenvisrc.h"

GST_DEBUG_CATEGORY_STATIC (gst_envi_src_debug);
#define GST_CAT_DEFAULT gst_envi_src_debug

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_INTERLEAVE,
  PROP_BLOCKSIZE,
};

#define DEFAULT_INTERLEAVE GST_ENVI_INTERLEAVE_BIP

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_ENVI_CAPS));

#define gst_envi_src_parent_class parent_class
G_DEFINE_TYPE (GstEnviSrc, gst_envi_src, GST_TYPE_BASE_SRC);
GST_ELEMENT_REGISTER_DEFINE (envisrc, "envisrc", GST_RANK_NONE,
    GST_TYPE_ENVI_SRC);

/* ---- start / stop ---- */

static void
clear_cube (GstEnviSrc * self)
{
  gst_envi_cube_clear (&self->cube);
  GST_OBJECT_LOCK (self);
  gst_clear_caps (&self->caps);
  GST_OBJECT_UNLOCK (self);
  self->done = FALSE;
}

static gboolean
gst_envi_src_start (GstBaseSrc * src)
{
  GstEnviSrc *self = GST_ENVI_SRC (src);
  GError *err = NULL;
  GstEnviInterleave want;
  gchar *location;
  GstCaps *caps;

  GST_OBJECT_LOCK (self);
  location = g_strdup (self->location);
  want = self->interleave;
  GST_OBJECT_UNLOCK (self);
  clear_cube (self);

  if (!location || !*location) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No file name specified for reading."), ("location is not set"));
    g_free (location);
    return FALSE;
  }
  if (!gst_envi_cube_open (&self->cube, location, NULL, want, &err)) {
    gst_envi_cube_post_error (GST_ELEMENT (self), location, err);
    g_error_free (err);
    g_free (location);
    return FALSE;
  }
  caps = gst_envi_cube_caps (&self->cube);
  GST_INFO_OBJECT (self, "%s: %" GST_PTR_FORMAT, location, caps);
  GST_OBJECT_LOCK (self);
  self->caps = caps;
  GST_OBJECT_UNLOCK (self);
  g_free (location);
  return TRUE;
}

static gboolean
gst_envi_src_stop (GstBaseSrc * src)
{
  clear_cube (GST_ENVI_SRC (src));
  return TRUE;
}

static GstCaps *
gst_envi_src_get_caps (GstBaseSrc * src, GstCaps * filter)
{
  GstEnviSrc *self = GST_ENVI_SRC (src);
  GstCaps *caps;

  GST_OBJECT_LOCK (self);
  caps = self->caps ? gst_caps_ref (self->caps) :
      gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (src));
  GST_OBJECT_UNLOCK (self);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, caps,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (caps);
    caps = tmp;
  }
  return caps;
}

static gboolean
gst_envi_src_is_seekable (GstBaseSrc * src)
{
  return FALSE;
}

/* The whole cube, whatever `size` GstBaseSrc asks for: see the blocksize
 * property. */
static GstFlowReturn
gst_envi_src_create (GstBaseSrc * src, guint64 offset, guint size,
    GstBuffer ** out)
{
  GstEnviSrc *self = GST_ENVI_SRC (src);
  GError *err = NULL;
  GstBuffer *buf;

  if (self->done)
    return GST_FLOW_EOS;
  buf = gst_envi_cube_read (&self->cube, &err);
  if (!buf) {
    gst_envi_cube_post_error (GST_ELEMENT (self), self->cube.hdr_path, err);
    g_error_free (err);
    return GST_FLOW_ERROR;
  }
  self->done = TRUE;
  GST_DEBUG_OBJECT (self, "read %" G_GSIZE_FORMAT " bytes", self->cube.size);
  *out = buf;
  return GST_FLOW_OK;
}

/* ---- properties ---- */

static void
gst_envi_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstEnviSrc *self = GST_ENVI_SRC (object);
  GstState state;

  GST_OBJECT_LOCK (self);
  state = GST_STATE (self);
  if (state != GST_STATE_NULL && state != GST_STATE_READY) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "%s can only be set in the NULL or READY "
        "state", pspec->name);
    return;
  }
  switch (prop_id) {
    case PROP_LOCATION:
      g_free (self->location);
      self->location = g_value_dup_string (value);
      break;
    case PROP_INTERLEAVE:
      self->interleave = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_envi_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstEnviSrc *self = GST_ENVI_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_INTERLEAVE:
      g_value_set_enum (value, self->interleave);
      break;
    case PROP_BLOCKSIZE:
      g_value_set_uint (value, self->caps ? self->cube.size : 0);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_envi_src_finalize (GObject * object)
{
  GstEnviSrc *self = GST_ENVI_SRC (object);

  clear_cube (self);
  g_free (self->location);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_envi_src_class_init (GstEnviSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *basesrc_class = GST_BASE_SRC_CLASS (klass);

  gobject_class->set_property = gst_envi_src_set_property;
  gobject_class->get_property = gst_envi_src_get_property;
  gobject_class->finalize = gst_envi_src_finalize;
  basesrc_class->start = GST_DEBUG_FUNCPTR (gst_envi_src_start);
  basesrc_class->stop = GST_DEBUG_FUNCPTR (gst_envi_src_stop);
  basesrc_class->get_caps = GST_DEBUG_FUNCPTR (gst_envi_src_get_caps);
  basesrc_class->is_seekable = GST_DEBUG_FUNCPTR (gst_envi_src_is_seekable);
  basesrc_class->create = GST_DEBUG_FUNCPTR (gst_envi_src_create);

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "Path of the ENVI header (.hdr) or of its data file (the other one "
          "is found next to it)", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_INTERLEAVE,
      g_param_spec_enum ("interleave", "Interleave",
          "Order of the values in the output buffer: bip, bil, bsq, or "
          "as-stored (the data file's own order)", GST_TYPE_ENVI_INTERLEAVE,
          DEFAULT_INTERLEAVE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /* GstBaseSrc's blocksize cannot be removed, and honouring it would split
   * a cube, which application/x-hyperspectral never is: a read-only
   * property of the same name hides it (gst-inspect, gst-launch and
   * g_object_set see this one) and says what a buffer holds instead */
  g_object_class_install_property (gobject_class, PROP_BLOCKSIZE,
      g_param_spec_uint ("blocksize", "Block size",
          "Not settable: each cube goes out as one buffer of its whole size "
          "(lines x samples x bands x value size), reported here once the "
          "element has started (0 before); GstBaseSrc's block size, which "
          "this replaces, would split the cube", 0, G_MAXUINT, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "ENVI hyperspectral cube source", "Source/File",
      "Reads an ENVI cube (header + raw data file) with GDAL into one "
      "application/x-hyperspectral buffer", SCI_ELEMENT_AUTHOR);

  gst_type_mark_as_plugin_api (GST_TYPE_ENVI_INTERLEAVE, 0);
  GST_DEBUG_CATEGORY_INIT (gst_envi_src_debug, "envisrc", 0,
      "ENVI cube source");
}

static void
gst_envi_src_init (GstEnviSrc * self)
{
  self->interleave = DEFAULT_INTERLEAVE;
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}
