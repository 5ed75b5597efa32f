/*
 * seismicenc and seismicdec in GstHarness and pipelines, CPU backend:
 *
 *  - round trips of synthetic gathers of awkward sizes (1x1, 1x7, 7x1,
 *    96x3584, 5x1001 traces x samples) for bits 2, 8, 12, 16 and levels
 *    0..4: seismicenc's bytes are sci_seis_encode's, seismicdec's gather
 *    is sci_seis_decode's of those very bytes, bit for bit, and the caps
 *    on both sides say the geometry, bits and levels;
 *  - the properties changed while playing (new caps, the new bits);
 *  - streams of several frames of different geometries in one buffer, in
 *    4096-byte chunks (as filesrc reads), in 1-byte chunks and in random
 *    chunks, from bare caps: the same gathers, caps before the segment,
 *    new caps at each change of geometry;
 *  - the typefinder (a valid header, a damaged one, a short file, other
 *    data, the .seis extension), and files through filesrc ! seismicdec,
 *    filesrc ! typefind ! seismicdec and decodebin;
 *  - corrupt input: a bit flipped in the middle, truncations at the end of
 *    the stream, damaged header fields, a bad second frame (its byte
 *    offset in the message, the first frame out), packages and code
 *    tables changed under recomputed CRCs (the element agrees with
 *    sci_seis_parse/sci_seis_decode), random damage: an error on the bus
 *    naming the fault and the frame's offset, never a crash, never the
 *    bad gather;
 *  - NaN and infinite samples (the error names trace and sample), values
 *    that overflow the transform, buffers of the wrong size;
 *  - the properties' ranges (bits=1 refused by GObject, ...), backend=cuda
 *    without a GPU;
 *  - a GstSciSegyMeta through the frame's metadata section, byte for byte,
 *    from the frame's bytes alone; metadata that is not SEG-Y records;
 *  - the SEG-Y files of ../shared/data/seismic (SCI_TEST_DATA_DIR; skipped
 *    where absent or without segysrc/segysink) through segysrc !
 *    seismicenc ! filesink and filesrc ! seismicdec ! segysink: every
 *    header back byte for byte, the samples within 16-bit quantization.
 *
 * The CUDA backend is tested on the GPU host (test_elements_gpu.c).
 */
#include "config.h"             /* HAVE_CUDA: which error backend=cuda gives */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/base/gsttypefindhelper.h>
#include <glib/gstdio.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "codec/common/crc32.h"
#include "codec/seismic/seismic.h"
#include "gst/gstscisegymeta.h"

/* ---- helpers ---- */

static guint32 rng_state = 20240611;

static guint32
rnd (void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

/* A gather of traces x samples: three reflections with hyperbolic moveout
 * (Ricker wavelets), noise, a dead (zero) trace and a spike. */
static gfloat *
make_gather (guint traces, guint samples)
{
  gfloat *g = g_new (gfloat, (gsize) traces * samples);
  guint t, s, k;

  for (t = 0; t < traces; t++)
    for (s = 0; s < samples; s++) {
      gdouble v = 0.0;

      for (k = 0; k < 3; k++) {
        gdouble t0 = samples * (0.2 + 0.25 * k);
        gdouble x = (gdouble) t / MAX (traces, 1) * 300.0;
        gdouble at = sqrt (t0 * t0 + x * x * (0.3 + 0.1 * k));
        gdouble u = (s - at) / (3.0 + k);

        v += (1000.0 / (k + 1)) * (1.0 - 2.0 * u * u) * exp (-u * u);
      }
      v += ((gint) (rnd () % 2001) - 1000) * 0.05;
      if (traces > 3 && t == traces / 2)
        v = 0.0;
      g[(gsize) t * samples + s] = (gfloat) v;
    }
  if ((gsize) traces * samples > 10)
    g[(gsize) traces * samples / 3] = 25000.0f;
  return g;
}

static gchar *
gather_caps_str (guint traces, guint samples, guint interval)
{
  return g_strdup_printf ("application/x-seismic, traces=(int)%u, "
      "samples=(int)%u, sample-interval=(int)%u", traces, samples, interval);
}

typedef struct
{
  GstHarness *h;
  GstBus *bus;
} TestRun;

/* A harness of `launch` with `src_caps` (may be NULL) on its source, its
 * elements posting to a bus of their own. */
static TestRun
run_new (const gchar * launch, const gchar * src_caps)
{
  TestRun r;

  r.h = gst_harness_new_parse (launch);
  fail_unless (r.h != NULL, "%s", launch);
  r.bus = gst_bus_new ();
  gst_element_set_bus (r.h->element, r.bus);
  if (src_caps)
    gst_harness_set_src_caps_str (r.h, src_caps);
  return r;
}

/* The text (message and debug) of the first error posted, or NULL. */
static gchar *
run_error (TestRun * r)
{
  GstMessage *m = gst_bus_pop_filtered (r->bus, GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *dbg = NULL, *ret;

  if (!m)
    return NULL;
  gst_message_parse_error (m, &err, &dbg);
  ret = g_strdup_printf ("%s (%s)", err->message, dbg ? dbg : "");
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (m);
  return ret;
}

/* The text of the first warning posted, or NULL. */
static gchar *
run_warning (TestRun * r)
{
  GstMessage *m = gst_bus_pop_filtered (r->bus, GST_MESSAGE_WARNING);
  GError *err = NULL;
  gchar *ret;

  if (!m)
    return NULL;
  gst_message_parse_warning (m, &err, NULL);
  ret = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (m);
  return ret;
}

static void
run_free (TestRun * r)
{
  gst_element_set_bus (r->h->element, NULL);
  gst_object_unref (r->bus);
  gst_harness_teardown (r->h);
}

static GstBuffer *
gather_buffer (const gfloat * g, guint traces, guint samples)
{
  return gst_buffer_new_memdup (g, sizeof (gfloat) * traces * samples);
}

static GBytes *
buffer_bytes (GstBuffer * b)
{
  GstMapInfo map;
  GBytes *out;

  fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
  out = g_bytes_new (map.data, map.size);
  gst_buffer_unmap (b, &map);
  return out;
}

/* Encodes one gather with seismicenc `props`; returns the frame's bytes,
 * its caps in *caps (may be NULL). */
static GBytes *
encode (const gchar * props, const gfloat * g, guint traces, guint samples,
    guint interval, GstCaps ** caps)
{
  gchar *launch = g_strdup_printf ("seismicenc %s", props);
  gchar *sc = gather_caps_str (traces, samples, interval);
  TestRun r = run_new (launch, sc);
  GstBuffer *b;
  GBytes *out;
  gchar *err;

  fail_unless_equals_int (gst_harness_push (r.h, gather_buffer (g, traces,
              samples)), GST_FLOW_OK);
  b = gst_harness_pull (r.h);
  fail_unless (b != NULL);
  if (caps)
    *caps = gst_pad_get_current_caps (r.h->sinkpad);
  out = buffer_bytes (b);
  gst_buffer_unref (b);
  err = run_error (&r);
  fail_unless (err == NULL, "%s: %s", launch, err);
  run_free (&r);
  g_free (launch);
  g_free (sc);
  return out;
}

/* sci_seis_encode's frame of the gather. */
static GBytes *
ref_encode (guint bits, guint levels, const gfloat * g, guint traces,
    guint samples, guint interval, const guint8 * meta, gsize meta_len)
{
  sci_seis_params p = { traces, samples, interval, bits, levels, 0 };
  gsize cap = sci_seis_frame_bound (&p, meta_len), len = 0;
  guint8 *out = g_malloc (cap);

  fail_unless_equals_int (sci_seis_encode (NULL, &p, g, meta, meta_len, out,
          cap, &len, NULL), 0);
  return g_bytes_new_take (g_realloc (out, len), len);
}

/* sci_seis_decode's gather of the frame at d (len bytes, may hold more
 * than the frame); *info gets its header. */
static gfloat *
ref_decode (const guint8 * d, gsize len, sci_seis_info * info)
{
  gfloat *out;

  fail_unless_equals_int (sci_seis_parse (d, len, info), 0);
  out = g_new (gfloat, (gsize) info->p.traces * info->p.samples);
  fail_unless_equals_int (sci_seis_decode (NULL, d, info, NULL, out), 0);
  return out;
}

/* Checks that the buffer holds exactly the floats of want (bit for bit). */
static void
check_gather (GstBuffer * b, const gfloat * want, guint traces,
    guint samples, const gchar * what)
{
  gsize n = (gsize) traces * samples, i;
  GstMapInfo map;

  fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, n * sizeof (gfloat));
  if (memcmp (map.data, want, n * sizeof (gfloat)) != 0) {
    for (i = 0; i < n; i++) {
      gfloat v;

      memcpy (&v, map.data + 4 * i, 4);
      if (memcmp (&v, &want[i], 4) != 0)
        fail ("%s: %ux%u: trace %" G_GSIZE_FORMAT ", sample %" G_GSIZE_FORMAT
            " is %.9g, sci_seis_decode gives %.9g", what, traces, samples,
            i / samples, i % samples, v, want[i]);
    }
  }
  gst_buffer_unmap (b, &map);
}

static void
check_gather_caps (GstCaps * caps, guint traces, guint samples, guint interval)
{
  GstStructure *s;
  gchar *cs;
  gint v;

  fail_unless (caps != NULL);
  cs = gst_caps_to_string (caps);
  s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_has_name (s, "application/x-seismic"), "%s", cs);
  fail_unless (gst_structure_get_int (s, "traces", &v) && v == (gint) traces,
      "%s", cs);
  fail_unless (gst_structure_get_int (s, "samples", &v)
      && v == (gint) samples, "%s", cs);
  fail_unless (gst_structure_get_int (s, "sample-interval", &v)
      && v == (gint) interval, "%s", cs);
  fail_unless (gst_caps_is_fixed (caps));
  g_free (cs);
}

