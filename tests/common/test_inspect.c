/*
 * What gst-inspect-1.0 shows of the plugin: the origin and the authors in
 * GStreamer's "Name <email>" form, and properties whose nick, blurb and
 * range read well (no denormal minimum such as G_MINDOUBLE standing for
 * "above zero").
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/check/gstcheck.h>

/* "Name <local@domain>", several joined by ", " */
static gboolean
is_author_list (const gchar * s)
{
  GRegex *re = g_regex_new ("^[^<>,]*[^<>, ] <[^<>@ ]+@[^<>@ ]+\\.[^<>@ ]+>"
      "(, [^<>,]*[^<>, ] <[^<>@ ]+@[^<>@ ]+\\.[^<>@ ]+>)*$", 0, 0, NULL);
  gboolean ok = g_regex_match (re, s, 0, NULL);
  g_regex_unref (re);
  return ok;
}

static GList *
scicodec_element_factories (void)
{
  GList *features = gst_registry_get_feature_list_by_plugin
      (gst_registry_get (), "scicodec");
  GList *factories = NULL;
  for (GList * l = features; l; l = l->next)
    if (GST_IS_ELEMENT_FACTORY (l->data))
      factories = g_list_prepend (factories, gst_object_ref (l->data));
  gst_plugin_feature_list_free (features);
  return factories;
}

GST_START_TEST (test_author_form)
{
  g_assert_true (is_author_list ("A B <a@b.org>"));
  g_assert_true (is_author_list ("A <a@b.org>, C D <c@d.net>"));
  g_assert_false (is_author_list ("scicodec developers"));
  g_assert_false (is_author_list ("gst-scicodec"));
  g_assert_false (is_author_list ("<a@b.org>"));
}

GST_END_TEST;

GST_START_TEST (test_plugin_metadata)
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (),
      "scicodec");
  fail_unless (plugin != NULL, "the scicodec plugin is not in the registry");
  const gchar *origin = gst_plugin_get_origin (plugin);
  fail_unless (origin != NULL && *origin);
  fail_if (strstr (origin, "example.invalid") != NULL,
      "placeholder origin %s", origin);
  gst_object_unref (plugin);

  GList *factories = scicodec_element_factories ();
  fail_unless (g_list_length (factories) >= 10);
  for (GList * l = factories; l; l = l->next) {
    GstElementFactory *f = l->data;
    const gchar *author = gst_element_factory_get_metadata (f,
        GST_ELEMENT_METADATA_AUTHOR);
    fail_unless (author && is_author_list (author),
        "%s: author \"%s\" is not in the \"Name <email>\" form",
        GST_OBJECT_NAME (f), author ? author : "(none)");
  }
  g_list_free_full (factories, gst_object_unref);
}

GST_END_TEST;

GST_START_TEST (test_properties_read_well)
{
  GList *factories = scicodec_element_factories ();
  for (GList * l = factories; l; l = l->next) {
    GstElementFactory *f = l->data;
    GstElement *e = gst_element_factory_create (f, NULL);
    fail_unless (e != NULL, "%s cannot be made", GST_OBJECT_NAME (f));
    guint n;
    GParamSpec **specs =
        g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);
    for (guint i = 0; i < n; i++) {
      GParamSpec *p = specs[i];
      const gchar *blurb = g_param_spec_get_blurb (p);
      fail_unless (blurb && strlen (blurb) > strlen (p->name),
          "%s.%s has no real blurb", GST_OBJECT_NAME (f), p->name);
      if (G_IS_PARAM_SPEC_DOUBLE (p)) {
        gdouble min = G_PARAM_SPEC_DOUBLE (p)->minimum;
        fail_if (min > 0 && min < 1e-12,
            "%s.%s: minimum %g does not read as a range",
            GST_OBJECT_NAME (f), p->name, min);
      }
      if (G_IS_PARAM_SPEC_FLOAT (p)) {
        gfloat min = G_PARAM_SPEC_FLOAT (p)->minimum;
        fail_if (min > 0 && min < 1e-12f,
            "%s.%s: minimum %g does not read as a range",
            GST_OBJECT_NAME (f), p->name, (double) min);
      }
    }
    g_free (specs);
    gst_object_unref (e);
  }
  g_list_free_full (factories, gst_object_unref);
}

GST_END_TEST;

static Suite *
inspect_suite (void)
{
  Suite *s = suite_create ("inspect");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_author_form);
  tcase_add_test (tc, test_plugin_metadata);
  tcase_add_test (tc, test_properties_read_well);
  return s;
}

GST_CHECK_MAIN (inspect);
