/*
 * Typefinding and decodebin for every file type the plugin writes: files
 * written by our own encoders and sinks (htj2kenc .j2c in RGB, YUV and
 * gray and .jph, ebcotcm .j2c, dpcmenc .dpcm, seismicenc .seis, fitsenc
 * .fits, envisink cube + header), each typefound with the expected caps
 * and run through `filesrc location=X ! decodebin ! sink` to EOS with the
 * expected final caps; lossless ones must come back sample for sample.
 * Also the typefinders on damaged and foreign data, and htj2kparse's
 * framing, resynchronisation and refusals.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/base/gsttypefindhelper.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static gchar *tmpdir;

static gchar *
tmp_path (const gchar * name)
{
  return g_build_filename (tmpdir, name, NULL);
}

static gboolean
have_elements (const gchar * first, ...)
{
  const gchar *name = first;
  gboolean ok = TRUE;
  va_list ap;

  va_start (ap, first);
  for (; name; name = va_arg (ap, const gchar *))
  {
    GstElementFactory *f = gst_element_factory_find (name);

    if (!f) {
      GST_INFO ("no %s: part of the test skipped", name);
      ok = FALSE;
    } else {
      gst_object_unref (f);
    }
  }
  va_end (ap);
  return ok;
}

/* ---- running pipelines ---- */

typedef struct
{
  GstCaps *caps;                /* of the first buffer */
  GPtrArray *buffers;
} Collected;

static void
collected_init (Collected * c)
{
  c->caps = NULL;
  c->buffers = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
}

static void
collected_clear (Collected * c)
{
  gst_clear_caps (&c->caps);
  g_ptr_array_unref (c->buffers);
}

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, Collected * c)
{
  if (!c->caps)
    c->caps = gst_pad_get_current_caps (pad);
  g_ptr_array_add (c->buffers, gst_buffer_ref (buf));
}

/* Runs `desc` to EOS or an error; the buffers reaching the fakesink named
 * "sink" (if any) land in `c`.  Returns the error message, or NULL at EOS. */
static GstMessage *
run (const gchar * desc, Collected * c)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstElement *sink;
  GstMessage *msg;
  GstBus *bus;

  fail_unless (pipe != NULL, "%s: %s", desc, err ? err->message : "?");
  g_clear_error (&err);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  if (sink && c) {
    g_object_set (sink, "signal-handoffs", TRUE, "sync", FALSE, NULL);
    g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), c);
  }
  gst_clear_object (&sink);
  bus = gst_element_get_bus (pipe);
  /* a failure to start posts its error on the bus too */
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: neither EOS nor an error in 120 s", desc);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
    gst_message_unref (msg);
    return NULL;
  }
  return msg;
}

static gchar *
error_text (GstMessage * msg)
{
  GError *err = NULL;
  gchar *dbg = NULL, *s;

  gst_message_parse_error (msg, &err, &dbg);
  s = g_strdup_printf ("%s (%s)", err->message, dbg ? dbg : "");
  g_error_free (err);
  g_free (dbg);
  return s;
}

static void
run_ok (const gchar * desc, Collected * c)
{
  GstMessage *msg = run (desc, c);

  if (msg) {
    gchar *s = error_text (msg);

    fail ("%s: %s", desc, s);
    g_free (s);
  }
}

/* The error `desc` must end in, with `needle` in its text. */
static void
run_error (const gchar * desc, const gchar * needle)
{
  GstMessage *msg = run (desc, NULL);
  gchar *s;

  fail_unless (msg != NULL, "%s: reached EOS, an error was expected", desc);
  s = error_text (msg);
  GST_INFO ("%s: %s", desc, s);
  fail_unless (strstr (s, needle) != NULL, "%s: error \"%s\" does not say "
      "\"%s\"", desc, s, needle);
  g_free (s);
  gst_message_unref (msg);
}

/* What the plugin's (and GStreamer's) typefinders make of a file, as
 * decodebin's typefind would (extension first). */
static GstCaps *
typefind_file (const gchar * path, GstTypeFindProbability * prob)
{
  gchar *data;
  gsize len;
  const gchar *ext = strrchr (path, '.');
  GstCaps *caps;

  fail_unless (g_file_get_contents (path, &data, &len, NULL));
  caps = gst_type_find_helper_for_data_with_extension (NULL, (guint8 *) data,
      len, ext ? ext + 1 : NULL, prob);
  g_free (data);
  return caps;
}

