/*
 * One end of a network chain, as gst-launch-1.0 runs it, plus what a
 * streaming user checks: the frames that passed (a buffer probe on the
 * source pad of the element named `count`, say the encoder of a sender,
 * else on the first sink's input; a buffer list counts its buffers), the
 * latency of the chain up to there when its first frame has passed (the
 * latency query, which the sink itself would answer "not live" when it
 * does not sync: live or not, minimum and maximum), and an end that UDP does not give (no EOS comes over UDP):
 * after --frames N buffers, or --idle S seconds without one after the
 * first, the pipeline gets an EOS, so files are closed whole.
 *
 *   netstream [--frames N] [--idle S] [--expect N] PIPELINE-DESCRIPTION...
 *
 * Prints "latency: live, min X ms, max Y ms" (or "not live") then,
 * and "frames: N" at the end; exits 1 on an error message, or when
 * --expect N is given and N frames did not pass.  The recipes of
 * docs/streaming.md and tests/net/two_hosts.sh run both ends with it:
 *
 *   netstream --idle 2 --expect 100 udpsrc port=5004 caps=... ! \
 *     rtpjitterbuffer ! rtpj2kscldepay ! j2kdec ! filesink location=rx.raw
 *   netstream videotestsrc num-buffers=100 ! ... ! htj2kenc plt=true ! \
 *     rtpj2ksclpay ! udpsink host=192.0.2.2 port=5004
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>

typedef struct
{
  GstElement *pipe;
  GMainLoop *loop;
  GstPad *pad;                  /* where frames are counted */
  GMutex lock;                  /* frames and last_us: streaming threads */
  guint64 frames, limit;
  gint64 last_us;               /* monotonic time of the last frame */
  guint idle_s;
  gboolean eos_sent, failed;
} Run;

/* The latency query's answer (from the main loop, at the first frame). */
static gboolean
say_latency (gpointer data)
{
  Run *r = data;
  GstQuery *q = gst_query_new_latency ();

  gboolean ok = GST_PAD_IS_SINK (r->pad) ? gst_pad_peer_query (r->pad, q) :
      gst_pad_query (r->pad, q);

  if (ok) {
    gboolean live;
    GstClockTime min, max;
    gst_query_parse_latency (q, &live, &min, &max);
    if (live && GST_CLOCK_TIME_IS_VALID (max))
      printf ("latency: live, min %.1f ms, max %.1f ms\n",
          (double) min / GST_MSECOND, (double) max / GST_MSECOND);
    else if (live)
      printf ("latency: live, min %.1f ms, max unbounded\n",
          (double) min / GST_MSECOND);
    else
      printf ("latency: not live\n");
  } else {
    printf ("latency: the chain did not answer the query\n");
  }
  fflush (stdout);
  gst_query_unref (q);
  return G_SOURCE_REMOVE;
}

static GstPadProbeReturn
count_frame (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Run *r = data;
  guint64 n, add = GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER ?
      1 : gst_buffer_list_length (GST_PAD_PROBE_INFO_BUFFER_LIST (info));

  g_mutex_lock (&r->lock);
  n = r->frames += add;
  r->last_us = g_get_monotonic_time ();
  g_mutex_unlock (&r->lock);
  if (n == add)
    g_idle_add (say_latency, r);
  if (r->limit && n >= r->limit && n - add < r->limit)
    gst_element_send_event (r->pipe, gst_event_new_eos ());
  return GST_PAD_PROBE_OK;
}

/* The pad whose buffers are counted. */
static GstPad *
count_pad (GstElement * pipe)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), "count");
  GstPad *pad = NULL;

  if (e) {
    pad = gst_element_get_static_pad (e, "src");
  } else {
    GstIterator *it = gst_bin_iterate_sinks (GST_BIN (pipe));
    GValue v = G_VALUE_INIT;
    if (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
      e = g_value_dup_object (&v);
      pad = gst_element_get_static_pad (e, "sink");
      g_value_unset (&v);
    }
    gst_iterator_free (it);
  }
  if (e)
    gst_object_unref (e);
  return pad;
}

