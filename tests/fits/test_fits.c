/*
 * fitsdec and fitsenc in GstHarness: the real GMOS-N file of
 * ../shared/data/spectral16 (SCI_TEST_DATA_DIR; skipped where absent)
 * against cfitsio read directly, its header cards, the hdu and all-hdus
 * properties, whole-file and chunked input, round trips through fitsenc
 * (samples and non-structural cards), synthetic GRAY8, GRAY16 and signed
 * 16-bit frames, refusals, and truncated or byte-flipped files (an error
 * or a valid frame, never a crash); every BITPIX and scaling from files
 * cfitsio writes, bit-exact through fitsdec ! fitsenc (NaN payloads
 * included) as the primary HDU or an extension; CHECKSUM/DATASUM checked
 * on reading (mismatches, verify-checksum=false) and written valid
 * (cfitsio's fits_verify_chksum, fitsverify where installed); the damaged
 * card warning, empty input, the elements' ranks.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <string.h>
#include <fitsio.h>
#include <math.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "gst/gstscifitsmeta.h"
#include "fitsutil.h"

#define GMOS_W 132
#define GMOS_H 288

/* ---- helpers ---- */

static GstBuffer *
bytes_buffer (gconstpointer data, gsize len)
{
  return gst_buffer_new_memdup (data, len);
}

/* Sample (x, y) of a GRAY8 or GRAY16_LE frame. */
static guint
sample (GstVideoFrame * f, gint x, gint y)
{
  const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f, 0) +
      y * GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);

  if (GST_VIDEO_FRAME_FORMAT (f) == GST_VIDEO_FORMAT_GRAY8)
    return row[x];
  return GST_READ_UINT16_LE (row + 2 * x);
}

/* Checks a decoded buffer against expected row-major samples. */
static void
check_frame (GstBuffer * buf, GstCaps * caps, const gchar * format, gint w,
    gint h, const guint16 * expect)
{
  GstVideoInfo info;
  GstVideoFrame f;
  gint x, y;

  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless_equals_string (gst_video_format_to_string
      (GST_VIDEO_INFO_FORMAT (&info)), format);
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), w);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), h);
  fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_READ));
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      if (sample (&f, x, y) != expect[y * w + x])
        fail ("sample (%d, %d): %u, expected %u", x, y, sample (&f, x, y),
            expect[y * w + x]);
  gst_video_frame_unmap (&f);
}

/* Whether two buffers hold the same samples (caps of each). */
static gboolean
same_samples (GstBuffer * a, GstCaps * ca, GstBuffer * b, GstCaps * cb)
{
  GstVideoInfo ia, ib;
  GstVideoFrame fa, fb;
  gint x, y;
  gboolean same = TRUE;

  fail_unless (gst_video_info_from_caps (&ia, ca));
  fail_unless (gst_video_info_from_caps (&ib, cb));
  if (GST_VIDEO_INFO_FORMAT (&ia) != GST_VIDEO_INFO_FORMAT (&ib)
      || ia.width != ib.width || ia.height != ib.height)
    return FALSE;
  fail_unless (gst_video_frame_map (&fa, &ia, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, &ib, b, GST_MAP_READ));
  for (y = 0; y < ia.height && same; y++)
    for (x = 0; x < ia.width && same; x++)
      same = sample (&fa, x, y) == sample (&fb, x, y);
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return same;
}

/* The non-structural cards of a header string, as one string. */
static gchar *
plain_cards (const gchar * header)
{
  GString *s = g_string_new (NULL);
  guint i, n = gst_sci_fits_header_n_cards (header);

  for (i = 0; i < n; i++)
    if (!gst_sci_fits_card_is_structural (header + 80 * i))
      g_string_append_len (s, header + 80 * i, 80);
  return g_string_free (s, FALSE);
}

static gboolean
has_card (const gchar * header, const gchar * prefix)
{
  guint i, n = gst_sci_fits_header_n_cards (header);

  for (i = 0; i < n; i++)
    if (strncmp (header + 80 * i, prefix, strlen (prefix)) == 0)
      return TRUE;
  return FALSE;
}

/* Pushes `data` as one buffer (or in `chunk`-byte pieces), then EOS, and
 * returns the output buffers (their caps in `caps`). */
static GPtrArray *
decode (TestRun * d, gconstpointer data, gsize len, gsize chunk,
    GPtrArray * caps, GstFlowReturn * flow)
{
  GPtrArray *bufs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstFlowReturn ret = GST_FLOW_OK;
  GstBuffer *b;
  gsize off;

  if (!chunk)
    chunk = len;
  for (off = 0; off < len && ret == GST_FLOW_OK; off += chunk) {
    ret = gst_harness_push (d->h, bytes_buffer ((const guint8 *) data + off,
            MIN (chunk, len - off)));
    while ((b = gst_harness_try_pull (d->h))) {
      g_ptr_array_add (bufs, b);
      if (caps)
        g_ptr_array_add (caps, gst_pad_get_current_caps (d->h->sinkpad));
    }
  }
  gst_harness_push_event (d->h, gst_event_new_eos ());
  while ((b = gst_harness_try_pull (d->h))) {
    g_ptr_array_add (bufs, b);
    if (caps)
      g_ptr_array_add (caps, gst_pad_get_current_caps (d->h->sinkpad));
  }
  if (flow)
    *flow = ret;
  return bufs;
}

/* A FITS file of one primary HDU: `cards` (80 characters each, without
 * the END card; NULL-terminated) and `data` (stored bytes). */
static GByteArray *
make_fits (const gchar * const *cards, gconstpointer data, gsize len)
{
  GByteArray *a = g_byte_array_new ();
  gchar card[81];
  guint i;

  for (i = 0; cards[i]; i++) {
    g_snprintf (card, sizeof (card), "%-80s", cards[i]);
    g_byte_array_append (a, (guint8 *) card, 80);
  }
  g_snprintf (card, sizeof (card), "%-80s", "END");
  g_byte_array_append (a, (guint8 *) card, 80);
  while (a->len % 2880)
    g_byte_array_append (a, (guint8 *) " ", 1);
  if (len)
    g_byte_array_append (a, data, len);
  while (a->len % 2880)
    g_byte_array_append (a, (guint8 *) "", 1);
  return a;
}

/* ---- the real file ---- */

GST_START_TEST (test_real_file)
{
  GBytes *file = fitsutil_real_file ();
  gconstpointer data;
  gsize len;
  GPtrArray *bufs, *caps;
  TestRun d;
  guint16 *expect;
  gint w, h;
  GstSciFitsMeta *meta;
  GstStructure *s;
  gint fn, fd;

  if (!file)
    return;
  data = g_bytes_get_data (file, &len);
  expect = fitsutil_cfitsio_read (data, len, 1, &w, &h, NULL);
  fail_unless_equals_int (w, GMOS_W);
  fail_unless_equals_int (h, GMOS_H);

  /* one buffer: the first image HDU (1, the primary has no data) */
  d = test_run_new ("fitsdec", "image/fits");
  caps = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_caps_unref);
  bufs = decode (&d, data, len, 0, caps, NULL);
  fail_unless_equals_int (bufs->len, 1);
  check_frame (bufs->pdata[0], caps->pdata[0], "GRAY16_LE", GMOS_W, GMOS_H,
      expect);
  s = gst_caps_get_structure (caps->pdata[0], 0);
  fail_unless (gst_structure_get_fraction (s, "framerate", &fn, &fd));
  fail_unless (fn == 0 && fd == 1);
  fail_if (gst_structure_has_field (s, "sample-offset"));
  /* a few samples by hand: row 0 is the first row stored */
  {
    GstVideoInfo info;
    GstVideoFrame f;

    gst_video_info_from_caps (&info, caps->pdata[0]);
    gst_video_frame_map (&f, &info, bufs->pdata[0], GST_MAP_READ);
    fail_unless_equals_int (sample (&f, 0, 0), expect[0]);
    fail_unless_equals_int (sample (&f, 131, 0), expect[131]);
    fail_unless_equals_int (sample (&f, 0, 1), expect[GMOS_W]);
    fail_unless_equals_int (sample (&f, 65, 200), expect[200 * GMOS_W + 65]);
    fail_unless_equals_int (sample (&f, 131, 287), expect[GMOS_W * GMOS_H - 1]);
    gst_video_frame_unmap (&f);
  }
  meta = gst_buffer_get_sci_fits_meta ((GstBuffer *) bufs->pdata[0]);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->hdu, 1);
  fail_unless (has_card (meta->header, "XTENSION= 'IMAGE   '"));
  fail_unless (has_card (meta->header, "EXTNAME = 'SCI     '"));
  fail_unless (has_card (meta->header, "BZERO   ="));
  fail_unless (meta->primary_header != NULL);
  fail_unless (has_card (meta->primary_header, "SIMPLE  ="));
  fail_unless (has_card (meta->primary_header, "EXTEND  ="));
  fail_unless_equals_int (strlen (meta->header) % 80, 0);
  fail_if (has_card (meta->header, "END     "));
  {
    /* as many cards as cfitsio counts */
    fitsfile *f;
    void *ptr = (void *) data;
    size_t size = len;
    int status = 0, nkeys, more;

    fits_open_memfile (&f, "t.fits", READONLY, &ptr, &size, 0, NULL, &status);
    fits_movabs_hdu (f, 2, NULL, &status);
    fits_get_hdrspace (f, &nkeys, &more, &status);
    fits_close_file (f, &status);
    fail_unless_equals_int (gst_sci_fits_header_n_cards (meta->header), nkeys);
  }
  g_ptr_array_unref (bufs);
  g_ptr_array_unref (caps);
  test_run_free (&d);

  /* the same in filesrc's 4 KiB pieces, decoded at EOS: 184320 bytes, two
   * HDUs, is a multiple of 4096, where the file could have ended */
  d = test_run_new ("fitsdec", "image/fits");
  caps = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_caps_unref);
  bufs = decode (&d, data, len, 4096, caps, NULL);
  fail_unless_equals_int (bufs->len, 1);
  check_frame (bufs->pdata[0], caps->pdata[0], "GRAY16_LE", GMOS_W, GMOS_H,
      expect);
  g_ptr_array_unref (bufs);
  g_ptr_array_unref (caps);
  test_run_free (&d);
  g_free (expect);
  g_bytes_unref (file);
}

