/*
 * j2kdec on the CUDA backend (suite gpu; exits 77 without a usable
 * device): lossless round trips from htj2kenc and ebcotcm exact in system
 * memory and in CUDA memory, the same frames as the CPU backend (reduce,
 * max-layers and damaged frames too), frames in flight leaving in order
 * with a change of size between them, damaged frames among frames in
 * flight, and its CUDA frames read in place
 * by htj2kenc and ebcotcm on the GPU.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudamemory.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "tests/common/cudacheck.h"

#include "tests/common/frameutil.h"
#include "j2kutil.h"

/* caps are followed by an element in these lines: gst_harness_new_parse
 * wraps a line in a bin whose closing parenthesis the caps lexer would
 * take as part of caps at the end */
#define CUDA_OUT "video/x-raw(memory:CUDAMemory)"

/* The samples of `out` (caps `caps`, host-mappable: system memory or our
 * device buffers) against `in` of `info`. */
static guint
max_diff (const GstVideoInfo * info, GstBuffer * in, GstBuffer * out,
    GstCaps * caps)
{
  GstVideoInfo oi;
  GstVideoFrame a, b;
  guint d;

  fail_unless (gst_video_info_from_caps (&oi, caps));
  fail_unless (GST_VIDEO_INFO_FORMAT (&oi) == GST_VIDEO_INFO_FORMAT (info)
      && oi.width == info->width && oi.height == info->height);
  fail_unless (gst_video_frame_map (&a, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&b, &oi, out, GST_MAP_READ));
  d = frameutil_max_diff (&a, &b, NULL, NULL);
  gst_video_frame_unmap (&a);
  gst_video_frame_unmap (&b);
  return d;
}

/* Whether frames a and b (caps `caps`) hold the same samples: row
 * padding is not compared (its bytes are undefined). */
static gboolean
same_samples (GstCaps * caps, GstBuffer * a, GstBuffer * b)
{
  GstVideoInfo vi;
  GstVideoFrame fa, fb;
  guint d;

  fail_unless (gst_video_info_from_caps (&vi, caps));
  fail_unless (gst_video_frame_map (&fa, &vi, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, &vi, b, GST_MAP_READ));
  d = frameutil_max_diff (&fa, &fb, NULL, NULL);
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return d == 0;
}

static GstBuffer *
random_coded (const gchar * enc, const gchar * format, gint w, gint h,
    guint64 seed, GstVideoInfo * info, GstBuffer ** in, GstCaps ** coded_caps)
{
  GstCaps *caps = frameutil_video_caps (format, w, h);
  GstBuffer *coded;

  fail_unless (gst_video_info_from_caps (info, caps));
  *in = frameutil_random_buffer (info, &seed);
  coded = j2kutil_encode (enc, *in, caps, coded_caps);
  gst_caps_unref (caps);
  return coded;
}

static const gchar *const formats[] = {
  "GRAY8", "GRAY16_LE", "I420", "I420_10LE", "Y42B", "I422_12LE", "Y444",
  "Y444_12LE", "Y444_16LE", "RGB", "GBR_10LE", "GBR_12LE",
};

/* Exact in system and in CUDA memory, from both encoders. */
GST_START_TEST (test_lossless_cuda)
{
  const gchar *encs[] = { "htj2kenc backend=cpu reversible=true",
    "ebcotcm backend=cpu reversible=true"
  };
  const gchar *decs[] = { "j2kdec backend=cuda",
    "j2kdec backend=cuda ! " CUDA_OUT " ! identity"
  };
  const gint sizes[][2] = { {67, 45}, {256, 130} };
  guint e, f, d, s;

  for (e = 0; e < G_N_ELEMENTS (encs); e++)
    for (f = 0; f < G_N_ELEMENTS (formats); f++)
      for (s = 0; s < G_N_ELEMENTS (sizes); s++)
        for (d = 0; d < G_N_ELEMENTS (decs); d++) {
          GstVideoInfo info;
          GstBuffer *in, *out, *coded;
          GstCaps *cc = NULL, *oc = NULL;
          J2kPosted p;

          coded = random_coded (encs[e], formats[f], sizes[s][0],
              sizes[s][1], 11 * f + s, &info, &in, &cc);
          out = j2kutil_decode_one (decs[d], coded, cc, &oc, &p);
          fail_unless (out != NULL && p.errors == 0 && p.warnings == 0,
              "%s ! %s, %s: nothing or a message", encs[e], decs[d],
              formats[f]);
          j2kutil_posted_clear (&p);
          if (d == 1) {
            GstCapsFeatures *feat = gst_caps_get_features (oc, 0);

            fail_unless (gst_caps_features_contains (feat,
                    GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
            fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out,
                        0)), "%s: not CUDA memory", formats[f]);
          }
          fail_unless (max_diff (&info, in, out, oc) == 0,
              "%s ! %s, %s %dx%d: not exact", encs[e], decs[d], formats[f],
              sizes[s][0], sizes[s][1]);
          gst_caps_unref (cc);
          gst_caps_unref (oc);
          gst_buffer_unref (in);
          gst_buffer_unref (out);
          gst_buffer_unref (coded);
        }
}

