/* What the element tests of the JPEG 2000 encoders (htj2kenc, ebcotcm)
 * share: one frame through a harness, byte comparisons of two codings,
 * round trips through openjpegdec, synthetic frames, refusals.  The
 * helpers fail the running check test themselves; `what` names the case in
 * their messages, as the failure points into this file. */
#ifndef SCI_TESTS_J2KUTIL_H
#define SCI_TESTS_J2KUTIL_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

/* A new frame of `info` made from a seed. */
typedef GstBuffer *(*J2kFrameFunc) (const GstVideoInfo * info, guint64 seed);

/* Sample (x, y) of component c (cw x ch samples) as a fraction of the
 * component's range (clamped to 0..1). */
typedef gdouble (*J2kSampleFunc) (guint c, guint x, guint y, guint cw,
    guint ch, gpointer user_data);

/* What a coded frame's caps must say of an input format. */
typedef struct
{
  const gchar *format, *colorspace, *sampling;
  gint components;
} J2kCapsCase;

/* A cudadwt configuration and the encoder properties that must code its
 * coefficients as the encoder's own transform codes the frame. */
typedef struct
{
  const gchar *format, *dwt, *enc;
} J2kWaveletCase;

/* Formats of every kind of sampling and depth, and what the coded caps
 * say of them: one table, as the encoders share their caps code
 * (elements/j2k/gstj2kenc.c). */
extern const J2kCapsCase j2kutil_caps_cases[];
extern const guint j2kutil_n_caps_cases;

gboolean j2kutil_have_openjpegdec (void);

#define J2KUTIL_REQUIRE_OPENJPEGDEC() \
  fail_unless (j2kutil_have_openjpegdec (), "openjpegdec is missing: " \
      "install gstreamer1.0-plugins-bad (scripts/install-deps.sh)")

/* Pushes `in` (a new reference) into the harness, which must take it, and
 * returns the one output buffer and its caps (*out_caps, may be NULL;
 * nothing is set when nothing came out), after a drain query (a frame in
 * flight, ebcotcm on CUDA, leaves at it). */
GstBuffer *j2kutil_run_one (GstHarness * h, GstBuffer * in,
    GstCaps ** out_caps, const gchar * what);

/* One frame through a fresh `pipeline` with input caps `caps` (not taken);
 * there must be an output.  *out_caps (may be NULL) gets its caps. */
GstBuffer *j2kutil_encode (const gchar * pipeline, GstBuffer * in,
    GstCaps * caps, GstCaps ** out_caps);

/* A coded frame (made by `what`) through openjpegdec, which must decode
 * it; *out_caps (may be NULL) gets the decoded caps. */
GstBuffer *j2kutil_decode (GstBuffer * coded, GstCaps * coded_caps,
    GstCaps ** out_caps, const gchar * what);

/* What a decoder run posted: counts, and the first error's and warning's
 * texts (j2kutil_posted_clear frees them). */
typedef struct
{
  guint warnings, errors;
  gchar *error;
  gchar *warning;
} J2kPosted;

void j2kutil_posted_clear (J2kPosted * p);

/* Counts (and keeps the first texts of) the errors and warnings on `bus`,
 * popping them. */
void j2kutil_collect (GstBus * bus, J2kPosted * p);

/* Coded buffers through `desc` (a decoder, with caps `coded_caps`), then
 * EOS: the decoded buffers in order, the caps in effect for each (*caps,
 * may be NULL), what was posted in *p. */
GList *j2kutil_decode_all (const gchar * desc, GList * coded,
    GstCaps * coded_caps, GList ** caps, J2kPosted * p);

/* One coded frame through `desc`: its one output (NULL when none) and its
 * caps (*caps, may be NULL). */
GstBuffer *j2kutil_decode_one (const gchar * desc, GstBuffer * coded,
    GstCaps * coded_caps, GstCaps ** caps, J2kPosted * p);

/* Codes `in` (of `info`, caps `caps`) with `pipeline` and decodes it with
 * openjpegdec: the coded bytes (*size, may be NULL), the PSNR in dB over
 * every component (peak of component 0's depth; 99 when lossless), and
 * the number of samples that differ. */
gint64 j2kutil_code_and_measure (const gchar * pipeline,
    const GstVideoInfo * info, GstCaps * caps, GstBuffer * in, gsize * size,
    gdouble * psnr);

gboolean j2kutil_same_bytes (GstBuffer * a, GstBuffer * b);
void j2kutil_assert_same_bytes (GstBuffer * a, GstBuffer * b,
    const gchar * what);

/* `out` holds the bytes a fresh `pipeline` makes of `in`. */
void j2kutil_assert_coded_as (GstBuffer * out, const gchar * pipeline,
    GstBuffer * in, GstCaps * caps, const gchar * what);

/* Two fresh pipelines make the same bytes of `in`. */
void j2kutil_assert_same_coding (const gchar * pipeline_a,
    const gchar * pipeline_b, GstBuffer * in, GstCaps * caps,
    const gchar * what);

/* Random samples within each component's depth (frameutil_fill_random
 * from `seed`); a J2kFrameFunc. */
GstBuffer *j2kutil_random_frame (const GstVideoInfo * info, guint64 seed);

/* A frame whose samples `sample` gives, called component by component,
 * row by row (so a generator with state sees one order). */
GstBuffer *j2kutil_synthetic_frame (const GstVideoInfo * info,
    J2kSampleFunc sample, gpointer user_data);

/* Frames of `format` (a flat one, a random one from `seed`, then, where
 * `extra` is not NULL, extra's from the seed the random frame left) through
 * `pipeline` (an encoder and openjpegdec): every sample must come back.
 * One harness, so that the output pool is reused with codestreams of very
 * different lengths (a trimmed buffer must come back full size). */
void j2kutil_check_lossless (const gchar * pipeline, const gchar * format,
    gint w, gint h, guint64 seed, J2kFrameFunc extra);

/* `pipeline` (an encoder and its properties) with plt=true codes a random
 * w x h frame of `format` into a codestream whose PLT segments list
 * packet lengths that tile its tile-part, and which without them is what
 * `pipeline` alone makes (so no bitrate in it); without plt there is no
 * PLT. */
void j2kutil_check_plt (const gchar * pipeline, const gchar * format, gint w,
    gint h, guint64 seed);

/* The output caps of one random frame of `format` through `pipeline`. */
GstStructure *j2kutil_coded_structure (const gchar * pipeline,
    const gchar * format, gint w, gint h);

/* `s`, the caps of a w x h frame of c->format at 30/1, describe it. */
void j2kutil_assert_jpc_structure (const GstStructure * s,
    const J2kCapsCase * c, gint w, gint h);

/* Pushes one random frame into `pipeline` (caps `caps`, taken); the push
 * must fail and nothing come out.  needle: an element error whose text
 * holds it must be posted; NULL: the caps are refused (not-negotiated). */
void j2kutil_expect_refusal (const gchar * pipeline, GstCaps * caps,
    const gchar * needle);

/* For each case, a 45x37 frame from `make` (seed seed0 + its index) coded
 * by `element` directly and from cudadwt's coefficients: the same bytes. */
void j2kutil_check_wavelet_input (const gchar * element,
    const J2kWaveletCase * cases, guint n_cases, J2kFrameFunc make,
    guint64 seed0);

/* Runs `desc` (a gst-launch description) to EOS, with no error, within a
 * minute. */
void j2kutil_run_pipeline (const gchar * desc);

#endif