GST_END_TEST;

GST_START_TEST (test_real_hdus)
{
  GBytes *file = fitsutil_real_file ();
  gconstpointer data;
  gsize len;
  GPtrArray *bufs, *caps;
  TestRun d;
  gint k, w, h;
  gchar *err;

  if (!file)
    return;
  data = g_bytes_get_data (file, &len);

  /* all-hdus: the three extensions, in order */
  d = test_run_new ("fitsdec all-hdus=true", "image/fits");
  caps = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_caps_unref);
  bufs = decode (&d, data, len, 0, caps, NULL);
  fail_unless_equals_int (bufs->len, 3);
  for (k = 0; k < 3; k++) {
    guint16 *expect = fitsutil_cfitsio_read (data, len, k + 1, &w, &h, NULL);
    GstSciFitsMeta *m = gst_buffer_get_sci_fits_meta ((GstBuffer *)
        bufs->pdata[k]);

    check_frame (bufs->pdata[k], caps->pdata[k], "GRAY16_LE", w, h, expect);
    fail_unless (m && m->hdu == k + 1);
    g_free (expect);
  }
  fail_if (same_samples (bufs->pdata[0], caps->pdata[0], bufs->pdata[1],
          caps->pdata[1]), "the extensions should differ");
  g_ptr_array_unref (bufs);
  g_ptr_array_unref (caps);
  test_run_free (&d);

  /* hdu=3 */
  {
    guint16 *expect = fitsutil_cfitsio_read (data, len, 3, &w, &h, NULL);

    d = test_run_new ("fitsdec hdu=3", "image/fits");
    caps = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_caps_unref);
    bufs = decode (&d, data, len, 0, caps, NULL);
    fail_unless_equals_int (bufs->len, 1);
    check_frame (bufs->pdata[0], caps->pdata[0], "GRAY16_LE", w, h, expect);
    g_ptr_array_unref (bufs);
    g_ptr_array_unref (caps);
    test_run_free (&d);
    g_free (expect);
  }

  /* hdu=0 (no data) and hdu=4 (no such HDU): errors */
  for (k = 0; k < 2; k++) {
    GstFlowReturn flow;

    d = test_run_new (k == 0 ? "fitsdec hdu=0" : "fitsdec hdu=4", "image/fits");
    bufs = decode (&d, data, len, 0, NULL, &flow);
    fail_unless_equals_int (bufs->len, 0);
    fail_unless_equals_int (flow, GST_FLOW_ERROR);
    err = test_run_error (&d);
    fail_unless (err != NULL);
    GST_INFO ("hdu error: %s", err);
    fail_unless (strstr (err, k == 0 ? "not an image with data" :
            "4 HDUs") != NULL, "%s", err);
    g_free (err);
    g_ptr_array_unref (bufs);
    test_run_free (&d);
  }
  g_bytes_unref (file);
}

GST_END_TEST;

/* fitsdec ! fitsenc ! fitsdec gives the same samples and cards; the
 * encoded file is read by cfitsio. */
GST_START_TEST (test_real_round_trip)
{
  GBytes *file = fitsutil_real_file ();
  gconstpointer data;
  gsize len;
  GPtrArray *a, *ca, *enc, *b, *cb;
  TestRun d;
  gint k, ext;

  if (!file)
    return;
  data = g_bytes_get_data (file, &len);
  d = test_run_new ("fitsdec all-hdus=true", "image/fits");
  ca = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_caps_unref);
  a = decode (&d, data, len, 0, ca, NULL);
  test_run_free (&d);
  fail_unless_equals_int (a->len, 3);

  for (ext = 0; ext < 2; ext++) {
    d = test_run_new (ext ? "fitsdec all-hdus=true ! fitsenc extension=true" :
        "fitsdec all-hdus=true ! fitsenc", "image/fits");
    enc = decode (&d, data, len, 0, NULL, NULL);
    test_run_free (&d);
    fail_unless_equals_int (enc->len, 3);
    for (k = 0; k < 3; k++) {
      GstBuffer *e = enc->pdata[k];
      GstMapInfo map;
      GstSciFitsMeta *ma, *mb;
      gchar *pa, *pb;
      guint16 *direct;
      gint w, h;

      gst_buffer_map (e, &map, GST_MAP_READ);
      fail_unless_equals_int (map.size % 2880, 0);
      fail_unless (memcmp (map.data, "SIMPLE  =                    T", 30)
          == 0);
      /* cfitsio reads what fitsenc wrote */
      direct = fitsutil_cfitsio_read (map.data, map.size, ext, &w, &h, NULL);
      check_frame (a->pdata[k], ca->pdata[k], "GRAY16_LE", w, h, direct);
      g_free (direct);

      d = test_run_new ("fitsdec", "image/fits");
      cb = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_caps_unref);
      b = decode (&d, map.data, map.size, 0, cb, NULL);
      test_run_free (&d);
      gst_buffer_unmap (e, &map);
      fail_unless_equals_int (b->len, 1);
      fail_unless (same_samples (a->pdata[k], ca->pdata[k], b->pdata[0],
              cb->pdata[0]));
      ma = gst_buffer_get_sci_fits_meta ((GstBuffer *) a->pdata[k]);
      mb = gst_buffer_get_sci_fits_meta ((GstBuffer *) b->pdata[0]);
      fail_unless (ma && mb);
      pa = plain_cards (ma->header);
      pb = plain_cards (mb->header);
      fail_unless (strlen (pa) > 80 * 10);
      fail_unless_equals_string (pa, pb);
      g_free (pa);
      g_free (pb);
      if (ext) {
        /* the primary cards too */
        fail_unless (mb->primary_header != NULL);
        pa = plain_cards (ma->primary_header);
        pb = plain_cards (mb->primary_header);
        fail_unless_equals_string (pa, pb);
        g_free (pa);
        g_free (pb);
      }
      g_ptr_array_unref (b);
      g_ptr_array_unref (cb);
    }
    g_ptr_array_unref (enc);
  }
  g_ptr_array_unref (a);
  g_ptr_array_unref (ca);
  g_bytes_unref (file);
}

GST_END_TEST;

/* ---- synthetic frames ---- */

