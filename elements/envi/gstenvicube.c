/*
 * ENVI cubes read with GDAL (see gstenvicube.h).
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

#include "gstenvicube.h"

/* The largest cube made into a buffer (docs/media-types.md). */
#define MAX_CUBE_BYTES (G_GUINT64_CONSTANT (1) << 31)
#define MAX_BANDS 65535

GType
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

/* ---- GDAL ---- */

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

void
gst_envi_cube_clear (GstEnviCube * cube)
{
  if (cube->dataset) {
    GDALClose ((GDALDatasetH) cube->dataset);
    cube->dataset = NULL;
  }
  g_clear_pointer (&cube->hdr_path, g_free);
  g_clear_pointer (&cube->data_path, g_free);
  cube->size = 0;
}

void
gst_envi_cube_post_error (GstElement * element, const gchar * name,
    const GError * err)
{
  gst_element_message_full (element, GST_MESSAGE_ERROR, err->domain,
      err->code, g_strdup_printf ("Cannot read the ENVI cube \"%s\".", name),
      g_strdup (err->message), __FILE__, GST_FUNCTION, __LINE__);
}

#define FAIL(domain, code, ...) G_STMT_START {                           \
    g_set_error (err, GST_ ## domain ## _ERROR,                         \
        GST_ ## domain ## _ERROR_ ## code, __VA_ARGS__);                \
    goto fail;                                                          \
  } G_STMT_END

