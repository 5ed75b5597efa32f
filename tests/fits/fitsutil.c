#include "fitsutil.h"

#include <gst/check/gstcheck.h>
#include <fitsio.h>

#include "gst/gstscifitsmeta.h"

GBytes *
fitsutil_real_file (void)
{
  const gchar *dir = g_getenv ("SCI_TEST_DATA_DIR");
  gchar *path, *data = NULL;
  gsize len = 0;

  if (!dir)
    dir = "../shared/data";
  path = g_build_filename (dir, "spectral16", "gmos-n-multi.fits", NULL);
  if (!g_file_get_contents (path, &data, &len, NULL)) {
    g_print ("%s absent: real-data checks skipped\n", path);
    g_free (path);
    return NULL;
  }
  g_free (path);
  return g_bytes_new_take (data, len);
}

guint16 *
fitsutil_cfitsio_read (gconstpointer data, gsize len, gint hdu, gint * w,
    gint * h, gchar ** cards)
{
  fitsfile *f;
  void *ptr = (void *) data;
  size_t size = len;
  int status = 0, type, bitpix, naxis, anynul, n, i;
  long naxes[2] = { 0, 0 };
  guint16 *out = NULL;
  char card[FLEN_CARD];

  fits_open_memfile (&f, "t.fits", READONLY, &ptr, &size, 0, NULL, &status);
  fits_movabs_hdu (f, hdu + 1, &type, &status);
  if (cards) {
    GString *c = g_string_new (NULL);

    fits_get_hdrspace (f, &n, NULL, &status);
    for (i = 1; i <= n && status == 0; i++) {
      fits_read_record (f, i, card, &status);
      if (!gst_sci_fits_card_is_structural (card))
        g_string_append_printf (c, "%-80s", card);
    }
    *cards = g_string_free (c, FALSE);
  }
  fits_get_img_param (f, 2, &bitpix, &naxis, naxes, &status);
  fail_unless (status == 0, "cfitsio: %d", status);
  if (naxis == 2) {
    *w = naxes[0];
    *h = naxes[1];
    out = g_new (guint16, naxes[0] * naxes[1]);
    fits_read_img (f, TUSHORT, 1, naxes[0] * naxes[1], NULL, out, &anynul,
        &status);
  }
  fits_close_file (f, &status);
  fail_unless (status == 0, "cfitsio read: %d", status);
  return out;
}

TestRun
test_run_new (const gchar * launch, const gchar * src_caps)
{
  TestRun r;

  r.h = gst_harness_new_parse (launch);
  r.bus = gst_bus_new ();
  gst_element_set_bus (r.h->element, r.bus);
  gst_harness_set_src_caps_str (r.h, src_caps);
  return r;
}

static gchar *
first_message (TestRun * r, GstMessageType type)
{
  GstMessage *m = gst_bus_pop_filtered (r->bus, type);
  GError *err = NULL;
  gchar *dbg = NULL, *ret;

  if (!m)
    return NULL;
  if (type == GST_MESSAGE_ERROR)
    gst_message_parse_error (m, &err, &dbg);
  else
    gst_message_parse_warning (m, &err, &dbg);
  ret = g_strdup_printf ("%s (%s)", err->message, dbg ? dbg : "");
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (m);
  return ret;
}

gchar *
test_run_error (TestRun * r)
{
  return first_message (r, GST_MESSAGE_ERROR);
}

gchar *
test_run_warning (TestRun * r)
{
  return first_message (r, GST_MESSAGE_WARNING);
}

void
test_run_free (TestRun * r)
{
  gst_element_set_bus (r->h->element, NULL);
  gst_object_unref (r->bus);
  gst_harness_teardown (r->h);
}
