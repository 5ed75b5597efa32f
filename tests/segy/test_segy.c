/*
 * segysrc, segysink and GstSciSegyMeta.
 *
 * - the meta's records (gst/gstscisegymeta.c, linked in): round trip, the
 *   transform, and refusals of cut, duplicated, incomplete and corrupted
 *   records, of wrong decompressed sizes, of file headers beyond 32767
 *   extended headers or other than their binary header counts, of more
 *   trace headers than the gather's traces, of a crafted 8 KB
 *   decompression bomb;
 * - IBM float conversion against segyio's (exact for normalised IBM values
 *   within float's range) and against a bound on the rounding error, ties
 *   to even; integer rounding and clamping;
 * - the real files of ../shared/data/seismic (SCI_TEST_DATA_DIR; skipped
 *   where absent): f3.sgy (int16 BE), f3-lsb.sgy (int16 LE),
 *   Format1msb.sgy (IBM) and Format5msb.sgy (IEEE) read to identical
 *   floats, checked against segyio and a direct parse of the bytes;
 *   segysrc ! segysink gives every file back byte for byte for
 *   gather-traces 1, 7, 96 and the whole file and with gather keys (ffid on
 *   the shot gather: records 2, 3, 5, 8; inline on small.sgy);
 * - every sample format in both byte orders written from a meta and read
 *   back; a file written without meta (read back, and by segyio); gathers
 *   without meta or of the other byte order in a file from a meta;
 * - extended textual headers, counted and ended by ((SEG: EndText));
 * - refusals: missing file, text file, truncated file (the whole traces,
 *   then the error), zero samples, unsupported format, headers out of the
 *   file; caps against the file header, trace-header size, unwritable
 *   location, samples changing; a few hundred random mutations of the
 *   binary header and first trace header (an error or data, never a
 *   crash);
 * - the blocksize of the base classes shadowed, read-only, on segysrc and
 *   segysink;
 * - segyparse: the gathers, caps, metas, offsets, warnings and outcome of
 *   segysrc, from every file of ../shared/data/seismic and generated files
 *   (every format, both byte orders, extended headers counted and
 *   variable, key runs, cut inside a trace, headers only) pushed in one
 *   buffer, 1-byte, 7-byte and odd-sized chunks; errors with byte offsets;
 *   filesrc ! decodebin (and a stream pushed into decodebin) giving the
 *   same gathers, and decodebin ! segysink the same file;
 * - the typefinder: every SEG-Y file found (whole, and from its first
 *   2 KiB), no other file of ../shared/data, none of the plugin's other
 *   formats (seismic and DPCM frames, J2K codestreams), no junk.
 */
#include <gst/check/gstcheck.h>
#include <gst/base/gsttypefindhelper.h>
#include <gst/app/gstappsink.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>
#include <segyio/segy.h>

#include "gst/gstscifitsmeta.h"
#include "gst/gstscisegymeta.h"

#define F3_TRACES 414
#define F3_SAMPLES 75

/* ---- helpers ---- */

static guint32 rng_state = 2463534242u;

static guint32
rng (void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

/* The path of a file of ../shared/data/seismic, or NULL when absent. */
static gchar *
data_file (const gchar * name)
{
  const gchar *dir = g_getenv ("SCI_TEST_DATA_DIR");
  gchar *p = g_build_filename (dir ? dir : "../shared/data", "seismic", name,
      NULL);

  if (!g_file_test (p, G_FILE_TEST_IS_REGULAR)) {
    g_print ("%s absent: checks on it skipped\n", p);
    g_free (p);
    return NULL;
  }
  return p;
}

static gchar *
tmp_dir (void)
{
  GError *err = NULL;
  gchar *dir = g_dir_make_tmp ("test-segy-XXXXXX", &err);

  fail_unless (dir != NULL, "%s", err ? err->message : "");
  return dir;
}

static void
remove_dir (gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  if (d) {
    while ((name = g_dir_read_name (d))) {
      gchar *p = g_build_filename (dir, name, NULL);

      g_unlink (p);
      g_free (p);
    }
    g_dir_close (d);
  }
  g_rmdir (dir);
  g_free (dir);
}

static void
write_file (const gchar * path, gconstpointer data, gsize len)
{
  GError *err = NULL;

  fail_unless (g_file_set_contents (path, data, len, &err), "%s",
      err ? err->message : "");
}

static guint8 *
read_file (const gchar * path, gsize * len)
{
  gchar *data = NULL;
  GError *err = NULL;

  fail_unless (g_file_get_contents (path, &data, len, &err), "%s",
      err ? err->message : "");
  return (guint8 *) data;
}

/* Runs a pipeline to EOS or ERROR: TRUE at EOS; FALSE at ERROR with its
 * message and debug text in `*error` (g_free); the first warning, if
 * asked, in `*warning`.  The pipeline is then set to NULL. */
static gboolean
run (GstElement * pipeline, gchar ** error, gchar ** warning)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gboolean eos = FALSE, done = FALSE;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    GError *err = NULL;
    gchar *dbg = NULL;

    fail_unless (m != NULL, "the pipeline neither ended nor failed");
    switch (GST_MESSAGE_TYPE (m)) {
      case GST_MESSAGE_EOS:
        eos = done = TRUE;
        break;
      case GST_MESSAGE_ERROR:
        gst_message_parse_error (m, &err, &dbg);
        if (error)
          *error = g_strdup_printf ("%s | %s", err->message, dbg);
        done = TRUE;
        break;
      case GST_MESSAGE_WARNING:
        gst_message_parse_warning (m, &err, &dbg);
        if (warning && !*warning)
          *warning = g_strdup_printf ("%s | %s", err->message, dbg);
        break;
      default:
        break;
    }
    g_clear_error (&err);
    g_free (dbg);
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  return eos;
}

typedef struct
{
  GPtrArray *bufs;              /* GstBuffer, one a gather */
  GPtrArray *caps;              /* GstCaps of each */
} Gathers;

static void
gathers_init (Gathers * g)
{
  g->bufs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  g->caps = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_caps_unref);
}

static void
gathers_clear (Gathers * g)
{
  g_ptr_array_unref (g->bufs);
  g_ptr_array_unref (g->caps);
}

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, Gathers * g)
{
  g_ptr_array_add (g->bufs, gst_buffer_ref (buf));
  g_ptr_array_add (g->caps, gst_pad_get_current_caps (pad));
}

static GstElement *
make_src (const gchar * path, guint gather_traces, const gchar * key)
{
  GstElement *src = gst_element_factory_make ("segysrc", NULL);

  fail_unless (src != NULL);
  if (path)
    g_object_set (src, "location", path, NULL);
  if (gather_traces)
    g_object_set (src, "gather-traces", gather_traces, NULL);
  if (key)
    gst_util_set_object_arg (G_OBJECT (src), "gather-key", key);
  return src;
}

/* segysrc ! fakesink: the gathers; TRUE at EOS. */
static gboolean
read_gathers (const gchar * path, guint gather_traces, const gchar * key,
    Gathers * g, gchar ** error, gchar ** warning)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *src = make_src (path, gather_traces, key);
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  gboolean ok;

  g_object_set (sink, "signal-handoffs", TRUE, "sync", FALSE, NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), g);
  gst_bin_add_many (GST_BIN (pipeline), src, sink, NULL);
  fail_unless (gst_element_link (src, sink));
  ok = run (pipeline, error, warning);
  gst_object_unref (pipeline);
  return ok;
}

/* segysrc ! segysink; TRUE at EOS. */
static gboolean
copy_file (const gchar * in, const gchar * out, guint gather_traces,
    const gchar * key, gchar ** error)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *src = make_src (in, gather_traces, key);
  GstElement *sink = gst_element_factory_make ("segysink", NULL);
  gboolean ok;

  fail_unless (sink != NULL);
  g_object_set (sink, "location", out, NULL);
  gst_bin_add_many (GST_BIN (pipeline), src, sink, NULL);
  fail_unless (gst_element_link (src, sink));
  ok = run (pipeline, error, NULL);
  gst_object_unref (pipeline);
  return ok;
}

static gint
caps_int (GstCaps * caps, const gchar * field)
{
  gint v = -1;

  fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          field, &v), "no %s in %" GST_PTR_FORMAT, field, caps);
  return v;
}

/* All the samples of the gathers, trace after trace; checks that each
 * buffer is what its caps say. */
static gfloat *
all_samples (Gathers * g, gsize * n_traces, gint * samples)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gfloat));
  guint i;

  *n_traces = 0;
  *samples = 0;
  for (i = 0; i < g->bufs->len; i++) {
    GstBuffer *b = g_ptr_array_index (g->bufs, i);
    GstCaps *c = g_ptr_array_index (g->caps, i);
    gint t = caps_int (c, "traces"), s = caps_int (c, "samples");
    GstMapInfo map;

    fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
    fail_unless_equals_uint64 (map.size, (gsize) t * s * 4);
    g_array_append_vals (a, map.data, (guint) t * s);
    gst_buffer_unmap (b, &map);
    *n_traces += t;
    *samples = s;
  }
  return (gfloat *) g_array_free (a, FALSE);
}

/* The 4-byte trace-header field at 1-based byte `byte`. */
static gint32
th_field (const guint8 * th, guint byte, gboolean le)
{
  return le ? (gint32) GST_READ_UINT32_LE (th + byte - 1) :
      (gint32) GST_READ_UINT32_BE (th + byte - 1);
}

/* Each gather's meta holds the file's bytes: the file header, its traces'
 * headers, the first trace at the buffer's offset. */
static void
check_metas (Gathers * g, const guint8 * file, gsize file_len,
    gsize header_len, gsize trace_len)
{
  guint64 next = 0;
  guint i;

  for (i = 0; i < g->bufs->len; i++) {
    GstBuffer *b = g_ptr_array_index (g->bufs, i);
    gint t = caps_int (g_ptr_array_index (g->caps, i), "traces"), k;
    GstSciSegyMeta *m = gst_buffer_get_sci_segy_meta (b);
    const guint8 *th;
    gsize len;

    fail_unless (m != NULL, "gather %u has no GstSciSegyMeta", i);
    fail_unless_equals_uint64 (m->first_trace, next);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), next);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (b), next + t);
    th = g_bytes_get_data (m->file_header, &len);
    fail_unless_equals_uint64 (len, header_len);
    fail_unless (memcmp (th, file, len) == 0);
    th = g_bytes_get_data (m->trace_headers, &len);
    fail_unless_equals_uint64 (len, (gsize) t * 240);
    for (k = 0; k < t; k++)
      fail_unless (memcmp (th + 240 * k, file + header_len + (next + k) *
              trace_len, 240) == 0, "gather %u trace %d header", i, k);
    next += t;
  }
  fail_unless_equals_uint64 (header_len + next * trace_len, file_len);
}

/* segyio's reading of a file: the samples as floats (formats 1, 2, 3, 5,
 * 8 of segyio 1.8), or NULL if segyio cannot read it. */
static gfloat *
segyio_read (const gchar * path, gboolean lsb, gint * traces, gint * samples)
{
  segy_file *fp = segy_open (path, "rb");
  gchar bin[SEGY_BINARY_HEADER_SIZE];
  gint fmt, bsize, i, j, err;
  glong trace0;
  gfloat *out;
  guint8 *buf;

  fail_unless (fp != NULL);
  fail_unless_equals_int (segy_set_format (fp, lsb ? SEGY_LSB : SEGY_MSB), 0);
  fail_unless_equals_int (segy_binheader (fp, bin), 0);
  fmt = segy_format (bin);
  *samples = segy_samples (bin);
  trace0 = segy_trace0 (bin);
  bsize = segy_trsize (fmt, *samples);
  fail_unless (bsize > 0);
  fail_unless_equals_int (segy_set_format (fp, fmt |
          (lsb ? SEGY_LSB : SEGY_MSB)), 0);
  fail_unless_equals_int (segy_traces (fp, traces, trace0, bsize), 0);
  out = g_new (gfloat, (gsize) * traces * *samples);
  buf = g_malloc (bsize);
  for (i = 0; i < *traces; i++) {
    err = segy_readtrace (fp, i, buf, trace0, bsize);
    fail_unless_equals_int (err, 0);
    /* big-endian now; to host order (IBM: to IEEE) */
    fail_unless_equals_int (segy_to_native (fmt, *samples, buf), 0);
    for (j = 0; j < *samples; j++) {
      gfloat v;

      switch (fmt) {
        case 1:
        case 5:
          memcpy (&v, buf + 4 * j, 4);
          break;
        case 2:
          v = ((gint32 *) buf)[j];
          break;
        case 3:
          v = ((gint16 *) buf)[j];
          break;
        default:
          v = ((gint8 *) buf)[j];
          break;
      }
      out[(gsize) i * *samples + j] = v;
    }
  }
  g_free (buf);
  segy_close (fp);
  return out;
}

/* ---- the meta's records ---- */

static GBytes *
random_bytes (gsize n)
{
  guint8 *p = g_malloc (n);
  gsize i;

  /* compressible, like real headers: runs of a few values */
  for (i = 0; i < n; i++)
    p[i] = (rng () % 4) ? 0x40 : rng ();
  return g_bytes_new_take (p, n);
}

/* A zstd frame made of RLE blocks that decompresses to `size` zero bytes,
 * so that its content size can exceed any buffer worth allocating here. */