GST_END_TEST;

/* CUDA-memory frames of the formats GstCudaMemory holds are what
 * nvcodec's elements expect: cudadownload gives them back exact. */
GST_START_TEST (test_cudadownload)
{
  const gchar *fmts[] = { "I420", "Y42B", "Y444", "I420_10LE", "Y444_16LE",
    "RGB"
  };
  GstElementFactory *f = gst_element_factory_find ("cudadownload");
  guint i;

  if (!f) {
    GST_WARNING ("no cudadownload: skipped");
    return;
  }
  gst_object_unref (f);
  for (i = 0; i < G_N_ELEMENTS (fmts); i++) {
    GstVideoInfo info;
    GstBuffer *in, *coded, *out;
    GstCaps *cc = NULL, *oc = NULL;
    J2kPosted p;

    /* an even height: GstCudaMemory (1.22) cannot lay out 4:2:0 of an
     * odd one, which j2kdec then gives in flat device memory with a video
     * meta that nvcodec's elements do not read */
    coded = random_coded ("htj2kenc backend=cpu reversible=true", fmts[i],
        99, 58, 40 + i, &info, &in, &cc);
    out =
        j2kutil_decode_one ("j2kdec backend=cuda ! " CUDA_OUT
        " ! cudadownload ! " "video/x-raw ! identity", coded, cc, &oc, &p);
    fail_unless (out != NULL && p.errors == 0, "%s: nothing", fmts[i]);
    j2kutil_posted_clear (&p);
    fail_unless (max_diff (&info, in, out, oc) == 0, "%s: not exact", fmts[i]);
    gst_caps_unref (cc);
    gst_caps_unref (oc);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_buffer_unref (coded);
  }
}

GST_END_TEST;

/* The CUDA backend gives the CPU backend's frames: lossy, reduce,
 * max-layers, damaged. */
GST_START_TEST (test_same_as_cpu)
{
  const gchar *opts[] = { "", "reduce=1", "max-layers=1", "reduce=2" };
  guint o, f;

  for (f = 0; f < G_N_ELEMENTS (formats); f += 3)
    for (o = 0; o < G_N_ELEMENTS (opts); o++) {
      GstVideoInfo info;
      GstBuffer *in, *coded, *a, *b;
      GstCaps *cc = NULL, *ca = NULL, *cb = NULL;
      gchar *da = g_strdup_printf ("j2kdec backend=cpu %s", opts[o]);
      gchar *db = g_strdup_printf ("j2kdec backend=cuda %s", opts[o]);
      J2kPosted p;

      coded = random_coded ("ebcotcm backend=cpu reversible=false "
          "bitrate=3 layers=2", formats[f], 83, 61, f, &info, &in, &cc);
      a = j2kutil_decode_one (da, coded, cc, &ca, &p);
      j2kutil_posted_clear (&p);
      b = j2kutil_decode_one (db, coded, cc, &cb, &p);
      j2kutil_posted_clear (&p);
      fail_unless (a && b);
      fail_unless (gst_caps_is_equal (ca, cb));
      fail_unless (same_samples (ca, a, b), "%s %s: the frames differ",
          formats[f], opts[o]);
      gst_caps_unref (cc);
      gst_caps_unref (ca);
      gst_caps_unref (cb);
      gst_buffer_unref (in);
      gst_buffer_unref (coded);
      gst_buffer_unref (a);
      gst_buffer_unref (b);
      g_free (da);
      g_free (db);
    }
  /* truncated: the same frame and warning, or both an error */
  {
    GstVideoInfo info;
    GstBuffer *in, *coded;
    GstCaps *cc = NULL;
    gsize size, cut;

    coded = random_coded ("htj2kenc backend=cpu reversible=true", "I420", 64,
        48, 5, &info, &in, &cc);
    size = gst_buffer_get_size (coded);
    for (cut = size / 4; cut < size; cut += size / 9) {
      GstBuffer *t = gst_buffer_copy_region (coded, GST_BUFFER_COPY_ALL, 0,
          cut);
      J2kPosted pa, pb;
      GstCaps *ca = NULL, *cb = NULL;
      GstBuffer *a = j2kutil_decode_one ("j2kdec backend=cpu", t, cc, &ca, &pa);
      GstBuffer *b =
          j2kutil_decode_one ("j2kdec backend=cuda", t, cc, &cb, &pb);

      fail_unless ((a == NULL) == (b == NULL));
      fail_unless (pa.warnings == pb.warnings && pa.errors == pb.errors,
          "cut at %" G_GSIZE_FORMAT ": %u/%u warnings, %u/%u errors", cut,
          pa.warnings, pb.warnings, pa.errors, pb.errors);
      j2kutil_posted_clear (&pa);
      j2kutil_posted_clear (&pb);
      if (a)
        fail_unless (same_samples (ca, a, b));
      gst_clear_caps (&ca);
      gst_clear_caps (&cb);
      gst_clear_buffer (&a);
      gst_clear_buffer (&b);
      gst_buffer_unref (t);
    }
    gst_caps_unref (cc);
    gst_buffer_unref (in);
    gst_buffer_unref (coded);
  }
}

