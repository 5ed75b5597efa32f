/*
 * dpcmenc and dpcmdec in GstHarness: bit-exact round trips of GRAY16_LE and
 * GRAY8 frames at awkward sizes and parameter corners, the real GMOS-N file
 * (SCI_TEST_DATA_DIR; skipped where absent) through fitsdec ! dpcmenc !
 * dpcmdec ! fitsenc against cfitsio (samples and non-structural cards),
 * signed 16-bit frames (sample-offset), bare application/x-dpcm input in
 * pieces and frames back to back, the typefinder and filesrc, corrupted
 * and truncated frames (an error naming the fault, never output),
 * backend=cuda without a GPU (the error every element gives), and the
 * properties.  The CUDA backend itself is tested on the GPU host
 * (test_elements_gpu.c).
 */
#include "config.h"             /* HAVE_CUDA: which error backend=cuda gives */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/base/gsttypefindhelper.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <string.h>
#include <fitsio.h>

#include "gst/gstscifitsmeta.h"
#include "tests/fits/fitsutil.h"
#include "codec/common/crc32.h"
#include "codec/dpcm/dpcm.h"
#include "dpcm_v5_frame.h"

/* ---- helpers ---- */

static guint32 rng_state = 12345;

static guint32
rnd (void)
{
  rng_state = rng_state * 1664525u + 1013904223u;
  return rng_state >> 8;
}

/* w x h samples below 2^depth: a smooth ramp with noise and outliers. */
static guint16 *
make_samples (gint w, gint h, guint depth)
{
  guint32 maxv = (1u << depth) - 1;
  guint16 *s = g_new (guint16, (gsize) w * h);
  gint x, y;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      guint32 v = (maxv / 4) + (guint32) ((x * 3 + y * 5) % 64) * (maxv / 256)
          + rnd () % 7;
      if (rnd () % 40 == 0)
        v = rnd () % (maxv + 1);
      s[y * w + x] = (guint16) MIN (v, maxv);
    }
  return s;
}

/* A video buffer (stride of GstVideoInfo) holding the samples. */
static GstBuffer *
video_buffer (const gchar * format, gint w, gint h, const guint16 * s)
{
  GstVideoInfo info;
  GstVideoFrame f;
  GstBuffer *b;
  gint x, y;

  gst_video_info_set_format (&info, gst_video_format_from_string (format), w,
      h);
  b = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (b, 0, 0xAB, info.size);
  fail_unless (gst_video_frame_map (&f, &info, b, GST_MAP_WRITE));
  for (y = 0; y < h; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
    for (x = 0; x < w; x++) {
      if (info.finfo->format == GST_VIDEO_FORMAT_GRAY8)
        row[x] = (guint8) s[y * w + x];
      else
        GST_WRITE_UINT16_LE (row + 2 * x, s[y * w + x]);
    }
  }
  gst_video_frame_unmap (&f);
  return b;
}

/* Checks a decoded frame (caps of the harness' sink pad) against s. */
static void
check_video (GstBuffer * b, GstCaps * caps, const gchar * format, gint w,
    gint h, const guint16 * s)
{
  GstVideoInfo info;
  GstVideoFrame f;
  gint x, y;

  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless_equals_string (GST_VIDEO_INFO_NAME (&info), format);
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), w);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), h);
  fail_unless (gst_video_frame_map (&f, &info, b, GST_MAP_READ));
  for (y = 0; y < h; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
    for (x = 0; x < w; x++) {
      guint v = info.finfo->format == GST_VIDEO_FORMAT_GRAY8 ? row[x] :
          GST_READ_UINT16_LE (row + 2 * x);
      if (v != s[y * w + x])
        fail ("%s %dx%d: sample (%d, %d) is %u, expected %u", format, w, h,
            x, y, v, s[y * w + x]);
    }
  }
  gst_video_frame_unmap (&f);
}

static gchar *
video_caps (const gchar * format, gint w, gint h)
{
  return g_strdup_printf ("video/x-raw, format=%s, width=%d, height=%d, "
      "framerate=0/1", format, w, h);
}

/* Encodes one frame with dpcmenc `props`; returns the frame's bytes and
 * its caps in *caps (may be NULL). */
static GBytes *
encode (const gchar * props, const gchar * format, gint w, gint h,
    const guint16 * s, GstCaps ** caps)
{
  gchar *launch = g_strdup_printf ("dpcmenc %s", props);
  gchar *vc = video_caps (format, w, h);
  TestRun r = test_run_new (launch, vc);
  GstBuffer *b;
  GstMapInfo map;
  GBytes *out;

  fail_unless_equals_int (gst_harness_push (r.h, video_buffer (format, w, h,
              s)), GST_FLOW_OK);
  b = gst_harness_pull (r.h);
  if (caps)
    *caps = gst_pad_get_current_caps (r.h->sinkpad);
  gst_buffer_map (b, &map, GST_MAP_READ);
  out = g_bytes_new (map.data, map.size);
  gst_buffer_unmap (b, &map);
  gst_buffer_unref (b);
  test_run_free (&r);
  g_free (launch);
  g_free (vc);
  return out;
}

/* ---- round trips ---- */

static const gint sizes[][2] = {
  {1, 1}, {1, 7}, {7, 1}, {33, 17}, {288, 132},
};

static void
round_trip (const gchar * props, const gchar * format, gint w, gint h)
{
  guint depth = strcmp (format, "GRAY8") == 0 ? 8 : 16;
  guint16 *s = make_samples (w, h, depth);
  gchar *launch = g_strdup_printf ("dpcmenc %s ! dpcmdec", props);
  gchar *vc = video_caps (format, w, h);
  TestRun r = test_run_new (launch, vc);
  GstBuffer *b;
  GstCaps *caps;

  fail_unless_equals_int (gst_harness_push (r.h, video_buffer (format, w, h,
              s)), GST_FLOW_OK);
  b = gst_harness_pull (r.h);
  caps = gst_pad_get_current_caps (r.h->sinkpad);
  check_video (b, caps, format, w, h, s);
  fail_if (gst_buffer_get_sci_fits_meta (b));
  gst_caps_unref (caps);
  gst_buffer_unref (b);
  test_run_free (&r);
  g_free (launch);
  g_free (vc);
  g_free (s);
}

GST_START_TEST (test_round_trip)
{
  static const gchar *formats[] = { "GRAY16_LE", "GRAY8" };
  guint f, i;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (i = 0; i < G_N_ELEMENTS (sizes); i++)
      round_trip ("", formats[f], sizes[i][0], sizes[i][1]);
}

GST_END_TEST;

