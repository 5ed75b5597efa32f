/*
 * cudadwt, cudaidwt and htj2kenc on the GPU host: CUDA memory from
 * nvcodec's cudaupload through the elements to cudadownload, every mix of
 * CUDA and system memory at the element boundaries, and the CUDA backend's
 * output equal to the CPU backend's (htj2kenc: the same codestream bytes,
 * and lossless codestreams decoded by openjpegdec back to the input).
 * Exits 77 (skipped) without a usable GPU.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudamemory.h>
#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>
#include <string.h>

#include "frameutil.h"

/* cudaupload prefers passthrough when downstream takes system memory too,
 * so the CUDA-memory links are forced. */
#define CUDA_VIDEO "video/x-raw(memory:CUDAMemory)"

/* A system-memory copy of a CUDA-memory frame, made with our own copies:
 * GStreamer 1.22 maps some device layouts (odd-height I420) wrongly on the
 * host, losing the end of the last plane, and the elements' output is
 * what is being checked here, not that.  Takes `buf`. */
static GstBuffer *
download (GstBuffer * buf, const GstVideoInfo * info)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GstBuffer *host;
  GstVideoFrame dev, out;
  guint p;

  if (!gst_is_cuda_memory (mem))
    return buf;
  host = gst_buffer_new_allocate (NULL, info->size, NULL);
  fail_unless (gst_video_frame_map (&dev, info, buf,
          GST_MAP_READ | GST_MAP_CUDA));
  fail_unless (gst_video_frame_map (&out, info, host, GST_MAP_WRITE));
  fail_unless (gst_cuda_context_push (GST_CUDA_MEMORY_CAST (mem)->context));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&out); p++) {
    guint c;

    for (c = 0; GST_VIDEO_FRAME_COMP_PLANE (&out, c) != p; c++);
    fail_unless_equals_int (cudaMemcpy2D (GST_VIDEO_FRAME_PLANE_DATA (&out,
                p), GST_VIDEO_FRAME_PLANE_STRIDE (&out, p),
            GST_VIDEO_FRAME_PLANE_DATA (&dev, p),
            GST_VIDEO_FRAME_PLANE_STRIDE (&dev, p),
            GST_VIDEO_FRAME_COMP_WIDTH (&out, c) *
            GST_VIDEO_FRAME_COMP_PSTRIDE (&out, c),
            GST_VIDEO_FRAME_COMP_HEIGHT (&out, c), cudaMemcpyDeviceToHost),
        cudaSuccess);
  }
  gst_cuda_context_pop (NULL);
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&dev);
  gst_buffer_unref (buf);
  return host;
}

/* Largest sample error of one random frame through `pipeline`; -2 when
 * the pipeline refused the format, -1 when no frame came out. */
static gint
roundtrip (const gchar * pipeline, const gchar * format, gint w, gint h,
    guint64 seed)
{
  GstHarness *hr = gst_harness_new_parse (pipeline);
  GstCaps *caps = frameutil_video_caps (format, w, h);
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
    out = download (out, &oinfo);
    fail_unless (gst_video_frame_map (&fin, &info, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fout, &oinfo, out, GST_MAP_READ));
    diff = (gint) frameutil_max_diff (&fin, &fout, NULL, NULL);
    if (diff) {
      gchar *why = frameutil_describe_diff (&fin, &fout);

      g_printerr ("%s, %s %dx%d: %s(output: %u memories, %s, %s meta)\n",
          pipeline, format, w, h, why, gst_buffer_n_memory (out),
          gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)) ? "CUDA" :
          "system", gst_buffer_get_video_meta (out) ? "with" : "no");
      g_free (why);
    }
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

  for (f = 0; f < frameutil_n_formats; f++) {
    gint d = roundtrip ("cudaupload ! " CUDA_VIDEO " ! cudadwt backend=cuda "
        "levels=5 ! cudaidwt backend=cuda ! " CUDA_VIDEO " ! cudadownload",
        frameutil_formats[f], 1921, 1081, f);

    if (d == -2) {
      GST_INFO ("cudaupload does not take %s", frameutil_formats[f]);
      continue;
    }
    fail_unless (d == 0, "%s: max error %d", frameutil_formats[f], d);
    ran++;
  }
  /* I420, Y42B, Y444, the 10/12/16-bit planar ones and RGBP at least */
  fail_unless (ran >= 8, "only %u formats ran in CUDA memory", ran);
}