static void
check_coded_caps (GstCaps * caps, guint traces, guint samples,
    guint interval, guint bits, guint levels)
{
  GstStructure *s;
  gchar *cs;
  gint v;

  fail_unless (caps != NULL);
  cs = gst_caps_to_string (caps);
  s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_has_name (s, "application/x-seismic-compressed"),
      "%s", cs);
  fail_unless (gst_structure_get_int (s, "traces", &v)
      && v == (gint) traces, "%s", cs);
  fail_unless (gst_structure_get_int (s, "samples", &v)
      && v == (gint) samples, "%s", cs);
  fail_unless (gst_structure_get_int (s, "sample-interval", &v)
      && v == (gint) interval, "%s", cs);
  fail_unless (gst_structure_get_int (s, "bits", &v) && v == (gint) bits,
      "%s", cs);
  fail_unless (gst_structure_get_int (s, "levels", &v) && v == (gint) levels,
      "%s", cs);
  g_free (cs);
}

static gboolean
bytes_equal (GBytes * a, GBytes * b)
{
  return g_bytes_equal (a, b);
}

/* ---- round trips ---- */

static const guint sizes[][2] = {
  {1, 1}, {1, 7}, {7, 1}, {96, 3584}, {5, 1001},
};

static const guint bits_list[] = { 2, 8, 12, 16 };

/* One gather through seismicenc (bytes against sci_seis_encode) and the
 * frame through seismicdec (gather against sci_seis_decode); returns the
 * largest error against the input, relative to its range. */
static gdouble
round_trip (guint traces, guint samples, guint bits, guint levels)
{
  gfloat *g = make_gather (traces, samples);
  guint interval = 500 + bits * 10 + levels;
  gchar *props = g_strdup_printf ("bits=%u levels=%u", bits, levels);
  gchar *what = g_strdup_printf ("%ux%u bits %u levels %u", traces, samples,
      bits, levels);
  GstCaps *ccaps, *caps;
  GBytes *frame, *ref;
  gsize n = (gsize) traces * samples, len, i;
  const guint8 *d;
  sci_seis_info info;
  gfloat *want, lo = g[0], hi = g[0];
  gdouble err = 0.0;
  TestRun r;
  GstBuffer *b, *in;
  gchar *cs, *e;

  frame = encode (props, g, traces, samples, interval, &ccaps);
  check_coded_caps (ccaps, traces, samples, interval, bits, levels);
  ref = ref_encode (bits, levels, g, traces, samples, interval, NULL, 0);
  fail_unless (bytes_equal (frame, ref), "%s: seismicenc's %" G_GSIZE_FORMAT
      " bytes differ from sci_seis_encode's %" G_GSIZE_FORMAT, what,
      g_bytes_get_size (frame), g_bytes_get_size (ref));
  d = g_bytes_get_data (frame, &len);
  want = ref_decode (d, len, &info);
  fail_unless_equals_int (info.frame_len, len);
  fail_unless_equals_int (info.meta_len, 0);

  /* the encoder's caps, as in a pipeline */
  cs = gst_caps_to_string (ccaps);
  r = run_new ("seismicdec", cs);
  in = gst_buffer_new_wrapped_bytes (g_bytes_ref (frame));
  GST_BUFFER_PTS (in) = 3 * GST_SECOND;
  GST_BUFFER_DURATION (in) = GST_SECOND;
  fail_unless_equals_int (gst_harness_push (r.h, in), GST_FLOW_OK);
  b = gst_harness_pull (r.h);
  fail_unless (b != NULL);
  caps = gst_pad_get_current_caps (r.h->sinkpad);
  check_gather_caps (caps, traces, samples, interval);
  check_gather (b, want, traces, samples, what);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (b), 3 * GST_SECOND);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (b), GST_SECOND);
  fail_if (gst_buffer_get_sci_segy_meta (b));
  fail_unless (gst_harness_try_pull (r.h) == NULL);
  e = run_error (&r);
  fail_unless (e == NULL, "%s: %s", what, e);
  gst_buffer_unref (b);
  gst_caps_unref (caps);
  run_free (&r);

  for (i = 0; i < n; i++) {
    lo = MIN (lo, g[i]);
    hi = MAX (hi, g[i]);
    err = MAX (err, fabs ((gdouble) want[i] - g[i]));
  }
  g_free (cs);
  g_free (want);
  gst_caps_unref (ccaps);
  g_bytes_unref (frame);
  g_bytes_unref (ref);
  g_free (props);
  g_free (what);
  g_free (g);
  return hi > lo ? err / (hi - lo) : err;
}

/* frame-version: frames of each version seismicenc writes are that
 * version, sci_seis_encode's bytes for it, and decode to the same gather
 * (the versions differ in the code's layout, not in the quantization);
 * a change while playing takes effect at the next gather. */
GST_START_TEST (test_frame_version)
{
  const guint traces = 37, samples = 301, interval = 2000;
  gfloat *g = make_gather (traces, samples);
  gfloat *first = NULL;
  gsize n = (gsize) traces * samples, len;
  guint v;
  TestRun r;
  gchar *sc, *err;
  GstElement *enc;
  GstBuffer *b;
  GBytes *frame;
  sci_seis_info info;

  for (v = 3; v <= SCI_SEIS_VERSION; v++) {
    gchar *props = g_strdup_printf ("bits=10 levels=2 frame-version=%u", v);
    sci_seis_params p = { traces, samples, interval, 10, 2, v };
    gsize cap = sci_seis_frame_bound (&p, 0), rlen = 0;
    guint8 *ref = g_malloc (cap);
    const guint8 *d;
    gfloat *got;

    frame = encode (props, g, traces, samples, interval, NULL);
    d = g_bytes_get_data (frame, &len);
    fail_unless_equals_int (sci_seis_encode (NULL, &p, g, NULL, 0, ref, cap,
            &rlen, NULL), 0);
    fail_unless (rlen == len && memcmp (ref, d, len) == 0,
        "frame-version=%u: seismicenc's frame is not sci_seis_encode's", v);
    got = ref_decode (d, len, &info);
    fail_unless_equals_int (info.version, v);
    if (first)
      fail_unless (memcmp (first, got, n * sizeof (gfloat)) == 0,
          "a version %u frame decodes otherwise than a version 3 frame", v);
    else
      first = g_memdup2 (got, n * sizeof (gfloat));
    g_free (got);
    g_free (ref);
    g_bytes_unref (frame);
    g_free (props);
  }

  sc = gather_caps_str (traces, samples, interval);
  r = run_new ("seismicenc name=enc frame-version=6", sc);
  enc = gst_bin_get_by_name (GST_BIN (r.h->element), "enc");
  if (!enc)
    enc = gst_object_ref (r.h->element);
  for (v = 0; v < 2; v++) {
    const guint8 *d;

    if (v)
      g_object_set (enc, "frame-version", 7, NULL);
    fail_unless_equals_int (gst_harness_push (r.h, gather_buffer (g, traces,
                samples)), GST_FLOW_OK);
    b = gst_harness_pull (r.h);
    fail_unless (b != NULL);
    frame = buffer_bytes (b);
    d = g_bytes_get_data (frame, &len);
    fail_unless_equals_int (sci_seis_parse (d, len, &info), 0);
    fail_unless_equals_int (info.version, v ? 7 : 6);
    g_bytes_unref (frame);
    gst_buffer_unref (b);
  }
  err = run_error (&r);
  fail_unless (err == NULL, "%s", err);
  gst_object_unref (enc);
  run_free (&r);
  g_free (sc);
  g_free (first);
  g_free (g);
}

GST_END_TEST;

GST_START_TEST (test_round_trip)
{
  guint i, b, l;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (b = 0; b < G_N_ELEMENTS (bits_list); b++)
      for (l = 0; l <= 4; l++) {
        gdouble rel = round_trip (sizes[i][0], sizes[i][1], bits_list[b], l);

        /* a lossy codec, but not a broken one: 16 bits come back within
         * a small fraction of the range */
        if (bits_list[b] == 16)
          fail_unless (rel < 1e-3, "%ux%u, 16 bits, %u levels: error %g of "
              "the range", sizes[i][0], sizes[i][1], l, rel);
      }
}

GST_END_TEST;