static void
synthetic_round_trip (const gchar * format, gint w, gint h, gint offset,
    guint64 seed)
{
  GstHarness *enc = gst_harness_new ("fitsenc");
  GstVideoInfo info;
  GstVideoFrame f;
  GstCaps *caps;
  GstBuffer *in, *out;
  GPtrArray *bufs, *ocaps;
  GstMapInfo map;
  guint16 *expect;
  gint x, y, cw, ch;
  gboolean gray8 = strcmp (format, "GRAY8") == 0;
  TestRun d;

  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      w, h);
  caps = gst_video_info_to_caps (&info);
  if (offset)
    gst_caps_set_simple (caps, "sample-offset", G_TYPE_INT, offset, NULL);
  gst_harness_set_src_caps (enc, caps);
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (in, 0, 0xee, info.size);
  expect = g_new (guint16, w * h);
  gst_video_frame_map (&f, &info, in, GST_MAP_WRITE);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
      guint v;

      seed ^= seed << 13;
      seed ^= seed >> 7;
      seed ^= seed << 17;
      v = gray8 ? seed & 0xff : seed & 0xffff;
      if (x == 0 && y == 0)
        v = gray8 ? 255 : 65535;
      if (x == w - 1 && y == h - 1)
        v = 0;
      if (gray8)
        row[x] = v;
      else
        GST_WRITE_UINT16_LE (row + 2 * x, v);
      expect[y * w + x] = v;
    }
  gst_video_frame_unmap (&f);
  fail_unless_equals_int (gst_harness_push (enc, in), GST_FLOW_OK);
  out = gst_harness_pull (enc);
  fail_unless (out != NULL);
  gst_harness_teardown (enc);

  gst_buffer_map (out, &map, GST_MAP_READ);
  fail_unless_equals_int (map.size % 2880, 0);
  fail_unless_equals_int (map.size, 2880 + (w * h * (gray8 ? 1 : 2) + 2879)
      / 2880 * 2880);
  if (!gray8) {
    /* cfitsio's view: unsigned, or signed without BZERO */
    fitsfile *ff;
    void *ptr = map.data;
    size_t size = map.size;
    int status = 0, anynul, bitpix;
    gint16 *s16 = g_new (gint16, w * h);
    guint16 *u16;

    fits_open_memfile (&ff, "t.fits", READONLY, &ptr, &size, 0, NULL, &status);
    fits_get_img_equivtype (ff, &bitpix, &status);
    fail_unless_equals_int (bitpix, offset ? SHORT_IMG : USHORT_IMG);
    if (offset)
      fits_read_img (ff, TSHORT, 1, w * h, NULL, s16, &anynul, &status);
    fits_close_file (ff, &status);
    fail_unless_equals_int (status, 0);
    if (offset)
      for (x = 0; x < w * h; x++)
        fail_unless_equals_int (s16[x] + 32768, expect[x]);
    g_free (s16);
    if (!offset) {
      u16 = fitsutil_cfitsio_read (map.data, map.size, 0, &cw, &ch, NULL);
      fail_unless (cw == w && ch == h);
      fail_unless (memcmp (u16, expect, w * h * 2) == 0);
      g_free (u16);
    }
  }

  d = test_run_new ("fitsdec", "image/fits");
  ocaps = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_caps_unref);
  bufs = decode (&d, map.data, map.size, 0, ocaps, NULL);
  gst_buffer_unmap (out, &map);
  fail_unless_equals_int (bufs->len, 1);
  check_frame (bufs->pdata[0], ocaps->pdata[0], format, w, h, expect);
  {
    GstStructure *s = gst_caps_get_structure (ocaps->pdata[0], 0);
    gint o = 0;

    gst_structure_get_int (s, "sample-offset", &o);
    fail_unless_equals_int (o, offset);
  }
  g_ptr_array_unref (bufs);
  g_ptr_array_unref (ocaps);
  test_run_free (&d);
  gst_buffer_unref (out);
  g_free (expect);
}

GST_START_TEST (test_synthetic)
{
  const gint sizes[][2] = { {1, 1}, {7, 5}, {33, 17}, {132, 288},
  {1500, 3}
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    synthetic_round_trip ("GRAY8", sizes[i][0], sizes[i][1], 0, i + 1);
    synthetic_round_trip ("GRAY16_LE", sizes[i][0], sizes[i][1], 0, i + 11);
    synthetic_round_trip ("GRAY16_LE", sizes[i][0], sizes[i][1], 32768, i + 21);
  }
}

GST_END_TEST;

/* A frame with a meta of our own: its cards come back, structural ones
 * are replaced, invalid ones skipped; without a meta the header is
 * minimal. */
GST_START_TEST (test_meta_cards)
{
  GstHarness *h = gst_harness_new_parse ("fitsenc ! fitsdec");
  GstBuffer *in, *out;
  GstSciFitsMeta *m;
  gchar *hdr;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=4,"
      "height=2,framerate=0/1");
  in = gst_buffer_new_allocate (NULL, 16, NULL);
  gst_buffer_memset (in, 0, 7, 16);
  hdr = g_strdup_printf ("%-80s%-80s%-80s%-80s%-80s%-80s",
      "SIMPLE  =                    T", "BITPIX  =                  -32",
      "OBJECT  = 'aurora  '           / target",
      "HISTORY written by a test", "bad key = 1",
      "EXPTIME =                 12.5");
  gst_buffer_add_sci_fits_meta (in, hdr, NULL, 0);
  g_free (hdr);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  m = gst_buffer_get_sci_fits_meta (out);
  fail_unless (m != NULL);
  fail_unless (has_card (m->header, "BITPIX  =                    8"));
  fail_if (has_card (m->header, "BITPIX  =                  -32"));
  fail_unless (has_card (m->header, "OBJECT  = 'aurora  '"));
  fail_unless (has_card (m->header, "HISTORY written by a test"));
  fail_unless (has_card (m->header, "EXPTIME =                 12.5"));
  fail_if (has_card (m->header, "bad key"));
  fail_unless (m->primary_header == NULL);
  gst_buffer_unref (out);

  /* no meta: SIMPLE, BITPIX, NAXIS, NAXIS1, NAXIS2, CHECKSUM, DATASUM */
  in = gst_buffer_new_allocate (NULL, 16, NULL);
  gst_buffer_memset (in, 0, 7, 16);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  m = gst_buffer_get_sci_fits_meta (out);
  fail_unless_equals_int (gst_sci_fits_header_n_cards (m->header), 7);
  fail_unless (has_card (m->header, "CHECKSUM= '"));
  fail_unless (has_card (m->header, "DATASUM = '"));
  /* the meta survives a buffer copy */
  {
    GstBuffer *c = gst_buffer_copy (out);

    fail_unless (gst_buffer_get_sci_fits_meta (c) != NULL);
    fail_unless_equals_string (gst_buffer_get_sci_fits_meta (c)->header,
        m->header);
    gst_buffer_unref (c);
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Whole files as single buffers are decoded when they come (multifilesrc);
 * concatenated files in pieces give one frame each. */
GST_START_TEST (test_streaming)
{
  const gchar *cards[] = { "SIMPLE  =                    T",
    "BITPIX  =                    8", "NAXIS   =                    2",
    "NAXIS1  =                    3", "NAXIS2  =                    2", NULL
  };
  guint8 px[6] = { 1, 2, 3, 4, 5, 6 };
  GByteArray *f = make_fits (cards, px, 6);
  GByteArray *two = g_byte_array_new ();
  GPtrArray *bufs;
  GstBuffer *b;
  TestRun d;

  d = test_run_new ("fitsdec", "image/fits");
  gst_harness_set_src_caps_str (d.h, "image/fits,framerate=5/1");
  fail_unless_equals_int (gst_harness_push (d.h, bytes_buffer (f->data,
              f->len)), GST_FLOW_OK);
  b = gst_harness_try_pull (d.h);
  fail_unless (b != NULL, "a whole file should be decoded at once");
  fail_unless_equals_uint64 (GST_BUFFER_PTS (b), 0);
  gst_buffer_unref (b);
  fail_unless_equals_int (gst_harness_push (d.h, bytes_buffer (f->data,
              f->len)), GST_FLOW_OK);
  b = gst_harness_try_pull (d.h);
  fail_unless (b != NULL);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (b), GST_SECOND / 5);
  gst_buffer_unref (b);
  test_run_free (&d);

  g_byte_array_append (two, f->data, f->len);
  g_byte_array_append (two, f->data, f->len);
  d = test_run_new ("fitsdec", "image/fits");
  bufs = decode (&d, two->data, two->len, 1000, NULL, NULL);
  fail_unless_equals_int (bufs->len, 2);
  g_ptr_array_unref (bufs);
  test_run_free (&d);
  g_byte_array_unref (two);
  g_byte_array_unref (f);
}

GST_END_TEST;

/* ---- refusals ---- */

static void
expect_error (const gchar * const *cards, gsize data_len, const gchar * what)
{
  guint8 *zeros = g_malloc0 (data_len + 1);
  GByteArray *f = make_fits (cards, zeros, data_len);
  GPtrArray *bufs;
  gchar *err;
  TestRun d = test_run_new ("fitsdec", "image/fits");

  bufs = decode (&d, f->data, f->len, 0, NULL, NULL);
  fail_unless (bufs->len == 0, "%s: decoded", what);
  err = test_run_error (&d);
  fail_unless (err != NULL, "%s: no error", what);
  fail_unless (strstr (err, what) != NULL, "expected '%s' in: %s", what, err);
  g_free (err);
  /* posted once: EOS after the failure does not parse the bytes again */
  err = test_run_error (&d);
  fail_unless (err == NULL, "%s: a second error: %s", what, err);
  g_ptr_array_unref (bufs);
  test_run_free (&d);
  g_byte_array_unref (f);
  g_free (zeros);
}