GST_START_TEST (test_parameters)
{
  static const gchar *props[] = {
    "order=1 equations=1 threshold=0",
    "order=1 equations=64 threshold=65535",
    "order=32 equations=1 threshold=1",
    "order=32 equations=64 threshold=0",
    "order=4 equations=4 threshold=13",
    "scan=columns", "scan=columns order=3 equations=5 threshold=0",
    "backend=cpu", "backend=auto",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (props); i++) {
    round_trip (props[i], "GRAY16_LE", 33, 17);
    round_trip (props[i], "GRAY8", 7, 1);
    round_trip (props[i], "GRAY16_LE", 40, 45);
  }
}

GST_END_TEST;

/* Whether the n bytes at d are what the codec writes for the 33 x 17
 * 8-bit samples s with dpcmenc's default parameters and `scan`. */
static gboolean
same_as_codec (const guint16 * s, guint scan, const guint8 * d, gsize n)
{
  sci_dpcm_params p;
  gsize cap = sci_dpcm_max_bytes (33, 17, 8);
  guint8 *ref = g_malloc (cap);
  gsize rn;
  gboolean same;

  sci_dpcm_params_default (&p);
  p.threshold = 0;              /* dpcmenc's default, not the paper's */
  p.scan = scan;
  rn = sci_dpcm_encode (NULL, s, 33, 33, 17, 8, &p, ref, cap);
  same = rn == n && memcmp (ref, d, n) == 0;
  g_free (ref);
  return same;
}

/* The coded caps, the header's parameters and the frame length. */
GST_START_TEST (test_coded_frames)
{
  guint16 *s = make_samples (33, 17, 8);
  GstCaps *caps;
  GBytes *f;
  const guint8 *d;
  gsize n;
  GstStructure *st;
  gint v, fn, fd;

  f = encode ("order=5 equations=9 threshold=0", "GRAY8", 33, 17, s, &caps);
  st = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_has_name (st, "application/x-dpcm"));
  fail_unless (gst_structure_get_int (st, "width", &v) && v == 33);
  fail_unless (gst_structure_get_int (st, "height", &v) && v == 17);
  fail_unless (gst_structure_get_int (st, "depth", &v) && v == 8);
  fail_unless (gst_structure_get_fraction (st, "framerate", &fn, &fd));
  d = g_bytes_get_data (f, &n);
  fail_unless (n > 48 && memcmp (d, "DPCM", 4) == 0);
  fail_unless_equals_int (d[4], SCI_DPCM_VERSION);
  fail_unless_equals_int (GST_READ_UINT32_LE (d + 40), 0);      /* no metadata */
  fail_unless_equals_int (d[5], 8);
  fail_unless_equals_int (d[6], 5);
  fail_unless_equals_int (d[7], 9);
  fail_unless_equals_int (GST_READ_UINT32_LE (d + 16), 0);
  fail_unless_equals_int (GST_READ_UINT32_LE (d + 44), 0);      /* by rows */
  gst_caps_unref (caps);
  g_bytes_unref (f);

  /* scan=columns: the flag, the frame's own size; and the same bytes as
   * the codec writes */
  f = encode ("scan=columns", "GRAY8", 33, 17, s, NULL);
  d = g_bytes_get_data (f, &n);
  fail_unless_equals_int (GST_READ_UINT32_LE (d + 44), 1);
  fail_unless_equals_int (GST_READ_UINT32_LE (d + 8), 33);
  fail_unless_equals_int (GST_READ_UINT32_LE (d + 12), 17);
  fail_unless (same_as_codec (s, SCI_DPCM_SCAN_COLUMNS, d, n));
  g_bytes_unref (f);

  /* scan=auto, the default: a frame smooth down its columns and not along
   * its rows is coded by columns, the bytes the codec's AUTO writes */
  {
    guint16 *vs = g_new (guint16, 33 * 17);
    guint x, y;

    for (y = 0; y < 17; y++)
      for (x = 0; x < 33; x++)
        vs[y * 33 + x] = ((x * 97) % 256) ^ (y & 1);
    f = encode ("", "GRAY8", 33, 17, vs, NULL);
    d = g_bytes_get_data (f, &n);
    fail_unless_equals_int (GST_READ_UINT32_LE (d + 44), 1);
    fail_unless (same_as_codec (vs, SCI_DPCM_SCAN_AUTO, d, n));
    g_free (vs);
    g_bytes_unref (f);
  }
  g_free (s);
}

GST_END_TEST;

/* Signed 16-bit frames: sample-offset on both sides, and in the frame. */
GST_START_TEST (test_sample_offset)
{
  guint16 *s = make_samples (33, 17, 16);
  TestRun r = test_run_new ("dpcmenc ! dpcmdec",
      "video/x-raw, format=GRAY16_LE, width=33, height=17, framerate=5/1, "
      "sample-offset=32768");
  GstBuffer *b;
  GstCaps *caps;
  GBytes *f;
  gint off, fn, fd;

  fail_unless_equals_int (gst_harness_push (r.h, video_buffer ("GRAY16_LE",
              33, 17, s)), GST_FLOW_OK);
  b = gst_harness_pull (r.h);
  caps = gst_pad_get_current_caps (r.h->sinkpad);
  check_video (b, caps, "GRAY16_LE", 33, 17, s);
  fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          "sample-offset", &off) && off == 32768);
  fail_unless (gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
          "framerate", &fn, &fd) && fn == 5 && fd == 1);
  gst_caps_unref (caps);
  gst_buffer_unref (b);
  test_run_free (&r);

  /* from the frame alone (bare caps): the metadata section says it */
  {
    GstCaps *ec;
    TestRun e = test_run_new ("dpcmenc",
        "video/x-raw, format=GRAY16_LE, width=33, "
        "height=17, framerate=0/1, sample-offset=32768");
    GstMapInfo map;

    gst_harness_push (e.h, video_buffer ("GRAY16_LE", 33, 17, s));
    b = gst_harness_pull (e.h);
    ec = gst_pad_get_current_caps (e.h->sinkpad);
    fail_unless (gst_structure_get_int (gst_caps_get_structure (ec, 0),
            "sample-offset", &off) && off == 32768);
    gst_caps_unref (ec);
    gst_buffer_map (b, &map, GST_MAP_READ);
    fail_unless_equals_int (map.data[4], SCI_DPCM_VERSION);
    /* a SOFF record: tag, length 4, the offset */
    fail_unless_equals_int (GST_READ_UINT32_LE (map.data + 40), 12);
    fail_unless (memcmp (map.data + SCI_DPCM_HEADER_BYTES, "SOFF", 4) == 0);
    fail_unless_equals_int (GST_READ_UINT32_LE (map.data +
            SCI_DPCM_HEADER_BYTES + 8), 32768);
    f = g_bytes_new (map.data, map.size);
    gst_buffer_unmap (b, &map);
    gst_buffer_unref (b);
    test_run_free (&e);
  }
  r = test_run_new ("dpcmdec", "application/x-dpcm");
  fail_unless_equals_int (gst_harness_push (r.h,
          gst_buffer_new_wrapped_bytes (f)), GST_FLOW_OK);
  b = gst_harness_pull (r.h);
  caps = gst_pad_get_current_caps (r.h->sinkpad);
  check_video (b, caps, "GRAY16_LE", 33, 17, s);
  fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          "sample-offset", &off) && off == 32768);
  gst_caps_unref (caps);
  gst_buffer_unref (b);
  test_run_free (&r);
  g_bytes_unref (f);
  g_free (s);
}

