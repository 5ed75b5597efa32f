/*
 * cudadwt, cudaidwt, htj2kenc, ebcotcm, dpcmenc and dpcmdec on the GPU
 * host: CUDA memory from nvcodec's cudaupload through the elements to
 * cudadownload, every mix of CUDA and system memory at the element
 * boundaries, and the CUDA backend's output equal to the CPU backend's
 * (htj2kenc, ebcotcm and dpcmenc: the same bytes; lossless codestreams
 * decoded by openjpegdec, and DPCM frames by dpcmdec on either backend,
 * back to the input; corrupt DPCM
 * frames refused with the CPU's errors; sppfilter's output within a
 * relative 1e-5 of the CPU's, cubes in CUDA memory read and written in
 * place, NaN cubes refused; seismicdec's gathers equal to the CPU's bit for
 * bit, decoded into CUDA memory and taken from there by seismicenc,
 * corrupt seismic frames refused with the CPU's errors).  Exits 77
 * (skipped) without a usable GPU.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <glib/gstdio.h>
#include <string.h>

#include "frameutil.h"
#include "tests/common/cudacheck.h"
#include "codec/dpcm/dpcm.h"
#include "codec/spp/spp.h"
#include "codec/seismic/seismic.h"
#include "codec/common/crc32.h"

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
  /* an encoder with frames in flight (ebcotcm) gives its last one at EOS */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
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

/* A random frame of format w x h (from seed) through `gpu` (whose element
 * "enc" must see CUDA memory iff in_cuda) and through `cpu`: FALSE, with
 * the difference on stderr (and `hint` after it), when the codestreams
 * differ. */
static gboolean
same_coding (const gchar * gpu, const gchar * cpu, const gchar * format,
    gint w, gint h, guint64 seed, gboolean in_cuda, const gchar * hint)
{
  GstCaps *caps = frameutil_video_caps (format, w, h);
  GstVideoInfo info;
  GstBuffer *in, *g, *c;
  gboolean was_cuda;
  gchar *why;
  gboolean same;

  fail_unless (gst_video_info_from_caps (&info, caps));
  in = frameutil_random_buffer (&info, &seed);
  g = encode_one (gpu, caps, in, &was_cuda, NULL);
  c = encode_one (cpu, caps, in, NULL, NULL);
  fail_unless (was_cuda == in_cuda, "%s: input %s CUDA memory", gpu,
      was_cuda ? "in" : "not in");
  why = bytes_differ (g, c);
  same = why == NULL;
  if (why)
    g_printerr ("FAIL %s %dx%d, %s: CUDA and CPU codestreams differ: %s%s\n",
        format, w, h, gpu, why, hint);
  g_free (why);
  gst_buffer_unref (g);
  gst_buffer_unref (c);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
  return same;
}

#define CUDA_WAVELET "application/x-wavelet(memory:CUDAMemory)"

/* Raw video into htj2kenc backend=cuda, in CUDA memory (cudaupload) or in
 * system memory (uploaded by the element; the Y444_12LE 1283x719 frames,
 * 5.5 MB with padded rows, through the page-locked bounce buffer that
 * pageable frames of 4 MB and more take), gives the bytes of
 * backend=cpu: lossless, lossy with qstep, with a bitrate target, odd
 * sizes, other code-block sizes and progressions, JPH, refinement
 * passes (blocks coded on the host from the device's coefficients). */
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
    /* refinement passes: the device transforms, the host codes (through
     * cudaupload: a format of its template, which has no Y444_12LE) */
    {"Y444_16LE", 641, 479, TRUE, "refinement=all qstep=0.004"},
    {"I420_10LE", 333, 211, FALSE, "refinement=sigprop bitrate=1"},
  };
  guint i, failures = 0;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *pg = g_strdup_printf ("%shtj2kenc name=enc backend=cuda %s",
        cases[i].upload ? "cudaupload ! " CUDA_VIDEO " ! " : "",
        cases[i].props);
    gchar *pc = g_strdup_printf ("htj2kenc backend=cpu %s", cases[i].props);

    if (!same_coding (pg, pc, cases[i].format, cases[i].w, cases[i].h,
            500 + i, cases[i].upload, strstr (cases[i].props, "reversible")
            ? "" : " (9/7: are the coefficients of cudadwt backend=cuda and "
            "cpu bit-identical?)"))
      failures++;
    g_free (pg);
    g_free (pc);
  }
  fail_unless (failures == 0, "%u of %u cases differ (see stderr)", failures,
      (guint) G_N_ELEMENTS (cases));
}

GST_END_TEST;

/* Pageable frames of 4 MB and more go up through a page-locked bounce
 * buffer (gst/gstscicuda.c); where none can be had, here because
 * SCI_CUDA_BOUNCE_MAX=0 refuses it as a host short of page-locked memory
 * would, the coder warns once and CUDA stages the frames: the bytes are
 * still backend=cpu's. */
static gint bounce_refusals;

static void
count_refusals (GstDebugCategory * cat, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user)
{
  const gchar *m = gst_debug_message_get (message);

  if (level == GST_LEVEL_WARNING && m &&
      strstr (m, "no page-locked bounce buffer"))
    g_atomic_int_inc (&bounce_refusals);
}

GST_START_TEST (test_bounce_fallback)
{
  const gchar *coders[][2] = {
    {"htj2kenc name=enc backend=cuda reversible=true",
        "htj2kenc backend=cpu reversible=true"},
    {"ebcotcm name=enc backend=cuda bitrate=2",
        "ebcotcm backend=cpu bitrate=2"},
  };
  guint i, failures = 0;

  g_atomic_int_set (&bounce_refusals, 0);
  g_setenv ("SCI_CUDA_BOUNCE_MAX", "0", TRUE);
  gst_debug_set_threshold_for_name ("scicuda", GST_LEVEL_WARNING);
  gst_debug_add_log_function (count_refusals, NULL, NULL);
  for (i = 0; i < G_N_ELEMENTS (coders); i++)
    if (!same_coding (coders[i][0], coders[i][1], "Y444_12LE", 1283, 719,
            900 + i, FALSE, ""))
      failures++;
  gst_debug_remove_log_function (count_refusals);
  g_unsetenv ("SCI_CUDA_BOUNCE_MAX");
  fail_unless (failures == 0, "%u of %u coders differ (see stderr)",
      failures, (guint) G_N_ELEMENTS (coders));
  fail_unless (g_atomic_int_get (&bounce_refusals) >=
      (gint) G_N_ELEMENTS (coders), "%d refusals warned, %u expected",
      g_atomic_int_get (&bounce_refusals), (guint) G_N_ELEMENTS (coders));
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
    {"Y444", 321, 123, "filter=9-7", "refinement=all bitrate=1"},
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

/* ---- ebcotcm ---- */

/* ebcotcm backend=cuda gives the bytes of backend=cpu: raw video in CUDA
 * or system memory, cudadwt coefficients in CUDA memory, lossless, lossy,
 * with bitrate (PCRD), layers, code-block styles, odd sizes, small
 * code-blocks, and a frame larger than the output pool's buffers. */
GST_START_TEST (test_ebcot_cuda_equals_cpu)
{
  const struct
  {
    const gchar *format;
    gint w, h;
    const gchar *before;        /* in front of ebcotcm backend=cuda */
    const gchar *props;
  } cases[] = {
    /* GStreamer 1.22's cudaupload takes no 12-bit 4:4:4 format */
    {"Y444_12LE", 4096, 2160, "", "reversible=true"},
    {"Y444_16LE", 1023, 577, "cudaupload ! " CUDA_VIDEO " ! ",
        "reversible=true"},
    {"Y444_12LE", 1283, 719, "", "bitrate=2 layers=3"},
    {"I420_10LE", 1921, 1081, "cudaupload ! " CUDA_VIDEO " ! ",
        "reversible=true code-block-style=bypass+termall"},
    {"I420", 333, 211, "", "qstep=0.01 code-block-style=reset+vcausal+segsym"},
    {"GBR_12LE", 641, 479, "", "reversible=true bitrate=3 progression=lrcp"},
    {"GRAY8", 129, 65, "", "reversible=true block-width=32 block-height=128 "
          "code-block-style=pterm+bypass"},
    {"GRAY16_LE", 7, 1, "", "reversible=true"},
    /* more than the output pool's buffers hold (test-ebcotcm) */
    {"GRAY16_LE", 256, 256, "", "reversible=true block-width=4 "
          "block-height=4 code-block-style=termall"},
    {"RGB", 1, 7, "", "qstep=0.05"},
    {"Y444", 500, 300, "", "bitrate=0.5 block-width=16 block-height=16 "
          "layers=5"},
    {"I420_10LE", 333, 211, "cudaupload ! " CUDA_VIDEO " ! cudadwt "
          "backend=cuda filter=9-7 levels=4 ! " CUDA_WAVELET " ! ",
        "bitrate=1"},
  };
  guint i, failures = 0;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *pg = g_strdup_printf ("%sebcotcm name=enc backend=cuda %s",
        cases[i].before, cases[i].props);
    gchar *pc = g_strdup_printf ("%sebcotcm backend=cpu %s",
        strstr (cases[i].before, "cudadwt") ? "cudadwt backend=cpu "
        "filter=9-7 levels=4 ! " : "", cases[i].props);

    if (!same_coding (pg, pc, cases[i].format, cases[i].w, cases[i].h,
            900 + i, cases[i].before[0] != '\0', ""))
      failures++;
    g_free (pg);
    g_free (pc);
  }
  fail_unless (failures == 0, "%u of %u cases differ (see stderr)", failures,
      (guint) G_N_ELEMENTS (cases));
}

GST_END_TEST;

/* A stream through ebcotcm backend=cuda with two frames in flight (the
 * default) against backend=cpu, frame by frame: each frame leaves when
 * the next one comes (or at EOS), with its own timestamp, and the bytes of
 * the CPU's; a property changed mid-stream lets the frame in flight leave
 * coded as before and the next ones with the change; a flush drops the
 * frame in flight; the latency query counts one frame more than with
 * frames-in-flight=1, which gives each frame at once.  The Y444_12LE
 * frames, pageable and of 5.5 MB, go up through the two lanes' bounce
 * buffers, each refilled while the other lane's copy may be running. */
