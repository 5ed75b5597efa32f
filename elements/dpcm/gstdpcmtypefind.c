/*
 * The typefinder of DPCM frames (docs/dpcm-format.md), which lets filesrc
 * and decodebin find dpcmdec: the `DPCM` magic, a version this plugin
 * reads and a depth of 1..16, or a whole header that parses.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstdpcmdec.h"

#define DPCM_MEDIA_TYPE "application/x-dpcm"

static void
dpcm_type_find (GstTypeFind * tf, gpointer unused)
{
  const guint8 *d = gst_type_find_peek (tf, 0, SCI_DPCM_HEADER_BYTES);
  sci_dpcm_info info;

  if (!d) {
    d = gst_type_find_peek (tf, 0, 6);
    if (d && memcmp (d, "DPCM", 4) == 0 && d[4] >= SCI_DPCM_VERSION_OLDEST
        && d[4] <= SCI_DPCM_VERSION && d[5] >= 1 && d[5] <= 16)
      gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_POSSIBLE,
          DPCM_MEDIA_TYPE);
    return;
  }
  if (sci_dpcm_peek (d, SCI_DPCM_HEADER_BYTES, &info) == SCI_DPCM_OK)
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_MAXIMUM,
        DPCM_MEDIA_TYPE);
  else if (memcmp (d, "DPCM", 4) == 0)
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_POSSIBLE,
        DPCM_MEDIA_TYPE);
}

gboolean
gst_dpcm_type_find_register (GstPlugin * plugin)
{
  GstCaps *caps = gst_caps_new_empty_simple (DPCM_MEDIA_TYPE);
  gboolean ret = gst_type_find_register (plugin, DPCM_MEDIA_TYPE,
      GST_RANK_PRIMARY, dpcm_type_find, "dpcm", caps, NULL, NULL);

  gst_caps_unref (caps);
  return ret;
}