static GByteArray *
rle_frame (guint64 size)
{
  GByteArray *a = g_byte_array_new ();
  guint8 head[13];
  guint64 left = size;
  guint i;

  GST_WRITE_UINT32_LE (head, 0xFD2FB528u);
  head[4] = 0xE0;               /* 8-byte content size, single segment */
  for (i = 0; i < 8; i++)
    head[5 + i] = (size >> (8 * i)) & 0xff;
  g_byte_array_append (a, head, 13);
  while (left) {
    guint32 n = MIN (left, 128 * 1024), bh;
    guint8 b[4];

    left -= n;
    bh = (left == 0) | (1 << 1) | (n << 3);     /* last, RLE, size */
    b[0] = bh & 0xff;
    b[1] = (bh >> 8) & 0xff;
    b[2] = (bh >> 16) & 0xff;
    b[3] = 0;                   /* the byte repeated */
    g_byte_array_append (a, b, 4);
  }
  return a;
}

/* Records of `file` and `traces` (their compression as given, raw bytes
 * already compressed) with first_trace `first`. */
static GBytes *
records (GBytes * fz, GBytes * tz, guint64 first, gboolean with_ft)
{
  GByteArray *a = g_byte_array_new ();
  guint8 ft[8];

  if (fz)
    gst_sci_meta_append_record (a, "SYFZ", g_bytes_get_data (fz, NULL),
        g_bytes_get_size (fz));
  if (tz)
    gst_sci_meta_append_record (a, "SYTZ", g_bytes_get_data (tz, NULL),
        g_bytes_get_size (tz));
  GST_WRITE_UINT64_LE (ft, first);
  if (with_ft)
    gst_sci_meta_append_record (a, "SYFT", ft, 8);
  return g_byte_array_free_to_bytes (a);
}

static GBytes *
zstd (GBytes * b)
{
  gsize len = g_bytes_get_size (b), cap = ZSTD_compressBound (len);
  guint8 *z = g_malloc (cap);
  gsize n = ZSTD_compress (z, cap, g_bytes_get_data (b, NULL), len, 3);

  fail_if (ZSTD_isError (n));
  return g_bytes_new_take (z, n);
}

/* Whether the records of a gather of `traces` traces are refused, with
 * nothing added. */
static void
expect_refused_n (GBytes * rec, guint64 traces, const gchar * what)
{
  GstBuffer *b = gst_buffer_new ();
  gboolean added = TRUE;

  fail_if (gst_buffer_add_sci_segy_meta_from_records (b,
          g_bytes_get_data (rec, NULL), g_bytes_get_size (rec), traces,
          &added), "%s: accepted", what);
  fail_if (added, "%s", what);
  fail_unless (gst_buffer_get_sci_segy_meta (b) == NULL, "%s", what);
  gst_buffer_unref (b);
}

/* ... of the 7 traces of test_meta_records */
static void
expect_refused (GBytes * rec, const gchar * what)
{
  expect_refused_n (rec, 7, what);
}

/* A file header of 3600 + 3200 `ext` bytes whose binary header (IBM
 * floats, 10 samples) counts `count` extended textual headers. */
static GBytes *
counted_file_header (guint ext, gint count)
{
  gsize len = 3600 + 3200 * (gsize) ext;
  guint8 *h = g_malloc (len);

  memset (h, 0x40, len);
  memset (h + 3200, 0, 400);
  GST_WRITE_UINT16_BE (h + 3220, 10);
  GST_WRITE_UINT16_BE (h + 3224, 1);
  GST_WRITE_UINT16_BE (h + 3504, (guint16) count);
  return g_bytes_new_take (h, len);
}

GST_START_TEST (test_meta_records)
{
  GBytes *file = random_bytes (3600 + 2 * 3200);
  GBytes *traces = random_bytes (240 * 7);
  GstBuffer *a = gst_buffer_new (), *b = gst_buffer_new (), *c;
  GstSciSegyMeta *m, *n;
  GBytes *rec, *bad, *fz, *tz;
  GByteArray *arr;
  const guint8 *p;
  gboolean added = FALSE;
  gsize len, cut;
  guint i;

  m = gst_buffer_add_sci_segy_meta (a, file, traces,
      G_GUINT64_CONSTANT (0x123456789a));
  fail_unless (m != NULL);
  fail_unless (m->file_header == file && m->trace_headers == traces);

  /* round trip, after foreign records (FITS cards) */
  rec = gst_sci_segy_meta_serialize (m);
  fail_unless (rec != NULL);
  arr = g_byte_array_new ();
  gst_sci_meta_append_record (arr, "FHDR", "SIMPLE  =", 9);
  g_byte_array_append (arr, g_bytes_get_data (rec, NULL),
      g_bytes_get_size (rec));
  gst_sci_meta_append_record (arr, "XXXX", NULL, 0);
  fail_unless (gst_buffer_add_sci_segy_meta_from_records (b, arr->data,
          arr->len, 7, &added));
  fail_unless (added);
  n = gst_buffer_get_sci_segy_meta (b);
  fail_unless (n != NULL);
  fail_unless (g_bytes_equal (n->file_header, file));
  fail_unless (g_bytes_equal (n->trace_headers, traces));
  fail_unless_equals_uint64 (n->first_trace, G_GUINT64_CONSTANT (0x123456789a));
  /* zstd did compress */
  fail_unless (g_bytes_get_size (rec) < g_bytes_get_size (file) +
      g_bytes_get_size (traces));
  g_byte_array_unref (arr);

  /* no SEG-Y records: well-formed, nothing added */
  c = gst_buffer_new ();
  added = TRUE;
  fail_unless (gst_buffer_add_sci_segy_meta_from_records (c, NULL, 0, 7,
          &added));
  fail_if (added);
  fail_unless (gst_buffer_get_sci_segy_meta (c) == NULL);
  gst_buffer_unref (c);

  /* the transform keeps the same bytes */
  c = gst_buffer_copy (a);
  n = gst_buffer_get_sci_segy_meta (c);
  fail_unless (n && n->file_header == file && n->trace_headers == traces);
  fail_unless_equals_uint64 (n->first_trace, m->first_trace);
  gst_buffer_unref (c);

  /* every cut of the records is refused (a cut at a record boundary
   * leaves an incomplete set) */
  p = g_bytes_get_data (rec, &len);
  for (cut = 1; cut < len; cut++) {
    bad = g_bytes_new (p, cut);
    expect_refused (bad, "cut records");
    g_bytes_unref (bad);
  }
  /* a byte of the zstd frame headers changed */
  for (i = 0; i < 5; i++) {
    guint8 *q = g_memdup2 (p, len);
    gsize at = i < 4 ? 8 + i : 8 + GST_READ_UINT32_LE (p + 4) + 8 + 1;

    q[at] ^= 0x5a;
    bad = g_bytes_new_take (q, len);
    expect_refused (bad, "changed frame header");
    g_bytes_unref (bad);
  }

  /* records built by hand */
  fz = zstd (file);
  tz = zstd (traces);
  bad = records (fz, tz, 5, TRUE);
  c = gst_buffer_new ();
  fail_unless (gst_buffer_add_sci_segy_meta_from_records (c,
          g_bytes_get_data (bad, NULL), g_bytes_get_size (bad), 7, NULL));
  fail_unless (gst_buffer_get_sci_segy_meta (c) != NULL);
  gst_buffer_unref (c);
  g_bytes_unref (bad);
  /* incomplete sets */
  bad = records (fz, tz, 5, FALSE);
  expect_refused (bad, "no SYFT");
  g_bytes_unref (bad);
  bad = records (fz, NULL, 5, TRUE);
  expect_refused (bad, "no SYTZ");
  g_bytes_unref (bad);
  bad = records (NULL, tz, 5, TRUE);
  expect_refused (bad, "no SYFZ");
  g_bytes_unref (bad);
  /* a record twice */
  {
    GByteArray *d = g_byte_array_new ();
    GBytes *one = records (fz, tz, 5, TRUE);

    g_byte_array_append (d, g_bytes_get_data (one, NULL),
        g_bytes_get_size (one));
    gst_sci_meta_append_record (d, "SYTZ", g_bytes_get_data (tz, NULL),
        g_bytes_get_size (tz));
    bad = g_byte_array_free_to_bytes (d);
    expect_refused (bad, "SYTZ twice");
    g_bytes_unref (bad);
    g_bytes_unref (one);
  }
  /* SYFT of 4 bytes */
  {
    GByteArray *d = g_byte_array_new ();
    GBytes *two = records (fz, tz, 5, FALSE);

    g_byte_array_append (d, g_bytes_get_data (two, NULL),
        g_bytes_get_size (two));
    gst_sci_meta_append_record (d, "SYFT", "abcd", 4);
    bad = g_byte_array_free_to_bytes (d);
    expect_refused (bad, "short SYFT");
    g_bytes_unref (bad);
    g_bytes_unref (two);
  }
  /* raw, uncompressed payloads */
  bad = records (file, tz, 5, TRUE);
  expect_refused (bad, "SYFZ not zstd");
  g_bytes_unref (bad);
  /* a frame followed by junk, and two frames */
  {
    GByteArray *d = g_byte_array_new ();
    GBytes *fz2;

    g_byte_array_append (d, g_bytes_get_data (tz, NULL), g_bytes_get_size (tz));
    g_byte_array_append (d, (const guint8 *) "junk", 4);
    fz2 = g_byte_array_free_to_bytes (d);
    bad = records (fz, fz2, 5, TRUE);
    expect_refused (bad, "junk after the frame");
    g_bytes_unref (bad);
    g_bytes_unref (fz2);
    d = g_byte_array_new ();
    g_byte_array_append (d, g_bytes_get_data (tz, NULL), g_bytes_get_size (tz));
    g_byte_array_append (d, g_bytes_get_data (tz, NULL), g_bytes_get_size (tz));
    fz2 = g_byte_array_free_to_bytes (d);
    bad = records (fz, fz2, 5, TRUE);
    expect_refused (bad, "two frames");
    g_bytes_unref (bad);
    g_bytes_unref (fz2);
  }
  /* wrong decompressed sizes */
  {
    GBytes *odd_file = random_bytes (3600 + 3199), *odd_tr =
        random_bytes (240 * 3 + 1), *short_file = random_bytes (3599);
    GBytes *z1 = zstd (odd_file), *z2 = zstd (odd_tr), *z3 = zstd (short_file);

    bad = records (z1, tz, 5, TRUE);
    expect_refused (bad, "file header of 6799 bytes");
    g_bytes_unref (bad);
    bad = records (z3, tz, 5, TRUE);
    expect_refused (bad, "file header of 3599 bytes");
    g_bytes_unref (bad);
    bad = records (fz, z2, 5, TRUE);
    expect_refused (bad, "trace headers of 721 bytes");
    g_bytes_unref (bad);
    g_bytes_unref (odd_file);
    g_bytes_unref (odd_tr);
    g_bytes_unref (short_file);
    g_bytes_unref (z1);
    g_bytes_unref (z2);
    g_bytes_unref (z3);
  }
  /* the bounds: a file header of 3600 + 3200 x 32767 bytes (zeros: no
   * binary header that counts them) is taken, one more record refused
   * before anything is inflated */
  {
    guint64 most = 3600 + 3200 * G_GUINT64_CONSTANT (32767);
    GByteArray *f;
    GBytes *big;

    f = rle_frame (most);
    big = g_byte_array_free_to_bytes (f);
    bad = records (big, tz, 5, TRUE);
    c = gst_buffer_new ();
    fail_unless (gst_buffer_add_sci_segy_meta_from_records (c,
            g_bytes_get_data (bad, NULL), g_bytes_get_size (bad), 7, &added));
    fail_unless (added);
    fail_unless_equals_uint64 (g_bytes_get_size (gst_buffer_get_sci_segy_meta
            (c)->file_header), most);
    gst_buffer_unref (c);
    g_bytes_unref (bad);
    g_bytes_unref (big);
    f = rle_frame (most + 3200);
    big = g_byte_array_free_to_bytes (f);
    bad = records (big, tz, 5, TRUE);
    expect_refused (bad, "32768 extended textual headers");
    g_bytes_unref (bad);
    g_bytes_unref (big);
  }
  /* the trace headers: at most 240 bytes a trace of the gather */
  bad = records (fz, tz, 5, TRUE);
  expect_refused_n (bad, 6, "7 trace headers for a gather of 6 traces");
  expect_refused_n (bad, 0, "7 trace headers for a gather of none");
  c = gst_buffer_new ();
  fail_unless (gst_buffer_add_sci_segy_meta_from_records (c,
          g_bytes_get_data (bad, NULL), g_bytes_get_size (bad), 8, &added));
  fail_unless (added);
  gst_buffer_unref (c);
  g_bytes_unref (bad);
  /* a decompression bomb: 16 KB of records (8 KB a frame of zstd RLE
   * blocks) announcing 256 MiB of file header and 256 MiB of trace headers
   * for a gather of 7 traces is refused from the announced sizes, nothing
   * inflated */
  {
    GByteArray *f1 = rle_frame (3600 + 3200 * G_GUINT64_CONSTANT (83884));
    GByteArray *f2 = rle_frame (240 * G_GUINT64_CONSTANT (1118481));
    GBytes *b1, *b2;

    fail_unless (f1->len < 8300 && f2->len < 8300, "%u, %u bytes", f1->len,
        f2->len);
    b1 = g_byte_array_free_to_bytes (f1);
    b2 = g_byte_array_free_to_bytes (f2);
    bad = records (b1, b2, 5, TRUE);
    expect_refused (bad, "16 KB inflating to 512 MiB");
    g_bytes_unref (bad);
    /* either part alone */
    bad = records (b1, tz, 5, TRUE);
    expect_refused (bad, "8 KB inflating to a 256 MiB file header");
    g_bytes_unref (bad);
    bad = records (fz, b2, 5, TRUE);
    expect_refused (bad, "8 KB inflating to 256 MiB of trace headers");
    g_bytes_unref (bad);
    g_bytes_unref (b1);
    g_bytes_unref (b2);
  }
  /* a binary header that counts its extended headers: exactly that many */
  {
    const struct
    {
      guint ext;
      gint count;
      gboolean ok;
    } cases[] = { {2, 2, TRUE}, {2, 1, FALSE}, {2, 3, FALSE}, {0, 0, TRUE},
    {1, 0, FALSE}, {3, -1, TRUE}
    };

    for (i = 0; i < G_N_ELEMENTS (cases); i++) {
      GBytes *h = counted_file_header (cases[i].ext, cases[i].count);
      GBytes *hz = zstd (h);

      bad = records (hz, tz, 5, TRUE);
      c = gst_buffer_new ();
      fail_unless (gst_buffer_add_sci_segy_meta_from_records (c,
              g_bytes_get_data (bad, NULL), g_bytes_get_size (bad), 7,
              &added) == cases[i].ok, "%u headers, %d counted", cases[i].ext,
          cases[i].count);
      fail_unless ((gst_buffer_get_sci_segy_meta (c) != NULL) == cases[i].ok);
      if (cases[i].ok)
        fail_unless (g_bytes_equal (gst_buffer_get_sci_segy_meta
                (c)->file_header, h));
      gst_buffer_unref (c);
      g_bytes_unref (bad);
      g_bytes_unref (hz);
      g_bytes_unref (h);
    }
  }

  g_bytes_unref (fz);
  g_bytes_unref (tz);
  g_bytes_unref (rec);
  g_bytes_unref (file);
  g_bytes_unref (traces);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
}