GST_START_TEST (test_ebcot_frames_in_flight)
{
  const struct
  {
    const gchar *format;
    gint w, h;
    const gchar *before;
  } cases[] = {
    {"Y444_12LE", 1283, 719, ""},
    {"I420_10LE", 641, 479, "cudaupload ! " CUDA_VIDEO " ! "},
    {"I420", 333, 211, "cudaupload ! " CUDA_VIDEO " ! cudadwt backend=cuda "
          "! " CUDA_WAVELET " ! "},
  };
  const guint n = 7, change = 4;
  guint i, k, failures = 0;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstCaps *caps = frameutil_video_caps (cases[i].format, cases[i].w,
        cases[i].h);
    gchar *pg = g_strdup_printf ("%sebcotcm name=enc backend=cuda "
        "reversible=true", cases[i].before);
    gchar *pc = g_strdup_printf ("%sebcotcm name=enc backend=cpu "
        "reversible=true", strstr (cases[i].before, "cudadwt") ?
        "cudadwt backend=cpu ! " : "");
    GstHarness *hg = gst_harness_new_parse (pg);
    GstHarness *hc = gst_harness_new_parse (pc);
    GstElement *eg = gst_bin_get_by_name (GST_BIN (hg->element), "enc");
    GstElement *ec = gst_bin_get_by_name (GST_BIN (hc->element), "enc");
    GstVideoInfo info;
    guint64 seed = 1300 + 10 * i;
    GstBuffer *g, *c;
    GstClockTime lat;

    fail_unless (eg && ec);
    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 25, 1, NULL);
    gst_harness_set_src_caps (hg, gst_caps_ref (caps));
    gst_harness_set_src_caps (hc, gst_caps_ref (caps));
    for (k = 0; k < n; k++) {
      GstBuffer *in = frameutil_random_buffer (&info, &seed);

      GST_BUFFER_PTS (in) = k * GST_SECOND / 25;
      GST_BUFFER_DURATION (in) = GST_SECOND / 25;
      if (k == change) {
        g_object_set (eg, "layers", 3, "bitrate", 4.0, NULL);
        g_object_set (ec, "layers", 3, "bitrate", 4.0, NULL);
      }
      fail_unless_equals_int (gst_harness_push (hg, gst_buffer_ref (in)),
          GST_FLOW_OK);
      fail_unless_equals_int (gst_harness_push (hc, in), GST_FLOW_OK);
      /* the frame before has left (at the change, before the encoder was
       * made again), this one is in flight */
      fail_unless_equals_int (gst_harness_buffers_received (hg), k);
    }
    lat = gst_harness_query_latency (hg);
    fail_unless_equals_uint64 (lat, GST_SECOND / 25);
    fail_unless (gst_harness_push_event (hg, gst_event_new_eos ()));
    fail_unless (gst_harness_push_event (hc, gst_event_new_eos ()));
    fail_unless_equals_int (gst_harness_buffers_received (hg), n);
    for (k = 0; k < n; k++) {
      gchar *why;

      g = gst_harness_pull (hg);
      c = gst_harness_pull (hc);
      fail_unless (g && c);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (g), k * GST_SECOND / 25);
      why = bytes_differ (g, c);
      if (why) {
        g_printerr ("FAIL %s %dx%d, %s, frame %u: CUDA and CPU codestreams "
            "differ: %s\n", cases[i].format, cases[i].w, cases[i].h, pg, k,
            why);
        failures++;
      }
      g_free (why);
      gst_buffer_unref (g);
      gst_buffer_unref (c);
    }
    gst_object_unref (eg);
    gst_object_unref (ec);
    gst_harness_teardown (hg);
    gst_harness_teardown (hc);
    g_free (pg);
    g_free (pc);
    gst_caps_unref (caps);
  }
  fail_unless (failures == 0, "%u frames differ (see stderr)", failures);

  {
    GstHarness *h = gst_harness_new_parse ("ebcotcm backend=cuda "
        "frames-in-flight=1 reversible=true");
    GstCaps *caps = frameutil_video_caps ("Y444_12LE", 333, 211);
    GstVideoInfo info;
    guint64 seed = 1400;

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 25, 1, NULL);
    gst_harness_set_src_caps (h, caps);
    for (k = 0; k < 3; k++) {
      fail_unless_equals_int (gst_harness_push (h,
              frameutil_random_buffer (&info, &seed)), GST_FLOW_OK);
      fail_unless_equals_int (gst_harness_buffers_received (h), k + 1);
    }
    fail_unless_equals_uint64 (gst_harness_query_latency (h), 0);
    gst_harness_teardown (h);
  }

  {
    GstHarness *h = gst_harness_new_parse ("ebcotcm backend=cuda "
        "reversible=true");
    GstCaps *caps = frameutil_video_caps ("Y444_12LE", 333, 211);
    GstBuffer *last = NULL, *b, *in, *ref;
    GstVideoInfo info;
    GstSegment seg;
    guint64 seed = 1500;
    gchar *why;

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_harness_set_src_caps (h, gst_caps_ref (caps));
    for (k = 0; k < 2; k++)
      fail_unless_equals_int (gst_harness_push (h,
              frameutil_random_buffer (&info, &seed)), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_buffers_received (h), 1);
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
    in = frameutil_random_buffer (&info, &seed);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    /* the frame in flight at the flush never left */
    fail_unless_equals_int (gst_harness_buffers_received (h), 2);
    while ((b = gst_harness_try_pull (h))) {
      gst_clear_buffer (&last);
      last = b;
    }
    fail_unless (last != NULL);
    ref = encode_one ("ebcotcm backend=cpu reversible=true", caps, in, NULL,
        NULL);
    why = bytes_differ (last, ref);
    fail_unless (why == NULL, "the frame after a flush: %s", why);
    gst_buffer_unref (last);
    gst_buffer_unref (ref);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
    gst_harness_teardown (h);
  }
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

/* Plays the launch line `desc` to EOS; any error or warning on the bus
 * fails the test. */
static void
play_clean (const gchar * desc)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);
  gboolean eos = FALSE;

  fail_unless (pipe != NULL, "%s: does not parse", desc);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while (!eos) {
    GError *err = NULL;
    gchar *dbg = NULL;
    GstMessage *msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
        120 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
        GST_MESSAGE_WARNING);

    fail_unless (msg != NULL, "%s: timed out", desc);
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_EOS:
        eos = TRUE;
        break;
      case GST_MESSAGE_ERROR:
        gst_message_parse_error (msg, &err, &dbg);
        fail ("%s: error %s (%s)", desc, err->message, dbg);
        break;
      default:
        gst_message_parse_warning (msg, &err, &dbg);
        fail ("%s: warning %s (%s)", desc, err->message, dbg);
        break;
    }
    gst_message_unref (msg);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

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

  for (i = 0; i < G_N_ELEMENTS (descs); i++)
    play_clean (descs[i]);
}

GST_END_TEST;

/* ---- dpcmenc, dpcmdec ---- */

/* A CUDA-memory capsfilter that ends a launch line (a bare caps string
 * there does not parse). */
#define CUDA_VIDEO_LAST "capsfilter caps=\"" CUDA_VIDEO "\""

/* Gray frames of awkward sizes: single pixels, rows and columns, a width
 * above the 4096 samples of a segment (one row a segment). */
static const struct
{
  const gchar *format;
  gint w, h;
} dpcm_sizes[] = {
  {"GRAY16_LE", 37, 23}, {"GRAY16_LE", 1, 1}, {"GRAY16_LE", 200, 3},
  {"GRAY16_LE", 1024, 64}, {"GRAY16_LE", 3, 200}, {"GRAY16_LE", 4097, 2},
  {"GRAY8", 37, 23}, {"GRAY8", 1, 1}, {"GRAY8", 200, 3},
  {"GRAY8", 1024, 64}, {"GRAY8", 3, 200},
};

/* Parameter corners, taken in turn by the cases. */
static const gchar *dpcm_props[] = {
  "", "order=1 equations=1 threshold=0", "order=32 equations=64 threshold=1",
  "order=4 equations=9 threshold=65535",
};

/* A GRAY8 or GRAY16_LE frame of `info`: uniform random samples of the
 * whole range from `seed` (nonzero), or (`ramp`) a smooth ramp across the
 * frame with noise in its last two bits, as real frames are. */
static GstBuffer *
gray_frame (const GstVideoInfo * info, gboolean ramp, guint64 seed)
{
  guint depth = GST_VIDEO_INFO_COMP_DEPTH (info, 0);
  guint maxv = (1u << depth) - 1;
  guint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  GstVideoFrame f;
  GstBuffer *buf;
  guint x, y;

  if (!ramp)
    return frameutil_random_buffer (info, &seed);
  buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  gst_buffer_memset (buf, 0, 0, info->size);
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  for (y = 0; y < h; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);

    for (x = 0; x < w; x++) {
      guint v;

      seed ^= seed << 13;
      seed ^= seed >> 7;
      seed ^= seed << 17;
      v = (guint) ((0.6 * x / w + 0.35 * y / h) * maxv) + (guint) (seed >> 62);
      v = MIN (v, maxv);
      if (depth > 8)
        GST_WRITE_UINT16_LE (row + 2 * x, v);
      else
        row[x] = v;
    }
  }
  gst_video_frame_unmap (&f);
  return buf;
}

static GstCaps *
cuda_caps (GstCaps * caps)
{
  GstCaps *c = gst_caps_copy (caps);

  gst_caps_set_features_simple (c,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  return c;
}

/* The outputs of `n` frames pushed one after another through one
 * `pipeline`, its caps set again where they change. */
static void
push_frames (const gchar * pipeline, GstCaps ** caps, GstBuffer ** in,
    guint n, GstBuffer ** out)
{
  GstHarness *h = gst_harness_new_parse (pipeline);
  guint i;

  for (i = 0; i < n; i++) {
    GstFlowReturn ret;

    if (i == 0 || !gst_caps_is_equal (caps[i], caps[i - 1]))
      gst_harness_set_src_caps (h, gst_caps_ref (caps[i]));
    ret = gst_harness_push (h, gst_buffer_ref (in[i]));
    fail_unless (ret == GST_FLOW_OK, "%s, frame %u: %s", pipeline, i,
        gst_flow_get_name (ret));
    out[i] = gst_harness_pull (h);
    fail_unless (out[i] != NULL, "%s, frame %u: no output", pipeline, i);
  }
  gst_harness_teardown (h);
}

/* Whether the frame `out` (any memory; taken) equals `in`, both of
 * `info`; prints what differs.  *out_cuda gets whether it came in CUDA
 * memory. */
static gboolean
same_frame (const gchar * what, const GstVideoInfo * info, GstBuffer * in,
    GstBuffer * out, GstCaps * out_caps, gboolean * out_cuda)
{
  GstVideoInfo oinfo;
  GstVideoFrame fin, fout;
  gboolean same;

  fail_unless (gst_video_info_from_caps (&oinfo, out_caps));
  *out_cuda = gst_is_cuda_memory (gst_buffer_peek_memory (out, 0));
  if (GST_VIDEO_INFO_FORMAT (&oinfo) != GST_VIDEO_INFO_FORMAT (info)
      || GST_VIDEO_INFO_WIDTH (&oinfo) != GST_VIDEO_INFO_WIDTH (info)
      || GST_VIDEO_INFO_HEIGHT (&oinfo) != GST_VIDEO_INFO_HEIGHT (info)) {
    g_printerr ("FAIL %s: %s %dx%d came back as %s %dx%d\n", what,
        GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_NAME (&oinfo),
        GST_VIDEO_INFO_WIDTH (&oinfo), GST_VIDEO_INFO_HEIGHT (&oinfo));
    gst_buffer_unref (out);
    return FALSE;
  }
  out = download (out, &oinfo);
  fail_unless (gst_video_frame_map (&fin, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fout, &oinfo, out, GST_MAP_READ));
  same = frameutil_max_diff (&fin, &fout, NULL, NULL) == 0;
  if (!same) {
    gchar *why = frameutil_describe_diff (&fin, &fout);

    g_printerr ("FAIL %s, %s %dx%d: %s\n", what, GST_VIDEO_INFO_NAME (info),
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), why);
    g_free (why);
  }
  gst_video_frame_unmap (&fout);
  gst_video_frame_unmap (&fin);
  gst_buffer_unref (out);
  return same;
}

/* dpcmenc backend=cuda on frames in system memory gives the bytes of
 * backend=cpu: every size, random and smooth samples, the parameter
 * corners, metadata (a sample-offset record), and frames one after
 * another through one element while their size changes (its device
 * buffers grow; its output pool is made again). */
