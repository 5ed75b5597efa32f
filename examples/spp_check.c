/*
 * The main job's SPP part: the real Samson hyperspectral scene
 * (../shared/data/hyperspectral/samson_r156: 95 x 95 pixels of 156 bands,
 * uint16, BIP) through envisrc ! sppfilter at the default window (5) and at
 * 11, every output value compared with the C reference, sci_spp_filter of
 * codec/spp/spp.h called here on the very cube envisrc gave the element: each
 * must be within 1e-5 of the reference's, relative to it, the bound
 * docs/spp.md states for every backend.  Per window it prints the largest
 * relative error, the element's time (from the cube entering sppfilter to
 * its leaving, measured at the element's pads) and the C reference's.
 *
 * Where a CUDA device is usable (nvcodec registered cudaupload), the plugin
 * was built with CUDA, the backend is not cpu and --system-memory is not
 * given, the filtered cube leaves sppfilter in CUDA memory
 * (application/x-hyperspectral(memory:CUDAMemory)) and is read back by
 * mapping it on the host, as a host consumer would.  Where the plugin has
 * no envisrc (built without GDAL, as the GPU host's bundle is), the program
 * reads the cube itself and appsrc pushes it.
 *
 *   spp-check [--frames N] [--backend auto|cuda|cpu] [--system-memory]
 *             [--data DIR] [--tamper]
 *
 * --frames N: the cube goes through each window N times (a pipeline each;
 * the time printed is their mean and their best).  Without the data the
 * check is skipped, saying so, and the exit status is 0.  --tamper moves
 * one value of every filtered cube beyond the bound, so that the check
 * must fail (exit 1): the test suite runs it to see that it does.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>

#include "codec/spp/spp.h"
#include "exampleutil.h"

#define CUBE "hyperspectral/samson_r156.hdr"
#define TOLERANCE 1e-5          /* docs/spp.md */

static const guint windows[] = { SCI_SPP_WINDOW_DEFAULT, 11 };

/* The pad probes' timing of sppfilter. */
typedef struct
{
  gint64 t_in, us;
} Timing;

static GstPadProbeReturn
timing_in (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  ((Timing *) data)->t_in = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
timing_out (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Timing *t = data;

  t->us = g_get_monotonic_time () - t->t_in;
  return GST_PAD_PROBE_OK;
}

/* --tamper: the middle value of the cube moved by 1e-4 of itself and 1e-3,
 * ten times the bound or more. */
static GstPadProbeReturn
tamper (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  GstMapInfo m;

  GST_PAD_PROBE_INFO_DATA (info) = buf;
  if (gst_buffer_map (buf, &m, GST_MAP_READWRITE)) {
    if (m.size >= 4) {
      gsize at = (m.size / 8) * 4;
      gfloat v = GST_READ_FLOAT_LE (m.data + at);

      GST_WRITE_FLOAT_LE (m.data + at, v + fabsf (v) * 1e-4f + 1e-3f);
    }
    gst_buffer_unmap (buf, &m);
  }
  return GST_PAD_PROBE_OK;
}

/* A cube's sizes and format from its caps: FALSE when they are not a BIP
 * cube's. */
static gboolean
cube_of (GstCaps * caps, gint * lines, gint * samples, gint * bands,
    sci_spp_format * format)
{
  static const struct
  {
    const gchar *name;
    sci_spp_format format;
  } formats[] = {
    {"U8", SCI_SPP_U8}, {"S16LE", SCI_SPP_S16}, {"U16LE", SCI_SPP_U16},
    {"F32LE", SCI_SPP_F32},
  };
  const GstStructure *s = caps ? gst_caps_get_structure (caps, 0) : NULL;
  const gchar *f;
  guint i;

  if (!s || !gst_structure_get_int (s, "lines", lines)
      || !gst_structure_get_int (s, "samples", samples)
      || !gst_structure_get_int (s, "bands", bands)
      || g_strcmp0 (gst_structure_get_string (s, "interleave"), "bip"))
    return FALSE;
  f = gst_structure_get_string (s, "format");
  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    if (!g_strcmp0 (f, formats[i].name)) {
      *format = formats[i].format;
      return TRUE;
    }
  }
  return FALSE;
}

typedef struct
{
  gint lines, samples, bands;
  sci_spp_format format;
  gfloat *want;                 /* the C reference's cube */
  gdouble ref_ms;
} Reference;

