#ifndef __GST_SEGY_SRC_H__
#define __GST_SEGY_SRC_H__

#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>

#include "gstscisegymeta.h"

/* application/x-seismic in system memory (docs/media-types.md): the pad
 * templates of segysrc and segysink. */
#define GST_SEGY_CAPS "application/x-seismic, " \
    "traces = (int) [ 1, 16777216 ], samples = (int) [ 1, 65535 ], " \
    "sample-interval = (int) [ 1, 2147483647 ]"
/* The largest gather: traces, and traces x samples (docs/media-types.md). */
#define GST_SEGY_MAX_TRACES 16777216u
#define GST_SEGY_MAX_VALUES (1u << 28)

G_BEGIN_DECLS
#define GST_TYPE_SEGY_SRC (gst_segy_src_get_type ())
G_DECLARE_FINAL_TYPE (GstSegySrc, gst_segy_src, GST, SEGY_SRC, GstBaseSrc);

/* The trace-header fields a gather may be keyed on. */
typedef enum
{
  GST_SEGY_GATHER_KEY_NONE,
  GST_SEGY_GATHER_KEY_FFID,     /* field record number, bytes 9-12 */
  GST_SEGY_GATHER_KEY_CDP,      /* ensemble (CDP) number, bytes 21-24 */
  GST_SEGY_GATHER_KEY_INLINE,   /* bytes 189-192 */
  GST_SEGY_GATHER_KEY_CROSSLINE,        /* bytes 193-196 */
  GST_SEGY_GATHER_KEY_ENERGY_SOURCE_POINT,      /* bytes 17-20 */
  GST_SEGY_GATHER_KEY_OFFSET,   /* source-receiver offset, bytes 37-40 */
} GstSegyGatherKey;

struct _GstSegySrc
{
  GstBaseSrc parent;

  /* properties */
  gchar *location;
  guint gather_traces;
  gint gather_key;              /* GstSegyGatherKey */

  /* from start (): the file and its layout */
  gchar *path;
  gint fd;
  GstSciSegyBinaryHeader bin;
  guint sample_bytes;
  guint interval;               /* of the caps */
  guint64 trace0;               /* byte offset of the first trace */
  guint64 trace_bytes;          /* 240 + samples x sample_bytes */
  guint64 n_traces;             /* whole traces in the file */
  guint64 tail;                 /* bytes of an incomplete last trace */
  guint max_traces;             /* the largest gather the caps allow */
  guint fixed;                  /* traces a gather without a key */
  guint key_offset;             /* 1-based byte of the key; 0: no key */
  gboolean split_warned;
  GBytes *file_header;
  guint64 next;                 /* the next trace to read */
  guint8 *raw;                  /* the bytes of a gather, as stored */
  gsize raw_size;
  GstCaps *caps;
  gint caps_traces;
};

GST_ELEMENT_REGISTER_DECLARE (segysrc);

G_END_DECLS
#endif
