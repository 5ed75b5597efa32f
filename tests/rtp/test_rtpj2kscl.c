/*
 * rtpj2ksclpay and rtpj2kscldepay (RFC 9828) and codec/rtp/j2kscl.h: the
 * payload header's bit layout, round trips of our encoders' codestreams
 * at several MTUs, the 24-bit sequence number across a wrap, packets
 * reordered and duplicated (through rtpjitterbuffer), and loss: of a main packet (the frame is
 * dropped), of body packets with and without PLT (the frame repaired, or
 * cut short, and decodable), of a frame's last packet; a datagram of
 * another sender (OpenHTJ2K's); bad input.
 */
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gst/video/video.h>

#include "codec/rtp/j2kscl.h"
#include "../j2k/j2kdec_util.h"
#include "../j2k/j2kutil.h"

#define RTP_CAPS "application/x-rtp, media=video, clock-rate=90000, " \
  "encoding-name=JPEG2000-SCL, payload=96"

GST_START_TEST (test_header_layout)
{
  sci_j2kscl_hdr h, r;
  guint8 b[SCI_J2KSCL_HDR_LEN];

  /* a main packet: MH 2, TP 1, ORDH 5, P, XTRAC 3, PTSTAMP 0xABC, ESEQ
   * 0x12, R, C, RANGE, PRIMS 1, TRANS 14, MAT 9 */
  memset (&h, 0, sizeof h);
  h.mh = 2;
  h.tp = 1;
  h.ordh = 5;
  h.p = 1;
  h.xtrac = 3;
  h.ptstamp = 0xABC;
  h.eseq = 0x12;
  h.r = 1;
  h.c = 1;
  h.range = 1;
  h.prims = 1;
  h.trans = 14;
  h.mat = 9;
  sci_j2kscl_hdr_write (&h, b);
  fail_unless_equals_int (b[0], 0x80 | 1 << 3 | 5);
  fail_unless_equals_int (b[1], 0x80 | 3 << 4 | 0xA);
  fail_unless_equals_int (b[2], 0xBC);
  fail_unless_equals_int (b[3], 0x12);
  fail_unless_equals_int (b[4], 0x80 | 0x20 | 1);
  fail_unless_equals_int (b[5], 1);
  fail_unless_equals_int (b[6], 14);
  fail_unless_equals_int (b[7], 9);
  fail_unless_equals_int (sci_j2kscl_hdr_read (b, 8, &r), 0);
  fail_unless (memcmp (&h, &r, sizeof h) == 0);

  /* a body packet: TP 2, RES 6, ORDB, QUAL 4, POS 0x9A5, PID 0xF1234 */
  memset (&h, 0, sizeof h);
  h.tp = 2;
  h.res = 6;
  h.ordb = 1;
  h.qual = 4;
  h.ptstamp = 0x345;
  h.eseq = 0xFE;
  h.pos = 0x9A5;
  h.pid = 0xF1234;
  sci_j2kscl_hdr_write (&h, b);
  fail_unless_equals_int (b[0], 2 << 3 | 6);
  fail_unless_equals_int (b[1], 0x80 | 4 << 4 | 3);
  fail_unless_equals_int (b[2], 0x45);
  fail_unless_equals_int (b[3], 0xFE);
  fail_unless_equals_int (b[4], 0x9A);
  fail_unless_equals_int (b[5], 0x5F);
  fail_unless_equals_int (b[6], 0x12);
  fail_unless_equals_int (b[7], 0x34);
  fail_unless_equals_int (sci_j2kscl_hdr_read (b, 8, &r), 0);
  fail_unless (memcmp (&h, &r, sizeof h) == 0);
  fail_unless_equals_int (sci_j2kscl_hdr_read (b, 7, &r), -1);

  /* every field's range survives */
  for (guint i = 0; i < 2000; i++) {
    memset (&h, 0, sizeof h);
    h.mh = g_random_int_range (0, 4);
    h.tp = g_random_int_range (0, 8);
    h.ptstamp = g_random_int_range (0, 4096);
    h.eseq = g_random_int_range (0, 256);
    if (h.mh) {
      h.ordh = g_random_int_range (0, 8);
      h.p = g_random_int_range (0, 2);
      h.xtrac = g_random_int_range (0, 8);
      h.r = g_random_int_range (0, 2);
      h.s = g_random_int_range (0, 2);
      h.c = g_random_int_range (0, 2);
      h.range = g_random_int_range (0, 2);
      h.prims = g_random_int_range (0, 256);
      h.trans = g_random_int_range (0, 256);
      h.mat = g_random_int_range (0, 256);
    } else {
      h.res = g_random_int_range (0, 8);
      h.ordb = g_random_int_range (0, 2);
      h.qual = g_random_int_range (0, 8);
      h.pos = g_random_int_range (0, 4096);
      h.pid = g_random_int_range (0, 1 << 20);
    }
    sci_j2kscl_hdr_write (&h, b);
    sci_j2kscl_hdr_read (b, 8, &r);
    fail_unless (memcmp (&h, &r, sizeof h) == 0, "fields of case %u", i);
  }
}