GST_END_TEST;

/* Bare caps, frames of different sizes back to back in one buffer, then
 * the same bytes in 7-byte pieces. */
GST_START_TEST (test_stream)
{
  guint16 *s1 = make_samples (33, 17, 16), *s2 = make_samples (7, 1, 8);
  GBytes *f1 = encode ("", "GRAY16_LE", 33, 17, s1, NULL);
  GBytes *f2 = encode ("threshold=0", "GRAY8", 7, 1, s2, NULL);
  GByteArray *all = g_byte_array_new ();
  gsize n1, n2, chunk;
  const guint8 *d1 = g_bytes_get_data (f1, &n1), *d2 =
      g_bytes_get_data (f2, &n2);

  g_byte_array_append (all, d1, n1);
  g_byte_array_append (all, d2, n2);
  g_byte_array_append (all, d1, n1);
  for (chunk = 0; chunk <= 7; chunk += 7) {
    TestRun r = test_run_new ("dpcmdec", "application/x-dpcm");
    gsize off, step = chunk ? chunk : all->len;
    GstBuffer *b;
    GstCaps *caps;
    guint k;

    for (off = 0; off < all->len; off += step)
      fail_unless_equals_int (gst_harness_push (r.h,
              gst_buffer_new_memdup (all->data + off, MIN (step,
                      all->len - off))), GST_FLOW_OK);
    gst_harness_push_event (r.h, gst_event_new_eos ());
    for (k = 0; k < 3; k++) {
      /* the harness keeps only the last caps: each frame's are known */
      gchar *vc = k == 1 ? video_caps ("GRAY8", 7, 1) :
          video_caps ("GRAY16_LE", 33, 17);

      b = gst_harness_pull (r.h);
      fail_unless (b != NULL);
      caps = gst_caps_from_string (vc);
      fail_unless_equals_int (gst_buffer_get_size (b), k == 1 ? 8 : 68 * 17);
      if (k == 1)
        check_video (b, caps, "GRAY8", 7, 1, s2);
      else
        check_video (b, caps, "GRAY16_LE", 33, 17, s1);
      gst_caps_unref (caps);
      gst_buffer_unref (b);
      g_free (vc);
    }
    caps = gst_pad_get_current_caps (r.h->sinkpad);
    fail_unless (caps != NULL);
    {
      gint w;

      fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
              "width", &w) && w == 33);
    }
    gst_caps_unref (caps);
    fail_unless (gst_harness_try_pull (r.h) == NULL);
    fail_unless (test_run_error (&r) == NULL);
    {
      /* downstream saw the frames' own caps only, the first before the
       * segment: no placeholder from the bare input caps */
      GstEvent *ev;
      guint ncaps = 0;
      gboolean segment = FALSE;

      while ((ev = gst_harness_try_pull_event (r.h))) {
        if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
          GstCaps *c;
          gint w, h;

          gst_event_parse_caps (ev, &c);
          fail_unless (gst_structure_get_int (gst_caps_get_structure (c, 0),
                  "width", &w) && gst_structure_get_int
              (gst_caps_get_structure (c, 0), "height", &h));
          fail_unless (ncaps == 1 ? w == 7 && h == 1 : w == 33 && h == 17);
          if (ncaps == 0)
            fail_if (segment, "the segment went before the caps");
          ncaps++;
        } else if (GST_EVENT_TYPE (ev) == GST_EVENT_SEGMENT) {
          segment = TRUE;
        }
        gst_event_unref (ev);
      }
      fail_unless_equals_int (ncaps, 3);
    }
    test_run_free (&r);
  }
  g_byte_array_unref (all);
  g_bytes_unref (f1);
  g_bytes_unref (f2);
  g_free (s1);
  g_free (s2);
}

GST_END_TEST;

/* ---- corrupt input ---- */

/* Pushes `data` (len bytes) to dpcmdec, then EOS; expects an error whose
 * text has `what`, and no output. */
static void
expect_decode_error (const guint8 * data, gsize len, const gchar * what)
{
  TestRun r = test_run_new ("dpcmdec", "application/x-dpcm");
  gchar *err;

  gst_harness_push (r.h, gst_buffer_new_memdup (data, len));
  gst_harness_push_event (r.h, gst_event_new_eos ());
  fail_unless (gst_harness_try_pull (r.h) == NULL, "%s: output", what);
  err = test_run_error (&r);
  fail_unless (err != NULL, "%s: no error", what);
  fail_unless (strstr (err, "Corrupt DPCM frame") != NULL, "%s: %s", what, err);
  fail_unless (strstr (err, what) != NULL, "expected '%s' in: %s", what, err);
  g_free (err);
  test_run_free (&r);
}

GST_START_TEST (test_corrupt)
{
  guint16 *s = make_samples (33, 17, 16);
  GBytes *f = encode ("", "GRAY16_LE", 33, 17, s, NULL);
  gsize n, i;
  const guint8 *d = g_bytes_get_data (f, &n);
  guint8 *t = g_malloc (n);
  const gsize at[] = { 8, 20, 44, 60, n / 2, n - 5, n - 1 };

  /* a flipped byte of a field, the sections or the CRC itself (the flags
   * at 44: the header check first) */
  for (i = 0; i < G_N_ELEMENTS (at); i++) {
    memcpy (t, d, n);
    t[at[i]] ^= 0x5A;
    expect_decode_error (t, n, at[i] == 20 ? "" : at[i] == 44 ?
        "reserved flag bits set" : "CRC mismatch");
  }
  /* header fields the header checks catch before the CRC */
  memcpy (t, d, n);
  t[0] = 'X';
  expect_decode_error (t, n, "bad magic");
  memcpy (t, d, n);
  t[5] = 0;
  expect_decode_error (t, n, "invalid bit depth");
  memcpy (t, d, n);
  t[4] = 9;
  expect_decode_error (t, n, "unsupported format version");
  memcpy (t, d, n);
  t[4] = 2;                     /* the former version with metadata */
  expect_decode_error (t, n, "unsupported format version");
  memcpy (t, d, n);
  GST_WRITE_UINT32_LE (t + 8, 0);
  expect_decode_error (t, n, "invalid frame dimensions");
  /* truncated: the end missing, only part of the header, one byte */
  expect_decode_error (d, n - 10, "truncated");
  expect_decode_error (d, 20, "truncated");
  expect_decode_error (d, 1, "truncated");
  /* a whole frame then a partial one: one frame out, then the error */
  {
    TestRun r = test_run_new ("dpcmdec", "application/x-dpcm");
    GstBuffer *b;
    gchar *err;

    fail_unless_equals_int (gst_harness_push (r.h,
            gst_buffer_new_memdup (d, n)), GST_FLOW_OK);
    gst_harness_push (r.h, gst_buffer_new_memdup (d, n / 2));
    gst_harness_push_event (r.h, gst_event_new_eos ());
    b = gst_harness_pull (r.h);
    gst_buffer_unref (b);
    fail_unless (gst_harness_try_pull (r.h) == NULL);
    err = test_run_error (&r);
    fail_unless (err && strstr (err, "truncated"), "%s", err);
    g_free (err);
    test_run_free (&r);
  }
  g_free (t);
  g_bytes_unref (f);
  g_free (s);
}

