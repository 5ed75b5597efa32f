/*
 * rtpj2kscldepay: JPEG 2000 codestreams out of RTP packets with the
 * payload format of RFC 9828 (video/jpeg2000-scl), one frame a buffer
 * (`image/x-jpc, alignment=frame`), for j2kdec.
 *
 * A frame is the packets of one RTP timestamp, in the order of their
 * 24-bit sequence numbers (ESEQ and the RTP one): as GStreamer's other
 * depayloaders, it takes packets in order and drops late ones, so a
 * network that reorders needs rtpjitterbuffer in front.  A frame is
 * pushed at its marker bit, or when a packet of another timestamp shows
 * that its end was lost.
 *
 * Loss: a frame whose main header is incomplete is dropped.  A frame
 * whose body lost packets is repaired when the sender filled every body
 * packet but the last alike (rtpj2ksclpay does): the J2K packets that lost
 * bytes become empty packets when the codestream lists its packet
 * lengths (PLT) and has one quality layer, so that the loss costs only
 * their precincts; otherwise the codestream ends before the first loss
 * and j2kdec decodes what precedes it.  Either way a warning says what
 * was lost, and the buffer has the CORRUPTED flag.
 *
 * S, PRIMS, TRANS, MAT and RANGE of the main packets give the caps'
 * colorimetry and colorspace (sRGB for the identity matrix, else sYUV).
 *
 *   gst-launch-1.0 udpsrc port=5004 caps="application/x-rtp, media=video,
 *     clock-rate=90000, encoding-name=JPEG2000-SCL" ! rtpj2kscldepay !
 *     j2kdec ! videoconvert ! autovideosink
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/rtp/gstrtpbuffer.h>
#include <gst/video/video.h>

#include "codec/rtp/j2kscl.h"
#include "gstrtpj2kscldepay.h"

GST_DEBUG_CATEGORY_STATIC (gst_rtp_j2k_scl_depay_debug);
#define GST_CAT_DEFAULT gst_rtp_j2k_scl_depay_debug

/* a frame larger than this is a broken stream, not a picture */
#define MAX_FRAME_BYTES ((gsize) 1 << 30)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("application/x-rtp, media = (string) video, "
        "clock-rate = (int) [ 1, MAX ], "
        "encoding-name = (string) \"JPEG2000-SCL\""));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("image/x-jpc, alignment = (string) frame"));

G_DEFINE_TYPE (GstRtpJ2kSclDepay, gst_rtp_j2k_scl_depay,
    GST_TYPE_RTP_BASE_DEPAYLOAD);
GST_ELEMENT_REGISTER_DEFINE (rtpj2kscldepay, "rtpj2kscldepay",
    GST_RANK_SECONDARY, GST_TYPE_RTP_J2K_SCL_DEPAY);

typedef struct
{
  guint32 seq;                  /* 24-bit: ESEQ, then the RTP one */
  guint mh;
  gboolean marker;
  sci_j2kscl_hdr hdr;
  GstBuffer *data;              /* the payload after its header */
} Piece;

static void
clear_piece (gpointer p)
{
  gst_clear_buffer (&((Piece *) p)->data);
}

/* sequence numbers relative to a frame's first, wrapping at 2^24 */
static gint32
seq_diff (guint32 a, guint32 b)
{
  return (gint32) ((a - b + 0x800000u) & 0xFFFFFFu) - 0x800000;
}

static void
reset_frame (GstRtpJ2kSclDepay * self)
{
  if (self->whole)
    g_byte_array_free (self->whole, TRUE);
  self->whole = NULL;
  self->gathered = 0;
  g_array_set_size (self->pieces, 0);
  self->bytes = 0;
  self->open = FALSE;
}

static gboolean
gst_rtp_j2k_scl_depay_set_caps (GstRTPBaseDepayload * base, GstCaps * caps)
{
  GstRtpJ2kSclDepay *self = GST_RTP_J2K_SCL_DEPAY (base);
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  gint rate = 90000;
  GstCaps *out;
  gboolean ok;

  gst_structure_get_int (s, "clock-rate", &rate);
  base->clock_rate = rate;
  out = gst_caps_new_simple ("image/x-jpc", "alignment", G_TYPE_STRING,
      "frame", NULL);
  ok = gst_pad_set_caps (GST_RTP_BASE_DEPAYLOAD_SRCPAD (base), out);
  gst_caps_replace (&self->caps, out);
  gst_caps_unref (out);
  return ok;
}

