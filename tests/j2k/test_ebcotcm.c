/*
 * ebcotcm (JPEG 2000 Part 1: EBCOT code-blocks, PCRD rate control, quality
 * layers) in GstHarness, system memory.  Without a GPU `auto` is the CPU
 * backend; on a GPU machine test_backend compares the two.  Lossless round
 * trips through openjpegdec (OpenJPEG's Part 1 decoder) for every
 * code-block style, layer count and progression order; the output caps and
 * the codestream's main header; bitrate targets and their quality; the
 * refusals; backends and cudadwt's coefficients; property changes
 * mid-stream; buffers smaller than their caps.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

#include "tests/common/frameutil.h"
#include "j2kutil.h"

/* COD's code-block style bits (ISO/IEC 15444-1 Table A.19) */
#define STYLE_BYPASS 0x01
#define STYLE_RESET 0x02
#define STYLE_TERMALL 0x04
#define STYLE_VCAUSAL 0x08
#define STYLE_PTERM 0x10
#define STYLE_SEGSYM 0x20
#define ALL_STYLES "bypass+reset+termall+vcausal+pterm+segsym"

static guint64
next_random (guint64 * s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* A natural-looking image of any format: gradients, a bright rectangle
 * and a dark disc (sharp edges), a patch of fine texture, and noise of a
 * few per cent of the range. */
static gdouble
natural_sample (guint c, guint x, guint y, guint cw, guint ch, gpointer seed)
{
  gdouble u = (x + 0.5) / cw, v = (y + 0.5) / ch;
  gdouble s = 0.15 + 0.4 * u + 0.2 * v * v + 0.05 * c;
  gdouble noise = (next_random (seed) >> 11) * (1.0 / 9007199254740992.0)
      - 0.5;

  if (u > 0.12 && u < 0.45 && v > 0.2 && v < 0.7)
    s += 0.3 - 0.1 * c;
  if ((u - 0.7) * (u - 0.7) + (v - 0.4) * (v - 0.4) < 0.04)
    s -= 0.25;
  if (u > 0.55 && v > 0.72)
    s += 0.08 * sin (1.3 * x + 0.5 * y + c);
  return s + 0.04 * noise;
}

static GstBuffer *
natural_buffer (const GstVideoInfo * info, guint64 seed)
{
  return j2kutil_synthetic_frame (info, natural_sample, &seed);
}

/* `ebcotcm reversible=true props ! openjpegdec` gives back every sample
 * of a flat, a random and a natural frame. */
static void
check_lossless (const gchar * props, const gchar * format, gint w, gint h,
    guint64 seed)
{
  gchar *desc = g_strdup_printf ("ebcotcm reversible=true %s ! openjpegdec",
      props);

  j2kutil_check_lossless (desc, format, w, h, seed, natural_buffer);
  g_free (desc);
}

GST_START_TEST (test_lossless_formats)
{
  /* GRAY16_LE is coded at depth 16, as the wavelet stage gives it */
  const gchar *formats[] = { "GRAY8", "GRAY16_LE", "I420", "Y42B",
    "Y444_12LE", "RGB",
  };
  const gint sizes[][2] = { {35, 21}, {1, 1}, {67, 41}, {1, 9}, {9, 1} };
  guint f, s;

  J2KUTIL_REQUIRE_OPENJPEGDEC ();
  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      check_lossless ("", formats[f], sizes[s][0], sizes[s][1], 10 * f + s + 1);
}

GST_END_TEST;

/* Every code-block style alone and all together, several layer counts,
 * every progression order (and a few combinations), on an RGB (RCT), a
 * 4:2:0 and a 16-bit frame: still lossless. */
GST_START_TEST (test_lossless_options)
{
  const gchar *props[] = {
    "code-block-style=bypass", "code-block-style=reset",
    "code-block-style=termall", "code-block-style=vcausal",
    "code-block-style=pterm", "code-block-style=segsym",
    "code-block-style=" ALL_STYLES,
    "layers=1", "layers=3", "layers=8",
    "progression=lrcp", "progression=rlcp", "progression=rpcl",
    "progression=pcrl", "progression=cprl",
    "layers=5 progression=lrcp code-block-style=" ALL_STYLES,
    "layers=3 progression=cprl code-block-style=bypass+termall "
        "block-width=16 block-height=8",
    "layers=2 code-block-style=vcausal+segsym block-width=4 "
        "block-height=1024 levels=2",
  };
  const struct
  {
    const gchar *format;
    gint w, h;
  } frames[] = {
    {"RGB", 67, 41}, {"I420", 35, 21}, {"GRAY16_LE", 35, 21},
  };
  guint i, f;

  J2KUTIL_REQUIRE_OPENJPEGDEC ();
  for (i = 0; i < G_N_ELEMENTS (props); i++)
    for (f = 0; f < G_N_ELEMENTS (frames); f++)
      check_lossless (props[i], frames[f].format, frames[f].w, frames[f].h,
          100 + 7 * i + f);
}

GST_END_TEST;

/* `caps` are not empty and every structure of them is named `name`. */
static void
assert_caps_only (GstCaps * caps, const gchar * name, const gchar * what)
{
  guint i;

  fail_if (gst_caps_is_empty (caps), "%s: empty caps", what);
  for (i = 0; i < gst_caps_get_size (caps); i++)
    if (!gst_structure_has_name (gst_caps_get_structure (caps, i), name))
      fail ("%s: %s", what, gst_caps_to_string (caps));
}

GST_START_TEST (test_caps)
{
  GstElement *e;
  GstElementClass *klass;
  GstPadTemplate *tmpl;
  GstCaps *tcaps;
  guint i;

  for (i = 0; i < j2kutil_n_caps_cases; i++) {
    const J2kCapsCase *c = &j2kutil_caps_cases[i];
    GstStructure *s = j2kutil_coded_structure ("ebcotcm", c->format, 35, 21);
    GstStructure *ht = j2kutil_coded_structure ("htj2kenc", c->format, 35, 21);

    j2kutil_assert_jpc_structure (s, c, 35, 21);
    /* exactly what htj2kenc says of the same input, but for the profile
     * (Rsiz): 0, Part 1, where htj2kenc's says Part 15 */
    fail_unless (gst_structure_has_field_typed (s, "profile", G_TYPE_INT));
    fail_unless (gst_structure_has_field_typed (ht, "profile", G_TYPE_INT));
    {
      gint p = -1, q = -1;

      gst_structure_get_int (s, "profile", &p);
      gst_structure_get_int (ht, "profile", &q);
      fail_unless (p == 0 && q == 0x4000, "profiles %d and %d", p, q);
    }
    gst_structure_remove_field (s, "profile");
    gst_structure_remove_field (ht, "profile");
    if (!gst_structure_is_equal (s, ht))
      fail ("%s: %s but htj2kenc gives %s", c->format,
          gst_structure_to_string (s), gst_structure_to_string (ht));
    gst_structure_free (ht);
    gst_structure_free (s);
  }

  /* layers and code-block-style, but no jph (htj2kenc's, for contrast) */
  e = gst_element_factory_make ("ebcotcm", NULL);
  fail_unless (e != NULL);
  klass = GST_ELEMENT_GET_CLASS (e);
  fail_unless (g_object_class_find_property (G_OBJECT_CLASS (klass),
          "jph") == NULL);
  fail_unless (g_object_class_find_property (G_OBJECT_CLASS (klass),
          "layers") != NULL);
  fail_unless (g_object_class_find_property (G_OBJECT_CLASS (klass),
          "code-block-style") != NULL);
  fail_unless (g_object_class_find_property (G_OBJECT_CLASS (klass),
          "bitrate") != NULL);
  {
    GstElement *ht = gst_element_factory_make ("htj2kenc", NULL);

    fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (ht),
            "jph") != NULL);
    fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (ht),
            "layers") == NULL);
    gst_object_unref (ht);
  }

  /* the src template, and what the element offers downstream: image/x-jpc
   * only (no image/x-jph) */
  tmpl = gst_element_class_get_pad_template (klass, "src");
  fail_unless (tmpl != NULL);
  tcaps = gst_pad_template_get_caps (tmpl);
  assert_caps_only (tcaps, "image/x-jpc", "src template");
  gst_caps_unref (tcaps);
  {
    GstPad *src = gst_element_get_static_pad (e, "src");

    tcaps = gst_pad_query_caps (src, NULL);
    assert_caps_only (tcaps, "image/x-jpc", "src caps query");
    gst_caps_unref (tcaps);
    gst_object_unref (src);
  }
  gst_object_unref (e);
}