GST_END_TEST;

/* ---- backend, properties, typefinder ---- */

/* backend=cuda without a usable device is refused at start as by every
 * element (a build without CUDA says so); where it starts, a GPU is there
 * and the gpu suite covers it.  auto runs the CPU without a device. */
GST_START_TEST (test_backend_cuda)
{
  static const gchar *names[] = { "dpcmenc", "dpcmdec" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstElement *e = gst_element_factory_make (names[i], NULL);
    GstBus *bus = gst_bus_new ();
    GstMessage *m;
    GError *err = NULL;

    fail_unless (e != NULL);
    gst_element_set_bus (e, bus);
    gst_util_set_object_arg (G_OBJECT (e), "backend", "cuda");
    if (gst_element_set_state (e, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE) {
      g_print ("%s backend=cuda started: a GPU is there (gpu suite)\n",
          names[i]);
    } else {
      m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      fail_unless (m != NULL);
      gst_message_parse_error (m, &err, NULL);
      fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
              GST_RESOURCE_ERROR_NOT_FOUND), "%s: %s", names[i], err->message);
#if HAVE_CUDA
      fail_unless (strstr (err->message, "no usable CUDA device") != NULL,
          "%s: %s", names[i], err->message);
#else
      fail_unless (strstr (err->message, "this build has no CUDA backend")
          != NULL, "%s: %s", names[i], err->message);
#endif
      g_error_free (err);
      gst_message_unref (m);
    }
    gst_element_set_state (e, GST_STATE_NULL);
    /* auto starts, on the GPU or the CPU */
    gst_util_set_object_arg (G_OBJECT (e), "backend", "auto");
    fail_unless (gst_element_set_state (e, GST_STATE_PAUSED) !=
        GST_STATE_CHANGE_FAILURE);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_element_set_bus (e, NULL);
    gst_object_unref (bus);
    gst_object_unref (e);
  }
}

GST_END_TEST;

static void
check_uint_prop (GObject * o, const gchar * name, guint min, guint max,
    guint def)
{
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (o), name);
  GParamSpecUInt *u;

  fail_unless (p != NULL && G_IS_PARAM_SPEC_UINT (p), "%s", name);
  u = G_PARAM_SPEC_UINT (p);
  fail_unless_equals_int (u->minimum, min);
  fail_unless_equals_int (u->maximum, max);
  fail_unless_equals_int (u->default_value, def);
}

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("dpcmenc", NULL);
  gchar *out = NULL, *argv[] = { (gchar *) "gst-inspect-1.0",
    (gchar *) "dpcmenc", NULL
  };
  gint status;
  guint v;

  check_uint_prop (G_OBJECT (e), "order", 1, 32, 11);
  check_uint_prop (G_OBJECT (e), "equations", 1, 64, 7);
  /* the blurbs say what order and equations trade, and good values */
  {
    static const gchar *const names[] = { "order", "equations" };
    guint k;

    for (k = 0; k < G_N_ELEMENTS (names); k++) {
      const gchar *b = g_param_spec_get_blurb (g_object_class_find_property
          (G_OBJECT_GET_CLASS (e), names[k]));

      fail_unless (strstr (b, "Trades") != NULL && strstr (b, "time")
          != NULL && strstr (b, "Good values") != NULL, "%s: %s", names[k], b);
    }
  }
  check_uint_prop (G_OBJECT (e), "threshold", 0, 65535, 0);
  {
    GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        "scan");
    gint scan;

    fail_unless (ps && G_IS_PARAM_SPEC_ENUM (ps));
    fail_unless_equals_int (G_PARAM_SPEC_ENUM (ps)->default_value,
        SCI_DPCM_SCAN_AUTO);
    gst_util_set_object_arg (G_OBJECT (e), "scan", "columns");
    g_object_get (e, "scan", &scan, NULL);
    fail_unless_equals_int (scan, SCI_DPCM_SCAN_COLUMNS);
    gst_util_set_object_arg (G_OBJECT (e), "scan", "rows");
    g_object_get (e, "scan", &scan, NULL);
    fail_unless_equals_int (scan, SCI_DPCM_SCAN_ROWS);
  }
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          "backend"));
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          "cuda-device-id"));
  g_object_set (e, "order", 32, "equations", 64, "threshold", 0, NULL);
  g_object_get (e, "order", &v, NULL);
  fail_unless_equals_int (v, 32);
  gst_object_unref (e);
  e = gst_element_factory_make ("dpcmdec", NULL);
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          "backend"));
  gst_object_unref (e);

  /* what gst-inspect shows, where it is installed */
  if (g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
          G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, NULL)
      && status == 0) {
    fail_unless (strstr (out, "application/x-dpcm") != NULL);
    fail_unless (strstr (out, "order") != NULL);
    fail_unless (strstr (out, "equations") != NULL);
    fail_unless (strstr (out, "threshold") != NULL);
    fail_unless (strstr (out, "scan") != NULL);
    fail_unless (strstr (out, "backend") != NULL);
    fail_unless (strstr (out, "cuda-device-id") != NULL);
  } else {
    g_print ("gst-inspect-1.0 not run: its part skipped\n");
  }
  g_free (out);
}

GST_END_TEST;

