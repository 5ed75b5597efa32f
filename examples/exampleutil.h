/* What the round-trip examples share: a pipeline whose appsink "ref" gets
 * the frames that went in and appsink "out" what came back, read frame by
 * frame, and whether an element takes CUDA memory. */
#ifndef SCI_EXAMPLES_EXAMPLEUTIL_H
#define SCI_EXAMPLES_EXAMPLEUTIL_H

#include <gst/gst.h>

typedef struct
{
  GstElement *pipe, *ref, *out;
  GstBus *bus;
} ExamplePipeline;

/* Parses the command line with `entries` and GStreamer's options (shown
 * under `summary`), which set *frames and *backend: *backend defaults to
 * auto and must be auto, cuda or cpu, *frames at least 1.  FALSE, having
 * said why on stderr, when the command line is wrong. */
gboolean example_parse_args (int *argc, char ***argv, const gchar * summary,
    const GOptionEntry * entries, const gint * frames, gchar ** backend);

/* Parses `desc` (which names appsinks "ref" and "out") into *p, not yet
 * playing; FALSE with *error when it does not parse. */
gboolean example_pipeline_init (ExamplePipeline * p, const gchar * desc,
    gchar ** error);

/* The next input frame and what came back of it (both or neither): FALSE
 * at EOS, on a pipeline error (then *error says which) or after a minute
 * without a frame. */
gboolean example_pipeline_pull (ExamplePipeline * p, GstSample ** ref,
    GstSample ** out, gchar ** error);

/* Stops the pipeline and drops it. */
void example_pipeline_clear (ExamplePipeline * p);

/* Whether a pad template of `factory` (NULL: FALSE) in `direction` takes
 * `format` (NULL: any) in CUDA memory. */
gboolean example_takes_cuda_memory (GstElementFactory * factory,
    GstPadDirection direction, const gchar * format);

/* Notes which backend each of the project's GstSciFilter elements
 * (dpcmenc, dpcmdec, sppfilter, ...) runs on, from the INFO lines of the
 * "scifilter" category and of the element categories named in `elements`
 * (NULL-terminated; their fallback to the CPU is said there).  Those lines
 * are captured, not printed, unless GST_DEBUG asked for them.  Call once,
 * after gst_init. */
void example_watch_backends (const gchar * const *elements);

/* What the element named `name` said since example_forget_backends:
 * "CUDA", "CPU", "CUDA>CPU" (it fell back to the CPU) or "?" (nothing).
 * A static string. */
const gchar *example_backend_of (const gchar * name);
/* NULL when element `name` said it ran on the backend asked for
 * (`requested`: cuda, cpu or auto; auto takes either), else why not (a
 * string to free). */
gchar *example_backend_mismatch (const gchar * name, const gchar * requested);

/* Forgets what the elements said (call before each pipeline). */
void example_forget_backends (void);

/* Reads the ENVI cube whose header is `hdr` (its data file beside it: the
 * header's name without .hdr, then with the interleave as extension, then
 * .img), data type 1, 2, 12 or 4, either byte order, into one buffer of
 * host-order values in the order `interleave` asks ("bip", "bil" or "bsq"),
 * with application/x-hyperspectral caps as envisrc gives them.  For builds
 * without envisrc (GDAL): the GPU host's bundle leaves GDAL out.  NULL with
 * *error when the files are not such a cube. */
GstSample *example_read_envi (const gchar * hdr, const gchar * interleave,
    gchar ** error);

/* PSNR in dB of `n` samples of peak value `peak` with the squared errors
 * `sq` (infinite when they are 0). */
gdouble example_psnr (guint64 peak, gdouble sq, guint64 n);

#endif