GST_END_TEST;

/* What the main header of a codestream says. */
typedef struct
{
  guint16 rsiz;
  guint32 width, height;
  guint components;
  gboolean cap;                 /* a CAP marker (0xFF50) */
  gboolean cod;
  guint8 scod, progression, mct, levels, xcb, ycb, style, transform;
  guint16 layers;
} MainHeader;

/* Walks the marker segments from SIZ to the first SOT; NULL when the
 * header is well formed (*mh filled), else what is wrong. */
static const gchar *
parse_main_header (const guint8 * d, gsize n, MainHeader * mh)
{
  gsize pos = 2;
  gboolean siz = FALSE;

  memset (mh, 0, sizeof (*mh));
  if (n < 4 || d[0] != 0xFF || d[1] != 0x4F)
    return "no SOC";
  if (d[n - 2] != 0xFF || d[n - 1] != 0xD9)
    return "no EOC at the end";
  for (;;) {
    guint marker, len;
    const guint8 *seg;

    if (pos + 4 > n)
      return "no SOT: the main header runs off the end";
    marker = GST_READ_UINT16_BE (d + pos);
    if (marker == 0xFF90)
      break;
    if ((marker >> 8) != 0xFF || marker < 0xFF30)
      return "not a marker where one should be";
    len = GST_READ_UINT16_BE (d + pos + 2);
    if (len < 2 || pos + 2 + len > n)
      return "a marker segment runs off the end";
    seg = d + pos + 4;
    if (!siz && marker != 0xFF51)
      return "SIZ is not the first marker segment";
    switch (marker) {
      case 0xFF51:
        if (len < 41)
          return "short SIZ";
        siz = TRUE;
        mh->rsiz = GST_READ_UINT16_BE (seg);
        mh->width = GST_READ_UINT32_BE (seg + 2);
        mh->height = GST_READ_UINT32_BE (seg + 6);
        mh->components = GST_READ_UINT16_BE (seg + 34);
        break;
      case 0xFF50:
        mh->cap = TRUE;
        break;
      case 0xFF52:
        if (len < 12)
          return "short COD";
        mh->cod = TRUE;
        mh->scod = seg[0];
        mh->progression = seg[1];
        mh->layers = GST_READ_UINT16_BE (seg + 2);
        mh->mct = seg[4];
        mh->levels = seg[5];
        mh->xcb = seg[6];
        mh->ycb = seg[7];
        mh->style = seg[8];
        mh->transform = seg[9];
        break;
      default:
        break;
    }
    pos += 2 + len;
  }
  if (!mh->cod)
    return "no COD in the main header";
  return NULL;
}

