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

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <gdal.h>
#include <cpl_error.h>

#include "gstenviheader.h"
#include "gstenvisrc.h"

GST_DEBUG_CATEGORY_STATIC (gst_envi_src_debug);
#define GST_CAT_DEFAULT gst_envi_src_debug

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_INTERLEAVE,
};

#define GST_TYPE_ENVI_INTERLEAVE (gst_envi_interleave_get_type ())
static GType gst_envi_interleave_get_type (void);

#define DEFAULT_INTERLEAVE GST_ENVI_INTERLEAVE_BIP

/* The largest cube made into a buffer (docs/media-types.md). */
#define MAX_CUBE_BYTES (G_GUINT64_CONSTANT (1) << 31)
/* A "header" larger than this is taken as not a header. */
#define MAX_HEADER_BYTES (64 << 20)
#define MAX_BANDS 65535

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_ENVI_CAPS));

#define gst_envi_src_parent_class parent_class
G_DEFINE_TYPE (GstEnviSrc, gst_envi_src, GST_TYPE_BASE_SRC);
GST_ELEMENT_REGISTER_DEFINE (envisrc, "envisrc", GST_RANK_NONE,
    GST_TYPE_ENVI_SRC);

static GType
gst_envi_interleave_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_ENVI_INTERLEAVE_BIP, "Band interleaved by pixel: the bands of "
          "one pixel after another", "bip"},
    {GST_ENVI_INTERLEAVE_BIL, "Band interleaved by line: each band of a "
          "line after another", "bil"},
    {GST_ENVI_INTERLEAVE_BSQ, "Band sequential: one whole band after "
          "another", "bsq"},
    {GST_ENVI_INTERLEAVE_AS_STORED, "The order of the data file", "as-stored"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstEnviInterleave", values);

    g_once_init_leave (&type, t);
  }
  return type;
}

static const gchar *const interleave_names[] = { "bip", "bil", "bsq" };

/* ---- finding the files ---- */

static gboolean
is_regular_file (const gchar * path)
{
  return g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

static gboolean
has_suffix_ci (const gchar * s, const gchar * suffix)
{
  gsize n = strlen (s), m = strlen (suffix);

  return n >= m && !g_ascii_strcasecmp (s + n - m, suffix);
}

/* The header of data file `data`: its name with the extension replaced by
 * .hdr (or .HDR), else followed by it; NULL with the names tried in
 * `tried`. */
static gchar *
find_header (const gchar * data, GString * tried)
{
  const gchar *base = strrchr (data, G_DIR_SEPARATOR);
  const gchar *dot = strrchr (base ? base : data, '.');
  gchar *stem = dot ? g_strndup (data, dot - data) : g_strdup (data);
  gchar *cand[4];
  gchar *ret = NULL;
  guint i;

  cand[0] = g_strconcat (stem, ".hdr", NULL);
  cand[1] = g_strconcat (stem, ".HDR", NULL);
  cand[2] = g_strconcat (data, ".hdr", NULL);
  cand[3] = g_strconcat (data, ".HDR", NULL);
  for (i = 0; i < G_N_ELEMENTS (cand); i++) {
    if (!ret && is_regular_file (cand[i]))
      ret = g_strdup (cand[i]);
    if (i % 2 == 0 && !(i == 2 && !dot))
      g_string_append_printf (tried, "%s%s", tried->len ? ", " : "", cand[i]);
    g_free (cand[i]);
  }
  g_free (stem);
  return ret;
}

/* The data file of header `hdr` (interleave `il` as the header says): the
 * same name without .hdr, alone or with one of the usual extensions; NULL
 * with the names tried in `tried`. */
static gchar *
find_data (const gchar * hdr, GstEnviInterleave il, GString * tried)
{
  static const gchar *const exts[] = { ".bip", ".bil", ".bsq", ".img",
    ".dat", ".raw"
  };
  const gchar *order[G_N_ELEMENTS (exts) + 1];
  gchar *stem = g_strndup (hdr, strlen (hdr) - 4);
  gchar *ret = NULL;
  guint i, n = 0, upper;

  /* no extension, the one the header's interleave names, the others */
  order[n++] = "";
  order[n++] = exts[il];
  for (i = 0; i < G_N_ELEMENTS (exts); i++)
    if (i != (guint) il)
      order[n++] = exts[i];
  for (i = 0; i < n && !ret; i++) {
    for (upper = 0; upper < 2 && !ret; upper++) {
      gchar *e = upper ? g_ascii_strup (order[i], -1) : g_strdup (order[i]);
      gchar *cand = g_strconcat (stem, e, NULL);

      if ((!upper || *e) && is_regular_file (cand))
        ret = g_strdup (cand);
      g_free (cand);
      g_free (e);
    }
    if (!ret)
      g_string_append_printf (tried, "%s%s%s", tried->len ? ", " : "", stem,
          order[i]);
  }
  g_free (stem);
  return ret;
}

/* ---- start / stop ---- */

static void
init_gdal (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    if (!GDALGetDriverByName ("ENVI"))
      GDALAllRegister ();
    g_once_init_leave (&done, 1);
  }
}

