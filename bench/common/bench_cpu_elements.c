/*
 * CPU throughput of every codec element (backend=cpu), by frame size, on
 * one thread (threads=1) and on the element's default pool (threads=0,
 * one a CPU): issue 20, what a live chain on a small host can carry.
 * Prints a markdown table.
 *
 *   bench-cpu-elements [--frames N] [--quick] [--only NAME] [--threads T]
 *
 * Each case pushes the same frame N times (default 5, after one untimed
 * warm-up) through a GstHarness holding the element alone, one frame in
 * flight; a frame's time is from its push to its output, and the table
 * gives the median: frames/s, MB/s of raw data (10^6 bytes: the encoder's
 * input, the decoder's output), and the process CPU time a frame (all
 * threads), which says how much of the host the element takes at that
 * rate.  Decoders get what their encoder made of the same frame.
 *
 * Frames: video as htj2kenc and ebcotcm meet it (1080p 4:2:0 8-bit, 4K
 * 4:4:4 12-bit; lossless, and cudadwt/cudaidwt 5/3 with 5 levels),
 * GRAY16_LE spectra for dpcmenc/dpcmdec (256^2, 512^2, 1024^2), float
 * gathers for seismicenc/seismicdec (a 96 x 3584 shot, 1000 x 2000), U16LE
 * cubes for sppfilter (145 x 145 x 200 with window 5, 350 x 350 x 188 with
 * window 11).  Synthetic content: smooth gradients with noise.  --quick
 * keeps the smaller frame of each kind; --only runs the cases whose
 * element (or element line) contains NAME; --threads T sets the second
 * column's pool to T threads instead of the default.
 *
 * The plugin comes from GST_PLUGIN_PATH, else from the build tree.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gst/check/gstharness.h>
#include <gst/gst.h>

#ifndef BENCH_PLUGIN_DIR
#define BENCH_PLUGIN_DIR "build/elements"
#endif

static guint32 rng_state = 12345;

static guint32
rnd (void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

static gdouble
now_s (clockid_t id)
{
  struct timespec ts;

  clock_gettime (id, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
cmp_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* ---- frames ---- */

/* w x h samples of `bits` bits (1 or 2 bytes each), a gradient with
 * noise. */
static void
fill_samples (guint8 * d, gint w, gint h, gint bits)
{
  gint x, y, maxv = (1 << bits) - 1;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      gint v = (gint) ((gdouble) (x + 2 * y) / (w + 2 * h) * maxv * 0.8)
          + (gint) (rnd () % (maxv / 64 + 2));
      v = v > maxv ? maxv : v;
      if (bits > 8) {
        d[2 * ((gsize) y * w + x)] = (guint8) v;
        d[2 * ((gsize) y * w + x) + 1] = (guint8) (v >> 8);
      } else {
        d[(gsize) y * w + x] = (guint8) v;
      }
    }
}

static GBytes *
video_i420 (gint w, gint h)
{
  gsize n = (gsize) w * h * 3 / 2;
  guint8 *d = g_malloc (n);

  fill_samples (d, w, h, 8);
  fill_samples (d + (gsize) w * h, w / 2, h, 8);        /* both chroma */
  return g_bytes_new_take (d, n);
}

static GBytes *
video_y444_12 (gint w, gint h)
{
  gsize plane = (gsize) w * h * 2;
  guint8 *d = g_malloc (plane * 3);
  gint c;

  for (c = 0; c < 3; c++)
    fill_samples (d + c * plane, w, h, 12);
  return g_bytes_new_take (d, plane * 3);
}

static GBytes *
gray16 (gint w, gint h)
{
  guint8 *d = g_malloc ((gsize) w * h * 2);

  fill_samples (d, w, h, 16);
  return g_bytes_new_take (d, (gsize) w * h * 2);
}

static GBytes *
gather (gint traces, gint samples)
{
  gsize n = (gsize) traces * samples, i;
  gfloat *g = g_new (gfloat, n);

  for (i = 0; i < n; i++) {
    gdouble t = (gdouble) (i % samples) / samples, x = (gdouble) (i / samples);
    g[i] = (gfloat) (sin (60 * t + 0.02 * x) * exp (-3 * t)
        + (rnd () % 1000) * 1e-4);
  }
  return g_bytes_new_take (g, n * sizeof (gfloat));
}

static GBytes *
cube_u16 (gint lines, gint samples, gint bands)
{
  gsize n = (gsize) lines * samples * bands, i;
  guint16 *c = g_new (guint16, n);

  for (i = 0; i < n; i++) {
    gsize b = i % bands, p = i / bands;
    c[i] = (guint16) (1000 + b * 40 + (p % samples) * 3 + (p / samples) * 2
        + rnd () % 200);
  }
  return g_bytes_new_take (c, n * 2);
}

/* ---- runs ---- */

typedef struct
{
  gdouble ms, cpu_ms;           /* median wall, mean CPU a frame */
  GBytes *out;                  /* the last output */
  gchar *out_caps;
} Run;

/* `frames` frames of `in` through `desc` threads=t; FALSE when the
 * element made no output. */