GST_START_TEST (test_dpcm_cuda_equals_cpu)
{
  guint i, k, failures = 0, cases = 0;

  for (i = 0; i < G_N_ELEMENTS (dpcm_sizes); i++) {
    for (k = 0; k < 3; k++) {
      GstCaps *caps = frameutil_video_caps (dpcm_sizes[i].format,
          dpcm_sizes[i].w, dpcm_sizes[i].h);
      const gchar *props = dpcm_props[(i + k) % G_N_ELEMENTS (dpcm_props)];
      GstVideoInfo info;
      GstBuffer *in, *gpu, *cpu;
      gchar *pg, *pc, *why;
      gboolean in_cuda;

      fail_unless (gst_video_info_from_caps (&info, caps));
      /* k 2: metadata in the frame (16-bit only takes a sample-offset) */
      if (k == 2 && GST_VIDEO_INFO_COMP_DEPTH (&info, 0) == 16)
        gst_caps_set_simple (caps, "sample-offset", G_TYPE_INT, 32768, NULL);
      in = gray_frame (&info, k == 1, 1000 + 7 * i + k);
      pg = g_strdup_printf ("dpcmenc name=enc backend=cuda %s", props);
      pc = g_strdup_printf ("dpcmenc backend=cpu %s", props);
      gpu = encode_one (pg, caps, in, &in_cuda, NULL);
      cpu = encode_one (pc, caps, in, NULL, NULL);
      fail_if (in_cuda, "%s: input in CUDA memory", pg);
      why = bytes_differ (gpu, cpu);
      if (why) {
        g_printerr ("FAIL %" GST_PTR_FORMAT ", %s: CUDA and CPU frames "
            "differ: %s\n", caps, pg, why);
        failures++;
      }
      cases++;
      g_free (why);
      gst_buffer_unref (gpu);
      gst_buffer_unref (cpu);
      gst_buffer_unref (in);
      gst_caps_unref (caps);
      g_free (pg);
      g_free (pc);
    }
  }

  {
    const struct
    {
      const gchar *format;
      gint w, h;
      gboolean ramp;
    } seq[] = {
      {"GRAY16_LE", 200, 3, FALSE}, {"GRAY16_LE", 200, 3, TRUE},
      {"GRAY16_LE", 1024, 64, TRUE}, {"GRAY16_LE", 1024, 64, FALSE},
      {"GRAY16_LE", 37, 23, TRUE}, {"GRAY8", 37, 23, FALSE},
      {"GRAY8", 1024, 64, TRUE},
    };
    GstCaps *caps[G_N_ELEMENTS (seq)];
    GstBuffer *in[G_N_ELEMENTS (seq)], *gpu[G_N_ELEMENTS (seq)];
    GstBuffer *cpu[G_N_ELEMENTS (seq)];

    for (i = 0; i < G_N_ELEMENTS (seq); i++) {
      GstVideoInfo info;

      caps[i] = frameutil_video_caps (seq[i].format, seq[i].w, seq[i].h);
      fail_unless (gst_video_info_from_caps (&info, caps[i]));
      in[i] = gray_frame (&info, seq[i].ramp, 2000 + i);
    }
    push_frames ("dpcmenc backend=cuda", caps, in, G_N_ELEMENTS (seq), gpu);
    push_frames ("dpcmenc backend=cpu", caps, in, G_N_ELEMENTS (seq), cpu);
    for (i = 0; i < G_N_ELEMENTS (seq); i++) {
      gchar *why = bytes_differ (gpu[i], cpu[i]);

      if (why) {
        g_printerr ("FAIL frame %u of a stream (%s %dx%d): CUDA and CPU "
            "frames differ: %s\n", i, seq[i].format, seq[i].w, seq[i].h, why);
        failures++;
      }
      cases++;
      g_free (why);
      gst_buffer_unref (gpu[i]);
      gst_buffer_unref (cpu[i]);
      gst_buffer_unref (in[i]);
      gst_caps_unref (caps[i]);
    }
  }
  fail_unless (failures == 0, "%u of %u frames differ (see stderr)", failures,
      cases);
}

GST_END_TEST;

/* dpcmenc ! dpcmdec in system memory with the CUDA backend on either
 * side or both gives every frame back; so do frames of other depths (5,
 * 12) coded by the C reference into dpcmdec backend=cuda, in system and
 * in CUDA memory. */
GST_START_TEST (test_dpcm_cuda_roundtrip)
{
  const gchar *pipelines[] = {
    "dpcmenc backend=cuda %s ! dpcmdec backend=cuda",
    "dpcmenc backend=cuda %s ! dpcmdec backend=cpu",
    "dpcmenc backend=cpu %s ! dpcmdec backend=cuda",
  };
  guint i, k, p, failures = 0;

  for (i = 0; i < G_N_ELEMENTS (dpcm_sizes); i++) {
    for (k = 0; k < 2; k++) {
      GstCaps *caps = frameutil_video_caps (dpcm_sizes[i].format,
          dpcm_sizes[i].w, dpcm_sizes[i].h);
      GstVideoInfo info;
      GstBuffer *in;

      fail_unless (gst_video_info_from_caps (&info, caps));
      in = gray_frame (&info, k == 1, 3000 + 7 * i + k);
      for (p = 0; p < G_N_ELEMENTS (pipelines); p++) {
        gchar *desc = g_strdup_printf (pipelines[p],
            dpcm_props[(i + k + p) % G_N_ELEMENTS (dpcm_props)]);
        GstCaps *out_caps = NULL;
        GstBuffer *out = encode_one (desc, caps, in, NULL, &out_caps);
        gboolean out_cuda;

        if (!same_frame (desc, &info, in, out, out_caps, &out_cuda))
          failures++;
        fail_if (out_cuda, "%s: output in CUDA memory unasked", desc);
        gst_caps_unref (out_caps);
        g_free (desc);
      }
      gst_buffer_unref (in);
      gst_caps_unref (caps);
    }
  }

  /* other depths, straight from the codec */
  for (i = 0; i < 4; i++) {
    const guint depth = i % 2 ? 12 : 5;
    const gint w = i < 2 ? 37 : 300, h = i < 2 ? 23 : 17;
    GstVideoInfo info;
    GstBuffer *in, *frame, *out;
    GstVideoFrame f;
    GstCaps *out_caps = NULL;
    sci_dpcm_params prm;
    guint16 *s = g_new (guint16, (gsize) w * h);
    gsize cap = sci_dpcm_max_bytes (w, h, depth), n;
    guint8 *coded = g_malloc (cap);
    GstHarness *hr;
    gboolean out_cuda;
    gint x, y;

    gst_video_info_set_format (&info, depth > 8 ? GST_VIDEO_FORMAT_GRAY16_LE
        : GST_VIDEO_FORMAT_GRAY8, w, h);
    in = gray_frame (&info, TRUE, 4000 + i);
    fail_unless (gst_video_frame_map (&f, &info, in, GST_MAP_READ));
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++)
        s[y * w + x] = frameutil_sample (&f, 0, x, y) >> (depth > 8 ?
            16 - depth : 8 - depth);
    gst_video_frame_unmap (&f);
    /* the expected frame holds the samples as they were coded */
    gst_buffer_unref (in);
    in = gst_buffer_new_allocate (NULL, info.size, NULL);
    fail_unless (gst_video_frame_map (&f, &info, in, GST_MAP_WRITE));
    for (y = 0; y < h; y++) {
      guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);

      for (x = 0; x < w; x++) {
        if (depth > 8)
          GST_WRITE_UINT16_LE (row + 2 * x, s[y * w + x]);
        else
          row[x] = (guint8) s[y * w + x];
      }
    }
    gst_video_frame_unmap (&f);
    sci_dpcm_params_default (&prm);
    n = sci_dpcm_encode (NULL, s, w, w, h, depth, &prm, coded, cap);
    fail_unless (n > 0);
    for (k = 0; k < 2; k++) {
      const gchar *desc = k ? "dpcmdec backend=cuda ! " CUDA_VIDEO_LAST :
          "dpcmdec backend=cuda";

      hr = gst_harness_new_parse (desc);
      gst_harness_set_src_caps_str (hr, "application/x-dpcm");
      frame = gst_buffer_new_memdup (coded, n);
      fail_unless_equals_int (gst_harness_push (hr, frame), GST_FLOW_OK);
      out = gst_harness_pull (hr);
      fail_unless (out != NULL, "%s: depth %u: no output", desc, depth);
      out_caps = gst_pad_get_current_caps (hr->sinkpad);
      if (!same_frame (desc, &info, in, out, out_caps, &out_cuda))
        failures++;
      fail_unless (out_cuda == (k == 1), "%s: output %s CUDA memory", desc,
          out_cuda ? "in" : "not in");
      gst_caps_unref (out_caps);
      gst_harness_teardown (hr);
    }
    gst_buffer_unref (in);
    g_free (coded);
    g_free (s);
  }
  fail_unless (failures == 0, "%u round trips failed (see stderr)", failures);
}

GST_END_TEST;

/* A gray frame in CUDA memory made here, with rows `stride` bytes apart
 * (a video meta says so), on `ctx`: GStreamer 1.22 allocates no gray
 * GstCudaMemory and its cudaupload takes no gray formats, so the memory
 * is an RGBA one wide enough for the rows.  The samples of `host` are
 * copied in when `stride` is a whole number of them. */
static GstBuffer *
device_gray_frame (GstCudaContext * ctx, const GstVideoInfo * info,
    GstBuffer * host, gint stride)
{
  guint bps = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
  guint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  GstAllocator *alloc;
  GstVideoInfo carrier;
  GstVideoFrame hf;
  GstMemory *mem;
  GstMapInfo map;
  GstBuffer *buf;
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
  gint strides[GST_VIDEO_MAX_PLANES] = { stride, };

  gst_cuda_memory_init_once ();
  alloc = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  fail_unless (alloc != NULL);
  fail_unless (gst_video_info_set_format (&carrier, GST_VIDEO_FORMAT_RGBA,
          (stride + 3) / 4, h));
  mem = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (alloc), ctx, &carrier);
  gst_object_unref (alloc);
  fail_unless (mem != NULL);
  fail_unless (GST_CUDA_MEMORY_CAST (mem)->info.stride[0] >= stride);
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), w, h, 1, offset, strides);
  if (stride % bps)
    return buf;
  fail_unless (gst_video_frame_map (&hf, info, host, GST_MAP_READ));
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE | GST_MAP_CUDA));
  fail_unless (gst_cuda_context_push (ctx));
  fail_unless_equals_int (cudaMemcpy2D (map.data, stride,
          GST_VIDEO_FRAME_PLANE_DATA (&hf, 0),
          GST_VIDEO_FRAME_PLANE_STRIDE (&hf, 0), w * bps, h,
          cudaMemcpyHostToDevice), cudaSuccess);
  gst_cuda_context_pop (NULL);
  gst_memory_unmap (mem, &map);
  gst_video_frame_unmap (&hf);
  return buf;
}

/* A harness of dpcmenc backend=cuda on `ctx` (set before it starts, so
 * that it reads CUDA memory of that context in place), posting to `bus`. */
static GstHarness *
enc_on_context (GstCudaContext * ctx, GstBus * bus, GstCaps * caps)
{
  GstElement *enc = gst_element_factory_make ("dpcmenc", NULL);
  GstContext *gctx = gst_context_new_cuda_context (ctx);
  GstHarness *hr;

  fail_unless (enc != NULL);
  gst_object_ref_sink (enc);
  gst_util_set_object_arg (G_OBJECT (enc), "backend", "cuda");
  gst_element_set_context (enc, gctx);
  gst_context_unref (gctx);
  gst_element_set_bus (enc, bus);
  hr = gst_harness_new_with_element (enc, "sink", "src");
  gst_object_unref (enc);       /* the harness holds it */
  gst_harness_set_src_caps (hr, gst_caps_ref (caps));
  return hr;
}