/* Runs the C reference on the cube that went into the element. */
static gchar *
reference (GstSample * in, guint window, Reference * ref)
{
  GstMapInfo m;
  gint64 t;
  sci_pool *pool;
  int rc;

  if (!cube_of (gst_sample_get_caps (in), &ref->lines, &ref->samples,
          &ref->bands, &ref->format))
    return g_strdup ("envisrc gave no BIP cube");
  if (!gst_buffer_map (gst_sample_get_buffer (in), &m, GST_MAP_READ))
    return g_strdup ("the input cube cannot be mapped");
  if (m.size != (gsize) ref->lines * ref->samples * ref->bands *
      sci_spp_value_bytes (ref->format)) {
    gst_buffer_unmap (gst_sample_get_buffer (in), &m);
    return g_strdup ("the input cube is not the size of its caps");
  }
  ref->want = g_new (gfloat, (gsize) ref->lines * ref->samples * ref->bands);
  /* the C reference on as many threads as the element's default */
  pool = sci_pool_new (0);
  t = g_get_monotonic_time ();
  rc = sci_spp_filter (pool, m.data, ref->format, ref->lines, ref->samples,
      ref->bands, window, ref->want);
  ref->ref_ms = (g_get_monotonic_time () - t) / 1e3;
  sci_pool_free (pool);
  gst_buffer_unmap (gst_sample_get_buffer (in), &m);
  if (rc != 0)
    return g_strdup_printf ("the C reference failed (%d)", rc);
  return NULL;
}

/* The element's cube against the reference: its largest relative error in
 * *max_err; NULL when every value is within the bound, else why not. */
static gchar *
compare (GstSample * out, const Reference * ref, gdouble * max_err)
{
  gint lines, samples, bands;
  sci_spp_format format;
  gsize i, n = (gsize) ref->lines * ref->samples * ref->bands, over = 0,
      first = 0;
  GstMapInfo m;
  gchar *why = NULL;

  if (!cube_of (gst_sample_get_caps (out), &lines, &samples, &bands,
          &format) || format != SCI_SPP_F32 || lines != ref->lines
      || samples != ref->samples || bands != ref->bands)
    return g_strdup ("the output is not a float cube of the input's size");
  if (!gst_buffer_map (gst_sample_get_buffer (out), &m, GST_MAP_READ))
    return g_strdup ("the output cube cannot be mapped");
  if (m.size != n * 4) {
    gsize size = m.size;

    gst_buffer_unmap (gst_sample_get_buffer (out), &m);
    return g_strdup_printf ("the output cube (%" G_GSIZE_FORMAT " bytes) is "
        "not the size of its caps (%" G_GSIZE_FORMAT ")", size, n * 4);
  }
  for (i = 0; i < n; i++) {
    gdouble got = GST_READ_FLOAT_LE (m.data + 4 * i), want = ref->want[i];
    gdouble e = fabs (got - want), rel = want != 0 ? e / fabs (want) : e;

    /* NaN fails too */
    if (!(rel <= TOLERANCE) && over++ == 0)
      first = i;
    if (rel > *max_err || rel != rel)
      *max_err = rel;
  }
  if (over) {
    gsize px = first / ref->bands;

    why = g_strdup_printf ("%" G_GSIZE_FORMAT " values beyond %g, the first "
        "at line %" G_GSIZE_FORMAT ", sample %" G_GSIZE_FORMAT ", band %"
        G_GSIZE_FORMAT ": %.9g against %.9g", over, TOLERANCE,
        px / ref->samples, px % ref->samples, first % ref->bands,
        GST_READ_FLOAT_LE (m.data + 4 * first), ref->want[first]);
  }
  gst_buffer_unmap (gst_sample_get_buffer (out), &m);
  return why;
}

typedef struct
{
  guint done;                   /* cubes compared */
  gdouble max_err, mean_ms, best_ms, ref_ms;
  gchar *failure;
  gchar *backend;
} Result;

/* `cube`: NULL to read the file with envisrc, else the cube to push with
 * appsrc (a plugin without envisrc). */
