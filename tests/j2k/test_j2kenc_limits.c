/*
 * What htj2kenc and ebcotcm say of their limits, against what they do:
 * the caps templates' widths and heights are the codestream's limit
 * (SCI_HTJ2K_MAX_SIZE, one precinct a resolution): a frame that wide and
 * that tall negotiates and encodes (and openjpegdec gives it back), one
 * sample more is refused at negotiation; qstep's range is one a user can
 * read; levels=32 on a frame that has nothing to decompose after 6 levels
 * codes (and 15, the deepest OpenJPEG decodes, comes back exact).
 *
 *   test-j2kenc-limits          the CPU backend (CI)
 *   test-j2kenc-limits --gpu    the CUDA backend against the CPU's bytes
 *                               for the same frames; exits 77 without a
 *                               usable CUDA device
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <string.h>

#if HAVE_CUDA
#include "tests/common/cudacheck.h"
#endif

#include "codec/j2k/htj2k.h"
#include "tests/common/frameutil.h"
#include "j2kutil.h"

static const gchar *const encoders[] = { "htj2kenc", "ebcotcm" };

/* The width and height ranges of every structure of a pad template. */
static void
assert_template_sizes (GstElementFactory * f, GstPadDirection dir)
{
  const GList *l;

  for (l = gst_element_factory_get_static_pad_templates (f); l; l = l->next) {
    GstStaticPadTemplate *t = l->data;
    GstCaps *caps;
    guint i;

    if (t->direction != dir)
      continue;
    caps = gst_static_caps_get (&t->static_caps);
    fail_if (gst_caps_is_empty (caps));
    for (i = 0; i < gst_caps_get_size (caps); i++) {
      const GstStructure *s = gst_caps_get_structure (caps, i);
      const gchar *fields[] = { "width", "height" };
      guint k;

      for (k = 0; k < G_N_ELEMENTS (fields); k++) {
        const GValue *v = gst_structure_get_value (s, fields[k]);

        fail_unless (v && GST_VALUE_HOLDS_INT_RANGE (v), "%s %s: %s",
            gst_plugin_feature_get_name (f), gst_structure_get_name (s),
            fields[k]);
        fail_unless_equals_int (gst_value_get_int_range_min (v), 1);
        fail_unless (gst_value_get_int_range_max (v) == SCI_HTJ2K_MAX_SIZE,
            "%s %s template: %s up to %d, the encoder takes %d",
            gst_plugin_feature_get_name (f), gst_structure_get_name (s),
            fields[k], gst_value_get_int_range_max (v), SCI_HTJ2K_MAX_SIZE);
      }
    }
    gst_caps_unref (caps);
  }
}

GST_START_TEST (test_template_sizes)
{
  guint e;

  for (e = 0; e < G_N_ELEMENTS (encoders); e++) {
    GstElementFactory *f = gst_element_factory_find (encoders[e]);

    fail_unless (f != NULL, "%s missing", encoders[e]);
    assert_template_sizes (f, GST_PAD_SINK);
    assert_template_sizes (f, GST_PAD_SRC);
    gst_object_unref (f);
  }
}

GST_END_TEST;

/* Whether the encoder's sink pad accepts caps (raw or wavelet) w x h. */
static gboolean
accepts (const gchar * encoder, const gchar * caps_str, gint w, gint h)
{
  GstElement *e = gst_element_factory_make (encoder, NULL);
  GstPad *pad = gst_element_get_static_pad (e, "sink");
  gchar *full = g_strdup_printf ("%s, width=(int)%d, height=(int)%d, "
      "framerate=(fraction)30/1", caps_str, w, h);
  GstCaps *caps = gst_caps_from_string (full);
  gboolean ok;

  fail_unless (caps != NULL, "%s", full);
  ok = gst_pad_query_accept_caps (pad, caps);
  gst_caps_unref (caps);
  g_free (full);
  gst_object_unref (pad);
  gst_object_unref (e);
  return ok;
}