#define C_SIMPLE "SIMPLE  =                    T"
#define C_NAXIS2 "NAXIS   =                    2"
#define C_W "NAXIS1  =                    4"
#define C_H "NAXIS2  =                    2"

GST_START_TEST (test_refusals)
{
  const gchar *badscale[] = { C_SIMPLE, "BITPIX  =                   16",
    C_NAXIS2, C_W, C_H, "BSCALE  =                  0.0", NULL
  };
  const gchar *cube[] = { C_SIMPLE, "BITPIX  =                   16",
    "NAXIS   =                    3", C_W, C_H,
    "NAXIS3  =                    2", NULL
  };
  const gchar *huge[] = { C_SIMPLE, "BITPIX  =                   16",
    C_NAXIS2, "NAXIS1  =              1000000",
    "NAXIS2  =              1000000",
    NULL
  };
  const gchar *wide[] = { C_SIMPLE, "BITPIX  =                    8",
    C_NAXIS2, "NAXIS1  =               100000",
    "NAXIS2  =                    1",
    NULL
  };
  const gchar *nobitpix[] = { C_SIMPLE, C_NAXIS2, C_W, C_H, NULL };
  const gchar *empty[] = { C_SIMPLE, "BITPIX  =                    8",
    "NAXIS   =                    0", NULL
  };
  TestRun d;
  GPtrArray *bufs;
  gchar *err, junk[5000];

  expect_error (badscale, 16, "invalid scaling");
  expect_error (cube, 32, "NAXIS3");
  expect_error (huge, 0, "data larger");
  expect_error (wide, 100000, "larger than 65535");
  expect_error (nobitpix, 8, "BITPIX");
  expect_error (empty, 0, "no image HDU");

  /* not FITS */
  memset (junk, 'x', sizeof (junk));
  d = test_run_new ("fitsdec", "image/fits");
  bufs = decode (&d, junk, sizeof (junk), 0, NULL, NULL);
  fail_unless_equals_int (bufs->len, 0);
  err = test_run_error (&d);
  fail_unless (err && strstr (err, "not a FITS file"), "%s", err);
  g_free (err);
  err = test_run_error (&d);
  fail_unless (err == NULL, "a second error: %s", err);
  g_ptr_array_unref (bufs);
  test_run_free (&d);

  /* no END card in a header of 2880-byte blocks of blank cards */
  memset (junk, ' ', sizeof (junk));
  memcpy (junk, C_SIMPLE, strlen (C_SIMPLE));
  d = test_run_new ("fitsdec", "image/fits");
  bufs = decode (&d, junk, 2880, 0, NULL, NULL);
  fail_unless_equals_int (bufs->len, 0);
  err = test_run_error (&d);
  fail_unless (err && strstr (err, "Truncated"), "%s", err);
  g_free (err);
  err = test_run_error (&d);
  fail_unless (err == NULL, "a second error: %s", err);
  g_ptr_array_unref (bufs);
  test_run_free (&d);
}

GST_END_TEST;

/* A damaged card of the meta is dropped with a warning message that names
 * it, not only a debug line. */
GST_START_TEST (test_damaged_card_warning)
{
  TestRun r = test_run_new ("fitsenc", "video/x-raw,format=GRAY8,width=4,"
      "height=2,framerate=0/1");
  GstBuffer *in, *out;
  gchar *hdr, *warn;

  in = gst_buffer_new_allocate (NULL, 8, NULL);
  gst_buffer_memset (in, 0, 3, 8);
  hdr = g_strdup_printf ("%-80s%-80s%-80s", "OBJECT  = 'm31     '",
      "bad key = 1", "EXPTIME =                  4.0");
  hdr[80 + 40] = '\x01';        /* not ASCII text either */
  gst_buffer_add_sci_fits_meta (in, hdr, NULL, 0);
  g_free (hdr);
  fail_unless_equals_int (gst_harness_push (r.h, in), GST_FLOW_OK);
  out = gst_harness_pull (r.h);
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  warn = test_run_warning (&r);
  fail_unless (warn != NULL, "no warning message for the dropped card");
  fail_unless (strstr (warn, "bad key = 1") != NULL, "%s", warn);
  fail_unless (strstr (warn, "card 2") != NULL, "%s", warn);
  fail_if (strstr (warn, "OBJECT") != NULL, "%s", warn);
  g_free (warn);
  fail_unless (test_run_error (&r) == NULL);
  /* a frame without damaged cards posts none */
  in = gst_buffer_new_allocate (NULL, 8, NULL);
  gst_buffer_memset (in, 0, 3, 8);
  fail_unless_equals_int (gst_harness_push (r.h, in), GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (r.h));
  fail_unless (test_run_warning (&r) == NULL);
  test_run_free (&r);
}

GST_END_TEST;

/* A header whose NAXISn cards come after others (as IDL writes them, the
 * real TRACE frame among them) decodes, with a warning; the data are read
 * as they are. */
GST_START_TEST (test_card_order)
{
  const gint w = 5, h = 3;
  guint8 *file = g_malloc0 (2 * 2880);
  guint16 expect[15];
  GPtrArray *bufs, *caps;
  TestRun d;
  gchar *warn, *path;
  const gchar *dir = g_getenv ("SCI_TEST_DATA_DIR");
  gint i;

  memset (file, ' ', 2880);
  memcpy (file + 0 * 80, "SIMPLE  =                    T", 30);
  memcpy (file + 1 * 80, "BITPIX  =                   16", 30);
  memcpy (file + 2 * 80, "NAXIS   =                    2", 30);
  memcpy (file + 3 * 80, "DATE    = '98/05/19, 22:21:43.000'", 34);
  memcpy (file + 4 * 80, "NAXIS1  =                    5", 30);
  memcpy (file + 5 * 80, "NAXIS2  =                    3", 30);
  memcpy (file + 6 * 80, "END", 3);
  for (i = 0; i < w * h; i++) {
    gint16 v = (gint16) (i * 1000 - 7000);

    file[2880 + 2 * i] = (guint8) ((guint16) v >> 8);
    file[2880 + 2 * i + 1] = (guint8) v;
    expect[i] = (guint16) (v + 32768);
  }
  d = test_run_new ("fitsdec", "image/fits");
  caps = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_caps_unref);
  bufs = decode (&d, file, 2 * 2880, 0, caps, NULL);
  fail_unless_equals_int (bufs->len, 1);
  check_frame (bufs->pdata[0], caps->pdata[0], "GRAY16_LE", w, h, expect);
  warn = test_run_warning (&d);
  fail_unless (warn != NULL && strstr (warn, "out of order"), "%s", warn);
  fail_unless (test_run_error (&d) == NULL);
  g_free (warn);
  g_ptr_array_unref (bufs);
  g_ptr_array_unref (caps);
  test_run_free (&d);
  g_free (file);

  /* the real one: TRACE 171 A, 1024 x 1024, NAXISn after DATE and more */
  path = g_build_filename (dir ? dir : "../shared/data", "frames16",
      "trace_171_19980519T222143_1024.fits", NULL);
  if (g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    gchar *data;
    gsize len;

    fail_unless (g_file_get_contents (path, &data, &len, NULL));
    d = test_run_new ("fitsdec", "image/fits");
    caps = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_caps_unref);
    bufs = decode (&d, data, len, 0, caps, NULL);
    fail_unless_equals_int (bufs->len, 1);
    fail_unless_equals_int (gst_buffer_get_size (bufs->pdata[0]),
        1024 * 1024 * 2);
    warn = test_run_warning (&d);
    fail_unless (warn != NULL && strstr (warn, "out of order"), "%s", warn);
    g_free (warn);
    g_ptr_array_unref (bufs);
    g_ptr_array_unref (caps);
    test_run_free (&d);
    g_free (data);
  } else {
    g_print ("%s absent: its check skipped\n", path);
  }
  g_free (path);
}

GST_END_TEST;

/* A zero-length file is an error, whether it comes as an empty buffer
 * (multifilesrc) or as nothing before EOS (filesrc). */