static GstPadProbeReturn
keep_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user)
{
  GPtrArray *a = user;

  g_ptr_array_add (a, gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info)));
  g_ptr_array_add (a, gst_pad_get_current_caps (pad));
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_typefind_filesrc)
{
  guint16 *s = make_samples (288, 132, 16);
  GBytes *f = encode ("", "GRAY16_LE", 288, 132, s, NULL);
  gsize n;
  const guint8 *d = g_bytes_get_data (f, &n);
  GstTypeFindProbability prob;
  GstCaps *caps = gst_type_find_helper_for_data (NULL, d, n, &prob);
  gchar *dir = g_dir_make_tmp ("dpcm-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "f.dpcm", NULL), *launch;
  GstElement *pipe, *sink;
  GstPad *pad;
  GstMessage *m;
  GPtrArray *got = g_ptr_array_new ();

  fail_unless (caps != NULL);
  fail_unless (gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "application/x-dpcm"));
  fail_unless_equals_int (prob, GST_TYPE_FIND_MAXIMUM);
  gst_caps_unref (caps);
  /* only the start of a frame: possible for version 3, nothing for the
   * former versions 1 and 2 */
  {
    guint8 head[6];

    memcpy (head, d, 6);
    caps = gst_type_find_helper_for_data (NULL, head, 6, &prob);
    fail_unless (caps != NULL);
    fail_unless_equals_int (prob, GST_TYPE_FIND_POSSIBLE);
    gst_caps_unref (caps);
    head[4] = 2;
    caps = gst_type_find_helper_for_data (NULL, head, 6, &prob);
    fail_unless (caps == NULL || !gst_structure_has_name
        (gst_caps_get_structure (caps, 0), "application/x-dpcm"));
    if (caps)
      gst_caps_unref (caps);
  }

  /* filesrc reads 4 KiB blocks: dpcmdec gathers the frame */
  fail_unless (g_file_set_contents (path, (const gchar *) d, n, NULL));
  launch = g_strdup_printf ("filesrc location=\"%s\" ! dpcmdec ! "
      "fakesink name=sink", path);
  pipe = gst_parse_launch (launch, NULL);
  fail_unless (pipe != NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, keep_buffer, got, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  fail_unless_equals_int (got->len, 2);
  check_video (got->pdata[0], got->pdata[1], "GRAY16_LE", 288, 132, s);
  gst_buffer_unref (got->pdata[0]);
  gst_caps_unref (got->pdata[1]);
  g_ptr_array_unref (got);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_unlink (path);
  g_rmdir (dir);
  g_free (launch);
  g_free (path);
  g_free (dir);
  g_bytes_unref (f);
  g_free (s);
}

GST_END_TEST;

/* ---- negotiation: caps from frames only, refusals, empty input ---- */

/* Pops every event the harness' sink got; fails on caps that do not
 * describe a GRAY16_LE frame of w x h, and returns how many caps came. */
static guint
check_caps_events (GstHarness * h, gint w, gint ht)
{
  GstEvent *ev;
  guint n = 0;

  while ((ev = gst_harness_try_pull_event (h))) {
    if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
      GstCaps *c;
      GstStructure *st;
      gint cw = 0, ch = 0;

      gst_event_parse_caps (ev, &c);
      st = gst_caps_get_structure (c, 0);
      fail_unless (gst_structure_get_int (st, "width", &cw)
          && gst_structure_get_int (st, "height", &ch));
      fail_unless (cw == w && ch == ht, "caps before the frame's: %"
          GST_PTR_FORMAT, c);
      n++;
    }
    gst_event_unref (ev);
  }
  return n;
}

static GstPadProbeReturn
keep_caps (GstPad * pad, GstPadProbeInfo * info, gpointer user)
{
  GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);

  if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
    GstCaps *c;

    gst_event_parse_caps (ev, &c);
    g_ptr_array_add (user, gst_caps_ref (c));
  }
  return GST_PAD_PROBE_OK;
}

/* Every error message on the bus, as "message (debug)". */
static GPtrArray *
all_errors (GstBus * bus)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  GstMessage *m;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (m, &err, &dbg);
    g_ptr_array_add (a, g_strdup_printf ("%s (%s)", err->message,
            dbg ? dbg : ""));
    g_error_free (err);
    g_free (dbg);
    gst_message_unref (m);
  }
  return a;
}

/* Runs `launch` (a fakesink named "sink") to EOS or the first error:
 * the error text (NULL at EOS), the number of buffers and the caps that
 * reached the sink. */
static gchar *
run_launch (const gchar * launch, guint * buffers, GPtrArray * caps)
{
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *sink;
  GstPad *pad;
  GstMessage *m;
  GPtrArray *got = g_ptr_array_new ();
  gchar *error = NULL;
  guint i;

  fail_unless (pipe != NULL, "%s", launch);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, keep_buffer, got, NULL);
  if (caps)
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, keep_caps,
        caps, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "%s: neither EOS nor an error", launch);
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *err = NULL;

    gst_message_parse_error (m, &err, NULL);
    error = g_strdup (err->message);
    g_error_free (err);
  }
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  /* keep_buffer stores each buffer with its caps */
  *buffers = got->len / 2;
  for (i = 0; i < got->len; i += 2) {
    gst_buffer_unref (got->pdata[i]);
    if (got->pdata[i + 1])
      gst_caps_unref (got->pdata[i + 1]);
  }
  g_ptr_array_unref (got);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return error;
}

/* Whether backend=cuda starts here (a usable GPU). */
static gboolean
gpu_usable (void)
{
  GstElement *e = gst_element_factory_make ("dpcmdec", NULL);
  GstBus *bus = gst_bus_new ();
  gboolean ok;

  gst_element_set_bus (e, bus);
  gst_util_set_object_arg (G_OBJECT (e), "backend", "cuda");
  ok = gst_element_set_state (e, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE;
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  return ok;
}

/* Input caps with every field (fixated upstream into placeholders, or
 * simply wrong) never reach downstream: the caps come from the frame
 * header only.  multifilesrc caps=application/x-dpcm once fixated the
 * fields dpcmdec offered it into width=1, height=1, which went out before
 * the first frame. */
GST_START_TEST (test_caps_from_frames)
{
  guint16 *s = make_samples (33, 17, 16);
  GBytes *f = encode ("", "GRAY16_LE", 33, 17, s, NULL);
  gsize n;
  const guint8 *d = g_bytes_get_data (f, &n);
  gchar *dir = g_dir_make_tmp ("dpcm-XXXXXX", NULL);
  gchar *launch, *err;
  GPtrArray *caps = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_caps_unref);
  guint k, buffers;

  {
    TestRun r = test_run_new ("dpcmdec", "application/x-dpcm, width=(int)1, "
        "height=(int)1, depth=(int)16, framerate=(fraction)0/1");
    GstBuffer *b;
    GstCaps *c;

    for (k = 0; k < 2; k++) {
      fail_unless_equals_int (gst_harness_push (r.h,
              gst_buffer_new_memdup (d, n)), GST_FLOW_OK);
      b = gst_harness_pull (r.h);
      c = gst_pad_get_current_caps (r.h->sinkpad);
      check_video (b, c, "GRAY16_LE", 33, 17, s);
      gst_caps_unref (c);
      gst_buffer_unref (b);
    }
    fail_unless_equals_int (check_caps_events (r.h, 33, 17), 1);
    fail_unless (test_run_error (&r) == NULL);
    test_run_free (&r);
  }

  /* the pipeline of docs/elements.md, files of one frame each */
  for (k = 0; k < 2; k++) {
    gchar *name = g_strdup_printf ("%s/f-%05u.dpcm", dir, k);

    fail_unless (g_file_set_contents (name, (const gchar *) d, n, NULL));
    g_free (name);
  }
  launch = g_strdup_printf ("multifilesrc location=\"%s/f-%%05d.dpcm\" "
      "caps=application/x-dpcm ! dpcmdec ! fakesink name=sink", dir);
  err = run_launch (launch, &buffers, caps);
  fail_unless (err == NULL, "%s", err);
  fail_unless_equals_int (buffers, 2);
  fail_unless (caps->len >= 1);
  for (k = 0; k < caps->len; k++) {
    GstStructure *st = gst_caps_get_structure (caps->pdata[k], 0);
    gint w = 0, h = 0;

    fail_unless (gst_structure_get_int (st, "width", &w)
        && gst_structure_get_int (st, "height", &h));
    fail_unless (w == 33 && h == 17, "caps %u: %" GST_PTR_FORMAT, k,
        caps->pdata[k]);
  }
  for (k = 0; k < 2; k++) {
    gchar *name = g_strdup_printf ("%s/f-%05u.dpcm", dir, k);

    g_unlink (name);
    g_free (name);
  }
  g_rmdir (dir);
  g_free (dir);
  g_free (launch);
  g_ptr_array_unref (caps);
  g_bytes_unref (f);
  g_free (s);
}