GST_END_TEST;

/* n frames of `format` (w x h, 25/1, bt709 for YUV) coded by `enc`. */
static GList *
code_frames (const gchar * enc, const gchar * format, gint w, gint h,
    guint n, GstCaps ** coded_caps)
{
  GstVideoInfo info;
  GstCaps *caps;
  GList *out = NULL;

  gst_video_info_set_format (&info, gst_video_format_from_string (format), w,
      h);
  info.fps_n = 25;
  info.fps_d = 1;
  caps = gst_video_info_to_caps (&info);
  for (guint i = 0; i < n; i++) {
    GstBuffer *in = j2kutil_random_frame (&info, 100 + i);
    GstBuffer *c = j2kutil_encode (enc, in, caps, i ? NULL : coded_caps);
    GST_BUFFER_PTS (c) = i * GST_SECOND / 25;
    out = g_list_append (out, c);
    gst_buffer_unref (in);
  }
  gst_caps_unref (caps);
  return out;
}

/* The RTP packets `pay` makes of the frames. */
static GPtrArray *
payload (const gchar * pay, GList * frames, GstCaps * coded_caps)
{
  GstHarness *h = gst_harness_new_parse (pay);
  GPtrArray *pk = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstBuffer *b;

  gst_harness_set_src_caps (h, gst_caps_ref (coded_caps));
  for (GList * l = frames; l; l = l->next)
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (l->data)),
        GST_FLOW_OK);
  while ((b = gst_harness_try_pull (h)))
    g_ptr_array_add (pk, b);
  gst_harness_teardown (h);
  return pk;
}

/* The packets, in the order and number `order` gives (indices into pk;
 * NULL: as they are), through rtpj2kscldepay: its frames, its last caps,
 * and what it posted. */
static GList *
depayload (GPtrArray * pk, GArray * order, GstCaps ** caps, J2kPosted * p)
{
  GstHarness *h = gst_harness_new ("rtpj2kscldepay");
  GstBus *bus = gst_bus_new ();
  GList *out = NULL;
  GstBuffer *b;
  guint n = order ? order->len : pk->len;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, RTP_CAPS);
  for (guint i = 0; i < n; i++) {
    guint k = order ? g_array_index (order, guint, i) : i;
    fail_unless_equals_int (gst_harness_push (h,
            gst_buffer_ref (g_ptr_array_index (pk, k))), GST_FLOW_OK);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  while ((b = gst_harness_try_pull (h)))
    out = g_list_append (out, b);
  if (caps)
    *caps = gst_pad_get_current_caps (h->sinkpad);
  memset (p, 0, sizeof *p);
  j2kutil_collect (bus, p);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return out;
}

static void
assert_same_frames (GList * a, GList * b, const gchar * what)
{
  fail_unless_equals_int (g_list_length (a), g_list_length (b));
  for (; a && b; a = a->next, b = b->next)
    j2kutil_assert_same_bytes (a->data, b->data, what);
}

static guint32
ext_seq (GstBuffer * b)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  sci_j2kscl_hdr hdr;
  guint32 s;

  gst_rtp_buffer_map (b, GST_MAP_READ, &rtp);
  sci_j2kscl_hdr_read (gst_rtp_buffer_get_payload (&rtp),
      gst_rtp_buffer_get_payload_len (&rtp), &hdr);
  s = hdr.eseq << 16 | gst_rtp_buffer_get_seq (&rtp);
  gst_rtp_buffer_unmap (&rtp);
  return s;
}

static gboolean
marked (GstBuffer * b)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  gboolean m;

  gst_rtp_buffer_map (b, GST_MAP_READ, &rtp);
  m = gst_rtp_buffer_get_marker (&rtp);
  gst_rtp_buffer_unmap (&rtp);
  return m;
}