GST_START_TEST (test_empty_input)
{
  TestRun d;
  gchar *err;
  GstFlowReturn flow;

  d = test_run_new ("fitsdec", "image/fits");
  flow = gst_harness_push (d.h, gst_buffer_new ());
  fail_unless_equals_int (flow, GST_FLOW_ERROR);
  err = test_run_error (&d);
  fail_unless (err != NULL, "an empty buffer passed silently");
  fail_unless (strstr (err, "mpty") != NULL, "%s", err);
  g_free (err);
  test_run_free (&d);

  d = test_run_new ("fitsdec", "image/fits");
  gst_harness_push_event (d.h, gst_event_new_eos ());
  err = test_run_error (&d);
  fail_unless (err != NULL, "EOS without input passed silently");
  fail_unless (strstr (err, "mpty") != NULL, "%s", err);
  g_free (err);
  test_run_free (&d);
}

GST_END_TEST;

/* fitsenc is not picked by autoplugging (rank none, as the project's
 * other encoders); fitsdec is. */
GST_START_TEST (test_ranks)
{
  GstElementFactory *enc = gst_element_factory_find ("fitsenc");
  GstElementFactory *dec = gst_element_factory_find ("fitsdec");

  fail_unless (enc && dec);
  fail_unless_equals_int (gst_plugin_feature_get_rank (GST_PLUGIN_FEATURE
          (enc)), GST_RANK_NONE);
  fail_unless_equals_int (gst_plugin_feature_get_rank (GST_PLUGIN_FEATURE
          (dec)), GST_RANK_PRIMARY);
  gst_object_unref (enc);
  gst_object_unref (dec);
}

GST_END_TEST;

/* ---- BITPIX 8 to -64, scaling, checksums ---- */

typedef struct
{
  gint bitpix;
  const gchar *bzero, *bscale;  /* card values, NULL: no card */
  const gchar *format;          /* what fitsdec gives */
  gboolean raster, scaled;      /* application/x-raster; bzero in caps */
  guint64 flip;                 /* sample = stored XOR flip */
} Kind;

static const Kind kinds[] = {
  {8, NULL, NULL, "GRAY8", FALSE, FALSE, 0},
  {8, "-128", NULL, "S8", TRUE, FALSE, 0x80},
  {8, "1.5", "0.25", "U8", TRUE, TRUE, 0},
  {16, "32768", "1", "GRAY16_LE", FALSE, FALSE, 0x8000},
  {16, NULL, NULL, "GRAY16_LE", FALSE, FALSE, 0x8000},
  {16, "100.0", "0.01", "S16LE", TRUE, TRUE, 0},
  {32, NULL, NULL, "S32LE", TRUE, FALSE, 0},
  {32, "2147483648", NULL, "U32LE", TRUE, FALSE, 0x80000000u},
  {32, "-3.0E+05", "1.0E-07", "S32LE", TRUE, TRUE, 0},
  {64, NULL, NULL, "S64LE", TRUE, FALSE, 0},
  {64, "9223372036854775808", "1", "U64LE", TRUE, FALSE,
      G_GUINT64_CONSTANT (0x8000000000000000)},
  {64, "7", "3", "S64LE", TRUE, TRUE, 0},
  {-32, NULL, NULL, "F32LE", TRUE, FALSE, 0},
  {-32, "0.5", "2", "F32LE", TRUE, TRUE, 0},
  {-64, NULL, NULL, "F64LE", TRUE, FALSE, 0},
  {-64, NULL, "1.0000000000000002", "F64LE", TRUE, TRUE, 0},
};

static guint64
xorshift (guint64 * s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* `n` stored values of BITPIX `bitpix`, big-endian as FITS stores them:
 * random bits, the extremes, and for floats NaNs with payloads (quiet and
 * signalling, both signs), infinities, -0 and subnormals. */
static guint8 *
stored_values (gint bitpix, gsize n, guint64 seed)
{
  guint bytes = ABS (bitpix) / 8, k;
  guint8 *d = g_malloc (n * bytes);
  static const guint32 f32[] = { 0x7fc00001, 0x7f800001, 0xffc12345,
    0xff800fff, 0x7f800000, 0xff800000, 0x80000000, 0x00000001, 0x807fffff,
    0x7f7fffff
  };
  static const guint64 f64[] = { G_GUINT64_CONSTANT (0x7ff8000000000001),
    G_GUINT64_CONSTANT (0x7ff0000000000001),
    G_GUINT64_CONSTANT (0xfff8123456789abc),
    G_GUINT64_CONSTANT (0x7ff0000000000000),
    G_GUINT64_CONSTANT (0x8000000000000000), 1
  };
  gsize i;

  for (i = 0; i < n; i++) {
    guint64 v = xorshift (&seed);

    if (i == 0)
      v = G_MAXUINT64;          /* -1, or 255 */
    else if (i == 1)
      v = bitpix > 0 ? G_GUINT64_CONSTANT (1) << (bitpix - 1) : 0;      /* min */
    else if (i == 2)
      v = bitpix > 0 ? (G_GUINT64_CONSTANT (1) << (bitpix - 1)) - 1 : 0;
    else if (bitpix == -32 && i - 3 < G_N_ELEMENTS (f32))
      v = f32[i - 3];
    else if (bitpix == -64 && i - 3 < G_N_ELEMENTS (f64))
      v = f64[i - 3];
    for (k = 0; k < bytes; k++)
      d[i * bytes + k] = (v >> (8 * (bytes - 1 - k))) & 0xff;
  }
  return d;
}

/* A FITS file written by cfitsio: a w x h image of `kind` holding the
 * big-endian stored values `stored`, with CHECKSUM and DATASUM when
 * `checksum` (cfitsio's own). */
static GByteArray *
cfitsio_file (const Kind * kind, gint w, gint h, const guint8 * stored,
    gboolean checksum)
{
  fitsfile *f;
  void *mem = NULL;
  size_t size = 0;
  int status = 0;
  long naxes[2] = { w, h };
  gsize n = (gsize) w * h, i;
  guint bytes = ABS (kind->bitpix) / 8, k;
  guint8 *host = g_malloc (n * bytes);
  static const int types[] = { TBYTE, TSHORT, TINT, TLONGLONG };
  int type;
  GByteArray *a;
  char card[81];

  /* host order for cfitsio */
  for (i = 0; i < n; i++)
    for (k = 0; k < bytes; k++)
      host[i * bytes + k] = stored[i * bytes + (G_BYTE_ORDER ==
              G_LITTLE_ENDIAN ? bytes - 1 - k : k)];
  type = kind->bitpix == -32 ? TFLOAT : kind->bitpix == -64 ? TDOUBLE :
      types[kind->bitpix == 8 ? 0 : kind->bitpix == 16 ? 1 :
      kind->bitpix == 32 ? 2 : 3];
  fits_create_memfile (&f, &mem, &size, 2880, realloc, &status);
  fits_create_img (f, kind->bitpix, 2, naxes, &status);
  if (kind->bzero) {
    g_snprintf (card, sizeof (card), "BZERO   = %20s", kind->bzero);
    fits_write_record (f, card, &status);
  }
  if (kind->bscale) {
    g_snprintf (card, sizeof (card), "BSCALE  = %20s", kind->bscale);
    fits_write_record (f, card, &status);
  }
  fits_write_record (f, "OBSERVER= 'a test  '           / kept through",
      &status);
  fits_set_hdustruc (f, &status);
  fits_set_bscale (f, 1.0, 0.0, &status);
  fits_write_img (f, type, 1, n, host, &status);
  if (checksum)
    fits_write_chksum (f, &status);
  fits_close_file (f, &status);
  fail_unless (status == 0, "cfitsio could not write BITPIX %d: %d",
      kind->bitpix, status);
  a = g_byte_array_new ();
  g_byte_array_append (a, mem, size);
  free (mem);
  g_free (host);
  return a;
}

/* The data unit of HDU `hdu` of a file in memory (offset, padded length). */
static void
data_unit (const guint8 * data, gsize len, gint hdu, gsize * off, gsize * n)
{
  fitsfile *f;
  void *ptr = (void *) data;
  size_t size = len;
  int status = 0;
  LONGLONG head, start, end;

  fits_open_memfile (&f, "t.fits", READONLY, &ptr, &size, 0, NULL, &status);
  fits_movabs_hdu (f, hdu + 1, NULL, &status);
  fits_get_hduaddrll (f, &head, &start, &end, &status);
  fits_close_file (f, &status);
  fail_unless (status == 0);
  *off = start;
  *n = end - start;
}

/* What cfitsio's fits_verify_chksum says of HDU `hdu` (1 good, 0
 * absent, -1 wrong). */
static void
cfitsio_sums (const guint8 * data, gsize len, gint hdu, int *dataok, int *hduok)
{
  fitsfile *f;
  void *ptr = (void *) data;
  size_t size = len;
  int status = 0;

  fits_open_memfile (&f, "t.fits", READONLY, &ptr, &size, 0, NULL, &status);
  fits_movabs_hdu (f, hdu + 1, NULL, &status);
  fits_verify_chksum (f, dataok, hduok, &status);
  fits_close_file (f, &status);
  fail_unless (status == 0);
}

/* fitsverify's verdict on a file, where the tool is installed: TRUE when
 * it finds no error (or is absent). */
static gboolean
fitsverify_ok (const guint8 * data, gsize len)
{
  gchar *tool = g_find_program_in_path ("fitsverify");
  gchar *path, *out = NULL, *argv[5];
  gint fd, status = -1;
  gboolean ok;

  if (!tool)
    return TRUE;
  fd = g_file_open_tmp ("fitsenc-XXXXXX.fits", &path, NULL);
  fail_unless (fd >= 0);
  close (fd);
  fail_unless (g_file_set_contents (path, (const gchar *) data, len, NULL));
  argv[0] = tool;
  argv[1] = (gchar *) "-q";
  argv[2] = (gchar *) "-e";
  argv[3] = path;
  argv[4] = NULL;
  fail_unless (g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL,
          NULL, NULL, &out, NULL, &status, NULL));
  ok = g_spawn_check_wait_status (status, NULL) && out
      && strstr (out, "OK") != NULL;
  if (!ok) {
    g_print ("fitsverify: %s\n", out ? out : "");
    g_file_set_contents ("/tmp/fvfail.fits", (const gchar *) data, len, NULL);
  }
  g_unlink (path);
  g_free (path);
  g_free (out);
  g_free (tool);
  return ok;
}

