/*
 * cudadwt and cudaidwt on the GPU host: CUDA memory from nvcodec's
 * cudaupload through both elements to cudadownload, every mix of CUDA and
 * system memory at the element boundaries, and the CUDA backend's output
 * equal to the CPU backend's.  Exits 77 (skipped) without a usable GPU.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <cuda_runtime_api.h>

#include "frameutil.h"

static const gchar *formats[] = {
  "GRAY8", "GRAY16_LE", "I420", "I420_10LE", "I420_12LE", "Y42B",
  "I422_10LE", "I422_12LE", "Y444", "Y444_10LE", "Y444_12LE", "Y444_16LE",
  "RGB", "BGR", "RGBP", "BGRP", "GBR", "GBR_10LE", "GBR_12LE",
};

static GstCaps *
video_caps (const gchar * format, gint w, gint h)
{
  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, format,
      "width", G_TYPE_INT, w, "height", G_TYPE_INT, h,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
}

/* Largest sample error of one random frame through `pipeline`; -2 when
 * the pipeline refused the format, -1 when no frame came out. */
static gint
roundtrip (const gchar * pipeline, const gchar * format, gint w, gint h,
    guint64 seed)
{
  GstHarness *hr = gst_harness_new_parse (pipeline);
  GstCaps *caps = video_caps (format, w, h);
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoFrame fin, fout;
  GstFlowReturn ret;
  gint diff = -1;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (hr, caps);
  in = frameutil_random_buffer (&info, &seed);
  ret = gst_harness_push (hr, gst_buffer_ref (in));
  if (ret == GST_FLOW_NOT_NEGOTIATED) {
    diff = -2;
  } else if (ret == GST_FLOW_OK && (out = gst_harness_pull (hr))) {
    GstVideoInfo oinfo;
    GstCaps *ocaps = gst_pad_get_current_caps (hr->sinkpad);

    fail_unless (gst_video_info_from_caps (&oinfo, ocaps));
    gst_caps_unref (ocaps);
    fail_unless (gst_video_frame_map (&fin, &info, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fout, &oinfo, out, GST_MAP_READ));
    diff = (gint) frameutil_max_diff (&fin, &fout, NULL, NULL);
    gst_video_frame_unmap (&fout);
    gst_video_frame_unmap (&fin);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (in);
  gst_harness_teardown (hr);
  return diff;
}

GST_START_TEST (test_cuda_memory_roundtrip)
{
  guint f, ran = 0;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    gint d = roundtrip ("cudaupload ! cudadwt backend=cuda levels=5 ! "
        "cudaidwt backend=cuda ! cudadownload", formats[f], 1921, 1081, f);

    if (d == -2) {
      GST_INFO ("cudaupload does not take %s", formats[f]);
      continue;
    }
    fail_unless (d == 0, "%s: max error %d", formats[f], d);
    ran++;
  }
  /* I420, Y42B, Y444, the 10/12/16-bit planar ones and RGBP at least */
  fail_unless (ran >= 8, "only %u formats ran in CUDA memory", ran);
}

GST_END_TEST;

GST_START_TEST (test_mixed_memory)
{
  const gchar *pipelines[] = {
    /* CUDA in, system between the elements */
    "cudaupload ! cudadwt backend=cuda ! application/x-wavelet ! "
        "cudaidwt backend=cuda ! video/x-raw ! fakesink name=unused",
    /* system memory at both ends, kernels on staged copies */
    "cudadwt backend=cuda ! cudaidwt backend=cuda",
    /* the C reference reading and writing CUDA memory */
    "cudaupload ! cudadwt backend=cpu ! cudaidwt backend=cpu ! cudadownload",
    /* mixed backends across one CUDA-memory link */
    "cudaupload ! cudadwt backend=cuda ! cudaidwt backend=cpu ! cudadownload",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pipelines); i++) {
    gchar *p = g_strdup (pipelines[i]);
    gchar *cut = strstr (p, " ! fakesink");
    gint d;

    if (cut)
      *cut = '\0';
    d = roundtrip (p, "I420_10LE", 333, 211, 100 + i);
    fail_unless (d == 0, "%s: max error %d", p, d);
    g_free (p);
  }
}

GST_END_TEST;

static GstBuffer *
coefficients (const gchar * pipeline, GstCaps * caps, GstBuffer * in)
{
  GstHarness *h = gst_harness_new_parse (pipeline);
  GstBuffer *out;

  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  gst_harness_teardown (h);
  return out;
}

GST_START_TEST (test_cuda_equals_cpu)
{
  const gchar *fmts[] = { "RGB", "Y444_12LE", "I420_10LE", "GRAY16_LE" };
  guint f, k;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    for (k = 0; k < 2; k++) {
      const gchar *filter = k ? "9-7" : "5-3";
      GstCaps *caps = video_caps (fmts[f], 1283, 719);
      GstVideoInfo info;
      guint64 seed = 99 + f;
      GstBuffer *in, *a, *b;
      GstMapInfo ma, mb;
      gchar *pa, *pb;

      gst_video_info_from_caps (&info, caps);
      in = frameutil_random_buffer (&info, &seed);
      pa = g_strdup_printf ("cudadwt backend=cuda filter=%s", filter);
      pb = g_strdup_printf ("cudadwt backend=cpu filter=%s", filter);
      a = coefficients (pa, caps, in);
      b = coefficients (pb, caps, in);
      fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
      fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
      fail_unless_equals_uint64 (ma.size, mb.size);
      if (k == 0) {
        fail_unless (memcmp (ma.data, mb.data, ma.size) == 0,
            "%s 5-3: CUDA and CPU coefficients differ", fmts[f]);
      } else {
        const gfloat *x = (const gfloat *) ma.data;
        const gfloat *y = (const gfloat *) mb.data;
        gsize i, n = ma.size / 4;
        gdouble maxabs = 0, maxerr = 0;

        for (i = 0; i < n; i++) {
          maxabs = MAX (maxabs, fabs (y[i]));
          maxerr = MAX (maxerr, fabs ((gdouble) x[i] - y[i]));
        }
        fail_unless (maxerr <= 1e-6 * maxabs,
            "%s 9-7: error %g of max %g", fmts[f], maxerr, maxabs);
      }
      gst_buffer_unmap (a, &ma);
      gst_buffer_unmap (b, &mb);
      gst_buffer_unref (a);
      gst_buffer_unref (b);
      gst_buffer_unref (in);
      gst_caps_unref (caps);
      g_free (pa);
      g_free (pb);
    }
  }
}

GST_END_TEST;

static Suite *
gpu_suite (void)
{
  Suite *s = suite_create ("scicodec-elements-gpu");
  TCase *tc = tcase_create ("dwt-gpu");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cuda_memory_roundtrip);
  tcase_add_test (tc, test_mixed_memory);
  tcase_add_test (tc, test_cuda_equals_cpu);
  return s;
}

int
main (int argc, char **argv)
{
  int n = 0;

  if (cudaGetDeviceCount (&n) != cudaSuccess || n == 0) {
    g_print ("no usable CUDA device: skipped\n");
    return 77;
  }
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (gpu_suite (), "scicodec-elements-gpu", __FILE__);
}
