/*
 * htj2kenc in GstHarness, system memory, CPU backend (on a GPU machine
 * `auto` runs the CUDA one; tests/common/test_elements_gpu.c compares the two):
 * lossless round trips through openjpegdec (OpenJPEG's HTJ2K decoder) and,
 * where it is installed, OpenJPH's ojph_expand; the output caps; lossy
 * quality; the refusals and the backends; coefficients from cudadwt coded as the element's own DWT
 * would; the JPH file format; renegotiation on a property change.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "tests/common/frameutil.h"
#include "j2kutil.h"

/* Whether `needle` (n bytes) occurs in the first `size` bytes of `data`. */
static gboolean
contains (const guint8 * data, gsize size, const gchar * needle, gsize n)
{
  gsize i;

  for (i = 0; i + n <= size; i++)
    if (memcmp (data + i, needle, n) == 0)
      return TRUE;
  return FALSE;
}

#define LOSSLESS_PIPELINE "htj2kenc reversible=true ! openjpegdec"

GST_START_TEST (test_lossless_openjpegdec)
{
  /* what openjpegdec decodes to a format of its own for every size */
  const gchar *formats[] = { "GRAY8", "GRAY16_LE", "I420", "I420_10LE",
    "Y42B", "I422_10LE", "Y444", "Y444_10LE", "Y444_12LE", "Y444_16LE",
    "RGB", "BGR", "RGBP", "BGRP", "GBR", "GBR_10LE", "GBR_12LE",
  };
  /* subsampled 12-bit comes back as AYUV64, whose chroma openjpegdec 1.22
   * indexes correctly only for even widths */
  const gchar *even_only[] = { "I420_12LE", "I422_12LE" };
  const gint sizes[][2] = { {33, 17}, {1, 7}, {64, 64}, {7, 1} };
  guint f, s;

  J2KUTIL_REQUIRE_OPENJPEGDEC ();
  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      j2kutil_check_lossless (LOSSLESS_PIPELINE, formats[f], sizes[s][0],
          sizes[s][1], 17 * f + s + 1, NULL);
  for (f = 0; f < G_N_ELEMENTS (even_only); f++)
    j2kutil_check_lossless (LOSSLESS_PIPELINE, even_only[f], 64, 38, f + 100,
        NULL);
}

GST_END_TEST;

GST_START_TEST (test_caps)
{
  guint i;

  for (i = 0; i < j2kutil_n_caps_cases; i++) {
    const J2kCapsCase *c = &j2kutil_caps_cases[i];
    GstStructure *s = j2kutil_coded_structure ("htj2kenc", c->format, 35, 21);

    j2kutil_assert_jpc_structure (s, c, 35, 21);
    gst_structure_free (s);
  }
}

GST_END_TEST;

/* A smooth image (two slow sinusoids and a ramp) of any format. */
static gdouble
smooth_sample (guint c, guint x, guint y, guint cw, guint ch, gpointer unused)
{
  return 0.5 + 0.3 * sin (x / (9.0 + c)) * cos (y / 13.0) +
      0.15 * (gdouble) x / cw - 0.07;
}

static GstBuffer *
smooth_buffer (const GstVideoInfo * info)
{
  return j2kutil_synthetic_frame (info, smooth_sample, NULL);
}

GST_START_TEST (test_lossy_psnr)
{
  const gchar *formats[] = { "RGB", "I420", "GRAY8", "I420_10LE" };
  guint f;

  J2KUTIL_REQUIRE_OPENJPEGDEC ();
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstCaps *caps = frameutil_video_caps (formats[f], 131, 97);
    GstVideoInfo info;
    GstBuffer *in;
    gdouble psnr;

    fail_unless (gst_video_info_from_caps (&info, caps));
    in = smooth_buffer (&info);
    j2kutil_code_and_measure ("htj2kenc", &info, caps, in, NULL, &psnr);
    GST_INFO ("%s: PSNR %.2f dB", formats[f], psnr);
    fail_unless (psnr > 35, "%s: PSNR %.2f dB", formats[f], psnr);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
  }
}

GST_END_TEST;