GST_END_TEST;

/* Damaged frames among frames in flight (cut short: each slot's thread
 * decodes in part, or the GPU decoder hands the frame to the C reference
 * at its finish): the same frames, in order, and the same warnings and
 * errors as the CPU backend. */
GST_START_TEST (test_damaged_in_flight)
{
  const gdouble cuts[] = { 1.0, 0.45, 1.0, 0.8, 0.15, 1.0, 0.6, 1.0 };
  GList *coded = NULL, *a, *b, *ca = NULL, *cb = NULL, *x, *y, *c;
  GstCaps *cc = NULL;
  J2kPosted pa, pb;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cuts); i++) {
    GstVideoInfo info;
    GstBuffer *in, *full;
    GstCaps *caps = NULL;

    full = random_coded ("htj2kenc backend=cpu reversible=true", "Y444",
        72, 41, 700 + i, &info, &in, &caps);
    coded = g_list_append (coded, gst_buffer_copy_region (full,
            GST_BUFFER_COPY_ALL, 0, gst_buffer_get_size (full) * cuts[i]));
    gst_buffer_unref (full);
    gst_buffer_unref (in);
    if (!cc)
      cc = caps;
    else
      gst_caps_unref (caps);
  }
  a = j2kutil_decode_all ("j2kdec backend=cpu", coded, cc, &ca, &pa);
  b = j2kutil_decode_all ("j2kdec backend=cuda frames-in-flight=3", coded,
      cc, &cb, &pb);
  fail_unless_equals_int (g_list_length (a), g_list_length (b));
  fail_unless (pa.warnings == pb.warnings && pa.errors == pb.errors,
      "%u/%u warnings, %u/%u errors", pa.warnings, pb.warnings, pa.errors,
      pb.errors);
  fail_unless (pa.warnings > 0);
  for (x = a, y = b, c = ca, i = 0; x; x = x->next, y = y->next, c = c->next,
      i++)
    fail_unless (same_samples (c->data, x->data, y->data), "frame %u", i);
  j2kutil_posted_clear (&pa);
  j2kutil_posted_clear (&pb);
  g_list_free_full (a, (GDestroyNotify) gst_buffer_unref);
  g_list_free_full (b, (GDestroyNotify) gst_buffer_unref);
  g_list_free_full (ca, (GDestroyNotify) gst_caps_unref);
  g_list_free_full (cb, (GDestroyNotify) gst_caps_unref);
  g_list_free_full (coded, (GDestroyNotify) gst_buffer_unref);
  gst_caps_unref (cc);
}

GST_END_TEST;

/* Frames in flight leave in order, exact, with their own caps across a
 * change of size, in both memories. */
