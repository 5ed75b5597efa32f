/*
 * The main job's DPCM part: real 16-bit instrument frames through
 * dpcmenc ! dpcmdec, every decoded frame compared with the frame that went
 * in (they must be identical), and every coded frame with what the C
 * reference (codec/dpcm/dpcm.c) makes of the same samples with the frame's own
 * parameters and metadata (the same bytes, on either backend).  The sets,
 * from ../shared/data (PROVENANCE.md there):
 *
 *   - the TREx auroral all-sky imager sequences (aurora/, ENVI BSQ cubes of
 *     a frame a band): read by envisrc interleave=bsq (by the program
 *     where the plugin was built without GDAL, as for the GPU host), then
 *     pushed frame by frame as GRAY16_LE by appsrc;
 *   - the Gemini-North GMOS-N spectrograph frames
 *     (spectral16/gmos-n-multi.fits) through fitsdec all-hdus=true, coded
 *     with the default scan (auto), by rows and by columns.
 *
 * Per set it prints the frames, the bits per pixel of our frames (their
 * metadata section, the FITS cards that travel with a frame, left out and
 * shown apart), those of JPEG-LS (CharLS in-process, lossless, on the same
 * samples, each of its streams decoded and checked too), their ratio, and
 * the encode and decode rates: frames over the wall-clock time spent in
 * the element, measured at its pads, leaving out the first frame (set-up)
 * where there are more.
 *
 * Where a CUDA device is usable (nvcodec registered cudaupload), the plugin
 * was built with CUDA, the backend is not cpu and --system-memory is not
 * given, the decoded frames go on in CUDA memory:
 * dpcmdec ! video/x-raw(memory:CUDAMemory) ! dpcmenc ! dpcmdec, the second
 * encoder reading them in place, and its frames must equal the first
 * encoder's byte for byte; the rates are then the decoder's into device
 * memory and the second encoder's from it.  GStreamer 1.22's cudaupload
 * takes no gray formats: dpcmdec is what puts gray frames on the device.
 *
 *   dpcm-roundtrip [--frames N] [--backend auto|cuda|cpu] [--system-memory]
 *                  [--data DIR] [--tamper decoded|reference]
 *
 * --frames N: at most N frames of each set (all 20 of an aurora sequence,
 * the 3 of the GMOS-N file by default).  Where the data are absent the sets
 * are skipped, saying so, and the exit status is 0.  --tamper decoded
 * changes one sample of every frame leaving the last dpcmdec, --tamper
 * reference gives the C reference another threshold, so that one check or
 * the other must fail (exit 1): the test suite runs both to see that they
 * do.
 */
#include <stdio.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include "codec/dpcm/dpcm.h"
#include "exampleutil.h"

#if HAVE_CHARLS
#include <charls/charls.h>
#endif

typedef struct
{
  const gchar *name;
  const gchar *file;            /* under the data directory */
  gboolean fits;                /* FITS (fitsdec), else an ENVI BSQ cube */
  const gchar *props;           /* dpcmenc's */
} Set;

/* the default scan (auto) on every set, and each direction forced on the
 * spectrograph's frames, whose dispersion runs down the columns
 * (docs/elements.md) */
static const Set sets[] = {
  {"TREx blueline", "aurora/trex_blueline_gill_20220308_0600-first20.hdr",
      FALSE, ""},
  {"TREx NIR", "aurora/trex_nir_gill_20220307_0600-first20.hdr", FALSE, ""},
  {"GMOS-N", "spectral16/gmos-n-multi.fits", TRUE, ""},
  {"GMOS-N rows", "spectral16/gmos-n-multi.fits", TRUE, "scan=rows"},
  {"GMOS-N columns", "spectral16/gmos-n-multi.fits", TRUE, "scan=columns"},
};

/* What --tamper alters, so that a check must fail. */
typedef enum
{
  TAMPER_NONE,
  TAMPER_DECODED,               /* the frames leaving the last dpcmdec */
  TAMPER_REFERENCE,             /* the C reference's threshold */
} Tamper;

/* What the pad probes of one element gather. */
typedef struct
{
  gint64 t_in;                  /* when the frame being processed entered */
  gint64 us, first_us;          /* time in the element: all, the first */
  guint n;
  GPtrArray *out;               /* GBytes of each output buffer, or NULL */
} Stage;