GST_END_TEST;

GST_START_TEST (test_mixed_memory)
{
  const struct
  {
    const gchar *desc;
    gboolean refused;
  } pipelines[] = {
    /* nvcodec alone: what the others are measured against */
    {"cudaupload ! " CUDA_VIDEO " ! cudadownload", FALSE},
    /* CUDA in, system memory between the elements, CUDA out */
    {"cudaupload ! " CUDA_VIDEO " ! cudadwt backend=cuda ! "
          "application/x-wavelet ! cudaidwt backend=cuda ! " CUDA_VIDEO
          " ! cudadownload", FALSE},
    {"cudaupload ! " CUDA_VIDEO " ! cudadwt backend=cuda ! "
          "application/x-wavelet ! cudaidwt backend=cpu", FALSE},
    {"cudadwt backend=cpu ! cudaidwt backend=cuda ! " CUDA_VIDEO
          " ! cudadownload", FALSE},
    /* system memory at both ends, kernels on staged copies */
    {"cudadwt backend=cuda ! cudaidwt backend=cuda", FALSE},
    /* coefficients in CUDA memory; unasked, the elements choose it */
    {"cudadwt backend=cuda ! application/x-wavelet(memory:CUDAMemory) ! "
          "cudaidwt backend=cuda", FALSE},
    {"cudadwt backend=cuda ! cudaidwt backend=cuda ! "
          "capsfilter caps=\"" CUDA_VIDEO "\"", FALSE},
    /* the C reference takes no device memory: refused at negotiation */
    {"cudaupload ! " CUDA_VIDEO " ! cudadwt backend=cpu", TRUE},
    {"cudadwt backend=cpu ! application/x-wavelet(memory:CUDAMemory) ! "
          "cudaidwt backend=cuda", TRUE},
    {"cudadwt backend=cuda ! application/x-wavelet(memory:CUDAMemory) ! "
          "cudaidwt backend=cpu", TRUE},
  };
  guint i, failures = 0;

  for (i = 0; i < G_N_ELEMENTS (pipelines); i++) {
    gint d = roundtrip (pipelines[i].desc, "I420_10LE", 333, 211, 100 + i);

    if (pipelines[i].refused ? d != -2 : d != 0) {
      g_printerr ("FAIL %s: %s %d\n", pipelines[i].desc,
          pipelines[i].refused ? "expected refusal, got" : "max error", d);
      failures++;
    }
  }
  fail_unless (failures == 0, "%u of %u pipelines failed (see stderr)",
      failures, (guint) G_N_ELEMENTS (pipelines));
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
      GstCaps *caps = frameutil_video_caps (fmts[f], 1283, 719);
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

/* Records the CUDA context of the first buffer through a pad (NULL when
 * that buffer is not CUDA memory). */
static GstPadProbeReturn
record_context (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstCudaContext **ctx = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);

  if (!*ctx && gst_is_cuda_memory (mem))
    *ctx = gst_object_ref (GST_CUDA_MEMORY_CAST (mem)->context);
  return GST_PAD_PROBE_OK;
}

/* cudaupload ! cudadwt ! cudaidwt ! cudadownload: the coefficients and the
 * reconstructed frames are CUDA memory of cudaupload's own context, and
 * the elements pick CUDA memory between themselves unasked. */
