/*
 * The wavelet coefficient media type, application/x-wavelet, produced by
 * cudadwt and eaten by cudaidwt (and the JPEG 2000 encoders):
 *
 *   application/x-wavelet,
 *     width=(int)W, height=(int)H,          full-resolution grid
 *     components=(int)1..4, depth=(int)1..16 (bits of the source samples),
 *     filter=(string){5-3,9-7}, levels=(int)0..32,
 *     colour-transform=(string){none,rct,ict},
 *     format=(string){S32,F32}             (S32 for 5-3, F32 for 9-7),
 *     video-format=(string)<GstVideoFormat> the samples came from: it gives
 *                  the component order and subsampling,
 *     framerate, pixel-aspect-ratio, colorimetry, chroma-site: as the video
 *
 * A buffer holds sci_wt_coeff_count samples of 4 bytes laid out as
 * codec/j2k/wavelet_frame.h describes (components one after another, each in the
 * Mallat layout).  docs/media-types.md is the user-facing description.
 */
#ifndef __GST_WAVELET_H__
#define __GST_WAVELET_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "codec/j2k/wavelet_frame.h"

G_BEGIN_DECLS
#define GST_WAVELET_MEDIA_TYPE "application/x-wavelet"
/* The video formats the wavelet stage reads and writes. */
#define GST_WAVELET_VIDEO_FORMATS "{ GRAY8, GRAY16_LE, I420, I420_10LE, " \
  "I420_12LE, Y42B, I422_10LE, I422_12LE, Y444, Y444_10LE, Y444_12LE, " \
  "Y444_16LE, RGB, BGR, RGBP, BGRP, GBR, GBR_10LE, GBR_12LE }"
#define GST_WAVELET_CAPS_STRING GST_WAVELET_MEDIA_TYPE ", " \
  "width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ], " \
  "components = (int) [ 1, 4 ], depth = (int) [ 1, 16 ], " \
  "filter = (string) { 5-3, 9-7 }, levels = (int) [ 0, 32 ], " \
  "colour-transform = (string) { none, rct, ict }, " \
  "format = (string) { S32, F32 }"
#define GST_WAVELET_VIDEO_CAPS_STRING "video/x-raw, " \
  "format = (string) " GST_WAVELET_VIDEO_FORMATS ", " \
  "width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ], " \
  "framerate = (fraction) [ 0/1, MAX ]"
/* Property enums shared by the DWT and the encoders. */
#define GST_TYPE_SCI_DWT_FILTER (gst_sci_dwt_filter_get_type ())
    GType gst_sci_dwt_filter_get_type (void);

typedef enum
{
  GST_SCI_COLOUR_AUTO = -1,
  GST_SCI_COLOUR_NONE = SCI_CT_NONE,
  GST_SCI_COLOUR_RCT = SCI_CT_RCT,
  GST_SCI_COLOUR_ICT = SCI_CT_ICT,
} GstSciColourMode;
#define GST_TYPE_SCI_COLOUR_MODE (gst_sci_colour_mode_get_type ())
GType gst_sci_colour_mode_get_type (void);

typedef struct
{
  sci_wt_geometry geom;
  GstVideoFormat video_format;
  gsize size;                   /* bytes of coefficients in a buffer */
} GstWaveletInfo;

const gchar *gst_wavelet_filter_to_string (sci_dwt_filter filter);
const gchar *gst_wavelet_colour_to_string (sci_colour_transform ct);

/* Geometry of the wavelet stage for video described by `vinfo`; `mode` auto
 * resolves to RCT (5-3) or ICT (9-7) for RGB formats and to none otherwise.
 * NULL on success, else why the combination is refused. */
const gchar *gst_wavelet_info_from_video (GstWaveletInfo * info,
    const GstVideoInfo * vinfo, sci_dwt_filter filter, guint levels,
    GstSciColourMode mode);

/* NULL on success, else why the caps are refused. */
const gchar *gst_wavelet_info_from_caps (GstWaveletInfo * info,
    const GstCaps * caps);

/* The wavelet structure describing `info`, with framerate, pixel aspect
 * ratio, colorimetry and chroma site copied from `video` when present. */
GstStructure *gst_wavelet_info_to_structure (const GstWaveletInfo * info,
    const GstStructure * video);

/* A wavelet structure with what a video structure already says: width,
 * height, video-format (from format) and the pass-through fields, which
 * may still be ranges or lists. */
GstStructure *gst_wavelet_structure_from_video (const GstStructure * video);

/* The video structure a wavelet structure decodes to; NULL when it names
 * no usable video format. */
GstStructure *gst_wavelet_structure_to_video (const GstStructure * s);

/* Component planes of a mapped frame (host or device addresses). */
void gst_wavelet_planes_from_frame (const GstVideoFrame * frame,
    sci_wt_plane planes[SCI_WT_MAX_COMPONENTS]);

G_END_DECLS
#endif
