/*
 * cudadwt and cudaidwt in GstHarness, CPU backend and system memory (what CI
 * without a GPU runs): negotiation, round trips over every supported format,
 * coefficients equal to the C reference, and bad input.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "codec/j2k/wavelet_frame.h"
#include "tests/common/frameutil.h"
#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* Odd, tiny and lopsided sizes: the shapes that break symmetric extension
 * and subsampled chroma arithmetic. */
static const gint sizes[][2] = { {1, 1}, {2, 1}, {1, 7}, {5, 3}, {33, 17},
{64, 48}, {131, 97}
};

/* Pushes one random frame through `pipeline` and returns the largest sample
 * error of what comes out; -1 if nothing came out. */
static gint
roundtrip (const gchar * pipeline, const gchar * format, gint w, gint h,
    guint64 seed)
{
  GstHarness *hr = gst_harness_new_parse (pipeline);
  GstCaps *caps = frameutil_video_caps (format, w, h);
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoFrame fin, fout;
  gint diff = -1;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (hr, caps);
  in = frameutil_random_buffer (&info, &seed);
  fail_unless_equals_int (gst_harness_push (hr, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (hr);
  if (out) {
    fail_unless (gst_video_frame_map (&fin, &info, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fout, &info, out, GST_MAP_READ));
    diff = (gint) frameutil_max_diff (&fin, &fout, NULL, NULL);
    gst_video_frame_unmap (&fout);
    gst_video_frame_unmap (&fin);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (in);
  gst_harness_teardown (hr);
  return diff;
}

GST_START_TEST (test_roundtrip_53_exact)
{
  guint f, s;
  const guint levels[] = { 0, 1, 5, 32 };

  for (f = 0; f < frameutil_n_formats; f++) {
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      gchar *p = g_strdup_printf ("cudadwt backend=cpu filter=5-3 levels=%u"
          " ! cudaidwt backend=cpu", levels[(f + s) % G_N_ELEMENTS (levels)]);
      gint d = roundtrip (p, frameutil_formats[f], sizes[s][0], sizes[s][1],
          f * 31 + s);

      fail_unless (d == 0, "5-3 %s %dx%d (%s): max error %d",
          frameutil_formats[f], sizes[s][0], sizes[s][1], p, d);
      g_free (p);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_roundtrip_97_close)
{
  guint f;

  /* Float lifting loses at most rounding: one sample step at most after
   * rounding to the nearest integer (codec tests bound the float error). */
  for (f = 0; f < frameutil_n_formats; f++) {
    gint d = roundtrip ("cudadwt backend=cpu filter=9-7 levels=5 ! "
        "cudaidwt backend=cpu", frameutil_formats[f], 67, 45, f + 1000);

    fail_unless (d >= 0
        && d <= 1, "9-7 %s: max error %d", frameutil_formats[f], d);
  }
}

GST_END_TEST;

/* The coefficients the element emits are the C reference's for the same
 * frame: the element's plane bookkeeping (strides, packed RGB, GBR plane
 * order, subsampling) adds nothing of its own. */
GST_START_TEST (test_coefficients_match_reference)
{
  const gchar *fmts[] = { "I420_10LE", "RGB", "GBR_12LE", "Y42B" };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstHarness *h = gst_harness_new_parse ("cudadwt backend=cpu levels=3");
    GstCaps *caps = frameutil_video_caps (fmts[f], 37, 29);
    GstVideoInfo info;
    GstVideoFrame frame;
    GstBuffer *in, *out;
    GstMapInfo map;
    sci_wt_geometry g = { 0 };
    sci_wt_plane planes[SCI_WT_MAX_COMPONENTS];
    guint64 seed = 7 + f;
    gint32 *ref;
    guint c;

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_harness_set_src_caps (h, caps);
    in = frameutil_random_buffer (&info, &seed);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);

    g.width = 37;
    g.height = 29;
    g.components = GST_VIDEO_INFO_N_COMPONENTS (&info);
    g.depth = GST_VIDEO_INFO_COMP_DEPTH (&info, 0);
    for (c = 0; c < g.components; c++) {
      g.dx[c] = 1u << GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, c);
      g.dy[c] = 1u << GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c);
    }
    g.filter = SCI_DWT_53;
    g.levels = 3;
    g.ct = GST_VIDEO_INFO_IS_RGB (&info) ? SCI_CT_RCT : SCI_CT_NONE;
    fail_unless (sci_wt_geometry_check (&g) == NULL);
    ref = g_new (gint32, sci_wt_coeff_count (&g));
    fail_unless (gst_video_frame_map (&frame, &info, in, GST_MAP_READ));
    for (c = 0; c < g.components; c++) {
      planes[c].data = GST_VIDEO_FRAME_COMP_DATA (&frame, c);
      planes[c].row_stride = GST_VIDEO_FRAME_COMP_STRIDE (&frame, c);
      planes[c].pixel_stride = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c);
    }
    fail_unless_equals_int (sci_wt_forward (NULL, &g, planes, ref), 0);
    gst_video_frame_unmap (&frame);

    fail_unless_equals_uint64 (gst_buffer_get_size (out),
        sci_wt_coeff_count (&g) * 4);
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    fail_unless (memcmp (map.data, ref, map.size) == 0, "%s differs", fmts[f]);
    gst_buffer_unmap (out, &map);

    g_free (ref);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static GstStructure *
output_structure (const gchar * pipeline, const gchar * format)
{
  GstHarness *h = gst_harness_new_parse (pipeline);
  GstCaps *caps = frameutil_video_caps (format, 16, 8);
  GstVideoInfo info;
  GstStructure *s;
  GstCaps *out;
  guint64 seed = 1;

  gst_video_info_from_caps (&info, caps);
  gst_harness_set_src_caps (h, caps);
  fail_unless_equals_int (gst_harness_push (h, frameutil_random_buffer (&info,
              &seed)), GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  out = gst_pad_get_current_caps (h->sinkpad);
  s = gst_structure_copy (gst_caps_get_structure (out, 0));
  gst_caps_unref (out);
  gst_harness_teardown (h);
  return s;
}

GST_START_TEST (test_wavelet_caps)
{
  GstStructure *s;
  gint v;

  s = output_structure ("cudadwt backend=cpu", "RGB");
  fail_unless (gst_structure_has_name (s, "application/x-wavelet"));
  fail_unless_equals_string (gst_structure_get_string (s, "filter"), "5-3");
  fail_unless_equals_string (gst_structure_get_string (s,
          "colour-transform"), "rct");
  fail_unless_equals_string (gst_structure_get_string (s, "format"), "S32");
  fail_unless_equals_string (gst_structure_get_string (s, "video-format"),
      "RGB");
  fail_unless (gst_structure_get_int (s, "levels", &v) && v == 5);
  fail_unless (gst_structure_get_int (s, "components", &v) && v == 3);
  fail_unless (gst_structure_get_int (s, "depth", &v) && v == 8);
  gst_structure_free (s);

  s = output_structure ("cudadwt backend=cpu filter=9-7 levels=2", "I420_12LE");
  fail_unless_equals_string (gst_structure_get_string (s, "filter"), "9-7");
  fail_unless_equals_string (gst_structure_get_string (s,
          "colour-transform"), "none");
  fail_unless_equals_string (gst_structure_get_string (s, "format"), "F32");
  fail_unless (gst_structure_get_int (s, "depth", &v) && v == 12);
  fail_unless (gst_structure_get_int (s, "levels", &v) && v == 2);
  gst_structure_free (s);

  s = output_structure ("cudadwt backend=cpu filter=9-7", "GBR");
  fail_unless_equals_string (gst_structure_get_string (s,
          "colour-transform"), "ict");
  gst_structure_free (s);
}

GST_END_TEST;

/* A property change while running renegotiates: the next buffer comes with
 * caps of the new levels and filter, and holds their coefficients. */
GST_START_TEST (test_property_change_renegotiates)
{
  GstHarness *h = gst_harness_new_parse ("cudadwt backend=cpu");
  GstCaps *caps = frameutil_video_caps ("GRAY16_LE", 37, 23);
  GstElement *dwt = gst_harness_find_element (h, "cudadwt");
  GstVideoInfo info;
  guint64 seed = 5;
  gint k;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (h, caps);
  for (k = 0; k < 2; k++) {
    GstBuffer *in = frameutil_random_buffer (&info, &seed), *out;
    GstCaps *ocaps;
    GstStructure *s;
    GstMapInfo mi, mo;
    gint levels;
    sci_wt_geometry g = {.width = 37,.height = 23,.components = 1,.depth = 16,
      .dx = {1},.dy = {1},.filter = k ? SCI_DWT_97 : SCI_DWT_53,
      .levels = k ? 2 : 5,.ct = SCI_CT_NONE
    };
    sci_wt_plane plane;
    gpointer ref = g_malloc (sci_wt_coeff_count (&g) * 4);

    if (k == 1)
      g_object_set (dwt, "levels", 2, "filter", 1, NULL);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    ocaps = gst_pad_get_current_caps (h->sinkpad);
    s = gst_caps_get_structure (ocaps, 0);
    fail_unless (gst_structure_get_int (s, "levels", &levels));
    fail_unless_equals_int (levels, g.levels);
    fail_unless_equals_string (gst_structure_get_string (s, "filter"),
        k ? "9-7" : "5-3");
    fail_unless (gst_buffer_map (in, &mi, GST_MAP_READ));
    plane.data = mi.data;
    plane.row_stride = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);
    plane.pixel_stride = 2;
    fail_unless (sci_wt_forward (NULL, &g, &plane, ref) == 0);
    fail_unless (gst_buffer_map (out, &mo, GST_MAP_READ));
    fail_unless_equals_uint64 (mo.size, sci_wt_coeff_count (&g) * 4);
    fail_unless (memcmp (mo.data, ref, mo.size) == 0);
    gst_buffer_unmap (out, &mo);
    gst_buffer_unmap (in, &mi);
    gst_caps_unref (ocaps);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    g_free (ref);
  }
  gst_object_unref (dwt);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Pushes a frame with the given caps and returns the flow result; an
 * error message on the bus is expected whenever the result is not OK. */
static GstFlowReturn
push_one (const gchar * pipeline, GstCaps * caps, gsize size)
{
  GstHarness *h = gst_harness_new_parse (pipeline);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, MAX (size, 1), NULL);
  GstFlowReturn ret;

  gst_buffer_memset (buf, 0, 0x11, MAX (size, 1));
  gst_buffer_set_size (buf, size);
  gst_harness_set_src_caps (h, caps);
  ret = gst_harness_push (h, buf);
  gst_harness_teardown (h);
  return ret;
}

GST_START_TEST (test_unsupported_caps_refused)
{
  const gchar *bad[] = { "NV12", "AYUV", "GRAY16_BE", "I420_10BE", "v210" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    fail_unless_equals_int (push_one ("cudadwt backend=cpu",
            frameutil_video_caps (bad[i], 16, 16), 4096),
        GST_FLOW_NOT_NEGOTIATED);
  }
  /* 9/7 with the reversible colour transform has no JPEG 2000 meaning */
  fail_unless_equals_int (push_one ("cudadwt backend=cpu filter=9-7 "
          "colour-transform=rct", frameutil_video_caps ("RGB", 16, 16), 768),
      GST_FLOW_NOT_NEGOTIATED);
  /* a colour transform needs three full-size components */
  fail_unless_equals_int (push_one ("cudadwt backend=cpu "
          "colour-transform=rct", frameutil_video_caps ("I420", 16, 16), 384),
      GST_FLOW_NOT_NEGOTIATED);
  /* interlaced input */
  {
    GstCaps *caps = frameutil_video_caps ("I420", 16, 16);
    gst_caps_set_simple (caps, "interlace-mode", G_TYPE_STRING, "interleaved",
        NULL);
    fail_unless_equals_int (push_one ("cudadwt backend=cpu", caps, 384),
        GST_FLOW_NOT_NEGOTIATED);
  }
}

GST_END_TEST;

static GstCaps *
wavelet_caps (gint levels, gint width)
{
  return gst_caps_new_simple ("application/x-wavelet",
      "width", G_TYPE_INT, width, "height", G_TYPE_INT, 8,
      "components", G_TYPE_INT, 1, "depth", G_TYPE_INT, 8,
      "filter", G_TYPE_STRING, "5-3", "levels", G_TYPE_INT, levels,
      "colour-transform", G_TYPE_STRING, "none",
      "format", G_TYPE_STRING, "S32",
      "video-format", G_TYPE_STRING, "GRAY8",
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
}

GST_START_TEST (test_bad_input)
{
  GParamSpec *pspec;
  GstElement *dwt;

  /* buffers smaller than the caps say */
  fail_unless_equals_int (push_one ("cudaidwt backend=cpu",
          wavelet_caps (3, 8), 8 * 8 * 4 - 1), GST_FLOW_ERROR);
  fail_unless_equals_int (push_one ("cudaidwt backend=cpu",
          wavelet_caps (3, 8), 0), GST_FLOW_ERROR);
  fail_unless_equals_int (push_one ("cudadwt backend=cpu",
          frameutil_video_caps ("I420", 16, 16), 100), GST_FLOW_ERROR);
  fail_unless_equals_int (push_one ("cudadwt backend=cpu",
          frameutil_video_caps ("GRAY8", 16, 16), 0), GST_FLOW_ERROR);
  /* a well-formed buffer still passes */
  fail_unless_equals_int (push_one ("cudaidwt backend=cpu",
          wavelet_caps (3, 8), 8 * 8 * 4), GST_FLOW_OK);
  /* more than 32 levels and zero sizes never negotiate */
  fail_unless_equals_int (push_one ("cudaidwt backend=cpu",
          wavelet_caps (33, 8), 8 * 8 * 4), GST_FLOW_NOT_NEGOTIATED);
  fail_unless_equals_int (push_one ("cudaidwt backend=cpu",
          wavelet_caps (3, 0), 4), GST_FLOW_NOT_NEGOTIATED);
  fail_unless_equals_int (push_one ("cudadwt backend=cpu",
          frameutil_video_caps ("GRAY8", 0, 16), 0), GST_FLOW_NOT_NEGOTIATED);
  /* the property cannot even hold more than 32 */
  dwt = gst_element_factory_make ("cudadwt", NULL);
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (dwt), "levels");
  fail_unless_equals_int (G_PARAM_SPEC_UINT (pspec)->maximum, 32);
  gst_object_unref (dwt);
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

GST_START_TEST (test_backend_cuda_without_gpu)
{
  GstElement *e;
  GstStateChangeReturn ret;

  if (have_gpu ())
    return;                     /* the GPU suite covers that machine */
  e = gst_element_factory_make ("cudadwt", NULL);
  g_object_set (e, "backend", 1 /* cuda */ , NULL);
  ret = gst_element_set_state (e, GST_STATE_PAUSED);
  fail_unless_equals_int (ret, GST_STATE_CHANGE_FAILURE);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);

  /* auto falls back to the C reference and works */
  fail_unless_equals_int (roundtrip ("cudadwt ! cudaidwt", "Y444_12LE", 40, 30,
          5), 0);
}

GST_END_TEST;

/* A real pipeline, as a user would run it: videotestsrc through both
 * elements into a checksum-free fakesink, many frames, no error. */
GST_START_TEST (test_pipeline)
{
  GstElement *pipe;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;

  pipe = gst_parse_launch ("videotestsrc num-buffers=5 pattern=smpte ! "
      "video/x-raw,format=I422_10LE,width=321,height=243 ! cudadwt levels=6 ! "
      "cudaidwt ! fakesink", &err);
  fail_unless (pipe != NULL && err == NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipe);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

GST_END_TEST;

static Suite *
elements_suite (void)
{
  Suite *s = suite_create ("scicodec-elements");
  TCase *tc = tcase_create ("dwt");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_roundtrip_53_exact);
  tcase_add_test (tc, test_roundtrip_97_close);
  tcase_add_test (tc, test_coefficients_match_reference);
  tcase_add_test (tc, test_wavelet_caps);
  tcase_add_test (tc, test_property_change_renegotiates);
  tcase_add_test (tc, test_unsupported_caps_refused);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_backend_cuda_without_gpu);
  tcase_add_test (tc, test_pipeline);
  return s;
}

GST_CHECK_MAIN (elements);