GST_END_TEST;

/* ---- sample conversions ---- */

/* The IBM float `u` as a double (exact), by the definition. */
static gdouble
ibm_value (guint32 u)
{
  gdouble v = (u & 0xffffff) / 16777216.0;
  gint e = (gint) ((u >> 24) & 0x7f) - 64;

  for (; e > 0; e--)
    v *= 16;
  for (; e < 0; e++)
    v /= 16;
  return (u & 0x80000000u) ? -v : v;
}

GST_START_TEST (test_ibm)
{
  static const struct
  {
    guint32 ibm;
    gfloat v;
  } known[] = {
    {0x41100000, 1.0f}, {0xC1100000, -1.0f}, {0xC276A000, -118.625f},
    {0x42640000, 100.0f}, {0x40800000, 0.5f}, {0x3E100000, 1.0f / 4096},
    {0x00000000, 0.0f}, {0x80000000, -0.0f},
  };
  guint i, exact = 0;

  for (i = 0; i < G_N_ELEMENTS (known); i++) {
    guint32 got = gst_sci_segy_ibm_from_float (known[i].v);

    fail_unless (got == known[i].ibm, "%g -> %08x, expected %08x",
        known[i].v, got, known[i].ibm);
    fail_unless (gst_sci_segy_ibm_to_float (known[i].ibm) == known[i].v);
  }
  fail_unless (signbit (gst_sci_segy_ibm_to_float (0x80000000)));

  /* rounding to nearest, ties to even: near 1 the IBM step is 2^-20 */
  fail_unless_equals_int (gst_sci_segy_ibm_from_float (1.0f + 0x1p-22f),
      0x41100000);
  fail_unless_equals_int (gst_sci_segy_ibm_from_float (1.0f + 0x1p-21f),
      0x41100000);
  fail_unless_equals_int (gst_sci_segy_ibm_from_float (1.0f + 3 * 0x1p-21f),
      0x41100002);
  fail_unless_equals_int (gst_sci_segy_ibm_from_float (1.0f + 3 * 0x1p-22f),
      0x41100001);
  /* the largest mantissa: 16 - 2^-20 */
  fail_unless_equals_int (gst_sci_segy_ibm_from_float (16.0f - 0x1p-20f),
      0x41ffffff);
  fail_unless_equals_int (gst_sci_segy_ibm_from_float (INFINITY), 0x7fffffff);
  fail_unless_equals_int (gst_sci_segy_ibm_from_float (-INFINITY),
      (gint) 0xffffffff);
  fail_unless_equals_int (gst_sci_segy_ibm_from_float (NAN), 0);
  /* beyond float's range */
  fail_unless (isinf (gst_sci_segy_ibm_to_float (0x61100000)));
  fail_unless (gst_sci_segy_ibm_to_float (0x01100000) == 0.0f);

  for (i = 0; i < 200000; i++) {
    /* normalised IBM values within float's normal range come back */
    guint32 u = (rng () & 0x80ffffff) | 0x00100000 |
        ((guint32) (rng () % 50 + 40) << 24);
    gfloat f = gst_sci_segy_ibm_to_float (u);
    gchar native[4];
    gfloat ref;
    gdouble x, back, ulp;
    guint32 w;
    gint e;

    fail_unless_equals_int (gst_sci_segy_ibm_from_float (f), u);
    fail_unless ((gdouble) f == ibm_value (u), "%08x", u);
    GST_WRITE_UINT32_BE (native, u);
    segy_to_native (SEGY_IBM_FLOAT_4_BYTE, 1, native);
    memcpy (&ref, native, 4);
    fail_unless (ref == f, "%08x: segyio %g, ours %g", u, ref, f);

    /* random floats: the nearest IBM value */
    w = rng ();
    memcpy (&f, &w, 4);
    if (!isfinite (f))
      continue;
    u = gst_sci_segy_ibm_from_float (f);
    x = f;
    back = ibm_value (u);
    if (x == 0) {
      fail_unless (back == 0);
      continue;
    }
    /* the IBM step at back's hexadecimal exponent */
    e = (gint) ((u >> 24) & 0x7f) - 64;
    ulp = ldexp (1.0, 4 * e - 24);
    fail_unless ((u & 0xffffff) >= 0x100000, "%g -> %08x not normalised", x, u);
    fail_unless (fabs (back - x) <= ulp / 2, "%g -> %08x = %g", x, u, back);
    if (fabs (back - x) == ulp / 2)
      fail_unless ((u & 1) == 0, "tie of %g not to even", x);
    if (back == x)
      exact++;
  }
  fail_unless (exact > 1000);
}

GST_END_TEST;

GST_START_TEST (test_int_rounding)
{
  const gfloat in[] = { 1.5f, 2.5f, -1.5f, -2.5f, 0.49f, 40000.0f,
    -40000.0f, NAN, INFINITY, -INFINITY, 32767.4f, -32768.6f
  };
  const gint16 want16[] = { 2, 2, -2, -2, 0, 32767, -32768, 0, 32767,
    -32768, 32767, -32768
  };
  const guint n = G_N_ELEMENTS (in);
  guint8 out[8 * G_N_ELEMENTS (in)];
  gfloat back[G_N_ELEMENTS (in)];
  guint64 nan = 0, clamped = 0;
  guint i;

  gst_sci_segy_samples_from_float (3, FALSE, in, out, n, &nan, &clamped);
  for (i = 0; i < n; i++)
    fail_unless_equals_int ((gint16) GST_READ_UINT16_BE (out + 2 * i),
        want16[i]);
  fail_unless_equals_uint64 (nan, 1);
  fail_unless_equals_uint64 (clamped, 5);
  gst_sci_segy_samples_to_float (3, FALSE, out, back, n);
  for (i = 0; i < n; i++)
    fail_unless (back[i] == want16[i]);

  /* little-endian int16 */
  gst_sci_segy_samples_from_float (3, TRUE, in, out, 1, NULL, NULL);
  fail_unless (out[0] == 2 && out[1] == 0);
  /* int8, uint8, int24, uint16 */
  nan = clamped = 0;
  gst_sci_segy_samples_from_float (8, FALSE, in, out, n, &nan, &clamped);
  fail_unless_equals_int ((gint8) out[5], 127);
  fail_unless_equals_int ((gint8) out[6], -128);
  fail_unless_equals_int ((gint8) out[3], -2);
  fail_unless_equals_uint64 (clamped, 6);
  gst_sci_segy_samples_from_float (16, FALSE, in, out, n, NULL, NULL);
  fail_unless_equals_int (out[2], 0);
  fail_unless_equals_int (out[5], 255);
  gst_sci_segy_samples_from_float (7, TRUE, in, out, n, NULL, NULL);
  fail_unless (out[18] == 0xc0 && out[19] == 0x63 && out[20] == 0xff);
  gst_sci_segy_samples_to_float (7, TRUE, out, back, n);
  fail_unless (back[2] == -2.0f && back[6] == -40000.0f);
  gst_sci_segy_samples_from_float (11, FALSE, in, out, n, NULL, NULL);
  fail_unless_equals_int (GST_READ_UINT16_BE (out + 10), 40000);
  fail_unless_equals_int (GST_READ_UINT16_BE (out + 12), 0);
  /* int32 near its ends, int64 and uint64 beyond them */
  {
    const gfloat big[] = { 2147483648.0f, -2147483648.0f, 2147483520.0f,
      1e30f, -1e30f
    };
    gfloat b2[5];

    gst_sci_segy_samples_from_float (2, FALSE, big, out, 5, NULL, NULL);
    fail_unless_equals_int ((gint32) GST_READ_UINT32_BE (out), G_MAXINT32);
    fail_unless_equals_int ((gint32) GST_READ_UINT32_BE (out + 4), G_MININT32);
    fail_unless_equals_int ((gint32) GST_READ_UINT32_BE (out + 8), 2147483520);
    gst_sci_segy_samples_from_float (9, TRUE, big, out, 5, NULL, NULL);
    fail_unless (GST_READ_UINT64_LE (out + 24) == (guint64) G_MAXINT64);
    fail_unless (GST_READ_UINT64_LE (out + 32) == (guint64) G_MININT64);
    gst_sci_segy_samples_to_float (9, TRUE, out, b2, 5);
    fail_unless (b2[3] == 9223372036854775808.0f);
    gst_sci_segy_samples_from_float (12, FALSE, big, out, 5, NULL, NULL);
    fail_unless (GST_READ_UINT64_BE (out + 24) == G_MAXUINT64);
    fail_unless (GST_READ_UINT64_BE (out + 32) == 0);
    fail_unless (GST_READ_UINT64_BE (out) == G_GUINT64_CONSTANT (2147483648));
  }
}

GST_END_TEST;

/* ---- the real files ---- */

static const gchar *const all_files[] = { "f3.sgy", "f3-lsb.sgy",
  "Format1msb.sgy", "Format5msb.sgy", "shot-gather.sgy", "small.sgy"
};

/* The four f3 files read to identical floats, which are segyio's and a
 * direct parse of f3-lsb.sgy's bytes. */
GST_START_TEST (test_f3_formats)
{
  const gchar *names[] = { "f3.sgy", "f3-lsb.sgy", "Format1msb.sgy",
    "Format5msb.sgy"
  };
  gfloat *first = NULL;
  guint f;

  for (f = 0; f < G_N_ELEMENTS (names); f++) {
    gchar *path = data_file (names[f]), *err = NULL;
    Gathers g;
    gfloat *s, *ref, lo = G_MAXFLOAT, hi = -G_MAXFLOAT;
    gsize traces, i, len;
    gint samples, rt, rs;
    guint8 *file;

    if (!path)
      continue;
    gathers_init (&g);
    fail_unless (read_gathers (path, F3_TRACES, NULL, &g, &err, NULL), "%s",
        err);
    fail_unless_equals_int (g.bufs->len, 1);
    s = all_samples (&g, &traces, &samples);
    fail_unless_equals_uint64 (traces, F3_TRACES);
    fail_unless_equals_int (samples, F3_SAMPLES);
    fail_unless_equals_int (caps_int (g_ptr_array_index (g.caps, 0),
            "sample-interval"), 4000);
    for (i = 0; i < traces * samples; i++) {
      lo = MIN (lo, s[i]);
      hi = MAX (hi, s[i]);
    }
    /* PROVENANCE.md: -10239 .. 10827 */
    fail_unless (lo == -10239.0f && hi == 10827.0f, "%s: %g .. %g",
        names[f], lo, hi);
    if (!first) {
      first = g_memdup2 (s, traces * samples * 4);
    } else {
      fail_unless (memcmp (first, s, traces * samples * 4) == 0,
          "%s does not read as %s", names[f], names[0]);
    }

    /* segyio */
    ref = segyio_read (path, f == 1, &rt, &rs);
    fail_unless_equals_int (rt, F3_TRACES);
    fail_unless_equals_int (rs, F3_SAMPLES);
    fail_unless (memcmp (ref, s, traces * samples * 4) == 0,
        "%s: segysrc and segyio differ", names[f]);
    g_free (ref);

    /* the bytes themselves: int16 little-endian after 3600 bytes */
    file = read_file (path, &len);
    if (f == 1) {
      for (i = 0; i < traces * samples; i++) {
        gsize t = i / samples, k = i % samples;
        gint16 v = GST_READ_UINT16_LE (file + 3600 + t * (240 + 150) + 240 +
            2 * k);

        fail_unless (s[i] == v, "trace %" G_GSIZE_FORMAT " sample %"
            G_GSIZE_FORMAT ": %g, the file %d", t, k, s[i], v);
      }
    }
    check_metas (&g, file, len, 3600, 240 + samples * (f < 2 ? 2 : 4));
    g_free (file);
    g_free (s);
    gathers_clear (&g);
    g_free (path);
  }
  g_free (first);
}

GST_END_TEST;

