/**
 * SECTION:element-ebcotcm
 * @title: ebcotcm
 *
 * JPEG 2000 Part 1 (ITU-T T.800 | ISO/IEC 15444-1) encoder: one codestream
 * (image/x-jpc, which openjpegdec decodes) per frame, one tile per image,
 * EBCOT code-blocks (three coding passes a bit-plane, MQ arithmetic coded)
 * with the bit-parallel context modeller on the GPU.
 *
 * Input, the wavelet transform and `reversible` are as for htj2kenc: raw
 * video (5/3 and RCT losslessly, or 9/7 and ICT quantised by `qstep`) or
 * the application/x-wavelet coefficients of cudadwt.  Every coding pass is
 * kept unless `bitrate` asks for a size: then each code-block is truncated
 * at its rate-distortion convex hull (post-compression rate-distortion
 * optimisation) so that the codestream, headers included, fits
 * bitrate x width x height / 8 bytes; that works for reversible coding too
 * (a lossy 5/3 codestream).  `layers` splits the codestream into quality
 * layers, each twice the bytes of the one before, which decoders can stop
 * after.  `code-block-style` sets the coding options of Table A.19 (bypass,
 * termination, causal contexts...).
 *
 * With a usable CUDA device (`backend=auto` or `cuda`) the wavelet
 * transform, the quantisation and Tier-1 (context modelling and MQ coding)
 * run on the GPU; rate allocation and tier-2 run on the host.  The bytes
 * are the same either way.  There, by default, two frames are in flight
 * (`frames-in-flight`): a frame is queued on the GPU and the one before it
 * leaves while it runs, so the host's share of a frame does not hold up
 * the next; frames leave one frame late (and all at EOS or a drain
 * query).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=1 ! ebcotcm reversible=true ! \
 *     filesink location=f.j2c
 * gst-launch-1.0 videotestsrc num-buffers=1 ! video/x-raw,format=Y444_12LE ! \
 *     ebcotcm bitrate=2 layers=4 ! filesink location=f.j2c
 * gst-launch-1.0 videotestsrc ! ebcotcm bitrate=1 ! openjpegdec ! \
 *     videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc is-live=true ! ebcotcm frames-in-flight=1 ! \
 *     fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstebcotcm.h"

GST_DEBUG_CATEGORY_STATIC (gst_ebcotcm_debug);

G_DEFINE_TYPE (GstEbcotcm, gst_ebcotcm, GST_TYPE_SCI_J2K_ENC);
GST_ELEMENT_REGISTER_DEFINE (ebcotcm, "ebcotcm", GST_RANK_NONE,
    GST_TYPE_EBCOTCM);

static void
gst_ebcotcm_class_init (GstEbcotcmClass * klass)
{
  GST_DEBUG_CATEGORY_INIT (gst_ebcotcm_debug, "ebcotcm", 0,
      "JPEG 2000 Part 1 encoder");
  gst_sci_j2k_enc_class_setup (GST_SCI_J2K_ENC_CLASS (klass),
      SCI_J2K_CODER_PART1, gst_ebcotcm_debug);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "JPEG 2000 Part 1 encoder", "Codec/Encoder/Image",
      "JPEG 2000 (ITU-T T.800) encoder of raw video or wavelet coefficients "
      "into codestreams: EBCOT with a bit-parallel context modeller, PCRD "
      "rate control and quality layers, on CUDA or the CPU",
      SCI_ELEMENT_AUTHOR);
}

static void
gst_ebcotcm_init (GstEbcotcm * self)
{
}