static void
run_window (const gchar * path, GstSample * cube, guint window, guint runs,
    const gchar * backend, gboolean cuda_memory, gboolean tampered,
    Reference * ref, Result * r)
{
  gdouble total_ms = 0;
  guint k;

  memset (r, 0, sizeof (*r));
  r->best_ms = INFINITY;
  for (k = 0; k < runs && !r->failure; k++) {
    ExamplePipeline p;
    GstElement *src, *spp;
    GstPad *pad;
    Timing t = { 0, 0 };
    GstSample *a, *b;
    gchar *desc, *error = NULL, *why = NULL;
    gboolean compared = FALSE;

    desc = g_strdup_printf ("%s ! tee name=t "
        "t. ! queue ! appsink name=ref sync=false "
        "t. ! queue ! sppfilter name=spp window-size=%u backend=%s %s ! "
        "appsink name=out sync=false", cube ? "appsrc name=src format=time" :
        "envisrc name=src", window, backend,
        cuda_memory ? "! application/x-hyperspectral(memory:CUDAMemory)" : "");
    if (!example_pipeline_init (&p, desc, &error)) {
      r->failure = g_strdup_printf ("FAILED: %s", error);
      g_free (error);
      g_free (desc);
      break;
    }
    g_free (desc);
    src = gst_bin_get_by_name (GST_BIN (p.pipe), "src");
    if (cube)
      g_object_set (src, "caps", gst_sample_get_caps (cube), NULL);
    else
      g_object_set (src, "location", path, NULL);
    spp = gst_bin_get_by_name (GST_BIN (p.pipe), "spp");
    pad = gst_element_get_static_pad (spp, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, timing_in, &t, NULL);
    gst_object_unref (pad);
    pad = gst_element_get_static_pad (spp, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, timing_out, &t, NULL);
    if (tampered)
      gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, tamper, NULL, NULL);
    gst_object_unref (pad);
    gst_object_unref (spp);
    example_forget_backends ();
    gst_element_set_state (p.pipe, GST_STATE_PLAYING);
    if (cube) {
      gst_app_src_push_buffer (GST_APP_SRC (src),
          gst_buffer_ref (gst_sample_get_buffer (cube)));
      gst_app_src_end_of_stream (GST_APP_SRC (src));
    }
    gst_object_unref (src);

    if (example_pipeline_pull (&p, &a, &b, &error)) {
      /* the reference once a window: envisrc reads the same cube each run */
      if (!ref->want)
        why = reference (a, window, ref);
      if (!why) {
        why = compare (b, ref, &r->max_err);
        compared = TRUE;
      }
      gst_sample_unref (a);
      gst_sample_unref (b);
      r->done++;
      total_ms += t.us / 1e3;
      r->best_ms = MIN (r->best_ms, t.us / 1e3);
    }
    example_pipeline_clear (&p);
    if (why)
      r->failure = g_strdup_printf ("%s: %s", compared ? "MISMATCH" :
          "FAILED", why);
    else if (error || r->done == k)
      r->failure = g_strdup_printf ("FAILED: %s", error ? error :
          "no cube came out");
    g_free (why);
    g_free (error);
    g_free (r->backend);
    r->backend = g_strdup_printf ("%s%s", example_backend_of ("spp"),
        cuda_memory ? "/cudamem" : "");
    if (!r->failure)
      r->failure = example_backend_mismatch ("spp", backend);
  }
  r->mean_ms = r->done ? total_ms / r->done : 0;
  if (!r->done)
    r->best_ms = 0;
  r->ref_ms = ref->ref_ms;
}