static gboolean
run (const gchar * desc, guint t, const gchar * caps, GBytes * in,
    gint frames, Run * r)
{
  gchar *d = g_strdup_printf ("%s backend=cpu threads=%u", desc, t);
  GstHarness *h = gst_harness_new_parse (d);
  gdouble *ms = g_new (gdouble, frames);
  gdouble cpu0 = 0;
  gint i;

  gst_harness_set_src_caps_str (h, caps);
  memset (r, 0, sizeof *r);
  for (i = -1; i < frames; i++) {
    gdouble t0 = now_s (CLOCK_MONOTONIC);
    GstBuffer *out;

    if (i == 0)
      cpu0 = now_s (CLOCK_PROCESS_CPUTIME_ID);
    if (gst_harness_push (h, gst_buffer_new_wrapped_bytes (in)) != GST_FLOW_OK
        || !(out = gst_harness_try_pull (h))) {
      g_printerr ("%s: no output\n", d);
      gst_harness_teardown (h);
      g_free (ms);
      g_free (d);
      return FALSE;
    }
    if (i >= 0)
      ms[i] = (now_s (CLOCK_MONOTONIC) - t0) * 1e3;
    if (i == frames - 1) {
      GstMapInfo map;
      GstCaps *oc = gst_pad_get_current_caps (h->sinkpad);

      gst_buffer_map (out, &map, GST_MAP_READ);
      r->out = g_bytes_new (map.data, map.size);
      gst_buffer_unmap (out, &map);
      r->out_caps = gst_caps_to_string (oc);
      gst_caps_unref (oc);
    }
    gst_buffer_unref (out);
  }
  r->cpu_ms = (now_s (CLOCK_PROCESS_CPUTIME_ID) - cpu0) * 1e3 / frames;
  qsort (ms, frames, sizeof *ms, cmp_double);
  r->ms = frames % 2 ? ms[frames / 2] : 0.5 * (ms[frames / 2 - 1]
      + ms[frames / 2]);
  gst_harness_teardown (h);
  g_free (ms);
  g_free (d);
  return TRUE;
}

static guint threads_b;         /* the second column's pool: 0 = default */
static gint nframes = 5;

static void
row (const gchar * element, const gchar * frame, gsize raw, const Run * one,
    const Run * all)
{
  g_print ("| %s | %s | %.2f | %.1f | %.0f | %.2f | %.1f | %.0f | %.2fx |\n",
      element, frame, 1e3 / one->ms, raw / one->ms * 1e-3, one->cpu_ms,
      1e3 / all->ms, raw / all->ms * 1e-3, all->cpu_ms, one->ms / all->ms);
}

/* An encoder (or filter) case, and its decoder when `dec` is not NULL. */
static void
bench_pair (const gchar * enc, const gchar * dec, const gchar * frame,
    const gchar * caps, GBytes * in, gsize raw)
{
  Run e1, eall, d1, dall;

  if (!run (enc, 1, caps, in, nframes, &e1)
      || !run (enc, threads_b, caps, in, nframes, &eall))
    return;
  row (enc, frame, raw, &e1, &eall);
  if (dec && run (dec, 1, e1.out_caps, e1.out, nframes, &d1)
      && run (dec, threads_b, e1.out_caps, e1.out, nframes, &dall)) {
    row (dec, frame, raw, &d1, &dall);
    g_bytes_unref (d1.out);
    g_bytes_unref (dall.out);
    g_free (d1.out_caps);
    g_free (dall.out_caps);
  }
  g_bytes_unref (e1.out);
  g_bytes_unref (eall.out);
  g_free (e1.out_caps);
  g_free (eall.out_caps);
}