/* The rules on the payload header's fields that OpenHTJ2K's RFC 9828
 * receiver (open_htj2k_rtp_recv) enforces, packet by packet: no XTRAB
 * (XTRAC 0), the reserved bits of a main packet zero, no colour codes
 * without S, code-block caching (C) only with R, POS and PID zero without
 * ORDB.  And the order of a frame's packets: main packets (MH 1 ... 1 2,
 * or one MH 3) before its body packets.  *state: 0 before a frame's
 * first packet, 1 inside its main header, 2 in its body. */
static void
assert_header_rules (GstBuffer * b, gint * state)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  sci_j2kscl_hdr hdr;
  const guint8 *p;

  gst_rtp_buffer_map (b, GST_MAP_READ, &rtp);
  p = gst_rtp_buffer_get_payload (&rtp);
  fail_unless_equals_int (sci_j2kscl_hdr_read (p,
          gst_rtp_buffer_get_payload_len (&rtp), &hdr), 0);
  if (hdr.mh != SCI_J2KSCL_BODY) {
    fail_unless (*state != 2, "a main packet inside a frame's body");
    fail_unless_equals_int (hdr.xtrac, 0);
    fail_unless_equals_int (p[4] & 0x1E, 0);
    if (!hdr.s)
      fail_unless (hdr.prims == 0 && hdr.trans == 0 && hdr.mat == 0
          && hdr.range == 0);
    fail_unless (!hdr.c || hdr.r);
    *state = hdr.mh == SCI_J2KSCL_MAIN_MORE ? 1 : 2;
  } else {
    fail_unless (*state == 2, "a body packet before its main header ended");
    if (!hdr.ordb)
      fail_unless (hdr.pos == 0 && hdr.pid == 0);
  }
  if (gst_rtp_buffer_get_marker (&rtp))
    *state = 0;
  gst_rtp_buffer_unmap (&rtp);
}

/* Our encoders' frames through the payloader and depayloader at several
 * MTUs, byte for byte: at 60 and 200 bytes a frame takes more packets than
 * a buffer holds memories, which the depayloader copies as they come; at
 * 60000 its few payloads leave as they are. */
GST_START_TEST (test_round_trips)
{
  static const struct
  {
    const gchar *enc, *format;
    gint w, h;
  } cases[] = {
    {"htj2kenc", "I420", 64, 48},
    {"htj2kenc", "Y444_12LE", 97, 41},
    {"ebcotcm layers=3", "GRAY16_LE", 33, 70},
  };
  static const guint mtus[] = { 60, 200, 1400, 60000 };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    GstCaps *coded_caps = NULL, *caps = NULL;
    GList *frames = code_frames (cases[c].enc, cases[c].format, cases[c].w,
        cases[c].h, 3, &coded_caps);

    for (guint m = 0; m < G_N_ELEMENTS (mtus); m++) {
      gchar *pay = g_strdup_printf ("rtpj2ksclpay mtu=%u", mtus[m]);
      GPtrArray *pk = payload (pay, frames, coded_caps);
      J2kPosted p;
      GList *out = depayload (pk, NULL, &caps, &p);
      guint marks = 0;
      gint state = 0;

      for (guint i = 0; i < pk->len; i++) {
        assert_header_rules (g_ptr_array_index (pk, i), &state);
        marks += marked (g_ptr_array_index (pk, i));
        fail_unless (gst_buffer_get_size (g_ptr_array_index (pk, i)) <=
            mtus[m]);
      }
      fail_unless_equals_int (marks, 3);
      fail_unless (marked (g_ptr_array_index (pk, pk->len - 1)));
      assert_same_frames (frames, out, pay);
      fail_unless_equals_int (p.warnings + p.errors, 0);
      if (!g_str_equal (cases[c].format, "GRAY16_LE")) {
        GstStructure *s = gst_caps_get_structure (caps, 0);
        fail_unless_equals_string (gst_structure_get_string (s,
                "colorspace"), "sYUV");
        fail_unless (gst_structure_get_string (s, "colorimetry") != NULL);
      }
      for (GList * l = out; l; l = l->next)
        fail_if (GST_BUFFER_FLAG_IS_SET (l->data, GST_BUFFER_FLAG_CORRUPTED));
      g_list_free_full (out, (GDestroyNotify) gst_buffer_unref);
      j2kutil_posted_clear (&p);
      gst_caps_unref (caps);
      g_ptr_array_unref (pk);
      g_free (pay);
    }
    g_list_free_full (frames, (GDestroyNotify) gst_buffer_unref);
    gst_caps_unref (coded_caps);
  }
}

GST_END_TEST;

