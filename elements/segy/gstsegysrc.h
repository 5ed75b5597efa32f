#ifndef __GST_SEGY_SRC_H__
#define __GST_SEGY_SRC_H__

#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>

#include "gstsegyformat.h"

G_BEGIN_DECLS
#define GST_TYPE_SEGY_SRC (gst_segy_src_get_type ())
G_DECLARE_FINAL_TYPE (GstSegySrc, gst_segy_src, GST, SEGY_SRC, GstBaseSrc);

struct _GstSegySrc
{
  GstBaseSrc parent;

  /* properties */
  gchar *location;
  guint gather_traces;
  gint gather_key;              /* GstSegyGatherKey */
  guint64 gather_duration;      /* ns; 0: the record length */

  /* from start (): the file and its layout */
  gchar *path;
  gint fd;
  GstSegyLayout layout;
  guint interval;               /* of the caps */
  guint64 trace0;               /* byte offset of the first trace */
  guint64 n_traces;             /* whole traces in the file */
  guint64 tail;                 /* bytes of an incomplete last trace */
  guint fixed;                  /* traces a gather without a key */
  guint key_offset;             /* 1-based byte of the key; 0: no key */
  gboolean split_warned;
  GBytes *file_header;
  guint64 next;                 /* the next trace to read */
  GstClockTime time;            /* the next gather's timestamp */
  guint8 *raw;                  /* the bytes of a gather, as stored */
  gsize raw_size;
  GstCaps *caps;
  gint caps_traces;
};

GST_ELEMENT_REGISTER_DECLARE (segysrc);

G_END_DECLS
#endif
