/*
 * rtpj2ksclpay: JPEG 2000 codestreams into RTP packets with the payload
 * format of RFC 9828 (video/jpeg2000-scl, "sub-codestream latency").
 *
 * A codestream's main header (SOC up to the first SOT) goes into main
 * packets, the rest (tile-parts) into body packets, each filled up to the
 * MTU; the last packet of a codestream has the RTP marker bit.  Every
 * body packet but the last of a frame carries the same number of bytes,
 * so that rtpj2kscldepay can place what follows a lost packet; with PLT
 * marker segments in the codestream (`htj2kenc plt=true`) it then repairs
 * the frame at J2K packet boundaries.
 *
 * Header fields: MH 1 (main, more main packets follow), 2 (the main
 * header's last packet) or 0 (body); TP 0 (progressive frames); ESEQ the
 * high byte of a 24-bit sequence number; R when the main header is the
 * previous frame's; S, PRIMS, TRANS, MAT and RANGE from the sink caps'
 * colorimetry (H.273 codes).  No ordering is promised (ORDH and ORDB 0),
 * so RES, QUAL, POS and PID are 0, and PTSTAMP is unused (P 0).
 *
 * Latency: packets leave as soon as the encoder hands over the frame's
 * codestream (our encoders hand over whole frames); see
 * docs/streaming.md.
 *
 *   gst-launch-1.0 videotestsrc num-buffers=100 ! htj2kenc plt=true !
 *     rtpj2ksclpay ! udpsink host=127.0.0.1 port=5004
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/rtp/gstrtpbuffer.h>
#include <gst/video/video.h>

#include "codec/rtp/j2kscl.h"
#include "gstrtpj2ksclpay.h"

GST_DEBUG_CATEGORY_STATIC (gst_rtp_j2k_scl_pay_debug);
#define GST_CAT_DEFAULT gst_rtp_j2k_scl_pay_debug

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("image/x-jpc"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("application/x-rtp, media = (string) video, "
        "payload = (int) " GST_RTP_PAYLOAD_DYNAMIC_STRING ", "
        "clock-rate = (int) 90000, "
        "encoding-name = (string) \"JPEG2000-SCL\""));

G_DEFINE_TYPE (GstRtpJ2kSclPay, gst_rtp_j2k_scl_pay, GST_TYPE_RTP_BASE_PAYLOAD);
GST_ELEMENT_REGISTER_DEFINE (rtpj2ksclpay, "rtpj2ksclpay", GST_RANK_SECONDARY,
    GST_TYPE_RTP_J2K_SCL_PAY);

static gboolean
gst_rtp_j2k_scl_pay_set_caps (GstRTPBasePayload * base, GstCaps * caps)
{
  GstRtpJ2kSclPay *self = GST_RTP_J2K_SCL_PAY (base);
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  const gchar *c = gst_structure_get_string (s, "colorimetry");
  GstVideoColorimetry cm;

  self->colour = c && gst_video_colorimetry_from_string (&cm, c);
  if (self->colour) {
    self->prims = gst_video_color_primaries_to_iso (cm.primaries);
    self->trans = gst_video_transfer_function_to_iso (cm.transfer);
    self->mat = gst_video_color_matrix_to_iso (cm.matrix);
    self->range = cm.range == GST_VIDEO_COLOR_RANGE_0_255;
  }
  gst_rtp_base_payload_set_options (base, "video", TRUE, "JPEG2000-SCL", 90000);
  return gst_rtp_base_payload_set_outcaps (base, NULL);
}

/* One packet: the payload header, then bytes [off, off + n) of the
 * codestream, shared with the input buffer. */