static void
buffer_main_header (GstBuffer * buf, MainHeader * mh, const gchar * what)
{
  GstMapInfo m;
  const gchar *why;

  fail_unless (gst_buffer_map (buf, &m, GST_MAP_READ));
  why = parse_main_header (m.data, m.size, mh);
  fail_unless (why == NULL, "%s: %s", what, why);
  gst_buffer_unmap (buf, &m);
}

/* The properties reach the main header: a Part 1 codestream (Rsiz 0, no
 * CAP), COD's layers, code-block style, transform and progression. */
GST_START_TEST (test_codestream_header)
{
  const struct
  {
    const gchar *format, *props;
    guint16 layers;
    guint8 style, transform, progression;
  } cases[] = {
    {"RGB", "", 1, 0, 0, 2},
    {"RGB", "reversible=true", 1, 0, 1, 2},
    {"GRAY8", "layers=3 code-block-style=bypass", 3, STYLE_BYPASS, 0, 2},
    {"I420", "reversible=true layers=8 code-block-style=reset+termall "
          "progression=lrcp", 8, STYLE_RESET | STYLE_TERMALL, 1, 0},
    {"Y444_12LE", "code-block-style=vcausal+pterm+segsym progression=cprl",
        1, STYLE_VCAUSAL | STYLE_PTERM | STYLE_SEGSYM, 0, 4},
    {"GRAY16_LE", "reversible=true layers=64 bitrate=4 code-block-style="
          ALL_STYLES, 64, 0x3F, 1, 2},
    {"RGB", "bitrate=1 layers=5 progression=pcrl", 5, 0, 0, 3},
    {"Y42B", "reversible=true bitrate=2 progression=rlcp "
          "code-block-style=pterm", 1, STYLE_PTERM, 1, 1},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstCaps *caps = frameutil_video_caps (cases[i].format, 50, 40);
    GstVideoInfo info;
    GstBuffer *in, *out;
    MainHeader mh;
    gchar *p = g_strdup_printf ("ebcotcm %s", cases[i].props);

    fail_unless (gst_video_info_from_caps (&info, caps));
    in = natural_buffer (&info, 60 + i);
    out = j2kutil_encode (p, in, caps, NULL);
    buffer_main_header (out, &mh, p);
    fail_unless_equals_int (mh.rsiz, 0);
    fail_if (mh.cap, "%s: a CAP marker in a Part 1 codestream", p);
    fail_unless_equals_int (mh.width, 50);
    fail_unless_equals_int (mh.height, 40);
    fail_unless_equals_int (mh.components, GST_VIDEO_INFO_N_COMPONENTS (&info));
    fail_unless_equals_int (mh.layers, cases[i].layers);
    fail_unless_equals_int (mh.style, cases[i].style);
    fail_unless_equals_int (mh.transform, cases[i].transform);
    fail_unless_equals_int (mh.progression, cases[i].progression);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
    g_free (p);
  }

  /* the parser sees what htj2kenc writes: Rsiz 0x4000 and CAP */
  {
    GstCaps *caps = frameutil_video_caps ("GRAY8", 50, 40);
    GstVideoInfo info;
    GstBuffer *in, *out;
    MainHeader mh;

    fail_unless (gst_video_info_from_caps (&info, caps));
    in = natural_buffer (&info, 1);
    out = j2kutil_encode ("htj2kenc", in, caps, NULL);
    buffer_main_header (out, &mh, "htj2kenc");
    fail_unless_equals_int (mh.rsiz, 0x4000);
    fail_unless (mh.cap);
    fail_unless_equals_int (mh.style, 0x40);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
  }
}