/* The typefound caps of `path`: named `name` at the maximum probability,
 * with the string fields given as name, value pairs (NULL-terminated). */
static void
check_typefind (const gchar * path, const gchar * name, ...)
{
  GstTypeFindProbability prob = 0;
  GstCaps *caps = typefind_file (path, &prob);
  GstStructure *s;
  const gchar *field;
  va_list ap;

  fail_unless (caps != NULL, "%s: no type found", path);
  GST_INFO ("%s: %" GST_PTR_FORMAT " (%d)", path, caps, prob);
  s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_has_name (s, name), "%s: typefound as %"
      GST_PTR_FORMAT ", not %s", path, caps, name);
  fail_unless_equals_int (prob, GST_TYPE_FIND_MAXIMUM);
  va_start (ap, name);
  while ((field = va_arg (ap, const gchar *)))
  {
    const gchar *want = va_arg (ap, const gchar *);
    const gchar *got = gst_structure_get_string (s, field);

    fail_unless (g_strcmp0 (got, want) == 0, "%s: %s is %s, not %s in %"
        GST_PTR_FORMAT, path, field, got, want, caps);
  }
  va_end (ap);
  gst_caps_unref (caps);
}

/* ---- comparing frames ---- */

/* Every component sample of two frames of the same format and size. */
static void
check_same_frame (GstCaps * caps_a, GstBuffer * a, GstCaps * caps_b,
    GstBuffer * b, const gchar * what)
{
  GstVideoInfo ia, ib;
  GstVideoFrame fa, fb;
  guint c;
  gint x, y;

  fail_unless (gst_video_info_from_caps (&ia, caps_a));
  fail_unless (gst_video_info_from_caps (&ib, caps_b));
  fail_unless_equals_string (GST_VIDEO_INFO_NAME (&ia),
      GST_VIDEO_INFO_NAME (&ib));
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&ia),
      GST_VIDEO_INFO_WIDTH (&ib));
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&ia),
      GST_VIDEO_INFO_HEIGHT (&ib));
  fail_unless (gst_video_frame_map (&fa, &ia, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, &ib, b, GST_MAP_READ));
  for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (&fa); c++) {
    guint bytes = (GST_VIDEO_FRAME_COMP_DEPTH (&fa, c) + 7) / 8;

    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, c); y++)
      for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&fa, c); x++) {
        const guint8 *pa = GST_VIDEO_FRAME_COMP_DATA (&fa, c) +
            y * GST_VIDEO_FRAME_COMP_STRIDE (&fa, c) +
            x * GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, c);
        const guint8 *pb = GST_VIDEO_FRAME_COMP_DATA (&fb, c) +
            y * GST_VIDEO_FRAME_COMP_STRIDE (&fb, c) +
            x * GST_VIDEO_FRAME_COMP_PSTRIDE (&fb, c);

        if (memcmp (pa, pb, bytes) != 0)
          fail ("%s: component %u differs at (%d, %d)", what, c, x, y);
      }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
}

/* ---- JPEG 2000: our files through the typefinder and decodebin ---- */

typedef struct
{
  const gchar *encoder;         /* with its properties */
  const gchar *format;          /* video/x-raw input */
  gboolean jph;
  const gchar *colorspace, *sampling;   /* typefound */
  const gchar *out_format;      /* what decodebin gives (j2kdec) */
} J2kCase;

static const J2kCase j2k_cases[] = {
  {"htj2kenc reversible=true", "RGB", FALSE, "sRGB", "RGB", "RGB"},
  {"htj2kenc reversible=true", "I420", FALSE, "sYUV", "YCbCr-4:2:0", "I420"},
  {"htj2kenc reversible=true", "Y42B", FALSE, "sYUV", "YCbCr-4:2:2", "Y42B"},
  {"htj2kenc reversible=true", "Y444", FALSE, "sYUV", "YCbCr-4:4:4", "Y444"},
  {"htj2kenc reversible=true", "GRAY8", FALSE, "GRAY", "GRAYSCALE", "GRAY8"},
  {"htj2kenc reversible=true", "I420_10LE", FALSE, "sYUV", "YCbCr-4:2:0",
      "I420_10LE"},
  {"htj2kenc reversible=true jph=true", "RGB", TRUE, "sRGB", "RGB", "RGB"},
  {"htj2kenc reversible=true jph=true", "I420", TRUE, "sYUV", "YCbCr-4:2:0",
      "I420"},
  {"htj2kenc reversible=true jph=true", "Y444", TRUE, "sYUV", "YCbCr-4:4:4",
      "Y444"},
  {"htj2kenc reversible=true jph=true", "GRAY8", TRUE, "GRAY", "GRAYSCALE",
      "GRAY8"},
  {"ebcotcm reversible=true", "RGB", FALSE, "sRGB", "RGB", "RGB"},
  {"ebcotcm reversible=true", "I420", FALSE, "sYUV", "YCbCr-4:2:0", "I420"},
  {"ebcotcm reversible=true", "GRAY8", FALSE, "GRAY", "GRAYSCALE", "GRAY8"},
};