/* The number of traces and the trace size of a file of 3600-byte headers. */
static void
file_layout (const gchar * path, gsize * traces, gsize * trace_len)
{
  gsize len;
  guint8 *f = read_file (path, &len);
  guint fmt = GST_READ_UINT16_BE (f + 3224), samples;
  gboolean le = fmt > 255;

  samples = le ? GST_READ_UINT16_LE (f + 3220) : GST_READ_UINT16_BE (f + 3220);
  fmt = le ? GST_READ_UINT16_LE (f + 3224) : fmt;
  *trace_len = 240 + samples * (fmt == 3 ? 2 : 4);
  *traces = (len - 3600) / *trace_len;
  fail_unless_equals_uint64 (3600 + *traces * *trace_len, len);
  g_free (f);
}

/* segysrc ! segysink gives every file back byte for byte, whatever the
 * gathers; the metas hold the file's bytes. */
GST_START_TEST (test_round_trip_files)
{
  gchar *dir = tmp_dir ();
  guint f, k;

  for (f = 0; f < G_N_ELEMENTS (all_files); f++) {
    gchar *path = data_file (all_files[f]);
    gsize traces, trace_len, len, len2;
    guint8 *in;

    if (!path)
      continue;
    file_layout (path, &traces, &trace_len);
    in = read_file (path, &len);
    for (k = 0; k < 5; k++) {
      const guint sizes[] = { 1, 7, 96, traces, 16777216 };
      gchar *out = g_strdup_printf ("%s/%u-%u.sgy", dir, f, k), *err = NULL;
      guint8 *back;
      Gathers g;
      guint i;

      fail_unless (copy_file (path, out, sizes[k], NULL, &err), "%s: %s",
          all_files[f], err);
      back = read_file (out, &len2);
      fail_unless_equals_uint64 (len2, len);
      fail_unless (memcmp (in, back, len) == 0, "%s, gather-traces=%u: "
          "the copy differs", all_files[f], sizes[k]);
      g_free (back);

      /* the gathers: sizes[k] traces, the last one shorter */
      gathers_init (&g);
      fail_unless (read_gathers (path, sizes[k], NULL, &g, &err, NULL));
      fail_unless_equals_int (g.bufs->len, (traces + sizes[k] - 1) / sizes[k]);
      for (i = 0; i < g.bufs->len; i++)
        fail_unless_equals_int (caps_int (g_ptr_array_index (g.caps, i),
                "traces"), MIN (sizes[k], traces - i * sizes[k]));
      check_metas (&g, in, len, 3600, trace_len);
      gathers_clear (&g);
      g_free (out);
    }
    g_free (in);
    g_free (path);
  }
  remove_dir (dir);
}

GST_END_TEST;

/* The gathers of a key: runs of equal values; round trips byte for byte. */
static void
check_key (const gchar * name, const gchar * key, guint byte, gboolean le,
    guint gather_traces, const gint * values, const guint * lengths, guint n)
{
  gchar *path = data_file (name), *dir, *out, *err = NULL;
  gsize len, len2, traces, trace_len;
  guint8 *in, *back;
  Gathers g;
  guint i, t;

  if (!path)
    return;
  file_layout (path, &traces, &trace_len);
  in = read_file (path, &len);
  gathers_init (&g);
  fail_unless (read_gathers (path, gather_traces, key, &g, &err, NULL),
      "%s", err);
  fail_unless_equals_int (g.bufs->len, n);
  for (i = 0; i < n; i++) {
    GstSciSegyMeta *m = gst_buffer_get_sci_segy_meta (g_ptr_array_index
        (g.bufs, i));
    const guint8 *th = g_bytes_get_data (m->trace_headers, NULL);

    fail_unless_equals_int (caps_int (g_ptr_array_index (g.caps, i),
            "traces"), lengths[i]);
    for (t = 0; t < lengths[i]; t++)
      fail_unless_equals_int (th_field (th + 240 * t, byte, le), values[i]);
  }
  check_metas (&g, in, len, 3600, trace_len);
  gathers_clear (&g);

  dir = tmp_dir ();
  out = g_strdup_printf ("%s/copy.sgy", dir);
  fail_unless (copy_file (path, out, gather_traces, key, &err), "%s", err);
  back = read_file (out, &len2);
  fail_unless (len2 == len && memcmp (in, back, len) == 0);
  g_free (back);
  g_free (out);
  remove_dir (dir);
  g_free (in);
  g_free (path);
}

GST_START_TEST (test_gather_keys)
{
  /* PROVENANCE.md: field records 2, 3, 5, 8 */
  const gint ffid[] = { 2, 3, 5, 8 };
  const guint ffid_n[] = { 10, 12, 13, 26 };
  const gint il[] = { 1, 2, 3, 4, 5 };
  const guint il_n[] = { 5, 5, 5, 5, 5 };
  gint f3_il[23];
  guint f3_n[23], i;

  /* one gather a shot, whatever gather-traces says */
  check_key ("shot-gather.sgy", "ffid", 9, FALSE, 0, ffid, ffid_n, 4);
  check_key ("shot-gather.sgy", "ffid", 9, FALSE, 3, ffid, ffid_n, 4);
  check_key ("small.sgy", "inline", 189, FALSE, 0, il, il_n, 5);
  /* f3: 23 inlines of 18 traces */
  for (i = 0; i < 23; i++) {
    f3_il[i] = 111 + i;
    f3_n[i] = 18;
  }
  check_key ("f3-lsb.sgy", "inline", 189, TRUE, 0, f3_il, f3_n, 23);
}

GST_END_TEST;

/* Gathers are timestamped one after the other from 0: a record length
 * each (samples x sample interval), or gather-duration; their offsets are
 * trace numbers. */
GST_START_TEST (test_timestamps)
{
  gchar *path = data_file ("shot-gather.sgy"), *err = NULL;
  const guint n_traces[] = { 10, 12, 13, 26 };
  guint pass, i;

  if (!path)
    return;
  for (pass = 0; pass < 2; pass++) {
    GstElement *pipeline = gst_pipeline_new (NULL);
    GstElement *src = make_src (path, 0, "ffid");
    GstElement *sink = gst_element_factory_make ("fakesink", NULL);
    /* not `first`: gst-check's equality macros declare their own */
    guint64 trace = 0;
    GstClockTime d;
    Gathers g;

    gathers_init (&g);
    if (pass)
      g_object_set (src, "gather-duration", (guint64) GST_SECOND / 3, NULL);
    g_object_set (sink, "signal-handoffs", TRUE, "sync", FALSE, NULL);
    g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &g);
    gst_bin_add_many (GST_BIN (pipeline), src, sink, NULL);
    fail_unless (gst_element_link (src, sink));
    fail_unless (run (pipeline, &err, NULL), "%s", err);
    gst_object_unref (pipeline);
    fail_unless_equals_int (g.bufs->len, 4);
    d = pass ? GST_SECOND / 3 :
        (GstClockTime) caps_int (g_ptr_array_index (g.caps, 0), "samples") *
        caps_int (g_ptr_array_index (g.caps, 0), "sample-interval") *
        GST_USECOND;
    fail_unless (d > 0);
    for (i = 0; i < 4; i++) {
      GstBuffer *b = g_ptr_array_index (g.bufs, i);

      fail_unless_equals_uint64 (GST_BUFFER_PTS (b), i * d);
      fail_unless_equals_uint64 (GST_BUFFER_DURATION (b), d);
      fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), trace);
      fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (b),
          trace + n_traces[i]);
      trace += n_traces[i];
    }
    gathers_clear (&g);
  }
  g_free (path);
}

GST_END_TEST;

/* ---- every sample format, written from a meta ---- */

#define SYN_SAMPLES 13
#define SYN_TRACES 6

/* A file header of 3600 bytes: textual header of EBCDIC spaces, binary
 * header of the given format, samples, interval and byte order. */
static GBytes *
file_header (guint format, guint samples, guint interval, gboolean le)
{
  guint8 *h = g_malloc0 (3600), *b = h + 3200;

  memset (h, 0x40, 3200);
  if (le) {
    GST_WRITE_UINT16_LE (b + 16, interval);
    GST_WRITE_UINT16_LE (b + 20, samples);
    GST_WRITE_UINT16_LE (b + 24, format);
  } else {
    GST_WRITE_UINT16_BE (b + 16, interval);
    GST_WRITE_UINT16_BE (b + 20, samples);
    GST_WRITE_UINT16_BE (b + 24, format);
  }
  return g_bytes_new_take (h, 3600);
}

static GstCaps *
seismic_caps (gint traces, gint samples, gint interval)
{
  return gst_caps_new_simple ("application/x-seismic", "traces", G_TYPE_INT,
      traces, "samples", G_TYPE_INT, samples, "sample-interval", G_TYPE_INT,
      interval, NULL);
}

/* appsrc (the buffers, each with the caps of its size) ! segysink. */
static gboolean
write_gathers (const gchar * path, GstBuffer ** bufs, guint n, gint samples,
    gint interval, gchar ** error, gchar ** warning)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("appsrc", NULL);
  GstElement *sink = gst_element_factory_make ("segysink", NULL);
  GstFlowReturn flow;
  gboolean ok;
  guint i;

  fail_unless (src && sink);
  g_object_set (src, "format", GST_FORMAT_TIME, NULL);
  if (path)
    g_object_set (sink, "location", path, NULL);
  gst_bin_add_many (GST_BIN (pipeline), src, sink, NULL);
  fail_unless (gst_element_link (src, sink));
  for (i = 0; i < n; i++) {
    gint traces = gst_buffer_get_size (bufs[i]) / 4 / samples;
    GstCaps *caps = seismic_caps (traces, samples, interval);
    GstSample *s = gst_sample_new (bufs[i], caps, NULL, NULL);

    g_signal_emit_by_name (src, "push-sample", s, &flow);
    fail_unless_equals_int (flow, GST_FLOW_OK);
    gst_sample_unref (s);
    gst_caps_unref (caps);
  }
  g_signal_emit_by_name (src, "end-of-stream", &flow);
  ok = run (pipeline, error, warning);
  gst_object_unref (pipeline);
  return ok;
}

/* The value a float becomes in an integer format of [lo, hi]. */
static gdouble
expect_int (gfloat v, gdouble lo, gdouble hi)
{
  gdouble r = rint (v);

  if (isnan (v))
    return 0;
  return r < lo ? lo : r > hi ? hi : r;
}

/* Samples with halves, large, tiny, negative and non-finite values. */
static gfloat
test_value (guint i)
{
  static const gfloat special[] = { 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 127.5f,
    -128.5f, 255.5f, 32767.5f, -32768.5f, 65535.5f, 1e10f, -1e10f, 3e38f,
    NAN, INFINITY, -INFINITY, 1e-30f, -0.0f, 8388607.5f, -8388608.5f,
    16777215.0f, 4294967295.0f, 1e20f
  };

  if (i < G_N_ELEMENTS (special))
    return special[i];
  return (gint32) rng () / (gfloat) (1 << (rng () % 31));
}

GST_START_TEST (test_write_formats)
{
  static const struct
  {
    guint format, bytes;
    gdouble lo, hi;             /* integers: range; else 0, 0 */
  } formats[] = {
    {1, 4, 0, 0}, {2, 4, -2147483648.0, 2147483647.0},
    {3, 2, -32768, 32767}, {5, 4, 0, 0}, {6, 8, 0, 0},
    {7, 3, -8388608, 8388607}, {8, 1, -128, 127},
    {9, 8, -9223372036854775808.0, 9223372036854775807.0},
    {10, 4, 0, 4294967295.0}, {11, 2, 0, 65535},
    {12, 8, 0, 18446744073709551615.0}, {15, 3, 0, 16777215},
    {16, 1, 0, 255},
  };
  gchar *dir = tmp_dir ();
  guint f, le, i, t;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (le = 0; le < 2; le++) {
      guint fmt = formats[f].format, b = formats[f].bytes;
      GBytes *fh = file_header (fmt, SYN_SAMPLES, 500, le);
      guint8 *th = g_malloc (240 * SYN_TRACES), *file;
      gfloat in[SYN_TRACES * SYN_SAMPLES], *back;
      gchar *path = g_strdup_printf ("%s/f%u-%u.sgy", dir, fmt, le);
      gchar *err = NULL, *warn = NULL;
      GstBuffer *bufs[2];
      GBytes *th1, *th2;
      gsize len, traces;
      gint samples;
      Gathers g;

      for (i = 0; i < 240 * SYN_TRACES; i++)
        th[i] = rng ();
      for (i = 0; i < SYN_TRACES * SYN_SAMPLES; i++)
        in[i] = test_value (i);
      /* gathers of 4 and 2 traces */
      th1 = g_bytes_new (th, 240 * 4);
      th2 = g_bytes_new (th + 240 * 4, 240 * 2);
      bufs[0] = gst_buffer_new_memdup (in, 4 * 4 * SYN_SAMPLES);
      bufs[1] = gst_buffer_new_memdup (in + 4 * SYN_SAMPLES,
          2 * 4 * SYN_SAMPLES);
      gst_buffer_add_sci_segy_meta (bufs[0], fh, th1, 0);
      gst_buffer_add_sci_segy_meta (bufs[1], fh, th2, 4);
      fail_unless (write_gathers (path, bufs, 2, SYN_SAMPLES, 500, &err,
              &warn), "format %u: %s", fmt, err);
      if (fmt != 5 && fmt != 6)
        fail_unless (warn && strstr (warn, "NaN"), "format %u: %s", fmt, warn);

      /* the bytes */
      file = read_file (path, &len);
      fail_unless_equals_uint64 (len, 3600 + SYN_TRACES * (240 +
              SYN_SAMPLES * b));
      fail_unless (memcmp (file, g_bytes_get_data (fh, NULL), 3600) == 0);
      for (t = 0; t < SYN_TRACES; t++) {
        const guint8 *tr = file + 3600 + t * (240 + SYN_SAMPLES * b);

        fail_unless (memcmp (tr, th + 240 * t, 240) == 0);
        for (i = 0; i < SYN_SAMPLES; i++) {
          const guint8 *p = tr + 240 + i * b;
          gfloat v = in[t * SYN_SAMPLES + i];
          guint64 u = 0;
          guint k;

          for (k = 0; k < b; k++)
            u |= (guint64) p[le ? k : b - 1 - k] << (8 * k);
          if (formats[f].hi != 0) {
            gdouble want = expect_int (v, formats[f].lo, formats[f].hi);
            gdouble got;

            if (formats[f].lo < 0) {
              gint64 sv = (gint64) (u << (64 - 8 * b)) >> (64 - 8 * b);
              got = (gdouble) sv;
            } else {
              got = (gdouble) u;
            }
            fail_unless (got == want, "format %u %s: %g written as %g, "
                "expected %g", fmt, le ? "LE" : "BE", v, got, want);
          } else if (fmt == 5) {
            guint32 w;

            memcpy (&w, &v, 4);
            fail_unless (u == w);
          } else if (fmt == 6) {
            gdouble d = v;
            guint64 w;

            memcpy (&w, &d, 8);
            fail_unless (u == w);
          } else {
            gdouble x = ibm_value ((guint32) u);

            if (isnan (v))
              fail_unless (u == 0);
            else if (isinf (v))
              fail_unless ((u & 0x7fffffff) == 0x7fffffff);
            else
              fail_unless (x == v || fabs (x - v) <= fabs (v) * 0x1p-20,
                  "%g written as %g", v, x);
          }
        }
      }
      g_free (file);

      /* read back: the values written, as floats */
      gathers_init (&g);
      fail_unless (read_gathers (path, 0, NULL, &g, &err, NULL), "%s", err);
      back = all_samples (&g, &traces, &samples);
      fail_unless_equals_uint64 (traces, SYN_TRACES);
      for (i = 0; i < SYN_TRACES * SYN_SAMPLES; i++) {
        gfloat v = in[i], want;

        if (formats[f].hi != 0)
          want = (gfloat) expect_int (v, formats[f].lo, formats[f].hi);
        else if (fmt == 1)
          want = gst_sci_segy_ibm_to_float (gst_sci_segy_ibm_from_float (v));
        else
          want = v;
        if (isnan (want))
          fail_unless (isnan (back[i]));
        else
          fail_unless (back[i] == want, "format %u %s, sample %u: %g read "
              "back as %g, expected %g", fmt, le ? "LE" : "BE", i, v,
              back[i], want);
      }
      g_free (back);
      gathers_clear (&g);

      gst_buffer_unref (bufs[0]);
      gst_buffer_unref (bufs[1]);
      g_bytes_unref (th1);
      g_bytes_unref (th2);
      g_bytes_unref (fh);
      g_free (th);
      g_free (path);
      g_free (err);
      g_free (warn);
    }
  }
  remove_dir (dir);
}

