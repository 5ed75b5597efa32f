/*
 * What every codec element gets from the backend its base class holds
 * (GstSciBackendState: GstSciFilter, GstSciVideoEncoder,
 * GstSciVideoDecoder), on a machine without a usable GPU (CI): a
 * `cuda-device-id` set with backend=auto that cannot be used is a warning
 * naming the device, not a silent CPU run; and a request for CUDA memory
 * that only a GPU could meet is an error that says so, not a bare
 * not-negotiated.  Where a GPU is usable, the parts that need its absence
 * are skipped (said on stdout).
 */
#include <gst/check/gstcheck.h>
#include <string.h>

/* The codec elements, each with its `backend` and `cuda-device-id`. */
static const gchar *const elements[] = {
  "cudadwt", "cudaidwt", "htj2kenc", "ebcotcm", "dpcmenc", "dpcmdec",
  "seismicenc", "seismicdec", "sppfilter",
};

/* Whether backend=cuda starts here (a usable GPU). */
static gboolean
gpu_usable (void)
{
  GstElement *e = gst_element_factory_make ("cudadwt", NULL);
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

/* The text of every warning `name` posts going to PAUSED with
 * `props` (gst_util_set_object_arg pairs, NULL-terminated). */
static GPtrArray *
start_warnings (const gchar * name, const gchar * const *props)
{
  GstElement *e = gst_element_factory_make (name, NULL);
  GstBus *bus = gst_bus_new ();
  GPtrArray *w = g_ptr_array_new_with_free_func (g_free);
  GstMessage *m;
  guint i;

  fail_unless (e != NULL, "%s", name);
  gst_element_set_bus (e, bus);
  for (i = 0; props && props[i]; i += 2)
    gst_util_set_object_arg (G_OBJECT (e), props[i], props[i + 1]);
  fail_unless (gst_element_set_state (e, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE, "%s did not start", name);
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_warning (m, &err, &dbg);
    g_ptr_array_add (w, g_strdup_printf ("%s (%s)", err->message,
            dbg ? dbg : ""));
    g_error_free (err);
    g_free (dbg);
    gst_message_unref (m);
  }
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  return w;
}

/* backend=auto with a device named that cannot be used warns, naming it
 * (device 99 exists nowhere, so this runs on GPU machines too); the
 * default device (-1) and backend=cpu stay quiet. */
GST_START_TEST (test_device_id_warning)
{
  static const gchar *const named[] = { "cuda-device-id", "99", NULL };
  static const gchar *const cpu[] = { "cuda-device-id", "99", "backend",
    "cpu", NULL
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    GPtrArray *w = start_warnings (elements[i], named);

    fail_unless_equals_int (w->len, 1);
    fail_unless (strstr (w->pdata[0], "CUDA device 99") != NULL, "%s: %s",
        elements[i], (gchar *) w->pdata[0]);
    fail_unless (strstr (w->pdata[0], "CPU") != NULL, "%s: %s",
        elements[i], (gchar *) w->pdata[0]);
    g_ptr_array_unref (w);
    if (!gpu_usable ()) {
      w = start_warnings (elements[i], NULL);
      fail_unless_equals_int (w->len, 0);
      g_ptr_array_unref (w);
    }
    w = start_warnings (elements[i], cpu);
    fail_unless_equals_int (w->len, 0);
    g_ptr_array_unref (w);
  }
}

GST_END_TEST;

/* Runs `launch` to EOS or the first error; returns that error's message
 * (NULL at EOS). */
static gchar *
run_error (const gchar * launch)
{
  GError *perr = NULL;
  GstElement *pipe = gst_parse_launch (launch, &perr);
  GstMessage *m;
  gchar *ret = NULL;

  fail_unless (pipe != NULL && perr == NULL, "%s: %s", launch,
      perr ? perr->message : "");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "%s: neither EOS nor an error", launch);
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *err = NULL;

    gst_message_parse_error (m, &err, NULL);
    ret = g_strdup (err->message);
    g_error_free (err);
  }
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return ret;
}

/* CUDA memory asked for between elements that have no GPU to run on: the
 * first error says that, whichever element finds it (in a caps query, at
 * the caps, at a decoder's first frame). */
