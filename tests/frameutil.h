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


#endif