/* Device memory at both ends: dpcmdec backend=cuda decoding straight into
 * CUDA memory, from input caps that say the frame's size and from bare
 * ones; dpcmenc backend=cuda reading such frames in place, and frames of
 * CUDA memory made here at a pitch of their own, giving the bytes of the
 * CPU; a pitch that is not a whole number of samples refused with an
 * error. */
GST_START_TEST (test_dpcm_cuda_memory)
{
  GstCudaContext *ctx;
  guint i, k, failures = 0;

  for (i = 0; i < G_N_ELEMENTS (dpcm_sizes); i++) {
    for (k = 0; k < 2; k++) {
      GstCaps *caps = frameutil_video_caps (dpcm_sizes[i].format,
          dpcm_sizes[i].w, dpcm_sizes[i].h);
      const gchar *props = dpcm_props[(i + k) % G_N_ELEMENTS (dpcm_props)];
      GstVideoInfo info;
      GstBuffer *in, *out, *ref;
      GstCaps *out_caps = NULL;
      gboolean cuda;
      gchar *desc, *why;

      fail_unless (gst_video_info_from_caps (&info, caps));
      in = gray_frame (&info, k == 1, 5000 + 7 * i + k);

      /* decoded into CUDA memory */
      desc = g_strdup_printf ("dpcmenc backend=cpu %s ! dpcmdec backend=cuda "
          "! " CUDA_VIDEO_LAST, props);
      out = encode_one (desc, caps, in, NULL, &out_caps);
      if (!same_frame (desc, &info, in, out, out_caps, &cuda))
        failures++;
      fail_unless (cuda, "%s: output not in CUDA memory", desc);
      gst_caps_unref (out_caps);
      g_free (desc);

      /* those frames coded again in place on the GPU */
      desc = g_strdup_printf ("dpcmenc backend=cpu ! dpcmdec backend=cuda ! "
          CUDA_VIDEO " ! dpcmenc name=enc backend=cuda %s", props);
      out = encode_one (desc, caps, in, &cuda, NULL);
      fail_unless (cuda, "%s: dpcmenc's input not in CUDA memory", desc);
      g_free (desc);
      desc = g_strdup_printf ("dpcmenc backend=cpu %s", props);
      ref = encode_one (desc, caps, in, NULL, NULL);
      why = bytes_differ (out, ref);
      if (why) {
        g_printerr ("FAIL %s %dx%d, %s: CUDA-memory input coded otherwise "
            "than by the CPU: %s\n", dpcm_sizes[i].format, dpcm_sizes[i].w,
            dpcm_sizes[i].h, props, why);
        failures++;
      }
      g_free (why);
      g_free (desc);
      gst_buffer_unref (out);
      gst_buffer_unref (ref);
      gst_buffer_unref (in);
      gst_caps_unref (caps);
    }
  }

  /* bare input caps: the memory is settled with the first frame's caps */
  {
    GstCaps *caps = frameutil_video_caps ("GRAY16_LE", 200, 3);
    GstVideoInfo info;
    GstBuffer *in, *coded, *out;
    GstCaps *out_caps;
    GstHarness *hr;
    gboolean cuda;

    fail_unless (gst_video_info_from_caps (&info, caps));
    in = gray_frame (&info, TRUE, 77);
    coded = encode_one ("dpcmenc backend=cpu", caps, in, NULL, NULL);
    hr = gst_harness_new_parse ("dpcmdec backend=cuda ! " CUDA_VIDEO_LAST);
    gst_harness_set_src_caps_str (hr, "application/x-dpcm");
    fail_unless_equals_int (gst_harness_push (hr, coded), GST_FLOW_OK);
    out = gst_harness_pull (hr);
    fail_unless (out != NULL);
    out_caps = gst_pad_get_current_caps (hr->sinkpad);
    if (!same_frame ("dpcmdec backend=cuda, bare caps", &info, in, out,
            out_caps, &cuda))
      failures++;
    fail_unless (cuda, "bare caps: output not in CUDA memory");
    gst_caps_unref (out_caps);
    gst_harness_teardown (hr);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
  }

  /* frames of CUDA memory at a pitch of their own, on the element's
   * context */
  fail_unless (gst_cuda_load_library ());
  ctx = gst_cuda_context_new (0);
  fail_unless (ctx != NULL);
  for (i = 0; i < G_N_ELEMENTS (dpcm_sizes); i++) {
    GstCaps *caps = frameutil_video_caps (dpcm_sizes[i].format,
        dpcm_sizes[i].w, dpcm_sizes[i].h);
    GstCaps *dcaps = cuda_caps (caps);
    GstBus *bus = gst_bus_new ();
    GstVideoInfo info;
    GstBuffer *in, *out, *ref;
    GstHarness *hr;
    guint bps;
    gint pitch;
    gchar *why;

    fail_unless (gst_video_info_from_caps (&info, caps));
    bps = GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0);
    in = gray_frame (&info, i % 2, 6000 + i);
    /* rows apart by more than they hold, and not by the caps' stride */
    pitch = GST_ROUND_UP_N (dpcm_sizes[i].w * bps + 40, 8) + 2 * bps;
    hr = enc_on_context (ctx, bus, dcaps);
    fail_unless_equals_int (gst_harness_push (hr, device_gray_frame (ctx,
                &info, in, pitch)), GST_FLOW_OK);
    out = gst_harness_pull (hr);
    fail_unless (out != NULL);
    gst_harness_teardown (hr);
    ref = encode_one ("dpcmenc backend=cpu", caps, in, NULL, NULL);
    why = bytes_differ (out, ref);
    if (why) {
      g_printerr ("FAIL %s %dx%d in CUDA memory, pitch %d: coded otherwise "
          "than by the CPU: %s\n", dpcm_sizes[i].format, dpcm_sizes[i].w,
          dpcm_sizes[i].h, pitch, why);
      failures++;
    }
    g_free (why);
    gst_buffer_unref (out);
    gst_buffer_unref (ref);

    /* 16-bit rows an odd number of bytes apart: refused, saying why */
    if (bps == 2) {
      GstMessage *m;
      GError *err = NULL;

      hr = enc_on_context (ctx, bus, dcaps);
      fail_unless_equals_int (gst_harness_push (hr, device_gray_frame (ctx,
                  &info, in, dpcm_sizes[i].w * 2 + 1)), GST_FLOW_ERROR);
      fail_unless (gst_harness_try_pull (hr) == NULL);
      m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      fail_unless (m != NULL, "odd pitch: no error");
      gst_message_parse_error (m, &err, NULL);
      fail_unless (strstr (err->message, "not a whole number of 2-byte "
              "samples") != NULL, "odd pitch: %s", err->message);
      g_error_free (err);
      gst_message_unref (m);
      gst_harness_teardown (hr);
    }
    gst_object_unref (bus);
    gst_buffer_unref (in);
    gst_caps_unref (dcaps);
    gst_caps_unref (caps);
  }
  gst_object_unref (ctx);
  fail_unless (failures == 0, "%u cases failed (see stderr)", failures);
}

GST_END_TEST;

/* The error dpcmdec `pipeline` posts for the `len` bytes of `data` (bare
 * caps, then EOS), NULL when it outputs a frame instead; *out (may be
 * NULL) gets that frame, in system memory, and *out_info its layout. */
