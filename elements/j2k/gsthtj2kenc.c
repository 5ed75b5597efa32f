/**
 * SECTION:element-htj2kenc
 * @title: htj2kenc
 *
 * High-Throughput JPEG 2000 (ITU-T T.814 | ISO/IEC 15444-15) encoder: one
 * codestream (image/x-jpc, which openjpegdec decodes) or one JPH file
 * (image/x-jph, with `jph=true`) per frame, one tile per image.
 *
 * It takes raw video, running the wavelet transform itself (DC level shift,
 * RCT or ICT, 5/3 or 9/7, `levels` deep), or the application/x-wavelet
 * coefficients of cudadwt, whose caps then give the filter, the levels and
 * the colour transform.  `reversible=true` codes losslessly (5/3 and RCT);
 * the default is 9/7 and ICT with the quantisation step `qstep`, or the
 * step that meets `bitrate`.
 *
 * With a usable CUDA device (`backend=auto` or `cuda`) the wavelet
 * transform, the quantisation and the HT block coding run on the GPU and
 * only the coded bytes come back to the host, where tier-2 writes the
 * codestream; else the C reference runs on the CPU.  The bytes are the
 * same either way.  Input may be in system memory or in CUDA memory
 * (video/x-raw(memory:CUDAMemory) from cudaupload, or the coefficients of
 * cudadwt on the GPU); the output is always in system memory.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=1 ! htj2kenc ! \
 *     filesink location=f.j2c
 * gst-launch-1.0 videotestsrc num-buffers=1 ! video/x-raw,format=Y444_12LE ! \
 *     htj2kenc reversible=true jph=true ! filesink location=f.jph
 * gst-launch-1.0 videotestsrc ! cudadwt filter=9-7 ! htj2kenc ! openjpegdec ! \
 *     videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc num-buffers=100 ! \
 *     video/x-raw,format=I420_10LE,width=3840,height=2160 ! cudaupload ! \
 *     'video/x-raw(memory:CUDAMemory)' ! htj2kenc reversible=true ! \
 *     multifilesink location=f%05d.j2c
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsthtj2kenc.h"

GST_DEBUG_CATEGORY_STATIC (gst_htj2k_enc_debug);

G_DEFINE_TYPE (GstHtj2kEnc, gst_htj2k_enc, GST_TYPE_SCI_J2K_ENC);
GST_ELEMENT_REGISTER_DEFINE (htj2kenc, "htj2kenc", GST_RANK_NONE,
    GST_TYPE_HTJ2K_ENC);

static void
gst_htj2k_enc_class_init (GstHtj2kEncClass * klass)
{
  GST_DEBUG_CATEGORY_INIT (gst_htj2k_enc_debug, "htj2kenc", 0, "HTJ2K encoder");
  gst_sci_j2k_enc_class_setup (GST_SCI_J2K_ENC_CLASS (klass), SCI_J2K_CODER_HT,
      gst_htj2k_enc_debug);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "HTJ2K encoder", "Codec/Encoder/Image",
      "High-Throughput JPEG 2000 (ITU-T T.814) encoder of raw video or "
      "wavelet coefficients into codestreams or JPH files, on CUDA or the CPU",
      SCI_ELEMENT_AUTHOR);
}

static void
gst_htj2k_enc_init (GstHtj2kEnc * self)
{
}