/* seismicenc ! seismicdec in one harness, the defaults (12 bits, 1
 * level), and a change of bits and levels while playing: new caps, and
 * frames of the new parameters. */
GST_START_TEST (test_properties_while_playing)
{
  gfloat *g = make_gather (9, 130);
  gchar *sc = gather_caps_str (9, 130, 2000);
  TestRun r = run_new ("seismicenc name=enc", sc);
  GstElement *enc = gst_bin_get_by_name (GST_BIN (r.h->element), "enc");
  GstBuffer *b;
  GstCaps *caps;
  GBytes *got, *ref;
  guint k;

  fail_unless (enc != NULL);
  for (k = 0; k < 3; k++) {
    guint bits = k == 0 ? 12 : k == 1 ? 8 : 3;
    guint levels = k == 0 ? 1 : k == 1 ? 3 : 0;

    if (k > 0)
      g_object_set (enc, "bits", bits, "levels", levels, NULL);
    fail_unless_equals_int (gst_harness_push (r.h, gather_buffer (g, 9, 130)),
        GST_FLOW_OK);
    b = gst_harness_pull (r.h);
    fail_unless (b != NULL);
    caps = gst_pad_get_current_caps (r.h->sinkpad);
    check_coded_caps (caps, 9, 130, 2000, bits, levels);
    got = buffer_bytes (b);
    ref = ref_encode (bits, levels, g, 9, 130, 2000, NULL, 0);
    fail_unless (bytes_equal (got, ref), "bits %u levels %u: other bytes",
        bits, levels);
    g_bytes_unref (got);
    g_bytes_unref (ref);
    gst_caps_unref (caps);
    gst_buffer_unref (b);
  }
  fail_unless (run_error (&r) == NULL);
  gst_object_unref (enc);
  run_free (&r);

  /* in one harness with the decoder */
  r = run_new ("seismicenc bits=10 levels=2 ! seismicdec", sc);
  fail_unless_equals_int (gst_harness_push (r.h, gather_buffer (g, 9, 130)),
      GST_FLOW_OK);
  b = gst_harness_pull (r.h);
  caps = gst_pad_get_current_caps (r.h->sinkpad);
  check_gather_caps (caps, 9, 130, 2000);
  {
    sci_seis_info info;
    gsize n;
    const guint8 *d;
    gfloat *want;

    ref = ref_encode (10, 2, g, 9, 130, 2000, NULL, 0);
    d = g_bytes_get_data (ref, &n);
    want = ref_decode (d, n, &info);
    check_gather (b, want, 9, 130, "seismicenc ! seismicdec");
    g_free (want);
    g_bytes_unref (ref);
  }
  gst_caps_unref (caps);
  gst_buffer_unref (b);
  run_free (&r);
  g_free (sc);
  g_free (g);
}

GST_END_TEST;

/* ---- streams ---- */

typedef struct
{
  guint traces, samples, interval, bits, levels;
  gfloat *want;                 /* sci_seis_decode's gather */
} StreamFrame;

static const guint stream_frames[][5] = {
  /* traces, samples, interval, bits, levels */
  {5, 1001, 4000, 12, 2},
  {1, 7, 1000, 2, 0},
  {7, 1, 250, 16, 4},
  {24, 300, 2000, 16, 3},
  {5, 1001, 4000, 8, 1},
  {5, 1001, 4000, 8, 1},
};

/* The frames of stream_frames one after another in *all; their decoded
 * gathers in f. */
static GByteArray *
make_stream (StreamFrame * f)
{
  GByteArray *all = g_byte_array_new ();
  guint k;

  for (k = 0; k < G_N_ELEMENTS (stream_frames); k++) {
    const guint *s = stream_frames[k];
    gfloat *g = make_gather (s[0], s[1]);
    gchar *props = g_strdup_printf ("bits=%u levels=%u", s[3], s[4]);
    GBytes *fr = encode (props, g, s[0], s[1], s[2], NULL);
    sci_seis_info info;
    gsize n;
    const guint8 *d = g_bytes_get_data (fr, &n);

    f[k].traces = s[0];
    f[k].samples = s[1];
    f[k].interval = s[2];
    f[k].bits = s[3];
    f[k].levels = s[4];
    f[k].want = ref_decode (d, n, &info);
    g_byte_array_append (all, d, n);
    g_bytes_unref (fr);
    g_free (props);
    g_free (g);
  }
  return all;
}

/* Pushes `all` in pieces of `chunk` bytes (0: one buffer; G_MAXUINT:
 * random sizes) to seismicdec with `caps` (may be NULL), then EOS; checks
 * every gather, the caps events and that no error came. */
static void
decode_stream (GByteArray * all, StreamFrame * f, guint nf, gsize chunk,
    const gchar * caps)
{
  TestRun r = run_new ("seismicdec", caps);
  gsize off = 0, step;
  GstBuffer *b;
  GstEvent *ev;
  guint k, ncaps = 0, want_caps = 0;
  gboolean segment = FALSE;
  gchar *err;

  if (!caps) {
    /* what filesrc sends without a typefinder: no caps */
    GstSegment seg;

    gst_segment_init (&seg, GST_FORMAT_BYTES);
    fail_unless (gst_harness_push_event (r.h,
            gst_event_new_stream_start ("seismic")));
    fail_unless (gst_harness_push_event (r.h, gst_event_new_segment (&seg)));
  }
  while (off < all->len) {
    step = chunk == 0 ? all->len : chunk == G_MAXUINT ? 1 + rnd () % 9000 :
        chunk;
    step = MIN (step, all->len - off);
    fail_unless_equals_int (gst_harness_push (r.h,
            gst_buffer_new_memdup (all->data + off, step)), GST_FLOW_OK);
    off += step;
  }
  fail_unless (gst_harness_push_event (r.h, gst_event_new_eos ()));
  for (k = 0; k < nf; k++) {
    gchar *what = g_strdup_printf ("frame %u, chunks of %" G_GSIZE_FORMAT,
        k, chunk);

    b = gst_harness_try_pull (r.h);
    fail_unless (b != NULL, "%s: no gather", what);
    check_gather (b, f[k].want, f[k].traces, f[k].samples, what);
    gst_buffer_unref (b);
    g_free (what);
    if (k == 0 || f[k].traces != f[k - 1].traces
        || f[k].samples != f[k - 1].samples
        || f[k].interval != f[k - 1].interval)
      want_caps++;
  }
  fail_unless (gst_harness_try_pull (r.h) == NULL);
  err = run_error (&r);
  fail_unless (err == NULL, "%s", err);
  /* downstream saw the frames' own caps, at each change of geometry, the
   * first before the segment */
  k = 0;
  while ((ev = gst_harness_try_pull_event (r.h))) {
    if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
      GstCaps *c;

      gst_event_parse_caps (ev, &c);
      while (k > 0 && f[k].traces == f[k - 1].traces
          && f[k].samples == f[k - 1].samples
          && f[k].interval == f[k - 1].interval)
        k++;
      fail_unless (k < nf);
      check_gather_caps (c, f[k].traces, f[k].samples, f[k].interval);
      if (ncaps == 0)
        fail_if (segment, "the segment went before the caps");
      ncaps++;
      k++;
    } else if (GST_EVENT_TYPE (ev) == GST_EVENT_SEGMENT) {
      segment = TRUE;
    }
    gst_event_unref (ev);
  }
  fail_unless (segment);
  fail_unless_equals_int (ncaps, want_caps);
  run_free (&r);
}

GST_START_TEST (test_stream)
{
  StreamFrame f[G_N_ELEMENTS (stream_frames)];
  GByteArray *all = make_stream (f);
  guint k;

  /* more than a few filesrc blocks, so that frames straddle them */
  fail_unless (all->len > 3 * 4096);
  decode_stream (all, f, G_N_ELEMENTS (f), 0,
      "application/x-seismic-compressed");
  decode_stream (all, f, G_N_ELEMENTS (f), 4096,
      "application/x-seismic-compressed");
  decode_stream (all, f, G_N_ELEMENTS (f), 1,
      "application/x-seismic-compressed");
  decode_stream (all, f, G_N_ELEMENTS (f), G_MAXUINT,
      "application/x-seismic-compressed");
  /* no caps at all (as filesrc without typefind) */
  decode_stream (all, f, G_N_ELEMENTS (f), 4096, NULL);
  /* input caps whose geometry is the first frame's: the headers still
   * decide for the others */
  decode_stream (all, f, G_N_ELEMENTS (f), 4096,
      "application/x-seismic-compressed, traces=(int)5, samples=(int)1001, "
      "sample-interval=(int)4000, bits=(int)12, levels=(int)2");
  for (k = 0; k < G_N_ELEMENTS (f); k++)
    g_free (f[k].want);
  g_byte_array_unref (all);
}

GST_END_TEST;

/* ---- typefinder and files ---- */

static GstPadProbeReturn
keep_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user)
{
  GPtrArray *a = user;

  g_ptr_array_add (a, gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info)));
  return GST_PAD_PROBE_OK;
}