int
main (int argc, char **argv)
{
  gboolean quick = FALSE;
  const gchar *only = NULL;
  GBytes *b;
  gchar caps[256];
  gint i, s;

  for (i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--frames") && i + 1 < argc)
      nframes = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--quick"))
      quick = TRUE;
    else if (!strcmp (argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp (argv[i], "--threads") && i + 1 < argc)
      threads_b = (guint) atoi (argv[++i]);
    else {
      g_printerr ("usage: %s [--frames N] [--quick] [--only NAME] "
          "[--threads T]\n", argv[0]);
      return 2;
    }
  }
  nframes = nframes < 1 ? 1 : nframes;
  gst_init (NULL, NULL);
  if (!gst_registry_check_feature_version (gst_registry_get (), "dpcmenc",
          1, 0, 0))
    gst_registry_scan_path (gst_registry_get (), BENCH_PLUGIN_DIR);
  {
    GstElement *e = gst_element_factory_make ("dpcmenc", NULL);

    if (!e) {
      g_printerr ("the plugin was not found (GST_PLUGIN_PATH)\n");
      return 1;
    }
    if (!g_object_class_find_property (G_OBJECT_GET_CLASS (e), "threads")) {
      g_printerr ("this plugin has no threads property\n");
      return 1;
    }
    gst_object_unref (e);
  }

  {
    gchar model[256] = "?", la[64] = "?";
    FILE *f = fopen ("/proc/cpuinfo", "r");
    time_t t = time (NULL);
    gchar date[64];

    if (f) {
      gchar line[512];
      while (fgets (line, sizeof line, f))
        if (!strncmp (line, "model name", 10) && strchr (line, ':')) {
          g_strlcpy (model, g_strstrip (strchr (line, ':') + 1), sizeof model);
          break;
        }
      fclose (f);
    }
    strftime (date, sizeof date, "%Y-%m-%d %H:%M", localtime (&t));
    g_print ("## bench-cpu-elements %s\n\n", date);
    f = fopen ("/proc/loadavg", "r");
    if (f) {
      if (fgets (la, sizeof la, f)) {
        gchar **v = g_strsplit (la, " ", 4);
        if (v[0] && v[1] && v[2])
          g_snprintf (la, sizeof la, "%s %s %s", v[0], v[1], v[2]);
        g_strfreev (v);
      }
      fclose (f);
    }
    g_print ("CPU: %s, %ld online CPUs; load average at start %s\n", model,
        sysconf (_SC_NPROCESSORS_ONLN), la);
    g_print ("median of %d frames after a warm-up, one frame in flight; "
        "second column: threads=%u%s\n\n", nframes, threads_b,
        threads_b ? "" : " (one a CPU)");
    g_print ("| element | frame | threads=1 frames/s | MB/s | CPU ms/frame | "
        "threads=%u frames/s | MB/s | CPU ms/frame | speed-up |\n", threads_b);
    g_print
        ("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  }
#define WANT(name) (!only || strstr ((name), only))

  /* video: the wavelet stage and the JPEG 2000 encoders */
  for (s = 0; s < (quick ? 1 : 2); s++) {
    gint w = s ? 3840 : 1920, h = s ? 2160 : 1080;
    const gchar *fmt = s ? "Y444_12LE" : "I420";
    gsize raw = s ? (gsize) w * h * 6 : (gsize) w * h * 3 / 2;
    gchar *frame = g_strdup_printf ("%dx%d %s", w, h, s ? "4:4:4 12-bit" :
        "4:2:0 8-bit");

    b = s ? video_y444_12 (w, h) : video_i420 (w, h);
    g_snprintf (caps, sizeof caps, "video/x-raw,format=%s,width=%d,height=%d,"
        "framerate=25/1", fmt, w, h);
    if (WANT ("cudadwt levels=5"))
      bench_pair ("cudadwt levels=5", "cudaidwt", frame, caps, b, raw);
    if (WANT ("htj2kenc reversible=true"))
      bench_pair ("htj2kenc reversible=true", NULL, frame, caps, b, raw);
    if (WANT ("ebcotcm reversible=true"))
      bench_pair ("ebcotcm reversible=true", NULL, frame, caps, b, raw);
    g_bytes_unref (b);
    g_free (frame);
  }
  /* DPCM spectra */
  for (s = 0; s < (quick ? 1 : 3); s++) {
    gint n = 256 << s;
    gchar *frame = g_strdup_printf ("%dx%d GRAY16", n, n);

    b = gray16 (n, n);
    g_snprintf (caps, sizeof caps, "video/x-raw,format=GRAY16_LE,width=%d,"
        "height=%d,framerate=25/1", n, n);
    if (WANT ("dpcmenc"))
      bench_pair ("dpcmenc", "dpcmdec", frame, caps, b, (gsize) n * n * 2);
    g_bytes_unref (b);
    g_free (frame);
  }
  /* seismic gathers */
  for (s = 0; s < (quick ? 1 : 2); s++) {
    gint traces = s ? 1000 : 96, samples = s ? 2000 : 3584;
    gchar *frame = g_strdup_printf ("%d x %d float", traces, samples);

    b = gather (traces, samples);
    g_snprintf (caps, sizeof caps, "application/x-seismic,traces=%d,"
        "samples=%d,sample-interval=2000", traces, samples);
    if (WANT ("seismicenc bits=12 levels=3"))
      bench_pair ("seismicenc bits=12 levels=3", "seismicdec", frame, caps, b,
          (gsize) traces * samples * 4);
    g_bytes_unref (b);
    g_free (frame);
  }
  /* SPP cubes */
  for (s = 0; s < (quick ? 1 : 2); s++) {
    gint l = s ? 350 : 145, sm = s ? 350 : 145, bands = s ? 188 : 200;
    gint win = s ? 11 : 5;
    gchar *frame = g_strdup_printf ("%dx%dx%d U16", l, sm, bands);
    gchar *el = g_strdup_printf ("sppfilter window-size=%d", win);

    b = cube_u16 (l, sm, bands);
    g_snprintf (caps, sizeof caps, "application/x-hyperspectral,lines=%d,"
        "samples=%d,bands=%d,format=U16LE,interleave=bip", l, sm, bands);
    if (WANT (el))
      bench_pair (el, NULL, frame, caps, b, (gsize) l * sm * bands * 2);
    g_bytes_unref (b);
    g_free (frame);
    g_free (el);
  }
  return 0;
}