static GstPadProbeReturn
stage_in (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  ((Stage *) data)->t_in = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
stage_out (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Stage *st = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gint64 us = g_get_monotonic_time () - st->t_in;

  if (st->n++ == 0)
    st->first_us = us;
  st->us += us;
  /* read by the main thread only once the pipeline has stopped */
  if (st->out) {
    gpointer mem = NULL;
    gsize size = 0;

    gst_buffer_extract_dup (buf, 0, gst_buffer_get_size (buf), &mem, &size);
    g_ptr_array_add (st->out, g_bytes_new_take (mem, size));
  }
  return GST_PAD_PROBE_OK;
}

/* Frames per second in the element; the first frame, which sets things
 * up, counts only when alone. */
static gdouble
stage_rate (const Stage * st)
{
  if (st->n > 1 && st->us > st->first_us)
    return (st->n - 1) * 1e6 / (st->us - st->first_us);
  return st->us > 0 ? st->n * 1e6 / st->us : 0;
}

static void
stage_watch (GstElement * pipe, const gchar * name, Stage * st)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstPad *src = gst_element_get_static_pad (e, "src");

  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, stage_in, st, NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, stage_out, st, NULL);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (e);
}

/* --tamper: the low bit of the middle sample of every frame flipped, as a
 * decoder that lost one bit would leave it. */
static GstPadProbeReturn
tamper (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  GstMapInfo m;

  GST_PAD_PROBE_INFO_DATA (info) = buf;
  if (gst_buffer_map (buf, &m, GST_MAP_READWRITE)) {
    if (m.size >= 2)
      m.data[(m.size / 4) * 2] ^= 1;
    gst_buffer_unmap (buf, &m);
  }
  return GST_PAD_PROBE_OK;
}

/* The ENVI cube `hdr` band after band (BSQ), read by envisrc: the sample,
 * or NULL with *error. */
static GstSample *
envisrc_cube (const gchar * hdr, gchar ** error)
{
  GstElement *pipe = gst_parse_launch ("envisrc name=src interleave=bsq ! "
      "appsink name=cube sync=false", NULL);
  GstElement *src, *sink;
  GstSample *s = NULL;
  GstMessage *msg = NULL;
  GstBus *bus;
  guint tries;

  if (!pipe) {
    *error = g_strdup ("envisrc cannot be made");
    return NULL;
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "cube");
  g_object_set (src, "location", hdr, NULL);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  /* appsink posts EOS only once its sample is pulled: pull, and look at
   * the bus for an error between short waits */
  for (tries = 0; !s && !msg && tries < 600; tries++) {
    s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), GST_SECOND / 10);
    if (!s)
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  }
  if (!s) {
    GError *e = NULL;

    if (msg)
      gst_message_parse_error (msg, &e, NULL);
    *error = g_strdup (e ? e->message : "envisrc: no cube within a minute");
    g_clear_error (&e);
  }
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return s;
}

/* The 16-bit ENVI cube `hdr` band after band (BSQ): read by envisrc, or by
 * the program where the plugin has no envisrc (*by_envisrc says which).
 * The buffer, or NULL with *error. */
static GstBuffer *
read_cube (const gchar * hdr, gint * lines, gint * samples, gint * bands,
    gboolean * by_envisrc, gchar ** error)
{
  GstElementFactory *f = gst_element_factory_find ("envisrc");
  GstBuffer *cube = NULL;
  const GstStructure *st;
  const gchar *format;
  GstSample *s;

  *by_envisrc = f != NULL;
  if (f)
    gst_object_unref (f);
  s = f ? envisrc_cube (hdr, error) : example_read_envi (hdr, "bsq", error);
  if (!s)
    return NULL;
  st = gst_caps_get_structure (gst_sample_get_caps (s), 0);
  format = gst_structure_get_string (st, "format");
  if (!gst_structure_get_int (st, "lines", lines)
      || !gst_structure_get_int (st, "samples", samples)
      || !gst_structure_get_int (st, "bands", bands))
    *error = g_strdup ("a cube without sizes");
  else if (g_strcmp0 (format, "U16LE"))
    *error = g_strdup_printf ("a cube of %s, not of 16-bit frames", format);
  else if (gst_buffer_get_size (gst_sample_get_buffer (s)) !=
      (gsize) * lines * *samples * *bands * 2)
    *error = g_strdup ("a cube buffer not of the size of its caps");
  else
    cube = gst_buffer_ref (gst_sample_get_buffer (s));
  gst_sample_unref (s);
  return cube;
}