GST_END_TEST;

/* Downstream refusing the frame's caps is that error alone: the frames
 * still waiting are not reported as corrupt or truncated at the end of the
 * stream.  Without a GPU, downstream taking only CUDA memory is told as
 * such. */
GST_START_TEST (test_refused_caps)
{
  guint16 *s = make_samples (33, 17, 16);
  GBytes *f = encode ("", "GRAY16_LE", 33, 17, s, NULL);
  gsize n;
  const guint8 *d = g_bytes_get_data (f, &n);
  GByteArray *all = g_byte_array_new ();
  const gchar *launches[] = {
    "dpcmdec ! capsfilter caps=video/x-raw,format=GRAY8",
    "dpcmdec ! capsfilter caps=\"video/x-raw(memory:CUDAMemory)\"",
  };
  gboolean gpu = gpu_usable ();
  guint k, chunk;

  /* two frames and half of a third */
  g_byte_array_append (all, d, n);
  g_byte_array_append (all, d, n);
  g_byte_array_append (all, d, n / 2);
  for (k = 0; k < G_N_ELEMENTS (launches); k++) {
#if !HAVE_CUDA
    if (k == 1) {
      g_print ("no CUDA build: the CUDA-memory part is skipped\n");
      continue;
    }
#endif
    if (k == 1 && gpu) {
      g_print ("a GPU is there: the no-GPU part is skipped\n");
      continue;
    }
    for (chunk = 0; chunk <= 100; chunk += 100) {
      TestRun r = test_run_new (launches[k], "application/x-dpcm");
      gsize off, step = chunk ? chunk : all->len;
      GPtrArray *errs;
      GstFlowReturn ret = GST_FLOW_OK;

      for (off = 0; off < all->len && ret == GST_FLOW_OK; off += step)
        ret = gst_harness_push (r.h, gst_buffer_new_memdup (all->data + off,
                MIN (step, all->len - off)));
      fail_if (ret == GST_FLOW_OK, "%s: the frame went through", launches[k]);
      gst_harness_push_event (r.h, gst_event_new_eos ());
      fail_unless (gst_harness_try_pull (r.h) == NULL);
      errs = all_errors (r.bus);
      fail_unless_equals_int (errs->len, 1);
      fail_unless (strstr (errs->pdata[0], "Corrupt") == NULL, "%s",
          (gchar *) errs->pdata[0]);
      if (k == 0)
        fail_unless (strstr (errs->pdata[0], "Downstream refused") != NULL,
            "%s", (gchar *) errs->pdata[0]);
      else
        fail_unless (strstr (errs->pdata[0], "Downstream takes only CUDA "
                "memory") != NULL && strstr (errs->pdata[0],
                "runs on the CPU") != NULL, "%s", (gchar *) errs->pdata[0]);
      g_ptr_array_unref (errs);
      test_run_free (&r);
    }
  }
  g_byte_array_unref (all);
  g_bytes_unref (f);
  g_free (s);
}

GST_END_TEST;

/* A zero-length input is an error, not a silent end. */
GST_START_TEST (test_empty_input)
{
  gchar *dir = g_dir_make_tmp ("dpcm-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "empty.dpcm", NULL);
  gchar *launch, *err;
  guint k, buffers;

  for (k = 0; k < 2; k++) {
    TestRun r = test_run_new ("dpcmdec", "application/x-dpcm");

    /* nothing at all; a buffer of no bytes (multifilesrc's empty file) */
    if (k == 1)
      fail_unless_equals_int (gst_harness_push (r.h, gst_buffer_new ()),
          GST_FLOW_OK);
    gst_harness_push_event (r.h, gst_event_new_eos ());
    err = test_run_error (&r);
    fail_unless (err != NULL && strstr (err, "empty") != NULL, "%s", err);
    g_free (err);
    test_run_free (&r);
  }
  fail_unless (g_file_set_contents (path, "", 0, NULL));
  launch = g_strdup_printf ("filesrc location=\"%s\" ! dpcmdec ! "
      "fakesink name=sink", path);
  err = run_launch (launch, &buffers, NULL);
  fail_unless (err != NULL && strstr (err, "empty") != NULL, "%s", err);
  fail_unless_equals_int (buffers, 0);
  g_free (err);
  g_free (launch);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

/* ---- alignment ---- */

/* A buffer holding a copy of `len` bytes at an odd address. */
static GstBuffer *
odd_buffer (gconstpointer data, gsize len)
{
  guint8 *mem = g_malloc (len + 1);

  memcpy (mem + 1, data, len);
  return gst_buffer_new_wrapped_full (0, mem, len + 1, 1, len, mem, g_free);
}

/* Frames and frame rows at odd addresses, and metadata records at odd
 * offsets: the same results as aligned ones.  The fields there were read
 * with GST_READ_UINT32_LE / GST_READ_UINT16_LE, plain misaligned loads on
 * x86 (undefined behaviour that a -fsanitize=alignment build of this test
 * reports). */
GST_START_TEST (test_unaligned)
{
  guint16 *s = make_samples (33, 17, 16);
  /* an unknown 1-byte record first puts the SOFF record at an odd offset */
  static const guint8 meta[] = {
    'X', 'P', 'A', 'D', 1, 0, 0, 0, 0x5A,
    'S', 'O', 'F', 'F', 4, 0, 0, 0, 0x00, 0x80, 0x00, 0x00,
  };
  sci_dpcm_params p;
  gsize cap = sci_dpcm_max_bytes (33, 17, 16) + sizeof meta, n;
  guint8 *frame = g_malloc (cap);
  GstBuffer *in, *b;
  GstCaps *caps;
  gint offset = 0;
  GBytes *ref;

  sci_dpcm_params_default (&p);
  n = sci_dpcm_encode_meta (NULL, s, 33, 33, 17, 16, &p, meta, sizeof meta,
      frame, cap);
  fail_unless (n > 0);
  {
    TestRun r = test_run_new ("dpcmdec", "application/x-dpcm");

    in = odd_buffer (frame, n);
    fail_unless_equals_int (gst_harness_push (r.h, in), GST_FLOW_OK);
    b = gst_harness_pull (r.h);
    caps = gst_pad_get_current_caps (r.h->sinkpad);
    check_video (b, caps, "GRAY16_LE", 33, 17, s);
    fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
            "sample-offset", &offset));
    fail_unless_equals_int (offset, 32768);
    gst_caps_unref (caps);
    gst_buffer_unref (b);
    fail_unless (test_run_error (&r) == NULL);
    test_run_free (&r);
  }
  /* rows at an odd address: the encoder packs them, to the same bytes */
  ref = encode ("", "GRAY16_LE", 33, 17, s, NULL);
  {
    gchar *vc = video_caps ("GRAY16_LE", 33, 17);
    TestRun r = test_run_new ("dpcmenc", vc);
    GstBuffer *aligned = video_buffer ("GRAY16_LE", 33, 17, s);
    GstMapInfo map;
    GBytes *got;

    fail_unless (gst_buffer_map (aligned, &map, GST_MAP_READ));
    in = odd_buffer (map.data, map.size);
    gst_buffer_unmap (aligned, &map);
    gst_buffer_unref (aligned);
    fail_unless_equals_int (gst_harness_push (r.h, in), GST_FLOW_OK);
    b = gst_harness_pull (r.h);
    fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
    got = g_bytes_new (map.data, map.size);
    gst_buffer_unmap (b, &map);
    fail_unless (g_bytes_equal (got, ref));
    g_bytes_unref (got);
    gst_buffer_unref (b);
    test_run_free (&r);
    g_free (vc);
  }
  g_bytes_unref (ref);
  g_free (frame);
  g_free (s);
}

