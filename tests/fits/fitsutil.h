/*
 * Helpers of the element tests that read FITS (test-fits,
 * test-dpcm-elements): the real GMOS-N file, cfitsio's reading of an HDU,
 * and a GstHarness whose element posts to a bus of its own.
 */
#ifndef __FITSUTIL_H__
#define __FITSUTIL_H__

#include <gst/gst.h>
#include <gst/check/gstharness.h>

G_BEGIN_DECLS
/* The bytes of spectral16/gmos-n-multi.fits under $SCI_TEST_DATA_DIR
 * (else ../shared/data), or NULL (and a note) when it is absent. */
    GBytes * fitsutil_real_file (void);

/* HDU `hdu` (0-based) of a FITS file in memory read by cfitsio with its
 * scaling: its samples as unsigned 16-bit values (NULL when it is not a
 * 2-D image) and, when `cards` is not NULL, its non-structural cards
 * (80 characters each).  The test fails where cfitsio does. */
guint16 *fitsutil_cfitsio_read (gconstpointer data, gsize len, gint hdu,
    gint * w, gint * h, gchar ** cards);

typedef struct
{
  GstHarness *h;
  GstBus *bus;
} TestRun;

/* A harness of `launch` with `src_caps` on its source, its element
 * posting to `bus`. */
TestRun test_run_new (const gchar * launch, const gchar * src_caps);

/* The text (message and debug) of the first error posted, or NULL. */
gchar *test_run_error (TestRun * r);

/* The same for the first warning posted. */
gchar *test_run_warning (TestRun * r);

void test_run_free (TestRun * r);

G_END_DECLS
#endif