GST_END_TEST;

/* plt reaches the encoder: PLT segments whose lengths tile the tile-part,
 * in a codestream that is otherwise the one without (layers and all), and
 * openjpegdec decodes it; with bitrate the target, PLT included, is still
 * met from below within 10 %. */
GST_START_TEST (test_plt)
{
  const gint w = 256, h = 192;
  GstCaps *caps = frameutil_video_caps ("RGB", w, h);
  GstVideoInfo info;
  GstBuffer *in;
  gdouble psnr;
  gsize size;
  guint i;

  j2kutil_check_plt ("ebcotcm", "GRAY8", 37, 29, 1);
  j2kutil_check_plt ("ebcotcm layers=3 progression=rlcp", "RGB", 45, 31, 2);
  j2kutil_check_plt ("ebcotcm reversible=true layers=4 progression=pcrl "
      "code-block-style=bypass", "Y444", 33, 21, 3);
  J2KUTIL_REQUIRE_OPENJPEGDEC ();
  j2kutil_check_lossless ("ebcotcm reversible=true layers=2 plt=true ! "
      "openjpegdec", "RGB", 33, 17, 4, NULL);
  fail_unless (gst_video_info_from_caps (&info, caps));
  in = natural_buffer (&info, 1100);
  for (i = 1; i <= 8; i *= 8) {
    gchar *p = g_strdup_printf ("ebcotcm bitrate=0.5 layers=%u plt=true", i);
    gdouble want = 0.5 * w * h / 8;

    j2kutil_code_and_measure (p, &info, caps, in, &size, &psnr);
    fail_unless (size <= want && size >= 0.9 * want, "%s: %" G_GSIZE_FORMAT
        " bytes for a target of %.0f", p, size, want);
    g_free (p);
  }
  gst_buffer_unref (in);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* bitrate is met from below (headers included) within 10 %, and more
 * bytes give a better picture; with reversible=true too, and with layers. */
GST_START_TEST (test_bitrate)
{
  const gchar *formats[] = { "GRAY8", "RGB", "I420_10LE" };
  const gdouble rates[] = { 0.25, 0.5, 1, 2 };
  const gint w = 256, h = 192;
  guint f, i;

  J2KUTIL_REQUIRE_OPENJPEGDEC ();
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstCaps *caps = frameutil_video_caps (formats[f], w, h);
    GstVideoInfo info;
    GstBuffer *in;
    gdouble last = 0, psnr, psnr1 = 0;
    gsize size, lossless;
    gint64 bad;

    fail_unless (gst_video_info_from_caps (&info, caps));
    in = natural_buffer (&info, 1000 + f);
    /* the frame is worth more than the highest rate losslessly */
    bad = j2kutil_code_and_measure ("ebcotcm reversible=true", &info, caps, in,
        &lossless, &psnr);
    fail_unless (bad == 0);
    fail_unless (lossless > 2.0 * w * h / 8, "%s: lossless in %"
        G_GSIZE_FORMAT " bytes", formats[f], lossless);
    GST_INFO ("%s: lossless %" G_GSIZE_FORMAT " bytes", formats[f], lossless);

    for (i = 0; i < G_N_ELEMENTS (rates); i++) {
      gchar *p = g_strdup_printf ("ebcotcm bitrate=%g", rates[i]);
      gdouble want = rates[i] * w * h / 8;

      j2kutil_code_and_measure (p, &info, caps, in, &size, &psnr);
      GST_INFO ("%s %s: %" G_GSIZE_FORMAT " bytes of %.0f, PSNR %.2f dB",
          formats[f], p, size, want, psnr);
      fail_unless (size <= want && size >= 0.9 * want, "%s %s: %"
          G_GSIZE_FORMAT " bytes for a target of %.0f", formats[f], p, size,
          want);
      fail_unless (psnr > last, "%s %s: PSNR %.2f dB, not above %.2f dB",
          formats[f], p, psnr, last);
      if (rates[i] == 1)
        psnr1 = psnr;
      last = psnr;
      g_free (p);
    }

    /* a lossy 5/3 codestream: fits, decodes, loses something; about as
     * good as 9/7 at the same rate */
    bad = j2kutil_code_and_measure ("ebcotcm reversible=true bitrate=1",
        &info, caps, in, &size, &psnr);
    GST_INFO ("%s reversible bitrate=1: %" G_GSIZE_FORMAT " bytes, PSNR %.2f "
        "dB", formats[f], size, psnr);
    fail_unless (size <= w * h / 8 && size >= 0.9 * w * h / 8, "%s: %"
        G_GSIZE_FORMAT " bytes", formats[f], size);
    fail_unless (bad > 0, "%s: lossless at 1 bit a pixel?", formats[f]);
    fail_unless (psnr > psnr1 - 3, "%s: PSNR %.2f dB against %.2f dB for "
        "9/7", formats[f], psnr, psnr1);

    /* four quality layers in the same bytes, little worse for it */
    j2kutil_code_and_measure ("ebcotcm layers=4 bitrate=1", &info, caps, in,
        &size, &psnr);
    GST_INFO ("%s layers=4 bitrate=1: %" G_GSIZE_FORMAT " bytes, PSNR %.2f "
        "dB", formats[f], size, psnr);
    fail_unless (size <= w * h / 8 && size >= 0.9 * w * h / 8, "%s: %"
        G_GSIZE_FORMAT " bytes", formats[f], size);
    fail_unless (psnr > psnr1 - 1, "%s: PSNR %.2f dB against %.2f dB in one "
        "layer", formats[f], psnr, psnr1);

    /* a target above the lossless size changes nothing */
    j2kutil_assert_same_coding ("ebcotcm reversible=true",
        "ebcotcm reversible=true bitrate=64", in, caps,
        "reversible=true with and without bitrate=64");
    gst_buffer_unref (in);
    gst_caps_unref (caps);
  }
}