/* Pushes the first `frames` bands of a BSQ cube as GRAY16_LE frames. */
static void
push_frames (GstElement * src, GstBuffer * cube, gint lines, gint samples,
    guint frames)
{
  GstVideoInfo info;
  GstMapInfo m;
  GstCaps *caps;
  guint f;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY16_LE, samples, lines);
  caps = gst_video_info_to_caps (&info);
  g_object_set (src, "caps", caps, NULL);
  gst_caps_unref (caps);
  gst_buffer_map (cube, &m, GST_MAP_READ);
  for (f = 0; f < frames; f++) {
    GstBuffer *b = gst_buffer_new_allocate (NULL, info.size, NULL);
    GstVideoFrame v;
    gint y;

    gst_video_frame_map (&v, &info, b, GST_MAP_WRITE);
    for (y = 0; y < lines; y++)
      memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&v, 0) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&v, 0),
          m.data + ((gsize) f * lines + y) * samples * 2, (gsize) samples * 2);
    gst_video_frame_unmap (&v);
    gst_app_src_push_buffer (GST_APP_SRC (src), b);
  }
  gst_buffer_unmap (cube, &m);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
}

/* One frame that went in, its samples packed (width x height). */
typedef struct
{
  guint index;                  /* in the stream */
  guint width, height;
  guint16 *px;
} Frame;

static void
frame_free (gpointer data)
{
  Frame *f = data;

  g_free (f->px);
  g_free (f);
}

/* Compares an input frame with the decoded one; keeps the input's samples
 * in *kept.  NULL when identical, else why not (newly allocated). */
static gchar *
compare (GstSample * a, GstSample * b, Frame ** kept)
{
  GstVideoInfo ia, ib;
  GstVideoFrame fa, fb;
  guint64 differ = 0;
  guint x, y, w, h, fx = 0, fy = 0, va = 0, vb = 0;
  gchar *why = NULL;

  *kept = NULL;
  if (!gst_video_info_from_caps (&ia, gst_sample_get_caps (a))
      || !gst_video_info_from_caps (&ib, gst_sample_get_caps (b)))
    return g_strdup ("frames without video caps");
  if (GST_VIDEO_INFO_FORMAT (&ia) != GST_VIDEO_FORMAT_GRAY16_LE
      || GST_VIDEO_INFO_FORMAT (&ib) != GST_VIDEO_FORMAT_GRAY16_LE
      || ia.width != ib.width || ia.height != ib.height)
    return g_strdup_printf ("%s %dx%d came back as %s %dx%d",
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&ia)), ia.width,
        ia.height, gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&ib)),
        ib.width, ib.height);
  if (!gst_video_frame_map (&fa, &ia, gst_sample_get_buffer (a), GST_MAP_READ))
    return g_strdup ("an input frame cannot be mapped");
  if (!gst_video_frame_map (&fb, &ib, gst_sample_get_buffer (b), GST_MAP_READ)) {
    gst_video_frame_unmap (&fa);
    return g_strdup ("a decoded frame cannot be mapped");
  }
  w = ia.width;
  h = ia.height;
  *kept = g_new (Frame, 1);
  (*kept)->width = w;
  (*kept)->height = h;
  (*kept)->px = g_new (guint16, (gsize) w * h);
  for (y = 0; y < h; y++) {
    const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, 0);
    const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, 0);

    for (x = 0; x < w; x++) {
      guint sa = GST_READ_UINT16_LE (ra + 2 * x);
      guint sb = GST_READ_UINT16_LE (rb + 2 * x);

      (*kept)->px[(gsize) y * w + x] = sa;
      if (sa != sb && differ++ == 0) {
        fx = x;
        fy = y;
        va = sa;
        vb = sb;
      }
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  if (differ)
    why = g_strdup_printf ("%" G_GUINT64_FORMAT " samples differ, the first "
        "at (%u, %u): %u came back as %u", differ, fx, fy, va, vb);
  return why;
}

/* The C reference's frame for the samples of `f` with the parameters and
 * metadata of the element's frame `coded` (the threshold moved by `skew`,
 * which --tamper=reference sets to 1, making the bytes differ): NULL when
 * the bytes are the same, else why not.  *meta_bytes gets the metadata
 * section's stored length (zstd-compressed where that is shorter). */