/* The caps of a frame whose main packet says its colour (S). */
static void
update_caps (GstRtpJ2kSclDepay * self, const sci_j2kscl_hdr * h)
{
  GstVideoColorimetry cm;
  GstCaps *caps;
  gchar *c;

  if (!h->s)
    return;
  cm.primaries = gst_video_color_primaries_from_iso (h->prims);
  cm.transfer = gst_video_transfer_function_from_iso (h->trans);
  cm.matrix = gst_video_color_matrix_from_iso (h->mat);
  cm.range = h->range ? GST_VIDEO_COLOR_RANGE_0_255 :
      GST_VIDEO_COLOR_RANGE_16_235;
  c = gst_video_colorimetry_to_string (&cm);
  caps = gst_caps_new_simple ("image/x-jpc", "alignment", G_TYPE_STRING,
      "frame", "colorspace", G_TYPE_STRING, h->mat == 0 ? "sRGB" : "sYUV",
      NULL);
  if (c)
    gst_caps_set_simple (caps, "colorimetry", G_TYPE_STRING, c, NULL);
  g_free (c);
  if (!self->caps || !gst_caps_is_equal (caps, self->caps)) {
    gst_pad_set_caps (GST_RTP_BASE_DEPAYLOAD_SRCPAD (self), caps);
    gst_caps_replace (&self->caps, caps);
  }
  gst_caps_unref (caps);
}

static void
push (GstRtpJ2kSclDepay * self, GstBuffer * out)
{
  GST_BUFFER_PTS (out) = self->pts;
  gst_rtp_base_depayload_push (GST_RTP_BASE_DEPAYLOAD (self), out);
}

static void
drop (GstRtpJ2kSclDepay * self, const gchar * why)
{
  self->dropped++;
  GST_ELEMENT_WARNING (self, STREAM, DECODE,
      ("A JPEG 2000 frame was lost in transit"),
      ("RTP timestamp %u: %s; %" G_GUINT64_FORMAT " frames dropped so far",
          self->ts, why, self->dropped));
}

/* The frame with holes where packets were lost: the main header, then
 * each body packet at (its sequence number - the first body packet's) x
 * the size that every body packet but the last shares.  Without such a
 * size, the frame ends at the first loss. */
static void
repair_and_push (GstRtpJ2kSclDepay * self, const Piece * pc, guint n,
    guint first_body, gsize mhl, gboolean complete)
{
  guint32 base_seq = pc[first_body - 1].seq + 1;
  gsize size = 0, len = mhl, *at = g_new (gsize, n);
  gboolean uniform = TRUE, tail_missing = !complete;
  GArray *holes = g_array_new (FALSE, FALSE, sizeof (sci_j2kscl_hole));
  guint8 *cs = NULL;
  gsize out_len = 0;
  sci_j2kscl_repair_info info;
  guint lost, placed = first_body;

  for (guint i = first_body; i < n; i++) {
    gsize s = gst_buffer_get_size (pc[i].data);
    if (pc[i].marker)
      uniform = uniform && (!size || s <= size);
    else if (!size)
      size = s;
    else if (s != size)
      uniform = FALSE;
  }
  uniform = uniform && size > 0;
  lost = n > first_body ?
      (guint) seq_diff (pc[n - 1].seq, base_seq) + 1 - (n - first_body) : 0;
  /* where the bytes that arrived go */
  for (guint i = first_body; i < n; i++) {
    gint32 k = seq_diff (pc[i].seq, base_seq);
    if (!uniform && k != (gint32) (i - first_body)) {
      tail_missing = TRUE;      /* the frame ends at the first loss */
      break;
    }
    at[i] = uniform ? mhl + (gsize) k *size : len;
    if (at[i] > len) {
      sci_j2kscl_hole h = { len, at[i] - len };
      g_array_append_val (holes, h);
    }
    len = at[i] + gst_buffer_get_size (pc[i].data);
    placed = i + 1;
  }
  if (len > MAX_FRAME_BYTES) {
    drop (self, "its packets place it beyond 1 GiB");
    goto done;
  }
  cs = g_malloc0 (len);
  for (guint i = 0, o = 0; i < first_body; i++) {
    gsize s = gst_buffer_get_size (pc[i].data);
    gst_buffer_extract (pc[i].data, 0, cs + o, s);
    o += s;
  }
  for (guint i = first_body; i < placed; i++)
    gst_buffer_extract (pc[i].data, 0, cs + at[i],
        gst_buffer_get_size (pc[i].data));
  out_len = sci_j2kscl_repair (cs, len, tail_missing,
      (const sci_j2kscl_hole *) holes->data, holes->len, NULL, 0, &info);
  if (out_len) {
    guint8 *o = g_malloc (out_len);
    out_len = sci_j2kscl_repair (cs, len, tail_missing,
        (const sci_j2kscl_hole *) holes->data, holes->len, o, out_len, &info);
    if (out_len) {
      GstBuffer *out = gst_buffer_new_wrapped (o, out_len);
      GST_BUFFER_FLAG_SET (out, GST_BUFFER_FLAG_CORRUPTED);
      if (info.truncated)
        GST_ELEMENT_WARNING (self, STREAM, DECODE,
            ("A JPEG 2000 frame lost packets in transit and was cut short"),
            ("RTP timestamp %u: %u packet(s) lost inside it%s; the "
                "codestream ends at "
                "byte %" G_GSIZE_FORMAT " (%u damaged J2K packet(s) emptied "
                "before; past it, no packet lengths (PLT) with one quality "
                "layer, or no known place for what followed the loss)",
                self->ts, lost, complete ? "" : ", and its last packet(s)",
                info.truncated_at, info.packets_emptied));
      else
        GST_ELEMENT_WARNING (self, STREAM, DECODE,
            ("A JPEG 2000 frame lost packets in transit and was repaired"),
            ("RTP timestamp %u: %u packet(s) lost inside it%s; %u J2K "
                "packet(s) emptied: their precincts decode as zero", self->ts,
                lost, complete ? "" : ", and its last packet(s)",
                info.packets_emptied));
      push (self, out);
    } else {
      g_free (o);
    }
  }
  if (!out_len)
    drop (self, "nothing decodable survived the loss");
done:
  g_free (cs);
  g_free (at);
  g_array_free (holes, TRUE);
}