GST_END_TEST;

/* A format the element must not accept at all. */
static void
expect_format_refused (const gchar * format)
{
  GstElement *e = gst_element_factory_make ("ebcotcm", NULL);
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstCaps *caps = frameutil_video_caps (format, 16, 16);

  fail_if (gst_pad_query_accept_caps (sink, caps), "%s accepted", format);
  gst_caps_unref (caps);
  gst_object_unref (sink);
  gst_object_unref (e);
  j2kutil_expect_refusal ("ebcotcm", frameutil_video_caps (format, 16, 16),
      NULL);
}

GST_START_TEST (test_refusals)
{
  /* code-blocks of more than 4096 samples, or not powers of two */
  j2kutil_expect_refusal ("ebcotcm block-width=128 block-height=64",
      frameutil_video_caps ("GRAY8", 40, 30), "4096");
  j2kutil_expect_refusal ("ebcotcm block-width=1024 block-height=8",
      frameutil_video_caps ("RGB", 40, 30), "4096");
  j2kutil_expect_refusal ("ebcotcm block-width=48 block-height=32",
      frameutil_video_caps ("GRAY8", 40, 30), "powers of two");
  j2kutil_expect_refusal ("ebcotcm block-width=64 block-height=24",
      frameutil_video_caps ("I420", 40, 30), "powers of two");
  /* a rate the headers alone exceed */
  j2kutil_expect_refusal ("ebcotcm bitrate=0.01",
      frameutil_video_caps ("RGB", 40, 30), "headers");
  j2kutil_expect_refusal ("ebcotcm reversible=true bitrate=0.05 layers=20",
      frameutil_video_caps ("GRAY8", 40, 30), "headers");
  /* coefficients of the other filter */
  j2kutil_expect_refusal ("cudadwt backend=cpu filter=9-7 ! "
      "ebcotcm reversible=true", frameutil_video_caps ("RGB", 40, 30),
      "reversible");
  j2kutil_expect_refusal ("cudadwt backend=cpu filter=5-3 ! ebcotcm",
      frameutil_video_caps ("GRAY16_LE", 40, 30), "reversible");
  /* formats the wavelet stage does not take */
  expect_format_refused ("NV12");
  expect_format_refused ("AYUV");
  expect_format_refused ("GRAY16_BE");
}

GST_END_TEST;

static gboolean
have_gpu_build (void)
{
#if HAVE_CUDA
  return TRUE;
#else
  return FALSE;
#endif
}

/* backend=auto (the CUDA kernels on a GPU machine) and backend=cpu give
 * the same bytes. */
GST_START_TEST (test_backend)
{
  const struct
  {
    const gchar *format, *props;
  } cases[] = {
    {"I420_10LE", "reversible=true"},
    {"RGB", "reversible=true layers=3 code-block-style=" ALL_STYLES},
    {"RGB", "bitrate=1.5 layers=4"},
    {"GRAY16_LE", "qstep=0.002 code-block-style=bypass+pterm"},
    {"Y444_12LE", "reversible=true bitrate=2 progression=lrcp "
          "code-block-style=vcausal+segsym block-width=32 block-height=16"},
  };
  guint i;

  GST_INFO ("CUDA build: %d", have_gpu_build ());
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstCaps *caps = frameutil_video_caps (cases[i].format, 77, 45);
    GstVideoInfo info;
    GstBuffer *in;
    gchar *pa = g_strdup_printf ("ebcotcm backend=auto %s", cases[i].props);
    gchar *pb = g_strdup_printf ("ebcotcm backend=cpu %s", cases[i].props);
    guint k;

    fail_unless (gst_video_info_from_caps (&info, caps));
    for (k = 0; k < 2; k++) {
      guint64 seed = 31 + i;

      in = k ? frameutil_random_buffer (&info, &seed) :
          natural_buffer (&info, 31 + i);
      j2kutil_assert_same_coding (pa, pb, in, caps, pa);
      gst_buffer_unref (in);
    }
    gst_caps_unref (caps);
    g_free (pa);
    g_free (pb);
  }
}