GST_END_TEST;

/* A file written without meta: a minimal rev 1 file that segysrc and
 * segyio read back with the same samples. */
GST_START_TEST (test_write_no_meta)
{
  gchar *dir = tmp_dir (), *path = g_strdup_printf ("%s/syn.sgy", dir);
  const gint samples = 37, interval = 2000;
  const guint n[] = { 5, 3, 5 };
  gfloat *in = g_new (gfloat, 13 * samples), *back, *ref;
  GstBuffer *bufs[3];
  gchar *err = NULL;
  gsize len, traces, i, off = 0;
  gint rt, rs, s2;
  guint8 *file;
  Gathers g;

  for (i = 0; i < 13 * (gsize) samples; i++)
    in[i] = (gint32) rng () / 65536.0f;
  for (i = 0; i < 3; i++) {
    bufs[i] = gst_buffer_new_memdup (in + off, n[i] * samples * 4);
    off += n[i] * samples;
  }
  fail_unless (write_gathers (path, bufs, 3, samples, interval, &err, NULL),
      "%s", err);
  file = read_file (path, &len);
  fail_unless_equals_uint64 (len, 3600 + 13 * (240 + samples * 4));
  /* EBCDIC "C 1 " and "C40 " cards; binary header; trace headers */
  fail_unless (file[0] == 0xc3 && file[1] == 0x40 && file[2] == 0xf1);
  fail_unless (file[39 * 80] == 0xc3 && file[39 * 80 + 1] == 0xf4);
  fail_unless_equals_int (GST_READ_UINT16_BE (file + 3216), interval);
  fail_unless_equals_int (GST_READ_UINT16_BE (file + 3220), samples);
  fail_unless_equals_int (GST_READ_UINT16_BE (file + 3224), 5);
  fail_unless_equals_int (file[3500], 1);
  fail_unless_equals_int (GST_READ_UINT16_BE (file + 3502), 1);
  fail_unless_equals_int (GST_READ_UINT16_BE (file + 3504), 0);
  for (i = 0; i < 13; i++) {
    const guint8 *th = file + 3600 + i * (240 + samples * 4);

    fail_unless_equals_int (th_field (th, 1, FALSE), i + 1);
    fail_unless_equals_int (th_field (th, 5, FALSE), i + 1);
    fail_unless_equals_int (GST_READ_UINT16_BE (th + 28), 1);
    fail_unless_equals_int (GST_READ_UINT16_BE (th + 114), samples);
    fail_unless_equals_int (GST_READ_UINT16_BE (th + 116), interval);
    fail_unless (GST_READ_FLOAT_BE (th + 240) == in[i * samples]);
  }
  g_free (file);

  gathers_init (&g);
  fail_unless (read_gathers (path, 0, NULL, &g, &err, NULL), "%s", err);
  back = all_samples (&g, &traces, &s2);
  fail_unless_equals_uint64 (traces, 13);
  fail_unless_equals_int (s2, samples);
  fail_unless_equals_int (caps_int (g_ptr_array_index (g.caps, 0),
          "sample-interval"), interval);
  fail_unless (memcmp (back, in, 13 * samples * 4) == 0);
  ref = segyio_read (path, FALSE, &rt, &rs);
  fail_unless (rt == 13 && rs == samples);
  fail_unless (memcmp (ref, in, 13 * samples * 4) == 0);
  g_free (ref);
  g_free (back);
  gathers_clear (&g);

  for (i = 0; i < 3; i++)
    gst_buffer_unref (bufs[i]);
  g_free (in);
  g_free (path);
  remove_dir (dir);
}

GST_END_TEST;

/* A little-endian file from a meta, then a gather without meta and one
 * whose meta is big-endian: those traces get minimal little-endian
 * headers, with a warning. */
GST_START_TEST (test_write_mixed)
{
  gchar *dir = tmp_dir (), *path = g_strdup_printf ("%s/mix.sgy", dir);
  gchar *err = NULL, *warn = NULL;
  GBytes *le = file_header (3, 4, 250, TRUE), *be = file_header (3, 4, 250,
      FALSE);
  GBytes *th = g_bytes_new_take (g_malloc0 (240 * 2), 240 * 2);
  const gfloat in[8] = { 1, 2, 3, 4, -5, -6, -7, -8 };
  GstBuffer *b[3];
  guint8 *file;
  gsize len;
  guint i;

  for (i = 0; i < 3; i++)
    b[i] = gst_buffer_new_memdup (in, sizeof (in));
  gst_buffer_add_sci_segy_meta (b[0], le, th, 0);
  gst_buffer_add_sci_segy_meta (b[2], be, th, 4);
  fail_unless (write_gathers (path, b, 3, 4, 250, &err, &warn), "%s", err);
  fail_unless (warn && strstr (warn, "get new headers"), "%s", warn);
  file = read_file (path, &len);
  fail_unless_equals_uint64 (len, 3600 + 6 * (240 + 8));
  fail_unless (memcmp (file, g_bytes_get_data (le, NULL), 3600) == 0);
  for (i = 0; i < 6; i++) {
    const guint8 *tr = file + 3600 + i * 248;

    if (i < 2) {
      fail_unless (tr[0] == 0 && tr[114] == 0);
    } else {
      fail_unless_equals_int (th_field (tr, 1, TRUE), i + 1);
      fail_unless_equals_int (th_field (tr, 5, TRUE), i + 1);
      fail_unless (tr[28] == 1 && tr[29] == 0);
      fail_unless (tr[114] == 4 && tr[115] == 0);
      fail_unless (tr[116] == 250 && tr[117] == 0);
    }
    /* int16 little-endian samples */
    fail_unless_equals_int ((gint16) GST_READ_UINT16_LE (tr + 240),
        (gint) in[(i % 2) * 4]);
  }
  g_free (file);
  for (i = 0; i < 3; i++)
    gst_buffer_unref (b[i]);
  g_bytes_unref (le);
  g_bytes_unref (be);
  g_bytes_unref (th);
  g_free (warn);
  g_free (path);
  remove_dir (dir);
}

GST_END_TEST;

/* ---- refusals ---- */

/* segysrc on `path` must post an ERROR whose text holds `what`. */
static void
expect_read_error (const gchar * path, const gchar * what, guint expect_traces)
{
  gchar *err = NULL;
  Gathers g;
  gsize traces;
  gint samples;
  gfloat *s;

  gathers_init (&g);
  fail_if (read_gathers (path, 0, NULL, &g, &err, NULL), "%s: no error", path);
  fail_unless (err && strstr (err, what), "%s: \"%s\" is not about \"%s\"",
      path, err, what);
  s = all_samples (&g, &traces, &samples);
  fail_unless (traces == expect_traces, "%s (%s): %" G_GSIZE_FORMAT
      " traces before the error, expected %u", path, what, traces,
      expect_traces);
  g_free (s);
  gathers_clear (&g);
  g_free (err);
}

GST_START_TEST (test_read_errors)
{
  gchar *dir = tmp_dir (), *p, *f3 = data_file ("f3.sgy"), *text;
  guint8 *file, *mut;
  gsize len;

  p = g_strdup_printf ("%s/missing.sgy", dir);
  expect_read_error (p, "no such file", 0);
  g_free (p);
  expect_read_error (dir, "not a regular file", 0);
  expect_read_error (NULL, "location is not set", 0);

  /* text files, short and long */
  p = g_strdup_printf ("%s/text.sgy", dir);
  write_file (p, "C 1 this is not a SEG-Y file\n", 29);
  expect_read_error (p, "not a SEG-Y file", 0);
  text = g_strnfill (5000, 'a');
  write_file (p, text, 5000);
  expect_read_error (p, "not a SEG-Y file", 0);
  g_free (text);
  g_free (p);

  if (f3) {
    file = read_file (f3, &len);
    p = g_strdup_printf ("%s/cut.sgy", dir);
    /* cut in the middle of trace 100: its 100 whole traces, then the
     * error */
    write_file (p, file, 3600 + 100 * 390 + 195);
    expect_read_error (p, "truncated", 100);
    /* cut inside the first trace */
    write_file (p, file, 3600 + 17);
    expect_read_error (p, "truncated", 0);
    /* only the headers: no traces, no error */
    write_file (p, file, 3600);
    {
      gchar *err = NULL, *warn = NULL;
      Gathers g;

      gathers_init (&g);
      fail_unless (read_gathers (p, 0, NULL, &g, &err, &warn), "%s", err);
      fail_unless_equals_int (g.bufs->len, 0);
      fail_unless (warn && strstr (warn, "no traces"), "%s", warn);
      gathers_clear (&g);
      g_free (warn);
    }
    g_free (p);

    p = g_strdup_printf ("%s/mut.sgy", dir);
    mut = g_memdup2 (file, len);
    /* 0 samples */
    GST_WRITE_UINT16_BE (mut + 3220, 0);
    write_file (p, mut, len);
    expect_read_error (p, "0 samples", 0);
    /* format 4 and a format code of no byte order */
    memcpy (mut, file, len);
    GST_WRITE_UINT16_BE (mut + 3224, 4);
    write_file (p, mut, len);
    expect_read_error (p, "not supported", 0);
    GST_WRITE_UINT16_BE (mut + 3224, 0x1234);
    write_file (p, mut, len);
    expect_read_error (p, "not a SEG-Y file", 0);
    /* extended headers beyond the file; a variable number never ended */
    memcpy (mut, file, len);
    GST_WRITE_UINT16_BE (mut + 3504, 1000);
    write_file (p, mut, len);
    expect_read_error (p, "extended textual headers", 0);
    GST_WRITE_UINT16_BE (mut + 3504, 0xffff);
    write_file (p, mut, len);
    expect_read_error (p, "EndText", 0);
    GST_WRITE_UINT16_BE (mut + 3504, 0xfffe);
    write_file (p, mut, len);
    expect_read_error (p, "extended textual headers", 0);
    /* rev 2 additional trace headers */
    memcpy (mut, file, len);
    mut[3500] = 2;
    mut[3509] = 1;              /* bytes 3507-3510: 1 */
    write_file (p, mut, len);
    expect_read_error (p, "additional trace headers", 0);
    /* 60000 samples: one whole trace of 120240 bytes, then the error */
    memcpy (mut, file, len);
    GST_WRITE_UINT16_BE (mut + 3220, 60000);
    write_file (p, mut, len);
    expect_read_error (p, "truncated", 1);
    g_free (mut);
    g_free (p);
    g_free (file);
  }
  g_free (f3);
  remove_dir (dir);
}

GST_END_TEST;

/* A file with one extended textual header (counted, and a variable number
 * ended by the stanza) reads with it in the meta and copies byte for
 * byte. */