static gchar *
check_reference (const Frame * f, GBytes * coded, guint skew,
    gsize * meta_bytes)
{
  gsize len;
  const guint8 *in = g_bytes_get_data (coded, &len);
  guint8 *meta = NULL;
  size_t meta_len = 0, cap, n;
  sci_dpcm_info info;
  guint8 *out;
  int rc;

  *meta_bytes = 0;
  rc = sci_dpcm_peek (in, len, &info);
  if (rc == SCI_DPCM_OK)
    rc = sci_dpcm_metadata (in, len, NULL, 0, &meta_len);
  if (rc == SCI_DPCM_OK && meta_len) {
    meta = g_malloc (meta_len);
    rc = sci_dpcm_metadata (in, len, meta, meta_len, &meta_len);
  }
  if (rc != SCI_DPCM_OK) {
    g_free (meta);
    return g_strdup_printf ("a coded frame is not valid: %s",
        sci_dpcm_error_string (rc));
  }
  /* what the frame stores (compressed or not), which the bpp leaves out */
  *meta_bytes = info.meta_bytes;
  if (info.width != f->width || info.height != f->height) {
    g_free (meta);
    return g_strdup_printf ("a coded frame says %ux%u, not %ux%u",
        info.width, info.height, f->width, f->height);
  }
  info.params.threshold += skew;
  cap = sci_dpcm_max_bytes (f->width, f->height, info.depth) + meta_len;
  out = g_malloc (cap);
  n = sci_dpcm_encode_meta (NULL, f->px, f->width, f->width, f->height,
      info.depth, &info.params, meta, meta_len, out, cap);
  g_free (meta);
  if (n != len || memcmp (out, in, len)) {
    g_free (out);
    return g_strdup_printf ("the element's frame (%" G_GSIZE_FORMAT " bytes) "
        "is not the C reference's (%" G_GSIZE_FORMAT ")", len, (gsize) n);
  }
  g_free (out);
  return NULL;
}

#if HAVE_CHARLS
/* Bytes of the lossless JPEG-LS stream of `f` (16 bits a sample), its
 * decode checked: 0 with *why when either fails. */
static gsize
jpegls_bytes (const Frame * f, gchar ** why)
{
  charls_jpegls_encoder *e = charls_jpegls_encoder_create ();
  charls_jpegls_decoder *d = charls_jpegls_decoder_create ();
  charls_frame_info fi = { f->width, f->height, 16, 1 };
  gsize px = (gsize) f->width * f->height, cap = 0, n = 0;
  guint8 *out = NULL;
  guint16 *back = g_new (guint16, px);

  if (!e || !d || charls_jpegls_encoder_set_frame_info (e, &fi)
      || charls_jpegls_encoder_set_near_lossless (e, 0)
      || charls_jpegls_encoder_get_estimated_destination_size (e, &cap)
      || !(out = g_malloc (cap))
      || charls_jpegls_encoder_set_destination_buffer (e, out, cap)
      || charls_jpegls_encoder_encode_from_buffer (e, f->px, px * 2, 0)
      || charls_jpegls_encoder_get_bytes_written (e, &n)) {
    *why = g_strdup ("CharLS could not encode a frame");
    n = 0;
  } else if (charls_jpegls_decoder_set_source_buffer (d, out, n)
      || charls_jpegls_decoder_read_header (d)
      || charls_jpegls_decoder_decode_to_buffer (d, back, px * 2, 0)
      || memcmp (back, f->px, px * 2)) {
    *why = g_strdup ("CharLS did not give a frame back exactly");
    n = 0;
  }
  if (e)
    charls_jpegls_encoder_destroy (e);
  if (d)
    charls_jpegls_decoder_destroy (d);
  g_free (out);
  g_free (back);
  return n;
}
#endif

typedef struct
{
  guint done;                   /* frames compared */
  guint width, height;
  gdouble bpp, jls_bpp;         /* jls_bpp 0: no CharLS */
  gdouble meta;                 /* metadata bytes a frame */
  gdouble enc_fps, dec_fps;
  gchar *failure;               /* NULL: every check passed */
  gboolean by_envisrc;          /* an ENVI cube read by envisrc */
} Result;