GST_END_TEST;

/* Coefficients from cudadwt are coded as the element's own transform of
 * the same frame would be. */
GST_START_TEST (test_wavelet_input_matches_raw)
{
  const J2kWaveletCase cases[] = {
    {"RGB", "filter=5-3 levels=5", "reversible=true levels=5"},
    {"RGB", "filter=9-7 levels=4", "levels=4 layers=3"},
    {"I420", "filter=5-3 levels=3",
        "reversible=true levels=3 code-block-style=" ALL_STYLES},
    {"I420_10LE", "filter=9-7 levels=5", "qstep=0.01 progression=cprl"},
    {"GRAY16_LE", "filter=9-7 levels=2", "levels=2 bitrate=1.5 layers=2"},
    {"Y444_12LE", "filter=5-3 levels=0", "reversible=true levels=0"},
    {"GBR", "filter=5-3 colour-transform=none",
        "reversible=true colour-transform=none bitrate=3"},
  };

  j2kutil_check_wavelet_input ("ebcotcm", cases, G_N_ELEMENTS (cases),
      natural_buffer, 40);
}

GST_END_TEST;

/* Changes of layers, code-block-style, bitrate (and reversible) while
 * running take effect on the next frame, whose bytes are then those of a
 * fresh element with the new settings (and differ from the frame before);
 * new caps keep the settings; an invalid change fails the next frame. */