/* A frame of more packets than a buffer holds memories leaves as one copy
 * of its payloads in arrival order (a buffer past that limit merges its
 * memories at every append: 30 to 40 ms for a 16 MB 4K frame in 280
 * packets).  Copying each packet as it comes, while the rest of the frame
 * is still on the wire, keeps the copy (2 to 3 ms of that frame) off the
 * way from the marker packet to the frame pushed.  If the frame turns out
 * to have lost packets, the copy is dropped and the pieces repaired. */
static void
gather (GstRtpJ2kSclDepay * self)
{
  Piece *pc = (Piece *) self->pieces->data;

  if (!self->whole)
    self->whole = g_byte_array_sized_new (MAX (self->bytes, self->whole_hint));
  for (; self->gathered < self->pieces->len; self->gathered++) {
    GstBuffer *data = pc[self->gathered].data;
    guint at = self->whole->len;
    gsize size = gst_buffer_get_size (data);

    g_byte_array_set_size (self->whole, at + size);
    gst_buffer_extract (data, 0, self->whole->data + at, size);
  }
}

/* The frame gathered so far; complete: its marker packet arrived. */
static void
finish_frame (GstRtpJ2kSclDepay * self, gboolean complete)
{
  Piece *pc = (Piece *) self->pieces->data;
  guint n = self->pieces->len, first_body = 0;
  gsize mhl = 0;
  gboolean gap = FALSE;
  guint8 soc[2] = { 0, 0 };

  self->have_last_ts = TRUE;
  self->last_ts = self->ts;
  /* the main header: main packets in a row, from SOC to MH 2 or 3 */
  while (first_body < n && pc[first_body].mh != SCI_J2KSCL_BODY) {
    if (first_body && pc[first_body].seq != pc[first_body - 1].seq + 1)
      break;
    mhl += gst_buffer_get_size (pc[first_body].data);
    first_body++;
    if (pc[first_body - 1].mh >= SCI_J2KSCL_MAIN_LAST)
      break;
  }
  if (first_body)
    gst_buffer_extract (pc[0].data, 0, soc, 2);
  if (!first_body || soc[0] != 0xFF || soc[1] != 0x4F ||
      pc[first_body - 1].mh < SCI_J2KSCL_MAIN_LAST) {
    drop (self, "its main header did not arrive whole");
    reset_frame (self);
    return;
  }
  for (guint i = first_body; i < n; i++)
    if (pc[i].mh != SCI_J2KSCL_BODY ||
        pc[i].seq != (i == first_body ? pc[first_body - 1].seq :
            pc[i - 1].seq) + 1)
      gap = TRUE;
  update_caps (self, &pc[first_body - 1].hdr);
  if (!gap && complete && n <= gst_buffer_get_max_memory ()) {
    /* the packets' payloads themselves */
    GstBuffer *out = gst_buffer_new ();
    for (guint i = 0; i < n; i++)
      out = gst_buffer_append (out, gst_buffer_ref (pc[i].data));
    push (self, out);
  } else if (!gap && complete) {
    gsize total;

    gather (self);
    total = self->whole->len;
    self->whole_hint = total;
    push (self, gst_buffer_new_wrapped (g_byte_array_free (self->whole, FALSE),
            total));
    self->whole = NULL;
  } else {
    repair_and_push (self, pc, n, first_body, mhl, complete);
  }
  reset_frame (self);
}