/* GDAL's last error message, or a stand-in. */
static gchar *
gdal_message (void)
{
  const char *m = CPLGetLastErrorMsg ();

  return g_strdup (m && *m ? m : "no message from GDAL");
}

static void
clear_cube (GstEnviSrc * self)
{
  if (self->dataset) {
    GDALClose ((GDALDatasetH) self->dataset);
    self->dataset = NULL;
  }
  g_clear_pointer (&self->hdr_path, g_free);
  g_clear_pointer (&self->data_path, g_free);
  GST_OBJECT_LOCK (self);
  gst_clear_caps (&self->caps);
  GST_OBJECT_UNLOCK (self);
  self->size = 0;
  self->done = FALSE;
}

#define FAIL(domain, code, ...) G_STMT_START {                           \
    GST_ELEMENT_ERROR (self, domain, code,                              \
        ("Cannot read the ENVI cube \"%s\".", location), __VA_ARGS__);  \
    goto fail;                                                          \
  } G_STMT_END

static gboolean
gst_envi_src_start (GstBaseSrc * src)
{
  GstEnviSrc *self = GST_ENVI_SRC (src);
  gchar *location, *text = NULL, *why = NULL;
  GString *tried = g_string_new (NULL);
  GError *err = NULL;
  GstEnviHeader h = { 0 };
  GStatBuf st;
  GDALDataType type;
  GstEnviInterleave want;
  guint64 pixels, need;
  gsize len;

  GST_OBJECT_LOCK (self);
  location = g_strdup (self->location);
  want = self->interleave;
  GST_OBJECT_UNLOCK (self);
  clear_cube (self);

  if (!location || !*location) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No file name specified for reading."), ("location is not set"));
    goto fail;
  }
  if (!g_file_test (location, G_FILE_TEST_EXISTS))
    FAIL (RESOURCE, NOT_FOUND, ("%s: no such file", location));
  if (!is_regular_file (location))
    FAIL (RESOURCE, OPEN_READ, ("%s: not a regular file", location));

  /* the header, named or found next to the data file */
  if (has_suffix_ci (location, ".hdr")) {
    self->hdr_path = g_strdup (location);
  } else {
    self->data_path = g_strdup (location);
    self->hdr_path = find_header (location, tried);
    if (!self->hdr_path)
      FAIL (RESOURCE, NOT_FOUND, ("%s: no ENVI header next to this data "
              "file (looked for %s)", location, tried->str));
  }
  if (g_stat (self->hdr_path, &st) != 0)
    FAIL (RESOURCE, OPEN_READ, ("%s: %s", self->hdr_path, g_strerror (errno)));
  if (st.st_size > MAX_HEADER_BYTES)
    FAIL (STREAM, WRONG_TYPE, ("%s: %" G_GINT64_FORMAT " bytes: too large "
            "for an ENVI header", self->hdr_path, (gint64) st.st_size));
  if (!g_file_get_contents (self->hdr_path, &text, &len, &err))
    FAIL (RESOURCE, OPEN_READ, ("%s", err->message));
  if (!gst_envi_header_parse (text, &h, &why))
    FAIL (STREAM, WRONG_TYPE, ("%s: %s", self->hdr_path, why));

  /* what the header says, checked */
  if (h.samples < 1 || h.lines < 1 || h.bands < 1)
    FAIL (STREAM, FORMAT, ("%s: the header says samples = %" G_GINT64_FORMAT
            ", lines = %" G_GINT64_FORMAT ", bands = %" G_GINT64_FORMAT
            ": a cube needs at least one of each", self->hdr_path, h.samples,
            h.lines, h.bands));
  if (h.samples > G_MAXINT || h.lines > G_MAXINT || h.bands > MAX_BANDS)
    FAIL (STREAM, FORMAT, ("%s: the header says samples = %" G_GINT64_FORMAT
            ", lines = %" G_GINT64_FORMAT ", bands = %" G_GINT64_FORMAT
            ": at most 2147483647 samples and lines and 65535 bands are "
            "supported", self->hdr_path, h.samples, h.lines, h.bands));
  switch (h.data_type) {
    case 1:
      self->format = "U8";
      self->bytes = 1;
      type = GDT_Byte;
      break;
    case 2:
      self->format = "S16LE";
      self->bytes = 2;
      type = GDT_Int16;
      break;
    case 12:
      self->format = "U16LE";
      self->bytes = 2;
      type = GDT_UInt16;
      break;
    case 4:
      self->format = "F32LE";
      self->bytes = 4;
      type = GDT_Float32;
      break;
    default:
      FAIL (STREAM, FORMAT, ("%s: data type %" G_GINT64_FORMAT " (%s) is "
              "not supported: envisrc reads data types 1 (uint8), 2 (int16), "
              "12 (uint16) and 4 (float32)", self->hdr_path, h.data_type,
              gst_envi_data_type_name (h.data_type)));
  }
  self->gdal_type = type;
  self->samples = h.samples;
  self->lines = h.lines;
  self->bands = h.bands;
  pixels = (guint64) h.samples * h.lines;
  need = pixels <= MAX_CUBE_BYTES ? pixels * h.bands * self->bytes :
      G_MAXUINT64;
  if (need > MAX_CUBE_BYTES)
    FAIL (STREAM, FORMAT, ("%s: the cube is %" G_GINT64_FORMAT " lines x %"
            G_GINT64_FORMAT " samples x %" G_GINT64_FORMAT " bands of %d "
            "bytes, more than 2^31 bytes: too large for one buffer",
            self->hdr_path, h.lines, h.samples, h.bands, self->bytes));
  self->size = need;

  /* the data file, named or found next to the header */
  if (!self->data_path) {
    g_string_truncate (tried, 0);
    self->data_path = find_data (self->hdr_path, h.interleave, tried);
    if (!self->data_path)
      FAIL (RESOURCE, NOT_FOUND, ("%s: no data file next to this header "
              "(looked for %s)", self->hdr_path, tried->str));
  }
  if (g_stat (self->data_path, &st) != 0)
    FAIL (RESOURCE, OPEN_READ, ("%s: %s", self->data_path, g_strerror (errno)));
  if ((guint64) h.offset + need > (guint64) st.st_size)
    FAIL (RESOURCE, READ, ("%s: data file holds %" G_GUINT64_FORMAT
            " bytes, the header needs %" G_GUINT64_FORMAT " (header offset %"
            G_GINT64_FORMAT " + %" G_GINT64_FORMAT " lines x %"
            G_GINT64_FORMAT " samples x %" G_GINT64_FORMAT " bands x %d "
            "bytes)", self->data_path, (guint64) st.st_size,
            (guint64) h.offset + need, h.offset, h.lines, h.samples, h.bands,
            self->bytes));

  /* a one-byte cube (1 x 1 x 1 uint8): GDAL opens no file shorter than
   * two bytes, and one byte has no order to change: read it here */
  if (st.st_size < 2) {
    FILE *f = g_fopen (self->data_path, "rb");
    gboolean ok = f && fread (&self->one_byte, 1, 1, f) == 1;

    if (!ok) {
      why = g_strdup (f ? "cannot read its byte" : g_strerror (errno));
      if (f)
        fclose (f);
      FAIL (RESOURCE, READ, ("%s: %s", self->data_path, why));
    }
    fclose (f);
    goto done;
  }

  /* GDAL's ENVI driver reads it: it finds the header itself */
  init_gdal ();
  {
    const char *const drivers[] = { "ENVI", NULL };

    CPLPushErrorHandler (CPLQuietErrorHandler);
    CPLErrorReset ();
    self->dataset = GDALOpenEx (self->data_path, GDAL_OF_RASTER |
        GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR, drivers, NULL, NULL);
    if (!self->dataset)
      why = gdal_message ();
    CPLPopErrorHandler ();
  }
  if (!self->dataset)
    FAIL (STREAM, WRONG_TYPE, ("%s: GDAL's ENVI driver cannot open it: %s",
            self->data_path, why));
  if (GDALGetRasterXSize (self->dataset) != self->samples
      || GDALGetRasterYSize (self->dataset) != self->lines
      || GDALGetRasterCount (self->dataset) != self->bands
      || GDALGetRasterDataType (GDALGetRasterBand (self->dataset, 1)) != type)
    FAIL (STREAM, FORMAT, ("%s: GDAL reads %d samples x %d lines x %d bands "
            "of %s where %s says %d x %d x %d of %s (another header next to "
            "the data file?)", self->data_path,
            GDALGetRasterXSize (self->dataset),
            GDALGetRasterYSize (self->dataset),
            GDALGetRasterCount (self->dataset),
            GDALGetDataTypeName (GDALGetRasterDataType (GDALGetRasterBand
                    (self->dataset, 1))), self->hdr_path, self->samples,
            self->lines, self->bands, GDALGetDataTypeName (type)));