/* Sequence numbers from 65530 on: ESEQ carries the wrap, so the 24-bit
 * numbers of successive packets follow each other. */
GST_START_TEST (test_sequence_wrap)
{
  GstCaps *coded_caps = NULL;
  GList *frames = code_frames ("htj2kenc", "I420", 64, 48, 4, &coded_caps);
  GPtrArray *pk = payload ("rtpj2ksclpay mtu=100 seqnum-offset=65530",
      frames, coded_caps);
  J2kPosted p;
  GList *out;

  fail_unless (pk->len > 10);
  fail_unless_equals_int (ext_seq (g_ptr_array_index (pk, 0)), 65530);
  for (guint i = 1; i < pk->len; i++)
    fail_unless_equals_int (ext_seq (g_ptr_array_index (pk, i)),
        ext_seq (g_ptr_array_index (pk, i - 1)) + 1);
  out = depayload (pk, NULL, NULL, &p);
  assert_same_frames (frames, out, "across the wrap");
  j2kutil_posted_clear (&p);
  g_list_free_full (out, (GDestroyNotify) gst_buffer_unref);
  g_ptr_array_unref (pk);
  g_list_free_full (frames, (GDestroyNotify) gst_buffer_unref);
  gst_caps_unref (coded_caps);
}

GST_END_TEST;

/* The indices of each frame's packets (frames end at marked packets). */
static GArray *
frame_starts (GPtrArray * pk)
{
  GArray *s = g_array_new (FALSE, FALSE, sizeof (guint));
  guint z = 0;

  g_array_append_val (s, z);
  for (guint i = 0; i < pk->len; i++)
    if (marked (g_ptr_array_index (pk, i))) {
      guint n = i + 1;
      g_array_append_val (s, n);
    }
  return s;
}

/* The packets in `order` through appsrc, rtpjitterbuffer (which puts
 * packets back in order and drops duplicates for every GStreamer
 * depayloader) and rtpj2kscldepay. */
static GList *
depayload_jitterbuffer (GPtrArray * pk, GArray * order)
{
  GstElement *pipe = gst_parse_launch ("appsrc name=src is-live=true "
      "do-timestamp=true format=time caps=\"" RTP_CAPS "\" ! "
      "rtpjitterbuffer latency=500 ! rtpj2kscldepay ! "
      "appsink name=sink sync=false", NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GList *out = NULL;
  GstSample *smp;

  fail_if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  for (guint i = 0; i < order->len; i++) {
    GstBuffer *b = gst_buffer_copy (g_ptr_array_index (pk,
            g_array_index (order, guint, i)));
    GST_BUFFER_PTS (b) = GST_BUFFER_DTS (b) = GST_CLOCK_TIME_NONE;
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), b),
        GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  while ((smp = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              10 * GST_SECOND))) {
    out = g_list_append (out, gst_buffer_ref (gst_sample_get_buffer (smp)));
    gst_sample_unref (smp);
  }
  fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)));
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return out;
}

GST_START_TEST (test_reorder_and_duplicates)
{
  GstCaps *coded_caps = NULL;
  GList *frames = code_frames ("htj2kenc", "Y444", 80, 60, 3, &coded_caps);
  GPtrArray *pk = payload ("rtpj2ksclpay mtu=150", frames, coded_caps);
  GArray *order = g_array_new (FALSE, FALSE, sizeof (guint));
  GList *out;

  /* pairs swapped after the first packet (rtpjitterbuffer takes the
   * first to arrive as the start), and every third packet twice */
  for (guint i = 0; i < pk->len; i++) {
    guint k = i ? ((i - 1) ^ 1) + 1 : 0;
    if (k >= pk->len)
      k = i;
    g_array_append_val (order, k);
    if (i % 3 == 0)
      g_array_append_val (order, k);
  }
  out = depayload_jitterbuffer (pk, order);
  assert_same_frames (frames, out, "reordered");
  g_list_free_full (out, (GDestroyNotify) gst_buffer_unref);
  g_array_unref (order);
  g_ptr_array_unref (pk);
  g_list_free_full (frames, (GDestroyNotify) gst_buffer_unref);
  gst_caps_unref (coded_caps);
}

GST_END_TEST;

/* Every packet but those `skip` says no to. */
static GArray *
all_but (GPtrArray * pk, gboolean (*skip) (guint i, gpointer), gpointer d)
{
  GArray *o = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < pk->len; i++)
    if (!skip (i, d))
      g_array_append_val (o, i);
  return o;
}