static GstBuffer *
gst_rtp_j2k_scl_depay_process (GstRTPBaseDepayload * base, GstRTPBuffer * rtp)
{
  GstRtpJ2kSclDepay *self = GST_RTP_J2K_SCL_DEPAY (base);
  guint len = gst_rtp_buffer_get_payload_len (rtp);
  guint32 ts = gst_rtp_buffer_get_timestamp (rtp);
  Piece pc;

  if (sci_j2kscl_hdr_read (gst_rtp_buffer_get_payload (rtp), len, &pc.hdr) < 0) {
    GST_WARNING_OBJECT (self, "a packet of %u bytes has no payload header",
        len);
    return NULL;
  }
  if (self->open && ts != self->ts)
    finish_frame (self, FALSE);
  if (!self->open) {
    if (self->have_last_ts && ts == self->last_ts) {
      GST_DEBUG_OBJECT (self, "a late packet of a frame already pushed");
      return NULL;
    }
    self->open = TRUE;
    self->ts = ts;
    self->pts = GST_BUFFER_PTS (rtp->buffer);
  }
  pc.seq = pc.hdr.eseq << 16 | gst_rtp_buffer_get_seq (rtp);
  pc.mh = pc.hdr.mh;
  pc.marker = gst_rtp_buffer_get_marker (rtp);
  pc.data = gst_rtp_buffer_get_payload_subbuffer (rtp, SCI_J2KSCL_HDR_LEN, -1);
  self->bytes += len;
  g_array_append_val (self->pieces, pc);
  if (self->bytes > MAX_FRAME_BYTES) {
    drop (self, "more than 1 GiB without an end");
    reset_frame (self);
  } else if (pc.marker) {
    finish_frame (self, TRUE);
  } else if (self->pieces->len > gst_buffer_get_max_memory ()) {
    gather (self);
  }
  return NULL;
}

static gboolean
gst_rtp_j2k_scl_depay_handle_event (GstRTPBaseDepayload * base,
    GstEvent * event)
{
  GstRtpJ2kSclDepay *self = GST_RTP_J2K_SCL_DEPAY (base);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      if (self->open)
        finish_frame (self, FALSE);
      break;
    case GST_EVENT_FLUSH_STOP:
      reset_frame (self);
      self->have_last_ts = FALSE;
      break;
    default:
      break;
  }
  return GST_RTP_BASE_DEPAYLOAD_CLASS (gst_rtp_j2k_scl_depay_parent_class)
      ->handle_event (base, event);
}

static GstStateChangeReturn
gst_rtp_j2k_scl_depay_change_state (GstElement * element,
    GstStateChange transition)
{
  GstRtpJ2kSclDepay *self = GST_RTP_J2K_SCL_DEPAY (element);
  GstStateChangeReturn ret =
      GST_ELEMENT_CLASS (gst_rtp_j2k_scl_depay_parent_class)->change_state
      (element, transition);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    reset_frame (self);
    self->have_last_ts = FALSE;
    self->dropped = 0;
    gst_clear_caps (&self->caps);
  }
  return ret;
}

static void
gst_rtp_j2k_scl_depay_finalize (GObject * object)
{
  GstRtpJ2kSclDepay *self = GST_RTP_J2K_SCL_DEPAY (object);

  reset_frame (self);
  g_array_free (self->pieces, TRUE);
  gst_clear_caps (&self->caps);
  G_OBJECT_CLASS (gst_rtp_j2k_scl_depay_parent_class)->finalize (object);
}

static void
gst_rtp_j2k_scl_depay_class_init (GstRtpJ2kSclDepayClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstRTPBaseDepayloadClass *depay_class = GST_RTP_BASE_DEPAYLOAD_CLASS (klass);

  gobject_class->finalize = gst_rtp_j2k_scl_depay_finalize;
  element_class->change_state = gst_rtp_j2k_scl_depay_change_state;
  depay_class->set_caps = gst_rtp_j2k_scl_depay_set_caps;
  depay_class->process_rtp_packet = gst_rtp_j2k_scl_depay_process;
  depay_class->handle_event = gst_rtp_j2k_scl_depay_handle_event;

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "RTP JPEG 2000 sub-codestream latency depayloader",
      "Codec/Depayloader/Network/RTP",
      "Extracts JPEG 2000 codestreams from RTP packets (RFC 9828, "
      "video/jpeg2000-scl), one frame a buffer; frames that lost packets "
      "are repaired or cut short, with a warning", SCI_ELEMENT_AUTHOR);
  GST_DEBUG_CATEGORY_INIT (gst_rtp_j2k_scl_depay_debug, "rtpj2kscldepay", 0,
      "RFC 9828 JPEG 2000 RTP depayloader");
}

static void
gst_rtp_j2k_scl_depay_init (GstRtpJ2kSclDepay * self)
{
  self->pieces = g_array_new (FALSE, FALSE, sizeof (Piece));
  g_array_set_clear_func (self->pieces, clear_piece);
}