GST_START_TEST (test_refusals)
{
  GstElement *e;
  guint v;

  /* code-blocks of more than 4096 samples, or not a power of two */
  j2kutil_expect_refusal ("htj2kenc block-width=128",
      frameutil_video_caps ("GRAY8", 40, 30), "4096");
  j2kutil_expect_refusal ("htj2kenc block-width=256 block-height=32",
      frameutil_video_caps ("I420", 40, 30), "4096");
  j2kutil_expect_refusal ("htj2kenc block-width=48 block-height=32",
      frameutil_video_caps ("GRAY8", 40, 30), "powers of two");
  /* 128x32 is fine */
  {
    GstHarness *hr = gst_harness_new_parse ("htj2kenc block-width=128 "
        "block-height=32");
    GstCaps *caps = frameutil_video_caps ("GRAY8", 40, 30);
    GstVideoInfo info;
    guint64 seed = 1;

    gst_video_info_from_caps (&info, caps);
    gst_harness_set_src_caps (hr, caps);
    fail_unless_equals_int (gst_harness_push (hr,
            frameutil_random_buffer (&info, &seed)), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (hr));
    gst_harness_teardown (hr);
  }
  /* beyond the property's range: GLib warns and keeps the old value */
  e = gst_element_factory_make ("htj2kenc", NULL);
  ASSERT_WARNING (g_object_set (e, "block-width", 2048, NULL));
  g_object_get (e, "block-width", &v, NULL);
  fail_unless_equals_int (v, 64);
  ASSERT_WARNING (g_object_set (e, "block-height", 2, NULL));
  g_object_get (e, "block-height", &v, NULL);
  fail_unless_equals_int (v, 64);
  gst_object_unref (e);

  /* a rate target for lossless coding */
  j2kutil_expect_refusal ("htj2kenc reversible=true bitrate=2",
      frameutil_video_caps ("RGB", 40, 30), "bitrate");
  /* rate targets no step can reach */
  j2kutil_expect_refusal ("htj2kenc bitrate=0.01",
      frameutil_video_caps ("RGB", 40, 30), "headers");
  j2kutil_expect_refusal ("htj2kenc bitrate=30",
      frameutil_video_caps ("GRAY8", 40, 30), "uncompressed");
  /* refinement passes would lose samples of a lossless stream */
  j2kutil_expect_refusal ("htj2kenc reversible=true refinement=all",
      frameutil_video_caps ("GRAY8", 40, 30), "lossless");
  j2kutil_expect_refusal ("cudadwt backend=cpu filter=5-3 ! htj2kenc "
      "reversible=true refinement=sigprop", frameutil_video_caps ("GRAY8",
          40, 30), "lossless");
  /* coefficients of the other filter */
  j2kutil_expect_refusal ("cudadwt backend=cpu filter=9-7 ! "
      "htj2kenc reversible=true", frameutil_video_caps ("RGB", 40, 30),
      "reversible");
  j2kutil_expect_refusal ("cudadwt backend=cpu filter=5-3 ! htj2kenc",
      frameutil_video_caps ("GRAY16_LE", 40, 30), "reversible");
  /* formats the wavelet stage does not take */
  j2kutil_expect_refusal ("htj2kenc", frameutil_video_caps ("NV12", 16, 16),
      NULL);
  j2kutil_expect_refusal ("htj2kenc", frameutil_video_caps ("AYUV", 16, 16),
      NULL);
  j2kutil_expect_refusal ("htj2kenc",
      frameutil_video_caps ("GRAY16_BE", 16, 16), NULL);
  /* openjpegdec does not take the JPH file format: no link */
  if (j2kutil_have_openjpegdec ()) {
    GstElement *bin = gst_bin_new (NULL);
    GstElement *dec = gst_element_factory_make ("openjpegdec", NULL);

    e = gst_element_factory_make ("htj2kenc", NULL);
    g_object_set (e, "jph", TRUE, NULL);
    gst_bin_add_many (GST_BIN (bin), e, dec, NULL);
    fail_if (gst_element_link (e, dec));
    g_object_set (e, "jph", FALSE, NULL);
    fail_unless (gst_element_link (e, dec));
    gst_object_unref (bin);
  }
}

GST_END_TEST;

static gboolean
have_gpu (void)
{
#if HAVE_CUDA
  int n = 0;
  return cudaGetDeviceCount (&n) == cudaSuccess && n > 0;
#else
  return FALSE;
#endif
}