int
main (int argc, char **argv)
{
  gint frames = 3;
  gchar *backend = NULL, *data = NULL, *path;
  gboolean system_memory = FALSE, tampered = FALSE, all_ok = TRUE;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames,
        "The cube N times through each window (3)", "N"},
    {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend,
        "auto, cuda or cpu (auto)", "B"},
    {"system-memory", 's', 0, G_OPTION_ARG_NONE, &system_memory,
        "Do not use CUDA memory even where a device is usable", NULL},
    {"data", 'd', 0, G_OPTION_ARG_FILENAME, &data,
        "The real data (default: the project's ../shared/data)", "DIR"},
    {"tamper", 0, 0, G_OPTION_ARG_NONE, &tampered,
        "Self-check: move a value of every filtered cube (must fail)", NULL},
    {NULL}
  };
  const gchar *const watched[] = { "sppfilter", NULL };
  GstElementFactory *spp, *reader, *upload;
  gboolean cuda_memory;
  GstSample *cube = NULL;
  GstCaps *dev;
  guint i;

  if (!example_parse_args (&argc, &argv, "- SPP of a real cube against the "
          "C reference", entries, &frames, &backend))
    return 2;
  if (!data)
    data = g_strdup (SCI_SHARED_DATA_DIR);
  spp = gst_element_factory_find ("sppfilter");
  if (!spp) {
    g_printerr ("sppfilter not found: set GST_PLUGIN_PATH to the build "
        "dir\n");
    return 2;
  }
  path = g_build_filename (data, CUBE, NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    g_print ("SPP check skipped: %s is not there (the project's real "
        "data, ../shared/data)\n", path);
    gst_object_unref (spp);
    g_free (path);
    g_free (backend);
    g_free (data);
    return 0;
  }
  /* the GPU host's bundle leaves GDAL, and so envisrc, out */
  reader = gst_element_factory_find ("envisrc");
  if (reader) {
    gst_object_unref (reader);
  } else {
    gchar *error = NULL;

    cube = example_read_envi (path, "bip", &error);
    if (!cube) {
      g_print ("SPP check FAILED: %s\n", error);
      g_free (error);
      gst_object_unref (spp);
      g_free (path);
      g_free (backend);
      g_free (data);
      return 1;
    }
  }
  /* CUDA memory: a CUDA build's sppfilter offers it, and nvcodec registers
   * cudaupload only where a CUDA driver loads */
  upload = gst_element_factory_find ("cudaupload");
  dev = gst_caps_from_string ("application/x-hyperspectral"
      "(memory:CUDAMemory)");
  cuda_memory = FALSE;
  if (!system_memory && strcmp (backend, "cpu") && upload) {
    const GList *t;

    for (t = gst_element_factory_get_static_pad_templates (spp); t; t = t->next) {
      GstStaticPadTemplate *tmpl = t->data;
      GstCaps *caps = gst_static_pad_template_get_caps (tmpl);

      cuda_memory |= tmpl->direction == GST_PAD_SRC &&
          gst_caps_can_intersect (caps, dev);
      gst_caps_unref (caps);
    }
  }
  gst_caps_unref (dev);
  if (upload)
    gst_object_unref (upload);
  gst_object_unref (spp);
  example_watch_backends (watched);

  g_print ("%s ! sppfilter on the real Samson cube (%s), every value "
      "compared with\nthe C reference (sci_spp_filter) within %g relative; "
      "backend=%s%s\n%s\n", cube ? "appsrc" : "envisrc", path, TOLERANCE,
      backend, cuda_memory ? ", output in CUDA memory" : "", cube ?
      "(the plugin has no envisrc, built without GDAL: the cube was read by "
      "this program)\n" : "");
  g_print ("%-6s %5s %12s %12s %10s %11s %-13s %s\n", "window", "cubes",
      "element ms", "(best)", "C ref ms", "max rel err", "backend", "result");
  for (i = 0; i < G_N_ELEMENTS (windows); i++) {
    Reference ref = { 0 };
    Result r;

    run_window (path, cube, windows[i], (guint) frames, backend, cuda_memory,
        tampered, &ref, &r);
    g_print ("%-6u %5u %12.2f %12.2f %10.2f %11.3g %-13s %s\n", windows[i],
        r.done, r.mean_ms, r.best_ms, r.ref_ms, r.max_err,
        r.backend ? r.backend : "?", r.failure ? r.failure : "within bound");
    all_ok &= r.failure == NULL;
    g_free (r.failure);
    g_free (r.backend);
    g_free (ref.want);
  }
  g_print ("\nelement ms: wall-clock time from the cube entering sppfilter "
      "to its leaving, the mean\nof the runs and the best; C ref ms: "
      "sci_spp_filter on this machine's CPU (OpenMP);\nmax rel err: the "
      "largest |element - reference| / |reference| over all values%s\n\n",
      cuda_memory ? "; /cudamem: the output in CUDA memory, mapped on the "
      "host" : "");
  g_print ("%s\n", all_ok ? "every value of every cube within the bound" :
      "FAILURE: a value beyond the bound, or a run failed");
  if (cube)
    gst_sample_unref (cube);
  g_free (path);
  g_free (backend);
  g_free (data);
  gst_deinit ();
  return all_ok ? 0 : 1;
}