GST_END_TEST;

/* ---- metadata: compressed (version 6), and frames of version 5 ---- */

/* A frame of the former encoder (version 5, metadata stored as given):
 * samples, sample-offset and FITS cards come back.  And a version-6 frame
 * whose compressed metadata is damaged under a valid CRC: a warning, the
 * samples still out. */
GST_START_TEST (test_metadata_versions)
{
  guint16 want[DPCM_V5_W * DPCM_V5_H];
  gchar cards[161];
  guint x, y;

  for (y = 0; y < DPCM_V5_H; y++)
    for (x = 0; x < DPCM_V5_W; x++)
      want[y * DPCM_V5_W + x] = dpcm_v5_sample (x, y);
  dpcm_v5_cards (cards);
  {
    TestRun r = test_run_new ("dpcmdec", "application/x-dpcm");
    GstSciFitsMeta *m;
    GstBuffer *b;
    GstCaps *caps;
    gint offset = 0;

    fail_unless_equals_int (gst_harness_push (r.h,
            gst_buffer_new_memdup (dpcm_v5_frame, sizeof dpcm_v5_frame)),
        GST_FLOW_OK);
    b = gst_harness_pull (r.h);
    caps = gst_pad_get_current_caps (r.h->sinkpad);
    check_video (b, caps, "GRAY16_LE", DPCM_V5_W, DPCM_V5_H, want);
    fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
            "sample-offset", &offset));
    fail_unless_equals_int (offset, 32768);
    m = gst_buffer_get_sci_fits_meta (b);
    fail_unless (m != NULL);
    fail_unless_equals_string (m->header, cards);
    fail_unless_equals_int (m->hdu, 1);
    gst_caps_unref (caps);
    gst_buffer_unref (b);
    fail_unless (test_run_error (&r) == NULL);
    test_run_free (&r);
  }
  /* the same samples and cards through dpcmenc: version 6, the cards
   * compressed, the same back from dpcmdec */
  {
    gchar *vc = video_caps ("GRAY16_LE", DPCM_V5_W, DPCM_V5_H);
    TestRun r = test_run_new ("dpcmenc ! dpcmdec", vc);
    GstBuffer *in = video_buffer ("GRAY16_LE", DPCM_V5_W, DPCM_V5_H, want), *b;
    GstSciFitsMeta *m;
    GstCaps *caps;

    gst_buffer_add_sci_fits_meta (in, cards, NULL, 1);
    fail_unless_equals_int (gst_harness_push (r.h, in), GST_FLOW_OK);
    b = gst_harness_pull (r.h);
    caps = gst_pad_get_current_caps (r.h->sinkpad);
    check_video (b, caps, "GRAY16_LE", DPCM_V5_W, DPCM_V5_H, want);
    m = gst_buffer_get_sci_fits_meta (b);
    fail_unless (m != NULL);
    fail_unless_equals_string (m->header, cards);
    gst_caps_unref (caps);
    gst_buffer_unref (b);
    test_run_free (&r);
    g_free (vc);
  }
  /* damaged compressed metadata (its raw length), CRC made valid again */
  {
    gchar *vc = video_caps ("GRAY16_LE", DPCM_V5_W, DPCM_V5_H);
    TestRun e = test_run_new ("dpcmenc", vc);
    GstBuffer *in = video_buffer ("GRAY16_LE", DPCM_V5_W, DPCM_V5_H, want), *b;
    GstMapInfo map;
    guint8 *t;
    gsize n;
    guint32 crc;
    GstMessage *msg;
    GError *err = NULL;

    gst_buffer_add_sci_fits_meta (in, cards, NULL, 1);
    fail_unless_equals_int (gst_harness_push (e.h, in), GST_FLOW_OK);
    b = gst_harness_pull (e.h);
    fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
    n = map.size;
    t = g_memdup2 (map.data, n);
    gst_buffer_unmap (b, &map);
    gst_buffer_unref (b);
    test_run_free (&e);
    g_free (vc);
    fail_unless_equals_int (t[4], SCI_DPCM_VERSION);
    fail_unless (GST_READ_UINT32_LE (t + 44) & SCI_DPCM_FLAG_META_ZSTD);
    t[SCI_DPCM_HEADER_BYTES] ^= 1;
    crc = sci_crc32 (0, t, n - 4);
    t[n - 4] = crc & 0xff;
    t[n - 3] = (crc >> 8) & 0xff;
    t[n - 2] = (crc >> 16) & 0xff;
    t[n - 1] = crc >> 24;
    {
      TestRun r = test_run_new ("dpcmdec", "application/x-dpcm");
      GstCaps *caps;

      fail_unless_equals_int (gst_harness_push (r.h,
              gst_buffer_new_memdup (t, n)), GST_FLOW_OK);
      b = gst_harness_pull (r.h);
      caps = gst_pad_get_current_caps (r.h->sinkpad);
      check_video (b, caps, "GRAY16_LE", DPCM_V5_W, DPCM_V5_H, want);
      fail_if (gst_buffer_get_sci_fits_meta (b));
      msg = gst_bus_pop_filtered (r.bus, GST_MESSAGE_WARNING);
      fail_unless (msg != NULL);
      gst_message_parse_warning (msg, &err, NULL);
      fail_unless (strstr (err->message, "does not decompress") != NULL, "%s",
          err->message);
      g_error_free (err);
      gst_message_unref (msg);
      fail_unless (test_run_error (&r) == NULL);
      gst_caps_unref (caps);
      gst_buffer_unref (b);
      test_run_free (&r);
    }
    g_free (t);
  }
}