static GstBuffer *
make_packet (GstRtpJ2kSclPay * self, GstBuffer * frame,
    const sci_j2kscl_hdr * h, gsize off, gsize n, gboolean last)
{
  GstBuffer *out = gst_rtp_base_payload_allocate_output_buffer
      (GST_RTP_BASE_PAYLOAD (self), SCI_J2KSCL_HDR_LEN, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  gst_rtp_buffer_map (out, GST_MAP_WRITE, &rtp);
  sci_j2kscl_hdr_write (h, gst_rtp_buffer_get_payload (&rtp));
  gst_rtp_buffer_set_marker (&rtp, last);
  gst_rtp_buffer_unmap (&rtp);
  out = gst_buffer_append (out, gst_buffer_copy_region (frame,
          GST_BUFFER_COPY_MEMORY, off, n));
  GST_BUFFER_PTS (out) = GST_BUFFER_PTS (frame);
  GST_BUFFER_DTS (out) = GST_BUFFER_DTS (frame);
  return out;
}

static GstFlowReturn
gst_rtp_j2k_scl_pay_handle_buffer (GstRTPBasePayload * base, GstBuffer * buffer)
{
  GstRtpJ2kSclPay *self = GST_RTP_J2K_SCL_PAY (base);
  GstMapInfo map;
  guint room = gst_rtp_buffer_calc_payload_len (GST_RTP_BASE_PAYLOAD_MTU (base),
      0, 0);
  gsize mhl;
  gboolean reuse;
  GstBufferList *list;
  sci_j2kscl_hdr h;

  if (room <= SCI_J2KSCL_HDR_LEN) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("The MTU (%u bytes) leaves no room for JPEG 2000 data",
            GST_RTP_BASE_PAYLOAD_MTU (base)), (NULL));
    gst_buffer_unref (buffer);
    return GST_FLOW_ERROR;
  }
  room -= SCI_J2KSCL_HDR_LEN;
  if (!gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    gst_buffer_unref (buffer);
    return GST_FLOW_ERROR;
  }
  mhl = sci_j2kscl_main_header_len (map.data, map.size);
  if (!mhl) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Not a JPEG 2000 codestream"),
        ("frame %" G_GUINT64_FORMAT " (%" G_GSIZE_FORMAT " bytes): no SOC, or "
            "no SOT after a well-formed main header", self->frames, map.size));
    gst_buffer_unmap (buffer, &map);
    gst_buffer_unref (buffer);
    return GST_FLOW_ERROR;
  }
  reuse = self->last_main && g_bytes_get_size (self->last_main) == mhl &&
      memcmp (g_bytes_get_data (self->last_main, NULL), map.data, mhl) == 0;
  if (!reuse) {
    if (self->last_main)
      g_bytes_unref (self->last_main);
    self->last_main = g_bytes_new (map.data, mhl);
  }
  gst_buffer_unmap (buffer, &map);

  if (!self->started) {
    guint seq;
    /* before the first packet, the base class's seqnum is the first one */
    g_object_get (self, "seqnum", &seq, NULL);
    self->next_seq = seq;
    self->started = TRUE;
  }

  list = gst_buffer_list_new_sized ((map.size + room - 1) / room + 1);
  memset (&h, 0, sizeof h);
  h.r = reuse;
  h.s = self->colour;
  h.prims = self->colour ? self->prims : 0;
  h.trans = self->colour ? self->trans : 0;
  h.mat = self->colour ? self->mat : 0;
  h.range = self->colour && self->range;
  for (gsize off = 0; off < map.size;) {
    gboolean main_part = off < mhl;
    gsize end = main_part ? mhl : map.size;
    gsize n = MIN (room, end - off);

    h.mh = !main_part ? SCI_J2KSCL_BODY : off + n < mhl ?
        SCI_J2KSCL_MAIN_MORE : SCI_J2KSCL_MAIN_LAST;
    h.eseq = self->next_seq >> 16 & 0xFF;
    gst_buffer_list_add (list, make_packet (self, buffer, &h, off, n,
            off + n == map.size));
    self->next_seq++;
    off += n;
  }
  self->frames++;
  gst_buffer_unref (buffer);
  return gst_rtp_base_payload_push_list (base, list);
}

static GstStateChangeReturn
gst_rtp_j2k_scl_pay_change_state (GstElement * element,
    GstStateChange transition)
{
  GstRtpJ2kSclPay *self = GST_RTP_J2K_SCL_PAY (element);

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    self->started = FALSE;
    self->frames = 0;
    g_clear_pointer (&self->last_main, g_bytes_unref);
  }
  return GST_ELEMENT_CLASS (gst_rtp_j2k_scl_pay_parent_class)->change_state
      (element, transition);
}

static void
gst_rtp_j2k_scl_pay_finalize (GObject * object)
{
  GstRtpJ2kSclPay *self = GST_RTP_J2K_SCL_PAY (object);

  g_clear_pointer (&self->last_main, g_bytes_unref);
  G_OBJECT_CLASS (gst_rtp_j2k_scl_pay_parent_class)->finalize (object);
}

static void
gst_rtp_j2k_scl_pay_class_init (GstRtpJ2kSclPayClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstRTPBasePayloadClass *pay_class = GST_RTP_BASE_PAYLOAD_CLASS (klass);

  gobject_class->finalize = gst_rtp_j2k_scl_pay_finalize;
  element_class->change_state = gst_rtp_j2k_scl_pay_change_state;
  pay_class->set_caps = gst_rtp_j2k_scl_pay_set_caps;
  pay_class->handle_buffer = gst_rtp_j2k_scl_pay_handle_buffer;

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "RTP JPEG 2000 sub-codestream latency payloader",
      "Codec/Payloader/Network/RTP",
      "Payloads JPEG 2000 codestreams into RTP packets (RFC 9828, "
      "video/jpeg2000-scl): main header and body packets, marker bit on "
      "a codestream's last packet", SCI_ELEMENT_AUTHOR);
  GST_DEBUG_CATEGORY_INIT (gst_rtp_j2k_scl_pay_debug, "rtpj2ksclpay", 0,
      "RFC 9828 JPEG 2000 RTP payloader");
}

static void
gst_rtp_j2k_scl_pay_init (GstRtpJ2kSclPay * self)
{
}