GST_START_TEST (test_backend)
{
  GstElement *e = gst_element_factory_make ("htj2kenc", NULL);
  GstCaps *caps = frameutil_video_caps ("I420_10LE", 37, 23);
  GstVideoInfo info;
  GstBuffer *in;
  guint64 seed = 31;
  guint k;

  /* backend=cuda without a device (or in a build without CUDA) is refused
   * at start, as by every element; the gpu suite covers GPU machines */
  if (!have_gpu ()) {
    GstBus *bus = gst_bus_new ();
    GstMessage *msg;
    GError *err = NULL;

    gst_element_set_bus (e, bus);
    g_object_set (e, "backend", 1 /* cuda */ , NULL);
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL);
    gst_message_parse_error (msg, &err, NULL);
    fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NOT_FOUND), "%s", err->message);
#if HAVE_CUDA
    fail_unless (strstr (err->message, "no usable CUDA device") != NULL, "%s",
        err->message);
#else
    fail_unless (strstr (err->message, "this build has no CUDA backend")
        != NULL, "%s", err->message);
#endif
    g_error_free (err);
    gst_message_unref (msg);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_element_set_bus (e, NULL);
    gst_object_unref (bus);
  }

  /* auto and cpu start */
  for (k = 0; k < 2; k++) {
    g_object_set (e, "backend", k ? 2 /* cpu */ : 0 /* auto */ , NULL);
    fail_unless (gst_element_set_state (e, GST_STATE_PAUSED) !=
        GST_STATE_CHANGE_FAILURE);
    gst_element_set_state (e, GST_STATE_NULL);
  }
  gst_object_unref (e);

  /* auto (the CPU without a device) codes as cpu does */
  fail_unless (gst_video_info_from_caps (&info, caps));
  in = frameutil_random_buffer (&info, &seed);
  j2kutil_assert_same_coding ("htj2kenc reversible=true",
      "htj2kenc reversible=true backend=cpu", in, caps,
      "backend=auto and backend=cpu");
  j2kutil_assert_same_coding ("htj2kenc bitrate=2",
      "htj2kenc bitrate=2 backend=cpu", in, caps,
      "backend=auto and backend=cpu, bitrate=2");
  gst_buffer_unref (in);
  gst_caps_unref (caps);
}

GST_END_TEST;

GST_START_TEST (test_wavelet_input_matches_raw)
{
  const J2kWaveletCase cases[] = {
    {"RGB", "filter=5-3 levels=5", "reversible=true levels=5"},
    {"RGB", "filter=9-7 levels=4", "levels=4"},
    {"I420_10LE", "filter=5-3 levels=3", "reversible=true levels=3"},
    {"I420_10LE", "filter=9-7 levels=5", "qstep=0.01"},
    {"GRAY16_LE", "filter=9-7 levels=2", "levels=2 bitrate=1.5"},
    {"Y444_12LE", "filter=5-3 levels=0", "reversible=true levels=0"},
    {"GBR", "filter=5-3 colour-transform=none",
        "reversible=true colour-transform=none"},
  };

  j2kutil_check_wavelet_input ("htj2kenc", cases, G_N_ELEMENTS (cases),
      j2kutil_random_frame, 40);
}

GST_END_TEST;

static const guint8 jp2_signature[12] = {
  0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A
};