done:
  self->out_interleave = want == GST_ENVI_INTERLEAVE_AS_STORED ?
      h.interleave : want;
  GST_OBJECT_LOCK (self);
  self->caps = gst_caps_new_simple ("application/x-hyperspectral",
      "lines", G_TYPE_INT, self->lines, "samples", G_TYPE_INT, self->samples,
      "bands", G_TYPE_INT, self->bands, "format", G_TYPE_STRING,
      self->format, "interleave", G_TYPE_STRING,
      interleave_names[self->out_interleave], NULL);
  GST_OBJECT_UNLOCK (self);
  GST_INFO_OBJECT (self, "%s + %s: %d lines x %d samples x %d bands of %s "
      "stored %s, byte order %" G_GINT64_FORMAT ", header offset %"
      G_GINT64_FORMAT "; out %s", self->hdr_path, self->data_path,
      self->lines, self->samples, self->bands, self->format,
      interleave_names[h.interleave], h.byte_order, h.offset,
      interleave_names[self->out_interleave]);

  g_free (location);
  g_free (text);
  g_free (why);
  g_string_free (tried, TRUE);
  return TRUE;

fail:
  clear_cube (self);
  g_free (location);
  g_free (text);
  g_free (why);
  g_clear_error (&err);
  g_string_free (tried, TRUE);
  return FALSE;
}

