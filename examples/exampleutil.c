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

/* What the watched elements said, by element name: RAN_* bits. */
enum
{ RAN_CUDA = 1, RAN_CPU = 2, FELL_BACK = 4 };
static GMutex backend_lock;
static GHashTable *backend_said;
/* The categories whose INFO lines are read, to the threshold the user had
 * (filled before the log function is installed, read-only after). */
static GHashTable *backend_cats;

static void
backend_log (GstDebugCategory * cat, GstDebugLevel level, const gchar * file,
    const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  gpointer user_level;

  if (g_hash_table_lookup_extended (backend_cats, cat, NULL, &user_level)) {
    const gchar *m = gst_debug_message_get (message);

    /* "backend: CUDA", "backend: CPU (C reference)" when an element starts;
     * "backend: CPU (C reference) from now on" when it falls back */
    if (m && object && GST_IS_OBJECT (object) && GST_OBJECT_NAME (object)
        && g_str_has_prefix (m, "backend: ")) {
      guint bit = g_str_has_suffix (m, "from now on") ? FELL_BACK :
          g_str_has_prefix (m, "backend: CUDA") ? RAN_CUDA : RAN_CPU;
      const gchar *name = GST_OBJECT_NAME (object);

      g_mutex_lock (&backend_lock);
      g_hash_table_insert (backend_said, g_strdup (name),
          GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup
                  (backend_said, name)) | bit));
      g_mutex_unlock (&backend_lock);
    }
    if (level > (GstDebugLevel) GPOINTER_TO_INT (user_level))
      return;
  }
  gst_debug_log_default (cat, level, file, function, line, object, message,
      NULL);
}

void
example_watch_backends (const gchar * const *elements)
{
  GSList *cats, *l;
  guint i;

  backend_said = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  backend_cats = g_hash_table_new (NULL, NULL);
  /* a debug category exists once its element's class is made */
  for (i = 0; elements[i]; i++) {
    GstElement *e = gst_element_factory_make (elements[i], NULL);

    if (e)
      gst_object_unref (e);
  }
  cats = gst_debug_get_all_categories ();
  for (l = cats; l; l = l->next) {
    GstDebugCategory *cat = l->data;
    const gchar *name = gst_debug_category_get_name (cat);
    /* the base classes' backend choice logs in scibackend */
    gboolean watched = strcmp (name, "scibackend") == 0;

    for (i = 0; elements[i] && !watched; i++)
      watched = strcmp (name, elements[i]) == 0;
    if (!watched)
      continue;
    g_hash_table_insert (backend_cats, cat,
        GINT_TO_POINTER (gst_debug_category_get_threshold (cat)));
    if (gst_debug_category_get_threshold (cat) < GST_LEVEL_INFO)
      gst_debug_category_set_threshold (cat, GST_LEVEL_INFO);
  }
  g_slist_free (cats);
  /* without GST_DEBUG nothing is logged at all; the other categories stay
   * at their threshold */
  gst_debug_set_active (TRUE);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (backend_log, NULL, NULL);
}

const gchar *
example_backend_of (const gchar * name)
{
  guint said = 0;

  if (backend_said) {
    g_mutex_lock (&backend_lock);
    said = GPOINTER_TO_UINT (g_hash_table_lookup (backend_said, name));
    g_mutex_unlock (&backend_lock);
  }
  if (said & RAN_CUDA)
    return said & FELL_BACK ? "CUDA>CPU" : "CUDA";
  return said & RAN_CPU ? "CPU" : "?";
}

gchar *
example_backend_mismatch (const gchar * name, const gchar * requested)
{
  const gchar *ran = example_backend_of (name);

  if (strcmp (ran, "?") == 0)
    return g_strdup_printf ("%s did not say which backend ran", name);
  if ((strcmp (requested, "cuda") == 0 && strcmp (ran, "CUDA") != 0) ||
      (strcmp (requested, "cpu") == 0 && strcmp (ran, "CPU") != 0))
    return g_strdup_printf ("%s ran on %s, not on the %s asked for", name,
        ran, requested);
  return NULL;
}

void
example_forget_backends (void)
{
  if (!backend_said)
    return;
  g_mutex_lock (&backend_lock);
  g_hash_table_remove_all (backend_said);
  g_mutex_unlock (&backend_lock);
}

/* Value `i` of a stored ENVI cube, in host order, into `out`. */
static void
envi_copy_value (guint8 * out, const guint8 * in, guint bytes, gboolean swap)
{
  guint k;

  for (k = 0; k < bytes; k++)
    out[k] = in[swap ? bytes - 1 - k : k];
}

/* Offset in values of (line l, sample s, band b) in a cube of L x S x B
 * stored in `order`. */
static gsize
envi_index (const gchar * order, gsize L, gsize S, gsize B, gsize l, gsize s,
    gsize b)
{
  if (!strcmp (order, "bsq"))
    return (b * L + l) * S + s;
  if (!strcmp (order, "bil"))
    return (l * B + b) * S + s;
  return (l * S + s) * B + b;
}