gboolean
gst_envi_cube_open (GstEnviCube * cube, const gchar * location,
    const gchar * header_text, GstEnviInterleave want, GError ** err)
{
  gchar *text = NULL, *why = NULL;
  GString *tried = g_string_new (NULL);
  GError *gerr = NULL;
  GstEnviHeader h = { 0 };
  GStatBuf st;
  GDALDataType type;
  guint64 pixels, need;
  gsize len;

  gst_envi_cube_clear (cube);

  if (!header_text) {
    if (!g_file_test (location, G_FILE_TEST_EXISTS))
      FAIL (RESOURCE, NOT_FOUND, "%s: no such file", location);
    if (!is_regular_file (location))
      FAIL (RESOURCE, OPEN_READ, "%s: not a regular file", location);
  }

  /* the header, named or found next to the data file */
  if (has_suffix_ci (location, ".hdr")) {
    cube->hdr_path = g_strdup (location);
  } else if (header_text) {
    /* the data file is the header's name without .hdr, where GDAL looks */
    FAIL (RESOURCE, NOT_FOUND, "%s: an ENVI header must be named NAME.hdr "
        "(any case) to be found next to its data file NAME", location);
  } else {
    cube->data_path = g_strdup (location);
    cube->hdr_path = find_header (location, tried);
    if (!cube->hdr_path)
      FAIL (RESOURCE, NOT_FOUND, "%s: no ENVI header next to this data "
          "file (looked for %s)", location, tried->str);
  }
  if (!header_text) {
    if (g_stat (cube->hdr_path, &st) != 0)
      FAIL (RESOURCE, OPEN_READ, "%s: %s", cube->hdr_path, g_strerror (errno));
    if (st.st_size > GST_ENVI_MAX_HEADER_BYTES)
      FAIL (STREAM, WRONG_TYPE, "%s: %" G_GINT64_FORMAT " bytes: too large "
          "for an ENVI header", cube->hdr_path, (gint64) st.st_size);
    if (!g_file_get_contents (cube->hdr_path, &text, &len, &gerr))
      FAIL (RESOURCE, OPEN_READ, "%s", gerr->message);
    header_text = text;
  }
  if (!gst_envi_header_parse (header_text, &h, &why))
    FAIL (STREAM, WRONG_TYPE, "%s: %s", cube->hdr_path, why);

  /* what the header says, checked */
  if (h.samples < 1 || h.lines < 1 || h.bands < 1)
    FAIL (STREAM, FORMAT, "%s: the header says samples = %" G_GINT64_FORMAT
        ", lines = %" G_GINT64_FORMAT ", bands = %" G_GINT64_FORMAT
        ": a cube needs at least one of each", cube->hdr_path, h.samples,
        h.lines, h.bands);
  if (h.samples > G_MAXINT || h.lines > G_MAXINT || h.bands > MAX_BANDS)
    FAIL (STREAM, FORMAT, "%s: the header says samples = %" G_GINT64_FORMAT
        ", lines = %" G_GINT64_FORMAT ", bands = %" G_GINT64_FORMAT
        ": at most 2147483647 samples and lines and 65535 bands are "
        "supported", cube->hdr_path, h.samples, h.lines, h.bands);
  switch (h.data_type) {
    case 1:
      cube->format = "U8";
      cube->bytes = 1;
      type = GDT_Byte;
      break;
    case 2:
      cube->format = "S16LE";
      cube->bytes = 2;
      type = GDT_Int16;
      break;
    case 12:
      cube->format = "U16LE";
      cube->bytes = 2;
      type = GDT_UInt16;
      break;
    case 4:
      cube->format = "F32LE";
      cube->bytes = 4;
      type = GDT_Float32;
      break;
    default:
      FAIL (STREAM, FORMAT, "%s: data type %" G_GINT64_FORMAT " (%s) is "
          "not supported: envisrc and envidec read data types 1 (uint8), "
          "2 (int16), "
          "12 (uint16) and 4 (float32)", cube->hdr_path, h.data_type,
          gst_envi_data_type_name (h.data_type));
  }
  cube->gdal_type = type;
  cube->samples = h.samples;
  cube->lines = h.lines;
  cube->bands = h.bands;
  pixels = (guint64) h.samples * h.lines;
  need = pixels <= MAX_CUBE_BYTES ? pixels * h.bands * cube->bytes :
      G_MAXUINT64;
  if (need > MAX_CUBE_BYTES)
    FAIL (STREAM, FORMAT, "%s: the cube is %" G_GINT64_FORMAT " lines x %"
        G_GINT64_FORMAT " samples x %" G_GINT64_FORMAT " bands of %d "
        "bytes, more than 2^31 bytes: too large for one buffer",
        cube->hdr_path, h.lines, h.samples, h.bands, cube->bytes);
  cube->size = need;

  /* the data file, named or found next to the header */
  if (!cube->data_path) {
    g_string_truncate (tried, 0);
    cube->data_path = find_data (cube->hdr_path, h.interleave, tried);
    if (!cube->data_path)
      FAIL (RESOURCE, NOT_FOUND, "%s: no data file next to this header "
          "(looked for %s)", cube->hdr_path, tried->str);
  }
  if (g_stat (cube->data_path, &st) != 0)
    FAIL (RESOURCE, OPEN_READ, "%s: %s", cube->data_path, g_strerror (errno));
  if ((guint64) h.offset + need > (guint64) st.st_size)
    FAIL (RESOURCE, READ, "%s: data file holds %" G_GUINT64_FORMAT
        " bytes, the header needs %" G_GUINT64_FORMAT " (header offset %"
        G_GINT64_FORMAT " + %" G_GINT64_FORMAT " lines x %"
        G_GINT64_FORMAT " samples x %" G_GINT64_FORMAT " bands x %d "
        "bytes)", cube->data_path, (guint64) st.st_size,
        (guint64) h.offset + need, h.offset, h.lines, h.samples, h.bands,
        cube->bytes);

  /* a one-byte cube (1 x 1 x 1 uint8): GDAL opens no file shorter than
   * two bytes, and one byte has no order to change: read it here */
  if (st.st_size < 2) {
    FILE *f = g_fopen (cube->data_path, "rb");
    gboolean ok = f && fread (&cube->one_byte, 1, 1, f) == 1;

    if (!ok) {
      why = g_strdup (f ? "cannot read its byte" : g_strerror (errno));
      if (f)
        fclose (f);
      FAIL (RESOURCE, READ, "%s: %s", cube->data_path, why);
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
    cube->dataset = GDALOpenEx (cube->data_path, GDAL_OF_RASTER |
        GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR, drivers, NULL, NULL);
    if (!cube->dataset)
      why = gdal_message ();
    CPLPopErrorHandler ();
  }
  if (!cube->dataset)
    FAIL (STREAM, WRONG_TYPE, "%s: GDAL's ENVI driver cannot open it: %s",
        cube->data_path, why);
  if (GDALGetRasterXSize (cube->dataset) != cube->samples
      || GDALGetRasterYSize (cube->dataset) != cube->lines
      || GDALGetRasterCount (cube->dataset) != cube->bands
      || GDALGetRasterDataType (GDALGetRasterBand (cube->dataset, 1)) != type)
    FAIL (STREAM, FORMAT, "%s: GDAL reads %d samples x %d lines x %d bands "
        "of %s where %s says %d x %d x %d of %s (another header next to "
        "the data file?)", cube->data_path,
        GDALGetRasterXSize (cube->dataset),
        GDALGetRasterYSize (cube->dataset),
        GDALGetRasterCount (cube->dataset),
        GDALGetDataTypeName (GDALGetRasterDataType (GDALGetRasterBand
                (cube->dataset, 1))), cube->hdr_path, cube->samples,
        cube->lines, cube->bands, GDALGetDataTypeName (type));

done:
  cube->out_interleave = want == GST_ENVI_INTERLEAVE_AS_STORED ?
      h.interleave : want;
  GST_INFO ("%s + %s: %d lines x %d samples x %d bands of %s stored %s, "
      "byte order %" G_GINT64_FORMAT ", header offset %" G_GINT64_FORMAT
      "; out %s", cube->hdr_path, cube->data_path, cube->lines,
      cube->samples, cube->bands, cube->format,
      interleave_names[h.interleave], h.byte_order, h.offset,
      interleave_names[cube->out_interleave]);
  g_free (text);
  g_free (why);
  g_string_free (tried, TRUE);
  return TRUE;

fail:
  gst_envi_cube_clear (cube);
  g_free (text);
  g_free (why);
  g_clear_error (&gerr);
  g_string_free (tried, TRUE);
  return FALSE;
}

#undef FAIL

GstCaps *
gst_envi_cube_caps (const GstEnviCube * cube)
{
  return gst_caps_new_simple ("application/x-hyperspectral",
      "lines", G_TYPE_INT, cube->lines, "samples", G_TYPE_INT, cube->samples,
      "bands", G_TYPE_INT, cube->bands, "format", G_TYPE_STRING,
      cube->format, "interleave", G_TYPE_STRING,
      interleave_names[cube->out_interleave], NULL);
}

/* Reads the whole cube in the order asked for. */
GstBuffer *
gst_envi_cube_read (GstEnviCube * cube, GError ** err)
{
  GSpacing px, ln, bd, b = cube->bytes;
  GstBuffer *buf;
  gpointer data;
  CPLErr cerr;

  if (!cube->dataset) {
    buf = gst_buffer_new_memdup (&cube->one_byte, 1);
    goto out;
  }
  data = g_try_malloc (cube->size);
  if (!data) {
    g_set_error (err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "cannot allocate %" G_GSIZE_FORMAT " bytes", cube->size);
    return NULL;
  }
  switch (cube->out_interleave) {
    case GST_ENVI_INTERLEAVE_BIP:
      bd = b;
      px = b * cube->bands;
      ln = px * cube->samples;
      break;
    case GST_ENVI_INTERLEAVE_BIL:
      px = b;
      bd = b * cube->samples;
      ln = bd * cube->bands;
      break;
    default:
      px = b;
      ln = b * cube->samples;
      bd = ln * cube->lines;
      break;
  }
  CPLPushErrorHandler (CPLQuietErrorHandler);
  CPLErrorReset ();
  cerr = GDALDatasetRasterIOEx (cube->dataset, GF_Read, 0, 0, cube->samples,
      cube->lines, data, cube->samples, cube->lines, cube->gdal_type,
      cube->bands, NULL, px, ln, bd, NULL);
  if (cerr != CE_None) {
    gchar *why = gdal_message ();

    CPLPopErrorHandler ();
    g_set_error (err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "%s: GDAL cannot read the cube: %s", cube->data_path, why);
    g_free (why);
    g_free (data);
    return NULL;
  }
  CPLPopErrorHandler ();

  buf = gst_buffer_new_wrapped (data, cube->size);
out:
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DTS (buf) = 0;
  GST_BUFFER_OFFSET (buf) = 0;
  GST_BUFFER_OFFSET_END (buf) = cube->size;
  return buf;
}