GST_START_TEST (test_accepts_up_to_the_limit)
{
  const gchar *raw = "video/x-raw, format=(string)GRAY8";
  const gchar *wavelet = "application/x-wavelet, components=(int)1, "
      "depth=(int)8, filter=(string)5-3, levels=(int)5, "
      "colour-transform=(string)none, format=(string)S32, "
      "video-format=(string)GRAY8";
  const gint max = SCI_HTJ2K_MAX_SIZE;
  guint e;

  for (e = 0; e < G_N_ELEMENTS (encoders); e++) {
    fail_unless (accepts (encoders[e], raw, max, 8), "%s", encoders[e]);
    fail_unless (accepts (encoders[e], raw, 8, max), "%s", encoders[e]);
    fail_if (accepts (encoders[e], raw, max + 1, 8), "%s", encoders[e]);
    fail_if (accepts (encoders[e], raw, 8, max + 1), "%s", encoders[e]);
    fail_unless (accepts (encoders[e], wavelet, max, 8), "%s", encoders[e]);
    fail_if (accepts (encoders[e], wavelet, max + 1, 8), "%s", encoders[e]);
  }
}

GST_END_TEST;

/* gst-launch's view: a source that can only give a frame one sample too
 * wide does not link, and the message names the caps. */
GST_START_TEST (test_wider_refused_at_link)
{
  guint e;

  for (e = 0; e < G_N_ELEMENTS (encoders); e++) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! "
        "video/x-raw,format=GRAY8,width=%d,height=8 ! %s ! fakesink",
        SCI_HTJ2K_MAX_SIZE + 1, encoders[e]);
    GError *err = NULL;
    GstElement *pipe = gst_parse_launch (desc, &err);
    gchar *width = g_strdup_printf ("width=(int)%d", SCI_HTJ2K_MAX_SIZE + 1);

    fail_unless (err != NULL, "%s: linked", desc);
    GST_INFO ("%s: %s", desc, err->message);
    fail_unless (strstr (err->message, "can't handle caps") &&
        strstr (err->message, width), "%s: \"%s\"", desc, err->message);
    g_error_free (err);
    if (pipe)
      gst_object_unref (pipe);
    g_free (width);
    g_free (desc);
  }
}

GST_END_TEST;

/* And a frame one sample too wide pushed anyway is not coded. */
GST_START_TEST (test_wider_frame_not_coded)
{
  guint e;

  for (e = 0; e < G_N_ELEMENTS (encoders); e++) {
    gchar *p = g_strdup_printf ("%s backend=cpu", encoders[e]);
    GstCaps *caps = frameutil_video_caps ("GRAY8", SCI_HTJ2K_MAX_SIZE + 1, 2);

    j2kutil_expect_refusal (p, caps, NULL);
    g_free (p);
  }
}

GST_END_TEST;

/* The largest frames code and come back exact. */
GST_START_TEST (test_largest_frames)
{
  const gint sizes[][2] = { {SCI_HTJ2K_MAX_SIZE, 6}, {5, SCI_HTJ2K_MAX_SIZE} };
  guint e, s;

  J2KUTIL_REQUIRE_OPENJPEGDEC ();
  for (e = 0; e < G_N_ELEMENTS (encoders); e++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      gchar *p = g_strdup_printf ("%s backend=cpu reversible=true ! "
          "openjpegdec", encoders[e]);

      j2kutil_check_lossless (p, "GRAY8", sizes[s][0], sizes[s][1], 5 + s,
          NULL);
      g_free (p);
    }
}

GST_END_TEST;

/* Deep levels on 64 x 64 (nothing left to decompose after 6).  No decoder
 * at hand reads them all: OpenJPEG decodes up to 15 levels (from 16, at
 * any size, a flat grey image and no error: apparently 2^(15 + levels),
 * resolution 0's precinct in image units, overflows its 32-bit integers),
 * Grok up to 16, OpenJPH none beyond the frame's own 6.  So openjpegdec
 * checks 15 levels, lossless and lossy, and 32 levels are only coded. */