/* Runs `launch` (with a fakesink or identity named "sink") to EOS or
 * ERROR: the buffers into the sink's pad, and the error text in *error
 * (NULL at EOS). */
static GPtrArray *
run_pipeline (const gchar * launch, gchar ** error)
{
  GError *perr = NULL;
  GstElement *pipe = gst_parse_launch (launch, &perr);
  GstElement *sink;
  GstPad *pad;
  GstMessage *m;
  GPtrArray *got = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);

  fail_unless (pipe != NULL && perr == NULL, "%s: %s", launch,
      perr ? perr->message : "");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  fail_unless (sink != NULL);
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, keep_buffer, got, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "%s: neither EOS nor an error", launch);
  *error = NULL;
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (m, &err, &dbg);
    *error = g_strdup_printf ("%s (%s)", err->message, dbg ? dbg : "");
    g_error_free (err);
    g_free (dbg);
  }
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return got;
}

GST_START_TEST (test_typefind_filesrc)
{
  StreamFrame f[G_N_ELEMENTS (stream_frames)];
  GByteArray *all = make_stream (f);
  GstTypeFindProbability prob;
  GstCaps *caps;
  gchar *dir = g_dir_make_tmp ("seis-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "f.seis", NULL);
  static const gchar *launches[] = {
    "filesrc location=\"%s\" ! seismicdec ! fakesink name=sink",
    "filesrc location=\"%s\" ! typefind ! seismicdec ! fakesink name=sink",
    "filesrc location=\"%s\" ! decodebin caps=application/x-seismic ! "
        "fakesink name=sink",
  };
  guint8 t[SCI_SEIS_HEADER_BYTES];
  guint i, k;

  /* a valid header: certain */
  caps = gst_type_find_helper_for_data (NULL, all->data, all->len, &prob);
  fail_unless (caps != NULL);
  fail_unless (gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "application/x-seismic-compressed"));
  fail_unless_equals_int (prob, GST_TYPE_FIND_MAXIMUM);
  gst_caps_unref (caps);
  caps = gst_type_find_helper_for_data (NULL, all->data,
      SCI_SEIS_HEADER_BYTES, &prob);
  fail_unless (caps != NULL && prob == GST_TYPE_FIND_MAXIMUM);
  gst_caps_unref (caps);
  /* a damaged header, or only the start of one: possible */
  memcpy (t, all->data, sizeof t);
  t[10] ^= 1;
  caps = gst_type_find_helper_for_data (NULL, t, sizeof t, &prob);
  fail_unless (caps != NULL);
  fail_unless_equals_int (prob, GST_TYPE_FIND_POSSIBLE);
  gst_caps_unref (caps);
  caps = gst_type_find_helper_for_data (NULL, all->data, 5, &prob);
  fail_unless (caps != NULL);
  fail_unless_equals_int (prob, GST_TYPE_FIND_POSSIBLE);
  gst_caps_unref (caps);
  /* the same damage in a frame of the oldest version read: possible */
  t[4] = SCI_SEIS_VERSION_OLDEST;
  caps = gst_type_find_helper_for_data (NULL, t, sizeof t, &prob);
  fail_unless (caps != NULL);
  fail_unless_equals_int (prob, GST_TYPE_FIND_POSSIBLE);
  gst_caps_unref (caps);
  /* another version, or other bytes: not ours */
  t[4] = SCI_SEIS_VERSION + 1;
  caps = gst_type_find_helper_for_data (NULL, t, sizeof t, &prob);
  fail_unless (caps == NULL || !gst_structure_has_name
      (gst_caps_get_structure (caps, 0), "application/x-seismic-compressed"));
  gst_clear_caps (&caps);
  for (i = 0; i < sizeof t; i++)
    t[i] = (guint8) rnd ();
  caps = gst_type_find_helper_for_data (NULL, t, sizeof t, &prob);
  fail_unless (caps == NULL || !gst_structure_has_name
      (gst_caps_get_structure (caps, 0), "application/x-seismic-compressed"));
  gst_clear_caps (&caps);
  /* the extension */
  {
    GstPluginFeature *feat = gst_registry_find_feature (gst_registry_get (),
        "application/x-seismic-compressed", GST_TYPE_TYPE_FIND_FACTORY);
    const gchar *const *ext;

    fail_unless (feat != NULL);
    ext = gst_type_find_factory_get_extensions (GST_TYPE_FIND_FACTORY (feat));
    fail_unless (ext != NULL && g_strv_contains (ext, "seis"));
    caps = gst_type_find_factory_get_caps (GST_TYPE_FIND_FACTORY (feat));
    fail_unless (caps != NULL && gst_structure_has_name
        (gst_caps_get_structure (caps, 0), "application/x-seismic-compressed"));
    /* the extension breaks no tie against the content */
    caps = gst_type_find_helper_for_data_with_extension (NULL, all->data,
        all->len, "seis", &prob);
    fail_unless (caps != NULL && prob == GST_TYPE_FIND_MAXIMUM);
    gst_caps_unref (caps);
    gst_object_unref (feat);
  }

  /* the file through filesrc (4 KiB blocks) */
  fail_unless (g_file_set_contents (path, (const gchar *) all->data,
          all->len, NULL));
  for (i = 0; i < G_N_ELEMENTS (launches); i++) {
    gchar *launch, *err;
    GPtrArray *got;
    GstElementFactory *dbin;

    /* decodebin is gst-plugins-base's playback plugin, which a bare
     * GStreamer (the GPU host's bundle) may lack */
    if (strstr (launches[i], "decodebin")) {
      dbin = gst_element_factory_find ("decodebin");
      if (!dbin) {
        g_printerr ("no decodebin here: its case skipped\n");
        continue;
      }
      gst_object_unref (dbin);
    }
    launch = g_strdup_printf (launches[i], path);
    got = run_pipeline (launch, &err);
    fail_unless (err == NULL, "%s: %s", launch, err);
    fail_unless_equals_int (got->len, G_N_ELEMENTS (f));
    for (k = 0; k < got->len; k++)
      check_gather (got->pdata[k], f[k].want, f[k].traces, f[k].samples,
          launch);
    g_ptr_array_unref (got);
    g_free (launch);
  }

  /* a file cut short: the frames before the cut, then the error */
  fail_unless (g_file_set_contents (path, (const gchar *) all->data,
          all->len - 100, NULL));
  {
    gchar *launch = g_strdup_printf (launches[1], path);
    gchar *err;
    GPtrArray *got = run_pipeline (launch, &err);

    fail_unless (err != NULL, "a truncated file decoded without error");
    fail_unless (strstr (err, "truncated frame") != NULL, "%s", err);
    fail_unless_equals_int (got->len, G_N_ELEMENTS (f) - 1);
    g_ptr_array_unref (got);
    g_free (err);
    g_free (launch);
  }
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
  for (k = 0; k < G_N_ELEMENTS (f); k++)
    g_free (f[k].want);
  g_byte_array_unref (all);
}

GST_END_TEST;

/* ---- corrupt input ---- */

/* Pushes the `len` bytes of `data` (in one buffer) to seismicdec, then
 * EOS; returns the buffers that came out, the error text in *error. */
static GPtrArray *
decode_bytes (const guint8 * data, gsize len, gchar ** error)
{
  TestRun r = run_new ("seismicdec", "application/x-seismic-compressed");
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstBuffer *b;

  gst_harness_push (r.h, gst_buffer_new_memdup (data, len));
  gst_harness_push_event (r.h, gst_event_new_eos ());
  while ((b = gst_harness_try_pull (r.h)))
    g_ptr_array_add (out, b);
  *error = run_error (&r);
  run_free (&r);
  return out;
}

/* Expects an error having `what` and "at byte `at` " for `data`, and no
 * gather out. */
static void
expect_decode_error (const guint8 * data, gsize len, const gchar * what,
    gsize at)
{
  gchar *err, *where = g_strdup_printf ("at byte %" G_GSIZE_FORMAT " ", at);
  GPtrArray *out = decode_bytes (data, len, &err);

  fail_unless (err != NULL, "%s: no error", what);
  fail_unless_equals_int (out->len, 0);
  fail_unless (strstr (err, "Corrupt seismic frame") != NULL, "%s: %s",
      what, err);
  fail_unless (strstr (err, what) != NULL, "expected '%s' in: %s", what, err);
  fail_unless (strstr (err, where) != NULL, "expected '%s' in: %s", where, err);
  g_free (err);
  g_free (where);
  g_ptr_array_unref (out);
}

static void
put32 (guint8 * p, guint32 v)
{
  /* bytes, not GST_WRITE_UINT32_LE: the field may be unaligned */
  p[0] = (guint8) v;
  p[1] = (guint8) (v >> 8);
  p[2] = (guint8) (v >> 16);
  p[3] = (guint8) (v >> 24);
}

/* Makes both CRCs of the frame at t (len bytes) valid again. */
static void
fix_crcs (guint8 * t, gsize len)
{
  put32 (t + 44, sci_crc32 (0, t, 44));
  put32 (t + len - 4, sci_crc32 (0, t, len - 4));
}

