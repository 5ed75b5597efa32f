/* The typefinder of compressed seismic frames: "SEIS", a version the
 * decoder reads, a header whose CRC holds. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstseismicdec.h"
#include "codec/seismic/seismic.h"

#define CODED_MEDIA_TYPE "application/x-seismic-compressed"

static void
seismic_type_find (GstTypeFind * tf, gpointer unused)
{
  const guint8 *d = gst_type_find_peek (tf, 0, SCI_SEIS_HEADER_BYTES);

  if (d && sci_seis_frame_length (d) >= 0) {
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_MAXIMUM,
        CODED_MEDIA_TYPE);
    return;
  }
  /* a damaged header, or a file shorter than one: seismicdec says what
   * is wrong with it */
  if (!d)
    d = gst_type_find_peek (tf, 0, 5);
  if (d && memcmp (d, "SEIS", 4) == 0 && d[4] >= SCI_SEIS_VERSION_OLDEST
      && d[4] <= SCI_SEIS_VERSION)
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_POSSIBLE,
        CODED_MEDIA_TYPE);
}

gboolean
gst_seismic_type_find_register (GstPlugin * plugin)
{
  GstCaps *caps = gst_caps_new_empty_simple (CODED_MEDIA_TYPE);
  gboolean ret = gst_type_find_register (plugin, CODED_MEDIA_TYPE,
      GST_RANK_PRIMARY, seismic_type_find, "seis", caps, NULL, NULL);

  gst_caps_unref (caps);
  return ret;
}
