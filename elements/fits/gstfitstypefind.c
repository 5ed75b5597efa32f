/* The typefinder of FITS files: a FITS file starts with the card
 * "SIMPLE  =". */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstfitsdec.h"
#include "gstfitsfile.h"

static void
fits_type_find (GstTypeFind * tf, gpointer unused)
{
  const guint8 *d = gst_type_find_peek (tf, 0, FITS_CARD);

  if (!d || memcmp (d, "SIMPLE  =", 9) != 0)
    return;
  /* a conforming file says T in column 30 */
  if (d[29] == 'T')
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_MAXIMUM,
        "image/fits");
  else
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_LIKELY, "image/fits");
}

gboolean
gst_fits_type_find_register (GstPlugin * plugin)
{
  GstCaps *caps = gst_caps_new_empty_simple ("image/fits");
  gboolean ret = gst_type_find_register (plugin, "image/fits",
      GST_RANK_PRIMARY, fits_type_find, "fits,fit,fts", caps, NULL, NULL);

  gst_caps_unref (caps);
  return ret;
}