/* What seismicdec must make of the stream t[0..len-1], as the codec
 * splits and decodes it: the gathers before the first bad frame, and
 * whether there is one (or bytes at the end that are not a frame). */
static void
expect_stream (const guint8 * t, gsize len, guint * outs, gboolean * error)
{
  gsize off = 0;

  *outs = 0;
  *error = FALSE;
  while (off < len) {
    long long fl;
    sci_seis_info info;
    gfloat *tmp;
    gint rc;

    if (len - off < SCI_SEIS_HEADER_BYTES) {
      *error = TRUE;
      return;
    }
    fl = sci_seis_frame_length (t + off);
    if (fl < 0 || (guint64) fl > len - off) {
      *error = TRUE;
      return;
    }
    rc = sci_seis_parse (t + off, (gsize) fl, &info);
    if (rc == 0) {
      tmp = g_new (gfloat, (gsize) info.p.traces * info.p.samples);
      rc = sci_seis_decode (NULL, t + off, &info, NULL, tmp);
      g_free (tmp);
    }
    if (rc) {
      *error = TRUE;
      return;
    }
    (*outs)++;
    off += (gsize) fl;
  }
}

GST_START_TEST (test_corrupt)
{
  gfloat *g = make_gather (5, 1001);
  GBytes *fb = ref_encode (12, 2, g, 5, 1001, 4000, NULL, 0);
  gsize n, i, bad_frames = 0;
  const guint8 *d = g_bytes_get_data (fb, &n);
  guint8 *t = g_malloc (2 * n);
  const gchar *crc = sci_seis_error_string (SCI_SEIS_E_CRC);
  const gchar *trunc = sci_seis_error_string (SCI_SEIS_E_TRUNCATED);
  const gchar *header = sci_seis_error_string (SCI_SEIS_E_HEADER);
  sci_seis_info info;

  fail_unless_equals_int (sci_seis_parse (d, n, &info), 0);
  /* a bit flipped in the middle, in the metadata-less table, in a
   * package, in the frame CRC */
  {
    const gsize at[] = { n / 2, info.table_off + 1, info.pkg_off + 3,
      n - 1
    };
    for (i = 0; i < G_N_ELEMENTS (at); i++) {
      memcpy (t, d, n);
      t[at[i]] ^= 0x10;
      expect_decode_error (t, n, crc, 0);
    }
  }
  /* header fields (the header's own CRC, or the magic and version before
   * it) */
  memcpy (t, d, n);
  t[8] ^= 1;                    /* traces */
  expect_decode_error (t, n, header, 0);
  memcpy (t, d, n);
  t[45] ^= 0x80;                /* the header CRC itself */
  expect_decode_error (t, n, header, 0);
  memcpy (t, d, n);
  t[0] = 'X';
  expect_decode_error (t, n, sci_seis_error_string (SCI_SEIS_E_MAGIC), 0);
  memcpy (t, d, n);
  t[4] = SCI_SEIS_VERSION + 1;
  expect_decode_error (t, n, sci_seis_error_string (SCI_SEIS_E_VERSION), 0);
  /* a header made valid again around a field out of range */
  memcpy (t, d, n);
  t[5] = 17;                    /* bits */
  fix_crcs (t, n);
  expect_decode_error (t, n, header, 0);
  /* truncated: the end missing, part of the header, one byte */
  expect_decode_error (d, n - 10, trunc, 0);
  expect_decode_error (d, 20, trunc, 0);
  expect_decode_error (d, 1, trunc, 0);
  /* a good frame, then a bad or partial one: the first gather out, then
   * the error at the second frame's offset */
  for (i = 0; i < 3; i++) {
    gchar *err, *where = g_strdup_printf ("at byte %" G_GSIZE_FORMAT " ", n);
    GPtrArray *out;
    gsize len = 2 * n;
    gfloat *want = ref_decode (d, n, &info);

    memcpy (t, d, n);
    memcpy (t + n, d, n);
    if (i == 0)
      t[n + n / 3] ^= 4;
    else if (i == 1)
      len = n + n / 2;
    else
      t[n + 2] = 'Z';
    out = decode_bytes (t, len, &err);
    fail_unless_equals_int (out->len, 1);
    check_gather (out->pdata[0], want, 5, 1001, "the frame before a bad one");
    fail_unless (err != NULL);
    fail_unless (strstr (err, where) != NULL, "expected '%s' in %s", where,
        err);
    fail_unless (strstr (err, i == 0 ? crc : i == 1 ? trunc :
            sci_seis_error_string (SCI_SEIS_E_MAGIC)) != NULL, "%s", err);
    g_free (err);
    g_free (where);
    g_free (want);
    g_ptr_array_unref (out);
  }
  /* packages and the code table changed under valid CRCs: only decoding
   * can tell; the element says what sci_seis_decode says */
  for (i = 0; i < 60; i++) {
    gsize at = i % 3 == 0 ? info.table_off + rnd () % info.table_len :
        info.pkg_off + rnd () % (n - 4 - info.pkg_off);
    gchar *err;
    GPtrArray *out;
    sci_seis_info ti;
    gint rc;
    gfloat *want;

    memcpy (t, d, n);
    if (i % 5 == 4 && at + 8 <= n - 4) {
      /* two packages swapped */
      guint8 tmp[8];
      gsize a = info.pkg_off + 8 * (rnd () % info.packages);

      memcpy (tmp, t + a, 8);
      memcpy (t + a, t + info.pkg_off, 8);
      memcpy (t + info.pkg_off, tmp, 8);
    } else {
      t[at] ^= (guint8) (1u << (rnd () % 8));
    }
    fix_crcs (t, n);
    rc = sci_seis_parse (t, n, &ti);
    want = g_new (gfloat, 5 * 1001);
    if (rc == 0)
      rc = sci_seis_decode (NULL, t, &ti, NULL, want);
    out = decode_bytes (t, n, &err);
    if (rc) {
      gchar *e = g_strdup_printf ("at byte 0 of the stream: %s",
          sci_seis_error_string (rc));

      bad_frames++;
      fail_unless (err != NULL, "byte %" G_GSIZE_FORMAT ": the codec says "
          "'%s', seismicdec outputs a gather", at, e);
      fail_unless (strstr (err, e) != NULL, "expected '%s' in %s", e, err);
      fail_unless_equals_int (out->len, 0);
      g_free (e);
    } else {
      fail_unless (err == NULL, "byte %" G_GSIZE_FORMAT ": %s", at, err);
      fail_unless_equals_int (out->len, 1);
      check_gather (out->pdata[0], want, 5, 1001, "changed, decodable");
    }
    g_free (err);
    g_free (want);
    g_ptr_array_unref (out);
  }
  /* most changes are caught (the table's and the packages' structure) */
  fail_unless (bad_frames >= 20, "only %" G_GSIZE_FORMAT " of 60 caught",
      bad_frames);
  /* random damage to a stream of two frames, in random pieces: never a
   * crash, an error whenever the codec refuses a frame */
  for (i = 0; i < 100; i++) {
    gsize len = 2 * n, k, m = 1 + rnd () % 4, off = 0;
    TestRun r = run_new ("seismicdec", "application/x-seismic-compressed");
    GstBuffer *b;
    guint outs = 0;
    gchar *err;
    guint want_outs;
    gboolean want_error;

    memcpy (t, d, n);
    memcpy (t + n, d, n);
    for (k = 0; k < m; k++) {
      gsize at = rnd () % len;

      switch (rnd () % 4) {
        case 0:
          t[at] ^= (guint8) (1u << (rnd () % 8));
          break;
        case 1:
          t[at] = (guint8) rnd ();
          break;
        case 2:
          len = MAX (at, 1);
          break;
        default:
          t[rnd () % 48 + (rnd () % 2 ? n : 0)] = (guint8) rnd ();
          break;
      }
    }
    if (rnd () % 2 && len >= SCI_SEIS_HEADER_BYTES)
      fix_crcs (t, MIN (len, n));
    while (off < len) {
      gsize step = 1 + rnd () % 3000;

      step = MIN (step, len - off);

      gst_harness_push (r.h, gst_buffer_new_memdup (t + off, step));
      off += step;
    }
    gst_harness_push_event (r.h, gst_event_new_eos ());
    while ((b = gst_harness_try_pull (r.h))) {
      outs++;
      gst_buffer_unref (b);
    }
    err = run_error (&r);
    expect_stream (t, len, &want_outs, &want_error);
    fail_unless (outs == want_outs && (err != NULL) == want_error,
        "case %" G_GSIZE_FORMAT ": %u gathers (the codec: %u), error %s "
        "(the codec: %s)", i, outs, want_outs, err, want_error ? "one" :
        "none");
    g_free (err);
    run_free (&r);
  }
  g_free (t);
  g_bytes_unref (fb);
  g_free (g);
}

GST_END_TEST;

/* ---- bad gathers ---- */

/* Pushes `len` bytes of `g` as a gather of traces x samples into
 * seismicenc; returns the error text (the push must fail, nothing out). */
