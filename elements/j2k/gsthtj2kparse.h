#ifndef __GST_HTJ2K_PARSE_H__
#define __GST_HTJ2K_PARSE_H__

#include <gst/gst.h>
#include <gst/base/gstbaseparse.h>

G_BEGIN_DECLS
#define GST_TYPE_HTJ2K_PARSE (gst_htj2k_parse_get_type ())
G_DECLARE_FINAL_TYPE (GstHtj2kParse, gst_htj2k_parse, GST, HTJ2K_PARSE,
    GstBaseParse);

struct _GstHtj2kParse
{
  GstBaseParse parent;

  /* from the sink caps */
  gboolean jph;                 /* image/x-jph: files, not bare codestreams */
  GstStructure *upstream;       /* the sink caps' fields */

  guint32 enumcs;               /* colr box of the current JPH file; 0: none */
  gsize scan;                   /* where the search for EOC resumes */
  guint64 frames;               /* codestreams pushed */
  guint64 skipped;              /* bytes dropped outside any codestream */
};

GST_ELEMENT_REGISTER_DECLARE (htj2kparse);

G_END_DECLS
#endif