GST_START_TEST (test_context_shared)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=Y444,width=321,height=123 ! cudaupload name=up ! "
      CUDA_VIDEO " ! cudadwt name=dwt backend=cuda ! cudaidwt name=idwt "
      "backend=cuda ! " CUDA_VIDEO " ! cudadownload ! fakesink", NULL);
  GstCudaContext *ctx[3] = { NULL, NULL, NULL };
  const gchar *names[3] = { "up", "dwt", "idwt" };
  GstMessage *msg;
  guint i;

  fail_unless (pipe != NULL);
  for (i = 0; i < 3; i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), names[i]);
    GstPad *pad = gst_element_get_static_pad (e, "src");

    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, record_context,
        &ctx[i], NULL);
    gst_object_unref (pad);
    gst_object_unref (e);
  }
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  fail_unless (ctx[0] != NULL, "cudaupload gave no CUDA memory");
  fail_unless (ctx[1] == ctx[0], "cudadwt output not on cudaupload's context");
  fail_unless (ctx[2] == ctx[0], "cudaidwt output not on cudaupload's context");
  for (i = 0; i < 3; i++)
    gst_clear_object (&ctx[i]);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* ---- htj2kenc ---- */

/* Records whether the first buffer through a pad is CUDA memory. */
static GstPadProbeReturn
record_memory (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  gint *cuda = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  if (*cuda < 0)
    *cuda = gst_is_cuda_memory (gst_buffer_peek_memory (buf, 0));
  return GST_PAD_PROBE_OK;
}

/* The one output buffer of `pipeline` for `in`; *in_cuda (may be NULL)
 * says whether the buffer that reached the element named "enc" was in CUDA
 * memory.  *out_caps (may be NULL) gets the output caps. */
static GstBuffer *
encode_one (const gchar * pipeline, GstCaps * caps, GstBuffer * in,
    gboolean * in_cuda, GstCaps ** out_caps)
{
  GstHarness *h = gst_harness_new_parse (pipeline);
  GstFlowReturn ret;
  GstBuffer *out;
  gint cuda = -1;

  if (in_cuda) {
    GstElement *enc = gst_bin_get_by_name (GST_BIN (h->element), "enc");
    GstPad *pad;

    fail_unless (enc != NULL, "%s: no element named enc", pipeline);
    pad = gst_element_get_static_pad (enc, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, record_memory, &cuda,
        NULL);
    gst_object_unref (pad);
    gst_object_unref (enc);
  }
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  ret = gst_harness_push (h, gst_buffer_ref (in));
  fail_unless (ret == GST_FLOW_OK, "%s: %s", pipeline, gst_flow_get_name (ret));
  out = gst_harness_pull (h);
  fail_unless (out != NULL, "%s: no output", pipeline);
  if (out_caps)
    *out_caps = gst_pad_get_current_caps (h->sinkpad);
  gst_harness_teardown (h);
  if (in_cuda)
    *in_cuda = cuda > 0;
  return out;
}

/* Whether two buffers hold the same bytes; else a description. */
static gchar *
bytes_differ (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;
  gchar *why = NULL;
  gsize i, n;

  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  n = MIN (ma.size, mb.size);
  for (i = 0; i < n && ma.data[i] == mb.data[i]; i++);
  if (i < n || ma.size != mb.size)
    why = g_strdup_printf ("%" G_GSIZE_FORMAT " and %" G_GSIZE_FORMAT
        " bytes, first difference at byte %" G_GSIZE_FORMAT, ma.size, mb.size,
        i);
  gst_buffer_unmap (b, &mb);
  gst_buffer_unmap (a, &ma);
  return why;
}

#define CUDA_WAVELET "application/x-wavelet(memory:CUDAMemory)"

/* Raw video into htj2kenc backend=cuda, in CUDA memory (cudaupload) or in
 * system memory (uploaded by the element), gives the bytes of
 * backend=cpu: lossless, lossy with qstep, with a bitrate target, odd
 * sizes, other code-block sizes and progressions, JPH. */