static gchar *
encode_error (gconstpointer g, gsize len, guint traces, guint samples)
{
  gchar *sc = gather_caps_str (traces, samples, 1000);
  TestRun r = run_new ("seismicenc", sc);
  gchar *err;

  fail_unless_equals_int (gst_harness_push (r.h, gst_buffer_new_memdup (g,
              len)), GST_FLOW_ERROR);
  fail_unless (gst_harness_try_pull (r.h) == NULL);
  err = run_error (&r);
  fail_unless (err != NULL, "no error posted");
  run_free (&r);
  g_free (sc);
  return err;
}

GST_START_TEST (test_nonfinite)
{
  static const guint cases[][4] = {
    /* traces, samples, bad trace, bad sample */
    {96, 3584, 41, 2999}, {1, 1, 0, 0}, {7, 1, 6, 0}, {1, 7, 0, 5},
    {5, 1001, 0, 0}, {5, 1001, 4, 1000},
  };
  const gfloat bad[] = { NAN, INFINITY, -INFINITY };
  const gchar *names[] = { "NaN", "+infinity", "-infinity" };
  guint c, k;

  for (c = 0; c < G_N_ELEMENTS (cases); c++)
    for (k = 0; k < G_N_ELEMENTS (bad); k++) {
      guint T = cases[c][0], S = cases[c][1];
      gfloat *g = make_gather (T, S);
      gchar *err, *where;

      g[(gsize) cases[c][2] * S + cases[c][3]] = bad[k];
      /* a later bad value does not hide the first */
      if (cases[c][2] + 1 < T)
        g[(gsize) (cases[c][2] + 1) * S] = NAN;
      err = encode_error (g, sizeof (gfloat) * T * S, T, S);
      where = g_strdup_printf ("%s at trace %u, sample %u", names[k],
          cases[c][2], cases[c][3]);
      fail_unless (strstr (err, where) != NULL, "expected '%s' in %s", where,
          err);
      g_free (where);
      g_free (err);
      g_free (g);
    }

  /* finite values whose transform overflows float */
  {
    gfloat *g = g_new (gfloat, 64 * 64);
    gchar *err;

    for (k = 0; k < 64 * 64; k++)
      g[k] = (k + k / 64) % 2 ? FLT_MAX : -FLT_MAX;
    err = encode_error (g, sizeof (gfloat) * 64 * 64, 64, 64);
    fail_unless (strstr (err, "overflows") != NULL, "%s", err);
    g_free (err);
    g_free (g);
  }
}

GST_END_TEST;

GST_START_TEST (test_wrong_size)
{
  gfloat *g = make_gather (5, 1001);
  gchar *err;

  err = encode_error (g, sizeof (gfloat) * 5 * 1001 - 4, 5, 1001);
  fail_unless (strstr (err, "holds 20016 bytes") != NULL, "%s", err);
  fail_unless (strstr (err, "gather 20020") != NULL, "%s", err);
  fail_unless (strstr (err, "5 traces x 1001 samples") != NULL, "%s", err);
  g_free (err);
  err = encode_error (g, 10, 1, 1);
  fail_unless (strstr (err, "holds 10 bytes, the caps' gather 4") != NULL,
      "%s", err);
  g_free (err);
  g_free (g);
}

GST_END_TEST;

/* ---- properties, backend ---- */

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
  GstElement *e = gst_element_factory_make ("seismicenc", NULL);
  guint bits, levels;

  fail_unless (e != NULL);
  check_uint_prop (G_OBJECT (e), "bits", 2, 16, 12);
  check_uint_prop (G_OBJECT (e), "levels", 0, 8, 1);
  check_uint_prop (G_OBJECT (e), "frame-version", 3, SCI_SEIS_VERSION,
      SCI_SEIS_VERSION);
  g_object_get (e, "bits", &bits, "levels", &levels, NULL);
  fail_unless_equals_int (bits, 12);
  fail_unless_equals_int (levels, 1);
  /* out of range: GObject refuses, the value stays */
  ASSERT_WARNING (g_object_set (e, "bits", 1, NULL));
  ASSERT_WARNING (g_object_set (e, "bits", 17, NULL));
  ASSERT_WARNING (g_object_set (e, "levels", 9, NULL));
  g_object_get (e, "bits", &bits, "levels", &levels, NULL);
  fail_unless_equals_int (bits, 12);
  fail_unless_equals_int (levels, 1);
  g_object_set (e, "bits", 2, "levels", 0, NULL);
  g_object_get (e, "bits", &bits, "levels", &levels, NULL);
  fail_unless_equals_int (bits, 2);
  fail_unless_equals_int (levels, 0);
  g_object_set (e, "bits", 16, "levels", 8, NULL);
  g_object_get (e, "bits", &bits, "levels", &levels, NULL);
  fail_unless_equals_int (bits, 16);
  fail_unless_equals_int (levels, 8);
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          "backend"));
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          "cuda-device-id"));
  gst_object_unref (e);
  e = gst_element_factory_make ("seismicdec", NULL);
  fail_unless (e != NULL);
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          "backend"));
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          "cuda-device-id"));
  gst_object_unref (e);
}

GST_END_TEST;

/* backend=cuda without a usable device is refused at start as by every
 * element (a build without CUDA says so); where it starts, a GPU is there
 * and the gpu suite covers it.  auto and cpu run the CPU without one. */
GST_START_TEST (test_backend_cuda)
{
  static const gchar *names[] = { "seismicenc", "seismicdec" };
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
    gst_util_set_object_arg (G_OBJECT (e), "backend", "auto");
    fail_unless (gst_element_set_state (e, GST_STATE_PAUSED) !=
        GST_STATE_CHANGE_FAILURE);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_element_set_bus (e, NULL);
    gst_object_unref (bus);
    gst_object_unref (e);
  }
  /* backend=cpu codes and decodes as the reference does */
  {
    gfloat *g = make_gather (3, 77);
    GBytes *f = encode ("backend=cpu bits=9 levels=2", g, 3, 77, 100, NULL);
    GBytes *ref = ref_encode (9, 2, g, 3, 77, 100, NULL, 0);
    gsize n;
    const guint8 *d = g_bytes_get_data (f, &n);
    sci_seis_info info;
    gfloat *want = ref_decode (d, n, &info);
    TestRun r = run_new ("seismicdec backend=cpu",
        "application/x-seismic-compressed");
    GstBuffer *b;

    fail_unless (bytes_equal (f, ref));
    fail_unless_equals_int (gst_harness_push (r.h,
            gst_buffer_new_memdup (d, n)), GST_FLOW_OK);
    b = gst_harness_pull (r.h);
    check_gather (b, want, 3, 77, "backend=cpu");
    gst_buffer_unref (b);
    run_free (&r);
    g_free (want);
    g_bytes_unref (f);
    g_bytes_unref (ref);
    g_free (g);
  }
}

GST_END_TEST;

/* ---- negotiation: caps from frames only, refusals, empty input ---- */

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

/* run_pipeline, with the caps that reached the sink in `caps`. */
static GPtrArray *
run_pipeline_caps (const gchar * launch, gchar ** error, GPtrArray * caps)
{
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *sink;
  GstPad *pad;
  GstMessage *m;
  GPtrArray *got = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);

  fail_unless (pipe != NULL, "%s", launch);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, keep_buffer, got, NULL);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, keep_caps,
      caps, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "%s: neither EOS nor an error", launch);
  *error = NULL;
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *err = NULL;

    gst_message_parse_error (m, &err, NULL);
    *error = g_strdup (err->message);
    g_error_free (err);
  }
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return got;
}

/* Every error message on the bus, as "message (debug)". */
static GPtrArray *
all_errors (GstBus * bus)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  gchar *e;

  while (TRUE) {
    GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    GError *err = NULL;
    gchar *dbg = NULL;

    if (!m)
      break;
    gst_message_parse_error (m, &err, &dbg);
    e = g_strdup_printf ("%s (%s)", err->message, dbg ? dbg : "");
    g_ptr_array_add (a, e);
    g_error_free (err);
    g_free (dbg);
    gst_message_unref (m);
  }
  return a;
}

/* Input caps with every field never reach downstream: the caps come from
 * the frame header only.  multifilesrc caps=application/x-seismic-
 * compressed once fixated the fields seismicdec offered it into traces=1,
 * samples=1, which went out before the first frame, and segysink then
 * refused the change to the frame's geometry (docs/elements.md's
 * pipeline). */