static gboolean
skip_one (guint i, gpointer d)
{
  return i == GPOINTER_TO_UINT (d);
}

/* The first main packet of frame 1 lost: frame 1 is dropped with a
 * warning, the others arrive exact. */
GST_START_TEST (test_lost_main_header)
{
  GstCaps *coded_caps = NULL;
  GList *frames = code_frames ("htj2kenc", "I420", 64, 48, 3, &coded_caps);
  GPtrArray *pk = payload ("rtpj2ksclpay mtu=60", frames, coded_caps);
  GArray *st = frame_starts (pk);
  GArray *order = all_but (pk, skip_one,
      GUINT_TO_POINTER (g_array_index (st, guint, 1)));
  J2kPosted p;
  GList *out = depayload (pk, order, NULL, &p);

  fail_unless_equals_int (g_list_length (out), 2);
  j2kutil_assert_same_bytes (out->data, frames->data, "frame 0");
  j2kutil_assert_same_bytes (out->next->data, frames->next->next->data,
      "frame 2");
  fail_unless_equals_int (p.warnings, 1);
  fail_unless (strstr (p.warning, "lost in transit") != NULL, "%s", p.warning);
  j2kutil_posted_clear (&p);
  g_list_free_full (out, (GDestroyNotify) gst_buffer_unref);
  g_array_unref (order);
  g_array_unref (st);
  g_ptr_array_unref (pk);
  g_list_free_full (frames, (GDestroyNotify) gst_buffer_unref);
  gst_caps_unref (coded_caps);
}

GST_END_TEST;

/* How a damaged frame decodes: every component through sci_j2k_dec. */
static void
decode (GstBuffer * b, j2kt_image * im, unsigned *warnings)
{
  GstMapInfo map;
  char err[256];

  gst_buffer_map (b, &map, GST_MAP_READ);
  fail_unless_equals_int (j2kt_decode_ours (map.data, map.size, 0, 0, im,
          warnings, err, sizeof err), 0);
  gst_buffer_unmap (b, &map);
}

/* Frame 1 of 3 loses the body packet at `at` (of its packets) of
 * 3-component frames coded by `enc`: frames 0 and 2 arrive exact, frame
 * 1 flagged, with a warning containing `says`, decodable; returns how
 * many components of frame 1 decode exactly as sent. */
static guint
lose_body_packet (const gchar * enc, guint at, gboolean last,
    const gchar * says)
{
  GstCaps *coded_caps = NULL;
  GList *frames = code_frames (enc, "Y444", 96, 80, 3, &coded_caps);
  GPtrArray *pk = payload ("rtpj2ksclpay mtu=300", frames, coded_caps);
  GArray *st = frame_starts (pk);
  guint a = g_array_index (st, guint, 1), b = g_array_index (st, guint, 2);
  guint lost = last ? b - 1 : a + at;
  GArray *order = all_but (pk, skip_one, GUINT_TO_POINTER (lost));
  J2kPosted p;
  GList *out = depayload (pk, order, NULL, &p);
  j2kt_image sent, got;
  unsigned warnings;
  guint exact = 0;

  fail_unless (lost < b - 1 || last, "frame 1 has only %u packets", b - a);
  fail_unless_equals_int (g_list_length (out), 3);
  j2kutil_assert_same_bytes (out->data, frames->data, "frame 0");
  j2kutil_assert_same_bytes (out->next->next->data, frames->next->next->data,
      "frame 2");
  fail_unless (GST_BUFFER_FLAG_IS_SET (out->next->data,
          GST_BUFFER_FLAG_CORRUPTED));
  fail_unless_equals_int (p.warnings, 1);
  fail_unless (strstr (p.warning, says) != NULL, "%s", p.warning);
  decode (frames->next->data, &sent, &warnings);
  decode (out->next->data, &got, &warnings);
  fail_unless_equals_int (got.nc, 3);
  for (guint c = 0; c < 3; c++)
    exact += memcmp (sent.s[c], got.s[c],
        (gsize) sent.w[c] * sent.h[c] * sizeof (gint32)) == 0;
  j2kt_image_free (&sent);
  j2kt_image_free (&got);
  j2kutil_posted_clear (&p);
  g_list_free_full (out, (GDestroyNotify) gst_buffer_unref);
  g_array_unref (order);
  g_array_unref (st);
  g_ptr_array_unref (pk);
  g_list_free_full (frames, (GDestroyNotify) gst_buffer_unref);
  gst_caps_unref (coded_caps);
  return exact;
}