GST_START_TEST (test_extended_headers)
{
  gchar *dir = tmp_dir (), *f3 = data_file ("f3.sgy"), *p, *q, *err = NULL;
  guint8 *file, *ext, *back;
  gsize len, len2;
  guint v;

  if (!f3) {
    remove_dir (dir);
    return;
  }
  file = read_file (f3, &len);
  for (v = 0; v < 2; v++) {
    Gathers g;

    ext = g_malloc (len + 3200);
    memcpy (ext, file, 3600);
    memset (ext + 3600, 0x40, 3200);
    if (v) {
      /* "((SEG: EndText))" in EBCDIC, and -1 headers */
      static const guint8 end[] = { 0x4d, 0x4d, 0xe2, 0xc5, 0xc7, 0x7a,
        0x40, 0xc5, 0x95, 0x84, 0xe3, 0x85, 0xa7, 0xa3, 0x5d, 0x5d
      };
      memcpy (ext + 3600, end, 16);
      GST_WRITE_UINT16_BE (ext + 3504, 0xffff);
    } else {
      GST_WRITE_UINT16_BE (ext + 3504, 1);
    }
    memcpy (ext + 6800, file + 3600, len - 3600);
    p = g_strdup_printf ("%s/ext%u.sgy", dir, v);
    q = g_strdup_printf ("%s/copy%u.sgy", dir, v);
    write_file (p, ext, len + 3200);
    gathers_init (&g);
    fail_unless (read_gathers (p, 50, NULL, &g, &err, NULL), "%s", err);
    check_metas (&g, ext, len + 3200, 6800, 390);
    gathers_clear (&g);
    fail_unless (copy_file (p, q, 50, NULL, &err), "%s", err);
    back = read_file (q, &len2);
    fail_unless (len2 == len + 3200 && memcmp (back, ext, len2) == 0);
    g_free (back);
    g_free (ext);
    g_free (p);
    g_free (q);
  }
  g_free (file);
  g_free (f3);
  remove_dir (dir);
}

GST_END_TEST;

GST_START_TEST (test_write_errors)
{
  gchar *dir = tmp_dir (), *p, *err = NULL, *warn = NULL;
  GBytes *fh = file_header (3, 10, 1000, FALSE), *th;
  gfloat in[30] = { 0 };
  GstBuffer *b[2];

  /* caps of 10 samples against a binary header of 11 */
  p = g_strdup_printf ("%s/a.sgy", dir);
  {
    GBytes *fh11 = file_header (3, 11, 1000, FALSE);
    guint8 *t = g_malloc0 (240 * 3);

    th = g_bytes_new_take (t, 240 * 3);
    b[0] = gst_buffer_new_memdup (in, sizeof (in));
    gst_buffer_add_sci_segy_meta (b[0], fh11, th, 0);
    fail_if (write_gathers (p, b, 1, 10, 1000, &err, NULL));
    fail_unless (err && strstr (err, "10 samples") && strstr (err, "11"),
        "%s", err);
    fail_if (g_file_test (p, G_FILE_TEST_EXISTS));
    g_clear_pointer (&err, g_free);
    gst_buffer_unref (b[0]);
    g_bytes_unref (fh11);
    g_bytes_unref (th);
  }

  /* trace headers of 2 traces for a gather of 3 */
  th = g_bytes_new_take (g_malloc0 (480), 480);
  b[0] = gst_buffer_new_memdup (in, sizeof (in));
  gst_buffer_add_sci_segy_meta (b[0], fh, th, 0);
  fail_if (write_gathers (p, b, 1, 10, 1000, &err, NULL));
  fail_unless (err && strstr (err, "480 bytes of trace headers"), "%s", err);
  g_clear_pointer (&err, g_free);
  gst_buffer_unref (b[0]);
  g_bytes_unref (th);

  /* a file header of 3601 bytes */
  {
    GBytes *odd = g_bytes_new_take (g_malloc0 (3601), 3601);

    th = g_bytes_new_take (g_malloc0 (720), 720);
    b[0] = gst_buffer_new_memdup (in, sizeof (in));
    gst_buffer_add_sci_segy_meta (b[0], odd, th, 0);
    fail_if (write_gathers (p, b, 1, 10, 1000, &err, NULL));
    fail_unless (err && strstr (err, "3601 bytes"), "%s", err);
    g_clear_pointer (&err, g_free);
    gst_buffer_unref (b[0]);
    g_bytes_unref (th);
    g_bytes_unref (odd);
  }

  /* an unwritable location, and none */
  b[0] = gst_buffer_new_memdup (in, sizeof (in));
  g_free (p);
  p = g_strdup_printf ("%s/no/such/dir/a.sgy", dir);
  fail_if (write_gathers (p, b, 1, 10, 1000, &err, NULL));
  fail_unless (err && strstr (err, "no/such/dir/a.sgy"), "%s", err);
  g_clear_pointer (&err, g_free);
  fail_if (write_gathers (NULL, b, 1, 10, 1000, &err, NULL));
  fail_unless (err && strstr (err, "location is not set"), "%s", err);
  g_clear_pointer (&err, g_free);

  /* samples changing in the stream */
  g_free (p);
  p = g_strdup_printf ("%s/b.sgy", dir);
  {
    GstElement *pipeline = gst_pipeline_new (NULL);
    GstElement *src = gst_element_factory_make ("appsrc", NULL);
    GstElement *sink = gst_element_factory_make ("segysink", NULL);
    GstCaps *c1 = seismic_caps (3, 10, 1000), *c2 = seismic_caps (5, 6, 1000);
    GstSample *s1 = gst_sample_new (b[0], c1, NULL, NULL);
    GstSample *s2 = gst_sample_new (b[0], c2, NULL, NULL);
    GstFlowReturn flow;

    g_object_set (src, "format", GST_FORMAT_TIME, NULL);
    g_object_set (sink, "location", p, NULL);
    gst_bin_add_many (GST_BIN (pipeline), src, sink, NULL);
    fail_unless (gst_element_link (src, sink));
    g_signal_emit_by_name (src, "push-sample", s1, &flow);
    g_signal_emit_by_name (src, "push-sample", s2, &flow);
    g_signal_emit_by_name (src, "end-of-stream", &flow);
    fail_if (run (pipeline, &err, NULL));
    fail_unless (err && strstr (err, "traces of one length"), "%s", err);
    g_clear_pointer (&err, g_free);
    gst_object_unref (pipeline);
    gst_sample_unref (s1);
    gst_sample_unref (s2);
    gst_caps_unref (c1);
    gst_caps_unref (c2);
  }

  /* nothing at all: a warning, no file */
  fail_unless (write_gathers (p, NULL, 0, 10, 1000, &err, &warn));
  fail_unless (warn && strstr (warn, "No traces"), "%s", warn);
  fail_if (g_file_test (p, G_FILE_TEST_EXISTS));
  g_free (warn);

  gst_buffer_unref (b[0]);
  g_bytes_unref (fh);
  g_free (p);
  remove_dir (dir);
}

GST_END_TEST;

/* Random byte changes in the binary header and the first trace header:
 * an error or data, never a crash or a hang. */
GST_START_TEST (test_mutations)
{
  gchar *dir = tmp_dir (), *sg = data_file ("shot-gather.sgy"), *p, *q;
  static const gchar *const keys[] = { "none", "ffid", "cdp", "offset" };
  guint8 *file, *mut;
  guint i, k, errors = 0, eos = 0;
  gsize len;

  if (!sg) {
    remove_dir (dir);
    return;
  }
  file = read_file (sg, &len);
  mut = g_malloc (len);
  p = g_strdup_printf ("%s/mut.sgy", dir);
  q = g_strdup_printf ("%s/out.sgy", dir);
  for (i = 0; i < 400; i++) {
    GstElement *pipeline = gst_pipeline_new (NULL);
    GstElement *src = make_src (p, 1 + rng () % 40, keys[rng () % 4]);
    GstElement *sink = gst_element_factory_make ("segysink", NULL);
    gchar *err = NULL;
    guint n = 1 + rng () % 4;

    memcpy (mut, file, len);
    for (k = 0; k < n; k++) {
      /* the fields that matter most half of the time */
      static const guint hot[] = { 3216, 3217, 3220, 3221, 3224, 3225, 3296,
        3297, 3298, 3299, 3500, 3504, 3505, 3506, 3268, 3269, 3272, 3279,
        3600 + 8, 3600 + 11, 3600 + 116, 3600 + 117
      };
      guint at = rng () % 2 ? hot[rng () % G_N_ELEMENTS (hot)] :
          3200 + rng () % 640;

      mut[at] = rng () % 3 ? rng () : (rng () % 2 ? 0xff : 0);
    }
    write_file (p, mut, len);
    g_object_set (sink, "location", q, NULL);
    gst_bin_add_many (GST_BIN (pipeline), src, sink, NULL);
    fail_unless (gst_element_link (src, sink));
    if (run (pipeline, &err, NULL))
      eos++;
    else
      errors++;
    g_free (err);
    gst_object_unref (pipeline);
  }
  /* both outcomes occur */
  fail_unless (eos > 20 && errors > 20, "%u EOS, %u errors", eos, errors);
  g_free (mut);
  g_free (file);
  g_free (p);
  g_free (q);
  g_free (sg);
  remove_dir (dir);
}

GST_END_TEST;

/* Properties and pad templates as documented. */
GST_START_TEST (test_elements)
{
  GstElement *src = gst_element_factory_make ("segysrc", NULL);
  GstElement *sink = gst_element_factory_make ("segysink", NULL);
  GstCaps *tmpl, *want;
  GstPad *pad;
  gchar *s;
  guint traces;
  gint key;

  fail_unless (src && sink);
  g_object_get (src, "location", &s, "gather-traces", &traces,
      "gather-key", &key, NULL);
  fail_unless (s == NULL);
  fail_unless_equals_int (traces, 96);
  fail_unless_equals_int (key, 0);
  gst_util_set_object_arg (G_OBJECT (src), "gather-key", "energy-source-point");
  g_object_get (src, "gather-key", &key, NULL);
  fail_unless_equals_int (key, 5);
  want = gst_caps_from_string ("application/x-seismic, "
      "traces = (int) [ 1, 16777216 ], samples = (int) [ 1, 65535 ], "
      "sample-interval = (int) [ 1, 2147483647 ]");
  pad = gst_element_get_static_pad (src, "src");
  tmpl = gst_pad_get_pad_template_caps (pad);
  fail_unless (gst_caps_is_equal (tmpl, want));
  gst_caps_unref (tmpl);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (sink, "sink");
  tmpl = gst_pad_get_pad_template_caps (pad);
  fail_unless (gst_caps_is_equal (tmpl, want));
  gst_caps_unref (tmpl);
  gst_object_unref (pad);
  gst_caps_unref (want);
  gst_object_unref (src);
  gst_object_unref (sink);
}

GST_END_TEST;

/* The blocksize of GstBaseSrc / GstBaseSink, which neither element uses,
 * is shadowed by a read-only property that says so: the one listed (as
 * gst-inspect lists them), not settable, 0. */
GST_START_TEST (test_no_blocksize)
{
  const gchar *names[] = { "segysrc", "segysink" };
  guint i, k;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstElement *e = gst_element_factory_make (names[i], NULL);
    GObjectClass *klass;
    GParamSpec **props, *p;
    guint n, found = 0, v = 7;

    fail_unless (e != NULL);
    klass = G_OBJECT_GET_CLASS (e);
    props = g_object_class_list_properties (klass, &n);
    for (k = 0; k < n; k++) {
      if (strcmp (props[k]->name, "blocksize") != 0)
        continue;
      found++;
      p = props[k];
      fail_unless (p->owner_type == G_OBJECT_TYPE (e), "%s: blocksize of %s",
          names[i], g_type_name (p->owner_type));
      fail_if (p->flags & G_PARAM_WRITABLE, "%s: blocksize writable", names[i]);
      fail_unless (strstr (g_param_spec_get_blurb (p), "Not used") != NULL,
          "%s: \"%s\"", names[i], g_param_spec_get_blurb (p));
    }
    g_free (props);
    fail_unless_equals_int (found, 1);
    g_object_get (e, "blocksize", &v, NULL);
    fail_unless_equals_int (v, 0);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* ---- segyparse: the same gathers from a byte stream ---- */

/* For messages: the caps as text (leaked: failures end the test). */
static gchar *
caps_str (GstCaps * caps)
{
  return caps ? gst_caps_to_string (caps) : g_strdup ("no type");
}

/* Buffers, caps, metas and offsets equal, gather after gather. */
static void
gathers_equal (Gathers * a, Gathers * b, const gchar * what)
{
  guint i;

  fail_unless_equals_int (a->bufs->len, b->bufs->len);
  for (i = 0; i < a->bufs->len; i++) {
    GstBuffer *x = g_ptr_array_index (a->bufs, i);
    GstBuffer *y = g_ptr_array_index (b->bufs, i);
    GstSciSegyMeta *mx = gst_buffer_get_sci_segy_meta (x);
    GstSciSegyMeta *my = gst_buffer_get_sci_segy_meta (y);
    GstMapInfo p, q;

    fail_unless (gst_caps_is_equal (g_ptr_array_index (a->caps, i),
            g_ptr_array_index (b->caps, i)), "%s: gather %u: caps %s and %s",
        what, i, caps_str (g_ptr_array_index (a->caps, i)),
        caps_str (g_ptr_array_index (b->caps, i)));
    fail_unless (gst_buffer_map (x, &p, GST_MAP_READ));
    fail_unless (gst_buffer_map (y, &q, GST_MAP_READ));
    fail_unless (p.size == q.size && memcmp (p.data, q.data, p.size) == 0,
        "%s: gather %u: other samples", what, i);
    gst_buffer_unmap (x, &p);
    gst_buffer_unmap (y, &q);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (x), GST_BUFFER_OFFSET (y));
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (x),
        GST_BUFFER_OFFSET_END (y));
    fail_unless (mx && my, "%s: gather %u without meta", what, i);
    fail_unless (g_bytes_equal (mx->file_header, my->file_header), "%s", what);
    fail_unless (g_bytes_equal (mx->trace_headers, my->trace_headers),
        "%s: gather %u: other trace headers", what, i);
    fail_unless_equals_uint64 (mx->first_trace, my->first_trace);
  }
}