GST_START_TEST (test_caps_from_frames)
{
  gfloat *g = make_gather (6, 75);
  GBytes *f = encode ("", g, 6, 75, 2000, NULL);
  gsize n;
  const guint8 *d = g_bytes_get_data (f, &n);
  gchar *dir = g_dir_make_tmp ("seis-XXXXXX", NULL);
  gchar *back = g_build_filename (dir, "back.sgy", NULL);
  gchar *launch, *err;
  GPtrArray *caps = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_caps_unref), *out;
  GstElementFactory *segysink = gst_element_factory_find ("segysink");
  guint k;

  {
    TestRun r = run_new ("seismicdec", "application/x-seismic-compressed, "
        "traces=(int)1, samples=(int)1, sample-interval=(int)1");
    GstEvent *ev;
    guint ncaps = 0;

    for (k = 0; k < 2; k++) {
      GstBuffer *b;

      fail_unless_equals_int (gst_harness_push (r.h,
              gst_buffer_new_memdup (d, n)), GST_FLOW_OK);
      b = gst_harness_pull (r.h);
      fail_unless_equals_int (gst_buffer_get_size (b), 6 * 75 * 4);
      gst_buffer_unref (b);
    }
    while ((ev = gst_harness_try_pull_event (r.h))) {
      if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
        GstCaps *c;

        gst_event_parse_caps (ev, &c);
        check_gather_caps (c, 6, 75, 2000);
        ncaps++;
      }
      gst_event_unref (ev);
    }
    fail_unless_equals_int (ncaps, 1);
    fail_unless (run_error (&r) == NULL);
    run_free (&r);
  }

  for (k = 0; k < 2; k++) {
    gchar *name = g_strdup_printf ("%s/g-%05u.seis", dir, k);

    fail_unless (g_file_set_contents (name, (const gchar *) d, n, NULL));
    g_free (name);
  }
  launch = g_strdup_printf ("multifilesrc location=\"%s/g-%%05d.seis\" "
      "caps=application/x-seismic-compressed ! seismicdec ! "
      "identity name=sink ! fakesink", dir);
  out = run_pipeline_caps (launch, &err, caps);
  fail_unless (err == NULL, "%s", err);
  fail_unless_equals_int (out->len, 2);
  fail_unless (caps->len >= 1);
  for (k = 0; k < caps->len; k++)
    check_gather_caps (caps->pdata[k], 6, 75, 2000);
  g_ptr_array_unref (out);
  g_free (launch);
  if (segysink) {
    GPtrArray *none = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_caps_unref);
    gchar *file = NULL;
    gsize len = 0;

    launch = g_strdup_printf ("multifilesrc location=\"%s/g-%%05d.seis\" "
        "caps=application/x-seismic-compressed ! seismicdec ! "
        "identity name=sink ! segysink location=\"%s\"", dir, back);
    out = run_pipeline_caps (launch, &err, none);
    fail_unless (err == NULL, "%s: %s", launch, err);
    fail_unless_equals_int (out->len, 2);
    /* 3600 bytes of file headers, then 12 traces of 240 + 75 * 4 bytes */
    fail_unless (g_file_get_contents (back, &file, &len, NULL));
    fail_unless_equals_int (len, 3600 + 12 * (240 + 75 * 4));
    g_free (file);
    g_unlink (back);
    g_ptr_array_unref (out);
    g_ptr_array_unref (none);
    g_free (launch);
    gst_object_unref (segysink);
  } else {
    g_print ("segysink not built: its part skipped\n");
  }
  for (k = 0; k < 2; k++) {
    gchar *name = g_strdup_printf ("%s/g-%05u.seis", dir, k);

    g_unlink (name);
    g_free (name);
  }
  g_rmdir (dir);
  g_free (dir);
  g_free (back);
  g_ptr_array_unref (caps);
  g_bytes_unref (f);
  g_free (g);
}

GST_END_TEST;

/* Whether backend=cuda starts here (a usable GPU). */
static gboolean
gpu_usable (void)
{
  GstElement *e = gst_element_factory_make ("seismicdec", NULL);
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

/* Downstream refusing the gather's caps is that error alone: the frames
 * still waiting are not reported as corrupt at the end of the stream.
 * Without a GPU, downstream taking only CUDA memory is told as such. */
GST_START_TEST (test_refused_caps)
{
  gfloat *g = make_gather (6, 75);
  GBytes *f = encode ("", g, 6, 75, 2000, NULL);
  gsize n;
  const guint8 *d = g_bytes_get_data (f, &n);
  GByteArray *all = g_byte_array_new ();
  const gchar *launches[] = {
    "seismicdec ! capsfilter caps=application/x-seismic,traces=5",
    "seismicdec ! capsfilter caps=\"application/x-seismic"
        "(memory:CUDAMemory)\"",
  };
  gboolean gpu = gpu_usable ();
  guint k, chunk;

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
      TestRun r = run_new (launches[k], "application/x-seismic-compressed");
      gsize off, step = chunk ? chunk : all->len;
      GPtrArray *errs;
      GstFlowReturn ret = GST_FLOW_OK;

      for (off = 0; off < all->len && ret == GST_FLOW_OK; off += step)
        ret = gst_harness_push (r.h, gst_buffer_new_memdup (all->data + off,
                MIN (step, all->len - off)));
      fail_if (ret == GST_FLOW_OK, "%s: the gather went through", launches[k]);
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
      run_free (&r);
    }
  }
  g_byte_array_unref (all);
  g_bytes_unref (f);
  g_free (g);
}

GST_END_TEST;

