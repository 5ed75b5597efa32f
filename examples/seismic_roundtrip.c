/*
 * The main job's seismic part: synthetic shot gathers (bench/seismic/synthshot.h:
 * a marine shot, direct wave, multiples, 70 reflectors, spherical
 * divergence, noise)
 * through seismicenc ! seismicdec at several bit depths and levels, each
 * gather compared with the one that went in (SNR, Pearson r, compression
 * ratio, checked against floors); and, with --segy FILE, a SEG-Y file
 * through segysrc ! seismicenc ! seismicdec ! segysink, whose textual,
 * binary and trace headers must come back byte for byte.
 *
 *   seismic-roundtrip [--frames N] [--backend auto|cuda|cpu] [--segy FILE]
 *       [--system-memory]
 *
 * --system-memory is accepted for the other examples' sake: the seismic
 * elements choose their memory themselves.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <glib/gstdio.h>

#include "exampleutil.h"
#include "bench/seismic/synthshot.h"

#define TRACES 96
#define SAMPLES 3584

typedef struct
{
  guint bits, levels;
  gdouble min_snr;              /* dB: a floor a little under what it gives */
} Case;

static const Case cases[] = {
  {8, 1, 23.5},                 /* gives 24.3..25.2 on the first shots */
  {12, 1, 34.5},                /* 35.5 */
  {12, 4, 33.5},                /* 34.5..34.7 */
  {16, 2, 56.5},                /* 57.7..57.8 */
};

static GstPadProbeReturn
count_bytes (GstPad * pad, GstPadProbeInfo * info, gpointer total)
{
  *(guint64 *) total += gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

static gboolean
run_case (const Case * c, guint frames, const gchar * backend,
    gdouble * snr, gdouble * r, gdouble * cr, guint * done, gchar ** error)
{
  ExamplePipeline p;
  GstElement *src, *enc;
  GstPad *pad;
  GstCaps *caps;
  gchar *desc;
  gdouble s2 = 0, e2 = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  guint64 n = 0, coded = 0;
  gboolean ok;

  desc = g_strdup_printf ("appsrc name=src format=bytes ! tee name=t "
      "t. ! queue ! appsink name=ref sync=false "
      "t. ! queue ! seismicenc name=enc bits=%u levels=%u backend=%s ! "
      "seismicdec backend=%s ! appsink name=out sync=false",
      c->bits, c->levels, backend, backend);
  *done = 0;
  ok = example_pipeline_init (&p, desc, error);
  g_free (desc);
  if (!ok)
    return FALSE;
  src = gst_bin_get_by_name (GST_BIN (p.pipe), "src");
  enc = gst_bin_get_by_name (GST_BIN (p.pipe), "enc");
  pad = gst_element_get_static_pad (enc, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_bytes, &coded, NULL);
  gst_object_unref (pad);
  caps = gst_caps_new_simple ("application/x-seismic", "traces", G_TYPE_INT,
      TRACES, "samples", G_TYPE_INT, SAMPLES, "sample-interval", G_TYPE_INT,
      2000, NULL);
  g_object_set (src, "caps", caps, NULL);
  gst_caps_unref (caps);
  gst_element_set_state (p.pipe, GST_STATE_PLAYING);
  for (guint i = 0; i < frames; i++) {
    GstBuffer *b = gst_buffer_new_allocate (NULL,
        (gsize) TRACES * SAMPLES * 4, NULL);
    GstMapInfo m;

    gst_buffer_map (b, &m, GST_MAP_WRITE);
    synthshot ((float *) m.data, TRACES, SAMPLES, 0.002, i + 1);
    gst_buffer_unmap (b, &m);
    gst_app_src_push_buffer (GST_APP_SRC (src), b);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));

  while (ok && *done < frames) {
    GstSample *a, *b;
    GstMapInfo ma, mb;

    if (!example_pipeline_pull (&p, &a, &b, error))
      break;
    if (gst_buffer_map (gst_sample_get_buffer (a), &ma, GST_MAP_READ)) {
      if (gst_buffer_map (gst_sample_get_buffer (b), &mb, GST_MAP_READ)) {
        const float *x = (const float *) ma.data, *y = (const float *) mb.data;
        gsize k, m = MIN (ma.size, mb.size) / 4;

        ok = ma.size == mb.size;
        for (k = 0; k < m; k++) {
          s2 += (gdouble) x[k] * x[k];
          e2 += ((gdouble) x[k] - y[k]) * ((gdouble) x[k] - y[k]);
          sx += x[k];
          sy += y[k];
          syy += (gdouble) y[k] * y[k];
          sxy += (gdouble) x[k] * y[k];
        }
        n += m;
        (*done)++;
        gst_buffer_unmap (gst_sample_get_buffer (b), &mb);
      } else {
        ok = FALSE;
      }
      gst_buffer_unmap (gst_sample_get_buffer (a), &ma);
    } else {
      ok = FALSE;
    }
    gst_sample_unref (a);
    gst_sample_unref (b);
  }
  gst_object_unref (src);
  gst_object_unref (enc);
  if (*error)
    ok = FALSE;
  example_pipeline_clear (&p);
  sxx = s2;
  *snr = 10 * log10 (s2 / MAX (e2, 1e-300));
  *r = (n * sxy - sx * sy) / sqrt ((n * sxx - sx * sx) * (n * syy - sy * sy));
  *cr = coded ? 4.0 * n / coded : 0;
  return ok && *done == frames;
}

/* The SEG-Y file's headers: the 3600 bytes of file header plus any
 * extended textual headers, and every trace's 240 bytes.  FALSE when the
 * file is not one of fixed-length traces. */