#undef FAIL

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

/* Reads the whole cube in the order asked for. */
static GstFlowReturn
gst_envi_src_create (GstBaseSrc * src, guint64 offset, guint size,
    GstBuffer ** out)
{
  GstEnviSrc *self = GST_ENVI_SRC (src);
  GSpacing px, ln, bd, b = self->bytes;
  GstBuffer *buf;
  gpointer data;
  CPLErr err;

  if (self->done)
    return GST_FLOW_EOS;

  if (!self->dataset) {
    buf = gst_buffer_new_memdup (&self->one_byte, 1);
    goto out;
  }
  data = g_try_malloc (self->size);
  if (!data) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Cannot read the ENVI cube \"%s\".", self->hdr_path),
        ("cannot allocate %" G_GSIZE_FORMAT " bytes", self->size));
    return GST_FLOW_ERROR;
  }
  switch (self->out_interleave) {
    case GST_ENVI_INTERLEAVE_BIP:
      bd = b;
      px = b * self->bands;
      ln = px * self->samples;
      break;
    case GST_ENVI_INTERLEAVE_BIL:
      px = b;
      bd = b * self->samples;
      ln = bd * self->bands;
      break;
    default:
      px = b;
      ln = b * self->samples;
      bd = ln * self->lines;
      break;
  }
  CPLPushErrorHandler (CPLQuietErrorHandler);
  CPLErrorReset ();
  err = GDALDatasetRasterIOEx (self->dataset, GF_Read, 0, 0, self->samples,
      self->lines, data, self->samples, self->lines, self->gdal_type,
      self->bands, NULL, px, ln, bd, NULL);
  if (err != CE_None) {
    gchar *why = gdal_message ();

    CPLPopErrorHandler ();
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Cannot read the ENVI cube \"%s\".", self->hdr_path),
        ("%s: GDAL cannot read the cube: %s", self->data_path, why));
    g_free (why);
    g_free (data);
    return GST_FLOW_ERROR;
  }
  CPLPopErrorHandler ();

  buf = gst_buffer_new_wrapped (data, self->size);
out:
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DTS (buf) = 0;
  GST_BUFFER_OFFSET (buf) = 0;
  GST_BUFFER_OFFSET_END (buf) = self->size;
  self->done = TRUE;
  GST_DEBUG_OBJECT (self, "read %" G_GSIZE_FORMAT " bytes", self->size);
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