/* A zero-length input is an error, not a silent end. */
GST_START_TEST (test_empty_input)
{
  gchar *dir = g_dir_make_tmp ("seis-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "empty.seis", NULL);
  gchar *launch, *err;
  GPtrArray *out;
  guint k;

  for (k = 0; k < 2; k++) {
    TestRun r = run_new ("seismicdec", "application/x-seismic-compressed");

    if (k == 1)
      fail_unless_equals_int (gst_harness_push (r.h, gst_buffer_new ()),
          GST_FLOW_OK);
    gst_harness_push_event (r.h, gst_event_new_eos ());
    err = run_error (&r);
    fail_unless (err != NULL && strstr (err, "empty") != NULL, "%s", err);
    g_free (err);
    run_free (&r);
  }
  fail_unless (g_file_set_contents (path, "", 0, NULL));
  launch = g_strdup_printf ("filesrc location=\"%s\" ! seismicdec ! "
      "identity name=sink ! fakesink", path);
  out = run_pipeline (launch, &err);
  fail_unless (err != NULL && strstr (err, "empty") != NULL, "%s", err);
  fail_unless_equals_int (out->len, 0);
  g_ptr_array_unref (out);
  g_free (err);
  g_free (launch);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

/* ---- SEG-Y headers ---- */

static GBytes *
random_bytes (gsize n)
{
  guint8 *d = g_malloc (n);
  gsize i;

  /* text-like, as SEG-Y headers are: compressible, not constant */
  for (i = 0; i < n; i++)
    d[i] = i % 80 == 79 ? '\n' : (guint8) (0x20 + rnd () % 60);
  return g_bytes_new_take (d, n);
}

GST_START_TEST (test_segy_meta)
{
  const guint T = 24, S = 300;
  gfloat *g = make_gather (T, S);
  gchar *sc = gather_caps_str (T, S, 2000);
  GBytes *fh = random_bytes (3600 + 2 * 3200), *th = random_bytes (240 * T);
  GstBuffer *in = gather_buffer (g, T, S), *b;
  GstSciSegyMeta *meta;
  GBytes *rec, *frame, *ref;
  TestRun r;
  gsize n, rn;
  const guint8 *d, *rd;
  sci_seis_info info;
  gfloat *want;
  guint k;

  fail_unless (gst_buffer_add_sci_segy_meta (in, fh, th, 123456789012ull));
  meta = gst_buffer_get_sci_segy_meta (in);
  fail_unless (meta != NULL);
  rec = gst_sci_segy_meta_serialize (meta);
  fail_unless (rec != NULL && g_bytes_get_size (rec) > 0);

  /* the frame carries the records: sci_seis_encode's bytes with them */
  r = run_new ("seismicenc bits=11 levels=2", sc);
  fail_unless_equals_int (gst_harness_push (r.h, in), GST_FLOW_OK);
  b = gst_harness_pull (r.h);
  frame = buffer_bytes (b);
  gst_buffer_unref (b);
  run_free (&r);
  d = g_bytes_get_data (frame, &n);
  fail_unless_equals_int (sci_seis_parse (d, n, &info), 0);
  fail_unless_equals_int (info.meta_len, g_bytes_get_size (rec));
  fail_unless (memcmp (d + info.meta_off, g_bytes_get_data (rec, NULL),
          info.meta_len) == 0);
  rd = g_bytes_get_data (rec, &rn);
  ref = ref_encode (11, 2, g, T, S, 2000, rd, rn);
  fail_unless (bytes_equal (frame, ref));
  want = ref_decode (d, n, &info);

  /* decoded from the bytes alone (a buffer without the meta), whole and
   * in 4096-byte pieces: the meta comes back, byte for byte */
  for (k = 0; k < 2; k++) {
    gsize off = 0, step = k ? 4096 : n;
    GstSciSegyMeta *m;

    r = run_new ("seismicdec", "application/x-seismic-compressed");
    for (off = 0; off < n; off += step)
      fail_unless_equals_int (gst_harness_push (r.h,
              gst_buffer_new_memdup (d + off, MIN (step, n - off))),
          GST_FLOW_OK);
    b = gst_harness_pull (r.h);
    fail_unless (b != NULL);
    check_gather (b, want, T, S, "with SEG-Y headers");
    m = gst_buffer_get_sci_segy_meta (b);
    fail_unless (m != NULL, "no GstSciSegyMeta on the decoded gather");
    fail_unless (g_bytes_equal (m->file_header, fh));
    fail_unless (g_bytes_equal (m->trace_headers, th));
    fail_unless_equals_uint64 (m->first_trace, 123456789012ull);
    fail_unless (run_warning (&r) == NULL);
    gst_buffer_unref (b);
    run_free (&r);
  }

  /* seismicenc ! seismicdec in one harness too */
  in = gather_buffer (g, T, S);
  gst_buffer_add_sci_segy_meta (in, fh, th, 7);
  r = run_new ("seismicenc ! seismicdec", sc);
  fail_unless_equals_int (gst_harness_push (r.h, in), GST_FLOW_OK);
  b = gst_harness_pull (r.h);
  meta = gst_buffer_get_sci_segy_meta (b);
  fail_unless (meta != NULL);
  fail_unless (g_bytes_equal (meta->file_header, fh));
  fail_unless (g_bytes_equal (meta->trace_headers, th));
  fail_unless_equals_uint64 (meta->first_trace, 7);
  gst_buffer_unref (b);
  run_free (&r);

  /* metadata that is not SEG-Y records: the gather, no meta, a warning */
  {
    static const guint8 junk[] = "not records at all";
    GBytes *f2 = ref_encode (11, 2, g, T, S, 2000, junk, sizeof junk);
    const guint8 *d2 = g_bytes_get_data (f2, &n);
    gfloat *want2;
    gchar *w;

    want2 = ref_decode (d2, n, &info);
    fail_unless_equals_int (info.meta_len, sizeof junk);
    r = run_new ("seismicdec", "application/x-seismic-compressed");
    fail_unless_equals_int (gst_harness_push (r.h,
            gst_buffer_new_memdup (d2, n)), GST_FLOW_OK);
    b = gst_harness_pull (r.h);
    check_gather (b, want2, T, S, "junk metadata");
    fail_if (gst_buffer_get_sci_segy_meta (b));
    w = run_warning (&r);
    fail_unless (w != NULL && strstr (w, "not SEG-Y header records") != NULL,
        "%s", w);
    fail_unless (strstr (w, "at byte 0") != NULL, "%s", w);
    fail_unless (run_error (&r) == NULL);
    g_free (w);
    gst_buffer_unref (b);
    run_free (&r);
    g_free (want2);
    g_bytes_unref (f2);
  }
  g_free (want);
  g_bytes_unref (ref);
  g_bytes_unref (frame);
  g_bytes_unref (rec);
  g_bytes_unref (fh);
  g_bytes_unref (th);
  g_free (sc);
  g_free (g);
}

GST_END_TEST;

/* ---- real SEG-Y files ---- */

/* The files of ../shared/data/seismic (SCI_TEST_DATA_DIR; skipped where
 * absent, or where segysrc and segysink are not built) through segysrc !
 * seismicenc ! filesink and filesrc ! seismicdec ! segysink: the file
 * comes back the same size with every header byte for byte (textual,
 * binary, extended and trace headers, through the frames' metadata), its
 * samples within the error of 16-bit quantization. */
GST_START_TEST (test_segy_files)
{
  static const gchar *files[] = { "f3.sgy", "f3-lsb.sgy", "Format1msb.sgy",
    "Format5msb.sgy", "shot-gather.sgy", "small.sgy"
  };
  const gchar *data = g_getenv ("SCI_TEST_DATA_DIR");
  GstElementFactory *src = gst_element_factory_find ("segysrc");
  GstElementFactory *sink = gst_element_factory_find ("segysink");
  gchar *tmp = g_dir_make_tmp ("seis-segy-XXXXXX", NULL);
  gchar *seis = g_build_filename (tmp, "f.seis", NULL);
  gchar *back = g_build_filename (tmp, "back.sgy", NULL);
  guint i, done = 0;

  if (!src || !sink || !data) {
    g_print ("segysrc/segysink not built, or no SCI_TEST_DATA_DIR: "
        "skipped\n");
    files[0] = NULL;
  }
  for (i = 0; files[0] && i < G_N_ELEMENTS (files); i++) {
    gchar *path = g_build_filename (data, "seismic", files[i], NULL);
    gchar *orig = NULL, *got = NULL, *launch, *err;
    gsize olen, glen, th, tl, ntr, t, k, at = 0;
    GstSciSegyBinaryHeader bh;
    GPtrArray *frames, *gathers;
    gdouble lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE, worst = 0;

    if (!g_file_get_contents (path, &orig, &olen, NULL)) {
      g_print ("%s absent: skipped\n", path);
      g_free (path);
      continue;
    }
    launch = g_strdup_printf ("segysrc location=\"%s\" ! seismicenc bits=16 "
        "levels=1 ! identity name=sink ! filesink location=\"%s\"", path, seis);
    frames = run_pipeline (launch, &err);
    fail_unless (err == NULL, "%s: %s", launch, err);
    fail_unless (frames->len >= 1);
    g_free (launch);
    launch = g_strdup_printf ("filesrc location=\"%s\" ! seismicdec ! "
        "identity name=sink ! segysink location=\"%s\"", seis, back);
    gathers = run_pipeline (launch, &err);
    fail_unless (err == NULL, "%s: %s", launch, err);
    fail_unless_equals_int (gathers->len, frames->len);
    fail_unless (g_file_get_contents (back, &got, &glen, NULL));
    fail_unless_equals_uint64 (glen, olen);
    fail_unless (gst_sci_segy_binary_header_parse ((guint8 *) orig +
            GST_SCI_SEGY_TEXT_HEADER_BYTES, &bh, NULL));
    fail_unless (bh.ext_headers >= 0);
    th = GST_SCI_SEGY_FILE_HEADER_BYTES + 3200 * (gsize) bh.ext_headers;
    tl = GST_SCI_SEGY_TRACE_HEADER_BYTES + (gsize) bh.samples *
        gst_sci_segy_format_bytes (bh.format);
    ntr = (olen - th) / tl;
    fail_unless (memcmp (orig, got, th) == 0, "%s: file header", files[i]);
    for (t = 0; t < ntr; t++)
      fail_unless (memcmp (orig + th + t * tl, got + th + t * tl,
              GST_SCI_SEGY_TRACE_HEADER_BYTES) == 0,
          "%s: trace header %" G_GSIZE_FORMAT, files[i], t);
    /* the samples, as floats, against the gathers that came out */
    {
      gfloat *want = g_new (gfloat, bh.samples);

      for (k = 0; k < gathers->len; k++) {
        GstMapInfo map;
        gsize n;

        fail_unless (gst_buffer_map (gathers->pdata[k], &map, GST_MAP_READ));
        fail_unless (gst_buffer_get_sci_segy_meta (gathers->pdata[k]));
        n = map.size / (4 * (gsize) bh.samples);
        for (t = 0; t < n; t++, at++) {
          gsize s;

          gst_sci_segy_samples_to_float (bh.format, bh.little_endian,
              (guint8 *) orig + th + at * tl +
              GST_SCI_SEGY_TRACE_HEADER_BYTES, want, bh.samples);
          for (s = 0; s < bh.samples; s++) {
            gfloat v;

            memcpy (&v, map.data + 4 * (t * bh.samples + s), 4);
            lo = MIN (lo, want[s]);
            hi = MAX (hi, want[s]);
            worst = MAX (worst, fabs ((gdouble) v - want[s]));
          }
        }
        gst_buffer_unmap (gathers->pdata[k], &map);
      }
      g_free (want);
    }
    fail_unless_equals_uint64 (at, ntr);
    fail_unless (worst <= 1e-3 * (hi - lo), "%s: error %g of a range %g",
        files[i], worst, hi - lo);
    done++;
    g_ptr_array_unref (frames);
    g_ptr_array_unref (gathers);
    g_free (launch);
    g_free (orig);
    g_free (got);
    g_free (path);
  }
  if (files[0])
    g_print ("%u SEG-Y files through seismicenc and seismicdec\n", done);
  g_unlink (seis);
  g_unlink (back);
  g_rmdir (tmp);
  g_free (seis);
  g_free (back);
  g_free (tmp);
  if (src)
    gst_object_unref (src);
  if (sink)
    gst_object_unref (sink);
}

GST_END_TEST;

static Suite *
seismic_suite (void)
{
  Suite *s = suite_create ("scicodec-seismic");
  TCase *tc = tcase_create ("seismic");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_round_trip);
  tcase_add_test (tc, test_frame_version);
  tcase_add_test (tc, test_properties_while_playing);
  tcase_add_test (tc, test_stream);
  tcase_add_test (tc, test_typefind_filesrc);
  tcase_add_test (tc, test_corrupt);
  tcase_add_test (tc, test_nonfinite);
  tcase_add_test (tc, test_wrong_size);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_backend_cuda);
  tcase_add_test (tc, test_caps_from_frames);
  tcase_add_test (tc, test_refused_caps);
  tcase_add_test (tc, test_empty_input);
  tcase_add_test (tc, test_segy_meta);
  tcase_add_test (tc, test_segy_files);
  return s;
}

GST_CHECK_MAIN (seismic);
