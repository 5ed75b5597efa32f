/* Filling and comparing raw video frames, component by component, for the
 * element tests and the round-trip example (strides and padding ignored). */
#ifndef SCI_TESTS_FRAMEUTIL_H
#define SCI_TESTS_FRAMEUTIL_H

#include <gst/video/video.h>

/* Every raw video format cudadwt takes. */
extern const gchar *const frameutil_formats[];
extern const guint frameutil_n_formats;

/* video/x-raw caps of a format and size at 30/1. */
GstCaps *frameutil_video_caps (const gchar * format, gint w, gint h);

/* Sample (x, y) of component c of a mapped frame (8 or 16 bits LE). */
guint frameutil_sample (const GstVideoFrame * f, guint c, guint x, guint y);

/* Random samples within the format's depth, from a seeded xorshift state. */
void frameutil_fill_random (GstVideoFrame * frame, guint64 * state);

/* Largest absolute difference between the samples of two frames of one
 * format and size; *sq_err (may be NULL) gets the sum of squared errors and
 * *count the number of samples compared. */
guint frameutil_max_diff (const GstVideoFrame * a, const GstVideoFrame * b,
    gdouble * sq_err, guint64 * count);

/* Where two frames differ, per component: a newly allocated description
 * for failure messages ("" when they are equal). */
gchar *frameutil_describe_diff (const GstVideoFrame * a,
    const GstVideoFrame * b);

/* A buffer of `info` filled with random samples. */
GstBuffer *frameutil_random_buffer (const GstVideoInfo * info, guint64 * state);

/* Compares an input frame (`in`, of `in_info`) with what openjpegdec made
 * of it (`out`, of `out_caps`).  openjpegdec outputs a format of its own
 * (RGB or ARGB for 8-bit RGB, AYUV64 or ARGB64 for deeper samples it has no
 * planar format for), with component c of ours as its component c, shifted
 * up by its depth minus ours (at most 8), and chroma repeated where it is
 * not subsampled and ours is.  Returns the number of samples that differ,
 * or -1 when the frames cannot be compared (no video caps, another size,
 * fewer components, not mappable).  Each of the outputs may be NULL:
 * *sq_err gets the sum of squared errors (in units of the input samples),
 * *count the number of samples compared, *max_err the largest absolute
 * error, *why (newly allocated) why the frames cannot be compared, or where
 * they first differ, or NULL when they are equal. */
gint64 frameutil_compare_decoded (const GstVideoInfo * in_info,
    GstBuffer * in, GstBuffer * out, GstCaps * out_caps, gdouble * sq_err,
    guint64 * count, guint * max_err, gchar ** why);

#endif