GST_START_TEST (test_deep_levels)
{
  const gchar *formats[] = { "GRAY8", "RGB", "I420_10LE" };
  guint e, f;

  J2KUTIL_REQUIRE_OPENJPEGDEC ();
  for (e = 0; e < G_N_ELEMENTS (encoders); e++)
    for (f = 0; f < G_N_ELEMENTS (formats); f++) {
      gchar *p = g_strdup_printf ("%s backend=cpu reversible=true levels=15 "
          "! openjpegdec", encoders[e]);
      gchar *lossy = g_strdup_printf ("%s backend=cpu levels=15 qstep=0.002",
          encoders[e]);
      gchar *deep = g_strdup_printf ("%s backend=cpu reversible=true "
          "levels=32", encoders[e]);
      GstCaps *caps = frameutil_video_caps (formats[f], 64, 64);
      GstVideoInfo info;
      GstBuffer *in, *out;
      gdouble psnr;

      j2kutil_check_lossless (p, formats[f], 64, 64, 40 + f, NULL);
      fail_unless (gst_video_info_from_caps (&info, caps));
      in = j2kutil_random_frame (&info, 60 + f);
      j2kutil_code_and_measure (lossy, &info, caps, in, NULL, &psnr);
      fail_unless (psnr > 40, "%s, %s: PSNR %.2f dB", lossy, formats[f], psnr);
      out = j2kutil_encode (deep, in, caps, NULL);
      fail_unless (gst_buffer_get_size (out) > 0);
      gst_buffer_unref (out);
      gst_buffer_unref (in);
      gst_caps_unref (caps);
      g_free (deep);
      g_free (lossy);
      g_free (p);
    }
}

GST_END_TEST;

GST_START_TEST (test_qstep_range)
{
  guint e;

  for (e = 0; e < G_N_ELEMENTS (encoders); e++) {
    GstElement *el = gst_element_factory_make (encoders[e], NULL);
    GParamSpec *ps =
        g_object_class_find_property (G_OBJECT_GET_CLASS (el), "qstep");
    GParamSpecDouble *d;
    GValue v = G_VALUE_INIT;
    gchar *shown;

    fail_unless (ps && G_IS_PARAM_SPEC_DOUBLE (ps), "%s", encoders[e]);
    d = G_PARAM_SPEC_DOUBLE (ps);
    /* what gst-inspect-1.0 prints */
    shown = g_strdup_printf ("%g - %g", d->minimum, d->maximum);
    fail_unless_equals_string (shown, "1e-09 - 2");
    g_free (shown);
    fail_unless (d->minimum == SCI_HTJ2K_MIN_QSTEP);
    fail_unless (d->default_value >= d->minimum &&
        d->default_value <= d->maximum);
    /* a smaller step is taken as the smallest */
    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, 1e-300);
    fail_unless (g_param_value_validate (ps, &v));
    fail_unless (g_value_get_double (&v) == SCI_HTJ2K_MIN_QSTEP);
    g_value_unset (&v);
    gst_object_unref (el);
  }
}

GST_END_TEST;

/* Steps below the minimum would code what it codes: with one level or
 * more, every subband's step at 1e-9 is already the finest (the codec at
 * 1e-9 and at 1e-300, HT and Part 1, one and three components). */
static gsize
code_at (const sci_wt_geometry * g, int part1, gdouble qstep,
    const void *coeffs, guint8 ** out)
{
  sci_htj2k_params p;
  sci_htj2k_enc *e;
  gsize len, cap;

  sci_htj2k_params_default (&p);
  p.coder = part1 ? SCI_J2K_CODER_PART1 : SCI_J2K_CODER_HT;
  p.qstep = qstep;
  e = sci_htj2k_enc_new (g, &p, NULL);
  fail_unless (e != NULL);
  cap = sci_htj2k_max_bytes (e);
  *out = g_malloc (cap);
  len = sci_htj2k_encode (e, coeffs, *out, cap);
  fail_unless (len > 0);
  sci_htj2k_enc_free (e);
  return len;
}

