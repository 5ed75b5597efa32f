#ifndef __GST_RTP_J2K_SCL_DEPAY_H__
#define __GST_RTP_J2K_SCL_DEPAY_H__

#include <gst/gst.h>
#include <gst/rtp/gstrtpbasedepayload.h>

G_BEGIN_DECLS
#define GST_TYPE_RTP_J2K_SCL_DEPAY (gst_rtp_j2k_scl_depay_get_type ())
G_DECLARE_FINAL_TYPE (GstRtpJ2kSclDepay, gst_rtp_j2k_scl_depay, GST,
    RTP_J2K_SCL_DEPAY, GstRTPBaseDepayload);

struct _GstRtpJ2kSclDepay
{
  GstRTPBaseDepayload parent;

  /* the frame being gathered: its RTP timestamp, its packets' payloads
   * (Piece, in arrival order), its first packet's PTS */
  gboolean open;
  guint32 ts;
  GArray *pieces;
  gsize bytes;
  GstClockTime pts;
  /* a frame of more packets than a buffer holds memories: the payloads
   * of its first `gathered` pieces, copied as they came */
  GByteArray *whole;
  guint gathered;
  gsize whole_hint;             /* the last such frame's size */
  gboolean have_last_ts;        /* last_ts: the last frame pushed or dropped */
  guint32 last_ts;

  GstCaps *caps;                /* the caps pushed last */
  guint64 dropped;              /* frames lost, for the warnings */
};

GST_ELEMENT_REGISTER_DECLARE (rtpj2kscldepay);

G_END_DECLS
#endif