GST_START_TEST (test_jph_and_codestream)
{
  GstCaps *caps = frameutil_video_caps ("Y444_10LE", 29, 19);
  GstVideoInfo info;
  GstHarness *hr;
  GstBuffer *in, *out;
  GstCaps *out_caps = NULL;
  GstMapInfo m;
  guint64 seed = 77;

  fail_unless (gst_video_info_from_caps (&info, caps));
  in = frameutil_random_buffer (&info, &seed);

  /* raw codestream: SOC, SIZ first, CAP (HTJ2K) in the main header, EOC */
  hr = gst_harness_new_parse ("htj2kenc");
  gst_harness_set_src_caps (hr, gst_caps_ref (caps));
  out = j2kutil_run_one (hr, in, &out_caps, "htj2kenc");
  fail_unless (gst_structure_has_name (gst_caps_get_structure (out_caps, 0),
          "image/x-jpc"));
  fail_unless (gst_buffer_map (out, &m, GST_MAP_READ));
  fail_unless (m.size > 8);
  fail_unless (m.data[0] == 0xFF && m.data[1] == 0x4F && m.data[2] == 0xFF
      && m.data[3] == 0x51);
  fail_unless (m.data[m.size - 2] == 0xFF && m.data[m.size - 1] == 0xD9);
  fail_unless (contains (m.data, MIN (m.size, 256), "\xFF\x50", 2),
      "no CAP marker");
  gst_buffer_unmap (out, &m);
  gst_buffer_unref (out);
  gst_caps_unref (out_caps);
  gst_harness_teardown (hr);

  /* JPH: the JP2 signature box, then ftyp with brand "jph " */
  hr = gst_harness_new_parse ("htj2kenc jph=true reversible=true");
  gst_harness_set_src_caps (hr, gst_caps_ref (caps));
  out = j2kutil_run_one (hr, in, &out_caps, "htj2kenc jph=true");
  fail_unless (gst_structure_has_name (gst_caps_get_structure (out_caps, 0),
          "image/x-jph"));
  fail_unless (gst_buffer_map (out, &m, GST_MAP_READ));
  fail_unless (m.size > 32);
  fail_unless (memcmp (m.data, jp2_signature, 12) == 0);
  fail_unless (memcmp (m.data + 16, "ftypjph ", 8) == 0);
  fail_unless (contains (m.data, m.size, "jp2c\xFF\x4F\xFF\x51", 8),
      "no codestream box");
  gst_buffer_unmap (out, &m);
  gst_buffer_unref (out);
  gst_caps_unref (out_caps);
  gst_harness_teardown (hr);

  gst_buffer_unref (in);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* The COD marker segment of a codestream (from its marker on). */
static const guint8 *
find_cod (const GstMapInfo * m)
{
  gsize i;

  for (i = 2; i + 14 <= m->size; i++)
    if (m->data[i] == 0xFF && m->data[i + 1] == 0x52)
      return m->data + i;
  return NULL;
}

/* The properties reach the codestream: COD says the progression, the
 * colour transform, the levels, the code-block size and the filter. */
GST_START_TEST (test_codestream_params)
{
  const struct
  {
    const gchar *format, *props;
    guint8 progression, mct, levels, xcb, ycb, transform;
  } cases[] = {
    {"RGB", "", 2, 1, 5, 4, 4, 0},
    {"RGB", "reversible=true progression=cprl block-width=32 "
          "block-height=16 levels=3", 4, 1, 3, 3, 2, 1},
    {"RGB", "colour-transform=none progression=lrcp levels=0", 0, 0, 0, 4,
        4, 0},
    {"GBR_10LE", "reversible=true block-width=128 block-height=32", 2, 1, 5,
        5, 3, 1},
    {"I420", "progression=pcrl block-width=4 block-height=1024", 3, 0, 5, 0,
        8, 0},
    {"GRAY8", "progression=rlcp levels=32", 1, 0, 32, 4, 4, 0},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstCaps *caps = frameutil_video_caps (cases[i].format, 50, 40);
    GstVideoInfo info;
    GstBuffer *in, *out;
    GstMapInfo m;
    const guint8 *cod;
    gchar *p = g_strdup_printf ("htj2kenc %s", cases[i].props);
    guint64 seed = 60 + i;

    fail_unless (gst_video_info_from_caps (&info, caps));
    in = frameutil_random_buffer (&info, &seed);
    out = j2kutil_encode (p, in, caps, NULL);
    fail_unless (gst_buffer_map (out, &m, GST_MAP_READ));
    cod = find_cod (&m);
    fail_unless (cod != NULL, "%s: no COD", p);
    /* FF52 Lcod(2) Scod SGcod: order, layers(2), MCT; SPcod: levels, xcb,
     * ycb, style, transform */
    fail_unless_equals_int (cod[5], cases[i].progression);
    fail_unless_equals_int (cod[8], cases[i].mct);
    fail_unless_equals_int (cod[9], cases[i].levels);
    fail_unless_equals_int (cod[10], cases[i].xcb);
    fail_unless_equals_int (cod[11], cases[i].ycb);
    fail_unless_equals_int (cod[13], cases[i].transform);
    gst_buffer_unmap (out, &m);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
    g_free (p);
  }
}

GST_END_TEST;

/* plt reaches the encoder: PLT segments whose lengths tile the tile-part,
 * in a codestream (or JPH file) that is otherwise the one without, and
 * openjpegdec decodes every sample back. */
GST_START_TEST (test_plt)
{
  j2kutil_check_plt ("htj2kenc", "GRAY8", 37, 29, 1);
  j2kutil_check_plt ("htj2kenc reversible=true progression=lrcp", "RGB", 45,
      31, 2);
  j2kutil_check_plt ("htj2kenc jph=true levels=2 progression=cprl", "I420",
      33, 21, 3);
  if (j2kutil_have_openjpegdec ())
    j2kutil_check_lossless ("htj2kenc reversible=true plt=true ! openjpegdec",
        "RGB", 33, 17, 4, NULL);
}

GST_END_TEST;

/* bitrate reaches the encoder: the frame is near the asked size, and a
 * smaller one at a lower rate. */
GST_START_TEST (test_bitrate)
{
  GstCaps *caps = frameutil_video_caps ("I420_10LE", 160, 120);
  GstVideoInfo info;
  GstBuffer *in, *out;
  const gdouble rates[] = { 0.5, 2.0 };
  guint i;

  fail_unless (gst_video_info_from_caps (&info, caps));
  in = smooth_buffer (&info);
  for (i = 0; i < G_N_ELEMENTS (rates); i++) {
    gchar *p = g_strdup_printf ("htj2kenc bitrate=%g", rates[i]);
    gdouble want = rates[i] * 160 * 120 / 8, got;

    out = j2kutil_encode (p, in, caps, NULL);
    got = gst_buffer_get_size (out);
    fail_unless (fabs (got - want) <= 0.05 * want, "%s: %.0f bytes, not %.0f",
        p, got, want);
    gst_buffer_unref (out);
    g_free (p);
  }
  gst_buffer_unref (in);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* refinement reaches the encoder: other bytes than none, which openjpegdec
 * decodes near none's PSNR (lower: samples first significant in the last
 * bit-plane without a significant neighbour are not coded); with a
 * bitrate the frame is at or just below the target; the CPU and
 * whichever backend auto picks give the same bytes. */
GST_START_TEST (test_refinement)
{
  const gchar *formats[] = { "GRAY8", "I420_10LE", "RGB" };
  guint f;

  J2KUTIL_REQUIRE_OPENJPEGDEC ();
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstCaps *caps = frameutil_video_caps (formats[f], 131, 97);
    GstVideoInfo info;
    GstBuffer *in, *none, *all;
    gdouble psnr_none, psnr_all, psnr_sp;

    fail_unless (gst_video_info_from_caps (&info, caps));
    in = smooth_buffer (&info);
    none = j2kutil_encode ("htj2kenc backend=cpu", in, caps, NULL);
    all = j2kutil_encode ("htj2kenc backend=cpu refinement=all", in, caps,
        NULL);
    fail_if (j2kutil_same_bytes (none, all), "%s: refinement=all changed "
        "nothing", formats[f]);
    j2kutil_assert_same_coding ("htj2kenc backend=cpu refinement=all",
        "htj2kenc refinement=all", in, caps, formats[f]);
    j2kutil_code_and_measure ("htj2kenc backend=cpu", &info, caps, in, NULL,
        &psnr_none);
    j2kutil_code_and_measure ("htj2kenc backend=cpu refinement=all", &info,
        caps, in, NULL, &psnr_all);
    j2kutil_code_and_measure ("htj2kenc backend=cpu refinement=sigprop",
        &info, caps, in, NULL, &psnr_sp);
    GST_INFO ("%s: PSNR none %.2f, sigprop %.2f, all %.2f dB", formats[f],
        psnr_none, psnr_sp, psnr_all);
    fail_unless (psnr_all > psnr_none - 1.5 && psnr_all <= psnr_none + 0.05
        && psnr_sp <= psnr_all + 0.01 && psnr_sp > 30,
        "%s: PSNR none %.2f, sigprop %.2f, all %.2f dB", formats[f],
        psnr_none, psnr_sp, psnr_all);
    gst_buffer_unref (none);
    gst_buffer_unref (all);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
  }
  {
    GstCaps *caps = frameutil_video_caps ("I420_10LE", 160, 120);
    GstVideoInfo info;
    GstBuffer *in, *out;
    gdouble want = 1.0 * 160 * 120 / 8, got;

    fail_unless (gst_video_info_from_caps (&info, caps));
    in = smooth_buffer (&info);
    out = j2kutil_encode ("htj2kenc bitrate=1 refinement=all", in, caps, NULL);
    got = gst_buffer_get_size (out);
    fail_unless (got <= want && got >= 0.985 * want, "refinement=all "
        "bitrate=1: %.0f bytes for a target of %.0f", got, want);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
  }
}