#define J2K_FRAMES 3

GST_START_TEST (test_j2k_files)
{
  const J2kCase *t = &j2k_cases[__i__];
  gchar *name = g_strdup_printf ("%.8s-%s.%s", t->encoder, t->format,
      t->jph ? "jph" : "j2c");
  gchar *path = tmp_path (name);
  gchar *desc;
  Collected src, out;
  guint i;

  collected_init (&src);
  collected_init (&out);

  /* a few frames of a moving picture, kept to compare with */
  desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "video/x-raw,format=%s,width=96,height=64,framerate=10/1 ! tee name=t "
      "t. ! queue ! %s ! filesink location=\"%s\" "
      "t. ! queue ! fakesink name=sink", J2K_FRAMES, t->format, t->encoder,
      path);
  run_ok (desc, &src);
  g_free (desc);
  fail_unless_equals_int (src.buffers->len, J2K_FRAMES);

  check_typefind (path, t->jph ? "image/x-jph" : "image/x-jpc",
      "colorspace", t->colorspace, "sampling", t->sampling, NULL);

  if (!have_elements ("jpeg2000parse", "openjpegdec", NULL))
    goto done;
  desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
      "fakesink name=sink", path);
  run_ok (desc, &out);
  g_free (desc);
  fail_unless (out.caps != NULL);
  GST_INFO ("%s: decodebin gives %" GST_PTR_FORMAT, name, out.caps);
  fail_unless (gst_structure_has_name (gst_caps_get_structure (out.caps, 0),
          "video/x-raw"));
  fail_unless_equals_string (gst_structure_get_string (gst_caps_get_structure
          (out.caps, 0), "format"), t->out_format);
  fail_unless_equals_int (out.buffers->len, J2K_FRAMES);
  for (i = 0; i < J2K_FRAMES; i++)
    check_same_frame (src.caps, g_ptr_array_index (src.buffers, i), out.caps,
        g_ptr_array_index (out.buffers, i), name);

done:
  collected_clear (&src);
  collected_clear (&out);
  g_free (path);
  g_free (name);
}

GST_END_TEST;

/* A large RGB codestream: GStreamer 1.22 alone calls it H.263. */
GST_START_TEST (test_j2k_not_h263)
{
  gchar *path = tmp_path ("big-rgb.j2c");
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGB,width=320,height=240 ! htj2kenc ! "
      "filesink location=\"%s\"", path);
  gchar *data;
  gsize len;
  GstCaps *caps;
  GstTypeFindProbability prob;

  run_ok (desc, NULL);
  check_typefind (path, "image/x-jpc", "colorspace", "sRGB", NULL);
  /* without the extension too */
  fail_unless (g_file_get_contents (path, &data, &len, NULL));
  caps = gst_type_find_helper_for_data (NULL, (guint8 *) data, len, &prob);
  fail_unless (caps != NULL);
  fail_unless (gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "image/x-jpc"), "typefound as %" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  g_free (data);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

/* ---- the typefinders on damaged and foreign data ---- */