/* With PLT and one layer, a lost body packet empties only the J2K
 * packets it held: with CPRL order (a component's packets together), a
 * loss inside component 0's highest resolution leaves components 1 and 2
 * exact. */
GST_START_TEST (test_lost_body_repaired)
{
  guint exact = lose_body_packet ("htj2kenc plt=true progression=cprl", 6,
      FALSE, "repaired");
  fail_unless (exact >= 2, "%u components exact", exact);
}

GST_END_TEST;

/* Without PLT the frame ends at the loss and still decodes. */
GST_START_TEST (test_lost_body_cut_short)
{
  lose_body_packet ("htj2kenc progression=cprl", 6, FALSE, "cut short");
}

GST_END_TEST;

/* The marked packet lost: the frame leaves when the next one begins,
 * repaired from its PLT. */
GST_START_TEST (test_lost_last_packet)
{
  guint exact = lose_body_packet ("htj2kenc plt=true progression=cprl", 0,
      TRUE, "repaired");
  fail_unless (exact >= 2, "%u components exact", exact);
}

GST_END_TEST;

/* A datagram of another sender (tests/rtp/data/README.md: OpenHTJ2K's
 * helper, a whole codestream in the frame's only main packet, MH 3, with
 * ORDH 4, which our payloader never writes): the codestream comes out
 * whole, with nothing posted. */
GST_START_TEST (test_other_sender)
{
  gchar *path = g_build_filename (g_getenv ("SCI_RTP_DATA"),
      "openhtj2k-loopback-main.rtp", NULL);
  gchar *data;
  gsize len;
  GPtrArray *pk = g_ptr_array_new_with_free_func (
      (GDestroyNotify) gst_buffer_unref);
  GstBuffer *cs;
  GList *out;
  J2kPosted p;

  fail_unless (g_file_get_contents (path, &data, &len, NULL), "%s", path);
  fail_unless (len > 20 && (guint8) data[12] == 0xC4, "%s: not MH 3, ORDH 4",
      path);
  g_ptr_array_add (pk, gst_buffer_new_memdup (data, len));
  out = depayload (pk, NULL, NULL, &p);
  fail_unless_equals_int (g_list_length (out), 1);
  cs = gst_buffer_new_memdup (data + 20, len - 20);
  j2kutil_assert_same_bytes (out->data, cs, "the other sender's frame");
  fail_unless_equals_int (p.warnings + p.errors, 0);
  j2kutil_posted_clear (&p);
  gst_buffer_unref (cs);
  g_list_free_full (out, (GDestroyNotify) gst_buffer_unref);
  g_ptr_array_unref (pk);
  g_free (data);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_bad_input)
{
  GstHarness *h = gst_harness_new ("rtpj2ksclpay");
  GstBuffer *b = gst_buffer_new_allocate (NULL, 100, NULL);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  gst_buffer_memset (b, 0, 0x42, 100);
  gst_harness_set_src_caps_str (h, "image/x-jpc");
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_ERROR);
  gst_harness_teardown (h);

  /* a payload shorter than its header, and one of garbage */
  h = gst_harness_new ("rtpj2kscldepay");
  gst_harness_set_src_caps_str (h, RTP_CAPS);
  for (guint len = 0; len < 40; len += 5) {
    b = gst_rtp_buffer_new_allocate (len, 0, 0);
    gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
    gst_rtp_buffer_set_seq (&rtp, len);
    gst_rtp_buffer_set_timestamp (&rtp, len * 100);
    gst_rtp_buffer_set_marker (&rtp, TRUE);
    gst_rtp_buffer_set_payload_type (&rtp, 96);
    memset (gst_rtp_buffer_get_payload (&rtp), 0xFF, len);
    gst_rtp_buffer_unmap (&rtp);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  fail_unless (gst_harness_try_pull (h) == NULL);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
rtpj2kscl_suite (void)
{
  Suite *s = suite_create ("scicodec-rtpj2kscl");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_header_layout);
  tcase_add_test (tc, test_round_trips);
  tcase_add_test (tc, test_sequence_wrap);
  tcase_add_test (tc, test_reorder_and_duplicates);
  tcase_add_test (tc, test_lost_main_header);
  tcase_add_test (tc, test_lost_body_repaired);
  tcase_add_test (tc, test_lost_body_cut_short);
  tcase_add_test (tc, test_lost_last_packet);
  tcase_add_test (tc, test_other_sender);
  tcase_add_test (tc, test_bad_input);
  return s;
}

GST_CHECK_MAIN (rtpj2kscl);