/* A decoded frame holds the stored values `stored` (XOR the kind's flip,
 * little-endian, rows packed or at the video stride). */
static void
check_samples (const Kind * kind, GstBuffer * buf, GstCaps * caps, gint w,
    gint h, const guint8 * stored)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  guint bytes = ABS (kind->bitpix) / 8, k;
  gsize stride = (gsize) w * bytes;
  GstMapInfo map;
  gint x, y;
  gdouble v;

  fail_unless_equals_string (gst_structure_get_string (s, "format"),
      kind->format);
  fail_unless_equals_string (gst_structure_get_name (s), kind->raster ?
      "application/x-raster" : "video/x-raw");
  fail_unless_equals_int (gst_structure_has_field (s, "bzero"), kind->scaled);
  fail_unless_equals_int (gst_structure_has_field (s, "bscale"), kind->scaled);
  if (kind->scaled) {
    fail_unless (gst_structure_get_double (s, "bzero", &v));
    fail_unless (v == (kind->bzero ? g_ascii_strtod (kind->bzero, NULL) : 0));
    fail_unless (gst_structure_get_double (s, "bscale", &v));
    fail_unless (v == (kind->bscale ? g_ascii_strtod (kind->bscale, NULL) : 1));
  }
  if (!kind->raster) {
    GstVideoInfo info;

    fail_unless (gst_video_info_from_caps (&info, caps));
    stride = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);
  }
  gst_buffer_map (buf, &map, GST_MAP_READ);
  fail_unless (map.size >= stride * (h - 1) + (gsize) w * bytes);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      const guint8 *got = map.data + y * stride + (gsize) x * bytes;
      const guint8 *st = stored + ((gsize) y * w + x) * bytes;
      guint64 a = 0, b = 0;

      for (k = 0; k < bytes; k++) {
        a |= (guint64) got[k] << (8 * k);
        b = b << 8 | st[k];
      }
      if (a != (b ^ kind->flip))
        fail ("BITPIX %d (%s): sample (%d, %d) is %" G_GINT64_MODIFIER
            "x, stored %" G_GINT64_MODIFIER "x", kind->bitpix, kind->format,
            x, y, a, b);
    }
  gst_buffer_unmap (buf, &map);
}

/* Every kind from a cfitsio file through fitsdec (samples, caps, meta),
 * fitsenc (the same data unit byte for byte, the same BITPIX, BZERO,
 * BSCALE, valid checksums, fitsverify) and fitsdec again; both as the
 * primary HDU and as an extension. */
GST_START_TEST (test_bitpix_round_trip)
{
  const gint sizes[][2] = { {1, 1}, {13, 7}, {64, 33} };
  guint i, z, ext;

  for (i = 0; i < G_N_ELEMENTS (kinds); i++)
    for (z = 0; z < G_N_ELEMENTS (sizes); z++) {
      const Kind *kind = &kinds[i];
      gint w = sizes[z][0], h = sizes[z][1];
      guint8 *stored = stored_values (kind->bitpix, (gsize) w * h, i * 7 + z
          + 1);
      GByteArray *file = cfitsio_file (kind, w, h, stored, TRUE);
      gsize off, n;

      data_unit (file->data, file->len, 0, &off, &n);
      fail_unless (memcmp (file->data + off, stored,
              (gsize) w * h * ABS (kind->bitpix) / 8) == 0,
          "cfitsio changed the values it wrote (BITPIX %d)", kind->bitpix);

      for (ext = 0; ext < 2; ext++) {
        TestRun d = test_run_new (ext ? "fitsdec ! fitsenc extension=true" :
            "fitsdec ! fitsenc", "image/fits");
        GPtrArray *enc = decode (&d, file->data, file->len, 0, NULL, NULL);
        GPtrArray *back, *caps;
        GstMapInfo map;
        gsize off2, n2;
        int dataok, hduok;
        gint hh;
        gchar *err = test_run_error (&d);

        fail_unless (err == NULL, "BITPIX %d %s: %s", kind->bitpix,
            kind->format, err);
        test_run_free (&d);
        fail_unless_equals_int (enc->len, 1);
        gst_buffer_map (enc->pdata[0], &map, GST_MAP_READ);
        /* the same stored bytes, padding included */
        data_unit (map.data, map.size, ext, &off2, &n2);
        fail_unless_equals_int (n2, n);
        fail_unless (memcmp (map.data + off2, file->data + off, n) == 0,
            "BITPIX %d %s: the data unit changed", kind->bitpix, kind->format);
        for (hh = 0; hh <= (gint) ext; hh++) {
          cfitsio_sums (map.data, map.size, hh, &dataok, &hduok);
          fail_unless (dataok == 1 && hduok == 1,
              "BITPIX %d HDU %d: DATASUM %d CHECKSUM %d", kind->bitpix, hh,
              dataok, hduok);
        }
        {
          /* the same BITPIX, BZERO and BSCALE to cfitsio */
          fitsfile *f;
          void *ptr = map.data;
          size_t size = map.size;
          int status = 0, bitpix, type;
          gdouble z1 = 0, s1 = 1;
          gchar *obs = NULL;

          fits_open_memfile (&f, "t.fits", READONLY, &ptr, &size, 0, NULL,
              &status);
          fits_movabs_hdu (f, ext + 1, &type, &status);
          fits_get_img_type (f, &bitpix, &status);
          fail_unless_equals_int (bitpix, kind->bitpix);
          if (fits_read_key (f, TDOUBLE, "BZERO", &z1, NULL, &status))
            status = 0;
          if (fits_read_key (f, TDOUBLE, "BSCALE", &s1, NULL, &status))
            status = 0;
          fail_unless (z1 == (kind->bzero ? g_ascii_strtod (kind->bzero,
                      NULL) : 0), "BITPIX %d: BZERO %.17g", kind->bitpix, z1);
          fail_unless (s1 == (kind->bscale ? g_ascii_strtod (kind->bscale,
                      NULL) : 1), "BITPIX %d: BSCALE %.17g", kind->bitpix, s1);
          fits_read_key_longstr (f, "OBSERVER", &obs, NULL, &status);
          fail_unless (status == 0 && obs && strcmp (obs, "a test") == 0);
          fits_free_memory (obs, &status);
          fits_close_file (f, &status);
        }
        if (z == 1)
          fail_unless (fitsverify_ok (map.data, map.size),
              "BITPIX %d %s: fitsverify found errors", kind->bitpix,
              kind->format);

        /* fitsdec again: the stored values, the caps */
        d = test_run_new ("fitsdec", "image/fits");
        caps = g_ptr_array_new_with_free_func ((GDestroyNotify)
            gst_caps_unref);
        back = decode (&d, map.data, map.size, 0, caps, NULL);
        test_run_free (&d);
        gst_buffer_unmap (enc->pdata[0], &map);
        fail_unless_equals_int (back->len, 1);
        check_samples (kind, back->pdata[0], caps->pdata[0], w, h, stored);
        fail_unless (gst_buffer_get_sci_fits_meta ((GstBuffer *)
                back->pdata[0]) != NULL);
        g_ptr_array_unref (back);
        g_ptr_array_unref (caps);
        g_ptr_array_unref (enc);
      }
      g_byte_array_unref (file);
      g_free (stored);
    }
}

GST_END_TEST;

