/*
 * What htj2kenc, ebcotcm, dpcmenc (GstSciVideoEncoder) and dpcmdec
 * (GstSciVideoDecoder) owe to their base classes (issue 21): frames leave
 * in order with their timestamps and durations, EOS lets every frame out,
 * a flush forgets what was pending (a partial frame of a byte stream
 * included), the latency query answers, properties change while playing,
 * QoS drops a frame downstream says is too late only when asked to, and
 * caps refused for the properties post one error, not one a retry.
 * On the CPU backend; the frames in flight of ebcotcm on CUDA are checked
 * by the GPU suite (test_ebcot_frames_in_flight in test_elements_gpu.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "frameutil.h"

#define W 40
#define H 24
#define FRAME_DURATION (40 * GST_MSECOND)

static const gchar *const encoders[] = {
  "htj2kenc backend=cpu reversible=true",
  "ebcotcm backend=cpu reversible=true frames-in-flight=2",
  "dpcmenc backend=cpu",
};

static GstCaps *
gray_caps (void)
{
  GstCaps *caps = frameutil_video_caps ("GRAY8", W, H);

  gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 25, 1, NULL);
  return caps;
}

/* Frame k of a stream: samples that differ from frame to frame. */
static GstBuffer *
gray_frame (guint k)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, W * H, NULL);
  GstMapInfo map;
  guint i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < W * H; i++)
    map.data[i] = (guint8) ((i % W) * 3 + (i / W) * 5 + k * 17);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = k * FRAME_DURATION;
  GST_BUFFER_DURATION (buf) = FRAME_DURATION;
  return buf;
}

static gboolean
same_bytes (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;
  gboolean same;

  gst_buffer_map (a, &ma, GST_MAP_READ);
  gst_buffer_map (b, &mb, GST_MAP_READ);
  same = ma.size == mb.size && memcmp (ma.data, mb.data, ma.size) == 0;
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return same;
}

static GstHarness *
encoder_harness (const gchar * description)
{
  GstHarness *h = gst_harness_new_parse (description);

  gst_harness_set_src_caps (h, gray_caps ());
  return h;
}

/* The codec element of a harness made from a description. */
static GstElement *
codec_of (GstHarness * h, const gchar * description)
{
  gchar *name = g_strndup (description, strcspn (description, " "));
  GstElement *e = gst_harness_find_element (h, name);

  g_free (name);
  fail_unless (e != NULL);
  return e;
}

static void
check_timing (GstBuffer * out, guint k, const gchar * what)
{
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * FRAME_DURATION);
  fail_unless (GST_BUFFER_DURATION (out) == FRAME_DURATION,
      "%s: frame %u lasts %" GST_TIME_FORMAT, what, k,
      GST_TIME_ARGS (GST_BUFFER_DURATION (out)));
}