GST_END_TEST;

/* Property changes while running take effect on the next frame: a change
 * of the caps (jph) renegotiates, a change of the coding (levels, qstep)
 * rebuilds the encoder; the bytes are those of a fresh element. */
GST_START_TEST (test_property_change)
{
  GstCaps *caps = frameutil_video_caps ("I420", 40, 24);
  GstHarness *hr = gst_harness_new_parse ("htj2kenc");
  GstElement *enc = gst_harness_find_element (hr, "htj2kenc");
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstCaps *out_caps = NULL;
  guint64 seed = 5;

  fail_unless (gst_video_info_from_caps (&info, caps));
  in = frameutil_random_buffer (&info, &seed);
  gst_harness_set_src_caps (hr, gst_caps_ref (caps));

  out = j2kutil_run_one (hr, in, NULL, "defaults");
  fail_unless (out != NULL);
  j2kutil_assert_coded_as (out, "htj2kenc", in, caps, "defaults");
  gst_buffer_unref (out);

  g_object_set (enc, "levels", 2, "qstep", 0.02, NULL);
  out = j2kutil_run_one (hr, in, NULL, "levels=2 qstep=0.02");
  fail_unless (out != NULL);
  j2kutil_assert_coded_as (out, "htj2kenc levels=2 qstep=0.02", in, caps,
      "levels=2 qstep=0.02");
  gst_buffer_unref (out);

  g_object_set (enc, "reversible", TRUE, "jph", TRUE, NULL);
  out = j2kutil_run_one (hr, in, &out_caps, "reversible jph");
  fail_unless (out != NULL);
  fail_unless (gst_structure_has_name (gst_caps_get_structure (out_caps, 0),
          "image/x-jph"));
  j2kutil_assert_coded_as (out,
      "htj2kenc levels=2 qstep=0.02 reversible=true jph=true", in, caps,
      "reversible jph");
  gst_buffer_unref (out);
  gst_caps_unref (out_caps);

  /* an invalid change fails the next frame with the reason */
  g_object_set (enc, "bitrate", 1.0, NULL);
  fail_unless_equals_int (gst_harness_push (hr, gst_buffer_ref (in)),
      GST_FLOW_NOT_NEGOTIATED);

  gst_object_unref (enc);
  gst_harness_teardown (hr);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* OpenJPH's decoder, where installed (openjph-tools): lossless output of
 * a gray and an RGB frame comes back exactly as PGM/PPM. */
static guint8 *
read_pnm (const gchar * path, gint * w, gint * h, gint * ch, gint * maxval,
    gsize * body)
{
  gchar *data = NULL;
  gsize len;
  gchar magic[3] = { 0 };
  gint n = 0;

  fail_unless (g_file_get_contents (path, &data, &len, NULL));
  fail_unless (sscanf (data, "%2s %d %d %d%n", magic, w, h, maxval, &n) == 4);
  *ch = magic[1] == '6' ? 3 : 1;
  n++;                          /* the one whitespace after maxval */
  *body = len - n;
  memmove (data, data + n, *body);
  return (guint8 *) data;
}

GST_START_TEST (test_lossless_ojph_expand)
{
  const gchar *formats[] = { "GRAY8", "RGB", "GRAY16_LE" };
  gchar *ojph = g_find_program_in_path ("ojph_expand");
  guint f;

  if (!ojph) {
    GST_WARNING ("ojph_expand not installed (openjph-tools): skipped");
    return;
  }
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstCaps *caps = frameutil_video_caps (formats[f], 37, 23);
    GstVideoInfo info;
    GstVideoFrame frame;
    GstBuffer *in, *out;
    GstMapInfo m;
    gchar *dir = g_dir_make_tmp ("htj2kenc-XXXXXX", NULL);
    gchar *j2c = g_build_filename (dir, "f.j2c", NULL);
    gchar *pnm = g_build_filename (dir, f == 1 ? "f.ppm" : "f.pgm", NULL);
    gchar *argv[] = { ojph, (gchar *) "-i", j2c, (gchar *) "-o", pnm, NULL };
    gint status = -1, w, h, ch, maxval, c, x, y;
    gsize body;
    guint8 *pix;
    guint64 seed = 300 + f;

    fail_unless (dir != NULL);
    fail_unless (gst_video_info_from_caps (&info, caps));
    in = frameutil_random_buffer (&info, &seed);
    out = j2kutil_encode ("htj2kenc reversible=true", in, caps, NULL);
    fail_unless (gst_buffer_map (out, &m, GST_MAP_READ));
    fail_unless (g_file_set_contents (j2c, (const gchar *) m.data, m.size,
            NULL));
    gst_buffer_unmap (out, &m);
    fail_unless (g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL,
            NULL, NULL, NULL, NULL, &status, NULL));
    fail_unless (g_spawn_check_wait_status (status, NULL),
        "ojph_expand failed on %s", formats[f]);
    pix = read_pnm (pnm, &w, &h, &ch, &maxval, &body);
    fail_unless (w == 37 && h == 23 && ch == (gint) GST_VIDEO_INFO_N_COMPONENTS
        (&info));
    fail_unless (gst_video_frame_map (&frame, &info, in, GST_MAP_READ));
    for (y = 0; y < h; y++) {
      for (x = 0; x < w; x++) {
        for (c = 0; c < ch; c++) {
          gsize i = ((gsize) y * w + x) * ch + c;
          guint v = maxval > 255 ? GST_READ_UINT16_BE (pix + 2 * i) : pix[i];

          fail_unless (v == frameutil_sample (&frame, c, x, y),
              "%s (%d,%d) component %d: %u, not %u", formats[f], x, y, c, v,
              frameutil_sample (&frame, c, x, y));
        }
      }
    }
    gst_video_frame_unmap (&frame);
    g_free (pix);
    g_unlink (j2c);
    g_unlink (pnm);
    g_rmdir (dir);
    g_free (j2c);
    g_free (pnm);
    g_free (dir);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
  }
  g_free (ojph);
}