GstSample *
example_read_envi (const gchar * hdr, const gchar * interleave, gchar ** error)
{
  static const struct
  {
    gint type;
    guint bytes;
    const gchar *format;
  } types[] = {
    {1, 1, "U8"}, {2, 2, "S16LE"}, {12, 2, "U16LE"}, {4, 4, "F32LE"},
  };
  gchar *text = NULL, *data = NULL, *base, *stored = NULL;
  gchar **lines = NULL;
  gint64 samples = -1, nlines = -1, bands = -1, type = -1, offset = 0,
      order = 0;
  gsize len = 0, n, i, t, l, s, b;
  guint bytes = 0;
  GstSample *sample = NULL;
  const gchar *tries[4];

  if (!g_file_get_contents (hdr, &text, NULL, NULL)
      || !g_str_has_prefix (text, "ENVI")) {
    *error = g_strdup_printf ("%s: not an ENVI header", hdr);
    g_free (text);
    return NULL;
  }
  /* "key = value" lines; the { } lists of other keys are not needed */
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i]; i++) {
    gchar **kv = g_strsplit (lines[i], "=", 2);

    if (kv[0] && kv[1]) {
      gchar *k = g_strstrip (kv[0]), *v = g_strstrip (kv[1]);

      if (!strcmp (k, "samples"))
        samples = g_ascii_strtoll (v, NULL, 10);
      else if (!strcmp (k, "lines"))
        nlines = g_ascii_strtoll (v, NULL, 10);
      else if (!strcmp (k, "bands"))
        bands = g_ascii_strtoll (v, NULL, 10);
      else if (!strcmp (k, "data type"))
        type = g_ascii_strtoll (v, NULL, 10);
      else if (!strcmp (k, "header offset"))
        offset = g_ascii_strtoll (v, NULL, 10);
      else if (!strcmp (k, "byte order"))
        order = g_ascii_strtoll (v, NULL, 10);
      else if (!strcmp (k, "interleave"))
        stored = g_ascii_strdown (v, -1);
    }
    g_strfreev (kv);
  }
  g_strfreev (lines);
  g_free (text);
  for (t = 0; t < G_N_ELEMENTS (types); t++)
    if (types[t].type == type)
      bytes = types[t].bytes;
  if (samples < 1 || nlines < 1 || bands < 1 || samples > 65535
      || nlines > 65535 || bands > 65535 || offset < 0 || !bytes || !stored
      || (strcmp (stored, "bip") && strcmp (stored, "bil")
          && strcmp (stored, "bsq"))) {
    *error = g_strdup_printf ("%s: sizes, data type (%" G_GINT64_FORMAT ") or "
        "interleave (%s) not read here", hdr, type, stored ? stored : "none");
    g_free (stored);
    return NULL;
  }
  for (t = 0; t < G_N_ELEMENTS (types); t++)
    if (types[t].type == type)
      break;
  base = g_str_has_suffix (hdr, ".hdr") ? g_strndup (hdr, strlen (hdr) - 4) :
      g_strdup (hdr);
  tries[0] = "";
  tries[1] = stored;
  tries[2] = "img";
  tries[3] = NULL;
  n = (gsize) samples *nlines * bands;
  for (i = 0; tries[i] && !data; i++) {
    gchar *path = *tries[i] ? g_strdup_printf ("%s.%s", base, tries[i]) :
        g_strdup (base);

    if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)
        || !g_file_get_contents (path, &data, &len, NULL))
      data = NULL;
    else if (len < offset + n * bytes) {
      *error = g_strdup_printf ("%s holds %" G_GSIZE_FORMAT " bytes, the "
          "header needs %" G_GSIZE_FORMAT, path, len, offset + n * bytes);
      g_free (data);
      data = NULL;
      g_free (path);
      break;
    }
    g_free (path);
  }
  if (data) {
    GstBuffer *buf = gst_buffer_new_allocate (NULL, n * bytes, NULL);
    GstCaps *caps;
    GstMapInfo m;
    /* values are stored little-endian (byte order 0) or big-endian (1) */
    gboolean swap = (order == 1) != (G_BYTE_ORDER == G_BIG_ENDIAN);

    gst_buffer_map (buf, &m, GST_MAP_WRITE);
    for (l = 0; l < (gsize) nlines; l++)
      for (s = 0; s < (gsize) samples; s++)
        for (b = 0; b < (gsize) bands; b++)
          envi_copy_value (m.data + bytes * envi_index (interleave, nlines,
                  samples, bands, l, s, b), (const guint8 *) data + offset +
              bytes * envi_index (stored, nlines, samples, bands, l, s, b),
              bytes, swap && bytes > 1);
    gst_buffer_unmap (buf, &m);
    caps = gst_caps_new_simple ("application/x-hyperspectral",
        "lines", G_TYPE_INT, (gint) nlines, "samples", G_TYPE_INT,
        (gint) samples, "bands", G_TYPE_INT, (gint) bands, "format",
        G_TYPE_STRING, types[t].format, "interleave", G_TYPE_STRING,
        interleave, NULL);
    sample = gst_sample_new (buf, caps, NULL, NULL);
    gst_caps_unref (caps);
    gst_buffer_unref (buf);
    g_free (data);
  } else if (!*error) {
    *error = g_strdup_printf ("%s: no data file beside it", hdr);
  }
  g_free (base);
  g_free (stored);
  return sample;
}