GST_START_TEST (test_htj2k_cuda_equals_cpu)
{
  const struct
  {
    const gchar *format;
    gint w, h;
    gboolean upload;
    const gchar *props;
  } cases[] = {
    {"I420_10LE", 1921, 1081, TRUE, "reversible=true"},
    {"I420_10LE", 333, 211, TRUE, ""},
    {"I420_10LE", 3840, 2160, TRUE, "bitrate=1.5"},
    {"I420_10LE", 3840, 2160, TRUE, "reversible=true"},
    {"Y444_12LE", 1283, 719, FALSE, "reversible=true"},
    {"Y444_12LE", 1283, 719, FALSE, "qstep=0.004"},
    {"Y444_12LE", 97, 61, FALSE, "bitrate=2 levels=3"},
    {"GBR_12LE", 641, 479, FALSE, "reversible=true"},
    {"GBR_12LE", 641, 479, FALSE, "qstep=0.01 colour-transform=none"},
    {"GBR_12LE", 35, 17, FALSE, "bitrate=4"},
    {"I420", 1919, 1079, TRUE, "reversible=true levels=0"},
    {"Y444", 500, 300, TRUE, "bitrate=0.5 block-width=16 block-height=16"},
    {"RGB", 1, 7, FALSE, "reversible=true"},
    {"GRAY16_LE", 7, 1, FALSE, ""},
    {"GRAY8", 129, 65, FALSE, "reversible=true block-width=32 "
          "block-height=128 progression=lrcp jph=true"},
  };
  guint i, failures = 0;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstCaps *caps = frameutil_video_caps (cases[i].format, cases[i].w,
        cases[i].h);
    GstVideoInfo info;
    GstBuffer *in, *gpu, *cpu;
    gchar *pg, *pc, *why;
    gboolean in_cuda;
    guint64 seed = 500 + i;

    fail_unless (gst_video_info_from_caps (&info, caps));
    in = frameutil_random_buffer (&info, &seed);
    pg = g_strdup_printf ("%shtj2kenc name=enc backend=cuda %s",
        cases[i].upload ? "cudaupload ! " CUDA_VIDEO " ! " : "",
        cases[i].props);
    pc = g_strdup_printf ("htj2kenc backend=cpu %s", cases[i].props);
    gpu = encode_one (pg, caps, in, &in_cuda, NULL);
    cpu = encode_one (pc, caps, in, NULL, NULL);
    fail_unless (in_cuda == cases[i].upload, "%s: input %s CUDA memory", pg,
        in_cuda ? "in" : "not in");
    why = bytes_differ (gpu, cpu);
    if (why) {
      g_printerr ("FAIL %s %dx%d, %s: CUDA and CPU codestreams differ: %s%s\n",
          cases[i].format, cases[i].w, cases[i].h, pg, why,
          strstr (cases[i].props, "reversible") ? "" : " (9/7: are the "
          "coefficients of cudadwt backend=cuda and cpu bit-identical?)");
      failures++;
    }
    g_free (why);
    gst_buffer_unref (gpu);
    gst_buffer_unref (cpu);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
    g_free (pg);
    g_free (pc);
  }
  fail_unless (failures == 0, "%u of %u cases differ (see stderr)", failures,
      (guint) G_N_ELEMENTS (cases));
}

GST_END_TEST;

/* Coefficients into htj2kenc backend=cuda: from cudadwt on the GPU in CUDA
 * memory (read in place) give the bytes of the element's own DWT on the
 * same frame, and of backend=cpu; from cudadwt backend=cpu in system
 * memory (uploaded by the element) the bytes of backend=cpu. */