GST_END_TEST;

/* ---- the real file ---- */

/* Pushes the whole file, then EOS; returns the output buffers. */
static GPtrArray *
run_file (const gchar * launch, gconstpointer data, gsize len)
{
  TestRun r = test_run_new (launch, "image/fits");
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstBuffer *b;
  gchar *err;

  fail_unless_equals_int (gst_harness_push (r.h, gst_buffer_new_memdup (data,
              len)), GST_FLOW_OK);
  gst_harness_push_event (r.h, gst_event_new_eos ());
  while ((b = gst_harness_try_pull (r.h)))
    g_ptr_array_add (out, b);
  err = test_run_error (&r);
  fail_unless (err == NULL, "%s", err);
  test_run_free (&r);
  return out;
}

GST_START_TEST (test_real_file)
{
  GBytes *file = fitsutil_real_file ();
  gconstpointer data;
  gsize len;
  GPtrArray *direct, *coded, *back;
  guint k, ext;

  if (!file)
    return;
  data = g_bytes_get_data (file, &len);
  direct = run_file ("fitsdec all-hdus=true", data, len);
  fail_unless_equals_int (direct->len, 3);
  /* the frames as DPCM, through files' worth of bytes: nothing but the
   * frame travels from dpcmenc to dpcmdec */
  coded = run_file ("fitsdec all-hdus=true ! dpcmenc", data, len);
  fail_unless_equals_int (coded->len, 3);

  for (ext = 0; ext < 2; ext++) {
    GByteArray *cat = g_byte_array_new ();
    TestRun r;
    GstBuffer *b;

    for (k = 0; k < coded->len; k++) {
      GstMapInfo map;

      gst_buffer_map (coded->pdata[k], &map, GST_MAP_READ);
      fail_unless_equals_int (map.data[4], SCI_DPCM_VERSION);
      fail_unless (GST_READ_UINT32_LE (map.data + 40) > 0);     /* metadata */
      /* the header cards compressed: the frame's metadata section is a
       * third of their size at most */
      if (ext == 0) {
        gsize ml = 0, L = GST_READ_UINT32_LE (map.data + 40);
        guint w = GST_READ_UINT32_LE (map.data + 8), h =
            GST_READ_UINT32_LE (map.data + 12);

        fail_unless (GST_READ_UINT32_LE (map.data + 44) &
            SCI_DPCM_FLAG_META_ZSTD);
        fail_unless_equals_int (sci_dpcm_metadata (map.data, map.size, NULL,
                0, &ml), SCI_DPCM_OK);
        fail_unless (L * 3 < ml, "%" G_GSIZE_FORMAT " bytes of metadata "
            "stored in %" G_GSIZE_FORMAT, ml, L);
        g_print ("GMOS-N frame %u: %" G_GSIZE_FORMAT " bytes, %.3f bpp "
            "(metadata %" G_GSIZE_FORMAT " bytes stored in %" G_GSIZE_FORMAT
            "; as given it would be %.3f bpp)\n", k, map.size,
            8.0 * map.size / (w * h), ml, L,
            8.0 * (map.size - L + ml) / (w * h));
      }
      g_byte_array_append (cat, map.data, map.size);
      gst_buffer_unmap (coded->pdata[k], &map);
    }
    r = test_run_new (ext ? "dpcmdec ! fitsenc extension=true" :
        "dpcmdec ! fitsenc", "application/x-dpcm");
    fail_unless_equals_int (gst_harness_push (r.h,
            gst_buffer_new_memdup (cat->data, cat->len)), GST_FLOW_OK);
    gst_harness_push_event (r.h, gst_event_new_eos ());
    back = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_buffer_unref);
    while ((b = gst_harness_try_pull (r.h)))
      g_ptr_array_add (back, b);
    fail_unless (test_run_error (&r) == NULL);
    test_run_free (&r);
    g_byte_array_unref (cat);
    fail_unless_equals_int (back->len, 3);

    for (k = 0; k < 3; k++) {
      GstSciFitsMeta *meta =
          gst_buffer_get_sci_fits_meta ((GstBuffer *) direct->pdata[k]);
      GstMapInfo map;
      guint16 *want, *got;
      gchar *cw, *cg, *pw, *pg;
      gint w, h, w2, h2;

      fail_unless (meta != NULL);
      want = fitsutil_cfitsio_read (data, len, meta->hdu, &w, &h, &cw);
      gst_buffer_map (back->pdata[k], &map, GST_MAP_READ);
      got = fitsutil_cfitsio_read (map.data, map.size, ext, &w2, &h2, &cg);
      fail_unless_equals_int (w, w2);
      fail_unless_equals_int (h, h2);
      fail_unless (memcmp (want, got, (gsize) w * h * 2) == 0,
          "HDU %d: samples differ", meta->hdu);
      fail_unless (strlen (cw) > 80 * 10);
      fail_unless_equals_string (cg, cw);
      if (ext) {
        /* the primary header's cards came through too */
        g_free (fitsutil_cfitsio_read (data, len, 0, &w, &h, &pw));
        g_free (fitsutil_cfitsio_read (map.data, map.size, 0, &w2, &h2, &pg));
        fail_unless (strlen (pw) > 80);
        fail_unless_equals_string (pg, pw);
        g_free (pw);
        g_free (pg);
      }
      gst_buffer_unmap (back->pdata[k], &map);
      g_free (want);
      g_free (got);
      g_free (cw);
      g_free (cg);
    }
    g_ptr_array_unref (back);
  }
  g_ptr_array_unref (coded);
  g_ptr_array_unref (direct);
  g_bytes_unref (file);
}

GST_END_TEST;

static Suite *
dpcm_suite (void)
{
  Suite *s = suite_create ("scicodec-dpcm");
  TCase *tc = tcase_create ("dpcm");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_round_trip);
  tcase_add_test (tc, test_parameters);
  tcase_add_test (tc, test_coded_frames);
  tcase_add_test (tc, test_sample_offset);
  tcase_add_test (tc, test_stream);
  tcase_add_test (tc, test_corrupt);
  tcase_add_test (tc, test_caps_from_frames);
  tcase_add_test (tc, test_refused_caps);
  tcase_add_test (tc, test_empty_input);
  tcase_add_test (tc, test_unaligned);
  tcase_add_test (tc, test_metadata_versions);
  tcase_add_test (tc, test_backend_cuda);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_typefind_filesrc);
  tcase_add_test (tc, test_real_file);
  return s;
}

GST_CHECK_MAIN (dpcm);
