/*
 * j2kdec's CPU path: the C reference decoder (codec/j2k/j2k_dec.h) writes
 * the planes of a system-memory frame in place; components of packed
 * formats (RGB, RGBA) go through a scratch plane each and are interleaved.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstj2kdec.h"

GST_DEBUG_CATEGORY_EXTERN (gst_j2k_dec_debug);
#define GST_CAT_DEFAULT gst_j2k_dec_debug

void
gst_j2k_dec_post_error (GstJ2kDec * self, int code, const gchar * msg,
    gsize offset, gsize len)
{
  if (code == SCI_J2K_EUNSUPPORTED)
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The JPEG 2000 codestream uses what j2kdec does not decode: %s",
            msg), ("frame %" G_GUINT64_FORMAT ", byte offset %" G_GSIZE_FORMAT
            " of %" G_GSIZE_FORMAT, self->frames, offset, len));
  else if (code == SCI_J2K_ENOMEM)
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Out of memory decoding a JPEG 2000 frame: %s", msg),
        ("frame %" G_GUINT64_FORMAT ", %" G_GSIZE_FORMAT " bytes",
            self->frames, len));
  else
    GST_ELEMENT_ERROR (self, STREAM, DECODE,
        ("Corrupt JPEG 2000 codestream: %s", msg),
        ("frame %" G_GUINT64_FORMAT ", byte offset %" G_GSIZE_FORMAT " of %"
            G_GSIZE_FORMAT " (code %d)", self->frames, offset, len, code));
}

void
gst_j2k_dec_post_warnings (GstJ2kDec * self, unsigned n, const gchar * first)
{
  if (n == 0)
    return;
  GST_ELEMENT_WARNING (self, STREAM, DECODE,
      ("Damaged JPEG 2000 codestream, decoded what is intact: %s", first),
      ("frame %" G_GUINT64_FORMAT ": %u warning%s", self->frames, n,
          n == 1 ? "" : "s"));
}

gboolean
gst_j2k_dec_cpu_decode (GstJ2kDec * self, const sci_j2k_decode_params * p,
    guint8 * data, gsize input_len)
{
  GstVideoInfo *vi = &self->out_info;
  guint n = GST_VIDEO_INFO_N_COMPONENTS (vi), c;
  sci_j2k_plane planes[GST_J2K_DEC_MAX_COMPONENTS] = { {0} };
  gboolean packed[GST_J2K_DEC_MAX_COMPONENTS];
  guint8 *dst[GST_J2K_DEC_MAX_COMPONENTS];
  guint bytes = GST_VIDEO_FORMAT_INFO_BITS (vi->finfo) > 8 ? 2 : 1;
  gsize need = 0, at = 0;
  int rc;

  for (c = 0; c < n; c++) {
    guint plane = GST_VIDEO_INFO_COMP_PLANE (vi, c);
    gint stride = GST_VIDEO_INFO_PLANE_STRIDE (vi, plane);

    dst[c] = data + GST_VIDEO_INFO_PLANE_OFFSET (vi, plane) +
        GST_VIDEO_INFO_COMP_POFFSET (vi, c);
    /* the decoder writes host-order samples, rows a whole number apart */
    packed[c] = GST_VIDEO_INFO_COMP_PSTRIDE (vi, c) != (gint) bytes
        || stride % bytes || (guintptr) dst[c] % bytes
        || (bytes == 2 && G_BYTE_ORDER != G_LITTLE_ENDIAN);
    if (packed[c])
      need += (gsize) GST_VIDEO_INFO_COMP_WIDTH (vi, c) *
          GST_VIDEO_INFO_COMP_HEIGHT (vi, c) * bytes;
    planes[c].data = dst[c];
    planes[c].stride = stride / bytes;
    planes[c].bytes = bytes;
  }
  if (need > self->scratch_len) {
    g_free (self->scratch);
    self->scratch = g_malloc (need);
    self->scratch_len = need;
  }
  for (c = 0; c < n; c++)
    if (packed[c]) {
      planes[c].data = self->scratch + at;
      planes[c].stride = GST_VIDEO_INFO_COMP_WIDTH (vi, c);
      at += (gsize) GST_VIDEO_INFO_COMP_WIDTH (vi, c) *
          GST_VIDEO_INFO_COMP_HEIGHT (vi, c) * bytes;
    }
  sci_j2k_dec_set_pool (self->dec,
      gst_sci_backend_pool (&GST_SCI_VIDEO_DECODER (self)->backend));
  rc = sci_j2k_dec_decode (self->dec, p, planes);
  if (rc != SCI_J2K_OK) {
    gst_j2k_dec_post_error (self, rc, sci_j2k_dec_error (self->dec),
        sci_j2k_dec_error_offset (self->dec), input_len);
    return FALSE;
  }
  for (c = 0; c < n; c++) {
    gint w = GST_VIDEO_INFO_COMP_WIDTH (vi, c);
    gint h = GST_VIDEO_INFO_COMP_HEIGHT (vi, c), x, y;
    gint ps = GST_VIDEO_INFO_COMP_PSTRIDE (vi, c);
    gint stride =
        GST_VIDEO_INFO_PLANE_STRIDE (vi, GST_VIDEO_INFO_COMP_PLANE (vi, c));

    if (!packed[c])
      continue;
    for (y = 0; y < h; y++) {
      const guint8 *s = (const guint8 *) planes[c].data + (gsize) y * w * bytes;
      guint8 *d = dst[c] + (gsize) y * stride;

      if (bytes == 1) {
        for (x = 0; x < w; x++)
          d[(gsize) x * ps] = s[x];
      } else {
        for (x = 0; x < w; x++) {
          guint16 v = ((const guint16 *) s)[x];

          d[(gsize) x * ps] = (guint8) v;
          d[(gsize) x * ps + 1] = (guint8) (v >> 8);
        }
      }
    }
  }
  gst_j2k_dec_post_warnings (self, sci_j2k_dec_warnings (self->dec),
      sci_j2k_dec_warning (self->dec));
  return TRUE;
}