/* A minimal Part 1 main header, then one empty tile-part and EOC. */
static GByteArray *
small_codestream (guint16 ncomp, guint8 dx1, guint8 mct)
{
  GByteArray *a = g_byte_array_new ();
  guint8 b[64];
  guint i, n = 0;

#define PUT16(v) (b[n++] = (v) >> 8, b[n++] = (v) & 0xff)
#define PUT32(v) (PUT16 ((v) >> 16), PUT16 ((v) & 0xffff))
  PUT16 (0xff4f);
  PUT16 (0xff51);
  PUT16 (38 + 3 * ncomp);
  PUT16 (0);
  PUT32 (96);
  PUT32 (64);
  PUT32 (0);
  PUT32 (0);
  PUT32 (96);
  PUT32 (64);
  PUT32 (0);
  PUT32 (0);
  PUT16 (ncomp);
  g_byte_array_append (a, b, n);
  for (i = 0; i < ncomp; i++) {
    guint8 c[3] = { 7, i ? dx1 : 1, i ? dx1 : 1 };
    g_byte_array_append (a, c, 3);
  }
  n = 0;
  PUT16 (0xff52);               /* COD: 0 levels, 64x64 blocks */
  PUT16 (12);
  b[n++] = 0;
  b[n++] = 0;
  PUT16 (1);
  b[n++] = mct;
  b[n++] = 0;
  b[n++] = 4;
  b[n++] = 4;
  b[n++] = 0;
  b[n++] = 1;
  PUT16 (0xff5c);               /* QCD: no quantisation, one band */
  PUT16 (4);
  b[n++] = 0x40;
  b[n++] = 0x40;
  PUT16 (0xff90);               /* SOT: tile 0, 14 bytes, then SOD */
  PUT16 (10);
  PUT16 (0);
  PUT32 (14);
  b[n++] = 0;
  b[n++] = 1;
  PUT16 (0xff93);
  PUT16 (0xffd9);
  g_byte_array_append (a, b, n);
#undef PUT16
#undef PUT32
  return a;
}

static GstCaps *
typefind_bytes (const guint8 * d, gsize n, GstTypeFindProbability * prob)
{
  *prob = 0;
  return gst_type_find_helper_for_data (NULL, d, n, prob);
}

/* Whether our typefinder (its caps carry num-components) names `d`. */
static gboolean
ours_named (const guint8 * d, gsize n)
{
  GstTypeFindProbability prob;
  GstCaps *caps = typefind_bytes (d, n, &prob);
  gboolean ours = caps && gst_structure_has_field (gst_caps_get_structure
      (caps, 0), "num-components");

  gst_clear_caps (&caps);
  return ours;
}

GST_START_TEST (test_jpc_typefinder)
{
  GByteArray *a;
  GstCaps *caps;
  GstTypeFindProbability prob;
  GstStructure *s;
  guint8 *d;

  /* a whole main header: certain, and its fields */
  a = small_codestream (3, 2, 0);
  caps = typefind_bytes (a->data, a->len, &prob);
  fail_unless (caps != NULL);
  s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_has_name (s, "image/x-jpc"));
  fail_unless_equals_int (prob, GST_TYPE_FIND_MAXIMUM);
  fail_unless_equals_string (gst_structure_get_string (s, "sampling"),
      "YCbCr-4:2:0");
  gst_caps_unref (caps);

  /* RGB through the colour transform; 4:4:4 without it */
  g_byte_array_unref (a);
  a = small_codestream (3, 1, 1);
  caps = typefind_bytes (a->data, a->len, &prob);
  fail_unless_equals_string (gst_structure_get_string
      (gst_caps_get_structure (caps, 0), "colorspace"), "sRGB");
  gst_caps_unref (caps);
  g_byte_array_unref (a);
  a = small_codestream (3, 1, 0);
  caps = typefind_bytes (a->data, a->len, &prob);
  fail_unless_equals_string (gst_structure_get_string
      (gst_caps_get_structure (caps, 0), "sampling"), "YCbCr-4:4:4");
  gst_caps_unref (caps);

  /* the start of one (the file goes on): likely, still with its fields */
  caps = typefind_bytes (a->data, 2 + 2 + 38 + 9, &prob);
  fail_unless (caps != NULL);
  fail_unless (gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "image/x-jpc"));
  fail_unless (prob >= GST_TYPE_FIND_LIKELY && prob < GST_TYPE_FIND_MAXIMUM);
  gst_caps_unref (caps);

  /* a Part 15 marker (CAP) after SIZ, as in every HTJ2K codestream */
  {
    static const guint8 cap[] = { 0xff, 0x50, 0x00, 0x08, 0x00, 0x02, 0x00,
      0x00, 0x00, 0x00
    };
    GByteArray *h = g_byte_array_new ();

    g_byte_array_append (h, a->data, 2 + 2 + 38 + 9);
    g_byte_array_append (h, cap, sizeof (cap));
    g_byte_array_append (h, a->data + 2 + 2 + 38 + 9,
        a->len - (2 + 2 + 38 + 9));
    caps = typefind_bytes (h->data, h->len, &prob);
    fail_unless (caps != NULL);
    fail_unless (gst_structure_has_name (gst_caps_get_structure (caps, 0),
            "image/x-jpc"));
    fail_unless_equals_int (prob, GST_TYPE_FIND_MAXIMUM);
    gst_caps_unref (caps);
    g_byte_array_unref (h);
  }

  /* SIZ fields no codestream has: not ours (GStreamer's own typefinder,
   * which reads no SIZ field, may still name it, without fields) */
  d = g_memdup2 (a->data, a->len);
  d[4 + 36 + 1] = 0;            /* Csiz 0 */
  fail_if (ours_named (d, a->len), "Csiz 0 typefound");
  memcpy (d, a->data, a->len);
  d[4 + 38 + 1] = 0;            /* XRsiz 0 */
  fail_if (ours_named (d, a->len), "XRsiz 0 typefound");
  memcpy (d, a->data, a->len);
  d[4 + 12 + 3] = 200;          /* XOsiz beyond Xsiz */
  fail_if (ours_named (d, a->len), "XOsiz > Xsiz typefound");
  memcpy (d, a->data, a->len);
  d[4 + 1] = 48;                /* Lsiz other than 38 + 3 Csiz */
  fail_if (ours_named (d, a->len), "a wrong Lsiz typefound");

  /* a marker a main header cannot hold: possible at most */
  memcpy (d, a->data, a->len);
  d[2 + 2 + 38 + 9 + 1] = 0x30;
  caps = typefind_bytes (d, a->len, &prob);
  fail_unless (caps == NULL || prob <= GST_TYPE_FIND_POSSIBLE ||
      !gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "image/x-jpc"));
  gst_clear_caps (&caps);
  g_free (d);
  g_byte_array_unref (a);
}