static void
run_set (const Set * s, const gchar * path, guint frames,
    const gchar * backend, gboolean cuda_memory, Tamper tamper_with, Result * r)
{
  ExamplePipeline p;
  GstElement *src;
  GstBuffer *cube = NULL;
  gint lines = 0, samples = 0, bands = 0;
  Stage enc = { 0 }, dec = { 0 }, enc2 = { 0 };
  GPtrArray *kept = g_ptr_array_new_with_free_func (frame_free);
  gchar *desc, *error = NULL, *second;
  guint64 coded_bits = 0, jls_bits = 0, pixels = 0;
  gsize meta_total = 0;
  guint i;

  memset (r, 0, sizeof (*r));
  if (!s->fits) {
    cube = read_cube (path, &lines, &samples, &bands, &r->by_envisrc, &error);
    if (!cube) {
      r->failure = g_strdup_printf ("FAILED: %s", error);
      g_free (error);
      g_ptr_array_unref (kept);
      return;
    }
    frames = MIN (frames, (guint) bands);
  }
  /* in CUDA memory, the decoded frames are coded again from the device */
  second = cuda_memory ? g_strdup_printf ("! video/x-raw(memory:CUDAMemory) "
      "! dpcmenc name=enc2 backend=%s %s ! dpcmdec name=dec2 backend=%s",
      backend, s->props, backend) : g_strdup ("");
  desc = g_strdup_printf ("%s ! tee name=t "
      "t. ! queue ! appsink name=ref sync=false "
      "t. ! queue ! dpcmenc name=enc backend=%s %s ! "
      "dpcmdec name=dec backend=%s %s ! appsink name=out sync=false",
      s->fits ? "filesrc name=src ! fitsdec all-hdus=true" :
      "appsrc name=src format=time", backend, s->props, backend, second);
  g_free (second);
  if (!example_pipeline_init (&p, desc, &error)) {
    r->failure = g_strdup_printf ("FAILED: %s", error);
    g_free (error);
    g_free (desc);
    g_ptr_array_unref (kept);
    if (cube)
      gst_buffer_unref (cube);
    return;
  }
  g_free (desc);
  enc.out = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  stage_watch (p.pipe, "enc", &enc);
  stage_watch (p.pipe, "dec", &dec);
  if (cuda_memory) {
    enc2.out = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);
    stage_watch (p.pipe, "enc2", &enc2);
  }
  if (tamper_with == TAMPER_DECODED) {
    GstElement *last = gst_bin_get_by_name (GST_BIN (p.pipe),
        cuda_memory ? "dec2" : "dec");
    GstPad *pad = gst_element_get_static_pad (last, "src");

    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, tamper, NULL, NULL);
    gst_object_unref (pad);
    gst_object_unref (last);
  }
  src = gst_bin_get_by_name (GST_BIN (p.pipe), "src");
  if (s->fits)
    g_object_set (src, "location", path, NULL);
  example_forget_backends ();
  gst_element_set_state (p.pipe, GST_STATE_PLAYING);
  if (cube)
    push_frames (src, cube, lines, samples, frames);
  gst_object_unref (src);

  /* every frame compared as it comes; the rest once the pipeline stops */
  while (r->done < frames) {
    GstSample *a, *b;
    gchar *why;
    Frame *f;

    if (!example_pipeline_pull (&p, &a, &b, &error))
      break;
    why = compare (a, b, &f);
    gst_sample_unref (a);
    gst_sample_unref (b);
    if (f) {
      f->index = r->done;
      g_ptr_array_add (kept, f);
    }
    if (why && !r->failure)
      r->failure = g_strdup_printf ("NOT EXACT: frame %u: %s", r->done, why);
    g_free (why);
    r->done++;
  }
  example_pipeline_clear (&p);
  if (error && !r->failure)
    r->failure = g_strdup_printf ("FAILED: %s", error);
  else if (!error && r->done == 0 && !r->failure)
    r->failure = g_strdup ("FAILED: no frame came out");
  else if (!s->fits && r->done < frames && !r->failure)
    r->failure = g_strdup_printf ("FAILED: %u frames of %u came out",
        r->done, frames);
  g_free (error);

  for (i = 0; i < kept->len; i++) {
    Frame *f = g_ptr_array_index (kept, i);
    gsize meta = 0, size;
    gchar *why = NULL;
    const gchar *label;
    GBytes *coded;

    if (f->index >= enc.out->len) {
      if (!r->failure)
        r->failure = g_strdup ("FAILED: a coded frame is missing");
      break;
    }
    coded = g_ptr_array_index (enc.out, f->index);
    why = check_reference (f, coded, tamper_with == TAMPER_REFERENCE, &meta);
    label = "NOT THE C REFERENCE'S BYTES";
    if (!why && cuda_memory && (f->index >= enc2.out->len
            || !g_bytes_equal (coded, g_ptr_array_index (enc2.out,
                    f->index)))) {
      why = g_strdup ("coded again from CUDA memory it is not the same");
      label = "NOT THE SAME FROM CUDA MEMORY";
    }
    size = g_bytes_get_size (coded);
    coded_bits += 8 * (guint64) (size - meta);
    meta_total += meta;
    pixels += (guint64) f->width * f->height;
    r->width = f->width;
    r->height = f->height;
#if HAVE_CHARLS
    if (!why) {
      jls_bits += 8 * (guint64) jpegls_bytes (f, &why);
      label = "FAILED";
    }
#endif
    if (why && !r->failure)
      r->failure = g_strdup_printf ("%s: frame %u: %s", label, f->index, why);
    g_free (why);
  }
  if (pixels) {
    r->bpp = (gdouble) coded_bits / pixels;
    r->jls_bpp = (gdouble) jls_bits / pixels;
    r->meta = (gdouble) meta_total / kept->len;
  }
  r->enc_fps = stage_rate (cuda_memory ? &enc2 : &enc);
  r->dec_fps = stage_rate (&dec);
  g_ptr_array_unref (enc.out);
  if (enc2.out)
    g_ptr_array_unref (enc2.out);
  g_ptr_array_unref (kept);
  if (cube)
    gst_buffer_unref (cube);
}