GST_START_TEST (test_property_change)
{
  const struct
  {
    const gchar *name, *value, *all;
  } steps[] = {
    {"layers", "3", "layers=3"},
    {"code-block-style", "bypass+segsym",
        "layers=3 code-block-style=bypass+segsym"},
    {"bitrate", "1.5", "layers=3 code-block-style=bypass+segsym bitrate=1.5"},
    {"layers", "1", "code-block-style=bypass+segsym bitrate=1.5"},
    {"code-block-style", "0", "bitrate=1.5"},
    {"bitrate", "0.75", "bitrate=0.75"},
    {"reversible", "true", "bitrate=0.75 reversible=true"},
    {"bitrate", "0", "reversible=true"},
  };
  GstCaps *caps = frameutil_video_caps ("I420", 96, 64);
  GstCaps *caps2 = frameutil_video_caps ("RGB", 50, 30);
  GstHarness *hr = gst_harness_new_parse ("ebcotcm");
  GstElement *enc = gst_harness_find_element (hr, "ebcotcm");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GstVideoInfo info, info2;
  GstBuffer *in, *in2, *out, *prev;
  guint i;

  fail_unless (gst_video_info_from_caps (&info, caps));
  in = natural_buffer (&info, 5);
  gst_harness_set_src_caps (hr, gst_caps_ref (caps));

  prev = j2kutil_run_one (hr, in, NULL, "defaults");
  j2kutil_assert_coded_as (prev, "ebcotcm", in, caps, "defaults");

  for (i = 0; i < G_N_ELEMENTS (steps); i++) {
    gchar *p = g_strdup_printf ("ebcotcm %s", steps[i].all);

    gst_util_set_object_arg (G_OBJECT (enc), steps[i].name, steps[i].value);
    out = j2kutil_run_one (hr, in, NULL, p);
    fail_unless (out != NULL, "%s", p);
    j2kutil_assert_coded_as (out, p, in, caps, p);
    fail_if (j2kutil_same_bytes (out, prev), "%s=%s changed nothing",
        steps[i].name, steps[i].value);
    gst_buffer_unref (prev);
    prev = out;
    g_free (p);
  }
  gst_buffer_unref (prev);

  /* new caps (another format and size) with the settings reached */
  fail_unless (gst_video_info_from_caps (&info2, caps2));
  in2 = natural_buffer (&info2, 6);
  gst_harness_set_src_caps (hr, gst_caps_ref (caps2));
  out = j2kutil_run_one (hr, in2, NULL, "RGB 50x30");
  j2kutil_assert_coded_as (out, "ebcotcm reversible=true", in2, caps2,
      "renegotiated to RGB 50x30");
  gst_buffer_unref (out);

  /* an invalid change fails the next frame with the reason */
  gst_element_set_bus (hr->element, bus);
  g_object_set (enc, "block-width", 128, "block-height", 64, NULL);
  fail_unless_equals_int (gst_harness_push (hr, gst_buffer_ref (in2)),
      GST_FLOW_NOT_NEGOTIATED);
  fail_unless (gst_harness_try_pull (hr) == NULL);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  gst_element_set_bus (hr->element, NULL);
  gst_object_unref (bus);

  gst_object_unref (enc);
  gst_harness_teardown (hr);
  gst_buffer_unref (in2);
  gst_buffer_unref (in);
  gst_caps_unref (caps2);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* Pushes `buf` into harness `hr` (element `what`): an error flow, an
 * error message holding `needle`, nothing out. */
static void
expect_flow_error (GstHarness * hr, GstBuffer * buf, const gchar * needle,
    const gchar * what)
{
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_bus (hr->element, bus);
  fail_unless_equals_int (gst_harness_push (hr, buf), GST_FLOW_ERROR);
  fail_unless (gst_harness_try_pull (hr) == NULL, "%s", what);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no error message", what);
  gst_message_parse_error (msg, &err, NULL);
  GST_INFO ("%s: %s", what, err->message);
  fail_unless (strstr (err->message, needle) != NULL, "%s: \"%s\"", what,
      err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_bus (hr->element, NULL);
  gst_object_unref (bus);
}

/* The first `size` bytes of `buf`, a new buffer. */
static GstBuffer *
truncated (GstBuffer * buf, gsize size)
{
  return gst_buffer_copy_region (buf, GST_BUFFER_COPY_MEMORY, 0, size);
}

/* Buffers smaller than their caps say: an error, not a crash. */
/* frames-in-flight: documented, 1..2, 2 by default; it concerns the CUDA
 * backend only: on the CPU each frame leaves as it comes, with its own
 * timestamp, whatever the property says. */
GST_START_TEST (test_frames_in_flight_cpu)
{
  GstElement *e = gst_element_factory_make ("ebcotcm", NULL);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "frames-in-flight");
  GstCaps *caps = frameutil_video_caps ("Y444_12LE", 65, 33);
  GstHarness *hr;
  GstVideoInfo info;
  guint k, v = 0;

  fail_unless (ps != NULL && G_IS_PARAM_SPEC_UINT (ps));
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 1);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 2);
  g_object_get (e, "frames-in-flight", &v, NULL);
  fail_unless_equals_int (v, 2);
  fail_unless (strstr (g_param_spec_get_blurb (ps), "CUDA") != NULL);
  gst_object_unref (e);

  fail_unless (gst_video_info_from_caps (&info, caps));
  hr = gst_harness_new_parse ("ebcotcm backend=cpu frames-in-flight=2 "
      "reversible=true");
  gst_harness_set_src_caps (hr, gst_caps_ref (caps));
  for (k = 0; k < 3; k++) {
    GstBuffer *in = natural_buffer (&info, 40 + k), *out;

    GST_BUFFER_PTS (in) = k * GST_MSECOND;
    fail_unless_equals_int (gst_harness_push (hr, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_try_pull (hr);
    fail_unless (out != NULL, "frame %u did not leave at once", k);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * GST_MSECOND);
    j2kutil_assert_coded_as (out, "ebcotcm reversible=true", in, caps,
        "frames-in-flight=2 on the CPU");
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_harness_teardown (hr);
  gst_caps_unref (caps);
}

GST_END_TEST;

GST_START_TEST (test_short_buffers)
{
  const gchar *formats[] = { "GRAY8", "I420", "Y444_12LE" };
  guint f;

  /* raw video, a byte short, half, empty */
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstCaps *caps = frameutil_video_caps (formats[f], 40, 30);
    GstHarness *hr = gst_harness_new ("ebcotcm");
    GstVideoInfo info;
    GstBuffer *in, *out;

    fail_unless (gst_video_info_from_caps (&info, caps));
    in = natural_buffer (&info, 3);
    gst_harness_set_src_caps (hr, caps);
    expect_flow_error (hr, truncated (in, info.size - 1), "bytes", formats[f]);
    expect_flow_error (hr, truncated (in, info.size / 2), "bytes", formats[f]);
    expect_flow_error (hr, gst_buffer_new (), "bytes", formats[f]);
    /* and a whole frame still codes */
    out = j2kutil_run_one (hr, in, NULL, formats[f]);
    fail_unless (out != NULL);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_harness_teardown (hr);
  }

  /* coefficients (made by cudadwt) shorter than their caps */
  for (f = 0; f < 2; f++) {
    GstCaps *caps = frameutil_video_caps ("RGB", 40, 30);
    GstHarness *dwt = gst_harness_new_parse (f ? "cudadwt backend=cpu "
        "filter=9-7" : "cudadwt backend=cpu filter=5-3");
    GstHarness *hr = gst_harness_new_parse (f ? "ebcotcm" :
        "ebcotcm reversible=true");
    GstCaps *wcaps = NULL;
    GstVideoInfo info;
    GstBuffer *in, *coeffs, *out;
    gsize n;

    fail_unless (gst_video_info_from_caps (&info, caps));
    in = natural_buffer (&info, 4);
    gst_harness_set_src_caps (dwt, caps);
    coeffs = j2kutil_run_one (dwt, in, &wcaps, "cudadwt");
    fail_unless (coeffs != NULL);
    n = gst_buffer_get_size (coeffs);
    gst_harness_set_src_caps (hr, wcaps);
    expect_flow_error (hr, truncated (coeffs, n - 4), "smaller",
        "coefficients");
    expect_flow_error (hr, truncated (coeffs, 1), "smaller", "coefficients");
    expect_flow_error (hr, gst_buffer_new (), "smaller", "coefficients");
    out = j2kutil_run_one (hr, coeffs, NULL, "coefficients");
    fail_unless (out != NULL);
    gst_buffer_unref (out);
    gst_buffer_unref (coeffs);
    gst_buffer_unref (in);
    gst_harness_teardown (hr);
    gst_harness_teardown (dwt);
  }
}

