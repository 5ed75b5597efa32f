#ifndef __GST_RTP_J2K_SCL_PAY_H__
#define __GST_RTP_J2K_SCL_PAY_H__

#include <gst/gst.h>
#include <gst/rtp/gstrtpbasepayload.h>

G_BEGIN_DECLS
#define GST_TYPE_RTP_J2K_SCL_PAY (gst_rtp_j2k_scl_pay_get_type ())
G_DECLARE_FINAL_TYPE (GstRtpJ2kSclPay, gst_rtp_j2k_scl_pay, GST,
    RTP_J2K_SCL_PAY, GstRTPBasePayload);

struct _GstRtpJ2kSclPay
{
  GstRTPBasePayload parent;

  /* the colour fields of main packets, from the sink caps' colorimetry */
  gboolean colour;              /* S: known */
  guint prims, trans, mat, range;

  gboolean started;             /* next_seq is known */
  guint32 next_seq;             /* the next packet's extended sequence number */
  GBytes *last_main;            /* the previous frame's main header (R) */
  guint64 frames;
};

GST_ELEMENT_REGISTER_DECLARE (rtpj2ksclpay);

G_END_DECLS
#endif