GST_END_TEST;

/* As a user would run it: many frames, raw and through cudadwt. */
GST_START_TEST (test_pipeline)
{
  J2KUTIL_REQUIRE_OPENJPEGDEC ();
  j2kutil_run_pipeline ("videotestsrc num-buffers=4 pattern=smpte ! "
      "video/x-raw,format=I422_10LE,width=321,height=243 ! htj2kenc ! "
      "openjpegdec ! fakesink");
  j2kutil_run_pipeline ("videotestsrc num-buffers=4 ! "
      "video/x-raw,format=RGB,width=160,height=120 ! cudadwt filter=9-7 ! "
      "htj2kenc ! openjpegdec ! fakesink");
  j2kutil_run_pipeline ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=GRAY16_LE,width=100,height=80 ! "
      "htj2kenc reversible=true jph=true ! fakesink");
}

GST_END_TEST;

static Suite *
htj2kenc_suite (void)
{
  Suite *s = suite_create ("scicodec-htj2kenc");
  TCase *tc = tcase_create ("htj2kenc");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_lossless_openjpegdec);
  tcase_add_test (tc, test_caps);
  tcase_add_test (tc, test_lossy_psnr);
  tcase_add_test (tc, test_refusals);
  tcase_add_test (tc, test_backend);
  tcase_add_test (tc, test_wavelet_input_matches_raw);
  tcase_add_test (tc, test_jph_and_codestream);
  tcase_add_test (tc, test_codestream_params);
  tcase_add_test (tc, test_plt);
  tcase_add_test (tc, test_bitrate);
  tcase_add_test (tc, test_refinement);
  tcase_add_test (tc, test_property_change);
  tcase_add_test (tc, test_lossless_ojph_expand);
  tcase_add_test (tc, test_pipeline);
  return s;
}

GST_CHECK_MAIN (htj2kenc);