int
main (int argc, char **argv)
{
  gint frames = 20;
  gchar *backend = NULL, *data = NULL;
  gchar *tamper_arg = NULL;
  gboolean system_memory = FALSE, all_ok = TRUE, without_envisrc = FALSE;
  Tamper tamper_with = TAMPER_NONE;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames,
        "At most N frames of each set (20: all of them)", "N"},
    {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend,
        "auto, cuda or cpu (auto)", "B"},
    {"system-memory", 's', 0, G_OPTION_ARG_NONE, &system_memory,
        "Do not use CUDA memory even where a device is usable", NULL},
    {"data", 'd', 0, G_OPTION_ARG_FILENAME, &data,
        "The real data (default: the project's ../shared/data)", "DIR"},
    {"tamper", 0, 0, G_OPTION_ARG_STRING, &tamper_arg,
        "Self-check, which must fail: decoded (change a sample of every "
          "decoded frame) or reference (give the C reference another "
          "threshold)", "WHAT"},
    {NULL}
  };
  const gchar *const watched[] = { "dpcmenc", "dpcmdec", NULL };
  GstElementFactory *enc, *upload;
  gboolean cuda_memory;
  guint i, checked = 0;

  if (!example_parse_args (&argc, &argv, "- DPCM round trip of real frames",
          entries, &frames, &backend))
    return 2;
  if (!data)
    data = g_strdup (SCI_SHARED_DATA_DIR);
  if (tamper_arg) {
    if (!strcmp (tamper_arg, "decoded"))
      tamper_with = TAMPER_DECODED;
    else if (!strcmp (tamper_arg, "reference"))
      tamper_with = TAMPER_REFERENCE;
    else {
      g_printerr ("--tamper: decoded or reference, not %s\n", tamper_arg);
      return 2;
    }
    g_free (tamper_arg);
  }
  enc = gst_element_factory_find ("dpcmenc");
  if (!enc) {
    g_printerr ("dpcmenc not found: set GST_PLUGIN_PATH to the build dir\n");
    return 2;
  }
  /* the plugin offers CUDA memory only when built with CUDA; nvcodec
   * registers cudaupload only where a CUDA driver loads */
  upload = gst_element_factory_find ("cudaupload");
  cuda_memory = !system_memory && strcmp (backend, "cpu") && upload &&
      example_takes_cuda_memory (enc, GST_PAD_SINK, "GRAY16_LE");
  gst_object_unref (enc);
  if (upload)
    gst_object_unref (upload);
  example_watch_backends (watched);

  g_print ("dpcmenc ! dpcmdec on real 16-bit frames (%s), each frame "
      "compared with its input\nand each coded frame with the C reference's; "
      "backend=%s%s\n\n", data, backend, cuda_memory ?
      ", coded again from CUDA memory" : "");
  g_print ("%-15s %-8s %6s %7s %7s %6s %5s %7s %7s %-9s %s\n", "set", "size",
      "frames", "bpp", "JPEG-LS", "ratio", "meta", "enc f/s", "dec f/s",
      "backend", "result");
  for (i = 0; i < G_N_ELEMENTS (sets); i++) {
    const Set *s = &sets[i];
    gchar *path = g_build_filename (data, s->file, NULL);
    gchar *size, *jls, *ratio, *used, *name;
    GstElementFactory *fitsdec = gst_element_factory_find ("fitsdec");
    Result r;

    if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
      g_print ("%-15s skipped: %s is not there (the project's real "
          "data, ../shared/data)\n", s->name, path);
      g_free (path);
      if (fitsdec)
        gst_object_unref (fitsdec);
      continue;
    }
    if (fitsdec)
      gst_object_unref (fitsdec);
    else if (s->fits) {
      g_print ("%-15s skipped: fitsdec is not in the plugin (built without "
          "cfitsio)\n", s->name);
      g_free (path);
      continue;
    }
    run_set (s, path, (guint) frames, backend, cuda_memory, tamper_with, &r);
    checked++;
    size = g_strdup_printf ("%ux%u", r.width, r.height);