GST_END_TEST;

/* ---- htj2kparse: framing, resynchronisation, refusals ---- */

static gchar *
write_j2k_frames (const gchar * name, const gchar * enc, gint n)
{
  gchar *path = tmp_path (name);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "video/x-raw,format=I420,width=70,height=50 ! %s ! "
      "filesink location=\"%s\"", n, enc, path);

  run_ok (desc, NULL);
  g_free (desc);
  return path;
}

static gsize
parse_count (const gchar * path, const gchar * sink_caps, GstCaps ** caps)
{
  Collected out;
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" blocksize=777 ! "
      "%s ! htj2kparse ! fakesink name=sink", path, sink_caps);
  gsize n;

  collected_init (&out);
  run_ok (desc, &out);
  n = out.buffers->len;
  if (caps)
    *caps = out.caps ? gst_caps_ref (out.caps) : NULL;
  collected_clear (&out);
  g_free (desc);
  return n;
}

GST_START_TEST (test_parse_framing)
{
  gchar *jpc = write_j2k_frames ("p.j2c", "htj2kenc", 4);
  gchar *jph = write_j2k_frames ("p.jph", "htj2kenc jph=true", 3);
  gchar *p1 = write_j2k_frames ("p1.j2c", "ebcotcm layers=3", 2);
  gchar *data, *desc, *other = tmp_path ("other.j2c");
  gsize len;
  GstCaps *caps = NULL;
  GString *s;

  /* in 777-byte pieces: every codestream found, with its caps */
  fail_unless_equals_int (parse_count (jpc, "image/x-jpc", &caps), 4);
  fail_unless (caps != NULL);
  fail_unless_equals_string (gst_structure_get_string
      (gst_caps_get_structure (caps, 0), "sampling"), "YCbCr-4:2:0");
  gst_clear_caps (&caps);
  fail_unless_equals_int (parse_count (jph, "image/x-jph", &caps), 3);
  fail_unless_equals_string (gst_structure_get_string
      (gst_caps_get_structure (caps, 0), "colorspace"), "sYUV");
  gst_clear_caps (&caps);
  fail_unless_equals_int (parse_count (p1, "image/x-jpc", NULL), 2);

  /* bytes between codestreams: skipped (with a warning), both found */
  fail_unless (g_file_get_contents (jpc, &data, &len, NULL));
  s = g_string_new_len (data, len);
  g_string_insert_len (s, len / 2 + 3, "garbage", 7);
  g_file_set_contents (other, s->str, s->len, NULL);
  g_string_free (s, TRUE);
  fail_unless (parse_count (other, "image/x-jpc", NULL) >= 3);

  /* not a codestream at the start; a codestream cut short */
  g_file_set_contents (other, "abcdefghijklmnopqrstuvwxyz", 26, NULL);
  desc = g_strdup_printf ("filesrc location=\"%s\" ! image/x-jpc ! "
      "htj2kparse ! fakesink", other);
  run_error (desc, "does not begin with a JPEG 2000 codestream");
  g_file_set_contents (other, data, len - 100, NULL);
  run_error (desc, "ends inside a codestream");
  g_file_set_contents (other, data, 60, NULL);
  run_error (desc, "main header");
  g_free (desc);
  g_free (data);

  /* a JPH file cut short */
  fail_unless (g_file_get_contents (jph, &data, &len, NULL));
  g_file_set_contents (other, data, len / 3 - 5, NULL);
  desc = g_strdup_printf ("filesrc location=\"%s\" ! image/x-jph ! "
      "htj2kparse ! fakesink", other);
  run_error (desc, "ends inside a JPH file");
  g_free (desc);
  g_free (data);

  g_free (other);
  g_free (jpc);
  g_free (jph);
  g_free (p1);
}