static gboolean
on_message (GstBus * bus, GstMessage * m, gpointer data)
{
  Run *r = data;
  GError *e = NULL;
  gchar *dbg = NULL;

  switch (GST_MESSAGE_TYPE (m)) {
    case GST_MESSAGE_ERROR:
      gst_message_parse_error (m, &e, &dbg);
      fprintf (stderr, "ERROR from %s: %s\n%s\n", GST_OBJECT_NAME (m->src),
          e->message, dbg ? dbg : "");
      r->failed = TRUE;
      g_main_loop_quit (r->loop);
      break;
    case GST_MESSAGE_WARNING:
      gst_message_parse_warning (m, &e, &dbg);
      fprintf (stderr, "WARNING from %s: %s\n%s\n", GST_OBJECT_NAME (m->src),
          e->message, dbg ? dbg : "");
      break;
    case GST_MESSAGE_EOS:
      g_main_loop_quit (r->loop);
      break;
    default:
      break;
  }
  g_clear_error (&e);
  g_free (dbg);
  return TRUE;
}

/* --idle: an EOS once frames have stopped coming. */
static gboolean
check_idle (gpointer data)
{
  Run *r = data;
  gint64 last;

  g_mutex_lock (&r->lock);
  last = r->last_us;
  g_mutex_unlock (&r->lock);

  if (!r->eos_sent && last &&
      g_get_monotonic_time () - last > (gint64) r->idle_s * G_USEC_PER_SEC) {
    r->eos_sent = TRUE;
    gst_element_send_event (r->pipe, gst_event_new_eos ());
  }
  return G_SOURCE_CONTINUE;
}

int
main (int argc, char **argv)
{
  Run r = { 0 };
  gint64 expect = -1;
  GError *err = NULL;
  GstPad *pad;
  GstBus *bus;
  int i = 1;

  gst_init (&argc, &argv);
  g_mutex_init (&r.lock);
  for (; i + 1 < argc && g_str_has_prefix (argv[i], "--"); i += 2) {
    if (!strcmp (argv[i], "--frames"))
      r.limit = g_ascii_strtoull (argv[i + 1], NULL, 10);
    else if (!strcmp (argv[i], "--idle"))
      r.idle_s = (guint) g_ascii_strtoull (argv[i + 1], NULL, 10);
    else if (!strcmp (argv[i], "--expect"))
      expect = g_ascii_strtoll (argv[i + 1], NULL, 10);
    else
      break;
  }
  if (i >= argc) {
    fprintf (stderr, "usage: netstream [--frames N] [--idle S] [--expect N] "
        "PIPELINE-DESCRIPTION...\n");
    return 2;
  }
  r.pipe = gst_parse_launchv ((const gchar **) argv + i, &err);
  if (!r.pipe) {
    fprintf (stderr, "netstream: %s\n", err->message);
    g_error_free (err);
    return 2;
  }
  pad = count_pad (r.pipe);
  if (!pad) {
    fprintf (stderr, "netstream: no element named count and no sink\n");
    gst_object_unref (r.pipe);
    return 2;
  }
  r.pad = pad;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, count_frame, &r, NULL);
  r.loop = g_main_loop_new (NULL, FALSE);
  bus = gst_element_get_bus (r.pipe);
  gst_bus_add_watch (bus, on_message, &r);
  if (r.idle_s)
    g_timeout_add (200, check_idle, &r);
  if (gst_element_set_state (r.pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    r.failed = TRUE;
  else
    g_main_loop_run (r.loop);
  gst_element_set_state (r.pipe, GST_STATE_NULL);
  printf ("frames: %" G_GUINT64_FORMAT "\n", r.frames);
  gst_object_unref (r.pad);
  gst_bus_remove_watch (bus);
  gst_object_unref (bus);
  gst_object_unref (r.pipe);
  g_main_loop_unref (r.loop);
  g_mutex_clear (&r.lock);
  if (expect >= 0 && (guint64) expect != r.frames) {
    fprintf (stderr, "netstream: %" G_GUINT64_FORMAT " frames, not %"
        G_GINT64_FORMAT "\n", r.frames, expect);
    return 1;
  }
  return r.failed ? 1 : 0;
}