/* The FITS values: where no scaling is in the caps, each sample is what
 * cfitsio reads with the file's own BZERO (unsigned 32- and 64-bit,
 * signed bytes) as a double. */
GST_START_TEST (test_raster_values)
{
  const gint w = 11, h = 5;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (kinds); i++) {
    const Kind *kind = &kinds[i];
    guint8 *stored = stored_values (kind->bitpix, w * h, 99 + i);
    GByteArray *file = cfitsio_file (kind, w, h, stored, FALSE);
    TestRun d = test_run_new ("fitsdec", "image/fits");
    GPtrArray *caps = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_caps_unref);
    GPtrArray *bufs = decode (&d, file->data, file->len, 0, caps, NULL);
    gdouble *phys = g_new (gdouble, w * h);
    fitsfile *f;
    void *ptr = file->data;
    size_t size = file->len;
    int status = 0, anynul;
    GstMapInfo map;
    gint k;

    test_run_free (&d);
    fail_unless_equals_int (bufs->len, 1);
    if (!kind->raster || kind->scaled || kind->bitpix == 64) {
      /* (64-bit values do not fit a double) */
      g_ptr_array_unref (bufs);
      g_ptr_array_unref (caps);
      g_byte_array_unref (file);
      g_free (stored);
      g_free (phys);
      continue;
    }
    fits_open_memfile (&f, "t.fits", READONLY, &ptr, &size, 0, NULL, &status);
    fits_read_img (f, TDOUBLE, 1, w * h, NULL, phys, &anynul, &status);
    fits_close_file (f, &status);
    fail_unless (status == 0);
    gst_buffer_map (bufs->pdata[0], &map, GST_MAP_READ);
    for (k = 0; k < w * h; k++) {
      const guint8 *p = map.data + k * ABS (kind->bitpix) / 8;
      gdouble v;
      guint32 u = GST_READ_UINT32_LE (p);

      if (!strcmp (kind->format, "S8"))
        v = (gint8) p[0];
      else if (!strcmp (kind->format, "S32LE"))
        v = (gint32) u;
      else if (!strcmp (kind->format, "U32LE"))
        v = u;
      else if (!strcmp (kind->format, "F32LE")) {
        gfloat fl;

        memcpy (&fl, &u, 4);
        v = fl;
      } else {
        guint64 u64 = GST_READ_UINT64_LE (p);

        memcpy (&v, &u64, 8);
      }
      if (!(v == phys[k] || (isnan (v) && isnan (phys[k]))))
        fail ("%s sample %d: %.17g, cfitsio %.17g", kind->format, k, v,
            phys[k]);
    }
    gst_buffer_unmap (bufs->pdata[0], &map);
    g_ptr_array_unref (bufs);
    g_ptr_array_unref (caps);
    g_byte_array_unref (file);
    g_free (stored);
    g_free (phys);
  }
}

GST_END_TEST;

/* A file of cfitsio with CHECKSUM and DATASUM: decoded when they match; a
 * byte changed in the data or in the header is an error naming the sum;
 * verify-checksum=false decodes it. */
GST_START_TEST (test_checksum_verify)
{
  const Kind *kind = &kinds[12];        /* F32LE */
  const gint w = 40, h = 30;
  guint8 *stored = stored_values (kind->bitpix, w * h, 5);
  GByteArray *file = cfitsio_file (kind, w, h, stored, TRUE);
  gsize off, n, at;
  guint pass;

  data_unit (file->data, file->len, 0, &off, &n);
  for (pass = 0; pass < 3; pass++) {
    guint8 *c = g_memdup2 (file->data, file->len);
    const gchar *what = NULL;
    GPtrArray *bufs;
    gchar *err, *p;
    TestRun d;

    if (pass == 1) {
      c[off + 4 * 17 + 2] ^= 0x10;      /* a sample */
      what = "DATASUM";
    } else if (pass == 2) {
      /* the comment of the OBSERVER card: still a valid header */
      p = g_strstr_len ((gchar *) c, off, "/ kept through");
      fail_unless (p != NULL);
      p[2] = 'K';
      what = "CHECKSUM";
    }
    d = test_run_new ("fitsdec", "image/fits");
    bufs = decode (&d, c, file->len, 0, NULL, NULL);
    err = test_run_error (&d);
    if (!what) {
      fail_unless (err == NULL, "%s", err);
      fail_unless_equals_int (bufs->len, 1);
    } else {
      fail_unless (err != NULL, "a changed %s passed", what);
      fail_unless (strstr (err, what) != NULL, "%s", err);
      fail_unless (strstr (err, "checksum") != NULL, "%s", err);
      fail_unless_equals_int (bufs->len, 0);
    }
    g_free (err);
    g_ptr_array_unref (bufs);
    test_run_free (&d);

    /* skipped: decoded, the changed sample as it is */
    d = test_run_new ("fitsdec verify-checksum=false", "image/fits");
    bufs = decode (&d, c, file->len, 0, NULL, NULL);
    fail_unless (test_run_error (&d) == NULL);
    fail_unless_equals_int (bufs->len, 1);
    if (pass == 1) {
      GstMapInfo map;

      gst_buffer_map (bufs->pdata[0], &map, GST_MAP_READ);
      at = 4 * 17 + 1;          /* byte 2 of 4 big-endian: 1 little-endian */
      fail_unless_equals_int (map.data[at], c[off + 4 * 17 + 2]);
      gst_buffer_unmap (bufs->pdata[0], &map);
    }
    g_ptr_array_unref (bufs);
    test_run_free (&d);
    g_free (c);
  }
  g_byte_array_unref (file);
  g_free (stored);
}

GST_END_TEST;

/* fitsenc's CHECKSUM and DATASUM: valid to cfitsio over many random
 * frames (every byte value of the encoding), none with checksum=false,
 * and stale ones of the meta never copied. */
GST_START_TEST (test_checksum_write)
{
  guint64 seed = 77;
  guint it;

  for (it = 0; it < 60; it++) {
    gboolean on = it % 10 != 9, ext = it % 3 == 1;
    gint w = 1 + xorshift (&seed) % 50, h = 1 + xorshift (&seed) % 20;
    gchar *launch = g_strdup_printf ("fitsenc checksum=%s extension=%s",
        on ? "true" : "false", ext ? "true" : "false");
    GstHarness *hn = gst_harness_new_parse (launch);
    GstBuffer *in, *out;
    GstMapInfo map;
    gchar *caps, *hdr;
    int dataok, hduok, k;

    caps = g_strdup_printf ("application/x-raster,format=F32LE,width=%d,"
        "height=%d,framerate=0/1", w, h);
    gst_harness_set_src_caps_str (hn, caps);
    g_free (caps);
    in = gst_buffer_new_allocate (NULL, w * h * 4, NULL);
    gst_buffer_map (in, &map, GST_MAP_WRITE);
    for (k = 0; k < w * h * 4; k++)
      map.data[k] = xorshift (&seed);
    gst_buffer_unmap (in, &map);
    hdr = g_strdup_printf ("%-80s%-80s%-80s",
        "CHECKSUM= 'ZZZZZZZZZZZZZZZZ'", "DATASUM = '12345'",
        "OBJECT  = 'x       '");
    gst_buffer_add_sci_fits_meta (in, hdr, hdr, 1);
    g_free (hdr);
    fail_unless_equals_int (gst_harness_push (hn, in), GST_FLOW_OK);
    out = gst_harness_pull (hn);
    gst_harness_teardown (hn);
    g_free (launch);
    gst_buffer_map (out, &map, GST_MAP_READ);
    fail_if (g_strstr_len ((gchar *) map.data, map.size, "ZZZZ") != NULL);
    fail_if (g_strstr_len ((gchar *) map.data, map.size, "'12345") != NULL);
    for (k = 0; k <= (gint) ext; k++) {
      cfitsio_sums (map.data, map.size, k, &dataok, &hduok);
      if (on)
        fail_unless (dataok == 1 && hduok == 1, "frame %u HDU %d: DATASUM "
            "%d CHECKSUM %d", it, k, dataok, hduok);
      else
        fail_unless (dataok == 0 && hduok == 0);
    }
    if (it < 4)
      fail_unless (fitsverify_ok (map.data, map.size));
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
  }
}

GST_END_TEST;

/* The real GMOS-N image as floats (half its values: BITPIX -32 and -64,
 * written by cfitsio): bit-exact through fitsdec ! fitsenc ! fitsdec. */