GST_END_TEST;

/* Mutated codestreams and JPH files, in pieces of random sizes, through
 * the typefinders and htj2kparse (GstHarness): whatever the damage, an
 * end (EOS or an error), and every buffer out a whole codestream, SOC and
 * SIZ to EOC. */
static guint32 rng_state = 2024;

static guint32
rng (void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

static void
mutate_and_parse (const guint8 * orig, gsize len, const gchar * caps)
{
  guint8 *d = g_memdup2 (orig, len);
  gsize n = len, off = 0;
  guint k, changes = 1 + rng () % 4;
  GstTypeFindProbability prob;
  GstHarness *h;
  GstBuffer *out;
  GstCaps *found;

  for (k = 0; k < changes; k++) {
    /* mostly in the headers, where the parser looks */
    gsize at = rng () % 3 ? rng () % MIN (len, 400) : rng () % len;

    d[at] = rng () % 4 ? (guint8) rng () : d[at] ^ 0x80;
  }
  if (rng () % 4 == 0)
    n = 1 + rng () % len;

  found = gst_type_find_helper_for_data (NULL, d, n, &prob);
  gst_clear_caps (&found);

  h = gst_harness_new ("htj2kparse");
  gst_harness_set_src_caps_str (h, caps);
  while (off < n) {
    gsize piece = 1 + rng () % 2000;

    piece = MIN (n - off, piece);

    if (gst_harness_push (h, gst_buffer_new_memdup (d + off, piece)) !=
        GST_FLOW_OK)
      break;
    off += piece;
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  while ((out = gst_harness_try_pull (h))) {
    GstMapInfo map;

    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    fail_unless (map.size >= 6 && map.data[0] == 0xff && map.data[1] == 0x4f
        && map.data[2] == 0xff && map.data[3] == 0x51
        && map.data[map.size - 2] == 0xff && map.data[map.size - 1] == 0xd9,
        "a buffer out that is not a whole codestream (%" G_GSIZE_FORMAT
        " bytes)", map.size);
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  g_free (d);
}

GST_START_TEST (test_parse_mutated)
{
  gchar *jpc = write_j2k_frames ("m.j2c", "htj2kenc", 3);
  gchar *jph = write_j2k_frames ("m.jph", "htj2kenc jph=true", 2);
  gchar *p1 = write_j2k_frames ("m1.j2c", "ebcotcm", 2);
  gchar *data;
  gsize len;
  guint i;

  fail_unless (g_file_get_contents (jpc, &data, &len, NULL));
  for (i = 0; i < 150; i++)
    mutate_and_parse ((guint8 *) data, len, "image/x-jpc");
  g_free (data);
  fail_unless (g_file_get_contents (p1, &data, &len, NULL));
  for (i = 0; i < 100; i++)
    mutate_and_parse ((guint8 *) data, len, "image/x-jpc");
  g_free (data);
  fail_unless (g_file_get_contents (jph, &data, &len, NULL));
  for (i = 0; i < 150; i++)
    mutate_and_parse ((guint8 *) data, len, "image/x-jph");
  g_free (data);
  g_free (jpc);
  g_free (jph);
  g_free (p1);
}

GST_END_TEST;

/* ---- the other files: DPCM, seismic, FITS, ENVI ---- */

/* `filesrc location=path ! decodebin [caps=...] ! fakesink`: the error, or
 * NULL at EOS with what came out in `out`. */
static GstMessage *
decodebin (const gchar * path, const gchar * caps, Collected * out)
{
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin%s%s%s "
      "! fakesink name=sink", path, caps ? " caps=\"" : "", caps ? caps : "",
      caps ? "\"" : "");
  GstMessage *msg = run (desc, out);

  g_free (desc);
  return msg;
}

static const gchar *
out_string (Collected * c, const gchar * field)
{
  fail_unless (c->caps != NULL);
  return gst_structure_get_string (gst_caps_get_structure (c->caps, 0), field);
}

/* Video frames written by `enc` (dpcmenc, fitsenc) come back exact. */
static void
check_video_file (const gchar * name, const gchar * format, const gchar * enc,
    gint frames, const gchar * type)
{
  gchar *path = tmp_path (name);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "video/x-raw,format=%s,width=90,height=62,framerate=10/1 ! tee name=t "
      "t. ! queue ! %s ! filesink location=\"%s\" "
      "t. ! queue ! fakesink name=sink", frames, format, enc, path);
  Collected src, out;
  GstMessage *msg;
  gint i;

  collected_init (&src);
  collected_init (&out);
  run_ok (desc, &src);
  check_typefind (path, type, NULL);
  msg = decodebin (path, NULL, &out);
  fail_unless (msg == NULL, "%s through decodebin: %s", name,
      msg ? error_text (msg) : "");
  fail_unless (gst_structure_has_name (gst_caps_get_structure (out.caps, 0),
          "video/x-raw"));
  fail_unless_equals_string (out_string (&out, "format"), format);
  fail_unless_equals_int (out.buffers->len, frames);
  for (i = 0; i < frames; i++)
    check_same_frame (src.caps, g_ptr_array_index (src.buffers, i), out.caps,
        g_ptr_array_index (out.buffers, i), name);
  collected_clear (&src);
  collected_clear (&out);
  g_free (desc);
  g_free (path);
}

GST_START_TEST (test_dpcm_file)
{
  check_video_file ("f16.dpcm", "GRAY16_LE", "dpcmenc", 3,
      "application/x-dpcm");
  check_video_file ("f8.dpcm", "GRAY8", "dpcmenc", 2, "application/x-dpcm");
}

GST_END_TEST;

GST_START_TEST (test_fits_file)
{
  if (!have_elements ("fitsenc", "fitsdec", NULL))
    return;
  /* one file a frame */
  check_video_file ("f16.fits", "GRAY16_LE", "fitsenc", 1, "image/fits");
  check_video_file ("f8.fits", "GRAY8", "fitsenc", 1, "image/fits");
}

GST_END_TEST;

GST_START_TEST (test_seismic_file)
{
  const gint traces = 24, samples = 300;
  gsize n = (gsize) traces * samples;
  gfloat *g = g_new (gfloat, n);
  gchar *raw = tmp_path ("gather.f32"), *path = tmp_path ("gather.seis");
  gchar *desc;
  Collected out;
  GstMessage *msg;
  gsize i;
  gint v;

  for (i = 0; i < n; i++)
    g[i] = 100.0f * sinf (0.05f * (i % samples)) * expf (-0.001f * (i %
            samples)) + (i / samples);
  fail_unless (g_file_set_contents (raw, (gchar *) g, n * sizeof (gfloat),
          NULL));
  desc = g_strdup_printf ("filesrc location=\"%s\" blocksize=%" G_GSIZE_FORMAT
      " ! application/x-seismic,traces=%d,samples=%d,sample-interval=4000 ! "
      "seismicenc ! filesink location=\"%s\"", raw, n * sizeof (gfloat),
      traces, samples, path);
  run_ok (desc, NULL);
  g_free (desc);
  check_typefind (path, "application/x-seismic-compressed", NULL);

  /* application/x-seismic is not final to decodebin: it gives up */
  collected_init (&out);
  msg = decodebin (path, NULL, &out);
  fail_unless (msg != NULL, "decodebin took application/x-seismic as final");
  gst_message_unref (msg);
  collected_clear (&out);

  /* ... unless told to stop there */
  collected_init (&out);
  msg = decodebin (path, "application/x-seismic", &out);
  fail_unless (msg == NULL, "%s", msg ? error_text (msg) : "");
  fail_unless (gst_structure_has_name (gst_caps_get_structure (out.caps, 0),
          "application/x-seismic"));
  fail_unless (gst_structure_get_int (gst_caps_get_structure (out.caps, 0),
          "traces", &v));
  fail_unless_equals_int (v, traces);
  fail_unless_equals_int (out.buffers->len, 1);
  fail_unless_equals_int (gst_buffer_get_size (g_ptr_array_index
          (out.buffers, 0)), n * sizeof (gfloat));
  collected_clear (&out);
  g_free (g);
  g_free (raw);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_envi_file)
{
  const gint L = 9, S = 11, B = 4;
  gsize n = (gsize) L * S * B * 2, i;
  guint8 *cube = g_malloc (n);
  gchar *raw = tmp_path ("cube.raw"), *hdr = tmp_path ("cube.hdr");
  gchar *desc;
  Collected out;
  GstMessage *msg;
  GstMapInfo map;
  gint v;

  /* envidec is built with envisink (GDAL) */
  if (!have_elements ("envisink", NULL))
    goto done;
  for (i = 0; i < n; i++)
    cube[i] = (guint8) (i * 7 + i / 13);
  fail_unless (g_file_set_contents (raw, (gchar *) cube, n, NULL));
  desc = g_strdup_printf ("filesrc location=\"%s\" blocksize=%" G_GSIZE_FORMAT
      " ! application/x-hyperspectral,lines=%d,samples=%d,bands=%d,"
      "format=U16LE,interleave=bip ! envisink location=\"%s\"", raw, n, L, S,
      B, hdr);
  run_ok (desc, NULL);
  g_free (desc);
  check_typefind (hdr, "application/x-envi-header", NULL);

  /* no final type without caps */
  collected_init (&out);
  msg = decodebin (hdr, NULL, &out);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  collected_clear (&out);

  collected_init (&out);
  msg = decodebin (hdr, "application/x-hyperspectral", &out);
  fail_unless (msg == NULL, "%s", msg ? error_text (msg) : "");
  fail_unless (gst_structure_has_name (gst_caps_get_structure (out.caps, 0),
          "application/x-hyperspectral"));
  fail_unless (gst_structure_get_int (gst_caps_get_structure (out.caps, 0),
          "bands", &v));
  fail_unless_equals_int (v, B);
  fail_unless_equals_string (out_string (&out, "format"), "U16LE");
  fail_unless_equals_int (out.buffers->len, 1);
  fail_unless (gst_buffer_map (g_ptr_array_index (out.buffers, 0), &map,
          GST_MAP_READ));
  fail_unless (map.size == n && memcmp (map.data, cube, n) == 0);
  gst_buffer_unmap (g_ptr_array_index (out.buffers, 0), &map);
  collected_clear (&out);

done:
  g_free (cube);
  g_free (raw);
  g_free (hdr);
}

GST_END_TEST;

/* ---- the rest of the suite ---- */

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("test-typefind-XXXXXX", NULL);
  fail_unless (tmpdir != NULL);
}

static void
teardown (void)
{
  GDir *dir = g_dir_open (tmpdir, 0, NULL);
  const gchar *name;

  while (dir && (name = g_dir_read_name (dir))) {
    gchar *p = tmp_path (name);

    g_unlink (p);
    g_free (p);
  }
  if (dir)
    g_dir_close (dir);
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

static Suite *
typefind_suite (void)
{
  Suite *s = suite_create ("typefind");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_j2k_files, 0, G_N_ELEMENTS (j2k_cases));
  tcase_add_test (tc, test_j2k_not_h263);
  tcase_add_test (tc, test_jpc_typefinder);
  tcase_add_test (tc, test_parse_framing);
  tcase_add_test (tc, test_parse_mutated);
  tcase_add_test (tc, test_dpcm_file);
  tcase_add_test (tc, test_fits_file);
  tcase_add_test (tc, test_seismic_file);
  tcase_add_test (tc, test_envi_file);
  return s;
}

GST_CHECK_MAIN (typefind);