static gboolean
segy_headers (const gchar * path, GByteArray * out, gchar ** error)
{
  gchar *data;
  gsize len, at, trace_bytes;
  guint ns, fmt, ext, width;
  gboolean le;

  if (!g_file_get_contents (path, &data, &len, NULL) || len < 3600) {
    *error = g_strdup_printf ("%s: not readable or too short", path);
    return FALSE;
  }
#define BE16(o) ((guint) (guint8) data[o] << 8 | (guint8) data[(o) + 1])
#define LE16(o) ((guint) (guint8) data[(o) + 1] << 8 | (guint8) data[o])
  fmt = BE16 (3224);
  le = fmt == 0 || fmt > 16;
  fmt = le ? LE16 (3224) : fmt;
  ns = le ? LE16 (3220) : BE16 (3220);
  ext = le ? LE16 (3504) : BE16 (3504);
#undef BE16
#undef LE16
  width = fmt == 3 ? 2 : fmt == 8 ? 1 : 4;
  at = 3600 + 3200 * (gsize) ext;
  trace_bytes = 240 + width * (gsize) ns;
  if (at > len || (len - at) % trace_bytes) {
    *error = g_strdup_printf ("%s: not whole traces of %u samples", path, ns);
    g_free (data);
    return FALSE;
  }
  g_byte_array_append (out, (guint8 *) data, at);
  for (; at < len; at += trace_bytes)
    g_byte_array_append (out, (guint8 *) data + at, 240);
  g_free (data);
  return TRUE;
}

static gboolean
run_segy (const gchar * path, const gchar * backend, gchar ** error)
{
  gchar *dir = g_dir_make_tmp ("seismic-roundtrip-XXXXXX", NULL);
  gchar *back = g_build_filename (dir, "back.sgy", NULL);
  gchar *desc = g_strdup_printf ("segysrc location=\"%s\" ! seismicenc "
      "bits=12 levels=1 backend=%s ! seismicdec backend=%s ! "
      "segysink location=\"%s\"", path, backend, backend, back);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GByteArray *a = g_byte_array_new (), *b = g_byte_array_new ();
  gboolean ok = pipe != NULL;

  if (ok) {
    GstBus *bus = gst_element_get_bus (pipe);
    GstMessage *msg;

    gst_element_set_state (pipe, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *e = NULL;

      if (msg)
        gst_message_parse_error (msg, &e, NULL);
      *error = g_strdup (e ? e->message : "no EOS within a minute");
      g_clear_error (&e);
      ok = FALSE;
    }
    if (msg)
      gst_message_unref (msg);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (pipe);
  } else {
    *error = g_strdup ("segysrc/segysink missing (built without segyio?)");
  }
  if (ok)
    ok = segy_headers (path, a, error) && segy_headers (back, b, error);
  if (ok && (a->len != b->len || memcmp (a->data, b->data, a->len))) {
    *error = g_strdup ("the headers did not come back identical");
    ok = FALSE;
  }
  if (ok)
    g_print ("%s: %u header bytes (file and traces) came back identical\n",
        path, a->len);
  g_byte_array_unref (a);
  g_byte_array_unref (b);
  g_unlink (back);
  g_rmdir (dir);
  g_free (back);
  g_free (dir);
  g_free (desc);
  return ok;
}

int
main (int argc, char **argv)
{
  gint frames = 5;
  gchar *backend = NULL, *segy = NULL;
  gboolean system_memory = FALSE, all_ok = TRUE;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames, "Gathers per case (5)",
        "N"},
    {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend,
        "auto, cuda or cpu (auto)", "B"},
    {"segy", 0, 0, G_OPTION_ARG_FILENAME, &segy,
        "Also round-trip this SEG-Y file, checking its headers", "FILE"},
    {"system-memory", 's', 0, G_OPTION_ARG_NONE, &system_memory,
        "Accepted, no effect (the other examples take it)", NULL},
    {NULL}
  };
  GstElementFactory *enc;
  guint i;

  if (!example_parse_args (&argc, &argv, "- seismic round trip check",
          entries, &frames, &backend))
    return 2;
  enc = gst_element_factory_find ("seismicenc");
  if (!enc) {
    g_printerr ("seismicenc not found: set GST_PLUGIN_PATH to the build "
        "dir\n");
    return 2;
  }
  gst_object_unref (enc);

  g_print ("seismicenc ! seismicdec round trip of synthetic %u x %u shots, "
      "backend=%s\n\n", TRACES, SAMPLES, backend);
  g_print ("%-5s %-7s %-7s %-9s %-9s %-6s %s\n", "bits", "levels", "gathers",
      "SNR dB", "r", "CR", "result");
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const Case *c = &cases[i];
    gdouble snr = 0, r = 0, cr = 0;
    guint done = 0;
    gchar *error = NULL;
    gboolean ok = run_case (c, (guint) frames, backend, &snr, &r, &cr, &done,
        &error);

    g_print ("%-5u %-7u %-7u ", c->bits, c->levels, done);
    if (!ok) {
      g_print ("FAILED: %s\n", error ? error : "no output");
      all_ok = FALSE;
    } else {
      gboolean good = snr >= c->min_snr;

      g_print ("%-9.2f %-9.6f %-6.2f %s\n", snr, r, cr, good ? "ok" :
          "BELOW THE SNR FLOOR");
      all_ok &= good;
    }
    g_free (error);
  }
  if (segy) {
    gchar *error = NULL;

    g_print ("\n");
    if (!run_segy (segy, backend, &error)) {
      g_print ("SEG-Y round trip FAILED: %s\n", error);
      all_ok = FALSE;
    }
    g_free (error);
  }
  g_print ("\n%s\n", all_ok ? "every case ran above its SNR floor" :
      "FAILURE: a case failed or fell below its floor");
  g_free (backend);
  g_free (segy);
  return all_ok ? 0 : 1;
}