/* The base classes are GStreamer's codec ones, no longer a transform. */
GST_START_TEST (test_base_classes)
{
  static const struct
  {
    const gchar *name;
    gboolean encoder;
  } elements[] = {
    {"htj2kenc", TRUE}, {"ebcotcm", TRUE}, {"dpcmenc", TRUE},
    {"dpcmdec", FALSE},
  };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (elements); k++) {
    GstElement *e = gst_element_factory_make (elements[k].name, NULL);

    fail_unless (e != NULL, "%s", elements[k].name);
    fail_unless (g_type_is_a (G_OBJECT_TYPE (e), elements[k].encoder ?
            GST_TYPE_VIDEO_ENCODER : GST_TYPE_VIDEO_DECODER), "%s",
        elements[k].name);
    fail_if (GST_IS_BASE_TRANSFORM (e), "%s", elements[k].name);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* Frames leave in order with their timestamps; after EOS nothing is left
 * behind and EOS follows the last frame. */
GST_START_TEST (test_order_and_eos)
{
  guint e, k;

  for (e = 0; e < G_N_ELEMENTS (encoders); e++) {
    GstHarness *h = encoder_harness (encoders[e]);
    GstEvent *ev;

    for (k = 0; k < 4; k++)
      fail_unless_equals_int (gst_harness_push (h, gray_frame (k)),
          GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    fail_unless_equals_int (gst_harness_buffers_received (h), 4);
    for (k = 0; k < 4; k++) {
      GstBuffer *out = gst_harness_pull (h);

      check_timing (out, k, encoders[e]);
      gst_buffer_unref (out);
    }
    /* stream-start, caps, segment, then EOS */
    while ((ev = gst_harness_try_pull_event (h))
        && GST_EVENT_TYPE (ev) != GST_EVENT_EOS)
      gst_event_unref (ev);
    fail_unless (ev != NULL, "%s: no EOS", encoders[e]);
    gst_event_unref (ev);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Frames 0..n-1 coded by dpcmenc into coded[], and their caps. */
static GstCaps *
dpcm_frames (guint n, GstBuffer ** coded)
{
  GstHarness *enc = encoder_harness ("dpcmenc backend=cpu");
  GstCaps *caps;
  guint k;

  for (k = 0; k < n; k++) {
    fail_unless_equals_int (gst_harness_push (enc, gray_frame (k)),
        GST_FLOW_OK);
    coded[k] = gst_harness_pull (enc);
  }
  caps = gst_pad_get_current_caps (enc->sinkpad);
  gst_harness_teardown (enc);
  return caps;
}

/* dpcmdec: frames decoded in order with the encoder's timestamps, from
 * whole frames (dpcmenc's, parsed=true) and from a byte stream cut
 * anywhere (the decoder's parse). */
GST_START_TEST (test_decoder_order)
{
  GstBuffer *coded[4];
  GstCaps *coded_caps = dpcm_frames (4, coded);
  guint k, stream;

  for (stream = 0; stream < 2; stream++) {
    GstHarness *h = gst_harness_new_parse ("dpcmdec backend=cpu");

    if (stream == 0) {
      gst_harness_set_src_caps (h, gst_caps_ref (coded_caps));
      for (k = 0; k < 4; k++)
        fail_unless_equals_int (gst_harness_push (h,
                gst_buffer_ref (coded[k])), GST_FLOW_OK);
    } else {
      /* all the bytes, in chunks of 100 that straddle the frames */
      GstBuffer *all = gst_buffer_new ();
      gsize off, size;

      for (k = 0; k < 4; k++)
        all = gst_buffer_append (all, gst_buffer_copy_deep (coded[k]));
      size = gst_buffer_get_size (all);
      gst_harness_set_src_caps_str (h, "application/x-dpcm");
      for (off = 0; off < size; off += 100)
        fail_unless_equals_int (gst_harness_push (h,
                gst_buffer_copy_region (all, GST_BUFFER_COPY_MEMORY, off,
                    MIN (100, size - off))), GST_FLOW_OK);
      gst_buffer_unref (all);
    }
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    fail_unless_equals_int (gst_harness_buffers_received (h), 4);
    for (k = 0; k < 4; k++) {
      GstBuffer *out = gst_harness_pull (h), *in = gray_frame (k);

      fail_unless (same_bytes (out, in), "frame %u decoded wrong", k);
      if (stream == 0)
        check_timing (out, k, "dpcmdec");
      gst_buffer_unref (in);
      gst_buffer_unref (out);
    }
    gst_harness_teardown (h);
  }
  for (k = 0; k < 4; k++)
    gst_buffer_unref (coded[k]);
  gst_caps_unref (coded_caps);
}

GST_END_TEST;

/* A flush forgets the part of a frame dpcmdec had gathered from a byte
 * stream: the whole frame after it decodes, with no error. */
GST_START_TEST (test_decoder_flush)
{
  GstHarness *enc = encoder_harness ("dpcmenc backend=cpu");
  GstHarness *h = gst_harness_new_parse ("dpcmdec backend=cpu");
  GstBuffer *coded, *out, *in = gray_frame (1);
  GstSegment segment;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;

  fail_unless_equals_int (gst_harness_push (enc, gray_frame (1)), GST_FLOW_OK);
  coded = gst_harness_pull (enc);
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, "application/x-dpcm");
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_copy_region (coded, GST_BUFFER_COPY_MEMORY, 0,
              gst_buffer_get_size (coded) / 2)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (coded)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (h), 1);
  out = gst_harness_pull (h);
  fail_unless (same_bytes (out, in));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg == NULL, "an error after the flush");
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_buffer_unref (coded);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  gst_harness_teardown (enc);
}

GST_END_TEST;

/* After a flush an encoder codes on, the frame after it with its own
 * timestamp. */
GST_START_TEST (test_encoder_flush)
{
  guint e;

  for (e = 0; e < G_N_ELEMENTS (encoders); e++) {
    GstHarness *h = encoder_harness (encoders[e]);
    GstSegment segment;
    GstBuffer *out;

    fail_unless_equals_int (gst_harness_push (h, gray_frame (0)), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    gst_segment_init (&segment, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
    fail_unless_equals_int (gst_harness_push (h, gray_frame (1)), GST_FLOW_OK);
    out = gst_harness_pull (h);
    check_timing (out, 1, encoders[e]);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* The latency query: on the CPU every frame leaves as it comes, so none
 * (ebcotcm's frames-in-flight concerns the CUDA backend only). */
GST_START_TEST (test_latency_cpu)
{
  guint e;

  for (e = 0; e < G_N_ELEMENTS (encoders); e++) {
    GstHarness *h = encoder_harness (encoders[e]);

    fail_unless_equals_int (gst_harness_push (h, gray_frame (0)), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
    fail_unless_equals_uint64 (gst_harness_query_latency (h), 0);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* dpcmenc's coding parameters change while it plays: the next frame is
 * coded with them, as a new encoder with them codes it. */
GST_START_TEST (test_dpcmenc_property_change)
{
  GstHarness *h = encoder_harness ("dpcmenc backend=cpu");
  GstHarness *ref = encoder_harness ("dpcmenc backend=cpu order=3 "
      "scan=columns threshold=0");
  GstElement *enc = codec_of (h, "dpcmenc");
  GstBuffer *before, *after, *expected;

  fail_unless_equals_int (gst_harness_push (h, gray_frame (2)), GST_FLOW_OK);
  before = gst_harness_pull (h);
  gst_util_set_object_arg (G_OBJECT (enc), "scan", "columns");
  g_object_set (enc, "order", 3, "threshold", 0, NULL);
  gst_object_unref (enc);
  fail_unless_equals_int (gst_harness_push (h, gray_frame (2)), GST_FLOW_OK);
  after = gst_harness_pull (h);
  fail_unless_equals_int (gst_harness_push (ref, gray_frame (2)), GST_FLOW_OK);
  expected = gst_harness_pull (ref);
  fail_if (same_bytes (before, after), "the change was not taken");
  fail_unless (same_bytes (after, expected));
  gst_buffer_unref (before);
  gst_buffer_unref (after);
  gst_buffer_unref (expected);
  gst_harness_teardown (ref);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* qos (GstVideoEncoder's, off by default): a frame that downstream's QoS
 * event says is already too late is dropped before it is coded when it
 * is on, and coded when it is off. */
GST_START_TEST (test_encoder_qos)
{
  guint e, qos;

  for (e = 0; e < G_N_ELEMENTS (encoders); e++) {
    for (qos = 0; qos < 2; qos++) {
      GstHarness *h = encoder_harness (encoders[e]);
      GstElement *enc = codec_of (h, encoders[e]);
      gboolean def = TRUE;

      g_object_get (enc, "qos", &def, NULL);
      fail_if (def, "%s: qos on by default", encoders[e]);
      g_object_set (enc, "qos", (gboolean) qos, NULL);
      gst_object_unref (enc);
      fail_unless_equals_int (gst_harness_push (h, gray_frame (0)),
          GST_FLOW_OK);
      gst_buffer_unref (gst_harness_pull (h));
      /* downstream is a second behind at frame 0 */
      fail_unless (gst_harness_push_upstream_event (h,
              gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 0.5, GST_SECOND, 0)));
      fail_unless_equals_int (gst_harness_push (h, gray_frame (1)),
          GST_FLOW_OK);
      fail_unless_equals_int (gst_harness_buffers_received (h), qos ? 1 : 2);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* dpcmdec's qos (GstVideoDecoder's) is off by default, as the other
 * codecs' is: frames are data, not pictures to skip when late.  On, a
 * frame that downstream's QoS event says is already too late is dropped
 * rather than pushed. */
GST_START_TEST (test_decoder_qos)
{
  GstBuffer *coded[2];
  GstCaps *caps = dpcm_frames (2, coded);
  guint k, qos;

  for (qos = 0; qos < 3; qos++) {
    GstHarness *h = gst_harness_new_parse ("dpcmdec backend=cpu");
    GstElement *dec = codec_of (h, "dpcmdec");
    gboolean on = TRUE;

    /* 0: the default, 1: off, 2: on */
    if (qos > 0)
      g_object_set (dec, "qos", qos == 2, NULL);
    g_object_get (dec, "qos", &on, NULL);
    fail_unless_equals_int (on, qos == 2);
    gst_object_unref (dec);
    gst_harness_set_src_caps (h, gst_caps_ref (caps));
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (coded[0])),
        GST_FLOW_OK);
    fail_unless (gst_harness_push_upstream_event (h,
            gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 0.5, GST_SECOND, 0)));
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (coded[1])),
        GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_buffers_received (h), qos == 2 ? 1 : 2);
    gst_harness_teardown (h);
  }
  for (k = 0; k < 2; k++)
    gst_buffer_unref (coded[k]);
  gst_caps_unref (caps);
}

GST_END_TEST;

static guint
errors_from (GstBus * bus, GstElement * element)
{
  GstMessage *m;
  guint n = 0;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    n += GST_MESSAGE_SRC (m) == GST_OBJECT (element);
    gst_message_unref (m);
  }
  return n;
}

/* GstPad sends a refused caps event again before each later event and
 * buffer: the element's error stays one, and a property change that makes
 * the caps acceptable lets the next buffer through (the encoders'
 * GstSciVideoEncoder and the filters' GstSciFilter). */
GST_START_TEST (test_refused_caps_one_error)
{
  static const struct
  {
    const gchar *description, *property, *fix;
  } cases[] = {
    {"htj2kenc backend=cpu reversible=true refinement=all", "refinement",
        "none"},
    {"ebcotcm backend=cpu block-width=128 block-height=128", "block-width",
        "32"},
    {"cudadwt backend=cpu colour-transform=rct", "colour-transform", "none"},
  };
  guint c, k;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    GstHarness *h = gst_harness_new_parse (cases[c].description);
    GstElement *e = codec_of (h, cases[c].description);
    GstBus *bus = gst_bus_new ();
    GstSegment segment;

    gst_element_set_bus (e, bus);
    gst_harness_push_event (h, gst_event_new_caps (gray_caps ()));
    gst_segment_init (&segment, GST_FORMAT_TIME);
    gst_harness_push_event (h, gst_event_new_segment (&segment));
    for (k = 0; k < 3; k++)
      fail_unless_equals_int (gst_harness_push (h, gray_frame (k)),
          GST_FLOW_NOT_NEGOTIATED);
    fail_unless_equals_int (errors_from (bus, e), 1);

    gst_util_set_object_arg (G_OBJECT (e), cases[c].property, cases[c].fix);
    fail_unless_equals_int (gst_harness_push (h, gray_frame (3)), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
    fail_unless_equals_int (errors_from (bus, e), 0);
    gst_element_set_bus (e, NULL);
    gst_object_unref (bus);
    gst_object_unref (e);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static Suite *
videocodec_suite (void)
{
  Suite *s = suite_create ("videocodec");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_base_classes);
  tcase_add_test (tc, test_order_and_eos);
  tcase_add_test (tc, test_decoder_order);
  tcase_add_test (tc, test_decoder_flush);
  tcase_add_test (tc, test_encoder_flush);
  tcase_add_test (tc, test_latency_cpu);
  tcase_add_test (tc, test_dpcmenc_property_change);
  tcase_add_test (tc, test_encoder_qos);
  tcase_add_test (tc, test_decoder_qos);
  tcase_add_test (tc, test_refused_caps_one_error);
  return s;
}

GST_CHECK_MAIN (videocodec);