#if HAVE_CHARLS
    jls = g_strdup_printf ("%.3f", r.jls_bpp);
    ratio = r.jls_bpp > 0 ? g_strdup_printf ("%.3f", r.bpp / r.jls_bpp) :
        g_strdup ("-");
#else
    jls = g_strdup ("n/a");
    ratio = g_strdup ("-");
#endif
    used = g_strdup_printf ("%s%s", example_backend_of ("enc"),
        cuda_memory ? "/cudamem" : "");
    if (strcmp (example_backend_of ("enc"), example_backend_of ("dec"))) {
      g_free (used);
      used = g_strdup_printf ("%s/%s%s", example_backend_of ("enc"),
          example_backend_of ("dec"), cuda_memory ? "/cudamem" : "");
    }
    if (!r.failure && !(r.failure = example_backend_mismatch ("enc", backend)))
      r.failure = example_backend_mismatch ("dec", backend);
    /* *: not read by envisrc (see the legend) */
    name = g_strdup_printf ("%s%s", s->name, !s->fits && !r.by_envisrc ?
        "*" : "");
    without_envisrc |= !s->fits && !r.by_envisrc;
    g_print ("%-15s %-8s %6u %7.3f %7s %6s %5.0f %7.1f %7.1f %-9s %s\n",
        name, size, r.done, r.bpp, jls, ratio, r.meta, r.enc_fps,
        r.dec_fps, used, r.failure ? r.failure : "exact, C's bytes");
    all_ok &= r.failure == NULL;
    g_free (r.failure);
    g_free (name);
    g_free (size);
    g_free (jls);
    g_free (ratio);
    g_free (used);
    g_free (path);
  }
  if (checked)
    g_print ("\nbpp: bits per pixel of the DPCM frames, their metadata section "
        "left out (meta: its\nbytes a frame, the FITS cards); JPEG-LS: "
        "CharLS, lossless, 16 bits a sample, on the\nsame frames; ratio: "
        "bpp / JPEG-LS (below 1: smaller than JPEG-LS); enc, dec f/s:\n"
        "frames a second of wall-clock time in the element, after the first "
        "frame%s;\nbackend: the encoder's and the decoder's (/cudamem: "
        "decoded frames coded again from\nCUDA memory, the same bytes "
        "required); exact, C's bytes: every frame came back\nidentical and "
        "every coded frame equals the C reference's\n\n",
        cuda_memory ? "\n(enc: the second encoder, from device memory)" : "");
  if (without_envisrc)
    g_print ("*: the plugin has no envisrc (built without GDAL): the ENVI "
        "cube was read by this\nprogram and its frames pushed by appsrc\n\n");
  if (!checked)
    g_print ("no real data under %s: nothing was checked\n", data);
  else
    g_print ("%s\n", all_ok ? "every frame came back exact, every coded "
        "frame equal to the C reference's" : "FAILURE: a frame did not come "
        "back exact, a coded frame differs from the C reference's, or a set "
        "failed to run");
  g_free (backend);
  g_free (data);
  gst_deinit ();
  return all_ok ? 0 : 1;
}