static gchar *
decode_error (const gchar * pipeline, const guint8 * data, gsize len,
    GstBuffer ** out, GstVideoInfo * out_info)
{
  GstHarness *hr = gst_harness_new_parse (pipeline);
  GstBus *bus = gst_bus_new ();
  GstBuffer *b;
  GstMessage *m;
  gchar *ret = NULL;

  gst_element_set_bus (hr->element, bus);
  gst_harness_set_src_caps_str (hr, "application/x-dpcm");
  gst_harness_push (hr, gst_buffer_new_memdup (data, len));
  gst_harness_push_event (hr, gst_event_new_eos ());
  b = gst_harness_try_pull (hr);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (m) {
    GError *err = NULL;

    gst_message_parse_error (m, &err, NULL);
    ret = g_strdup (err->message);
    g_error_free (err);
    gst_message_unref (m);
    fail_unless (b == NULL, "%s: an error (%s) and a frame", pipeline, ret);
  } else {
    GstCaps *caps = gst_pad_get_current_caps (hr->sinkpad);

    fail_unless (b != NULL, "%s: neither an error nor a frame", pipeline);
    fail_unless (gst_video_info_from_caps (out_info, caps));
    gst_caps_unref (caps);
    b = download (b, out_info);
  }
  if (out)
    *out = b;
  else if (b)
    gst_buffer_unref (b);
  gst_element_set_bus (hr->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (hr);
  return ret;
}

/* Corrupt frames into dpcmdec backend=cuda: a flipped byte (the CRC
 * fails), and flipped bytes of the coded segments under a CRC made valid
 * again, which only decoding can catch: the CUDA backend gives the CPU's
 * error message, or, where the CPU decodes such a frame, its samples; in
 * system and in CUDA memory, never a crash. */
GST_START_TEST (test_dpcm_cuda_corrupt)
{
  GstCaps *caps = frameutil_video_caps ("GRAY16_LE", 37, 230);
  GstVideoInfo info;
  GstBuffer *in, *coded;
  GstMapInfo map;
  sci_dpcm_info di;
  guint8 *t;
  gsize n;
  guint k, m, caught = 0;
  const gchar *gpu_pipes[] = { "dpcmdec backend=cuda",
    "dpcmdec backend=cuda ! " CUDA_VIDEO_LAST
  };

  fail_unless (gst_video_info_from_caps (&info, caps));
  in = gray_frame (&info, TRUE, 99);
  coded = encode_one ("dpcmenc backend=cpu", caps, in, NULL, NULL);
  fail_unless (gst_buffer_map (coded, &map, GST_MAP_READ));
  n = map.size;
  t = g_malloc (n);
  fail_unless_equals_int (sci_dpcm_peek (map.data, n, &di), SCI_DPCM_OK);
  fail_unless (di.segments > 1);

  /* a flipped byte in the middle: the CRC tells */
  for (m = 0; m < G_N_ELEMENTS (gpu_pipes); m++) {
    gchar *err;

    memcpy (t, map.data, n);
    t[n / 2] ^= 0x5A;
    err = decode_error (gpu_pipes[m], t, n, NULL, NULL);
    fail_unless (err != NULL, "%s: no error", gpu_pipes[m]);
    fail_unless_equals_string (err, "Corrupt DPCM frame: CRC mismatch");
    g_free (err);
  }

  /* the coded segments corrupted under a valid CRC */
  for (k = 0; k < 12; k++) {
    gsize at = di.coded_offset + (gsize) k * (di.coded_bytes - 1) / 11;
    GstBuffer *cpu_out = NULL;
    GstVideoInfo cpu_info;
    gchar *cpu_err;

    memcpy (t, map.data, n);
    t[at] ^= k % 2 ? 0xFF : 0x10;
    sci_dpcm_finish_frame (t, n - SCI_DPCM_TRAILER_BYTES);
    cpu_err = decode_error ("dpcmdec backend=cpu", t, n, &cpu_out, &cpu_info);
    if (cpu_err)
      caught++;
    for (m = 0; m < G_N_ELEMENTS (gpu_pipes); m++) {
      GstBuffer *gpu_out = NULL;
      GstVideoInfo gpu_info;
      gchar *gpu_err = decode_error (gpu_pipes[m], t, n, &gpu_out,
          &gpu_info);

      if (cpu_err) {
        fail_unless (gpu_err != NULL, "byte %" G_GSIZE_FORMAT ": the CPU says "
            "'%s', %s outputs a frame", at, cpu_err, gpu_pipes[m]);
        fail_unless (g_str_has_prefix (gpu_err, "Corrupt DPCM frame: "),
            "%s", gpu_err);
        fail_unless_equals_string (gpu_err, cpu_err);
      } else {
        GstVideoFrame a, b;

        fail_unless (gpu_err == NULL, "byte %" G_GSIZE_FORMAT ": the CPU "
            "decodes the frame, %s says '%s'", at, gpu_pipes[m], gpu_err);
        fail_unless (GST_VIDEO_INFO_FORMAT (&gpu_info) ==
            GST_VIDEO_INFO_FORMAT (&cpu_info)
            && GST_VIDEO_INFO_WIDTH (&gpu_info) ==
            GST_VIDEO_INFO_WIDTH (&cpu_info)
            && GST_VIDEO_INFO_HEIGHT (&gpu_info) ==
            GST_VIDEO_INFO_HEIGHT (&cpu_info));
        fail_unless (gst_video_frame_map (&a, &cpu_info, cpu_out,
                GST_MAP_READ));
        fail_unless (gst_video_frame_map (&b, &gpu_info, gpu_out,
                GST_MAP_READ));
        fail_unless (frameutil_max_diff (&a, &b, NULL, NULL) == 0,
            "byte %" G_GSIZE_FORMAT ": %s decodes otherwise than the CPU",
            at, gpu_pipes[m]);
        gst_video_frame_unmap (&b);
        gst_video_frame_unmap (&a);
        gst_buffer_unref (gpu_out);
      }
      g_free (gpu_err);
    }
    g_free (cpu_err);
    if (cpu_out)
      gst_buffer_unref (cpu_out);
  }
  /* the CPU catches most of them: the GPU's own checks did run */
  fail_unless (caught >= 6, "only %u of 12 corruptions caught", caught);
  gst_buffer_unmap (coded, &map);
  gst_buffer_unref (coded);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
  g_free (t);
}

GST_END_TEST;

/* As a user would run it, backend=auto, which must pick the GPU and never
 * warn of a fallback: frames of a changing picture coded, decoded into CUDA
 * memory, coded again from there and decoded into system memory. */
GST_START_TEST (test_dpcm_pipeline)
{
  const gchar *descs[] = {
    "videotestsrc num-buffers=10 pattern=ball ! "
        "video/x-raw,format=GRAY16_LE,width=320,height=240 ! dpcmenc ! "
        "dpcmdec ! " CUDA_VIDEO " ! dpcmenc order=4 equations=4 ! dpcmdec ! "
        "fakesink",
    "videotestsrc num-buffers=10 pattern=smpte ! "
        "video/x-raw,format=GRAY8,width=97,height=61 ! dpcmenc threshold=0 ! "
        "dpcmdec ! fakesink",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (descs); i++)
    play_clean (descs[i]);
}

GST_END_TEST;

/* ---- sppfilter ---- */

#define HS_CUDA "application/x-hyperspectral(memory:CUDAMemory)"
/* A CUDA-memory capsfilter that ends a launch line. */
#define HS_CUDA_LAST "capsfilter caps=\"" HS_CUDA "\""

static const struct
{
  const gchar *name;
  sci_spp_format format;
  gsize bytes;
} spp_formats[] = {
  {"U8", SCI_SPP_U8, 1}, {"S16LE", SCI_SPP_S16, 2}, {"U16LE", SCI_SPP_U16, 2},
  {"F32LE", SCI_SPP_F32, 4},
};

/* Cubes of awkward sizes (lines, samples, bands) and windows: one pixel,
 * one line, one column, windows larger than the cube, more than one tile
 * of the similarity kernel, many bands. */
static const struct
{
  gint L, S, B;
  guint window;
} spp_sizes[] = {
  {1, 1, 1, 5}, {1, 9, 4, 3}, {9, 1, 3, 5}, {5, 7, 3, 5}, {5, 7, 3, 15},
  {2, 2, 2, 15}, {17, 23, 5, 7}, {40, 37, 30, 11}, {33, 18, 200, 5},
};

static GstCaps *
spp_caps (const gchar * format, gint L, gint S, gint B)
{
  return gst_caps_new_simple ("application/x-hyperspectral",
      "lines", G_TYPE_INT, L, "samples", G_TYPE_INT, S, "bands", G_TYPE_INT,
      B, "format", G_TYPE_STRING, format, "interleave", G_TYPE_STRING, "bip",
      NULL);
}

/* A BIP cube of `n` pixels of `bands` values of format k: smooth spectra
 * of a few materials at random levels, with noise. */
static GstBuffer *
spp_cube (guint k, gsize npix, gsize bands, guint64 seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL,
      npix * bands * spp_formats[k].bytes, NULL);
  GstMapInfo map;
  gsize p, b;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (p = 0; p < npix; p++) {
    guint kind, level;

    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    kind = (guint) (seed % 4);
    level = 200 + (guint) ((seed >> 8) % 800);
    for (b = 0; b < bands; b++) {
      gdouble x = (gdouble) b / MAX (bands, 2), v;
      gsize i = p * bands + b;

      seed ^= seed << 13;
      seed ^= seed >> 7;
      seed ^= seed << 17;
      v = (kind == 0 ? 1.0 - x : kind == 1 ? 0.2 + x * x : 0.3 + 0.6 * x)
          * level / 1000.0 + (gdouble) (seed % 64) / 2000.0;
      switch (spp_formats[k].format) {
        case SCI_SPP_U8:
          map.data[i] = (guint8) (v * 250);
          break;
        case SCI_SPP_S16:
          GST_WRITE_UINT16_LE (map.data + 2 * i,
              (guint16) (gint16) (v * 30000 - (kind == 3 ? 20000 : 0)));
          break;
        case SCI_SPP_U16:
          GST_WRITE_UINT16_LE (map.data + 2 * i, (guint16) (v * 60000));
          break;
        default:
          GST_WRITE_FLOAT_LE (map.data + 4 * i, (gfloat) (kind == 3 ? -v : v));
          break;
      }
    }
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* A system-memory copy of a cube in device memory (taken), by our own
 * copy of its bytes. */
static GstBuffer *
download_cube (GstBuffer * buf)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  gsize size = gst_buffer_get_size (buf);
  GstBuffer *host;
  GstMapInfo dev, out;

  if (!gst_is_cuda_memory (mem))
    return buf;
  fail_unless_equals_int (gst_buffer_n_memory (buf), 1);
  host = gst_buffer_new_allocate (NULL, size, NULL);
  fail_unless (gst_buffer_map (buf, &dev, GST_MAP_READ | GST_MAP_CUDA));
  fail_unless (gst_buffer_map (host, &out, GST_MAP_WRITE));
  fail_unless (gst_cuda_context_push (GST_CUDA_MEMORY_CAST (mem)->context));
  fail_unless_equals_int (cudaMemcpy (out.data, dev.data, size,
          cudaMemcpyDeviceToHost), cudaSuccess);
  gst_cuda_context_pop (NULL);
  gst_buffer_unmap (host, &out);
  gst_buffer_unmap (buf, &dev);
  gst_buffer_unref (buf);
  return host;
}

/* A copy of the host cube `host` in flat device memory of `ctx`: 1.22
 * allocates no GstCudaMemory but of video formats (and cudaupload takes no
 * hyperspectral caps), so an RGBA carrier 1024 pixels (4096 bytes) wide,
 * its rows contiguous, trimmed to the cube's size. */
static GstBuffer *
device_cube (GstCudaContext * ctx, GstBuffer * host)
{
  gsize size = gst_buffer_get_size (host);
  GstAllocator *alloc;
  GstVideoInfo carrier;
  GstMemory *mem;
  GstMapInfo dev, hm;
  GstBuffer *buf;

  gst_cuda_memory_init_once ();
  alloc = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  fail_unless (alloc != NULL);
  fail_unless (gst_video_info_set_format (&carrier, GST_VIDEO_FORMAT_RGBA,
          1024, (guint) ((size + 4095) / 4096)));
  mem = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (alloc), ctx, &carrier);
  gst_object_unref (alloc);
  fail_unless (mem != NULL);
  fail_unless_equals_int (GST_VIDEO_INFO_PLANE_STRIDE (&GST_CUDA_MEMORY_CAST
          (mem)->info, 0), 4096);
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  gst_buffer_resize (buf, 0, size);
  fail_unless (gst_buffer_map (buf, &dev, GST_MAP_WRITE | GST_MAP_CUDA));
  fail_unless (gst_buffer_map (host, &hm, GST_MAP_READ));
  fail_unless (gst_cuda_context_push (ctx));
  fail_unless_equals_int (cudaMemcpy (dev.data, hm.data, size,
          cudaMemcpyHostToDevice), cudaSuccess);
  /* cudaMemcpy from pageable memory may return before the copy lands,
   * and the elements read on streams of their own (non-blocking): the
   * producer of a buffer finishes its work before passing it on */
  fail_unless_equals_int (cudaDeviceSynchronize (), cudaSuccess);
  gst_cuda_context_pop (NULL);
  gst_buffer_unmap (host, &hm);
  gst_buffer_unmap (buf, &dev);
  return buf;
}

/* Whether every value of the F32 cube `got` (any memory; taken) is within
 * a relative 1e-5 of `want`'s (the tolerance of tests/spp/parity_spp.c);
 * prints the worst one where not.  *cuda (may be NULL) gets whether `got`
 * was in CUDA memory. */
static gboolean
spp_close (const gchar * what, GstBuffer * got, GstBuffer * want,
    gboolean * cuda)
{
  GstMapInfo mg, mw;
  gdouble worst = 0;
  gsize i, at = 0, n;
  gboolean ok = TRUE;

  if (cuda)
    *cuda = gst_is_cuda_memory (gst_buffer_peek_memory (got, 0));
  /* as a host consumer sees it: a host mapping of the device cube */
  if (gst_is_cuda_memory (gst_buffer_peek_memory (got, 0))) {
    fail_unless (gst_buffer_map (got, &mg, GST_MAP_READ));
    fail_unless (gst_buffer_map (want, &mw, GST_MAP_READ));
    if (mg.size != mw.size) {
      g_printerr ("FAIL %s: mapped on the host, %" G_GSIZE_FORMAT
          " bytes, the CPU's %" G_GSIZE_FORMAT "\n", what, mg.size, mw.size);
      ok = FALSE;
    }
    gst_buffer_unmap (want, &mw);
    gst_buffer_unmap (got, &mg);
  }
  got = download_cube (got);
  fail_unless (gst_buffer_map (got, &mg, GST_MAP_READ));
  fail_unless (gst_buffer_map (want, &mw, GST_MAP_READ));
  if (mg.size != mw.size) {
    g_printerr ("FAIL %s: %" G_GSIZE_FORMAT " bytes, the CPU's %"
        G_GSIZE_FORMAT "\n", what, mg.size, mw.size);
    ok = FALSE;
  } else {
    n = mw.size / 4;
    for (i = 0; i < n; i++) {
      gdouble g = GST_READ_FLOAT_LE (mg.data + 4 * i);
      gdouble w = GST_READ_FLOAT_LE (mw.data + 4 * i);
      gdouble e = fabs (g - w), rel = w != 0 ? e / fabs (w) : e;

      if (!(rel <= worst) || !isfinite (g)) {
        worst = isfinite (g) ? rel : INFINITY;
        at = i;
      }
    }
    if (!(worst <= 1e-5)) {
      g_printerr ("FAIL %s: value %" G_GSIZE_FORMAT " is %.9g, the CPU's "
          "%.9g (relative error %.3g)\n", what, at,
          GST_READ_FLOAT_LE (mg.data + 4 * at),
          GST_READ_FLOAT_LE (mw.data + 4 * at), worst);
      ok = FALSE;
    }
  }
  gst_buffer_unmap (want, &mw);
  gst_buffer_unmap (got, &mg);
  gst_buffer_unref (got);
  return ok;
}

