/*
 * The `threads` property of the codec elements (GstSciBackendState of
 * their base class), CPU backend:
 *
 *  - every codec element has it: a guint 0..256, default 0 (one thread a
 *    CPU), changeable up to READY, with a blurb;
 *  - threads=1 and threads=3 (and the default) give the same bytes, from
 *    frames big enough for every parallel region of the stage: cudadwt,
 *    cudaidwt, htj2kenc, ebcotcm, dpcmenc, dpcmdec, seismicenc,
 *    seismicdec, sppfilter;
 *  - threads=4 starts three workers when a frame needs them (counted in
 *    /proc/self/task), threads=1 none, and stopping the element joins
 *    them.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <glib/gstdio.h>
#include <string.h>

static const gchar *const codec_elements[] = {
  "cudadwt", "cudaidwt", "htj2kenc", "ebcotcm", "dpcmenc", "dpcmdec",
  "seismicenc", "seismicdec", "sppfilter",
};

static guint32 rng_state = 20250117;

static guint32
rnd (void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

GST_START_TEST (test_property)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (codec_elements); i++) {
    GstElement *e = gst_element_factory_make (codec_elements[i], NULL);
    GParamSpec *ps;
    GParamSpecUInt *pu;
    guint v = 99;

    fail_unless (e != NULL, "%s: not found", codec_elements[i]);
    ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "threads");
    fail_unless (ps != NULL, "%s has no threads property", codec_elements[i]);
    fail_unless (G_IS_PARAM_SPEC_UINT (ps), "%s: threads is not a guint",
        codec_elements[i]);
    pu = G_PARAM_SPEC_UINT (ps);
    fail_unless_equals_int (pu->minimum, 0);
    fail_unless_equals_int (pu->maximum, 256);
    fail_unless_equals_int (pu->default_value, 0);
    fail_unless (ps->flags & G_PARAM_READWRITE);
    fail_unless (ps->flags & GST_PARAM_MUTABLE_READY);
    fail_unless (strlen (g_param_spec_get_blurb (ps)) > 40);
    g_object_get (e, "threads", &v, NULL);
    fail_unless_equals_int (v, 0);
    g_object_set (e, "threads", 7, NULL);
    g_object_get (e, "threads", &v, NULL);
    fail_unless_equals_int (v, 7);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* ---- the same bytes on any number of threads ---- */

typedef struct
{
  const gchar *element;         /* with its properties */
  gchar *caps;                  /* of the input */
  GBytes *input;
} Case;

/* The output of `c` with threads=t (G_MAXUINT: the property left at its
 * default), and its caps in *caps (may be NULL). */
static GBytes *
run_case (const Case * c, guint t, gchar ** caps)
{
  gchar *desc = t == G_MAXUINT ? g_strdup_printf ("%s backend=cpu",
      c->element) : g_strdup_printf ("%s backend=cpu threads=%u", c->element,
      t);
  GstHarness *h = gst_harness_new_parse (desc);
  GstBuffer *in, *out;
  GstMapInfo map;
  GBytes *bytes;

  gst_harness_set_src_caps_str (h, c->caps);
  in = gst_buffer_new_wrapped_bytes (c->input);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL, "%s: no output", desc);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  bytes = g_bytes_new (map.data, map.size);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  if (caps) {
    GstCaps *sc = gst_pad_get_current_caps (h->sinkpad);

    *caps = gst_caps_to_string (sc);
    gst_caps_unref (sc);
  }
  gst_harness_teardown (h);
  g_free (desc);
  return bytes;
}

/* Runs `c` on 1, 3 and the default threads: the same bytes every time.
 * Returns the output (and its caps in *caps) for the next stage. */
static GBytes *
same_on_any_threads (const Case * c, gchar ** caps)
{
  GBytes *one = run_case (c, 1, caps);
  static const guint others[] = { 3, G_MAXUINT };
  guint i;

  fail_unless (g_bytes_get_size (one) > 0);
  for (i = 0; i < G_N_ELEMENTS (others); i++) {
    GBytes *b = run_case (c, others[i], NULL);

    fail_unless (g_bytes_equal (one, b), "%s: threads=%d gave other bytes "
        "than threads=1", c->element, (gint) others[i]);
    g_bytes_unref (b);
  }
  return one;
}

static GBytes *
video_frame (gint w, gint h, gint comps, gint bytes_per_sample)
{
  gsize n = (gsize) w * h * comps * bytes_per_sample, i;
  guint8 *d = g_malloc (n);

  for (i = 0; i < n; i++)
    d[i] = (guint8) ((i / bytes_per_sample) % 251 + (rnd () & 7));
  if (bytes_per_sample == 2)
    for (i = 1; i < n; i += 2)
      d[i] &= 0x0f;             /* 12-bit samples */
  return g_bytes_new_take (d, n);
}

GST_START_TEST (test_same_bytes_video)
{
  /* 336 x 272, 4:4:4 12-bit: a component of 91392 samples (every region
   * of the wavelet stage splits), blocks enough for the block coders */
  Case c = { NULL, (gchar *) "video/x-raw,format=Y444_12LE,width=336,"
        "height=272,framerate=25/1", NULL
  };
  GBytes *coeffs, *back, *cs;
  gchar *coeff_caps = NULL;
  Case inv;

  c.input = video_frame (336, 272, 3, 2);
  c.element = "cudadwt levels=4";
  coeffs = same_on_any_threads (&c, &coeff_caps);
  inv.element = "cudaidwt";
  inv.caps = coeff_caps;
  inv.input = coeffs;
  back = same_on_any_threads (&inv, NULL);
  fail_unless (g_bytes_equal (back, c.input), "5/3 round trip not exact");
  g_bytes_unref (back);

  c.element = "cudadwt filter=9-7 levels=5";
  g_bytes_unref (same_on_any_threads (&c, NULL));
  c.element = "htj2kenc reversible=true";
  cs = same_on_any_threads (&c, NULL);
  g_bytes_unref (cs);
  c.element = "htj2kenc reversible=false bitrate=2";
  g_bytes_unref (same_on_any_threads (&c, NULL));
  c.element = "ebcotcm reversible=false bitrate=1.5 layers=3";
  g_bytes_unref (same_on_any_threads (&c, NULL));

  g_bytes_unref (coeffs);
  g_free (coeff_caps);
  g_bytes_unref (c.input);
}