/* The size of the next chunk: `chunk` bytes, the whole when 0, random
 * sizes of 1 to -chunk bytes when negative. */
static gsize
chunk_size (gint chunk, gsize left)
{
  gsize n = chunk > 0 ? (gsize) chunk : chunk == 0 ? left :
      1 + rng () % (guint) - chunk;

  return MIN (n, left);
}

/* `data` in chunks ! segyparse ! fakesink: the gathers; TRUE at EOS.  The
 * chunks are pushed from this thread into segyparse's sink pad, as a
 * source would push them, without a queue between. */
static gboolean
parse_gathers (const guint8 * data, gsize len, gint chunk,
    guint gather_traces, const gchar * key, Gathers * g, gchar ** error,
    gchar ** warning)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *parse = gst_element_factory_make ("segyparse", NULL);
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  GstPad *feed = gst_pad_new ("feed", GST_PAD_SRC), *sinkpad;
  GstCaps *caps = gst_caps_from_string ("application/x-segy");
  GstSegment seg;
  gsize off = 0;
  gboolean ok;

  fail_unless (parse && sink);
  if (gather_traces)
    g_object_set (parse, "gather-traces", gather_traces, NULL);
  if (key)
    gst_util_set_object_arg (G_OBJECT (parse), "gather-key", key);
  /* not async: the pushes from this thread never wait for a preroll */
  g_object_set (sink, "signal-handoffs", TRUE, "sync", FALSE, "async", FALSE,
      NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), g);
  gst_bin_add_many (GST_BIN (pipeline), parse, sink, NULL);
  fail_unless (gst_element_link (parse, sink));
  sinkpad = gst_element_get_static_pad (parse, "sink");
  fail_unless_equals_int (gst_pad_link (feed, sinkpad), GST_PAD_LINK_OK);
  gst_object_unref (sinkpad);
  gst_pad_set_active (feed, TRUE);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  gst_pad_push_event (feed, gst_event_new_stream_start ("segy-test"));
  gst_pad_push_event (feed, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  gst_segment_init (&seg, GST_FORMAT_BYTES);
  gst_pad_push_event (feed, gst_event_new_segment (&seg));
  while (off < len) {
    gsize n = chunk_size (chunk, len - off);

    /* after an error, the rest is not pushed, as a source stops */
    if (gst_pad_push (feed, gst_buffer_new_memdup (data + off, n)) !=
        GST_FLOW_OK)
      break;
    off += n;
  }
  gst_pad_push_event (feed, gst_event_new_eos ());
  ok = run (pipeline, error, warning);
  gst_pad_set_active (feed, FALSE);
  gst_object_unref (feed);
  gst_object_unref (pipeline);
  return ok;
}

/* segysrc and segyparse (the file's bytes in chunks) give the same
 * gathers, warnings and outcome. */
static void
check_parse (const gchar * path, gint chunk, guint gather_traces,
    const gchar * key)
{
  gchar *e1 = NULL, *e2 = NULL, *w1 = NULL, *w2 = NULL, *what;
  gboolean ok1, ok2;
  Gathers a, b;
  guint8 *data;
  gsize len;

  data = read_file (path, &len);
  what = g_strdup_printf ("%s, chunks %d, gather-traces %u, key %s", path,
      chunk, gather_traces, key ? key : "none");
  gathers_init (&a);
  gathers_init (&b);
  ok1 = read_gathers (path, gather_traces, key, &a, &e1, &w1);
  ok2 = parse_gathers (data, len, chunk, gather_traces, key, &b, &e2, &w2);
  fail_unless (ok1 == ok2, "%s: segysrc %s, segyparse %s", what, e1, e2);
  fail_unless (!w1 == !w2, "%s: warnings: segysrc %s, segyparse %s", what,
      w1, w2);
  gathers_equal (&a, &b, what);
  gathers_clear (&a);
  gathers_clear (&b);
  g_free (e1);
  g_free (e2);
  g_free (w1);
  g_free (w2);
  g_free (what);
  g_free (data);
}

/* Every file of ../shared/data/seismic, in one buffer, 1-byte (the small
 * ones), 7-byte (up to 250 KB) and random odd-sized chunks, in gathers of
 * several sizes and keys: what segysrc reads. */
GST_START_TEST (test_parse_files)
{
  static const gchar *const names[] = { "f3.sgy", "f3-lsb.sgy",
    "Format1msb.sgy", "Format5msb.sgy", "shot-gather.sgy", "small.sgy",
    "volve10r12-full-twt-arb.sgy", "volve10r12-full-z-il10117sub.sgy"
  };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (names); f++) {
    gchar *path = data_file (names[f]);
    gsize len;

    if (!path)
      continue;
    g_free (read_file (path, &len));
    check_parse (path, 0, 96, NULL);
    check_parse (path, -9001, 7, NULL);
    check_parse (path, len <= 250000 ? 7 : 4093, 96, NULL);
    if (len <= 30000)
      check_parse (path, 1, 7, NULL);
    check_parse (path, -3, 16777216, NULL);
    if (strstr (names[f], "shot"))
      check_parse (path, -501, 0, "ffid");
    if (strstr (names[f], "small") || strstr (names[f], "f3-lsb"))
      check_parse (path, -389, 0, "inline");
    check_parse (path, -1001, 0, "cdp");
    g_free (path);
  }
}

GST_END_TEST;

/* `v` as `n` bytes of the byte order given. */
static void
put_uint (guint8 * p, guint32 v, guint n, gboolean le)
{
  guint i;

  for (i = 0; i < n; i++)
    p[le ? i : n - 1 - i] = (v >> (8 * i)) & 0xff;
}

/* A SEG-Y file of `traces` traces of `samples` samples of format `fmt`
 * (random sample bytes: every bit pattern, NaN and infinities included),
 * `ext` extended textual headers (-1: a variable number, two records, the
 * second ending with ((SEG: EndText))), binary-header interval `interval`
 * and trace-header interval `tinterval`, the ffid of trace t t / `run`. */
static GByteArray *
synth_file (guint fmt, gboolean le, guint samples, guint traces, gint ext,
    guint interval, guint tinterval, guint run)
{
  static const guint8 end[] = { 0x4d, 0x4d, 0xe2, 0xc5, 0xc7, 0x7a, 0x40,
    0xc5, 0x95, 0x84, 0xe3, 0x85, 0xa7, 0xa3, 0x5d, 0x5d
  };
  guint sb = gst_sci_segy_format_bytes (fmt), records = ext < 0 ? 2 : ext;
  GByteArray *a = g_byte_array_new ();
  guint8 *h;
  guint i, t;

  g_byte_array_set_size (a, 3600 + 3200 * records);
  h = a->data;
  memset (h, 0x40, 3200);
  for (i = 0; i < 40; i++)
    h[80 * i] = 0xc3;
  memset (h + 3200, 0, 400);
  put_uint (h + 3216, interval, 2, le);
  put_uint (h + 3220, samples, 2, le);
  put_uint (h + 3224, fmt, 2, le);
  put_uint (h + 3504, (guint16) ext, 2, le);
  memset (h + 3600, 0x40, 3200 * records);
  if (ext < 0)
    memcpy (h + 3600 + 3200 + 1000, end, sizeof (end));
  for (t = 0; t < traces; t++) {
    guint off = a->len;
    guint8 *tr;

    g_byte_array_set_size (a, off + 240 + samples * sb);
    tr = a->data + off;
    for (i = 0; i < 240 + samples * sb; i++)
      tr[i] = rng ();
    put_uint (tr + 8, t / run, 4, le);
    put_uint (tr + 20, t / 3, 4, le);
    put_uint (tr + 114, samples, 2, le);
    put_uint (tr + 116, tinterval, 2, le);
  }
  return a;
}

/* Generated files: every sample format in both byte orders, extended
 * headers counted and ended by the stanza, no interval, gathers of runs
 * longer and shorter than gather-traces; whole and cut inside a trace. */
GST_START_TEST (test_parse_synthetic)
{
  static const guint formats[] = { 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 15,
    16
  };
  gchar *dir = tmp_dir (), *p = g_strdup_printf ("%s/syn.sgy", dir);
  guint f, le;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (le = 0; le < 2; le++) {
      guint samples = 1 + rng () % 40, traces = 1 + rng () % 60;
      gint ext = (gint) (rng () % 4) - 1;
      guint interval = rng () % 3 ? 250 : 0, tinterval = rng () % 2 ? 0 : 125;
      GByteArray *a = synth_file (formats[f], le, samples, traces, ext,
          interval, tinterval, 1 + rng () % 9);
      gsize whole = a->len, trace = 240 + samples *
          gst_sci_segy_format_bytes (formats[f]);

      write_file (p, a->data, a->len);
      check_parse (p, 1 + (rng () % 7), 1 + rng () % 10, NULL);
      check_parse (p, -17, 0, "ffid");
      check_parse (p, 0, 0, "cdp");
      /* cut inside a trace: the whole traces, then the error */
      write_file (p, a->data, whole - 1 - rng () % (trace - 1));
      check_parse (p, -(gint) trace, 5, NULL);
      check_parse (p, 3, 0, "ffid");
      /* headers only */
      write_file (p, a->data, whole - traces * trace);
      check_parse (p, 11, 0, NULL);
      g_byte_array_unref (a);
    }
  }
  g_free (p);
  remove_dir (dir);
}

GST_END_TEST;

/* Bad streams: errors that name the byte offset, after the whole traces
 * for a stream cut inside one. */
static void
expect_parse_error (const guint8 * data, gsize len, const gchar * what,
    guint expect_traces)
{
  gchar *err = NULL;
  Gathers g;
  gsize traces;
  gint samples;
  gfloat *s;

  gathers_init (&g);
  fail_if (parse_gathers (data, len, -1000, 0, NULL, &g, &err, NULL),
      "no error for \"%s\"", what);
  fail_unless (err && strstr (err, what), "\"%s\" is not about \"%s\"", err,
      what);
  s = all_samples (&g, &traces, &samples);
  fail_unless (traces == expect_traces, "%s: %" G_GSIZE_FORMAT " traces "
      "before the error, expected %u", what, traces, expect_traces);
  g_free (s);
  gathers_clear (&g);
  g_free (err);
}

GST_START_TEST (test_parse_errors)
{
  GByteArray *a = synth_file (3, FALSE, 75, 20, 0, 4000, 4000, 5);
  GByteArray *v = synth_file (5, TRUE, 10, 3, -1, 1000, 0, 1);
  guint8 *junk = g_malloc (10000), *mut;
  guint i;

  for (i = 0; i < 10000; i++)
    junk[i] = rng ();
  junk[3224] = 0x12;
  junk[3225] = 0x34;
  expect_parse_error (junk, 10000, "bytes 3225-3226 of the binary header "
      "(the sample format code) hold 12 34", 0);
  expect_parse_error (junk, 3599, "the stream ends at byte 3599, before the "
      "3600 bytes", 0);
  expect_parse_error (junk, 0, "the stream ends at byte 0", 0);
  /* cut inside trace 7 (390 bytes each) */
  expect_parse_error (a->data, 3600 + 7 * 390 + 100, "the stream ends at "
      "byte 6430, 100 bytes into trace 7 (which starts at byte 6330", 7);
  expect_parse_error (a->data, 3600 + 200, "the stream ends at byte 3800, "
      "200 bytes into trace 0", 0);
  /* headers that are not all there */
  mut = g_memdup2 (a->data, a->len);
  GST_WRITE_UINT16_BE (mut + 3504, 3);
  expect_parse_error (mut, 3600 + 5000, "3 extended textual headers (bytes "
      "3505-3506), which end at byte 13200, but the stream ends at byte "
      "8600", 0);
  GST_WRITE_UINT16_BE (mut + 3504, 0xfffe);
  expect_parse_error (mut, a->len, "-2 extended textual headers", 0);
  GST_WRITE_UINT16_BE (mut + 3504, 0);
  GST_WRITE_UINT16_BE (mut + 3224, 4);
  expect_parse_error (mut, a->len, "sample format 4", 0);
  GST_WRITE_UINT16_BE (mut + 3224, 3);
  GST_WRITE_UINT16_BE (mut + 3220, 0);
  expect_parse_error (mut, a->len, "0 samples", 0);
  g_free (mut);
  /* a variable number never ended */
  mut = g_memdup2 (v->data, v->len);
  memset (mut + 3600 + 3200 + 1000, 0x40, 16);
  expect_parse_error (mut, v->len, "before a 3200-byte record holds the "
      "((SEG: EndText)) stanza", 0);
  g_free (mut);
  g_byte_array_unref (a);
  g_byte_array_unref (v);
  g_free (junk);
}

GST_END_TEST;

/* filesrc ! decodebin: the typefinder and segyparse give segysrc's
 * gathers, and segysink the file byte for byte; the same from a stream
 * that cannot be read at random (appsrc in 1000-byte chunks: the
 * typefinder sees the first 2 KiB only). */