GST_START_TEST (test_qstep_minimum_is_finest)
{
  const guint levels[] = { 1, 5, 32 };
  guint l, comps, part1;

  for (l = 0; l < G_N_ELEMENTS (levels); l++)
    for (comps = 1; comps <= 3; comps += 2)
      for (part1 = 0; part1 < 2; part1++) {
        sci_wt_geometry g;
        sci_wt_plane src[3];
        guint16 *px;
        gfloat *coeffs;
        guint8 *a, *b;
        gsize n, i, la, lb;
        guint c;

        memset (&g, 0, sizeof g);
        g.width = 40;
        g.height = 24;
        g.components = comps;
        g.depth = 16;
        for (c = 0; c < 3; c++)
          g.dx[c] = g.dy[c] = 1;
        g.filter = SCI_DWT_97;
        g.levels = levels[l];
        g.ct = comps == 3 ? SCI_CT_ICT : SCI_CT_NONE;
        n = (gsize) g.width * g.height;
        px = g_new (guint16, n * comps);
        for (i = 0; i < n * comps; i++)
          px[i] = (guint16) g_random_int ();
        for (c = 0; c < comps; c++) {
          src[c].data = px + c * n;
          src[c].row_stride = g.width * 2;
          src[c].pixel_stride = 2;
        }
        coeffs = g_new (gfloat, sci_wt_coeff_count (&g));
        fail_unless (sci_wt_forward (NULL, &g, src, coeffs) == 0);
        la = code_at (&g, part1, SCI_HTJ2K_MIN_QSTEP, coeffs, &a);
        lb = code_at (&g, part1, 1e-300, coeffs, &b);
        fail_unless (la == lb && memcmp (a, b, la) == 0,
            "%u levels, %u components, %s: qstep 1e-9 and 1e-300 differ",
            levels[l], comps, part1 ? "Part 1" : "HT");
        g_free (a);
        g_free (b);
        g_free (coeffs);
        g_free (px);
      }
}

GST_END_TEST;

/* ---- the CUDA backend (--gpu) -------------------------------------------- */

GST_START_TEST (test_gpu_same_bytes)
{
  struct
  {
    const gchar *format, *props;
    gint w, h;
  } cases[] = {
    {"GRAY8", "reversible=true levels=32", 64, 64},
    {"RGB", "levels=32", 64, 64},
    {"GRAY8", "reversible=true", SCI_HTJ2K_MAX_SIZE, 6},
    {"GRAY16_LE", "levels=3", 5, SCI_HTJ2K_MAX_SIZE},
  };
  guint e, i;

  for (e = 0; e < G_N_ELEMENTS (encoders); e++)
    for (i = 0; i < G_N_ELEMENTS (cases); i++) {
      GstCaps *caps = frameutil_video_caps (cases[i].format, cases[i].w,
          cases[i].h);
      GstVideoInfo info;
      GstBuffer *in;
      gchar *cpu = g_strdup_printf ("%s backend=cpu %s", encoders[e],
          cases[i].props);
      gchar *cuda = g_strdup_printf ("%s backend=cuda %s", encoders[e],
          cases[i].props);

      fail_unless (gst_video_info_from_caps (&info, caps));
      in = j2kutil_random_frame (&info, 11 + i);
      j2kutil_assert_same_coding (cpu, cuda, in, caps, cuda);
      gst_buffer_unref (in);
      gst_caps_unref (caps);
      g_free (cpu);
      g_free (cuda);
    }
}

GST_END_TEST;

/* Whether a CUDA device is usable (asked in a child: cudacheck.h). */
static gboolean
have_cuda_device (void)
{
#if HAVE_CUDA
  return cuda_device_usable_in_child ();
#else
  return FALSE;
#endif
}

int
main (int argc, char **argv)
{
  gboolean gpu = argc > 1 && !strcmp (argv[1], "--gpu");
  Suite *s = suite_create ("scicodec-j2kenc-limits");
  TCase *tc = tcase_create (gpu ? "limits-gpu" : "limits");

  if (gpu && !have_cuda_device ()) {
    g_print ("no usable CUDA device: skipped\n");
    return 77;
  }
  /* --gpu is ours: GStreamer's option parser must not see it (it stops
   * at an unknown option and leaves GStreamer uninitialised) */
  if (gpu) {
    argv[1] = argv[0];
    argc--;
    argv++;
  }
  gst_check_init (&argc, &argv);
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  if (gpu) {
    tcase_add_test (tc, test_gpu_same_bytes);
  } else {
    tcase_add_test (tc, test_template_sizes);
    tcase_add_test (tc, test_accepts_up_to_the_limit);
    tcase_add_test (tc, test_wider_refused_at_link);
    tcase_add_test (tc, test_wider_frame_not_coded);
    tcase_add_test (tc, test_largest_frames);
    tcase_add_test (tc, test_deep_levels);
    tcase_add_test (tc, test_qstep_range);
    tcase_add_test (tc, test_qstep_minimum_is_finest);
  }
  return gst_check_run_suite (s, "scicodec-j2kenc-limits", __FILE__);
}