GST_START_TEST (test_cuda_memory_without_gpu)
{
  static const gchar *const launches[] = {
    /* the pipeline: both sides of the capsfilter on the CPU */
    "videotestsrc num-buffers=1 ! video/x-raw,format=GRAY8,width=64,"
        "height=64 ! cudadwt ! application/x-wavelet(memory:CUDAMemory) ! "
        "htj2kenc ! fakesink",
    "videotestsrc num-buffers=1 ! video/x-raw,format=GRAY8,width=64,"
        "height=64 ! cudadwt ! application/x-wavelet(memory:CUDAMemory) ! "
        "fakesink",
    "videotestsrc num-buffers=1 ! video/x-raw,format=GRAY16_LE,width=64,"
        "height=64 ! cudadwt backend=cpu ! "
        "application/x-wavelet(memory:CUDAMemory) ! fakesink",
  };
  guint i;

#if !HAVE_CUDA
  g_print ("no CUDA build: CUDA-memory caps do not link; skipped\n");
  return;
#endif
  if (gpu_usable ()) {
    g_print ("a GPU is there: only the backend=cpu case runs\n");
    i = 2;
  } else {
    i = 0;
  }
  for (; i < G_N_ELEMENTS (launches); i++) {
    gchar *err = run_error (launches[i]);

    fail_unless (err != NULL, "%s: no error", launches[i]);
    fail_unless (strstr (err, "only CUDA memory") != NULL
        && strstr (err, "runs on the CPU") != NULL, "%s: %s", launches[i], err);
    if (i == 2)
      fail_unless (strstr (err, "backend=cpu") != NULL, "%s", err);
    g_free (err);
  }
}

GST_END_TEST;

/* A refusal that CUDA memory does not explain (downstream takes either
 * memory, but another size) is not blamed on a missing GPU.  Linked
 * without checks: a link-time check would refuse the size already. */
GST_START_TEST (test_other_refusal_not_blamed)
{
  GstElement *pipe = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("videotestsrc", NULL);
  GstElement *f1 = gst_element_factory_make ("capsfilter", NULL);
  GstElement *dwt = gst_element_factory_make ("cudadwt", NULL);
  GstElement *f2 = gst_element_factory_make ("capsfilter", NULL);
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  GstCaps *c1 = gst_caps_from_string ("video/x-raw, format=GRAY8, "
      "width=64, height=64");
  GstCaps *c2 = gst_caps_from_string ("application/x-wavelet"
      "(memory:CUDAMemory), width=(int)32; application/x-wavelet, "
      "width=(int)32");
  GstMessage *m;
  GError *err = NULL;

  g_object_set (src, "num-buffers", 1, NULL);
  g_object_set (f1, "caps", c1, NULL);
  g_object_set (f2, "caps", c2, NULL);
  gst_bin_add_many (GST_BIN (pipe), src, f1, dwt, f2, sink, NULL);
  fail_unless (gst_element_link_pads_full (src, "src", f1, "sink",
          GST_PAD_LINK_CHECK_NOTHING));
  fail_unless (gst_element_link_pads_full (f1, "src", dwt, "sink",
          GST_PAD_LINK_CHECK_NOTHING));
  fail_unless (gst_element_link_pads_full (dwt, "src", f2, "sink",
          GST_PAD_LINK_CHECK_NOTHING));
  fail_unless (gst_element_link_pads_full (f2, "src", sink, "sink",
          GST_PAD_LINK_CHECK_NOTHING));
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m != NULL && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR);
  gst_message_parse_error (m, &err, NULL);
  fail_unless (strstr (err->message, "CUDA") == NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  gst_caps_unref (c1);
  gst_caps_unref (c2);
}

GST_END_TEST;

static Suite *
scifilter_suite (void)
{
  Suite *s = suite_create ("scicodec-scifilter");
  TCase *tc = tcase_create ("scifilter");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_device_id_warning);
  tcase_add_test (tc, test_cuda_memory_without_gpu);
  tcase_add_test (tc, test_other_refusal_not_blamed);
  return s;
}

GST_CHECK_MAIN (scifilter);
