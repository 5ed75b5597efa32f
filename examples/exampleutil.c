#include <math.h>
#include <string.h>

#include <gst/app/gstappsink.h>

#include "exampleutil.h"

gboolean
example_parse_args (int *argc, char ***argv, const gchar * summary,
    const GOptionEntry * entries, const gint * frames, gchar ** backend)
{
  GOptionContext *ctx = g_option_context_new (summary);
  GError *err = NULL;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, argc, argv, &err)) {
    g_printerr ("%s\n", err->message);
    g_clear_error (&err);
    g_option_context_free (ctx);
    return FALSE;
  }
  g_option_context_free (ctx);
  if (!*backend)
    *backend = g_strdup ("auto");
  if (strcmp (*backend, "auto") && strcmp (*backend, "cuda")
      && strcmp (*backend, "cpu")) {
    g_printerr ("--backend: auto, cuda or cpu, not %s\n", *backend);
    return FALSE;
  }
  if (*frames < 1) {
    g_printerr ("--frames: at least 1\n");
    return FALSE;
  }
  return TRUE;
}

gboolean
example_pipeline_init (ExamplePipeline * p, const gchar * desc, gchar ** error)
{
  GError *err = NULL;

  memset (p, 0, sizeof (*p));
  p->pipe = gst_parse_launch (desc, &err);
  if (!p->pipe) {
    *error = g_strdup (err->message);
    g_clear_error (&err);
    return FALSE;
  }
  p->ref = gst_bin_get_by_name (GST_BIN (p->pipe), "ref");
  p->out = gst_bin_get_by_name (GST_BIN (p->pipe), "out");
  p->bus = gst_element_get_bus (p->pipe);
  return TRUE;
}

/* The next frame of an appsink, or NULL at EOS, on a pipeline error (then
 * *error says which) or after a minute without one.  An error upstream never
 * wakes a waiting appsink, hence the short waits with a look at the bus. */
static GstSample *
pull (GstElement * sink, GstBus * bus, gchar ** error)
{
  guint tries;

  for (tries = 0; tries < 600; tries++) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        GST_SECOND / 10);
    GstMessage *msg;

    if (s)
      return s;
    if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
      return NULL;
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      GError *e = NULL;

      gst_message_parse_error (msg, &e, NULL);
      *error = g_strdup (e->message);
      g_clear_error (&e);
      gst_message_unref (msg);
      return NULL;
    }
  }
  *error = g_strdup ("no frame within a minute");
  return NULL;
}

gboolean
example_pipeline_pull (ExamplePipeline * p, GstSample ** ref,
    GstSample ** out, gchar ** error)
{
  *out = NULL;
  *ref = pull (p->ref, p->bus, error);
  if (*ref)
    *out = pull (p->out, p->bus, error);
  if (*out)
    return TRUE;
  if (*ref)
    gst_sample_unref (*ref);
  *ref = NULL;
  return FALSE;
}

void
example_pipeline_clear (ExamplePipeline * p)
{
  if (!p->pipe)
    return;
  gst_element_set_state (p->pipe, GST_STATE_NULL);
  gst_object_unref (p->bus);
  gst_object_unref (p->ref);
  gst_object_unref (p->out);
  gst_object_unref (p->pipe);
  memset (p, 0, sizeof (*p));
}

gboolean
example_takes_cuda_memory (GstElementFactory * factory,
    GstPadDirection direction, const gchar * format)
{
  const GList *t;
  GstCaps *want;
  gboolean ok = FALSE;

  if (!factory)
    return FALSE;
  want = gst_caps_new_empty_simple ("video/x-raw");
  if (format)
    gst_caps_set_simple (want, "format", G_TYPE_STRING, format, NULL);
  gst_caps_set_features (want, 0,
      gst_caps_features_new ("memory:CUDAMemory", NULL));
  for (t = gst_element_factory_get_static_pad_templates (factory); t;
      t = t->next) {
    GstStaticPadTemplate *tmpl = t->data;
    GstCaps *caps;

    if (tmpl->direction != direction)
      continue;
    caps = gst_static_pad_template_get_caps (tmpl);
    ok |= gst_caps_can_intersect (caps, want);
    gst_caps_unref (caps);
  }
  gst_caps_unref (want);
  return ok;
}

gdouble
example_psnr (guint64 peak, gdouble sq, guint64 n)
{
  return sq > 0 ? 10 * log10 ((gdouble) peak * peak * n / sq) : INFINITY;
}