GST_START_TEST (test_frames_in_flight)
{
  const gchar *decs[] = {
    "j2kdec backend=cuda frames-in-flight=3",
    "j2kdec backend=cuda frames-in-flight=4 ! " CUDA_OUT " ! identity",
    "j2kdec backend=cuda frames-in-flight=1",
    "j2kdec backend=cuda frames-in-flight=8",
  };
  GstVideoInfo info[10];
  GstBuffer *in[10];
  GList *coded = NULL;
  GstCaps *cc = NULL;
  guint i, d;

  for (i = 0; i < 10; i++) {
    GstCaps *c = NULL;
    gint w = i < 4 || i > 6 ? 96 : 40;

    coded = g_list_append (coded, random_coded ("htj2kenc backend=cpu "
            "reversible=true", "I420", w, w / 2 + 1, 300 + i, &info[i], &in[i],
            &c));
    if (!cc)
      cc = c;
    else
      gst_caps_unref (c);
  }
  for (d = 0; d < G_N_ELEMENTS (decs); d++) {
    GList *caps = NULL, *out, *o, *c;
    J2kPosted p;

    out = j2kutil_decode_all (decs[d], coded, cc, &caps, &p);
    j2kutil_posted_clear (&p);
    fail_unless_equals_int (g_list_length (out), 10);
    for (i = 0, o = out, c = caps; o; i++, o = o->next, c = c->next)
      fail_unless (max_diff (&info[i], in[i], o->data, c->data) == 0,
          "%s: frame %u", decs[d], i);
    g_list_free_full (out, (GDestroyNotify) gst_buffer_unref);
    g_list_free_full (caps, (GDestroyNotify) gst_caps_unref);
  }
  for (i = 0; i < 10; i++)
    gst_buffer_unref (in[i]);
  g_list_free_full (coded, (GDestroyNotify) gst_buffer_unref);
  gst_caps_unref (cc);
}

GST_END_TEST;

/* Messages of the encoders saying a CUDA frame was not read in place. */
static gint staged;

static void
count_staging (GstDebugCategory * cat, GstDebugLevel level, const gchar * file,
    const gchar * function, gint line, GObject * object, GstDebugMessage * msg,
    gpointer user)
{
  const gchar *text = gst_debug_message_get (msg);

  if (text && strstr (text, "cannot map the CUDA input in place"))
    g_atomic_int_inc (&staged);
}

/* j2kdec's CUDA frames (in GstCudaMemory, or in the carrier memory of the
 * formats GStreamer 1.22 has none for) go into htj2kenc and ebcotcm on
 * the GPU in place, not through the host, and code as the same frames
 * from system memory do. */
GST_START_TEST (test_cuda_frames_into_encoders)
{
  const gchar *encs[] = { "htj2kenc backend=cuda reversible=true",
    "ebcotcm backend=cuda reversible=true"
  };
  const gchar *fmts[] = { "GRAY16_LE", "I420", "Y444_12LE", "GBR_12LE" };
  guint e, f;

  gst_debug_set_threshold_for_name ("htj2kenc", GST_LEVEL_DEBUG);
  gst_debug_set_threshold_for_name ("ebcotcm", GST_LEVEL_DEBUG);
  gst_debug_add_log_function (count_staging, NULL, NULL);
  for (e = 0; e < G_N_ELEMENTS (encs); e++)
    for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
      GstVideoInfo info;
      GstBuffer *in, *coded, *chained, *direct;
      GstCaps *cc = NULL, *caps = frameutil_video_caps (fmts[f], 131, 77);
      gchar *chain = g_strdup_printf ("j2kdec backend=cuda ! " CUDA_OUT
          " ! %s", encs[e]);
      J2kPosted p;

      coded = random_coded ("htj2kenc backend=cpu reversible=true", fmts[f],
          131, 77, 5 + f, &info, &in, &cc);
      g_atomic_int_set (&staged, 0);
      /* (decode_one ends with EOS, which drains both elements' frames in
       * flight) */
      chained = j2kutil_decode_one (chain, coded, cc, NULL, &p);
      fail_unless (chained != NULL && p.errors == 0, "%s, %s: %s", chain,
          fmts[f], p.error ? p.error : "no output");
      j2kutil_posted_clear (&p);
      fail_unless (g_atomic_int_get (&staged) == 0,
          "%s, %s: the CUDA frame went through the host", chain, fmts[f]);
      direct = j2kutil_encode (encs[e], in, caps, NULL);
      j2kutil_assert_same_bytes (chained, direct, chain);
      gst_buffer_unref (direct);
      gst_buffer_unref (chained);
      gst_buffer_unref (coded);
      gst_buffer_unref (in);
      gst_caps_unref (cc);
      gst_caps_unref (caps);
      g_free (chain);
    }
  gst_debug_remove_log_function (count_staging);
}

GST_END_TEST;

static Suite *
gpu_suite (void)
{
  Suite *s = suite_create ("scicodec-j2kdec-gpu");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_lossless_cuda);
  tcase_add_test (tc, test_cudadownload);
  tcase_add_test (tc, test_same_as_cpu);
  tcase_add_test (tc, test_frames_in_flight);
  tcase_add_test (tc, test_damaged_in_flight);
  tcase_add_test (tc, test_cuda_frames_into_encoders);
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
  return gst_check_run_suite (gpu_suite (), "scicodec-j2kdec-gpu", __FILE__);
}
