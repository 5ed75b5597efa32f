#ifndef __GST_SEGY_PARSE_H__
#define __GST_SEGY_PARSE_H__

#include <gst/gst.h>

#include "gstsegyformat.h"
#include "gstsegystream.h"

G_BEGIN_DECLS
#define GST_TYPE_SEGY_PARSE (gst_segy_parse_get_type ())
G_DECLARE_FINAL_TYPE (GstSegyParse, gst_segy_parse, GST, SEGY_PARSE,
    GstElement);

struct _GstSegyParse
{
  GstElement parent;

  GstPad *sinkpad, *srcpad;

  /* properties */
  guint gather_traces;
  gint gather_key;              /* GstSegyGatherKey */

  /* streaming thread */
  GstSegyStream *stream;        /* from READY to PAUSED on */
  gboolean failed;
  gboolean need_segment;        /* no caps and segment pushed yet */
  gint caps_traces;             /* of the caps pushed; 0: none */
  gboolean discont;
  gchar *uri;                   /* upstream's, for messages */
  gboolean uri_asked;

  /* the decodebin (or parsebin) it was plugged into */
  GWeakRef autoplug_bin;
  gulong autoplug_id;
};

GST_ELEMENT_REGISTER_DECLARE (segyparse);

/* Registers the SEG-Y typefinder (application/x-segy). */
gboolean gst_segy_type_find_register (GstPlugin * plugin);

G_END_DECLS
#endif