GST_END_TEST;

/* The output pool's buffers hold what real frames need, far less than
 * the proven bound (gstj2kenc.c's pool_size: the samples' bytes and a
 * quarter more, 64 KiB, 16 bytes a code-block and layer); random 16-bit
 * samples in 4x4 code-blocks with every pass terminated need more: that
 * frame gets a buffer of its own and still decodes exactly, and the pool
 * goes on with the frames after it (one harness: flat, random, natural). */
GST_START_TEST (test_frame_beyond_pool)
{
  const gchar *props = "block-width=4 block-height=4 code-block-style=termall";
  const gint w = 256, h = 256;
  gchar *desc = g_strdup_printf ("ebcotcm reversible=true %s", props);
  GstCaps *caps = frameutil_video_caps ("GRAY16_LE", w, h);
  GstVideoInfo info;
  GstBuffer *in, *out;
  gsize pool_bytes;
  guint64 blocks = 0;
  guint l, bw, bh;

  J2KUTIL_REQUIRE_OPENJPEGDEC ();
  /* code-blocks of the 5-level 5/3 decomposition, band by band */
  for (l = 1, bw = w, bh = h; l <= 5; l++) {
    guint lw = (bw + 1) / 2, lh = (bh + 1) / 2, hw = bw / 2, hh = bh / 2;

    blocks += (guint64) ((hw + 3) / 4) * ((lh + 3) / 4)
        + (guint64) ((lw + 3) / 4) * ((hh + 3) / 4)
        + (guint64) ((hw + 3) / 4) * ((hh + 3) / 4);
    bw = lw;
    bh = lh;
  }
  blocks += (guint64) ((bw + 3) / 4) * ((bh + 3) / 4);
  pool_bytes = (gsize) w *h * 2;
  pool_bytes += pool_bytes / 4 + 65536 + 16 * blocks;

  fail_unless (gst_video_info_from_caps (&info, caps));
  in = j2kutil_random_frame (&info, 77);
  out = j2kutil_encode (desc, in, caps, NULL);
  fail_unless (gst_buffer_get_size (out) > pool_bytes,
      "the random frame takes %" G_GSIZE_FORMAT " bytes, no more than the "
      "pool's %" G_GSIZE_FORMAT ": the test misses its path",
      gst_buffer_get_size (out), pool_bytes);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
  g_free (desc);
  check_lossless (props, "GRAY16_LE", w, h, 78);
}

GST_END_TEST;

/* As a user would run it: several frames, raw and through cudadwt. */
GST_START_TEST (test_pipeline)
{
  J2KUTIL_REQUIRE_OPENJPEGDEC ();
  j2kutil_run_pipeline ("videotestsrc num-buffers=4 pattern=smpte ! "
      "video/x-raw,format=I422_10LE,width=321,height=243 ! "
      "ebcotcm bitrate=1 layers=3 ! openjpegdec ! fakesink");
  j2kutil_run_pipeline ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGB,width=160,height=120 ! cudadwt filter=9-7 ! "
      "ebcotcm code-block-style=" ALL_STYLES " ! openjpegdec ! fakesink");
}

GST_END_TEST;

static Suite *
ebcotcm_suite (void)
{
  Suite *s = suite_create ("scicodec-ebcotcm");
  TCase *tc = tcase_create ("ebcotcm");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_lossless_formats);
  tcase_add_test (tc, test_lossless_options);
  tcase_add_test (tc, test_caps);
  tcase_add_test (tc, test_codestream_header);
  tcase_add_test (tc, test_bitrate);
  tcase_add_test (tc, test_plt);
  tcase_add_test (tc, test_refusals);
  tcase_add_test (tc, test_backend);
  tcase_add_test (tc, test_wavelet_input_matches_raw);
  tcase_add_test (tc, test_property_change);
  tcase_add_test (tc, test_frames_in_flight_cpu);
  tcase_add_test (tc, test_short_buffers);
  tcase_add_test (tc, test_frame_beyond_pool);
  tcase_add_test (tc, test_pipeline);
  return s;
}

GST_CHECK_MAIN (ebcotcm);