GST_START_TEST (test_real_float)
{
  GBytes *real = fitsutil_real_file ();
  const guint8 *r;
  gsize rlen;
  guint16 *u16;
  gint w, h, k;

  if (!real)
    return;

  /* GMOS-N's first extension as BITPIX -32 and -64 (physical values) */
  r = g_bytes_get_data (real, &rlen);
  u16 = fitsutil_cfitsio_read (r, rlen, 1, &w, &h, NULL);
  for (k = 0; k < 2; k++) {
    const Kind *kind = &kinds[k ? 14 : 12];
    guint bytes = ABS (kind->bitpix) / 8, b;
    guint8 *stored = g_malloc ((gsize) w * h * bytes);
    GByteArray *file;
    TestRun d;
    GPtrArray *enc, *back, *caps;
    GstMapInfo map;
    gint i;

    for (i = 0; i < w * h; i++) {
      guint64 v;

      if (k) {
        gdouble dv = u16[i] * 0.5;

        memcpy (&v, &dv, 8);
      } else {
        gfloat fv = u16[i] * 0.5f;
        guint32 v32;

        memcpy (&v32, &fv, 4);
        v = v32;
      }
      for (b = 0; b < bytes; b++)
        stored[i * bytes + b] = (v >> (8 * (bytes - 1 - b))) & 0xff;
    }
    file = cfitsio_file (kind, w, h, stored, TRUE);
    d = test_run_new ("fitsdec ! fitsenc", "image/fits");
    enc = decode (&d, file->data, file->len, 0, NULL, NULL);
    test_run_free (&d);
    fail_unless_equals_int (enc->len, 1);
    gst_buffer_map (enc->pdata[0], &map, GST_MAP_READ);
    d = test_run_new ("fitsdec", "image/fits");
    caps = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_caps_unref);
    back = decode (&d, map.data, map.size, 0, caps, NULL);
    test_run_free (&d);
    gst_buffer_unmap (enc->pdata[0], &map);
    fail_unless_equals_int (back->len, 1);
    check_samples (kind, back->pdata[0], caps->pdata[0], w, h, stored);
    g_ptr_array_unref (back);
    g_ptr_array_unref (caps);
    g_ptr_array_unref (enc);
    g_byte_array_unref (file);
    g_free (stored);
  }
  g_free (u16);
  g_bytes_unref (real);
}

GST_END_TEST;

/* fitsenc refuses scaling it cannot write exactly, and raster frames
 * smaller than their caps. */
GST_START_TEST (test_raster_refusals)
{
  TestRun r;
  gchar *err;
  GstBuffer *in;

  r = test_run_new ("fitsenc", "application/x-raster,format=U32LE,width=2,"
      "height=2,bzero=(double)1.5,bscale=(double)1.0");
  in = gst_buffer_new_allocate (NULL, 16, NULL);
  fail_if (gst_harness_push (r.h, in) == GST_FLOW_OK);
  err = test_run_error (&r);
  fail_unless (err && strstr (err, "U32LE"), "%s", err);
  g_free (err);
  test_run_free (&r);

  r = test_run_new ("fitsenc", "application/x-raster,format=F32LE,width=2,"
      "height=2,bscale=(double)0");
  in = gst_buffer_new_allocate (NULL, 16, NULL);
  fail_if (gst_harness_push (r.h, in) == GST_FLOW_OK);
  err = test_run_error (&r);
  fail_unless (err && strstr (err, "bscale"), "%s", err);
  g_free (err);
  test_run_free (&r);

  r = test_run_new ("fitsenc", "application/x-raster,format=F64LE,width=4,"
      "height=3");
  in = gst_buffer_new_allocate (NULL, 4 * 3 * 8 - 1, NULL);
  fail_unless_equals_int (gst_harness_push (r.h, in), GST_FLOW_ERROR);
  err = test_run_error (&r);
  fail_unless (err && strstr (err, "need 96"), "%s", err);
  g_free (err);
  test_run_free (&r);
}

GST_END_TEST;

/* ---- fuzz: truncations and byte flips, an error or a frame ---- */

static void
fuzz_one (const guint8 * data, gsize len, gsize chunk)
{
  GPtrArray *bufs, *caps;
  TestRun d = test_run_new ("fitsdec all-hdus=true", "image/fits");
  guint i;

  caps = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_caps_unref);
  bufs = decode (&d, data, len, chunk, caps, NULL);
  /* (the caps of each frame are not known here: the HDUs may differ) */
  for (i = 0; i < bufs->len; i++) {
    fail_unless (gst_buffer_get_size (bufs->pdata[i]) > 0);
    fail_unless (gst_buffer_get_sci_fits_meta ((GstBuffer *) bufs->pdata[i])
        != NULL);
  }
  g_ptr_array_unref (bufs);
  g_ptr_array_unref (caps);
  test_run_free (&d);
}

GST_START_TEST (test_fuzz)
{
  /* a small file of two images, or the real one */
  const gchar *cards[] = { C_SIMPLE, "BITPIX  =                   16",
    C_NAXIS2, "NAXIS1  =                   21",
    "NAXIS2  =                   13",
    "BZERO   =                32768", "BSCALE  =                    1",
    "EXTEND  =                    T", "OBJECT  = 'test    '", NULL
  };
  const gchar *xcards[] = { "XTENSION= 'IMAGE   '",
    "BITPIX  =                    8", C_NAXIS2,
    "NAXIS1  =                   17", "NAXIS2  =                    9",
    "PCOUNT  =                    0", "GCOUNT  =                    1", NULL
  };
  guint8 px[21 * 13 * 2];
  GByteArray *f, *x;
  GBytes *real = fitsutil_real_file ();
  guint64 seed = 12345;
  guint i, k;
  gsize n;

  for (i = 0; i < sizeof (px); i++)
    px[i] = i * 7;
  f = make_fits (cards, px, sizeof (px));
  x = make_fits (xcards, px, 17 * 9);
  g_byte_array_append (f, x->data, x->len);
  g_byte_array_unref (x);

  fuzz_one (f->data, f->len, 0);
  /* every truncation at 37-byte steps, and at block edges */
  for (n = 0; n < f->len; n += 37)
    fuzz_one (f->data, n, 0);
  for (n = 2880; n < f->len; n += 2880) {
    fuzz_one (f->data, n - 1, 0);
    fuzz_one (f->data, n, 0);
    fuzz_one (f->data, n + 1, 1000);
  }
  /* random byte flips, most in the headers */
  for (i = 0; i < 400; i++) {
    guint8 *c = g_memdup2 (f->data, f->len);
    guint flips = 1 + i % 6;

    for (k = 0; k < flips; k++) {
      gsize pos;

      seed ^= seed << 13;
      seed ^= seed >> 7;
      seed ^= seed << 17;
      pos = (seed >> 8) % (i % 4 ? 2880 : f->len);
      if (i % 3 == 1 && pos < 2880 - 80)
        /* a digit of a value, where the sizes are */
        c[(pos / 80) * 80 + 20 + pos % 10] = '0' + (seed >> 40) % 10;
      else
        c[pos] ^= 1 << ((seed >> 32) & 7);
    }
    fuzz_one (c, f->len, i % 5 == 0 ? 700 : 0);
    g_free (c);
  }
  if (real) {
    const guint8 *r = g_bytes_get_data (real, &n);
    gsize t;

    for (t = 0; t < n; t += 13001)
      fuzz_one (r, t, 0);
    for (i = 0; i < 40; i++) {
      guint8 *c = g_memdup2 (r, n);

      seed ^= seed << 13;
      seed ^= seed >> 7;
      seed ^= seed << 17;
      c[(seed >> 8) % 20000] ^= 1 << ((seed >> 32) & 7);
      fuzz_one (c, n, 0);
      g_free (c);
    }
    g_bytes_unref (real);
  }
  g_byte_array_unref (f);
}

GST_END_TEST;

static Suite *
fits_suite (void)
{
  Suite *s = suite_create ("scicodec-fits");
  TCase *tc = tcase_create ("fits");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_real_file);
  tcase_add_test (tc, test_real_hdus);
  tcase_add_test (tc, test_real_round_trip);
  tcase_add_test (tc, test_synthetic);
  tcase_add_test (tc, test_meta_cards);
  tcase_add_test (tc, test_streaming);
  tcase_add_test (tc, test_refusals);
  tcase_add_test (tc, test_fuzz);
  tcase_add_test (tc, test_damaged_card_warning);
  tcase_add_test (tc, test_card_order);
  tcase_add_test (tc, test_empty_input);
  tcase_add_test (tc, test_ranks);
  tcase_add_test (tc, test_bitpix_round_trip);
  tcase_add_test (tc, test_raster_values);
  tcase_add_test (tc, test_checksum_verify);
  tcase_add_test (tc, test_checksum_write);
  tcase_add_test (tc, test_real_float);
  tcase_add_test (tc, test_raster_refusals);
  return s;
}

GST_CHECK_MAIN (fits);