GST_START_TEST (test_htj2k_cuda_coefficients)
{
  const struct
  {
    const gchar *format;
    gint w, h;
    const gchar *dwt, *enc;
  } cases[] = {
    {"I420_10LE", 1921, 1081, "filter=5-3 levels=5", "reversible=true"},
    {"I420_10LE", 333, 211, "filter=9-7 levels=4", "levels=4"},
    {"Y444", 321, 123, "filter=9-7", "bitrate=1"},
    {"RGBP", 257, 129, "filter=5-3 levels=3", "reversible=true levels=3"},
    {"Y444_16LE", 64, 33, "filter=5-3 colour-transform=none levels=2",
        "reversible=true levels=2"},
  };
  guint i, failures = 0;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstCaps *caps = frameutil_video_caps (cases[i].format, cases[i].w,
        cases[i].h);
    GstVideoInfo info;
    GstBuffer *in, *out[5];
    gchar *p[5];
    gboolean in_cuda = FALSE;
    guint64 seed = 700 + i;
    guint k;

    fail_unless (gst_video_info_from_caps (&info, caps));
    in = frameutil_random_buffer (&info, &seed);
    /* 0: coefficients in CUDA memory; 1: raw video in CUDA memory; 2: the
     * CPU; 3, 4: system-memory coefficients into the GPU and the CPU */
    p[0] = g_strdup_printf ("cudaupload ! " CUDA_VIDEO " ! cudadwt "
        "backend=cuda %s ! " CUDA_WAVELET " ! htj2kenc name=enc backend=cuda "
        "%s", cases[i].dwt, cases[i].enc);
    p[1] = g_strdup_printf ("cudaupload ! " CUDA_VIDEO " ! htj2kenc "
        "backend=cuda %s", cases[i].enc);
    p[2] = g_strdup_printf ("htj2kenc backend=cpu %s", cases[i].enc);
    p[3] = g_strdup_printf ("cudadwt backend=cpu %s ! application/x-wavelet ! "
        "htj2kenc backend=cuda %s", cases[i].dwt, cases[i].enc);
    p[4] = g_strdup_printf ("cudadwt backend=cpu %s ! htj2kenc backend=cpu "
        "%s", cases[i].dwt, cases[i].enc);
    for (k = 0; k < 5; k++)
      out[k] = encode_one (p[k], caps, in, k == 0 ? &in_cuda : NULL, NULL);
    fail_unless (in_cuda, "%s: the coefficients were not in CUDA memory", p[0]);
    for (k = 1; k < 5; k++) {
      gchar *why = bytes_differ (out[k == 4 ? 3 : 0], out[k]);

      if (why) {
        g_printerr ("FAIL %s %dx%d: \"%s\" and \"%s\" differ: %s\n",
            cases[i].format, cases[i].w, cases[i].h, p[k == 4 ? 3 : 0], p[k],
            why);
        failures++;
      }
      g_free (why);
    }
    for (k = 0; k < 5; k++) {
      gst_buffer_unref (out[k]);
      g_free (p[k]);
    }
    gst_buffer_unref (in);
    gst_caps_unref (caps);
  }
  fail_unless (failures == 0, "%u comparisons failed (see stderr)", failures);
}

GST_END_TEST;

/* Lossless codestreams of the CUDA backend, decoded by openjpegdec, give
 * the input back: raw video in CUDA and system memory, and coefficients
 * of cudadwt in CUDA memory. */
GST_START_TEST (test_htj2k_lossless_openjpegdec)
{
  const struct
  {
    const gchar *format;
    gint w, h;
    const gchar *head;
  } cases[] = {
    {"I420_10LE", 333, 211, "cudaupload ! " CUDA_VIDEO " !"},
    {"I420_10LE", 1921, 1081, "cudaupload ! " CUDA_VIDEO " ! cudadwt "
          "backend=cuda ! " CUDA_WAVELET " !"},
    {"Y444_12LE", 1283, 719, ""},
    {"GBR_12LE", 641, 479, ""},
    {"GBR_12LE", 1, 7, ""},
    {"Y444_16LE", 99, 101, "cudaupload ! " CUDA_VIDEO " !"},
    {"RGB", 320, 241, "cudaupload ! " CUDA_VIDEO " !"},
    {"GRAY16_LE", 7, 1, ""},
    {"Y42B", 129, 33, "cudaupload ! " CUDA_VIDEO " !"},
  };
  GstElementFactory *f = gst_element_factory_find ("openjpegdec");
  guint i, failures = 0;

  fail_unless (f != NULL, "openjpegdec is missing (gstreamer1.0-plugins-bad)");
  gst_object_unref (f);
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstCaps *caps = frameutil_video_caps (cases[i].format, cases[i].w,
        cases[i].h);
    GstCaps *out_caps = NULL;
    GstVideoInfo info;
    GstBuffer *in, *out;
    gchar *p, *why;
    guint64 seed = 900 + i;
    gint64 bad;

    fail_unless (gst_video_info_from_caps (&info, caps));
    in = frameutil_random_buffer (&info, &seed);
    p = g_strdup_printf ("%s htj2kenc backend=cuda reversible=true ! "
        "openjpegdec", cases[i].head);
    out = encode_one (p, caps, in, NULL, &out_caps);
    bad = frameutil_compare_decoded (&info, in, out, out_caps, NULL, NULL,
        NULL, &why);
    fail_unless (bad >= 0, "%s %dx%d, %s: %s", cases[i].format, cases[i].w,
        cases[i].h, p, why);
    if (bad) {
      g_printerr ("FAIL %s %dx%d, %s: %" G_GINT64_FORMAT " samples differ, "
          "first %s\n", cases[i].format, cases[i].w, cases[i].h, p, bad, why);
      failures++;
    }
    g_free (why);
    gst_caps_unref (out_caps);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
    g_free (p);
  }
  fail_unless (failures == 0, "%u cases failed (see stderr)", failures);
}