/* sppfilter backend=cuda in system memory matches backend=cpu within a
 * relative 1e-5: every format, every size, and into CUDA memory. */
GST_START_TEST (test_spp_cuda_equals_cpu)
{
  guint i, k, failures = 0;

  for (k = 0; k < G_N_ELEMENTS (spp_formats); k++)
    for (i = 0; i < G_N_ELEMENTS (spp_sizes); i++) {
      gint L = spp_sizes[i].L, S = spp_sizes[i].S, B = spp_sizes[i].B;
      GstCaps *caps = spp_caps (spp_formats[k].name, L, S, B), *oc = NULL;
      GstBuffer *in = spp_cube (k, (gsize) L * S, B, 9000 + 31 * k + i);
      GstBuffer *ref, *out;
      gchar *cpu, *gpu, *what;
      gboolean cuda;

      cpu = g_strdup_printf ("sppfilter backend=cpu window-size=%u",
          spp_sizes[i].window);
      ref = encode_one (cpu, caps, in, NULL, NULL);
      gpu = g_strdup_printf ("sppfilter name=enc backend=cuda window-size=%u",
          spp_sizes[i].window);
      what = g_strdup_printf ("%s %dx%dx%d window %u, system memory",
          spp_formats[k].name, L, S, B, spp_sizes[i].window);
      out = encode_one (gpu, caps, in, NULL, &oc);
      if (!spp_close (what, out, ref, &cuda))
        failures++;
      fail_if (cuda, "%s: output in CUDA memory", what);
      gst_caps_unref (oc);
      g_free (what);
      g_free (gpu);

      /* into CUDA memory */
      gpu = g_strdup_printf ("sppfilter backend=cuda window-size=%u ! "
          HS_CUDA_LAST, spp_sizes[i].window);
      what = g_strdup_printf ("%s %dx%dx%d window %u, CUDA memory out",
          spp_formats[k].name, L, S, B, spp_sizes[i].window);
      out = encode_one (gpu, caps, in, NULL, &oc);
      if (!spp_close (what, out, ref, &cuda))
        failures++;
      fail_unless (cuda, "%s: output not in CUDA memory", what);
      fail_unless (gst_caps_features_contains (gst_caps_get_features (oc, 0),
              GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
      gst_caps_unref (oc);
      g_free (what);
      g_free (gpu);
      g_free (cpu);
      gst_buffer_unref (ref);
      gst_buffer_unref (in);
      gst_caps_unref (caps);
    }
  fail_unless (failures == 0, "%u cases failed (see stderr)", failures);
}

GST_END_TEST;

/* A harness of sppfilter backend=cuda `props` on `ctx` (set before it
 * starts, so that it reads CUDA memory of that context in place), its
 * src caps `caps` and its sink pad taking `sink_caps`, posting to `bus`. */
static GstHarness *
spp_on_context (GstCudaContext * ctx, GstBus * bus, GstCaps * caps,
    const gchar * sink_caps, const gchar * props)
{
  GstElement *e = gst_element_factory_make ("sppfilter", NULL);
  GstContext *gctx = gst_context_new_cuda_context (ctx);
  GstHarness *hr;
  gchar **kv = g_strsplit (props, " ", -1);
  guint i;

  fail_unless (e != NULL);
  gst_object_ref_sink (e);
  gst_util_set_object_arg (G_OBJECT (e), "backend", "cuda");
  for (i = 0; kv[i]; i++) {
    gchar **p = g_strsplit (kv[i], "=", 2);

    if (p[0] && p[1])
      gst_util_set_object_arg (G_OBJECT (e), p[0], p[1]);
    g_strfreev (p);
  }
  g_strfreev (kv);
  gst_element_set_context (e, gctx);
  gst_context_unref (gctx);
  gst_element_set_bus (e, bus);
  hr = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);         /* the harness holds it */
  gst_harness_set_sink_caps_str (hr, sink_caps);
  gst_harness_set_src_caps (hr, gst_caps_ref (caps));
  return hr;
}

static GstCaps *
spp_cuda_caps (GstCaps * caps)
{
  GstCaps *c = gst_caps_copy (caps);

  gst_caps_set_features_simple (c,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  return c;
}

/* Cubes in CUDA memory of the element's context read in place, into
 * system and into CUDA memory; two filters in a row in device memory. */
GST_START_TEST (test_spp_cuda_memory)
{
  GstCudaContext *ctx;
  guint i, k, m, failures = 0;

  fail_unless (gst_cuda_load_library ());
  ctx = gst_cuda_context_new (0);
  fail_unless (ctx != NULL);
  for (k = 0; k < G_N_ELEMENTS (spp_formats); k++)
    for (i = 0; i < G_N_ELEMENTS (spp_sizes); i++) {
      gint L = spp_sizes[i].L, S = spp_sizes[i].S, B = spp_sizes[i].B;
      GstCaps *caps = spp_caps (spp_formats[k].name, L, S, B);
      GstCaps *dcaps = spp_cuda_caps (caps);
      GstBuffer *in = spp_cube (k, (gsize) L * S, B, 7000 + 31 * k + i);
      GstBuffer *ref, *out;
      gchar *props, *cpu;

      props = g_strdup_printf ("window-size=%u", spp_sizes[i].window);
      cpu = g_strdup_printf ("sppfilter backend=cpu %s", props);
      ref = encode_one (cpu, caps, in, NULL, NULL);
      for (m = 0; m < 2; m++) {
        GstBus *bus = gst_bus_new ();
        GstHarness *hr = spp_on_context (ctx, bus, dcaps,
            m ? HS_CUDA : "application/x-hyperspectral", props);
        gchar *what = g_strdup_printf ("%s %dx%dx%d window %u, CUDA memory "
            "in, %s memory out", spp_formats[k].name, L, S, B,
            spp_sizes[i].window, m ? "CUDA" : "system");
        gboolean cuda;
        GstMessage *msg;

        fail_unless_equals_int (gst_harness_push (hr, device_cube (ctx, in)),
            GST_FLOW_OK);
        out = gst_harness_pull (hr);
        fail_unless (out != NULL, "%s: no output", what);
        msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR |
            GST_MESSAGE_WARNING);
        fail_unless (msg == NULL, "%s: %" GST_PTR_FORMAT, what, msg);
        if (!spp_close (what, out, ref, &cuda))
          failures++;
        fail_unless (cuda == (m == 1), "%s: output in the wrong memory", what);
        gst_harness_teardown (hr);
        gst_object_unref (bus);
        g_free (what);
      }
      gst_buffer_unref (ref);
      g_free (cpu);

      /* the filter twice, the cube in device memory between */
      cpu = g_strdup_printf ("sppfilter backend=cpu %s ! sppfilter "
          "backend=cpu %s", props, props);
      ref = encode_one (cpu, caps, in, NULL, NULL);
      g_free (cpu);
      cpu = g_strdup_printf ("sppfilter backend=cuda %s ! " HS_CUDA " ! "
          "sppfilter name=enc backend=cuda %s", props, props);
      {
        gboolean in_cuda, cuda;
        gchar *what = g_strdup_printf ("%s %dx%dx%d window %u, twice",
            spp_formats[k].name, L, S, B, spp_sizes[i].window);

        out = encode_one (cpu, caps, in, &in_cuda, NULL);
        fail_unless (in_cuda, "%s: the second filter's input not in CUDA "
            "memory", what);
        if (!spp_close (what, out, ref, &cuda))
          failures++;
        g_free (what);
      }
      g_free (cpu);
      g_free (props);
      gst_buffer_unref (ref);
      gst_buffer_unref (in);
      gst_caps_unref (dcaps);
      gst_caps_unref (caps);
    }
  gst_object_unref (ctx);
  fail_unless (failures == 0, "%u cases failed (see stderr)", failures);
}

GST_END_TEST;

/* The error that sppfilter `pipeline` posts for `in` (pushed with
 * `caps`), NULL when it outputs a cube. */
static gchar *
spp_error (GstHarness * hr, GstBus * bus, GstBuffer * in)
{
  GstMessage *m;
  GError *err = NULL;
  gchar *ret;

  fail_unless_equals_int (gst_harness_push (hr, in), GST_FLOW_ERROR);
  fail_unless (gst_harness_try_pull (hr) == NULL);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (!m)
    return NULL;
  gst_message_parse_error (m, &err, NULL);
  ret = g_strdup (err->message);
  fail_unless (g_error_matches (err, GST_STREAM_ERROR,
          GST_STREAM_ERROR_FORMAT), "%s", err->message);
  g_error_free (err);
  gst_message_unref (m);
  return ret;
}

/* A NaN or infinite value in a float cube: backend=cuda posts the CPU's
 * STREAM/FORMAT error, nothing comes out and there is no fallback, with
 * the cube in system memory and in CUDA memory. */
GST_START_TEST (test_spp_cuda_nonfinite)
{
  const gint L = 20, S = 19, B = 6;
  const gfloat bad[] = { NAN, INFINITY, -INFINITY };
  GstCaps *caps = spp_caps ("F32LE", L, S, B);
  GstCaps *dcaps = spp_cuda_caps (caps);
  GstCudaContext *ctx;
  guint k, m;

  fail_unless (gst_cuda_load_library ());
  ctx = gst_cuda_context_new (0);
  fail_unless (ctx != NULL);
  for (k = 0; k < G_N_ELEMENTS (bad); k++)
    for (m = 0; m < 3; m++) {
      GstBuffer *in = spp_cube (3, (gsize) L * S, B, 123 + k);
      GstBus *bus = gst_bus_new ();
      GstHarness *hr;
      GstMapInfo map;
      gchar *err;

      fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
      GST_WRITE_FLOAT_LE (map.data + 4 * (((gsize) 7 * S + 11) * B + 5),
          bad[k]);
      gst_buffer_unmap (in, &map);
      if (m == 0) {
        /* system memory, backend=auto on the GPU */
        GstElement *e;

        hr = gst_harness_new ("sppfilter");
        e = gst_harness_find_element (hr, "sppfilter");
        gst_element_set_bus (e, bus);
        gst_object_unref (e);
        gst_harness_set_src_caps (hr, gst_caps_ref (caps));
      } else {
        hr = spp_on_context (ctx, bus, m == 1 ? caps : dcaps, m == 1 ?
            "application/x-hyperspectral" : HS_CUDA, "");
        if (m == 2) {
          GstBuffer *d = device_cube (ctx, in);

          gst_buffer_unref (in);
          in = d;
        }
      }
      err = spp_error (hr, bus, in);
      fail_unless (err != NULL, "value %g, case %u: no error", bad[k], m);
      fail_unless (strstr (err, "NaN or infinite") != NULL, "%s", err);
      if (m < 2)
        fail_unless (strstr (err, "line 7, sample 11, band 5") != NULL,
            "%s", err);
      g_free (err);
      gst_harness_teardown (hr);
      gst_object_unref (bus);
    }
  gst_object_unref (ctx);
  gst_caps_unref (dcaps);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* ---- seismicenc, seismicdec ---- */

#define SEIS_CUDA "application/x-seismic(memory:CUDAMemory)"
/* A CUDA-memory capsfilter that ends a launch line. */
#define SEIS_CUDA_LAST "capsfilter caps=\"" SEIS_CUDA "\""
#define SEIS_CODED "application/x-seismic-compressed"

/* Gathers of awkward sizes (one value, one trace, one sample a trace, a
 * long trace, many traces) with the parameter corners. */
static const struct
{
  guint traces, samples, bits, levels;
} seis_cases[] = {
  {1, 1, 2, 0}, {1, 7, 16, 0}, {7, 1, 8, 3}, {96, 3584, 12, 1},
  {5, 1001, 16, 4}, {240, 1500, 8, 2}, {3, 20000, 2, 8}, {64, 64, 12, 0},
  {33, 517, 14, 5},
};

static GstCaps *
seis_caps (guint traces, guint samples)
{
  return gst_caps_new_simple ("application/x-seismic", "traces", G_TYPE_INT,
      (gint) traces, "samples", G_TYPE_INT, (gint) samples,
      "sample-interval", G_TYPE_INT, 2000, NULL);
}

/* A gather: reflections with moveout, noise, a dead trace. */
static GstBuffer *
seis_gather (guint traces, guint samples, guint64 seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL,
      sizeof (gfloat) * traces * samples, NULL);
  GstMapInfo map;
  guint t, s;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (t = 0; t < traces; t++)
    for (s = 0; s < samples; s++) {
      gdouble at = samples * 0.3 + 0.02 * t * t, u = (s - at) / 4.0;
      gdouble v = 800.0 * (1.0 - 2.0 * u * u) * exp (-u * u);

      seed ^= seed << 13;
      seed ^= seed >> 7;
      seed ^= seed << 17;
      v += (gdouble) (seed % 2001) / 20.0 - 50.0;
      if (traces > 2 && t == traces / 2)
        v = 0.0;
      GST_WRITE_FLOAT_LE (map.data + 4 * ((gsize) t * samples + s), (gfloat) v);
    }
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* The frame seismicenc backend=cpu makes of the gather. */
static GstBuffer *
seis_frame (GstBuffer * gather, guint traces, guint samples, guint bits,
    guint levels)
{
  GstCaps *caps = seis_caps (traces, samples);
  gchar *desc = g_strdup_printf ("seismicenc backend=cpu bits=%u levels=%u",
      bits, levels);
  GstBuffer *out = encode_one (desc, caps, gather, NULL, NULL);

  g_free (desc);
  gst_caps_unref (caps);
  return out;
}

/* The error that seismicdec `pipeline` posts for the `len` bytes of
 * `data` (bare caps, then EOS), NULL when it outputs gathers instead; *out
 * (may be NULL) gets the first, in system memory. */
static gchar *
seis_decode_error (const gchar * pipeline, const guint8 * data, gsize len,
    GstBuffer ** out)
{
  GstHarness *hr = gst_harness_new_parse (pipeline);
  GstBus *bus = gst_bus_new ();
  GstBuffer *b;
  GstMessage *m;
  gchar *ret = NULL;

  gst_element_set_bus (hr->element, bus);
  gst_harness_set_src_caps_str (hr, SEIS_CODED);
  gst_harness_push (hr, gst_buffer_new_memdup (data, len));
  gst_harness_push_event (hr, gst_event_new_eos ());
  b = gst_harness_try_pull (hr);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (m) {
    GError *err = NULL;

    gst_message_parse_error (m, &err, NULL);
    ret = g_strdup (err->message);
    g_error_free (err);
    gst_message_unref (m);
    fail_unless (b == NULL, "%s: an error (%s) and a gather", pipeline, ret);
  } else {
    fail_unless (b != NULL, "%s: neither an error nor a gather", pipeline);
    b = download_cube (b);
  }
  if (out)
    *out = b;
  else if (b)
    gst_buffer_unref (b);
  gst_element_set_bus (hr->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (hr);
  return ret;
}

/* seismicdec backend=cuda gives backend=cpu's gathers bit for bit, in
 * system memory: every case, and a stream of frames of changing geometry
 * in one buffer through one element, each geometry three frames in a row
 * (decoded as batches; its device state grows, its output pool is made
 * again). */
GST_START_TEST (test_seismic_cuda_equals_cpu)
{
  GByteArray *all = g_byte_array_new ();
  GPtrArray *want = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  guint i, k, failures = 0;

  for (i = 0; i < G_N_ELEMENTS (seis_cases); i++) {
    guint T = seis_cases[i].traces, S = seis_cases[i].samples;
    GstBuffer *in = seis_gather (T, S, 300 + i);
    GstBuffer *frame = seis_frame (in, T, S, seis_cases[i].bits,
        seis_cases[i].levels);
    GstCaps *coded = gst_caps_new_empty_simple (SEIS_CODED);
    GstCaps *oc = NULL;
    GstBuffer *cpu = encode_one ("seismicdec backend=cpu", coded, frame, NULL,
        NULL);
    GstBuffer *gpu = encode_one ("seismicdec backend=cuda", coded, frame,
        NULL, &oc);
    GstMapInfo map;
    gchar *why;

    fail_if (gst_is_cuda_memory (gst_buffer_peek_memory (gpu, 0)),
        "system memory was asked for");
    fail_if (gst_caps_features_contains (gst_caps_get_features (oc, 0),
            GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
    why = bytes_differ (gpu, cpu);
    if (why) {
      g_printerr ("FAIL seismicdec %ux%u, %u bits, %u levels: backend=cuda "
          "differs from backend=cpu: %s\n", T, S, seis_cases[i].bits,
          seis_cases[i].levels, why);
      failures++;
    }
    g_free (why);
    fail_unless (gst_buffer_map (frame, &map, GST_MAP_READ));
    for (k = 0; k < 3; k++) {
      g_byte_array_append (all, map.data, map.size);
      g_ptr_array_add (want, gst_buffer_ref (cpu));
    }
    gst_buffer_unmap (frame, &map);
    gst_buffer_unref (cpu);
    gst_buffer_unref (gpu);
    gst_buffer_unref (frame);
    gst_buffer_unref (in);
    gst_caps_unref (oc);
    gst_caps_unref (coded);
  }

  /* all the frames back to back through one element */
  {
    GstHarness *hr = gst_harness_new_parse ("seismicdec backend=cuda");

    gst_harness_set_src_caps_str (hr, SEIS_CODED);
    fail_unless_equals_int (gst_harness_push (hr,
            gst_buffer_new_memdup (all->data, all->len)), GST_FLOW_OK);
    for (i = 0; i < want->len; i++) {
      GstBuffer *b = gst_harness_try_pull (hr);
      gchar *why;

      fail_unless (b != NULL, "stream: gather %u missing", i);
      why = bytes_differ (b, want->pdata[i]);
      if (why) {
        g_printerr ("FAIL seismicdec backend=cuda, stream, gather %u: %s\n",
            i, why);
        failures++;
      }
      g_free (why);
      gst_buffer_unref (b);
    }
    fail_unless (gst_harness_try_pull (hr) == NULL);
    gst_harness_teardown (hr);
  }
  g_ptr_array_unref (want);
  g_byte_array_unref (all);
  fail_unless (failures == 0, "%u cases failed (see stderr)", failures);
}

GST_END_TEST;

/* A harness of seismicenc on `ctx` (set before it starts, so that it
 * reads CUDA memory of that context), its src caps `caps`. */
static GstHarness *
seis_enc_on_context (GstCudaContext * ctx, GstCaps * caps, const gchar * bits)
{
  GstElement *enc = gst_element_factory_make ("seismicenc", NULL);
  GstContext *gctx = gst_context_new_cuda_context (ctx);
  GstHarness *hr;

  fail_unless (enc != NULL);
  gst_object_ref_sink (enc);
  gst_util_set_object_arg (G_OBJECT (enc), "backend", "cuda");
  gst_util_set_object_arg (G_OBJECT (enc), "bits", bits);
  gst_element_set_context (enc, gctx);
  gst_context_unref (gctx);
  hr = gst_harness_new_with_element (enc, "sink", "src");
  gst_object_unref (enc);       /* the harness holds it */
  gst_harness_set_src_caps (hr, gst_caps_ref (caps));
  return hr;
}

/* Device memory: seismicdec backend=cuda decoding straight into CUDA
 * memory (caps memory:CUDAMemory), downloaded equal to backend=cpu's
 * gather; seismicenc taking such gathers (it downloads them) and giving
 * the bytes that the CPU-decoded gather gives; gathers made here in CUDA
 * memory of a context of our own coded as from system memory. */
GST_START_TEST (test_seismic_cuda_memory)
{
  GstCudaContext *ctx;
  guint i, failures = 0;

  fail_unless (gst_cuda_load_library ());
  ctx = gst_cuda_context_new (0);
  fail_unless (ctx != NULL);
  for (i = 0; i < G_N_ELEMENTS (seis_cases); i++) {
    guint T = seis_cases[i].traces, S = seis_cases[i].samples;
    GstBuffer *in = seis_gather (T, S, 400 + i);
    GstBuffer *frame = seis_frame (in, T, S, seis_cases[i].bits,
        seis_cases[i].levels);
    GstCaps *coded = gst_caps_new_empty_simple (SEIS_CODED);
    GstCaps *gcaps = seis_caps (T, S), *dcaps;
    GstCaps *oc = NULL;
    GstBuffer *cpu = encode_one ("seismicdec backend=cpu", coded, frame, NULL,
        NULL);
    GstBuffer *gpu, *ref, *out, *dev;
    GstHarness *hr;
    gboolean cuda;
    gchar *why;

    /* decoded into CUDA memory */
    gpu = encode_one ("seismicdec backend=cuda ! " SEIS_CUDA_LAST, coded,
        frame, NULL, &oc);
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (gpu, 0)),
        "%ux%u: output not in CUDA memory", T, S);
    fail_unless (gst_caps_features_contains (gst_caps_get_features (oc, 0),
            GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
    fail_unless_equals_int (gst_buffer_get_size (gpu), sizeof (gfloat) * T * S);
    gpu = download_cube (gpu);
    why = bytes_differ (gpu, cpu);
    if (why) {
      g_printerr ("FAIL seismicdec %ux%u into CUDA memory: %s\n", T, S, why);
      failures++;
    }
    g_free (why);
    gst_buffer_unref (gpu);
    gst_caps_unref (oc);

    /* those gathers coded again by seismicenc, which downloads them */
    out = encode_one ("seismicdec backend=cuda ! " SEIS_CUDA " ! "
        "seismicenc name=enc bits=9 levels=2", coded, frame, &cuda, NULL);
    fail_unless (cuda, "%ux%u: seismicenc's input not in CUDA memory", T, S);
    ref = seis_frame (cpu, T, S, 9, 2);
    why = bytes_differ (out, ref);
    if (why) {
      g_printerr ("FAIL seismicenc of a CUDA-memory gather %ux%u: %s\n", T, S,
          why);
      failures++;
    }
    g_free (why);
    gst_buffer_unref (out);
    gst_buffer_unref (ref);

    /* and as version 6 frames (frame-version), equal to the CPU's */
    out = encode_one ("seismicdec backend=cuda ! " SEIS_CUDA " ! "
        "seismicenc name=enc bits=9 levels=2 frame-version=6", coded, frame,
        &cuda, NULL);
    fail_unless (cuda, "%ux%u: seismicenc's input not in CUDA memory", T, S);
    ref = encode_one ("seismicenc backend=cpu bits=9 levels=2 frame-version=6",
        gcaps, cpu, NULL, NULL);
    why = bytes_differ (out, ref);
    if (!why) {
      GstMapInfo map;
      sci_seis_info info;

      fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
      if (sci_seis_parse (map.data, map.size, &info) || info.version != 6)
        why = g_strdup ("not a version 6 frame");
      gst_buffer_unmap (out, &map);
    }
    if (why) {
      g_printerr ("FAIL seismicenc frame-version=6 of a CUDA-memory gather "
          "%ux%u: %s\n", T, S, why);
      failures++;
    }
    g_free (why);
    gst_buffer_unref (out);
    gst_buffer_unref (ref);

    /* a gather put in CUDA memory here, on a context of our own */
    dcaps = gst_caps_copy (gcaps);
    gst_caps_set_features_simple (dcaps,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
    hr = seis_enc_on_context (ctx, dcaps, "11");
    dev = device_cube (ctx, in);
    fail_unless_equals_int (gst_harness_push (hr, dev), GST_FLOW_OK);
    out = gst_harness_pull (hr);
    fail_unless (out != NULL);
    gst_harness_teardown (hr);
    ref = seis_frame (in, T, S, 11, 1);
    why = bytes_differ (out, ref);
    if (why) {
      g_printerr ("FAIL seismicenc of our CUDA-memory gather %ux%u: %s\n", T,
          S, why);
      failures++;
    }
    g_free (why);
    gst_buffer_unref (out);
    gst_buffer_unref (ref);

    gst_caps_unref (dcaps);
    gst_caps_unref (gcaps);
    gst_caps_unref (coded);
    gst_buffer_unref (cpu);
    gst_buffer_unref (frame);
    gst_buffer_unref (in);
  }
  gst_object_unref (ctx);
  fail_unless (failures == 0, "%u cases failed (see stderr)", failures);
}

GST_END_TEST;

/* Makes both CRCs of the frame at t (len bytes) valid again. */
static void
seis_fix_crcs (guint8 * t, gsize len)
{
  guint32 h = sci_crc32 (0, t, 44), f;
  guint k;

  /* bytes: the frame's CRC may be unaligned */
  for (k = 0; k < 4; k++)
    t[44 + k] = (guint8) (h >> 8 * k);
  f = sci_crc32 (0, t, len - 4);
  for (k = 0; k < 4; k++)
    t[len - 4 + k] = (guint8) (f >> 8 * k);
}

/* Corrupt frames into seismicdec backend=cuda, in system and in CUDA
 * memory: a flipped bit (the CRC tells: the CPU's message), and code
 * words, slice firsts or the code table changed under valid CRCs, which
 * only decoding can catch: the CPU's error message, or, where the CPU
 * decodes such a frame, its gather bit for bit; never a crash. */
GST_START_TEST (test_seismic_cuda_corrupt)
{
  const gchar *gpu_pipes[] = { "seismicdec backend=cuda",
    "seismicdec backend=cuda ! " SEIS_CUDA_LAST
  };
  GstBuffer *in = seis_gather (40, 900, 77), *frame;
  sci_seis_info info;
  GstMapInfo map;
  guint8 *t;
  gsize n;
  guint k, m, caught = 0;

  frame = seis_frame (in, 40, 900, 12, 2);
  fail_unless (gst_buffer_map (frame, &map, GST_MAP_READ));
  n = map.size;
  t = g_malloc (n);
  fail_unless_equals_int (sci_seis_parse (map.data, n, &info), 0);
  fail_unless (info.packages > 8 && info.blocks > 8);

  for (m = 0; m < G_N_ELEMENTS (gpu_pipes); m++) {
    gchar *err;

    memcpy (t, map.data, n);
    t[n / 2] ^= 0x08;
    err = seis_decode_error (gpu_pipes[m], t, n, NULL);
    fail_unless (err != NULL, "%s: no error", gpu_pipes[m]);
    fail_unless_equals_string (err, "Corrupt seismic frame at byte 0 of the "
        "stream: seismic frame checksum mismatch");
    g_free (err);
  }

  for (k = 0; k < 24; k++) {
    gsize at = k % 4 == 0 ? info.table_off + k % info.table_len :
        info.pkg_off + (gsize) k * 8 * (info.packages / 24) + k % 8;
    GstBuffer *cpu_out = NULL;
    gchar *cpu_err;

    memcpy (t, map.data, n);
    if (k % 6 == 5 && info.version >= 7) {
      /* a slice's first value one more */
      gsize a = info.firsts_off + 4 * (k % (info.blocks - 1));

      t[a] = (guint8) (t[a] + 1);
    } else if (k % 6 == 5) {
      /* a package's symbol count moved to the next one */
      gsize a = info.pkg_off + 8 * (k % (info.packages - 1));

      t[a + 7] = (guint8) (t[a + 7] + 4);
      t[a + 15] = (guint8) (t[a + 15] - 4);
    } else {
      t[at] ^= k % 2 ? 0xFF : 0x10;
    }
    seis_fix_crcs (t, n);
    cpu_err = seis_decode_error ("seismicdec backend=cpu", t, n, &cpu_out);
    if (cpu_err)
      caught++;
    for (m = 0; m < G_N_ELEMENTS (gpu_pipes); m++) {
      GstBuffer *gpu_out = NULL;
      gchar *gpu_err = seis_decode_error (gpu_pipes[m], t, n, &gpu_out);

      if (cpu_err) {
        fail_unless (gpu_err != NULL, "case %u: the CPU says '%s', %s "
            "outputs a gather", k, cpu_err, gpu_pipes[m]);
        fail_unless_equals_string (gpu_err, cpu_err);
      } else {
        gchar *why;

        fail_unless (gpu_err == NULL, "case %u: the CPU decodes the frame, "
            "%s says '%s'", k, gpu_pipes[m], gpu_err);
        why = bytes_differ (gpu_out, cpu_out);
        fail_unless (why == NULL, "case %u: %s decodes otherwise than the "
            "CPU: %s", k, gpu_pipes[m], why);
        gst_buffer_unref (gpu_out);
      }
      g_free (gpu_err);
    }
    g_free (cpu_err);
    if (cpu_out)
      gst_buffer_unref (cpu_out);
  }
  /* the CPU catches many of them: the GPU's own checks did run */
  fail_unless (caught >= 8, "only %u of 24 corruptions caught", caught);

  /* in one batch: two good frames, a damaged one, a good one: the two
   * gathers (the CPU's), then the CPU's error for the third frame, with
   * its offset, and nothing after it */
  for (k = 0; k < 24; k++) {
    GByteArray *all = g_byte_array_new ();
    GstBuffer *cpu_out = NULL;
    gchar *cpu_err, *want;

    memcpy (t, map.data, n);
    t[info.pkg_off + (gsize) k * 8 * (info.packages / 24) + k % 8] ^= 0xFF;
    seis_fix_crcs (t, n);
    cpu_err = seis_decode_error ("seismicdec backend=cpu", t, n, &cpu_out);
    if (!cpu_err) {
      gst_buffer_unref (cpu_out);
      g_byte_array_unref (all);
      continue;
    }
    /* the CPU's message names byte 0: the batch's names byte 2n */
    fail_unless (g_str_has_prefix (cpu_err, "Corrupt seismic frame at byte "
            "0 of the stream: "));
    want = g_strdup_printf ("Corrupt seismic frame at byte %" G_GSIZE_FORMAT
        " of the stream: %s", 2 * n, cpu_err + strlen ("Corrupt seismic "
            "frame at byte 0 of the stream: "));
    g_byte_array_append (all, map.data, n);
    g_byte_array_append (all, map.data, n);
    g_byte_array_append (all, t, n);
    g_byte_array_append (all, map.data, n);
    for (m = 0; m < G_N_ELEMENTS (gpu_pipes); m++) {
      GstHarness *hr = gst_harness_new_parse (gpu_pipes[m]);
      GstBus *bus = gst_bus_new ();
      GstBuffer *ref = NULL, *b;
      GstMessage *msg;
      GError *e = NULL;
      guint got = 0;

      fail_unless (seis_decode_error ("seismicdec backend=cpu", map.data, n,
              &ref) == NULL);
      gst_element_set_bus (hr->element, bus);
      gst_harness_set_src_caps_str (hr, SEIS_CODED);
      fail_unless_equals_int (gst_harness_push (hr,
              gst_buffer_new_memdup (all->data, all->len)), GST_FLOW_ERROR);
      while ((b = gst_harness_try_pull (hr))) {
        gchar *why;

        b = download_cube (b);
        why = bytes_differ (b, ref);
        fail_unless (why == NULL, "batch case %u, %s, gather %u: %s", k,
            gpu_pipes[m], got, why);
        gst_buffer_unref (b);
        got++;
      }
      fail_unless_equals_int (got, 2);
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      fail_unless (msg != NULL, "batch case %u, %s: no error", k, gpu_pipes[m]);
      gst_message_parse_error (msg, &e, NULL);
      fail_unless_equals_string (e->message, want);
      g_error_free (e);
      gst_message_unref (msg);
      gst_buffer_unref (ref);
      gst_element_set_bus (hr->element, NULL);
      gst_object_unref (bus);
      gst_harness_teardown (hr);
    }
    g_free (want);
    g_free (cpu_err);
    g_byte_array_unref (all);
  }
  gst_buffer_unmap (frame, &map);
  gst_buffer_unref (frame);
  gst_buffer_unref (in);
  g_free (t);
}

GST_END_TEST;

/* As a user would run it, backend=auto, which must pick the GPU and never
 * warn of a fallback: a file of frames decoded into CUDA memory, coded
 * again from there and decoded into system memory. */
GST_START_TEST (test_seismic_pipeline)
{
  gchar *dir = g_dir_make_tmp ("seis-gpu-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "f.seis", NULL), *desc;
  GByteArray *all = g_byte_array_new ();
  guint i;

  for (i = 0; i < 6; i++) {
    guint T = i % 2 ? 120 : 61, S = i % 3 ? 1500 : 733;
    GstBuffer *in = seis_gather (T, S, 900 + i);
    GstBuffer *frame = seis_frame (in, T, S, 12, 1 + i % 3);
    GstMapInfo map;

    fail_unless (gst_buffer_map (frame, &map, GST_MAP_READ));
    g_byte_array_append (all, map.data, map.size);
    gst_buffer_unmap (frame, &map);
    gst_buffer_unref (frame);
    gst_buffer_unref (in);
  }
  fail_unless (g_file_set_contents (path, (const gchar *) all->data,
          all->len, NULL));
  desc = g_strdup_printf ("filesrc location=\"%s\" ! seismicdec ! "
      SEIS_CUDA " ! seismicenc bits=8 levels=3 ! seismicdec ! fakesink", path);
  play_clean (desc);
  g_free (desc);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
  g_byte_array_unref (all);
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
  tcase_add_test (tc, test_bounce_fallback);
  tcase_add_test (tc, test_htj2k_lossless_openjpegdec);
  tcase_add_test (tc, test_htj2k_pipeline);
  tcase_add_test (tc, test_ebcot_cuda_equals_cpu);
  tcase_add_test (tc, test_ebcot_frames_in_flight);

  tc = tcase_create ("dpcm-gpu");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_dpcm_cuda_equals_cpu);
  tcase_add_test (tc, test_dpcm_cuda_roundtrip);
  tcase_add_test (tc, test_dpcm_cuda_memory);
  tcase_add_test (tc, test_dpcm_cuda_corrupt);
  tcase_add_test (tc, test_dpcm_pipeline);

  tc = tcase_create ("spp-gpu");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_spp_cuda_equals_cpu);
  tcase_add_test (tc, test_spp_cuda_memory);
  tcase_add_test (tc, test_spp_cuda_nonfinite);

  tc = tcase_create ("seismic-gpu");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_seismic_cuda_equals_cpu);
  tcase_add_test (tc, test_seismic_cuda_memory);
  tcase_add_test (tc, test_seismic_cuda_corrupt);
  tcase_add_test (tc, test_seismic_pipeline);
  return s;
}

int
main (int argc, char **argv)
{
  if (!cuda_device_usable_in_child ()) {
    g_print ("no usable CUDA device: skipped\n");
    return 77;
  }
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (gpu_suite (), "scicodec-elements-gpu", __FILE__);
}
