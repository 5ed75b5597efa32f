#ifndef __GST_SEGY_SINK_H__
#define __GST_SEGY_SINK_H__

#include <stdio.h>
#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

#include "gst/gstscisegymeta.h"

G_BEGIN_DECLS
#define GST_TYPE_SEGY_SINK (gst_segy_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstSegySink, gst_segy_sink, GST, SEGY_SINK, GstBaseSink);

struct _GstSegySink
{
  GstBaseSink parent;

  /* properties */
  gchar *location;

  /* while running */
  gchar *path;
  FILE *file;
  gint traces, samples, interval;       /* of the current caps */
  gint first_samples, first_interval;   /* of the first caps */
  gboolean have_caps;

  /* the file being written */
  gboolean header_written;
  gboolean from_meta;           /* its headers came from a GstSciSegyMeta */
  GBytes *file_header;          /* as written */
  GstSciSegyBinaryHeader bin;   /* what its binary header says */
  guint sample_bytes;
  guint64 traces_written;
  guint64 nan, clamped;         /* samples written as 0, or clamped */
  gboolean values_warned, headers_warned;
  guint8 *block;                /* a gather as written */
  gsize block_size;
};

GST_ELEMENT_REGISTER_DECLARE (segysink);

G_END_DECLS
#endif