GST_END_TEST;

/* As a user would run it: frames of a changing picture through the GPU
 * into codestreams and back through openjpegdec, raw and via cudadwt, with
 * backend=auto, which must pick the GPU and never warn of a fallback. */
GST_START_TEST (test_htj2k_pipeline)
{
  const gchar *descs[] = {
    "videotestsrc num-buffers=10 pattern=ball ! "
        "video/x-raw,format=I420_10LE,width=1920,height=1080 ! cudaupload ! "
        CUDA_VIDEO " ! htj2kenc ! openjpegdec ! fakesink",
    "videotestsrc num-buffers=10 ! "
        "video/x-raw,format=Y444_12LE,width=640,height=360 ! htj2kenc "
        "reversible=true jph=true ! fakesink",
    "videotestsrc num-buffers=10 pattern=smpte ! "
        "video/x-raw,format=Y444,width=321,height=123 ! cudaupload ! "
        CUDA_VIDEO " ! cudadwt filter=9-7 ! " CUDA_WAVELET " ! "
        "htj2kenc bitrate=2 ! openjpegdec ! fakesink",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (descs); i++) {
    GstElement *pipe = gst_parse_launch (descs[i], NULL);
    GstMessage *msg;
    gboolean eos = FALSE;

    fail_unless (pipe != NULL);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    while (!eos) {
      GError *err = NULL;
      gchar *dbg = NULL;

      msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
          120 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
          GST_MESSAGE_WARNING);
      fail_unless (msg != NULL, "%s: timed out", descs[i]);
      switch (GST_MESSAGE_TYPE (msg)) {
        case GST_MESSAGE_EOS:
          eos = TRUE;
          break;
        case GST_MESSAGE_ERROR:
          gst_message_parse_error (msg, &err, &dbg);
          fail ("%s: error %s (%s)", descs[i], err->message, dbg);
          break;
        default:
          gst_message_parse_warning (msg, &err, &dbg);
          fail ("%s: warning %s (%s)", descs[i], err->message, dbg);
          break;
      }
      gst_message_unref (msg);
    }
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
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
  tcase_add_test (tc, test_context_shared);

  tc = tcase_create ("htj2kenc-gpu");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_htj2k_cuda_equals_cpu);
  tcase_add_test (tc, test_htj2k_cuda_coefficients);
  tcase_add_test (tc, test_htj2k_lossless_openjpegdec);
  tcase_add_test (tc, test_htj2k_pipeline);
  return s;
}

/* Whether a CUDA device is usable, asked in a child process: CUDA does not
 * survive fork(), and check forks every test from this process. */
static gboolean
have_cuda_device (void)
{
  int status = 0;
  pid_t pid = fork ();

  if (pid == 0) {
    int n = 0;
    _exit (cudaGetDeviceCount (&n) == cudaSuccess && n > 0 ? 0 : 1);
  }
  return pid > 0 && waitpid (pid, &status, 0) == pid && WIFEXITED (status)
      && WEXITSTATUS (status) == 0;
}

int
main (int argc, char **argv)
{
  if (!have_cuda_device ()) {
    g_print ("no usable CUDA device: skipped\n");
    return 77;
  }
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (gpu_suite (), "scicodec-elements-gpu", __FILE__);
}