GST_START_TEST (test_decodebin)
{
  static const gchar *const names[] = { "f3.sgy", "f3-lsb.sgy",
    "Format1msb.sgy", "Format5msb.sgy", "shot-gather.sgy", "small.sgy",
    "volve10r12-full-twt-arb.sgy", "volve10r12-full-z-il10117sub.sgy"
  };
  GstElementFactory *dbin = gst_element_factory_find ("decodebin");
  gchar *dir = tmp_dir (), *out = g_strdup_printf ("%s/back.sgy", dir);
  guint f;

  /* decodebin is gst-plugins-base's playback plugin */
  if (!dbin) {
    g_print ("no decodebin here: test skipped\n");
    goto done;
  }
  gst_object_unref (dbin);
  for (f = 0; f < G_N_ELEMENTS (names); f++) {
    gchar *path = data_file (names[f]), *launch, *err = NULL;
    GstElement *pipeline, *sink;
    guint8 *in, *back;
    gsize len, len2;
    Gathers a, b;
    gint k;

    if (!path)
      continue;
    in = read_file (path, &len);
    gathers_init (&a);
    fail_unless (read_gathers (path, 0, NULL, &a, &err, NULL), "%s", err);
    for (k = 0; k < 2; k++) {
      gathers_init (&b);
      if (k == 0) {
        launch = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
            "fakesink name=sink sync=false signal-handoffs=true", path);
        pipeline = gst_parse_launch (launch, NULL);
      } else {
        GstFlowReturn flow;
        GstElement *src;
        gsize off;

        launch = g_strdup ("appsrc name=src ! decodebin ! fakesink name=sink "
            "sync=false signal-handoffs=true");
        pipeline = gst_parse_launch (launch, NULL);
        src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
        for (off = 0; off < len; off += 1000) {
          GstBuffer *buf = gst_buffer_new_memdup (in + off,
              MIN (1000, len - off));

          g_signal_emit_by_name (src, "push-buffer", buf, &flow);
          gst_buffer_unref (buf);
        }
        g_signal_emit_by_name (src, "end-of-stream", &flow);
        gst_object_unref (src);
      }
      fail_unless (pipeline != NULL, "%s", launch);
      sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
      g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &b);
      gst_object_unref (sink);
      fail_unless (run (pipeline, &err, NULL), "%s: %s", launch, err);
      gst_object_unref (pipeline);
      gathers_equal (&a, &b, launch);
      gathers_clear (&b);
      g_free (launch);
    }
    gathers_clear (&a);

    launch = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
        "segysink location=\"%s\"", path, out);
    pipeline = gst_parse_launch (launch, NULL);
    fail_unless (run (pipeline, &err, NULL), "%s: %s", launch, err);
    gst_object_unref (pipeline);
    back = read_file (out, &len2);
    fail_unless (len2 == len && memcmp (in, back, len) == 0, "%s: the copy "
        "differs", launch);
    g_free (back);
    g_free (launch);
    g_free (in);
    g_free (path);
  }
done:
  g_free (out);
  remove_dir (dir);
}

GST_END_TEST;

/* The typefinder: every SEG-Y file of ../shared/data/seismic (whole, as
 * pull-mode typefinding sees it, and its first 2 KiB, as a stream's), with
 * certainty; none of the other files there, nor generated data of the
 * plugin's other formats and junk. */
static const guint8 *range_data;
static gsize range_len;

static GstFlowReturn
get_range (GstObject * obj, GstObject * parent, guint64 offset, guint length,
    GstBuffer ** buffer)
{
  if (offset >= range_len)
    return GST_FLOW_EOS;
  *buffer = gst_buffer_new_memdup (range_data + offset,
      MIN (length, range_len - offset));
  return GST_FLOW_OK;
}

/* The type of a file as the typefind element finds it in pull mode
 * (filesrc: the length known, any range read) and, `len` cut to `stream`
 * bytes, in push mode (a stream's first bytes; 0: not looked at). */
static GstCaps *
type_of_file (const guint8 * data, gsize len, const gchar * ext,
    GstTypeFindProbability * prob)
{
  GstPad *obj = gst_pad_new ("typefind", GST_PAD_SRC);
  GstCaps *caps;

  range_data = data;
  range_len = len;
  caps = gst_type_find_helper_get_range (GST_OBJECT (obj), NULL, get_range,
      len, ext, prob);
  gst_object_unref (obj);
  return caps;
}

static GstCaps *
type_of (const guint8 * data, gsize len, GstTypeFindProbability * prob)
{
  return gst_type_find_helper_for_data (NULL, data, len, prob);
}

static gboolean
is_segy (GstCaps * caps)
{
  return caps && gst_structure_has_name (gst_caps_get_structure (caps, 0),
      "application/x-segy");
}

/* Every file under `dir`, recursively, but those named *.sgy. */
static void
check_not_segy_dir (const gchar * dir, guint * n)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  if (!d)
    return;
  while ((name = g_dir_read_name (d))) {
    gchar *p = g_build_filename (dir, name, NULL);

    if (g_file_test (p, G_FILE_TEST_IS_DIR)) {
      check_not_segy_dir (p, n);
    } else if (!g_str_has_suffix (name, ".sgy")) {
      GstTypeFindProbability prob;
      gsize len;
      guint8 *data = read_file (p, &len);
      GstCaps *caps = type_of_file (data, len, NULL, &prob);

      fail_if (is_segy (caps), "%s found to be SEG-Y", p);
      if (caps)
        gst_caps_unref (caps);
      /* a stream's first bytes */
      caps = type_of (data, MIN (len, 2048), &prob);
      fail_if (is_segy (caps), "%s: its first 2 KiB found to be SEG-Y", p);
      if (caps)
        gst_caps_unref (caps);
      g_free (data);
      (*n)++;
    }
    g_free (p);
  }
  g_dir_close (d);
}

/* All the bytes a pipeline ending in "appsink name=out" makes. */
static GByteArray *
pipeline_bytes (const gchar * launch)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (launch, &err);
  GByteArray *a = g_byte_array_new ();
  GstElement *out;
  GstSample *sample;

  fail_unless (pipeline != NULL, "%s: %s", launch, err ? err->message : "");
  out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (out)))) {
    GstMapInfo map;
    GstBuffer *b = gst_sample_get_buffer (sample);

    fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
    g_byte_array_append (a, map.data, map.size);
    gst_buffer_unmap (b, &map);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (out);
  gst_object_unref (pipeline);
  return a;
}

GST_START_TEST (test_typefind)
{
  static const gchar *const names[] = { "f3.sgy", "f3-lsb.sgy",
    "Format1msb.sgy", "Format5msb.sgy", "shot-gather.sgy", "small.sgy",
    "volve10r12-full-twt-arb.sgy", "volve10r12-full-z-il10117sub.sgy"
  };
  const gchar *root = g_getenv ("SCI_TEST_DATA_DIR");
  GstTypeFindProbability prob;
  GstCaps *caps;
  guint8 *junk;
  guint f, i, n = 0;

  for (f = 0; f < G_N_ELEMENTS (names); f++) {
    gchar *path = data_file (names[f]);
    guint8 *data;
    gsize len;

    if (!path)
      continue;
    data = read_file (path, &len);
    caps = type_of_file (data, len, NULL, &prob);
    fail_unless (is_segy (caps), "%s: %s", names[f], caps_str (caps));
    fail_unless (prob == GST_TYPE_FIND_MAXIMUM, "%s: %d", names[f], prob);
    gst_caps_unref (caps);
    caps = type_of (data, 2048, &prob);
    fail_unless (is_segy (caps), "%s, first 2 KiB: %s", names[f],
        caps_str (caps));
    gst_caps_unref (caps);
    /* the length unknown and the trace header's stale sample count
     * (f3's say 462): still SEG-Y, above what MP3 finds in the samples */
    caps = type_of (data, 3600 + 100, &prob);
    fail_unless (is_segy (caps), "%s, 3700 bytes", names[f]);
    fail_unless (prob >= GST_TYPE_FIND_NEARLY_CERTAIN);
    gst_caps_unref (caps);
    g_free (data);
    g_free (path);
  }

  /* the generated files of every format */
  for (f = 1; f <= 16; f++) {
    GByteArray *a;

    if (!gst_sci_segy_format_bytes (f))
      continue;
    a = synth_file (f, f % 2, 1 + rng () % 100, 1 + rng () % 9,
        (gint) (rng () % 3) - 1, 1000, 1000, 1);
    caps = type_of_file (a->data, a->len, NULL, &prob);
    fail_unless (is_segy (caps), "format %u: %s", f, caps_str (caps));
    fail_unless_equals_int (prob, GST_TYPE_FIND_MAXIMUM);
    gst_caps_unref (caps);
    g_byte_array_unref (a);
  }

  /* nothing else in the data folder */
  check_not_segy_dir (root ? root : "../shared/data", &n);
  g_print ("typefinder: %u other files not taken for SEG-Y\n", n);

  /* the plugin's other formats, made here: seismic frames (of a
   * generated SEG-Y file's gathers), DPCM frames, HTJ2K and Part 1
   * codestreams */
  {
    GByteArray *a = synth_file (3, FALSE, 50, 30, 0, 2000, 2000, 1);
    gchar *dir = tmp_dir (), *p = g_strdup_printf ("%s/s.sgy", dir);
    gchar *launches[4];

    write_file (p, a->data, a->len);
    g_byte_array_unref (a);
    launches[0] = g_strdup_printf ("segysrc location=\"%s\" ! seismicenc ! "
        "appsink name=out sync=false", p);
    launches[1] = g_strdup ("videotestsrc num-buffers=2 ! video/x-raw,"
        "format=GRAY16_LE,width=96,height=80 ! dpcmenc ! appsink name=out "
        "sync=false");
    launches[2] = g_strdup ("videotestsrc num-buffers=1 ! video/x-raw,"
        "format=GRAY8,width=96,height=80 ! htj2kenc ! appsink name=out "
        "sync=false");
    launches[3] = g_strdup ("videotestsrc num-buffers=1 ! video/x-raw,"
        "format=RGB,width=64,height=64 ! ebcotcm ! appsink name=out "
        "sync=false");
    for (i = 0; i < G_N_ELEMENTS (launches); i++) {
      GByteArray *bytes = pipeline_bytes (launches[i]);

      fail_unless (bytes->len > 0, "%s gave nothing", launches[i]);
      caps = type_of_file (bytes->data, bytes->len, NULL, &prob);
      fail_if (is_segy (caps), "%s: found to be SEG-Y", launches[i]);
      if (caps)
        gst_caps_unref (caps);
      caps = type_of (bytes->data, MIN (bytes->len, 2048), &prob);
      fail_if (is_segy (caps), "%s: its first 2 KiB found to be SEG-Y",
          launches[i]);
      if (caps)
        gst_caps_unref (caps);
      g_byte_array_unref (bytes);
      g_free (launches[i]);
    }
    g_free (p);
    remove_dir (dir);
  }

  /* junk, text, and a SEG-Y binary header after text that is no
   * textual header of cards */
  junk = g_malloc (20000);
  for (i = 0; i < 200; i++) {
    guint j, len = 100 + rng () % 19900;

    for (j = 0; j < len; j++)
      junk[j] = i % 2 ? rng () : 0x20 + rng () % 95;
    if (len > 3600 && i % 4 < 2) {
      GST_WRITE_UINT16_BE (junk + 3224, 1 + rng () % 12);
      GST_WRITE_UINT16_BE (junk + 3220, 1 + rng () % 1000);
    }
    caps = type_of_file (junk, len, NULL, &prob);
    fail_if (is_segy (caps), "junk %u", i);
    if (caps)
      gst_caps_unref (caps);
  }
  g_free (junk);
}

GST_END_TEST;

/* Properties and pads of segyparse, and that it is a parser decodebin
 * plugs. */
GST_START_TEST (test_parse_element)
{
  GstElement *e = gst_element_factory_make ("segyparse", NULL);
  GstElementFactory *f;
  guint traces;
  gint key;

  fail_unless (e != NULL);
  g_object_get (e, "gather-traces", &traces, "gather-key", &key, NULL);
  fail_unless_equals_int (traces, 96);
  fail_unless_equals_int (key, 0);
  f = gst_element_get_factory (e);
  fail_unless (strstr (gst_element_factory_get_klass (f), "Parser"));
  fail_unless (gst_plugin_feature_get_rank (GST_PLUGIN_FEATURE (f)) >=
      GST_RANK_PRIMARY);
  fail_unless (gst_element_factory_list_is_type (f,
          GST_ELEMENT_FACTORY_TYPE_DECODABLE));
  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
segy_suite (void)
{
  Suite *s = suite_create ("scicodec-segy");
  TCase *tc = tcase_create ("segy");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_meta_records);
  tcase_add_test (tc, test_ibm);
  tcase_add_test (tc, test_int_rounding);
  tcase_add_test (tc, test_elements);
  tcase_add_test (tc, test_no_blocksize);
  tcase_add_test (tc, test_f3_formats);
  tcase_add_test (tc, test_round_trip_files);
  tcase_add_test (tc, test_gather_keys);
  tcase_add_test (tc, test_timestamps);
  tcase_add_test (tc, test_write_formats);
  tcase_add_test (tc, test_write_no_meta);
  tcase_add_test (tc, test_write_mixed);
  tcase_add_test (tc, test_read_errors);
  tcase_add_test (tc, test_extended_headers);
  tcase_add_test (tc, test_write_errors);
  tcase_add_test (tc, test_mutations);
  tcase_add_test (tc, test_parse_element);
  tcase_add_test (tc, test_typefind);
  tcase_add_test (tc, test_parse_files);
  tcase_add_test (tc, test_parse_synthetic);
  tcase_add_test (tc, test_parse_errors);
  tcase_add_test (tc, test_decodebin);
  return s;
}

GST_CHECK_MAIN (segy);