GST_END_TEST;

GST_START_TEST (test_same_bytes_dpcm)
{
  /* 320 x 232: rows wide enough for the row regions, samples enough for
   * the segments */
  const gint w = 320, h = 232;
  guint16 *px = g_new (guint16, w * h);
  Case c = { "dpcmenc", (gchar *) "video/x-raw,format=GRAY16_LE,width=320,"
        "height=232,framerate=25/1", NULL
  };
  GBytes *frame, *back;
  gchar *caps = NULL;
  gint x, y;
  Case dec;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      px[y * w + x] = (guint16) (12000 + 30 * x + 17 * y + (rnd () & 63));
  c.input = g_bytes_new_take (px, (gsize) w * h * 2);
  frame = same_on_any_threads (&c, &caps);
  dec.element = "dpcmdec";
  dec.caps = caps;
  dec.input = frame;
  back = same_on_any_threads (&dec, NULL);
  fail_unless (g_bytes_equal (back, c.input), "DPCM round trip not exact");
  c.element = "dpcmenc scan=columns";
  g_bytes_unref (same_on_any_threads (&c, NULL));
  g_bytes_unref (back);
  g_bytes_unref (frame);
  g_free (caps);
  g_bytes_unref (c.input);
}

GST_END_TEST;

GST_START_TEST (test_same_bytes_seismic_spp)
{
  const gint traces = 240, samples = 500, L = 44, S = 52, B = 33;
  gfloat *g = g_new (gfloat, traces * samples);
  guint16 *cube = g_new (guint16, L * S * B);
  Case c = { "seismicenc bits=12 levels=3", (gchar *) "application/x-seismic,"
        "traces=240,samples=500,sample-interval=2000", NULL
  };
  GBytes *frame, *back;
  gchar *caps = NULL;
  Case dec;
  gint i;

  for (i = 0; i < traces * samples; i++)
    g[i] = (gfloat) (((i % samples) - 250) * 0.01 + (rnd () % 1000) * 1e-4);
  c.input = g_bytes_new_take (g, (gsize) traces * samples * 4);
  frame = same_on_any_threads (&c, &caps);
  dec.element = "seismicdec";
  dec.caps = caps;
  dec.input = frame;
  back = same_on_any_threads (&dec, NULL);
  fail_unless_equals_int (g_bytes_get_size (back), traces * samples * 4);
  g_bytes_unref (back);
  g_bytes_unref (frame);
  g_free (caps);
  g_bytes_unref (c.input);

  for (i = 0; i < L * S * B; i++)
    cube[i] = (guint16) (1000 + (i % B) * 40 + (i / B % S) * 5 + rnd () % 90);
  c.element = "sppfilter window-size=7";
  c.caps = (gchar *) "application/x-hyperspectral,lines=44,samples=52,"
      "bands=33,format=U16LE,interleave=bip";
  c.input = g_bytes_new_take (cube, (gsize) L * S * B * 2);
  g_bytes_unref (same_on_any_threads (&c, NULL));
  g_bytes_unref (c.input);
}

GST_END_TEST;

/* ---- the workers come and go with the element ---- */

static gint
count_threads (void)
{
  GDir *d = g_dir_open ("/proc/self/task", 0, NULL);
  gint n = 0;

  if (!d)
    return -1;
  while (g_dir_read_name (d))
    n++;
  g_dir_close (d);
  return n;
}

/* Threads of the process while dpcmenc threads=t holds a frame's work
 * done, and after it stopped, minus those before. */
static void
workers_of (guint t, gint * during, gint * after)
{
  gint before = count_threads ();
  gchar *desc = g_strdup_printf ("dpcmenc backend=cpu threads=%u", t);
  GstHarness *h = gst_harness_new_parse (desc);
  guint16 *px = g_new0 (guint16, 512 * 16);
  GstBuffer *out;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY16_LE,"
      "width=512,height=16,framerate=25/1");
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_wrapped (px, 512 * 16 * 2)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  *during = count_threads () - before;
  gst_harness_teardown (h);
  *after = count_threads () - before;
  g_free (desc);
}

GST_START_TEST (test_workers)
{
  gint during, after;

  if (count_threads () < 0) {
    g_print ("no /proc/self/task: worker count not checked\n");
    return;
  }
  workers_of (4, &during, &after);
  fail_unless_equals_int (during, 3);
  fail_unless_equals_int (after, 0);
  workers_of (1, &during, &after);
  fail_unless_equals_int (during, 0);
  fail_unless_equals_int (after, 0);
}

GST_END_TEST;

static Suite *
threads_suite (void)
{
  Suite *s = suite_create ("scicodec-threads");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_property);
  tcase_add_test (tc, test_same_bytes_video);
  tcase_add_test (tc, test_same_bytes_dpcm);
  tcase_add_test (tc, test_same_bytes_seismic_spp);
  tcase_add_test (tc, test_workers);
  return s;
}

GST_CHECK_MAIN (threads);
